//! # VMD Studio
//!
//! A lossless editor for MikuMikuDance VMD files (dance motions, cameras,
//! facial and light tracks).
//!
//! ## Layers
//! ```text
//! vmd        pure: bytes ⇄ motion, curves, evaluation + cache, camera math, key edits, toolbox ops
//! model      pure: PMX/PMD readers, materials, textures, morphs, MMD pose rules, physics, skinning
//! audio      pure: decoding, waveform envelopes, beats
//! scene      pure: actors, camera, light, song slot, offsets; .vmdscene and crash-recovery
//!            files; video export's plan, ffmpeg command line and encoder (`scene::video`)
//!  ↑
//! workspace  pure: open documents + histories, the scene arrangement, one undo
//!            order, transport, selection; one entry point (`Workspace::apply`)
//!  ↑
//! render     wgpu (feature `render`, part of `gui`): MMD-style model renderer,
//!            offscreen targets and readback, for the viewport and the CLI
//! cli        the `vmd-studio <verb>` commands (render and storyboard use `render`)
//! app        eframe/egui (feature `gui`): a shell; panels read the workspace
//!            and return events
//! main       CLI subcommands and the GUI entry point
//! ```
//! **The rule:** nothing in `vmd`, `model`, `audio`, `scene` or
//! `workspace` names a GUI or GPU type; `cargo test --no-default-features`
//! builds and tests them alone.
//!
//! ## Invariants
//! * Every record keeps its raw bytes; reading then writing an unedited
//!   [`vmd::Motion`] gives back the identical file.
//! * An edit rewrites only the bytes of the field it edits.
//! * Names never get cut: a name that does not fit its field is refused.
#![forbid(unsafe_code)]

pub mod audio;
pub mod cli;
pub mod logging;
pub mod model;
pub mod progress;
pub mod project;
#[cfg(feature = "render")]
pub mod render;
pub mod scene;
pub mod sizing;
/// Video export's GPU-free part now lives in the scene layer
/// ([`scene::video`]); this keeps the old path `crate::video` working.
pub use scene::video;
pub mod vmd;
pub mod winpath;
pub mod workspace;

/// The app's data directory (recovery copies, logs): `$VMD_STUDIO_DATA_DIR`,
/// else the platform's local one: `~/.local/share/vmd-studio` on Linux
/// (`$XDG_DATA_HOME/vmd-studio`), `%LOCALAPPDATA%\vmd-studio\data` on
/// Windows, `~/Library/Application Support/vmd-studio` on macOS. Local, not
/// Windows' roaming `%APPDATA%`: crash copies, their session locks and logs
/// belong to this machine, and a roaming profile would copy them around.
pub fn data_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os(DATA_DIR_ENV).filter(|d| !d.is_empty()) {
        return Some(std::path::PathBuf::from(d));
    }
    directories::ProjectDirs::from("", "", "vmd-studio").map(|p| p.data_local_dir().to_path_buf())
}

/// Environment variable that overrides [`data_dir`] (tests, portable use).
pub const DATA_DIR_ENV: &str = "VMD_STUDIO_DATA_DIR";

#[cfg(feature = "gui")]
pub mod app;

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The folder the README names for Linux, from the XDG base directory
    /// rules: `$XDG_DATA_HOME` when set to an absolute path, else
    /// `$HOME/.local/share`; then the app's folder `vmd-studio`.
    #[test]
    fn the_linux_data_dir_is_the_xdg_one() {
        if std::env::var_os(super::DATA_DIR_ENV).is_some() {
            return;
        }
        let base = std::env::var_os("XDG_DATA_HOME")
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::home_dir().map(|h| h.join(".local/share")));
        assert_eq!(super::data_dir(), base.map(|b| b.join("vmd-studio")));
    }
}
