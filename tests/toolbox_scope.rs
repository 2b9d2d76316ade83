//! Mirror and Speed on part of a motion (issue 38.5): a frame range and a
//! bone selection. Every expected frame and value below is worked out by
//! hand next to its assertion.

use std::collections::BTreeSet;
use std::path::PathBuf;

use vmd_studio::vmd::ops::{self, KeyScope, SpeedParams, SpeedSpan};
use vmd_studio::vmd::{self, BoneKey, CameraKey, MorphKey, Motion, NameEncoding};

const SJIS: NameEncoding = NameEncoding::ShiftJis;
const ID: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

fn bone(name: &str, frame: u32, x: f32) -> BoneKey {
    BoneKey::new(name, SJIS, frame, [x, 0.0, 0.0], ID).unwrap()
}

fn camera(frame: u32) -> CameraKey {
    CameraKey::new(frame, -45.0, [1.0, 10.0, 0.0], [0.0, 0.5, 0.0], 30, true)
}

/// The Shift_JIS name key of a bone, as a VMD stores it.
fn key(name: &str) -> Vec<u8> {
    encoding_rs::SHIFT_JIS.encode(name).0.to_vec()
}

/// (name, frame, position x) of every bone key, in storage order.
fn bones_of(m: &Motion) -> Vec<(String, u32, f32)> {
    m.bones
        .iter()
        .map(|k| (k.name().text, k.frame(), k.position()[0]))
        .collect()
}

fn frames_of(m: &Motion, name: &str) -> Vec<u32> {
    m.bones
        .iter()
        .filter(|k| k.name().text == name)
        .map(|k| k.frame())
        .collect()
}

#[test]
fn speed_on_a_range_squeezes_it_and_moves_the_keys_after_it() {
    // Keys at 0, 10, 20, 30, 40; frames 10–30 at ×2. Inside: 10 + (f − 10)/2
    // → 10, 15, 20. The range was 20 frames long and is now round(20/2) = 10,
    // so the key at 40 moves by −10 to 30. The key at 0 is before it: stays.
    let mut m = Motion::new_v2();
    for f in [0, 10, 20, 30, 40] {
        m.bones.push(bone("センター", f, f as f32));
    }
    let scope = KeyScope {
        bones: None,
        frames: Some((10, 30)),
    };
    let (out, report) = ops::speed_scoped(&m, SpeedParams { factor: 2.0 }, &scope).unwrap();
    assert_eq!(frames_of(&out, "センター"), vec![0, 10, 15, 20, 30]);
    // Each key keeps its value: the key from 40 is the one now at 30.
    assert_eq!(out.bones[4].position()[0], 40.0);
    assert_eq!(report.changed, 3, "15, 20 and 30 moved: {:?}", report.lines);
    assert!(
        report
            .lines
            .iter()
            .any(|l| l.contains("frames 10–30 become 10–20")),
        "{:?}",
        report.lines
    );
}

#[test]
fn speed_slower_on_a_range_pushes_the_rest_later() {
    // Frames 5–15 at ×0.5: inside 5 + (f − 5)·2 → 5→5, 10→15, 15→25; the
    // range grows from 10 to 20 frames, so 20 moves by +10 to 30.
    let mut m = Motion::new_v2();
    for f in [0, 5, 10, 15, 20] {
        m.bones.push(bone("頭", f, 0.0));
    }
    let scope = KeyScope {
        bones: None,
        frames: Some((5, 15)),
    };
    let (out, _) = ops::speed_scoped(&m, SpeedParams { factor: 0.5 }, &scope).unwrap();
    assert_eq!(frames_of(&out, "頭"), vec![0, 5, 15, 25, 30]);
}

