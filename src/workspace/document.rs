//! An open file: the motion, its sorted index, its path and its undo history.
//!
//! The document is the only owner that mutates a motion, and only the
//! [`super::Workspace`] reaches its mutators (they are private to
//! `crate::workspace`; outside it a document is only ever seen as
//! `&Document`). Panels read it and return [`EditRequest`]s inside
//! [`super::Event`]s; the workspace applies them, recording each edit's
//! inverse. A drag sends many requests with the same merge id (from
//! [`super::merge_id`]) and then [`EditRequest::EndMerge`]: one undo step.
//!
//! Undo memory: a step keeps only what the motion does not hold now — the
//! replaced records of a key edit, or a [`MotionDiff`] (records changed,
//! removed and inserted by index) for an edit that replaced the whole
//! motion. Undo and redo swap those records with the motion's, never
//! cloning it. The history is capped by a memory budget
//! ([`DEFAULT_UNDO_BUDGET`]; the workspace's setting): past it the oldest
//! steps are dropped, with a note for the user.

use std::collections::{BTreeSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use crate::vmd::diff::MotionDiff;
use crate::vmd::{EvalCache, Motion, MotionRef, TrackIndex};

/// The default undo memory budget per document: 256 MiB.
pub const DEFAULT_UNDO_BUDGET: usize = 256 * 1024 * 1024;

pub use crate::vmd::KeyRef;

pub use crate::vmd::key_edit::KeyChanges;

/// An undoable change to a motion.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Replace records by index; nothing is inserted or removed.
    SetKeys(KeyChanges),
    /// Replace the whole motion (inserting/deleting keys, toolbox operations).
    /// The selection to use afterwards may be given. Undo keeps only the
    /// difference (an [`Edit::Diff`]).
    ReplaceMotion {
        motion: Box<Motion>,
        selection: Option<BTreeSet<KeyRef>>,
    },
    /// A stored difference: applying it moves the motion to the diff's other
    /// state (what undo and redo of a [`Edit::ReplaceMotion`] run).
    Diff {
        diff: Box<MotionDiff>,
        selection: Option<BTreeSet<KeyRef>>,
    },
}

impl Edit {
    /// Memory the edit holds, in bytes (what the undo budget counts).
    pub fn bytes(&self) -> usize {
        fn list<T>(v: &[(u32, T)]) -> usize {
            v.len() * (4 + std::mem::size_of::<T>())
        }
        let sel = |s: &Option<BTreeSet<KeyRef>>| {
            s.as_ref()
                .map_or(0, |s| s.len() * std::mem::size_of::<KeyRef>())
        };
        std::mem::size_of::<Edit>()
            + match self {
                Edit::SetKeys(c) => {
                    list(&c.bones)
                        + list(&c.morphs)
                        + list(&c.cameras)
                        + list(&c.lights)
                        + list(&c.shadows)
                        + c.iks
                            .iter()
                            .map(|(_, k)| 4 + 32 + k.raw.len())
                            .sum::<usize>()
                        + c.model_name.as_ref().map_or(0, Vec::len)
                }
                Edit::ReplaceMotion { motion, selection } => motion.byte_len() + sel(selection),
                Edit::Diff { diff, selection } => diff.bytes() + sel(selection),
            }
    }
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
    /// On the undo stack: the inverse (applying it undoes the step). On the
    /// redo stack: the edit that redoes it. Undo/redo swap it, never clone.
    edit: Edit,
    /// [`Edit::bytes`] of `edit`.
    bytes: usize,
    state_after: u64,
    /// Open merge id while a drag is going on.
    merge: Option<u64>,
}

