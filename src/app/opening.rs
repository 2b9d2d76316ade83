//! Opening: files, scenes, projects, the demo, songs and toolbox results
//! into the workspace. Each file takes its role through the workspace's
//! placing rules ([`placing`]); the loads run in the background and are
//! put in order by [`scene_ops::SceneState`]. [`Opening`] borrows only
//! what opening touches.

use super::CentralView;
use super::Files;
use super::Panels;
use super::edits;
use super::jobs::JobResult;
use super::jobs::Jobs;
use super::panels;
use super::panels::Shared;
use super::panels::scene_missing::files;
use super::panels::viewport::ViewMode;
use super::scene_ops::{self, Intent, Ready};
use crate::render::asset::ModelAsset;
use crate::scene;
use crate::scene::ModelRef;
use crate::vmd::{self, Motion};
use crate::workspace::SceneEvent;
use crate::workspace::Workspace;
use crate::workspace::document::{self, Document, EditRequest};
use crate::workspace::files::{FileKind, songs_only};
use crate::workspace::placing::{self, file_name};
use crate::workspace::{Changes, Event, NewDocument};
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

/// What opening a file touches: the workspace and the status messages,
/// the models and pending opens, the load jobs, the views a scene or
/// project sets up, and the recent list.
pub struct Opening<'a> {
    pub ws: &'a mut Workspace,
    pub shared: &'a mut Shared,
    pub scene: &'a mut scene_ops::SceneState,
    pub jobs: &'a mut Jobs,
    pub panels: &'a mut Panels,
    pub files: &'a mut Files,
}

