//! MMD's two shadows as plain math: the ground shadow (地面影, each model's
//! silhouette flattened onto the floor y = 0 along the light) and the
//! self-shadow (セルフ影, a shadow map seen from the light, whose mode and
//! reach come from the camera motion's self-shadow track). Pure: the
//! renderer only draws what is computed here.
//!
//! Coordinates are MMD's (left-handed, Y up). Light directions are the
//! direction the light *travels* (a VMD light key's vector), as in
//! [`crate::render`]'s `Light`.
//!
//! The formulas follow nanoem (hkrn/nanoem, MPL-2.0), the open
//! re-implementation of MMD's renderer: `DirectionalLight::getShadowTransform`
//! and `groundShadowColor`, `ShadowCamera::getViewMatrix` /
//! `getProjectionMatrix`, and the coverage test of `shadow.hlsl`.

use glam::{Mat4, Vec3, Vec4};

use crate::vmd::{Motion, TrackIndex, evaluate};

/// The matrix that flattens a point onto the floor y = 0 along the light:
/// `p ↦ p − (p.y / l.y)·l` for the direction `l` the light travels, as a
/// homogeneous matrix (w = −l.y, so the divide gives the point). `None`
/// when the light does not come from above (no shadow falls on the floor),
/// or the direction is not finite.
///
/// nanoem's `DirectionalLight::getShadowTransform` with position = −l:
/// rows (d, −px, 0, 0), (0, 0, 0, 0), (0, −pz, d, 0), (0, 0, 0, d), d = p.y.
pub fn ground_shadow_matrix(light_direction: [f32; 3]) -> Option<Mat4> {
    let l = Vec3::from(light_direction);
    if !l.is_finite() || l.length_squared() < 1e-12 {
        return None;
    }
    let p = -l.normalize();
    // A light grazing the floor throws shadows to infinity; MMD's would be
    // a sliver to the horizon. Below ~0.6° there is no ground shadow.
    if p.y <= 0.01 {
        return None;
    }
    let d = p.y;
    Some(Mat4::from_cols(
        Vec4::new(d, 0.0, 0.0, 0.0),
        Vec4::new(-p.x, 0.0, -p.z, 0.0),
        Vec4::new(0.0, 0.0, d, 0.0),
        Vec4::new(0.0, 0.0, 0.0, d),
    ))
}

/// The ground shadow's RGBA: MMD draws it in the light's colour (nanoem's
/// `groundShadowColor()` returns the light colour), opaque, or half
/// transparent with MMD's "translucent ground shadow" option (alpha
/// `1 − 0.5`, nanoem `ModelProgramBundle::setGroundShadowParameters`).
/// The renderer multiplies the picture under the shadow by
/// `mix(1, rgb, a)` (issue 38.6): on MMD's white background that is MMD's
/// colour exactly (`255 · rgb`, or `(255 + 255 · rgb) / 2` translucent),
/// and on any other background the shadow is darker than what it falls on
/// instead of a light ghost.
/// Non-finite channels become 0; channels are clamped to 0..1.
pub fn ground_shadow_colour(light_colour: [f32; 3], translucent: bool) -> [f32; 4] {
    let c = light_colour.map(|c| {
        if c.is_finite() {
            c.clamp(0.0, 1.0)
        } else {
            0.0
        }
    });
    [c[0], c[1], c[2], if translucent { 0.5 } else { 1.0 }]
}

/// The self-shadow's projection mode (a VMD self-shadow key's mode byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SelfShadowMode {
    /// No self-shadow: toon shading from N·L alone.
    Off,
    /// Mode 1: the map reaches a fixed distance ahead of the camera.
    #[default]
    Mode1,
    /// Mode 2: a stronger perspective warp, reaching to infinity with
    /// sharper shadows near the camera.
    Mode2,
}

impl SelfShadowMode {
    /// From a key's mode byte: 0 off, 1, 2; anything else is off (as
    /// nanoem's `ShadowCamera::setCoverageMode`).
    pub fn from_byte(b: u8) -> Self {
        match b {
            1 => SelfShadowMode::Mode1,
            2 => SelfShadowMode::Mode2,
            _ => SelfShadowMode::Off,
        }
    }

