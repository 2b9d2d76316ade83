//! Saving documents: at most one save per document in flight, later requests
//! coalesce into one follow-up save of the newest state, a result that is
//! not the one awaited never moves the saved mark, and a file changed on
//! disk since it was opened or saved is never overwritten without asking.
//!
//! The bytes reach disk through [`crate::vmd::save`](mod@crate::vmd::save) (unique temporary file,
//! fsync, permissions, symlinks, read-back).

use std::collections::HashMap;
use std::path::PathBuf;

use super::jobs::JobResult;
use super::{AfterClose, StudioApp};
use crate::vmd::{self, WriteError};

/// The save of one document that is running, and the one asked for since.
#[derive(Debug)]
struct InFlight {
    job: u64,
    /// The newest save requested while `job` runs: path and whether to
    /// overwrite a file changed on disk. Started (with the then-current
    /// state) when `job` finishes.
    queued: Option<(PathBuf, bool)>,
}

/// Saves in flight, by document id.
#[derive(Debug, Default)]
pub struct Saves {
    in_flight: HashMap<u64, InFlight>,
}

impl Saves {
    /// Whether a save of this document is running.
    pub fn is_saving(&self, doc_id: u64) -> bool {
        self.in_flight.contains_key(&doc_id)
    }
}

/// A save refused because the file changed on disk: the user decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskConflict {
    pub doc_id: u64,
    pub path: PathBuf,
}

impl StudioApp {
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
        if let Some(f) = self.saves.in_flight.get_mut(&doc_id) {
            // One save per document at a time: this one runs when the
            // current one is done, with the state of that moment.
            f.queued = Some((path, overwrite));
            return;
        }
        self.start_save(doc_id, path, overwrite);
    }

    fn start_save(&mut self, doc_id: u64, path: PathBuf, overwrite: bool) {
        let Some(d) = self.ws.docs().iter().find(|d| d.id == doc_id) else {
            return;
        };
        match vmd::write(&d.motion) {
            Ok(bytes) => {
                let state = d.state();
                // Only the document's own file is checked: that is the one
                // whose state on disk we know.
                let expect = if !overwrite && d.path.as_deref() == Some(path.as_path()) {
                    d.disk_stamp.clone()
                } else {
                    None
                };
                tracing::info!(
                    "saving {} ({} bytes, checked against disk: {})",
                    path.display(),
                    bytes.len(),
                    expect.is_some()
                );
                let job = self.jobs.save(doc_id, path, state, bytes, expect);
                self.saves
                    .in_flight
                    .insert(doc_id, InFlight { job, queued: None });
            }
            Err(e) => {
                self.after_save = None;
                self.shared
                    .error(format!("Save failed, nothing was lost: {e}"));
            }
        }
    }

    /// Applies a finished save (from [`StudioApp::poll_jobs`]).
    pub(super) fn save_finished(&mut self, r: JobResult) {
        let JobResult::Saved {
            job,
            doc_id,
            path,
            state,
            result,
        } = r
        else {
            return;
        };
        // Only the save this document waits for counts; anything else is
        // stale and must not move the saved mark.
        let queued = match self.saves.in_flight.get(&doc_id) {
            Some(f) if f.job == job => self.saves.in_flight.remove(&doc_id).and_then(|f| f.queued),
            _ => {
                tracing::debug!("ignored a stale save result (job {job}, document {doc_id})");
                return;
            }
        };
        match result {
            Ok(stamp) => {
                self.apply(crate::workspace::Event::Saved {
                    doc: doc_id,
                    state,
                    path: path.clone(),
                    disk_stamp: Some(stamp),
                });
                self.remember_recent(&path);
                self.shared.info(format!("Saved {}", path.display()));
                self.last_saved = Some(path);
                if let Some((p, overwrite)) = queued {
                    // A newer save was asked for meanwhile; a close the guard
                    // waits for happens after that one.
                    self.start_save(doc_id, p, overwrite);
                    return;
                }
                // A save the close guard asked for: now close or quit.
                if let Some(g) = self.after_save.take_if(|g| g.doc_id == doc_id) {
                    match g.then {
                        AfterClose::CloseDoc => self.close_doc(doc_id),
                        AfterClose::Quit => self.close_window = true,
                    }
                }
            }
            Err(WriteError::ChangedOnDisk { .. }) => {
                tracing::warn!(
                    "{} changed on disk; asking before overwriting",
                    path.display()
                );
                // Ask; a queued save would meet the same question.
                self.disk_conflict = Some(DiskConflict { doc_id, path });
            }
            Err(e) => {
                self.after_save = None;
                self.shared
                    .error(format!("Save failed, nothing was lost: {e}"));
                if let Some((p, overwrite)) = queued {
                    self.start_save(doc_id, p, overwrite);
                }
            }
        }
    }
}

/// The user's answer to a [`DiskConflict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskChoice {
    Overwrite,
    Reload,
    Cancel,
}

/// The question asked when a save meets a file changed on disk; the
/// answer, once given.
pub fn disk_conflict_modal(ctx: &egui::Context, c: &DiskConflict) -> Option<DiskChoice> {
    let mut choice = None;
    egui::Modal::new(egui::Id::unique("disk-conflict")).show(ctx, |ui| {
        ui.heading("File changed on disk");
        ui.label(format!(
            "{} was changed by another program since it was opened or last saved.",
            c.path.display()
        ));
        ui.label("Overwrite it with your version, or reload it from disk (your unsaved edits are dropped)?");
        ui.horizontal(|ui| {
            if ui.button("Overwrite").clicked() {
                choice = Some(DiskChoice::Overwrite);
            }
            if ui.button("Reload from disk").clicked() {
                choice = Some(DiskChoice::Reload);
            }
            if ui.button("Cancel").clicked() {
                choice = Some(DiskChoice::Cancel);
            }
        });
    });
    choice
}
