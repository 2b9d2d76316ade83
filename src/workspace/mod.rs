//! The workspace: what the user works on, with no GUI type in it (built and
//! tested with `cargo test --no-default-features`, like the pure layers).
//!
//! It holds the open [`Document`]s and their histories, the scene
//! arrangement (actors, camera, light, song slot; keyed by document id),
//! the scene-wide undo order, the [`Transport`], the selection, and the
//! settings that go with them (the undo budget). It answers the facts every
//! panel needs once: [`Workspace::scene_end`], [`Workspace::wearer`],
//! [`Workspace::offset_of`].
//!
//! **One way in.** Every change — a key edit, a scene action, a selection
//! change, a transport command, undo and redo — is an [`Event`] given to
//! [`Workspace::apply`], which says what changed ([`Changes`]). A document's
//! mutators are private to this module and the workspace hands out only
//! `&Document`, so the compiler refuses any other way to change one:
//!
//! ```compile_fail
//! # use vmd_studio::workspace::Workspace;
//! let ws = Workspace::new();
//! // A document's undo is not public: only `Event::Undo` reaches it.
//! ws.docs()[0].undo();
//! ```
//! ```compile_fail
//! # use vmd_studio::workspace::Document;
//! // Documents are made by `Event::Open`, not by hand.
//! let d = Document::new(vmd_studio::vmd::Motion::new_v2(), None, "x");
//! ```
//! ```compile_fail
//! # use vmd_studio::workspace::{Workspace, Edit, EditRequest};
//! let mut ws = Workspace::new();
//! // No `&mut Document` is handed out either.
//! let d: &mut vmd_studio::workspace::Document = ws.doc(1).unwrap();
//! ```
//!
//! **One undo order.** Each user action is one undo step, whatever it
//! touched: edits in several documents (a move across timeline sections)
//! and scene actions (add or remove an actor, change an offset) alike. The
//! documents keep their own steps (their memory budget, their modified
//! mark); the workspace keeps the order of the groups and the scene's own
//! steps. Selection and transport changes are not undo steps.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::scene::Scene;

mod apply;
pub mod document;
mod event;
pub mod files;
pub mod placing;
mod query;
pub mod transport;
mod undo;

pub use document::{
    DEFAULT_UNDO_BUDGET, DocView, Document, Edit, EditRequest, History, KeyChanges, KeyRef,
    Selection,
};
pub use event::{Changes, Event, NewDocument, SceneEvent};
pub use placing::Intent;
pub use transport::{Transport, TransportEvent};

use undo::{Entry, SceneStep};

/// A document's id: unique for the life of the process.
pub type DocId = u64;

/// A fresh id for merging a drag's edits into one undo step (every panel
/// takes its ids here, so no two drags share one).
pub fn merge_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The open documents, the scene, the undo order, the transport and the
/// selection. See the module documentation.
#[derive(Debug)]
pub struct Workspace {
    docs: Vec<Document>,
    active: usize,
    scene: Scene<DocId>,
    selected_actor: Option<usize>,
    /// The arrangement changed since it was last saved or opened.
    scene_modified: bool,
    transport: Transport,
    /// The song's length in frames, once decoded.
    song_frames: Option<f64>,
    /// Groups of undo steps, oldest first: one group per user action.
    undo_order: Vec<Vec<Entry>>,
    redo_order: Vec<Vec<Entry>>,
    scene_undo: Vec<SceneStep>,
    scene_redo: Vec<SceneStep>,
    undo_budget: usize,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            docs: Vec::new(),
            active: 0,
            scene: Scene::default(),
            selected_actor: None,
            scene_modified: false,
            transport: Transport::default(),
            song_frames: None,
            undo_order: Vec::new(),
            redo_order: Vec::new(),
            scene_undo: Vec::new(),
            scene_redo: Vec::new(),
            undo_budget: DEFAULT_UNDO_BUDGET,
        }
    }
}

impl Workspace {
    pub fn new() -> Self {
        Workspace::default()
    }
}
