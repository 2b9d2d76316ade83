//! The toolbox dialogs' forms: one per tool, and the summary of a result
//! (drawing; they fill the state the dialog runs).

use std::path::PathBuf;

use super::run::op_error;
use super::scope_ui::{SceneMotion, key_scope, scope_ui};
use super::{SpeedForm, SpeedPreview, State, Summary};
use crate::app::jobs::{JobKind, JobService, Polled};
use crate::vmd::Motion;
use crate::vmd::ops::{self, KeyScope, SpeedParams};
use crate::workspace::document::Document;

pub(super) fn summary_ui(ui: &mut egui::Ui, s: &Summary) {
    ui.separator();
    if s.ok {
        ui.strong(format!("Done: {}", s.headline));
    } else {
        ui.colored_label(
            ui.visuals().error_fg_color,
            format!("Not run: {}", s.headline),
        );
        ui.label("Nothing was changed.");
    }
    if !s.lines.is_empty() {
        egui::ScrollArea::vertical()
            .id_salt("toolbox-summary")
            .min_scrolled_height(160.0)
            .max_height(260.0)
            .show(ui, |ui| {
                for l in &s.lines {
                    ui.label(l);
                }
            });
    }
}

pub(super) fn trim_form(
    ui: &mut egui::Ui,
    doc: &Document,
    loop_range: &Option<(u32, u32)>,
    state: &mut State,
) {
    let f = &mut state.trim;
    if f.needs_defaults {
        f.needs_defaults = false;
        let sel: Vec<u32> = doc
            .view
            .selection
            .iter()
            .filter_map(|&k| doc.motion.key_frame(k))
            .collect();
        let (a, b) = if let Some((a, b)) = *loop_range {
            (a, b)
        } else if let (Some(&a), Some(&b)) = (sel.iter().min(), sel.iter().max())
            && a < b
        {
            (a, b)
        } else {
            (0, doc.motion.last_frame().unwrap_or(0))
        };
        f.from = a;
        f.to = b;
    }
    egui::Grid::new("toolbox-trim")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("From frame (A)");
            ui.add(egui::DragValue::new(&mut f.from).speed(0.5));
            ui.end_row();
            ui.label("To frame (B)");
            ui.add(egui::DragValue::new(&mut f.to).speed(0.5));
            ui.end_row();
        });
    ui.checkbox(&mut f.rebase, "Rebase: move frame A to frame 0");
    if f.from > f.to {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "A ({}) is after B ({}): the range must run forwards.",
                f.from, f.to
            ),
        );
    } else {
        ui.weak(format!(
            "Keeps {} frames ({:.2} s).",
            f.to - f.from + 1,
            f64::from(f.to - f.from + 1) / 30.0
        ));
    }
}

pub(super) fn join_form(ui: &mut egui::Ui, docs: &[Document], doc: &Document, state: &mut State) {
    let f = &mut state.join;
    let others: Vec<&Document> = docs.iter().filter(|d| d.id != doc.id).collect();
    if f.tab.is_none_or(|id| !others.iter().any(|d| d.id == id)) {
        f.tab = others.first().map(|d| d.id);
    }
    ui.label("Second motion:");
    ui.radio_value(&mut f.use_path, false, "An open tab");
    ui.add_enabled_ui(!f.use_path, |ui| {
        let current = others
            .iter()
            .find(|d| Some(d.id) == f.tab)
            .map(|d| d.title())
            .unwrap_or_else(|| "(no other tab)".to_owned());
        egui::ComboBox::from_id_salt("toolbox-join-tab")
            .selected_text(current)
            .show_ui(ui, |ui| {
                for d in &others {
                    ui.selectable_value(&mut f.tab, Some(d.id), d.title());
                }
            });
    });
    ui.radio_value(&mut f.use_path, true, "A VMD file");
    ui.add_enabled_ui(f.use_path, |ui| {
        ui.add(
            egui::TextEdit::singleline(&mut f.path)
                .hint_text("path/to/second.vmd")
                .desired_width(f32::INFINITY),
        );
    });
    ui.separator();
    ui.radio_value(
        &mut f.use_at,
        false,
        "After this motion's last frame, with a gap",
    );
    ui.add_enabled_ui(!f.use_at, |ui| {
        ui.horizontal(|ui| {
            ui.label("Gap (frames)");
            ui.add(egui::DragValue::new(&mut f.gap).speed(0.2));
        });
    });
    ui.radio_value(&mut f.use_at, true, "At a frame");
    ui.add_enabled_ui(f.use_at, |ui| {
        ui.horizontal(|ui| {
            ui.label("Frame");
            ui.add(egui::DragValue::new(&mut f.at).speed(0.5));
        });
    });
    let start = if f.use_at {
        Some(f.at)
    } else {
        doc.motion.last_frame().map(|l| l.saturating_add(f.gap))
    };
    if let Some(s) = start {
        ui.weak(format!("The second motion's frame 0 lands on frame {s}."));
    }
}

