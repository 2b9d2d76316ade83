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

use std::collections::BTreeSet;

use egui::{Color32, Pos2, Rect, Stroke};
use glam::{Mat4, Quat, Vec2, Vec3};

use super::Shared;
use super::viewport::{SceneView, ViewCamera};
use crate::app::document::{Document, Edit, EditRequest, KeyChanges, KeyRef};
use crate::model::Skeleton;
use crate::model::gizmo::{self as gm, Screen, Space};
use crate::vmd::{BoneKey, CameraKey};

/// Ring radius on screen, pixels.
const RING_PX: f32 = 70.0;
/// Move-arrow length on screen, pixels.
const ARROW_PX: f32 = 95.0;
/// How near (pixels) the pointer must be to a joint or a handle.
const PICK_PX: f32 = 9.0;

const AXIS_COLOURS: [Color32; 3] = [
    Color32::from_rgb(235, 70, 70),
    Color32::from_rgb(80, 210, 80),
    Color32::from_rgb(80, 130, 255),
];
const ACTIVE: Color32 = Color32::from_rgb(255, 220, 60);
const SELECTED: Color32 = Color32::from_rgb(255, 200, 40);

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
enum Handle {
    Ring(usize),
    Arrow(usize),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    /// The key at the playhead (index into the motion's bone records).
    Key(u32),
    /// The unregistered pose.
    Pending,
}

#[derive(Debug, Clone)]
struct Drag {
    handle: Handle,
    /// Pointer position when the drag started.
    origin: Vec2,
    axis: Vec3,
    centre: Vec3,
    parent: Quat,
    start_t: Vec3,
    start_q: Quat,
    ring: Option<gm::RingGrab>,
    screen: Screen,
    target: Target,
    doc: u64,
    frame: u32,
    merge: u64,
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
    fn rings(&self) -> &[Vec3] {
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
    pub drawn: Option<Drawn>,
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
            drawn: None,
        }
    }
}

fn v2(p: Pos2) -> Vec2 {
    Vec2::new(p.x, p.y)
}

