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

use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};
use egui_plot::{Legend, Line, LineStyle, Plot, Points, VLine};

use super::PanelCtx;
use crate::app::document::{Document, Edit, EditRequest, KeyChanges, KeyRef};
use crate::vmd::curve_edit::{self, plan_bone_curve, plan_camera_curve, presets};
use crate::vmd::evaluate::{self, camera_at};
use crate::vmd::{BoneChannel, CameraChannel, Curve};

/// Side of a curve box in points: it scales with the space, between these.
const BOX_MIN: f32 = 90.0;
const BOX_MAX: f32 = 220.0;
/// Narrowest channel column (box, fields, buttons) in points.
const COLUMN_MIN: f32 = 150.0;
/// Room under a box for its numeric fields and buttons, points.
const BELOW_BOX: f32 = 120.0;
/// Pick radius of a control point in points.
const HANDLE_RADIUS: f32 = 7.0;

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

/// An ongoing drag of a control point.
#[derive(Debug, Clone)]
struct Drag {
    /// Channel index of the box being dragged.
    channel: usize,
    /// 1 or 2: which control point.
    point: u8,
    merge_id: u64,
    /// The active key's curves when the drag started (the ghost).
    ghost: Vec<Curve>,
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
    drag: Option<Drag>,
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

/// The keys an edit of the active key goes to: the active one, plus every
/// selected key of the same kind when "apply to selected keys" is on.
fn edit_targets(cx: &PanelCtx, target: Target, to_selection: bool) -> Vec<usize> {
    let mut keys = vec![match target {
        Target::Bone(i) | Target::Camera(i) => i as usize,
    }];
    if to_selection {
        for k in &cx.view.selection {
            match (target, k) {
                (Target::Bone(_), KeyRef::Bone(i)) | (Target::Camera(_), KeyRef::Camera(i)) => {
                    keys.push(*i as usize)
                }
                _ => {}
            }
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The channels an edit of channel `c` goes to.
fn edit_channels(c: usize, link_xyz: bool) -> Vec<usize> {
    if link_xyz && c < 3 {
        vec![0, 1, 2]
    } else {
        vec![c]
    }
}

/// The edit that sets `curve` on `channels` of `keys`, holding only the keys
/// whose bytes change; `None` when nothing would change.
pub fn curve_edit_for(
    doc: &Document,
    camera: bool,
    keys: &[usize],
    channels: &[usize],
    curve: Curve,
) -> Option<Edit> {
    let mut changes = KeyChanges::default();
    if camera {
        let chans: Vec<CameraChannel> = channels
            .iter()
            .filter_map(|&c| CameraChannel::ALL.get(c).copied())
            .collect();
        let plan = plan_camera_curve(&doc.motion, keys, &chans, curve).ok()?;
        for ch in plan.into_iter().filter(|c| !c.is_noop()) {
            let mut k = doc.motion.cameras[ch.key];
            k.set_interpolation_block(ch.after);
            changes.cameras.push((ch.key as u32, k));
        }
    } else {
        let chans: Vec<BoneChannel> = channels
            .iter()
            .filter_map(|&c| BoneChannel::ALL.get(c).copied())
            .collect();
        let plan = plan_bone_curve(&doc.motion, keys, &chans, curve).ok()?;
        for ch in plan.into_iter().filter(|c| !c.is_noop()) {
            let mut k = doc.motion.bones[ch.key];
            k.set_interpolation_block(ch.after);
            changes.bones.push((ch.key as u32, k));
        }
    }
    (!changes.is_empty()).then_some(Edit::SetKeys(changes))
}

/// How a change is sent to the document.
#[derive(Debug, Clone, Copy)]
enum Send {
    /// Its own undo step.
    Step,
    /// Merged into the open step `merge_id` (a drag in progress).
    Merge(u64),
}

fn send_curve(cx: &mut PanelCtx, state: &State, target: Target, c: usize, curve: Curve, how: Send) {
    let keys = edit_targets(cx, target, state.apply_to_selection);
    let channels = edit_channels(c, state.link_xyz);
    let camera = matches!(target, Target::Camera(_));
    let Some(edit) = curve_edit_for(cx.doc, camera, &keys, &channels, curve) else {
        return;
    };
    let names: Vec<&str> = channels.iter().map(|&c| target.label(c)).collect();
    let label = format!(
        "Curve {} → {} on {} key{}",
        names.join("/"),
        curve_edit::format_curve(curve),
        keys.len(),
        if keys.len() == 1 { "" } else { "s" }
    );
    cx.push(match how {
        Send::Step => EditRequest::apply(edit, label),
        Send::Merge(id) => EditRequest::merge(edit, label, id),
    });
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
                            channel_box(ui, cx, state, target, c, curve);
                        });
                        if (c + 1) % cols == 0 {
                            ui.end_row();
                        }
                    }
                });
            ui.separator();
            value_graphs(ui, cx, state, target);
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
        let others = edit_targets(cx, target, true).len();
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
            copy_all_to_selection(cx, target);
        }
    });
}

