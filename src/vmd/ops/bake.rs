//! Bake: a key on every frame (or every N frames) in a range, straight-line
//! curves — the inverse of [`simplify`](fn@super::simplify), for tools that do not
//! interpolate.
//!
//! For every bone and morph track and the camera, the keys inside
//! `from..=to` are replaced by keys at `from, from + step, …` and at `to`,
//! each holding the value [`crate::vmd::evaluate`] gives at that frame, with
//! linear curves — but only over the part of the range where the track
//! moves, from its first key to its last (before its first key and after its
//! last a track holds, with or without keys). Keys outside the range stay as
//! they are, so playback is unchanged at every baked frame and outside the
//! range; with `step` 1 it is unchanged at every integer frame. A baked key copies the bytes of the key
//! in force at its frame (name field, physics flag, block filler) and
//! rewrites frame, values and curves.
//!
//! The camera keeps both keys of every cut inside the range whatever the
//! step (a cut must not be interpolated across), and its field of view is a
//! whole number of degrees in the file: a baked frame between two different
//! fields of view is rounded, and the report says how many were.
//! Light, self-shadow and IK/show keys are not touched.

use super::report::{OpError, Report};
use crate::vmd::bezier::Curve;
use crate::vmd::evaluate::{bone_at, camera_at, is_cut, morph_at};
use crate::vmd::interpolation::{BoneChannel, CameraChannel};
use crate::vmd::motion::Motion;
use crate::vmd::records::{BoneKey, CameraKey, MorphKey};
use crate::vmd::track::{Bracket, TrackIndex, bracket};

/// Parameters of [`bake`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BakeParams {
    /// First frame to bake; `None` = the motion's first key.
    pub from: Option<u32>,
    /// Last frame to bake; `None` = the motion's last key.
    pub to: Option<u32>,
    /// A key every `step` frames (≥ 1); `to` is always keyed.
    pub step: u32,
}

impl Default for BakeParams {
    fn default() -> Self {
        BakeParams {
            from: None,
            to: None,
            step: 1,
        }
    }
}

/// Most keys a bake may write (keeps a typo from filling the memory).
pub const MAX_BAKED_KEYS: usize = 50_000_000;

fn first_frame(m: &Motion) -> Option<u32> {
    let it = m
        .bones
        .iter()
        .map(BoneKey::frame)
        .chain(m.morphs.iter().map(MorphKey::frame))
        .chain(m.cameras.iter().map(CameraKey::frame));
    it.min()
}

/// The key in force at `frame` among `keys` (last at or before; before the
/// first key, the first).
fn in_force(keys: &[u32], frame: u32, frame_of: impl Fn(u32) -> u32) -> Option<u32> {
    match bracket(keys, f64::from(frame), frame_of) {
        Bracket::Empty => None,
        Bracket::Hold(i) | Bracket::Between(i, _) => Some(i),
    }
}

/// The baked frames of one track whose sorted key frames are `keys`: the
/// grid `frames` (from `from` every step, and `to`) clipped to the track's
/// first..last key, plus the clipped ends themselves.
fn track_frames<'a>(
    frames: &'a [u32],
    keys: &[u32],
    from: u32,
    to: u32,
) -> impl Iterator<Item = u32> + 'a {
    let (lo, hi) = match (keys.first(), keys.last()) {
        (Some(&a), Some(&b)) => (a.max(from), b.min(to)),
        _ => (1, 0),
    };
    let ends = if lo <= hi { vec![lo, hi] } else { Vec::new() };
    let mut v: Vec<u32> = frames
        .iter()
        .copied()
        .filter(move |f| (lo..=hi).contains(f))
        .chain(ends)
        .collect();
    v.sort_unstable();
    v.dedup();
    v.into_iter()
}

/// Bakes; see the module docs.
pub fn bake(m: &Motion, p: BakeParams) -> Result<(Motion, Report), OpError> {
    if p.step == 0 {
        return Err(OpError::BadParameter(
            "the step must be at least 1 frame".into(),
        ));
    }
    let mut r = Report::new();
    let (Some(lo), Some(hi)) = (first_frame(m), m.last_frame()) else {
        r.note("nothing to bake: the motion has no bone, morph or camera keys");
        return Ok((m.clone(), r));
    };
    let from = p.from.unwrap_or(lo);
    let to = p.to.unwrap_or(hi);
    if from > to {
        return Err(OpError::BadParameter(format!(
            "--from {from} is after --to {to}: the range must run forwards"
        )));
    }
    let mut frames: Vec<u32> = (from..=to).step_by(p.step as usize).collect();
    if frames.last() != Some(&to) {
        frames.push(to);
    }
    let idx = TrackIndex::build(m);
    let tracks = idx.bones.len() + idx.morphs.len() + usize::from(!idx.camera.is_empty());
    if frames.len().saturating_mul(tracks) > MAX_BAKED_KEYS {
        return Err(OpError::BadParameter(format!(
            "baking {} frames × {tracks} tracks would write more than {MAX_BAKED_KEYS} keys",
            frames.len()
        )));
    }
    let mut out = m.clone();
    out.bones = bake_bones(m, &idx, &frames, from, to);
    out.morphs = bake_morphs(m, &idx, &frames, from, to);
    let mut rounded_fov = 0usize;
    if !idx.camera.is_empty() {
        (out.cameras, rounded_fov) = bake_camera(m, &idx, &frames, from, to);
    }
    let before = m.bones.len() + m.morphs.len() + m.cameras.len();
    let after = out.bones.len() + out.morphs.len() + out.cameras.len();
    r.added = after.saturating_sub(before);
    r.dropped = before.saturating_sub(after);
    r.note(format!(
        "baked frames {from}..={to} every {} frame(s): bones {} → {}, morphs {} → {}, camera {} → {} keys",
        p.step,
        m.bones.len(),
        out.bones.len(),
        m.morphs.len(),
        out.morphs.len(),
        m.cameras.len(),
        out.cameras.len()
    ));
    if rounded_fov > 0 {
        r.warn(format!(
            "camera: the field of view was rounded to whole degrees on {rounded_fov} baked key(s) (the file stores whole degrees)"
        ));
    }
    Ok((out, r))
}

