//! Unit tests of the document: undo/redo, merging, the budget, the cache.

use super::{Document, Edit, EditRequest, KeyChanges};
use crate::vmd::{BoneKey, Motion, NameEncoding};

fn doc() -> Document {
    let mut m = Motion::new_v2();
    for f in [0, 10, 20] {
        m.bones.push(
            BoneKey::new(
                "センター",
                NameEncoding::ShiftJis,
                f,
                [0.0; 3],
                [0.0, 0.0, 0.0, 1.0],
            )
            .unwrap(),
        );
    }
    Document::new(m, None, "test")
}

fn moved(d: &Document, i: u32, frame: u32) -> Edit {
    let mut k = d.motion.bones[i as usize];
    k.set_frame(frame);
    Edit::SetKeys(KeyChanges {
        bones: vec![(i, k)],
        ..Default::default()
    })
}

#[test]
fn a_drag_is_one_undo_step_and_undo_restores_bytes() {
    let mut d = doc();
    let original = crate::vmd::write(&d.motion).unwrap();
    for f in [11, 12, 13] {
        let e = moved(&d, 1, f);
        d.request(EditRequest::merge(e, "move", 7));
    }
    d.request(EditRequest::EndMerge);
    assert_eq!(d.history().len(), 1);
    assert_eq!(d.motion.bones[1].frame(), 13);
    assert!(d.is_modified());
    assert!(d.undo());
    assert_eq!(crate::vmd::write(&d.motion).unwrap(), original);
    assert!(!d.is_modified());
    assert!(d.redo());
    assert_eq!(d.motion.bones[1].frame(), 13);
}

/// A bigger motion: 200 keys of one bone.
fn long_doc() -> Document {
    let mut m = Motion::new_v2();
    for f in 0..200 {
        m.bones.push(
            BoneKey::new(
                "センター",
                NameEncoding::ShiftJis,
                f,
                [f as f32; 3],
                [0.0, 0.0, 0.0, 1.0],
            )
            .unwrap(),
        );
    }
    Document::new(m, None, "long")
}

/// The dope sheet's Delete: a new motion without the keys at `every`-th index.
fn delete_every(d: &Document, every: usize, offset: usize) -> Edit {
    let mut m = d.motion.clone();
    let mut i = 0;
    m.bones.retain(|_| {
        i += 1;
        (i - 1) % every != offset
    });
    Edit::ReplaceMotion {
        motion: Box::new(m),
        selection: None,
    }
}

#[test]
fn a_delete_step_holds_the_removed_keys_not_a_copy_of_the_motion() {
    let mut d = long_doc();
    let original = crate::vmd::write(&d.motion).unwrap();
    d.apply(delete_every(&d, 20, 3), "delete");
    assert_eq!(d.motion.bones.len(), 190);
    // 10 removed records (111 bytes each, spec) plus their indices and
    // bookkeeping; a whole copy would be 200 × 111 = 22,200 bytes.
    let held = d.history().bytes();
    assert!((10 * 111..4_000).contains(&held), "{held}");
    let after = crate::vmd::write(&d.motion).unwrap();
    assert!(d.undo());
    assert_eq!(crate::vmd::write(&d.motion).unwrap(), original);
    assert!(d.redo());
    assert_eq!(crate::vmd::write(&d.motion).unwrap(), after);
    assert!(d.undo());
    assert_eq!(crate::vmd::write(&d.motion).unwrap(), original);
    assert!(!d.is_modified());
}

#[test]
fn over_budget_the_oldest_steps_go_and_the_modified_mark_stays_true() {
    let mut d = long_doc();
    let original = crate::vmd::write(&d.motion).unwrap();
    // Each step below holds about 10 × (111 + 4) bytes: a 3,000-byte
    // budget keeps two of them.
    d.set_undo_budget(3_000);
    let mut states = vec![original.clone()];
    for s in 0..5 {
        d.apply(delete_every(&d, 19, s), "delete");
        states.push(crate::vmd::write(&d.motion).unwrap());
    }
    assert!(d.history().bytes() <= 3_000, "{}", d.history().bytes());
    let kept = d.history().len();
    assert!((1..5).contains(&kept), "{kept}");
    assert_eq!(d.history().dropped(), 5 - kept);
    let note = d.take_history_note().expect("a note");
    assert!(note.contains("oldest"), "{note}");
    assert!(d.take_history_note().is_none(), "said once");
    // Undo what is left: each step gives back its exact earlier state.
    for i in (5 - kept..5).rev() {
        assert!(d.undo());
        assert_eq!(crate::vmd::write(&d.motion).unwrap(), states[i]);
    }
    assert!(!d.undo(), "the dropped steps are gone");
    // Not the file's state: still modified (the mark must not lie).
    assert!(d.is_modified());
    assert_ne!(crate::vmd::write(&d.motion).unwrap(), original);
}

