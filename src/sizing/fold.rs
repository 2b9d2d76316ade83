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

use crate::model::{Model, bone_track};
use crate::vmd::evaluate::bone_at;
use crate::vmd::{BoneKey, Motion, TrackIndex};

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
}

/// (bone the target may lack, bones that receive it, order).
const FOLDS: [(&str, &[&str], Order); 9] = [
    ("グルーブ", &["センター"], Order::ChildIntoParent),
    ("上半身2", &["上半身"], Order::ChildIntoParent),
    ("腰", &["上半身", "下半身"], Order::MissingFirst),
    ("左足D", &["左足"], Order::MissingFirst),
    ("右足D", &["右足"], Order::MissingFirst),
    ("左ひざD", &["左ひざ"], Order::MissingFirst),
    ("右ひざD", &["右ひざ"], Order::MissingFirst),
    ("左足首D", &["左足首"], Order::MissingFirst),
    ("右足首D", &["右足首"], Order::MissingFirst),
];

/// Folds the keys of every semi-standard bone the source has and the
/// target lacks into the target's receiving bones. Returns a note per fold.
/// `index` is the original motion's; keys are only changed or appended.
pub(super) fn fold_missing(
    out: &mut Motion,
    index: &TrackIndex,
    source: &Model,
    target: &Model,
) -> Vec<String> {
    let mut notes = Vec::new();
    for (missing, into, order) in FOLDS {
        let applies = source.skeleton.find(missing).is_some()
            && target.skeleton.find(missing).is_none()
            && bone_track(index, missing).is_some();
        if !applies {
            continue;
        }
        for receiver in into {
            if target.skeleton.find(receiver).is_none() {
                continue;
            }
            let (changed, added) = fold_one(out, missing, receiver, order);
            notes.push(format!(
                "the target lacks {missing}: its keys folded into {receiver} ({changed} keys changed, {added} added)"
            ));
        }
    }
    notes
}

/// Folds track `missing` into track `into` of `out`; returns (keys changed,
/// keys added).
fn fold_one(out: &mut Motion, missing: &str, into: &str, order: Order) -> (usize, usize) {
    let index = TrackIndex::build(out);
    let Some(tm) = bone_track(&index, missing).map(|t| &index.bones[t]) else {
        return (0, 0);
    };
    let ti = bone_track(&index, into).map(|t| &index.bones[t]);
    let mut frames: Vec<u32> = tm.frames.clone();
    if let Some(t) = ti {
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
        let m = bone_at(out, tm, at);
        let (mp, mq) = (Vec3::from_array(m.position), Quat::from_array(m.rotation));
        let (pos, rot) = match order {
            Order::ChildIntoParent => (ip + iq * mp, iq * mq),
            Order::MissingFirst => (ip, mq * iq),
        };
        let own = ti.and_then(|t| last_key_at(t, f));
        let curve_from = last_key_at(tm, f);
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
                let Ok(mut key) = BoneKey::new(into, enc, f, pos.to_array(), rot.to_array())
                else {
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

/// The key of `track` at exactly `frame` (the last one if repeated).
fn last_key_at(track: &crate::vmd::Track, frame: u32) -> Option<usize> {
    let end = track.frames.partition_point(|&x| x <= frame);
    let j = end.checked_sub(1)?;
    (track.frames[j] == frame).then(|| track.keys[j] as usize)
}
