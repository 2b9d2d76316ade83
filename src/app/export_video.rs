//! File ▸ Export video…: the scene as an MP4 (H.264 + the scene's song as
//! AAC, through ffmpeg) or, without ffmpeg, as a PNG sequence. The export
//! runs as a cancellable job of the job service: it draws the scene on its
//! own headless GPU through the same loop as the CLI's `render`
//! ([`crate::render::sequence`]) while ffmpeg encodes; the dialog shows
//! frames done, time left and Cancel. What an export does with files
//! (temporary MP4 beside the target, renamed on success) is in
//! [`crate::video`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::jobs::{JobKind, JobService, Lane, Polled};
use super::panels::Shared;
use super::panels::fields::number_field;
use super::scene_ops::SceneState;
use crate::model::LoadedModel;
use crate::model::physics::SimulationMode;
use crate::render::Offscreen;
use crate::render::sequence;
use crate::render::stage::{IndexedMotion, Stage, demo_model};
use crate::scene::ModelRef;
use crate::video::{
    self, FfmpegMissing, PictureTimes, SongInput, VideoError, VideoSpec, VideoWriter,
};
use crate::vmd::Motion;

pub use crate::scene::video::{Aspect, free_name};
use crate::workspace::Workspace;

/// What the export makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Video,
    Pngs,
}

/// The result of an export job.
#[derive(Debug)]
pub enum Exported {
    Video {
        path: PathBuf,
        pictures: u64,
        secs: f64,
    },
    Pngs {
        dir: PathBuf,
        pictures: u64,
        secs: f64,
        complete: bool,
    },
    Failed(VideoError),
}

/// An export in flight.
#[derive(Debug)]
pub struct Running {
    pub output: Output,
    pub started: Instant,
    pub total: u64,
    pub done: Arc<AtomicU64>,
}

/// The dialog's state (kept while the app runs).
#[derive(Debug)]
pub struct State {
    pub open: bool,
    /// The MP4 to write.
    pub path: String,
    /// The PNG folder (offered without ffmpeg).
    pub png_dir: String,
    pub first: u32,
    pub last: u32,
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub aspect: Aspect,
    /// Lay the scene's song under the video.
    pub with_song: bool,
    /// ffmpeg to use; empty: `ffmpeg` on PATH.
    pub ffmpeg: String,
    /// `ffmpeg` field value → where ffmpeg is (looked up when it changes).
    found: Option<(String, Result<PathBuf, FfmpegMissing>)>,
    lane: Lane<Exported>,
    pub running: Option<Running>,
    /// The last export's outcome, in words (error: true).
    pub outcome: Option<(String, bool)>,
    /// Set once the range was filled from the scene.
    range_set: bool,
    /// Set once the aspect and size were taken from the preview's output frame.
    seeded: bool,
    /// The preview's shadow switches (the video shows what the preview shows).
    pub ground_shadow: bool,
    pub self_shadow: bool,
    /// The preview's physics: simulated unless its mode is Off (the video
    /// is simulated from the first frame exported, settled there, as
    /// `render` does), and whether actors' bodies collide.
    pub physics: bool,
    pub collide_actors: bool,
    /// Export was pressed while the file exists: the dialog asks before
    /// replacing it (Overwrite / Choose another name).
    pub confirm_overwrite: Option<PathBuf>,
    /// Browse… was pressed: the shell opens a save dialog and puts the
    /// chosen file in `path` ([`State::take_browse`]).
    browse: bool,
}

impl Default for State {
    fn default() -> Self {
        State {
            open: false,
            path: String::new(),
            png_dir: String::new(),
            first: 0,
            last: 0,
            width: 1920,
            height: 1080,
            fps: 30,
            aspect: Aspect::Wide,
            with_song: true,
            ffmpeg: String::new(),
            found: None,
            lane: Lane::default(),
            running: None,
            outcome: None,
            range_set: false,
            seeded: false,
            ground_shadow: true,
            self_shadow: true,
            physics: true,
            collide_actors: false,
            confirm_overwrite: None,
            browse: false,
        }
    }
}

