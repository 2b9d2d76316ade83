//! Key commands across every section (Delete, Copy, Paste) and revealing
//! a bone picked in the viewport.

use super::state::{ClipPart, SceneClipboard, Section, State, file_name};
use crate::app::command::UiCommand;
use crate::app::panels::dope_sheet::{Clipboard, n_keys};
use crate::app::panels::{Shared, Views};
use crate::vmd::key_edit::{self, KeyClash, track_label};
use crate::workspace::document::{Document, Edit, EditRequest};

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
