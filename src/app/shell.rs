//! The shell's own state beside the workspace and the services: every
//! panel's state in one [`Panels`] value (each type owned by its panel's
//! module), the window's lifecycle ([`Window`]: close guard, the close a
//! save waits for, title, screenshot plan) and file picking ([`Files`]:
//! recent list, system dialog or built-in browser).

use super::command::UiCommand;
use super::startup::ScreenshotPlan;
use super::{chrome, dock, panels};
use crate::workspace::Workspace;

/// Which view fills the centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CentralView {
    Curves,
    /// The value graph (issue 25) where the curve editor is shown.
    ValueGraph,
    Preview,
    Forensics,
}

/// Every panel's own state: what each draws from besides the workspace.
/// A panel gets its own field and returns what it wants changed.
pub struct Panels {
    /// The view shown where the curve editor sits.
    pub central: CentralView,
    pub show_dope_sheet: bool,
    /// The docked layout of the panels.
    pub dock: dock::Dock,
    /// The menu bar's own state (typed paths).
    pub chrome: chrome::Chrome,
    pub inspector: panels::inspector::State,
    /// The scene timeline (one dope sheet for every document of the scene).
    pub timeline: panels::timeline::State,
    pub key_panel: panels::key_panel::State,
    pub curve_editor: panels::curve_editor::State,
    pub value_graph: panels::value_graph::State,
    pub forensics: panels::forensics::State,
    pub viewport: panels::viewport::State,
    pub toolbox: panels::toolbox::State,
    /// The scene panel.
    pub scene: panels::scene::State,
}

impl Default for Panels {
    fn default() -> Self {
        Panels {
            central: CentralView::Curves,
            show_dope_sheet: true,
            dock: Default::default(),
            chrome: Default::default(),
            inspector: Default::default(),
            timeline: Default::default(),
            key_panel: Default::default(),
            curve_editor: Default::default(),
            value_graph: Default::default(),
            forensics: Default::default(),
            viewport: Default::default(),
            toolbox: Default::default(),
            scene: Default::default(),
        }
    }
}

/// What to do once the close guard is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum AfterClose {
    CloseDoc,
    Quit,
}

/// The unsaved-changes question about one document, and what follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CloseGuard {
    pub(super) doc_id: u64,
    pub(super) then: AfterClose,
}

/// The window's lifecycle: closing with unsaved work, its title, the
/// playback clock, screenshot mode and the commands queued this frame.
#[derive(Default)]
pub struct Window {
    /// The unsaved-changes question being asked.
    pub(super) close_guard: Option<CloseGuard>,
    /// What to do once the save the close guard started has finished.
    pub(super) after_save: Option<CloseGuard>,
    /// Ask the window to close at the next frame (after a guarded save).
    pub(super) close_window: bool,
    /// The title last sent to the window.
    pub(super) title: String,
    /// Screenshot mode (`--screenshot`).
    pub(super) screenshot: Option<ScreenshotPlan>,
    /// `TRACK@FRAME` to select once loading has finished (`--select`).
    pub pending_select: Option<String>,
    /// egui time (seconds) of the last playback tick, while playing.
    pub(super) last_tick: Option<f64>,
    /// Commands queued by menus, shortcuts and tests, run at the frame's end.
    pub(super) commands: Vec<UiCommand>,
}

/// The window's title: the active file (with its modified mark) and, when
/// any file has unsaved edits, how many do — the active one is not the
/// only one that can hold work.
pub fn window_title(ws: &Workspace) -> String {
    let mut t = match ws.active() {
        Some(d) => format!("{} — VMD Studio", d.title()),
        None => "VMD Studio".to_owned(),
    };
    match ws.modified_count() {
        0 => {}
        1 => t.push_str(" (1 file unsaved)"),
        n => t.push_str(&format!(" ({n} files unsaved)")),
    }
    t
}

/// What the unsaved-changes question names: the file, and when quitting
/// with several modified, how many there are (each is asked about in turn).
pub(super) fn guard_subject(ws: &Workspace, guard: &CloseGuard) -> Option<String> {
    let title = ws.doc(guard.doc_id)?.title();
    let n = ws.modified_count();
    Some(match guard.then {
        AfterClose::Quit if n > 1 => {
            format!("{title} (1 of {n} files with unsaved edits; the others are asked next)")
        }
        _ => title,
    })
}
