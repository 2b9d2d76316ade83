//! The rigid-body world (src/model/physics): small worlds checked against
//! numbers worked out by hand, hostile models, and Mei with her motion.

mod common;

use common::corpus;

use glam::{Mat4, Quat, Vec3};
use vmd_studio::model::physics::{BodyMode, PROJECTION_TOLERANCE, PhysicsWorld, STEP};
use vmd_studio::model::skeleton::Bone;
use vmd_studio::model::{Format, Joint, Model, PhysicsMode, PoseEngine, RigidBody, Shape};

const G: f32 = 98.0;

fn body(name: &str, bone: Option<usize>, mode: PhysicsMode, position: Vec3) -> RigidBody {
    RigidBody {
        name: name.into(),
        name_en: String::new(),
        bone,
        group: 0,
        no_collision: 0xFFFF,
        shape: Shape::Sphere,
        size: Vec3::new(0.2, 0.0, 0.0),
        position,
        rotation: Vec3::ZERO,
        mass: 1.0,
        linear_damping: 0.0,
        angular_damping: 0.0,
        restitution: 0.0,
        friction: 0.5,
        mode,
    }
}

/// A joint at `position` with translation locked and the given rotation
/// limits (`lo > hi` = free).
fn joint(a: usize, b: usize, position: Vec3, rot: (Vec3, Vec3)) -> Joint {
    Joint {
        name: "joint".into(),
        name_en: String::new(),
        kind: 0,
        rigid_bodies: [Some(a), Some(b)],
        position,
        rotation: Vec3::ZERO,
        translation_limits: (Vec3::ZERO, Vec3::ZERO),
        rotation_limits: rot,
        spring_translation: Vec3::ZERO,
        spring_rotation: Vec3::ZERO,
    }
}

const FREE: (Vec3, Vec3) = (Vec3::ONE, Vec3::NEG_ONE);

/// A pendulum: bone 0 at the pivot with a follow-bone body (colliding with
/// nothing), bone 1 at the bob with a physics body, one joint at the pivot
/// with translation locked and rotation free. The bob starts `angle` radians
/// from straight down, in the XY plane.
fn pendulum(pivot: Vec3, length: f32, angle: f32) -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    let bob = pivot + Vec3::new(length * angle.sin(), -length * angle.cos(), 0.0);
    m.skeleton.bones.push(Bone::new("pivot", None, pivot));
    m.skeleton.bones.push(Bone::new("bob", Some(0), bob));
    let mut a = body("pivot", Some(0), PhysicsMode::FollowBone, pivot);
    a.no_collision = 0;
    let mut b = body("bob", Some(1), PhysicsMode::Physics, bob);
    b.no_collision = 0;
    m.rigid_bodies = vec![a, b];
    m.joints = vec![joint(0, 1, pivot, FREE)];
    m
}

/// Rest matrices (translation to each bone's rest position).
fn rest(m: &Model) -> Vec<Mat4> {
    m.skeleton
        .bones
        .iter()
        .map(|b| Mat4::from_translation(b.rest_position))
        .collect()
}

#[test]
fn pendulum_swings_with_the_period_its_length_gives() {
    // Length 10 units, 5° amplitude. A sphere of radius r on a massless rod:
    // a physical pendulum, T = 2π √((L² + 2/5 r²) / (g L)) = 2.0072 s.
    // The finite amplitude lengthens it by θ²/16 = 0.05 %; the semi-implicit
    // Euler step at 240 steps per period by (ωh)²/24 < 0.003 %; zero crossings
    // are found to a fraction of a 1/120 s step (0.4 % of T at worst, averaged
    // over 4 periods). 1 % covers all of these.
    let (l, r, amp) = (10.0_f32, 0.2_f32, 5.0_f32.to_radians());
    let expected = 2.0 * std::f32::consts::PI * ((l * l + 0.4 * r * r) / (G * l)).sqrt();
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    let model = pendulum(pivot, l, amp);
    let mut world = PhysicsWorld::new(&model);
    assert!(world.warnings().is_empty(), "{:?}", world.warnings());
    let bones = rest(&model);
    let mut crossings = Vec::new();
    let mut last_x = world.body_pose(1).unwrap().1.x;
    let mut max_stretch = 0.0_f32;
    for s in 1..=1200 {
        let report = world.step(&bones, STEP);
        assert_eq!(report.steps, 1);
        let p = world.body_pose(1).unwrap().1;
        max_stretch = max_stretch.max((p.distance(pivot) - l).abs());
        if last_x > 0.0 && p.x <= 0.0 || last_x < 0.0 && p.x >= 0.0 {
            // Linear interpolation inside the step.
            let f = last_x / (last_x - p.x);
            crossings.push((s as f32 - 1.0 + f) * STEP);
        }
        last_x = p.x;
    }
    assert!(crossings.len() >= 9, "{crossings:?}");
    let n = crossings.len() - 1;
    let measured = 2.0 * (crossings[n] - crossings[0]) / n as f32;
    eprintln!(
        "pendulum period: expected {expected:.4} s, measured {measured:.4} s, max stretch {max_stretch:.4}"
    );
    assert!(
        (measured - expected).abs() < 0.01 * expected,
        "period {measured} s, expected {expected} s"
    );
    // The locked translation holds the length (within 1 %).
    assert!(max_stretch < 0.1, "stretched {max_stretch}");
}

