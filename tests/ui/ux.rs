//! What a new user tripped over (issue 24, items 4–9 and part of 12),
//! driven as a user would with egui_kittest: a jump brings the playhead
//! into view; undo and a tab click keep the curve editor on the selected
//! key; a key's context menu changes exactly the bytes it should (expected
//! bytes built here from the VMD layout in the spec); double-click opens a
//! model in the built-in browser; Simplify cannot be applied twice to the
//! same input; the song lane's controls and bar numbers cover nothing;
//! opening a file keeps the zoom and scrolls the sections to the top;
//! Ctrl+wheel zooms about the pointer. Run with
//! `env -u DISPLAY cargo test --test ui ux::`.

use crate::audio_support;
use crate::common;
use common::corpus;
use common::ui::{harness_sized, settle_until};

use std::path::PathBuf;

use egui::{Modifiers, Pos2, Rect, Vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use vmd_studio::app::command::UiCommand;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::scene::ModelRef;
use vmd_studio::vmd::{self, BoneKey, Motion, NameEncoding};
use vmd_studio::workspace::Event;
use vmd_studio::workspace::TransportEvent;
use vmd_studio::workspace::document::{DocView, KeyRef};

// ------------------------------------------------------------ VMD layout
// From /work/shared/spec/vmd-format.md: a v2 file is a 30-byte header, a
// 20-byte model name, a u32 bone count, then 111-byte bone records (name
// 15, frame 4, position 12, rotation 16, interpolation 64).
const BONES_AT: usize = 30 + 20 + 4;
const BONE_SIZE: usize = 111;
const INTERP_AT: usize = 15 + 4 + 12 + 16;

fn bone_record(bytes: &[u8], i: usize) -> &[u8] {
    &bytes[BONES_AT + i * BONE_SIZE..BONES_AT + (i + 1) * BONE_SIZE]
}

fn bone_count(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[50..54].try_into().expect("4 bytes"))
}

/// The 64-byte block for per-channel curves `[x1, y1, x2, y2]` (X, Y, Z,
/// rotation), written over `old` as the spec says: logical P[j] is field
/// j / 4 of channel j % 4; row k holds P shifted left by k (byte 16k + j
/// = P[j + k] while j + k < 16; the rest of the row is filler, kept); row
/// 0 bytes 2–3 are the physics flag, kept.
fn block(curves: [[u8; 4]; 4], old: [u8; 64]) -> [u8; 64] {
    let p = |j: usize| curves[j % 4][j / 4];
    let mut b = old;
    for k in 0..4 {
        for j in 0..16 - k {
            let i = 16 * k + j;
            if i == 2 || i == 3 {
                continue;
            }
            b[i] = p(j + k);
        }
    }
    b
}

/// The spec's literal default (linear) block.
const LINEAR_BLOCK: [u8; 64] = [
    20, 20, 0, 0, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, //
    20, 20, 20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, 0, //
    20, 20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, 0, 0, //
    20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, 0, 0, 0,
];

/// Key `i`'s curves before any edit (distinct per key and channel).
fn curves_of(i: usize) -> [[u8; 4]; 4] {
    let i = i as u8;
    [0u8, 1, 2, 3].map(|c| [10 + 5 * i + c, 30 + c, 90 - c, 110 + i])
}

/// Bones 0..=2: 左腕 at frames 0, 10, 20; 3..=4: 右腕 at 0, 10. Key 1 has
/// physics off (row 0 bytes 2–3 = 63 0F).
fn menu_motion() -> Motion {
    let mut m = Motion::new_v2();
    let keys = [
        ("左腕", 0),
        ("左腕", 10),
        ("左腕", 20),
        ("右腕", 0),
        ("右腕", 10),
    ];
    for (i, (name, f)) in keys.into_iter().enumerate() {
        let mut k = BoneKey::new(
            name,
            NameEncoding::ShiftJis,
            f,
            [i as f32, 0.5, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        )
        .expect("name fits");
        let mut old = [0u8; 64];
        if i == 1 {
            old[2] = 0x63;
            old[3] = 0x0F;
        }
        k.set_interpolation_block(block(curves_of(i), old));
        m.bones.push(k);
    }
    m
}

fn bytes(m: &Motion) -> Vec<u8> {
    vmd::write(m).expect("the motion writes")
}

// ------------------------------------------------------------- driving
fn press(h: &mut Harness<'_, StudioApp>, p: Pos2, button: egui::PointerButton) {
    h.hover_at(p);
    h.step();
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: p,
            button,
            pressed,
            modifiers: Modifiers::NONE,
        });
        h.step();
    }
    h.run_steps(2);
}

