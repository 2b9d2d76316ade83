//! Physics in the viewport: Mei (`mei/mei.pmd`, 31 rigid bodies) wearing
//! MMDAgent's `mmdagent__mei_wait.vmd`, played for a second. In the mode
//! While playing the bones her dynamic bodies drive (hair, ribbons, skirt)
//! stand elsewhere than in the pose without physics; with Off every bone
//! is exactly the animated pose. Mei's hair bodies are mode 2 (physics +
//! bone position), so the hair bones keep their animated heads and turn:
//! the test measures points one unit along each bone's axes. The expected pose is the pose engine
//! without physics ([`viewport::posed_world`], no world built), not the
//! viewport's own engine. Run with `cargo test --test ui physics::`.

use crate::common::corpus;
use crate::common::ui::{harness_sized, settle};

use egui_kittest::Harness;
use glam::Mat4;
use vmd_studio::app::panels::viewport;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::model::PhysicsMode;
use vmd_studio::model::physics::SimulationMode;
use vmd_studio::workspace::TransportEvent;

fn mei_waiting(corpus: &std::path::Path) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.panels.central = CentralView::Preview;
    app.open_paths(vec![
        corpus.join("mei/mei.pmd"),
        corpus.join("mmdagent__mei_wait.vmd"),
    ]);
    let mut h = harness_sized(app, 1400.0, 900.0);
    settle(&mut h);
    let app = h.state();
    assert!(
        app.scene.loaded(&app.ws.scene().actors[0].model),
        "Mei loaded"
    );
    assert_eq!(app.ws.docs().len(), 1, "the motion is open");
    h
}

/// Plays frames 0..`frames` (the playhead set each picture, so the test
/// does not depend on the wall clock) in `mode`, then returns the motion
/// frame the viewport posed last, its bone matrices, and the same frame
/// posed without physics.
fn play(
    h: &mut Harness<'_, StudioApp>,
    mode: SimulationMode,
    frames: u32,
) -> (f64, Vec<Mat4>, Vec<Mat4>) {
    h.state_mut().panels.viewport.posing.physics = mode;
    h.state_mut().transport(TransportEvent::Play);
    for f in 0..frames {
        h.state_mut().transport(TransportEvent::Seek(f64::from(f)));
        h.step();
    }
    let app = h.state();
    let (frame, got) = app
        .panels
        .viewport
        .posed_bones(0)
        .expect("the viewport posed Mei");
    let rig = app.scene.rig_for(&app.ws.scene().actors[0].model);
    let want = viewport::posed_world(rig, Some(app.ws.docs()[0].source()), frame);
    (frame, got.to_vec(), want)
}

/// Bones a dynamic body (modes 1 and 2) drives, by index.
fn driven(app: &StudioApp) -> Vec<usize> {
    let rig = app.scene.rig_for(&app.ws.scene().actors[0].model);
    let mut bones: Vec<usize> = rig
        .rigid_bodies
        .iter()
        .filter(|b| b.mode != PhysicsMode::FollowBone)
        .filter_map(|b| b.bone)
        .collect();
    bones.sort_unstable();
    bones.dedup();
    bones
}

fn head(m: &Mat4) -> glam::Vec3 {
    m.w_axis.truncate()
}

/// How far apart two bone poses put points one unit from the bone's head
/// along each of its axes (the largest of the three): a turn of the bone
/// shows even where its head stays (a chain's first bone turns about the
/// joint with its parent).
fn apart(a: &Mat4, b: &Mat4) -> f32 {
    [
        glam::Vec3::ZERO,
        glam::Vec3::X,
        glam::Vec3::Y,
        glam::Vec3::Z,
    ]
    .iter()
    .map(|&p| a.transform_point3(p).distance(b.transform_point3(p)))
    .fold(0.0f32, f32::max)
}

#[test]
fn hair_moves_while_playing_and_not_with_physics_off() {
    let Some(corpus) = corpus() else { return };
    let mut h = mei_waiting(&corpus);
    let driven = driven(h.state());
    assert!(
        driven.len() >= 10,
        "Mei's bodies drive {} bones",
        driven.len()
    );
    assert_eq!(
        h.state().panels.viewport.posing.physics,
        SimulationMode::Play,
        "MMD's default mode"
    );

    // While playing: simulated.
    let (frame, got, want) = play(&mut h, SimulationMode::Play, 45);
    assert!(frame > 30.0, "played to frame {frame}");
    assert_eq!(got.len(), want.len());
    let names: Vec<String> = {
        let app = h.state();
        let rig = app.scene.rig_for(&app.ws.scene().actors[0].model);
        rig.skeleton.bones.iter().map(|b| b.name.clone()).collect()
    };
    let moved: Vec<(usize, f32)> = driven
        .iter()
        .map(|&b| (b, apart(&got[b], &want[b])))
        .collect();
    let hair: Vec<&(usize, f32)> = moved
        .iter()
        .filter(|(b, _)| names[*b].contains('髪'))
        .collect();
    let hair_max = hair.iter().map(|(_, d)| *d).fold(0.0f32, f32::max);
    let all_max = moved.iter().map(|(_, d)| *d).fold(0.0f32, f32::max);
    eprintln!(
        "frame {frame}: {} driven bones, {} hair; hair bones off the animated pose by up to {hair_max:.3}, any driven bone {all_max:.3}",
        moved.len(),
        hair.len()
    );
    assert!(!hair.is_empty(), "Mei has hair bones driven by bodies");
    assert!(hair_max > 0.05, "the hair moves: {hair_max}");
    // Simulated, yet sane: every bone finite and within a 30-unit ball
    // around センター.
    let center = names
        .iter()
        .position(|n| n == "センター")
        .expect("センター");
    for (i, m) in got.iter().enumerate() {
        let p = head(m);
        assert!(p.is_finite(), "{} not finite", names[i]);
        assert!(
            p.distance(head(&got[center])) < 30.0,
            "{} flung to {p}",
            names[i]
        );
    }

    // Off: the animated pose, every bone.
    let (frame, got, want) = play(&mut h, SimulationMode::Off, 45);
    let worst = got
        .iter()
        .zip(&want)
        .map(|(a, b)| head(a).distance(head(b)))
        .fold(0.0f32, f32::max);
    eprintln!("Off, frame {frame}: worst bone head off the animated pose {worst}");
    for (i, (a, b)) in got.iter().zip(&want).enumerate() {
        assert!(
            a.abs_diff_eq(*b, 1e-5),
            "{} differs with physics off at frame {frame}",
            names[i]
        );
    }
    assert!(h.state().panels.viewport.posed_bones(0).is_some());
}

