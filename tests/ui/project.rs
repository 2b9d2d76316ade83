//! An MMD project (`.pmm`) dropped on the window, as a user opens one
//! (egui_kittest, no display): the real (synthetic, mmd-anim-written) v2
//! project from the corpus opens as one actor wearing its model (found by
//! the project's relative path) and a motion built from the project's
//! keys, plus a camera/light document; the preview looks through the VMD
//! camera. Saved, the motion holds the keys of the VMD the project was made
//! from (the corpus's own `ik_multi_bone_nondefault.vmd`, read here, not
//! written by us).
//! Run with `env -u DISPLAY cargo test --test ui project::`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::common;
use common::ui::{harness, settle, settle_until, temp_dir};

use vmd_studio::app::StudioApp;
use vmd_studio::app::panels::viewport::ViewMode;
use vmd_studio::scene::ModelRef;

const DIR: &str = "frontier/pmm_v2_mmdanim_synthetic";

#[derive(Debug)]
struct Drop(PathBuf);

impl egui::DroppedFile for Drop {
    fn path(&self) -> &Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

type Key = (String, u32, [f32; 3], [f32; 4]);

fn keys(m: &vmd_studio::vmd::Motion) -> Vec<Key> {
    let mut k: Vec<Key> = m
        .bones
        .iter()
        .map(|b| (b.name().text, b.frame(), b.position(), b.rotation()))
        .collect();
    k.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    k
}

#[test]
fn a_dropped_project_opens_its_model_motion_and_camera() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = corpus.join(DIR);
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    let mut h = harness(app);
    h.run_steps(4);
    let pmm = dir.join("ik_multi_bone_from_pmx_vmd.pmm");
    h.input_mut().dropped_files.push(Arc::new(Drop(pmm)));
    h.run_steps(2);
    settle(&mut h);

    let app = h.state();
    let msgs = format!("{:?}", app.shared.messages);
    let s = app.ws.scene();
    assert_eq!(s.actors.len(), 1, "{msgs}");
    assert_eq!(s.actors[0].name, "ik_multi_axis_limit_fixture");
    let model = dir.join("ik_multi_axis_limit.pmx");
    assert_eq!(s.actors[0].model, ModelRef::File(model.clone()));
    assert!(
        app.scene.models.contains_key(&model),
        "the model loaded for drawing: {msgs}"
    );
    assert_eq!(app.ws.docs().len(), 2, "{msgs}");
    let (motion, camera) = (app.ws.docs()[0].id, app.ws.docs()[1].id);
    assert_eq!(s.actors[0].motion, Some(motion));
    assert_eq!((s.camera, s.light), (Some(camera), Some(camera)));
    assert_eq!(app.panels.viewport.view.mode, ViewMode::VmdCamera);
    assert!(msgs.contains("Opened project"), "{msgs}");

    let out = temp_dir("project-gui");
    let (m_path, c_path) = (out.join("motion.vmd"), out.join("camera.vmd"));
    h.state_mut().save_doc_to(motion, m_path.clone());
    h.state_mut().save_doc_to(camera, c_path.clone());
    settle_until(&mut h, "the saves", |a| {
        !a.saves.is_saving(motion) && !a.saves.is_saving(camera)
    });

    let saved = vmd_studio::vmd::read(&std::fs::read(&m_path).unwrap()).unwrap();
    let source = dir.join("ik_multi_bone_nondefault.vmd");
    let source = vmd_studio::vmd::read(&std::fs::read(source).unwrap()).unwrap();
    let (a, b) = (keys(&saved), keys(&source));
    assert_eq!(a.len(), 5);
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((&x.0, x.1), (&y.0, y.1));
        for (p, q) in x.2.iter().chain(&x.3).zip(y.2.iter().chain(&y.3)) {
            assert!((p - q).abs() < 1e-5, "{x:?} vs {y:?}");
        }
    }
    let cam = vmd_studio::vmd::read(&std::fs::read(&c_path).unwrap()).unwrap();
    assert_eq!((cam.cameras.len(), cam.lights.len()), (1, 1));
    let _ = std::fs::remove_dir_all(&out);
}

/// A project whose model is not where it says (copied alone to another
/// folder): the scene panel lists it with its stored path; Locate… opens
/// the browser, the user picks the model where it is now, the actor wears
/// it and the list empties.
#[test]
fn a_missing_model_is_located_from_the_scene_panel() {
    use egui::{Key, Modifiers};
    use egui_kittest::kittest::Queryable;
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = corpus.join(DIR);
    let out = temp_dir("project-locate");
    let (proj, elsewhere) = (out.join("proj"), out.join("elsewhere"));
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let pmm = proj.join("moved.pmm");
    std::fs::copy(dir.join("ik_multi_bone_from_pmx_vmd.pmm"), &pmm).unwrap();
    let model = elsewhere.join("ik_multi_axis_limit.pmx");
    std::fs::copy(dir.join("ik_multi_axis_limit.pmx"), &model).unwrap();

    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    let mut h = harness(app);
    h.run_steps(4);
    h.input_mut().dropped_files.push(Arc::new(Drop(pmm)));
    h.run_steps(2);
    settle(&mut h);
    assert_eq!(h.state().ws.scene().actors[0].model, ModelRef::Builtin);
    h.get_by_label("Project moved.pmm: 1 file missing");
    h.get_by_label(r"..\pmx\ik_multi_axis_limit.pmx");

    h.get_by_label("Locate…").click();
    h.run_steps(3);
    h.get_by_label("Folder").click();
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Folder")
        .type_text(&elsewhere.display().to_string());
    h.key_press(Key::Enter);
    h.run_steps(3);
    h.get_by_label("ik_multi_axis_limit.pmx").click();
    h.run_steps(2);
    h.get_by_role_and_label(egui::accesskit::Role::Button, "Open")
        .click();
    settle_until(&mut h, "the located model", |a| {
        a.scene.models.contains_key(&model)
    });
    h.run_steps(2);

    let app = h.state();
    let msgs = format!("{:?}", app.shared.messages);
    assert_eq!(
        app.ws.scene().actors[0].model,
        ModelRef::File(model.clone()),
        "{msgs}"
    );
    assert!(h.query_by_label("Locate…").is_none(), "{msgs}");
    let _ = std::fs::remove_dir_all(&out);
}
