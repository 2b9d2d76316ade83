//! The value graph: the active key's track (a bone or the camera), its
//! channels' values over time, with each segment's VMD curve as two
//! handles in (frame, value) space.
//!
//! * Dragging a handle writes the same 0..=127 bytes the curve box writes
//!   for the same drag ([`crate::scene::value_graph::bone_handle_drag`],
//!   through the curve editor's planner): one merged undo step per drag.
//!   With several keys selected, their segments are shaped together (the
//!   curve editor's batch mode).
//! * Dragging a key moves it in time (whole frames) and value; selected
//!   keys of the same kind move with it. One undo step per drag.
//! * A click on the background puts the playhead there.
//!
//! The panel reads the document and returns edits ([`PanelCtx::push`]);
//! it never mutates a document.

use egui::{Color32, Pos2, Rect, Sense, Stroke, Vec2};

use super::PanelCtx;
use super::curve_editor::channel_color;
use crate::scene::value_graph::{
    self as vg, BoneValue, CameraValue, Handle, Segment, bone_key_with_value, camera_key_with_value,
};
use crate::vmd::{Motion, TrackIndex};
use crate::workspace::document::{Document, Edit, EditRequest, KeyChanges, KeyRef};

/// Pick radius of a handle or key, points.
const PICK: f32 = 7.0;

/// Which track the graph shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphTarget {
    /// The bone track of this key (index into `Motion::bones`).
    Bone(u32),
    /// The camera track (the active camera key).
    Camera(u32),
}

/// A plotted value: a bone's or the camera's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    Bone(BoneValue),
    Camera(CameraValue),
}

impl Value {
    pub fn label(self) -> &'static str {
        match self {
            Value::Bone(v) => v.label(),
            Value::Camera(v) => v.label(),
        }
    }
    fn is_angle(self) -> bool {
        matches!(
            self,
            Value::Bone(BoneValue::RotX | BoneValue::RotY | BoneValue::RotZ)
                | Value::Camera(CameraValue::RotX | CameraValue::RotY | CameraValue::RotZ)
        )
    }
    fn color(self) -> Color32 {
        let i = match self {
            Value::Bone(v) => BoneValue::ALL.iter().position(|&x| x == v).unwrap_or(0),
            Value::Camera(v) => CameraValue::ALL.iter().position(|&x| x == v).unwrap_or(0),
        };
        // X red, Y green, Z blue; rotations lighter; distance, fov.
        match i {
            0..=2 => channel_color(i),
            3..=5 => channel_color(i - 3).gamma_multiply(0.75),
            6 => channel_color(4),
            _ => channel_color(5),
        }
    }
}

/// Where the graph was drawn last frame and what it mapped: screen ⇄
/// (frame, value). Frames grow to the right, values upwards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GraphLayout {
    pub rect: Rect,
    /// First and last frame shown.
    pub frames: (f64, f64),
    /// Lowest and highest value shown.
    pub values: (f64, f64),
}

impl GraphLayout {
    pub fn to_screen(&self, p: [f64; 2]) -> Pos2 {
        let fx = (p[0] - self.frames.0) / (self.frames.1 - self.frames.0);
        let fy = (p[1] - self.values.0) / (self.values.1 - self.values.0);
        Pos2::new(
            self.rect.left() + fx as f32 * self.rect.width(),
            self.rect.bottom() - fy as f32 * self.rect.height(),
        )
    }
    pub fn from_screen(&self, p: Pos2) -> [f64; 2] {
        let fx = f64::from((p.x - self.rect.left()) / self.rect.width());
        let fy = f64::from((self.rect.bottom() - p.y) / self.rect.height());
        [
            self.frames.0 + fx * (self.frames.1 - self.frames.0),
            self.values.0 + fy * (self.values.1 - self.values.0),
        ]
    }
}

