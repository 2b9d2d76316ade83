//! Simplify: drop keys a motion does not need, writing VMD-native curves so
//! that playback stays within a tolerance at every integer frame.
//!
//! For each bone, morph and the camera track, a minimal set of the original
//! keys is kept and every kept key gets new curves for the segment that now
//! arrives at it (quantised to the 0–127 grid exactly as the file stores
//! them, written through the record setters: every copy in a full block,
//! row 0 in a row-0-only block, never the physics bytes). Each kept segment
//! is checked by evaluating the result at every integer frame against the
//! original:
//! * bone position: every axis within `pos_tol` (MMD units);
//! * bone rotation: the angle between the two rotations ≤ `rot_tol_deg`;
//! * morph weight within `morph_tol` (straight lines only: morphs have no curves);
//! * camera: target axes and distance within their tolerances, every Euler
//!   angle within `angle_deg`, field of view within `fov_deg`.
//!
//! Always kept: the first and last key of every track, both keys around a
//! change of the physics flag or of the camera's perspective flag, both keys
//! of every camera cut (so a cut is never merged), and every light,
//! self-shadow and IK/show key. Kept keys carry all their other bytes (name
//! junk, physics flag, block filler). Keys that share a frame with a later
//! key of the same track are never played by MMD and are dropped.
//!
//! The [`SimplifyReport`] lists every track: keys before and after, and the
//! worst error of each channel kind with the frame where it occurs.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::report::{OpError, Report};
use super::simplify_fit::Effort;
pub use super::simplify_track::{ChannelKind, ErrorAt, Strategy};
use super::simplify_track::{
    ChannelSpec, FitScratch, Kept, MAX_CURVES, Segment, TrackData, kept_motion, lerp,
};
use crate::progress::Progress;
use crate::vmd::bezier::Curve;
use crate::vmd::evaluate::slerp;
use crate::vmd::interpolation::{BoneChannel, CameraChannel};
use crate::vmd::motion::Motion;
use crate::vmd::track::{Track, TrackIndex};

/// Camera tolerances.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CameraTolerances {
    /// Target (look-at point), MMD units per axis.
    pub target: f64,
    /// Each Euler angle, degrees.
    pub angle_deg: f64,
    /// Distance, MMD units.
    pub distance: f64,
    /// Field of view, degrees.
    pub fov_deg: f64,
}

/// Parameters of [`simplify`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SimplifyParams {
    /// Bone position, MMD units per axis.
    pub pos_tol: f64,
    /// Bone rotation, degrees (angle between the rotations).
    pub rot_tol_deg: f64,
    /// Morph weight (0–1).
    pub morph_tol: f64,
    pub camera: CameraTolerances,
    pub strategy: Strategy,
}

impl Default for SimplifyParams {
    fn default() -> Self {
        SimplifyParams {
            pos_tol: 0.01,
            rot_tol_deg: 0.1,
            morph_tol: 0.005,
            camera: CameraTolerances {
                target: 0.01,
                angle_deg: 0.1,
                distance: 0.01,
                fov_deg: 0.1,
            },
            strategy: Strategy::Best,
        }
    }
}

impl SimplifyParams {
    fn validate(&self) -> Result<(), OpError> {
        let all = [
            ("position tolerance", self.pos_tol),
            ("rotation tolerance", self.rot_tol_deg),
            ("morph tolerance", self.morph_tol),
            ("camera target tolerance", self.camera.target),
            ("camera angle tolerance", self.camera.angle_deg),
            ("camera distance tolerance", self.camera.distance),
            ("camera field-of-view tolerance", self.camera.fov_deg),
        ];
        for (what, v) in all {
            if !v.is_finite() || v < 0.0 {
                return Err(OpError::BadParameter(format!(
                    "the {what} must be a number ≥ 0, got {v}"
                )));
            }
        }
        Ok(())
    }
}

/// Which section a track belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum TrackKind {
    Bone,
    Morph,
    Camera,
}

