//! Several actors in one physics world (issue 21 item 3): each actor's
//! bodies collide only with its own unless collisions across actors are
//! allowed; each actor's bones are written back on their own; the same run
//! gives the same bytes. Expected heights are worked out by hand from the
//! shapes' sizes. Then the scene's driver ([`ScenePhysics`]): one actor
//! through it gives exactly the engine's own physics (Mei dancing
//! `mei_wait`), two overlapping actors pass through each other or are
//! pushed apart as the switch says.

mod common;

use glam::{Mat4, Quat, Vec3};
use vmd_studio::model::physics::{
    PhysicsWorld, SceneActor, ScenePhysics, SimulationMode, Transport,
};
use vmd_studio::model::skeleton::Bone;
use vmd_studio::model::{Format, Joint, Model, PhysicsMode, PoseEngine, RigidBody, Shape};
use vmd_studio::vmd::{self, IndexedMotion};

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

fn bytes_of(ms: &[Mat4]) -> Vec<u8> {
    ms.iter()
        .flat_map(|m| m.to_cols_array())
        .flat_map(f32::to_le_bytes)
        .collect()
}

/// The frames posed, with the transport of each: in order, a repaint of
/// the same frame, stopped frames with wall time (Always runs on), a
/// fractional frame, a jump back (reset) and on again; about 60 frames.
fn schedule() -> Vec<(f64, Transport)> {
    let play = Transport::PLAYING;
    let stopped = Transport {
        playing: false,
        elapsed: 1.0 / 60.0,
    };
    let mut s: Vec<(f64, Transport)> = (0..30).map(|f| (f64::from(f), play)).collect();
    s.push((29.0, play));
    s.extend([
        (29.0, stopped),
        (29.0, stopped),
        (30.5, play),
        (33.0, stopped),
    ]);
    s.push((10.0, play));
    s.extend((11..35).map(|f| (f64::from(f), play)));
    s
}

#[test]
fn one_actor_through_the_driver_gives_the_engines_matrices_bit_for_bit() {
    let Some(dir) = common::corpus() else {
        return;
    };
    let model = Model::open(&dir.join("mmdagent__mei.pmd")).expect("Mei");
    let bytes = std::fs::read(dir.join("mmdagent__mei_wait.vmd")).expect("mei_wait");
    let im = IndexedMotion::new(vmd::read_vec(bytes).expect("mei_wait reads"));
    let frames = schedule();
    for mode in [SimulationMode::Always, SimulationMode::Trace] {
        // Today's path: the engine's own world.
        let mut own = PoseEngine::new(&model);
        own.bind(&model, Some(&im.index));
        assert!(own.enable_physics(&model, mode));
        // The driver's: the engine without a world, the driver's world.
        let mut driven = PoseEngine::new(&model);
        driven.bind(&model, Some(&im.index));
        let mut scene = ScenePhysics::new(mode);
        for (k, &(f, t)) in frames.iter().enumerate() {
            own.set_transport(t);
            own.pose_bones(&model, Some(im.as_ref()), f, |_| {});
            scene.set_transport(t);
            let msgs = scene.pose(
                &mut [SceneActor {
                    key: 1,
                    engine: &mut driven,
                    model: &model,
                    motion: Some(im.as_ref()),
                    offset: 0.0,
                    replace: None,
                    follow: false,
                    skin: false,
                }],
                f,
            );
            assert!(msgs.is_empty(), "{msgs:?}");
            assert!(own.take_physics_message().is_none());
            assert!(
                bytes_of(&own.posed.bone_world) == bytes_of(&driven.posed.bone_world),
                "{mode:?}: pose {k} (frame {f}) differs"
            );
            assert_eq!(own.physics_steps(), scene.steps(), "{mode:?} pose {k}");
        }
        assert!(driven.physics().is_none(), "the driver's world only");
        // The hair did move: the simulated pose is not the animated one.
        let mut plain = PoseEngine::new(&model);
        plain.bind(&model, Some(&im.index));
        plain.pose_bones(&model, Some(im.as_ref()), 34.0, |_| {});
        assert!(bytes_of(&plain.posed.bone_world) != bytes_of(&driven.posed.bone_world));
        // Skinning through the driver agrees with the engine's too.
        own.pose(&model, Some(im.as_ref()), 35.0);
        scene.pose(
            &mut [SceneActor {
                key: 1,
                engine: &mut driven,
                model: &model,
                motion: Some(im.as_ref()),
                offset: 0.0,
                replace: None,
                follow: false,
                skin: true,
            }],
            35.0,
        );
        assert_eq!(own.posed.positions, driven.posed.positions, "{mode:?}");
    }
}

/// An actor with one dynamic ball of radius 1 resting on the ground at
/// x = `x` (centre height 1 = its radius).
fn resting_ball(x: f32) -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    let p = Vec3::new(x, 1.0, 0.0);
    m.skeleton.bones.push(Bone::new("ball", None, p));
    m.rigid_bodies.push(body(
        "ball",
        0,
        PhysicsMode::Physics,
        Shape::Sphere,
        Vec3::new(1.0, 0.0, 0.0),
        p,
    ));
    m
}

