//! Video export: `render --video` as the built binary makes an MP4 of Mei
//! through a camera with a song (checked with ffprobe, and one decoded
//! picture against the PNG render of the same frame); a cancel mid-export
//! leaves nothing; a missing ffmpeg gives the message, not a crash.
//!
//! Tests that encode need `ffmpeg` and `ffprobe` on PATH: they are skipped
//! with a note without them, except under `CI=true` (CI installs ffmpeg).
#![cfg(feature = "render")]

mod common;
mod render_support;

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vmd_studio::render::Offscreen;
use vmd_studio::render::sequence::write_video;
use vmd_studio::render::stage::{Stage, demo_model};
use vmd_studio::video::{PictureTimes, VideoError, VideoSpec, VideoWriter, locate_ffmpeg};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run vmd-studio: {e}"))
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// ffmpeg and ffprobe, or `None` with a note (a failure under CI=true).
fn tools() -> Option<(PathBuf, PathBuf)> {
    let found = locate_ffmpeg(None)
        .ok()
        .zip(locate_ffmpeg(Some(Path::new("ffprobe"))).ok());
    if found.is_none() {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true needs ffmpeg and ffprobe on PATH (apt-get install ffmpeg)");
        }
        eprintln!("SKIPPED: this test needs ffmpeg and ffprobe on PATH");
    }
    found
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A 16-bit stereo WAV: `secs` of a 440 Hz tone at `rate` Hz, written by
/// hand (RIFF header, then samples).
fn write_wav(path: &Path, rate: u32, secs: f64) {
    let frames = (f64::from(rate) * secs) as u32;
    let data_len = frames * 4;
    let mut b = Vec::with_capacity(44 + data_len as usize);
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data_len).to_le_bytes());
    b.extend_from_slice(b"WAVE");
    b.extend_from_slice(b"fmt ");
    b.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    b.extend_from_slice(&1u16.to_le_bytes()); // PCM
    b.extend_from_slice(&2u16.to_le_bytes()); // channels
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 4).to_le_bytes()); // bytes per second
    b.extend_from_slice(&4u16.to_le_bytes()); // bytes per frame
    b.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data_len.to_le_bytes());
    for i in 0..frames {
        let t = f64::from(i) / f64::from(rate);
        let s = (8000.0 * (std::f64::consts::TAU * 440.0 * t).sin()) as i16;
        b.extend_from_slice(&s.to_le_bytes());
        b.extend_from_slice(&s.to_le_bytes());
    }
    std::fs::write(path, b).unwrap();
}

/// PSNR in dB of two RGB byte images of the same size (peak 255).
fn psnr(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let se: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| {
            let d = f64::from(*x) - f64::from(*y);
            d * d
        })
        .sum();
    let mse = se / a.len() as f64;
    if mse == 0.0 {
        return f64::INFINITY;
    }
    10.0 * (255.0 * 255.0 / mse).log10()
}

