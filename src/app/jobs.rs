//! Loading and saving off the UI thread, so the window never freezes.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};

use crate::skeleton::Skeleton;
use crate::vmd::{self, Motion};

/// What a finished job hands back.
pub enum JobResult {
    /// A VMD file was read (or failed with the reader's message).
    Motion {
        path: PathBuf,
        result: Result<Motion, String>,
    },
    /// A PMX/PMD model's skeleton.
    Model {
        path: PathBuf,
        result: Result<Skeleton, String>,
    },
    /// A save finished.
    Saved {
        doc_id: u64,
        path: PathBuf,
        /// History state that was written.
        state: u64,
        result: Result<(), String>,
    },
    /// A file dialog closed: chosen paths (empty when cancelled or unavailable).
    Picked { purpose: Pick, paths: Vec<PathBuf> },
}

/// Why a file dialog was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Open,
    SaveAs { doc_id: u64 },
    Model,
}

/// Background work in flight.
pub struct Jobs {
    tx: Sender<JobResult>,
    rx: Receiver<JobResult>,
    /// Descriptions of running jobs (for the progress indicator).
    pub running: Vec<(u64, String)>,
    next: u64,
    repaint: Option<egui::Context>,
}

impl Default for Jobs {
    fn default() -> Self {
        let (tx, rx) = channel();
        Jobs {
            tx,
            rx,
            running: Vec::new(),
            next: 0,
            repaint: None,
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

    fn spawn(&mut self, label: String, work: impl FnOnce() -> JobResult + Send + 'static) {
        self.next += 1;
        let id = self.next;
        self.running.push((id, label));
        let tx = self.tx.clone();
        let ctx = self.repaint.clone();
        std::thread::spawn(move || {
            let r = work();
            let _ = tx.send(r);
            if let Some(c) = ctx {
                c.request_repaint();
            }
        });
    }

    /// Reads a file: a VMD motion, or a PMX/PMD model by its signature.
    pub fn open(&mut self, path: PathBuf) {
        let label = format!("Loading {}", path.display());
        self.spawn(label, move || match std::fs::read(&path) {
            Err(e) => JobResult::Motion {
                result: Err(format!("cannot read {}: {e}", path.display())),
                path,
            },
            Ok(bytes) if looks_like_model(&bytes) => JobResult::Model {
                result: crate::skeleton::load_model(&bytes).map_err(|e| e.to_string()),
                path,
            },
            Ok(bytes) => JobResult::Motion {
                result: vmd::read(&bytes).map_err(|e| e.to_string()),
                path,
            },
        });
    }

    /// Saves already-serialized bytes atomically.
    pub fn save(&mut self, doc_id: u64, path: PathBuf, state: u64, bytes: Vec<u8>) {
        let label = format!("Saving {}", path.display());
        self.spawn(label, move || {
            let result = vmd::write::save_bytes_atomic(&path, &bytes).map_err(|e| e.to_string());
            JobResult::Saved {
                doc_id,
                path,
                state,
                result,
            }
        });
    }

    /// Opens a native file dialog on its own thread.
    pub fn pick(&mut self, purpose: Pick, start_dir: Option<PathBuf>) {
        self.spawn("Waiting for the file dialog".into(), move || {
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
            };
            JobResult::Picked { purpose, paths }
        });
    }

    /// Finished jobs since the last call.
    pub fn poll(&mut self) -> Vec<JobResult> {
        let mut out = Vec::new();
        while let Ok(r) = self.rx.try_recv() {
            // Jobs finish in any order; drop one running entry of the matching kind.
            let prefix = match &r {
                JobResult::Motion { .. } | JobResult::Model { .. } => "Loading",
                JobResult::Saved { .. } => "Saving",
                JobResult::Picked { .. } => "Waiting",
            };
            if let Some(pos) = self.running.iter().position(|(_, l)| l.starts_with(prefix)) {
                self.running.remove(pos);
            }
            out.push(r);
        }
        out
    }
}
