//! The renderer drawn offscreen on generated meshes, with pixel checks whose
//! expected values are worked out by hand from MMD's shading formula:
//! colour = saturate(diffuse·light + ambient) × texture × toon + specular.
//! Needs a GPU adapter (Mesa's lavapipe is enough); skipped without one,
//! except under CI=true.
#![cfg(feature = "render")]

mod render_support;

use glam::Vec3;
use render_support::*;
use vmd_studio::render::{Light, RenderMaterial, RenderMesh, SphereMode, TextureRgba, ViewParams};

const W: u32 = 160;
const H: u32 = 120;

fn view() -> ViewParams {
    ViewParams::mmd_default(W as f32 / H as f32)
}

/// Grey light 0.6 from straight behind the camera (travelling +Z).
fn frontal_light(color: [f32; 3]) -> Light {
    Light {
        color,
        direction: [0.0, 0.0, 1.0],
    }
}

fn centre(img: &TextureRgba) -> [u8; 4] {
    img.pixel(img.width / 2, img.height / 2).unwrap()
}

fn flat(diffuse: [f32; 4], ambient: [f32; 3]) -> RenderMaterial {
    RenderMaterial {
        diffuse,
        ambient,
        ..Default::default()
    }
}

#[test]
fn flat_colour_is_diffuse_times_light_plus_ambient() {
    let Some(o) = offscreen() else { return };
    let mesh = quad_mesh(
        -5.0,
        5.0,
        5.0,
        15.0,
        0.0,
        flat([0.5, 0.0, 0.25, 1.0], [0.2, 0.2, 0.2]),
    );
    let img = picture(o, &[&mesh], view(), frontal_light([0.6; 3]), W, H);
    // (0.5·0.6 + 0.2, 0 + 0.2, 0.25·0.6 + 0.2) = (0.5, 0.2, 0.35) → bytes 127.5, 51, 89.25
    let c = centre(&img);
    assert!(close(c, [128, 51, 89, 255], 2), "{c:?}");
    // A corner pixel is background.
    assert!(close(img.pixel(1, 1).unwrap(), BACKGROUND_BYTES, 1));
}

#[test]
fn colour_saturates_before_the_texture() {
    let Some(o) = offscreen() else { return };
    // diffuse·light + ambient = 0.9·0.6 + 0.9 = 1.44 → saturated to 1; × texture 0.5.
    let mut mesh = quad_mesh(
        -5.0,
        5.0,
        5.0,
        15.0,
        0.0,
        flat([0.9, 0.9, 0.9, 1.0], [0.9, 0.9, 0.9]),
    );
    mesh.materials[0].texture = Some(0);
    mesh.textures = vec![Some(TextureRgba::solid(4, 4, [128, 64, 200, 255]))];
    let img = picture(o, &[&mesh], view(), frontal_light([0.6; 3]), W, H);
    let c = centre(&img);
    assert!(close(c, [128, 64, 200, 255], 2), "{c:?}");
}

#[test]
fn texture_is_mapped_with_uv_origin_at_top_left() {
    let Some(o) = offscreen() else { return };
    // White base (1·0.6 + 0.4); a 2×2 texture: top-left red, top-right green,
    // bottom-left blue, bottom-right yellow.
    let mut mesh = quad_mesh(-6.0, 4.0, 6.0, 16.0, 0.0, flat([1.0; 4], [0.4; 3]));
    mesh.materials[0].texture = Some(0);
    let px = [
        255, 0, 0, 255, /**/ 0, 255, 0, 255, //
        0, 0, 255, 255, /**/ 255, 255, 0, 255,
    ];
    mesh.textures = vec![Some(TextureRgba {
        width: 2,
        height: 2,
        pixels: px.to_vec(),
    })];
    let v = view();
    let img = picture(o, &[&mesh], v, frontal_light([0.6; 3]), W, H);
    // Sample at the texel centres (uv 0.25 / 0.75) projected on the CPU.
    let at = |x: f32, y: f32| {
        let (px, py, _) = v.project(Vec3::new(x, y, 0.0), W, H).unwrap();
        img.pixel(px as u32, py as u32).unwrap()
    };
    assert!(
        close(at(-3.0, 13.0), [255, 0, 0, 255], 12),
        "top left {:?}",
        at(-3.0, 13.0)
    );
    assert!(
        close(at(3.0, 13.0), [0, 255, 0, 255], 12),
        "top right {:?}",
        at(3.0, 13.0)
    );
    assert!(
        close(at(-3.0, 7.0), [0, 0, 255, 255], 12),
        "bottom left {:?}",
        at(-3.0, 7.0)
    );
    assert!(
        close(at(3.0, 7.0), [255, 255, 0, 255], 12),
        "bottom right {:?}",
        at(3.0, 7.0)
    );
}

