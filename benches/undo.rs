//! Undo memory (issue 13): 100 Delete steps on a generated 1 M-key motion
//! are stored as differences within the default 256 MB budget, undoing them
//! all gives back the original bytes, and one undo / redo (the diff swapped
//! back, then the track index updated in place as the document does; the
//! full rebuild is timed beside it) is timed.
//!
//! Target: each undo and redo ≤ 20 ms. Run:
//! `cargo bench --no-default-features --bench undo`.
//!
//! Budget arithmetic (independent of the code): a bone record is 111 bytes
//! (spec), so 100 steps × 1,000 deleted keys × (111 + 4-byte index) ≈ 11.5 MB;
//! whole copies would be 100 × 111 MB ≈ 11 GB.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use vmd_studio::vmd::diff::MotionDiff;
use vmd_studio::vmd::{self, BoneKey, Motion, NameEncoding, TrackIndex};

const BUDGET: usize = 256 * 1024 * 1024;

/// 1000 bones × 1000 keys (frames 0, 3, 6, …), interleaved by frame.
fn generated() -> Motion {
    let mut m = Motion::new_v2();
    m.bones.reserve(1_000_000);
    for k in 0..1000u32 {
        for b in 0..1000 {
            let a = k as f32 * 0.1 + b as f32 * 0.01;
            match BoneKey::new(
                &format!("bone{b:04}"),
                NameEncoding::ShiftJis,
                k * 3,
                [a, -a, 0.5 * a],
                [0.0, a.sin(), 0.0, a.cos()],
            ) {
                Ok(key) => m.bones.push(key),
                Err(e) => panic!("bench name: {e}"),
            }
        }
    }
    m
}

/// The motion with 1,000 keys deleted, spread over the whole file (what the
/// dope sheet's Delete hands the document: a new motion).
fn delete_step(m: &Motion, step: usize) -> Motion {
    let n = m.bones.len();
    let stride = n / 1000;
    let mut out = m.clone();
    let mut i = 0usize;
    out.bones.retain(|_| {
        let keep = i % stride != step % stride;
        i += 1;
        keep
    });
    out
}

fn undo_budget(c: &mut Criterion) {
    let mut m = generated();
    let original = vmd::write(&m).unwrap_or_default();
    let mut steps: Vec<MotionDiff> = Vec::with_capacity(100);
    for s in 0..100 {
        let new = delete_step(&m, s);
        steps.push(MotionDiff::replace(&mut m, new));
    }
    let held: usize = steps.iter().map(MotionDiff::bytes).sum();
    eprintln!(
        "100 Delete steps on 1,000,000 keys: {} keys left, history holds {:.1} MB (budget {} MB)",
        m.bones.len(),
        held as f64 / 1e6,
        BUDGET / (1024 * 1024)
    );
    assert!(held <= BUDGET, "{held} bytes > budget");
    assert_eq!(m.bones.len(), 1_000_000 - 100 * 1000);

    let mut g = c.benchmark_group("undo_1M_keys");
    g.sample_size(20).measurement_time(Duration::from_secs(8));
    // The newest step, as Ctrl+Z / Ctrl+Y would run it, timed separately.
    let last = steps.len() - 1;
    g.bench_function("undo_delete(diff)", |b| {
        b.iter_custom(|iters| {
            let mut t = Duration::ZERO;
            for _ in 0..iters {
                let s = Instant::now();
                steps[last].toggle(black_box(&mut m));
                t += s.elapsed();
                steps[last].toggle(&mut m);
            }
            t
        })
    });
    g.bench_function("redo_delete(diff)", |b| {
        b.iter_custom(|iters| {
            let mut t = Duration::ZERO;
            for _ in 0..iters {
                steps[last].toggle(&mut m);
                let s = Instant::now();
                steps[last].toggle(black_box(&mut m));
                t += s.elapsed();
            }
            t
        })
    });
    // What the document does on Ctrl+Z / Ctrl+Y: the diff, then only what
    // it moved re-placed in the track index.
    let mut index = TrackIndex::build(&m);
    g.bench_function("undo_delete(diff+index update)", |b| {
        b.iter_custom(|iters| {
            let mut t = Duration::ZERO;
            for _ in 0..iters {
                let s = Instant::now();
                steps[last].toggle(black_box(&mut m));
                index.update(&m, &steps[last].index_change());
                t += s.elapsed();
                steps[last].toggle(&mut m);
                index.update(&m, &steps[last].index_change());
            }
            t
        })
    });
    g.bench_function("redo_delete(diff+index update)", |b| {
        b.iter_custom(|iters| {
            let mut t = Duration::ZERO;
            for _ in 0..iters {
                steps[last].toggle(&mut m);
                index.update(&m, &steps[last].index_change());
                let s = Instant::now();
                steps[last].toggle(black_box(&mut m));
                index.update(&m, &steps[last].index_change());
                t += s.elapsed();
            }
            t
        })
    });
    assert!(
        index == TrackIndex::build(&m),
        "the updated index is the built one"
    );
    // The full rebuild, for comparison.
    g.bench_function("undo_delete(diff+reindex)", |b| {
        b.iter_custom(|iters| {
            let mut t = Duration::ZERO;
            for _ in 0..iters {
                let s = Instant::now();
                steps[last].toggle(black_box(&mut m));
                black_box(TrackIndex::build(&m));
                t += s.elapsed();
                steps[last].toggle(&mut m);
            }
            t
        })
    });
    g.finish();

    // Undo everything: the original bytes.
    for d in steps.iter_mut().rev() {
        d.toggle(&mut m);
    }
    assert_eq!(m.bones.len(), 1_000_000);
    assert!(
        vmd::write(&m).unwrap_or_default() == original,
        "undo all gives the original bytes"
    );
    eprintln!("undo of all 100 steps gives the original 111,000,054 bytes");
}

criterion_group!(benches, undo_budget);
criterion_main!(benches);
