//! The scene: models wearing motions, one camera, one light and a song slot,
//! arranged on one timeline. Pure: no GUI type, tested with
//! `cargo test --no-default-features`.
//!
//! A scene only *arranges* motions; it never owns or edits them. It is
//! generic over the handle `H` that names a motion: the app uses its
//! document ids, the `.vmdscene` file ([`file`](mod@file)) uses paths.
//!
//! Time: every frame here is an MMD frame (30 per second). An actor's
//! `offset` shifts its motion on the scene timeline: the motion's frame `f`
//! plays at scene frame `f + offset` (see [`Actor::motion_frame`]).

use std::path::PathBuf;

use crate::vmd::Motion;

pub mod collect;
pub mod file;
pub mod file_set;
pub mod motion_path;
pub mod recovery;
pub mod set;
pub mod shadow;
pub mod shots;
pub mod value_graph;
pub mod video;
pub mod view;

/// Which model an actor is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ModelRef {
    /// The built-in standard MMD skeleton.
    #[default]
    Builtin,
    /// A PMX/PMD file.
    File(PathBuf),
}

impl ModelRef {
    /// Short name for lists: the file name, or "built-in skeleton".
    pub fn display_name(&self) -> String {
        match self {
            ModelRef::Builtin => "built-in skeleton".to_owned(),
            ModelRef::File(p) => p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string()),
        }
    }
}

/// Where an actor stands in the scene: a position (MMD units) and a turn
/// about the vertical axis, above everything its motion does — as MMD
/// users place a model with an outside parent of its 全ての親. The turn
/// follows the accessory panel's Ry (degrees, `Quat::from_rotation_y`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ActorPlacement {
    pub position: glam::Vec3,
    /// Degrees about Y.
    pub turn_degrees: f32,
}

impl ActorPlacement {
    /// At the origin, unturned (where MMD loads every model).
    pub const ORIGIN: ActorPlacement = ActorPlacement {
        position: glam::Vec3::ZERO,
        turn_degrees: 0.0,
    };

    /// Whether this is the origin, unturned.
    pub fn is_origin(&self) -> bool {
        *self == ActorPlacement::ORIGIN
    }

    /// The placement as a matrix (`T(position) · Ry(turn)`); `None` at the
    /// origin or when a value is not finite (such an actor stands at the
    /// origin).
    pub fn matrix(&self) -> Option<glam::Mat4> {
        if self.is_origin() || !self.position.is_finite() || !self.turn_degrees.is_finite() {
            return None;
        }
        Some(glam::Mat4::from_rotation_translation(
            glam::Quat::from_rotation_y(self.turn_degrees.to_radians()),
            self.position,
        ))
    }

    /// The turn as a rotation (identity when not finite).
    pub fn rotation(&self) -> glam::Quat {
        self.matrix().map_or(glam::Quat::IDENTITY, |m| {
            glam::Quat::from_mat4(&m).normalize()
        })
    }
}

/// A model wearing a motion.
#[derive(Debug, Clone, PartialEq)]
pub struct Actor<H> {
    /// Shown in lists; not a file name.
    pub name: String,
    pub model: ModelRef,
    /// The motion it wears (none: rest pose).
    pub motion: Option<H>,
    /// Frames the motion is shifted by on the scene timeline (may be negative).
    pub offset: i32,
    /// Where it stands in the scene.
    pub placement: ActorPlacement,
}

impl<H> Actor<H> {
    pub fn new(name: impl Into<String>) -> Self {
        Actor {
            name: name.into(),
            model: ModelRef::Builtin,
            motion: None,
            offset: 0,
            placement: ActorPlacement::ORIGIN,
        }
    }

    /// The motion's own frame at scene frame `scene_frame`
    /// (`scene_frame − offset`; before the motion starts it is negative,
    /// which evaluation clamps to the first key).
    pub fn motion_frame(&self, scene_frame: f64) -> f64 {
        scene_frame - f64::from(self.offset)
    }

