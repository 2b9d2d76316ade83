//! Hand alignment: where the source's wrists touch (a clap, hands held
//! together), the target's arms are turned so its wrists meet as the
//! source's do; where a source wrist touches the head (a hand on the
//! cheek, a salute), the target's wrist is put at the same place on the
//! target's head ([`head_goals`]).
//!
//! The idea is VMDサイジング v5's wrist alignment
//! (miu200521358/vmd_sizing, MIT, `src/service/parts/ArmAlignmentService.pyx`:
//! `prepare_alignment` finds the key frames whose source wrists are within
//! a distance of each other and takes the wrists' offset from their
//! midpoint in the trunk's frame (首根元); `execute_alignment` places the
//! target's wrists at the midpoint of the target's own wrists plus that
//! offset scaled by the arm ratio, and solves 腕 and ひじ by IK, adding
//! keys on those frames). The code is ours: one analytic two-bone solve
//! per arm instead of v5's iterative IK, the offset in the frame of the
//! lowest bone above both arms, and the contact rule of
//! [`super::contacts`].
//!
//! On each frame at which the source's wrists touch, 腕 and ひじ of both
//! arms get a key (an existing one changes its value and keeps its curve;
//! a new one takes the curve of the next key of its track), and keys that
//! hold the unaligned pose are added at the keyed frames around each run
//! of contact frames ([`neighbours`]). v5 aligns only at key frames; on
//! the corpus's dance most contacts fall between keys (1 of 21 contact
//! frames had one), so we key every contact frame — contacts are short
//! and few.

use std::collections::BTreeSet;

use glam::{Mat4, Quat, Vec3};

use super::contacts::HandBones;
use super::measure::{ArmMeasure, BodyMeasure};
use crate::model::{Model, PoseEngine, Posed, bone_track};
use crate::vmd::evaluate::bone_at;
use crate::vmd::{BoneKey, IndexedMotion, Motion};

/// A target wrist this close to where it should be (share of the target's
/// arm length) is left alone, so a motion sized onto its own model comes
/// back byte for byte.
const ALIGN_TOLERANCE: f32 = 0.01;

/// An elbow bent less than this (radians, ≈ 5°) is straight: its bend
/// plane is not defined, and it bends forward about its hinge.
const STRAIGHT: f32 = 0.087;

/// Smaller rotation changes are not written.
const SAME: f32 = 1e-6;

/// What hand alignment did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Aligned {
    /// Frames whose arms were turned.
    pub frames: usize,
    /// Keys of 腕 / ひじ added (frames those bones had no key at).
    pub added: usize,
}

/// One (original motion, source, target) pairing, with the measures.
pub(crate) struct HandJob<'a> {
    /// The motion as made for the source.
    pub original: &'a Motion,
    pub source: &'a Model,
    pub target: &'a Model,
    pub src: &'a BodyMeasure,
    pub dst: &'a BodyMeasure,
}

/// A new local rotation of one bone at one frame.
struct Write {
    bone: usize,
    frame: u32,
    rotation: Quat,
    /// Only add a key holding the value the bone had (at a frame next to
    /// the aligned ones, so frames outside them keep their pose); an
    /// existing key is left alone.
    keep: bool,
}

