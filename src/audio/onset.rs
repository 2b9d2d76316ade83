//! Onset strength: how much new sound starts at each moment, as a curve
//! sampled every few milliseconds. It is the input of beat tracking.
//!
//! Spectral flux on log-compressed magnitudes: short Hann-windowed frames
//! (≈23 ms at 44.1/48 kHz, hop a quarter of that), `log(1 + γ|X|)` per bin,
//! the rise since the previous frame summed over bins (falls ignored), then
//! the slowly varying floor (a moving mean over ≈0.4 s) removed and the
//! result clipped at 0 and scaled to unit standard deviation.
//!
//! A second curve, the same flux over the bins below [`LOW_BAND_HZ`] only,
//! follows the kick drum and the bass: in dance music they mark the beat
//! while hi-hats (louder in the broadband flux) sit between beats. Beat
//! tracking takes the tempo from the broadband curve and the beat's phase
//! from the low band (see `beats`).
//!
//! The curve reacts to an onset a little before or after the onset itself
//! (the window reaches it before its centre does). That latency is measured
//! once on synthetic impulses and removed, so [`OnsetCurve::time_of`]
//! gives the onset's time in the song.

use std::sync::Arc;

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use super::decode::check;
use super::error::AudioError;
use crate::progress::Progress;

/// Log compression factor applied to magnitudes normalised so that a
/// full-scale sine has magnitude ≈ 1.
const GAMMA: f32 = 100.0;

/// Upper edge of the low band (kick drum, bass), Hz. The first bins of a
/// ≈23 ms window are ≈43–47 Hz wide, so this keeps about four of them.
pub const LOW_BAND_HZ: f64 = 200.0;

/// The onset strength curve.
#[derive(Debug, Clone)]
pub struct OnsetCurve {
    /// Strength per hop, ≥ 0, unit standard deviation (0 everywhere for silence).
    pub values: Vec<f32>,
    /// The same over the bins below [`LOW_BAND_HZ`] only (same points,
    /// same scaling rules; 0 everywhere when the song has no low end).
    pub low_values: Vec<f32>,
    /// Curve points per second.
    pub points_per_second: f64,
    /// Seconds by which a point's centre time lags the onset it reacts to
    /// (removed by [`OnsetCurve::time_of`]).
    pub latency_seconds: f64,
}

impl OnsetCurve {
    /// Song time (seconds) of a fractional curve index.
    pub fn time_of(&self, index: f64) -> f64 {
        index / self.points_per_second - self.latency_seconds
    }

    /// Fractional curve index of a song time (inverse of `time_of`).
    pub fn index_of(&self, seconds: f64) -> f64 {
        (seconds + self.latency_seconds) * self.points_per_second
    }
}

/// Window length in samples for a sample rate (≈ 23 ms, a power of two).
fn window_len(sample_rate: u32) -> usize {
    match sample_rate {
        r if r >= 64_000 => 2048,
        r if r >= 32_000 => 1024,
        r if r >= 16_000 => 512,
        _ => 256,
    }
}

struct Flux {
    n: usize,
    /// Bins `1..low_bins` are the low band.
    low_bins: usize,
    hop: usize,
    fft: Arc<dyn Fft<f32>>,
    window: Vec<f32>,
    buf: Vec<Complex<f32>>,
    prev: Vec<f32>,
    cur: Vec<f32>,
}

impl Flux {
    fn new(sample_rate: u32) -> Flux {
        let n = window_len(sample_rate);
        let bin_hz = f64::from(sample_rate.max(1)) / n as f64;
        let low_bins = ((LOW_BAND_HZ / bin_hz).floor() as usize + 1).clamp(2, n / 2);
        let fft = FftPlanner::new().plan_fft_forward(n);
        let window = (0..n)
            .map(|i| {
                let s = (std::f32::consts::PI * i as f32 / n as f32).sin();
                s * s
            })
            .collect();
        Flux {
            n,
            low_bins,
            hop: n / 4,
            fft,
            window,
            buf: vec![Complex::default(); n],
            prev: vec![0.0; n / 2],
            cur: vec![0.0; n / 2],
        }
    }

