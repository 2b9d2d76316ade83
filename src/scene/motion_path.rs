//! Motion paths: where bones' heads (and the camera's eye) travel over a
//! range of frames, with the frames of their keys — what the viewport draws
//! as a dotted line with a larger mark per key, and ghosts' frames.
//!
//! Bone paths pose through the one pose engine ([`PoseEngine`]: bindings,
//! append, IK with the motion's IK keys), so a point is exactly the head
//! the viewport shows at that frame. Points are model-space positions in
//! MMD units (left-handed, Y up); frames are MMD frames (30 per second).
//!
//! A curve drag changes only the frames between the edited key and the key
//! before it: [`BonePaths::refresh`] re-poses just those frames.

use std::ops::RangeInclusive;

use crate::model::{Model, PoseEngine};
use crate::vmd::evaluate::{camera_at, is_cut};
use crate::vmd::{Motion, MotionRef, TrackIndex};

/// The longest range a path holds (about 5.5 minutes); longer ranges are
/// cut to this many frames from their start.
pub const MAX_PATH_FRAMES: u32 = 10_000;

/// `range` cut to [`MAX_PATH_FRAMES`] frames; `None` when empty.
fn clamp_range(range: &RangeInclusive<u32>) -> Option<(u32, u32)> {
    let (a, b) = (*range.start(), *range.end());
    (a <= b).then(|| (a, b.min(a.saturating_add(MAX_PATH_FRAMES - 1))))
}

/// One bone's path.
#[derive(Debug, Clone, PartialEq)]
pub struct BonePath {
    /// Index of the bone in the model's skeleton.
    pub bone: usize,
    /// `points[i]` is the bone's head at frame `first_frame + i`.
    pub points: Vec<[f32; 3]>,
    /// The frames in the range where the bone's own track has a key
    /// (sorted, each once).
    pub key_frames: Vec<u32>,
}

/// The paths of several bones over one frame range.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BonePaths {
    pub first_frame: u32,
    pub paths: Vec<BonePath>,
}

impl BonePaths {
    /// The last frame held (`first_frame` − 1 when empty).
    pub fn last_frame(&self) -> Option<u32> {
        let n = self.paths.first()?.points.len() as u32;
        (n > 0).then(|| self.first_frame + n - 1)
    }

    /// The head of path `p` at `frame`, if held.
    pub fn point(&self, p: usize, frame: u32) -> Option<[f32; 3]> {
        let i = frame.checked_sub(self.first_frame)? as usize;
        self.paths.get(p)?.points.get(i).copied()
    }

    /// Re-poses the frames of `frames` that the paths hold (after an edit
    /// that changed only those frames, e.g. a curve drag: the segment's
    /// frames), keeping the rest. The engine must be bound to `motion`'s
    /// index, as for [`motion_path`].
    pub fn refresh(
        &mut self,
        model: &Model,
        engine: &mut PoseEngine,
        motion: MotionRef<'_>,
        frames: RangeInclusive<u32>,
    ) {
        let Some(last) = self.last_frame() else {
            return;
        };
        let a = (*frames.start()).max(self.first_frame);
        let b = (*frames.end()).min(last);
        if a > b {
            return;
        }
        for f in a..=b {
            engine.pose_bones(model, Some(motion), f64::from(f), |_| {});
            let i = (f - self.first_frame) as usize;
            for p in &mut self.paths {
                if let (Some(slot), Some(head)) =
                    (p.points.get_mut(i), engine.posed.bone_position(p.bone))
                {
                    *slot = head.to_array();
                }
            }
        }
    }
}

/// The frames of the keys of bone `bone`'s track inside `[a, b]`.
fn bone_key_frames(
    model: &Model,
    engine: &PoseEngine,
    index: &TrackIndex,
    bone: usize,
    a: u32,
    b: u32,
) -> Vec<u32> {
    let track = match engine.binding() {
        Some(binding) => binding.bone_track(bone),
        None => model
            .skeleton
            .bones
            .get(bone)
            .and_then(|bn| crate::model::bone_track(index, &bn.name)),
    };
    let Some(t) = track.and_then(|t| index.bones.get(t)) else {
        return Vec::new();
    };
    let mut v: Vec<u32> = t
        .frames
        .iter()
        .copied()
        .filter(|f| (a..=b).contains(f))
        .collect();
    v.dedup();
    v
}

