//! The waveform envelope against hand-computed values, and the frame ⇄
//! sample mapping with offsets at 44.1 and 48 kHz.

use vmd_studio::audio::envelope::BASE_BLOCK;
use vmd_studio::audio::{Envelope, MinMax, Pcm, Song, SongTiming};

/// Brute force: min/max over positions [a, b) of all channels.
fn brute(pcm: &Pcm, a: usize, b: usize) -> Option<MinMax> {
    let mut lo = i16::MAX;
    let mut hi = i16::MIN;
    for i in a..b.min(pcm.len()) {
        for c in 0..pcm.channels() {
            let s = pcm.sample(i, c)?;
            lo = lo.min(s);
            hi = hi.max(s);
        }
    }
    (lo <= hi).then_some(MinMax { min: lo, max: hi })
}

#[test]
fn sine_envelope_per_period() {
    // 100 Hz sine of amplitude 10000 at 8 kHz: 80 samples per period. A
    // column of exactly one period holds the crest and the trough:
    // max = round(10000·sin(2π·20/80)) = 10000, min = −10000.
    let rate = 8000;
    let x: Vec<f32> = (0..rate * 2)
        .map(|i| {
            (10000.0 / 32768.0)
                * (2.0 * std::f64::consts::PI * 100.0 * i as f64 / 8000.0).sin() as f32
        })
        .collect();
    let song = Song::new(Pcm::from_mono_f32(rate as u32, &x).unwrap());
    let mut cols = vec![None; 200];
    song.columns(0.0, 80.0, &mut cols);
    for (c, col) in cols.iter().enumerate() {
        assert_eq!(
            *col,
            Some(MinMax {
                min: -10000,
                max: 10000
            }),
            "column {c}"
        );
    }
    // Quarter-period columns starting at 0: rising quarter [0, 20) has min 0
    // (sample 0) and max at sample 19 = round(10000·sin(2π·19/80)).
    let mut cols = vec![None; 4];
    song.columns(0.0, 20.0, &mut cols);
    let s = |i: f64| (10000.0 * (2.0 * std::f64::consts::PI * i / 80.0).sin()).round() as i16;
    assert_eq!(
        cols[0],
        Some(MinMax {
            min: 0,
            max: s(19.0)
        })
    );
    // [20, 40): from the crest (sample 20) down to sample 39.
    assert_eq!(
        cols[1],
        Some(MinMax {
            min: s(39.0),
            max: 10000
        })
    );
    // Past the end of the song: nothing; before the start: nothing.
    let mut cols = vec![None; 3];
    song.columns(16_000.0 - 80.0, 80.0, &mut cols);
    assert!(cols[0].is_some() && cols[1].is_none() && cols[2].is_none());
    song.columns(-160.0, 80.0, &mut cols);
    assert!(cols[0].is_none() && cols[1].is_none() && cols[2].is_some());
}

#[test]
fn click_train_envelope() {
    // Silence with one-sample clicks of 0.5 full scale (16384) every 1000
    // samples at 44.1 kHz, starting at sample 500. A column of 100 samples
    // holds a click iff it contains a position ≡ 500 (mod 1000).
    let n = 44_100;
    let mut x = vec![0.0f32; n];
    for i in (500..n).step_by(1000) {
        x[i] = 0.5;
    }
    let pcm = Pcm::from_mono_f32(44_100, &x).unwrap();
    let env = Envelope::build(&pcm);
    let mut cols = vec![None; 441];
    env.columns(&pcm, 0.0, 100.0, &mut cols);
    for (c, col) in cols.iter().enumerate() {
        let has_click = (c * 100..(c + 1) * 100).any(|i| i % 1000 == 500);
        let want = MinMax {
            min: 0,
            max: if has_click { 16384 } else { 0 },
        };
        assert_eq!(*col, Some(want), "column {c}");
    }
    // Fit-all: 44 100 samples in 10 columns of 4410: every column has a click.
    let mut cols = vec![None; 10];
    env.columns(&pcm, 0.0, 4410.0, &mut cols);
    assert!(
        cols.iter()
            .all(|c| *c == Some(MinMax { min: 0, max: 16384 }))
    );
}

/// `n` noise-like samples from a linear congruential generator.
fn noise(n: usize, seed: u32) -> Vec<i16> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (state >> 16) as i16
        })
        .collect()
}

/// Columns at every zoom, from sub-sample to a whole song in a few columns,
/// at offsets that are not block-aligned: each column is the brute-force
/// min/max of the samples it covers (the lane reads two levels of the
/// pyramid, not the tree walk). Columns of 256 samples or more cover their
/// range with both ends rounded to the nearest multiple of 16 (never more
/// than 8 samples off), plus the song's tail past its last whole 16-sample
/// block.
#[test]
fn columns_match_brute_force_at_every_zoom() {
    let len = 200_003;
    let pcm = Pcm::new(48_000, 2, noise(len * 2, 777)).unwrap();
    let env = Envelope::build(&pcm);
    for spc in [
        0.5, 3.0, 17.0, 100.0, 800.0, 1_023.7, 4_410.0, 7_500.0, 50_000.0,
    ] {
        for start in [-333.0, 0.0, 12_345.6] {
            let mut cols = vec![None; 64];
            env.columns(&pcm, start, spc, &mut cols);
            for (c, col) in cols.iter().enumerate() {
                let x0 = (start + c as f64 * spc).floor();
                let x1 = (start + (c + 1) as f64 * spc).floor().max(x0 + 1.0);
                let want = if x1 <= 0.0 || x0 >= len as f64 {
                    None
                } else {
                    let (a, b) = (x0.max(0.0) as usize, x1.min(len as f64) as usize);
                    if b - a >= 256 {
                        let near16 = |x: usize| (x + 8) / 16 * 16;
                        let (ra, rb) = (near16(a), near16(b).min(len / 16 * 16));
                        assert!(ra.abs_diff(a) <= 8 && (rb.abs_diff(b) <= 8 || b > len / 16 * 16));
                        let whole = brute(&pcm, ra, rb);
                        let tail = brute(&pcm, (len / 16 * 16).max(a), b);
                        match (whole, tail) {
                            (Some(w), Some(t)) => Some(MinMax {
                                min: w.min.min(t.min),
                                max: w.max.max(t.max),
                            }),
                            (w, t) => w.or(t),
                        }
                    } else {
                        brute(&pcm, a, b)
                    }
                };
                assert_eq!(*col, want, "spc {spc}, start {start}, column {c}");
            }
        }
    }
}

