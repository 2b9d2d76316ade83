//! Real models through the real renderer, offscreen: Mei (PMD, with her
//! textures; corpus) and the bundled demo mannequin (PMX). Expected values
//! come from a CPU projection of the same vertices (silhouette, depth,
//! texture lookups) computed here, not from the renderer.
//! Needs a GPU adapter (skipped without one, except under CI=true) and the
//! corpus for the Mei tests.
#![cfg(feature = "render")]

mod common;
mod render_support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use glam::Vec3;
use render_support::*;
use vmd_studio::model::{LoadedModel, Model, MorphKind};
use vmd_studio::render::from_model::{ModelPosing, posed_vertices};
use vmd_studio::render::{Light, MeshTemplate, RenderMesh, TextureRgba, ViewParams};

fn mei() -> Option<&'static (LoadedModel, MeshTemplate)> {
    static MEI: OnceLock<Option<(LoadedModel, MeshTemplate)>> = OnceLock::new();
    MEI.get_or_init(|| {
        let path = common::corpus()?.join("mei/mei.pmd");
        let lm = LoadedModel::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let t = MeshTemplate::new(&lm.model, &lm.textures);
        Some((lm, t))
    })
    .as_ref()
}

fn demo() -> &'static (LoadedModel, MeshTemplate) {
    static DEMO: OnceLock<(LoadedModel, MeshTemplate)> = OnceLock::new();
    DEMO.get_or_init(|| {
        let path = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/demo_model.pmx"
        ));
        let lm = LoadedModel::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let t = MeshTemplate::new(&lm.model, &lm.textures);
        (lm, t)
    })
}

/// The whole figure from the front: eye at (0, 10, −40), 30° vertical.
fn full_body() -> ViewParams {
    ViewParams::mmd_camera([0.0, 10.0, 0.0], [0.0; 3], -40.0, 30.0, true, 1.0)
}

/// The face, close: eye at (0, 18, −12).
fn face_view() -> ViewParams {
    ViewParams::mmd_camera([0.0, 18.0, 0.0], [0.0; 3], -12.0, 30.0, true, 1.0)
}

/// Triangles of materials that are drawn (alpha > 0).
fn drawn_indices(model: &Model) -> Vec<u32> {
    let ranges = model.material_ranges();
    let mut out = Vec::new();
    for (m, r) in model.materials.iter().zip(ranges) {
        if m.diffuse.w > 0.0 {
            out.extend_from_slice(
                &model.indices[r.start.min(model.indices.len())..r.end.min(model.indices.len())],
            );
        }
    }
    out
}

fn positions(mesh: &RenderMesh) -> Vec<Vec3> {
    mesh.vertices
        .iter()
        .map(|v| Vec3::from(v.position))
        .collect()
}

/// Silhouette agreement with the CPU projection: IoU of the figure without
/// its outline (the CPU projection has none), and how much of the CPU
/// silhouette the outlined picture covers (the outline only adds).
fn silhouette_scores(model: &Model, mesh: &RenderMesh, size: u32) -> (f64, f64) {
    let o = offscreen().expect("checked by caller");
    let v = full_body();
    let cpu = cpu_silhouette(&positions(mesh), &drawn_indices(model), &v, size, size);
    let n = cpu.iter().filter(|b| **b).count();
    assert!(n > 5000, "figure covers {n} px");
    let mut plain = mesh.clone();
    for m in &mut plain.materials {
        m.edge = false;
    }
    let img = picture_on(o, &[&plain], v, Light::MMD_DEFAULT, size, size, GREEN);
    let score = iou(&cpu, &mask_on_green(&img));
    let outlined = mask_on_green(&picture_on(
        o,
        &[mesh],
        v,
        Light::MMD_DEFAULT,
        size,
        size,
        GREEN,
    ));
    let covered = cpu
        .iter()
        .zip(&outlined)
        .filter(|(c, g)| **c && **g)
        .count();
    (score, covered as f64 / n as f64)
}

#[test]
fn mei_silhouette_agrees_with_the_cpu_projection() {
    let (Some(_), Some((lm, t))) = (offscreen(), mei()) else {
        return;
    };
    let (score, covered) = silhouette_scores(&lm.model, &t.mesh, 400);
    eprintln!("Mei silhouette IoU {score:.4}, covered with outline {covered:.4}");
    assert!(score >= 0.95, "IoU {score}");
    assert!(covered >= 0.98, "outlined picture covers {covered}");
}

