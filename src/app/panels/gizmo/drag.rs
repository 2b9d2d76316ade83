//! Gizmo drags: pointer handling (hover, joint clicks), starting a drag on
//! a ring or an arrow, and turning the pointer's movement into an edit of
//! the key at the playhead (one merged undo step per drag) or into the
//! unregistered pose.

use glam::{Quat, Vec2, Vec3};

use super::pick::{handle_at, joints, shape};
use super::{
    Drag, Frame, GizmoShape, Handle, PICK_PX, Pending, PoseTool, Selected, Target, bone_key_at,
    root_rotation, rotation_of, v2,
};
use crate::app::panels::Shared;
use crate::model::gizmo as gm;
use crate::scene::ActorPlacement;
use crate::workspace::document::{Document, Edit, EditRequest, KeyChanges};

/// The bone's current local values at motion frame `frame`: the key there,
/// else the unregistered pose, else the motion's interpolated pose.
pub(super) fn current_local(
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

/// What the posing tool did with the pointer this frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pointer {
    /// The tool took the pointer (the view must not orbit).
    pub took: bool,
    /// A joint the user clicked this frame (now the selected bone).
    pub picked: Option<Selected>,
    /// Where a placing drag put an actor this frame (a scene change for
    /// the caller to apply).
    pub placed: Option<(usize, ActorPlacement)>,
    /// The values a drag gave an accessory this frame: (accessory, scene
    /// frame at the playhead, values), for the caller to apply.
    pub accessory: Option<(usize, u32, crate::scene::set::AccessoryState)>,
    /// A drag of an actor's place or an accessory ended this frame (its
    /// changes were one undo step; the next drag is another).
    pub scene_drag_ended: bool,
}

/// Pointer handling: hover, joint clicks, gizmo drags.
pub fn interact(
    response: &egui::Response,
    f: &Frame,
    edits: &mut Vec<(u64, EditRequest)>,
    shared: &mut Shared,
    tool: &mut PoseTool,
) -> Pointer {
    let took = Pointer {
        took: true,
        ..Pointer::default()
    };
    if (tool.placing.is_some() || tool.moving_accessory.is_some())
        && tool.drag.is_none()
        && response.ctx.input(|i| i.key_pressed(egui::Key::Escape))
    {
        tool.placing = None;
        tool.moving_accessory = None;
        shared.info("Placing done");
    }
    // A drag started in another view belongs to that view.
    if tool.drag.as_ref().is_some_and(|d| d.view != f.view_number) {
        return took;
    }
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
        return took;
    }
    if let Some(d) = tool.drag.clone() {
        if (response.dragged_by(primary) || response.drag_stopped())
            && let Some(p) = response.interact_pointer_pos().map(v2).or(hover_pos)
        {
            continue_drag(&d, p - d.origin, f, edits, tool);
        }
        let mut ended = false;
        if response.drag_stopped() || !response.dragged() {
            if matches!(d.target, Target::Key(_)) {
                edits.push((d.doc, EditRequest::EndMerge));
            }
            ended = matches!(d.target, Target::Place(..) | Target::Accessory(_));
            tool.drag = None;
        }
        return Pointer {
            placed: tool.placed.take(),
            accessory: tool.moved_accessory.take(),
            scene_drag_ended: ended,
            ..took
        };
    }
    if response.clicked_by(primary)
        && let Some(p) = response.interact_pointer_pos().map(v2)
    {
        if g.as_ref()
            .is_some_and(|g| handle_at(g, &f.screen, p).is_some())
        {
            return took;
        }
        let pts: Vec<Option<Vec2>> = joints.iter().map(|j| Some(j.2)).collect();
        let before = tool.selected.clone();
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
        if tool.selected.is_some() && tool.selected != before {
            // Picking a bone goes back to posing.
            tool.placing = None;
            tool.moving_accessory = None;
        }
        return Pointer {
            took: tool.selected.is_some(),
            picked: tool.selected.clone(),
            ..Pointer::default()
        };
    }
    Pointer::default()
}

