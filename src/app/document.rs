//! An open file: the motion, its sorted index, its path and its undo history.
//!
//! The document is the only owner that mutates a motion. Panels read it and
//! return [`EditRequest`]s; the app applies them here at the end of the
//! frame, recording each edit's inverse. A drag sends many requests with the
//! same merge id and then [`EditRequest::EndMerge`]: that is one undo step.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::vmd::{BoneKey, CameraKey, IkKey, LightKey, MorphKey, Motion, ShadowKey, TrackIndex};

/// A key, by section and index into that section's file-order storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyRef {
    Bone(u32),
    Morph(u32),
    Camera(u32),
    Light(u32),
    Shadow(u32),
    Ik(u32),
}

/// Records replaced in place (same count): the cheap, common edit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeyChanges {
    pub bones: Vec<(u32, BoneKey)>,
    pub morphs: Vec<(u32, MorphKey)>,
    pub cameras: Vec<(u32, CameraKey)>,
    pub lights: Vec<(u32, LightKey)>,
    pub shadows: Vec<(u32, ShadowKey)>,
    pub iks: Vec<(u32, IkKey)>,
    /// New model-name field bytes.
    pub model_name: Option<Vec<u8>>,
}

impl KeyChanges {
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
            && self.morphs.is_empty()
            && self.cameras.is_empty()
            && self.lights.is_empty()
            && self.shadows.is_empty()
            && self.iks.is_empty()
            && self.model_name.is_none()
    }
}

/// An undoable change to a motion.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Replace records by index; nothing is inserted or removed.
    SetKeys(KeyChanges),
    /// Replace the whole motion (inserting/deleting keys, toolbox operations).
    /// The selection to use afterwards may be given.
    ReplaceMotion {
        motion: Box<Motion>,
        selection: Option<BTreeSet<KeyRef>>,
    },
}

/// What a panel asks the document to do.
#[derive(Debug, Clone, PartialEq)]
pub enum EditRequest {
    /// Apply as its own undo step.
    Apply { edit: Edit, label: String },
    /// Apply, merging into the open step with the same id (a drag in progress).
    Merge {
        edit: Edit,
        label: String,
        merge_id: u64,
    },
    /// Close the open merged step (drag released).
    EndMerge,
}

impl EditRequest {
    pub fn apply(edit: Edit, label: impl Into<String>) -> Self {
        EditRequest::Apply {
            edit,
            label: label.into(),
        }
    }
    pub fn merge(edit: Edit, label: impl Into<String>, merge_id: u64) -> Self {
        EditRequest::Merge {
            edit,
            label: label.into(),
            merge_id,
        }
    }
}

#[derive(Debug, Clone)]
struct Step {
    label: String,
    forward: Edit,
    inverse: Edit,
    state_after: u64,
    state_before: u64,
    /// Open merge id while a drag is going on.
    merge: Option<u64>,
}

/// Undo/redo stacks of applied edits.
#[derive(Debug, Clone, Default)]
pub struct History {
    undo: Vec<Step>,
    redo: Vec<Step>,
    next_state: u64,
}

impl History {
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
    pub fn undo_label(&self) -> Option<&str> {
        self.undo.last().map(|s| s.label.as_str())
    }
    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|s| s.label.as_str())
    }
    pub fn len(&self) -> usize {
        self.undo.len()
    }
    pub fn is_empty(&self) -> bool {
        self.undo.is_empty()
    }
    fn state(&self) -> u64 {
        self.undo.last().map_or(0, |s| s.state_after)
    }
}

/// Per-document view state that is not part of undo: selection, playhead.
#[derive(Debug, Clone, Default)]
pub struct DocView {
    pub selection: BTreeSet<KeyRef>,
    /// The key last clicked: what the key panel and curve editor show.
    pub active: Option<KeyRef>,
    /// A key the dope sheet should scroll into view (set by the inspector).
    pub reveal: Option<KeyRef>,
}

/// An open file.
#[derive(Debug, Clone)]
pub struct Document {
    /// Unique for the life of the process (tabs, background saves).
    pub id: u64,
    pub motion: Motion,
    pub index: TrackIndex,
    pub path: Option<PathBuf>,
    /// Shown in tabs and the title when there is no path (e.g. the demo).
    pub name: String,
    pub view: DocView,
    history: History,
    saved_state: u64,
    /// Bumped on every change: panels use it to refresh caches.
    pub revision: u64,
    /// What the file at `path` looked like when it was opened or last saved:
    /// a save refuses (and asks) when the file has changed since.
    pub disk_stamp: Option<crate::vmd::save::DiskStamp>,
}

fn set_at<T: Clone>(v: &mut [T], i: u32, new: T) -> Option<T> {
    v.get_mut(i as usize)
        .map(|slot| std::mem::replace(slot, new))
}