/// Turns the arms of `out` (the motion sized so far, for the target) on
/// the source's contact frames. Needs both models' arms; returns what was
/// done, with a note where it could not run.
pub(crate) fn align_hands(job: &HandJob, out: &mut Motion, notes: &mut Vec<String>) -> Aligned {
    let (Some(src_arms), Some(dst_arms)) = (&job.src.arms, &job.dst.arms) else {
        notes.push("hands not aligned: a model lacks arm bones".into());
        return Aligned::default();
    };
    let (Some(sh), Some(th)) = (
        HandBones::of(job.source, job.src),
        HandBones::of(job.target, job.dst),
    ) else {
        return Aligned::default();
    };
    let sk = &job.target.skeleton;
    if let Some(b) = dst_arms
        .iter()
        .flat_map(|a| &a.bones[..2])
        .find(|&&b| sk.bones[b].inherit.is_some())
    {
        notes.push(format!(
            "hands not aligned: the target's {} appends another bone's turn",
            sk.bones[*b].name
        ));
        return Aligned::default();
    }
    let s_trunk = above_both(job.source, src_arms);
    let t_trunk = above_both(job.target, dst_arms);
    let pre = IndexedMotion::new(out.clone());
    let original = IndexedMotion::new(job.original.clone());
    let mut s_engine = PoseEngine::new(job.source);
    s_engine.bind(job.source, Some(&original.index));
    let mut t_engine = PoseEngine::new(job.target);
    t_engine.bind(job.target, Some(&pre.index));
    let ratio = th.arm_length / sh.arm_length;
    let tolerance = ALIGN_TOLERANCE * th.arm_length;
    let mut writes = Vec::new();
    let mut frames = 0;
    let keyed = key_frames(job.target, &pre, dst_arms);
    let last = job
        .original
        .bones
        .iter()
        .map(BoneKey::frame)
        .max()
        .unwrap_or(0);
    for frame in 0..=last {
        let f = f64::from(frame);
        s_engine.pose_bones(job.source, Some(original.as_ref()), f, |_| {});
        let sw = &s_engine.posed.bone_world;
        let contact = sh.read(sw);
        let on_head = contact.on_head();
        if !contact.clap() && on_head == [false; 2] {
            continue;
        }
        t_engine.pose_bones(job.target, Some(pre.as_ref()), f, |_| {});
        let posed = &t_engine.posed;
        let now = th.wrists.map(|b| at(&posed.bone_world, b));
        let goals = if contact.clap() {
            let [sl, sr] = sh.wrists.map(|b| at(sw, b));
            let offset = rotation(sw, s_trunk).inverse() * (sl - sr);
            let mid = (now[0] + now[1]) / 2.0;
            let d = rotation(&posed.bone_world, t_trunk) * offset * ratio / 2.0;
            [Some(mid + d), Some(mid - d)]
        } else {
            head_goals(&sh, &th, sw, &posed.bone_world, on_head, ratio)
        };
        let mut any = false;
        for ((arm, goal), w) in dst_arms.iter().zip(goals).zip(now) {
            let Some(goal) = goal.filter(|g| w.distance(*g) > tolerance) else {
                continue;
            };
            if let Some(turns) = solve_arm(job.target, posed, arm, goal) {
                any = true;
                writes.extend(turns.map(|(bone, rotation)| Write {
                    bone,
                    frame,
                    rotation,
                    keep: false,
                }));
            }
        }
        frames += usize::from(any);
    }
    writes.extend(neighbours(job.target, &pre, &keyed, &writes));
    let added = write_keys(job.target, &pre, out, &writes);
    if frames > 0 {
        notes.push(format!(
            "hands aligned on {frames} contact frames (each other or the head; {added} keys of 腕/ひじ added)"
        ));
    }
    Aligned { frames, added }
}

/// Where the target's wrists go when the source's touch its head (left,
/// right; `None`: that wrist is not on the head, or a model has no 頭):
/// the source wrist's offset from 頭 in 頭's frame, scaled by the arm
/// ratio, from the target's 頭 in its frame — a hand on the cheek or the
/// crown stays there on a head at another height.
fn head_goals(
    sh: &HandBones,
    th: &HandBones,
    source_world: &[Mat4],
    target_world: &[Mat4],
    on_head: [bool; 2],
    ratio: f32,
) -> [Option<Vec3>; 2] {
    let (Some(shead), Some(thead)) = (sh.head, th.head) else {
        return [None; 2];
    };
    let (s_at, s_turn) = (at(source_world, shead), rotation(source_world, Some(shead)));
    let (t_at, t_turn) = (at(target_world, thead), rotation(target_world, Some(thead)));
    [0, 1].map(|k| {
        on_head[k].then(|| {
            let offset = s_turn.inverse() * (at(source_world, sh.wrists[k]) - s_at);
            t_at + t_turn * offset * ratio
        })
    })
}

fn at(world: &[Mat4], b: usize) -> Vec3 {
    world.get(b).map_or(Vec3::ZERO, |m| m.w_axis.truncate())
}

