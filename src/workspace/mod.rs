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

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::scene::{Actor, ModelRef, MotionRole, Placed, Scene, Song};
use crate::vmd::Motion;
use crate::vmd::save::DiskStamp;

pub mod document;
pub mod files;
pub mod placing;
pub mod transport;

pub use document::{
    DEFAULT_UNDO_BUDGET, DocView, Document, Edit, EditRequest, History, KeyChanges, KeyRef,
    Selection,
};
pub use placing::Intent;
pub use transport::{Transport, TransportEvent};

/// A document's id: unique for the life of the process.
pub type DocId = u64;

/// A fresh id for merging a drag's edits into one undo step (every panel
/// takes its ids here, so no two drags share one).
pub fn merge_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A motion to open as a new document.
#[derive(Debug, Clone)]
pub struct NewDocument {
    pub motion: Motion,
    pub path: Option<PathBuf>,
    /// Shown where there is no path.
    pub name: String,
    /// What the file looked like when read.
    pub disk_stamp: Option<DiskStamp>,
    /// Not the file's state (a crash-recovery copy): modified from the start.
    pub unsaved: bool,
    /// Replace this open document (keeping its id, so the scene's
    /// references stay valid), e.g. a file reopened from disk.
    pub replace: Option<DocId>,
    /// Take a role in the scene as it opens (see [`placing`]): by what it
    /// holds ([`Intent::Auto`]) or the one named. A document already in the
    /// scene (reopened) keeps its roles. `None`: outside the scene.
    pub place: Option<Intent>,
}

impl NewDocument {
    pub fn new(motion: Motion, path: Option<PathBuf>, name: impl Into<String>) -> Self {
        NewDocument {
            motion,
            path,
            name: name.into(),
            disk_stamp: None,
            unsaved: false,
            replace: None,
            place: None,
        }
    }
}

/// A change to the scene arrangement.
#[derive(Debug, Clone, PartialEq)]
pub enum SceneEvent {
    /// The actor menus and drops act on (not an undo step).
    SelectActor(Option<usize>),
    AddActor,
    RemoveActor(usize),
    RenameActor(usize, String),
    SetMotion(usize, Option<DocId>),
    /// Frames actor `.0`'s motion is shifted by. Consecutive offsets of one
    /// actor (a drag on the field) are one undo step.
    SetOffset(usize, i32),
    SetModel(usize, ModelRef),
    SetCamera(Option<DocId>),
    SetLight(Option<DocId>),
    /// The song slot (path and start), or none.
    SetSong(Option<Song>),
    /// A new arrangement from loading (a scene file, the demo, a file
    /// taking its role as it opens): not an undo step. `fresh`: a new
    /// scene (its undo steps are forgotten; modified = `modified`); else
    /// `modified` marks the arrangement as changed.
    Arrange {
        scene: Box<Scene<DocId>>,
        selected_actor: Option<usize>,
        fresh: bool,
        modified: bool,
    },
}

impl SceneEvent {
    fn label(&self) -> &'static str {
        match self {
            SceneEvent::AddActor => "Add actor",
            SceneEvent::RemoveActor(_) => "Remove actor",
            SceneEvent::RenameActor(..) => "Rename actor",
            SceneEvent::SetMotion(..) => "Actor motion",
            SceneEvent::SetOffset(..) => "Actor offset",
            SceneEvent::SetModel(..) => "Actor model",
            SceneEvent::SetCamera(_) => "Scene camera",
            SceneEvent::SetLight(_) => "Scene light",
            SceneEvent::SetSong(_) => "Song",
            SceneEvent::SelectActor(_) | SceneEvent::Arrange { .. } => "",
        }
    }
}

