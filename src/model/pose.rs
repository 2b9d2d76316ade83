//! Forward kinematics and CCD inverse kinematics, the way MMD poses a model.
//!
//! All positions are MMD model coordinates (left-handed, Y up, facing −Z,
//! left at +X) and all rotations are plain quaternions/matrices applied to
//! those coordinates as numbers, exactly as VMD files store them — nothing is
//! converted to a right-handed system. Angles are radians.
//!
//! Per bone, with `offset` = rest position minus the parent's rest position:
//!
//! ```text
//! world = parent_world · translate(offset + pose.translation) · rotate(rotation)
//! ```
//!
//! where `rotation` is the pose rotation (changed by IK for IK links) times
//! any inherited rotation. A bone's world position is `world`'s translation;
//! with an identity pose it equals the rest position. To skin a vertex, use
//! `world · translate(−rest_position)`.

use std::collections::HashSet;
use std::f32::consts::PI;

use glam::{Mat4, Quat, Vec3};

use super::ik::ccd_step;
use super::skeleton::{IkChain, IkLink, Inherit, Skeleton};

/// Upper bound on CCD iterations per chain, whatever the model says, so a
/// malformed loop count cannot stall a frame.
pub const MAX_IK_LOOPS: u32 = 1024;

/// Effector-to-goal distance (model units) at which a chain counts as solved.
const IK_TOLERANCE: f32 = 1e-5;

/// A bone's pose relative to its rest pose, as a VMD bone key gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BonePose {
    /// Offset from the rest position, in the parent's space (model units).
    pub translation: Vec3,
    /// Local rotation (MMD left-handed coordinates, as stored in VMD).
    pub rotation: Quat,
}

impl BonePose {
    /// No offset, no rotation.
    pub const IDENTITY: BonePose = BonePose {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };

    /// A pose from a translation and a rotation.
    pub fn new(translation: Vec3, rotation: Quat) -> Self {
        BonePose {
            translation,
            rotation,
        }
    }
}

impl Default for BonePose {
    fn default() -> Self {
        BonePose::IDENTITY
    }
}

/// The outcome of [`PoseSolver::solve`].
#[derive(Debug, Clone, PartialEq)]
pub struct PoseResult {
    /// Global matrix per bone (bone-local → model space).
    pub world: Vec<Mat4>,
    /// Final local rotation per bone: the pose rotation with IK applied
    /// (IK links) and inherited rotation folded in.
    pub rotations: Vec<Quat>,
}

impl PoseResult {
    /// World position of every bone (model units).
    pub fn positions(&self) -> Vec<Vec3> {
        world_positions(&self.world)
    }
}

/// Solves poses for one skeleton; keeps the evaluation order so that it is
/// computed once, not per frame.
#[derive(Debug, Clone)]
pub struct PoseSolver<'a> {
    skel: &'a Skeleton,
    /// Parents and inherit sources before dependants.
    order: Vec<usize>,
    /// `rank[bone]` = position of `bone` in `order`.
    rank: Vec<usize>,
}

/// Mutable per-frame state of a solve.
struct State {
    /// Own local rotation (pose, then IK).
    rotation: Vec<Quat>,
    /// Pose translation.
    translation: Vec<Vec3>,
    /// Rotation with inheritance applied.
    effective_rotation: Vec<Quat>,
    /// Translation with inheritance applied.
    effective_translation: Vec<Vec3>,
    world: Vec<Mat4>,
}

impl<'a> PoseSolver<'a> {
    /// Prepares a solver for `skel`.
    pub fn new(skel: &'a Skeleton) -> Self {
        let order = skel.evaluation_order();
        let mut rank = vec![0; skel.bones.len()];
        for (k, &bone) in order.iter().enumerate() {
            rank[bone] = k;
        }
        PoseSolver { skel, order, rank }
    }

    /// Forward kinematics only: no IK.
    pub fn forward(&self, local: &[BonePose]) -> PoseResult {
        let mut state = self.initial_state(local);
        self.update_from(&mut state, 0);
        PoseResult {
            world: state.world,
            rotations: state.effective_rotation,
        }
    }

    /// FK, then every enabled IK chain in the skeleton's order (CCD), then
    /// the final matrices. `local[i]` is bone `i`'s pose (missing entries are
    /// identity); `ik_enabled(name)` says whether the IK bone called `name`
    /// is on (VMD IK/show keys; answer `true` by default).
    pub fn solve(&self, local: &[BonePose], ik_enabled: &dyn Fn(&str) -> bool) -> PoseResult {
        let mut state = self.initial_state(local);
        self.update_from(&mut state, 0);
        for chain in &self.skel.iks {
            if ik_enabled(&self.skel.bones[chain.ik_bone].name) {
                self.solve_chain(&mut state, chain);
            }
        }
        PoseResult {
            world: state.world,
            rotations: state.effective_rotation,
        }
    }