pub(super) fn speed_form(
    ui: &mut egui::Ui,
    doc: &Document,
    state: &mut State,
    loop_range: Option<(u32, u32)>,
    jobs: &JobService,
) {
    let background = doc.motion.key_count() > state.background_keys;
    let offset = state.wearer_offset;
    let scene = &state.scene_motions;
    let f = &mut state.speed;
    ui.horizontal(|ui| {
        ui.label("Factor");
        ui.add(
            egui::DragValue::new(&mut f.factor)
                .speed(0.01)
                .range(0.01..=100.0),
        );
        for (k, text) in [(0.5, "x0.5"), (1.5, "x1.5"), (2.0, "x2")] {
            if ui.button(text).clicked() {
                f.factor = k;
            }
        }
    });
    ui.weak("2 plays twice as fast (half the frames); 0.5 half as fast.");
    scope_ui(ui, doc, &mut f.scope, loop_range, offset);
    if f.scope.range {
        ui.weak("The range plays at the new speed; the keys after it keep their spacing and move.");
    }
    scene_choice(ui, doc, f, scene);
    // Live preview: the operation runs on a copy only when the parameters change.
    match f.preview_job.poll(jobs) {
        Some(Polled::Done(p)) => f.preview = Some(p.value),
        Some(Polled::Lost(_)) => {
            f.preview = Some(Err("the preview stopped unexpectedly".to_owned()));
        }
        None => {}
    }
    // The scope as the selection names it now (a new selection of bones
    // is a new preview).
    let scope = key_scope(doc, &f.scope);
    let key = (doc.id, doc.revision, f.factor.to_bits(), scope.clone().ok());
    // One background preview at a time: while the factor is dragged, the
    // next preview starts when the running one is done.
    if f.preview_for.as_ref() != Some(&key) && !f.preview_job.is_running() {
        f.preview_for = Some(key);
        f.preview_runs += 1;
        let p = SpeedParams { factor: f.factor };
        if background {
            let m = doc.motion.clone();
            let label = format!("Speed preview on {} keys", m.key_count());
            f.preview_job
                .start(jobs, JobKind::Preview, label, false, move |_| {
                    speed_preview(&m, p, &scope?)
                });
        } else {
            f.preview = Some(scope.and_then(|s| speed_preview(&doc.motion, p, &s)));
        }
    }
    if f.preview_job.is_running() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Computing the preview…");
        });
    }
    match &f.preview {
        None => {}
        Some(Err(e)) => {
            ui.colored_label(ui.visuals().warn_fg_color, e);
        }
        Some(Ok(p)) => {
            let fmt = |f: Option<u32>| match f {
                Some(f) => format!("{f} ({:.2} s)", f64::from(f) / 30.0),
                None => "none".to_owned(),
            };
            ui.label(format!("Preview for factor {}:", p.factor));
            ui.label(format!(
                "Last frame: {} -> {}",
                fmt(p.last_before),
                fmt(p.last_after)
            ));
            ui.label(format!("Keys that would merge: {}", p.merged));
        }
    }
}

