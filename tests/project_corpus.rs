//! The corpus' synthetic v2 project (made by mmd-anim from the PMX and
//! VMD beside it): its keys, read by the PMM reader and written as VMD,
//! equal the VMD beside it — read with our VMD reader — value for value
//! and curve byte for curve byte.

mod common;

use std::collections::BTreeMap;

use vmd_studio::project::{self, Found, Resolver};
use vmd_studio::vmd;

const DIR: &str = "frontier/pmm_v2_mmdanim_synthetic";

/// The 16 logical curve bytes P of a bone block whose row 0 holds them
/// all (tools that write P into row 0; the spec's row-0 layout).
fn row0(b: &[u8; 64]) -> [u8; 16] {
    b[..16].try_into().unwrap()
}

/// P of a block laid out as MMD exports it: P[0] from row 0, P[1..16]
/// from row 1 (row 0 bytes 2–3 hold the physics flag there).
fn p_of_export(b: &[u8; 64]) -> [u8; 16] {
    let mut p = [0u8; 16];
    p[0] = b[0];
    p[1..].copy_from_slice(&b[16..31]);
    p
}

#[test]
fn the_synthetic_projects_keys_equal_its_vmd() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = corpus.join(DIR);
    let pmm_path = dir.join("ik_multi_bone_from_pmx_vmd.pmm");
    let pmm = std::fs::read(&pmm_path).unwrap();
    let vmd_bytes = std::fs::read(dir.join("ik_multi_bone_nondefault.vmd")).unwrap();
    let p = project::read(&pmm).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.version, project::PmmVersion::V2);
    assert_eq!(p.models.len(), 1);
    // mmd-anim's writer appends the model path and a NUL after the last
    // field MMD writes (`write_pmm_scene`): kept raw, reported.
    assert_eq!(p.trailing, b"..\\pmx\\ik_multi_axis_limit.pmx\0");
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    let m = &p.models[0];
    assert_eq!(m.name.text, "ik_multi_axis_limit_fixture");
    let mm = project::model_motion(m, 0);
    assert!(mm.warnings.is_empty(), "{:?}", mm.warnings);
    assert_eq!(mm.unreached, project::convert::Unreached::default());
    // Through our writer and back.
    let ours = vmd::read(&vmd::write(&mm.motion).unwrap()).unwrap();
    assert_eq!(ours, mm.motion);
    let theirs = vmd::read(&vmd_bytes).unwrap();

    let by_key = |m: &vmd::Motion| -> BTreeMap<(Vec<u8>, u32), vmd::BoneKey> {
        m.bones
            .iter()
            .map(|k| ((k.name_key().to_vec(), k.frame()), *k))
            .collect()
    };
    let (a, b) = (by_key(&ours), by_key(&theirs));
    assert_eq!(theirs.bones.len(), 5);
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (key, t) in &b {
        let o = &a[key];
        assert_eq!(o.position(), t.position(), "{key:?}");
        assert_eq!(o.rotation(), t.rotation(), "{key:?}");
        assert_eq!(
            p_of_export(&o.interpolation_block()),
            row0(&t.interpolation_block()),
            "{key:?}"
        );
        assert!(!o.physics_off());
    }
    // One key has curves with values past 127 (130..160): kept as stored.
    assert!(a.values().any(|k| k.interpolation_block().contains(&160)));
    assert_eq!(ours.morphs.len(), theirs.morphs.len());
    // mmd-anim wrote one display/IK key at frame 0 (shown, IK on) that the
    // VMD does not carry: MMD exports it as an IK/show key.
    assert!(theirs.iks.is_empty());
    assert_eq!(ours.iks.len(), 1);
    assert_eq!(ours.iks[0].frame(), 0);
    assert!(ours.iks[0].show());
    // This file lists no IK bones (constraint count 0), so the key has no
    // IK entries.
    assert!(m.ik_bones.is_empty());
    assert_eq!(ours.iks[0].entry_count(), 0);
}

#[test]
fn the_synthetic_projects_model_is_found_beside_it() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = corpus.join(DIR);
    let pmm_path = dir.join("ik_multi_bone_from_pmx_vmd.pmm");
    let p = project::read(&std::fs::read(&pmm_path).unwrap()).unwrap();
    assert_eq!(p.models[0].path.text, r"..\pmx\ik_multi_axis_limit.pmx");
    let got = Resolver::for_file(&pmm_path).resolve(&p.models[0].path.text);
    // Not at ../pmx (the repository's layout), but searched beside it.
    assert_eq!(got.found, Some(Found::Searched));
    assert_eq!(got.path, Some(dir.join("ik_multi_axis_limit.pmx")));
}
