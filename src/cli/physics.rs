//! `bake-physics`: simulate a motion on a model and write the physics bones
//! as keys (physics off on them) into a new VMD; and the physics part of
//! `model-info`.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{CliError, CliResult};
use crate::model::physics::{BodyMode, bake_physics_from, world_setup};
use crate::model::{Model, PhysicsMode};
use crate::vmd::Motion;

#[derive(Debug, Args)]
pub struct BakePhysicsArgs {
    /// The model (PMX 2.0/2.1 or PMD) with rigid bodies.
    pub model: PathBuf,
    /// The VMD motion it dances.
    pub motion: PathBuf,
    /// Motion frames to bake, inclusive `A..B` (default: 0 to the motion's
    /// last key). Only these frames are written.
    #[arg(long, value_name = "A..B")]
    pub frames: Option<String>,
    /// The frame the simulation starts at, settled there (at most A): the
    /// frames before A are simulated, not written, so the hair's momentum
    /// at A is what playing from this frame shows. Default 0: as playback
    /// from the start.
    #[arg(long, value_name = "FRAME", default_value_t = 0)]
    pub simulate_from: u32,
    /// The baked VMD (written atomically; may not be the input).
    #[arg(short, long, value_name = "OUT.vmd")]
    pub out: PathBuf,
}

/// The last key frame of any section (0 for an empty motion).
fn last_frame(m: &Motion) -> u32 {
    let bones = m.bones.iter().map(|k| k.frame());
    let morphs = m.morphs.iter().map(|k| k.frame());
    let iks = m.iks.iter().map(|k| k.frame());
    bones.chain(morphs).chain(iks).max().unwrap_or(0)
}

pub fn bake(a: BakePhysicsArgs) -> CliResult {
    let same = |x: &std::path::Path, y: &std::path::Path| match (x.canonicalize(), y.canonicalize())
    {
        (Ok(p), Ok(q)) => p == q,
        _ => false,
    };
    if same(&a.motion, &a.out) {
        return Err(CliError(format!(
            "-o {} is the input motion: write the bake to a new file",
            a.out.display()
        )));
    }
    let model =
        Model::open(&a.model).map_err(|e| CliError(format!("{}: {e}", a.model.display())))?;
    let motion = super::load(&a.motion)?;
    let (first, last) = match &a.frames {
        Some(r) => super::frame_range::parse_frame_range(r)?,
        None => (0, last_frame(&motion)),
    };
    let started = std::time::Instant::now();
    let mut shown = 0;
    let (baked, report) = bake_physics_from(&model, &motion, first..=last, a.simulate_from, |f| {
        let percent = (f * 100.0) as u32;
        if percent >= shown + 10 || percent == 100 {
            eprint!("\rbake-physics: {percent:3}%");
            shown = percent;
        }
        true
    })
    .map_err(|e| CliError(format!("{}: {e}", a.model.display())))?;
    eprintln!();
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    for r in &report.resets {
        eprintln!("warning: {r}");
    }
    for l in &report.left_out {
        eprintln!("warning: {l}");
    }
    super::save(&baked, &a.out)?;
    let secs = started.elapsed().as_secs_f64();
    out!(
        "baked {} bones over frames {first}..{last} ({} frames, simulated from frame {}): {} keys written, {} replaced, physics off on each; {} resets; {secs:.2} s",
        report.bones.len(),
        report.frames,
        report.simulated_from,
        report.keys_written,
        report.keys_replaced,
        report.resets.len()
    );
    if report.keys_restoring > 0 {
        out!(
            "{} keys at frame {} turn physics back on after the range",
            report.keys_restoring,
            last.saturating_add(1)
        );
    }
    if !report.left_out.is_empty() {
        let names: Vec<&str> = report.left_out.iter().map(|l| l.bone.as_str()).collect();
        out!(
            "{} physics bones left out (a VMD cannot store their names): {}",
            names.len(),
            names.join(", ")
        );
    }
    out!("wrote {}", a.out.display());
    Ok(())
}

/// `model-info`'s physics part: bodies by mode, joints, what was refused.
#[derive(Debug, Serialize)]
pub struct PhysicsInfo {
    /// Bodies by the mode the file gives: follow bone, physics, physics +
    /// bone position.
    pub file_modes: ModeCounts,
    /// Bodies by the mode simulated (after demotion and repairs).
    pub simulated_modes: ModeCounts,
    /// Mode-2 bodies simulated as mode 1 (their bone's parent is driven by a
    /// dynamic body).
    pub demoted: Vec<String>,
    /// Joints built, of the file's.
    pub joints_built: usize,
    pub joints_in_file: usize,
    /// Everything repaired or refused, naming the body or joint.
    pub refused: Vec<String>,
}

#[derive(Debug, Default, Serialize)]
pub struct ModeCounts {
    pub follow_bone: usize,
    pub physics: usize,
    pub physics_bone_position: usize,
}

/// Reads the model's physics setup as the simulation will build it.
pub fn physics_info(model: &Model) -> PhysicsInfo {
    let setup = world_setup(model);
    let mut file_modes = ModeCounts::default();
    for b in &model.rigid_bodies {
        match b.mode {
            PhysicsMode::FollowBone => file_modes.follow_bone += 1,
            PhysicsMode::Physics => file_modes.physics += 1,
            PhysicsMode::PhysicsWithBone => file_modes.physics_bone_position += 1,
        }
    }
    let mut simulated_modes = ModeCounts::default();
    let mut demoted = Vec::new();
    for b in &setup.bodies {
        match b.mode {
            BodyMode::FollowBone => simulated_modes.follow_bone += 1,
            BodyMode::Physics => simulated_modes.physics += 1,
            BodyMode::PhysicsKeepTranslation => simulated_modes.physics_bone_position += 1,
        }
        if b.file_mode == PhysicsMode::PhysicsWithBone && b.mode == BodyMode::Physics {
            demoted.push(b.name.clone());
        }
    }
    PhysicsInfo {
        file_modes,
        simulated_modes,
        demoted,
        joints_built: setup.joints.len(),
        joints_in_file: model.joints.len(),
        refused: setup.warnings,
    }
}

/// Prints [`PhysicsInfo`] as text lines.
pub fn print_physics_info(p: &PhysicsInfo) {
    let m = |c: &ModeCounts| {
        format!(
            "follow bone {}  physics {}  physics + bone position {}",
            c.follow_bone, c.physics, c.physics_bone_position
        )
    };
    out!("rigid bodies by mode (file): {}", m(&p.file_modes));
    out!(
        "rigid bodies by mode (simulated): {}",
        m(&p.simulated_modes)
    );
    if !p.demoted.is_empty() {
        out!(
            "mode 2 simulated as mode 1 ({}): {}",
            p.demoted.len(),
            p.demoted.join(", ")
        );
    }
    out!("joints built {} of {}", p.joints_built, p.joints_in_file);
    if p.refused.is_empty() {
        out!("physics refused: none");
    }
    for r in &p.refused {
        out!("physics refused: {r}");
    }
}
