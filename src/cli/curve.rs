//! `set-curve`: batch curve edits. (Owned by the curve-editor work.)

use std::path::PathBuf;

use clap::Args;

use super::{CliError, CliResult, load, save};
use crate::vmd::Curve;
use crate::vmd::curve_edit::{
    self, BoneTrack, CurveEditError, FrameRange, parse_bone_channels, parse_camera_channels,
    parse_curve, preset,
};

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
    /// A preset name (the curve editor's library).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(curve_edit::preset_names()))]
    pub preset: Option<String>,
}

/// The target curve from `--curve` or `--preset`.
fn target_curve(a: &SetCurveArgs) -> Result<(Curve, String), CliError> {
    match (&a.curve, &a.preset) {
        (Some(text), _) => {
            let c = parse_curve(text).map_err(|e| CliError(format!("--curve: {e}")))?;
            Ok((c, curve_edit::format_curve(c)))
        }
        (None, Some(name)) => match preset(name) {
            Some(p) => Ok((
                p.curve,
                format!("{} = {}", p.name, curve_edit::format_curve(p.curve)),
            )),
            None => Err(CliError(format!(
                "unknown preset {name:?}; presets: {}",
                curve_edit::preset_names().join(", ")
            ))),
        },
        (None, None) => Err(CliError("give --curve x1,y1,x2,y2 or --preset NAME".into())),
    }
}

fn edit_error(e: CurveEditError) -> CliError {
    CliError(e.to_string())
}

/// Sets a curve on the keys of one bone (or the camera) in a frame range,
/// then saves atomically. Nothing is written on any error.
pub fn set_curve(a: SetCurveArgs) -> CliResult {
    // Check every argument before touching the file system.
    let (curve, curve_text) = target_curve(&a)?;
    let range = FrameRange::new(a.from, a.to);
    if let (Some(from), Some(to)) = (a.from, a.to)
        && from > to
    {
        return Err(CliError(format!("--from {from} is after --to {to}")));
    }
    let mut m = load(&a.input)?;
    let (report, what, n_channels) = match (&a.bone, a.camera) {
        (Some(name), false) => {
            let channels =
                parse_bone_channels(&a.channel).map_err(|e| CliError(format!("--channel: {e}")))?;
            let report =
                curve_edit::set_bone_curves(&mut m, BoneTrack::Text(name), range, &channels, curve)
                    .map_err(edit_error)?;
            (report, format!("bone {name}"), channels.len())
        }
        (None, true) => {
            let channels = parse_camera_channels(&a.channel)
                .map_err(|e| CliError(format!("--channel: {e}")))?;
            if m.cameras.is_empty() {
                return Err(CliError(format!(
                    "{} has no camera keys",
                    a.input.display()
                )));
            }
            let report = curve_edit::set_camera_curves(&mut m, range, &channels, curve)
                .map_err(edit_error)?;
            (report, "camera".to_string(), channels.len())
        }
        _ => {
            return Err(CliError(
                "give exactly one of --bone NAME or --camera".into(),
            ));
        }
    };
    save(&m, &a.output)?;
    let plural = if n_channels == 1 { "" } else { "s" };
    out!(
        "changed {} of {} keys ({n_channels} channel{plural}) on {what}, {range}; curve {curve_text}",
        report.changed_count(),
        report.matched_count(),
    );
    if report.matched.is_empty() {
        eprintln!("note: no keys of {what} in {range}; wrote the file unchanged");
    }
    Ok(())
}
