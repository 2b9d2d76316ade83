//! Morphs and skinning on the GPU (`src/render/skin.wgsl`) against the CPU
//! path (`src/model/skin.rs`, the reference): the vertices the compute pass
//! writes are read back and compared with the CPU's, on every deform kind
//! of the corpus (BDEF1/2/4, SDEF, QDEF, vertex and UV morphs); SDEF is
//! also checked against values worked out here; and the same posed model
//! is drawn both ways through the offscreen renderer and the pictures
//! compared. Needs a GPU adapter with compute shaders (lavapipe is enough;
//! skipped without one, except under CI=true) and the corpus.
#![cfg(feature = "render")]

mod common;
mod render_support;

use std::path::Path;

use glam::{Mat4, Quat, Vec3, Vec4};
use render_support::*;
use vmd_studio::model::{
    LoadedModel, Model, Morph, MorphKind, PoseEngine, TextureSet, UvOffset, VertexOffset,
};
use vmd_studio::render::from_model::posed_vertices;
use vmd_studio::render::{
    FrameParams, GpuModel, Light, MeshTemplate, Offscreen, RenderVertex, Shadows, ViewParams,
};
use vmd_studio::vmd::{self, IndexedMotion};

/// The shared offscreen GPU when it skins on the GPU, else `None` (skip).
fn gpu() -> Option<&'static Offscreen> {
    let o = offscreen()?;
    if !o.renderer.gpu_skinning() {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true: the adapter has no compute shaders for GPU skinning");
        }
        eprintln!("SKIPPED: this adapter cannot skin on the GPU");
        return None;
    }
    Some(o)
}

fn open(corpus: &Path, name: &str) -> Model {
    Model::open(&corpus.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A deterministic pose: every bone turned by up to ~0.7 rad about a
/// varying axis and moved a little, every morph at 0.6 (group and flip
/// morphs included).
fn busy_pose(engine: &mut PoseEngine, model: &Model) {
    engine.pose_input(model, |input| {
        let mut x: u32 = 0x1234_5678;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 2001) as f32 / 1000.0 - 1.0
        };
        for (t, r) in input.translations.iter_mut().zip(&mut input.rotations) {
            let axis = Vec3::new(next(), next(), next() + 0.01).normalize();
            *r = Quat::from_axis_angle(axis, 0.7 * next());
            *t = Vec3::new(next(), next(), next()) * 0.2;
        }
        for w in &mut input.morphs {
            *w = 0.6;
        }
    });
}

/// The model's size (largest extent of its rest positions), for tolerances.
fn size(model: &Model) -> f32 {
    let (lo, hi) = model.positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    (hi - lo).max_element().max(1.0)
}

/// Largest position, normal and UV differences between two vertex lists.
fn worst(a: &[RenderVertex], b: &[RenderVertex]) -> (f32, f32, f32) {
    assert_eq!(a.len(), b.len());
    let d = |x: &[f32], y: &[f32]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0f32, f32::max)
    };
    a.iter().zip(b).fold((0.0, 0.0, 0.0), |(p, n, u), (x, y)| {
        (
            p.max(d(&x.position, &y.position)),
            n.max(d(&x.normal, &y.normal)),
            u.max(d(&x.uv, &y.uv)),
        )
    })
}

/// Poses `model` with [`busy_pose`] and returns (CPU vertices, GPU vertices).
fn both_ways(o: &Offscreen, model: &Model) -> (Vec<RenderVertex>, Vec<RenderVertex>) {
    let template = MeshTemplate::new(model, &TextureSet::default());
    let mut gpu_model = o.upload_template(&template).expect("upload");
    assert!(gpu_model.is_gpu_skinned());
    let mut engine = PoseEngine::new(model);
    busy_pose(&mut engine, model);
    let mut cpu = Vec::new();
    posed_vertices(model, &engine.posed, &mut cpu);
    let (device, queue) = (&o.gpu.device, &o.gpu.queue);
    gpu_model
        .update_pose(
            device,
            queue,
            &engine.posed.skinning,
            &engine.posed.applied_morphs,
        )
        .expect("pose");
    let gpu = gpu_model.read_vertices(device, queue).expect("readback");
    (cpu, gpu)
}

