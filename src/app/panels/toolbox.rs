//! Toolbox panel and dialogs (stub until built).

use super::PanelCtx;
use crate::app::document::Document;
use crate::vmd::Motion;

/// A toolbox operation the user asked for, with its parameters.
#[derive(Debug, Clone)]
pub enum Request {}

/// The result of running a request: the new motion and the report.
pub struct Outcome {
    pub motion: Motion,
    pub report_lines: Vec<String>,
    /// Undo label.
    pub label: String,
}

/// Persistent UI state of the toolbox.
#[derive(Debug, Default)]
pub struct State {
    request: Option<Request>,
}

impl State {
    /// The operation queued this frame, if any.
    pub fn take_request(&mut self) -> Option<Request> {
        self.request.take()
    }
}

/// The Tools menu.
pub fn menu(ui: &mut egui::Ui, _doc: &Document, _state: &mut State) {
    ui.weak("Not built yet.");
}

/// The toolbox side panel.
pub fn ui(_ui: &mut egui::Ui, _cx: &mut PanelCtx, _state: &mut State) {}

/// Runs a request on the active document (and others, for join).
pub fn run_request(req: &Request, _docs: &[&Document], _active: usize) -> Result<Outcome, String> {
    match *req {}
}
