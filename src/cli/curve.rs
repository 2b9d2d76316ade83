//! `set-curve`: batch curve edits. (Owned by the curve-editor work.)

use std::path::PathBuf;

use clap::Args;

use super::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct SetCurveArgs {
    /// The VMD file to read.
    pub input: PathBuf,
    /// Where to write the result.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Bone track to edit.
    #[arg(long, conflicts_with = "camera", required_unless_present = "camera")]
    pub bone: Option<String>,
    /// Edit camera keys.
    #[arg(long)]
    pub camera: bool,
    /// First frame of the range (inclusive).
    #[arg(long)]
    pub from: Option<u32>,
    /// Last frame of the range (inclusive).
    #[arg(long)]
    pub to: Option<u32>,
    /// Channel: x y z rotation all (bones); target-x target-y target-z rotation distance fov all (camera).
    #[arg(long)]
    pub channel: String,
    /// Control points x1,y1,x2,y2 (each 0..127).
    #[arg(long, conflicts_with = "preset", required_unless_present = "preset")]
    pub curve: Option<String>,
    /// A preset name (see the curve editor's library).
    #[arg(long)]
    pub preset: Option<String>,
}

pub fn set_curve(_a: SetCurveArgs) -> CliResult {
    Err(CliError("set-curve is not built yet".into()))
}
