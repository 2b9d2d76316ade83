//! Speed change: new frame = round(frame / factor).
//!
//! Rounding is half away from zero (`f64::round`): with factor 2, frame 1
//! (0.5) goes to 1 and frame 3 (1.5) to 2.
//!
//! Keys of one track landing on the same new frame are merged: the key whose
//! exact new time (frame / factor) is closest to that frame is kept (on a
//! tie the later one — the one MMD plays when two keys share a frame);
//! every other key is dropped and reported with its track and frames.
//! Curves are kept as they are.
//!
//! Camera, in frame order, against the previous kept key:
//! * a cut (keys exactly one frame apart) stays a cut: the later key goes
//!   one frame after the earlier one, whatever its rounded frame;
//! * a gap of two or more frames never becomes a cut: a key rounded to one
//!   frame after the previous is pushed to two frames after (reported);
//! * a key rounded onto the previous kept key's frame is merged with it: the
//!   one whose exact time is closer stays (ties: the later), except that the
//!   two ends of a cut are never dropped for a key that is not part of one.
//!   A cut is lost only when a cut's first key collides with another cut's
//!   end; that is reported.

use std::collections::{BTreeSet, HashMap};

use super::key_scope::KeyScope;
use super::report::{OpError, Report};
use crate::vmd::evaluate::is_cut;
use crate::vmd::motion::Motion;
use crate::vmd::records::{CameraKey, FrameKey};
use crate::vmd::track::{Track, TrackIndex};

/// Parameters of [`speed`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpeedParams {
    /// Speed factor: 2 plays twice as fast (half the frames), 0.5 half as fast.
    pub factor: f64,
}

/// Where a span of a motion changes speed (frames of this motion).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpeedSpan {
    /// The first frame of the span; may be before 0 (a scene-wide change
    /// that starts before this motion does).
    pub from: i64,
    /// The last frame of the span (inclusive); `None`: to the end. Keys
    /// after it keep their spacing and move by the span's change of length.
    pub to: Option<i64>,
}

impl SpeedSpan {
    /// The whole motion, from frame 0: new frame = round(frame / factor).
    pub const WHOLE: SpeedSpan = SpeedSpan { from: 0, to: None };
}

/// A key's new time: inside the span `from + (f − from) / k`, after it
/// `f + shift` (the span's change of length), before it unchanged.
struct Retime {
    k: f64,
    span: SpeedSpan,
    shift: i64,
}

impl Retime {
    fn new(k: f64, span: SpeedSpan) -> Retime {
        let shift = span.to.map_or(0, |to| {
            let len = (to - span.from) as f64;
            (len / k).round() as i64 - (to - span.from)
        });
        Retime { k, span, shift }
    }

    /// The exact (unrounded) new time of frame `f`.
    fn exact(&self, f: u32) -> f64 {
        let f = i64::from(f);
        if f < self.span.from {
            f as f64
        } else if self.span.to.is_some_and(|to| f > to) {
            (f + self.shift) as f64
        } else {
            // With `from` 0 this is f / k, bit for bit.
            self.span.from as f64 + (f - self.span.from) as f64 / self.k
        }
    }

    /// The new frame of frame `f` (rounded half away from zero).
    fn frame(&self, f: u32) -> Result<u32, OpError> {
        let v = self.exact(f).round();
        if v > f64::from(u32::MAX) {
            return Err(OpError::FrameOverflow(format!(
                "frame {f} / {} = {v} does not fit 32 bits",
                self.k
            )));
        }
        if v < 0.0 {
            return Err(OpError::BadParameter(format!(
                "frame {f} would move to {v}, before the start of the motion"
            )));
        }
        Ok(v as u32)
    }
}