/// What is being dragged.
#[derive(Debug, Clone)]
enum Drag {
    Handle {
        value: Value,
        segment: Segment,
        which: Handle,
        merge_id: u64,
        /// The mapping frozen for the drag (the value range would follow
        /// the edit and shift under the pointer).
        layout: GraphLayout,
    },
    Key {
        value: Value,
        /// Where the drag started, (frame, value).
        start: [f64; 2],
        /// The moved keys as they were when the drag started.
        bones: Vec<(u32, crate::vmd::BoneKey)>,
        cameras: Vec<(u32, crate::vmd::CameraKey)>,
        merge_id: u64,
        layout: GraphLayout,
    },
}

/// Persistent state of the panel.
#[derive(Debug)]
pub struct State {
    /// Bone values shown (index as [`BoneValue::ALL`]).
    pub bone_values: [bool; 6],
    /// Camera values shown (index as [`CameraValue::ALL`]).
    pub camera_values: [bool; 8],
    /// Frames shown around the playhead; 0 = the whole track.
    pub window: u32,
    drag: Option<Drag>,
    /// The graph as drawn last frame (for tests and screenshots).
    pub layout: Option<GraphLayout>,
    /// The sampled curves of the last frame drawn and what they were
    /// sampled from: redrawn frames with nothing changed sample nothing.
    sampled: Option<(SeriesKey, Vec<(Value, vg::Series)>)>,
}

/// What a graph's samples depend on: the document and its revision (bumped
/// by every change), the track, the frame range and density, the values.
#[derive(Debug, Clone, PartialEq)]
struct SeriesKey {
    doc: u64,
    revision: u64,
    target: GraphTarget,
    frames: (u32, u32),
    per_frame: u32,
    values: Vec<Value>,
}

impl Default for State {
    fn default() -> Self {
        State {
            bone_values: [true; 6],
            camera_values: [true, true, true, false, false, false, false, false],
            window: 0,
            drag: None,
            layout: None,
            sampled: None,
        }
    }
}

impl State {
    fn values(&self, target: GraphTarget) -> Vec<Value> {
        match target {
            GraphTarget::Bone(_) => BoneValue::ALL
                .iter()
                .zip(self.bone_values)
                .filter(|(_, on)| *on)
                .map(|(&v, _)| Value::Bone(v))
                .collect(),
            GraphTarget::Camera(_) => CameraValue::ALL
                .iter()
                .zip(self.camera_values)
                .filter(|(_, on)| *on)
                .map(|(&v, _)| Value::Camera(v))
                .collect(),
        }
    }
}

/// The track the graph shows for the document's active key.
pub fn target_of(doc: &Document, active: Option<KeyRef>) -> Option<GraphTarget> {
    match active? {
        KeyRef::Bone(i) if (i as usize) < doc.motion.bones.len() => Some(GraphTarget::Bone(i)),
        KeyRef::Camera(i) if (i as usize) < doc.motion.cameras.len() => {
            Some(GraphTarget::Camera(i))
        }
        _ => None,
    }
}

/// Keys of the shown track, in frame order (indices into the motion).
fn track_keys(m: &Motion, idx: &TrackIndex, target: GraphTarget) -> Vec<u32> {
    match target {
        GraphTarget::Bone(i) => m
            .bones
            .get(i as usize)
            .and_then(|k| idx.bone(k.name_key()))
            .map(|t| t.keys.clone())
            .unwrap_or_default(),
        GraphTarget::Camera(_) => idx.camera.clone(),
    }
}

fn key_frame(m: &Motion, target: GraphTarget, k: u32) -> Option<u32> {
    match target {
        GraphTarget::Bone(_) => m.bones.get(k as usize).map(|k| k.frame()),
        GraphTarget::Camera(_) => m.cameras.get(k as usize).map(|k| k.frame()),
    }
}

/// The segments of the shown track for `value`.
pub fn segments(doc: &Document, target: GraphTarget, value: Value) -> Vec<Segment> {
    let m = &doc.motion;
    match (target, value) {
        (GraphTarget::Bone(i), Value::Bone(v)) => m
            .bones
            .get(i as usize)
            .and_then(|k| doc.index.bone(k.name_key()))
            .map(|t| vg::bone_segments(m, t, v))
            .unwrap_or_default(),
        (GraphTarget::Camera(_), Value::Camera(v)) => vg::camera_segments(m, &doc.index, v),
        _ => Vec::new(),
    }
}

