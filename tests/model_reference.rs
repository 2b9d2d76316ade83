//! The product's pose path (motion → `MotionBinding` → `Poser`) against bone
//! head positions from an independent MMD runtime
//! (`../shared/reference/poses/*.jsonl`, see its README): every bone of every
//! listed frame within 0.05 units. A failure names the worst bones, their
//! frames and distances.

mod common;
use common::corpus;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::Vec3;
use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::vmd::{self, IndexedMotion};

/// The tolerance the reference's README gives (the MMT model is ~25 units tall).
const TOLERANCE: f32 = 0.05;

/// The reference directory beside the corpus (`$VMD_CORPUS/../reference`).
fn reference_dir(corpus: &Path) -> Option<PathBuf> {
    let dir = corpus.parent()?.join("reference").join("poses");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: {} not found; skipping", dir.display());
        None
    }
}

/// One bone that missed: (distance, frame, bone name).
type Miss = (f32, f64, String);

struct Agreement {
    within: usize,
    total: usize,
    worst: Vec<Miss>,
    /// The largest distance of all, misses or not.
    max: Miss,
}

/// Poses `model` with `motion` at each frame of `file` and compares every
/// listed bone's head.
fn compare(file: &str, model: &str, motion: &str) -> Option<Agreement> {
    let corpus = corpus()?;
    let dir = reference_dir(&corpus)?;
    let text = std::fs::read_to_string(dir.join(file)).expect("reference file readable");
    let model = Model::open(&corpus.join(model)).expect("corpus model loads");
    let bytes = std::fs::read(corpus.join(motion)).expect("corpus motion readable");
    let motion = IndexedMotion::new(vmd::read_vec(bytes).expect("corpus motion parses"));
    // The product's pose path: evaluation cache, binding, poser.
    let mut engine = PoseEngine::new(&model);
    engine.bind(&model, Some(&motion.index));
    // A name listed twice in the model: the reference lists the first.
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for (i, b) in model.skeleton.bones.iter().enumerate() {
        by_name.entry(b.name.as_str()).or_insert(i);
    }
    let mut out = Agreement {
        within: 0,
        total: 0,
        worst: Vec::new(),
        max: (0.0, 0.0, String::new()),
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("reference line is JSON");
        let frame = v["frame"].as_f64().expect("frame is a number");
        engine.pose_bones(&model, Some(motion.as_ref()), frame, |_| {});
        let posed = &engine.posed;
        let bones = v["bones"].as_object().expect("bones is an object");
        for (name, p) in bones {
            let p = p.as_array().expect("position is an array");
            let want = Vec3::new(
                p[0].as_f64().unwrap_or(f64::NAN) as f32,
                p[1].as_f64().unwrap_or(f64::NAN) as f32,
                p[2].as_f64().unwrap_or(f64::NAN) as f32,
            );
            out.total += 1;
            let Some(&i) = by_name.get(name.as_str()) else {
                out.worst
                    .push((f32::INFINITY, frame, format!("{name} (not in model)")));
                continue;
            };
            let got = posed.bone_position(i).unwrap_or(Vec3::NAN);
            let d = got.distance(want);
            // NaN counts as the largest.
            if d.is_nan() || d > out.max.0 {
                out.max = (d, frame, name.clone());
            }
            if d <= TOLERANCE {
                out.within += 1;
            } else {
                out.worst.push((
                    if d.is_nan() { f32::INFINITY } else { d },
                    frame,
                    name.clone(),
                ));
            }
        }
    }
    out.worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    Some(out)
}

fn check(file: &str, model: &str, motion: &str) {
    let Some(a) = compare(file, model, motion) else {
        return;
    };
    let pct = 100.0 * a.within as f64 / a.total.max(1) as f64;
    let list: Vec<String> = a
        .worst
        .iter()
        .take(8)
        .map(|(d, f, n)| format!("{n} @ frame {f}: {d:.4}"))
        .collect();
    eprintln!(
        "{file}: {}/{} bone heads within {TOLERANCE} ({pct:.1}%); largest {:.4} ({} @ frame {}); misses: {}",
        a.within,
        a.total,
        a.max.0,
        a.max.2,
        a.max.1,
        if list.is_empty() {
            "none".to_owned()
        } else {
            list.join("; ")
        }
    );
    assert!(a.total > 0, "{file}: no bones compared");
    assert!(
        a.worst.is_empty(),
        "{file}: {} of {} bone heads further than {TOLERANCE} from the reference; worst: {}",
        a.worst.len(),
        a.total,
        list.join("; ")
    );
}

#[test]
fn mmt_test_motion_matches_reference() {
    check(
        "mmt__test_motion.jsonl",
        "unitymmdloader__mmt_test_model.pmx",
        "unitymmdloader__mmt_test_model_test_motion.vmd",
    );
}

#[test]
fn mmt_gimme_gimme_matches_reference() {
    check(
        "mmt__GimmeGimme.jsonl",
        "unitymmdloader__mmt_test_model.pmx",
        "webmmd__GimmeGimme_with_emotion.vmd",
    );
}

#[test]
fn mmt_nuekaze_matches_reference() {
    check(
        "mmt__nuekaze.jsonl",
        "unitymmdloader__mmt_test_model.pmx",
        "nuekaze__motion.vmd",
    );
}

#[test]
fn bone_tree_gimme_gimme_matches_reference() {
    check(
        "bone_tree__GimmeGimme.jsonl",
        "mmdbase__bone_tree_test_model.pmx",
        "webmmd__GimmeGimme_with_emotion.vmd",
    );
}
