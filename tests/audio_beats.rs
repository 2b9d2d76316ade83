//! Beat estimation on generated click tracks: tempo within 0.5 BPM, every
//! click matched by a beat within one frame (1/30 s), no beat without a click.

mod audio_support;

use audio_support::{click_track, kick_hat_track};
use vmd_studio::audio::{BeatGrid, Pcm, estimate_beats, grid_from_taps};
use vmd_studio::progress::Progress;

const FRAME: f64 = 1.0 / 30.0;

fn check(rate: u32, bpm: f64, phase: f64, seconds: f64) {
    let (x, clicks) = click_track(rate, bpm, phase, seconds);
    check_signal(rate, bpm, &x, &clicks, true);
}

/// Kick on the beat, hi-hat between: the grid must sit on the kicks (the
/// hats are louder in broadband flux, half a beat away).
fn check_kick_hat(rate: u32, bpm: f64, phase: f64, seconds: f64) {
    let (x, kicks) = kick_hat_track(rate, bpm, phase, seconds);
    check_signal(rate, bpm, &x, &kicks, true);
}

fn check_signal(rate: u32, bpm: f64, x: &[f32], clicks: &[f64], downbeat: bool) {
    let pcm = Pcm::from_mono_f32(rate, x).unwrap();
    let est = estimate_beats(&pcm, &Progress::default())
        .unwrap()
        .unwrap_or_else(|| panic!("no beat found at {bpm} BPM"));
    let beats = est.beat_times();
    eprintln!(
        "{bpm} BPM @ {rate}: got {:.3} BPM, first {:.4} (click {:.4}), {} beats vs {} clicks, conf {:.2}",
        est.grid.bpm,
        est.grid.first_beat_seconds,
        clicks[0],
        beats.len(),
        clicks.len(),
        est.confidence
    );
    assert!(
        (est.grid.bpm - bpm).abs() < 0.5,
        "tempo {} vs {bpm}",
        est.grid.bpm
    );
    let mut worst: f64 = 0.0;
    for &c in clicks {
        let d = beats.iter().map(|b| (b - c).abs()).fold(f64::MAX, f64::min);
        worst = worst.max(d);
        assert!(
            d < FRAME,
            "{bpm} BPM: click at {c:.4} s is {d:.4} s from the nearest beat"
        );
    }
    for &b in &beats {
        let d = clicks
            .iter()
            .map(|c| (b - c).abs())
            .fold(f64::MAX, f64::min);
        // The grid may run a beat past the last whole click at the very end.
        if b < clicks[clicks.len() - 1] + 0.5 * 60.0 / bpm {
            assert!(
                d < FRAME,
                "{bpm} BPM: beat at {b:.4} s is {d:.4} s from any click"
            );
        }
    }
    eprintln!("  worst click-to-beat distance {:.1} ms", worst * 1000.0);
    if !downbeat {
        return;
    }
    // Accented downbeats (clicks 0, 4, 8…) found.
    let k0 = est.grid.nearest_beat(clicks[0]).0;
    assert!(
        est.grid.is_downbeat(k0),
        "downbeat phase {}",
        est.grid.downbeat_phase
    );
}

#[test]
fn click_90_bpm() {
    check(44_100, 90.0, 0.37, 24.0);
}

#[test]
fn click_120_bpm() {
    check(48_000, 120.0, 0.81, 24.0);
}

#[test]
fn click_128_bpm() {
    check(44_100, 128.0, 0.123, 24.0);
}

#[test]
fn click_174_bpm() {
    check(48_000, 174.0, 0.05, 24.0);
}

#[test]
fn click_174_bpm_long_song_does_not_drift() {
    // Two minutes: 348 beats; a tempo error of 0.01 BPM would already move
    // the last beat by 7 ms, so this checks the fit, not just the estimate.
    check(44_100, 174.0, 1.234, 120.0);
}

#[test]
fn kick_on_beat_hat_off_beat_90_bpm() {
    check_kick_hat(44_100, 90.0, 0.41, 24.0);
}

#[test]
fn kick_on_beat_hat_off_beat_120_bpm() {
    check_kick_hat(48_000, 120.0, 0.77, 24.0);
}

#[test]
fn kick_on_beat_hat_off_beat_128_bpm() {
    check_kick_hat(44_100, 128.0, 0.25, 24.0);
}

#[test]
fn kick_on_beat_hat_off_beat_174_bpm() {
    check_kick_hat(48_000, 174.0, 0.137, 24.0);
}

#[test]
fn silence_has_no_beat() {
    let pcm = Pcm::from_mono_f32(44_100, &vec![0.0; 44_100 * 10]).unwrap();
    assert!(
        estimate_beats(&pcm, &Progress::default())
            .unwrap()
            .is_none()
    );
}

#[test]
fn too_short_has_no_beat() {
    let (x, _) = click_track(44_100, 120.0, 0.1, 1.5);
    let pcm = Pcm::from_mono_f32(44_100, &x).unwrap();
    assert!(
        estimate_beats(&pcm, &Progress::default())
            .unwrap()
            .is_none()
    );
}

