//! Toolbox operations (issue 6): mirror, trim, join, speed, fill-rest,
//! rename, JSON export/import — hand-computed expectations and corpus round
//! trips. Where each golden number comes from is said next to it; none is
//! copied from this program's output. Numbers measured on the corpus are
//! printed (run with `--nocapture`) and bounded by hand-derived limits.

mod common;
use common::corpus;
use std::collections::HashMap;
use std::path::PathBuf;

use glam::Vec3;
use vmd_studio::vmd::camera::{eye_position, forward_vector, up_vector};
use vmd_studio::vmd::evaluate::{bone_at, camera_at, morph_at};
use vmd_studio::vmd::interpolation::{BoneChannel, DEFAULT_BONE_BLOCK};
use vmd_studio::vmd::ops::{self, JoinParams, JoinPlacement, SpeedParams, TrimParams};
use vmd_studio::vmd::{
    self, BoneKey, CameraKey, Curve, IkKey, MorphKey, Motion, NameEncoding, TrackIndex,
};

const SJIS: NameEncoding = NameEncoding::ShiftJis;

/// Every readable corpus VMD: (file name, bytes, motion).
fn corpus_vmds() -> Vec<(String, Vec<u8>, Motion)> {
    let Some(dir) = corpus() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.extension().is_none_or(|e| e != "vmd") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        // mmdbase__result.vmd is broken on purpose (CENSUS: ERR); skip unreadable files.
        if let Ok(m) = vmd::read(&bytes) {
            out.push((
                p.file_name().unwrap().to_string_lossy().into_owned(),
                bytes,
                m,
            ));
        }
    }
    out
}

fn corpus_file(name: &str) -> Option<Motion> {
    let dir = corpus()?;
    let bytes = std::fs::read(dir.join(name)).unwrap();
    Some(vmd::read(&bytes).unwrap())
}

fn bone(name: &str, frame: u32, pos: [f32; 3], rot: [f32; 4]) -> BoneKey {
    BoneKey::new(name, SJIS, frame, pos, rot).unwrap()
}

fn close3(a: [f32; 3], b: [f32; 3], tol: f32) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// A tiny deterministic generator (xorshift) for "random" angles.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

fn mirror_x(v: [f32; 3]) -> [f32; 3] {
    [-v[0], v[1], v[2]]
}

// ---------------------------------------------------------------- mirror

#[test]
fn mirrored_arm_pose_hand_computed() {
    // 左腕 at (1, 2, 3), rotation (0.1, 0.2, 0.3, w) with w = √(1 − 0.01 − 0.04 − 0.09) = √0.86.
    let w = 0.86f32.sqrt();
    let mut m = Motion::new_v2();
    let mut k = bone("左腕", 5, [1.0, 2.0, 3.0], [0.1, 0.2, 0.3, w]);
    k.set_curve(BoneChannel::Rotation, Curve::new(10, 100, 60, 127));
    m.bones.push(k);
    m.bones
        .push(bone("センター", 0, [0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]));
    let (out, report) = ops::mirror(&m).unwrap();
    let r = &out.bones[0];
    assert_eq!(r.name().text, "右腕");
    // Position (−x, y, z); rotation (x, −y, −z, w): exact sign flips.
    assert_eq!(r.position(), [-1.0, 2.0, 3.0]);
    assert_eq!(r.rotation(), [0.1, -0.2, -0.3, w]);
    assert_eq!(r.frame(), 5);
    // Interpolation bytes untouched (offset 47..111).
    assert_eq!(r.raw[47..], k.raw[47..]);
    assert_eq!(out.bones[1].name().text, "センター");
    assert_eq!(out.bones[1].position(), [-0.5, 0.0, 0.0]);
    assert!(
        report
            .lines
            .iter()
            .any(|l| l.contains("左腕") && l.contains("右腕")),
        "{report}"
    );
    assert_eq!(report.refused, 0);
}

#[test]
fn mirror_swaps_morph_and_ik_names_and_light() {
    let mut m = Motion::new_v2();
    m.morphs
        .push(MorphKey::new("ウィンク右", SJIS, 0, 1.0).unwrap());
    let mut ik = IkKey::new(0, true);
    ik.push_entry("左足ＩＫ", SJIS, true).unwrap();
    ik.push_entry("右足ＩＫ", SJIS, false).unwrap();
    m.iks.push(ik);
    m.lights
        .push(vmd::LightKey::new(0, [0.6, 0.6, 0.6], [-0.5, -1.0, 0.5]));
    let (out, _) = ops::mirror(&m).unwrap();
    assert_eq!(out.morphs[0].name().text, "ウィンク左");
    assert_eq!(out.iks[0].entry_name(0).text, "右足ＩＫ");
    assert!(out.iks[0].entry_enabled(0));
    assert_eq!(out.iks[0].entry_name(1).text, "左足ＩＫ");
    assert!(!out.iks[0].entry_enabled(1));
    assert_eq!(out.lights[0].direction(), [0.5, -1.0, 0.5]);
}