#[test]
fn demo_mannequin_silhouette_agrees_with_the_cpu_projection() {
    let Some(_) = offscreen() else { return };
    let (lm, t) = demo();
    let (score, covered) = silhouette_scores(&lm.model, &t.mesh, 400);
    eprintln!("mannequin silhouette IoU {score:.4}, covered with outline {covered:.4}");
    assert!(score >= 0.95, "IoU {score}");
    assert!(covered >= 0.98, "outlined picture covers {covered}");
}

/// Vertices mostly bound to the left hand (左手首 and the left fingers).
fn left_hand_vertices(model: &Model) -> Vec<usize> {
    let is_left_hand = |b: u32| {
        model.skeleton.bones.get(b as usize).is_some_and(|bone| {
            bone.name == "左手首" || (bone.name.starts_with('左') && bone.name.contains('指'))
        })
    };
    (0..model.positions.len())
        .filter(|&i| {
            let (bones, weights) = model.deforms[i].bones_and_weights();
            bones
                .iter()
                .zip(weights)
                .filter(|(b, _)| is_left_hand(**b))
                .map(|(_, w)| w)
                .sum::<f32>()
                > 0.5
        })
        .collect()
}

#[test]
fn left_hand_appears_on_the_viewers_right_from_the_front() {
    let (Some(o), Some((lm, t))) = (offscreen(), mei()) else {
        return;
    };
    // Lift the left hand 6 units (above the shoulders) so the picture is
    // not left-right symmetric; a mirrored picture would show it on the left.
    let hand = left_hand_vertices(&lm.model);
    assert!(hand.len() > 50, "{} left-hand vertices", hand.len());
    let mut mesh = t.mesh.clone();
    for &i in &hand {
        mesh.vertices[i].position[1] += 6.0;
    }
    let (w, h) = (200, 200);
    let v = full_body();
    let img = picture(o, &[&mesh], v, Light::MMD_DEFAULT, w, h);
    let drawn = drawn_mask_over(&img, 24);
    let centroid = hand
        .iter()
        .map(|&i| Vec3::from(mesh.vertices[i].position))
        .sum::<Vec3>()
        / hand.len() as f32;
    assert!(centroid.x > 4.0, "MMD's left is +X: {centroid}");
    let (x, y, _) = v.project(centroid, w, h).unwrap();
    let (mx, my, _) = v
        .project(centroid * Vec3::new(-1.0, 1.0, 1.0), w, h)
        .unwrap();
    assert!(x > w as f32 / 2.0, "projected to the right half: {x}");
    let around = |cx: f32, cy: f32| {
        let mut n = 0;
        for yy in (cy as i32 - 3)..=(cy as i32 + 3) {
            for xx in (cx as i32 - 3)..=(cx as i32 + 3) {
                if drawn[(yy as u32 * w + xx as u32) as usize] {
                    n += 1;
                }
            }
        }
        n
    };
    assert!(around(x, y) > 20, "lifted left hand drawn at ({x}, {y})");
    assert_eq!(
        around(mx, my),
        0,
        "nothing at the mirror position ({mx}, {my})"
    );
}

/// Bilinear-free texel lookup at `uv` (wrapping).
fn texel(t: &TextureRgba, u: f32, v: f32) -> [u8; 4] {
    let x = ((u.rem_euclid(1.0) * t.width as f32) as u32).min(t.width - 1);
    let y = ((v.rem_euclid(1.0) * t.height as f32) as u32).min(t.height - 1);
    t.pixel(x, y).unwrap()
}

