//! File ▸ Collect scene into folder…, as a user runs it (egui_kittest, no
//! display): the corpus' MMD project opened (its motions never saved), then
//! collected through the menu and the built-in save dialog. The folder
//! holds the scene file, both motions as VMD (the motion's keys are those
//! of the VMD the project was made from, read here), and the model copied
//! byte for byte; the scene file opens from there with nothing missing. A
//! second collect into the same folder writes nothing and says why.
//! Run with `env -u DISPLAY cargo test --test ui collect::`.

use crate::common;
use common::ui::{harness, settle, temp_dir};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::scene::ModelRef;

const DIR: &str = "frontier/pmm_v2_mmdanim_synthetic";

fn type_into(h: &mut Harness<'static, StudioApp>, label: &str, text: &str) {
    h.get_by_label(label).click();
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label(label).type_text(text);
    h.run_steps(2);
}

fn collect_through_the_menu(h: &mut Harness<'static, StudioApp>, dir: &std::path::Path) {
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Collect scene into folder…").click();
    h.run_steps(3);
    type_into(h, "Folder", &dir.display().to_string());
    h.key_press(Key::Enter);
    h.run_steps(2);
    type_into(h, "File name", "show");
    h.get_by_label("Save").click();
    h.run_steps(3);
}

fn files_below(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_project_is_collected_into_a_folder_that_opens_with_nothing_missing() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let src = corpus.join(DIR);
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    let mut h = harness(app);
    h.run_steps(4);
    h.state_mut()
        .open_paths(vec![src.join("ik_multi_bone_from_pmx_vmd.pmm")]);
    settle(&mut h);
    assert_eq!(h.state().ws.docs().len(), 2);
    assert!(h.state().ws.docs().iter().all(|d| d.path.is_none()));

    let out = temp_dir("collect-gui");
    collect_through_the_menu(&mut h, &out);
    let msgs = format!("{:?}", h.state().shared.messages);
    let scene_path = out.join("show.vmdscene");
    assert!(scene_path.is_file(), "{msgs}");
    assert!(msgs.contains("Collected the scene"), "{msgs}");
    let listed = files_below(&out);
    // The scene, 2 motions, the model (it names no texture).
    assert_eq!(listed.len(), 4, "{listed:?}");

    let loaded = vmd_studio::scene::file::load(&scene_path).unwrap_or_else(|e| panic!("{e}"));
    assert!(loaded.missing.is_empty(), "{:?}", loaded.missing);
    let s = &loaded.scene;
    assert_eq!(s.actors.len(), 1);
    let ModelRef::File(model) = &s.actors[0].model else {
        panic!("the actor keeps its model: {:?}", s.actors[0].model)
    };
    assert!(model.starts_with(out.join("models")), "{}", model.display());
    assert_eq!(
        std::fs::read(model).unwrap(),
        std::fs::read(src.join("ik_multi_axis_limit.pmx")).unwrap(),
        "the model copied byte for byte"
    );
    let motion = s.actors[0].motion.as_ref().expect("the actor's motion");
    assert!(motion.starts_with(out.join("motions")));
    let saved = vmd_studio::vmd::read(&std::fs::read(motion).unwrap()).unwrap();
    let source =
        vmd_studio::vmd::read(&std::fs::read(src.join("ik_multi_bone_nondefault.vmd")).unwrap())
            .unwrap();
    let frames = |m: &vmd_studio::vmd::Motion| {
        let mut f: Vec<(String, u32)> =
            m.bones.iter().map(|b| (b.name().text, b.frame())).collect();
        f.sort();
        f
    };
    assert_eq!(frames(&saved), frames(&source));
    let camera = s.camera.as_ref().expect("the camera");
    assert_eq!(s.light.as_ref(), Some(camera));
    let cam = vmd_studio::vmd::read(&std::fs::read(camera).unwrap()).unwrap();
    assert_eq!((cam.cameras.len(), cam.lights.len()), (1, 1));
    assert!(
        h.state().ws.docs().iter().all(|d| d.path.is_none()),
        "the open documents keep their state"
    );

    // Again into the same folder: nothing written, and the message says why.
    collect_through_the_menu(&mut h, &out);
    let msgs = format!("{:?}", h.state().shared.messages);
    assert!(msgs.contains("exists already"), "{msgs}");
    assert_eq!(files_below(&out), listed);
    let _ = std::fs::remove_dir_all(&out);
}
