//! MMD's ground shadow and self-shadow through the real renderer, offscreen.
//! Expected pixels come from hand computation here: the ground shadow's
//! footprint is each box triangle slid along the light onto y = 0 by the
//! test's own formula and rasterised on the CPU; the self-shadow's footprint
//! is the caster's outline straight below it (light straight down), and the
//! shaded values are MMD's formula worked out by hand.
//! Needs a GPU adapter (Mesa's lavapipe is enough); skipped without one,
//! except under CI=true.
#![cfg(feature = "render")]

mod render_support;

use glam::{Mat4, Vec3, Vec4};
use render_support::*;
use vmd_studio::render::{
    Light, RenderMaterial, RenderMesh, RenderVertex, SelfShadow, Shadows, TextureRgba, ViewParams,
};
use vmd_studio::scene::shadow::scene_self_shadow;
use vmd_studio::vmd::{Motion, ShadowKey, TrackIndex};

const W: u32 = 160;
const H: u32 = 160;

/// A left-handed view (x right, y up, z forward) from `eye` to `target`.
fn look(eye: Vec3, target: Vec3, up: Vec3) -> ViewParams {
    let f = (target - eye).normalize();
    let r = up.cross(f).normalize();
    let u = f.cross(r);
    let view = Mat4::from_cols(
        Vec4::new(r.x, u.x, f.x, 0.0),
        Vec4::new(r.y, u.y, f.y, 0.0),
        Vec4::new(r.z, u.z, f.z, 0.0),
        Vec4::new(-r.dot(eye), -u.dot(eye), -f.dot(eye), 1.0),
    );
    ViewParams {
        view,
        projection: vmd_studio::vmd::camera::projection_matrix(
            30.0,
            W as f32 / H as f32,
            true,
            -(eye - target).length(),
        ),
        eye,
    }
}

/// A box from `lo` to `hi` (12 triangles, drawn from both sides).
fn cuboid(lo: Vec3, hi: Vec3, material: RenderMaterial) -> RenderMesh {
    let c = |x: bool, y: bool, z: bool| {
        Vec3::new(
            if x { hi.x } else { lo.x },
            if y { hi.y } else { lo.y },
            if z { hi.z } else { lo.z },
        )
    };
    let corners: Vec<Vec3> = (0..8)
        .map(|i| c(i & 1 != 0, i & 2 != 0, i & 4 != 0))
        .collect();
    let vertices = corners
        .iter()
        .map(|p| RenderVertex::new(p.to_array(), [0.0, 1.0, 0.0], [0.0, 0.0]))
        .collect();
    // Faces as corner quads (bits: x=1, y=2, z=4).
    let faces = [
        [0, 1, 3, 2], // z = lo
        [4, 5, 7, 6], // z = hi
        [0, 2, 6, 4], // x = lo
        [1, 3, 7, 5], // x = hi
        [0, 1, 5, 4], // y = lo
        [2, 3, 7, 6], // y = hi
    ];
    let indices: Vec<u32> = faces
        .iter()
        .flat_map(|f| [f[0], f[1], f[2], f[0], f[2], f[3]])
        .collect();
    RenderMesh {
        vertices,
        materials: vec![RenderMaterial {
            index_count: indices.len() as u32,
            double_sided: true,
            ..material
        }],
        indices,
        textures: vec![],
    }
}

/// A horizontal square at height `y`, facing up, drawn from both sides.
fn plate(half: f32, y: f32, material: RenderMaterial) -> RenderMesh {
    let n = [0.0, 1.0, 0.0];
    let vertices = vec![
        RenderVertex::new([-half, y, -half], n, [0.0, 0.0]),
        RenderVertex::new([-half, y, half], n, [0.0, 1.0]),
        RenderVertex::new([half, y, half], n, [1.0, 1.0]),
        RenderVertex::new([half, y, -half], n, [1.0, 0.0]),
    ];
    RenderMesh {
        vertices,
        indices: vec![0, 1, 2, 0, 2, 3],
        materials: vec![RenderMaterial {
            index_count: 6,
            double_sided: true,
            ..material
        }],
        textures: vec![],
    }
}

fn positions(mesh: &RenderMesh) -> Vec<Vec3> {
    mesh.vertices
        .iter()
        .map(|v| Vec3::from(v.position))
        .collect()
}

fn count(mask: &[bool]) -> usize {
    mask.iter().filter(|b| **b).count()
}

