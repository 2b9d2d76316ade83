//! MMD's IK rule for one link (CCD), used by the pose rules
//! ([`super::posing`]).
//!
//! # MMD's CCD rule ([`LinkPlan`], [`step_axis`], [`limit_rotation`])
//! Written from `../shared/reference/README.md` and babylon-mmd's
//! `ikSolver.ts` (itself after saba's `MMDIkSolver.cpp`). For each loop,
//! for each link from the effector's end to the root:
//! - the two unit vectors from the link's head to the effector and to the
//!   IK bone give the step: the angle between them (computed as `atan2(|a×b|, a·b)`,
//!   which keeps small angles that `acos` loses in f32), capped at the chain's unit
//!   angle × (link index + 1), axis their cross product, expressed in the
//!   link's parent's frame; the link's gathered IK rotation becomes
//!   `turn · ik`;
//! - a link whose limits are all zero is skipped; during the first half of
//!   the loops a link limited about one axis only turns about that axis
//!   alone, its sign from which way the step axis points along the
//!   parent's axis;
//! - for a limited link, `ik · animated` is split into Euler angles (order
//!   YXZ when the X limits lie strictly inside ±90°, else ZYX when the Y
//!   limits do, else XZY; the middle angle held within ±88°), each clamped
//!   (reflected, `2·limit − angle`, in the first half when that stays in
//!   range) and rebuilt; `ik = rebuilt · animated⁻¹`.
//!
//! Angles are radians; rotations are glam quaternions on MMD's left-handed
//! coordinates taken as they are (the same numbers babylon-mmd uses).

use std::f32::consts::PI;

use glam::{Mat3, Quat, Vec3};

/// The Euler order a limited link's rotation is split in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EulerOrder {
    /// `R = Ry · Rx · Rz`, X in the middle.
    Yxz,
    /// `R = Rz · Ry · Rx`, Y in the middle.
    Zyx,
    /// `R = Rx · Rz · Ry`, Z in the middle.
    Xzy,
}

/// Which way a link may turn during the first half of the loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SolveAxis {
    /// Limits all zero: the link never turns.
    Fixed,
    /// Any axis.
    Free,
    /// About this parent-frame axis only (0 = X, 1 = Y, 2 = Z).
    Single(usize),
}

/// What MMD's rule needs to know about one IK link, computed once per model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LinkPlan {
    /// `(min, max)` per axis with `min ≤ max`, or `None` when unlimited.
    pub limits: Option<(Vec3, Vec3)>,
    pub order: EulerOrder,
    pub axis: SolveAxis,
    /// Per axis, whether its limits are both zero (a knee's Y and Z): its
    /// limited Euler angle then follows from the sign of the angle alone
    /// (see [`zero_locked_angle`]), with no trigonometry.
    pub zero_locked: [bool; 3],
}

/// The middle Euler angle is held within ±88°.
const MIDDLE_HOLD: f32 = 88.0 * PI / 180.0;

impl LinkPlan {
    /// The plan for a link with these limits (any order of min and max;
    /// non-finite limits count as unlimited on that axis: ±π).
    pub(crate) fn new(limits: Option<(Vec3, Vec3)>) -> LinkPlan {
        let Some((a, b)) = limits else {
            return LinkPlan {
                limits: None,
                order: EulerOrder::Xzy,
                axis: SolveAxis::Free,
                zero_locked: [false; 3],
            };
        };
        let fin = |v: Vec3, d: f32| {
            Vec3::new(
                if v.x.is_finite() { v.x } else { d },
                if v.y.is_finite() { v.y } else { d },
                if v.z.is_finite() { v.z } else { d },
            )
        };
        let (a, b) = (fin(a, -PI), fin(b, PI));
        let (min, max) = (a.min(b), a.max(b));
        let half = PI * 0.5;
        let order = if -half < min.x && max.x < half {
            EulerOrder::Yxz
        } else if -half < min.y && max.y < half {
            EulerOrder::Zyx
        } else {
            EulerOrder::Xzy
        };
        let zero = |k: usize| min[k] == 0.0 && max[k] == 0.0;
        let axis = match (zero(0), zero(1), zero(2)) {
            (true, true, true) => SolveAxis::Fixed,
            (false, true, true) => SolveAxis::Single(0),
            (true, false, true) => SolveAxis::Single(1),
            (true, true, false) => SolveAxis::Single(2),
            _ => SolveAxis::Free,
        };
        LinkPlan {
            limits: Some((min, max)),
            order,
            axis,
            zero_locked: [zero(0), zero(1), zero(2)],
        }
    }
}