fn num(v: &serde_json::Value, key: &str) -> f64 {
    match &v[key] {
        serde_json::Value::String(s) => s.parse().unwrap_or(f64::NAN),
        serde_json::Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

#[test]
fn an_mp4_of_mei_through_a_camera_with_a_song() {
    let (Some(_), Some(corpus), Some((ffmpeg, ffprobe))) =
        (render_support::offscreen(), common::corpus(), tools())
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let song = dir.path().join("song.wav");
    write_wav(&song, 44_100, 3.0);
    let mp4 = dir.path().join("mei.mp4");
    let model = corpus.join("mei/mei.pmd");
    let dance = corpus.join("mmdagent__mei_wait.vmd");
    let camera = corpus.join("vmd2xml__camera.vmd");
    let common = [
        "render",
        model.to_str().unwrap(),
        dance.to_str().unwrap(),
        camera.to_str().unwrap(),
        "--size",
        "320x180",
    ];
    let started = std::time::Instant::now();
    // Frames 0..59 at 30 fps: 60 pictures, 2 s. The song starts at scene
    // frame 15, half a second in.
    let mut args = common.to_vec();
    args.extend([
        "--frames",
        "0..59",
        "--video",
        mp4.to_str().unwrap(),
        "--song",
        song.to_str().unwrap(),
        "--song-offset",
        "15",
    ]);
    let stdout = ok(&run(&args));
    eprintln!("export: {:.1} s: {stdout}", started.elapsed().as_secs_f64());
    assert!(stdout.contains("wrote a video of 60 pictures"), "{stdout}");
    assert_eq!(
        names_in(dir.path()),
        ["mei.mp4", "song.wav"],
        "no part file left"
    );

    let probe = Command::new(&ffprobe)
        .args([
            "-v",
            "error",
            "-count_frames",
            "-show_streams",
            "-of",
            "json",
        ])
        .arg(&mp4)
        .output()
        .unwrap();
    assert!(probe.status.success());
    let json: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
    let streams = json["streams"].as_array().unwrap();
    assert_eq!(streams.len(), 2, "{json}");
    let video = streams.iter().find(|s| s["codec_type"] == "video").unwrap();
    let audio = streams.iter().find(|s| s["codec_type"] == "audio").unwrap();
    eprintln!(
        "ffprobe: video {} {} {}x{} {} frames {} s; audio {} from {} s for {} s",
        video["codec_name"],
        video["pix_fmt"],
        video["width"],
        video["height"],
        video["nb_read_frames"],
        video["duration"],
        audio["codec_name"],
        audio["start_time"],
        audio["duration"]
    );
    assert_eq!(video["codec_name"], "h264");
    assert_eq!(video["pix_fmt"], "yuv420p");
    assert_eq!(
        (video["width"].as_u64(), video["height"].as_u64()),
        (Some(320), Some(180))
    );
    assert_eq!(num(video, "nb_read_frames"), 60.0);
    assert!((num(video, "duration") - 2.0).abs() < 0.01, "{video}");
    assert_eq!(audio["codec_name"], "aac");
    // The song's first sample at 0.5 s (AAC's 1024-sample priming shows as
    // a start up to 1024 / 44100 s earlier); it plays to the video's end.
    let start = num(audio, "start_time");
    let end = start + num(audio, "duration");
    assert!(
        (0.5 - 1024.0 / 44_100.0 - 0.002..=0.502).contains(&start),
        "{audio}"
    );
    assert!((end - 2.0).abs() < 0.03, "audio ends at {end} s: {audio}");

    // Picture 30 (frame 30) decoded against the PNG render of frame 30.
    let png_dir = dir.path().join("png");
    let mut args = common.to_vec();
    args.extend(["--frames", "30..30", "-o", png_dir.to_str().unwrap()]);
    ok(&run(&args));
    let png = image::open(png_dir.join("00000.png")).unwrap().to_rgb8();
    let decoded = Command::new(&ffmpeg)
        .args(["-v", "error", "-i"])
        .arg(&mp4)
        .args([
            "-vf",
            "select=eq(n\\,30)",
            "-frames:v",
            "1",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgb24",
            "-",
        ])
        .output()
        .unwrap();
    assert!(
        decoded.status.success(),
        "{}",
        String::from_utf8_lossy(&decoded.stderr)
    );
    assert_eq!(decoded.stdout.len(), 320 * 180 * 3);
    let db = psnr(png.as_raw(), &decoded.stdout);
    eprintln!("PSNR of picture 30 against its PNG: {db:.2} dB");
    assert!(db >= 30.0, "PSNR {db:.2} dB");
    // Against another frame it is clearly worse (measured 17 dB): the
    // comparison tells pictures apart.
    let mut args = common.to_vec();
    let other = dir.path().join("other");
    args.extend(["--frames", "0..0", "-o", other.to_str().unwrap()]);
    ok(&run(&args));
    let png0 = image::open(other.join("00000.png")).unwrap().to_rgb8();
    let db0 = psnr(png0.as_raw(), &decoded.stdout);
    eprintln!("PSNR of picture 30 against frame 0's PNG: {db0:.2} dB");
    assert!(
        db0 < 25.0,
        "the comparison tells frames apart ({db0:.2} dB)"
    );
}

#[test]
fn cancelling_mid_export_leaves_nothing() {
    let (Some(_), Some((ffmpeg, _))) = (render_support::offscreen(), tools()) else {
        return;
    };
    let Ok(off) = Offscreen::new() else { return };
    let mut stage = Stage::new(off);
    stage.add_actor(demo_model().unwrap(), None, 0.0).unwrap();
    let target = stage.target(64, 36).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("clip.mp4");
    let times = PictureTimes::new(0, 299, 30).unwrap();
    let spec = VideoSpec {
        width: 64,
        height: 36,
        times,
        song: None,
    };
    let writer = VideoWriter::start(&ffmpeg, &spec, &out).unwrap();
    let done = Cell::new(0u64);
    let part_seen = Cell::new(false);
    let r = write_video(
        &mut stage,
        &target,
        &times,
        writer,
        &|| done.get() >= 5,
        |n, total| {
            assert_eq!(total, 300);
            done.set(n);
            // Meanwhile only the hidden part file is there.
            let names = names_in(dir.path());
            part_seen.set(names.len() == 1 && names[0].starts_with(".clip.mp4."));
        },
    );
    assert!(matches!(r, Err(VideoError::Cancelled)), "{r:?}");
    assert_eq!(done.get(), 5);
    assert!(part_seen.get(), "the export wrote to a part file");
    assert!(
        names_in(dir.path()).is_empty(),
        "{:?}",
        names_in(dir.path())
    );
}

#[test]
fn a_missing_ffmpeg_gives_the_message_and_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let mp4 = dir.path().join("x.mp4");
    let out = run(&[
        "render",
        &format!("{}/assets/demo_dance.vmd", env!("CARGO_MANIFEST_DIR")),
        "--frames",
        "0..9",
        "--size",
        "64x36",
        "--video",
        mp4.to_str().unwrap(),
        "--ffmpeg",
        "/nonexistent/ffmpeg",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ffmpeg not found at /nonexistent/ffmpeg"),
        "{stderr}"
    );
    assert!(stderr.contains("sudo apt install ffmpeg"), "{stderr}");
    assert!(stderr.contains("ffmpeg.org"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(names_in(dir.path()).is_empty());
    // An odd size is refused before anything is drawn.
    let out = run(&[
        "render",
        "x.vmd",
        "--frames",
        "0..9",
        "--size",
        "65x36",
        "--video",
        mp4.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_an_export_stops_ffmpeg_and_leaves_nothing() {
    let (Some(_), Some(_)) = (render_support::offscreen(), tools()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mp4 = dir.path().join("long.mp4");
    let child = Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args([
            "render",
            &format!("{}/assets/demo_dance.vmd", env!("CARGO_MANIFEST_DIR")),
            "--frames",
            "0..9000",
            "--size",
            "64x36",
            "--video",
            mp4.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the part file (the export is under way).
    let t = std::time::Instant::now();
    while names_in(dir.path()).is_empty() {
        assert!(t.elapsed().as_secs() < 60, "the export never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cancelled; no file was written"),
        "{stderr}"
    );
    assert!(
        names_in(dir.path()).is_empty(),
        "{:?}",
        names_in(dir.path())
    );
}