    /// The scene frame where the motion's frame `motion_frame` plays.
    pub fn scene_frame(&self, motion_frame: f64) -> f64 {
        motion_frame + f64::from(self.offset)
    }
}

/// The song slot (audio playback belongs to another layer; the scene only
/// remembers the file and where it starts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Song {
    pub path: PathBuf,
    /// Scene frame at which the song's first sample plays.
    pub offset: i32,
}

/// How the preview looks at the scene (saved with it).
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewSettings {
    /// Look through the scene's VMD camera (else the free view).
    pub through_camera: bool,
    /// Evaluation rate of the preview: 30 (MMD's own), 60 or 120.
    pub rate: u32,
    /// Playhead, scene frames.
    pub frame: u32,
    /// The scene's physics mode (`None`: the scene does not say; the
    /// user's current mode stays).
    pub physics: Option<crate::model::physics::SimulationMode>,
    /// Whether the actors' rigid bodies collide with each other (off: each
    /// actor's bodies touch only its own and the ground).
    pub collide_actors: bool,
}

impl Default for PreviewSettings {
    fn default() -> Self {
        PreviewSettings {
            through_camera: true,
            rate: 30,
            frame: 0,
            physics: None,
            collide_actors: false,
        }
    }
}

/// The arrangement: actors, camera, light, song.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene<H> {
    pub actors: Vec<Actor<H>>,
    pub camera: Option<H>,
    /// The light motion; may be the same handle as the camera (MMD writes
    /// the light section into the camera file).
    pub light: Option<H>,
    pub song: Option<Song>,
    pub preview: PreviewSettings,
    /// Stages, accessories and the background.
    pub set: set::Set<H>,
}

impl<H> Default for Scene<H> {
    fn default() -> Self {
        Scene {
            actors: Vec::new(),
            camera: None,
            light: None,
            song: None,
            preview: PreviewSettings::default(),
            set: set::Set::default(),
        }
    }
}

/// What a VMD file is to a scene, from what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MotionRole {
    /// Bone or morph keys: worn by an actor.
    Motion,
    /// Camera keys only (the light section, if any, goes with it).
    Camera { with_light: bool },
    /// Light (and self-shadow) keys only.
    Light,
}

impl MotionRole {
    /// Bones or morphs make a motion, even with camera keys beside them;
    /// else camera keys make a camera; else light keys a light; an empty
    /// file is a motion (an actor's blank slate).
    pub fn of(m: &Motion) -> MotionRole {
        if !m.bones.is_empty() || !m.morphs.is_empty() || !m.iks.is_empty() {
            MotionRole::Motion
        } else if !m.cameras.is_empty() {
            MotionRole::Camera {
                with_light: !m.lights.is_empty(),
            }
        } else if !m.lights.is_empty() || !m.shadows.is_empty() {
            MotionRole::Light
        } else {
            MotionRole::Motion
        }
    }
}

/// Where an assignment put a file (for the status message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placed {
    /// Motion of actor `index` (`new` when the actor was created for it).
    ActorMotion {
        index: usize,
        new: bool,
    },
    /// Model of actor `index`.
    ActorModel {
        index: usize,
        new: bool,
    },
    Camera,
    CameraAndLight,
    Light,
    /// The own motion of stage `index` (its moving parts).
    StageMotion {
        index: usize,
    },
}

impl<H: Clone + PartialEq> Scene<H> {
    /// A new actor named "Actor N" with the built-in skeleton; returns its index.
    pub fn add_actor(&mut self) -> usize {
        let n = self.actors.len() + 1;
        self.actors.push(Actor::new(format!("Actor {n}")));
        self.actors.len() - 1
    }