/// The step's axis in the link's parent frame, or `None` when the two
/// directions are (nearly) parallel. `cross` is `to_effector × to_goal`,
/// of the unit vectors in model space from the link's head to the effector
/// and to the goal; `parent` is the parent's world rotation; `first_half`
/// is whether this loop is in the first half.
#[inline]
pub(crate) fn step_axis(
    plan: &LinkPlan,
    cross: Vec3,
    parent: Mat3,
    first_half: bool,
) -> Option<Vec3> {
    if cross.length_squared() < 1e-8 {
        return None;
    }
    if plan.limits.is_some()
        && first_half
        && let SolveAxis::Single(k) = plan.axis
    {
        let sign = if cross.dot(parent.col(k)) >= 0.0 {
            1.0
        } else {
            -1.0
        };
        let mut axis = Vec3::ZERO;
        axis[k] = sign;
        return Some(axis);
    }
    (parent.transpose() * cross).try_normalize()
}

/// `angle` kept within `[min, max]`: reflected back (`2·limit − angle`)
/// when `reflect` and that lands in range, else clamped.
pub(crate) fn limit_angle(angle: f32, min: f32, max: f32, reflect: bool) -> f32 {
    if angle < min {
        let r = 2.0 * min - angle;
        if reflect && r <= max { r } else { min }
    } else if angle > max {
        let r = 2.0 * max - angle;
        if reflect && r >= min { r } else { max }
    } else {
        angle
    }
}

/// `q` split into Euler angles `(x, y, z)` in `order` (middle angle held
/// within ±88°).
pub(crate) fn to_euler(q: Quat, order: EulerOrder) -> Vec3 {
    // `m(c, r)`: row r of column c of the rotation matrix.
    let m = Mat3::from_quat(q);
    let at = |c: usize, r: usize| m.col(c)[r];
    let hold = |s: f32| s.clamp(-1.0, 1.0).asin().clamp(-MIDDLE_HOLD, MIDDLE_HOLD);
    match order {
        EulerOrder::Yxz => {
            let x = hold(-at(2, 1));
            Vec3::new(x, at(2, 0).atan2(at(2, 2)), at(0, 1).atan2(at(1, 1)))
        }
        EulerOrder::Zyx => {
            let y = hold(-at(0, 2));
            Vec3::new(at(1, 2).atan2(at(2, 2)), y, at(0, 1).atan2(at(0, 0)))
        }
        EulerOrder::Xzy => {
            let z = hold(-at(1, 0));
            Vec3::new(at(1, 2).atan2(at(1, 1)), at(2, 0).atan2(at(0, 0)), z)
        }
    }
}

/// The rotation with Euler angles `e` in `order` (inverse of [`to_euler`]).
pub(crate) fn from_euler(e: Vec3, order: EulerOrder) -> Quat {
    let (x, y, z) = (
        Quat::from_rotation_x(e.x),
        Quat::from_rotation_y(e.y),
        Quat::from_rotation_z(e.z),
    );
    match order {
        EulerOrder::Yxz => y * x * z,
        EulerOrder::Zyx => z * y * x,
        EulerOrder::Xzy => x * z * y,
    }
}

/// A limited link's whole rotation `ik · animated` (`total`) with its Euler
/// angles limited; `first_half` allows reflection.
///
/// An axis whose limits are both zero ([`LinkPlan::zero_locked`]) skips its
/// `atan2`/`asin` and its `sin_cos`: [`zero_locked_angle`] gives the same
/// limited angle from the sign of the function's argument, and the
/// rotation about it is built as `sin_cos` of ±0 gives it. The result is
/// bit for bit that of [`to_euler`], [`limit_angle`] and [`from_euler`]
/// (`tests/model_pose_hash.rs`); a non-finite `total` takes that path.
#[inline]
pub(crate) fn limit_rotation(plan: &LinkPlan, total: Quat, first_half: bool) -> Quat {
    let Some((min, max)) = plan.limits else {
        return total;
    };
    if plan.zero_locked.contains(&true) && total.is_finite() {
        return limit_rotation_locked(plan, (min, max), total, first_half);
    }
    let e = to_euler(total, plan.order);
    let limited = Vec3::new(
        limit_angle(e.x, min.x, max.x, first_half),
        limit_angle(e.y, min.y, max.y, first_half),
        limit_angle(e.z, min.z, max.z, first_half),
    );
    from_euler(limited, plan.order)
}