#[test]
fn face_texture_pixel_has_the_textures_colour() {
    let (Some(o), Some((lm, t))) = (offscreen(), mei()) else {
        return;
    };
    let model = &lm.model;
    let face_tex = model
        .textures
        .iter()
        .position(|n| n == "face.png")
        .expect("Mei names face.png");
    let face_mat = model
        .materials
        .iter()
        .position(|m| m.texture == Some(face_tex))
        .expect("a face material");
    let range = model.material_ranges()[face_mat].clone();
    let tex = t.mesh.textures[face_tex]
        .as_ref()
        .expect("face.png decoded");
    let (w, h) = (400, 400);
    let v = face_view();
    let light = Light {
        color: [0.6; 3],
        direction: [0.0, 0.0, 1.0],
    };
    let img = picture(o, &[&t.mesh], v, light, w, h);
    let pos = positions(&t.mesh);
    let indices = drawn_indices(model);
    let hits = cpu_raster(&pos, &indices, &v, w, h);
    // `drawn_indices` keeps the order; find where the face material starts in it.
    let face_first_tri = {
        let ranges = model.material_ranges();
        ranges[..face_mat]
            .iter()
            .zip(&model.materials)
            .filter(|(_, m)| m.diffuse.w > 0.0)
            .map(|(r, _)| r.len() / 3)
            .sum::<usize>()
    };
    let face_tris = face_first_tri..face_first_tri + range.len() / 3;
    let mat = &model.materials[face_mat];
    let mut checked = 0;
    let mut worst = 0u8;
    for y in 8..h - 8 {
        for x in 8..w - 8 {
            let Some(hit) = hits[(y * w + x) as usize] else {
                continue;
            };
            if !face_tris.contains(&hit.triangle) {
                continue;
            }
            // Well inside one triangle.
            let same = (-1i32..=1).all(|dy| {
                (-1i32..=1).all(|dx| {
                    hits[((y as i32 + dy) as u32 * w + (x as i32 + dx) as u32) as usize]
                        .is_some_and(|o| o.triangle == hit.triangle)
                })
            });
            if !same {
                continue;
            }
            let tri = &indices[hit.triangle * 3..hit.triangle * 3 + 3];
            let interp = |f: &dyn Fn(usize) -> Vec3| -> Vec3 {
                (0..3).map(|k| f(tri[k] as usize) * hit.bary[k]).sum()
            };
            let n = interp(&|i| Vec3::from(t.mesh.vertices[i].normal)).normalize();
            let p = interp(&|i| Vec3::from(t.mesh.vertices[i].position));
            let uv =
                interp(&|i| Vec3::new(t.mesh.vertices[i].uv[0], t.mesh.vertices[i].uv[1], 0.0));
            let lambert = n.dot(Vec3::new(0.0, 0.0, -1.0));
            if lambert < 0.7 {
                continue; // keep to the lit top of the toon ramp
            }
            // A texel area of one colour, so filtering cannot matter.
            let c = texel(tex, uv.x, uv.y);
            let du = 3.0 / tex.width as f32;
            let dv = 3.0 / tex.height as f32;
            let uniform = [(-du, -dv), (du, -dv), (-du, dv), (du, dv), (0.0, 0.0)]
                .iter()
                .all(|(a, b)| close(texel(tex, uv.x + a, uv.y + b), c, 4));
            if !uniform || c[3] < 250 {
                continue;
            }
            // Base saturate(1·0.6 + 1) = 1; × texture; × toon top row (white);
            // + specular 0.1 · 0.6 · (H·N)^power.
            let hv = ((v.eye - p).normalize() + Vec3::new(0.0, 0.0, -1.0)).normalize();
            let spec = if mat.specular_power > 0.0 {
                hv.dot(n).max(0.0).powf(mat.specular_power)
            } else {
                0.0
            };
            let expect: [u8; 4] = std::array::from_fn(|k| {
                if k == 3 {
                    255
                } else {
                    let s = spec * mat.specular[k] * 0.6;
                    ((f32::from(c[k]) / 255.0 + s).min(1.0) * 255.0).round() as u8
                }
            });
            let got = img.pixel(x, y).unwrap();
            let diff = got
                .iter()
                .zip(expect)
                .map(|(a, b)| a.abs_diff(b))
                .max()
                .unwrap_or(0);
            worst = worst.max(diff);
            assert!(
                diff <= 8,
                "pixel ({x}, {y}) uv {uv}: got {got:?}, texture {c:?} → expected {expect:?}"
            );
            checked += 1;
        }
    }
    eprintln!("face pixels checked: {checked}, worst difference {worst}");
    assert!(checked > 100, "only {checked} face pixels qualified");
}

fn vertex_morph(model: &Model, name: &str) -> Vec<(usize, Vec3)> {
    let m = model
        .morphs
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("morph {name}"));
    match &m.kind {
        MorphKind::Vertex(offsets) => offsets
            .iter()
            .map(|o| (o.vertex as usize, o.offset))
            .collect(),
        other => panic!("{name} is not a vertex morph: {other:?}"),
    }
}