/// The cache's values against the independent reference evaluator
/// (`evaluate::bone_at` / `morph_at` on the raw records) at sampled
/// frames, and against a cache built from scratch.
fn assert_cache_fresh(d: &Document, step: &str) {
    use crate::vmd::evaluate;
    assert_eq!(d.cache.bones().len(), d.index.bones.len(), "{step}");
    assert_eq!(d.cache.morphs().len(), d.index.morphs.len(), "{step}");
    let frames: Vec<f64> = (-2..=130).map(|k| f64::from(k) * 0.37).collect();
    for (ti, t) in d.index.bones.iter().enumerate() {
        for &f in &frames {
            let (got, want) = (d.cache.bone_at(ti, f), evaluate::bone_at(&d.motion, t, f));
            for a in 0..3 {
                let (g, w) = (got.position[a], want.position[a]);
                assert!(
                    (g - w).abs() <= 1e-4,
                    "{step}: bone track {ti} frame {f} axis {a}: cache {g}, records {w}"
                );
            }
            // q and −q are the same rotation.
            let dot: f32 = (0..4).map(|c| got.rotation[c] * want.rotation[c]).sum();
            assert!(
                dot.abs() >= 1.0 - 1e-5,
                "{step}: bone track {ti} frame {f}: {:?} vs {:?}",
                got.rotation,
                want.rotation
            );
        }
    }
    for (ti, t) in d.index.morphs.iter().enumerate() {
        for &f in &frames {
            let (g, w) = (d.cache.morph_at(ti, f), evaluate::morph_at(&d.motion, t, f));
            assert!(
                (g - w).abs() <= 1e-6,
                "{step}: morph {ti} frame {f}: {g} vs {w}"
            );
        }
    }
    assert!(d.cache.agrees_with(&d.motion, &d.index), "{step}");
}

#[test]
fn the_evaluation_cache_is_never_stale_after_edits_undo_and_redo() {
    use crate::vmd::MorphKey;
    let names = ["センター", "左腕", "右ひじ", "頭"];
    let morphs = ["あ", "まばたき"];
    let mut m = Motion::new_v2();
    for (b, name) in names.iter().take(3).enumerate() {
        for f in [0u32, 10, 25] {
            let v = (b * 10) as f32 + f as f32 * 0.1;
            let q = glam::Quat::from_rotation_y(v * 0.05).to_array();
            m.bones
                .push(BoneKey::new(name, NameEncoding::ShiftJis, f, [v, -v, 0.5], q).unwrap());
        }
    }
    for f in [5u32, 15] {
        m.morphs
            .push(MorphKey::new(morphs[0], NameEncoding::ShiftJis, f, 0.25).unwrap());
    }
    let mut d = Document::new(m, None, "cache");
    assert_cache_fresh(&d, "load");
    // A fixed pseudo-random sequence (LCG) of every kind of edit.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % n.max(1)
    };
    for step in 0..160 {
        let kind = next(8);
        let nb = d.motion.bones.len();
        let label = format!("step {step} kind {kind}");
        match kind {
            // Move a key to another frame (the index is rebuilt).
            0 if nb > 0 => {
                let i = next(nb) as u32;
                d.apply(moved(&d, i, next(40) as u32), &label);
            }
            // New values (a drag: merged steps).
            1 if nb > 0 => {
                let i = next(nb);
                let mut k = d.motion.bones[i];
                k.set_position([next(100) as f32 * 0.1, 1.0, -2.0]);
                k.set_rotation(glam::Quat::from_rotation_x(next(60) as f32 * 0.05).to_array());
                let e = Edit::SetKeys(KeyChanges {
                    bones: vec![(i as u32, k)],
                    ..Default::default()
                });
                d.request(EditRequest::merge(e, &label, 9));
                if next(2) == 0 {
                    d.request(EditRequest::EndMerge);
                }
            }
            // Rename a key onto another (or a new) track.
            2 if nb > 0 => {
                let i = next(nb);
                let mut k = d.motion.bones[i];
                k.set_name(names[next(names.len())], NameEncoding::ShiftJis)
                    .unwrap();
                d.apply(
                    Edit::SetKeys(KeyChanges {
                        bones: vec![(i as u32, k)],
                        ..Default::default()
                    }),
                    &label,
                );
            }
            // Insert keys (a whole-motion edit, stored as a diff).
            3 => {
                let mut new = d.motion.clone();
                let at = next(new.bones.len() + 1);
                let name = names[next(names.len())];
                let q = glam::Quat::from_rotation_z(next(30) as f32 * 0.1).to_array();
                let key = BoneKey::new(
                    name,
                    NameEncoding::ShiftJis,
                    next(50) as u32,
                    [1.0, 2.0, 3.0],
                    q,
                )
                .unwrap();
                new.bones.insert(at, key);
                let mk = MorphKey::new(
                    morphs[next(2)],
                    NameEncoding::ShiftJis,
                    next(50) as u32,
                    next(10) as f32 * 0.1,
                )
                .unwrap();
                let at = next(new.morphs.len() + 1);
                new.morphs.insert(at, mk);
                d.apply(
                    Edit::ReplaceMotion {
                        motion: Box::new(new),
                        selection: None,
                    },
                    &label,
                );
            }
            // Delete keys.
            4 if nb > 1 => {
                let e = delete_every(&d, 2 + next(4), next(2));
                d.apply(e, &label);
            }
            // Change a morph weight in place.
            5 if !d.motion.morphs.is_empty() => {
                let i = next(d.motion.morphs.len());
                let mut k = d.motion.morphs[i];
                k.set_weight(next(10) as f32 * 0.1);
                d.apply(
                    Edit::SetKeys(KeyChanges {
                        morphs: vec![(i as u32, k)],
                        ..Default::default()
                    }),
                    &label,
                );
            }
            6 => {
                d.undo();
            }
            _ => {
                d.redo();
            }
        }
        assert_cache_fresh(&d, &label);
    }
    // Everything undone: the cache is the loaded motion's again.
    while d.undo() {}
    assert_cache_fresh(&d, "all undone");
    while d.redo() {}
    assert_cache_fresh(&d, "all redone");
}

#[test]
fn modified_mark_follows_the_save_point() {
    let mut d = doc();
    d.apply(moved(&d, 0, 1), "move");
    d.mark_saved();
    assert!(!d.is_modified());
    d.undo();
    assert!(d.is_modified());
    d.redo();
    assert!(!d.is_modified());
    // A new branch after undo is a different state.
    d.undo();
    d.apply(moved(&d, 0, 2), "move");
    assert!(d.is_modified());
}
