//! Pointer input on the key area: click and Shift/Ctrl selection, dragging
//! keys in time (through [`KeyMove`], refused on a clash), rubber-band
//! selection, panning, and the scrollbars.

use egui::{PointerButton, Pos2, Rect};

use super::layout::{HALF, ROW_HEIGHT, hit_key};
use super::{Layout, PanelCtx, Row, SectionEvent, State, frame_in, key_ref, track_keys, track_of};
use crate::workspace::document::{DocView, Document, KeyRef};

#[derive(Debug, Clone, Default)]
pub(super) enum Drag {
    #[default]
    None,
    /// Moving the selected keys in time (the timeline moves the selected
    /// keys of every section together: [`SectionEvent::MoveTo`]).
    Move {
        origin_x: f32,
        /// Frame offset last handed up.
        applied: i64,
    },
    /// Rubber-band selection from this point.
    Box { from: Pos2, additive: bool },
    /// Panning with the middle or right button.
    Pan,
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
    // Right-click: the key under the pointer (selected first, as a plain
    // click would, unless it already is) is what the context menu acts on.
    if r.secondary_clicked()
        && let Some(p) = r.interact_pointer_pos()
    {
        state.menu_key = hit_key(cx.doc, &state.rows, l, p);
        if let Some(k) = state.menu_key
            && !cx.view.selection.contains(&k)
        {
            click_select(cx, state, k, egui::Modifiers::NONE);
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
            state.drag = Drag::Move {
                origin_x: origin.x,
                applied: 0,
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
            Drag::Move { origin_x, applied } => {
                if let Some(p) = pointer {
                    let mut delta = ((p.x - *origin_x) / l.px_per_frame).round() as i64;
                    // Snapping to beats: the key under the press lands on a beat.
                    let anchor = l.frame_at(*origin_x).round() as i64 + i64::from(state.offset);
                    delta = cx.shared.song.snap_delta(anchor, delta);
                    // The timeline moves the selected keys of every
                    // section together (and holds them at frame 0).
                    if delta != *applied {
                        *applied = delta;
                        state.events.push(SectionEvent::MoveTo { delta });
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
            Drag::Move { .. } => state.emit(SectionEvent::MoveEnd),
            Drag::Box { from, additive } => {
                if let Some(p) = r
                    .interact_pointer_pos()
                    .or(ui.input(|i| i.pointer.latest_pos()))
                {
                    let rect = Rect::from_two_pos(from, p);
                    // Every section selects what the band covers.
                    state.emit(SectionEvent::Box { rect, additive });
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
