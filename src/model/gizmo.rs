//! Posing in the viewport, the math only: where a bone joint or a gizmo
//! handle lands on screen, which one the pointer is on, and what a drag
//! does to the bone's local (VMD) rotation or translation. No GUI type.
//!
//! # Conventions
//! * Points and axes are MMD model space (left-handed, Y up, model units),
//!   taken as plain numbers: nothing is converted.
//! * A [`Screen`] maps model space to screen pixels through a `view_proj`
//!   matrix whose clip depth runs 0..w (wgpu / `vmd::camera` convention):
//!   NDC x grows to the right of the screen, NDC y upwards, screen y
//!   downwards. This is the mapping the viewport draws with.
//! * Angles are radians; a positive angle about an axis `a` is a
//!   right-hand-rule turn of the raw coordinates (`Quat::from_axis_angle`).
//! * A VMD bone key's rotation is local: relative to the rest pose, in the
//!   parent's frame. With the parent's world rotation `P` and the key's
//!   rotation `q`, the bone's world rotation is `P·q` (inherited rotation
//!   aside). Turning the bone by `R` about a world axis makes it `R·P·q`, so
//!   the key becomes `q' = P⁻¹·R·P·q` ([`rotate_about_world_axis`]).
//!   A translation key is an offset in the parent's frame, so a world
//!   displacement `d` adds `P⁻¹·d` ([`world_offset_to_local`]).

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

/// One of the gizmo's three axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    /// 0, 1, 2.
    pub fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "X",
            Axis::Y => "Y",
            Axis::Z => "Z",
        }
    }
}

/// Which frame the gizmo's axes follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Space {
    /// The bone's own axes as posed (PMX local axes when the model gives them).
    #[default]
    Local,
    /// The model's X, Y, Z.
    Global,
}

/// Model space → screen pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Screen {
    pub view_proj: Mat4,
    /// Top-left corner of the picture, pixels.
    pub min: Vec2,
    /// Width and height of the picture, pixels.
    pub size: Vec2,
}

impl Screen {
    /// Screen position of `p`, or `None` behind the near plane.
    pub fn project(&self, p: Vec3) -> Option<Vec2> {
        let c: Vec4 = self.view_proj * p.extend(1.0);
        if !(c.z >= 0.0 && c.w > 1e-12) {
            return None;
        }
        let (x, y) = (c.x / c.w, c.y / c.w);
        let s = Vec2::new(
            self.min.x + (x + 1.0) * 0.5 * self.size.x,
            self.min.y + (1.0 - y) * 0.5 * self.size.y,
        );
        s.is_finite().then_some(s)
    }

    /// Model units per screen pixel at `p`, measured along `right` (a unit
    /// vector across the view, e.g. the camera's right). `None` when `p` is
    /// behind the eye.
    pub fn units_per_pixel(&self, p: Vec3, right: Vec3) -> Option<f32> {
        let a = self.project(p)?;
        let b = self.project(p + right)?;
        let px = (b - a).length();
        (px > 1e-6).then(|| 1.0 / px)
    }
}

/// The gizmo's axes (unit vectors, model space). `Local` turns the bone's
/// rest axes (PMX local X and Z if given, else the model's) by its world
/// rotation `world_rotation`; `Global` is the model's X, Y, Z.
pub fn axis_frame(
    space: Space,
    world_rotation: Quat,
    local_axes: Option<(Vec3, Vec3)>,
) -> [Vec3; 3] {
    match space {
        Space::Global => [Vec3::X, Vec3::Y, Vec3::Z],
        Space::Local => {
            let rest = local_axes
                .and_then(|(x, z)| {
                    let x = x.try_normalize()?;
                    let y = z.cross(x).try_normalize()?;
                    Some([x, y, x.cross(y)])
                })
                .unwrap_or([Vec3::X, Vec3::Y, Vec3::Z]);
            rest.map(|a| (world_rotation * a).normalize_or(a))
        }
    }
}

