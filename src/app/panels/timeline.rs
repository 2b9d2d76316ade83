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

use std::collections::{BTreeSet, HashMap};

use egui::{Pos2, Rect, Sense, Vec2};

use super::dope_sheet::{self, Clipboard, LABEL_WIDTH, Layout, RULER_HEIGHT, SectionEvent, n_keys};
use super::{PanelCtx, Shared, Views};
use crate::app::command::UiCommand;
use crate::vmd::key_edit::{self, KeyClash, KeyMove, track_label};
use crate::workspace::document::{Document, Edit, EditRequest, KeyRef};

const ZOOM_MIN: f32 = 0.002;
const ZOOM_MAX: f32 = 60.0;
const SCROLLBAR: f32 = 10.0;
/// Points left of frame 0 the view may show, so frame 0's diamond is whole.
const LEFT_MARGIN_PX: f32 = 8.0;

/// One section of the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub doc_id: u64,
    /// "Camera", "Actor 1", "Not in the scene"…
    pub role: String,
    /// Frames the document is shifted by (an actor's offset).
    pub offset: i32,
}

/// What the timeline asks the app to do.
#[derive(Debug, Default)]
pub struct Output {
    /// Edit requests, per document id.
    pub edits: Vec<(u64, Vec<EditRequest>)>,
    /// The document the user pressed on: it becomes the active one.
    pub activate: Option<u64>,
}

/// The timeline's state: shared zoom and scroll, per-section dope sheets.
#[derive(Debug)]
pub struct State {
    /// Per document id: that section's dope-sheet state.
    pub sheets: HashMap<u64, dope_sheet::State>,
    /// Zoom: points per frame.
    pub px_per_frame: f32,
    /// Scene frame at the left edge of the key area.
    pub left_frame: f64,
    pub fit_pending: bool,
    /// Track-name filter, for every section.
    pub filter: String,
    /// Keys copied from any sections.
    pub clipboard: SceneClipboard,
    /// Collapsed sections, by document id.
    pub collapsed: BTreeSet<u64>,
    ruler: Option<Layout>,
    hbar_drag: bool,
    /// The sections shown last frame: a new one fits the view again.
    shown: Vec<u64>,
    /// Keys being dragged, in every section.
    group_move: Option<GroupMove>,
    /// The playhead frame seen last frame: when it jumps (Home, End, a cut,
    /// a shot) out of view, the view follows it.
    seen_frame: Option<f64>,
    /// The zoom the last fit set; a new file fits again only when the user
    /// has not zoomed since (else the zoom is kept).
    fitted_zoom: Option<f32>,
    /// The sections' vertical scroll goes back to the top next frame.
    reset_vscroll: bool,
    /// How far the sections are scrolled down, points (as drawn last frame).
    pub vscroll: f32,
}

impl Default for State {
    fn default() -> Self {
        State {
            sheets: HashMap::new(),
            px_per_frame: 6.0,
            left_frame: -1.0,
            fit_pending: true,
            filter: String::new(),
            clipboard: SceneClipboard::default(),
            collapsed: BTreeSet::new(),
            ruler: None,
            hbar_drag: false,
            shown: Vec::new(),
            group_move: None,
            seen_frame: None,
            fitted_zoom: None,
            reset_vscroll: false,
            vscroll: 0.0,
        }
    }
}

/// A move of the selected keys of several documents at once: a drag on any
/// section moves every section's selection by the same number of frames,
/// each document's change in its own undo step (made in the same frame, so
/// the app undoes them together).
#[derive(Debug)]
struct GroupMove {
    /// Per document id: its selected keys and their frames at the start.
    moves: Vec<(u64, KeyMove)>,
    applied: i64,
    refused: Option<i64>,
    merge_id: u64,
    sent: bool,
}

/// Keys copied from one section, with the offset it had then.
#[derive(Debug, Clone)]
pub struct ClipPart {
    pub doc_id: u64,
    pub offset: i32,
    pub keys: Clipboard,
}

/// Keys copied from any sections of the timeline.
#[derive(Debug, Clone, Default)]
pub struct SceneClipboard {
    pub parts: Vec<ClipPart>,
}

impl SceneClipboard {
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.keys.len()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The earliest copied key in scene frames (offsets applied).
    fn earliest(&self) -> Option<i64> {
        self.parts
            .iter()
            .filter_map(|p| Some(i64::from(p.keys.earliest()?) + i64::from(p.offset)))
            .min()
    }
}

