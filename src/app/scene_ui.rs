//! The scene's panels in the shell: the one timeline of every file and
//! the scene panel's actions. Each reads the workspace and hands back what
//! it wants changed as [`Event`]s.

use super::command::UiCommand;
use super::panels::{Shared, Views, scene::Action, timeline};
use crate::scene::ModelRef;
use crate::workspace::{Event, SceneEvent, Workspace};

/// The timeline's sections: camera, light (if another file), each actor's
/// motion, then open files outside the scene.
pub fn timeline_sections(ws: &Workspace) -> Vec<timeline::Section> {
    let s = ws.scene();
    let mut out: Vec<timeline::Section> = Vec::new();
    let push = |out: &mut Vec<timeline::Section>, id: u64, role: String| {
        if !out.iter().any(|x| x.doc_id == id) {
            out.push(timeline::Section {
                doc_id: id,
                role,
                offset: ws.offset_of(id),
                camera_or_light: s.camera == Some(id) || s.light == Some(id),
                worn: s.actors.iter().any(|a| a.motion == Some(id)),
            });
        }
    };
    if let Some(c) = s.camera {
        let role = if s.light == Some(c) {
            "Camera + light"
        } else {
            "Camera"
        };
        push(&mut out, c, role.to_owned());
    }
    if let Some(l) = s.light {
        push(&mut out, l, "Light".to_owned());
    }
    for a in &s.actors {
        if let Some(m) = a.motion {
            push(&mut out, m, a.name.clone());
        }
    }
    for p in &s.set.props {
        if let Some(m) = p.motion {
            push(&mut out, m, format!("Stage {}", p.name));
        }
    }
    for d in ws.docs() {
        push(&mut out, d.id, "Not in the scene".to_owned());
    }
    out
}

/// Runs `f` on working copies of the documents' selections and turns the
/// ones it changed into [`Event::Select`]s.
fn with_views<R>(ws: &Workspace, f: impl FnOnce(&mut Views) -> R) -> (R, Vec<Event>) {
    let mut views = Views::of(ws.docs());
    let r = f(&mut views);
    let events = views
        .changed(ws.docs())
        .into_iter()
        .map(|(doc, view)| Event::Select { doc, view })
        .collect();
    (r, events)
}

/// Delete, copy or paste across the timeline's sections: one action,
/// undone at once. The selections it changes and its edits, as events.
pub fn key_command(
    ws: &Workspace,
    shared: &mut Shared,
    state: &mut timeline::State,
    c: UiCommand,
) -> Vec<Event> {
    let sections = timeline_sections(ws);
    let active = ws.active().map(|d| d.id);
    let (edits, mut events) = with_views(ws, |views| {
        timeline::scene_command(ws.docs(), views, &sections, active, shared, state, c)
    });
    if !edits.is_empty() {
        events.push(Event::Edit(edits));
    }
    events
}

/// A bone of actor `actor` was clicked in the viewport: the timeline
/// picks its row in the actor's motion, selects its key at the playhead
/// (if any) and scrolls to it; the motion becomes active.
pub fn bone_picked(
    ws: &Workspace,
    state: &mut timeline::State,
    actor: usize,
    name: &str,
) -> Vec<Event> {
    let Some(a) = ws.scene().actors.get(actor) else {
        return Vec::new();
    };
    let (Some(id), offset) = (a.motion, a.offset) else {
        return Vec::new();
    };
    let frame = ws.transport().frame;
    let (found, mut events) = with_views(ws, |views| {
        timeline::reveal_bone(ws.docs(), views, state, id, offset, name, frame)
    });
    if found {
        events.push(Event::Activate(id));
    }
    events
}

/// Draws the scene timeline; what it asks for, as events (the playhead it
/// moved stays on `shared.transport` for the shell to send first).
pub fn timeline_ui(
    ui: &mut egui::Ui,
    ws: &Workspace,
    shared: &mut Shared,
    state: &mut timeline::State,
) -> Vec<Event> {
    let sections = timeline_sections(ws);
    let lanes = accessory_lanes(ws);
    let active = ws.active().map(|d| d.id);
    let (out, mut events) = with_views(ws, |views| {
        timeline::ui(
            ui,
            ws.docs(),
            views,
            &sections,
            &lanes,
            active,
            ws.scene_end(),
            shared,
            state,
        )
    });
    if let Some(id) = out.activate {
        events.push(Event::Activate(id));
    }
    if !out.edits.is_empty() {
        events.push(Event::Edit(out.edits));
    }
    events.extend(out.set_edits.into_iter().filter_map(|e| lane_event(ws, e)));
    events
}

