//! The view camera and its projection onto the screen: the VMD camera and
//! the viewport's free orbit view are both MMD cameras (target, Euler
//! rotation, distance, fov), so they share one projection path:
//! [`ViewCamera::view_proj`] (`vmd::camera::projection_matrix ·
//! view_matrix`, left-handed, +Z forward) then [`project_point`] /
//! [`project_segment`], which put view-space +X on the right of the screen
//! and +Y up. Seen from the front (eye at −Z looking towards +Z) the model's
//! left hand (+X) is therefore on the viewer's right, as in MMD.
//!
//! Pure: no GUI type (screen rectangles are [`ScreenRect`], points glam
//! `Vec2`); the viewport converts to egui's types. Coordinates are MMD's:
//! left-handed, Y up, model units; camera angles in radians, field of view
//! in degrees.

use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::vmd::camera;
use crate::vmd::evaluate::CameraState;

// ------------------------------------------------------------------ camera

/// A camera in MMD's own terms; used for the VMD camera and the free view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewCamera {
    /// Look-at point, MMD coordinates.
    pub target: [f32; 3],
    /// Euler angles x, y, z in radians (MMD camera convention).
    pub rotation: [f32; 3],
    /// Distance from the target; negative = pulled back (MMD's usual sign).
    pub distance: f32,
    /// Vertical field of view in degrees.
    pub fov: f32,
    pub perspective: bool,
}

impl ViewCamera {
    /// The default free view: MMD's default camera, in front of the model
    /// (eye at (0, 10, −45) looking towards +Z, at the model's front).
    pub const FRONT: ViewCamera = ViewCamera {
        target: [0.0, 10.0, 0.0],
        rotation: [0.0, 0.0, 0.0],
        distance: -45.0,
        fov: 30.0,
        perspective: true,
    };

    /// A free view orbiting `target` at angles `rx_deg`, `ry_deg` (degrees)
    /// with the eye `distance` units from it, FRONT's field of view. A
    /// positive `distance` is a length: the eye that far in front (as MMD's
    /// `-distance`, the sign camera keys carry); a negative one is taken
    /// with MMD's sign.
    pub fn orbiting(rx_deg: f32, ry_deg: f32, distance: f32, target: [f32; 3]) -> Self {
        ViewCamera {
            target,
            rotation: [rx_deg.to_radians(), ry_deg.to_radians(), 0.0],
            distance: -distance.abs(),
            ..ViewCamera::FRONT
        }
    }

    /// The evaluated VMD camera.
    pub fn from_state(c: &CameraState) -> Self {
        ViewCamera {
            target: c.target,
            rotation: c.rotation,
            distance: c.distance,
            fov: c.fov,
            perspective: c.perspective,
        }
    }

    /// Eye position (MMD coordinates): `target + Ry(−ry)·Rx(−rx)·Rz(−rz)·(0, 0, distance)`.
    pub fn eye(&self) -> Vec3 {
        Vec3::from(camera::eye_position(
            self.target,
            self.rotation,
            self.distance,
        ))
    }

    /// Camera right, up and forward directions in MMD space (unit vectors).
    pub fn basis(&self) -> (Vec3, Vec3, Vec3) {
        let r = camera::camera_rotation(self.rotation);
        (r * Vec3::X, r * Vec3::Y, r * Vec3::Z)
    }

    /// MMD space → clip space for a viewport of `aspect` = width / height.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        camera::projection_matrix(self.fov, aspect, self.perspective, self.distance)
            * camera::view_matrix(self.target, self.rotation, self.distance)
    }

    /// World units per screen pixel at the target's depth, for a viewport
    /// `height` pixels tall.
    pub fn units_per_pixel(&self, height: f32) -> f32 {
        let half = (self.fov.to_radians() * 0.5).tan();
        (2.0 * self.distance.abs().max(0.05) * half / height.max(1.0)).max(1e-5)
    }

    /// Orbit by a pointer movement of (`dx`, `dy`) pixels: the scene follows
    /// the pointer (drag right → the eye swings to the camera's left).
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        const RAD_PER_PX: f32 = 0.008;
        self.rotation[1] -= dx * RAD_PER_PX;
        self.rotation[0] -= dy * RAD_PER_PX;
    }

    /// Pan by a pointer movement of (`dx`, `dy`) pixels in a viewport
    /// `height` pixels tall: the point under the pointer stays under it.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let (right, up, _) = self.basis();
        let s = self.units_per_pixel(height);
        let t = Vec3::from(self.target) - right * (dx * s) + up * (dy * s);
        self.target = t.to_array();
    }

    /// Zoom by a wheel movement of `scroll` points (positive = closer).
    pub fn zoom(&mut self, scroll: f32) {
        let factor = (-scroll * 0.0015).exp();
        let base = if self.distance.abs() < 0.05 {
            -0.05
        } else {
            self.distance
        };
        let d = base * factor;
        self.distance = d.signum() * d.abs().clamp(0.05, 50_000.0);
    }
}

