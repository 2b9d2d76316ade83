//! Settles a model in its rest pose in Bullet (3.25, through the
//! `mmd-anim-physics-bullet` crate) and prints, as JSON, where each physics
//! bone rests: its position and its direction from its parent bone. These
//! are the goldens of `tests/physics_bullet.rs` (issue 40); they must never
//! come from our own engine.
//!
//! The world is set up as MMD's runtimes set it (`shared/spec/physics.md`):
//! gravity (0, −98, 0); bodies and joints at their model-space bind poses
//! with MMD's Euler order (YXZ, converted here to the ZYX angles the crate's
//! C++ side passes to `btQuaternion::setEulerZYX`); follow-bone bodies
//! kinematic (mass 0); each joint a `btGeneric6DofSpringConstraint` with its
//! frames in A and B, limits as the file gives them, springs on axes with a
//! stiffness above 0, equilibrium at the bind pose (the crate's
//! `native/mmd_bullet_api.cpp`). Differences from MMD that the crate
//! brings: Bullet 3.25's default stop ERP (0.2) and constraint frames
//! (`m_useOffsetForConstraintFrame = true`), no collisions between bodies
//! linked by a joint, no ground plane.
//!
//! Usage: `physics-reference [--steps N] [--substeps K] [--joints] MODEL |
//! generated:NAME` (defaults: 600 frames of 1/60 s, one Bullet step each;
//! `--joints` adds each joint's Euler angles as Bullet measures them, A's
//! joint frame in B's, and the gap between its two anchors).
//!
//! In motion (issue 40 item 5): `physics-reference --motion VMD |
//! generated:NAME [--start F] [--steps N] [--every K] [--substeps K] MODEL`
//! plays the motion from VMD frame F (30 per second) at 60 frames per
//! second and prints the physics bones' directions and world rotations
//! every K frames (see `motion.rs`).

use std::path::Path;

use glam::{Mat4, Vec3};
use vmd_studio::model::Model;

mod bullet;
mod motion;

use bullet::{Reference, bind_pose};

#[path = "../../../tests/physics_models/mod.rs"]
mod physics_models;

/// Takes `flag VALUE` out of `args`.
fn take(args: &mut Vec<String>, flag: &str) -> Option<String> {
    let i = args.iter().position(|a| a == flag)?;
    if i + 1 >= args.len() {
        return None;
    }
    let v = args[i + 1].clone();
    args.drain(i..i + 2);
    Some(v)
}

fn number(args: &mut Vec<String>, flag: &str, default: u32) -> u32 {
    take(args, flag)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn open_model(source: &str) -> Model {
    match source.strip_prefix("generated:") {
        Some(name) => physics_models::generated(name).unwrap_or_else(|| {
            eprintln!("no generated model {name}");
            std::process::exit(2)
        }),
        None => Model::open(Path::new(source)).unwrap_or_else(|e| {
            eprintln!("{source}: {e}");
            std::process::exit(1)
        }),
    }
}

/// A path's file name, or the text itself (`generated:NAME`).
fn label(source: &str) -> String {
    Path::new(source)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or(source.to_string())
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let motion_source = take(&mut args, "--motion");
    let start = number(&mut args, "--start", 0);
    let every = number(&mut args, "--every", 10).max(1);
    let frames = number(&mut args, "--steps", 600);
    let substeps = number(&mut args, "--substeps", 1).max(1);
    let with_joints = match args.iter().position(|a| a == "--joints") {
        Some(i) => {
            args.remove(i);
            true
        }
        None => false,
    };
    let Some(source) = args.first().cloned() else {
        eprintln!(
            "usage: physics-reference [--steps N] [--substeps K] [--joints] \
             [--motion VMD|generated:NAME [--start F] [--every K]] MODEL | generated:NAME"
        );
        std::process::exit(2);
    };
    let model = open_model(&source);
    if let Some(m) = motion_source {
        let run = motion::Run {
            start,
            steps: frames,
            every,
            substeps,
        };
        print!("{}", motion::sample(&model, &label(&source), &m, run));
        return;
    }
    let (settled, joints) = settle(&model, frames, substeps);
    let json = serde_json::json!({
        "source": label(&source),
        "engine": "Bullet 3.25 (mmd-anim-physics-bullet 0.5.3)",
        "frames": frames,
        "frame_seconds": 1.0 / 60.0,
        "bullet_steps_per_frame": substeps,
        "bones": settled,
    });
    let json = if with_joints {
        let mut json = json;
        json["joints"] = serde_json::Value::Array(joints);
        json
    } else {
        json
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&json).unwrap_or_default()
    );
}

