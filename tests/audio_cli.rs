//! `vmd-studio beats`: on a generated 128 BPM click track (WAV written here),
//! and on broken input (exit 1, one line on stderr).

mod audio_support;

use std::process::Command;

use audio_support::{click_track, wav_bytes};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
}

fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vmd-audio-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn beats_json_of_a_click_track() {
    let (x, clicks) = click_track(44_100, 128.0, 0.3, 12.0);
    let path = temp("click128.wav", &wav_bytes(44_100, 1, 16, &x));
    let out = bin()
        .arg("beats")
        .arg(&path)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bpm = v["bpm"].as_f64().unwrap();
    assert!((bpm - 128.0).abs() < 0.5, "bpm {bpm}");
    let first = v["first_beat_seconds"].as_f64().unwrap();
    assert!((first - 0.3).abs() < 1.0 / 30.0, "first beat {first}");
    let beats: Vec<f64> = v["beats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_f64().unwrap())
        .collect();
    assert_eq!(beats.len(), clicks.len());
    for (b, c) in beats.iter().zip(&clicks) {
        assert!((b - c).abs() < 1.0 / 30.0, "beat {b} vs click {c}");
    }
    assert_eq!(v["sample_rate"], 44_100);
}

#[test]
fn beats_text_output() {
    let (x, _) = click_track(48_000, 90.0, 0.5, 10.0);
    let path = temp("click90.wav", &wav_bytes(48_000, 1, 16, &x));
    let out = bin().arg("beats").arg(&path).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("bpm: 90.0") || text.contains("bpm: 89.9"),
        "{text}"
    );
    let first: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("first_beat_seconds: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no first beat in {text}"));
    assert!((first - 0.5).abs() < 1.0 / 30.0, "{text}");
    assert!(text.lines().any(|l| l.starts_with("beats (")), "{text}");
}

#[test]
fn beats_on_broken_input_exits_1_with_one_line() {
    let path = temp("broken.mp3", b"ID3 but nothing else of use here");
    let out = bin().arg("beats").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("broken.mp3"), "{err}");

    let silent = temp(
        "silent.wav",
        &wav_bytes(44_100, 1, 16, &vec![0.0; 44_100 * 5]),
    );
    let out = bin().arg("beats").arg(&silent).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no steady beat"), "{err}");

    let out = bin().args(["beats", "--help"]).output().unwrap();
    assert!(out.status.success());
}