/// Position tolerance: 2e-5 of the model's size (f32 has 6e-8 relative
/// precision; the GPU's acos/sin and fused multiply-adds differ from
/// glam's by a few ulps, amplified through a bone chain).
const POSITION_TOL: f32 = 2e-5;
/// Normals are unit vectors: 1e-4 absolute.
const NORMAL_TOL: f32 = 1e-4;
/// UVs: 1e-5 absolute.
const UV_TOL: f32 = 1e-5;

#[test]
fn gpu_skinning_matches_the_cpu_on_every_deform_kind_and_morph() {
    let Some(o) = gpu() else { return };
    let Some(corpus) = common::corpus() else {
        return;
    };
    for name in [
        "pmx-features/bdef1-single-bone-quad.pmx",
        "pmx-features/bdef2-two-bone-strip.pmx",
        "pmx-features/bdef4-twist-cylinder.pmx",
        "pmx-features/sdef-two-bone-elbow.pmx",
        "pmx-features/qdef-twist-cylinder.pmx",
        "pmx-features/mixed-deform-types.pmx",
        "mmdagent__mei.pmd",
        "unitymmdloader__mmt_test_model.pmx",
    ] {
        let model = open(&corpus, name);
        let (cpu, gpu) = both_ways(o, &model);
        let (p, n, u) = worst(&cpu, &gpu);
        let tol = POSITION_TOL * size(&model);
        eprintln!("{name}: position {p:e} (tol {tol:e}), normal {n:e}, uv {u:e}");
        assert!(p <= tol, "{name}: positions differ by {p} (> {tol})");
        assert!(n <= NORMAL_TOL, "{name}: normals differ by {n}");
        assert!(u <= UV_TOL, "{name}: UVs differ by {u}");
        // The pose moved the mesh (a pass that wrote rest vertices would fail).
        let moved = cpu
            .iter()
            .zip(&model.positions)
            .filter(|(v, r)| Vec3::from(v.position).distance(**r) > 1e-3)
            .count();
        assert!(
            moved * 2 > cpu.len(),
            "{name}: the pose moved {moved} vertices"
        );
    }
}

/// The strip fixture with a main-UV morph, an additional-UV morph (not
/// drawn) and two vertex morphs on the same vertices added: deltas sum in
/// morph order, UVs move by `weight × offset`.
#[test]
fn vertex_and_uv_morphs_match_the_cpu() {
    let Some(o) = gpu() else { return };
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut model = open(&corpus, "pmx-features/bdef2-two-bone-strip.pmx");
    let n = model.positions.len() as u32;
    let morph = |name: &str, kind| Morph {
        name: name.into(),
        name_en: String::new(),
        panel: 4,
        kind,
    };
    let uv = |channel, k: u32| MorphKind::Uv {
        channel,
        offsets: (0..n)
            .step_by(k as usize)
            .map(|v| UvOffset {
                vertex: v,
                offset: Vec4::new(0.25, -0.5, 0.0, 0.0),
            })
            .collect(),
    };
    let push = |k: u32, d: Vec3| {
        MorphKind::Vertex(
            (0..n)
                .step_by(k as usize)
                .map(|v| VertexOffset {
                    vertex: v,
                    offset: d,
                })
                .collect(),
        )
    };
    model.morphs.push(morph("uv", uv(0, 2)));
    model.morphs.push(morph("uv1", uv(1, 1)));
    model
        .morphs
        .push(morph("push", push(1, Vec3::new(0.1, 0.2, 0.3))));
    model
        .morphs
        .push(morph("pull", push(3, Vec3::new(-1.0, 0.5, 2.0))));
    let (cpu, gpu) = both_ways(o, &model);
    let (p, nrm, u) = worst(&cpu, &gpu);
    assert!(p <= POSITION_TOL * size(&model), "positions differ by {p}");
    assert!(nrm <= NORMAL_TOL && u <= UV_TOL, "normal {nrm}, uv {u}");
    // Vertex 0 has the main-UV morph at 0.6: u + 0.15, v − 0.3; vertex 1 not.
    let rest = &model.uvs;
    assert!(
        (gpu[0].uv[0] - (rest[0].x + 0.15)).abs() < 1e-6,
        "{:?}",
        gpu[0].uv
    );
    assert!(
        (gpu[0].uv[1] - (rest[0].y - 0.3)).abs() < 1e-6,
        "{:?}",
        gpu[0].uv
    );
    assert!((gpu[1].uv[0] - rest[1].x).abs() < 1e-6, "{:?}", gpu[1].uv);
}