/// The bone keys after the bake: those outside `from..=to`, then the baked
/// keys of each track at `frames` (where the track moves).
fn bake_bones(m: &Motion, idx: &TrackIndex, frames: &[u32], from: u32, to: u32) -> Vec<BoneKey> {
    let inside = |f: u32| (from..=to).contains(&f);
    let mut out: Vec<BoneKey> = m
        .bones
        .iter()
        .filter(|k| !inside(k.frame()))
        .cloned()
        .collect();
    for t in &idx.bones {
        for f in track_frames(frames, &t.frames, from, to) {
            let Some(src) = in_force(&t.keys, f, |i| m.bones[i as usize].frame()) else {
                continue;
            };
            let pose = bone_at(m, t, f64::from(f));
            let mut k = m.bones[src as usize];
            k.set_frame(f);
            k.set_position(pose.position);
            k.set_rotation(pose.rotation);
            for ch in BoneChannel::ALL {
                if !k.curve(ch).is_linear() {
                    k.set_curve(ch, Curve::LINEAR);
                }
            }
            out.push(k);
        }
    }
    out
}

/// The morph keys after the bake, as [`bake_bones`].
fn bake_morphs(m: &Motion, idx: &TrackIndex, frames: &[u32], from: u32, to: u32) -> Vec<MorphKey> {
    let inside = |f: u32| (from..=to).contains(&f);
    let mut out: Vec<MorphKey> = m
        .morphs
        .iter()
        .filter(|k| !inside(k.frame()))
        .cloned()
        .collect();
    for t in &idx.morphs {
        for f in track_frames(frames, &t.frames, from, to) {
            let Some(src) = in_force(&t.keys, f, |i| m.morphs[i as usize].frame()) else {
                continue;
            };
            let mut k = m.morphs[src as usize];
            k.set_frame(f);
            k.set_weight(morph_at(m, t, f64::from(f)));
            out.push(k);
        }
    }
    out
}

/// The camera keys after the bake (both keys of every cut inside the range
/// kept), and how many baked keys had their field of view rounded.
fn bake_camera(
    m: &Motion,
    idx: &TrackIndex,
    frames: &[u32],
    from: u32,
    to: u32,
) -> (Vec<CameraKey>, usize) {
    let inside = |f: u32| (from..=to).contains(&f);
    let mut rounded_fov = 0usize;
    let mut out: Vec<CameraKey> = m
        .cameras
        .iter()
        .filter(|k| !inside(k.frame()))
        .cloned()
        .collect();
    let sorted_frames: Vec<u32> = idx
        .camera
        .iter()
        .map(|&i| m.cameras[i as usize].frame())
        .collect();
    let mut cam_frames: Vec<u32> = track_frames(frames, &sorted_frames, from, to).collect();
    // Both keys of every cut inside the range.
    for w in sorted_frames.windows(2) {
        if is_cut(w[0], w[1]) && inside(w[0]) && inside(w[1]) {
            cam_frames.extend([w[0], w[1]]);
        }
    }
    cam_frames.sort_unstable();
    cam_frames.dedup();
    for &f in &cam_frames {
        let Some(src) = in_force(&idx.camera, f, |i| m.cameras[i as usize].frame()) else {
            continue;
        };
        let Some(state) = camera_at(m, idx, f64::from(f)) else {
            continue;
        };
        let mut k = m.cameras[src as usize];
        k.set_frame(f);
        k.set_target(state.target);
        k.set_rotation(state.rotation);
        k.set_distance(state.distance);
        let fov = state.fov.round();
        if fov != state.fov {
            rounded_fov += 1;
        }
        k.set_fov(fov.clamp(0.0, u32::MAX as f32) as u32);
        for ch in CameraChannel::ALL {
            if !k.curve(ch).is_linear() {
                k.set_curve(ch, Curve::LINEAR);
            }
        }
        out.push(k);
    }
    (out, rounded_fov)
}