    /// Puts a motion where its role says. A motion goes to the `selected`
    /// actor when that actor wears none yet, else to a new actor (an open
    /// motion is never silently dropped from the scene); a camera replaces
    /// the scene camera (and, carrying light keys, the light too); a light
    /// replaces the light.
    pub fn assign_motion(
        &mut self,
        handle: H,
        role: MotionRole,
        selected: Option<usize>,
    ) -> Placed {
        match role {
            MotionRole::Motion => {
                if let Some(i) = selected
                    && let Some(a) = self.actors.get_mut(i)
                    && a.motion.is_none()
                {
                    a.motion = Some(handle);
                    return Placed::ActorMotion {
                        index: i,
                        new: false,
                    };
                }
                let i = self.add_actor();
                self.actors[i].motion = Some(handle);
                Placed::ActorMotion {
                    index: i,
                    new: true,
                }
            }
            MotionRole::Camera { with_light } => {
                self.camera = Some(handle.clone());
                if with_light {
                    self.light = Some(handle);
                    Placed::CameraAndLight
                } else {
                    Placed::Camera
                }
            }
            MotionRole::Light => {
                self.light = Some(handle);
                Placed::Light
            }
        }
    }

    /// Puts a model on the `selected` actor (or the first, or a new one).
    pub fn assign_model(&mut self, model: ModelRef, selected: Option<usize>) -> Placed {
        let target = selected
            .filter(|&i| i < self.actors.len())
            .or(if self.actors.is_empty() {
                None
            } else {
                Some(0)
            });
        let (index, new) = match target {
            Some(i) => (i, false),
            None => (self.add_actor(), true),
        };
        self.actors[index].model = model;
        Placed::ActorModel { index, new }
    }

    /// Forgets a motion everywhere it is used (its document was closed).
    pub fn remove_motion(&mut self, handle: &H) {
        for a in &mut self.actors {
            if a.motion.as_ref() == Some(handle) {
                a.motion = None;
            }
        }
        if self.camera.as_ref() == Some(handle) {
            self.camera = None;
        }
        if self.light.as_ref() == Some(handle) {
            self.light = None;
        }
        for p in &mut self.set.props {
            if p.motion.as_ref() == Some(handle) {
                p.motion = None;
            }
        }
    }

    /// Whether the scene uses this motion in any role.
    pub fn uses(&self, handle: &H) -> bool {
        self.camera.as_ref() == Some(handle)
            || self.light.as_ref() == Some(handle)
            || self
                .actors
                .iter()
                .any(|a| a.motion.as_ref() == Some(handle))
            || self
                .set
                .props
                .iter()
                .any(|p| p.motion.as_ref() == Some(handle))
    }

    /// Every motion the scene uses, once each, in timeline order: camera,
    /// light, then the actors.
    pub fn motions(&self) -> Vec<H> {
        let mut out: Vec<H> = Vec::new();
        let all = self
            .camera
            .iter()
            .chain(self.light.iter())
            .chain(self.actors.iter().filter_map(|a| a.motion.as_ref()));
        for h in all {
            if !out.contains(h) {
                out.push(h.clone());
            }
        }
        out
    }

    /// The same scene with every handle mapped (e.g. document id → path).
    /// A handle that maps to `None` leaves its slot empty.
    pub fn map<G>(&self, mut f: impl FnMut(&H) -> Option<G>) -> Scene<G> {
        Scene {
            actors: self
                .actors
                .iter()
                .map(|a| Actor {
                    name: a.name.clone(),
                    model: a.model.clone(),
                    motion: a.motion.as_ref().and_then(&mut f),
                    offset: a.offset,
                    placement: a.placement,
                })
                .collect(),
            camera: self.camera.as_ref().and_then(&mut f),
            light: self.light.as_ref().and_then(&mut f),
            song: self.song.clone(),
            preview: self.preview.clone(),
            set: self.set.map(&mut f),
        }
    }
}

