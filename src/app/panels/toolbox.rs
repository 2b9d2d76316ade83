//! Toolbox dialogs for the pure operations in [`crate::vmd::ops`]: mirror,
//! trim, join, speed change, rest-pose fill, rename, simplify, bake, JSON
//! export and import (Simplify and Bake forms live in [`simplify`]).
//!
//! Flow:
//! 1. The Tools menu ([`menu`]) and the side panel section ([`ui`]) open a
//!    dialog ([`Tool`]); only one dialog is open at a time.
//! 2. [`windows`] (called once per frame by the app, with every open
//!    document) draws the dialog with its parameters. Its action button runs
//!    the operation on a copy of the motion — inline when the motion is small,
//!    as a job of the app's job service (progress in the status bar, Cancel
//!    in the dialog and the status bar) when it has more than
//!    [`State::background_keys`] keys (or when a file of unknown size must be
//!    read) — and shows the result summary (every report line) in the dialog,
//!    which stays open until closed.
//! 3. An operation that changes the motion queues a [`Request::Computed`];
//!    at the end of the frame the app hands it to [`run_request`], which
//!    checks the document is still the one the result was computed from
//!    (same id, same revision) and returns the [`Outcome`]; the app applies it
//!    as one undoable `Edit::ReplaceMotion` and puts the report lines in the
//!    status bar. [`run_request`] also runs the parameter variants directly.
//! 4. Export JSON writes a file (atomic writer) and leaves the document
//!    alone; import JSON hands a motion to the app for a new tab
//!    ([`State::take_new_document`]).
//!
//! Frames are MMD frames (30 fps).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::Shared;
use crate::app::jobs::{JobCtx, JobKind, JobService, Lane, Polled};
use crate::vmd::ops::{
    self, FillRestParams, JoinParams, JoinPlacement, RenameMap, Report, SpeedParams, TrimParams,
};
use crate::vmd::{self, Motion};
use crate::workspace::document::Document;

mod forms;
mod run;
mod simplify;

use forms::{
    export_form, fill_form, import_form, join_form, rename_form, speed_form, summary_ui, trim_form,
};
pub use run::run_request;
use run::{file_name, label_of, op_error, run_op, status_lines};
pub use simplify::{BakeForm, SimplifyForm, SimplifyPreview, TrackGraph};

/// Motions with more keys than this run on a background thread by default.
pub const BACKGROUND_KEYS: usize = 100_000;

/// Report lines copied to the status bar before "… and N more".
const STATUS_LINES: usize = 12;

/// The toolbox operations, one dialog each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Mirror,
    Trim,
    Join,
    Speed,
    FillRest,
    Rename,
    Simplify,
    Bake,
    BakePhysics,
    ExportJson,
    ImportJson,
}

impl Tool {
    pub const ALL: [Tool; 11] = [
        Tool::Mirror,
        Tool::Trim,
        Tool::Join,
        Tool::Speed,
        Tool::FillRest,
        Tool::Rename,
        Tool::Simplify,
        Tool::Bake,
        Tool::BakePhysics,
        Tool::ExportJson,
        Tool::ImportJson,
    ];