/// The SDEF vertices of the elbow fixture, worked out here from MMD's
/// formula (not from either implementation): with both bones turned by the
/// same rotation the deform is that rigid turn; with the second bone bent
/// 90° the result is `slerp(q0, q1, w1)·(p − C) + w0·S0·cr0 + w1·S1·cr1`.
#[test]
fn sdef_vertices_follow_mmds_formula_on_the_gpu() {
    let Some(o) = gpu() else { return };
    let Some(corpus) = common::corpus() else {
        return;
    };
    let model = open(&corpus, "pmx-features/sdef-two-bone-elbow.pmx");
    let sdef: Vec<usize> = (0..model.deforms.len())
        .filter(|&i| model.deforms[i].kind_name() == "SDEF")
        .collect();
    assert!(!sdef.is_empty(), "the fixture has SDEF vertices");
    let template = MeshTemplate::new(&model, &TextureSet::default());
    let mut gm = o.upload_template(&template).expect("upload");
    let (device, queue) = (&o.gpu.device, &o.gpu.queue);
    let n = model.skeleton.bones.len();
    let rest: Vec<Vec3> = model
        .skeleton
        .bones
        .iter()
        .map(|b| b.rest_position)
        .collect();

    // 1. Every bone turned 40° about (1, 2, 3) around the origin: rigid.
    let turn = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 40f32.to_radians());
    let rigid = vec![Mat4::from_quat(turn); n];
    gm.update_pose(device, queue, &rigid, &[]).expect("pose");
    let got = gm.read_vertices(device, queue).expect("readback");
    for &i in &sdef {
        let want = turn * model.positions[i];
        let have = Vec3::from(got[i].position);
        assert!(have.distance(want) < 1e-4, "vertex {i}: {have} vs {want}");
        let nw = turn * model.normals[i];
        assert!(Vec3::from(got[i].normal).distance(nw) < 1e-4);
    }

    // 2. Bone b1 of each SDEF vertex bent 90° about Z at its head, b0 still.
    let vmd_studio::model::Deform::Sdef {
        bones,
        weight: _,
        c: _,
        r0: _,
        r1: _,
    } = model.deforms[sdef[0]]
    else {
        unreachable!()
    };
    let b1 = bones[1] as usize;
    let bend = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let mut skinning = vec![Mat4::IDENTITY; n];
    skinning[b1] = Mat4::from_translation(rest[b1])
        * Mat4::from_quat(bend)
        * Mat4::from_translation(-rest[b1]);
    gm.update_pose(device, queue, &skinning, &[]).expect("pose");
    let got = gm.read_vertices(device, queue).expect("readback");
    let mut apart_from_linear = 0.0f32;
    for &i in &sdef {
        let vmd_studio::model::Deform::Sdef {
            bones,
            weight,
            c,
            r0,
            r1,
        } = model.deforms[i]
        else {
            unreachable!()
        };
        let (w0, w1) = (weight, 1.0 - weight);
        let s = |b: u32| skinning.get(b as usize).copied().unwrap_or(Mat4::IDENTITY);
        let (s0, s1) = (s(bones[0]), s(bones[1]));
        // The constants, from the PMX spec's SDEF (saba's MMDModel.cpp).
        let rw = r0 * w0 + r1 * w1;
        let cr0 = (c + (c + r0 - rw)) * 0.5;
        let cr1 = (c + (c + r1 - rw)) * 0.5;
        let q0 = Quat::from_mat4(&s0);
        let q1 = Quat::from_mat4(&s1);
        let q1 = if q0.dot(q1) < 0.0 { -q1 } else { q1 };
        let rot = q0.slerp(q1, w1).normalize();
        let p = model.positions[i];
        let want = rot * (p - c) + s0.transform_point3(cr0) * w0 + s1.transform_point3(cr1) * w1;
        let have = Vec3::from(got[i].position);
        assert!(
            have.distance(want) < 1e-4 * size(&model),
            "SDEF vertex {i}: {have} vs {want}"
        );
        let linear = (s0 * w0 + s1 * w1).transform_point3(p);
        apart_from_linear = apart_from_linear.max(have.distance(linear));
    }
    // The bend shows SDEF's volume keeping: some vertex is far from BDEF2.
    assert!(
        apart_from_linear > 1e-3 * size(&model),
        "SDEF equals the linear blend everywhere ({apart_from_linear})"
    );
}

