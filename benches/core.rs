//! Core benchmarks (criterion), one group per row of the speed table
//! (issue 14) plus load/save of the largest corpus file.
//!
//! | row | group / function | target |
//! |---|---|---|
//! | pose of `mcmmdrust__Drink.vmd` (65 bones, linear) | `pose_drink` | ≤ 1.6 µs |
//! | pose of `nuekaze__motion.vmd` (130 bones) | `pose_nuekaze` | ≤ 3.2 µs |
//! | pose of GimmeGimme (283 bones, half eased) | `pose_gimme` | ≤ 13 µs |
//! | generated 400 bones, eased on every channel | `pose_400_bones` | ≤ 40 µs |
//! | load + index of a generated 1 M-key file | `generated_1M_keys/load+index` | ≥ 1.5 GB/s |
//!
//! `load+index` is the app's load: the file's bytes handed over in a buffer
//! (`vmd::read_vec`, the buffer made untimed, like the file read) then
//! `TrackIndex::build`; `load+index_borrowed` reads from a borrowed slice
//! (every record copied into a fresh allocation); `load+index_from_file`
//! times the file read from the page cache as well.
//! | every frame of GimmeGimme in order | `playback_gimme` | (sequential playback) |
//!
//! In the pose groups, `cache` is the steady state the rows mean: the cache
//! built once, `EvalCache::pose_into` writing every bone into the caller's
//! slice (indexed by bone track) at a mid frame; `cache_playhead_2_frames`
//! plays the frame before and the frame itself through a `Playhead` (two
//! poses per iteration); `raw_records` evaluates the records directly.
//!
//! `cache_per_track/<dance>` is the product's path (issue 22): what the
//! pose engine's binding calls for every bound bone, `EvalCache::bone_playing`
//! (a playhead remembering each track's segment), here over every bone
//! track of the dance at a fresh pseudo-random frame per iteration, so the
//! remembered segment rarely helps. Throughput is in tracks: the time per
//! track is the median divided by the element count (target ≤ 15 ns). The
//! dances: every corpus motion with bone tracks, and generated shapes
//! (150 tracks of which half hold one or two keys, records stored out of
//! frame order).
//!
//! `inspect --json` (whole process, streamed: `summary::summarize_reader`)
//! is timed against `cat` of the same 33 MB file with hyperfine; the file
//! and the command line come from `examples/speed_files.rs`.
//!
//! Corpus files come from `VMD_CORPUS` (default `../shared/corpus`).
//! Run: `cargo bench --no-default-features --bench core`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use vmd_studio::vmd::{
    self, BoneChannel, BoneKey, Curve, EvalCache, MorphKey, Motion, NameEncoding, Playhead,
    TrackIndex, cache::PreparedCurves, evaluate::BonePose,
};

fn corpus_dir() -> PathBuf {
    std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")))
}

fn corpus_file(name: &str) -> Option<Vec<u8>> {
    let path = corpus_dir().join(name);
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!(
                "note: corpus file {} not available ({e}); skipping",
                path.display()
            );
            None
        }
    }
}

/// A motion with `bones` bone tracks × `keys_per_bone` keys (frames 0, 3, 6, …),
/// eased curves on every channel, plus `morph_keys` morph keys. Keys are
/// interleaved by frame the way MMD stores a baked dance (not sorted per bone).
fn generated(bones: usize, keys_per_bone: usize, morph_keys: usize) -> Motion {
    let mut m = Motion::new_v2();
    m.bones.reserve(bones * keys_per_bone);
    for k in 0..keys_per_bone {
        for b in 0..bones {
            let name = format!("bone{b:04}");
            let a = (k as f32 * 0.1) + b as f32 * 0.01;
            let (s, c) = (a * 0.5).sin_cos();
            let mut key = match BoneKey::new(
                &name,
                NameEncoding::ShiftJis,
                (k * 3) as u32,
                [a, -a, 0.5 * a],
                [0.0, s, 0.0, c],
            ) {
                Ok(key) => key,
                Err(e) => panic!("bench name {name}: {e}"),
            };
            key.set_curve(BoneChannel::X, Curve::new(64, 0, 64, 127));
            key.set_curve(BoneChannel::Y, Curve::new(10, 100, 90, 20));
            key.set_curve(BoneChannel::Z, Curve::new(0, 127, 127, 127));
            key.set_curve(BoneChannel::Rotation, Curve::new(40, 5, 100, 120));
            m.bones.push(key);
        }
    }
    for i in 0..morph_keys {
        let name = format!("m{:03}", i % 50);
        if let Ok(k) = MorphKey::new(&name, NameEncoding::ShiftJis, (i / 50) as u32, 0.5) {
            m.morphs.push(k);
        }
    }
    m
}