impl State {
    /// Where ffmpeg is, for the current field (cached per value).
    pub fn ffmpeg(&mut self) -> Result<PathBuf, FfmpegMissing> {
        let key = self.ffmpeg.trim().to_owned();
        match &self.found {
            Some((k, r)) if *k == key => r.clone(),
            _ => {
                let named = (!key.is_empty()).then(|| PathBuf::from(&key));
                let r = video::locate_ffmpeg(named.as_deref());
                self.found = Some((key, r.clone()));
                r
            }
        }
    }

    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// "frame 12 of 60 — 0:05 left" while an export runs.
    pub fn progress_text(&self) -> Option<(f32, String)> {
        let r = self.running.as_ref()?;
        let done = r.done.load(Ordering::Relaxed);
        let left = video::time_left(done, r.total, r.started.elapsed())
            .map_or_else(String::new, |d| format!(" — {} left", video::clock(d)));
        let f = done as f32 / r.total.max(1) as f32;
        Some((f, format!("picture {done} of {}{left}", r.total)))
    }

    /// Cancels a running export and waits (at most 10 s) until it has
    /// stopped ffmpeg and deleted its partial file: for quitting the app.
    pub fn stop_and_wait(&mut self, jobs: &JobService) {
        let Some(id) = self.lane.current() else {
            return;
        };
        jobs.cancel(id);
        let t = Instant::now();
        while jobs.is_running(id) && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Asks the running export to stop (it deletes its partial file).
    pub fn cancel(&mut self, jobs: &JobService) {
        if let Some(id) = self.lane.current() {
            jobs.cancel(id);
        }
    }
}

/// One actor as the export draws it.
struct ExportActor {
    model: LoadedModel,
    motion: Option<Motion>,
    offset: f64,
    placement: Option<glam::Mat4>,
}

/// What the export job takes: copies, so editing may go on meanwhile.
struct ExportScene {
    actors: Vec<ExportActor>,
    /// The set's stages (shown ones) and accessories, as the viewport
    /// draws them.
    /// Shown stages: model, draw order, their own motion.
    props: Vec<(LoadedModel, crate::scene::set::DrawOrder, Option<Motion>)>,
    accessories: Vec<(LoadedModel, crate::scene::set::SetAccessory)>,
    camera: Option<Motion>,
    light: Option<Motion>,
    ground_shadow: bool,
    self_shadow: bool,
    physics: bool,
    collide_actors: bool,
    /// The scene's background (colour, image, video), as the preview
    /// draws it.
    background: crate::scene::set::Background,
    /// The ffmpeg the dialog names (empty: PATH), for a background video.
    ffmpeg: PathBuf,
}

impl ExportScene {
    fn stage(self) -> Result<Stage, String> {
        let off = Offscreen::new().map_err(|e| e.to_string())?;
        let mut stage = Stage::new(off);
        for a in self.actors {
            stage
                .add_actor(a.model, a.motion.map(IndexedMotion::new), a.offset)
                .map_err(|e| e.to_string())?;
            stage.place_last_actor(a.placement);
        }
        for (model, order, motion) in self.props {
            stage
                .add_stage(model, order, motion.map(IndexedMotion::new))
                .map_err(|e| e.to_string())?;
        }
        for (model, a) in self.accessories {
            stage.add_accessory(model, a).map_err(|e| e.to_string())?;
        }
        stage.camera = self.camera.map(IndexedMotion::new);
        stage.light = self.light.map(IndexedMotion::new);
        stage.ground_shadow = self.ground_shadow;
        stage.self_shadow = self.self_shadow;
        // What of the background cannot be shown is logged; the rest draws
        // (the viewport shows the same notice on its picture).
        let named = Some(self.ffmpeg.as_path()).filter(|p| !p.as_os_str().is_empty());
        for m in stage.set_scene_background(&self.background, named) {
            tracing::warn!("export: {m}");
        }
        stage.set_physics(self.physics, self.collide_actors);
        Ok(stage)
    }
}

impl State {
    /// The scene's copy for an export, or why there is none yet.
    fn export_scene(&self, ws: &Workspace, sc: &SceneState) -> Result<ExportScene, String> {
        let motion = |id: Option<u64>| {
            id.and_then(|id| ws.docs().iter().find(|d| d.id == id))
                .map(|d| d.motion.clone())
        };
        let mut actors = Vec::new();
        for a in &ws.scene().actors {
            let model = match &a.model {
                ModelRef::File(p) => match sc.models.get(p) {
                    Some(m) => m.loaded.clone(),
                    None => {
                        return Err(format!(
                            "{}'s model {} is not loaded (yet)",
                            a.name,
                            p.display()
                        ));
                    }
                },
                ModelRef::Builtin => demo_model()?,
            };
            actors.push(ExportActor {
                model,
                motion: motion(a.motion),
                offset: f64::from(a.offset),
                placement: a.placement.matrix(),
            });
        }
        if actors.is_empty() {
            return Err("the scene has no actor to draw".into());
        }
        // The set: a file that has not loaded is named, never dropped silently.
        let set = &ws.scene().set;
        let loaded = |p: &std::path::Path| {
            sc.models.get(p).map(|m| m.loaded.clone()).ok_or_else(|| {
                format!(
                    "the set's {} is not loaded (yet, or it could not be read)",
                    p.display()
                )
            })
        };
        let mut props = Vec::new();
        for p in set.props.iter().filter(|p| p.shown) {
            props.push((loaded(&p.path)?, p.order, motion(p.motion)));
        }
        let mut accessories = Vec::new();
        for a in &set.accessories {
            accessories.push((loaded(&a.path)?, a.clone()));
        }
        Ok(ExportScene {
            actors,
            props,
            accessories,
            camera: motion(ws.scene().camera),
            light: motion(ws.scene().light),
            ground_shadow: self.ground_shadow,
            self_shadow: self.self_shadow,
            physics: self.physics,
            collide_actors: self.collide_actors,
            background: set.background.clone(),
            ffmpeg: PathBuf::from(self.ffmpeg.trim()),
        })
    }

