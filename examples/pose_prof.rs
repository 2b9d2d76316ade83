//! Profiling driver (callgrind): poses the MMT test model wearing
//! GimmeGimme at 200 pseudo-random frames through `PoseEngine::pose_bones`,
//! then Mei (wait) with skinning at 100 frames.
//! `valgrind --tool=callgrind target/release/examples/pose_prof [mmt|mei]`.
//!
//! `pose_prof hash` prints a hash of every bit the engine gives (bone
//! matrices, skinning matrices, local rotations, morph weights, vertices)
//! for several corpus (model, motion) pairs at 600 frames each, random and
//! in playback: two builds that print the same hashes pose the same, bit
//! for bit.

use std::path::PathBuf;

use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::vmd::{self, IndexedMotion};

fn main() {
    let dir = std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus"));
    let which = std::env::args().nth(1).unwrap_or_else(|| "mmt".into());
    if which == "hash" {
        hash_all(&dir);
        return;
    }
    let (model_path, motion_path) = if which == "mei" {
        ("mei/mei.pmd", "mmdagent__mei_wait.vmd")
    } else {
        (
            "unitymmdloader__mmt_test_model.pmx",
            "webmmd__GimmeGimme_with_emotion.vmd",
        )
    };
    let Ok(model) = Model::open(&dir.join(model_path)) else {
        eprintln!("cannot open {model_path}");
        return;
    };
    let Some(motion) = std::fs::read(dir.join(motion_path))
        .ok()
        .and_then(|b| vmd::read(&b).ok())
    else {
        eprintln!("cannot read {motion_path}");
        return;
    };
    let last = motion.bones.iter().map(|k| k.frame()).max().unwrap_or(0);
    let motion = IndexedMotion::new(motion);
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut sum = 0.0f32;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let frame = (x % (u64::from(last.max(1)) * 8)) as f64 / 8.0;
        if which == "mei" {
            engine.pose(&model, Some(motion.as_ref()), frame);
            sum += engine.posed.positions.first().map_or(0.0, |p| p.x);
        } else {
            engine.pose_bones(&model, Some(motion.as_ref()), frame, |_| {});
            sum += engine.posed.bone_world.first().map_or(0.0, |m| m.w_axis.x);
        }
    }
    println!("{which}: {n} frames, checksum {sum}");
}

fn fnv(h: &mut u64, words: impl IntoIterator<Item = u32>) {
    for w in words {
        *h = (*h ^ u64::from(w)).wrapping_mul(0x0100_0000_01b3);
    }
}

fn hash_all(dir: &std::path::Path) {
    let pairs = [
        (
            "unitymmdloader__mmt_test_model.pmx",
            "webmmd__GimmeGimme_with_emotion.vmd",
        ),
        (
            "unitymmdloader__mmt_test_model.pmx",
            "unitymmdloader__mmt_test_model_test_motion.vmd",
        ),
        ("unitymmdloader__mmt_test_model.pmx", "nuekaze__motion.vmd"),
        (
            "mmdbase__bone_tree_test_model.pmx",
            "webmmd__GimmeGimme_with_emotion.vmd",
        ),
        ("mei/mei.pmd", "mmdagent__mei_wait.vmd"),
        ("mei/mei.pmd", "mmdagent__mei_happiness.vmd"),
        ("mei/mei.pmd", "webmmd__GimmeGimme_with_emotion.vmd"),
    ];
    for (model_path, motion_path) in pairs {
        let Ok(model) = Model::open(&dir.join(model_path)) else {
            eprintln!("cannot open {model_path}");
            continue;
        };
        let Some(motion) = std::fs::read(dir.join(motion_path))
            .ok()
            .and_then(|b| vmd::read(&b).ok())
        else {
            eprintln!("cannot read {motion_path}");
            continue;
        };
        let last = motion.bones.iter().map(|k| k.frame()).max().unwrap_or(0);
        let motion = IndexedMotion::new(motion);
        let mut engine = PoseEngine::new(&model);
        engine.bind(&model, Some(&motion.index));
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in 0..600u32 {
            let frame = if i < 300 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % (u64::from(last.max(1)) * 8)) as f64 / 8.0
            } else {
                f64::from(i - 300) * 0.75
            };
            engine.pose(&model, Some(motion.as_ref()), frame);
            let p = &engine.posed;
            for m in p.bone_world.iter().chain(&p.skinning) {
                fnv(&mut h, m.to_cols_array().map(f32::to_bits));
            }
            for q in &p.local_rotations {
                fnv(&mut h, q.to_array().map(f32::to_bits));
            }
            fnv(&mut h, p.applied_morphs.iter().map(|w| w.to_bits()));
            for v in p.positions.iter().chain(&p.normals) {
                fnv(&mut h, v.to_array().map(f32::to_bits));
            }
        }
        println!("{model_path} + {motion_path}: {h:016x}");
    }
}
