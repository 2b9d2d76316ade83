//! The viewport's pictures per second while playing: pictures actually
//! drawn (one per frame the viewport painted, whatever its number of views
//! or egui passes), timed by the clock of the frames, not the playback
//! clock. Pure: the viewport reports each picture, the status bar reads
//! the figure.

use std::collections::VecDeque;

/// Seconds of pictures the figure averages over, back from the last one.
pub const WINDOW: f64 = 1.0;
/// At a slow rate, the last this-many pictures however far apart (up to
/// [`HISTORY`]): a figure needs two intervals at least.
const MIN_PICTURES: usize = 3;
/// Seconds of pictures kept.
pub const HISTORY: f64 = 5.0;
/// Seconds between two changes of the figure shown (a number that changes
/// every picture cannot be read).
pub const REFRESH: f64 = 0.5;

/// Pictures drawn during playback, and the figure last shown.
#[derive(Debug, Clone, Default)]
pub struct PictureRate {
    /// When each picture of the last [`HISTORY`] seconds was drawn (the
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
        while self.times.front().is_some_and(|&t| t <= time - HISTORY) {
            self.times.pop_front();
        }
    }

    /// Pictures per second as of frame `frame`: over the pictures of the
    /// [`WINDOW`] seconds up to the last one (at least its last
    /// [`MIN_PICTURES`]), their count less one over the time from the
    /// first to the last. `None` when stopped, before two pictures, or when
    /// the frame before `frame` drew none (the viewport not shown).
    pub fn rate(&self, frame: u64) -> Option<f64> {
        let last_frame = self.last_frame?;
        if !self.playing || frame > last_frame.saturating_add(2) {
            return None;
        }
        let &last = self.times.back()?;
        let in_window = self.times.iter().filter(|&&t| t > last - WINDOW).count();
        let count = in_window.max(MIN_PICTURES).min(self.times.len());
        let first = self.times[self.times.len() - count];
        let span = last - first;
        (count >= 2 && span > 0.0).then(|| (count - 1) as f64 / span)
    }

    /// The figure for the status bar at frame `frame`, `now` seconds on the
    /// frame clock: [`rate`](Self::rate), worked out again at most every
    /// [`REFRESH`] seconds.
    pub fn figure(&mut self, frame: u64, now: f64) -> Option<f64> {
        let Some(fresh) = self.rate(frame) else {
            self.shown = None;
            return None;
        };
        match self.shown {
            Some((at, value)) if now >= at && now - at < REFRESH => Some(value),
            _ => {
                self.shown = Some((now, fresh));
                Some(fresh)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PictureRate;

    /// Pictures every `dt` seconds from 0, frames 0 to `count` − 1.
    fn played(dt: f64, count: u64) -> PictureRate {
        let mut r = PictureRate::default();
        for k in 0..count {
            r.drawn(k, k as f64 * dt, true);
        }
        r
    }

    #[test]
    fn counts_pictures_per_second_of_the_frame_clock() {
        // 90 pictures 1/60 s apart: 60 a second (asked at the next frame,
        // as the status bar, drawn before the viewport, asks).
        let r = played(1.0 / 60.0, 90);
        let rate = r.rate(90).expect("a rate");
        assert!((rate - 60.0).abs() < 1e-6, "{rate}");
        // 1/24 s apart: 24 a second.
        let r = played(1.0 / 24.0, 48);
        let rate = r.rate(48).expect("a rate");
        assert!((rate - 24.0).abs() < 1e-6, "{rate}");
    }

    #[test]
    fn a_slow_rate_still_reads() {
        // Half a picture a second (a software renderer on a big window):
        // the last three pictures, 2 s apart.
        let r = played(2.0, 4);
        let rate = r.rate(4).expect("a rate");
        assert!((rate - 0.5).abs() < 1e-9, "{rate}");
        // Slower than the history keeps: no figure from one picture.
        let r = played(6.0, 3);
        assert_eq!(r.rate(3), None);
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
        let rate = r.rate(30).expect("a rate");
        assert!((rate - 30.0).abs() < 1e-6, "{rate}");
        // Stopped: no figure.
        r.drawn(30, 1.0, false);
        assert_eq!(r.rate(31), None);
        assert_eq!(r.figure(31, 1.0), None);
        // Playing again: the old pictures are forgotten (one picture is
        // not yet a rate).
        r.drawn(31, 5.0, true);
        assert_eq!(r.rate(32), None);
        r.drawn(32, 5.1, true);
        let rate = r.rate(33).expect("a rate");
        assert!((rate - 10.0).abs() < 1e-6, "{rate}");
    }

    #[test]
    fn no_figure_once_the_viewport_stops_drawing() {
        // Frames go on while playing with the viewport hidden: after a
        // frame without a picture there is no figure.
        let r = played(0.1, 10);
        assert!(
            r.rate(10).is_some(),
            "the last picture was the last frame's"
        );
        assert!(r.rate(11).is_some(), "one frame between");
        assert_eq!(r.rate(12), None);
    }

    #[test]
    fn the_figure_holds_for_the_refresh_time() {
        let mut r = played(1.0 / 60.0, 61);
        let first = r.figure(61, 1.0).expect("figure");
        // Slower pictures for a while: the figure holds until the refresh.
        for k in 0..4u64 {
            r.drawn(61 + k, 1.0 + 0.1 * (k + 1) as f64, true);
        }
        assert_eq!(r.figure(65, 1.4), Some(first));
        let later = r.figure(65, 1.0 + super::REFRESH + 0.01).expect("figure");
        assert!(later < first, "{later} vs {first}");
    }

    #[test]
    fn bad_times_count_nothing() {
        let mut r = PictureRate::default();
        r.drawn(0, f64::NAN, true);
        r.drawn(1, f64::INFINITY, true);
        assert_eq!(r.rate(2), None);
        r.drawn(2, 1.0, true);
        r.drawn(3, 0.5, true); // backwards: starts over
        r.drawn(4, 0.6, true);
        let rate = r.rate(5).expect("a rate");
        assert!((rate - 10.0).abs() < 1e-6, "{rate}");
    }
}