/// The key rotation after turning the bone by `angle` about the world axis
/// `axis` (unit, model space): `P⁻¹·R(axis, angle)·P·local`, where
/// `parent` = `P` is the parent's world rotation. Normalised.
pub fn rotate_about_world_axis(local: Quat, parent: Quat, axis: Vec3, angle: f32) -> Quat {
    let r = Quat::from_axis_angle(axis.normalize_or(Vec3::X), angle);
    (parent.inverse() * r * parent * local).normalize()
}

/// A world displacement as a change of the bone's translation key (the
/// key's offset lives in the parent's frame).
pub fn world_offset_to_local(parent: Quat, delta_world: Vec3) -> Vec3 {
    parent.inverse() * delta_world
}

/// `n` points of the circle of `radius` about `center` in the plane
/// normal to `axis`, starting on an arbitrary in-plane direction.
pub fn ring_points(center: Vec3, axis: Vec3, radius: f32, n: usize) -> Vec<Vec3> {
    let a = axis.normalize_or(Vec3::Y);
    let u = a.any_orthonormal_vector();
    let v = a.cross(u);
    (0..n)
        .map(|k| {
            let t = k as f32 / n as f32 * std::f32::consts::TAU;
            center + (u * t.cos() + v * t.sin()) * radius
        })
        .collect()
}

/// Distance from `p` to the segment `a`–`b` (pixels).
pub fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 1e-12 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + ab * t - p).length()
}

/// Distance from `p` to a closed polyline of screen points; a `None` point
/// (behind the eye) breaks the line there. `f32::INFINITY` when no segment
/// is visible.
pub fn distance_to_loop(p: Vec2, pts: &[Option<Vec2>]) -> f32 {
    let n = pts.len();
    let mut best = f32::INFINITY;
    for k in 0..n {
        if let (Some(a), Some(b)) = (pts[k], pts[(k + 1) % n]) {
            best = best.min(distance_to_segment(p, a, b));
        }
    }
    best
}

/// Points of a ring as the screen shows them.
pub fn ring_on_screen(
    screen: &Screen,
    center: Vec3,
    axis: Vec3,
    radius: f32,
    n: usize,
) -> Vec<Option<Vec2>> {
    ring_points(center, axis, radius, n)
        .into_iter()
        .map(|p| screen.project(p))
        .collect()
}

/// Segments per ring for drawing and picking.
pub const RING_SEGMENTS: usize = 64;

/// The rotation ring (by axis index) whose drawn circle passes within
/// `max_px` of `cursor`, the nearest if several do.
pub fn pick_ring(
    screen: &Screen,
    center: Vec3,
    axes: &[Vec3],
    radius: f32,
    cursor: Vec2,
    max_px: f32,
) -> Option<usize> {
    axes.iter()
        .enumerate()
        .map(|(i, &a)| {
            let pts = ring_on_screen(screen, center, a, radius, RING_SEGMENTS);
            (i, distance_to_loop(cursor, &pts))
        })
        .filter(|&(_, d)| d <= max_px)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The move arrow (by axis index, each `length` units from `center`) whose
/// drawn shaft passes within `max_px` of `cursor`, the nearest if several do.
pub fn pick_arrow(
    screen: &Screen,
    center: Vec3,
    axes: &[Vec3],
    length: f32,
    cursor: Vec2,
    max_px: f32,
) -> Option<usize> {
    let c = screen.project(center)?;
    axes.iter()
        .enumerate()
        .filter_map(|(i, &a)| {
            let tip = screen.project(center + a * length)?;
            // The hub (near the centre) belongs to no single arrow.
            let d = distance_to_segment(cursor, c + (tip - c) * 0.2, tip);
            Some((i, d))
        })
        .filter(|&(_, d)| d <= max_px)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The joint (by its index in `joints`) nearest to `cursor` within
/// `max_px`; `None` points are not on screen.
pub fn nearest_joint(joints: &[Option<Vec2>], cursor: Vec2, max_px: f32) -> Option<usize> {
    joints
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (i, (p - cursor).length())))
        .filter(|&(_, d)| d <= max_px)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// What dragging a rotation ring needs, fixed when the drag starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RingGrab {
    /// Screen direction (unit) in which the grabbed ring point moves for a
    /// positive angle.
    pub tangent: Vec2,
    /// The ring's radius on screen, pixels (angle = arc length / radius).
    pub radius_px: f32,
}

