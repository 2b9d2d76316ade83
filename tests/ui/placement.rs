//! Issue 38 item 3: dancers no longer stand inside each other. Each actor
//! has a place in the scene (X/Y/Z and a turn about Y) typed into the
//! scene panel: the viewport draws it there (every joint where the
//! placement puts the unplaced pose, worked out here with the pose engine
//! and the placement's own matrix), one change is one undo step, and the
//! `.vmdscene` keeps it.

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::{Mat4, Quat, Vec3};
use vmd_studio::app::panels::viewport::{ViewMode, posed_world};
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::workspace::TransportEvent;

use crate::common::ui::{harness_sized, settle};

/// Types `text` into the number field labelled `label`.
fn type_number(h: &mut Harness<'static, StudioApp>, label: &str, text: &str) {
    h.get_by_label(label).scroll_to_me();
    // The scroll animates: let it come to rest before the click.
    h.run_steps(12);
    h.get_by_label(label).click();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label(label).type_text(text);
    h.key_press(Key::Enter);
    h.run_steps(3);
}

/// The largest distance in pixels between each joint the viewport drew
/// for actor 0 and where `placement` puts that bone of the unplaced pose.
fn joints_off(h: &Harness<'static, StudioApp>, placement: Mat4, frame: f64) -> f32 {
    let app = h.state();
    let actor = &app.ws.scene().actors[0];
    let rig = app.scene.rig_for(&actor.model);
    let doc = actor.motion.and_then(|id| app.ws.doc(id)).expect("motion");
    let unplaced = posed_world(rig, Some(doc.source()), frame);
    let drawn = app
        .panels
        .viewport
        .posing
        .pose
        .drawn_in(0)
        .expect("the viewport drew joints");
    let mut worst = 0.0_f32;
    let mut seen = 0;
    for &(a, b, at) in &drawn.joints {
        if a != 0 {
            continue;
        }
        let want = placement.transform_point3(unplaced[b].w_axis.truncate());
        if let Some(p) = drawn.screen.project(want) {
            worst = worst.max(p.distance(at));
            seen += 1;
        }
    }
    assert!(seen > 10, "only {seen} joints drawn");
    worst
}

#[test]
fn an_actor_is_placed_from_the_scene_panel_drawn_there_saved_and_undone() {
    let mut app = StudioApp::with_demo();
    // The free view draws the joints (through the VMD camera: the picture).
    app.panels.central = CentralView::Preview;
    app.panels.viewport.view.mode = ViewMode::Free;
    app.transport(TransportEvent::Seek(40.0));
    let mut h = harness_sized(app, 1920.0, 1080.0);
    settle(&mut h);
    assert!(h.state().ws.scene().actors[0].placement.is_origin());
    let before = joints_off(&h, Mat4::IDENTITY, 40.0);
    assert!(before < 1.0, "unplaced joints {before} px off");

    type_number(&mut h, "X", "15");
    type_number(&mut h, "Turn", "90");
    let p = h.state().ws.scene().actors[0].placement;
    assert_eq!(p.position, Vec3::new(15.0, 0.0, 0.0));
    // The Enter that ended each edit did nothing else (it also registered
    // a camera key in the free view, drawn after the scene panel).
    let cam = h.state().ws.scene().camera.expect("the demo camera");
    assert!(!h.state().ws.doc(cam).expect("open").is_modified());
    assert_eq!(p.turn_degrees, 90.0);

    // Drawn where the placement puts it: turned 90° about Y, then moved
    // 15 units along X (the matrix built here, not the app's).
    settle(&mut h);
    let placed = Mat4::from_rotation_translation(
        Quat::from_rotation_y(90f32.to_radians()),
        Vec3::new(15.0, 0.0, 0.0),
    );
    let off = joints_off(&h, placed, 40.0);
    assert!(off < 1.0, "placed joints {off} px off");
    // And not where it stood (the check can tell them apart).
    assert!(joints_off(&h, Mat4::IDENTITY, 40.0) > 20.0);

    // Saved with the scene.
    let tmp = tempfile::tempdir().unwrap();
    let scene_path = tmp.path().join("placed.vmdscene");
    h.state_mut().save_scene_to(scene_path.clone());
    settle(&mut h);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&scene_path).expect("saved")).unwrap();
    assert_eq!(
        json["actors"][0]["position"],
        serde_json::json!([15.0, 0.0, 0.0])
    );
    assert_eq!(json["actors"][0]["turn"], 90.0);

    // Two changes, two undo steps: the turn, then the move.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    let p = h.state().ws.scene().actors[0].placement;
    assert_eq!((p.position.x, p.turn_degrees), (15.0, 0.0));
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert!(h.state().ws.scene().actors[0].placement.is_origin());
    settle(&mut h);
    let back = joints_off(&h, Mat4::IDENTITY, 40.0);
    assert!(back < 1.0, "after undo the joints are {back} px off");
}

/// "Move in view": the viewport's gizmo stands at the actor's feet; its X
/// arrow moves the actor (the new place is drawn under the pointer's
/// 40-pixel move along the arrow), its ring turns it, each drag one undo
/// step; Esc ends placing.
#[test]
fn move_in_view_moves_and_turns_the_actor_with_the_gizmo() {
    let mut app = StudioApp::with_demo();
    app.panels.central = CentralView::Preview;
    app.panels.viewport.view.mode = ViewMode::Free;
    let mut h = harness_sized(app, 1920.0, 1080.0);
    settle(&mut h);
    h.get_by_label("Move in view").scroll_to_me();
    h.run_steps(12);
    h.get_by_label("Move in view").click();
    h.run_steps(3);
    assert_eq!(h.state().panels.viewport.posing.pose.placing, Some(0));
    let tool = &h.state().panels.viewport.posing.pose;
    let g = tool
        .drawn_in(0)
        .and_then(|d| d.gizmo)
        .expect("the gizmo is drawn");
    assert_eq!(g.centre, Vec3::ZERO, "at the actor's feet");
    let (p, dir) = tool.arrow_grab_point(0).expect("the X arrow is on screen");
    let screen = tool.drawn_in(0).expect("drawn").screen;
    let centre_px = screen.project(Vec3::ZERO).expect("centre on screen");
    crate::common::ui::drag(&mut h, p, p + dir * 40.0);
    let pl = h.state().ws.scene().actors[0].placement;
    assert!(pl.position.x > 0.1, "{pl:?}");
    assert_eq!(
        (pl.position.y, pl.position.z, pl.turn_degrees),
        (0.0, 0.0, 0.0)
    );
    // Where the actor now stands is drawn 40 px from where it stood, along
    // the arrow (the view did not move).
    let moved_px = screen.project(pl.position).expect("on screen");
    let along = (moved_px - centre_px).dot(glam::Vec2::new(dir.x, dir.y));
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
        .ring_grab_point(0)
        .expect("the turn ring is on screen");
    crate::common::ui::drag(&mut h, p, p + tangent * 30.0);
    let turned = h.state().ws.scene().actors[0].placement;
    assert!(turned.turn_degrees > 1.0, "{turned:?}");
    assert_eq!(turned.position, pl.position, "a turn does not move it");

    // Two drags, two undo steps.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().ws.scene().actors[0].placement, pl);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert!(h.state().ws.scene().actors[0].placement.is_origin());

    h.key_press(Key::Escape);
    h.run_steps(2);
    assert_eq!(h.state().panels.viewport.posing.pose.placing, None);
}
