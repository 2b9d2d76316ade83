//! Picking files: the system file dialog (off the UI thread) or the
//! built-in browser where the system one cannot open, dropped files, and
//! the recent list ([`Files`]).

use std::path::{Path, PathBuf};

use super::MAX_RECENT;
use super::file_browser;
use super::jobs::{Jobs, Pick};
use crate::workspace::Workspace;

/// Picking files: the system dialog or the built-in browser, and the
/// recent list.
pub struct Files {
    pub recent: Vec<PathBuf>,
    /// The built-in file browser, while open.
    pub file_browser: Option<file_browser::FileBrowser>,
    /// Use the system file dialog (false where it cannot open: no D-Bus
    /// session for the desktop portal, `VMD_STUDIO_FILE_DIALOG=builtin`, or
    /// after it failed once).
    pub native_dialog: bool,
    /// The system dialog every pick starts from, with the app's window as
    /// its parent (taken from eframe's window handle on the first frame):
    /// the dialog opens in front of the app, modal to it, and cannot fall
    /// behind it (issue 39.3). None until the first frame.
    pub dialog_parent: Option<rfd::FileDialog>,
}

impl Default for Files {
    fn default() -> Self {
        Files {
            recent: Vec::new(),
            file_browser: None,
            native_dialog: native_dialog_available(),
            dialog_parent: None,
        }
    }
}

/// Whether the system file dialog can be expected to open.
fn native_dialog_available() -> bool {
    if std::env::var("VMD_STUDIO_FILE_DIALOG").is_ok_and(|v| v == "builtin") {
        return false;
    }
    // On Linux the dialog is the desktop portal, reached over the D-Bus
    // session bus: without one (a bare X server) it cannot open.
    !cfg!(target_os = "linux") || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
}

impl Files {
    /// Puts `path` first in the recent list.
    pub fn remember(&mut self, path: &Path) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(MAX_RECENT);
    }

    /// Asks the user for a file: the system dialog (a job, answered by
    /// [`crate::app::jobs::JobResult::Picked`]), or the built-in browser
    /// where the system one cannot open.
    pub fn pick(&mut self, jobs: &mut Jobs, purpose: Pick, dir: Option<PathBuf>) {
        if self.native_dialog {
            let base = self.dialog_parent.clone();
            jobs.pick(purpose, dir, base.unwrap_or_default());
        } else {
            self.file_browser = Some(file_browser::FileBrowser::new(purpose, dir));
        }
    }

    /// The system dialog could not open: the built-in browser from now on,
    /// opened for this pick.
    pub fn fall_back_to_browser(&mut self, purpose: Pick, dir: Option<PathBuf>) {
        self.native_dialog = false;
        self.file_browser = Some(file_browser::FileBrowser::new(purpose, dir));
    }

    /// Draws the built-in file browser, if open; once it closes, what it
    /// was opened for and the files chosen (none: cancelled).
    pub fn browser_ui(&mut self, ctx: &egui::Context) -> Option<(Pick, Vec<PathBuf>)> {
        let b = self.file_browser.as_mut()?;
        let purpose = b.purpose;
        let paths = match b.show(ctx)? {
            file_browser::Outcome::Chosen(paths) => paths,
            file_browser::Outcome::Cancelled => Vec::new(),
        };
        self.file_browser = None;
        Some((purpose, paths))
    }
}

/// The files dropped on the window this frame.
pub fn dropped(ctx: &egui::Context) -> Vec<PathBuf> {
    ctx.input(|i| {
        i.raw
            .dropped_files
            .iter()
            .map(|f| f.path().to_path_buf())
            .collect()
    })
}

/// Where a file dialog starts: the active file's folder.
pub fn start_dir(ws: &Workspace) -> Option<PathBuf> {
    ws.active()
        .and_then(|d| d.path.as_ref())
        .and_then(|p| p.parent().map(Path::to_path_buf))
}
