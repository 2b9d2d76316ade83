//! The evaluation cache: every bone and morph track decoded once, beside the
//! raw records.
//!
//! The raw records in [`Motion`] stay the source of truth (they are what the
//! writer writes); an [`EvalCache`] is a derived copy laid out for evaluating
//! poses fast, and must be refreshed when the motion changes:
//! [`EvalCache::build`] after loading, [`EvalCache::update`] after an edit
//! (only the named tracks are decoded again), and
//! [`EvalCache::agrees_with`] checks it against the records (the tests run it
//! after every edit sequence, undo included).
//!
//! Per track (struct of arrays): the key frames (sorted, one key per frame:
//! the last in file order wins, as in [`super::track::bracket`]) with a
//! bucket table that finds a frame's segment in one read and a step
//! ([`locate`]), the held positions and rotations, and per segment
//! (key i → key i + 1) everything its evaluation needs in one record: both
//! ends' positions, A's unit rotation and the unit quaternion orthogonal to
//! it towards B (B flipped onto A's hemisphere), the slerp angle, 1 / span, and — only when a channel is eased — the index of
//! its solver data. A segment whose four channels are straight lines is
//! evaluated without any curve solving. Eased curves share one solver per
//! distinct (x1, x2) pair ([`solver`]: a cubic per 1/32 of x and one Newton
//! step).
//!
//! A full pose goes into a caller-provided slice indexed by bone track
//! ([`EvalCache::pose_into`]): no allocation, no name lookup, no hashing;
//! the tracks of a chunk are all located before any is evaluated, so their
//! cache misses overlap.
//! For playback a [`Playhead`] remembers each track's segment.
//!
//! Values agree with [`super::evaluate::bone_at`] to within 1e-6 of each
//! segment's change (the weights to ~1e-8) and a few f32 ulps.

mod locate;
mod solver;

use std::collections::HashMap;

use super::bezier::Curve;
use super::evaluate::BonePose;
use super::motion::Motion;
use super::track::{Track, TrackIndex};
use locate::{Loc, Locator};
use solver::{Eased, LINEAR, Solvers};

pub use solver::PreparedCurves;

/// What evaluating key i → key i + 1 of a bone track needs, in one cache
/// line.
///
/// The rotation is the slerp written in the plane of the two rotations:
/// `r = cos(wθ)·qa + sin(wθ)·q⊥` with qa the unit rotation of A and q⊥ the
/// unit quaternion orthogonal to qa towards B (zero when A = B), so r is a
/// unit quaternion without normalizing, and small and zero angles need no
/// branch. sin and cos come from short polynomials ([`sin_cos`]).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct BoneSegment {
    /// Positions of A and B.
    pa: [f32; 3],
    pb: [f32; 3],
    /// Unit rotation of A.
    qa: [f32; 4],
    /// Unit quaternion orthogonal to `qa` in the plane of A and B (B's sign
    /// flipped to take the shorter arc), or zero when θ = 0.
    qp: [f32; 4],
    /// 1 / (frame B − frame A), negated when the segment has an eased
    /// channel (its solver data is then `eased[i]` of the track). A linear
    /// segment's time fraction is (frame − A) · this; an eased one's is
    /// (frame − A) / (B − A) exactly as the raw path computes it: near a flat
    /// spot of x(t) (x1 = 127, x2 = 0) an ulp of x moves the weight by 1e-5.
    inv_span: f32,
    /// Angle between the unit rotations, radians (≤ π/2).
    theta: f32,
}

impl PartialEq for BoneSegment {
    /// Bit for bit (a NaN read from a file equals itself).
    fn eq(&self, o: &Self) -> bool {
        same_bits(&self.pa, &o.pa)
            && same_bits(&self.pb, &o.pb)
            && same_bits(&self.qa, &o.qa)
            && same_bits(&self.qp, &o.qp)
            && self.inv_span.to_bits() == o.inv_span.to_bits()
            && self.theta.to_bits() == o.theta.to_bits()
    }
}

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// One bone track, decoded. The fields a pose reads come first and share
/// one cache line; a pose of a linear segment then reads four lines per
/// bone (this header, the bucket table, the frames, the segment).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct BoneTrackCache {
    /// Key frames, strictly increasing.
    frames: Box<[u32]>,
    /// `segments[i]` joins key i and key i + 1.
    segments: Box<[BoneSegment]>,
    locator: Locator,
    /// Solver data per segment (empty when no segment of the track is eased).
    eased: Box<[Eased]>,
    name_key: Vec<u8>,
    positions: Box<[[f32; 3]]>,
    /// Rotations as stored (held as they are on a key).
    rotations: Box<[[f32; 4]]>,
    /// B's curves of each segment as stored.
    curves: Box<[[Curve; 4]]>,
}

