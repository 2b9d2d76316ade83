//! Curve edits: byte diffs on real corpus files, presets, evaluation after an
//! edit and the `set-curve` CLI.
//!
//! Expected byte offsets are computed here from the spec
//! (/work/shared/spec/vmd-format.md), not from the crate's layout code:
//! * v2 file: header 30 + model name 20 = 50, bone count u32 at 50, bone key
//!   i at 54 + 111·i, its interpolation block at +47.
//! * Block byte `16k + j − k` holds P[j] in row k (k = 0..=min(j, 3)), P[j]
//!   for channel c and value m (x1, y1, x2, y2) being j = c + 4m; row 0
//!   bytes 2–3 are the physics flag and never change.
//! * Camera key i at (sections before) + 61·i, interpolation at +32, item c
//!   at 4c in the order x1, x2, y1, y2.

use std::path::PathBuf;
use std::process::Command;

use vmd_studio::vmd::curve_edit::{
    self, BoneTrack, CurveEditError, FrameRange, apply_bone_curve, presets, set_bone_curves,
    set_camera_curves,
};
use vmd_studio::vmd::evaluate::bone_at;
use vmd_studio::vmd::{self, BoneChannel, CameraChannel, Curve, TrackIndex};

const PHYSICS_FILE: &str = "babylonmmd__physics_toggle_test_yyb10th.vmd";
const CAMERA_FILE: &str = "webmmd__GimmexGimme.vmd";

fn corpus_dir() -> PathBuf {
    std::env::var_os("VMD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")))
}

/// The bytes of a corpus file, or `None` (with a note) when the corpus is
/// missing outside CI.
fn corpus(name: &str) -> Option<Vec<u8>> {
    let path = corpus_dir().join(name);
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("corpus file {} missing on CI: {e}", path.display());
            }
            eprintln!(
                "note: corpus file {} missing, skipping: {e}",
                path.display()
            );
            None
        }
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Offset of bone key i in a v2 file (spec: 50 + 4 + 111·i).
fn bone_record(i: usize) -> usize {
    50 + 4 + 111 * i
}

/// Offsets inside a 64-byte block of every copy of channel c's value m
/// (0 = x1, 1 = y1, 2 = x2, 3 = y2), physics bytes 2–3 excluded.
fn copies(c: usize, m: usize) -> Vec<usize> {
    let j = c + 4 * m;
    (0..=j.min(3))
        .map(|k| 16 * k + j - k)
        .filter(|&i| i != 2 && i != 3)
        .collect()
}

fn values(c: Curve) -> [u8; 4] {
    [c.x1, c.y1, c.x2, c.y2]
}

/// The file offsets that must change when `curve` is written to `channels`
/// of bone key `i`: every copy whose original byte differs from the new value.
fn expected_bone_diff(orig: &[u8], i: usize, channels: &[usize], curve: Curve) -> Vec<usize> {
    let block = bone_record(i) + 47;
    let mut out = Vec::new();
    for &c in channels {
        for (m, v) in values(curve).into_iter().enumerate() {
            for off in copies(c, m) {
                if orig[block + off] != v {
                    out.push(block + off);
                }
            }
        }
    }
    out
}

fn diff(a: &[u8], b: &[u8]) -> Vec<usize> {
    assert_eq!(a.len(), b.len(), "length changed");
    (0..a.len()).filter(|&i| a[i] != b[i]).collect()
}

/// Number of bone keys whose bytes 2–3 are 63 0F, read straight from the file.
fn physics_off_count(b: &[u8]) -> usize {
    let n = u32_at(b, 50) as usize;
    (0..n)
        .filter(|&i| {
            let at = bone_record(i) + 47;
            b[at + 2..at + 4] == [0x63, 0x0F]
        })
        .count()
}

fn sorted(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v.dedup();
    v
}

// ---------------------------------------------------------------------------
// Bone byte diffs
// ---------------------------------------------------------------------------

