//! The value graph's data: a bone or camera track's channel values over
//! time, each segment's VMD curve as two handles in (frame, value) space,
//! and the inverse — a handle moved in the graph → the 0..=127 bytes the
//! curve box would write.
//!
//! Units: frames are MMD frames (30 per second); positions, targets and
//! distances are MMD units; angles are degrees; the field of view is
//! degrees.
//!
//! Bone rotation is shown as Euler angles in MMD's bone-panel order
//! ([`crate::vmd::evaluate::euler_deg_from_quat`]: applied Y, then X, then
//! Z — glam's `EulerRot::YXZ`). One curve drives the whole rotation (a
//! slerp weight), so a rotation handle is placed on each Euler graph at the
//! same fractions of the segment's time and of its Euler change; the bytes
//! depend only on those fractions, so moving the handle on any of the
//! three graphs writes the same bytes. Camera angles interpolate as Euler
//! angles themselves, so their handles are exact.
//!
//! Segment A → B is shaped by **B's** curve (MMD's rule): its handles edit
//! B's bytes. The edit goes through the curve editor's own byte path
//! ([`crate::vmd::curve_edit::plan_bone_curve`] / `plan_camera_curve`), so
//! only the four bytes of that channel (and their copies in the block)
//! change.

use crate::vmd::curve_edit::{
    BoneBlockChange, CameraBlockChange, CurveEditError, plan_bone_curve, plan_camera_curve,
};
use crate::vmd::evaluate::{bone_at, camera_at, euler_deg_from_quat, is_cut, quat_from_euler_deg};
use crate::vmd::{
    BoneChannel, BoneKey, CameraChannel, CameraKey, Curve, Motion, Track, TrackIndex,
};

/// A plotted value of a bone track.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoneValue {
    X,
    Y,
    Z,
    /// Euler angle about X, degrees (YXZ order).
    RotX,
    /// Euler angle about Y, degrees.
    RotY,
    /// Euler angle about Z, degrees.
    RotZ,
}

impl BoneValue {
    pub const ALL: [BoneValue; 6] = [
        BoneValue::X,
        BoneValue::Y,
        BoneValue::Z,
        BoneValue::RotX,
        BoneValue::RotY,
        BoneValue::RotZ,
    ];

    /// The interpolation curve that shapes this value.
    pub fn channel(self) -> BoneChannel {
        match self {
            BoneValue::X => BoneChannel::X,
            BoneValue::Y => BoneChannel::Y,
            BoneValue::Z => BoneChannel::Z,
            _ => BoneChannel::Rotation,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            BoneValue::X => "X move",
            BoneValue::Y => "Y move",
            BoneValue::Z => "Z move",
            BoneValue::RotX => "Rotation X (°)",
            BoneValue::RotY => "Rotation Y (°)",
            BoneValue::RotZ => "Rotation Z (°)",
        }
    }

    fn of(self, position: [f32; 3], rotation: [f32; 4]) -> f64 {
        let e = || euler_deg_from_quat(rotation);
        f64::from(match self {
            BoneValue::X => position[0],
            BoneValue::Y => position[1],
            BoneValue::Z => position[2],
            BoneValue::RotX => e()[0],
            BoneValue::RotY => e()[1],
            BoneValue::RotZ => e()[2],
        })
    }

    fn is_angle(self) -> bool {
        matches!(self, BoneValue::RotX | BoneValue::RotY | BoneValue::RotZ)
    }
}

/// A plotted value of the camera track.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CameraValue {
    TargetX,
    TargetY,
    TargetZ,
    /// Camera angle about X, degrees.
    RotX,
    /// Camera angle about Y, degrees.
    RotY,
    /// Camera angle about Z, degrees.
    RotZ,
    /// Distance from the target (MMD stores it negative in front).
    Distance,
    /// Vertical field of view, degrees.
    Fov,
}

impl CameraValue {
    pub const ALL: [CameraValue; 8] = [
        CameraValue::TargetX,
        CameraValue::TargetY,
        CameraValue::TargetZ,
        CameraValue::RotX,
        CameraValue::RotY,
        CameraValue::RotZ,
        CameraValue::Distance,
        CameraValue::Fov,
    ];

    /// The interpolation curve that shapes this value.
    pub fn channel(self) -> CameraChannel {
        match self {
            CameraValue::TargetX => CameraChannel::TargetX,
            CameraValue::TargetY => CameraChannel::TargetY,
            CameraValue::TargetZ => CameraChannel::TargetZ,
            CameraValue::RotX | CameraValue::RotY | CameraValue::RotZ => CameraChannel::Rotation,
            CameraValue::Distance => CameraChannel::Distance,
            CameraValue::Fov => CameraChannel::Fov,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            CameraValue::TargetX => "Target X",
            CameraValue::TargetY => "Target Y",
            CameraValue::TargetZ => "Target Z",
            CameraValue::RotX => "Angle X (°)",
            CameraValue::RotY => "Angle Y (°)",
            CameraValue::RotZ => "Angle Z (°)",
            CameraValue::Distance => "Distance",
            CameraValue::Fov => "Field of view (°)",
        }
    }