fn p2(v: Vec2) -> Pos2 {
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

fn is_ik(skel: &Skeleton, bone: usize) -> bool {
    skel.bones.get(bone).is_some_and(|b| b.flags.ik) || skel.iks.iter().any(|c| c.ik_bone == bone)
}

/// The rotation part of a bone world matrix.
fn rotation_of(m: &Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    r.normalize()
}

impl PoseTool {
    fn merge_id(&mut self) -> u64 {
        crate::workspace::merge_id()
    }

    /// Whether a gizmo drag is in progress (the view must not orbit).
    pub fn dragging(&self) -> bool {
        self.drag.is_some()
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
        let d = self.drawn.as_ref()?;
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
        let d = self.drawn.as_ref()?;
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
        let d = self.drawn.as_ref()?;
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

/// Everything the posing tool needs from the viewport for one frame.
pub struct Frame<'a> {
    pub scene: &'a SceneView<'a>,
    /// Bone world matrices per actor, as drawn (with the unregistered pose).
    pub worlds: &'a [Vec<Mat4>],
    pub screen: Screen,
    pub view: ViewCamera,
    pub pic_rect: Rect,
    /// Scene frame at the playhead.
    pub scene_frame: f64,
}

impl Frame<'_> {
    fn motion_frame(&self, actor: usize) -> Option<u32> {
        let a = self.scene.actors.get(actor)?;
        motion_frame(self.scene_frame, a.offset)
    }
}

/// The gizmo's shape for the selected bone.
fn shape(tool: &PoseTool, f: &Frame) -> Option<GizmoShape> {
    let s = tool.selected.as_ref()?;
    let a = f.scene.actors.get(s.actor)?;
    let world = f.worlds.get(s.actor)?;
    let w = world.get(s.bone)?;
    let bone = a.skeleton().bones.get(s.bone)?;
    let centre = w.w_axis.truncate();
    let (right, _, _) = f.view.basis();
    let upp = f.screen.units_per_pixel(centre, right)?;
    let parent = bone
        .parent
        .and_then(|p| world.get(p))
        .map_or(Quat::IDENTITY, rotation_of);
    let frame = gm::axis_frame(tool.space, rotation_of(w), bone.local_axes);
    let turns = bone.flags.rotatable && !is_ik(a.skeleton(), s.bone);
    let (ring_axes, ring_count) = match bone.fixed_axis {
        _ if !turns => (frame, 0),
        // A twist bone turns about its fixed axis only (model space at rest,
        // carried by the parent).
        Some(fa) if fa.length_squared() > 1e-12 => {
            ([(parent * fa).normalize(), frame[1], frame[2]], 1)
        }
        _ => (frame, 3),
    };
    Some(GizmoShape {
        centre,
        ring_axes,
        ring_count,
        arrow_axes: frame,
        arrows: movable(a.skeleton(), s.bone),
        ring_radius: RING_PX * upp,
        arrow_length: ARROW_PX * upp,
    })
}

/// The handle under `p`: an arrow first (they sit inside the rings), then a ring.
fn handle_at(g: &GizmoShape, screen: &Screen, p: Vec2) -> Option<Handle> {
    if g.arrows
        && let Some(i) = gm::pick_arrow(screen, g.centre, &g.arrow_axes, g.arrow_length, p, PICK_PX)
    {
        return Some(Handle::Arrow(i));
    }
    gm::pick_ring(screen, g.centre, g.rings(), g.ring_radius, p, PICK_PX).map(Handle::Ring)
}

/// The bone's current local values at motion frame `frame`: the key there,
/// else the unregistered pose, else the motion's interpolated pose.
fn current_local(
    tool: &PoseTool,
    doc: &Document,
    actor: usize,
    name: &str,
    frame: u32,
) -> (Vec3, Quat, Option<u32>) {
    if let Some(k) = bone_key_at(doc, name, frame)
        && let Some(key) = doc.motion.bones.get(k as usize)
    {
        return (
            Vec3::from(key.position()),
            Quat::from_array(key.rotation()).normalize(),
            Some(k),
        );
    }
    if let Some(p) = &tool.pending
        && p.actor == actor
        && p.bone == name
        && p.doc == doc.id
        && p.revision == doc.revision
        && p.frame == frame
    {
        return (p.translation, p.rotation, None);
    }
    // The value the engine poses the bone with: its bound track, from the
    // document's evaluation cache.
    match crate::model::bone_track(&doc.index, name) {
        Some(track) => {
            let p = doc.cache.bone_at(track, f64::from(frame));
            (
                Vec3::from(p.position),
                Quat::from_array(p.rotation).normalize(),
                None,
            )
        }
        None => (Vec3::ZERO, Quat::IDENTITY, None),
    }
}

/// Pointer handling: hover, joint clicks, gizmo drags. Returns true when
/// the posing tool took the pointer this frame (the view must not orbit).
pub fn interact(
    response: &egui::Response,
    f: &Frame,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    tool: &mut PoseTool,
) -> bool {
    let g = shape(tool, f);
    let hover_pos = response.hover_pos().map(v2);
    tool.hover = match (&g, hover_pos) {
        (Some(g), Some(p)) if tool.drag.is_none() => handle_at(g, &f.screen, p),
        _ => tool.drag.as_ref().map(|d| d.handle),
    };
    let joints = joints(f);
    tool.hover_joint = hover_pos
        .filter(|_| tool.hover.is_none() && tool.drag.is_none())
        .and_then(|p| {
            let pts: Vec<Option<Vec2>> = joints.iter().map(|j| Some(j.2)).collect();
            gm::nearest_joint(&pts, p, PICK_PX).map(|i| (joints[i].0, joints[i].1))
        });

    let primary = egui::PointerButton::Primary;
    // A press on a handle starts a gizmo drag.
    if response.drag_started_by(primary)
        && let Some(g) = &g
        && let Some(origin) = response.ctx.input(|i| i.pointer.press_origin()).map(v2)
        && let Some(h) = handle_at(g, &f.screen, origin)
    {
        start_drag(h, g, origin, f, shared, tool);
        return true;
    }
    if let Some(d) = tool.drag.clone() {
        if (response.dragged_by(primary) || response.drag_stopped())
            && let Some(p) = response.interact_pointer_pos().map(v2).or(hover_pos)
        {
            continue_drag(&d, p - d.origin, f, edits, tool);
        }
        if response.drag_stopped() || !response.dragged() {
            if matches!(d.target, Target::Key(_)) {
                edits.push((d.doc, EditRequest::EndMerge));
            }
            tool.drag = None;
        }
        return true;
    }
    if response.clicked_by(primary)
        && let Some(p) = response.interact_pointer_pos().map(v2)
    {
        if g.as_ref()
            .is_some_and(|g| handle_at(g, &f.screen, p).is_some())
        {
            return true;
        }
        let pts: Vec<Option<Vec2>> = joints.iter().map(|j| Some(j.2)).collect();
        tool.selected = gm::nearest_joint(&pts, p, PICK_PX).and_then(|i| {
            let (actor, bone, _) = joints[i];
            let name = f
                .scene
                .actors
                .get(actor)?
                .skeleton()
                .bones
                .get(bone)?
                .name
                .clone();
            Some(Selected { actor, bone, name })
        });
        return tool.selected.is_some();
    }
    false
}

/// Every pickable joint on screen: (actor, bone, position).
fn joints(f: &Frame) -> Vec<(usize, usize, Vec2)> {
    let mut out = Vec::new();
    for (ai, (a, world)) in f.scene.actors.iter().zip(f.worlds).enumerate() {
        for (bi, (b, m)) in a.skeleton().bones.iter().zip(world).enumerate() {
            if !(b.flags.visible || is_ik(a.skeleton(), bi))
                || !b.flags.operable && !is_ik(a.skeleton(), bi)
            {
                continue;
            }
            if let Some(p) = f.screen.project(m.w_axis.truncate())
                && f.pic_rect.contains(p2(p))
            {
                out.push((ai, bi, p));
            }
        }
    }
    out
}

fn start_drag(
    h: Handle,
    g: &GizmoShape,
    origin: Vec2,
    f: &Frame,
    shared: &mut Shared,
    tool: &mut PoseTool,
) {
    let Some(s) = tool.selected.clone() else {
        return;
    };
    let Some(a) = f.scene.actors.get(s.actor) else {
        return;
    };
    let Some(doc) = a.motion else {
        shared.info(format!(
            "{} has no motion to key: give the actor a motion (scene panel) first",
            a.name
        ));
        return;
    };
    if shared.transport.playing {
        shared.info("Posing needs playback stopped");
        return;
    }
    let Some(frame) = f.motion_frame(s.actor) else {
        shared.info("The playhead is before the motion's frame 0");
        return;
    };
    let Some(world) = f.worlds.get(s.actor) else {
        return;
    };
    let parent = a
        .skeleton()
        .bones
        .get(s.bone)
        .and_then(|b| b.parent)
        .and_then(|p| world.get(p))
        .map_or(Quat::IDENTITY, rotation_of);
    let (start_t, start_q, key) = current_local(tool, doc, s.actor, &s.name, frame);
    let (axis, ring) = match h {
        Handle::Ring(i) => {
            let axis = g.ring_axes[i];
            // The ring point nearest the pointer is what the user grabbed.
            let pts = gm::ring_points(g.centre, axis, g.ring_radius, gm::RING_SEGMENTS);
            let grab = pts
                .iter()
                .filter_map(|&p| f.screen.project(p).map(|s| (p, (s - origin).length())))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(p, _)| p);
            let ring = grab.and_then(|p| gm::ring_grab(&f.screen, g.centre, axis, p));
            if ring.is_none() {
                shared.info("That ring is seen edge-on here: grab it where it curves");
                return;
            }
            (axis, ring)
        }
        Handle::Arrow(i) => (g.arrow_axes[i], None),
    };
    let target = match key {
        Some(k) => Target::Key(k),
        None => {
            if let Some(p) = &tool.pending
                && !(p.actor == s.actor && p.bone == s.name)
            {
                shared.info(format!(
                    "Unregistered pose of {} dropped (press Enter to register a pose)",
                    p.bone
                ));
            }
            tool.pending = Some(Pending {
                actor: s.actor,
                bone: s.name.clone(),
                doc: doc.id,
                revision: doc.revision,
                frame,
                translation: start_t,
                rotation: start_q,
            });
            Target::Pending
        }
    };
    let merge = tool.merge_id();
    tool.drag = Some(Drag {
        handle: h,
        origin,
        axis,
        centre: g.centre,
        parent,
        start_t,
        start_q,
        ring,
        screen: f.screen,
        target,
        doc: doc.id,
        frame,
        merge,
    });
}