impl PartialEq for BoneTrackCache {
    fn eq(&self, o: &Self) -> bool {
        self.name_key == o.name_key
            && self.frames == o.frames
            && self.locator == o.locator
            && same_bits(self.positions.as_flattened(), o.positions.as_flattened())
            && same_bits(self.rotations.as_flattened(), o.rotations.as_flattened())
            && self.segments == o.segments
            && self.curves == o.curves
            && self.eased == o.eased
    }
}

/// One morph track, decoded (linear).
#[derive(Debug, Clone)]
pub struct MorphTrackCache {
    name_key: Vec<u8>,
    frames: Vec<u32>,
    locator: Locator,
    weights: Vec<f32>,
}

impl PartialEq for MorphTrackCache {
    fn eq(&self, o: &Self) -> bool {
        self.name_key == o.name_key
            && self.frames == o.frames
            && self.locator == o.locator
            && same_bits(&self.weights, &o.weights)
    }
}

/// `q` normalized in f64; identity for a zero, infinite or NaN quaternion
/// (as [`super::evaluate::slerp`] does).
fn unit64(q: [f32; 4]) -> [f64; 4] {
    let q = q.map(f64::from);
    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if len.is_finite() && len > 1e-12 {
        q.map(|v| v / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// (sin x, cos x) for x in [0, π/2] (a little beyond is fine): the Taylor
/// series of sin to x¹³ and of cos to x¹², whose first dropped terms are
/// below 7e-10 and 7e-9 there. Both are evaluated side by side in powers of
/// x² with Estrin's scheme (a short dependency chain rather than Horner's
/// twelve steps).
#[inline(always)]
fn sin_cos(x: f64) -> (f64, f64) {
    const S: [f64; 7] = [
        1.0,
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
        1.0 / 6_227_020_800.0,
    ];
    const C: [f64; 7] = [
        1.0,
        -1.0 / 2.0,
        1.0 / 24.0,
        -1.0 / 720.0,
        1.0 / 40_320.0,
        -1.0 / 3_628_800.0,
        1.0 / 479_001_600.0,
    ];
    let y = x * x;
    let y2 = y * y;
    let y4 = y2 * y2;
    let poly = |c: &[f64; 7]| {
        let p01 = c[0] + c[1] * y;
        let p23 = c[2] + c[3] * y;
        let p45 = c[4] + c[5] * y;
        let p46 = p45 + c[6] * y2;
        (p01 + p23 * y2) + p46 * y4
    };
    (x * poly(&S), poly(&C))
}

impl BoneTrackCache {
    fn build(m: &Motion, track: &Track, solvers: &mut Solvers) -> BoneTrackCache {
        // Keys sorted by frame (stable); keep the last key of each frame.
        let n = track.keys.len();
        let mut frames = Vec::with_capacity(n);
        let mut keys = Vec::with_capacity(n);
        for &k in &track.keys {
            let Some(key) = m.bones.get(k as usize) else {
                continue;
            };
            let f = key.frame();
            if frames.last() == Some(&f) {
                frames.pop();
                keys.pop();
            }
            frames.push(f);
            keys.push(key);
        }
        let positions: Box<[[f32; 3]]> = keys.iter().map(|k| k.position()).collect();
        let rotations: Box<[[f32; 4]]> = keys.iter().map(|k| k.rotation()).collect();
        let units: Vec<[f64; 4]> = rotations.iter().map(|&q| unit64(q)).collect();
        let segs = frames.len().saturating_sub(1);
        let mut segments = Vec::with_capacity(segs);
        let mut curves = Vec::with_capacity(segs);
        let mut eased = Vec::new();
        for i in 1..frames.len() {
            let c = keys[i].curves();
            let (qa, qb) = (units[i - 1], units[i]);
            let d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
            let flip = if d < 0.0 { -1.0 } else { 1.0 };
            let qb = qb.map(|v| v * flip);
            // θ from atan2 of the chord lengths: accurate at small angles too.
            let half_sum: f64 = (0..4).map(|j| (qa[j] + qb[j]).powi(2)).sum();
            let half_diff: f64 = (0..4).map(|j| (qa[j] - qb[j]).powi(2)).sum();
            let theta = 2.0 * half_diff.sqrt().atan2(half_sum.sqrt());
            // q⊥: B's part orthogonal to A, made unit (d·flip = |d| = cos θ).
            let cos = d * flip;
            let v: [f64; 4] = std::array::from_fn(|j| qb[j] - cos * qa[j]);
            let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]).sqrt();
            let qp = if len > 0.0 && theta > 0.0 {
                v.map(|x| (x / len) as f32)
            } else {
                [0.0; 4]
            };
            let span = f64::from(frames[i]) - f64::from(frames[i - 1]);
            let mut inv_span = (1.0 / span) as f32;
            if let Some(e) = solvers.eased(c) {
                if eased.is_empty() {
                    eased.resize(i - 1, Eased::NONE);
                }
                eased.push(e);
                inv_span = -inv_span;
            } else if !eased.is_empty() {
                eased.push(Eased::NONE);
            }
            segments.push(BoneSegment {
                pa: positions[i - 1],
                pb: positions[i],
                qa: qa.map(|v| v as f32),
                qp,
                inv_span,
                theta: theta as f32,
            });
            curves.push(c);
        }
        if !eased.is_empty() {
            eased.resize(segs, Eased::NONE);
        }
        BoneTrackCache {
            locator: Locator::new(&frames),
            frames: frames.into_boxed_slice(),
            segments: segments.into_boxed_slice(),
            eased: eased.into_boxed_slice(),
            name_key: track.name_key.clone(),
            positions,
            rotations,
            curves: curves.into_boxed_slice(),
        }
    }

    /// The name bytes (up to the first NUL) identifying the track.
    pub fn name_key(&self) -> &[u8] {
        &self.name_key
    }

    /// Distinct key frames.
    pub fn frames(&self) -> &[u32] {
        &self.frames
    }

    #[inline(always)]
    fn at(&self, solvers: &Solvers, loc: Loc, frame: f64) -> BonePose {
        match loc {
            Loc::Empty => BonePose::default(),
            Loc::Hold(i) => BonePose {
                position: self.positions[i as usize],
                rotation: self.rotations[i as usize],
            },
            Loc::Between(i) => self.between(solvers, i as usize, frame),
        }
    }

    /// The four weights of eased segment i.
    #[inline]
    fn eased_weights(&self, solvers: &Solvers, i: usize, frame: f64) -> [f64; 4] {
        let (fa, fb) = (f64::from(self.frames[i]), f64::from(self.frames[i + 1]));
        let x = ((frame - fa) / (fb - fa)).clamp(0.0, 1.0);
        match self.eased.get(i) {
            Some(e) if x > 0.0 && x < 1.0 => solvers.weights(e, x),
            _ => [x; 4],
        }
    }

    #[inline(always)]
    fn between(&self, solvers: &Solvers, i: usize, frame: f64) -> BonePose {
        let s = &self.segments[i];
        let fa = f64::from(self.frames[i]);
        let inv_span = f64::from(s.inv_span);
        let w = if inv_span > 0.0 {
            [((frame - fa) * inv_span).clamp(0.0, 1.0); 4]
        } else {
            self.eased_weights(solvers, i, frame)
        };
        let position = std::array::from_fn(|a| {
            let (p, q) = (f64::from(s.pa[a]), f64::from(s.pb[a]));
            (p + (q - p) * w[a]) as f32
        });
        let (sin, cos) = sin_cos(w[3] * f64::from(s.theta));
        BonePose {
            position,
            rotation: std::array::from_fn(|c| {
                (cos * f64::from(s.qa[c]) + sin * f64::from(s.qp[c])) as f32
            }),
        }
    }
}

impl MorphTrackCache {
    fn build(m: &Motion, track: &Track) -> MorphTrackCache {
        let mut frames: Vec<u32> = Vec::with_capacity(track.keys.len());
        let mut weights = Vec::with_capacity(track.keys.len());
        for &k in &track.keys {
            let Some(key) = m.morphs.get(k as usize) else {
                continue;
            };
            if frames.last() == Some(&key.frame()) {
                frames.pop();
                weights.pop();
            }
            frames.push(key.frame());
            weights.push(key.weight());
        }
        MorphTrackCache {
            name_key: track.name_key.clone(),
            locator: Locator::new(&frames),
            frames,
            weights,
        }
    }

    fn at(&self, frame: f64) -> f32 {
        match self.locator.locate(&self.frames, frame) {
            Loc::Empty => 0.0,
            Loc::Hold(i) => self.weights[i as usize],
            Loc::Between(i) => {
                let i = i as usize;
                let (fa, fb) = (f64::from(self.frames[i]), f64::from(self.frames[i + 1]));
                let x = ((frame - fa) / (fb - fa)).clamp(0.0, 1.0);
                let (a, b) = (f64::from(self.weights[i]), f64::from(self.weights[i + 1]));
                (a + (b - a) * x) as f32
            }
        }
    }
}

/// Every bone and morph track decoded for evaluation. `bones[i]` belongs to
/// `TrackIndex::bones[i]` of the index it was built or last updated with.
#[derive(Debug, Clone, Default)]
pub struct EvalCache {
    bones: Vec<BoneTrackCache>,
    morphs: Vec<MorphTrackCache>,
    solvers: Solvers,
}

/// Remembers, per bone track, the segment the last frame fell in, so that
/// playing forward frame by frame finds the next segment without searching.
/// Any frame may be asked for (scrubbing backwards, jumping): a miss falls
/// back to the track's bucket table.
#[derive(Debug, Clone, Default)]
pub struct Playhead {
    segments: Vec<u32>,
}

/// Bones located before any is evaluated (see [`EvalCache::pose_into`]).
const CHUNK: usize = 32;

/// A motion ready to evaluate: its records, their track index and the
/// evaluation cache built from both. Whoever owns the three keeps them in
/// step (a document updates index and cache on every edit and undo); every
/// pose the program computes reads bone and morph values from `cache`,
/// and the IK/show keys from `motion` through `index`.
#[derive(Debug, Clone, Copy)]
pub struct MotionRef<'a> {
    pub motion: &'a Motion,
    pub index: &'a TrackIndex,
    pub cache: &'a EvalCache,
}

