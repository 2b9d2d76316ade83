//! The curve editor in the real app under egui_kittest: dragging a control
//! point rewrites exactly the interpolation bytes the spec says, keeps the
//! physics flag, is one undo step, and undo gives back the original bytes.
//!
//! Expected bytes come from the spec (/work/shared/spec/vmd-format.md): in a
//! bone block, byte `16k + j − k` holds P[j] for rows k = 0..=min(j, 3), the
//! rotation curve is P[3] (x1), P[7] (y1), P[11] (x2), P[15] (y2), and row 0
//! bytes 2–3 are the physics flag, never written by a curve edit.

use crate::common;
use common::ui::harness_sized;

use std::path::PathBuf;

use egui::{Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::command::UiCommand;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::vmd;
use vmd_studio::workspace::Event;
use vmd_studio::workspace::document::{DocView, KeyRef};

/// Copies (byte offsets in the 64-byte block) of P[j], physics bytes excluded.
fn copies_of(j: usize) -> Vec<usize> {
    (0..=j.min(3))
        .map(|k| 16 * k + j - k)
        .filter(|&i| i != 2 && i != 3)
        .collect()
}

fn app_with(motion: vmd::Motion, name: &str, key: u32, central: CentralView) -> StudioApp {
    let mut app = StudioApp::default();
    let id = app.open_motion(motion, None, name).expect("opens");
    select(&mut app, id, &[key], key);
    app.panels.central = central;
    app
}

/// Selects bone keys `keys` of document `id`, `active` the one shown (as
/// clicking them in the dope sheet does).
fn select(app: &mut StudioApp, id: u64, keys: &[u32], active: u32) {
    let view = DocView {
        selection: keys.iter().map(|&k| KeyRef::Bone(k)).collect(),
        active: Some(KeyRef::Bone(active)),
        reveal: None,
    };
    app.apply(Event::Select { doc: id, view });
}

/// Undo, as Edit ▸ Undo (or Ctrl+Z) does.
fn undo(h: &mut Harness<'_, StudioApp>) {
    h.state_mut().run_command(UiCommand::Undo);
    h.run_steps(1);
}

/// Screen position of (x, y) in 0..127 curve space inside a box (y up),
/// from the box rectangle alone.
fn at(rect: Rect, x: f32, y: f32) -> Pos2 {
    Pos2::new(
        rect.left() + x / 127.0 * rect.width(),
        rect.bottom() - y / 127.0 * rect.height(),
    )
}

/// Drags from `from` to `to` in two moves, then releases.
fn drag(h: &mut Harness<'static, StudioApp>, from: Pos2, to: Pos2) {
    h.hover_at(from);
    h.run_steps(1);
    h.drag_at(from);
    h.run_steps(2);
    let mid = Pos2::new((from.x + to.x) / 2.0, (from.y + to.y) / 2.0);
    h.hover_at(mid);
    h.run_steps(2);
    h.hover_at(to);
    h.run_steps(2);
    h.drop_at(to);
    h.run_steps(3);
}

fn block(m: &vmd::Motion, i: usize) -> [u8; 64] {
    m.bones[i].interpolation_block()
}

#[test]
fn dragging_a_rotation_control_point_rewrites_its_copies_as_one_undo_step() {
    // The bundled demo dance: always available.
    let m = vmd::read(vmd_studio::app::DEMO_DANCE).expect("demo reads");
    let original_file = vmd::write(&m).expect("write");
    let key = 1usize; // センター at frame 15 (bundled demo)
    let before = block(&m, key);
    // Rotation x1 = P[3] read from row 3 (byte 48), y1 = P[7] (byte 52).
    let (x1, y1) = (before[48], before[52]);
    let mut h = harness_sized(
        app_with(m, "demo_dance.vmd", key as u32, CentralView::Curves),
        1600.0,
        1000.0,
    );
    h.run_steps(3);
    let rect = *h
        .state()
        .panels
        .curve_editor
        .boxes
        .get(3)
        .expect("rotation box drawn");
    drag(
        &mut h,
        at(rect, f32::from(x1), f32::from(y1)),
        at(rect, 100.0, 30.0),
    );

    let doc = &h.state().ws.docs()[0];
    let after = block(&doc.motion, key);
    let mut expected = copies_of(3);
    expected.extend(copies_of(7));
    expected.retain(|&i| before[i] != if copies_of(3).contains(&i) { 100 } else { 30 });
    expected.sort_unstable();
    let changed: Vec<usize> = (0..64).filter(|&i| before[i] != after[i]).collect();
    assert_eq!(changed, expected, "before {before:?}\nafter {after:?}");
    for i in copies_of(3) {
        assert_eq!(after[i], 100, "R x1 copy at {i}");
    }
    for i in copies_of(7) {
        assert_eq!(after[i], 30, "R y1 copy at {i}");
    }
    assert_eq!(after[2..4], before[2..4], "physics bytes untouched");
    // No other key changed.
    let now = vmd::write(&doc.motion).expect("write");
    let diff: Vec<usize> = (0..now.len())
        .filter(|&i| now[i] != original_file[i])
        .collect();
    let block_start = 54 + 111 * key + 47; // spec: v2 bone key i at 54 + 111·i, block at +47
    assert!(
        diff.iter()
            .all(|&i| (block_start..block_start + 64).contains(&i))
    );
    assert_eq!(doc.history().len(), 1, "a drag is one undo step");

    undo(&mut h);
    let restored = vmd::write(&h.state().ws.docs()[0].motion).expect("write");
    assert_eq!(restored, original_file, "undo restores every byte");
}

fn corpus(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")));
    match std::fs::read(dir.join(name)) {
        Ok(b) => Some(b),
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "corpus missing on CI: {e}"
            );
            eprintln!("note: corpus file {name} missing, skipping: {e}");
            None
        }
    }
}