fn continue_drag(
    d: &Drag,
    delta: Vec2,
    f: &Frame,
    edits: &mut Vec<(u64, EditRequest)>,
    tool: &mut PoseTool,
) {
    let (t, q) = match d.handle {
        Handle::Ring(_) => {
            let Some(ring) = &d.ring else { return };
            let angle = gm::ring_drag_angle(ring, delta);
            (
                d.start_t,
                gm::rotate_about_world_axis(d.start_q, d.parent, d.axis, angle),
            )
        }
        Handle::Arrow(_) => {
            let Some(dist) = gm::axis_drag_distance(&d.screen, d.centre, d.axis, delta) else {
                return;
            };
            (
                d.start_t + gm::world_offset_to_local(d.parent, d.axis * dist),
                d.start_q,
            )
        }
    };
    let name = tool
        .selected
        .as_ref()
        .map_or(String::new(), |s| s.name.clone());
    match d.target {
        Target::Key(k) => {
            let Some(doc) = f
                .scene
                .actors
                .iter()
                .filter_map(|a| a.motion)
                .find(|doc| doc.id == d.doc)
            else {
                return;
            };
            let Some(old) = doc.motion.bones.get(k as usize) else {
                return;
            };
            let mut key = *old;
            let label = match d.handle {
                Handle::Ring(_) => {
                    key.set_rotation(q.to_array());
                    format!("Rotate {name} at frame {}", d.frame)
                }
                Handle::Arrow(_) => {
                    key.set_position(t.to_array());
                    format!("Move {name} at frame {}", d.frame)
                }
            };
            if &key == old {
                return;
            }
            edits.push((
                d.doc,
                EditRequest::merge(
                    Edit::SetKeys(KeyChanges {
                        bones: vec![(k, key)],
                        ..Default::default()
                    }),
                    label,
                    d.merge,
                ),
            ));
        }
        Target::Pending => {
            if let Some(p) = &mut tool.pending {
                p.translation = t;
                p.rotation = q;
            }
        }
    }
}

