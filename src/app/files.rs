//! Files in and out of the app: background job results, file picking
//! (system dialog or built-in browser), dropped files, recent list, songs.

use super::CentralView;
use super::MAX_RECENT;
use super::StudioApp;
use super::file_browser;
use super::jobs::JobResult;
use super::jobs::Pick;
use super::scene_ops;
use std::path::Path;
use std::path::PathBuf;

impl StudioApp {
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
    pub(super) fn file_browser_ui(&mut self, ctx: &egui::Context) {
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
            self.central = CentralView::Preview;
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