    /// The number the shader gets: 0, 1 or 2.
    pub fn code(self) -> f32 {
        match self {
            SelfShadowMode::Off => 0.0,
            SelfShadowMode::Mode1 => 1.0,
            SelfShadowMode::Mode2 => 2.0,
        }
    }
}

/// The self-shadow setting at one moment: mode and the stored distance.
///
/// `distance` is the value a VMD self-shadow key stores, which is the
/// scale of MMD's shadow projection directly: MMD's dialog shows
/// `10000 − stored·100000` (its "影範囲", 0..10000, default 8875), and the
/// projection uses `(10000 − shown) / 100000`, i.e. the stored value. See
/// nanoem `ShadowCamera::getProjectionMatrix`
/// (`distance = (10000.0f - m_distance) / 100000.0f`) and
/// `internal/project/PMM.cc` (`10000 - …SelfShadowKeyframeGetDistance(ko) *
/// 100000`). A larger stored value shrinks the area the map covers (sharper
/// shadows near the camera); 0.01125 (shown 8875) is MMD's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfShadow {
    pub mode: SelfShadowMode,
    /// Stored distance, 0..=0.1 (shown 10000..=0).
    pub distance: f32,
}

impl SelfShadow {
    /// MMD's start-up self-shadow: mode 1, shown distance 8875.
    pub const MMD_DEFAULT: SelfShadow = SelfShadow {
        mode: SelfShadowMode::Mode1,
        distance: 0.01125,
    };
    pub const OFF: SelfShadow = SelfShadow {
        mode: SelfShadowMode::Off,
        distance: 0.01125,
    };

    /// From a key's mode byte and stored distance; a distance that is not
    /// finite falls back to the default, others are clamped to 0..=0.1
    /// (the dialog's 10000..=0).
    pub fn from_key(mode: u8, distance: f32) -> Self {
        let distance = if distance.is_finite() {
            distance.clamp(0.0, 0.1)
        } else {
            Self::MMD_DEFAULT.distance
        };
        SelfShadow {
            mode: SelfShadowMode::from_byte(mode),
            distance,
        }
    }

    /// The distance as MMD's dialog shows it (0..10000).
    pub fn shown_distance(&self) -> f32 {
        10000.0 - self.distance * 100_000.0
    }

    pub fn is_on(&self) -> bool {
        self.mode != SelfShadowMode::Off
    }
}

impl Default for SelfShadow {
    fn default() -> Self {
        Self::MMD_DEFAULT
    }
}

/// The self-shadow a motion's track sets at `frame` (fractional allowed):
/// the last key at or before it, held, as MMD plays the track (a
/// self-shadow key has no interpolation curve; nanoem's
/// `Project::synchronizeSelfShadow` applies a key on its frame and keeps it
/// until the next). Before the first key, the first key. `None` without
/// keys.
pub fn self_shadow_at(motion: &Motion, index: &TrackIndex, frame: f64) -> Option<SelfShadow> {
    evaluate::shadow_at(motion, index, frame).map(|(m, d)| SelfShadow::from_key(m, d))
}

/// The scene's self-shadow at `frame`: the camera motion's track (MMD
/// saves camera, light and self-shadow keys in one file), else the light
/// motion's, else MMD's default.
pub fn scene_self_shadow(
    camera: Option<(&Motion, &TrackIndex)>,
    light: Option<(&Motion, &TrackIndex)>,
    frame: f64,
) -> SelfShadow {
    camera
        .and_then(|(m, i)| self_shadow_at(m, i, frame))
        .or_else(|| light.and_then(|(m, i)| self_shadow_at(m, i, frame)))
        .unwrap_or_default()
}