fn right_click(h: &mut Harness<'_, StudioApp>, p: Pos2) {
    press(h, p, egui::PointerButton::Secondary);
}

fn key_pos(h: &Harness<'_, StudioApp>, id: u64, k: KeyRef) -> Pos2 {
    let app = h.state();
    let d = app.ws.doc(id).expect("doc");
    app.panels.timeline.key_pos(d, k).expect("key in view")
}

fn menu(h: &mut Harness<'_, StudioApp>, id: u64, k: KeyRef, entry: &str) {
    let p = key_pos(h, id, k);
    right_click(h, p);
    h.get_by_label(entry).click();
    h.run_steps(3);
}

fn set_curve(h: &mut Harness<'_, StudioApp>, id: u64, k: KeyRef, entry: &str) {
    let p = key_pos(h, id, k);
    right_click(h, p);
    h.get_by_label("Set curve").click();
    h.run_steps(2);
    h.get_by_label_contains(entry).click();
    h.run_steps(3);
}

fn undo(h: &mut Harness<'_, StudioApp>) {
    h.state_mut().run_command(UiCommand::Undo);
    h.run_steps(3);
}

fn doc_bytes(h: &Harness<'_, StudioApp>, id: u64) -> Vec<u8> {
    bytes(&h.state().ws.doc(id).expect("doc").motion)
}

fn steps(h: &Harness<'_, StudioApp>, id: u64) -> usize {
    h.state().ws.doc(id).expect("doc").history().len()
}

fn menu_app() -> (Harness<'static, StudioApp>, u64) {
    let mut app = StudioApp::default();
    let id = app
        .open_motion(menu_motion(), None, "menu.vmd")
        .expect("opens");
    app.panels.central = CentralView::Curves;
    let mut h = harness_sized(app, 1280.0, 720.0);
    h.run_steps(4);
    (h, id)
}

// ------------------------------------------------------------ item 6
#[test]
fn key_menu_linear_changes_only_that_keys_interpolation_bytes() {
    let (mut h, id) = menu_app();
    let original = doc_bytes(&h, id);
    set_curve(&mut h, id, KeyRef::Bone(1), "Linear on all channels");
    let after = doc_bytes(&h, id);
    assert_eq!(steps(&h, id), 1, "one undo step");
    let mut expected = original.clone();
    let at = BONES_AT + BONE_SIZE + INTERP_AT;
    let old: [u8; 64] = original[at..at + 64].try_into().expect("64");
    let new = block([[20, 20, 107, 107]; 4], old);
    expected[at..at + 64].copy_from_slice(&new);
    assert_eq!(after, expected, "only key 1's curve bytes change");
    assert_eq!(&after[at + 2..at + 4], &[0x63, 0x0F], "physics flag kept");
    // With the flag put back to 00 00 it is the spec's literal default.
    let mut lit = new;
    lit[2] = 0;
    lit[3] = 0;
    assert_eq!(lit, LINEAR_BLOCK);
    undo(&mut h);
    assert_eq!(doc_bytes(&h, id), original);
}

