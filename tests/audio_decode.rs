//! Decoding: WAV at 8/16/24 bits, mono and stereo (made here), and the
//! small MP3, OGG Vorbis and FLAC files in tests/data/audio (made by its
//! make.sh from formulas repeated below). Damaged files give errors, never
//! a panic.

mod audio_support;

use std::path::PathBuf;

use audio_support::wav_bytes;
use vmd_studio::audio::{AudioError, Pcm, decode_bytes, decode_file};
use vmd_studio::progress::Progress;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/audio")
        .join(name)
}

fn decode(bytes: Vec<u8>, ext: &str) -> Result<Pcm, AudioError> {
    decode_bytes(bytes, Some(ext), &Progress::default())
}

/// A ramp the tests can predict: sample i of channel c.
fn ramp(i: usize, c: usize) -> f32 {
    let v = ((i * 37 + c * 11) % 200) as f32 / 100.0 - 1.0; // −1.0 ..= 0.99
    if c == 1 { -v * 0.5 } else { v }
}

fn interleaved(len: usize, channels: usize) -> Vec<f32> {
    (0..len)
        .flat_map(|i| (0..channels).map(move |c| ramp(i, c)))
        .collect()
}

#[test]
fn wav_16_bit_stereo_is_exact() {
    let x = interleaved(48_000, 2);
    let pcm = decode(wav_bytes(48_000, 2, 16, &x), "wav").unwrap();
    assert_eq!(
        (pcm.sample_rate(), pcm.channels(), pcm.len()),
        (48_000, 2, 48_000)
    );
    assert!((pcm.duration_seconds() - 1.0).abs() < 1e-12);
    for i in [0, 1, 2, 999, 12_345, 47_999] {
        for c in 0..2 {
            let want = (f64::from(ramp(i, c)) * 32768.0)
                .round()
                .clamp(-32768.0, 32767.0) as i16;
            assert_eq!(
                pcm.sample(i, c as u16),
                Some(want),
                "sample {i} channel {c}"
            );
        }
    }
    assert_eq!(pcm.sample(48_000, 0), None);
}

#[test]
fn wav_8_bit_mono() {
    let x = interleaved(22_050, 1);
    let pcm = decode(wav_bytes(22_050, 1, 8, &x), "wav").unwrap();
    assert_eq!(
        (pcm.sample_rate(), pcm.channels(), pcm.len()),
        (22_050, 1, 22_050)
    );
    for i in [0, 5, 100, 22_049] {
        // 8-bit unsigned: u = round(v·128) + 128; back as (u − 128) / 128.
        let u = (f64::from(ramp(i, 0)) * 128.0).round() + 128.0;
        let want = ((u - 128.0) * 256.0) as i16;
        assert_eq!(pcm.sample(i, 0), Some(want), "sample {i}");
    }
}