/// Mei wearing the wait motion, drawn through the offscreen renderer once
/// with CPU-skinned vertices and once skinned on the GPU: the pictures
/// match. Tolerance: no channel of any pixel differs by more than 8 levels
/// except on at most 0.2 % of the pixels (silhouette pixels whose coverage
/// flips under MSAA with a last-bit change of a vertex).
#[test]
fn mei_drawn_gpu_skinned_matches_the_cpu_skinned_picture() {
    let Some(o) = gpu() else { return };
    let Some(corpus) = common::corpus() else {
        return;
    };
    let LoadedModel {
        model, textures, ..
    } = LoadedModel::open(&corpus.join("mei/mei.pmd")).expect("Mei");
    let bytes = std::fs::read(corpus.join("mmdagent__mei_wait.vmd")).expect("motion");
    let motion = IndexedMotion::new(vmd::read(&bytes).expect("vmd"));
    let template = MeshTemplate::new(&model, &textures);
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    engine.pose(&model, Some(motion.as_ref()), 47.5);

    let (device, queue) = (&o.gpu.device, &o.gpu.queue);
    let mut cpu_model = o.upload(&template.mesh).expect("upload");
    let mut vertices = Vec::new();
    posed_vertices(&model, &engine.posed, &mut vertices);
    cpu_model
        .update_vertices(queue, &vertices)
        .expect("vertices");
    let mut gpu_model = o.upload_template(&template).expect("upload");
    gpu_model
        .update_pose(
            device,
            queue,
            &engine.posed.skinning,
            &engine.posed.applied_morphs,
        )
        .expect("pose");

    let (w, h) = (256, 320);
    let target = o.target(w, h).expect("target");
    let frame = FrameParams {
        view: ViewParams::mmd_camera(
            [0.0, 11.0, 0.0],
            [0.0; 3],
            -30.0,
            30.0,
            true,
            w as f32 / h as f32,
        ),
        light: Light::MMD_DEFAULT,
        lines: &[],
        overlay_lines: &[],
        shadows: Shadows::MMD_DEFAULT,
    };
    let draw = |m: &GpuModel| {
        o.picture(&target, &frame, &[m], BACKGROUND)
            .expect("picture")
    };
    let a = draw(&cpu_model);
    let b = draw(&gpu_model);
    let covered = a
        .pixels
        .chunks_exact(4)
        .filter(|p| !close([p[0], p[1], p[2], p[3]], BACKGROUND_BYTES, 1))
        .count();
    assert!(
        covered > (w * h / 10) as usize,
        "Mei covers {covered} pixels"
    );
    let mut off = 0usize;
    let mut worst_diff = 0u8;
    for (p, q) in a.pixels.chunks_exact(4).zip(b.pixels.chunks_exact(4)) {
        let d = p
            .iter()
            .zip(q)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        worst_diff = worst_diff.max(d);
        if d > 8 {
            off += 1;
        }
    }
    let total = (w * h) as usize;
    eprintln!("Mei: {off} of {total} pixels differ by > 8 (worst {worst_diff}); {covered} covered");
    assert!(
        off * 500 <= total,
        "{off} of {total} pixels differ by more than 8 levels"
    );
}

/// The CLI's stage (render, storyboard, video export) skins on the GPU.
#[test]
fn the_stage_skins_on_the_gpu() {
    if gpu().is_none() {
        return;
    }
    let Ok(off) = Offscreen::new() else { return };
    let mut stage = vmd_studio::render::stage::Stage::new(off);
    let demo = vmd_studio::render::stage::demo_model().expect("demo model");
    stage.add_actor(demo, None, 0.0).expect("actor");
    assert!(stage.actors[0].gpu_skinned());
    let target = stage.target(64, 64).expect("target");
    let img = stage.picture(&target, 0.0).expect("picture");
    assert!(
        img.pixels
            .chunks_exact(4)
            .any(|p| p[..3] != [255, 255, 255])
    );
}
