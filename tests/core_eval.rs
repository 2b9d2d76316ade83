//! Evaluation: values computed by hand, then an independent implementation
//! of the spec (its own byte parsing, row selection, Bézier solver by plain
//! bisection and slerp, all in f64) compared with `vmd::evaluate::sample`
//! on real files at many integer and fractional frames.
//!
//! Golden numbers are hand computations written out in the comments; the
//! reference implementation follows `shared/spec/vmd-format.md` only.

mod common;
use common::corpus;
use std::collections::HashMap;
use std::f64::consts::PI;

use vmd_studio::vmd::{
    self, BoneChannel, BoneKey, CameraChannel, CameraKey, Curve, IkKey, LightKey, MorphKey, Motion,
    NameEncoding, ShadowKey, TrackIndex, camera, evaluate,
};

// ================================================================ hand values

fn close(a: f64, b: f64, eps: f64) -> bool {
    (a - b).abs() <= eps
}

fn assert_q(got: [f32; 4], want: [f64; 4], eps: f64) {
    // q and −q are the same rotation; compare up to sign.
    let d = |s: f64| {
        (0..4)
            .map(|i| (f64::from(got[i]) - s * want[i]).abs())
            .fold(0.0, f64::max)
    };
    assert!(d(1.0).min(d(-1.0)) <= eps, "got {got:?}, want {want:?}");
}

fn bone(name: &str, frame: u32, pos: [f32; 3], rot: [f32; 4]) -> BoneKey {
    BoneKey::new(name, NameEncoding::ShiftJis, frame, pos, rot).unwrap_or_else(|e| panic!("{e}"))
}

fn motion_with(bones: Vec<BoneKey>) -> (Motion, TrackIndex) {
    let mut m = Motion::new_v2();
    m.bones = bones;
    let idx = TrackIndex::build(&m);
    (m, idx)
}

const ID: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// 90° about Y: (0, sin 45°, 0, cos 45°).
fn y90() -> [f32; 4] {
    let h = (PI / 4.0) as f32;
    [0.0, h.sin(), 0.0, h.cos()]
}

#[test]
fn linear_curves_return_x() {
    // Any curve with both control points on the diagonal is the identity.
    for c in [
        Curve::LINEAR,
        Curve::new(0, 0, 127, 127),
        Curve::new(64, 64, 64, 64),
        Curve::new(127, 127, 0, 0),
    ] {
        for i in 0..=100 {
            let x = f64::from(i) / 100.0;
            assert!(close(c.weight(x), x, 1e-12), "{c:?} at {x}");
        }
    }
}

#[test]
fn ease_out_curve_gives_0_875_at_half() {
    // (0,127)-(127,127): x(t) = 3(1−t)t²·1 + t³ = 3t² − 2t³ (x1 = 0, x2 = 1);
    // x = 0.5 ⇒ t = 0.5 (3/4 − 2/8 = 1/2). y(t) = 1 − (1−t)³ (y1 = y2 = 1)
    // = 1 − 1/8 = 0.875.
    let c = Curve::new(0, 127, 127, 127);
    assert!(close(c.weight(0.5), 0.875, 1e-6), "{}", c.weight(0.5));
    // Extreme control bytes never leave [0, 1] and hit the ends.
    for x1 in [0u8, 1, 64, 126, 127, 128, 255] {
        for x2 in [0u8, 1, 64, 126, 127, 128, 255] {
            let c = Curve::new(x1, 127, x2, 0);
            assert!(
                close(c.weight(0.0), 0.0, 1e-9) && close(c.weight(1.0), 1.0, 1e-9),
                "{c:?}"
            );
            for i in 0..=64 {
                let w = c.weight(f64::from(i) / 64.0);
                assert!((0.0..=1.0).contains(&w), "{c:?}");
            }
        }
    }
}

#[test]
fn bone_slerp_90_degrees_at_the_midpoint() {
    // Identity at 0, 90° about Y at 10, linear curves. Frame 5 = half-way:
    // 45° about Y = (0, sin 22.5°, 0, cos 22.5°) = (0, 0.3826834, 0, 0.9238795).
    let (m, idx) = motion_with(vec![
        bone("a", 0, [0.0; 3], ID),
        bone("a", 10, [0.0; 3], y90()),
    ]);
    let p = evaluate::bone_at(&m, &idx.bones[0], 5.0);
    let h = 22.5f64.to_radians();
    assert_q(p.rotation, [0.0, h.sin(), 0.0, h.cos()], 1e-6);
    // Frame 2.5 (fractional): a quarter: 22.5° about Y → half-angle 11.25°.
    let p = evaluate::bone_at(&m, &idx.bones[0], 2.5);
    let h = 11.25f64.to_radians();
    assert_q(p.rotation, [0.0, h.sin(), 0.0, h.cos()], 1e-6);
}

