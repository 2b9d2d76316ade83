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

use egui::{Color32, Pos2, Rect, Sense, Vec2};

use super::PanelCtx;
use super::curve_editor::channel_color;
use crate::scene::value_graph::{self as vg, BoneValue, CameraValue, Handle, Segment};
use crate::vmd::{Motion, TrackIndex};
use crate::workspace::document::{Document, Edit, KeyChanges, KeyRef};

mod draw;
mod input;

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
    let unwrap = Unwrap {
        series: &series,
        lo,
        per_frame,
    };
    let segs: Vec<(Value, Vec<Segment>)> = values
        .iter()
        .map(|&v| {
            let mut ss = segments(cx.doc, target, v);
            for s in &mut ss {
                let t = unwrap.turns(v, s.from[0], s.from[1]);
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
    let layout = value_layout(state.drag.as_ref(), plot, frames, &series, &segs);
    state.layout = Some(layout);

    let selected: Vec<u32> = keys
        .iter()
        .copied()
        .filter(|&k| cx.view.selection.contains(&key_ref(target, k)))
        .collect();
    let picks = draw::picture(
        ui,
        rect,
        &draw::Picture {
            motion: m,
            target,
            keys: &keys,
            values: &values,
            series: &series,
            segs: &segs,
            layout,
            selected: &selected,
            active: cx.view.active,
            playhead: cx.shared.transport.frame,
            unwrap: &unwrap,
        },
    );
    let grab = input::Grab {
        target,
        layout,
        picks: &picks,
        selected: &selected,
        unwrap: &unwrap,
    };
    input::pointer(ui, &resp, cx, state, &grab);
    state.sampled = Some((key, series));
}

/// The graph's mapping: the frozen one while dragging, else the frames
/// shown and the values of the curves and of the handles in view.
fn value_layout(
    drag: Option<&Drag>,
    plot: Rect,
    frames: (f64, f64),
    series: &[(Value, vg::Series)],
    segs: &[(Value, Vec<Segment>)],
) -> GraphLayout {
    let layout = match drag {
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
            for (_, s) in series {
                s.iter().for_each(|p| grow(p[1]));
            }
            for (_, ss) in segs {
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
    GraphLayout {
        rect: plot,
        ..layout
    }
}

/// Euler angles: each segment and key is moved by whole turns onto the
/// plotted (unwrapped) line; whole turns change no curve byte, since the
/// bytes are fractions of the segment.
struct Unwrap<'a> {
    series: &'a [(Value, vg::Series)],
    /// First frame sampled.
    lo: u32,
    per_frame: u32,
}

impl Unwrap<'_> {
    /// The plotted value of `v` nearest `frame`.
    fn near(&self, v: Value, frame: f64) -> Option<f64> {
        let s = &self.series.iter().find(|(x, _)| *x == v)?.1;
        let i = ((frame - f64::from(self.lo)) * f64::from(self.per_frame)).round();
        (i >= 0.0)
            .then(|| s.get(i as usize).map(|p| p[1]))
            .flatten()
    }

    /// Whole turns (degrees) that move `value` of `v` at `frame` onto the
    /// plotted line (0 for a value that is not an angle).
    fn turns(&self, v: Value, frame: f64, value: f64) -> f64 {
        if !v.is_angle() {
            return 0.0;
        }
        self.near(v, frame)
            .map_or(0.0, |n| 360.0 * ((n - value) / 360.0).round())
    }
}

/// What the pointer can grab: a segment's handle or a key.
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
