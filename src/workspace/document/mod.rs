//! An open file: the motion, its sorted index, its path and its undo history.
//!
//! The document is the only owner that mutates a motion, and only the
//! [`crate::workspace::Workspace`] reaches its mutators (they are private to
//! `crate::workspace`; outside it a document is only ever seen as
//! `&Document`). Panels read it and return [`EditRequest`]s inside
//! [`crate::workspace::Event`]s; the workspace applies them, recording each edit's
//! inverse. A drag sends many requests with the same merge id (from
//! [`crate::workspace::merge_id`]) and then [`EditRequest::EndMerge`]: one undo step.
//!
//! Undo memory: a step keeps only what the motion does not hold now — the
//! replaced records of a key edit, or a [`MotionDiff`](crate::vmd::diff::MotionDiff) (records changed,
//! removed and inserted by index) for an edit that replaced the whole
//! motion. Undo and redo swap those records with the motion's, never
//! cloning it. The history is capped by a memory budget
//! ([`DEFAULT_UNDO_BUDGET`]; the workspace's setting): past it the oldest
//! steps are dropped, with a note for the user.

mod edit;
mod history;
mod selection;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use crate::vmd::{EvalCache, Motion, MotionRef, TrackIndex};

pub use edit::{Edit, EditRequest};
pub use history::History;
pub use selection::{DocView, Selection};

/// The default undo memory budget per document: 256 MiB.
pub const DEFAULT_UNDO_BUDGET: usize = 256 * 1024 * 1024;

pub use crate::vmd::KeyRef;

pub use crate::vmd::key_edit::KeyChanges;

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

    /// A document that never joins a workspace: a tool's result shown in
    /// place of an open file before it is applied (Tools ▸ Size motion to
    /// model… previews the sized motion on the actor). Its id is fresh, so
    /// caches keyed by (id, revision) take it for a new motion; nothing
    /// can edit it (edits aimed at its id find no document and are
    /// dropped).
    pub fn preview(motion: Motion, name: impl Into<String>) -> Self {
        Document::new(motion, None, name)
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

    /// Differs from the last saved (or loaded) state.
    pub fn is_modified(&self) -> bool {
        self.history.state() != self.saved_state
    }

    /// Marks the current state as saved (after a successful save).
    pub(in crate::workspace) fn mark_saved(&mut self) {
        self.saved_state = self.history.state();
    }

    /// The history state id: what a save records as saved ([`crate::workspace::Event::Saved`]).
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
}
