//! The one pose pipeline of the program: motion → evaluation cache →
//! binding (MMD's name rule) → [`Poser`] (bone morphs, append, IK with the
//! motion's IK keys, deform order) → skinning.
//!
//! Everything that shows or writes a pose goes through a [`PoseEngine`]:
//! the viewport's skeleton, joints and gizmo, the model view's mesh, the
//! curve editor's world values, `pose`, `render` and `storyboard`. A model
//! with no mesh (the built-in skeleton, [`super::builtin::standard_model`])
//! takes the same path; skinning then has nothing to do.
//!
//! **Physics** is opt-in ([`PoseEngine::enable_physics`]): a frame is then
//! posed in MMD's order — morphs and the bones before physics (FK, append,
//! IK), kinematic bodies to their bones, fixed 1/120 s steps, dynamic
//! bodies back to their bones, the after-physics bones, skinning — and a
//! [`PhysicsClock`] decides per frame whether the world steps, resets and
//! settles, or holds. The motion's per-key physics-off flag makes a bone's
//! bodies follow its keys. Without physics every pose is what it was.
//! With physics, `posed.bone_world` and `posed.skinning` hold the simulated
//! bones; `posed.local_rotations` keeps the animated local rotations of the
//! bones the world drives. [`PoseEngine::pose_input`] never simulates.

use glam::Mat4;

use super::binding::MotionBinding;
use super::data::Model;
use super::physics::{
    PhysicsAction, PhysicsClock, PhysicsWorld, SimulationMode, StepReport, Transport,
};
use super::posing::{PoseInput, Posed, Poser};
use crate::vmd::{MotionRef, Playhead, TrackIndex};

/// Seconds per motion frame (MMD plays 30 frames a second).
const FRAME_SECONDS: f64 = 1.0 / 30.0;

/// The physics state of an engine.
#[derive(Debug)]
struct EnginePhysics {
    world: PhysicsWorld,
    clock: PhysicsClock,
    transport: Transport,
    /// (bone, its track in the bound index) for each bone a body names:
    /// where the motion's physics-off flags are read.
    tracks: Vec<(usize, usize)>,
    /// Per bone, physics switched off by the motion at the frame posed.
    off: Vec<bool>,
    /// The last blow-up message (a reset naming the body), until taken.
    message: Option<String>,
    /// Fixed steps taken since the engine was built (for tests and the
    /// status bar).
    steps: u64,
}

/// Posing state for one model wearing (or not) one motion: the poser, its
/// output buffers, the name binding of the motion and a playhead (each
/// track's last segment, so playing forward needs no search; any frame
/// order gives the same values).
#[derive(Debug)]
pub struct PoseEngine {
    poser: Poser,
    /// The last pose: bone matrices, morph weights and (after a full
    /// [`PoseEngine::pose`]) skinned vertices.
    pub posed: Posed,
    binding: Option<MotionBinding>,
    head: Playhead,
    physics: Option<Box<EnginePhysics>>,
    /// Motions bound so far (see [`PoseEngine::bind_generation`]).
    binds: u64,
}

/// A clone poses the same way; a physics world is rebuilt from scratch (at
/// the model's bind pose, reset on its first frame), since the engine's
/// world cannot be copied.
impl Clone for PoseEngine {
    fn clone(&self) -> Self {
        PoseEngine {
            poser: self.poser.clone(),
            posed: self.posed.clone(),
            binding: self.binding.clone(),
            head: self.head.clone(),
            physics: None,
            binds: self.binds,
        }
    }
}

impl PoseEngine {
    /// Prepares the deform order, IK paths and skinning tables of `model`.
    pub fn new(model: &Model) -> PoseEngine {
        PoseEngine {
            poser: Poser::new(model),
            posed: Posed::default(),
            binding: None,
            head: Playhead::default(),
            physics: None,
            binds: 0,
        }
    }

