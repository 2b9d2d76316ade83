//! Posing in the viewport, MMD's main way of keying: click a bone's joint
//! to select it (or click one of its keys in the dope sheet), turn it with
//! the rotation gizmo (three rings, local or global axes), move a movable
//! bone with the move gizmo (three arrows), and register a key at the
//! playhead with Enter.
//!
//! **What a drag edits.** On a frame where the bone has a key, a drag edits
//! that key directly (MMD shows the pose live): one merged undo step per
//! drag, only the key's rotation (or position) bytes change, its curves
//! stay. On a frame without a key, the drag poses an unregistered pose that
//! the viewport shows live; Enter (or "Register key") inserts it as a new
//! key with the curves a new key gets from "Insert key" (MMD's default
//! linear curves). An unregistered pose is dropped when the frame or the
//! motion changes. Every change goes out as an [`EditRequest`] for the
//! actor's motion document; this panel never mutates a motion.
//!
//! The math (projection, picking, drag angles, the world → local rotation)
//! is GUI-free in [`crate::model::gizmo`].

use egui::{Color32, Pos2, Rect};
use glam::{Mat4, Quat, Vec2, Vec3};

use super::Shared;
use super::viewport::scene_view::SceneView;
use crate::model::Skeleton;
use crate::model::gizmo::{self as gm, Screen, Space};
use crate::scene::view::ViewCamera;
use crate::workspace::document::{Document, EditRequest, KeyRef};

mod accessory;
mod drag;
mod draw;
mod keys;
mod pick;

pub use accessory::started as accessory_move_started;
pub use drag::{Pointer, interact};
pub use draw::draw;
pub use keys::{register_bone_key, register_camera_key};

/// Ring radius on screen, pixels.
pub(super) const RING_PX: f32 = 70.0;
/// Move-arrow length on screen, pixels.
pub(super) const ARROW_PX: f32 = 95.0;
/// How near (pixels) the pointer must be to a joint or a handle.
pub(super) const PICK_PX: f32 = 9.0;

pub(super) const AXIS_COLOURS: [Color32; 3] = [
    Color32::from_rgb(235, 70, 70),
    Color32::from_rgb(80, 210, 80),
    Color32::from_rgb(80, 130, 255),
];
pub(super) const ACTIVE: Color32 = Color32::from_rgb(255, 220, 60);
pub(super) const SELECTED: Color32 = Color32::from_rgb(255, 200, 40);

/// The bone being posed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    /// Actor index in the scene.
    pub actor: usize,
    /// Bone index in the actor's skeleton.
    pub bone: usize,
    /// The bone's name (what the motion's track is called).
    pub name: String,
}

/// A pose shown but not yet keyed (frames without a key for the bone).
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    pub actor: usize,
    pub bone: String,
    /// The motion document and its revision when posed: any edit drops it.
    pub doc: u64,
    pub revision: u64,
    /// Motion frame it belongs to.
    pub frame: u32,
    /// Offset from the rest position, parent frame (model units).
    pub translation: Vec3,
    /// Local rotation, as a VMD key stores it.
    pub rotation: Quat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Handle {
    Ring(usize),
    Arrow(usize),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Target {
    /// The key at the playhead (index into the motion's bone records).
    Key(u32),
    /// The unregistered pose.
    Pending,
    /// An actor's place in the scene, as it was when the drag started.
    Place(usize, crate::scene::ActorPlacement),
    /// An accessory's panel values (by index in the set).
    Accessory(usize),
}

/// A gizmo drag in progress: what it grabbed, where it started and what
/// it edits.
#[derive(Debug, Clone)]
pub(super) struct Drag {
    pub(super) handle: Handle,
    /// Pointer position when the drag started.
    pub(super) origin: Vec2,
    pub(super) axis: Vec3,
    pub(super) centre: Vec3,
    pub(super) parent: Quat,
    pub(super) start_t: Vec3,
    pub(super) start_q: Quat,
    pub(super) ring: Option<gm::RingGrab>,
    pub(super) screen: Screen,
    pub(super) target: Target,
    pub(super) doc: u64,
    pub(super) frame: u32,
    pub(super) merge: u64,
    /// The view the drag started in (the others leave it alone).
    pub(super) view: u32,
}

/// The gizmo as drawn last: where its handles are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GizmoShape {
    pub centre: Vec3,
    /// World axes of the rotation rings; the first `ring_count` are used
    /// (one for a fixed-axis twist bone, none for a bone that does not turn).
    pub ring_axes: [Vec3; 3],
    pub ring_count: usize,
    /// World axes of the move arrows (none unless the bone is movable).
    pub arrow_axes: [Vec3; 3],
    pub arrows: bool,
    pub ring_radius: f32,
    pub arrow_length: f32,
}

