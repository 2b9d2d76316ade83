//! The desktop app (eframe/egui): open files, inspect, dope sheet, curve
//! editor, preview, toolbox, undo and lossless save.
//!
//! Shape: a shell around the [`Workspace`] (documents, scene, undo order,
//! transport, selection): panels read it and return what they want changed,
//! which [`StudioApp`] turns into [`Event`](crate::workspace::Event)s for
//! [`Workspace::apply`] — the one way in; commands collected during a frame
//! run at its end.
//! `StudioApp` itself keeps only the panels' view state and the services
//! (jobs, saves, recovery, sound). Its methods are the entry points (the
//! eframe frame, tests, the command line); each lends the part of the app
//! a job needs to the type that does it: [`edits::Edits`] (the workspace),
//! [`opening::Opening`], [`save_flow::Saving`], [`Files`] (picking) and
//! [`layout::Frame`] (drawing the panels). Two places see the whole app:
//! the frame's order ([`layout::show`]) and the router
//! ([`commands`]: commands, panel requests, jobs and picks).

use std::sync::Arc;

use crate::workspace::document::EditRequest;
use crate::workspace::{Changes, Event, TransportEvent, Workspace};

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
mod opening;
pub mod panels;
pub mod picture_rate;
pub mod recovery;
pub mod save_flow;
pub mod saving;
pub mod scene_ops;
mod scene_ui;
pub mod settings;
mod shell;
pub mod song;
pub mod sound;
mod startup;
pub mod vpd;

use crate::vmd::Motion;
use crate::workspace::document::Document;
use command::UiCommand;
use edits::Edits;
pub use files::Files;
use jobs::{JobResult, Jobs, Pick};
use layout::Frame;
use opening::Opening;
use panels::Shared;
use save_flow::Saving;
use scene_ops::Intent;
pub use scene_ui::timeline_sections;
use shell::{AfterClose, CloseGuard, guard_subject};
pub use shell::{CentralView, Panels, Window, window_title};
pub use startup::{FAIL_WGPU_ENV, glow_retry_args, open_command_line, run};
use std::path::{Path, PathBuf};

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

/// The application: a shell around the workspace. Ten fields: the
/// workspace, the panels' shared frame state, every panel's own state, the
/// window's lifecycle, file picking, and the services (jobs, models and
/// pending opens, saves, recovery copies, video export).
pub struct StudioApp {
    /// The documents, the scene arrangement, the undo order, the transport
    /// and the selection: every change goes through [`StudioApp::apply`].
    pub ws: Workspace,
    /// What every panel shares for a frame: the transport's working copy,
    /// the status messages, the song and the job service.
    pub shared: Shared,
    /// Every panel's own state, and the layout they are docked in.
    pub panels: Panels,
    /// Close guard, the close a save waits for, title, screenshot mode,
    /// playback clock and the commands queued this frame.
    pub window: Window,
    /// Recent files, the system dialog or the built-in browser.
    pub files: Files,
    pub jobs: Jobs,
    /// What the app keeps beside the scene: loaded models, pending opens,
    /// the scene file's path.
    pub scene: scene_ops::SceneState,
    /// Saves in flight (one per document), a save refused because the file
    /// changed on disk, and the last file saved.
    pub saves: saving::Saves,
    /// Crash recovery copies (off until [`StudioApp::start_recovery`]).
    pub recovery: recovery::Recovery,
    /// File ▸ Export video… and the export in flight.
    pub export_video: export_video::State,
}

impl Default for StudioApp {
    fn default() -> Self {
        let shared = Shared::default();
        let jobs = Jobs::new(shared.jobs.clone());
        StudioApp {
            ws: Workspace::new(),
            shared,
            panels: Panels::default(),
            window: Window::default(),
            files: Files::default(),
            jobs,
            scene: Default::default(),
            saves: Default::default(),
            recovery: Default::default(),
            export_video: Default::default(),
        }
    }
}

const RECENT_KEY: &str = "vmd-studio-recent";
const MAX_RECENT: usize = 10;