/// The set's accessories as the timeline's lanes.
fn accessory_lanes(ws: &Workspace) -> Vec<timeline::AccessoryLane> {
    ws.scene()
        .set
        .accessories
        .iter()
        .map(|a| timeline::AccessoryLane {
            name: a.name.clone(),
            keys: a.keys.iter().map(|k| k.frame).collect(),
        })
        .collect()
}

/// An accessory lane's edit as a scene event (one undo step).
fn lane_event(ws: &Workspace, e: timeline::LaneEdit) -> Option<Event> {
    use crate::scene::set::AccessoryKey;
    use timeline::LaneEdit;
    Some(Event::Scene(match e {
        LaneEdit::Move {
            accessory,
            from,
            to,
        } => SceneEvent::MoveAccessoryKey(accessory, from, to),
        LaneEdit::Delete { accessory, frame } => SceneEvent::RemoveAccessoryKey(accessory, frame),
        LaneEdit::KeyHere { accessory, frame } => {
            let a = ws.scene().set.accessories.get(accessory)?;
            SceneEvent::SetAccessoryKey(
                accessory,
                Box::new(AccessoryKey {
                    frame,
                    state: a.state_at(frame),
                }),
            )
        }
    }))
}

/// The scene panel's arrangement actions as workspace events (each one
/// undo step); `None` for the actions the app carries out itself
/// (dialogs, saving, activating a file).
pub fn scene_event(a: &Action) -> Option<SceneEvent> {
    Some(match a.clone() {
        Action::SelectActor(i) => SceneEvent::SelectActor(Some(i)),
        Action::AddActor => SceneEvent::AddActor,
        Action::RemoveActor(i) => SceneEvent::RemoveActor(i),
        Action::RenameActor(i, name) => SceneEvent::RenameActor(i, name),
        Action::SetMotion(i, m) => SceneEvent::SetMotion(i, m),
        Action::SetOffset(i, off) => SceneEvent::SetOffset(i, off),
        Action::SetPlacement(i, p) => SceneEvent::SetPlacement(i, p),
        Action::BuiltinModel(i) => SceneEvent::SetModel(i, ModelRef::Builtin),
        Action::SetCamera(c) => SceneEvent::SetCamera(c),
        Action::SetLight(l) => SceneEvent::SetLight(l),
        Action::Set(s) => {
            use crate::app::panels::scene_set::SetAction;
            match s {
                SetAction::RemoveProp(i) => SceneEvent::RemoveProp(i),
                SetAction::ShowProp(i, shown) => SceneEvent::ShowProp(i, shown),
                SetAction::PropOrder(i, order) => SceneEvent::PropOrder(i, order),
                SetAction::RemoveAccessory(i) => SceneEvent::RemoveAccessory(i),
                SetAction::SetAccessoryState(i, s) => SceneEvent::SetAccessoryState(i, s),
                SetAction::SetAccessoryKey(i, k) => SceneEvent::SetAccessoryKey(i, k),
                SetAction::RemoveAccessoryKey(i, f) => SceneEvent::RemoveAccessoryKey(i, f),
                SetAction::BackgroundColour(c) => SceneEvent::SetBackgroundColour(c),
                SetAction::ClearPropMotion(i) => SceneEvent::SetPropMotion(i, None),
                SetAction::BackgroundImage(im) => SceneEvent::SetBackgroundImage(im),
                SetAction::BackgroundVideo(v) => SceneEvent::SetBackgroundVideo(v),
                SetAction::BackgroundVideoOffset(f) => SceneEvent::SetBackgroundVideoOffset(f),
                SetAction::AddStage
                | SetAction::AddAccessory
                | SetAction::MoveInView(_)
                | SetAction::PickPropMotion(_)
                | SetAction::PickBackgroundImage
                | SetAction::PickBackgroundVideo => return None,
            }
        }
        Action::Activate(_)
        | Action::LoadModel(_)
        | Action::PlaceInView(_)
        | Action::Locate(_)
        | Action::OpenScene
        | Action::SaveScene
        | Action::SaveSceneAs
        | Action::CollectScene => return None,
    })
}
