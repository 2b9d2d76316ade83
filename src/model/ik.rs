//! One CCD step of MMD-style IK for one link, shared by the full pose rules
//! ([`super::posing`]) and the skeleton preview ([`super::pose`]).
//!
//! The link's local rotation `current` is the variable. The effector `e`
//! and goal `g` are given in the link's own frame (after `current`), so the
//! turn `delta` that brings `e` towards `g` composes on the right:
//! `current · delta`. Angles are radians.

use std::f32::consts::PI;

use glam::{EulerRot, Quat, Vec3};

/// The new local rotation of a link after one CCD step, or `None` when
/// nothing (well defined) changes. `limit` caps the turn of this step;
/// `limits` are per-axis Euler limits `(min, max)` in the link's local
/// frame. A link limited to one axis (a hinge such as a knee) turns about
/// that axis only, by the signed angle between `e` and `g` projected onto
/// its plane, so it can bend either way within its range.
pub(crate) fn ccd_step(
    current: Quat,
    limits: Option<(Vec3, Vec3)>,
    e: Vec3,
    g: Vec3,
    limit: f32,
) -> Option<Quat> {
    let new = match limits {
        Some((min, max)) => match single_axis(min, max) {
            Some(axis) => plane_step(current, axis, min[axis], max[axis], e, g, limit)?,
            None => clamp_euler((current * free_step(e, g, limit)?).normalize(), min, max),
        },
        None => (current * free_step(e, g, limit)?).normalize(),
    };
    new.is_finite().then_some(new)
}

/// The unconstrained CCD rotation turning `e` towards `g`, at most `limit`
/// radians, or `None` if there is nothing (well defined) to turn.
pub(crate) fn free_step(e: Vec3, g: Vec3, limit: f32) -> Option<Quat> {
    let (e, g) = (e.try_normalize()?, g.try_normalize()?);
    let angle = e.dot(g).clamp(-1.0, 1.0).acos().min(limit);
    if angle < 1e-6 {
        return None;
    }
    let axis = e.cross(g).try_normalize()?;
    Some(Quat::from_axis_angle(axis, angle))
}

/// If only one Euler axis (0 = X, 1 = Y, 2 = Z) has a non-zero range and the
/// other two are fixed at zero, that axis (a hinge such as a knee).
pub(crate) fn single_axis(min: Vec3, max: Vec3) -> Option<usize> {
    let fixed = |k: usize| min[k] == 0.0 && max[k] == 0.0;
    let mut free = (0..3).filter(|&k| !fixed(k));
    match (free.next(), free.next()) {
        (Some(k), None) => Some(k),
        _ => None,
    }
}

fn unit_axis(axis: usize) -> Vec3 {
    match axis {
        0 => Vec3::X,
        1 => Vec3::Y,
        _ => Vec3::Z,
    }
}

/// Hinge step: rotate about one local axis only, by the signed angle between
/// `e` and `g` projected onto the plane perpendicular to it (at most `limit`
/// per step), keeping the total angle within `[lo, hi]`.
pub(crate) fn plane_step(
    current: Quat,
    axis: usize,
    lo: f32,
    hi: f32,
    e: Vec3,
    g: Vec3,
    limit: f32,
) -> Option<Quat> {
    let a = unit_axis(axis);
    let e = (e - a * e.dot(a)).try_normalize()?;
    let g = (g - a * g.dot(a)).try_normalize()?;
    let delta = a.dot(e.cross(g)).atan2(e.dot(g)).clamp(-limit, limit);
    let angle = (twist_angle(current, axis) + delta).clamp(lo, hi);
    Some(Quat::from_axis_angle(a, angle))
}

/// Angle of the twist of `q` about a coordinate axis, in (−π, π].
pub(crate) fn twist_angle(q: Quat, axis: usize) -> f32 {
    let component = match axis {
        0 => q.x,
        1 => q.y,
        _ => q.z,
    };
    let angle = 2.0 * component.atan2(q.w);
    if angle > PI {
        angle - 2.0 * PI
    } else if angle <= -PI {
        angle + 2.0 * PI
    } else {
        angle
    }
}

/// Clamps each Euler angle (X, Y, Z order) of `q` to `[min, max]`.
pub(crate) fn clamp_euler(q: Quat, min: Vec3, max: Vec3) -> Quat {
    let (x, y, z) = q.to_euler(EulerRot::XYZ);
    let v = Vec3::new(x, y, z).clamp(min, max);
    Quat::from_euler(EulerRot::XYZ, v.x, v.y, v.z)
}