#[test]
fn linked_drag_on_a_physics_off_key_keeps_63_0f_and_applies_to_the_selection() {
    let Some(bytes) = corpus("babylonmmd__physics_toggle_test_yyb10th.vmd") else {
        return;
    };
    let m = vmd::read(&bytes).expect("corpus reads");
    // D4 keys 444 (frame 60) and 451 (frame 80) both have physics off (63 0F),
    // found by reading the file by hand; all four curves are linear (20,20)-(107,107).
    let (a, b) = (444usize, 451usize);
    let mut app = app_with(m, "physics.vmd", a as u32, CentralView::Curves);
    let id = app.ws.docs()[0].id;
    select(&mut app, id, &[a as u32, b as u32], a as u32);
    app.panels.curve_editor.link_xyz = true;
    app.panels.curve_editor.apply_to_selection = true;
    let mut h = harness_sized(app, 1600.0, 1000.0);
    h.run_steps(3);
    // Drag the Y move box's second point from (107,107) to (127, 64).
    let rect = *h
        .state()
        .panels
        .curve_editor
        .boxes
        .get(1)
        .expect("Y box drawn");
    drag(&mut h, at(rect, 107.0, 107.0), at(rect, 127.0, 64.0));

    let doc = &h.state().ws.docs()[0];
    let out = vmd::write(&doc.motion).expect("write");
    for key in [a, b] {
        let blk = block(&doc.motion, key);
        assert_eq!(blk[2..4], [0x63, 0x0F], "physics flag kept on key {key}");
        // Linked: X, Y, Z (channels 0..3) get x2 = 127 (P[8 + c]) and y2 = 64 (P[12 + c]).
        for c in 0..3 {
            for i in copies_of(8 + c) {
                assert_eq!(blk[i], 127, "key {key} channel {c} x2 at {i}");
            }
            for i in copies_of(12 + c) {
                assert_eq!(blk[i], 64, "key {key} channel {c} y2 at {i}");
            }
        }
        // Rotation untouched: still (20,20)-(107,107) in every copy.
        for (j, v) in [(3, 20u8), (7, 20), (11, 107), (15, 107)] {
            for i in copies_of(j) {
                assert_eq!(blk[i], v, "key {key} rotation copy {i}");
            }
        }
    }
    // Only bytes inside those two blocks changed.
    let blocks: Vec<std::ops::Range<usize>> = [a, b]
        .iter()
        .map(|&k| 54 + 111 * k + 47..54 + 111 * k + 111)
        .collect();
    assert!((0..out.len()).all(|i| out[i] == bytes[i] || blocks.iter().any(|r| r.contains(&i))));
    assert_eq!(doc.history().len(), 1, "one undo step for both keys");
    undo(&mut h);
    assert_eq!(
        vmd::write(&h.state().ws.docs()[0].motion).expect("write"),
        bytes
    );
}