/// Writes every channel of the active key to all selected keys of its kind.
fn copy_all_to_selection(cx: &mut PanelCtx, target: Target) {
    let Some(curves) = target.curves(cx.doc) else {
        return;
    };
    let keys = edit_targets(cx, target, true);
    let camera = matches!(target, Target::Camera(_));
    // Compose per channel on a scratch copy of the changed records.
    let mut changes = KeyChanges::default();
    let mut scratch = cx.doc.clone();
    for (c, &curve) in curves.iter().enumerate() {
        if let Some(Edit::SetKeys(k)) = curve_edit_for(&scratch, camera, &keys, &[c], curve) {
            for (i, key) in &k.bones {
                scratch.motion.bones[*i as usize] = *key;
            }
            for (i, key) in &k.cameras {
                scratch.motion.cameras[*i as usize] = *key;
            }
            changes.bones.extend(k.bones);
            changes.cameras.extend(k.cameras);
        }
    }
    // Keep the last version of each record.
    changes.bones.reverse();
    let mut seen = std::collections::HashSet::new();
    changes.bones.retain(|(i, _)| seen.insert(*i));
    changes.cameras.reverse();
    seen.clear();
    changes.cameras.retain(|(i, _)| seen.insert(*i));
    let n = changes.bones.len() + changes.cameras.len();
    if n > 0 {
        cx.push(EditRequest::apply(
            Edit::SetKeys(changes),
            format!("Copy curves to {n} keys"),
        ));
    }
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

fn channel_box(
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
        Stroke::new(2.0, color),
    ));

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
    // Wraps inside the column (at 1280 wide the four buttons do not fit
    // next to each other) instead of running into the next box.
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        if ui
            .small_button("Linear")
            .on_hover_text("Reset to MMD's default (20,20)-(107,107)")
            .clicked()
        {
            send_curve(cx, state, target, c, Curve::LINEAR, Send::Step);
        }
        ui.menu_button("Preset", |ui| {
            for p in presets() {
                let text = format!(
                    "{}  ({})  ±{:.4}",
                    p.label,
                    curve_edit::format_curve(p.curve),
                    p.quantisation_error
                );
                if ui
                    .button(text)
                    .on_hover_text(format!(
                        "{}: ideal {:.3}, {:.3}, {:.3}, {:.3}; the stored integers ease within {:.4} of it (weight units)",
                        p.source, p.ideal[0], p.ideal[1], p.ideal[2], p.ideal[3], p.quantisation_error
                    ))
                    .clicked()
                {
                    send_curve(cx, state, target, c, p.curve, Send::Step);
                    ui.close();
                }
            }
        });
        if ui
            .small_button("Copy")
            .on_hover_text("Copy this curve")
            .clicked()
        {
            cx.shared.curve_clipboard = Some(curve);
        }
        let clip = cx.shared.curve_clipboard;
        if ui
            .add_enabled(clip.is_some(), egui::Button::new("Paste").small())
            .on_hover_text(match clip {
                Some(k) => format!("Paste {}", curve_edit::format_curve(k)),
                None => "Nothing copied yet".to_string(),
            })
            .clicked()
            && let Some(k) = clip
        {
            send_curve(cx, state, target, c, k, Send::Step);
        }
    });
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

// ---------------------------------------------------------------------------
// Value graphs
// ---------------------------------------------------------------------------

/// One plotted series: name, colour, points (frame, value).
struct Series {
    name: String,
    color: Color32,
    points: Vec<[f64; 2]>,
    ghost: Option<Vec<[f64; 2]>>,
}

/// Frames to sample between `lo` and `hi` (at most ~600 samples, at least
/// every frame when the window is short).
fn sample_frames(lo: u32, hi: u32) -> Vec<f64> {
    let span = f64::from(hi.saturating_sub(lo)).max(1.0);
    let n = ((span * 4.0) as usize).clamp(2, 600);
    (0..=n)
        .map(|i| f64::from(lo) + span * i as f64 / n as f64)
        .collect()
}

