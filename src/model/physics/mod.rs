//! The rigid-body world of one model (MMD physics), on the `rapier3d`
//! engine. Pure: no GUI or GPU type; bones come in and go out as model-space
//! world matrices (`bone_world` of [`crate::model::posing::Posed`]).
//!
//! **Frame order** (MMD's, after saba and babylon-mmd; see
//! `shared/spec/physics.md`): the caller poses the bones that deform before
//! physics, then calls [`PhysicsWorld::step`] with those matrices (kinematic
//! bodies move to their bones, the world advances in fixed 1/120 s steps),
//! then [`PhysicsWorld::write_back`] (each dynamic body's transform becomes
//! its bone's world matrix; bones below it without a body of their own
//! follow), then poses the after-physics bones. [`PhysicsWorld::reset`]
//! snaps every body to its bone with zero velocity and settles the world (on
//! load, on a seek).
//!
//! **Units**: model units (about 8 cm), seconds; gravity
//! (0, −98, 0) units/s² as babylon-mmd, saba and mmd-anim use.
//!
//! **What MMD's Bullet 2.75 does that this does not do exactly** (the
//! engine is rapier, see the module `world` notes):
//! * Bullet's 6DOF limits are Euler angles (X, Y, Z with `R = Rx·Ry·Rz`) of
//!   A's joint frame in B's (its `matrixToEulerXYZ` reads `A⁻¹·B` column
//!   first, so it decomposes the transpose: `joints::bullet_angles`), with
//!   a stop ERP (0.475 in babylon-mmd) and a stop CFM of 0: the velocity
//!   constraint is hard, only the position error is corrected in part each
//!   step. rapier limits each axis of B's turn in A's frame (`2·atan2(v_i,
//!   w)` of the quaternion), so a file's `[lo, hi]` is given to rapier as
//!   `[−hi, −lo]`: for a turn about one axis the two agree. Until
//!   2026-12-05 the limits went in as they stand, mirroring every
//!   asymmetric limit. Measured against Bullet's goldens
//!   (`tests/physics_bullet.rs`, median / p90 / max degrees), with the
//!   springs below: twin tails 0.86 / 9.30 / 21.04 before, 1.22 / 3.30 /
//!   9.54 after; the sample model 0.15 / 4.49 / 8.34 before, 0.20 / 1.63 /
//!   5.77 after; the sleeve 1.22 / 2.30 / 2.30 before, 1.74 / 2.50 / 2.50
//!   after; Mei 0.00 / 0.00 / 0.02 both. The two measures still part when
//!   two axes turn at once (a twin tail's first joint on three limits sat
//!   7.8° off Bullet's Y limit). Shifting rapier's limits each step by the
//!   difference of the two measures was tried (twin tails 0.86 / 2.53 /
//!   9.50, sample 0.15 / 2.92 / 3.81) and dropped: rapier's limit rows then
//!   push along A's axes, not across Bullet's surface, and the sleeve never
//!   came to rest (still swinging ±12° after 10 s; it settles without).
//!   rapier's joint softness makes the velocity constraint itself soft; at the 34.6 Hz
//!   once used here (the ERP-matching value) chains stretched past 10 % on
//!   21 % of the generated model's bone-frames even on a calm motion, so
//!   joints use rapier's rigid default ([`JOINT_FREQUENCY`]), the closer
//!   match to Bullet's CFM 0. MMD's "soft" feel comes from Bullet's
//!   iterative solver and springs, not from soft locks.
//! * Bullet 2.75's constraint-frame behaviour (`m_useOffsetForConstraintFrame
//!   = false`) has no rapier equivalent; rapier's joint frames are those of
//!   the two bodies, as the file gives them.
//! * Bullet's damping `v ·= (1 − d)^dt` is mapped to rapier's `v ·= 1 / (1 +
//!   c·dt)` with `c = −ln(1 − d)` (equal to first order in `dt`); Bullet's
//!   "additional damping" is not reproduced.
//! * Joint springs are applied as Bullet 2.75's 6DOF spring does with its
//!   default damping of 1: an impulse `h·k·x` per step along each sprung
//!   axis, towards the bind pose, rather than as rapier's implicit motors
//!   (stiffer than Bullet's spring; same stretch measures, same cost). For
//!   the angular axes `x` is Bullet's Euler angle, pushed along the axis
//!   Bullet drives that angle with, and an axis past its limit has no
//!   spring (Bullet's limit row replaces the motor row); until 2026-12-05
//!   it was the rotation vector in A's frame, always on. With the limits
//!   in Bullet's sense, the rotation-vector spring measured: sample model
//!   0.15 / 4.21 / 7.94, twin tails 0.81 / 2.87 / 9.40, sleeve 3.22 / 4.70
//!   / 4.70 (each with per-step limit shifts; see above). The angular
//!   impulse is integrated implicitly, `k·h·(x − h·v) / (1 + k·h²/I)` (`v`
//!   the spin closing `x`, `I` the two bodies' inertia about the axis): the
//!   same `h·k·x` for ordinary bodies, but stable about a capsule's long
//!   axis, where the explicit kick overshot every step (the sample model's
//!   hair, two sprung joints per link, flipped ±14° about its axes from
//!   frame to frame at rest and never settled; found by the twist
//!   comparison of `tests/physics_bullet.rs`, 2026-12-05). Measured
//!   (direction median / p90 / max against Bullet at rest; twist median /
//!   p90; debug build): sample model 0.19 / 1.71 / 3.24 → 0.17 / 1.19 /
//!   1.73, twist 5.44 / 12.81 → 0.61 / 1.56; twin tails 0.97 / 2.32 / 8.83
//!   → 1.14 / 2.02 / 8.95, twist 15.48 / 19.24 → 7.09 / 16.62; sleeve 1.39
//!   / 2.22 / 2.22 → 1.25 / 2.53 / 2.53, twist 16.67 / 18.48 → 18.77 /
//!   19.20; Mei
//!   unchanged; in motion (`tests/physics_bullet_motion.rs`) the sample
//!   model on GimmeGimme direction 1.44 / 8.93 → 1.13 / 6.96, twist 5.49 /
//!   16.51 → 1.47 / 11.10. Cost within noise (`examples/physics_prof`,
//!   release, medians of 3 interleaved runs): generated model 1.61 → 1.57
//!   ms per frame, Mei 0.144 → 0.144.
//! * Bodies joined by a joint may collide (saba, babylon-mmd), when their
//!   groups and masks let them.
//! * **Joint projection** (not in Bullet; PhysX's `ePROJECTION`): Bullet's
//!   solver keeps MMD's chains together with iterations and soft stops;
//!   rapier's (2 iterations, 1/120 s) lets fast motion pull a chain of
//!   translation-locked joints apart (the generated model's fast dance:
//!   54.5 % of bone-frames within 10 %, stretches to 413 %; heavy tips
//!   drift by units). After each step, the translation-locked joints are
//!   walked along a spanning tree from the kinematic bodies, parents first;
//!   a child whose anchor is off its parent's by more than
//!   [`PROJECTION_TOLERANCE`] is moved back onto it, and one whose
//!   rotation is past an angular limit by more than
//!   [`ANGULAR_PROJECTION_TOLERANCE`] is turned back to the limit about the
//!   anchor. Velocities stay the solver's; joints closing a loop (a skirt's
//!   ring) are left to the solver. Measured (release, `examples/
//!   physics_stretch`, share within 10 % / largest stretch / bodies moved
//!   per step), with the generated model rigged as real models are (each
//!   joint at its child bone's head; until 2026-12-02 its joints sat
//!   halfway between bones, so allowed bends alone shortened skirt bones by
//!   up to 23 % and the measure stalled at 85.4 %): generated fast, solver
//!   alone 64.1 % / 319 %, with projection **100 % / 5.0 % / 144 of 176**;
//!   calm sway 100 % / 4.5 % alone, 100 % / 4.6 % / 4.8 with it; Mei with
//!   `mei_wait` 100 % / 0.0 % / 0, with GimmeGimme (6,553 frames) 100 % /
//!   0.0 % / 0.04 (her solver alone keeps her chains).
//!
//! **Rules chosen here**: a bone is driven by the first dynamic body (file
//! order) naming it; a later dynamic body on the same bone simulates without
//! writing it. A mode-2 body whose bone's parent is driven by a dynamic body
//! behaves as mode 1 (babylon-mmd). A body without a bone stays at its bind
//! pose when kinematic and drives nothing when dynamic. Kinematic bodies
//! move smoothly (interpolated) between the poses of two calls across the
//! substeps.

