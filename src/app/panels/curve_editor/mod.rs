//! The curve editor: the interpolation curves of the active bone key (X, Y,
//! Z move, rotation) or camera key (target X, Y, Z, rotation, distance,
//! field of view), each in its 0..=127 box.
//!
//! * The curve of key B governs the segment A → B that ends at B; the panel
//!   names that segment.
//! * Control points drag in integer steps, clamped to the box; numeric
//!   fields, Linear, presets (with their quantisation error), copy/paste.
//! * "Link X/Y/Z" writes one edit to all three move (target) channels;
//!   "Apply to selected keys" writes it to every selected key of the same
//!   kind. Either way an edit is one undo step, and a drag is one step.
//! * Every edit goes through the core's curve setters
//!   ([`crate::vmd::curve_edit::plan_bone_curve`]): only interpolation bytes
//!   change, never a bone block's bytes 2–3 (the physics flag).
//! * Under the boxes, graphs of the actual channel values over time around
//!   the segment, updating live while dragging, with a ghost of the curves
//!   from before the drag.

use egui::{Color32, Rect, Vec2};

use super::PanelCtx;
use crate::vmd::evaluate;
use crate::vmd::{BoneChannel, CameraChannel, Curve};
use crate::workspace::document::{Document, KeyRef};

mod curve_box;
mod edits;
mod graph;
mod presets;

pub use curve_box::control_point_pos;
pub use edits::curve_edit_for;

/// Side of a curve box in points: it scales with the space, between these.
const BOX_MIN: f32 = 90.0;
const BOX_MAX: f32 = 220.0;
/// Narrowest channel column (box, fields, buttons) in points.
const COLUMN_MIN: f32 = 150.0;
/// Room under a box for its numeric fields and buttons, points.
const BELOW_BOX: f32 = 120.0;

/// How rotation is shown in the value graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RotationPlot {
    /// Angle (degrees) turned away from the previous key's pose: over the
    /// segment A → B it rises from 0 to the full turn following the curve.
    #[default]
    AngleFromA,
    /// Euler angles X, Y, Z in degrees (MMD's bone panel convention).
    Euler,
}

/// Persistent UI state of this panel.
#[derive(Debug)]
pub struct State {
    /// Edit X, Y and Z move (camera: target X, Y, Z) together.
    pub link_xyz: bool,
    /// Write each edit to every selected key of the same kind too.
    pub apply_to_selection: bool,
    /// Draw the curves from before a drag while dragging.
    pub show_ghost: bool,
    pub rotation_plot: RotationPlot,
    drag: Option<curve_box::Drag>,
    /// An open merged step from dragging a numeric field.
    field_merge: Option<u64>,
    /// Screen rectangles of the curve boxes drawn last frame, by channel
    /// index (0..4 bone, 0..6 camera). For tests and screenshots.
    pub boxes: Vec<Rect>,
    /// Side of the curve boxes this frame (scaled to the space).
    box_side: f32,
}

impl Default for State {
    fn default() -> Self {
        State {
            link_xyz: false,
            apply_to_selection: true,
            show_ghost: true,
            rotation_plot: RotationPlot::default(),
            drag: None,
            field_merge: None,
            boxes: Vec::new(),
            box_side: 150.0,
        }
    }
}

impl State {
    fn new_merge_id(&mut self) -> u64 {
        crate::workspace::merge_id()
    }
}

/// Which kind of key the editor shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Bone(u32),
    Camera(u32),
}

impl Target {
    fn label(self, c: usize) -> &'static str {
        match self {
            Target::Bone(_) => BoneChannel::ALL[c].label(),
            Target::Camera(_) => CameraChannel::ALL[c].label(),
        }
    }
    fn curves(self, doc: &Document) -> Option<Vec<Curve>> {
        match self {
            Target::Bone(i) => doc
                .motion
                .bones
                .get(i as usize)
                .map(|k| k.curves().to_vec()),
            Target::Camera(i) => doc
                .motion
                .cameras
                .get(i as usize)
                .map(|k| k.curves().to_vec()),
        }
    }
}

/// Colour of channel `c` (X red, Y green, Z blue, rotation gold, distance
/// violet, field of view teal).
pub fn channel_color(c: usize) -> Color32 {
    match c {
        0 => Color32::from_rgb(230, 95, 95),
        1 => Color32::from_rgb(100, 200, 100),
        2 => Color32::from_rgb(95, 145, 240),
        3 => Color32::from_rgb(230, 190, 60),
        4 => Color32::from_rgb(190, 120, 230),
        _ => Color32::from_rgb(70, 200, 200),
    }
}

/// The segment the active key's curve governs: (A frame, B frame), A being
/// the previous key of the same track, if any.
fn segment(doc: &Document, target: Target) -> (Option<u32>, u32, Vec<u32>) {
    let m = &doc.motion;
    match target {
        Target::Bone(i) => {
            let Some(k) = m.bones.get(i as usize) else {
                return (None, 0, Vec::new());
            };
            let keys = doc
                .index
                .bone(k.name_key())
                .map(|t| t.keys.clone())
                .unwrap_or_default();
            let pos = keys.iter().position(|&x| x == i);
            let prev = pos
                .and_then(|p| p.checked_sub(1))
                .map(|p| m.bones[keys[p] as usize].frame());
            (prev, k.frame(), keys)
        }
        Target::Camera(i) => {
            let Some(k) = m.cameras.get(i as usize) else {
                return (None, 0, Vec::new());
            };
            let keys = doc.index.camera.clone();
            let pos = keys.iter().position(|&x| x == i);
            let prev = pos
                .and_then(|p| p.checked_sub(1))
                .map(|p| m.cameras[keys[p] as usize].frame());
            (prev, k.frame(), keys)
        }
    }
}

