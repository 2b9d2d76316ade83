//! One channel's curve box: the 0..=127 square, the curve and its ghost,
//! the two draggable control points (a drag is one merged undo step) and
//! the numeric fields under it.

use egui::{Align2, FontId, Pos2, Rect, Sense, Stroke, Vec2};

use super::edits::{Send, send_curve};
use super::{State, Target, channel_color, presets};
use crate::app::panels::PanelCtx;
use crate::vmd::Curve;
use crate::vmd::curve_edit;
use crate::workspace::document::EditRequest;

/// Pick radius of a control point in points.
const HANDLE_RADIUS: f32 = 7.0;

/// An ongoing drag of a control point.
#[derive(Debug, Clone)]
pub(super) struct Drag {
    /// Channel index of the box being dragged.
    pub(super) channel: usize,
    /// 1 or 2: which control point.
    pub(super) point: u8,
    pub(super) merge_id: u64,
    /// The active key's curves when the drag started (the ghost).
    pub(super) ghost: Vec<Curve>,
}

/// Maps 0..=127 curve space to the box (y up).
fn to_screen(rect: Rect, x: f64, y: f64) -> Pos2 {
    Pos2::new(
        rect.left() + (x / 127.0) as f32 * rect.width(),
        rect.bottom() - (y / 127.0) as f32 * rect.height(),
    )
}

/// Maps a screen position to the nearest integer point of the box, clamped.
fn to_curve(rect: Rect, p: Pos2) -> (u8, u8) {
    let fx = ((p.x - rect.left()) / rect.width() * 127.0).round();
    let fy = ((rect.bottom() - p.y) / rect.height() * 127.0).round();
    (fx.clamp(0.0, 127.0) as u8, fy.clamp(0.0, 127.0) as u8)
}

/// Screen position of a control point of `curve` in a box (for tests).
pub fn control_point_pos(rect: Rect, curve: Curve, point: u8) -> Pos2 {
    if point == 1 {
        to_screen(rect, f64::from(curve.x1), f64::from(curve.y1))
    } else {
        to_screen(rect, f64::from(curve.x2), f64::from(curve.y2))
    }
}

fn curve_polyline(rect: Rect, curve: Curve) -> Vec<Pos2> {
    (0..=64)
        .map(|i| {
            let (x, y) = curve.point_at(i as f64 / 64.0);
            to_screen(rect, x * 127.0, y * 127.0)
        })
        .collect()
}

/// One channel's curve box: its label, the box with the curve and its two
/// draggable control points, numeric fields and presets.
pub(super) fn channel_box(
    ui: &mut egui::Ui,
    cx: &mut PanelCtx,
    state: &mut State,
    target: Target,
    c: usize,
    curve: Curve,
) {
    let color = channel_color(c);
    ui.label(egui::RichText::new(target.label(c)).color(color).strong());
    let (rect, _) = ui.allocate_exact_size(Vec2::splat(state.box_side), Sense::hover());
    state.boxes.push(rect);
    let visuals = ui.visuals().clone();
    let painter = ui.painter_at(rect.expand(HANDLE_RADIUS));
    draw_frame(&painter, rect, &visuals);

    let (p1, p2) = draw_curve(&painter, rect, &visuals, state, c, curve);

    // Control points: point 2 is added last so it wins when they overlap
    // at the top right; point 1 when they overlap elsewhere makes no difference.
    let mut new_curve = curve;
    let mut dragging_now = false;
    for (point, pos) in [(1u8, p1), (2u8, p2)] {
        let id = egui::Id::unique(("vmd-studio-curve-point", c, point));
        let hit = Rect::from_center_size(pos, Vec2::splat(2.0 * HANDLE_RADIUS));
        let resp = ui
            .interact(hit, id, Sense::drag())
            .on_hover_text(format!("Drag control point {point}"));
        if resp.drag_started() {
            state.drag = Some(Drag {
                channel: c,
                point,
                merge_id: state.new_merge_id(),
                ghost: target.curves(cx.doc).unwrap_or_default(),
            });
        }
        let active = resp.dragged() || resp.hovered();
        if resp.dragged()
            && let Some(p) = resp.interact_pointer_pos()
        {
            dragging_now = true;
            let (x, y) = to_curve(rect, p);
            if point == 1 {
                (new_curve.x1, new_curve.y1) = (x, y);
            } else {
                (new_curve.x2, new_curve.y2) = (x, y);
            }
        }
        if resp.drag_stopped() {
            if state
                .drag
                .as_ref()
                .is_some_and(|d| d.channel == c && d.point == point)
            {
                state.drag = None;
            }
            cx.push(EditRequest::EndMerge);
        }
        let r = if active {
            HANDLE_RADIUS
        } else {
            HANDLE_RADIUS - 2.0
        };
        painter.circle(pos, r, color, Stroke::new(1.5, visuals.text_color()));
    }
    if dragging_now && new_curve != curve {
        let merge = state.drag.as_ref().map(|d| d.merge_id);
        match merge {
            Some(id) => send_curve(cx, state, target, c, new_curve, Send::Merge(id)),
            None => send_curve(cx, state, target, c, new_curve, Send::Step),
        }
    }
    painter.text(
        rect.left_top() + Vec2::new(4.0, 2.0),
        Align2::LEFT_TOP,
        curve_edit::format_curve(if dragging_now { new_curve } else { curve }),
        FontId::monospace(10.0),
        visuals.weak_text_color(),
    );

    numeric_fields(ui, cx, state, target, c, curve);
    presets::buttons(ui, cx, state, target, c, curve);
}