/// Everything that can change the workspace.
#[derive(Debug, Clone)]
pub enum Event {
    /// Opens a motion as a document (not an undo step); [`Changes::opened`]
    /// names it. It becomes active.
    Open(Box<NewDocument>),
    /// Closes a document (its history goes with it).
    Close(DocId),
    /// Makes a document the active one (what the key panel shows).
    Activate(DocId),
    /// Edits of one user action, in one or several documents: one undo step.
    Edit(Vec<(DocId, Vec<EditRequest>)>),
    Undo,
    Redo,
    /// A save finished: the document's state `state` is on disk at `path`.
    Saved {
        doc: DocId,
        state: u64,
        path: PathBuf,
        disk_stamp: Option<DiskStamp>,
    },
    /// The user chose to drop a document's edits (e.g. closing without
    /// saving): its current state counts as saved.
    Discard(DocId),
    Scene(SceneEvent),
    /// The arrangement was written to a scene file: not modified.
    SceneSaved,
    /// Sets one document's selection (keys it does not have are dropped).
    Select {
        doc: DocId,
        view: DocView,
    },
    Transport(TransportEvent),
    /// The song's length once decoded, in seconds (none: no song).
    SongLength(Option<f64>),
    /// Undo memory per document, bytes (at least 1 MiB).
    SetUndoBudget(usize),
}

impl Event {
    /// One edit request on one document (a panel's usual output).
    pub fn edit(doc: DocId, request: EditRequest) -> Event {
        Event::Edit(vec![(doc, vec![request])])
    }
}

/// What an event changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    /// Documents whose motion (or saved state) changed.
    pub docs: Vec<DocId>,
    /// The document an [`Event::Open`] made.
    pub opened: Option<DocId>,
    pub closed: Option<DocId>,
    /// The arrangement changed.
    pub scene: bool,
    pub selection: bool,
    pub transport: bool,
    /// The active document changed.
    pub active: bool,
    /// Notes for the user (e.g. the oldest undo steps were dropped).
    pub notes: Vec<String>,
}

impl Changes {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        *self == Changes::default()
    }
}

/// One entry of an undo group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Doc(DocId),
    Scene,
}

/// The parts of the scene an undo step of the scene swaps.
#[derive(Debug, Clone, PartialEq)]
struct Arrangement {
    actors: Vec<Actor<DocId>>,
    camera: Option<DocId>,
    light: Option<DocId>,
    song: Option<Song>,
    selected_actor: Option<usize>,
}

#[derive(Debug, Clone)]
struct SceneStep {
    label: &'static str,
    /// On the undo stack the arrangement before the step; on the redo
    /// stack the one after it.
    other: Arrangement,
    /// Consecutive offsets of one actor merge: `Some(actor)`.
    offset_of: Option<usize>,
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

// ------------------------------------------------------------------ reading
impl Workspace {
    pub fn new() -> Self {
        Workspace::default()
    }

    /// The open documents, in tab order.
    pub fn docs(&self) -> &[Document] {
        &self.docs
    }

    pub fn doc(&self, id: DocId) -> Option<&Document> {
        self.docs.iter().find(|d| d.id == id)
    }

    /// The index of document `id` in [`Self::docs`].
    pub fn doc_index(&self, id: DocId) -> Option<usize> {
        self.docs.iter().position(|d| d.id == id)
    }

    /// The active document (what the key panel and curve editor show).
    pub fn active(&self) -> Option<&Document> {
        self.docs.get(self.active)
    }

    /// The document whose key the key panel and curve editor show: the
    /// active one when it has an active key, else the one holding the
    /// selection's active key (one selection, shown the same everywhere:
    /// a click on another file's tab, or an undo that lands in another
    /// file, does not make the editors forget the selected key), else the
    /// active one.
    pub fn focus(&self) -> Option<&Document> {
        let a = self.active()?;
        if a.view.active.is_some() {
            return Some(a);
        }
        Some(
            self.docs
                .iter()
                .find(|d| d.view.active.is_some())
                .unwrap_or(a),
        )
    }

    /// The active document's index in [`Self::docs`] (0 when none is open).
    pub fn active_index(&self) -> usize {
        self.active
    }

    pub fn scene(&self) -> &Scene<DocId> {
        &self.scene
    }

    /// The actor that menus and drops act on.
    pub fn selected_actor(&self) -> Option<usize> {
        self.selected_actor
    }