    fn of(self, target: [f32; 3], rotation: [f32; 3], distance: f32, fov: f32) -> f64 {
        match self {
            CameraValue::TargetX => f64::from(target[0]),
            CameraValue::TargetY => f64::from(target[1]),
            CameraValue::TargetZ => f64::from(target[2]),
            CameraValue::RotX => f64::from(rotation[0]).to_degrees(),
            CameraValue::RotY => f64::from(rotation[1]).to_degrees(),
            CameraValue::RotZ => f64::from(rotation[2]).to_degrees(),
            CameraValue::Distance => f64::from(distance),
            CameraValue::Fov => f64::from(fov),
        }
    }
}

/// `value` of a bone key (degrees for angles, as plotted).
pub fn bone_value(value: BoneValue, key: &BoneKey) -> f64 {
    value.of(key.position(), key.rotation())
}

/// `value` of a camera key (degrees for angles, as plotted).
pub fn camera_value(value: CameraValue, key: &CameraKey) -> f64 {
    value.of(
        key.target(),
        key.rotation(),
        key.distance(),
        key.fov() as f32,
    )
}

/// `key` with `value` set to `v` (a key dragged in the graph): a move axis
/// sets that position component; an Euler angle recomposes the rotation
/// from the key's Euler angles with that one replaced (YXZ order). Only the
/// position or rotation bytes change; a non-finite `v` changes nothing.
pub fn bone_key_with_value(key: &BoneKey, value: BoneValue, v: f64) -> BoneKey {
    let mut k = *key;
    if !v.is_finite() {
        return k;
    }
    let v = v as f32;
    let mut p = k.position();
    match value {
        BoneValue::X => p[0] = v,
        BoneValue::Y => p[1] = v,
        BoneValue::Z => p[2] = v,
        _ => {
            let mut e = euler_deg_from_quat(k.rotation());
            let i = match value {
                BoneValue::RotX => 0,
                BoneValue::RotY => 1,
                _ => 2,
            };
            e[i] = v;
            k.set_rotation(quat_from_euler_deg(e));
            return k;
        }
    }
    k.set_position(p);
    k
}

/// `key` with `value` set to `v` (degrees for angles and the field of
/// view, which is rounded to a whole degree and kept at 1..=180).
pub fn camera_key_with_value(key: &CameraKey, value: CameraValue, v: f64) -> CameraKey {
    let mut k = *key;
    if !v.is_finite() {
        return k;
    }
    let mut t = k.target();
    let mut r = k.rotation();
    match value {
        CameraValue::TargetX => t[0] = v as f32,
        CameraValue::TargetY => t[1] = v as f32,
        CameraValue::TargetZ => t[2] = v as f32,
        CameraValue::RotX => r[0] = v.to_radians() as f32,
        CameraValue::RotY => r[1] = v.to_radians() as f32,
        CameraValue::RotZ => r[2] = v.to_radians() as f32,
        CameraValue::Distance => k.set_distance(v as f32),
        CameraValue::Fov => k.set_fov(v.round().clamp(1.0, 180.0) as u32),
    }
    if t != k.target() {
        k.set_target(t);
    }
    if r != k.rotation() {
        k.set_rotation(r);
    }
    k
}

/// Which handle of a segment: the curve's first (x1, y1) or second
/// (x2, y2) control point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Handle {
    First,
    Second,
}

/// One segment A → B of a track in the graph.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// Index of key A (into `Motion::bones` or `Motion::cameras`).
    pub from_key: usize,
    /// Index of key B: the key whose curve shapes the segment and whose
    /// bytes its handles edit.
    pub to_key: usize,
    /// (frame, value) of A and of B.
    pub from: [f64; 2],
    pub to: [f64; 2],
    /// B's curve for this value's channel.
    pub curve: Curve,
    /// The curve's control points in (frame, value) space:
    /// A + (x/127 · Δframe, y/127 · Δvalue).
    pub handles: [[f64; 2]; 2],
    /// A camera cut (keys one frame apart): the value jumps, the curve
    /// does nothing.
    pub cut: bool,
}