    /// Binds a motion's tracks to the model's bones and morphs by name
    /// (again whenever the motion's track index changes); `None` unbinds.
    pub fn bind(&mut self, model: &Model, index: Option<&TrackIndex>) {
        self.binding = index.map(|i| MotionBinding::new(model, i));
        self.head = Playhead::default();
        self.binds += 1;
        self.bind_physics_tracks(model);
        if let Some(p) = &mut self.physics {
            p.clock.request_reset();
        }
    }

    /// Places the model in the scene (see [`Poser::set_placement`]): every
    /// pose from now on is in scene space. A new placement resets this
    /// engine's physics (the bodies snap to the bones where they now
    /// stand instead of flying there).
    pub fn set_placement(&mut self, placement: Option<Mat4>) {
        let before = self.poser.placement();
        self.poser.set_placement(placement);
        if self.poser.placement() != before
            && let Some(p) = &mut self.physics
        {
            p.clock.request_reset();
        }
    }

    /// The placement in use (`None`: the origin).
    pub fn placement(&self) -> Option<Mat4> {
        self.poser.placement()
    }

    /// The input of the last pose (the motion's values, adjusted).
    pub fn input(&self) -> &PoseInput {
        self.poser.input()
    }

    /// The binding of the bound motion.
    pub fn binding(&self) -> Option<&MotionBinding> {
        self.binding.as_ref()
    }

    /// Fills the poser's input from the motion at `frame` (the rest pose
    /// without a bound motion), then lets `adjust` change it.
    fn sample(
        &mut self,
        model: &Model,
        motion: Option<MotionRef<'_>>,
        frame: f64,
        adjust: impl FnOnce(&mut PoseInput),
    ) {
        match (&self.binding, motion) {
            (Some(b), Some(src)) => {
                b.sample_playing(model, src, &mut self.head, frame, self.poser.input_mut())
            }
            _ => self.poser.input_mut().reset(model),
        }
        adjust(self.poser.input_mut());
    }

    /// Poses the model at motion frame `frame` and skins it into
    /// [`PoseEngine::posed`].
    pub fn pose(&mut self, model: &Model, motion: Option<MotionRef<'_>>, frame: f64) {
        self.pose_adjusted(model, motion, frame, |_| {});
    }

    /// Like [`pose`](Self::pose), with `adjust` changing the sampled input
    /// before evaluation (the posing tool's unregistered pose of a bone).
    pub fn pose_adjusted(
        &mut self,
        model: &Model,
        motion: Option<MotionRef<'_>>,
        frame: f64,
        adjust: impl FnOnce(&mut PoseInput),
    ) {
        if self.physics.is_some() {
            self.pose_with_physics(model, motion, frame, adjust);
            self.poser.morph_and_skin(model, &mut self.posed);
            return;
        }
        self.sample(model, motion, frame, adjust);
        self.poser.evaluate(model, &mut self.posed);
    }

    /// The bones only (no vertex morphs, no skinning): `posed.bone_world`,
    /// `skinning`, `local_rotations`, `applied_morphs`, `ik_enabled`. What
    /// the skeleton view, joint picking and the gizmo need.
    pub fn pose_bones(
        &mut self,
        model: &Model,
        motion: Option<MotionRef<'_>>,
        frame: f64,
        adjust: impl FnOnce(&mut PoseInput),
    ) {
        if self.physics.is_some() {
            self.pose_with_physics(model, motion, frame, adjust);
            return;
        }
        self.sample(model, motion, frame, adjust);
        self.poser.pose_bones(model, &mut self.posed);
    }

    /// Poses with an explicit input (morph weights, bone values) instead of
    /// a motion.
    pub fn pose_input(&mut self, model: &Model, f: impl FnOnce(&mut PoseInput)) {
        self.poser.input_mut().reset(model);
        f(self.poser.input_mut());
        self.poser.evaluate(model, &mut self.posed);
    }