    /// Opens the dialog (File ▸ Export video…): frames 0..`last` the first
    /// time, the file named after `base` (the scene's or the active
    /// motion's file) with `.mp4`, as a full path (a bare name is in the
    /// current folder); later, the last export's file.
    pub fn open_dialog(&mut self, last: u32, base: PathBuf) {
        let st = self;
        st.open = true;
        if !st.range_set {
            st.range_set = true;
            st.first = 0;
            st.last = last;
        }
        if st.path.is_empty() {
            let base = match std::env::current_dir() {
                Ok(d) if !base.is_absolute() => d.join(base),
                _ => base,
            };
            st.path = base.with_extension("mp4").display().to_string();
        }
        if st.png_dir.is_empty() {
            let p = PathBuf::from(&st.path);
            let stem = p
                .file_stem()
                .map_or_else(|| "video".into(), |s| s.to_string_lossy().into_owned());
            st.png_dir = p
                .with_file_name(format!("{stem}_frames"))
                .display()
                .to_string();
        }
    }

    /// Whether Browse… was pressed since the last call (the shell then
    /// asks for a file: [`crate::app::jobs::Pick::ExportVideo`]).
    pub fn take_browse(&mut self) -> bool {
        std::mem::take(&mut self.browse)
    }

    /// The folder of the file the dialog would write (where Browse… starts).
    pub fn folder(&self) -> Option<PathBuf> {
        let p = PathBuf::from(self.path.trim());
        p.parent()
            .filter(|d| !d.as_os_str().is_empty() && d.is_dir())
            .map(Path::to_path_buf)
    }

    /// Export pressed: starts at once, or asks first when the file exists.
    fn export_pressed(&mut self) -> Option<Output> {
        let target = PathBuf::from(self.path.trim());
        if target.is_file() {
            self.confirm_overwrite = Some(target);
            None
        } else {
            Some(Output::Video)
        }
    }

    /// Starts exporting `output` with the dialog's settings.
    pub fn start(&mut self, output: Output, ws: &Workspace, sc: &SceneState, shared: &mut Shared) {
        if self.is_running() {
            return;
        }
        match self.try_start(output, ws, sc, &shared.jobs) {
            Ok(()) => self.outcome = None,
            Err(e) => {
                self.outcome = Some((e.clone(), true));
                shared.error(format!("Export: {e}"));
            }
        }
    }

