//! Issue 34.1: a stage with its own motion (moving parts). A `.vmdscene`
//! whose stage names a motion opens it into that role (the timeline shows
//! it as the stage's section); the viewport poses the stage at the scene
//! frame: its drawn vertices are those of the same model posed by that
//! motion through the pose engine, and they move as the playhead moves.
//! Run with `env -u DISPLAY cargo test --test ui set_stage_motion::`.

use egui_kittest::kittest::Queryable;
use glam::Vec3;
use vmd_studio::app::panels::model_view::FrameMesh;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::model::PoseEngine;
use vmd_studio::render::from_model::posed_vertices;
use vmd_studio::vmd::IndexedMotion;
use vmd_studio::workspace::TransportEvent;

use crate::common::ui::settle;

/// The stage's drawn vertex positions (the one set piece), if drawn.
fn stage_positions(h: &egui_kittest::Harness<'_, StudioApp>) -> Option<Vec<Vec3>> {
    let frames = h.state().panels.viewport.posing.frames();
    let f = frames.iter().find(|f| f.key.0 == usize::MAX)?;
    match &f.mesh {
        FrameMesh::Vertices { vertices, .. } => {
            Some(vertices.iter().map(|v| Vec3::from(v.position)).collect())
        }
        FrameMesh::Gpu(_) => None,
    }
}

#[test]
fn a_stage_with_its_own_motion_is_posed_at_the_scene_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // The demo mannequin as a "stage" whose parts move with the demo dance.
    std::fs::write(
        dir.join("gears.pmx"),
        vmd_studio::render::stage::DEMO_MODEL_PMX,
    )
    .unwrap();
    std::fs::write(dir.join("gears.vmd"), vmd_studio::app::DEMO_DANCE).unwrap();
    let scene = r#"{ "format": "vmd-studio-scene", "version": 1, "actors": [],
        "stages": [ { "name": "Gears", "path": "gears.pmx", "shown": true,
                      "order": "before", "motion": "gears.vmd" } ] }"#;
    std::fs::write(dir.join("s.vmdscene"), scene).unwrap();

    // The viewport's meshes are filled once its renderer is up.
    let mut app = StudioApp::default();
    app.panels.central = CentralView::Preview;
    app.open_paths(vec![dir.join("s.vmdscene")]);
    let Some(mut h) = crate::common::ui::wgpu_harness(app, 1280.0, 720.0) else {
        return;
    };
    settle(&mut h);
    h.run_steps(3);
    let app = h.state();
    let props = &app.ws.scene().set.props;
    assert_eq!(props.len(), 1, "{:?}", app.shared.messages);
    let doc = props[0]
        .motion
        .expect("the stage's motion opened into its role");
    let d = app.ws.doc(doc).expect("document");
    assert!(d.path.as_ref().is_some_and(|p| p.ends_with("gears.vmd")));
    // The timeline shows it as the stage's section.
    h.get_by_label("Stage Gears — gears.vmd");

    // Independently posed: the model at the frame, through the pose engine.
    let model =
        vmd_studio::model::Model::read(vmd_studio::render::stage::DEMO_MODEL_PMX).expect("model");
    let motion = IndexedMotion::new(
        vmd_studio::vmd::read_vec(vmd_studio::app::DEMO_DANCE.to_vec()).unwrap(),
    );
    let want = |frame: f64| {
        let mut e = PoseEngine::new(&model);
        e.bind(&model, Some(&motion.index));
        e.pose(&model, Some(motion.as_ref()), frame);
        let mut out = Vec::new();
        posed_vertices(&model, &e.posed, &mut out);
        out.iter()
            .map(|v| Vec3::from(v.position))
            .collect::<Vec<_>>()
    };
    let mut seen = Vec::new();
    for frame in [0.0, 15.0] {
        h.state_mut().transport(TransportEvent::Seek(frame));
        h.run_steps(3);
        let got = stage_positions(&h).unwrap_or_else(|| {
            let a = h.state();
            panic!(
                "the stage is not drawn: frames {:?}, models {:?}, {:?}",
                a.panels
                    .viewport
                    .posing
                    .frames()
                    .iter()
                    .map(|f| f.key)
                    .collect::<Vec<_>>(),
                a.scene.models.keys().collect::<Vec<_>>(),
                a.shared.messages
            )
        });
        let w = want(frame);
        assert_eq!(got.len(), w.len());
        let worst = got
            .iter()
            .zip(&w)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "frame {frame}: {worst}");
        seen.push(got);
    }
    let moved = seen[0]
        .iter()
        .zip(&seen[1])
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    assert!(
        moved > 0.5,
        "the stage's parts move between frames 0 and 15: {moved}"
    );

    // The scene panel: "At rest" stops the motion (one undo step), Ctrl+Z
    // brings it back; at rest, "Motion…" picks a VMD in the file browser.
    crate::common::ui::scroll_to_label(&mut h, vmd_studio::app::dock::Panel::Scene, "At rest");
    h.get_by_label("At rest").click();
    h.run_steps(2);
    assert_eq!(h.state().ws.scene().set.props[0].motion, None);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().ws.scene().set.props[0].motion, Some(doc));
    h.get_by_label("At rest").click();
    h.run_steps(2);
    std::fs::write(dir.join("lights.vmd"), vmd_studio::app::DEMO_DANCE).unwrap();
    h.state_mut().files.native_dialog = false;
    crate::common::ui::pick_in_browser(&mut h, "Motion…", dir, "lights.vmd");
    let app = h.state();
    let m = app.ws.scene().set.props[0].motion.expect("a motion again");
    let d = app.ws.doc(m).expect("document");
    assert!(
        d.path.as_ref().is_some_and(|p| p.ends_with("lights.vmd")),
        "{:?}",
        d.path
    );
}
