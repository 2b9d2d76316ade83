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
