//! Shared helpers for the offscreen render tests: one headless GPU per test
//! binary, generated meshes, and a CPU rasteriser of projected triangles.
#![allow(dead_code)]

use std::sync::OnceLock;

use glam::Vec3;
use vmd_studio::render::{
    FrameParams, GpuModel, Light, Offscreen, RenderMaterial, RenderMesh, RenderVertex, Shadows,
    TextureRgba, ViewParams,
};

/// The shared headless renderer, or `None` (test skipped) when the machine
/// has no adapter. Under `CI=true` a missing adapter fails the test: CI
/// installs Mesa's software Vulkan (lavapipe).
pub fn offscreen() -> Option<&'static Offscreen> {
    static GPU: OnceLock<Option<Offscreen>> = OnceLock::new();
    GPU.get_or_init(|| match Offscreen::new() {
        Ok(o) => {
            eprintln!(
                "render tests on {} ({}× MSAA)",
                o.gpu.describe(),
                o.renderer.samples()
            );
            Some(o)
        }
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("CI=true needs a GPU adapter (install mesa-vulkan-drivers): {e}");
            }
            eprintln!("SKIPPED: this test needs a GPU adapter: {e}");
            None
        }
    })
    .as_ref()
}

pub const BACKGROUND: [f32; 4] = [0.1, 0.2, 0.3, 1.0];
pub const BACKGROUND_BYTES: [u8; 4] = [26, 51, 77, 255];

/// Renders `meshes` from `view` with `light` into a `w`×`h` picture on
/// [`BACKGROUND`].
pub fn picture(
    o: &Offscreen,
    meshes: &[&RenderMesh],
    view: ViewParams,
    light: Light,
    w: u32,
    h: u32,
) -> TextureRgba {
    picture_on(o, meshes, view, light, w, h, BACKGROUND)
}

/// Pure green: far from every colour of the test models, for silhouettes.
pub const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

/// Pixels of `img` that differ from pure green by more than half the
/// contrast (so a pixel counts when the model covers more than about half
/// of it).
pub fn mask_on_green(img: &TextureRgba) -> Vec<bool> {
    img.pixels
        .chunks_exact(4)
        .map(|p| p[0].max(p[2]).max(255 - p[1]) > 100)
        .collect()
}

/// Like [`picture`] on a background of the caller's choice.
pub fn picture_on(
    o: &Offscreen,
    meshes: &[&RenderMesh],
    view: ViewParams,
    light: Light,
    w: u32,
    h: u32,
    clear: [f32; 4],
) -> TextureRgba {
    picture_with(o, meshes, view, light, w, h, clear, Shadows::NONE)
}

/// Like [`picture_on`] with MMD's shadows as given (the other helpers draw
/// none, so their pictures are the plain shading).
#[allow(clippy::too_many_arguments)]
pub fn picture_with(
    o: &Offscreen,
    meshes: &[&RenderMesh],
    view: ViewParams,
    light: Light,
    w: u32,
    h: u32,
    clear: [f32; 4],
    shadows: Shadows,
) -> TextureRgba {
    let models: Vec<GpuModel> = meshes
        .iter()
        .map(|m| o.upload(m).expect("test mesh uploads"))
        .collect();
    let refs: Vec<&GpuModel> = models.iter().collect();
    let target = o.target(w, h).expect("target");
    let frame = FrameParams {
        view,
        light,
        lines: &[],
        overlay_lines: &[],
        shadows,
    };
    o.picture(&target, &frame, &refs, clear).expect("readback")
}

pub fn close(a: [u8; 4], b: [u8; 4], tol: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tol)
}

/// An axis-aligned quad in the plane z = `z`, facing −Z (towards MMD's
/// default camera), from (x0, y0) to (x1, y1); UV (0,0) at top left.
/// `front_clockwise`: wind it as MMD does (clockwise seen from the front).
pub fn quad(
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
    z: f32,
    front_clockwise: bool,
) -> (Vec<RenderVertex>, Vec<u32>) {
    let n = [0.0, 0.0, -1.0];
    let v = vec![
        RenderVertex::new([x0, y0, z], n, [0.0, 1.0]), // bottom left
        RenderVertex::new([x0, y1, z], n, [0.0, 0.0]), // top left
        RenderVertex::new([x1, y1, z], n, [1.0, 0.0]), // top right
        RenderVertex::new([x1, y0, z], n, [1.0, 1.0]), // bottom right
    ];
    // bottom-left → top-left → top-right is clockwise seen from −Z.
    let i = if front_clockwise {
        vec![0, 1, 2, 0, 2, 3]
    } else {
        vec![0, 2, 1, 0, 3, 2]
    };
    (v, i)
}

/// A one-material mesh from a quad.
pub fn quad_mesh(
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
    z: f32,
    material: RenderMaterial,
) -> RenderMesh {
    let (vertices, indices) = quad(x0, y0, x1, y1, z, true);
    RenderMesh {
        vertices,
        indices,
        materials: vec![RenderMaterial {
            index_count: 6,
            ..material
        }],
        textures: vec![],
    }
}

