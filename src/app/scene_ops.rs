//! The scene in the app: which open documents the actors wear, which one is
//! the camera and which the light; opening files into their roles (in the
//! order asked for, whatever order they finish loading in); `.vmdscene`
//! files; and one undo order across the scene's documents.
//!
//! Each VMD stays its own [`Document`] with its own history and modified
//! mark; the scene ([`crate::scene::Scene`], keyed by document id) only
//! arranges them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::document::{Document, Edit, EditRequest};
use super::jobs::JobResult;
use super::panels::viewport::ViewMode;
use super::{CentralView, StudioApp};
use crate::model::{Model, Skeleton};
use crate::render::asset::ModelAsset;
use crate::scene::{self, ModelRef, MotionRole, Placed, Scene};
use crate::vmd::{self, Motion};

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

/// The scene and what the app keeps beside it.
pub struct SceneState {
    /// The arrangement, by document id.
    pub scene: Scene<u64>,
    /// The actor that menus and drops act on.
    pub selected_actor: Option<usize>,
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
    /// The arrangement changed since it was last saved or opened.
    pub modified: bool,
    /// Documents the scene has placed (others are adopted by their kind).
    pub(super) known: HashSet<u64>,
    /// What each pending open request is for, by its sequence number.
    intents: HashMap<u64, Intent>,
    /// Results that finished before an earlier request: applied in order.
    waiting: BTreeMap<u64, JobResult>,
    /// Requests applied (or dropped) out of order: the queue skips them.
    skipped: HashSet<u64>,
    /// The sequence number to apply next.
    next_apply: u64,
    /// Scene-wide undo: the documents whose undo steps one action made
    /// (several for an action across timeline sections), oldest first.
    /// One undo takes back a whole group.
    pub(super) undo_order: Vec<Vec<u64>>,
    pub(super) redo_order: Vec<Vec<u64>>,
}

impl Default for SceneState {
    fn default() -> Self {
        SceneState {
            scene: Scene::default(),
            selected_actor: None,
            path: None,
            models: HashMap::new(),
            model_morphs: HashMap::new(),
            model_loads: HashMap::new(),
            builtin: crate::model::standard_model(),
            modified: false,
            known: HashSet::new(),
            intents: HashMap::new(),
            waiting: BTreeMap::new(),
            skipped: HashSet::new(),
            next_apply: 1,
            undo_order: Vec::new(),
            redo_order: Vec::new(),
        }
    }
}

impl SceneState {
    /// The skeleton actor `i` shows: its model's, or the built-in one
    /// (also while the model is loading or when it failed).
    pub fn skeleton_of(&self, i: usize) -> &Skeleton {
        &self.rig_of(i).skeleton
    }

    /// The model actor `i` is posed with: its file's, or the built-in
    /// skeleton (also while the model is loading or when it failed).
    pub fn rig_of(&self, i: usize) -> &Model {
        match self.scene.actors.get(i).map(|a| &a.model) {
            Some(ModelRef::File(p)) => self
                .models
                .get(p)
                .map_or(&self.builtin, |m| &m.loaded.model),
            _ => &self.builtin,
        }
    }

    /// The morph names of actor `i`'s model; `None` for the built-in
    /// skeleton (it has no morphs to check against) and while loading.
    pub fn morphs_of(&self, i: usize) -> Option<&[String]> {
        match self.scene.actors.get(i).map(|a| &a.model) {
            Some(ModelRef::File(p)) => self.model_morphs.get(p).map(Vec::as_slice),
            _ => None,
        }
    }

