//! Issue 37's harness as an example: `pose_step CASE [--physics] [--steps
//! N] [--warmup N] [--repeat N]` poses case `mei`, `mmt`, `sample` or
//! `generated` (see `benches/support/harness.rs`) `N` times (default
//! 3,000) from frame 0, 0.5 frame apart, and prints one JSON line with the
//! median milliseconds per call after the warm-up (default 30). `--repeat`
//! runs the whole protocol again in the same process (for callgrind,
//! `--repeat 1 --steps 600`).
//!
//! ```text
//! cargo build --release --no-default-features --example pose_step
//! target/release/examples/pose_step mmt
//! target/release/examples/pose_step generated --physics
//! ```

#[path = "../benches/support/harness.rs"]
mod harness;
#[path = "../benches/support/physics_model.rs"]
mod physics_model;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().cloned().unwrap_or_else(|| "mmt".into());
    let physics = args.iter().any(|a| a == "--physics");
    let num = |flag: &str, default: usize| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (steps, warmup, repeat) = (
        num("--steps", 3000),
        num("--warmup", 30),
        num("--repeat", 1),
    );
    let Some(case) = harness::case(&which, physics_model::generated_model) else {
        eprintln!("unknown case {which} or corpus missing (set VMD_CORPUS)");
        std::process::exit(2);
    };
    let (_, on) = harness::engine(&case, physics);
    for _ in 0..repeat.max(1) {
        let mut t = harness::run(&case, physics, steps, warmup);
        let mean = t.iter().sum::<f64>() / t.len().max(1) as f64;
        let median = harness::median(&mut t);
        println!(
            "{{\"case\":\"{}\",\"bones\":{},\"bodies\":{},\"joints\":{},\"physics\":{on},\"steps\":{steps},\"median_ms\":{:.5},\"mean_ms\":{:.5}}}",
            case.name,
            case.model.skeleton.bones.len(),
            case.model.rigid_bodies.len(),
            case.model.joints.len(),
            median * 1e3,
            mean * 1e3
        );
    }
}