/// Pixels that differ between two pictures, split into inside/outside the
/// box around the projected morph vertices (grown by 4 px).
fn changes(a: &TextureRgba, b: &TextureRgba, v: &ViewParams, moved: &[Vec3]) -> (usize, usize) {
    let (w, h) = (a.width, a.height);
    let pts: Vec<(f32, f32)> = moved
        .iter()
        .filter_map(|p| v.project(*p, w, h))
        .map(|(x, y, _)| (x, y))
        .collect();
    let x0 = pts.iter().map(|p| p.0).fold(f32::MAX, f32::min) - 4.0;
    let x1 = pts.iter().map(|p| p.0).fold(f32::MIN, f32::max) + 4.0;
    let y0 = pts.iter().map(|p| p.1).fold(f32::MAX, f32::min) - 4.0;
    let y1 = pts.iter().map(|p| p.1).fold(f32::MIN, f32::max) + 4.0;
    let (mut inside, mut outside) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            if !close(a.pixel(x, y).unwrap(), b.pixel(x, y).unwrap(), 2) {
                let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
                if fx >= x0 && fx <= x1 && fy >= y0 && fy <= y1 {
                    inside += 1;
                } else {
                    outside += 1;
                }
            }
        }
    }
    (inside, outside)
}

/// The mesh posed by the model layer with only morph `name` at `weight`.
fn posed_with_morph(lm: &LoadedModel, t: &MeshTemplate, name: &str, weight: f32) -> RenderMesh {
    let model = &lm.model;
    let k = model
        .morphs
        .iter()
        .position(|m| m.name == name)
        .unwrap_or_else(|| panic!("morph {name}"));
    let mut posing = ModelPosing::new(model);
    posing.pose_input(model, |input| input.morphs[k] = weight);
    let mut mesh = t.mesh.clone();
    posed_vertices(model, &posing.posed, &mut mesh.vertices);
    mesh
}

fn morph_changes_only_its_region(lm: &LoadedModel, t: &MeshTemplate, name: &str) {
    let o = offscreen().expect("checked by caller");
    let offsets = vertex_morph(&lm.model, name);
    let v = face_view();
    let (w, h) = (200, 200);
    let rest = picture(o, &[&t.mesh], v, Light::MMD_DEFAULT, w, h);
    let zero = picture(
        o,
        &[&posed_with_morph(lm, t, name, 0.0)],
        v,
        Light::MMD_DEFAULT,
        w,
        h,
    );
    let one_mesh = posed_with_morph(lm, t, name, 1.0);
    // The model layer moved exactly the morph's vertices by its offsets.
    for (i, d) in &offsets {
        let moved =
            Vec3::from(one_mesh.vertices[*i].position) - Vec3::from(t.mesh.vertices[*i].position);
        assert!(
            (moved - *d).length() < 1e-3,
            "vertex {i} moved {moved}, offset {d}"
        );
    }
    let one = picture(o, &[&one_mesh], v, Light::MMD_DEFAULT, w, h);
    // The region: where the moved vertices are, before and after.
    let mut moved: Vec<Vec3> = offsets
        .iter()
        .map(|(i, _)| Vec3::from(t.mesh.vertices[*i].position))
        .collect();
    moved.extend(
        offsets
            .iter()
            .map(|(i, _)| Vec3::from(one_mesh.vertices[*i].position)),
    );
    assert_eq!(
        changes(&rest, &zero, &v, &moved),
        (0, 0),
        "{name} at weight 0 changes nothing"
    );
    let (inside, outside) = changes(&rest, &one, &v, &moved);
    eprintln!("{name}: {inside} pixels changed in its region, {outside} outside");
    assert!(
        inside > 30,
        "{name} at weight 1 changes its region ({inside} px)"
    );
    assert_eq!(outside, 0, "{name} changes nothing elsewhere");
}

#[test]
fn mei_a_morph_opens_the_mouth_region_only() {
    let (Some(_), Some((lm, t))) = (offscreen(), mei()) else {
        return;
    };
    morph_changes_only_its_region(lm, t, "あ");
}

#[test]
fn demo_mannequin_a_and_blink_morphs_change_their_regions() {
    let Some(_) = offscreen() else { return };
    let (lm, t) = demo();
    morph_changes_only_its_region(lm, t, "あ");
    morph_changes_only_its_region(lm, t, "まばたき");
}

/// Mean (R − G) over the pixels that show the model.
fn redness(img: &TextureRgba) -> f64 {
    let mask = drawn_mask_over(img, 24);
    let (mut sum, mut n) = (0.0, 0);
    for (p, d) in img.pixels.chunks_exact(4).zip(mask) {
        if d {
            sum += f64::from(p[0]) - f64::from(p[1]);
            n += 1;
        }
    }
    sum / n.max(1) as f64
}

