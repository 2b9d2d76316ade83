//! The viewport's motion path and ghosts in the real app: the path's
//! points are the heads the viewport's own pose shows at those frames; a
//! curve edit re-poses only its segment and the path follows; ghosts sit
//! at the neighbouring keys with the poser's heads there.

use crate::common;
use common::ui::harness;

use egui_kittest::Harness;
use glam::Vec3;
use vmd_studio::app::panels::gizmo::Selected;
use vmd_studio::app::panels::viewport::path::{self, GhostMode};
use vmd_studio::app::panels::viewport::{ViewMode, posed_world};
use vmd_studio::app::scene_ops::scene_view;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::vmd::{BoneChannel, Curve};
use vmd_studio::workspace::document::{DocView, Edit, EditRequest, KeyChanges, KeyRef};
use vmd_studio::workspace::{Event, TransportEvent};

/// The demo in the Preview tab (free view) at `frame`, with the 左腕 key
/// of frame 20 active (make_demo keys 左腕 every 20 frames).
fn demo(frame: f64) -> (Harness<'static, StudioApp>, usize) {
    let mut app = StudioApp::with_demo();
    app.panels.central = CentralView::Preview;
    app.panels.viewport.view.mode = ViewMode::Free;
    app.transport(TransportEvent::Seek(frame));
    let doc = app.ws.docs()[0].id;
    let k = app.ws.docs()[0]
        .motion
        .bones
        .iter()
        .position(|k| k.name().text == "左腕" && k.frame() == 20)
        .expect("左腕 keyed on 20");
    let view = DocView {
        active: Some(KeyRef::Bone(k as u32)),
        selection: [KeyRef::Bone(k as u32)].into_iter().collect(),
        reveal: None,
    };
    app.apply(Event::Select { doc, view });
    let mut h = harness(app);
    h.run_steps(4);
    (h, k)
}

fn bone(h: &Harness<'static, StudioApp>) -> usize {
    let sel = h
        .state()
        .panels
        .viewport
        .posing
        .pose
        .selected
        .clone()
        .expect("a bone selected");
    assert_eq!(sel.name, "左腕");
    sel.bone
}

/// The path point at `frame`, from what the viewport drew last.
fn path_point(h: &Harness<'static, StudioApp>, frame: u32) -> Vec3 {
    let d = path::last_drawn(&h.ctx).expect("drawn");
    let p = d.bone.expect("a bone path");
    Vec3::from(p.point(0, frame).expect("frame in the path"))
}

#[test]
fn path_points_are_the_heads_the_viewport_poses() {
    let (mut h, _) = demo(20.0);
    let b = bone(&h);
    for f in [20u32, 13, 31, 44] {
        h.state_mut().transport(TransportEvent::Seek(f64::from(f)));
        h.run_steps(2);
        let (frame, world) = h.state().panels.viewport.posed_bones(0).expect("posed");
        assert_eq!(frame, f64::from(f));
        let head = world[b].w_axis.truncate();
        let p = path_point(&h, f);
        assert!(
            (p - head).length() < 1e-5,
            "frame {f}: path {p} vs pose {head}"
        );
    }
    // The range: playhead 44 ± 30 → frames 14..=74, one point per frame.
    let d = path::last_drawn(&h.ctx).expect("drawn").bone.expect("path");
    assert_eq!(d.first_frame, 14);
    assert_eq!(d.paths[0].points.len(), 61);
    // Keys every 20 frames: 20, 40, 60 in range.
    assert_eq!(d.paths[0].key_frames, vec![20, 40, 60]);
}

/// A bone's head moves when its parent turns: 左ひじ's path follows an
/// edit of 左腕's curve.
#[test]
fn a_curve_edit_reposes_only_its_segment_and_the_path_follows() {
    let (mut h, k) = demo(20.0);
    let elbow = {
        let view = {
            let app = h.state();
            scene_view(&app.ws, &app.scene)
        };
        view.actors[0]
            .skeleton()
            .find("左ひじ")
            .expect("the demo has 左ひじ")
    };
    h.state_mut().panels.viewport.posing.pose.selected = Some(Selected {
        actor: 0,
        bone: elbow,
        name: "左ひじ".into(),
    });
    h.run_steps(2);
    let before = path::last_drawn(&h.ctx).expect("drawn").bone.expect("path");
    assert_eq!(before.paths[0].bone, elbow);
    assert_eq!(before.first_frame, 0, "20 − 30 clamps to 0");
    // 左腕's key 20, rotation curve: segment 0 → 20.
    let doc = h.state().ws.docs()[0].id;
    let mut key = h.state().ws.docs()[0].motion.bones[k];
    key.set_curve(BoneChannel::Rotation, Curve::new(127, 0, 127, 0));
    let changes = KeyChanges {
        bones: vec![(k as u32, key)],
        ..Default::default()
    };
    h.state_mut().apply(Event::edit(
        doc,
        EditRequest::apply(Edit::SetKeys(changes), "curve"),
    ));
    h.step();
    assert_eq!(
        path::posed_frames(&h.ctx),
        21,
        "frames 0..=20 posed again, not the range's 51"
    );
    h.run_steps(1);
    let after = path::last_drawn(&h.ctx).expect("drawn").bone.expect("path");
    // Outside the segment nothing moved; inside, the points are the poser's
    // heads for the edited motion.
    let rig_heads = |f: u32| {
        let view = {
            let app = h.state();
            scene_view(&app.ws, &app.scene)
        };
        let a = &view.actors[0];
        let d = a.motion.expect("wears the dance");
        posed_world(a.rig, Some(d.source()), f64::from(f))[elbow]
            .w_axis
            .truncate()
    };
    for f in 20..=50 {
        assert_eq!(before.point(0, f), after.point(0, f), "frame {f} outside");
    }
    let mut moved = 0;
    for f in 1..20 {
        let p = Vec3::from(after.point(0, f).expect("held"));
        assert!((p - rig_heads(f)).length() < 1e-5, "frame {f}");
        moved += usize::from(before.point(0, f) != after.point(0, f));
    }
    assert!(moved > 10, "the segment's path changed ({moved} frames)");
}

