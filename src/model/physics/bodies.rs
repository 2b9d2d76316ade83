//! The rapier world's settings and ground, and the world's bodies: each
//! [`BodySetup`] inserted as a rapier body with its collider.

use glam::{Mat4, Quat, Vec3};
use rapier3d::pipeline::ActiveHooks;
use rapier3d::prelude::{
    CoefficientCombineRule, ColliderBuilder, Group, InteractionGroups, InteractionTestMode,
    RigidBodyBuilder, RigidBodyHandle, Vector,
};

use super::actors::ActorSpan;
use super::pose::{split, to_pose};
use super::setup::{BodySetup, BodyShape, WorldSetup};
use super::{GRAVITY, STEP};

/// The ground's own collision group bit (above MMD's 16): every body's
/// filter includes it, so the ground collides with every body whose mask is
/// not empty.
const GROUND_BIT: u32 = 1 << 16;

/// The ground's actor tag (colliders carry their actor's index as user
/// data): the ground touches every actor.
pub(super) const GROUND_ACTOR: u128 = u128::MAX;

/// Damping in rapier's form `v ·= 1 / (1 + c·h)` for Bullet's per-second
/// factor `d` (`v ·= (1 − d)^h`): `c = −ln(1 − d)`.
fn damping(d: f32) -> f32 {
    -(1.0 - d.clamp(0.0, 0.999)).ln()
}

/// A rapier world with MMD's gravity, step and solver settings, holding
/// only the ground.
pub(super) fn rapier_world() -> rapier3d::prelude::PhysicsWorld {
    let mut world = rapier3d::prelude::PhysicsWorld::new();
    world.gravity = Vector::new(0.0, GRAVITY, 0.0);
    world.integration_parameters.dt = STEP;
    {
        let p = &mut world.integration_parameters;
        // Measured (examples/physics_prof, loaded 2-core machine):
        // the joint solver is ~45 % of a frame; 2 substeps instead of 4
        // cut the 180-body frame from 11.7 to 7.8 ms and Mei's from 0.90
        // to 0.44 ms with no change in the stretch measures (Mei over
        // GimmeGimme: 100 % of bone-frames within 10 %).
        //
        // With rigid joints (JOINT_FREQUENCY), measured on the generated
        // model's fast motion (share of bone-frames within 10 %, CPU
        // time per frame): 2 substeps 54.6 %, 1.0×; 3: 68.8 %; 4:
        // 78.7 %, 1.7×; 8: 82.9 %. More internal PGS or stabilization
        // iterations, a larger length unit (corrective velocity cap) or
        // no contacts between jointed bodies changed little; the calm
        // motion and Mei are at 99.9–100 % from 2 substeps on.
        //
        // With joint projection (PROJECTION_TOLERANCE), release, on the
        // generated model's earlier layout (joints halfway between bones),
        // examples/physics_prof (Mei world only, median of 5, load
        // 3.3–3.6) and physics_stretch: 2 iterations 0.196 ms, fast
        // 85.4 %, sway 99.98 % (projection moves 4 bodies a step);
        // 1 iteration 0.135 ms, fast 83.1 %, sway 99.999 % but
        // projection then moves 94 of 176 bodies a step on the calm
        // sway (the solver alone no longer holds the chains); no
        // stabilization iteration 0.190 ms, fast 85.1 %, sway 99.96 %.
        // Kept at 2 and 1: the fast dance must not lose ground.
        //
        // Issue 37, tried and left (release, pose_step medians, load
        // 1.1-1.5): the two 1/120 s steps of a 60 fps call merged into one
        // 1/60 s rapier step of 4 substeps (the same 1/240 s substep; one
        // broad and narrow phase, one spring and projection pass a call):
        // Mei 0.090 -> 0.081 ms, sample 0.157 -> 0.133, generated 0.608 ->
        // 0.511 (-10 to -16 %), but with the springs' h = 1/60 the sample
        // model's settled hair misses its Bullet golden (p90 4.72° > 2°),
        // and with two 1/120 s spring impulses in one the twin tails' twist
        // does (median 10.1°). callgrind of the sample model's call: 72 %
        // of it is rapier's step, 40 % the joints' constraints rebuilt at
        // every substep (`JointConstraint::update` 26 %, with its memset
        // and memcpy), 5 % their solve. BvhOptimizationStrategy::None for
        // the broad phase: -2.3 % instructions, not measurable in wall time.
        // rapier's `simd8` feature: +2-4 % instructions, no faster (the
        // joints run on its scalar path). Fat LTO with one codegen unit:
        // -5.7 % (sample) / -6.1 % (generated) instructions, not kept for
        // the longer release build.
        p.num_solver_iterations = 2;
        // No stabilization pass (rapier's default runs one per substep):
        // joint projection already takes the position error out of the
        // locked chains. Measured (issue 37, callgrind, pose_step, Ir of
        // the world step per 60 fps call): Mei 911k -> 839k, the sample
        // model 1.89M -> 1.75M, generated 7.75M -> 7.47M (-3.7 to -8 %);
        // stretch measures unchanged (fast dance 100 %, Mei GimmeGimme
        // 100 %); Bullet goldens (median / p90 / max degrees) sleeve 1.74 /
        // 2.50 / 2.50 -> 1.39 / 2.22 / 2.22, sample 0.20 / 1.63 / 5.77 ->
        // 0.19 / 1.71 / 3.24, twin tails 1.22 / 3.30 / 9.54 -> 0.97 /
        // 2.32 / 8.83. Tried and left (they miss the Bullet goldens of
        // tests/physics_bullet.rs): 1 substep (world step -30 %; twin tails
        // 2.14 / 5.25 / 7.22), 1 substep with 2 PGS iterations (-27 %;
        // twin tails p90 4.02, its joint angles off), 1 substep without
        // stabilization (-34 %; sample p90 3.74). rapier's `parallel`
        // feature: no faster on these worlds (Mei 0.147-0.224 ms vs
        // 0.131-0.140 ms a call, generated 0.88-1.12 vs 0.89-0.91 ms, load
        // 2.2-2.7), and sleeping bodies: no change (a dancing model's
        // bodies never rest). Contacts: no contact clustering, no change;
        // a tenth of the prediction distance (0.002), generated -4 % but
        // misses the goldens (twin tails median 1.69); no contacts between
        // bodies a joint links, generated -3.7 %, Mei -0.6 %, and the
        // goldens come closer (twin tails 0.86 / 1.33 / 2.04) because the
        // Bullet reference tool itself leaves those pairs out, but MMD's
        // runtimes (saba, babylon-mmd) let them collide: kept.
        p.num_internal_stabilization_iterations = 0;
        // Impulses carried over between steps: stiffer locked joints for
        // the same work (rapier's advice for joint assemblies).
        p.warmstart_joints = true;
        // No CCD: bodies are small and slow at 1/120 s steps; MMD's
        // Bullet has none either.
        p.max_ccd_substeps = 0;
    }

    // The ground: the top face of a large box at y = 0.
    world.insert(
        RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)),
        ColliderBuilder::cuboid(1.0e4, 1.0, 1.0e4)
            .collision_groups(InteractionGroups::new(
                Group::from_bits_retain(GROUND_BIT),
                Group::ALL,
                InteractionTestMode::And,
            ))
            .user_data(GROUND_ACTOR),
    );
    world
}

