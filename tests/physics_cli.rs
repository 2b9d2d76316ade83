//! `pose --physics`, `bake-physics` and `model-info`'s physics lines, run as
//! the built binary on Mei and `mei_wait`.

mod common;
#[cfg(feature = "render")]
mod render_support;
use common::corpus;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vmd_studio::vmd::{self, Motion};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run vmd-studio: {e}"))
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mei() -> Option<(PathBuf, PathBuf)> {
    let dir = corpus()?;
    Some((
        dir.join("mmdagent__mei.pmd"),
        dir.join("mmdagent__mei_wait.vmd"),
    ))
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("physics_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn read(p: &Path) -> Motion {
    vmd::read_vec(std::fs::read(p).expect("read")).expect("parse")
}

/// Bone heads of one `pose --json` line.
fn heads(line: &str) -> serde_json::Map<String, serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(line).expect("json");
    v["bones"].as_object().expect("bones").clone()
}

fn position(v: &serde_json::Value) -> [f64; 3] {
    let p = v["position"].as_array().expect("position");
    [0, 1, 2].map(|i| p[i].as_f64().expect("finite number"))
}

#[test]
fn pose_with_physics_moves_the_hair_and_stays_finite() {
    let Some((model, motion)) = mei() else { return };
    let args = |physics: bool| {
        let mut a = vec!["pose", s(&model), s(&motion), "--frame", "60", "--json"];
        if physics {
            a.push("--physics");
        }
        ok(&run(&a))
    };
    let sim = heads(args(true).trim());
    let plain = heads(args(false).trim());
    let mut moved = 0.0_f64;
    for (name, b) in &sim {
        let p = position(b);
        assert!(p.iter().all(|x| x.is_finite()), "{name}: {p:?}");
        let q = position(&plain[name]);
        let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
        if name.contains('髪') {
            moved = moved.max(d);
        }
        // Bones away from the hair and ribbons are untouched by physics.
        if name == "センター" || name == "右足首" {
            assert!(d < 1e-6, "{name} moved by {d}");
        }
    }
    eprintln!("pose --physics frame 60: hair heads up to {moved:.3} units from the animated pose");
    assert!(moved > 0.05, "hair did not move: {moved}");
}

