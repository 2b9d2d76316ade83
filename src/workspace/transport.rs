//! The transport: one playhead shared by every open file, so a dance and
//! its camera play together. Frames are MMD frames (30 per second).

/// Playhead, play state, loop range and preview rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Transport {
    /// Playhead in scene frames; fractional while playing.
    pub frame: f64,
    pub playing: bool,
    /// Loop over this range (inclusive scene frames) while playing.
    pub loop_range: Option<(u32, u32)>,
    /// Preview evaluation rate in frames per second: 30 = MMD's own steps;
    /// 60 or more evaluates sub-frames (cuts stay hard at any rate).
    pub preview_rate: u32,
}

impl Default for Transport {
    fn default() -> Self {
        Transport {
            frame: 0.0,
            playing: false,
            loop_range: None,
            preview_rate: 30,
        }
    }
}

/// A transport command (one kind of [`super::Event`]).
#[derive(Debug, Clone, PartialEq)]
pub enum TransportEvent {
    /// Put the playhead on a scene frame (stops nothing; not finite: ignored).
    Seek(f64),
    /// Seek and stop playing (a key or cut was picked).
    SeekAndStop(f64),
    Play,
    Pause,
    TogglePlay,
    SetLoop(Option<(u32, u32)>),
    /// Preview rate in frames per second (at least 1).
    SetRate(u32),
    /// Real time passed while playing, in seconds: the playhead advances at
    /// 30 frames per second and wraps at the loop range's end (or the
    /// scene's end). Frames are dropped, never slowed.
    Advance {
        seconds: f64,
    },
}

impl Transport {
    /// The frame to evaluate: the playhead quantized to the preview rate.
    pub fn eval_frame(&self) -> f64 {
        let steps_per_frame = (f64::from(self.preview_rate.max(1)) / 30.0).max(1.0 / 30.0);
        (self.frame * steps_per_frame).floor() / steps_per_frame
    }

    /// The range playback wraps in, scene frames: the loop range, else
    /// frame 0 to the scene's end (at least 1). The transport's tick and
    /// the song's sound use this one range.
    pub fn wrap_range(&self, scene_end: u32) -> (u32, u32) {
        self.loop_range.unwrap_or((0, scene_end.max(1)))
    }

    /// Applies a command; returns whether anything changed.
    pub(super) fn apply(&mut self, e: TransportEvent, scene_end: u32) -> bool {
        let before = self.clone();
        match e {
            TransportEvent::Seek(f) if f.is_finite() => self.frame = f,
            TransportEvent::SeekAndStop(f) if f.is_finite() => {
                self.frame = f;
                self.playing = false;
            }
            TransportEvent::Seek(_) | TransportEvent::SeekAndStop(_) => {}
            TransportEvent::Play => self.playing = true,
            TransportEvent::Pause => self.playing = false,
            TransportEvent::TogglePlay => self.playing = !self.playing,
            TransportEvent::SetLoop(r) => {
                self.loop_range = r.map(|(a, b)| (a.min(b), a.max(b)));
            }
            TransportEvent::SetRate(r) => self.preview_rate = r.max(1),
            TransportEvent::Advance { seconds } => {
                if self.playing && seconds.is_finite() && seconds > 0.0 {
                    self.advance(seconds, scene_end);
                }
            }
        }
        *self != before
    }

    fn advance(&mut self, seconds: f64, scene_end: u32) {
        self.frame += seconds * 30.0;
        let (lo, hi) = self.wrap_range(scene_end);
        if self.frame > f64::from(hi) {
            if self.loop_range.is_some() {
                // Past the loop's end: back to its start, keeping up to a
                // frame of the overshoot so the loop keeps its tempo.
                self.frame = f64::from(lo) + (self.frame - f64::from(hi)).min(1.0);
            } else {
                self.frame = f64::from(lo);
            }
        }
    }
}
