//! The world's joints: rapier's impulse joints built from each
//! [`JointSetup`], and the springs and translation locks (joint projection)
//! the world applies itself around rapier's solver.

use glam::{EulerRot, Quat, Vec3};
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
/// `h · k · x` along each sprung axis, opposite ways. Translation: `x` along
/// A's joint frame axes. Rotation (`btGeneric6DofSpringConstraint::
/// internalUpdateSprings`): `x` is the Euler angle of [`bullet_angles`],
/// applied along the axis Bullet drives that angle with
/// ([`bullet_axes`]), and an axis whose angle is past its limit has no
/// spring that step (Bullet's motor row gives way to the limit row,
/// `btGeneric6DofConstraint::get_limit_motor_info2`).
#[derive(Debug, Clone)]
pub(super) struct Spring {
    /// World body indices (A, B).
    pub(super) bodies: [usize; 2],
    /// The joint frame in each body's frame.
    pub(super) frames: [(Quat, Vec3); 2],
    /// Stiffness per axis of the joint frame; 0 on axes without a spring.
    pub(super) linear: Vec3,
    pub(super) angular: Vec3,
    /// Per angular axis: its (lower, upper) limits, `None` when free.
    pub(super) angular_limits: [Option<(f32, f32)>; 3],
}

impl Spring {
    /// The angular spring's impulse on body B for one step of `h`
    /// seconds (A gets the opposite), world frame; `wa`, `wb`: the joint
    /// frame's world rotation as each body carries it; `spin`: B's angular
    /// velocity less A's; `inv_inertia(n)`: the two bodies' inverse
    /// inertia about the world axis `n`, summed (0 for a kinematic body).
    ///
    /// Each axis gets `k·h·(x − h·v) / (1 + k·h²/I)` (`v` the spin closing
    /// `x`, `I` the inertia about the axis): the spring integrated
    /// implicitly, as Bullet's motor row is a velocity constraint the
    /// solver meets, not a kick. For ordinary bodies `k·h²/I` is tiny and
    /// this is the impulse `k·x·h`; about a hair capsule's long axis (the
    /// sample model's hair, with two sprung joints per link) the kick
    /// overshot every step and the links flipped ±14° about their axes
    /// from frame to frame, never settling.
    pub(super) fn angular_impulse(
        &self,
        wa: Quat,
        wb: Quat,
        spin: Vec3,
        inv_inertia: impl Fn(Vec3) -> f32,
        h: f32,
    ) -> Vec3 {
        let e = bullet_angles(wa.conjugate() * wb);
        let axes = bullet_axes(wa, wb);
        let mut impulse = Vec3::ZERO;
        for i in 0..3 {
            let k = self.angular[i];
            let at_limit = self.angular_limits[i].is_some_and(|(lo, hi)| e[i] < lo || e[i] > hi);
            if k > 0.0 && !at_limit {
                // `e` is A's turn in B's frame: B is pushed along it, and
                // B's spin along the axis closes it.
                let n = axes[i];
                let closing = spin.dot(n);
                let soft = 1.0 + k * h * h * inv_inertia(n).max(0.0);
                impulse += n * (k * h * (e[i] - h * closing) / soft);
            }
        }
        impulse
    }
}