/// Merges keys of one track (storage indices sorted by frame) that share a
/// new frame. Returns the new frame for each kept storage index.
fn merge_track(
    keys: &[u32],
    frame: impl Fn(u32) -> u32,
    k: &Retime,
    what: &str,
    r: &mut Report,
    assign: &mut HashMap<u32, u32>,
) -> Result<(), OpError> {
    let mut i = 0;
    while i < keys.len() {
        let nf = k.frame(frame(keys[i]))?;
        let mut j = i + 1;
        while j < keys.len() && k.frame(frame(keys[j]))? == nf {
            j += 1;
        }
        let group = &keys[i..j];
        // Closest exact time wins; ties go to the later key.
        let mut best = group[0];
        let mut best_d = f64::INFINITY;
        for &g in group {
            let d = (k.exact(frame(g)) - f64::from(nf)).abs();
            if d <= best_d {
                best = g;
                best_d = d;
            }
        }
        assign.insert(best, nf);
        for &g in group {
            if g != best {
                r.drop_key(format!(
                    "{what}: key at frame {} (→ {nf}) merged into the key at frame {} (dropped)",
                    frame(g),
                    frame(best)
                ));
            }
        }
        i = j;
    }
    Ok(())
}

/// Changes the speed; see the module docs.
pub fn speed(m: &Motion, p: SpeedParams) -> Result<(Motion, Report), OpError> {
    speed_span(m, p, None, SpeedSpan::WHOLE)
}

/// Changes the speed of the keys in `scope`: its frame range becomes
/// `round(length / factor)` frames long, keys after it keep their spacing
/// and move by the change of length; with a bone scope only those bones'
/// keys move (every other track keeps its bytes).
pub fn speed_scoped(
    m: &Motion,
    p: SpeedParams,
    scope: &KeyScope,
) -> Result<(Motion, Report), OpError> {
    let span = match scope.frames {
        Some((a, b)) if a > b => {
            return Err(OpError::BadParameter(format!(
                "the range {a}–{b} must run forwards"
            )));
        }
        Some((a, b)) => SpeedSpan {
            from: i64::from(a),
            to: Some(i64::from(b)),
        },
        None => SpeedSpan::WHOLE,
    };
    let (out, mut r) = speed_span(m, p, scope.bones.as_ref(), span)?;
    if !scope.is_all() {
        r.note(format!("only {}", scope.describe()));
    }
    Ok((out, r))
}

