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
//! the last in file order wins, as in [`super::track::bracket`]), positions,
//! stored and unit rotations, and per segment (key i → key i + 1) the data
//! the segment's evaluation needs — B's four curves with linear ones flagged,
//! the slerp angle, 1 / span. Eased curves share one solver per distinct
//! (x1, x2) pair (at most 128 × 128): a table of first guesses of the curve
//! parameter at 65 evenly spaced x, from which a safeguarded Newton solver
//! (it keeps a bracket and falls back to bisection) needs a step or two.
//!
//! Values agree with [`super::evaluate::bone_at`] to within 1e-6 of each
//! segment's change (weights are solved to 1e-7 in the curve parameter,
//! where the raw path solves to 1e-9) and a few f32 ulps.

use std::collections::HashMap;

use super::bezier::Curve;
use super::evaluate::BonePose;
use super::motion::Motion;
use super::track::{Track, TrackIndex};

/// Marks a linear channel (no solver).
const LINEAR: u16 = u16::MAX;
/// Intervals of a solver's x table.
const TABLE_STEPS: usize = 64;
/// Newton stops once its step in the curve parameter t is below this; the
/// weight's slope in t is at most 3, so the weight is then within ≈ 3e-7
/// (quadratic convergence makes it far closer on all but flat spots).
const FAST_TOLERANCE: f64 = 1e-7;

/// Root finder for x(t) = x of one (x1, x2) pair.
#[derive(Debug, Clone, PartialEq)]
struct Solver {
    /// The pair it solves (unit space is byte / 127, clamped to 127).
    x1: u8,
    x2: u8,
    /// x(t) = ((a·t + b)·t + c)·t.
    a: f64,
    b: f64,
    c: f64,
    /// A first guess of t at x = i / 64: linear interpolation between 257
    /// evenly spaced samples of x(t). Only a starting point — the solver
    /// keeps its own bracket — so it is cheap to make (no root finding).
    t_at: [f32; TABLE_STEPS + 1],
}

/// Samples of x(t) a solver's guesses are read from.
const SAMPLES: usize = 256;

impl Solver {
    fn new(x1: u8, x2: u8) -> Solver {
        let ux1 = f64::from(x1.min(127)) / 127.0;
        let ux2 = f64::from(x2.min(127)) / 127.0;
        let c = 3.0 * ux1;
        let b = 3.0 * (ux2 - ux1) - c;
        let a = 1.0 - c - b;
        let x_of = |t: f64| ((a * t + b) * t + c) * t;
        let mut t_at = [0.0f32; TABLE_STEPS + 1];
        // x(t) is non-decreasing: walk the samples once.
        let mut j = 0usize;
        let mut x_j = 0.0;
        let mut x_next = x_of(1.0 / SAMPLES as f64);
        for (i, slot) in t_at.iter_mut().enumerate() {
            let x = i as f64 / TABLE_STEPS as f64;
            while j + 1 < SAMPLES && x_next < x {
                j += 1;
                x_j = x_next;
                x_next = x_of((j + 1) as f64 / SAMPLES as f64);
            }
            let f = if x_next > x_j {
                ((x - x_j) / (x_next - x_j)).clamp(0.0, 1.0)
            } else {
                0.0
            };
            *slot = ((j as f64 + f) / SAMPLES as f64) as f32;
        }
        Solver {
            x1,
            x2,
            a,
            b,
            c,
            t_at,
        }
    }
}

/// Distinct solvers of a cache, looked up by (x1, x2).
#[derive(Debug, Clone, Default)]
struct Solvers {
    list: Vec<Solver>,
    by_pair: HashMap<u16, u16>,
}

impl Solvers {
    /// The solver id of `curve`, or [`LINEAR`].
    fn id(&mut self, curve: Curve) -> u16 {
        if curve.is_linear() {
            return LINEAR;
        }
        let (x1, x2) = (curve.x1.min(127), curve.x2.min(127));
        let key = (u16::from(x1) << 8) | u16::from(x2);
        // At most 128 × 128 = 16384 pairs: ids fit below LINEAR.
        *self.by_pair.entry(key).or_insert_with(|| {
            self.list.push(Solver::new(x1, x2));
            (self.list.len() - 1) as u16
        })
    }

