//! Tools ▸ Size motion to model… (issue 36): the dialog's state, its
//! inputs and the background run of [`crate::sizing`] (the drawing is in
//! [`super::sizing_ui`]).
//!
//! The dialog sizes the motion the selected actor wears (the toolbox's
//! target file, kept by id). The **target** is that actor's model; the
//! **source** (the body the motion was made for) is the built-in standard
//! body, another actor's model, or a model file. Whenever the inputs
//! change, sizing and its quality measures run on a background job (they
//! pose every frame on three bodies: more than a frame's time); the result
//! is a report and a sized copy of the motion, shown on the actor in the
//! viewport while "Preview on the actor" is on. Apply hands that copy to
//! the document as one undo step; nothing is applied before.

use std::path::PathBuf;
use std::sync::Arc;

use super::applied::Applied;
use crate::app::jobs::{JobKind, JobService, Lane, Polled};
use crate::model::Model;
use crate::render::asset::ModelAsset;
use crate::sizing::{self, QualityReport, SizingOptions, SizingOutcome};
use crate::vmd::Motion;
use crate::workspace::Workspace;
use crate::workspace::document::Document;

/// An actor's model, as the sizing dialog offers it.
#[derive(Debug, Clone)]
pub enum SceneModel {
    /// The built-in standard skeleton ([`crate::model::standard_model`]).
    Builtin,
    /// A loaded model file.
    Loaded {
        path: PathBuf,
        asset: Arc<ModelAsset>,
    },
    /// A model file still loading (or that could not be read).
    Pending(PathBuf),
}

impl SceneModel {
    /// "サンプルモデル.pmx", "the built-in standard body".
    pub fn describe(&self) -> String {
        match self {
            SceneModel::Builtin => "the built-in standard body".to_owned(),
            SceneModel::Loaded { path, .. } | SceneModel::Pending(path) => {
                super::run::file_name(path)
            }
        }
    }

    /// The model for a run, or why it cannot be read yet.
    fn input(&self) -> Result<ModelInput, String> {
        match self {
            SceneModel::Builtin => Ok(ModelInput::Builtin),
            SceneModel::Loaded { asset, .. } => Ok(ModelInput::Asset(Arc::clone(asset))),
            SceneModel::Pending(p) => Err(format!(
                "{} has not loaded (yet): wait, or choose another source",
                super::run::file_name(p)
            )),
        }
    }
}

/// An actor of the scene with its model (set by the app each frame while
/// the dialog is open).
#[derive(Debug, Clone)]
pub struct ActorModel {
    pub name: String,
    pub model: SceneModel,
}

/// Where the source model (the body the motion was made for) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceChoice {
    /// VMD Studio's built-in standard body (the CLI's `--from builtin`).
    #[default]
    Builtin,
    /// The model of the scene's actor at this index.
    Actor(usize),
    /// The model file in [`SizingForm::path`].
    File,
}

/// A model as a sizing run reads it.
#[derive(Debug, Clone)]
enum ModelInput {
    Builtin,
    Asset(Arc<ModelAsset>),
    File(PathBuf),
}

/// What identifies a [`ModelInput`] for [`SizingKey`].
#[derive(Debug, Clone, PartialEq)]
enum ModelKey {
    Builtin,
    /// [`ModelAsset::generation`].
    Asset(u64),
    File(PathBuf),
}

impl ModelInput {
    fn key(&self) -> ModelKey {
        match self {
            ModelInput::Builtin => ModelKey::Builtin,
            ModelInput::Asset(a) => ModelKey::Asset(a.generation()),
            ModelInput::File(p) => ModelKey::File(p.clone()),
        }
    }

