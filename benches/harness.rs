//! Issue 37's measurement as criterion rows: each iteration is one call of
//! the outside harness (`PoseEngine::pose_bones(model, Some(motion), frame,
//! |_| {})` after `bind`, and after `enable_physics(model,
//! SimulationMode::Play)` for the physics rows), `frame` growing by 0.5 a
//! call from 0. After 3,000 calls (the harness's run) the frame goes back
//! to 0; that call, which resets the physics world, is not timed. The
//! cases are those of `benches/support/harness.rs`: Mei and the MMT test
//! model wearing GimmeGimme, the vmd_sizing sample model (59 bodies) with
//! its sample motion, the generated 180-body model with its dance.
//! `examples/pose_step.rs` runs the same protocol once and prints medians.
//!
//! Measured (issue 37; 2-core machine shared with two other builds, so
//! wall times move by ±30 % from run to run: the instruction counts are the
//! figures to compare). callgrind, `examples/pose_step` (the same calls),
//! instructions per call, before → after the issue-37 commits: Mei bones
//! 286.6k → 245.7k (−14 %), MMT bones 340.6k → 289.1k (−15 %); with
//! physics (one reset amortised over 300 calls, 120 for the generated
//! model) Mei 1.32M → 1.20M (−9 %), sample model 2.36M → 2.18M (−8 %),
//! generated 9.67M → 9.23M (−5 %). Criterion medians, before / after run
//! back to back twice at load average 3.0–4.3: Mei 54.1 / 49.3 and 72.7 /
//! 72.3 µs, MMT 50.0 / 50.4 and 75.3 / 75.9 µs, Mei + physics 222 / 139
//! and 237 / 310 µs, sample 300 / 379 and 434 / 528 µs, generated 1.63 /
//! 1.53 and 2.56 / 2.28 ms (the load, not the code, decides those pairs).
//!
//! Run: `cargo bench --no-default-features --bench harness`.

#[path = "support/harness.rs"]
mod harness;
#[path = "support/physics_model.rs"]
mod physics_model;

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use harness::Case;

/// Calls in one harness run.
const STEPS: u64 = 3000;

fn row(c: &mut Criterion, case: &Case, physics: bool) {
    let (mut engine, on) = harness::engine(case, physics);
    if physics && !on {
        return;
    }
    let name = format!(
        "harness {} ({} bones{}): {}",
        case.name,
        case.model.skeleton.bones.len(),
        if on {
            format!(", {} bodies", case.model.rigid_bodies.len())
        } else {
            String::new()
        },
        if on { "bones + physics" } else { "bones" }
    );
    let mut k = 0u64;
    harness::step(&mut engine, case, 0.0);
    c.bench_function(&name, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                k += 1;
                if k == STEPS {
                    k = 0;
                    harness::step(&mut engine, case, 0.0);
                    k += 1;
                }
                let frame = k as f64 * 0.5;
                let t = Instant::now();
                harness::step(&mut engine, case, frame);
                total += t.elapsed();
                std::hint::black_box(&engine.posed.bone_world);
            }
            total
        })
    });
}

fn bench(c: &mut Criterion) {
    for (name, physics) in [
        ("mei", false),
        ("mmt", false),
        ("mei", true),
        ("sample", true),
        ("generated", true),
    ] {
        match harness::case(name, physics_model::generated_model) {
            Some(case) => row(c, &case, physics),
            None => eprintln!("corpus missing: skipping {name}"),
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