#[test]
fn the_later_keys_curve_is_used() {
    // A (0, identity) carries the ease-out curve; B (10, 90° Y) is linear;
    // C (20, 180° Y) carries the ease-out curve.
    let ease = Curve::new(0, 127, 127, 127);
    let mut a = bone("a", 0, [0.0; 3], ID);
    a.set_curve(BoneChannel::Rotation, ease);
    let b = bone("a", 10, [0.0; 3], y90());
    let mut c = bone("a", 20, [0.0; 3], [0.0, 1.0, 0.0, 0.0]);
    c.set_curve(BoneChannel::Rotation, ease);
    let (m, idx) = motion_with(vec![a, b, c]);
    // A→B uses B's linear curve: frame 5 → 45° (half-angle 22.5°), not 0.875·90°.
    let p = evaluate::bone_at(&m, &idx.bones[0], 5.0);
    let h = 22.5f64.to_radians();
    assert_q(p.rotation, [0.0, h.sin(), 0.0, h.cos()], 1e-6);
    // B→C uses C's ease-out: frame 15 → weight 0.875 → 90° + 0.875·90° = 168.75°,
    // half-angle 84.375°.
    let p = evaluate::bone_at(&m, &idx.bones[0], 15.0);
    let h = 84.375f64.to_radians();
    assert_q(p.rotation, [0.0, h.sin(), 0.0, h.cos()], 1e-6);
}

#[test]
fn position_axes_use_their_own_curves() {
    // A: (0,0,0) at 0; B: (8, 16, 24) at 8 with X ease-out, Y linear,
    // Z (0,0)-(0,127). At frame 4 (x = 0.5):
    //  X: 0.875 (see the ease-out test) → 7.0
    //  Y: 0.5 → 8.0
    //  Z: x(t) = t³ (x1 = x2 = 0) ⇒ t = 2^(−1/3); y(t) = 3t²(1−t) + t³ = 3t² − 2t³
    //     = 3·2^(−2/3) − 1 = 0.8898816 → 24 · 0.8898816 = 21.357159.
    let mut b = bone("a", 8, [8.0, 16.0, 24.0], ID);
    b.set_curve(BoneChannel::X, Curve::new(0, 127, 127, 127));
    b.set_curve(BoneChannel::Z, Curve::new(0, 0, 0, 127));
    b.set_curve(BoneChannel::Rotation, Curve::new(0, 127, 127, 127)); // irrelevant: same rotation
    let (m, idx) = motion_with(vec![bone("a", 0, [0.0; 3], ID), b]);
    let p = evaluate::bone_at(&m, &idx.bones[0], 4.0);
    let wz = 3.0 * 2f64.powf(-2.0 / 3.0) - 1.0;
    assert!(close(p.position[0].into(), 7.0, 1e-4), "{:?}", p.position);
    assert!(close(p.position[1].into(), 8.0, 1e-5), "{:?}", p.position);
    assert!(
        close(p.position[2].into(), 24.0 * wz, 1e-4),
        "{:?}",
        p.position
    );
    // Fractional frame 2 (x = 0.25), Y linear: 16 · 0.25 = 4.
    let p = evaluate::bone_at(&m, &idx.bones[0], 2.0);
    assert!(close(p.position[1].into(), 4.0, 1e-5));
    // Frame 6.4 (x = 0.8), Y linear: 12.8.
    let p = evaluate::bone_at(&m, &idx.bones[0], 6.4);
    assert!(close(p.position[1].into(), 12.8, 1e-4));
}

#[test]
fn hold_before_the_first_and_after_the_last_key() {
    let (m, idx) = motion_with(vec![
        bone("a", 5, [1.0, 2.0, 3.0], ID),
        bone("a", 10, [4.0, 5.0, 6.0], y90()),
        bone("single", 7, [9.0, 9.0, 9.0], y90()),
    ]);
    let t = idx.bone(b"a").unwrap_or_else(|| panic!("track a"));
    for f in [0.0, 2.5, 4.999, 5.0] {
        assert_eq!(
            evaluate::bone_at(&m, t, f).position,
            [1.0, 2.0, 3.0],
            "frame {f}"
        );
    }
    for f in [10.0, 10.5, 1e6] {
        let p = evaluate::bone_at(&m, t, f);
        assert_eq!(
            (p.position, p.rotation),
            ([4.0, 5.0, 6.0], y90()),
            "frame {f}"
        );
    }
    let s = idx
        .bone(b"single")
        .unwrap_or_else(|| panic!("track single"));
    for f in [0.0, 7.0, 100.25] {
        assert_eq!(evaluate::bone_at(&m, s, f).position, [9.0; 3]);
    }
}

