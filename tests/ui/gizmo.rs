//! Posing in the viewport, driven as a user with egui_kittest (no display
//! or GPU needed: the viewport draws skeletons): click a bone's joint, drag
//! a gizmo ring or arrow, press Enter, and check the bytes that come out.
//! Run with `env -u DISPLAY cargo test --test ui gizmo::`.
//!
//! Golden facts are independent of the program: the demo dance's keys come
//! from examples/make_demo.rs (左腕 keyed every 20 frames, 左足ＩＫ every
//! 15), and the byte layout from the VMD spec (header 30 + model name 20 +
//! count 4 = 54 bytes before the first bone record; a record is 111 bytes,
//! its rotation at bytes 31..47).

use crate::common;
use common::ui::harness;

use egui::{Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Quat;
use vmd_studio::app::panels::viewport::ViewMode;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::vmd::{self, BoneKey, NameEncoding};

const FIRST_BONE_RECORD: usize = 30 + 20 + 4;
const BONE_RECORD: usize = 111;
const ROTATION: std::ops::Range<usize> = 31..47;

/// The demo scene in the Preview tab, free view from the front, at `frame`.
fn demo_at(frame: f64) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::with_demo();
    app.panels.central = CentralView::Preview;
    app.panels.viewport.view.mode = ViewMode::Free;
    app.transport(vmd_studio::workspace::TransportEvent::Seek(frame));
    let mut h = harness(app);
    h.run_steps(4);
    h
}

fn dance_bytes(h: &Harness<'_, StudioApp>) -> Vec<u8> {
    vmd::write(&h.state().ws.docs()[0].motion).expect("the dance serializes")
}

