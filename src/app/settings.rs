//! App settings kept between runs: the undo memory budget.

use super::StudioApp;
use super::document;

/// Storage key of the undo budget (MiB).
pub const UNDO_BUDGET_KEY: &str = "vmd-studio-undo-budget-mb";
const MIB: usize = 1024 * 1024;

/// Applies a stored budget (MiB) to new documents.
pub fn load_undo_budget(storage: &dyn eframe::Storage) {
    if let Some(mb) = eframe::get_value::<usize>(storage, UNDO_BUDGET_KEY) {
        document::set_default_undo_budget(mb.clamp(16, 65_536) * MIB);
    }
}

/// Stores the budget.
pub fn save_undo_budget(storage: &mut dyn eframe::Storage) {
    eframe::set_value(
        storage,
        UNDO_BUDGET_KEY,
        &(document::default_undo_budget() / MIB),
    );
}

impl StudioApp {
    /// The undo memory budget field (Edit menu).
    pub(super) fn undo_budget_ui(&mut self, ui: &mut egui::Ui) {
        let mut mb = document::default_undo_budget() / MIB;
        let r = ui
            .horizontal(|ui| {
                ui.label("Undo memory per file (MB):");
                ui.add(egui::DragValue::new(&mut mb).range(16..=65_536))
            })
            .inner
            .on_hover_text(
                "Past this, the oldest undo steps of a file are dropped (you are told when)",
            );
        if r.changed() {
            document::set_default_undo_budget(mb * MIB);
            for d in &mut self.docs {
                d.set_undo_budget(mb * MIB);
            }
        }
    }
}