#[test]
fn key_menu_select_track_delete_copy_paste_and_jump() {
    let (mut h, id) = menu_app();
    let original = doc_bytes(&h, id);

    // Select all in track: the three 左腕 keys, nothing else.
    menu(&mut h, id, KeyRef::Bone(1), "Select all in track");
    let sel: Vec<KeyRef> = h
        .state()
        .ws
        .doc(id)
        .expect("doc")
        .view
        .selection
        .iter()
        .copied()
        .collect();
    assert_eq!(sel, vec![KeyRef::Bone(0), KeyRef::Bone(1), KeyRef::Bone(2)]);
    assert_eq!(steps(&h, id), 0, "a selection is no undo step");

    // Delete on an unselected key: that key alone goes (count − 1).
    menu(&mut h, id, KeyRef::Bone(4), "Delete keys");
    let after = doc_bytes(&h, id);
    assert_eq!(steps(&h, id), 1);
    assert_eq!(bone_count(&after), 4);
    let mut expected = original.clone();
    expected[50..54].copy_from_slice(&4u32.to_le_bytes());
    expected.drain(BONES_AT + 4 * BONE_SIZE..BONES_AT + 5 * BONE_SIZE);
    assert_eq!(after, expected);
    undo(&mut h);
    assert_eq!(doc_bytes(&h, id), original);

    // Copy key 2 (左腕 @ 20); paste at frame 15 from a right-click on
    // empty space (which leaves the playhead alone).
    menu(&mut h, id, KeyRef::Bone(2), "Copy keys");
    assert!(
        h.state()
            .shared
            .messages
            .iter()
            .any(|(m, _)| m == "Copied 1 key"),
        "{:?}",
        h.state().shared.messages
    );
    h.state_mut().transport(TransportEvent::Seek(15.0));
    h.run_steps(3);
    let empty = {
        let a = key_pos(&h, id, KeyRef::Bone(3));
        let l = h.state().panels.timeline.layout().expect("ruler");
        Pos2::new(l.x_of(5.0), a.y)
    };
    right_click(&mut h, empty);
    h.get_by_label("Paste keys at the playhead").click();
    h.run_steps(3);
    let after = doc_bytes(&h, id);
    assert_eq!(
        steps(&h, id),
        1,
        "the delete was undone; the paste is one step"
    );
    assert_eq!(bone_count(&after), 6);
    // Every old record is still there, plus key 2's record on frame 15.
    let mut want: Vec<Vec<u8>> = (0..5).map(|i| bone_record(&original, i).to_vec()).collect();
    let mut pasted = bone_record(&original, 2).to_vec();
    pasted[15..19].copy_from_slice(&15u32.to_le_bytes());
    want.push(pasted);
    let mut got: Vec<Vec<u8>> = (0..6).map(|i| bone_record(&after, i).to_vec()).collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    undo(&mut h);
    assert_eq!(doc_bytes(&h, id), original);

    // Jump: key 0 selected (the playhead goes there), then moved away;
    // Jump to key brings it back.
    let p0 = key_pos(&h, id, KeyRef::Bone(0));
    right_click(&mut h, p0);
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    h.state_mut().transport(TransportEvent::Seek(12.0));
    h.run_steps(2);
    menu(&mut h, id, KeyRef::Bone(0), "Jump to key");
    assert_eq!(h.state().ws.transport().frame, 0.0);
}

#[test]
fn key_menu_copy_and_paste_curve() {
    let (mut h, id) = menu_app();
    let original = doc_bytes(&h, id);
    menu(&mut h, id, KeyRef::Bone(3), "Copy rotation curve");
    let rot = curves_of(3)[3];
    set_curve(&mut h, id, KeyRef::Bone(4), "Paste curve");
    assert_eq!(steps(&h, id), 1);
    let after = doc_bytes(&h, id);
    let mut expected = original.clone();
    let at = BONES_AT + 4 * BONE_SIZE + INTERP_AT;
    let old: [u8; 64] = original[at..at + 64].try_into().expect("64");
    expected[at..at + 64].copy_from_slice(&block([rot; 4], old));
    assert_eq!(after, expected);
    undo(&mut h);
    assert_eq!(doc_bytes(&h, id), original);
}

/// A camera record (spec: 61 bytes; frame 4, distance 4, target 12,
/// rotation 12, then 24 interpolation bytes = 6 items × (x1, x2, y1, y2):
/// target X, Y, Z, rotation, distance, field of view).
const CAMERA_SIZE: usize = 61;
const CAMERA_INTERP_AT: usize = 4 + 4 + 12 + 12;