#[test]
fn ghosts_sit_at_the_neighbouring_keys() {
    let (mut h, _) = demo(30.0);
    let b = bone(&h);
    let mut s = path::settings(&h.ctx);
    s.ghosts = true;
    s.ghost_mode = GhostMode::Keys;
    path::set_settings(&h.ctx, s);
    h.run_steps(2);
    let d = path::last_drawn(&h.ctx).expect("drawn");
    let frames: Vec<(u32, bool)> = d.ghosts.iter().map(|g| (g.frame, g.before)).collect();
    assert_eq!(frames, vec![(20, true), (40, false)]);
    // 左腕's head at 20 is the end of one of the ghost's lines.
    let view = {
        let app = h.state();
        scene_view(&app.ws, &app.scene)
    };
    let a = &view.actors[0];
    let head = posed_world(a.rig, Some(a.motion.expect("dance").source()), 20.0)[b]
        .w_axis
        .truncate();
    assert!(
        d.ghosts[0]
            .lines
            .iter()
            .any(|l| (l[1] - head).length() < 1e-5),
        "a ghost line ends at 左腕's head"
    );
    // ±N frames: 3 each side, every 5 frames → 15, 20, 25 | 35, 40, 45.
    s.ghost_mode = GhostMode::Frames;
    s.count = 3;
    s.step = 5;
    path::set_settings(&h.ctx, s);
    h.run_steps(2);
    let d = path::last_drawn(&h.ctx).expect("drawn");
    let frames: Vec<u32> = d.ghosts.iter().map(|g| g.frame).collect();
    assert_eq!(frames, vec![15, 20, 25, 35, 40, 45]);
}

/// The camera's eye path in the free view follows a camera edit (it is
/// cached per camera revision): moving the first camera key's target by
/// (10, 0, 0) moves the eye at that key's frame by exactly that much (the
/// eye is the target plus the rotated distance, and neither of those
/// changed), and leaves the eye at frames between two later keys as it was.
#[test]
fn the_camera_path_follows_a_camera_edit() {
    let (mut h, _) = demo(30.0);
    h.run_steps(2);
    let before = path::last_drawn(&h.ctx)
        .expect("drawn")
        .camera
        .expect("the demo has a camera");
    let (doc, k, f0) = {
        let d = h
            .state()
            .ws
            .docs()
            .iter()
            .find(|d| !d.motion.cameras.is_empty())
            .expect("camera document");
        let (k, key) = d
            .motion
            .cameras
            .iter()
            .enumerate()
            .min_by_key(|(_, c)| c.frame())
            .expect("a key");
        (d.id, k, key.frame())
    };
    let i = (f0 - before.first_frame) as usize;
    let mut key = h
        .state()
        .ws
        .docs()
        .iter()
        .find(|d| d.id == doc)
        .unwrap()
        .motion
        .cameras[k];
    let t = key.target();
    key.set_target([t[0] + 10.0, t[1], t[2]]);
    h.state_mut().apply(Event::edit(
        doc,
        EditRequest::apply(
            Edit::SetKeys(KeyChanges {
                cameras: vec![(k as u32, key)],
                ..Default::default()
            }),
            "move the camera",
        ),
    ));
    h.run_steps(2);
    let after = path::last_drawn(&h.ctx)
        .expect("drawn")
        .camera
        .expect("path");
    assert_eq!(after.first_frame, before.first_frame);
    let (e0, e1) = (Vec3::from(before.eyes[i]), Vec3::from(after.eyes[i]));
    assert!(
        (e1 - e0 - Vec3::new(10.0, 0.0, 0.0)).length() < 1e-4,
        "{e0} -> {e1}"
    );
    // Drawn again without an edit: the same path.
    h.run_steps(2);
    let again = path::last_drawn(&h.ctx)
        .expect("drawn")
        .camera
        .expect("path");
    assert_eq!(again, after);
}
