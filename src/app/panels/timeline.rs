//! The scene timeline: one dope sheet for the whole scene. A frame ruler
//! (with the camera's cuts) on top, then one collapsible section per
//! document: the camera (and its light), the light if it is another file,
//! then each actor's motion (bones grouped as in the dope sheet, morphs),
//! then open files outside the scene. Every section shares the zoom and the
//! time scroll; an actor's section is shifted by its offset.
//!
//! Each section is the [`dope_sheet`] of its own document: selection,
//! moving keys and key commands go to that document, which becomes the
//! active one (the key panel and curve editor follow it).

use std::collections::{BTreeSet, HashMap};

use egui::{Pos2, Rect, Sense, Vec2};

use super::dope_sheet::{self, Clipboard, LABEL_WIDTH, Layout, RULER_HEIGHT};
use super::{PanelCtx, Shared};
use crate::app::command::Command;
use crate::app::document::{Document, EditRequest, KeyRef};

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
    /// Keys copied from any section.
    pub clipboard: Clipboard,
    /// Collapsed sections, by document id.
    pub collapsed: BTreeSet<u64>,
    ruler: Option<Layout>,
    hbar_drag: bool,
    /// The sections shown last frame: a new one fits the view again.
    shown: Vec<u64>,
}

impl Default for State {
    fn default() -> Self {
        State {
            sheets: HashMap::new(),
            px_per_frame: 6.0,
            left_frame: -1.0,
            fit_pending: true,
            filter: String::new(),
            clipboard: Clipboard::default(),
            collapsed: BTreeSet::new(),
            ruler: None,
            hbar_drag: false,
            shown: Vec::new(),
        }
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
        st.clipboard = std::mem::take(&mut self.clipboard);
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
        self.clipboard = std::mem::take(&mut st.clipboard);
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
    }
}

/// Runs a key command (copy, paste, delete, insert, select, fit) on the
/// section of `cx.doc`.
pub fn command(cx: &mut PanelCtx, state: &mut State, offset: i32, c: Command) {
    if c == Command::FitAll {
        state.fit_pending = true;
        return;
    }
    let id = cx.doc.id;
    let mut st = state.take_sheet(id, offset);
    dope_sheet::command(cx, &mut st, c);
    state.put_sheet(id, st);
}

/// Draws the timeline. `last_frame` is the scene's last keyed frame (offsets included).
pub fn ui(
    ui: &mut egui::Ui,
    docs: &mut [Document],
    sections: &[Section],
    active: Option<u64>,
    last_frame: u32,
    shared: &mut Shared,
    state: &mut State,
) -> Output {
    let mut out = Output::default();
    toolbar(ui, docs, sections, active, shared, state);

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
            state.fit_pending = true;
        }
        state.shown = ids;
    }
    // Fit once there is something to fit (files may still be loading).
    if state.fit_pending && last_frame > 0 {
        state.fit(ruler.width(), last_frame);
        state.fit_pending = false;
    }
    // Keep the playhead in view while playing.
    if shared.transport.playing {
        let span = f64::from(ruler.width() / state.px_per_frame);
        let f = shared.transport.frame;
        if f > state.left_frame + span || f < state.left_frame {
            state.left_frame = f - span * 0.05;
        }
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
    egui::ScrollArea::vertical()
        .id_salt("timeline-sections")
        .auto_shrink([false, false])
        .show(&mut child, |ui| {
            if sections.is_empty() {
                ui.weak("No motion in the scene: open a VMD file (Ctrl+O) or drop one here.");
            }
            for s in sections {
                let Some(k) = docs.iter().position(|d| d.id == s.doc_id) else {
                    continue;
                };
                let doc = &mut docs[k];
                if section_header(ui, doc, s, active == Some(doc.id), state) {
                    out.activate = Some(doc.id);
                }
                if state.collapsed.contains(&doc.id) {
                    continue;
                }
                let mut st = state.take_sheet(doc.id, s.offset);
                let mut view = std::mem::take(&mut doc.view);
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
                doc.view = view;
                state.put_sheet(doc.id, st);
                if pressed {
                    out.activate = Some(doc.id);
                }
                if !edits.is_empty() {
                    out.edits.push((doc.id, edits));
                }
            }
        });
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
        if !state.filter.is_empty() && ui.small_button("Clear").clicked() {
            state.filter.clear();
        }
        ui.separator();
        if ui
            .button("Fit all")
            .on_hover_text(Command::FitAll.tooltip())
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
            let mut it = d.view.selection.iter().filter_map(|&k| m.key_frame(k));
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
        let n = act.map_or(0, |d| d.view.selection.len());
        match act {
            Some(d) => ui.weak(format!("{n} selected in {}", d.title())),
            None => ui.weak("nothing selected"),
        };
    });
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
