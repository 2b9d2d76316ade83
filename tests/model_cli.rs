//! The `model-info` and `pose` verbs, run as the built binary. Keys are the
//! ones issue 10 lists; numbers come from the corpus README and the
//! independent Python reading noted in `model_read.rs`.

mod common;
use common::corpus;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run vmd-studio: {e}"))
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn model_info_describes_mei() {
    let Some(dir) = corpus() else { return };
    let mei = dir.join("mei/mei.pmd");
    let wait = dir.join("mmdagent__mei_wait.vmd");
    let v = json(&run(&[
        "model-info",
        mei.to_str().unwrap(),
        "--motion",
        wait.to_str().unwrap(),
        "--json",
    ]));
    let c = &v["counts"];
    assert_eq!(c["vertices"], 8983);
    assert_eq!(c["faces"], 14637);
    assert_eq!(c["materials"], 17);
    assert_eq!(c["textures"], 16);
    assert_eq!(c["bones"], 142);
    assert_eq!(c["ik_chains"], 4);
    assert_eq!(c["morphs"]["vertex"], 28);
    assert_eq!(c["morphs"]["material"], 0);
    assert_eq!(c["rigid_bodies"], 31);
    assert_eq!(c["joints"], 20);
    assert_eq!(v["missing_textures"], serde_json::json!(["blouse.png"]));
    assert_eq!(v["motion_bones_missing"], serde_json::json!([]));
    assert_eq!(v["motion_morphs_missing"], serde_json::json!([]));
    // Text form names the missing texture too.
    let out = run(&["model-info", mei.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("missing textures (1): blouse.png"), "{text}");
}

#[test]
fn model_info_lists_motion_names_the_model_lacks() {
    let Some(dir) = corpus() else { return };
    // A tiny PMX with 5 bones against Mei's motion: most names are missing.
    let model = dir.join("pmx-babylonmmd/bone_hierarchy_test.pmx");
    let wait = dir.join("mmdagent__mei_wait.vmd");
    let v = json(&run(&[
        "model-info",
        model.to_str().unwrap(),
        "--motion",
        wait.to_str().unwrap(),
        "--json",
    ]));
    let bones = v["motion_bones_missing"].as_array().expect("list");
    assert!(bones.iter().any(|b| b == "センター"), "{bones:?}");
    let morphs = v["motion_morphs_missing"].as_array().expect("list");
    assert!(morphs.iter().any(|m| m == "まばたき"), "{morphs:?}");
}

#[test]
fn model_info_describes_every_corpus_model() {
    let Some(dir) = corpus() else { return };
    let mut n = 0;
    for sub in ["", "pmx-features", "pmx-babylonmmd", "mei"] {
        for e in std::fs::read_dir(dir.join(sub)).expect("dir").flatten() {
            let p = e.path();
            let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
            if ext != "pmx" && ext != "pmd" {
                continue;
            }
            let v = json(&run(&["model-info", p.to_str().unwrap(), "--json"]));
            assert!(v["counts"]["vertices"].is_u64(), "{}", p.display());
            n += 1;
        }
    }
    assert!(n >= 34, "{n} models");
}

#[test]
fn pose_gives_bones_morphs_ik_and_vertices() {
    let Some(dir) = corpus() else { return };
    let mei = dir.join("mei/mei.pmd");
    let wait = dir.join("mmdagent__mei_wait.vmd");
    let args = [
        "pose",
        mei.to_str().unwrap(),
        wait.to_str().unwrap(),
        "--frame",
        "30",
        "--json",
    ];
    let v = json(&run(&args));
    assert_eq!(v["frame"], 30.0);
    let bones = v["bones"].as_object().expect("bones");
    assert_eq!(bones.len(), 142);
    let ankle = &bones["左足首"]["position"];
    let ik = &bones["左足ＩＫ"]["position"];
    // IK on: the ankle sits on its IK bone.
    let d: f64 = (0..3)
        .map(|k| (ankle[k].as_f64().unwrap() - ik[k].as_f64().unwrap()).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(d < 0.05, "ankle {ankle} vs IK {ik}");
    let q = bones["頭"]["rotation"].as_array().expect("quaternion");
    assert_eq!(q.len(), 4);
    let len: f64 = q.iter().map(|x| x.as_f64().unwrap().powi(2)).sum();
    assert!((len - 1.0).abs() < 1e-3);
    assert_eq!(v["ik"]["左足ＩＫ"], true);
    assert_eq!(v["morphs"].as_object().expect("morphs").len(), 28);
    assert!(v.get("vertices").is_none());

    // --no-ik: every chain off, and the ankle no longer follows.
    let mut no_ik = args.to_vec();
    no_ik.push("--no-ik");
    let v = json(&run(&no_ik));
    assert_eq!(v["ik"]["左足ＩＫ"], false);

    // --vertices: every vertex, in file order, finite.
    let mut with_v = args.to_vec();
    with_v.push("--vertices");
    let v = json(&run(&with_v));
    let verts = v["vertices"].as_array().expect("vertices");
    assert_eq!(verts.len(), 8983);
    assert!(
        verts
            .iter()
            .all(|p| p.as_array().is_some_and(|a| a.len() == 3))
    );
}

#[test]
fn pose_frames_gives_one_json_line_per_frame() {
    let Some(dir) = corpus() else { return };
    let mei = dir.join("mei/mei.pmd");
    let wait = dir.join("mmdagent__mei_wait.vmd");
    let (mei, wait) = (mei.to_str().unwrap(), wait.to_str().unwrap());
    let out = run(&["pose", mei, wait, "--frames", "28..31", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "frames 28, 29, 30, 31");
    for (k, line) in lines.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        assert_eq!(v["frame"], 28.0 + k as f64);
        // The same keys as one --frame.
        let keys: Vec<&String> = v.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["bones", "frame", "ik", "morphs"]);
        assert_eq!(v["bones"].as_object().expect("bones").len(), 142);
    }
    // Each line is what --frame gives for that frame, byte for byte.
    for (k, f) in ["28", "31"].iter().enumerate() {
        let one = run(&["pose", mei, wait, "--frame", f, "--json"]);
        assert_eq!(
            String::from_utf8_lossy(&one.stdout).trim_end(),
            lines[k * 3],
            "frame {f}"
        );
    }
    // Frames differ: the motion moves.
    assert_ne!(lines[0], lines[3]);
    // --vertices rides along.
    let out = run(&[
        "pose",
        mei,
        wait,
        "--frames",
        "0..1",
        "--json",
        "--vertices",
    ]);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(text.lines().count(), 2);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
        assert_eq!(v["vertices"].as_array().expect("vertices").len(), 8983);
    }
    // Bad ranges, both or neither of --frame/--frames: one line, exit 1.
    for args in [
        vec!["pose", mei, wait, "--frames", "5..3"],
        vec!["pose", mei, wait, "--frames", "a..b"],
        vec!["pose", mei, wait, "--frames", "7"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    for args in [
        vec!["pose", mei, wait, "--frames", "0..1", "--frame", "3"],
        vec!["pose", mei, wait],
    ] {
        let out = run(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn model_verbs_fail_with_one_line() {
    let dir = std::env::temp_dir().join(format!("vmd-model-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.pmx");
    std::fs::write(&bad, b"PMX \x00\x00\x00\x40\x08\x00\x00\x09").expect("write");
    for args in [
        vec!["model-info", bad.to_str().unwrap()],
        vec!["model-info", "/nonexistent/model.pmx"],
        vec![
            "pose",
            bad.to_str().unwrap(),
            bad.to_str().unwrap(),
            "--frame",
            "0",
        ],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Every verb has --help.
    for verb in ["model-info", "pose"] {
        assert!(run(&[verb, "--help"]).status.success());
    }
}
