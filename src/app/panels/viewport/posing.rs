//! The viewport's shared posing: one [`PoseEngine`] per actor, posed once
//! per egui pass whatever the number of views, with the physics clock
//! ticked once. The skeleton, the joints, the gizmo and the rendered mesh
//! all come from that one posed result; the mesh's buffers are kept
//! between frames (refilled in place) and handed to every view's paint
//! callback by reference count.
//!
//! A mesh skinned on the GPU (where the device can: [`Skinning`]) costs
//! the CPU the pose (bones, physics, material morphs) and the packed pose
//! ([`fill_gpu_frame`](crate::render::from_model::fill_gpu_frame):
//! skinning matrices and morph weights); the compute
//! pass moves the vertices. Skinned on the CPU (the fallback and the
//! reference), the pose also morphs and skins every vertex here.

use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};

use super::super::Shared;
use super::super::gizmo::{self, PoseTool};
use super::super::model_view::{
    self, ActorFrame, FrameMesh, ModelCache, ModelEntry, PhysicsRun, Skinning,
};
use super::super::shots::ShotList;
use super::actor_pose::{ActorPose, Engine, Feed, Mesh, PoseKey};
use super::{ActorView, SceneView};
use crate::model::physics::{SceneActor, ScenePhysics, SimulationMode, Transport};
use crate::render::RenderVertex;
use crate::render::from_model::GpuFrameData;
use crate::vmd::evaluate::{self, CameraState};
use crate::workspace::document::Document;

/// The posing split for one view's drawing.
pub(super) struct Parts<'a> {
    /// Each actor's bone world matrices (empty: not posed).
    pub worlds: Vec<&'a [Mat4]>,
    pub tool: &'a mut PoseTool,
    pub now: Moment,
    pub shots: &'a ShotList,
    pub problems: &'a [String],
    pub picture_aspect: f32,
}

/// What the views share for the frame posed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Moment {
    /// The evaluated scene frame (sub-frames at preview rates above 30).
    pub eval: f64,
    /// The transport's frame (the playhead).
    pub playhead: f64,
    /// The scene camera at `eval`.
    pub camera: Option<CameraState>,
    pub playing: bool,
}

/// The viewport's shared posing: every actor posed once per egui pass,
/// the physics clock, the posing tool and the camera's shot list. Every
/// view draws from it.
#[derive(Debug)]
pub struct Posing {
    /// Posing: the selected bone, the gizmo, unregistered poses.
    pub pose: PoseTool,
    /// When the actors' rigid bodies are simulated (MMD's default: while
    /// playing). Kept between runs.
    pub physics: SimulationMode,
    /// Whether the bodies of different actors collide with each other (off:
    /// each actor's only with its own, as MMD). Kept between runs.
    pub collide_actors: bool,
    /// One world for every actor with rigid bodies, stepped once per pass.
    scene_physics: ScenePhysics,
    /// The camera document's shot list.
    pub(super) shots: ShotList,
    /// The loaded models drawn, by path.
    models: ModelCache,
    actors: Vec<Option<ActorPose>>,
    /// The pass the poses belong to.
    pass: Option<u64>,
    /// The frame posed.
    pub(super) now: Moment,
    /// Model problems met while posing (loading, failed files).
    pub(super) problems: Vec<String>,
    /// Width / height of the VMD camera's picture, as the last view through
    /// it framed it (the free view draws the camera's frustum with it).
    pub(super) picture_aspect: f32,
    /// Engine poses made so far (rig and figure engines together).
    poses: u64,
    /// Times the poses were brought up to date (once per pass).
    updates: u64,
    /// The set's stages and accessories, placed.
    set: super::set_pieces::SetMeshes,
    /// Where the meshes are skinned (the renderer's device decides; set
    /// each pass from the model view's).
    skinning: Skinning,
    /// Fast preview: the views draw without MSAA, with a smaller shadow
    /// map and fewer pixels (upscaled). Shared by the views, kept between
    /// runs; exports never use it.
    pub fast_preview: bool,
}

