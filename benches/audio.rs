//! Audio benchmarks (criterion): the waveform lane of a 5-minute 48 kHz
//! stereo song — building the envelope pyramid once, and the per-frame cost
//! of filling every pixel column at fit-all (target: well under 1 ms) and
//! zoomed in — and beat estimation on a 60 s click track.
//!
//! Run: `cargo bench --no-default-features --bench audio`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use vmd_studio::audio::{Envelope, MinMax, Pcm, Song, estimate_beats};
use vmd_studio::progress::Progress;

/// 5 minutes of 48 kHz stereo: a chirp with a pseudo-random envelope.
fn five_minutes() -> Pcm {
    let rate = 48_000usize;
    let n = rate * 300;
    let mut samples = Vec::with_capacity(n * 2);
    let mut state = 1u32;
    for i in 0..n {
        if i % 4800 == 0 {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        let amp = 4000.0 + f64::from(state >> 20) * 6.0;
        let t = i as f64 / rate as f64;
        let s = (amp * (2.0 * std::f64::consts::PI * (200.0 + 3.0 * t) * t).sin()) as i16;
        samples.push(s);
        samples.push(s / 2);
    }
    Pcm::new(48_000, 2, samples).unwrap()
}

fn envelope(c: &mut Criterion) {
    let pcm = five_minutes();
    let mut g = c.benchmark_group("waveform_5min_48k_stereo");
    g.sample_size(10);
    g.bench_function("build_envelope", |b| {
        b.iter(|| Envelope::build(black_box(&pcm)))
    });
    g.finish();

    let song = Song::new(pcm);
    let len = song.pcm.len() as f64;
    let mut cols = vec![None::<MinMax>; 1920];
    let mut g = c.benchmark_group("waveform_lane_1920px");
    g.bench_function("fit_all", |b| {
        b.iter(|| song.columns(black_box(0.0), len / 1920.0, &mut cols))
    });
    // The same columns through the tree walk of `Envelope::range` (what
    // `columns` did before it read two levels): the baseline, same process.
    let walk = |start: f64, spc: f64, cols: &mut [Option<MinMax>]| {
        for (c, slot) in cols.iter_mut().enumerate() {
            let x0 = (start + c as f64 * spc).floor() as usize;
            let x1 = ((start + (c + 1) as f64 * spc).floor() as usize).max(x0 + 1);
            *slot = song.envelope.range(&song.pcm, x0, x1);
        }
    };
    g.bench_function("fit_all_tree_walk", |b| {
        b.iter(|| walk(black_box(0.0), len / 1920.0, &mut cols))
    });
    g.bench_function("zoom_2px_per_frame_tree_walk", |b| {
        b.iter(|| walk(black_box(7_200_013.0), 800.0, &mut cols))
    });
    // Zoomed to 2 px per frame (800 samples per column), mid-song, at an
    // offset that is not block-aligned.
    g.bench_function("zoom_2px_per_frame", |b| {
        b.iter(|| song.columns(black_box(7_200_013.0), 800.0, &mut cols))
    });
    // Zoomed far in: 3 samples per column.
    g.bench_function("zoom_3_samples_per_px", |b| {
        b.iter(|| song.columns(black_box(7_200_013.0), 3.0, &mut cols))
    });
    g.finish();
}

fn beats(c: &mut Criterion) {
    let rate = 44_100usize;
    let period = 60.0 / 128.0;
    let mut x = vec![0.0f32; rate * 60];
    let mut k = 0;
    loop {
        let start = ((0.2 + k as f64 * period) * rate as f64) as usize;
        if start + 300 >= x.len() {
            break;
        }
        for j in 0..220 {
            let t = j as f64 / rate as f64;
            x[start + j] =
                (0.5 * (-t / 0.0015).exp() * (2.0 * std::f64::consts::PI * 2000.0 * t).sin())
                    as f32;
        }
        k += 1;
    }
    let pcm = Pcm::from_mono_f32(44_100, &x).unwrap();
    let mut g = c.benchmark_group("beats");
    g.sample_size(10);
    g.bench_function("estimate_60s_44k", |b| {
        b.iter(|| estimate_beats(black_box(&pcm), &Progress::default()))
    });
    g.finish();
}

criterion_group!(benches, envelope, beats);
criterion_main!(benches);
