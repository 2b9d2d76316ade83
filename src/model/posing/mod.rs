//! MMD's pose rules for a whole [`Model`]: from per-bone motion values and
//! per-morph weights to bone matrices, morphed and skinned vertices,
//! material parameters and UV offsets.
//!
//! Per frame, in this order (the way MMD, and babylon-mmd after it, do it):
//! 1. **Morph weights** expand: a group morph adds `weight × ratio` to each
//!    member (through nested groups, multiplying); a flip morph with weight
//!    `w > 0` applies one member, number `clamp(⌊(n + 1)·w⌋ − 1, 0, n − 1)`,
//!    at that member's ratio (nanoem's reading of PMX 2.1).
//! 2. **Fixed axes** (軸制限): a bone with a fixed axis turns the motion's
//!    rotation onto it (its axis-angle angle, negated when its axis points
//!    away from the fixed axis, about the fixed axis; a zero axis means no
//!    rotation), before anything else uses it.
//!    **Bone morphs** add to the motion's local values: translation
//!    `+= w · t`, rotation `= rotation · slerp(1, r, w)`.
//! 3. **Bones** are posed in deform order: by after-physics flag, then
//!    layer, then parents (and append sources) first. A bone's local
//!    rotation is `ik · (motion · append)` and its translation
//!    `motion + append`, where the **append (付与)** part is the source's
//!    value scaled by the ratio (slerp from identity for rotations, so −1
//!    turns the other way): the source's own append result if it has one,
//!    else its motion value, times its IK rotation; with the *local* flag,
//!    the source's whole world rotation / skinning translation instead.
//!    World = parent world · translate(rest − parent rest + translation) ·
//!    rotate(rotation).
//! 4. **IK** (CCD) runs for a PMX IK bone right after that bone is posed;
//!    for PMD after all bones, in the file's IK order. MMD's rule (see
//!    [`super::ik`]): links from the effector's end to the root, at most
//!    256 loops, stopping within 1e-4 units of the goal; each turn at most
//!    the chain's unit angle × (link index + 1), about the cross product in
//!    the parent's frame; single-axis links turn about that axis alone and
//!    limits reflect in the first half of the loops; Euler limits in the
//!    parent's frame (PMD knees: X only, 0.5°–180°). A chain switched off by
//!    the motion's IK key is skipped. Bones already posed below the chain
//!    are posed again. Two chains that share no value (both legs, both
//!    toes) are solved side by side ([`super::ik_pairs`]), with the same
//!    result bit for bit.
//! 5. **Vertex, UV and material morphs** apply; then **skinning**
//!    ([`super::skin`]).
//!
//! Physics sits between steps 3 and 4 of a frame when the caller wants it
//! ([`super::PoseEngine`] with physics on): [`Poser::pose_before_physics`]
//! poses every bone without the after-physics flag, the world steps and
//! writes its bones, then [`Poser::pose_after_physics`] poses the rest.
//! [`Poser::pose_bones`] runs both halves with nothing between (bones
//! driven by rigid bodies keep their animated pose).

use glam::{Mat4, Quat, Vec3, Vec4};

use super::data::{Model, MorphKind};
use super::deform_schedule::{DeformPlan, Step, deform_plan};
use super::ik_pairs::pair_ik_steps;
use super::material_morph::MaterialMorphs;
pub use super::material_morph::MaterialState;
use super::skin::SkinPlan;

mod ik_solve;
mod morphs;

use ik_solve::{IkLane, PlannedLink, planned_links};
pub(crate) use morphs::expand_morphs;

/// Upper bound on CCD iterations per chain, whatever the model says.
const MAX_LOOPS: u32 = 256;
/// Upper bound on link turns (loops × links × path length) per chain and
/// frame, so a hostile chain of thousands of links cannot stall a frame.
const MAX_IK_WORK: usize = 200_000;
/// "No parent" in [`Poser`]'s parent links.
const NO_PARENT: u32 = u32::MAX;
/// Group morphs nested deeper than this are ignored (a cycle guard).
const MAX_MORPH_DEPTH: usize = 16;

/// What drives one frame: local bone values from the motion, morph weights
/// and IK switches. Indices follow the model (`bones[i]` is bone `i`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PoseInput {
    /// Offset from the rest position, in the parent's frame (model units).
    pub translations: Vec<Vec3>,
    /// Local rotation (MMD left-handed, as VMD stores it).
    pub rotations: Vec<Quat>,
    /// Weight of each morph (usually 0..1).
    pub morphs: Vec<f32>,
    /// Whether each IK chain (in `Model::skeleton.iks` order) is on.
    pub ik: Vec<bool>,
}