    /// The arrangement changed since it was last saved or opened.
    pub fn scene_modified(&self) -> bool {
        self.scene_modified
    }

    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// Undo memory per document, bytes.
    pub fn undo_budget(&self) -> usize {
        self.undo_budget
    }

    /// The actor wearing document `id` (the first, if several do).
    pub fn wearer(&self, id: DocId) -> Option<usize> {
        self.scene.actors.iter().position(|a| a.motion == Some(id))
    }

    /// Frames document `id` is shifted by on the scene timeline: its
    /// wearer's offset; 0 for the camera, the light and files outside the
    /// scene. Scene frame = motion frame + offset.
    pub fn offset_of(&self, id: DocId) -> i32 {
        self.wearer(id).map_or(0, |i| self.scene.actors[i].offset)
    }

    /// The song's last frame on the scene timeline (its offset added), once
    /// its length is known.
    pub fn song_end(&self) -> Option<u32> {
        let s = self.scene.song.as_ref()?;
        let end = f64::from(s.offset) + self.song_frames?;
        Some(end.ceil().clamp(0.0, f64::from(u32::MAX)) as u32)
    }

    /// The scene's last frame: the latest key of any open document on the
    /// scene timeline (actors' offsets added), or the song's end if later;
    /// 0 for an empty workspace. The one answer for the timeline's length,
    /// playback's wrap, the End key and video export's default range.
    pub fn scene_end(&self) -> u32 {
        let keys = self.docs.iter().filter_map(|d| {
            let f = i64::from(d.motion.last_frame()?) + i64::from(self.offset_of(d.id));
            Some(f.clamp(0, i64::from(u32::MAX)) as u32)
        });
        keys.chain(self.song_end()).max().unwrap_or(0)
    }

    /// Which scene roles document `id` has, for tab and list labels.
    pub fn role_label(&self, id: DocId) -> Option<String> {
        let s = &self.scene;
        let mut roles = Vec::new();
        if s.camera == Some(id) {
            roles.push("camera".to_owned());
        }
        if s.light == Some(id) && s.camera != Some(id) {
            roles.push("light".to_owned());
        }
        for a in &s.actors {
            if a.motion == Some(id) {
                roles.push(a.name.clone());
            }
        }
        (!roles.is_empty()).then(|| roles.join(", "))
    }

    /// The open documents with unsaved edits, in tab order.
    pub fn modified(&self) -> impl Iterator<Item = &Document> {
        self.docs.iter().filter(|d| d.is_modified())
    }

    /// How many open documents have unsaved edits (the title bar's and the
    /// close guard's count).
    pub fn modified_count(&self) -> usize {
        self.modified().count()
    }

    /// Whether anything can be undone (`undo`) or redone.
    pub fn can_step(&self, undo: bool) -> bool {
        self.last_group(undo).is_some() || self.fallback_target(undo).is_some()
    }

    /// The document the next undo (or redo) acts on: the first of the last
    /// group, else the active one. `None` for a scene-only step.
    pub fn step_target(&self, undo: bool) -> Option<DocId> {
        match self.last_group(undo) {
            Some(g) => self.order(undo)[g].iter().find_map(|e| match *e {
                Entry::Doc(id) if self.doc_can_step(id, undo) => Some(id),
                _ => None,
            }),
            None => self.fallback_target(undo),
        }
    }

    /// What the next undo (or redo) is called, for the Edit menu.
    pub fn step_label(&self, undo: bool) -> Option<String> {
        if let Some(g) = self.last_group(undo) {
            let first = self.order(undo)[g]
                .iter()
                .copied()
                .find(|&e| self.entry_can_step(e, undo))?;
            return match first {
                Entry::Scene => {
                    let stack = if undo {
                        &self.scene_undo
                    } else {
                        &self.scene_redo
                    };
                    stack.last().map(|s| s.label.to_owned())
                }
                Entry::Doc(id) => self.doc(id).and_then(|d| {
                    let h = d.history();
                    if undo { h.undo_label() } else { h.redo_label() }.map(str::to_owned)
                }),
            };
        }
        let d = self.doc(self.fallback_target(undo)?)?;
        let h = d.history();
        if undo { h.undo_label() } else { h.redo_label() }.map(str::to_owned)
    }