fn bench_file(c: &mut Criterion, label: &str, bytes: &[u8]) {
    let mut g = c.benchmark_group(label);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("read", |b| b.iter(|| vmd::read(black_box(bytes))));
    // The way the app loads a file: it reads the file into a buffer and
    // gives that buffer to `read_vec`, which keeps the bone records in it.
    // The setup (a fresh copy of the bytes, standing for the file read) is
    // not timed, as the file read was not timed when this group read from
    // a borrowed slice; dropping the motion and index is timed.
    g.bench_function("load+index", |b| {
        b.iter_batched(
            || bytes.to_vec(),
            |owned| {
                let m = vmd::read_vec(black_box(owned)).ok();
                let loaded = m.map(|m| {
                    let idx = TrackIndex::build(&m);
                    (m, idx)
                });
                drop(black_box(loaded));
            },
            BatchSize::PerIteration,
        )
    });
    // The same from a borrowed slice (`read` copies every record into a
    // fresh allocation): what `load+index` measured before `read_vec`.
    g.bench_function("load+index_borrowed", |b| {
        b.iter(|| {
            let m = vmd::read(black_box(bytes)).ok();
            m.map(|m| {
                let idx = TrackIndex::build(&m);
                (m, idx)
            })
        })
    });
    // The whole path from a file in the page cache, the file read timed
    // too (its fresh buffer is faulted in page by page).
    let path = std::env::temp_dir().join(format!("vmd-bench-{}-{label}.vmd", std::process::id()));
    if std::fs::write(&path, bytes).is_ok() {
        g.bench_function("load+index_from_file", |b| {
            b.iter(|| {
                let loaded = vmd::save::read_with_stamp(black_box(&path))
                    .ok()
                    .and_then(|(owned, _)| vmd::read_vec(owned).ok())
                    .map(|m| {
                        let idx = TrackIndex::build(&m);
                        (m, idx)
                    });
                drop(black_box(loaded));
            })
        });
        let _ = std::fs::remove_file(&path);
    }
    if let Ok(m) = vmd::read(bytes) {
        g.bench_function("index", |b| b.iter(|| TrackIndex::build(black_box(&m))));
        let idx = TrackIndex::build(&m);
        g.bench_function("cache", |b| {
            b.iter(|| EvalCache::build(black_box(&m), &idx))
        });
        g.bench_function("save", |b| b.iter(|| vmd::write(black_box(&m))));
    }
    g.finish();
}

fn load_and_save(c: &mut Criterion) {
    if let Some(bytes) = corpus_file("webmmd__GimmeGimme_with_emotion.vmd") {
        bench_file(c, "gimme_4.2MB", &bytes);
    }
    // 1 M keys: 1000 bones × 1000 keys (111 MB).
    let m = generated(1000, 1000, 0);
    match vmd::write(&m) {
        Ok(bytes) => bench_file(c, "generated_1M_keys", &bytes),
        Err(e) => eprintln!("cannot write the generated motion: {e}"),
    }
}

/// A frame halfway through the motion, off the integer grid.
fn mid_frame(m: &Motion) -> f64 {
    f64::from(m.last_frame().unwrap_or(0)) / 2.0 + 0.37
}

/// One full pose of every bone at `frame` (the steady state: the cache is
/// built once, the output buffer is the caller's, indexed by bone track),
/// and the same pose reached by playing: the frame before it, then it.
fn pose_group(c: &mut Criterion, label: &str, m: &Motion, frame: f64) {
    let idx = TrackIndex::build(m);
    let mut out = Vec::with_capacity(idx.bones.len());
    let mut g = c.benchmark_group(label);
    g.bench_function("raw_records", |b| {
        b.iter(|| {
            vmd::evaluate::sample_bones_into(m, &idx, black_box(frame), &mut out);
            out.len()
        })
    });
    let cache = EvalCache::build(m, &idx);
    let mut pose = vec![BonePose::default(); cache.bones().len()];
    g.bench_function("cache", |b| {
        b.iter(|| {
            cache.pose_into(black_box(frame), &mut pose);
            pose[0].rotation[3]
        })
    });
    // Two consecutive frames through a playhead (per call: two poses).
    let mut head = Playhead::default();
    g.bench_function("cache_playhead_2_frames", |b| {
        b.iter(|| {
            cache.pose_playing_into(&mut head, black_box(frame - 1.0), &mut pose);
            cache.pose_playing_into(&mut head, black_box(frame), &mut pose);
            pose[0].rotation[3]
        })
    });
    g.finish();
}

