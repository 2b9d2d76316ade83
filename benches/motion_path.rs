//! Motion path benchmarks (criterion), issue 25: a 60-frame path on a
//! 300-bone model must redraw live while a curve handle is dragged.
//!
//! * Mei (142 bones, leg IK) with 158 more bones hung off 上半身 (300 in
//!   all), wearing `mmdagent__mei_wait.vmd`: the path of 4 bones over 60
//!   frames — 60 bones-only poses through [`PoseEngine`];
//! * a generated 300-bone model (30 chains of 10), every bone keyed every
//!   10 frames: the same 60-frame path, and the refresh of one 10-frame
//!   segment (what a curve drag needs: only the edited segment's frames
//!   change).
//!
//! Measured (2-core machine at load average ≈ 10, so slow by an unknown
//! factor), medians: Mei + extra 60-frame path 11.7 ms; generated 300
//! bones 60-frame path 2.0 ms; refresh of a 9-frame segment 0.34 ms.
//!
//! Run: `cargo bench --no-default-features --bench motion_path -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use vmd_studio::model::{Bone, Format, Model, PoseEngine};
use vmd_studio::scene::motion_path::motion_path;
use vmd_studio::vmd::{self, BoneKey, IndexedMotion, Motion, NameEncoding};

fn corpus_dir() -> PathBuf {
    std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")))
}

fn bench_mei_300(c: &mut Criterion) {
    let dir = corpus_dir();
    let Ok(mut model) = Model::open(&dir.join("mmdagent__mei.pmd")) else {
        eprintln!("corpus missing: skipping the Mei path benchmark");
        return;
    };
    let Ok(bytes) = std::fs::read(dir.join("mmdagent__mei_wait.vmd")) else {
        return;
    };
    let Ok(motion) = vmd::read(&bytes) else {
        return;
    };
    let find = |m: &Model, n: &str| m.skeleton.bones.iter().position(|b| b.name == n);
    let Some(upper) = find(&model, "上半身") else {
        return;
    };
    let base = model.skeleton.bones[upper].rest_position;
    let extra = 300 - model.skeleton.bones.len();
    for i in 0..extra {
        let parent = if i % 10 == 0 {
            upper
        } else {
            model.skeleton.bones.len() - 1
        };
        let at = base + Vec3::new((i / 10) as f32 * 0.1, (i % 10) as f32 * 0.2, 0.0);
        model
            .skeleton
            .bones
            .push(Bone::new(format!("extra{i}"), Some(parent), at));
    }
    let bones: Vec<usize> = ["頭", "左手首", "右手首", "左足首"]
        .iter()
        .filter_map(|n| find(&model, n))
        .collect();
    let motion = IndexedMotion::new(motion);
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    c.bench_function("path 60 frames, Mei + extra = 300 bones, 4 bones", |b| {
        b.iter(|| {
            black_box(motion_path(
                &model,
                &mut engine,
                motion.as_ref(),
                &bones,
                black_box(30..=89),
            ))
        })
    });
}

/// 300 bones in 30 chains of 10, every bone keyed every 10 frames (0..=60).
fn generated() -> (Model, Motion) {
    let mut model = Model::empty(Format::Pmx { version: 2.0 });
    let mut motion = Motion::new_v2();
    for b in 0..300usize {
        let (chain, link) = (b / 10, b % 10);
        let parent = match (b, link) {
            (0, _) => None,
            (_, 0) => Some(0),
            _ => Some(b - 1),
        };
        let at = Vec3::new(chain as f32 * 0.5, link as f32, 0.0);
        model
            .skeleton
            .bones
            .push(Bone::new(format!("b{b}"), parent, at));
        for k in 0..=6u32 {
            let a = 0.2 * ((b as f32) * 0.37 + k as f32).sin();
            let q = glam::Quat::from_rotation_z(a) * glam::Quat::from_rotation_x(0.5 * a);
            let p = if b == 0 { [a, 0.0, 0.0] } else { [0.0; 3] };
            if let Ok(key) = BoneKey::new(
                &format!("b{b}"),
                NameEncoding::ShiftJis,
                k * 10,
                p,
                q.to_array(),
            ) {
                motion.bones.push(key);
            }
        }
    }
    (model, motion)
}

fn bench_generated(c: &mut Criterion) {
    let (model, motion) = generated();
    let motion = IndexedMotion::new(motion);
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let bones = [9usize, 159, 299];
    c.bench_function("path 60 frames, generated 300 bones keyed, 3 bones", |b| {
        b.iter(|| {
            black_box(motion_path(
                &model,
                &mut engine,
                motion.as_ref(),
                &bones,
                black_box(0..=59),
            ))
        })
    });
    let mut paths = motion_path(&model, &mut engine, motion.as_ref(), &bones, 0..=59);
    c.bench_function(
        "path refresh of a 10-frame segment, generated 300 bones",
        |b| b.iter(|| paths.refresh(&model, &mut engine, motion.as_ref(), black_box(21..=29))),
    );
}

criterion_group!(benches, bench_mei_300, bench_generated);
criterion_main!(benches);