impl PoseInput {
    /// The rest pose: no offsets, no rotations, no morphs, every IK on.
    pub fn rest(model: &Model) -> PoseInput {
        let mut input = PoseInput::default();
        input.reset(model);
        input
    }

    /// Back to the rest pose, sized for `model`, keeping the allocations.
    pub fn reset(&mut self, model: &Model) {
        let n = model.skeleton.bones.len();
        self.translations.clear();
        self.translations.resize(n, Vec3::ZERO);
        self.rotations.clear();
        self.rotations.resize(n, Quat::IDENTITY);
        self.morphs.clear();
        self.morphs.resize(model.morphs.len(), 0.0);
        self.ik.clear();
        self.ik.resize(model.skeleton.iks.len(), true);
    }
}

/// A posed model: everything a renderer draws for one frame. Buffers are
/// reused from frame to frame by [`Poser::evaluate`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Posed {
    /// Bone-local → model space, per bone. At the rest pose this is a
    /// translation to the bone's rest position.
    pub bone_world: Vec<Mat4>,
    /// Skinning matrix per bone: `bone_world · translate(−rest position)`
    /// (identity at the rest pose).
    pub skinning: Vec<Mat4>,
    /// Each bone's final local rotation (motion, append, morph and IK).
    pub local_rotations: Vec<Quat>,
    /// The weight each morph is applied with, after group and flip morphs.
    pub applied_morphs: Vec<f32>,
    /// Whether each IK chain was solved this frame.
    pub ik_enabled: Vec<bool>,
    /// Vertex positions after vertex morphs and skinning (model units).
    pub positions: Vec<Vec3>,
    /// Unit vertex normals after skinning.
    pub normals: Vec<Vec3>,
    /// Main UV offset per vertex from UV morphs (x, y used; add to `uvs`).
    pub uv_offsets: Vec<Vec4>,
    /// Additional UV offsets, `[channel][vertex]`.
    pub additional_uv_offsets: Vec<Vec<Vec4>>,
    /// Whether any UV morph is active (else all offsets are zero).
    pub uv_morphed: bool,
    /// Material parameters after material morphs, per material.
    pub materials: Vec<MaterialState>,
}

impl Posed {
    /// World position of bone `i` (its head), model units.
    pub fn bone_position(&self, i: usize) -> Option<Vec3> {
        self.bone_world.get(i).map(|m| m.w_axis.truncate())
    }

    /// World rotation of bone `i`.
    pub fn bone_rotation(&self, i: usize) -> Option<Quat> {
        self.bone_world
            .get(i)
            .map(|m| Quat::from_mat4(m).normalize())
    }
}

/// The schedule with independent IK steps paired (see
/// [`super::ik_pairs`]), its physics split and, per IK chain, the bones
/// its step poses again (`ik_repose` is per step of `schedule`).
fn paired_schedule(
    model: &Model,
    schedule: &[Step],
    physics_split: usize,
    chain_paths: &[Vec<usize>],
    ik_repose: &[Vec<usize>],
) -> (Vec<Step>, usize, Vec<Vec<usize>>) {
    let mut per_chain = vec![Vec::new(); model.skeleton.iks.len()];
    for (step, list) in schedule.iter().zip(ik_repose) {
        if let Step::Ik(c) = *step {
            per_chain[c].clone_from(list);
        }
    }
    let (paired, split) = pair_ik_steps(model, schedule, physics_split, chain_paths, ik_repose);
    (paired, split, per_chain)
}

