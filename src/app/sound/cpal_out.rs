//! Sound through cpal: WASAPI on Windows, CoreAudio on macOS, and ALSA on
//! Linux when built with the `alsa` feature (it needs ALSA's headers).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, OutputCallbackInfo, SampleFormat, SizedSample, StreamConfig};

use super::lost::{self, LostSlot};
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

pub fn open(mixer: Arc<Mutex<Mixer>>, lost: LostSlot) -> Result<(cpal::Stream, String), String> {
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
    lost: LostSlot,
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
                lost::report(&lost, &err.to_string());
            } else {
                tracing::debug!("sound output: {err}");
            }
        },
        Some(Duration::from_secs(2)),
    )
}
