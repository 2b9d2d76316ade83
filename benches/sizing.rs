//! Sizing benchmark (issue 36): a 3-minute dance — 5,400 frames, about
//! 40,000 bone keys — sized onto one target (movement bones, hips, arms,
//! feet re-checked against the floor by posing every leg-IK key), target
//! ≤ 2 s. The dance is generated: 30 bones of the built-in skeleton keyed
//! every 4 frames (40,500 keys) with smooth pseudo-random values; the
//! target is the built-in body with legs 1.2× as long and arms 20° lower.
//!
//! Run: `cargo bench --no-default-features --bench sizing -- --warm-up-time 1 --measurement-time 5`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use vmd_studio::model::{Model, standard_model};
use vmd_studio::sizing::{SizingOptions, size_motion};
use vmd_studio::vmd::{BoneKey, Motion, NameEncoding};

const BONES: [&str; 30] = [
    "センター",
    "グルーブ",
    "上半身",
    "上半身2",
    "首",
    "頭",
    "下半身",
    "左足ＩＫ",
    "右足ＩＫ",
    "左つま先ＩＫ",
    "右つま先ＩＫ",
    "左肩",
    "右肩",
    "左腕",
    "右腕",
    "左ひじ",
    "右ひじ",
    "左手首",
    "右手首",
    "左腕捩",
    "右腕捩",
    "左手捩",
    "右手捩",
    "左親指１",
    "右親指１",
    "左人指１",
    "右人指１",
    "左中指１",
    "右中指１",
    "全ての親",
];

/// 5,400 frames, a key every 4 frames on each of [`BONES`].
fn dance() -> Motion {
    let mut m = Motion::new_v2();
    for (b, name) in BONES.iter().enumerate() {
        for f in (0..5400u32).step_by(4) {
            let t = f as f32 / 30.0 + b as f32;
            let moves = name.contains("ＩＫ") || *name == "センター" || *name == "グルーブ";
            let pos = if moves {
                [t.sin() * 1.5, (t * 1.7).sin().abs() * 0.8, (t * 0.6).cos()]
            } else {
                [0.0; 3]
            };
            let rot = Quat::from_euler(
                glam::EulerRot::YXZ,
                (t * 0.9).sin() * 0.5,
                (t * 1.3).sin() * 0.4,
                (t * 0.7).cos() * 0.6,
            );
            let key = BoneKey::new(name, NameEncoding::ShiftJis, f, pos, rot.to_array())
                .expect("name fits");
            m.bones.push(key);
        }
    }
    m
}

/// The built-in body with legs 1.2× as long and arms 20° lower.
fn target(model: &Model) -> Model {
    let mut m = model.clone();
    let hip_y = 10.3;
    let lower = Quat::from_rotation_z(-20f32.to_radians());
    for b in &mut m.skeleton.bones {
        let p = &mut b.rest_position;
        if ["足", "ひざ", "つま先"].iter().any(|s| b.name.contains(s)) {
            let hip = p.x.signum();
            *p = Vec3::new(hip + (p.x - hip) * 1.2, p.y * 1.2, 0.1 + (p.z - 0.1) * 1.2);
        } else {
            p.y += 0.2 * hip_y;
        }
    }
    for side in [1.0f32, -1.0] {
        let arm = if side > 0.0 { "左腕" } else { "右腕" };
        let Some(a) = m.skeleton.find(arm) else {
            continue;
        };
        let pivot = m.skeleton.bones[a].rest_position;
        let turn = if side > 0.0 { lower } else { lower.inverse() };
        let below: Vec<usize> = (0..m.skeleton.bones.len())
            .filter(|&i| {
                let mut p = m.skeleton.bones[i].parent;
                while let Some(x) = p {
                    if x == a {
                        return true;
                    }
                    p = m.skeleton.bones[x].parent;
                }
                false
            })
            .collect();
        for i in below {
            let p = m.skeleton.bones[i].rest_position;
            m.skeleton.bones[i].rest_position = pivot + turn * (p - pivot);
        }
    }
    m
}

fn bench(c: &mut Criterion) {
    let source = standard_model();
    let dst = target(&source);
    let motion = dance();
    assert!(motion.bones.len() >= 40_000, "{}", motion.bones.len());
    let options = SizingOptions::default();
    let mut g = c.benchmark_group("sizing");
    g.sample_size(10);
    g.bench_function("dance_5400_frames_40500_keys", |b| {
        b.iter(|| size_motion(black_box(&motion), &source, &dst, &options).expect("sized"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
