//! The world's joints: rapier's impulse joints built from each
//! [`JointSetup`], and the springs and translation locks (joint projection)
//! the world applies itself around rapier's solver.

use glam::{Quat, Vec3};
use rapier3d::prelude::{
    GenericJoint, GenericJointBuilder, JointAxesMask, JointAxis, RigidBodyHandle,
    SpringCoefficients,
};

use super::pose::{split, to_pose};
use super::setup::{AxisLimit, JointSetup, WorldSetup};
use super::{ANGULAR_PROJECTION_TOLERANCE, JOINT_FREQUENCY};

const AXES: [JointAxis; 6] = [
    JointAxis::LinX,
    JointAxis::LinY,
    JointAxis::LinZ,
    JointAxis::AngX,
    JointAxis::AngY,
    JointAxis::AngZ,
];

/// A joint's springs towards its bind pose, as Bullet's 6DOF spring
/// applies them (a motor whose impulse is capped at `k · x · h`, which with
/// the default damping of 1 is that impulse): each step both bodies get
/// `h · k · x` along each sprung axis of body A's joint frame, opposite ways.
#[derive(Debug, Clone)]
pub(super) struct Spring {
    /// World body indices (A, B).
    pub(super) bodies: [usize; 2],
    /// The joint frame in each body's frame.
    pub(super) frames: [(Quat, Vec3); 2],
    /// Stiffness per axis of the joint frame; 0 on axes without a spring.
    pub(super) linear: Vec3,
    pub(super) angular: Vec3,
}

/// A joint whose three translation axes are locked: after each step its
/// child body is moved back onto its anchor when the solver left the two
/// anchors more than [`PROJECTION_TOLERANCE`](super::PROJECTION_TOLERANCE)
/// apart (joint projection, as PhysX's `PxConstraintFlag::ePROJECTION`).
#[derive(Debug, Clone)]
pub(super) struct Lock {
    /// World body indices (A, B).
    pub(super) bodies: [usize; 2],
    /// The joint frame in each body's frame.
    pub(super) frames: [(Quat, Vec3); 2],
    /// Where B's anchor is held in A's joint frame (the locked values).
    pub(super) offset: Vec3,
    /// Per angular axis of A's joint frame: the allowed range, `None` when
    /// free.
    pub(super) angular: [Option<AngleBounds>; 3],
}

/// One angular limit of a [`Lock`], as bounds on `v_i / w` of the relative
/// rotation quaternion (`w ≥ 0`): rapier's solver measures the angle about
/// axis `i` as `2·atan2(v_i, w)`, which grows with `v_i / w`, so an angle
/// bound `a` is the ratio bound `tan(a / 2)` and the hot path needs no
/// trigonometry.
#[derive(Debug, Clone, Copy)]
pub(super) struct AngleBounds {
    /// `tan` of half the limits.
    lo: f32,
    hi: f32,
    /// `tan` of half the limits widened by [`ANGULAR_PROJECTION_TOLERANCE`].
    lo_out: f32,
    hi_out: f32,
}

impl AngleBounds {
    fn new(lo: f32, hi: f32) -> AngleBounds {
        // Angles at or past ±π have no ratio bound: f32::MAX, not infinity,
        // so that `w · bound` stays finite at w = 0.
        let ratio = |a: f32| {
            let a = a.clamp(-std::f32::consts::PI, std::f32::consts::PI);
            let r = (a * 0.5).tan();
            if r.is_finite() && r.abs() < 1.0e6 {
                r
            } else {
                f32::MAX.copysign(a)
            }
        };
        let tol = ANGULAR_PROJECTION_TOLERANCE;
        AngleBounds {
            lo: ratio(lo),
            hi: ratio(hi),
            lo_out: ratio(lo - tol),
            hi_out: ratio(hi + tol),
        }
    }
}

/// `rel` (B's joint frame in A's) brought within `limits` when it is
/// outside them by more than [`ANGULAR_PROJECTION_TOLERANCE`] on some axis;
/// `None` when it is within. Angles are measured as rapier's joint solver
/// measures them (see [`AngleBounds`]); the limited axes are clamped to
/// their bounds, the free ones keep their measure.
pub(super) fn clamp_rotation(rel: Quat, limits: &[Option<AngleBounds>; 3]) -> Option<Quat> {
    let rel = if rel.w < 0.0 { -rel } else { rel };
    let w = rel.w;
    let mut v = rel.xyz();
    let mut out = false;
    for (i, limit) in limits.iter().enumerate() {
        let Some(b) = limit else { continue };
        if v[i] < w * b.lo_out || v[i] > w * b.hi_out {
            out = true;
        }
    }
    if !out {
        return None;
    }
    for (i, limit) in limits.iter().enumerate() {
        if let Some(b) = limit {
            v[i] = v[i].clamp(w * b.lo, w * b.hi);
        }
    }
    let q = Quat::from_xyzw(v.x, v.y, v.z, w);
    let len = q.length();
    (len > 1.0e-6 && len.is_finite()).then(|| q / len)
}

