//! The viewport's background image and video (MMD's 背景画像 / 背景AVI), on
//! the UI thread: the image file is decoded once on a worker thread (then
//! handed to the GPU once, see `gpu.rs`), the video read frame by frame
//! through ffmpeg as the playhead asks, on a worker thread
//! ([`VideoFrames`]: one process streaming on, `-ss` when the playhead
//! jumps, one frame kept). What
//! cannot be shown (no ffmpeg, an unreadable file) is logged once and
//! shown as a notice on the picture while it lasts; the rest draws.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};

use eframe::egui;

use crate::render::TextureRgba;
use crate::scene::set::{BackgroundImage, BackgroundVideo, ImageFit};
use crate::video::{VideoFrame, VideoFrames};

/// What the scene's background is, as the viewport hands it over.
#[derive(Debug, Clone, Copy)]
pub struct SceneBackground<'a> {
    /// RGB 0..1 as written to the picture.
    pub colour: [f32; 3],
    pub image: Option<&'a BackgroundImage>,
    pub video: Option<&'a BackgroundVideo>,
}

/// One picture's background layers for the GPU: each with a number that
/// changes only when its pixels do (so the GPU uploads an image once, and
/// a video frame once).
#[derive(Clone, Default)]
pub struct Layers {
    pub image: Option<(u64, Arc<TextureRgba>, ImageFit)>,
    pub video: Option<NumberedFrame>,
}

enum ImageSlot {
    Loading(Receiver<Result<TextureRgba, String>>),
    Ready(u64, Arc<TextureRgba>),
    Failed(String),
}

enum VideoSlot {
    Reading(VideoWorker),
    Failed(String),
}

/// A video frame with the number of its pixels (see [`Layers`]).
type NumberedFrame = (u64, Arc<VideoFrame>);

/// What the worker last read: the video frame index and the frame (none
/// past the end), or why it could not.
type Answer = (u64, Result<Option<Arc<VideoFrame>>, String>);

/// The background video's reader on a worker thread, so a seek (ffmpeg
/// decoding from the keyframe before it: about a second for a 1080p H.264
/// here) never holds up the UI: the UI says which frame it wants, the
/// worker reads the latest wanted one and asks for a repaint; meanwhile
/// the picture keeps the last frame it had. Dropping it ends the thread
/// and its ffmpeg.
struct VideoWorker {
    want: Sender<u64>,
    sent: Option<u64>,
    answer: Arc<Mutex<Option<Answer>>>,
}

impl VideoWorker {
    fn start(path: &Path, ffmpeg: &Path, ctx: &egui::Context) -> VideoWorker {
        let (want, wanted) = std::sync::mpsc::channel::<u64>();
        let answer: Arc<Mutex<Option<Answer>>> = Arc::default();
        let (out, ctx) = (answer.clone(), ctx.clone());
        let mut frames = VideoFrames::new(path, ffmpeg);
        std::thread::spawn(move || {
            while let Ok(mut index) = wanted.recv() {
                // Only the latest wish counts (the playhead moved on).
                while let Ok(later) = wanted.try_recv() {
                    index = later;
                }
                let read = frames.frame(index);
                if let Ok(mut slot) = out.lock() {
                    *slot = Some((index, read));
                }
                ctx.request_repaint();
            }
        });
        VideoWorker {
            want,
            sent: None,
            answer,
        }
    }

    /// Asks for frame `index` (once per change).
    fn ask(&mut self, index: u64) {
        if self.sent != Some(index) {
            let _ = self.want.send(index);
            self.sent = Some(index);
        }
    }

    /// The worker's newest answer, taken.
    fn take(&self) -> Option<Answer> {
        self.answer.lock().ok()?.take()
    }
}

/// The app's background sources, kept in egui's memory between frames.
#[derive(Default)]
struct Feed {
    image: Option<(PathBuf, ImageSlot)>,
    video: Option<(PathBuf, VideoSlot)>,
    /// The worker's last answer: the video frame index, and the frame with
    /// its number (none: past the end).
    frame: Option<(u64, Option<NumberedFrame>)>,
    /// Numbers for new pixels.
    next_id: u64,
    /// Messages already logged.
    logged: Vec<String>,
}

type Shared = Arc<Mutex<Feed>>;

fn feed_id() -> egui::Id {
    egui::Id::unique("vmd-studio background feed")
}