#[test]
fn key_menu_linear_on_a_camera_key_writes_the_camera_layout() {
    let mut m = Motion::new_v2();
    for (i, f) in [0u32, 10, 20].into_iter().enumerate() {
        let mut k = vmd::CameraKey::new(
            f,
            -40.0 + i as f32,
            [0.0, 10.0, 0.0],
            [0.1, 0.0, 0.0],
            30,
            true,
        );
        let mut b = [0u8; 24];
        for c in 0..6 {
            let c8 = c as u8;
            b[4 * c..4 * c + 4].copy_from_slice(&[40 + c8, 100 - c8, 5 + c8, 120 - c8]);
        }
        k.set_interpolation_block(b);
        m.cameras.push(k);
    }
    let mut app = StudioApp::default();
    let id = app.open_motion(m, None, "cam.vmd").expect("opens");
    let mut h = harness_sized(app, 1280.0, 720.0);
    h.run_steps(4);
    let original = doc_bytes(&h, id);
    // No bones, no morphs: header 30 + name 20 + two zero counts, then
    // the camera count.
    let cams_at = 30 + 20 + 4 + 4 + 4;
    assert_eq!(original.len(), cams_at + 3 * CAMERA_SIZE + 4 + 4 + 4);
    set_curve(&mut h, id, KeyRef::Camera(1), "Linear on all channels");
    assert_eq!(steps(&h, id), 1);
    let mut expected = original.clone();
    let at = cams_at + CAMERA_SIZE + CAMERA_INTERP_AT;
    for c in 0..6 {
        expected[at + 4 * c..at + 4 * c + 4].copy_from_slice(&[20, 107, 20, 107]);
    }
    assert_eq!(
        doc_bytes(&h, id),
        expected,
        "only key 1's 24 curve bytes change"
    );
    undo(&mut h);
    assert_eq!(doc_bytes(&h, id), original);
}

// ------------------------------------------------------------ item 5
fn select(h: &mut Harness<'_, StudioApp>, id: u64, k: KeyRef) {
    let view = DocView {
        selection: [k].into_iter().collect(),
        active: Some(k),
        reveal: None,
    };
    h.state_mut().apply(Event::Select { doc: id, view });
    h.state_mut().apply(Event::Activate(id));
    h.run_steps(3);
}

#[test]
fn undo_and_a_tab_click_keep_the_curve_editor_on_the_key() {
    let mut app = StudioApp::default();
    let a = app
        .open_motion(menu_motion(), None, "a.vmd")
        .expect("opens");
    let b = app
        .open_motion(menu_motion(), None, "b.vmd")
        .expect("opens");
    app.panels.central = CentralView::Curves;
    let mut h = harness_sized(app, 1280.0, 720.0);
    h.run_steps(3);
    // Both files' rows in view: the docked layout gives the picture most
    // of a 1280×720 window, so the timeline is made taller here.
    h.state_mut()
        .panels
        .dock
        .set_fraction(vmd_studio::app::dock::Panel::Timeline, 0.7);
    h.run_steps(3);
    // An edit in b (its own undo step)…
    select(&mut h, b, KeyRef::Bone(4));
    set_curve(&mut h, b, KeyRef::Bone(4), "Linear on all channels");
    assert_eq!(steps(&h, b), 1);
    // …then a key of a selected (b's selection goes, as a click does).
    h.state_mut().apply(Event::Select {
        doc: b,
        view: DocView::default(),
    });
    select(&mut h, a, KeyRef::Bone(2));
    let shows = |h: &Harness<'_, StudioApp>| {
        h.query_by_label_contains("Bone 左腕 · key at frame 20")
            .is_some()
    };
    assert!(shows(&h), "the curve editor shows a's key");
    // Undo lands in b (and makes it active): the editor keeps a's key.
    undo(&mut h);
    assert_eq!(steps(&h, b), 0, "b's step was undone");
    assert!(shows(&h), "undo kept the curve editor on the key");
    // A click on b's tab: still a's key.
    h.state_mut().apply(Event::Activate(b));
    h.run_steps(3);
    assert!(shows(&h), "the tab click kept the curve editor on the key");
    assert_eq!(h.state().ws.focus().map(|d| d.id), Some(a));
}

