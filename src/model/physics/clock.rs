//! Time for the physics world, as MMD and nanoem keep it: a mode (off,
//! while playing, always, trace) and, per posed frame, a decision — step
//! forward, reset (snap to the bones and settle), hold, or no physics.
//! GUI-free and deterministic: the decision depends only on the calls made.

/// When the world is simulated (MMD's 物理演算 menu; nanoem's
/// `PhysicsSimulationMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SimulationMode {
    /// No physics: bones keep their animated pose.
    Off,
    /// Simulated while playing; when stopped the last result holds, and a
    /// frame chosen while stopped shows the bodies settled at that frame.
    #[default]
    Play,
    /// Always simulated: also while stopped (time runs on, hair keeps
    /// swinging to rest) and while scrubbing forward.
    Always,
    /// Simulated frame by frame while the frame moves forward (playing or
    /// scrubbing); held while it stays.
    Trace,
}

impl SimulationMode {
    /// Every mode, in menu order.
    pub const ALL: [SimulationMode; 4] = [
        SimulationMode::Off,
        SimulationMode::Play,
        SimulationMode::Always,
        SimulationMode::Trace,
    ];

    /// The name a menu or the status bar shows.
    pub fn label(self) -> &'static str {
        match self {
            SimulationMode::Off => "Off",
            SimulationMode::Play => "While playing",
            SimulationMode::Always => "Always",
            SimulationMode::Trace => "Trace",
        }
    }
}

/// What the pose engine does with the world for one posed frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PhysicsAction {
    /// No physics: the animated pose.
    Off,
    /// Keep the bodies where they are and write them to the bones.
    Hold,
    /// Snap every body to its bone at this frame with zero velocity and
    /// settle ([`super::SETTLE_STEPS`] steps with the bones held still).
    Reset,
    /// Simulate from motion frame `from` to the frame being posed (the
    /// bones before physics are posed at each whole frame between, so fast
    /// motion is followed, then at the frame itself).
    Advance {
        /// The frame the world was last at.
        from: f64,
    },
    /// Simulate `seconds` more with the bones held at this frame (Always
    /// while stopped).
    Run {
        /// Wall-clock seconds since the last call.
        seconds: f32,
    },
}

/// What the transport is doing when a frame is posed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Transport {
    /// Whether playback is running.
    pub playing: bool,
    /// Wall-clock seconds since the last posed frame (used by
    /// [`SimulationMode::Always`] while stopped; 0 otherwise).
    pub elapsed: f32,
}

impl Transport {
    /// Playing (the CLI's `pose`, `render` and the bake pose frames in
    /// order as playback does).
    pub const PLAYING: Transport = Transport {
        playing: true,
        elapsed: 0.0,
    };
    /// Stopped, no time passed.
    pub const STOPPED: Transport = Transport {
        playing: false,
        elapsed: 0.0,
    };
}

/// Decides, per posed frame, what the world does. Keeps the frame the
/// world was last simulated at; a jump back, or more than
/// [`PhysicsClock::FAR_AHEAD`] frames ahead, resets (babylon-mmd
/// re-initialises past 60 frames).
#[derive(Debug, Clone, PartialEq)]
pub struct PhysicsClock {
    mode: SimulationMode,
    /// Motion frame of the world's state; `None` until the first reset.
    at: Option<f64>,
    /// Set by [`PhysicsClock::request_reset`] (load, reset, a new motion).
    reset_pending: bool,
}

impl Default for PhysicsClock {
    fn default() -> Self {
        PhysicsClock::new(SimulationMode::default())
    }
}

impl PhysicsClock {
    /// A forward move of more frames than this resets instead of
    /// simulating through (babylon-mmd's rule).
    pub const FAR_AHEAD: f64 = 60.0;

    pub fn new(mode: SimulationMode) -> PhysicsClock {
        PhysicsClock {
            mode,
            at: None,
            reset_pending: true,
        }
    }

    pub fn mode(&self) -> SimulationMode {
        self.mode
    }

    /// Changes the mode; turning physics on (from Off) resets on the next
    /// frame so the bodies start from the bones.
    pub fn set_mode(&mut self, mode: SimulationMode) {
        if mode != self.mode && self.mode == SimulationMode::Off {
            self.reset_pending = true;
        }
        self.mode = mode;
    }

    /// The next frame resets the world (on load, the user's reset, a
    /// changed motion or model).
    pub fn request_reset(&mut self) {
        self.reset_pending = true;
    }

    /// The motion frame the world's state belongs to, if any.
    pub fn frame(&self) -> Option<f64> {
        self.at
    }

