//! A scene drawn offscreen, frame by frame: models wearing motions, the VMD
//! camera and light. What the CLI's `render` and `storyboard` draw with.

use std::path::Path;

use crate::model::physics::{SceneActor, ScenePhysics, SimulationMode};
use crate::model::{LoadedModel, Model, TextureSet, decode_texture};
pub use crate::vmd::IndexedMotion;
use crate::vmd::evaluate;

use super::from_model::{ModelPosing, posed_materials, posed_vertices};
use super::input::{
    Light, RenderMaterial, RenderVertex, SelfShadow, Shadows, TextureRgba, ViewParams,
};
use super::{FrameParams, GpuModel, MeshTemplate, Offscreen, OffscreenTarget, RenderError};

/// The bundled demo mannequin (our own model, see `examples/make_demo.rs`).
pub const DEMO_MODEL_PMX: &[u8] = include_bytes!("../../assets/demo_model.pmx");
/// Its texture.
pub const DEMO_MODEL_BMP: &[u8] = include_bytes!("../../assets/demo_model.bmp");

/// The demo mannequin with its texture, from the bytes built into the program.
pub fn demo_model() -> Result<LoadedModel, String> {
    let model = Model::read(DEMO_MODEL_PMX).map_err(|e| format!("demo model: {e}"))?;
    let texture = decode_texture(DEMO_MODEL_BMP, Path::new("demo_model.bmp"))?;
    let textures = TextureSet {
        textures: vec![Some(texture)],
        ..Default::default()
    };
    Ok(LoadedModel {
        path: "demo_model.pmx".into(),
        model,
        textures,
    })
}

/// One model on the stage, on the GPU, with the motion it wears.
pub struct StageActor {
    pub model: LoadedModel,
    pub motion: Option<IndexedMotion>,
    /// Scene frames later than the motion's: motion frame = scene frame − offset.
    pub offset: f64,
    gpu: GpuModel,
    template: MeshTemplate,
    posing: ModelPosing,
    vertices: Vec<RenderVertex>,
    materials: Vec<RenderMaterial>,
    /// The last physics blow-up message naming this actor, until taken.
    message: Option<String>,
}

impl StageActor {
    pub fn new(
        off: &Offscreen,
        model: LoadedModel,
        motion: Option<IndexedMotion>,
        offset: f64,
    ) -> Result<StageActor, RenderError> {
        let template = MeshTemplate::new(&model.model, &model.textures);
        let gpu = off.upload_template(&template)?;
        let mut posing = ModelPosing::new(&model.model);
        posing.bind(&model.model, motion.as_ref().map(|m| &m.index));
        Ok(StageActor {
            model,
            motion,
            offset,
            gpu,
            template,
            posing,
            vertices: Vec::new(),
            materials: Vec::new(),
            message: None,
        })
    }

    /// The last physics blow-up message naming this actor's bodies, taken.
    pub fn take_physics_message(&mut self) -> Option<String> {
        self.message.take()
    }

    /// Whether this actor's vertices are morphed and skinned on the GPU
    /// (else on the CPU: a device without compute shaders).
    pub fn gpu_skinned(&self) -> bool {
        self.gpu.is_gpu_skinned()
    }

    /// Poses the model at scene `frame` (motion, morphs, IK; skinning on
    /// the CPU only where the GPU cannot) and uploads the pose.
    fn pose(&mut self, off: &Offscreen, frame: f64) -> Result<(), RenderError> {
        let model = &self.model.model;
        let motion = self.motion.as_ref().map(IndexedMotion::as_ref);
        if self.gpu.is_gpu_skinned() {
            self.posing
                .pose_bones(model, motion, frame - self.offset, |_| {});
        } else {
            self.posing.pose(model, motion, frame - self.offset);
        }
        self.upload(off)
    }

    /// Uploads the pose made: the bones' skinning matrices and morph
    /// weights (GPU skinning) or the skinned vertices (CPU), and the
    /// materials after material morphs.
    fn upload(&mut self, off: &Offscreen) -> Result<(), RenderError> {
        let model = &self.model.model;
        let (device, queue) = (&off.gpu.device, &off.gpu.queue);
        if self.gpu.is_gpu_skinned() {
            self.posing.morph_materials(model);
            let posed = &self.posing.posed;
            self.gpu
                .update_pose(device, queue, &posed.skinning, &posed.applied_morphs)?;
        } else {
            posed_vertices(model, &self.posing.posed, &mut self.vertices);
            self.gpu.update_vertices(queue, &self.vertices)?;
        }
        posed_materials(
            &self.template.mesh.materials,
            &self.posing.posed,
            &mut self.materials,
        );
        self.gpu.update_materials(queue, &self.materials)
    }
}