/// The window shown: from the key before A (or A) to the key after B, with
/// some frames of margin when the track has no key there.
fn window(frames: &[u32], b_pos: usize) -> (u32, u32) {
    let lo = b_pos
        .checked_sub(2)
        .map(|p| frames[p])
        .or_else(|| b_pos.checked_sub(1).map(|p| frames[p]))
        .unwrap_or_else(|| frames[b_pos].saturating_sub(15));
    let hi = frames
        .get(b_pos + 1)
        .copied()
        .unwrap_or_else(|| frames[b_pos].saturating_add(15));
    (lo, hi.max(lo + 1))
}

fn quat_angle_between(a: [f32; 4], b: [f32; 4]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(y))
        .sum::<f64>();
    let la: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let lb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    if la < 1e-12 || lb < 1e-12 {
        return 0.0;
    }
    2.0 * (dot.abs() / (la * lb)).clamp(0.0, 1.0).acos().to_degrees()
}

fn value_graphs(ui: &mut egui::Ui, cx: &PanelCtx, state: &mut State, target: Target) {
    ui.horizontal(|ui| {
        ui.strong("Value over time");
        if matches!(target, Target::Bone(_)) {
            ui.selectable_value(
                &mut state.rotation_plot,
                RotationPlot::AngleFromA,
                "Rotation: angle from previous key",
            );
            ui.selectable_value(
                &mut state.rotation_plot,
                RotationPlot::Euler,
                "Rotation: Euler",
            );
        }
    });
    let ghost: Option<Vec<Curve>> = state
        .drag
        .as_ref()
        .filter(|_| state.show_ghost)
        .map(|d| d.ghost.clone());
    let (groups, keys, segment) = match target {
        Target::Bone(i) => bone_series(cx, i, state.rotation_plot, ghost.as_deref()),
        Target::Camera(i) => camera_series(cx, i, ghost.as_deref()),
    };
    let seg = segment;
    for (title, unit, series) in groups {
        // A group whose values never change in the window gets one line.
        let flat = series.iter().all(|s| {
            s.points
                .first()
                .is_none_or(|p0| s.points.iter().all(|p| (p[1] - p0[1]).abs() < 1e-6))
        });
        if flat {
            let v = series
                .first()
                .and_then(|s| s.points.first())
                .map_or(0.0, |p| p[1]);
            ui.weak(format!("{title}: constant ({v:.3} {unit}) around this key"));
            continue;
        }
        ui.label(format!("{title} ({unit})"));
        let link = egui::Id::unique("vmd-studio-curve-editor-plots");
        // The playhead, drawn only inside the plotted span (a VLine widens the bounds).
        let (lo, hi) = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p[0]))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                (l.min(x), h.max(x))
            });
        let playhead = Some(cx.shared.transport.frame).filter(|f| (lo..=hi).contains(f));
        Plot::new(("curve-editor-plot", title))
            .height(150.0)
            .legend(Legend::default().background_alpha(0.6))
            .link_axis(link, [true, false])
            .link_cursor(link, [true, false])
            .x_axis_label("frame")
            .show(ui, |pu| {
                // Unnamed items stay out of the legend.
                if let Some(f) = playhead {
                    pu.vline(VLine::new("", f).color(Color32::from_rgb(230, 80, 60)));
                }
                if let Some((a, b)) = seg {
                    pu.vline(
                        VLine::new("", a)
                            .color(Color32::GRAY)
                            .style(LineStyle::dashed_dense()),
                    );
                    pu.vline(VLine::new("", b).color(Color32::LIGHT_GRAY));
                }
                for s in series {
                    if let Some(g) = s.ghost {
                        pu.line(
                            Line::new("before drag", g)
                                .color(s.color.gamma_multiply(0.5))
                                .style(LineStyle::dashed_loose())
                                .allow_band(false),
                        );
                    }
                    let marks: Vec<[f64; 2]> = keys
                        .iter()
                        .filter_map(|&f| {
                            s.points
                                .iter()
                                .find(|p| (p[0] - f64::from(f)).abs() < 1e-9)
                                .copied()
                        })
                        .collect();
                    pu.line(
                        Line::new(s.name.clone(), s.points)
                            .color(s.color)
                            .width(1.8)
                            .allow_band(false),
                    );
                    // Same name as the line: one legend entry for both.
                    pu.points(Points::new(s.name, marks).color(s.color).radius(3.0));
                }
            });
    }
    if let Some((a, b)) = seg {
        ui.weak(format!(
            "Dashed line: frame {a} (A); solid: frame {b} (this key). Dots mark keys."
        ));
    }
}

type Groups = Vec<(&'static str, &'static str, Vec<Series>)>;

