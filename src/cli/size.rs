//! `size`: fit a motion made for one model to another (see
//! [`crate::sizing`]) and print the quality report, source vs target before
//! and after sizing.
//!
//! Bad input (an unreadable file, a model lacking standard leg or arm
//! bones, zero-length bones, non-finite keys, a motion for another
//! skeleton) exits 1 with one line naming the problem; nothing is written.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::{CliError, CliResult, load, save};
use crate::model::Model;
use crate::sizing::{self, BoneChange, QualityReport, QualityStats, SizingOptions, SizingOutcome};

#[derive(Debug, Args)]
pub struct SizeArgs {
    /// The motion (VMD) made for the source model.
    pub motion: PathBuf,
    /// The model the motion was made for (PMX/PMD), or `builtin` for VMD
    /// Studio's built-in standard skeleton (about 20 units tall, hand-made;
    /// `assets/standard_skeleton.json`) when you do not have it.
    #[arg(long, value_name = "SOURCE.pmx")]
    pub from: PathBuf,
    /// The model that will wear the motion (PMX/PMD).
    #[arg(long, value_name = "TARGET.pmx")]
    pub to: PathBuf,
    /// Where to write the sized motion (atomically).
    #[arg(short, long, value_name = "OUT.vmd")]
    pub output: PathBuf,
    /// Leave the arms as they are (no stance turn).
    #[arg(long)]
    pub no_arms: bool,
    /// Do not lift feet off the floor.
    #[arg(long)]
    pub no_feet: bool,
    /// Do not turn the arms where the source's hands touch (hand
    /// alignment).
    #[arg(long)]
    pub no_hands: bool,
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
}

fn open_model(path: &Path) -> Result<Model, CliError> {
    Model::open(path).map_err(|e| CliError(format!("{}: {e}", path.display())))
}

/// Runs `size`.
pub fn size(a: SizeArgs) -> CliResult {
    let motion = load(&a.motion)?;
    let source = if a.from.as_os_str() == "builtin" && !a.from.exists() {
        crate::model::standard_model()
    } else {
        open_model(&a.from)?
    };
    let target = open_model(&a.to)?;
    let options = SizingOptions {
        arms: !a.no_arms,
        feet: !a.no_feet,
        hands: !a.no_hands,
    };
    let outcome = sizing::size_motion(&motion, &source, &target, &options)
        .map_err(|e| CliError(format!("cannot size: {e}")))?;
    let quality = sizing::quality(&motion, &outcome.motion, &source, &target)
        .map_err(|e| CliError(format!("cannot measure: {e}")))?;
    save(&outcome.motion, &a.output)?;
    if a.json {
        let report = SizeReport {
            output: a.output.display().to_string(),
            options,
            outcome: &outcome,
            quality: &quality,
        };
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&a.output, &outcome, &quality);
    }
    Ok(())
}

fn print_text(output: &Path, o: &SizingOutcome, q: &QualityReport) {
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
