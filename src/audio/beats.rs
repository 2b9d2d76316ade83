//! The beat grid: tempo and beat phase of a song, estimated from its onset
//! strength, and corrected by the user (tap tempo, dragging a downbeat).
//!
//! The grid is constant-tempo — what DAW-made songs (nearly all MMD songs)
//! have: beat `k` sounds at `first_beat_seconds + k · 60 / bpm`.
//!
//! Estimation, in four steps:
//! 1. **Tempo candidates.** Autocorrelation of the onset curve over lags of
//!    60–240 BPM, weighted by a log-normal preference around 120 BPM (one
//!    octave wide); the best lag is refined with a parabola.
//! 2. **Octave check.** Autocorrelation cannot tell a pulse from one at half
//!    its rate; if the grid's half-beats carry at least half the onset
//!    strength of its beats, the tempo is doubled (while ≤ 240 BPM).
//! 3. **Beat or off-beat.** The comb's phase may sit on the off-beats: a
//!    hi-hat between kicks outweighs the kick in the broadband curve. Of
//!    the phase and the phase half a beat later, the one with more
//!    low-band onset strength (kick drum, bass: they mark the beat in
//!    dance music) is kept.
//! 4. **Phase and exact period.** Starting from the loudest 8 beats, each
//!    predicted beat is matched to the onset peak near it (±15 % of a
//!    beat) and a line `time = first + k · period` is fitted by least
//!    squares; the span doubles each round until it covers the song, so a
//!    small tempo error cannot accumulate into a missed beat. Peaks are
//!    looked for in the sum of the broadband and low-band curves, so a kick
//!    counts even where hats are louder.
//! 5. **Downbeat.** Of the four beats of a bar, the one whose onsets are
//!    strongest on average is taken as the downbeat.

use super::decode::check;
use super::error::AudioError;
use super::onset::{OnsetCurve, onset_curve, refine_peak};
use super::pcm::Pcm;
use crate::progress::Progress;

/// Tempo search range, beats per minute.
pub const MIN_BPM: f64 = 60.0;
pub const MAX_BPM: f64 = 240.0;

/// A constant-tempo beat grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BeatGrid {
    /// Beats per minute (> 0).
    pub bpm: f64,
    /// Song time of beat 0, seconds (the first beat the music plays).
    pub first_beat_seconds: f64,
    /// Beats in a bar (4 for nearly every MMD song).
    pub beats_per_bar: u32,
    /// Beat `k` starts a bar when `k ≡ downbeat_phase (mod beats_per_bar)`.
    pub downbeat_phase: u32,
}

impl BeatGrid {
    /// A grid with the first beat on a downbeat. `None` for a tempo that is
    /// not a positive finite number.
    pub fn new(bpm: f64, first_beat_seconds: f64) -> Option<BeatGrid> {
        (bpm.is_finite() && bpm > 0.0 && first_beat_seconds.is_finite()).then_some(BeatGrid {
            bpm,
            first_beat_seconds,
            beats_per_bar: 4,
            downbeat_phase: 0,
        })
    }

    /// Seconds per beat.
    pub fn period_seconds(&self) -> f64 {
        60.0 / self.bpm
    }

    /// Song time of beat `k` (negative `k`: before the first beat).
    pub fn beat_time(&self, k: i64) -> f64 {
        self.first_beat_seconds + k as f64 * self.period_seconds()
    }

    /// Whether beat `k` starts a bar.
    pub fn is_downbeat(&self, k: i64) -> bool {
        let bpb = i64::from(self.beats_per_bar.max(1));
        (k - i64::from(self.downbeat_phase)).rem_euclid(bpb) == 0
    }

    /// The beat nearest to song time `t`: its index and time.
    pub fn nearest_beat(&self, t: f64) -> (i64, f64) {
        let k = ((t - self.first_beat_seconds) / self.period_seconds()).round() as i64;
        (k, self.beat_time(k))
    }

