//! Loading into the scene: opening files into their roles (in the order
//! asked for, whatever order they finish loading in), loaded models, the
//! bundled demo and `.vmdscene` files. The arrangement itself, its undo
//! steps and the scene-wide undo order are the workspace's
//! ([`crate::workspace::Workspace`]); what is found here changes it only
//! through [`crate::workspace::Event`]s.
//!
//! Each VMD stays its own [`crate::workspace::Document`] with its own history and modified
//! mark; the scene ([`crate::scene::Scene`], keyed by document id) only
//! arranges them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::jobs::JobResult;
use super::panels::viewport::ViewMode;
use super::{CentralView, StudioApp};
use crate::model::{Model, Skeleton};
use crate::render::asset::ModelAsset;
use crate::scene::{self, ModelRef, MotionRole, Placed, Scene};
use crate::vmd::{self, Motion};
use crate::workspace::document::{Edit, EditRequest};
use crate::workspace::files::{FileKind, songs_only};
use crate::workspace::{Event, NewDocument, SceneEvent, TransportEvent, Workspace};

/// What an open request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// By what the file holds: a motion to the selected actor (or a new
    /// one), a camera or light to the scene's camera or light, a model to
    /// the selected actor.
    Auto,
    /// The motion of actor `n` (from a scene file).
    ActorMotion(usize),
    /// The model of actor `n` (from a scene file or the scene panel).
    ActorModel(usize),
    /// The scene camera, and the light too when `light_too`.
    Camera {
        light_too: bool,
    },
    Light,
    /// Loaded onto an actor's motion as MMD loads a second VMD onto a model
    /// (a face motion onto a dance): its bone, morph and IK keys are added
    /// at frame 0, replacing keys of the same track on the same frame, as
    /// one undo step of the actor's motion. `None`: the actor selected when
    /// the file has loaded (the command line's `--merge`).
    MergeInto(Option<usize>),
}

/// What the app keeps beside the workspace's scene: loaded models and
/// pending opens.
pub struct SceneState {
    /// The `.vmdscene` file the arrangement came from or was saved to.
    pub path: Option<PathBuf>,
    /// Loaded models (with textures and the renderer's template), by path.
    pub models: HashMap<PathBuf, Arc<ModelAsset>>,
    /// Loaded models' morph names (file order), by path.
    pub model_morphs: HashMap<PathBuf, Vec<String>>,
    /// The current model load of each actor (by open sequence number): a
    /// load the user replaced by another is stale and dropped.
    pub model_loads: HashMap<usize, u64>,
    /// The built-in standard skeleton, a model with no mesh (actors
    /// without a model file, or while theirs loads).
    pub builtin: Model,
    /// What each pending open request is for, by its sequence number.
    intents: HashMap<u64, Intent>,
    /// Results that finished before an earlier request: applied in order.
    waiting: BTreeMap<u64, JobResult>,
    /// Requests applied (or dropped) out of order: the queue skips them.
    skipped: HashSet<u64>,
    /// The sequence number to apply next.
    next_apply: u64,
}

impl Default for SceneState {
    fn default() -> Self {
        SceneState {
            path: None,
            models: HashMap::new(),
            model_morphs: HashMap::new(),
            model_loads: HashMap::new(),
            builtin: crate::model::standard_model(),
            intents: HashMap::new(),
            waiting: BTreeMap::new(),
            skipped: HashSet::new(),
            next_apply: 1,
        }
    }
}

impl SceneState {
    /// The skeleton an actor with `model` shows: its model's, or the
    /// built-in one (also while the model is loading or when it failed).
    pub fn skeleton_for(&self, model: &ModelRef) -> &Skeleton {
        &self.rig_for(model).skeleton
    }

    /// The model an actor with `model` is posed with: its file's, or the
    /// built-in skeleton (also while the model is loading or when it failed).
    pub fn rig_for(&self, model: &ModelRef) -> &Model {
        match model {
            ModelRef::File(p) => self
                .models
                .get(p)
                .map_or(&self.builtin, |m| &m.loaded.model),
            ModelRef::Builtin => &self.builtin,
        }
    }