impl State {
    /// The ruler's layout as drawn last frame (unshifted scene frames).
    pub fn layout(&self) -> Option<Layout> {
        self.ruler
    }

    /// Screen position of a key's diamond as drawn last frame, if in view.
    pub fn key_pos(&self, doc: &Document, key: KeyRef) -> Option<Pos2> {
        self.sheets.get(&doc.id)?.key_pos(doc, key)
    }

    /// The section state of document `id`, set up with the shared view.
    fn take_sheet(&mut self, id: u64, offset: i32) -> dope_sheet::State {
        let mut st = self.sheets.remove(&id).unwrap_or_default();
        st.px_per_frame = self.px_per_frame;
        st.left_frame = self.left_frame - f64::from(offset);
        st.offset = offset;
        st.fit_pending = false;
        if st.filter != self.filter {
            st.filter = self.filter.clone();
        }
        st.can_paste = !self.clipboard.is_empty();
        st
    }

    /// Puts a section state back, keeping any zoom or scroll it made.
    fn put_sheet(&mut self, id: u64, mut st: dope_sheet::State) {
        let offset = f64::from(st.offset);
        if st.px_per_frame != self.px_per_frame || st.left_frame + offset != self.left_frame {
            self.px_per_frame = st.px_per_frame;
            self.left_frame = st.left_frame + offset;
        }
        self.fit_pending |= std::mem::take(&mut st.fit_pending);
        self.sheets.insert(id, st);
    }

    /// Zooms by `factor` keeping scene frame `anchor` at screen x `x`
    /// (`left` = the key area's left edge).
    pub fn zoom_about(&mut self, anchor: f64, x: f32, left: f32, factor: f32) {
        self.px_per_frame = (self.px_per_frame * factor).clamp(ZOOM_MIN, ZOOM_MAX);
        self.left_frame = anchor - f64::from(x - left) / f64::from(self.px_per_frame);
        self.clamp_left();
    }

    /// Never further left than a few points before frame 0.
    fn clamp_left(&mut self) {
        let min = -f64::from(LEFT_MARGIN_PX / self.px_per_frame);
        if self.left_frame < min {
            self.left_frame = min;
        }
    }

    fn fit(&mut self, width: f32, last: u32) {
        let last = f64::from(last.max(10));
        let margin = (last * 0.02).max(2.0);
        let span = last + 2.0 * margin;
        self.px_per_frame = ((f64::from(width.max(50.0)) / span) as f32).clamp(ZOOM_MIN, ZOOM_MAX);
        self.left_frame = -f64::from(LEFT_MARGIN_PX / self.px_per_frame);
        self.fitted_zoom = Some(self.px_per_frame);
    }

    /// Scrolls time so that scene frame `f` is in a view `width` points
    /// wide: unchanged when it already is; while playing it goes near the
    /// left edge (the view pages along), after a jump to the middle.
    fn reveal_frame(&mut self, f: f64, width: f32, playing: bool) {
        let span = f64::from(width / self.px_per_frame);
        if f >= self.left_frame && f <= self.left_frame + span {
            return;
        }
        self.left_frame = if playing {
            f - span * 0.05
        } else {
            f - span * 0.5
        };
        self.clamp_left();
    }
}

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