    /// Every grid beat with time in `[from, to]` (including beats before
    /// the first beat, so a grid can be drawn over an intro).
    pub fn beats_between(&self, from: f64, to: f64) -> impl Iterator<Item = (i64, f64)> + '_ {
        let p = self.period_seconds();
        let k0 = ((from - self.first_beat_seconds) / p).ceil() as i64;
        let k1 = ((to - self.first_beat_seconds) / p).floor() as i64;
        (k0..=k1.max(k0 - 1)).map(move |k| (k, self.beat_time(k)))
    }

    /// Which marks a lane drawn at `beat_px` points per beat shows, so they
    /// never merge into a band (issue 38.1): every beat from 5 points a
    /// beat; else downbeats only, every `n`-th bar (`n` a power of two)
    /// so that shown bars are at least [`MIN_MARK_GAP`] points apart.
    /// `None`: not even one bar in 64 has room.
    pub fn mark_step(&self, beat_px: f64) -> Option<MarkStep> {
        if !beat_px.is_finite() || beat_px <= 0.0 {
            return None;
        }
        if beat_px >= 5.0 {
            return Some(MarkStep::Beats);
        }
        let bar_px = beat_px * f64::from(self.beats_per_bar.max(1));
        (0..=6)
            .map(|e| 1u32 << e)
            .find(|&n| bar_px * f64::from(n) >= MIN_MARK_GAP)
            .map(MarkStep::Bars)
    }

    /// Whether beat `k` is drawn at `step` (see [`BeatGrid::mark_step`]).
    pub fn shows(&self, k: i64, step: MarkStep) -> bool {
        match step {
            MarkStep::Beats => true,
            MarkStep::Bars(n) => {
                let bpb = i64::from(self.beats_per_bar.max(1));
                self.is_downbeat(k)
                    && (k - i64::from(self.downbeat_phase))
                        .div_euclid(bpb)
                        .rem_euclid(i64::from(n))
                        == 0
            }
        }
    }

    /// Beat times from the first beat up to `until` seconds.
    pub fn beat_times(&self, until: f64) -> Vec<f64> {
        self.beats_between(self.first_beat_seconds, until)
            .map(|(_, t)| t)
            .collect()
    }

    /// The grid moved so that beat `k` sounds at `t` and stays a downbeat
    /// if it was one (dragging a bar line).
    pub fn moved(&self, k: i64, t: f64) -> BeatGrid {
        let mut g = *self;
        g.first_beat_seconds += t - self.beat_time(k);
        g
    }

    /// The grid with beat `k` made the downbeat.
    pub fn with_downbeat(&self, k: i64) -> BeatGrid {
        let mut g = *self;
        g.downbeat_phase = k.rem_euclid(i64::from(self.beats_per_bar.max(1))) as u32;
        g
    }
}

/// The smallest gap, points, between two bar marks a lane draws.
pub const MIN_MARK_GAP: f64 = 8.0;

/// What a beat lane shows at its zoom ([`BeatGrid::mark_step`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkStep {
    /// Every beat.
    Beats,
    /// Every `n`-th bar's downbeat.
    Bars(u32),
}

/// Tap tempo: the grid through a user's taps (song times, seconds), fitted
/// by least squares so uneven taps average out. Beat 0 is the first tap's
/// beat and a downbeat. `None` with fewer than 2 taps or taps not in order.
pub fn grid_from_taps(taps: &[f64]) -> Option<BeatGrid> {
    if taps.len() < 2
        || taps.iter().any(|t| !t.is_finite())
        || taps.windows(2).any(|w| w[1] <= w[0])
    {
        return None;
    }
    // Number the taps by the median interval so a skipped tap is allowed.
    let mut gaps: Vec<f64> = taps.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_by(f64::total_cmp);
    let median = gaps[gaps.len() / 2];
    let mut ks = Vec::with_capacity(taps.len());
    for &t in taps {
        ks.push(((t - taps[0]) / median).round());
    }
    let (first, period) = fit_line(ks.iter().copied().zip(taps.iter().copied()))?;
    BeatGrid::new(60.0 / period, first)
}

/// Least-squares line `y = a + b·x`; `None` when degenerate or `b ≤ 0`.
fn fit_line(points: impl Iterator<Item = (f64, f64)> + Clone) -> Option<(f64, f64)> {
    let (mut n, mut sx, mut sy) = (0.0, 0.0, 0.0);
    for (x, y) in points.clone() {
        n += 1.0;
        sx += x;
        sy += y;
    }
    if n < 2.0 {
        return None;
    }
    let (mx, my) = (sx / n, sy / n);
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for (x, y) in points {
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
    }
    if sxx <= 0.0 {
        return None;
    }
    let b = sxy / sxx;
    (b > 0.0 && b.is_finite()).then_some((my - b * mx, b))
}

