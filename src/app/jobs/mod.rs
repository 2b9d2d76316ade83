//! Loading and saving off the UI thread, so the window never freezes; all
//! background work runs on the one [`JobService`] (see [`service`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

pub mod service;
pub mod ui;
pub use service::{Finished, JobCtx, JobId, JobInfo, JobKind, JobService, Lane, Polled};

use crate::project::missing::Slot;
use crate::render::asset::ModelAsset;
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
    /// A PMX/PMD model with its textures, ready to draw.
    Model {
        seq: u64,
        path: PathBuf,
        result: Result<Arc<ModelAsset>, String>,
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

/// What Set ▸ Background ▸ Image… lists (lower case; the system dialog
/// also gets upper case).
pub const BACKGROUND_IMAGE_EXTENSIONS: &[&str] = &[
    "png", "bmp", "tga", "jpg", "jpeg", "PNG", "BMP", "TGA", "JPG", "JPEG",
];
/// What Set ▸ Background ▸ Video… lists.
pub const BACKGROUND_VIDEO_EXTENSIONS: &[&str] = &[
    "mp4", "avi", "mov", "mkv", "webm", "wmv", "MP4", "AVI", "MOV", "MKV", "WEBM", "WMV",
];

/// Why a file dialog was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Open,
    SaveAs {
        doc_id: u64,
    },
    Model,
    /// A stage or prop for the scene's set (PMX, PMD, .x).
    Stage,
    /// An accessory for the scene's set (.x, .vac).
    Accessory,
    /// A VMD for stage `n`'s own motion (its moving parts).
    StageMotion(usize),
    /// The scene's background image (PNG, BMP, TGA, JPEG).
    BackgroundImage,
    /// The scene's background video (what ffmpeg reads).
    BackgroundVideo,
    /// Open a `.vmdscene` file.
    OpenScene,
    /// Load the scene's song (WAV, MP3, OGG, FLAC).
    Song,
    /// Save the scene arrangement under a new name.
    SaveScene,
    /// Where File ▸ Collect scene into folder… writes (the `.vmdscene`;
    /// everything else goes beside it).
    CollectScene,
    /// A VMD to merge into actor `actor`'s motion.
    Merge {
        actor: usize,
    },
    /// A VPD pose to key on the selected actor at the playhead.
    LoadPose {
        mirror: bool,
    },
    /// Where to write the selected actor's pose (VPD).
    SavePose,
    /// Where File ▸ Export video… writes the MP4.
    ExportVideo,
    /// A file a project names that was not found (Locate… in the scene
    /// panel): a model for an actor, or an accessory's `.x`.
    Locate(crate::project::missing::Slot),
    /// Tools ▸ Size motion's source model (the one the motion was made for).
    SizingSource,
}

/// The app's own file jobs (open, save, file dialogs) on the shared
/// [`JobService`]; every result is wanted (opens are put in request order
/// by their sequence number, saves are matched by job id in `saving`).
pub struct Jobs {
    /// The service every background task of the app runs on.
    pub service: JobService,
    tx: Sender<Finished<JobResult>>,
    rx: Receiver<Finished<JobResult>>,
    /// Jobs started here whose result has not been taken yet.
    pending: Vec<JobId>,
    /// Last open request's sequence number.
    next_seq: u64,
    /// The job of each open request still running, by sequence number.
    open_jobs: std::collections::HashMap<u64, JobId>,
    /// Called in the save worker with the temporary file written, before it
    /// is checked and renamed (tests inject a slow disk here).
    pub save_hook: Option<SaveHook>,
}

/// See [`Jobs::save_hook`].
pub type SaveHook = Arc<dyn Fn(&Path) + Send + Sync>;

impl Default for Jobs {
    fn default() -> Self {
        Jobs::new(JobService::default())
    }
}

/// A PMX/PMD model, or a DirectX `.x` accessory (read as a model too).
fn looks_like_model(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PMX ") || bytes.starts_with(b"Pmd") || crate::model::xfile::is_x_file(bytes)
}