#[test]
fn pose_with_physics_through_a_range_prints_one_line_per_frame() {
    let Some((model, motion)) = mei() else { return };
    let out = ok(&run(&[
        "pose",
        s(&model),
        s(&motion),
        "--frames",
        "10..14",
        "--json",
        "--physics",
    ]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5);
    // The range continues the simulation from frame 0: its frame 14 is
    // the same as a single `--frame 14` (both simulated 0 → 14 in order).
    let single = ok(&run(&[
        "pose",
        s(&model),
        s(&motion),
        "--frame",
        "14",
        "--json",
        "--physics",
    ]));
    assert_eq!(lines[4].trim(), single.trim());
}

#[test]
fn bake_physics_writes_flagged_keys_and_leaves_every_other_record() {
    let Some((model, motion)) = mei() else { return };
    let out = temp("mei_baked.vmd");
    let text = ok(&run(&[
        "bake-physics",
        s(&model),
        s(&motion),
        "--frames",
        "0..120",
        "-o",
        s(&out),
    ]));
    assert!(text.contains("baked 20 bones"), "{text}");
    let before = read(&motion);
    let after = read(&out);
    // Mei's 20 dynamic bodies drive 20 hair and ribbon bones (model-info:
    // 20 "physics + bone position" bodies, each on its own bone).
    let baked: Vec<Vec<u8>> = {
        let mut names: Vec<Vec<u8>> = after
            .bones
            .iter()
            .filter(|k| k.physics_off())
            .map(|k| k.name_key().to_vec())
            .collect();
        names.sort();
        names.dedup();
        names
    };
    assert_eq!(baked.len(), 20);
    let is_baked = |k: &vmd::BoneKey| baked.iter().any(|n| n == k.name_key());
    // Every key of a baked bone in 0..=120 is new and flagged: one per frame.
    let flagged: Vec<_> = after.bones.iter().filter(|k| is_baked(k)).collect();
    assert_eq!(flagged.len(), 20 * 121);
    assert!(flagged.iter().all(|k| k.physics_off()));
    for name in &baked {
        let mut frames: Vec<u32> = flagged
            .iter()
            .filter(|k| k.name_key() == name.as_slice())
            .map(|k| k.frame())
            .collect();
        frames.sort_unstable();
        assert_eq!(frames, (0..=120).collect::<Vec<u32>>());
    }
    // Every other record keeps its bytes, in order.
    let other = |m: &Motion| -> Vec<Vec<u8>> {
        m.bones
            .iter()
            .filter(|k| !is_baked(k))
            .map(|k| k.raw.to_vec())
            .collect()
    };
    assert_eq!(other(&before), other(&after));
    assert_eq!(before.morphs, after.morphs);
    assert_eq!(before.cameras, after.cameras);
    assert_eq!(before.lights, after.lights);
    assert_eq!(before.shadows, after.shadows);
    assert_eq!(before.iks, after.iks);
    assert_eq!(before.sections_present, after.sections_present);
    assert_eq!(before.trailing, after.trailing);
    assert_eq!(before.header, after.header);
    assert_eq!(before.model_name_field, after.model_name_field);

    // Playing the bake without physics gives the simulated pose: the same
    // hair as `pose --physics` (within 1e-3 units: f32 keys rebuilt through
    // the bone chain; the engine test measures 6e-6).
    let sim = ok(&run(&[
        "pose",
        s(&model),
        s(&motion),
        "--frame",
        "90",
        "--json",
        "--physics",
    ]));
    let replay = ok(&run(&[
        "pose",
        s(&model),
        s(&out),
        "--frame",
        "90",
        "--json",
    ]));
    let (sim, replay) = (heads(sim.trim()), heads(replay.trim()));
    let mut worst = 0.0_f64;
    for (name, b) in &sim {
        let (p, q) = (position(b), position(&replay[name]));
        let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
        worst = worst.max(d);
    }
    eprintln!("bake replayed without physics: worst head difference {worst:e} units");
    assert!(worst < 1e-3, "{worst}");
}

/// A bake over 10..70 of a 0..120 motion: MMD keeps a bone's physics off
/// from its last flagged key on, so without one more key the hair would
/// freeze from frame 71 to the end. Each baked bone gets one key at 71 with
/// the flag clear (bytes 2–3 of the interpolation block not `63 0F`), and
/// posing with physics at frame 100 then moves the hair again.
#[test]
fn a_range_bake_gives_physics_back_after_the_range() {
    let Some((model, motion)) = mei() else { return };
    let out = temp("mei_baked_range.vmd");
    let text = ok(&run(&[
        "bake-physics",
        s(&model),
        s(&motion),
        "--frames",
        "10..70",
        "-o",
        s(&out),
    ]));
    assert!(text.contains("baked 20 bones"), "{text}");
    assert!(
        text.contains("20 keys at frame 71 turn physics back on"),
        "{text}"
    );
    let before = read(&motion);
    let after = read(&out);
    let mut baked: Vec<Vec<u8>> = after
        .bones
        .iter()
        .filter(|k| k.physics_off())
        .map(|k| k.name_key().to_vec())
        .collect();
    baked.sort();
    baked.dedup();
    assert_eq!(baked.len(), 20);
    let is_baked = |k: &vmd::BoneKey| baked.iter().any(|n| n == k.name_key());
    // Each baked bone: its own keys outside 10..=70 as they were, 61
    // flagged keys (10..=70), and one clear key at 71 unless it had its own
    // key there (its physics is on at 71 in mei_wait: no key of a hair bone
    // there is flagged).
    assert!(!before.bones.iter().any(|k| is_baked(k) && k.physics_off()));
    for name in &baked {
        let mut keys: Vec<(u32, bool)> = after
            .bones
            .iter()
            .filter(|k| k.name_key() == name.as_slice())
            .map(|k| (k.frame(), k.physics_off()))
            .collect();
        keys.sort_unstable();
        let own: Vec<u32> = before
            .bones
            .iter()
            .filter(|k| k.name_key() == name.as_slice())
            .map(|k| k.frame())
            .collect();
        let mut want: Vec<(u32, bool)> = own
            .iter()
            .filter(|f| !(10..=70).contains(*f))
            .map(|&f| (f, false))
            .collect();
        want.extend((10..=70).map(|f| (f, true)));
        if !own.contains(&71) {
            want.push((71, false));
        }
        want.sort_unstable();
        assert_eq!(keys, want);
        let restore = after
            .bones
            .iter()
            .find(|k| k.name_key() == name.as_slice() && k.frame() == 71)
            .expect("key at 71");
        assert_ne!(&restore.raw[111 - 64 + 2..111 - 64 + 4], &[0x63, 0x0F]);
        assert!(
            restore.raw[15..43]
                .chunks(4)
                .all(|c| { f32::from_le_bytes([c[0], c[1], c[2], c[3]]).is_finite() })
        );
    }
    // With physics, frame 100 of the baked file moves the hair as the
    // original does: simulated, so different from the file without physics.
    let line = |file: &Path, physics: bool| {
        let mut args = vec!["pose", s(&model), s(file), "--frame", "100", "--json"];
        if physics {
            args.push("--physics");
        }
        heads(ok(&run(&args)).trim())
    };
    let (sim, plain) = (line(&out, true), line(&out, false));
    let mut moved = 0.0_f64;
    for (name, b) in &sim {
        let (p, q) = (position(b), position(&plain[name]));
        let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
        moved = moved.max(d);
    }
    eprintln!("range bake, frame 100: physics moves a head by up to {moved} units");
    assert!(moved > 0.01, "physics is back after the range: {moved}");

    // A bake reaching the motion's last frame writes no such key.
    let whole = temp("mei_baked_whole.vmd");
    let text = ok(&run(&[
        "bake-physics",
        s(&model),
        s(&motion),
        "-o",
        s(&whole),
    ]));
    assert!(!text.contains("turn physics back on"), "{text}");
}

#[test]
fn bake_physics_refuses_what_it_cannot_do() {
    let Some(dir) = corpus() else { return };
    let motion = dir.join("mmdagent__mei_wait.vmd");
    // A model without rigid bodies.
    let out = temp("nothing.vmd");
    let bare = dir.join("babylonmmd__bone_hierarchy_test.pmx");
    let r = run(&["bake-physics", s(&bare), s(&motion), "-o", s(&out)]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("no rigid bodies"), "{err}");
    assert!(!out.exists());
    // Writing over the input.
    let copy = temp("input.vmd");
    std::fs::copy(&motion, &copy).expect("copy");
    let model = dir.join("mmdagent__mei.pmd");
    let r = run(&["bake-physics", s(&model), s(&copy), "-o", s(&copy)]);
    assert!(!r.status.success());
    assert_eq!(
        std::fs::read(&copy).expect("read"),
        std::fs::read(&motion).expect("read")
    );
}

#[test]
fn model_info_lists_bodies_by_mode_and_joints() {
    let Some((model, _)) = mei() else { return };
    let text = ok(&run(&["model-info", s(&model)]));
    assert!(
        text.contains(
            "rigid bodies by mode (file): follow bone 11  physics 0  physics + bone position 20"
        ),
        "{text}"
    );
    assert!(text.contains("joints built 20 of 20"), "{text}");
    assert!(text.contains("physics refused: none"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(&run(&["model-info", s(&model), "--json"]))).expect("json");
    assert_eq!(
        json["physics"]["simulated_modes"]["physics_bone_position"],
        20
    );
    assert_eq!(json["physics"]["joints_built"], 20);
}

/// Decoded RGBA pixels of a PNG.
#[cfg(feature = "render")]
fn pixels(p: &Path) -> Vec<u8> {
    image::open(p).expect("png").to_rgba8().into_raw()
}

#[cfg(feature = "render")]
#[test]
fn render_simulates_by_default_and_no_physics_turns_it_off() {
    let (Some(_), Some((model, motion))) = (render_support::offscreen(), mei()) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("physics_cli_render_{}", std::process::id()));
    let render = |tag: &str, extra: &[&str]| -> PathBuf {
        let out = dir.join(tag);
        let mut a = vec![
            "render",
            s(&model),
            s(&motion),
            "--frames",
            "58..60",
            "--size",
            "160x120",
            "-o",
            s(&out),
        ];
        a.extend_from_slice(extra);
        ok(&run(&a));
        out.join("00002.png")
    };
    let on = pixels(&render("on", &[]));
    let again = pixels(&render("again", &[]));
    let off = pixels(&render("off", &["--no-physics"]));
    // Deterministic: the same pictures twice.
    assert!(on == again, "two renders with physics differ");
    // The hair moved some pixels (Mei's hair tips move ~0.1 units, a pixel
    // or so at this size; at least one pixel changes).
    let changed = on
        .chunks(4)
        .zip(off.chunks(4))
        .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| x.abs_diff(*y) > 8))
        .count();
    eprintln!("render 160x120 frame 60: {changed} pixels differ with physics");
    assert!(changed > 0);
}