// ----------------------------------------------------------------- frustum

/// A camera's viewing volume cut `depth` units in front of its eye, for
/// drawing it in another view: a pyramid from the eye (perspective) or a
/// box (orthographic), its cross-section the picture's shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frustum {
    pub eye: Vec3,
    /// Where the four side edges start: the eye (perspective) or the
    /// corners of the picture at the eye (orthographic); same order as `far`.
    pub near: [Vec3; 4],
    /// The corners at `depth`: bottom-left, bottom-right, top-right,
    /// top-left as the camera sees them.
    pub far: [Vec3; 4],
    /// A small triangle on the far top edge (left foot, tip, right foot):
    /// which way is up (roll).
    pub up_mark: [Vec3; 3],
    pub perspective: bool,
}

impl Frustum {
    /// `cam`'s frustum for a picture of `aspect` = width / height, cut at
    /// `depth` units: the far corners project to the picture's corners
    /// through `cam.view_proj(aspect)`. The orthographic half-height is
    /// the projection's (`|distance|·tan(fov/2)`, at least 0.1).
    pub fn of(cam: &ViewCamera, aspect: f32, depth: f32) -> Frustum {
        let eye = cam.eye();
        let (right, up, fwd) = cam.basis();
        let aspect = if aspect.is_finite() {
            aspect.max(1e-3)
        } else {
            1.0
        };
        let half_h = if cam.perspective {
            depth * (cam.fov.to_radians().clamp(0.01, 3.1) * 0.5).tan()
        } else {
            (cam.distance.abs() * (cam.fov.to_radians() * 0.5).tan()).max(0.1)
        };
        let half_w = half_h * aspect;
        let rect = |centre: Vec3| {
            [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .map(|(x, y)| centre + right * (x * half_w) + up * (y * half_h))
        };
        let far_centre = eye + fwd * depth;
        let far = rect(far_centre);
        let near = if cam.perspective { [eye; 4] } else { rect(eye) };
        let top = far_centre + up * half_h;
        Frustum {
            eye,
            near,
            far,
            up_mark: [
                top - right * (half_w * 0.2),
                top + up * (half_h * 0.35),
                top + right * (half_w * 0.2),
            ],
            perspective: cam.perspective,
        }
    }

    /// The wire: four side edges, the far rectangle, and (orthographic)
    /// the near rectangle.
    pub fn edges(&self) -> Vec<[Vec3; 2]> {
        let mut out = Vec::with_capacity(12);
        for k in 0..4 {
            out.push([self.near[k], self.far[k]]);
            out.push([self.far[k], self.far[(k + 1) % 4]]);
            if !self.perspective {
                out.push([self.near[k], self.near[(k + 1) % 4]]);
            }
        }
        out
    }
}

// -------------------------------------------------------------- projection

/// A rectangle on the screen in pixels (points): `min` is the top-left
/// corner, `max` the bottom-right; screen y grows downwards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScreenRect {
    pub min: Vec2,
    pub max: Vec2,
}

impl ScreenRect {
    /// The rectangle from its top-left and bottom-right corners.
    pub fn from_min_max(min: Vec2, max: Vec2) -> ScreenRect {
        ScreenRect { min, max }
    }

    /// The rectangle of `size` centred on `center`.
    pub fn from_center_size(center: Vec2, size: Vec2) -> ScreenRect {
        ScreenRect {
            min: center - size * 0.5,
            max: center + size * 0.5,
        }
    }

    pub fn center(&self) -> Vec2 {
        (self.min + self.max) * 0.5
    }

    pub fn width(&self) -> f32 {
        self.max.x - self.min.x
    }

