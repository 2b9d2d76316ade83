//! Trim: keep frames A..B so that playback inside the range is unchanged.
//!
//! For every track:
//! * keys with A ≤ frame ≤ B are kept (copied byte for byte);
//! * without a key at A, one is added with the value evaluated at A. Nothing
//!   arrives at the new first key, so it gets the default linear block
//!   (bones: physics flag copied from the key in force at A);
//! * the curve of a segment belongs to its END key. When a segment P → K
//!   straddles A (P < A < K ≤ B), K keeps only the part of its curve after
//!   A (see [`sub_curve`]);
//! * when keys follow B and there is no key at B, one is added with the value
//!   evaluated at B; its curve is the part of the straddling segment L → N
//!   (N the first key after B) between max(L, A) and B;
//! * self-shadow and IK/show keys hold, so they only need the key at A.
//!
//! Camera cuts inside the range stay cuts (keys one frame apart stay one
//! frame apart). A key added at A or B one frame away from its neighbour
//! makes a new cut; that is reported. `--rebase` moves A to frame 0.
//!
//! Curve pieces are rounded to 0..=127; pieces off by more than one unit or
//! not representable are reported.

use super::curve_split::{SubCurve, sub_curve};
use super::report::{OpError, Report};
use crate::vmd::evaluate::{bone_at, camera_at, is_cut, light_at, morph_at};
use crate::vmd::interpolation::{
    BoneChannel, CameraChannel, DEFAULT_BONE_BLOCK, DEFAULT_CAMERA_BLOCK,
};
use crate::vmd::motion::Motion;
use crate::vmd::records::FrameKey;
use crate::vmd::records::{BoneKey, CameraKey, LightKey, MorphKey};
use crate::vmd::track::TrackIndex;

/// Parameters of [`trim`]. Frames are MMD frames (30 fps), inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrimParams {
    /// First frame kept (A).
    pub from: u32,
    /// Last frame kept (B), ≥ A.
    pub to: u32,
    /// Shift every key so that A lands on frame 0.
    pub rebase: bool,
}

/// The key at the end of a segment straddling B.
struct AddB {
    /// Key whose fields (name, perspective…) the new key copies.
    template: u32,
    /// The first key after B: the segment's curve owner.
    next: u32,
    /// Fractions of the segment L → N kept: (start, end); `None` without L.
    span: Option<(f64, f64)>,
}

/// What to do on one track (storage indices).
struct Plan {
    add_a: Option<u32>,
    /// (key, start fraction): the key's curve keeps only [start, 1].
    split_first: Option<(u32, f64)>,
    add_b: Option<AddB>,
}

/// Reports the keys whose frames fall outside `a..=b` (they are dropped).
fn note_dropped(r: &mut Report, what: &str, frames: impl Iterator<Item = u32>, (a, b): (u32, u32)) {
    let dropped: Vec<u32> = frames.filter(|f| !(a..=b).contains(f)).collect();
    if !dropped.is_empty() {
        r.dropped += dropped.len();
        r.note(format!(
            "{what}: removed {} keys outside {a}..{b} (frames {})",
            dropped.len(),
            frames_list(&dropped)
        ));
    }
}

/// Trims keys that hold their value (self-shadow, IK/show): keeps those in
/// `a..=b` in file order and, when no key sits at `a`, adds a copy of the
/// one in force there. `(what, held)` name the track and what it holds.
fn trim_held<K: FrameKey + Clone>(
    keys: &[K],
    sorted: &[u32],
    (a, b): (u32, u32),
    (what, held): (&str, &str),
    r: &mut Report,
) -> Vec<K> {
    let inside = |f: u32| (a..=b).contains(&f);
    let frame = |i: u32| keys[i as usize].frame();
    let frames = sorted.iter().map(|&i| frame(i));
    note_dropped(r, what, frames, (a, b));
    let mut added = Vec::new();
    if let Some(Plan {
        add_a: Some(tpl), ..
    }) = plan(sorted, frame, a, b, false)
    {
        let mut k = keys[tpl as usize].clone();
        k.set_frame(a);
        added.push(k);
        r.added += 1;
        r.note(format!(
            "{what}: added a key at frame {a} holding the {held} in force there"
        ));
    }
    keys.iter()
        .filter(|k| inside(k.frame()))
        .cloned()
        .chain(added)
        .collect()
}

fn frac(a: u32, b: u32, f: u32) -> f64 {
    (f64::from(f) - f64::from(a)) / (f64::from(b) - f64::from(a))
}