/// Result of beat estimation.
#[derive(Debug, Clone)]
pub struct BeatEstimate {
    pub grid: BeatGrid,
    /// Share of the grid's beats (from the first) that land on an onset, 0..1.
    pub confidence: f64,
    /// Song length, seconds.
    pub duration_seconds: f64,
}

impl BeatEstimate {
    /// Beat times from the first beat to the end of the song.
    pub fn beat_times(&self) -> Vec<f64> {
        self.grid.beat_times(self.duration_seconds)
    }
}

/// Estimates the beat grid of a song. `Ok(None)` when there is no steady
/// pulse to find (silence, a few seconds of sound, a drone).
pub fn estimate_beats(pcm: &Pcm, progress: &Progress) -> Result<Option<BeatEstimate>, AudioError> {
    let mono = pcm.mono_f32();
    let curve = onset_curve(&mono, pcm.sample_rate(), progress)?;
    check(progress)?;
    Ok(
        estimate_from_curve(&curve).map(|(grid, confidence)| BeatEstimate {
            grid,
            confidence,
            duration_seconds: pcm.duration_seconds(),
        }),
    )
}

/// Autocorrelation of the mean-removed curve at integer lags `lo..=hi`
/// (unbiased: divided by the number of products).
fn autocorrelation(x: &[f32], lo: usize, hi: usize) -> Vec<f64> {
    let n = x.len();
    let mean = x.iter().map(|&v| f64::from(v)).sum::<f64>() / n.max(1) as f64;
    let c: Vec<f64> = x.iter().map(|&v| f64::from(v) - mean).collect();
    (lo..=hi)
        .map(|lag| {
            if lag >= n {
                return 0.0;
            }
            let s: f64 = c[..n - lag].iter().zip(&c[lag..]).map(|(a, b)| a * b).sum();
            s / (n - lag) as f64
        })
        .collect()
}

/// Linear interpolation of the curve at a fractional index (0 outside).
fn at(values: &[f32], x: f64) -> f64 {
    if x < 0.0 {
        return 0.0;
    }
    let i = x.floor() as usize;
    let f = x - i as f64;
    let a = values.get(i).copied().map_or(0.0, f64::from);
    let b = values.get(i + 1).copied().map_or(0.0, f64::from);
    a + (b - a) * f
}

/// For period `p` (curve points): the phase in `[0, p)` whose comb of beats
/// collects the most onset strength, that mean strength, and the mean
/// strength halfway between the beats.
fn comb(values: &[f32], p: f64) -> (f64, f64, f64) {
    let n = values.len() as f64;
    let steps = (p * 2.0).ceil().max(1.0) as usize;
    let mut best = (0.0, f64::MIN);
    for s in 0..steps {
        let phase = s as f64 * p / steps as f64;
        let (mut sum, mut count) = (0.0, 0.0);
        let mut t = phase;
        while t < n {
            sum += at(values, t);
            count += 1.0;
            t += p;
        }
        let mean = if count > 0.0 { sum / count } else { 0.0 };
        if mean > best.1 {
            best = (phase, mean);
        }
    }
    let (phase, on) = best;
    let (mut sum, mut count) = (0.0, 0.0);
    let mut t = phase + p / 2.0;
    while t < n {
        sum += at(values, t);
        count += 1.0;
        t += p;
    }
    let mid = if count > 0.0 { sum / count } else { 0.0 };
    (phase, on, mid)
}

/// The strongest onset within `±radius` of fractional index `x`: its
/// refined index and strength.
fn peak_near(values: &[f32], x: f64, radius: f64) -> Option<(f64, f64)> {
    let a = (x - radius).ceil().max(0.0) as usize;
    let b = ((x + radius).floor().max(0.0) as usize).min(values.len().checked_sub(1)?);
    let (i, v) = (a..=b)
        .filter_map(|i| values.get(i).map(|&v| (i, v)))
        .max_by(|p, q| p.1.total_cmp(&q.1))?;
    Some((refine_peak(values, i), f64::from(v)))
}

