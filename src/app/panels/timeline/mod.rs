//! The scene timeline: one dope sheet for the whole scene. A frame ruler
//! (with the camera's cuts) on top, then one collapsible section per
//! document: the camera (and its light), the light if it is another file,
//! then each actor's motion (bones grouped as in the dope sheet, morphs),
//! then open files outside the scene. Every section shares the zoom and the
//! time scroll; an actor's section is shifted by its offset.
//!
//! Each section is the [`dope_sheet`] of its own document, which becomes
//! the active one when pressed on (the key panel and curve editor follow
//! it). Selection spans the sections as in one sheet: a plain click or
//! rubber band replaces the selection of every section, Shift/Ctrl add to
//! it, and a band dragged across sections selects in each. Dragging a
//! selected key moves the selected keys of every section together, and
//! Delete, Copy and Paste act on every section's selection; each change
//! goes to its own document (its own undo step there), and the app undoes
//! the whole action at once.

mod commands;
mod draw;
mod edits;
mod set_lane;
mod state;

pub use commands::{reveal_bone, scene_command};
pub use set_lane::{AccessoryLane, LaneEdit};
pub use state::{ClipPart, Output, SceneClipboard, Section, State};

use egui::{Pos2, Rect, Sense};

use super::dope_sheet::{self, LABEL_WIDTH, Layout, RULER_HEIGHT, SectionEvent};
use super::{PanelCtx, Shared, Views};
use crate::app::command::UiCommand;
use crate::workspace::document::Document;
use draw::{hbar, section_header, toolbar};
use edits::section_events;

const ZOOM_MIN: f32 = 0.002;
const ZOOM_MAX: f32 = 60.0;
const SCROLLBAR: f32 = 10.0;
/// Points left of frame 0 the view may show, so frame 0's diamond is whole.
const LEFT_MARGIN_PX: f32 = 8.0;

/// Runs a key command (copy, paste, delete, insert, select, fit) on the
/// section of `cx.doc`.
pub fn command(cx: &mut PanelCtx, state: &mut State, offset: i32, c: UiCommand) {
    if c == UiCommand::FitAll {
        state.fit_pending = true;
        return;
    }
    let id = cx.doc.id;
    let mut st = state.take_sheet(id, offset);
    dope_sheet::command(cx, &mut st, c);
    state.put_sheet(id, st);
}

/// Draws the timeline. `lanes` are the set's accessories (their keys); `last_frame` is the scene's last frame
/// ([`crate::workspace::Workspace::scene_end`]). Selections change on
/// `views` (the shell hands the changed ones back to the workspace).
#[allow(clippy::too_many_arguments)]
pub fn ui(
    ui: &mut egui::Ui,
    docs: &[Document],
    views: &mut Views,
    sections: &[Section],
    lanes: &[AccessoryLane],
    active: Option<u64>,
    last_frame: u32,
    shared: &mut Shared,
    state: &mut State,
) -> Output {
    let mut out = Output::default();
    toolbar(ui, docs, views, sections, active, shared, state);

    let full = ui.available_rect_before_wrap();
    let ruler = Rect::from_min_max(
        Pos2::new(full.left() + LABEL_WIDTH, full.top()),
        Pos2::new(full.right() - SCROLLBAR, full.top() + RULER_HEIGHT),
    );
    if ruler.width() < 20.0 || full.height() < RULER_HEIGHT + 2.0 * SCROLLBAR {
        return out;
    }
    follow_sections(state, sections, ruler.width(), last_frame);
    follow_transport(ui, state, shared, full, ruler);
    state.clamp_left();
    let l = Layout {
        ruler,
        labels: Rect::from_min_max(
            Pos2::new(full.left(), ruler.bottom()),
            Pos2::new(ruler.left(), full.bottom() - SCROLLBAR),
        ),
        keys: Rect::from_min_max(
            Pos2::new(ruler.left(), ruler.bottom()),
            Pos2::new(ruler.right(), full.bottom() - SCROLLBAR),
        ),
        px_per_frame: state.px_per_frame,
        left_frame: state.left_frame,
        scroll_y: 0.0,
    };
    let cuts = scene_cuts(docs, sections, state);
    // The whole area is the timeline's (a resizable panel keeps its size).
    ui.allocate_rect(full, Sense::hover());
    dope_sheet::ruler(ui, shared, &cuts, &l, egui::Id::unique("timeline-ruler"));
    state.ruler = Some(l);
    // The song's waveform lane and beat grid, under the ruler.
    let lane_h = super::waveform::under_ruler(ui, shared, &mut state.lane_drag, &l, full.left());

    let body = Rect::from_min_max(
        Pos2::new(full.left(), ruler.bottom() + lane_h),
        Pos2::new(full.right(), full.bottom() - SCROLLBAR),
    );
    sections_ui(
        ui, docs, views, sections, lanes, active, shared, state, body, &mut out,
    );
    rubber_band(ui, state, body);
    state.clamp_left();
    hbar(ui, state, &l, full, last_frame);
    out
}