#[test]
fn red_light_makes_lit_pixels_redder() {
    let Some(o) = offscreen() else { return };
    // Mei's materials (ambient 1) saturate the base colour, so on her only
    // the specular term carries the light colour; the mannequin's colours
    // (ambient 0.55) show it in the base colour too.
    let mut models: Vec<&MeshTemplate> = vec![&demo().1];
    if let Some((_, t)) = mei() {
        models.push(t);
    }
    for t in models {
        let v = full_body();
        let grey = picture(o, &[&t.mesh], v, Light::MMD_DEFAULT, 160, 160);
        let red = picture(
            o,
            &[&t.mesh],
            v,
            Light {
                color: [1.0, 0.25, 0.25],
                ..Light::MMD_DEFAULT
            },
            160,
            160,
        );
        let (g, r) = (redness(&grey), redness(&red));
        eprintln!("mean R−G: default light {g:.1}, red light {r:.1}");
        assert!(r > g + 3.0, "default {g}, red {r}");
    }
}

#[test]
fn mei_with_every_texture_missing_still_renders() {
    let (Some(o), Some((full, t))) = (offscreen(), mei()) else {
        return;
    };
    // Mei's .pmd alone in an empty folder: all 16 textures are missing.
    let dir = std::env::temp_dir().join(format!("vmd-studio-mei-bare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = common::corpus().unwrap().join("mei/mei.pmd");
    let path = dir.join("mei.pmd");
    std::fs::copy(&src, &path).unwrap();
    let bare =
        LoadedModel::open(Path::new(&path)).expect("a model with missing textures still loads");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        bare.textures.missing().len(),
        full.model.textures.len(),
        "{:?}",
        bare.textures.missing()
    );
    let bt = MeshTemplate::new(&bare.model, &bare.textures);
    let v = full_body();
    let textured = picture(o, &[&t.mesh], v, Light::MMD_DEFAULT, 200, 200);
    let plain = picture(o, &[&bt.mesh], v, Light::MMD_DEFAULT, 200, 200);
    let score = iou(
        &drawn_mask_over(&textured, 24),
        &drawn_mask_over(&plain, 24),
    );
    assert!(score > 0.97, "same figure without textures: IoU {score}");
    // Without textures Mei's material colour is white × toon: no pixel is
    // darker than the darkest toon shadow, and most are light.
    let light = plain
        .pixels
        .chunks_exact(4)
        .zip(drawn_mask_over(&plain, 24))
        .filter(|(p, d)| *d && p[0] > 150 && p[1] > 150 && p[2] > 150)
        .count();
    let drawn = drawn_mask_over(&plain, 24).iter().filter(|d| **d).count();
    assert!(light * 10 > drawn * 8, "{light} of {drawn} pixels light");
}

#[test]
#[ignore]
fn dump_pictures() {
    let o = offscreen().unwrap();
    let (lm, t) = demo();
    let v = full_body();
    let img = picture_on(o, &[&t.mesh], v, Light::MMD_DEFAULT, 400, 400, GREEN);
    img.save_png(Path::new("/tmp/demo_full.png")).unwrap();
    let cpu = cpu_silhouette(&positions(&t.mesh), &drawn_indices(&lm.model), &v, 400, 400);
    let gpu = mask_on_green(&img);
    let mut diff = TextureRgba::solid(400, 400, [0, 0, 0, 255]);
    for i in 0..cpu.len() {
        let c = match (cpu[i], gpu[i]) {
            (true, true) => [255, 255, 255, 255],
            (true, false) => [255, 0, 0, 255],
            (false, true) => [0, 255, 0, 255],
            _ => [0, 0, 0, 255],
        };
        diff.pixels[i * 4..i * 4 + 4].copy_from_slice(&c);
    }
    diff.save_png(Path::new("/tmp/demo_diff.png")).unwrap();
    if let Some((_, t)) = mei() {
        picture(o, &[&t.mesh], v, Light::MMD_DEFAULT, 400, 400)
            .save_png(Path::new("/tmp/mei_full.png"))
            .unwrap();
        picture(o, &[&t.mesh], face_view(), Light::MMD_DEFAULT, 400, 400)
            .save_png(Path::new("/tmp/mei_face.png"))
            .unwrap();
    }
}