impl Document {
    pub fn new(motion: Motion, path: Option<PathBuf>, name: impl Into<String>) -> Self {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let index = TrackIndex::build(&motion);
        Document {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            motion,
            index,
            path,
            name: name.into(),
            view: DocView::default(),
            history: History::default(),
            saved_state: 0,
            revision: 0,
            disk_stamp: None,
        }
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// Differs from the last saved (or loaded) state.
    pub fn is_modified(&self) -> bool {
        self.history.state() != self.saved_state
    }

    /// Marks the current state as saved (after a successful save).
    pub fn mark_saved(&mut self) {
        self.saved_state = self.history.state();
    }

    /// The history state id: what [`Self::mark_saved_state`] takes.
    pub fn state(&self) -> u64 {
        self.history.state()
    }

    /// Marks a state captured when a background save started.
    pub fn mark_saved_state(&mut self, state: u64) {
        self.saved_state = state;
    }

    /// Title for the window/tab: file name and a modified mark.
    pub fn title(&self) -> String {
        let name = self
            .path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.name.clone());
        if self.is_modified() {
            format!("● {name}")
        } else {
            name
        }
    }

    /// Applies an edit, returning its inverse. Invalid indices are ignored.
    fn apply_raw(&mut self, edit: Edit) -> Edit {
        let m = &mut self.motion;
        let inverse = match edit {
            Edit::SetKeys(c) => {
                let mut inv = KeyChanges::default();
                let mut reindex = false;
                for (i, k) in c.bones {
                    let (f, n) = (k.frame(), k.name_key().to_vec());
                    if let Some(old) = set_at(&mut m.bones, i, k) {
                        reindex |= old.frame() != f || old.name_key() != n.as_slice();
                        inv.bones.push((i, old));
                    }
                }
                for (i, k) in c.morphs {
                    let (f, n) = (k.frame(), k.name_key().to_vec());
                    if let Some(old) = set_at(&mut m.morphs, i, k) {
                        reindex |= old.frame() != f || old.name_key() != n.as_slice();
                        inv.morphs.push((i, old));
                    }
                }
                for (i, k) in c.cameras {
                    let f = k.frame();
                    if let Some(old) = set_at(&mut m.cameras, i, k) {
                        reindex |= old.frame() != f;
                        inv.cameras.push((i, old));
                    }
                }
                for (i, k) in c.lights {
                    let f = k.frame();
                    if let Some(old) = set_at(&mut m.lights, i, k) {
                        reindex |= old.frame() != f;
                        inv.lights.push((i, old));
                    }
                }
                for (i, k) in c.shadows {
                    let f = k.frame();
                    if let Some(old) = set_at(&mut m.shadows, i, k) {
                        reindex |= old.frame() != f;
                        inv.shadows.push((i, old));
                    }
                }
                for (i, k) in c.iks {
                    let f = k.frame();
                    if let Some(old) = set_at(&mut m.iks, i, k) {
                        reindex |= old.frame() != f;
                        inv.iks.push((i, old));
                    }
                }
                if let Some(name) = c.model_name {
                    inv.model_name = Some(std::mem::replace(&mut m.model_name_field, name));
                }
                // Inverse applies in reverse order so repeated indices restore correctly.
                inv.bones.reverse();
                inv.morphs.reverse();
                inv.cameras.reverse();
                inv.lights.reverse();
                inv.shadows.reverse();
                inv.iks.reverse();
                if reindex {
                    self.index = TrackIndex::build(&self.motion);
                }
                Edit::SetKeys(inv)
            }
            Edit::ReplaceMotion { motion, selection } => {
                let old = std::mem::replace(m, *motion);
                self.index = TrackIndex::build(&self.motion);
                let old_sel = std::mem::take(&mut self.view.selection);
                self.view.selection = selection.unwrap_or_default();
                self.view.active = self.view.selection.iter().next().copied();
                Edit::ReplaceMotion {
                    motion: Box::new(old),
                    selection: Some(old_sel),
                }
            }
        };
        self.revision += 1;
        self.prune_selection();
        inverse
    }

    /// Drops selected keys that no longer exist.
    fn prune_selection(&mut self) {
        let m = &self.motion;
        let exists = |k: &KeyRef| match *k {
            KeyRef::Bone(i) => (i as usize) < m.bones.len(),
            KeyRef::Morph(i) => (i as usize) < m.morphs.len(),
            KeyRef::Camera(i) => (i as usize) < m.cameras.len(),
            KeyRef::Light(i) => (i as usize) < m.lights.len(),
            KeyRef::Shadow(i) => (i as usize) < m.shadows.len(),
            KeyRef::Ik(i) => (i as usize) < m.iks.len(),
        };
        self.view.selection.retain(exists);
        if let Some(a) = self.view.active
            && !exists(&a)
        {
            self.view.active = None;
        }
    }

    /// Applies a request from a panel.
    pub fn request(&mut self, req: EditRequest) {
        match req {
            EditRequest::Apply { edit, label } => self.push(edit, label, None),
            EditRequest::Merge {
                edit,
                label,
                merge_id,
            } => self.push(edit, label, Some(merge_id)),
            EditRequest::EndMerge => {
                if let Some(top) = self.history.undo.last_mut() {
                    top.merge = None;
                }
            }
        }
    }