impl Default for Posing {
    fn default() -> Self {
        Posing {
            pose: PoseTool::default(),
            physics: SimulationMode::default(),
            collide_actors: false,
            scene_physics: ScenePhysics::new(SimulationMode::default()),
            shots: ShotList::default(),
            models: ModelCache::default(),
            actors: Vec::new(),
            pass: None,
            now: Moment::default(),
            problems: Vec::new(),
            picture_aspect: 16.0 / 9.0,
            poses: 0,
            updates: 0,
            set: Default::default(),
            skinning: Skinning::gpu(),
            fast_preview: false,
        }
    }
}

impl Posing {
    /// The switch letting actors' rigid bodies touch (Playback ▸ Physics
    /// and each view's Options menu).
    pub const COLLIDE_ACTORS: &str = "Actors' bodies collide with each other";
    /// Its tooltip.
    pub const COLLIDE_ACTORS_TIP: &str = "Off (as MMD): each actor's hair and skirts collide only \
         with its own body and the ground. On: with the other actors' bodies too (by their \
         collision groups).";

    /// Actor `actor`'s last pose: its motion frame and bone world matrices
    /// (skeleton, joints and gizmo; physics included), if it was posed.
    pub fn posed_bones(&self, actor: usize) -> Option<(f64, &[Mat4])> {
        let p = self.actors.get(actor)?.as_ref()?;
        let key = p.rig.last?;
        Some((key.frame, &p.rig.engine.posed.bone_world))
    }

    /// Every actor's bone world matrices as last posed (empty for an actor
    /// not posed).
    pub fn worlds(&self) -> Vec<&[Mat4]> {
        self.actors
            .iter()
            .map(|p| {
                p.as_ref()
                    .map_or(&[][..], |p| p.rig.engine.posed.bone_world.as_slice())
            })
            .collect()
    }

    /// Fixed physics steps the world holding actor `actor`'s bodies has
    /// taken (0 when it has none).
    pub fn physics_steps(&self, actor: usize) -> u64 {
        if self.scene_physics.simulates(actor) {
            return self.scene_physics.steps();
        }
        self.actors
            .get(actor)
            .and_then(Option::as_ref)
            .map_or(0, |p| p.rig.engine.physics_steps())
    }

    /// The scene's physics: one world for every actor with bodies (its
    /// mode and whether actors collide follow [`Posing::physics`] and
    /// [`Posing::collide_actors`] at each pass).
    pub fn scene_physics(&self) -> &ScenePhysics {
        &self.scene_physics
    }

    /// The frame posed last (shared by the views).
    pub fn moment(&self) -> Moment {
        self.now
    }

    /// Engine poses made so far: each actor's rig once per pass at most
    /// (its figure too, for a built-in actor drawn as the mannequin),
    /// and none while nothing changes without physics.
    pub fn poses(&self) -> u64 {
        self.poses
    }

    /// How many times the poses were brought up to date: once per egui
    /// pass, whatever the number of views.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// The switch for fast drawing (each view's Options menu).
    pub const FAST_PREVIEW: &str = "Fast preview";
    /// Its tooltip.
    pub const FAST_PREVIEW_TIP: &str = "For a weak GPU: no anti-aliasing, a smaller self-shadow \
         map and 3/4 of the pixels each way, upscaled. Video, render and storyboard exports are \
         always drawn at full quality.";

    /// Where the meshes are skinned from the next pass on (the viewport
    /// takes the model view's at each pass; tests and benches choose).
    pub fn set_skinning(&mut self, skinning: Skinning) {
        self.skinning = skinning;
    }