/// The light's view for the shadow map (nanoem
/// `ShadowCamera::getViewMatrix`): axes x = cross(camera forward, light),
/// y = cross(light, x) (the camera's forward direction across the light),
/// z = the light's direction; origin 50 units up the light from the eye.
/// Left-handed like the camera's view: +z is where the light goes.
pub fn light_view(eye: Vec3, forward: Vec3, light_direction: Vec3) -> Mat4 {
    let l = unit_or(light_direction, Vec3::new(-0.5, -1.0, 0.5).normalize());
    let f = unit_or(forward, Vec3::Z);
    let mut x = f.cross(l);
    if x.length_squared() < 1e-10 {
        // Looking along the light: any axis across it will do.
        x = l.any_orthonormal_vector();
    }
    let x = x.normalize();
    let y = l.cross(x);
    let origin = eye - l * 50.0;
    Mat4::from_cols(
        Vec4::new(x.x, y.x, l.x, 0.0),
        Vec4::new(x.y, y.y, l.y, 0.0),
        Vec4::new(x.z, y.z, l.z, 0.0),
        Vec4::new(-x.dot(origin), -y.dot(origin), -l.dot(origin), 1.0),
    )
}

fn unit_or(v: Vec3, fallback: Vec3) -> Vec3 {
    if v.is_finite() && v.length_squared() > 1e-12 {
        v.normalize()
    } else {
        fallback
    }
}

/// MMD's shadow-map projection (nanoem `ShadowCamera::getProjectionMatrix`),
/// in light-view coordinates (v) from [`light_view`]: with s = the stored
/// distance,
///
/// * mode 1: x' = 2s·vx, y' = 2s·vy − 1, z' = 0.5s·vy + 0.15s·vz,
///   w' = s·vy + 1;
/// * mode 2: x' = 3s·vx, y' = 3s·vy − 1, z' = 1.5s·vy + 0.15s·vz,
///   w' = 3s·vy + 1;
///
/// a perspective warp along the camera's forward direction that spends the
/// map's resolution near the eye (the eye sits on the map's bottom edge,
/// y = −1). When the camera looks nearly along the light
/// (a = |forward·light| > 0.8) the warp fades out, and above 0.9 it is
/// x' = s·vx, y' = s·vy + (a − 1), z' = 0.5s(1 − a)·vy + 0.15s·vz,
/// w' = s(1 − a)·vy + 1. Clip z is MMD's (−1..1 before the divide's
/// `·0.5 + 0.5`); see [`shadow_map_matrix`] for the 0..1 form.
pub fn light_projection(shadow: SelfShadow, forward: Vec3, light_direction: Vec3) -> Mat4 {
    let s = shadow.distance;
    let l = unit_or(light_direction, Vec3::new(-0.5, -1.0, 0.5).normalize());
    let f = unit_or(forward, Vec3::Z);
    let a = f.dot(l).abs();
    // Rows as (x', y', z', w') coefficients of (vx, vy, vz, 1); glam wants
    // columns: column j holds the coefficients of input j.
    let (mut sx, mut sy, mut zy, mut wy, mut y1) = match shadow.mode {
        SelfShadowMode::Mode2 => (3.0 * s, 3.0 * s, 1.5 * s, 3.0 * s, -1.0),
        _ => (2.0 * s, 2.0 * s, 0.5 * s, s, -1.0),
    };
    let (c0, c1, c2) = match shadow.mode {
        SelfShadowMode::Mode2 => (3.0, -4.7, 1.8),
        _ => (1.0, -1.3, 0.4),
    };
    if a > 0.9 {
        sx = s;
        sy = s;
        zy = 0.5 * s * (1.0 - a);
        wy = s * (1.0 - a);
        y1 = a - 1.0;
    } else if a > 0.8 {
        let t = 10.0 * (a - 0.8);
        sx += (s - sx) * t;
        sy += (s - sy) * t;
        wy = s * (c0 + c1 * t + c2 * t * t);
        zy = 0.5 * wy;
        y1 = -1.0 + 0.9 * t;
    }
    Mat4::from_cols(
        Vec4::new(sx, 0.0, 0.0, 0.0),
        Vec4::new(0.0, sy, zy, wy),
        Vec4::new(0.0, 0.0, 0.15 * s, 0.0),
        Vec4::new(0.0, y1, 0.0, 1.0),
    )
}

