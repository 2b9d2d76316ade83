//! Issue 34.3: an accessory moved and turned with the viewport's gizmo
//! (scene panel ▸ accessory ▸ "Move in view"), as MMD's accessory panel
//! values: the X arrow moves it along X (drawn 40 px along the arrow after
//! a 40 px drag), the Y ring turns Ry only, each drag one undo step; on a
//! bone the gizmo stands at the bone and its arrows follow the bone's axes
//! (found here from the pose the viewport drew); Esc ends it.
//! Run with `env -u DISPLAY cargo test --test ui set_gizmo::`.

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use vmd_studio::app::panels::scene::Action;
use vmd_studio::app::panels::scene_set::SetAction;
use vmd_studio::app::panels::viewport::ViewMode;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::scene::set::{AccessoryState, Parent};

use crate::common::ui::{drag, harness_sized, settle};

const PLATE_X: &str = "xof 0303txt 0032\nMesh {\n 4;\n -1;0;-1;,\n -1;0;1;,\n 1;0;1;,\n 1;0;-1;;\n 1;\n 4;0,1,2,3;;\n}\n";

fn state(h: &egui_kittest::Harness<'_, StudioApp>) -> AccessoryState {
    h.state().ws.scene().set.accessories[0].state.clone()
}

#[test]
fn an_accessory_is_moved_and_turned_with_the_gizmo_and_undone() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("plate.x"), PLATE_X).unwrap();
    let mut app = StudioApp::with_demo();
    app.panels.central = CentralView::Preview;
    app.panels.viewport.view.mode = ViewMode::Free;
    let mut h = harness_sized(app, 1920.0, 1080.0);
    settle(&mut h);
    h.state_mut().add_accessory(tmp.path().join("plate.x"));
    settle(&mut h);
    // The accessory's own "Move in view" (the actor's comes first).
    let buttons = h.query_all_by_label("Move in view").count();
    assert_eq!(buttons, 2, "one for the actor, one for the accessory");
    h.query_all_by_label("Move in view")
        .last()
        .unwrap()
        .scroll_to_me();
    h.run_steps(12);
    h.query_all_by_label("Move in view").last().unwrap().click();
    h.run_steps(3);
    let tool = &h.state().panels.viewport.posing.pose;
    assert_eq!(tool.moving_accessory, Some(0));
    assert_eq!(tool.placing, None);
    let g = tool.drawn_in(0).and_then(|d| d.gizmo).expect("gizmo drawn");
    assert_eq!(g.centre, Vec3::ZERO, "at the accessory's origin");
    assert_eq!(g.ring_count, 3, "Rx, Ry, Rz");

    let (p, dir) = tool.arrow_grab_point(0).expect("X arrow on screen");
    let screen = tool.drawn_in(0).unwrap().screen;
    let centre_px = screen.project(Vec3::ZERO).unwrap();
    drag(&mut h, p, p + dir * 40.0);
    let moved = state(&h);
    assert!(moved.position.x > 0.1, "{moved:?}");
    assert_eq!((moved.position.y, moved.position.z), (0.0, 0.0));
    assert_eq!(moved.rotation_degrees, Vec3::ZERO);
    let along =
        (screen.project(moved.position).unwrap() - centre_px).dot(glam::Vec2::new(dir.x, dir.y));
    assert!(
        (along - 40.0).abs() < 3.0,
        "moved {along} px along the arrow"
    );

    let (p, tangent) = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .ring_grab_point(1)
        .expect("the Y ring is on screen");
    drag(&mut h, p, p + tangent * 30.0);
    let turned = state(&h);
    assert!(turned.rotation_degrees.y.abs() > 1.0, "{turned:?}");
    assert!(
        turned.rotation_degrees.x.abs() < 1e-3 && turned.rotation_degrees.z.abs() < 1e-3,
        "a Y ring turns Ry only: {turned:?}"
    );
    assert_eq!(turned.position, moved.position, "a turn does not move it");

    // A second drag of the same arrow is its own step too.
    let (p, dir) = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .arrow_grab_point(0)
        .unwrap();
    drag(&mut h, p, p + dir * 20.0);
    assert!(state(&h).position.x > moved.position.x + 0.05);
    for want in [&turned, &moved, &AccessoryState::default()] {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
        h.run_steps(2);
        assert_eq!(&state(&h), want, "after undo");
    }

    // On the right wrist: the gizmo stands at the wrist as drawn, its X
    // arrow along the wrist's X axis.
    let on_wrist = AccessoryState {
        parent: Parent::Bone {
            actor: 0,
            bone: "右手首".into(),
        },
        ..AccessoryState::default()
    };
    h.state_mut()
        .scene_action(Action::Set(SetAction::SetAccessoryState(
            0,
            Box::new(on_wrist),
        )));
    h.run_steps(3);
    let demo = vmd_studio::render::stage::demo_model().expect("demo model");
    let wrist = demo
        .model
        .skeleton
        .find("右手首")
        .expect("the demo dancer has a right wrist");
    let app = h.state();
    let (_, worlds) = app.panels.viewport.posed_bones(0).expect("posed");
    let w = worlds[wrist];
    let g = app
        .panels
        .viewport
        .posing
        .pose
        .drawn_in(0)
        .and_then(|d| d.gizmo)
        .unwrap();
    assert!((g.centre - w.w_axis.truncate()).length() < 1e-4);
    let x = w.x_axis.truncate().normalize();
    assert!(
        g.arrow_axes[0].dot(x) > 0.9999,
        "{:?} vs {x:?}",
        g.arrow_axes[0]
    );

    h.key_press(Key::Escape);
    h.run_steps(2);
    assert_eq!(h.state().panels.viewport.posing.pose.moving_accessory, None);

    // Removing the accessory being moved ends the tool (no gizmo left
    // pointing at a slot that is gone).
    h.query_all_by_label("Move in view").last().unwrap().click();
    h.run_steps(2);
    assert_eq!(
        h.state().panels.viewport.posing.pose.moving_accessory,
        Some(0)
    );
    h.state_mut()
        .scene_action(Action::Set(SetAction::RemoveAccessory(0)));
    h.run_steps(3);
    let tool = &h.state().panels.viewport.posing.pose;
    assert_eq!(tool.moving_accessory, None);
    assert!(
        tool.drawn_in(0).and_then(|d| d.gizmo).is_none(),
        "no gizmo left"
    );
}