/// The world axes along which Bullet's 6DOF constraint drives each Euler
/// angle of [`bullet_angles`] (`btGeneric6DofConstraint::
/// calculateAngleInfo`): with `a` A's joint frame and `b` B's, `y = a.z ×
/// b.x`, `x = y × a.z`, `z = b.x × y`, normalised (the directions of its
/// limit and motor rows; not exactly those that change one angle alone,
/// as Bullet's own comment there says).
pub(super) fn bullet_axes(wa: Quat, wb: Quat) -> [Vec3; 3] {
    let bx = wb * Vec3::X;
    let az = wa * Vec3::Z;
    let y = az.cross(bx);
    let x = y.cross(az);
    let z = bx.cross(y);
    [x, y, z].map(Vec3::normalize_or_zero)
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

/// The joint's rotation as Bullet's 6DOF constraint measures it
/// (`btGeneric6DofConstraint::calculateAngleInfo`), radians, from `rel`,
/// B's joint frame in A's. Bullet takes the Euler angles X, Y, Z (`R =
/// Rx·Ry·Rz`, `matrixToEulerXYZ`) of `A⁻¹·B`, but `matrixToEulerXYZ`
/// reads the matrix through `btGetMatrixElem`, which indexes it column
/// first (`mat[index % 3][index / 3]`): it decomposes the transpose, so the
/// angles are those of A's joint frame in B's (`rel⁻¹`). For a turn about
/// one axis this is minus the angle B turned, so a file's limits
/// `[lo, hi]` hold B's turn within `[−hi, −lo]`.
pub(super) fn bullet_angles(rel: Quat) -> Vec3 {
    let (x, y, z) = rel.conjugate().to_euler(EulerRot::XYZ);
    Vec3::new(x, y, z)
}

/// The joints the world keeps beside rapier's: springs and translation
/// locks (projection).
#[derive(Debug, Clone, Default)]
pub(super) struct WorldJoints {
    pub(super) springs: Vec<Spring>,
    pub(super) locks: Vec<Lock>,
}

/// Inserts each joint of `setup` between its bodies' `handles`; returns the
/// springs and the translation locks the world applies itself.
pub(super) fn insert_joints(
    world: &mut rapier3d::prelude::PhysicsWorld,
    setup: &WorldSetup,
    handles: &[RigidBodyHandle],
) -> WorldJoints {
    let softness = SpringCoefficients::new(JOINT_FREQUENCY, 1.0);
    let mut out = WorldJoints::default();
    for j in &setup.joints {
        let [a, b] = j.bodies;
        world.insert_impulse_joint(handles[a], handles[b], impulse_joint(setup, j, softness));
        if let Some(lock) = lock(setup, j) {
            out.locks.push(lock);
        }
        if let Some(spring) = spring(setup, j) {
            out.springs.push(spring);
        }
    }
    out
}

/// Axis `k`'s limit (0–2 translation, 3–5 rotation) as rapier's joint
/// takes it: translations as the file gives them; rotations in B's sense,
/// the file's `[lo, hi]` becoming `[−hi, −lo]`, because Bullet bounds the
/// angles of A's frame in B's ([`bullet_angles`]: for a turn about one
/// axis, minus B's turn), while rapier measures B's turn in A's frame.
fn rapier_limit(k: usize, limit: AxisLimit) -> AxisLimit {
    match limit {
        AxisLimit::Locked(v) if k >= 3 => AxisLimit::Locked(-v),
        AxisLimit::Range(lo, hi) if k >= 3 => AxisLimit::Range(-hi, -lo),
        other => other,
    }
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
        match rapier_limit(k, *limit) {
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
    let angular = [3, 4, 5].map(|k| match rapier_limit(k, j.limits[k]) {
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
    let angular_limits = [3, 4, 5].map(|k| match j.limits[k] {
        AxisLimit::Free => None,
        AxisLimit::Locked(v) => Some((v, v)),
        AxisLimit::Range(lo, hi) => Some((lo, hi)),
    });
    Some(Spring {
        bodies: [a, b],
        frames: [local(a), local(b)],
        linear: Vec3::new(stiffness[0], stiffness[1], stiffness[2]),
        angular: Vec3::new(stiffness[3], stiffness[4], stiffness[5]),
        angular_limits,
    })
}

#[cfg(test)]
mod tests {
    use glam::{EulerRot, Mat3, Quat, Vec3};

    use super::bullet_angles;

    /// The rotation `rel` (B's joint frame in A's) whose [`bullet_angles`]
    /// are `angles`.
    fn from_bullet_angles(angles: Vec3) -> Quat {
        Quat::from_euler(EulerRot::XYZ, angles.x, angles.y, angles.z).conjugate()
    }

    /// Bullet's `matrixToEulerXYZ` as written in `btGeneric6DofConstraint.cpp`
    /// (the regular branch), with its `btGetMatrixElem(mat, index) =
    /// mat[index % 3][index / 3]` (row `index % 3`, column `index / 3`),
    /// applied to `A⁻¹·B` as `calculateAngleInfo` does.
    fn bullet_reference(a: Quat, b: Quat) -> Vec3 {
        let m = Mat3::from_quat(a.conjugate() * b);
        // glam's Mat3 is column-major: `col(c)[r]` is row r, column c.
        let elem = |index: usize| m.col(index / 3)[index % 3];
        Vec3::new(
            (-elem(5)).atan2(elem(8)),
            elem(2).clamp(-1.0, 1.0).asin(),
            (-elem(1)).atan2(elem(0)),
        )
    }

    #[test]
    fn bullet_angles_are_bullets_matrix_to_euler_xyz() {
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 1.6 - 0.8
        };
        for _ in 0..200 {
            let a = Quat::from_euler(EulerRot::YXZ, next(), next(), next());
            let b = a * Quat::from_euler(EulerRot::XYZ, next(), next(), next());
            let ours = bullet_angles(a.conjugate() * b);
            let bullet = bullet_reference(a, b);
            assert!(
                (ours - bullet).abs().max_element() < 1.0e-4,
                "{ours} {bullet}"
            );
            let back = from_bullet_angles(ours);
            assert!(back.dot(a.conjugate() * b).abs() > 1.0 - 1.0e-5);
        }
        // B turned +0.3 rad about X: Bullet reads −0.3.
        let turned = bullet_angles(Quat::from_rotation_x(0.3));
        assert!(
            (turned - Vec3::new(-0.3, 0.0, 0.0)).length() < 1.0e-5,
            "{turned}"
        );
    }
}
