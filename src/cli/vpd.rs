//! VPD poses on the command line: `pose MODEL MOTION --frame F --vpd
//! OUT.vpd` (the pose the motion's keys give at F, before IK and physics)
//! and `apply-vpd MOTION POSE.vpd --frame F [--mirror] -o OUT.vmd` (keys at
//! F for the bones and morphs the pose names). Both write atomically.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{CliError, CliResult, load_indexed, save};
use crate::model::{Model, missing_names};
use crate::vmd::vpd::{self, Vpd};

/// The largest VPD read (a pose of every bone of a big model is ~100 KB).
const MAX_VPD_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Args)]
pub struct ApplyVpdArgs {
    /// The VMD motion to add the pose to.
    pub motion: PathBuf,
    /// The VPD pose file.
    pub pose: PathBuf,
    /// Frame to key the pose on (30 fps, whole frames).
    #[arg(long)]
    pub frame: u32,
    /// Mirror the pose left/right first (左 ⇄ 右, as the mirror verb does).
    #[arg(long)]
    pub mirror: bool,
    /// Where to write the motion.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Reads and parses a VPD, with the path in the message on failure.
pub fn load_vpd(path: &Path) -> Result<Vpd, CliError> {
    let cannot = |e: std::io::Error| CliError(format!("cannot read {}: {e}", path.display()));
    let len = std::fs::metadata(path).map_err(cannot)?.len();
    if len > MAX_VPD_BYTES {
        return Err(CliError(format!(
            "{}: {len} bytes is too large for a VPD pose (at most {MAX_VPD_BYTES})",
            path.display()
        )));
    }
    let bytes = std::fs::read(path).map_err(cannot)?;
    vpd::read(&bytes).map_err(|e| CliError(format!("{}: {e}", path.display())))
}

pub fn apply_vpd(a: ApplyVpdArgs) -> CliResult {
    let pose = load_vpd(&a.pose)?;
    let (motion, index) = load_indexed(&a.motion)?;
    let r = vpd::apply_vpd(&motion, &index, &pose, a.frame, a.mirror)
        .map_err(|e| CliError(format!("{}: {e}", a.pose.display())))?;
    for n in &r.notes {
        eprintln!("note: {n}");
    }
    let out = r.edit.as_ref().map_or(&motion, |e| &e.motion);
    save(out, &a.output)?;
    out!(
        "frame {}: {} keys added, {} changed, {} already held the pose{}",
        a.frame,
        r.added,
        r.changed,
        r.unchanged,
        if a.mirror { " (mirrored)" } else { "" }
    );
    Ok(())
}

/// The parent-file line for a model: its file name with `.osm`, as MMD
/// writes it (the model's own name, or "model", when the file name has
/// characters Shift_JIS lacks).
fn osm_name(path: &Path, model: &Model) -> String {
    let fits = |s: &str| !s.is_empty() && !s.contains(';') && !encoding_rs::SHIFT_JIS.encode(s).2;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = if fits(&stem) {
        stem
    } else if fits(&model.name) {
        model.name.clone()
    } else {
        "model".to_owned()
    };
    format!("{base}.osm")
}

/// `pose … --vpd OUT.vpd`: writes the motion's pose at `frame`.
pub fn write_pose(model_path: &Path, motion_path: &Path, frame: f64, out: &Path) -> CliResult {
    let model =
        Model::open(model_path).map_err(|e| CliError(format!("{}: {e}", model_path.display())))?;
    let (motion, index) = load_indexed(motion_path)?;
    let (pose, left_out) = vpd::pose_at(&motion, &index, frame, &osm_name(model_path, &model));
    for why in &left_out {
        eprintln!("note: left out: {why}");
    }
    let bytes = vpd::write(&pose).map_err(|e| CliError(format!("{}: {e}", out.display())))?;
    crate::vmd::write::save_bytes_atomic(out, &bytes).map_err(|e| CliError(e.to_string()))?;
    let missing = missing_names(&model, &index);
    if !missing.bones.is_empty() {
        eprintln!(
            "note: {} posed bones are not in the model: {}",
            missing.bones.len(),
            missing.bones.join(", ")
        );
    }
    out!(
        "frame {frame}: {} bones, {} morphs written to {}",
        pose.bones.len(),
        pose.morphs.len(),
        out.display()
    );
    Ok(())
}