fn plan(keys: &[u32], frame: impl Fn(u32) -> u32, a: u32, b: u32, curves: bool) -> Option<Plan> {
    if keys.is_empty() {
        return None;
    }
    let n = keys.len();
    let fr = |i: usize| frame(keys[i]);
    let lo_a = keys.partition_point(|&k| frame(k) < a);
    let has_a = lo_a < n && fr(lo_a) == a;
    let p = lo_a.checked_sub(1).map(|i| keys[i]);
    let add_a = (!has_a).then(|| p.unwrap_or(keys[0]));
    let after_a = keys.partition_point(|&k| frame(k) <= a);
    let split_first = match p {
        Some(p) if !has_a && curves && after_a < n && fr(after_a) <= b => {
            Some((keys[after_a], frac(frame(p), fr(after_a), a)))
        }
        _ => None,
    };
    let mut add_b = None;
    if a < b {
        let lo_b = keys.partition_point(|&k| frame(k) < b);
        let has_b = lo_b < n && fr(lo_b) == b;
        let after_b = keys.partition_point(|&k| frame(k) <= b);
        if !has_b && after_b < n {
            let next = keys[after_b];
            let fnext = fr(after_b);
            let l = lo_b.checked_sub(1).map(|i| keys[i]);
            let span = l.map(|l| {
                let fl = frame(l);
                let start = if fl < a { frac(fl, fnext, a) } else { 0.0 };
                (start, frac(fl, fnext, b))
            });
            add_b = Some(AddB {
                template: l.unwrap_or(next),
                next,
                span,
            });
        }
    }
    Some(Plan {
        add_a,
        split_first,
        add_b,
    })
}

fn check_piece(report: &mut Report, what: &str, frame: u32, channel: &str, s: &SubCurve) {
    if s.clamped {
        report.warn(format!(
            "{what}: curve {channel} of the key at frame {frame} cannot be split exactly (a control point leaves 0..127; clamped, off by {:.2} units of 127)",
            s.max_error_units
        ));
    } else if s.max_error_units > 1.0 {
        report.warn(format!(
            "{what}: curve {channel} of the key at frame {frame} differs from the exact piece by {:.2} units of 127 after rounding",
            s.max_error_units
        ));
    }
}