// ------------------------------------------------------------ item 4
fn playhead_in_view(h: &Harness<'_, StudioApp>) -> bool {
    let l = h.state().panels.timeline.layout().expect("ruler");
    let x = l.x_of(h.state().ws.transport().frame);
    x >= l.keys.left() && x <= l.keys.right()
}

#[test]
fn home_end_and_a_seek_bring_the_playhead_into_view() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    h.run_steps(3);
    for _ in 0..6 {
        h.get_by_label("Zoom in").click();
        h.run_steps(1);
    }
    h.run_steps(2);
    let l = h.state().panels.timeline.layout().expect("ruler");
    let end = f64::from(h.state().ws.scene_end());
    assert!(end > 0.0);
    assert!(
        l.x_of(end) > l.keys.right(),
        "the end is out of view to begin with"
    );
    h.key_press(egui::Key::End);
    h.run_steps(3);
    assert_eq!(h.state().ws.transport().frame, end);
    assert!(playhead_in_view(&h), "End scrolled to the playhead");
    h.key_press(egui::Key::Home);
    h.run_steps(3);
    assert_eq!(h.state().ws.transport().frame, 0.0);
    assert!(playhead_in_view(&h), "Home scrolled to the playhead");
    // A shot-list click seeks: the same.
    h.state_mut().transport(TransportEvent::Seek(end * 0.6));
    h.run_steps(3);
    assert!(playhead_in_view(&h), "a seek scrolled to the playhead");
}

// ------------------------------------------------------------ item 12
#[test]
fn opening_a_file_keeps_the_zoom_and_scrolls_the_sections_to_the_top() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    h.run_steps(3);
    // A short timeline, so its rows scroll.
    crate::common::ui::timeline_under_the_picture(&mut h);
    for _ in 0..3 {
        h.get_by_label("Zoom in").click();
        h.run_steps(1);
    }
    let zoom = h.state().panels.timeline.px_per_frame;
    let body = h.state().panels.timeline.layout().expect("ruler").keys;
    let p = body.center();
    h.hover_at(p);
    h.step();
    for _ in 0..10 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: Vec2::new(0.0, -120.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: Modifiers::NONE,
        });
        h.step();
    }
    h.run_steps(20);
    assert!(
        h.state().panels.timeline.vscroll > 10.0,
        "scrolled down: {}",
        h.state().panels.timeline.vscroll
    );
    h.state_mut().open_motion(menu_motion(), None, "more.vmd");
    h.run_steps(4);
    assert_eq!(
        h.state().panels.timeline.px_per_frame,
        zoom,
        "the zoom is kept"
    );
    assert_eq!(
        h.state().panels.timeline.vscroll,
        0.0,
        "the sections are back at the top"
    );
}

#[test]
fn ctrl_wheel_zoom_keeps_the_frame_under_the_pointer() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    h.run_steps(3);
    let l = h.state().panels.timeline.layout().expect("ruler");
    let x = l.keys.left() + l.keys.width() * 0.7;
    let p = Pos2::new(x, l.keys.top() + 40.0);
    let before = l.frame_at(x);
    let zoom = l.px_per_frame;
    h.hover_at(p);
    h.step();
    let ctrl = Modifiers {
        ctrl: true,
        command: true,
        ..Modifiers::NONE
    };
    for _ in 0..5 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: Vec2::new(0.0, 40.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: ctrl,
        });
        h.step();
    }
    h.run_steps(30);
    let l = h.state().panels.timeline.layout().expect("ruler");
    assert!(
        l.px_per_frame > zoom * 1.2,
        "zoomed in: {} → {}",
        zoom,
        l.px_per_frame
    );
    let after = l.frame_at(x);
    assert!(
        (after - before).abs() < 0.05,
        "frame under the pointer {before} → {after}"
    );
}

// ------------------------------------------------------------ item 7
#[test]
fn double_click_on_a_model_in_load_model_opens_it() {
    let Some(dir) = corpus() else { return };
    let name = "babylonmmd__bone_hierarchy_test.pmx";
    let mut h = model_browser(&dir);
    let p = h.get_by_label(name).rect().center();
    double_click(&mut h, p, 0);
    settle_until(&mut h, "model load", |app| wears(app, name));
    assert!(h.state().files.file_browser.is_none(), "the browser closed");
}