/// Poses `models` together through one driver for `frames` frames;
/// returns each actor's ball bone matrix per frame.
fn run_scene(models: &[&Model], across: bool, frames: u32) -> Vec<Vec<Mat4>> {
    let mut engines: Vec<PoseEngine> = models.iter().map(|m| PoseEngine::new(m)).collect();
    let mut scene = ScenePhysics::new(SimulationMode::Trace);
    scene.set_collide_across_actors(across);
    let mut out = Vec::new();
    for f in 0..frames {
        let mut actors: Vec<SceneActor> = engines
            .iter_mut()
            .zip(models)
            .enumerate()
            .map(|(k, (engine, model))| SceneActor {
                key: k as u64,
                engine,
                model,
                motion: None,
                offset: 0.0,
                replace: None,
                follow: false,
                skin: false,
            })
            .collect();
        let msgs = scene.pose(&mut actors, f64::from(f));
        assert!(msgs.is_empty(), "{msgs:?}");
        out.push(engines.iter().map(|e| e.posed.bone_world[0]).collect());
    }
    assert_eq!(
        scene.world().map(PhysicsWorld::actor_count),
        Some(models.len())
    );
    out
}

#[test]
fn overlapping_actors_pass_through_each_other_unless_allowed_to_collide() {
    // Two balls of radius 1 whose centres are 1 apart (x = ∓0.5): they
    // overlap by 2 − 1 = 1 unit. Each rests on the ground where it is.
    let (a, b) = (resting_ball(-0.5), resting_ball(0.5));
    let frames = 45;
    let alone_a = run_scene(&[&a], false, frames);
    let alone_b = run_scene(&[&b], false, frames);
    let apart = run_scene(&[&a, &b], false, frames);
    for f in 0..frames as usize {
        // Off (the default): nothing pushes them; each actor's pose is
        // exactly the one it has alone in the world.
        assert_eq!(apart[f][0], alone_a[f][0], "frame {f}");
        assert_eq!(apart[f][1], alone_b[f][0], "frame {f}");
    }
    let last = frames as usize - 1;
    let (pa, pb) = (apart[last][0].w_axis, apart[last][1].w_axis);
    assert!(
        (pa.x + 0.5).abs() < 1e-3 && (pb.x - 0.5).abs() < 1e-3,
        "{pa} {pb}"
    );
    // On: pushed apart to at least the sum of the radii (2), each along
    // its own side of x, still resting on the ground (y = 1).
    let together = run_scene(&[&a, &b], true, frames);
    let (pa, pb) = (together[last][0].w_axis, together[last][1].w_axis);
    let gap = pa.truncate().distance(pb.truncate());
    assert!(gap > 1.95, "centres {gap} apart: {pa} {pb}");
    assert!(pa.x < -0.5 && pb.x > 0.5, "{pa} {pb}");
    assert!(
        (pa.y - 1.0).abs() < 0.05 && (pb.y - 1.0).abs() < 0.05,
        "{pa} {pb}"
    );
}

/// An actor with no motion, no override, bones only.
fn actor<'a>(key: u64, engine: &'a mut PoseEngine, model: &'a Model) -> SceneActor<'a> {
    SceneActor {
        key,
        engine,
        model,
        motion: None,
        offset: 0.0,
        replace: None,
        follow: false,
        skin: false,
    }
}

#[test]
fn the_driver_rebuilds_for_new_actors_and_poses_bodiless_ones_plainly() {
    let (a, b) = (resting_ball(-5.0), resting_ball(5.0));
    let mut bare = Model::empty(Format::Pmx { version: 2.0 });
    bare.skeleton
        .bones
        .push(Bone::new("root", None, Vec3::new(0.0, 3.0, 0.0)));
    let (mut ea, mut eb, mut ebare) = (
        PoseEngine::new(&a),
        PoseEngine::new(&b),
        PoseEngine::new(&bare),
    );
    let mut scene = ScenePhysics::new(SimulationMode::Trace);
    scene.pose(
        &mut [actor(1, &mut ea, &a), actor(9, &mut ebare, &bare)],
        0.0,
    );
    assert_eq!(scene.world().map(PhysicsWorld::actor_count), Some(1));
    assert!(scene.simulates(0) && !scene.simulates(1));
    // The bodiless actor's bone is at its rest place.
    assert_eq!(
        ebare.posed.bone_world[0].w_axis.truncate(),
        Vec3::new(0.0, 3.0, 0.0)
    );
    let settled = scene.steps();
    assert_eq!(settled, 60, "a reset settles 60 steps");
    scene.pose(
        &mut [actor(1, &mut ea, &a), actor(9, &mut ebare, &bare)],
        1.0,
    );
    // One frame: 1/30 s = 4 steps of 1/120 s.
    assert_eq!(scene.steps() - settled, 4);
    // A second actor with bodies: a new world, reset (60 more steps).
    let before = scene.steps();
    scene.pose(
        &mut [
            actor(1, &mut ea, &a),
            actor(9, &mut ebare, &bare),
            actor(2, &mut eb, &b),
        ],
        2.0,
    );
    assert_eq!(scene.world().map(PhysicsWorld::actor_count), Some(2));
    assert!(scene.simulates(2));
    assert_eq!(scene.steps() - before, 60);
    // Each ball rests where it is (radius 1 above the ground).
    let pb = eb.posed.bone_world[0].w_axis.truncate();
    assert!(pb.distance(Vec3::new(5.0, 1.0, 0.0)) < 0.05, "{pb}");
    // Off: no steps, the animated pose.
    scene.set_mode(SimulationMode::Off);
    let before = scene.steps();
    scene.pose(&mut [actor(1, &mut ea, &a), actor(2, &mut eb, &b)], 3.0);
    assert_eq!(scene.steps(), before);
    assert_eq!(
        eb.posed.bone_world[0],
        Mat4::from_translation(Vec3::new(5.0, 1.0, 0.0))
    );
}