/// Undo/redo stacks of applied edits, capped by a memory budget.
#[derive(Debug, Clone)]
pub struct History {
    /// Oldest first, so the oldest steps can be dropped.
    undo: VecDeque<Step>,
    redo: Vec<Step>,
    next_state: u64,
    /// The state with an empty undo stack (0, or the state after the newest
    /// dropped step).
    base_state: u64,
    /// Bytes held by all steps.
    bytes: usize,
    budget: usize,
    /// Steps dropped to stay within the budget, since the last note.
    dropped: usize,
    note: Option<String>,
}

impl Default for History {
    fn default() -> Self {
        History {
            undo: VecDeque::new(),
            redo: Vec::new(),
            next_state: 0,
            base_state: 0,
            bytes: 0,
            budget: DEFAULT_UNDO_BUDGET,
            dropped: 0,
            note: None,
        }
    }
}

impl History {
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
    pub fn undo_label(&self) -> Option<&str> {
        self.undo.back().map(|s| s.label.as_str())
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
        self.undo.back().map_or(self.base_state, |s| s.state_after)
    }
    /// Bytes the undo and redo steps hold.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    /// The memory budget, in bytes.
    pub fn budget(&self) -> usize {
        self.budget
    }
    /// Steps dropped so far to stay within the budget.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    fn clear_redo(&mut self) {
        for s in self.redo.drain(..) {
            self.bytes -= s.bytes;
        }
    }

    /// Drops the oldest undo steps until the history fits its budget (the
    /// newest step always stays, so the last edit can be undone).
    fn enforce_budget(&mut self) {
        let mut n = 0;
        while self.bytes > self.budget && self.undo.len() > 1 {
            if let Some(s) = self.undo.pop_front() {
                self.bytes -= s.bytes;
                self.base_state = s.state_after;
                n += 1;
            }
        }
        if n > 0 {
            self.dropped += n;
            let plural = if n == 1 { "" } else { "s" };
            self.note = Some(format!(
                "Undo history reached its {} MB budget: the oldest {n} step{plural} can no longer be undone",
                self.budget / (1024 * 1024)
            ));
        }
    }
}

/// Selected keys of one document. Cloning is cheap (the set is shared
/// until one copy changes), so a panel can work on its own copy every
/// frame and the shell hand it back in an [`super::Event::Select`] only
/// when it differs.
#[derive(Debug, Clone, Default)]
pub struct Selection(Arc<BTreeSet<KeyRef>>);

impl Selection {
    fn set(&mut self) -> &mut BTreeSet<KeyRef> {
        Arc::make_mut(&mut self.0)
    }
    pub fn insert(&mut self, k: KeyRef) -> bool {
        self.set().insert(k)
    }
    pub fn remove(&mut self, k: &KeyRef) -> bool {
        self.set().remove(k)
    }
    pub fn clear(&mut self) {
        if !self.0.is_empty() {
            self.0 = Arc::default();
        }
    }
    pub fn retain(&mut self, f: impl FnMut(&KeyRef) -> bool) {
        self.set().retain(f)
    }
    /// The keys as a plain set.
    pub fn to_set(&self) -> BTreeSet<KeyRef> {
        (*self.0).clone()
    }
}

impl std::ops::Deref for Selection {
    type Target = BTreeSet<KeyRef>;
    fn deref(&self) -> &BTreeSet<KeyRef> {
        &self.0
    }
}