/// Models, a camera and a light, drawn offscreen.
pub struct Stage {
    pub off: Offscreen,
    pub actors: Vec<StageActor>,
    /// The camera motion (MMD's default camera when `None` or keyless).
    pub camera: Option<IndexedMotion>,
    /// The light motion (MMD's default light when `None` or keyless).
    pub light: Option<IndexedMotion>,
    /// Background colour, RGBA 0..1 (MMD's default: white).
    pub background: [f32; 4],
    /// Draw ground shadows (MMD: on).
    pub ground_shadow: bool,
    /// Allow the self-shadow (its mode and distance come from the camera
    /// motion's self-shadow track, else the light motion's, else MMD's
    /// default mode 1); `false` forces it off.
    pub self_shadow: bool,
    /// The actors' rigid bodies, all in one world (`None`: no physics).
    physics: Option<ScenePhysics>,
}

impl Stage {
    pub fn new(off: Offscreen) -> Stage {
        Stage {
            off,
            actors: Vec::new(),
            camera: None,
            light: None,
            background: [1.0, 1.0, 1.0, 1.0],
            ground_shadow: true,
            self_shadow: true,
            physics: None,
        }
    }

    /// Simulates the actors' rigid bodies (`on`; MMD plays with physics on),
    /// all in one world, each actor's bodies colliding only with its own
    /// unless `collide_actors`. Pictures posed in order step the world frame
    /// by frame; the first, a jump back or one far ahead settles it at that
    /// frame. Returns whether any actor has bodies to simulate.
    pub fn set_physics(&mut self, on: bool, collide_actors: bool) -> bool {
        if !on {
            self.physics = None;
            return false;
        }
        let mut p = ScenePhysics::new(SimulationMode::Trace);
        p.set_collide_across_actors(collide_actors);
        self.physics = Some(p);
        self.actors
            .iter()
            .any(|a| !a.model.model.rigid_bodies.is_empty())
    }

    pub fn add_actor(
        &mut self,
        model: LoadedModel,
        motion: Option<IndexedMotion>,
        offset: f64,
    ) -> Result<(), RenderError> {
        let actor = StageActor::new(&self.off, model, motion, offset)?;
        self.actors.push(actor);
        Ok(())
    }

    /// The view at `frame` for a picture of `aspect` (width / height).
    pub fn view_at(&self, frame: f64, aspect: f32) -> ViewParams {
        self.camera
            .as_ref()
            .and_then(|c| evaluate::camera_at(&c.motion, &c.index, frame))
            .map_or_else(
                || ViewParams::mmd_default(aspect),
                |c| {
                    ViewParams::mmd_camera(
                        c.target,
                        c.rotation,
                        c.distance,
                        c.fov,
                        c.perspective,
                        aspect,
                    )
                },
            )
    }

    /// The light at `frame`.
    pub fn light_at(&self, frame: f64) -> Light {
        self.light
            .as_ref()
            .and_then(|l| evaluate::light_at(&l.motion, &l.index, frame))
            .map_or(Light::MMD_DEFAULT, |l| Light {
                color: l.color,
                direction: l.direction,
            })
    }

    /// The shadows drawn at `frame`.
    pub fn shadows_at(&self, frame: f64) -> Shadows {
        fn track(
            m: &Option<IndexedMotion>,
        ) -> Option<(&crate::vmd::Motion, &crate::vmd::TrackIndex)> {
            m.as_ref().map(|m| (&m.motion, &m.index))
        }
        let self_shadow = if self.self_shadow {
            crate::scene::shadow::scene_self_shadow(track(&self.camera), track(&self.light), frame)
        } else {
            SelfShadow::OFF
        };
        Shadows {
            ground: self.ground_shadow,
            ground_translucent: false,
            self_shadow,
        }
    }

    pub fn target(&self, width: u32, height: u32) -> Result<OffscreenTarget, RenderError> {
        self.off.target(width, height)
    }

    /// Draws scene frame `frame` (fractional allowed) into `target` and
    /// reads it back.
    pub fn picture(
        &mut self,
        target: &OffscreenTarget,
        frame: f64,
    ) -> Result<TextureRgba, RenderError> {
        match &mut self.physics {
            None => {
                for a in &mut self.actors {
                    a.pose(&self.off, frame)?;
                }
            }
            Some(physics) => {
                let mut actors: Vec<SceneActor> = self
                    .actors
                    .iter_mut()
                    .enumerate()
                    .map(|(k, a)| SceneActor {
                        key: k as u64,
                        engine: &mut a.posing,
                        model: &a.model.model,
                        motion: a.motion.as_ref().map(IndexedMotion::as_ref),
                        offset: a.offset,
                        replace: None,
                        follow: false,
                        skin: !a.gpu.is_gpu_skinned(),
                    })
                    .collect();
                let messages = physics.pose(&mut actors, frame);
                drop(actors);
                for (k, m) in messages {
                    if let Some(a) = self.actors.get_mut(k) {
                        a.message = Some(m);
                    }
                }
                for a in &mut self.actors {
                    a.upload(&self.off)?;
                }
            }
        }
        let aspect = target.width() as f32 / target.height().max(1) as f32;
        let params = FrameParams {
            view: self.view_at(frame, aspect),
            light: self.light_at(frame),
            lines: &[],
            overlay_lines: &[],
            shadows: self.shadows_at(frame),
        };
        let models: Vec<&GpuModel> = self.actors.iter().map(|a| &a.gpu).collect();
        self.off.picture(target, &params, &models, self.background)
    }
}
