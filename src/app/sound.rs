//! Sound output: the song through the system's audio device, on the
//! device's own callback thread, fed by [`Mixer`]. Built with the cargo
//! feature `sound` (cpal; on Linux it needs ALSA's headers to build).
//!
//! Without the feature, or without a device (a headless machine), the
//! transport runs silently on the system clock and [`SoundOutput::status`]
//! says why there is no sound.

use std::sync::{Arc, Mutex};
use std::time::Instant;

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
            #[cfg(any(feature = "sound", windows, target_os = "macos"))]
            _stream: None,
        }
    }

    /// Opens the default output device, or explains why not.
    pub fn open() -> SoundOutput {
        #[cfg(any(feature = "sound", windows, target_os = "macos"))]
        {
            let mixer = Arc::new(Mutex::new(Mixer::new()));
            match device::open(Arc::clone(&mixer)) {
                Ok((stream, name)) => SoundOutput {
                    mixer,
                    status: SoundStatus::Ready { device: name },
                    _stream: Some(stream),
                },
                Err(reason) => SoundOutput {
                    mixer,
                    status: SoundStatus::Silent(reason),
                    _stream: None,
                },
            }
        }
        #[cfg(not(any(feature = "sound", windows, target_os = "macos")))]
        {
            SoundOutput::silent(
                "this build has no sound output (build with `--features sound`; on Linux install libasound2-dev first)",
            )
        }
    }

    pub fn status(&self) -> &SoundStatus {
        &self.status
    }

    /// Whether a device is playing the mixer's output (the transport then
    /// follows the device clock).
    pub fn is_live(&self) -> bool {
        matches!(self.status, SoundStatus::Ready { .. })
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

#[cfg(any(feature = "sound", windows, target_os = "macos"))]
mod device {
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
    use cpal::{FromSample, OutputCallbackInfo, SampleFormat, SizedSample, StreamConfig};

    use crate::audio::playback::Mixer;

    pub fn open(mixer: Arc<Mutex<Mixer>>) -> Result<(cpal::Stream, String), String> {
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
            SampleFormat::F32 => build::<f32>(&device, config, mixer),
            SampleFormat::I16 => build::<i16>(&device, config, mixer),
            SampleFormat::U16 => build::<u16>(&device, config, mixer),
            SampleFormat::I32 => build::<i32>(&device, config, mixer),
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
            |err| eprintln!("sound output: {err}"),
            Some(Duration::from_secs(2)),
        )
    }
}
