//! Merging a second motion onto an actor, as MMD loads a face motion onto a
//! dance: driven as a user would with egui_kittest (File ▸ Merge motion into
//! actor… and the built-in file browser), then undo, redo, save.
//! Run with `env -u DISPLAY cargo test --test ui merge::`.
//!
//! The expected keys are worked out in the test from the two files alone:
//! the union of (track, frame) over both, the second file's key winning
//! where both key a track on one frame (MMD's rule). CENSUS.txt gives the
//! counts of the inputs: mei_wait 406 bone and 142 morph keys, mei_happiness
//! 142 and 142.

use crate::common;
use common::corpus;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::scene_ops::Intent;
use vmd_studio::vmd::{self, Motion};

fn harness(app: StudioApp) -> Harness<'static, StudioApp> {
    Harness::builder()
        .with_size(egui::vec2(1400.0, 1000.0))
        .with_context_setup(vmd_studio::app::install_fonts)
        .build_ui_state(|ui, app: &mut StudioApp| app.show(ui), app)
}

fn settle(h: &mut Harness<'_, StudioApp>) {
    for _ in 0..2000 {
        h.step();
        if !h.state().jobs.is_busy() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!h.state().jobs.is_busy(), "background job did not finish");
    h.run_steps(3);
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-studio-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn read(p: &Path) -> Motion {
    vmd::read(&std::fs::read(p).expect("readable")).expect("a VMD")
}

/// (name bytes, frame) → the key's record bytes, for bones and for morphs;
/// `later` replaces `earlier` on the same track and frame.
type Keys = HashMap<(Vec<u8>, u32), Vec<u8>>;

fn keys(m: &Motion) -> (Keys, Keys) {
    let mut bones = Keys::new();
    for k in &m.bones {
        bones.insert((k.name_key().to_vec(), k.frame()), k.raw.to_vec());
    }
    let mut morphs = Keys::new();
    for k in &m.morphs {
        morphs.insert((k.name_key().to_vec(), k.frame()), k.raw.to_vec());
    }
    (bones, morphs)
}

fn expected_union(earlier: &Motion, later: &Motion) -> (Keys, Keys) {
    let (mut b, mut m) = keys(earlier);
    let (lb, lm) = keys(later);
    b.extend(lb);
    m.extend(lm);
    (b, m)
}

#[test]
fn merge_a_face_motion_onto_the_dance_from_the_file_menu() {
    let Some(dir) = corpus() else { return };
    let tmp = temp_dir("merge-panel");
    let wait = tmp.join("wait.vmd");
    let face = tmp.join("happiness.vmd");
    std::fs::copy(dir.join("mmdagent__mei_wait.vmd"), &wait).expect("copy");
    std::fs::copy(dir.join("mmdagent__mei_happiness.vmd"), &face).expect("copy");
    let wait_bytes = std::fs::read(&wait).expect("read");
    let face_bytes = std::fs::read(&face).expect("read");
    let (want_bones, want_morphs) = expected_union(&read(&wait), &read(&face));
    // Both files key many tracks several times on one frame (MMD plays
    // the later record), so the union counts each track and frame once;
    // the face file's keys change what the dance alone would play.
    assert!(want_bones.len() <= 406 + 142 && want_morphs.len() <= 142 + 142);
    assert_ne!(
        (want_bones.clone(), want_morphs.clone()),
        keys(&read(&wait)),
        "the face motion changes some key"
    );

    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.open_paths(vec![dir.join("mei/mei.pmd"), wait.clone()]);
    let mut h = harness(app);
    settle(&mut h);
    assert_eq!(h.state().ws.docs().len(), 1);

    // File ▸ Merge motion into actor…, then the built-in browser.
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Merge motion into actor…").click();
    h.run_steps(3);
    h.get_by_label("Folder").click();
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Folder")
        .type_text(&tmp.display().to_string());
    h.key_press(Key::Enter);
    h.run_steps(3);
    h.get_by_label("happiness.vmd").click();
    h.run_steps(2);
    h.get_by_role_and_label(egui::accesskit::Role::Button, "Merge")
        .click();
    settle(&mut h);

    let app = h.state();
    // The face file did not become a document or an actor of its own.
    assert_eq!(app.ws.docs().len(), 1, "{:?}", app.shared.messages);
    assert_eq!(app.ws.scene().actors.len(), 1);
    let doc = &app.ws.docs()[0];
    assert!(doc.is_modified());
    let (got_bones, got_morphs) = keys(&doc.motion);
    assert_eq!(got_bones, want_bones);
    assert_eq!(got_morphs, want_morphs);
    assert_eq!(doc.motion.bones.len(), want_bones.len(), "no key twice");
    assert_eq!(doc.motion.morphs.len(), want_morphs.len(), "no key twice");
    assert!(
        app.shared
            .messages
            .iter()
            .any(|(m, _)| m.contains("Merged happiness.vmd")),
        "{:?}",
        app.shared.messages
    );
    // Nothing on disk changed yet.
    assert_eq!(std::fs::read(&wait).unwrap(), wait_bytes);

    // One undo takes the whole merge back, byte for byte.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(
        vmd::write(&h.state().ws.docs()[0].motion).unwrap(),
        wait_bytes
    );
    assert!(!h.state().ws.docs()[0].is_modified());

    // Redo and save: the file holds the merged keys; the face file is untouched.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    let saved = read(&wait);
    let (b, m) = keys(&saved);
    assert_eq!((b, m), (want_bones, want_morphs));
    assert_eq!(std::fs::read(&face).unwrap(), face_bytes);
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn merge_flag_goes_to_the_actor_and_a_camera_is_refused() {
    let Some(dir) = corpus() else { return };
    let wait = dir.join("mmdagent__mei_wait.vmd");
    let face = dir.join("mmdagent__mei_happiness.vmd");
    let (want_bones, want_morphs) = expected_union(&read(&wait), &read(&face));
    // As `vmd-studio mei.pmd wait.vmd --merge happiness.vmd` does.
    let mut app = StudioApp::default();
    app.open_paths(vec![dir.join("mei/mei.pmd"), wait.clone()]);
    app.open_for(face, Intent::MergeInto(None));
    let mut h = harness(app);
    settle(&mut h);
    let app = h.state();
    assert_eq!(app.ws.docs().len(), 1, "{:?}", app.shared.messages);
    assert_eq!(keys(&app.ws.docs()[0].motion), (want_bones, want_morphs));

    // A camera file holds nothing an actor wears: refused, nothing changes.
    let before = vmd::write(&app.ws.docs()[0].motion).unwrap();
    h.state_mut().open_for(
        dir.join("webmmd__GimmexGimme.vmd"),
        Intent::MergeInto(Some(0)),
    );
    settle(&mut h);
    let app = h.state();
    assert_eq!(vmd::write(&app.ws.docs()[0].motion).unwrap(), before);
    assert!(
        app.shared
            .messages
            .iter()
            .any(|(m, _)| m.contains("nothing to merge")),
        "{:?}",
        app.shared.messages
    );
}