/// Registers the selected bone's pose as a key at the playhead (Enter).
/// A frame that already has a key keeps it (drags edit it directly).
pub fn register_bone_key(
    scene: &SceneView,
    scene_frame: f64,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    tool: &mut PoseTool,
) {
    let Some(s) = tool.selected.clone() else {
        shared.info("Register key: click a bone's joint in the view first");
        return;
    };
    let Some(a) = scene.actors.get(s.actor) else {
        return;
    };
    let Some(doc) = a.motion else {
        shared.info(format!(
            "{} has no motion to key: give the actor a motion (scene panel) first",
            a.name
        ));
        return;
    };
    let Some(frame) = motion_frame(scene_frame, a.offset) else {
        shared.info("The playhead is before the motion's frame 0");
        return;
    };
    if bone_key_at(doc, &s.name, frame).is_some() {
        shared.info(format!(
            "{} already has a key on frame {frame}; dragging the gizmo edits it directly",
            s.name
        ));
        return;
    }
    let (t, q, _) = current_local(tool, doc, s.actor, &s.name, frame);
    let m0 = &doc.motion;
    // A new key as "Insert key" makes one: default curves, and the name
    // bytes of the track that drives the bone (MMD's name rule) when the
    // motion has one.
    let key = match crate::model::bone_track(&doc.index, &s.name)
        .and_then(|t| doc.index.bones.get(t))
        .and_then(|tr| tr.keys.first())
    {
        Some(&first) => {
            let Some(src) = m0.bones.get(first as usize) else {
                return;
            };
            let Ok(mut k) = BoneKey::new("", m0.name_encoding(), frame, t.to_array(), q.to_array())
            else {
                return;
            };
            let mut field = [0u8; 15];
            field.copy_from_slice(src.name_field());
            k.set_name_field(&field);
            k
        }
        None => match BoneKey::new(
            &s.name,
            m0.name_encoding(),
            frame,
            t.to_array(),
            q.to_array(),
        ) {
            Ok(k) => k,
            Err(e) => {
                shared.error(format!(
                    "Register key refused: bone name \"{}\": {e}",
                    s.name
                ));
                return;
            }
        },
    };
    let mut m = m0.clone();
    let sel = BTreeSet::from([KeyRef::Bone(m.bones.len() as u32)]);
    m.bones.push(key);
    edits.push((
        doc.id,
        EditRequest::apply(
            Edit::ReplaceMotion {
                motion: Box::new(m),
                selection: Some(sel),
            },
            format!("Register {} key at frame {frame}", s.name),
        ),
    ));
    tool.pending = None;
    shared.info(format!("Registered {} at frame {frame}", s.name));
}