impl StudioApp {
    /// The workspace and the shared frame state, for applying events.
    fn edits(&mut self) -> Edits<'_> {
        Edits {
            ws: &mut self.ws,
            shared: &mut self.shared,
        }
    }

    /// What opening files touches.
    fn opening(&mut self) -> Opening<'_> {
        Opening {
            ws: &mut self.ws,
            shared: &mut self.shared,
            scene: &mut self.scene,
            jobs: &mut self.jobs,
            panels: &mut self.panels,
            files: &mut self.files,
        }
    }

    /// What saving touches.
    fn saving(&mut self) -> Saving<'_> {
        Saving {
            ws: &mut self.ws,
            shared: &mut self.shared,
            saves: &mut self.saves,
            jobs: &mut self.jobs,
            window: &mut self.window,
            files: &mut self.files,
            scene: &mut self.scene,
            viewport: &self.panels.viewport,
        }
    }

    /// What drawing a stage of the frame touches.
    fn frame(&mut self) -> Frame<'_> {
        Frame {
            ws: &mut self.ws,
            shared: &mut self.shared,
            panels: &mut self.panels,
            scene: &self.scene,
            recent: &self.files.recent,
            busy: self.jobs.is_busy(),
            asked: Vec::new(),
        }
    }

    /// Draws the whole window (the eframe `ui` entry point, also used by
    /// tests): see [`layout::show`].
    pub fn show(&mut self, ui: &mut egui::Ui) {
        layout::show(self, ui);
    }

    /// Queues a command (menus, shortcuts and tests all come here); it
    /// runs at the frame's end ([`commands::execute`]).
    pub fn run_command(&mut self, c: UiCommand) {
        self.window.commands.push(c);
    }

    /// Applies an event to the workspace (the one way to change it); see
    /// [`edits::apply`].
    pub fn apply(&mut self, e: Event) -> Changes {
        self.edits().apply(e)
    }

    /// A transport command.
    pub fn transport(&mut self, e: TransportEvent) {
        self.edits().transport(e);
    }

    /// Makes document `id` the active one.
    pub fn activate(&mut self, id: u64) {
        self.edits().activate(id);
    }

    /// Applies a panel's edits to document `id` as one user action.
    pub fn request_on(&mut self, id: u64, reqs: Vec<EditRequest>) {
        self.edits().request_on(id, reqs);
    }

    /// Selects the key `TRACK@FRAME`: see [`Edits::select_key`].
    pub fn select_key(&mut self, spec: &str) -> bool {
        self.edits().select_key(spec)
    }

    /// A scene-panel action: see [`commands::scene_action`].
    pub fn scene_action(&mut self, a: panels::scene::Action) {
        commands::scene_action(self, a);
    }

    /// Opens files in the background: see [`Opening::open_paths`].
    pub fn open_paths(&mut self, paths: Vec<PathBuf>) {
        self.opening().open_paths(paths);
    }

    /// Opens one file for a given role.
    pub fn open_for(&mut self, path: PathBuf, intent: Intent) {
        self.opening().open_for(path, intent);
    }

    /// Adds a stage or prop to the set: see [`Opening::add_stage`].
    pub fn add_stage(&mut self, path: PathBuf) {
        self.opening().add_stage(path);
    }

    /// Adds an accessory to the set: see [`Opening::add_accessory`].
    pub fn add_accessory(&mut self, path: PathBuf) {
        self.opening().add_accessory(path);
    }

    /// A finished load: see [`Opening::queue_loaded`].
    pub fn queue_loaded(&mut self, seq: u64, r: JobResult) {
        self.opening().queue_loaded(seq, r);
    }

    /// Opens a motion as a new document: see [`Opening::open_motion`].
    pub fn open_motion(&mut self, m: Motion, path: Option<PathBuf>, name: &str) -> Option<u64> {
        self.opening().open_motion(m, path, name)
    }

    /// Opens the bundled demo as a scene.
    pub fn open_demo(&mut self) {
        self.opening().open_demo();
    }

    /// Opens a `.vmdscene` file: see [`Opening::open_scene`].
    pub fn open_scene(&mut self, path: &Path) {
        self.opening().open_scene(path);
    }

    /// Opens an MMD project (`.pmm`): see [`Opening::open_project`].
    pub fn open_project(&mut self, path: &Path) {
        self.opening().open_project(path);
    }

    /// Loads a song: see [`Opening::load_song`].
    pub fn load_song(&mut self, path: PathBuf) {
        self.opening().load_song(path);
    }

    /// Loads a song for whatever scene there is (never the demo).
    pub fn load_song_into_scene(&mut self, path: PathBuf) {
        self.opening().load_song_into_scene(path);
    }

    /// Saves the scene file and its modified motions: see
    /// [`Saving::save_scene_to`].
    pub fn save_scene_to(&mut self, path: PathBuf) -> Option<Vec<(u64, PathBuf)>> {
        self.saving().save_scene_to(path)
    }

    /// File ▸ Collect scene into folder…: see [`Saving::collect_scene_to`].
    pub fn collect_scene_to(&mut self, path: &Path) {
        self.saving().collect_scene_to(path);
    }

    /// File ▸ Save all: see [`Saving::save_all`].
    pub fn save_all(&mut self) {
        self.saving().save_all();
    }

    /// Saves a document to `path` in the background (asks first if its
    /// file changed on disk).
    pub fn save_doc_to(&mut self, doc_id: u64, path: PathBuf) {
        self.saving().save_doc_to(doc_id, path);
    }

    /// Saves, overwriting the file even if it changed on disk.
    pub fn save_doc_overwriting(&mut self, doc_id: u64, path: PathBuf) {
        self.saving().save_doc_overwriting(doc_id, path);
    }

    /// Applies finished background jobs.
    pub fn poll_jobs(&mut self) {
        commands::poll_jobs(self);
    }

    /// A file dialog (system or built-in) closed with `paths` (empty:
    /// cancelled): see [`commands::picked`].
    pub fn picked(&mut self, purpose: Pick, paths: Vec<PathBuf>) {
        commands::picked(self, purpose, paths);
    }

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

    /// File ▸ Load pose (VPD)…: see [`vpd::load_pose_file`].
    pub fn load_pose_file(&mut self, path: &std::path::Path, mirror: bool) {
        vpd::load_pose_file(&mut self.ws, &mut self.shared, path, mirror);
    }

    /// File ▸ Save pose (VPD)…: see [`vpd::save_pose_file`].
    pub fn save_pose_file(&mut self, path: &std::path::Path) {
        vpd::save_pose_file(&self.ws, &mut self.shared, path);
    }

    /// Starts keeping recovery copies in `data_dir()/recovery` and looks
    /// for copies a crash left there (offered in a window).
    pub fn start_recovery(&mut self) {
        self.recovery.start(&mut self.shared);
    }

    /// [`StudioApp::start_recovery`] with a given folder.
    pub fn start_recovery_in(&mut self, dir: &std::path::Path) {
        self.recovery.start_in(dir, &mut self.shared);
    }

    /// Opens the offered recovery copies: see [`recovery::restore`].
    pub fn restore_recovered(&mut self) {
        let scene = recovery::restore(
            &mut self.recovery,
            &mut self.ws,
            &mut self.shared,
            &mut self.scene,
            &mut self.jobs,
        );
        if scene {
            self.panels.central = CentralView::Preview;
            // A restored stage's floor takes the grid's place, as when a
            // scene file with one opens.
            if !self.ws.scene().set.props.is_empty() {
                self.panels.viewport.view.show_grid = false;
                self.panels.viewport.second.show_grid = false;
            }
        }
    }

    /// Opens the export dialog (File ▸ Export video…).
    pub fn open_export_video(&mut self) {
        let base = self
            .scene
            .path
            .as_ref()
            .or_else(|| self.doc().and_then(|d| d.path.as_ref()))
            .map_or_else(|| std::path::PathBuf::from("video.vmd"), Clone::clone);
        let last = self.ws.scene_end();
        self.export_video.open_dialog(last, base);
    }

    /// Starts exporting `output` with the dialog's settings.
    pub fn start_export(&mut self, output: export_video::Output) {
        self.export_video
            .start(output, &self.ws, &self.scene, &mut self.shared);
    }

    /// Deletes the offered recovery copies.
    pub fn discard_recovered(&mut self) {
        self.recovery.discard();
    }

    /// Keeps the offered recovery copies for the next start.
    pub fn keep_recovered(&mut self) {
        self.recovery.keep();
    }
}

impl eframe::App for StudioApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        if self.files.dialog_parent.is_none() {
            // The window's handle, for the system file dialog's parent (no
            // handle, as under a test harness: a dialog without a parent).
            self.files.dialog_parent = Some(rfd::FileDialog::new().set_parent(frame));
        }
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        let list: Vec<String> = self
            .files
            .recent
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        eframe::set_value(storage, RECENT_KEY, &list);
        settings::save_undo_budget(storage, &self.ws);
        self.panels.viewport.persist(storage);
        self.panels.dock.persist(storage);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        // An export in flight stops and deletes its partial file.
        self.export_video.stop_and_wait(&self.shared.jobs);
    }
}