mod actors;
mod bake;
mod bodies;
mod clock;
mod joints;
mod motion;
mod pose;
mod scene;
mod setup;
mod world;

pub use bake::{BakeError, BakeReport, LeftOut, LeftOutReason, bake_physics, bake_physics_from};
pub use clock::{PhysicsAction, PhysicsClock, SimulationMode, Transport};
pub use motion::physics_off_at;
pub use scene::{SceneActor, ScenePhysics};
pub use setup::{
    AxisLimit, BodyMode, BodySetup, BodyShape, JointSetup, WorldSetup, euler_yxz, world_setup,
};
pub use world::PhysicsWorld;

/// Fixed simulation step, seconds (saba, mmd-anim; babylon-mmd recommends it).
pub const STEP: f32 = 1.0 / 120.0;
/// Gravity, model units per s² (babylon-mmd, saba, mmd-anim, three.js).
pub const GRAVITY: f32 = -98.0;
/// At most this many steps per call; time beyond it is dropped (a long
/// stall or a jump must not freeze the caller).
pub const MAX_STEPS_PER_CALL: u32 = 30;
/// Steps run after a reset so hair and skirts hang before the first picture
/// (half a second).
pub const SETTLE_STEPS: u32 = 60;
/// A dynamic body farther than this from where its bone puts it (model
/// units, about 3.2 m) means the world blew up: it is reset.
pub const BLOWUP_DISTANCE: f32 = 40.0;
/// Natural frequency (Hz) of the joints' constraints, critically damped:
/// rapier's default for joints, rigid in effect (Bullet's stop CFM is 0).
/// Measured on the generated 180-body model: 34.6 Hz (the value matching
/// Bullet's stop ERP 0.475 as a soft constraint) kept 78.4 % of bone-frames
/// within 10 % on a calm motion, this keeps 99.97 %.
pub const JOINT_FREQUENCY: f32 = 1.0e6;

