//! Saving from the app, driven with egui_kittest: two saves of one document
//! racing on a slow disk, and a file changed on disk by another program.
//! Run with `env -u DISPLAY cargo test --test ui save::`.
//!
//! Golden numbers come from the VMD layout in /work/shared/spec/vmd-format.md:
//! a v2 file has a 30-byte header and a 20-byte model name, then the 4-byte
//! bone count; a bone record's frame is at +15, so bone key 0's frame is the
//! u32 at 30 + 20 + 4 + 15 = 69.

use crate::common;
use common::ui::{harness, settle};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::command::UiCommand;
use vmd_studio::workspace::document::{Edit, KeyChanges};

const FRAME0: usize = 69;

/// A fresh copy of the bundled demo dance in its own directory.
fn work_copy(tag: &str) -> (PathBuf, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("vmd-ui-save-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let bytes = vmd_studio::app::DEMO_DANCE.to_vec();
    assert!(bytes.starts_with(b"Vocaloid Motion Data 0002"), "a v2 file");
    let path = dir.join("dance.vmd");
    std::fs::write(&path, &bytes).expect("write");
    (path, bytes)
}

fn open(path: &Path) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    app.open_paths(vec![path.to_path_buf()]);
    let mut h = harness(app);
    settle(&mut h);
    assert_eq!(
        h.state().ws.docs().len(),
        1,
        "{:?}",
        h.state().shared.messages
    );
    h
}

fn frame0(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[FRAME0], b[FRAME0 + 1], b[FRAME0 + 2], b[FRAME0 + 3]])
}

/// Moves bone key 0 to `frame`, as one undo step.
fn move_key0(h: &mut Harness<'_, StudioApp>, frame: u32) {
    let mut k = h.state().ws.docs()[0].motion.bones[0];
    k.set_frame(frame);
    let doc = h.state().ws.docs()[0].id;
    let edit = Edit::SetKeys(KeyChanges {
        bones: vec![(0, k)],
        ..Default::default()
    });
    h.state_mut().apply(vmd_studio::workspace::Event::edit(
        doc,
        vmd_studio::workspace::EditRequest::apply(edit, "move"),
    ));
}

fn with_frame0(original: &[u8], frame: u32) -> Vec<u8> {
    let mut b = original.to_vec();
    b[FRAME0..FRAME0 + 4].copy_from_slice(&frame.to_le_bytes());
    b
}

/// Three saves asked for while the first is stuck on a slow disk: the first
/// finishes, the two later requests coalesce into one save of the newest
/// state, and the file and the saved mark end on that state. (Before, each
/// request started its own writer on the same temporary name; a slow first
/// save finishing last put older bytes on disk and moved the saved mark back.)
#[test]
fn saves_racing_on_a_slow_disk_end_with_the_newest_bytes() {
    let (path, original) = work_copy("race");
    let f0 = frame0(&original);
    let mut h = open(&path);
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    h.state_mut().jobs.save_hook = Some(Arc::new(move |_tmp: &Path| {
        if seen.fetch_add(1, Ordering::SeqCst) == 0 {
            std::thread::sleep(Duration::from_millis(400));
        }
    }));
    let id = h.state().ws.docs()[0].id;
    move_key0(&mut h, f0 + 1000);
    h.state_mut().save_doc_to(id, path.clone());
    h.step();
    move_key0(&mut h, f0 + 2000);
    h.state_mut().save_doc_to(id, path.clone());
    move_key0(&mut h, f0 + 3000);
    h.state_mut().save_doc_to(id, path.clone());
    assert!(h.state().saves.is_saving(id));
    settle(&mut h);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "the slow save, then one save for both later requests"
    );
    let on_disk = std::fs::read(&path).expect("saved");
    assert_eq!(frame0(&on_disk), f0 + 3000);
    assert_eq!(on_disk, with_frame0(&original, f0 + 3000));
    assert!(
        !h.state().ws.docs()[0].is_modified(),
        "saved at the newest state"
    );
    assert!(!h.state().saves.is_saving(id));
    // Undo once: the document differs from the file again.
    h.state_mut().run_command(UiCommand::Undo);
    h.run_steps(2);
    assert!(h.state().ws.docs()[0].is_modified());
}

/// Another program rewrites the file: Save asks, Overwrite writes ours, and
/// the next save (nothing changed outside) does not ask again.
#[test]
fn a_file_changed_on_disk_asks_before_overwriting() {
    let (path, original) = work_copy("changed");
    let f0 = frame0(&original);
    let mut h = open(&path);
    move_key0(&mut h, f0 + 7);
    // Theirs: the original with 4 trailing bytes (a different length, so
    // the change shows even where timestamps are coarse).
    let mut theirs = original.clone();
    theirs.extend_from_slice(b"XTRA");
    std::fs::write(&path, &theirs).expect("external write");

    h.state_mut().run_command(UiCommand::Save);
    h.run_steps(2);
    settle(&mut h);
    h.get_by_label("File changed on disk");
    assert_eq!(
        std::fs::read(&path).expect("read"),
        theirs,
        "not overwritten"
    );
    assert!(h.state().ws.docs()[0].is_modified());

    h.get_by_label("Overwrite").click();
    h.run_steps(2);
    settle(&mut h);
    assert!(h.query_by_label("File changed on disk").is_none());
    assert_eq!(
        std::fs::read(&path).expect("read"),
        with_frame0(&original, f0 + 7)
    );
    assert!(!h.state().ws.docs()[0].is_modified());

    // Our own save updated what we know of the file: no question now.
    move_key0(&mut h, f0 + 8);
    h.state_mut().run_command(UiCommand::Save);
    h.run_steps(2);
    settle(&mut h);
    assert!(h.query_by_label("File changed on disk").is_none());
    assert_eq!(
        std::fs::read(&path).expect("read"),
        with_frame0(&original, f0 + 8)
    );
}

/// The other choices: Cancel keeps both versions; Reload replaces the
/// document with the file on disk.
#[test]
fn a_file_changed_on_disk_can_be_reloaded() {
    let (path, original) = work_copy("reload");
    let f0 = frame0(&original);
    let mut h = open(&path);
    move_key0(&mut h, f0 + 9);
    let theirs = with_frame0(&original, f0 + 500);
    // Same length as ours: a rewrite is still seen (new inode / mtime).
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&path, &theirs).expect("external write");

    h.state_mut().run_command(UiCommand::Save);
    h.run_steps(2);
    settle(&mut h);
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert!(h.query_by_label("File changed on disk").is_none());
    assert_eq!(std::fs::read(&path).expect("read"), theirs);
    assert!(
        h.state().ws.docs()[0].is_modified(),
        "our edit is still here"
    );
    assert_eq!(h.state().ws.docs()[0].motion.bones[0].frame(), f0 + 9);

    h.state_mut().run_command(UiCommand::Save);
    h.run_steps(2);
    settle(&mut h);
    h.get_by_label("Reload from disk").click();
    h.run_steps(2);
    settle(&mut h);
    assert_eq!(h.state().ws.docs().len(), 1);
    let d = &h.state().ws.docs()[0];
    assert!(!d.is_modified());
    assert_eq!(vmd_studio::vmd::write(&d.motion).expect("bytes"), theirs);
    assert_eq!(std::fs::read(&path).expect("read"), theirs);
}
