//! The app driven as a user would, with egui_kittest (no display needed):
//! open a corpus file through the same path the Open dialog takes, click and
//! drag a key in the dope sheet with real pointer events, undo and redo with
//! the keyboard shortcuts, save, and compare the saved bytes with the
//! original. Run with `env -u DISPLAY cargo test --test ui app::`.
//!
//! Golden numbers: byte offsets come from the VMD layout in
//! /work/shared/spec/vmd-format.md (v2 header 30 + model name 20 + bone
//! count 4 = 54; a bone record is 111 bytes with its frame at +15), never
//! from the program's own output.

use crate::common;
use common::corpus;
use common::ui::{drag, harness, settle};
use std::path::Path;

use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::command::UiCommand;
use vmd_studio::workspace::document::KeyRef;

fn open(path: &Path) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    // The same call the Open dialog and file drops end in.
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

fn save_to(h: &mut Harness<'_, StudioApp>, path: &Path) -> Vec<u8> {
    let id = h.state().ws.docs()[0].id;
    h.state_mut().save_doc_to(id, path.to_path_buf());
    settle(h);
    assert_eq!(h.state().saves.last_saved.as_deref(), Some(path));
    std::fs::read(path).expect("saved file")
}

fn click_at(h: &mut Harness<'_, StudioApp>, p: Pos2) {
    h.hover_at(p);
    h.step();
    h.drag_at(p);
    h.step();
    h.event(egui::Event::PointerButton {
        pos: p,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    h.run_steps(2);
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Offset of bone record `i`'s frame field in a v2 file (spec layout).
fn bone_frame_offset(i: usize) -> usize {
    let header = 30;
    let model_name_v2 = 20;
    let bone_count = 4;
    let bone_record = 111;
    let name_field = 15;
    header + model_name_v2 + bone_count + bone_record * i + name_field
}

/// A bone key whose frame + 2 is free in its track: (file index, frame).
fn movable_key(app: &StudioApp) -> (u32, u32) {
    let d = &app.ws.docs()[0];
    for t in &d.index.bones {
        let frames: Vec<u32> = t
            .keys
            .iter()
            .map(|&k| d.motion.bones[k as usize].frame())
            .collect();
        if frames.len() < 3 {
            continue;
        }
        let k = t.keys[1];
        let f = frames[1];
        if !frames.contains(&(f + 2)) && !frames.contains(&(f + 1)) {
            return (k, f);
        }
    }
    panic!("no movable bone key");
}

#[test]
fn move_a_key_undo_redo_save_and_get_the_original_back() {
    let Some(dir) = corpus() else { return };
    // mmdagent__mei_wait.vmd: v2, 406 bone keys (CENSUS.txt).
    let src = dir.join("mmdagent__mei_wait.vmd");
    let original = std::fs::read(&src).expect("corpus file");
    assert_eq!(&original[..25], b"Vocaloid Motion Data 0002");
    let mut h = open(&src);
    let name = h.state().ws.docs()[0].title();
    assert!(!name.contains('●'), "fresh file is not modified: {name}");

    let (i, f0) = movable_key(h.state());
    let key = KeyRef::Bone(i);
    let p = {
        let app = h.state();
        app.panels
            .timeline
            .key_pos(&app.ws.docs()[0], key)
            .expect("key diamond is in view after fit-all")
    };

    // Click selects it.
    click_at(&mut h, p);
    {
        let v = &h.state().ws.docs()[0].view;
        assert_eq!(v.active, Some(key));
        assert_eq!(v.selection.iter().copied().collect::<Vec<_>>(), vec![key]);
    }

    // Drag two frames to the right: one undo step.
    let ppf = h
        .state()
        .panels
        .timeline
        .layout()
        .expect("layout")
        .px_per_frame;
    drag(&mut h, p, p + egui::vec2(2.0 * ppf, 0.0));
    {
        let d = &h.state().ws.docs()[0];
        assert_eq!(d.motion.bones[i as usize].frame(), f0 + 2);
        assert_eq!(d.history().len(), 1, "a drag is one undo step");
        assert!(d.is_modified());
        assert!(d.title().starts_with('●'), "modified mark: {}", d.title());
    }
    // The mark shows wherever the file is named (tab, timeline section, scene panel).
    assert!(h.query_all_by_label_contains("●").next().is_some());

    // Undo (Ctrl+Z) back to the loaded state clears the mark; redo (Ctrl+Y).
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().ws.docs()[0].motion.bones[i as usize].frame(), f0);
    assert!(!h.state().ws.docs()[0].is_modified());
    assert!(h.query_by_label_contains("●").is_none());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run_steps(2);
    assert_eq!(
        h.state().ws.docs()[0].motion.bones[i as usize].frame(),
        f0 + 2
    );

    // Save: the bytes differ from the original exactly at the moved key's frame.
    let tmp = std::env::temp_dir().join(format!("vmd-studio-ui-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let out = tmp.join("moved.vmd");
    let saved = save_to(&mut h, &out);
    assert_eq!(saved.len(), original.len());
    let at = bone_frame_offset(i as usize);
    assert_eq!(
        u32_at(&original, at),
        f0,
        "offset check against the original file"
    );
    assert_eq!(u32_at(&saved, at), f0 + 2);
    let diff: Vec<usize> = (0..saved.len())
        .filter(|&j| saved[j] != original[j])
        .collect();
    assert!(!diff.is_empty());
    assert!(
        diff.iter().all(|&j| (at..at + 4).contains(&j)),
        "bytes changed outside the frame field at {at}: {diff:?}"
    );
    assert!(!h.state().ws.docs()[0].is_modified(), "saved");

    // Undo to the start: modified again (differs from the save point); save → original bytes.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert!(h.state().ws.docs()[0].is_modified());
    let back = save_to(&mut h, &tmp.join("undone.vmd"));
    assert!(
        back == original,
        "undo to the start and save gives the original bytes"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn a_move_onto_an_occupied_frame_is_refused() {
    let Some(dir) = corpus() else { return };
    let src = dir.join("mmdagent__mei_wait.vmd");
    let mut h = open(&src);
    // A track with keys at a < b: drag a onto b.
    let (i, f0, f1) = {
        let d = &h.state().ws.docs()[0];
        let t = d
            .index
            .bones
            .iter()
            .find(|t| t.keys.len() >= 3)
            .expect("a track with keys");
        let f = |k: u32| d.motion.bones[k as usize].frame();
        (t.keys[1], f(t.keys[1]), f(t.keys[2]))
    };
    let before = vmd_studio::vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    let p = {
        let app = h.state();
        app.panels
            .timeline
            .key_pos(&app.ws.docs()[0], KeyRef::Bone(i))
            .expect("in view")
    };
    click_at(&mut h, p);
    let ppf = h
        .state()
        .panels
        .timeline
        .layout()
        .expect("layout")
        .px_per_frame;
    let dx = (f1 - f0) as f32 * ppf;
    // Press and move straight onto the other key's frame.
    h.hover_at(p);
    h.step();
    h.drag_at(p);
    h.step();
    h.hover_at(p + egui::vec2(dx, 0.0));
    h.step();
    h.drop_at(p + egui::vec2(dx, 0.0));
    h.run_steps(2);
    let app = h.state();
    assert_eq!(
        app.ws.docs()[0].motion.bones[i as usize].frame(),
        f0,
        "key stays"
    );
    assert_eq!(
        vmd_studio::vmd::write(&app.ws.docs()[0].motion).expect("write"),
        before
    );
    let (msg, is_err) = app.shared.messages.last().expect("a message");
    assert!(
        *is_err && msg.contains("refused") && msg.contains(&f1.to_string()),
        "{msg}"
    );
}

#[test]
fn a_rename_that_does_not_fit_15_bytes_is_refused() {
    let Some(dir) = corpus() else { return };
    let src = dir.join("mmdagent__mei_wait.vmd");
    let mut h = open(&src);
    let (i, _) = movable_key(h.state());
    let p = {
        let app = h.state();
        app.panels
            .timeline
            .key_pos(&app.ws.docs()[0], KeyRef::Bone(i))
            .expect("in view")
    };
    click_at(&mut h, p);
    let before = vmd_studio::vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    // 10 kana = 20 bytes in Shift_JIS (2 bytes each) > 15.
    let long = "ながいながいなまえだ";
    let field = h.get_by_label("Track name");
    field.focus();
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Track name").type_text(long);
    h.run_steps(2);
    assert_eq!(h.state().panels.key_panel.rename, long);
    h.get_by_label("Rename track").scroll_to_me();
    h.run_steps(12);
    h.get_by_label("Rename track").click();
    h.run_steps(3);
    let app = h.state();
    assert_eq!(
        vmd_studio::vmd::write(&app.ws.docs()[0].motion).expect("write"),
        before,
        "no byte changed"
    );
    assert_eq!(app.ws.docs()[0].history().len(), 0);
    assert!(!app.ws.docs()[0].is_modified());
    let (msg, is_err) = app.shared.messages.last().expect("a message");
    // 10 kana × 2 bytes = 20 bytes; the field holds 15.
    assert!(*is_err && msg.contains("20") && msg.contains("15"), "{msg}");
    // Shown in the status bar and under the field.
    assert_eq!(h.get_all_by_label_contains("the field holds 15").count(), 2);
}

#[test]
fn close_guard_cancel_keeps_the_doc_and_discard_closes_it() {
    let Some(dir) = corpus() else { return };
    let src = dir.join("mmdagent__mei_wait.vmd");
    let mut h = open(&src);
    let (i, f0) = movable_key(h.state());
    let p = {
        let app = h.state();
        app.panels
            .timeline
            .key_pos(&app.ws.docs()[0], KeyRef::Bone(i))
            .expect("in view")
    };
    click_at(&mut h, p);
    let ppf = h
        .state()
        .panels
        .timeline
        .layout()
        .expect("layout")
        .px_per_frame;
    drag(&mut h, p, p + egui::vec2(ppf, 0.0));
    assert_eq!(
        h.state().ws.docs()[0].motion.bones[i as usize].frame(),
        f0 + 1
    );
    assert!(h.state().ws.docs()[0].is_modified());

    h.state_mut().run_command(UiCommand::CloseTab);
    h.run_steps(3);
    h.get_by_label("Cancel").click();
    h.run_steps(3);
    assert_eq!(h.state().ws.docs().len(), 1, "Cancel keeps the document");
    assert!(h.query_by_label("Discard").is_none(), "guard closed");

    h.key_press_modifiers(Modifiers::COMMAND, Key::W);
    h.run_steps(3);
    h.get_by_label("Discard").click();
    h.run_steps(3);
    assert!(
        h.state().ws.docs().is_empty(),
        "Discard closes the document"
    );
}

#[test]
fn delete_copy_paste_and_insert_keys() {
    let Some(dir) = corpus() else { return };
    let src = dir.join("mmdagent__mei_wait.vmd");
    let mut h = open(&src);
    let n0 = h.state().ws.docs()[0].motion.bones.len();
    let (i, f0) = movable_key(h.state());
    let p = {
        let app = h.state();
        app.panels
            .timeline
            .key_pos(&app.ws.docs()[0], KeyRef::Bone(i))
            .expect("in view")
    };
    click_at(&mut h, p);
    let original = h.state().ws.docs()[0].motion.clone();

    // Copy, move the playhead two frames on, paste: one new key at f0 + 2.
    h.key_press_modifiers(Modifiers::COMMAND, Key::C);
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(f64::from(
            f0 + 2,
        )));
    h.key_press_modifiers(Modifiers::COMMAND, Key::V);
    h.run_steps(2);
    {
        let m = &h.state().ws.docs()[0].motion;
        assert_eq!(m.bones.len(), n0 + 1);
        let new = &m.bones[n0];
        assert_eq!(new.frame(), f0 + 2);
        // The copy keeps every other byte of the record (name, pose, curves).
        assert_eq!(new.raw[..15], original.bones[i as usize].raw[..15]);
        assert_eq!(new.raw[19..], original.bones[i as usize].raw[19..]);
    }
    // Pasting again on the same frame is refused.
    h.key_press_modifiers(Modifiers::COMMAND, Key::V);
    h.run_steps(2);
    assert_eq!(h.state().ws.docs()[0].motion.bones.len(), n0 + 1);
    assert!(
        h.state()
            .shared
            .messages
            .last()
            .is_some_and(|(m, e)| *e && m.contains("refused"))
    );

    // Delete the pasted key (it is selected after the paste): back to the original.
    h.key_press(Key::Delete);
    h.run_steps(2);
    assert!(
        h.state().ws.docs()[0].motion == original,
        "delete restores file order and bytes"
    );

    // Insert at f0 + 1 on the clicked track: evaluated value, default curve.
    click_at(&mut h, p);
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(f64::from(
            f0 + 1,
        )));
    h.key_press(Key::I);
    h.run_steps(2);
    let m = &h.state().ws.docs()[0].motion;
    assert_eq!(m.bones.len(), n0 + 1);
    let k = &m.bones[n0];
    assert_eq!(k.frame(), f0 + 1);
    assert_eq!(
        k.name_field(),
        original.bones[i as usize].name_field(),
        "exact raw name"
    );
    // Undo all three steps (paste, delete, insert) → the original motion.
    for _ in 0..3 {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
        h.run_steps(1);
    }
    assert!(h.state().ws.docs()[0].motion == original);
    assert!(!h.state().ws.docs()[0].is_modified());
}

#[test]
fn box_select_and_scrub_on_the_ruler() {
    let Some(dir) = corpus() else { return };
    let src = dir.join("mmdagent__mei_wait.vmd");
    let mut h = open(&src);
    let (i, f0) = movable_key(h.state());
    let key = KeyRef::Bone(i);
    let (p, l) = {
        let app = h.state();
        let p = app
            .panels
            .timeline
            .key_pos(&app.ws.docs()[0], key)
            .expect("in view");
        (p, app.panels.timeline.layout().expect("layout"))
    };
    // Rubber band from an empty spot left of the key (the track has no key
    // within a frame of it), around the diamond, within its row.
    let d = &h.state().ws.docs()[0];
    let name = d.motion.bones[i as usize].name_key().to_vec();
    let frames = &d.index.bone(&name).expect("track").frames;
    assert!(!frames.contains(&(f0 - 1)));
    drag(&mut h, p + egui::vec2(-8.0, -6.0), p + egui::vec2(8.0, 6.0));
    let sel: Vec<KeyRef> = h.state().ws.docs()[0]
        .view
        .selection
        .iter()
        .copied()
        .collect();
    assert_eq!(sel, vec![key]);

    // Scrub: press at frame 10 on the ruler and drag to frame 40.
    let y = l.ruler.center().y;
    drag(
        &mut h,
        Pos2::new(l.x_of(10.0), y),
        Pos2::new(l.x_of(40.0), y),
    );
    assert_eq!(h.state().ws.transport().frame, 40.0);

    // Ctrl+A selects every key (406 bone + 142 morph keys in CENSUS.txt).
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run_steps(2);
    assert_eq!(h.state().ws.docs()[0].view.selection.len(), 406 + 142);
}

/// Bad files and failed saves: a clear message, nothing else changes.
#[test]
fn a_broken_file_and_a_failed_save_lose_nothing() {
    let Some(dir) = corpus() else {
        return;
    };
    let path = dir.join("mmdagent__mei_wait.vmd");
    let original = std::fs::read(&path).expect("corpus file");
    let mut h = open(&path);
    // Opening the truncated file (it claims 39,564 bone keys in 74 bytes)
    // shows the reader's message and adds no tab.
    h.state_mut()
        .open_paths(vec![dir.join("mmdbase__result.vmd")]);
    settle(&mut h);
    assert_eq!(h.state().ws.docs().len(), 1);
    let last = h
        .state()
        .shared
        .messages
        .last()
        .cloned()
        .expect("a message");
    assert!(last.1, "shown as an error: {last:?}");
    assert!(
        last.0.contains("39564") && last.0.contains("offset 50"),
        "{}",
        last.0
    );
    // A key move, then a save into a directory that does not exist: the
    // error is shown, the document stays modified and keeps the edit, and
    // the file on disk is untouched.
    let k = h.state().ws.docs()[0].motion.bones[0];
    let mut moved = k;
    moved.set_frame(k.frame() + 1000);
    let doc = h.state().ws.docs()[0].id;
    let edit = vmd_studio::workspace::document::Edit::SetKeys(
        vmd_studio::workspace::document::KeyChanges {
            bones: vec![(0, moved)],
            ..Default::default()
        },
    );
    h.state_mut().apply(vmd_studio::workspace::Event::edit(
        doc,
        vmd_studio::workspace::EditRequest::apply(edit, "move"),
    ));
    let id = h.state().ws.docs()[0].id;
    let bad = std::env::temp_dir().join("vmd-studio-no-such-dir/x/out.vmd");
    h.state_mut().save_doc_to(id, bad.clone());
    settle(&mut h);
    assert!(!bad.exists());
    let last = h
        .state()
        .shared
        .messages
        .last()
        .cloned()
        .expect("a message");
    assert!(last.1 && last.0.contains("Save failed"), "{last:?}");
    assert!(h.state().ws.docs()[0].is_modified());
    assert_eq!(
        h.state().ws.docs()[0].motion.bones[0].frame(),
        k.frame() + 1000
    );
    assert_eq!(std::fs::read(&path).expect("still there"), original);
}

#[test]
fn close_guard_save_writes_the_file_then_closes_the_tab() {
    let Some(dir) = corpus() else { return };
    let original = std::fs::read(dir.join("mmdagent__mei_wait.vmd")).expect("corpus file");
    let work = std::env::temp_dir().join(format!("vmd-studio-guard-{}.vmd", std::process::id()));
    std::fs::write(&work, &original).expect("temp copy");
    let mut h = open(&work);
    let k = h.state().ws.docs()[0].motion.bones[0];
    let mut moved = k;
    moved.set_frame(k.frame() + 500);
    let doc = h.state().ws.docs()[0].id;
    let edit = vmd_studio::workspace::document::Edit::SetKeys(
        vmd_studio::workspace::document::KeyChanges {
            bones: vec![(0, moved)],
            ..Default::default()
        },
    );
    h.state_mut().apply(vmd_studio::workspace::Event::edit(
        doc,
        vmd_studio::workspace::EditRequest::apply(edit, "move"),
    ));
    h.state_mut().run_command(UiCommand::CloseTab);
    h.run_steps(3);
    h.get_by_label("Save").click();
    h.run_steps(2);
    settle(&mut h);
    assert!(
        h.state().ws.docs().is_empty(),
        "the tab closes once the save has finished"
    );
    // Bone key 0's frame field: 30 header + 20 name + 4 count + 15 = offset 69.
    let mut expected = original.clone();
    expected[69..73].copy_from_slice(&(k.frame() + 500).to_le_bytes());
    assert_eq!(std::fs::read(&work).expect("saved"), expected);
    let _ = std::fs::remove_file(&work);
}

/// An idle window must stop redrawing: nothing may ask for a repaint every
/// frame (a title sent each frame once did, costing ~1.8 cores while idle).
#[test]
fn an_idle_window_settles() {
    let mut h = harness(StudioApp::with_demo());
    h.run_steps(5);
    assert!(
        h.try_run().is_ok(),
        "the UI keeps requesting repaints while idle"
    );
}