/// Inserts each joint of `setup` between its bodies' `handles`; returns the
/// springs and the translation locks the world applies itself.
pub(super) fn insert_joints(
    world: &mut rapier3d::prelude::PhysicsWorld,
    setup: &WorldSetup,
    handles: &[RigidBodyHandle],
) -> (Vec<Spring>, Vec<Lock>) {
    let softness = SpringCoefficients::new(JOINT_FREQUENCY, 1.0);
    let mut springs = Vec::new();
    let mut locks = Vec::new();
    for j in &setup.joints {
        let [a, b] = j.bodies;
        world.insert_impulse_joint(handles[a], handles[b], impulse_joint(setup, j, softness));
        if let Some(lock) = lock(setup, j) {
            locks.push(lock);
        }
        if let Some(spring) = spring(setup, j) {
            springs.push(spring);
        }
    }
    (springs, locks)
}

/// The rapier joint of `j`: its locked axes, limits and frames in its two
/// bodies.
fn impulse_joint(
    setup: &WorldSetup,
    j: &JointSetup,
    softness: SpringCoefficients<f32>,
) -> GenericJoint {
    let [a, b] = j.bodies;
    let frame_in = |body: usize| {
        let (q, t) = split(&(setup.bodies[body].bind.inverse() * j.frame));
        to_pose(q, t)
    };
    let mut locked = JointAxesMask::empty();
    for (k, limit) in j.limits.iter().enumerate() {
        if *limit == AxisLimit::Locked(0.0) {
            locked |= AXES[k].into();
        }
    }
    let mut builder = GenericJointBuilder::new(locked)
        .local_frame1(frame_in(a))
        .local_frame2(frame_in(b))
        .softness(softness)
        .contacts_enabled(true);
    for (k, limit) in j.limits.iter().enumerate() {
        let axis = AXES[k];
        match *limit {
            AxisLimit::Locked(0.0) => continue,
            AxisLimit::Locked(v) => builder = builder.limits(axis, [v, v]),
            AxisLimit::Range(lo, hi) => builder = builder.limits(axis, [lo, hi]),
            AxisLimit::Free => {}
        }
    }
    builder.build()
}

/// The projection lock of `j` when its three translation axes are locked.
fn lock(setup: &WorldSetup, j: &JointSetup) -> Option<Lock> {
    let [a, b] = j.bodies;
    let [
        AxisLimit::Locked(x),
        AxisLimit::Locked(y),
        AxisLimit::Locked(z),
        ..,
    ] = j.limits
    else {
        return None;
    };
    let local = |body: usize| split(&(setup.bodies[body].bind.inverse() * j.frame));
    let angular = [3, 4, 5].map(|k| match j.limits[k] {
        AxisLimit::Locked(v) => Some(AngleBounds::new(v, v)),
        AxisLimit::Range(lo, hi) if hi - lo < std::f32::consts::TAU => {
            Some(AngleBounds::new(lo, hi))
        }
        _ => None,
    });
    Some(Lock {
        bodies: [a, b],
        frames: [local(a), local(b)],
        offset: Vec3::new(x, y, z),
        angular,
    })
}

/// The springs of `j` on its axes that are not locked at 0, when it has any.
fn spring(setup: &WorldSetup, j: &JointSetup) -> Option<Spring> {
    let [a, b] = j.bodies;
    let mut stiffness = [0.0; 6];
    for (k, limit) in j.limits.iter().enumerate() {
        if *limit != AxisLimit::Locked(0.0) && j.springs[k] > 0.0 {
            stiffness[k] = j.springs[k];
        }
    }
    if !stiffness.iter().any(|&k| k > 0.0) {
        return None;
    }
    let local = |body: usize| split(&(setup.bodies[body].bind.inverse() * j.frame));
    Some(Spring {
        bodies: [a, b],
        frames: [local(a), local(b)],
        linear: Vec3::new(stiffness[0], stiffness[1], stiffness[2]),
        angular: Vec3::new(stiffness[3], stiffness[4], stiffness[5]),
    })
}
