//! The scene panel's project section: what the MMD project the scene was
//! opened from names that is not on this machine (each with its path as
//! the project stores it and a Locate… button), and what the project
//! holds that the scene does not use. Returns the slots to locate.

use crate::project::missing::{ProjectReport, Slot};
use crate::scene::Scene;
use crate::workspace::DocId;

/// Draws the section (nothing once every file is found and nothing is
/// ignored); returns the slot whose Locate… was clicked.
pub fn ui(ui: &mut egui::Ui, scene: &Scene<DocId>, report: &ProjectReport) -> Option<Slot> {
    let missing: Vec<_> = report.open_items(scene).collect();
    if missing.is_empty() && report.ignored.is_empty() {
        return None;
    }
    let project = report
        .project
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = None;
    let header = if missing.is_empty() {
        format!("Project {project}: every file found")
    } else {
        format!("Project {project}: {} missing", files(missing.len()))
    };
    egui::CollapsingHeader::new(header)
        .id_salt("scene-project")
        .default_open(!missing.is_empty())
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("scene-project-scroll")
                .max_height(160.0)
                .show(ui, |ui| {
                    for m in &missing {
                        let what = match m.slot {
                            Slot::ActorModel(i) => format!("Model of actor {} ({})", i + 1, m.name),
                            Slot::Accessory(_) => format!("Accessory {}", m.name),
                        };
                        ui.horizontal(|ui| {
                            if ui
                                .small_button("Locate…")
                                .on_hover_text(
                                    "Pick the file; the other missing files are then looked for \
                                     where it was found",
                                )
                                .clicked()
                            {
                                out = Some(m.slot);
                            }
                            ui.label(what).on_hover_text(&m.stored);
                        });
                        ui.weak(&m.stored);
                    }
                    if !report.ignored.is_empty() {
                        ui.weak("Held by the project, not used here:");
                        for i in &report.ignored {
                            ui.weak(format!("• {i}"));
                        }
                    }
                });
        });
    out
}

/// "1 file", "2 files".
pub fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_owned()
    } else {
        format!("{n} files")
    }
}
