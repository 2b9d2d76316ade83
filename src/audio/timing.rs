//! The song on the scene's timeline: video frames (30 per second, MMD's
//! rate) ⇄ sample positions, with the song's offset in frames.
//!
//! Convention: the song's first sample sounds at scene frame
//! `offset_frames`. A positive offset starts the song later (silence
//! first); a negative one starts the scene inside the song.
//!
//! At 44.1 kHz a frame is exactly 1470 samples, at 48 kHz exactly 1600, so
//! whole frames map to whole samples with no rounding. Other rates map
//! through exact integer arithmetic rounded down.

/// MMD's timeline rate, frames per second.
pub const FPS: u32 = 30;

/// Where the song sits on the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SongTiming {
    /// Samples per second of the song.
    pub sample_rate: u32,
    /// Scene frame at which the song's first sample sounds.
    pub offset_frames: i64,
}

impl SongTiming {
    pub fn new(sample_rate: u32, offset_frames: i64) -> SongTiming {
        SongTiming {
            sample_rate,
            offset_frames,
        }
    }

    /// Samples per video frame (1470.0 at 44.1 kHz, 1600.0 at 48 kHz).
    pub fn samples_per_frame(&self) -> f64 {
        f64::from(self.sample_rate) / f64::from(FPS)
    }

    /// The sample position that sounds at the start of whole scene frame
    /// `frame` (exact; negative before the song starts). Rounded down when a
    /// frame is not a whole number of samples.
    pub fn sample_at_frame(&self, frame: i64) -> i64 {
        let rel = i128::from(frame) - i128::from(self.offset_frames);
        let num = rel * i128::from(self.sample_rate);
        let s = num.div_euclid(i128::from(FPS));
        i64::try_from(s).unwrap_or(if s < 0 { i64::MIN } else { i64::MAX })
    }

    /// The sample position (fractional) at a fractional scene frame.
    pub fn sample_at(&self, frame: f64) -> f64 {
        (frame - self.offset_frames as f64) * self.samples_per_frame()
    }

    /// The scene frame (fractional) at which sample position `sample` sounds.
    pub fn frame_at(&self, sample: f64) -> f64 {
        self.offset_frames as f64 + sample / self.samples_per_frame()
    }

    /// The whole scene frame during which sample `sample` sounds (the frame
    /// whose start is at or before it).
    pub fn frame_of_sample(&self, sample: i64) -> i64 {
        let num = i128::from(sample) * i128::from(FPS);
        let rel = num.div_euclid(i128::from(self.sample_rate));
        let f = rel + i128::from(self.offset_frames);
        i64::try_from(f).unwrap_or(if f < 0 { i64::MIN } else { i64::MAX })
    }

    /// Scene frame (fractional) at song time `seconds`.
    pub fn frame_at_seconds(&self, seconds: f64) -> f64 {
        self.offset_frames as f64 + seconds * f64::from(FPS)
    }

    /// Song time in seconds at a fractional scene frame (negative before the
    /// song starts).
    pub fn seconds_at(&self, frame: f64) -> f64 {
        (frame - self.offset_frames as f64) / f64::from(FPS)
    }
}