    /// The Tools menu entry.
    pub fn menu_label(self) -> &'static str {
        match self {
            Tool::Mirror => "Mirror left/right…",
            Tool::Trim => "Trim…",
            Tool::Join => "Join with…",
            Tool::Speed => "Change speed…",
            Tool::FillRest => "Fill rest pose…",
            Tool::Rename => "Rename tracks…",
            Tool::Simplify => "Simplify…",
            Tool::Bake => "Bake…",
            Tool::BakePhysics => "Bake physics…",
            Tool::ExportJson => "Export JSON…",
            Tool::ImportJson => "Import JSON…",
        }
    }

    /// The short button in the side panel.
    pub fn button_label(self) -> &'static str {
        match self {
            Tool::Mirror => "Mirror",
            Tool::Trim => "Trim",
            Tool::Join => "Join",
            Tool::Speed => "Speed",
            Tool::FillRest => "Fill rest",
            Tool::Rename => "Rename",
            Tool::Simplify => "Simplify",
            Tool::Bake => "Bake",
            Tool::BakePhysics => "Bake physics",
            Tool::ExportJson => "Export JSON",
            Tool::ImportJson => "Import JSON",
        }
    }

    /// The dialog's window title.
    pub fn title(self) -> &'static str {
        match self {
            Tool::Mirror => "Mirror left/right",
            Tool::Trim => "Trim to a frame range",
            Tool::Join => "Join two motions",
            Tool::Speed => "Change speed",
            Tool::FillRest => "Fill rest pose",
            Tool::Rename => "Rename tracks",
            Tool::Simplify => "Simplify keys",
            Tool::Bake => "Bake keys",
            Tool::BakePhysics => "Bake physics",
            Tool::ExportJson => "Export as JSON",
            Tool::ImportJson => "Import from JSON",
        }
    }

    /// The dialog's action button.
    pub fn action_label(self) -> &'static str {
        match self {
            Tool::Mirror => "Mirror the motion",
            Tool::Trim => "Trim the motion",
            Tool::Join => "Join the motions",
            Tool::Speed => "Change the speed",
            Tool::FillRest => "Add rest keys",
            Tool::Rename => "Apply the renames",
            Tool::Simplify => "Apply the simplification",
            Tool::Bake => "Bake the motion",
            Tool::BakePhysics => "Bake the physics",
            Tool::ExportJson => "Write the JSON file",
            Tool::ImportJson => "Open as a new tab",
        }
    }

    pub fn tooltip(self) -> &'static str {
        match self {
            Tool::Mirror => {
                "Swap left and right: positions (-x, y, z), rotations (x, -y, -z, w), \
                 names with 左 and 右 swapped, camera and light mirrored"
            }
            Tool::Trim => "Keep frames A..B; keys are added at A and B so playback is unchanged",
            Tool::Join => "Append another motion after this one (or at a given frame)",
            Tool::Speed => "New frame = round(frame / factor); merged keys are reported",
            Tool::FillRest => "Add identity keys at frame 0 for bones without a key there",
            Tool::Rename => "Rename bones, morphs and IK entries from an old<TAB>new map",
            Tool::Simplify => {
                "Drop keys within tolerances, writing fitted curves: a key-every-frame \
                 motion becomes editable curves"
            }
            Tool::Bake => "A key on every frame (or every N) with straight-line curves",
            Tool::BakePhysics => {
                "Simulate the wearer's rigid bodies over the motion and write a key per frame \
                 for every bone a dynamic body drives, physics switched off on those keys so \
                 MMD plays them; every other key is kept"
            }
            Tool::ExportJson => "Write every field of every key as JSON (optionally right-handed)",
            Tool::ImportJson => "Read a VMD Studio JSON export and open it as a new tab",
        }
    }
}

/// Where the second motion of a join comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinSecond {
    /// An open document, by [`Document::id`].
    Tab(u64),
    /// A VMD file on disk.
    Path(PathBuf),
}

/// A toolbox operation the user asked for, with its parameters.
#[derive(Debug, Clone)]
pub enum Request {
    Mirror,
    Trim(TrimParams),
    Join {
        second: JoinSecond,
        params: JoinParams,
    },
    Speed(SpeedParams),
    FillRest(FillRestParams),
    Rename(RenameMap),
    Bake(ops::BakeParams),
    /// A result a dialog already computed (inline or on a background thread).
    Computed(Computed),
}

/// A finished operation waiting to be applied to the document it was
/// computed from.
#[derive(Debug, Clone)]
pub struct Computed {
    pub doc_id: u64,
    /// [`Document::revision`] when the operation started.
    pub revision: u64,
    /// Taken once by [`run_request`].
    slot: Arc<Mutex<Option<Outcome>>>,
}

/// The result of running a request: the new motion and the report.
#[derive(Debug)]
pub struct Outcome {
    pub motion: Motion,
    pub report_lines: Vec<String>,
    /// Undo label.
    pub label: String,
}

