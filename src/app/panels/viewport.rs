//! 3D preview (stub until built).

use super::Shared;
use crate::app::document::{DocView, Document, EditRequest};
use crate::skeleton::Skeleton;

/// Persistent UI state of the viewport.
#[derive(Debug, Default)]
pub struct State {
    /// A model skeleton loaded by the user (replaces the built-in one).
    pub model: Option<(String, Skeleton)>,
}

/// Draws the viewport for all open documents (a dance and a camera play together).
pub fn ui(
    ui: &mut egui::Ui,
    _docs: &[Document],
    _active: usize,
    _view: &mut DocView,
    _edits: &mut Vec<EditRequest>,
    _shared: &mut Shared,
    _state: &mut State,
) {
    ui.weak("Not built yet.");
}