    /// The model itself (a file is read now: call it off the UI thread).
    fn hold(&self) -> Result<Held, String> {
        Ok(match self {
            ModelInput::Builtin => Held::Owned(Box::new(crate::model::standard_model())),
            ModelInput::Asset(a) => Held::Asset(Arc::clone(a)),
            ModelInput::File(p) => Held::Owned(Box::new(
                Model::open(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?,
            )),
        })
    }
}

/// A model a run holds while it sizes.
enum Held {
    Owned(Box<Model>),
    Asset(Arc<ModelAsset>),
}

impl Held {
    fn model(&self) -> &Model {
        match self {
            Held::Owned(m) => m,
            Held::Asset(a) => &a.loaded.model,
        }
    }
}

/// What a sizing result depends on: the document (id, revision), the
/// actor wearing it, both models and the options.
#[derive(Debug, Clone, PartialEq)]
pub struct SizingKey {
    doc: (u64, u64),
    actor: usize,
    source: ModelKey,
    target: ModelKey,
    options: SizingOptions,
    /// The scene camera sized with it (id, revision), when asked.
    camera: Option<(u64, u64)>,
    /// The other actors' models when sized as a group (their bodies share
    /// the horizontal ratio).
    group: Vec<ModelKey>,
}

impl SizingKey {
    /// The scene camera sized with the motion (id, revision), if any.
    pub fn camera(&self) -> Option<(u64, u64)> {
        self.camera
    }
}

/// One run's inputs, resolved from the form and the scene.
struct Inputs {
    key: SizingKey,
    /// The scene camera's name and motion, when it is sized too.
    camera: Option<(String, Motion)>,
    source: ModelInput,
    target: ModelInput,
    /// The other actors' models, when sized as a group.
    others: Vec<ModelInput>,
    source_name: String,
    target_name: String,
}

/// A finished sizing: the sized motion and what it measures.
#[derive(Debug, Clone)]
pub struct SizingPreview {
    pub key: SizingKey,
    /// The sized motion as a document the viewport can pose on the actor
    /// (never in the workspace; see [`Document::preview`]).
    pub sized: Arc<Document>,
    /// Ratios, per-bone changes, missing bones and notes (its `motion` is
    /// left empty: the motion is in `sized`).
    pub outcome: Arc<SizingOutcome>,
    /// Source, target unsized ("before") and sized ("after").
    pub quality: Arc<QualityReport>,
    /// "the built-in standard body", "サンプルモデル.pmx".
    pub source_name: String,
    /// The actor's name and model.
    pub target_name: String,
    /// The scene camera sized to keep its framing, when asked: its name
    /// and the sized motion with its report, or why it could not be sized
    /// (then nothing can be applied).
    pub camera: Option<(String, Result<Arc<crate::sizing::CameraOutcome>, String>)>,
    /// How many other actors it was sized with as a group (0: alone).
    pub group: usize,
    /// The source body, for the viewport's ghost of the unsized motion.
    pub source_model: Arc<Model>,
}

/// Size motion dialog state.
#[derive(Debug)]
pub struct SizingForm {
    pub source: SourceChoice,
    /// The source model file ([`SourceChoice::File`]).
    pub path: String,
    pub options: SizingOptions,
    /// Show the sized motion on the actor in the viewport (nothing is
    /// applied; the dialog must be open).
    pub preview_on: bool,
    /// With the preview: the source body wearing the unsized motion drawn
    /// as a ghost over the actor.
    pub ghost_on: bool,
    /// The last run's result: the preview, or why sizing refused.
    pub result: Option<Result<SizingPreview, String>>,
    job: Lane<Result<SizingPreview, String>>,
    /// The inputs of the last run started.
    started_for: Option<SizingKey>,
    /// The inputs the form shows now, or what is missing to run.
    want: Option<Result<SizingKey, String>>,
    /// Runs started (tests check a run is not started every frame).
    pub runs: u64,
    /// The last Apply, while the document holds what it made.
    pub applied: Option<Applied>,
    /// Browse… was pressed: the app asks for a model file.
    browse: bool,
    /// The scene's actors and their models (set by the app each frame
    /// while the dialog is open).
    pub actors: Vec<ActorModel>,
    /// The actor wearing the target file, if any (set with `actors`).
    pub wearer: Option<usize>,
    /// Size the scene camera too, keeping its framing on the target.
    pub size_camera: bool,
    /// Size as a group with the scene's other actors: one horizontal
    /// ratio for all (the CLI's `--group`), so a formation keeps its
    /// spacing when each actor's motion is sized in turn.
    pub group: bool,
    /// The scene's camera file (id, name), when it is another file than
    /// the target (set with `actors`).
    pub scene_camera: Option<(u64, String)>,
}

impl Default for SizingForm {
    fn default() -> Self {
        SizingForm {
            source: SourceChoice::default(),
            path: String::new(),
            options: SizingOptions::default(),
            preview_on: true,
            ghost_on: true,
            result: None,
            job: Lane::default(),
            started_for: None,
            want: None,
            runs: 0,
            applied: None,
            browse: false,
            actors: Vec::new(),
            wearer: None,
            size_camera: true,
            group: false,
            scene_camera: None,
        }
    }
}

impl SizingForm {
    /// A sizing runs in the background.
    pub fn is_computing(&self) -> bool {
        self.job.is_running()
    }