#[test]
fn single_bone_key_edit_changes_exactly_its_copies() {
    let Some(orig) = corpus(PHYSICS_FILE) else {
        return;
    };
    let mut m = vmd::read(&orig).expect("corpus file reads");
    // Key 444: bone D4 at frame 60 with physics off (63 0F), found by
    // reading the file's records by hand (name "D4", frame u32 at +15 = 60).
    let i = 444;
    let rec = bone_record(i);
    assert_eq!(&orig[rec..rec + 3], b"D4\0");
    assert_eq!(u32_at(&orig, rec + 15), 60);
    assert_eq!(&orig[rec + 47 + 2..rec + 47 + 4], &[0x63, 0x0F]);

    let curve = Curve::new(1, 2, 3, 4);
    let r = apply_bone_curve(&mut m, &[i], &[BoneChannel::Rotation], curve).expect("edit");
    assert_eq!((r.matched.clone(), r.changed.clone()), (vec![i], vec![i]));
    let out = vmd::write(&m).expect("write");

    // Rotation is channel 3: P[3] → 18, 33, 48 (row 0 byte 3 is physics);
    // P[7] → 7, 22, 37, 52; P[11] → 11, 26, 41, 56; P[15] → 15, 30, 45, 60.
    let by_hand = [
        7usize, 11, 15, 18, 22, 26, 30, 33, 37, 41, 45, 48, 52, 56, 60,
    ];
    let expected: Vec<usize> = by_hand.iter().map(|o| rec + 47 + o).collect();
    assert_eq!(expected, sorted(expected_bone_diff(&orig, i, &[3], curve)));
    assert_eq!(diff(&orig, &out), expected);
    for (m_, v) in values(curve).into_iter().enumerate() {
        for off in copies(3, m_) {
            assert_eq!(out[rec + 47 + off], v, "copy at block byte {off}");
        }
    }
    assert_eq!(
        &out[rec + 47 + 2..rec + 47 + 4],
        &[0x63, 0x0F],
        "physics flag kept"
    );
    // CENSUS.txt: physics_off_flag(63 0F)=9.
    assert_eq!(physics_off_count(&out), 9);
}

#[test]
fn batch_bone_edit_over_a_range_changes_exactly_those_keys() {
    let Some(orig) = corpus(PHYSICS_FILE) else {
        return;
    };
    let mut m = vmd::read(&orig).expect("corpus file reads");
    // D4 has keys at frames 0, 20, 40, 60, 80, 100 = indices 409, 439, 440,
    // 444, 451, 452 (read by hand from the file); 20..=80 selects four.
    let want_keys = vec![439usize, 440, 444, 451];
    for &i in &want_keys {
        assert_eq!(&orig[bone_record(i)..bone_record(i) + 3], b"D4\0");
    }
    let curve = Curve::new(53, 0, 74, 127);
    let r = set_bone_curves(
        &mut m,
        BoneTrack::Text("D4"),
        FrameRange::new(Some(20), Some(80)),
        &BoneChannel::ALL,
        curve,
    )
    .expect("edit");
    assert_eq!(r.matched, want_keys);
    assert_eq!(r.changed, want_keys);
    assert_eq!(r.channels, 4);
    let out = vmd::write(&m).expect("write");

    let expected = sorted(
        want_keys
            .iter()
            .flat_map(|&i| expected_bone_diff(&orig, i, &[0, 1, 2, 3], curve))
            .collect(),
    );
    assert_eq!(diff(&orig, &out), expected);
    for &i in &want_keys {
        let block = bone_record(i) + 47;
        for c in 0..4 {
            for (mi, v) in values(curve).into_iter().enumerate() {
                for off in copies(c, mi) {
                    assert_eq!(out[block + off], v, "key {i} channel {c} byte {off}");
                }
            }
        }
        assert_eq!(out[block + 2..block + 4], orig[block + 2..block + 4]);
    }
    assert_eq!(physics_off_count(&out), 9);

    // Again: every key already has the curve → matched 4, changed 0, same bytes.
    let r2 = set_bone_curves(
        &mut m,
        BoneTrack::NameKey(b"D4"),
        FrameRange::new(Some(20), Some(80)),
        &BoneChannel::ALL,
        curve,
    )
    .expect("edit");
    assert_eq!(r2.matched, want_keys);
    assert!(r2.changed.is_empty());
    assert_eq!(vmd::write(&m).expect("write"), out);
}

