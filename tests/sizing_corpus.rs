//! Sizing (issue 36) on real data: the vmd_sizing author's sample model
//! and the motion made for it, sized onto a 1.2× copy of itself (contacts
//! scaled), onto Mei and the MMT test model (measurably closer to the
//! source than unsized), and the `size` verb's report and refusals.

mod common;
use common::corpus;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vmd_studio::model::{BoneTail, Model, PoseEngine};
use vmd_studio::sizing::{self, SizingOptions};
use vmd_studio::vmd::{self, IndexedMotion, Motion};

const SAMPLE: &str = "frontier/sizing_mmdbase_sample_model";

fn files(dir: &Path) -> (Model, Motion) {
    let model = Model::open(&dir.join(SAMPLE).join("サンプルモデル.pmx")).expect("sample model");
    let bytes = std::fs::read(dir.join(SAMPLE).join("サンプルモーション3.vmd")).expect("motion");
    (model, vmd::read_vec(bytes).expect("vmd"))
}

fn scaled(model: &Model, k: f32) -> Model {
    let mut m = model.clone();
    for b in &mut m.skeleton.bones {
        b.rest_position *= k;
        if let Some(BoneTail::Offset(o)) = &mut b.tail {
            *o *= k;
        }
    }
    m
}

/// World positions of `bones` at `frame`.
fn positions(model: &Model, motion: &Motion, bones: &[&str], frames: &[f64]) -> Vec<glam::Vec3> {
    let im = IndexedMotion::new(motion.clone());
    let mut e = PoseEngine::new(model);
    e.bind(model, Some(&im.index));
    let mut out = Vec::new();
    for &f in frames {
        e.pose_bones(model, Some(im.as_ref()), f, |_| {});
        for b in bones {
            let i = model.skeleton.find(b).expect("bone");
            out.push(e.posed.bone_world[i].w_axis.truncate());
        }
    }
    out
}

#[test]
fn the_sample_motion_on_a_1_2_copy_keeps_its_contacts_scaled() {
    let Some(dir) = corpus() else { return };
    let (model, motion) = files(&dir);
    let big = scaled(&model, 1.2);
    let out = sizing::size_motion(&motion, &model, &big, &SizingOptions::default()).expect("sized");
    assert!(
        (out.ratios.horizontal - 1.2).abs() < 1e-4,
        "{:?}",
        out.ratios
    );
    let last = motion.bones.iter().map(|k| k.frame()).max().unwrap_or(0);
    let frames: Vec<f64> = (0..=last).step_by(7).map(f64::from).collect();
    let bones = [
        "左足首",
        "右足首",
        "左つま先",
        "右つま先",
        "左手首",
        "右手首",
    ];
    let want = positions(&model, &motion, &bones, &frames);
    let got = positions(&big, &out.motion, &bones, &frames);
    let leg = sizing::measure(&big, "target").expect("measure").leg_length;
    let worst = want
        .iter()
        .zip(&got)
        .map(|(w, g)| g.distance(*w * 1.2))
        .fold(0.0f32, f32::max);
    assert!(
        worst < 0.02 * leg,
        "worst contact error {worst} (leg {leg})"
    );
}

