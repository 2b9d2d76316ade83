//! Semi-standard bones the source plays and the target lacks: their keys
//! are folded into the bone that carries their motion on the target, so
//! the pose is kept instead of dropped (the "足D folded into 足").
//!
//! Rotations compose as the poser composes them (see
//! [`crate::model::posing`]): a bone's world rotation is its parent's times
//! its own, and a D bone's local rotation is its own key times the
//! appended one. So a child folded into its parent (グルーブ → センター,
//! 上半身2 → 上半身) gives `parent · child`, and a parent folded into its
//! children (腰 → 上半身 and 下半身) or a D bone into its base (足D → 足)
//! gives `missing · into`. The parent's translation takes the child's,
//! turned by the parent's rotation (グルーブ's Y moves センター). Values
//! are taken at every frame either track has a key; keys of the receiving
//! bone keep their curves, and keys added there take the folded key's.

use glam::{Quat, Vec3};

use crate::model::{Model, PoseEngine, bone_track};
use crate::vmd::evaluate::bone_at;
use crate::vmd::{BoneKey, IndexedMotion, Motion, TrackIndex};

/// Smaller value changes are not written (the key stays byte-identical).
const SAME: f32 = 1e-6;

/// How a folded bone's value composes with the receiving bone's.
#[derive(Clone, Copy, PartialEq)]
enum Order {
    /// `into · missing` (the missing bone is the child); translations add
    /// through the receiving bone's rotation.
    ChildIntoParent,
    /// `missing · into` (the missing bone is the parent, or a D bone).
    MissingFirst,
    /// `missing⁻¹ · into` (a cancel bone's turn, see 肩P).
    InverseFirst,
}

/// Which bones receive a folded bone's keys.
#[derive(Clone, Copy)]
enum Receivers {
    /// Every one of these the target has.
    All(&'static [&'static str]),
    /// The first of these the target has.
    First(&'static [&'static str]),
}

/// One fold: the bone the target may lack, the bones that receive it,
/// how it composes, and a bone the source must have for the fold to mean
/// what it says (the 肩P fold needs its 肩C cancel bone).
struct Fold {
    missing: &'static str,
    into: Receivers,
    order: Order,
    needs: Option<&'static str>,
}

const fn fold(missing: &'static str, into: Receivers, order: Order) -> Fold {
    Fold {
        missing,
        into,
        order,
        needs: None,
    }
}

/// The folds, in the order they run: 上半身2 before 上半身3, so that a
/// target lacking both gets `上半身 · 上半身2 · 上半身3`.
const FOLDS: [Fold; 14] = [
    fold(
        "グルーブ",
        Receivers::All(&["センター"]),
        Order::ChildIntoParent,
    ),
    fold(
        "上半身2",
        Receivers::All(&["上半身"]),
        Order::ChildIntoParent,
    ),
    fold(
        "上半身3",
        Receivers::First(&["上半身2", "上半身"]),
        Order::ChildIntoParent,
    ),
    fold(
        "腰",
        Receivers::All(&["上半身", "下半身"]),
        Order::MissingFirst,
    ),
    // 肩P turns 肩; its cancel bone 肩C (inheriting −1 × 肩P) turns it back
    // before 腕, so 腕 sees 肩P · 肩 · 肩P⁻¹ (MMD's semi-standard rig).
    Fold {
        missing: "左肩P",
        into: Receivers::All(&["左肩"]),
        order: Order::MissingFirst,
        needs: Some("左肩C"),
    },
    Fold {
        missing: "左肩P",
        into: Receivers::All(&["左腕"]),
        order: Order::InverseFirst,
        needs: Some("左肩C"),
    },
    Fold {
        missing: "右肩P",
        into: Receivers::All(&["右肩"]),
        order: Order::MissingFirst,
        needs: Some("右肩C"),
    },
    Fold {
        missing: "右肩P",
        into: Receivers::All(&["右腕"]),
        order: Order::InverseFirst,
        needs: Some("右肩C"),
    },
    fold("左足D", Receivers::All(&["左足"]), Order::MissingFirst),
    fold("右足D", Receivers::All(&["右足"]), Order::MissingFirst),
    fold("左ひざD", Receivers::All(&["左ひざ"]), Order::MissingFirst),
    fold("右ひざD", Receivers::All(&["右ひざ"]), Order::MissingFirst),
    fold("左足首D", Receivers::All(&["左足首"]), Order::MissingFirst),
    fold("右足首D", Receivers::All(&["右足首"]), Order::MissingFirst),
];

