//! What one 60 fps picture costs the CPU: exactly the viewport's per-frame
//! path — the app's own `Posing::update` and `Posing::frames`, on a scene
//! of one actor (a model wearing a motion) — stepping a playback half a
//! motion frame (1/60 s of wall clock) at a time from frame 0. Prints JSON
//! with the median milliseconds.
//!
//! `cargo run --release --example frame_cost -- MODEL MOTION [--physics]
//! [--steps N] [--cpu-skinning]`
//!
//! What `Posing::update` does per picture, as the viewport runs it:
//!
//! * default (GPU skinning, what the viewport does wherever the device has
//!   compute shaders): the pose — bones (append, IK), physics through the
//!   scene's one world when `--physics` (MMD's "while playing" mode), the
//!   material morphs — then the renderer's materials and the packed pose
//!   (skinning matrices and morph weights) that the paint callback
//!   uploads for the skinning compute pass. No vertex is touched on the
//!   CPU (checked at the end).
//! * `--cpu-skinning` (the viewport's fallback where the device has no
//!   compute shaders, and the path every picture took before): the pose
//!   with vertex and UV morphs and CPU skinning, then the renderer's
//!   vertices and materials.
//!
//! The GPU side (the upload itself, the compute and render passes) is not
//! timed here: it runs in egui_wgpu's prepare step.
//!
//! Also timed, on a second engine stepping the same frames: the bones-only
//! step alone (`PoseEngine::pose_bones` after `bind`, and with `--physics`
//! after `enable_physics(model, SimulationMode::Play)`: the outside
//! harness's calls), so the JSON gives the ratio of the picture to it.
//! Medians after 30 warm-up steps. `loadavg` is /proc/loadavg's 1-minute
//! figure at the end (the machine's load while measuring).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use vmd_studio::app::panels::Shared;
use vmd_studio::app::panels::model_view::Skinning;
use vmd_studio::app::panels::viewport::{ActorView, Posing, SceneView};
use vmd_studio::model::{PoseEngine, physics::SimulationMode};
use vmd_studio::render::asset::ModelAsset;
use vmd_studio::workspace::{Event, NewDocument, Workspace};

const WARM_UP: usize = 30;

struct Args {
    model: PathBuf,
    motion: PathBuf,
    physics: bool,
    steps: usize,
    cpu_skinning: bool,
}

fn args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut pos = Vec::new();
    let (mut physics, mut cpu_skinning, mut steps) = (false, false, 3000);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--physics" => physics = true,
            "--cpu-skinning" => cpu_skinning = true,
            "--steps" => {
                steps = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--steps needs a number")?
            }
            _ => pos.push(x),
        }
    }
    let [model, motion] = <[String; 2]>::try_from(pos)
        .map_err(|_| "usage: frame_cost MODEL MOTION [--physics] [--steps N] [--cpu-skinning]")?;
    Ok(Args {
        model: model.into(),
        motion: motion.into(),
        physics,
        steps,
        cpu_skinning,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The 1-minute load average, if the system says.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn fail(e: impl std::fmt::Display) -> ! {
    eprintln!("{e}");
    std::process::exit(1)
}

fn main() {
    let a = args().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let bytes =
        std::fs::read(&a.model).unwrap_or_else(|e| fail(format!("{}: {e}", a.model.display())));
    let asset = ModelAsset::load(&a.model, &bytes, &vmd_studio::progress::Progress::new())
        .map(Arc::new)
        .unwrap_or_else(|e| fail(format!("{}: {e}", a.model.display())));
    let motion = vmd_studio::cli::load(&a.motion).unwrap_or_else(|e| fail(e));
    let mut ws = Workspace::new();
    ws.apply(Event::Open(Box::new(NewDocument::new(
        motion, None, "motion",
    ))));
    let doc = &ws.docs()[0];
    let model = &asset.loaded.model;
    let scene = SceneView {
        actors: vec![ActorView {
            name: "actor",
            model_path: Some(&a.model),
            model: Some(&asset),
            rig: model,
            motion: Some(doc),
            offset: 0,
            placement: Default::default(),
        }],
        ..Default::default()
    };

    // The viewport's posing, as the app sets it up while playing.
    let mut posing = Posing::default();
    posing.physics = if a.physics {
        SimulationMode::Play
    } else {
        SimulationMode::Off
    };
    posing.set_skinning(if a.cpu_skinning {
        Skinning::cpu()
    } else {
        Skinning::gpu()
    });
    let mut shared = Shared::default();
    shared.transport.playing = true;
    // 60 fps evaluation: every picture is a new pose.
    shared.transport.preview_rate = 60;

    // The bones-only step, as the outside harness calls it.
    let mut bones_engine = PoseEngine::new(model);
    bones_engine.bind(model, Some(&doc.index));
    if a.physics {
        bones_engine.enable_physics(model, SimulationMode::Play);
    }

    let mut frame_ms = Vec::with_capacity(a.steps);
    let mut bones_ms = Vec::with_capacity(a.steps);
    for step in 0..a.steps + WARM_UP {
        let frame = step as f64 * 0.5;
        shared.transport.frame = frame;
        let t = Instant::now();
        posing.update(step as u64 + 1, &scene, &mut shared, 1.0 / 60.0, true);
        std::hint::black_box(posing.frames());
        let f = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        bones_engine.pose_bones(model, Some(doc.source()), frame, |_| {});
        std::hint::black_box(&bones_engine.posed.skinning);
        let b = t.elapsed().as_secs_f64() * 1e3;
        if step >= WARM_UP {
            frame_ms.push(f);
            bones_ms.push(b);
        }
    }
    // The path taken is the one asked for.
    let gpu_path = posing.mesh_gpu_frame(0).is_some();
    assert_eq!(
        gpu_path, !a.cpu_skinning,
        "the viewport took the other path"
    );
    assert_eq!(posing.mesh_vertices(0).is_some(), a.cpu_skinning);
    let (fm, bm) = (median(frame_ms), median(bones_ms));
    let json = serde_json::json!({
        "model": a.model,
        "motion": a.motion,
        "bones": model.skeleton.bones.len(),
        "vertices": model.positions.len(),
        "rigid_bodies": model.rigid_bodies.len(),
        "physics": a.physics,
        "path": if gpu_path { "viewport, gpu-skinning" } else { "viewport, cpu-skinning" },
        "steps": a.steps,
        "frame_median_ms": fm,
        "bones_only_median_ms": bm,
        "frame_over_bones": fm / bm,
        "physics_steps": posing.physics_steps(0),
        "loadavg": load_average(),
    });
    println!("{json}");
}