#[test]
fn model_left_side_appears_on_the_viewers_right_from_the_front() {
    let Some(o) = offscreen() else { return };
    // MMD: +X is the model's left; the default camera looks at its front.
    let mesh = quad_mesh(2.0, 8.0, 8.0, 12.0, 0.0, flat([1.0; 4], [0.0; 3]));
    let img = picture(o, &[&mesh], view(), frontal_light([0.6; 3]), W, H);
    let mask = drawn_mask(&img);
    let (mut left, mut right) = (0, 0);
    for y in 0..H {
        for x in 0..W {
            if mask[(y * W + x) as usize] {
                if x < W / 2 { left += 1 } else { right += 1 }
            }
        }
    }
    assert!(right > 100 && left == 0, "left {left} right {right}");
}

#[test]
fn silhouette_matches_cpu_projection_and_rows_are_unpadded() {
    let Some(o) = offscreen() else { return };
    // 100 px wide: 400 bytes per row, padded to 512 in the copy. A wrong
    // unpadding shears the picture and the IoU drops.
    let (w, h) = (100, 90);
    let v = ViewParams::mmd_default(w as f32 / h as f32);
    let mesh = sphere(
        Vec3::new(-3.0, 11.0, 2.0),
        6.0,
        16,
        32,
        flat([1.0; 4], [0.0; 3]),
    );
    let img = picture(o, &[&mesh], v, frontal_light([0.6; 3]), w, h);
    let positions: Vec<Vec3> = mesh
        .vertices
        .iter()
        .map(|v| Vec3::from(v.position))
        .collect();
    let cpu = cpu_silhouette(&positions, &mesh.indices, &v, w, h);
    // Drawn: more than half covered (white over the background differs by
    // ≥ 178 per channel, so a half-covered pixel by ≥ 89).
    let gpu = drawn_mask_over(&img, 89);
    let score = iou(&cpu, &gpu);
    let n = cpu.iter().filter(|b| **b).count();
    assert!(n > 500, "sphere covers {n} px");
    assert!(score >= 0.97, "IoU {score}");
}

#[test]
fn nearer_surface_wins_whatever_the_material_order() {
    let Some(o) = offscreen() else { return };
    // Material 0: a small green quad nearer the camera (z = −3); material 1:
    // a big red quad behind it. Drawn in that order, depth keeps the green.
    let (mut v0, i0) = quad(-2.0, 8.0, 2.0, 12.0, -3.0, true);
    let (v1, i1) = quad(-6.0, 4.0, 6.0, 16.0, 0.0, true);
    let base = v0.len() as u32;
    v0.extend(v1);
    let mut indices = i0;
    indices.extend(i1.iter().map(|i| i + base));
    let mesh = RenderMesh {
        vertices: v0,
        indices,
        materials: vec![
            RenderMaterial {
                index_count: 6,
                ..flat([0.0, 1.0, 0.0, 1.0], [0.0; 3])
            },
            RenderMaterial {
                index_count: 6,
                ..flat([1.0, 0.0, 0.0, 1.0], [0.0; 3])
            },
        ],
        textures: vec![],
    };
    let img = picture(o, &[&mesh], view(), frontal_light([1.0; 3]), W, H);
    assert!(
        close(centre(&img), [0, 255, 0, 255], 2),
        "{:?}",
        centre(&img)
    );
}

#[test]
fn translucent_material_blends_over_what_is_behind() {
    let Some(o) = offscreen() else { return };
    let back = quad_mesh(
        -6.0,
        4.0,
        6.0,
        16.0,
        0.0,
        flat([1.0, 0.0, 0.0, 1.0], [0.0; 3]),
    );
    let front = quad_mesh(
        -3.0,
        7.0,
        3.0,
        13.0,
        -1.0,
        flat([0.0, 0.0, 1.0, 0.5], [0.0; 3]),
    );
    let img = picture(o, &[&back, &front], view(), frontal_light([1.0; 3]), W, H);
    // 0.5·blue + 0.5·red.
    let c = centre(&img);
    assert!(close(c, [128, 0, 128, 255], 2), "{c:?}");
}