/// A camera (or light) section folds to its header row the first time it
/// shows beside a dance (an actor's motion), so the dance's rows are what
/// the timeline shows (issue 38.1); unfolded by hand it stays open.
fn fold_camera_beside_dance(state: &mut State, sections: &[Section]) {
    if !sections.iter().any(|s| s.worn) {
        return;
    }
    for s in sections.iter().filter(|s| s.camera_or_light) {
        if state.folded_once.insert(s.doc_id) {
            state.collapsed.insert(s.doc_id);
        }
    }
}

/// Follows the scene's sections: a new file fits the whole scene again
/// (unless the user zoomed) and scrolls to the top; fits once there is
/// something to fit (files may still be loading), and again when the ruler
/// changes width under an untouched fit.
fn follow_sections(state: &mut State, sections: &[Section], ruler_width: f32, last_frame: u32) {
    let ids: Vec<u64> = sections.iter().map(|s| s.doc_id).collect();
    if ids != state.shown {
        if ids.iter().any(|id| !state.shown.contains(id)) {
            // A new file: the whole scene again unless the user zoomed
            // (then the zoom stays), and the sections from the top.
            let zoomed = state.fitted_zoom.is_some_and(|z| z != state.px_per_frame);
            if state.shown.is_empty() || !zoomed {
                state.fit_pending = true;
            }
            state.reset_vscroll = true;
        }
        state.shown = ids;
        fold_camera_beside_dance(state, sections);
    }
    // Fit once there is something to fit (files may still be loading),
    // and again when the window is resized while the fit still stands.
    if (state.fit_pending || state.refit_for(ruler_width)) && last_frame > 0 {
        state.fit(ruler_width, last_frame);
        state.fit_pending = false;
    }
}

/// Keeps the playhead in view while playing and when it jumps; Ctrl+wheel
/// zooms about the pointer, a horizontal wheel pans time.
fn follow_transport(ui: &egui::Ui, state: &mut State, shared: &Shared, full: Rect, ruler: Rect) {
    // Keep the playhead in view while playing, and bring it into view
    // when it jumps (Home, End, PageUp/PageDown, a shot, a typed frame).
    let f = shared.transport.frame;
    let jumped = state.seen_frame.is_some_and(|s| s != f);
    state.seen_frame = Some(f);
    if f.is_finite() && (shared.transport.playing || jumped) {
        state.reveal_frame(f, ruler.width(), shared.transport.playing);
    }
    // Ctrl+wheel zooms about the pointer; a horizontal wheel (Shift+wheel) pans time.
    if ui.rect_contains_pointer(full) {
        let (zoom, scroll, pointer) =
            ui.input(|i| (i.zoom_delta(), i.smooth_scroll_delta, i.pointer.hover_pos()));
        if (zoom - 1.0).abs() > 1e-4 {
            let x = pointer.map_or(ruler.center().x, |p| p.x.clamp(ruler.left(), ruler.right()));
            let anchor =
                state.left_frame + f64::from(x - ruler.left()) / f64::from(state.px_per_frame);
            state.zoom_about(anchor, x, ruler.left(), zoom);
        } else if scroll.x != 0.0 {
            state.left_frame -= f64::from(scroll.x / state.px_per_frame);
        }
    }
}

