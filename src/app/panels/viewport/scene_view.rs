//! What the viewport shows and how it maps onto the screen, below the
//! viewport, the gizmo and the model view alike: the scene as the views
//! see it ([`SceneView`], [`ActorView`]), poses for a single look
//! ([`posed_world`]), and the pure layer's projection on egui rectangles.

use egui::{Pos2, Rect, pos2};
use glam::{Mat4, Vec2, Vec3};

use crate::model::Skeleton;
use crate::model::{Model, PoseEngine};
use crate::scene::view::{self, ScreenRect};
use crate::vmd::MotionRef;
use crate::workspace::document::Document;

// -------------------------------------------------------------- projection

/// egui's rectangle as the pure layer's.
pub fn screen_rect(rect: Rect) -> ScreenRect {
    ScreenRect::from_min_max(
        Vec2::new(rect.min.x, rect.min.y),
        Vec2::new(rect.max.x, rect.max.y),
    )
}

fn to_pos(p: Vec2) -> Pos2 {
    pos2(p.x, p.y)
}

/// [`view::project_point`] on an egui rectangle.
pub fn project_point(view_proj: &Mat4, p: Vec3, rect: Rect) -> Option<Pos2> {
    view::project_point(view_proj, p, screen_rect(rect)).map(to_pos)
}

/// [`view::project_segment`] on an egui rectangle.
pub fn project_segment(view_proj: &Mat4, a: Vec3, b: Vec3, rect: Rect) -> Option<[Pos2; 2]> {
    view::project_segment(view_proj, a, b, screen_rect(rect)).map(|s| s.map(to_pos))
}

// ------------------------------------------------------- which documents

/// The document to take something from: the active one if it qualifies,
/// else the first that does.
pub fn pick_source(active: usize, qualifies: &[bool]) -> Option<usize> {
    if qualifies.get(active).copied().unwrap_or(false) {
        return Some(active);
    }
    qualifies.iter().position(|&q| q)
}

// ----------------------------------------------------------- the scene

/// One actor as the viewport sees it.
#[derive(Debug, Clone, Copy)]
pub struct ActorView<'a> {
    pub name: &'a str,
    /// The model file (`None`: the built-in skeleton, rendered as the demo mannequin).
    pub model_path: Option<&'a std::path::Path>,
    /// The model file, once loaded (models load in the background).
    pub model: Option<&'a std::sync::Arc<crate::render::asset::ModelAsset>>,
    /// The model the actor is posed with: its file's once loaded, else the
    /// built-in skeleton (a model with no mesh). Skeleton, joints and gizmo
    /// come from its pose.
    pub rig: &'a Model,
    /// The motion it wears (none: rest pose).
    pub motion: Option<&'a Document>,
    /// Scene frame − offset = the motion's frame.
    pub offset: i32,
    /// Where the actor stands in the scene; every bone, vertex and body of
    /// its pose is placed by it.
    pub placement: crate::scene::ActorPlacement,
}

impl<'a> ActorView<'a> {
    /// The bones of [`ActorView::rig`].
    pub fn skeleton(&self) -> &'a Skeleton {
        &self.rig.skeleton
    }
}

/// What the viewport shows: which actors, which camera; the frame comes
/// from the transport. A renderer hooks in here: everything it needs to
/// draw a frame is in this value, the [`Posing`](super::posing::Posing) and [`posed_world`].
#[derive(Debug, Clone)]
pub struct SceneView<'a> {
    pub actors: Vec<ActorView<'a>>,
    /// The set's stages, props and accessories whose files have loaded.
    pub set: Vec<SetPieceView<'a>>,
    /// Every accessory of the set, loaded or not (by index, as the scene
    /// panel and the gizmo name them).
    pub accessories: &'a [crate::scene::set::SetAccessory],
    /// Size motion's preview: the source body wearing the unsized motion,
    /// drawn as a ghost over the actor.
    pub source_ghost: Option<SourceGhost<'a>>,
    pub camera: Option<&'a Document>,
    pub light: Option<&'a Document>,
    /// The actor selected in the scene panel.
    pub selected: Option<usize>,
    /// The scene's background colour (RGB 0..1 as written to the picture):
    /// the preview clears with it, as every export does.
    pub background: [f32; 3],
    /// The background image drawn over the colour, if any.
    pub background_image: Option<&'a crate::scene::set::BackgroundImage>,
    /// The background video drawn over the image, if any.
    pub background_video: Option<&'a crate::scene::set::BackgroundVideo>,
}

impl Default for SceneView<'_> {
    fn default() -> Self {
        SceneView {
            actors: Vec::new(),
            set: Vec::new(),
            accessories: &[],
            source_ghost: None,
            camera: None,
            light: None,
            selected: None,
            background: crate::scene::set::Background::default().colour,
            background_image: None,
            background_video: None,
        }
    }
}

/// The source body and the motion as made for it, drawn at actor
/// `actor`'s place and motion frame.
#[derive(Debug, Clone, Copy)]
pub struct SourceGhost<'a> {
    pub actor: usize,
    pub model: &'a Model,
    pub motion: &'a Document,
}

/// A stage, prop or accessory of the set, as the viewport draws it.
#[derive(Debug, Clone)]
pub struct SetPieceView<'a> {
    pub asset: &'a std::sync::Arc<crate::render::asset::ModelAsset>,
    pub order: crate::scene::set::DrawOrder,
    /// A stage's show/hide switch (accessories: their state's `shown`).
    pub shown: bool,
    /// The accessory's placement and keys; `None`: a stage at rest.
    pub accessory: Option<&'a crate::scene::set::SetAccessory>,
    /// A stage's own motion (its moving parts), posed at the scene frame.
    pub motion: Option<&'a Document>,
}

// ---------------------------------------------------------------- posing

/// Bone world matrices (MMD model space) of `rig` wearing `motion` (rest
/// pose without one; a document's is [`Document::source`]) at motion frame `frame`, through the one pose engine: the
/// document's evaluation cache, MMD's name binding, the poser (bone morphs,
/// append, IK switched by the motion's IK keys). The viewport keeps an
/// engine per actor; this builds one for a single look (tests, tools).
pub fn posed_world(rig: &Model, motion: Option<MotionRef<'_>>, frame: f64) -> Vec<Mat4> {
    let mut engine = PoseEngine::new(rig);
    engine.bind(rig, motion.map(|m| m.index));
    engine.pose_bones(rig, motion, frame, |_| {});
    std::mem::take(&mut engine.posed.bone_world)
}