/// Draws the timeline. `last_frame` is the scene's last frame
/// ([`crate::workspace::Workspace::scene_end`]). Selections change on
/// `views` (the shell hands the changed ones back to the workspace).
#[allow(clippy::too_many_arguments)]
pub fn ui(
    ui: &mut egui::Ui,
    docs: &[Document],
    views: &mut Views,
    sections: &[Section],
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
    }
    // Fit once there is something to fit (files may still be loading).
    if state.fit_pending && last_frame > 0 {
        state.fit(ruler.width(), last_frame);
        state.fit_pending = false;
    }
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
    // The ruler shows the scene camera's cuts (the first section with camera keys).
    let cam_doc = sections
        .iter()
        .filter_map(|s| docs.iter().find(|d| d.id == s.doc_id))
        .find(|d| !d.index.camera.is_empty());
    let cuts: Vec<u32> = match cam_doc {
        Some(d) => {
            let st = state.sheets.entry(d.id).or_default();
            dope_sheet::refresh(st, d);
            dope_sheet::cuts(st).to_vec()
        }
        None => Vec::new(),
    };
    // The whole area is the timeline's (a resizable panel keeps its size).
    ui.allocate_rect(full, Sense::hover());
    dope_sheet::ruler(ui, shared, &cuts, &l, egui::Id::unique("timeline-ruler"));
    state.ruler = Some(l);
    // The song's waveform lane and beat grid, under the ruler.
    let lane_h = super::waveform::under_ruler(ui, shared, &l, full.left());

    let body = Rect::from_min_max(
        Pos2::new(full.left(), ruler.bottom() + lane_h),
        Pos2::new(full.right(), full.bottom() - SCROLLBAR),
    );
    let mut child = ui.new_child(egui::UiBuilder::new().max_rect(body));
    let mut events: Vec<(u64, SectionEvent)> = Vec::new();
    let mut area = egui::ScrollArea::vertical()
        .id_salt("timeline-sections")
        .auto_shrink([false, false]);
    if std::mem::take(&mut state.reset_vscroll) {
        area = area.vertical_scroll_offset(0.0);
    }
    let shown = area.show(&mut child, |ui| {
        if sections.is_empty() {
            ui.weak("No motion in the scene: open a VMD file (Ctrl+O) or drop one here.");
        }
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
    section_events(
        docs, views, sections, active, shared, state, events, &mut out,
    );
    // The rubber band, over every section it crosses.
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
    state.clamp_left();
    hbar(ui, state, &l, full, last_frame);
    out
}

/// A section's title bar: collapse arrow, role and file; returns whether
/// it was clicked (to make its document active).
fn section_header(
    ui: &mut egui::Ui,
    doc: &Document,
    s: &Section,
    active: bool,
    state: &mut State,
) -> bool {
    let open = !state.collapsed.contains(&doc.id);
    let mut clicked = false;
    ui.horizontal(|ui| {
        ui.set_min_height(dope_sheet::ROW_HEIGHT + 2.0);
        let size = Vec2::splat(ui.spacing().icon_width);
        let (_, icon) = ui.allocate_exact_size(size, Sense::click());
        egui::collapsing_header::paint_default_icon(ui, if open { 1.0 } else { 0.0 }, &icon);
        let icon = icon.on_hover_text(if open {
            "Collapse this section"
        } else {
            "Expand this section"
        });
        if icon.clicked() {
            if open {
                state.collapsed.insert(doc.id);
            } else {
                state.collapsed.remove(&doc.id);
            }
        }
        let mut text = format!("{} — {}", s.role, doc.title());
        if s.offset != 0 {
            text.push_str(&format!("  (offset {:+})", s.offset));
        }
        let r = ui
            .selectable_label(active, egui::RichText::new(text).strong())
            .on_hover_text("The key panel and curve editor show the active file's keys");
        clicked = r.clicked();
    });
    clicked
}

fn toolbar(
    ui: &mut egui::Ui,
    docs: &[Document],
    views: &Views,
    sections: &[Section],
    active: Option<u64>,
    shared: &mut Shared,
    state: &mut State,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Filter");
        ui.add(
            egui::TextEdit::singleline(&mut state.filter)
                .hint_text("track name")
                .desired_width(120.0),
        );
        // Always there (disabled while empty): typing a filter moves nothing.
        if ui
            .add_enabled(!state.filter.is_empty(), egui::Button::new("✕").small())
            .on_hover_text("Clear the filter")
            .clicked()
        {
            state.filter.clear();
        }
        ui.separator();
        if ui
            .button("Fit all")
            .on_hover_text(UiCommand::FitAll.tooltip())
            .clicked()
        {
            state.fit_pending = true;
        }
        // Zoom buttons keep the playhead where it is on screen (or the
        // view's centre when the playhead is out of view).
        let zoom = |state: &mut State, factor: f32| {
            let Some(l) = state.ruler else {
                state.px_per_frame = (state.px_per_frame * factor).clamp(ZOOM_MIN, ZOOM_MAX);
                return;
            };
            let f = shared.transport.frame;
            let x = l.x_of(f);
            let (anchor, x) = if l.ruler.x_range().contains(x) {
                (f, x)
            } else {
                (l.frame_at(l.ruler.center().x), l.ruler.center().x)
            };
            state.zoom_about(anchor, x, l.ruler.left(), factor);
        };
        if ui.button("Zoom in").clicked() {
            zoom(state, 1.5);
        }
        if ui.button("Zoom out").clicked() {
            zoom(state, 1.0 / 1.5);
        }
        ui.weak(format!("{:.2} px/frame", state.px_per_frame));
        ui.separator();
        let act = active.and_then(|id| docs.iter().find(|d| d.id == id));
        let offset = active
            .and_then(|id| sections.iter().find(|s| s.doc_id == id))
            .map_or(0, |s| s.offset);
        let span = act.and_then(|d| {
            let m = &d.motion;
            let mut it = views
                .get(d.id)
                .selection
                .iter()
                .filter_map(|&k| m.key_frame(k));
            let first = it.next()?;
            let (lo, hi) = it.fold((first, first), |(a, b), f| (a.min(f), b.max(f)));
            let shift = |f: u32| (i64::from(f) + i64::from(offset)).max(0) as u32;
            Some((shift(lo), shift(hi)))
        });
        if ui
            .add_enabled(span.is_some(), egui::Button::new("Loop selection"))
            .on_hover_text("Loop playback over the frames of the selected keys")
            .clicked()
            && let Some(r) = span
        {
            shared.transport.loop_range = Some(r);
            shared.info(format!("Loop {}..{}", r.0, r.1));
        }
        if ui
            .add_enabled(
                shared.transport.loop_range.is_some(),
                egui::Button::new("Clear loop"),
            )
            .clicked()
        {
            shared.transport.loop_range = None;
        }
        if let Some((a, b)) = shared.transport.loop_range {
            ui.weak(format!("loop {a}-{b}"));
        }
        ui.separator();
        // (file, keys selected in it), for each file with a selection.
        let counts: Vec<_> = sections
            .iter()
            .filter_map(|s| docs.iter().find(|d| d.id == s.doc_id))
            .map(|d| (d, views.get(d.id).selection.len()))
            .filter(|&(_, n)| n > 0)
            .collect();
        let n: usize = counts.iter().map(|&(_, n)| n).sum();
        // One file: named, whether or not it is the active one (an undo can
        // make another file active; "in 1 files" said nothing).
        let text = match counts.as_slice() {
            [] => "nothing selected".to_owned(),
            [(d, _)] => format!("{n} selected in {}", d.title()),
            more => format!("{n} selected in {} files", more.len()),
        };
        selection_status(ui, text);
    });
}

