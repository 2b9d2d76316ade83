//! Decoded sound, kept compactly: interleaved 16-bit samples at the source
//! rate, one or two channels. That is what playback needs; analysis and the
//! waveform read it through [`Pcm::mono_f32`] and [`Pcm::min_max`].
//!
//! Units: a *sample position* (or "sample index") counts per-channel samples
//! from the start of the song at [`Pcm::sample_rate`]; it is never a video
//! frame (see [`super::timing`] for the mapping to 30 fps frames).

/// Decoded audio. Invariant: `samples.len() == len * channels`, `channels` is
/// 1 or 2, `sample_rate` is in 8000..=192000.
#[derive(Clone, PartialEq)]
pub struct Pcm {
    sample_rate: u32,
    channels: u16,
    samples: Vec<i16>,
}

impl std::fmt::Debug for Pcm {
    /// The shape, not the millions of samples.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pcm")
            .field("sample_rate", &self.sample_rate)
            .field("channels", &self.channels)
            .field("len", &self.len())
            .finish()
    }
}

/// Full scale of an `i16` sample as a float (`i16::MIN` maps to −1.0).
pub const FULL_SCALE: f32 = 32768.0;

impl Pcm {
    /// Builds from interleaved samples. `None` when the channel count is not
    /// 1 or 2, the rate is out of range, or the length is not a whole number
    /// of sample positions.
    pub fn new(sample_rate: u32, channels: u16, samples: Vec<i16>) -> Option<Pcm> {
        let ok = matches!(channels, 1 | 2)
            && (8000..=192_000).contains(&sample_rate)
            && samples.len().is_multiple_of(usize::from(channels));
        ok.then_some(Pcm {
            sample_rate,
            channels,
            samples,
        })
    }

    /// Builds from mono float samples in −1..1 (clamped), e.g. for tests
    /// and generated click tracks.
    pub fn from_mono_f32(sample_rate: u32, mono: &[f32]) -> Option<Pcm> {
        Pcm::new(
            sample_rate,
            1,
            mono.iter().map(|&x| f32_to_i16(x)).collect(),
        )
    }

    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    pub fn channels(&self) -> u16 {
        self.channels
    }

    /// Number of sample positions (per channel).
    pub fn len(&self) -> usize {
        self.samples.len() / usize::from(self.channels)
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Length in seconds.
    pub fn duration_seconds(&self) -> f64 {
        self.len() as f64 / f64::from(self.sample_rate)
    }

    /// Interleaved samples (L R L R … for stereo).
    pub fn interleaved(&self) -> &[i16] {
        &self.samples
    }

    /// Sample of `channel` at `position`, or `None` past the end.
    pub fn sample(&self, position: usize, channel: u16) -> Option<i16> {
        if channel >= self.channels {
            return None;
        }
        self.samples
            .get(position * usize::from(self.channels) + usize::from(channel))
            .copied()
    }

    /// The smallest and largest sample over all channels at `position`
    /// (what a waveform draws; a mono mix would hide out-of-phase stereo).
    pub fn min_max(&self, position: usize) -> Option<(i16, i16)> {
        let c = usize::from(self.channels);
        let frame = self.samples.get(position * c..position * c + c)?;
        let mut lo = i16::MAX;
        let mut hi = i16::MIN;
        for &s in frame {
            lo = lo.min(s);
            hi = hi.max(s);
        }
        Some((lo, hi))
    }

    /// The channels averaged, as floats in −1..1 (for analysis).
    pub fn mono_f32(&self) -> Vec<f32> {
        let c = usize::from(self.channels);
        self.samples
            .chunks_exact(c)
            .map(|f| f.iter().map(|&s| f32::from(s)).sum::<f32>() / (c as f32 * FULL_SCALE))
            .collect()
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.samples.len() * std::mem::size_of::<i16>()
    }
}

/// Converts a float sample (−1..1, clamped) to 16 bits, rounding to nearest.
pub fn f32_to_i16(x: f32) -> i16 {
    let v = (x * FULL_SCALE).round();
    if v.is_nan() {
        0
    } else {
        v.clamp(-32768.0, 32767.0) as i16
    }
}