    fn initial_state(&self, local: &[BonePose]) -> State {
        let n = self.skel.bones.len();
        let pose = |i: usize| local.get(i).copied().unwrap_or_default();
        State {
            rotation: (0..n).map(|i| pose(i).rotation.normalize()).collect(),
            translation: (0..n).map(|i| pose(i).translation).collect(),
            effective_rotation: vec![Quat::IDENTITY; n],
            effective_translation: vec![Vec3::ZERO; n],
            world: vec![Mat4::IDENTITY; n],
        }
    }

    /// Recomputes effective transforms and world matrices for every bone at
    /// or after position `start` of the evaluation order.
    fn update_from(&self, s: &mut State, start: usize) {
        for &i in &self.order[start..] {
            let bone = &self.skel.bones[i];
            let mut rotation = s.rotation[i];
            let mut translation = s.translation[i];
            if let Some(inherit) = bone.inherit.filter(|h| self.rank[h.source] < self.rank[i]) {
                apply_inherit(&inherit, s, &mut rotation, &mut translation);
            }
            s.effective_rotation[i] = rotation;
            s.effective_translation[i] = translation;
            // A parent that is not evaluated first can only be on a cycle
            // (malformed file): treat the bone as a root then.
            let parent = bone.parent.filter(|&p| self.rank[p] < self.rank[i]);
            let (parent_world, parent_rest) = match parent {
                Some(p) => (s.world[p], self.skel.bones[p].rest_position),
                None => (Mat4::IDENTITY, Vec3::ZERO),
            };
            let offset = bone.rest_position - parent_rest + translation;
            s.world[i] = parent_world * Mat4::from_rotation_translation(rotation, offset);
        }
    }

    /// Cyclic coordinate descent for one chain, MMD style.
    fn solve_chain(&self, s: &mut State, chain: &IkChain) {
        let goal = position(&s.world[chain.ik_bone]);
        let limit = if chain.limit_angle.is_nan() || chain.limit_angle < 0.0 {
            PI
        } else {
            chain.limit_angle
        };
        for _ in 0..chain.loops.min(MAX_IK_LOOPS) {
            // Checked before the first step too, so a pose whose effector
            // already sits on its goal (e.g. the rest pose) stays untouched.
            if position(&s.world[chain.target]).distance(goal) < IK_TOLERANCE {
                break;
            }
            for link in &chain.links {
                if link.bone == chain.target {
                    continue;
                }
                let effector = position(&s.world[chain.target]);
                let to_local = s.world[link.bone].inverse();
                let e = to_local.transform_point3(effector);
                let g = to_local.transform_point3(goal);
                if rotate_link(s, link, e, g, limit) {
                    self.update_from(s, self.rank[link.bone]);
                }
            }
        }
    }
}

/// Folds an inherited rotation/translation into a bone's own.
fn apply_inherit(inherit: &Inherit, s: &State, rotation: &mut Quat, translation: &mut Vec3) {
    if inherit.rotation {
        let source = s.effective_rotation[inherit.source];
        // Shortest arc, so that scaling the angle scales the visible turn.
        let source = if source.w < 0.0 { -source } else { source };
        let (axis, angle) = source.to_axis_angle();
        if angle.abs() > 0.0 && axis.is_finite() {
            *rotation =
                (*rotation * Quat::from_axis_angle(axis, angle * inherit.ratio)).normalize();
        }
    }
    if inherit.translation {
        *translation += s.effective_translation[inherit.source] * inherit.ratio;
    }
}

/// Rotates one link so the effector (`e`, in the link's local frame) turns
/// towards the goal (`g`, same frame), by at most `limit` radians, then
/// applies the link's axis limits. Returns whether the rotation changed.
fn rotate_link(s: &mut State, link: &IkLink, e: Vec3, g: Vec3, limit: f32) -> bool {
    match ccd_step(s.rotation[link.bone], link.limits, e, g, limit) {
        Some(new) => {
            s.rotation[link.bone] = new;
            true
        }
        None => false,
    }
}

fn position(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

/// World position (translation) of each matrix.
pub fn world_positions(world: &[Mat4]) -> Vec<Vec3> {
    world.iter().map(position).collect()
}

/// Global matrices after FK and IK; see [`PoseSolver::solve`]. For many
/// frames of one skeleton, keep a [`PoseSolver`] instead.
pub fn solve_pose(
    skel: &Skeleton,
    local: &[BonePose],
    ik_enabled: &dyn Fn(&str) -> bool,
) -> Vec<Mat4> {
    PoseSolver::new(skel).solve(local, ik_enabled).world
}

/// Global matrices from FK alone (IK off everywhere).
pub fn forward_kinematics(skel: &Skeleton, local: &[BonePose]) -> Vec<Mat4> {
    PoseSolver::new(skel).forward(local).world
}

/// Names a motion uses that the skeleton has no bone for, each once, in
/// first-seen order (exact match on the decoded name).
pub fn unknown_bones<'n>(skel: &Skeleton, names: impl IntoIterator<Item = &'n str>) -> Vec<String> {
    let known: HashSet<&str> = skel.bones.iter().map(|b| b.name.as_str()).collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for name in names {
        if !known.contains(name) && seen.insert(name) {
            out.push(name.to_owned());
        }
    }
    out
}
