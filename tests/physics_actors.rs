//! Several actors in one physics world (issue 21 item 3): each actor's
//! bodies collide only with its own unless collisions across actors are
//! allowed; each actor's bones are written back on their own; the same run
//! gives the same bytes. Expected heights are worked out by hand from the
//! shapes' sizes.

use glam::{Mat4, Vec3};
use vmd_studio::model::physics::PhysicsWorld;
use vmd_studio::model::skeleton::Bone;
use vmd_studio::model::{Format, Model, PhysicsMode, RigidBody, Shape};

fn body(
    name: &str,
    bone: usize,
    mode: PhysicsMode,
    shape: Shape,
    size: Vec3,
    p: Vec3,
) -> RigidBody {
    RigidBody {
        name: name.into(),
        name_en: String::new(),
        bone: Some(bone),
        group: 0,
        no_collision: 0xFFFF,
        shape,
        size,
        position: p,
        rotation: Vec3::ZERO,
        mass: 1.0,
        linear_damping: 0.0,
        angular_damping: 0.0,
        restitution: 0.0,
        friction: 0.5,
        mode,
    }
}

/// An actor holding only a kinematic slab: a box of half extents (5, 0.5,
/// 5) centred at y = 10, so its top is at y = 10.5.
fn slab_actor() -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    let p = Vec3::new(0.0, 10.0, 0.0);
    m.skeleton.bones.push(Bone::new("slab", None, p));
    m.rigid_bodies.push(body(
        "slab",
        0,
        PhysicsMode::FollowBone,
        Shape::Box,
        Vec3::new(5.0, 0.5, 5.0),
        p,
    ));
    m
}

/// An actor holding only a dynamic ball of radius 0.5 at y = 15.
fn ball_actor() -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    let p = Vec3::new(0.0, 15.0, 0.0);
    m.skeleton.bones.push(Bone::new("ball", None, p));
    m.rigid_bodies.push(body(
        "ball",
        0,
        PhysicsMode::Physics,
        Shape::Sphere,
        Vec3::new(0.5, 0.0, 0.0),
        p,
    ));
    m
}

fn rest(m: &Model) -> Vec<Mat4> {
    m.skeleton
        .bones
        .iter()
        .map(|b| Mat4::from_translation(b.rest_position))
        .collect()
}

/// Drops actor 1's ball over actor 0's slab for two seconds; returns the
/// ball bone's height after the write-back, and the joined bones.
fn drop_ball(across: bool) -> (f32, Vec<Mat4>) {
    let slab = slab_actor();
    let ball = ball_actor();
    let mut world = PhysicsWorld::with_actors(&[&slab, &ball]);
    world.set_collide_across_actors(across);
    assert_eq!(world.actor_count(), 2);
    assert_eq!(world.actor_bones(0), Some(0..1));
    assert_eq!(world.actor_bones(1), Some(1..2));
    assert_eq!(world.actor_bones(2), None);
    let mut bones = rest(&slab);
    bones.extend(rest(&ball));
    let mut out = bones.clone();
    for _ in 0..60 {
        world.step(&bones, 1.0 / 30.0);
        out.copy_from_slice(&bones);
        world.write_back(&mut out);
    }
    (out[1].w_axis.y, out)
}

#[test]
fn actors_collide_only_with_their_own_bodies_unless_allowed() {
    // Apart (the default): the ball passes the other actor's slab and rests
    // on the ground by its radius, y = 0.5.
    let (y, out) = drop_ball(false);
    assert!((y - 0.5).abs() < 0.1, "fell to {y}");
    // The slab (kinematic) is where its bone is.
    assert_eq!(out[0], Mat4::from_translation(Vec3::new(0.0, 10.0, 0.0)));
    // Allowed: it rests on the slab's top, 10.5 + 0.5 = 11.
    let (y, _) = drop_ball(true);
    assert!((y - 11.0).abs() < 0.1, "rests at {y}");
}

#[test]
fn an_actor_still_collides_with_its_own_bodies() {
    // One actor holding both the slab and the ball (its bodies collide by
    // their masks), next to a second actor: the ball rests on its own slab.
    let mut own = slab_actor();
    let ball = ball_actor();
    own.skeleton.bones.push(ball.skeleton.bones[0].clone());
    let mut b = ball.rigid_bodies[0].clone();
    b.bone = Some(1);
    own.rigid_bodies.push(b);
    let other = slab_actor();
    let mut world = PhysicsWorld::with_actors(&[&other, &own]);
    assert_eq!(world.actor_bones(1), Some(1..3));
    let mut bones = rest(&other);
    bones.extend(rest(&own));
    let mut out = bones.clone();
    for _ in 0..60 {
        world.step(&bones, 1.0 / 30.0);
        out.copy_from_slice(&bones);
        world.write_back(&mut out);
    }
    let y = out[2].w_axis.y;
    assert!((y - 11.0).abs() < 0.1, "rests at {y}");
}

#[test]
fn each_actor_follows_its_own_bones() {
    // Two ball actors, the second one's bones moved 20 units along x: each
    // ball falls under its own bone's place, to the ground (y = 0.5).
    let a = ball_actor();
    let b = ball_actor();
    let mut world = PhysicsWorld::with_actors(&[&a, &b]);
    let shift = Mat4::from_translation(Vec3::new(20.0, 0.0, 0.0));
    let mut bones = rest(&a);
    bones.extend(rest(&b).into_iter().map(|m| shift * m));
    world.reset(&bones);
    let mut out = bones.clone();
    for _ in 0..60 {
        world.step(&bones, 1.0 / 30.0);
        out.copy_from_slice(&bones);
        world.write_back(&mut out);
    }
    let (pa, pb) = (out[0].w_axis.truncate(), out[1].w_axis.truncate());
    assert!(pa.distance(Vec3::new(0.0, 0.5, 0.0)) < 0.1, "{pa}");
    assert!(pb.distance(Vec3::new(20.0, 0.5, 0.0)) < 0.1, "{pb}");
}

fn run_two(across: bool) -> Vec<u8> {
    let (_, out) = drop_ball(across);
    let mut bytes = Vec::new();
    for m in out {
        for v in m.to_cols_array() {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    bytes
}

#[test]
fn two_actor_runs_give_identical_bytes() {
    assert!(run_two(false) == run_two(false));
    assert!(run_two(true) == run_two(true));
}

#[test]
fn warnings_name_the_actor() {
    let mut bad = ball_actor();
    bad.rigid_bodies[0].mass = -1.0;
    let good = ball_actor();
    let world = PhysicsWorld::with_actors(&[&good, &bad]);
    assert!(
        world.warnings().iter().any(|w| w.starts_with("actor 2: ")),
        "{:?}",
        world.warnings()
    );
    // A single actor's warnings keep their plain form.
    let world = PhysicsWorld::new(&bad);
    assert!(
        world.warnings().iter().all(|w| !w.starts_with("actor")),
        "{:?}",
        world.warnings()
    );
}
