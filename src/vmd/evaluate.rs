//! Values at any (fractional) frame, the way MMD evaluates them.
//!
//! * Bones: the segment A → B uses **B's** curves; position per axis with
//!   its own curve, rotation as a slerp weighted by the rotation curve.
//! * Morphs and lights: linear.
//! * Camera: per-item curves of B; the three Euler angles move together
//!   with the rotation curve; two keys exactly one frame apart are a cut and
//!   the earlier key holds for every sub-frame between them.
//! * Self-shadow and IK/show hold their last key.
//!
//! Before the first key a track holds its first key; after the last, its last.

use glam::{Quat, Vec3};

use super::bezier::Curve;
use super::camera;
use super::interpolation::{BoneChannel, CameraChannel};
use super::motion::Motion;
use super::records::{CameraKey, IkKey};
use super::track::{Bracket, Track, TrackIndex, bracket, bracket_track};

/// A bone's local pose: offset from rest (MMD units) and rotation (x, y, z, w).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BonePose {
    pub position: [f32; 3],
    pub rotation: [f32; 4],
}

impl Default for BonePose {
    fn default() -> Self {
        BonePose {
            position: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
        }
    }
}

/// The evaluated camera.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CameraState {
    pub target: [f32; 3],
    /// Euler angles x, y, z in radians.
    pub rotation: [f32; 3],
    pub distance: f32,
    /// Vertical field of view in degrees.
    pub fov: f32,
    pub perspective: bool,
    pub eye: [f32; 3],
}

/// The evaluated light.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LightState {
    pub color: [f32; 3],
    pub direction: [f32; 3],
}

/// Fraction of the way from frame `a` to frame `b` at `frame`.
fn fraction(a: u32, b: u32, frame: f64) -> f64 {
    let span = f64::from(b) - f64::from(a);
    if span <= 0.0 {
        return 1.0;
    }
    ((frame - f64::from(a)) / span).clamp(0.0, 1.0)
}

fn lerp(a: f32, b: f32, w: f64) -> f32 {
    (f64::from(a) + (f64::from(b) - f64::from(a)) * w) as f32
}

fn quat(q: [f32; 4]) -> Quat {
    let q = Quat::from_array(q);
    let len = q.length();
    if len.is_finite() && len > 1e-12 {
        q / len
    } else {
        Quat::IDENTITY
    }
}

