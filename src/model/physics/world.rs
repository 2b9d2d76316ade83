//! The stepped world: rapier bodies, colliders and joints built from a
//! [`WorldSetup`], kinematic bodies moved to their bones, dynamic bodies
//! written back to them.

use std::ops::Range;

use glam::{Mat4, Quat, Vec3};
use rapier3d::geometry::SolverFlags;
use rapier3d::pipeline::{ActiveHooks, PairFilterContext, PhysicsHooks};
use rapier3d::prelude::{RigidBodyHandle, RigidBodyType, Vector};

use super::actors::{ActorSpan, join};
use super::bodies::{BuiltBodies, GROUND_ACTOR, insert_bodies, rapier_world};
use super::joints::{Lock, Spring, WorldJoints, clamp_rotation, insert_joints};
use super::pose::{from_pose, split, to_pose};
use super::setup::{WorldSetup, in_world, world_setup};
use super::{
    BLOWUP_DISTANCE, MAX_STEPS_PER_CALL, PROJECTION_TOLERANCE, SETTLE_STEPS, STEP, StepReport,
};
use crate::model::data::Model;

/// Keeps apart the bodies of different actors: consulted only for colliders
/// flagged with [`ActiveHooks::FILTER_CONTACT_PAIRS`] (set while actors
/// collide only with their own bodies).
struct ActorFilter;

impl PhysicsHooks for ActorFilter {
    fn filter_contact_pair(&self, c: &PairFilterContext) -> Option<SolverFlags> {
        let a = c.colliders.get(c.collider1)?.user_data;
        let b = c.colliders.get(c.collider2)?.user_data;
        (a == b || a == GROUND_ACTOR || b == GROUND_ACTOR)
            .then_some(SolverFlags::COMPUTE_RIGID_IMPULSES)
    }
}

/// The simulated world of one model. Build with [`PhysicsWorld::new`], then
/// per frame [`step`](Self::step) and [`write_back`](Self::write_back).
pub struct PhysicsWorld {
    world: rapier3d::prelude::PhysicsWorld,
    setup: WorldSetup,
    handles: Vec<RigidBodyHandle>,
    /// Inverse of each body's offset from its bone.
    offset_inv: Vec<Mat4>,
    /// Per body: whether it is kinematic right now.
    kinematic: Vec<bool>,
    /// Per body: the kinematic target of the last step.
    last_target: Vec<(Quat, Vec3)>,
    /// Scratch for the next call's targets (kept to avoid an allocation a
    /// frame).
    next_target: Vec<(Quat, Vec3)>,
    /// Per bone: the body that writes it.
    driver: Vec<Option<usize>>,
    parents: Vec<Option<usize>>,
    /// Bones parents first.
    order: Vec<usize>,
    /// Per bone: physics switched off by the motion.
    physics_off: Vec<bool>,
    accumulator: f32,
    /// Each actor's bones and bodies in the joined lists (one actor for
    /// [`PhysicsWorld::new`]).
    spans: Vec<ActorSpan>,
    /// Whether bodies of different actors may collide (by their groups and
    /// masks, as within one actor).
    collide_across: bool,
    /// The joints' springs, applied as impulses before each step.
    springs: Vec<Spring>,
    /// Joints with translation locked, in the model's order.
    locks: Vec<Lock>,
    /// Projection order: (lock, child is body B), parents first; rebuilt
    /// whenever a body turns kinematic or dynamic.
    projection: Vec<(usize, bool)>,
    /// Bodies moved by projection since the last [`step`](Self::step) began.
    projected: u32,
    /// Whether joint projection runs (on unless switched off to measure
    /// what the solver does alone).
    projection_on: bool,
    // Scratch for write_back.
    before: Vec<Mat4>,
    changed: Vec<bool>,
}

impl std::fmt::Debug for PhysicsWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhysicsWorld")
            .field("bodies", &self.setup.bodies.len())
            .field("joints", &self.setup.joints.len())
            .finish()
    }
}

impl PhysicsWorld {
    /// Builds the world of `model` at its bind pose (call
    /// [`reset`](Self::reset) with the first frame's bones before stepping).
    /// Problems are listed in [`warnings`](Self::warnings); this never fails.
    pub fn new(model: &Model) -> PhysicsWorld {
        Self::from_setup(model, world_setup(model))
    }