/// Result summary shown in the dialog after a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub tool: Tool,
    /// `false` when the operation refused to run (nothing changed).
    pub ok: bool,
    /// The report headline, or the error.
    pub headline: String,
    /// Every report line.
    pub lines: Vec<String>,
}

/// What a finished operation hands back.
#[derive(Debug)]
enum Done {
    /// The document's new motion (`changed`: it differs from the old one).
    Replace {
        outcome: Outcome,
        report: Report,
        changed: bool,
    },
    /// A motion for a new tab.
    NewDocument {
        motion: Motion,
        name: String,
        report: Report,
    },
    /// A file was written; the document is unchanged.
    Wrote { path: PathBuf, report: Report },
}

/// An operation running on the job service (its result comes through
/// [`State::lane`]).
#[derive(Debug)]
struct Job {
    tool: Tool,
    doc_id: u64,
    revision: u64,
    /// "Change speed on 250000 keys", for the spinner.
    what: String,
    started: Instant,
}

/// What a toolbox job hands back.
type JobOutput = Result<Done, String>;

/// Trim dialog parameters (inclusive frames).
#[derive(Debug, Clone, Default)]
pub struct TrimForm {
    pub from: u32,
    pub to: u32,
    pub rebase: bool,
    /// Fill `from`/`to` from the loop range, selection or motion length on
    /// the next draw.
    pub needs_defaults: bool,
}

/// Join dialog parameters.
#[derive(Debug, Clone)]
pub struct JoinForm {
    /// The second motion: an open tab (document id) …
    pub tab: Option<u64>,
    /// … or a file, when `use_path` is set.
    pub use_path: bool,
    pub path: String,
    /// Place at `at` instead of after a gap.
    pub use_at: bool,
    /// `--at F`: frame where the second's frame 0 lands.
    pub at: u32,
    /// `--gap N`: frames after the first's last frame (default 1).
    pub gap: u32,
}

impl Default for JoinForm {
    fn default() -> Self {
        JoinForm {
            tab: None,
            use_path: false,
            path: String::new(),
            use_at: false,
            at: 0,
            gap: 1,
        }
    }
}

/// What a speed change would do, computed by running the operation on a copy.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedPreview {
    /// The factor this preview is for.
    pub factor: f64,
    /// Last keyed frame before and after.
    pub last_before: Option<u32>,
    pub last_after: Option<u32>,
    /// Keys merged into another key (dropped).
    pub merged: usize,
}

/// Speed dialog parameters and its live preview.
#[derive(Debug)]
pub struct SpeedForm {
    /// 2 = twice as fast (half the frames).
    pub factor: f64,
    /// (doc id, revision, factor bits) the preview belongs to.
    preview_for: Option<(u64, u64, u64)>,
    pub preview: Option<Result<SpeedPreview, String>>,
    preview_job: Lane<Result<SpeedPreview, String>>,
    /// How many times the preview was computed (tests check it is not every frame).
    pub preview_runs: u64,
}

impl Default for SpeedForm {
    fn default() -> Self {
        SpeedForm {
            factor: 1.0,
            preview_for: None,
            preview: None,
            preview_job: Lane::default(),
            preview_runs: 0,
        }
    }
}

/// Rest-pose fill parameters.
#[derive(Debug, Clone, Default)]
pub struct FillForm {
    /// Also hold the bones of this open tab (composing two motions).
    pub union_with: Option<u64>,
}

/// Rename dialog parameters.
#[derive(Debug, Clone, Default)]
pub struct RenameForm {
    /// `old<TAB>new` per line.
    pub map_text: String,
    /// A map file to load into `map_text`.
    pub path: String,
}

/// Export dialog parameters.
#[derive(Debug, Clone, Default)]
pub struct ExportForm {
    pub path: String,
    pub right_handed: bool,
    /// The document the default path was made for.
    path_for: Option<u64>,
}

/// Import dialog parameters.
#[derive(Debug, Clone, Default)]
pub struct ImportForm {
    pub path: String,
}