impl Segment {
    fn new(
        from_key: usize,
        to_key: usize,
        from: [f64; 2],
        to: [f64; 2],
        curve: Curve,
        cut: bool,
    ) -> Segment {
        let ((x1, y1), (x2, y2)) = curve.unit_points();
        let place = |x: f64, y: f64| {
            [
                from[0] + x * (to[0] - from[0]),
                from[1] + y * (to[1] - from[1]),
            ]
        };
        Segment {
            from_key,
            to_key,
            from,
            to,
            curve,
            handles: [place(x1, y1), place(x2, y2)],
            cut,
        }
    }

    /// The curve after moving handle `which` to `at` = (frame, value): each
    /// coordinate as a fraction of the segment, rounded to the nearest of
    /// 0..=127 and clamped, as the curve box does with a drag. A segment
    /// whose value does not change (Δvalue = 0) keeps the handle's y.
    pub fn curve_with(&self, which: Handle, at: [f64; 2]) -> Curve {
        let q = |v: f64, a: f64, b: f64, keep: u8| {
            let span = b - a;
            let f = (v - a) / span;
            if span.abs() < 1e-12 || !f.is_finite() {
                keep
            } else {
                (f * 127.0).round().clamp(0.0, 127.0) as u8
            }
        };
        let mut c = self.curve;
        match which {
            Handle::First => {
                c.x1 = q(at[0], self.from[0], self.to[0], c.x1);
                c.y1 = q(at[1], self.from[1], self.to[1], c.y1);
            }
            Handle::Second => {
                c.x2 = q(at[0], self.from[0], self.to[0], c.x2);
                c.y2 = q(at[1], self.from[1], self.to[1], c.y2);
            }
        }
        c
    }
}

/// `v` moved by whole turns to be nearest `near` (degrees).
fn unwrap_deg(v: f64, near: f64) -> f64 {
    v - 360.0 * ((v - near) / 360.0).round()
}

/// Distinct-frame key pairs of a sorted key list: (A, B) for each B with
/// the last key of the previous frame as A (duplicates on one frame: the
/// later in the file wins, as in evaluation).
fn pairs(keys: &[u32], frame_of: impl Fn(u32) -> u32) -> Vec<(u32, u32)> {
    let mut last: Vec<u32> = Vec::with_capacity(keys.len());
    for &k in keys {
        match last.last_mut() {
            Some(p) if frame_of(*p) == frame_of(k) => *p = k,
            _ => last.push(k),
        }
    }
    last.windows(2).map(|w| (w[0], w[1])).collect()
}

/// The segments of a bone track for `value`, in frame order.
pub fn bone_segments(m: &Motion, track: &Track, value: BoneValue) -> Vec<Segment> {
    let ch = value.channel();
    pairs(&track.keys, |i| {
        m.bones.get(i as usize).map_or(0, |k| k.frame())
    })
    .into_iter()
    .filter_map(|(a, b)| {
        let (ka, kb) = (m.bones.get(a as usize)?, m.bones.get(b as usize)?);
        let va = value.of(ka.position(), ka.rotation());
        let mut vb = value.of(kb.position(), kb.rotation());
        if value.is_angle() {
            vb = unwrap_deg(vb, va);
        }
        Some(Segment::new(
            a as usize,
            b as usize,
            [f64::from(ka.frame()), va],
            [f64::from(kb.frame()), vb],
            kb.curve(ch),
            false,
        ))
    })
    .collect()
}

/// The camera's segments for `value`, in frame order.
pub fn camera_segments(m: &Motion, idx: &TrackIndex, value: CameraValue) -> Vec<Segment> {
    let ch = value.channel();
    pairs(&idx.camera, |i| {
        m.cameras.get(i as usize).map_or(0, |k| k.frame())
    })
    .into_iter()
    .filter_map(|(a, b)| {
        let (ka, kb) = (m.cameras.get(a as usize)?, m.cameras.get(b as usize)?);
        let of = |k: &crate::vmd::CameraKey| {
            value.of(k.target(), k.rotation(), k.distance(), k.fov() as f32)
        };
        Some(Segment::new(
            a as usize,
            b as usize,
            [f64::from(ka.frame()), of(ka)],
            [f64::from(kb.frame()), of(kb)],
            kb.curve(ch),
            is_cut(ka.frame(), kb.frame()),
        ))
    })
    .collect()
}

/// A value sampled over time: `points[i]` = (frame, value).
pub type Series = Vec<[f64; 2]>;

/// Samples per frame for a smooth plot, and the most frames a series spans.
const MAX_SERIES_FRAMES: u32 = 100_000;

fn sample_frames(first: u32, last: u32, per_frame: u32) -> impl Iterator<Item = f64> {
    let per = per_frame.clamp(1, 16);
    let last = last.min(first.saturating_add(MAX_SERIES_FRAMES));
    let n = u64::from(last.saturating_sub(first)) * u64::from(per);
    (0..=n).map(move |i| f64::from(first) + i as f64 / f64::from(per))
}

