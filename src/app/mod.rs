//! The desktop app (eframe/egui): open files, inspect, dope sheet, curve
//! editor, preview, toolbox, undo and lossless save.
//!
//! Shape: a shell around the [`Workspace`] (documents, scene, undo order,
//! transport, selection): panels read it and return what they want changed,
//! which [`StudioApp`] turns into [`Event`](crate::workspace::Event)s for
//! [`Workspace::apply`] — the one way in; commands collected during a frame
//! run at its end.
//! `StudioApp` itself keeps only the panels' view state and the services
//! (jobs, saves, recovery, sound).

use std::path::PathBuf;
use std::sync::Arc;

use crate::workspace::Workspace;

mod chrome;
pub mod command;
mod commands;
pub mod dock;
mod edits;
pub mod export_video;
pub mod file_browser;
mod files;
pub mod jobs;
mod layout;
pub mod panels;
pub mod recovery;
pub mod saving;
pub mod scene_ops;
mod scene_ui;
pub mod settings;
pub mod song;
pub mod sound;
mod startup;
pub mod vpd;

use crate::workspace::document::Document;
use command::UiCommand;
use jobs::Jobs;
use panels::Shared;
pub use scene_ui::timeline_sections;
use startup::ScreenshotPlan;
pub use startup::{open_command_line, run};

/// Bundled demo: a short dance and a camera with cuts, made by
/// `cargo run --example make_demo` (see `examples/make_demo.rs`).
pub const DEMO_DANCE: &[u8] = include_bytes!("../../assets/demo_dance.vmd");
pub const DEMO_CAMERA: &[u8] = include_bytes!("../../assets/demo_camera.vmd");

const JAPANESE_FONT: &[u8] = include_bytes!("../../assets/fonts/BIZUDPGothic-Regular.ttf");
const CHINESE_FONT: &[u8] = include_bytes!("../../assets/fonts/wqy-microhei.ttc");

/// Adds the bundled Japanese and Chinese fonts after egui's defaults, so
/// names render where no CJK font is installed. Used by the app and by tests.
pub fn install_fonts(ctx: &egui::Context) {
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert(
        "biz-udp-gothic".into(),
        Arc::new(egui::FontData::from_static(JAPANESE_FONT)),
    );
    fonts.font_data.insert(
        "wqy-microhei".into(),
        Arc::new(egui::FontData::from_static(CHINESE_FONT)),
    );
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        let list = fonts.families.entry(family).or_default();
        list.push("biz-udp-gothic".into());
        list.push("wqy-microhei".into());
    }
    ctx.set_fonts(fonts);
}

/// Which view fills the centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CentralView {
    Curves,
    /// The value graph (issue 25) where the curve editor is shown.
    ValueGraph,
    Preview,
    Forensics,
}

/// What to do once the close guard is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum AfterClose {
    CloseDoc,
    Quit,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct CloseGuard {
    doc_id: u64,
    then: AfterClose,
}

