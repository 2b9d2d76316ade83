//! Tools ▸ Bake physics: the form (the wearer model, a frame range) and,
//! once a bake has landed, the offer to simplify exactly the keys it wrote.

use super::scope_ui::{motion_range, selection_range};
use super::state::State;
use crate::vmd::ops::SimplifyScope;
use crate::workspace::document::Document;

/// Bake physics dialog parameters (inclusive motion frames).
#[derive(Debug, Clone, Default)]
pub struct BakePhysicsForm {
    pub from: u32,
    pub to: u32,
    /// The frame the simulation starts at (settled there; at most `from`):
    /// 0 by default, as playback from the start.
    pub simulate_from: u32,
    /// The document the range was filled for; another document (or the
    /// dialog opened again) starts from the whole motion.
    pub(super) range_for: Option<u64>,
    /// The last bake that changed a document, offered to Simplify.
    pub offer: Option<BakeOffer>,
}

/// What a finished bake wrote: the bones and frames Simplify is preset to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BakeOffer {
    pub doc_id: u64,
    pub scope: SimplifyScope,
}

impl BakePhysicsForm {
    /// Why `from..=to` cannot be baked on a motion whose last keyed frame
    /// is `last`, or `None` when it can.
    pub fn range_problem(&self, last: u32) -> Option<String> {
        let (a, b) = (self.from, self.to);
        if a > b {
            Some(format!(
                "From ({a}) is after To ({b}): the range must run forwards."
            ))
        } else if b > last {
            Some(format!(
                "To ({b}) is past the motion's last frame ({last}): bake within the motion."
            ))
        } else {
            None
        }
    }
}

/// The form: model, From/To, shortcuts to the whole motion, the loop
/// range and the selected keys, and what the range means (or why it
/// cannot run).
pub(super) fn bake_physics_form(
    ui: &mut egui::Ui,
    doc: &Document,
    loop_range: &Option<(u32, u32)>,
    state: &mut State,
) {
    let last = doc.motion.last_frame().unwrap_or(0);
    match &state.wearer_model {
        Some((name, asset)) => {
            let m = &asset.loaded.model;
            ui.label(format!(
                "Model: {name} ({} rigid bodies, {} joints); the motion runs 0–{last}",
                m.rigid_bodies.len(),
                m.joints.len(),
            ));
        }
        None => {
            ui.label("No loaded model wears this motion: open a PMX/PMD model with it.");
        }
    }
    let offset = state.wearer_offset;
    let f = &mut state.bake_physics;
    if f.range_for != Some(doc.id) {
        f.range_for = Some(doc.id);
        f.from = 0;
        f.to = last;
    }
    egui::Grid::new("toolbox-bake-physics")
        .num_columns(2)
        .show(ui, |ui| {
            let l = ui.label("From frame");
            ui.add(egui::DragValue::new(&mut f.from).speed(0.5))
                .labelled_by(l.id);
            ui.end_row();
            let l = ui.label("To frame");
            ui.add(egui::DragValue::new(&mut f.to).speed(0.5))
                .labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Simulate from frame");
            ui.add(egui::DragValue::new(&mut f.simulate_from).speed(0.5))
                .labelled_by(l.id)
                .on_hover_text(
                    "The simulation starts here, settled, and runs to the range (0: as \
                     playback from the start, so the hair arrives at the range moving as \
                     playback shows it)",
                );
            ui.end_row();
        });
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Whole motion")
            .on_hover_text(format!("Frames 0–{last}"))
            .clicked()
        {
            (f.from, f.to) = (0, last);
        }
        if let Some((a, b)) = loop_range.and_then(|r| motion_range(r, offset, last))
            && ui
                .button(format!("Loop range {a}–{b}"))
                .on_hover_text(
                    "The timeline's loop range, in this motion's frames (within the motion)",
                )
                .clicked()
        {
            (f.from, f.to) = (a, b);
        }
        if let Some((a, b)) = selection_range(doc)
            && ui
                .button(format!("Selected keys {a}–{b}"))
                .on_hover_text("From the first to the last selected key")
                .clicked()
        {
            (f.from, f.to) = (a, b);
        }
    });
    match f.range_problem(last) {
        Some(p) => {
            ui.colored_label(ui.visuals().error_fg_color, p);
        }
        None => {
            let n = f.to - f.from + 1;
            let after = if f.to < last {
                format!(
                    " One more key at {} gives each its physics back after the range.",
                    f.to + 1
                )
            } else {
                String::new()
            };
            let start = f.simulate_from.min(f.from);
            let lead = if start < f.from {
                format!(
                    "Simulates from frame {start} (settled there, as playback from {start}), \
                     through the {} frames before the range without writing them, ",
                    f.from - start
                )
            } else {
                format!("Simulates from frame {start} (settled there) ")
            };
            ui.weak(format!(
                "{lead}and writes {n} keys ({:.2} s) per physics bone; their keys outside \
                 {}–{} and every other key stay as they are.{after}",
                f64::from(n) / 30.0,
                f.from,
                f.to
            ));
        }
    }
}

/// Why the Run button of Bake physics is disabled, if it is.
pub(super) fn blocked(doc: &Document, state: &State) -> Option<String> {
    if state.wearer_model.is_none() {
        return Some("No loaded model wears this motion".to_owned());
    }
    state
        .bake_physics
        .range_problem(doc.motion.last_frame().unwrap_or(0))
}

/// Under a finished bake's summary: "Simplify the baked keys…", which
/// opens Simplify preset to the baked bones and range. Shown once the
/// bake has landed on `doc` (`settled`: nothing runs, nothing waits).
pub(super) fn offer_ui(ui: &mut egui::Ui, doc: &Document, settled: bool, state: &mut State) {
    let Some(offer) = &state.bake_physics.offer else {
        return;
    };
    if offer.doc_id != doc.id || !settled {
        return;
    }
    ui.separator();
    let hover = format!(
        "Open Simplify on the baked keys only: {}. It lands as its own undo step: \
         Ctrl+Z takes back the simplification and keeps the bake.",
        offer.scope.describe()
    );
    if ui
        .button("Simplify the baked keys…")
        .on_hover_text(hover)
        .clicked()
    {
        let scope = offer.scope.clone();
        state.bake_physics.offer = None;
        state.open_dialog(super::Tool::Simplify);
        state.simplify.scope = Some(scope);
        state.simplify.applied = None;
    }
}
