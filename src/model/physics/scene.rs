//! Several actors, one physics world (issue 21 item 3): the scene's
//! physics driver. It owns one [`PhysicsPhysicsWorld::with_actors`] and one
//! [`PhysicsClock`]; each actor keeps its own [`PoseEngine`] (its motion,
//! its physics-off flags, its posing tool override). A frame goes in MMD's
//! order for all of them together: every actor's bones before physics,
//! one world step (kinematic bodies to their bones, fixed 1/120 s steps),
//! the world written back to each actor, every actor's bones after
//! physics, skinning. The clock's rules are those of one engine (the same
//! [`run_physics`](crate::model::engine) code): one actor through the
//! driver gives exactly the matrices of [`PoseEngine::enable_physics`].
//!
//! Each actor's bodies collide only with its own (and the ground) unless
//! [`ScenePhysics::set_collide_across_actors`] allows more. Actors without
//! rigid bodies are posed without the world. The world is rebuilt when the
//! set of actors with bodies (their keys, in order) changes; a motion bound
//! anew to one of them resets it.

use glam::{Mat4, Quat, Vec3};

use super::{
    PhysicsAction, PhysicsClock, PhysicsWorld, SETTLE_STEPS, SimulationMode, StepReport, Transport,
};
use crate::model::data::Model;
use crate::model::engine::{PhysicsFrame, physics_tracks, read_physics_off, run_physics};
use crate::model::{PoseEngine, replace_bone};
use crate::vmd::MotionRef;

/// One actor posed by [`ScenePhysics::pose`].
pub struct SceneActor<'a> {
    /// Names the actor's model (a loaded model's generation, an index):
    /// another key, or another order of keys, rebuilds the world.
    pub key: u64,
    pub engine: &'a mut PoseEngine,
    pub model: &'a Model,
    pub motion: Option<MotionRef<'a>>,
    /// Scene frames later than the motion's: motion frame = scene frame −
    /// offset.
    pub offset: f64,
    /// The posing tool's unregistered pose of one bone (bone, translation,
    /// rotation), applied to the frame shown.
    pub replace: Option<(usize, Vec3, Quat)>,
    /// This actor's bodies follow its bones (physics off for it, as while
    /// the gizmo drags one of its bones); the others still simulate.
    pub follow: bool,
    /// Also morph and skin the vertices (else the bones only).
    pub skin: bool,
}

/// A member of the world: an actor with rigid bodies.
#[derive(Debug, Clone)]
struct Member {
    key: u64,
    /// Its place in the slice given to [`ScenePhysics::pose`].
    actor: usize,
    /// The engine's bind generation the tracks were read for.
    binds: u64,
    tracks: Vec<(usize, usize)>,
    /// The engine's placement when last posed: a new one resets the world.
    placement: Option<Mat4>,
}

/// The scene's physics: one world and one clock for every actor.
#[derive(Debug)]
pub struct ScenePhysics {
    clock: PhysicsClock,
    transport: Transport,
    collide_across: bool,
    world: Option<PhysicsWorld>,
    members: Vec<Member>,
    /// Every member's bones, joined in world order.
    bones: Vec<Mat4>,
    /// Every member's physics-off flags, joined likewise.
    off: Vec<bool>,
    steps: u64,
}

impl ScenePhysics {
    /// A driver simulating in `mode`; the first frame posed builds the
    /// world and resets it. Collisions across actors are off.
    pub fn new(mode: SimulationMode) -> ScenePhysics {
        ScenePhysics {
            clock: PhysicsClock::new(mode),
            transport: Transport::PLAYING,
            collide_across: false,
            world: None,
            members: Vec::new(),
            bones: Vec::new(),
            off: Vec::new(),
            steps: 0,
        }
    }

    pub fn mode(&self) -> SimulationMode {
        self.clock.mode()
    }

    /// Changes the mode (from Off: the next frame resets).
    pub fn set_mode(&mut self, mode: SimulationMode) {
        self.clock.set_mode(mode);
    }