/// Pixels whose colour is within `tol` of `rgb`.
fn matching(img: &TextureRgba, rgb: [u8; 3], tol: u8) -> Vec<bool> {
    img.pixels
        .chunks_exact(4)
        .map(|p| close([p[0], p[1], p[2], 255], [rgb[0], rgb[1], rgb[2], 255], tol))
        .collect()
}

/// `mask` shrunk by one pixel (a pixel stays when its 8 neighbours are set).
fn eroded(mask: &[bool], w: u32, h: u32) -> Vec<bool> {
    let at = |x: i64, y: i64| {
        x >= 0 && y >= 0 && x < w as i64 && y < h as i64 && mask[(y as u32 * w + x as u32) as usize]
    };
    (0..h as i64)
        .flat_map(|y| (0..w as i64).map(move |x| (x, y)))
        .map(|(x, y)| (-1..=1).all(|dy| (-1..=1).all(|dx| at(x + dx, y + dy))))
        .collect()
}

// ------------------------------------------------------------ ground shadow

/// MMD's default light: colour 154/255, travelling (−0.5, −1, 0.5).
fn mmd_light() -> Light {
    Light::MMD_DEFAULT
}

fn top_view() -> ViewParams {
    // Straight down from 40 units up, picture up = +Z.
    look(Vec3::new(0.0, 40.0, 0.0), Vec3::ZERO, Vec3::Z)
}

fn floating_box(ground: bool) -> RenderMesh {
    cuboid(
        Vec3::new(-1.0, 6.0, -1.0),
        Vec3::new(1.0, 8.0, 1.0),
        RenderMaterial {
            diffuse: [1.0, 0.0, 0.0, 1.0],
            ground_shadow: ground,
            ..Default::default()
        },
    )
}

/// Where the shadow should be: every box triangle slid along the light onto
/// y = 0 (p + (p.y / −l.y)·l, here (x − y/2, 0, z + y/2)), rasterised, less
/// the pixels the box itself covers.
fn expected_ground_shadow(mesh: &RenderMesh, view: &ViewParams) -> Vec<bool> {
    let l = Vec3::from(mmd_light().direction);
    let flat: Vec<Vec3> = positions(mesh)
        .iter()
        .map(|p| *p + l * (p.y / -l.y))
        .collect();
    assert!(flat.iter().all(|p| p.y.abs() < 1e-6));
    assert!((flat[0] - Vec3::new(-1.0 - 3.0, 0.0, -1.0 + 3.0)).length() < 1e-5);
    let shadow = cpu_silhouette(&flat, &mesh.indices, view, W, H);
    let body = cpu_silhouette(&positions(mesh), &mesh.indices, view, W, H);
    shadow.iter().zip(&body).map(|(s, b)| *s && !*b).collect()
}

#[test]
fn ground_shadow_lands_where_the_light_projects_the_box() {
    let Some(o) = offscreen() else { return };
    let view = top_view();
    let mesh = floating_box(true);
    let with = |shadows| picture_with(o, &[&mesh], view, mmd_light(), W, H, BACKGROUND, shadows);
    // The background multiplied by the light's colour (154/255, opaque):
    // (26, 51, 77) · 154/255 = (15.7, 30.8, 46.5) → (16, 31, 47): darker
    // than the floor it falls on (issue 38.6), where MMD's rule painted the
    // light 154 grey (lighter than this dark background, a ghost).
    let img = with(Shadows::MMD_DEFAULT);
    let got = matching(&img, [16, 31, 47], 3);
    let want = expected_ground_shadow(&mesh, &view);
    let score = iou(&got, &want);
    eprintln!(
        "ground shadow: {} px drawn, {} expected, IoU {score:.3}",
        count(&got),
        count(&want)
    );
    assert!(
        count(&want) > 300,
        "the test's shadow is too small to judge"
    );
    assert!(score > 0.93, "IoU {score}");
    // Every expected pixel away from the outline is the shadow colour.
    let core = eroded(&want, W, H);
    let missing = core.iter().zip(&got).filter(|(c, g)| **c && !**g).count();
    assert_eq!(missing, 0, "{missing} interior pixels without shadow");
    // The box itself is drawn (red · 154/255 light), not shadowed over.
    let red = matching(&img, [154, 0, 0], 3);
    assert!(count(&red) > 100);

    // Off for the frame: no shadow pixel anywhere.
    let img = with(Shadows {
        ground: false,
        ..Shadows::MMD_DEFAULT
    });
    assert_eq!(count(&matching(&img, [16, 31, 47], 3)), 0);
    // Off for the material (PMX flag 0x02 clear): none either.
    let plain = floating_box(false);
    let img = picture_with(
        o,
        &[&plain],
        view,
        mmd_light(),
        W,
        H,
        BACKGROUND,
        Shadows::MMD_DEFAULT,
    );
    assert_eq!(count(&matching(&img, [16, 31, 47], 3)), 0);
}

