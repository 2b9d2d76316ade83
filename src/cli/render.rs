//! `render` (a PNG sequence through the VMD camera) and `storyboard` (a
//! contact sheet of the first frame of every shot). Both draw offscreen
//! through the model renderer (feature `render`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use super::{CliError, CliResult};
use crate::model::LoadedModel;
use crate::render::sequence;
use crate::render::sheet::{self, SheetLayout};
use crate::render::stage::{IndexedMotion, Stage, demo_model};
use crate::render::{Offscreen, TextureRgba};
use crate::scene::shots::shots;
use crate::video::{self, PictureTimes, SongInput, VideoSpec, VideoWriter};
use crate::vmd::Motion;

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Inputs: a model (PMX/PMD), the motion it wears (VMD) and a camera
    /// (VMD; its light track is used too). More models each take the next
    /// motion. Without a model the bundled demo mannequin is drawn. Or a
    /// `.vmdscene` or an MMD project (`.pmm`), alone: its actors, camera,
    /// light, stages and accessories.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// MMD frames to render, inclusive: `A..B` (30 per second).
    #[arg(long, value_name = "A..B")]
    pub frames: String,
    /// Picture size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1920x1080")]
    pub size: String,
    /// Pictures per second: 30 (one per MMD frame) or 60 (two).
    #[arg(long, default_value_t = 30)]
    pub fps: u32,
    /// Output folder for 00000.png, 00001.png, … (created if missing).
    #[arg(
        short,
        long,
        value_name = "DIR",
        required_unless_present = "video",
        conflicts_with = "video"
    )]
    pub out: Option<PathBuf>,
    /// Draw no ground shadow (MMD's 地面影; on by default).
    #[arg(long)]
    pub no_ground_shadow: bool,
    /// Draw no self-shadow (on by default: mode and distance from the
    /// camera file's self-shadow keys, else MMD's mode 1 at 8875).
    #[arg(long)]
    pub no_self_shadow: bool,
    /// Do not simulate rigid bodies (hair, skirts). By default they are
    /// simulated as MMD plays, settled at the range's first frame.
    #[arg(long)]
    pub no_physics: bool,
    /// Let the rigid bodies of different models collide with each other
    /// (by default each model's hair and skirt touch only its own body and
    /// the ground, as MMD).
    #[arg(long, conflicts_with = "no_physics")]
    pub physics_collide_actors: bool,
    #[command(flatten)]
    pub set: SetArgs,
    #[command(flatten)]
    pub video: VideoArgs,
}

/// The set around the models: stages, props and accessories.
#[derive(Debug, Args, Default)]
pub struct SetArgs {
    /// A stage or prop drawn around the models at its rest pose: PMX, PMD
    /// or DirectX text .x (repeatable: a stage and a skydome, say).
    #[arg(long, value_name = "FILE")]
    pub stage: Vec<PathBuf>,
    /// An accessory: a .x at MMD's defaults, or a .vac placed (and attached
    /// to its bone on the first model that has it) as it says. `FILE.x@BONE`
    /// attaches a .x to the first model's bone (Japanese name, e.g.
    /// `negi.x@右手首`). Repeatable.
    #[arg(long, value_name = "FILE[@BONE]")]
    pub accessory: Vec<String>,
    /// The background: a colour, `R,G,B` (0–255) or `#RRGGBB` (default:
    /// the scene's, else MMD's white), or an image file (PNG, BMP, TGA,
    /// JPEG) drawn behind everything over the colour.
    #[arg(long, value_name = "COLOR|IMAGE")]
    pub background: Option<String>,
    /// How a --background image fits the picture: `fit` (whole image,
    /// aspect kept, centred), `stretch` (to the picture, as MMD) or
    /// `original` (its own pixel size, centred).
    #[arg(long, value_name = "MODE", default_value = "fit", value_parser = ["fit", "stretch", "original"])]
    pub background_fit: String,
}

/// What `--background` names: a colour, else an image file that exists.
#[derive(Debug, Clone, PartialEq)]
pub enum BackgroundArg {
    Colour([f32; 3]),
    Image(PathBuf),
}