    /// The morph names of `model`; `None` for the built-in skeleton (it has
    /// no morphs to check against) and while loading.
    pub fn morphs_for(&self, model: &ModelRef) -> Option<&[String]> {
        match model {
            ModelRef::File(p) => self.model_morphs.get(p).map(Vec::as_slice),
            ModelRef::Builtin => None,
        }
    }

    /// The generation of `model`'s loaded asset (its rig and morph list
    /// come from it); 0 for the built-in skeleton and while loading.
    pub fn model_generation(&self, model: &ModelRef) -> u64 {
        match model {
            ModelRef::File(p) => self.models.get(p).map_or(0, |m| m.generation()),
            ModelRef::Builtin => 0,
        }
    }

    /// Whether any open request has not taken its role yet.
    pub fn pending(&self) -> bool {
        !self.intents.is_empty() || !self.waiting.is_empty()
    }

    /// Whether `model`'s file is loaded (false for the built-in skeleton).
    pub fn loaded(&self, model: &ModelRef) -> bool {
        matches!(model, ModelRef::File(p) if self.models.contains_key(p))
    }
}

/// A short message for where a file went.
fn placed_text(s: &Scene<u64>, p: &Placed) -> String {
    let actor = |i: usize| s.actors.get(i).map_or("an actor", |a| a.name.as_str());
    match *p {
        Placed::ActorMotion { index, new: true } => {
            format!("as the motion of a new actor, {}", actor(index))
        }
        Placed::ActorMotion { index, .. } => format!("as the motion of {}", actor(index)),
        Placed::ActorModel { index, new: true } => {
            format!("as the model of a new actor, {}", actor(index))
        }
        Placed::ActorModel { index, .. } => format!("as the model of {}", actor(index)),
        Placed::Camera => "as the scene camera".to_owned(),
        Placed::CameraAndLight => "as the scene camera and light".to_owned(),
        Placed::Light => "as the scene light".to_owned(),
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

impl StudioApp {
    /// Opens files in the background; they take their roles in the order
    /// given, whatever order they finish loading in. A `.vmdscene` file
    /// opens as a scene.
    /// A song goes under the bundled demo scene only when it comes alone
    /// into an empty window (nothing open, nothing loading): with a model,
    /// a motion or a scene file beside it, those are the scene.
    pub fn open_paths(&mut self, paths: Vec<PathBuf>) {
        let under_demo = songs_only(&paths);
        for p in paths {
            match FileKind::of(&p) {
                FileKind::Scene => self.open_scene(&p),
                FileKind::Song if under_demo => self.load_song(p),
                FileKind::Song => self.load_song_into_scene(p),
                FileKind::Model | FileKind::Motion => self.open_for(p, Intent::Auto),
            }
        }
    }

    /// Opens one file for a given role.
    /// A model for an actor replaces any load for that actor still running.
    pub fn open_for(&mut self, path: PathBuf, intent: Intent) {
        let seq = self.jobs.open(path);
        self.scene.intents.insert(seq, intent);
        if let Intent::ActorModel(i) = intent
            && let Some(old) = self.scene.model_loads.insert(i, seq)
        {
            self.jobs.cancel_open(old);
        }
    }

    /// Takes a finished load: a model for a given actor applies at once if
    /// it is that actor's current load (else it is stale and dropped); the
    /// rest queue and apply in the order they were asked for.
    pub fn queue_loaded(&mut self, seq: u64, r: JobResult) {
        if let Some(&Intent::ActorModel(i)) = self.scene.intents.get(&seq) {
            self.scene.intents.remove(&seq);
            // The ordered queue does not wait for this one.
            self.scene.skipped.insert(seq);
            if self.scene.model_loads.get(&i) == Some(&seq) {
                self.scene.model_loads.remove(&i);
                if let JobResult::Model { path, result, .. } = r {
                    self.place_model(path, result, Intent::ActorModel(i));
                } else if let JobResult::Motion { path, .. } = r {
                    self.shared.error(format!(
                        "{} is not a model (PMX or PMD); the actor keeps its model",
                        path.display()
                    ));
                }
            } else {
                tracing::info!("dropped a stale model load (request {seq}) for actor {i}");
            }
        } else {
            self.scene.waiting.insert(seq, r);
        }
        loop {
            if self.scene.skipped.remove(&self.scene.next_apply) {
                self.scene.next_apply += 1;
                continue;
            }
            let Some(r) = self.scene.waiting.remove(&self.scene.next_apply) else {
                break;
            };
            let seq = self.scene.next_apply;
            self.scene.next_apply += 1;
            let intent = self.scene.intents.remove(&seq).unwrap_or(Intent::Auto);
            match r {
                JobResult::Motion {
                    path,
                    result,
                    stamp,
                    ..
                } => match result {
                    Ok(m) => self.place_motion(*m, path, stamp, intent),
                    Err(e) => self
                        .shared
                        .error(format!("Could not open {}: {e}", path.display())),
                },
                JobResult::Model { path, result, .. } => self.place_model(path, result, intent),
                _ => {}
            }
        }
    }

    /// A motion finished loading: becomes (or replaces) a document and takes its role.
    fn place_motion(
        &mut self,
        m: Motion,
        path: PathBuf,
        stamp: Option<crate::vmd::save::DiskStamp>,
        intent: Intent,
    ) {
        let name = file_name(&path);
        self.remember_recent(&path);
        let role = MotionRole::of(&m);
        let intent = match intent {
            Intent::MergeInto(which) => {
                let s = &self.ws.scene();
                let i = which
                    .or(self.ws.selected_actor())
                    .filter(|&i| i < s.actors.len())
                    .or(if s.actors.is_empty() { None } else { Some(0) });
                match i.map(|i| (i, s.actors[i].motion)) {
                    Some((i, Some(target))) if self.doc_index(target).is_some() => {
                        self.merge_into(i, target, m, &path);
                        return;
                    }
                    // An actor without a motion simply wears the file.
                    Some((i, _)) => Intent::ActorMotion(i),
                    None => Intent::Auto,
                }
            }
            other => other,
        };
        // Replace an open, unmodified copy of the same file (keeping its id,
        // so the scene's references stay valid).
        let same = self
            .ws
            .docs()
            .iter()
            .find(|d| d.path.as_deref() == Some(path.as_path()));
        let replace = match same {
            Some(d) if !d.is_modified() => Some(d.id),
            Some(_) => {
                self.shared.error(format!(
                    "{} is already open with unsaved edits; opened it again as another file",
                    path.display()
                ));
                None
            }
            None => None,
        };
        let before = self.doc().map(|d| d.id);
        let mut new = NewDocument::new(m, Some(path.clone()), name.clone());
        new.disk_stamp = stamp;
        new.replace = replace;
        let Some(id) = self.apply(Event::Open(Box::new(new))).opened else {
            return;
        };
        let mut s = self.ws.scene().clone();
        let mut selected = self.ws.selected_actor();
        let placed = match intent {
            Intent::ActorMotion(i) if i < s.actors.len() => {
                s.actors[i].motion = Some(id);
                Some(Placed::ActorMotion {
                    index: i,
                    new: false,
                })
            }
            Intent::Camera { light_too } => {
                s.camera = Some(id);
                if light_too {
                    s.light = Some(id);
                }
                Some(Placed::Camera)
            }
            Intent::Light => {
                s.light = Some(id);
                Some(Placed::Light)
            }
            // Already in the scene (reopened): keep its roles.
            _ if s.uses(&id) => None,
            _ => Some(s.assign_motion(id, role, selected)),
        };
        if let Some(Placed::ActorMotion { index, .. }) = placed
            && (selected.is_none() || matches!(intent, Intent::Auto))
        {
            selected = Some(index);
        }
        let text = placed
            .as_ref()
            .map(|p| placed_text(&s, p))
            .unwrap_or_else(|| "again".to_owned());
        self.apply(Event::Scene(SceneEvent::Arrange {
            scene: Box::new(s),
            selected_actor: selected,
            fresh: false,
            modified: matches!(intent, Intent::Auto),
        }));
        self.shared
            .info(format!("Opened {} {text}", path.display()));
        // A camera or light does not take the key panel from a motion.
        let is_motion = matches!(role, MotionRole::Motion);
        let before_is_motion = before.is_some_and(|b| b != id && self.ws.wearer(b).is_some());
        if !is_motion
            && before_is_motion
            && let Some(b) = before
        {
            self.activate(b);
        }
    }

    /// Adds the keys of `m` (read from `path`) to the motion `target` that
    /// actor `actor` wears, as MMD loads a second motion onto a model: at
    /// frame 0, a key of the same track on the same frame replaced. One
    /// undo step; the actor's file changes on disk only when saved. Camera
    /// and light keys are not an actor's and are left out (said so).
    fn merge_into(&mut self, actor: usize, target: u64, mut m: Motion, path: &Path) {
        use crate::vmd::ops::{JoinParams, JoinPlacement, join};
        let name = file_name(path);
        let actor_name = self.ws.scene().actors[actor].name.clone();
        if m.bones.is_empty() && m.morphs.is_empty() && m.iks.is_empty() {
            self.shared.error(format!(
                "{name} holds no bone or morph keys: nothing to merge into {actor_name}'s motion \
                 (open it to use it as the scene camera or light)"
            ));
            return;
        }
        let left_out = m.cameras.len() + m.lights.len() + m.shadows.len();
        m.cameras.clear();
        m.lights.clear();
        m.shadows.clear();
        let Some(doc) = self.ws.doc(target) else {
            return;
        };
        let params = JoinParams {
            placement: JoinPlacement::At(0),
        };
        let (merged, report) = match join(&doc.motion, &m, params) {
            Ok(r) => r,
            Err(e) => {
                self.shared.error(format!(
                    "Could not merge {name} into {actor_name}'s motion: {e}"
                ));
                return;
            }
        };
        let replaced = report.dropped;
        let title = doc.title();
        let req = EditRequest::apply(
            Edit::ReplaceMotion {
                motion: Box::new(merged),
                selection: None,
            },
            format!("Merge {name}"),
        );
        self.request_on(target, vec![req]);
        self.apply(Event::Scene(SceneEvent::SelectActor(Some(actor))));
        self.activate(target);
        let mut text = format!(
            "Merged {name} into {actor_name}'s motion ({title}): {} bone, {} morph keys from frame 0",
            m.bones.len(),
            m.morphs.len()
        );
        if replaced > 0 {
            text.push_str(&format!("; {replaced} keys on the same frame replaced"));
        }
        if left_out > 0 {
            text.push_str(&format!("; its {left_out} camera/light keys left out"));
        }
        text.push_str(" (one undo step; save to keep)");
        self.shared.info(text);
    }

    /// A model finished loading (or failed): kept by path, put on an actor.
    fn place_model(
        &mut self,
        path: PathBuf,
        result: Result<Arc<ModelAsset>, String>,
        intent: Intent,
    ) {
        let name = file_name(&path);
        match result {
            Ok(asset) => {
                let s = &asset.loaded.model.skeleton;
                let (bones, iks) = (s.bones.len(), s.iks.len());
                let missing: Vec<&str> = asset
                    .loaded
                    .textures
                    .problems
                    .iter()
                    .map(|(_, n, _)| n.as_str())
                    .collect();
                let textures = if missing.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; textures missing or broken (their materials use colours): {}",
                        missing.join(", ")
                    )
                };
                self.remember_recent(&path);
                let morphs = asset.loaded.model.morphs.iter();
                let morphs = morphs.map(|m| m.name.clone()).collect();
                self.scene.model_morphs.insert(path.clone(), morphs);
                self.scene.models.insert(path.clone(), asset);
                let mut s = self.ws.scene().clone();
                let mut selected = self.ws.selected_actor();
                let (placed, modified) = match intent {
                    Intent::ActorModel(i) if i < s.actors.len() => {
                        let placed = Placed::ActorModel {
                            index: i,
                            new: false,
                        };
                        (placed, s.actors[i].model != ModelRef::File(path.clone()))
                    }
                    _ => {
                        let p = s.assign_model(ModelRef::File(path.clone()), selected);
                        if let Placed::ActorModel { index, .. } = p {
                            selected = Some(index);
                        }
                        (p, true)
                    }
                };
                if let Placed::ActorModel { index, .. } = placed {
                    s.actors[index].model = ModelRef::File(path.clone());
                }
                let text = placed_text(&s, &placed);
                self.apply(Event::Scene(SceneEvent::Arrange {
                    scene: Box::new(s),
                    selected_actor: selected,
                    fresh: false,
                    modified,
                }));
                self.shared.info(format!(
                    "Loaded {name} {text}: {bones} bones, {iks} IK chains{textures}"
                ));
            }
            Err(e) => {
                let mut s = self.ws.scene().clone();
                let who = match intent {
                    Intent::ActorModel(i) => s.actors.get_mut(i),
                    _ => None,
                };
                let note = match who {
                    Some(a) => {
                        a.model = ModelRef::Builtin;
                        let note = format!("; {} shows the built-in skeleton", a.name);
                        let selected_actor = self.ws.selected_actor();
                        self.apply(Event::Scene(SceneEvent::Arrange {
                            scene: Box::new(s),
                            selected_actor,
                            fresh: false,
                            modified: false,
                        }));
                        note
                    }
                    None => String::new(),
                };
                self.shared.error(format!(
                    "Could not load model {}: {e}{note}",
                    path.display()
                ));
            }
        }
    }

    /// Opens a motion as a new document (a toolbox result, a test's file)
    /// and places it in the scene by what it holds, as a file opened from
    /// disk would be; returns its id.
    pub fn open_motion(&mut self, m: Motion, path: Option<PathBuf>, name: &str) -> Option<u64> {
        let new = NewDocument::new(m, path, name);
        let id = self.apply(Event::Open(Box::new(new))).opened?;
        self.place_new(id);
        Some(id)
    }

    /// Places a document the scene does not use yet by what it holds.
    pub(super) fn place_new(&mut self, id: u64) {
        let Some(d) = self.ws.doc(id) else {
            return;
        };
        let role = MotionRole::of(&d.motion);
        let mut s = self.ws.scene().clone();
        let mut selected = self.ws.selected_actor();
        if s.uses(&id) {
            return;
        }
        if let Placed::ActorMotion { index, .. } = s.assign_motion(id, role, selected) {
            selected = Some(index);
        }
        self.apply(Event::Scene(SceneEvent::Arrange {
            scene: Box::new(s),
            selected_actor: selected,
            fresh: false,
            modified: false,
        }));
    }

    /// The document with this id, by index.
    pub fn doc_index(&self, id: u64) -> Option<usize> {
        self.ws.doc_index(id)
    }

    /// A fresh scene (the current one's unmodified documents are closed;
    /// modified ones stay open, outside the scene, so nothing is lost).
    pub(super) fn clear_scene(&mut self) {
        let unmodified: Vec<u64> = self
            .ws
            .docs()
            .iter()
            .filter(|d| !d.is_modified())
            .map(|d| d.id)
            .collect();
        for id in unmodified {
            self.apply(Event::Close(id));
        }
        self.apply(Event::Scene(SceneEvent::Arrange {
            scene: Box::default(),
            selected_actor: None,
            fresh: true,
            modified: false,
        }));
        self.scene.path = None;
    }

    /// Opens the bundled demo as a scene: the demo dance on the built-in
    /// skeleton, framed by the demo camera, seen through that camera.
    pub fn open_demo(&mut self) {
        self.clear_scene();
        let mut ids = Vec::new();
        for (bytes, name) in [
            (super::DEMO_DANCE, "demo_dance.vmd"),
            (super::DEMO_CAMERA, "demo_camera.vmd"),
        ] {
            match vmd::read(bytes) {
                Ok(m) => {
                    let new = NewDocument::new(m, None, name);
                    ids.push(self.apply(Event::Open(Box::new(new))).opened);
                }
                Err(e) => {
                    self.shared.error(format!("bundled demo {name}: {e}"));
                    ids.push(None);
                }
            }
        }
        let mut s = Scene::default();
        let a = s.add_actor();
        s.actors[a].name = "Demo dancer".to_owned();
        s.actors[a].motion = ids[0];
        s.camera = ids[1];
        self.apply(Event::Scene(SceneEvent::Arrange {
            scene: Box::new(s),
            selected_actor: Some(a),
            fresh: true,
            modified: false,
        }));
        if let Some(id) = ids[0] {
            self.activate(id);
        }
        self.viewport.view.mode = ViewMode::VmdCamera;
    }

    /// Opens a `.vmdscene` file: its motions and models load in the
    /// background into their roles; a missing file is reported and the
    /// rest opens.
    pub fn open_scene(&mut self, path: &Path) {
        let loaded = match scene::file::load(path) {
            Ok(l) => l,
            Err(e) => {
                self.shared.error(format!("Could not open the scene: {e}"));
                return;
            }
        };
        self.clear_scene();
        for m in &loaded.missing {
            self.shared.error(format!("Scene {}: {m}", file_name(path)));
        }
        let src = loaded.scene;
        let mut s: Scene<u64> = Scene {
            song: src.song.clone(),
            preview: src.preview.clone(),
            ..Scene::default()
        };
        for a in &src.actors {
            s.actors.push(scene::Actor {
                name: a.name.clone(),
                model: a.model.clone(),
                motion: None,
                offset: a.offset,
            });
        }
        self.apply(Event::Scene(SceneEvent::Arrange {
            scene: Box::new(s),
            selected_actor: (!src.actors.is_empty()).then_some(0),
            fresh: true,
            modified: false,
        }));
        for (i, a) in src.actors.iter().enumerate() {
            if let ModelRef::File(p) = &a.model
                && !self.scene.models.contains_key(p)
            {
                self.open_for(p.clone(), Intent::ActorModel(i));
            }
            if let Some(m) = &a.motion {
                self.open_for(m.clone(), Intent::ActorMotion(i));
            }
        }
        match (&src.camera, &src.light) {
            (Some(c), Some(l)) if c == l => {
                self.open_for(c.clone(), Intent::Camera { light_too: true });
            }
            (c, l) => {
                if let Some(c) = c {
                    self.open_for(c.clone(), Intent::Camera { light_too: false });
                }
                if let Some(l) = l {
                    self.open_for(l.clone(), Intent::Light);
                }
            }
        }
        let p = &src.preview;
        self.transport(TransportEvent::SetRate(p.rate));
        self.transport(TransportEvent::Seek(f64::from(p.frame)));
        self.viewport.view.mode = if p.through_camera {
            ViewMode::VmdCamera
        } else {
            ViewMode::Free
        };
        self.central = CentralView::Preview;
        self.scene.path = Some(path.to_path_buf());
        self.remember_recent(path);
        self.shared.info(format!(
            "Opened scene {} ({} actors{})",
            path.display(),
            src.actors.len(),
            if loaded.missing.is_empty() {
                String::new()
            } else {
                format!(", {} files missing", loaded.missing.len())
            }
        ));
    }

    /// Saves the scene file at `path`, and with it every scene motion that
    /// has unsaved edits (to its own file) or no file yet (beside the
    /// scene, under its name). A motion without edits is never rewritten.
    /// Says which files it saved; returns the documents it started saving
    /// and where (`None`: the scene was not saved).
    pub fn save_scene_to(&mut self, path: PathBuf) -> Option<Vec<(u64, PathBuf)>> {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut targets: HashMap<u64, PathBuf> = HashMap::new();
        let mut to_save: Vec<(u64, PathBuf)> = Vec::new();
        for id in self.ws.scene().motions() {
            let Some(d) = self.ws.docs().iter().find(|d| d.id == id) else {
                continue;
            };
            match &d.path {
                Some(p) => {
                    targets.insert(id, p.clone());
                    if d.is_modified() {
                        to_save.push((id, p.clone()));
                    }
                }
                None => {
                    let mut name = d.name.clone();
                    if !name.to_ascii_lowercase().ends_with(".vmd") {
                        name.push_str(".vmd");
                    }
                    let p = dir.join(&name);
                    if p.exists() {
                        self.shared.error(format!(
                            "Scene not saved: {name} has never been saved and {} already exists; \
                             save it under another name first (File ▸ Save As)",
                            p.display()
                        ));
                        return None;
                    }
                    targets.insert(id, p.clone());
                    to_save.push((id, p));
                }
            }
        }
        let mut scene = self.ws.scene().map(|id| targets.get(id).cloned());
        let t = self.ws.transport();
        scene.preview.rate = t.preview_rate;
        scene.preview.frame = t.frame.max(0.0).floor() as u32;
        scene.preview.through_camera = self.viewport.view.mode == ViewMode::VmdCamera;
        if let Err(e) = scene::file::save(&scene, &path) {
            self.shared
                .error(format!("Scene not saved, nothing was lost: {e}"));
            return None;
        }
        let names: Vec<String> = to_save.iter().map(|(_, p)| file_name(p)).collect();
        for (id, p) in &to_save {
            self.save_doc_to(*id, p.clone());
        }
        self.scene.path = Some(path.clone());
        self.apply(Event::SceneSaved);
        self.remember_recent(&path);
        let motions = if names.is_empty() {
            "; no motion had unsaved edits".to_owned()
        } else {
            format!(" and {} motion file(s): {}", names.len(), names.join(", "))
        };
        self.shared
            .info(format!("Saved scene {}{motions}", path.display()));
        Some(to_save)
    }
}