/// What happened to one track.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TrackResult {
    pub kind: TrackKind,
    /// Bone or morph name ("camera" for the camera).
    pub name: String,
    pub before: usize,
    pub after: usize,
    /// Keys the greedy and the split strategy kept (when both ran).
    pub greedy_after: Option<usize>,
    pub split_after: Option<usize>,
    /// Worst error per channel kind over the track, with its frame.
    pub errors: Vec<ErrorAt>,
}

/// Key counts of the three simplified sections.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct KeyCounts {
    pub bones: usize,
    pub morphs: usize,
    pub cameras: usize,
}

/// The full account of a [`simplify`] run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SimplifyReport {
    pub params: SimplifyParams,
    pub before: KeyCounts,
    pub after: KeyCounts,
    /// Worst error per channel kind over the whole motion.
    pub worst: Vec<ErrorAt>,
    /// With [`Strategy::Best`]: total keys each strategy alone would keep
    /// (bones, morphs and camera together).
    pub greedy_total: Option<usize>,
    pub split_total: Option<usize>,
    pub tracks: Vec<TrackResult>,
    /// Plain-language lines and counters, as every operation reports.
    #[serde(skip)]
    pub report: Report,
}

/// [`simplify_with_progress`] without progress.
pub fn simplify(m: &Motion, p: &SimplifyParams) -> Result<(Motion, SimplifyReport), OpError> {
    simplify_with_progress(m, p, &Progress::default())
}

/// A unit of work: one track.
#[derive(Debug, Clone, Copy)]
enum Job {
    Bone(usize),
    Morph(usize),
    Camera,
}

/// A finished track: storage indices kept, with new curves where they changed.
struct Outcome {
    kept: Vec<(u32, Option<[Curve; MAX_CURVES]>)>,
    result: TrackResult,
}

/// Candidate keys of a sorted track: the last key (in storage order) of each
/// frame. Returns (storage indices, frames, duplicates dropped).
fn candidates(keys: &[u32], frame_of: impl Fn(u32) -> u32) -> (Vec<u32>, Vec<u32>, usize) {
    let mut idx: Vec<u32> = Vec::with_capacity(keys.len());
    let mut frames: Vec<u32> = Vec::with_capacity(keys.len());
    for &k in keys {
        let f = frame_of(k);
        if frames.last() == Some(&f) {
            *idx.last_mut().expect("same length") = k;
        } else {
            idx.push(k);
            frames.push(f);
        }
    }
    let dups = keys.len() - idx.len();
    (idx, frames, dups)
}

fn bone_track(m: &Motion, t: &Track, p: &SimplifyParams) -> (TrackData, Vec<u32>) {
    let (idx, frames, _) = candidates(&t.keys, |i| m.bones[i as usize].frame());
    let keys: Vec<_> = idx.iter().map(|&i| &m.bones[i as usize]).collect();
    let stride = 7;
    let f0 = frames[0];
    let span = (frames[frames.len() - 1] - f0) as usize + 1;
    let mut values = vec![0f32; stride * span];
    let put = |values: &mut Vec<f32>, f: u32, pos: [f32; 3], rot: [f32; 4]| {
        let at = stride * (f - f0) as usize;
        values[at..at + 3].copy_from_slice(&pos);
        values[at + 3..at + 7].copy_from_slice(&rot);
    };
    let mut curves = Vec::with_capacity(keys.len());
    for (n, k) in keys.iter().enumerate() {
        let c = k.curves();
        curves.push([c[0], c[1], c[2], c[3], Curve::LINEAR, Curve::LINEAR]);
        put(&mut values, frames[n], k.position(), k.rotation());
        if n == 0 {
            continue;
        }
        let a = keys[n - 1];
        let (fa, fb) = (frames[n - 1], frames[n]);
        let (pa, pb, ra, rb) = (a.position(), k.position(), a.rotation(), k.rotation());
        let len = f64::from(fb - fa);
        for f in fa + 1..fb {
            let w = Curve::weights(&c, f64::from(f - fa) / len);
            let pos = std::array::from_fn(|i| lerp(pa[i], pb[i], w[i]));
            let rot = slerp(ra, rb, w[BoneChannel::Rotation.index()]);
            put(&mut values, f, pos, rot);
        }
    }
    let n = keys.len();
    let mut mandatory = vec![false; n];
    mandatory[0] = true;
    mandatory[n - 1] = true;
    for k in 1..n {
        if keys[k].physics_off() != keys[k - 1].physics_off() {
            mandatory[k - 1] = true;
            mandatory[k] = true;
        }
    }
    let rot = p.rot_tol_deg.to_radians();
    let axis = |c: usize| ChannelSpec {
        kind: ChannelKind::Position,
        curve: c,
        first: c,
        count: 1,
        quat: false,
        tol: p.pos_tol,
        report_scale: 1.0,
    };
    let channels = vec![
        axis(0),
        axis(1),
        axis(2),
        ChannelSpec {
            kind: ChannelKind::Rotation,
            curve: BoneChannel::Rotation.index(),
            first: 3,
            count: 4,
            quat: true,
            tol: rot,
            report_scale: 180.0 / std::f64::consts::PI,
        },
    ];
    let td = TrackData {
        stride,
        frames,
        values,
        curves,
        mandatory,
        channels,
        linear_only: false,
    };
    (td, idx)
}