impl<'a> MotionRef<'a> {
    /// Every track at `frame`: bones and morphs from the cache, camera and
    /// light from the records (what [`super::evaluate::sample`] computes
    /// from the records alone).
    pub fn sample(&self, frame: f64) -> super::evaluate::Sample {
        let mut bones = Vec::new();
        self.cache.sample_bones_into(frame, &mut bones);
        let mut morphs = Vec::new();
        self.cache.sample_morphs_into(frame, &mut morphs);
        super::evaluate::Sample {
            frame,
            bones,
            morphs,
            camera: super::evaluate::camera_at(self.motion, self.index, frame),
            light: super::evaluate::light_at(self.motion, self.index, frame),
        }
    }

    /// The IK/show key in force at `frame` (the last at or before it).
    pub fn ik_at(&self, frame: f64) -> Option<&'a super::records::IkKey> {
        super::evaluate::ik_at(self.motion, self.index, frame)
    }
}

/// A motion with its index and cache, owned together (the CLI, benches and
/// tests; the app's documents keep theirs in step with edits).
#[derive(Debug, Clone)]
pub struct IndexedMotion {
    pub motion: Motion,
    pub index: TrackIndex,
    pub cache: EvalCache,
}

impl IndexedMotion {
    /// Indexes `motion` and builds its cache.
    pub fn new(motion: Motion) -> IndexedMotion {
        let index = TrackIndex::build(&motion);
        let cache = EvalCache::build(&motion, &index);
        IndexedMotion {
            motion,
            index,
            cache,
        }
    }