    /// What one view needs while it draws: the poses (read), the posing
    /// tool (written), the moment, the shots and the problems.
    pub(super) fn parts(&mut self) -> Parts<'_> {
        Parts {
            worlds: self
                .actors
                .iter()
                .map(|p| {
                    p.as_ref()
                        .map_or(&[][..], |p| p.rig.engine.posed.bone_world.as_slice())
                })
                .collect(),
            tool: &mut self.pose,
            now: self.now,
            shots: &self.shots,
            problems: &self.problems,
            picture_aspect: self.picture_aspect,
        }
    }

    /// The binding of actor `actor`'s motion (the side panel's lists).
    pub(super) fn binding(&self, actor: usize) -> Option<&crate::model::MotionBinding> {
        self.actors.get(actor)?.as_ref()?.rig.engine.binding()
    }

    /// Brings the poses up to date for this pass (the first view to draw
    /// does it; the others find it done).
    pub fn prepare(&mut self, ui: &egui::Ui, scene: &SceneView, shared: &mut Shared) {
        // This frame draws a picture (counted once, whatever the views).
        let (frame, time) = (ui.ctx().cumulative_frame_nr(), ui.input(|i| i.time));
        shared.pictures.drawn(frame, time, shared.transport.playing);
        let pass = ui.ctx().cumulative_pass_nr();
        if self.pass == Some(pass) {
            return;
        }
        // Escape deselects (as in MMD), in whichever view.
        if !ui.ctx().egui_wants_keyboard_input()
            && self.pose.selected.is_some()
            && ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape))
        {
            self.pose.deselect();
        }
        let elapsed = ui.input(|i| i.unstable_dt);
        let mesh = matches!(model_view::status(ui.ctx()), model_view::Status::Ready(_));
        self.skinning = model_view::skinning(ui.ctx());
        self.update(pass, scene, shared, elapsed, mesh);
        // Always runs on while stopped: keep painting while a world exists.
        if self.physics == SimulationMode::Always
            && !shared.transport.playing
            && (self.scene_physics.world().is_some()
                || self
                    .actors
                    .iter()
                    .flatten()
                    .any(|p| p.rig.engine.physics().is_some()))
        {
            ui.ctx().request_repaint();
        }
    }

    /// Poses every actor of `scene` for pass `pass` (nothing if already
    /// done for it): `elapsed` seconds of wall clock since the last picture
    /// (the physics clock), meshes filled when `mesh` (their packed poses
    /// where they skin on the GPU, see [`Posing::set_skinning`], else
    /// their vertices).
    pub fn update(
        &mut self,
        pass: u64,
        scene: &SceneView,
        shared: &mut Shared,
        elapsed: f32,
        mesh: bool,
    ) {
        if self.pass == Some(pass) {
            return;
        }
        self.pass = Some(pass);
        self.updates += 1;
        let eval = shared.transport.eval_frame();
        let playhead = shared.transport.frame;
        self.now = Moment {
            eval,
            playhead,
            camera: scene
                .camera
                .and_then(|d| evaluate::camera_at(&d.motion, &d.index, eval)),
            playing: shared.transport.playing,
        };
        self.shots.refresh(scene.camera);
        self.pose.sync(scene, playhead);
        self.problems.clear();

        // Physics: the user's mode, the transport's state and the wall-clock
        // time since the last picture (Always runs on while stopped; capped
        // so a stall does not simulate seconds at once).
        let transport = Transport {
            playing: shared.transport.playing,
            elapsed: if elapsed.is_finite() {
                elapsed.clamp(0.0, 0.1)
            } else {
                0.0
            },
        };
        let dragged = self
            .pose
            .selected
            .as_ref()
            .filter(|_| self.pose.dragging())
            .map(|s| s.actor);
        let mode = self.physics;
        let run = |i: usize| PhysicsRun {
            mode,
            dragging: dragged == Some(i),
            transport,
        };

        self.actors.resize_with(scene.actors.len(), || None);
        let plans = plan_actors(
            &self.pose,
            &mut self.models,
            &mut self.actors,
            &mut self.problems,
            scene,
            (eval, playhead),
            mesh.then_some(&self.skinning),
        );

        // The rigs with rigid bodies: one world, stepped once for all.
        let shared_world = self.physics != SimulationMode::Off;
        let mut changed = vec![false; scene.actors.len()];
        if shared_world {
            let keys: Vec<PoseKey> = plans.iter().map(|p| p.key).collect();
            let step = WorldStep {
                transport,
                dragged,
                eval,
                mode: self.physics,
                collide_actors: self.collide_actors,
            };
            let (posed, poses) = step_shared_world(
                &mut self.scene_physics,
                &mut self.actors,
                scene,
                &keys,
                step,
                shared,
            );
            changed = posed;
            self.poses += poses;
        }

        for (i, a) in scene.actors.iter().enumerate() {
            let Some(p) = self.actors[i].as_mut() else {
                continue;
            };
            let own_rig = !shared_world || a.rig.rigid_bodies.is_empty();
            self.poses += pose_actor(p, a, plans[i], run(i), own_rig, changed[i], shared);
        }
        if mesh {
            self.place_set(scene, eval);
        }
    }

    /// Places the set's stages and accessories for scene frame `eval`; an
    /// accessory follows its parent bone as the actor is drawn now.
    fn place_set(&mut self, scene: &SceneView, eval: f64) {
        let actors = &self.actors;
        self.set.update(&scene.set, eval, |i, bone| {
            let p = actors.get(i)?.as_ref()?;
            // The drawn figure's bone when it is not the rig.
            let (model, posed) = match p.mesh.as_ref().and_then(|m| Some((m, m.figure.as_ref()?))) {
                Some((m, fig)) => (&m.entry.asset.loaded.model, &fig.engine.posed),
                None => (scene.actors.get(i)?.rig, &p.rig.engine.posed),
            };
            let b = model.skeleton.bones.iter().position(|b| b.name == bone)?;
            posed.bone_world.get(b).copied()
        });
    }

    /// The set's visible pieces' bounds (MMD units), for the far plane.
    pub fn set_bounds(&self) -> Option<(Vec3, Vec3)> {
        self.set.bounds()
    }

    /// Times a set piece was placed (its vertices moved on the CPU).
    pub fn set_placements(&self) -> u64 {
        self.set.placements()
    }

    /// What the GPU draws this pass: the set's pieces drawn before the
    /// models, each actor's mesh buffers (shared, not copied), then the
    /// pieces drawn after.
    pub fn frames(&self) -> Vec<ActorFrame> {
        use crate::scene::set::DrawOrder;
        let before: Vec<ActorFrame> = self.set.frames(DrawOrder::BeforeModels).collect();
        let after = self.set.frames(DrawOrder::AfterModels);
        let actors = self
            .actors
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let m = p.as_ref()?.mesh.as_ref()?;
                Some(ActorFrame {
                    key: (i, m.entry.id),
                    generation: m.generation,
                    template: m.entry.asset.template.clone(),
                    mesh: if m.gpu {
                        FrameMesh::Gpu(Arc::clone(&m.gpu_frame))
                    } else {
                        FrameMesh::Vertices {
                            vertices: Arc::clone(&m.vertices),
                            materials: Arc::clone(&m.materials),
                        }
                    },
                })
            })
            .collect::<Vec<_>>();
        before.into_iter().chain(actors).chain(after).collect()
    }

    /// Actor `actor`'s mesh vertices as last filled when it is skinned on
    /// the CPU (tests: the buffer is reused, and agrees with the skeleton).
    pub fn mesh_vertices(&self, actor: usize) -> Option<&Arc<Vec<RenderVertex>>> {
        let m = self.actors.get(actor)?.as_ref()?.mesh.as_ref()?;
        (!m.gpu).then_some(&m.vertices)
    }

    /// Actor `actor`'s packed pose and materials as last filled when it is
    /// skinned on the GPU.
    pub fn mesh_gpu_frame(&self, actor: usize) -> Option<&Arc<GpuFrameData>> {
        let m = self.actors.get(actor)?.as_ref()?.mesh.as_ref()?;
        m.gpu.then_some(&m.gpu_frame)
    }
}

