//! The undo history: steps, undo/redo, merging a drag into one step, and
//! the memory budget.

use std::collections::VecDeque;

use super::{DEFAULT_UNDO_BUDGET, Document, Edit, EditRequest, KeyChanges};

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
    pub(super) fn state(&self) -> u64 {
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

impl Document {
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
    pub(super) fn apply(&mut self, edit: Edit, label: impl Into<String>) {
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