impl Opening<'_> {
    /// Applies an event (see [`edits::apply`]).
    fn apply(&mut self, e: Event) -> Changes {
        edits::apply(self.ws, self.shared, e)
    }

    /// Opens files in the background; they take their roles in the order
    /// given, whatever order they finish loading in. A `.vmdscene` file
    /// opens as a scene. A song goes under the bundled demo scene only when
    /// it comes alone into an empty window (nothing open, nothing loading):
    /// with a model, a motion or a scene file beside it, those are the scene.
    pub fn open_paths(&mut self, paths: Vec<PathBuf>) {
        let under_demo = songs_only(&paths);
        for p in paths {
            match FileKind::of(&p) {
                FileKind::Scene => self.open_scene(&p),
                FileKind::Project => self.open_project(&p),
                FileKind::Song if under_demo => self.load_song(p),
                FileKind::Song => self.load_song_into_scene(p),
                FileKind::Accessory => self.add_accessory(p),
                FileKind::Model | FileKind::Motion => self.open_for(p, Intent::Auto),
            }
        }
    }

    /// Adds a stage or prop to the set (one undo step) and loads it for
    /// drawing.
    pub fn add_stage(&mut self, path: PathBuf) {
        // The stage's floor takes the grid's place (it can be shown again
        // from each view's bar).
        if self.ws.scene().set.props.is_empty() {
            self.panels.viewport.view.show_grid = false;
            self.panels.viewport.second.show_grid = false;
        }
        self.apply(Event::Scene(SceneEvent::AddProp(path.clone())));
        if !self.scene.models.contains_key(&path) {
            self.open_for(path, Intent::SetPiece);
        }
    }

    /// Adds an accessory to the set (one undo step): a `.x` at MMD's
    /// defaults, or a `.vac` placed as it says and attached to its bone on
    /// the first actor whose loaded model has it. Loads the `.x` for drawing.
    pub fn add_accessory(&mut self, path: PathBuf) {
        let (mut acc, bone) = match crate::scene::set::open_accessory_file(&path) {
            Ok(a) => a,
            Err(e) => {
                self.shared
                    .error(format!("Could not add the accessory: {e}"));
                return;
            }
        };
        let mut waits = None;
        if let Some(bone) = bone {
            match self.actor_with_bone(&bone) {
                Some(actor) => acc.state.parent = crate::scene::set::Parent::Bone { actor, bone },
                // A model opened with it is still loading: attached when
                // it arrives (see `attach_waiting`).
                None if self.scene.pending() => waits = Some(bone),
                None => self.shared.error(format!(
                    "{}: no actor's model has the bone {bone}; the accessory is placed in the world",
                    path.display()
                )),
            }
        }
        let x = acc.path.clone();
        self.apply(Event::Scene(SceneEvent::AddAccessory(Box::new(acc))));
        if let Some(bone) = waits {
            let slot = self.ws.scene().set.accessories.len().saturating_sub(1);
            (self.scene.attach_waiting).push((slot, x.clone(), bone, path));
        }
        if !self.scene.models.contains_key(&x) {
            self.open_for(x, Intent::SetPiece);
        }
    }

    /// The first actor whose model has a bone named `bone` (the built-in
    /// skeleton counts; a model file still loading does not).
    fn actor_with_bone(&self, bone: &str) -> Option<usize> {
        self.ws.scene().actors.iter().position(|a| {
            (a.model == ModelRef::Builtin || self.scene.loaded(&a.model))
                && (self.scene.rig_for(&a.model).skeleton.bones)
                    .iter()
                    .any(|b| b.name == bone)
        })
    }

    /// After a model load: each accessory waiting for its `.vac`'s bone is
    /// attached to the first actor now holding that bone (one undo step
    /// each, "Accessory placement"); once nothing is loading, those still
    /// waiting are named and stay in the world.
    fn attach_waiting(&mut self) {
        let waiting = std::mem::take(&mut self.scene.attach_waiting);
        for (slot, x, bone, vac) in waiting {
            let acc = self.ws.scene().set.accessories.get(slot);
            let Some(acc) = acc.filter(|a| a.path == x) else {
                continue; // removed (or replaced) meanwhile
            };
            let mut state = acc.state.clone();
            match self.actor_with_bone(&bone) {
                Some(actor) => {
                    state.parent = crate::scene::set::Parent::Bone { actor, bone };
                    let e = SceneEvent::SetAccessoryState(slot, Box::new(state));
                    self.apply(Event::Scene(e));
                }
                None if self.scene.pending() => {
                    self.scene.attach_waiting.push((slot, x, bone, vac));
                }
                None => self.shared.error(format!(
                    "{}: no actor's model has the bone {bone}; the accessory is placed in the world",
                    vac.display()
                )),
            }
        }
    }

    /// Opens one file for a given role.
    pub fn open_for(&mut self, path: PathBuf, intent: Intent) {
        self.scene.open_for(self.jobs, path, intent);
    }

    /// A finished load: what is ready takes its role, in the order asked for.
    pub fn queue_loaded(&mut self, seq: u64, r: JobResult) {
        for ready in self.scene.take_loaded(seq, r) {
            match ready {
                Ready::NotAModel(path) => self.shared.error(format!(
                    "{} is not a model (PMX or PMD); the actor keeps its model",
                    path.display()
                )),
                Ready::Place(
                    JobResult::Motion {
                        path,
                        result,
                        stamp,
                        ..
                    },
                    intent,
                ) => match result {
                    Ok(m) => self.place_motion(*m, path, stamp, intent),
                    Err(e) => self
                        .shared
                        .error(format!("Could not open {}: {e}", path.display())),
                },
                Ready::Place(JobResult::Model { path, result, .. }, intent) => {
                    self.place_model(path, result, intent)
                }
                Ready::Place(..) => {}
            }
        }
        if !self.scene.attach_waiting.is_empty() {
            self.attach_waiting();
        }
    }

    /// A motion finished loading: becomes (or replaces) a document and
    /// takes its role, or merges into an actor's motion.
    fn place_motion(
        &mut self,
        m: Motion,
        path: PathBuf,
        stamp: Option<vmd::save::DiskStamp>,
        intent: Intent,
    ) {
        self.files.remember(&path);
        let intent = match intent {
            Intent::MergeInto(which) => match placing::merge_target(self.ws, which) {
                Ok((actor, target)) => {
                    match placing::merge_events(self.ws, actor, target, m, &file_name(&path)) {
                        Ok((events, text)) => {
                            for e in events {
                                self.apply(e);
                            }
                            self.shared.info(text);
                        }
                        Err(e) => self.shared.error(e),
                    }
                    return;
                }
                Err(instead) => instead,
            },
            other => other,
        };
        let (mut new, note) = placing::open_file(self.ws, m, &path, intent);
        new.disk_stamp = stamp;
        if let Some(n) = note {
            self.shared.error(n);
        }
        self.apply(Event::Open(Box::new(new)));
    }

    /// A model finished loading (or failed): kept by path, put on an actor.
    fn place_model(
        &mut self,
        path: PathBuf,
        result: Result<Arc<ModelAsset>, String>,
        intent: Intent,
    ) {
        if intent == Intent::SetPiece {
            // The arrangement already names it: kept for drawing only.
            match result {
                Ok(asset) => {
                    let (v, t) = (
                        asset.loaded.model.positions.len(),
                        asset.loaded.model.indices.len() / 3,
                    );
                    let missing = asset.loaded.textures.missing().len();
                    let note = if missing == 0 {
                        String::new()
                    } else {
                        format!("; {missing} texture(s) missing (their materials use colours)")
                    };
                    self.scene.keep_model(path.clone(), asset);
                    self.shared.info(format!(
                        "Loaded {} into the set: {v} vertices, {t} triangles{note}",
                        file_name(&path)
                    ));
                }
                Err(e) => self.shared.error(format!(
                    "Could not load {} for the set (it stays listed, not drawn): {e}",
                    path.display()
                )),
            }
            return;
        }
        match result {
            Ok(asset) => {
                self.files.remember(&path);
                let summary = scene_ops::model_summary(&asset);
                self.scene.keep_model(path.clone(), asset);
                let (e, text) = placing::model_loaded(self.ws, &path, intent);
                self.apply(e);
                self.shared
                    .info(format!("Loaded {} {text}: {summary}", file_name(&path)));
            }
            Err(e) => {
                let (event, note) = placing::model_failed(self.ws, intent);
                if let Some(event) = event {
                    self.apply(event);
                }
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
        let mut new = NewDocument::new(m, path, name);
        new.place = Some(Intent::Auto);
        self.apply(Event::Open(Box::new(new))).opened
    }

    /// Opens the bundled demo as a scene: the demo dance on the built-in
    /// skeleton, framed by the demo camera, seen through that camera.
    pub fn open_demo(&mut self) {
        let read = |bytes: &[u8], name: &str| {
            vmd::read(bytes).map_err(|e| format!("bundled demo {name}: {e}"))
        };
        match (
            read(super::DEMO_DANCE, "demo_dance.vmd"),
            read(super::DEMO_CAMERA, "demo_camera.vmd"),
        ) {
            (Ok(dance), Ok(camera)) => {
                let events = placing::demo_events(
                    self.ws,
                    (dance, "demo_dance.vmd"),
                    (camera, "demo_camera.vmd"),
                );
                for e in events {
                    self.apply(e);
                }
                self.scene.path = None;
                self.panels.viewport.view.mode = ViewMode::VmdCamera;
            }
            (Err(e), _) | (_, Err(e)) => self.shared.error(e),
        }
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
        for m in &loaded.missing {
            self.shared.error(format!("Scene {}: {m}", file_name(path)));
        }
        let src = loaded.scene;
        let (events, opens) = placing::scene_file_events(self.ws, &src);
        for e in events {
            self.apply(e);
        }
        for (p, intent) in opens {
            // A model already loaded is on its actor (or in the set) already.
            if matches!(intent, Intent::ActorModel(_) | Intent::SetPiece)
                && self.scene.models.contains_key(&p)
            {
                continue;
            }
            self.open_for(p, intent);
        }
        // A scene with a stage: its floor takes the grid's place.
        if !src.set.props.is_empty() {
            self.panels.viewport.view.show_grid = false;
            self.panels.viewport.second.show_grid = false;
        }
        self.panels.viewport.view.mode = if src.preview.through_camera {
            ViewMode::VmdCamera
        } else {
            ViewMode::Free
        };
        // The scene's physics, when it says (an older scene keeps the
        // user's mode).
        if let Some(mode) = src.preview.physics {
            self.panels.viewport.posing.physics = mode;
            // Saved beside the mode: whether the actors' bodies collide.
            self.panels.viewport.posing.collide_actors = src.preview.collide_actors;
        }
        self.panels.central = CentralView::Preview;
        self.scene.path = Some(path.to_path_buf());
        self.scene.project = None;
        self.files.remember(path);
        self.shared.info(format!(
            "Opened scene {} ({} actors{})",
            path.display(),
            src.actors.len(),
            if loaded.missing.is_empty() {
                String::new()
            } else {
                format!(", {} missing", files(loaded.missing.len()))
            }
        ));
    }

    /// Opens an MMD project (`.pmm`) as a scene: an actor per model wearing
    /// a new, unsaved motion made of the project's keys, the camera and
    /// light as one new document, the accessories in the set with their
    /// keys, the song, the play range and (v2) the physics mode
    /// ([`crate::project::scene::project_events`]). The models and
    /// accessories load in the background; what is missing, and what the
    /// project holds that the scene does not use, is named.
    pub fn open_project(&mut self, path: &Path) {
        use crate::project;
        // A v1 project names bones and morphs by index into the model
        // files, so opening it reads them (in this pass, not a job).
        let (p, r) = match project::open(path) {
            Ok(x) => x,
            Err(e) => {
                self.shared
                    .error(format!("Could not open the project: {e}"));
                return;
            }
        };
        let steps = project::scene::project_events(self.ws, path, &p, &r);
        for e in steps.events {
            self.apply(e);
        }
        for (f, intent) in steps.model_opens {
            self.open_for(f, intent);
        }
        let name = file_name(path);
        for m in &steps.missing {
            self.shared
                .error(format!("Project {name}: {}", m.message()));
        }
        let info = project::info::info(&p, &r);
        for w in steps
            .warnings
            .iter()
            .map(ToString::to_string)
            .chain(info.warnings)
        {
            self.shared.error(format!("Project {name}: {w}"));
        }
        for i in &info.ignored {
            self.shared.info(format!("Project {name}: not used: {i}"));
        }
        self.scene.project = Some(project::missing::ProjectReport {
            project: path.to_path_buf(),
            missing: steps.missing,
            ignored: info.ignored,
        });
        if p.version == project::PmmVersion::V2
            && let Some(mode) = p
                .settings
                .as_ref()
                .and_then(|s| project::info::physics_mode(s.physics_mode))
        {
            self.panels.viewport.posing.physics = mode;
        }
        self.panels.viewport.view.mode = ViewMode::VmdCamera;
        self.panels.central = CentralView::Preview;
        self.scene.path = None;
        self.files.remember(path);
        let missing = steps.missing_models.len() + steps.missing_accessories.len();
        self.shared.info(format!(
            "Opened project {} (MMD {}: {} models, {} accessories{})",
            path.display(),
            p.version.mmd(),
            p.models.len(),
            p.accessories.len(),
            if missing == 0 {
                String::new()
            } else {
                format!(", {} missing", files(missing))
            }
        ));
    }

    /// Loads a song for the scene (from the File menu or a drop). The scene
    /// takes it once it has decoded; until then nothing changes.
    /// With nothing open (a song dropped on the empty window, or given
    /// alone on the command line) it goes under the bundled demo scene, so
    /// its waveform and beat grid have a timeline to sit on.
    pub fn load_song(&mut self, path: PathBuf) {
        if self.ws.docs().is_empty() && self.ws.scene().actors.is_empty() && !self.scene.pending() {
            self.open_demo();
            self.panels.central = CentralView::Preview;
        }
        self.load_song_into_scene(path);
    }

    /// Loads a song for whatever scene there is (never the demo): the
    /// scene takes it once it has decoded.
    pub fn load_song_into_scene(&mut self, path: PathBuf) {
        let offset = self.shared.song.offset_frames;
        let jobs = self.shared.jobs.clone();
        self.shared.song.load(path, offset, &jobs);
    }
    /// The user located `file` for a slot a project left empty: it goes in
    /// (an accessory's path is one undo step; a model loads onto its
    /// actor), and every other missing file found beside it too
    /// ([`crate::project::missing::ProjectReport::located`]).
    /// `None`: the dialog was cancelled.
    pub fn locate(&mut self, slot: crate::project::missing::Slot, file: Option<&PathBuf>) {
        let (Some(report), Some(file)) = (&self.scene.project, file) else {
            return;
        };
        let l = report.located(self.ws.scene(), slot, file);
        for e in l.events {
            self.apply(Event::Scene(e));
        }
        for (f, intent) in l.opens {
            self.open_for(f, intent);
        }
        if !l.also_found.is_empty() {
            let names: Vec<&str> = l.also_found.iter().map(|(n, _)| n.as_str()).collect();
            self.shared.info(format!(
                "Also found beside {}: {}",
                file.display(),
                names.join(", ")
            ));
        }
    }

    /// Runs a toolbox operation the toolbox panel queued (it owns the dialogs).
    pub fn toolbox_apply(&mut self) {
        if let Some((motion, name)) = self.panels.toolbox.take_new_document() {
            self.open_motion(motion, None, &name);
        }
        let Some(req) = self.panels.toolbox.take_request() else {
            return;
        };
        // The file the dialog targets, not whichever is active now.
        let target = self.panels.toolbox.target_index(self.ws);
        let target_id = self.ws.docs().get(target).map(|d| d.id);
        let docs: Vec<&Document> = self.ws.docs().iter().collect();
        match panels::toolbox::run_request(&req, &docs, target) {
            Ok(outcome) => {
                for line in &outcome.report_lines {
                    self.shared.info(line.clone());
                }
                if let Some(id) = target_id
                    && let Some(note) =
                        self.scene
                            .names_the_model_lacks(self.ws, id, &outcome.motion)
                {
                    self.shared.error(format!("{}: {note}", outcome.label));
                }
                if let Some(id) = target_id {
                    self.apply_outcome(id, outcome);
                }
            }
            Err(e) => self.shared.error(e),
        }
    }

    /// A toolbox result in its documents, one undo step: the target's new
    /// motion and any other document's changed with it (a scene-wide speed
    /// change), each only if it has not changed since the run began.
    fn apply_outcome(&mut self, id: u64, outcome: panels::toolbox::Outcome) {
        let replace = |motion: crate::vmd::Motion, label: &str| {
            EditRequest::apply(
                document::Edit::ReplaceMotion {
                    motion: Box::new(motion),
                    selection: None,
                },
                label.to_owned(),
            )
        };
        let mut edits = vec![(id, vec![replace(outcome.motion, &outcome.label)])];
        for a in outcome.also {
            match self.ws.doc(a.id) {
                Some(d) if d.revision == a.revision => {
                    edits.push((a.id, vec![replace(a.motion, &outcome.label)]));
                }
                Some(d) => {
                    let name = d.title();
                    self.shared.error(format!(
                        "{}: {name} changed while it ran; nothing was changed, run it again",
                        outcome.label
                    ));
                    return;
                }
                // Closed meanwhile: nothing to change there.
                None => {}
            }
        }
        self.apply(Event::Edit(edits));
    }
}