/// The layers to draw at scene frame `frame`, and what cannot be shown
/// (for a notice on the picture).
pub fn layers(ctx: &egui::Context, bg: &SceneBackground<'_>, frame: f64) -> (Layers, Vec<String>) {
    let feed: Shared = ctx.data_mut(|d| d.get_temp_mut_or_default::<Shared>(feed_id()).clone());
    let Ok(mut feed) = feed.lock() else {
        return (Layers::default(), Vec::new());
    };
    let mut notes = Vec::new();
    let mut out = Layers::default();
    if let Some(im) = bg.image {
        match feed.image(&im.path, ctx) {
            Ok(Some((id, pic))) => out.image = Some((id, pic, im.fit)),
            Ok(None) => {}
            Err(e) => notes.push(e),
        }
    } else {
        feed.image = None;
    }
    if let Some(v) = bg.video {
        match feed.video_frame(v, frame, ctx) {
            Ok(f) => out.video = f,
            Err(e) => notes.push(e),
        }
    } else {
        feed.video = None;
        feed.frame = None;
    }
    for n in &notes {
        if !feed.logged.contains(n) {
            tracing::warn!("{n}");
            feed.logged.push(n.clone());
        }
    }
    (out, notes)
}

impl Feed {
    fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The decoded image at `path` (started on a worker the first time;
    /// `None` while it decodes).
    fn image(
        &mut self,
        path: &Path,
        ctx: &egui::Context,
    ) -> Result<Option<(u64, Arc<TextureRgba>)>, String> {
        if self.image.as_ref().is_none_or(|(p, _)| p != path) {
            let (tx, rx) = std::sync::mpsc::channel();
            let (p, c) = (path.to_owned(), ctx.clone());
            std::thread::spawn(move || {
                let _ = tx.send(crate::render::background::read_image(&p));
                c.request_repaint();
            });
            self.image = Some((path.to_owned(), ImageSlot::Loading(rx)));
        }
        let done = match &self.image {
            Some((_, ImageSlot::Loading(rx))) => match rx.try_recv() {
                Ok(r) => Some(r),
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => Some(Err(format!(
                    "background image {}: the reader stopped",
                    path.display()
                ))),
            },
            _ => None,
        };
        if let Some(r) = done {
            let slot = match r {
                Ok(pic) => ImageSlot::Ready(self.new_id(), Arc::new(pic)),
                Err(e) => ImageSlot::Failed(format!("{e}; the background colour shows instead")),
            };
            self.image = Some((path.to_owned(), slot));
        }
        match &self.image {
            Some((_, ImageSlot::Ready(id, pic))) => Ok(Some((*id, pic.clone()))),
            Some((_, ImageSlot::Failed(e))) => Err(e.clone()),
            _ => Ok(None),
        }
    }

    /// The video's frame at scene frame `frame` (none before its offset
    /// or past its end; while the worker reads a new one, the last one
    /// read).
    fn video_frame(
        &mut self,
        v: &BackgroundVideo,
        frame: f64,
        ctx: &egui::Context,
    ) -> Result<Option<NumberedFrame>, String> {
        if self.video.as_ref().is_none_or(|(p, _)| p != &v.path) {
            let slot = match crate::video::locate_ffmpeg(None) {
                Ok(ffmpeg) => VideoSlot::Reading(VideoWorker::start(&v.path, &ffmpeg, ctx)),
                Err(e) => VideoSlot::Failed(format!(
                    "background video {} is not shown: it needs ffmpeg ({e})",
                    v.path.display()
                )),
            };
            self.video = Some((v.path.clone(), slot));
            self.frame = None;
        }
        let worker = match &mut self.video {
            Some((_, VideoSlot::Reading(w))) => w,
            Some((_, VideoSlot::Failed(e))) => return Err(e.clone()),
            None => return Ok(None),
        };
        let Some(index) = v.video_frame(frame) else {
            return Ok(None);
        };
        worker.ask(index);
        match worker.take() {
            Some((i, Ok(f))) => {
                let id = self.new_id();
                self.frame = Some((i, f.map(|f| (id, f))));
            }
            Some((_, Err(e))) => {
                if let Some((_, slot)) = &mut self.video {
                    *slot = VideoSlot::Failed(e.clone());
                }
                return Err(e);
            }
            None => {}
        }
        Ok(self.frame.as_ref().and_then(|(_, f)| f.clone()))
    }
}