/// The selection read-out at the end of the toolbar. It stays on the row
/// where "nothing selected" would go (this row if that fits in what is left,
/// else the next) and is cut there with "…" (the whole text on hover), so
/// selecting a key never adds or removes a toolbar row and never moves the
/// rows below.
fn selection_status(ui: &mut egui::Ui, text: String) {
    let idle = egui::WidgetText::from("nothing selected")
        .into_galley(
            ui,
            Some(egui::TextWrapMode::Extend),
            f32::INFINITY,
            egui::TextStyle::Body,
        )
        .size()
        .x;
    let left = ui.available_size_before_wrap().x;
    // Asking for more than is left of the row starts the next one.
    let w = if left >= idle {
        left
    } else {
        ui.available_width()
    };
    let h = ui.spacing().interact_size.y;
    ui.allocate_ui_with_layout(
        egui::vec2(w, h),
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| ui.add(egui::Label::new(egui::RichText::new(text).weak()).truncate()),
    );
}

/// The horizontal scrollbar: the whole scene against the visible span.
fn hbar(ui: &mut egui::Ui, state: &mut State, l: &Layout, full: Rect, last_frame: u32) {
    let v = ui.visuals();
    let (track_col, thumb_col) = (v.extreme_bg_color, v.widgets.inactive.bg_fill);
    let h = Rect::from_min_max(
        Pos2::new(l.keys.left(), full.bottom() - SCROLLBAR),
        Pos2::new(l.keys.right(), full.bottom()),
    );
    let total = f64::from(last_frame) + 30.0;
    let lo = state.left_frame;
    let hi = lo + f64::from(l.keys.width() / state.px_per_frame);
    let all = total.max(hi) - lo.min(0.0);
    let t0 = ((lo - lo.min(0.0)) / all).clamp(0.0, 1.0) as f32;
    let t1 = ((hi - lo.min(0.0)) / all).clamp(0.0, 1.0) as f32;
    let painter = ui.painter();
    painter.rect_filled(h, 0.0, track_col);
    let thumb = Rect::from_min_max(
        Pos2::new(h.left() + t0 * h.width(), h.top() + 2.0),
        Pos2::new(
            (h.left() + t1 * h.width()).max(h.left() + t0 * h.width() + 8.0),
            h.bottom() - 2.0,
        ),
    );
    painter.rect_filled(thumb, 3.0, thumb_col);
    let r = ui.interact(h, egui::Id::unique("timeline-hbar"), Sense::drag());
    if r.drag_started() {
        state.hbar_drag = true;
    }
    if r.dragged() && state.hbar_drag {
        state.left_frame += f64::from(r.drag_delta().x / h.width()) * all;
        state.clamp_left();
    }
    if r.drag_stopped() {
        state.hbar_drag = false;
    }
}