fn file_label(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn named_like_model(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("pmx") || e.eq_ignore_ascii_case("pmd"))
}

/// Reads a model and decodes its textures (with progress, stopping when
/// cancelled), then builds the renderer's template: all off the UI thread.
pub fn load_model(path: &Path, bytes: &[u8], ctx: &JobCtx) -> Result<Arc<ModelAsset>, String> {
    ModelAsset::load(path, bytes, ctx.progress_handle()).map(Arc::new)
}

impl Jobs {
    /// File jobs on `service` (shared with the panels).
    pub fn new(service: JobService) -> Jobs {
        let (tx, rx) = channel();
        Jobs {
            service,
            tx,
            rx,
            pending: Vec::new(),
            next_seq: 0,
            open_jobs: Default::default(),
            save_hook: None,
        }
    }

    pub fn set_context(&mut self, ctx: &egui::Context) {
        self.service.set_context(ctx);
    }

    /// Any background job of the app is running or its result not yet taken.
    pub fn is_busy(&self) -> bool {
        !self.pending.is_empty() || self.service.is_busy()
    }

    /// Runs `work` on the service; returns the job's id.
    fn spawn(
        &mut self,
        kind: JobKind,
        label: String,
        work: impl FnOnce(&JobCtx) -> JobResult + Send + 'static,
    ) -> JobId {
        // Model loads may be cancelled; opens, saves and dialogs run to the end.
        let cancellable = kind == JobKind::Model;
        let id = self
            .service
            .spawn(kind, label, cancellable, self.tx.clone(), work);
        self.pending.push(id);
        id
    }

    /// Reads a file: a VMD motion, or a PMX/PMD model by its signature.
    /// Returns the request's sequence number: results carry it, so the app
    /// can apply them in the order they were asked for (files finish
    /// loading in any order).
    pub fn open(&mut self, path: PathBuf) -> u64 {
        self.next_seq += 1;
        let seq = self.next_seq;
        // The file name: the bar is narrow (the full path is in messages).
        let label = format!("Loading {}", file_label(&path));
        // The signature decides what the file is; a path named like a model
        // shows as a (cancellable) model load from the start.
        let kind = if named_like_model(&path) {
            JobKind::Model
        } else {
            JobKind::Open
        };
        let job = self.spawn(kind, label, move |ctx| {
            match vmd::save::read_with_stamp(&path) {
                Err(e) => JobResult::Motion {
                    seq,
                    result: Err(format!("cannot read {}: {e}", path.display())),
                    stamp: None,
                    path,
                },
                Ok((bytes, _)) if looks_like_model(&bytes) => JobResult::Model {
                    seq,
                    result: load_model(&path, &bytes, ctx),
                    path,
                },
                Ok((bytes, stamp)) => JobResult::Motion {
                    seq,
                    result: vmd::read_vec(bytes)
                        .map(Box::new)
                        .map_err(|e| e.to_string()),
                    stamp: Some(stamp),
                    path,
                },
            }
        });
        self.open_jobs.insert(seq, job);
        seq
    }

    /// Asks open request `seq` to stop (a model load stops between
    /// textures; its result, if any, still comes back).
    pub fn cancel_open(&mut self, seq: u64) {
        if let Some(job) = self.open_jobs.get(&seq) {
            self.service.cancel(*job);
        }
    }

    /// The sequence number the next [`Self::open`] will get.
    pub fn next_open_seq(&self) -> u64 {
        self.next_seq + 1
    }