#[test]
fn forensics_view_renders_for_bone_and_camera_keys() {
    let m = vmd::read(vmd_studio::app::DEMO_DANCE).expect("demo reads");
    let mut h = harness_sized(
        app_with(m, "demo_dance.vmd", 1, CentralView::Forensics),
        1600.0,
        1000.0,
    );
    h.run_steps(3);
    h.get_by_label_contains("What a row-0 reader");
    let cam = vmd::read(vmd_studio::app::DEMO_CAMERA).expect("demo camera reads");
    let mut app = StudioApp::default();
    let id = app
        .open_motion(cam, None, "demo_camera.vmd")
        .expect("opens");
    let view = DocView {
        active: Some(KeyRef::Camera(1)),
        ..DocView::default()
    };
    app.apply(Event::Select { doc: id, view });
    app.panels.central = CentralView::Forensics;
    let mut h = harness_sized(app, 1600.0, 1000.0);
    h.run_steps(3);
    h.get_by_label_contains("six items");
}

#[test]
fn preset_menu_and_copy_paste_write_the_curve_through_the_document() {
    let m = vmd::read(vmd_studio::app::DEMO_DANCE).expect("demo reads");
    let original_file = vmd::write(&m).expect("write");
    let key = 1usize;
    let mut h = harness_sized(
        app_with(m, "demo_dance.vmd", key as u32, CentralView::Curves),
        1600.0,
        1000.0,
    );
    h.run_steps(3);
    // The fourth "Preset" button belongs to the rotation box.
    h.get_all_by_label("Preset")
        .nth(3)
        .expect("rotation preset menu")
        .click();
    h.run_steps(3);
    h.get_by_label_contains("Ease in-out  (").click();
    h.run_steps(3);
    let blk = block(&h.state().ws.docs()[0].motion, key);
    // CSS ease-in-out 0.42, 0, 0.58, 1 → 53.34 → 53, 0, 73.66 → 74, 127.
    for (j, v) in [(3, 53u8), (7, 0), (11, 74), (15, 127)] {
        for i in copies_of(j) {
            assert_eq!(blk[i], v, "rotation copy at {i}");
        }
    }
    assert_eq!(h.state().ws.docs()[0].history().len(), 1);

    // Copy the rotation curve, paste it onto X move.
    h.get_all_by_label("Copy")
        .nth(3)
        .expect("rotation copy")
        .click();
    h.run_steps(2);
    h.get_all_by_label("Paste").next().expect("X paste").click();
    h.run_steps(3);
    let blk = block(&h.state().ws.docs()[0].motion, key);
    // X move is P[0], P[4], P[8], P[12].
    for (j, v) in [(0, 53u8), (4, 0), (8, 74), (12, 127)] {
        for i in copies_of(j) {
            assert_eq!(blk[i], v, "X copy at {i}");
        }
    }
    assert_eq!(h.state().ws.docs()[0].history().len(), 2);
    undo(&mut h);
    undo(&mut h);
    assert_eq!(
        vmd::write(&h.state().ws.docs()[0].motion).expect("write"),
        original_file
    );
}
