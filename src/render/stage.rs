//! A scene drawn offscreen, frame by frame: models wearing motions, the set
//! around them (stages, props, accessories), the VMD camera and light. What
//! the CLI's `render` and `storyboard` and the video export draw with.

use std::path::Path;

use crate::model::physics::{SceneActor, ScenePhysics, SimulationMode};
use crate::model::{LoadedModel, Model, TextureSet, decode_texture};
pub use crate::vmd::IndexedMotion;
use crate::vmd::evaluate;

use glam::Mat4;

use crate::scene::set::{
    Background, BackgroundVideo, DrawOrder, ImageFit, PiecePlacement, SetAccessory,
};
use crate::video::VideoFrames;

use super::background::{Backdrop, GpuBackground, read_image};

use super::from_model::{
    ModelPosing, placed_materials, placed_vertices, posed_materials, posed_vertices,
};
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
        let motion = self.motion.as_ref().map(IndexedMotion::as_ref);
        let mut buffers = Buffers {
            gpu: &mut self.gpu,
            template: &self.template,
            vertices: &mut self.vertices,
            materials: &mut self.materials,
        };
        buffers.pose(
            off,
            &self.model.model,
            &mut self.posing,
            motion,
            frame - self.offset,
        )
    }

    /// Uploads the pose the engine holds (after a physics step).
    fn upload(&mut self, off: &Offscreen) -> Result<(), RenderError> {
        let mut buffers = Buffers {
            gpu: &mut self.gpu,
            template: &self.template,
            vertices: &mut self.vertices,
            materials: &mut self.materials,
        };
        buffers.upload(off, &self.model.model, &mut self.posing)
    }
}

/// A posed model's GPU buffers and the CPU copies they are filled from.
struct Buffers<'a> {
    gpu: &'a mut GpuModel,
    template: &'a MeshTemplate,
    vertices: &'a mut Vec<RenderVertex>,
    materials: &'a mut Vec<RenderMaterial>,
}

impl Buffers<'_> {
    /// Poses `model` wearing `motion` at motion `frame` (the bones only
    /// where the GPU skins) and uploads the pose ([`Buffers::upload`]).
    fn pose(
        &mut self,
        off: &Offscreen,
        model: &crate::model::Model,
        posing: &mut ModelPosing,
        motion: Option<crate::vmd::MotionRef<'_>>,
        frame: f64,
    ) -> Result<(), RenderError> {
        if self.gpu.is_gpu_skinned() {
            posing.pose_bones(model, motion, frame, |_| {});
        } else {
            posing.pose(model, motion, frame);
        }
        self.upload(off, model, posing)
    }

    /// Uploads the pose made: the bones' skinning matrices and morph
    /// weights (GPU skinning) or the skinned vertices (CPU), and the
    /// materials after material morphs.
    fn upload(
        &mut self,
        off: &Offscreen,
        model: &crate::model::Model,
        posing: &mut ModelPosing,
    ) -> Result<(), RenderError> {
        let (device, queue) = (&off.gpu.device, &off.gpu.queue);
        if self.gpu.is_gpu_skinned() {
            posing.morph_materials(model);
            let posed = &posing.posed;
            self.gpu
                .update_pose(device, queue, &posed.skinning, &posed.applied_morphs)?;
        } else {
            posed_vertices(model, &posing.posed, self.vertices);
            self.gpu.update_vertices(queue, self.vertices)?;
        }
        posed_materials(&self.template.mesh.materials, &posing.posed, self.materials);
        self.gpu.update_materials(queue, self.materials)
    }
}

/// A stage, prop or accessory on the GPU, drawn as the actors are (the
/// same materials, textures, sphere maps, toon and edges) but never posed:
/// a stage sits at its rest pose in the world, an accessory where its
/// placement (and keys, and parent bone) put it. Its vertices are placed
/// once, and again only when the placement changes: a static stage costs
/// a frame nothing but its drawing. A stage with its own motion (moving
/// parts) is posed at each new frame, as an actor is but without physics.
pub struct StageProp {
    pub model: LoadedModel,
    pub order: DrawOrder,
    /// Drawn at all (a hidden stage; an accessory's own `shown` applies too).
    pub shown: bool,
    /// The accessory's placement, keys and parent; `None`: a stage or prop
    /// at its rest pose.
    pub accessory: Option<SetAccessory>,
    gpu: GpuModel,
    template: MeshTemplate,
    /// What was last uploaded: world matrix, opacity, ground shadow.
    uploaded: Option<(Mat4, f32, bool)>,
    /// Shown at the last picture's frame.
    visible: bool,
    /// Its vertices' axis-aligned bounds at rest (computed once).
    bounds: Option<(glam::Vec3, glam::Vec3)>,
    vertices: Vec<RenderVertex>,
    materials: Vec<RenderMaterial>,
    /// A stage's own motion, its pose engine and the frame last posed.
    animated: Option<(IndexedMotion, ModelPosing, f64)>,
}

