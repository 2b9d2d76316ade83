//! Keeping the camera framing (issue 36) on hand-built bodies: look-at
//! points and distances against values computed here from the bones'
//! coordinates, untouched bytes identical, and the refusals.

use glam::Vec3;
use vmd_studio::model::{Bone, Format, Model};
use vmd_studio::sizing::{SizingError, camera_fit, leg_ratios, measure, size_camera};
use vmd_studio::vmd::{self, CameraKey, Motion};

/// A body standing on the floor: hip joints (足) at `hip` height, 1 unit
/// either side of the middle, knees halfway down, ankles at height 1
/// straight below, 頭 at `head` height on the middle line.
fn body(hip: f32, head: f32) -> Model {
    let spec: [(&str, Option<&str>, [f32; 3]); 10] = [
        ("全ての親", None, [0.0; 3]),
        ("センター", Some("全ての親"), [0.0, hip - 2.0, 0.0]),
        ("上半身", Some("センター"), [0.0, hip + 1.0, 0.0]),
        ("頭", Some("上半身"), [0.0, head, 0.0]),
        ("左足", Some("センター"), [1.0, hip, 0.0]),
        ("左ひざ", Some("左足"), [1.0, (hip + 1.0) / 2.0, 0.0]),
        ("左足首", Some("左ひざ"), [1.0, 1.0, 0.0]),
        ("右足", Some("センター"), [-1.0, hip, 0.0]),
        ("右ひざ", Some("右足"), [-1.0, (hip + 1.0) / 2.0, 0.0]),
        ("右足首", Some("右ひざ"), [-1.0, 1.0, 0.0]),
    ];
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    for (name, _, pos) in &spec {
        m.skeleton
            .bones
            .push(Bone::new(*name, None, Vec3::from_array(*pos)));
    }
    for (i, (_, parent, _)) in spec.iter().enumerate() {
        m.skeleton.bones[i].parent = parent.and_then(|p| m.skeleton.find(p));
    }
    m
}

/// Source: hips at 10, head at 17. Target: hips at 12, head at 21.
fn pair() -> (Model, Model) {
    (body(10.0, 17.0), body(12.0, 21.0))
}

fn camera(keys: Vec<CameraKey>) -> Motion {
    let mut m = Motion::new_v2();
    m.cameras = keys;
    m
}

fn key(frame: u32, distance: f32, target: [f32; 3]) -> CameraKey {
    let mut k = CameraKey::new(frame, distance, target, [0.1, -0.7, 0.05], 27, true);
    // A curve that is not the default, to see it kept.
    for (i, b) in k.raw[32..56].iter_mut().enumerate() {
        *b = (i as u8 * 5 + 3) % 128;
    }
    k
}

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-4)
}

#[test]
fn a_shot_of_the_sources_head_is_a_shot_of_the_targets_head() {
    let (source, target) = pair();
    let ratios = leg_ratios(
        &measure(&source, "source").unwrap(),
        &measure(&target, "target").unwrap(),
    );
    // Legs: straight 左足 → 左足首 is 10 − 1 = 9 on the source, 12 − 1 = 11
    // on the target: horizontal ratio 11/9.
    assert!((ratios.horizontal - 11.0 / 9.0).abs() < 1e-6);
    let fit = camera_fit(&source, &target, &ratios).expect("fit");
    let input = camera(vec![
        // At the source's head (0, 17, 0), 30 units away (MMD: negative).
        key(0, -30.0, [0.0, 17.0, 0.0]),
        // Low, off to the side: below the hips, hips' ratio 12/10 on Y.
        key(10, -45.0, [4.5, 5.0, -9.0]),
        // Halfway between the hips (10) and the head (17).
        key(20, -20.0, [0.0, 13.5, 0.0]),
        // 1.7 above the head: 21 + 1.7 × 21/17.
        key(30, -10.0, [0.0, 18.7, 0.0]),
        // The origin, distance 0: nothing to change.
        key(40, 0.0, [0.0, 0.0, 0.0]),
    ]);
    let out = size_camera(&input, &fit).expect("sized");
    let got: Vec<[f32; 3]> = out.motion.cameras.iter().map(|k| k.target()).collect();
    // The target's head rest position is (0, 21, 0).
    assert!(close(got[0], [0.0, 21.0, 0.0]), "{:?}", got[0]);
    // 4.5 × 11/9 = 5.5, 5 × 12/10 = 6, −9 × 11/9 = −11.
    assert!(close(got[1], [5.5, 6.0, -11.0]), "{:?}", got[1]);
    // 12 + (13.5 − 10)/(17 − 10) × (21 − 12) = 16.5.
    assert!(close(got[2], [0.0, 16.5, 0.0]), "{:?}", got[2]);
    assert!(close(got[3], [0.0, 23.1, 0.0]), "{:?}", got[3]);
    assert_eq!(got[4], [0.0, 0.0, 0.0]);
    // Distances × 21/17.
    let want = [
        -30.0 * 21.0 / 17.0,
        -45.0 * 21.0 / 17.0,
        -20.0 * 21.0 / 17.0,
    ];
    for (k, w) in out.motion.cameras.iter().zip(want) {
        assert!((k.distance() - w).abs() < 1e-4, "{} vs {w}", k.distance());
    }
    assert!((out.report.distance_ratio - 21.0 / 17.0).abs() < 1e-6);
    assert_eq!(
        (out.report.keys, out.report.changed, out.report.untouched),
        (5, 4, 1)
    );
    // Moves: 4, √6, 3, 4.4, 0: the largest is the key above the head.
    assert!((out.report.target_shift_max - 4.4).abs() < 1e-4);
    let mean = (4.0 + 6f32.sqrt() + 3.0 + 4.4) / 5.0;
    assert!((out.report.target_shift_mean - mean).abs() < 1e-4);
}