/// (frame, value) of key `k` for `value`.
fn key_point(m: &Motion, value: Value, k: u32) -> Option<[f64; 2]> {
    match value {
        Value::Bone(v) => {
            let key = m.bones.get(k as usize)?;
            Some([f64::from(key.frame()), vg::bone_value(v, key)])
        }
        Value::Camera(v) => {
            let key = m.cameras.get(k as usize)?;
            Some([f64::from(key.frame()), vg::camera_value(v, key)])
        }
    }
}

/// The keys a handle drag shapes besides the segment's own: every selected
/// key of the same kind (any track), as the curve editor's batch mode.
fn also_keys(view_sel: &std::collections::BTreeSet<KeyRef>, target: GraphTarget) -> Vec<usize> {
    view_sel
        .iter()
        .filter_map(|k| match (target, k) {
            (GraphTarget::Bone(_), KeyRef::Bone(i))
            | (GraphTarget::Camera(_), KeyRef::Camera(i)) => Some(*i as usize),
            _ => None,
        })
        .collect()
}

/// The edit a handle drag makes: `segment`'s handle `which` of `value`
/// moved to `at` = (frame, value), written to the segment's key B and to
/// `also`. `None` when no byte changes.
pub fn handle_edit(
    doc: &Document,
    value: Value,
    segment: &Segment,
    which: Handle,
    at: [f64; 2],
    also: &[usize],
) -> Option<Edit> {
    let m = &doc.motion;
    let mut changes = KeyChanges::default();
    match value {
        Value::Bone(v) => {
            for ch in vg::bone_handle_drag(m, segment, v, which, at, also).ok()? {
                let mut k = *m.bones.get(ch.key)?;
                k.set_interpolation_block(ch.after);
                changes.bones.push((ch.key as u32, k));
            }
        }
        Value::Camera(v) => {
            for ch in vg::camera_handle_drag(m, segment, v, which, at, also).ok()? {
                let mut k = *m.cameras.get(ch.key)?;
                k.set_interpolation_block(ch.after);
                changes.cameras.push((ch.key as u32, k));
            }
        }
    }
    (!changes.is_empty()).then_some(Edit::SetKeys(changes))
}

/// The frames shown: the whole track (with a margin), or `window` frames
/// centred on the playhead.
fn frame_span(
    m: &Motion,
    target: GraphTarget,
    keys: &[u32],
    window: u32,
    playhead: f64,
) -> (f64, f64) {
    if window > 0 {
        let half = f64::from(window) / 2.0;
        let lo = (playhead - half).max(0.0);
        return (lo, lo + f64::from(window));
    }
    let frames: Vec<u32> = keys
        .iter()
        .filter_map(|&k| key_frame(m, target, k))
        .collect();
    let lo = frames.iter().copied().min().unwrap_or(0);
    let hi = frames.iter().copied().max().unwrap_or(0);
    let margin = (f64::from(hi - lo) * 0.05).max(2.0);
    ((f64::from(lo) - margin).max(0.0), f64::from(hi) + margin)
}

pub fn ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State) {
    let Some(target) = target_of(cx.doc, cx.view.active) else {
        state.layout = None;
        ui.weak(
            "Select a bone or camera key (in the dope sheet) to see its track's values over time.",
        );
        return;
    };
    ui.horizontal_wrapped(|ui| {
        match target {
            GraphTarget::Bone(i) => {
                let name = cx.doc.motion.bones[i as usize].name().text;
                ui.strong(format!("Bone {name}"));
                for (j, v) in BoneValue::ALL.iter().enumerate() {
                    ui.checkbox(&mut state.bone_values[j], v.label());
                }
            }
            GraphTarget::Camera(_) => {
                ui.strong("Camera");
                for (j, v) in CameraValue::ALL.iter().enumerate() {
                    ui.checkbox(&mut state.camera_values[j], v.label());
                }
            }
        }
        ui.label("Frames shown:");
        ui.add(
            egui::DragValue::new(&mut state.window)
                .range(0..=100_000)
                .custom_formatter(|v, _| {
                    if v == 0.0 {
                        "whole track".into()
                    } else {
                        format!("{v:.0}")
                    }
                }),
        )
        .on_hover_text("0 = the whole track; otherwise this many frames around the playhead.");
    });
    ui.weak("Drag a square handle to shape a segment's curve (the key it ends at), a dot to move a key in time and value; click to move the playhead.");
    graph(ui, cx, state, target);
}