    pub fn as_ref(&self) -> MotionRef<'_> {
        MotionRef {
            motion: &self.motion,
            index: &self.index,
            cache: &self.cache,
        }
    }
}

impl EvalCache {
    /// Decodes every bone and morph track of `idx` (built from `m`).
    pub fn build(m: &Motion, idx: &TrackIndex) -> EvalCache {
        let mut solvers = Solvers::default();
        let bones = idx
            .bones
            .iter()
            .map(|t| BoneTrackCache::build(m, t, &mut solvers))
            .collect();
        let morphs = idx
            .morphs
            .iter()
            .map(|t| MorphTrackCache::build(m, t))
            .collect();
        EvalCache {
            bones,
            morphs,
            solvers,
        }
    }

    /// Brings the cache in line with `m` and its freshly built `idx` after an
    /// edit that changed keys of the named bone and morph tracks (name bytes
    /// up to the first NUL; for a rename, pass both the old and the new
    /// name). Only those tracks (and tracks new to the index) are decoded
    /// again; the others are moved to their new place in the index.
    pub fn update(
        &mut self,
        m: &Motion,
        idx: &TrackIndex,
        edited_bones: &[&[u8]],
        edited_morphs: &[&[u8]],
    ) {
        let mut old_bones: HashMap<Vec<u8>, BoneTrackCache> = std::mem::take(&mut self.bones)
            .into_iter()
            .map(|t| (t.name_key.clone(), t))
            .collect();
        for n in edited_bones {
            old_bones.remove(*n);
        }
        let solvers = &mut self.solvers;
        self.bones = idx
            .bones
            .iter()
            .map(|t| {
                old_bones
                    .remove(&t.name_key)
                    .unwrap_or_else(|| BoneTrackCache::build(m, t, solvers))
            })
            .collect();
        let mut old_morphs: HashMap<Vec<u8>, MorphTrackCache> = std::mem::take(&mut self.morphs)
            .into_iter()
            .map(|t| (t.name_key.clone(), t))
            .collect();
        for n in edited_morphs {
            old_morphs.remove(*n);
        }
        self.morphs = idx
            .morphs
            .iter()
            .map(|t| {
                old_morphs
                    .remove(&t.name_key)
                    .unwrap_or_else(|| MorphTrackCache::build(m, t))
            })
            .collect();
    }