impl StudioApp {
    /// What the viewport shows: the scene's actors and camera.
    pub fn scene_view(&self) -> super::panels::viewport::SceneView<'_> {
        scene_view(&self.ws, &self.scene)
    }
}

/// What the viewport shows, from the open documents and the scene.
pub fn scene_view<'a>(
    ws: &'a Workspace,
    sc: &'a SceneState,
) -> super::panels::viewport::SceneView<'a> {
    {
        use super::panels::viewport::{ActorView, SceneView};
        let doc = |id: Option<u64>| id.and_then(|id| ws.doc(id));
        SceneView {
            actors: ws
                .scene()
                .actors
                .iter()
                .map(|a| ActorView {
                    name: &a.name,
                    model_path: match &a.model {
                        crate::scene::ModelRef::File(p) => Some(p.as_path()),
                        crate::scene::ModelRef::Builtin => None,
                    },
                    model: match &a.model {
                        crate::scene::ModelRef::File(p) => sc.models.get(p),
                        crate::scene::ModelRef::Builtin => None,
                    },
                    rig: sc.rig_for(&a.model),
                    motion: doc(a.motion),
                    offset: a.offset,
                })
                .collect(),
            camera: doc(ws.scene().camera),
            light: doc(ws.scene().light),
            selected: ws.selected_actor(),
        }
    }
}

