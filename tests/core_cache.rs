//! The evaluation cache never disagrees with the raw records.
//!
//! * After any sequence of edits (values, curves, frames, renames, inserted
//!   and removed keys) and undos, a cache brought up to date with
//!   `EvalCache::update` — told only which tracks the edit touched — holds
//!   exactly what decoding the records afresh gives (`agrees_with`), and its
//!   poses match `evaluate::bone_at` on the raw records to 1e-6 of each
//!   segment's change.
//! * The playback cursor gives exactly the random-access poses for frames
//!   in any order.
//!
//! (The cache against an independent evaluator on the corpus files:
//! `tests/core_eval.rs`.)

use proptest::prelude::*;
use vmd_studio::vmd::{
    self, BoneChannel, BoneKey, Curve, EvalCache, MorphKey, Motion, NameEncoding, Playhead,
    TrackIndex, evaluate,
};

const NAMES: [&str; 4] = ["center", "arm_L", "arm_R", "head"];

fn arb_curve() -> impl Strategy<Value = Curve> {
    prop_oneof![
        Just(Curve::LINEAR),
        (0u8..=127, 0u8..=127, 0u8..=127, 0u8..=127)
            .prop_map(|(a, b, c, d)| Curve::new(a, b, c, d)),
        any::<(u8, u8, u8, u8)>().prop_map(|(a, b, c, d)| Curve::new(a, b, c, d)),
    ]
}

fn arb_rotation() -> impl Strategy<Value = [f32; 4]> {
    prop_oneof![
        Just([0.0, 0.0, 0.0, 1.0]),
        Just([0.0, 0.0, 0.0, 0.0]),
        [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0],
    ]
}

fn arb_key() -> impl Strategy<Value = BoneKey> {
    (
        0usize..NAMES.len(),
        0u32..40,
        [-10.0f32..10.0, -10.0f32..10.0, -10.0f32..10.0],
        arb_rotation(),
        [arb_curve(), arb_curve(), arb_curve(), arb_curve()],
    )
        .prop_map(|(n, f, p, r, c)| {
            let mut k = BoneKey::new(NAMES[n], NameEncoding::ShiftJis, f, p, r)
                .unwrap_or_else(|e| panic!("{e}"));
            for (ch, curve) in BoneChannel::ALL.into_iter().zip(c) {
                k.set_curve(ch, curve);
            }
            k
        })
}

#[derive(Debug, Clone)]
enum Edit {
    Position(usize, [f32; 3]),
    Rotation(usize, [f32; 4]),
    Curve(usize, usize, Curve),
    Frame(usize, u32),
    Rename(usize, usize),
    Insert(BoneKey),
    Remove(usize),
    Morph(usize, u32, f32),
    Undo,
}

fn arb_edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (
            any::<usize>(),
            [-10.0f32..10.0, -10.0f32..10.0, -10.0f32..10.0]
        )
            .prop_map(|(i, p)| Edit::Position(i, p)),
        (any::<usize>(), arb_rotation()).prop_map(|(i, r)| Edit::Rotation(i, r)),
        (any::<usize>(), 0usize..4, arb_curve()).prop_map(|(i, c, v)| Edit::Curve(i, c, v)),
        (any::<usize>(), 0u32..40).prop_map(|(i, f)| Edit::Frame(i, f)),
        (any::<usize>(), 0usize..NAMES.len()).prop_map(|(i, n)| Edit::Rename(i, n)),
        arb_key().prop_map(Edit::Insert),
        any::<usize>().prop_map(Edit::Remove),
        (0usize..3, 0u32..40, 0.0f32..1.0).prop_map(|(n, f, w)| Edit::Morph(n, f, w)),
        Just(Edit::Undo),
    ]
}

/// Applies `e`, returning the bone and morph names it touched.
fn apply(m: &mut Motion, e: &Edit) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let n = m.bones.len();
    let mut touched = Vec::new();
    let mut pick = |i: usize, m: &mut Motion| -> Option<usize> {
        if n == 0 {
            return None;
        }
        let i = i % n;
        touched.push(m.bones[i].name_key().to_vec());
        Some(i)
    };
    match e {
        Edit::Position(i, p) => {
            if let Some(i) = pick(*i, m) {
                m.bones[i].set_position(*p);
            }
        }
        Edit::Rotation(i, r) => {
            if let Some(i) = pick(*i, m) {
                m.bones[i].set_rotation(*r);
            }
        }
        Edit::Curve(i, c, v) => {
            if let Some(i) = pick(*i, m) {
                m.bones[i].set_curve(BoneChannel::ALL[*c], *v);
            }
        }
        Edit::Frame(i, f) => {
            if let Some(i) = pick(*i, m) {
                m.bones[i].set_frame(*f);
            }
        }
        Edit::Rename(i, name) => {
            if let Some(i) = pick(*i, m) {
                let _ = m.bones[i].set_name(NAMES[*name], NameEncoding::ShiftJis);
                touched.push(m.bones[i].name_key().to_vec());
            }
        }
        Edit::Insert(k) => {
            touched.push(k.name_key().to_vec());
            let at = k.frame() as usize % (n + 1);
            m.bones.insert(at, *k);
        }
        Edit::Remove(i) => {
            if let Some(i) = pick(*i, m) {
                m.bones.remove(i);
            }
        }
        Edit::Morph(name, f, w) => {
            let name = format!("morph{name}");
            let k = MorphKey::new(&name, NameEncoding::ShiftJis, *f, *w)
                .unwrap_or_else(|e| panic!("{e}"));
            m.morphs.push(k);
            return (touched, vec![name.into_bytes()]);
        }
        Edit::Undo => {}
    }
    (touched, Vec::new())
}