    /// Raw flux of every frame, broadband and low band; frame `i` is
    /// centred on sample `i·hop`.
    fn run(
        &mut self,
        mono: &[f32],
        progress: &Progress,
    ) -> Result<(Vec<f32>, Vec<f32>), AudioError> {
        let frames = mono.len() / self.hop + 1;
        let half = self.n / 2;
        let norm = 4.0 / self.n as f32;
        let mut out = Vec::with_capacity(frames);
        let mut low = Vec::with_capacity(frames);
        for i in 0..frames {
            if i % 512 == 0 {
                check(progress)?;
            }
            let centre = (i * self.hop) as isize;
            for (j, slot) in self.buf.iter_mut().enumerate() {
                let idx = centre - half as isize + j as isize;
                let x = if idx >= 0 {
                    mono.get(idx as usize).copied().unwrap_or(0.0)
                } else {
                    0.0
                };
                *slot = Complex::new(x * self.window[j], 0.0);
            }
            self.fft.process(&mut self.buf);
            let (mut flux, mut low_flux) = (0.0f32, 0.0f32);
            for k in 1..half {
                let m = (GAMMA * self.buf[k].norm() * norm).ln_1p();
                self.cur[k] = m;
                let rise = (m - self.prev[k]).max(0.0);
                flux += rise;
                if k < self.low_bins {
                    low_flux += rise;
                }
            }
            std::mem::swap(&mut self.prev, &mut self.cur);
            out.push(flux);
            low.push(low_flux);
        }
        Ok((out, low))
    }
}

/// Removes the moving mean (window `2·radius + 1`), clips at 0.
fn remove_floor(raw: &[f32], radius: usize) -> Vec<f32> {
    let n = raw.len();
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0.0f64);
    for &x in raw {
        let last = prefix.last().copied().unwrap_or(0.0);
        prefix.push(last + f64::from(x));
    }
    (0..n)
        .map(|i| {
            let a = i.saturating_sub(radius);
            let b = (i + radius + 1).min(n);
            let mean = (prefix[b] - prefix[a]) / (b - a) as f64;
            (f64::from(raw[i]) - mean).max(0.0) as f32
        })
        .collect()
}

/// Index of the curve's peak near `guess`, refined by a parabola through
/// the three points around the maximum.
pub(crate) fn refine_peak(values: &[f32], i: usize) -> f64 {
    if i == 0 || i + 1 >= values.len() {
        return i as f64;
    }
    let (a, b, c) = (
        f64::from(values[i - 1]),
        f64::from(values[i]),
        f64::from(values[i + 1]),
    );
    let den = a - 2.0 * b + c;
    if den.abs() < 1e-12 {
        i as f64
    } else {
        i as f64 + (0.5 * (a - c) / den).clamp(-0.5, 0.5)
    }
}

/// How long after an impulse the raw flux curve peaks, averaged over
/// impulses at several positions between two frame centres (the answer
/// depends on where the impulse falls between them).
fn measure_latency(sample_rate: u32) -> f64 {
    let mut flux = Flux::new(sample_rate);
    let (n, hop) = (flux.n, flux.hop);
    let phases = 8;
    let mut total = 0.0;
    let mut count = 0;
    for p in 0..phases {
        let at = 4 * n + p * hop / phases;
        let mut sig = vec![0.0f32; 8 * n];
        // A short broadband click: 1 ms of decaying alternation.
        let len = (sample_rate / 1000).max(4) as usize;
        for j in 0..len {
            let sign = if j % 2 == 0 { 1.0 } else { -1.0 };
            sig[at + j] = 0.5 * sign * (-(j as f32) / (len as f32 / 4.0)).exp();
        }
        flux.prev.iter_mut().for_each(|x| *x = 0.0);
        let Ok((raw, _)) = flux.run(&sig, &Progress::default()) else {
            continue;
        };
        let Some((imax, _)) = raw.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) else {
            continue;
        };
        let peak = refine_peak(&raw, imax) * hop as f64;
        total += (peak - at as f64) / f64::from(sample_rate);
        count += 1;
    }
    if count == 0 {
        0.0
    } else {
        total / f64::from(count)
    }
}

/// Floor removed (moving mean over `2·radius + 1` points), clipped at 0,
/// scaled to unit standard deviation (all 0 when there is no variation).
fn normalise(raw: &[f32], radius: usize) -> Vec<f32> {
    let mut values = remove_floor(raw, radius);
    let n = values.len().max(1) as f64;
    let mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    let var = values
        .iter()
        .map(|&v| (f64::from(v) - mean).powi(2))
        .sum::<f64>()
        / n;
    let sd = var.sqrt();
    if sd > 1e-9 {
        let inv = (1.0 / sd) as f32;
        values.iter_mut().for_each(|v| *v *= inv);
    } else {
        values.iter_mut().for_each(|v| *v = 0.0);
    }
    values
}

/// Computes the onset strength curves (broadband and low band) of a mono
/// signal.
pub fn onset_curve(
    mono: &[f32],
    sample_rate: u32,
    progress: &Progress,
) -> Result<OnsetCurve, AudioError> {
    let mut flux = Flux::new(sample_rate);
    let hop = flux.hop;
    let (raw, raw_low) = flux.run(mono, progress)?;
    let points_per_second = f64::from(sample_rate) / hop as f64;
    let radius = (0.2 * points_per_second).round() as usize;
    Ok(OnsetCurve {
        values: normalise(&raw, radius),
        low_values: normalise(&raw_low, radius),
        points_per_second,
        latency_seconds: measure_latency(sample_rate),
    })
}