/// `--background VALUE`: a colour if it reads as one, else an existing
/// file (an image); neither is an error naming the value.
pub fn parse_background(s: &str) -> Result<BackgroundArg, CliError> {
    if let Ok(c) = parse_colour(s) {
        return Ok(BackgroundArg::Colour(c));
    }
    let p = Path::new(s);
    if p.is_file() {
        return Ok(BackgroundArg::Image(p.to_owned()));
    }
    Err(CliError(format!(
        "--background {s}: not a colour (R,G,B with 0-255 each, or #RRGGBB) \
         and no image file {} exists",
        p.display()
    )))
}

/// `--background-fit` as the set's fit mode.
fn parse_fit(s: &str) -> crate::scene::set::ImageFit {
    use crate::scene::set::ImageFit;
    match s {
        "stretch" => ImageFit::Stretch,
        "original" => ImageFit::Original,
        _ => ImageFit::Fit,
    }
}

/// `R,G,B` (0–255 each) or `#RRGGBB` as RGB 0..1.
pub fn parse_colour(s: &str) -> Result<[f32; 3], CliError> {
    let bad = || CliError(format!("--background {s}: give R,G,B (0-255) or #RRGGBB"));
    let t = s.trim();
    let bytes: Vec<u8> = if let Some(hex) = t.strip_prefix('#') {
        if hex.len() != 6 || !hex.is_ascii() {
            return Err(bad());
        }
        (0..3)
            .map(|i| u8::from_str_radix(&hex[i * 2..i * 2 + 2], 16).map_err(|_| bad()))
            .collect::<Result<_, _>>()?
    } else {
        t.split(',')
            .map(|c| c.trim().parse::<u8>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?
    };
    match bytes[..] {
        [r, g, b] => Ok([r, g, b].map(|c| f32::from(c) / 255.0)),
        _ => Err(bad()),
    }
}

/// `render --video`: an MP4 instead of PNGs.
#[derive(Debug, Args)]
pub struct VideoArgs {
    /// Write one MP4 (H.264 yuv420p, with the song as AAC) instead of a PNG
    /// sequence. Needs ffmpeg (on PATH, or --ffmpeg).
    #[arg(long, value_name = "OUT.mp4")]
    pub video: Option<PathBuf>,
    /// The song under the video (WAV, MP3, OGG, FLAC: what ffmpeg reads).
    #[arg(long, value_name = "FILE", requires = "video")]
    pub song: Option<PathBuf>,
    /// Scene frame at which the song's first sample plays (a scene's song
    /// offset; may be negative).
    #[arg(
        long,
        value_name = "FRAME",
        default_value_t = 0,
        allow_hyphen_values = true,
        requires = "song"
    )]
    pub song_offset: i32,
    /// The ffmpeg program (default: `ffmpeg` on PATH).
    #[arg(long, value_name = "PATH", requires = "video")]
    pub ffmpeg: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct StoryboardArgs {
    /// The camera VMD, then optionally a model (PMX/PMD) and its motion.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// A model to show (the bundled demo mannequin if none is given).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// The motion the model wears.
    #[arg(long)]
    pub motion: Option<PathBuf>,
    /// Size of each tile, WIDTHxHEIGHT.
    #[arg(long, default_value = "320x180")]
    pub size: String,
    /// Tiles per row (default: a roughly 16:9 sheet).
    #[arg(long, default_value_t = 0)]
    pub columns: u32,
    /// Do not simulate rigid bodies. By default each tile shows them
    /// settled at the shot's first frame.
    #[arg(long)]
    pub no_physics: bool,
    /// Let the rigid bodies of different models collide with each other
    /// (by default each model's hair and skirt touch only its own body and
    /// the ground, as MMD).
    #[arg(long, conflicts_with = "no_physics")]
    pub physics_collide_actors: bool,
    #[command(flatten)]
    pub set: SetArgs,
    /// The sheet (PNG).
    #[arg(short, long, value_name = "SHEET.png")]
    pub out: PathBuf,
}

/// Parses `WIDTHxHEIGHT` (each 1..=8192).
pub fn parse_size(s: &str) -> Result<(u32, u32), CliError> {
    let bad = || CliError(format!("size \"{s}\" is not WIDTHxHEIGHT (e.g. 1920x1080)"));
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=8192).contains(&w) || !(1..=8192).contains(&h) {
        return Err(CliError(format!(
            "size {w}x{h} is out of range (1..8192 per side)"
        )));
    }
    Ok((w, h))
}