/// Names whose keys (in file order) differ between two motions: what an
/// undo to a snapshot touches.
fn diff_names(a: &Motion, b: &Motion) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    fn differing<'m, K: 'm>(
        a: &'m [K],
        b: &'m [K],
        name: impl Fn(&K) -> &[u8],
        raw: impl Fn(&K) -> &[u8],
    ) -> Vec<Vec<u8>> {
        let mut names: Vec<Vec<u8>> = a.iter().chain(b).map(|k| name(k).to_vec()).collect();
        names.sort();
        names.dedup();
        let of = |keys: &'m [K], n: &[u8]| -> Vec<&'m [u8]> {
            keys.iter().filter(|k| name(k) == n).map(&raw).collect()
        };
        names.retain(|n| of(a, n) != of(b, n));
        names
    }
    (
        differing(&a.bones, &b.bones, BoneKey::name_key, |k| &k.raw[..]),
        differing(&a.morphs, &b.morphs, MorphKey::name_key, |k| &k.raw[..]),
    )
}

fn check_poses(m: &Motion, idx: &TrackIndex, cache: &EvalCache) -> Result<(), TestCaseError> {
    let mut head = Playhead::default();
    let mut seq = Vec::new();
    let mut rnd = Vec::new();
    // Forward, then backward and jumping: the cursor must not care.
    let frames: Vec<f64> = (0..=84)
        .map(|i| f64::from(i) * 0.5 - 1.0)
        .chain([37.25, 3.5, 0.0, 41.0, 12.75, 12.5, 12.0])
        .collect();
    for f in frames {
        cache.sample_bones_into(f, &mut rnd);
        cache.sample_bones_playing(&mut head, f, &mut seq);
        prop_assert_eq!(&rnd, &seq);
        prop_assert_eq!(rnd.len(), idx.bones.len());
        for (t, got) in idx.bones.iter().zip(&rnd) {
            let want = evaluate::bone_at(m, t, f);
            for a in 0..3 {
                let tol = 1e-6 * 20.0 + 4.0 * f32::EPSILON * 10.0;
                prop_assert!(
                    (got.position[a] - want.position[a]).abs() <= tol,
                    "f{} pos {:?} vs {:?}",
                    f,
                    got,
                    want
                );
            }
            for c in 0..4 {
                prop_assert!(
                    (got.rotation[c] - want.rotation[c]).abs() <= 2e-6,
                    "f{} rot {:?} vs {:?}",
                    f,
                    got,
                    want
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn cache_and_records_never_disagree(
        keys in prop::collection::vec(arb_key(), 0..24),
        edits in prop::collection::vec(arb_edit(), 1..24),
    ) {
        let mut m = Motion::new_v2();
        m.bones = keys;
        let mut idx = TrackIndex::build(&m);
        let mut cache = EvalCache::build(&m, &idx);
        prop_assert!(cache.agrees_with(&m, &idx));
        let mut history: Vec<Motion> = Vec::new();
        for e in &edits {
            let (bones, morphs) = if let Edit::Undo = e {
                match history.pop() {
                    Some(prev) => {
                        let names = diff_names(&m, &prev);
                        m = prev;
                        names
                    }
                    None => continue,
                }
            } else {
                history.push(m.clone());
                apply(&mut m, e)
            };
            idx = TrackIndex::build(&m);
            let b: Vec<&[u8]> = bones.iter().map(Vec::as_slice).collect();
            let mo: Vec<&[u8]> = morphs.iter().map(Vec::as_slice).collect();
            cache.update(&m, &idx, &b, &mo);
            prop_assert!(cache.agrees_with(&m, &idx), "after {:?}", e);
            // The raw bytes are untouched by the cache: they still round-trip.
            let bytes = vmd::write(&m).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&vmd::write(&vmd::read(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?).map_err(|e| TestCaseError::fail(e.to_string()))?, &bytes);
        }
        check_poses(&m, &idx, &cache)?;
    }
}

#[test]
fn an_update_that_names_nothing_leaves_a_stale_cache_that_agrees_with_detects() {
    // The check is not vacuous: a value edit the cache was not told about
    // is caught.
    let k = |f: u32, x: f32| {
        BoneKey::new(
            "a",
            NameEncoding::ShiftJis,
            f,
            [x, 0.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let mut m = Motion::new_v2();
    m.bones = vec![k(0, 0.0), k(10, 1.0)];
    let idx = TrackIndex::build(&m);
    let mut cache = EvalCache::build(&m, &idx);
    // Linear halfway: 0.5.
    assert_eq!(cache.bone_at(0, 5.0).position[0], 0.5);
    m.bones[1].set_position([3.0, 0.0, 0.0]);
    cache.update(&m, &idx, &[], &[]);
    assert!(!cache.agrees_with(&m, &idx));
    cache.update(&m, &idx, &[b"a"], &[]);
    assert!(cache.agrees_with(&m, &idx));
    // (0 + 3) / 2 by hand.
    assert_eq!(cache.bone_at(0, 5.0).position[0], 1.5);
}