#[test]
fn ground_shadow_on_a_white_background_is_mmds_colour() {
    // On MMD's own white background the multiply gives MMD's rule exactly:
    // 255 · 154/255 = 154 opaque; translucent 255 · (1 + 154/255)/2 = 204.5.
    let Some(o) = offscreen() else { return };
    let view = top_view();
    let mesh = floating_box(true);
    let white = [1.0, 1.0, 1.0, 1.0];
    let core = eroded(&expected_ground_shadow(&mesh, &view), W, H);
    for (translucent, want) in [(false, 154u8), (true, 204)] {
        let img = picture_with(
            o,
            &[&mesh],
            view,
            mmd_light(),
            W,
            H,
            white,
            Shadows {
                ground_translucent: translucent,
                ..Shadows::MMD_DEFAULT
            },
        );
        let worst = core
            .iter()
            .enumerate()
            .filter(|(_, c)| **c)
            .map(|(i, _)| {
                img.pixels[i * 4..i * 4 + 3]
                    .iter()
                    .map(|p| p.abs_diff(want))
                    .max()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(255);
        assert!(
            worst <= 2,
            "translucent {translucent}: off by {worst} from {want}"
        );
    }
}

#[test]
fn translucent_ground_shadow_darkens_each_pixel_once() {
    let Some(o) = offscreen() else { return };
    let view = top_view();
    let mesh = floating_box(true);
    let img = picture_with(
        o,
        &[&mesh],
        view,
        mmd_light(),
        W,
        H,
        BACKGROUND,
        Shadows {
            ground_translucent: true,
            ..Shadows::MMD_DEFAULT
        },
    );
    // The background (26, 51, 77) multiplied by (1 + 154/255)/2 = 0.802,
    // however many of the box's 12 triangles overlap at a pixel:
    // 26 · 0.802 = 20.9, 51 · 0.802 = 40.9, 77 · 0.802 = 61.8.
    let core = eroded(&expected_ground_shadow(&mesh, &view), W, H);
    let mut worst = 0u8;
    for (i, _) in core.iter().enumerate().filter(|(_, c)| **c) {
        let p = &img.pixels[i * 4..i * 4 + 3];
        let d = p[0]
            .abs_diff(21)
            .max(p[1].abs_diff(41))
            .max(p[2].abs_diff(62));
        worst = worst.max(d);
    }
    eprintln!("translucent ground shadow: worst channel error {worst}");
    assert!(worst <= 2, "a pixel off by {worst}: darkened twice?");
}

// -------------------------------------------------------------- self-shadow

/// A 4×4 toon ramp: top half white, bottom half 128 grey.
fn toon_ramp() -> TextureRgba {
    let mut t = TextureRgba::solid(4, 4, [255; 4]);
    for p in t.pixels[32..].chunks_exact_mut(4) {
        p.copy_from_slice(&[128, 128, 128, 255]);
    }
    t
}

/// Plate y = 0 (receives) and a 4×4 square at y = 5 above its middle
/// (casts), lit straight down by a 0.6 grey light.
fn plate_scene() -> (RenderMesh, RenderMesh, Light, ViewParams) {
    let mut floor = plate(
        10.0,
        0.0,
        RenderMaterial {
            diffuse: [0.5, 0.5, 0.5, 1.0],
            ambient: [0.3, 0.3, 0.3],
            toon: Some(0),
            receives_shadow: true,
            ..Default::default()
        },
    );
    floor.textures = vec![Some(toon_ramp())];
    let caster = plate(
        2.0,
        5.0,
        RenderMaterial {
            diffuse: [0.0, 0.0, 1.0, 1.0],
            casts_shadow: true,
            ..Default::default()
        },
    );
    let light = Light {
        color: [0.6; 3],
        direction: [0.0, -1.0, 0.0],
    };
    let view = look(Vec3::new(0.0, 30.0, -30.0), Vec3::ZERO, Vec3::Y);
    (floor, caster, light, view)
}

/// Plate points inside the caster's footprint (|x|, |z| < 2) and outside.
/// From the eye at (0, 30, −30) the line to a plate point (x, 0, z) crosses
/// y = 5 at (5x/6, 5, −5 + 5z/6), outside the caster (|x|, |z| < 2) for
/// every point listed: all are seen.
const INSIDE: [[f32; 2]; 5] = [
    [0.0, 0.0],
    [1.5, 1.5],
    [-1.5, 1.5],
    [1.5, -1.5],
    [-1.5, -1.5],
];
const OUTSIDE: [[f32; 2]; 5] = [[6.0, 6.0], [5.0, 0.0], [-5.0, 0.0], [3.0, 0.0], [0.0, -4.0]];

fn plate_pixels(img: &TextureRgba, view: &ViewParams, points: &[[f32; 2]]) -> Vec<[u8; 4]> {
    points
        .iter()
        .map(|[x, z]| {
            let (px, py, _) = view.project(Vec3::new(*x, 0.0, *z), W, H).unwrap();
            img.pixel(px as u32, py as u32).unwrap()
        })
        .collect()
}

fn self_shadow_picture(self_shadow: SelfShadow) -> Option<(TextureRgba, ViewParams)> {
    let o = offscreen()?;
    let (floor, caster, light, view) = plate_scene();
    let shadows = Shadows {
        ground: false,
        ground_translucent: false,
        self_shadow,
    };
    Some((
        picture_with(
            o,
            &[&floor, &caster],
            view,
            light,
            W,
            H,
            BACKGROUND,
            shadows,
        ),
        view,
    ))
}

// Lit colour: diffuse·light + ambient = 0.5·0.6 + 0.3 = 0.6 → 153; in
// self-shadow × the ramp's dark end 128/255 → 76.8.
const LIT: [u8; 4] = [153, 153, 153, 255];
const DARK: [u8; 4] = [77, 77, 77, 255];

#[test]
fn plate_is_darker_inside_the_casters_shadow_with_self_shadow_on() {
    for mode in [1u8, 2] {
        let Some((img, view)) = self_shadow_picture(SelfShadow::from_key(mode, 0.01125)) else {
            return;
        };
        let inside = plate_pixels(&img, &view, &INSIDE);
        let outside = plate_pixels(&img, &view, &OUTSIDE);
        eprintln!("mode {mode}: inside {inside:?}, outside {outside:?}");
        for p in &inside {
            assert!(close(*p, DARK, 3), "mode {mode}: inside {p:?}");
        }
        for p in &outside {
            assert!(close(*p, LIT, 3), "mode {mode}: outside {p:?}");
        }
    }
}

#[test]
fn plate_is_even_with_self_shadow_mode_0() {
    let Some((img, view)) = self_shadow_picture(SelfShadow::from_key(0, 0.01125)) else {
        return;
    };
    // Mode 0: the toon ramp at N·L = 1 (its white top): 153 everywhere.
    for p in plate_pixels(&img, &view, &INSIDE)
        .into_iter()
        .chain(plate_pixels(&img, &view, &OUTSIDE))
    {
        assert!(close(p, LIT, 2), "{p:?}");
    }
}

#[test]
fn self_shadow_track_switches_mode_at_its_key() {
    // A camera file whose self-shadow keys turn the shadow on at frame 10.
    let mut camera = Motion::default();
    camera.shadows.push(ShadowKey::new(0, 0, 0.01125));
    camera.shadows.push(ShadowKey::new(10, 1, 0.01125));
    let index = TrackIndex::build(&camera);
    let mut centre = Vec::new();
    for frame in [0.0, 9.0, 9.5, 10.0, 11.0] {
        let s = scene_self_shadow(Some((&camera, &index)), None, frame);
        let Some((img, view)) = self_shadow_picture(s) else {
            return;
        };
        centre.push((frame, plate_pixels(&img, &view, &INSIDE[..1])[0]));
    }
    eprintln!("plate centre by frame: {centre:?}");
    for (frame, p) in centre {
        let want = if frame >= 10.0 { DARK } else { LIT };
        assert!(close(p, want, 3), "frame {frame}: {p:?}");
    }
}

/// The caster of [`plate_scene`] wearing an 8×1 texture whose left half
/// (u < 0.5: x < 0 on the caster) has alpha `left_alpha` and whose right
/// half is opaque, with material alpha `diffuse_alpha`.
fn textured_caster_picture(
    left_alpha: u8,
    diffuse_alpha: f32,
) -> Option<(TextureRgba, ViewParams)> {
    let o = offscreen()?;
    let (floor, mut caster, light, view) = plate_scene();
    let mut texture = TextureRgba::solid(8, 1, [0, 0, 255, 255]);
    for p in texture.pixels[..16].chunks_exact_mut(4) {
        p[3] = left_alpha;
    }
    caster.textures = vec![Some(texture)];
    caster.materials[0].texture = Some(0);
    caster.materials[0].diffuse[3] = diffuse_alpha;
    let shadows = Shadows {
        ground: false,
        ground_translucent: false,
        self_shadow: SelfShadow::from_key(1, 0.01125),
    };
    let picture = picture_with(
        o,
        &[&floor, &caster],
        view,
        light,
        W,
        H,
        BACKGROUND,
        shadows,
    );
    Some((picture, view))
}

/// MMD's alpha test in the shadow map: a texel whose alpha (× the
/// material's) is under 0.002 casts no shadow, the rest do. The renderer
/// draws casters that cannot fall under it depth-only (no fragment shader)
/// and the others through the alpha test: both must hold, and the choice
/// must follow the texture's alpha and the material's.
#[test]
fn a_transparent_texel_casts_no_self_shadow_and_an_opaque_one_does() {
    // INSIDE points at x = -1.5 sit under the left half (u = 0.125, between
    // texel centres 0.0625 and 0.1875: both the left half's), x = +1.5
    // under the right half (u = 0.875).
    let (left, right): (Vec<[f32; 2]>, Vec<[f32; 2]>) =
        INSIDE[1..].iter().partition(|p| p[0] < 0.0);
    let cases = [
        // (left alpha, material alpha, left shadowed, right shadowed)
        (0u8, 1.0f32, false, true),
        (255, 1.0, true, true),
        // 128/255 × 0.003 = 0.0015: under the test everywhere on the left;
        // 0.003 on the right: over it.
        (128, 0.003, false, true),
        // A material alpha of 0.001 casts nothing, opaque texture or not.
        (255, 0.001, false, false),
    ];
    for (left_alpha, diffuse_alpha, left_dark, right_dark) in cases {
        let Some((img, view)) = textured_caster_picture(left_alpha, diffuse_alpha) else {
            return;
        };
        for (points, dark) in [(&left, left_dark), (&right, right_dark)] {
            for p in plate_pixels(&img, &view, points) {
                let want = if dark { DARK } else { LIT };
                assert!(
                    close(p, want, 3),
                    "left alpha {left_alpha}, material alpha {diffuse_alpha}: {p:?}, want {want:?}"
                );
            }
        }
    }
}

/// A texture's alpha in the ground shadow: an opaque texture (drawn by the
/// renderer without the alpha test) shadows as an untextured material, a
/// half-transparent one as MMD multiplies it (the shadow's alpha × the
/// texel's), a transparent one not at all. On the white background:
/// 255 · 154/255 = 154; alpha 128/255: 255 · (1 − 0.502 · (1 − 154/255))
/// = 204.3; alpha 0: the background, 255.
#[test]
fn a_textures_alpha_thins_the_ground_shadow() {
    let Some(o) = offscreen() else { return };
    let view = top_view();
    let core = eroded(&expected_ground_shadow(&floating_box(true), &view), W, H);
    for (alpha, want) in [(255u8, 154u8), (128, 204), (0, 255)] {
        let mut mesh = floating_box(true);
        mesh.textures = vec![Some(TextureRgba::solid(2, 2, [255, 255, 255, alpha]))];
        mesh.materials[0].texture = Some(0);
        let img = picture_with(
            o,
            &[&mesh],
            view,
            mmd_light(),
            W,
            H,
            [1.0; 4],
            Shadows::MMD_DEFAULT,
        );
        let worst = (core.iter().enumerate().filter(|(_, c)| **c))
            .flat_map(|(i, _)| {
                img.pixels[i * 4..i * 4 + 3]
                    .iter()
                    .map(|p| p.abs_diff(want))
            })
            .max()
            .unwrap_or(255);
        assert!(
            worst <= 2,
            "texture alpha {alpha}: off by {worst} from {want}"
        );
    }
}