/// Parses `A..B` (inclusive, A ≤ B): the same rule as `pose --frames`.
pub use super::model::parse_frame_range as parse_frames;

enum Input {
    Model(PathBuf),
    Motion(Motion),
    Camera(Motion),
}

fn classify(path: &Path) -> Result<Input, CliError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("pmx" | "pmd") => Ok(Input::Model(path.to_owned())),
        Some("vmd") => {
            let m = super::load(path)?;
            if m.cameras.is_empty() && m.lights.is_empty() {
                Ok(Input::Motion(m))
            } else {
                Ok(Input::Camera(m))
            }
        }
        Some("x" | "vac") => Err(CliError(format!(
            "{}: an accessory: give it with --accessory (or a .x stage with --stage)",
            path.display()
        ))),
        _ => Err(CliError(format!(
            "{}: not a model (.pmx/.pmd) or motion (.vmd)",
            path.display()
        ))),
    }
}

fn open_model(path: &Path) -> Result<LoadedModel, CliError> {
    let lm = LoadedModel::open(path).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    for name in lm.textures.missing() {
        eprintln!("warning: {}: texture {name} is missing", path.display());
    }
    Ok(lm)
}

fn offscreen() -> Result<Offscreen, CliError> {
    Offscreen::new().map_err(|e| CliError(e.to_string()))
}

/// Builds a stage from a `.vmdscene` (alone), or from models, motions and
/// a camera given in any order.
fn stage_from(files: &[PathBuf], stage: &mut Stage) -> CliResult {
    if let Some(scene) = files.iter().find(|f| crate::scene::file::is_scene_path(f)) {
        if files.len() > 1 {
            return Err(CliError(format!(
                "{}: a scene file holds the models, motions and camera; give it alone",
                scene.display()
            )));
        }
        return stage_from_scene(scene, stage);
    }
    if let Some(pmm) = files.iter().find(|f| crate::project::is_project_path(f)) {
        if files.len() > 1 {
            return Err(CliError(format!(
                "{}: a project holds the models, motions and camera; give it alone",
                pmm.display()
            )));
        }
        return stage_from_project(pmm, stage);
    }
    let mut models = Vec::new();
    let mut motions = Vec::new();
    for f in files {
        match classify(f)? {
            Input::Model(p) => models.push(p),
            Input::Motion(m) => motions.push(m),
            Input::Camera(m) => {
                if stage.camera.is_some() {
                    return Err(CliError(format!(
                        "{}: a second camera (only one is drawn)",
                        f.display()
                    )));
                }
                if !m.lights.is_empty() {
                    stage.light = Some(IndexedMotion::new(m.clone()));
                }
                stage.camera = Some(IndexedMotion::new(m));
            }
        }
    }
    // One model wears every motion given (a dance and a face motion, as
    // MMD loads several onto one model); several models take one each.
    if models.len() <= 1 && motions.len() > 1 {
        let mut it = motions.into_iter();
        let first = it.next().unwrap_or_default();
        motions = vec![it.try_fold(first, |acc, m| merge_motions(&acc, &m))?];
    }
    if motions.len() > models.len().max(1) {
        return Err(CliError(format!(
            "{} motions for {} models: give one motion per model",
            motions.len(),
            models.len()
        )));
    }
    let mut motions = motions.into_iter();
    if models.is_empty() {
        let demo = demo_model().map_err(CliError)?;
        add(stage, demo, motions.next())?;
    }
    for p in models {
        let lm = open_model(&p)?;
        add(stage, lm, motions.next())?;
    }
    Ok(())
}