#[test]
fn speed_on_some_bones_leaves_every_other_track_as_it_was() {
    // Only 左腕 at ×2 (whole file): its keys 0, 10, 20 → 0, 5, 10. 右腕's
    // keys, the morph and the camera keep their frames and their bytes.
    let mut m = Motion::new_v2();
    for f in [0, 10, 20] {
        m.bones.push(bone("左腕", f, 1.0));
        m.bones.push(bone("右腕", f, 2.0));
        m.cameras.push(camera(f));
    }
    m.morphs.push(MorphKey::new("あ", SJIS, 20, 1.0).unwrap());
    let scope = KeyScope {
        bones: Some(BTreeSet::from([key("左腕")])),
        frames: None,
    };
    let (out, _) = ops::speed_scoped(&m, SpeedParams { factor: 2.0 }, &scope).unwrap();
    assert_eq!(frames_of(&out, "左腕"), vec![0, 5, 10]);
    assert_eq!(frames_of(&out, "右腕"), vec![0, 10, 20]);
    assert_eq!(out.morphs, m.morphs);
    assert_eq!(out.cameras, m.cameras);
}

#[test]
fn a_range_keeps_camera_cuts_inside_it() {
    // Camera keys 0, 20, 21 (a cut), 40; frames 10–40 at ×2. 20 → 10 + 5 = 15;
    // 21 stays one frame after it (the cut): 16; 40 → 10 + 15 = 25.
    let mut m = Motion::new_v2();
    for f in [0, 20, 21, 40] {
        m.cameras.push(camera(f));
    }
    let scope = KeyScope {
        bones: None,
        frames: Some((10, 40)),
    };
    let (out, _) = ops::speed_scoped(&m, SpeedParams { factor: 2.0 }, &scope).unwrap();
    let frames: Vec<u32> = out.cameras.iter().map(|k| k.frame()).collect();
    assert_eq!(frames, vec![0, 15, 16, 25]);
}

#[test]
fn a_span_before_the_motion_starts_scales_from_that_scene_frame() {
    // A scene-wide ×0.5 from scene frame 0 reaching a motion placed at scene
    // frame 10: in its own frames the span starts at −10. Its key at 0
    // (scene 10) goes to −10 + 10·2 = 10 (scene 20 = 10 / 0.5 ✓), its key
    // at 10 (scene 20) to −10 + 20·2 = 30 (scene 40 ✓).
    let mut m = Motion::new_v2();
    m.bones.push(bone("頭", 0, 0.0));
    m.bones.push(bone("頭", 10, 0.0));
    let span = SpeedSpan {
        from: -10,
        to: None,
    };
    let (out, _) = ops::speed_span(&m, SpeedParams { factor: 0.5 }, None, span).unwrap();
    assert_eq!(frames_of(&out, "頭"), vec![10, 30]);
    // ×2 from −10 would put the key at 0 at −10 + 5 = −5: refused, named.
    let e = ops::speed_span(&m, SpeedParams { factor: 2.0 }, None, span).unwrap_err();
    assert!(e.to_string().contains("frame 0 would move to -5"), "{e}");
}

#[test]
fn a_backwards_range_is_refused() {
    let mut m = Motion::new_v2();
    m.bones.push(bone("頭", 0, 0.0));
    let scope = KeyScope {
        bones: None,
        frames: Some((30, 10)),
    };
    assert!(ops::speed_scoped(&m, SpeedParams { factor: 2.0 }, &scope).is_err());
}