impl PartialEq for Selection {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl From<BTreeSet<KeyRef>> for Selection {
    fn from(s: BTreeSet<KeyRef>) -> Self {
        Selection(Arc::new(s))
    }
}

impl FromIterator<KeyRef> for Selection {
    fn from_iter<I: IntoIterator<Item = KeyRef>>(it: I) -> Self {
        Selection(Arc::new(it.into_iter().collect()))
    }
}

impl Extend<KeyRef> for Selection {
    fn extend<I: IntoIterator<Item = KeyRef>>(&mut self, it: I) {
        self.set().extend(it)
    }
}

impl<'a> IntoIterator for &'a Selection {
    type Item = &'a KeyRef;
    type IntoIter = std::collections::btree_set::Iter<'a, KeyRef>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Per-document view state that is not part of undo: the selection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocView {
    pub selection: Selection,
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
    /// The motion decoded for evaluation: built on load, updated in place
    /// (only the tracks an edit touched) on every edit, undo and redo, so it
    /// always equals `EvalCache::build(&motion, &index)`. Every pose the
    /// app shows reads it (through [`Document::source`]).
    pub cache: EvalCache,
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
    pub(in crate::workspace) fn new(
        motion: Motion,
        path: Option<PathBuf>,
        name: impl Into<String>,
    ) -> Self {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let index = TrackIndex::build(&motion);
        let cache = EvalCache::build(&motion, &index);
        Document {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            motion,
            index,
            cache,
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

    /// The motion, its index and its evaluation cache: what every pose of
    /// this document is computed from.
    pub fn source(&self) -> MotionRef<'_> {
        MotionRef {
            motion: &self.motion,
            index: &self.index,
            cache: &self.cache,
        }
    }

    /// Sets this document's undo memory budget (bytes); drops the oldest
    /// steps if the history is already over it.
    pub(in crate::workspace) fn set_undo_budget(&mut self, bytes: usize) {
        self.history.budget = bytes;
        self.history.enforce_budget();
    }

    /// A note for the user about the history (oldest steps dropped), once.
    pub(in crate::workspace) fn take_history_note(&mut self) -> Option<String> {
        self.history.note.take()
    }

    /// Differs from the last saved (or loaded) state.
    pub fn is_modified(&self) -> bool {
        self.history.state() != self.saved_state
    }

    /// Marks the current state as saved (after a successful save).
    pub(in crate::workspace) fn mark_saved(&mut self) {
        self.saved_state = self.history.state();
    }

    /// The history state id: what a save records as saved ([`super::Event::Saved`]).
    pub fn state(&self) -> u64 {
        self.history.state()
    }

    /// Marks a state captured when a background save started.
    pub(in crate::workspace) fn mark_saved_state(&mut self, state: u64) {
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
                let mut touched = Touched::default();
                for (i, k) in c.bones {
                    let (f, n) = (k.frame(), k.name_key().to_vec());
                    if let Some(old) = set_at(&mut m.bones, i, k) {
                        reindex |= old.frame() != f || old.name_key() != n.as_slice();
                        touched.bones.insert(old.name_key().to_vec());
                        touched.bones.insert(n);
                        inv.bones.push((i, old));
                    }
                }
                for (i, k) in c.morphs {
                    let (f, n) = (k.frame(), k.name_key().to_vec());
                    if let Some(old) = set_at(&mut m.morphs, i, k) {
                        reindex |= old.frame() != f || old.name_key() != n.as_slice();
                        touched.morphs.insert(old.name_key().to_vec());
                        touched.morphs.insert(n);
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
                touched.update(&mut self.cache, &self.motion, &self.index);
                Edit::SetKeys(inv)
            }
            Edit::ReplaceMotion { motion, selection } => {
                let diff = MotionDiff::replace(m, *motion);
                self.index.update(&self.motion, &diff.index_change());
                Touched::by(&diff, &self.motion).update(&mut self.cache, &self.motion, &self.index);
                let selection = self.swap_selection(selection);
                Edit::Diff {
                    diff: Box::new(diff),
                    selection,
                }
            }
            Edit::Diff {
                mut diff,
                selection,
            } => {
                diff.toggle(m);
                // Only what the step moved is re-placed in the index (an undo
                // of a Delete on a 1M-key dance: ~4 ms instead of a ~35 ms
                // rebuild; see benches/undo.rs).
                self.index.update(&self.motion, &diff.index_change());
                // Likewise the cache: only the tracks the step touched are
                // decoded again.
                Touched::by(&diff, &self.motion).update(&mut self.cache, &self.motion, &self.index);
                let selection = self.swap_selection(selection);
                Edit::Diff { diff, selection }
            }
        };
        self.revision += 1;
        self.prune_selection();
        inverse
    }

    /// After a whole-motion change (the index already updated): sets the
    /// given selection and returns the old one.
    fn swap_selection(&mut self, selection: Option<BTreeSet<KeyRef>>) -> Option<BTreeSet<KeyRef>> {
        let old_sel = std::mem::take(&mut self.view.selection).to_set();
        self.view.selection = selection.unwrap_or_default().into();
        self.view.active = self.view.selection.iter().next().copied();
        Some(old_sel)
    }

    /// Drops selected keys that no longer exist.
    pub(in crate::workspace) fn prune_selection(&mut self) {
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
    pub(in crate::workspace) fn request(&mut self, req: EditRequest) {
        match req {
            EditRequest::Apply { edit, label } => self.push(edit, label, None),
            EditRequest::Merge {
                edit,
                label,
                merge_id,
            } => self.push(edit, label, Some(merge_id)),
            EditRequest::EndMerge => {
                if let Some(top) = self.history.undo.back_mut() {
                    top.merge = None;
                }
            }
        }
    }

    /// Applies `edit` as a new undo step (or merges it into the open one).
    #[cfg(test)]
    fn apply(&mut self, edit: Edit, label: impl Into<String>) {
        self.push(edit, label.into(), None)
    }

    fn push(&mut self, edit: Edit, label: String, merge: Option<u64>) {
        if let Edit::SetKeys(c) = &edit
            && c.is_empty()
        {
            return;
        }
        let inverse = self.apply_raw(edit);
        self.history.clear_redo();
        let h = &mut self.history;
        let mergeable = merge.is_some()
            && matches!(inverse, Edit::SetKeys(_))
            && h.undo
                .back()
                .is_some_and(|t| t.merge == merge && matches!(t.edit, Edit::SetKeys(_)));
        if mergeable && let Some(top) = h.undo.back_mut() {
            // The step's inverse must restore the state before the drag:
            // this edit's inverse first, then the older one.
            let older = std::mem::replace(&mut top.edit, Edit::SetKeys(KeyChanges::default()));
            if let (Edit::SetKeys(newer), Edit::SetKeys(older)) = (inverse, older) {
                top.edit = Edit::SetKeys(compose(newer, older));
            }
            h.bytes -= top.bytes;
            top.bytes = top.edit.bytes();
            h.bytes += top.bytes;
            // The step is named by where the drag ended, not its first move.
            top.label = label;
            h.enforce_budget();
            return;
        }
        h.next_state += 1;
        let bytes = inverse.bytes();
        h.bytes += bytes;
        h.undo.push_back(Step {
            label,
            edit: inverse,
            bytes,
            state_after: h.next_state,
            merge,
        });
        h.enforce_budget();
    }

    /// Applies a step's stored edit and keeps the edit that goes back.
    fn flip(&mut self, step: &mut Step) {
        let edit = std::mem::replace(&mut step.edit, Edit::SetKeys(KeyChanges::default()));
        step.edit = self.apply_raw(edit);
        self.history.bytes -= step.bytes;
        step.bytes = step.edit.bytes();
        self.history.bytes += step.bytes;
    }

    pub(in crate::workspace) fn undo(&mut self) -> bool {
        let Some(mut step) = self.history.undo.pop_back() else {
            return false;
        };
        step.merge = None;
        self.flip(&mut step);
        self.history.redo.push(step);
        true
    }

    pub(in crate::workspace) fn redo(&mut self) -> bool {
        let Some(mut step) = self.history.redo.pop() else {
            return false;
        };
        self.flip(&mut step);
        self.history.undo.push_back(step);
        self.history.enforce_budget();
        true
    }
}

/// The bone and morph tracks (name bytes) an edit touched: what the
/// evaluation cache decodes again.
#[derive(Debug, Default)]
struct Touched {
    bones: BTreeSet<Vec<u8>>,
    morphs: BTreeSet<Vec<u8>>,
}

impl Touched {
    /// The tracks of every record `diff`'s last move removed, inserted or
    /// changed (old and new names), with `m` in the state after that move.
    fn by(diff: &MotionDiff, m: &Motion) -> Touched {
        let ic = diff.index_change();
        let mut t = Touched::default();
        let now = |at: &[u32], changed: &[u32], name: &dyn Fn(usize) -> Option<Vec<u8>>| {
            at.iter()
                .chain(changed)
                .filter_map(|&i| name(i as usize))
                .collect::<Vec<_>>()
        };
        t.bones
            .extend(now(ic.bones.inserted, &ic.bones.changed, &|i| {
                m.bones.get(i).map(|k| k.name_key().to_vec())
            }));
        t.morphs
            .extend(now(ic.morphs.inserted, &ic.morphs.changed, &|i| {
                m.morphs.get(i).map(|k| k.name_key().to_vec())
            }));
        t.bones
            .extend(diff.held_bones().map(|k| k.name_key().to_vec()));
        t.morphs
            .extend(diff.held_morphs().map(|k| k.name_key().to_vec()));
        t
    }

    /// Brings `cache` in line with `m` and its up-to-date `index`.
    fn update(&self, cache: &mut EvalCache, m: &Motion, index: &TrackIndex) {
        if self.bones.is_empty() && self.morphs.is_empty() {
            return;
        }
        let bones: Vec<&[u8]> = self.bones.iter().map(Vec::as_slice).collect();
        let morphs: Vec<&[u8]> = self.morphs.iter().map(Vec::as_slice).collect();
        cache.update(m, index, &bones, &morphs);
    }
}

/// `first` then `second` as one change.
fn compose(mut a: KeyChanges, b: KeyChanges) -> KeyChanges {
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
    a
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
    use crate::vmd::{BoneKey, NameEncoding};

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
        let mut k = d.motion.bones[i as usize];
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

    /// A bigger motion: 200 keys of one bone.
    fn long_doc() -> Document {
        let mut m = Motion::new_v2();
        for f in 0..200 {
            m.bones.push(
                BoneKey::new(
                    "センター",
                    NameEncoding::ShiftJis,
                    f,
                    [f as f32; 3],
                    [0.0, 0.0, 0.0, 1.0],
                )
                .unwrap(),
            );
        }
        Document::new(m, None, "long")
    }

    /// The dope sheet's Delete: a new motion without the keys at `every`-th index.
    fn delete_every(d: &Document, every: usize, offset: usize) -> Edit {
        let mut m = d.motion.clone();
        let mut i = 0;
        m.bones.retain(|_| {
            i += 1;
            (i - 1) % every != offset
        });
        Edit::ReplaceMotion {
            motion: Box::new(m),
            selection: None,
        }
    }

    #[test]
    fn a_delete_step_holds_the_removed_keys_not_a_copy_of_the_motion() {
        let mut d = long_doc();
        let original = crate::vmd::write(&d.motion).unwrap();
        d.apply(delete_every(&d, 20, 3), "delete");
        assert_eq!(d.motion.bones.len(), 190);
        // 10 removed records (111 bytes each, spec) plus their indices and
        // bookkeeping; a whole copy would be 200 × 111 = 22,200 bytes.
        let held = d.history().bytes();
        assert!((10 * 111..4_000).contains(&held), "{held}");
        let after = crate::vmd::write(&d.motion).unwrap();
        assert!(d.undo());
        assert_eq!(crate::vmd::write(&d.motion).unwrap(), original);
        assert!(d.redo());
        assert_eq!(crate::vmd::write(&d.motion).unwrap(), after);
        assert!(d.undo());
        assert_eq!(crate::vmd::write(&d.motion).unwrap(), original);
        assert!(!d.is_modified());
    }

    #[test]
    fn over_budget_the_oldest_steps_go_and_the_modified_mark_stays_true() {
        let mut d = long_doc();
        let original = crate::vmd::write(&d.motion).unwrap();
        // Each step below holds about 10 × (111 + 4) bytes: a 3,000-byte
        // budget keeps two of them.
        d.set_undo_budget(3_000);
        let mut states = vec![original.clone()];
        for s in 0..5 {
            d.apply(delete_every(&d, 19, s), "delete");
            states.push(crate::vmd::write(&d.motion).unwrap());
        }
        assert!(d.history().bytes() <= 3_000, "{}", d.history().bytes());
        let kept = d.history().len();
        assert!((1..5).contains(&kept), "{kept}");
        assert_eq!(d.history().dropped(), 5 - kept);
        let note = d.take_history_note().expect("a note");
        assert!(note.contains("oldest"), "{note}");
        assert!(d.take_history_note().is_none(), "said once");
        // Undo what is left: each step gives back its exact earlier state.
        for i in (5 - kept..5).rev() {
            assert!(d.undo());
            assert_eq!(crate::vmd::write(&d.motion).unwrap(), states[i]);
        }
        assert!(!d.undo(), "the dropped steps are gone");
        // Not the file's state: still modified (the mark must not lie).
        assert!(d.is_modified());
        assert_ne!(crate::vmd::write(&d.motion).unwrap(), original);
    }

    /// The cache's values against the independent reference evaluator
    /// (`evaluate::bone_at` / `morph_at` on the raw records) at sampled
    /// frames, and against a cache built from scratch.
    fn assert_cache_fresh(d: &Document, step: &str) {
        use crate::vmd::evaluate;
        assert_eq!(d.cache.bones().len(), d.index.bones.len(), "{step}");
        assert_eq!(d.cache.morphs().len(), d.index.morphs.len(), "{step}");
        let frames: Vec<f64> = (-2..=130).map(|k| f64::from(k) * 0.37).collect();
        for (ti, t) in d.index.bones.iter().enumerate() {
            for &f in &frames {
                let (got, want) = (d.cache.bone_at(ti, f), evaluate::bone_at(&d.motion, t, f));
                for a in 0..3 {
                    let (g, w) = (got.position[a], want.position[a]);
                    assert!(
                        (g - w).abs() <= 1e-4,
                        "{step}: bone track {ti} frame {f} axis {a}: cache {g}, records {w}"
                    );
                }
                // q and −q are the same rotation.
                let dot: f32 = (0..4).map(|c| got.rotation[c] * want.rotation[c]).sum();
                assert!(
                    dot.abs() >= 1.0 - 1e-5,
                    "{step}: bone track {ti} frame {f}: {:?} vs {:?}",
                    got.rotation,
                    want.rotation
                );
            }
        }
        for (ti, t) in d.index.morphs.iter().enumerate() {
            for &f in &frames {
                let (g, w) = (d.cache.morph_at(ti, f), evaluate::morph_at(&d.motion, t, f));
                assert!(
                    (g - w).abs() <= 1e-6,
                    "{step}: morph {ti} frame {f}: {g} vs {w}"
                );
            }
        }
        assert!(d.cache.agrees_with(&d.motion, &d.index), "{step}");
    }

    #[test]
    fn the_evaluation_cache_is_never_stale_after_edits_undo_and_redo() {
        use crate::vmd::MorphKey;
        let names = ["センター", "左腕", "右ひじ", "頭"];
        let morphs = ["あ", "まばたき"];
        let mut m = Motion::new_v2();
        for (b, name) in names.iter().take(3).enumerate() {
            for f in [0u32, 10, 25] {
                let v = (b * 10) as f32 + f as f32 * 0.1;
                let q = glam::Quat::from_rotation_y(v * 0.05).to_array();
                m.bones
                    .push(BoneKey::new(name, NameEncoding::ShiftJis, f, [v, -v, 0.5], q).unwrap());
            }
        }
        for f in [5u32, 15] {
            m.morphs
                .push(MorphKey::new(morphs[0], NameEncoding::ShiftJis, f, 0.25).unwrap());
        }
        let mut d = Document::new(m, None, "cache");
        assert_cache_fresh(&d, "load");
        // A fixed pseudo-random sequence (LCG) of every kind of edit.
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as usize) % n.max(1)
        };
        for step in 0..160 {
            let kind = next(8);
            let nb = d.motion.bones.len();
            let label = format!("step {step} kind {kind}");
            match kind {
                // Move a key to another frame (the index is rebuilt).
                0 if nb > 0 => {
                    let i = next(nb) as u32;
                    d.apply(moved(&d, i, next(40) as u32), &label);
                }
                // New values (a drag: merged steps).
                1 if nb > 0 => {
                    let i = next(nb);
                    let mut k = d.motion.bones[i];
                    k.set_position([next(100) as f32 * 0.1, 1.0, -2.0]);
                    k.set_rotation(glam::Quat::from_rotation_x(next(60) as f32 * 0.05).to_array());
                    let e = Edit::SetKeys(KeyChanges {
                        bones: vec![(i as u32, k)],
                        ..Default::default()
                    });
                    d.request(EditRequest::merge(e, &label, 9));
                    if next(2) == 0 {
                        d.request(EditRequest::EndMerge);
                    }
                }
                // Rename a key onto another (or a new) track.
                2 if nb > 0 => {
                    let i = next(nb);
                    let mut k = d.motion.bones[i];
                    k.set_name(names[next(names.len())], NameEncoding::ShiftJis)
                        .unwrap();
                    d.apply(
                        Edit::SetKeys(KeyChanges {
                            bones: vec![(i as u32, k)],
                            ..Default::default()
                        }),
                        &label,
                    );
                }
                // Insert keys (a whole-motion edit, stored as a diff).
                3 => {
                    let mut new = d.motion.clone();
                    let at = next(new.bones.len() + 1);
                    let name = names[next(names.len())];
                    let q = glam::Quat::from_rotation_z(next(30) as f32 * 0.1).to_array();
                    let key = BoneKey::new(
                        name,
                        NameEncoding::ShiftJis,
                        next(50) as u32,
                        [1.0, 2.0, 3.0],
                        q,
                    )
                    .unwrap();
                    new.bones.insert(at, key);
                    let mk = MorphKey::new(
                        morphs[next(2)],
                        NameEncoding::ShiftJis,
                        next(50) as u32,
                        next(10) as f32 * 0.1,
                    )
                    .unwrap();
                    let at = next(new.morphs.len() + 1);
                    new.morphs.insert(at, mk);
                    d.apply(
                        Edit::ReplaceMotion {
                            motion: Box::new(new),
                            selection: None,
                        },
                        &label,
                    );
                }
                // Delete keys.
                4 if nb > 1 => {
                    let e = delete_every(&d, 2 + next(4), next(2));
                    d.apply(e, &label);
                }
                // Change a morph weight in place.
                5 if !d.motion.morphs.is_empty() => {
                    let i = next(d.motion.morphs.len());
                    let mut k = d.motion.morphs[i];
                    k.set_weight(next(10) as f32 * 0.1);
                    d.apply(
                        Edit::SetKeys(KeyChanges {
                            morphs: vec![(i as u32, k)],
                            ..Default::default()
                        }),
                        &label,
                    );
                }
                6 => {
                    d.undo();
                }
                _ => {
                    d.redo();
                }
            }
            assert_cache_fresh(&d, &label);
        }
        // Everything undone: the cache is the loaded motion's again.
        while d.undo() {}
        assert_cache_fresh(&d, "all undone");
        while d.redo() {}
        assert_cache_fresh(&d, "all redone");
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