/// Persistent UI state of the toolbox.
#[derive(Debug)]
pub struct State {
    request: Option<Request>,
    /// The open dialog.
    pub open: Option<Tool>,
    pub trim: TrimForm,
    pub join: JoinForm,
    pub speed: SpeedForm,
    pub fill: FillForm,
    pub rename: RenameForm,
    pub simplify: SimplifyForm,
    pub bake: BakeForm,
    pub export: ExportForm,
    pub import: ImportForm,
    /// The model of the actor wearing the active document (its name and
    /// asset), set by the app each frame: what Bake physics simulates.
    pub wearer_model: Option<(String, Arc<crate::render::asset::ModelAsset>)>,
    /// The last run's result, shown in its dialog.
    pub summary: Option<Summary>,
    /// Motions with more keys than this run on a background thread.
    pub background_keys: usize,
    job: Option<Job>,
    /// The current run on the job service; a result of a run that is no
    /// longer current (replaced or cancelled) is dropped.
    lane: Lane<JobOutput>,
    new_document: Option<(Motion, String)>,
}

impl Default for State {
    fn default() -> Self {
        State {
            request: None,
            open: None,
            trim: TrimForm::default(),
            join: JoinForm::default(),
            speed: SpeedForm::default(),
            fill: FillForm::default(),
            rename: RenameForm::default(),
            simplify: SimplifyForm::default(),
            bake: BakeForm::default(),
            export: ExportForm::default(),
            import: ImportForm::default(),
            wearer_model: None,
            summary: None,
            background_keys: BACKGROUND_KEYS,
            job: None,
            lane: Lane::default(),
            new_document: None,
        }
    }
}

impl State {
    /// The operation queued this frame, if any.
    pub fn take_request(&mut self) -> Option<Request> {
        self.request.take()
    }

    /// A motion imported from JSON, to be opened as a new tab: (motion, tab name).
    pub fn take_new_document(&mut self) -> Option<(Motion, String)> {
        self.new_document.take()
    }

    /// Opens `tool`'s dialog (closing any other).
    pub fn open_dialog(&mut self, tool: Tool) {
        if self.open != Some(tool) {
            self.summary = None;
        }
        self.open = Some(tool);
        if tool == Tool::Trim {
            self.trim.needs_defaults = true;
        }
    }

    /// An operation is running on a background thread.
    pub fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    /// Checks the background job; applies what it finished.
    fn poll(&mut self, shared: &mut Shared) {
        if self.job.is_none() {
            return;
        }
        let result = match self.lane.poll(&shared.jobs) {
            None => return,
            Some(Polled::Done(f)) => f.value,
            Some(Polled::Lost(_)) => Err("the operation stopped unexpectedly".to_owned()),
        };
        let Some(job) = self.job.take() else { return };
        self.finish(job.tool, job.doc_id, job.revision, result, shared);
    }

    /// Cancels the running operation: the document stays as it is.
    pub fn cancel(&mut self, jobs: &JobService) {
        if let Some(job) = self.job.take() {
            self.lane.cancel(jobs);
            self.summary = Some(Summary {
                tool: job.tool,
                ok: false,
                headline: "cancelled".to_owned(),
                lines: Vec::new(),
            });
        }
    }

    /// Shows the result in the dialog and queues what it asks for.
    fn finish(
        &mut self,
        tool: Tool,
        doc_id: u64,
        revision: u64,
        result: Result<Done, String>,
        shared: &mut Shared,
    ) {
        match result {
            Ok(Done::Replace {
                report,
                changed: false,
                ..
            }) => {
                let mut s = summary_of(tool, &report);
                s.lines
                    .push("The motion is unchanged: no undo step was added.".to_owned());
                shared.info(format!("{}: no change", tool.title()));
                self.summary = Some(s);
            }
            Ok(Done::Replace {
                outcome, report, ..
            }) => {
                self.summary = Some(summary_of(tool, &report));
                self.request = Some(Request::Computed(Computed {
                    doc_id,
                    revision,
                    slot: Arc::new(Mutex::new(Some(outcome))),
                }));
            }
            Ok(Done::NewDocument {
                motion,
                name,
                report,
            }) => {
                self.summary = Some(summary_of(tool, &report));
                shared.info(format!("Imported {name}: {}", report.headline()));
                self.new_document = Some((motion, name));
            }
            Ok(Done::Wrote { path, report }) => {
                self.summary = Some(summary_of(tool, &report));
                shared.info(format!("Wrote {}: {}", path.display(), report.headline()));
            }
            Err(e) => {
                shared.error(format!("{}: {e}", tool.title()));
                self.summary = Some(Summary {
                    tool,
                    ok: false,
                    headline: e,
                    lines: Vec::new(),
                });
            }
        }
    }
}