#[test]
fn pendulum_hangs_straight_down() {
    // Started 30° out with damping, after 8 s it hangs below the pivot.
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    let mut model = pendulum(pivot, 10.0, 30.0_f32.to_radians());
    // Bullet's damping 0.9 leaves 10 % of the velocity per second, so the
    // swing's amplitude falls as 0.1^(t/2): from 5 units to 0.0005 in 8 s.
    model.rigid_bodies[1].linear_damping = 0.9;
    model.rigid_bodies[1].angular_damping = 0.9;
    let mut world = PhysicsWorld::new(&model);
    let mut bones = rest(&model);
    for _ in 0..240 {
        world.step(&bones, 1.0 / 30.0);
    }
    let p = world.body_pose(1).unwrap().1;
    assert!(p.distance(pivot - Vec3::new(0.0, 10.0, 0.0)) < 0.05, "{p}");
    // The bone follows: its head where the body is (the body sits on the
    // bone's head here), its parent untouched.
    world.write_back(&mut bones);
    let head = bones[1].w_axis.truncate();
    assert!(head.distance(p) < 1e-4, "{head} vs {p}");
    assert_eq!(bones[0], Mat4::from_translation(pivot));
}

#[test]
fn locked_joint_holds_its_body_and_a_limit_stops_it() {
    // A bob 5 units out sideways: with every axis locked it stays put (even a
    // soft lock at 34.6 Hz would sag by only g / (L ω²) = 98 / (5 · 217²) =
    // 0.0004 rad; the locks are rigid now); with
    // rotation about Z limited to ±0.2 rad it falls and stops at 0.2 rad.
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    let mut model = pendulum(pivot, 5.0, 90.0_f32.to_radians());
    model.joints[0].rotation_limits = (Vec3::ZERO, Vec3::ZERO);
    let mut world = PhysicsWorld::new(&model);
    let bones = rest(&model);
    for _ in 0..120 {
        world.step(&bones, 1.0 / 30.0);
    }
    let p = world.body_pose(1).unwrap().1;
    let sag = (pivot.y - p.y).atan2(p.x - pivot.x);
    assert!(sag.abs() < 0.01, "locked joint sagged {sag} rad");

    model.joints[0].rotation_limits = (Vec3::new(0.0, 0.0, -0.2), Vec3::new(0.0, 0.0, 0.2));
    let mut world = PhysicsWorld::new(&model);
    let mut max = 0.0_f32;
    for _ in 0..120 {
        world.step(&bones, 1.0 / 30.0);
        let p = world.body_pose(1).unwrap().1;
        max = max.max((pivot.y - p.y).atan2(p.x - pivot.x));
    }
    let p = world.body_pose(1).unwrap().1;
    let end = (pivot.y - p.y).atan2(p.x - pivot.x);
    eprintln!("limited joint: end angle {end:.4} rad, max {max:.4} rad (limit 0.2)");
    assert!(end > 0.17 && max < 0.23, "end {end}, max {max}");
}

/// A kinematic root and three physics links hanging from it along −Y, one
/// unit apart, heavier towards the tip (1, 5, 10: the mass ratios that
/// stretch real models' chains), joined by translation-locked joints halfway
/// between neighbours with rotation free. Joint `k` sits at y = 20 − k + ½.
fn yank_chain() -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    let at = |k: usize| Vec3::new(0.0, 20.0 - k as f32, 0.0);
    m.skeleton.bones.push(Bone::new("root", None, at(0)));
    let mut root = body("root", Some(0), PhysicsMode::FollowBone, at(0));
    root.no_collision = 0;
    m.rigid_bodies.push(root);
    for (k, mass) in [(1, 1.0), (2, 5.0), (3, 10.0)] {
        m.skeleton
            .bones
            .push(Bone::new(format!("link{k}"), Some(k - 1), at(k)));
        let mut b = body(&format!("link{k}"), Some(k), PhysicsMode::Physics, at(k));
        b.no_collision = 0;
        b.mass = mass;
        m.rigid_bodies.push(b);
        m.joints
            .push(joint(k - 1, k, at(k) + Vec3::new(0.0, 0.5, 0.0), FREE));
    }
    m
}

#[test]
fn a_yanked_chain_keeps_every_locked_anchor_within_the_projection_tolerance() {
    // The root is shaken 6 units sideways at 3 Hz and 4 units up and down
    // at 4 Hz (peak speeds 2π·3·6 ≈ 113 and 2π·4·4 ≈ 100 units/s, a hard
    // arm swing), and turned ±1 rad about Z at 2 Hz, for two seconds.
    let model = yank_chain();
    let mut world = PhysicsWorld::new(&model);
    let base = rest(&model);
    world.reset(&base);
    let tau = std::f32::consts::TAU;
    // Joint k's anchor in body k−1's frame is (0, −½, 0) and in body k's
    // frame (0, +½, 0) (bodies unrotated at bind, one unit apart).
    let anchor = |world: &PhysicsWorld, body: usize, y: f32| {
        let (q, t) = world.body_pose(body).unwrap();
        t + q * Vec3::new(0.0, y, 0.0)
    };
    let (mut worst, mut moved, mut projected) = (0.0_f32, 0.0_f32, 0u32);
    for f in 1..=60 {
        let t = f as f32 / 30.0;
        let shake = Mat4::from_rotation_translation(
            Quat::from_rotation_z((tau * 2.0 * t).sin()),
            Vec3::new(
                6.0 * (tau * 3.0 * t).sin(),
                4.0 * (tau * 4.0 * t).sin(),
                0.0,
            ),
        );
        let bones: Vec<Mat4> = base.iter().map(|m| shake * *m).collect();
        let report = world.step(&bones, 1.0 / 30.0);
        assert!(report.reset.is_none(), "frame {f}: {report:?}");
        projected += report.projected;
        for k in 1..=3 {
            let gap = anchor(&world, k - 1, -0.5).distance(anchor(&world, k, 0.5));
            worst = worst.max(gap);
        }
        let tip = world.body_pose(3).unwrap().1;
        moved = moved.max(tip.distance(bones[3].w_axis.truncate()));
    }
    eprintln!(
        "yanked chain: worst anchor gap {worst:.4}, tip off its bone by up to {moved:.2}, {projected} projections"
    );
    // The chain swung (it is simulated, not glued to its bones) ...
    assert!(moved > 0.5, "tip moved {moved}");
    // ... and every locked anchor stayed within the tolerance after every
    // frame (rounding aside).
    assert!(
        worst <= PROJECTION_TOLERANCE + 1.0e-4,
        "worst anchor gap {worst}"
    );
}

