//! One track for [`simplify`](fn@super::simplify): its samples at every integer frame,
//! its candidate keys, and the strategies that choose which keys stay.
//!
//! A track is a list of candidate keys (the original keys, one per frame:
//! when several share a frame the last in storage order is the one MMD
//! plays, so it is the candidate) and the original value at every integer
//! frame from the first key to the last, computed exactly the way
//! [`crate::vmd::evaluate`] computes it (f32 results). Keeping keys i < j and
//! dropping the ones between makes one segment whose curves are those of
//! key j; [`TrackData::fit_segment`] finds them or says no, and every "yes"
//! has been checked by evaluating the result at every integer frame.
//!
//! At the end, [`kept_motion`] writes the kept keys and their new curves
//! back into a motion.

use super::simplify_fit::{Bands, Effort, Scratch, fit_curve};
use crate::vmd::bezier::Curve;
use crate::vmd::evaluate::slerp;
use crate::vmd::interpolation::{BoneChannel, CameraChannel};
use crate::vmd::motion::Motion;

/// Most curves a key has (a camera key's six).
pub const MAX_CURVES: usize = 6;

/// What a channel measures; its error is reported in these units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ChannelKind {
    /// Bone position, MMD units (worst axis).
    Position,
    /// Bone rotation, degrees (angle between the two rotations).
    Rotation,
    /// Morph weight (0–1).
    Morph,
    /// Camera target, MMD units (worst axis).
    CameraTarget,
    /// Camera Euler angles, degrees (worst angle).
    CameraAngle,
    /// Camera distance, MMD units.
    CameraDistance,
    /// Camera field of view, degrees.
    CameraFov,
}

impl ChannelKind {
    pub fn label(self) -> &'static str {
        match self {
            ChannelKind::Position => "bone position",
            ChannelKind::Rotation => "bone rotation",
            ChannelKind::Morph => "morph weight",
            ChannelKind::CameraTarget => "camera target",
            ChannelKind::CameraAngle => "camera angle",
            ChannelKind::CameraDistance => "camera distance",
            ChannelKind::CameraFov => "camera field of view",
        }
    }
    pub fn unit(self) -> &'static str {
        match self {
            ChannelKind::Rotation | ChannelKind::CameraAngle | ChannelKind::CameraFov => "°",
            ChannelKind::Morph => "",
            _ => " units",
        }
    }
}

/// One group of sample components that share one curve.
#[derive(Debug, Clone, Copy)]
pub struct ChannelSpec {
    pub kind: ChannelKind,
    /// Index of the key's curve this channel uses.
    pub curve: usize,
    /// First sample component and how many (a quaternion is 4 from `first`).
    pub first: usize,
    pub count: usize,
    pub quat: bool,
    /// Tolerance in sample units (radians of rotation for quaternions).
    pub tol: f64,
    /// Multiplier from sample units to report units (degrees for angles).
    pub report_scale: f64,
}

/// Fraction of the tolerance the fitter aims for; the check that decides
/// uses the whole tolerance (the rest absorbs f32 rounding of the result).
const AIM: f64 = 0.99;

/// A track ready to simplify.
#[derive(Debug, Clone)]
pub struct TrackData {
    pub stride: usize,
    /// Candidate key frames, strictly increasing.
    pub frames: Vec<u32>,
    /// Sample components at every integer frame from `frames[0]`:
    /// `values[stride·(f − frames[0]) + c]`. At a key frame, the key's values.
    pub values: Vec<f32>,
    /// Each candidate key's own curves.
    pub curves: Vec<[Curve; MAX_CURVES]>,
    /// Keys that must stay (first, last, physics flag changes, cuts, …).
    pub mandatory: Vec<bool>,
    pub channels: Vec<ChannelSpec>,
    /// Morph tracks: straight lines only, no curves stored.
    pub linear_only: bool,
}