    /// Asks the app for a source model file (Browse…).
    pub(super) fn ask_browse(&mut self) {
        self.browse = true;
    }

    /// Whether Browse… was pressed since the last call (the app then opens
    /// its file picker: the system dialog or the built-in browser).
    pub fn take_browse(&mut self) -> bool {
        std::mem::take(&mut self.browse)
    }

    /// The folder Browse… starts in: the source file's, if one is given.
    pub fn browse_dir(&self) -> Option<PathBuf> {
        let p = PathBuf::from(self.path.trim());
        p.parent()
            .filter(|d| !d.as_os_str().is_empty() && d.is_dir())
            .map(PathBuf::from)
    }

    /// A model file was picked as the source.
    pub fn source_picked(&mut self, path: PathBuf) {
        self.source = SourceChoice::File;
        self.path = path.display().to_string();
    }

    /// Notes that Apply was pressed on `doc`.
    pub fn mark_applied(&mut self, doc: &Document) {
        self.applied = Some(Applied::on(doc));
    }

    /// Whether `doc` holds what the last Apply made of it.
    pub fn is_applied(&mut self, doc: &Document, settled: bool) -> bool {
        Applied::holds(&mut self.applied, doc, settled)
    }

    /// The result, when it is for the inputs the form shows now.
    pub fn current(&self) -> Option<&SizingPreview> {
        match (&self.result, &self.want) {
            (Some(Ok(p)), Some(Ok(k))) if p.key == *k => Some(p),
            _ => None,
        }
    }

    /// Why Apply cannot run now, if it cannot.
    pub(super) fn blocked(&self) -> Option<String> {
        if let Some(p) = self.current() {
            return match &p.camera {
                Some((name, Err(e))) => Some(format!(
                    "The camera {name} cannot be sized: {e} (untick the camera to size the motion alone)"
                )),
                _ => None,
            };
        }
        Some(match (&self.want, &self.result) {
            (Some(Err(e)), _) => e.clone(),
            _ if self.is_computing() => "Sizing… (the report comes first)".to_owned(),
            (_, Some(Err(e))) => format!("Cannot size: {e}"),
            _ => "No sizing for these inputs yet".to_owned(),
        })
    }

    /// The actor and the sized motion the viewport shows in place of the
    /// actor's own (the dialog being open): while the preview is on, not
    /// yet applied, and the result is for the inputs the form shows and
    /// the document as it is now.
    pub fn viewport_preview(&self, ws: &Workspace) -> Option<(usize, &Document)> {
        if !self.preview_on || self.applied.is_some() {
            return None;
        }
        let p = self.current()?;
        let (id, revision) = p.key.doc;
        let doc = ws.doc(id)?;
        (doc.revision == revision && ws.wearer(id) == Some(p.key.actor))
            .then_some((p.key.actor, p.sized.as_ref()))
    }

    /// The ghost the viewport draws over the previewed actor: the actor,
    /// the source body and the motion as it is (unsized), while the
    /// preview and the ghost are on.
    pub fn viewport_ghost<'a>(
        &'a self,
        ws: &'a Workspace,
    ) -> Option<(usize, &'a Model, &'a Document)> {
        if !self.ghost_on {
            return None;
        }
        let (actor, _) = self.viewport_preview(ws)?;
        let p = self.current()?;
        Some((actor, p.source_model.as_ref(), ws.doc(p.key.doc.0)?))
    }