/// `q` normalized in f64; identity for a zero, infinite or NaN quaternion.
fn unit64(q: [f32; 4]) -> [f64; 4] {
    let q = q.map(f64::from);
    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if len.is_finite() && len > 1e-12 {
        q.map(|v| v / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Slerp along the shorter arc with weight `w` (0..1), computed in f64.
///
/// With θ the angle between the unit quaternions (cos θ = a·b):
/// `a·sin((1−w)θ)/sin θ + b·sin(wθ)/sin θ`, using
/// sin((1−w)θ) = sin θ·cos(wθ) − cos θ·sin(wθ), so one `acos` and one
/// `sin_cos`. Below θ ≈ 4e-8 the (then exact to f64) linear blend is used.
pub fn slerp(a: [f32; 4], b: [f32; 4], w: f64) -> [f32; 4] {
    let qa = unit64(a);
    let mut qb = unit64(b);
    let mut d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
    if d < 0.0 {
        qb = qb.map(|v| -v);
        d = -d;
    }
    let (sa, sb) = if d >= 1.0 - 1e-15 {
        (1.0 - w, w)
    } else {
        let theta = d.acos();
        let sin_theta = (1.0 - d * d).sqrt();
        let (sw, cw) = (w * theta).sin_cos();
        (cw - d * sw / sin_theta, sw / sin_theta)
    };
    let r: [f64; 4] = std::array::from_fn(|i| sa * qa[i] + sb * qb[i]);
    let len = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]).sqrt();
    let len = if len > 0.0 { len } else { 1.0 };
    r.map(|v| (v / len) as f32)
}

/// A bone track's pose at `frame`.
pub fn bone_at(m: &Motion, track: &Track, frame: f64) -> BonePose {
    let b = bracket_track(track, frame)
        .unwrap_or_else(|| bracket(&track.keys, frame, |i| m.bones[i as usize].frame()));
    match b {
        Bracket::Empty => BonePose::default(),
        Bracket::Hold(i) => {
            let k = &m.bones[i as usize];
            BonePose {
                position: k.position(),
                rotation: k.rotation(),
            }
        }
        Bracket::Between(a, b) => {
            let (ka, kb) = (&m.bones[a as usize], &m.bones[b as usize]);
            let t = fraction(ka.frame(), kb.frame(), frame);
            let w = Curve::weights(&kb.curves(), t);
            let (pa, pb) = (ka.position(), kb.position());
            let position = std::array::from_fn(|axis| lerp(pa[axis], pb[axis], w[axis]));
            let rotation = slerp(
                ka.rotation(),
                kb.rotation(),
                w[BoneChannel::Rotation.index()],
            );
            BonePose { position, rotation }
        }
    }
}

/// A morph track's weight at `frame` (linear).
pub fn morph_at(m: &Motion, track: &Track, frame: f64) -> f32 {
    let b = bracket_track(track, frame)
        .unwrap_or_else(|| bracket(&track.keys, frame, |i| m.morphs[i as usize].frame()));
    match b {
        Bracket::Empty => 0.0,
        Bracket::Hold(i) => m.morphs[i as usize].weight(),
        Bracket::Between(a, b) => {
            let (ka, kb) = (&m.morphs[a as usize], &m.morphs[b as usize]);
            lerp(
                ka.weight(),
                kb.weight(),
                fraction(ka.frame(), kb.frame(), frame),
            )
        }
    }
}

fn camera_state_of(k: &CameraKey) -> CameraState {
    CameraState {
        target: k.target(),
        rotation: k.rotation(),
        distance: k.distance(),
        fov: k.fov() as f32,
        perspective: k.perspective(),
        eye: camera::eye_position(k.target(), k.rotation(), k.distance()),
    }
}

/// True when the camera segment A → B is a cut (exactly one frame apart).
pub fn is_cut(a_frame: u32, b_frame: u32) -> bool {
    b_frame.checked_sub(a_frame) == Some(1)
}

/// The camera at `frame`, or `None` without camera keys.
pub fn camera_at(m: &Motion, idx: &TrackIndex, frame: f64) -> Option<CameraState> {
    match bracket(&idx.camera, frame, |i| m.cameras[i as usize].frame()) {
        Bracket::Empty => None,
        Bracket::Hold(i) => Some(camera_state_of(&m.cameras[i as usize])),
        Bracket::Between(a, b) => {
            let (ka, kb) = (&m.cameras[a as usize], &m.cameras[b as usize]);
            if is_cut(ka.frame(), kb.frame()) {
                return Some(camera_state_of(ka));
            }
            let t = fraction(ka.frame(), kb.frame(), frame);
            let ws = Curve::weights(&kb.curves(), t);
            let w = |c: CameraChannel| ws[c.index()];
            let (ta, tb) = (ka.target(), kb.target());
            let target = [
                lerp(ta[0], tb[0], w(CameraChannel::TargetX)),
                lerp(ta[1], tb[1], w(CameraChannel::TargetY)),
                lerp(ta[2], tb[2], w(CameraChannel::TargetZ)),
            ];
            let wr = w(CameraChannel::Rotation);
            let (ra, rb) = (ka.rotation(), kb.rotation());
            let rotation = std::array::from_fn(|i| lerp(ra[i], rb[i], wr));
            let distance = lerp(ka.distance(), kb.distance(), w(CameraChannel::Distance));
            let fov = lerp(ka.fov() as f32, kb.fov() as f32, w(CameraChannel::Fov));
            Some(CameraState {
                target,
                rotation,
                distance,
                fov,
                perspective: ka.perspective(),
                eye: camera::eye_position(target, rotation, distance),
            })
        }
    }
}

/// The light at `frame` (linear), or `None` without light keys.
pub fn light_at(m: &Motion, idx: &TrackIndex, frame: f64) -> Option<LightState> {
    let of = |i: u32| {
        let k = &m.lights[i as usize];
        LightState {
            color: k.color(),
            direction: k.direction(),
        }
    };
    match bracket(&idx.light, frame, |i| m.lights[i as usize].frame()) {
        Bracket::Empty => None,
        Bracket::Hold(i) => Some(of(i)),
        Bracket::Between(a, b) => {
            let t = fraction(
                m.lights[a as usize].frame(),
                m.lights[b as usize].frame(),
                frame,
            );
            let (la, lb) = (of(a), of(b));
            Some(LightState {
                color: std::array::from_fn(|i| lerp(la.color[i], lb.color[i], t)),
                direction: std::array::from_fn(|i| lerp(la.direction[i], lb.direction[i], t)),
            })
        }
    }
}

fn hold(keys: &[u32], frame: f64, frame_of: impl Fn(u32) -> u32) -> Option<u32> {
    // Last key at or before `frame`; before the first key, the first.
    match bracket(keys, frame, frame_of) {
        Bracket::Empty => None,
        Bracket::Hold(i) | Bracket::Between(i, _) => Some(i),
    }
}

/// Self-shadow (mode, distance) held from the last key.
pub fn shadow_at(m: &Motion, idx: &TrackIndex, frame: f64) -> Option<(u8, f32)> {
    hold(&idx.shadow, frame, |i| m.shadows[i as usize].frame()).map(|i| {
        let k = &m.shadows[i as usize];
        (k.mode(), k.distance())
    })
}

/// The IK/show key in force at `frame`.
pub fn ik_at<'a>(m: &'a Motion, idx: &TrackIndex, frame: f64) -> Option<&'a IkKey> {
    hold(&idx.ik, frame, |i| m.iks[i as usize].frame()).map(|i| &m.iks[i as usize])
}