impl StageProp {
    fn new(
        off: &Offscreen,
        model: LoadedModel,
        order: DrawOrder,
        accessory: Option<SetAccessory>,
    ) -> Result<StageProp, RenderError> {
        let template = MeshTemplate::new(&model.model, &model.textures);
        let gpu = off.upload_template(&template)?;
        let mut finite = model
            .model
            .positions
            .iter()
            .copied()
            .filter(|v| v.is_finite());
        let bounds = finite
            .next()
            .map(|first| finite.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))));
        Ok(StageProp {
            bounds,
            model,
            order,
            shown: true,
            accessory,
            gpu,
            template,
            uploaded: None,
            visible: true,
            vertices: Vec::new(),
            materials: Vec::new(),
            animated: None,
        })
    }

    /// Plays `motion` on this stage (its moving parts; no physics).
    fn animate(&mut self, motion: IndexedMotion) {
        let model = &self.model.model;
        let mut posing = ModelPosing::new(model);
        posing.bind(model, Some(&motion.index));
        self.animated = Some((motion, posing, f64::NAN));
    }

    /// Poses a stage with its own motion at scene `frame` (once per frame)
    /// and uploads it.
    fn pose(&mut self, off: &Offscreen, frame: f64) -> Result<(), RenderError> {
        let Some((motion, posing, last)) = self.animated.as_mut() else {
            return Ok(());
        };
        self.visible = self.shown;
        if !self.visible || *last == frame {
            return Ok(());
        }
        *last = frame;
        let mut buffers = Buffers {
            gpu: &mut self.gpu,
            template: &self.template,
            vertices: &mut self.vertices,
            materials: &mut self.materials,
        };
        buffers.pose(off, &self.model.model, posing, Some(motion.as_ref()), frame)
    }

    /// Places the piece for scene `frame`: its world matrix (an attached
    /// accessory follows `bone_world`'s answer for its parent bone; one
    /// that cannot be found stays in the world), opacity and ground
    /// shadow, uploaded only when they changed.
    fn place(
        &mut self,
        off: &Offscreen,
        frame: f64,
        bone_world: impl Fn(usize, &str) -> Option<Mat4>,
    ) -> Result<(), RenderError> {
        if self.animated.is_some() {
            return self.pose(off, frame);
        }
        let p = match &self.accessory {
            None => PiecePlacement::STAGE,
            Some(a) => a.placement_at(frame, bone_world),
        };
        let (world, opacity, ground, shown) = (p.world, p.opacity, p.ground_shadow, p.shown);
        self.visible = self.shown && shown && world.is_finite();
        if !self.visible || self.uploaded == Some((world, opacity, ground)) {
            return Ok(());
        }
        let (device, queue) = (&off.gpu.device, &off.gpu.queue);
        if self.gpu.is_gpu_skinned() {
            // Every bone's skinning matrix is the placement (the rest
            // pose's are the identity); no morph applies.
            let bones = vec![world; self.template.skin.bone_count as usize];
            self.gpu.update_pose(device, queue, &bones, &[])?;
        } else {
            placed_vertices(&self.template.mesh.vertices, world, &mut self.vertices);
            self.gpu.update_vertices(queue, &self.vertices)?;
        }
        placed_materials(
            &self.template.mesh.materials,
            opacity,
            ground,
            &mut self.materials,
        );
        self.gpu.update_materials(queue, &self.materials)?;
        self.uploaded = Some((world, opacity, ground));
        Ok(())
    }

    /// Whether the piece was drawn in the last picture.
    pub fn visible(&self) -> bool {
        self.visible
    }

    /// Whether its placement has been uploaded yet.
    pub fn placed(&self) -> bool {
        self.uploaded.is_some()
    }
}

/// Models, the set around them, a camera and a light, drawn offscreen.
pub struct Stage {
    pub off: Offscreen,
    pub actors: Vec<StageActor>,
    /// Stages, props and accessories, in the order added (each drawn
    /// before or after the actors as its [`DrawOrder`] says).
    pub props: Vec<StageProp>,
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
    /// The background image and video over [`Stage::background`].
    layers: StageBackground,
}

/// A stage's background image (uploaded once) and video (read frame by
/// frame as pictures ask), and what went wrong with them, until taken.
#[derive(Default)]
struct StageBackground {
    image: Option<(GpuBackground, ImageFit)>,
    video: Option<StageVideo>,
    messages: Vec<String>,
    /// Pixels sent to the GPU: the image once, each new video frame once.
    uploads: u32,
}