/// One shared physics step's inputs: the transport, the actor whose bone
/// the gizmo drags, the scene frame, and the user's physics settings.
#[derive(Clone, Copy)]
struct WorldStep {
    transport: Transport,
    dragged: Option<usize>,
    eval: f64,
    mode: SimulationMode,
    collide_actors: bool,
}

/// Steps the one physics world of the actors with rigid bodies at
/// scene frame `eval` (each with its pose key), naming blow-ups on the
/// status line; returns which actors it posed and how many poses it made.
fn step_shared_world(
    sp: &mut ScenePhysics,
    actors: &mut [Option<ActorPose>],
    scene: &SceneView,
    keys: &[PoseKey],
    step: WorldStep,
    shared: &mut Shared,
) -> (Vec<bool>, u64) {
    let WorldStep {
        transport,
        dragged,
        eval,
        mode,
        collide_actors,
    } = step;
    let mut poses = 0;
    let mut changed = vec![false; scene.actors.len()];
    sp.set_mode(mode);
    sp.set_transport(transport);
    sp.set_collide_across_actors(collide_actors);
    let mut places = Vec::new();
    let mut members = Vec::new();
    for (i, (slot, a)) in actors.iter_mut().zip(&scene.actors).enumerate() {
        let Some(p) = slot.as_mut() else {
            continue;
        };
        if a.rig.rigid_bodies.is_empty() {
            continue;
        }
        let key = keys[i];
        places.push(i);
        members.push(SceneActor {
            key: p.rig_id,
            engine: &mut p.rig.engine,
            model: a.rig,
            motion: a.motion.map(Document::source),
            offset: f64::from(a.offset),
            replace: key.replace,
            follow: dragged == Some(i),
            skin: key.feed == Feed::Cpu,
        });
    }
    let messages = sp.pose(&mut members, eval);
    drop(members);
    for (k, m) in messages {
        if let Some(&i) = places.get(k) {
            shared.error(format!("{}: {m}", scene.actors[i].name));
        }
    }
    for &i in &places {
        if let Some(p) = actors[i].as_mut() {
            // A GPU-skinned mesh still needs its material morphs.
            if keys[i].feed == Feed::Gpu {
                p.rig.engine.morph_materials(scene.actors[i].rig);
            }
            p.rig.last = Some(keys[i]);
            changed[i] = true;
            poses += 1;
        }
    }
    (changed, poses)
}

