//! The events given to [`Workspace::apply`](super::Workspace::apply) and
//! what they changed ([`Changes`]).

use std::path::PathBuf;

use super::placing::Intent;
use super::{DocId, DocView, EditRequest, TransportEvent};
use crate::scene::set::{
    AccessoryKey, AccessoryState, BackgroundImage, BackgroundVideo, DrawOrder, SetAccessory,
};
use crate::scene::{ActorPlacement, ModelRef, Scene, Song};
use crate::vmd::Motion;
use crate::vmd::save::DiskStamp;

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
    /// Take a role in the scene as it opens (see [`placing`](super::placing)): by what it
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
    /// A drag ended: the next change starts a new undo step even if it
    /// would merge into the last (two drags of one field are two steps).
    EndMerge,
    AddActor,
    RemoveActor(usize),
    RenameActor(usize, String),
    SetMotion(usize, Option<DocId>),
    /// Frames actor `.0`'s motion is shifted by. Consecutive offsets of one
    /// actor (a drag on the field) are one undo step.
    SetOffset(usize, i32),
    /// Where actor `.0` stands in the scene. Consecutive placements of one
    /// actor (a drag on a field or with the gizmo) are one undo step.
    SetPlacement(usize, ActorPlacement),
    SetModel(usize, ModelRef),
    SetCamera(Option<DocId>),
    SetLight(Option<DocId>),
    /// The song slot (path and start), or none.
    SetSong(Option<Song>),
    /// A stage or prop (PMX/PMD/.x) into the set, shown, before the models.
    AddProp(PathBuf),
    /// An accessory into the set, placed as given (a `.vac`'s placement).
    AddAccessory(Box<SetAccessory>),
    RemoveProp(usize),
    RemoveAccessory(usize),
    /// Shows or hides a stage or prop.
    ShowProp(usize, bool),
    /// Where a stage or prop draws: before or after the models.
    PropOrder(usize, DrawOrder),
    /// An accessory's panel values (parent, X/Y/Z, Rx/Ry/Rz, Si, Tr, shown,
    /// ground shadow). Consecutive changes to one accessory (a drag on a
    /// field) are one undo step.
    SetAccessoryState(usize, Box<AccessoryState>),
    /// Points an accessory at another `.x` file (a missing file located
    /// by hand); its placement and keys stay.
    SetAccessoryFile(usize, PathBuf),
    /// Sets (or replaces) an accessory's key at its frame (MMD's accessory
    /// panel ▸ register); consecutive keys of one accessory at one frame
    /// (a drag on a field while keyed) are one undo step.
    SetAccessoryKey(usize, Box<AccessoryKey>),
    /// Deletes an accessory's key at a frame.
    RemoveAccessoryKey(usize, u32),
    /// Stage `.0` plays motion `.1` (`None`: at rest).
    SetPropMotion(usize, Option<DocId>),
    /// Moves accessory `.0`'s key at frame `.1` to frame `.2` (a key there
    /// is replaced), one undo step.
    MoveAccessoryKey(usize, u32, u32),
    /// The background colour (linear RGB 0..1; the preview and every
    /// export clear with it). Consecutive changes (a drag in the colour
    /// picker) are one undo step.
    SetBackgroundColour([f32; 3]),
    /// The background image (MMD's 背景画像) and how it fits, or none.
    SetBackgroundImage(Option<BackgroundImage>),
    /// The background video (MMD's 背景AVI) and its frame offset, or none.
    SetBackgroundVideo(Option<BackgroundVideo>),
    /// The background video's frame offset (scene frame of its first
    /// frame); nothing without a video. Consecutive changes (a drag) are
    /// one undo step.
    SetBackgroundVideoOffset(i32),
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
    pub(super) fn label(&self) -> &'static str {
        match self {
            SceneEvent::AddActor => "Add actor",
            SceneEvent::RemoveActor(_) => "Remove actor",
            SceneEvent::RenameActor(..) => "Rename actor",
            SceneEvent::SetMotion(..) => "Actor motion",
            SceneEvent::SetOffset(..) => "Actor offset",
            SceneEvent::SetPlacement(..) => "Actor placement",
            SceneEvent::SetModel(..) => "Actor model",
            SceneEvent::SetCamera(_) => "Scene camera",
            SceneEvent::SetLight(_) => "Scene light",
            SceneEvent::SetSong(_) => "Song",
            SceneEvent::AddProp(_) => "Add stage",
            SceneEvent::AddAccessory(_) => "Add accessory",
            SceneEvent::RemoveProp(_) => "Remove stage",
            SceneEvent::RemoveAccessory(_) => "Remove accessory",
            SceneEvent::ShowProp(..) => "Show stage",
            SceneEvent::PropOrder(..) => "Stage draw order",
            SceneEvent::SetAccessoryState(..) => "Accessory placement",
            SceneEvent::SetAccessoryFile(..) => "Locate accessory",
            SceneEvent::SetAccessoryKey(..) => "Accessory key",
            SceneEvent::RemoveAccessoryKey(..) => "Delete accessory key",
            SceneEvent::MoveAccessoryKey(..) => "Move accessory key",
            SceneEvent::SetPropMotion(_, Some(_)) => "Stage motion",
            SceneEvent::SetPropMotion(_, None) => "Stage at rest",
            SceneEvent::SetBackgroundColour(_) => "Background colour",
            SceneEvent::SetBackgroundImage(Some(_)) => "Background image",
            SceneEvent::SetBackgroundImage(None) => "Remove background image",
            SceneEvent::SetBackgroundVideo(Some(_)) => "Background video",
            SceneEvent::SetBackgroundVideo(None) => "Remove background video",
            SceneEvent::SetBackgroundVideoOffset(_) => "Background video offset",
            SceneEvent::SelectActor(_) | SceneEvent::EndMerge | SceneEvent::Arrange { .. } => "",
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
