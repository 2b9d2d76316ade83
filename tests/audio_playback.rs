//! The mixer behind sound output, driven as a device would drive it: the
//! device clock against a drifting sound card over a 4-minute song, loop
//! range, volume and mute, resampling, channel layouts, scrub snippets.

use std::sync::Arc;
use std::time::{Duration, Instant};

use vmd_studio::audio::playback::{Mixer, SCRUB_SECONDS};
use vmd_studio::audio::{Pcm, SongTiming};

/// A mono ramp song: sample i = (i mod 20000) − 10000 (exact in i16 and f32).
fn ramp_song(rate: u32, len: usize) -> Arc<Pcm> {
    let s: Vec<i16> = (0..len)
        .map(|i| ((i % 20_000) as i32 - 10_000) as i16)
        .collect();
    Arc::new(Pcm::new(rate, 1, s).unwrap())
}

fn ramp(i: usize) -> f32 {
    ((i % 20_000) as f32 - 10_000.0) / 32768.0
}

#[test]
fn transport_follows_a_drifting_device_for_4_minutes() {
    // The sound card's crystal runs 0.1 % fast against the system clock: it
    // consumes 48 048 frames per real second while claiming 48 000. The
    // song is 44.1 kHz, starting at scene frame 90; the scene plays from
    // frame 90 (song sample 0). Callbacks every 512 frames, 20 ms latency.
    let song_rate = 44_100;
    let song = Arc::new(Pcm::new(song_rate, 1, vec![0; 44_100 * 245]).unwrap());
    let timing = SongTiming::new(song_rate, 90);
    let mut mixer = Mixer::new();
    mixer.set_song(Some(song));
    mixer.play_from(0.0);
    let device_nominal = 48_000u32;
    let device_actual = 48_048.0f64;
    let latency = Duration::from_millis(20);
    let base = Instant::now();
    let at = |secs: f64| base + Duration::from_secs_f64(secs);
    let mut buf = vec![0.0f32; 512 * 2];
    let mut delivered = 0u64;
    let mut worst: f64 = 0.0;
    let mut wall_clock_error: f64 = 0.0;
    let mut query = 0u64;
    while delivered < 48_000 * 240 {
        // The callback for frames [delivered, delivered + 512) runs when the
        // device has consumed everything before them.
        let t_cb = delivered as f64 / device_actual;
        mixer.fill(&mut buf, 2, device_nominal, at(t_cb), latency);
        delivered += 512;
        // The UI looks at the transport a few times between callbacks.
        let t_next = delivered as f64 / device_actual;
        for j in 0..3 {
            query += 1;
            let t = t_cb + (t_next - t_cb) * (f64::from(j) + 0.37) / 3.0;
            let heard = mixer.heard_position(at(t)).unwrap();
            let transport_frame = timing.frame_at(heard);
            // Truth: the device frame heard at t is (t − latency) · actual
            // rate; each device frame is 44100/48000 song samples.
            let truth_device_frames = ((t - 0.020) * device_actual).max(0.0);
            let truth_frame = timing.frame_at(truth_device_frames * 44_100.0 / 48_000.0);
            if t > 0.02 {
                worst = worst.max((transport_frame - truth_frame).abs());
            }
            // What a transport on the system clock would show.
            let wall_frame = 90.0 + (t - 0.020).max(0.0) * 30.0;
            wall_clock_error = wall_clock_error.max((wall_frame - truth_frame).abs());
        }
    }
    assert!(query > 60_000);
    assert_eq!(mixer.delivered(), delivered);
    eprintln!(
        "device clock: worst {worst:.4} frames; system clock would be off by {wall_clock_error:.2} frames"
    );
    assert!(
        worst <= 1.0,
        "transport drifted {worst} frames from the sound"
    );
    // The test can fail: the system clock is off by ~7 frames after 4 minutes.
    assert!(wall_clock_error > 5.0);
}

#[test]
fn loop_range_loops_the_sound() {
    let mut m = Mixer::new();
    m.set_song(Some(ramp_song(44_100, 44_100)));
    m.set_loop(Some((1_000.0, 2_000.0)));
    m.play_from(1_500.0);
    let mut out = vec![0.0f32; 3_000];
    m.fill(&mut out, 1, 44_100, Instant::now(), Duration::ZERO);
    let want: Vec<f32> = (1_500..2_000)
        .chain(1_000..2_000)
        .chain(1_000..2_000)
        .chain(1_000..1_500)
        .map(ramp)
        .collect();
    assert_eq!(want.len(), out.len());
    for (i, (o, w)) in out.iter().zip(&want).enumerate() {
        assert_eq!(o, w, "device sample {i}");
    }
}

#[test]
fn volume_mute_and_silence_outside_the_song() {
    let mut m = Mixer::new();
    m.set_song(Some(ramp_song(44_100, 1_000)));
    m.set_volume(0.5);
    m.play_from(-10.0);
    let mut out = vec![1.0f32; 20];
    m.fill(&mut out, 1, 44_100, Instant::now(), Duration::ZERO);
    // Ten samples of silence before the song starts, then the song at half volume.
    assert!(out[..10].iter().all(|&s| s == 0.0));
    assert_eq!(out[10], 0.5 * ramp(0));
    assert_eq!(out[19], 0.5 * ramp(9));
    m.set_muted(true);
    m.fill(&mut out, 1, 44_100, Instant::now(), Duration::ZERO);
    assert!(out.iter().all(|&s| s == 0.0));
    // Muted, the clock still runs: the next unmuted buffer continues at 30.
    m.set_muted(false);
    m.set_volume(1.0);
    m.fill(&mut out, 1, 44_100, Instant::now(), Duration::ZERO);
    assert_eq!(out[0], ramp(30));
    // Past the end: silence.
    m.play_from(995.0);
    m.fill(&mut out, 1, 44_100, Instant::now(), Duration::ZERO);
    assert_eq!(out[4], ramp(999));
    assert!(out[5..].iter().all(|&s| s == 0.0));
    // Bad volumes are clamped.
    m.set_volume(7.0);
    assert_eq!(m.volume(), 1.0);
    m.set_volume(f32::NAN);
    assert_eq!(m.volume(), 1.0);
}