/// Adds a request for document `id` to the timeline's output.
fn push_edit(edits: &mut Vec<(u64, Vec<EditRequest>)>, id: u64, e: EditRequest) {
    match edits.iter_mut().find(|(d, _)| *d == id) {
        Some((_, v)) => v.push(e),
        None => edits.push((id, vec![e])),
    }
}

/// A file's name for messages (no modified mark).
fn file_name(d: &Document) -> String {
    d.path
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or_else(|| d.name.clone(), |n| n.to_string_lossy().into_owned())
}

impl GroupMove {
    /// Moves every document's keys by `delta` frames (held so that no key
    /// goes before frame 0), or none of them when any would land on a key
    /// of its track.
    fn step(
        &mut self,
        docs: &[Document],
        shared: &mut Shared,
        delta: i64,
        edits: &mut Vec<(u64, Vec<EditRequest>)>,
    ) {
        let floor = self.moves.iter().map(|(_, m)| m.min_delta()).max();
        let delta = delta.max(floor.unwrap_or(0));
        if delta == self.applied {
            return;
        }
        let find = |id: u64| docs.iter().find(|d| d.id == id);
        for (id, mv) in &self.moves {
            let Some(d) = find(*id) else { continue };
            if let Some(KeyClash { track, frame }) = mv.clash(&d.motion, &d.index, delta) {
                if self.refused != Some(delta) {
                    shared.error(format!(
                        "Move refused: two keys of \"{}\" in {} would be on frame {frame}; the keys stay where they were",
                        track_label(&track),
                        file_name(d)
                    ));
                    self.refused = Some(delta);
                }
                return;
            }
        }
        for (id, mv) in &self.moves {
            let Some(d) = find(*id) else { continue };
            let c = mv.changes(&d.motion, delta);
            let label = format!("Move {}", n_keys(mv.len()));
            push_edit(
                edits,
                *id,
                EditRequest::merge(Edit::SetKeys(c), label, self.merge_id),
            );
        }
        self.applied = delta;
        self.refused = None;
        self.sent = true;
    }
}

/// Carries out what the sections handed up: a plain selection in one
/// section clears the others; a rubber band selects in every section it
/// covers; a drag moves the selected keys of every section.
#[allow(clippy::too_many_arguments)]
fn section_events(
    docs: &[Document],
    views: &mut Views,
    sections: &[Section],
    active: Option<u64>,
    shared: &mut Shared,
    state: &mut State,
    events: Vec<(u64, SectionEvent)>,
    out: &mut Output,
) {
    for (from, e) in events {
        match e {
            SectionEvent::Menu { key, action } => {
                let edits = key_menu_action(
                    docs, views, sections, active, shared, state, from, key, action,
                );
                for (id, reqs) in edits {
                    for r in reqs {
                        push_edit(&mut out.edits, id, r);
                    }
                }
            }
            SectionEvent::SelectionReplaced => {
                for d in docs.iter().filter(|d| d.id != from) {
                    let v = views.get_mut(d.id);
                    v.selection.clear();
                    v.active = None;
                }
            }
            SectionEvent::Box { rect, additive } => {
                for s in sections {
                    let Some(d) = docs.iter().find(|d| d.id == s.doc_id) else {
                        continue;
                    };
                    if !additive {
                        let v = views.get_mut(d.id);
                        v.selection.clear();
                        v.active = None;
                    }
                    if state.collapsed.contains(&d.id) {
                        continue;
                    }
                    if let Some(st) = state.sheets.get(&d.id) {
                        let mut view = views.take(d.id);
                        dope_sheet::box_select(d, &mut view, st, rect, true);
                        views.put(d.id, view);
                    }
                }
            }
            SectionEvent::MoveStart => {
                let moves = sections
                    .iter()
                    .filter_map(|s| docs.iter().find(|d| d.id == s.doc_id))
                    .filter(|d| !views.get(d.id).selection.is_empty())
                    .map(|d| {
                        let keys = views.get(d.id).selection.iter().copied();
                        (d.id, KeyMove::new(&d.motion, keys))
                    })
                    .collect();
                state.group_move = Some(GroupMove {
                    moves,
                    applied: 0,
                    refused: None,
                    merge_id: crate::workspace::merge_id(),
                    sent: false,
                });
            }
            SectionEvent::MoveTo { delta } => {
                if let Some(g) = &mut state.group_move {
                    g.step(docs, shared, delta, &mut out.edits);
                }
            }
            SectionEvent::MoveEnd => {
                if let Some(g) = state.group_move.take()
                    && g.sent
                {
                    for (id, _) in &g.moves {
                        push_edit(&mut out.edits, *id, EditRequest::EndMerge);
                    }
                }
            }
        }
    }
}

