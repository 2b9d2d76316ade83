//! Sound output: the song through the system's sound, fed by [`Mixer`]
//! from the backend's own thread.
//!
//! Backends: on Linux a PulseAudio stream ([`pulse`], a pure-Rust client of
//! the protocol that PipeWire's pulse server speaks too; in every build with
//! the GUI, no system package needed to build), and with the cargo feature
//! `alsa` (alias `sound`; needs ALSA's headers) cpal's ALSA as a fallback
//! for machines without a sound server. On Windows and macOS, cpal
//! (WASAPI, CoreAudio), always built.
//!
//! Without a backend that opens (a headless machine, no sound server) the
//! transport runs silently on the system clock and [`SoundOutput::status`]
//! says why there is no sound.
//!
//! A stream can stop while the app runs: the device is unplugged, the sound
//! server quits, or (on Windows) the default device changes — WASAPI never
//! moves a stream to the new device, cpal reports it invalidated. The
//! backend's thread records that ([`SoundOutput::report_lost`]); from then
//! on the output is not live (the transport goes back to the system clock
//! instead of freezing on the last heard sample) until
//! [`SoundOutput::recover`] reopens the default device.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::audio::Pcm;
use crate::audio::playback::Mixer;

#[cfg(any(feature = "alsa", windows, target_os = "macos"))]
mod cpal_out;
mod lost;
#[cfg(target_os = "linux")]
pub mod pulse;

use lost::LostSlot;

/// A playing stream of one backend; dropping it stops the sound.
enum Stream {
    #[cfg(target_os = "linux")]
    Pulse { _stream: pulse::PulseStream },
    #[cfg(any(feature = "alsa", windows, target_os = "macos"))]
    Cpal { _stream: cpal::Stream },
}

/// Opens the first backend that works: on Linux the sound server, then
/// (with the `alsa` feature) ALSA; elsewhere cpal. The stream and the
/// device's name, or why there is no sound.
fn open_stream(mixer: &Arc<Mutex<Mixer>>, lost: &LostSlot) -> Result<(Stream, String), String> {
    #[cfg(target_os = "linux")]
    let server = match pulse::open(Arc::clone(mixer), Arc::clone(lost)) {
        Ok((stream, name)) => return Ok((Stream::Pulse { _stream: stream }, name)),
        Err(why) => why,
    };
    #[cfg(any(feature = "alsa", windows, target_os = "macos"))]
    {
        match cpal_out::open(Arc::clone(mixer), Arc::clone(lost)) {
            Ok((stream, name)) => Ok((Stream::Cpal { _stream: stream }, name)),
            #[cfg(target_os = "linux")]
            Err(alsa) => Err(format!("{server}; ALSA: {alsa}")),
            #[cfg(not(target_os = "linux"))]
            Err(why) => Err(why),
        }
    }
    #[cfg(all(target_os = "linux", not(feature = "alsa")))]
    {
        Err(server)
    }
    #[cfg(not(any(feature = "alsa", windows, target_os = "macos", target_os = "linux")))]
    {
        let _ = (mixer, lost);
        Err("this build has no sound output on this system".to_owned())
    }
}

/// Whether sound can be heard, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SoundStatus {
    /// Playing through this device.
    Ready { device: String },
    /// No sound: the reason, for the status bar.
    Silent(String),
}

/// The song's path to the speakers.
pub struct SoundOutput {
    mixer: Arc<Mutex<Mixer>>,
    status: SoundStatus,
    /// Why the stream stopped, set by the backend's thread.
    lost: LostSlot,
    /// When the device was last reopened after a loss: one that fails again
    /// within [`REOPEN_GAP`] is given up (no reopening every frame).
    reopened_at: Option<Instant>,
    stream: Option<Stream>,
}

impl Default for SoundOutput {
    fn default() -> Self {
        SoundOutput::silent("no sound output opened")
    }
}

impl SoundOutput {
    /// A silent output (tests; or when opening is not wanted).
    pub fn silent(reason: &str) -> SoundOutput {
        SoundOutput {
            mixer: Arc::new(Mutex::new(Mixer::new())),
            status: SoundStatus::Silent(reason.to_owned()),
            lost: lost::new_slot(),
            reopened_at: None,
            stream: None,
        }
    }

    /// Opens the default output device, or explains why not.
    pub fn open() -> SoundOutput {
        let mut out = SoundOutput::silent("no sound output opened");
        out.open_device();
        out
    }

    /// (Re)opens the default device on this output's mixer; sets `status`.
    fn open_device(&mut self) {
        // The old stream is dropped (its thread joined) first; the new one
        // reports into a fresh slot, so nothing the old one said late can
        // count against it.
        self.stream = None;
        self.lost = lost::new_slot();
        match open_stream(&self.mixer, &self.lost) {
            Ok((stream, name)) => {
                self.status = SoundStatus::Ready { device: name };
                self.stream = Some(stream);
            }
            Err(reason) => self.status = SoundStatus::Silent(reason),
        }
    }