    /// Saves already-serialized bytes through [`vmd::save`](mod@vmd::save); with
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
        let label = format!("Saving {}", file_label(&path));
        let hook = self.save_hook.clone();
        self.spawn(JobKind::Save, label, move |ctx| {
            let job = ctx.id();
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
    /// `base`: the dialog to start from (the app's window as its parent).
    pub fn pick(&mut self, purpose: Pick, start_dir: Option<PathBuf>, base: rfd::FileDialog) {
        self.spawn(
            JobKind::Dialog,
            "Waiting for the file dialog".into(),
            move |_| {
                let started = std::time::Instant::now();
                let mut d = base;
                if let Some(dir) = start_dir {
                    d = d.set_directory(dir);
                }
                let paths = match purpose {
                    Pick::Open => d
                        .add_filter(
                            "What VMD Studio opens",
                            &[
                                "vmd", "VMD", "vmdscene", "pmm", "PMM", "pmx", "PMX", "pmd", "PMD",
                                "x", "X", "vac", "VAC",
                            ],
                        )
                        .add_filter("VMD motion / camera", &["vmd", "VMD"])
                        .add_filter("MMD project (PMM)", &["pmm", "PMM"])
                        .add_filter("All files", &["*"])
                        .pick_files()
                        .unwrap_or_default(),
                    Pick::Merge { .. } | Pick::StageMotion(_) => d
                        .add_filter("VMD motion", &["vmd", "VMD"])
                        .pick_files()
                        .unwrap_or_default(),
                    Pick::Model | Pick::SizingSource => d
                        .add_filter("PMX / PMD model", &["pmx", "pmd", "PMX", "PMD"])
                        .pick_file()
                        .into_iter()
                        .collect(),
                    Pick::Stage => d
                        .add_filter(
                            "Stage (PMX, PMD, .x)",
                            &["pmx", "pmd", "x", "PMX", "PMD", "X"],
                        )
                        .pick_files()
                        .unwrap_or_default(),
                    Pick::Accessory => d
                        .add_filter("Accessory (.x, .vac)", &["x", "vac", "X", "VAC"])
                        .pick_files()
                        .unwrap_or_default(),
                    Pick::BackgroundImage => d
                        .add_filter("Image (PNG, BMP, TGA, JPEG)", BACKGROUND_IMAGE_EXTENSIONS)
                        .pick_file()
                        .into_iter()
                        .collect(),
                    Pick::BackgroundVideo => d
                        .add_filter("Video", BACKGROUND_VIDEO_EXTENSIONS)
                        .add_filter("All files", &["*"])
                        .pick_file()
                        .into_iter()
                        .collect(),
                    Pick::Locate(Slot::ActorModel(_)) => d
                        .add_filter("PMX / PMD model", &["pmx", "pmd", "PMX", "PMD"])
                        .pick_file()
                        .into_iter()
                        .collect(),
                    Pick::Locate(Slot::Accessory(_)) => d
                        .add_filter("Accessory (.x)", &["x", "X"])
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
                        .add_filter(
                            "VMD Studio scene or MMD project",
                            &["vmdscene", "pmm", "PMM"],
                        )
                        .pick_file()
                        .into_iter()
                        .collect(),
                    Pick::LoadPose { .. } => d
                        .add_filter("MMD pose (VPD)", &["vpd", "VPD"])
                        .pick_file()
                        .into_iter()
                        .collect(),
                    Pick::SavePose => d
                        .add_filter("MMD pose (VPD)", &["vpd"])
                        .save_file()
                        .into_iter()
                        .collect(),
                    Pick::SaveScene | Pick::CollectScene => d
                        .add_filter("VMD Studio scene", &["vmdscene"])
                        .save_file()
                        .into_iter()
                        .collect(),
                    Pick::ExportVideo => d
                        .add_filter("MP4 video", &["mp4"])
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
            },
        );
    }

    /// Finished jobs since the last call.
    pub fn poll(&mut self) -> Vec<JobResult> {
        let mut out = Vec::new();
        while let Ok(f) = self.rx.try_recv() {
            self.pending.retain(|j| *j != f.id);
            self.open_jobs.retain(|_, j| *j != f.id);
            out.push(f.value);
        }
        out
    }
}