/// The scene's other motions: changed with this one (the default), or
/// said to keep their timing.
fn scene_choice(ui: &mut egui::Ui, doc: &Document, f: &mut SpeedForm, scene: &[SceneMotion]) {
    if scene.is_empty() {
        return;
    }
    let names: Vec<&str> = scene.iter().map(|m| m.name.as_str()).collect();
    if f.scope.selected_bones {
        ui.weak(format!(
            "Only these bones change; {} keep{} their timing.",
            names.join(", "),
            if names.len() == 1 { "s" } else { "" }
        ));
        return;
    }
    ui.checkbox(
        &mut f.whole_scene,
        format!("Also {} (one undo step)", names.join(", ")),
    )
    .on_hover_text(
        "Change the scene's other motions by the same factor over the same scene frames, \
         so the camera and the other dancers stay in time with this one",
    );
    if !f.whole_scene {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "Only {} changes: {} keep{} the old timing.",
                doc.title(),
                names.join(", "),
                if names.len() == 1 { "s" } else { "" }
            ),
        );
    }
}

pub(super) fn speed_preview(
    m: &Motion,
    p: SpeedParams,
    scope: &KeyScope,
) -> Result<SpeedPreview, String> {
    let (out, report) = ops::speed_scoped(m, p, scope).map_err(op_error)?;
    Ok(SpeedPreview {
        factor: p.factor,
        last_before: m.last_frame(),
        last_after: out.last_frame(),
        merged: report.dropped,
    })
}

pub(super) fn fill_form(ui: &mut egui::Ui, docs: &[Document], doc: &Document, state: &mut State) {
    let f = &mut state.fill;
    ui.label("Adds a key at frame 0 (rest pose) for every bone without one.");
    let others: Vec<&Document> = docs.iter().filter(|d| d.id != doc.id).collect();
    if f.union_with
        .is_some_and(|id| !others.iter().any(|d| d.id == id))
    {
        f.union_with = None;
    }
    let current = others
        .iter()
        .find(|d| Some(d.id) == f.union_with)
        .map(|d| d.title())
        .unwrap_or_else(|| "(none)".to_owned());
    ui.horizontal(|ui| {
        ui.label("Also the bones of");
        egui::ComboBox::from_id_salt("toolbox-fill-union")
            .selected_text(current)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut f.union_with, None, "(none)");
                for d in &others {
                    ui.selectable_value(&mut f.union_with, Some(d.id), d.title());
                }
            });
    });
}

pub(super) fn rename_form(ui: &mut egui::Ui, state: &mut State) {
    let f = &mut state.rename;
    ui.label("One pair per line: old name, a tab, new name. Lines starting with # are skipped.");
    ui.add(
        egui::TextEdit::multiline(&mut f.map_text)
            .hint_text("old\tnew")
            .lock_focus(true)
            .desired_rows(6)
            .desired_width(f32::INFINITY),
    );
    let mut message = None;
    ui.horizontal(|ui| {
        ui.label("Map file");
        ui.add(egui::TextEdit::singleline(&mut f.path).hint_text("map.tsv"));
        if ui
            .add_enabled(!f.path.trim().is_empty(), egui::Button::new("Load"))
            .on_hover_text("Replace the text above with the file's contents")
            .clicked()
        {
            match std::fs::read_to_string(f.path.trim()) {
                Ok(t) => f.map_text = t,
                Err(e) => message = Some(format!("cannot read {}: {e}", f.path.trim())),
            }
        }
    });
    if let Some(m) = message {
        ui.colored_label(ui.visuals().error_fg_color, m);
    }
}

pub(super) fn export_form(ui: &mut egui::Ui, doc: &Document, state: &mut State) {
    let f = &mut state.export;
    if f.path_for != Some(doc.id) {
        f.path_for = Some(doc.id);
        let base = doc.path.clone().unwrap_or_else(|| PathBuf::from(&doc.name));
        f.path = base.with_extension("json").display().to_string();
    }
    ui.horizontal(|ui| {
        ui.label("Output");
        ui.add(egui::TextEdit::singleline(&mut f.path).desired_width(f32::INFINITY));
    });
    ui.checkbox(
        &mut f.right_handed,
        "Right-handed (three.js style; such a file cannot be imported back)",
    );
    ui.weak("Writes a file; the document is not changed.");
}

pub(super) fn import_form(ui: &mut egui::Ui, state: &mut State) {
    ui.horizontal(|ui| {
        ui.label("JSON file");
        ui.add(
            egui::TextEdit::singleline(&mut state.import.path)
                .hint_text("motion.json")
                .desired_width(f32::INFINITY),
        );
    });
    ui.weak("A VMD Studio export (not a right-handed one) opens as a new tab.");
}
