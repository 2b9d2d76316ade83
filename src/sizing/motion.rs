//! The sizing of a motion's keys: movement bones, hips, arms, feet.
//!
//! Ideas from VMDサイジング v5 (miu200521358/vmd_sizing, MIT):
//! `src/service/parts/MoveService.py` (`adjust_move`: X/Z of the movement
//! bones × horizontal ratio, Y × vertical ratio; `set_center_y_offset`;
//! `set_leg_ik_offset`: the feet's rest spread), and
//! `src/service/parts/StanceService.pyx` (`calc_arm_stance` /
//! `adjust_arm_stance_pool`: each arm key turned by the rest-direction
//! difference of its parent on the left and its own on the right;
//! `adjust_arm_stance_twist_pool`: twist bones onto the target's axis).
//! Our own derivation of the arm rule is in [`arm_turns`].

use std::collections::HashMap;

use glam::{Quat, Vec3};

use super::measure::{BodyMeasure, LegRatios, Side, SizingError, leg_ratios, measure};
use crate::model::posing::onto_fixed_axis;
use crate::model::{Model, PoseEngine, bone_track, missing_names};
use crate::vmd::{BoneKey, IndexedMotion, Motion, TrackIndex};

/// What to size (the CLI's `--no-arms`, `--no-feet`, `--no-hands`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SizingOptions {
    /// Turn 腕, ひじ, 手首, the twist bones and the fingers by the rest-stance
    /// difference. Needs both models' arm bones.
    pub arms: bool,
    /// Lift leg-IK keys whose toe would go below the floor where the
    /// source's toe was on or above it.
    pub feet: bool,
    /// Where the source's wrists touch each other, turn the target's 腕 and
    /// ひじ so its wrists meet as the source's do ([`super::hands`]).
    pub hands: bool,
}

impl Default for SizingOptions {
    fn default() -> Self {
        SizingOptions {
            arms: true,
            feet: true,
            hands: true,
        }
    }
}

/// Keys of one bone track after sizing.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BoneChange {
    pub bone: String,
    /// Keys whose bytes changed (value only; frame, name and curves kept).
    pub changed: usize,
    /// Keys added (a bone with no track that must now move).
    pub added: usize,
    /// Keys left byte-identical.
    pub untouched: usize,
}

/// A sized motion and what was done to it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SizingOutcome {
    #[serde(skip)]
    pub motion: Motion,
    /// The ratios used (the horizontal one shared when sized as a group).
    pub ratios: LegRatios,
    /// Per bone track of the sized motion, in track order.
    pub changes: Vec<BoneChange>,
    /// Bone tracks of the motion the target model lacks (they stay in the
    /// file; MMD ignores them on this model).
    pub missing_in_target: Vec<String>,
    /// Leg-IK keys lifted off the floor.
    pub feet_lifted: usize,
    /// Contact frames on which the arms were turned so the hands meet.
    pub hands_aligned: usize,
    /// Notes for the user (what was skipped and why).
    pub notes: Vec<String>,
}

/// Bones whose translation keys are scaled by the leg ratios (v5's
/// `MoveService.execute` list, plus 腰).
const MOVEMENT_BONES: [&str; 10] = [
    "全ての親",
    "センター",
    "グルーブ",
    "腰",
    "左足IK親",
    "右足IK親",
    "左足ＩＫ",
    "右足ＩＫ",
    "左つま先ＩＫ",
    "右つま先ＩＫ",
];

/// A value change smaller than this (per component) is not written, so a
/// key whose sizing is the identity stays byte-identical.
const SAME: f32 = 1e-6;

/// Sizes `motion`, made for `source`, to `target`.
pub fn size_motion(
    motion: &Motion,
    source: &Model,
    target: &Model,
    options: &SizingOptions,
) -> Result<SizingOutcome, SizingError> {
    let mut out = size_motions(motion, source, &[target], options)?;
    out.pop().ok_or(SizingError::NoTarget)
}

/// Sizes `motion` for several actors sized together: each gets its own
/// vertical ratio and hip offset, and they share one horizontal ratio
/// ([`super::shared_horizontal`]) so a formation keeps its spacing.
pub fn size_motions(
    motion: &Motion,
    source: &Model,
    targets: &[&Model],
    options: &SizingOptions,
) -> Result<Vec<SizingOutcome>, SizingError> {
    let members: Vec<(&Motion, &Model)> = targets.iter().map(|t| (motion, *t)).collect();
    size_group(&members, source, options)
}

