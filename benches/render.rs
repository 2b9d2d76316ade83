//! Renderer benchmarks (criterion), issue 11 target: with Mei and a dance,
//! the viewport's CPU work per frame — pose + skin (model layer), convert
//! to the renderer's vertices and materials, upload, encode and submit the
//! frame — ≤ 2 ms. The GPU's own time (lavapipe runs it on the CPU too) is
//! measured apart, as the wall time of a frame read back.
//!
//! Issue 37: one model's GPU-skinned frame (`prepare_gpu_frame`: bones,
//! physics when on, material morphs, the packed pose — the per-actor core
//! of the viewport's posing, which `examples/frame_cost.rs` times whole)
//! against the bones-only step and the old CPU-skinned frame, on Mei and
//! the MMT test model, stepping 60 fps (half a motion frame) from frame 0.
//!
//! Run: `cargo bench --no-default-features --features render --bench render`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use vmd_studio::model::LoadedModel;
use vmd_studio::model::physics::SimulationMode;
use vmd_studio::render::from_model::{
    GpuFrameData, ModelPosing, posed_materials, posed_vertices, prepare_gpu_frame,
};
use vmd_studio::render::{FrameParams, Light, MeshTemplate, Offscreen, Shadows, ViewParams};
use vmd_studio::vmd::{self, IndexedMotion};

fn corpus_dir() -> PathBuf {
    std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")))
}

fn bench(c: &mut Criterion) {
    let dir = corpus_dir();
    let Ok(lm) = LoadedModel::open(&dir.join("mei/mei.pmd")) else {
        eprintln!("corpus missing: skipping");
        return;
    };
    let Ok(motion) = std::fs::read(dir.join("mmdagent__mei_wait.vmd"))
        .map_err(|e| e.to_string())
        .and_then(|b| vmd::read(&b).map_err(|e| e.to_string()))
    else {
        return;
    };
    let motion = IndexedMotion::new(motion);
    let model = &lm.model;
    let template = MeshTemplate::new(model, &lm.textures);
    let mut posing = ModelPosing::new(model);
    posing.bind(model, Some(&motion.index));
    let mut vertices = Vec::new();
    let mut materials = Vec::new();
    let mut frame = 0.0f64;
    c.bench_function("mei pose + skin + convert (CPU)", |b| {
        b.iter(|| {
            frame = (frame + 0.5) % 120.0;
            posing.pose(model, Some(motion.as_ref()), frame);
            posed_vertices(model, &posing.posed, &mut vertices);
            posed_materials(&template.mesh.materials, &posing.posed, &mut materials);
            black_box(vertices.len());
        })
    });
    let Ok(off) = Offscreen::new() else {
        eprintln!("no GPU adapter: skipping the GPU benchmarks");
        return;
    };
    eprintln!(
        "GPU: {} ({}x MSAA)",
        off.gpu.describe(),
        off.renderer.samples()
    );
    let Ok(mut gpu_model) = off.upload(&template.mesh) else {
        return;
    };
    let Ok(target) = off.target(1280, 720) else {
        return;
    };
    let view = ViewParams::mmd_camera([0.0, 10.0, 0.0], [0.0; 3], -40.0, 30.0, true, 16.0 / 9.0);
    c.bench_function(
        "mei viewport frame CPU: pose + upload + encode + submit",
        |b| {
            b.iter(|| {
                frame = (frame + 0.5) % 120.0;
                posing.pose(model, Some(motion.as_ref()), frame);
                posed_vertices(model, &posing.posed, &mut vertices);
                posed_materials(&template.mesh.materials, &posing.posed, &mut materials);
                let _ = gpu_model.update_vertices(&off.gpu.queue, &vertices);
                let _ = gpu_model.update_materials(&off.gpu.queue, &materials);
                let params = FrameParams {
                    view,
                    light: Light::MMD_DEFAULT,
                    lines: &[],
                    overlay_lines: &[],
                    shadows: Shadows::MMD_DEFAULT,
                };
                target.render(
                    &off.renderer,
                    &off.gpu.device,
                    &off.gpu.queue,
                    &params,
                    &[&gpu_model],
                    [1.0; 4],
                );
                // Keep the queue from growing without waiting on this frame.
                let _ = off
                    .gpu
                    .device
                    .poll(vmd_studio::render::wgpu::PollType::Poll);
            })
        },
    );
    // The CPU side alone: on a software adapter (lavapipe) the submitted
    // frame is rasterised on the CPU too and the bench above waits for it.
    // Here the frame is encoded but not submitted; the uploads are flushed
    // with an empty submit (what reaches the GPU queue on real hardware).
    c.bench_function(
        "mei viewport frame CPU: pose + upload + encode (no raster)",
        |b| {
            b.iter(|| {
                frame = (frame + 0.5) % 120.0;
                posing.pose(model, Some(motion.as_ref()), frame);
                posed_vertices(model, &posing.posed, &mut vertices);
                posed_materials(&template.mesh.materials, &posing.posed, &mut materials);
                let _ = gpu_model.update_vertices(&off.gpu.queue, &vertices);
                let _ = gpu_model.update_materials(&off.gpu.queue, &materials);
                let params = FrameParams {
                    view,
                    light: Light::MMD_DEFAULT,
                    lines: &[],
                    overlay_lines: &[],
                    shadows: Shadows::MMD_DEFAULT,
                };
                let mut encoder = off.gpu.device.create_command_encoder(
                    &vmd_studio::render::wgpu::CommandEncoderDescriptor {
                        label: Some("bench frame"),
                    },
                );
                target.encode(
                    &off.renderer,
                    &off.gpu.device,
                    &off.gpu.queue,
                    &mut encoder,
                    &params,
                    &[&gpu_model],
                    [1.0; 4],
                );
                black_box(encoder.finish());
                off.gpu.queue.submit([]);
                let _ = off
                    .gpu
                    .device
                    .poll(vmd_studio::render::wgpu::PollType::Poll);
            })
        },
    );
    let mut g = c.benchmark_group("gpu");
    g.sample_size(10);
    // With MMD's shadows (ground + self-shadow mode 1) and without.
    for (name, shadows) in [
        (
            "mei 1280x720 frame rendered and read back",
            Shadows::MMD_DEFAULT,
        ),
        (
            "mei 1280x720 frame rendered and read back, no shadows",
            Shadows::NONE,
        ),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let params = FrameParams {
                    view,
                    light: Light::MMD_DEFAULT,
                    lines: &[],
                    overlay_lines: &[],
                    shadows,
                };
                black_box(
                    off.picture(&target, &params, &[&gpu_model], [1.0; 4])
                        .map(|p| p.pixels.len()),
                )
            })
        });
    }
    g.finish();
}