fn pose(c: &mut Criterion) {
    for name in [
        "mcmmdrust__Drink.vmd",
        "nuekaze__motion.vmd",
        "webmmd__GimmeGimme_with_emotion.vmd",
    ] {
        let Some(bytes) = corpus_file(name) else {
            continue;
        };
        let Ok(m) = vmd::read(&bytes) else {
            eprintln!("{name} does not read");
            continue;
        };
        let label = match name {
            "mcmmdrust__Drink.vmd" => "pose_drink",
            "nuekaze__motion.vmd" => "pose_nuekaze",
            _ => "pose_gimme",
        };
        pose_group(c, label, &m, mid_frame(&m));
    }
    // 400 bones × 300 keys each (frames 0..897), eased curves on every channel.
    let m = generated(400, 300, 0);
    pose_group(c, "pose_400_bones", &m, 451.37);
}

/// 150 bone tracks: half hold one or two keys, the others `keys` keys at
/// irregular spacing, eased on every other segment; the records are stored
/// in a scrambled order (not by frame, not by track).
fn generated_sparse(keys: usize, seed: u64) -> Motion {
    let mut x = seed | 1;
    let mut rnd = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n.max(1)
    };
    let mut m = Motion::new_v2();
    for b in 0..150usize {
        let name = format!("track{b:03}");
        let n = if b % 2 == 0 { 1 + (b / 2) % 2 } else { keys };
        let mut f = rnd(30) as u32;
        for k in 0..n {
            let a = k as f32 * 0.07 + b as f32 * 0.01;
            let (s, c) = (a * 0.5).sin_cos();
            let Ok(mut key) = BoneKey::new(
                &name,
                NameEncoding::ShiftJis,
                f,
                [a, -a, 0.5],
                [s, 0.0, 0.0, c],
            ) else {
                continue;
            };
            if k % 2 == 1 {
                key.set_curve(BoneChannel::Rotation, Curve::new(40, 5, 100, 120));
                key.set_curve(BoneChannel::X, Curve::new(64, 0, 64, 127));
            }
            m.bones.push(key);
            f += 1 + rnd(12) as u32;
        }
    }
    // Scramble the record order (Fisher–Yates).
    for i in (1..m.bones.len()).rev() {
        let j = rnd(i as u64 + 1) as usize;
        m.bones.swap(i, j);
    }
    m
}

/// Every bone track of `m` through `EvalCache::bone_playing` at a fresh
/// pseudo-random frame per iteration (the binding's call).
fn per_track_group(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    label: &str,
    m: &Motion,
) {
    let idx = TrackIndex::build(m);
    let cache = EvalCache::build(m, &idx);
    let n = cache.bones().len();
    if n == 0 {
        return;
    }
    let last = f64::from(m.last_frame().unwrap_or(0).max(1));
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut head = Playhead::default();
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(label, |b| {
        b.iter(|| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let frame = (x % 1_000_003) as f64 / 1_000_003.0 * (last + 10.0) - 5.0;
            let mut acc = 0.0f32;
            for t in 0..n {
                acc += cache.bone_playing(&mut head, t, black_box(frame)).rotation[3];
            }
            acc
        })
    });
}

fn cache_per_track(c: &mut Criterion) {
    let mut g = c.benchmark_group("cache_per_track");
    let mut names: Vec<String> = std::fs::read_dir(corpus_dir())
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".vmd"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for name in names {
        let Some(bytes) = corpus_file(&name) else {
            continue;
        };
        let Ok(m) = vmd::read(&bytes) else {
            continue;
        };
        let tracks = TrackIndex::build(&m).bones.len();
        if tracks < 10 {
            continue;
        }
        per_track_group(&mut g, name.trim_end_matches(".vmd"), &m);
    }
    per_track_group(
        &mut g,
        "generated_150_sparse_300",
        &generated_sparse(300, 7),
    );
    per_track_group(
        &mut g,
        "generated_150_sparse_3000",
        &generated_sparse(3000, 11),
    );
    per_track_group(&mut g, "generated_400_eased", &generated(400, 300, 0));
    g.finish();
}

/// Every frame of the GimmeGimme dance, in order (what playback does).
fn playback(c: &mut Criterion) {
    let Some(bytes) = corpus_file("webmmd__GimmeGimme_with_emotion.vmd") else {
        return;
    };
    let Ok(m) = vmd::read(&bytes) else {
        return;
    };
    let idx = TrackIndex::build(&m);
    let last = m.last_frame().unwrap_or(0);
    let mut out = Vec::with_capacity(idx.bones.len());
    let mut pose = vec![BonePose::default(); idx.bones.len()];
    let mut g = c.benchmark_group("playback_gimme");
    g.throughput(Throughput::Elements(u64::from(last) + 1));
    g.bench_function("raw_records", |b| {
        b.iter(|| {
            let mut n = 0;
            for f in 0..=last {
                vmd::evaluate::sample_bones_into(&m, &idx, f64::from(f), &mut out);
                n += out.len();
            }
            n
        })
    });
    let cache = EvalCache::build(&m, &idx);
    g.bench_function("cache_random_access", |b| {
        b.iter(|| {
            let mut n = 0;
            for f in 0..=last {
                cache.pose_into(f64::from(f), &mut pose);
                n += pose.len();
            }
            n
        })
    });
    g.bench_function("cache_playhead", |b| {
        b.iter(|| {
            let mut head = Playhead::default();
            let mut n = 0;
            for f in 0..=last {
                cache.pose_playing_into(&mut head, f64::from(f), &mut pose);
                n += pose.len();
            }
            n
        })
    });
    g.finish();
}

