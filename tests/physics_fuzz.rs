//! Inputs that made the physics fuzz target fail, replayed through the
//! target's own code path (`tests/physics_models/fuzz_input.rs`).

mod common;
mod physics_models;

use physics_models::fuzz_input;

/// `fuzz-findings/physics-body-non-finite.bin` (shared corpus): the target
/// failed "body 3 non-finite" on it (main at c7f648a).
#[test]
fn body_non_finite_finding_stays_finite() {
    let Some(dir) = common::corpus() else {
        eprintln!("skipped: no corpus");
        return;
    };
    let path = dir.join("fuzz-findings/physics-body-non-finite.bin");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("skipped: {} missing", path.display());
        return;
    };
    fuzz_input::run(&bytes);
}

/// The cause of that finding, without the corpus: a body whose position is
/// not finite is placed at its bone, and its bone's rest position was NaN,
/// so the kinematic body sat at NaN from the first reset on. Such a bone
/// now anchors nothing (the body is boneless, with a warning), and a bone
/// pose that is finite but huge leaves a body where it was instead of
/// overflowing.
#[test]
fn a_nan_bone_or_a_huge_bone_pose_never_makes_a_body_non_finite() {
    use glam::{Mat4, Vec3};
    use vmd_studio::model::physics::PhysicsWorld;
    use vmd_studio::model::{Bone, Format, Model, PhysicsMode, RigidBody, Shape};

    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    m.skeleton
        .bones
        .push(Bone::new("root", None, Vec3::new(0.0, 10.0, 0.0)));
    m.skeleton
        .bones
        .push(Bone::new("nan", Some(0), Vec3::new(f32::NAN, 1.0, 0.0)));
    let body = |bone: usize, position: Vec3, mode: PhysicsMode| RigidBody {
        name: format!("on {bone}"),
        name_en: String::new(),
        bone: Some(bone),
        group: 0,
        no_collision: 0xFFFF,
        shape: Shape::Sphere,
        size: Vec3::splat(0.5),
        position,
        rotation: Vec3::ZERO,
        mass: 1.0,
        linear_damping: 0.5,
        angular_damping: 0.5,
        restitution: 0.0,
        friction: 0.5,
        mode,
    };
    m.rigid_bodies.push(body(
        1,
        Vec3::new(0.0, f32::NAN, 0.0),
        PhysicsMode::FollowBone,
    ));
    m.rigid_bodies.push(body(
        0,
        Vec3::new(0.0, 2.5e30, 0.0),
        PhysicsMode::FollowBone,
    ));
    m.rigid_bodies
        .push(body(0, Vec3::new(3.0, 10.0, 0.0), PhysicsMode::FollowBone));
    let mut world = PhysicsWorld::new(&m);
    let warnings = world.warnings().join("\n");
    assert!(
        warnings.contains("rigid body 0 \"on 1\": bone 1's rest position"),
        "{warnings}"
    );
    assert!(
        warnings.contains("rigid body 1 \"on 0\": position"),
        "{warnings}"
    );
    let rest = [
        Mat4::from_translation(Vec3::new(0.0, 10.0, 0.0)),
        Mat4::from_translation(Vec3::new(f32::NAN, 1.0, 0.0)),
    ];
    world.reset(&rest);
    // Finite, but 1e38 times the offset overflows.
    let huge = [
        Mat4::from_translation(Vec3::new(0.0, 1.0e38, 0.0)) * Mat4::from_scale(Vec3::splat(1.0e3)),
        rest[1],
    ];
    for pose in [&rest, &huge, &rest] {
        world.step(pose, 1.0 / 30.0);
        for i in 0..3 {
            let (q, t) = world.body_pose(i).expect("body");
            assert!(q.is_finite() && t.is_finite(), "body {i}: {q} {t}");
        }
    }
    // The body on the huge pose stayed where the rest pose put it.
    let (_, t) = world.body_pose(2).expect("body");
    assert!(t.distance(Vec3::new(3.0, 10.0, 0.0)) < 1.0e-3, "{t}");
}