    pub fn height(&self) -> f32 {
        self.max.y - self.min.y
    }

    /// The largest rectangle of `aspect` (width / height) centred in this
    /// one (16:9 when `aspect` is not a positive number).
    pub fn fit_aspect(&self, aspect: f32) -> ScreenRect {
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            16.0 / 9.0
        };
        let (w, h) = (self.width(), self.height());
        let size = if w / h.max(1e-3) > aspect {
            Vec2::new(h * aspect, h)
        } else {
            Vec2::new(w, w / aspect)
        };
        ScreenRect::from_center_size(self.center(), size)
    }
}

/// Clip-space point → screen point in `rect`: NDC x to the right, NDC y up.
fn clip_to_screen(c: Vec4, rect: ScreenRect) -> Option<Vec2> {
    if c.w.abs() < 1e-12 {
        return None;
    }
    let (x, y) = (c.x / c.w, c.y / c.w);
    let p = Vec2::new(
        rect.center().x + x * rect.width() * 0.5,
        rect.center().y - y * rect.height() * 0.5,
    );
    p.is_finite().then_some(p)
}

/// Screen position of MMD-space point `p`, or `None` behind the near plane.
pub fn project_point(view_proj: &Mat4, p: Vec3, rect: ScreenRect) -> Option<Vec2> {
    let c = *view_proj * p.extend(1.0);
    if !(c.z >= 0.0 && c.w > 0.0) {
        return None;
    }
    clip_to_screen(c, rect)
}

