//! Loading and saving off the UI thread, so the window never freezes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use crate::skeleton::Skeleton;
use crate::vmd::save::{DiskStamp, SaveOptions};
use crate::vmd::{self, Motion, WriteError};

/// What a finished job hands back.
pub enum JobResult {
    /// A VMD file was read (or failed with the reader's message).
    Motion {
        /// Order of the request (see [`Jobs::open`]).
        seq: u64,
        path: PathBuf,
        /// The file as it was read (to notice later changes on disk).
        stamp: Option<DiskStamp>,
        result: Result<Box<Motion>, String>,
    },
    /// A PMX/PMD model's skeleton.
    Model {
        seq: u64,
        path: PathBuf,
        result: Result<Skeleton, String>,
    },
    /// A save finished.
    Saved {
        /// The job's id, as [`Jobs::save`] returned it.
        job: u64,
        doc_id: u64,
        path: PathBuf,
        /// History state that was written.
        state: u64,
        /// The stamp of the file written.
        result: Result<DiskStamp, WriteError>,
    },
    /// A file dialog closed: chosen paths (empty when cancelled or unavailable).
    Picked {
        purpose: Pick,
        paths: Vec<PathBuf>,
        /// Nothing came back within half a second: no person cancels a
        /// dialog that fast, so the system dialog could not open.
        quick_none: bool,
    },
}

/// Why a file dialog was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Open,
    SaveAs {
        doc_id: u64,
    },
    Model,
    /// Open a `.vmdscene` file.
    OpenScene,
    /// Load the scene's song (WAV, MP3, OGG, FLAC).
    Song,
    /// Save the scene arrangement under a new name.
    SaveScene,
}

/// Background work in flight.
pub struct Jobs {
    tx: Sender<(u64, JobResult)>,
    rx: Receiver<(u64, JobResult)>,
    /// Descriptions of running jobs (for the progress indicator).
    pub running: Vec<(u64, String)>,
    next: u64,
    /// Last open request's sequence number.
    next_seq: u64,
    repaint: Option<egui::Context>,
    /// Called in the save worker with the temporary file written, before it
    /// is checked and renamed (tests inject a slow disk here).
    pub save_hook: Option<SaveHook>,
}

/// See [`Jobs::save_hook`].
pub type SaveHook = Arc<dyn Fn(&Path) + Send + Sync>;

impl Default for Jobs {
    fn default() -> Self {
        let (tx, rx) = channel();
        Jobs {
            tx,
            rx,
            running: Vec::new(),
            next: 0,
            next_seq: 0,
            repaint: None,
            save_hook: None,
        }
    }
}

fn looks_like_model(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PMX ") || bytes.starts_with(b"Pmd")
}

impl Jobs {
    pub fn set_context(&mut self, ctx: &egui::Context) {
        self.repaint = Some(ctx.clone());
    }

    pub fn is_busy(&self) -> bool {
        !self.running.is_empty()
    }

    /// Runs `work` on its own thread; returns the job's id.
    fn spawn(
        &mut self,
        label: String,
        work: impl FnOnce(u64) -> JobResult + Send + 'static,
    ) -> u64 {
        self.next += 1;
        let id = self.next;
        self.running.push((id, label));
        let tx = self.tx.clone();
        let ctx = self.repaint.clone();
        std::thread::spawn(move || {
            let r = work(id);
            // The receiver is gone only when the app has quit.
            let _ = tx.send((id, r));
            if let Some(c) = ctx {
                c.request_repaint();
            }
        });
        id
    }