/// [`speed_scoped`] over a span given in this motion's frames (a
/// scene-wide change reaches each motion at its own offset, so its span
/// may start before frame 0); `bones`: only these bones' keys move.
pub fn speed_span(
    m: &Motion,
    p: SpeedParams,
    bones: Option<&BTreeSet<Vec<u8>>>,
    span: SpeedSpan,
) -> Result<(Motion, Report), OpError> {
    let k = p.factor;
    if !k.is_finite() || k <= 0.0 {
        return Err(OpError::BadParameter(format!(
            "the speed factor must be a number above 0, got {k}"
        )));
    }
    let rt = Retime::new(k, span);
    let idx = TrackIndex::build(m);
    let mut r = Report::new();
    let mut out = m.clone();
    let others = bones.is_none();
    let bone_tracks: Vec<&Track> = idx
        .bones
        .iter()
        .filter(|t| bones.is_none_or(|set| set.contains(&t.name_key)))
        .collect();
    let bone_new = merge_named_tracks(&bone_tracks, &m.bones, "bone", &rt, &mut r)?;
    out.bones = apply_frames(
        &m.bones,
        &bone_new,
        others_kept(&bone_tracks, &idx.bones),
        &mut r,
    );
    if others {
        let morph_tracks: Vec<&Track> = idx.morphs.iter().collect();
        let morph_new = merge_named_tracks(&morph_tracks, &m.morphs, "morph", &rt, &mut r)?;
        let light_new = merge_single_track(&idx.light, &m.lights, "light", &rt, &mut r)?;
        let shadow_new = merge_single_track(&idx.shadow, &m.shadows, "self-shadow", &rt, &mut r)?;
        let ik_new = merge_single_track(&idx.ik, &m.iks, "IK/show", &rt, &mut r)?;
        let cuts_before = count_cuts(&idx.camera, &m.cameras);
        let cam_new = retime_camera(&idx.camera, &m.cameras, &rt, &mut r)?;
        out.morphs = apply_frames(&m.morphs, &morph_new, None, &mut r);
        out.cameras = apply_frames(&m.cameras, &cam_new, None, &mut r);
        out.lights = apply_frames(&m.lights, &light_new, None, &mut r);
        out.shadows = apply_frames(&m.shadows, &shadow_new, None, &mut r);
        out.iks = apply_frames(&m.iks, &ik_new, None, &mut r);
        let cuts_after = count_cuts(&TrackIndex::build(&out).camera, &out.cameras);
        if !m.cameras.is_empty() {
            r.note(format!(
                "camera cuts: {cuts_before} before, {cuts_after} after"
            ));
        }
    }
    // Name the merges only when there are some (each has its own note).
    let listed = if r.dropped > 0 {
        " (each merge is named in its own line of this report)"
    } else {
        ""
    };
    let rule = match span {
        SpeedSpan::WHOLE => format!("new frame = round(frame / {k})"),
        SpeedSpan { from, to: None } => {
            format!("from frame {from} on, new frame = {from} + round((frame − {from}) / {k})")
        }
        SpeedSpan { from, to: Some(to) } => format!(
            "frames {from}–{to} become {from}–{}; keys after {to} move {:+} frames",
            to + rt.shift,
            rt.shift
        ),
    };
    r.note(format!(
        "speed ×{k}: {rule}; {} keys moved, {} merged away{listed}",
        r.changed, r.dropped
    ));
    Ok((out, r))
}

/// Storage indices of the keys of bone tracks outside the scope (kept
/// where they are); `None` when every track is in it.
fn others_kept(scoped: &[&Track], all: &[Track]) -> Option<BTreeSet<u32>> {
    if scoped.len() == all.len() {
        return None;
    }
    let inside: BTreeSet<&[u8]> = scoped.iter().map(|t| t.name_key.as_slice()).collect();
    Some(
        all.iter()
            .filter(|t| !inside.contains(t.name_key.as_slice()))
            .flat_map(|t| t.keys.iter().copied())
            .collect(),
    )
}

/// Merges every named track (bones or morphs, `kind` names them in the
/// report); returns the new frame of each kept storage index.
fn merge_named_tracks<T: FrameKey>(
    tracks: &[&Track],
    keys: &[T],
    kind: &str,
    k: &Retime,
    r: &mut Report,
) -> Result<HashMap<u32, u32>, OpError> {
    let mut assign = HashMap::new();
    for t in tracks {
        let what = format!("{kind} \"{}\"", t.name().text);
        merge_track(
            &t.keys,
            |i| keys[i as usize].frame(),
            k,
            &what,
            r,
            &mut assign,
        )?;
    }
    Ok(assign)
}

/// Merges one unnamed track (light, self-shadow, IK/show).
fn merge_single_track<T: FrameKey>(
    order: &[u32],
    keys: &[T],
    what: &str,
    k: &Retime,
    r: &mut Report,
) -> Result<HashMap<u32, u32>, OpError> {
    let mut assign = HashMap::new();
    merge_track(order, |i| keys[i as usize].frame(), k, what, r, &mut assign)?;
    Ok(assign)
}

/// Camera cuts (keys exactly one frame apart) along `order` (storage
/// indices sorted by frame).
fn count_cuts(order: &[u32], cameras: &[CameraKey]) -> usize {
    order
        .windows(2)
        .filter(|w| {
            is_cut(
                cameras[w[0] as usize].frame(),
                cameras[w[1] as usize].frame(),
            )
        })
        .count()
}