/// A bone track's `value` at `per_frame` samples per frame (1..=16) over
/// `first..=last` (at most 100 000 frames). Euler angles are unwrapped
/// (no 360° jumps between samples).
pub fn bone_series(
    m: &Motion,
    track: &Track,
    value: BoneValue,
    first: u32,
    last: u32,
    per_frame: u32,
) -> Series {
    let mut out: Series = Vec::new();
    for f in sample_frames(first, last, per_frame) {
        let p = bone_at(m, track, f);
        let mut v = value.of(p.position, p.rotation);
        if value.is_angle()
            && let Some(prev) = out.last()
        {
            v = unwrap_deg(v, prev[1]);
        }
        out.push([f, v]);
    }
    out
}

/// The camera's `value` sampled like [`bone_series`]; empty without
/// camera keys. Across a cut the series jumps (no sample lies between).
pub fn camera_series(
    m: &Motion,
    idx: &TrackIndex,
    value: CameraValue,
    first: u32,
    last: u32,
    per_frame: u32,
) -> Series {
    sample_frames(first, last, per_frame)
        .filter_map(|f| {
            let c = camera_at(m, idx, f)?;
            Some([f, value.of(c.target, c.rotation, c.distance, c.fov)])
        })
        .collect()
}

/// The bytes a handle drag writes on a bone track: `seg`'s handle `which`
/// moved to `at`, applied to B and to every other key in `also` (the
/// selection's other segments, shaped together as the curve editor's
/// batch mode does) on `value`'s channel. Only interpolation bytes of that
/// channel change; keys whose bytes stay are left out.
pub fn bone_handle_drag(
    m: &Motion,
    seg: &Segment,
    value: BoneValue,
    which: Handle,
    at: [f64; 2],
    also: &[usize],
) -> Result<Vec<BoneBlockChange>, CurveEditError> {
    let curve = seg.curve_with(which, at);
    let mut keys = vec![seg.to_key];
    keys.extend_from_slice(also);
    let plan = plan_bone_curve(m, &keys, &[value.channel()], curve)?;
    Ok(plan.into_iter().filter(|c| !c.is_noop()).collect())
}

/// Camera counterpart of [`bone_handle_drag`].
pub fn camera_handle_drag(
    m: &Motion,
    seg: &Segment,
    value: CameraValue,
    which: Handle,
    at: [f64; 2],
    also: &[usize],
) -> Result<Vec<CameraBlockChange>, CurveEditError> {
    let curve = seg.curve_with(which, at);
    let mut keys = vec![seg.to_key];
    keys.extend_from_slice(also);
    let plan = plan_camera_curve(m, &keys, &[value.channel()], curve)?;
    Ok(plan.into_iter().filter(|c| !c.is_noop()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_sit_at_the_curve_fractions_and_map_back() {
        // A = (10, 2.0), B = (40, 5.0); curve (20, 20)-(107, 107):
        // handle 1 = (10 + 20/127·30, 2 + 20/127·3) by hand.
        let s = Segment::new(0, 1, [10.0, 2.0], [40.0, 5.0], Curve::LINEAR, false);
        let h = s.handles[0];
        assert!((h[0] - (10.0 + 20.0 / 127.0 * 30.0)).abs() < 1e-12);
        assert!((h[1] - (2.0 + 20.0 / 127.0 * 3.0)).abs() < 1e-12);
        assert_eq!(s.curve_with(Handle::First, h), Curve::LINEAR);
        assert_eq!(s.curve_with(Handle::Second, s.handles[1]), Curve::LINEAR);
        // Halfway in time, at B's value: (64, 127) (63.5 rounds to 64).
        let c = s.curve_with(Handle::Second, [25.0, 5.0]);
        assert_eq!((c.x2, c.y2), (64, 127));
        // Far outside: clamped.
        let c = s.curve_with(Handle::First, [-100.0, 99.0]);
        assert_eq!((c.x1, c.y1), (0, 127));
        // A flat segment keeps y.
        let flat = Segment::new(0, 1, [0.0, 1.0], [10.0, 1.0], Curve::new(5, 6, 7, 8), false);
        assert_eq!(
            flat.curve_with(Handle::First, [5.0, 3.0]),
            Curve::new(64, 6, 7, 8)
        );
    }

    #[test]
    fn angles_unwrap() {
        assert_eq!(unwrap_deg(-179.0, 179.0), 181.0);
        assert_eq!(unwrap_deg(10.0, 0.0), 10.0);
    }
}