    /// How many files the next undo (or redo) changes (more than one for an
    /// action across timeline sections; 0 for a scene-only step).
    pub fn step_files(&self, undo: bool) -> usize {
        let Some(g) = self.last_group(undo) else {
            return usize::from(self.fallback_target(undo).is_some());
        };
        let ids: BTreeSet<DocId> = self.order(undo)[g]
            .iter()
            .filter_map(|e| match *e {
                Entry::Doc(id) => Some(id),
                Entry::Scene => None,
            })
            .collect();
        ids.len()
    }

    fn order(&self, undo: bool) -> &Vec<Vec<Entry>> {
        if undo {
            &self.undo_order
        } else {
            &self.redo_order
        }
    }

    fn doc_can_step(&self, id: DocId, undo: bool) -> bool {
        self.doc(id).is_some_and(|d| {
            if undo {
                d.history().can_undo()
            } else {
                d.history().can_redo()
            }
        })
    }

    fn entry_can_step(&self, e: Entry, undo: bool) -> bool {
        match e {
            Entry::Doc(id) => self.doc_can_step(id, undo),
            Entry::Scene if undo => !self.scene_undo.is_empty(),
            Entry::Scene => !self.scene_redo.is_empty(),
        }
    }

    /// Index of the last group that can still act (documents may have been
    /// closed or dropped old steps).
    fn last_group(&self, undo: bool) -> Option<usize> {
        self.order(undo)
            .iter()
            .rposition(|g| g.iter().any(|&e| self.entry_can_step(e, undo)))
    }

    /// With no group recorded: the active document's own history.
    fn fallback_target(&self, undo: bool) -> Option<DocId> {
        self.active()
            .map(|d| d.id)
            .filter(|&id| self.doc_can_step(id, undo))
    }
}

// ----------------------------------------------------------------- changing
impl Workspace {
    /// Applies one event: the only way to change the workspace.
    pub fn apply(&mut self, event: Event) -> Changes {
        let mut ch = Changes::default();
        match event {
            Event::Open(new) => self.open(*new, &mut ch),
            Event::Close(id) => self.close(id, &mut ch),
            Event::Activate(id) => {
                if let Some(i) = self.doc_index(id)
                    && i != self.active
                {
                    self.active = i;
                    ch.active = true;
                }
            }
            Event::Edit(edits) => self.edit(edits, &mut ch),
            Event::Undo => self.step(true, &mut ch),
            Event::Redo => self.step(false, &mut ch),
            Event::Saved {
                doc,
                state,
                path,
                disk_stamp,
            } => {
                if let Some(i) = self.doc_index(doc) {
                    let d = &mut self.docs[i];
                    d.path = Some(path);
                    d.disk_stamp = disk_stamp;
                    d.mark_saved_state(state);
                    ch.docs.push(doc);
                }
            }
            Event::Discard(doc) => {
                if let Some(i) = self.doc_index(doc) {
                    self.docs[i].mark_saved();
                    ch.docs.push(doc);
                }
            }
            Event::Scene(e) => self.scene_event(e, &mut ch),
            Event::SceneSaved => self.scene_modified = false,
            Event::Select { doc, view } => {
                if let Some(i) = self.doc_index(doc)
                    && self.docs[i].view != view
                {
                    self.docs[i].view = view;
                    self.docs[i].prune_selection();
                    ch.selection = true;
                }
            }
            Event::Transport(e) => {
                let end = self.scene_end();
                ch.transport = self.transport.apply(e, end);
            }
            Event::SongLength(seconds) => {
                self.song_frames = seconds
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(|s| s * 30.0);
            }
            Event::SetUndoBudget(bytes) => {
                self.undo_budget = bytes.max(1024 * 1024);
                for d in &mut self.docs {
                    d.set_undo_budget(self.undo_budget);
                    if let Some(n) = d.take_history_note() {
                        ch.notes.push(n);
                    }
                }
            }
        }
        ch
    }