/// Writes the free view as a camera key at the playhead of the scene's
/// camera document: the key there gets the view's target, angles, distance,
/// field of view and projection (its curves stay); else a new key is added
/// with the curves "Insert key" gives. One undo step.
pub fn register_camera_key(
    cam: Option<&Document>,
    view: &ViewCamera,
    scene_frame: f64,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
) {
    let Some(doc) = cam else {
        shared.info("Register camera key: the scene has no camera file (open one or add it in the scene panel)");
        return;
    };
    let Some(frame) = motion_frame(scene_frame, 0) else {
        return;
    };
    let fov = view.fov.round().clamp(1.0, 180.0) as u32;
    let m = &doc.motion;
    let existing = doc.index.camera.iter().rev().copied().find(|&i| {
        m.cameras
            .get(i as usize)
            .is_some_and(|k| k.frame() == frame)
    });
    let edit = match existing.and_then(|i| m.cameras.get(i as usize).map(|k| (i, k))) {
        Some((i, k)) => {
            let mut k = *k;
            k.set_target(view.target);
            k.set_rotation(view.rotation);
            k.set_distance(view.distance);
            k.set_fov(fov);
            k.set_perspective(view.perspective);
            Edit::SetKeys(KeyChanges {
                cameras: vec![(i, k)],
                ..Default::default()
            })
        }
        None => {
            let mut m2 = m.clone();
            let sel = BTreeSet::from([KeyRef::Camera(m2.cameras.len() as u32)]);
            m2.cameras.push(CameraKey::new(
                frame,
                view.distance,
                view.target,
                view.rotation,
                fov,
                view.perspective,
            ));
            Edit::ReplaceMotion {
                motion: Box::new(m2),
                selection: Some(sel),
            }
        }
    };
    edits.push((
        doc.id,
        EditRequest::apply(edit, format!("Register camera key at frame {frame}")),
    ));
    shared.info(format!("Camera key registered at frame {frame}"));
}