/// One actor's pose input for a pass: its motion frame, the posing tool's
/// pending override and the rig's pose key.
#[derive(Clone, Copy)]
struct Plan<'a> {
    frame: f64,
    over: Option<(&'a str, Vec3, Quat)>,
    key: PoseKey,
}

/// Each actor's model (loaded when meshes are drawn, skinned as `mesh`
/// says; problems noted) and pose input for this pass at scene frame
/// `eval` (`at` = (eval, playhead)).
#[allow(clippy::too_many_arguments)]
fn plan_actors<'a>(
    pose: &'a PoseTool,
    models: &mut ModelCache,
    actors: &mut [Option<ActorPose>],
    problems: &mut Vec<String>,
    scene: &SceneView,
    (eval, playhead): (f64, f64),
    mesh: Option<&Skinning>,
) -> Vec<Plan<'a>> {
    let mut plans = Vec::with_capacity(scene.actors.len());
    for (i, a) in scene.actors.iter().enumerate() {
        let frame = eval - f64::from(a.offset);
        let over = a
            .motion
            .and_then(|d| pose.override_for(i, d, gizmo::motion_frame(playhead, a.offset)));
        let entry = if mesh.is_some() {
            match models.model(a.model_path, a.model) {
                Ok(e) => Some(e),
                Err(e) => {
                    problems.push(e);
                    None
                }
            }
        } else {
            None
        };
        let p = refresh_actor(&mut actors[i], a, entry);
        if let (Some(m), Some(s)) = (p.mesh.as_mut(), mesh) {
            m.skin_on(s.on_gpu(m.entry.id));
        }
        // The rig feeds the mesh too when it is the drawn mesh's model.
        let feed = match &p.mesh {
            Some(m) if m.figure.is_none() => m.feed(),
            _ => Feed::Bones,
        };
        let key = PoseKey {
            frame,
            replace: over.and_then(|(n, t, q)| Some((a.skeleton().find(n)?, t, q))),
            feed,
        };
        plans.push(Plan { frame, over, key });
    }

    plans
}