fn click(h: &mut Harness<'_, StudioApp>, at: Pos2) {
    crate::common::ui::press(h, at, egui::PointerButton::Primary);
    h.run_steps(2);
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

/// Clicks the joint of bone `name` of the demo dancer.
fn select_bone(h: &mut Harness<'_, StudioApp>, name: &str) {
    let at = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .joint_on_screen(0, name)
        .unwrap_or_else(|| panic!("{name} is drawn"));
    click(h, at);
    let sel = h.state().panels.viewport.posing.pose.selected.clone();
    assert_eq!(sel.map(|s| s.name), Some(name.to_owned()), "clicked {at:?}");
}

/// Index of the dance's `name` key on `frame`.
fn key_index(h: &Harness<'_, StudioApp>, name: &str, frame: u32) -> Option<usize> {
    h.state().ws.docs()[0]
        .motion
        .bones
        .iter()
        .position(|k| k.name().text == name && k.frame() == frame)
}

#[test]
fn ring_drag_changes_only_that_keys_rotation_bytes_and_one_undo_restores_them() {
    let mut h = demo_at(20.0);
    let original = dance_bytes(&h);
    let k = key_index(&h, "左腕", 20).expect("make_demo keys 左腕 on frame 20");
    let q_before = Quat::from_array(h.state().ws.docs()[0].motion.bones[k].rotation());
    let steps_before = h.state().ws.docs()[0].history().len();

    select_bone(&mut h, "左腕");
    // Local axes (the default): grab the X ring and drag along it.
    let (p, tangent) = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .ring_grab_point(0)
        .expect("the X ring is on screen");
    drag(&mut h, p, p + tangent * 40.0);

    let after = dance_bytes(&h);
    assert_eq!(after.len(), original.len(), "no key added or removed");
    let record = FIRST_BONE_RECORD + k * BONE_RECORD;
    let rotation = record + ROTATION.start..record + ROTATION.end;
    let changed: Vec<usize> = (0..after.len())
        .filter(|&i| after[i] != original[i])
        .collect();
    assert!(!changed.is_empty(), "the drag changed nothing");
    assert!(
        changed.iter().all(|i| rotation.contains(i)),
        "bytes outside 左腕@20's rotation changed: {changed:?} (rotation is {rotation:?})"
    );
    // A turn about the bone's own X axis: q' = q·Rx(a), so q⁻¹·q' has no
    // Y or Z part.
    let q_after = Quat::from_array(h.state().ws.docs()[0].motion.bones[k].rotation());
    let d = q_before.inverse() * q_after;
    assert!(d.x.abs() > 0.05, "turned too little: {d:?}");
    assert!(
        d.y.abs() < 1e-4 && d.z.abs() < 1e-4,
        "not about local X: {d:?}"
    );
    assert_eq!(
        h.state().ws.docs()[0].history().len(),
        steps_before + 1,
        "one drag, one undo step"
    );

    h.state_mut()
        .run_command(vmd_studio::app::command::UiCommand::Undo);
    h.run_steps(2);
    assert_eq!(dance_bytes(&h), original, "one undo restores every byte");
}

#[test]
fn enter_on_a_frame_without_a_key_registers_the_posed_bone_there() {
    // Frame 10: 左腕 is keyed on 0 and 20, not 10.
    let mut h = demo_at(10.0);
    let original = dance_bytes(&h);
    let count = h.state().ws.docs()[0].motion.bones.len();
    assert_eq!(key_index(&h, "左腕", 10), None);
    select_bone(&mut h, "左腕");
    let (p, tangent) = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .ring_grab_point(2)
        .expect("the Z ring is on screen");
    drag(&mut h, p, p + tangent * 40.0);
    // Without a key there, the drag only poses (shown live, not saved).
    assert_eq!(
        dance_bytes(&h),
        original,
        "an unregistered pose edits nothing"
    );
    let pending = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .pending
        .clone()
        .expect("posed");
    assert_eq!(pending.bone, "左腕");

    h.key_press(egui::Key::Enter);
    h.run_steps(2);
    let m = &h.state().ws.docs()[0].motion;
    assert_eq!(m.bones.len(), count + 1, "exactly one key inserted");
    let k = key_index(&h, "左腕", 10).expect("a 左腕 key on frame 10");
    let key = &m.bones[k];
    let q = Quat::from_array(key.rotation());
    assert!(
        (q - pending.rotation).length() < 1e-6 || (q + pending.rotation).length() < 1e-6,
        "the key holds the pose shown"
    );
    // The curves a new key gets from Insert key: BoneKey::new's defaults.
    let fresh = BoneKey::new(
        "左腕",
        NameEncoding::ShiftJis,
        10,
        key.position(),
        key.rotation(),
    )
    .expect("fits");
    assert_eq!(key.interpolation_block(), fresh.interpolation_block());
    assert_eq!(key.name_field(), fresh.name_field());
    assert!(h.state().panels.viewport.posing.pose.pending.is_none());
    // One undo step takes it out again.
    h.state_mut()
        .run_command(vmd_studio::app::command::UiCommand::Undo);
    h.run_steps(2);
    assert_eq!(dance_bytes(&h), original);
}

#[test]
fn enter_on_a_bare_frame_keys_the_current_pose_and_leaves_a_keyed_frame_alone() {
    let mut h = demo_at(30.0);
    select_bone(&mut h, "左腕");
    let count = h.state().ws.docs()[0].motion.bones.len();
    h.get_by_label("Register key (Enter)").click();
    h.run_steps(2);
    assert_eq!(h.state().ws.docs()[0].motion.bones.len(), count + 1);
    let k = key_index(&h, "左腕", 30).expect("keyed at 30");
    // Halfway between make_demo's −10° (frame 20) and 35° (frame 40) on an
    // ease-out curve: the angle about Z lies strictly between them.
    let q = Quat::from_array(h.state().ws.docs()[0].motion.bones[k].rotation());
    let (axis, angle) = q.to_axis_angle();
    let deg = (angle * axis.z.signum()).to_degrees();
    assert!(deg > -10.0 && deg < 35.0, "{deg}");
    // Enter again: the key exists now, nothing is added.
    h.key_press(egui::Key::Enter);
    h.run_steps(2);
    assert_eq!(h.state().ws.docs()[0].motion.bones.len(), count + 1);
}

#[test]
fn dragging_the_ik_target_up_moves_its_key_and_the_leg_follows() {
    // Frame 15: 左足ＩＫ keyed at (0, 1.2, −0.6) (make_demo).
    let mut h = demo_at(15.0);
    let k = key_index(&h, "左足ＩＫ", 15).expect("keyed on 15");
    let before = h.state().ws.docs()[0].motion.bones[k].position();
    select_bone(&mut h, "左足ＩＫ");
    let rig = vmd_studio::model::standard_model();
    let ankle = rig.skeleton.find("左足首").expect("ankle");
    let ankle_y = |h: &Harness<'_, StudioApp>| {
        let d = &h.state().ws.docs()[0];
        let w = vmd_studio::app::panels::viewport::posed_world(&rig, Some(d.source()), 15.0);
        w[ankle].w_axis.y
    };
    let ankle_before = ankle_y(&h);
    // Y arrow: drag it up the screen.
    let (p, dir) = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .arrow_grab_point(1)
        .expect("the Y arrow is on screen");
    assert!(dir.y < -0.5, "the Y arrow points up the screen: {dir:?}");
    drag(&mut h, p, p + dir * 30.0);
    let after = h.state().ws.docs()[0].motion.bones[k].position();
    assert!(after[1] > before[1] + 0.1, "{before:?} → {after:?}");
    assert!((after[0] - before[0]).abs() < 1e-4 && (after[2] - before[2]).abs() < 1e-4);
    assert!(
        ankle_y(&h) > ankle_before + 0.1,
        "the IK chain pulls the ankle up with the target"
    );
}