#[test]
fn sizing_onto_other_bodies_measures_closer_to_the_source() {
    let Some(dir) = corpus() else { return };
    let (model, motion) = files(&dir);
    for target in ["mmdagent__mei.pmd", "unitymmdloader__mmt_test_model.pmx"] {
        let t = Model::open(&dir.join(target)).expect("target");
        let out =
            sizing::size_motion(&motion, &model, &t, &SizingOptions::default()).expect("sized");
        let q = sizing::quality(&motion, &out.motion, &model, &t).expect("quality");
        eprintln!("{target}: ratios {:?}\n{q:#?}", out.ratios);
        // The pose on the sized target matches the source's within 1 % of
        // the leg's length (hips: the pelvis's own shape differs, which
        // sizing does not change) and 0.5° (arms); unsized it does not.
        assert!(q.after.hip_error < 0.01, "{target}: {q:#?}");
        assert!(q.after.stance_error < 0.01, "{target}: {q:#?}");
        assert!(q.before.stance_error > 0.03, "{target}: {q:#?}");
        let (a, b) = (q.after.arm_angle_max, q.before.arm_angle_max);
        assert!(
            a.expect("arms") < 0.5 && b.expect("arms") > 5.0,
            "{target}: {q:#?}"
        );
        assert_eq!(q.after.ik_reach, q.source.ik_reach, "{target}: {q:#?}");
        assert!(
            q.after.floor_frames <= q.before.floor_frames,
            "{target}: {q:#?}"
        );
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run vmd-studio: {e}"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vmd-studio-sizing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

#[test]
fn the_size_verb_writes_the_motion_and_reports() {
    let Some(dir) = corpus() else { return };
    let sample = dir.join(SAMPLE);
    let motion = sample.join("サンプルモーション3.vmd");
    let from = sample.join("サンプルモデル.pmx");
    let to = dir.join("mmdagent__mei.pmd");
    let out_path = scratch("mei.vmd");
    let out = run(&[
        "size",
        motion.to_str().unwrap(),
        "--from",
        from.to_str().unwrap(),
        "--to",
        to.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let written = vmd::read_vec(std::fs::read(&out_path).expect("written")).expect("vmd");
    let input = vmd::read_vec(std::fs::read(&motion).expect("input")).expect("vmd");
    let changes = v["changes"].as_array().expect("changes");
    let added: u64 = changes.iter().map(|c| c["added"].as_u64().unwrap()).sum();
    let kept: u64 = changes
        .iter()
        .map(|c| c["untouched"].as_u64().unwrap())
        .sum();
    let changed: u64 = changes.iter().map(|c| c["changed"].as_u64().unwrap()).sum();
    assert_eq!(written.bones.len() as u64, input.bones.len() as u64 + added);
    assert_eq!(changed + kept, input.bones.len() as u64);
    // Every key the report calls untouched is byte-identical in the file.
    let same = input
        .bones
        .iter()
        .zip(&written.bones)
        .filter(|(a, b)| a == b)
        .count() as u64;
    assert_eq!(same, kept);
    let q = &v["quality"];
    for part in ["source", "before", "after"] {
        for field in [
            "ik_reach",
            "stance",
            "hip_height",
            "floor_frames",
            "arm_angle_mean",
        ] {
            assert!(q[part][field].is_number(), "{part}.{field}: {q}");
        }
    }
    assert!(v["ratios"]["horizontal"].as_f64().unwrap() > 0.0);
    assert_eq!(v["options"]["arms"], true);
    // Text form.
    let text = run(&[
        "size",
        motion.to_str().unwrap(),
        "--from",
        from.to_str().unwrap(),
        "--to",
        to.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
        "--no-arms",
    ]);
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(text.status.success() && s.contains("leg IK reach"), "{s}");
}

#[test]
fn the_size_verb_refuses_a_model_without_legs_and_writes_nothing() {
    let Some(dir) = corpus() else { return };
    let sample = dir.join(SAMPLE);
    let out_path = scratch("refused.vmd");
    let _ = std::fs::remove_file(&out_path);
    let out = run(&[
        "size",
        sample.join("サンプルモーション3.vmd").to_str().unwrap(),
        "--from",
        sample.join("サンプルモデル.pmx").to_str().unwrap(),
        "--to",
        dir.join("babylonmmd__bone_hierarchy_test.pmx")
            .to_str()
            .unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("target model lacks") && err.contains("センター"),
        "{err}"
    );
    assert!(!out_path.exists());
}

#[test]
fn the_size_verb_takes_the_builtin_skeleton_as_source() {
    let Some(dir) = corpus() else { return };
    let out_path = scratch("builtin.vmd");
    let out = run(&[
        "size",
        dir.join("mmdagent__mei_wait.vmd").to_str().unwrap(),
        "--from",
        "builtin",
        "--to",
        dir.join("mmdagent__mei.pmd").to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    // The built-in body's left leg: 足 (1, 10.3, 0.1) → 足首 (1.1, 1.2, 0.35).
    let reach = ((0.1f64).powi(2) + 9.1f64.powi(2) + 0.25f64.powi(2)).sqrt();
    let mei = vmd_studio::model::Model::open(&dir.join("mmdagent__mei.pmd")).expect("mei");
    let m = sizing::measure(&mei, "target").expect("measure");
    let want = f64::from(m.leg_reach) / reach;
    let got = v["ratios"]["horizontal"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-4, "{got} vs {want}");
    assert!(out_path.exists());
}

/// Rest position of `bone` in `model`.
fn rest(model: &Model, bone: &str) -> glam::Vec3 {
    let i = model.skeleton.find(bone).expect(bone);
    model.skeleton.bones[i].rest_position
}

#[test]
fn the_size_verb_sizes_a_camera_keeping_its_framing() {
    let Some(dir) = corpus() else { return };
    let sample = dir.join(SAMPLE);
    let motion = sample.join("サンプルモーション3.vmd");
    let from = sample.join("サンプルモデル.pmx");
    let to = dir.join("mmdagent__mei.pmd");
    let cam = dir.join("webmmd__GimmexGimme.vmd");
    let (out_path, cam_out) = (scratch("cam_body.vmd"), scratch("cam_out.vmd"));
    let args = |cam_path: &Path, cam_dest: &Path| {
        run(&[
            "size",
            motion.to_str().unwrap(),
            "--from",
            from.to_str().unwrap(),
            "--to",
            to.to_str().unwrap(),
            "-o",
            out_path.to_str().unwrap(),
            "--camera",
            cam_path.to_str().unwrap(),
            "--camera-out",
            cam_dest.to_str().unwrap(),
            "--json",
        ])
    };
    let out = args(&cam, &cam_out);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    // The mapping from the models' bones, computed here: X/Z × the ratio
    // of the straight 左足 → 左足首 distances, Y piecewise through the hips
    // (mean 足 height) and 頭, distance × the 頭 height ratio.
    let (s, t) = (
        Model::open(&from).expect("source"),
        Model::open(&to).expect("target"),
    );
    let reach = |m: &Model| rest(m, "左足").distance(rest(m, "左足首"));
    let hips = |m: &Model| (rest(m, "左足").y + rest(m, "右足").y) / 2.0;
    let h = reach(&t) / reach(&s);
    let (sh, th, sd, td) = (hips(&s), hips(&t), rest(&s, "頭").y, rest(&t, "頭").y);
    let map_y = |y: f32| {
        if y <= sh {
            y * th / sh
        } else if y <= sd {
            th + (y - sh) / (sd - sh) * (td - th)
        } else {
            td + (y - sd) * td / sd
        }
    };
    let c = &v["camera"];
    assert!((c["distance_ratio"].as_f64().unwrap() - f64::from(td / sd)).abs() < 1e-5);
    let input = vmd::read_vec(std::fs::read(&cam).expect("camera")).expect("vmd");
    let written = vmd::read_vec(std::fs::read(&cam_out).expect("written")).expect("vmd");
    assert_eq!(input.cameras.len(), written.cameras.len());
    assert_eq!(c["keys"].as_u64(), Some(input.cameras.len() as u64));
    let mut identical = 0;
    for (a, b) in input.cameras.iter().zip(&written.cameras) {
        let p = a.target();
        let want = [p[0] * h, map_y(p[1]), p[2] * h];
        let got = b.target();
        for i in 0..3 {
            assert!((got[i] - want[i]).abs() < 1e-3, "{got:?} vs {want:?}");
        }
        assert!((b.distance() - a.distance() * td / sd).abs() < 1e-3);
        // Frame, angles, curves, fov and perspective byte-identical.
        assert_eq!((&a.raw[..4], &a.raw[20..]), (&b.raw[..4], &b.raw[20..]));
        identical += usize::from(a == b);
    }
    assert_eq!(c["untouched"].as_u64(), Some(identical as u64));
    assert_eq!(input.header, written.header);
    assert_eq!(
        (input.bones.len(), input.morphs.len(), input.lights.len()),
        (
            written.bones.len(),
            written.morphs.len(),
            written.lights.len()
        )
    );
    // A "camera" without camera keys (the body motion) is refused and
    // nothing is written; --camera alone is refused.
    let (refused_body, refused_cam) = (scratch("refused_body.vmd"), scratch("refused_cam.vmd"));
    let _ = std::fs::remove_file(&out_path);
    let bad = args(&motion, &refused_cam);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no camera keys"));
    assert!(!out_path.exists() && !refused_cam.exists());
    let alone = run(&[
        "size",
        motion.to_str().unwrap(),
        "--from",
        from.to_str().unwrap(),
        "--to",
        to.to_str().unwrap(),
        "-o",
        refused_body.to_str().unwrap(),
        "--camera",
        cam.to_str().unwrap(),
    ]);
    assert!(!alone.status.success());
    assert!(String::from_utf8_lossy(&alone.stderr).contains("--camera-out"));
    assert!(!refused_body.exists());
}

#[test]
fn the_size_verb_sizes_a_group_with_one_horizontal_ratio() {
    let Some(dir) = corpus() else { return };
    let sample = dir.join(SAMPLE);
    let (mei_motion, mei) = (
        dir.join("mmdagent__mei_wait.vmd"),
        dir.join("mmdagent__mei.pmd"),
    );
    let (sample_motion, sample_model) = (
        sample.join("サンプルモーション3.vmd"),
        sample.join("サンプルモデル.pmx"),
    );
    let out_dir = scratch("group");
    let _ = std::fs::remove_dir_all(&out_dir);
    let member = |m: &Path, t: &Path| format!("{}={}", m.display(), t.display());
    let (a, b) = (
        member(&mei_motion, &mei),
        member(&sample_motion, &sample_model),
    );
    let out = run(&[
        "size",
        "--from",
        "builtin",
        "--group",
        &a,
        "--group",
        &b,
        "-o",
        out_dir.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    // The built-in body's left leg: 足 (1, 10.3, 0.1) → 足首 (1.1, 1.2, 0.35);
    // each target's straight 左足 → 左足首 over it, then the mean (≤ 1.2).
    let builtin = ((0.1f32).powi(2) + 9.1f32.powi(2) + 0.25f32.powi(2)).sqrt();
    let reach = |p: &Path| {
        let m = Model::open(p).expect("model");
        rest(&m, "左足").distance(rest(&m, "左足首")) / builtin
    };
    let shared = ((reach(&mei) + reach(&sample_model)) / 2.0).min(1.2);
    let got = v["shared_horizontal"].as_f64().unwrap();
    assert!((got - f64::from(shared)).abs() < 1e-4, "{got} vs {shared}");
    let members = v["members"].as_array().expect("members");
    assert_eq!(members.len(), 2);
    for m in members {
        let h = m["ratios"]["horizontal"].as_f64().unwrap();
        assert!((h - got).abs() < 1e-9);
    }
    for stem in ["mmdagent__mei_wait", "サンプルモーション3"] {
        let p = out_dir.join(format!("{stem}_sized.vmd"));
        vmd::read_vec(std::fs::read(&p).expect("written")).expect("vmd");
    }
    // Text form names the shared ratio; two motions of one name refused.
    let text = run(&[
        "size",
        "--from",
        "builtin",
        "--group",
        &a,
        "--group",
        &b,
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(s.contains("shared horizontal ratio"), "{s}");
    let twice_dir = scratch("group_twice");
    let twice = run(&[
        "size",
        "--from",
        "builtin",
        "--group",
        &a,
        "--group",
        &a,
        "-o",
        twice_dir.to_str().unwrap(),
    ]);
    assert_eq!(twice.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("collide"));
    assert!(!twice_dir.exists());
}