#[test]
fn back_faces_are_culled_unless_double_sided() {
    let Some(o) = offscreen() else { return };
    let (vertices, indices) = quad(-5.0, 5.0, 5.0, 15.0, 0.0, false);
    let mut mesh = RenderMesh {
        vertices,
        indices,
        materials: vec![RenderMaterial {
            index_count: 6,
            ..flat([1.0; 4], [0.0; 3])
        }],
        textures: vec![],
    };
    let img = picture(o, &[&mesh], view(), frontal_light([1.0; 3]), W, H);
    assert!(
        close(centre(&img), BACKGROUND_BYTES, 1),
        "culled: {:?}",
        centre(&img)
    );
    mesh.materials[0].double_sided = true;
    let img = picture(o, &[&mesh], view(), frontal_light([1.0; 3]), W, H);
    assert!(
        close(centre(&img), [255, 255, 255, 255], 1),
        "double: {:?}",
        centre(&img)
    );
}

#[test]
fn toon_ramp_top_row_is_lit_bottom_row_is_shadow() {
    let Some(o) = offscreen() else { return };
    let mut mesh = quad_mesh(-5.0, 5.0, 5.0, 15.0, 0.0, flat([1.0; 4], [0.4; 3]));
    mesh.materials[0].toon = Some(0);
    // 1×2 ramp: top white, bottom (128, 64, 32).
    mesh.textures = vec![Some(TextureRgba {
        width: 1,
        height: 2,
        pixels: vec![255, 255, 255, 255, 128, 64, 32, 255],
    })];
    // Light travelling +Z hits the quad's front (normal −Z): N·L = 1 → v = 0.
    let lit = picture(o, &[&mesh], view(), frontal_light([0.6; 3]), W, H);
    assert!(
        close(centre(&lit), [255, 255, 255, 255], 2),
        "lit {:?}",
        centre(&lit)
    );
    // Light from behind the quad: N·L = −1 → v = 1, the shadow colour.
    let dark = picture(
        o,
        &[&mesh],
        view(),
        Light {
            color: [0.6; 3],
            direction: [0.0, 0.0, -1.0],
        },
        W,
        H,
    );
    assert!(
        close(centre(&dark), [128, 64, 32, 255], 2),
        "shadow {:?}",
        centre(&dark)
    );
}

#[test]
fn sphere_map_multiplies_or_adds() {
    let Some(o) = offscreen() else { return };
    let base = flat([0.5, 0.5, 0.5, 1.0], [0.0; 3]); // 0.5 × light 1 = 0.5
    let sph = Some(TextureRgba::solid(2, 2, [102, 102, 102, 255])); // 0.4
    let mut mesh = quad_mesh(-5.0, 5.0, 5.0, 15.0, 0.0, base);
    mesh.materials[0].sphere = Some(0);
    mesh.textures = vec![sph];
    mesh.materials[0].sphere_mode = SphereMode::Add;
    let add = picture(o, &[&mesh], view(), frontal_light([1.0; 3]), W, H);
    assert!(
        close(centre(&add), [230, 230, 230, 255], 2),
        "add {:?}",
        centre(&add)
    ); // 0.9
    mesh.materials[0].sphere_mode = SphereMode::Multiply;
    let mul = picture(o, &[&mesh], view(), frontal_light([1.0; 3]), W, H);
    assert!(
        close(centre(&mul), [51, 51, 51, 255], 2),
        "mul {:?}",
        centre(&mul)
    ); // 0.2
}

#[test]
fn specular_highlight_adds_light_colour() {
    let Some(o) = offscreen() else { return };
    // Eye and light both straight in front: H = N at the centre, spec = 1 × (0.3, 0.2, 0.1) × light 1.
    let mut m = flat([0.2, 0.2, 0.2, 1.0], [0.0; 3]);
    m.specular = [0.3, 0.2, 0.1];
    m.specular_power = 5.0;
    let mesh = quad_mesh(-5.0, 9.0, 5.0, 11.0, 0.0, m);
    let img = picture(o, &[&mesh], view(), frontal_light([1.0; 3]), W, H);
    // (0.5, 0.4, 0.3) ± the highlight falling off a little over the pixel.
    let c = centre(&img);
    assert!(close(c, [128, 102, 77, 255], 3), "{c:?}");
}