#[test]
fn a_bone_key_clicked_in_the_dope_sheet_selects_its_bone_in_the_view() {
    let mut h = demo_at(0.0);
    let k = key_index(&h, "右ひじ", 0).expect("keyed on 0");
    let key = vmd_studio::workspace::document::KeyRef::Bone(k as u32);
    let doc = h.state().ws.docs()[0].id;
    let view = vmd_studio::workspace::document::DocView {
        active: Some(key),
        ..Default::default()
    };
    h.state_mut()
        .apply(vmd_studio::workspace::Event::Select { doc, view });
    h.run_steps(2);
    let sel = h.state().panels.viewport.posing.pose.selected.clone();
    assert_eq!(sel.map(|s| s.name), Some("右ひじ".to_owned()));
}

#[test]
fn the_free_view_registers_as_a_camera_key_in_one_undo_step() {
    // The demo camera (document 1) has no key on frame 50 (make_demo keys
    // it on 0, 12, 29, 30, 45, 59, 60, …).
    let mut h = demo_at(50.0);
    let cam_before = vmd::write(&h.state().ws.docs()[1].motion).expect("writes");
    let n = h.state().ws.docs()[1].motion.cameras.len();
    assert!(
        !h.state().ws.docs()[1]
            .motion
            .cameras
            .iter()
            .any(|c| c.frame() == 50)
    );
    h.state_mut().panels.viewport.view.free.rotation = [0.2, -0.5, 0.0];
    h.state_mut().panels.viewport.view.free.distance = -30.0;
    h.run_steps(2);
    h.get_by_label("Register camera key").click();
    h.run_steps(2);
    let cams = &h.state().ws.docs()[1].motion.cameras;
    assert_eq!(cams.len(), n + 1);
    let key = cams.iter().find(|c| c.frame() == 50).expect("key on 50");
    assert_eq!(key.rotation(), [0.2, -0.5, 0.0]);
    assert_eq!(key.distance(), -30.0);
    assert_eq!(key.target(), [0.0, 10.0, 0.0]);
    assert_eq!(key.fov(), 30);
    h.state_mut()
        .run_command(vmd_studio::app::command::UiCommand::Undo);
    h.run_steps(2);
    assert_eq!(
        vmd::write(&h.state().ws.docs()[1].motion).expect("writes"),
        cam_before
    );
}

#[test]
fn view_flag_sets_the_free_views_look_at_point() {
    // What scripts/screenshots.sh uses to frame a bone: --view free:RX,RY,D,TX,TY,TZ.
    let mut s = vmd_studio::app::panels::viewport::State::default();
    s.set_view_mode("free:-8,28,-21,3,14.6,0");
    assert_eq!(s.view.mode, ViewMode::Free);
    assert_eq!(s.view.free.target, [3.0, 14.6, 0.0]);
    assert_eq!(s.view.free.distance, -21.0);
    assert!((s.view.free.rotation[1] - 28f32.to_radians()).abs() < 1e-6);
    // Three numbers keep the default look-at point (0, 10, 0).
    let mut t = vmd_studio::app::panels::viewport::State::default();
    t.set_view_mode("free:0,10,-40");
    assert_eq!(t.view.free.target, [0.0, 10.0, 0.0]);
}

