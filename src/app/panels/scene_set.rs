//! The scene panel's set section: stages, props and accessories (Add
//! stage…, Add accessory…, show/hide, draw order, remove, an accessory's
//! placement as MMD's accessory panel shows it). Reads the workspace's
//! scene; returns [`SetAction`]s, each one undo step once applied.

use crate::app::scene_ops::SceneState;
use crate::scene::set::{AccessoryState, DrawOrder, Parent};
use crate::workspace::Workspace;

/// A change to the set the user asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum SetAction {
    /// Pick stage or prop files.
    AddStage,
    /// Pick accessory files (.x, .vac).
    AddAccessory,
    RemoveProp(usize),
    ShowProp(usize, bool),
    PropOrder(usize, DrawOrder),
    RemoveAccessory(usize),
    SetAccessoryState(usize, Box<AccessoryState>),
}

/// Draws the set section into `ui`; returns what the user asked for.
pub fn ui(ui: &mut egui::Ui, ws: &Workspace, sc: &SceneState) -> Vec<SetAction> {
    let mut out = Vec::new();
    section(ui, ws, sc, &mut out);
    out
}

fn section(ui: &mut egui::Ui, ws: &Workspace, sc: &SceneState, out: &mut Vec<SetAction>) {
    use SetAction as Action;
    let set = &ws.scene().set;
    ui.horizontal_wrapped(|ui| {
        ui.strong("Set");
        if ui
            .small_button("Add stage…")
            .on_hover_text(
                "A stage or prop (PMX, PMD or .x) drawn around the models, no motion needed",
            )
            .clicked()
        {
            out.push(Action::AddStage);
        }
        if ui
            .small_button("Add accessory…")
            .on_hover_text(
                "A DirectX .x accessory, or a .vac placed (and attached to its bone) as it says",
            )
            .clicked()
        {
            out.push(Action::AddAccessory);
        }
    });
    for (i, p) in set.props.iter().enumerate() {
        ui.horizontal(|ui| {
            let mut shown = p.shown;
            if ui
                .checkbox(&mut shown, "")
                .on_hover_text("Show or hide this stage")
                .changed()
            {
                out.push(Action::ShowProp(i, shown));
            }
            ui.label(&p.name).on_hover_text(format!(
                "{}{}",
                p.path.display(),
                loading_note(sc, &p.path)
            ));
            let after = p.order == DrawOrder::AfterModels;
            let text = if after {
                "after models"
            } else {
                "before models"
            };
            if ui
                .small_button(text)
                .on_hover_text("Draw order (MMD's accessory order): click to switch")
                .clicked()
            {
                let order = if after {
                    DrawOrder::BeforeModels
                } else {
                    DrawOrder::AfterModels
                };
                out.push(Action::PropOrder(i, order));
            }
            if ui.small_button("Remove").clicked() {
                out.push(Action::RemoveProp(i));
            }
        });
    }
    for (i, a) in set.accessories.iter().enumerate() {
        let st = &a.state;
        ui.horizontal(|ui| {
            let mut shown = st.shown;
            if ui
                .checkbox(&mut shown, "")
                .on_hover_text("Show or hide this accessory")
                .changed()
            {
                out.push(Action::SetAccessoryState(
                    i,
                    Box::new(AccessoryState {
                        shown,
                        ..st.clone()
                    }),
                ));
            }
            ui.label(&a.name).on_hover_text(format!(
                "{}{}",
                a.path.display(),
                loading_note(sc, &a.path)
            ));
            let parent = match &st.parent {
                Parent::World => "world".to_owned(),
                Parent::Bone { actor, bone } => {
                    let who = ws
                        .scene()
                        .actors
                        .get(*actor)
                        .map_or("a missing actor", |a| a.name.as_str());
                    format!("{who} · {bone}")
                }
            };
            ui.weak(parent);
            if ui.small_button("Remove").clicked() {
                out.push(Action::RemoveAccessory(i));
            }
        });
        if let Some(new) = placement_ui(ui, i, st) {
            out.push(Action::SetAccessoryState(i, Box::new(new)));
        }
    }
}

/// X/Y/Z, Rx/Ry/Rz, Si and Tr as drag fields; the changed state, if any.
fn placement_ui(ui: &mut egui::Ui, i: usize, st: &AccessoryState) -> Option<AccessoryState> {
    let mut s = st.clone();
    let mut changed = false;
    ui.horizontal_wrapped(|ui| {
        for (label, v) in [
            ("X", &mut s.position.x),
            ("Y", &mut s.position.y),
            ("Z", &mut s.position.z),
        ] {
            ui.label(label);
            changed |= ui
                .add(egui::DragValue::new(v).speed(0.1).max_decimals(2))
                .on_hover_text(format!("accessory {} {label} (MMD units)", i + 1))
                .changed();
        }
        for (label, v) in [
            ("Rx", &mut s.rotation_degrees.x),
            ("Ry", &mut s.rotation_degrees.y),
            ("Rz", &mut s.rotation_degrees.z),
        ] {
            ui.label(label);
            changed |= ui
                .add(
                    egui::DragValue::new(v)
                        .speed(1.0)
                        .suffix("°")
                        .max_decimals(1),
                )
                .changed();
        }
        ui.label("Si");
        changed |= ui
            .add(
                egui::DragValue::new(&mut s.scale)
                    .speed(0.01)
                    .range(0.0..=1000.0)
                    .max_decimals(3),
            )
            .on_hover_text("Scale (1: the .x at MMD's size)")
            .changed();
        ui.label("Tr");
        changed |= ui
            .add(
                egui::DragValue::new(&mut s.opacity)
                    .speed(0.01)
                    .range(0.0..=1.0)
                    .max_decimals(2),
            )
            .on_hover_text("Opacity")
            .changed();
    });
    (changed && s != *st).then_some(s)
}

/// " (loading…)" while the file has not loaded (or could not).
fn loading_note(sc: &SceneState, path: &std::path::Path) -> &'static str {
    if sc.models.contains_key(path) {
        ""
    } else {
        " (not loaded: loading, or it could not be read)"
    }
}