#[test]
fn red_light_makes_lit_pixels_redder() {
    let Some(o) = offscreen() else { return };
    let mesh = quad_mesh(
        -5.0,
        5.0,
        5.0,
        15.0,
        0.0,
        flat([0.8, 0.8, 0.8, 1.0], [0.1; 3]),
    );
    let grey = centre(&picture(o, &[&mesh], view(), Light::MMD_DEFAULT, W, H));
    let red = centre(&picture(
        o,
        &[&mesh],
        view(),
        Light {
            color: [1.0, 0.2, 0.2],
            ..Light::MMD_DEFAULT
        },
        W,
        H,
    ));
    assert!(
        red[0] > grey[0] + 40 && red[1] + 40 < grey[1],
        "grey {grey:?} red {red:?}"
    );
}

#[test]
fn missing_or_bad_textures_fall_back_to_the_material_colour() {
    let Some(o) = offscreen() else { return };
    let mut mesh = quad_mesh(
        -5.0,
        5.0,
        5.0,
        15.0,
        0.0,
        flat([0.5, 0.5, 0.5, 1.0], [0.0; 3]),
    );
    mesh.materials[0].texture = Some(0);
    mesh.materials[0].sphere = Some(7); // past the list
    mesh.materials[0].sphere_mode = SphereMode::Multiply;
    mesh.materials[0].toon = Some(1);
    mesh.textures = vec![
        None, // missing file
        Some(TextureRgba {
            width: 4,
            height: 4,
            pixels: vec![0; 3],
        }), // malformed
    ];
    let img = picture(o, &[&mesh], view(), frontal_light([1.0; 3]), W, H);
    assert!(
        close(centre(&img), [128, 128, 128, 255], 2),
        "{:?}",
        centre(&img)
    );
}

#[test]
fn zero_alpha_material_is_hidden_edges_and_all() {
    let Some(o) = offscreen() else { return };
    let mut m = flat([1.0, 1.0, 1.0, 0.0], [0.0; 3]);
    m.edge = true;
    m.edge_size = 10.0;
    let mesh = sphere(Vec3::new(0.0, 10.0, 0.0), 5.0, 12, 24, m);
    let img = picture(o, &[&mesh], view(), frontal_light([1.0; 3]), W, H);
    assert!(drawn_mask(&img).iter().all(|d| !d));
}

#[test]
fn edge_outline_rings_the_silhouette() {
    let Some(o) = offscreen() else { return };
    let (w, h) = (360, 360);
    let v = ViewParams::mmd_default(1.0);
    let mut m = flat([1.0; 4], [0.0; 3]);
    m.edge_color = [0.0, 1.0, 0.0, 1.0];
    m.edge_size = 6.0; // 6 px at 720 lines → 3 px at 360
    let mut mesh = sphere(Vec3::new(0.0, 10.0, 0.0), 5.0, 24, 48, m);
    let (cx, cy, _) = v.project(Vec3::new(0.0, 10.0, 0.0), w, h).unwrap();
    let (rx, _, _) = v.project(Vec3::new(5.0, 10.0, 0.0), w, h).unwrap();
    let r = rx - cx;
    let ring = ((cx + r + 1.5) as u32, cy as u32);
    let beyond = ((cx + r + 6.0) as u32, cy as u32);
    let plain = picture(o, &[&mesh], v, frontal_light([1.0; 3]), w, h);
    assert!(close(
        plain.pixel(ring.0, ring.1).unwrap(),
        BACKGROUND_BYTES,
        3
    ));
    mesh.materials[0].edge = true;
    let edged = picture(o, &[&mesh], v, frontal_light([1.0; 3]), w, h);
    let e = edged.pixel(ring.0, ring.1).unwrap();
    assert!(close(e, [0, 255, 0, 255], 30), "ring pixel {e:?}");
    assert!(close(
        edged.pixel(beyond.0, beyond.1).unwrap(),
        BACKGROUND_BYTES,
        3
    ));
    // The middle of the sphere keeps its own colour (edges are back faces).
    assert!(
        close(centre(&edged), [255, 255, 255, 255], 2),
        "{:?}",
        centre(&edged)
    );
    // Per-vertex edge scale 0 removes the outline.
    for vtx in &mut mesh.vertices {
        vtx.edge_scale = 0.0;
    }
    let none = picture(o, &[&mesh], v, frontal_light([1.0; 3]), w, h);
    assert!(close(
        none.pixel(ring.0, ring.1).unwrap(),
        BACKGROUND_BYTES,
        3
    ));
}