    fn try_start(
        &mut self,
        output: Output,
        ws: &Workspace,
        sc: &SceneState,
        jobs: &JobService,
    ) -> Result<(), String> {
        let st = &mut *self;
        let times = PictureTimes::new(st.first, st.last, st.fps)?;
        let (w, h) = (st.width, st.height);
        if !(2..=8192).contains(&w) || !(2..=8192).contains(&h) {
            return Err(format!("size {w}x{h} is out of range (2..8192 per side)"));
        }
        let writer = match output {
            Output::Video => {
                let target = PathBuf::from(st.path.trim());
                if target.as_os_str().is_empty() {
                    return Err("give the video a file name".into());
                }
                let ffmpeg = st.ffmpeg().map_err(|e| e.to_string())?;
                let song = ws.scene().song.as_ref().filter(|_| st.with_song);
                let spec = VideoSpec {
                    width: w,
                    height: h,
                    times,
                    song: song.map(|s| SongInput {
                        path: s.path.clone(),
                        offset: s.offset,
                    }),
                };
                Some(VideoWriter::start(&ffmpeg, &spec, &target).map_err(|e| e.to_string())?)
            }
            Output::Pngs => None,
        };
        let png_dir = PathBuf::from(self.png_dir.trim());
        if output == Output::Pngs && png_dir.as_os_str().is_empty() {
            return Err("give the pictures a folder".into());
        }
        let scene = self.export_scene(ws, sc)?;
        let done = Arc::new(AtomicU64::new(0));
        let total = times.count();
        let label = match output {
            Output::Video => format!("Exporting {}", file_name(Path::new(&self.path))),
            Output::Pngs => format!("Exporting {} pictures", total),
        };
        let counter = Arc::clone(&done);
        let st = self;
        let started = Instant::now();
        st.lane
            .start(jobs, JobKind::Export, label, true, move |ctx| {
                let t0 = Instant::now();
                ctx.progress(0.0, "preparing the models");
                let mut stage = match scene.stage() {
                    Ok(s) => s,
                    Err(e) => return Exported::Failed(VideoError::Failed(e)),
                };
                let target = match stage.target(w, h) {
                    Ok(t) => t,
                    Err(e) => return Exported::Failed(VideoError::Failed(e.to_string())),
                };
                let cancelled = || ctx.cancelled();
                let progress = |n: u64, total: u64| {
                    counter.store(n, Ordering::Relaxed);
                    let left = video::time_left(n, total, t0.elapsed())
                        .map_or_else(String::new, |d| format!(", {} left", video::clock(d)));
                    ctx.progress(
                        n as f32 / total.max(1) as f32,
                        &format!("picture {n} of {total}{left}"),
                    );
                };
                let exported = match writer {
                    Some(writer) => {
                        match sequence::write_video(
                            &mut stage, &target, &times, writer, &cancelled, progress,
                        ) {
                            Ok(path) => Exported::Video {
                                path,
                                pictures: times.count(),
                                secs: t0.elapsed().as_secs_f64(),
                            },
                            Err(e) => Exported::Failed(e),
                        }
                    }
                    None => {
                        match sequence::write_pngs(
                            &mut stage, &target, &times, &png_dir, &cancelled, progress,
                        ) {
                            Ok(n) => Exported::Pngs {
                                dir: png_dir,
                                pictures: n,
                                secs: t0.elapsed().as_secs_f64(),
                                complete: n == times.count(),
                            },
                            Err(e) => Exported::Failed(VideoError::Failed(e)),
                        }
                    }
                };
                for m in stage.take_background_messages() {
                    tracing::warn!("export: {m}");
                }
                exported
            });
        st.running = Some(Running {
            output,
            started,
            total,
            done,
        });
        Ok(())
    }