/// Draws the selection, the hovered joint and the gizmo, and remembers
/// where they are for the next frame's clicks (and for tests).
pub fn draw(painter: &egui::Painter, f: &Frame, tool: &mut PoseTool) {
    let g = shape(tool, f);
    let joints = joints(f);
    if let Some((a, b)) = tool.hover_joint
        && let Some(&(_, _, p)) = joints.iter().find(|j| j.0 == a && j.1 == b)
    {
        painter.circle_stroke(p2(p), 6.0, Stroke::new(1.5, Color32::from_white_alpha(200)));
        if let Some(bone) = f
            .scene
            .actors
            .get(a)
            .and_then(|x| x.skeleton().bones.get(b))
        {
            label(painter, p2(p) + egui::vec2(8.0, -8.0), &bone.name);
        }
    }
    if let (Some(s), Some(g)) = (&tool.selected, &g) {
        let (_, _, fwd) = f.view.basis();
        if let Some(c) = f.screen.project(g.centre) {
            painter.circle_filled(p2(c), 4.0, SELECTED);
            let pending = tool
                .pending
                .as_ref()
                .is_some_and(|p| p.actor == s.actor && p.bone == s.name);
            let text = if pending {
                format!("{}  (not keyed: Enter registers)", s.name)
            } else {
                s.name.clone()
            };
            label(painter, p2(c) + egui::vec2(10.0, 10.0), &text);
        }
        let active = tool.hover;
        {
            for (i, &axis) in g.rings().iter().enumerate() {
                let pts = gm::ring_points(g.centre, axis, g.ring_radius, gm::RING_SEGMENTS);
                let colour = if active == Some(Handle::Ring(i)) {
                    ACTIVE
                } else {
                    AXIS_COLOURS[if g.ring_count == 1 { 0 } else { i }]
                };
                let n = pts.len();
                for k in 0..n {
                    let (a, b) = (pts[k], pts[(k + 1) % n]);
                    // The half behind the joint is drawn faint.
                    let behind = ((a + b) * 0.5 - g.centre).dot(fwd) > 0.0;
                    let stroke = if behind {
                        Stroke::new(1.5, colour.gamma_multiply(0.35))
                    } else {
                        Stroke::new(2.5, colour)
                    };
                    if let (Some(sa), Some(sb)) = (f.screen.project(a), f.screen.project(b)) {
                        painter.line_segment([p2(sa), p2(sb)], stroke);
                    }
                }
            }
        }
        if g.arrows {
            for (i, axis) in g.arrow_axes.iter().enumerate() {
                let colour = if active == Some(Handle::Arrow(i)) {
                    ACTIVE
                } else {
                    AXIS_COLOURS[i]
                };
                let (Some(c), Some(t)) = (
                    f.screen.project(g.centre),
                    f.screen.project(g.centre + *axis * g.arrow_length),
                ) else {
                    continue;
                };
                painter.line_segment([p2(c), p2(t)], Stroke::new(3.0, colour));
                if let Some(dir) = (t - c).try_normalize() {
                    let side = Vec2::new(-dir.y, dir.x) * 5.0;
                    let base = t - dir * 12.0;
                    painter.add(egui::Shape::convex_polygon(
                        vec![p2(t), p2(base + side), p2(base - side)],
                        colour,
                        Stroke::NONE,
                    ));
                }
            }
        }
    }
    tool.drawn = Some(Drawn {
        screen: f.screen,
        names: joints
            .iter()
            .map(|&(a, b, _)| {
                f.scene
                    .actors
                    .get(a)
                    .and_then(|x| x.skeleton().bones.get(b))
                    .map_or(String::new(), |b| b.name.clone())
            })
            .collect(),
        joints,
        gizmo: g,
    });
}

fn label(painter: &egui::Painter, at: Pos2, text: &str) {
    let galley = painter.layout_no_wrap(
        text.to_owned(),
        egui::FontId::proportional(13.0),
        Color32::from_gray(240),
    );
    let r = Rect::from_min_size(at, galley.size()).expand(3.0);
    painter.rect_filled(r, 3.0, Color32::from_black_alpha(170));
    painter.galley(at, galley, Color32::from_gray(240));
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
    ui.weak(
        "Drag a ring to turn the bone, an arrow to move it (centre, IK and movable bones). \
         On a frame where the bone has a key the drag edits that key (one undo step); \
         elsewhere the pose is shown unregistered until Enter keys it, and is dropped \
         when the frame changes.",
    );
}
