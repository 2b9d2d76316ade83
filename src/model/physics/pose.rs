//! Conversions between glam's rotations and translations and rapier's
//! poses, shared by the world's construction and its stepping.

use glam::{Mat4, Quat, Vec3};
use rapier3d::prelude::{Pose, Rotation, Vector};

pub(super) fn to_pose(rotation: Quat, translation: Vec3) -> Pose {
    Pose::from_parts(
        Vector::new(translation.x, translation.y, translation.z),
        Rotation::from_xyzw(rotation.x, rotation.y, rotation.z, rotation.w),
    )
}

pub(super) fn from_pose(p: &Pose) -> (Quat, Vec3) {
    let r = p.rotation;
    let t = p.translation;
    (
        Quat::from_xyzw(r.x, r.y, r.z, r.w),
        Vec3::new(t.x, t.y, t.z),
    )
}

/// Rotation and translation of a rigid matrix (a bone or body pose).
pub(super) fn split(m: &Mat4) -> (Quat, Vec3) {
    let q = Quat::from_mat4(m);
    let q = if q.is_finite() && q.length_squared() > 1.0e-12 {
        q.normalize()
    } else {
        Quat::IDENTITY
    };
    (q, m.w_axis.truncate())
}