#[test]
fn any_range_matches_brute_force() {
    // Stereo noise-like signal, odd length; ranges at every scale and alignment.
    let len = 10_007;
    let pcm = Pcm::new(44_100, 2, noise(len * 2, 12345)).unwrap();
    let env = Envelope::build(&pcm);
    assert!(env.level_count() > 5);
    let mut a = 0usize;
    while a < len {
        for width in [1, 2, 15, 16, 17, 31, 33, 100, 257, 1000, 4097, 20_000] {
            assert_eq!(
                env.range(&pcm, a, a + width),
                brute(&pcm, a, a + width),
                "[{a}, +{width})"
            );
        }
        a += 613;
    }
    assert_eq!(env.range(&pcm, 5, 5), None);
    assert_eq!(env.range(&pcm, len, len + 10), None);
    // Columns narrower than a sample: each still shows the sample under it.
    let mut cols = vec![None; 8];
    env.columns(&pcm, 100.0, 0.25, &mut cols);
    for (c, col) in cols.iter().enumerate() {
        assert_eq!(*col, brute(&pcm, 100 + c / 4, 101 + c / 4));
    }
}

#[test]
fn envelope_is_compact() {
    let pcm = Pcm::new(48_000, 2, vec![0; 48_000 * 2 * 60]).unwrap();
    let env = Envelope::build(&pcm);
    // Level 0 has one min/max pair per BASE_BLOCK positions, the rest add
    // as much again (1/2 + 1/4 + …): under 2 × (positions / 16) × 4 bytes.
    let bound = 2 * (48_000 * 60 / BASE_BLOCK) * 4;
    assert!(
        env.memory_bytes() <= bound,
        "{} > {bound}",
        env.memory_bytes()
    );
    assert_eq!(pcm.memory_bytes(), 48_000 * 60 * 2 * 2);
}

#[test]
fn frames_to_samples_at_44_1_khz() {
    let t = SongTiming::new(44_100, 0);
    assert_eq!(t.samples_per_frame(), 1470.0);
    assert_eq!(t.sample_at_frame(0), 0);
    assert_eq!(t.sample_at_frame(1), 1470);
    assert_eq!(t.sample_at_frame(30), 44_100);
    assert_eq!(t.sample_at_frame(7200), 7200 * 1470); // 4 minutes
    assert_eq!(t.frame_of_sample(1469), 0);
    assert_eq!(t.frame_of_sample(1470), 1);
    // The song starts 45 frames into the scene (1.5 s of silence first).
    let t = SongTiming::new(44_100, 45);
    assert_eq!(t.sample_at_frame(45), 0);
    assert_eq!(t.sample_at_frame(0), -45 * 1470);
    assert_eq!(t.sample_at_frame(75), 44_100);
    assert_eq!(t.frame_of_sample(0), 45);
    assert_eq!(t.frame_of_sample(-1), 44);
    assert_eq!(t.frame_at(735.0), 45.5);
    assert_eq!(t.sample_at(45.5), 735.0);
    assert_eq!(t.seconds_at(75.0), 1.0);
    assert_eq!(t.frame_at_seconds(1.0), 75.0);
}

#[test]
fn frames_to_samples_at_48_khz_with_negative_offset() {
    // The scene starts 2 s (60 frames) into the song.
    let t = SongTiming::new(48_000, -60);
    assert_eq!(t.samples_per_frame(), 1600.0);
    assert_eq!(t.sample_at_frame(0), 96_000);
    assert_eq!(t.sample_at_frame(-60), 0);
    assert_eq!(t.sample_at_frame(1), 97_600);
    assert_eq!(t.frame_of_sample(96_000), 0);
    assert_eq!(t.frame_of_sample(95_999), -1);
    assert_eq!(t.frame_at(96_800.0), 0.5);
    assert_eq!(t.seconds_at(0.0), 2.0);
    // Round trips over a 4-minute song are exact at whole frames.
    for f in (-60..7200).step_by(7) {
        assert_eq!(t.frame_of_sample(t.sample_at_frame(f)), f);
        assert_eq!(t.frame_at(t.sample_at(f as f64)), f as f64);
    }
}

#[test]
fn frames_at_a_rate_that_is_not_a_whole_number_of_samples_per_frame() {
    // 11 025 Hz: 367.5 samples per frame; frame 1 starts at sample 367
    // (rounded down), frame 2 at exactly 735.
    let t = SongTiming::new(11_025, 0);
    assert_eq!(t.sample_at_frame(1), 367);
    assert_eq!(t.sample_at_frame(2), 735);
    assert_eq!(t.sample_at_frame(-1), -368);
    assert_eq!(t.frame_of_sample(367), 0);
    assert_eq!(t.frame_of_sample(368), 1);
}