/// Evaluates [`PoseInput`]s for one model. Build once per model with
/// [`Poser::new`]; [`Poser::evaluate`] then reuses its buffers. Passing a
/// different model than the one it was built for gives meaningless (but
/// safe) results.
#[derive(Debug, Clone)]
pub struct Poser {
    input: PoseInput,
    schedule: Vec<Step>,
    /// Schedule position of the first after-physics bone (the schedule's
    /// length when there is none).
    physics_split: usize,
    /// Per IK chain: the bones from its top link down to the effector, in
    /// order (recomputed after each link turns).
    chain_paths: Vec<Vec<usize>>,
    /// Per IK chain: the bones to pose again after the chain is solved, in
    /// deform order — those posed before its step, from the chain's top
    /// link on, whose values can depend on the chain (its links and path,
    /// their children and append targets, transitively). Posing any other
    /// bone again would give it the same values bit for bit.
    ik_repose: Vec<Vec<usize>>,
    /// Whether each bone is a link of some chain.
    is_link: Vec<bool>,
    /// Per IK chain, per link: what the CCD loops need of it.
    chain_links: Vec<Vec<PlannedLink>>,
    /// Bones with a fixed axis (軸制限) and that axis, unit length, or zero
    /// for "no rotation".
    fixed_axes: Vec<(usize, Vec3)>,
    skin: SkinPlan,
    /// Per bone: its parent ([`NO_PARENT`] for none) and rest offset, as
    /// [`parent_link`] gives them (what each world matrix reads).
    parent_links: Vec<(u32, Vec3)>,
    /// Per IK chain: whether its effector is the last bone of its path and
    /// no path bone or link hangs from it (a link's parent frame is read
    /// whole), so that the CCD loops need only its translation (the rest of
    /// its matrix is computed once the chain is solved).
    lazy_effector: Vec<bool>,
    /// Where the model stands in the scene (see [`Poser::set_placement`])
    /// and its inverse; `None`: at the origin, unturned.
    placement: Option<(Mat4, Mat4)>,
    // Per-frame scratch.
    anim_t: Vec<Vec3>,
    anim_r: Vec<Quat>,
    append_t: Vec<Vec3>,
    append_r: Vec<Quat>,
    ik_r: Vec<Quat>,
    local_t: Vec<Vec3>,
    /// The scratch of the chains being solved: lane 0 for a chain alone or
    /// the first of a pair, lane 1 for the second.
    ik_lanes: [IkLane; 2],
    morphed_positions: Vec<Vec3>,
    /// Material morph factors, reused frame to frame.
    materials: MaterialMorphs,
}

impl Poser {
    /// Prepares the deform order, IK paths and skinning tables for `model`.
    pub fn new(model: &Model) -> Poser {
        let skel = &model.skeleton;
        let DeformPlan {
            schedule,
            rank,
            physics_split,
            chain_paths,
            ik_repose,
            is_link,
        } = deform_plan(model);
        let (schedule, physics_split, ik_repose) =
            paired_schedule(model, &schedule, physics_split, &chain_paths, &ik_repose);
        let chain_links = skel
            .iks
            .iter()
            .zip(&chain_paths)
            .map(|(chain, path)| planned_links(model, chain, path, &rank))
            .collect();
        let fixed_axes = skel
            .bones
            .iter()
            .enumerate()
            .filter_map(|(i, b)| {
                let axis = b.fixed_axis.filter(|a| a.is_finite())?;
                Some((i, axis.try_normalize().unwrap_or(Vec3::ZERO)))
            })
            .collect();
        let lazy_effector = skel
            .iks
            .iter()
            .zip(&chain_paths)
            .map(|(chain, path)| {
                let hangs_from_target = |x: usize| {
                    x >= skel.bones.len() || parent_link(model, x).0 == Some(chain.target)
                };
                path.last() == Some(&chain.target)
                    && !path.iter().any(|&x| hangs_from_target(x))
                    && !chain.links.iter().any(|l| hangs_from_target(l.bone))
            })
            .collect();
        Poser {
            input: PoseInput::rest(model),
            schedule,
            physics_split,
            chain_paths,
            ik_repose,
            is_link,
            chain_links,
            fixed_axes,
            skin: SkinPlan::new(model),
            parent_links: (0..skel.bones.len())
                .map(|b| {
                    let (p, d) = parent_link(model, b);
                    (
                        p.and_then(|p| u32::try_from(p).ok()).unwrap_or(NO_PARENT),
                        d,
                    )
                })
                .collect(),
            placement: None,
            lazy_effector,
            anim_t: Vec::new(),
            anim_r: Vec::new(),
            append_t: Vec::new(),
            append_r: Vec::new(),
            ik_r: Vec::new(),
            local_t: Vec::new(),
            ik_lanes: Default::default(),
            morphed_positions: Vec::new(),
            materials: MaterialMorphs::default(),
        }
    }

