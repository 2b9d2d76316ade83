//! Toolbox verbs: load, run a pure operation from [`crate::vmd::ops`], save
//! atomically, print the report (one line per item, then a headline).
//!
//! Bad parameters (factor ≤ 0, A > B, unreadable files, bad maps) exit 1
//! with one line on stderr; nothing is written.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{CliError, CliResult, load, save};
use crate::vmd::ops::{self, OpError, Report};
use crate::vmd::write::save_bytes_atomic;

#[derive(Debug, Args)]
pub struct MirrorArgs {
    pub input: PathBuf,
    /// Only these frames, `A..B` (inclusive motion frames).
    #[arg(long)]
    pub frames: Option<String>,
    /// Only these bones (repeatable, or comma-separated names); every
    /// other track keeps its keys.
    #[arg(long, value_delimiter = ',')]
    pub bone: Vec<String>,
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct TrimArgs {
    pub input: PathBuf,
    #[arg(long)]
    pub from: u32,
    #[arg(long)]
    pub to: u32,
    /// Move frame A to frame 0.
    #[arg(long)]
    pub rebase: bool,
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct JoinArgs {
    pub first: PathBuf,
    pub second: PathBuf,
    /// Put the second file's frame 0 at this frame.
    #[arg(long, conflicts_with = "gap")]
    pub at: Option<u32>,
    /// Frames after the first file's last frame (default 1).
    #[arg(long)]
    pub gap: Option<u32>,
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct SpeedArgs {
    pub input: PathBuf,
    /// Speed factor: 2 plays twice as fast, 0.5 half as fast (must be > 0).
    #[arg(long, allow_negative_numbers = true)]
    pub factor: f64,
    /// Only these frames, `A..B` (inclusive motion frames): they play at the new
    /// speed and the keys after them move by the change of length.
    #[arg(long)]
    pub frames: Option<String>,
    /// Only these bones (repeatable, or comma-separated names); every
    /// other track keeps its keys.
    #[arg(long, value_delimiter = ',')]
    pub bone: Vec<String>,
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct FillRestArgs {
    pub input: PathBuf,
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct RenameArgs {
    pub input: PathBuf,
    /// Tab-separated lines: old name, new name.
    #[arg(long)]
    pub map: PathBuf,
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct ExportJsonArgs {
    pub input: PathBuf,
    /// Convert to right-handed coordinates (three.js style).
    #[arg(long)]
    pub right_handed: bool,
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct ImportJsonArgs {
    pub input: PathBuf,
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct SimplifyArgs {
    pub input: PathBuf,
    #[arg(short, long)]
    pub output: PathBuf,
    /// Bone position tolerance, MMD units per axis.
    #[arg(long, default_value_t = 0.01)]
    pub pos_tol: f64,
    /// Bone rotation tolerance, degrees.
    #[arg(long, default_value_t = 0.1)]
    pub rot_tol: f64,
    /// Morph weight tolerance (0–1).
    #[arg(long, default_value_t = 0.005)]
    pub morph_tol: f64,
    /// Camera target and distance tolerance, MMD units.
    #[arg(long, default_value_t = 0.01)]
    pub camera_tol: f64,
    /// Camera angle tolerance, degrees.
    #[arg(long, default_value_t = 0.1)]
    pub camera_angle_tol: f64,
    /// Camera field-of-view tolerance, degrees.
    #[arg(long, default_value_t = 0.1)]
    pub fov_tol: f64,
    /// How keys are chosen: best (default; per track the better of greedy and
    /// split), greedy, split, or linear (greedy with straight lines only).
    #[arg(long, value_enum, default_value = "best")]
    pub strategy: StrategyArg,
    /// Print the full report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyArg {
    Best,
    Greedy,
    Split,
    Linear,
}

#[derive(Debug, Args)]
pub struct BakeArgs {
    pub input: PathBuf,
    #[arg(short, long)]
    pub output: PathBuf,
    /// First frame to bake (default: the first key).
    #[arg(long)]
    pub from: Option<u32>,
    /// Last frame to bake (default: the last key).
    #[arg(long)]
    pub to: Option<u32>,
    /// A key every N frames (default 1).
    #[arg(long, default_value_t = 1)]
    pub step: u32,
}

fn op_err(e: OpError) -> CliError {
    CliError(e.to_string())
}

/// Prints the report and the output path.
fn finish(report: &Report, out: &Path) {
    out!("{report}");
    out!("wrote {}", out.display());
}

fn run_op(
    input: &Path,
    output: &Path,
    op: impl FnOnce(&crate::vmd::Motion) -> Result<(crate::vmd::Motion, Report), OpError>,
) -> CliResult {
    let m = load(input)?;
    let (out, report) = op(&m).map_err(op_err)?;
    save(&out, output)?;
    finish(&report, output);
    Ok(())
}

pub fn mirror(a: MirrorArgs) -> CliResult {
    let scope = key_scope(a.frames.as_deref(), &a.bone)?;
    run_op(&a.input, &a.output, |m| ops::mirror_scoped(m, &scope))
}

/// `--frames A..B` and `--bone NAME…` as a [`ops::KeyScope`]; a bone name
/// that Shift_JIS cannot hold is refused.
fn key_scope(frames: Option<&str>, bones: &[String]) -> Result<ops::KeyScope, CliError> {
    let frames = frames
        .map(super::frame_range::parse_frame_range)
        .transpose()?;
    let bones = if bones.is_empty() {
        None
    } else {
        let mut set = std::collections::BTreeSet::new();
        for b in bones {
            // As a VMD stores it: Shift_JIS, cut to the 15-byte field.
            let key = crate::vmd::name::bone_name_key(b.trim())
                .filter(|k| !k.is_empty())
                .ok_or_else(|| {
                    CliError(format!(
                        "--bone {b}: not a name a VMD file can hold (Shift_JIS)"
                    ))
                })?;
            set.insert(key);
        }
        Some(set)
    };
    Ok(ops::KeyScope { bones, frames })
}

pub fn trim(a: TrimArgs) -> CliResult {
    if a.from > a.to {
        return Err(CliError(format!(
            "--from {} is after --to {}: the range must run forwards",
            a.from, a.to
        )));
    }
    let p = ops::TrimParams {
        from: a.from,
        to: a.to,
        rebase: a.rebase,
    };
    run_op(&a.input, &a.output, |m| ops::trim(m, p))
}

pub fn join(a: JoinArgs) -> CliResult {
    let first = load(&a.first)?;
    let second = load(&a.second)?;
    let placement = match (a.at, a.gap) {
        (Some(f), _) => ops::JoinPlacement::At(f),
        (None, g) => ops::JoinPlacement::Gap(g.unwrap_or(1)),
    };
    let (out, report) =
        ops::join(&first, &second, ops::JoinParams { placement }).map_err(op_err)?;
    save(&out, &a.output)?;
    finish(&report, &a.output);
    Ok(())
}

pub fn speed(a: SpeedArgs) -> CliResult {
    if !a.factor.is_finite() || a.factor <= 0.0 {
        return Err(CliError(format!(
            "--factor must be a number above 0 (2 = twice as fast), got {}",
            a.factor
        )));
    }
    let p = ops::SpeedParams { factor: a.factor };
    let scope = key_scope(a.frames.as_deref(), &a.bone)?;
    run_op(&a.input, &a.output, |m| ops::speed_scoped(m, p, &scope))
}

pub fn fill_rest(a: FillRestArgs) -> CliResult {
    run_op(&a.input, &a.output, ops::fill_rest)
}

pub fn rename(a: RenameArgs) -> CliResult {
    let text = std::fs::read_to_string(&a.map)
        .map_err(|e| CliError(format!("cannot read map {}: {e}", a.map.display())))?;
    let map =
        ops::parse_rename_map(&text).map_err(|e| CliError(format!("{}: {e}", a.map.display())))?;
    run_op(&a.input, &a.output, |m| ops::rename(m, &map))
}

pub fn export_json(a: ExportJsonArgs) -> CliResult {
    let m = load(&a.input)?;
    let opts = ops::ExportOptions {
        right_handed: a.right_handed,
        pretty: true,
    };
    let (text, report) = ops::export_json(&m, opts).map_err(op_err)?;
    save_bytes_atomic(&a.output, text.as_bytes())?;
    finish(&report, &a.output);
    Ok(())
}

pub fn import_json(a: ImportJsonArgs) -> CliResult {
    let text = std::fs::read_to_string(&a.input)
        .map_err(|e| CliError(format!("cannot read {}: {e}", a.input.display())))?;
    let (m, report) =
        ops::import_json(&text).map_err(|e| CliError(format!("{}: {e}", a.input.display())))?;
    save(&m, &a.output)?;
    finish(&report, &a.output);
    Ok(())
}

pub fn simplify(a: SimplifyArgs) -> CliResult {
    let p = ops::SimplifyParams {
        pos_tol: a.pos_tol,
        rot_tol_deg: a.rot_tol,
        morph_tol: a.morph_tol,
        camera: ops::CameraTolerances {
            target: a.camera_tol,
            angle_deg: a.camera_angle_tol,
            distance: a.camera_tol,
            fov_deg: a.fov_tol,
        },
        strategy: match a.strategy {
            StrategyArg::Best => ops::Strategy::Best,
            StrategyArg::Greedy => ops::Strategy::Greedy,
            StrategyArg::Split => ops::Strategy::Split,
            StrategyArg::Linear => ops::Strategy::LinearGreedy,
        },
    };
    let m = load(&a.input)?;
    let (out, rep) = simplify_showing_progress(&m, &p)?;
    save(&out, &a.output)?;
    if a.json {
        let text = serde_json::to_string_pretty(&rep)
            .map_err(|e| CliError(format!("cannot write the JSON report: {e}")))?;
        out!("{text}");
    } else {
        out!("{}", rep.report);
        out!("wrote {}", a.output.display());
    }
    Ok(())
}

/// Runs the simplifier on a worker thread; when stderr is a terminal, shows
/// the share of frames done there (one line, rewritten in place) while it
/// runs. A pipe or a log gets no progress lines.
fn simplify_showing_progress(
    m: &crate::vmd::Motion,
    p: &ops::SimplifyParams,
) -> Result<(crate::vmd::Motion, ops::SimplifyReport), CliError> {
    use std::io::{IsTerminal, Write};
    let progress = crate::progress::Progress::default();
    let show = std::io::stderr().is_terminal();
    let done = std::thread::scope(|s| {
        let run = s.spawn(|| ops::simplify_with_progress(m, p, &progress));
        let mut shown = None;
        while !run.is_finished() {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let percent = (progress.fraction() * 100.0) as u32;
            if show && shown != Some(percent) {
                let mut e = std::io::stderr().lock();
                let _ = write!(e, "\rsimplify: {percent:3}% of the frames");
                let _ = e.flush();
                shown = Some(percent);
            }
        }
        if shown.is_some() {
            eprintln!();
        }
        run.join()
    });
    match done {
        Ok(r) => r.map_err(op_err),
        Err(_) => Err(CliError("simplify stopped unexpectedly".into())),
    }
}

pub fn bake(a: BakeArgs) -> CliResult {
    if let (Some(f), Some(t)) = (a.from, a.to)
        && f > t
    {
        return Err(CliError(format!(
            "--from {f} is after --to {t}: the range must run forwards"
        )));
    }
    if a.step == 0 {
        return Err(CliError("--step must be at least 1".into()));
    }
    let p = ops::BakeParams {
        from: a.from,
        to: a.to,
        step: a.step,
    };
    run_op(&a.input, &a.output, |m| ops::bake(m, p))
}
