//! Toolbox dialogs for the pure operations in [`crate::vmd::ops`]: mirror,
//! trim, join, speed change, rest-pose fill, rename, simplify, bake, JSON
//! export and import (Simplify and Bake forms live in [`simplify`], Bake
//! physics with its offer to simplify what it wrote in [`bake_physics`]),
//! and Size motion to model ([`crate::sizing`]; state and runs in
//! [`sizing`], the form and its report in [`sizing_ui`]).
//!
//! Flow:
//! 1. The Tools menu ([`menu`]) and the side panel section ([`ui`]) open a
//!    dialog ([`Tool`]); only one dialog is open at a time.
//! 2. [`windows`] (called once per frame by the app, with every open
//!    document) draws the dialog with its parameters. Its action button runs
//!    the operation on a copy of the motion — inline when the motion is small,
//!    as a job of the app's job service (progress in the status bar, Cancel
//!    in the dialog and the status bar) when it has more than
//!    [`State::background_keys`] keys (or when a file of unknown size must be
//!    read) — and shows the result summary (every report line) in the dialog,
//!    which stays open until closed.
//! 3. An operation that changes the motion queues a [`Request::Computed`];
//!    at the end of the frame the app hands it to [`run_request`], which
//!    checks the document is still the one the result was computed from
//!    (same id, same revision) and returns the [`Outcome`]; the app applies it
//!    as one undoable `Edit::ReplaceMotion` and puts the report lines in the
//!    status bar. [`run_request`] also runs the parameter variants directly.
//! 4. Export JSON writes a file (atomic writer) and leaves the document
//!    alone; import JSON hands a motion to the app for a new tab
//!    ([`State::take_new_document`]).
//!
//! Frames are MMD frames (30 fps).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::vmd::Motion;
use crate::vmd::ops::{self, FillRestParams, JoinParams, RenameMap, SpeedParams, TrimParams};

mod applied;
mod bake_physics;
mod done;
mod forms;
mod plan;
mod result;
mod run;
mod scope_ui;
mod simplify;
mod sizing;
mod sizing_ui;
mod state;
mod window;

pub use applied::Applied;
pub use bake_physics::{BakeOffer, BakePhysicsForm};
pub use run::run_request;
pub use scope_ui::{SceneMotion, ScopeForm, scene_motions};
pub use simplify::{BakeForm, SimplifyForm, SimplifyPreview, TrackGraph};
pub use sizing::{
    ActorModel, ChangeTotals, SceneModel, SizingForm, SizingKey, SizingPreview, SourceChoice,
};
pub use state::{
    ExportForm, FillForm, ImportForm, JoinForm, MirrorForm, RenameForm, SpeedForm, SpeedPreview,
    State, TrimForm,
};
pub use window::{menu, ui, windows};

/// Motions with more keys than this run on a background thread by default.
pub const BACKGROUND_KEYS: usize = 100_000;

/// Report lines copied to the status bar before "… and N more".
const STATUS_LINES: usize = 12;

/// The toolbox operations, one dialog each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Mirror,
    Trim,
    Join,
    Speed,
    FillRest,
    Rename,
    Simplify,
    Bake,
    BakePhysics,
    Sizing,
    ExportJson,
    ImportJson,
}

impl Tool {
    pub const ALL: [Tool; 12] = [
        Tool::Mirror,
        Tool::Trim,
        Tool::Join,
        Tool::Speed,
        Tool::FillRest,
        Tool::Rename,
        Tool::Simplify,
        Tool::Bake,
        Tool::BakePhysics,
        Tool::Sizing,
        Tool::ExportJson,
        Tool::ImportJson,
    ];