#[test]
fn a_following_actor_keeps_its_bones_while_the_other_simulates() {
    // Two balls at y = 15 (radius 0.5), 20 units apart. While actor 0
    // follows its bones (the gizmo drags it) its ball stays at its bone,
    // exactly; actor 1's falls. Let go, actor 0's falls too.
    let a = ball_actor();
    let mut b = ball_actor();
    b.skeleton.bones[0].rest_position.x = 20.0;
    b.rigid_bodies[0].position.x = 20.0;
    let (mut ea, mut eb) = (PoseEngine::new(&a), PoseEngine::new(&b));
    let mut scene = ScenePhysics::new(SimulationMode::Trace);
    for f in 0..30 {
        let mut held = actor(0, &mut ea, &a);
        held.follow = f < 20;
        scene.pose(&mut [held, actor(1, &mut eb, &b)], f64::from(f));
        if f == 19 {
            assert_eq!(
                ea.posed.bone_world[0],
                Mat4::from_translation(Vec3::new(0.0, 15.0, 0.0))
            );
            // Fell under gravity: y = 15 − ½·98·t² with t ≈ 19/30 s, below 0.5
            // it rests on the ground; either way far under 15.
            assert!(eb.posed.bone_world[0].w_axis.y < 5.0);
        }
    }
    // Ten frames (1/3 s) of free fall: 15 − ½·98·(1/3)² ≈ 9.6.
    let y = ea.posed.bone_world[0].w_axis.y;
    assert!(y < 11.0, "fell to {y}");
}

/// An actor whose pendulum is yanked 500 units in one frame (its joint
/// limits translation to ±0.5, so projection does not carry the bob along):
/// the bob ends far past the 40-unit blow-up distance from its bone. In a
/// world shared with another actor (one ball, listed first), the message
/// comes back for the second actor and names the bob by its number in its
/// own model (body 1), not in the joined world (body 2).
#[test]
fn a_blow_up_names_the_actor_and_its_own_body_number() {
    let first = resting_ball(-20.0);
    let mut second = Model::empty(Format::Pmx { version: 2.0 });
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    let bob = pivot + Vec3::new(0.0, -10.0, 0.0);
    second.skeleton.bones.push(Bone::new("pivot", None, pivot));
    second.skeleton.bones.push(Bone::new("bob", Some(0), bob));
    let s = Vec3::new(0.5, 0.0, 0.0);
    second.rigid_bodies = vec![
        body("pivot", 0, PhysicsMode::FollowBone, Shape::Sphere, s, pivot),
        body("bob", 1, PhysicsMode::Physics, Shape::Sphere, s, bob),
    ];
    second.joints = vec![Joint {
        name: "joint".into(),
        name_en: String::new(),
        kind: 0,
        rigid_bodies: [Some(0), Some(1)],
        position: pivot,
        rotation: Vec3::ZERO,
        translation_limits: (Vec3::splat(-0.5), Vec3::splat(0.5)),
        rotation_limits: (Vec3::ONE, Vec3::NEG_ONE),
        spring_translation: Vec3::ZERO,
        spring_rotation: Vec3::ZERO,
    }];
    let models = [&first, &second];
    let mut engines: Vec<PoseEngine> = models.iter().map(|m| PoseEngine::new(m)).collect();
    let mut scene = ScenePhysics::new(SimulationMode::Trace);
    let mut said = Vec::new();
    for f in 0..2 {
        let mut actors: Vec<SceneActor> = engines
            .iter_mut()
            .zip(models)
            .enumerate()
            .map(|(k, (engine, model))| SceneActor {
                key: k as u64,
                engine,
                model,
                motion: None,
                offset: 0.0,
                replace: (k == 1 && f == 1).then_some((
                    0,
                    Vec3::new(500.0, 0.0, 0.0),
                    Quat::IDENTITY,
                )),
                follow: false,
                skin: false,
            })
            .collect();
        said.extend(scene.pose(&mut actors, f64::from(f)));
    }
    assert_eq!(said.len(), 1, "{said:?}");
    let (actor, message) = &said[0];
    assert_eq!(*actor, 1, "{message}");
    assert!(message.contains("rigid body 1 \"bob\""), "{message}");
    assert!(
        engines
            .iter()
            .all(|e| e.posed.bone_world.iter().all(|m| m.is_finite()))
    );
}