pub fn ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State) {
    let target = match cx.view.active {
        Some(KeyRef::Bone(i)) if (i as usize) < cx.doc.motion.bones.len() => Target::Bone(i),
        Some(KeyRef::Camera(i)) if (i as usize) < cx.doc.motion.cameras.len() => Target::Camera(i),
        _ => {
            state.boxes.clear();
            ui.weak("Select a bone or camera key (in the dope sheet) to edit its curves.");
            return;
        }
    };
    let Some(curves) = target.curves(cx.doc) else {
        return;
    };
    // Lay the channels out so all of one key's boxes show at once where
    // they can: as many columns as fit (all four bone channels side by
    // side at 1280 wide), boxes as big as the width and height allow.
    let n = curves.len().max(1);
    let (w, h) = (ui.available_width(), ui.available_height());
    let gap = 12.0;
    let cols = (1..=n)
        .rev()
        .find(|&c| (w - gap * (c as f32 - 1.0)) / c as f32 >= COLUMN_MIN)
        .unwrap_or(1);
    let col_w = ((w - gap * (cols as f32 - 1.0)) / cols as f32).max(COLUMN_MIN);
    let rows = n.div_ceil(cols) as f32;
    // Header and options take about 90 points above the boxes.
    let by_height = (h - 90.0) / rows - BELOW_BOX;
    state.box_side = (col_w - 10.0).min(by_height).clamp(BOX_MIN, BOX_MAX);
    egui::ScrollArea::vertical()
        .id_salt("curve-editor-scroll")
        .show(ui, |ui| {
            header(ui, cx, target);
            options(ui, cx, state, target);
            ui.add_space(4.0);
            state.boxes.clear();
            // A grid: as many columns as fit, the rest on the next rows.
            egui::Grid::new("curve-editor-boxes")
                .num_columns(cols)
                .spacing(Vec2::new(gap, 10.0))
                .show(ui, |ui| {
                    for (c, &curve) in curves.iter().enumerate() {
                        ui.vertical(|ui| {
                            ui.set_width(col_w - 1.0);
                            curve_box::channel_box(ui, cx, state, target, c, curve);
                        });
                        if (c + 1) % cols == 0 {
                            ui.end_row();
                        }
                    }
                });
            ui.separator();
            graph::value_graphs(ui, cx, state, target);
        });
}

fn header(ui: &mut egui::Ui, cx: &PanelCtx, target: Target) {
    let (prev, b, _) = segment(cx.doc, target);
    let who = match target {
        Target::Bone(i) => format!("Bone {}", cx.doc.motion.bones[i as usize].name().text),
        Target::Camera(_) => "Camera".to_string(),
    };
    ui.horizontal(|ui| {
        ui.heading(format!("{who} · key at frame {b}"));
    });
    match prev {
        Some(a) if matches!(target, Target::Camera(_)) && evaluate::is_cut(a, b) => {
            ui.label(format!(
                "Segment frames {a} → {b} is a cut (one frame apart): the camera jumps, these curves are not used."
            ));
        }
        Some(a) => {
            ui.label(format!(
                "These curves shape the segment frames {a} → {b}: how the motion arrives at this key."
            ));
        }
        None => {
            ui.label(format!(
                "Frame {b} is the first key of its track: nothing comes before it, so its curves are not used."
            ));
        }
    }
}

fn options(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State, target: Target) {
    let same_kind = cx
        .view
        .selection
        .iter()
        .filter(|k| {
            matches!(
                (target, k),
                (Target::Bone(_), KeyRef::Bone(_)) | (Target::Camera(_), KeyRef::Camera(_))
            )
        })
        .count();
    ui.horizontal_wrapped(|ui| {
        let link_label = match target {
            Target::Bone(_) => "Link X/Y/Z",
            Target::Camera(_) => "Link target X/Y/Z",
        };
        ui.checkbox(&mut state.link_xyz, link_label)
            .on_hover_text("An edit of one move channel is written to all three.");
        ui.checkbox(
            &mut state.apply_to_selection,
            format!("Apply to selected keys ({same_kind})"),
        )
        .on_hover_text(
            "Write each edit to every selected key of the same kind (any track), as one undo step.",
        );
        ui.checkbox(&mut state.show_ghost, "Ghost while dragging");
        let others = edits::edit_targets(cx, target, true).len();
        if ui
            .add_enabled(
                others > 1,
                egui::Button::new(format!("Copy all curves to {} selected", others - 1)),
            )
            .on_hover_text(
                "Give every selected key of this kind all of this key's curves (one undo step).",
            )
            .clicked()
        {
            edits::copy_all_to_selection(cx, target);
        }
    });
}