    /// Takes a finished export's result (each frame).
    pub fn poll(&mut self, shared: &mut Shared) {
        let Some(p) = self.lane.poll(&shared.jobs) else {
            return;
        };
        self.running = None;
        let (text, error) = match p {
            Polled::Done(f) => match f.value {
                Exported::Video {
                    path,
                    pictures,
                    secs,
                } => (
                    format!(
                        "Exported {} ({pictures} pictures in {secs:.1} s)",
                        path.display()
                    ),
                    false,
                ),
                Exported::Pngs {
                    dir,
                    pictures,
                    secs,
                    complete,
                } => (
                    format!(
                        "{} {pictures} pictures to {} in {secs:.1} s",
                        if complete { "Wrote" } else { "Cancelled after" },
                        dir.display()
                    ),
                    !complete,
                ),
                Exported::Failed(VideoError::Cancelled) => {
                    ("Export cancelled; no file was written".to_owned(), true)
                }
                Exported::Failed(e) => (format!("Export failed: {e}"), true),
            },
            Polled::Lost(_) => ("Export failed: the export job stopped".to_owned(), true),
        };
        if error {
            shared.error(text.clone());
        } else {
            shared.info(text.clone());
        }
        self.outcome = Some((text, error));
    }

    /// The dialog window (while open) and the running export's result.
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        ws: &Workspace,
        sc: &SceneState,
        viewport: &crate::app::panels::viewport::State,
        shared: &mut Shared,
    ) {
        self.poll(shared);
        if !self.open {
            return;
        }
        // The preview's output frame and shadows are what the video shows.
        let look = viewport.view.look;
        let st = &mut *self;
        st.ground_shadow = look.ground_shadow;
        st.self_shadow = look.self_shadow;
        st.physics = viewport.posing.physics != SimulationMode::Off;
        st.collide_actors = viewport.posing.collide_actors;
        if !st.seeded {
            st.seeded = true;
            st.aspect = match look.aspect {
                0 => Aspect::Wide,
                1 => Aspect::Classic,
                2 => Aspect::Square,
                3 => Aspect::Vertical,
                _ => {
                    st.width = look.custom.0.clamp(2, 8192) / 2 * 2;
                    st.height = look.custom.1.clamp(2, 8192) / 2 * 2;
                    Aspect::Free
                }
            };
            if st.aspect == Aspect::Vertical {
                (st.width, st.height) = (1080, 1920);
            }
        }
        let mut open = true;
        let mut start = None;
        let mut cancel = false;
        let song = ws.scene().song.clone();
        egui::Window::new("Export video")
            .open(&mut open)
            .resizable(false)
            .collapsible(false)
            .show(ctx, |ui| {
                let st = &mut *self;
                let running = st.is_running();
                ui.add_enabled_ui(!running, |ui| {
                    egui::Grid::new("export-video-grid")
                        .num_columns(2)
                        .show(ui, |ui| form(ui, st, song.as_ref()));
                });
                let on = |b: bool| if b { "on" } else { "off" };
                ui.weak(format!(
                    "As in the preview: ground shadow {}, self-shadow {} (Preview settings), \
                     physics {} (Playback > Physics)",
                    on(st.ground_shadow),
                    on(st.self_shadow),
                    on(st.physics)
                ));
                ui.separator();
                let found = st.ffmpeg();
                match &found {
                    Ok(p) => {
                        ui.weak(format!("ffmpeg: {}", p.display()));
                    }
                    Err(e) => {
                        ui.colored_label(ui.visuals().warn_fg_color, e.to_string());
                        ui.horizontal(|ui| {
                            let l = ui.label("PNG folder:");
                            ui.add(
                                egui::TextEdit::singleline(&mut st.png_dir).desired_width(260.0),
                            )
                            .labelled_by(l.id);
                        });
                        if ui
                            .add_enabled(!running, egui::Button::new("Export PNG sequence instead"))
                            .on_hover_text(
                                "00000.png, 00001.png, … in the folder; no ffmpeg needed",
                            )
                            .clicked()
                        {
                            start = Some(Output::Pngs);
                        }
                    }
                }
                if let Some((f, text)) = st.progress_text() {
                    ui.add(egui::ProgressBar::new(f).text(text).desired_width(340.0));
                    if ui.button("Cancel export").clicked() {
                        cancel = true;
                    }
                    ui.ctx().request_repaint_after(Duration::from_millis(100));
                } else if let Some(target) = st.confirm_overwrite.clone() {
                    start = confirm_ui(ui, st, &target);
                } else if ui
                    .add_enabled(found.is_ok(), egui::Button::new("Export"))
                    .on_hover_text("Write the MP4 (H.264 + AAC) through ffmpeg")
                    .clicked()
                {
                    start = st.export_pressed();
                }
                if let Some((text, error)) = &st.outcome {
                    if *error {
                        ui.colored_label(ui.visuals().error_fg_color, text);
                    } else {
                        ui.label(text);
                    }
                }
            });
        if cancel {
            self.cancel(&shared.jobs);
        }
        if let Some(o) = start {
            self.start(o, ws, sc, shared);
        }
        if !open {
            self.open = false;
        }
    }
}

