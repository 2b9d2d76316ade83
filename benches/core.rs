//! Core benchmarks (criterion): load + index and save of the largest corpus
//! file and of a generated 1 M-key file, and sampling a full 400-bone pose.
//!
//! Targets (issue 2): load + index ≥ 1.5 GB/s (the 4.2 MB dance in ≤ 3 ms),
//! save ≥ 2 GB/s, a 400-bone pose ≤ 50 µs.
//!
//! Run: `cargo bench --no-default-features --bench core`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use vmd_studio::vmd::{
    self, BoneChannel, BoneKey, Curve, MorphKey, Motion, NameEncoding, TrackIndex,
};

fn corpus_dir() -> PathBuf {
    std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")))
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
    g.bench_function("load+index", |b| {
        b.iter(|| {
            let m = vmd::read(black_box(bytes)).ok();
            m.map(|m| {
                let idx = TrackIndex::build(&m);
                (m, idx)
            })
        })
    });
    if let Ok(m) = vmd::read(bytes) {
        g.bench_function("index", |b| b.iter(|| TrackIndex::build(black_box(&m))));
        g.bench_function("save", |b| b.iter(|| vmd::write(black_box(&m))));
    }
    g.finish();
}

fn load_and_save(c: &mut Criterion) {
    let path = corpus_dir().join("webmmd__GimmeGimme_with_emotion.vmd");
    match std::fs::read(&path) {
        Ok(bytes) => bench_file(c, "gimme_4.2MB", &bytes),
        Err(e) => eprintln!(
            "note: corpus file {} not available ({e}); skipping",
            path.display()
        ),
    }
    // 1 M keys: 1000 bones × 1000 keys (111 MB).
    let m = generated(1000, 1000, 0);
    match vmd::write(&m) {
        Ok(bytes) => bench_file(c, "generated_1M_keys", &bytes),
        Err(e) => eprintln!("cannot write the generated motion: {e}"),
    }
}

fn pose(c: &mut Criterion) {
    // 400 bones × 300 keys each (frames 0..897), eased curves on every channel.
    let m = generated(400, 300, 0);
    let idx = TrackIndex::build(&m);
    let mut out = Vec::with_capacity(400);
    let mut g = c.benchmark_group("pose_400_bones");
    g.bench_function("sample_bones_into@451.37", |b| {
        b.iter(|| {
            vmd::evaluate::sample_bones_into(&m, &idx, black_box(451.37), &mut out);
            out.len()
        })
    });
    g.bench_function("sample@451.37", |b| {
        b.iter(|| vmd::evaluate::sample(&m, &idx, black_box(451.37)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(4));
    targets = load_and_save, pose
}
criterion_main!(benches);
