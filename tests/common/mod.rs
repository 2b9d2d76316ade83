//! Shared by the integration tests: where the real files are, and (with
//! the `gui` feature) the kittest harness in [`ui`]. Each test crate uses
//! only part of it.
#![allow(dead_code)]

#[cfg(feature = "gui")]
pub mod ui;

use std::path::PathBuf;

/// The corpus directory (`$VMD_CORPUS`, default `../shared/corpus`), or
/// `None` with a note when it is missing outside CI. Under `CI=true` a
/// missing corpus fails the test instead of skipping it.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("corpus directory {} is missing (CI=true)", dir.display());
    }
    eprintln!(
        "note: corpus {} not found; skipping corpus test",
        dir.display()
    );
    None
}

/// Makes a 2 s, 30 fps H.264 video of `size` ("64x36") with ffmpeg: red
/// for 1 s, then blue (the background-video tests' clip).
pub fn red_then_blue(ffmpeg: &std::path::Path, out: &std::path::Path, size: &str) {
    let o = std::process::Command::new(ffmpeg)
        .args(["-v", "error", "-y", "-f", "lavfi", "-i"])
        .arg(format!("color=c=red:s={size}:r=30:d=1"))
        .args(["-f", "lavfi", "-i"])
        .arg(format!("color=c=blue:s={size}:r=30:d=1"))
        .args([
            "-filter_complex",
            "[0:v][1:v]concat=n=2:v=1[v]",
            "-map",
            "[v]",
        ])
        .args(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-r", "30"])
        .arg(out)
        .output()
        .expect("ffmpeg runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Runs the built `vmd-studio` with `args` and waits for it.
pub fn run_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run vmd-studio: {e}"))
}

/// A fresh, empty folder in the temporary directory, named `vmd-NAME-PID`.
pub fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