/// Joint projection's tolerance, model units (0.04 ≈ 3 mm): after each
/// step, a dynamic body whose translation-locked joint's two anchors the
/// solver left further apart than this is moved back onto its anchor.
/// Small against the links it guards (hair and skirt links are 0.5–2
/// units, so the 10 % stretch budget is 0.05–0.2 units), large enough that
/// the few-hundredths-of-a-unit drift the solver leaves on calm motion is
/// not touched (teleporting bodies on every step makes them jitter).
pub const PROJECTION_TOLERANCE: f32 = 0.04;
/// Joint projection's angular tolerance, radians (about 3°): a
/// translation-locked joint whose relative rotation is past one of its
/// angular limits by more than this has its child turned back to the limit
/// about the anchor. Measured on the generated model's fast dance (share of
/// bone-frames within 10 %, largest stretch): translation alone 79.0 %,
/// 98.8 %; with the angular part at 0.2 rad 86.1 %, 31.2 %; 0.05 rad 85.5 %,
/// 23.8 %; 0 rad 86.0 %, 21.4 % (every body moved every step). Also
/// removing the child's velocity against the correction measured the same
/// (85.6 %; calm sway 99.97 %), so positions only, as PhysX.
pub const ANGULAR_PROJECTION_TOLERANCE: f32 = 0.05;

/// What one [`PhysicsWorld::step`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepReport {
    /// Fixed steps taken.
    pub steps: u32,
    /// Set when the world blew up and was reset: names the body (numbered
    /// within its actor's model).
    pub reset: Option<String>,
    /// The body that blew up, in the world's numbering (all actors'
    /// bodies one after another: [`PhysicsWorld::actor_bodies`] says whose).
    pub reset_body: Option<usize>,
    /// Bodies moved by joint projection over these steps (see
    /// [`PROJECTION_TOLERANCE`]).
    pub projected: u32,
}
