//! The viewport's shared posing: one [`PoseEngine`] per actor, posed once
//! per egui pass whatever the number of views, with the physics clock
//! ticked once. The skeleton, the joints, the gizmo and the rendered mesh
//! all come from that one posed result; the mesh's vertex and material
//! buffers are kept between frames (refilled in place) and handed to every
//! view's paint callback by reference count.

use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};

use super::super::Shared;
use super::super::gizmo::{self, PoseTool};
use super::super::model_view::{self, ActorFrame, ModelCache, ModelEntry, PhysicsRun};
use super::super::shots::ShotList;
use super::{ActorView, SceneView};
use crate::model::physics::{SceneActor, ScenePhysics, SimulationMode, Transport};
use crate::model::{Model, PoseEngine, replace_bone};
use crate::render::from_model::{posed_materials, posed_vertices};
use crate::render::{RenderMaterial, RenderVertex};
use crate::vmd::evaluate::{self, CameraState};
use crate::workspace::document::Document;

/// A bone's local values replaced by the posing tool: (bone, translation, rotation).
type Override = Option<(usize, Vec3, Quat)>;

/// What a pose was made from: motion frame, the posing tool's override,
/// and whether it was skinned (a bones-only pose cannot feed the mesh).
#[derive(Debug, Clone, Copy, PartialEq)]
struct PoseKey {
    frame: f64,
    replace: Override,
    skinned: bool,
}

/// One engine posing one model, rebound when its document changes.
#[derive(Debug)]
struct Engine {
    engine: PoseEngine,
    /// The document (id, revision) the engine is bound to.
    bound: Option<(u64, u64)>,
    /// What the last pose was made from (its matrices are
    /// `engine.posed.bone_world`).
    last: Option<PoseKey>,
}

impl Engine {
    fn new(model: &Model) -> Engine {
        Engine {
            engine: PoseEngine::new(model),
            bound: None,
            last: None,
        }
    }

    /// Rebinds after the actor's document changed.
    fn rebind(&mut self, model: &Model, motion: Option<&Document>) {
        let want = motion.map(|d| (d.id, d.revision));
        if self.bound != want || (want.is_none() && self.engine.binding().is_some()) {
            self.engine.bind(model, motion.map(|d| &d.index));
            self.bound = want;
            self.last = None;
        }
    }

    /// Places the model in the scene (the actor's placement); a new
    /// placement poses again.
    fn place(&mut self, placement: Option<glam::Mat4>) {
        if self.engine.placement() != placement {
            self.engine.set_placement(placement);
            self.last = None;
        }
    }

    /// Poses `model` at motion frame `key.frame` (skinned if `key.skinned`)
    /// unless the last pose was made from the same input and nothing is
    /// simulated (with physics every pass poses: the clock decides what
    /// time does). Returns whether it posed.
    fn pose(
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
        if key.skinned {
            self.engine
                .pose_adjusted(model, motion, key.frame, replace_bone(key.replace));
        } else {
            self.engine
                .pose_bones(model, motion, key.frame, replace_bone(key.replace));
        }
        self.last = Some(key);
        true
    }
}

/// The mesh drawn for an actor: its model's buffers, refilled in place
/// when the pose changes.
#[derive(Debug)]
struct Mesh {
    entry: Arc<ModelEntry>,
    /// The drawn figure when it is not the rig (the demo mannequin standing
    /// in for the built-in skeleton): its own engine.
    figure: Option<Engine>,
    vertices: Arc<Vec<RenderVertex>>,
    materials: Arc<Vec<RenderMaterial>>,
    /// Bumped whenever the buffers are refilled (the GPU side uploads a
    /// generation once, whatever the number of views).
    generation: u64,
}

/// One actor's posing state.
#[derive(Debug)]
struct ActorPose {
    /// The rig's [`ModelAsset::generation`](crate::render::asset::ModelAsset::generation)
    /// (0: the built-in skeleton): a new model is a new engine.
    rig_id: u64,
    rig: Engine,
    mesh: Option<Mesh>,
}

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
    /// (the physics clock), skinned meshes filled when `mesh`.
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
            mesh,
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
                    vertices: Arc::clone(&m.vertices),
                    materials: Arc::clone(&m.materials),
                })
            })
            .collect::<Vec<_>>();
        before.into_iter().chain(actors).chain(after).collect()
    }

    /// Actor `actor`'s mesh vertices as last filled (tests: the buffer is
    /// reused, and agrees with the skeleton).
    pub fn mesh_vertices(&self, actor: usize) -> Option<&Arc<Vec<RenderVertex>>> {
        Some(&self.actors.get(actor)?.as_ref()?.mesh.as_ref()?.vertices)
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
            skin: key.skinned,
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

/// Each actor's model (loaded when `mesh`; problems noted) and pose input
/// for this pass at scene frame `eval` (`at` = (eval, playhead)).
#[allow(clippy::too_many_arguments)]
fn plan_actors<'a>(
    pose: &'a PoseTool,
    models: &mut ModelCache,
    actors: &mut [Option<ActorPose>],
    problems: &mut Vec<String>,
    scene: &SceneView,
    (eval, playhead): (f64, f64),
    mesh: bool,
) -> Vec<Plan<'a>> {
    let mut plans = Vec::with_capacity(scene.actors.len());
    for (i, a) in scene.actors.iter().enumerate() {
        let frame = eval - f64::from(a.offset);
        let over = a
            .motion
            .and_then(|d| pose.override_for(i, d, gizmo::motion_frame(playhead, a.offset)));
        let entry = if mesh {
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
        // The rig: skinned too when it is the drawn mesh's model.
        let rig_is_mesh = p.mesh.as_ref().is_some_and(|m| m.figure.is_none());
        let key = PoseKey {
            frame,
            replace: over.and_then(|(n, t, q)| Some((a.skeleton().find(n)?, t, q))),
            skinned: rig_is_mesh,
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
    let model = &mesh.entry.asset.loaded.model;
    if let Some(fig) = mesh.figure.as_mut() {
        fig.rebind(model, a.motion);
        let key = PoseKey {
            frame: plan.frame,
            replace: plan
                .over
                .and_then(|(n, t, q)| Some((model.skeleton.find(n)?, t, q))),
            skinned: true,
        };
        if fig.pose(model, a.motion, key, physics) {
            poses += 1;
            changed = true;
        }
        fig.engine.take_physics_message();
    }
    if changed || mesh.vertices.is_empty() {
        let posed = match &mesh.figure {
            Some(f) => &f.engine.posed,
            None => &p.rig.engine.posed,
        };
        // In place when no paint callback still holds last frame's.
        posed_vertices(model, posed, Arc::make_mut(&mut mesh.vertices));
        posed_materials(
            &mesh.entry.asset.template.mesh.materials,
            posed,
            Arc::make_mut(&mut mesh.materials),
        );
        mesh.generation += 1;
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
            p.mesh = Some(Mesh {
                entry: e,
                figure,
                vertices: Arc::default(),
                materials: Arc::default(),
                generation: 0,
            });
        }
    }
    let placement = actor.placement.matrix();
    p.rig.place(placement);
    if let Some(f) = p.mesh.as_mut().and_then(|m| m.figure.as_mut()) {
        f.place(placement);
    }
    p
}