/// Screen end points of the segment `a`–`b`, clipped against the near plane
/// (clip z ≥ 0), or `None` when it lies wholly behind it.
pub fn project_segment(view_proj: &Mat4, a: Vec3, b: Vec3, rect: ScreenRect) -> Option<[Vec2; 2]> {
    let ca = *view_proj * a.extend(1.0);
    let cb = *view_proj * b.extend(1.0);
    let (da, db) = (ca.z, cb.z);
    if !(da >= 0.0 || db >= 0.0) {
        return None;
    }
    let cut = |from: Vec4, to: Vec4, df: f32, dt: f32| {
        let t = df / (df - dt);
        from + (to - from) * t
    };
    let ca2 = if da < 0.0 { cut(ca, cb, da, db) } else { ca };
    let cb2 = if db < 0.0 { cut(cb, ca, db, da) } else { cb };
    if ca2.w <= 0.0 || cb2.w <= 0.0 {
        return None;
    }
    Some([clip_to_screen(ca2, rect)?, clip_to_screen(cb2, rect)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> ScreenRect {
        ScreenRect::from_min_max(Vec2::ZERO, Vec2::new(200.0, 200.0))
    }

    #[test]
    fn front_view_puts_the_target_at_the_centre_and_plus_x_on_the_right() {
        let c = ViewCamera::FRONT;
        let vp = c.view_proj(1.0);
        // The target projects to the centre of the square.
        let t = project_point(&vp, Vec3::new(0.0, 10.0, 0.0), square());
        assert!(
            t.is_some_and(|p| (p - Vec2::new(100.0, 100.0)).length() < 1e-3),
            "{t:?}"
        );
        // Eye at (0, 10, −45) looking +Z: +X (the model's left) is on the
        // viewer's right, +Y is up (smaller screen y).
        let r = project_point(&vp, Vec3::new(1.0, 10.0, 0.0), square());
        assert!(
            r.is_some_and(|p| p.x > 100.0 && (p.y - 100.0).abs() < 1e-3),
            "{r:?}"
        );
        let u = project_point(&vp, Vec3::new(0.0, 11.0, 0.0), square());
        assert!(u.is_some_and(|p| p.y < 100.0), "{u:?}");
        // Behind the eye: not visible.
        assert_eq!(
            project_point(&vp, Vec3::new(0.0, 10.0, -60.0), square()),
            None
        );
    }

    #[test]
    fn a_point_at_the_edge_of_the_field_of_view_lands_on_the_border() {
        // fov 90°, distance −10: at the target's depth the half height is
        // 10·tan 45° = 10 units, so (0, 10, 0) is at the top edge (y = 0).
        let c = ViewCamera {
            target: [0.0; 3],
            rotation: [0.0; 3],
            distance: -10.0,
            fov: 90.0,
            perspective: true,
        };
        let p = project_point(&c.view_proj(1.0), Vec3::new(0.0, 10.0, 0.0), square());
        assert!(
            p.is_some_and(|p| (p - Vec2::new(100.0, 0.0)).length() < 1e-2),
            "{p:?}"
        );
    }

    #[test]
    fn segment_through_the_eye_plane_is_clipped() {
        let vp = ViewCamera::FRONT.view_proj(1.0);
        // From the target back past the eye (z = −45) to z = −100.
        let seg = project_segment(
            &vp,
            Vec3::new(0.0, 10.0, 0.0),
            Vec3::new(0.0, 10.0, -100.0),
            square(),
        );
        let Some([a, b]) = seg else {
            panic!("the front half is visible");
        };
        assert!((a - Vec2::new(100.0, 100.0)).length() < 1e-3);
        assert!(b.is_finite());
        // Wholly behind the eye: nothing.
        let behind = project_segment(
            &vp,
            Vec3::new(0.0, 10.0, -60.0),
            Vec3::new(1.0, 10.0, -70.0),
            square(),
        );
        assert_eq!(behind, None);
    }

    #[test]
    fn fit_aspect_fits_inside_and_centres() {
        let outer = ScreenRect::from_min_max(Vec2::new(10.0, 20.0), Vec2::new(1010.0, 420.0));
        let f = outer.fit_aspect(16.0 / 9.0);
        // Height-limited: 400 high, 711.1 wide, centred.
        assert!((f.height() - 400.0).abs() < 1e-3);
        assert!((f.width() - 400.0 * 16.0 / 9.0).abs() < 1e-3);
        assert!((f.center() - outer.center()).length() < 1e-3);
        assert!((outer.fit_aspect(9.0 / 16.0).width() - 225.0).abs() < 1e-3);
        // Width-limited: 300 wide → 168.75 high.
        let tall =
            ScreenRect::from_min_max(Vec2::ZERO, Vec2::new(300.0, 900.0)).fit_aspect(16.0 / 9.0);
        assert!((tall.width() - 300.0).abs() < 1e-3 && (tall.height() - 168.75).abs() < 1e-3);
        // A nonsense aspect falls back to 16:9.
        assert_eq!(outer.fit_aspect(f32::NAN), f);
    }

    #[test]
    fn pan_keeps_the_point_under_the_pointer() {
        // Dragging right by dx pixels moves the target left by dx·(units per
        // pixel), so the scene follows the pointer.
        let mut c = ViewCamera::FRONT;
        let upp = c.units_per_pixel(200.0);
        // 2·45·tan 15° / 200 units per pixel.
        let want = 2.0 * 45.0 * 15f32.to_radians().tan() / 200.0;
        assert!((upp - want).abs() < 1e-6, "{upp} vs {want}");
        c.pan(10.0, 0.0, 200.0);
        assert!((c.target[0] + 10.0 * want).abs() < 1e-5, "{:?}", c.target);
        let before = project_point(
            &ViewCamera::FRONT.view_proj(1.0),
            Vec3::new(0.0, 10.0, 0.0),
            square(),
        );
        let after = project_point(&c.view_proj(1.0), Vec3::new(0.0, 10.0, 0.0), square());
        let (Some(b), Some(a)) = (before, after) else {
            panic!("the target stays visible");
        };
        assert!(((a.x - b.x) - 10.0).abs() < 1e-2, "{b:?} → {a:?}");
    }

    /// A camera that is not on an axis: turned, rolled, off the origin.
    fn tilted(perspective: bool) -> ViewCamera {
        ViewCamera {
            target: [3.0, 12.0, -4.0],
            rotation: [0.3, -0.8, 0.25],
            distance: -30.0,
            fov: 40.0,
            perspective,
        }
    }

    #[test]
    fn the_frustum_corners_are_the_pictures_corners_seen_through_the_camera() {
        // Independent check: through the camera's own projection (the one
        // the VMD-camera view draws with) the far corners land on the
        // picture's corners, in the order bottom-left, bottom-right,
        // top-right, top-left; for 16:9, 4:3, 9:16; perspective and
        // orthographic.
        let pic = ScreenRect::from_min_max(Vec2::ZERO, Vec2::new(320.0, 180.0));
        for perspective in [true, false] {
            for aspect in [16.0 / 9.0, 4.0 / 3.0, 9.0 / 16.0] {
                let cam = tilted(perspective);
                let f = Frustum::of(&cam, aspect, 5.0);
                let pic =
                    ScreenRect::from_center_size(pic.center(), Vec2::new(180.0 * aspect, 180.0));
                let vp = cam.view_proj(aspect);
                let want = [
                    Vec2::new(pic.min.x, pic.max.y),
                    Vec2::new(pic.max.x, pic.max.y),
                    Vec2::new(pic.max.x, pic.min.y),
                    Vec2::new(pic.min.x, pic.min.y),
                ];
                for (corner, want) in f.far.iter().zip(want) {
                    let got = project_point(&vp, *corner, pic);
                    assert!(
                        got.is_some_and(|g| (g - want).length() < 0.05),
                        "perspective {perspective}, aspect {aspect}: {got:?} vs {want:?}"
                    );
                }
                // The far face is `depth` in front of the eye.
                let (_, _, fwd) = cam.basis();
                let centre = f.far.iter().copied().sum::<Vec3>() / 4.0;
                assert!(((centre - f.eye).dot(fwd) - 5.0).abs() < 1e-4);
                // The up mark points up on the screen (smaller y).
                let foot = project_point(&vp, f.up_mark[0], pic).expect("foot");
                let tip = project_point(&vp, f.up_mark[1], pic).expect("tip");
                assert!(tip.y < foot.y, "{tip:?} {foot:?}");
            }
        }
    }

    #[test]
    fn a_perspective_frustum_is_a_pyramid_from_the_eye_and_an_orthographic_one_a_box() {
        let cam = tilted(true);
        // MMD's eye for this camera, computed here: target + R·(0, 0, d).
        let f = Frustum::of(&cam, 16.0 / 9.0, 6.0);
        assert!((f.eye - cam.eye()).length() < 1e-5);
        assert!(f.near.iter().all(|p| (*p - f.eye).length() < 1e-5));
        assert_eq!(f.edges().len(), 8, "4 sides + 4 far edges");
        // Half-height at depth 6 with fov 40°: 6·tan 20° = 2.1838.
        let h = (f.far[3] - f.far[0]).length() / 2.0;
        assert!((h - 6.0 * 20f32.to_radians().tan()).abs() < 1e-4, "{h}");
        let w = (f.far[1] - f.far[0]).length() / 2.0;
        assert!((w / h - 16.0 / 9.0).abs() < 1e-4);
        let o = Frustum::of(&tilted(false), 1.0, 6.0);
        assert_eq!(o.edges().len(), 12, "4 sides + far and near rectangles");
        // Orthographic half-height: |distance|·tan(fov/2) = 30·tan 20°.
        let oh = (o.near[3] - o.near[0]).length() / 2.0;
        assert!((oh - 30.0 * 20f32.to_radians().tan()).abs() < 1e-3, "{oh}");
        // A bad aspect cannot make a non-finite corner.
        for a in [f32::NAN, 0.0, f32::INFINITY] {
            let b = Frustum::of(&cam, a, 6.0);
            assert!(b.far.iter().all(|p| p.is_finite()), "{a}");
        }
    }

    #[test]
    fn a_positive_orbit_distance_is_a_length_in_front_of_the_target() {
        // `--view free:0,0,30`: the eye 30 units in front of the target,
        // on the model's front side (−Z; the model faces −Z), looking at
        // it — the same view as MMD's signed −30.
        let t = [0.0, 10.0, 0.0];
        let pos = ViewCamera::orbiting(0.0, 0.0, 30.0, t);
        let neg = ViewCamera::orbiting(0.0, 0.0, -30.0, t);
        assert_eq!(pos, neg);
        assert!((pos.eye() - Vec3::new(0.0, 10.0, -30.0)).length() < 1e-4);
        // The target is in the middle of the picture (not behind the eye).
        let p = project_point(&pos.view_proj(1.0), Vec3::from(t), square());
        assert!(p.is_some_and(|p| (p - Vec2::new(100.0, 100.0)).length() < 1e-3));
        // Turned 90° about Y the eye swings to a side, still 30 away.
        let side = ViewCamera::orbiting(0.0, 90.0, 30.0, t);
        assert!(((side.eye() - Vec3::from(t)).length() - 30.0).abs() < 1e-3);
        assert!(side.eye().x.abs() > 29.0);
    }
}