impl GizmoShape {
    pub(super) fn rings(&self) -> &[Vec3] {
        &self.ring_axes[..self.ring_count]
    }
}

/// What the last frame drew: the screen mapping, the joints and the gizmo.
#[derive(Debug, Clone)]
pub struct Drawn {
    pub screen: Screen,
    /// (actor, bone, screen position) of every pickable joint.
    pub joints: Vec<(usize, usize, Vec2)>,
    /// The bone name of each joint.
    pub names: Vec<String>,
    pub gizmo: Option<GizmoShape>,
}

/// Persistent state of the posing tool.
#[derive(Debug)]
pub struct PoseTool {
    pub selected: Option<Selected>,
    /// Gizmo axes: the bone's own, or the model's.
    pub space: Space,
    pub pending: Option<Pending>,
    drag: Option<Drag>,
    hover: Option<Handle>,
    hover_joint: Option<(usize, usize)>,
    /// The dope-sheet key last adopted as the selection: (document, key).
    seen_active: Option<(u64, KeyRef)>,
    /// What each view drew last, by view number (the view a drag started
    /// in keeps it; tests find handles and joints here).
    drawn: std::collections::BTreeMap<u32, Drawn>,
    /// The actor the gizmo places (scene panel ▸ "Move in view"): its
    /// arrows move the actor, its ring turns it; picking a joint or Esc
    /// ends it.
    pub placing: Option<usize>,
    /// A placement a drag made this frame, for [`drag::interact`]'s caller.
    placed: Option<(usize, crate::scene::ActorPlacement)>,
    /// The accessory the gizmo moves (scene panel ▸ "Move in view"), by
    /// index in the set: arrows move it, rings turn it; picking a joint or
    /// Esc ends it.
    pub moving_accessory: Option<usize>,
    /// Values a drag gave an accessory this frame: (accessory, scene
    /// frame, values), for [`drag::interact`]'s caller.
    moved_accessory: Option<(usize, u32, crate::scene::set::AccessoryState)>,
}

impl Default for PoseTool {
    fn default() -> Self {
        PoseTool {
            selected: None,
            space: Space::Local,
            pending: None,
            drag: None,
            hover: None,
            hover_joint: None,
            seen_active: None,
            drawn: Default::default(),
            placing: None,
            placed: None,
            moving_accessory: None,
            moved_accessory: None,
        }
    }
}

pub(super) fn v2(p: Pos2) -> Vec2 {
    Vec2::new(p.x, p.y)
}

pub(super) fn p2(v: Vec2) -> Pos2 {
    egui::pos2(v.x, v.y)
}

/// The motion frame of an actor at scene frame `scene_frame` (its offset
/// removed, rounded to a whole frame); `None` before the motion's frame 0.
pub fn motion_frame(scene_frame: f64, offset: i32) -> Option<u32> {
    let f = (scene_frame - f64::from(offset)).round();
    (0.0..=f64::from(u32::MAX)).contains(&f).then_some(f as u32)
}

/// The bone record of track `name` on frame `frame`, if any.
pub fn bone_key_at(doc: &Document, name: &str, frame: u32) -> Option<u32> {
    let track = doc
        .index
        .bones
        .get(crate::model::bone_track(&doc.index, name)?)?;
    let m = &doc.motion;
    let fr = |k: u32| m.bones.get(k as usize).map_or(0, |b| b.frame());
    let s = track.keys.partition_point(|&k| fr(k) < frame);
    track
        .keys
        .get(s)
        .copied()
        .filter(|&k| m.bones.get(k as usize).is_some_and(|b| b.frame() == frame))
}

/// Whether a bone may be moved with the move gizmo: the model says so
/// (PMX movable flag, PMD IK/movable kinds), or it is an IK bone or the
/// centre/root bone.
pub fn movable(skel: &Skeleton, bone: usize) -> bool {
    let Some(b) = skel.bones.get(bone) else {
        return false;
    };
    b.flags.movable
        || b.flags.ik
        || skel.iks.iter().any(|c| c.ik_bone == bone)
        || matches!(b.name.as_str(), "センター" | "全ての親")
}

pub(super) fn is_ik(skel: &Skeleton, bone: usize) -> bool {
    skel.bones.get(bone).is_some_and(|b| b.flags.ik) || skel.iks.iter().any(|c| c.ik_bone == bone)
}

