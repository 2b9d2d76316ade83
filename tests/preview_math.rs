//! Preview math through the projection helpers the viewport draws with
//! (`scene::view::{ViewCamera, project_point, project_segment}`),
//! the shot list and near-cuts (`scene::shots`), document picking and
//! posing. Pure: no window, no egui context.
//!
//! Golden numbers are hand computations written next to each case, the spec
//! (`shared/spec/vmd-format.md`: eye = target + Ry(−ry)·Rx(−rx)·Rz(−rz)·(0, 0,
//! distance), cuts are keys one frame apart) and `shared/corpus/CENSUS.txt`.
#![cfg(feature = "gui")]

mod common;
use common::corpus;

use glam::{Mat4, Vec2, Vec3};
use vmd_studio::app::panels::Transport;
use vmd_studio::app::panels::viewport::{pick_source, posed_world};
use vmd_studio::model::standard_model;
use vmd_studio::scene::shots::{NearCut, Shot, near_cuts, shot_at, shots};
use vmd_studio::scene::view::{ScreenRect, ViewCamera, project_point, project_segment};
use vmd_studio::vmd::evaluate::camera_at;
use vmd_studio::vmd::summary::cut_frames;
use vmd_studio::vmd::{BoneKey, CameraKey, IkKey, IndexedMotion, Motion, NameEncoding, TrackIndex};

// ---------------------------------------------------------------- helpers

/// A 200 × 200 viewport at the origin: centre (100, 100), aspect 1.
fn square() -> ScreenRect {
    ScreenRect::from_min_max(Vec2::ZERO, Vec2::new(200.0, 200.0))
}

fn cam(target: [f32; 3], rotation_deg: [f32; 3], distance: f32, fov: f32) -> ViewCamera {
    ViewCamera {
        target,
        rotation: rotation_deg.map(f32::to_radians),
        distance,
        fov,
        perspective: true,
    }
}

fn screen(c: &ViewCamera, p: [f32; 3]) -> Option<Vec2> {
    project_point(&c.view_proj(1.0), Vec3::from(p), square())
}

#[track_caller]
fn assert_at(got: Option<Vec2>, want: (f32, f32)) {
    let g = got.unwrap_or_else(|| panic!("point not visible, expected {want:?}"));
    assert!(
        (g.x - want.0).abs() < 1e-2 && (g.y - want.1).abs() < 1e-2,
        "got ({}, {}), expected {want:?}",
        g.x,
        g.y
    );
}

fn camera_motion(keys: &[(u32, f32)]) -> Motion {
    // One camera key per (frame, target x); everything else fixed.
    let mut m = Motion::new_v2();
    for &(f, x) in keys {
        m.cameras
            .push(CameraKey::new(f, -30.0, [x, 10.0, 0.0], [0.0; 3], 30, true));
    }
    m
}

// ------------------------------------------------------------- mirroring

#[test]
fn model_left_hand_is_on_the_viewer_right_from_the_front() {
    // MMD's default camera (the default free view): target (0, 10, 0),
    // distance −45, no rotation → eye (0, 10, −45) looking towards +Z, at the
    // front of a model that faces −Z. The model's left hand is at +X; a
    // viewer facing the model sees it on the viewer's RIGHT.
    //
    // Hand computation for P = (5, 10, 0), fov 30°, aspect 1, 200 px square:
    // view coordinates (5, 0, 45); f = 1/tan(15°) = 3.7320508;
    // ndc x = 3.7320508 · 5 / 45 = 0.4146723 → screen x = 100 + 41.467 = 141.467.
    let c = ViewCamera::FRONT;
    assert_at(screen(&c, [5.0, 10.0, 0.0]), (141.467, 100.0));
    // And −X (the model's right hand) mirrors to the left.
    assert_at(screen(&c, [-5.0, 10.0, 0.0]), (58.533, 100.0));
    // Up is up: (0, 15, 0) → ndc y = 3.7320508 · 5 / 45 → screen y = 100 − 41.467.
    assert_at(screen(&c, [0.0, 15.0, 0.0]), (100.0, 58.533));
}