    /// The Tools menu entry.
    pub fn menu_label(self) -> &'static str {
        match self {
            Tool::Mirror => "Mirror left/right…",
            Tool::Trim => "Trim…",
            Tool::Join => "Join with…",
            Tool::Speed => "Change speed…",
            Tool::FillRest => "Fill rest pose…",
            Tool::Rename => "Rename tracks…",
            Tool::Simplify => "Simplify…",
            Tool::Bake => "Bake…",
            Tool::BakePhysics => "Bake physics…",
            Tool::Sizing => "Size motion to model…",
            Tool::ExportJson => "Export JSON…",
            Tool::ImportJson => "Import JSON…",
        }
    }

    /// The short button in the side panel.
    pub fn button_label(self) -> &'static str {
        match self {
            Tool::Mirror => "Mirror",
            Tool::Trim => "Trim",
            Tool::Join => "Join",
            Tool::Speed => "Speed",
            Tool::FillRest => "Fill rest",
            Tool::Rename => "Rename",
            Tool::Simplify => "Simplify",
            Tool::Bake => "Bake",
            Tool::BakePhysics => "Bake physics",
            Tool::Sizing => "Size",
            Tool::ExportJson => "Export JSON",
            Tool::ImportJson => "Import JSON",
        }
    }

    /// The dialog's window title.
    pub fn title(self) -> &'static str {
        match self {
            Tool::Mirror => "Mirror left/right",
            Tool::Trim => "Trim to a frame range",
            Tool::Join => "Join two motions",
            Tool::Speed => "Change speed",
            Tool::FillRest => "Fill rest pose",
            Tool::Rename => "Rename tracks",
            Tool::Simplify => "Simplify keys",
            Tool::Bake => "Bake keys",
            Tool::BakePhysics => "Bake physics",
            Tool::Sizing => "Size motion to model",
            Tool::ExportJson => "Export as JSON",
            Tool::ImportJson => "Import from JSON",
        }
    }

    /// The dialog's action button.
    pub fn action_label(self) -> &'static str {
        match self {
            Tool::Mirror => "Mirror the motion",
            Tool::Trim => "Trim the motion",
            Tool::Join => "Join the motions",
            Tool::Speed => "Change the speed",
            Tool::FillRest => "Add rest keys",
            Tool::Rename => "Apply the renames",
            Tool::Simplify => "Apply the simplification",
            Tool::Bake => "Bake the motion",
            Tool::BakePhysics => "Bake the physics",
            Tool::Sizing => "Apply the sizing",
            Tool::ExportJson => "Write the JSON file",
            Tool::ImportJson => "Open as a new tab",
        }
    }

    pub fn tooltip(self) -> &'static str {
        match self {
            Tool::Mirror => {
                "Swap left and right: positions (-x, y, z), rotations (x, -y, -z, w), \
                 names with 左 and 右 swapped, camera and light mirrored"
            }
            Tool::Trim => "Keep frames A..B; keys are added at A and B so playback is unchanged",
            Tool::Join => "Append another motion after this one (or at a given frame)",
            Tool::Speed => "New frame = round(frame / factor); merged keys are reported",
            Tool::FillRest => "Add identity keys at frame 0 for bones without a key there",
            Tool::Rename => "Rename bones, morphs and IK entries from an old<TAB>new map",
            Tool::Simplify => {
                "Drop keys within tolerances, writing fitted curves: a key-every-frame \
                 motion becomes editable curves"
            }
            Tool::Bake => "A key on every frame (or every N) with straight-line curves",
            Tool::BakePhysics => {
                "Simulate the wearer's rigid bodies over the motion and write a key per frame \
                 for every bone a dynamic body drives, physics switched off on those keys so \
                 MMD plays them; every other key is kept"
            }
            Tool::Sizing => {
                "Fit a motion made for one model (the source) to the model the actor \
                 wears (the target): movement bones scaled by the leg ratios, hips, arm \
                 stance and feet; a report and a preview on the actor before Apply"
            }
            Tool::ExportJson => "Write every field of every key as JSON (optionally right-handed)",
            Tool::ImportJson => "Read a VMD Studio JSON export and open it as a new tab",
        }
    }
}

/// Where the second motion of a join comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinSecond {
    /// An open document, by [`Document::id`](crate::workspace::document::Document::id).
    Tab(u64),
    /// A VMD file on disk.
    Path(PathBuf),
}

/// A toolbox operation the user asked for, with its parameters.
#[derive(Debug, Clone)]
pub enum Request {
    /// Mirror the keys in the scope.
    Mirror(ops::KeyScope),
    Trim(TrimParams),
    Join {
        second: JoinSecond,
        params: JoinParams,
    },
    /// Change the speed of the keys in the scope, and of the scene's other
    /// motions in `scene` (each at its own span) in the same undo step.
    Speed {
        params: SpeedParams,
        scope: ops::KeyScope,
        scene: Vec<SceneSpan>,
    },
    FillRest(FillRestParams),
    Rename(RenameMap),
    Bake(ops::BakeParams),
    /// A result a dialog already computed (inline or on a background thread).
    Computed(Computed),
}

/// A finished operation waiting to be applied to the document it was
/// computed from.
#[derive(Debug, Clone)]
pub struct Computed {
    pub doc_id: u64,
    /// [`Document::revision`](crate::workspace::document::Document::revision) when the operation started.
    pub revision: u64,
    /// Taken once by [`run_request`].
    slot: Arc<Mutex<Option<Outcome>>>,
}

/// The result of running a request: the new motion and the report.
#[derive(Debug)]
pub struct Outcome {
    pub motion: Motion,
    pub report_lines: Vec<String>,
    /// Undo label.
    pub label: String,
    /// Other documents changed with it in the same undo step (a
    /// scene-wide speed change).
    pub also: Vec<AlsoChanged>,
}

/// Another document's new motion, computed from its revision `revision`
/// (applied only if it is still at that revision).
#[derive(Debug)]
pub struct AlsoChanged {
    pub id: u64,
    pub revision: u64,
    pub motion: Motion,
}

/// Another motion of the scene a speed change takes along: the document,
/// its revision and motion when the dialog asked, and its span.
#[derive(Debug, Clone)]
pub struct SceneSpan {
    pub id: u64,
    pub name: String,
    pub revision: u64,
    pub motion: Motion,
    pub span: ops::SpeedSpan,
}

/// Result summary shown in the dialog after a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub tool: Tool,
    /// `false` when the operation refused to run (nothing changed).
    pub ok: bool,
    /// The report headline, or the error.
    pub headline: String,
    /// Every report line.
    pub lines: Vec<String>,
}