/// The rotation part of a bone world matrix.
pub(super) fn rotation_of(m: &Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    r.normalize()
}

/// What a bone without a parent hangs from: the actor's placement (its
/// turn), so a root bone's key is turned and moved in the actor's frame.
pub(super) fn root_rotation(a: &super::viewport::scene_view::ActorView) -> Quat {
    a.placement.rotation()
}

impl PoseTool {
    fn merge_id(&mut self) -> u64 {
        crate::workspace::merge_id()
    }

    /// Whether a gizmo drag is in progress (the view must not orbit).
    pub fn dragging(&self) -> bool {
        self.drag.is_some()
    }

    /// Clears the selection (Escape, as in MMD); an unregistered pose stays
    /// shown until the frame changes.
    pub fn deselect(&mut self) {
        self.selected = None;
        self.drag = None;
        self.hover = None;
    }

    /// What the main view (the lowest view number drawn) drew last: the
    /// joints and the gizmo.
    pub fn drawn(&self) -> Option<&Drawn> {
        self.drawn.values().next()
    }

    /// What view `view` drew last.
    pub fn drawn_in(&self, view: u32) -> Option<&Drawn> {
        self.drawn.get(&view)
    }

    /// Forgets what view `view` drew (it drew no joints or gizmo this frame).
    pub fn clear_drawn(&mut self, view: u32) {
        self.drawn.remove(&view);
    }

    /// The unregistered pose to show for actor `actor` at motion frame
    /// `frame` of document `doc`: (bone name, translation, rotation).
    pub fn override_for(
        &self,
        actor: usize,
        doc: &Document,
        frame: Option<u32>,
    ) -> Option<(&str, Vec3, Quat)> {
        let p = self.pending.as_ref()?;
        (p.actor == actor
            && p.doc == doc.id
            && p.revision == doc.revision
            && Some(p.frame) == frame)
            .then_some((p.bone.as_str(), p.translation, p.rotation))
    }

    /// Start of frame: drops a stale unregistered pose and follows the
    /// dope sheet (a bone key clicked there selects its bone here).
    pub fn sync(&mut self, scene: &SceneView, scene_frame: f64) {
        if let Some(p) = &self.pending {
            let fresh = scene.actors.get(p.actor).is_some_and(|a| {
                a.motion.is_some_and(|d| {
                    d.id == p.doc
                        && d.revision == p.revision
                        && motion_frame(scene_frame, a.offset) == Some(p.frame)
                })
            });
            if !fresh && self.drag.is_none() {
                self.pending = None;
            }
        }
        // The accessory being moved was removed: the tool lets go of it.
        if self
            .moving_accessory
            .is_some_and(|i| i >= scene.accessories.len())
        {
            self.moving_accessory = None;
            self.drag = None;
        }
        if let Some(s) = &self.selected
            && scene.actors.get(s.actor).is_none_or(|a| {
                a.skeleton()
                    .bones
                    .get(s.bone)
                    .is_none_or(|b| b.name != s.name)
            })
        {
            self.selected = None;
            self.drag = None;
        }
        for (i, a) in scene.actors.iter().enumerate() {
            let Some(doc) = a.motion else { continue };
            let Some(k @ KeyRef::Bone(ki)) = doc.view.active else {
                continue;
            };
            if self.seen_active == Some((doc.id, k)) {
                continue;
            }
            self.seen_active = Some((doc.id, k));
            if let Some(key) = doc.motion.bones.get(ki as usize) {
                let name = key.name().text;
                if let Some(b) = a.skeleton().find(&name) {
                    self.selected = Some(Selected {
                        actor: i,
                        bone: b,
                        name,
                    });
                }
            }
        }
    }

    /// Where the joint of bone `name` of actor `actor` was drawn last.
    pub fn joint_on_screen(&self, actor: usize, name: &str) -> Option<Pos2> {
        let d = self.drawn()?;
        d.joints
            .iter()
            .zip(&d.names)
            .find(|((a, _, _), n)| *a == actor && n.as_str() == name)
            .map(|((_, _, p), _)| p2(*p))
    }