fn morph_track(m: &Motion, t: &Track, p: &SimplifyParams) -> (TrackData, Vec<u32>) {
    let (idx, frames, _) = candidates(&t.keys, |i| m.morphs[i as usize].frame());
    let f0 = frames[0];
    let span = (frames[frames.len() - 1] - f0) as usize + 1;
    let mut values = vec![0f32; span];
    for (n, &i) in idx.iter().enumerate() {
        let w = m.morphs[i as usize].weight();
        values[(frames[n] - f0) as usize] = w;
        if n == 0 {
            continue;
        }
        let a = m.morphs[idx[n - 1] as usize].weight();
        let (fa, fb) = (frames[n - 1], frames[n]);
        let len = f64::from(fb - fa);
        for f in fa + 1..fb {
            values[(f - f0) as usize] = lerp(a, w, f64::from(f - fa) / len);
        }
    }
    let n = idx.len();
    let mut mandatory = vec![false; n];
    mandatory[0] = true;
    mandatory[n - 1] = true;
    let td = TrackData {
        stride: 1,
        frames,
        values,
        curves: vec![[Curve::LINEAR; MAX_CURVES]; n],
        mandatory,
        channels: vec![ChannelSpec {
            kind: ChannelKind::Morph,
            curve: 0,
            first: 0,
            count: 1,
            quat: false,
            tol: p.morph_tol,
            report_scale: 1.0,
        }],
        linear_only: true,
    };
    (td, idx)
}

fn camera_track(m: &Motion, keys: &[u32], p: &SimplifyParams) -> (TrackData, Vec<u32>) {
    let (idx, frames, _) = candidates(keys, |i| m.cameras[i as usize].frame());
    let ks: Vec<_> = idx.iter().map(|&i| &m.cameras[i as usize]).collect();
    let stride = 8;
    let f0 = frames[0];
    let span = (frames[frames.len() - 1] - f0) as usize + 1;
    let mut values = vec![0f32; stride * span];
    let put = |values: &mut Vec<f32>, f: u32, v: [f32; 8]| {
        let at = stride * (f - f0) as usize;
        values[at..at + 8].copy_from_slice(&v);
    };
    let of = |k: &crate::vmd::CameraKey| {
        let (t, r) = (k.target(), k.rotation());
        [
            t[0],
            t[1],
            t[2],
            r[0],
            r[1],
            r[2],
            k.distance(),
            k.fov() as f32,
        ]
    };
    let mut curves = Vec::with_capacity(ks.len());
    for (n, k) in ks.iter().enumerate() {
        let c = k.curves();
        curves.push(c);
        let vb = of(k);
        put(&mut values, frames[n], vb);
        if n == 0 {
            continue;
        }
        let va = of(ks[n - 1]);
        let (fa, fb) = (frames[n - 1], frames[n]);
        let len = f64::from(fb - fa);
        for f in fa + 1..fb {
            let w = Curve::weights(&c, f64::from(f - fa) / len);
            let wi = [0, 1, 2, 3, 3, 3, 4, 5];
            let v = std::array::from_fn(|i| lerp(va[i], vb[i], w[wi[i]]));
            put(&mut values, f, v);
        }
    }
    let n = ks.len();
    let mut mandatory = vec![false; n];
    mandatory[0] = true;
    mandatory[n - 1] = true;
    for k in 1..n {
        let cut = frames[k] - frames[k - 1] == 1;
        if cut || ks[k].perspective_byte() != ks[k - 1].perspective_byte() {
            mandatory[k - 1] = true;
            mandatory[k] = true;
        }
    }
    let channels = camera_channels(&p.camera);
    let td = TrackData {
        stride,
        frames,
        values,
        curves,
        mandatory,
        channels,
        linear_only: false,
    };
    (td, idx)
}

