//! The song through a real sound server (PulseAudio, or PipeWire's pulse
//! server) on Linux: the app's default sound output opens a stream, the
//! transport's clock (the heard position) runs at the song's rate, and the
//! samples arrive at the server — recorded from the default sink's monitor
//! with `parec`, the clicks of a 120 BPM click track found there 0.5 s
//! apart.
//!
//! Needs a server. Without one it prints why and passes, unless
//! `VMD_REQUIRE_SOUND_SERVER=1` (CI starts a null-sink server and sets it).
#![cfg(target_os = "linux")]

use crate::audio_support::click_track;

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use vmd_studio::app::sound::pulse::server_sockets;
use vmd_studio::app::sound::{SoundOutput, SoundStatus};
use vmd_studio::audio::Pcm;

const SONG_RATE: u32 = 44_100;
const RECORD_RATE: u32 = 48_000;

fn server_present() -> bool {
    let present = server_sockets(|k| std::env::var(k).ok())
        .is_ok_and(|paths| paths.iter().any(|p| p.exists()));
    if !present {
        let required = std::env::var("VMD_REQUIRE_SOUND_SERVER").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "VMD_REQUIRE_SOUND_SERVER=1 but no sound server socket was found"
        );
        eprintln!(
            "SKIPPED: no PulseAudio/PipeWire server (no socket at $PULSE_SERVER, $XDG_RUNTIME_DIR/pulse/native or /run/pulse/native)"
        );
    }
    present
}

/// Onsets in a mono recording: the first sample of each run above
/// `threshold`, runs closer than 0.1 s merged.
fn onsets(x: &[f32], rate: u32, threshold: f32) -> Vec<f64> {
    let gap = (0.1 * f64::from(rate)) as usize;
    let mut out = Vec::new();
    let mut last: Option<usize> = None;
    for (i, s) in x.iter().enumerate() {
        if s.abs() > threshold {
            if last.is_none_or(|l| i - l > gap) {
                out.push(i as f64 / f64::from(rate));
            }
            last = Some(i);
        }
    }
    out
}

#[test]
fn the_song_plays_through_the_sound_server() {
    if !server_present() {
        return;
    }
    let out = SoundOutput::open();
    let SoundStatus::Ready { device } = out.status().clone() else {
        panic!(
            "a server is present but no stream opened: {:?}",
            out.status()
        );
    };
    eprintln!("playing through: {device}");
    let (x, _) = click_track(SONG_RATE, 120.0, 0.25, 3.5);
    let samples: Vec<i16> = x.iter().map(|s| (s * 32767.0) as i16).collect();
    let pcm = Pcm::new(SONG_RATE, 1, samples).expect("a song");
    out.set_song(Some(Arc::new(pcm)));

    // The default sink's monitor, recorded while the song plays.
    let rec_path = std::env::temp_dir().join(format!("vmd-sound-{}.f32", std::process::id()));
    let recorder = std::fs::File::create(&rec_path).ok().and_then(|f| {
        Command::new("parec")
            .args([
                "-d",
                "@DEFAULT_MONITOR@",
                "--format=float32le",
                "--channels=1",
                "--latency-msec=10",
            ])
            .arg(format!("--rate={RECORD_RATE}"))
            .arg("--raw")
            .stdout(f)
            .stderr(Stdio::null())
            .spawn()
            .ok()
    });
    if recorder.is_none() {
        eprintln!("note: no parec (pulseaudio-utils): the samples are not recorded");
    }
    // parec starts recording, and a sink that idled sets itself to the
    // stream's latency: PulseAudio's null sink, idle, sleeps in 2-s blocks
    // and plays the new stream only after the current one ends (seen: the
    // first sound 1.6 s after play on a null sink idle for minutes; a real
    // card does not do this). The stream plays silence meanwhile.
    std::thread::sleep(Duration::from_millis(2500));

    let t0 = Instant::now();
    out.with_mixer(|m| m.play_from(0.0));
    let mut heard: Vec<(f64, f64)> = Vec::new();
    while t0.elapsed() < Duration::from_secs(3) {
        if let Some(h) = out.heard_position() {
            heard.push((t0.elapsed().as_secs_f64(), h));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    out.with_mixer(|m| m.stop());
    assert!(out.is_live(), "the stream stayed up");

    // The transport's clock: it starts within the stream's latency and
    // runs at the song's rate.
    let first = heard
        .iter()
        .find(|(_, h)| *h > 0.0)
        .expect("the clock moved");
    eprintln!(
        "heard position first moved {:.1} ms after play",
        first.0 * 1000.0
    );
    assert!(
        first.0 < 0.5,
        "the sound started {:.3} s after play",
        first.0
    );
    let (a, b) = (heard[heard.len() / 3], heard[heard.len() - 1]);
    let rate = (b.1 - a.1) / (b.0 - a.0);
    eprintln!(
        "heard position rate {rate:.1} song samples/s ({:+.3} %)",
        (rate / f64::from(SONG_RATE) - 1.0) * 100.0
    );
    assert!(
        (rate / f64::from(SONG_RATE) - 1.0).abs() < 0.01,
        "the clock runs at {rate} samples/s"
    );
    for w in heard.windows(2) {
        assert!(w[1].1 >= w[0].1 - 1.0, "the clock went back: {w:?}");
    }

    let Some(mut recorder) = recorder else {
        return;
    };
    std::thread::sleep(Duration::from_millis(400));
    let _ = recorder.kill();
    let _ = recorder.wait();
    let bytes = std::fs::read(&rec_path).expect("the recording");
    let _ = std::fs::remove_file(&rec_path);
    let rec: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let rms =
        (rec.iter().map(|s| f64::from(*s).powi(2)).sum::<f64>() / rec.len().max(1) as f64).sqrt();
    let peak = rec.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    let found = onsets(&rec, RECORD_RATE, 0.1);
    eprintln!(
        "recorded {:.2} s from the monitor: RMS {rms:.4}, peak {peak:.3}, clicks at {found:.3?}",
        rec.len() as f64 / f64::from(RECORD_RATE)
    );
    // The song's clicks are 0.5 s apart; 3 s of playing holds 6 of them.
    assert!(found.len() >= 5, "clicks recorded: {found:?}");
    for w in found.windows(2) {
        let d = w[1] - w[0];
        assert!((d - 0.5).abs() < 0.005, "clicks {d:.4} s apart: {found:?}");
    }
    assert!(peak > 0.3, "the clicks arrive at full level: peak {peak}");
}

#[test]
fn a_missing_server_is_said_plainly() {
    // Only the socket named in PULSE_SERVER is tried: a path with nothing
    // there, and a network address this app does not speak to.
    let none = server_sockets(|k| (k == "PULSE_SERVER").then(|| "unix:/nonexistent/native".into()))
        .expect("a unix path");
    assert_eq!(none, vec![std::path::PathBuf::from("/nonexistent/native")]);
    let tcp = server_sockets(|k| (k == "PULSE_SERVER").then(|| "tcp:localhost:4713".into()))
        .expect_err("no local socket");
    assert!(
        tcp.contains("PULSE_SERVER") && tcp.contains("tcp:localhost"),
        "{tcp}"
    );
}