    /// Places the whole model in the scene: every bone without a parent
    /// hangs from `placement` (as from MMD's outside parent of the model's
    /// root), so bone matrices, skinned vertices, IK goals and the physics
    /// world's bodies are all in scene space. A local append reads its
    /// source relative to the placement, so it gives the same local values
    /// wherever the model stands. `None` (or a matrix that is not finite
    /// and invertible): at the origin.
    pub fn set_placement(&mut self, placement: Option<Mat4>) {
        self.placement = placement
            .filter(|m| *m != Mat4::IDENTITY && m.is_finite())
            .and_then(|m| {
                let inv = m.inverse();
                (inv.is_finite() && m.determinant().abs() > 1e-12).then_some((m, inv))
            });
    }

    /// The placement [`set_placement`](Self::set_placement) set (`None`: the
    /// origin).
    pub fn placement(&self) -> Option<Mat4> {
        self.placement.map(|(m, _)| m)
    }

    /// The input the next evaluation uses.
    pub fn input(&self) -> &PoseInput {
        &self.input
    }

    /// The input to fill for the next evaluation (see
    /// [`super::MotionBinding::sample`]).
    pub fn input_mut(&mut self) -> &mut PoseInput {
        &mut self.input
    }

    /// Poses bones, applies morphs and skins every vertex into `out`.
    pub fn evaluate(&mut self, model: &Model, out: &mut Posed) {
        self.pose_bones(model, out);
        self.morph_and_skin(model, out);
    }

    /// Step 5 after the bones are posed: vertex, UV and material morphs,
    /// then skinning with `out`'s bone matrices (what
    /// [`evaluate`](Self::evaluate) does after
    /// [`pose_bones`](Self::pose_bones); the physics path calls it after
    /// [`pose_after_physics`](Self::pose_after_physics)).
    pub fn morph_and_skin(&mut self, model: &Model, out: &mut Posed) {
        self.apply_morphs(model, out);
        let positions: &[Vec3] = if self.morphed_positions.is_empty() {
            &model.positions
        } else {
            &self.morphed_positions
        };
        self.skin.skin(
            positions,
            &model.normals,
            &out.skinning,
            &out.bone_world,
            &mut out.positions,
            &mut out.normals,
        );
    }

    /// Poses the bones only (steps 1–4): `bone_world`, `skinning`,
    /// `local_rotations`, `applied_morphs` and `ik_enabled` of `out`.
    pub fn pose_bones(&mut self, model: &Model, out: &mut Posed) {
        self.pose_before_physics(model, out);
        self.pose_after_physics(model, out);
    }

    /// The first half of [`pose_bones`](Self::pose_bones): morph weights,
    /// then the bones that deform before physics (every bone without the
    /// after-physics flag, their IK and append; a PMD's IK chains). Leaves
    /// `out.skinning` stale: finish with
    /// [`pose_after_physics`](Self::pose_after_physics) (after the physics
    /// world has written its bones into `out.bone_world`).
    pub fn pose_before_physics(&mut self, model: &Model, out: &mut Posed) {
        let skel = &model.skeleton;
        let n = skel.bones.len();
        if self.input.translations.len() != n
            || self.input.rotations.len() != n
            || self.input.morphs.len() != model.morphs.len()
            || self.input.ik.len() != skel.iks.len()
        {
            // An input sized for another model: start from rest rather
            // than index out of bounds.
            self.input.reset(model);
        }
        expand_morphs(model, &self.input.morphs, &mut out.applied_morphs);

        // A non-finite motion value (a broken file) counts as rest. Every
        // entry is written (the input has one per bone).
        self.anim_t.resize(n, Vec3::ZERO);
        self.anim_r.resize(n, Quat::IDENTITY);
        let motion = self.input.translations.iter().zip(&self.input.rotations);
        for ((t, r), (mt, mr)) in self.anim_t.iter_mut().zip(&mut self.anim_r).zip(motion) {
            *t = if mt.is_finite() { *mt } else { Vec3::ZERO };
            *r = safe_normalize(*mr);
        }
        for &(b, axis) in &self.fixed_axes {
            self.anim_r[b] = onto_fixed_axis(self.anim_r[b], axis);
        }
        for (m, morph) in model.morphs.iter().enumerate() {
            let w = out.applied_morphs[m];
            if w == 0.0 {
                continue;
            }
            if let MorphKind::Bone(list) = &morph.kind {
                for o in list {
                    self.anim_t[o.bone] += o.translation * w;
                    self.anim_r[o.bone] =
                        (self.anim_r[o.bone] * scale_rotation(o.rotation, w)).normalize();
                }
            }
        }
        reset(&mut self.append_t, n, Vec3::ZERO);
        reset(&mut self.append_r, n, Quat::IDENTITY);
        reset(&mut self.ik_r, n, Quat::IDENTITY);
        reset(&mut self.local_t, n, Vec3::ZERO);
        reset(&mut out.local_rotations, n, Quat::IDENTITY);
        out.bone_world.clear();
        match self.placement {
            None => out.bone_world.extend(
                skel.bones
                    .iter()
                    .map(|b| Mat4::from_translation(b.rest_position)),
            ),
            Some((p, _)) => out.bone_world.extend(
                skel.bones
                    .iter()
                    .map(|b| p * Mat4::from_translation(b.rest_position)),
            ),
        }
        out.ik_enabled.clear();
        out.ik_enabled.extend_from_slice(&self.input.ik);

        self.run_schedule(model, 0, self.physics_split, out);
    }