/// The cuts the ruler shows: the scene camera's (the first section with
/// camera keys).
fn scene_cuts(docs: &[Document], sections: &[Section], state: &mut State) -> Vec<u32> {
    // The ruler shows the scene camera's cuts (the first section with camera keys).
    let cam_doc = sections
        .iter()
        .filter_map(|s| docs.iter().find(|d| d.id == s.doc_id))
        .find(|d| !d.index.camera.is_empty());
    match cam_doc {
        Some(d) => {
            let st = state.sheets.entry(d.id).or_default();
            dope_sheet::refresh(st, d);
            dope_sheet::cuts(st).to_vec()
        }
        None => Vec::new(),
    }
}

/// The sections in their vertical scroll area: each one's header and dope
/// sheet; their events and edits go to `out`.
#[allow(clippy::too_many_arguments)]
fn sections_ui(
    ui: &mut egui::Ui,
    docs: &[Document],
    views: &mut Views,
    sections: &[Section],
    lanes: &[AccessoryLane],
    active: Option<u64>,
    shared: &mut Shared,
    state: &mut State,
    body: Rect,
    out: &mut Output,
) {
    let mut child = ui.new_child(egui::UiBuilder::new().max_rect(body));
    let mut events: Vec<(u64, SectionEvent)> = Vec::new();
    let mut area = egui::ScrollArea::vertical()
        .id_salt("timeline-sections")
        .auto_shrink([false, false]);
    if std::mem::take(&mut state.reset_vscroll) {
        area = area.vertical_scroll_offset(0.0);
    }
    let shown = area.show(&mut child, |ui| {
        if sections.is_empty() && lanes.is_empty() {
            ui.weak("No motion in the scene: open a VMD file (Ctrl+O) or drop one here.");
        }
        // The set's keys first: a row per accessory, above the dances'
        // long bone lists.
        set_lane::lanes_ui(
            ui,
            lanes,
            state.ruler,
            shared,
            &mut state.set_lane,
            &mut out.set_edits,
        );
        for s in sections {
            let Some(k) = docs.iter().position(|d| d.id == s.doc_id) else {
                continue;
            };
            let doc = &docs[k];
            if section_header(ui, doc, s, active == Some(doc.id), state) {
                out.activate = Some(doc.id);
            }
            if state.collapsed.contains(&doc.id) {
                continue;
            }
            let mut st = state.take_sheet(doc.id, s.offset);
            let mut view = views.take(doc.id);
            let mut edits = Vec::new();
            let pressed = {
                let mut cx = PanelCtx {
                    doc,
                    view: &mut view,
                    edits: &mut edits,
                    shared,
                };
                dope_sheet::section_ui(
                    ui,
                    &mut cx,
                    &mut st,
                    egui::Id::unique(("timeline-section", doc.id)),
                )
            };
            views.put(doc.id, view);
            events.extend(st.take_events().into_iter().map(|e| (doc.id, e)));
            state.put_sheet(doc.id, st);
            if pressed {
                out.activate = Some(doc.id);
            }
            if !edits.is_empty() {
                out.edits.push((doc.id, edits));
            }
        }
    });
    state.vscroll = shown.state.clamped_offset().y;
    section_events(docs, views, sections, active, shared, state, events, out);
}

/// The rubber band, over every section it crosses.
fn rubber_band(ui: &egui::Ui, state: &State, body: Rect) {
    if let Some(from) = state.sheets.values().find_map(|s| s.rubber_band())
        && let Some(p) = ui.input(|i| i.pointer.interact_pos())
    {
        let r = Rect::from_two_pos(from, p).intersect(body);
        let painter = ui.painter_at(body);
        painter.rect_filled(r, 0.0, ui.visuals().selection.bg_fill.gamma_multiply(0.2));
        painter.rect_stroke(
            r,
            0.0,
            egui::Stroke::new(1.0, ui.visuals().selection.stroke.color),
            egui::StrokeKind::Inside,
        );
    }
}