/// World → shadow-map clip space for a 0..1 depth buffer: MMD's projection
/// × light view, with z remapped as MMD's crop matrix does (`z·0.5 + 0.5`,
/// before the divide), so the depth a GPU stores is the value MMD compares.
/// The map's texture coordinate of a point is (x/w·0.5 + 0.5,
/// 0.5 − y/w·0.5) (v down, as Direct3D's crop).
pub fn shadow_map_matrix(shadow: SelfShadow, eye: Vec3, forward: Vec3, light: Vec3) -> Mat4 {
    let crop = Mat4::from_cols(
        Vec4::new(1.0, 0.0, 0.0, 0.0),
        Vec4::new(0.0, 1.0, 0.0, 0.0),
        Vec4::new(0.0, 0.0, 0.5, 0.0),
        Vec4::new(0.0, 0.0, 0.5, 1.0),
    );
    crop * light_projection(shadow, forward, light) * light_view(eye, forward, light)
}

/// How lit a receiver is (1 lit, 0 in shadow) from its depth and the
/// map's depth at its texel, both 0..1 as stored (`shadow.hlsl`'s
/// `shadowCoverage`, MME's full.fx): `1 − saturate((receiver − map)·k − 0.3)`,
/// k = 1500 in mode 1, 8000·v in mode 2 (v the map's texture row, 1 at the
/// eye's edge). The −0.3 keeps a surface from shadowing itself. The shader
/// computes the same; this twin is for tests and documentation.
pub fn coverage(mode: SelfShadowMode, receiver: f32, map: f32, v: f32) -> f32 {
    let diff = (receiver - map).clamp(0.0, 1.0);
    let k = match mode {
        SelfShadowMode::Off => return 1.0,
        SelfShadowMode::Mode1 => 1500.0,
        SelfShadowMode::Mode2 => 8000.0 * v,
    };
    1.0 - (diff * k - 0.3).clamp(0.0, 1.0)
}