fn frames_list(frames: &[u32]) -> String {
    frames
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Keeps frames `from..=to`; see the module docs.
pub fn trim(m: &Motion, p: TrimParams) -> Result<(Motion, Report), OpError> {
    let (a, b) = (p.from, p.to);
    if a > b {
        return Err(OpError::BadParameter(format!(
            "the range start {a} is after its end {b}"
        )));
    }
    let idx = TrackIndex::build(m);
    let mut r = Report::new();
    let mut out = Motion {
        bones: Vec::new(),
        morphs: Vec::new(),
        cameras: Vec::new(),
        lights: Vec::new(),
        shadows: Vec::new(),
        iks: Vec::new(),
        ..m.clone()
    };
    out.bones = trim_bones(m, &idx, (a, b), &mut r);
    out.morphs = trim_morphs(m, &idx, (a, b), &mut r);
    out.cameras = trim_camera(m, &idx, (a, b), &mut r);
    out.lights = trim_light(m, &idx, (a, b), &mut r);
    // ---- self-shadow and IK/show (hold) ----
    out.shadows = trim_held(
        &m.shadows,
        &idx.shadow,
        (a, b),
        ("self-shadow", "setting"),
        &mut r,
    );
    out.iks = trim_held(&m.iks, &idx.ik, (a, b), ("IK/show", "state"), &mut r);

    let split = r.changed;
    if p.rebase && a > 0 {
        rebase(&mut out, a, &mut r);
    }
    r.note(format!(
        "kept frames {a}..{b}: {} keys removed, {} added, {split} keys with split curves",
        r.dropped, r.added
    ));
    Ok((out, r))
}

/// The bone keys of `m` kept in `a..=b`, with keys added at A and B and the
/// straddling curves split (see the module comment).
fn trim_bones(m: &Motion, idx: &TrackIndex, (a, b): (u32, u32), r: &mut Report) -> Vec<BoneKey> {
    let inside = |f: u32| (a..=b).contains(&f);
    let (af, bf) = (f64::from(a), f64::from(b));
    let mut bones: Vec<Option<_>> = m
        .bones
        .iter()
        .map(|k| inside(k.frame()).then_some(*k))
        .collect();
    let mut added_bones = Vec::new();
    for t in &idx.bones {
        let what = format!("bone \"{}\"", t.name().text);
        let frames = t.keys.iter().map(|&i| m.bones[i as usize].frame());
        note_dropped(r, &what, frames, (a, b));
        let Some(pl) = plan(&t.keys, |i| m.bones[i as usize].frame(), a, b, true) else {
            continue;
        };
        if let Some(tpl) = pl.add_a {
            let src = &m.bones[tpl as usize];
            let pose = bone_at(m, t, af);
            let mut k = *src;
            k.set_frame(a);
            k.set_position(pose.position);
            k.set_rotation(pose.rotation);
            let mut block = DEFAULT_BONE_BLOCK;
            crate::vmd::interpolation::set_physics_off(&mut block, src.physics_off());
            k.set_interpolation_block(block);
            added_bones.push(k);
            r.added += 1;
            r.note(format!(
                "{what}: added a key at frame {a} with the pose evaluated there"
            ));
        }
        if let Some((ki, start)) = pl.split_first
            && let Some(k) = bones[ki as usize].as_mut()
        {
            for c in BoneChannel::ALL {
                let s = sub_curve(k.curve(c), start, 1.0);
                check_piece(r, &what, k.frame(), c.label(), &s);
                k.set_curve(c, s.curve);
            }
            r.changed += 1;
            r.note(format!(
                "{what}: the curves of the key at frame {} now start at frame {a} (split at {:.3} of the segment)",
                k.frame(),
                start
            ));
        }
        if let Some(add) = pl.add_b {
            let pose = bone_at(m, t, bf);
            let mut k = m.bones[add.template as usize];
            k.set_frame(b);
            k.set_position(pose.position);
            k.set_rotation(pose.rotation);
            let next = &m.bones[add.next as usize];
            match add.span {
                Some((s0, s1)) => {
                    k.set_interpolation_block(next.interpolation_block());
                    for c in BoneChannel::ALL {
                        let s = sub_curve(next.curve(c), s0, s1);
                        check_piece(r, &what, b, c.label(), &s);
                        k.set_curve(c, s.curve);
                    }
                }
                None => k.set_interpolation_block(DEFAULT_BONE_BLOCK),
            }
            added_bones.push(k);
            r.added += 1;
            r.note(format!(
                "{what}: added a key at frame {b} with the pose evaluated there"
            ));
        }
    }
    bones.into_iter().flatten().chain(added_bones).collect()
}

/// The morph keys of `m` kept in `a..=b`, with keys added at A and B
/// (morphs are linear: no curves to split).
fn trim_morphs(m: &Motion, idx: &TrackIndex, (a, b): (u32, u32), r: &mut Report) -> Vec<MorphKey> {
    let inside = |f: u32| (a..=b).contains(&f);
    let mut added_morphs = Vec::new();
    for t in &idx.morphs {
        let what = format!("morph \"{}\"", t.name().text);
        let frames = t.keys.iter().map(|&i| m.morphs[i as usize].frame());
        note_dropped(r, &what, frames, (a, b));
        let Some(pl) = plan(&t.keys, |i| m.morphs[i as usize].frame(), a, b, false) else {
            continue;
        };
        for (tpl, f) in pl
            .add_a
            .map(|t| (t, a))
            .into_iter()
            .chain(pl.add_b.map(|x| (x.template, b)))
        {
            let mut k = m.morphs[tpl as usize];
            k.set_frame(f);
            k.set_weight(morph_at(m, t, f64::from(f)));
            added_morphs.push(k);
            r.added += 1;
            r.note(format!(
                "{what}: added a key at frame {f} with the weight evaluated there"
            ));
        }
    }
    m.morphs
        .iter()
        .filter(|k| inside(k.frame()))
        .cloned()
        .chain(added_morphs)
        .collect()
}

/// The camera keys of `m` kept in `a..=b`, with keys added at A and B,
/// the straddling curves split, and new cuts reported.
fn trim_camera(m: &Motion, idx: &TrackIndex, (a, b): (u32, u32), r: &mut Report) -> Vec<CameraKey> {
    let inside = |f: u32| (a..=b).contains(&f);
    let frame = |i: u32| m.cameras[i as usize].frame();
    let frames = idx.camera.iter().map(|&i| frame(i));
    note_dropped(r, "camera", frames, (a, b));
    let mut cams: Vec<Option<_>> = m
        .cameras
        .iter()
        .map(|k| inside(k.frame()).then_some(*k))
        .collect();
    let mut added = Vec::new();
    if let Some(pl) = plan(&idx.camera, frame, a, b, true) {
        let state_key = |tpl: u32, f: u32| {
            let mut k = m.cameras[tpl as usize];
            k.set_frame(f);
            if let Some(s) = camera_at(m, idx, f64::from(f)) {
                k.set_target(s.target);
                k.set_rotation(s.rotation);
                k.set_distance(s.distance);
                k.set_fov(s.fov.round().max(0.0) as u32);
                return (k, s.fov);
            }
            let fov = k.fov() as f32;
            (k, fov)
        };
        if let Some(tpl) = pl.add_a {
            let (mut k, fov) = state_key(tpl, a);
            k.set_interpolation_block(DEFAULT_CAMERA_BLOCK);
            if (fov - fov.round()).abs() > 0.01 {
                r.warn(format!(
                    "camera: field of view {fov:.3}° at frame {a} rounded to {}°",
                    k.fov()
                ));
            }
            added.push(k);
            r.added += 1;
            r.note(format!(
                "camera: added a key at frame {a} with the camera evaluated there"
            ));
        }
        if let Some((ki, start)) = pl.split_first
            && let Some(k) = cams[ki as usize].as_mut()
        {
            for c in CameraChannel::ALL {
                let s = sub_curve(k.curve(c), start, 1.0);
                check_piece(r, "camera", k.frame(), c.label(), &s);
                k.set_curve(c, s.curve);
            }
            r.changed += 1;
            r.note(format!(
                "camera: the curves of the key at frame {} now start at frame {a}",
                k.frame()
            ));
            if is_cut(a, k.frame()) {
                r.warn(format!(
                    "camera: the new key at frame {a} is one frame before the key at {}: that segment now plays as a cut",
                    k.frame()
                ));
            }
        }
        if let Some(add) = pl.add_b {
            let (mut k, fov) = state_key(add.template, b);
            let next = &m.cameras[add.next as usize];
            match add.span {
                Some((s0, s1)) => {
                    k.set_interpolation_block(next.interpolation_block());
                    for c in CameraChannel::ALL {
                        let s = sub_curve(next.curve(c), s0, s1);
                        check_piece(r, "camera", b, c.label(), &s);
                        k.set_curve(c, s.curve);
                    }
                }
                None => k.set_interpolation_block(DEFAULT_CAMERA_BLOCK),
            }
            if (fov - fov.round()).abs() > 0.01 {
                r.warn(format!(
                    "camera: field of view {fov:.3}° at frame {b} rounded to {}°",
                    k.fov()
                ));
            }
            let before = idx
                .camera
                .iter()
                .map(|&i| frame(i))
                .filter(|&f| f < b && f >= a)
                .max();
            let prev = before.or((pl.add_a.is_some()).then_some(a));
            if let Some(pf) = prev
                && is_cut(pf, b)
            {
                r.warn(format!(
                    "camera: the new key at frame {b} is one frame after the key at {pf}: that segment now plays as a cut"
                ));
            }
            added.push(k);
            r.added += 1;
            r.note(format!(
                "camera: added a key at frame {b} with the camera evaluated there"
            ));
        }
    }
    cams.into_iter().flatten().chain(added).collect()
}

/// The light keys of `m` kept in `a..=b`, with keys added at A and B
/// (the light is linear).
fn trim_light(m: &Motion, idx: &TrackIndex, (a, b): (u32, u32), r: &mut Report) -> Vec<LightKey> {
    let inside = |f: u32| (a..=b).contains(&f);
    let frame = |i: u32| m.lights[i as usize].frame();
    let frames = idx.light.iter().map(|&i| frame(i));
    note_dropped(r, "light", frames, (a, b));
    let mut added = Vec::new();
    if let Some(pl) = plan(&idx.light, frame, a, b, false) {
        for (tpl, f) in pl
            .add_a
            .map(|t| (t, a))
            .into_iter()
            .chain(pl.add_b.map(|x| (x.template, b)))
        {
            let mut k = m.lights[tpl as usize];
            k.set_frame(f);
            if let Some(s) = light_at(m, idx, f64::from(f)) {
                k.set_color(s.color);
                k.set_direction(s.direction);
            }
            added.push(k);
            r.added += 1;
            r.note(format!(
                "light: added a key at frame {f} with the light evaluated there"
            ));
        }
    }
    m.lights
        .iter()
        .filter(|k| inside(k.frame()))
        .cloned()
        .chain(added)
        .collect()
}

/// Moves every key of `out` back by `a` frames (frame A becomes frame 0);
/// every key counts as changed.
fn rebase(out: &mut Motion, a: u32, r: &mut Report) {
    r.changed = out.bones.len()
        + out.morphs.len()
        + out.cameras.len()
        + out.lights.len()
        + out.shadows.len()
        + out.iks.len();
    for k in &mut out.bones {
        k.set_frame(k.frame() - a);
    }
    for k in &mut out.morphs {
        k.set_frame(k.frame() - a);
    }
    for k in &mut out.cameras {
        k.set_frame(k.frame() - a);
    }
    for k in &mut out.lights {
        k.set_frame(k.frame() - a);
    }
    for k in &mut out.shadows {
        k.set_frame(k.frame() - a);
    }
    for k in &mut out.iks {
        k.set_frame(k.frame() - a);
    }
    r.note(format!(
        "rebased: frame {a} is now frame 0 (every frame moved by −{a})"
    ));
}