    /// Turns physics on in `mode` (see [`SimulationMode`]): builds the
    /// model's world (its warnings in [`physics`](Self::physics)); the next
    /// frame posed resets it. Returns `false`, leaving physics off, when the
    /// model has no rigid bodies. Calling it again only changes the mode.
    pub fn enable_physics(&mut self, model: &Model, mode: SimulationMode) -> bool {
        if let Some(p) = &mut self.physics {
            p.clock.set_mode(mode);
            return true;
        }
        if model.rigid_bodies.is_empty() {
            return false;
        }
        self.physics = Some(Box::new(EnginePhysics {
            world: PhysicsWorld::new(model),
            clock: PhysicsClock::new(mode),
            transport: Transport::PLAYING,
            tracks: Vec::new(),
            off: vec![false; model.skeleton.bones.len()],
            message: None,
            steps: 0,
        }));
        self.bind_physics_tracks(model);
        true
    }

    /// Turns physics off and drops the world: poses are the animated ones.
    pub fn disable_physics(&mut self) {
        self.physics = None;
    }

    /// The physics world, when physics is on.
    pub fn physics(&self) -> Option<&PhysicsWorld> {
        self.physics.as_ref().map(|p| &p.world)
    }

    /// The physics clock (mode, reset requests), when physics is on.
    pub fn physics_clock_mut(&mut self) -> Option<&mut PhysicsClock> {
        self.physics.as_mut().map(|p| &mut p.clock)
    }

    /// What the transport does for the next frames posed (the GUI sets it
    /// each frame; the default, playing, suits posing frames in order).
    pub fn set_transport(&mut self, transport: Transport) {
        if let Some(p) = &mut self.physics {
            p.transport = transport;
        }
    }

    /// The last blow-up message ("physics reset: rigid body 3 \"…\" …"),
    /// taken: the next call returns `None` until the world blows up again.
    pub fn take_physics_message(&mut self) -> Option<String> {
        self.physics.as_mut().and_then(|p| p.message.take())
    }

    /// Fixed 1/120 s steps the world has taken (settling included), 0
    /// without physics.
    pub fn physics_steps(&self) -> u64 {
        self.physics.as_ref().map_or(0, |p| p.steps)
    }

    /// Per bone, whether the motion had physics switched off at the last
    /// frame posed with physics (empty without physics).
    pub fn physics_off(&self) -> &[bool] {
        self.physics.as_ref().map_or(&[], |p| &p.off)
    }

    /// Finds the tracks whose keys carry the physics-off flags of the bones
    /// rigid bodies name.
    fn bind_physics_tracks(&mut self, model: &Model) {
        let Some(p) = &mut self.physics else {
            return;
        };
        p.tracks = physics_tracks(model, self.binding.as_ref());
    }

    /// How many times a motion was bound (or unbound): a driver holding
    /// this engine's bodies in a shared world resets it when this changes.
    pub fn bind_generation(&self) -> u64 {
        self.binds
    }

    /// Phase 1 of a frame with physics, for a driver that owns the world
    /// ([`ScenePhysics`](super::physics::ScenePhysics)): samples motion
    /// frame `frame` (then `adjust`), and poses the morph weights and the
    /// bones that deform before physics into `posed.bone_world`.
    pub fn pose_before_physics(
        &mut self,
        model: &Model,
        motion: Option<MotionRef<'_>>,
        frame: f64,
        adjust: impl FnOnce(&mut PoseInput),
    ) {
        self.sample(model, motion, frame, adjust);
        self.poser.pose_before_physics(model, &mut self.posed);
    }

    /// Phase 3, after the world wrote its dynamic bodies into
    /// `posed.bone_world`: any non-finite matrix back to its rest place,
    /// then the bones that deform after physics.
    pub fn pose_after_physics(&mut self, model: &Model) {
        finite_or_rest(model, &mut self.posed.bone_world);
        self.poser.pose_after_physics(model, &mut self.posed);
    }

    /// The last step: vertex, UV and material morphs and skinning with the
    /// bones as posed.
    pub fn skin(&mut self, model: &Model) {
        self.poser.morph_and_skin(model, &mut self.posed);
    }