/// A bone's world rotation; the identity for `None` (the model's frame).
fn rotation(world: &[Mat4], b: Option<usize>) -> Quat {
    b.and_then(|b| world.get(b))
        .map_or(Quat::IDENTITY, |m| m.to_scale_rotation_translation().1)
}

/// The lowest bone above both arms' 腕 (上半身2 or 上半身 on a standard
/// model): the frame the wrists' offset is carried in.
fn above_both(model: &Model, arms: &[ArmMeasure; 2]) -> Option<usize> {
    let sk = &model.skeleton;
    let chain = |mut b: usize| {
        let mut out = Vec::new();
        while let Some(p) = sk.bones.get(b).and_then(|x| x.parent) {
            if out.len() > sk.bones.len() || p == b {
                break;
            }
            out.push(p);
            b = p;
        }
        out
    };
    let left = chain(arms[0].bones[0]);
    chain(arms[1].bones[0])
        .into_iter()
        .find(|p| left.contains(p))
}

/// Frames at which the target's wrists or a bone above them has a key.
fn key_frames(model: &Model, motion: &IndexedMotion, arms: &[ArmMeasure; 2]) -> BTreeSet<u32> {
    let sk = &model.skeleton;
    let mut bones = BTreeSet::new();
    for arm in arms {
        let mut b = Some(arm.bones[2]);
        while let Some(i) = b {
            if !bones.insert(i) {
                break;
            }
            b = sk.bones.get(i).and_then(|x| x.parent);
        }
    }
    let mut frames = BTreeSet::new();
    for b in bones {
        if let Some(t) = bone_track(&motion.index, &sk.bones[b].name) {
            frames.extend(motion.index.bones[t].frames.iter().copied());
        }
    }
    frames
}

/// For every bone turned: keys holding its unaligned value at the keyed
/// frames (`keyed`: a key of a bone above the wrists) just before and
/// after each run of aligned frames — frame 0 when none is before — so a
/// track that had no key there (or none at all) does not carry the aligned
/// pose into frames where the hands are apart, and the arms move into the
/// contact over the span the motion moved them.
fn neighbours(
    model: &Model,
    pre: &IndexedMotion,
    keyed: &BTreeSet<u32>,
    writes: &[Write],
) -> Vec<Write> {
    let aligned: BTreeSet<u32> = writes.iter().map(|w| w.frame).collect();
    let bones: BTreeSet<usize> = writes.iter().map(|w| w.bone).collect();
    let mut around = BTreeSet::new();
    for &f in &aligned {
        let before = keyed.range(..f).rev().find(|c| !aligned.contains(c));
        let before = before
            .copied()
            .or((f > 0 && !aligned.contains(&0)).then_some(0));
        let after = keyed
            .range(f.saturating_add(1)..)
            .find(|c| !aligned.contains(c));
        around.extend(before.into_iter().chain(after.copied()));
    }
    let mut out = Vec::new();
    for &bone in &bones {
        let Some(b) = model.skeleton.bones.get(bone) else {
            continue;
        };
        let track = bone_track(&pre.index, &b.name).map(|t| &pre.index.bones[t]);
        for &frame in &around {
            let rotation = track.map_or(Quat::IDENTITY, |t| {
                Quat::from_array(bone_at(&pre.motion, t, f64::from(frame)).rotation)
            });
            out.push(Write {
                bone,
                frame,
                rotation,
                keep: true,
            });
        }
    }
    out
}

/// New local rotations of 腕 and ひじ that put the wrist of `arm` at
/// `goal` (as near as the arm reaches), or `None` for a degenerate arm.
fn solve_arm(
    model: &Model,
    posed: &Posed,
    arm: &ArmMeasure,
    goal: Vec3,
) -> Option<[(usize, Quat); 2]> {
    let [shoulder, elbow, wrist] = arm.bones;
    let world = &posed.bone_world;
    // The elbow's forward hinge at rest: the forearm's rest direction
    // crossed with the model's front (−Z), so that a positive turn about
    // it bends the forearm forward; then as the elbow is turned now.
    let hinge = arm.directions[1].cross(Vec3::NEG_Z).try_normalize();
    let hinge = hinge.map(|h| rotation(world, Some(elbow)) * h);
    let (bend, swing) = two_bone(
        at(world, shoulder),
        at(world, elbow),
        at(world, wrist),
        goal,
        hinge,
    )?;
    let sk = &model.skeleton;
    let local = |b: usize, turn: Quat| {
        let parent = rotation(world, sk.bones.get(b).and_then(|x| x.parent));
        let own = posed.local_rotations.get(b).copied().unwrap_or_default();
        (parent.inverse() * turn * parent * own).normalize()
    };
    Some([
        (shoulder, local(shoulder, swing)),
        (elbow, local(elbow, bend)),
    ])
}