#[test]
fn a_slow_double_click_on_a_model_opens_it_and_two_far_apart_clicks_do_not() {
    let Some(dir) = corpus() else { return };
    let name = "mmdbase__bone_tree_test_model.pmx";
    let mut h = model_browser(&dir);
    let p = h.get_by_label(name).rect().center();
    // Two clicks 1.2 s apart only pick the file.
    double_click(&mut h, p, 72);
    h.run_steps(2);
    assert!(
        h.state().files.file_browser.is_some(),
        "the browser stays open"
    );
    assert_eq!(
        h.state()
            .files
            .file_browser
            .as_ref()
            .map(|b| b.name.clone()),
        Some(name.to_owned())
    );
    // 0.47 s apart (Windows' default double-click time is 0.5 s): it opens.
    h.run_steps(60);
    double_click(&mut h, p, 27);
    settle_until(&mut h, "model load", |app| wears(app, name));
    assert!(h.state().files.file_browser.is_none(), "the browser closed");
}

/// Two clicks `gap` idle frames apart (frames of 1/60 s here: no gap is
/// egui's own double-click, 27 frames ≈ 0.47 s a slower one).
fn double_click(h: &mut Harness<'_, StudioApp>, p: Pos2, gap: usize) {
    h.hover_at(p);
    h.step();
    for i in 0..2 {
        if i == 1 {
            h.run_steps(gap);
        }
        for pressed in [true, false] {
            h.event(egui::Event::PointerButton {
                pos: p,
                button: egui::PointerButton::Primary,
                pressed,
                modifiers: Modifiers::NONE,
            });
        }
        h.step();
    }
    h.run_steps(2);
}

/// The built-in browser for Load model, in the corpus folder.
fn model_browser(dir: &std::path::Path) -> Harness<'static, StudioApp> {
    // As a new user meets it: the demo scene, its actor selected.
    let mut app = StudioApp::with_demo();
    app.files.native_dialog = false;
    app.run_command(UiCommand::LoadModel);
    // Frames of 1/60 s (not kittest's 0.25 s) so that click timing is
    // measured finely: egui's double-click is within 0.3 s.
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_context_setup(vmd_studio::app::install_fonts)
        .with_step_dt(1.0 / 60.0)
        .build_ui_state(|ui, app: &mut StudioApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("Folder").click();
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Folder")
        .type_text(&dir.display().to_string());
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    h
}

fn wears(app: &StudioApp, name: &str) -> bool {
    app.ws.scene().actors.iter().any(|a| match &a.model {
        ModelRef::File(p) => p.file_name().is_some_and(|n| n == name),
        _ => false,
    })
}

// ------------------------------------------------------------ item 8
fn baked() -> Motion {
    let mut m = Motion::new_v2();
    for f in 0..120u32 {
        for (b, name) in ["左腕", "右腕"].iter().enumerate() {
            let t = f64::from(f) / 30.0 + b as f64;
            let a = 0.5 * (1.1 * t).sin();
            let (s, c) = (0.5 * a).sin_cos();
            let p = [(0.3 * t.cos()) as f32, 0.0, 0.0];
            let k = BoneKey::new(
                name,
                NameEncoding::ShiftJis,
                f,
                p,
                [0.0, 0.0, s as f32, c as f32],
            );
            m.bones.push(k.expect("names fit"));
        }
    }
    m
}

fn settle_toolbox(h: &mut Harness<'static, StudioApp>) {
    settle_until(h, "toolbox", |app| {
        !app.panels.toolbox.is_busy() && !app.panels.toolbox.simplify.is_computing()
    });
}