    /// Reads a file: a VMD motion, or a PMX/PMD model by its signature.
    /// Returns the request's sequence number: results carry it, so the app
    /// can apply them in the order they were asked for (files finish
    /// loading in any order).
    pub fn open(&mut self, path: PathBuf) -> u64 {
        self.next_seq += 1;
        let seq = self.next_seq;
        let label = format!("Loading {}", path.display());
        self.spawn(label, move |_| match vmd::save::read_with_stamp(&path) {
            Err(e) => JobResult::Motion {
                seq,
                result: Err(format!("cannot read {}: {e}", path.display())),
                stamp: None,
                path,
            },
            Ok((bytes, _)) if looks_like_model(&bytes) => JobResult::Model {
                seq,
                result: crate::skeleton::load_model(&bytes).map_err(|e| e.to_string()),
                path,
            },
            Ok((bytes, stamp)) => JobResult::Motion {
                seq,
                result: vmd::read(&bytes).map(Box::new).map_err(|e| e.to_string()),
                stamp: Some(stamp),
                path,
            },
        });
        seq
    }

    /// The sequence number the next [`Self::open`] will get.
    pub fn next_open_seq(&self) -> u64 {
        self.next_seq + 1
    }

    /// Saves already-serialized bytes through [`vmd::save`]; with
    /// `expect_unchanged`, refuses when the file changed on disk meanwhile.
    /// Returns the job's id (it comes back in [`JobResult::Saved`]).
    pub fn save(
        &mut self,
        doc_id: u64,
        path: PathBuf,
        state: u64,
        bytes: Vec<u8>,
        expect_unchanged: Option<DiskStamp>,
    ) -> u64 {
        let label = format!("Saving {}", path.display());
        let hook = self.save_hook.clone();
        self.spawn(label, move |job| {
            let before_commit = hook.as_ref().map(|h| h.as_ref() as &(dyn Fn(&Path) + Sync));
            let opts = SaveOptions {
                expect_unchanged,
                before_commit,
            };
            let result = vmd::save::save_bytes_with(&path, &bytes, &opts);
            JobResult::Saved {
                job,
                doc_id,
                path,
                state,
                result,
            }
        })
    }

    /// Opens a native file dialog on its own thread.
    pub fn pick(&mut self, purpose: Pick, start_dir: Option<PathBuf>) {
        self.spawn("Waiting for the file dialog".into(), move |_| {
            let started = std::time::Instant::now();
            let mut d = rfd::FileDialog::new();
            if let Some(dir) = start_dir {
                d = d.set_directory(dir);
            }
            let paths = match purpose {
                Pick::Open => d
                    .add_filter("VMD motion / camera", &["vmd", "VMD"])
                    .add_filter("All files", &["*"])
                    .pick_files()
                    .unwrap_or_default(),
                Pick::Model => d
                    .add_filter("PMX / PMD model", &["pmx", "pmd", "PMX", "PMD"])
                    .pick_file()
                    .into_iter()
                    .collect(),
                Pick::SaveAs { .. } => d
                    .add_filter("VMD", &["vmd"])
                    .save_file()
                    .into_iter()
                    .collect(),
                Pick::Song => d
                    .add_filter(
                        "Song (WAV, MP3, OGG, FLAC)",
                        &[
                            "wav", "mp3", "ogg", "oga", "flac", "WAV", "MP3", "OGG", "FLAC",
                        ],
                    )
                    .add_filter("All files", &["*"])
                    .pick_file()
                    .into_iter()
                    .collect(),
                Pick::OpenScene => d
                    .add_filter("VMD Studio scene", &["vmdscene"])
                    .pick_file()
                    .into_iter()
                    .collect(),
                Pick::SaveScene => d
                    .add_filter("VMD Studio scene", &["vmdscene"])
                    .save_file()
                    .into_iter()
                    .collect(),
            };
            let quick_none =
                paths.is_empty() && started.elapsed() < std::time::Duration::from_millis(500);
            JobResult::Picked {
                purpose,
                paths,
                quick_none,
            }
        });
    }

    /// Finished jobs since the last call.
    pub fn poll(&mut self) -> Vec<JobResult> {
        let mut out = Vec::new();
        while let Ok((id, r)) = self.rx.try_recv() {
            self.running.retain(|(j, _)| *j != id);
            out.push(r);
        }
        out
    }
}