fn summary_of(tool: Tool, r: &Report) -> Summary {
    Summary {
        tool,
        ok: true,
        headline: r.headline(),
        lines: r.lines.clone(),
    }
}

/// The Tools menu.
pub fn menu(ui: &mut egui::Ui, state: &mut State) {
    for tool in Tool::ALL {
        if tool == Tool::ExportJson {
            ui.separator();
        }
        if ui
            .button(tool.menu_label())
            .on_hover_text(tool.tooltip())
            .clicked()
        {
            state.open_dialog(tool);
        }
    }
}

/// The toolbox side panel: a compact section with buttons opening the dialogs.
pub fn ui(ui: &mut egui::Ui, state: &mut State) {
    egui::CollapsingHeader::new("Toolbox")
        .id_salt("toolbox-section")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for tool in Tool::ALL {
                    let r = ui
                        .selectable_label(state.open == Some(tool), tool.button_label())
                        .on_hover_text(tool.tooltip());
                    if r.clicked() {
                        state.open_dialog(tool);
                    }
                }
            });
            if let Some(job) = &state.job {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.weak(&job.what);
                });
            }
        });
}

/// Draws the open dialog and polls the background job (once per frame).
pub fn windows(
    ctx: &egui::Context,
    docs: &[Document],
    active: usize,
    shared: &mut Shared,
    state: &mut State,
) {
    state.poll(shared);
    if state.job.is_some() || state.speed.preview_job.is_running() || state.simplify.is_computing()
    {
        ctx.request_repaint_after(std::time::Duration::from_millis(50));
    }
    let Some(tool) = state.open else { return };
    let mut open = true;
    // Below the menu bar and tabs, centred, so it never hides the menus.
    let screen = ctx.content_rect();
    egui::Window::new(tool.title())
        .pivot(egui::Align2::CENTER_TOP)
        .default_pos(egui::pos2(screen.center().x, screen.top() + 90.0))
        .id(egui::Id::unique("toolbox-dialog"))
        .open(&mut open)
        .collapsible(false)
        .resizable(true)
        .default_width(380.0)
        .show(ctx, |ui| dialog(ui, tool, docs, active, shared, state));
    if !open {
        state.open = None;
    }
}

/// A dialog's body: parameters, action button, spinner, summary.
fn dialog(
    ui: &mut egui::Ui,
    tool: Tool,
    docs: &[Document],
    active: usize,
    shared: &mut Shared,
    state: &mut State,
) {
    let Some(doc) = docs.get(active) else {
        if tool == Tool::ImportJson {
            import_form(ui, state);
        } else {
            ui.label("Open a file first.");
            return;
        }
        action_row(ui, tool, docs, active, shared, state);
        return;
    };
    ui.label(format!(
        "File: {}  ({} keys)",
        doc.title(),
        doc.motion.key_count()
    ));
    ui.weak(tool.tooltip());
    ui.separator();
    match tool {
        Tool::Mirror => {
            ui.label("Bones, morphs, camera, light and IK entries are mirrored.");
            ui.label("Interpolation bytes are kept. Mirroring twice gives the original.");
        }
        Tool::Trim => trim_form(ui, doc, &shared.transport.loop_range, state),
        Tool::Join => join_form(ui, docs, doc, state),
        Tool::Speed => speed_form(ui, doc, state, &shared.jobs),
        Tool::FillRest => fill_form(ui, docs, doc, state),
        Tool::Rename => rename_form(ui, state),
        Tool::Simplify => {
            let background = doc.motion.key_count() > state.background_keys;
            simplify::simplify_form(ui, doc, background, &mut state.simplify, &shared.jobs);
        }
        Tool::Bake => simplify::bake_form(ui, &mut state.bake, doc.motion.last_frame()),
        Tool::BakePhysics => match &state.wearer_model {
            Some((name, asset)) => {
                let m = &asset.loaded.model;
                ui.label(format!(
                    "Model: {name} ({} rigid bodies, {} joints); frames 0–{}",
                    m.rigid_bodies.len(),
                    m.joints.len(),
                    doc.motion.last_frame().unwrap_or(0)
                ));
            }
            None => {
                ui.label("No loaded model wears this motion: open a PMX/PMD model with it.");
            }
        },
        Tool::ExportJson => export_form(ui, doc, state),
        Tool::ImportJson => import_form(ui, state),
    }
    ui.separator();
    action_row(ui, tool, docs, active, shared, state);
}

