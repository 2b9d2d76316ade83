//! App settings kept between runs: the undo memory budget (a workspace
//! setting, stored by eframe).

use crate::workspace::{Event, Workspace};

/// Storage key of the undo budget (MiB).
pub const UNDO_BUDGET_KEY: &str = "vmd-studio-undo-budget-mb";
const MIB: usize = 1024 * 1024;

/// The stored budget, as the event that sets it.
pub fn load_undo_budget(storage: &dyn eframe::Storage) -> Option<Event> {
    eframe::get_value::<usize>(storage, UNDO_BUDGET_KEY)
        .map(|mb| Event::SetUndoBudget(mb.clamp(16, 65_536) * MIB))
}

/// Stores the workspace's budget.
pub fn save_undo_budget(storage: &mut dyn eframe::Storage, ws: &Workspace) {
    eframe::set_value(storage, UNDO_BUDGET_KEY, &(ws.undo_budget() / MIB));
}

/// The undo memory budget field (Edit menu); the event when it changed.
pub fn undo_budget_ui(ui: &mut egui::Ui, ws: &Workspace) -> Option<Event> {
    let mut mb = ws.undo_budget() / MIB;
    let r = ui
        .horizontal(|ui| {
            ui.label("Undo memory per file (MB):");
            ui.add(egui::DragValue::new(&mut mb).range(16..=65_536))
        })
        .inner
        .on_hover_text(
            "Past this, the oldest undo steps of a file are dropped (you are told when)",
        );
    r.changed().then(|| Event::SetUndoBudget(mb * MIB))
}
