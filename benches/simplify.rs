//! Simplify benchmarks (criterion), issue 15 targets:
//! `mcmmdrust__Drink.vmd` ≤ 2 s, `webmmd__GimmeGimme_with_emotion.vmd` and
//! `nuekaze__motion.vmd` each ≤ 2 s, a generated 1 M-key baked motion ≤ 30 s
//! (default tolerances and strategy; all worker threads).
//!
//! Criterion runs the generated motion at 100 k keys (20 bones × 5000
//! frames; ten samples of the 1 M file would take minutes); time the 1 M
//! file once on the command line (`examples/baked_motion.rs`, same
//! generator):
//!
//! ```text
//! cargo bench --no-default-features --bench simplify
//! cargo run --release --no-default-features --example baked_motion -- /tmp/baked_1m.vmd 200 5000
//! time target/release/vmd-studio simplify /tmp/baked_1m.vmd -o /tmp/baked_1m_simple.vmd
//! ```

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use vmd_studio::vmd::ops::{self, SimplifyParams};
use vmd_studio::vmd::{self, Motion};

include!("support/baked.rs");

fn corpus_dir() -> PathBuf {
    std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")))
}

fn load(name: &str) -> Option<Motion> {
    let bytes = std::fs::read(corpus_dir().join(name)).ok()?;
    vmd::read(&bytes).ok()
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
    match baked(20, 5000) {
        Ok(m) => {
            g.bench_function("generated 100k-key baked", |b| {
                b.iter(|| black_box(ops::simplify(&m, &p).ok()))
            });
        }
        Err(e) => eprintln!("skipping the generated motion: {e}"),
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
