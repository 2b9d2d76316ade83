//! The key commands (delete, copy, paste, insert, select all, select at
//! the playhead, fit): each asks [`crate::vmd::key_edit`] for the edit and
//! hands it to the document as an [`EditRequest`], or reports why not.

use std::collections::BTreeSet;

use super::{PanelCtx, State, n_keys};
use crate::app::command::UiCommand;
use crate::vmd::key_edit::{self, Clipboard, KeyClash, TrackRef, track_label, track_of};
use crate::workspace::document::{Edit, EditRequest};

/// Runs a key command (delete, copy, paste, insert, select, fit).
pub fn command(cx: &mut PanelCtx, state: &mut State, c: UiCommand) {
    state.refresh_cache(cx.doc);
    match c {
        UiCommand::DeleteKeys => delete_selected(cx),
        UiCommand::CopyKeys => copy_selected(cx, state),
        UiCommand::PasteKeys => paste(cx, state),
        UiCommand::InsertKey => insert_keys(cx, state),
        UiCommand::SelectAll => cx.view.selection = key_edit::select_all(&cx.doc.motion).into(),
        UiCommand::SelectAtFrame => {
            let f = playhead(cx, state);
            cx.view.selection = key_edit::select_at_frame(&cx.doc.motion, &cx.doc.index, f).into();
            cx.view.active = cx.view.selection.iter().next().copied();
        }
        UiCommand::FitAll => state.fit_pending = true,
        _ => {}
    }
}

/// The playhead as a whole frame of the document (its offset removed).
fn playhead(cx: &PanelCtx, state: &State) -> u32 {
    // Pastes and new keys (cuts too) land on the nearest beat when snapping to beats.
    (cx.shared.song.snap_frame(cx.shared.transport.frame) - f64::from(state.offset))
        .round()
        .clamp(0.0, f64::from(u32::MAX)) as u32
}

fn delete_selected(cx: &mut PanelCtx) {
    let n = cx.view.selection.len();
    if n == 0 {
        cx.shared.info("Nothing selected to delete");
        return;
    }
    let m = key_edit::delete_keys(&cx.doc.motion, &cx.view.selection);
    cx.push(EditRequest::apply(
        Edit::ReplaceMotion {
            motion: Box::new(m),
            selection: None,
        },
        format!("Delete {}", n_keys(n)),
    ));
}

fn copy_selected(cx: &mut PanelCtx, state: &mut State) {
    let c = Clipboard::copy(&cx.doc.motion, &cx.view.selection);
    if c.is_empty() {
        cx.shared.info("Nothing selected to copy");
        return;
    }
    cx.shared.info(format!("Copied {}", n_keys(c.len())));
    state.clipboard = c;
}

fn paste(cx: &mut PanelCtx, state: &mut State) {
    let at = playhead(cx, state);
    match state.clipboard.paste(&cx.doc.motion, &cx.doc.index, at) {
        None => cx.shared.info("Nothing to paste: copy keys first"),
        Some(Err(KeyClash { track, frame })) => cx.shared.error(format!(
            "Paste refused: \"{}\" already has a key on frame {frame}",
            track_label(&track)
        )),
        Some(Ok(r)) => {
            let n = r.selection.len();
            cx.push(EditRequest::apply(
                Edit::ReplaceMotion {
                    motion: Box::new(r.motion),
                    selection: Some(r.selection),
                },
                format!("Paste {} at frame {at}", n_keys(n)),
            ));
        }
    }
}

fn insert_keys(cx: &mut PanelCtx, state: &mut State) {
    let m0 = &cx.doc.motion;
    let mut tracks: BTreeSet<TrackRef> = state.selected_tracks.clone();
    tracks.extend(cx.view.selection.iter().filter_map(|&k| track_of(m0, k)));
    if tracks.is_empty() {
        cx.shared
            .info("Insert key: pick a track (click its name) or a key first");
        return;
    }
    let f = playhead(cx, state);
    let done = key_edit::insert_keys(m0, &cx.doc.index, &tracks, f);
    let skipped = done.skipped;
    let Some(r) = done.edit else {
        cx.shared.info(format!(
            "Insert key: every picked track already has a key on frame {f} ({skipped} tracks)"
        ));
        return;
    };
    let n = r.selection.len();
    cx.push(EditRequest::apply(
        Edit::ReplaceMotion {
            motion: Box::new(r.motion),
            selection: Some(r.selection),
        },
        format!("Insert {} at frame {f}", n_keys(n)),
    ));
    if skipped > 0 {
        cx.shared
            .info(format!("{skipped} tracks already had a key on frame {f}"));
    }
}
