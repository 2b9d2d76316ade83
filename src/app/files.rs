//! Files in and out of the app: background job results, file picking
//! (system dialog or built-in browser), dropped files, recent list, songs.

use super::AfterClose;
use super::CentralView;
use super::MAX_RECENT;
use super::StudioApp;
use super::file_browser;
use super::jobs::JobResult;
use super::jobs::Pick;
use super::panels::scene_missing::files;
use super::panels::viewport::ViewMode;
use super::saving::SaveOutcome;
use super::scene_ops::{self, Intent, Ready};
use crate::render::asset::ModelAsset;
use crate::scene;
use crate::vmd::{self, Motion};
use crate::workspace::SceneEvent;
use crate::workspace::files::{FileKind, songs_only};
use crate::workspace::placing::{self, file_name};
use crate::workspace::{Event, NewDocument};
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

/// Opening: each file takes its role through the workspace's placing
/// rules ([`placing`]); the loads run in the background and are put in
/// order by [`scene_ops::SceneState`].
impl StudioApp {
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
        if let Some(bone) = bone {
            let actor = self.ws.scene().actors.iter().position(|a| {
                self.scene
                    .rig_for(&a.model)
                    .skeleton
                    .bones
                    .iter()
                    .any(|b| b.name == bone)
            });
            match actor {
                Some(actor) => acc.state.parent = crate::scene::set::Parent::Bone { actor, bone },
                None => self.shared.error(format!(
                    "{}: no actor's model has the bone {bone}; the accessory is placed in the world",
                    path.display()
                )),
            }
        }
        let x = acc.path.clone();
        self.apply(Event::Scene(SceneEvent::AddAccessory(Box::new(acc))));
        if !self.scene.models.contains_key(&x) {
            self.open_for(x, Intent::SetPiece);
        }
    }

    /// Opens one file for a given role.
    pub fn open_for(&mut self, path: PathBuf, intent: Intent) {
        self.scene.open_for(&mut self.jobs, path, intent);
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
        self.remember_recent(&path);
        let intent = match intent {
            Intent::MergeInto(which) => match placing::merge_target(&self.ws, which) {
                Ok((actor, target)) => {
                    match placing::merge_events(&self.ws, actor, target, m, &file_name(&path)) {
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
        let (mut new, note) = placing::open_file(&self.ws, m, &path, intent);
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
                self.remember_recent(&path);
                let summary = scene_ops::model_summary(&asset);
                self.scene.keep_model(path.clone(), asset);
                let (e, text) = placing::model_loaded(&self.ws, &path, intent);
                self.apply(e);
                self.shared
                    .info(format!("Loaded {} {text}: {summary}", file_name(&path)));
            }
            Err(e) => {
                let (event, note) = placing::model_failed(&self.ws, intent);
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
                    &self.ws,
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
        let (events, opens) = placing::scene_file_events(&self.ws, &src);
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
        self.remember_recent(path);
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
        let steps = project::scene::project_events(&self.ws, path, &p, &r);
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
        self.remember_recent(path);
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

    /// Saves the scene file at `path`, and with it every scene motion that
    /// has unsaved edits (to its own file) or no file yet (beside the
    /// scene, under its name; see [`placing::scene_save_plan`]). Says which
    /// files it saved; returns the documents it started saving and where
    /// (`None`: the scene was not saved).
    pub fn save_scene_to(&mut self, path: PathBuf) -> Option<Vec<(u64, PathBuf)>> {
        let through_camera = self.panels.viewport.view.mode == ViewMode::VmdCamera;
        let mut plan = match placing::scene_save_plan(&self.ws, &path, through_camera) {
            Ok(p) => p,
            Err(e) => {
                self.shared.error(e);
                return None;
            }
        };
        plan.scene.preview.physics = Some(self.panels.viewport.posing.physics);
        plan.scene.preview.collide_actors = self.panels.viewport.posing.collide_actors;
        if let Err(e) = scene::file::save(&plan.scene, &path) {
            self.shared
                .error(format!("Scene not saved, nothing was lost: {e}"));
            return None;
        }
        let names: Vec<String> = plan.motions.iter().map(|(_, p)| file_name(p)).collect();
        for (id, p) in &plan.motions {
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
        Some(plan.motions)
    }

    /// File ▸ Collect scene into folder…: the scene written as `path` with
    /// everything it uses beside it ([`crate::scene::collect`]): every
    /// motion as VMD (unsaved edits included; the open documents keep
    /// their own files and state), the models, set pieces, song and
    /// background copied. Writes nothing when a file it would write exists.
    pub fn collect_scene_to(&mut self, path: &Path) {
        use crate::scene::collect;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut unwritten = Vec::new();
        let ws = &self.ws;
        let mut plan = collect::plan(ws.scene(), &dir, &stem, |id| {
            let d = ws.doc(*id)?;
            match crate::vmd::write::write(&d.motion) {
                Ok(b) => Some((d.name.clone(), collect::Source::Bytes(b))),
                Err(e) => {
                    unwritten.push(format!("{}: {e}", d.name));
                    None
                }
            }
        });
        let t = self.ws.transport();
        plan.scene.preview.rate = t.preview_rate;
        plan.scene.preview.frame = t.frame.max(0.0).floor() as u32;
        plan.scene.preview.through_camera = self.panels.viewport.view.mode == ViewMode::VmdCamera;
        plan.scene.preview.physics = Some(self.panels.viewport.posing.physics);
        plan.scene.preview.collide_actors = self.panels.viewport.posing.collide_actors;
        match plan.write() {
            Ok(written) => {
                for l in unwritten.iter().chain(&plan.left_out) {
                    self.shared.error(format!("Collect: {l}"));
                }
                self.shared.info(format!(
                    "Collected the scene into {}: {} files, {}{}",
                    dir.display(),
                    written.len(),
                    plan.scene_path.display(),
                    match plan.left_out.len() + unwritten.len() {
                        0 => String::new(),
                        n => format!("; {n} left out (see messages)"),
                    }
                ));
                self.remember_recent(&plan.scene_path);
            }
            Err(e) => self.shared.error(format!("Scene not collected: {e}")),
        }
    }

    /// File ▸ Save all: the scene file (if it has one and changed, with the
    /// scene's motions) and every other file with unsaved edits, each to
    /// its own file. A file that was never saved is named, not guessed at.
    pub fn save_all(&mut self) {
        let mut saved = Vec::new();
        let mut done = Vec::new();
        if self.ws.scene_modified()
            && let Some(p) = self.scene.path.clone()
            && let Some(motions) = self.save_scene_to(p.clone())
        {
            saved.push(p);
            for (id, p) in motions {
                done.push(id);
                saved.push(p);
            }
        }
        let (todo, unnamed) = placing::save_all_plan(&self.ws, &done);
        for (id, p) in todo {
            self.save_doc_to(id, p.clone());
            saved.push(p);
        }
        if !unnamed.is_empty() {
            self.shared.error(format!(
                "Save all: {} never saved to a file (use Save As on each): {}",
                unnamed.len(),
                unnamed.join(", ")
            ));
        }
        if !saved.is_empty() {
            let names: Vec<String> = saved.iter().map(|p| file_name(p)).collect();
            self.shared.info(format!(
                "Save all: saving {} file(s): {}",
                names.len(),
                names.join(", ")
            ));
        } else if unnamed.is_empty() {
            self.shared.info("Save all: no file has unsaved edits");
        }
    }

    /// Saves a document to `path` in the background. If the document's own
    /// file changed on disk since it was opened or saved, asks first.
    pub fn save_doc_to(&mut self, doc_id: u64, path: PathBuf) {
        self.request_save(doc_id, path, false);
    }

    /// Saves, overwriting the file even if it changed on disk.
    pub fn save_doc_overwriting(&mut self, doc_id: u64, path: PathBuf) {
        self.request_save(doc_id, path, true);
    }

    fn request_save(&mut self, doc_id: u64, path: PathBuf, overwrite: bool) {
        let r = self
            .saves
            .request(&self.ws, &mut self.jobs, doc_id, path, overwrite);
        self.save_refused(r);
    }

    fn save_refused(&mut self, r: Result<(), String>) {
        if let Err(e) = r {
            self.window.after_save = None;
            self.shared.error(e);
        }
    }

    /// Applies a finished save (from [`StudioApp::poll_jobs`]).
    fn save_finished(&mut self, r: JobResult) {
        let (doc_id, then) = match self.saves.finished(r) {
            SaveOutcome::Stale => return,
            SaveOutcome::Conflict(c) => {
                self.saves.disk_conflict = Some(c);
                return;
            }
            SaveOutcome::Failed {
                doc_id,
                message,
                then,
            } => {
                self.window.after_save = None;
                self.shared.error(message);
                (doc_id, then)
            }
            SaveOutcome::Saved {
                doc_id,
                path,
                event,
                then,
            } => {
                self.apply(event);
                self.remember_recent(&path);
                self.shared.info(format!("Saved {}", path.display()));
                self.saves.last_saved = Some(path);
                (doc_id, then)
            }
        };
        if let Some((p, overwrite)) = then {
            // A newer save was asked for meanwhile; a close the guard
            // waits for happens after that one.
            let r = self
                .saves
                .start(&self.ws, &mut self.jobs, doc_id, p, overwrite);
            self.save_refused(r);
            return;
        }
        // A save the close guard asked for: now close or quit.
        if !self.ws.doc(doc_id).is_some_and(|d| d.is_modified())
            && let Some(g) = self.window.after_save.take_if(|g| g.doc_id == doc_id)
        {
            match g.then {
                AfterClose::CloseDoc => self.close_doc(doc_id),
                AfterClose::Quit => self.window.close_window = true,
            }
        }
    }

    pub(crate) fn remember_recent(&mut self, path: &Path) {
        self.files.recent.retain(|p| p != path);
        self.files.recent.insert(0, path.to_path_buf());
        self.files.recent.truncate(MAX_RECENT);
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
                    self.files.native_dialog = false;
                    self.shared.error(
                        "The system file dialog could not open (no desktop portal?); \
                         using VMD Studio's own file browser",
                    );
                    let dir = self.start_dir();
                    self.files.file_browser = Some(file_browser::FileBrowser::new(purpose, dir));
                }
                JobResult::Picked { purpose, paths, .. } => self.picked(purpose, paths),
            }
        }
    }

    /// A file dialog (system or built-in) closed with `paths` (empty: cancelled).
    pub fn picked(&mut self, purpose: Pick, paths: Vec<PathBuf>) {
        match purpose {
            Pick::Open => self.open_paths(paths),
            Pick::Merge { actor } => {
                for p in paths {
                    self.open_for(p, Intent::MergeInto(Some(actor)));
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
                        Some(i) => self.open_for(p, Intent::ActorModel(i)),
                        None => self.open_for(p, Intent::Auto),
                    }
                }
            }
            Pick::Stage => {
                for p in paths {
                    self.add_stage(p);
                }
            }
            Pick::Accessory => {
                for p in paths {
                    self.add_accessory(p);
                }
            }
            Pick::LoadPose { mirror } => {
                if let Some(p) = paths.first() {
                    self.load_pose_file(p, mirror);
                }
            }
            Pick::SavePose => {
                if let Some(p) = paths.first() {
                    self.save_pose_file(p);
                }
            }
            Pick::OpenScene => {
                if let Some(p) = paths.first() {
                    if crate::project::is_project_path(p) {
                        self.open_project(p);
                    } else {
                        self.open_scene(p);
                    }
                }
            }
            Pick::SaveScene => {
                if let Some(p) = paths.into_iter().next() {
                    self.save_scene_to(p);
                }
            }
            Pick::Locate(slot) => self.locate(slot, paths.first()),
            Pick::CollectScene => {
                if let Some(p) = paths.into_iter().next() {
                    self.collect_scene_to(&p);
                }
            }
            Pick::SizingSource => {
                if let Some(p) = paths.into_iter().next() {
                    self.panels.toolbox.sizing.source_picked(p);
                }
            }
            Pick::ExportVideo => {
                if let Some(p) = paths.into_iter().next() {
                    self.export_video.path = p.display().to_string();
                    self.export_video.confirm_overwrite = None;
                }
            }
            Pick::SaveAs { doc_id } => {
                if paths.is_empty()
                    && self
                        .window
                        .after_save
                        .as_ref()
                        .is_some_and(|g| g.doc_id == doc_id)
                {
                    // The Save As dialog was cancelled: nothing closes.
                    self.window.after_save = None;
                }
                if let Some(p) = paths.into_iter().next() {
                    self.save_doc_to(doc_id, p);
                }
            }
        }
    }

    /// Asks the user for a file: the system dialog (off the UI thread), or
    /// the built-in browser where the system one cannot open.
    pub(crate) fn pick_file(&mut self, purpose: Pick, dir: Option<PathBuf>) {
        if self.files.native_dialog {
            let base = self.files.dialog_parent.clone();
            self.jobs.pick(purpose, dir, base.unwrap_or_default());
        } else {
            self.files.file_browser = Some(file_browser::FileBrowser::new(purpose, dir));
        }
    }

    /// Draws the built-in file browser, if open, and acts on its answer.
    pub(super) fn file_browser_ui(&mut self, ctx: &egui::Context) {
        let Some(b) = &mut self.files.file_browser else {
            return;
        };
        let purpose = b.purpose;
        match b.show(ctx) {
            Some(file_browser::Outcome::Chosen(paths)) => {
                self.files.file_browser = None;
                self.picked(purpose, paths);
            }
            Some(file_browser::Outcome::Cancelled) => {
                self.files.file_browser = None;
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

    pub(super) fn handle_dropped_files(&mut self, ctx: &egui::Context) {
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
}