    /// Weights of four channels at time fraction `x` in (0, 1), lanes side by
    /// side so the CPU overlaps their Newton steps.
    #[inline]
    fn weights(&self, seg: &BoneSegment, x: f64) -> [f64; 4] {
        let mut t = [x; 4];
        let mut lo = [0.0; 4];
        let mut hi = [1.0; 4];
        let mut abc = [(0.0, 0.0, 0.0); 4];
        let mut done = [true; 4];
        let u = x * TABLE_STEPS as f64;
        let i = (u as usize).min(TABLE_STEPS - 1);
        let frac = u - i as f64;
        for ch in 0..4 {
            let id = seg.solver[ch];
            if id == LINEAR {
                continue;
            }
            let Some(s) = self.list.get(usize::from(id)) else {
                continue;
            };
            abc[ch] = (s.a, s.b, s.c);
            let (g0, g1) = (f64::from(s.t_at[i]), f64::from(s.t_at[i + 1]));
            t[ch] = g0 + (g1 - g0) * frac;
            done[ch] = false;
        }
        for _ in 0..super::bezier::SOLVER_MAX_ITERATIONS {
            let mut all = true;
            for ch in 0..4 {
                let (a, b, c) = abc[ch];
                let ti = t[ch];
                let fx = ((a * ti + b) * ti + c) * ti - x;
                let (l, h) = if fx > 0.0 { (lo[ch], ti) } else { (ti, hi[ch]) };
                let d = (3.0 * a * ti + 2.0 * b) * ti + c;
                let newton = ti - fx / d;
                let next = if newton >= l && newton <= h {
                    newton
                } else {
                    0.5 * (l + h)
                };
                if !done[ch] {
                    let hit = fx.abs() <= 1e-15;
                    lo[ch] = l;
                    hi[ch] = h;
                    t[ch] = if hit { ti } else { next };
                    done[ch] = hit || (next - ti).abs() < FAST_TOLERANCE;
                }
                all &= done[ch];
            }
            if all {
                break;
            }
        }
        std::array::from_fn(|ch| {
            if seg.solver[ch] == LINEAR {
                x
            } else {
                let [y1, y2] = seg.y[ch];
                let (y1, y2, tt) = (f64::from(y1), f64::from(y2), t[ch]);
                let u = 1.0 - tt;
                3.0 * u * u * tt * y1 + 3.0 * u * tt * tt * y2 + tt * tt * tt
            }
        })
    }
}

/// What evaluating key i → key i + 1 of a bone track needs.
#[derive(Debug, Clone, Copy)]
struct BoneSegment {
    /// 1 / (frame B − frame A).
    inv_span: f64,
    /// Angle between the unit rotations (B's sign flipped onto A's hemisphere), radians.
    theta: f64,
    /// 1 / sin θ, or 0 where θ is so small that a normalized lerp is exact.
    inv_sin: f64,
    /// +1, or −1 when B's rotation is flipped to take the shorter arc.
    flip: f64,
    /// B's curves as stored (the raw bytes of each channel).
    curves: [Curve; 4],
    /// Solver id per channel, [`LINEAR`] for a straight line.
    solver: [u16; 4],
    /// Control point y1, y2 per channel in 0..1.
    y: [[f32; 2]; 4],
}

impl PartialEq for BoneSegment {
    /// Solver ids depend on the order the cache met curves in: compare the
    /// curves they were made from instead.
    fn eq(&self, o: &Self) -> bool {
        self.inv_span.to_bits() == o.inv_span.to_bits()
            && self.theta.to_bits() == o.theta.to_bits()
            && self.inv_sin.to_bits() == o.inv_sin.to_bits()
            && self.flip.to_bits() == o.flip.to_bits()
            && self.curves == o.curves
            && self.y == o.y
            && (0..4).all(|c| (self.solver[c] == LINEAR) == (o.solver[c] == LINEAR))
    }
}

/// Four curves prepared the way a cached segment holds them: the fast
/// solver on its own, for benchmarks and tests.
#[derive(Debug, Clone)]
pub struct PreparedCurves {
    solvers: Solvers,
    segment: BoneSegment,
}

impl PreparedCurves {
    pub fn new(curves: [Curve; 4]) -> PreparedCurves {
        let mut solvers = Solvers::default();
        let unit = |v: u8| f32::from(v.min(127)) / 127.0;
        let segment = BoneSegment {
            inv_span: 1.0,
            theta: 0.0,
            inv_sin: 0.0,
            flip: 1.0,
            curves,
            solver: curves.map(|c| solvers.id(c)),
            y: curves.map(|c| [unit(c.y1), unit(c.y2)]),
        };
        PreparedCurves { solvers, segment }
    }

    /// The four weights at time fraction `x` (clamped to 0..1), as the cache
    /// computes them: within 1e-6 of [`Curve::weights`].
    pub fn weights(&self, x: f64) -> [f64; 4] {
        let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
        if x <= 0.0 || x >= 1.0 {
            return [x; 4];
        }
        self.solvers.weights(&self.segment, x)
    }
}

