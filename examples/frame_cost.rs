//! What one 60 fps picture costs the CPU: exactly the viewport's per-frame
//! path (posing, physics when asked, the data prepared for the GPU) on a
//! model wearing a motion, stepping a playback half a motion frame (1/60 s)
//! at a time from frame 0. Prints JSON with the median milliseconds.
//!
//! `cargo run --release --example frame_cost -- MODEL MOTION [--physics]
//! [--steps N] [--cpu-skinning]`
//!
//! * default path (GPU skinning): [`prepare_gpu_frame`] — bones (+ physics),
//!   material morphs, the renderer's materials and the packed pose.
//! * `--cpu-skinning`: the path before GPU skinning — the full pose with
//!   vertex morphs and CPU skinning, then the renderer's vertices and
//!   materials and the packed vertex floats.
//!
//! Also timed, on a second engine stepping the same frames: the bones-only
//! step alone (`pose_bones`, physics included when asked), so the JSON
//! gives the ratio of the frame to it. Medians after 30 warm-up steps.

use std::time::Instant;

use vmd_studio::model::{LoadedModel, PoseEngine, physics::SimulationMode};
use vmd_studio::render::RenderVertex;
use vmd_studio::render::from_model::{
    GpuFrameData, MeshTemplate, posed_materials, posed_vertices, prepare_gpu_frame,
};
use vmd_studio::vmd::{self, IndexedMotion};

const WARM_UP: usize = 30;

struct Args {
    model: String,
    motion: String,
    physics: bool,
    steps: usize,
    cpu_skinning: bool,
}

fn args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut pos = Vec::new();
    let mut a = Args {
        model: String::new(),
        motion: String::new(),
        physics: false,
        steps: 3000,
        cpu_skinning: false,
    };
    while let Some(x) = it.next() {
        match x.as_str() {
            "--physics" => a.physics = true,
            "--cpu-skinning" => a.cpu_skinning = true,
            "--steps" => {
                a.steps = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--steps needs a number")?
            }
            _ => pos.push(x),
        }
    }
    let [model, motion] = <[String; 2]>::try_from(pos)
        .map_err(|_| "usage: frame_cost MODEL MOTION [--physics] [--steps N] [--cpu-skinning]")?;
    a.model = model;
    a.motion = motion;
    Ok(a)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let lm = match LoadedModel::open(std::path::Path::new(&a.model)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}: {e}", a.model);
            std::process::exit(1);
        }
    };
    let motion = match std::fs::read(&a.motion)
        .map_err(|e| e.to_string())
        .and_then(|b| vmd::read(&b).map_err(|e| e.to_string()))
    {
        Ok(m) => IndexedMotion::new(m),
        Err(e) => {
            eprintln!("{}: {e}", a.motion);
            std::process::exit(1);
        }
    };
    let model = &lm.model;
    let template = MeshTemplate::new(model, &lm.textures);
    let engine = || {
        let mut e = PoseEngine::new(model);
        e.bind(model, Some(&motion.index));
        if a.physics {
            e.enable_physics(model, SimulationMode::Play);
        }
        e
    };
    let (mut frame_engine, mut bones_engine) = (engine(), engine());
    let src = Some(motion.as_ref());
    let mut gpu = GpuFrameData::default();
    let mut vertices: Vec<RenderVertex> = Vec::new();
    let mut floats: Vec<f32> = Vec::new();
    let mut frame_ms = Vec::with_capacity(a.steps);
    let mut bones_ms = Vec::with_capacity(a.steps);
    for step in 0..a.steps + WARM_UP {
        let frame = step as f64 * 0.5;
        let t = Instant::now();
        if a.cpu_skinning {
            frame_engine.pose(model, src, frame);
            posed_vertices(model, &frame_engine.posed, &mut vertices);
            posed_materials(
                &template.mesh.materials,
                &frame_engine.posed,
                &mut gpu.materials,
            );
            floats.clear();
            floats.extend(vertices.iter().flat_map(|v| {
                let [x, y, z] = v.position;
                let [nx, ny, nz] = v.normal;
                let [u, w] = v.uv;
                [x, y, z, nx, ny, nz, u, w, v.edge_scale]
            }));
            std::hint::black_box(&floats);
        } else {
            prepare_gpu_frame(&mut frame_engine, model, src, frame, &template, &mut gpu);
            std::hint::black_box(&gpu.pose);
        }
        let f = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        bones_engine.pose_bones(model, src, frame, |_| {});
        std::hint::black_box(&bones_engine.posed.skinning);
        let b = t.elapsed().as_secs_f64() * 1e3;
        if step >= WARM_UP {
            frame_ms.push(f);
            bones_ms.push(b);
        }
    }
    let (fm, bm) = (median(frame_ms), median(bones_ms));
    let json = serde_json::json!({
        "model": a.model,
        "motion": a.motion,
        "bones": model.skeleton.bones.len(),
        "vertices": model.positions.len(),
        "rigid_bodies": model.rigid_bodies.len(),
        "physics": a.physics,
        "path": if a.cpu_skinning { "cpu-skinning" } else { "gpu-skinning" },
        "steps": a.steps,
        "frame_median_ms": fm,
        "bones_only_median_ms": bm,
        "frame_over_bones": fm / bm,
    });
    println!("{json}");
}
