//! Sound output: the song through the system's audio device, on the
//! device's own callback thread, fed by [`Mixer`]. Built with the cargo
//! feature `sound` (cpal; on Linux it needs ALSA's headers to build).
//!
//! Without the feature, or without a device (a headless machine), the
//! transport runs silently on the system clock and [`SoundOutput::status`]
//! says why there is no sound.
//!
//! A stream can stop while the app runs: the device is unplugged, or (on
//! Windows) the default device changes — WASAPI never moves a stream to the
//! new device, cpal reports it invalidated. The device's error callback
//! records that ([`SoundOutput::report_lost`]); from then on the output is
//! not live (the transport goes back to the system clock instead of
//! freezing on the last heard sample) until [`SoundOutput::recover`]
//! reopens the default device.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::audio::Pcm;
use crate::audio::playback::Mixer;

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
    /// Why the stream stopped, set by the device's error callback.
    lost: Arc<Mutex<Option<String>>>,
    /// When the device was last reopened after a loss: one that fails again
    /// within [`REOPEN_GAP`] is given up (no reopening every frame).
    reopened_at: Option<Instant>,
    #[cfg(any(feature = "sound", windows, target_os = "macos"))]
    _stream: Option<cpal::Stream>,
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
            lost: Arc::new(Mutex::new(None)),
            reopened_at: None,
            #[cfg(any(feature = "sound", windows, target_os = "macos"))]
            _stream: None,
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
        #[cfg(any(feature = "sound", windows, target_os = "macos"))]
        {
            // The old stream is dropped (its thread joined) first; the new
            // one reports into a fresh slot, so nothing the old one said
            // late can count against it.
            self._stream = None;
            self.lost = Arc::new(Mutex::new(None));
            match device::open(Arc::clone(&self.mixer), Arc::clone(&self.lost)) {
                Ok((stream, name)) => {
                    self.status = SoundStatus::Ready { device: name };
                    self._stream = Some(stream);
                }
                Err(reason) => self.status = SoundStatus::Silent(reason),
            }
        }
        #[cfg(not(any(feature = "sound", windows, target_os = "macos")))]
        {
            self.status = SoundStatus::Silent(
                "this build has no sound output (build with `--features sound`; on Linux install libasound2-dev first)".to_owned(),
            );
        }
    }

    /// Records that the stream stopped (called from the device's error
    /// callback; the first reason is kept).
    pub fn report_lost(&self, reason: &str) {
        lost_slot(&self.lost, reason);
    }

    /// After the stream stopped: reopens the default device (the one the
    /// system now plays through), or falls silent with the reason when that
    /// fails or the device was lost again within [`REOPEN_GAP`] of the last
    /// reopening. Returns a line for the user when something changed. Call
    /// once a frame; cheap when nothing happened.
    pub fn recover(&mut self, now: Instant) -> Option<String> {
        let reason = match self.lost.lock() {
            Ok(mut l) => l.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        }?;
        if !matches!(self.status, SoundStatus::Ready { .. }) {
            return None;
        }
        let again = self
            .reopened_at
            .is_some_and(|t| now.saturating_duration_since(t) < REOPEN_GAP);
        if again {
            #[cfg(any(feature = "sound", windows, target_os = "macos"))]
            {
                self._stream = None;
            }
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
        matches!(self.status, SoundStatus::Ready { .. })
            && match self.lost.lock() {
                Ok(l) => l.is_none(),
                Err(poisoned) => poisoned.into_inner().is_none(),
            }
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

/// Keeps the first reason a stream stopped.
fn lost_slot(lost: &Mutex<Option<String>>, reason: &str) {
    let mut l = match lost.lock() {
        Ok(l) => l,
        Err(poisoned) => poisoned.into_inner(),
    };
    l.get_or_insert_with(|| reason.to_owned());
}

#[cfg(any(feature = "sound", windows, target_os = "macos"))]
mod device {
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
    use cpal::{FromSample, OutputCallbackInfo, SampleFormat, SizedSample, StreamConfig};

    use crate::audio::playback::Mixer;

    /// Errors after which the stream plays no more (and must be rebuilt):
    /// the device gone or the stream invalidated (WASAPI, when the default
    /// device changes), never glitches, a refused real-time priority or a
    /// route change the backend followed. Anything else ends WASAPI's loop,
    /// while ALSA's goes on after it.
    fn stops_the_stream(kind: cpal::ErrorKind) -> bool {
        use cpal::ErrorKind as K;
        match kind {
            K::DeviceNotAvailable | K::StreamInvalidated => true,
            K::Xrun | K::RealtimeDenied | K::DeviceChanged => false,
            _ => cfg!(windows),
        }
    }

    pub fn open(
        mixer: Arc<Mutex<Mixer>>,
        lost: Arc<Mutex<Option<String>>>,
    ) -> Result<(cpal::Stream, String), String> {
        let host = cpal::default_host();
        let device = host
            .default_output_device()
            .ok_or_else(|| "no audio output device found".to_owned())?;
        let name = device
            .description()
            .map(|d| d.name().to_owned())
            .unwrap_or_else(|_| "audio device".to_owned());
        let supported = device
            .default_output_config()
            .map_err(|e| format!("the audio device cannot be used: {e}"))?;
        let format = supported.sample_format();
        let config: StreamConfig = supported.into();
        let stream = match format {
            SampleFormat::F32 => build::<f32>(&device, config, mixer, lost),
            SampleFormat::I16 => build::<i16>(&device, config, mixer, lost),
            SampleFormat::U16 => build::<u16>(&device, config, mixer, lost),
            SampleFormat::I32 => build::<i32>(&device, config, mixer, lost),
            other => {
                return Err(format!(
                    "the audio device wants {other} samples, which this app does not write"
                ));
            }
        }
        .map_err(|e| format!("cannot open the audio device: {e}"))?;
        stream
            .play()
            .map_err(|e| format!("the audio device does not start: {e}"))?;
        Ok((stream, name))
    }

    fn build<T>(
        device: &cpal::Device,
        config: StreamConfig,
        mixer: Arc<Mutex<Mixer>>,
        lost: Arc<Mutex<Option<String>>>,
    ) -> Result<cpal::Stream, cpal::Error>
    where
        T: SizedSample + FromSample<f32>,
    {
        let channels = usize::from(config.channels);
        let rate = config.sample_rate;
        let mut scratch: Vec<f32> = Vec::new();
        device.build_output_stream(
            config,
            move |data: &mut [T], info: &OutputCallbackInfo| {
                let ts = info.timestamp();
                let latency = ts.playback.duration_since(ts.callback);
                scratch.resize(data.len(), 0.0);
                match mixer.lock() {
                    Ok(mut m) => m.fill(&mut scratch, channels, rate, Instant::now(), latency),
                    Err(_) => scratch.iter_mut().for_each(|s| *s = 0.0),
                }
                for (d, s) in data.iter_mut().zip(&scratch) {
                    *d = T::from_sample(*s);
                }
            },
            move |err: cpal::Error| {
                if stops_the_stream(err.kind()) {
                    tracing::warn!("sound output stopped: {err}");
                    super::lost_slot(&lost, &err.to_string());
                } else {
                    tracing::debug!("sound output: {err}");
                }
            },
            Some(Duration::from_secs(2)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