/// Sets up a ring drag: `grab` is the point of the ring nearest the cursor
/// (model space), `center` and `axis` (unit) the ring's. `None` when the
/// ring is seen edge-on at that point (no usable screen direction).
pub fn ring_grab(screen: &Screen, center: Vec3, axis: Vec3, grab: Vec3) -> Option<RingGrab> {
    let radial = grab - center;
    let r = radial.length();
    if r <= 1e-9 {
        return None;
    }
    // d/dθ of centre + r(cos θ·u + sin θ·v) with v = axis × u: axis × radial.
    let tangent_world = axis.normalize_or(Vec3::Y).cross(radial / r);
    let g = screen.project(grab)?;
    let eps = r * 0.01;
    let t = (screen.project(grab + tangent_world * eps)? - g) / eps;
    // Screen pixels per model unit along the tangent.
    let px_per_unit = t.length();
    if px_per_unit < 1e-6 {
        return None;
    }
    let c = screen.project(center)?;
    let radius_px = (g - c).length().max(r * px_per_unit).max(1.0);
    Some(RingGrab {
        tangent: t / px_per_unit,
        radius_px,
    })
}

/// The angle (radians) of a ring drag whose pointer has moved by `delta`
/// pixels since it started: the motion along the grabbed point's tangent,
/// as arc length over the ring's radius — the grabbed point follows the
/// pointer.
pub fn ring_drag_angle(grab: &RingGrab, delta: Vec2) -> f32 {
    delta.dot(grab.tangent) / grab.radius_px
}