/// One kept segment: from the previous kept key to candidate `end`, with
/// `end`'s new curves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub end: usize,
    pub curves: [Curve; MAX_CURVES],
}

/// How keys are chosen. `Best` is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Strategy {
    /// Per track, the better of `Greedy` and `Split` (fewer keys); `Split`
    /// runs only on dense tracks (a key on at least half the frames).
    Best,
    /// Extend each segment as far as a fitted curve holds (exponential
    /// probe, then bisection), least-squares Bézier fitting.
    Greedy,
    /// Split at the worst frame until every piece fits, then merge
    /// neighbours that fit together; least-squares Bézier fitting.
    Split,
    /// `Greedy` with straight lines only (the baseline).
    LinearGreedy,
}

/// Worst error of one channel kind over a track: value (report units) and frame.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ErrorAt {
    pub kind: ChannelKind,
    pub error: f64,
    pub frame: u32,
}

impl TrackData {
    /// A key on at least half the frames (baked, captured): where the
    /// extra searches for non-monotone feasibility pay off.
    pub fn dense(&self) -> bool {
        let span = self.frames.last().map_or(0, |l| l - self.frames[0]) as usize + 1;
        self.frames.len() * 2 >= span
    }

    fn sample(&self, frame: u32, c: usize) -> f32 {
        self.values[self.stride * (frame - self.frames[0]) as usize + c]
    }

    fn quat(&self, frame: u32, first: usize) -> [f32; 4] {
        std::array::from_fn(|i| self.sample(frame, first + i))
    }

    /// Fills `b` with the bands of channel `ch` for the segment i → j.
    /// Returns false when some sample cannot be met by any weight.
    fn bands(&self, ch: &ChannelSpec, i: usize, j: usize, b: &mut Bands) -> bool {
        let (fs, fe) = (self.frames[i], self.frames[j]);
        b.reset(fe - fs);
        let tol = ch.tol * AIM;
        if ch.quat {
            return self.quat_bands(ch, fs, fe, tol, b);
        }
        for c in ch.first..ch.first + ch.count {
            let a = f64::from(self.sample(fs, c));
            let d = f64::from(self.sample(fe, c)) - a;
            for k in 0..b.xs.len() {
                let v = f64::from(self.sample(fs + 1 + k as u32, c));
                if d.abs() < 1e-12 {
                    if (v - a).abs() > tol {
                        return false;
                    }
                    continue;
                }
                let (mut lo, mut hi) = ((v - tol - a) / d, (v + tol - a) / d);
                if lo > hi {
                    std::mem::swap(&mut lo, &mut hi);
                }
                b.lo[k] = b.lo[k].max(lo);
                b.hi[k] = b.hi[k].min(hi);
                if b.lo[k] > b.hi[k] {
                    return false;
                }
            }
        }
        true
    }