/// One model and motion of the frame-cost benches: (label, model, motion).
const FRAME_COST_CASES: [(&str, &str, &str); 2] = [
    ("mei", "mmdagent__mei.pmd", "mmdagent__mei_wait.vmd"),
    (
        "mmt",
        "unitymmdloader__mmt_test_model.pmx",
        "unitymmdloader__mmt_test_model_test_motion.vmd",
    ),
];

/// The viewport's per-frame CPU path with GPU skinning, the bones-only
/// step, and the CPU-skinned frame it replaces (issue 37, part 4).
fn bench_frame_cost(c: &mut Criterion) {
    let dir = corpus_dir();
    for (label, model_file, motion_file) in FRAME_COST_CASES {
        let Ok(lm) = LoadedModel::open(&dir.join(model_file)) else {
            eprintln!("corpus missing: skipping {label}");
            continue;
        };
        let Ok(motion) = std::fs::read(dir.join(motion_file))
            .map_err(|e| e.to_string())
            .and_then(|b| vmd::read(&b).map_err(|e| e.to_string()))
        else {
            continue;
        };
        // Played in a loop over the motion's length (a wrap resets physics
        // once per loop, as a real loop does).
        let last = motion
            .bones
            .iter()
            .map(|k| k.frame())
            .max()
            .unwrap_or(0)
            .max(2);
        let wrap = |f: f64| (f + 0.5) % f64::from(last);
        let motion = IndexedMotion::new(motion);
        let model = &lm.model;
        let template = MeshTemplate::new(model, &lm.textures);
        for physics in [false, true] {
            let engine = || {
                let mut e = ModelPosing::new(model);
                e.bind(model, Some(&motion.index));
                if physics {
                    e.enable_physics(model, SimulationMode::Play);
                }
                e
            };
            let tag = if physics { " + physics" } else { "" };
            let src = Some(motion.as_ref());
            let mut e = engine();
            let mut frame = 0.0f64;
            let mut data = GpuFrameData::default();
            c.bench_function(
                &format!("frame_cost {label}{tag}: GPU-skinned frame"),
                |b| {
                    b.iter(|| {
                        frame = wrap(frame);
                        prepare_gpu_frame(&mut e, model, src, frame, &template, &mut data);
                        black_box(data.pose.len());
                    })
                },
            );
            let mut e = engine();
            let mut frame = 0.0f64;
            c.bench_function(&format!("frame_cost {label}{tag}: bones only"), |b| {
                b.iter(|| {
                    frame = wrap(frame);
                    e.pose_bones(model, src, frame, |_| {});
                    black_box(e.posed.skinning.len());
                })
            });
            let mut e = engine();
            let mut frame = 0.0f64;
            let mut vertices = Vec::new();
            c.bench_function(
                &format!("frame_cost {label}{tag}: CPU-skinned frame"),
                |b| {
                    b.iter(|| {
                        frame = wrap(frame);
                        e.pose(model, src, frame);
                        posed_vertices(model, &e.posed, &mut vertices);
                        posed_materials(&template.mesh.materials, &e.posed, &mut data.materials);
                        black_box(vertices.len());
                    })
                },
            );
        }
    }
}

criterion_group!(benches, bench_frame_cost, bench);
criterion_main!(benches);