fn action_row(
    ui: &mut egui::Ui,
    tool: Tool,
    docs: &[Document],
    active: usize,
    shared: &mut Shared,
    state: &mut State,
) {
    ui.horizontal(|ui| {
        let busy = state.job.is_some();
        if ui
            .add_enabled(!busy, egui::Button::new(tool.action_label()))
            .clicked()
        {
            start(tool, docs, active, shared, state);
        }
        if let Some(job) = &state.job {
            ui.spinner();
            ui.label(format!(
                "{} ({:.1} s)",
                job.what,
                job.started.elapsed().as_secs_f32()
            ));
            if ui
                .button("Stop")
                .on_hover_text("Cancel the run: nothing is changed")
                .clicked()
            {
                state.cancel(&shared.jobs);
            }
        }
    });
    if let Some(s) = &state.summary
        && s.tool == tool
    {
        summary_ui(ui, s);
    }
}

/// A toolbox run, ready to go inline or on the job service.
type Work = Box<dyn FnOnce(&JobCtx) -> JobOutput + Send>;

/// A prepared run of a tool.
struct Planned {
    work: Work,
    /// Keys beyond the active document's (a join's second tab).
    extra_keys: usize,
    /// Always in the background: it reads a file or simulates.
    background: bool,
}

impl Planned {
    fn inline(work: Work) -> Planned {
        Planned {
            work,
            extra_keys: 0,
            background: false,
        }
    }

    fn background(work: Work) -> Planned {
        Planned {
            work,
            extra_keys: 0,
            background: true,
        }
    }
}

impl Done {
    /// The document's new motion, labelled for the undo history; `changed`
    /// compares it with `first`, the motion the run started from.
    fn replace(motion: Motion, first: &Motion, label: String, report: Report) -> Done {
        let changed = motion != *first;
        let report_lines = status_lines(&label, &report);
        Done::Replace {
            outcome: Outcome {
                motion,
                report_lines,
                label,
            },
            report,
            changed,
        }
    }
}

/// Starts `tool` with the dialog's parameters: inline, or on a thread for
/// big motions and for files of unknown size.
fn start(tool: Tool, docs: &[Document], active: usize, shared: &mut Shared, state: &mut State) {
    let doc = docs.get(active);
    let (doc_id, revision) = doc.map(|d| (d.id, d.revision)).unwrap_or((0, 0));
    let keys = doc.map(|d| d.motion.key_count()).unwrap_or(0);
    match plan(tool, docs, doc, state) {
        Ok(p) => launch(
            tool,
            (doc_id, revision),
            keys + p.extra_keys,
            p,
            shared,
            state,
        ),
        Err(e) => state.finish(tool, doc_id, revision, Err(e), shared),
    }
}

/// Checks the dialog's parameters and prepares the run of `tool` on `doc`.
fn plan(
    tool: Tool,
    docs: &[Document],
    doc: Option<&Document>,
    state: &mut State,
) -> Result<Planned, String> {
    if tool == Tool::ImportJson {
        return plan_import_json(state);
    }
    let doc = doc.ok_or_else(|| "open a file first".to_owned())?;
    match tool {
        Tool::ExportJson => plan_export_json(state, doc),
        Tool::BakePhysics => plan_bake_physics(state, doc),
        Tool::Simplify => Ok(plan_simplify(state, doc)),
        _ => plan_op(op_request(tool, docs, state)?, docs, doc),
    }
}

