//! MMD camera math: eye, orientation, view and projection from the camera
//! key parameters. MMD coordinates: left-handed, Y up, a model faces −Z.
//!
//! `eye = target + Ry(−ry)·Rx(−rx)·Rz(−rz)·(0, 0, distance)` with the
//! standard right-hand-rule rotation matrices (babylon-mmd's
//! `RotationYawPitchRoll(−ry, −rx, −rz)`). Not three.js r171's
//! `R·(target + offset)`, which is wrong whenever the target is off the origin.

use glam::{Mat3, Mat4, Quat, Vec3};

/// The rotation that carries the camera's local frame into MMD space:
/// `Ry(−ry)·Rx(−rx)·Rz(−rz)`. Angles in radians.
pub fn camera_rotation(rotation: [f32; 3]) -> Mat3 {
    let [rx, ry, rz] = rotation;
    Mat3::from_rotation_y(-ry) * Mat3::from_rotation_x(-rx) * Mat3::from_rotation_z(-rz)
}

/// Same rotation as a quaternion.
pub fn camera_orientation(rotation: [f32; 3]) -> Quat {
    let [rx, ry, rz] = rotation;
    Quat::from_rotation_y(-ry) * Quat::from_rotation_x(-rx) * Quat::from_rotation_z(-rz)
}

/// Eye position in MMD coordinates.
pub fn eye_position(target: [f32; 3], rotation: [f32; 3], distance: f32) -> [f32; 3] {
    let e = Vec3::from(target) + camera_rotation(rotation) * Vec3::new(0.0, 0.0, distance);
    e.to_array()
}

/// The camera's up direction (local +Y rotated), MMD coordinates.
pub fn up_vector(rotation: [f32; 3]) -> [f32; 3] {
    (camera_rotation(rotation) * Vec3::Y).to_array()
}

/// The direction the camera looks along (local +Z rotated: from the eye
/// towards the target when distance is negative, as in MMD).
pub fn forward_vector(rotation: [f32; 3]) -> [f32; 3] {
    (camera_rotation(rotation) * Vec3::Z).to_array()
}

/// A left-handed view matrix (MMD space → view space, +Z forward).
pub fn view_matrix(target: [f32; 3], rotation: [f32; 3], distance: f32) -> Mat4 {
    let eye = Vec3::from(eye_position(target, rotation, distance));
    let r = camera_rotation(rotation);
    // Camera basis in world space; view = inverse of [r | eye].
    let world = Mat4::from_mat3(r) * Mat4::IDENTITY;
    let world = Mat4::from_translation(eye) * world;
    world.inverse()
}

/// The far plane of [`projection_matrix`], MMD units: what a dancer and a
/// usual stage need. [`fitted_far`] reaches further for a bigger set.
pub const DEFAULT_FAR: f32 = 10_000.0;

/// The farthest a fitted far plane goes (depth precision near the camera
/// would suffer beyond it).
pub const MAX_FAR: f32 = 1_000_000.0;

/// A far plane that keeps everything in the axis-aligned box `min..max`
/// (MMD units) in view from `eye`: the farthest corner's distance plus 5 %,
/// never nearer than [`DEFAULT_FAR`] nor farther than [`MAX_FAR`]. A skybox
/// 10,000 units from the origin has corners 17,320 away: drawn whole.
/// Non-finite input gives [`DEFAULT_FAR`].
pub fn fitted_far(eye: Vec3, min: Vec3, max: Vec3) -> f32 {
    if !(eye.is_finite() && min.is_finite() && max.is_finite()) {
        return DEFAULT_FAR;
    }
    let mut farthest = 0.0f32;
    for k in 0..8 {
        let corner = Vec3::new(
            if k & 1 == 0 { min.x } else { max.x },
            if k & 2 == 0 { min.y } else { max.y },
            if k & 4 == 0 { min.z } else { max.z },
        );
        farthest = farthest.max(corner.distance(eye));
    }
    (farthest * 1.05).clamp(DEFAULT_FAR, MAX_FAR)
}

