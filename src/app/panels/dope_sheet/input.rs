//! Pointer input on the key area: click and Shift/Ctrl selection, dragging
//! keys in time (through [`KeyMove`], refused on a clash), rubber-band
//! selection, panning, and the scrollbars.

use egui::{PointerButton, Pos2, Rect, Sense};

use super::layout::{HALF, ROW_HEIGHT, hit_key};
use super::{
    Layout, PanelCtx, Row, SectionEvent, State, frame_in, key_ref, track_keys, track_label,
    track_of,
};
use crate::app::document::{DocView, Document, Edit, EditRequest, KeyRef};
use crate::vmd::key_edit::{KeyClash, KeyMove};

#[derive(Debug, Clone, Default)]
pub(super) enum Drag {
    #[default]
    None,
    /// Moving the selected keys in time.
    Move {
        /// The moved keys and their frames when the drag began.
        keys: KeyMove,
        origin_x: f32,
        /// Frame offset currently applied.
        applied: i64,
        /// Offset last refused (so the message is given once).
        refused: Option<i64>,
        merge_id: u64,
        sent: bool,
    },
    /// Rubber-band selection from this point.
    Box {
        from: Pos2,
        additive: bool,
    },
    /// Panning with the middle or right button.
    Pan,
    /// Dragging the horizontal / vertical scrollbar thumb.
    HBar,
    VBar,
}

/// Selects `k` following the modifiers: plain = only this, Shift = add,
/// Ctrl/Cmd = toggle.
pub(super) fn click_select(cx: &mut PanelCtx, state: &mut State, k: KeyRef, mods: egui::Modifiers) {
    let sel = &mut cx.view.selection;
    let track = track_of(&cx.doc.motion, k);
    if mods.command {
        if !sel.remove(&k) {
            sel.insert(k);
        }
    } else if mods.shift {
        sel.insert(k);
    } else {
        sel.clear();
        sel.insert(k);
        state.selected_tracks.clear();
        state.emit(SectionEvent::SelectionReplaced);
    }
    if let Some(t) = track {
        state.selected_tracks.insert(t);
    }
    cx.view.active = Some(k);
    // As in MMD: the playhead goes to the selected key, so the preview,
    // the value graph and the key panel show the same moment.
    if cx.view.selection.contains(&k)
        && let Some(f) = cx.doc.motion.key_frame(k)
    {
        cx.shared.transport.frame = f64::from(f) + f64::from(state.offset);
        cx.shared.transport.playing = false;
    }
}