/// Camera: sequential, keeping cuts and making none (see the module docs).
/// Returns the new frame of each kept storage index.
fn retime_camera(
    order: &[u32],
    cameras: &[CameraKey],
    k: &Retime,
    r: &mut Report,
) -> Result<HashMap<u32, u32>, OpError> {
    let mut cam_new: HashMap<u32, u32> = HashMap::new();
    // Keys one frame apart in the file form cuts; both ends are protected.
    let frames: Vec<u32> = order.iter().map(|&i| cameras[i as usize].frame()).collect();
    let protected: Vec<bool> = (0..frames.len())
        .map(|j| {
            (j > 0 && is_cut(frames[j - 1], frames[j]))
                || (j + 1 < frames.len() && is_cut(frames[j], frames[j + 1]))
        })
        .collect();
    // The previous kept key: (sorted position, new frame).
    let mut prev: Option<(usize, u32)> = None;
    for (j, &i) in order.iter().enumerate() {
        let f = frames[j];
        let Some((pj, pn)) = prev else {
            cam_new.insert(i, k.frame(f)?);
            prev = Some((j, k.frame(f)?));
            continue;
        };
        let (pi, pf) = (order[pj], frames[pj]);
        if f == pf {
            // Two keys on one frame in the file: the later record wins.
            cam_new.remove(&pi);
            cam_new.insert(i, pn);
            r.drop_key(format!(
                "camera: two keys at frame {f} (→ {pn}); kept the later record, dropped the earlier"
            ));
            prev = Some((j, pn));
            continue;
        }
        if is_cut(pf, f) {
            // A cut stays a cut.
            cam_new.insert(i, pn + 1);
            prev = Some((j, pn + 1));
            continue;
        }
        if j > 0 && is_cut(frames[j - 1], f) {
            r.warn(format!(
                "camera: the cut {}→{f} is lost: the key at frame {} was merged away",
                frames[j - 1],
                frames[j - 1]
            ));
        }
        let d = k.frame(f)?;
        if d <= pn {
            // Collision with the previous kept key: keep the one whose exact
            // time is closer to the slot (ties: the later), but never drop
            // a cut's end.
            let dist = |x: u32| (k.exact(x) - f64::from(pn)).abs();
            if !protected[pj] && (protected[j] || dist(f) <= dist(pf)) {
                cam_new.remove(&pi);
                cam_new.insert(i, pn);
                r.drop_key(format!(
                    "camera: key at frame {pf} (→ {pn}) merged into the key at frame {f} (dropped)"
                ));
                prev = Some((j, pn));
            } else {
                r.drop_key(format!(
                    "camera: key at frame {f} (→ {d}) merged into the key at frame {pf} (→ {pn}) (dropped)"
                ));
            }
            continue;
        }
        let nf = if d == pn + 1 {
            r.warn(format!(
                "camera: key at frame {f} would land one frame after the key at frame {pf} (→ {pn}) and read as a cut; moved to {}",
                pn + 2
            ));
            pn + 2
        } else {
            d
        };
        cam_new.insert(i, nf);
        prev = Some((j, nf));
    }
    Ok(cam_new)
}

/// The kept keys (those `assign` maps) in storage order, each moved to its
/// new frame; counts each key whose frame changed.
fn apply_frames<T: FrameKey + Clone>(
    keys: &[T],
    assign: &HashMap<u32, u32>,
    untouched: Option<BTreeSet<u32>>,
    r: &mut Report,
) -> Vec<T> {
    let mut kept = Vec::with_capacity(keys.len());
    for (i, key) in keys.iter().enumerate() {
        if untouched.as_ref().is_some_and(|u| u.contains(&(i as u32))) {
            kept.push(key.clone());
        } else if let Some(&nf) = assign.get(&(i as u32)) {
            let mut key = key.clone();
            if key.frame() != nf {
                key.set_frame(nf);
                r.changed += 1;
            }
            kept.push(key);
        }
    }
    kept
}