    /// Builds the world from an already read setup (same model).
    pub fn from_setup(model: &Model, setup: WorldSetup) -> PhysicsWorld {
        let spans = vec![ActorSpan {
            bones: 0..model.skeleton.bones.len(),
            bodies: 0..setup.bodies.len(),
        }];
        Self::build(model, setup, spans)
    }

    /// One world for several actors (issue 21: several actors, one world).
    /// Bones, bodies and joints are joined actor after actor: the bone
    /// matrices given to [`step`](Self::step), [`reset`](Self::reset) and
    /// [`write_back`](Self::write_back) hold each actor's bones in turn
    /// ([`actor_bones`](Self::actor_bones) says where). Each actor's bodies
    /// collide only with its own (and the ground) until
    /// [`set_collide_across_actors`](Self::set_collide_across_actors)
    /// allows more. Warnings start with `actor N: ` (1-based) when there is
    /// more than one actor; body indices in [`setup`](Self::setup) stay those
    /// of each actor's model.
    pub fn with_actors(models: &[&Model]) -> PhysicsWorld {
        if let [model] = models {
            return Self::new(model);
        }
        let (joined, spans, warnings) = join(models);
        let mut setup = world_setup(&joined);
        setup.warnings = warnings;
        for span in &spans {
            for b in &mut setup.bodies[span.bodies.clone()] {
                b.index -= span.bodies.start;
            }
        }
        Self::build(&joined, setup, spans)
    }

    /// How many actors share the world.
    pub fn actor_count(&self) -> usize {
        self.spans.len()
    }

    /// Where actor `actor`'s bones sit in the bone matrices this world
    /// takes.
    pub fn actor_bones(&self, actor: usize) -> Option<Range<usize>> {
        self.spans.get(actor).map(|s| s.bones.clone())
    }

    /// Where actor `actor`'s bodies sit in [`setup`](Self::setup)`.bodies`
    /// (and in [`body_pose`](Self::body_pose)'s numbering).
    pub fn actor_bodies(&self, actor: usize) -> Option<Range<usize>> {
        self.spans.get(actor).map(|s| s.bodies.clone())
    }

    /// Whether bodies of different actors collide (off by default).
    pub fn collides_across_actors(&self) -> bool {
        self.collide_across
    }

    /// Lets bodies of different actors collide, by their groups and masks
    /// as within one actor (`true`), or keeps each actor to its own bodies.
    pub fn set_collide_across_actors(&mut self, on: bool) {
        self.collide_across = on;
        let hooks = Self::hooks_for(self.spans.len(), on);
        for &h in &self.handles {
            let colliders: Vec<_> = self
                .world
                .bodies
                .get(h)
                .map(|b| b.colliders().to_vec())
                .unwrap_or_default();
            for c in colliders {
                if let Some(c) = self.world.colliders.get_mut(c) {
                    c.set_active_hooks(hooks);
                }
            }
        }
    }

    fn hooks_for(actors: usize, across: bool) -> ActiveHooks {
        if actors > 1 && !across {
            ActiveHooks::FILTER_CONTACT_PAIRS
        } else {
            ActiveHooks::empty()
        }
    }

    /// One fixed step of the rapier world, actors kept apart as set.
    fn advance(&mut self) {
        self.apply_springs();
        self.world.step_with_events(&ActorFilter, &());
        self.project();
    }

    /// Orders the locked joints for projection: a spanning forest grown
    /// from the kinematic bodies. A joint joins when one of its bodies is
    /// already placed (kinematic or projected earlier) and the other is a
    /// dynamic body not yet placed; that body becomes the joint's child and
    /// is placed. Each dynamic body is thus projected at most once per
    /// step, through its first locked joint (model order, nearest the root
    /// first); joints whose two bodies are both placed would close a loop
    /// and are left to the solver, as are dynamic bodies not linked to a
    /// kinematic one through locked joints.
    fn order_projection(&mut self) {
        self.projection.clear();
        let mut placed = self.kinematic.clone();
        loop {
            let before = self.projection.len();
            for (k, lock) in self.locks.iter().enumerate() {
                let [a, b] = lock.bodies;
                if placed[a] != placed[b] {
                    let child_is_b = placed[a];
                    placed[if child_is_b { b } else { a }] = true;
                    self.projection.push((k, child_is_b));
                }
            }
            if self.projection.len() == before {
                break;
            }
        }
    }