// ------------------------------------------------------------ camera math

fn assert_v(got: [f32; 3], want: [f64; 3], eps: f64) {
    for i in 0..3 {
        assert!(
            close(got[i].into(), want[i], eps),
            "got {got:?}, want {want:?}"
        );
    }
}

#[test]
fn eye_of_a_rotated_camera_by_hand() {
    // rx = 30°, ry = 45°, rz = 0, distance −10, target (1, 2, 3).
    // v = (0, 0, −10). Rz(0)·v = v.
    // Rx(θ)(x,y,z) = (x, y cosθ − z sinθ, y sinθ + z cosθ) with θ = −30°:
    //   y = −(−10)·sin(−30°) = 10·(−0.5) = −5;  z = −10·cos 30° = −8.6602540.
    // Ry(φ)(x,y,z) = (x cosφ + z sinφ, y, −x sinφ + z cosφ) with φ = −45°:
    //   x = −8.6602540·(−0.7071068) = 6.1237244;  z = −8.6602540·0.7071068 = −6.1237244.
    // eye = (1 + 6.1237244, 2 − 5, 3 − 6.1237244) = (7.1237244, −3, −3.1237244).
    let r = [30f32.to_radians(), 45f32.to_radians(), 0.0];
    let e = camera::eye_position([1.0, 2.0, 3.0], r, -10.0);
    assert_v(e, [7.1237244, -3.0, -3.1237244], 1e-5);
}

#[test]
fn eye_at_plus_minus_90_degrees_about_each_axis() {
    let q = std::f32::consts::FRAC_PI_2;
    let d = -10.0;
    // rx = +90°: Rx(−90°)(0,0,−10) = (0, −(−10)·(−1), 0) = (0, −10, 0).
    assert_v(
        camera::eye_position([0.0; 3], [q, 0.0, 0.0], d),
        [0.0, -10.0, 0.0],
        1e-5,
    );
    // rx = −90°: Rx(90°)(0,0,−10) = (0, −(−10)·1, 0) = (0, 10, 0).
    assert_v(
        camera::eye_position([0.0; 3], [-q, 0.0, 0.0], d),
        [0.0, 10.0, 0.0],
        1e-5,
    );
    // ry = +90°: Ry(−90°)(0,0,−10) = (−10·(−1), 0, 0) = (10, 0, 0).
    assert_v(
        camera::eye_position([0.0; 3], [0.0, q, 0.0], d),
        [10.0, 0.0, 0.0],
        1e-5,
    );
    // ry = −90°: Ry(90°)(0,0,−10) = (−10·1, 0, 0) = (−10, 0, 0).
    assert_v(
        camera::eye_position([0.0; 3], [0.0, -q, 0.0], d),
        [-10.0, 0.0, 0.0],
        1e-5,
    );
    // rz = ±90°: a roll about the view axis does not move the eye …
    assert_v(
        camera::eye_position([0.0; 3], [0.0, 0.0, q], d),
        [0.0, 0.0, -10.0],
        1e-5,
    );
    assert_v(
        camera::eye_position([0.0; 3], [0.0, 0.0, -q], d),
        [0.0, 0.0, -10.0],
        1e-5,
    );
    // … but turns the up vector: Rz(−90°)(0,1,0) = (−1·sin(−90°), cos(−90°), 0) = (1, 0, 0).
    assert_v(camera::up_vector([0.0, 0.0, q]), [1.0, 0.0, 0.0], 1e-6);
    assert_v(camera::up_vector([0.0, 0.0, -q]), [-1.0, 0.0, 0.0], 1e-6);
}

#[test]
fn negative_and_positive_distance() {
    // MMD's default camera: target (0, 10, 0), distance −45 → eye (0, 10, −45),
    // in front of a model that faces −Z.
    assert_v(
        camera::eye_position([0.0, 10.0, 0.0], [0.0; 3], -45.0),
        [0.0, 10.0, -45.0],
        1e-5,
    );
    // A positive distance puts the eye behind the target.
    assert_v(
        camera::eye_position([0.0, 10.0, 0.0], [0.0; 3], 45.0),
        [0.0, 10.0, 45.0],
        1e-5,
    );
    // ry = 90° with d = +10: Ry(−90°)(0,0,10) = (−10, 0, 0).
    let q = std::f32::consts::FRAC_PI_2;
    assert_v(
        camera::eye_position([1.0, 2.0, 3.0], [0.0, q, 0.0], 10.0),
        [-9.0, 2.0, 3.0],
        1e-5,
    );
}

fn cam(frame: u32, distance: f32, target: [f32; 3], rot: [f32; 3], fov: u32) -> CameraKey {
    CameraKey::new(frame, distance, target, rot, fov, true)
}

