//! The desktop app (eframe/egui): open files, inspect, dope sheet, curve
//! editor, preview, toolbox, undo and lossless save.
//!
//! Shape: a shell around the [`Workspace`] (documents, scene, undo order,
//! transport, selection): panels read it and return what they want changed,
//! which [`StudioApp`] turns into [`Event`]s for [`Workspace::apply`] — the
//! one way in; commands collected during a frame run at its end.
//! `StudioApp` itself keeps only the panels' view state and the services
//! (jobs, saves, recovery, sound).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::vmd;
use crate::workspace::{Changes, Event, TransportEvent, Workspace};

mod chrome;
pub mod command;
pub mod export_video;
pub mod file_browser;
pub mod jobs;
pub mod panels;
pub mod recovery;
pub mod saving;
pub mod scene_ops;
mod scene_ui;
pub mod settings;
pub mod song;
pub mod sound;
mod startup;

use crate::workspace::document::{self, Document, EditRequest};
use command::UiCommand;
use jobs::{JobResult, Jobs, Pick};
use panels::{PanelCtx, Shared};
pub use scene_ui::timeline_sections;
use startup::ScreenshotPlan;
pub use startup::run;

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

    /// Applies an event to the workspace (the one way to change it); its
    /// notes go to the status bar and the panels' copy of the transport
    /// follows a transport change.
    pub fn apply(&mut self, e: Event) -> Changes {
        let song_before = self.ws.scene().song.clone();
        let ch = self.ws.apply(e);
        if self.ws.scene().song != song_before {
            song::scene_song_changed(
                &mut self.shared.song,
                self.ws.scene().song.as_ref(),
                &self.shared.jobs,
            );
        }
        for n in &ch.notes {
            self.shared.info(n.clone());
        }
        if ch.transport {
            self.shared.transport = self.ws.transport().clone();
        }
        ch
    }

    /// A transport command.
    pub fn transport(&mut self, e: TransportEvent) {
        self.apply(Event::Transport(e));
    }

    /// Makes document `id` the active one.
    pub fn activate(&mut self, id: u64) {
        self.apply(Event::Activate(id));
    }

    /// Sends what the panels changed on their copy of the transport
    /// ([`Shared::transport`]) to the workspace, as transport events.
    fn sync_transport(&mut self) {
        let want = self.shared.transport.clone();
        let have = self.ws.transport().clone();
        if want.loop_range != have.loop_range {
            self.transport(TransportEvent::SetLoop(want.loop_range));
        }
        if want.preview_rate != have.preview_rate {
            self.transport(TransportEvent::SetRate(want.preview_rate));
        }
        if want.frame != have.frame {
            self.transport(TransportEvent::Seek(want.frame));
        }
        if want.playing != have.playing {
            self.transport(if want.playing {
                TransportEvent::Play
            } else {
                TransportEvent::Pause
            });
        }
        self.shared.transport = self.ws.transport().clone();
    }

    /// Applies a panel's edits to document `id` as one user action.
    pub fn request_on(&mut self, id: u64, reqs: Vec<EditRequest>) {
        if !reqs.is_empty() {
            self.apply(Event::Edit(vec![(id, reqs)]));
        }
    }

    /// Selects the key `TRACK@FRAME` (bone or morph name, or `camera`) in the
    /// active document, or else in another open one, which becomes active;
    /// returns whether it was found.
    pub fn select_key(&mut self, spec: &str) -> bool {
        // The active document first, then the others (which becomes active).
        let active = self.ws.active_index();
        let order: Vec<usize> = std::iter::once(active)
            .chain((0..self.ws.docs().len()).filter(|&i| i != active))
            .collect();
        order.into_iter().any(|i| self.select_key_in(i, spec))
    }

    fn select_key_in(&mut self, doc_index: usize, spec: &str) -> bool {
        let Some((track, frame)) = spec.rsplit_once('@') else {
            return false;
        };
        let Ok(frame) = frame.trim().parse::<u32>() else {
            return false;
        };
        let Some(doc) = self.ws.docs().get(doc_index) else {
            return false;
        };
        let m = &doc.motion;
        let found = if track.eq_ignore_ascii_case("camera") {
            doc.index
                .camera
                .iter()
                .find(|&&i| m.cameras[i as usize].frame() == frame)
                .map(|&i| document::KeyRef::Camera(i))
        } else if let Some(t) = doc.index.bone_by_text(track) {
            t.keys
                .iter()
                .find(|&&i| m.bones[i as usize].frame() == frame)
                .map(|&i| document::KeyRef::Bone(i))
        } else {
            doc.index.morph_by_text(track).and_then(|t| {
                t.keys
                    .iter()
                    .find(|&&i| m.morphs[i as usize].frame() == frame)
                    .map(|&i| document::KeyRef::Morph(i))
            })
        };
        match found {
            Some(k) => {
                let id = doc.id;
                let view = document::DocView {
                    selection: std::iter::once(k).collect(),
                    active: Some(k),
                    reveal: Some(k),
                };
                self.apply(Event::Select { doc: id, view });
                self.activate(id);
                // The playhead goes to the selected key (scene frame: the
                // actor's offset added).
                let at = f64::from(frame) + f64::from(self.ws.offset_of(id));
                self.transport(TransportEvent::SeekAndStop(at));
                true
            }
            None => false,
        }
    }

    /// Queues a command (menus, shortcuts and tests all come here).
    pub fn run_command(&mut self, c: UiCommand) {
        self.pending.push(c);
    }

    pub(crate) fn remember_recent(&mut self, path: &Path) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(MAX_RECENT);
    }

    /// Applies finished background jobs.
    pub fn poll_jobs(&mut self) {
        for r in self.jobs.poll() {
            match r {
                r @ (JobResult::Motion { seq, .. } | JobResult::Model { seq, .. }) => {
                    self.queue_loaded(seq, r)
                }
                r @ JobResult::Saved { .. } => self.save_finished(r),
                JobResult::Picked {
                    purpose,
                    quick_none: true,
                    ..
                } => {
                    // Say so, and use the built-in browser from now on.
                    self.native_dialog = false;
                    self.shared.error(
                        "The system file dialog could not open (no desktop portal?); \
                         using VMD Studio's own file browser",
                    );
                    let dir = self.start_dir();
                    self.file_browser = Some(file_browser::FileBrowser::new(purpose, dir));
                }
                JobResult::Picked { purpose, paths, .. } => self.picked(purpose, paths),
            }
        }
    }

    /// A file dialog (system or built-in) closed with `paths` (empty: cancelled).
    pub fn picked(&mut self, purpose: Pick, paths: Vec<PathBuf>) {
        {
            {
                match purpose {
                    Pick::Open => self.open_paths(paths),
                    Pick::Merge { actor } => {
                        for p in paths {
                            self.open_for(p, scene_ops::Intent::MergeInto(Some(actor)));
                        }
                    }
                    Pick::Song => {
                        if let Some(p) = paths.into_iter().next() {
                            self.load_song(p);
                        }
                    }
                    Pick::Model => {
                        let sel = self.ws.selected_actor();
                        for p in paths {
                            match sel {
                                Some(i) => self.open_for(p, scene_ops::Intent::ActorModel(i)),
                                None => self.open_for(p, scene_ops::Intent::Auto),
                            }
                        }
                    }
                    Pick::OpenScene => {
                        if let Some(p) = paths.first() {
                            self.open_scene(p);
                        }
                    }
                    Pick::SaveScene => {
                        if let Some(p) = paths.into_iter().next() {
                            self.save_scene_to(p);
                        }
                    }
                    Pick::SaveAs { doc_id } => {
                        if paths.is_empty()
                            && self.after_save.as_ref().is_some_and(|g| g.doc_id == doc_id)
                        {
                            // The Save As dialog was cancelled: nothing closes.
                            self.after_save = None;
                        }
                        if let Some(p) = paths.into_iter().next() {
                            self.save_doc_to(doc_id, p);
                        }
                    }
                }
            }
        }
    }

    /// Asks the user for a file: the system dialog (off the UI thread), or
    /// the built-in browser where the system one cannot open.
    pub(crate) fn pick_file(&mut self, purpose: Pick, dir: Option<PathBuf>) {
        if self.native_dialog {
            self.jobs.pick(purpose, dir);
        } else {
            self.file_browser = Some(file_browser::FileBrowser::new(purpose, dir));
        }
    }

    /// Draws the built-in file browser, if open, and acts on its answer.
    fn file_browser_ui(&mut self, ctx: &egui::Context) {
        let Some(b) = &mut self.file_browser else {
            return;
        };
        let purpose = b.purpose;
        match b.show(ctx) {
            Some(file_browser::Outcome::Chosen(paths)) => {
                self.file_browser = None;
                self.picked(purpose, paths);
            }
            Some(file_browser::Outcome::Cancelled) => {
                self.file_browser = None;
                self.picked(purpose, Vec::new());
            }
            None => {}
        }
    }

    pub(crate) fn start_dir(&self) -> Option<PathBuf> {
        self.doc()
            .and_then(|d| d.path.as_ref())
            .and_then(|p| p.parent().map(Path::to_path_buf))
    }

    /// Runs queued commands.
    fn run_pending(&mut self) {
        let cmds = std::mem::take(&mut self.pending);
        for c in cmds {
            self.execute(c);
        }
    }

    fn execute(&mut self, c: UiCommand) {
        let last = self.ws.scene_end();
        let now = self.ws.transport().frame;
        match c {
            UiCommand::Open => {
                let dir = self.start_dir();
                self.pick_file(Pick::Open, dir);
            }
            UiCommand::LoadModel => {
                let dir = self.start_dir();
                self.pick_file(Pick::Model, dir);
            }
            UiCommand::MergeMotion => {
                let actor = self.ws.selected_actor().unwrap_or(0);
                if self
                    .ws
                    .scene()
                    .actors
                    .get(actor)
                    .is_some_and(|a| a.motion.is_some())
                {
                    let dir = self.start_dir();
                    self.pick_file(Pick::Merge { actor }, dir);
                } else {
                    self.shared
                        .error("Select an actor that wears a motion to merge another one into it");
                }
            }
            UiCommand::Save => {
                if let Some(d) = self.doc() {
                    let id = d.id;
                    match d.path.clone() {
                        Some(p) => self.save_doc_to(id, p),
                        None => {
                            let dir = self.start_dir();
                            self.pick_file(Pick::SaveAs { doc_id: id }, dir);
                        }
                    }
                }
            }
            UiCommand::SaveAs => {
                if let Some(id) = self.doc().map(|d| d.id) {
                    let dir = self.start_dir();
                    self.pick_file(Pick::SaveAs { doc_id: id }, dir);
                }
            }
            UiCommand::CloseTab => {
                if let Some(d) = self.doc() {
                    if d.is_modified() {
                        self.close_guard = Some(CloseGuard {
                            doc_id: d.id,
                            then: AfterClose::CloseDoc,
                        });
                    } else {
                        let id = d.id;
                        self.close_doc(id);
                    }
                }
            }
            UiCommand::Undo => {
                self.apply(Event::Undo);
            }
            UiCommand::Redo | UiCommand::RedoAlt => {
                self.apply(Event::Redo);
            }
            UiCommand::PlayPause => {
                if self.ws.transport().playing {
                    // Paused on a whole frame: what the status bar, the
                    // dope sheet and the key panel all show.
                    self.transport(TransportEvent::SeekAndStop(now.floor()));
                } else {
                    if now >= f64::from(last) {
                        self.transport(TransportEvent::Seek(0.0));
                    }
                    self.transport(TransportEvent::Play);
                }
                self.last_tick = None;
            }
            UiCommand::StepBack => {
                self.transport(TransportEvent::SeekAndStop((now.ceil() - 1.0).max(0.0)))
            }
            UiCommand::StepForward => {
                self.transport(TransportEvent::SeekAndStop(now.floor() + 1.0))
            }
            UiCommand::Home => self.transport(TransportEvent::Seek(0.0)),
            UiCommand::End => self.transport(TransportEvent::Seek(f64::from(last))),
            UiCommand::PrevKey | UiCommand::NextKey => {
                if let Some(d) = self.doc() {
                    // The active file's keys, on the scene timeline.
                    let offset = f64::from(self.ws.offset_of(d.id));
                    let now = now - offset;
                    let frames = d.motion.key_frames_sorted();
                    let target = if c == UiCommand::NextKey {
                        frames.iter().copied().find(|&f| f64::from(f) > now + 1e-9)
                    } else {
                        frames
                            .iter()
                            .rev()
                            .copied()
                            .find(|&f| f64::from(f) < now - 1e-9)
                    };
                    if let Some(f) = target {
                        self.transport(TransportEvent::Seek(f64::from(f) + offset));
                    }
                }
            }
            UiCommand::PrevCut | UiCommand::NextCut => {
                // Cuts of the first open camera.
                if let Some(d) = self.ws.docs().iter().find(|d| !d.motion.cameras.is_empty()) {
                    let cuts: Vec<u32> = vmd::summary::cut_frames(&d.motion, &d.index)
                        .into_iter()
                        .map(|a| a + 1)
                        .collect();
                    let target = if c == UiCommand::NextCut {
                        cuts.iter().copied().find(|&f| f64::from(f) > now + 1e-9)
                    } else {
                        cuts.iter()
                            .rev()
                            .copied()
                            .find(|&f| f64::from(f) < now - 1e-9)
                    };
                    if let Some(f) = target {
                        self.transport(TransportEvent::Seek(f64::from(f)));
                    }
                }
            }
            UiCommand::ShowDopeSheet => self.show_dope_sheet = !self.show_dope_sheet,
            UiCommand::ShowCurves => self.central = CentralView::Curves,
            UiCommand::ShowPreview => self.central = CentralView::Preview,
            UiCommand::ShowForensics => self.central = CentralView::Forensics,
            // Delete, copy and paste act on every timeline section's selection.
            UiCommand::DeleteKeys | UiCommand::CopyKeys | UiCommand::PasteKeys => {
                let events =
                    scene_ui::key_command(&self.ws, &mut self.shared, &mut self.timeline, c);
                self.apply_all(events);
            }
            UiCommand::InsertKey
            | UiCommand::SelectAll
            | UiCommand::SelectAtFrame
            | UiCommand::FitAll => {
                // Key commands belong to the dope sheet.
                let offset = self.doc().map_or(0, |d| self.ws.offset_of(d.id));
                self.with_active(|cx, p| panels::timeline::command(cx, p.timeline, offset, c));
            }
        }
    }

    fn close_doc(&mut self, id: u64) {
        self.apply(Event::Close(id));
    }

    /// Advances playback in real time at 30 fps (frames are dropped, never slowed).
    fn tick_playback(&mut self, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        if !self.ws.transport().playing {
            self.last_tick = None;
            return;
        }
        let seconds = self.last_tick.map_or(0.0, |last| (now - last).max(0.0));
        self.last_tick = Some(now);
        self.transport(TransportEvent::Advance { seconds });
        ctx.request_repaint();
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if !dropped.is_empty() {
            self.open_paths(dropped);
        }
    }

    /// Runs a panel against the active document and applies what it returns.
    fn with_active<R>(
        &mut self,
        f: impl FnOnce(&mut PanelCtx, &mut StudioPanels) -> R,
    ) -> Option<R> {
        let doc = self.ws.active()?;
        let id = doc.id;
        let mut view = doc.view.clone();
        let mut edits = Vec::new();
        let mut panels = StudioPanels {
            inspector: &mut self.inspector,
            timeline: &mut self.timeline,
            key_panel: &mut self.key_panel,
            curve_editor: &mut self.curve_editor,
            forensics: &mut self.forensics,
            toolbox: &mut self.toolbox,
        };
        let r = {
            let mut cx = PanelCtx {
                doc,
                view: &mut view,
                edits: &mut edits,
                shared: &mut self.shared,
            };
            f(&mut cx, &mut panels)
        };
        // The playhead first: the panel's copy is what it changed.
        self.sync_transport();
        if self.ws.doc(id).is_some_and(|d| d.view != view) {
            self.apply(Event::Select { doc: id, view });
        }
        self.request_on(id, edits);
        Some(r)
    }

    /// Draws the whole window (the eframe `ui` entry point, also used by tests).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.shared.transport = self.ws.transport().clone();
        // What the panels drawn early (status bar, tabs, key panel) show:
        // if a later panel changes it this frame, draw once more.
        let before = (
            self.ws.transport().frame,
            self.ws.active_index(),
            self.ws.docs().iter().map(|d| d.revision).sum::<u64>(),
            self.file_browser.is_some(),
        );
        self.jobs.set_context(&ctx);
        self.poll_jobs();
        self.handle_dropped_files(&ctx);
        if !self.jobs.is_busy()
            && let Some(spec) = self.pending_select.take()
            && !self.select_key(&spec)
        {
            self.shared
                .error(format!("--select {spec}: no such key in the active file"));
        }
        if std::mem::take(&mut self.close_window) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        // A screenshot run closes by itself once the picture is saved; its
        // edits (e.g. a `--merge`) are not the user's work, so no guard.
        if ctx.input(|i| i.viewport().close_requested())
            && self.screenshot.is_none()
            && let Some(d) = self.ws.docs().iter().find(|d| d.is_modified())
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.close_guard = Some(CloseGuard {
                doc_id: d.id,
                then: AfterClose::Quit,
            });
        }
        let cmds = UiCommand::from_input(&ctx);
        self.pending.extend(cmds);
        self.tick_playback(&ctx);
        let events = song::frame(
            &mut self.shared.song,
            &self.ws,
            &mut self.shared.transport,
            &self.shared.jobs,
            &ctx,
        );
        let notes = std::mem::take(&mut self.shared.song.messages);
        self.shared.messages.extend(notes);
        self.apply_all(events);

        egui::Panel::top("menu").show(ui, |ui| {
            let input = chrome::MenuInput {
                ws: &self.ws,
                recent: &self.recent,
                has_song: self.shared.song.song.is_some(),
            };
            let mut asked = chrome::menu_bar(
                ui,
                &input,
                &mut self.chrome,
                &mut self.toolbox,
                &mut self.viewport.physics,
            );
            asked.extend(chrome::tabs(ui, &self.ws, self.jobs.is_busy()));
            self.chrome_requests(asked);
        });
        egui::Panel::bottom("status").show(ui, |ui| {
            chrome::status_bar(ui, &self.ws, &mut self.shared, &mut self.viewport.physics)
        });
        if self.ws.docs().is_empty() && self.ws.scene().actors.is_empty() {
            egui::CentralPanel::default().show(ui, |ui| {
                ui.vertical_centered(|ui| {
                    ui.add_space(80.0);
                    ui.heading("VMD Studio");
                    ui.label(
                        "Open a VMD file (Ctrl+O), drop files onto the window, or open the demo.",
                    );
                    if ui.button("Open…").clicked() {
                        self.run_command(UiCommand::Open);
                    }
                    if ui.button("Open demo").clicked() {
                        self.open_demo();
                    }
                });
            });
        } else {
            egui::Panel::left("inspector")
                .resizable(true)
                .default_size(270.0)
                .show(ui, |ui| {
                    self.scene_panel_ui(ui);
                    ui.separator();
                    self.with_active(|cx, p| panels::inspector::ui(ui, cx, p.inspector));
                });
            // The Key panel keeps one width whether or not a key is selected
            // (its rows fit or wrap instead of widening it): a fifth of the window,
            // 240–340 points, so at 1280×720 the preview keeps the room.
            let key_w = (ctx.content_rect().width() * 0.2).clamp(240.0, 340.0);
            egui::Panel::right("key-panel")
                .resizable(true)
                .default_size(key_w)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical()
                        .id_salt("key-panel-scroll")
                        .show(ui, |ui| {
                            self.with_active(|cx, p| panels::key_panel::ui(ui, cx, p.key_panel));
                            ui.separator();
                            if !self.ws.docs().is_empty() {
                                panels::toolbox::ui(ui, &mut self.toolbox);
                            }
                        });
                });
            if self.show_dope_sheet {
                // A third of the window: at 1280×720 the curve boxes keep room.
                let h = ctx.content_rect().height();
                egui::Panel::bottom("dope-sheet")
                    .min_size(150.0)
                    .resizable(true)
                    .default_size((h * 0.36).clamp(200.0, 400.0))
                    .show(ui, |ui| {
                        let events = scene_ui::timeline_ui(
                            ui,
                            &self.ws,
                            &mut self.shared,
                            &mut self.timeline,
                        );
                        self.apply_all(events);
                    });
            }
            egui::CentralPanel::default().show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut self.central, CentralView::Curves, "Curves");
                    ui.selectable_value(&mut self.central, CentralView::Preview, "Preview");
                    ui.selectable_value(&mut self.central, CentralView::Forensics, "Forensics");
                });
                ui.separator();
                match self.central {
                    CentralView::Curves => {
                        self.with_active(|cx, p| panels::curve_editor::ui(ui, cx, p.curve_editor));
                    }
                    CentralView::Forensics => {
                        self.with_active(|cx, p| panels::forensics::ui(ui, cx, p.forensics));
                    }
                    CentralView::Preview => {
                        let mut edits = Vec::new();
                        let picked = {
                            let view = scene_ops::scene_view(&self.ws, &self.scene);
                            panels::viewport::ui(
                                ui,
                                &view,
                                &mut edits,
                                &mut self.shared,
                                &mut self.viewport,
                            )
                        };
                        // The viewport edits the scene camera's keys and
                        // (posing) the actors' motions, each on its document.
                        self.sync_transport();
                        for (id, e) in edits {
                            self.request_on(id, vec![e]);
                        }
                        // A bone clicked in the view: its row (and key) in the timeline.
                        if let Some(b) = picked {
                            let events = scene_ui::bone_picked(
                                &self.ws,
                                &mut self.timeline,
                                b.actor,
                                &b.name,
                            );
                            self.apply_all(events);
                        }
                    }
                }
            });
        }
        // Bake physics simulates the model of the actor wearing the active file.
        self.toolbox.wearer_model = self
            .ws
            .docs()
            .get(self.ws.active_index())
            .and_then(|d| self.ws.wearer(d.id))
            .and_then(|i| self.ws.scene().actors.get(i))
            .and_then(|a| match &a.model {
                crate::scene::ModelRef::File(p) => {
                    Some((a.name.clone(), Arc::clone(self.scene.models.get(p)?)))
                }
                crate::scene::ModelRef::Builtin => None,
            });
        panels::toolbox::windows(
            &ctx,
            self.ws.docs(),
            self.ws.active_index(),
            &mut self.shared,
            &mut self.toolbox,
        );
        self.sync_transport();
        // Whatever a panel changed on its copy of the transport.
        self.sync_transport();
        self.close_guard_ui(&ctx);
        self.file_browser_ui(&ctx);
        self.export_video_ui(&ctx);
        self.disk_conflict_ui(&ctx);
        self.recovery_window(&ctx);
        self.run_pending();
        self.toolbox_apply();
        self.recovery_tick(&ctx);
        let title = match self.doc() {
            Some(d) => format!("{} — VMD Studio", d.title()),
            None => "VMD Studio".to_owned(),
        };
        // Only on change: every viewport command also requests a repaint,
        // and sending it each frame would keep an idle window redrawing.
        if self.window_title != title {
            self.window_title = title.clone();
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title));
        }
        if self.jobs.is_busy() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
        let after = (
            self.ws.transport().frame,
            self.ws.active_index(),
            self.ws.docs().iter().map(|d| d.revision).sum::<u64>(),
            self.file_browser.is_some(),
        );
        if after != before {
            ctx.request_repaint();
        }
        let busy = self.jobs.is_busy() || self.shared.song.loading().is_some();
        if let Some(plan) = &mut self.screenshot {
            plan.step(&ctx, busy);
        }
    }

    /// Applies what a panel asked for: the playhead it moved on its copy
    /// of the transport first, then its events in order.
    fn apply_all(&mut self, events: Vec<Event>) {
        self.sync_transport();
        for e in events {
            self.apply(e);
        }
    }

    /// The scene panel (left side), and the changes it asks for.
    fn scene_panel_ui(&mut self, ui: &mut egui::Ui) {
        let active = self.doc().map(|d| d.id);
        let actions = panels::scene::ui(ui, &self.ws, &self.scene, active, &mut self.scene_panel);
        for a in actions {
            self.scene_action(a);
        }
    }

    /// Applies a scene-panel action: arrangement changes are workspace
    /// events (each one undo step); the rest open dialogs or save.
    pub fn scene_action(&mut self, a: panels::scene::Action) {
        use panels::scene::Action;
        if let Some(e) = scene_ui::scene_event(&a) {
            self.apply(Event::Scene(e));
            return;
        }
        match a {
            Action::Activate(id) => self.activate(id),
            Action::LoadModel(i) => {
                self.apply(Event::Scene(crate::workspace::SceneEvent::SelectActor(
                    Some(i),
                )));
                let dir = self.start_dir();
                self.pick_file(Pick::Model, dir);
            }
            Action::SaveScene if self.scene.path.is_some() => {
                if let Some(p) = self.scene.path.clone() {
                    self.save_scene_to(p);
                }
            }
            Action::OpenScene => {
                let dir = self.start_dir();
                self.pick_file(Pick::OpenScene, dir);
            }
            // Save scene with no file yet, and Save scene as.
            _ => {
                let dir = self.start_dir();
                self.pick_file(Pick::SaveScene, dir);
            }
        }
    }

    /// Loads a song for the scene (from the File menu or a drop). The scene
    /// takes it once it has decoded; until then nothing changes.
    /// With nothing open (a song dropped on the empty window, or given
    /// alone on the command line) it goes under the bundled demo scene, so
    /// its waveform and beat grid have a timeline to sit on.
    pub fn load_song(&mut self, path: PathBuf) {
        if self.ws.docs().is_empty() && self.ws.scene().actors.is_empty() {
            self.open_demo();
            self.central = CentralView::Preview;
        }
        let offset = self.shared.song.offset_frames;
        let jobs = self.shared.jobs.clone();
        self.shared.song.load(path, offset, &jobs);
    }

    /// Carries out what the menu bar and the tabs asked for.
    fn chrome_requests(&mut self, asked: Vec<chrome::Request>) {
        use chrome::Request;
        for r in asked {
            match r {
                Request::Command(c) => self.run_command(c),
                Request::Event(e) => {
                    self.apply(e);
                }
                Request::OpenPaths(p) => self.open_paths(p),
                Request::OpenDemo => self.open_demo(),
                Request::Scene(a) => self.scene_action(a),
                Request::ExportVideo => self.open_export_video(),
                Request::SaveTo { doc, path } => self.save_doc_to(doc, path),
                Request::PickSong => {
                    let dir = self
                        .shared
                        .song
                        .path
                        .as_ref()
                        .and_then(|p| p.parent().map(Path::to_path_buf))
                        .or_else(|| self.start_dir());
                    self.pick_file(Pick::Song, dir);
                }
                Request::RemoveSong => {
                    self.shared.song.clear();
                    if self.ws.scene().song.is_some() {
                        self.apply(Event::Scene(crate::workspace::SceneEvent::SetSong(None)));
                    }
                }
            }
        }
    }

    /// The question asked when a save meets a file changed on disk, and
    /// its answer.
    fn disk_conflict_ui(&mut self, ctx: &egui::Context) {
        use saving::DiskChoice;
        let Some(c) = self.disk_conflict.clone() else {
            return;
        };
        if !self.ws.docs().iter().any(|d| d.id == c.doc_id) {
            self.disk_conflict = None;
            return;
        }
        let Some(choice) = saving::disk_conflict_modal(ctx, &c) else {
            return;
        };
        self.disk_conflict = None;
        match choice {
            DiskChoice::Overwrite => self.save_doc_overwriting(c.doc_id, c.path),
            DiskChoice::Reload => {
                self.after_save = None;
                // An unmodified document is replaced by the file when it is
                // opened again (see `poll_jobs`).
                self.apply(Event::Discard(c.doc_id));
                self.open_paths(vec![c.path]);
            }
            DiskChoice::Cancel => self.after_save = None,
        }
    }

    /// The unsaved-changes question, while one is asked, and its answer.
    fn close_guard_ui(&mut self, ctx: &egui::Context) {
        use chrome::GuardChoice;
        let Some(guard) = self.close_guard.clone() else {
            return;
        };
        let Some(title) = self.ws.doc(guard.doc_id).map(Document::title) else {
            self.close_guard = None;
            return;
        };
        match chrome::close_guard_modal(ctx, &title) {
            Some(GuardChoice::Save) => {
                self.close_guard = None;
                self.activate(guard.doc_id);
                self.after_save = Some(guard);
                self.run_command(UiCommand::Save);
            }
            Some(GuardChoice::Discard) => {
                self.close_guard = None;
                match guard.then {
                    AfterClose::CloseDoc => self.close_doc(guard.doc_id),
                    AfterClose::Quit => {
                        // Discard this one's edits, then close again: the
                        // guard asks about the next modified file, if any.
                        self.apply(Event::Discard(guard.doc_id));
                        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    }
                }
            }
            Some(GuardChoice::Cancel) => self.close_guard = None,
            None => {}
        }
    }

    /// Runs a toolbox operation the toolbox panel queued (it owns the dialogs).
    fn toolbox_apply(&mut self) {
        if let Some((motion, name)) = self.toolbox.take_new_document() {
            let new = crate::workspace::NewDocument::new(motion, None, name);
            if let Some(id) = self.apply(Event::Open(Box::new(new))).opened {
                self.place_new(id);
            }
        }
        let Some(req) = self.toolbox.take_request() else {
            return;
        };
        let docs: Vec<&Document> = self.ws.docs().iter().collect();
        match panels::toolbox::run_request(&req, &docs, self.ws.active_index()) {
            Ok(outcome) => {
                for line in &outcome.report_lines {
                    self.shared.info(line.clone());
                }
                if let Some(id) = self.doc().map(|d| d.id)
                    && let Some(note) = self.bones_the_model_lacks(id, &outcome.motion)
                {
                    self.shared.error(format!("{}: {note}", outcome.label));
                }
                if let Some(id) = self.doc().map(|d| d.id) {
                    self.request_on(
                        id,
                        vec![EditRequest::apply(
                            document::Edit::ReplaceMotion {
                                motion: Box::new(outcome.motion),
                                selection: None,
                            },
                            outcome.label,
                        )],
                    );
                }
            }
            Err(e) => self.shared.error(e),
        }
    }
}

/// Mutable access to each panel's state at once.
pub struct StudioPanels<'a> {
    pub inspector: &'a mut panels::inspector::State,
    pub timeline: &'a mut panels::timeline::State,
    pub key_panel: &'a mut panels::key_panel::State,
    pub curve_editor: &'a mut panels::curve_editor::State,
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
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        // An export in flight stops and deletes its partial file.
        self.export_video.stop_and_wait(&self.shared.jobs);
    }
}