/// One bone track, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneTrackCache {
    name_key: Vec<u8>,
    /// Key frames, strictly increasing.
    frames: Vec<u32>,
    /// (keys − 1) / (last frame − first frame): where to guess a frame's segment.
    scale: f64,
    positions: Vec<[f32; 3]>,
    /// Rotations as stored (held as they are on a key).
    rotations: Vec<[f32; 4]>,
    /// Rotations normalized (identity for a zero or non-finite one).
    units: Vec<[f32; 4]>,
    /// `segments[i]` joins key i and key i + 1.
    segments: Vec<BoneSegment>,
}

/// One morph track, decoded (linear).
#[derive(Debug, Clone, PartialEq)]
pub struct MorphTrackCache {
    name_key: Vec<u8>,
    frames: Vec<u32>,
    weights: Vec<f32>,
}

/// Where a frame falls in a track's deduplicated frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loc {
    Empty,
    Hold(usize),
    /// Strictly inside segment i (key i → key i + 1).
    Between(usize),
}

#[inline]
fn locate(frames: &[u32], frame: f64) -> Loc {
    if frames.is_empty() {
        return Loc::Empty;
    }
    let after = frames.partition_point(|&f| f64::from(f) <= frame);
    if after == 0 {
        Loc::Hold(0)
    } else if after == frames.len() || f64::from(frames[after - 1]) == frame {
        Loc::Hold(after - 1)
    } else {
        Loc::Between(after - 1)
    }
}

/// [`locate`] for a track whose frames are spread about evenly (baked
/// dances are): guesses the segment from `scale` = (n − 1) / (last − first)
/// and walks a few keys from there; falls back to the binary search when the
/// guess is more than a few keys off.
#[inline]
fn locate_scaled(frames: &[u32], scale: f64, frame: f64) -> Loc {
    let n = frames.len();
    let (Some(&first), Some(&last)) = (frames.first(), frames.last()) else {
        return Loc::Empty;
    };
    let (first, last) = (f64::from(first), f64::from(last));
    // At or before the first key (or NaN): hold the first; from the last on, the last.
    if frame.is_nan() || frame <= first {
        return Loc::Hold(0);
    }
    if frame >= last {
        return Loc::Hold(n - 1);
    }
    // Now n ≥ 2 and first < frame < last: frames[0] ≤ frame < frames[n − 1],
    // so the walks below stop inside the slice.
    let mut i = (((frame - first) * scale) as usize).min(n - 2);
    let mut steps = 0;
    while f64::from(frames[i]) > frame {
        i -= 1;
        steps += 1;
        if steps > 4 {
            return locate(frames, frame);
        }
    }
    while f64::from(frames[i + 1]) <= frame {
        i += 1;
        steps += 1;
        if steps > 4 {
            return locate(frames, frame);
        }
    }
    if f64::from(frames[i]) == frame {
        Loc::Hold(i)
    } else {
        Loc::Between(i)
    }
}

