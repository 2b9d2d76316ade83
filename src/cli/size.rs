//! `size`: fit a motion made for one model to another (see
//! [`crate::sizing`]) and print the quality report, source vs target before
//! and after sizing.
//!
//! Bad input (an unreadable file, a model lacking standard leg or arm
//! bones, zero-length bones, non-finite keys, a motion for another
//! skeleton) exits 1 with one line naming the problem; nothing is written.
//!
//! `--camera CAM.vmd --camera-out OUT.vmd` also sizes a camera motion so
//! it keeps its framing on the target ([`crate::sizing::size_camera`]);
//! a camera file without camera keys, or a model without 頭, is refused
//! before anything is written.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::{CliError, CliResult, load, save};
use crate::model::Model;
use crate::sizing::{
    self, BoneChange, CameraOutcome, CameraReport, QualityReport, QualityStats, SizingOptions,
    SizingOutcome,
};

#[derive(Debug, Args)]
pub struct SizeArgs {
    /// The motion (VMD) made for the source model (or use --group).
    #[arg(required_unless_present = "group", conflicts_with = "group")]
    pub motion: Option<PathBuf>,
    /// The model the motion was made for (PMX/PMD), or `builtin` for VMD
    /// Studio's built-in standard skeleton (about 20 units tall, hand-made;
    /// `assets/standard_skeleton.json`) when you do not have it.
    #[arg(long, value_name = "SOURCE.pmx")]
    pub from: PathBuf,
    /// The model that will wear the motion (PMX/PMD).
    #[arg(
        long,
        value_name = "TARGET.pmx",
        required_unless_present = "group",
        conflicts_with = "group"
    )]
    pub to: Option<PathBuf>,
    /// Several actors sized together, each `MOTION.vmd=TARGET.pmx` (all
    /// motions made for --from): they share one horizontal ratio so a
    /// formation keeps its spacing; -o is then a folder that gets
    /// `<motion stem>_sized.vmd` for each.
    #[arg(long, value_name = "MOTION.vmd=TARGET.pmx", value_parser = parse_member)]
    pub group: Vec<(PathBuf, PathBuf)>,
    /// Where to write the sized motion (atomically); with --group, the
    /// folder to write the sized motions into.
    #[arg(short, long, value_name = "OUT.vmd|DIR")]
    pub output: PathBuf,
    /// Leave the arms as they are (no stance turn).
    #[arg(long)]
    pub no_arms: bool,
    /// Do not lift feet off the floor.
    #[arg(long)]
    pub no_feet: bool,
    /// Do not turn the arms where the source's hands touch each other or
    /// the head (hand alignment).
    #[arg(long)]
    pub no_hands: bool,
    /// A camera motion (VMD) made for the source: size it too, keeping
    /// the framing (needs --camera-out).
    #[arg(
        long,
        value_name = "CAM.vmd",
        requires = "camera_out",
        conflicts_with = "group"
    )]
    pub camera: Option<PathBuf>,
    /// Where to write the sized camera motion (needs --camera).
    #[arg(long, value_name = "CAM_OUT.vmd", requires = "camera")]
    pub camera_out: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The JSON report: what was done and how it measures.
#[derive(Debug, Serialize)]
struct SizeReport<'a> {
    output: String,
    options: SizingOptions,
    #[serde(flatten)]
    outcome: &'a SizingOutcome,
    quality: &'a QualityReport,
    /// The camera's sizing, with `--camera`.
    #[serde(skip_serializing_if = "Option::is_none")]
    camera: Option<CameraJson<'a>>,
}

#[derive(Debug, Serialize)]
struct CameraJson<'a> {
    output: String,
    #[serde(flatten)]
    report: &'a CameraReport,
}

/// `MOTION.vmd=TARGET.pmx` → the two paths (split after `.vmd` when the
/// motion's name ends so, else at the first `=`).
pub fn parse_member(s: &str) -> Result<(PathBuf, PathBuf), String> {
    let at = s
        .to_ascii_lowercase()
        .find(".vmd=")
        .map(|i| i + 4)
        .or_else(|| s.find('='))
        .ok_or_else(|| format!("{s}: expected MOTION.vmd=TARGET.pmx"))?;
    let (motion, target) = (&s[..at], &s[at + 1..]);
    if motion.is_empty() || target.is_empty() {
        return Err(format!("{s}: expected MOTION.vmd=TARGET.pmx"));
    }
    Ok((PathBuf::from(motion), PathBuf::from(target)))
}

pub(super) fn open_model(path: &Path) -> Result<Model, CliError> {
    Model::open(path).map_err(|e| CliError(format!("{}: {e}", path.display())))
}

/// The source model: a file, or `builtin` (when no such file exists).
pub(super) fn open_source(path: &Path) -> Result<Model, CliError> {
    if path.as_os_str() == "builtin" && !path.exists() {
        Ok(crate::model::standard_model())
    } else {
        open_model(path)
    }
}

/// The options the switches give.
pub(super) fn options(a: &SizeArgs) -> SizingOptions {
    SizingOptions {
        arms: !a.no_arms,
        feet: !a.no_feet,
        hands: !a.no_hands,
    }
}