/// A left-handed perspective projection; `fov_deg` is the vertical field of view.
pub fn projection_matrix(fov_deg: f32, aspect: f32, perspective: bool, distance: f32) -> Mat4 {
    projection_matrix_far(fov_deg, aspect, perspective, distance, DEFAULT_FAR)
}

/// [`projection_matrix`] with its far plane at `far` (MMD units; see
/// [`fitted_far`]; values below 1 or non-finite read as [`DEFAULT_FAR`]).
pub fn projection_matrix_far(
    fov_deg: f32,
    aspect: f32,
    perspective: bool,
    distance: f32,
    far: f32,
) -> Mat4 {
    let near = 0.1;
    let far = if far.is_finite() && far >= 1.0 {
        far
    } else {
        DEFAULT_FAR
    };
    if perspective {
        let f = 1.0 / (fov_deg.to_radians().clamp(0.01, 3.1) * 0.5).tan();
        let a = aspect.max(1e-3);
        let r = far / (far - near);
        Mat4::from_cols(
            glam::Vec4::new(f / a, 0.0, 0.0, 0.0),
            glam::Vec4::new(0.0, f, 0.0, 0.0),
            glam::Vec4::new(0.0, 0.0, r, 1.0),
            glam::Vec4::new(0.0, 0.0, -r * near, 0.0),
        )
    } else {
        // Orthographic: frame the same height the perspective view would show at the target.
        let h = (distance.abs() * (fov_deg.to_radians() * 0.5).tan()).max(0.1);
        let w = h * aspect;
        let depth = 2.0 * far;
        Mat4::from_cols(
            glam::Vec4::new(1.0 / w, 0.0, 0.0, 0.0),
            glam::Vec4::new(0.0, 1.0 / h, 0.0, 0.0),
            glam::Vec4::new(0.0, 0.0, 1.0 / depth, 0.0),
            glam::Vec4::new(0.0, 0.0, 0.5, 1.0),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4)
    }

    #[test]
    fn default_camera_sits_in_front_of_the_model() {
        // MMD's default camera: target (0,10,0), distance −45, no rotation.
        assert!(close(
            eye_position([0.0, 10.0, 0.0], [0.0; 3], -45.0),
            [0.0, 10.0, -45.0]
        ));
    }

    #[test]
    fn yaw_of_90_degrees_hand_computed() {
        // Ry(−90°)·(0,0,−10): Ry(θ)(x,y,z) = (x cosθ + z sinθ, y, −x sinθ + z cosθ)
        // θ = −90°: (−10·(−1), 0, 0) = (10, 0, 0); plus target (1, 2, 3).
        let e = eye_position(
            [1.0, 2.0, 3.0],
            [0.0, std::f32::consts::FRAC_PI_2, 0.0],
            -10.0,
        );
        assert!(close(e, [11.0, 2.0, 3.0]), "{e:?}");
    }

    #[test]
    fn pitch_of_90_degrees_hand_computed() {
        // Rx(θ)(x,y,z) = (x, y cosθ − z sinθ, y sinθ + z cosθ); θ = −90°, z = −10:
        // y = −(−10)(−1) = −10, z = 0.
        let e = eye_position([0.0; 3], [std::f32::consts::FRAC_PI_2, 0.0, 0.0], -10.0);
        assert!(close(e, [0.0, -10.0, 0.0]), "{e:?}");
    }

    #[test]
    fn view_matrix_maps_eye_to_origin_and_target_ahead() {
        let t = [1.0, 5.0, -2.0];
        let r = [0.3, -0.7, 0.1];
        let v = view_matrix(t, r, -20.0);
        let eye = Vec3::from(eye_position(t, r, -20.0));
        assert!(v.transform_point3(eye).length() < 1e-4);
        let tv = v.transform_point3(Vec3::from(t));
        // Target straight ahead (+Z in a left-handed view) at |distance|.
        assert!(
            tv.x.abs() < 1e-3 && tv.y.abs() < 1e-3 && (tv.z - 20.0).abs() < 1e-3,
            "{tv:?}"
        );
    }
}