#[test]
fn camera_cut_holds_the_earlier_key_at_every_sub_frame() {
    let mut m = Motion::new_v2();
    m.cameras = vec![
        cam(20, -30.0, [5.0, 5.0, 5.0], [0.0, 1.0, 0.0], 40), // stored out of order
        cam(10, -10.0, [0.0, 10.0, 0.0], [0.1, 0.2, 0.3], 30),
        cam(11, -50.0, [1.0, 2.0, 3.0], [0.5, 0.5, 0.5], 60),
    ];
    let idx = TrackIndex::build(&m);
    let a = evaluate::camera_at(&m, &idx, 10.0).unwrap_or_else(|| panic!("camera"));
    for f in [10.0, 10.001, 10.5, 10.999] {
        let s = evaluate::camera_at(&m, &idx, f).unwrap_or_else(|| panic!("camera"));
        assert_eq!(s, a, "frame {f} must equal key A exactly");
    }
    assert_eq!(a.distance, -10.0);
    assert_eq!(a.fov, 30.0);
    // Just after the cut, at B and between B and C: B → C interpolates (linear curves).
    let b = evaluate::camera_at(&m, &idx, 11.0).unwrap_or_else(|| panic!("camera"));
    assert_eq!((b.distance, b.fov), (-50.0, 60.0));
    let mid = evaluate::camera_at(&m, &idx, 15.5).unwrap_or_else(|| panic!("camera"));
    // (15.5 − 11) / 9 = 0.5: distance −40, fov 50, target (3, 3.5, 4).
    assert!(close(mid.distance.into(), -40.0, 1e-5) && close(mid.fov.into(), 50.0, 1e-5));
    assert_v(mid.target, [3.0, 3.5, 4.0], 1e-5);
    // The eye follows the interpolated parameters.
    assert_eq!(
        mid.eye,
        camera::eye_position(mid.target, mid.rotation, mid.distance)
    );
    // Cut counted after sorting: 10 → 11.
    let cuts = vmd::summary::cut_frames(&m, &idx);
    assert_eq!(cuts, vec![10]);
}

#[test]
fn camera_curves_per_item() {
    // Distance uses its own curve (ease-out), the target stays linear.
    let a = cam(0, 0.0, [0.0; 3], [0.0; 3], 30);
    let mut b = cam(10, -100.0, [10.0, 0.0, 0.0], [0.0; 3], 30);
    b.set_curve(CameraChannel::Distance, Curve::new(0, 127, 127, 127));
    let mut m = Motion::new_v2();
    m.cameras = vec![a, b];
    let idx = TrackIndex::build(&m);
    let s = evaluate::camera_at(&m, &idx, 5.0).unwrap_or_else(|| panic!("camera"));
    assert!(close(s.distance.into(), -87.5, 1e-4), "{}", s.distance);
    assert!(close(s.target[0].into(), 5.0, 1e-5));
}

#[test]
fn morph_and_light_are_linear_shadow_and_ik_hold() {
    let mut m = Motion::new_v2();
    let mk =
        |f, w| MorphKey::new("あ", NameEncoding::ShiftJis, f, w).unwrap_or_else(|e| panic!("{e}"));
    m.morphs = vec![mk(0, 0.0), mk(10, 1.0)];
    m.lights = vec![
        LightKey::new(0, [0.0, 0.5, 1.0], [-1.0, -1.0, 1.0]),
        LightKey::new(4, [1.0, 0.5, 0.0], [1.0, -1.0, -1.0]),
    ];
    m.shadows = vec![ShadowKey::new(0, 1, 0.1), ShadowKey::new(10, 0, 0.5)];
    let mut ik0 = IkKey::new(0, true);
    ik0.push_entry("右足ＩＫ", NameEncoding::ShiftJis, true)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut ik1 = IkKey::new(8, false);
    ik1.push_entry("右足ＩＫ", NameEncoding::ShiftJis, false)
        .unwrap_or_else(|e| panic!("{e}"));
    m.iks = vec![ik0, ik1];
    let idx = TrackIndex::build(&m);
    // Morph: 0 → 1 over 10 frames: frame 3 → 0.3, frame 7.5 → 0.75.
    assert!(close(
        evaluate::morph_at(&m, &idx.morphs[0], 3.0).into(),
        0.3,
        1e-6
    ));
    assert!(close(
        evaluate::morph_at(&m, &idx.morphs[0], 7.5).into(),
        0.75,
        1e-6
    ));
    // Light at frame 1 (x = 0.25): colour (0.25, 0.5, 0.75), direction (−0.5, −1, 0.5).
    let l = evaluate::light_at(&m, &idx, 1.0).unwrap_or_else(|| panic!("light"));
    assert_v(l.color, [0.25, 0.5, 0.75], 1e-6);
    assert_v(l.direction, [-0.5, -1.0, 0.5], 1e-6);
    // Self-shadow holds (1, 0.1) until frame 10.
    assert_eq!(evaluate::shadow_at(&m, &idx, 9.99), Some((1, 0.1)));
    assert_eq!(evaluate::shadow_at(&m, &idx, 10.0), Some((0, 0.5)));
    // IK holds: on until frame 8, off from 8.
    let on = |f| {
        evaluate::ik_at(&m, &idx, f)
            .and_then(|k| k.enabled_for(&[0x89, 0x45, 0x91, 0xab, 0x82, 0x68, 0x82, 0x6a]))
    };
    assert_eq!(on(7.9), Some(true));
    assert_eq!(on(8.0), Some(false));
    assert_eq!(
        evaluate::ik_at(&m, &idx, 100.0).map(IkKey::show),
        Some(false)
    );
}