/// The box's background, border, quarter grid and diagonal.
fn draw_frame(painter: &egui::Painter, rect: Rect, visuals: &egui::Visuals) {
    painter.rect_filled(rect, 2.0, visuals.extreme_bg_color);
    painter.rect_stroke(
        rect,
        2.0,
        visuals.widgets.noninteractive.bg_stroke,
        egui::StrokeKind::Inside,
    );
    let grid = visuals.weak_text_color().gamma_multiply(0.25);
    for q in [32.0, 64.0, 96.0] {
        painter.line_segment(
            [to_screen(rect, q, 0.0), to_screen(rect, q, 127.0)],
            Stroke::new(0.5, grid),
        );
        painter.line_segment(
            [to_screen(rect, 0.0, q), to_screen(rect, 127.0, q)],
            Stroke::new(0.5, grid),
        );
    }
    painter.line_segment(
        [rect.left_bottom(), rect.right_top()],
        Stroke::new(1.0, grid),
    );
}

/// The curve, its handles and (while dragging) the ghost of the curve
/// before the drag; returns where control points 1 and 2 sit.
fn draw_curve(
    painter: &egui::Painter,
    rect: Rect,
    visuals: &egui::Visuals,
    state: &State,
    c: usize,
    curve: Curve,
) -> (Pos2, Pos2) {
    // Ghost of the curve before the drag.
    if state.show_ghost
        && let Some(d) = &state.drag
        && let Some(&g) = d.ghost.get(c)
        && g != curve
    {
        painter.add(egui::Shape::dashed_line(
            &curve_polyline(rect, g),
            Stroke::new(1.2, visuals.weak_text_color()),
            4.0,
            3.0,
        ));
    }
    let p0 = to_screen(rect, 0.0, 0.0);
    let p3 = to_screen(rect, 127.0, 127.0);
    let p1 = control_point_pos(rect, curve, 1);
    let p2 = control_point_pos(rect, curve, 2);
    let handle_stroke = Stroke::new(1.0, visuals.text_color().gamma_multiply(0.6));
    painter.line_segment([p0, p1], handle_stroke);
    painter.line_segment([p3, p2], handle_stroke);
    painter.add(egui::Shape::line(
        curve_polyline(rect, curve),
        Stroke::new(2.0, channel_color(c)),
    ));

    (p1, p2)
}

fn numeric_fields(
    ui: &mut egui::Ui,
    cx: &mut PanelCtx,
    state: &mut State,
    target: Target,
    c: usize,
    curve: Curve,
) {
    let mut v = [curve.x1, curve.y1, curve.x2, curve.y2];
    let mut any_drag = false;
    let mut stopped = false;
    let mut changed = false;
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        for (i, name) in ["x1", "y1", "x2", "y2"].iter().enumerate() {
            let resp = ui
                .add(egui::DragValue::new(&mut v[i]).range(0..=127).speed(0.5))
                .on_hover_text(format!("{} {name} (0..127)", target.label(c)));
            changed |= resp.changed();
            any_drag |= resp.dragged();
            stopped |= resp.drag_stopped();
        }
    });
    let new = Curve::new(v[0], v[1], v[2], v[3]);
    if changed && new != curve {
        if any_drag {
            let id = match state.field_merge {
                Some(id) => id,
                None => {
                    let id = state.new_merge_id();
                    state.field_merge = Some(id);
                    id
                }
            };
            send_curve(cx, state, target, c, new, Send::Merge(id));
        } else {
            send_curve(cx, state, target, c, new, Send::Step);
        }
    }
    if stopped && state.field_merge.take().is_some() {
        cx.push(EditRequest::EndMerge);
    }
}