#[test]
fn wav_24_bit_stereo_within_one_16_bit_step() {
    let x = interleaved(44_100 / 2, 2);
    let pcm = decode(wav_bytes(44_100, 2, 24, &x), "wav").unwrap();
    assert_eq!(
        (pcm.sample_rate(), pcm.channels(), pcm.len()),
        (44_100, 2, 22_050)
    );
    for i in [0, 3, 7_777, 22_049] {
        for c in 0..2 {
            let want = f64::from(ramp(i, c)) * 32768.0;
            let got = f64::from(pcm.sample(i, c as u16).unwrap());
            assert!(
                (got - want).abs() <= 1.0,
                "sample {i} ch {c}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn wav_24_bit_mono_from_file() {
    let dir = std::env::temp_dir().join(format!("vmd-audio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mono24.wav");
    let x = interleaved(8_000, 1);
    std::fs::write(&path, wav_bytes(8_000, 1, 24, &x)).unwrap();
    let progress = Progress::default();
    let pcm = decode_file(&path, &progress).unwrap();
    assert_eq!(
        (pcm.sample_rate(), pcm.channels(), pcm.len()),
        (8_000, 1, 8_000)
    );
    assert_eq!(progress.fraction(), 1.0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn flac_stereo_is_lossless() {
    let pcm = decode_file(&data("tone.flac"), &Progress::default()).unwrap();
    assert_eq!(
        (pcm.sample_rate(), pcm.channels(), pcm.len()),
        (22_050, 2, 22_050 / 4)
    );
    for i in 0..pcm.len() {
        let s = (2.0 * std::f64::consts::PI * 440.0 * i as f64 / 22_050.0).sin();
        let (l, r) = ((16384.0 * s).round() as i16, (-8192.0 * s).round() as i16);
        assert_eq!(pcm.sample(i, 0), Some(l), "left {i}");
        assert_eq!(pcm.sample(i, 1), Some(r), "right {i}");
    }
}

/// Where a lossy copy of the tone file sounds: the first and last sample
/// above a quarter of the tone's amplitude, in seconds.
fn tone_span(pcm: &Pcm, channel: u16) -> (f64, f64) {
    let loud: Vec<usize> = (0..pcm.len())
        .filter(|&i| pcm.sample(i, channel).unwrap().unsigned_abs() > 4096)
        .collect();
    let rate = f64::from(pcm.sample_rate());
    (loud[0] as f64 / rate, loud[loud.len() - 1] as f64 / rate)
}

/// The tone's amplitude from its RMS over the middle of the tone.
fn tone_amplitude(pcm: &Pcm, channel: u16) -> f64 {
    let (a, b) = (
        pcm.sample_rate() as usize * 35 / 100,
        pcm.sample_rate() as usize * 65 / 100,
    );
    let sum: f64 = (a..b)
        .map(|i| f64::from(pcm.sample(i, channel).unwrap()).powi(2))
        .sum();
    (sum / (b - a) as f64).sqrt() * std::f64::consts::SQRT_2
}

#[test]
fn mp3_duration_and_alignment() {
    let pcm = decode_file(&data("tone.mp3"), &Progress::default()).unwrap();
    assert_eq!((pcm.sample_rate(), pcm.channels()), (44_100, 1));
    // The encoder's delay and padding are trimmed (gapless): 1.0 s exactly,
    // and the tone starts at 0.25 s, not ~25 ms late as a naive decoder has it.
    assert_eq!(pcm.len(), 44_100, "duration {} s", pcm.duration_seconds());
    let (start, end) = tone_span(&pcm, 0);
    assert!((start - 0.25).abs() < 0.002, "tone starts at {start}");
    assert!((end - 0.75).abs() < 0.002, "tone ends at {end}");
    let amp = tone_amplitude(&pcm, 0);
    assert!((amp - 16384.0).abs() < 16384.0 * 0.05, "amplitude {amp}");
}

#[test]
fn ogg_vorbis_stereo_duration_and_channels() {
    let pcm = decode_file(&data("tone.ogg"), &Progress::default()).unwrap();
    assert_eq!((pcm.sample_rate(), pcm.channels()), (44_100, 2));
    assert_eq!(pcm.len(), 44_100, "duration {} s", pcm.duration_seconds());
    let (start, end) = tone_span(&pcm, 0);
    assert!((start - 0.25).abs() < 0.002, "tone starts at {start}");
    assert!((end - 0.75).abs() < 0.002, "tone ends at {end}");
    let amp = tone_amplitude(&pcm, 0);
    assert!((amp - 16384.0).abs() < 16384.0 * 0.1, "amplitude {amp}");
    // The right channel is (nearly) silent.
    assert!(tone_amplitude(&pcm, 1) < 16384.0 * 0.05);
}

#[test]
fn mono_mix_and_min_max() {
    let pcm = Pcm::new(8_000, 2, vec![1000, -3000, 200, 400]).unwrap();
    assert_eq!(pcm.len(), 2);
    assert_eq!(pcm.min_max(0), Some((-3000, 1000)));
    assert_eq!(pcm.min_max(1), Some((200, 400)));
    assert_eq!(pcm.min_max(2), None);
    let mono = pcm.mono_f32();
    assert_eq!(mono, vec![-1000.0 / 32768.0, 300.0 / 32768.0]);
    assert!(Pcm::new(8_000, 3, vec![0; 3]).is_none());
    assert!(Pcm::new(8_000, 2, vec![0; 3]).is_none());
    assert!(Pcm::new(4_000, 1, vec![0; 3]).is_none());
}

fn is_err(r: Result<Pcm, AudioError>, what: &str) -> String {
    match r {
        Err(e) => e.to_string(),
        Ok(p) => panic!("{what}: decoded {} samples from a broken file", p.len()),
    }
}

#[test]
fn garbage_is_a_clear_error() {
    let msg = is_err(
        decode(b"this is not a song at all".repeat(100), "mp3"),
        "text",
    );
    assert!(
        msg.contains("not a song") || msg.contains("damaged"),
        "{msg}"
    );
    let msg = is_err(decode(Vec::new(), "wav"), "empty");
    assert!(!msg.is_empty());
    // A WAV header with no samples.
    let header = wav_bytes(44_100, 2, 16, &[]);
    is_err(decode(header, "wav"), "header only");
    // Missing file: the message names it.
    let missing = data("no-such-song.mp3");
    let msg = decode_file(&missing, &Progress::default())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("no-such-song.mp3"), "{msg}");
}

#[test]
fn unsupported_bit_depth_is_an_error() {
    // A WAV claiming 13-bit samples in a 16-bit container with a bogus block size.
    let mut bytes = wav_bytes(44_100, 1, 16, &[0.0; 64]);
    bytes[32] = 7; // block align 7 for one 16-bit channel
    bytes[34] = 13;
    let r = decode(bytes, "wav");
    if let Ok(p) = r {
        // Accepting it is fine only if what came out is sane.
        assert!(p.len() <= 64);
    }
}

#[test]
fn damaged_files_never_panic() {
    // Every prefix length (in steps) and a sweep of byte flips over each
    // real file: each either decodes to something sane or is an error.
    for name in ["tone.mp3", "tone.ogg", "tone.flac"] {
        let bytes = std::fs::read(data(name)).unwrap();
        let ext = name.rsplit('.').next().unwrap();
        for cut in (0..bytes.len()).step_by(397) {
            if let Ok(p) = decode(bytes[..cut].to_vec(), ext) {
                assert!(p.duration_seconds() <= 1.01, "{name} cut at {cut}");
            }
        }
        for at in (0..bytes.len()).step_by(211) {
            let mut b = bytes.clone();
            for x in &mut b[at..(at + 16).min(bytes.len())] {
                *x ^= 0xA5;
            }
            if let Ok(p) = decode(b, ext) {
                assert!(p.duration_seconds() <= 2.0, "{name} flipped at {at}");
            }
        }
    }
}

#[test]
fn truncated_wav_keeps_what_is_there_or_errs() {
    let x = interleaved(1_000, 2);
    let bytes = wav_bytes(44_100, 2, 16, &x);
    // Cut mid-sample: the data chunk claims more than the file holds.
    if let Ok(p) = decode(bytes[..bytes.len() / 2 + 1].to_vec(), "wav") {
        assert!(p.len() < 1_000);
        assert_eq!(
            p.sample(0, 0),
            Some((f64::from(ramp(0, 0)) * 32768.0).round() as i16)
        );
    }
}

#[test]
fn cancelled_decode_stops() {
    let p = Progress::default();
    p.cancel();
    let r = decode_bytes(wav_bytes(44_100, 1, 16, &[0.1; 44_100]), Some("wav"), &p);
    assert!(matches!(r, Err(AudioError::Cancelled)));
}