#[test]
fn standard_skeleton_left_wrist_on_the_right_of_the_screen() {
    // Same check on the skeleton the viewport draws: 左手首 (left wrist, rest
    // x = +5.5 in assets/standard_skeleton.json) right of centre, 右手首
    // (x = −5.5) left of centre; 頭 (head) above センター (centre).
    let rig = standard_model();
    let skel = &rig.skeleton;
    let m = IndexedMotion::new(Motion::new_v2());
    let world = posed_world(&rig, Some(m.as_ref()), 0.0);
    let vp = ViewCamera::FRONT.view_proj(1.0);
    let at = |name: &str| {
        let i = skel.find(name).unwrap_or_else(|| panic!("no bone {name}"));
        project_point(&vp, world[i].w_axis.truncate(), square()).expect("visible")
    };
    let (left, right) = (at("左手首"), at("右手首"));
    assert!(
        left.x > 100.0 && right.x < 100.0,
        "left {left:?} right {right:?}"
    );
    assert!(
        at("頭").y < at("センター").y,
        "head must be above the centre"
    );
}

// ----------------------------------------------------------- camera math

/// Every case: target T = (1, 2, 3), distance −10, fov 90° (f = 1), so a
/// point 10 units ahead, 2 right and 3 up of the eye lands at ndc (0.2, 0.3)
/// → screen (120, 70), and the target at the centre (100, 100).
///
/// With R = Ry(−ry)·Rx(−rx)·Rz(−rz): offset o = R·(0, 0, −10), eye = T + o,
/// forward = R·(0,0,1), right = R·(1,0,0), up = R·(0,1,0), and
/// P = eye + 10·forward + 2·right + 3·up. Rotation formulas:
/// Rx(θ)(x,y,z) = (x, y cosθ − z sinθ, y sinθ + z cosθ),
/// Ry(θ)(x,y,z) = (x cosθ + z sinθ, y, −x sinθ + z cosθ),
/// Rz(θ)(x,y,z) = (x cosθ − y sinθ, x sinθ + y cosθ, z).
#[test]
fn quarter_turns_about_each_axis_hand_computed() {
    let cases: [([f32; 3], [f32; 3], &str); 7] = [
        // none: eye (1,2,−7), fwd +Z, right +X, up +Y → P = (3, 5, 3).
        ([0.0, 0.0, 0.0], [3.0, 5.0, 3.0], "identity"),
        // rx = +90: Rx(−90)(x,y,z) = (x, z, −y): o = (0,−10,0), eye (1,−8,3),
        // fwd (0,1,0), right (1,0,0), up (0,0,−1) → P = (3, 2, 0).
        ([90.0, 0.0, 0.0], [3.0, 2.0, 0.0], "rx +90"),
        // rx = −90: Rx(90)(x,y,z) = (x, −z, y): o = (0,10,0), eye (1,12,3),
        // fwd (0,−1,0), right (1,0,0), up (0,0,1) → P = (3, 2, 6).
        ([-90.0, 0.0, 0.0], [3.0, 2.0, 6.0], "rx -90"),
        // ry = +90: Ry(−90)(x,y,z) = (−z, y, x): o = (10,0,0), eye (11,2,3),
        // fwd (−1,0,0), right (0,0,1), up (0,1,0) → P = (1, 5, 5).
        ([0.0, 90.0, 0.0], [1.0, 5.0, 5.0], "ry +90"),
        // ry = −90: Ry(90)(x,y,z) = (z, y, −x): o = (−10,0,0), eye (−9,2,3),
        // fwd (1,0,0), right (0,0,−1), up (0,1,0) → P = (1, 5, 1).
        ([0.0, -90.0, 0.0], [1.0, 5.0, 1.0], "ry -90"),
        // rz = +90: Rz(−90)(x,y,z) = (y, −x, z): o = (0,0,−10), eye (1,2,−7),
        // fwd (0,0,1), right (0,−1,0), up (1,0,0) → P = (4, 0, 3).
        ([0.0, 0.0, 90.0], [4.0, 0.0, 3.0], "rz +90"),
        // rz = −90: Rz(90)(x,y,z) = (−y, x, z): o = (0,0,−10), eye (1,2,−7),
        // fwd (0,0,1), right (0,1,0), up (−1,0,0) → P = (−2, 4, 3).
        ([0.0, 0.0, -90.0], [-2.0, 4.0, 3.0], "rz -90"),
    ];
    for (rot, p, what) in cases {
        let c = cam([1.0, 2.0, 3.0], rot, -10.0, 90.0);
        let got = screen(&c, p);
        assert!(got.is_some(), "{what}: P not visible");
        assert_at(got, (120.0, 70.0));
        assert_at(screen(&c, [1.0, 2.0, 3.0]), (100.0, 100.0));
    }
}