    /// Whether actor `i`'s model file is loaded (false for the built-in skeleton).
    pub fn model_loaded(&self, i: usize) -> bool {
        matches!(self.scene.actors.get(i).map(|a| &a.model),
            Some(ModelRef::File(p)) if self.models.contains_key(p))
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
    pub fn open_paths(&mut self, paths: Vec<PathBuf>) {
        for p in paths {
            if scene::file::is_scene_path(&p) {
                self.open_scene(&p);
            } else if super::song::is_song_path(&p) {
                self.load_song(p);
            } else {
                self.open_for(p, Intent::Auto);
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
                let s = &self.scene.scene;
                let i = which
                    .or(self.scene.selected_actor)
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
        let id = match self
            .docs
            .iter()
            .position(|d| d.path.as_deref() == Some(path.as_path()))
        {
            Some(i) if !self.docs[i].is_modified() => {
                let id = self.docs[i].id;
                let mut d = Document::new(m, Some(path.clone()), name.clone());
                d.id = id;
                d.disk_stamp = stamp;
                self.docs[i] = d;
                id
            }
            Some(_) => {
                self.shared.error(format!(
                    "{} is already open with unsaved edits; opened it again as another file",
                    path.display()
                ));
                let mut d = Document::new(m, Some(path.clone()), name.clone());
                d.disk_stamp = stamp;
                self.push_doc(d)
            }
            None => {
                let mut d = Document::new(m, Some(path.clone()), name.clone());
                d.disk_stamp = stamp;
                self.push_doc(d)
            }
        };
        self.scene.known.insert(id);
        let s = &mut self.scene.scene;
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
            _ => Some(s.assign_motion(id, role, self.scene.selected_actor)),
        };
        if matches!(intent, Intent::Auto) {
            self.scene.modified = true;
        }
        if let Some(Placed::ActorMotion { index, .. }) = placed
            && (self.scene.selected_actor.is_none() || matches!(intent, Intent::Auto))
        {
            self.scene.selected_actor = Some(index);
        }
        let text = placed
            .as_ref()
            .map(|p| placed_text(&self.scene.scene, p))
            .unwrap_or_else(|| "again".to_owned());
        self.shared
            .info(format!("Opened {} {text}", path.display()));
        // A camera or light does not take the key panel from a motion.
        let is_motion = matches!(role, MotionRole::Motion);
        let active_is_motion = self.doc().is_some_and(|d| {
            d.id != id
                && self
                    .scene
                    .scene
                    .actors
                    .iter()
                    .any(|a| a.motion == Some(d.id))
        });
        if (is_motion || !active_is_motion)
            && let Some(i) = self.docs.iter().position(|d| d.id == id)
        {
            self.active = i;
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
        let actor_name = self.scene.scene.actors[actor].name.clone();
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
        let Some(k) = self.doc_index(target) else {
            return;
        };
        let doc = &self.docs[k];
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
        self.active = k;
        self.scene.selected_actor = Some(actor);
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
                let placed = match intent {
                    Intent::ActorModel(i) if i < self.scene.scene.actors.len() => {
                        self.scene.scene.actors[i].model = ModelRef::File(path.clone());
                        Placed::ActorModel {
                            index: i,
                            new: false,
                        }
                    }
                    _ => {
                        let p = self
                            .scene
                            .scene
                            .assign_model(ModelRef::File(path.clone()), self.scene.selected_actor);
                        if let Placed::ActorModel { index, .. } = p {
                            self.scene.selected_actor = Some(index);
                        }
                        self.scene.modified = true;
                        p
                    }
                };
                let text = placed_text(&self.scene.scene, &placed);
                self.shared.info(format!(
                    "Loaded {name} {text}: {bones} bones, {iks} IK chains{textures}"
                ));
            }
            Err(e) => {
                let who = match intent {
                    Intent::ActorModel(i) => self.scene.scene.actors.get_mut(i),
                    _ => None,
                };
                let note = match who {
                    Some(a) => {
                        a.model = ModelRef::Builtin;
                        format!("; {} shows the built-in skeleton", a.name)
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

    fn push_doc(&mut self, d: Document) -> u64 {
        let id = d.id;
        self.docs.push(d);
        id
    }

    /// Places documents the scene has not seen yet (a toolbox result, a
    /// test's document) by what they hold. Runs at the start of each frame.
    pub(super) fn adopt_new_documents(&mut self) {
        let new: Vec<(u64, MotionRole)> = self
            .docs
            .iter()
            .filter(|d| !self.scene.known.contains(&d.id))
            .map(|d| (d.id, MotionRole::of(&d.motion)))
            .collect();
        for (id, role) in new {
            self.scene.known.insert(id);
            if let Placed::ActorMotion { index, .. } =
                self.scene
                    .scene
                    .assign_motion(id, role, self.scene.selected_actor)
            {
                self.scene.selected_actor = Some(index);
            }
        }
        if self
            .scene
            .selected_actor
            .is_some_and(|i| i >= self.scene.scene.actors.len())
        {
            self.scene.selected_actor = self.scene.scene.actors.len().checked_sub(1);
        }
    }

    /// The document with this id, by index.
    pub fn doc_index(&self, id: u64) -> Option<usize> {
        self.docs.iter().position(|d| d.id == id)
    }

    /// A fresh scene (the current one's unmodified documents are closed;
    /// modified ones stay open, outside the scene, so nothing is lost).
    pub(super) fn clear_scene(&mut self) {
        self.docs.retain(|d| d.is_modified());
        self.scene.scene = Scene::default();
        self.scene.selected_actor = None;
        self.scene.path = None;
        self.scene.modified = false;
        self.scene.undo_order.clear();
        self.scene.redo_order.clear();
        self.active = 0;
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
                    let id = self.push_doc(Document::new(m, None, name));
                    self.scene.known.insert(id);
                    ids.push(Some(id));
                }
                Err(e) => {
                    self.shared.error(format!("bundled demo {name}: {e}"));
                    ids.push(None);
                }
            }
        }
        let s = &mut self.scene.scene;
        let a = s.add_actor();
        s.actors[a].name = "Demo dancer".to_owned();
        s.actors[a].motion = ids[0];
        s.camera = ids[1];
        self.scene.selected_actor = Some(a);
        self.scene.modified = false;
        self.active = ids[0].and_then(|id| self.doc_index(id)).unwrap_or(0);
        self.viewport.mode = ViewMode::VmdCamera;
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
        self.scene.scene = s;
        self.scene.selected_actor = (!src.actors.is_empty()).then_some(0);
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
        self.shared.transport.preview_rate = p.rate;
        self.shared.transport.frame = f64::from(p.frame);
        self.viewport.mode = if p.through_camera {
            ViewMode::VmdCamera
        } else {
            ViewMode::Free
        };
        self.central = CentralView::Preview;
        self.scene.path = Some(path.to_path_buf());
        self.scene.modified = false;
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
    pub fn save_scene_to(&mut self, path: PathBuf) {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut targets: HashMap<u64, PathBuf> = HashMap::new();
        let mut to_save: Vec<(u64, PathBuf)> = Vec::new();
        for id in self.scene.scene.motions() {
            let Some(d) = self.docs.iter().find(|d| d.id == id) else {
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
                        return;
                    }
                    targets.insert(id, p.clone());
                    to_save.push((id, p));
                }
            }
        }
        let mut scene = self.scene.scene.map(|id| targets.get(id).cloned());
        scene.preview.rate = self.shared.transport.preview_rate;
        scene.preview.frame = self.shared.transport.frame.max(0.0).floor() as u32;
        scene.preview.through_camera = self.viewport.mode == ViewMode::VmdCamera;
        if let Err(e) = scene::file::save(&scene, &path) {
            self.shared
                .error(format!("Scene not saved, nothing was lost: {e}"));
            return;
        }
        for (id, p) in to_save {
            self.save_doc_to(id, p);
        }
        self.scene.path = Some(path.clone());
        self.scene.modified = false;
        self.remember_recent(&path);
        self.shared.info(format!("Saved scene {}", path.display()));
    }
}

impl StudioApp {
    /// What the viewport shows: the scene's actors and camera.
    pub fn scene_view(&self) -> super::panels::viewport::SceneView<'_> {
        scene_view(&self.docs, &self.scene)
    }
}

/// What the viewport shows, from the open documents and the scene.
pub fn scene_view<'a>(
    docs: &'a [Document],
    sc: &'a SceneState,
) -> super::panels::viewport::SceneView<'a> {
    {
        use super::panels::viewport::{ActorView, SceneView};
        let doc = |id: Option<u64>| id.and_then(|id| docs.iter().find(|d| d.id == id));
        SceneView {
            actors: sc
                .scene
                .actors
                .iter()
                .enumerate()
                .map(|(i, a)| ActorView {
                    name: &a.name,
                    model_path: match &a.model {
                        crate::scene::ModelRef::File(p) => Some(p.as_path()),
                        crate::scene::ModelRef::Builtin => None,
                    },
                    model: match &a.model {
                        crate::scene::ModelRef::File(p) => sc.models.get(p),
                        crate::scene::ModelRef::Builtin => None,
                    },
                    rig: sc.rig_of(i),
                    motion: doc(a.motion),
                    offset: a.offset,
                })
                .collect(),
            camera: doc(sc.scene.camera),
            light: doc(sc.scene.light),
            selected: sc.selected_actor,
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
            .scene
            .scene
            .actors
            .iter()
            .position(|a| a.motion == Some(doc_id))?;
        let doc = self.docs.iter().find(|d| d.id == doc_id)?;
        // What the new motion uses that the model lacks (the pose engine's
        // rule), less what the document already used: only new tracks.
        let idx = crate::vmd::TrackIndex::build(new);
        let rig = self.scene.rig_of(i);
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
        let missing_morphs = match self.scene.morphs_of(i) {
            Some(_) => fresh(now.morphs, &before.morphs),
            None => Vec::new(),
        };
        if missing.is_empty() && missing_morphs.is_empty() {
            return None;
        }
        let a = &self.scene.scene.actors[i];
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
