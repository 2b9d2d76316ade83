//! The toolbox's persistent state: the dialogs' forms, the open dialog,
//! the running job and what waits for the app.

use std::sync::Arc;

use crate::workspace::Workspace;
use std::time::Instant;

use super::done::Done;
use super::scope_ui::{SceneMotion, ScopeForm};
use super::{
    BACKGROUND_KEYS, BakeForm, BakePhysicsForm, Request, SimplifyForm, SizingForm, Summary, Tool,
};
use crate::app::jobs::{JobService, Lane};
use crate::vmd::Motion;

/// An operation running on the job service (its result comes through
/// [`State::lane`]).
#[derive(Debug)]
pub(super) struct Job {
    pub(super) tool: Tool,
    pub(super) doc_id: u64,
    pub(super) revision: u64,
    /// "Change speed on 250000 keys", for the spinner.
    pub(super) what: String,
    pub(super) started: Instant,
}

/// What a toolbox job hands back.
pub(super) type JobOutput = Result<Done, String>;

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
    /// Which keys change.
    pub scope: ScopeForm,
    /// Change the scene's other motions (the camera, the other actors'
    /// motions) by the same factor, in the same undo step.
    pub whole_scene: bool,
    /// (doc id, revision, factor bits, scope) the preview belongs to.
    pub(super) preview_for: Option<(u64, u64, u64, Option<crate::vmd::ops::KeyScope>)>,
    pub preview: Option<Result<SpeedPreview, String>>,
    pub(super) preview_job: Lane<Result<SpeedPreview, String>>,
    /// How many times the preview was computed (tests check it is not every frame).
    pub preview_runs: u64,
}

impl Default for SpeedForm {
    fn default() -> Self {
        SpeedForm {
            factor: 1.0,
            scope: ScopeForm::default(),
            whole_scene: true,
            preview_for: None,
            preview: None,
            preview_job: Lane::default(),
            preview_runs: 0,
        }
    }
}

/// Mirror dialog parameters.
#[derive(Debug, Clone, Default)]
pub struct MirrorForm {
    /// Which keys are mirrored.
    pub scope: ScopeForm,
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
    pub(super) path_for: Option<u64>,
}

/// Import dialog parameters.
#[derive(Debug, Clone, Default)]
pub struct ImportForm {
    pub path: String,
}

/// Persistent UI state of the toolbox.
#[derive(Debug)]
pub struct State {
    pub(super) request: Option<Request>,
    /// The open dialog.
    pub open: Option<Tool>,
    /// The document the open dialog changes (by id): picked in the dialog,
    /// else chosen when it opens ([`State::target_index`]). An undo that
    /// makes another file active does not retarget it.
    pub target: Option<u64>,
    /// The open dialog's size last frame (it is redrawn until it settles).
    pub(super) dialog_size: Option<egui::Vec2>,
    pub trim: TrimForm,
    pub join: JoinForm,
    pub speed: SpeedForm,
    pub mirror: MirrorForm,
    pub fill: FillForm,
    pub rename: RenameForm,
    pub simplify: SimplifyForm,
    pub bake: BakeForm,
    pub bake_physics: BakePhysicsForm,
    pub sizing: SizingForm,
    pub export: ExportForm,
    pub import: ImportForm,
    /// The model of the actor wearing the active document (its name and
    /// asset), set by the app each frame: what Bake physics simulates.
    pub wearer_model: Option<(String, Arc<crate::render::asset::ModelAsset>)>,
    /// That actor's offset on the scene timeline (its motion's frame `f`
    /// plays at scene frame `f + offset`), set by the app each frame.
    pub wearer_offset: i32,
    /// The scene's other motions (the camera, other actors' motions) when
    /// the target is one of the scene's: what a speed change can take
    /// along. Set by the shell each frame.
    pub scene_motions: Vec<SceneMotion>,
    /// The last run's result, shown in its dialog.
    pub summary: Option<Summary>,
    /// Motions with more keys than this run on a background thread.
    pub background_keys: usize,
    pub(super) job: Option<Job>,
    /// The current run on the job service; a result of a run that is no
    /// longer current (replaced or cancelled) is dropped.
    pub(super) lane: Lane<JobOutput>,
    pub(super) new_document: Option<(Motion, String)>,
}

impl Default for State {
    fn default() -> Self {
        State {
            request: None,
            open: None,
            target: None,
            dialog_size: None,
            trim: TrimForm::default(),
            join: JoinForm::default(),
            speed: SpeedForm::default(),
            mirror: MirrorForm::default(),
            scene_motions: Vec::new(),
            fill: FillForm::default(),
            rename: RenameForm::default(),
            simplify: SimplifyForm::default(),
            bake: BakeForm::default(),
            bake_physics: BakePhysicsForm::default(),
            sizing: SizingForm::default(),
            export: ExportForm::default(),
            import: ImportForm::default(),
            wearer_model: None,
            wearer_offset: 0,
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
        // Chosen again on the next frame (State::target_index).
        self.target = None;
        match tool {
            Tool::Trim => self.trim.needs_defaults = true,
            // The range starts from the whole motion again.
            Tool::BakePhysics => self.bake_physics.range_for = None,
            // Opened by hand: the whole motion (the bake's offer presets
            // a scope after opening).
            Tool::Simplify => self.simplify.scope = None,
            _ => {}
        }
    }

    /// The index in `ws.docs()` of the document the open dialog changes:
    /// the one it targets, or (when it opened, or its file was closed) the
    /// active file, and for Bake physics and Size motion the motion the
    /// selected actor wears (the one a model simulates or is sized for),
    /// if any. The choice is kept by id.
    pub fn target_index(&mut self, ws: &Workspace) -> usize {
        let docs = ws.docs();
        if self.open.is_none() {
            return ws.active_index();
        }
        if let Some(i) = self
            .target
            .and_then(|id| docs.iter().position(|d| d.id == id))
        {
            return i;
        }
        let worn = || {
            let actor = ws.selected_actor().unwrap_or(0);
            let id = ws.scene().actors.get(actor)?.motion?;
            docs.iter().position(|d| d.id == id)
        };
        let i = match self.open {
            Some(Tool::BakePhysics | Tool::Sizing) => worn().unwrap_or(ws.active_index()),
            _ => ws.active_index(),
        };
        self.target = docs.get(i).map(|d| d.id);
        i
    }

    /// The actor and the sized motion the viewport shows in its place
    /// while Size motion to model… is open with its preview on (see
    /// [`SizingForm::viewport_preview`]).
    pub fn viewport_preview(
        &self,
        ws: &Workspace,
    ) -> Option<(usize, &crate::workspace::document::Document)> {
        if self.open != Some(Tool::Sizing) {
            return None;
        }
        self.sizing.viewport_preview(ws)
    }

    /// The source-body ghost drawn with that preview (see
    /// [`SizingForm::viewport_ghost`]).
    pub fn viewport_ghost<'a>(
        &'a self,
        ws: &'a Workspace,
    ) -> Option<(
        usize,
        &'a crate::model::Model,
        &'a crate::workspace::document::Document,
    )> {
        if self.open != Some(Tool::Sizing) {
            return None;
        }
        self.sizing.viewport_ghost(ws)
    }

    /// An operation is running on a background thread.
    pub fn is_busy(&self) -> bool {
        self.job.is_some()
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
}