/// Carries out what was chosen in the context menu of key `key` of
/// document `from`: Copy, Paste and Delete as their commands; Select all
/// in track replaces every section's selection with that track's keys;
/// Set curve gives every channel of the selected bone and camera keys of
/// every section one curve (one undo step); Copy rotation curve fills the
/// curve clipboard; Jump moves the playhead to the key.
#[allow(clippy::too_many_arguments)]
fn key_menu_action(
    docs: &[Document],
    views: &mut Views,
    sections: &[Section],
    active: Option<u64>,
    shared: &mut Shared,
    state: &mut State,
    from: u64,
    key: Option<KeyRef>,
    action: dope_sheet::KeyMenu,
) -> Vec<(u64, Vec<EditRequest>)> {
    use dope_sheet::KeyMenu;
    let doc = docs.iter().find(|d| d.id == from);
    let offset = sections
        .iter()
        .find(|s| s.doc_id == from)
        .map_or(0, |s| s.offset);
    match action {
        KeyMenu::Copy => scene_command(
            docs,
            views,
            sections,
            active,
            shared,
            state,
            UiCommand::CopyKeys,
        ),
        KeyMenu::Paste => scene_command(
            docs,
            views,
            sections,
            active,
            shared,
            state,
            UiCommand::PasteKeys,
        ),
        KeyMenu::Delete => scene_command(
            docs,
            views,
            sections,
            active,
            shared,
            state,
            UiCommand::DeleteKeys,
        ),
        KeyMenu::SelectTrack => {
            let (Some(d), Some(k)) = (doc, key) else {
                return Vec::new();
            };
            let Some(t) = key_edit::track_of(&d.motion, k) else {
                return Vec::new();
            };
            for other in docs {
                let v = views.get_mut(other.id);
                v.selection.clear();
                v.active = None;
            }
            let v = views.get_mut(d.id);
            v.selection.extend(
                dope_sheet::track_keys(d, &t)
                    .iter()
                    .map(|&i| dope_sheet::key_ref(&t, i)),
            );
            v.active = Some(k);
            shared.info(format!(
                "Selected {} of \"{}\"",
                n_keys(v.selection.len()),
                track_label(&t)
            ));
            Vec::new()
        }
        KeyMenu::JumpTo => {
            if let Some(f) = doc.zip(key).and_then(|(d, k)| d.motion.key_frame(k)) {
                shared.transport.frame = f64::from(f) + f64::from(offset);
                shared.transport.playing = false;
            }
            Vec::new()
        }
        KeyMenu::CopyCurve => {
            let curve = doc.zip(key).and_then(|(d, k)| match k {
                KeyRef::Bone(i) => d.motion.bones.get(i as usize).map(|b| b.curves()[3]),
                KeyRef::Camera(i) => d.motion.cameras.get(i as usize).map(|c| c.curves()[3]),
                _ => None,
            });
            if let Some(c) = curve {
                shared.curve_clipboard = Some(c);
                shared.info(format!(
                    "Copied the rotation curve {}",
                    crate::vmd::curve_edit::format_curve(c)
                ));
            }
            Vec::new()
        }
        KeyMenu::SetCurve(curve) => set_curve_all(docs, views, sections, shared, curve),
    }
}

