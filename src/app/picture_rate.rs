//! The viewport's pictures per second while playing: pictures actually
//! drawn (one per frame the viewport painted, whatever its number of views
//! or egui passes), timed by the clock of the frames, not the playback
//! clock. Pure: the viewport reports each picture, the status bar reads
//! the figure.

use std::collections::VecDeque;

/// Seconds of pictures the figure averages over.
pub const WINDOW: f64 = 1.0;
/// Seconds between two changes of the figure shown (a number that changes
/// every picture cannot be read).
pub const REFRESH: f64 = 0.5;

/// Pictures drawn during playback, and the figure last shown.
#[derive(Debug, Clone, Default)]
pub struct PictureRate {
    /// When each picture of the last [`WINDOW`] seconds was drawn (the
    /// frame clock, seconds), oldest first.
    times: VecDeque<f64>,
    /// The frame last counted: a frame counts once.
    last_frame: Option<u64>,
    /// Whether the transport played at the last picture.
    playing: bool,
    /// The figure shown and when it was worked out.
    shown: Option<(f64, f64)>,
}

impl PictureRate {
    /// Counts the picture of frame `frame`, drawn at `time` seconds, while
    /// the transport `playing` (a stopped transport clears the count, so
    /// each playback is measured apart). A frame already counted, and a
    /// time that is not finite or runs backwards, count nothing.
    pub fn drawn(&mut self, frame: u64, time: f64, playing: bool) {
        if playing != self.playing {
            self.playing = playing;
            self.times.clear();
            self.shown = None;
        }
        if !playing || self.last_frame == Some(frame) || !time.is_finite() {
            return;
        }
        if self.times.back().is_some_and(|&last| time < last) {
            self.times.clear();
        }
        self.last_frame = Some(frame);
        self.times.push_back(time);
        while self.times.front().is_some_and(|&t| t <= time - WINDOW) {
            self.times.pop_front();
        }
    }

    /// Pictures per second at `now`: over the pictures of the last
    /// [`WINDOW`] seconds, their count less one over the time from the
    /// first to the last. `None` when fewer than two were drawn in it
    /// (stopped, or the viewport not shown).
    pub fn rate(&self, now: f64) -> Option<f64> {
        if !self.playing || !now.is_finite() {
            return None;
        }
        let mut recent = self.times.iter().filter(|&&t| t > now - WINDOW);
        let first = *recent.next()?;
        let (count, last) = recent.fold((1u32, first), |(n, _), &t| (n + 1, t));
        let span = last - first;
        (count >= 2 && span > 0.0).then(|| f64::from(count - 1) / span)
    }

    /// The figure for the status bar at `now`: [`rate`](Self::rate),
    /// worked out again at most every [`REFRESH`] seconds.
    pub fn figure(&mut self, now: f64) -> Option<f64> {
        if !self.playing {
            self.shown = None;
            return None;
        }
        match self.shown {
            Some((at, value)) if now >= at && now - at < REFRESH => Some(value),
            _ => {
                let value = self.rate(now)?;
                self.shown = Some((now, value));
                Some(value)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PictureRate;

    /// Pictures every `dt` seconds from 0 for `count` frames.
    fn played(dt: f64, count: u64) -> PictureRate {
        let mut r = PictureRate::default();
        for k in 0..count {
            r.drawn(k, k as f64 * dt, true);
        }
        r
    }

    #[test]
    fn counts_pictures_per_second_of_the_frame_clock() {
        // 90 pictures 1/60 s apart: 60 a second.
        let r = played(1.0 / 60.0, 90);
        let now = 89.0 / 60.0;
        let rate = r.rate(now).expect("a rate");
        assert!((rate - 60.0).abs() < 1e-6, "{rate}");
        // 1/24 s apart: 24 a second.
        let r = played(1.0 / 24.0, 48);
        let rate = r.rate(47.0 / 24.0).expect("a rate");
        assert!((rate - 24.0).abs() < 1e-6, "{rate}");
    }

    #[test]
    fn a_frame_counts_once_and_a_stop_clears_the_count() {
        let mut r = PictureRate::default();
        // Two views (or passes) of each frame: still 30 a second.
        for k in 0..30u64 {
            let t = k as f64 / 30.0;
            r.drawn(k, t, true);
            r.drawn(k, t + 0.001, true);
        }
        let rate = r.rate(29.0 / 30.0).expect("a rate");
        assert!((rate - 30.0).abs() < 1e-6, "{rate}");
        // Stopped: no figure.
        r.drawn(30, 1.0, false);
        assert_eq!(r.rate(1.0), None);
        assert_eq!(r.figure(1.0), None);
        // Playing again: the old pictures are forgotten (one picture is
        // not yet a rate).
        r.drawn(31, 5.0, true);
        assert_eq!(r.rate(5.0), None);
        r.drawn(32, 5.1, true);
        let rate = r.rate(5.1).expect("a rate");
        assert!((rate - 10.0).abs() < 1e-6, "{rate}");
    }

    #[test]
    fn no_figure_once_the_pictures_stop_coming() {
        // The viewport hidden while playing: after a window without
        // pictures there is no figure.
        let r = played(0.1, 10);
        assert!(r.rate(0.95).is_some());
        assert_eq!(r.rate(0.9 + super::WINDOW + 0.01), None);
    }

    #[test]
    fn the_figure_holds_for_the_refresh_time() {
        let mut r = played(1.0 / 60.0, 61);
        let first = r.figure(1.0).expect("figure");
        // Slower pictures for a while: the figure holds until the refresh.
        for k in 0..4u64 {
            r.drawn(61 + k, 1.0 + 0.1 * (k + 1) as f64, true);
        }
        assert_eq!(r.figure(1.4), Some(first));
        let later = r.figure(1.0 + super::REFRESH + 0.01).expect("figure");
        assert!(later < first, "{later} vs {first}");
    }

    #[test]
    fn bad_times_count_nothing() {
        let mut r = PictureRate::default();
        r.drawn(0, f64::NAN, true);
        r.drawn(1, f64::INFINITY, true);
        assert_eq!(r.rate(1.0), None);
        r.drawn(2, 1.0, true);
        r.drawn(3, 0.5, true); // backwards: starts over
        r.drawn(4, 0.6, true);
        let rate = r.rate(0.6).expect("a rate");
        assert!((rate - 10.0).abs() < 1e-6, "{rate}");
        assert_eq!(r.rate(f64::NAN), None);
    }
}
