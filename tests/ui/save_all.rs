//! File ▸ Save all (Ctrl+Shift+S) and the scene's save, driven with
//! egui_kittest (issue 24 item 2): every modified file is written, not only
//! the active one, each reopens byte-identical to what was edited, the
//! scene's save names the files it wrote, and the title bar counts every
//! modified file. Run with `env -u DISPLAY cargo test --test ui save_all::`.
//!
//! Byte offsets from /work/shared/spec/vmd-format.md: a v2 file has a
//! 30-byte header and a 20-byte model name, then the bone count (4 bytes);
//! a bone record is 111 bytes with its frame at +15, so bone key 0's frame
//! is the u32 at 30 + 20 + 4 + 15 = 69. With no bone and no morph keys (counts
//! at 50 and 54) the camera count is at 58 and camera record 0 (61 bytes, frame first) at 62.

use crate::common;
use common::ui::{harness, settle, temp_dir};

use std::path::{Path, PathBuf};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use vmd_studio::app::{DEMO_CAMERA, DEMO_DANCE, StudioApp, window_title};
use vmd_studio::workspace::document::{Edit, KeyChanges};
use vmd_studio::workspace::{EditRequest, Event};

const BONE0_FRAME: usize = 69;
const CAMERA0_FRAME: usize = 62;

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn patched(b: &[u8], at: usize, v: u32) -> Vec<u8> {
    let mut b = b.to_vec();
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    b
}

/// The demo dance and camera copied to a fresh directory.
fn files(tag: &str) -> (PathBuf, PathBuf) {
    let dir = temp_dir(tag);
    // The camera holds no bone or morph keys: the offsets above hold.
    assert_eq!(u32_at(DEMO_CAMERA, 50), 0, "no bone keys");
    assert_eq!(u32_at(DEMO_CAMERA, 54), 0, "no morph keys");
    assert!(u32_at(DEMO_CAMERA, 58) > 0, "camera keys");
    let (dance, camera) = (dir.join("dance.vmd"), dir.join("camera.vmd"));
    std::fs::write(&dance, DEMO_DANCE).unwrap();
    std::fs::write(&camera, DEMO_CAMERA).unwrap();
    (dance, camera)
}

fn open(paths: &[&Path]) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    app.open_paths(paths.iter().map(|p| p.to_path_buf()).collect());
    let mut h = harness(app);
    settle(&mut h);
    assert_eq!(
        h.state().ws.docs().len(),
        paths.len(),
        "{:?}",
        h.state().shared.messages
    );
    h
}

fn doc_id(h: &Harness<'_, StudioApp>, p: &Path) -> u64 {
    let d = h
        .state()
        .ws
        .docs()
        .iter()
        .find(|d| d.path.as_deref() == Some(p));
    d.expect("open").id
}

/// Moves bone key 0 (or camera key 0) of `p` by `by` frames: one undo step.
fn move_key0(h: &mut Harness<'_, StudioApp>, p: &Path, by: u32) {
    let id = doc_id(h, p);
    let m = &h.state().ws.doc(id).unwrap().motion;
    let changes = if m.cameras.is_empty() {
        let mut k = m.bones[0];
        k.set_frame(k.frame() + by);
        KeyChanges {
            bones: vec![(0, k)],
            ..Default::default()
        }
    } else {
        let mut k = m.cameras[0];
        k.set_frame(k.frame() + by);
        KeyChanges {
            cameras: vec![(0, k)],
            ..Default::default()
        }
    };
    let req = EditRequest::apply(Edit::SetKeys(changes), "move");
    h.state_mut().apply(Event::edit(id, req));
    h.run_steps(2);
}

fn said(h: &Harness<'_, StudioApp>, part: &str) -> bool {
    h.state()
        .shared
        .messages
        .iter()
        .any(|(m, err)| !err && m.contains(part))
}