    /// Bands for a slerped quaternion. With e1 = qa and e2 the unit vector
    /// towards qb in the plane of the arc, a sample q at distance d off the
    /// arc (cos d = |projection|) and at arc angle α is within `tol4` of the
    /// arc point at angle wθ iff cos d · cos(α − wθ) ≥ cos tol4 (spherical
    /// Pythagoras), i.e. |α − wθ| ≤ acos(cos tol4 / cos d).
    fn quat_bands(&self, ch: &ChannelSpec, fs: u32, fe: u32, tol: f64, b: &mut Bands) -> bool {
        // tol is a rotation angle; quaternion (4-D) angles are half of it.
        let tol4 = 0.5 * tol;
        let cos_tol = tol4.cos();
        let qa = unit(self.quat(fs, ch.first));
        let mut qb = unit(self.quat(fe, ch.first));
        let mut dot = dot4(qa, qb);
        if dot < 0.0 {
            qb = qb.map(|v| -v);
            dot = -dot;
        }
        let dot = dot.min(1.0);
        let e2 = std::array::from_fn::<f64, 4, _>(|i| qb[i] - dot * qa[i]);
        let e2len = dot4(e2, e2).sqrt();
        let theta = 2.0 * e2len.atan2(dot);
        // θ below ~1e-9: the arc is a point; every sample must be near qa.
        let flat = e2len < 1e-9;
        let e2 = e2.map(|v| if flat { 0.0 } else { v / e2len });
        // Towards the arc's midpoint (4-D angle θ/4 from qa).
        let (sh, ch_) = (0.25 * theta).sin_cos();
        for k in 0..b.xs.len() {
            let q = unit(self.quat(fs + 1 + k as u32, ch.first));
            let (mut c1, mut c2) = (dot4(q, qa), dot4(q, e2));
            if c1 * ch_ + c2 * sh < 0.0 {
                c1 = -c1;
                c2 = -c2;
            }
            let r = c1.hypot(c2).min(1.0);
            if r < cos_tol {
                return false;
            }
            let half = (cos_tol / r).min(1.0).acos();
            if flat {
                let alpha = c2.atan2(c1).abs();
                if alpha > half {
                    return false;
                }
                continue;
            }
            let alpha = c2.atan2(c1);
            let theta4 = 0.5 * theta;
            b.lo[k] = b.lo[k].max((alpha - half) / theta4);
            b.hi[k] = b.hi[k].min((alpha + half) / theta4);
            if b.lo[k] > b.hi[k] {
                return false;
            }
        }
        true
    }

    /// Evaluates the segment i → j with `curves` at every interior integer
    /// frame and compares with the original. Returns false past a tolerance;
    /// when `errors` is given, raises each channel's worst error in it.
    pub fn check(
        &self,
        i: usize,
        j: usize,
        curves: &[Curve; MAX_CURVES],
        mut errors: Option<&mut [ErrorAt]>,
    ) -> bool {
        let (fs, fe) = (self.frames[i], self.frames[j]);
        let len = f64::from(fe - fs);
        let mut ok = true;
        for f in fs + 1..fe {
            let x = f64::from(f - fs) / len;
            for (n, ch) in self.channels.iter().enumerate() {
                let curve = curves[ch.curve];
                let w = if self.linear_only || curve.is_linear() {
                    x
                } else {
                    curve.weight(x)
                };
                let err = if ch.quat {
                    let r = slerp(self.quat(fs, ch.first), self.quat(fe, ch.first), w);
                    rotation_between(r, self.quat(f, ch.first))
                } else {
                    let mut worst = 0.0f64;
                    for c in ch.first..ch.first + ch.count {
                        let a = self.sample(fs, c);
                        let b = self.sample(fe, c);
                        let v = lerp(a, b, w);
                        worst = worst.max((f64::from(v) - f64::from(self.sample(f, c))).abs());
                    }
                    worst
                };
                if err > ch.tol {
                    ok = false;
                    if errors.is_none() {
                        return false;
                    }
                }
                if let Some(e) = errors.as_deref_mut() {
                    let v = err * ch.report_scale;
                    if v > e[n].error {
                        e[n].error = v;
                        e[n].frame = f;
                    }
                }
            }
        }
        ok
    }

    /// Fits the segment i → j (i < j), or `None`. Adjacent keys keep the
    /// later key's own curves (nothing between them changes).
    pub fn fit_segment(
        &self,
        i: usize,
        j: usize,
        prev: Option<&[Curve; MAX_CURVES]>,
        effort: Effort,
        s: &mut FitScratch,
    ) -> Option<[Curve; MAX_CURVES]> {
        if j == i + 1 {
            return Some(self.curves[j]);
        }
        let mut out = self.curves[j];
        let effort = if self.linear_only {
            Effort::Linear
        } else {
            effort
        };
        // Rotation-like channels fail most often: try them first.
        for ch in self.channels.iter().rev() {
            if !self.bands(ch, i, j, &mut s.bands) {
                return None;
            }
            let own = self.curves[j][ch.curve];
            let mut hints = [own, own];
            if let Some(p) = prev {
                hints[1] = p[ch.curve];
            }
            let c = fit_curve(&s.bands, &hints, effort, &mut s.fit)?;
            // Keep the key's own bytes when it is already a straight line.
            out[ch.curve] = if c.is_linear() && own.is_linear() {
                own
            } else {
                c
            };
        }
        if self.linear_only {
            out = self.curves[j];
        }
        self.check(i, j, &out, None).then_some(out)
    }