#[test]
fn mirror_refuses_a_name_that_would_not_read_back() {
    // 左 (8D B6) followed by ED 40, an NEC-selected IBM extension: it decodes
    // to U+7E8A, which CP932 encoders write as FA 5C. Swapping would rewrite
    // bytes other than 左, so the name is refused (values still mirrored).
    let mut field = [0u8; 15];
    field[..4].copy_from_slice(&[0x8d, 0xb6, 0xed, 0x40]);
    let mut k = bone("x", 0, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]);
    k.set_name_field(&field);
    let mut m = Motion::new_v2();
    m.bones.push(k);
    let (out, report) = ops::mirror(&m).unwrap();
    assert_eq!(out.bones[0].name_field(), &field[..], "name kept");
    assert_eq!(out.bones[0].position(), [-1.0, 0.0, 0.0]);
    assert_eq!(report.refused, 1, "{report}");
    // And mirroring twice still gives the original.
    let (back, _) = ops::mirror(&out).unwrap();
    assert_eq!(back, m);
}

#[test]
fn mirror_twice_gives_the_original_bytes_on_every_corpus_file() {
    let files = corpus_vmds();
    for (name, bytes, m) in &files {
        let (once, _) = ops::mirror(m).unwrap();
        let (twice, _) = ops::mirror(&once).unwrap();
        assert_eq!(&vmd::write(&twice).unwrap(), bytes, "{name}");
        if !m.bones.is_empty() || !m.cameras.is_empty() {
            assert_ne!(
                &vmd::write(&once).unwrap(),
                bytes,
                "{name}: mirror changed nothing"
            );
        }
    }
    eprintln!(
        "mirror twice = original bytes on {} corpus files",
        files.len()
    );
}

#[test]
fn camera_mirror_formula_holds_at_random_angles() {
    // Mirror M = diag(−1, 1, 1). Claim: the key (target (−x, y, z), rotation
    // (rx, −ry, −rz), same distance) has eye = M·eye, forward = M·forward,
    // up = M·up. Checked at 2000 pseudo-random keys over ±2π.
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut max_err = 0.0f32;
    for _ in 0..2000 {
        let t = [
            rng.range(-50.0, 50.0),
            rng.range(-50.0, 50.0),
            rng.range(-50.0, 50.0),
        ];
        let r = [
            rng.range(-6.3, 6.3),
            rng.range(-6.3, 6.3),
            rng.range(-6.3, 6.3),
        ];
        let d = rng.range(-100.0, 10.0);
        let tm = mirror_x(t);
        let rm = [r[0], -r[1], -r[2]];
        let pairs = [
            (eye_position(tm, rm, d), mirror_x(eye_position(t, r, d))),
            (forward_vector(rm), mirror_x(forward_vector(r))),
            (up_vector(rm), mirror_x(up_vector(r))),
        ];
        for (a, b) in pairs {
            let e = (Vec3::from(a) - Vec3::from(b)).length();
            max_err = max_err.max(e);
        }
    }
    eprintln!("camera mirror formula: max error {max_err:e} over 2000 random keys");
    // f32 rounding on |eye| ≤ ~190: well under 1e-3.
    assert!(max_err < 1e-3, "{max_err}");
}

#[test]
fn mirrored_camera_eye_is_the_mirror_image_on_gimmexgimme() {
    let Some(m) = corpus_file("webmmd__GimmexGimme.vmd") else {
        return;
    };
    let (out, _) = ops::mirror(&m).unwrap();
    let (ia, ib) = (TrackIndex::build(&m), TrackIndex::build(&out));
    let mut max_err = 0.0f32;
    let mut n = 0;
    // Every 3rd frame and half frames up to the last key (6579, CENSUS).
    let mut f = 0.0;
    while f <= 6579.0 {
        let a = camera_at(&m, &ia, f).unwrap();
        let b = camera_at(&out, &ib, f).unwrap();
        let checks = [
            (b.eye, mirror_x(a.eye)),
            (b.target, mirror_x(a.target)),
            (
                forward_vector(b.rotation),
                mirror_x(forward_vector(a.rotation)),
            ),
            (up_vector(b.rotation), mirror_x(up_vector(a.rotation))),
        ];
        for (x, y) in checks {
            max_err = max_err.max((Vec3::from(x) - Vec3::from(y)).length());
        }
        n += 1;
        f += 1.5;
    }
    eprintln!(
        "GimmexGimme mirrored camera: {n} frames, max eye/target/direction error {max_err:e}"
    );
    assert!(max_err < 1e-3, "{max_err}");
}

// ---------------------------------------------------------------- trim

