//! Where the gizmo is and what the pointer is over: the gizmo's shape for
//! the selected bone, the handle under the pointer, the pickable joints.

use glam::{Vec2, Vec3};

use super::{
    ARROW_PX, Frame, GizmoShape, Handle, PICK_PX, PoseTool, RING_PX, is_ik, movable, p2,
    root_rotation, rotation_of,
};
use crate::model::gizmo::{self as gm, Screen};

/// The gizmo's shape for the selected bone, or for the actor being
/// placed.
pub(super) fn shape(tool: &PoseTool, f: &Frame) -> Option<GizmoShape> {
    if let Some(i) = tool.placing {
        return place_shape(f, i);
    }
    if let Some(i) = tool.moving_accessory {
        return super::accessory::shape(f, i);
    }
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
        .map_or_else(|| root_rotation(a), rotation_of);
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

/// The placing gizmo: at the actor's place on the ground, arrows along the
/// scene's X, Y and Z, one ring about Y (an actor turns about Y only).
fn place_shape(f: &Frame, actor: usize) -> Option<GizmoShape> {
    let a = f.scene.actors.get(actor)?;
    let centre = a.placement.position;
    if !centre.is_finite() {
        return None;
    }
    let (right, _, _) = f.view.basis();
    let upp = f.screen.units_per_pixel(centre, right)?;
    Some(GizmoShape {
        centre,
        ring_axes: [Vec3::Y, Vec3::X, Vec3::Z],
        ring_count: 1,
        arrow_axes: [Vec3::X, Vec3::Y, Vec3::Z],
        arrows: true,
        ring_radius: RING_PX * upp,
        arrow_length: ARROW_PX * upp,
    })
}

/// The handle under `p`: an arrow first (they sit inside the rings), then a ring.
pub(super) fn handle_at(g: &GizmoShape, screen: &Screen, p: Vec2) -> Option<Handle> {
    if g.arrows
        && let Some(i) = gm::pick_arrow(screen, g.centre, &g.arrow_axes, g.arrow_length, p, PICK_PX)
    {
        return Some(Handle::Arrow(i));
    }
    gm::pick_ring(screen, g.centre, g.rings(), g.ring_radius, p, PICK_PX).map(Handle::Ring)
}

/// Every pickable joint on screen: (actor, bone, position).
pub(super) fn joints(f: &Frame) -> Vec<(usize, usize, Vec2)> {
    let mut out = Vec::new();
    for (ai, (a, world)) in f.scene.actors.iter().zip(f.worlds).enumerate() {
        for (bi, (b, m)) in a.skeleton().bones.iter().zip(world.iter()).enumerate() {
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