#[test]
fn save_all_writes_every_modified_file_and_each_reopens_as_edited() {
    let (dance, camera) = files("save-all");
    let mut h = open(&[&dance, &camera]);
    // Both edited; the dance is the active file afterwards (as a redo or a
    // tab click would leave it), so Ctrl+S alone would miss the camera.
    move_key0(&mut h, &camera, 1000);
    move_key0(&mut h, &dance, 1000);
    let dance_id = doc_id(&h, &dance);
    h.state_mut().activate(dance_id);
    h.run_steps(2);
    let title = window_title(&h.state().ws);
    assert!(title.contains("2 files unsaved"), "{title}");

    // Ctrl+Shift+S, as a user presses it.
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    h.run_steps(2);
    settle(&mut h);

    let want_dance = patched(
        DEMO_DANCE,
        BONE0_FRAME,
        u32_at(DEMO_DANCE, BONE0_FRAME) + 1000,
    );
    let want_camera = patched(
        DEMO_CAMERA,
        CAMERA0_FRAME,
        u32_at(DEMO_CAMERA, CAMERA0_FRAME) + 1000,
    );
    assert_eq!(std::fs::read(&dance).unwrap(), want_dance);
    assert_eq!(std::fs::read(&camera).unwrap(), want_camera);
    for d in h.state().ws.docs() {
        assert!(!d.is_modified(), "{} saved", d.title());
    }
    assert!(
        said(&h, "Save all: saving 2 file(s)"),
        "{:?}",
        h.state().shared.messages
    );
    let title = window_title(&h.state().ws);
    assert!(!title.contains("unsaved"), "{title}");

    // Reopened: what was edited, byte for byte.
    let h2 = open(&[&dance, &camera]);
    for (p, want) in [(&dance, &want_dance), (&camera, &want_camera)] {
        let id = doc_id(&h2, p);
        let m = &h2.state().ws.doc(id).unwrap().motion;
        assert_eq!(&vmd_studio::vmd::write(m).unwrap(), want);
    }
}

#[test]
fn save_all_with_nothing_modified_writes_nothing_and_says_so() {
    let (dance, camera) = files("save-all-none");
    let mut h = open(&[&dance, &camera]);
    let before = std::fs::metadata(&dance).unwrap().modified().unwrap();
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    h.run_steps(2);
    settle(&mut h);
    assert!(said(&h, "no file has unsaved edits"));
    assert_eq!(
        std::fs::metadata(&dance).unwrap().modified().unwrap(),
        before
    );
    assert_eq!(std::fs::read(&camera).unwrap(), DEMO_CAMERA);
}

#[test]
fn the_scene_save_names_the_files_it_saved() {
    let (dance, camera) = files("save-scene-names");
    let mut h = open(&[&dance, &camera]);
    move_key0(&mut h, &camera, 1000);
    let scene = dance.with_file_name("show.vmdscene");
    h.state_mut().save_scene_to(scene.clone());
    settle(&mut h);
    // Only the camera had edits: it is named, the dance is not rewritten.
    let msg = h
        .state()
        .shared
        .messages
        .iter()
        .find(|(m, _)| m.starts_with("Saved scene"))
        .map(|(m, _)| m.clone())
        .expect("scene saved");
    assert!(msg.contains("1 motion file(s): camera.vmd"), "{msg}");
    assert!(!msg.contains("dance.vmd"), "{msg}");
    assert_eq!(std::fs::read(&dance).unwrap(), DEMO_DANCE);
    assert_ne!(std::fs::read(&camera).unwrap(), DEMO_CAMERA);
}

/// Quitting with two modified files: the unsaved-changes question names
/// the first and says how many files hold unsaved edits (the title bar
/// counts them too); Discard asks about the next one.
#[test]
fn quitting_counts_every_modified_file() {
    use egui_kittest::kittest::Queryable;
    let (dance, camera) = files("quit-count");
    let mut h = open(&[&dance, &camera]);
    move_key0(&mut h, &camera, 1000);
    move_key0(&mut h, &dance, 1000);
    let close = |h: &mut Harness<'_, StudioApp>| {
        h.input_mut()
            .viewports
            .entry(egui::ViewportId::ROOT)
            .or_default()
            .events
            .push(egui::ViewportEvent::Close);
        h.run_steps(3);
    };
    close(&mut h);
    assert!(
        h.query_by_label_contains("1 of 2 files with unsaved edits")
            .is_some(),
        "the question counts both files"
    );
    h.get_by_label("Discard").click();
    h.run_steps(2);
    assert_eq!(h.state().ws.modified_count(), 1);
    close(&mut h);
    // The last one: no count, just its name.
    assert!(
        h.query_by_label_contains("files with unsaved edits")
            .is_none()
    );
    assert!(
        h.query_by_label_contains("has edits that are not saved")
            .is_some()
    );
}
