//! The command line: `inspect`, `sample`, `rewrite`, curve, toolbox and
//! model verbs. No verb opens the GUI.
//!
//! Success exits 0; bad input exits 1 with one clear line on stderr.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

use crate::vmd::{self, Motion, TrackIndex};

/// `println!` for the verbs' output, except that a closed pipe (`inspect
/// --json F | head`) ends the process quietly with success, as `cat` and
/// other Unix tools do, instead of panicking. Other write errors are reported
/// and exit 1.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        $crate::cli::stdout_result(writeln!(std::io::stdout().lock(), $($arg)*))
    }};
}

/// `print!` counterpart of [`out!`].
macro_rules! out_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        $crate::cli::stdout_result(write!(std::io::stdout().lock(), $($arg)*))
    }};
}

/// What [`out!`] does with a failed write to stdout.
pub fn stdout_result(r: std::io::Result<()>) {
    if let Err(e) = r {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

pub mod accessory;
pub mod audio;
pub mod core;
pub mod curve;
pub mod frame_range;
pub mod model;
pub mod physics;
pub mod project;
#[cfg(feature = "render")]
pub mod render;
pub mod size;
pub mod size_group;
pub mod toolbox;
pub mod vpd;

/// An error for the user: one line, no backtrace.
#[derive(Debug)]
pub struct CliError(pub String);

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<E: std::error::Error> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError(e.to_string())
    }
}

pub type CliResult = Result<(), CliError>;

#[derive(Debug, Parser)]
#[command(
    name = "vmd-studio",
    version,
    about = "VMD Studio: a lossless editor for MikuMikuDance VMD motion and camera files",
    long_about = "VMD Studio opens VMD files (dance motions, cameras, facial and light tracks). \
Without a verb it opens the desktop app (on a bundled demo when no file is given).",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Log debug detail to stderr (the app also logs to a rotating file in
    /// its data directory). With a verb, give it after the verb.
    #[arg(long, short, global = true)]
    pub verbose: bool,
    /// Files to open in the app, as one scene: a `.vmdscene` file, or
    /// `MODEL.pmx DANCE.vmd CAMERA.vmd` (a model, the motion it wears, a
    /// camera; each VMD takes its role by what it holds, in this order).
    pub files: Vec<PathBuf>,
    /// Load this VMD onto the (last opened) actor's motion as MMD does, e.g. a
    /// face motion onto a dance: its keys are added from frame 0 as one
    /// undoable edit; the actor's file changes only when saved. Repeatable.
    #[arg(long, value_name = "MOTION.vmd")]
    pub merge: Vec<PathBuf>,
    /// Add a stage or prop (PMX, PMD or .x) to the scene's set, drawn
    /// around the models with no motion. Repeatable (a stage and a
    /// skydome). Accessories (.x, .vac) given as files go into the set too.
    #[arg(long, value_name = "FILE")]
    pub stage: Vec<PathBuf>,
    /// Render the window once it has settled, save it as PNG and exit.
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
    /// Graphics backend for the app.
    #[arg(long, value_enum, default_value = "wgpu")]
    pub renderer: GraphicsBackend,
    /// Frame to show (for screenshots).
    #[arg(long)]
    pub frame: Option<f64>,
    /// Window size, WIDTHxHEIGHT (each 200..8000).
    #[arg(long, default_value = "1600x1000", value_name = "WIDTHxHEIGHT", value_parser = parse_size)]
    pub size: [f32; 2],
    /// Panel to show first (for screenshots).
    #[arg(long, value_enum)]
    pub panel: Option<PanelArg>,
    /// Select a key once the files are open: `BONE@FRAME`, `MORPH@FRAME` or `camera@FRAME`.
    #[arg(long, value_name = "TRACK@FRAME")]
    pub select: Option<String>,
    /// Preview view: `camera` (through the VMD camera), `free` (orbit), or
    /// `free:RX,RY,DISTANCE[,TX,TY,TZ]` (degrees, degrees, units; the look-at
    /// point, model units, defaults to 0,10,0).
    #[arg(long, value_parser = ViewParser)]
    pub view: Option<ViewArg>,
}

/// The panel `--panel` shows first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PanelArg {
    /// The dope sheet (with the curve editor).
    Dope,
    /// The curve editor.
    Curves,
    /// The value graph (a track's values over time, curve handles).
    Graph,
    /// Byte-level forensics.
    Forensics,
    /// The 3D preview.
    Preview,
}

/// The preview view `--view` asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ViewArg {
    /// Through the VMD camera.
    Camera,
    /// The free orbit view, at its default angles.
    Free,
    /// The free orbit view at these angles (degrees) and distance (units),
    /// looking at `target` (model units) if given.
    Orbit {
        rx_deg: f32,
        ry_deg: f32,
        distance: f32,
        target: Option<[f32; 3]>,
    },
}