    /// True when the cache holds exactly what decoding `m` through `idx`
    /// gives (every track, value and curve), and every solver id points at
    /// the solver of its curve.
    pub fn agrees_with(&self, m: &Motion, idx: &TrackIndex) -> bool {
        let fresh = EvalCache::build(m, idx);
        let solvers_ok = self.bones.iter().all(|t| {
            t.segments
                .iter()
                .zip(&t.curves)
                .enumerate()
                .all(|(i, (s, curves))| {
                    let e = t.eased.get(i).filter(|_| s.inv_span < 0.0);
                    if s.inv_span < 0.0 && e.is_none() {
                        return false;
                    }
                    (0..4).all(|c| {
                        let id = e.map_or(LINEAR, |e| e.solver[c]);
                        if curves[c].is_linear() {
                            return id == LINEAR;
                        }
                        self.solvers
                            .pairs
                            .get(usize::from(id))
                            .is_some_and(|&p| p == (curves[c].x1.min(127), curves[c].x2.min(127)))
                    })
                })
        });
        solvers_ok && fresh.bones == self.bones && fresh.morphs == self.morphs
    }

    pub fn bones(&self) -> &[BoneTrackCache] {
        &self.bones
    }

    pub fn morphs(&self) -> &[MorphTrackCache] {
        &self.morphs
    }

    /// Bone track `track`'s pose at `frame` (the default pose for a track
    /// that does not exist).
    pub fn bone_at(&self, track: usize, frame: f64) -> BonePose {
        match self.bones.get(track) {
            Some(t) => t.at(&self.solvers, t.locator.locate(&t.frames, frame), frame),
            None => BonePose::default(),
        }
    }

    /// [`Self::bone_at`] for playback: `head` remembers each track's segment
    /// (sized to the tracks on first use), so the next frame usually needs
    /// no search. Gives exactly what [`Self::bone_at`] gives, for any
    /// frame order.
    #[inline]
    pub fn bone_playing(&self, head: &mut Playhead, track: usize, frame: f64) -> BonePose {
        if head.segments.len() != self.bones.len() {
            head.segments.clear();
            head.segments.resize(self.bones.len(), 0);
        }
        match (self.bones.get(track), head.segments.get_mut(track)) {
            (Some(t), Some(h)) => t.at(
                &self.solvers,
                t.locator.locate_from(&t.frames, frame, h),
                frame,
            ),
            _ => BonePose::default(),
        }
    }

    /// Morph track `track`'s weight at `frame` (0 for a track that does not exist).
    pub fn morph_at(&self, track: usize, frame: f64) -> f32 {
        self.morphs.get(track).map_or(0.0, |t| t.at(frame))
    }