#[test]
fn euler_round_trip_and_order() {
    // Y then X then Z: 90° yaw alone is a rotation about Y.
    let q = evaluate::quat_from_euler_deg([0.0, 90.0, 0.0]);
    assert_q(q, [0.0, (PI / 4.0).sin(), 0.0, (PI / 4.0).cos()], 1e-6);
    let e = evaluate::euler_deg_from_quat(evaluate::quat_from_euler_deg([10.0, 20.0, 30.0]));
    assert_v(e, [10.0, 20.0, 30.0], 1e-3);
}

// ================================================================ independent reference

/// Little-endian readers at absolute offsets (spec: all integers u32, reals f32).
fn ru32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn rf32(b: &[u8], at: usize) -> f64 {
    f64::from(f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]))
}

#[derive(Clone)]
struct RBone {
    frame: u32,
    pos: [f64; 3],
    rot: [f64; 4],
    /// Curves per channel X, Y, Z, R as (x1, y1, x2, y2) bytes.
    curves: [[u8; 4]; 4],
}
#[derive(Clone)]
struct RCam {
    frame: u32,
    dist: f64,
    target: [f64; 3],
    rot: [f64; 3],
    /// Items target X, Y, Z, rotation, distance, fov as (x1, y1, x2, y2).
    curves: [[u8; 4]; 6],
    fov: f64,
}
#[derive(Clone)]
struct RMorph {
    frame: u32,
    w: f64,
}

#[derive(Default)]
struct RFile {
    bones: HashMap<Vec<u8>, Vec<RBone>>,
    morphs: HashMap<Vec<u8>, Vec<RMorph>>,
    cams: Vec<RCam>,
}

fn key_name(field: &[u8]) -> Vec<u8> {
    field.iter().take_while(|&&b| b != 0).copied().collect()
}

/// Row selection per the spec: channel c from row c (x1 = b[16c],
/// y1 = b[16c+4], x2 = b[16c+8], y2 = b[16c+12]); when bytes 16–63 are all
/// zero, every channel from row 0 (X 0/4/8/12, Y 1/5/9/13, Z 2/6/10/14,
/// R 3/7/11/15). Bytes 2–3 are never read as curve data in a full block.
fn ref_bone_curves(b: &[u8]) -> [[u8; 4]; 4] {
    let row0_only = b[16..64].iter().all(|&x| x == 0);
    std::array::from_fn(|c| {
        if row0_only {
            [b[c], b[c + 4], b[c + 8], b[c + 12]]
        } else {
            [b[16 * c], b[16 * c + 4], b[16 * c + 8], b[16 * c + 12]]
        }
    })
}

/// Parses a VMD at the spec offsets. Panics on malformed input (test only).
fn ref_parse(b: &[u8]) -> RFile {
    let v1 = &b[..25] == b"Vocaloid Motion Data file";
    let mut o = 30 + if v1 { 10 } else { 20 };
    let mut f = RFile::default();
    // Bones: 111 bytes each.
    if b.len() - o < 4 {
        return f;
    }
    let n = ru32(b, o) as usize;
    o += 4;
    for _ in 0..n {
        let r = &b[o..o + 111];
        f.bones.entry(key_name(&r[..15])).or_default().push(RBone {
            frame: ru32(r, 15),
            pos: [rf32(r, 19), rf32(r, 23), rf32(r, 27)],
            rot: [rf32(r, 31), rf32(r, 35), rf32(r, 39), rf32(r, 43)],
            curves: ref_bone_curves(&r[47..111]),
        });
        o += 111;
    }
    // Morphs: 23 bytes each.
    if b.len() - o < 4 {
        return f;
    }
    let n = ru32(b, o) as usize;
    o += 4;
    for _ in 0..n {
        let r = &b[o..o + 23];
        f.morphs
            .entry(key_name(&r[..15]))
            .or_default()
            .push(RMorph {
                frame: ru32(r, 15),
                w: rf32(r, 19),
            });
        o += 23;
    }
    // Cameras: 61 bytes each; curves are 6 × (x1, x2, y1, y2).
    if b.len() - o < 4 {
        return f;
    }
    let n = ru32(b, o) as usize;
    o += 4;
    for _ in 0..n {
        let r = &b[o..o + 61];
        let ip = &r[32..56];
        f.cams.push(RCam {
            frame: ru32(r, 0),
            dist: rf32(r, 4),
            target: [rf32(r, 8), rf32(r, 12), rf32(r, 16)],
            rot: [rf32(r, 20), rf32(r, 24), rf32(r, 28)],
            curves: std::array::from_fn(|i| {
                [ip[4 * i], ip[4 * i + 2], ip[4 * i + 1], ip[4 * i + 3]]
            }),
            fov: f64::from(ru32(r, 56)),
        });
        o += 61;
    }
    f
}