/// Sample frames including every key frame inside the window exactly.
fn frames_with_keys(lo: u32, hi: u32, keys: &[u32]) -> Vec<f64> {
    let mut f = sample_frames(lo, hi);
    f.extend(
        keys.iter()
            .filter(|&&k| k >= lo && k <= hi)
            .map(|&k| f64::from(k)),
    );
    f.sort_by(f64::total_cmp);
    f.dedup();
    f
}

fn bone_series(
    cx: &PanelCtx,
    i: u32,
    mode: RotationPlot,
    ghost: Option<&[Curve]>,
) -> (Groups, Vec<u32>, Option<(f64, f64)>) {
    let m = &cx.doc.motion;
    let Some(key) = m.bones.get(i as usize) else {
        return (Vec::new(), Vec::new(), None);
    };
    let Some(track) = cx.doc.index.bone(key.name_key()) else {
        return (Vec::new(), Vec::new(), None);
    };
    let frames: Vec<u32> = track
        .keys
        .iter()
        .map(|&k| m.bones[k as usize].frame())
        .collect();
    let Some(pos) = track.keys.iter().position(|&k| k == i) else {
        return (Vec::new(), Vec::new(), None);
    };
    let (lo, hi) = window(&frames, pos);
    let prev = pos.checked_sub(1).map(|p| &m.bones[track.keys[p] as usize]);
    let seg = prev.map(|a| (f64::from(a.frame()), f64::from(key.frame())));
    let samples = frames_with_keys(lo, hi, &frames);
    // The values the poses use: the document's evaluation cache.
    let Some(ti) = cx
        .doc
        .index
        .bones
        .iter()
        .position(|t| std::ptr::eq(t, track))
    else {
        return (Vec::new(), Vec::new(), None);
    };
    let poses: Vec<_> = samples
        .iter()
        .map(|&f| (f, cx.doc.cache.bone_at(ti, f)))
        .collect();
    // The pose the rotation angle is measured from: key A (or B itself).
    let q_ref = prev.map_or(key.rotation(), |a| a.rotation());

    // Ghost: the segment A → B evaluated with the curves from before the drag.
    let ghost_pose = |f: f64| -> Option<([f32; 3], [f32; 4])> {
        let (a, g) = (prev?, ghost?);
        let (fa, fb) = (f64::from(a.frame()), f64::from(key.frame()));
        if f < fa || f > fb || fb <= fa {
            return None;
        }
        let t = (f - fa) / (fb - fa);
        let (pa, pb) = (a.position(), key.position());
        let p = std::array::from_fn(|ax| {
            let w = g.get(ax).map_or(t, |c| c.weight(t));
            (f64::from(pa[ax]) + (f64::from(pb[ax]) - f64::from(pa[ax])) * w) as f32
        });
        let wr = g.get(3).map_or(t, |c| c.weight(t));
        Some((p, evaluate::slerp(a.rotation(), key.rotation(), wr)))
    };
    let ghost_line = |value: &dyn Fn([f32; 3], [f32; 4]) -> f64| -> Option<Vec<[f64; 2]>> {
        ghost?;
        let v: Vec<[f64; 2]> = samples
            .iter()
            .filter_map(|&f| ghost_pose(f).map(|(p, q)| [f, value(p, q)]))
            .collect();
        (!v.is_empty()).then_some(v)
    };

    let mut position = Vec::new();
    for (ax, name) in ["X", "Y", "Z"].iter().enumerate() {
        position.push(Series {
            name: format!("{name} move"),
            color: channel_color(ax),
            points: poses
                .iter()
                .map(|(f, p)| [*f, f64::from(p.position[ax])])
                .collect(),
            ghost: ghost_line(&|p, _| f64::from(p[ax])),
        });
    }
    let mut rotation = Vec::new();
    match mode {
        RotationPlot::AngleFromA => rotation.push(Series {
            name: "angle from A".into(),
            color: channel_color(3),
            points: poses
                .iter()
                .map(|(f, p)| [*f, quat_angle_between(q_ref, p.rotation)])
                .collect(),
            ghost: ghost_line(&|_, q| quat_angle_between(q_ref, q)),
        }),
        RotationPlot::Euler => {
            let euler_colors = [channel_color(0), channel_color(1), channel_color(2)];
            for (ax, name) in ["X", "Y", "Z"].iter().enumerate() {
                rotation.push(Series {
                    name: format!("rotation {name}"),
                    color: euler_colors[ax],
                    points: poses
                        .iter()
                        .map(|(f, p)| {
                            [*f, f64::from(evaluate::euler_deg_from_quat(p.rotation)[ax])]
                        })
                        .collect(),
                    ghost: ghost_line(&|_, q| f64::from(evaluate::euler_deg_from_quat(q)[ax])),
                });
            }
        }
    }
    let keys_in = frames.into_iter().filter(|&f| f >= lo && f <= hi).collect();
    (
        vec![
            ("Position", "MMD units", position),
            ("Rotation", "degrees", rotation),
        ],
        keys_in,
        seg,
    )
}

