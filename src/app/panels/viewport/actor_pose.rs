//! One actor's posing state in the viewport: its rig's engine (what the
//! skeleton, joints and gizmo show) and the mesh drawn for it, whose
//! buffers hold either the packed pose the GPU skins from or the vertices
//! the CPU skinned (see [`Mesh`]).

use std::sync::Arc;

use glam::{Quat, Vec3};

use super::super::model_view::{self, ModelEntry, PhysicsRun};
use crate::model::{Model, PoseEngine, replace_bone};
use crate::render::from_model::{GpuFrameData, fill_gpu_frame, posed_materials, posed_vertices};
use crate::render::{RenderMaterial, RenderVertex};
use crate::workspace::document::Document;

/// A bone's local values replaced by the posing tool: (bone, translation, rotation).
pub(super) type Override = Option<(usize, Vec3, Quat)>;

/// What a pose feeds: the bones alone (skeleton, joints, gizmo), or the
/// drawn mesh too — skinned on the GPU (the bones and material morphs) or
/// on the CPU (vertex morphs and skinning as well).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Feed {
    Bones,
    Gpu,
    Cpu,
}

/// What a pose was made from: motion frame, the posing tool's override,
/// and what it feeds (a bones-only pose cannot feed the mesh).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PoseKey {
    pub frame: f64,
    pub replace: Override,
    pub feed: Feed,
}

/// One engine posing one model, rebound when its document changes.
#[derive(Debug)]
pub(super) struct Engine {
    pub engine: PoseEngine,
    /// The document (id, revision) the engine is bound to.
    pub bound: Option<(u64, u64)>,
    /// What the last pose was made from (its matrices are
    /// `engine.posed.bone_world`).
    pub last: Option<PoseKey>,
}

impl Engine {
    pub(super) fn new(model: &Model) -> Engine {
        Engine {
            engine: PoseEngine::new(model),
            bound: None,
            last: None,
        }
    }

    /// Rebinds after the actor's document changed.
    pub(super) fn rebind(&mut self, model: &Model, motion: Option<&Document>) {
        let want = motion.map(|d| (d.id, d.revision));
        if self.bound != want || (want.is_none() && self.engine.binding().is_some()) {
            self.engine.bind(model, motion.map(|d| &d.index));
            self.bound = want;
            self.last = None;
        }
    }

    /// Places the model in the scene (the actor's placement); a new
    /// placement poses again.
    pub(super) fn place(&mut self, placement: Option<glam::Mat4>) {
        if self.engine.placement() != placement {
            self.engine.set_placement(placement);
            self.last = None;
        }
    }

    /// Poses `model` at motion frame `key.frame` for `key.feed` unless
    /// the last pose was made from the same input and nothing is
    /// simulated (with physics every pass poses: the clock decides what
    /// time does). Returns whether it posed.
    pub(super) fn pose(
        &mut self,
        model: &Model,
        motion: Option<&Document>,
        key: PoseKey,
        run: PhysicsRun,
    ) -> bool {
        model_view::apply_physics(&mut self.engine, model, run);
        let simulated = self.engine.physics().is_some();
        if !simulated && self.last == Some(key) && !self.engine.posed.bone_world.is_empty() {
            return false;
        }
        let motion = motion.map(Document::source);
        let replace = replace_bone(key.replace);
        match key.feed {
            Feed::Cpu => self.engine.pose_adjusted(model, motion, key.frame, replace),
            Feed::Gpu => {
                self.engine.pose_bones(model, motion, key.frame, replace);
                self.engine.morph_materials(model);
            }
            Feed::Bones => self.engine.pose_bones(model, motion, key.frame, replace),
        }
        self.last = Some(key);
        true
    }
}

/// The mesh drawn for an actor: its model's buffers, refilled in place
/// when the pose changes.
#[derive(Debug)]
pub(super) struct Mesh {
    pub entry: Arc<ModelEntry>,
    /// The drawn figure when it is not the rig (the demo mannequin standing
    /// in for the built-in skeleton): its own engine.
    pub figure: Option<Engine>,
    /// Skinned on the GPU (`gpu_frame` filled), else on the CPU
    /// (`vertices` and `materials`).
    pub gpu: bool,
    pub vertices: Arc<Vec<RenderVertex>>,
    pub materials: Arc<Vec<RenderMaterial>>,
    pub gpu_frame: Arc<GpuFrameData>,
    /// Bumped whenever the buffers are refilled (the GPU side uploads a
    /// generation once, whatever the number of views).
    pub generation: u64,
}

impl Mesh {
    /// A mesh skinned on the CPU until [`Mesh::skin_on`] says otherwise.
    pub(super) fn new(entry: Arc<ModelEntry>, figure: Option<Engine>) -> Mesh {
        Mesh {
            entry,
            figure,
            gpu: false,
            vertices: Arc::default(),
            materials: Arc::default(),
            gpu_frame: Arc::default(),
            generation: 0,
        }
    }

    /// What the poses of its model must feed.
    pub(super) fn feed(&self) -> Feed {
        if self.gpu { Feed::Gpu } else { Feed::Cpu }
    }

    /// Whether its buffers hold a pose.
    pub(super) fn filled(&self) -> bool {
        if self.gpu {
            !self.gpu_frame.pose.is_empty()
        } else {
            !self.vertices.is_empty()
        }
    }

    /// Skins on the GPU (`gpu`) or the CPU from now on; a switch empties
    /// the buffers, so the next pose fills the new ones.
    pub(super) fn skin_on(&mut self, gpu: bool) {
        if self.gpu != gpu {
            self.gpu = gpu;
            self.vertices = Arc::default();
            self.materials = Arc::default();
            self.gpu_frame = Arc::default();
        }
    }

    /// Refills the buffers from `posed` (in place when no paint callback
    /// still holds last frame's).
    pub(super) fn fill(&mut self, posed: &crate::model::Posed) {
        let template = &self.entry.asset.template;
        if self.gpu {
            fill_gpu_frame(posed, template, Arc::make_mut(&mut self.gpu_frame));
        } else {
            let model = &self.entry.asset.loaded.model;
            posed_vertices(model, posed, Arc::make_mut(&mut self.vertices));
            posed_materials(
                &template.mesh.materials,
                posed,
                Arc::make_mut(&mut self.materials),
            );
        }
        self.generation += 1;
    }
}

/// One actor's posing state.
#[derive(Debug)]
pub(super) struct ActorPose {
    /// The rig's [`ModelAsset::generation`](crate::render::asset::ModelAsset::generation)
    /// (0: the built-in skeleton): a new model is a new engine.
    pub rig_id: u64,
    pub rig: Engine,
    pub mesh: Option<Mesh>,
}