/// The background video: its reader, offset, and the frame on the GPU.
struct StageVideo {
    frames: VideoFrames,
    video: BackgroundVideo,
    gpu: Option<GpuBackground>,
    /// The video frame the texture holds.
    uploaded: Option<u64>,
}

impl StageVideo {
    /// Brings the texture to the video frame shown at scene `frame`;
    /// whether the video shows in that picture (not before its offset,
    /// not past its end, not after a failure, which is returned once).
    fn show(&mut self, off: &Offscreen, frame: f64, uploads: &mut u32) -> Result<bool, String> {
        let Some(index) = self.video.video_frame(frame) else {
            return Ok(false);
        };
        if self.uploaded == Some(index) && self.gpu.is_some() {
            return Ok(true);
        }
        let Some(f) = self.frames.frame(index)? else {
            return Ok(false);
        };
        let picture = TextureRgba {
            width: f.width,
            height: f.height,
            pixels: f.rgba.clone(),
        };
        let what = |e: RenderError| format!("background video {}: {e}", self.video.path.display());
        match &mut self.gpu {
            Some(g) => g
                .update(&off.renderer, &off.gpu.device, &off.gpu.queue, &picture)
                .map_err(what)?,
            None => self.gpu = Some(off.upload_background(&picture).map_err(what)?),
        }
        self.uploaded = Some(index);
        *uploads += 1;
        Ok(true)
    }
}

impl Stage {
    pub fn new(off: Offscreen) -> Stage {
        Stage {
            off,
            actors: Vec::new(),
            props: Vec::new(),
            camera: None,
            light: None,
            background: [1.0, 1.0, 1.0, 1.0],
            ground_shadow: true,
            self_shadow: true,
            physics: None,
            layers: StageBackground::default(),
        }
    }

    /// Puts `image` behind everything, fitted as `fit` says (uploaded
    /// once; replaces any image before).
    pub fn set_background_image(
        &mut self,
        image: &TextureRgba,
        fit: ImageFit,
    ) -> Result<(), RenderError> {
        self.layers.image = Some((self.off.upload_background(image)?, fit));
        self.layers.uploads += 1;
        Ok(())
    }

    /// Puts `video` behind everything (over the image), read through the
    /// program `ffmpeg` frame by frame as pictures ask for them.
    pub fn set_background_video(&mut self, video: &BackgroundVideo, ffmpeg: &Path) {
        self.layers.video = Some(StageVideo {
            frames: VideoFrames::new(&video.path, ffmpeg),
            video: video.clone(),
            gpu: None,
            uploaded: None,
        });
    }

    /// A scene's background: its colour, its image (read now) and its
    /// video (through `ffmpeg`, else ffmpeg on PATH). What cannot be shown
    /// is returned as messages naming the file (or ffmpeg); the rest
    /// draws.
    pub fn set_scene_background(&mut self, bg: &Background, ffmpeg: Option<&Path>) -> Vec<String> {
        let mut said = Vec::new();
        let [r, g, b] = bg.colour.map(|c| {
            if c.is_finite() {
                c.clamp(0.0, 1.0)
            } else {
                1.0
            }
        });
        self.background = [r, g, b, 1.0];
        self.layers.image = None;
        self.layers.video = None;
        if let Some(im) = &bg.image {
            let set = read_image(&im.path).and_then(|pic| {
                self.set_background_image(&pic, im.fit)
                    .map_err(|e| format!("background image {}: {e}", im.path.display()))
            });
            if let Err(e) = set {
                said.push(format!("{e}; the background colour shows instead"));
            }
        }
        if let Some(v) = &bg.video {
            match crate::video::locate_ffmpeg(ffmpeg) {
                Ok(program) => self.set_background_video(v, &program),
                Err(e) => said.push(format!(
                    "background video {} is not shown: it needs ffmpeg ({e})",
                    v.path.display()
                )),
            }
        }
        said
    }

    /// What went wrong with the background video while drawing (each
    /// failure once), taken.
    pub fn take_background_messages(&mut self) -> Vec<String> {
        std::mem::take(&mut self.layers.messages)
    }

    /// How many times background pixels went to the GPU: the image once,
    /// each new video frame once (pictures that show the same ones send
    /// nothing).
    pub fn background_uploads(&self) -> u32 {
        self.layers.uploads
    }