/// Everything a `.vmdscene` holds, drawn: each actor's model (the demo
/// mannequin for the built-in skeleton) wearing its motion at its offset,
/// the camera and light, the shown stages and the accessories, placed and
/// attached as saved. What the scene names but is not there is named on
/// stderr and left out (as the app does).
fn stage_from_scene(path: &Path, stage: &mut Stage) -> CliResult {
    use crate::scene::ModelRef;
    let loaded = crate::scene::file::load(path).map_err(|e| CliError(e.to_string()))?;
    for m in &loaded.missing {
        eprintln!("warning: {}: {m}; left out", path.display());
    }
    let s = loaded.scene;
    for m in stage.set_scene_background(&s.set.background, None) {
        eprintln!("error: {}: {m}", path.display());
    }
    for a in &s.actors {
        let model = match &a.model {
            ModelRef::File(p) => open_model(p)?,
            ModelRef::Builtin => demo_model().map_err(CliError)?,
        };
        let motion = match &a.motion {
            Some(m) => Some(IndexedMotion::new(super::load(m)?)),
            None => None,
        };
        stage
            .add_actor(model, motion, f64::from(a.offset))
            .map_err(|e| CliError(e.to_string()))?;
        stage.place_last_actor(a.placement.matrix());
    }
    if let Some(c) = &s.camera {
        stage.camera = Some(IndexedMotion::new(super::load(c)?));
    }
    if let Some(l) = &s.light {
        stage.light = Some(IndexedMotion::new(super::load(l)?));
    }
    for p in s.set.props.iter().filter(|p| p.shown) {
        let lm = LoadedModel::open_set_piece(&p.path).map_err(CliError)?;
        let motion = match &p.motion {
            Some(m) => Some(IndexedMotion::new(super::load(m)?)),
            None => None,
        };
        stage
            .add_stage(lm, p.order, motion)
            .map_err(|e| CliError(format!("{}: {e}", p.path.display())))?;
    }
    for a in &s.set.accessories {
        let lm = LoadedModel::open_set_piece(&a.path).map_err(CliError)?;
        stage
            .add_accessory(lm, a.clone())
            .map_err(|e| CliError(format!("{}: {e}", a.path.display())))?;
    }
    if stage.actors.is_empty() {
        stage
            .add_actor(demo_model().map_err(CliError)?, None, 0.0)
            .map_err(|e| CliError(e.to_string()))?;
    }
    Ok(())
}

/// Everything an MMD project holds that a picture shows: each model
/// wearing the keys the project holds for it, the camera and light, the
/// accessories placed and keyed as the project says
/// ([`crate::project::set`]). A model not found is named and replaced by
/// the demo mannequin wearing its keys; an accessory not found is named
/// and left out.
fn stage_from_project(path: &Path, stage: &mut Stage) -> CliResult {
    use crate::project;
    let (p, r) = project::open(path).map_err(CliError)?;
    for (i, m) in p.models.iter().enumerate() {
        let mm = project::model_motion(m, i);
        for w in &mm.warnings {
            eprintln!("warning: {}: {w}", path.display());
        }
        let model = match r.resolve(&m.path.text).path {
            Some(f) => open_model(&f)?,
            None => {
                eprintln!(
                    "warning: {}: model {} not found ({}); the demo mannequin wears its keys",
                    path.display(),
                    i + 1,
                    m.path.text
                );
                demo_model().map_err(CliError)?
            }
        };
        stage
            .add_actor(model, Some(IndexedMotion::new(mm.motion)), 0.0)
            .map_err(|e| CliError(e.to_string()))?;
    }
    let cm = project::camera_motion(&p);
    for w in &cm.warnings {
        eprintln!("warning: {}: {w}", path.display());
    }
    if !cm.motion.lights.is_empty() {
        stage.light = Some(IndexedMotion::new(cm.motion.clone()));
    }
    if !cm.motion.cameras.is_empty() {
        stage.camera = Some(IndexedMotion::new(cm.motion));
    }
    let accs = project::set::accessories(&p, &r);
    for (name, stored) in &accs.missing {
        eprintln!(
            "warning: {}: accessory {name} not found ({stored}); left out",
            path.display()
        );
    }
    for w in &accs.warnings {
        eprintln!("warning: {}: {w}", path.display());
    }
    for (a, _) in accs
        .accessories
        .into_iter()
        .zip(accs.found)
        .filter(|(_, f)| *f)
    {
        let lm = LoadedModel::open_set_piece(&a.path).map_err(CliError)?;
        let shown = a.path.clone();
        stage
            .add_accessory(lm, a)
            .map_err(|e| CliError(format!("{}: {e}", shown.display())))?;
    }
    if stage.actors.is_empty() {
        stage
            .add_actor(demo_model().map_err(CliError)?, None, 0.0)
            .map_err(|e| CliError(e.to_string()))?;
    }
    Ok(())
}