/// Every channel of every selected bone and camera key of every section
/// gets `curve` (only interpolation bytes change; a bone block's physics
/// flag stays): one edit per document, undone together.
fn set_curve_all(
    docs: &[Document],
    views: &Views,
    sections: &[Section],
    shared: &mut Shared,
    curve: crate::vmd::Curve,
) -> Vec<(u64, Vec<EditRequest>)> {
    use crate::app::panels::curve_editor::curve_edit_for;
    use crate::workspace::document::KeyChanges;
    let mut out = Vec::new();
    let mut total = 0usize;
    for s in sections {
        let Some(d) = docs.iter().find(|d| d.id == s.doc_id) else {
            continue;
        };
        let sel = &views.get(d.id).selection;
        let bones: Vec<usize> = sel
            .iter()
            .filter_map(|k| match k {
                KeyRef::Bone(i) => Some(*i as usize),
                _ => None,
            })
            .collect();
        let cams: Vec<usize> = sel
            .iter()
            .filter_map(|k| match k {
                KeyRef::Camera(i) => Some(*i as usize),
                _ => None,
            })
            .collect();
        let mut changes = KeyChanges::default();
        if !bones.is_empty()
            && let Some(Edit::SetKeys(c)) = curve_edit_for(d, false, &bones, &[0, 1, 2, 3], curve)
        {
            changes.bones = c.bones;
        }
        if !cams.is_empty()
            && let Some(Edit::SetKeys(c)) =
                curve_edit_for(d, true, &cams, &[0, 1, 2, 3, 4, 5], curve)
        {
            changes.cameras = c.cameras;
        }
        let n = changes.bones.len() + changes.cameras.len();
        if n == 0 {
            continue;
        }
        total += n;
        let label = format!(
            "Curve {} on {}",
            crate::vmd::curve_edit::format_curve(curve),
            n_keys(n)
        );
        out.push((
            d.id,
            vec![EditRequest::apply(Edit::SetKeys(changes), label)],
        ));
    }
    if total == 0 {
        shared
            .info("Set curve: no selected bone or camera key changes (morph keys have no curves)");
    }
    out
}

/// Runs a key command across the timeline's sections: Delete and Copy act
/// on the selected keys of every section; Paste puts copied keys back at
/// the playhead — keys copied from one section go to the active file (so
/// keys can go from one actor to another), keys copied from several go
/// each back into the file they came from (camera keys into the camera,
/// an actor's bone and morph keys into that actor under the same names),
/// the earliest at the playhead and the others at the same distances in
/// scene time. Returns the edits per document: one action, undone as one.
pub fn scene_command(
    docs: &[Document],
    views: &mut Views,
    sections: &[Section],
    active: Option<u64>,
    shared: &mut Shared,
    state: &mut State,
    c: UiCommand,
) -> Vec<(u64, Vec<EditRequest>)> {
    match c {
        UiCommand::DeleteKeys => delete_all(docs, views, sections, shared),
        UiCommand::CopyKeys => {
            copy_all(docs, views, sections, shared, state);
            Vec::new()
        }
        UiCommand::PasteKeys => paste_all(docs, views, sections, active, shared, state),
        _ => Vec::new(),
    }
}

fn delete_all(
    docs: &[Document],
    views: &Views,
    sections: &[Section],
    shared: &mut Shared,
) -> Vec<(u64, Vec<EditRequest>)> {
    let mut out = Vec::new();
    for s in sections {
        let Some(d) = docs.iter().find(|d| d.id == s.doc_id) else {
            continue;
        };
        let sel = &views.get(d.id).selection;
        let n = sel.len();
        if n == 0 {
            continue;
        }
        let m = key_edit::delete_keys(&d.motion, sel);
        let e = EditRequest::apply(
            Edit::ReplaceMotion {
                motion: Box::new(m),
                selection: None,
            },
            format!("Delete {}", n_keys(n)),
        );
        out.push((d.id, vec![e]));
    }
    if out.is_empty() {
        shared.info("Nothing selected to delete");
    }
    out
}

fn copy_all(
    docs: &[Document],
    views: &Views,
    sections: &[Section],
    shared: &mut Shared,
    state: &mut State,
) {
    let mut clip = SceneClipboard::default();
    for s in sections {
        let Some(d) = docs.iter().find(|d| d.id == s.doc_id) else {
            continue;
        };
        let keys = Clipboard::copy(&d.motion, &views.get(d.id).selection);
        if !keys.is_empty() {
            clip.parts.push(ClipPart {
                doc_id: d.id,
                offset: s.offset,
                keys,
            });
        }
    }
    match clip.parts.len() {
        0 => shared.info("Nothing selected to copy"),
        1 => shared.info(format!("Copied {}", n_keys(clip.len()))),
        n => shared.info(format!("Copied {} from {n} files", n_keys(clip.len()))),
    }
    if !clip.is_empty() {
        state.clipboard = clip;
    }
}