#[test]
fn editing_every_bone_key_keeps_every_physics_flag_and_other_byte() {
    let Some(orig) = corpus(PHYSICS_FILE) else {
        return;
    };
    let mut m = vmd::read(&orig).expect("corpus file reads");
    let n = u32_at(&orig, 50) as usize;
    assert_eq!(n, 454); // CENSUS.txt: bone=454
    let all: Vec<usize> = (0..n).collect();
    let curve = Curve::new(127, 0, 0, 127);
    apply_bone_curve(&mut m, &all, &BoneChannel::ALL, curve).expect("edit");
    let out = vmd::write(&m).expect("write");
    let expected = sorted(
        all.iter()
            .flat_map(|&i| expected_bone_diff(&orig, i, &[0, 1, 2, 3], curve))
            .collect(),
    );
    assert_eq!(diff(&orig, &out), expected);
    // Nothing outside the interpolation blocks, the filler (31, 46, 47, 61–63)
    // and bytes 2–3 changed: check that no diff lands there.
    let filler = [2usize, 3, 31, 46, 47, 61, 62, 63];
    for &at in &expected {
        assert!(at >= 54 && at < 54 + 111 * n);
        let within = (at - 54) % 111;
        assert!(
            within >= 47,
            "offset {at} is outside an interpolation block"
        );
        assert!(
            !filler.contains(&(within - 47)),
            "offset {at} is filler or physics"
        );
    }
    assert_eq!(physics_off_count(&out), 9);
}

