//! The scene panel: the actors (model, motion, offset), the camera and the
//! light, and the bone and morph names each actor's motion uses but its
//! model lacks. It returns [`Action`]s; the app changes the arrangement.

use std::collections::HashMap;

use crate::app::scene_ops::SceneState;
use crate::scene::{self, MissingNames, ModelRef};
use crate::workspace::Workspace;
use crate::workspace::document::Document;

/// A change the user asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    SelectActor(usize),
    AddActor,
    RemoveActor(usize),
    RenameActor(usize, String),
    SetMotion(usize, Option<u64>),
    SetOffset(usize, i32),
    /// Where the actor stands (X/Y/Z, turn about Y).
    SetPlacement(usize, scene::ActorPlacement),
    /// Place this actor with the viewport's gizmo.
    PlaceInView(usize),
    /// Pick a PMX/PMD file for this actor.
    LoadModel(usize),
    /// Back to the built-in skeleton.
    BuiltinModel(usize),
    SetCamera(Option<u64>),
    SetLight(Option<u64>),
    /// Make this document the one the key panel and curve editor show.
    Activate(u64),
    OpenScene,
    SaveScene,
    SaveSceneAs,
    /// File ▸ Collect scene into folder…: pick where.
    CollectScene,
    /// A change to the set (stages, accessories).
    Set(super::scene_set::SetAction),
    /// Pick the file a project named that was not found.
    Locate(crate::project::missing::Slot),
}

/// What missing names were computed from: document id and revision, and
/// the generation of the model asset the rig and morph names came from (0
/// for the built-in skeleton or a model still loading).
type MissingKey = (u64, u64, u64);

/// Missing names per actor, recomputed when the motion or model changes.
#[derive(Debug, Default)]
pub struct State {
    missing: HashMap<usize, (MissingKey, MissingNames)>,
    /// Name being edited, per actor.
    rename: Option<(usize, String)>,
}

fn doc_label(d: &Document) -> String {
    d.title()
}

/// A combo box choosing one of `docs` (or none); returns the new choice.
fn doc_combo(
    ui: &mut egui::Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    current: Option<u64>,
    docs: &[Document],
    label: egui::Id,
) -> Option<Option<u64>> {
    let text = current
        .and_then(|id| docs.iter().find(|d| d.id == id))
        .map_or("none".to_owned(), doc_label);
    let mut choice = None;
    // A long file name is cut with "…" (the whole name on hover) rather
    // than widening the scene panel and squeezing the preview.
    let r = egui::ComboBox::from_id_salt(id)
        .selected_text(text.clone())
        .width(150.0)
        .truncate()
        .show_ui(ui, |ui| {
            if ui.selectable_label(current.is_none(), "none").clicked() {
                choice = Some(None);
            }
            for d in docs {
                if ui
                    .selectable_label(current == Some(d.id), doc_label(d))
                    .clicked()
                {
                    choice = Some(Some(d.id));
                }
            }
        });
    r.response.labelled_by(label).on_hover_text(text);
    choice
}

/// Draws the panel; returns what the user asked for.
pub fn ui(
    ui: &mut egui::Ui,
    ws: &Workspace,
    sc: &SceneState,
    active: Option<u64>,
    state: &mut State,
) -> Vec<Action> {
    let mut out = Vec::new();
    let s = ws.scene();
    let docs = ws.docs();
    let title = match &sc.path {
        Some(p) => p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        None => "unsaved scene".to_owned(),
    };
    // Not "●": that mark means a VMD with unsaved edits.
    let header = if ws.scene_modified() && sc.path.is_some() {
        format!("Scene: {title} (arrangement changed)")
    } else {
        format!("Scene: {title}")
    };
    egui::CollapsingHeader::new(header)
        .id_salt("scene-panel")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                if ui
                    .small_button("Open scene…")
                    .on_hover_text("Open a .vmdscene file")
                    .clicked()
                {
                    out.push(Action::OpenScene);
                }
                if ui
                    .small_button("Save scene")
                    .on_hover_text(
                        "Save the arrangement (.vmdscene) and every motion with unsaved edits; \
                         motions without edits are not rewritten",
                    )
                    .clicked()
                {
                    out.push(Action::SaveScene);
                }
                if ui.small_button("Save scene as…").clicked() {
                    out.push(Action::SaveSceneAs);
                }
            });
            if let Some(report) = &sc.project {
                out.extend(
                    super::scene_missing::ui(ui, s, report)
                        .into_iter()
                        .map(Action::Locate),
                );
            }
            egui::ScrollArea::vertical()
                .id_salt("scene-panel-scroll")
                .max_height(300.0)
                .show(ui, |ui| {
                    egui::Grid::new("scene-roles")
                        .num_columns(2)
                        .show(ui, |ui| {
                            let l = ui.label("Camera");
                            ui.horizontal(|ui| {
                                if let Some(c) = doc_combo(ui, "scene-camera", s.camera, docs, l.id)
                                {
                                    out.push(Action::SetCamera(c));
                                }
                                if let Some(id) = s.camera
                                    && ui
                                        .small_button("Keys")
                                        .on_hover_text("Show its keys in the key panel")
                                        .clicked()
                                {
                                    out.push(Action::Activate(id));
                                }
                            });
                            ui.end_row();
                            let l = ui.label("Light");
                            ui.horizontal(|ui| {
                                if let Some(c) = doc_combo(ui, "scene-light", s.light, docs, l.id) {
                                    out.push(Action::SetLight(c));
                                }
                            });
                            ui.end_row();
                        });
                    ui.separator();
                    for (i, a) in s.actors.iter().enumerate() {
                        actor_ui(ui, ws, sc, active, state, i, a, &mut out);
                    }
                    if ui
                        .button("Add actor")
                        .on_hover_text("A new actor with the built-in skeleton")
                        .clicked()
                    {
                        out.push(Action::AddActor);
                    }
                    ui.separator();
                    out.extend(
                        super::scene_set::ui(ui, ws, sc)
                            .into_iter()
                            .map(Action::Set),
                    );
                    let outside: Vec<&Document> = docs.iter().filter(|d| !s.uses(&d.id)).collect();
                    if !outside.is_empty() {
                        ui.separator();
                        ui.weak("Open files not in the scene:");
                        for d in outside {
                            ui.horizontal(|ui| {
                                if ui.small_button(doc_label(d)).clicked() {
                                    out.push(Action::Activate(d.id));
                                }
                            });
                        }
                    }
                });
        });
    out
}