    /// The second half of [`pose_bones`](Self::pose_bones): the bones with
    /// the after-physics flag (with their IK and append), posed from
    /// `out.bone_world` as it stands (the physics world's result for the
    /// bones it drives), then every skinning matrix.
    pub fn pose_after_physics(&mut self, model: &Model, out: &mut Posed) {
        let skel = &model.skeleton;
        let n = skel.bones.len();
        if out.bone_world.len() != n || self.append_r.len() != n {
            // Not preceded by pose_before_physics for this model.
            self.pose_before_physics(model, out);
        }
        self.run_schedule(model, self.physics_split, self.schedule.len(), out);
        out.skinning.clear();
        out.skinning.extend(
            out.bone_world
                .iter()
                .zip(&skel.bones)
                .map(|(w, b)| *w * Mat4::from_translation(-b.rest_position)),
        );
    }

    /// Runs schedule steps `from..to`.
    fn run_schedule(&mut self, model: &Model, from: usize, to: usize, out: &mut Posed) {
        for s in from..to {
            match self.schedule[s] {
                Step::Bone(b) => self.pose_bone(model, b, out),
                Step::Ik(c) => {
                    if out.ik_enabled[c] {
                        self.solve_chain(model, c, out);
                        self.repose_after(model, c, out);
                    }
                }
                Step::IkPair(a, b) => match (out.ik_enabled[a], out.ik_enabled[b]) {
                    (true, true) => {
                        self.solve_pair(model, a, b, out);
                        self.repose_after(model, a, out);
                        self.repose_after(model, b, out);
                    }
                    (true, false) => {
                        self.solve_chain(model, a, out);
                        self.repose_after(model, a, out);
                    }
                    (false, true) => {
                        self.solve_chain(model, b, out);
                        self.repose_after(model, b, out);
                    }
                    (false, false) => {}
                },
            }
        }
    }

    /// Re-poses what was posed below chain `c`'s top link and depends on it.
    fn repose_after(&mut self, model: &Model, c: usize, out: &mut Posed) {
        for k in 0..self.ik_repose[c].len() {
            let b = self.ik_repose[c][k];
            self.pose_bone(model, b, out);
        }
    }

    /// Computes bone `b`'s local transform (append included) and world.
    fn pose_bone(&mut self, model: &Model, b: usize, out: &mut Posed) {
        let bones = &model.skeleton.bones;
        let bone = &bones[b];
        let mut rotation = self.anim_r[b];
        let mut translation = self.anim_t[b];
        if let Some(inh) = bone.inherit.filter(|h| h.source < bones.len()) {
            let src = inh.source;
            if inh.rotation {
                let base = if inh.local {
                    Quat::from_mat4(&self.unplaced(out.bone_world[src])).normalize()
                } else {
                    let own = if bones[src].inherit.is_some_and(|h| h.rotation) {
                        self.append_r[src]
                    } else {
                        self.anim_r[src]
                    };
                    if self.is_link[src] {
                        self.ik_r[src] * own
                    } else {
                        own
                    }
                };
                rotation = (rotation * scale_rotation(base, inh.ratio)).normalize();
            }
            if inh.translation {
                let base = if inh.local {
                    self.unplaced(out.bone_world[src])
                        .transform_point3(-bones[src].rest_position)
                } else if bones[src].inherit.is_some_and(|h| h.translation) {
                    self.append_t[src]
                } else {
                    self.anim_t[src]
                };
                translation += base * inh.ratio;
            }
        }
        self.append_r[b] = rotation;
        self.append_t[b] = translation;
        let local_r = (self.ik_r[b] * rotation).normalize();
        out.local_rotations[b] = local_r;
        self.local_t[b] = translation;
        self.update_world(model, b, out);
    }