    fn next_barrier(&self, s: usize) -> usize {
        let n = self.frames.len();
        (s + 1..n).find(|&k| self.mandatory[k]).unwrap_or(n - 1)
    }

    /// The farthest end from `start` (up to `limit`) that fits, with its
    /// curves: an exponential probe, then bisection.
    fn reach(
        &self,
        start: usize,
        limit: usize,
        prev: &mut Option<[Curve; MAX_CURVES]>,
        effort: Effort,
        s: &mut FitScratch,
    ) -> (usize, [Curve; MAX_CURVES]) {
        let mut good = start + 1;
        let mut good_c = self.curves[good];
        let mut bad = None;
        let mut step = 2;
        while good < limit {
            let e = (start + step).min(limit);
            match self.fit_segment(start, e, prev.as_ref(), effort, s) {
                Some(c) => {
                    good = e;
                    good_c = c;
                    *prev = Some(c);
                }
                None => {
                    bad = Some(e);
                    break;
                }
            }
            step *= 2;
        }
        if let Some(mut bad) = bad {
            while bad - good > 1 {
                let mid = good + (bad - good) / 2;
                match self.fit_segment(start, mid, prev.as_ref(), effort, s) {
                    Some(c) => {
                        good = mid;
                        good_c = c;
                        *prev = Some(c);
                    }
                    None => bad = mid,
                }
            }
        }
        // Feasibility is not monotone: a sub-segment of an eased segment
        // may fit no VMD curve when the whole does (its control points would
        // leave the unit square). The whole usually ends where the motion
        // turns, so try the farthest end whose bands are still passable.
        // Only on dense tracks: between hand-set keys the sub-segments are
        // the keys' own curves, and on the corpus this never found a key
        // there while costing a third of all fits.
        if !self.linear_only && good < limit && self.dense() {
            let turn = self.last_passable(start, good, limit, s);
            for e in [turn, turn.saturating_sub(1)] {
                if e > good
                    && let Some(c) = self.fit_segment(start, e, prev.as_ref(), effort, s)
                {
                    good = e;
                    good_c = c;
                    *prev = Some(c);
                    break;
                }
            }
        }
        (good, good_c)
    }

    /// Whether every channel's bands for i → j can be passed by some
    /// non-decreasing weight (a cheap necessary condition for a fit).
    fn passable(&self, i: usize, j: usize, s: &mut FitScratch) -> bool {
        self.channels
            .iter()
            .all(|ch| self.bands(ch, i, j, &mut s.bands) && !s.bands.impossible())
    }

    /// The farthest end in `from..=limit` reachable from `start` with
    /// passable bands (exponential probe, then bisection).
    fn last_passable(&self, start: usize, from: usize, limit: usize, s: &mut FitScratch) -> usize {
        let mut good = from;
        let mut bad = None;
        let mut step = 1;
        while good < limit {
            let e = (good + step).min(limit);
            if self.passable(start, e, s) {
                good = e;
            } else {
                bad = Some(e);
                break;
            }
            step *= 2;
        }
        if let Some(mut bad) = bad {
            while bad - good > 1 {
                let mid = good + (bad - good) / 2;
                if self.passable(start, mid, s) {
                    good = mid;
                } else {
                    bad = mid;
                }
            }
        }
        good
    }