/// Names a motion uses that its model lacks, as the scene panel lists them
/// (computed by [`crate::model::missing_names`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MissingNames {
    pub bones: Vec<String>,
    /// `None` when the model's morph list is not known (the built-in
    /// skeleton has no morphs to compare with).
    pub morphs: Option<Vec<String>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmd::{BoneKey, CameraKey, LightKey, NameEncoding};

    fn with_bone() -> Motion {
        let mut m = Motion::new_v2();
        m.bones.push(
            BoneKey::new(
                "センター",
                NameEncoding::ShiftJis,
                0,
                [0.0; 3],
                [0.0, 0.0, 0.0, 1.0],
            )
            .unwrap(),
        );
        m
    }

    #[test]
    fn roles_follow_what_the_file_holds() {
        let mut cam = Motion::new_v2();
        cam.cameras
            .push(CameraKey::new(0, -45.0, [0.0; 3], [0.0; 3], 30, true));
        assert_eq!(
            MotionRole::of(&cam),
            MotionRole::Camera { with_light: false }
        );
        cam.lights
            .push(LightKey::new(0, [0.6; 3], [-0.5, -1.0, 0.5]));
        assert_eq!(
            MotionRole::of(&cam),
            MotionRole::Camera { with_light: true }
        );
        let mut light = Motion::new_v2();
        light
            .lights
            .push(LightKey::new(0, [0.6; 3], [-0.5, -1.0, 0.5]));
        assert_eq!(MotionRole::of(&light), MotionRole::Light);
        // Bones win over a stray camera key.
        let mut dance = with_bone();
        dance
            .cameras
            .push(CameraKey::new(0, -45.0, [0.0; 3], [0.0; 3], 30, true));
        assert_eq!(MotionRole::of(&dance), MotionRole::Motion);
        assert_eq!(MotionRole::of(&Motion::new_v2()), MotionRole::Motion);
    }

    #[test]
    fn model_then_dance_then_camera_make_one_actor() {
        let mut s: Scene<u32> = Scene::default();
        let p = s.assign_model(ModelRef::File("mei.pmd".into()), None);
        assert_eq!(
            p,
            Placed::ActorModel {
                index: 0,
                new: true
            }
        );
        let p = s.assign_motion(1, MotionRole::Motion, Some(0));
        assert_eq!(
            p,
            Placed::ActorMotion {
                index: 0,
                new: false
            }
        );
        let p = s.assign_motion(2, MotionRole::Camera { with_light: true }, Some(0));
        assert_eq!(p, Placed::CameraAndLight);
        assert_eq!(s.actors.len(), 1);
        assert_eq!(s.actors[0].motion, Some(1));
        assert_eq!(s.actors[0].model, ModelRef::File("mei.pmd".into()));
        assert_eq!((s.camera, s.light), (Some(2), Some(2)));
        // The camera file is listed once although it is camera and light.
        assert_eq!(s.motions(), vec![2, 1]);
    }

    #[test]
    fn a_second_dance_gets_its_own_actor_and_closing_frees_the_slot() {
        let mut s: Scene<u32> = Scene::default();
        s.assign_motion(1, MotionRole::Motion, None);
        let p = s.assign_motion(5, MotionRole::Motion, Some(0));
        assert_eq!(
            p,
            Placed::ActorMotion {
                index: 1,
                new: true
            }
        );
        assert_eq!(s.actors[1].name, "Actor 2");
        s.remove_motion(&1);
        assert_eq!(s.actors[0].motion, None);
        assert!(!s.uses(&1));
        // Now actor 1 (index 0) takes the next dance.
        let p = s.assign_motion(7, MotionRole::Motion, Some(0));
        assert_eq!(
            p,
            Placed::ActorMotion {
                index: 0,
                new: false
            }
        );
    }

    #[test]
    fn offsets_shift_the_motion_on_the_scene_timeline() {
        let mut a: Actor<u32> = Actor::new("A");
        a.offset = 15;
        // Scene frame 20 plays the motion's frame 5; frame 0 of the motion plays at 15.
        assert_eq!(a.motion_frame(20.0), 5.0);
        assert_eq!(a.scene_frame(0.0), 15.0);
        a.offset = -10;
        assert_eq!(a.motion_frame(0.0), 10.0);
    }
}