fn graph(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State, target: GraphTarget) {
    let m = &cx.doc.motion;
    let keys = track_keys(m, &cx.doc.index, target);
    let values = state.values(target);
    let size = Vec2::new(
        ui.available_width().max(200.0),
        ui.available_height().max(160.0),
    );
    let (rect, resp) = ui.allocate_exact_size(size, Sense::click_and_drag());
    let plot = rect.shrink2(Vec2::new(44.0, 16.0));
    let frames = frame_span(m, target, &keys, state.window, cx.shared.transport.frame);
    // Samples: about two per pixel column, at most 16 per frame.
    let span = (frames.1 - frames.0).max(1.0);
    let per_frame = ((f64::from(plot.width()) / span).ceil() as u32).clamp(1, 16);
    let (lo, hi) = (frames.0.floor().max(0.0) as u32, frames.1.ceil() as u32);
    let key = SeriesKey {
        doc: cx.doc.id,
        revision: cx.doc.revision,
        target,
        frames: (lo, hi),
        per_frame,
        values: values.clone(),
    };
    let series = match state.sampled.take() {
        Some((k, s)) if k == key => s,
        _ => sample(cx, target, &values, (lo, hi), per_frame),
    };
    // Euler angles: each segment and key is moved by whole turns onto the
    // plotted (unwrapped) line; whole turns change no curve byte, since
    // the bytes are fractions of the segment.
    let near = |v: Value, frame: f64| -> Option<f64> {
        let s = &series.iter().find(|(x, _)| *x == v)?.1;
        let i = ((frame - f64::from(lo)) * f64::from(per_frame)).round();
        (i >= 0.0)
            .then(|| s.get(i as usize).map(|p| p[1]))
            .flatten()
    };
    let turns = |v: Value, frame: f64, value: f64| -> f64 {
        if !v.is_angle() {
            return 0.0;
        }
        near(v, frame).map_or(0.0, |n| 360.0 * ((n - value) / 360.0).round())
    };
    let segs: Vec<(Value, Vec<Segment>)> = values
        .iter()
        .map(|&v| {
            let mut ss = segments(cx.doc, target, v);
            for s in &mut ss {
                let t = turns(v, s.from[0], s.from[1]);
                if t != 0.0 {
                    s.from[1] += t;
                    s.to[1] += t;
                    s.handles[0][1] += t;
                    s.handles[1][1] += t;
                }
            }
            (v, ss)
        })
        .collect();
    let layout = match &state.drag {
        Some(Drag::Handle { layout, .. } | Drag::Key { layout, .. }) => *layout,
        None => {
            let mut vlo = f64::INFINITY;
            let mut vhi = f64::NEG_INFINITY;
            let mut grow = |y: f64| {
                if y.is_finite() {
                    vlo = vlo.min(y);
                    vhi = vhi.max(y);
                }
            };
            for (_, s) in &series {
                s.iter().for_each(|p| grow(p[1]));
            }
            for (_, ss) in &segs {
                for s in ss
                    .iter()
                    .filter(|s| s.to[0] >= frames.0 && s.from[0] <= frames.1)
                {
                    s.handles.iter().for_each(|h| grow(h[1]));
                }
            }
            if !vlo.is_finite() {
                (vlo, vhi) = (-1.0, 1.0);
            }
            let pad = ((vhi - vlo) * 0.08).max(0.5);
            GraphLayout {
                rect: plot,
                frames: (frames.0, frames.1.max(frames.0 + 1.0)),
                values: (vlo - pad, vhi + pad),
            }
        }
    };
    let layout = GraphLayout {
        rect: plot,
        ..layout
    };
    state.layout = Some(layout);

    // ---- drawing
    let visuals = ui.visuals().clone();
    let painter = ui.painter_at(rect);
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
    // The edited segment (the active key's): shaded.
    let active_seg = active_segment(m, target, &keys);
    if let Some((a, b)) = active_seg {
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
    for (v, s) in &series {
        let pts: Vec<Pos2> = s
            .iter()
            .filter(|p| p[1].is_finite())
            .map(|&p| layout.to_screen(p))
            .collect();
        clip.add(egui::Shape::line(pts, Stroke::new(1.6, v.color())));
    }
    let mut picks: Vec<(Pos2, Pick)> = Vec::new();
    for (v, ss) in &segs {
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
    let selected: Vec<u32> = keys
        .iter()
        .copied()
        .filter(|&k| cx.view.selection.contains(&key_ref(target, k)))
        .collect();
    for v in &values {
        for &k in &keys {
            let Some(mut p) = key_point(m, *v, k) else {
                continue;
            };
            p[1] += turns(*v, p[0], p[1]);
            if p[0] < layout.frames.0 || p[0] > layout.frames.1 {
                continue;
            }
            let s = layout.to_screen(p);
            let sel = selected.contains(&k) || Some(key_ref(target, k)) == cx.view.active;
            clip.circle_filled(s, if sel { 5.0 } else { 4.0 }, v.color());
            if sel {
                clip.circle_stroke(s, 6.5, Stroke::new(1.5, visuals.strong_text_color()));
            }
            picks.push((s, Pick::Key(*v, k)));
        }
    }
    // The playhead.
    let ph = cx.shared.transport.frame;
    if (layout.frames.0..=layout.frames.1).contains(&ph) {
        let x = layout.to_screen([ph, 0.0]).x;
        painter.line_segment(
            [Pos2::new(x, plot.top()), Pos2::new(x, plot.bottom())],
            Stroke::new(1.5, Color32::from_rgb(230, 80, 60)),
        );
    }

    // ---- input
    let pointer = ui.input(|i| i.pointer.interact_pos());
    if resp.drag_started()
        && let Some(origin) = ui.input(|i| i.pointer.press_origin())
    {
        // Handles first (they sit over the line), the nearest within reach.
        let hit = picks
            .iter()
            .filter(|(p, _)| p.distance(origin) <= PICK)
            .min_by(|a, b| {
                let pri = |k: &Pick| matches!(k, Pick::Key(..)) as u8;
                (pri(&a.1), a.0.distance(origin))
                    .partial_cmp(&(pri(&b.1), b.0.distance(origin)))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        state.drag = match hit.map(|h| h.1) {
            Some(Pick::Handle(value, segment, which)) => Some(Drag::Handle {
                value,
                segment,
                which,
                merge_id: crate::workspace::merge_id(),
                layout,
            }),
            Some(Pick::Key(value, k)) => {
                let moved: Vec<u32> = if selected.contains(&k) {
                    selected.clone()
                } else {
                    vec![k]
                };
                let start = key_point(m, value, k)
                    .map(|mut p| {
                        p[1] += turns(value, p[0], p[1]);
                        p
                    })
                    .unwrap_or(layout.from_screen(origin));
                let (mut bones, mut cameras) = (Vec::new(), Vec::new());
                for i in moved {
                    match target {
                        GraphTarget::Bone(_) => {
                            bones.extend(m.bones.get(i as usize).map(|k| (i, *k)))
                        }
                        GraphTarget::Camera(_) => {
                            cameras.extend(m.cameras.get(i as usize).map(|k| (i, *k)))
                        }
                    }
                }
                Some(Drag::Key {
                    value,
                    start,
                    bones,
                    cameras,
                    merge_id: crate::workspace::merge_id(),
                    layout,
                })
            }
            None => None,
        };
    }
    if resp.dragged()
        && let Some(p) = pointer
        && let Some(drag) = &state.drag
    {
        match drag {
            Drag::Handle {
                value,
                segment,
                which,
                merge_id,
                layout,
            } => {
                let at = layout.from_screen(p);
                let also = also_keys(&cx.view.selection, target);
                if let Some(edit) = handle_edit(cx.doc, *value, segment, *which, at, &also) {
                    let label = format!("Curve {} (value graph)", value.label());
                    cx.push(EditRequest::merge(edit, label, *merge_id));
                }
            }
            Drag::Key {
                value,
                start,
                bones,
                cameras,
                merge_id,
                layout,
            } => {
                let now = layout.from_screen(p);
                let df = (now[0] - start[0]).round();
                let dv = now[1] - start[1];
                let mut changes = KeyChanges::default();
                for (i, k) in bones {
                    if let Value::Bone(v) = value {
                        let mut n = bone_key_with_value(k, *v, vg::bone_value(*v, k) + dv);
                        n.set_frame(shift(k.frame(), df));
                        changes.bones.push((*i, n));
                    }
                }
                for (i, k) in cameras {
                    if let Value::Camera(v) = value {
                        let mut n = camera_key_with_value(k, *v, vg::camera_value(*v, k) + dv);
                        n.set_frame(shift(k.frame(), df));
                        changes.cameras.push((*i, n));
                    }
                }
                // Only what differs from the document now.
                changes
                    .bones
                    .retain(|(i, k)| cx.doc.motion.bones.get(*i as usize) != Some(k));
                changes
                    .cameras
                    .retain(|(i, k)| cx.doc.motion.cameras.get(*i as usize) != Some(k));
                if !changes.is_empty() {
                    let n = changes.bones.len() + changes.cameras.len();
                    let label = format!(
                        "Move {n} key{} (value graph)",
                        if n == 1 { "" } else { "s" }
                    );
                    cx.push(EditRequest::merge(Edit::SetKeys(changes), label, *merge_id));
                }
            }
        }
    }
    if resp.drag_stopped() && state.drag.take().is_some() {
        cx.push(EditRequest::EndMerge);
    }
    if resp.clicked()
        && let Some(p) = pointer
    {
        let hit = picks
            .iter()
            .filter(|(q, _)| q.distance(p) <= PICK)
            .min_by(|a, b| {
                a.0.distance(p)
                    .partial_cmp(&b.0.distance(p))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        match hit.map(|h| h.1) {
            Some(Pick::Key(_, k)) => {
                let r = key_ref(target, k);
                if !ui.input(|i| i.modifiers.shift || i.modifiers.command) {
                    cx.view.selection.clear();
                }
                cx.view.selection.insert(r);
                cx.view.active = Some(r);
            }
            Some(Pick::Handle(..)) => {}
            None => {
                let f = layout.from_screen(p)[0].round().max(0.0);
                cx.shared.transport.frame = f;
            }
        }
    }
    state.sampled = Some((key, series));
}

#[derive(Debug, Clone, Copy)]
enum Pick {
    Handle(Value, Segment, Handle),
    Key(Value, u32),
}

fn key_ref(target: GraphTarget, k: u32) -> KeyRef {
    match target {
        GraphTarget::Bone(_) => KeyRef::Bone(k),
        GraphTarget::Camera(_) => KeyRef::Camera(k),
    }
}

/// `frame` moved by `df` whole frames, kept in 0..=u32::MAX.
fn shift(frame: u32, df: f64) -> u32 {
    (f64::from(frame) + df).clamp(0.0, f64::from(u32::MAX)) as u32
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

/// The track's `values` sampled over `frames`, `per_frame` samples a frame.
fn sample(
    cx: &PanelCtx,
    target: GraphTarget,
    values: &[Value],
    (lo, hi): (u32, u32),
    per_frame: u32,
) -> Vec<(Value, vg::Series)> {
    let m = &cx.doc.motion;
    values
        .iter()
        .map(|&v| {
            let s = match (target, v) {
                (GraphTarget::Bone(i), Value::Bone(bv)) => m
                    .bones
                    .get(i as usize)
                    .and_then(|k| cx.doc.index.bone(k.name_key()))
                    .map(|t| vg::bone_series(m, t, bv, lo, hi, per_frame))
                    .unwrap_or_default(),
                (GraphTarget::Camera(_), Value::Camera(cv)) => {
                    vg::camera_series(m, &cx.doc.index, cv, lo, hi, per_frame)
                }
                _ => Vec::new(),
            };
            (v, s)
        })
        .collect()
}