impl StudioApp {
    /// When `new` (a toolbox result for document `doc_id`) has bone (or
    /// morph) tracks that the document did not have and the model of the
    /// actor wearing it lacks (e.g. mirroring onto a model without 右目),
    /// says which. Morphs are checked when the model's morph list is known.
    pub fn bones_the_model_lacks(&self, doc_id: u64, new: &Motion) -> Option<String> {
        let i = self
            .ws
            .scene()
            .actors
            .iter()
            .position(|a| a.motion == Some(doc_id))?;
        let doc = self.ws.docs().iter().find(|d| d.id == doc_id)?;
        // What the new motion uses that the model lacks (the pose engine's
        // rule), less what the document already used: only new tracks.
        let idx = crate::vmd::TrackIndex::build(new);
        let rig = self.scene.rig_for(&self.ws.scene().actors[i].model);
        let now = crate::model::missing_names(rig, &idx);
        let before = crate::model::missing_names(rig, &doc.index);
        let fresh = |now: Vec<String>, before: &[String]| -> Vec<String> {
            let before: HashSet<&str> = before.iter().map(String::as_str).collect();
            now.into_iter()
                .filter(|n| !before.contains(n.as_str()))
                .collect()
        };
        let missing = fresh(now.bones, &before.bones);
        // Morphs are checked when the model's morph list is known.
        let missing_morphs = match self.scene.morphs_for(&self.ws.scene().actors[i].model) {
            Some(_) => fresh(now.morphs, &before.morphs),
            None => Vec::new(),
        };
        if missing.is_empty() && missing_morphs.is_empty() {
            return None;
        }
        let a = &self.ws.scene().actors[i];
        let mut parts = Vec::new();
        if !missing.is_empty() {
            parts.push(format!("{} bone track(s)", missing.len()));
        }
        if !missing_morphs.is_empty() {
            parts.push(format!("{} morph track(s)", missing_morphs.len()));
        }
        let names: Vec<&str> = missing
            .iter()
            .map(String::as_str)
            .chain(missing_morphs.iter().map(String::as_str))
            .collect();
        Some(format!(
            "created {} that {}'s model ({}) lacks: {}",
            parts.join(" and "),
            a.name,
            a.model.display_name(),
            names.join(", ")
        ))
    }
}