/// Everything at one frame. `bones[i]` belongs to `idx.bones[i]`, `morphs[i]` to `idx.morphs[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub frame: f64,
    pub bones: Vec<BonePose>,
    pub morphs: Vec<f32>,
    pub camera: Option<CameraState>,
    pub light: Option<LightState>,
}

/// Evaluates every track at `frame`.
pub fn sample(m: &Motion, idx: &TrackIndex, frame: f64) -> Sample {
    Sample {
        frame,
        bones: idx.bones.iter().map(|t| bone_at(m, t, frame)).collect(),
        morphs: idx.morphs.iter().map(|t| morph_at(m, t, frame)).collect(),
        camera: camera_at(m, idx, frame),
        light: light_at(m, idx, frame),
    }
}

/// Fills `out` with every bone's pose at `frame` without allocating.
pub fn sample_bones_into(m: &Motion, idx: &TrackIndex, frame: f64, out: &mut Vec<BonePose>) {
    out.clear();
    out.extend(idx.bones.iter().map(|t| bone_at(m, t, frame)));
}

/// Angle in radians of a rotation quaternion about its own axis.
pub fn rotation_angle(q: [f32; 4]) -> f32 {
    let q = quat(q);
    2.0 * q.w.abs().clamp(0.0, 1.0).acos()
}

/// A quaternion from the Euler angles MMD's bone panel shows (degrees,
/// applied Y, then X, then Z — yaw, pitch, roll).
pub fn quat_from_euler_deg(e: [f32; 3]) -> [f32; 4] {
    let [x, y, z] = e.map(f32::to_radians);
    (Quat::from_rotation_y(y) * Quat::from_rotation_x(x) * Quat::from_rotation_z(z)).to_array()
}

/// The inverse of [`quat_from_euler_deg`].
pub fn euler_deg_from_quat(q: [f32; 4]) -> [f32; 3] {
    let (y, x, z) = quat(q).to_euler(glam::EulerRot::YXZ);
    [x.to_degrees(), y.to_degrees(), z.to_degrees()]
}

/// Weight of `curve` at time fraction `t` (re-exported for the GUI graphs).
pub fn curve_weight(curve: Curve, t: f64) -> f64 {
    curve.weight(t)
}

/// Length-normalized direction helper for lights.
pub fn normalized(v: [f32; 3]) -> [f32; 3] {
    Vec3::from(v).normalize_or_zero().to_array()
}