    /// `world` relative to the model's placement (itself when unplaced).
    fn unplaced(&self, world: Mat4) -> Mat4 {
        match self.placement {
            None => world,
            Some((_, inv)) => inv * world,
        }
    }

    /// World matrix of `b` from its parent's and its local values.
    #[inline]
    fn update_world(&self, model: &Model, b: usize, out: &mut Posed) {
        let (parent, offset) = self.parent_offset(model, b);
        let local = Mat4::from_rotation_translation(out.local_rotations[b], offset);
        out.bone_world[b] = self.parent_matrix(parent, out) * local;
    }

    /// `b`'s parent as posing reads it (`None`: a root) and its offset in
    /// the parent's frame (rest offset + local translation). The parent and
    /// rest offset are planned in `Poser::new` (a model with more bones
    /// than planned reads them from the model).
    #[inline]
    fn parent_offset(&self, model: &Model, b: usize) -> (Option<usize>, Vec3) {
        let (parent, rest_offset) = match self.parent_links.get(b) {
            Some(&(p, d)) => ((p != NO_PARENT).then_some(p as usize), d),
            None => parent_link(model, b),
        };
        (parent, rest_offset + self.local_t[b])
    }

    /// The world matrix a bone with `parent` hangs from: the parent's (a
    /// root hangs from the placement, the identity at the origin).
    #[inline]
    fn parent_matrix(&self, parent: Option<usize>, out: &Posed) -> Mat4 {
        match (parent, &self.placement) {
            (Some(p), _) => out.bone_world[p],
            (None, None) => Mat4::IDENTITY,
            (None, Some((m, _))) => *m,
        }
    }
}

/// `slerp(identity, q, t)` along the shortest arc, for any `t` (negative
/// turns the other way; −1 gives the inverse).
pub(crate) fn scale_rotation(q: Quat, t: f32) -> Quat {
    if t == 1.0 {
        return q;
    }
    let q = if q.w < 0.0 { -q } else { q };
    let (axis, angle) = q.to_axis_angle();
    if angle.abs() < 1e-9 || !axis.is_finite() {
        return Quat::IDENTITY;
    }
    Quat::from_axis_angle(axis, angle * t)
}

/// A motion's rotation on a bone with a fixed axis, by MMD's rule: the
/// rotation's axis-angle angle (negated when its axis points away from the
/// fixed axis) about the fixed `axis` (unit length; zero means no rotation).
/// Not a swing–twist split: the whole angle is kept.
pub(crate) fn onto_fixed_axis(q: Quat, axis: Vec3) -> Quat {
    let v = q.xyz();
    let len = v.length();
    if axis == Vec3::ZERO || len < 1e-8 || !len.is_finite() {
        return Quat::IDENTITY;
    }
    let angle = 2.0 * len.atan2(q.w);
    let angle = if v.dot(axis) < 0.0 { -angle } else { angle };
    Quat::from_axis_angle(axis, angle)
}

/// Bone `b`'s parent as posing reads it and its rest offset from that
/// parent (`rest − parent rest`; from the origin without one). A parent
/// posed later (a cycle, or a lower layer) counts as posed at rest for
/// this bone, so every frame is computed the same way.
fn parent_link(model: &Model, b: usize) -> (Option<usize>, Vec3) {
    let bones = &model.skeleton.bones;
    let bone = &bones[b];
    let parent = bone.parent.filter(|&p| p < bones.len() && p != b);
    let prest = parent.map_or(Vec3::ZERO, |p| bones[p].rest_position);
    (parent, bone.rest_position - prest)
}

fn safe_normalize(q: Quat) -> Quat {
    let l = q.length_squared();
    if l > 1e-12 && l.is_finite() {
        q / l.sqrt()
    } else {
        Quat::IDENTITY
    }
}

fn reset<T: Clone>(v: &mut Vec<T>, n: usize, value: T) {
    v.clear();
    v.resize(n, value);
}