#[test]
fn everything_but_look_at_and_distance_stays_byte_identical() {
    let (source, target) = pair();
    let ratios = leg_ratios(
        &measure(&source, "source").unwrap(),
        &measure(&target, "target").unwrap(),
    );
    let fit = camera_fit(&source, &target, &ratios).expect("fit");
    let mut input = camera(vec![
        key(0, -30.0, [0.0, 17.0, 0.0]),
        key(40, 0.0, [0.0, 0.0, 0.0]),
    ]);
    input.header[26..].copy_from_slice(b"junk"); // junk after the NUL is kept
    let out = size_camera(&input, &fit).expect("sized");
    let (a, b) = (&input.cameras[0].raw, &out.motion.cameras[0].raw);
    // Frame (0..4) and rotation, curves, fov, perspective (20..61) kept;
    // distance (4..8) and look-at (8..20) changed.
    assert_eq!(a[..4], b[..4]);
    assert_eq!(a[20..], b[20..]);
    assert_ne!(a[4..8], b[4..8]);
    assert_ne!(a[8..20], b[8..20]);
    // The key the sizing did not change: every byte.
    assert_eq!(input.cameras[1].raw, out.motion.cameras[1].raw);
    let (wa, wb) = (
        vmd::write(&input).expect("write"),
        vmd::write(&out.motion).expect("write"),
    );
    assert_eq!(wa.len(), wb.len());
    // Header and model name (50 bytes) as they were.
    assert_eq!(wa[..50], wb[..50]);
}

#[test]
fn a_model_without_a_head_or_a_broken_key_is_refused() {
    let (source, _) = pair();
    let mut headless = body(12.0, 21.0);
    let head = headless.skeleton.find("頭").unwrap();
    headless.skeleton.bones[head].name = "あたま".into();
    let ratios = leg_ratios(
        &measure(&source, "source").unwrap(),
        &measure(&headless, "target").unwrap(),
    );
    match camera_fit(&source, &headless, &ratios) {
        Err(SizingError::MissingBones { role, names }) => {
            assert_eq!((role.as_str(), names), ("target", vec!["頭".to_owned()]))
        }
        other => panic!("{other:?}"),
    }
    let fit = camera_fit(&source, &source, &ratios).expect("fit");
    let bad = camera(vec![key(7, f32::NAN, [0.0, 1.0, 0.0])]);
    let err = size_camera(&bad, &fit).expect_err("refused");
    assert_eq!(err, SizingError::NonFiniteCamera { frame: 7 });
    assert!(err.to_string().contains("frame 7"));
    // The same body on both sides: nothing changes.
    let same = camera(vec![key(0, -30.0, [1.0, 12.0, -3.0])]);
    let ratios = leg_ratios(
        &measure(&source, "source").unwrap(),
        &measure(&source, "target").unwrap(),
    );
    let fit = camera_fit(&source, &source, &ratios).expect("fit");
    let out = size_camera(&same, &fit).expect("sized");
    assert_eq!(out.motion.cameras, same.cameras);
}