/// Sizes a group: each member's own motion (all made for `source`) onto
/// its own target, sharing one horizontal ratio
/// ([`super::shared_horizontal`]) so the formation keeps its spacing;
/// each keeps its own vertical ratio and hip offset. Outcomes in the
/// members' order; any member's bad input refuses the whole group.
pub fn size_group(
    members: &[(&Motion, &Model)],
    source: &Model,
    options: &SizingOptions,
) -> Result<Vec<SizingOutcome>, SizingError> {
    size_members(members, &[], source, options)
}

/// Sizes one actor's `motion` onto `target` as a member of a group whose
/// other members wear `others` (their motions are not sized here): the
/// horizontal ratio is the one [`size_group`] gives the whole group, so
/// the actors sized one at a time (the GUI's dialog) keep the formation's
/// spacing as the group sized at once would.
pub fn size_in_group(
    motion: &Motion,
    target: &Model,
    others: &[&Model],
    source: &Model,
    options: &SizingOptions,
) -> Result<SizingOutcome, SizingError> {
    let mut out = size_members(&[(motion, target)], others, source, options)?;
    out.pop().ok_or(SizingError::NoTarget)
}

/// [`size_group`] whose shared horizontal ratio also counts the bodies of
/// `others` (members whose motions are not sized in this call).
fn size_members(
    members: &[(&Motion, &Model)],
    others: &[&Model],
    source: &Model,
    options: &SizingOptions,
) -> Result<Vec<SizingOutcome>, SizingError> {
    let src = measure(source, "source")?;
    let mut indexes = Vec::with_capacity(members.len());
    for (motion, _) in members {
        check_keys(motion)?;
        let index = TrackIndex::build(motion);
        check_skeleton(source, &index)?;
        indexes.push(index);
    }
    if options.arms && src.arms.is_none() {
        return Err(missing_arms("source", &src));
    }
    let mut bodies = Vec::with_capacity(members.len());
    for (_, t) in members {
        let body = measure(t, "target")?;
        if options.arms && body.arms.is_none() {
            return Err(missing_arms("target", &body));
        }
        bodies.push(body);
    }
    let ratios: Vec<LegRatios> = bodies.iter().map(|b| leg_ratios(&src, b)).collect();
    let mut group = ratios.clone();
    for o in others {
        group.push(leg_ratios(&src, &measure(o, "group member")?));
    }
    let shared = super::shared_horizontal(&group).ok_or(SizingError::NoTarget)?;
    let mut outcomes = Vec::with_capacity(members.len());
    for (((motion, target), (body, index)), mut r) in
        members.iter().zip(bodies.iter().zip(&indexes)).zip(ratios)
    {
        r.horizontal = shared;
        let job = Job {
            motion,
            index,
            source,
            target,
            src: &src,
            dst: body,
            ratios: r,
        };
        outcomes.push(job.run(options));
    }
    Ok(outcomes)
}

fn missing_arms(role: &str, body: &BodyMeasure) -> SizingError {
    SizingError::MissingBones {
        role: role.into(),
        names: body.missing_arm_bones.clone(),
    }
}

/// Refuses keys with a non-finite position or rotation.
fn check_keys(motion: &Motion) -> Result<(), SizingError> {
    for k in &motion.bones {
        let p = k.position();
        let q = k.rotation();
        if p.iter().chain(q.iter()).any(|v| !v.is_finite()) {
            return Err(SizingError::NonFiniteKey {
                bone: k.name().text,
                frame: k.frame(),
            });
        }
    }
    Ok(())
}

/// Refuses a motion that has bone tracks but drives none of the source's
/// bones (by MMD's name rule).
fn check_skeleton(source: &Model, index: &TrackIndex) -> Result<(), SizingError> {
    let tracks = index.bones.len();
    if tracks > 0 && missing_names(source, index).bones.len() == tracks {
        Err(SizingError::DifferentSkeleton { tracks })
    } else {
        Ok(())
    }
}

/// One (motion, source, target) sizing.
struct Job<'a> {
    motion: &'a Motion,
    index: &'a TrackIndex,
    source: &'a Model,
    target: &'a Model,
    src: &'a BodyMeasure,
    dst: &'a BodyMeasure,
    ratios: LegRatios,
}