    /// Resolves the form's inputs for `doc` (the key, and the models to
    /// read), or says what is missing. `docs`: the open documents (the
    /// scene camera's motion).
    fn inputs(&self, doc: &Document, docs: &[Document]) -> Result<Inputs, String> {
        let actor = self.wearer.ok_or(
            "No actor wears this motion: open it with a model (or pick the actor's motion)",
        )?;
        let wearer = self
            .actors
            .get(actor)
            .ok_or("The actor wearing this motion is gone")?;
        let target = wearer.model.input()?;
        let (source, source_name) = match self.source {
            SourceChoice::Builtin => (ModelInput::Builtin, SceneModel::Builtin.describe()),
            SourceChoice::Actor(i) => {
                let a = self
                    .actors
                    .get(i)
                    .ok_or("That actor is no longer in the scene: choose another source")?;
                let m = a.model.input()?;
                (m, format!("{} ({})", a.name, a.model.describe()))
            }
            SourceChoice::File => {
                let p = PathBuf::from(self.path.trim());
                if p.as_os_str().is_empty() {
                    return Err("Give the source model file (PMX/PMD), or Browse…".to_owned());
                }
                let name = super::run::file_name(&p);
                (ModelInput::File(p), name)
            }
        };
        let others = if self.group {
            self.actors
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != actor)
                .map(|(_, a)| a.model.input())
                .collect::<Result<Vec<_>, String>>()?
        } else {
            Vec::new()
        };
        let camera = self
            .scene_camera
            .as_ref()
            .filter(|_| self.size_camera)
            .and_then(|(id, name)| docs.iter().find(|d| d.id == *id).map(|d| (d, name)));
        Ok(Inputs {
            key: SizingKey {
                doc: (doc.id, doc.revision),
                actor,
                source: source.key(),
                target: target.key(),
                options: self.options,
                camera: camera.map(|(d, _)| (d.id, d.revision)),
                group: others.iter().map(ModelInput::key).collect(),
            },
            camera: camera.map(|(d, name)| (name.clone(), d.motion.clone())),
            source,
            target,
            others,
            source_name,
            target_name: format!("{} ({})", wearer.name, wearer.model.describe()),
        })
    }

    /// Collects a finished run, and starts one when the inputs changed
    /// (one at a time: new inputs wait for the run going on).
    pub(super) fn refresh(&mut self, doc: &Document, docs: &[Document], jobs: &JobService) {
        match self.job.poll(jobs) {
            Some(Polled::Done(f)) => self.result = Some(f.value),
            Some(Polled::Lost(_)) => {
                self.result = Some(Err("the sizing stopped unexpectedly".to_owned()));
            }
            None => {}
        }
        let inputs = self.inputs(doc, docs);
        self.want = Some(inputs.as_ref().map(|i| i.key.clone()).map_err(Clone::clone));
        let Ok(inputs) = inputs else { return };
        if self.started_for.as_ref() == Some(&inputs.key) || self.job.is_running() {
            return;
        }
        self.started_for = Some(inputs.key.clone());
        self.runs += 1;
        let motion = doc.motion.clone();
        let label = format!(
            "Sizing {} keys for {}",
            motion.key_count(),
            inputs.target_name
        );
        self.job
            .start(jobs, JobKind::Preview, label, false, move |_| {
                compute(&motion, inputs)
            });
    }
}