/// The limited angle of an axis whose limits `min` and `max` are both
/// zero, where the angle itself would be `atan2(a, b)` (`b` given) or, for
/// the middle axis, `asin(a)` held within ±88° (`b` `None`); `a` and `b`
/// finite. [`limit_angle`] gives `min` below zero, `max` above and the
/// angle itself at ±0; `atan2(±0, b)` is ±0 for `b` > 0 or +0 and ±π for
/// `b` < 0 or −0; `asin` keeps the sign of zero.
fn zero_locked_angle(a: f32, b: Option<f32>, min: f32, max: f32) -> f32 {
    if a > 0.0 {
        max
    } else if a < 0.0 {
        min
    } else if b.is_none_or(|b| b > 0.0 || (b == 0.0 && b.is_sign_positive())) {
        a
    } else if a.is_sign_positive() {
        max
    } else {
        min
    }
}

/// [`limit_rotation`] for a finite `total` on a link with zero-locked axes.
/// Reads only the entries of `Mat3::from_quat(total)` its Euler order
/// needs, each computed as glam computes it.
#[inline]
fn limit_rotation_locked(
    plan: &LinkPlan,
    (min, max): (Vec3, Vec3),
    total: Quat,
    first_half: bool,
) -> Quat {
    let m = QuatMatrix::new(total);
    // The rotation about axis `k` whose limited angle is that of
    // `atan2(a, b)`, or `hold(a)` for the middle axis (`b` `None`), as
    // `to_euler` reads the angles.
    let turn = |k: usize, a: f32, b: Option<f32>| {
        let (s, c) = if plan.zero_locked[k] {
            // sin_cos(±0 · 0.5) is (±0, 1).
            (zero_locked_angle(a, b, min[k], max[k]) * 0.5, 1.0)
        } else {
            let e = match b {
                Some(b) => a.atan2(b),
                None => a.clamp(-1.0, 1.0).asin().clamp(-MIDDLE_HOLD, MIDDLE_HOLD),
            };
            (limit_angle(e, min[k], max[k], first_half) * 0.5).sin_cos()
        };
        let mut v = [0.0, 0.0, 0.0, c];
        v[k] = s;
        Quat::from_array(v)
    };
    match plan.order {
        EulerOrder::Yxz => {
            let x = turn(0, -m.at(2, 1), None);
            let y = turn(1, m.at(2, 0), Some(m.at(2, 2)));
            let z = turn(2, m.at(0, 1), Some(m.at(1, 1)));
            y * x * z
        }
        EulerOrder::Zyx => {
            let x = turn(0, m.at(1, 2), Some(m.at(2, 2)));
            let y = turn(1, -m.at(0, 2), None);
            let z = turn(2, m.at(0, 1), Some(m.at(0, 0)));
            z * y * x
        }
        EulerOrder::Xzy => {
            let x = turn(0, m.at(1, 2), Some(m.at(1, 1)));
            let y = turn(1, m.at(2, 0), Some(m.at(0, 0)));
            let z = turn(2, -m.at(1, 0), None);
            x * z * y
        }
    }
}

/// The products `Mat3::from_quat` builds its entries from, so that an entry
/// can be computed alone (bit for bit glam's).
struct QuatMatrix {
    xx: f32,
    xy: f32,
    xz: f32,
    yy: f32,
    yz: f32,
    zz: f32,
    wx: f32,
    wy: f32,
    wz: f32,
}

impl QuatMatrix {
    #[inline]
    fn new(q: Quat) -> QuatMatrix {
        let (x2, y2, z2) = (q.x + q.x, q.y + q.y, q.z + q.z);
        QuatMatrix {
            xx: q.x * x2,
            xy: q.x * y2,
            xz: q.x * z2,
            yy: q.y * y2,
            yz: q.y * z2,
            zz: q.z * z2,
            wx: q.w * x2,
            wy: q.w * y2,
            wz: q.w * z2,
        }
    }

    /// Row `r` of column `c` of `Mat3::from_quat(q)`.
    #[inline]
    fn at(&self, c: usize, r: usize) -> f32 {
        match (c, r) {
            (0, 0) => 1.0 - (self.yy + self.zz),
            (0, 1) => self.xy + self.wz,
            (0, 2) => self.xz - self.wy,
            (1, 0) => self.xy - self.wz,
            (1, 1) => 1.0 - (self.xx + self.zz),
            (1, 2) => self.yz + self.wx,
            (2, 0) => self.xz + self.wy,
            (2, 1) => self.yz - self.wx,
            _ => 1.0 - (self.xx + self.yy),
        }
    }
}