#[test]
fn mirror_on_a_range_and_a_bone_swaps_the_pair_there_only() {
    // 左腕 at x = 1 and 右腕 at x = 2, keyed at 0 and 20. Mirror 左腕 in
    // frames 10–30: the pair mirrors together at 20 (its partner 右腕 too,
    // so the sides swap and no key lands on another): 左腕@20 becomes
    // 右腕@20 with x = −1, 右腕@20 becomes 左腕@20 with x = −2. Frame 0 and
    // the camera (not a bone in the scope) are untouched.
    let mut m = Motion::new_v2();
    for f in [0, 20] {
        m.bones.push(bone("左腕", f, 1.0));
        m.bones.push(bone("右腕", f, 2.0));
        m.cameras.push(camera(f));
    }
    m.bones.push(bone("センター", 20, 3.0));
    let scope = KeyScope {
        bones: Some(BTreeSet::from([key("左腕")])),
        frames: Some((10, 30)),
    };
    let (out, report) = ops::mirror_scoped(&m, &scope).unwrap();
    assert_eq!(
        bones_of(&out),
        vec![
            ("左腕".to_owned(), 0, 1.0),
            ("右腕".to_owned(), 0, 2.0),
            ("右腕".to_owned(), 20, -1.0),
            ("左腕".to_owned(), 20, -2.0),
            // Not selected and no partner selected: kept.
            ("センター".to_owned(), 20, 3.0),
        ]
    );
    assert_eq!(out.cameras, m.cameras);
    assert_eq!(report.changed, 2, "{:?}", report.lines);
    assert!(report.lines.iter().any(|l| l.contains("frames 10–30")));
}

#[test]
fn mirror_on_a_range_of_every_track_mirrors_the_camera_there() {
    // No bone scope: the camera key at 20 (target x 1 → −1, rotation y
    // 0.5 → −0.5) is mirrored; the one at 0 is outside 10–30 and kept.
    let mut m = Motion::new_v2();
    m.cameras.push(camera(0));
    m.cameras.push(camera(20));
    let scope = KeyScope {
        bones: None,
        frames: Some((10, 30)),
    };
    let (out, _) = ops::mirror_scoped(&m, &scope).unwrap();
    assert_eq!(out.cameras[0], m.cameras[0]);
    assert_eq!(out.cameras[1].target(), [-1.0, 10.0, 0.0]);
    assert_eq!(out.cameras[1].rotation(), [0.0, -0.5, 0.0]);
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-scope-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn cli_speed_and_mirror_take_frames_and_bones() {
    let t = tmpdir("cli");
    let input = t.join("in.vmd");
    let mut m = Motion::new_v2();
    for f in [0, 10, 20, 30, 40] {
        m.bones.push(bone("センター", f, f as f32));
        m.bones.push(bone("左足", f, 1.0));
    }
    vmd::save(&m, &input).unwrap();
    let bin = || std::process::Command::new(env!("CARGO_BIN_EXE_vmd-studio"));
    // Speed ×2 on frames 10..30 of センター only (same arithmetic as the
    // first test): 0, 10, 15, 20, 30; 左足 keeps 0..40.
    let fast = t.join("fast.vmd");
    let out = bin()
        .args(["speed"])
        .arg(&input)
        .args([
            "--factor",
            "2",
            "--frames",
            "10..30",
            "--bone",
            "センター",
            "-o",
        ])
        .arg(&fast)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = vmd::read(&std::fs::read(&fast).unwrap()).unwrap();
    assert_eq!(frames_of(&got, "センター"), vec![0, 10, 15, 20, 30]);
    assert_eq!(frames_of(&got, "左足"), vec![0, 10, 20, 30, 40]);
    // Mirror 左足 on 35..40: only its key at 40 becomes 右足 (x −1).
    let mirrored = t.join("mirrored.vmd");
    let out = bin()
        .args(["mirror"])
        .arg(&input)
        .args(["--frames", "35..40", "--bone", "左足", "-o"])
        .arg(&mirrored)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = vmd::read(&std::fs::read(&mirrored).unwrap()).unwrap();
    assert_eq!(frames_of(&got, "右足"), vec![40]);
    assert_eq!(frames_of(&got, "左足"), vec![0, 10, 20, 30]);
    // A bone name Shift_JIS cannot hold is refused, nothing written.
    let bad = t.join("bad.vmd");
    let out = bin()
        .args(["mirror"])
        .arg(&input)
        .args(["--bone", "右侧髪", "-o"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("右侧髪"));
    assert!(!bad.exists());
    let _ = std::fs::remove_dir_all(&t);
}