/// Area under the curve within `±radius` of fractional index `x`: an
/// onset's size that does not depend on where the curve's points fall on
/// it (a peak's height does, by up to a few percent).
fn area_near(values: &[f32], x: f64, radius: f64) -> f64 {
    let a = (x - radius).ceil().max(0.0) as usize;
    let b = (x + radius).floor().max(0.0) as usize;
    values
        .iter()
        .take(b.saturating_add(1))
        .skip(a)
        .map(|&s| f64::from(s))
        .sum()
}

/// Mean over the comb `phase + k·p` of the strongest onset within
/// `±radius` of each tooth.
fn comb_peaks(values: &[f32], phase: f64, p: f64, radius: f64) -> f64 {
    let n = values.len() as f64;
    let (mut sum, mut count) = (0.0, 0.0);
    let mut t = phase.rem_euclid(p);
    while t < n {
        sum += peak_near(values, t, radius).map_or(0.0, |(_, s)| s);
        count += 1.0;
        t += p;
    }
    if count > 0.0 { sum / count } else { 0.0 }
}

/// Mean low-band strength the off-beat comb needs (beyond beating the
/// on-beat comb) before the phase moves half a beat: below it the low band
/// is too quiet to say anything.
const LOW_BAND_MIN: f64 = 0.25;

/// Onset strength a peak needs to count as a beat's onset (the curve has
/// unit standard deviation).
const PEAK_THRESHOLD: f64 = 0.5;

fn estimate_from_curve(curve: &OnsetCurve) -> Option<(BeatGrid, f64)> {
    let v = &curve.values;
    let pps = curve.points_per_second;
    let lo = (pps * 60.0 / MAX_BPM).floor().max(1.0) as usize;
    let hi = (pps * 60.0 / MIN_BPM).ceil() as usize;
    // Need a few bars of sound.
    if v.len() < 3 * hi || v.iter().all(|&x| x <= 0.0) {
        return None;
    }

    // 1. Tempo candidate.
    let period = tempo_period(v, pps, lo, hi)?;

    // 2. Octave check.
    // Halve the period while the half-way points are about as strong.
    let (period, mut phase) = octave_check(v, period, lo);

    // 3. Beat or off-beat, by the low band.
    let low = &curve.low_values;
    phase = beat_or_offbeat(low, phase, period);
    // Peaks from here on: broadband plus low band.
    let beat_curve: Vec<f32> = v
        .iter()
        .zip(low.iter().chain(std::iter::repeat(&0.0)))
        .map(|(a, b)| a + b)
        .collect();
    let v = &beat_curve;

    // 4. Phase and exact period by growing least-squares fits.
    let n = v.len() as f64;
    let (a, p, matched) = fit_beats(v, phase, period);
    if matched.len() < 4 {
        return None;
    }

    // Beat 0 is the first matched beat.
    let k_first = matched.iter().map(|m| m.0).min()?;
    let first_index = a + k_first as f64 * p;
    let beats_from_first = ((n - 1.0 - first_index) / p).floor() as i64 + 1;
    let confidence = (matched.len() as f64 / beats_from_first.max(1) as f64).min(1.0);

    // 5. Downbeat: the strongest of the four beat positions of a bar.
    let downbeat_phase = strongest_bar_position(v, &matched, k_first, p);

    let grid = BeatGrid {
        bpm: 60.0 * pps / p,
        first_beat_seconds: curve.time_of(first_index),
        beats_per_bar: 4,
        downbeat_phase,
    };
    (grid.bpm.is_finite() && grid.bpm > 0.0).then_some((grid, confidence))
}