/// The heads of `bones` (skeleton indices; unknown ones are left out) at
/// every frame of `frames`, posed by `engine` — which must be bound to
/// `motion`'s index ([`PoseEngine::bind`]) — with each bone's key frames.
/// Cost: one bones-only pose per frame, whatever the number of bones.
pub fn motion_path(
    model: &Model,
    engine: &mut PoseEngine,
    motion: MotionRef<'_>,
    bones: &[usize],
    frames: RangeInclusive<u32>,
) -> BonePaths {
    let Some((a, b)) = clamp_range(&frames) else {
        return BonePaths {
            first_frame: *frames.start(),
            paths: Vec::new(),
        };
    };
    let n = (b - a + 1) as usize;
    let mut out = BonePaths {
        first_frame: a,
        paths: bones
            .iter()
            .filter(|&&bone| bone < model.skeleton.bones.len())
            .map(|&bone| BonePath {
                bone,
                points: vec![[0.0; 3]; n],
                key_frames: bone_key_frames(model, engine, motion.index, bone, a, b),
            })
            .collect(),
    };
    if !out.paths.is_empty() {
        out.refresh(model, engine, motion, a..=b);
    }
    out
}

/// The camera's eye over a range of frames.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CameraPath {
    pub first_frame: u32,
    /// `eyes[i]`: the eye position at frame `first_frame + i` (MMD units).
    pub eyes: Vec<[f32; 3]>,
    /// `targets[i]`: the look-at point at the same frame.
    pub targets: Vec<[f32; 3]>,
    /// Frames in the range with a camera key (sorted, each once).
    pub key_frames: Vec<u32>,
    /// Cut marks: frames `f` in the range where the camera jumps — keys on
    /// `f − 1` and `f` (MMD's cut) — so no line joins frame `f − 1` to `f`.
    pub cuts: Vec<u32>,
}

/// The camera's eye path over `frames` (cut like [`MAX_PATH_FRAMES`]);
/// `None` when the motion has no camera keys.
pub fn camera_path(
    m: &Motion,
    idx: &TrackIndex,
    frames: RangeInclusive<u32>,
) -> Option<CameraPath> {
    if idx.camera.is_empty() {
        return None;
    }
    let (a, b) = clamp_range(&frames)?;
    let mut p = CameraPath {
        first_frame: a,
        ..CameraPath::default()
    };
    for f in a..=b {
        let c = camera_at(m, idx, f64::from(f))?;
        p.eyes.push(c.eye);
        p.targets.push(c.target);
    }
    let key_frames: Vec<u32> = idx
        .camera
        .iter()
        .filter_map(|&i| m.cameras.get(i as usize).map(|k| k.frame()))
        .collect();
    for w in key_frames.windows(2) {
        if is_cut(w[0], w[1]) && (a..=b).contains(&w[1]) && w[0] >= a {
            p.cuts.push(w[1]);
        }
    }
    p.cuts.dedup();
    p.key_frames = key_frames
        .into_iter()
        .filter(|f| (a..=b).contains(f))
        .collect();
    p.key_frames.dedup();
    Some(p)
}

/// The key frames on either side of `frame` in sorted `key_frames`: the
/// last one before it and the first one after it — the ghosts' frames.
pub fn neighbour_keys(key_frames: &[u32], frame: u32) -> (Option<u32>, Option<u32>) {
    let before = key_frames.partition_point(|&f| f < frame);
    let after = key_frames.partition_point(|&f| f <= frame);
    (
        before.checked_sub(1).map(|i| key_frames[i]),
        key_frames.get(after).copied(),
    )
}

