//! The set's accessory lane on the timeline (issue 34.3: accessory keys on
//! the timeline), driven with the pointer as a user does: a click on a key
//! moves the playhead to it, a drag moves the key (one undo step), the
//! context menu keys the accessory at an in-between frame (its values as
//! played there) and deletes a key.
//! Run with `env -u DISPLAY cargo test --test ui set_lane::`.

use crate::common;
use common::ui::{drag, harness, settle};

use egui::{Key, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::panels::scene::Action;
use vmd_studio::app::panels::scene_set::SetAction;
use vmd_studio::scene::set::AccessoryKey;
use vmd_studio::workspace::TransportEvent;

const CUBE_X: &str = "xof 0303txt 0032\nMesh {\n 4;\n -1;0;-1;,\n -1;0;1;,\n 1;0;1;,\n 1;0;-1;;\n 1;\n 4;0,1,2,3;;\n}\n";

fn frames(h: &Harness<'_, StudioApp>) -> Vec<u32> {
    h.state().ws.scene().set.accessories[0]
        .keys
        .iter()
        .map(|k| k.frame)
        .collect()
}

/// The centre of accessory 0's key at `frame` on its lane, as drawn.
fn key_point(h: &Harness<'_, StudioApp>, frame: f64) -> Pos2 {
    let t = &h.state().panels.timeline;
    let row = t.set_lane.rows[0];
    Pos2::new(t.layout().expect("ruler").x_of(frame), row.center().y)
}

fn right_click(h: &mut Harness<'_, StudioApp>, p: Pos2) {
    crate::common::ui::press(h, p, PointerButton::Secondary);
    h.run_steps(2);
}

#[test]
fn accessory_keys_are_clicked_dragged_keyed_and_deleted_on_the_timeline() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("negi.x"), CUBE_X).unwrap();
    let mut app = StudioApp::default();
    app.open_demo();
    let mut h = harness(app);
    settle(&mut h);
    h.state_mut().add_accessory(tmp.path().join("negi.x"));
    settle(&mut h);
    // Keys at 0 (X = 0) and 30 (X = 12), as the scene panel writes them.
    for (frame, x) in [(0u32, 0.0f32), (30, 12.0)] {
        let mut state = h.state().ws.scene().set.accessories[0].state.clone();
        state.position.x = x;
        h.state_mut()
            .scene_action(Action::Set(SetAction::SetAccessoryKey(
                0,
                Box::new(AccessoryKey { frame, state }),
            )));
        h.run_steps(1);
    }
    // 4 points a frame from frame −1, so the keys are far apart.
    {
        let t = &mut h.state_mut().panels.timeline;
        t.fit_pending = false;
        t.px_per_frame = 4.0;
        t.left_frame = -1.0;
    }
    h.state_mut().transport(TransportEvent::Seek(50.0));
    h.run_steps(3);
    assert_eq!(frames(&h), vec![0, 30]);
    assert!(
        !h.state().panels.timeline.set_lane.rows.is_empty(),
        "the lane is drawn"
    );
    h.get_by_label("Set — accessories (1)");

    // A click on the key at 30 takes the playhead there.
    let p30 = key_point(&h, 30.0);
    h.hover_at(p30);
    h.step();
    h.drag_at(p30);
    h.step();
    h.drop_at(p30);
    h.run_steps(2);
    assert_eq!(h.state().ws.transport().frame, 30.0);

    // Dragged 20 frames (80 points) to the right: the key is at 50, with
    // its values, in one undo step.
    drag(&mut h, p30, p30 + egui::vec2(80.0, 0.0));
    assert_eq!(frames(&h), vec![0, 50]);
    let acc = h.state().ws.scene().set.accessories[0].clone();
    assert_eq!(acc.keys[1].state.position.x, 12.0);
    // Half-way between 0 and 50 is 6 (hand computation: 12 · 25/50).
    assert!((acc.pose_at(25.0).position.x - 6.0).abs() < 1e-5);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(frames(&h), vec![0, 30], "one undo puts the key back");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run_steps(2);
    assert_eq!(frames(&h), vec![0, 50]);

    // Right-click at frame 10: key the accessory there with the values it
    // plays (12 · 10/50 = 2.4).
    let p10 = key_point(&h, 10.0);
    right_click(&mut h, p10);
    h.get_by_label("Key negi at frame 10").click();
    h.run_steps(2);
    assert_eq!(frames(&h), vec![0, 10, 50]);
    let k = &h.state().ws.scene().set.accessories[0].keys[1];
    assert!((k.state.position.x - 2.4).abs() < 1e-4, "{:?}", k.state);

    // Right-click on that key: delete it.
    let p10 = key_point(&h, 10.0);
    right_click(&mut h, p10);
    h.get_by_label("Delete the key at frame 10").click();
    h.run_steps(2);
    assert_eq!(frames(&h), vec![0, 50]);
    // Undo walks back: the deletion, the key, the move.
    for want in [vec![0, 10, 50], vec![0, 50], vec![0, 30]] {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
        h.run_steps(2);
        assert_eq!(frames(&h), want, "after undo");
    }
}