pub(super) fn handle_key_input(
    ui: &egui::Ui,
    cx: &mut PanelCtx,
    state: &mut State,
    l: &mut Layout,
    r: &egui::Response,
) {
    let mods = ui.input(|i| i.modifiers);
    if r.clicked()
        && let Some(p) = r.interact_pointer_pos()
    {
        match hit_key(cx.doc, &state.rows, l, p) {
            Some(k) => click_select(cx, state, k, mods),
            None => {
                if !mods.shift && !mods.command {
                    cx.view.selection.clear();
                    cx.view.active = None;
                    state.emit(SectionEvent::SelectionReplaced);
                }
            }
        }
    }
    if r.drag_started() {
        let origin = ui.input(|i| i.pointer.press_origin()).unwrap_or_default();
        let primary = ui.input(|i| i.pointer.button_down(PointerButton::Primary));
        if !primary {
            state.drag = Drag::Pan;
        } else if let Some(k) = hit_key(cx.doc, &state.rows, l, origin) {
            if !cx.view.selection.contains(&k) {
                click_select(cx, state, k, mods);
            } else {
                cx.view.active = Some(k);
            }
            let keys = KeyMove::new(&cx.doc.motion, cx.view.selection.iter().copied());
            state.drag = Drag::Move {
                keys,
                origin_x: origin.x,
                applied: 0,
                refused: None,
                merge_id: state.merge_id(),
                sent: false,
            };
            state.emit(SectionEvent::MoveStart);
        } else {
            state.drag = Drag::Box {
                from: origin,
                additive: mods.shift || mods.command,
            };
        }
    }
    if r.dragged() {
        let pointer = ui.input(|i| i.pointer.interact_pos());
        match &mut state.drag {
            Drag::Move {
                keys,
                origin_x,
                applied,
                refused,
                merge_id,
                sent,
            } => {
                if let Some(p) = pointer {
                    let mut delta = ((p.x - *origin_x) / l.px_per_frame).round() as i64;
                    // Snapping to beats: the key under the press lands on a beat.
                    let anchor = l.frame_at(*origin_x).round() as i64 + i64::from(state.offset);
                    delta = cx.shared.song.snap_delta(anchor, delta);
                    if state.linked {
                        // The timeline moves the selected keys of every
                        // section together (and holds them at frame 0).
                        if delta != *applied {
                            *applied = delta;
                            state.events.push(SectionEvent::MoveTo { delta });
                        }
                    } else {
                        delta = delta.max(keys.min_delta());
                        if delta != *applied {
                            match keys.apply(&cx.doc.motion, &cx.doc.index, delta) {
                                Ok(c) => {
                                    cx.push(EditRequest::merge(
                                        Edit::SetKeys(c),
                                        format!("Move {} keys", keys.len()),
                                        *merge_id,
                                    ));
                                    *applied = delta;
                                    *sent = true;
                                    *refused = None;
                                }
                                Err(KeyClash { track, frame }) => {
                                    if *refused != Some(delta) {
                                        let track = track_label(&track);
                                        cx.shared.error(format!(
                                            "Move refused: two keys of \"{track}\" would be on frame {frame}; the keys stay where they were"
                                        ));
                                        *refused = Some(delta);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            Drag::Pan => {
                let d = r.drag_delta();
                state.left_frame -= f64::from(d.x / state.px_per_frame);
                state.scroll_y -= d.y;
            }
            _ => {}
        }
    }
    if r.drag_stopped() {
        match std::mem::take(&mut state.drag) {
            Drag::Move { .. } if state.linked => state.emit(SectionEvent::MoveEnd),
            Drag::Move { sent: true, .. } => {
                cx.push(EditRequest::EndMerge);
            }
            Drag::Box { from, additive } => {
                if let Some(p) = r
                    .interact_pointer_pos()
                    .or(ui.input(|i| i.pointer.latest_pos()))
                {
                    let rect = Rect::from_two_pos(from, p);
                    if state.linked {
                        // Every section selects what the band covers.
                        state.emit(SectionEvent::Box { rect, additive });
                    } else {
                        box_select(cx.doc, cx.view, state, l, rect, additive);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Selects the keys whose diamonds the screen rectangle `r` touches (after
/// clearing the selection unless `additive`). `r` may begin above these
/// rows (a band dragged across several timeline sections).
pub(super) fn box_select(
    doc: &Document,
    view: &mut DocView,
    state: &State,
    l: &Layout,
    r: Rect,
    additive: bool,
) {
    if !additive {
        view.selection.clear();
    }
    let m = &doc.motion;
    let lo = l.frame_at(r.left() - HALF);
    let hi = l.frame_at(r.right() + HALF);
    // Above the first row: start at the first row.
    let first = l.row_at(r.top() - HALF).unwrap_or(0);
    let Some(last) = l.row_at(r.bottom() + HALF) else {
        return;
    };
    for (i, row) in state.rows.iter().enumerate().take(last + 1).skip(first) {
        let Row::Track { track, .. } = row else {
            continue;
        };
        let cy = l.row_top(i) + ROW_HEIGHT / 2.0;
        if cy < r.top() - HALF || cy > r.bottom() + HALF {
            continue;
        }
        let keys = track_keys(doc, track);
        let s = keys.partition_point(|&k| f64::from(frame_in(m, track, k)) < lo);
        for &k in &keys[s..] {
            if f64::from(frame_in(m, track, k)) > hi {
                break;
            }
            view.selection.insert(key_ref(track, k));
        }
    }
    if view.active.is_none_or(|a| !view.selection.contains(&a)) {
        view.active = view.selection.iter().next().copied();
    }
}

pub(super) fn scrollbars(
    ui: &mut egui::Ui,
    state: &mut State,
    l: &Layout,
    full: Rect,
    id: egui::Id,
) {
    let v = ui.visuals();
    let track_col = v.extreme_bg_color;
    let thumb_col = v.widgets.inactive.bg_fill;
    // Horizontal: the whole motion (plus margin) against the visible span.
    let h = Rect::from_min_max(
        Pos2::new(l.keys.left(), l.keys.bottom()),
        Pos2::new(l.keys.right(), full.bottom()),
    );
    let total = f64::from(state.cache.last_frame) + 30.0;
    let (lo, hi) = l.visible_frames();
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
    let r = ui.interact(h, id.with("hbar"), Sense::drag());
    if r.drag_started() {
        state.drag = Drag::HBar;
    }
    if r.dragged() && matches!(state.drag, Drag::HBar) {
        state.left_frame += f64::from(r.drag_delta().x / h.width()) * all;
    }
    if r.drag_stopped() {
        state.drag = Drag::None;
    }
    // Vertical: rows.
    let vr = Rect::from_min_max(
        Pos2::new(l.keys.right(), l.keys.top()),
        Pos2::new(full.right(), l.keys.bottom()),
    );
    let content = (state.rows.len() as f32 * ROW_HEIGHT).max(1.0);
    let vis = l.keys.height();
    painter.rect_filled(vr, 0.0, track_col);
    if content > vis {
        let a = state.scroll_y / content;
        let b = ((state.scroll_y + vis) / content).min(1.0);
        let thumb = Rect::from_min_max(
            Pos2::new(vr.left() + 2.0, vr.top() + a * vr.height()),
            Pos2::new(
                vr.right() - 2.0,
                (vr.top() + b * vr.height()).max(vr.top() + a * vr.height() + 8.0),
            ),
        );
        painter.rect_filled(thumb, 3.0, thumb_col);
        let r = ui.interact(vr, id.with("vbar"), Sense::drag());
        if r.drag_started() {
            state.drag = Drag::VBar;
        }
        if r.dragged() && matches!(state.drag, Drag::VBar) {
            state.scroll_y += r.drag_delta().y / vr.height() * content;
            state.clamp_view(vis);
        }
        if r.drag_stopped() {
            state.drag = Drag::None;
        }
    }
}
