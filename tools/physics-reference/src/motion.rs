//! In motion (issue 40 item 5): a model plays a motion in Bullet, one frame
//! of 1/60 s per step as our engine's tests step it, and the physics
//! bones' directions (from their parents) and world rotations are sampled
//! every few frames. These are the goldens of
//! `tests/physics_bullet_motion.rs`.
//!
//! Start as our engine's `PhysicsWorld::reset` starts: every body snapped
//! to the motion's first pose with zero velocity, 0.5 s of Bullet steps
//! with that pose held, velocities zeroed again. Then frame k (1..=steps)
//! feeds the pose at k/60 s (VMD frame `start + k/2`), steps, and after
//! every `every`-th frame the bones are read back.
//!
//! The poses before physics (FK, IK, append) come from VMD Studio's poser
//! with physics off: only the physics is Bullet's.

use std::path::Path;

use glam::{Mat4, Vec3};
use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::vmd::IndexedMotion;

use crate::bullet::Reference;
use crate::physics_models;

/// How a motion is played.
#[derive(Clone, Copy)]
pub struct Run {
    /// The VMD frame (30 per second) that step 0 shows.
    pub start: u32,
    /// Frames of 1/60 s played after the start.
    pub steps: u32,
    /// A sample after every `every`-th frame.
    pub every: u32,
    /// Fixed Bullet steps per frame (2: 1/120 s, as our engine steps).
    pub substeps: u32,
}

/// Frames of 1/60 s the start holds the first pose (our engine's
/// `SETTLE_STEPS`, 60 steps of 1/120 s).
const SETTLE_FRAMES: u32 = 30;

/// Bone matrices before physics, per frame k of 1/60 s.
enum Source {
    Vmd(Box<IndexedMotion>, Box<PoseEngine>),
    Generated(String),
}

impl Source {
    fn open(model: &Model, source: &str) -> Source {
        if let Some(name) = source.strip_prefix("generated:") {
            if physics_models::motion_pose(name, model, 0.0).is_none() {
                eprintln!("no generated motion {name}");
                std::process::exit(2);
            }
            return Source::Generated(name.to_string());
        }
        let bytes = std::fs::read(Path::new(source)).unwrap_or_else(|e| {
            eprintln!("{source}: {e}");
            std::process::exit(1)
        });
        let motion = vmd_studio::vmd::read(&bytes).unwrap_or_else(|e| {
            eprintln!("{source}: {e}");
            std::process::exit(1)
        });
        let motion = IndexedMotion::new(motion);
        let mut engine = PoseEngine::new(model);
        engine.bind(model, Some(&motion.index));
        Source::Vmd(Box::new(motion), Box::new(engine))
    }

    fn pose(&mut self, model: &Model, run: Run, k: u32) -> Vec<Mat4> {
        match self {
            Source::Vmd(motion, engine) => {
                let frame = f64::from(run.start) + f64::from(k) / 2.0;
                engine.pose_bones(model, Some(IndexedMotion::as_ref(motion)), frame, |_| {});
                engine.posed.bone_world.clone()
            }
            Source::Generated(name) => {
                let seconds = k as f32 / 60.0;
                physics_models::motion_pose(name, model, seconds).unwrap_or_default()
            }
        }
    }
}

fn round4(v: &[f32]) -> Vec<f64> {
    v.iter()
        .map(|&c| (f64::from(c) * 1.0e4).round() / 1.0e4)
        .collect()
}

/// The sampled directions and rotations as JSON text: a header, then one
/// line per sample (`step`, then per bone in `bones` order its direction
/// from its parent and its world rotation xyzw with w ≥ 0, rounded to
/// 1e-4).
pub fn sample(model: &Model, label: &str, motion_source: &str, run: Run) -> String {
    let bones = &model.skeleton.bones;
    let mut source = Source::open(model, motion_source);
    let mut world = Reference::new(model);
    let first = source.pose(model, run, 0);
    world.snap(&first);
    for _ in 0..SETTLE_FRAMES {
        world.frame(&first, run.substeps);
    }
    world.stop();
    let watched: Vec<(usize, usize)> = (0..bones.len())
        .filter(|&b| world.driver[b].is_some())
        .filter_map(|b| Some((b, bones[b].parent.filter(|&p| p < bones.len())?)))
        .collect();
    let mut lines = Vec::new();
    for k in 1..=run.steps {
        let animated = source.pose(model, run, k);
        world.frame(&animated, run.substeps);
        if k % run.every != 0 {
            continue;
        }
        let posed = world.posed(model, &animated);
        let directions: Vec<Vec<f64>> = watched
            .iter()
            .map(|&(b, p)| {
                let d: Vec3 = (posed[b].w_axis - posed[p].w_axis).truncate();
                round4(&d.normalize_or_zero().to_array())
            })
            .collect();
        let rotations: Vec<Vec<f64>> = watched
            .iter()
            .map(|&(b, _)| {
                let (_, q, _) = posed[b].to_scale_rotation_translation();
                let q = if q.w < 0.0 { -q } else { q };
                round4(&q.to_array())
            })
            .collect();
        let line = serde_json::json!({
            "step": k,
            "directions": directions,
            "rotations_xyzw": rotations,
        });
        lines.push(serde_json::to_string(&line).unwrap_or_default());
    }
    let header = serde_json::json!({
        "source": label,
        "motion": Path::new(motion_source)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or(motion_source.to_string()),
        "engine": "Bullet 3.25 (mmd-anim-physics-bullet 0.5.3)",
        "start_vmd_frame": run.start,
        "frame_seconds": 1.0 / 60.0,
        "bullet_steps_per_frame": run.substeps,
        "settle_frames": SETTLE_FRAMES,
        "steps": run.steps,
        "every": run.every,
        "bones": watched.iter().map(|&(b, p)| serde_json::json!({
            "bone": b, "name": bones[b].name, "parent": p,
        })).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string_pretty(&header).unwrap_or_default();
    // Append the samples as one line each before the closing brace.
    text.truncate(text.trim_end().len() - 1);
    let text = text.trim_end().to_string();
    format!(
        "{text},\n  \"samples\": [\n{}\n  ]\n}}\n",
        lines.join(",\n")
    )
}