/// Per body, what the world keeps of its insertion (see [`insert_bodies`]).
pub(super) struct BuiltBodies {
    pub(super) handles: Vec<RigidBodyHandle>,
    pub(super) offset_inv: Vec<Mat4>,
    pub(super) kinematic: Vec<bool>,
    pub(super) last_target: Vec<(Quat, Vec3)>,
}

/// Inserts each body of `setup` with its collider at its bind pose, its
/// collider tagged with its actor in `spans`.
pub(super) fn insert_bodies(
    world: &mut rapier3d::prelude::PhysicsWorld,
    setup: &WorldSetup,
    spans: &[ActorSpan],
    hooks: ActiveHooks,
) -> BuiltBodies {
    let mut handles = Vec::with_capacity(setup.bodies.len());
    let mut offset_inv = Vec::with_capacity(setup.bodies.len());
    let mut kinematic = Vec::with_capacity(setup.bodies.len());
    let mut last_target = Vec::with_capacity(setup.bodies.len());
    for (i, b) in setup.bodies.iter().enumerate() {
        let actor = spans
            .iter()
            .position(|s| s.bodies.contains(&i))
            .unwrap_or(0);
        let (q, t) = split(&b.bind);
        let (h, _) = world.insert(rigid_body(b).pose(to_pose(q, t)), collider(b, actor, hooks));
        handles.push(h);
        let inv = b.offset.inverse();
        offset_inv.push(if inv.is_finite() { inv } else { Mat4::IDENTITY });
        kinematic.push(!b.mode.is_dynamic());
        last_target.push((q, t));
    }
    BuiltBodies {
        handles,
        offset_inv,
        kinematic,
        last_target,
    }
}

/// The rapier body of `b`: dynamic with its damping, or kinematic.
fn rigid_body(b: &BodySetup) -> RigidBodyBuilder {
    if b.mode.is_dynamic() {
        RigidBodyBuilder::dynamic()
            .linear_damping(damping(b.linear_damping))
            .angular_damping(damping(b.angular_damping))
            .can_sleep(false)
    } else {
        RigidBodyBuilder::kinematic_position_based()
    }
}

/// The collider of `b` (actor `actor`): its shape, mass, surface and
/// collision groups.
fn collider(b: &BodySetup, actor: usize, hooks: ActiveHooks) -> ColliderBuilder {
    let shape = match b.shape {
        BodyShape::Sphere { radius } => ColliderBuilder::ball(radius),
        BodyShape::Box { half_extents: h } => ColliderBuilder::cuboid(h.x, h.y, h.z),
        BodyShape::Capsule { radius, height } => ColliderBuilder::capsule_y(height * 0.5, radius),
    };
    shape
        .mass(b.mass)
        .friction(b.friction)
        .friction_combine_rule(CoefficientCombineRule::Multiply)
        .restitution(b.restitution)
        .restitution_combine_rule(CoefficientCombineRule::Multiply)
        .collision_groups(InteractionGroups::new(
            Group::from_bits_retain(1 << b.group),
            Group::from_bits_retain(u32::from(b.mask) | GROUND_BIT),
            InteractionTestMode::And,
        ))
        .user_data(actor as u128)
        .active_hooks(hooks)
}
