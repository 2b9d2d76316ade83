//! The value graph in the real app under egui_kittest: a handle drag writes
//! the bytes the curve box writes for the same drag (and the spec's copies),
//! as one undo step; a key drag moves the key in time and value; with
//! several keys selected their segments are shaped together.
//!
//! Bytes from the spec (/work/shared/spec/vmd-format.md): in a bone block,
//! byte `16k + j − k` holds P[j] for rows k = 0..=min(j, 3); the X move
//! curve is P[0] (x1), P[4] (y1), P[8] (x2), P[12] (y2); row 0 bytes 2–3
//! are the physics flag.

use crate::common;
use common::ui::harness_sized;

use egui::{Pos2, Rect};
use egui_kittest::Harness;
use vmd_studio::app::command::UiCommand;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::vmd::{self, BoneKey, Motion, NameEncoding};
use vmd_studio::workspace::Event;
use vmd_studio::workspace::document::{DocView, KeyRef};

fn copies_of(j: usize) -> Vec<usize> {
    (0..=j.min(3))
        .map(|k| 16 * k + j - k)
        .filter(|&i| i != 2 && i != 3)
        .collect()
}

/// センター keys: frame 0 X = 0, frame 30 X = 3, frame 60 X = 1; all
/// linear (MMD's default block), no rotation.
fn motion() -> Motion {
    let mut m = Motion::default();
    for (f, x) in [(0u32, 0.0f32), (30, 3.0), (60, 1.0)] {
        m.bones.push(
            BoneKey::new(
                "センター",
                NameEncoding::ShiftJis,
                f,
                [x, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
            )
            .expect("key"),
        );
    }
    m
}

fn app(keys: &[u32], active: u32, central: CentralView) -> StudioApp {
    let mut app = StudioApp::default();
    let id = app.open_motion(motion(), None, "graph.vmd").expect("opens");
    let view = DocView {
        selection: keys.iter().map(|&k| KeyRef::Bone(k)).collect(),
        active: Some(KeyRef::Bone(active)),
        reveal: None,
    };
    app.apply(Event::Select { doc: id, view });
    app.panels.central = central;
    // Only X move plotted: its handles are the ones under the pointer.
    app.panels.value_graph.bone_values = [true, false, false, false, false, false];
    app.panels.curve_editor.apply_to_selection = true;
    app
}

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

fn blocks(app: &StudioApp) -> Vec<[u8; 64]> {
    app.ws.docs()[0]
        .motion
        .bones
        .iter()
        .map(|k| k.interpolation_block())
        .collect()
}

/// The graph's screen point for (frame, value), from the layout it drew.
fn graph_at(h: &Harness<'static, StudioApp>, frame: f64, value: f64) -> Pos2 {
    h.state()
        .panels
        .value_graph
        .layout
        .expect("graph drawn")
        .to_screen([frame, value])
}

/// In the X box of the curve editor: (x, y) of 0..127 space.
fn box_at(rect: Rect, x: f32, y: f32) -> Pos2 {
    Pos2::new(
        rect.left() + x / 127.0 * rect.width(),
        rect.bottom() - y / 127.0 * rect.height(),
    )
}

/// Segment 0 → 30 frames, X 0 → 3, the linear curve (20,20)-(107,107):
/// handle 2 sits at (107/127·30, 107/127·3). Dragged to the point of
/// curve coordinates (90, 30): (90/127·30, 30/127·3).
#[test]
fn handle_drag_writes_the_curve_boxs_bytes_as_one_undo_step() {
    let before = motion();
    let original = vmd::write(&before).expect("write");

    // The value graph.
    let mut g = harness_sized(app(&[1], 1, CentralView::ValueGraph), 1600.0, 1000.0);
    g.run_steps(3);
    let from = graph_at(&g, 107.0 / 127.0 * 30.0, 107.0 / 127.0 * 3.0);
    let to = graph_at(&g, 90.0 / 127.0 * 30.0, 30.0 / 127.0 * 3.0);
    drag(&mut g, from, to);
    let graph_blocks = blocks(g.state());

    // The curve box, same drag in its own space.
    let mut c = harness_sized(app(&[1], 1, CentralView::Curves), 1600.0, 1000.0);
    c.run_steps(3);
    let rect = *c
        .state()
        .panels
        .curve_editor
        .boxes
        .first()
        .expect("X box drawn");
    drag(&mut c, box_at(rect, 107.0, 107.0), box_at(rect, 90.0, 30.0));
    let box_blocks = blocks(c.state());

    assert_eq!(graph_blocks, box_blocks, "same bytes as the curve box");
    // And the spec's bytes: only X's x2 (P[8]) = 90 and y2 (P[12]) = 30
    // copies in key 1's block; keys 0 and 2 untouched.
    let b0 = before.bones[1].interpolation_block();
    let mut want = b0;
    for i in copies_of(8) {
        want[i] = 90;
    }
    for i in copies_of(12) {
        want[i] = 30;
    }
    assert_ne!(want, b0);
    assert_eq!(graph_blocks[1], want);
    assert_eq!(graph_blocks[0], before.bones[0].interpolation_block());
    assert_eq!(graph_blocks[2], before.bones[2].interpolation_block());

    let doc = &g.state().ws.docs()[0];
    assert_eq!(doc.history().len(), 1, "a drag is one undo step");
    g.state_mut().run_command(UiCommand::Undo);
    g.run_steps(1);
    let restored = vmd::write(&g.state().ws.docs()[0].motion).expect("write");
    assert_eq!(restored, original, "undo restores every byte");
}

/// Keys 1 and 2 selected, the segment 0 → 30 shaped: key 2 (segment
/// 30 → 60) gets the same curve, as the curve editor's batch mode does.
#[test]
fn a_handle_drag_shapes_the_selected_keys_together() {
    let mut g = harness_sized(app(&[1, 2], 1, CentralView::ValueGraph), 1600.0, 1000.0);
    g.run_steps(3);
    // Handle 1 of segment 0 → 30 at (20/127·30, 20/127·3) → (60, 100).
    let from = graph_at(&g, 20.0 / 127.0 * 30.0, 20.0 / 127.0 * 3.0);
    let to = graph_at(&g, 60.0 / 127.0 * 30.0, 100.0 / 127.0 * 3.0);
    drag(&mut g, from, to);
    let b = blocks(g.state());
    for key in [1, 2] {
        for i in copies_of(0) {
            assert_eq!(b[key][i], 60, "key {key} x1 copy {i}");
        }
        for i in copies_of(4) {
            assert_eq!(b[key][i], 100, "key {key} y1 copy {i}");
        }
    }
    assert_eq!(b[0], motion().bones[0].interpolation_block());
    assert_eq!(g.state().ws.docs()[0].history().len(), 1);
}

/// Key 1 (frame 30, X = 3) dragged to (40, 2.5): frame 40, X ≈ 2.5 (to the
/// screen's precision), its curve bytes untouched; one undo step.
#[test]
fn a_key_drags_in_time_and_value() {
    let mut g = harness_sized(app(&[1], 1, CentralView::ValueGraph), 1600.0, 1000.0);
    g.run_steps(3);
    let from = graph_at(&g, 30.0, 3.0);
    let to = graph_at(&g, 40.0, 2.5);
    drag(&mut g, from, to);
    let doc = &g.state().ws.docs()[0];
    let k = doc.motion.bones[1];
    assert_eq!(k.frame(), 40);
    assert!((k.position()[0] - 2.5).abs() < 0.01, "{:?}", k.position());
    assert_eq!(k.position()[1..], [0.0, 0.0]);
    assert_eq!(
        k.interpolation_block(),
        motion().bones[1].interpolation_block()
    );
    assert_eq!(doc.motion.bones[0], motion().bones[0]);
    assert_eq!(doc.history().len(), 1);
}

/// Rotation: センター turns 0° → 170° about Z over frames 0 → 30 (Euler
/// Z on the graph). Handle 2 dragged to curve point (90, 30) writes the
/// rotation curve's x2 (P[11]) and y2 (P[15]) copies, as the rotation box
/// does for the same drag.
#[test]
fn a_rotation_handle_drag_writes_the_rotation_curve() {
    let z = 170f32.to_radians() / 2.0;
    let mut m = Motion::default();
    for (f, q) in [
        (0u32, [0.0, 0.0, 0.0, 1.0]),
        (30, [0.0, 0.0, z.sin(), z.cos()]),
    ] {
        m.bones
            .push(BoneKey::new("センター", NameEncoding::ShiftJis, f, [0.0; 3], q).expect("key"));
    }
    let open = |central: CentralView| {
        let mut app = StudioApp::default();
        let id = app.open_motion(m.clone(), None, "rot.vmd").expect("opens");
        let view = DocView {
            selection: [KeyRef::Bone(1)].into_iter().collect(),
            active: Some(KeyRef::Bone(1)),
            reveal: None,
        };
        app.apply(Event::Select { doc: id, view });
        app.panels.central = central;
        app.panels.value_graph.bone_values = [false, false, false, false, false, true];
        harness_sized(app, 1600.0, 1000.0)
    };
    let mut g = open(CentralView::ValueGraph);
    g.run_steps(3);
    let from = graph_at(&g, 107.0 / 127.0 * 30.0, 107.0 / 127.0 * 170.0);
    let to = graph_at(&g, 90.0 / 127.0 * 30.0, 30.0 / 127.0 * 170.0);
    drag(&mut g, from, to);
    let mut c = open(CentralView::Curves);
    c.run_steps(3);
    let rect = *c
        .state()
        .panels
        .curve_editor
        .boxes
        .get(3)
        .expect("rotation box");
    drag(&mut c, box_at(rect, 107.0, 107.0), box_at(rect, 90.0, 30.0));
    let (gb, cb) = (blocks(g.state()), blocks(c.state()));
    assert_eq!(gb, cb, "same bytes as the rotation box");
    let mut want = m.bones[1].interpolation_block();
    for i in copies_of(11) {
        want[i] = 90;
    }
    for i in copies_of(15) {
        want[i] = 30;
    }
    assert_eq!(gb[1], want);
}