    /// Joint projection after a step: walks [`order_projection`]'s
    /// joints parents first and moves each child body by its anchor error
    /// when that exceeds [`PROJECTION_TOLERANCE`] (position only; rotation
    /// and velocity stay the solver's).
    ///
    /// [`order_projection`]: Self::order_projection
    fn project(&mut self) {
        if !self.projection_on {
            return;
        }
        for &(k, child_is_b) in &self.projection {
            let lock = &self.locks[k];
            let [a, b] = lock.bodies;
            let Some([(qa, ta, wa, anchor_a), (qb, tb, wb, _)]) =
                self.joint_frames(lock.bodies, &lock.frames)
            else {
                continue;
            };
            let (fa, pa) = lock.frames[0];
            let (fb, pb) = lock.frames[1];
            let held = anchor_a + wa * lock.offset;
            let error = tb + qb * pb - held;
            let gap = error.length();
            let rel = clamp_rotation(wa.conjugate() * wb, &lock.angular);
            if !gap.is_finite() || (gap <= PROJECTION_TOLERANCE && rel.is_none()) {
                continue;
            }
            // The child's new pose: its rotation brought within the limits
            // (when it was out by more than the angular tolerance), then
            // placed so that its anchor sits where the parent holds it.
            let (child, q, t) = match (child_is_b, rel) {
                (true, None) => (b, qb, tb - error),
                (false, None) => (a, qa, ta + error),
                (true, Some(rel)) => {
                    let q = (wa * rel * fb.conjugate()).normalize();
                    (b, q, held - q * pb)
                }
                (false, Some(rel)) => {
                    let w = wb * rel.conjugate();
                    let q = (w * fa.conjugate()).normalize();
                    let anchor = tb + qb * pb - w * lock.offset;
                    (a, q, anchor - q * pa)
                }
            };
            if !(q.is_finite() && t.is_finite()) {
                continue;
            }
            if let Some(body) = self.world.bodies.get_mut(self.handles[child]) {
                body.set_position(to_pose(q, t), false);
                self.projected += 1;
            }
        }
    }

    /// A joint's frame as each of its two bodies carries it now: per body
    /// its rotation, translation, the joint frame's world rotation and the
    /// anchor's world point (`frames`: the joint frame in each body's frame).
    /// `None` when a body is gone.
    #[allow(clippy::type_complexity)]
    fn joint_frames(
        &self,
        bodies: [usize; 2],
        frames: &[(Quat, Vec3); 2],
    ) -> Option<[(Quat, Vec3, Quat, Vec3); 2]> {
        let one = |k: usize| {
            let body = self.world.bodies.get(*self.handles.get(bodies[k])?)?;
            let (q, t) = from_pose(body.position());
            let (f, p) = frames[k];
            Some((q, t, q * f, t + q * p))
        };
        Some([one(0)?, one(1)?])
    }

    /// Body `i`'s angular velocity (world), zero when gone.
    fn angvel(&self, i: usize) -> Vec3 {
        let body = self.handles.get(i).and_then(|&h| self.world.bodies.get(h));
        body.map_or(Vec3::ZERO, |b| {
            let w = b.angvel();
            Vec3::new(w.x, w.y, w.z)
        })
    }

    /// Body `i`'s inverse inertia about the unit world axis `n`; 0 for a
    /// kinematic or missing body.
    fn axis_inv_inertia(&self, i: usize, n: Vec3) -> f32 {
        if self.kinematic.get(i).copied().unwrap_or(true) {
            return 0.0;
        }
        let body = self.handles.get(i).and_then(|&h| self.world.bodies.get(h));
        body.map_or(0.0, |b| {
            let m = &b.mass_properties().effective_world_inv_inertia;
            m.m11 * n.x * n.x
                + m.m22 * n.y * n.y
                + m.m33 * n.z * n.z
                + 2.0 * (m.m12 * n.x * n.y + m.m13 * n.x * n.z + m.m23 * n.y * n.z)
        })
    }