/// Step 1: the tempo's period in curve points: the autocorrelation peak
/// between `lo` and `hi` points, weighted towards 120 BPM, refined to a
/// fraction of a point; `None` without a positive peak.
fn tempo_period(v: &[f32], pps: f64, lo: usize, hi: usize) -> Option<f64> {
    let acf = autocorrelation(v, lo, hi);
    let weight = |lag: f64| {
        let bpm = 60.0 * pps / lag;
        let o = (bpm / 120.0).log2();
        (-0.5 * o * o).exp()
    };
    let (best_i, _) = acf
        .iter()
        .enumerate()
        .map(|(i, &a)| (i, a * weight((lo + i) as f64)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    if acf[best_i] <= 0.0 {
        return None;
    }
    let mut period = (lo + best_i) as f64;
    if best_i > 0 && best_i + 1 < acf.len() {
        let (a, b, c) = (acf[best_i - 1], acf[best_i], acf[best_i + 1]);
        let den = a - 2.0 * b + c;
        if den.abs() > 1e-12 {
            period += (0.5 * (a - c) / den).clamp(-0.5, 0.5);
        }
    }
    Some(period)
}

/// Step 2, the octave check: halves the period while the half-way points
/// are about as strong; gives (period, phase).
fn octave_check(v: &[f32], mut period: f64, lo: usize) -> (f64, f64) {
    let phase = loop {
        let (phase, on, mid) = comb(v, period);
        if period / 2.0 >= lo as f64 && on > 0.0 && mid >= 0.5 * on {
            period /= 2.0;
        } else {
            break phase;
        }
    };
    (period, phase)
}

/// Step 3: moves the phase half a beat when the low band is stronger off
/// the beat than on it.
fn beat_or_offbeat(low: &[f32], mut phase: f64, period: f64) -> f64 {
    let half = period / 2.0;
    let low_on = comb_peaks(low, phase, period, 0.1 * period);
    let low_off = comb_peaks(low, phase + half, period, 0.1 * period);
    if low_off > low_on && low_off >= LOW_BAND_MIN {
        phase = (phase + half).rem_euclid(period);
    }
    phase
}

/// Step 4: phase `a` and exact period `p` by least-squares fits over a
/// growing span of beats, from the 8 consecutive beats with the most onset
/// strength; gives (a, p, matched beats as (index, position, strength)).
fn fit_beats(v: &[f32], phase: f64, period: f64) -> (f64, f64, Vec<(i64, f64, f64)>) {
    let n = v.len() as f64;
    let beats_total = (n / period).floor() as i64;
    // Start from the 8 consecutive beats with the most onset strength.
    let span0 = 8i64.min(beats_total.max(1));
    let strength = |k: i64| at(v, phase + k as f64 * period);
    let mut start = 0i64;
    let mut best_sum = f64::MIN;
    for k in 0..=(beats_total - span0).max(0) {
        let s: f64 = (k..k + span0).map(strength).sum();
        if s > best_sum {
            best_sum = s;
            start = k;
        }
    }
    let (mut a, mut p) = (phase, period);
    let (mut k_lo, mut k_hi) = (start, start + span0 - 1);
    let k_min_all = -((phase / period).ceil() as i64) - 1;
    let k_max_all = ((n - phase) / period).ceil() as i64 + 1;
    let mut matched: Vec<(i64, f64, f64)>;
    loop {
        matched = Vec::new();
        for k in k_lo..=k_hi {
            let x = a + k as f64 * p;
            if x < 0.0 || x >= n {
                continue;
            }
            if let Some((pos, strength)) = peak_near(v, x, 0.15 * p)
                && strength >= PEAK_THRESHOLD
            {
                matched.push((k, pos, strength));
            }
        }
        // Fit, drop the worst outliers, refit.
        for _ in 0..2 {
            if let Some((na, np)) = fit_line(matched.iter().map(|&(k, x, _)| (k as f64, x)))
                && (np / p - 1.0).abs() < 0.05
            {
                a = na;
                p = np;
            }
            matched.retain(|&(k, x, _)| (x - (a + k as f64 * p)).abs() <= 0.08 * p);
        }
        if k_lo <= k_min_all && k_hi >= k_max_all {
            break;
        }
        let span = (k_hi - k_lo + 1).max(1);
        k_lo = (k_lo - span).max(k_min_all);
        k_hi = (k_hi + span).min(k_max_all);
    }
    (a, p, matched)
}

/// Step 5, the downbeat: the strongest of the four beat positions of a bar.
fn strongest_bar_position(v: &[f32], matched: &[(i64, f64, f64)], k_first: i64, p: f64) -> u32 {
    let mut sums = [0.0f64; 4];
    for &(k, x, _) in matched {
        sums[(k - k_first).rem_euclid(4) as usize] += area_near(v, x, 0.1 * p);
    }
    sums.iter()
        .enumerate()
        .max_by(|x, y| x.1.total_cmp(y.1))
        .map_or(0, |(i, _)| i as u32)
}