/// A UV sphere (poles on Y), wound clockwise seen from outside.
/// `segments` should be a multiple of 4 so the rim seen from ±Z has vertices.
pub fn sphere(
    center: Vec3,
    radius: f32,
    rings: u32,
    segments: u32,
    material: RenderMaterial,
) -> RenderMesh {
    let mut vertices = Vec::new();
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32; // 0 at top
        for s in 0..=segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            let n = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            vertices.push(RenderVertex::new(
                (center + n * radius).to_array(),
                n.to_array(),
                [s as f32 / segments as f32, r as f32 / rings as f32],
            ));
        }
    }
    let row = segments + 1;
    let mut indices = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let a = r * row + s;
            let b = a + 1;
            let c = a + row;
            let d = c + 1;
            // Seen from outside at longitude φ, +φ runs towards … check by
            // the test that a culled sphere is visible from the front.
            indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    let count = indices.len() as u32;
    RenderMesh {
        vertices,
        indices,
        materials: vec![RenderMaterial {
            index_count: count,
            ..material
        }],
        textures: vec![],
    }
}

/// Which pixel centres of a `w`×`h` picture fall inside any triangle of
/// `mesh` projected by `view` on the CPU (no culling): the silhouette.
pub fn cpu_silhouette(
    vertices: &[Vec3],
    indices: &[u32],
    view: &ViewParams,
    w: u32,
    h: u32,
) -> Vec<bool> {
    let projected: Vec<Option<(f32, f32)>> = vertices
        .iter()
        .map(|p| view.project(*p, w, h).map(|(x, y, _)| (x, y)))
        .collect();
    let mut mask = vec![false; (w * h) as usize];
    for t in indices.chunks_exact(3) {
        let (Some(a), Some(b), Some(c)) = (
            projected[t[0] as usize],
            projected[t[1] as usize],
            projected[t[2] as usize],
        ) else {
            continue;
        };
        let min_x = a.0.min(b.0).min(c.0).floor().max(0.0) as u32;
        let max_x = (a.0.max(b.0).max(c.0).ceil().max(0.0) as u32).min(w);
        let min_y = a.1.min(b.1).min(c.1).floor().max(0.0) as u32;
        let max_y = (a.1.max(b.1).max(c.1).ceil().max(0.0) as u32).min(h);
        let edge = |p: (f32, f32), q: (f32, f32), x: f32, y: f32| {
            (q.0 - p.0) * (y - p.1) - (q.1 - p.1) * (x - p.0)
        };
        for y in min_y..max_y {
            for x in min_x..max_x {
                let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
                let e0 = edge(a, b, px, py);
                let e1 = edge(b, c, px, py);
                let e2 = edge(c, a, px, py);
                if (e0 >= 0.0 && e1 >= 0.0 && e2 >= 0.0) || (e0 <= 0.0 && e1 <= 0.0 && e2 <= 0.0) {
                    mask[(y * w + x) as usize] = true;
                }
            }
        }
    }
    mask
}

/// Intersection over union of two masks.
pub fn iou(a: &[bool], b: &[bool]) -> f64 {
    let inter = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let union = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    if union == 0 {
        1.0
    } else {
        inter as f64 / union as f64
    }
}

/// The pixels of `img` that differ from the background.
pub fn drawn_mask(img: &TextureRgba) -> Vec<bool> {
    drawn_mask_over(img, 6)
}

/// The pixels of `img` whose largest channel difference from the background
/// exceeds `threshold`.
pub fn drawn_mask_over(img: &TextureRgba, threshold: u8) -> Vec<bool> {
    img.pixels
        .chunks_exact(4)
        .map(|p| !close([p[0], p[1], p[2], p[3]], BACKGROUND_BYTES, threshold))
        .collect()
}

/// What the CPU rasteriser found at one pixel centre: the nearest triangle
/// (index into the triangle list), its barycentric weights and depth.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub triangle: usize,
    pub bary: [f32; 3],
    pub depth: f32,
}

/// A CPU z-buffer of `indices` (triangles, no culling) projected by `view`.
pub fn cpu_raster(
    vertices: &[Vec3],
    indices: &[u32],
    view: &ViewParams,
    w: u32,
    h: u32,
) -> Vec<Option<Hit>> {
    let projected: Vec<Option<(f32, f32, f32)>> =
        vertices.iter().map(|p| view.project(*p, w, h)).collect();
    let mut out: Vec<Option<Hit>> = vec![None; (w * h) as usize];
    for (ti, t) in indices.chunks_exact(3).enumerate() {
        let (Some(a), Some(b), Some(c)) = (
            projected[t[0] as usize],
            projected[t[1] as usize],
            projected[t[2] as usize],
        ) else {
            continue;
        };
        let area = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
        if area.abs() < 1e-9 {
            continue;
        }
        let min_x = a.0.min(b.0).min(c.0).floor().max(0.0) as u32;
        let max_x = (a.0.max(b.0).max(c.0).ceil().max(0.0) as u32).min(w);
        let min_y = a.1.min(b.1).min(c.1).floor().max(0.0) as u32;
        let max_y = (a.1.max(b.1).max(c.1).ceil().max(0.0) as u32).min(h);
        for y in min_y..max_y {
            for x in min_x..max_x {
                let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
                let w0 = ((b.0 - px) * (c.1 - py) - (b.1 - py) * (c.0 - px)) / area;
                let w1 = ((c.0 - px) * (a.1 - py) - (c.1 - py) * (a.0 - px)) / area;
                let w2 = 1.0 - w0 - w1;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let depth = w0 * a.2 + w1 * b.2 + w2 * c.2;
                let slot = &mut out[(y * w + x) as usize];
                if slot.is_none_or(|s| depth < s.depth) {
                    *slot = Some(Hit {
                        triangle: ti,
                        bary: [w0, w1, w2],
                        depth,
                    });
                }
            }
        }
    }
    out
}