    /// Material morphs alone with the weights of the last pose: what a
    /// renderer that morphs and skins vertices on the GPU still needs of
    /// the CPU after [`pose_bones`](Self::pose_bones) (`posed.materials`).
    pub fn morph_materials(&mut self, model: &Model) {
        self.poser.morph_materials(model, &mut self.posed);
    }

    /// One frame in MMD's order with the clock's decision: bones before
    /// physics, the world (stepped through the frames between the last one
    /// and this, reset, or held), dynamic bodies to their bones, the bones
    /// after physics. Fills every bone buffer of `posed` (no skinning).
    fn pose_with_physics(
        &mut self,
        model: &Model,
        motion: Option<MotionRef<'_>>,
        frame: f64,
        adjust: impl FnOnce(&mut PoseInput),
    ) {
        let frame = if frame.is_finite() { frame } else { 0.0 };
        let action = match &mut self.physics {
            Some(p) => {
                let t = p.transport;
                p.clock.decide(frame, t)
            }
            None => PhysicsAction::Off,
        };
        if action == PhysicsAction::Off {
            self.sample(model, motion, frame, adjust);
            self.poser.pose_bones(model, &mut self.posed);
            return;
        }
        let report = run_physics(
            action,
            frame,
            &mut EngineFrame {
                engine: self,
                model,
                motion,
                adjust: Some(adjust),
            },
        );
        if let Some(p) = &mut self.physics {
            if let Some(m) = report.reset {
                p.message = Some(m);
            }
            p.world.write_back(&mut self.posed.bone_world);
        }
        self.pose_after_physics(model);
    }
}

/// The work of one physics frame, asked for by [`run_physics`]: done by
/// one engine with its own world, or by the scene's driver for several
/// engines sharing one world. MMD's frame order is written once, there.
pub(crate) trait PhysicsFrame {
    /// Poses the bones before physics at motion frame `frame` (`last`: the
    /// frame shown, with the caller's adjustment) and gives the world the
    /// motion's physics-off flags of that frame.
    fn before(&mut self, frame: f64, last: bool);
    /// Steps the world `seconds` with the bones as last posed.
    fn step(&mut self, seconds: f32) -> StepReport;
    /// Snaps the world's bodies to the bones as last posed and settles it.
    fn reset(&mut self);
}

/// Carries out the clock's `action` for `frame` (anything but
/// [`PhysicsAction::Off`], which the caller poses without the world): on
/// [`PhysicsAction::Advance`] each whole frame between gets its kinematic
/// pose and its time, then the frame itself. Returns the steps taken and
/// the first blow-up message; the caller then writes the world back and
/// poses the bones after physics.
pub(crate) fn run_physics(
    action: PhysicsAction,
    frame: f64,
    work: &mut impl PhysicsFrame,
) -> StepReport {
    let mut report = StepReport::default();
    let mut add = |r: StepReport| {
        report.steps += r.steps;
        if report.reset.is_none() {
            report.reset = r.reset;
            report.reset_body = r.reset_body;
        }
    };
    match action {
        PhysicsAction::Off | PhysicsAction::Hold => work.before(frame, true),
        PhysicsAction::Advance { from } => {
            let mut at = from;
            let mut f = from.floor() + 1.0;
            while f < frame {
                work.before(f, false);
                add(work.step(((f - at) * FRAME_SECONDS) as f32));
                at = f;
                f += 1.0;
            }
            work.before(frame, true);
            add(work.step(((frame - at) * FRAME_SECONDS) as f32));
        }
        PhysicsAction::Run { seconds } => {
            work.before(frame, true);
            add(work.step(seconds));
        }
        PhysicsAction::Reset => {
            work.before(frame, true);
            work.reset();
        }
    }
    report
}

/// One engine's frame with its own world.
struct EngineFrame<'a, 'm, F> {
    engine: &'a mut PoseEngine,
    model: &'a Model,
    motion: Option<MotionRef<'m>>,
    /// The caller's adjustment, for the frame shown only.
    adjust: Option<F>,
}