    fn open(&mut self, new: NewDocument, ch: &mut Changes) {
        let before = self.active().map(|d| d.id);
        let role = MotionRole::of(&new.motion);
        let shown = new.path.as_ref().map(|p| p.display().to_string());
        let place = new.place;
        let mut d = Document::new(new.motion, new.path, new.name);
        d.disk_stamp = new.disk_stamp;
        d.set_undo_budget(self.undo_budget);
        if new.unsaved {
            d.mark_saved_state(u64::MAX);
        }
        let slot = new.replace.and_then(|id| self.doc_index(id));
        let (i, id) = match slot {
            Some(i) => {
                let id = self.docs[i].id;
                d.id = id;
                self.docs[i] = d;
                self.forget_steps(id);
                (i, id)
            }
            None => {
                let id = d.id;
                self.docs.push(d);
                (self.docs.len() - 1, id)
            }
        };
        self.active = i;
        ch.opened = Some(id);
        ch.docs.push(id);
        ch.active = true;
        if let Some(intent) = place {
            self.place_opened(id, role, intent, shown, before, ch);
        }
    }

    /// A document just opened takes its role in the scene (`intent`); a
    /// file from disk (`shown`: its path) says where it went. A camera or
    /// light does not take the key panel from the motion that had it.
    fn place_opened(
        &mut self,
        id: DocId,
        role: MotionRole,
        intent: Intent,
        shown: Option<String>,
        before: Option<DocId>,
        ch: &mut Changes,
    ) {
        let mut s = self.scene.clone();
        let mut selected = self.selected_actor;
        let placed = match intent {
            Intent::ActorMotion(i) if i < s.actors.len() => {
                s.actors[i].motion = Some(id);
                Some(Placed::ActorMotion {
                    index: i,
                    new: false,
                })
            }
            Intent::Camera { light_too } => {
                s.camera = Some(id);
                if light_too {
                    s.light = Some(id);
                }
                Some(Placed::Camera)
            }
            Intent::Light => {
                s.light = Some(id);
                Some(Placed::Light)
            }
            // Already in the scene (reopened): keep its roles.
            _ if s.uses(&id) => None,
            _ => Some(s.assign_motion(id, role, selected)),
        };
        if let Some(Placed::ActorMotion { index, .. }) = placed
            && (selected.is_none() || intent == Intent::Auto)
        {
            selected = Some(index);
        }
        let text = placed
            .as_ref()
            .map(|p| placing::placed_text(&s, p))
            .unwrap_or_else(|| "again".to_owned());
        let modified = intent == Intent::Auto && shown.is_some();
        self.scene_event(
            SceneEvent::Arrange {
                scene: Box::new(s),
                selected_actor: selected,
                fresh: false,
                modified,
            },
            ch,
        );
        if let Some(path) = shown {
            ch.notes.push(format!("Opened {path} {text}"));
        }
        if role != MotionRole::Motion
            && let Some(b) = before.filter(|&b| b != id && self.wearer(b).is_some())
            && let Some(k) = self.doc_index(b)
        {
            self.active = k;
        }
    }

    fn close(&mut self, id: DocId, ch: &mut Changes) {
        let Some(i) = self.doc_index(id) else {
            return;
        };
        self.docs.remove(i);
        self.forget_steps(id);
        let before = self.scene.clone();
        self.scene.remove_motion(&id);
        for s in self.scene_undo.iter_mut().chain(self.scene_redo.iter_mut()) {
            forget_in(&mut s.other, id);
        }
        ch.scene = self.scene != before;
        if self.active > i || self.active >= self.docs.len() {
            self.active = self.active.saturating_sub(1);
        }
        ch.closed = Some(id);
        ch.active = true;
    }

