//! Painting the timeline's chrome: section headers, the toolbar, the
//! selection read-out and the horizontal scrollbar.

use egui::{Pos2, Rect, Sense, Vec2};

use super::state::{Section, State};
use super::{SCROLLBAR, ZOOM_MAX, ZOOM_MIN};
use crate::app::command::UiCommand;
use crate::app::panels::dope_sheet::{self, Layout};
use crate::app::panels::{Shared, Views};
use crate::workspace::document::Document;

/// A section's title bar: collapse arrow, role and file; returns whether
/// it was clicked (to make its document active).
pub(super) fn section_header(
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

pub(super) fn toolbar(
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
pub(super) fn hbar(ui: &mut egui::Ui, state: &mut State, l: &Layout, full: Rect, last_frame: u32) {
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
