//! Drawing the value graph: grid and labels, the edited segment, the
//! sampled curves, the handles and keys (what the pointer can grab), the
//! playhead.

use egui::{Color32, Pos2, Rect, Stroke, Vec2};

use super::{GraphLayout, GraphTarget, PICK, Pick, Unwrap, Value, key_frame, key_point, key_ref};
use crate::scene::value_graph::{self as vg, Handle, Segment};
use crate::vmd::Motion;
use crate::workspace::document::KeyRef;

/// What one frame of the graph shows.
pub(super) struct Picture<'a> {
    pub motion: &'a Motion,
    pub target: GraphTarget,
    /// The track's keys (indices into the motion).
    pub keys: &'a [u32],
    pub values: &'a [Value],
    pub series: &'a [(Value, vg::Series)],
    pub segs: &'a [(Value, Vec<Segment>)],
    pub layout: GraphLayout,
    /// The track's selected keys.
    pub selected: &'a [u32],
    pub active: Option<KeyRef>,
    /// The playhead, frames.
    pub playhead: f64,
    pub unwrap: &'a Unwrap<'a>,
}

/// Draws the graph in `rect`; returns where each handle and key was drawn.
pub(super) fn picture(ui: &egui::Ui, rect: Rect, p: &Picture) -> Vec<(Pos2, Pick)> {
    let layout = p.layout;
    let plot = layout.rect;
    let painter = ui.painter_at(rect);
    grid(ui, &painter, layout);
    // The edited segment (the active key's): shaded.
    if let Some((a, b)) = active_segment(p.motion, p.target, p.keys) {
        let xa = layout.to_screen([f64::from(a), 0.0]).x.max(plot.left());
        let xb = layout.to_screen([f64::from(b), 0.0]).x.min(plot.right());
        if xb > xa {
            painter.rect_filled(
                Rect::from_x_y_ranges(xa..=xb, plot.y_range()),
                0.0,
                Color32::from_rgba_unmultiplied(230, 190, 60, 24),
            );
        }
    }
    let clip = ui.painter_at(plot.expand(PICK));
    for (v, s) in p.series {
        let pts: Vec<Pos2> = s
            .iter()
            .filter(|p| p[1].is_finite())
            .map(|&p| layout.to_screen(p))
            .collect();
        clip.add(egui::Shape::line(pts, Stroke::new(1.6, v.color())));
    }
    let mut picks = handles(&clip, p);
    picks.extend(keys(ui, &clip, p));
    // The playhead.
    let ph = p.playhead;
    if (layout.frames.0..=layout.frames.1).contains(&ph) {
        let x = layout.to_screen([ph, 0.0]).x;
        painter.line_segment(
            [Pos2::new(x, plot.top()), Pos2::new(x, plot.bottom())],
            Stroke::new(1.5, Color32::from_rgb(230, 80, 60)),
        );
    }
    picks
}

/// The plot's background, grid lines and their frame and value labels.
fn grid(ui: &egui::Ui, painter: &egui::Painter, layout: GraphLayout) {
    let plot = layout.rect;
    let visuals = ui.visuals();
    painter.rect_filled(plot, 2.0, visuals.extreme_bg_color);
    let grid = visuals.weak_text_color().gamma_multiply(0.3);
    let text = visuals.weak_text_color();
    let font = egui::FontId::proportional(10.0);
    for f in ticks(layout.frames) {
        let x = layout.to_screen([f, layout.values.0]).x;
        painter.line_segment(
            [Pos2::new(x, plot.top()), Pos2::new(x, plot.bottom())],
            Stroke::new(0.5, grid),
        );
        painter.text(
            Pos2::new(x, plot.bottom() + 2.0),
            egui::Align2::CENTER_TOP,
            format!("{f:.0}"),
            font.clone(),
            text,
        );
    }
    for v in ticks(layout.values) {
        let y = layout.to_screen([layout.frames.0, v]).y;
        painter.line_segment(
            [Pos2::new(plot.left(), y), Pos2::new(plot.right(), y)],
            Stroke::new(0.5, grid),
        );
        painter.text(
            Pos2::new(plot.left() - 3.0, y),
            egui::Align2::RIGHT_CENTER,
            format!("{v:.4}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string(),
            font.clone(),
            text,
        );
    }
}

/// Each segment's two handles in view, with their lines to the keys.
fn handles(clip: &egui::Painter, p: &Picture) -> Vec<(Pos2, Pick)> {
    let layout = p.layout;
    let mut picks = Vec::new();
    for (v, ss) in p.segs {
        for s in ss
            .iter()
            .filter(|s| s.to[0] >= layout.frames.0 && s.from[0] <= layout.frames.1)
        {
            if s.cut {
                continue;
            }
            let a = layout.to_screen(s.from);
            let b = layout.to_screen(s.to);
            let h1 = layout.to_screen(s.handles[0]);
            let h2 = layout.to_screen(s.handles[1]);
            let st = Stroke::new(1.0, v.color().gamma_multiply(0.6));
            clip.line_segment([a, h1], st);
            clip.line_segment([b, h2], st);
            for (h, which) in [(h1, Handle::First), (h2, Handle::Second)] {
                clip.rect_filled(Rect::from_center_size(h, Vec2::splat(7.0)), 0.0, v.color());
                picks.push((h, Pick::Handle(*v, *s, which)));
            }
        }
    }
    picks
}

/// The track's keys in view, one dot per value; the selected ones ringed.
fn keys(ui: &egui::Ui, clip: &egui::Painter, p: &Picture) -> Vec<(Pos2, Pick)> {
    let layout = p.layout;
    let ring = ui.visuals().strong_text_color();
    let mut picks = Vec::new();
    for v in p.values {
        for &k in p.keys {
            let Some(mut at) = key_point(p.motion, *v, k) else {
                continue;
            };
            at[1] += p.unwrap.turns(*v, at[0], at[1]);
            if at[0] < layout.frames.0 || at[0] > layout.frames.1 {
                continue;
            }
            let s = layout.to_screen(at);
            let sel = p.selected.contains(&k) || Some(key_ref(p.target, k)) == p.active;
            clip.circle_filled(s, if sel { 5.0 } else { 4.0 }, v.color());
            if sel {
                clip.circle_stroke(s, 6.5, Stroke::new(1.5, ring));
            }
            picks.push((s, Pick::Key(*v, k)));
        }
    }
    picks
}

/// The active key's segment (A frame, B frame), if it has a key before it.
fn active_segment(m: &Motion, target: GraphTarget, keys: &[u32]) -> Option<(u32, u32)> {
    let (GraphTarget::Bone(i) | GraphTarget::Camera(i)) = target;
    let pos = keys.iter().position(|&k| k == i)?;
    let b = key_frame(m, target, i)?;
    let a = keys[..pos]
        .iter()
        .rev()
        .filter_map(|&k| key_frame(m, target, k))
        .find(|&f| f < b)?;
    Some((a, b))
}

/// About six round tick values across `range`.
fn ticks(range: (f64, f64)) -> Vec<f64> {
    let span = range.1 - range.0;
    if !(span.is_finite() && span > 0.0) {
        return Vec::new();
    }
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (range.0 / step).ceil() as i64;
    let last = (range.1 / step).floor() as i64;
    (first..=last).take(50).map(|i| i as f64 * step).collect()
}