    /// Forgets a document's entries in the undo order.
    fn forget_steps(&mut self, id: DocId) {
        for order in [&mut self.undo_order, &mut self.redo_order] {
            for g in order.iter_mut() {
                g.retain(|&e| e != Entry::Doc(id));
            }
            order.retain(|g| !g.is_empty());
        }
    }

    fn edit(&mut self, edits: Vec<(DocId, Vec<EditRequest>)>, ch: &mut Changes) {
        let mut group = Vec::new();
        for (id, reqs) in edits {
            let Some(i) = self.doc_index(id) else {
                continue;
            };
            let d = &mut self.docs[i];
            let mut changed = false;
            for r in reqs {
                let (before, steps) = (d.state(), d.history().len());
                let rev = d.revision;
                d.request(r);
                if d.state() != before || d.history().len() != steps {
                    group.push(Entry::Doc(id));
                }
                changed |= d.revision != rev;
            }
            if let Some(note) = d.take_history_note() {
                ch.notes.push(note);
            }
            if changed {
                ch.docs.push(id);
            }
        }
        if !group.is_empty() {
            group.dedup();
            self.push_group(group);
        }
    }

    fn push_group(&mut self, group: Vec<Entry>) {
        self.undo_order.push(group);
        self.redo_order.clear();
        self.scene_redo.clear();
    }

    fn step(&mut self, undo: bool, ch: &mut Changes) {
        let label = self.step_label(undo);
        let group = match self.last_group(undo) {
            Some(g) if undo => self.undo_order.remove(g),
            Some(g) => self.redo_order.remove(g),
            None => match self.fallback_target(undo) {
                Some(id) => vec![Entry::Doc(id)],
                None => return,
            },
        };
        // Undo takes the steps back newest first; redo replays them in order.
        let order: Vec<Entry> = if undo {
            group.iter().rev().copied().collect()
        } else {
            group.clone()
        };
        let mut done = Vec::new();
        for e in order {
            let ok = match e {
                Entry::Doc(id) => match self.doc_index(id) {
                    Some(i) => {
                        let d = &mut self.docs[i];
                        let ok = if undo { d.undo() } else { d.redo() };
                        if ok {
                            ch.docs.push(id);
                        }
                        ok
                    }
                    None => false,
                },
                Entry::Scene => {
                    let ok = self.step_scene(undo);
                    ch.scene |= ok;
                    ok
                }
            };
            if ok {
                done.push(e);
            }
        }
        if done.is_empty() {
            return;
        }
        if let Some(i) = group.iter().find_map(|e| match *e {
            Entry::Doc(id) => self.doc_index(id),
            Entry::Scene => None,
        }) && i != self.active
        {
            // Never silently: the status line says which file the step
            // belonged to, now the active one.
            self.active = i;
            ch.active = true;
            let d = &self.docs[i];
            let name = d.title();
            let name = name.trim_start_matches("● ");
            let verb = if undo { "Undid" } else { "Redid" };
            let what = label.map_or(String::new(), |l| format!(" “{l}”"));
            ch.notes
                .push(format!("{verb}{what} in {name}, now the active file"));
        }
        if undo {
            // Kept in the order the steps were made.
            done.reverse();
            self.redo_order.push(done);
        } else {
            self.undo_order.push(done);
        }
    }

    fn arrangement(&self) -> Arrangement {
        Arrangement {
            actors: self.scene.actors.clone(),
            camera: self.scene.camera,
            light: self.scene.light,
            song: self.scene.song.clone(),
            selected_actor: self.selected_actor,
        }
    }

    fn set_arrangement(&mut self, a: Arrangement) -> Arrangement {
        let old = self.arrangement();
        self.scene.actors = a.actors;
        self.scene.camera = a.camera;
        self.scene.light = a.light;
        self.scene.song = a.song;
        self.selected_actor = a.selected_actor;
        old
    }

