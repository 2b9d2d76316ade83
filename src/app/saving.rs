//! Saving documents: at most one save per document in flight, later requests
//! coalesce into one follow-up save of the newest state, a result that is
//! not the one awaited never moves the saved mark, and a file changed on
//! disk since it was opened or saved is never overwritten without asking.
//!
//! [`Saves`] owns the saves in flight; the shell hands it the workspace and
//! the job service, and applies what [`Saves::finished`] says.
//!
//! The bytes reach disk through [`crate::vmd::save`](mod@crate::vmd::save) (unique temporary file,
//! fsync, permissions, symlinks, read-back).

use std::collections::HashMap;
use std::path::PathBuf;

use super::jobs::{JobResult, Jobs};
use crate::vmd::{self, WriteError};
use crate::workspace::{Event, Workspace};

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
    /// A save refused because the file changed on disk, awaiting the user.
    pub disk_conflict: Option<DiskConflict>,
    /// Set after a save completes (for tests and the status bar).
    pub last_saved: Option<PathBuf>,
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

impl Saves {
    /// Asks for a save of document `doc_id` to `path` (`overwrite`: even if
    /// its file changed on disk since it was opened or saved). One save per
    /// document runs at a time: a request while one runs waits for it and
    /// then saves the state of that moment. `Err`: why nothing was saved.
    pub fn request(
        &mut self,
        ws: &Workspace,
        jobs: &mut Jobs,
        doc_id: u64,
        path: PathBuf,
        overwrite: bool,
    ) -> Result<(), String> {
        if let Some(f) = self.in_flight.get_mut(&doc_id) {
            f.queued = Some((path, overwrite));
            return Ok(());
        }
        self.start(ws, jobs, doc_id, path, overwrite)
    }

    /// Starts saving document `doc_id`'s current state to `path` in the
    /// background. Only the document's own file is checked against what
    /// was on disk: that is the one whose state on disk is known.
    pub fn start(
        &mut self,
        ws: &Workspace,
        jobs: &mut Jobs,
        doc_id: u64,
        path: PathBuf,
        overwrite: bool,
    ) -> Result<(), String> {
        let Some(d) = ws.doc(doc_id) else {
            return Ok(());
        };
        let bytes =
            vmd::write(&d.motion).map_err(|e| format!("Save failed, nothing was lost: {e}"))?;
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
        let job = jobs.save(doc_id, path, d.state(), bytes, expect);
        self.in_flight
            .insert(doc_id, InFlight { job, queued: None });
        Ok(())
    }

    /// A finished save job: what it means. Only the save a document waits
    /// for counts; any other result is stale and must not move the saved
    /// mark. A save asked for meanwhile comes back as `then`, to start once
    /// the outcome is applied (it is checked against the new disk stamp).
    pub fn finished(&mut self, r: JobResult) -> SaveOutcome {
        let JobResult::Saved {
            job,
            doc_id,
            path,
            state,
            result,
        } = r
        else {
            return SaveOutcome::Stale;
        };
        let then = match self.in_flight.get(&doc_id) {
            Some(f) if f.job == job => self.in_flight.remove(&doc_id).and_then(|f| f.queued),
            _ => {
                tracing::debug!("ignored a stale save result (job {job}, document {doc_id})");
                return SaveOutcome::Stale;
            }
        };
        match result {
            Ok(stamp) => SaveOutcome::Saved {
                doc_id,
                event: Event::Saved {
                    doc: doc_id,
                    state,
                    path: path.clone(),
                    disk_stamp: Some(stamp),
                },
                path,
                then,
            },
            Err(WriteError::ChangedOnDisk { .. }) => {
                tracing::warn!(
                    "{} changed on disk; asking before overwriting",
                    path.display()
                );
                // Ask; a queued save would meet the same question.
                SaveOutcome::Conflict(DiskConflict { doc_id, path })
            }
            Err(e) => SaveOutcome::Failed {
                doc_id,
                message: format!("Save failed, nothing was lost: {e}"),
                then,
            },
        }
    }
}

/// What a finished save job means for the shell.
#[derive(Debug)]
pub enum SaveOutcome {
    /// Not the save a document waits for: nothing to do.
    Stale,
    /// On disk: apply `event` (the saved mark), then start `then`, if any.
    Saved {
        doc_id: u64,
        path: PathBuf,
        event: Event,
        then: Option<(PathBuf, bool)>,
    },
    /// The file changed on disk: the user decides.
    Conflict(DiskConflict),
    /// Nothing was written; `then` still to start, if any.
    Failed {
        doc_id: u64,
        message: String,
        then: Option<(PathBuf, bool)>,
    },
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