/// A kinematic slab (group 1) at y = 10 and a ball (group 2) dropped on it
/// from y = 15 with `mask`.
fn drop_on_slab(mask: u16) -> f32 {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    m.skeleton
        .bones
        .push(Bone::new("slab", None, Vec3::new(0.0, 10.0, 0.0)));
    m.skeleton
        .bones
        .push(Bone::new("ball", None, Vec3::new(0.0, 15.0, 0.0)));
    let mut slab = body(
        "slab",
        Some(0),
        PhysicsMode::FollowBone,
        Vec3::new(0.0, 10.0, 0.0),
    );
    slab.shape = Shape::Box;
    slab.size = Vec3::new(5.0, 0.5, 5.0);
    slab.group = 1;
    let mut ball = body(
        "ball",
        Some(1),
        PhysicsMode::Physics,
        Vec3::new(0.0, 15.0, 0.0),
    );
    ball.size = Vec3::new(0.5, 0.0, 0.0);
    ball.group = 2;
    ball.no_collision = mask;
    m.rigid_bodies = vec![slab, ball];
    let mut world = PhysicsWorld::new(&m);
    let bones = rest(&m);
    for _ in 0..60 {
        world.step(&bones, 1.0 / 30.0);
    }
    world.body_pose(1).unwrap().1.y
}

#[test]
fn masks_decide_which_bodies_collide() {
    // Colliding: the ball rests on the slab's top (10.5) by its radius: 11.
    let y = drop_on_slab(0xFFFF);
    assert!((y - 11.0).abs() < 0.1, "rests at {y}");
    // Mask without group 1: through the slab down to the ground, y = 0.5.
    let y = drop_on_slab(!(1 << 1));
    assert!((y - 0.5).abs() < 0.1, "fell to {y}");
}

#[test]
fn mode_two_keeps_the_animated_translation_and_is_demoted_under_a_dynamic_parent() {
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    let mut model = pendulum(pivot, 10.0, 20.0_f32.to_radians());
    model.rigid_bodies[1].mode = PhysicsMode::PhysicsWithBone;
    let mut world = PhysicsWorld::new(&model);
    assert_eq!(
        world.setup().bodies[1].mode,
        BodyMode::PhysicsKeepTranslation
    );
    let mut bones = rest(&model);
    // The animation moves the bob bone 2 units along X.
    let animated = model.skeleton.bones[1].rest_position + Vec3::new(2.0, 0.0, 0.0);
    bones[1] = Mat4::from_translation(animated);
    for _ in 0..10 {
        world.step(&bones, 1.0 / 30.0);
    }
    let mut out = bones.clone();
    world.write_back(&mut out);
    assert_eq!(out[1].w_axis.truncate(), animated);
    // The rotation is the body's (which swung from its bind orientation).
    let (q, _) = world.body_pose(1).unwrap();
    let got = Quat::from_mat4(&out[1]);
    // Component-wise (an f32 `angle_between` of equal rotations can read
    // up to ~1e-3 rad: acos near 1 magnifies one rounding step).
    let d = (got - q).length().min((got + q).length());
    assert!(d < 1e-4, "{got} vs {q}: {d}");
    assert!(q.angle_between(Quat::IDENTITY) > 0.01, "the body turned");

    // Under a dynamic parent it behaves as mode 1.
    let mut model = pendulum(pivot, 10.0, 0.0);
    model
        .skeleton
        .bones
        .push(Bone::new("tip", Some(1), pivot - Vec3::new(0.0, 12.0, 0.0)));
    let mut tip = body(
        "tip",
        Some(2),
        PhysicsMode::PhysicsWithBone,
        pivot - Vec3::new(0.0, 12.0, 0.0),
    );
    tip.no_collision = 0;
    model.rigid_bodies.push(tip);
    model
        .joints
        .push(joint(1, 2, pivot - Vec3::new(0.0, 10.0, 0.0), FREE));
    let world = PhysicsWorld::new(&model);
    assert_eq!(world.setup().bodies[2].mode, BodyMode::Physics);
}

#[test]
fn physics_off_makes_the_body_follow_its_bone() {
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    let model = pendulum(pivot, 10.0, 0.0);
    let mut world = PhysicsWorld::new(&model);
    let mut bones = rest(&model);
    // The animation holds the bob out at 90°, turned with it.
    let turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    bones[1] = Mat4::from_rotation_translation(turn, pivot + Vec3::new(10.0, 0.0, 0.0));
    world.set_physics_off(&[false, true]);
    world.step(&bones, 1.0 / 30.0);
    let (q, p) = world.body_pose(1).unwrap();
    assert!(p.distance(pivot + Vec3::new(10.0, 0.0, 0.0)) < 1e-4, "{p}");
    assert!(q.angle_between(turn) < 1e-4);
    let mut out = bones.clone();
    world.write_back(&mut out);
    assert_eq!(out, bones, "a bone with physics off keeps its keys");
    // Back on: gravity takes it, and the bone follows the body.
    world.set_physics_off(&[]);
    for _ in 0..5 {
        world.step(&bones, 1.0 / 30.0);
    }
    let mut out = bones.clone();
    world.write_back(&mut out);
    assert!(out[1].w_axis.y < pivot.y - 1.0, "{}", out[1].w_axis);
}

