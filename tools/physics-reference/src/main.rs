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

use std::path::Path;

use glam::{EulerRot, Mat4, Quat, Vec3};
use mmd_anim_physics_bullet::{
    PhysicsJointDescriptor, PhysicsJointKind, PhysicsRigidBodyDescriptor, PmxRigidBodyBinding,
    PmxRigidBodyMode, RigidBodyDesc, RigidBodyShape, Transform,
    build_bullet_world_from_descriptors,
};
use vmd_studio::model::{Model, PhysicsMode, Shape};

#[path = "../../../tests/physics_models/mod.rs"]
mod physics_models;

/// MMD's body/joint Euler angles (radians, YXZ) as the (x, y, z) angles
/// whose `setEulerZYX(z, y, x)` gives the same rotation.
fn bullet_euler(r: Vec3) -> [f32; 3] {
    let q = Quat::from_euler(EulerRot::YXZ, r.y, r.x, r.z);
    let (z, y, x) = q.to_euler(EulerRot::ZYX);
    [x, y, z]
}

fn to_transform(m: Mat4) -> Transform {
    let (_, q, t) = m.to_scale_rotation_translation();
    Transform {
        position: t.to_array(),
        rotation_xyzw: q.to_array(),
    }
}

fn to_mat4(t: Transform) -> Mat4 {
    Mat4::from_rotation_translation(
        Quat::from_array(t.rotation_xyzw).normalize(),
        Vec3::from_array(t.position),
    )
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut take = |flag: &str, default: u32| -> u32 {
        match args.iter().position(|a| a == flag) {
            Some(i) if i + 1 < args.len() => {
                let v = args[i + 1].parse().unwrap_or(default);
                args.drain(i..i + 2);
                v
            }
            _ => default,
        }
    };
    let frames = take("--steps", 600);
    let substeps = take("--substeps", 1).max(1);
    let with_joints = match args.iter().position(|a| a == "--joints") {
        Some(i) => {
            args.remove(i);
            true
        }
        None => false,
    };
    let Some(source) = args.first().cloned() else {
        eprintln!("usage: physics-reference [--steps N] [--substeps K] MODEL | generated:NAME");
        std::process::exit(2);
    };
    let model = match source.strip_prefix("generated:") {
        Some(name) => physics_models::generated(name).unwrap_or_else(|| {
            eprintln!("no generated model {name}");
            std::process::exit(2)
        }),
        None => Model::open(Path::new(&source)).unwrap_or_else(|e| {
            eprintln!("{source}: {e}");
            std::process::exit(1)
        }),
    };
    let (settled, joints) = settle(&model, frames, substeps);
    let label = Path::new(&source)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or(source.clone());
    let json = serde_json::json!({
        "source": label,
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
/// per bone driven by a dynamic body, and per joint the Euler angles (XYZ,
/// degrees, as Bullet's 6DOF constraint measures them) of B's joint frame
/// in A's.
fn settle(
    model: &Model,
    frames: u32,
    substeps: u32,
) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let bones = &model.skeleton.bones;
    let bone_bind = |b: usize| Mat4::from_translation(bones[b].rest_position);
    let mut descriptors = Vec::new();
    for rb in &model.rigid_bodies {
        let bone = rb.bone.filter(|&b| b < bones.len());
        let bind = Mat4::from_rotation_translation(
            Quat::from_euler(EulerRot::YXZ, rb.rotation.y, rb.rotation.x, rb.rotation.z),
            rb.position,
        );
        let body_from_bone = bone.map(|b| bone_bind(b).inverse() * bind).unwrap_or(bind);
        let mode = match rb.mode {
            PhysicsMode::FollowBone => PmxRigidBodyMode::Static,
            PhysicsMode::Physics => PmxRigidBodyMode::Dynamic,
            PhysicsMode::PhysicsWithBone => PmxRigidBodyMode::DynamicBone,
        };
        let shape = match rb.shape {
            Shape::Sphere => RigidBodyShape::Sphere { radius: rb.size.x },
            Shape::Box => RigidBodyShape::Box {
                half_extents: rb.size.to_array(),
            },
            Shape::Capsule => RigidBodyShape::Capsule {
                radius: rb.size.x,
                height: rb.size.y,
            },
        };
        descriptors.push(PhysicsRigidBodyDescriptor {
            rigidbody: RigidBodyDesc {
                shape,
                position: rb.position.to_array(),
                rotation_euler: bullet_euler(rb.rotation),
                mass: if mode == PmxRigidBodyMode::Static {
                    0.0
                } else {
                    rb.mass
                },
                linear_damping: rb.linear_damping,
                angular_damping: rb.angular_damping,
                friction: rb.friction,
                restitution: rb.restitution,
                collision_group: u16::from(rb.group.min(15)),
                collision_mask: rb.no_collision,
            },
            binding: PmxRigidBodyBinding {
                bone_index: bone,
                mode,
                body_from_bone: to_transform(body_from_bone),
                bone_from_body: to_transform(body_from_bone.inverse()),
            },
        });
    }
    let joints: Vec<PhysicsJointDescriptor> = model
        .joints
        .iter()
        .map(|j| {
            let [a, b] = j.rigid_bodies;
            PhysicsJointDescriptor {
                kind: PhysicsJointKind::Generic6DofSpring,
                rigidbody_a: a.unwrap_or(usize::MAX),
                rigidbody_b: b.unwrap_or(usize::MAX),
                position: j.position.to_array(),
                rotation_euler: bullet_euler(j.rotation),
                translation_lower_limit: j.translation_limits.0.to_array(),
                translation_upper_limit: j.translation_limits.1.to_array(),
                rotation_lower_limit: j.rotation_limits.0.to_array(),
                rotation_upper_limit: j.rotation_limits.1.to_array(),
                spring_translation_factor: j.spring_translation.to_array(),
                spring_rotation_factor: j.spring_rotation.to_array(),
            }
        })
        .collect();
    let mut world = build_bullet_world_from_descriptors(&descriptors, &joints)
        .unwrap_or_else(|e| panic!("building the Bullet world: {e}"));
    world.settle_to_current().expect("settle");
    let rest: Vec<Transform> = (0..bones.len())
        .map(|b| to_transform(bone_bind(b)))
        .collect();
    let step = 1.0 / 60.0;
    for _ in 0..frames {
        world
            .feed_kinematic_rigidbodies_with_options(&rest, false)
            .expect("feed");
        world
            .world
            .step_with_fixed_substep(step, substeps as i32, step / substeps as f32)
            .expect("step");
    }

    // Write back (first dynamic body naming a bone drives it; mode 2 takes
    // the rotation only), then bones below follow their parents.
    let mut driver: Vec<Option<usize>> = vec![None; bones.len()];
    for (i, d) in descriptors.iter().enumerate() {
        if let (true, Some(b)) = (d.binding.mode.writes_back_to_bone(), d.binding.bone_index) {
            driver[b].get_or_insert(i);
        }
    }
    let mut order: Vec<usize> = (0..bones.len()).collect();
    let depth = |mut b: usize| {
        let mut d = 0;
        while let Some(p) = bones[b]
            .parent
            .filter(|&p| p < bones.len() && d < bones.len())
        {
            b = p;
            d += 1;
        }
        d
    };
    order.sort_by_key(|&b| depth(b));
    let rest_world: Vec<Mat4> = (0..bones.len()).map(bone_bind).collect();
    let mut posed = rest_world.clone();
    for &b in &order {
        if let Some(i) = driver[b] {
            let body = to_mat4(
                world
                    .world
                    .rigidbody_transform(world.rigidbody_handles[i])
                    .expect("transform"),
            );
            let mut m = body * to_mat4(descriptors[i].binding.bone_from_body);
            if descriptors[i].binding.mode == PmxRigidBodyMode::DynamicBone {
                let parent = bones[b].parent.filter(|&p| p < bones.len());
                let local = parent
                    .map(|p| rest_world[p].inverse() * rest_world[b])
                    .unwrap_or(rest_world[b]);
                let keep = parent.map(|p| posed[p] * local).unwrap_or(local);
                m.w_axis = keep.w_axis;
            }
            posed[b] = m;
        } else if let Some(p) = bones[b].parent.filter(|&p| p < bones.len()) {
            posed[b] = posed[p] * (rest_world[p].inverse() * rest_world[b]);
        }
    }
    let mut out = Vec::new();
    for b in 0..bones.len() {
        if driver[b].is_none() {
            continue;
        }
        let position = posed[b].w_axis.truncate();
        let parent = bones[b].parent.filter(|&p| p < bones.len());
        let direction = parent
            .map(|p| (position - posed[p].w_axis.truncate()).normalize_or_zero())
            .unwrap_or(Vec3::ZERO);
        let round = |v: Vec3| v.to_array().map(|c| (c * 1.0e5).round() / 1.0e5);
        out.push(serde_json::json!({
            "bone": b,
            "name": bones[b].name,
            "parent": parent,
            "position": round(position),
            "direction": round(direction),
        }));
    }
    let body_world = |i: usize| {
        world
            .world
            .rigidbody_transform(world.rigidbody_handles[i])
            .map(to_mat4)
            .ok()
    };
    let body_bind = |i: usize| {
        let rb = &model.rigid_bodies[i];
        Mat4::from_rotation_translation(
            Quat::from_euler(EulerRot::YXZ, rb.rotation.y, rb.rotation.x, rb.rotation.z),
            rb.position,
        )
    };
    let mut joint_out = Vec::new();
    for j in &model.joints {
        let (Some(a), Some(b)) = (j.rigid_bodies[0], j.rigid_bodies[1]) else {
            continue;
        };
        if a >= model.rigid_bodies.len() || b >= model.rigid_bodies.len() {
            continue;
        }
        let frame = Mat4::from_rotation_translation(
            Quat::from_euler(EulerRot::YXZ, j.rotation.y, j.rotation.x, j.rotation.z),
            j.position,
        );
        let (Some(wa), Some(wb)) = (body_world(a), body_world(b)) else {
            continue;
        };
        let fa = wa * body_bind(a).inverse() * frame;
        let fb = wb * body_bind(b).inverse() * frame;
        let (_, qa, _) = fa.to_scale_rotation_translation();
        let (_, qb, _) = fb.to_scale_rotation_translation();
        // Bullet's own measure: `matrixToEulerXYZ` of A⁻¹·B read column
        // first, i.e. the XYZ angles of A's joint frame in B's.
        let (x, y, z) = (qb.conjugate() * qa).to_euler(EulerRot::XYZ);
        let gap = (fb.w_axis - fa.w_axis).truncate().length();
        joint_out.push(serde_json::json!({
            "name": j.name,
            "euler_xyz_degrees": [x.to_degrees(), y.to_degrees(), z.to_degrees()],
            "anchor_gap": gap,
        }));
    }
    (out, joint_out)
}
