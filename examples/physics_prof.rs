//! Profiling driver for the physics world (callgrind or perf): steps the
//! generated 180-body / 230-joint model (the issue-21 speed target, the same
//! generator as `benches/physics.rs`) or Mei with her wait motion through
//! `frames` 1/30 s frames and prints the mean time per frame.
//!
//! ```text
//! cargo build --release --no-default-features --example physics_prof
//! valgrind --tool=callgrind target/release/examples/physics_prof generated 60
//! target/release/examples/physics_prof mei 600
//! target/release/examples/physics_prof bake 600
//! ```
//!
//! `bake` times `bake_physics` (the library call `bake-physics` and Tools ▸
//! Bake physics make) on the generated model wearing a generated dance (its
//! hips keyed on every frame with the sway), `n` frames.

#[path = "../benches/support/physics_model.rs"]
mod physics_model;

use std::path::PathBuf;
use std::time::Instant;

use glam::Mat4;
use vmd_studio::model::physics::PhysicsWorld;
use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::vmd::{self, IndexedMotion};

fn mei_frames(n: usize) -> Option<(Model, Vec<Vec<Mat4>>)> {
    let dir = std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus"));
    let model = Model::open(&dir.join("mei/mei.pmd")).ok()?;
    let bytes = std::fs::read(dir.join("mmdagent__mei_wait.vmd")).ok()?;
    let motion = IndexedMotion::new(vmd::read(&bytes).ok()?);
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let frames = (0..n)
        .map(|f| {
            engine.pose_bones(&model, Some(motion.as_ref()), f as f64, |_| {});
            engine.posed.bone_world.clone()
        })
        .collect();
    Some((model, frames))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "generated".into());
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(120);
    let n = n.max(1);
    if which == "bake" {
        bake(n);
        return;
    }
    let (model, frames) = if which == "mei" {
        let Some(m) = mei_frames(n) else {
            eprintln!("corpus missing (set VMD_CORPUS)");
            return;
        };
        m
    } else {
        let model = physics_model::generated_model();
        let frames = physics_model::sway_frames(&model, n);
        (model, frames)
    };
    let mut world = PhysicsWorld::new(&model);
    world.reset(&frames[0]);
    let mut out = frames[0].clone();
    let start = Instant::now();
    let mut resets = 0;
    for f in &frames {
        let report = world.step(f, 1.0 / 30.0);
        resets += usize::from(report.reset.is_some());
        out.copy_from_slice(f);
        world.write_back(&mut out);
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / frames.len() as f64;
    println!("{which}: {n} frames, {ms:.3} ms per frame, {resets} resets");
}

/// Times a bake of `n` frames of the generated model (hips keyed each frame).
fn bake(n: usize) {
    use glam::{Quat, Vec3};
    use vmd_studio::vmd::{BoneKey, Motion, NameEncoding};
    let model = physics_model::generated_model();
    let mut motion = Motion::new_v2();
    for f in 0..n as u32 {
        let t = f as f32 / 30.0;
        let q = Quat::from_rotation_y(0.6 * (t * std::f32::consts::PI).sin());
        let p = Vec3::new(2.0 * (t * 2.0).sin(), 0.0, 0.0);
        if let Ok(k) = BoneKey::new(
            "hips",
            NameEncoding::ShiftJis,
            f,
            p.to_array(),
            q.to_array(),
        ) {
            motion.bones.push(k);
        }
    }
    let start = Instant::now();
    let last = n as u32 - 1;
    match vmd_studio::model::physics::bake_physics(&model, &motion, 0..=last, |_| true) {
        Ok((_, r)) => println!(
            "bake: {} bones x {} frames, {} keys, {:.3} s",
            r.bones.len(),
            r.frames,
            r.keys_written,
            start.elapsed().as_secs_f64()
        ),
        Err(e) => eprintln!("bake: {e}"),
    }
}