fn start_drag(
    h: Handle,
    g: &GizmoShape,
    origin: Vec2,
    f: &Frame,
    shared: &mut Shared,
    tool: &mut PoseTool,
) {
    if let Some(i) = tool.placing {
        start_place_drag(h, g, origin, f, shared, tool, i);
        return;
    }
    if let Some(i) = tool.moving_accessory {
        if let Some(grabbed) = grab(h, g, origin, f, shared) {
            super::accessory::start_drag(h, g, origin, f, grabbed, tool, i);
        }
        return;
    }
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
        .map_or_else(|| root_rotation(a), rotation_of);
    let (start_t, start_q, key) = current_local(tool, doc, s.actor, &s.name, frame);
    let Some((axis, ring)) = grab(h, g, origin, f, shared) else {
        return;
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
        view: f.view_number,
    });
}

/// The axis of handle `h` and, for a ring, where on it the user grabbed
/// (`None` with a note when the ring is seen edge-on).
pub(super) fn grab(
    h: Handle,
    g: &GizmoShape,
    origin: Vec2,
    f: &Frame,
    shared: &mut Shared,
) -> Option<(Vec3, Option<gm::RingGrab>)> {
    match h {
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
                return None;
            }
            Some((axis, ring))
        }
        Handle::Arrow(i) => Some((g.arrow_axes[i], None)),
    }
}

/// Starts a drag of the placing gizmo on actor `actor`.
fn start_place_drag(
    h: Handle,
    g: &GizmoShape,
    origin: Vec2,
    f: &Frame,
    shared: &mut Shared,
    tool: &mut PoseTool,
    actor: usize,
) {
    let Some(a) = f.scene.actors.get(actor) else {
        tool.placing = None;
        return;
    };
    let Some((axis, ring)) = grab(h, g, origin, f, shared) else {
        return;
    };
    let merge = tool.merge_id();
    tool.drag = Some(Drag {
        handle: h,
        origin,
        axis,
        centre: g.centre,
        parent: Quat::IDENTITY,
        start_t: a.placement.position,
        start_q: a.placement.rotation(),
        ring,
        screen: f.screen,
        target: Target::Place(actor, a.placement),
        doc: 0,
        frame: 0,
        merge,
        view: f.view_number,
    });
}

/// The placement a placing drag by `delta` makes of `start`: an arrow
/// moves it along its axis, the ring (about Y) adds its angle to the turn
/// (kept within ±180°).
fn dragged_placement(d: &Drag, delta: Vec2, start: ActorPlacement) -> Option<ActorPlacement> {
    let mut p = start;
    match d.handle {
        Handle::Ring(_) => {
            let angle = gm::ring_drag_angle(d.ring.as_ref()?, delta).to_degrees();
            let turn = (start.turn_degrees + angle * d.axis.y.signum() + 180.0).rem_euclid(360.0);
            p.turn_degrees = turn - 180.0;
        }
        Handle::Arrow(_) => {
            let dist = gm::axis_drag_distance(&d.screen, d.centre, d.axis, delta)?;
            p.position = start.position + d.axis * dist;
        }
    }
    (p.position.is_finite() && p.turn_degrees.is_finite()).then_some(p)
}

fn continue_drag(
    d: &Drag,
    delta: Vec2,
    f: &Frame,
    edits: &mut Vec<(u64, EditRequest)>,
    tool: &mut PoseTool,
) {
    if let Target::Place(actor, start) = d.target {
        if let Some(p) = dragged_placement(d, delta, start) {
            tool.placed = Some((actor, p));
        }
        return;
    }
    if let Target::Accessory(_) = d.target {
        if let Some(moved) = super::accessory::dragged(d, delta, f) {
            tool.moved_accessory = Some(moved);
        }
        return;
    }
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
        Target::Place(..) | Target::Accessory(_) => {}
    }
}