#[allow(clippy::too_many_arguments)]
fn actor_ui(
    ui: &mut egui::Ui,
    ws: &Workspace,
    sc: &SceneState,
    active: Option<u64>,
    state: &mut State,
    i: usize,
    a: &scene::Actor<u64>,
    out: &mut Vec<Action>,
) {
    name_row(ui, state, ws.selected_actor() == Some(i), i, a, out);
    actor_grid(ui, ws, sc, active, i, a, out);
    if let Some(doc) = a
        .motion
        .and_then(|id| ws.docs().iter().find(|d| d.id == id))
    {
        missing_names_ui(ui, sc, state, i, a, doc);
    }
    ui.add_space(4.0);
}

/// The actor's name (click selects, double-click renames) and Remove.
fn name_row(
    ui: &mut egui::Ui,
    state: &mut State,
    selected: bool,
    i: usize,
    a: &scene::Actor<u64>,
    out: &mut Vec<Action>,
) {
    ui.horizontal(|ui| {
        match &mut state.rename {
            Some((j, text)) if *j == i => {
                let r = ui.add(egui::TextEdit::singleline(text).desired_width(120.0));
                if r.lost_focus() {
                    if !text.trim().is_empty() {
                        out.push(Action::RenameActor(i, text.trim().to_owned()));
                    }
                    state.rename = None;
                } else {
                    r.request_focus();
                }
            }
            _ => {
                let r = ui
                    .selectable_label(selected, egui::RichText::new(&a.name).strong())
                    .on_hover_text(
                        "Select: models and motions you open go to this actor. \
                         Double-click to rename.",
                    );
                if r.double_clicked() {
                    state.rename = Some((i, a.name.clone()));
                } else if r.clicked() {
                    out.push(Action::SelectActor(i));
                }
            }
        }
        if ui
            .small_button("Remove")
            .on_hover_text("Remove this actor from the scene (its motion stays open)")
            .clicked()
        {
            out.push(Action::RemoveActor(i));
        }
    });
}

/// The actor's model (Load…, Built-in), motion (and Keys) and offset.
fn actor_grid(
    ui: &mut egui::Ui,
    ws: &Workspace,
    sc: &SceneState,
    active: Option<u64>,
    i: usize,
    a: &scene::Actor<u64>,
    out: &mut Vec<Action>,
) {
    let docs = ws.docs();
    egui::Grid::new(("scene-actor", i))
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Model");
            ui.horizontal(|ui| {
                let loading = matches!(&a.model, ModelRef::File(_)) && !sc.loaded(&a.model);
                let name = a.model.display_name();
                let shown = if loading {
                    format!("{name} (loading…)")
                } else {
                    name
                };
                let r = ui.label(shown);
                if let ModelRef::File(p) = &a.model {
                    r.on_hover_text(p.display().to_string());
                }
                if ui
                    .small_button("Load…")
                    .on_hover_text("Give this actor a PMX/PMD model")
                    .clicked()
                {
                    out.push(Action::LoadModel(i));
                }
                if matches!(a.model, ModelRef::File(_))
                    && ui
                        .small_button("Built-in")
                        .on_hover_text("Use the built-in standard skeleton")
                        .clicked()
                {
                    out.push(Action::BuiltinModel(i));
                }
            });
            ui.end_row();
            let l = ui.label("Motion");
            ui.horizontal(|ui| {
                if let Some(m) = doc_combo(ui, ("scene-motion", i), a.motion, docs, l.id) {
                    out.push(Action::SetMotion(i, m));
                }
                if let Some(id) = a.motion
                    && active != Some(id)
                    && ui
                        .small_button("Keys")
                        .on_hover_text("Show its keys in the key panel")
                        .clicked()
                {
                    out.push(Action::Activate(id));
                }
            });
            ui.end_row();
            let l = ui.label("Offset");
            let mut off = a.offset;
            let r = ui
                .add(
                    egui::DragValue::new(&mut off)
                        .range(-100_000..=100_000)
                        .suffix(" frames"),
                )
                .labelled_by(l.id)
                .on_hover_text("The motion starts this many frames later on the scene timeline");
            if r.changed() && off != a.offset {
                out.push(Action::SetOffset(i, off));
            }
            ui.end_row();
            match placement_row(ui, i, &a.placement) {
                Some(Placed::To(p)) => out.push(Action::SetPlacement(i, p)),
                Some(Placed::InView) => out.push(Action::PlaceInView(i)),
                None => {}
            }
        });
}