#[test]
fn eye_of_quarter_turns_hand_computed() {
    // The eyes from the table above (T = (1,2,3), distance −10).
    for (rot, eye) in [
        ([90.0, 0.0, 0.0], [1.0, -8.0, 3.0]),
        ([-90.0, 0.0, 0.0], [1.0, 12.0, 3.0]),
        ([0.0, 90.0, 0.0], [11.0, 2.0, 3.0]),
        ([0.0, -90.0, 0.0], [-9.0, 2.0, 3.0]),
        ([0.0, 0.0, 90.0], [1.0, 2.0, -7.0]),
    ] {
        let e = cam([1.0, 2.0, 3.0], rot, -10.0, 90.0).eye();
        assert!(
            e.distance(Vec3::from(eye)) < 1e-4,
            "{rot:?}: {e:?} vs {eye:?}"
        );
    }
}

#[test]
fn positive_distance_puts_the_eye_past_the_target() {
    // distance +10, no rotation: eye = T + (0,0,10) = (1,2,13), still looking
    // along +Z, so the target (1,2,3) is behind the eye: not drawn; a point
    // at (1,2,23) is 10 ahead and sits at the centre.
    let c = cam([1.0, 2.0, 3.0], [0.0; 3], 10.0, 90.0);
    assert!(screen(&c, [1.0, 2.0, 3.0]).is_none());
    assert_at(screen(&c, [1.0, 2.0, 23.0]), (100.0, 100.0));
    // 2 right, 3 up at depth 10: (120, 70) as in the table.
    assert_at(screen(&c, [3.0, 5.0, 23.0]), (120.0, 70.0));
}

#[test]
fn orthographic_frames_the_target_plane_like_perspective() {
    // Orthographic half-height = |distance|·tan(fov/2) = 10·tan 45° = 10, so
    // at the target's depth a point 2 right, 3 up lands at (120, 70) in both
    // projections; 10 units further back perspective halves the offset
    // (110, 85) and orthographic does not (120, 70).
    let mut c = cam([1.0, 2.0, 3.0], [0.0; 3], -10.0, 90.0);
    assert_at(screen(&c, [3.0, 5.0, 3.0]), (120.0, 70.0));
    assert_at(screen(&c, [3.0, 5.0, 13.0]), (110.0, 85.0));
    c.perspective = false;
    assert_at(screen(&c, [3.0, 5.0, 3.0]), (120.0, 70.0));
    assert_at(screen(&c, [3.0, 5.0, 13.0]), (120.0, 70.0));
}

#[test]
fn segments_are_clipped_at_the_near_plane() {
    // Front camera, eye at z = −45. A segment from behind the eye (z = −100)
    // to the target is cut at the near plane; its far end is the target at
    // the centre, its near end finite. A segment wholly behind is dropped.
    let c = ViewCamera::FRONT;
    let vp: Mat4 = c.view_proj(1.0);
    let seg = project_segment(
        &vp,
        Vec3::new(1.0, 10.0, -100.0),
        Vec3::new(0.0, 10.0, 0.0),
        square(),
    )
    .expect("partly visible");
    assert!(seg[0].x.is_finite() && seg[0].y.is_finite());
    assert!((seg[1].x - 100.0).abs() < 1e-3 && (seg[1].y - 100.0).abs() < 1e-3);
    assert!(
        project_segment(
            &vp,
            Vec3::new(0.0, 10.0, -100.0),
            Vec3::new(5.0, 10.0, -50.0),
            square()
        )
        .is_none()
    );
}

