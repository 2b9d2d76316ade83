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

fn op_err(e: OpError) -> CliError {
    CliError(e.to_string())
}

/// Prints the report and the output path.
fn finish(report: &Report, out: &Path) {
    println!("{report}");
    println!("wrote {}", out.display());
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
    run_op(&a.input, &a.output, ops::mirror)
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
    run_op(&a.input, &a.output, |m| ops::speed(m, p))
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