/// Bone X: key at 0 (x = 0) and at 10 (x = 10) whose X curve is
/// (127, 0)-(0, 127), point-symmetric about (0.5, 0.5).
fn symmetric_curve_motion() -> Motion {
    let mut m = Motion::new_v2();
    m.bones
        .push(bone("センター", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    let mut k = bone("センター", 10, [10.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]);
    k.set_curve(BoneChannel::X, Curve::new(127, 0, 0, 127));
    m.bones.push(k);
    m
}

#[test]
fn trim_first_half_splits_the_curve_hand_computed() {
    let m = symmetric_curve_motion();
    let (out, report) = ops::trim(
        &m,
        TrimParams {
            from: 0,
            to: 5,
            rebase: false,
        },
    )
    .unwrap();
    // x(t) = 3t(1−t)² + t³ → x(0.5) = 0.5, y(0.5) = 3·0.25·0.5 + 0.125 = 0.5:
    // value at frame 5 = 10 · 0.5 = 5.
    let frames: Vec<u32> = out.bones.iter().map(|k| k.frame()).collect();
    assert_eq!(frames, vec![0, 5], "{report}");
    let b = &out.bones[1];
    assert!((b.position()[0] - 5.0).abs() < 1e-4, "{:?}", b.position());
    // De Casteljau on [0, 0.5]: Q1 = (0.5, 0), Q2 = (0.5, 0.25), Q3 = (0.5, 0.5);
    // normalized (÷0.5): (1, 0), (1, 0.5) → bytes (127, 0), (127, 63.5):
    // y2 is a rounding tie, so 63 or 64 (whichever follows the exact piece better).
    let c = b.curve(BoneChannel::X);
    assert_eq!((c.x1, c.y1, c.x2), (127, 0, 127));
    assert!(matches!(c.y2, 63 | 64), "{c:?}");
    // The piece plays like the original's first half: weight at s equals
    // 2 · w_orig(s / 2) (value 10·w_orig over 0..10 = 5 · w_piece over 0..5).
    let orig = Curve::new(127, 0, 0, 127);
    for i in 0..=20 {
        let s = f64::from(i) / 20.0;
        let e = (c.weight(s) - 2.0 * orig.weight(s / 2.0)).abs() * 127.0;
        assert!(e < 1.0, "s = {s}: {e} units");
    }
    assert_eq!(report.dropped, 1);
    assert_eq!(report.added, 1);
}

#[test]
fn trim_second_half_keeps_the_end_key_with_the_second_piece() {
    let m = symmetric_curve_motion();
    let (out, report) = ops::trim(
        &m,
        TrimParams {
            from: 5,
            to: 10,
            rebase: true,
        },
    )
    .unwrap();
    // Key at 5 added (default block, nothing arrives at it), rebased to 0; the
    // key at 10 (→ 5) keeps the piece [0.5, 1]: Q0 = (0.5, 0.5),
    // Q1 = B(.5,.5,1) = (0.5, 0.75), Q2 = B(.5,1,1) = (0.5, 1), Q3 = (1, 1);
    // normalized: (0, 0.5), (0, 1) → bytes (0, 63.5 → 63 or 64), (0, 127).
    let mut keys: Vec<&BoneKey> = out.bones.iter().collect();
    keys.sort_by_key(|k| k.frame());
    assert_eq!(
        keys.iter().map(|k| k.frame()).collect::<Vec<_>>(),
        vec![0, 5],
        "{report}"
    );
    assert_eq!(keys[0].interpolation_block(), DEFAULT_BONE_BLOCK);
    assert!((keys[0].position()[0] - 5.0).abs() < 1e-4);
    let c = keys[1].curve(BoneChannel::X);
    assert_eq!((c.x1, c.x2, c.y2), (0, 0, 127));
    assert!(matches!(c.y1, 63 | 64), "{c:?}");
    // Only the X curve changed; the other three stay linear bytes.
    assert_eq!(keys[1].curve(BoneChannel::Y), Curve::LINEAR);
    assert_eq!(keys[1].position(), [10.0, 0.0, 0.0]);
}

#[test]
fn trim_rejects_a_backwards_range() {
    let m = symmetric_curve_motion();
    assert!(
        ops::trim(
            &m,
            TrimParams {
                from: 9,
                to: 3,
                rebase: false
            }
        )
        .is_err()
    );
}

/// Angle between two rotations in radians (f64; stored quaternions are not
/// exactly unit length, so both are normalized first).
fn quat_angle(a: [f32; 4], b: [f32; 4]) -> f32 {
    let n = |q: [f32; 4]| {
        let q = q.map(f64::from);
        let l = q.iter().map(|v| v * v).sum::<f64>().sqrt();
        q.map(|v| v / l)
    };
    let (a, b) = (n(a), n(b));
    let d: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| x * y)
        .sum::<f64>()
        .abs()
        .min(1.0);
    (2.0 * d.acos()) as f32
}

#[test]
fn trimmed_dance_plays_the_same_inside_the_range() {
    // nuekaze: linear curves; GimmeGimme_with_emotion: curved keys and bone
    // names cut mid-character (corpus README).
    for file in ["nuekaze__motion.vmd", "webmmd__GimmeGimme_with_emotion.vmd"] {
        trim_plays_the_same(file, 1003, 2011);
    }
}

fn trim_plays_the_same(name: &str, a: u32, b: u32) {
    let Some(m) = corpus_file(name) else {
        return;
    };
    let (out, report) = ops::trim(
        &m,
        TrimParams {
            from: a,
            to: b,
            rebase: false,
        },
    )
    .unwrap();
    let (io, it) = (TrackIndex::build(&m), TrackIndex::build(&out));
    // Per channel, the error is (weight error) × (segment's value change);
    // the weight error of a rounded piece is at most ~1 unit of 127 (the
    // report flags any piece above 1). Bound: 2/127 of the track's value
    // range (max − min over its keys) + float noise.
    let mut max_pos_ratio = 0.0f32;
    let mut max_rot = 0.0f32;
    for t in &io.bones {
        let Some(t2) = it.bone(&t.name_key) else {
            panic!("track lost")
        };
        let mut range = 0.0f32;
        for axis in 0..3 {
            let vals = t.keys.iter().map(|&i| m.bones[i as usize].position()[axis]);
            let (lo, hi) = vals.fold((f32::MAX, f32::MIN), |(l, h), v| (l.min(v), h.max(v)));
            range = range.max(hi - lo);
        }
        let mut f = f64::from(a);
        while f <= f64::from(b) {
            let (p, q) = (bone_at(&m, t, f), bone_at(&out, t2, f));
            for axis in 0..3 {
                let e = (p.position[axis] - q.position[axis]).abs();
                assert!(
                    e <= 2.0 / 127.0 * range + 1e-3,
                    "{} at {f}: {e} (range {range})",
                    t.name().text
                );
                if range > 0.0 {
                    max_pos_ratio = max_pos_ratio.max(e / range);
                }
            }
            let e = quat_angle(p.rotation, q.rotation);
            // Rotation: 2/127 of a segment's angle (≤ π) + noise.
            assert!(
                e <= 2.0 / 127.0 * std::f32::consts::PI + 1e-3,
                "{} at {f}: {e} rad",
                t.name().text
            );
            max_rot = max_rot.max(e);
            f += 0.5;
        }
    }
    for t in &io.morphs {
        let t2 = it.morph(&t.name_key).unwrap();
        for f in a..=b {
            let e = (morph_at(&m, t, f64::from(f)) - morph_at(&out, t2, f64::from(f))).abs();
            assert!(e < 1e-5, "morph {} at {f}: {e}", t.name().text);
        }
    }
    // Outside the range nothing is left.
    assert!(out.bones.iter().all(|k| (a..=b).contains(&k.frame())));
    eprintln!(
        "trim {a}..{b} of {name}: {} added, {} dropped, {} lossy-curve warnings; max position error {:.4} of the track range, max rotation error {max_rot:.5} rad",
        report.added, report.dropped, report.warnings, max_pos_ratio
    );
}

#[test]
fn trimmed_camera_keeps_cuts_inside_the_range() {
    let Some(m) = corpus_file("webmmd__GimmexGimme.vmd") else {
        return;
    };
    let (a, b) = (1000u32, 3000u32);
    let (out, report) = ops::trim(
        &m,
        TrimParams {
            from: a,
            to: b,
            rebase: true,
        },
    )
    .unwrap();
    let cuts_in = |mm: &Motion, lo: u32, hi: u32| -> Vec<u32> {
        vmd::summary::cut_frames(mm, &TrackIndex::build(mm))
            .into_iter()
            .filter(|&f| f >= lo && f < hi)
            .collect()
    };
    let before = cuts_in(&m, a, b);
    let after: Vec<u32> = cuts_in(&out, 0, b - a).into_iter().map(|f| f + a).collect();
    let new_cut_warnings = report
        .lines
        .iter()
        .filter(|l| l.contains("plays as a cut"))
        .count();
    assert_eq!(
        after.len(),
        before.len() + new_cut_warnings,
        "{before:?} vs {after:?}"
    );
    for c in &before {
        assert!(after.contains(c), "cut at {c} lost");
    }
    // Values inside the range: same eye (rebased).
    let (io, it) = (TrackIndex::build(&m), TrackIndex::build(&out));
    let mut max_e = 0.0f32;
    for f in a..=b {
        let x = camera_at(&m, &io, f64::from(f)).unwrap();
        let y = camera_at(&out, &it, f64::from(f - a)).unwrap();
        max_e = max_e.max((Vec3::from(x.eye) - Vec3::from(y.eye)).length());
    }
    eprintln!(
        "trim camera {a}..{b}: {} cuts kept, max eye error {max_e:.4}",
        before.len()
    );
    assert!(max_e < 1.0, "{max_e}");
}

// ---------------------------------------------------------------- join

#[test]
fn join_offsets_hand_computed() {
    let mut first = Motion::new_v2();
    first.set_model_name("First").unwrap();
    first
        .bones
        .push(bone("頭", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    first
        .bones
        .push(bone("頭", 10, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]));
    let mut second = Motion::new_v2();
    second.set_model_name("Second").unwrap();
    second
        .bones
        .push(bone("頭", 0, [2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]));
    second
        .bones
        .push(bone("頭", 5, [3.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]));
    second
        .morphs
        .push(MorphKey::new("あ", SJIS, 3, 1.0).unwrap());

    // Default gap 1: second's frame 0 at 10 + 1 = 11 → keys 11, 16; morph 3 → 14.
    let (out, report) = ops::join(&first, &second, JoinParams::default()).unwrap();
    assert_eq!(
        out.bones.iter().map(|k| k.frame()).collect::<Vec<_>>(),
        vec![0, 10, 11, 16]
    );
    assert_eq!(out.morphs[0].frame(), 14);
    assert_eq!(out.model_name().text, "First");
    assert_eq!(report.dropped, 0);

    // --gap 5: frame 0 at 15.
    let (out, _) = ops::join(
        &first,
        &second,
        JoinParams {
            placement: JoinPlacement::Gap(5),
        },
    )
    .unwrap();
    assert_eq!(
        out.bones.iter().map(|k| k.frame()).collect::<Vec<_>>(),
        vec![0, 10, 15, 20]
    );

    // --at 10: second's key 0 → 10 meets first's key 10: the second wins, one drop.
    let (out, report) = ops::join(
        &first,
        &second,
        JoinParams {
            placement: JoinPlacement::At(10),
        },
    )
    .unwrap();
    let keys: Vec<(u32, f32)> = out
        .bones
        .iter()
        .map(|k| (k.frame(), k.position()[0]))
        .collect();
    assert_eq!(keys, vec![(0, 0.0), (10, 2.0), (15, 3.0)]);
    assert_eq!(report.dropped, 1);
    assert!(
        report
            .lines
            .iter()
            .any(|l| l.contains("頭") && l.contains("frame 10")),
        "{report}"
    );
}

// ---------------------------------------------------------------- speed

#[test]
fn speed_collision_report_hand_computed() {
    // Keys at 0, 1, 2, 3, factor 2: exact new times 0, 0.5, 1, 1.5; rounding
    // half away from zero gives 0, 1, 1, 2. Frames 1 and 2 collide at 1; the
    // key whose exact time is closest to 1 (frame 2, exactly 1.0) is kept and
    // frame 1 (0.5) is dropped. Result: 0 (from 0), 1 (from 2), 2 (from 3).
    let mut m = Motion::new_v2();
    for f in 0..4 {
        m.bones
            .push(bone("右足", f, [f as f32, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]));
    }
    let (out, report) = ops::speed(&m, SpeedParams { factor: 2.0 }).unwrap();
    let keys: Vec<(u32, f32)> = out
        .bones
        .iter()
        .map(|k| (k.frame(), k.position()[0]))
        .collect();
    assert_eq!(keys, vec![(0, 0.0), (1, 2.0), (2, 3.0)]);
    assert_eq!(report.dropped, 1);
    let line = report.lines.iter().find(|l| l.contains("merged")).unwrap();
    assert!(
        line.contains("右足") && line.contains("frame 1") && line.contains("frame 2"),
        "{line}"
    );
}

#[test]
fn speed_rejects_bad_factors() {
    let m = Motion::new_v2();
    for k in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(ops::speed(&m, SpeedParams { factor: k }).is_err(), "{k}");
    }
}

#[test]
fn speed_camera_keeps_cuts_and_makes_none_hand_computed() {
    // Camera keys 0, 10, 11 (a cut), 13: factor 2 → 0, 5, cut kept at 6,
    // 13/2 = 6.5 → 7 would be one frame after 6 (a new cut): pushed to 8.
    let mut m = Motion::new_v2();
    for f in [0, 10, 11, 13] {
        m.cameras.push(CameraKey::new(
            f,
            -45.0,
            [0.0, 10.0, 0.0],
            [0.0; 3],
            30,
            true,
        ));
    }
    let (out, report) = ops::speed(&m, SpeedParams { factor: 2.0 }).unwrap();
    assert_eq!(
        out.cameras.iter().map(|k| k.frame()).collect::<Vec<_>>(),
        vec![0, 5, 6, 8]
    );
    assert_eq!(report.warnings, 1, "{report}");
    // Slowing down by 0.5: 0, 20, cut → 21, 26.
    let (out, _) = ops::speed(&m, SpeedParams { factor: 0.5 }).unwrap();
    assert_eq!(
        out.cameras.iter().map(|k| k.frame()).collect::<Vec<_>>(),
        vec![0, 20, 21, 26]
    );
}

fn cut_count(m: &Motion) -> usize {
    vmd::summary::cut_frames(m, &TrackIndex::build(m)).len()
}

#[test]
fn speed_keeps_every_cut_on_gimmexgimme() {
    let Some(m) = corpus_file("webmmd__GimmexGimme.vmd") else {
        return;
    };
    // CENSUS.txt: 1693 camera keys, 163 cuts.
    assert_eq!(cut_count(&m), 163);
    let (slow, report) = ops::speed(&m, SpeedParams { factor: 0.5 }).unwrap();
    assert_eq!(cut_count(&slow), 163, "{report}");
    assert_eq!(report.dropped, 0);
    // Speeding up: no new cut may appear. Map each output key back to its
    // source by the bytes after the frame field, then check every output cut
    // came from a source cut.
    let (fast, report) = ops::speed(&m, SpeedParams { factor: 2.0 }).unwrap();
    let mut src: HashMap<&[u8], Vec<u32>> = HashMap::new();
    for k in &m.cameras {
        src.entry(&k.raw[4..]).or_default().push(k.frame());
    }
    let idx = TrackIndex::build(&fast);
    let mut new_cuts = 0;
    let mut checked = 0;
    for w in idx.camera.windows(2) {
        let (x, y) = (&fast.cameras[w[0] as usize], &fast.cameras[w[1] as usize]);
        if y.frame() - x.frame() != 1 {
            continue;
        }
        let (Some(fx), Some(fy)) = (src.get(&x.raw[4..]), src.get(&y.raw[4..])) else {
            continue;
        };
        if fx.len() == 1 && fy.len() == 1 {
            checked += 1;
            if fy[0] - fx[0] != 1 {
                new_cuts += 1;
            }
        }
    }
    eprintln!(
        "GimmexGimme ×2: {} cuts after (163 before), {} keys merged, {} pushed apart; {checked} cuts traced to their source",
        cut_count(&fast),
        report.dropped,
        report.warnings
    );
    assert_eq!(new_cuts, 0);
    assert_eq!(fast.cameras.len() + report.dropped, m.cameras.len());
    // Every cut that did not survive is named in the report.
    let lost = report
        .lines
        .iter()
        .filter(|l| l.contains("is lost"))
        .count();
    assert_eq!(cut_count(&fast) + lost, 163, "{report}");
}

// ---------------------------------------------------------------- fill-rest

#[test]
fn fill_rest_adds_identity_keys_and_says_what_it_changes() {
    let mut m = Motion::new_v2();
    m.bones
        .push(bone("上半身", 30, [0.0; 3], [0.0, 0.3, 0.0, 0.953_939_2]));
    m.bones
        .push(bone("下半身", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    let (out, report) = ops::fill_rest(&m).unwrap();
    assert_eq!(out.bones.len(), 3);
    let k = &out.bones[2];
    assert_eq!((k.name().text.as_str(), k.frame()), ("上半身", 0));
    assert_eq!(k.position(), [0.0; 3]);
    assert_eq!(k.rotation(), [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(k.interpolation_block(), DEFAULT_BONE_BLOCK);
    assert_eq!(report.added, 1);
    assert!(
        report
            .lines
            .iter()
            .any(|l| l.contains("上半身") && l.contains("0..30")),
        "{report}"
    );
    // Extra bones (union with another motion) get a rest key too.
    let p = ops::FillRestParams {
        extra_bones: vec!["右腕".into(), "下半身".into()],
    };
    let (out, report) = ops::fill_rest_with(&m, &p).unwrap();
    assert_eq!(report.added, 2);
    assert!(
        out.bones
            .iter()
            .any(|k| k.name().text == "右腕" && k.frame() == 0)
    );
}

// ---------------------------------------------------------------- rename

#[test]
fn rename_refusals_unmapped_and_collisions() {
    let mut m = Motion::new_v2();
    m.bones
        .push(bone("左腕", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    m.bones
        .push(bone("右腕", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    m.bones.push(bone("頭", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    m.bones.push(bone("首", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    m.morphs.push(MorphKey::new("あ", SJIS, 0, 1.0).unwrap());
    let mut ik = IkKey::new(0, true);
    ik.push_entry("左足ＩＫ", SJIS, true).unwrap();
    m.iks.push(ik);
    let map = ops::parse_rename_map(
        "# swap arms, rename head, too-long names, a collision\n\
         左腕\t右腕\n\
         右腕\t左腕\n\
         頭\t左人差指先端ＩＫ\n\
         首\tセンター\n\
         あ\tセンター\n\
         左足ＩＫ\t左人差指先端ＩＫ\n\
         存在しない\t何か\n",
    )
    .unwrap();
    let (out, report) = ops::rename(&m, &map).unwrap();
    let names: Vec<String> = out.bones.iter().map(|k| k.name().text).collect();
    // Swap works (final names unique); 頭 refused: 左人差指先端ＩＫ is
    // 8 full-width characters × 2 bytes = 16 bytes in Shift_JIS > 15.
    assert_eq!(names, vec!["右腕", "左腕", "頭", "センター"]);
    assert!(
        report
            .lines
            .iter()
            .any(|l| l.contains("頭") && l.contains("16 bytes")),
        "{report}"
    );
    // The same 16-byte name fits an IK entry's 20-byte field.
    assert_eq!(out.iks[0].entry_name(0).text, "左人差指先端ＩＫ");
    // Morph あ → センター: a different kind of track, no collision.
    assert_eq!(out.morphs[0].name().text, "センター");
    assert!(
        report
            .lines
            .iter()
            .any(|l| l.contains("存在しない") && l.contains("unmapped"))
    );
    assert_eq!(report.refused, 1, "{report}");

    // Collision: 首 → 頭 while 頭 stays.
    let map = ops::parse_rename_map("首\t頭\n").unwrap();
    let (out, report) = ops::rename(&m, &map).unwrap();
    assert_eq!(out.bones[3].name().text, "首");
    assert!(
        report.lines.iter().any(|l| l.contains("collide")),
        "{report}"
    );
    assert_eq!(report.refused, 1);

    // Two old names onto one new name: both refused.
    let map = ops::parse_rename_map("首\tX\n頭\tX\n").unwrap();
    let (_, report) = ops::rename(&m, &map).unwrap();
    assert_eq!(report.refused, 2, "{report}");

    assert!(ops::parse_rename_map("no tab here\n").is_err());
    assert!(ops::parse_rename_map("a\tb\na\tc\n").is_err());
}

// ---------------------------------------------------------------- JSON

#[test]
fn export_import_gives_the_original_bytes_on_every_corpus_file() {
    let files = corpus_vmds();
    for (name, bytes, m) in &files {
        let (text, _) = ops::export_json(m, ops::ExportOptions::default()).unwrap();
        let (back, _) = ops::import_json(&text).unwrap();
        assert_eq!(&vmd::write(&back).unwrap(), bytes, "{name}");
    }
    eprintln!(
        "export → import = original bytes on {} corpus files",
        files.len()
    );
}

#[test]
fn json_keeps_odd_floats_bit_for_bit() {
    let mut m = Motion::new_v2();
    let mut k = bone(
        "センター",
        0,
        [-0.0, f32::NAN, f32::INFINITY],
        [0.0, 0.0, 0.0, 1.0],
    );
    k.raw[19..23].copy_from_slice(&0x8000_0001u32.to_le_bytes()); // negative subnormal
    m.bones.push(k);
    let (text, _) = ops::export_json(&m, ops::ExportOptions::default()).unwrap();
    let (back, _) = ops::import_json(&text).unwrap();
    assert_eq!(back, m);
}

#[test]
fn json_export_has_curves_flags_and_eye() {
    let mut m = Motion::new_v2();
    let mut k = bone("センター", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]);
    k.set_curve(BoneChannel::Rotation, Curve::new(1, 2, 3, 4));
    k.set_physics_off(true);
    m.bones.push(k);
    m.cameras.push(CameraKey::new(
        0,
        -45.0,
        [0.0, 10.0, 0.0],
        [0.0; 3],
        30,
        true,
    ));
    m.cameras.push(CameraKey::new(
        1,
        -45.0,
        [0.0, 10.0, 0.0],
        [0.0; 3],
        30,
        true,
    ));
    let doc = ops::json::export_document(&m, ops::ExportOptions::default());
    assert_eq!(doc.bones[0].curves.rotation, Curve::new(1, 2, 3, 4));
    assert!(doc.bones[0].physics_off);
    // Keys 0 and 1 are one frame apart: the second is a cut.
    assert!(!doc.cameras[0].cut && doc.cameras[1].cut);
    // MMD's default camera: eye = (0, 10, 0) + (0, 0, −45) (spec formula, no rotation).
    assert!(close3(doc.cameras[0].eye, [0.0, 10.0, -45.0], 1e-5));
}

#[test]
fn right_handed_export_converts_and_refuses_import() {
    let mut m = Motion::new_v2();
    m.bones.push(bone(
        "左腕",
        0,
        [1.0, 2.0, 3.0],
        [0.1, 0.2, 0.3, 0.86f32.sqrt()],
    ));
    let mut rng = Rng(12345);
    for f in 0..50 {
        let t = [
            rng.range(-20.0, 20.0),
            rng.range(0.0, 20.0),
            rng.range(-20.0, 20.0),
        ];
        let r = [
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
        ];
        m.cameras.push(CameraKey::new(
            f * 3,
            rng.range(-80.0, -5.0),
            t,
            r,
            30,
            true,
        ));
    }
    let opts = ops::ExportOptions {
        right_handed: true,
        pretty: false,
    };
    let doc = ops::json::export_document(&m, opts);
    // Position (x, y, −z), quaternion (−x, −y, z, w).
    let p: Vec<f32> = doc.bones[0].position.iter().map(|v| v.0).collect();
    assert_eq!(p, vec![1.0, 2.0, -3.0]);
    let q: Vec<f32> = doc.bones[0].rotation.iter().map(|v| v.0).collect();
    assert_eq!(q, vec![-0.1, -0.2, 0.3, 0.86f32.sqrt()]);
    // Camera: in right-handed space the orientation quaternion turns local
    // −Z (three.js's viewing direction) towards the target, and local +Y
    // onto the z-flipped MMD up vector.
    let mut max_err = 0.0f32;
    for (c, k) in doc.cameras.iter().zip(&m.cameras) {
        assert!(c.rotation.is_none());
        let q = glam::Quat::from_array(c.orientation);
        let target = Vec3::new(c.target[0].0, c.target[1].0, c.target[2].0);
        let eye = Vec3::from(c.eye);
        let look = (target - eye).normalize();
        max_err = max_err.max((q * Vec3::NEG_Z - look).length());
        let up = up_vector(k.rotation());
        max_err = max_err.max((q * Vec3::Y - Vec3::new(up[0], up[1], -up[2])).length());
        // Eye = z-flip of MMD's eye.
        let e = eye_position(k.target(), k.rotation(), k.distance());
        assert!(close3(c.eye, [e[0], e[1], -e[2]], 1e-5));
    }
    eprintln!(
        "right-handed camera orientation: max direction error {max_err:e} over 50 random keys"
    );
    assert!(max_err < 1e-4, "{max_err}");
    let (text, _) = ops::export_json(&m, opts).unwrap();
    let err = ops::import_json(&text).unwrap_err();
    assert!(err.to_string().contains("right-handed"), "{err}");
}

// ---------------------------------------------------------------- CLI

fn bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-toolbox-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn cli_mirror_twice_and_json_round_trip() {
    let Some(dir) = corpus() else { return };
    let input = dir.join("vmdsizing__A_animasa_miku_a.vmd");
    let t = tmpdir("mirror");
    let (a, b, j, c) = (
        t.join("a.vmd"),
        t.join("b.vmd"),
        t.join("a.json"),
        t.join("c.vmd"),
    );
    let out = bin()
        .arg("mirror")
        .arg(&input)
        .arg("-o")
        .arg(&a)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("renamed to"));
    let out = bin()
        .arg("mirror")
        .arg(&a)
        .arg("-o")
        .arg(&b)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(std::fs::read(&b).unwrap(), std::fs::read(&input).unwrap());
    let out = bin()
        .arg("export-json")
        .arg(&input)
        .arg("-o")
        .arg(&j)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = bin()
        .arg("import-json")
        .arg(&j)
        .arg("-o")
        .arg(&c)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&c).unwrap(), std::fs::read(&input).unwrap());
    let _ = std::fs::remove_dir_all(&t);
}

#[test]
fn cli_bad_parameters_exit_1_with_one_line() {
    let t = tmpdir("bad");
    let input = t.join("in.vmd");
    let mut m = Motion::new_v2();
    m.bones.push(bone("頭", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    vmd::save(&m, &input).unwrap();
    let out_path = t.join("out.vmd");
    let cases: Vec<Vec<&str>> = vec![
        vec!["speed", "--factor", "0"],
        vec!["speed", "--factor", "-2"],
        vec!["trim", "--from", "10", "--to", "5"],
    ];
    for args in cases {
        let out = bin()
            .args(&args[..1])
            .arg(&input)
            .args(&args[1..])
            .arg("-o")
            .arg(&out_path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(!out_path.exists(), "{args:?} wrote a file");
    }
    let out = bin()
        .arg("mirror")
        .arg(t.join("missing.vmd"))
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.vmd"));
    let _ = std::fs::remove_dir_all(&t);
}

#[test]
fn cli_speed_and_join_end_to_end() {
    let t = tmpdir("speed");
    let input = t.join("in.vmd");
    let mut m = Motion::new_v2();
    for f in 0..4 {
        m.bones
            .push(bone("右足", f, [f as f32, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]));
    }
    vmd::save(&m, &input).unwrap();
    let out_path = t.join("fast.vmd");
    let out = bin()
        .arg("speed")
        .arg(&input)
        .args(["--factor", "2"])
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("merged") && stdout.contains("1 dropped"),
        "{stdout}"
    );
    let fast = vmd::read(&std::fs::read(&out_path).unwrap()).unwrap();
    assert_eq!(
        fast.bones.iter().map(|k| k.frame()).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    // Join the file with itself, --gap 2: second's frame 0 at 3 + 2 = 5.
    let joined = t.join("joined.vmd");
    let out = bin()
        .arg("join")
        .arg(&input)
        .arg(&input)
        .args(["--gap", "2"])
        .arg("-o")
        .arg(&joined)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j = vmd::read(&std::fs::read(&joined).unwrap()).unwrap();
    assert_eq!(
        j.bones.iter().map(|k| k.frame()).collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 5, 6, 7, 8]
    );
    let _ = std::fs::remove_dir_all(&t);
}

#[test]
fn trim_keeps_held_tracks_and_keys_the_state_in_force_at_a() {
    // Self-shadow keys at 0 (mode 1), 10 (mode 2), 20 (mode 0) and IK/show
    // keys at 0 (IK on) and 12 (IK off); trim 5..15.
    // Expected by hand: shadow keeps 10 and gains a copy of frame 0's key at 5;
    // 0 and 20 are dropped. IK keeps 12 and gains frame 0's state at 5.
    let mut m = Motion::new_v2();
    m.shadows.push(vmd_studio::vmd::ShadowKey::new(0, 1, 0.5));
    m.shadows.push(vmd_studio::vmd::ShadowKey::new(10, 2, 0.25));
    m.shadows.push(vmd_studio::vmd::ShadowKey::new(20, 0, 0.75));
    let mut on = IkKey::new(0, true);
    on.push_entry("左足ＩＫ", SJIS, true).unwrap();
    let mut off = IkKey::new(12, true);
    off.push_entry("左足ＩＫ", SJIS, false).unwrap();
    m.iks.push(on);
    m.iks.push(off);
    let (out, report) = ops::trim(
        &m,
        TrimParams {
            from: 5,
            to: 15,
            rebase: false,
        },
    )
    .unwrap();
    let shadows: Vec<(u32, u8)> = out.shadows.iter().map(|k| (k.frame(), k.mode())).collect();
    assert_eq!(shadows, vec![(10, 2), (5, 1)]);
    let iks: Vec<(u32, bool)> = out
        .iks
        .iter()
        .map(|k| (k.frame(), k.entry_enabled(0)))
        .collect();
    assert_eq!(iks, vec![(12, false), (5, true)]);
    assert_eq!(report.dropped, 3, "{report}");
    assert_eq!(report.added, 2, "{report}");
}