/// Adds the set's stages and accessories to `stage` (after its actors, so
/// an accessory's bone is looked up on the models given). Missing textures
/// are named as warnings, as for models.
pub fn add_set(set: &SetArgs, stage: &mut Stage) -> CliResult {
    match set
        .background
        .as_deref()
        .map(parse_background)
        .transpose()?
    {
        Some(BackgroundArg::Colour([r, g, b])) => stage.background = [r, g, b, 1.0],
        Some(BackgroundArg::Image(p)) => {
            let fit = parse_fit(&set.background_fit);
            let shown = crate::render::background::read_image(&p).and_then(|pic| {
                (stage.set_background_image(&pic, fit))
                    .map_err(|e| format!("background image {}: {e}", p.display()))
            });
            if let Err(e) = shown {
                eprintln!("error: {e}; the background colour shows instead");
            }
        }
        None => {}
    }
    use crate::scene::set::{DrawOrder, Parent, open_accessory_file};
    let open = |p: &Path| -> Result<LoadedModel, CliError> {
        let lm = LoadedModel::open_set_piece(p).map_err(CliError)?;
        for name in lm.textures.missing() {
            eprintln!("warning: {}: texture {name} is missing", p.display());
        }
        for w in &lm.model.warnings {
            eprintln!("warning: {}: {w}", p.display());
        }
        Ok(lm)
    };
    for p in &set.stage {
        let lm = open(p)?;
        stage
            .add_prop(lm, DrawOrder::BeforeModels)
            .map_err(|e| CliError(format!("{}: {e}", p.display())))?;
    }
    for spec in &set.accessory {
        let (path, bone) = split_accessory_spec(spec);
        let (mut acc, vac_bone) = open_accessory_file(&path).map_err(CliError)?;
        let bone = bone.or(vac_bone);
        if let Some(bone) = bone {
            let actor = stage
                .actors
                .iter()
                .position(|a| a.model.model.skeleton.bones.iter().any(|b| b.name == bone));
            match actor {
                Some(actor) => acc.state.parent = Parent::Bone { actor, bone },
                None => eprintln!(
                    "warning: {}: no model has the bone {bone}; the accessory stays in the world",
                    path.display()
                ),
            }
        }
        let lm = open(&acc.path.clone())?;
        stage
            .add_accessory(lm, acc)
            .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

/// `FILE` or `FILE@BONE`: a name that is a file as written is taken whole
/// (file names may hold `@`); else it splits at the last `@`.
pub fn split_accessory_spec(spec: &str) -> (PathBuf, Option<String>) {
    if Path::new(spec).exists() {
        return (PathBuf::from(spec), None);
    }
    match spec.rsplit_once('@') {
        Some((file, bone)) if !file.is_empty() && !bone.is_empty() => {
            (PathBuf::from(file), Some(bone.to_owned()))
        }
        _ => (PathBuf::from(spec), None),
    }
}

/// `later` loaded onto `earlier` as MMD does: [`join`](fn@crate::vmd::ops::join)
/// at frame 0 (the app's File ▸ Merge motion does the same), so each track and
/// frame is kept once, the later file's key winning.
pub fn merge_motions(earlier: &Motion, later: &Motion) -> Result<Motion, CliError> {
    use crate::vmd::ops::{JoinParams, JoinPlacement, join};
    let params = JoinParams {
        placement: JoinPlacement::At(0),
    };
    join(earlier, later, params)
        .map(|(m, _)| m)
        .map_err(|e| CliError(format!("cannot merge the motions: {e}")))
}

fn add(stage: &mut Stage, lm: LoadedModel, motion: Option<Motion>) -> CliResult {
    stage
        .add_actor(lm, motion.map(IndexedMotion::new), 0.0)
        .map_err(|e| CliError(e.to_string()))
}

pub fn render(a: RenderArgs) -> CliResult {
    let (w, h) = parse_size(&a.size)?;
    let (first, last) = parse_frames(&a.frames)?;
    if a.fps != 30 && a.fps != 60 {
        return Err(CliError(format!("--fps {}: use 30 or 60", a.fps)));
    }
    let times = PictureTimes::new(first, last, a.fps).map_err(CliError)?;
    // A video's ffmpeg, size and folder are checked before anything loads.
    // Ctrl+C from here on cancels (the partial file appears next).
    let stop = interrupted();
    let video = match &a.video.video {
        Some(out) => Some(video_start(&a.video, out, w, h, times)?),
        None => None,
    };
    let mut stage = Stage::new(offscreen()?);
    stage.ground_shadow = !a.no_ground_shadow;
    stage.self_shadow = !a.no_self_shadow;
    stage_from(&a.files, &mut stage)?;
    add_set(&a.set, &mut stage)?;
    set_physics(&mut stage, !a.no_physics, a.physics_collide_actors)?;
    let target = stage.target(w, h).map_err(|e| CliError(e.to_string()))?;
    let started = Instant::now();
    let count = times.count();
    let show = |done: u64, total: u64| {
        if done.is_multiple_of(10) || done == total {
            eprint!("\rrendered {done} of {total} pictures");
        }
    };
    let wrote = match (video, &a.out) {
        (Some(writer), _) => {
            let cancelled = || stop.load(std::sync::atomic::Ordering::Relaxed);
            let out = sequence::write_video(&mut stage, &target, &times, writer, &cancelled, show)
                .map_err(|e| CliError(e.to_string()));
            eprintln!();
            out?.display().to_string()
        }
        (None, Some(dir)) => {
            sequence::write_pngs(&mut stage, &target, &times, dir, &|| false, show)
                .map_err(CliError)?;
            eprintln!();
            dir.display().to_string()
        }
        (None, None) => return Err(CliError("give -o DIR or --video OUT.mp4".into())),
    };
    for m in stage.take_background_messages() {
        eprintln!("error: {m}");
    }
    let secs = started.elapsed().as_secs_f64();
    let what = if a.video.video.is_some() {
        "a video of "
    } else {
        ""
    };
    out!(
        "wrote {what}{count} pictures ({w}x{h}, {} fps) to {wrote} in {secs:.1} s: {:.1} pictures per second on {}",
        a.fps,
        count as f64 / secs.max(1e-9),
        stage.off.gpu.describe()
    );
    Ok(())
}

/// Physics on or off for the stage's actors (one world);
/// `--physics-collide-actors` needs bodies on two models at least.
fn set_physics(stage: &mut Stage, on: bool, collide_actors: bool) -> CliResult {
    stage.set_physics(on, collide_actors);
    let with_bodies = stage
        .actors
        .iter()
        .filter(|a| !a.model.model.rigid_bodies.is_empty())
        .count();
    if collide_actors && with_bodies < 2 {
        return Err(CliError(format!(
            "--physics-collide-actors: {with_bodies} of the {} models have rigid bodies; it needs two",
            stage.actors.len()
        )));
    }
    Ok(())
}

/// Set by Ctrl+C (SIGINT) once the handler is installed: the
/// video export then stops ffmpeg and deletes its partial file instead of
/// the process dying with the file half-written.
fn interrupted() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, OnceLock};
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&flag);
        if let Err(e) = ctrlc::set_handler(move || f.store(true, Ordering::Relaxed)) {
            eprintln!("warning: Ctrl+C will not clean up: {e}");
        }
        flag
    })
    .clone()
}