/// Steps `model`'s world `frames` times (1/60 s each, `substeps` fixed
/// Bullet steps per frame) with every bone at rest; returns one JSON entry
/// per bone driven by a dynamic body (its position, direction from its
/// parent and world rotation), and per joint the Euler angles (XYZ,
/// degrees, as Bullet's 6DOF constraint measures them) of B's joint frame
/// in A's.
fn settle(
    model: &Model,
    frames: u32,
    substeps: u32,
) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let bones = &model.skeleton.bones;
    let rest: Vec<Mat4> = bones
        .iter()
        .map(|b| Mat4::from_translation(b.rest_position))
        .collect();
    let mut world = Reference::new(model);
    for _ in 0..frames {
        world.frame(&rest, substeps);
    }
    let posed = world.posed(model, &rest);
    let mut out = Vec::new();
    for b in 0..bones.len() {
        if world.driver[b].is_none() {
            continue;
        }
        let position = posed[b].w_axis.truncate();
        let parent = bones[b].parent.filter(|&p| p < bones.len());
        let direction = parent
            .map(|p| (position - posed[p].w_axis.truncate()).normalize_or_zero())
            .unwrap_or(Vec3::ZERO);
        let round = |v: Vec3| v.to_array().map(|c| (c * 1.0e5).round() / 1.0e5);
        let (_, q, _) = posed[b].to_scale_rotation_translation();
        let q = if q.w < 0.0 { -q } else { q };
        out.push(serde_json::json!({
            "bone": b,
            "name": bones[b].name,
            "parent": parent,
            "position": round(position),
            "direction": round(direction),
            "rotation_xyzw": q.to_array().map(|c| (c * 1.0e5).round() / 1.0e5),
        }));
    }
    (out, joint_angles(model, &world))
}

/// Per joint between two bodies: its name, the XYZ Euler angles (degrees)
/// of A's joint frame in B's as Bullet's 6DOF measures them, and the gap
/// between its two anchors.
fn joint_angles(model: &Model, world: &Reference) -> Vec<serde_json::Value> {
    let body_bind = |i: usize| {
        let rb = &model.rigid_bodies[i];
        bind_pose(rb.position, rb.rotation)
    };
    let mut joint_out = Vec::new();
    for j in &model.joints {
        let (Some(a), Some(b)) = (j.rigid_bodies[0], j.rigid_bodies[1]) else {
            continue;
        };
        if a >= model.rigid_bodies.len() || b >= model.rigid_bodies.len() {
            continue;
        }
        let frame = bind_pose(j.position, j.rotation);
        let fa = world.body(a) * body_bind(a).inverse() * frame;
        let fb = world.body(b) * body_bind(b).inverse() * frame;
        let (_, qa, _) = fa.to_scale_rotation_translation();
        let (_, qb, _) = fb.to_scale_rotation_translation();
        // Bullet's own measure: `matrixToEulerXYZ` of A⁻¹·B read column
        // first, i.e. the XYZ angles of A's joint frame in B's.
        let (x, y, z) = (qb.conjugate() * qa).to_euler(glam::EulerRot::XYZ);
        let gap = (fb.w_axis - fa.w_axis).truncate().length();
        joint_out.push(serde_json::json!({
            "name": j.name,
            "euler_xyz_degrees": [x.to_degrees(), y.to_degrees(), z.to_degrees()],
            "anchor_gap": gap,
        }));
    }
    joint_out
}
