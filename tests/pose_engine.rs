//! One pose engine (issue 22): the viewport's skeleton, joints and gizmo
//! are posed by the same path as the mesh, `pose` and `render` — the
//! evaluation cache, MMD's name binding, the poser with bone morphs. The
//! cases the old stick-figure solver got wrong, checked by hand: a bone
//! whose Shift_JIS name is longer than the 15-byte VMD field (MMD matches
//! the cut bytes), and a bone morph.
#![cfg(feature = "gui")]

use std::f32::consts::FRAC_PI_2;

use glam::{Quat, Vec3};
use vmd_studio::app::panels::viewport::posed_world;
use vmd_studio::model::{
    Bone, BoneOffset, Format, Model, Morph, MorphKind, missing_names, standard_model,
};
use vmd_studio::vmd::{BoneKey, IndexedMotion, MorphKey, Motion, NameEncoding};

/// 10 full-width characters: 20 Shift_JIS bytes, cut to 15 in a VMD key.
const LONG: &str = "右腕捩れ補助ボーン１";

/// センター at the origin; LONG at (0, 1, 0) under it; 先 at (0, 2, 0)
/// under LONG. A bone morph 曲げ turns LONG 90° about Z.
fn rig() -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    m.skeleton.bones = vec![
        Bone::new("センター", None, Vec3::ZERO),
        Bone::new(LONG, Some(0), Vec3::Y),
        Bone::new("先", Some(1), Vec3::new(0.0, 2.0, 0.0)),
    ];
    m.morphs.push(Morph {
        name: "曲げ".into(),
        name_en: String::new(),
        panel: 4,
        kind: MorphKind::Bone(vec![BoneOffset {
            bone: 1,
            translation: Vec3::ZERO,
            rotation: Quat::from_rotation_z(FRAC_PI_2),
        }]),
    });
    m
}

/// A key on LONG's track as MMD writes it: the name's first 15 bytes.
fn long_key(frame: u32, rotation: Quat) -> BoneKey {
    let (bytes, _, bad) = encoding_rs::SHIFT_JIS.encode(LONG);
    assert!(!bad && bytes.len() == 20, "{} bytes", bytes.len());
    let mut key = BoneKey::new(
        "x",
        NameEncoding::ShiftJis,
        frame,
        [0.0; 3],
        rotation.to_array(),
    )
    .expect("key");
    let mut field = [0u8; 15];
    field.copy_from_slice(&bytes[..15]);
    key.set_name_field(&field);
    key
}

fn tip(m: &Model, motion: &IndexedMotion, frame: f64) -> Vec3 {
    posed_world(m, Some(motion.as_ref()), frame)[2]
        .w_axis
        .truncate()
}

#[test]
fn a_long_bone_name_is_matched_by_its_cut_bytes_in_the_viewport() {
    let m = rig();
    let mut motion = Motion::new_v2();
    motion
        .bones
        .push(long_key(0, Quat::from_rotation_z(FRAC_PI_2)));
    let motion = IndexedMotion::new(motion);
    // Not missing: the 15 cut bytes name LONG.
    let missing = missing_names(&m, &motion.index);
    assert!(missing.is_empty(), "{missing:?}");
    // LONG turned 90° about Z: its child's offset (0, 1, 0) becomes
    // (−1, 0, 0), so 先 is at (0, 1, 0) + (−1, 0, 0).
    let p = tip(&m, &motion, 0.0);
    assert!(p.distance(Vec3::new(-1.0, 1.0, 0.0)) < 1e-5, "{p}");
}

#[test]
fn a_bone_morph_moves_the_skeleton_the_viewport_draws() {
    let m = rig();
    let mut motion = Motion::new_v2();
    for (f, w) in [(0, 1.0), (10, 0.5)] {
        motion
            .morphs
            .push(MorphKey::new("曲げ", NameEncoding::ShiftJis, f, w).expect("key"));
    }
    let motion = IndexedMotion::new(motion);
    // Weight 1: the whole 90° → 先 at (−1, 1, 0).
    let p = tip(&m, &motion, 0.0);
    assert!(p.distance(Vec3::new(-1.0, 1.0, 0.0)) < 1e-5, "{p}");
    // Weight 0.5: 45° → (0, 1, 0) + (−sin 45°, cos 45°, 0).
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let p = tip(&m, &motion, 10.0);
    assert!(p.distance(Vec3::new(-h, 1.0 + h, 0.0)) < 1e-5, "{p}");
}

#[test]
fn the_builtin_skeleton_lists_what_it_lacks_by_the_same_rule() {
    let mut motion = Motion::new_v2();
    motion.bones.push(long_key(0, Quat::IDENTITY));
    for name in ["センター", "謎"] {
        let k = BoneKey::new(
            name,
            NameEncoding::ShiftJis,
            0,
            [0.0; 3],
            [0.0, 0.0, 0.0, 1.0],
        );
        motion.bones.push(k.expect("key"));
    }
    motion
        .morphs
        .push(MorphKey::new("あ", NameEncoding::ShiftJis, 0, 1.0).expect("key"));
    let index = IndexedMotion::new(motion).index;
    let missing = missing_names(&standard_model(), &index);
    // The cut name decodes to its first 7 characters and a stray lead byte.
    assert_eq!(missing.bones.len(), 2, "{:?}", missing.bones);
    assert!(
        missing.bones[0].starts_with("右腕捩れ補助ボ"),
        "{:?}",
        missing.bones
    );
    assert_eq!(missing.bones[1], "謎");
    assert_eq!(missing.morphs, ["あ"]);
}