/// The self-shadow map's size in texels per side (MMD's default, nanoem
/// `ShadowCamera::kInitialTextureSize`).
pub const SHADOW_MAP_SIZE: u32 = 2048;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmd::records::ShadowKey;

    fn apply(m: Mat4, p: Vec3) -> Vec3 {
        let h = m * p.extend(1.0);
        h.truncate() / h.w
    }

    #[test]
    fn ground_matrix_flattens_along_mmds_default_light() {
        // Light travels (−0.5, −1, 0.5): towards the light is (0.5, 1, −0.5).
        // (1, 2, 3) slides 2 units down that line: (1 − 1, 0, 3 + 1).
        let m = ground_shadow_matrix([-0.5, -1.0, 0.5]).unwrap();
        let q = apply(m, Vec3::new(1.0, 2.0, 3.0));
        assert!((q - Vec3::new(0.0, 0.0, 4.0)).length() < 1e-5, "{q}");
        // A point on the floor stays where it is.
        let q = apply(m, Vec3::new(-3.0, 0.0, 7.0));
        assert!((q - Vec3::new(-3.0, 0.0, 7.0)).length() < 1e-5, "{q}");
        // Straight down: x and z unchanged, y flattened.
        let m = ground_shadow_matrix([0.0, -2.0, 0.0]).unwrap();
        let q = apply(m, Vec3::new(4.0, 9.0, -1.0));
        assert!((q - Vec3::new(4.0, 0.0, -1.0)).length() < 1e-5, "{q}");
    }

    #[test]
    fn no_ground_shadow_from_a_light_below_or_level() {
        assert!(ground_shadow_matrix([0.0, 1.0, 0.0]).is_none());
        assert!(ground_shadow_matrix([1.0, 0.0, 0.0]).is_none());
        assert!(ground_shadow_matrix([0.0, 0.0, 0.0]).is_none());
        assert!(ground_shadow_matrix([f32::NAN, -1.0, 0.0]).is_none());
    }

    #[test]
    fn ground_colour_is_the_light_colour() {
        assert_eq!(
            ground_shadow_colour([0.6, 0.5, 0.4], false),
            [0.6, 0.5, 0.4, 1.0]
        );
        assert_eq!(
            ground_shadow_colour([2.0, f32::NAN, -1.0], true),
            [1.0, 0.0, 0.0, 0.5]
        );
    }

    #[test]
    fn stored_distance_maps_to_the_dialogs_numbers() {
        let s = SelfShadow::from_key(1, 0.01125);
        assert_eq!(s.mode, SelfShadowMode::Mode1);
        assert!((s.shown_distance() - 8875.0).abs() < 0.01);
        assert_eq!(SelfShadow::from_key(2, 0.0).shown_distance(), 10000.0);
        assert_eq!(SelfShadow::from_key(7, 0.05).mode, SelfShadowMode::Off);
        assert_eq!(SelfShadow::from_key(1, 5.0).distance, 0.1);
        assert_eq!(SelfShadow::from_key(1, f32::NAN).distance, 0.01125);
    }

    #[test]
    fn track_holds_each_key_until_the_next() {
        let mut m = Motion::default();
        m.shadows.push(ShadowKey::new(0, 0, 0.01125));
        m.shadows.push(ShadowKey::new(10, 2, 0.02));
        m.shadows.push(ShadowKey::new(20, 1, 0.03));
        let idx = TrackIndex::build(&m);
        let at = |f| self_shadow_at(&m, &idx, f).unwrap();
        assert_eq!(at(0.0).mode, SelfShadowMode::Off);
        assert_eq!(at(9.99).mode, SelfShadowMode::Off);
        assert_eq!(at(10.0).mode, SelfShadowMode::Mode2);
        assert_eq!(at(10.0).distance, 0.02);
        // No blending of the distance between keys.
        assert_eq!(at(15.0).distance, 0.02);
        assert_eq!(at(25.0), SelfShadow::from_key(1, 0.03));
        // The camera's track wins over the light's; neither: MMD's default.
        let empty = Motion::default();
        let empty_idx = TrackIndex::build(&empty);
        let s = scene_self_shadow(Some((&empty, &empty_idx)), Some((&m, &idx)), 12.0);
        assert_eq!(s.mode, SelfShadowMode::Mode2);
        let s = scene_self_shadow(Some((&m, &idx)), None, 5.0);
        assert_eq!(s.mode, SelfShadowMode::Off);
        assert_eq!(scene_self_shadow(None, None, 5.0), SelfShadow::MMD_DEFAULT);
    }

    #[test]
    fn light_view_puts_the_eye_50_units_down_the_light() {
        // Camera at (0, 30, −30) looking at the origin; light straight down.
        let eye = Vec3::new(0.0, 30.0, -30.0);
        let fwd = (Vec3::ZERO - eye).normalize();
        let v = light_view(eye, fwd, Vec3::new(0.0, -1.0, 0.0));
        // By hand: y axis = forward across the light = +Z, z axis = −Y,
        // origin (0, 80, −30): the eye is at light depth 50, vy 0.
        let e = apply(v, eye);
        assert!((e - Vec3::new(0.0, 0.0, 50.0)).length() < 1e-4, "{e}");
        // The origin: 30 ahead (z + 30), 80 down the light.
        let o = apply(v, Vec3::ZERO);
        assert!(
            (o.y - 30.0).abs() < 1e-4 && (o.z - 80.0).abs() < 1e-4,
            "{o}"
        );
        assert!(o.x.abs() < 1e-4);
        // One unit along +X moves ±1 in vx (x axis is across both).
        let p = apply(v, Vec3::X);
        assert!(((p.x - o.x).abs() - 1.0).abs() < 1e-4, "{p}");
    }

    #[test]
    fn mode1_projection_by_hand() {
        let s = SelfShadow::MMD_DEFAULT; // 0.01125
        let fwd = Vec3::new(0.0, -1.0, 1.0).normalize();
        let p = light_projection(s, fwd, Vec3::new(0.0, -1.0, 0.0));
        // a = |fwd·l| = 0.707 < 0.8: the plain mode-1 matrix.
        // v = (4, 30, 80): x' = 0.0225·4 = 0.09, y' = 0.0225·30 − 1 = −0.325,
        // z' = 0.005625·30 + 0.0016875·80 = 0.30375, w' = 0.3375 + 1.
        let h = p * Vec4::new(4.0, 30.0, 80.0, 1.0);
        let want = Vec4::new(0.09, -0.325, 0.30375, 1.3375);
        assert!((h - want).length() < 1e-5, "{h}");
        // The eye's row (vy = 0) is the map's bottom edge; vy = 2/s its top.
        let h = p * Vec4::new(0.0, 0.0, 50.0, 1.0);
        assert!((h.y / h.w + 1.0).abs() < 1e-6);
        let h = p * Vec4::new(0.0, 2.0 / 0.01125, 50.0, 1.0);
        assert!((h.y / h.w - 1.0).abs() < 1e-4);
    }

    #[test]
    fn mode2_projection_by_hand_and_the_near_parallel_case() {
        let s = SelfShadow::from_key(2, 0.01);
        let fwd = Vec3::new(0.0, 0.0, 1.0);
        let p = light_projection(s, fwd, Vec3::new(0.0, -1.0, 0.0));
        // x' = 0.03·1, y' = 0.03·10 − 1, z' = 0.015·10 + 0.0015·20, w' = 0.3 + 1.
        let h = p * Vec4::new(1.0, 10.0, 20.0, 1.0);
        let want = Vec4::new(0.03, -0.7, 0.18, 1.3);
        assert!((h - want).length() < 1e-5, "{h}");
        // Looking straight along the light (a = 1): orthographic, scale s.
        let p = light_projection(s, Vec3::new(0.0, -1.0, 0.0), Vec3::new(0.0, -1.0, 0.0));
        let h = p * Vec4::new(1.0, 10.0, 20.0, 1.0);
        let want = Vec4::new(0.01, 0.1, 0.03, 1.0);
        assert!((h - want).length() < 1e-6, "{h}");
    }

    #[test]
    fn map_matrix_depth_is_mmds_half_plus_half() {
        let s = SelfShadow::MMD_DEFAULT;
        let eye = Vec3::new(0.0, 30.0, -30.0);
        let fwd = (Vec3::ZERO - eye).normalize();
        let l = Vec3::new(0.0, -1.0, 0.0);
        let m = shadow_map_matrix(s, eye, fwd, l);
        // The origin: v = (0, 30, 80) → ndc z = 0.30375 / 1.3375; stored
        // depth = that · 0.5 + 0.5.
        let q = apply(m, Vec3::ZERO);
        let z = 0.30375 / 1.3375;
        assert!((q.z - (z * 0.5 + 0.5)).abs() < 1e-5, "{q}");
        // A caster 5 units above is 5 units less deep along the light:
        // Δdepth = 0.5 · 0.15 · 0.01125 · 5 / 1.3375 (same vy).
        let c = apply(m, Vec3::new(0.0, 5.0, 0.0));
        let want = 0.5 * 0.15 * 0.01125 * 5.0 / 1.3375;
        assert!(((q.z - c.z) - want).abs() < 1e-6, "{} vs {want}", q.z - c.z);
        // …which MMD's coverage counts as full shadow (0.0032·1500 − 0.3 > 1).
        assert_eq!(coverage(SelfShadowMode::Mode1, q.z, c.z, 0.5), 0.0);
        // The same surface does not shadow itself.
        assert_eq!(coverage(SelfShadowMode::Mode1, q.z, q.z, 0.5), 1.0);
        assert_eq!(coverage(SelfShadowMode::Off, 1.0, 0.0, 0.5), 1.0);
        // Partial: diff 0.0004 → 1 − (0.6 − 0.3) = 0.7.
        assert!((coverage(SelfShadowMode::Mode1, 0.5004, 0.5, 0.5) - 0.7).abs() < 1e-3);
    }
}