/// Ghost frames `frame ± k·step` for k = 1..=count, inside `0..=last`
/// (earlier ones first, then later ones).
pub fn ghost_frames(frame: u32, step: u32, count: u32, last: u32) -> Vec<u32> {
    let step = step.max(1);
    let mut v: Vec<u32> = (1..=count)
        .rev()
        .filter_map(|k| frame.checked_sub(k.saturating_mul(step)))
        .collect();
    v.extend(
        (1..=count)
            .filter_map(|k| frame.checked_add(k.saturating_mul(step)))
            .filter(|&f| f <= last),
    );
    v
}

/// The frames an edit from `before` to `after` changed, when it changed
/// only bone keys' interpolation bytes (a curve drag): for each such key,
/// the frames of the segment it shapes (the previous key of its track to
/// its own frame). `None` when anything else differs (keys added, moved or
/// revalued, morphs, IK switches): then every frame may have changed.
/// `after_index` is `after`'s track index.
pub fn curve_edit_frames(
    before: &Motion,
    after: &Motion,
    after_index: &TrackIndex,
) -> Option<Vec<RangeInclusive<u32>>> {
    if before.bones.len() != after.bones.len()
        || before.morphs != after.morphs
        || before.iks != after.iks
    {
        return None;
    }
    let mut out = Vec::new();
    for (a, b) in before.bones.iter().zip(&after.bones) {
        if a == b {
            continue;
        }
        if a.frame() != b.frame()
            || a.name_field() != b.name_field()
            || a.position() != b.position()
            || a.rotation() != b.rotation()
        {
            return None;
        }
        let track = after_index.bone(b.name_key())?;
        let prev = track
            .keys
            .iter()
            .filter_map(|&k| after.bones.get(k as usize))
            .map(|k| k.frame())
            .filter(|&f| f < b.frame())
            .max()
            .unwrap_or(b.frame());
        out.push(prev..=b.frame());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_and_ghosts() {
        let keys = [0, 10, 20];
        assert_eq!(neighbour_keys(&keys, 10), (Some(0), Some(20)));
        assert_eq!(neighbour_keys(&keys, 5), (Some(0), Some(10)));
        assert_eq!(neighbour_keys(&keys, 0), (None, Some(10)));
        assert_eq!(neighbour_keys(&keys, 25), (Some(20), None));
        assert_eq!(ghost_frames(5, 2, 3, 8), vec![1, 3, 7]);
        let (a, b) = (3, 2);
        assert_eq!(clamp_range(&(a..=b)), None);
        assert_eq!(clamp_range(&(0..=u32::MAX)), Some((0, MAX_PATH_FRAMES - 1)));
    }

    #[test]
    fn a_curve_edit_touches_only_its_segment() {
        use crate::vmd::{BoneChannel, BoneKey, Curve, NameEncoding};
        let key = |f: u32, x: f32| {
            BoneKey::new(
                "a",
                NameEncoding::ShiftJis,
                f,
                [x, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
            )
            .unwrap()
        };
        let m = Motion {
            bones: vec![key(0, 0.0), key(30, 1.0), key(10, 2.0)],
            ..Motion::default()
        };
        let idx = TrackIndex::build(&m);
        let mut e = m.clone();
        // Key at frame 30: its segment starts at the key of frame 10.
        e.bones[1].set_curve(BoneChannel::X, Curve::new(0, 127, 127, 0));
        assert_eq!(curve_edit_frames(&m, &e, &idx), Some(vec![10..=30]));
        // A first key: its own frame only.
        let mut e = m.clone();
        e.bones[0].set_curve(BoneChannel::X, Curve::new(0, 127, 127, 0));
        assert_eq!(curve_edit_frames(&m, &e, &idx), Some(vec![0..=0]));
        // A value changed: everything.
        let mut e = m.clone();
        e.bones[1].set_position([5.0, 0.0, 0.0]);
        assert_eq!(curve_edit_frames(&m, &e, &idx), None);
        assert_eq!(curve_edit_frames(&m, &m, &idx), Some(vec![]));
    }
}