/// Folds the keys of every semi-standard bone the source has and the
/// target lacks into the target's receiving bones. Returns a note per fold
/// that changed something. Keys are only changed or appended.
pub(super) fn fold_missing(
    out: &mut Motion,
    original: &Motion,
    source: &Model,
    target: &Model,
) -> Vec<String> {
    let mut notes = Vec::new();
    let has = |m: &Model, n: &str| m.skeleton.find(n).is_some();
    let mut played: Option<Played> = None;
    for f in &FOLDS {
        let applies = has(source, f.missing)
            && !has(target, f.missing)
            && f.needs.is_none_or(|n| has(source, n));
        if !applies {
            continue;
        }
        let receivers: Vec<&str> = match f.into {
            Receivers::All(r) => r.iter().copied().filter(|n| has(target, n)).collect(),
            Receivers::First(r) => r
                .iter()
                .copied()
                .find(|n| has(target, n))
                .into_iter()
                .collect(),
        };
        for receiver in receivers {
            // A missing bone that appends a turn on top of its parent's
            // (上半身3, a child of 上半身2, takes 0.4 × 上半身2 again) is
            // folded as the source plays it: its posed local rotation. A D
            // bone runs beside its base and appends it (足D ← 足), which the
            // target's own base carries, so only its keys are extra.
            let from = source.skeleton.find(f.missing).and_then(|b| {
                let bone = &source.skeleton.bones[b];
                let inherit = bone.inherit.filter(|i| i.rotation)?;
                let src_name = &source.skeleton.bones.get(inherit.source)?.name;
                let beside_base = src_name == receiver && bone.parent != Some(inherit.source);
                (!beside_base).then_some((b, src_name.clone()))
            });
            let sampler = match from {
                Some((bone, append_from)) => {
                    let p = played.get_or_insert_with(|| Played::new(source, original));
                    Some((p, bone, append_from))
                }
                None => None,
            };
            let (changed, added) = fold_one(out, f.missing, receiver, f.order, sampler);
            if changed + added > 0 {
                notes.push(format!(
                    "the target lacks {}: its keys folded into {receiver} ({changed} keys changed, {added} added)",
                    f.missing
                ));
            }
        }
    }
    notes
}

/// Folds track `missing` into track `into` of `out`; returns (keys changed,
/// keys added).
fn fold_one(
    out: &mut Motion,
    missing: &str,
    into: &str,
    order: Order,
    mut played: Option<(&mut Played, usize, String)>,
) -> (usize, usize) {
    let index = TrackIndex::build(out);
    let tm = bone_track(&index, missing).map(|t| &index.bones[t]);
    let appended = played
        .as_ref()
        .and_then(|(_, _, from)| bone_track(&index, from))
        .map(|t| &index.bones[t]);
    if tm.is_none() && appended.is_none() {
        // Nothing drives the missing bone: nothing to fold.
        return (0, 0);
    }
    let ti = bone_track(&index, into).map(|t| &index.bones[t]);
    let mut frames: Vec<u32> = Vec::new();
    for t in [tm, ti, appended].into_iter().flatten() {
        frames.extend_from_slice(&t.frames);
    }
    frames.sort_unstable();
    frames.dedup();
    // (existing key of `into` or None, frame, folded key of `missing`, value).
    let mut plan = Vec::with_capacity(frames.len());
    for &f in &frames {
        let at = f64::from(f);
        let (ip, iq) = match ti {
            Some(t) => {
                let p = bone_at(out, t, at);
                (Vec3::from_array(p.position), Quat::from_array(p.rotation))
            }
            None => (Vec3::ZERO, Quat::IDENTITY),
        };
        let (mp, mut mq) = match tm {
            Some(t) => {
                let m = bone_at(out, t, at);
                (Vec3::from_array(m.position), Quat::from_array(m.rotation))
            }
            None => (Vec3::ZERO, Quat::IDENTITY),
        };
        if let Some((p, bone, _)) = played.as_mut() {
            mq = p.local_rotation(*bone, at);
        }
        let (pos, rot) = match order {
            Order::ChildIntoParent => (ip + iq * mp, iq * mq),
            Order::MissingFirst => (ip, mq * iq),
            Order::InverseFirst => (ip, mq.inverse() * iq),
        };
        let own = ti.and_then(|t| last_key_at(t, f));
        let curve_from = tm.and_then(|t| last_key_at(t, f));
        // A new key that gives what the receiver plays there anyway is not
        // needed.
        let same = (pos - ip).abs().max_element() <= SAME
            && (glam::Vec4::from(rot) - glam::Vec4::from(iq))
                .abs()
                .max_element()
                <= SAME;
        if own.is_none() && same {
            continue;
        }
        plan.push((own, f, curve_from, pos, rot.normalize()));
    }
    let enc = out.name_encoding();
    let (mut changed, mut added) = (0, 0);
    for (own, f, curve_from, pos, rot) in plan {
        if !(pos.is_finite() && rot.is_finite()) {
            continue;
        }
        match own {
            Some(k) => {
                if let Some(key) = out.bones.get_mut(k) {
                    let old_p = Vec3::from_array(key.position());
                    let old_q = glam::Vec4::from_array(key.rotation());
                    let moved = (pos - old_p).abs().max_element() > SAME
                        || (glam::Vec4::from(rot) - old_q).abs().max_element() > SAME;
                    if moved {
                        key.set_position(pos.to_array());
                        key.set_rotation(rot.to_array());
                        changed += 1;
                    }
                }
            }
            None => {
                let Ok(mut key) = BoneKey::new(into, enc, f, pos.to_array(), rot.to_array()) else {
                    continue;
                };
                if let Some(block) = curve_from.and_then(|k| out.bones.get(k)) {
                    key.set_interpolation_block(block.interpolation_block());
                }
                out.bones.push(key);
                added += 1;
            }
        }
    }
    (changed, added)
}