impl ViewArg {
    /// The text form (`camera`, `free`, `free:RX,RY,DISTANCE`).
    pub fn spec(&self) -> String {
        match self {
            ViewArg::Camera => "camera".into(),
            ViewArg::Free => "free".into(),
            ViewArg::Orbit {
                rx_deg,
                ry_deg,
                distance,
                target: None,
            } => format!("free:{rx_deg},{ry_deg},{distance}"),
            ViewArg::Orbit {
                rx_deg,
                ry_deg,
                distance,
                target: Some([x, y, z]),
            } => format!("free:{rx_deg},{ry_deg},{distance},{x},{y},{z}"),
        }
    }
}

/// Parses `--view`: a fixed word (with clap's possible values and "similar
/// value" tip) or `free:` and three numbers.
#[derive(Debug, Clone, Copy)]
pub struct ViewParser;

impl clap::builder::TypedValueParser for ViewParser {
    type Value = ViewArg;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<ViewArg, clap::Error> {
        if let Some(rest) = value.to_str().and_then(|s| s.strip_prefix("free:")) {
            let nums: Vec<f32> = rest
                .split(',')
                .filter_map(|t| t.trim().parse().ok())
                .filter(|x: &f32| x.is_finite())
                .collect();
            return match nums[..] {
                [rx_deg, ry_deg, distance] if rest.split(',').count() == 3 => Ok(ViewArg::Orbit {
                    rx_deg,
                    ry_deg,
                    distance,
                    target: None,
                }),
                [rx_deg, ry_deg, distance, x, y, z] if rest.split(',').count() == 6 => {
                    Ok(ViewArg::Orbit {
                        rx_deg,
                        ry_deg,
                        distance,
                        target: Some([x, y, z]),
                    })
                }
                _ => Err(clap::Error::raw(
                    clap::error::ErrorKind::InvalidValue,
                    format!(
                        "invalid value '{}' for '--view': after 'free:' give three numbers RX,RY,DISTANCE (degrees, degrees, units), optionally followed by the look-at point TX,TY,TZ\n",
                        value.to_string_lossy()
                    ),
                )
                .with_cmd(cmd)),
            };
        }
        let word = clap::builder::PossibleValuesParser::new(["camera", "free"])
            .parse_ref(cmd, arg, value)?;
        Ok(if word == "camera" {
            ViewArg::Camera
        } else {
            ViewArg::Free
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        use clap::builder::PossibleValue;
        Some(Box::new(
            [
                PossibleValue::new("camera").help("through the VMD camera"),
                PossibleValue::new("free").help("the free orbit view"),
                PossibleValue::new("free:RX,RY,DISTANCE")
                    .help("the free view at these angles (degrees) and distance"),
            ]
            .into_iter(),
        ))
    }
}

/// Parses `--size WIDTHxHEIGHT`.
pub fn parse_size(s: &str) -> Result<[f32; 2], String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT such as 1600x1000, got '{s}'"))?;
    let num = |t: &str, what: &str| {
        t.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| (200.0..=8000.0).contains(v))
            .ok_or_else(|| format!("the {what} '{t}' is not a number from 200 to 8000"))
    };
    Ok([num(w, "width")?, num(h, "height")?])
}

/// A clap error as one line: its message, possible values and tip joined,
/// without the usage block (so every failure is one line on stderr).
pub fn one_line_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .collect();
    let mut joined = String::new();
    for p in parts {
        if !joined.is_empty() {
            // "[possible values: …]" belongs to the line before it.
            joined.push_str(if p.starts_with('[') { " " } else { "; " });
        }
        joined.push_str(p);
    }
    let joined = joined.strip_prefix("error: ").unwrap_or(&joined);
    if joined.is_empty() {
        "invalid arguments (see --help)".into()
    } else {
        format!("{joined} (see --help)")
    }
}