#[test]
fn cancelled_analysis_stops() {
    let (x, _) = click_track(44_100, 120.0, 0.1, 10.0);
    let pcm = Pcm::from_mono_f32(44_100, &x).unwrap();
    let p = Progress::default();
    p.cancel();
    assert!(estimate_beats(&pcm, &p).is_err());
}

#[test]
fn grid_arithmetic() {
    let g = BeatGrid::new(120.0, 0.25).unwrap();
    assert_eq!(g.period_seconds(), 0.5);
    assert_eq!(g.beat_time(3), 1.75);
    assert_eq!(g.beat_time(-1), -0.25);
    assert_eq!(g.nearest_beat(1.49), (2, 1.25));
    assert_eq!(g.nearest_beat(1.51), (3, 1.75));
    assert!(g.is_downbeat(0) && g.is_downbeat(4) && g.is_downbeat(-4));
    assert!(!g.is_downbeat(1) && !g.is_downbeat(-1));
    let times: Vec<f64> = g.beats_between(0.0, 1.3).map(|(_, t)| t).collect();
    assert_eq!(times, vec![0.25, 0.75, 1.25]);
    assert_eq!(g.beat_times(1.3), vec![0.25, 0.75, 1.25]);
    // Dragging beat 2 from 1.25 s to 1.40 s moves the whole grid by 0.15 s.
    let m = g.moved(2, 1.40);
    assert!((m.first_beat_seconds - 0.40).abs() < 1e-12);
    assert_eq!(m.bpm, 120.0);
    // Beat 1 made the downbeat: 1, 5, -3 are downbeats.
    let d = g.with_downbeat(1);
    assert!(d.is_downbeat(1) && d.is_downbeat(5) && d.is_downbeat(-3) && !d.is_downbeat(0));
    assert!(BeatGrid::new(0.0, 0.0).is_none());
    assert!(BeatGrid::new(f64::NAN, 0.0).is_none());
}

#[test]
fn tap_tempo() {
    // Taps at 100 BPM (0.6 s) with ±20 ms of human jitter and one skipped tap.
    let jitter = [0.0, 0.02, -0.015, 0.01, -0.02, 0.005, 0.0, 0.012];
    let ks = [0, 1, 2, 3, 5, 6, 7, 8]; // beat 4 not tapped
    let taps: Vec<f64> = ks
        .iter()
        .zip(jitter)
        .map(|(&k, j)| 2.0 + f64::from(k) * 0.6 + j)
        .collect();
    let g = grid_from_taps(&taps).unwrap();
    assert!((g.bpm - 100.0).abs() < 1.0, "bpm {}", g.bpm);
    assert!(
        (g.first_beat_seconds - 2.0).abs() < 0.02,
        "first {}",
        g.first_beat_seconds
    );
    assert!(grid_from_taps(&[1.0]).is_none());
    assert!(grid_from_taps(&[1.0, 0.5]).is_none());
}

/// The beat lane's marks thin with the zoom (issue 38.1): at 120 BPM a
/// beat is 15 frames. At the timeline's fitted zoom of 0.12 points a frame
/// a beat is 1.8 points and a 4-beat bar 7.2: bars alone would be a band,
/// so every 2nd bar shows (14.4 ≥ 8). At 0.05 points a frame a bar is 3
/// points: every 4th bar (12). From 1/3 point a frame a beat is 5 points:
/// every beat.
#[test]
fn beat_marks_thin_with_the_zoom() {
    use vmd_studio::audio::beats::MarkStep;
    let g = BeatGrid::new(120.0, 0.0).expect("grid");
    let beat_px = |px_per_frame: f64| 15.0 * px_per_frame;
    assert_eq!(g.mark_step(beat_px(0.12)), Some(MarkStep::Bars(2)));
    assert_eq!(g.mark_step(beat_px(0.05)), Some(MarkStep::Bars(4)));
    assert_eq!(g.mark_step(beat_px(1.0 / 3.0)), Some(MarkStep::Beats));
    assert_eq!(
        g.mark_step(beat_px(0.3)),
        Some(MarkStep::Bars(1)),
        "18 points a bar"
    );
    assert_eq!(g.mark_step(0.001), None, "not one bar in 64 has room");
    assert_eq!(g.mark_step(f64::NAN), None);
    // Every 2nd bar: beats 0 and 8 (downbeats of bars 1 and 3), not 4.
    let shown: Vec<i64> = (0..17).filter(|&k| g.shows(k, MarkStep::Bars(2))).collect();
    assert_eq!(shown, vec![0, 8, 16]);
    // With the downbeat moved to beat 1: bars start at 1, 5, 9, …
    let g = g.with_downbeat(1);
    let shown: Vec<i64> = (0..17).filter(|&k| g.shows(k, MarkStep::Bars(2))).collect();
    assert_eq!(shown, vec![1, 9]);
    // Before the first beat too (an intro): bars start at −3 and −7; the
    // one two bars before beat 1 (−7) shows, the one just before it not.
    assert!(g.shows(-7, MarkStep::Bars(2)));
    assert!(!g.shows(-3, MarkStep::Bars(2)));
}