/// The camera's channels and their tolerances: target x, y, z, distance
/// and field of view one value each; the three angles together (reported
/// in degrees).
fn camera_channels(c: &CameraTolerances) -> Vec<ChannelSpec> {
    let spec = |kind, curve: CameraChannel, first, count, tol: f64, scale| ChannelSpec {
        kind,
        curve: curve.index(),
        first,
        count,
        quat: false,
        tol,
        report_scale: scale,
    };
    let deg = 180.0 / std::f64::consts::PI;
    vec![
        spec(
            ChannelKind::CameraTarget,
            CameraChannel::TargetX,
            0,
            1,
            c.target,
            1.0,
        ),
        spec(
            ChannelKind::CameraTarget,
            CameraChannel::TargetY,
            1,
            1,
            c.target,
            1.0,
        ),
        spec(
            ChannelKind::CameraTarget,
            CameraChannel::TargetZ,
            2,
            1,
            c.target,
            1.0,
        ),
        spec(
            ChannelKind::CameraDistance,
            CameraChannel::Distance,
            6,
            1,
            c.distance,
            1.0,
        ),
        spec(
            ChannelKind::CameraFov,
            CameraChannel::Fov,
            7,
            1,
            c.fov_deg,
            1.0,
        ),
        spec(
            ChannelKind::CameraAngle,
            CameraChannel::Rotation,
            3,
            3,
            c.angle_deg.to_radians(),
            deg,
        ),
    ]
}

/// Keys the greedy strategy looks back on morph and on bone/camera tracks.
const MORPH_LOOKBACK: usize = 3;
const BONE_LOOKBACK: usize = 0;

/// Chooses the segments of one track.
fn choose(
    td: &TrackData,
    strategy: Strategy,
    s: &mut FitScratch,
) -> (Vec<Segment>, Option<usize>, Option<usize>) {
    // Straight-line fits are cheap: look back for corners on morph tracks.
    let lookback = if td.linear_only {
        MORPH_LOOKBACK
    } else {
        BONE_LOOKBACK
    };
    match strategy {
        Strategy::Greedy => (td.greedy(Effort::Bezier, lookback, s), None, None),
        Strategy::Split => (td.split(Effort::Bezier, s), None, None),
        Strategy::LinearGreedy => (td.greedy(Effort::Linear, lookback, s), None, None),
        Strategy::Best => {
            let g = td.greedy(Effort::Bezier, lookback, s);
            // Split pays off where keys are dense (baked, captured): there
            // a sub-segment of an eased segment may not fit when the whole
            // does, which misleads the greedy probe. On sparse hand-keyed
            // tracks it finds the same keys at the same cost again.
            if !td.dense() {
                let n = g.len() + 1;
                return (g, Some(n), None);
            }
            let sp = td.split(Effort::Bezier, s);
            let (gk, sk) = (g.len() + 1, sp.len() + 1);
            let best = if sp.len() < g.len() { sp } else { g };
            (best, Some(gk), Some(sk))
        }
    }
}