    /// The full pose at `frame`: `out[i]` becomes bone track i's pose, for
    /// every i below both `out.len()` and the number of bone tracks (size
    /// `out` with [`Self::bones`]`().len()`). No allocation, no lookup by name.
    pub fn pose_into(&self, frame: f64, out: &mut [BonePose]) {
        // In chunks: first every track's segment, then every pose. The
        // lookups of a chunk do not wait for each other's cache misses (a
        // pose's arithmetic no longer sits between them), so a large motion
        // pays for its scattered memory once per chunk, not once per bone.
        let mut locs = [Loc::Empty; CHUNK];
        for (tracks, outs) in self.bones.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
            for (t, l) in tracks.iter().zip(locs.iter_mut()) {
                *l = t.locator.locate(&t.frames, frame);
            }
            for ((t, l), o) in tracks.iter().zip(&locs).zip(outs) {
                *o = t.at(&self.solvers, *l, frame);
            }
        }
    }

    /// [`Self::pose_into`] for playback: `head` remembers each track's
    /// segment, so the next frame usually needs no search. Gives exactly
    /// what [`Self::pose_into`] gives, for any frame order.
    pub fn pose_playing_into(&self, head: &mut Playhead, frame: f64, out: &mut [BonePose]) {
        head.segments.resize(self.bones.len(), 0);
        for ((t, h), o) in self
            .bones
            .iter()
            .zip(head.segments.iter_mut())
            .zip(out.iter_mut())
        {
            let loc = t.locator.locate_from(&t.frames, frame, h);
            *o = t.at(&self.solvers, loc, frame);
        }
    }

    /// [`Self::pose_into`] into a vector (resized to the number of bone
    /// tracks; no allocation once it has the capacity).
    pub fn sample_bones_into(&self, frame: f64, out: &mut Vec<BonePose>) {
        out.resize(self.bones.len(), BonePose::default());
        self.pose_into(frame, out);
    }

    /// [`Self::pose_playing_into`] into a vector (resized to the number of
    /// bone tracks).
    pub fn sample_bones_playing(&self, head: &mut Playhead, frame: f64, out: &mut Vec<BonePose>) {
        out.resize(self.bones.len(), BonePose::default());
        self.pose_playing_into(head, frame, out);
    }

    /// Every morph weight at `frame` (`out[i]` for morph track i).
    pub fn sample_morphs_into(&self, frame: f64, out: &mut Vec<f32>) {
        out.clear();
        out.extend(self.morphs.iter().map(|t| t.at(frame)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sin_cos_matches_std() {
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
        for i in 1..=1000 {
            let x = f64::from(i) / 1000.0 * std::f64::consts::FRAC_PI_2 * 1.001;
            let (s, c) = sin_cos(x);
            assert!((s - x.sin()).abs() <= 1e-9, "sin {x}: {s} vs {}", x.sin());
            assert!((c - x.cos()).abs() <= 1e-8, "cos {x}: {c} vs {}", x.cos());
        }
    }

    #[test]
    fn fast_weights_match_the_exact_solver_on_every_x_pair() {
        // Every (x1, x2) pair, y control points chosen to make the weight
        // steep, at x on and off the table's grid and near both ends.
        let xs: Vec<f64> = (1..200)
            .map(|i| f64::from(i) / 200.0)
            .chain([1e-9, 1e-6, 1e-3, 0.0625, 0.5, 1.0 - 1e-3, 1.0 - 1e-9])
            .chain((1..32).flat_map(|k| {
                let g = f64::from(k) / 32.0;
                [g - 1e-12, g, g + 1e-12, g + 0.5 / 32.0]
            }))
            .collect();
        let mut slow = 0u32;
        for x1 in 0..=127u8 {
            for x2 in 0..=127u8 {
                let curves = [
                    Curve::new(x1, 0, x2, 127),
                    Curve::new(x1, 127, x2, 0),
                    Curve::new(x1, 127, x2, 127),
                    Curve::new(x1, 0, x2, 0),
                ];
                let p = PreparedCurves::new(curves);
                slow += p.slow_intervals()[0];
                for &x in &xs {
                    let w = p.weights(x);
                    for c in 0..4 {
                        let want = curves[c].weight(x);
                        assert!(
                            (w[c] - want).abs() <= 1e-6,
                            "{:?} at {x}: {} vs {want}",
                            curves[c],
                            w[c]
                        );
                    }
                }
            }
        }
        // Most intervals take the fast path (no loop): fewer than 1 in 8 is slow.
        let pairs = 128 * 128;
        assert!(
            slow < pairs * 32 / 8,
            "{slow} slow intervals of {}",
            pairs * 32
        );
    }
}
