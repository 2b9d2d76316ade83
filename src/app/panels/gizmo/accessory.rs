//! Moving an accessory with the gizmo (scene panel ▸ "Move in view"), as
//! MMD's accessory panel values: three arrows along the parent's axes (the
//! world's, or the parent bone's as drawn) change X, Y and Z; three rings
//! turn it, read back as Rx, Ry, Rz. A keyed accessory changes its key at
//! the playhead (a new one there if none), else its own values.

use glam::{Mat4, Vec2, Vec3};

use super::{ARROW_PX, Drag, Frame, GizmoShape, Handle, PoseTool, RING_PX, Target, rotation_of};
use crate::app::panels::Shared;
use crate::model::gizmo as gm;
use crate::scene::set::{
    AccessoryState, Parent, SetAccessory, degrees_from_rotation, rotation_from_degrees,
};

/// The playhead as a whole scene frame (accessory keys sit on frames).
fn whole_frame(f: &Frame) -> u32 {
    let x = f.scene_frame.round();
    if x.is_finite() && x > 0.0 {
        x.min(f64::from(u32::MAX)) as u32
    } else {
        0
    }
}

/// The parent's world matrix as drawn: the bone's (found by name in the
/// actor's skeleton), else the world.
fn parent_world(f: &Frame, parent: &Parent) -> Mat4 {
    match parent {
        Parent::World => Mat4::IDENTITY,
        Parent::Bone { actor, bone } => f
            .scene
            .actors
            .get(*actor)
            .and_then(|a| a.skeleton().find(bone))
            .and_then(|b| f.worlds.get(*actor)?.get(b).copied())
            .unwrap_or(Mat4::IDENTITY),
    }
}

fn accessory<'a>(f: &Frame<'a>, i: usize) -> Option<&'a SetAccessory> {
    f.scene.accessories.get(i)
}

/// The gizmo for accessory `i`: at its origin, arrows and rings along its
/// parent's axes.
pub(super) fn shape(f: &Frame, i: usize) -> Option<GizmoShape> {
    let a = accessory(f, i)?;
    let st = a.state_at(whole_frame(f));
    let p = parent_world(f, &st.parent);
    let centre = p.transform_point3(st.position);
    if !centre.is_finite() {
        return None;
    }
    let r = rotation_of(&p);
    let axes = [r * Vec3::X, r * Vec3::Y, r * Vec3::Z];
    let (right, _, _) = f.view.basis();
    let upp = f.screen.units_per_pixel(centre, right)?;
    Some(GizmoShape {
        centre,
        ring_axes: axes,
        ring_count: 3,
        arrow_axes: axes,
        arrows: true,
        ring_radius: RING_PX * upp,
        arrow_length: ARROW_PX * upp,
    })
}

/// Starts a drag of accessory `i`'s gizmo; `grab` is the handle's axis and
/// ring grab (see `drag::grab`).
pub(super) fn start_drag(
    h: Handle,
    g: &GizmoShape,
    origin: Vec2,
    f: &Frame,
    grab: (Vec3, Option<gm::RingGrab>),
    tool: &mut PoseTool,
    i: usize,
) {
    let Some(a) = accessory(f, i) else {
        tool.moving_accessory = None;
        return;
    };
    let frame = whole_frame(f);
    let st = a.state_at(frame);
    let merge = tool.merge_id();
    tool.drag = Some(Drag {
        handle: h,
        origin,
        axis: grab.0,
        centre: g.centre,
        parent: rotation_of(&parent_world(f, &st.parent)),
        start_t: st.position,
        start_q: rotation_from_degrees(st.rotation_degrees),
        ring: grab.1,
        screen: f.screen,
        target: Target::Accessory(i),
        doc: 0,
        frame,
        merge,
        view: f.view_number,
    });
}

/// The panel values a drag by `delta` makes: an arrow moves the accessory
/// along its axis (in the parent's space), a ring turns it about its axis.
pub(super) fn dragged(d: &Drag, delta: Vec2, f: &Frame) -> Option<(usize, u32, AccessoryState)> {
    let Target::Accessory(i) = d.target else {
        return None;
    };
    let mut st = accessory(f, i)?.state_at(d.frame);
    match d.handle {
        Handle::Ring(_) => {
            let angle = gm::ring_drag_angle(d.ring.as_ref()?, delta);
            let q = gm::rotate_about_world_axis(d.start_q, d.parent, d.axis, angle);
            st.rotation_degrees = degrees_from_rotation(q);
        }
        Handle::Arrow(_) => {
            let dist = gm::axis_drag_distance(&d.screen, d.centre, d.axis, delta)?;
            st.position = d.start_t + gm::world_offset_to_local(d.parent, d.axis * dist);
        }
    }
    (st.position.is_finite() && st.rotation_degrees.is_finite()).then_some((i, d.frame, st))
}

/// The title beside the gizmo while moving accessory `i`.
pub(super) fn title(f: &Frame, i: usize) -> Option<String> {
    Some(format!(
        "{}  (arrows move, rings turn; Esc: done)",
        accessory(f, i)?.name
    ))
}

/// Says what "Move in view" does, for the status line.
pub fn started(shared: &mut Shared, name: &str) {
    shared.info(format!(
        "Moving {name}: drag an arrow to move it, a ring to turn it; Esc when done"
    ));
}