/// Sizes `motion` and measures it (a background job's work).
fn compute(motion: &Motion, inputs: Inputs) -> Result<SizingPreview, String> {
    let source = inputs.source.hold()?;
    let target = inputs.target.hold()?;
    let held = inputs
        .others
        .iter()
        .map(ModelInput::hold)
        .collect::<Result<Vec<_>, String>>()?;
    let others: Vec<&Model> = held.iter().map(Held::model).collect();
    let (source, target) = (source.model(), target.model());
    let options = inputs.key.options;
    let mut outcome = if others.is_empty() {
        sizing::size_motion(motion, source, target, &options)
    } else {
        sizing::size_in_group(motion, target, &others, source, &options)
    }
    .map_err(|e| e.to_string())?;
    let quality = sizing::quality(motion, &outcome.motion, source, target)
        .map_err(|e| format!("cannot measure: {e}"))?;
    let sized = std::mem::take(&mut outcome.motion);
    let camera = inputs.camera.map(|(name, m)| {
        let sized = sizing::camera_fit(source, target, &outcome.ratios)
            .and_then(|fit| sizing::size_camera(&m, &fit))
            .map(Arc::new)
            .map_err(|e| e.to_string());
        (name, sized)
    });
    Ok(SizingPreview {
        key: inputs.key,
        sized: Arc::new(Document::preview(sized, "sized preview")),
        outcome: Arc::new(outcome),
        quality: Arc::new(quality),
        source_name: inputs.source_name,
        target_name: inputs.target_name,
        camera,
        group: others.len(),
        source_model: Arc::new(source.clone()),
    })
}

/// Totals of a sizing's per-bone changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChangeTotals {
    /// Bone tracks with a changed or added key.
    pub tracks_touched: usize,
    /// Bone tracks left byte-identical.
    pub tracks_untouched: usize,
    pub changed: usize,
    pub added: usize,
    /// Keys left byte-identical (in every track).
    pub untouched: usize,
}

impl ChangeTotals {
    pub fn of(outcome: &SizingOutcome) -> ChangeTotals {
        let mut t = ChangeTotals::default();
        for c in &outcome.changes {
            if c.changed + c.added > 0 {
                t.tracks_touched += 1;
            } else {
                t.tracks_untouched += 1;
            }
            t.changed += c.changed;
            t.added += c.added;
            t.untouched += c.untouched;
        }
        t
    }
}

/// The lines the dialog's summary and the status bar show after Apply.
pub(super) fn report_of(p: &SizingPreview) -> crate::vmd::ops::Report {
    let o = &p.outcome;
    let t = ChangeTotals::of(o);
    let r = o.ratios;
    let mut report = crate::vmd::ops::Report::new();
    report.note(format!(
        "sized from {} to {}: horizontal ×{:.4}, vertical ×{:.4}, hips ×{:.4} {:+.3} units",
        p.source_name, p.target_name, r.horizontal, r.vertical, r.hips, r.hip_offset
    ));
    if p.group > 0 {
        report.note(format!(
            "sized as a group with {} other actor(s): the horizontal ratio is the group's",
            p.group
        ));
    }
    report.note(format!(
        "{} bone tracks changed ({} keys changed, {} added); {} keys byte-identical, {} tracks untouched",
        t.tracks_touched, t.changed, t.added, t.untouched, t.tracks_untouched
    ));
    if o.feet_lifted > 0 {
        report.note(format!(
            "{} leg-IK keys lifted off the floor",
            o.feet_lifted
        ));
    }
    if !o.missing_in_target.is_empty() {
        report.note(format!(
            "the target lacks: {} (kept in the file, not played on it)",
            o.missing_in_target.join(", ")
        ));
    }
    for n in &o.notes {
        report.note(format!("note: {n}"));
    }
    if let Some((name, Ok(c))) = &p.camera {
        report.note(camera_line(name, &c.report));
    }
    report.changed = t.changed;
    report.added = t.added;
    report
}

/// "camera demo_camera.vmd: look-at X/Z ×…, distance ×…; N of M keys changed".
pub(super) fn camera_line(name: &str, r: &crate::sizing::CameraReport) -> String {
    format!(
        "camera {name}: look-at X/Z ×{:.4}, heights through hips {:.3}→{:.3} and head {:.3}→{:.3}, distance ×{:.4}; {} of {} keys changed (same undo step)",
        r.fit.horizontal,
        r.fit.source_hips,
        r.fit.target_hips,
        r.fit.source_head,
        r.fit.target_head,
        r.distance_ratio,
        r.changed,
        r.keys
    )
}