/// Finds ffmpeg and starts it for `render --video` (its song, if any, at
/// `--song-offset`).
fn video_start(
    v: &VideoArgs,
    out: &Path,
    width: u32,
    height: u32,
    times: PictureTimes,
) -> Result<VideoWriter, CliError> {
    let ffmpeg = video::locate_ffmpeg(v.ffmpeg.as_deref()).map_err(|e| CliError(e.to_string()))?;
    let spec = VideoSpec {
        width,
        height,
        times,
        song: v.song.as_ref().map(|p| SongInput {
            path: p.clone(),
            offset: v.song_offset,
        }),
    };
    VideoWriter::start(&ffmpeg, &spec, out).map_err(|e| CliError(e.to_string()))
}

pub fn storyboard(a: StoryboardArgs) -> CliResult {
    let (w, h) = parse_size(&a.size)?;
    // Refuse an unwritable destination before rendering anything.
    let parent = a.out.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent
        && !dir.is_dir()
    {
        return Err(CliError(format!(
            "cannot write {}: folder {} does not exist",
            a.out.display(),
            dir.display()
        )));
    }
    let mut files = a.files.clone();
    files.extend(a.model.iter().cloned());
    files.extend(a.motion.iter().cloned());
    let mut stage = Stage::new(offscreen()?);
    stage_from(&files, &mut stage)?;
    add_set(&a.set, &mut stage)?;
    set_physics(&mut stage, !a.no_physics, a.physics_collide_actors)?;
    let Some(cam) = stage.camera.as_ref() else {
        return Err(CliError(
            "no camera: give a VMD file with camera keys".into(),
        ));
    };
    let shots = shots(&cam.motion, &cam.index);
    if shots.is_empty() {
        return Err(CliError("the camera has no keys".into()));
    }
    let layout = SheetLayout::new(shots.len() as u32, w, h, a.columns);
    let (sw, sh) = (layout.width(), layout.height());
    if u64::from(sw) * u64::from(sh) > 400_000_000 {
        return Err(CliError(format!(
            "the sheet would be {sw}x{sh}; use a smaller --size or more --columns"
        )));
    }
    let mut sheet_img = TextureRgba::solid(sw, sh, [32, 32, 36, 255]);
    let target = stage.target(w, h).map_err(|e| CliError(e.to_string()))?;
    let scale = SheetLayout::label_scale(w);
    for (i, s) in shots.iter().enumerate() {
        let tile = stage
            .picture(&target, f64::from(s.first))
            .map_err(|e| CliError(e.to_string()))?;
        let (x, y) = layout.origin(i as u32);
        sheet::blit(&mut sheet_img, &tile, x, y);
        let label = format!(
            "#{}  {}-{}  ({}f)",
            i + 1,
            s.first,
            s.last,
            s.last - s.first + 1
        );
        sheet::draw_text(
            &mut sheet_img,
            x + 2,
            y + h + 4,
            &label,
            scale,
            [235, 235, 235, 255],
        );
        if i % 10 == 9 || i + 1 == shots.len() {
            eprint!("\rrendered {} of {} shots", i + 1, shots.len());
        }
    }
    eprintln!();
    for m in stage.take_background_messages() {
        eprintln!("error: {m}");
    }
    sheet_img
        .save_png(&a.out)
        .map_err(|e| CliError(e.to_string()))?;
    out!("{} shots", shots.len());
    out!("wrote {} ({sw}x{sh})", a.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_frame_ranges_parse_or_say_why_not() {
        assert_eq!(parse_size("1920x1080").unwrap(), (1920, 1080));
        assert!(parse_size("1920").is_err());
        assert!(parse_size("0x10").is_err());
        assert_eq!(parse_frames("0..299").unwrap(), (0, 299));
        assert_eq!(parse_frames("5..=9").unwrap(), (5, 9));
        assert!(parse_frames("9..5").unwrap_err().0.contains("before"));
        assert!(parse_frames("x..5").is_err());
    }

    #[test]
    fn a_later_motion_replaces_keys_at_the_same_frame_only() {
        use crate::vmd::{BoneKey, MorphKey, NameEncoding};
        let enc = NameEncoding::ShiftJis;
        let mut dance = Motion::new_v2();
        for f in [0, 10, 20] {
            dance
                .bones
                .push(BoneKey::new("頭", enc, f, [0.0; 3], [0.0, 0.0, 0.0, 1.0]).unwrap());
        }
        let mut face = Motion::new_v2();
        face.bones
            .push(BoneKey::new("頭", enc, 0, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]).unwrap());
        face.morphs.push(MorphKey::new("あ", enc, 5, 1.0).unwrap());
        let m = merge_motions(&dance, &face).unwrap();
        let mut frames: Vec<u32> = m.bones.iter().map(|k| k.frame()).collect();
        frames.sort_unstable();
        assert_eq!(frames, vec![0, 10, 20]);
        let at0 = m.bones.iter().find(|k| k.frame() == 0).unwrap();
        assert_eq!(
            at0.position(),
            [1.0, 0.0, 0.0],
            "the face file's key at frame 0 wins"
        );
        assert_eq!(m.morphs.len(), 1);
    }
}