impl Job<'_> {
    fn run(&self, options: &SizingOptions) -> SizingOutcome {
        let mut out = self.motion.clone();
        let mut notes = Vec::new();
        let folded = super::fold::fold_missing(&mut out, self.motion, self.source, self.target);
        notes.extend(folded);
        notes.extend(super::fold::cancel_extra_appends(
            &mut out,
            self.source,
            self.target,
        ));
        let index = TrackIndex::build(&out);
        self.scale_movement(&mut out, &index, &mut notes);
        if options.arms {
            self.turn_arms(&mut out, &index, &mut notes);
        }
        let feet_lifted = if options.feet {
            self.lift_feet(&mut out)
        } else {
            0
        };
        let hands_aligned = if options.hands {
            let job = super::hands::HandJob {
                original: self.motion,
                source: self.source,
                target: self.target,
                src: self.src,
                dst: self.dst,
            };
            super::hands::align_hands(&job, &mut out, &mut notes).frames
        } else {
            0
        };
        let missing_in_target = missing_names(self.target, self.index).bones;
        SizingOutcome {
            changes: changes(self.motion, &out),
            motion: out,
            ratios: self.ratios,
            missing_in_target,
            feet_lifted,
            hands_aligned,
            notes,
        }
    }

    /// Movement bones: X/Z × horizontal, Y × vertical, plus a constant
    /// offset — センター down by the hip offset, each 足ＩＫ by the
    /// difference of the feet's rest spread (v5 `set_leg_ik_offset`: the
    /// source's rest foot position scaled minus the target's, on X and Z).
    fn scale_movement(&self, out: &mut Motion, index: &TrackIndex, notes: &mut Vec<String>) {
        let r = self.ratios;
        for name in MOVEMENT_BONES {
            if self.target.skeleton.find(name).is_none() {
                continue;
            }
            let offset = self.movement_offset(name);
            let hips = name == "センター" || name == "グルーブ";
            let y = if hips { r.hips } else { r.vertical };
            let scale = Vec3::new(r.horizontal, y, r.horizontal);
            let sized = |p: Vec3| p * scale + offset;
            match bone_track(index, name) {
                Some(t) => {
                    for &k in &index.bones[t].keys {
                        let Some(key) = out.bones.get_mut(k as usize) else {
                            continue;
                        };
                        let p = Vec3::from_array(key.position());
                        let q = sized(p);
                        if (q - p).abs().max_element() > SAME {
                            key.set_position(q.to_array());
                        }
                    }
                }
                None if offset.abs().max_element() > SAME => {
                    add_key(out, name, offset, Quat::IDENTITY, notes);
                }
                None => {}
            }
        }
    }

    /// The constant part of a movement bone's sizing (model units).
    fn movement_offset(&self, name: &str) -> Vec3 {
        if name == "センター" {
            return Vec3::new(0.0, self.ratios.hip_offset, 0.0);
        }
        for (i, side) in Side::BOTH.iter().enumerate() {
            if name == side.name("足ＩＫ")
                && let (Some((_, s)), Some((_, t))) = (self.src.legs[i].ik, self.dst.legs[i].ik)
            {
                let h = self.ratios.horizontal;
                return Vec3::new(h * s.x - t.x, 0.0, h * s.z - t.z);
            }
        }
        Vec3::ZERO
    }

    /// Turns every key of the target's arm bones and everything below them
    /// (twist bones, fingers) by [`arm_turns`].
    fn turn_arms(&self, out: &mut Motion, index: &TrackIndex, notes: &mut Vec<String>) {
        let (Some(src_arms), Some(dst_arms)) = (&self.src.arms, &self.dst.arms) else {
            return;
        };
        let turns = arm_turns(self.target, src_arms, dst_arms);
        let sk = &self.target.skeleton;
        for (&bone, &(before, after)) in &turns {
            let name = &sk.bones[bone].name;
            // A twist bone (腕捩, 手捩) turns on the source about its fixed
            // axis only: its keys are first put on that axis, as MMD plays
            // them there, so an off-axis part the source never showed
            // cannot swing the target's elbow or wrist.
            // On the target it turns about its own axis (its fixed axis, or
            // its line to the next bone as v5's `get_local_x_axis`), so a
            // twist bone off the arm's line does not swing the elbow.
            let axes = self.twist_axes(bone, before, after);
            let turn = |q: Quat| match axes {
                Some((src, dst)) => {
                    onto_fixed_axis(before.inverse() * onto_fixed_axis(q, src) * after, dst)
                }
                None => before.inverse() * q * after,
            };
            match bone_track(index, name) {
                Some(t) => {
                    for &k in &index.bones[t].keys {
                        let Some(key) = out.bones.get_mut(k as usize) else {
                            continue;
                        };
                        let q = Quat::from_array(key.rotation());
                        let r = turn(q);
                        if (Vec4Like(r) - Vec4Like(q)) > SAME {
                            key.set_rotation(r.normalize().to_array());
                        }
                    }
                }
                None => {
                    let r = turn(Quat::IDENTITY);
                    if (Vec4Like(r) - Vec4Like(Quat::IDENTITY)) > SAME {
                        add_key(out, name, Vec3::ZERO, r.normalize(), notes);
                    }
                }
            }
        }
    }

    /// For a twist bone (the source's bone has a fixed axis): that axis and
    /// the target's (its fixed axis, else the unit direction to the next
    /// joint) — when its keys must be moved onto them: the
    /// turn is not the identity or the target lacks the source's axis
    /// (sized onto the same model, keys stay as they are).
    fn twist_axes(&self, bone: usize, before: Quat, after: Quat) -> Option<(Vec3, Vec3)> {
        let sk = &self.target.skeleton;
        let b = &sk.bones[bone];
        let src = self.source.skeleton.find(&b.name)?;
        let axis = self.source.skeleton.bones[src]
            .fixed_axis?
            .try_normalize()?;
        let own = b.fixed_axis.and_then(Vec3::try_normalize);
        let same_axis = own.is_some_and(|t| t.dot(axis) > 1.0 - 1e-6);
        let turned = before.angle_between(Quat::IDENTITY) > 1e-6
            || after.angle_between(Quat::IDENTITY) > 1e-6;
        if !turned && same_axis {
            return None;
        }
        // The line to the next joint of the arm (ひじ for 腕捩, 手首 for 手捩):
        // the child with the most bones below it, else the display tail.
        let children = sk.children();
        let size = |c: usize| {
            let (mut n, mut stack) = (0usize, vec![c]);
            while let Some(x) = stack.pop() {
                n += 1;
                if n > sk.bones.len() {
                    break;
                }
                stack.extend_from_slice(&children[x]);
            }
            n
        };
        let next = children[bone].iter().copied().max_by_key(|&c| size(c));
        let towards = match (next, b.tail) {
            (Some(c), _) => Some(sk.bones[c].rest_position - b.rest_position),
            (None, Some(crate::model::BoneTail::Bone(t))) if t < sk.bones.len() => {
                Some(sk.bones[t].rest_position - b.rest_position)
            }
            (None, Some(crate::model::BoneTail::Offset(o))) => Some(o),
            _ => None,
        };
        let dst = own
            .or_else(|| towards.and_then(Vec3::try_normalize))
            .unwrap_or(after.inverse() * axis);
        Some((axis, dst))
    }

    /// Lifts leg-IK keys whose toe would be below the floor on the target
    /// where the source's toe was on or above it. Returns how many.
    fn lift_feet(&self, out: &mut Motion) -> usize {
        let source = IndexedMotion::new(self.motion.clone());
        let sized = IndexedMotion::new(out.clone());
        let mut src_engine = PoseEngine::new(self.source);
        src_engine.bind(self.source, Some(&source.index));
        let mut dst_engine = PoseEngine::new(self.target);
        dst_engine.bind(self.target, Some(&sized.index));
        let src_tol = FLOOR_TOLERANCE * self.src.leg_length;
        let dst_tol = FLOOR_TOLERANCE * self.dst.leg_length;
        let mut lifts: Vec<(usize, Vec3)> = Vec::new();
        for (i, side) in Side::BOTH.iter().enumerate() {
            let (Some(s_toe), Some(t_toe), Some((ik, _))) = (
                self.src.legs[i].toe,
                self.dst.legs[i].toe,
                self.dst.legs[i].ik,
            ) else {
                continue;
            };
            let Some(t) = bone_track(&sized.index, &side.name("足ＩＫ")) else {
                continue;
            };
            let parent = self.target.skeleton.bones[ik].parent;
            for &k in &sized.index.bones[t].keys {
                let Some(frame) = sized.motion.bones.get(k as usize).map(BoneKey::frame) else {
                    continue;
                };
                let f = f64::from(frame);
                src_engine.pose_bones(self.source, Some(source.as_ref()), f, |_| {});
                let s_y = src_engine.posed.bone_world[s_toe].w_axis.y;
                if s_y < -src_tol {
                    continue;
                }
                dst_engine.pose_bones(self.target, Some(sized.as_ref()), f, |_| {});
                let t_y = dst_engine.posed.bone_world[t_toe].w_axis.y;
                if t_y >= -dst_tol {
                    continue;
                }
                let up = Vec3::new(0.0, -t_y, 0.0);
                let local = match parent {
                    Some(p) => {
                        let (_, rot, _) =
                            dst_engine.posed.bone_world[p].to_scale_rotation_translation();
                        rot.inverse() * up
                    }
                    None => up,
                };
                if local.is_finite() {
                    lifts.push((k as usize, local));
                }
            }
        }
        for &(k, d) in &lifts {
            if let Some(key) = out.bones.get_mut(k) {
                let p = Vec3::from_array(key.position()) + d;
                key.set_position(p.to_array());
            }
        }
        lifts.len()
    }
}