/// Import JSON: reads the file in the background into a new tab.
fn plan_import_json(state: &State) -> Result<Planned, String> {
    let path = PathBuf::from(state.import.path.trim());
    if path.as_os_str().is_empty() {
        return Err("give the path of a JSON file".to_owned());
    }
    Ok(Planned::background(Box::new(move |_: &JobCtx| {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (motion, report) =
            ops::import_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = PathBuf::from(file_name(&path))
            .with_extension("vmd")
            .display()
            .to_string();
        Ok(Done::NewDocument {
            motion,
            name,
            report,
        })
    })))
}

/// Export JSON: writes the document's motion to the dialog's path.
fn plan_export_json(state: &State, doc: &Document) -> Result<Planned, String> {
    let path = PathBuf::from(state.export.path.trim());
    if path.as_os_str().is_empty() {
        return Err("give an output path".to_owned());
    }
    let opts = ops::ExportOptions {
        right_handed: state.export.right_handed,
        pretty: true,
    };
    let m = doc.motion.clone();
    Ok(Planned::inline(Box::new(move |_: &JobCtx| {
        let (text, report) = ops::export_json(&m, opts).map_err(op_error)?;
        vmd::write::save_bytes_atomic(&path, text.as_bytes()).map_err(|e| e.to_string())?;
        Ok(Done::Wrote { path, report })
    })))
}

/// Bake physics: simulates the wearer model over the whole motion, always
/// in the background.
fn plan_bake_physics(state: &State, doc: &Document) -> Result<Planned, String> {
    let (_, asset) = state
        .wearer_model
        .clone()
        .ok_or_else(|| "no loaded model wears this motion".to_owned())?;
    let first = doc.motion.clone();
    let last = first.last_frame().unwrap_or(0);
    Ok(Planned::background(Box::new(move |ctx: &JobCtx| {
        let model = &asset.loaded.model;
        let (motion, baked) = crate::model::physics::bake_physics(model, &first, 0..=last, |f| {
            ctx.progress(f, "simulating physics");
            !ctx.cancelled()
        })
        .map_err(|e| e.to_string())?;
        let mut report = Report::default();
        report.lines.push(format!(
            "baked {} bones over {} frames: {} keys written, {} replaced",
            baked.bones.len(),
            baked.frames,
            baked.keys_written,
            baked.keys_replaced
        ));
        report.lines.extend(baked.resets.iter().cloned());
        report.lines.extend(baked.warnings.iter().cloned());
        report.added = baked.keys_written.saturating_sub(baked.keys_replaced);
        report.changed = baked.keys_replaced;
        report.warnings = baked.resets.len() + baked.warnings.len();
        Ok(Done::replace(
            motion,
            &first,
            "Bake physics".to_owned(),
            report,
        ))
    })))
}

/// Simplify: the previewed result when it is current; else runs it now.
fn plan_simplify(state: &mut State, doc: &Document) -> Planned {
    let first = doc.motion.clone();
    let ready = state.simplify.current(doc).cloned();
    let p = state.simplify.params;
    let key = simplify::key_of(doc, &p);
    let progress = crate::progress::Progress::new();
    state.simplify.progress = progress.clone();
    Planned::inline(Box::new(move |ctx: &JobCtx| {
        let pv = match ready {
            Some(pv) => pv,
            None => {
                ctx.follow(progress.clone(), "simplifying tracks");
                simplify::compute(&first, &p, key, &progress)?
            }
        };
        let report = pv.report.report.clone();
        let motion = (*pv.motion).clone();
        Ok(Done::replace(
            motion,
            &first,
            "Simplify keys".to_owned(),
            report,
        ))
    }))
}