    /// Greedy: from each kept key, the farthest end that fits. With
    /// `lookback` > 0, the key chosen is the one among the last `lookback`+1
    /// reachable keys that reaches farthest next (a key one frame past a
    /// corner fits too, but the corner itself leads further).
    pub fn greedy(&self, effort: Effort, lookback: usize, s: &mut FitScratch) -> Vec<Segment> {
        let n = self.frames.len();
        let mut out = Vec::new();
        let mut start = 0;
        let mut prev: Option<[Curve; MAX_CURVES]> = None;
        // A reach already computed for the next start: (start, end, curves).
        let mut known: Option<(usize, usize, [Curve; MAX_CURVES])> = None;
        while start + 1 < n {
            let limit = self.next_barrier(start);
            let (good, good_c) = match known.take() {
                Some((st, e, c)) if st == start => (e, c),
                _ => self.reach(start, limit, &mut prev, effort, s),
            };
            let mut pick = (good, good_c);
            if lookback > 0 && good < limit {
                let next_limit = self.next_barrier(good);
                let mut best = self.reach(good, next_limit, &mut prev, effort, s);
                let mut best_from = good;
                for back in 1..=lookback {
                    let cand = good.saturating_sub(back);
                    if cand <= start {
                        break;
                    }
                    let Some(c) = self.fit_segment(start, cand, prev.as_ref(), effort, s) else {
                        continue;
                    };
                    let r = self.reach(cand, self.next_barrier(cand), &mut prev, effort, s);
                    if r.0 > best.0 {
                        best = r;
                        best_from = cand;
                        pick = (cand, c);
                    }
                }
                known = Some((best_from, best.0, best.1));
            }
            out.push(Segment {
                end: pick.0,
                curves: pick.1,
            });
            start = pick.0;
        }
        out
    }

    /// Split then merge.
    pub fn split(&self, effort: Effort, s: &mut FitScratch) -> Vec<Segment> {
        let n = self.frames.len();
        let mut out = Vec::new();
        let mut start = 0;
        while start + 1 < n {
            let limit = self.next_barrier(start);
            self.split_rec(start, limit, effort, s, &mut out);
            start = limit;
        }
        // Merge neighbours that fit as one (never across a mandatory key).
        let mut merged: Vec<Segment> = Vec::with_capacity(out.len());
        let mut seg_start = 0usize;
        for seg in out {
            if let Some(last) = merged.last().copied() {
                let mid = last.end;
                if !self.mandatory[mid]
                    && let Some(c) = self.fit_segment(seg_start, seg.end, None, effort, s)
                {
                    *merged.last_mut().expect("non-empty") = Segment {
                        end: seg.end,
                        curves: c,
                    };
                    continue;
                }
                seg_start = mid;
            }
            merged.push(seg);
        }
        merged
    }

    fn split_rec(
        &self,
        i: usize,
        j: usize,
        effort: Effort,
        s: &mut FitScratch,
        out: &mut Vec<Segment>,
    ) {
        if let Some(c) = self.fit_segment(i, j, None, effort, s) {
            out.push(Segment { end: j, curves: c });
            return;
        }
        // The interior key farthest (in tolerances) from the straight chord.
        let (fs, fe) = (self.frames[i], self.frames[j]);
        let len = f64::from(fe - fs);
        let mut best = (i + j) / 2;
        let mut best_d = -1.0;
        for k in i + 1..j {
            let f = self.frames[k];
            let x = f64::from(f - fs) / len;
            let mut d = 0.0f64;
            for ch in &self.channels {
                let e = if ch.quat {
                    let r = slerp(self.quat(fs, ch.first), self.quat(fe, ch.first), x);
                    rotation_between(r, self.quat(f, ch.first))
                } else {
                    (ch.first..ch.first + ch.count)
                        .map(|c| {
                            let v = lerp(self.sample(fs, c), self.sample(fe, c), x);
                            (f64::from(v) - f64::from(self.sample(f, c))).abs()
                        })
                        .fold(0.0, f64::max)
                };
                d = d.max(e / ch.tol.max(1e-12));
            }
            if d > best_d {
                best_d = d;
                best = k;
            }
        }
        self.split_rec(i, best, effort, s, out);
        self.split_rec(best, j, effort, s, out);
    }
}