    /// Undoes (or redoes) the newest scene step.
    fn step_scene(&mut self, undo: bool) -> bool {
        let stack = if undo {
            &mut self.scene_undo
        } else {
            &mut self.scene_redo
        };
        let Some(mut s) = stack.pop() else {
            return false;
        };
        s.other = self.set_arrangement(s.other);
        s.offset_of = None;
        if undo {
            self.scene_redo.push(s);
        } else {
            self.scene_undo.push(s);
        }
        self.scene_modified = true;
        true
    }

    fn scene_event(&mut self, e: SceneEvent, ch: &mut Changes) {
        let before = self.arrangement();
        let label = e.label();
        let offset_of = match e {
            SceneEvent::SetOffset(i, _) => Some(i),
            _ => None,
        };
        let s = &mut self.scene;
        match e {
            SceneEvent::SelectActor(i) => {
                let i = i.filter(|&i| i < s.actors.len());
                if i != self.selected_actor {
                    self.selected_actor = i;
                    ch.scene = true;
                }
                // Its motion becomes the active document.
                if let Some(id) = i.and_then(|i| s.actors[i].motion)
                    && let Some(k) = self.docs.iter().position(|d| d.id == id)
                    && k != self.active
                {
                    self.active = k;
                    ch.active = true;
                }
                return;
            }
            SceneEvent::Arrange {
                scene,
                selected_actor,
                fresh,
                modified,
            } => {
                self.scene = *scene;
                self.selected_actor = selected_actor.filter(|&i| i < self.scene.actors.len());
                if fresh {
                    self.scene_undo.clear();
                    self.scene_redo.clear();
                    for o in [&mut self.undo_order, &mut self.redo_order] {
                        for g in o.iter_mut() {
                            g.retain(|&e| e != Entry::Scene);
                        }
                        o.retain(|g| !g.is_empty());
                    }
                    self.scene_modified = modified;
                } else {
                    self.scene_modified |= modified;
                }
                ch.scene = true;
                return;
            }
            SceneEvent::AddActor => {
                let i = s.add_actor();
                self.selected_actor = Some(i);
            }
            SceneEvent::RemoveActor(i) => {
                if i >= s.actors.len() {
                    return;
                }
                s.actors.remove(i);
                self.selected_actor = match self.selected_actor {
                    Some(j) if j > i => Some(j - 1),
                    Some(j) if j == i => s.actors.len().checked_sub(1),
                    other => other,
                };
            }
            SceneEvent::RenameActor(i, name) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.name = name;
                }
            }
            SceneEvent::SetMotion(i, m) => {
                let known = m.is_none_or(|id| self.docs.iter().any(|d| d.id == id));
                if let Some(a) = s.actors.get_mut(i)
                    && known
                {
                    a.motion = m;
                }
            }
            SceneEvent::SetOffset(i, off) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.offset = off;
                }
            }
            SceneEvent::SetModel(i, model) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.model = model;
                }
            }
            SceneEvent::SetCamera(c) => s.camera = c,
            SceneEvent::SetLight(l) => s.light = l,
            SceneEvent::SetSong(song) => {
                if song.as_ref().map(|s| &s.path) != s.song.as_ref().map(|s| &s.path) {
                    self.song_frames = None;
                }
                s.song = song;
            }
        }
        if self.arrangement() == before {
            return;
        }
        ch.scene = true;
        self.scene_modified = true;
        // Consecutive offsets of one actor are one step (a drag).
        let merges = offset_of.is_some()
            && self
                .scene_undo
                .last()
                .is_some_and(|t| t.offset_of == offset_of)
            && self.undo_order.last() == Some(&vec![Entry::Scene])
            && self.redo_order.is_empty();
        if !merges {
            self.scene_undo.push(SceneStep {
                label,
                other: before,
                offset_of,
            });
            self.push_group(vec![Entry::Scene]);
        }
    }
}

/// Forgets a closed document in a stored arrangement.
fn forget_in(a: &mut Arrangement, id: DocId) {
    for actor in &mut a.actors {
        if actor.motion == Some(id) {
            actor.motion = None;
        }
    }
    if a.camera == Some(id) {
        a.camera = None;
    }
    if a.light == Some(id) {
        a.light = None;
    }
}