/// Poses one actor's rig (when `own_rig`: not in the shared world) and its
/// drawn figure, and refills its mesh when the pose `changed`. Returns the
/// engine poses made.
fn pose_actor(
    p: &mut ActorPose,
    a: &ActorView,
    plan: Plan,
    physics: PhysicsRun,
    own_rig: bool,
    mut changed: bool,
    shared: &mut Shared,
) -> u64 {
    let mut poses = 0;
    if own_rig {
        changed = p.rig.pose(a.rig, a.motion, plan.key, physics);
        if changed {
            poses += 1;
        }
        if let Some(m) = p.rig.engine.take_physics_message() {
            shared.error(format!("{}: {m}", a.name));
        }
    }
    let Some(mesh) = p.mesh.as_mut() else {
        return poses;
    };
    let feed = mesh.feed();
    if let Some(fig) = mesh.figure.as_mut() {
        let model = &mesh.entry.asset.loaded.model;
        fig.rebind(model, a.motion);
        let key = PoseKey {
            frame: plan.frame,
            replace: plan
                .over
                .and_then(|(n, t, q)| Some((model.skeleton.find(n)?, t, q))),
            feed,
        };
        if fig.pose(model, a.motion, key, physics) {
            poses += 1;
            changed = true;
        }
        fig.engine.take_physics_message();
    }
    if changed || !mesh.filled() {
        // The figure's engine is lent out while its mesh refills.
        let figure = mesh.figure.take();
        let posed = figure
            .as_ref()
            .map_or(&p.rig.engine.posed, |f| &f.engine.posed);
        mesh.fill(posed);
        mesh.figure = figure;
    }
    poses
}

/// A new engine for a new model, a mesh for a newly loaded one; rebinds
/// after the document changed.
fn refresh_actor<'s>(
    slot: &'s mut Option<ActorPose>,
    actor: &ActorView,
    entry: Option<Arc<ModelEntry>>,
) -> &'s mut ActorPose {
    // The rig is the loaded model's when there is one, else the built-in.
    let rig_id = actor.model.map_or(0, |m| m.generation());
    if slot.as_ref().is_none_or(|p| p.rig_id != rig_id) {
        *slot = None;
    }
    let p = slot.get_or_insert_with(|| ActorPose {
        rig_id,
        rig: Engine::new(actor.rig),
        mesh: None,
    });
    p.rig.rebind(actor.rig, actor.motion);
    match entry {
        None => p.mesh = None,
        Some(e) if p.mesh.as_ref().is_some_and(|m| m.entry.id == e.id) => {}
        Some(e) => {
            // The rig poses the mesh when they are one model; the built-in
            // skeleton is drawn as the demo mannequin, posed on its own.
            let figure = (e.id != rig_id).then(|| Engine::new(&e.asset.loaded.model));
            if figure.is_none() {
                // The rig must be skinned before its first picture.
                p.rig.last = None;
            }
            p.mesh = Some(Mesh::new(e, figure));
        }
    }
    let placement = actor.placement.matrix();
    p.rig.place(placement);
    if let Some(f) = p.mesh.as_mut().and_then(|m| m.figure.as_mut()) {
        f.place(placement);
    }
    p
}
