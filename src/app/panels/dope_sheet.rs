//! dope sheet panel (stub until built).

use super::PanelCtx;

/// Persistent UI state of this panel.
#[derive(Debug, Default)]
pub struct State {}

pub fn ui(ui: &mut egui::Ui, _cx: &mut PanelCtx, _state: &mut State) {
    ui.weak("Not built yet.");
}

/// Runs a key command (delete, copy, paste, insert, select, fit).
pub fn command(_cx: &mut PanelCtx, _state: &mut State, _c: crate::app::command::Command) {}