/// What the placement rows asked for.
enum Placed {
    To(scene::ActorPlacement),
    /// "Move in view": the viewport's gizmo places the actor.
    InView,
}

/// The actor's place in the scene: X, Y, Z (MMD units) and its turn about
/// Y, as MMD's accessory panel edits a placement; "At origin" puts it
/// back, "Move in view" hands it to the viewport's gizmo.
fn placement_row(ui: &mut egui::Ui, i: usize, now: &scene::ActorPlacement) -> Option<Placed> {
    let mut p = *now;
    let mut in_view = false;
    ui.label("Place");
    ui.horizontal(|ui| {
        for (label, v) in [
            ("X", &mut p.position.x),
            ("Y", &mut p.position.y),
            ("Z", &mut p.position.z),
        ] {
            let axis = ui.label(label);
            ui.add(
                egui::DragValue::new(v)
                    .speed(0.1)
                    .max_decimals(2)
                    .range(-100_000.0..=100_000.0),
            )
            .labelled_by(axis.id)
            .on_hover_text(format!(
                "Actor {} {label}: where it stands in the scene (MMD units), \
                 above everything its motion does",
                i + 1
            ));
        }
    });
    ui.end_row();
    let l = ui.label("Turn");
    ui.horizontal(|ui| {
        ui.add(
            egui::DragValue::new(&mut p.turn_degrees)
                .speed(1.0)
                .suffix("°")
                .max_decimals(1)
                .range(-360.0..=360.0),
        )
        .labelled_by(l.id)
        .on_hover_text("The actor's turn about the vertical axis (MMD's Ry)");
        if !now.is_origin()
            && ui
                .small_button("At origin")
                .on_hover_text("Back to the origin, unturned (where MMD loads a model)")
                .clicked()
        {
            p = scene::ActorPlacement::ORIGIN;
        }
        in_view = ui
            .small_button("Move in view")
            .on_hover_text("Move and turn this actor with the gizmo in the preview (Esc: done)")
            .clicked();
    });
    ui.end_row();
    if in_view {
        return Some(Placed::InView);
    }
    (p != *now).then_some(Placed::To(p))
}

/// Names the motion uses that the model lacks (bones, and morphs once the
/// model's morph list is known), cached per motion revision and model.
fn missing_names_ui(
    ui: &mut egui::Ui,
    sc: &SceneState,
    state: &mut State,
    i: usize,
    a: &scene::Actor<u64>,
    doc: &Document,
) {
    let rig = sc.rig_for(&a.model);
    let model_morphs = sc.morphs_for(&a.model);
    let key = (doc.id, doc.revision, sc.model_generation(&a.model));
    let fresh = state.missing.get(&i).is_some_and(|(k, _)| *k == key);
    if !fresh {
        // MMD's name rule, as the pose engine binds the motion; morphs
        // only once the model's morph list is known.
        let m = crate::model::missing_names(rig, &doc.index);
        let m = MissingNames {
            bones: m.bones,
            morphs: model_morphs.map(|_| m.morphs),
        };
        state.missing.insert(i, (key, m));
    }
    if let Some((_, m)) = state.missing.get(&i) {
        let model = a.model.display_name();
        if m.bones.is_empty() {
            ui.weak(format!("Every bone of the motion is in {model}."));
        } else {
            egui::CollapsingHeader::new(format!("Bones missing in {model} ({})", m.bones.len()))
                .id_salt(("scene-missing-bones", i))
                .default_open(false)
                .show(ui, |ui| {
                    for n in &m.bones {
                        ui.label(n);
                    }
                });
        }
        match &m.morphs {
            Some(list) if !list.is_empty() => {
                egui::CollapsingHeader::new(format!("Morphs missing in {model} ({})", list.len()))
                    .id_salt(("scene-missing-morphs", i))
                    .default_open(false)
                    .show(ui, |ui| {
                        for n in list {
                            ui.label(n);
                        }
                    });
            }
            Some(_) if !doc.index.morphs.is_empty() => {
                ui.weak(format!("Every morph of the motion is in {model}."));
            }
            Some(_) => {}
            None if !doc.index.morphs.is_empty() => {
                ui.weak(format!(
                    "{} morph tracks (not checked: {model} has no morph list here)",
                    doc.index.morphs.len()
                ));
            }
            None => {}
        }
    }
}