/// Asks before replacing `target`: Overwrite starts the export, Choose
/// another name puts the next free name (`NAME-2.mp4`, …) in the field.
fn confirm_ui(ui: &mut egui::Ui, st: &mut State, target: &Path) -> Option<Output> {
    ui.colored_label(
        ui.visuals().warn_fg_color,
        format!("{} exists. Replace it?", target.display()),
    );
    let mut start = None;
    ui.horizontal(|ui| {
        if ui.button("Overwrite").clicked() {
            st.confirm_overwrite = None;
            start = Some(Output::Video);
        }
        if ui
            .button("Choose another name")
            .on_hover_text("The next free name in the same folder; edit it or Browse…")
            .clicked()
        {
            st.confirm_overwrite = None;
            st.path = free_name(target).display().to_string();
        }
    });
    start
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The settings grid: file, frames, size and aspect, rate, song, ffmpeg.
fn form(ui: &mut egui::Ui, st: &mut State, song: Option<&crate::scene::Song>) {
    let l = ui.label("File:");
    ui.horizontal(|ui| {
        let r = ui
            .add(
                egui::TextEdit::singleline(&mut st.path)
                    .hint_text("/path/to/video.mp4")
                    .desired_width(320.0),
            )
            .labelled_by(l.id);
        if r.changed() {
            st.confirm_overwrite = None;
        }
        if ui
            .button("Browse…")
            .on_hover_text("Choose the file to write")
            .clicked()
        {
            st.browse = true;
        }
    });
    ui.end_row();

    ui.label("Frames:");
    ui.horizontal(|ui| {
        number_field(ui, &mut st.first, "First frame");
        ui.label("to");
        number_field(ui, &mut st.last, "Last frame (inclusive)");
        if st.last < st.first {
            st.last = st.first;
        }
    });
    ui.end_row();

    ui.label("Aspect:");
    egui::ComboBox::from_id_salt("export-aspect")
        .selected_text(st.aspect.label())
        .show_ui(ui, |ui| {
            for a in Aspect::ALL {
                ui.selectable_value(&mut st.aspect, a, a.label());
            }
        });
    ui.end_row();

    ui.label("Size:");
    ui.horizontal(|ui| {
        ui.add(
            egui::DragValue::new(&mut st.width)
                .range(2..=8192)
                .suffix(" w"),
        );
        let free = st.aspect == Aspect::Free;
        ui.add_enabled(
            free,
            egui::DragValue::new(&mut st.height)
                .range(2..=8192)
                .suffix(" h"),
        );
        // H.264 yuv420p wants even sides.
        st.width += st.width % 2;
        st.height += st.height % 2;
        if let Some(h) = st.aspect.height_for(st.width) {
            st.height = h.min(8192);
        }
        for (pw, ph) in [(1920, 1080), (1280, 720), (640, 360)] {
            if ui.small_button(format!("{pw}×{ph}")).clicked() {
                st.aspect = Aspect::Wide;
                st.width = pw;
                st.height = ph;
            }
        }
    });
    ui.end_row();

    ui.label("Rate:");
    ui.horizontal(|ui| {
        ui.radio_value(&mut st.fps, 30, "30 fps");
        ui.radio_value(&mut st.fps, 60, "60 fps");
    });
    ui.end_row();

    ui.label("Song:");
    match song {
        Some(s) => {
            ui.checkbox(
                &mut st.with_song,
                format!("{} (starts at frame {})", file_name(&s.path), s.offset),
            );
        }
        None => {
            ui.weak("none in the scene (File > Load song…)");
        }
    }
    ui.end_row();

    let l = ui.label("ffmpeg:");
    ui.add(
        egui::TextEdit::singleline(&mut st.ffmpeg)
            .hint_text("ffmpeg on PATH")
            .desired_width(260.0),
    )
    .labelled_by(l.id);
    ui.end_row();
}