    /// A point of rotation ring `axis` (as last drawn) that picks that ring
    /// and nothing else, where the ring runs most across the screen, and the
    /// screen direction that turns the bone positively from there.
    pub fn ring_grab_point(&self, axis: usize) -> Option<(Pos2, egui::Vec2)> {
        let d = self.drawn()?;
        let g = d.gizmo?;
        if axis >= g.ring_count {
            return None;
        }
        let axes = g.rings();
        let pts = gm::ring_points(g.centre, axes[axis], g.ring_radius, gm::RING_SEGMENTS);
        let mut best: Option<(f32, Vec2, Vec2)> = None;
        for p in pts {
            let Some(s) = d.screen.project(p) else {
                continue;
            };
            if gm::pick_ring(&d.screen, g.centre, axes, g.ring_radius, s, PICK_PX) != Some(axis) {
                continue;
            }
            if g.arrows
                && gm::pick_arrow(
                    &d.screen,
                    g.centre,
                    &g.arrow_axes,
                    g.arrow_length,
                    s,
                    PICK_PX,
                )
                .is_some()
            {
                continue;
            }
            let Some(grab) = gm::ring_grab(&d.screen, g.centre, axes[axis], p) else {
                continue;
            };
            // Prefer points where the ring is seen face-on (the tangent is
            // long on screen): the furthest from the centre.
            let c = d.screen.project(g.centre).unwrap_or(s);
            let score = (s - c).length();
            if best.is_none_or(|b| score > b.0) {
                best = Some((score, s, grab.tangent));
            }
        }
        best.map(|(_, s, t)| (p2(s), egui::vec2(t.x, t.y)))
    }

    /// A point on move arrow `axis` (as last drawn) and its screen direction.
    pub fn arrow_grab_point(&self, axis: usize) -> Option<(Pos2, egui::Vec2)> {
        let d = self.drawn()?;
        let g = d.gizmo?;
        if !g.arrows || axis >= 3 {
            return None;
        }
        let c = d.screen.project(g.centre)?;
        let tip = d
            .screen
            .project(g.centre + g.arrow_axes[axis] * g.arrow_length)?;
        let dir = (tip - c).try_normalize()?;
        let p = c + (tip - c) * 0.85;
        Some((p2(p), egui::vec2(dir.x, dir.y)))
    }
}

/// Everything the posing tool needs from one view for one frame.
pub struct Frame<'a> {
    /// Which view (a drag belongs to the view it started in).
    pub view_number: u32,
    pub scene: &'a SceneView<'a>,
    /// Bone world matrices per actor, as drawn (with the unregistered pose).
    pub worlds: &'a [&'a [Mat4]],
    pub screen: Screen,
    pub view: ViewCamera,
    pub pic_rect: Rect,
    /// Scene frame at the playhead.
    pub scene_frame: f64,
}

impl Frame<'_> {
    pub(super) fn motion_frame(&self, actor: usize) -> Option<u32> {
        let a = self.scene.actors.get(actor)?;
        motion_frame(self.scene_frame, a.offset)
    }
}

/// The posing section of the viewport's side panel: the selected bone,
/// the axes toggle, Register key, and how drags and keys relate.
pub fn side_ui(
    ui: &mut egui::Ui,
    scene: &SceneView,
    scene_frame: f64,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    tool: &mut PoseTool,
) {
    ui.strong("Posing");
    match &tool.selected {
        Some(s) => {
            let keyed = scene
                .actors
                .get(s.actor)
                .and_then(|a| Some((a.motion?, a.offset)))
                .and_then(|(d, off)| bone_key_at(d, &s.name, motion_frame(scene_frame, off)?));
            ui.label(format!("Bone: {}", s.name));
            ui.weak(if keyed.is_some() {
                "key at the playhead: drags edit it"
            } else {
                "no key at the playhead: drags pose it, Enter keys it"
            });
        }
        None => {
            ui.weak("Click a bone's joint (or its key in the dope sheet).");
        }
    }
    ui.horizontal(|ui| {
        ui.label("Axes");
        ui.selectable_value(&mut tool.space, Space::Local, "Local")
            .on_hover_text("The gizmo follows the bone's own axes");
        ui.selectable_value(&mut tool.space, Space::Global, "Global")
            .on_hover_text("The gizmo uses the model's X, Y, Z");
    });
    if ui
        .add_enabled(
            tool.selected.is_some(),
            egui::Button::new("Register key (Enter)"),
        )
        .on_hover_text("Key the selected bone's pose at the playhead, as MMD's Enter")
        .clicked()
    {
        register_bone_key(scene, scene_frame, edits, shared, tool);
    }
    // The help is a tooltip, so the panel keeps its room for the shots.
    ui.weak("? How dragging poses").on_hover_text(
        "Drag a ring to turn the bone, an arrow to move it (centre, IK and movable bones). \
             On a frame where the bone has a key the drag edits that key (one undo step); \
             elsewhere the pose is shown unregistered until Enter keys it, and is dropped \
             when the frame changes.",
    );
}