/// Runs `size` (one motion; `--group` runs [`super::size_group`]).
pub fn size(a: SizeArgs) -> CliResult {
    let (Some(motion_path), Some(to)) = (&a.motion, &a.to) else {
        return Err(CliError(
            "give MOTION.vmd and --to TARGET.pmx (or --group)".into(),
        ));
    };
    let motion = load(motion_path)?;
    let source = open_source(&a.from)?;
    let target = open_model(to)?;
    let options = options(&a);
    let outcome = sizing::size_motion(&motion, &source, &target, &options)
        .map_err(|e| CliError(format!("cannot size: {e}")))?;
    // clap makes --camera and --camera-out come together.
    let camera = match (&a.camera, &a.camera_out) {
        (Some(path), Some(out)) => Some((out, size_camera(path, &source, &target, &outcome)?)),
        _ => None,
    };
    let quality = sizing::quality(&motion, &outcome.motion, &source, &target)
        .map_err(|e| CliError(format!("cannot measure: {e}")))?;
    save(&outcome.motion, &a.output)?;
    if let Some((out, c)) = &camera {
        save(&c.motion, out)?;
    }
    if a.json {
        let report = SizeReport {
            output: a.output.display().to_string(),
            options,
            outcome: &outcome,
            quality: &quality,
            camera: camera.as_ref().map(|(out, c)| CameraJson {
                output: out.display().to_string(),
                report: &c.report,
            }),
        };
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&a.output, &outcome, &quality);
        if let Some((out, c)) = &camera {
            print_camera(out, &c.report);
        }
    }
    Ok(())
}

/// Reads the camera motion at `path` and sizes it with the body motion's
/// ratios; refuses a file without camera keys.
fn size_camera(
    path: &Path,
    source: &Model,
    target: &Model,
    outcome: &SizingOutcome,
) -> Result<CameraOutcome, CliError> {
    let camera = load(path)?;
    if camera.cameras.is_empty() {
        return Err(CliError(format!(
            "{}: no camera keys to size (is it a camera motion?)",
            path.display()
        )));
    }
    let fit = sizing::camera_fit(source, target, &outcome.ratios)
        .map_err(|e| CliError(format!("cannot size the camera: {e}")))?;
    sizing::size_camera(&camera, &fit).map_err(|e| CliError(format!("cannot size the camera: {e}")))
}

fn print_camera(output: &Path, r: &CameraReport) {
    let f = &r.fit;
    out!(
        "camera → {}: look-at X/Z ×{:.4}, Y through hips {:.3}→{:.3} and head {:.3}→{:.3}, distance ×{:.4}",
        output.display(),
        f.horizontal,
        f.source_hips,
        f.target_hips,
        f.source_head,
        f.target_head,
        r.distance_ratio
    );
    out!(
        "  {} camera keys: {} changed (look-at and distance only), {} byte-identical; look-at moved {:.3} units at most, {:.3} on average",
        r.keys,
        r.changed,
        r.untouched,
        r.target_shift_max,
        r.target_shift_mean
    );
}

pub(super) fn print_text(output: &Path, o: &SizingOutcome, q: &QualityReport) {
    let r = o.ratios;
    out!(
        "sized → {}: horizontal ×{:.4}, vertical ×{:.4}, hips ×{:.4} {:+.3} units",
        output.display(),
        r.horizontal,
        r.vertical,
        r.hips,
        r.hip_offset
    );
    let touched: Vec<&BoneChange> = o
        .changes
        .iter()
        .filter(|c| c.changed + c.added > 0)
        .collect();
    let untouched_tracks = o.changes.len() - touched.len();
    for c in &touched {
        out!(
            "  {}: {} changed, {} added, {} untouched",
            c.bone,
            c.changed,
            c.added,
            c.untouched
        );
    }
    out!("  {untouched_tracks} other bone tracks byte-identical");
    if o.feet_lifted > 0 {
        out!("  {} leg-IK keys lifted off the floor", o.feet_lifted);
    }
    if !o.missing_in_target.is_empty() {
        out!(
            "  the target lacks: {} (kept in the file, not played on it)",
            o.missing_in_target.join(", ")
        );
    }
    for n in &o.notes {
        out!("  note: {n}");
    }
    out!(
        "quality over {} frames   source   before   after",
        q.source.frames
    );
    let row = |name: &str, f: &dyn Fn(&QualityStats) -> String| {
        out!(
            "  {name:<26} {:>8} {:>8} {:>8}",
            f(&q.source),
            f(&q.before),
            f(&q.after)
        );
    };
    row("leg IK reach (share)", &|s| format!("{:.3}", s.ik_reach));
    row("stance / leg", &|s| format!("{:.3}", s.stance));
    row("stance error", &|s| format!("{:.3}", s.stance_error));
    row("hip height / leg", &|s| format!("{:.3}", s.hip_height));
    row("hip error", &|s| format!("{:.3}", s.hip_error));
    row("frames toe below floor", &|s| s.floor_frames.to_string());
    row("deepest toe (units)", &|s| format!("{:.3}", s.floor_depth));
    let deg = |v: Option<f64>| v.map_or("-".into(), |d| format!("{d:.1}°"));
    row("upper-arm angle mean", &|s| deg(s.arm_angle_mean));
    row("upper-arm angle max", &|s| deg(s.arm_angle_max));
    let kept = |v: Option<f64>| v.map_or("-".into(), |k| format!("{:.1}%", k * 100.0));
    row("hand contacts (frames)", &|s| s.hand_contacts.to_string());
    row("hand contacts kept", &|s| kept(s.hand_contacts_kept));
    row("hand-head contacts", &|s| s.head_contacts.to_string());
    row("hand-head contacts kept", &|s| kept(s.head_contacts_kept));
}