    /// What to do to show motion frame `frame` (a non-finite frame counts
    /// as 0). Records `frame` as the world's frame unless the answer is
    /// [`PhysicsAction::Off`].
    pub fn decide(&mut self, frame: f64, transport: Transport) -> PhysicsAction {
        let frame = if frame.is_finite() { frame } else { 0.0 };
        if self.mode == SimulationMode::Off {
            self.at = None;
            self.reset_pending = true;
            return PhysicsAction::Off;
        }
        let action = match self.at {
            _ if self.reset_pending => PhysicsAction::Reset,
            None => PhysicsAction::Reset,
            Some(at) => {
                let d = frame - at;
                let jumped = !(0.0..=Self::FAR_AHEAD).contains(&d);
                let forward = d > 0.0 && !jumped;
                match self.mode {
                    SimulationMode::Off => PhysicsAction::Off,
                    _ if jumped => PhysicsAction::Reset,
                    SimulationMode::Play if !transport.playing => {
                        if d == 0.0 {
                            PhysicsAction::Hold
                        } else {
                            // Scrubbed while stopped: settled at the frame.
                            PhysicsAction::Reset
                        }
                    }
                    SimulationMode::Always if d == 0.0 => {
                        let s = transport.elapsed;
                        if !transport.playing && s.is_finite() && s > 0.0 {
                            PhysicsAction::Run { seconds: s }
                        } else {
                            PhysicsAction::Hold
                        }
                    }
                    _ if forward => PhysicsAction::Advance { from: at },
                    _ => PhysicsAction::Hold,
                }
            }
        };
        self.reset_pending = false;
        self.at = Some(frame);
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Transport = Transport::PLAYING;
    const S: Transport = Transport::STOPPED;

    #[test]
    fn off_never_simulates_and_resets_when_switched_on() {
        let mut c = PhysicsClock::new(SimulationMode::Off);
        assert_eq!(c.decide(0.0, P), PhysicsAction::Off);
        assert_eq!(c.decide(1.0, P), PhysicsAction::Off);
        assert_eq!(c.frame(), None);
        c.set_mode(SimulationMode::Trace);
        assert_eq!(c.decide(2.0, P), PhysicsAction::Reset);
        assert_eq!(c.decide(3.0, P), PhysicsAction::Advance { from: 2.0 });
    }

    #[test]
    fn the_first_frame_resets_then_playing_advances() {
        for mode in [
            SimulationMode::Play,
            SimulationMode::Always,
            SimulationMode::Trace,
        ] {
            let mut c = PhysicsClock::new(mode);
            assert_eq!(c.decide(10.0, P), PhysicsAction::Reset, "{mode:?}");
            assert_eq!(c.decide(11.0, P), PhysicsAction::Advance { from: 10.0 });
            assert_eq!(c.decide(11.5, P), PhysicsAction::Advance { from: 11.0 });
            // The same frame again while playing (a repaint): hold.
            assert_eq!(c.decide(11.5, P), PhysicsAction::Hold);
        }
    }

    #[test]
    fn a_jump_back_or_far_ahead_resets() {
        for mode in [
            SimulationMode::Play,
            SimulationMode::Always,
            SimulationMode::Trace,
        ] {
            let mut c = PhysicsClock::new(mode);
            c.decide(100.0, P);
            assert_eq!(c.decide(99.0, P), PhysicsAction::Reset, "{mode:?}");
            // Exactly FAR_AHEAD frames ahead still simulates through.
            assert_eq!(c.decide(159.0, P), PhysicsAction::Advance { from: 99.0 });
            assert_eq!(c.decide(219.5, P), PhysicsAction::Reset);
        }
    }

    #[test]
    fn play_holds_when_stopped_and_settles_a_scrubbed_frame() {
        let mut c = PhysicsClock::new(SimulationMode::Play);
        c.decide(0.0, P);
        c.decide(1.0, P);
        assert_eq!(c.decide(1.0, S), PhysicsAction::Hold);
        let wall = Transport {
            playing: false,
            elapsed: 0.5,
        };
        assert_eq!(c.decide(1.0, wall), PhysicsAction::Hold);
        assert_eq!(c.decide(2.0, S), PhysicsAction::Reset);
    }

    #[test]
    fn trace_simulates_forward_scrubbing_and_holds_in_place() {
        let mut c = PhysicsClock::new(SimulationMode::Trace);
        c.decide(0.0, S);
        assert_eq!(c.decide(3.0, S), PhysicsAction::Advance { from: 0.0 });
        let wall = Transport {
            playing: false,
            elapsed: 0.5,
        };
        assert_eq!(c.decide(3.0, wall), PhysicsAction::Hold);
        assert_eq!(c.decide(2.0, S), PhysicsAction::Reset);
    }

    #[test]
    fn always_runs_on_while_stopped() {
        let mut c = PhysicsClock::new(SimulationMode::Always);
        c.decide(5.0, S);
        let wall = Transport {
            playing: false,
            elapsed: 0.25,
        };
        assert_eq!(c.decide(5.0, wall), PhysicsAction::Run { seconds: 0.25 });
        assert_eq!(c.decide(5.0, S), PhysicsAction::Hold);
        assert_eq!(c.decide(6.0, S), PhysicsAction::Advance { from: 5.0 });
        // A non-finite or negative wall time does not run the world.
        let bad = Transport {
            playing: false,
            elapsed: f32::NAN,
        };
        assert_eq!(c.decide(6.0, bad), PhysicsAction::Hold);
    }

    #[test]
    fn a_requested_reset_applies_once() {
        let mut c = PhysicsClock::new(SimulationMode::Trace);
        c.decide(0.0, P);
        c.request_reset();
        assert_eq!(c.decide(1.0, P), PhysicsAction::Reset);
        assert_eq!(c.decide(2.0, P), PhysicsAction::Advance { from: 1.0 });
        // A non-finite frame counts as frame 0: a jump back.
        assert_eq!(c.decide(f64::NAN, P), PhysicsAction::Reset);
        assert_eq!(c.frame(), Some(0.0));
    }

    #[test]
    fn the_same_calls_give_the_same_decisions() {
        let frames = [0.0, 1.0, 1.5, 1.5, 70.0, 3.0, 4.0, 4.0];
        let run = || {
            let mut c = PhysicsClock::new(SimulationMode::Always);
            frames.map(|f| c.decide(f, S))
        };
        assert_eq!(run(), run());
    }
}