fn run_job(
    m: &Motion,
    idx: &TrackIndex,
    job: Job,
    p: &SimplifyParams,
    s: &mut FitScratch,
) -> Option<Outcome> {
    let (kind, name, keys) = match job {
        Job::Bone(i) => (
            TrackKind::Bone,
            idx.bones[i].name().text,
            idx.bones[i].keys.len(),
        ),
        Job::Morph(i) => (
            TrackKind::Morph,
            idx.morphs[i].name().text,
            idx.morphs[i].keys.len(),
        ),
        Job::Camera => (TrackKind::Camera, "camera".to_string(), idx.camera.len()),
    };
    if keys == 0 {
        return None;
    }
    let (td, storage) = match job {
        Job::Bone(i) => bone_track(m, &idx.bones[i], p),
        Job::Morph(i) => morph_track(m, &idx.morphs[i], p),
        Job::Camera => camera_track(m, &idx.camera, p),
    };
    let (segs, greedy_after, split_after) = if td.frames.len() > 1 {
        choose(&td, p.strategy, s)
    } else {
        (Vec::new(), Some(1), Some(1))
    };
    let (greedy_after, split_after) = if p.strategy == Strategy::Best {
        (greedy_after, split_after)
    } else {
        (None, None)
    };
    let mut errors: Vec<ErrorAt> = td
        .channels
        .iter()
        .map(|c| ErrorAt {
            kind: c.kind,
            error: 0.0,
            frame: td.frames[0],
        })
        .collect();
    let mut kept = Vec::with_capacity(segs.len() + 1);
    kept.push((storage[0], None));
    let mut start = 0;
    for seg in &segs {
        td.check(start, seg.end, &seg.curves, Some(&mut errors));
        let changed = (seg.curves != td.curves[seg.end]).then_some(seg.curves);
        kept.push((storage[seg.end], changed));
        start = seg.end;
    }
    // One entry per kind: the worst of its channels.
    let mut merged: Vec<ErrorAt> = Vec::new();
    for e in errors {
        match merged.iter_mut().find(|m| m.kind == e.kind) {
            Some(m) if e.error > m.error => *m = e,
            Some(_) => {}
            None => merged.push(e),
        }
    }
    Some(Outcome {
        result: TrackResult {
            kind,
            name,
            before: keys,
            after: kept.len(),
            greedy_after,
            split_after,
            errors: merged,
        },
        kept,
    })
}

/// Simplifies; see the module docs. `progress` counts frames of finished
/// tracks; setting its `cancel` stops the run with an error (nothing changed).
pub fn simplify_with_progress(
    m: &Motion,
    p: &SimplifyParams,
    progress: &Progress,
) -> Result<(Motion, SimplifyReport), OpError> {
    p.validate()?;
    let idx = TrackIndex::build(m);
    let mut jobs: Vec<(u64, Job)> = Vec::new();
    let span = |frames: &[u32]| match (frames.iter().min(), frames.iter().max()) {
        (Some(a), Some(b)) => u64::from(b - a) + 1,
        _ => 0,
    };
    for (i, t) in idx.bones.iter().enumerate() {
        jobs.push((span(&t.frames), Job::Bone(i)));
    }
    for (i, t) in idx.morphs.iter().enumerate() {
        jobs.push((span(&t.frames), Job::Morph(i)));
    }
    if !idx.camera.is_empty() {
        let frames: Vec<u32> = idx
            .camera
            .iter()
            .map(|&i| m.cameras[i as usize].frame())
            .collect();
        jobs.push((span(&frames), Job::Camera));
    }
    progress.set_steps(jobs.iter().map(|j| j.0).sum::<u64>().max(1));
    // Largest first, so the workers finish together.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(jobs[i].0));
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len())
        .max(1);
    std::thread::scope(|sc| {
        for _ in 0..workers {
            sc.spawn(|| {
                let mut scratch = FitScratch::default();
                loop {
                    if progress.is_cancelled() {
                        return;
                    }
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&ji) = order.get(n) else { return };
                    let (w, job) = jobs[ji];
                    let out = run_job(m, &idx, job, p, &mut scratch);
                    if let Ok(mut r) = results.lock() {
                        r[ji] = out;
                    }
                    progress.advance(w);
                }
            });
        }
    });
    if progress.is_cancelled() {
        return Err(OpError::BadParameter("simplify was cancelled".into()));
    }
    let results = results
        .into_inner()
        .map_err(|_| OpError::BadInput("a simplify worker failed".into()))?;
    assemble(m, p, results)
}