/// A toe this far below the floor (share of the leg's length) counts as
/// below it.
pub(crate) const FLOOR_TOLERANCE: f32 = 0.01;

/// Largest component difference of two quaternions (for "did it change").
#[derive(Clone, Copy)]
struct Vec4Like(Quat);

impl std::ops::Sub for Vec4Like {
    type Output = f32;
    fn sub(self, o: Vec4Like) -> f32 {
        (glam::Vec4::from(self.0) - glam::Vec4::from(o.0))
            .abs()
            .max_element()
    }
}

/// Appends one key at frame 0 for a bone that had no track.
pub(super) fn add_key(
    out: &mut Motion,
    name: &str,
    position: Vec3,
    rotation: Quat,
    notes: &mut Vec<String>,
) {
    let enc = out.name_encoding();
    match BoneKey::new(name, enc, 0, position.to_array(), rotation.to_array()) {
        Ok(k) => out.bones.push(k),
        Err(e) => notes.push(format!("no key added for {name}: {e}")),
    }
}

/// Per bone of the target's arms (腕 and everything below it), the turns
/// `(before, after)` that size a local rotation `q` to
/// `before⁻¹ · q · after`.
///
/// Derivation: MMD bones carry no rest orientation, so a bone's world
/// rotation is the product of the local rotations down its chain and its
/// rest direction `d` turns with it. Let `D_b` turn the target's rest
/// direction of 腕/ひじ/手首 onto the source's (shortest arc). If every
/// sized world rotation is `G'_b = G_b · D_b`, the target's bone points
/// where the source's did (`G_b · D_b · d_t = G_b · d_s`); that holds down
/// the chain when `q'_b = D_parent⁻¹ · q_b · D_b`. Bones between and below
/// (腕捩, 手捩, fingers) take their parent's `D`, so their keys are
/// conjugated — a twist about the source's arm axis becomes one about the
/// target's (v5 puts twists on the target's axis directly).
fn arm_turns(
    target: &Model,
    src: &[super::ArmMeasure; 2],
    dst: &[super::ArmMeasure; 2],
) -> HashMap<usize, (Quat, Quat)> {
    let sk = &target.skeleton;
    let mut own: HashMap<usize, Quat> = HashMap::new();
    for (s, d) in src.iter().zip(dst) {
        for j in 0..3 {
            own.insert(
                d.bones[j],
                Quat::from_rotation_arc(d.directions[j], s.directions[j]),
            );
        }
    }
    let children = sk.children();
    let mut turns = HashMap::new();
    for d in dst {
        // Depth-first from 腕: (bone, its parent's D).
        let mut stack = vec![(d.bones[0], Quat::IDENTITY)];
        let mut seen = 0usize;
        while let Some((b, parent_turn)) = stack.pop() {
            seen += 1;
            if seen > sk.bones.len() {
                break;
            }
            let turn = own.get(&b).copied().unwrap_or(parent_turn);
            turns.insert(b, (parent_turn, turn));
            for &c in &children[b] {
                stack.push((c, turn));
            }
        }
    }
    turns
}

/// Per bone track of `after`: keys changed, added and left byte-identical
/// relative to `before` (keys beyond `before`'s length were added).
fn changes(before: &Motion, after: &Motion) -> Vec<BoneChange> {
    let index = TrackIndex::build(after);
    index
        .bones
        .iter()
        .map(|t| {
            let mut c = BoneChange {
                bone: t.name().text,
                changed: 0,
                added: 0,
                untouched: 0,
            };
            for &k in &t.keys {
                match (before.bones.get(k as usize), after.bones.get(k as usize)) {
                    (Some(a), Some(b)) if a == b => c.untouched += 1,
                    (Some(_), _) => c.changed += 1,
                    (None, _) => c.added += 1,
                }
            }
            c
        })
        .collect()
}