/// The graphics backend the app window runs on (`--renderer`); not the
/// model renderer ([`crate::render::Renderer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphicsBackend {
    Glow,
    Wgpu,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print what a VMD file holds: kind, counts, length, tracks, cuts, warnings.
    Inspect(core::InspectArgs),
    /// Estimate a song's tempo and beats: bpm, first beat, beat times (seconds).
    Beats(audio::BeatsArgs),
    /// Evaluate every track at a frame (fractional frames allowed).
    Sample(core::SampleArgs),
    /// Load into the editable model and save unchanged (byte-identical).
    Rewrite(core::RewriteArgs),
    /// Set interpolation curves of bone or camera keys in a frame range.
    SetCurve(curve::SetCurveArgs),
    /// Mirror left/right: bones, names (左⇄右), camera.
    Mirror(toolbox::MirrorArgs),
    /// Keep frames A..B, keying the range ends so playback is unchanged.
    Trim(toolbox::TrimArgs),
    /// Append a second file after the first.
    Join(toolbox::JoinArgs),
    /// Change speed: new frame = round(frame / factor).
    Speed(toolbox::SpeedArgs),
    /// Add rest-pose keys at frame 0 for bones without a key there.
    FillRest(toolbox::FillRestArgs),
    /// Rename tracks from a TSV map of old → new names.
    Rename(toolbox::RenameArgs),
    /// Drop keys within tolerances, writing fitted VMD curves; reports the error.
    Simplify(toolbox::SimplifyArgs),
    /// Write a key on every frame (or every N) in a range, straight-line curves.
    Bake(toolbox::BakeArgs),
    /// Export every field of every key as JSON.
    ExportJson(toolbox::ExportJsonArgs),
    /// Build a VMD from an exported JSON (gives back the original bytes).
    ImportJson(toolbox::ImportJsonArgs),
    /// Describe a PMX/PMD model: counts, morphs by kind, missing textures;
    /// with --motion, the motion's names the model lacks.
    ModelInfo(model::ModelInfoArgs),
    /// Pose a model with a motion at a frame (append, IK, morphs, skinning;
    /// rigid-body physics with --physics).
    Pose(model::PoseArgs),
    /// Simulate a model's physics through a motion and write the physics
    /// bones as keys (physics off on them) so MMD plays the bake.
    BakePhysics(physics::BakePhysicsArgs),
    /// Key a VPD pose onto a motion at a frame (only the bones it names).
    ApplyVpd(vpd::ApplyVpdArgs),
    /// Describe an MMD project (.pmm): models, keys, paths, settings, what is missing.
    ProjectInfo(project::ProjectInfoArgs),
    /// Write an MMD project's motions and camera as VMD, with its models and a .vmdscene.
    ExportScene(project::ExportSceneArgs),
    /// Fit a motion made for one model to another (or a group of actors'
    /// motions to their models); prints the quality report.
    Size(size::SizeArgs),
    /// Render frames through the VMD camera as a numbered PNG sequence.
    #[cfg(feature = "render")]
    Render(render::RenderArgs),
    /// A contact sheet of the first frame of every camera shot, labelled.
    #[cfg(feature = "render")]
    Storyboard(render::StoryboardArgs),
}

/// Runs a verb.
pub fn run(cmd: Command) -> CliResult {
    match cmd {
        Command::Inspect(a) => core::inspect(a),
        Command::Beats(a) => audio::beats(a),
        Command::Sample(a) => core::sample(a),
        Command::Rewrite(a) => core::rewrite(a),
        Command::SetCurve(a) => curve::set_curve(a),
        Command::Mirror(a) => toolbox::mirror(a),
        Command::Trim(a) => toolbox::trim(a),
        Command::Join(a) => toolbox::join(a),
        Command::Speed(a) => toolbox::speed(a),
        Command::FillRest(a) => toolbox::fill_rest(a),
        Command::Rename(a) => toolbox::rename(a),
        Command::Simplify(a) => toolbox::simplify(a),
        Command::Bake(a) => toolbox::bake(a),
        Command::ExportJson(a) => toolbox::export_json(a),
        Command::ImportJson(a) => toolbox::import_json(a),
        // A `.x`/`.vac` accessory is described in a model's shape.
        Command::ModelInfo(a) if accessory::is_accessory_path(&a.model) => {
            accessory::accessory_info(&a)
        }
        Command::ModelInfo(a) => model::model_info(a),
        Command::Pose(a) => model::pose(a),
        Command::BakePhysics(a) => physics::bake(a),
        Command::ApplyVpd(a) => vpd::apply_vpd(a),
        Command::ProjectInfo(a) => project::project_info(a),
        Command::ExportScene(a) => project::export_scene(a),
        Command::Size(a) if !a.group.is_empty() => size_group::size_group(a),
        Command::Size(a) => size::size(a),
        #[cfg(feature = "render")]
        Command::Render(a) => render::render(a),
        #[cfg(feature = "render")]
        Command::Storyboard(a) => render::storyboard(a),
    }
}

/// Reads and parses a VMD file, with the path in the message on failure.
pub fn load(path: &Path) -> Result<Motion, CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError(format!("cannot read {}: {e}", path.display())))?;
    vmd::read_vec(bytes).map_err(|e| CliError(format!("{}: {e}", path.display())))
}

/// Loads and indexes.
pub fn load_indexed(path: &Path) -> Result<(Motion, TrackIndex), CliError> {
    let m = load(path)?;
    let idx = TrackIndex::build(&m);
    Ok((m, idx))
}

/// Saves atomically, with the path in the message on failure.
pub fn save(m: &Motion, path: &Path) -> CliResult {
    vmd::save(m, path).map_err(|e| CliError(e.to_string()))
}
