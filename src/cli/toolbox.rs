//! Toolbox verbs. (Owned by the toolbox work.)

use std::path::PathBuf;

use clap::Args;

use super::{CliError, CliResult};

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
    /// Speed factor: 2 plays twice as fast.
    #[arg(long)]
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

fn todo(verb: &str) -> CliResult {
    Err(CliError(format!("{verb} is not built yet")))
}

pub fn mirror(_a: MirrorArgs) -> CliResult {
    todo("mirror")
}
pub fn trim(_a: TrimArgs) -> CliResult {
    todo("trim")
}
pub fn join(_a: JoinArgs) -> CliResult {
    todo("join")
}
pub fn speed(_a: SpeedArgs) -> CliResult {
    todo("speed")
}
pub fn fill_rest(_a: FillRestArgs) -> CliResult {
    todo("fill-rest")
}
pub fn rename(_a: RenameArgs) -> CliResult {
    todo("rename")
}
pub fn export_json(_a: ExportJsonArgs) -> CliResult {
    todo("export-json")
}
pub fn import_json(_a: ImportJsonArgs) -> CliResult {
    todo("import-json")
}