#[test]
fn resamples_to_the_device_rate() {
    // 44.1 kHz song on a 48 kHz device: 4800 device frames = 4410 song samples.
    let mut m = Mixer::new();
    m.set_song(Some(ramp_song(44_100, 44_100)));
    m.play_from(0.0);
    let mut out = vec![0.0f32; 4_800];
    let now = Instant::now();
    m.fill(&mut out, 1, 48_000, now, Duration::ZERO);
    // Device frame 480 is song position 441.0 exactly; frame 1 is 0.91875
    // of the way from sample 0 to 1.
    assert!((out[480] - ramp(441)).abs() < 1e-6);
    let want1 = ramp(0) + (ramp(1) - ramp(0)) * 0.91875;
    assert!((out[1] - want1).abs() < 1e-6);
    // The heard position right at the buffer's start is 0, 50 ms later 2205.
    assert_eq!(m.heard_position(now), Some(0.0));
    let p = m.heard_position(now + Duration::from_millis(50)).unwrap();
    assert!((p - 2_205.0).abs() < 1e-6, "{p}");
    // Never past what was handed out (a stalled device stops the clock).
    let p = m.heard_position(now + Duration::from_secs(5)).unwrap();
    assert!((p - 4_410.0).abs() < 1e-6, "{p}");
}

#[test]
fn channel_layouts() {
    let stereo = Arc::new(Pcm::new(48_000, 2, vec![1000, -3000, 2000, 4000]).unwrap());
    let mut m = Mixer::new();
    m.set_song(Some(stereo));
    m.play_from(0.0);
    // Mono device: the average of left and right.
    let mut out = vec![0.0f32; 2];
    m.fill(&mut out, 1, 48_000, Instant::now(), Duration::ZERO);
    assert_eq!(out, vec![-1000.0 / 32768.0, 3000.0 / 32768.0]);
    // Six-channel device: left and right in the first two, silence elsewhere.
    m.play_from(0.0);
    let mut out = vec![9.0f32; 12];
    m.fill(&mut out, 6, 48_000, Instant::now(), Duration::ZERO);
    assert_eq!(
        &out[..6],
        &[1000.0 / 32768.0, -3000.0 / 32768.0, 0.0, 0.0, 0.0, 0.0]
    );
    assert_eq!(&out[6..8], &[2000.0 / 32768.0, 4000.0 / 32768.0]);
    // Mono song on a stereo device: the same on both sides.
    m.set_song(Some(ramp_song(48_000, 10)));
    m.play_from(3.0);
    let mut out = vec![0.0f32; 4];
    m.fill(&mut out, 2, 48_000, Instant::now(), Duration::ZERO);
    assert_eq!(out, vec![ramp(3), ramp(3), ramp(4), ramp(4)]);
}

#[test]
fn scrub_plays_a_short_faded_snippet() {
    let song = Arc::new(Pcm::new(44_100, 1, vec![16_384; 44_100]).unwrap());
    let mut m = Mixer::new();
    m.set_song(Some(song));
    m.scrub(10_000.0);
    let mut out = vec![0.0f32; 8_192];
    m.fill(&mut out, 1, 44_100, Instant::now(), Duration::ZERO);
    let len = (SCRUB_SECONDS * 44_100.0).round() as usize; // 3528
    assert!(out[0].abs() < 0.01, "fades in");
    assert!((out[len / 2] - 0.5).abs() < 1e-6, "full level mid-snippet");
    assert!(out[len - 1].abs() < 0.01, "fades out");
    assert!(out[len + 1..].iter().all(|&s| s == 0.0), "then silence");
    // Stopped and not scrubbing: silence, no clock.
    m.fill(&mut out, 1, 44_100, Instant::now(), Duration::ZERO);
    assert!(out.iter().all(|&s| s == 0.0));
    assert_eq!(m.heard_position(Instant::now()), None);
    // While playing a scrub request is ignored.
    m.play_from(0.0);
    m.scrub(20_000.0);
    m.fill(&mut out, 1, 44_100, Instant::now(), Duration::ZERO);
    assert!(out.iter().all(|&s| (s - 0.5).abs() < 1e-6));
}

#[test]
fn heard_position_wraps_with_the_loop() {
    let mut m = Mixer::new();
    m.set_song(Some(ramp_song(44_100, 44_100)));
    m.set_loop(Some((1_000.0, 2_000.0)));
    m.play_from(1_900.0);
    let now = Instant::now();
    let mut out = vec![0.0f32; 441];
    m.fill(&mut out, 1, 44_100, now, Duration::ZERO);
    // 5 ms = 220.5 samples after 1900: past the loop end, so 1120.5.
    let p = m.heard_position(now + Duration::from_millis(5)).unwrap();
    assert!((p - 1_120.5).abs() < 1e-6, "{p}");
}

#[test]
fn no_song_is_silence() {
    let mut m = Mixer::new();
    m.play_from(0.0);
    let mut out = vec![1.0f32; 64];
    m.fill(&mut out, 2, 48_000, Instant::now(), Duration::ZERO);
    assert!(out.iter().all(|&s| s == 0.0));
}