/// A model with a bit of everything: a chain of five bodies under a
/// kinematic root, colliding with each other and the ground.
fn chain() -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    m.skeleton
        .bones
        .push(Bone::new("root", None, Vec3::new(0.0, 15.0, 0.0)));
    m.rigid_bodies.push(body(
        "root",
        Some(0),
        PhysicsMode::FollowBone,
        Vec3::new(0.0, 15.0, 0.0),
    ));
    for k in 1..=5 {
        let p = Vec3::new(k as f32, 15.0, 0.0);
        m.skeleton
            .bones
            .push(Bone::new(format!("b{k}"), Some(k - 1), p));
        let mut b = body(&format!("b{k}"), Some(k), PhysicsMode::Physics, p);
        b.shape = if k % 2 == 0 {
            Shape::Capsule
        } else {
            Shape::Box
        };
        b.size = Vec3::new(0.3, 0.4, 0.3);
        b.group = (k % 3) as u8;
        b.linear_damping = 0.5;
        b.angular_damping = 0.5;
        m.rigid_bodies.push(b);
        m.joints.push(joint(
            k - 1,
            k,
            p - Vec3::new(0.5, 0.0, 0.0),
            (Vec3::splat(-0.5), Vec3::splat(0.5)),
        ));
    }
    m
}