/// The source model posed with the original motion: what a bone's local
/// rotation is as MMD plays it (key, append, IK).
struct Played<'a> {
    model: &'a Model,
    motion: IndexedMotion,
    engine: PoseEngine,
}

impl<'a> Played<'a> {
    fn new(model: &'a Model, motion: &Motion) -> Self {
        let motion = IndexedMotion::new(motion.clone());
        let mut engine = PoseEngine::new(model);
        engine.bind(model, Some(&motion.index));
        Played {
            model,
            motion,
            engine,
        }
    }

    fn local_rotation(&mut self, bone: usize, frame: f64) -> Quat {
        self.engine
            .pose_bones(self.model, Some(self.motion.as_ref()), frame, |_| {});
        self.engine
            .posed
            .local_rotations
            .get(bone)
            .copied()
            .unwrap_or(Quat::IDENTITY)
    }
}

/// The key of `track` at exactly `frame` (the last one if repeated).
fn last_key_at(track: &crate::vmd::Track, frame: u32) -> Option<usize> {
    let end = track.frames.partition_point(|&x| x <= frame);
    let j = end.checked_sub(1)?;
    (track.frames[j] == frame).then(|| track.keys[j] as usize)
}

/// The other way round: a trunk bone the target has and the source lacks
/// that appends its parent's turn again (the target's 上半身3 takes 0.4 ×
/// 上半身2 on top of 上半身2) would turn the target further than the
/// source ever turned. Keys are added to it that cancel the appended turn
/// at every key of the bone it appends from (with that key's curves), so
/// the target plays what the source played. Returns a note per bone.
pub(super) fn cancel_extra_appends(
    out: &mut Motion,
    source: &Model,
    target: &Model,
) -> Vec<String> {
    let mut notes = Vec::new();
    let sk = &target.skeleton;
    for bone in &sk.bones {
        let Some(inherit) = bone.inherit.filter(|i| i.rotation && !i.local) else {
            continue;
        };
        // Trunk bones only: other stacked appends (an eye highlight on
        // 両目) are the target's own look, not a body proportion.
        let stacked = bone.parent == Some(inherit.source) && bone.name.starts_with("上半身");
        if !stacked || source.skeleton.find(&bone.name).is_some() {
            continue;
        }
        let Some(from) = sk.bones.get(inherit.source) else {
            continue;
        };
        let index = TrackIndex::build(out);
        if bone_track(&index, &bone.name).is_some() {
            continue;
        }
        let Some(t) = bone_track(&index, &from.name) else {
            continue;
        };
        let enc = out.name_encoding();
        let mut added = Vec::new();
        for &k in &index.bones[t].keys {
            let Some(key) = out.bones.get(k as usize) else {
                continue;
            };
            let q = Quat::from_array(key.rotation()).normalize();
            let cancel = Quat::IDENTITY.slerp(q, inherit.ratio).inverse().normalize();
            if !cancel.is_finite() {
                continue;
            }
            if let Ok(mut new) =
                BoneKey::new(&bone.name, enc, key.frame(), [0.0; 3], cancel.to_array())
            {
                new.set_interpolation_block(key.interpolation_block());
                added.push(new);
            }
        }
        if !added.is_empty() {
            notes.push(format!(
                "the source lacks {}: {} keys added that cancel its {} × {} turn",
                bone.name,
                added.len(),
                inherit.ratio,
                from.name
            ));
            out.bones.extend(added);
        }
    }
    notes
}