// ------------------------------------------------------------------- cuts

#[test]
fn cut_holds_the_earlier_key_at_half_frames_at_every_preview_rate() {
    // Keys at 0, 10, 11 (a cut: one frame apart), 20; target x = 0, 100, 200, 300.
    let m = camera_motion(&[(0, 0.0), (10, 100.0), (11, 200.0), (20, 300.0)]);
    let idx = TrackIndex::build(&m);
    for rate in [30, 60, 120] {
        for sub in 0..4 {
            let t = Transport {
                frame: 10.0 + f64::from(sub) * 0.25,
                preview_rate: rate,
                ..Default::default()
            };
            let f = t.eval_frame();
            let c = camera_at(&m, &idx, f).expect("camera");
            assert_eq!(c.target[0], 100.0, "rate {rate} frame {f}");
        }
    }
    assert_eq!(camera_at(&m, &idx, 11.0).expect("camera").target[0], 200.0);
    // Not a cut (10 frames apart): at the midpoint of the default linear
    // curve the target is halfway, 0 → 100 at frame 5.
    let mid = camera_at(&m, &idx, 5.0).expect("camera").target[0];
    assert!((mid - 50.0).abs() < 0.5, "{mid}");
}

#[test]
fn shots_and_near_cuts_of_a_small_camera() {
    // Keys 0, 10, 11, 13, 20, 28, 30, 31: cuts 10|11 and 30|31.
    // Shots: 0-10, 11-30, 31-31. Near-cuts: 11 → 13 after the first cut,
    // 28 → 30 before the second.
    let keys = [0, 10, 11, 13, 20, 28, 30, 31].map(|f| (f, f as f32));
    let m = camera_motion(&keys);
    let idx = TrackIndex::build(&m);
    let s = shots(&m, &idx);
    let spans: Vec<(usize, u32, u32)> = s.iter().map(|s| (s.number, s.first, s.last)).collect();
    assert_eq!(spans, vec![(1, 0, 10), (2, 11, 30), (3, 31, 31)]);
    // 20 frames at 30 fps = 0.667 s.
    assert!((s[1].seconds() - 20.0 / 30.0).abs() < 1e-9);
    assert_eq!(s[1].label(), "#2  11-30  0.67 s");
    assert_eq!(shot_at(&s, 10.5), Some(0));
    assert_eq!(shot_at(&s, 11.0), Some(1));
    assert_eq!(shot_at(&s, 99.0), Some(2));
    assert_eq!(
        near_cuts(&m, &idx),
        vec![
            NearCut {
                from: 11,
                to: 13,
                cut: 10
            },
            NearCut {
                from: 28,
                to: 30,
                cut: 30
            },
        ]
    );
    assert!(
        near_cuts(&m, &idx)[0]
            .message()
            .starts_with("near-cut at frame 11")
    );
}

#[test]
fn gimmexgimme_has_164_shots_starting_after_each_cut() {
    let Some(dir) = corpus() else { return };
    let bytes = std::fs::read(dir.join("webmmd__GimmexGimme.vmd")).expect("read corpus file");
    let m = vmd_studio::vmd::read(&bytes).expect("parse");
    let idx = TrackIndex::build(&m);
    // CENSUS.txt: "class=camera  camera_cuts=163" and max_frame=6579.
    let census = std::fs::read_to_string(dir.join("CENSUS.txt")).expect("census");
    let section = census
        .split("== webmmd__GimmexGimme.vmd")
        .nth(1)
        .expect("census section");
    let field = |name: &str| -> u32 {
        section
            .split_whitespace()
            .find_map(|w| w.strip_prefix(name))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("census field {name}"))
    };
    let (census_cuts, census_max) = (field("camera_cuts="), field("max_frame="));
    assert_eq!(census_cuts, 163);

    let s: Vec<Shot> = shots(&m, &idx);
    assert_eq!(s.len() as u32, census_cuts + 1);
    let cuts = cut_frames(&m, &idx);
    let starts: Vec<u32> = s.iter().skip(1).map(|s| s.first).collect();
    let expected: Vec<u32> = cuts.iter().map(|a| a + 1).collect();
    assert_eq!(starts, expected);
    // Contiguous from frame 0 to the last key, numbered 1..=164.
    assert_eq!(s[0].first, 0);
    assert_eq!(s.last().map(|s| s.last), Some(census_max));
    for (i, w) in s.windows(2).enumerate() {
        assert_eq!(w[0].last + 1, w[1].first, "gap after shot {}", i + 1);
    }
    assert!(s.iter().enumerate().all(|(i, s)| s.number == i + 1));
    let total: u32 = s.iter().map(Shot::frames).sum();
    assert_eq!(total, census_max + 1);
}