    /// What the transport does for the next frames posed (default:
    /// playing, as the CLI poses frames in order).
    pub fn set_transport(&mut self, transport: Transport) {
        self.transport = transport;
    }

    /// The next frame resets the world (the user's reset).
    pub fn request_reset(&mut self) {
        self.clock.request_reset();
    }

    /// Whether bodies of different actors collide (off by default).
    pub fn collides_across_actors(&self) -> bool {
        self.collide_across
    }

    /// Lets the bodies of different actors collide by their groups and
    /// masks (`true`), or keeps each actor's bodies to its own.
    pub fn set_collide_across_actors(&mut self, on: bool) {
        self.collide_across = on;
        if let Some(w) = &mut self.world {
            w.set_collide_across_actors(on);
        }
    }

    /// The world, once a frame with an actor with bodies was posed.
    pub fn world(&self) -> Option<&PhysicsWorld> {
        self.world.as_ref()
    }

    /// Whether actor `actor` (its place in the last slice posed) has its
    /// bodies in the world.
    pub fn simulates(&self, actor: usize) -> bool {
        self.world.is_some() && self.members.iter().any(|m| m.actor == actor)
    }

    /// Fixed 1/120 s steps the world has taken (settling included), over
    /// every rebuild.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Poses every actor at scene frame `frame` (a non-finite frame counts
    /// as 0), in MMD's order, all actors' bodies in one world step. Returns
    /// the blow-up messages (a reset naming the body, by its index in its
    /// own model), each with the place of its actor in `actors`.
    pub fn pose(&mut self, actors: &mut [SceneActor<'_>], frame: f64) -> Vec<(usize, String)> {
        let frame = if frame.is_finite() { frame } else { 0.0 };
        self.sync(actors);
        // Actors without bodies: posed as without physics.
        for (i, a) in actors.iter_mut().enumerate() {
            if !self.members.iter().any(|m| m.actor == i) {
                plain(a, frame);
            }
        }
        if self.members.is_empty() {
            return Vec::new();
        }
        let action = self.clock.decide(frame, self.transport);
        if action == PhysicsAction::Off {
            for m in &self.members {
                if let Some(a) = actors.get_mut(m.actor) {
                    plain(a, frame);
                }
            }
            return Vec::new();
        }
        let Some(world) = self.world.as_mut() else {
            return Vec::new();
        };
        let report = run_physics(
            action,
            frame,
            &mut SceneFrame {
                world,
                members: &self.members,
                actors,
                bones: &mut self.bones,
                off: &mut self.off,
                steps: &mut self.steps,
            },
        );
        world.write_back(&mut self.bones);
        for (k, m) in self.members.iter().enumerate() {
            let Some(a) = actors.get_mut(m.actor) else {
                continue;
            };
            if let Some(span) = world.actor_bones(k) {
                let out = &mut a.engine.posed.bone_world;
                let n = out.len().min(span.len());
                out[..n].copy_from_slice(&self.bones[span.start..span.start + n]);
            }
            a.engine.pose_after_physics(a.model);
            if a.skin {
                a.engine.skin(a.model);
            }
        }
        report
            .reset
            .map(|msg| (self.actor_of(report.reset_body), msg))
            .into_iter()
            .collect()
    }

    /// Rebuilds the world when the actors with bodies changed; rereads an
    /// actor's physics-off tracks (and resets) when its motion was bound
    /// anew.
    fn sync(&mut self, actors: &mut [SceneActor<'_>]) {
        let with_bodies: Vec<(usize, u64)> = actors
            .iter()
            .enumerate()
            .filter(|(_, a)| !a.model.rigid_bodies.is_empty())
            .map(|(i, a)| (i, a.key))
            .collect();
        let same = self.world.is_some()
            && with_bodies.len() == self.members.len()
            && with_bodies
                .iter()
                .zip(&self.members)
                .all(|(&(_, key), m)| key == m.key);
        if !same {
            self.members = with_bodies
                .iter()
                .map(|&(actor, key)| Member {
                    key,
                    actor,
                    binds: actors[actor].engine.bind_generation(),
                    tracks: physics_tracks(actors[actor].model, actors[actor].engine.binding()),
                    placement: actors[actor].engine.placement(),
                })
                .collect();
            self.world = if self.members.is_empty() {
                None
            } else {
                let models: Vec<&Model> =
                    self.members.iter().map(|m| actors[m.actor].model).collect();
                let mut w = PhysicsWorld::with_actors(&models);
                w.set_collide_across_actors(self.collide_across);
                Some(w)
            };
            let n: usize = self
                .members
                .iter()
                .map(|m| actors[m.actor].model.skeleton.bones.len())
                .sum();
            self.bones = vec![Mat4::IDENTITY; n];
            self.off = vec![false; n];
            self.clock.request_reset();
        }
        for (m, &(actor, _)) in self.members.iter_mut().zip(&with_bodies) {
            m.actor = actor;
            let a = &mut actors[actor];
            // The engine's own world, if any, would simulate these bodies twice.
            if a.engine.physics().is_some() {
                a.engine.disable_physics();
            }
            let binds = a.engine.bind_generation();
            if binds != m.binds {
                m.binds = binds;
                m.tracks = physics_tracks(a.model, a.engine.binding());
                self.clock.request_reset();
            }
            // An actor moved in the scene: its bodies snap to where its
            // bones now are (a reset), as after a new motion.
            let placement = a.engine.placement();
            if placement != m.placement {
                m.placement = placement;
                self.clock.request_reset();
            }
        }
    }

    /// The scene actor whose body blew up (`body` in the joined world's
    /// numbering; the message already names it within its own model).
    fn actor_of(&self, body: Option<usize>) -> usize {
        let world_actor = match (&self.world, body) {
            (Some(world), Some(i)) => (0..world.actor_count())
                .find(|&k| world.actor_bodies(k).is_some_and(|r| r.contains(&i))),
            _ => None,
        };
        self.members
            .get(world_actor.unwrap_or(0))
            .map_or(0, |m| m.actor)
    }
}

/// Poses one actor without the world.
fn plain(a: &mut SceneActor<'_>, frame: f64) {
    let f = frame - a.offset;
    if a.skin {
        a.engine
            .pose_adjusted(a.model, a.motion, f, replace_bone(a.replace));
    } else {
        a.engine
            .pose_bones(a.model, a.motion, f, replace_bone(a.replace));
    }
}

/// One frame of the joined world.
struct SceneFrame<'w, 'a, 'b> {
    world: &'w mut PhysicsWorld,
    members: &'w [Member],
    actors: &'w mut [SceneActor<'a>],
    bones: &'b mut Vec<Mat4>,
    off: &'b mut Vec<bool>,
    steps: &'b mut u64,
}

impl PhysicsFrame for SceneFrame<'_, '_, '_> {
    fn before(&mut self, frame: f64, last: bool) {
        for (k, m) in self.members.iter().enumerate() {
            let (Some(a), Some(span)) = (self.actors.get_mut(m.actor), self.world.actor_bones(k))
            else {
                continue;
            };
            let f = frame - a.offset;
            let replace = if last { a.replace } else { None };
            a.engine
                .pose_before_physics(a.model, a.motion, f, replace_bone(replace));
            let posed = &a.engine.posed.bone_world;
            let n = posed.len().min(span.len());
            self.bones[span.start..span.start + n].copy_from_slice(&posed[..n]);
            let off = &mut self.off[span];
            if a.follow {
                off.iter_mut().for_each(|o| *o = true);
            } else {
                read_physics_off(&m.tracks, a.motion, f, off);
            }
        }
        self.world.set_physics_off(self.off);
    }

    fn step(&mut self, seconds: f32) -> StepReport {
        let r = self.world.step(self.bones, seconds);
        *self.steps += u64::from(r.steps);
        r
    }

    fn reset(&mut self) {
        self.world.reset(self.bones);
        *self.steps += u64::from(SETTLE_STEPS);
    }
}
