//! The one pose pipeline of the program: motion → evaluation cache →
//! binding (MMD's name rule) → [`Poser`] (bone morphs, append, IK with the
//! motion's IK keys, deform order) → skinning.
//!
//! Everything that shows or writes a pose goes through a [`PoseEngine`]:
//! the viewport's skeleton, joints and gizmo, the model view's mesh, the
//! curve editor's world values, `pose`, `render` and `storyboard`. A model
//! with no mesh (the built-in skeleton, [`super::builtin::standard_model`])
//! takes the same path; skinning then has nothing to do.

use super::binding::MotionBinding;
use super::data::Model;
use super::posing::{PoseInput, Posed, Poser};
use crate::vmd::{MotionRef, Playhead, TrackIndex};

/// Posing state for one model wearing (or not) one motion: the poser, its
/// output buffers, the name binding of the motion and a playhead (each
/// track's last segment, so playing forward needs no search; any frame
/// order gives the same values).
#[derive(Debug, Clone)]
pub struct PoseEngine {
    poser: Poser,
    /// The last pose: bone matrices, morph weights and (after a full
    /// [`PoseEngine::pose`]) skinned vertices.
    pub posed: Posed,
    binding: Option<MotionBinding>,
    head: Playhead,
}

impl PoseEngine {
    /// Prepares the deform order, IK paths and skinning tables of `model`.
    pub fn new(model: &Model) -> PoseEngine {
        PoseEngine {
            poser: Poser::new(model),
            posed: Posed::default(),
            binding: None,
            head: Playhead::default(),
        }
    }

    /// Binds a motion's tracks to the model's bones and morphs by name
    /// (again whenever the motion's track index changes); `None` unbinds.
    pub fn bind(&mut self, model: &Model, index: Option<&TrackIndex>) {
        self.binding = index.map(|i| MotionBinding::new(model, i));
        self.head = Playhead::default();
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