/// The request of a motion-changing tool, from its dialog.
fn op_request(tool: Tool, docs: &[Document], state: &State) -> Result<Request, String> {
    Ok(match tool {
        Tool::Mirror => Request::Mirror,
        Tool::Trim => Request::Trim(TrimParams {
            from: state.trim.from,
            to: state.trim.to,
            rebase: state.trim.rebase,
        }),
        Tool::Join => {
            let f = &state.join;
            let second = if f.use_path {
                let p = PathBuf::from(f.path.trim());
                if p.as_os_str().is_empty() {
                    return Err("give the path of the second VMD file".to_owned());
                }
                JoinSecond::Path(p)
            } else {
                JoinSecond::Tab(f.tab.ok_or_else(|| {
                    "open a second file in another tab, or give a path".to_owned()
                })?)
            };
            let placement = if f.use_at {
                JoinPlacement::At(f.at)
            } else {
                JoinPlacement::Gap(f.gap)
            };
            Request::Join {
                second,
                params: JoinParams { placement },
            }
        }
        Tool::Speed => Request::Speed(SpeedParams {
            factor: state.speed.factor,
        }),
        Tool::FillRest => {
            let mut extra_bones = Vec::new();
            if let Some(other) = docs.iter().find(|d| Some(d.id) == state.fill.union_with) {
                for k in &other.motion.bones {
                    let n = k.name().text;
                    if !extra_bones.contains(&n) {
                        extra_bones.push(n);
                    }
                }
            }
            Request::FillRest(FillRestParams { extra_bones })
        }
        Tool::Rename => {
            let map = ops::parse_rename_map(&state.rename.map_text).map_err(op_error)?;
            if map.pairs.is_empty() {
                return Err("the map is empty: write old<TAB>new lines".to_owned());
            }
            Request::Rename(map)
        }
        Tool::Bake => Request::Bake(state.bake.params()),
        Tool::Simplify | Tool::BakePhysics | Tool::ExportJson | Tool::ImportJson => {
            return Err(format!("{} does not change the motion", tool.title()));
        }
    })
}

/// Runs `req` on `doc`'s motion; a join's second motion comes from its tab
/// (its keys count toward the size) or from a file (read in the background).
fn plan_op(req: Request, docs: &[Document], doc: &Document) -> Result<Planned, String> {
    let mut extra_keys = 0;
    let mut background = false;
    let (second, second_name) = match &req {
        Request::Join {
            second: JoinSecond::Tab(id),
            ..
        } => {
            let other = docs
                .iter()
                .find(|d| d.id == *id)
                .ok_or_else(|| "the second tab is no longer open".to_owned())?;
            extra_keys = other.motion.key_count();
            (Some(other.motion.clone()), other.title())
        }
        Request::Join {
            second: JoinSecond::Path(p),
            ..
        } => {
            background = true;
            (None, file_name(p))
        }
        _ => (None, String::new()),
    };
    let label = label_of(&req, &second_name);
    let first = doc.motion.clone();
    let work: Work = Box::new(move |_: &JobCtx| {
        run_op(&req, &first, second.as_ref(), label).map(|(outcome, report)| {
            let changed = outcome.motion != first;
            Done::Replace {
                outcome,
                report,
                changed,
            }
        })
    });
    Ok(Planned {
        work,
        extra_keys,
        background,
    })
}

/// Runs a planned tool: on the job service when the motion has more than
/// [`State::background_keys`] keys or the run must be in the background,
/// else now.
fn launch(
    tool: Tool,
    (doc_id, revision): (u64, u64),
    keys: usize,
    planned: Planned,
    shared: &mut Shared,
    state: &mut State,
) {
    let work = planned.work;
    if keys > state.background_keys || planned.background {
        let what = format!("{} on {keys} keys", tool.title());
        state.lane.start(
            &shared.jobs,
            JobKind::Toolbox,
            what.clone(),
            true,
            move |ctx: &JobCtx| {
                let r = work(ctx);
                // Cancelled (from the status bar): nothing is applied.
                if ctx.cancelled() {
                    Err("cancelled: nothing was changed".to_owned())
                } else {
                    r
                }
            },
        );
        state.summary = None;
        state.job = Some(Job {
            tool,
            doc_id,
            revision,
            what,
            started: Instant::now(),
        });
    } else {
        let result = work(&JobCtx::detached());
        state.finish(tool, doc_id, revision, result, shared);
    }
}