fn camera_series(
    cx: &PanelCtx,
    i: u32,
    ghost: Option<&[Curve]>,
) -> (Groups, Vec<u32>, Option<(f64, f64)>) {
    let m = &cx.doc.motion;
    let idx = &cx.doc.index;
    let Some(key) = m.cameras.get(i as usize) else {
        return (Vec::new(), Vec::new(), None);
    };
    let frames: Vec<u32> = idx
        .camera
        .iter()
        .map(|&k| m.cameras[k as usize].frame())
        .collect();
    let Some(pos) = idx.camera.iter().position(|&k| k == i) else {
        return (Vec::new(), Vec::new(), None);
    };
    let (lo, hi) = window(&frames, pos);
    let prev = pos
        .checked_sub(1)
        .map(|p| &m.cameras[idx.camera[p] as usize]);
    let seg = prev.map(|a| (f64::from(a.frame()), f64::from(key.frame())));
    let samples = frames_with_keys(lo, hi, &frames);
    let states: Vec<_> = samples
        .iter()
        .filter_map(|&f| camera_at(m, idx, f).map(|s| (f, s)))
        .collect();
    // Ghost over A → B (not across a cut) with the curves from before the drag.
    let ghost_line = |c: usize, va: f64, vb: f64| -> Option<Vec<[f64; 2]>> {
        let (a, g) = (prev?, ghost?);
        if evaluate::is_cut(a.frame(), key.frame()) {
            return None;
        }
        let (fa, fb) = (f64::from(a.frame()), f64::from(key.frame()));
        let curve = g.get(c)?;
        let v: Vec<[f64; 2]> = samples
            .iter()
            .filter(|&&f| f >= fa && f <= fb && fb > fa)
            .map(|&f| [f, va + (vb - va) * curve.weight((f - fa) / (fb - fa))])
            .collect();
        (!v.is_empty()).then_some(v)
    };
    let (ta, tb) = prev.map_or((key.target(), key.target()), |a| (a.target(), key.target()));
    let (ra, rb) = prev.map_or((key.rotation(), key.rotation()), |a| {
        (a.rotation(), key.rotation())
    });
    let (da, db) = prev.map_or((key.distance(), key.distance()), |a| {
        (a.distance(), key.distance())
    });
    let (fa, fb) = prev.map_or((key.fov(), key.fov()), |a| (a.fov(), key.fov()));

    let target: Vec<Series> = (0..3)
        .map(|ax| Series {
            name: CameraChannel::ALL[ax].label().to_string(),
            color: channel_color(ax),
            points: states
                .iter()
                .map(|(f, s)| [*f, f64::from(s.target[ax])])
                .collect(),
            ghost: ghost_line(ax, f64::from(ta[ax]), f64::from(tb[ax])),
        })
        .collect();
    let rotation: Vec<Series> = (0..3)
        .map(|ax| Series {
            name: format!("rotation {}", ["X", "Y", "Z"][ax]),
            color: channel_color(ax),
            points: states
                .iter()
                .map(|(f, s)| [*f, f64::from(s.rotation[ax]).to_degrees()])
                .collect(),
            ghost: ghost_line(
                3,
                f64::from(ra[ax]).to_degrees(),
                f64::from(rb[ax]).to_degrees(),
            ),
        })
        .collect();
    let distance = vec![Series {
        name: "distance".into(),
        color: channel_color(4),
        points: states
            .iter()
            .map(|(f, s)| [*f, f64::from(s.distance)])
            .collect(),
        ghost: ghost_line(4, f64::from(da), f64::from(db)),
    }];
    let fov = vec![Series {
        name: "field of view".into(),
        color: channel_color(5),
        points: states.iter().map(|(f, s)| [*f, f64::from(s.fov)]).collect(),
        ghost: ghost_line(5, f64::from(fa), f64::from(fb)),
    }];
    let keys_in = frames.into_iter().filter(|&f| f >= lo && f <= hi).collect();
    (
        vec![
            ("Target", "MMD units", target),
            ("Rotation", "degrees", rotation),
            ("Distance", "MMD units", distance),
            ("Field of view", "degrees", fov),
        ],
        keys_in,
        seg,
    )
}