impl<F: FnOnce(&mut PoseInput)> PhysicsFrame for EngineFrame<'_, '_, F> {
    fn before(&mut self, frame: f64, last: bool) {
        let e = &mut *self.engine;
        match self.adjust.take().filter(|_| last) {
            Some(adjust) => e.pose_before_physics(self.model, self.motion, frame, adjust),
            None => e.pose_before_physics(self.model, self.motion, frame, |_| {}),
        }
        if let Some(p) = &mut e.physics {
            read_physics_off(&p.tracks, self.motion, frame, &mut p.off);
            p.world.set_physics_off(&p.off);
        }
    }

    fn step(&mut self, seconds: f32) -> StepReport {
        let e = &mut *self.engine;
        match &mut e.physics {
            Some(p) => {
                let r = p.world.step(&e.posed.bone_world, seconds);
                p.steps += u64::from(r.steps);
                r
            }
            None => StepReport::default(),
        }
    }

    fn reset(&mut self) {
        let e = &mut *self.engine;
        if let Some(p) = &mut e.physics {
            p.world.reset(&e.posed.bone_world);
            p.steps += u64::from(super::physics::SETTLE_STEPS);
        }
    }
}

/// (bone, its track in `binding`'s index) for each bone a rigid body of
/// `model` names: where the motion's physics-off flags are read.
pub(crate) fn physics_tracks(
    model: &Model,
    binding: Option<&MotionBinding>,
) -> Vec<(usize, usize)> {
    let Some(binding) = binding else {
        return Vec::new();
    };
    let n = model.skeleton.bones.len();
    let mut bones: Vec<usize> = model
        .rigid_bodies
        .iter()
        .filter_map(|b| b.bone)
        .filter(|&b| b < n)
        .collect();
    bones.sort_unstable();
    bones.dedup();
    bones
        .into_iter()
        .filter_map(|b| Some((b, binding.bone_track(b)?)))
        .collect()
}

/// Reads the motion's physics-off flags at `frame` (its whole frame) for
/// the bones of `tracks` into `off` (one entry per bone; every other entry
/// false).
pub(crate) fn read_physics_off(
    tracks: &[(usize, usize)],
    motion: Option<MotionRef<'_>>,
    frame: f64,
    off: &mut [bool],
) {
    off.iter_mut().for_each(|o| *o = false);
    let Some(src) = motion else {
        return;
    };
    let whole = if frame.is_finite() {
        frame.max(0.0).floor().min(f64::from(u32::MAX)) as u32
    } else {
        0
    };
    for &(bone, t) in tracks {
        let Some(track) = src.index.bones.get(t) else {
            continue;
        };
        let n = track.frames.partition_point(|&f| f <= whole);
        let flag = n
            .checked_sub(1)
            .and_then(|k| track.keys.get(k))
            .and_then(|&i| src.motion.bones.get(i as usize))
            .is_some_and(|k| k.physics_off());
        if let Some(o) = off.get_mut(bone) {
            *o = flag;
        }
    }
}

/// Replaces any non-finite bone matrix by the bone's rest matrix (never a
/// NaN to the renderer or a file, whatever the world did).
fn finite_or_rest(model: &Model, bone_world: &mut [Mat4]) {
    for (m, b) in bone_world.iter_mut().zip(&model.skeleton.bones) {
        if !m.is_finite() {
            *m = Mat4::from_translation(b.rest_position);
        }
    }
}

/// A bone's local values replaced: the posing tool's unregistered pose.
/// Use as the `adjust` of [`PoseEngine::pose_adjusted`] /
/// [`PoseEngine::pose_bones`].
pub fn replace_bone(bone: Option<(usize, glam::Vec3, glam::Quat)>) -> impl FnOnce(&mut PoseInput) {
    move |input| {
        if let Some((b, t, q)) = bone {
            if let Some(slot) = input.translations.get_mut(b) {
                *slot = t;
            }
            if let Some(slot) = input.rotations.get_mut(b) {
                *slot = q;
            }
        }
    }
}