fn run_chain(model: &Model) -> Vec<u8> {
    let mut world = PhysicsWorld::new(model);
    let mut bytes = Vec::new();
    let base = rest(model);
    world.reset(&base);
    for f in 0..90 {
        let turn = Mat4::from_rotation_y(f as f32 * 0.05);
        let bones: Vec<Mat4> = base.iter().map(|m| turn * *m).collect();
        world.step(&bones, 1.0 / 30.0);
        let mut out = bones.clone();
        world.write_back(&mut out);
        for m in &out {
            for v in m.to_cols_array() {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    bytes
}

#[test]
fn two_runs_give_identical_bytes() {
    let model = chain();
    let a = run_chain(&model);
    let b = run_chain(&model);
    assert_eq!(a.len(), 90 * 6 * 64);
    assert!(a == b, "runs differ");
}

#[test]
fn hostile_models_build_with_warnings_and_never_go_non_finite() {
    let mut m = chain();
    let nan = f32::NAN;
    m.rigid_bodies[1].mass = nan;
    m.rigid_bodies[2].mass = -3.0;
    m.rigid_bodies[3].size = Vec3::new(-1.0, f32::INFINITY, 0.0);
    m.rigid_bodies[4].position = Vec3::new(nan, 0.0, 0.0);
    m.rigid_bodies[5].rotation = Vec3::splat(f32::INFINITY);
    m.rigid_bodies[5].group = 200;
    m.rigid_bodies[5].linear_damping = nan;
    m.rigid_bodies.push(body(
        "boneless",
        None,
        PhysicsMode::Physics,
        Vec3::new(0.0, 5.0, 0.0),
    ));
    m.rigid_bodies.push(body(
        "bad bone",
        Some(999),
        PhysicsMode::FollowBone,
        Vec3::ZERO,
    ));
    m.rigid_bodies.push(body(
        "second",
        Some(3),
        PhysicsMode::Physics,
        Vec3::new(3.0, 15.0, 0.0),
    ));
    m.joints[0].rotation_limits.0.x = nan;
    m.joints[1].spring_rotation = Vec3::splat(-5.0);
    m.joints.push(joint(1, 1, Vec3::ZERO, FREE));
    let mut missing = joint(0, 1, Vec3::ZERO, FREE);
    missing.rigid_bodies[1] = None;
    m.joints.push(missing);
    m.joints.push(joint(0, 77, Vec3::ZERO, FREE));
    let mut bad = joint(2, 3, Vec3::ZERO, FREE);
    bad.position = Vec3::splat(nan);
    m.joints.push(bad);

    let mut world = PhysicsWorld::new(&m);
    let w = world.warnings().join("\n");
    for needle in [
        "rigid body 1 \"b1\": mass NaN",
        "rigid body 2 \"b2\": mass -3",
        "rigid body 3 \"b3\": half extent x -1",
        "rigid body 4 \"b4\": position not finite",
        "rigid body 5 \"b5\": rotation not finite",
        "collision group 200",
        "linear damping NaN",
        "\"boneless\": no bone",
        "\"bad bone\": bone index out of range",
        "bone 3 is already driven by rigid body 3",
        "joint 0 \"joint\": rotation limit x not finite",
        "spring stiffness -5",
        "joint 5 \"joint\": joins rigid body 1 to itself",
        "joint 6 \"joint\": names a missing rigid body",
        "joint 7 \"joint\": rigid body index out of range",
        "joint 8 \"joint\": position or rotation not finite",
    ] {
        assert!(w.contains(needle), "missing {needle:?} in:\n{w}");
    }
    assert_eq!(world.setup().joints.len(), 5);
    // Bad masses follow their bones.
    assert_eq!(world.setup().bodies[1].mode, BodyMode::FollowBone);

    // Bones that go non-finite or jump about: output stays finite.
    let base = rest(&m);
    world.reset(&base);
    for f in 0..120 {
        let mut bones = base.clone();
        if f % 7 == 3 {
            bones[2] = Mat4::from_cols_array(&[nan; 16]);
        }
        if f % 11 == 5 {
            bones[0] = Mat4::from_translation(Vec3::new(1.0e4, 0.0, 0.0));
        }
        world.step(&bones, if f == 50 { f32::NAN } else { 1.0 / 30.0 });
        world.write_back(&mut bones);
        for (i, b) in bones.iter().enumerate() {
            assert!(
                b.is_finite() || (f % 7 == 3 && i == 2),
                "frame {f} bone {i}: {b}"
            );
        }
    }
}

#[test]
fn a_world_that_blows_up_is_reset_naming_the_body() {
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    let model = pendulum(pivot, 10.0, 0.0);
    let mut world = PhysicsWorld::new(&model);
    let mut bones = rest(&model);
    world.reset(&bones);
    // The bob's own bone stays; the pivot is yanked 500 units in one frame:
    // the bob is dragged far from where its bone puts it.
    bones[0] = Mat4::from_translation(pivot + Vec3::new(500.0, 0.0, 0.0));
    let mut report = world.step(&bones, 1.0 / 30.0);
    for _ in 0..10 {
        if report.reset.is_some() {
            break;
        }
        report = world.step(&bones, 1.0 / 30.0);
    }
    let message = report.reset.expect("reset");
    assert!(message.contains("rigid body 1 \"bob\""), "{message}");
    // After the reset the bob is back at its bone.
    let p = world.body_pose(1).unwrap().1;
    assert!(p.distance(bones[1].w_axis.truncate()) < 1e-3, "{p}");
}

#[test]
fn fixed_steps_whatever_the_callers_rate() {
    // 1/120 s steps: 1/30 s is four, 1/144 s accumulates (one step at the
    // 1st call, none at the 5th: 5/144 s hold 4 steps and 0.00139 s over).
    let model = pendulum(Vec3::new(0.0, 30.0, 0.0), 10.0, 0.1);
    let mut world = PhysicsWorld::new(&model);
    let bones = rest(&model);
    assert_eq!(world.step(&bones, 1.0 / 30.0).steps, 4);
    let steps: Vec<u32> = (0..5)
        .map(|_| world.step(&bones, 1.0 / 144.0).steps)
        .collect();
    assert_eq!(steps.iter().sum::<u32>(), 4, "{steps:?}");
    // A long stall is cut to 30 steps.
    assert_eq!(world.step(&bones, 10.0).steps, 30);
}

#[test]
fn mei_with_her_wait_motion() {
    let Some(dir) = corpus() else { return };
    let model = Model::open(&dir.join("mei/mei.pmd")).expect("mei");
    assert_eq!((model.rigid_bodies.len(), model.joints.len()), (31, 20));
    let bytes = std::fs::read(dir.join("mmdagent__mei_wait.vmd")).expect("motion");
    let motion = vmd_studio::vmd::IndexedMotion::new(vmd_studio::vmd::read(&bytes).expect("reads"));
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let mut world = PhysicsWorld::new(&model);
    eprintln!("mei warnings: {:?}", world.warnings());
    let bones = &model.skeleton.bones;
    let center = model.skeleton.find("センター").expect("center");
    let driven: Vec<usize> = (0..bones.len())
        .filter(|&b| world.driver(b).is_some())
        .collect();
    assert!(!driven.is_empty());
    // Mei's hair bodies are mode 2 (their bones keep their heads and take
    // the body's rotation): what moves are the heads of the bones below
    // them (the hair tips), so every bone named 髪 is watched, and the
    // driven bones' rotations too.
    let hair: Vec<usize> = (0..bones.len())
        .filter(|&b| bones[b].name.contains('髪'))
        .collect();
    let mut hair_turned = 0.0_f32;
    let last = motion
        .motion
        .bones
        .iter()
        .map(|k| k.frame())
        .max()
        .unwrap_or(0);
    let (mut worst, mut worst_at) = (0.0_f32, String::new());
    let mut hair_moved = 0.0_f32;
    let mut resets = 0;
    for frame in 0..=last {
        engine.pose_bones(&model, Some(motion.as_ref()), f64::from(frame), |_| {});
        let before = engine.posed.bone_world.clone();
        if frame == 0 {
            world.reset(&before);
        }
        let report = world.step(&before, 1.0 / 30.0);
        resets += usize::from(report.reset.is_some());
        let mut after = before.clone();
        world.write_back(&mut after);
        let c = after[center].w_axis.truncate();
        for (i, m) in after.iter().enumerate() {
            assert!(m.is_finite(), "frame {frame} bone {i}");
            let d = m.w_axis.truncate().distance(c);
            assert!(
                d < 30.0,
                "frame {frame}: {} is {d} from センター",
                bones[i].name
            );
        }
        for &b in &driven {
            let Some(p) = bones[b].parent else { continue };
            let rest = bones[b].rest_position.distance(bones[p].rest_position);
            if rest < 1e-3 {
                continue;
            }
            let now = after[b]
                .w_axis
                .truncate()
                .distance(after[p].w_axis.truncate());
            let stretch = (now - rest).abs() / rest;
            if stretch > worst {
                worst = stretch;
                worst_at = format!("frame {frame}, {}", bones[b].name);
            }
        }
        for &b in &hair {
            hair_moved = hair_moved.max(
                after[b]
                    .w_axis
                    .truncate()
                    .distance(before[b].w_axis.truncate()),
            );
            if world.driver(b).is_some() {
                let turn = Quat::from_mat4(&after[b]).angle_between(Quat::from_mat4(&before[b]));
                hair_turned = hair_turned.max(turn);
            }
        }
    }
    eprintln!(
        "mei: {} frames, {} driven bones ({} hair), worst stretch {:.2} % at {worst_at}, hair heads moved up to {hair_moved:.3} units, turned up to {:.1}°, {resets} resets",
        last + 1,
        driven.len(),
        hair.len(),
        worst * 100.0,
        hair_turned.to_degrees()
    );
    assert!(worst < 0.10, "stretch {worst} at {worst_at}");
    assert!(!hair.is_empty());
    // Measured: tips 0.106 units, 10.7° (a calm motion); half of each.
    assert!(hair_moved > 0.05, "hair moved only {hair_moved}");
    assert!(
        hair_turned.to_degrees() > 5.0,
        "hair turned only {hair_turned} rad"
    );
    assert_eq!(resets, 0);
}

#[test]
fn a_physics_off_key_makes_the_bone_follow_its_keys_from_that_frame() {
    use vmd_studio::model::physics::physics_off_at;
    use vmd_studio::vmd::{BoneKey, Motion, NameEncoding, TrackIndex};
    let pivot = Vec3::new(0.0, 30.0, 0.0);
    let model = pendulum(pivot, 10.0, 0.0);
    // The bob's keys: frame 0 on, frame 10 off (held out sideways, turned
    // by 90° about Z around the pivot: offset (10, 10, 0) from its rest
    // position), frame 20 on again.
    let turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let mut motion = Motion::new_v2();
    for (frame, off) in [(0, false), (10, true), (20, false)] {
        let mut k = BoneKey::new(
            "bob",
            NameEncoding::ShiftJis,
            frame,
            [0.0; 3],
            [0.0, 0.0, 0.0, 1.0],
        )
        .expect("key");
        k.set_physics_off(off);
        motion.bones.push(k);
    }
    let index = TrackIndex::build(&motion);
    let at = |f: f64| physics_off_at(&model, &motion, &index, f);
    assert_eq!(at(0.0), [false, false]);
    assert_eq!(at(9.9), [false, false]);
    assert_eq!(at(10.0), [false, true]);
    assert_eq!(at(19.5), [false, true]);
    assert_eq!(at(20.0), [false, false]);

    // The world: from frame 10 the body follows the keyed bone exactly.
    let mut world = PhysicsWorld::new(&model);
    let mut bones = rest(&model);
    bones[1] = Mat4::from_rotation_translation(turn, pivot + Vec3::new(10.0, 0.0, 0.0));
    let mut swung = false;
    for f in 0..16 {
        world.set_physics_off(&at(f64::from(f)));
        world.step(&bones, 1.0 / 30.0);
        let mut out = bones.clone();
        world.write_back(&mut out);
        if f < 10 {
            // Physics on: the bob hangs/swings under the pivot, not where
            // the key holds it.
            swung |= out[1]
                .w_axis
                .truncate()
                .distance(bones[1].w_axis.truncate())
                > 1.0;
        } else {
            assert_eq!(out[1], bones[1], "frame {f}");
            let p = world.body_pose(1).unwrap().1;
            assert!(
                p.distance(pivot + Vec3::new(10.0, 0.0, 0.0)) < 1e-4,
                "frame {f}: {p}"
            );
        }
    }
    assert!(swung);
}

/// Mei posed through her wait motion for `frames` frames (bones before
/// physics), or `None` without the corpus.
fn mei_frames(frames: u32) -> Option<(Model, Vec<Vec<Mat4>>)> {
    let dir = corpus()?;
    let model = Model::open(&dir.join("mei/mei.pmd")).expect("mei");
    let bytes = std::fs::read(dir.join("mmdagent__mei_wait.vmd")).expect("motion");
    let motion = vmd_studio::vmd::IndexedMotion::new(vmd_studio::vmd::read(&bytes).expect("reads"));
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let poses = (0..frames)
        .map(|f| {
            engine.pose_bones(&model, Some(motion.as_ref()), f64::from(f), |_| {});
            engine.posed.bone_world.clone()
        })
        .collect();
    Some((model, poses))
}

/// Steps `model` through `poses` (one 1/30 s frame each) and checks every
/// bone and body stays finite; returns the warnings and the resets.
fn run_finite(model: &Model, poses: &[Vec<Mat4>]) -> (Vec<String>, Vec<String>) {
    let mut world = PhysicsWorld::new(model);
    let mut resets = Vec::new();
    world.reset(&poses[0]);
    for (f, before) in poses.iter().enumerate() {
        if let Some(m) = world.step(before, 1.0 / 30.0).reset {
            resets.push(m);
        }
        let mut after = before.clone();
        world.write_back(&mut after);
        for (i, m) in after.iter().enumerate() {
            assert!(m.is_finite(), "frame {f} bone {i}: {m}");
        }
        for i in 0..model.rigid_bodies.len() {
            let (q, t) = world.body_pose(i).expect("body");
            assert!(q.is_finite() && t.is_finite(), "frame {f} body {i}");
        }
    }
    (world.warnings().to_vec(), resets)
}

#[test]
fn mei_with_hostile_bodies_and_joints_loads_with_warnings_and_stays_finite() {
    let Some((mei, poses)) = mei_frames(90) else {
        return;
    };
    let dynamic: Vec<usize> = (0..mei.rigid_bodies.len())
        .filter(|&i| mei.rigid_bodies[i].mode != PhysicsMode::FollowBone)
        .collect();
    assert!(dynamic.len() >= 8, "{dynamic:?}");
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    // One mutation of each kind, every one on a different dynamic body or
    // joint, all at once.
    let mut m = mei.clone();
    let d = |k: usize| dynamic[k];
    m.rigid_bodies[d(0)].mass = 0.0;
    m.rigid_bodies[d(1)].mass = -2.0;
    m.rigid_bodies[d(2)].mass = nan;
    m.rigid_bodies[d(3)].size = Vec3::new(-1.0, nan, inf);
    m.rigid_bodies[d(4)].size = Vec3::splat(1.0e9);
    m.rigid_bodies[d(5)].bone = None;
    m.rigid_bodies[d(6)].position = Vec3::new(inf, 0.0, 0.0);
    m.rigid_bodies[d(7)].linear_damping = -inf;
    m.rigid_bodies[d(7)].friction = nan;
    m.rigid_bodies[d(7)].restitution = 1.0e9;
    m.joints[0].rigid_bodies[1] = m.joints[0].rigid_bodies[0];
    m.joints[1].rigid_bodies[0] = Some(10_000);
    m.joints[2].rigid_bodies[1] = None;
    m.joints[3].translation_limits = (Vec3::splat(nan), Vec3::splat(inf));
    m.joints[4].rotation_limits = (Vec3::splat(-inf), Vec3::splat(inf));
    m.joints[5].spring_rotation = Vec3::new(nan, -1.0, 1.0e30);
    m.joints[6].rotation = Vec3::splat(nan);
    let (warnings, resets) = run_finite(&m, &poses);
    let w = warnings.join("\n");
    for needle in [
        format!("rigid body {}", d(0)),
        format!("rigid body {}", d(1)),
        format!("rigid body {}", d(2)),
        format!("rigid body {}", d(3)),
        format!("rigid body {}", d(4)),
        format!("rigid body {}", d(5)),
        format!("rigid body {}", d(6)),
        format!("rigid body {}", d(7)),
        "joint 0 ".into(),
        "joint 1 ".into(),
        "joint 2 ".into(),
        "joint 3 ".into(),
        "joint 5 ".into(),
        "joint 6 ".into(),
    ] {
        assert!(w.contains(&needle), "no warning for {needle:?} in:\n{w}");
    }
    eprintln!(
        "hostile mei: {} warnings, resets {resets:?}",
        warnings.len()
    );

    // Every dynamic body massless, every body sizeless, all at once.
    let mut m = mei.clone();
    for b in &mut m.rigid_bodies {
        b.mass = 0.0;
        b.size = Vec3::ZERO;
    }
    run_finite(&m, &poses);
    // Every body a huge mass next to a tiny one (a 10⁶ : 10⁻⁶ chain).
    let mut m = mei.clone();
    for (k, b) in m.rigid_bodies.iter_mut().enumerate() {
        b.mass = if k % 2 == 0 { 1.0e6 } else { 1.0e-6 };
    }
    run_finite(&m, &poses);
    // All bodies bound to one bone, all joints joining the same two bodies.
    let mut m = mei.clone();
    for b in &mut m.rigid_bodies {
        b.bone = Some(0);
    }
    for j in &mut m.joints {
        j.rigid_bodies = [Some(0), Some(1)];
    }
    run_finite(&m, &poses);
}

#[test]
fn mei_with_lying_physics_counts_fails_or_loads_but_never_panics() {
    let Some(dir) = corpus() else { return };
    let bytes = std::fs::read(dir.join("mei/mei.pmd")).expect("mei");
    let poses = mei_frames(10).map(|(_, p)| p).expect("frames");
    // PMD ends with the physics: u32 body count, 31 bodies of 83 bytes,
    // u32 joint count, 20 joints of 124 bytes.
    let bodies_at = bytes.len() - (4 + 31 * 83 + 4 + 20 * 124);
    let joints_at = bytes.len() - (4 + 20 * 124);
    assert_eq!(bytes[bodies_at..bodies_at + 4], 31u32.to_le_bytes());
    assert_eq!(bytes[joints_at..joints_at + 4], 20u32.to_le_bytes());
    let mut outcomes = Vec::new();
    for (at, count) in [
        (bodies_at, 1_000_000u32),
        (bodies_at, 32),
        (bodies_at, 30),
        (joints_at, 21),
        (joints_at, u32::MAX),
        (joints_at, 0),
    ] {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&count.to_le_bytes());
        match Model::read(&b) {
            Err(e) => {
                assert!(!e.to_string().is_empty());
                outcomes.push(format!("count {count} at {at}: error {e}"));
            }
            Ok(model) => {
                // Whatever was read builds a world that stays finite.
                let n = model.skeleton.bones.len();
                assert_eq!(n, poses[0].len());
                run_finite(&model, &poses);
                outcomes.push(format!(
                    "count {count} at {at}: loaded {} bodies, {} joints",
                    model.rigid_bodies.len(),
                    model.joints.len()
                ));
            }
        }
    }
    // Cut inside the bodies and inside the joints.
    for cut in [bodies_at + 4 + 83 * 10 + 17, joints_at + 4 + 124 * 3 + 5] {
        if let Ok(model) = Model::read(&bytes[..cut]) {
            run_finite(&model, &poses);
        }
    }
    eprintln!("{}", outcomes.join("\n"));
}

#[path = "../benches/support/stretch.rs"]
mod stretch;

/// Issue 21 item 7 on a real model through a fast dance: Mei wearing
/// GimmeGimme (6553 frames; slow unoptimised, hence ignored: run with
/// `--ignored`, or `examples/physics_stretch` in release). Measured: 100 %
/// of bone-frames of her 20 watched bones within 10 %, no reset.
#[test]
#[ignore]
fn mei_dancing_gimme_gimme_keeps_her_physics_bones_within_ten_percent() {
    let Some(dir) = corpus() else { return };
    let model = Model::open(&dir.join("mei/mei.pmd")).expect("mei");
    let bytes = std::fs::read(dir.join("webmmd__GimmeGimme_with_emotion.vmd")).expect("motion");
    let motion = vmd_studio::vmd::IndexedMotion::new(vmd_studio::vmd::read(&bytes).expect("reads"));
    let last = motion.motion.last_frame().unwrap_or(0);
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let mut world = PhysicsWorld::new(&model);
    let poses = (0..=last).map(|f| {
        engine.pose_bones(&model, Some(motion.as_ref()), f64::from(f), |_| {});
        engine.posed.bone_world.clone()
    });
    let s = stretch::measure(&model, &mut world, poses);
    eprintln!("{s:?}");
    assert!(s.bones >= 10, "{s:?}");
    assert!(s.share >= 0.99, "{s:?}");
    assert_eq!(s.resets, 0);
}

/// The same measure on Mei's wait motion, in the normal run: at least 99 %
/// of bone-frames within 10 % (measured: 100 %).
#[test]
fn mei_waiting_keeps_her_physics_bones_within_ten_percent() {
    let Some(dir) = corpus() else { return };
    let model = Model::open(&dir.join("mei/mei.pmd")).expect("mei");
    let bytes = std::fs::read(dir.join("mmdagent__mei_wait.vmd")).expect("motion");
    let motion = vmd_studio::vmd::IndexedMotion::new(vmd_studio::vmd::read(&bytes).expect("reads"));
    let last = motion.motion.last_frame().unwrap_or(0);
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let mut world = PhysicsWorld::new(&model);
    let poses = (0..=last).map(|f| {
        engine.pose_bones(&model, Some(motion.as_ref()), f64::from(f), |_| {});
        engine.posed.bone_world.clone()
    });
    let s = stretch::measure(&model, &mut world, poses);
    eprintln!("{s:?}");
    assert!(s.bones >= 10 && s.frames > 100, "{s:?}");
    assert!(s.share >= 0.99, "{s:?}");
}

#[path = "../benches/support/physics_model.rs"]
mod physics_model;

/// Issue 21 item 7 on the generated 180-body / 230-joint model (16 hair
/// chains, a skirt ring) swaying calmly, its first 40 frames (where the
/// sway starts; about 30 s unoptimised): at least 99 % of the
/// locked-translation bone-frames within 10 % (measured in release over 600
/// frames: 99.98 %; with the former soft locks 78.4 %).
#[test]
fn generated_model_keeps_its_chains_within_ten_percent_on_a_calm_sway() {
    let model = physics_model::generated_model();
    let frames = physics_model::sway_frames(&model, 40);
    let mut world = PhysicsWorld::new(&model);
    let s = stretch::measure(&model, &mut world, frames.into_iter());
    eprintln!("{s:?}");
    assert!(s.bones >= 150 && s.frames == 40, "{s:?}");
    assert!(s.share >= 0.99, "{s:?}");
    assert_eq!(s.resets, 0);
}

/// Issue 21 item 7 on the generated model's fast dance (spins ±1.5 rad at
/// 1.5 Hz, jumps 3 units at 2 Hz, sways 4 units at 1 Hz), with 4 hair
/// chains and 4 skirt columns instead of 16 to stay short unoptimised, over
/// 300 frames.
///
/// Every translation-locked joint's two anchors (computed here from the
/// model's joint and body positions and the bodies' poses) stay within the
/// projection tolerance after every frame; rapier's solver alone lets them
/// drift apart by units (measured: worst gap 0.0399 with projection, 1.89
/// without).
///
/// The measure: every watched bone keeps its length to its parent
/// within 10 % on at least 99 % of bone-frames. The generated model rigs
/// its chains as real models do (joint at the child bone's head), so a
/// rotation the joint allows keeps that length and only a joint coming
/// apart breaks it.
#[test]
fn generated_model_keeps_its_locked_anchors_on_a_fast_dance() {
    let model = physics_model::generated_model_with(4);
    let frames = physics_model::fast_frames(&model, 300);
    let mut world = PhysicsWorld::new(&model);
    // (body A, anchor in A's frame, body B, anchor in B's frame) of every
    // joint locking translation at 0 (the generated bodies turn about Y
    // only).
    let local = |body: usize, at: Vec3| {
        let b = &model.rigid_bodies[body];
        Quat::from_rotation_y(b.rotation.y).inverse() * (at - b.position)
    };
    let locked: Vec<(usize, Vec3, usize, Vec3)> = model
        .joints
        .iter()
        .filter(|j| j.translation_limits == (Vec3::ZERO, Vec3::ZERO))
        .filter_map(|j| {
            let [Some(a), Some(b)] = j.rigid_bodies else {
                return None;
            };
            Some((a, local(a, j.position), b, local(b, j.position)))
        })
        .collect();
    assert_eq!(locked.len(), 4 * 6 + 4 * 5);
    let watched = stretch::watched_bones(&model, &world);
    assert_eq!(watched.len(), 4 * 6 + 4 * 5);
    let (mut worst, mut within, mut projected) = (0.0_f32, 0usize, 0u32);
    for (f, bones) in frames.iter().enumerate() {
        if f == 0 {
            world.reset(bones);
        }
        let report = world.step(bones, 1.0 / 30.0);
        assert!(report.reset.is_none(), "frame {f}: {report:?}");
        projected += report.projected;
        for &(a, pa, b, pb) in &locked {
            let (qa, ta) = world.body_pose(a).unwrap();
            let (qb, tb) = world.body_pose(b).unwrap();
            worst = worst.max((ta + qa * pa).distance(tb + qb * pb));
        }
        let mut after = bones.clone();
        world.write_back(&mut after);
        for &(b, p, rest) in &watched {
            let now = after[b]
                .w_axis
                .truncate()
                .distance(after[p].w_axis.truncate());
            within += usize::from((now - rest).abs() <= 0.1 * rest);
        }
    }
    let share = within as f64 / (watched.len() * frames.len()) as f64;
    eprintln!(
        "fast dance: worst anchor gap {worst:.4}, {:.2} % of bone-frames within 10 %, {projected} projections",
        share * 100.0
    );
    assert!(
        worst <= PROJECTION_TOLERANCE + 1.0e-4,
        "worst anchor gap {worst}"
    );
    assert!(share >= 0.99, "share {share}");
}