    /// How many ffmpeg processes the background video has started (each
    /// seek starts one; playing on reads the same one).
    pub fn background_video_processes(&self) -> u32 {
        self.layers
            .video
            .as_ref()
            .map_or(0, |v| v.frames.processes_started())
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

    /// Places the last actor added in the scene (its
    /// [`ActorPlacement`](crate::scene::ActorPlacement) matrix; `None`:
    /// the origin): its bones, vertices and bodies are posed there.
    pub fn place_last_actor(&mut self, placement: Option<glam::Mat4>) {
        if let Some(a) = self.actors.last_mut() {
            a.posing.set_placement(placement);
        }
    }

    /// Adds a stage or prop (a PMX/PMD, or a `.x` converted to a model) at
    /// its rest pose.
    pub fn add_prop(&mut self, model: LoadedModel, order: DrawOrder) -> Result<(), RenderError> {
        self.add_stage(model, order, None)
    }

    /// Adds a stage playing its own `motion` (its moving parts, posed at
    /// each frame without physics), or at rest without one.
    pub fn add_stage(
        &mut self,
        model: LoadedModel,
        order: DrawOrder,
        motion: Option<IndexedMotion>,
    ) -> Result<(), RenderError> {
        let mut prop = StageProp::new(&self.off, model, order, None)?;
        if let Some(m) = motion {
            prop.animate(m);
        }
        self.props.push(prop);
        Ok(())
    }

    /// Adds an accessory (`model`: its `.x` converted) placed, keyed and
    /// attached as `accessory` says.
    pub fn add_accessory(
        &mut self,
        model: LoadedModel,
        accessory: SetAccessory,
    ) -> Result<(), RenderError> {
        let order = accessory.order;
        let prop = StageProp::new(&self.off, model, order, Some(accessory))?;
        self.props.push(prop);
        Ok(())
    }

    /// The world matrix of bone `bone` of actor `actor` as last posed.
    fn bone_world(actors: &[StageActor], actor: usize, bone: &str) -> Option<Mat4> {
        let a = actors.get(actor)?;
        let i = a
            .model
            .model
            .skeleton
            .bones
            .iter()
            .position(|b| b.name == bone)?;
        a.posing.posed.bone_world.get(i).copied()
    }

    /// The view at `frame` for a picture of `aspect` (width / height), its
    /// far plane reaching the farthest corner of the stages' bounds.
    pub fn view_at(&self, frame: f64, aspect: f32) -> ViewParams {
        let (target, rotation, distance, fov, perspective) = self
            .camera
            .as_ref()
            .and_then(|c| evaluate::camera_at(&c.motion, &c.index, frame))
            .map_or(([0.0, 10.0, 0.0], [0.0; 3], -45.0, 30.0, true), |c| {
                (c.target, c.rotation, c.distance, c.fov, c.perspective)
            });
        let eye = glam::Vec3::from(crate::vmd::camera::eye_position(target, rotation, distance));
        let far = match self.set_bounds() {
            Some((min, max)) => crate::vmd::camera::fitted_far(eye, min, max),
            None => crate::vmd::camera::DEFAULT_FAR,
        };
        ViewParams::mmd_camera_far(target, rotation, distance, fov, perspective, aspect, far)
    }

    /// The axis-aligned bounds of the stages and props at rest (world
    /// units; accessories are small and left out), or `None` without any.
    pub fn set_bounds(&self) -> Option<(glam::Vec3, glam::Vec3)> {
        self.props
            .iter()
            .filter(|p| p.accessory.is_none())
            .filter_map(|p| p.bounds)
            .reduce(|(lo, hi), (a, b)| (lo.min(a), hi.max(b)))
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
        let actors = &self.actors;
        for p in &mut self.props {
            p.place(&self.off, frame, |a, b| Self::bone_world(actors, a, b))?;
        }
        let props = |order: DrawOrder| {
            self.props
                .iter()
                .filter(move |p| p.order == order && p.visible)
                .map(|p| &p.gpu)
        };
        let models: Vec<&GpuModel> = props(DrawOrder::BeforeModels)
            .chain(self.actors.iter().map(|a| &a.gpu))
            .chain(props(DrawOrder::AfterModels))
            .collect();
        let video_shown = match &mut self.layers.video {
            Some(v) => v
                .show(&self.off, frame, &mut self.layers.uploads)
                .unwrap_or_else(|e| {
                    self.layers.messages.push(e);
                    false
                }),
            None => false,
        };
        let mut layers: Vec<(&GpuBackground, ImageFit)> = Vec::new();
        if let Some((g, fit)) = &self.layers.image {
            layers.push((g, *fit));
        }
        if let Some(g) = (self.layers.video.as_ref())
            .and_then(|v| v.gpu.as_ref())
            .filter(|_| video_shown)
        {
            // MMD stretches its 背景AVI to the screen.
            layers.push((g, ImageFit::Stretch));
        }
        let backdrop = Backdrop {
            clear: self.background,
            layers: &layers,
        };
        self.off
            .picture_backdrop(target, &params, &models, &backdrop)
    }
}