/// Reusable buffers of one worker.
#[derive(Debug, Default)]
pub struct FitScratch {
    bands: Bands,
    fit: Scratch,
}

/// MMD's linear interpolation of one f32 component (as in `evaluate`).
#[inline]
pub fn lerp(a: f32, b: f32, w: f64) -> f32 {
    (f64::from(a) + (f64::from(b) - f64::from(a)) * w) as f32
}

#[inline]
fn dot4(a: [f64; 4], b: [f64; 4]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

fn unit(q: [f32; 4]) -> [f64; 4] {
    let q = q.map(f64::from);
    let len = dot4(q, q).sqrt();
    if len.is_finite() && len > 1e-12 {
        q.map(|v| v / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Angle (radians) of the rotation taking `a` to `b`: twice the angle
/// between the unit quaternions, measured as 2·atan2(|a − b|, |a + b|)
/// (well conditioned for tiny angles, unlike acos of the dot product).
pub fn rotation_between(a: [f32; 4], b: [f32; 4]) -> f64 {
    let a = unit(a);
    let mut b = unit(b);
    if dot4(a, b) < 0.0 {
        b = b.map(|v| -v);
    }
    let d: [f64; 4] = std::array::from_fn(|i| a[i] - b[i]);
    let s: [f64; 4] = std::array::from_fn(|i| a[i] + b[i]);
    4.0 * dot4(d, d).sqrt().atan2(dot4(s, s).sqrt())
}

/// New curves for a kept key (`None`: its own), per storage index; `None`
/// outside: the key is dropped.
pub type Kept = Option<Option<[Curve; MAX_CURVES]>>;

/// The kept keys of one section in storage order, with their new curves
/// written by `set`; counts the keys whose curves were rewritten.
fn keep_with_curves<K: Clone>(
    keys: &[K],
    kept: &[Kept],
    changed: &mut usize,
    set: impl Fn(&mut K, &[Curve; MAX_CURVES]),
) -> Vec<K> {
    let mut out = Vec::with_capacity(kept.iter().filter(|k| k.is_some()).count());
    for (k, n) in keys.iter().zip(kept) {
        let Some(n) = n else { continue };
        let mut k = k.clone();
        if let Some(c) = n {
            set(&mut k, c);
            *changed += 1;
        }
        out.push(k);
    }
    out
}

/// The motion with only the kept keys (bones and camera with their new
/// curves, counted in `changed`), every other section and byte as it was.
pub fn kept_motion(
    m: &Motion,
    bone_new: &[Kept],
    morph_keep: &[bool],
    cam_new: &[Kept],
    changed: &mut usize,
) -> Motion {
    let bones = keep_with_curves(&m.bones, bone_new, changed, |k, c| {
        for ch in BoneChannel::ALL {
            if k.curve(ch) != c[ch.index()] {
                k.set_curve(ch, c[ch.index()]);
            }
        }
    });
    let cameras = keep_with_curves(&m.cameras, cam_new, changed, |k, c| {
        for ch in CameraChannel::ALL {
            if k.curve(ch) != c[ch.index()] {
                k.set_curve(ch, c[ch.index()]);
            }
        }
    });
    let morphs = m
        .morphs
        .iter()
        .zip(morph_keep)
        .filter(|(_, keep)| **keep)
        .map(|(k, _)| *k)
        .collect();
    // Every other section and byte as it was (without cloning the keys
    // that are replaced).
    Motion {
        header: m.header,
        version: m.version,
        model_name_field: m.model_name_field.clone(),
        bones,
        morphs,
        cameras,
        lights: m.lights.clone(),
        shadows: m.shadows.clone(),
        iks: m.iks.clone(),
        sections_present: m.sections_present,
        trailing: m.trailing.clone(),
    }
}
