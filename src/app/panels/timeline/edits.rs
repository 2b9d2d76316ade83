//! What the sections hand up, turned into edits: the group move, the
//! section events and the key context menu.

use super::commands::scene_command;
use super::state::{GroupMove, Output, Section, State, file_name};
use crate::app::command::UiCommand;
use crate::app::panels::dope_sheet::{self, SectionEvent, n_keys};
use crate::app::panels::{Shared, Views};
use crate::vmd::key_edit::{self, KeyClash, KeyMove, track_label};
use crate::workspace::document::{Document, Edit, EditRequest, KeyRef};

/// Adds a request for document `id` to the timeline's output.
fn push_edit(edits: &mut Vec<(u64, Vec<EditRequest>)>, id: u64, e: EditRequest) {
    match edits.iter_mut().find(|(d, _)| *d == id) {
        Some((_, v)) => v.push(e),
        None => edits.push((id, vec![e])),
    }
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

    /// What the finished move did, for the status line: where one key went,
    /// or how far the keys went and where the first now is (scene frames:
    /// each section's offset added).
    pub(super) fn summary(&self, sections: &[Section]) -> String {
        let n: usize = self.moves.iter().map(|(_, m)| m.len()).sum();
        if self.applied == 0 {
            return format!("{} back where they were", n_keys(n));
        }
        let offset = |id: u64| {
            sections
                .iter()
                .find(|s| s.doc_id == id)
                .map_or(0, |s| i64::from(s.offset))
        };
        let first = self
            .moves
            .iter()
            .filter(|(_, m)| !m.is_empty())
            .map(|(id, m)| -m.min_delta() + self.applied + offset(*id))
            .min()
            .unwrap_or(0);
        if n == 1 {
            return format!("Moved 1 key to frame {first}");
        }
        let (by, way) = if self.applied > 0 {
            (self.applied, "later")
        } else {
            (-self.applied, "earlier")
        };
        let frames = if by == 1 { "frame" } else { "frames" };
        format!("Moved {n} keys {by} {frames} {way} (the first to frame {first})")
    }
}

/// Carries out what the sections handed up: a plain selection in one
/// section clears the others; a rubber band selects in every section it
/// covers; a drag moves the selected keys of every section.
#[allow(clippy::too_many_arguments)]
pub(super) fn section_events(
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
                    shared.info(g.summary(sections));
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
        let (mut bones, mut cams) = (Vec::new(), Vec::new());
        for k in sel {
            match k {
                KeyRef::Bone(i) => bones.push(*i as usize),
                KeyRef::Camera(i) => cams.push(*i as usize),
                _ => {}
            }
        }
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