    /// Records that the stream stopped (called from the device's error
    /// callback; the first reason is kept).
    pub fn report_lost(&self, reason: &str) {
        lost::report(&self.lost, reason);
    }

    /// After the stream stopped: reopens the default device (the one the
    /// system now plays through), or falls silent with the reason when that
    /// fails or the device was lost again within [`REOPEN_GAP`] of the last
    /// reopening. Returns a line for the user when something changed. Call
    /// once a frame; cheap when nothing happened.
    pub fn recover(&mut self, now: Instant) -> Option<String> {
        let reason = lost::take(&self.lost)?;
        if !matches!(self.status, SoundStatus::Ready { .. }) {
            return None;
        }
        let again = self
            .reopened_at
            .is_some_and(|t| now.saturating_duration_since(t) < REOPEN_GAP);
        if again {
            self.stream = None;
            self.status =
                SoundStatus::Silent(format!("the sound device keeps stopping ({reason})"));
            return Some(format!(
                "No sound: the sound device keeps stopping ({reason})"
            ));
        }
        self.reopened_at = Some(now);
        self.with_mixer(|m| m.stop());
        self.open_device();
        Some(match &self.status {
            SoundStatus::Ready { device } => {
                format!("The sound device stopped ({reason}); now playing through {device}")
            }
            SoundStatus::Silent(why) => {
                format!(
                    "No sound: the sound device stopped ({reason}) and reopening it failed: {why}"
                )
            }
        })
    }

    pub fn status(&self) -> &SoundStatus {
        &self.status
    }

    /// Whether a device is playing the mixer's output (the transport then
    /// follows the device clock).
    pub fn is_live(&self) -> bool {
        matches!(self.status, SoundStatus::Ready { .. }) && !lost::is_set(&self.lost)
    }

    /// Runs `f` on the mixer (held briefly; the device callback waits).
    pub fn with_mixer<R>(&self, f: impl FnOnce(&mut Mixer) -> R) -> R {
        let mut guard = match self.mixer.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut guard)
    }

    pub fn set_song(&self, pcm: Option<Arc<Pcm>>) {
        self.with_mixer(|m| m.set_song(pcm));
    }

    /// The song position (song samples) being heard now, while the device
    /// plays.
    pub fn heard_position(&self) -> Option<f64> {
        if !self.is_live() {
            return None;
        }
        self.with_mixer(|m| m.heard_position(Instant::now()))
    }
}

/// A device lost again this soon after being reopened is given up.
pub const REOPEN_GAP: Duration = Duration::from_secs(2);

#[cfg(test)]
mod tests {
    use super::{SoundOutput, SoundStatus};
    use std::time::{Duration, Instant};

    /// An output that says it plays through `device`, with no real stream
    /// (the state a working device leaves; no sound hardware needed).
    fn ready(device: &str) -> SoundOutput {
        let mut out = SoundOutput::silent("test");
        out.status = SoundStatus::Ready {
            device: device.to_owned(),
        };
        out
    }

    #[test]
    fn a_lost_stream_stops_leading_the_transport_until_reopened() {
        let mut out = ready("Speakers");
        let now = Instant::now();
        assert!(out.is_live());
        assert_eq!(out.recover(now), None, "nothing happened");
        out.with_mixer(|m| m.play_from(0.0));
        // The error callback reports the stream gone (headphones plugged
        // in on Windows: WASAPI does not move the stream).
        out.report_lost("stream invalidated");
        out.report_lost("a later error");
        // Not live: the transport runs on the system clock instead of
        // following a device clock that no longer moves.
        assert!(!out.is_live());
        assert_eq!(out.heard_position(), None);
        let msg = out.recover(now).expect("a line for the user");
        // The first reason is the one told.
        assert!(msg.contains("stream invalidated"), "{msg}");
        assert!(!msg.contains("a later error"), "{msg}");
        // Reopened on the default device if this machine has one and the
        // build has sound, else silent with both reasons.
        match out.status() {
            SoundStatus::Ready { device } => {
                assert!(
                    msg.contains(&format!("now playing through {device}")),
                    "{msg}"
                );
            }
            SoundStatus::Silent(why) => {
                assert!(
                    msg.starts_with("No sound:") && msg.contains(why.as_str()),
                    "{msg}"
                );
                assert!(!out.is_live());
            }
        }
        // Reported once: the next frame says nothing more.
        assert_eq!(out.recover(now), None);
    }

    #[test]
    fn a_device_lost_again_right_after_reopening_is_given_up() {
        let mut out = ready("USB headset");
        let t0 = Instant::now();
        out.reopened_at = Some(t0);
        out.report_lost("device not available");
        let msg = out
            .recover(t0 + Duration::from_secs(1))
            .expect("a line for the user");
        assert!(msg.contains("keeps stopping"), "{msg}");
        assert!(matches!(out.status(), SoundStatus::Silent(_)));
        assert!(!out.is_live());
        // Silent now: no more reopening, however often it is asked.
        out.report_lost("again");
        assert_eq!(out.recover(t0 + Duration::from_secs(9)), None);
    }
}