    /// One step's spring impulses (see [`Spring`]).
    fn apply_springs(&mut self) {
        for s in &self.springs {
            let [a, b] = s.bodies;
            let Some([(_, _, wa, anchor_a), (_, _, wb, anchor_b)]) =
                self.joint_frames(s.bodies, &s.frames)
            else {
                continue;
            };
            let spin = self.angvel(b) - self.angvel(a);
            let inv_inertia = |n: Vec3| self.axis_inv_inertia(a, n) + self.axis_inv_inertia(b, n);
            let torque = s.angular_impulse(wa, wb, spin, inv_inertia, STEP);
            let force = wa * (-(s.linear * (wa.conjugate() * (anchor_b - anchor_a))) * STEP);
            if !(torque.is_finite() && force.is_finite()) {
                continue;
            }
            let to = |v: Vec3| Vector::new(v.x, v.y, v.z);
            if !self.kinematic[b]
                && let Some(body) = self.world.bodies.get_mut(self.handles[b])
            {
                body.apply_torque_impulse(to(torque), false);
                body.apply_impulse_at_point(to(force), to(anchor_b), false);
            }
            if !self.kinematic[a]
                && let Some(body) = self.world.bodies.get_mut(self.handles[a])
            {
                body.apply_torque_impulse(to(-torque), false);
                body.apply_impulse_at_point(to(-force), to(anchor_a), false);
            }
        }
    }

    /// Builds the world of `setup` (the joined `model` of `spans`' actors).
    fn build(model: &Model, setup: WorldSetup, spans: Vec<ActorSpan>) -> PhysicsWorld {
        let mut world = rapier_world();
        let hooks = Self::hooks_for(spans.len(), false);
        let BuiltBodies {
            handles,
            offset_inv,
            kinematic,
            last_target,
        } = insert_bodies(&mut world, &setup, &spans, hooks);
        let WorldJoints { springs, locks } = insert_joints(&mut world, &setup, &handles);

        let bones = &model.skeleton.bones;
        let driver = bone_drivers(&setup, bones.len());
        let mut built = PhysicsWorld {
            world,
            handles,
            offset_inv,
            kinematic,
            last_target,
            next_target: Vec::new(),
            driver,
            parents: bones
                .iter()
                .map(|b| b.parent.filter(|&p| p < bones.len()))
                .collect(),
            order: model.skeleton.topological_order(),
            physics_off: vec![false; bones.len()],
            accumulator: 0.0,
            spans,
            collide_across: false,
            springs,
            locks,
            projection: Vec::new(),
            projected: 0,
            projection_on: true,
            before: Vec::new(),
            changed: Vec::new(),
            setup,
        };
        built.order_projection();
        built
    }

    /// Switches joint projection (see [`PROJECTION_TOLERANCE`]) on or off;
    /// on by default. Off leaves translation-locked joints to rapier's
    /// solver alone (for measuring what projection adds).
    pub fn set_projection(&mut self, on: bool) {
        self.projection_on = on;
    }

    /// The bodies and joints as built, with the problems found.
    pub fn setup(&self) -> &WorldSetup {
        &self.setup
    }

    /// What was wrong in the model's bodies and joints, and what was done.
    pub fn warnings(&self) -> &[String] {
        &self.setup.warnings
    }

    /// Per bone, the body that writes it after a step, if any.
    pub fn driver(&self, bone: usize) -> Option<usize> {
        self.driver.get(bone).copied().flatten()
    }

    /// Body `i`'s rotation and position now (model space).
    pub fn body_pose(&self, i: usize) -> Option<(Quat, Vec3)> {
        let h = *self.handles.get(i)?;
        self.world.bodies.get(h).map(|b| from_pose(b.position()))
    }

    /// Switches physics off (`true`) or on per bone, as the motion's per-key
    /// flag says: a bone with physics off has its bodies follow it. Entries
    /// past the model's bones are ignored; missing ones are on.
    pub fn set_physics_off(&mut self, off: &[bool]) {
        for (i, o) in self.physics_off.iter_mut().enumerate() {
            *o = off.get(i).copied().unwrap_or(false);
        }
    }