/// Cubic Bézier coordinate with end points 0 and 1.
fn bz(p1: f64, p2: f64, t: f64) -> f64 {
    let s = 1.0 - t;
    3.0 * s * s * t * p1 + 3.0 * s * t * t * p2 + t * t * t
}

/// Curve weight at x by plain bisection on t (100 halvings: exact in f64).
fn ref_weight(c: [u8; 4], x: f64) -> f64 {
    let f = |v: u8| f64::from(v.min(127)) / 127.0;
    let (x1, y1, x2, y2) = (f(c[0]), f(c[1]), f(c[2]), f(c[3]));
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if bz(x1, x2, mid) < x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    bz(y1, y2, 0.5 * (lo + hi))
}

fn norm4(q: [f64; 4]) -> [f64; 4] {
    let l = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    if l > 1e-12 && l.is_finite() {
        q.map(|v| v / l)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Slerp on the shorter arc, textbook formula in f64.
fn ref_slerp(a: [f64; 4], b: [f64; 4], w: f64) -> [f64; 4] {
    let a = norm4(a);
    let mut b = norm4(b);
    let mut d: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    if d < 0.0 {
        b = b.map(|v| -v);
        d = -d;
    }
    let d = d.min(1.0);
    let th = d.acos();
    if th < 1e-9 {
        return norm4(std::array::from_fn(|i| a[i] + (b[i] - a[i]) * w));
    }
    let (sa, sb) = (((1.0 - w) * th).sin() / th.sin(), (w * th).sin() / th.sin());
    std::array::from_fn(|i| sa * a[i] + sb * b[i])
}

/// Sorted by frame; for equal frames the last key in file order is kept.
fn dedup_sorted<T: Clone>(keys: &[T], frame: impl Fn(&T) -> u32) -> Vec<T> {
    let mut by: std::collections::BTreeMap<u32, T> = std::collections::BTreeMap::new();
    for k in keys {
        by.insert(frame(k), k.clone()); // later keys overwrite earlier ones
    }
    by.into_values().collect()
}

/// Segment lookup: (A, B, x) between keys, or (K, K, 0) on/outside the keys.
fn segment<T: Clone>(keys: &[T], frame: impl Fn(&T) -> u32, f: f64) -> (T, T, f64) {
    let first = &keys[0];
    if f <= f64::from(frame(first)) {
        return (first.clone(), first.clone(), 0.0);
    }
    for w in keys.windows(2) {
        let (fa, fb) = (f64::from(frame(&w[0])), f64::from(frame(&w[1])));
        if f >= fa && f < fb {
            if f == fa {
                return (w[0].clone(), w[0].clone(), 0.0);
            }
            return (w[0].clone(), w[1].clone(), (f - fa) / (fb - fa));
        }
    }
    let last = &keys[keys.len() - 1];
    (last.clone(), last.clone(), 0.0)
}

/// |got − want| ≤ 1e-5 · |B − A| + eps (eps: a few f32 ulps of the values).
fn check(what: &str, got: f64, want: f64, a: f64, b: f64) {
    let eps = 4.0 * f64::from(f32::EPSILON) * a.abs().max(b.abs()).max(want.abs()) + 1e-9;
    let tol = 1e-5 * (b - a).abs() + eps;
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, reference {want}, |diff| {} > tol {tol} (A {a}, B {b})",
        (got - want).abs()
    );
}

fn ref_eye(target: [f64; 3], r: [f64; 3], d: f64) -> [f64; 3] {
    // v = (0, 0, d); Rz(−rz), then Rx(−rx), then Ry(−ry) (right-hand rule).
    let (x, y, z) = (0.0, 0.0, d);
    let g = -r[2];
    let (x, y) = (x * g.cos() - y * g.sin(), x * g.sin() + y * g.cos());
    let a = -r[0];
    let (y, z) = (y * a.cos() - z * a.sin(), y * a.sin() + z * a.cos());
    let b = -r[1];
    let (x, z) = (x * b.cos() + z * b.sin(), -x * b.sin() + z * b.cos());
    [target[0] + x, target[1] + y, target[2] + z]
}

/// Frames to test: integers with `stride`, fractions, and points just after keys.
fn frames(last: u32, stride: u32, key_frames: &[u32]) -> Vec<f64> {
    let mut v = Vec::new();
    let mut f = 0;
    while f <= last + 2 {
        for frac in [0.0, 0.001, 0.25, 0.5, 0.77, 0.999] {
            v.push(f64::from(f) + frac);
        }
        f += stride;
    }
    for &k in key_frames.iter().step_by(7) {
        for frac in [0.0, 0.0001, 0.3, 0.5, 0.9] {
            v.push(f64::from(k) + frac);
        }
    }
    v
}

/// Compares `vmd::evaluate::sample` with the reference on one corpus file.
fn compare_file(name: &str, stride: u32) -> usize {
    let Some(dir) = corpus() else { return 0 };
    let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let m = vmd::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let idx = TrackIndex::build(&m);
    let r = ref_parse(&bytes);
    let bones: HashMap<Vec<u8>, Vec<RBone>> = r
        .bones
        .iter()
        .map(|(k, v)| (k.clone(), dedup_sorted(v, |b| b.frame)))
        .collect();
    let morphs: HashMap<Vec<u8>, Vec<RMorph>> = r
        .morphs
        .iter()
        .map(|(k, v)| (k.clone(), dedup_sorted(v, |b| b.frame)))
        .collect();
    let cams = dedup_sorted(&r.cams, |c| c.frame);
    assert_eq!(idx.bones.len(), bones.len(), "{name}: bone tracks");
    assert_eq!(idx.morphs.len(), morphs.len(), "{name}: morph tracks");
    let mut key_frames: Vec<u32> = r
        .bones
        .values()
        .flatten()
        .map(|b| b.frame)
        .chain(r.cams.iter().map(|c| c.frame))
        .collect();
    key_frames.sort();
    key_frames.dedup();
    let last = key_frames.last().copied().unwrap_or(0);
    let mut checks = 0;
    // The evaluation cache (random access and the playback cursor, fed the
    // frames below out of order) is held to the same tolerance as `sample`.
    let cache = vmd::EvalCache::build(&m, &idx);
    let mut head = vmd::Playhead::default();
    let (mut cached, mut playing) = (Vec::new(), Vec::new());
    for f in frames(last, stride, &key_frames) {
        let s = evaluate::sample(&m, &idx, f);
        cache.sample_bones_into(f, &mut cached);
        cache.sample_bones_playing(&mut head, f, &mut playing);
        assert_eq!(
            cached, playing,
            "{name} f{f}: playhead differs from random access"
        );
        let mut cached_morphs = Vec::new();
        cache.sample_morphs_into(f, &mut cached_morphs);
        assert_eq!(cached_morphs.len(), s.morphs.len());
        for (via, poses) in [("sample", &s.bones), ("cache", &cached)] {
            for (t, got) in idx.bones.iter().zip(poses) {
                let keys = &bones[&t.name_key];
                let (a, b, x) = segment(keys, |k| k.frame, f);
                for axis in 0..3 {
                    let w = ref_weight(b.curves[axis], x);
                    let want = a.pos[axis] + (b.pos[axis] - a.pos[axis]) * w;
                    check(
                        &format!("{name} {via} f{f} bone {:?} pos[{axis}]", t.name().text),
                        got.position[axis].into(),
                        want,
                        a.pos[axis],
                        b.pos[axis],
                    );
                }
                let (qa, mut qb) = (norm4(a.rot), norm4(b.rot));
                if (0..4).map(|i| qa[i] * qb[i]).sum::<f64>() < 0.0 {
                    qb = qb.map(|v| -v);
                }
                let want = if x == 0.0 {
                    a.rot
                } else {
                    ref_slerp(a.rot, b.rot, ref_weight(b.curves[3], x))
                };
                // |B − A| for a rotation: the chord between the two unit quaternions.
                let chord = (0..4).map(|i| (qb[i] - qa[i]).powi(2)).sum::<f64>().sqrt();
                for i in 0..4 {
                    // Quaternion components are ≤ 1: eps of a few f32 ulps at 1.0.
                    let tol = 1e-5 * chord + 4.0 * f64::from(f32::EPSILON);
                    let g = f64::from(got.rotation[i]);
                    assert!(
                        (g - want[i]).abs() <= tol,
                        "{name} {via} f{f} bone {:?} rot[{i}]: got {:?} want {want:?} tol {tol}",
                        t.name().text,
                        got.rotation
                    );
                }
                checks += 1;
            }
        }
        for (via, morphs_got) in [("sample", &s.morphs), ("cache", &cached_morphs)] {
            for (t, got) in idx.morphs.iter().zip(morphs_got) {
                let (a, b, x) = segment(&morphs[&t.name_key], |k| k.frame, f);
                check(
                    &format!("{name} {via} f{f} morph {:?}", t.name().text),
                    (*got).into(),
                    a.w + (b.w - a.w) * x,
                    a.w,
                    b.w,
                );
                checks += 1;
            }
        }
        if !cams.is_empty() {
            let got = s.camera.unwrap_or_else(|| panic!("{name}: camera missing"));
            let (a, b, x) = segment(&cams, |c| c.frame, f);
            // A cut: keys exactly one frame apart hold A.
            let (b, x) = if b.frame == a.frame + 1 {
                (a.clone(), 0.0)
            } else {
                (b, x)
            };
            let w = |i: usize| {
                if x == 0.0 {
                    0.0
                } else {
                    ref_weight(b.curves[i], x)
                }
            };
            let lerp = |p: f64, q: f64, w: f64| p + (q - p) * w;
            let target: [f64; 3] = std::array::from_fn(|i| lerp(a.target[i], b.target[i], w(i)));
            let rot: [f64; 3] = std::array::from_fn(|i| lerp(a.rot[i], b.rot[i], w(3)));
            let dist = lerp(a.dist, b.dist, w(4));
            let fov = lerp(a.fov, b.fov, w(5));
            for i in 0..3 {
                check(
                    &format!("{name} f{f} camera target[{i}]"),
                    got.target[i].into(),
                    target[i],
                    a.target[i],
                    b.target[i],
                );
                check(
                    &format!("{name} f{f} camera rotation[{i}]"),
                    got.rotation[i].into(),
                    rot[i],
                    a.rot[i],
                    b.rot[i],
                );
            }
            check(
                &format!("{name} f{f} camera distance"),
                got.distance.into(),
                dist,
                a.dist,
                b.dist,
            );
            check(
                &format!("{name} f{f} camera fov"),
                got.fov.into(),
                fov,
                a.fov,
                b.fov,
            );
            // Eye: bounded by how far the parameters move; |∂eye| ≤ |Δtarget| + |d|·|Δrot| + |Δd|.
            let eye = ref_eye(target, rot, dist);
            let dt: f64 = (0..3).map(|i| (b.target[i] - a.target[i]).abs()).sum();
            let dr: f64 = (0..3).map(|i| (b.rot[i] - a.rot[i]).abs()).sum();
            let change = dt + a.dist.abs().max(b.dist.abs()) * dr + (b.dist - a.dist).abs();
            let scale = eye.iter().map(|v| v.abs()).fold(dist.abs(), f64::max);
            let tol = 1e-5 * change + 8.0 * f64::from(f32::EPSILON) * scale + 1e-9;
            for (i, (g, want)) in got.eye.iter().zip(eye).enumerate() {
                let g = f64::from(*g);
                assert!(
                    (g - want).abs() <= tol,
                    "{name} f{f} camera eye[{i}]: got {g} want {want} tol {tol}"
                );
            }
            checks += 1;
        }
    }
    checks
}

#[test]
fn sample_matches_the_reference_on_the_physics_flag_file() {
    // Rows 1–3 hold Z and rotation x1; bytes 2–3 are 63 0F on 9 keys.
    let n = compare_file("babylonmmd__physics_toggle_test_yyb10th.vmd", 1);
    assert!(n > 0 || corpus().is_none());
}

#[test]
fn sample_matches_the_reference_on_the_row0_only_file() {
    // Bytes 16–63 are zero in every key: all channels come from row 0.
    let n = compare_file("mcmmdrust__Drink.vmd", 1);
    assert!(n > 0 || corpus().is_none());
}

#[test]
fn sample_matches_the_reference_on_the_camera_file() {
    // 1693 keys stored out of order, 163 cuts.
    let n = compare_file("webmmd__GimmexGimme.vmd", 1);
    assert!(n > 0 || corpus().is_none());
}

#[test]
fn sample_matches_the_reference_on_the_other_motions() {
    for (name, stride) in [
        ("mmdagent__mei_wait.vmd", 1),
        ("mmdagent__mei_happiness.vmd", 1),
        ("unitymmdloader__mmt_test_model_test_motion.vmd", 1),
        ("vmdsizing__A_animasa_miku_a.vmd", 1),
        ("vmd2xml__camera.vmd", 1),
        ("nuekaze__motion.vmd", 97),
        ("webmmd__GimmeGimme_with_emotion.vmd", 101),
    ] {
        compare_file(name, stride);
    }
}
