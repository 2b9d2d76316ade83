//! Saving files from the GUI: the scene file with its motions, collecting
//! a scene into a folder, Save all, and one document's save through
//! [`Saves`] (which keeps one save per document in flight) — with what
//! follows a finished save (the recent list, a close the guard waits for).
//! [`Saving`] borrows only what saving touches.

use super::AfterClose;
use super::Files;
use super::Window;
use super::edits;
use super::jobs::JobResult;
use super::jobs::Jobs;
use super::panels::Shared;
use super::panels::viewport;
use super::panels::viewport::ViewMode;
use super::saving::{SaveOutcome, Saves};
use super::scene_ops::SceneState;
use crate::scene;
use crate::workspace::placing::{self, file_name};
use crate::workspace::{Changes, Event, Workspace};
use std::path::Path;
use std::path::PathBuf;

/// What saving touches: the workspace and the status messages, the saves
/// in flight and the job service, the close the guard waits for, the
/// recent list, the scene file's path, and the view settings a scene file
/// keeps (through the camera, physics).
pub struct Saving<'a> {
    pub ws: &'a mut Workspace,
    pub shared: &'a mut Shared,
    pub saves: &'a mut Saves,
    pub jobs: &'a mut Jobs,
    pub window: &'a mut Window,
    pub files: &'a mut Files,
    pub scene: &'a mut SceneState,
    pub viewport: &'a viewport::State,
}

impl Saving<'_> {
    /// Applies an event (see [`edits::apply`]).
    fn apply(&mut self, e: Event) -> Changes {
        edits::apply(self.ws, self.shared, e)
    }

    /// Saves the scene file at `path`, and with it every scene motion that
    /// has unsaved edits (to its own file) or no file yet (beside the
    /// scene, under its name; see [`placing::scene_save_plan`]). Says which
    /// files it saved; returns the documents it started saving and where
    /// (`None`: the scene was not saved).
    pub fn save_scene_to(&mut self, path: PathBuf) -> Option<Vec<(u64, PathBuf)>> {
        let through_camera = self.viewport.view.mode == ViewMode::VmdCamera;
        let mut plan = match placing::scene_save_plan(self.ws, &path, through_camera) {
            Ok(p) => p,
            Err(e) => {
                self.shared.error(e);
                return None;
            }
        };
        plan.scene.preview.physics = Some(self.viewport.posing.physics);
        plan.scene.preview.collide_actors = self.viewport.posing.collide_actors;
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
        self.files.remember(&path);
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
        plan.scene.preview.through_camera = self.viewport.view.mode == ViewMode::VmdCamera;
        plan.scene.preview.physics = Some(self.viewport.posing.physics);
        plan.scene.preview.collide_actors = self.viewport.posing.collide_actors;
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
                self.files.remember(&plan.scene_path);
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
        let (todo, unnamed) = placing::save_all_plan(self.ws, &done);
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
            .request(self.ws, self.jobs, doc_id, path, overwrite);
        self.save_refused(r);
    }

    fn save_refused(&mut self, r: Result<(), String>) {
        if let Err(e) = r {
            self.window.after_save = None;
            self.shared.error(e);
        }
    }

    /// Applies a finished save (from the jobs polled each frame).
    pub fn save_finished(&mut self, r: JobResult) {
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
                self.files.remember(&path);
                self.shared.info(format!("Saved {}", path.display()));
                self.saves.last_saved = Some(path);
                (doc_id, then)
            }
        };
        if let Some((p, overwrite)) = then {
            // A newer save was asked for meanwhile; a close the guard
            // waits for happens after that one.
            let r = self.saves.start(self.ws, self.jobs, doc_id, p, overwrite);
            self.save_refused(r);
            return;
        }
        // A save the close guard asked for: now close or quit.
        if !self.ws.doc(doc_id).is_some_and(|d| d.is_modified())
            && let Some(g) = self.window.after_save.take_if(|g| g.doc_id == doc_id)
        {
            match g.then {
                AfterClose::CloseDoc => {
                    self.apply(Event::Close(doc_id));
                }
                AfterClose::Quit => self.window.close_window = true,
            }
        }
    }
}
