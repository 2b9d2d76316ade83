//! Issue 37's measuring protocol, shared by `benches/harness.rs` and
//! `examples/pose_step.rs`: a model wearing a motion, posed through
//! [`PoseEngine`] exactly as the outside harness does — `bind`, then
//! (physics rows) `enable_physics(model, SimulationMode::Play)`, then
//! `pose_bones(model, Some(motion), frame, |_| {})` with `frame` starting
//! at 0 and growing by 0.5 a call (one 60 fps picture of a 30 fps motion).
//!
//! The cases: Mei (`mei/mei.pmd`, 142 bones, 31 bodies, 20 joints) and the
//! MMT test model (114 bones, 19 bodies, no joint) wearing
//! `webmmd__GimmeGimme_with_emotion.vmd` (the reference cases' dance; the
//! issue names them as 147- and 317-bone models, but both our reader and
//! babylon-mmd's read 142 and 114); the vmd_sizing sample model (158
//! bones, 55 bodies, 48 joints: the real model nearest the 59-body
//! row) wearing its own sample motion; the
//! generated 180-body / 230-joint model (`physics_model.rs`) wearing a
//! generated dance on its hips (the sway of `sway_frames`, keyed on every
//! frame).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::{Quat, Vec3};
use vmd_studio::model::physics::SimulationMode;
use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::vmd::{self, BoneKey, IndexedMotion, Motion, NameEncoding};

/// The corpus directory (`VMD_CORPUS`, else `../shared/corpus`).
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")))
}

/// One model wearing one motion.
pub struct Case {
    pub name: &'static str,
    pub model: Model,
    pub motion: IndexedMotion,
}

/// The generated dance: the hips keyed on each of `frames` frames with the
/// sway of `physics_model::sway_frames` (±0.6 rad about Y, ±2 units in X).
pub fn sway_motion(frames: u32) -> Motion {
    let mut motion = Motion::new_v2();
    for f in 0..frames {
        let t = f as f32 / 30.0;
        let q = Quat::from_rotation_y(0.6 * (t * std::f32::consts::PI).sin());
        let p = Vec3::new(2.0 * (t * 2.0).sin(), 0.0, 0.0);
        if let Ok(k) = BoneKey::new(
            "hips",
            NameEncoding::ShiftJis,
            f,
            p.to_array(),
            q.to_array(),
        ) {
            motion.bones.push(k);
        }
    }
    motion
}

fn corpus_case(name: &'static str, dir: &Path, model: &str, motion: &str) -> Option<Case> {
    let model = Model::open(&dir.join(model)).ok()?;
    let bytes = std::fs::read(dir.join(motion)).ok()?;
    let motion = IndexedMotion::new(vmd::read(&bytes).ok()?);
    Some(Case {
        name,
        model,
        motion,
    })
}

/// The case called `name`: `mei`, `mmt`, `sample` or `generated` (`None`
/// when its corpus files are missing).
pub fn case(name: &str, generated: impl FnOnce() -> Model) -> Option<Case> {
    let dir = corpus_dir();
    const GIMME: &str = "webmmd__GimmeGimme_with_emotion.vmd";
    match name {
        "mei" => corpus_case("mei", &dir, "mei/mei.pmd", GIMME),
        "mmt" => corpus_case("mmt", &dir, "unitymmdloader__mmt_test_model.pmx", GIMME),
        "sample" => corpus_case(
            "sample",
            &dir,
            "frontier/sizing_mmdbase_sample_model/サンプルモデル.pmx",
            "frontier/sizing_mmdbase_sample_model/サンプルモーション2.vmd",
        ),
        "generated" => Some(Case {
            name: "generated",
            model: generated(),
            motion: IndexedMotion::new(sway_motion(1600)),
        }),
        _ => None,
    }
}

/// An engine bound to the case's motion, with physics on (mode Play) when
/// `physics` (false when the model has no bodies).
pub fn engine(case: &Case, physics: bool) -> (PoseEngine, bool) {
    let mut engine = PoseEngine::new(&case.model);
    engine.bind(&case.model, Some(&case.motion.index));
    let on = physics && engine.enable_physics(&case.model, SimulationMode::Play);
    (engine, on)
}

/// One harness call: the pose at `frame`.
#[inline]
pub fn step(engine: &mut PoseEngine, case: &Case, frame: f64) {
    engine.pose_bones(&case.model, Some(case.motion.as_ref()), frame, |_| {});
}

/// The harness run: `steps` calls from frame 0, 0.5 apart; returns each
/// call's seconds after the first `warmup`.
pub fn run(case: &Case, physics: bool, steps: usize, warmup: usize) -> Vec<f64> {
    let (mut engine, _) = engine(case, physics);
    let mut times = Vec::with_capacity(steps.saturating_sub(warmup));
    for k in 0..steps {
        let frame = k as f64 * 0.5;
        let t = Instant::now();
        step(&mut engine, case, frame);
        let dt = t.elapsed().as_secs_f64();
        std::hint::black_box(&engine.posed.bone_world);
        if k >= warmup {
            times.push(dt);
        }
    }
    times
}

/// The median of `v` (0 when empty).
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