/// [`locate`] starting from a remembered segment: for frames in the same or
/// the next segment no search is needed.
#[inline]
fn locate_from(frames: &[u32], scale: f64, frame: f64, hint: &mut u32) -> Loc {
    let i = *hint as usize;
    let inside = |i: usize| {
        i + 1 < frames.len() && f64::from(frames[i]) < frame && frame < f64::from(frames[i + 1])
    };
    let loc = if inside(i) {
        Loc::Between(i)
    } else if inside(i + 1) {
        Loc::Between(i + 1)
    } else {
        locate_scaled(frames, scale, frame)
    };
    if let Loc::Between(i) | Loc::Hold(i) = loc {
        *hint = i as u32;
    }
    loc
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

/// sin x for x in [0, π/2] (a little beyond is fine): the Taylor series to
/// x¹³, whose first dropped term is below 7e-10 there.
#[inline]
fn sin_quadrant(x: f64) -> f64 {
    const C3: f64 = -1.0 / 6.0;
    const C5: f64 = 1.0 / 120.0;
    const C7: f64 = -1.0 / 5040.0;
    const C9: f64 = 1.0 / 362_880.0;
    const C11: f64 = -1.0 / 39_916_800.0;
    const C13: f64 = 1.0 / 6_227_020_800.0;
    let x2 = x * x;
    let p = C13;
    let p = p * x2 + C11;
    let p = p * x2 + C9;
    let p = p * x2 + C7;
    let p = p * x2 + C5;
    let p = p * x2 + C3;
    x + x * x2 * p
}

/// Below this sin θ a normalized lerp is used (its error is O(θ³) < 1e-12).
const NLERP_BELOW: f64 = 1e-4;

impl BoneTrackCache {
    fn build(m: &Motion, track: &Track, solvers: &mut Solvers) -> BoneTrackCache {
        // Keys sorted by frame (stable); keep the last key of each frame.
        let n = track.keys.len();
        let mut frames = Vec::with_capacity(n);
        let mut positions = Vec::with_capacity(n);
        let mut rotations = Vec::with_capacity(n);
        let mut keys = Vec::with_capacity(n);
        for &k in &track.keys {
            let Some(key) = m.bones.get(k as usize) else {
                continue;
            };
            let f = key.frame();
            if frames.last() == Some(&f) {
                frames.pop();
                positions.pop();
                rotations.pop();
                keys.pop();
            }
            frames.push(f);
            positions.push(key.position());
            rotations.push(key.rotation());
            keys.push(k);
        }
        let units64: Vec<[f64; 4]> = rotations.iter().map(|&q| unit64(q)).collect();
        let units = units64.iter().map(|q| q.map(|v| v as f32)).collect();
        let mut segments = Vec::with_capacity(frames.len().saturating_sub(1));
        for i in 1..frames.len() {
            let b = &m.bones[keys[i] as usize];
            let curves = b.curves();
            let (qa, qb) = (units64[i - 1], units64[i]);
            let d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
            let (flip, d) = if d < 0.0 { (-1.0, -d) } else { (1.0, d) };
            let d = d.min(1.0);
            let theta = d.acos();
            let sin = (1.0 - d * d).sqrt();
            let inv_sin = if sin < NLERP_BELOW { 0.0 } else { 1.0 / sin };
            let unit = |v: u8| f32::from(v.min(127)) / 127.0;
            segments.push(BoneSegment {
                inv_span: 1.0 / (f64::from(frames[i]) - f64::from(frames[i - 1])),
                theta,
                inv_sin,
                flip,
                curves,
                solver: curves.map(|c| solvers.id(c)),
                y: curves.map(|c| [unit(c.y1), unit(c.y2)]),
            });
        }
        let scale = match (frames.first(), frames.last()) {
            (Some(&a), Some(&b)) if b > a => {
                (frames.len() - 1) as f64 / (f64::from(b) - f64::from(a))
            }
            _ => 0.0,
        };
        BoneTrackCache {
            name_key: track.name_key.clone(),
            frames,
            scale,
            positions,
            rotations,
            units,
            segments,
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

    #[inline]
    fn at(&self, solvers: &Solvers, loc: Loc, frame: f64) -> BonePose {
        match loc {
            Loc::Empty => BonePose::default(),
            Loc::Hold(i) => BonePose {
                position: self.positions[i],
                rotation: self.rotations[i],
            },
            Loc::Between(i) => self.between(solvers, i, frame),
        }
    }

    #[inline]
    fn between(&self, solvers: &Solvers, i: usize, frame: f64) -> BonePose {
        let s = &self.segments[i];
        let x = ((frame - f64::from(self.frames[i])) * s.inv_span).clamp(0.0, 1.0);
        let w = if s.solver == [LINEAR; 4] || x <= 0.0 || x >= 1.0 {
            [x; 4]
        } else {
            solvers.weights(s, x)
        };
        let (pa, pb) = (self.positions[i], self.positions[i + 1]);
        let position = std::array::from_fn(|a| {
            let (p, q) = (f64::from(pa[a]), f64::from(pb[a]));
            (p + (q - p) * w[a]) as f32
        });
        let qa = self.units[i].map(f64::from);
        let qb = self.units[i + 1].map(|v| f64::from(v) * s.flip);
        let wr = w[3];
        let (sa, sb) = if s.inv_sin == 0.0 {
            // θ < 1e-4: the normalized lerp (|r|² ≥ 1 − θ²/4 before normalizing).
            (1.0 - wr, wr)
        } else {
            (
                sin_quadrant((1.0 - wr) * s.theta) * s.inv_sin,
                sin_quadrant(wr * s.theta) * s.inv_sin,
            )
        };
        let r: [f64; 4] = std::array::from_fn(|c| sa * qa[c] + sb * qb[c]);
        // |r|² = 1 − ε with ε below 1e-7 (the f32 rounding of the unit
        // inputs, or the lerp's θ²/4 < 2.5e-9): one Newton step of 1/√(|r|²)
        // leaves an error of about ε², far below f32 precision.
        let n2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
        let k = 1.5 - 0.5 * n2;
        let r = r.map(|v| v * k);
        BonePose {
            position,
            rotation: r.map(|v| v as f32),
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
            frames,
            weights,
        }
    }

    fn at(&self, frame: f64) -> f32 {
        match locate(&self.frames, frame) {
            Loc::Empty => 0.0,
            Loc::Hold(i) => self.weights[i],
            Loc::Between(i) => {
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
/// back to a binary search.
#[derive(Debug, Clone, Default)]
pub struct Playhead {
    segments: Vec<u32>,
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
            t.segments.iter().all(|s| {
                (0..4).all(|c| {
                    let id = s.solver[c];
                    if s.curves[c].is_linear() {
                        return id == LINEAR;
                    }
                    self.solvers.list.get(usize::from(id)).is_some_and(|v| {
                        (v.x1, v.x2) == (s.curves[c].x1.min(127), s.curves[c].x2.min(127))
                    })
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
            Some(t) => t.at(
                &self.solvers,
                locate_scaled(&t.frames, t.scale, frame),
                frame,
            ),
            None => BonePose::default(),
        }
    }

    /// Morph track `track`'s weight at `frame` (0 for a track that does not exist).
    pub fn morph_at(&self, track: usize, frame: f64) -> f32 {
        self.morphs.get(track).map_or(0.0, |t| t.at(frame))
    }

    /// Fills `out` with every bone's pose at `frame` (`out[i]` for bone
    /// track i) without allocating once `out` has the capacity.
    pub fn sample_bones_into(&self, frame: f64, out: &mut Vec<BonePose>) {
        out.clear();
        out.extend(self.bones.iter().map(|t| {
            t.at(
                &self.solvers,
                locate_scaled(&t.frames, t.scale, frame),
                frame,
            )
        }));
    }

    /// [`Self::sample_bones_into`] for playback: `head` remembers each
    /// track's segment, so the next frame usually needs no search. Gives
    /// exactly what [`Self::sample_bones_into`] gives, for any frame order.
    pub fn sample_bones_playing(&self, head: &mut Playhead, frame: f64, out: &mut Vec<BonePose>) {
        head.segments.resize(self.bones.len(), 0);
        out.clear();
        out.extend(
            self.bones
                .iter()
                .zip(head.segments.iter_mut())
                .map(|(t, h)| {
                    let loc = locate_from(&t.frames, t.scale, frame, h);
                    t.at(&self.solvers, loc, frame)
                }),
        );
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
    fn the_guessing_search_finds_what_the_binary_search_finds() {
        let tracks: [&[u32]; 6] = [
            &[],
            &[5],
            &[0, 10],
            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            // Uneven: a dense run, then a long gap.
            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 500, 501, 1000],
            &[3, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 4000],
        ];
        for frames in tracks {
            let scale = match (frames.first(), frames.last()) {
                (Some(&a), Some(&b)) if b > a => (frames.len() - 1) as f64 / f64::from(b - a),
                _ => 0.0,
            };
            let mut hint = 0;
            for i in -20..4100 {
                for frac in [0.0, 0.25, 0.999] {
                    let f = f64::from(i) + frac;
                    let want = locate(frames, f);
                    assert_eq!(locate_scaled(frames, scale, f), want, "{frames:?} at {f}");
                    assert_eq!(
                        locate_from(frames, scale, f, &mut hint),
                        want,
                        "{frames:?} at {f}"
                    );
                }
            }
            assert_eq!(
                locate_scaled(frames, scale, f64::NAN),
                locate(frames, f64::NAN)
            );
        }
    }

    #[test]
    fn sin_quadrant_matches_std() {
        for i in 0..=1000 {
            let x = f64::from(i) / 1000.0 * std::f64::consts::FRAC_PI_2 * 1.001;
            let (a, b) = (sin_quadrant(x), x.sin());
            assert!((a - b).abs() <= 1e-9 * b.max(1e-300), "{x}: {a} vs {b}");
        }
    }

    #[test]
    fn fast_weights_match_the_exact_solver_on_every_x_pair() {
        // Every (x1, x2) pair, y control points chosen to make the weight
        // steep, at x on and off the table's grid and near both ends.
        let xs: Vec<f64> = (1..200)
            .map(|i| f64::from(i) / 200.0)
            .chain([1e-9, 1e-6, 1e-3, 0.0625, 0.5, 1.0 - 1e-3, 1.0 - 1e-9])
            .collect();
        for x1 in 0..=127u8 {
            for x2 in (0..=127u8).step_by(3).chain([127]) {
                let curves = [
                    Curve::new(x1, 0, x2, 127),
                    Curve::new(x1, 127, x2, 0),
                    Curve::new(x1, 127, x2, 127),
                    Curve::new(x1, 0, x2, 0),
                ];
                let p = PreparedCurves::new(curves);
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
    }
}