    /// Applies `edit` as a new undo step (or merges it into the open one).
    pub fn apply(&mut self, edit: Edit, label: impl Into<String>) {
        self.push(edit, label.into(), None)
    }

    fn push(&mut self, edit: Edit, label: String, merge: Option<u64>) {
        if let Edit::SetKeys(c) = &edit
            && c.is_empty()
        {
            return;
        }
        let inverse = self.apply_raw(edit.clone());
        self.history.redo.clear();
        if let Some(id) = merge
            && let Some(top) = self.history.undo.last_mut()
            && top.merge == Some(id)
        {
            // The step's inverse must restore the state before the drag:
            // combine the old inverse (applied last) with this one.
            top.forward = compose(top.forward.clone(), edit);
            top.inverse = compose(inverse, top.inverse.clone());
            // The step is named by where the drag ended, not its first move.
            top.label = label;
            return;
        }
        self.history.next_state += 1;
        let state_before = self.history.state();
        let state_after = self.history.next_state;
        self.history.undo.push(Step {
            label,
            forward: edit,
            inverse,
            state_after,
            state_before,
            merge,
        });
    }

    pub fn undo(&mut self) -> bool {
        let Some(mut step) = self.history.undo.pop() else {
            return false;
        };
        step.merge = None;
        let _ = step.state_before;
        self.apply_raw(step.inverse.clone());
        self.history.redo.push(step);
        true
    }

    pub fn redo(&mut self) -> bool {
        let Some(step) = self.history.redo.pop() else {
            return false;
        };
        self.apply_raw(step.forward.clone());
        self.history.undo.push(step);
        true
    }
}

/// `first` then `second` as one edit.
fn compose(first: Edit, second: Edit) -> Edit {
    match (first, second) {
        (Edit::SetKeys(mut a), Edit::SetKeys(b)) => {
            a.bones.extend(b.bones);
            a.morphs.extend(b.morphs);
            a.cameras.extend(b.cameras);
            a.lights.extend(b.lights);
            a.shadows.extend(b.shadows);
            a.iks.extend(b.iks);
            if b.model_name.is_some() {
                a.model_name = b.model_name;
            }
            dedup_last(&mut a.bones);
            dedup_last(&mut a.morphs);
            dedup_last(&mut a.cameras);
            dedup_last(&mut a.lights);
            dedup_last(&mut a.shadows);
            dedup_last(&mut a.iks);
            Edit::SetKeys(a)
        }
        // Anything involving a whole-motion replace: the later state wins
        // going forward; going back, `first` is the inverse applied last.
        (_, second @ Edit::ReplaceMotion { .. }) => second,
        (first @ Edit::ReplaceMotion { .. }, Edit::SetKeys(_)) => first,
    }
}

/// Keeps only the last change per index (order of last occurrence).
fn dedup_last<T>(v: &mut Vec<(u32, T)>) {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<(u32, T)> = Vec::with_capacity(v.len());
    for (i, k) in v.drain(..).rev() {
        if seen.insert(i) {
            out.push((i, k));
        }
    }
    out.reverse();
    *v = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmd::NameEncoding;

    fn doc() -> Document {
        let mut m = Motion::new_v2();
        for f in [0, 10, 20] {
            m.bones.push(
                BoneKey::new(
                    "センター",
                    NameEncoding::ShiftJis,
                    f,
                    [0.0; 3],
                    [0.0, 0.0, 0.0, 1.0],
                )
                .unwrap(),
            );
        }
        Document::new(m, None, "test")
    }

    fn moved(d: &Document, i: u32, frame: u32) -> Edit {
        let mut k = d.motion.bones[i as usize].clone();
        k.set_frame(frame);
        Edit::SetKeys(KeyChanges {
            bones: vec![(i, k)],
            ..Default::default()
        })
    }

    #[test]
    fn a_drag_is_one_undo_step_and_undo_restores_bytes() {
        let mut d = doc();
        let original = crate::vmd::write(&d.motion).unwrap();
        for f in [11, 12, 13] {
            let e = moved(&d, 1, f);
            d.request(EditRequest::merge(e, "move", 7));
        }
        d.request(EditRequest::EndMerge);
        assert_eq!(d.history().len(), 1);
        assert_eq!(d.motion.bones[1].frame(), 13);
        assert!(d.is_modified());
        assert!(d.undo());
        assert_eq!(crate::vmd::write(&d.motion).unwrap(), original);
        assert!(!d.is_modified());
        assert!(d.redo());
        assert_eq!(d.motion.bones[1].frame(), 13);
    }

    #[test]
    fn modified_mark_follows_the_save_point() {
        let mut d = doc();
        d.apply(moved(&d, 0, 1), "move");
        d.mark_saved();
        assert!(!d.is_modified());
        d.undo();
        assert!(d.is_modified());
        d.redo();
        assert!(!d.is_modified());
        // A new branch after undo is a different state.
        d.undo();
        d.apply(moved(&d, 0, 2), "move");
        assert!(d.is_modified());
    }
}
