//! Stability over a whole dance (issue 21 item 7): for every bone driven by
//! a dynamic body whose joint locks translation, the share of frames keeping
//! its length to its parent within 10 %.
//!
//! ```text
//! cargo run --release --no-default-features --example physics_stretch -- MODEL MOTION
//! cargo run --release --no-default-features --example physics_stretch -- generated fast|sway
//! ```
//!
//! `--no-projection` measures rapier's solver alone (joint projection off).

#[path = "../benches/support/physics_model.rs"]
mod physics_model;
#[path = "../benches/support/stretch.rs"]
mod stretch;

use std::path::Path;
use std::time::Instant;

use vmd_studio::model::physics::PhysicsWorld;
use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::vmd::{self, IndexedMotion};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let projection = !args.iter().any(|a| a == "--no-projection");
    args.retain(|a| a != "--no-projection");
    let (Some(model_arg), Some(motion_arg)) = (args.first(), args.get(1)) else {
        eprintln!("usage: physics_stretch MODEL MOTION | generated fast");
        return;
    };
    let start = Instant::now();
    let s = if model_arg == "generated" {
        let model = physics_model::generated_model();
        let frames = if motion_arg == "fast" {
            physics_model::fast_frames(&model, 1800)
        } else {
            physics_model::sway_frames(&model, 1800)
        };
        let mut world = PhysicsWorld::new(&model);
        world.set_projection(projection);
        stretch::measure(&model, &mut world, frames.into_iter())
    } else {
        let model = match Model::open(Path::new(model_arg)) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{model_arg}: {e}");
                return;
            }
        };
        let Some(motion) = std::fs::read(motion_arg)
            .ok()
            .and_then(|b| vmd::read(&b).ok())
        else {
            eprintln!("{motion_arg}: cannot read");
            return;
        };
        let motion = IndexedMotion::new(motion);
        let last = motion.motion.last_frame().unwrap_or(0);
        let mut engine = PoseEngine::new(&model);
        engine.bind(&model, Some(&motion.index));
        let mut world = PhysicsWorld::new(&model);
        world.set_projection(projection);
        let poses = (0..=last).map(|f| {
            engine.pose_bones(&model, Some(motion.as_ref()), f64::from(f), |_| {});
            engine.posed.bone_world.clone()
        });
        stretch::measure(&model, &mut world, poses)
    };
    println!(
        "{} frames, {} watched bones: {:.3} % of bone-frames within 10 %, worst bone {:.2} % ({}), max stretch {:.1} % at {}, {} resets, projection moved {:.3} bodies a step ({} steps), {:.1} s",
        s.frames,
        s.bones,
        s.share * 100.0,
        s.worst_bone_share * 100.0,
        s.worst_bone,
        s.max * 100.0,
        s.max_at,
        s.resets,
        s.projected as f64 / s.steps.max(1) as f64,
        s.steps,
        start.elapsed().as_secs_f64()
    );
}