#[test]
fn a_global_ring_turns_the_bone_about_the_models_axis() {
    let mut h = demo_at(20.0);
    let k = key_index(&h, "左腕", 20).expect("keyed on 20");
    select_bone(&mut h, "左腕");
    h.get_by_label("Global").click();
    h.run_steps(2);
    let rig = vmd_studio::model::standard_model();
    let arm = rig.skeleton.find("左腕").expect("arm");
    let world_rot = |h: &Harness<'_, StudioApp>| {
        let d = &h.state().ws.docs()[0];
        let w = vmd_studio::app::panels::viewport::posed_world(&rig, Some(d.source()), 20.0);
        w[arm].to_scale_rotation_translation().1
    };
    let before = world_rot(&h);
    let q_key_before = h.state().ws.docs()[0].motion.bones[k].rotation();
    // Y ring (the model's vertical axis).
    let (p, tangent) = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .ring_grab_point(1)
        .expect("the Y ring is on screen");
    drag(&mut h, p, p + tangent * 40.0);
    assert_ne!(
        h.state().ws.docs()[0].motion.bones[k].rotation(),
        q_key_before
    );
    // The arm's world rotation changed by a turn about world Y only:
    // W' = Ry(a)·W, so W'·W⁻¹ has no X or Z part.
    let turn = world_rot(&h) * before.inverse();
    assert!(turn.y.abs() > 0.05, "{turn:?}");
    assert!(turn.x.abs() < 1e-3 && turn.z.abs() < 1e-3, "{turn:?}");
}

#[test]
fn an_unregistered_pose_is_shown_live_and_dropped_when_the_frame_changes() {
    let mut h = demo_at(10.0);
    select_bone(&mut h, "左腕");
    let elbow = |h: &Harness<'_, StudioApp>| {
        h.state()
            .panels
            .viewport
            .posing
            .pose
            .joint_on_screen(0, "左ひじ")
            .expect("elbow drawn")
    };
    let before = elbow(&h);
    let (p, tangent) = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .ring_grab_point(2)
        .expect("Z ring");
    drag(&mut h, p, p + tangent * 40.0);
    h.run_steps(2);
    let posed = elbow(&h);
    assert!(
        (posed - before).length() > 5.0,
        "the elbow follows the posed arm on screen: {before:?} → {posed:?}"
    );
    // Another frame: the pose is dropped, nothing was written.
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(11.0));
    h.run_steps(2);
    assert!(h.state().panels.viewport.posing.pose.pending.is_none());
    assert_eq!(key_index(&h, "左腕", 10), None);
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(10.0));
    h.run_steps(2);
    assert!(
        (elbow(&h) - before).length() < 0.5,
        "back to the motion's pose"
    );
}

#[test]
fn registering_the_free_view_on_a_keyed_frame_keeps_that_keys_curves() {
    // make_demo keys the camera on frame 45 with a smooth curve.
    let mut h = demo_at(45.0);
    let n = h.state().ws.docs()[1].motion.cameras.len();
    let old = h.state().ws.docs()[1]
        .motion
        .cameras
        .iter()
        .find(|c| c.frame() == 45)
        .cloned()
        .expect("key on 45");
    h.state_mut().panels.viewport.view.free.distance = -25.0;
    h.run_steps(2);
    h.get_by_label("Register camera key").click();
    h.run_steps(2);
    let cams = &h.state().ws.docs()[1].motion.cameras;
    assert_eq!(cams.len(), n, "no key added: the one on 45 is rewritten");
    let new = cams.iter().find(|c| c.frame() == 45).expect("key on 45");
    assert_eq!(new.distance(), -25.0);
    assert_eq!(new.interpolation_block(), old.interpolation_block());
}
