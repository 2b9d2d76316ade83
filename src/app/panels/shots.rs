//! Shots and near-cuts of a camera motion (pure: no GUI types).
//!
//! A cut is two camera keys exactly one frame apart (keys A and A + 1, after
//! sorting by frame; see [`crate::vmd::summary::cut_frames`]). Shots are the
//! spans between cuts: the first shot starts at frame 0, a cut between A and
//! A + 1 ends a shot at A and starts the next at A + 1, and the last shot ends
//! at the last camera key. Frames are MMD frames (30 per second).

use crate::vmd::summary::cut_frames;
use crate::vmd::{Motion, TrackIndex};

/// MMD's frame rate: frames per second.
pub const MMD_FPS: f64 = 30.0;

/// One shot: frames `first..=last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shot {
    /// 1-based shot number.
    pub number: usize,
    /// First frame of the shot.
    pub first: u32,
    /// Last frame of the shot (inclusive).
    pub last: u32,
}

impl Shot {
    /// Number of frames the shot is on screen.
    pub fn frames(&self) -> u32 {
        self.last.saturating_sub(self.first) + 1
    }

    /// Length in seconds at 30 fps.
    pub fn seconds(&self) -> f64 {
        f64::from(self.frames()) / MMD_FPS
    }

    /// The text of the shot's row in the shot list (plain ASCII).
    pub fn label(&self) -> String {
        format!(
            "#{}  {}-{}  {:.2} s",
            self.number,
            self.first,
            self.last,
            self.seconds()
        )
    }

    /// True when `frame` (fractional) falls in this shot.
    pub fn contains(&self, frame: f64) -> bool {
        let f = frame.floor();
        f >= f64::from(self.first) && f <= f64::from(self.last)
    }
}

/// The shots of the camera in `m`; empty without camera keys.
pub fn shots(m: &Motion, idx: &TrackIndex) -> Vec<Shot> {
    let Some(&last_key) = idx.camera.last() else {
        return Vec::new();
    };
    let Some(last_frame) = m.cameras.get(last_key as usize).map(|k| k.frame()) else {
        return Vec::new();
    };
    let mut starts = vec![0u32];
    starts.extend(cut_frames(m, idx).iter().map(|&a| a.saturating_add(1)));
    starts.dedup();
    let mut out = Vec::with_capacity(starts.len());
    for (i, &first) in starts.iter().enumerate() {
        let last = match starts.get(i + 1) {
            Some(&next) => next.saturating_sub(1).max(first),
            None => last_frame.max(first),
        };
        out.push(Shot {
            number: i + 1,
            first,
            last,
        });
    }
    out
}

/// Index into `shots` of the shot showing at `frame`.
pub fn shot_at(shots: &[Shot], frame: f64) -> Option<usize> {
    if !frame.is_finite() {
        return None;
    }
    let f = frame.floor().max(0.0);
    // Shots are sorted and contiguous: the last one starting at or before f
    // (after the last key the camera holds, so that is still the last shot).
    shots
        .partition_point(|s| f64::from(s.first) <= f)
        .checked_sub(1)
}

/// A two-frame gap between camera keys right next to a cut: usually a cut
/// that was meant to be there but came out two frames wide after rounding
/// (a one-frame blend the viewer sees as a smear).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NearCut {
    /// Frame of the earlier key of the two-frame gap.
    pub from: u32,
    /// Frame of the later key (`from + 2`).
    pub to: u32,
    /// The neighbouring cut: keys `cut` and `cut + 1`.
    pub cut: u32,
}

impl NearCut {
    /// "near-cut at frame N" text for the warning list.
    pub fn message(&self) -> String {
        format!(
            "near-cut at frame {}: keys {} and {} are two frames apart, next to the cut {}|{}",
            self.from,
            self.from,
            self.to,
            self.cut,
            self.cut.saturating_add(1)
        )
    }
}

/// Two-frame gaps next to a cut: with a cut between keys A and A + 1, a key
/// gap A + 1 → A + 3 after it or A − 2 → A before it. Sorted by frame, each
/// gap once.
pub fn near_cuts(m: &Motion, idx: &TrackIndex) -> Vec<NearCut> {
    let mut frames: Vec<u32> = idx
        .camera
        .iter()
        .filter_map(|&i| m.cameras.get(i as usize).map(|k| k.frame()))
        .collect();
    frames.dedup();
    let mut out: Vec<NearCut> = Vec::new();
    for i in 0..frames.len().saturating_sub(1) {
        let (a, b) = (frames[i], frames[i + 1]);
        if b.checked_sub(a) != Some(1) {
            continue;
        }
        if i >= 1 && a.checked_sub(frames[i - 1]) == Some(2) {
            out.push(NearCut {
                from: frames[i - 1],
                to: a,
                cut: a,
            });
        }
        if let Some(&c) = frames.get(i + 2)
            && c.checked_sub(b) == Some(2)
        {
            out.push(NearCut {
                from: b,
                to: c,
                cut: a,
            });
        }
    }
    out.sort_by_key(|n| (n.from, n.cut));
    out.dedup_by_key(|n| n.from);
    out
}