/// The four curves of the generated eased file.
const EASED: [Curve; 4] = [
    Curve::new(64, 0, 64, 127),
    Curve::new(10, 100, 90, 20),
    Curve::new(0, 127, 127, 127),
    Curve::new(40, 5, 100, 120),
];

/// The alternative the issue asks to measure: the cubic solved in f32 lanes,
/// four channels at once, a fixed number of clamped Newton steps from t = x.
fn weights_f32_lanes(curves: &[Curve; 4], x: f32) -> [f32; 4] {
    let unit = |v: u8| f32::from(v.min(127)) / 127.0;
    let mut a = [0.0f32; 4];
    let mut b = [0.0f32; 4];
    let mut c = [0.0f32; 4];
    for i in 0..4 {
        let (x1, x2) = (unit(curves[i].x1), unit(curves[i].x2));
        c[i] = 3.0 * x1;
        b[i] = 3.0 * (x2 - x1) - c[i];
        a[i] = 1.0 - c[i] - b[i];
    }
    let mut t = [x; 4];
    for _ in 0..8 {
        for i in 0..4 {
            let ti = t[i];
            let fx = ((a[i] * ti + b[i]) * ti + c[i]) * ti - x;
            let d = ((3.0 * a[i] * ti + 2.0 * b[i]) * ti + c[i]).max(1e-6);
            t[i] = (ti - fx / d).clamp(0.0, 1.0);
        }
    }
    std::array::from_fn(|i| {
        let (y1, y2, tt) = (unit(curves[i].y1), unit(curves[i].y2), t[i]);
        let u = 1.0 - tt;
        3.0 * u * u * tt * y1 + 3.0 * u * tt * tt * y2 + tt * tt * tt
    })
}

/// Solving four eased channels at one x: the exact solver (raw path), the
/// cache's table + Newton, and f32 lanes; prints each fast solver's worst
/// error against the exact one over every (x1, x2) pair.
fn solvers(c: &mut Criterion) {
    let xs: Vec<f64> = (1..1000).map(|i| f64::from(i) / 1000.0).collect();
    let (mut worst_table, mut worst_f32) = (0.0f64, 0.0f64);
    for x1 in (0..=127u8).step_by(3) {
        for x2 in (0..=127u8).step_by(3) {
            let cs = [
                Curve::new(x1, 0, x2, 127),
                Curve::new(x1, 127, x2, 0),
                Curve::new(x1, 30, x2, 90),
                Curve::new(x1, 127, x2, 127),
            ];
            let p = PreparedCurves::new(cs);
            for &x in xs.iter().step_by(7) {
                let exact = Curve::weights(&cs, x);
                let fast = p.weights(x);
                let lanes = weights_f32_lanes(&cs, x as f32);
                for i in 0..4 {
                    worst_table = worst_table.max((fast[i] - exact[i]).abs());
                    worst_f32 = worst_f32.max((f64::from(lanes[i]) - exact[i]).abs());
                }
            }
        }
    }
    eprintln!(
        "solver accuracy over every third (x1, x2): table+Newton worst |Δw| = {worst_table:.2e}, f32 lanes (8 steps) worst |Δw| = {worst_f32:.2e} (needed: 1e-5)"
    );
    let p = PreparedCurves::new(EASED);
    let mut g = c.benchmark_group("solve_4_channels_x999");
    g.throughput(Throughput::Elements(xs.len() as u64));
    g.bench_function("exact_f64_newton", |b| {
        b.iter(|| {
            xs.iter()
                .map(|&x| Curve::weights(black_box(&EASED), x)[3])
                .sum::<f64>()
        })
    });
    g.bench_function("table_newton_f64", |b| {
        b.iter(|| xs.iter().map(|&x| black_box(&p).weights(x)[3]).sum::<f64>())
    });
    g.bench_function("f32_lanes_8_steps", |b| {
        b.iter(|| {
            xs.iter()
                .map(|&x| weights_f32_lanes(black_box(&EASED), x as f32)[3])
                .sum::<f32>()
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(40).measurement_time(std::time::Duration::from_secs(5));
    targets = pose, playback, cache_per_track, solvers, load_and_save
}
criterion_main!(benches);
