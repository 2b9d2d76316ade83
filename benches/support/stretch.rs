//! Issue 21 item 7, measured: for every bone driven by a dynamic body whose
//! joint locks translation (lower = upper on all three axes), the share of
//! frames on which the bone keeps its length to its parent within 10 %.
//! Shared by `tests/model_physics.rs` and `examples/physics_stretch.rs`.

#![allow(dead_code)]

use glam::Mat4;
use vmd_studio::model::Model;
use vmd_studio::model::physics::PhysicsWorld;

/// Bones watched: (bone, parent, rest length).
pub fn watched_bones(model: &Model, world: &PhysicsWorld) -> Vec<(usize, usize, f32)> {
    let bones = &model.skeleton.bones;
    let setup = world.setup();
    let mut out = Vec::new();
    for (b, bone) in bones.iter().enumerate() {
        let Some(body) = world.driver(b) else {
            continue;
        };
        let Some(parent) = bone.parent.filter(|&p| p < bones.len()) else {
            continue;
        };
        let model_body = setup.bodies[body].index;
        let locked = model.joints.iter().any(|j| {
            j.rigid_bodies.contains(&Some(model_body))
                && j.translation_limits.0 == j.translation_limits.1
        });
        let rest = bone.rest_position.distance(bones[parent].rest_position);
        if locked && rest > 1.0e-3 {
            out.push((b, parent, rest));
        }
    }
    out
}

/// What a run measured.
#[derive(Debug, Default, Clone)]
pub struct Stretch {
    pub frames: usize,
    pub bones: usize,
    /// Bone-frames within 10 % over all bone-frames.
    pub share: f64,
    /// The worst bone's own share.
    pub worst_bone_share: f64,
    pub worst_bone: String,
    /// Largest relative stretch seen, and where.
    pub max: f32,
    pub max_at: String,
    pub resets: usize,
    /// Fixed steps taken and bodies moved by joint projection over them.
    pub steps: u64,
    pub projected: u64,
}

/// Runs `world` through `poses` (bones before physics, one 1/30 s frame
/// each, reset on the first) and measures the stretch.
pub fn measure(
    model: &Model,
    world: &mut PhysicsWorld,
    poses: impl Iterator<Item = Vec<Mat4>>,
) -> Stretch {
    let watched = watched_bones(model, world);
    let mut ok = vec![0usize; watched.len()];
    let mut s = Stretch {
        bones: watched.len(),
        ..Stretch::default()
    };
    for (f, before) in poses.enumerate() {
        if f == 0 {
            world.reset(&before);
        }
        let report = world.step(&before, 1.0 / 30.0);
        s.resets += usize::from(report.reset.is_some());
        s.steps += u64::from(report.steps);
        s.projected += u64::from(report.projected);
        let mut after = before;
        world.write_back(&mut after);
        for (k, &(b, p, rest)) in watched.iter().enumerate() {
            let now = after[b]
                .w_axis
                .truncate()
                .distance(after[p].w_axis.truncate());
            let r = (now - rest).abs() / rest;
            if r <= 0.10 {
                ok[k] += 1;
            }
            if r > s.max {
                s.max = r;
                s.max_at = format!("frame {f}, {}", model.skeleton.bones[b].name);
            }
        }
        s.frames += 1;
    }
    let total = (s.frames * watched.len()).max(1);
    s.share = ok.iter().sum::<usize>() as f64 / total as f64;
    s.worst_bone_share = 1.0;
    for (k, &n) in ok.iter().enumerate() {
        let share = n as f64 / s.frames.max(1) as f64;
        if share < s.worst_bone_share {
            s.worst_bone_share = share;
            s.worst_bone = model.skeleton.bones[watched[k].0].name.clone();
        }
    }
    s
}
