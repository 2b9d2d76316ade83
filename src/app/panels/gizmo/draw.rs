//! Drawing the posing tool: the selected and hovered joints, the rings and
//! arrows (the active one highlighted), and what was drawn where, kept for
//! the next frame's clicks and for tests.

use egui::{Color32, Pos2, Rect, Stroke};
use glam::Vec2;

use super::pick::{joints, shape};
use super::{ACTIVE, AXIS_COLOURS, Drawn, Frame, Handle, PoseTool, SELECTED, p2};
use crate::model::gizmo as gm;

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
    if let (Some(text), Some(g)) = (gizmo_title(f, tool), &g) {
        let (_, _, fwd) = f.view.basis();
        if let Some(c) = f.screen.project(g.centre) {
            painter.circle_filled(p2(c), 4.0, SELECTED);
            label(painter, p2(c) + egui::vec2(10.0, 10.0), &text);
        }
        let active = tool.hover;
        {
            for (i, &axis) in g.rings().iter().enumerate() {
                let pts = gm::ring_points(g.centre, axis, g.ring_radius, gm::RING_SEGMENTS);
                let colour = if active == Some(Handle::Ring(i)) {
                    ACTIVE
                } else {
                    // A lone ring is the twist axis (X's colour) or, when
                    // placing, the turn about Y.
                    AXIS_COLOURS[match (g.ring_count, tool.placing) {
                        (1, Some(_)) => 1,
                        (1, None) => 0,
                        _ => i,
                    }]
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
    let drawn = Drawn {
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
    };
    tool.drawn.insert(f.view_number, drawn);
}

/// What the gizmo is on: the actor being placed, or the selected bone
/// (with a note when its pose is not keyed); `None`: no gizmo.
fn gizmo_title(f: &Frame, tool: &PoseTool) -> Option<String> {
    if let Some(i) = tool.moving_accessory {
        return super::accessory::title(f, i);
    }
    if let Some(i) = tool.placing {
        let a = f.scene.actors.get(i)?;
        return Some(format!(
            "{}  (placing: arrows move, the ring turns; Esc: done)",
            a.name
        ));
    }
    let s = tool.selected.as_ref()?;
    let pending = tool
        .pending
        .as_ref()
        .is_some_and(|p| p.actor == s.actor && p.bone == s.name);
    Some(if pending {
        format!("{}  (not keyed: Enter registers)", s.name)
    } else {
        s.name.clone()
    })
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