// ------------------------------------------------- documents and posing

#[test]
fn skeleton_and_camera_sources() {
    // Active document qualifies → it; else the first that does; else none.
    assert_eq!(pick_source(1, &[true, true]), Some(1));
    assert_eq!(pick_source(1, &[false, false, true]), Some(2));
    assert_eq!(pick_source(0, &[false, true, true]), Some(1));
    assert_eq!(pick_source(5, &[false, false]), None);
}

#[test]
fn bone_keys_drive_the_skeleton_and_ik_keys_switch_ik() {
    let sj = NameEncoding::ShiftJis;
    let mut m = Motion::new_v2();
    // Centre lowered by 1: by FK every bone below it moves with it.
    m.bones.push(
        BoneKey::new("センター", sj, 0, [0.0, -1.0, 0.0], [0.0, 0.0, 0.0, 1.0]).expect("key"),
    );
    // Left leg IK goal raised 2 and moved 1 forward from the ankle's rest
    // (1.1, 1.2, 0.35) → (1.1, 3.2, −0.65): reachable (lowered hip
    // (1.0, 9.3, 0.1) → goal 6.15 < thigh 4.41 + shin 4.74), so the ankle
    // lands on it with IK on. The IK bone's parent is 全ての親 (root),
    // unmoved by センター.
    m.bones.push(
        BoneKey::new("左足ＩＫ", sj, 0, [0.0, 2.0, -1.0], [0.0, 0.0, 0.0, 1.0]).expect("key"),
    );
    m.bones
        .push(BoneKey::new("どこにもない", sj, 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]).expect("key"));
    let mut ik_on = IkKey::new(0, true);
    ik_on.push_entry("左足ＩＫ", sj, true).expect("entry");
    let mut ik_off = IkKey::new(10, true);
    ik_off.push_entry("左足ＩＫ", sj, false).expect("entry");
    m.iks.push(ik_on);
    m.iks.push(ik_off);
    let rig = standard_model();
    let m = IndexedMotion::new(m);
    let pos = |frame: f64, name: &str| {
        let world = posed_world(&rig, Some(m.as_ref()), frame);
        world[rig.skeleton.find(name).expect("bone")]
            .w_axis
            .truncate()
    };
    // 頭 rest (0, 16.9, 0.2) + centre offset (0, −1, 0).
    assert!(pos(0.0, "頭").distance(Vec3::new(0.0, 15.9, 0.2)) < 1e-4);
    // Frame 0: IK on → the ankle reaches the goal. (Its rest is under the
    // moved hip now; the goal did not move with the centre.)
    let goal = Vec3::new(1.1, 3.2, -0.65);
    assert!(
        pos(0.0, "左足首").distance(goal) < 0.05,
        "{:?}",
        pos(0.0, "左足首")
    );
    // Frame 10: the IK/show key turns 左足ＩＫ off → plain FK: ankle at rest
    // + centre offset = (1.1, 1.2 − 1, 0.35).
    assert!(pos(10.0, "左足首").distance(Vec3::new(1.1, 0.2, 0.35)) < 1e-4);
    // The right leg has no IK entry → on; its goal stays at its rest
    // (−1.1, 1.2, 0.35) while the hip dropped by 1 (hip→goal 8.1 < 9.15):
    // the knee bends and the ankle stays on the goal.
    assert!(pos(0.0, "右足首").distance(Vec3::new(-1.1, 1.2, 0.35)) < 0.05);
}