#[test]
fn simplify_cannot_be_applied_twice_to_the_same_input() {
    let mut app = StudioApp::default();
    let id = app.open_motion(baked(), None, "baked.vmd").expect("opens");
    let mut h = harness_sized(app, 1600.0, 1000.0);
    h.run_steps(3);
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label("Simplify…").click();
    h.run_steps(3);
    settle_toolbox(&mut h);
    let apply = "Apply the simplification";
    assert!(!h.get_by_label(apply).accesskit_node().is_disabled());
    h.get_by_label(apply).click();
    settle_toolbox(&mut h);
    assert_eq!(steps(&h, id), 1);
    let keys = h.state().ws.doc(id).expect("doc").motion.bones.len();
    assert!(keys < 240);
    // The result is shown; no tolerances, no second Apply.
    assert!(h.query_by_label_contains("Done:").is_some());
    assert!(
        h.query_by_label("Bone position").is_none(),
        "tolerances hidden"
    );
    assert!(h.get_by_label(apply).accesskit_node().is_disabled());
    h.get_by_label(apply).click();
    h.run_steps(3);
    settle_toolbox(&mut h);
    assert_eq!(steps(&h, id), 1, "no second step");
    assert_eq!(h.state().ws.doc(id).expect("doc").motion.bones.len(), keys);
    // Undo: new input, the form is live again.
    undo(&mut h);
    settle_toolbox(&mut h);
    assert!(h.query_by_label("Bone position").is_some());
    assert!(!h.get_by_label(apply).accesskit_node().is_disabled());
}

// ------------------------------------------------------------ item 9
fn song_file() -> PathBuf {
    let (x, _) = audio_support::click_track(44_100, 120.0, 0.0, 12.0);
    let dir = common::ui::temp_dir("ux-song");
    let p = dir.join("click120.wav");
    std::fs::write(&p, audio_support::wav_bytes(44_100, 1, 16, &x)).expect("write");
    p
}

fn text_rects(h: &Harness<'_, StudioApp>) -> Vec<(Rect, egui::Color32, String)> {
    let mut out = Vec::new();
    for cs in &h.output().shapes {
        if let egui::epaint::Shape::Text(t) = &cs.shape {
            let colour = t
                .galley
                .job
                .sections
                .first()
                .map_or(t.fallback_color, |s| s.format.color);
            out.push((
                t.galley.rect.translate(t.pos.to_vec2()),
                colour,
                t.galley.text().to_owned(),
            ));
        }
    }
    out
}

#[test]
fn the_song_lane_controls_and_bar_numbers_cover_nothing() {
    use vmd_studio::app::panels::waveform::{BAR_COLOR, WAVE_COLOR};
    let mut app = StudioApp::with_demo();
    app.open_paths(vec![song_file()]);
    let mut h = harness_sized(app, 1280.0, 720.0);
    settle_until(&mut h, "song", |app| {
        !app.jobs.is_busy() && app.shared.song.loading().is_none() && app.shared.song.song.is_some()
    });
    h.run_steps(3);
    let l = h.state().panels.timeline.layout().expect("ruler");
    // The volume slider stays in the label column, left of the waveform.
    let vol = h
        .get_all_by_label("Vol")
        .map(|n| n.rect())
        .reduce(|a, b| a.union(b))
        .expect("the volume slider");
    let wave_left = h
        .output()
        .shapes
        .iter()
        .filter_map(|cs| match &cs.shape {
            egui::epaint::Shape::Mesh(m) => m
                .vertices
                .iter()
                .filter(|v| v.color == WAVE_COLOR)
                .map(|v| v.pos.x)
                .reduce(f32::min),
            _ => None,
        })
        .reduce(f32::min)
        .expect("a waveform");
    assert!(
        vol.right() <= l.keys.left() + 0.5,
        "slider {vol:?} vs key area {}",
        l.keys.left()
    );
    assert!(
        vol.right() <= wave_left + 0.5,
        "slider {vol:?} vs waveform {wave_left}"
    );
    // Bar numbers overlap no other text (the ruler's frames and seconds).
    let texts = text_rects(&h);
    let bars: Vec<&(Rect, egui::Color32, String)> =
        texts.iter().filter(|t| t.1 == BAR_COLOR).collect();
    assert!(bars.len() >= 2, "bar numbers drawn: {}", bars.len());
    for b in &bars {
        for t in texts.iter().filter(|t| t.1 != BAR_COLOR) {
            assert!(
                !b.0.shrink(0.5).intersects(t.0.shrink(0.5)),
                "bar {:?} at {:?} covers {:?} at {:?}",
                b.2,
                b.0,
                t.2,
                t.0
            );
        }
    }
}
