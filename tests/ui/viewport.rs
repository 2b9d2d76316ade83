//! The Preview tab driven with egui_kittest (no display needed): the demo
//! (a dance and its camera) plays together in the viewport, the shot list
//! jumps the playhead, bones the skeleton lacks are listed, the free view
//! orbits, and dragging in the VMD-camera view edits the camera key as one
//! undo step. Run with `env -u DISPLAY cargo test --test ui viewport::`.
//!
//! Golden numbers: the demo camera's keys come from examples/make_demo.rs
//! (cuts 29→30, 59→60, 119→120, so shot 2 is frames 30–59: 30 frames =
//! 1.00 s at 30 fps); nothing is copied from the program's output.

use crate::common;
use common::ui::harness;

use egui::{Modifiers, Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::panels::viewport::{MouseMap, ViewMode};
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::vmd::{BoneKey, Motion, NameEncoding};

fn demo_in_preview() -> Harness<'static, StudioApp> {
    let mut app = StudioApp::with_demo();
    app.panels.central = CentralView::Preview;
    let mut h = harness(app);
    h.run_steps(4);
    h
}

/// A point inside the 3D canvas: left of the shot list, below the toolbar.
fn canvas_point(h: &Harness<'_, StudioApp>) -> Pos2 {
    // The shot list's heading sits at the canvas's right edge; the toolbar's
    // "Free view" button above its top edge.
    let shots = h.get_by_label_contains("Shots (").rect();
    let free = h.get_by_label("Free view").rect();
    let canvas = Rect::from_min_max(
        Pos2::new(free.left(), free.bottom() + 40.0),
        Pos2::new(shots.left() - 20.0, free.bottom() + 300.0),
    );
    canvas.center()
}

fn drag(h: &mut Harness<'_, StudioApp>, from: Pos2, to: Pos2) {
    h.hover_at(from);
    h.step();
    h.drag_at(from);
    h.step();
    for t in [0.25f32, 0.5, 0.75, 1.0] {
        h.hover_at(from + (to - from) * t);
        h.step();
    }
    h.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    h.run_steps(2);
}

#[test]
fn demo_preview_runs_and_shot_click_moves_the_playhead() {
    let mut h = demo_in_preview();
    // Play a few frames: nothing may panic while the skeleton and camera move.
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Play);
    h.run_steps(10);
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Pause);
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(0.0));
    h.run_steps(2);
    // Four shots: 0–29, 30–59, 60–119, 120–120 (make_demo.rs cuts).
    h.get_by_label("Shots (4)");
    let shots = vmd_studio::app::dock::Panel::Shots;
    crate::common::ui::scroll_to_label(&mut h, shots, "#2  30-59  1.00 s");
    h.get_by_label("#2  30-59  1.00 s").click();
    h.run_steps(2);
    assert_eq!(h.state().ws.transport().frame, 30.0);
    crate::common::ui::scroll_to_label(&mut h, shots, "#3  60-119  2.00 s");
    h.get_by_label("#3  60-119  2.00 s").click();
    h.run_steps(2);
    assert_eq!(h.state().ws.transport().frame, 60.0);
    // At every preview rate the app keeps running.
    for rate in [60, 120, 30] {
        h.state_mut()
            .transport(vmd_studio::workspace::TransportEvent::SetRate(rate));
        h.state_mut()
            .transport(vmd_studio::workspace::TransportEvent::Seek(29.5));
        h.run_steps(2);
    }
}

#[test]
fn bones_missing_from_the_skeleton_are_listed() {
    let mut app = StudioApp::default();
    let mut m = Motion::new_v2();
    let sj = NameEncoding::ShiftJis;
    for name in ["センター", "NoSuchBone"] {
        m.bones
            .push(BoneKey::new(name, sj, 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]).expect("key"));
    }
    app.open_motion(m, None, "two-bones.vmd");
    app.panels.central = CentralView::Preview;
    let mut h = harness(app);
    h.run_steps(3);
    let shots = vmd_studio::app::dock::Panel::Shots;
    crate::common::ui::scroll_to_label(&mut h, shots, "Not in skeleton (1)");
    h.get_by_label("Not in skeleton (1)").click();
    h.run_steps(3);
    crate::common::ui::scroll_to_label(&mut h, shots, "NoSuchBone");
    // No camera anywhere: the view falls back to the free view.
    h.get_by_label("No open file has camera keys.");
}

#[test]
fn dragging_the_free_view_orbits_it() {
    let mut h = demo_in_preview();
    h.get_by_label("Free view").click();
    // The left-drag mapping (MMD's right-drag default: views.rs).
    h.state_mut().panels.viewport.view.mouse = MouseMap::LeftOrbit;
    h.run_steps(2);
    assert_eq!(h.state().panels.viewport.view.mode, ViewMode::Free);
    let before = h.state().panels.viewport.view.free;
    let p = canvas_point(&h);
    drag(&mut h, p, p + egui::vec2(80.0, 30.0));
    let after = h.state().panels.viewport.view.free;
    // Drag right → yaw decreases; drag down → pitch decreases (eye rises).
    assert!(
        after.rotation[1] < before.rotation[1],
        "{before:?} → {after:?}"
    );
    assert!(
        after.rotation[0] < before.rotation[0],
        "{before:?} → {after:?}"
    );
    h.get_by_label("Reset view").click();
    h.run_steps(2);
    assert_eq!(h.state().panels.viewport.view.free, before);
}

#[test]
fn dragging_the_vmd_camera_edits_the_key_at_the_playhead_in_one_undo_step() {
    let mut h = demo_in_preview();
    // The camera file must be the active tab; frame 45 holds a key
    // (make_demo.rs: rotation (9°, −22°, 1°), distance −20).
    let camera = h.state().ws.docs()[1].id;
    h.state_mut().activate(camera);
    h.state_mut().panels.viewport.view.mode = ViewMode::VmdCamera;
    h.state_mut().panels.viewport.view.edit_camera = true;
    h.state_mut().panels.viewport.view.mouse = MouseMap::LeftOrbit;
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(45.0));
    h.run_steps(3);
    let key_at_45 = |app: &StudioApp| {
        app.ws.docs()[1]
            .motion
            .cameras
            .iter()
            .find(|k| k.frame() == 45)
            .cloned()
            .expect("key at 45")
    };
    let before = key_at_45(h.state());
    assert!((before.rotation()[1] - (-22f32).to_radians()).abs() < 1e-5);
    let undo_before = h.state().ws.docs()[1].history().len();
    let p = canvas_point(&h);
    drag(&mut h, p, p + egui::vec2(60.0, 0.0));
    let after = key_at_45(h.state());
    assert!(
        after.rotation()[1] < before.rotation()[1],
        "yaw should decrease"
    );
    assert_eq!(after.distance(), before.distance());
    assert_eq!(
        h.state().ws.docs()[1].history().len(),
        undo_before + 1,
        "one undo step per drag"
    );
    h.state_mut()
        .run_command(vmd_studio::app::command::UiCommand::Undo);
    h.run_steps(1);
    assert_eq!(key_at_45(h.state()), before);
}