fn assemble(
    m: &Motion,
    p: &SimplifyParams,
    results: Vec<Option<Outcome>>,
) -> Result<(Motion, SimplifyReport), OpError> {
    let mut bone_new: Vec<Kept> = vec![None; m.bones.len()];
    let mut morph_keep = vec![false; m.morphs.len()];
    let mut cam_new: Vec<Kept> = vec![None; m.cameras.len()];
    let mut r = Report::new();
    let mut tracks = Vec::new();
    let mut worst: Vec<ErrorAt> = Vec::new();
    let (mut gt, mut st) = (0usize, 0usize);
    for o in results.into_iter().flatten() {
        for (i, c) in o.kept {
            match o.result.kind {
                TrackKind::Bone => bone_new[i as usize] = Some(c),
                TrackKind::Morph => morph_keep[i as usize] = true,
                TrackKind::Camera => cam_new[i as usize] = Some(c),
            }
        }
        let t = o.result;
        gt += t.greedy_after.unwrap_or(t.after);
        st += t.split_after.or(t.greedy_after).unwrap_or(t.after);
        for e in &t.errors {
            match worst.iter_mut().find(|w| w.kind == e.kind) {
                Some(w) if e.error > w.error => *w = *e,
                Some(_) => {}
                None => worst.push(*e),
            }
        }
        r.note(track_note(&t));
        tracks.push(t);
    }
    let mut changed = 0usize;
    let out = kept_motion(m, &bone_new, &morph_keep, &cam_new, &mut changed);
    let before = KeyCounts {
        bones: m.bones.len(),
        morphs: m.morphs.len(),
        cameras: m.cameras.len(),
    };
    let after = KeyCounts {
        bones: out.bones.len(),
        morphs: out.morphs.len(),
        cameras: out.cameras.len(),
    };
    r.dropped = (before.bones + before.morphs + before.cameras)
        - (after.bones + after.morphs + after.cameras);
    r.changed = changed;
    r.note(format!(
        "keys: bones {} → {}, morphs {} → {}, camera {} → {}",
        before.bones, after.bones, before.morphs, after.morphs, before.cameras, after.cameras
    ));
    for w in &worst {
        r.note(format!(
            "worst {}: {:.4}{} at frame {}",
            w.kind.label(),
            w.error,
            w.kind.unit(),
            w.frame
        ));
    }
    let both = p.strategy == Strategy::Best;
    if both {
        r.note(format!(
            "strategies: greedy alone keeps {gt} keys, split alone {st} (split runs on dense tracks only); the better one was kept per track"
        ));
    }
    let rep = SimplifyReport {
        params: *p,
        before,
        after,
        worst,
        greedy_total: both.then_some(gt),
        split_total: both.then_some(st),
        tracks,
        report: r,
    };
    Ok((out, rep))
}

/// The report line of one track: its key counts and worst errors.
fn track_note(t: &TrackResult) -> String {
    let errs: Vec<String> = t
        .errors
        .iter()
        .map(|e| {
            format!(
                "{} {:.4}{} at frame {}",
                e.kind.label(),
                e.error,
                e.kind.unit(),
                e.frame
            )
        })
        .collect();
    let what = match t.kind {
        TrackKind::Bone => format!("bone \"{}\"", t.name),
        TrackKind::Morph => format!("morph \"{}\"", t.name),
        TrackKind::Camera => "camera".to_string(),
    };
    format!(
        "{what}: {} → {} keys; worst {}",
        t.before,
        t.after,
        if errs.is_empty() {
            "error 0".to_string()
        } else {
            errs.join(", ")
        }
    )
}