/// The application.
pub struct StudioApp {
    /// The documents, the scene arrangement, the undo order, the transport
    /// and the selection: every change goes through [`StudioApp::apply`].
    pub ws: Workspace,
    pub shared: Shared,
    pub central: CentralView,
    pub show_dope_sheet: bool,
    pub jobs: Jobs,
    pub recent: Vec<PathBuf>,
    /// The menu bar's own state (typed paths).
    pub chrome: chrome::Chrome,
    /// `TRACK@FRAME` to select once loading has finished (`--select`).
    pub pending_select: Option<String>,
    close_guard: Option<CloseGuard>,
    /// What to do once the save the close guard started has finished.
    after_save: Option<CloseGuard>,
    /// Ask the window to close at the next frame (after a guarded save).
    close_window: bool,
    /// The title last sent to the window.
    window_title: String,
    pending: Vec<UiCommand>,
    screenshot: Option<ScreenshotPlan>,
    pub inspector: panels::inspector::State,
    /// The scene timeline (one dope sheet for every document of the scene).
    pub timeline: panels::timeline::State,
    pub key_panel: panels::key_panel::State,
    pub curve_editor: panels::curve_editor::State,
    pub value_graph: panels::value_graph::State,
    pub forensics: panels::forensics::State,
    pub viewport: panels::viewport::State,
    pub toolbox: panels::toolbox::State,
    /// What the app keeps beside the scene: loaded models, pending opens,
    /// the scene file's path.
    pub scene: scene_ops::SceneState,
    pub scene_panel: panels::scene::State,
    /// The built-in file browser, while open.
    pub file_browser: Option<file_browser::FileBrowser>,
    /// Use the system file dialog (false where it cannot open: no D-Bus
    /// session for the desktop portal, `VMD_STUDIO_FILE_DIALOG=builtin`, or
    /// after it failed once).
    pub native_dialog: bool,
    /// Set after a save completes (for tests and the status bar).
    pub last_saved: Option<PathBuf>,
    last_tick: Option<f64>,
    /// Saves in flight, one per document.
    pub saves: saving::Saves,
    /// A save refused because the file changed on disk, awaiting the user.
    pub disk_conflict: Option<saving::DiskConflict>,
    /// Crash recovery copies (off until [`StudioApp::start_recovery`]).
    pub recovery: recovery::Recovery,
    /// File ▸ Export video… and the export in flight.
    pub export_video: export_video::State,
    /// The docked layout of the panels.
    pub dock: dock::Dock,
}

impl Default for StudioApp {
    fn default() -> Self {
        let shared = Shared::default();
        let jobs = Jobs::new(shared.jobs.clone());
        StudioApp {
            ws: Workspace::new(),
            shared,
            central: CentralView::Curves,
            show_dope_sheet: true,
            jobs,
            recent: Vec::new(),
            chrome: Default::default(),
            pending_select: None,
            close_guard: None,
            after_save: None,
            close_window: false,
            window_title: String::new(),
            pending: Vec::new(),
            screenshot: None,
            inspector: Default::default(),
            timeline: Default::default(),
            key_panel: Default::default(),
            curve_editor: Default::default(),
            value_graph: Default::default(),
            forensics: Default::default(),
            viewport: Default::default(),
            toolbox: Default::default(),
            scene: Default::default(),
            scene_panel: Default::default(),
            file_browser: None,
            native_dialog: native_dialog_available(),
            last_saved: None,
            last_tick: None,
            saves: Default::default(),
            disk_conflict: None,
            recovery: Default::default(),
            export_video: Default::default(),
            dock: Default::default(),
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

const RECENT_KEY: &str = "vmd-studio-recent";
const MAX_RECENT: usize = 10;

impl StudioApp {
    /// A new app with the bundled demo open (used when no file is given).
    pub fn with_demo() -> Self {
        let mut app = StudioApp::default();
        app.open_demo();
        app
    }

    /// The active document.
    pub fn doc(&self) -> Option<&Document> {
        self.ws.active()
    }
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
fn guard_subject(ws: &Workspace, guard: &CloseGuard) -> Option<String> {
    let title = ws.doc(guard.doc_id)?.title();
    let n = ws.modified_count();
    Some(match guard.then {
        AfterClose::Quit if n > 1 => {
            format!("{title} (1 of {n} files with unsaved edits; the others are asked next)")
        }
        _ => title,
    })
}

/// Mutable access to each panel's state at once.
pub struct StudioPanels<'a> {
    pub inspector: &'a mut panels::inspector::State,
    pub timeline: &'a mut panels::timeline::State,
    pub key_panel: &'a mut panels::key_panel::State,
    pub curve_editor: &'a mut panels::curve_editor::State,
    pub value_graph: &'a mut panels::value_graph::State,
    pub forensics: &'a mut panels::forensics::State,
    pub toolbox: &'a mut panels::toolbox::State,
}

impl eframe::App for StudioApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        let list: Vec<String> = self
            .recent
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        eframe::set_value(storage, RECENT_KEY, &list);
        settings::save_undo_budget(storage, &self.ws);
        self.viewport.persist(storage);
        self.dock.persist(storage);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        // An export in flight stops and deletes its partial file.
        self.export_video.stop_and_wait(&self.shared.jobs);
    }
}
