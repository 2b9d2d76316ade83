//! Shots and near-cuts of a camera motion, and each cut's distance to the
//! song's beat. Pure: no GUI type; the viewport's shot list, `render
//! --storyboard` and the CLI all take their shots from here.
//!
//! A cut is two camera keys exactly one frame apart (keys A and A + 1, after
//! sorting by frame; see [`crate::vmd::summary::cut_frames`]). Shots are the
//! spans between cuts: the first shot starts at frame 0, a cut between A and
//! A + 1 ends a shot at A and starts the next at A + 1, and the last shot ends
//! at the last camera key. Frames are MMD frames (30 per second).

use crate::audio::beats::BeatGrid;
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

    /// Frames from the nearest beat of `grid` to the cut that starts this
    /// shot (positive: the cut comes after the beat). The song starts at
    /// scene frame `song_offset` (its second `t` plays at frame
    /// `song_offset + 30·t`). `None` for the first shot, which starts with
    /// no cut.
    pub fn cut_to_beat(&self, grid: &BeatGrid, song_offset: i32) -> Option<f64> {
        if self.number <= 1 {
            return None;
        }
        // The picture changes at the start of the shot's first frame.
        let cut = f64::from(self.first);
        let (_, beat) = grid.nearest_beat((cut - f64::from(song_offset)) / MMD_FPS);
        let d = cut - (beat * MMD_FPS + f64::from(song_offset));
        d.is_finite().then_some(d)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmd::CameraKey;

    fn camera(frames: &[u32]) -> (Motion, TrackIndex) {
        let mut m = Motion::new_v2();
        for &f in frames {
            m.cameras
                .push(CameraKey::new(f, -45.0, [0.0; 3], [0.0; 3], 30, false));
        }
        let idx = TrackIndex::build(&m);
        (m, idx)
    }

    #[test]
    fn shots_split_at_cuts() {
        let (m, idx) = camera(&[0, 30, 31, 60, 90, 91, 120]);
        // Cuts at 30→31 and 90→91: shots 0–30, 31–90, 91–120.
        let got: Vec<(usize, u32, u32)> = shots(&m, &idx)
            .iter()
            .map(|s| (s.number, s.first, s.last))
            .collect();
        assert_eq!(got, vec![(1, 0, 30), (2, 31, 90), (3, 91, 120)]);
    }

    #[test]
    fn no_camera_keys_no_shots() {
        let (m, idx) = camera(&[]);
        assert!(shots(&m, &idx).is_empty());
    }

    #[test]
    fn cut_to_beat_counts_frames_from_the_nearest_beat() {
        // 120 BPM: a beat every 0.5 s = 15 frames; first beat at 0.1 s.
        let Some(grid) = BeatGrid::new(120.0, 0.1) else {
            panic!("a 120 BPM grid is valid");
        };
        let shot = |number, first| Shot {
            number,
            first,
            last: first + 10,
        };
        // No song offset: beats at frames 3, 18, 33, … A cut at 20 is 2
        // frames after the beat at 18.
        let d = shot(2, 20).cut_to_beat(&grid, 0);
        assert!(d.is_some_and(|d| (d - 2.0).abs() < 1e-9), "{d:?}");
        // A cut at 31 is 2 frames before the beat at 33.
        let d = shot(2, 31).cut_to_beat(&grid, 0);
        assert!(d.is_some_and(|d| (d + 2.0).abs() < 1e-9), "{d:?}");
        // The song starts at scene frame 10: beats at 13, 28, 43, … A cut
        // at 28 is on the beat.
        let d = shot(3, 28).cut_to_beat(&grid, 10);
        assert!(d.is_some_and(|d| d.abs() < 1e-9), "{d:?}");
        // The first shot starts without a cut.
        assert_eq!(shot(1, 0).cut_to_beat(&grid, 0), None);
    }
}