    /// Where body `i` belongs given the bones' world matrices: its bone's
    /// matrix times its offset, or its bind pose without a bone (or when
    /// the bone's matrix is missing). A bone pose that would put the body
    /// somewhere not finite or farther than
    /// [`MAX_COORDINATE`](super::setup::MAX_COORDINATE) on an axis
    /// (a huge but finite bone matrix times the offset overflows) leaves
    /// the body where its last target put it, so every target is a point
    /// of the world.
    fn target(&self, i: usize, bone_world: &[Mat4]) -> (Quat, Vec3) {
        let b = &self.setup.bodies[i];
        let Some(bone) = b.bone.and_then(|bone| bone_world.get(bone)) else {
            return split(&b.bind);
        };
        let (q, t) = split(&(*bone * b.offset));
        if in_world(t) && bone.is_finite() {
            (q, t)
        } else {
            self.last_target[i]
        }
    }

    /// Whether body `i` is kinematic under the current physics-off flags.
    fn wants_kinematic(&self, i: usize) -> bool {
        let b = &self.setup.bodies[i];
        !b.mode.is_dynamic() || b.bone.is_some_and(|bone| self.physics_off[bone])
    }

    fn apply_body_types(&mut self) {
        let mut switched = false;
        for i in 0..self.handles.len() {
            let want = self.wants_kinematic(i);
            if want != self.kinematic[i] {
                self.kinematic[i] = want;
                switched = true;
                if let Some(body) = self.world.bodies.get_mut(self.handles[i]) {
                    body.set_body_type(
                        if want {
                            RigidBodyType::KinematicPositionBased
                        } else {
                            RigidBodyType::Dynamic
                        },
                        true,
                    );
                }
            }
        }
        if switched {
            self.order_projection();
        }
    }

    /// Snaps every body to its bone (`bone_world`: model-space bone
    /// matrices before physics) with zero velocity, then settles the world
    /// for [`SETTLE_STEPS`] steps with the bones held still and zeroes the
    /// velocities again. Use on load and on a seek.
    pub fn reset(&mut self, bone_world: &[Mat4]) {
        self.apply_body_types();
        self.snap(bone_world);
        for _ in 0..SETTLE_STEPS {
            for i in 0..self.handles.len() {
                if self.kinematic[i]
                    && let Some(body) = self.world.bodies.get_mut(self.handles[i])
                {
                    let (q, t) = self.last_target[i];
                    body.set_next_kinematic_position(to_pose(q, t));
                }
            }
            self.advance();
        }
        if self.blown_up().is_some() {
            // Even settling blew up: leave the bodies at their bones.
            self.snap(bone_world);
            return;
        }
        for &h in &self.handles {
            if let Some(body) = self.world.bodies.get_mut(h) {
                body.set_linvel(Vector::ZERO, true);
                body.set_angvel(Vector::ZERO, true);
            }
        }
        self.accumulator = 0.0;
    }

    /// Every body to its bone, velocities zero.
    fn snap(&mut self, bone_world: &[Mat4]) {
        for i in 0..self.handles.len() {
            let (q, t) = self.target(i, bone_world);
            self.last_target[i] = (q, t);
            if let Some(body) = self.world.bodies.get_mut(self.handles[i]) {
                body.set_position(to_pose(q, t), true);
                body.set_linvel(Vector::ZERO, true);
                body.set_angvel(Vector::ZERO, true);
                if self.kinematic[i] {
                    body.set_next_kinematic_position(to_pose(q, t));
                }
            }
        }
        self.accumulator = 0.0;
    }