/// Tools ▸ Bake physics… on Mei wearing the wait motion: one undo step; a
/// key on every frame for each bone a dynamic body drives, each with
/// physics switched off (bytes 2–3 of the interpolation block `63 0F`, as
/// MMD writes it); every other key's bytes untouched; undo gives the motion
/// back.
#[test]
fn bake_physics_from_the_tools_menu_is_one_undo_step() {
    use egui_kittest::kittest::Queryable;
    use std::collections::BTreeSet;
    let Some(corpus) = corpus() else { return };
    let mut h = mei_waiting(&corpus);
    let before = h.state().ws.docs()[0].motion.clone();
    let last = before.last_frame().expect("keys");
    let names: BTreeSet<String> = {
        let app = h.state();
        let rig = app.scene.rig_for(&app.ws.scene().actors[0].model);
        driven(app)
            .iter()
            .map(|&b| rig.skeleton.bones[b].name.clone())
            .collect()
    };
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label("Bake physics…").click();
    h.run_steps(3);
    h.get_by_label("Bake the physics").click();
    for _ in 0..4000 {
        h.step();
        if !h.state().panels.toolbox.is_busy() && !h.state().jobs.is_busy() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    h.run_steps(3);
    let app = h.state();
    let doc = &app.ws.docs()[0];
    assert_eq!(
        doc.history().len(),
        1,
        "one undo step: {:?}",
        app.shared.messages
    );
    let after = &doc.motion;
    for name in &names {
        let frames: BTreeSet<u32> = after
            .bones
            .iter()
            .filter(|k| &k.name().text == name)
            .map(|k| {
                let b = k.interpolation_block();
                assert_eq!(
                    &b[2..4],
                    &[0x63, 0x0F],
                    "{name} at {}: physics off",
                    k.frame()
                );
                k.frame()
            })
            .collect();
        assert_eq!(frames, (0..=last).collect(), "{name}: a key on every frame");
    }
    let others = |m: &vmd_studio::vmd::Motion| -> Vec<vmd_studio::vmd::BoneKey> {
        m.bones
            .iter()
            .filter(|k| !names.contains(&k.name().text))
            .cloned()
            .collect()
    };
    assert_eq!(others(after), others(&before), "other bone keys untouched");
    assert_eq!(after.morphs, before.morphs);
    eprintln!(
        "baked {} bones over frames 0..={last}: {} bone keys before, {} after",
        names.len(),
        before.bones.len(),
        after.bones.len()
    );
    h.state_mut()
        .run_command(vmd_studio::app::command::UiCommand::Undo);
    h.run_steps(3);
    assert_eq!(
        h.state().ws.docs()[0].motion,
        before,
        "undo gives the motion back"
    );
}

/// The mode shows in the status bar and is switched from Playback ▸
/// Physics (the same value the viewport's toolbar selector sets).
#[test]
fn the_mode_is_in_the_status_bar_and_the_playback_menu() {
    use egui_kittest::kittest::Queryable;
    let mut h = crate::common::ui::harness(StudioApp::with_demo());
    h.run_steps(3);
    h.get_by_label("Physics: While playing");
    h.get_by_label("Playback").click();
    h.run_steps(2);
    h.get_by_label("Trace").click();
    h.run_steps(3);
    assert_eq!(
        h.state().panels.viewport.posing.physics,
        SimulationMode::Trace
    );
    h.get_by_label("Physics: Trace");
}

/// The physics mode belongs to the scene: chosen in Playback ▸ Physics, it
/// is written into the saved `.vmdscene` (`"physics": "trace"`, the name
/// the file format documents) and a fresh window opening that scene takes
/// it back, whatever its own mode was.
#[test]
fn the_scene_file_keeps_its_physics_mode() {
    use egui_kittest::kittest::Queryable;
    let dir = crate::common::ui::temp_dir("ui-scene-physics");
    let mut h = crate::common::ui::harness(StudioApp::with_demo());
    h.run_steps(3);
    h.get_by_label("Playback").click();
    h.run_steps(2);
    h.get_by_label("Trace").click();
    h.run_steps(3);
    let path = dir.join("show.vmdscene");
    h.state_mut().save_scene_to(path.clone());
    h.run_steps(10);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("scene written"))
            .expect("json");
    assert_eq!(json["preview"]["physics"], "trace", "{json}");

    let mut app = StudioApp::default();
    assert_eq!(app.panels.viewport.posing.physics, SimulationMode::Play);
    app.open_paths(vec![path]);
    let mut h = crate::common::ui::harness(app);
    settle(&mut h);
    assert_eq!(
        h.state().panels.viewport.posing.physics,
        SimulationMode::Trace
    );
    h.get_by_label("Physics: Trace");
}