/// The distance (model units) along `axis` of a move-arrow drag whose
/// pointer has moved by `delta` pixels: its motion along the arrow's
/// screen direction. `None` when the arrow points at the viewer (less than
/// a pixel long per unit).
pub fn axis_drag_distance(screen: &Screen, center: Vec3, axis: Vec3, delta: Vec2) -> Option<f32> {
    let c = screen.project(center)?;
    let a = screen.project(center + axis)? - c;
    let len2 = a.length_squared();
    (len2 >= 1.0).then(|| delta.dot(a) / len2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::{FRAC_PI_2, FRAC_PI_4};

    /// Identity view-projection over a 200 × 200 picture at the origin:
    /// model (x, y) ↦ screen (100 + 100x, 100 − 100y), any z ≥ 0 visible.
    fn flat() -> Screen {
        Screen {
            view_proj: Mat4::IDENTITY,
            min: Vec2::ZERO,
            size: Vec2::new(200.0, 200.0),
        }
    }

    fn close(a: Quat, b: [f32; 4]) -> bool {
        let b = Quat::from_array(b);
        // q and −q are the same rotation.
        (a - b).length() < 1e-5 || (a + b).length() < 1e-5
    }

    #[test]
    fn world_axis_turn_with_a_turned_parent_is_hand_computed() {
        // Parent turned 90° about Y: P·X = (0, 0, −1), P⁻¹·X = (0, 0, 1).
        // P⁻¹·Rx(90°)·P = R(P⁻¹X, 90°) = Rz(90°) = (0, 0, sin 45°, cos 45°).
        let parent = Quat::from_rotation_y(FRAC_PI_2);
        let q = rotate_about_world_axis(Quat::IDENTITY, parent, Vec3::X, FRAC_PI_2);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!(close(q, [0.0, 0.0, h, h]), "{q:?}");
        // With a parent at rest, a world turn is a plain pre-multiplication:
        // Rz(90°)·Rx(90°) = (½, ½, ½, ½) by the quaternion product.
        let q2 = rotate_about_world_axis(
            Quat::from_rotation_x(FRAC_PI_2),
            Quat::IDENTITY,
            Vec3::Z,
            FRAC_PI_2,
        );
        assert!(close(q2, [0.5, 0.5, 0.5, 0.5]), "{q2:?}");
    }

    #[test]
    fn world_turn_turns_the_bone_in_the_world_and_nothing_else() {
        let parent = Quat::from_euler(glam::EulerRot::YXZ, 0.3, -0.7, 1.1);
        let local = Quat::from_euler(glam::EulerRot::YXZ, -0.2, 0.4, 0.25);
        let axis = Vec3::new(1.0, 2.0, -0.5).normalize();
        let new = rotate_about_world_axis(local, parent, axis, 0.6);
        let want = Quat::from_axis_angle(axis, 0.6) * parent * local;
        assert!((parent * new - want).length() < 1e-5 || (parent * new + want).length() < 1e-5);
        // Zero angle: the key is unchanged.
        let same = rotate_about_world_axis(local, parent, axis, 0.0);
        assert!((same - local).length() < 1e-6);
    }

    #[test]
    fn local_axis_turn_is_a_post_multiplication() {
        // About the bone's own X axis (world axis = W·X with W = P·q), the
        // key becomes q·Rx(a).
        let parent = Quat::from_rotation_z(0.8);
        let local = Quat::from_rotation_y(-0.4);
        let axes = axis_frame(Space::Local, parent * local, None);
        let new = rotate_about_world_axis(local, parent, axes[0], 0.5);
        let want = local * Quat::from_rotation_x(0.5);
        assert!((new - want).length() < 1e-5, "{new:?} vs {want:?}");
    }

    #[test]
    fn axis_frames_global_local_and_pmx_local_axes() {
        assert_eq!(
            axis_frame(Space::Global, Quat::from_rotation_y(1.0), None),
            [Vec3::X, Vec3::Y, Vec3::Z]
        );
        // Local, turned 90° about Z: X → Y, Y → −X.
        let f = axis_frame(Space::Local, Quat::from_rotation_z(FRAC_PI_2), None);
        assert!((f[0] - Vec3::Y).length() < 1e-6 && (f[1] + Vec3::X).length() < 1e-6);
        // PMX local axes of a left arm sloping down 45°: X along the arm
        // (1, −1, 0)/√2, Z = (0, 0, 1): Y = Z × X = (1, 1, 0)/√2.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let g = axis_frame(
            Space::Local,
            Quat::IDENTITY,
            Some((Vec3::new(1.0, -1.0, 0.0), Vec3::Z)),
        );
        assert!((g[0] - Vec3::new(h, -h, 0.0)).length() < 1e-6);
        assert!((g[1] - Vec3::new(h, h, 0.0)).length() < 1e-6);
        assert!((g[2] - Vec3::Z).length() < 1e-6);
    }

    #[test]
    fn translation_goes_into_the_parent_frame() {
        // Parent turned 90° about Y maps local X to world −Z, so a world
        // step of +1 along Z is a local step of −1 along X.
        let d = world_offset_to_local(Quat::from_rotation_y(FRAC_PI_2), Vec3::Z);
        assert!((d - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-6, "{d:?}");
    }

    #[test]
    fn projection_and_scale_of_the_flat_screen() {
        let s = flat();
        assert_eq!(
            s.project(Vec3::new(0.5, 0.5, 0.0)),
            Some(Vec2::new(150.0, 50.0))
        );
        assert_eq!(s.project(Vec3::new(0.0, 0.0, -1.0)), None); // behind
        let u = s.units_per_pixel(Vec3::ZERO, Vec3::X).expect("visible");
        assert!((u - 0.01).abs() < 1e-7);
    }

    #[test]
    fn the_ring_under_the_pointer_is_picked() {
        let s = flat();
        let axes = [Vec3::X, Vec3::Y, Vec3::Z];
        // The Z ring (radius 0.5) is a 50-px circle about (100, 100); the X
        // and Y rings are seen edge-on as the lines x = 100 and y = 100.
        let on_z = Vec2::new(100.0 + 50.0 * 0.70710677, 100.0 - 50.0 * 0.70710677);
        assert_eq!(pick_ring(&s, Vec3::ZERO, &axes, 0.5, on_z, 6.0), Some(2));
        assert_eq!(
            pick_ring(&s, Vec3::ZERO, &axes, 0.5, Vec2::new(100.0, 80.0), 6.0),
            Some(0)
        );
        assert_eq!(
            pick_ring(&s, Vec3::ZERO, &axes, 0.5, Vec2::new(80.0, 100.0), 6.0),
            Some(1)
        );
        // 20 px outside the circle and off both lines: nothing.
        assert_eq!(
            pick_ring(&s, Vec3::ZERO, &axes, 0.5, Vec2::new(170.0, 40.0), 6.0),
            None
        );
    }

    #[test]
    fn dragging_the_rightmost_point_of_the_z_ring_up_turns_plus_z() {
        let s = flat();
        // Grab the Z ring at (0.5, 0, 0) = screen (150, 100). Its tangent
        // is Z × X = Y: up on screen. An arc of a quarter of π·50 px is 45°.
        let g = ring_grab(&s, Vec3::ZERO, Vec3::Z, Vec3::new(0.5, 0.0, 0.0)).expect("grab");
        assert!((g.tangent - Vec2::new(0.0, -1.0)).length() < 1e-4, "{g:?}");
        assert!((g.radius_px - 50.0).abs() < 1e-3);
        let a = ring_drag_angle(&g, Vec2::new(3.0, -50.0 * FRAC_PI_4));
        assert!((a - FRAC_PI_4).abs() < 1e-4, "{a}");
        // Edge-on: the Y ring grabbed at (0.5, 0, 0) moves along −Z there,
        // straight into the screen: no screen direction.
        assert!(ring_grab(&s, Vec3::ZERO, Vec3::Y, Vec3::new(0.5, 0.0, 0.0)).is_none());
    }

    #[test]
    fn arrows_and_joints_are_picked_and_dragged_by_hand_numbers() {
        let s = flat();
        let axes = [Vec3::X, Vec3::Y, Vec3::Z];
        // The X arrow of length 0.6 runs from (100, 100) to (160, 100).
        assert_eq!(
            pick_arrow(&s, Vec3::ZERO, &axes, 0.6, Vec2::new(150.0, 103.0), 6.0),
            Some(0)
        );
        // The Y arrow runs up to (100, 40).
        assert_eq!(
            pick_arrow(&s, Vec3::ZERO, &axes, 0.6, Vec2::new(98.0, 60.0), 6.0),
            Some(1)
        );
        // X arrow: 100 px per unit; a (25, 10) px move is 0.25 units along X.
        let d = axis_drag_distance(&s, Vec3::ZERO, Vec3::X, Vec2::new(25.0, 10.0));
        assert!((d.expect("visible") - 0.25).abs() < 1e-6);
        // Z points into the screen: no usable direction.
        assert_eq!(
            axis_drag_distance(&s, Vec3::ZERO, Vec3::Z, Vec2::new(5.0, 5.0)),
            None
        );
        let joints = [
            Some(Vec2::new(10.0, 10.0)),
            None,
            Some(Vec2::new(52.0, 50.0)),
            Some(Vec2::new(47.0, 50.0)),
        ];
        assert_eq!(nearest_joint(&joints, Vec2::new(50.0, 50.0), 6.0), Some(2));
        assert_eq!(nearest_joint(&joints, Vec2::new(30.0, 30.0), 6.0), None);
    }
}