#[test]
fn unknown_bone_and_bad_arguments_change_nothing() {
    let Some(orig) = corpus(PHYSICS_FILE) else {
        return;
    };
    let mut m = vmd::read(&orig).expect("corpus file reads");
    let e = set_bone_curves(
        &mut m,
        BoneTrack::Text("センタ"),
        FrameRange::ALL,
        &[BoneChannel::X],
        Curve::LINEAR,
    )
    .expect_err("no such bone");
    match e {
        CurveEditError::NoSuchBone { close, .. } => {
            assert!(close.contains(&"センター".to_string()))
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(matches!(
        set_bone_curves(
            &mut m,
            BoneTrack::Text("D4"),
            FrameRange::new(Some(50), Some(10)),
            &[BoneChannel::X],
            Curve::LINEAR
        ),
        Err(CurveEditError::EmptyRange { from: 50, to: 10 })
    ));
    assert!(matches!(
        set_bone_curves(
            &mut m,
            BoneTrack::Text("D4"),
            FrameRange::ALL,
            &[],
            Curve::LINEAR
        ),
        Err(CurveEditError::NoChannel)
    ));
    // An index out of range refuses the whole edit, even the valid key 0.
    assert!(matches!(
        apply_bone_curve(&mut m, &[0, 454], &[BoneChannel::X], Curve::new(1, 1, 1, 1)),
        Err(CurveEditError::KeyOutOfRange {
            index: 454,
            len: 454
        })
    ));
    assert_eq!(vmd::write(&m).expect("write"), orig);
}

// ---------------------------------------------------------------------------
// Camera byte diffs
// ---------------------------------------------------------------------------

/// GimmexGimme has 0 bone and 0 morph keys (CENSUS.txt), so camera key i
/// sits at 50 + 4 (bone count) + 4 (morph count) + 4 (camera count) + 61·i.
fn camera_record(i: usize) -> usize {
    62 + 61 * i
}

#[test]
fn camera_range_edit_writes_x1_x2_y1_y2_of_the_item_only() {
    let Some(orig) = corpus(CAMERA_FILE) else {
        return;
    };
    assert_eq!((u32_at(&orig, 50), u32_at(&orig, 54)), (0, 0));
    let n = u32_at(&orig, 58) as usize;
    assert_eq!(n, 1693); // CENSUS.txt: cam=1693
    let mut m = vmd::read(&orig).expect("corpus file reads");
    let in_range: Vec<usize> = (0..n)
        .filter(|&i| u32_at(&orig, camera_record(i)) <= 300)
        .collect();
    assert!(!in_range.is_empty());

    let curve = Curve::new(1, 2, 3, 4);
    let r = set_camera_curves(
        &mut m,
        FrameRange::new(None, Some(300)),
        &[CameraChannel::Distance],
        curve,
    )
    .expect("edit");
    assert_eq!(sorted(r.matched.clone()), in_range);
    let out = vmd::write(&m).expect("write");
    // Distance is item 4: bytes 32 + 16 .. 32 + 20, stored x1 x2 y1 y2 = 1 3 2 4.
    let stored = [1u8, 3, 2, 4];
    let mut expected = Vec::new();
    for &i in &in_range {
        let at = camera_record(i) + 32 + 16;
        for (o, v) in stored.iter().enumerate() {
            if orig[at + o] != *v {
                expected.push(at + o);
            }
        }
        assert_eq!(&out[at..at + 4], &stored);
    }
    assert_eq!(diff(&orig, &out), expected);
    assert_eq!(
        sorted(r.changed.clone()),
        in_range,
        "no key had 1,3,2,4 before"
    );
}

#[test]
fn camera_all_channels_on_selected_keys() {
    let Some(orig) = corpus(CAMERA_FILE) else {
        return;
    };
    let mut m = vmd::read(&orig).expect("corpus file reads");
    let keys = [0usize, 5, 1692];
    let curve = Curve::new(10, 20, 30, 40);
    let r =
        curve_edit::apply_camera_curve(&mut m, &keys, &CameraChannel::ALL, curve).expect("edit");
    assert_eq!(r.matched, keys.to_vec());
    let out = vmd::write(&m).expect("write");
    let mut expected = Vec::new();
    for &i in &keys {
        let at = camera_record(i) + 32;
        for item in 0..6 {
            for (o, v) in [10u8, 30, 20, 40].iter().enumerate() {
                if orig[at + 4 * item + o] != *v {
                    expected.push(at + 4 * item + o);
                }
            }
        }
    }
    assert_eq!(diff(&orig, &out), sorted(expected));
}

// ---------------------------------------------------------------------------
// Presets
// ---------------------------------------------------------------------------

/// Ideal curve weight at x, by bisection on x(t) — this test's own solver.
fn weight(p: [f64; 4], x: f64) -> f64 {
    let b = |p1: f64, p2: f64, t: f64| {
        let u = 1.0 - t;
        3.0 * u * u * t * p1 + 3.0 * u * t * t * p2 + t * t * t
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if b(p[0], p[2], mid) < x {
            lo = mid
        } else {
            hi = mid
        }
    }
    b(p[1], p[3], 0.5 * (lo + hi))
}

/// Largest slope dy/dx of a curve, from y'(t)/x'(t) on a fine t grid.
fn max_slope(p: [f64; 4]) -> f64 {
    let d = |p1: f64, p2: f64, t: f64| {
        let u = 1.0 - t;
        3.0 * u * u * p1 + 6.0 * u * t * (p2 - p1) + 3.0 * t * t * (1.0 - p2)
    };
    (1..100_000)
        .map(|i| {
            let t = i as f64 / 100_000.0;
            d(p[1], p[3], t) / d(p[0], p[2], t).max(1e-12)
        })
        .fold(0.0, f64::max)
}

/// The quantisation bound. Rounding moves each control coordinate by at
/// most δ = 0.5/127. x(t) and y(t) weigh the control points by 3u²t and
/// 3ut² (u = 1 − t), whose sum 3ut ≤ 3/4, so the stored curve's x(t) and
/// y(t) are each within ε = 0.75·δ of the ideal ones at every t. At a given
/// x the stored weight is y'(t') with x'(t') = x; |y'(t') − y(t')| ≤ ε, and
/// x(t') is within ε of x, so y(t') = w_ideal(x(t')) is within S·ε of
/// w_ideal(x), S being the ideal curve's largest slope. Hence
/// |w_stored(x) − w_ideal(x)| ≤ (1 + S)·ε.
fn bound(p: [f64; 4]) -> f64 {
    (1.0 + max_slope(p)) * 0.75 * 0.5 / 127.0
}

#[test]
fn presets_live_on_the_integer_grid_and_stay_near_their_ideal() {
    let lib = presets();
    assert!(lib.len() >= 10);
    for name in [
        "linear",
        "ease-in",
        "ease-out",
        "ease-in-out",
        "ease-in-soft",
        "ease-in-strong",
        "ease-out-soft",
        "ease-out-strong",
        "ease-in-out-soft",
        "ease-in-out-strong",
        "slow-start",
    ] {
        assert!(curve_edit::preset(name).is_some(), "missing preset {name}");
    }
    assert!(curve_edit::preset("bounce").is_none());
    // Hand values: linear is MMD's default; CSS ease-in-out 0.42 → 53.34 → 53,
    // 0.58 → 73.66 → 74.
    assert_eq!(
        curve_edit::preset("linear").map(|p| p.curve),
        Some(Curve::LINEAR)
    );
    assert_eq!(
        curve_edit::preset("ease-in-out").map(|p| p.curve),
        Some(Curve::new(53, 0, 74, 127))
    );
    for p in lib {
        assert!(
            p.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
            "{}",
            p.name
        );
        for (v, s) in p.ideal.iter().zip(values(p.curve)) {
            assert!(
                (0.0..=1.0).contains(v),
                "{}: ideal {v} would overshoot",
                p.name
            );
            assert!(s <= 127);
            assert_eq!(
                f64::from(s),
                (v * 127.0).round(),
                "{}: not the nearest integer",
                p.name
            );
        }
        // Recompute the error with this file's own solver on both curves.
        let stored = values(p.curve).map(|v| f64::from(v) / 127.0);
        let err = (0..=1024)
            .map(|i| {
                let x = i as f64 / 1024.0;
                (weight(p.ideal, x) - weight(stored, x)).abs()
            })
            .fold(0.0, f64::max);
        assert!(
            (err - p.quantisation_error).abs() < 1e-5,
            "{}: reported {} vs {err}",
            p.name,
            p.quantisation_error
        );
        let b = bound(p.ideal);
        assert!(
            p.quantisation_error <= b,
            "{}: error {} above bound {b}",
            p.name,
            p.quantisation_error
        );
        eprintln!(
            "{:20} {:?} error {:.5} bound {:.5}",
            p.name,
            values(p.curve),
            p.quantisation_error,
            b
        );
    }
    // Presets defined on the grid have no error at all.
    for name in ["linear", "slow-start", "slow-end", "slow-both"] {
        let p = curve_edit::preset(name).expect("preset");
        assert!(
            p.quantisation_error < 1e-6,
            "{name}: {}",
            p.quantisation_error
        );
    }
}

// ---------------------------------------------------------------------------
// Evaluation after an edit
// ---------------------------------------------------------------------------

#[test]
fn evaluation_after_an_edit_follows_the_new_curve() {
    let Some(orig) = corpus(PHYSICS_FILE) else {
        return;
    };
    let mut m = vmd::read(&orig).expect("corpus file reads");
    // D4 frame 40 (key 440) → frame 60 (key 444): the segment uses key 444's
    // curve. Key 440's rotation is (0.6442, 0, 0, 0.7648) about X, key 444's
    // is identity (read from the file by hand).
    let qa = [0.644_217_25_f64, 0.0, 0.0, 0.764_841_8];
    let theta_a = 2.0 * qa[3].acos(); // ≈ 80.2°
    let check = |m: &vmd::Motion, frame: f64, w: f64| {
        let idx = TrackIndex::build(m);
        let track = idx.bone(b"D4").expect("track D4");
        let pose = bone_at(m, track, frame);
        // Slerp from qa to identity with weight w turns by θa·(1 − w) about X.
        let half = theta_a * (1.0 - w) / 2.0;
        let want = [half.sin(), 0.0, 0.0, half.cos()];
        for (g, h) in pose.rotation.iter().zip(want) {
            assert!(
                (f64::from(*g) - h).abs() < 1e-5,
                "frame {frame}: {:?} vs {want:?}",
                pose.rotation
            );
        }
    };
    // (0,127)-(127,127): x(t) = 3t² − 2t³ → x = ½ at t = ½; y(t) = 1 − (1 − t)³
    // → 0.875. Frame 50 is halfway.
    apply_bone_curve(
        &mut m,
        &[444],
        &[BoneChannel::Rotation],
        Curve::new(0, 127, 127, 127),
    )
    .expect("edit");
    check(&m, 50.0, 0.875);
    // (0,127)-(0,127): x(t) = t³ → x = ⅛ at t = ½; y = 0.875 again.
    // x = ⅛ is frame 40 + 20/8 = 42.5.
    apply_bone_curve(
        &mut m,
        &[444],
        &[BoneChannel::Rotation],
        Curve::new(0, 127, 0, 127),
    )
    .expect("edit");
    check(&m, 42.5, 0.875);
    // The physics flag is still off on that key.
    assert!(m.bones[444].physics_off());
}

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args(args)
        .output()
        .expect("run vmd-studio");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vmd-studio-curve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

#[test]
fn cli_sets_a_bone_curve_and_reports_counts() {
    let Some(orig) = corpus(PHYSICS_FILE) else {
        return;
    };
    let input = corpus_dir().join(PHYSICS_FILE);
    let out_path = tmp("bone.vmd");
    let (code, stdout, stderr) = cli(&[
        "set-curve",
        input.to_str().expect("utf-8 path"),
        "-o",
        out_path.to_str().expect("utf-8 path"),
        "--bone",
        "D4",
        "--from",
        "20",
        "--to",
        "80",
        "--channel",
        "rotation",
        "--curve",
        "1,2,3,4",
    ]);
    assert_eq!(code, 0, "stderr: {stderr}");
    assert!(
        stdout.contains("changed 4 of 4 keys (1 channel) on bone D4, frames 20..=80"),
        "{stdout}"
    );
    let out = std::fs::read(&out_path).expect("output written");
    let expected = sorted(
        [439usize, 440, 444, 451]
            .iter()
            .flat_map(|&i| expected_bone_diff(&orig, i, &[3], Curve::new(1, 2, 3, 4)))
            .collect(),
    );
    assert_eq!(diff(&orig, &out), expected);
    assert_eq!(physics_off_count(&out), 9);
}

#[test]
fn cli_sets_camera_distance_with_a_preset() {
    let Some(orig) = corpus(CAMERA_FILE) else {
        return;
    };
    let input = corpus_dir().join(CAMERA_FILE);
    let out_path = tmp("camera.vmd");
    let (code, stdout, stderr) = cli(&[
        "set-curve",
        input.to_str().expect("utf-8 path"),
        "-o",
        out_path.to_str().expect("utf-8 path"),
        "--camera",
        "--from",
        "0",
        "--to",
        "300",
        "--channel",
        "distance",
        "--preset",
        "ease-in-out",
    ]);
    assert_eq!(code, 0, "stderr: {stderr}");
    // ease-in-out stores 53,0,74,127 → bytes x1 x2 y1 y2 = 53 74 0 127.
    let want = [53u8, 74, 0, 127];
    let n = u32_at(&orig, 58) as usize;
    let in_range: Vec<usize> = (0..n)
        .filter(|&i| u32_at(&orig, camera_record(i)) <= 300)
        .collect();
    let changed = in_range
        .iter()
        .filter(|&&i| orig[camera_record(i) + 48..camera_record(i) + 52] != want)
        .count();
    let line = format!(
        "changed {changed} of {} keys (1 channel) on camera, frames 0..=300",
        in_range.len()
    );
    assert!(stdout.contains(&line), "{stdout} (wanted {line})");
    let out = std::fs::read(&out_path).expect("output written");
    for &i in &in_range {
        assert_eq!(out[camera_record(i) + 48..camera_record(i) + 52], want);
    }
    let d = diff(&orig, &out);
    assert!(d.iter().all(|&at| {
        let i = (at - 62) / 61;
        in_range.contains(&i) && (48..52).contains(&((at - 62) % 61))
    }));
}

#[test]
fn cli_failures_exit_1_with_a_clear_message_and_write_nothing() {
    if corpus(PHYSICS_FILE).is_none() || corpus(CAMERA_FILE).is_none() {
        return;
    }
    let bone_in = corpus_dir().join(PHYSICS_FILE);
    let cam_in = corpus_dir().join(CAMERA_FILE);
    let bone_in = bone_in.to_str().expect("utf-8 path");
    let cam_in = cam_in.to_str().expect("utf-8 path");
    let out_path = tmp("fail.vmd");
    let out = out_path.to_str().expect("utf-8 path");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                bone_in,
                "--bone",
                "センタ",
                "--channel",
                "all",
                "--curve",
                "1,2,3,4",
            ],
            "no bone track named \"センタ\"; did you mean: センター",
        ),
        (
            vec![
                bone_in,
                "--bone",
                "D4",
                "--channel",
                "w",
                "--curve",
                "1,2,3,4",
            ],
            "unknown bone channel \"w\"",
        ),
        (
            vec![
                bone_in,
                "--bone",
                "D4",
                "--channel",
                "fov",
                "--curve",
                "1,2,3,4",
            ],
            "unknown bone channel \"fov\"",
        ),
        (
            vec![cam_in, "--camera", "--channel", "x1", "--curve", "1,2,3,4"],
            "unknown camera channel \"x1\"",
        ),
        (
            vec![
                bone_in,
                "--bone",
                "D4",
                "--channel",
                "x",
                "--curve",
                "1,2,300,4",
            ],
            "x2 = 300 is above 127",
        ),
        (
            vec![
                bone_in,
                "--bone",
                "D4",
                "--channel",
                "x",
                "--curve=-1,2,3,4",
            ],
            "x1 = -1 is negative",
        ),
        (
            vec![
                bone_in,
                "--bone",
                "D4",
                "--channel",
                "x",
                "--curve",
                "1,2,3",
            ],
            "needs 4 values",
        ),
        (
            vec![
                bone_in,
                "--bone",
                "D4",
                "--channel",
                "x",
                "--curve",
                "1,2,b,4",
            ],
            "x2 = \"b\" is not a whole number",
        ),
        (
            vec![
                bone_in,
                "--bone",
                "D4",
                "--channel",
                "x",
                "--preset",
                "bounce",
            ],
            "invalid value 'bounce' for '--preset",
        ),
        (
            vec![
                bone_in,
                "--camera",
                "--channel",
                "fov",
                "--curve",
                "1,2,3,4",
            ],
            "has no camera keys",
        ),
        (
            vec![
                bone_in,
                "--bone",
                "D4",
                "--from",
                "50",
                "--to",
                "10",
                "--channel",
                "x",
                "--curve",
                "1,2,3,4",
            ],
            "--from 50 is after --to 10",
        ),
    ];
    for (args, message) in cases {
        let mut full = vec!["set-curve"];
        full.extend_from_slice(&args);
        full.extend_from_slice(&["-o", out]);
        let (code, _stdout, stderr) = cli(&full);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(
            stderr.contains(message),
            "{args:?}: {stderr:?} lacks {message:?}"
        );
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr:?}");
        assert!(!out_path.exists(), "{args:?} wrote a file");
    }
}