    /// Advances the world by `dt` seconds of the caller's time, in fixed
    /// [`STEP`]s (the remainder carries over to the next call; at most
    /// [`MAX_STEPS_PER_CALL`] steps, the rest is dropped). `bone_world` holds
    /// the bones' model-space matrices before physics; kinematic bodies move
    /// from where the last call put them to there, evenly over the steps.
    /// A world that blows up is reset to the bones and the report names the
    /// body.
    pub fn step(&mut self, bone_world: &[Mat4], dt: f32) -> StepReport {
        self.apply_body_types();
        let dt = if dt.is_finite() && dt > 0.0 { dt } else { 0.0 };
        self.accumulator += dt;
        let mut steps = (self.accumulator / STEP).floor() as u32;
        if steps > MAX_STEPS_PER_CALL {
            steps = MAX_STEPS_PER_CALL;
            self.accumulator = 0.0;
        } else {
            self.accumulator = (self.accumulator - steps as f32 * STEP).max(0.0);
        }
        if steps == 0 {
            return StepReport::default();
        }
        self.projected = 0;
        let mut targets = std::mem::take(&mut self.next_target);
        targets.clear();
        targets.extend((0..self.handles.len()).map(|i| self.target(i, bone_world)));
        for s in 1..=steps {
            let f = s as f32 / steps as f32;
            for (i, &(q1, t1)) in targets.iter().enumerate() {
                if !self.kinematic[i] {
                    continue;
                }
                let (q0, t0) = self.last_target[i];
                if let Some(body) = self.world.bodies.get_mut(self.handles[i]) {
                    body.set_next_kinematic_position(to_pose(q0.slerp(q1, f), t0.lerp(t1, f)));
                }
            }
            self.advance();
        }
        self.next_target = std::mem::replace(&mut self.last_target, targets);
        match self.blown_up() {
            Some((body, message)) => {
                self.snap(bone_world);
                StepReport {
                    steps,
                    reset: Some(message),
                    reset_body: Some(body),
                    projected: self.projected,
                }
            }
            None => StepReport {
                steps,
                reset: None,
                reset_body: None,
                projected: self.projected,
            },
        }
    }

    /// The first dynamic body that is not finite or is farther than
    /// [`BLOWUP_DISTANCE`] from its bone: its index in the world and a
    /// message naming it by its number in its own model.
    fn blown_up(&self) -> Option<(usize, String)> {
        for i in 0..self.handles.len() {
            if self.kinematic[i] {
                continue;
            }
            let (q, t) = self.body_pose(i)?;
            let b = &self.setup.bodies[i];
            let n = b.index;
            if !q.is_finite() || !t.is_finite() {
                return Some((
                    i,
                    format!(
                        "physics reset: rigid body {n} \"{}\" became non-finite",
                        b.name
                    ),
                ));
            }
            if b.bone.is_some() {
                // Where the bone puts it: the target of the last step or
                // snap, both taken from `bone_world`.
                let want = self.last_target[i].1;
                let d = t.distance(want);
                if d > BLOWUP_DISTANCE {
                    return Some((
                        i,
                        format!(
                            "physics reset: rigid body {n} \"{}\" was flung {d:.1} units from its bone",
                            b.name
                        ),
                    ));
                }
            }
        }
        None
    }

    /// Writes the dynamic bodies back to the bones they drive. `bone_world`
    /// holds the matrices passed to [`step`](Self::step) and receives the
    /// pose after physics: a mode-1 bone takes its body's whole transform, a
    /// mode-2 bone its rotation with its own translation, and a bone without
    /// a driving body below a changed bone follows its parent (its local
    /// transform kept). Non-finite results leave the bone as it was.
    pub fn write_back(&mut self, bone_world: &mut [Mat4]) {
        let n = bone_world.len().min(self.parents.len());
        self.before.clear();
        self.before.extend_from_slice(&bone_world[..n]);
        self.changed.clear();
        self.changed.resize(n, false);
        for k in 0..self.order.len() {
            let b = self.order[k];
            if b >= n {
                continue;
            }
            let driven = self.driver[b].filter(|&i| !self.kinematic[i]);
            let new = if let Some(i) = driven {
                let Some((q, t)) = self.body_pose(i) else {
                    continue;
                };
                let mut m = Mat4::from_rotation_translation(q, t) * self.offset_inv[i];
                if self.setup.bodies[i].mode == super::BodyMode::PhysicsKeepTranslation {
                    m.w_axis = self.before[b].w_axis;
                }
                m
            } else if let Some(p) = self.parents[b].filter(|&p| p < n && self.changed[p]) {
                bone_world[p] * (self.before[p].inverse() * self.before[b])
            } else {
                continue;
            };
            if new.is_finite() {
                bone_world[b] = new;
                self.changed[b] = true;
            }
        }
    }
}

/// Per bone of `bone_count`: the body that drives it.
fn bone_drivers(setup: &WorldSetup, bone_count: usize) -> Vec<Option<usize>> {
    let mut driver = vec![None; bone_count];
    for (i, b) in setup.bodies.iter().enumerate() {
        if let (true, Some(bone)) = (b.drives_bone, b.bone) {
            driver[bone] = Some(i);
        }
    }
    driver
}