#[test]
fn material_updates_change_the_next_picture() {
    let Some(o) = offscreen() else { return };
    let mesh = quad_mesh(
        -5.0,
        5.0,
        5.0,
        15.0,
        0.0,
        flat([1.0, 0.0, 0.0, 1.0], [0.0; 3]),
    );
    let mut model = o.upload(&mesh).unwrap();
    let target = o.target(W, H).unwrap();
    let frame = vmd_studio::render::FrameParams {
        view: view(),
        light: frontal_light([1.0; 3]),
        lines: &[],
        overlay_lines: &[],
        shadows: vmd_studio::render::Shadows::NONE,
    };
    let red = o.picture(&target, &frame, &[&model], BACKGROUND).unwrap();
    assert!(close(centre(&red), [255, 0, 0, 255], 1));
    let mut mats = mesh.materials.clone();
    mats[0].diffuse = [0.0, 0.0, 1.0, 1.0];
    model.update_materials(&o.gpu.queue, &mats).unwrap();
    // Move the quad off to the right: the centre shows background.
    let mut verts = mesh.vertices.clone();
    for v in &mut verts {
        v.position[0] += 100.0;
    }
    model.update_vertices(&o.gpu.queue, &verts).unwrap();
    let moved = o.picture(&target, &frame, &[&model], BACKGROUND).unwrap();
    assert!(close(centre(&moved), BACKGROUND_BYTES, 1));
    // Wrong counts are refused, not drawn.
    assert!(model.update_vertices(&o.gpu.queue, &verts[..3]).is_err());
    assert!(model.update_materials(&o.gpu.queue, &[]).is_err());
}

#[test]
fn indices_past_the_vertices_are_refused() {
    let Some(o) = offscreen() else { return };
    let mut mesh = quad_mesh(-5.0, 5.0, 5.0, 15.0, 0.0, flat([1.0; 4], [0.0; 3]));
    mesh.indices[4] = 99;
    let err = o.upload(&mesh).err().expect("refused");
    assert!(err.to_string().contains("99"), "{err}");
}

#[test]
fn lines_are_drawn_depth_tested_and_overlay_on_top() {
    let Some(o) = offscreen() else { return };
    use vmd_studio::render::{FrameParams, LineVertex};
    let mesh = quad_mesh(
        -5.0,
        5.0,
        5.0,
        15.0,
        0.0,
        flat([1.0, 0.0, 0.0, 1.0], [0.0; 3]),
    );
    let model = o.upload(&mesh).unwrap();
    let target = o.target(W, H).unwrap();
    let green = [0.0, 1.0, 0.0, 1.0];
    // A horizontal line through the centre behind the quad (hidden) …
    let behind = [
        LineVertex {
            position: [-20.0, 10.0, 5.0],
            color: green,
        },
        LineVertex {
            position: [20.0, 10.0, 5.0],
            color: green,
        },
    ];
    let frame = FrameParams {
        view: view(),
        light: frontal_light([1.0; 3]),
        lines: &behind,
        overlay_lines: &[],
        shadows: vmd_studio::render::Shadows::NONE,
    };
    let img = o.picture(&target, &frame, &[&model], BACKGROUND).unwrap();
    assert!(
        close(centre(&img), [255, 0, 0, 255], 1),
        "hidden line {:?}",
        centre(&img)
    );
    // … visible off the quad …
    let v = view();
    let (x, y, _) = v.project(Vec3::new(15.0, 10.0, 5.0), W, H).unwrap();
    let off = (x as u32, y as u32);
    let column: Vec<[u8; 4]> = (off.1.saturating_sub(2)..=off.1 + 2)
        .map(|yy| img.pixel(off.0, yy).unwrap())
        .collect();
    // A 1 px line on a pixel boundary spreads over two rows (MSAA): add up
    // the green it brings over the background (51) down the column.
    let green: i32 = column.iter().map(|p| i32::from(p[1]) - 51).sum();
    assert!(green > 160, "line beside the quad: {column:?} at {off:?}");
    // … and as an overlay it shows over the quad.
    let frame = FrameParams {
        view: view(),
        light: frontal_light([1.0; 3]),
        lines: &[],
        overlay_lines: &behind,
        shadows: vmd_studio::render::Shadows::NONE,
    };
    let img = o.picture(&target, &frame, &[&model], BACKGROUND).unwrap();
    // Over the red quad: green up, red down, down the centre column.
    let column: Vec<[u8; 4]> = (img.height / 2 - 2..=img.height / 2 + 2)
        .map(|yy| img.pixel(img.width / 2, yy).unwrap())
        .collect();
    let green: i32 = column.iter().map(|p| i32::from(p[1])).sum();
    assert!(green > 200, "overlay over the quad: {column:?}");
}