fn paste_all(
    docs: &[Document],
    views: &mut Views,
    sections: &[Section],
    active: Option<u64>,
    shared: &mut Shared,
    state: &State,
) -> Vec<(u64, Vec<EditRequest>)> {
    let clip = &state.clipboard;
    let Some(earliest) = clip.earliest() else {
        shared.info("Nothing to paste: copy keys first");
        return Vec::new();
    };
    // The playhead in scene frames (on the nearest beat when snapping).
    let at = shared
        .song
        .snap_frame(shared.transport.frame)
        .round()
        .clamp(0.0, f64::from(u32::MAX)) as i64;
    let single = clip.parts.len() == 1;
    let mut pasted: Vec<(u64, key_edit::Replaced)> = Vec::new();
    let mut left_out = 0usize;
    for part in &clip.parts {
        let target = if single {
            active.unwrap_or(part.doc_id)
        } else {
            part.doc_id
        };
        let (Some(s), Some(d)) = (
            sections.iter().find(|s| s.doc_id == target),
            docs.iter().find(|d| d.id == target),
        ) else {
            left_out += part.keys.len();
            continue;
        };
        // A key's scene frame is its frame + the offset it was copied with;
        // the earliest goes to the playhead; then back into the target's frames.
        let delta = at - earliest + i64::from(part.offset) - i64::from(s.offset);
        match part.keys.paste_shifted(&d.motion, &d.index, delta) {
            None => left_out += part.keys.len(),
            Some(Err(KeyClash { track, frame })) => {
                shared.error(format!(
                    "Paste refused: \"{}\" in {} already has a key on frame {frame}; nothing was pasted",
                    track_label(&track),
                    file_name(d)
                ));
                return Vec::new();
            }
            Some(Ok(r)) => {
                left_out += part.keys.len() - r.selection.len();
                pasted.push((target, r));
            }
        }
    }
    if left_out > 0 {
        shared.info(format!(
            "{left_out} copied keys were left out (before frame 0 of their file, or their file is closed)"
        ));
    }
    if pasted.is_empty() {
        return Vec::new();
    }
    // The pasted keys become the selection; other files' selections go.
    for d in docs {
        if !pasted.iter().any(|(id, _)| *id == d.id) {
            let v = views.get_mut(d.id);
            v.selection.clear();
            v.active = None;
        }
    }
    pasted
        .into_iter()
        .map(|(id, r)| {
            let n = r.selection.len();
            let e = EditRequest::apply(
                Edit::ReplaceMotion {
                    motion: Box::new(r.motion),
                    selection: Some(r.selection),
                },
                format!("Paste {} at frame {at}", n_keys(n)),
            );
            (id, vec![e])
        })
        .collect()
}

/// Shows bone `name` of document `doc_id` (an actor's motion, shifted by
/// `offset`) as clicking its joint in the viewport asks: its row is
/// picked and scrolled into view; its key at scene frame `frame`, if it
/// has one, becomes the selection; every other section's selection goes.
/// Returns false (and changes nothing) when the motion has no keys for
/// that bone.
pub fn reveal_bone(
    docs: &[Document],
    views: &mut Views,
    state: &mut State,
    doc_id: u64,
    offset: i32,
    name: &str,
    frame: f64,
) -> bool {
    let Some(d) = docs.iter().find(|d| d.id == doc_id) else {
        return false;
    };
    let Some(track) = d.index.bone_by_text(name) else {
        return false;
    };
    let t = key_edit::TrackRef::Bone(track.name_key.clone());
    let f = (frame.floor() - f64::from(offset)).clamp(-1.0, f64::from(u32::MAX));
    // The key in force on that frame (the last of duplicates in the file).
    let key = (f >= 0.0)
        .then(|| key_edit::keys_on_frame(&d.motion, &d.index, &t, f as u32).last())
        .flatten();
    for d in docs {
        let v = views.get_mut(d.id);
        v.selection.clear();
        v.active = None;
        if d.id == doc_id {
            v.selection.extend(key);
            v.active = key;
        }
    }
    // A filter that would hide the row is cleared.
    let needle = state.filter.trim().to_lowercase();
    if !needle.is_empty() && !name.to_lowercase().contains(&needle) {
        state.filter.clear();
    }
    state.collapsed.remove(&doc_id);
    let st = state.sheets.entry(doc_id).or_default();
    st.selected_tracks.clear();
    st.reveal_track(t);
    true
}
