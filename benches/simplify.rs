//! Simplify benchmarks (criterion), issue 15 targets:
//! `mcmmdrust__Drink.vmd` ≤ 2 s, `webmmd__GimmeGimme_with_emotion.vmd` and
//! `nuekaze__motion.vmd` each ≤ 2 s, a generated 1 M-key baked motion ≤ 30 s
//! (default tolerances and strategy; all worker threads).
//!
//! Run: `cargo bench --no-default-features --bench simplify`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use vmd_studio::vmd::ops::{self, SimplifyParams};
use vmd_studio::vmd::{self, BoneKey, Motion, NameEncoding};

fn corpus_dir() -> PathBuf {
    std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")))
}

fn load(name: &str) -> Option<Motion> {
    let bytes = std::fs::read(corpus_dir().join(name)).ok()?;
    vmd::read(&bytes).ok()
}

/// `bones` tracks × `frames` keys, one every frame (a baked capture):
/// smooth sums of sines, interleaved by frame as MMD stores them.
fn baked(bones: usize, frames: u32) -> Motion {
    let mut m = Motion::new_v2();
    m.bones.reserve(bones * frames as usize);
    for f in 0..frames {
        for b in 0..bones {
            let t = f64::from(f) / 30.0 + b as f64 * 0.37;
            let a = 0.6 * (1.3 * t).sin() + 0.2 * (3.1 * t).cos();
            let (s, c) = (0.5 * a).sin_cos();
            let p = [(0.5 * t.sin()) as f32, (0.2 * (2.0 * t).cos()) as f32, 0.0];
            let key = BoneKey::new(
                &format!("bone{b:03}"),
                NameEncoding::ShiftJis,
                f,
                p,
                [0.0, s as f32, 0.0, c as f32],
            );
            if let Ok(k) = key {
                m.bones.push(k);
            }
        }
    }
    m
}

fn bench(c: &mut Criterion) {
    let p = SimplifyParams::default();
    let mut g = c.benchmark_group("simplify");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    for name in [
        "mcmmdrust__Drink.vmd",
        "webmmd__GimmeGimme_with_emotion.vmd",
        "nuekaze__motion.vmd",
    ] {
        let Some(m) = load(name) else {
            eprintln!("skipping {name}: not in the corpus");
            continue;
        };
        g.bench_function(name, |b| b.iter(|| black_box(ops::simplify(&m, &p).ok())));
    }
    g.finish();
    let big = baked(200, 5000);
    let mut g = c.benchmark_group("simplify-1M");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(60));
    g.bench_function("generated 1M-key baked", |b| {
        b.iter(|| black_box(ops::simplify(&big, &p).ok()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