/// Two-bone IK in world space: the turn of the forearm about the elbow
/// that makes the shoulder-to-wrist distance the shoulder-to-goal one
/// (law of cosines, within what the arm reaches), then the turn of the
/// whole arm about the shoulder that points the wrist at the goal
/// (shortest arc, so the elbow stays in its plane). Returns (elbow turn,
/// shoulder turn), world rotations.
fn two_bone(a: Vec3, e: Vec3, w: Vec3, goal: Vec3, hinge: Option<Vec3>) -> Option<(Quat, Quat)> {
    let (u, v) = (a - e, w - e);
    let (upper, fore) = (u.length(), v.length());
    if upper < 1e-5 || fore < 1e-5 || !goal.is_finite() {
        return None;
    }
    let inner = u.angle_between(v);
    let reach = goal
        .distance(a)
        .clamp((upper - fore).abs() + 1e-4, (upper + fore) * 0.9999);
    let cos = (upper * upper + fore * fore - reach * reach) / (2.0 * upper * fore);
    let wanted = cos.clamp(-1.0, 1.0).acos();
    // Turning `v` about `u × v` opens the elbow; a straight elbow bends
    // about its hinge (a positive turn closes it, so the axis is −hinge).
    let bent = std::f32::consts::PI - inner > STRAIGHT;
    let axis = bent
        .then(|| u.cross(v).try_normalize())
        .flatten()
        .or_else(|| hinge.and_then(|h| (-h).try_normalize()))?;
    let bend = Quat::from_axis_angle(axis, wanted - inner);
    let moved = e + bend * v;
    let swing = Quat::from_rotation_arc((moved - a).try_normalize()?, (goal - a).try_normalize()?);
    (bend.is_finite() && swing.is_finite()).then_some((bend, swing))
}

/// Writes the new rotations into `out` (keys of `pre.motion`, same
/// indices): an existing key at the frame changes its rotation, else a key
/// is added with the track's position there and the curve of its next
/// key. Returns the keys added.
fn write_keys(model: &Model, pre: &IndexedMotion, out: &mut Motion, writes: &[Write]) -> usize {
    let enc = out.name_encoding();
    let mut added = Vec::new();
    for w in writes {
        let Some(bone) = model.skeleton.bones.get(w.bone) else {
            continue;
        };
        let track = bone_track(&pre.index, &bone.name).map(|t| &pre.index.bones[t]);
        let existing = track.and_then(|t| {
            let i = t.frames.iter().position(|&f| f == w.frame)?;
            t.keys.get(i).copied()
        });
        if let Some(k) = existing {
            if w.keep {
                continue;
            }
            if let Some(key) = out.bones.get_mut(k as usize) {
                let old = Quat::from_array(key.rotation());
                let diff = glam::Vec4::from(w.rotation) - glam::Vec4::from(old);
                if diff.abs().max_element() > SAME {
                    key.set_rotation(w.rotation.to_array());
                }
            }
            continue;
        }
        let position = track.map_or([0.0; 3], |t| {
            bone_at(&pre.motion, t, f64::from(w.frame)).position
        });
        let Ok(mut key) = BoneKey::new(&bone.name, enc, w.frame, position, w.rotation.to_array())
        else {
            continue;
        };
        let next = track.and_then(|t| {
            let i = t.frames.iter().position(|&f| f > w.frame)?;
            t.keys
                .get(i)
                .and_then(|&k| pre.motion.bones.get(k as usize))
        });
        if let Some(n) = next {
            key.set_interpolation_block(n.interpolation_block());
        }
        added.push(key);
    }
    let n = added.len();
    out.bones.extend(added);
    n
}
