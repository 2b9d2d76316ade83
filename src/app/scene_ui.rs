//! The scene's panels in the shell: the scene panel's actions and the one
//! timeline of every file. Each draws from the workspace and hands back
//! what it wants changed, which becomes [`Event`]s here.

use super::StudioApp;
use super::command::UiCommand;
use super::jobs::Pick;
use super::panels::{self, Views, scene::Action, timeline};
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
    for d in ws.docs() {
        push(&mut out, d.id, "Not in the scene".to_owned());
    }
    out
}

impl StudioApp {
    /// The scene panel (left side), and the changes it asks for.
    pub(super) fn scene_panel_ui(&mut self, ui: &mut egui::Ui) {
        let active = self.doc().map(|d| d.id);
        let actions = panels::scene::ui(ui, &self.ws, &self.scene, active, &mut self.scene_panel);
        for a in actions {
            self.scene_action(a);
        }
    }

    /// Applies a scene-panel action: arrangement changes are workspace
    /// events (each one undo step); the rest open dialogs or save.
    pub fn scene_action(&mut self, a: Action) {
        let event = match a {
            Action::SelectActor(i) => SceneEvent::SelectActor(Some(i)),
            Action::AddActor => SceneEvent::AddActor,
            Action::RemoveActor(i) => SceneEvent::RemoveActor(i),
            Action::RenameActor(i, name) => SceneEvent::RenameActor(i, name),
            Action::SetMotion(i, m) => SceneEvent::SetMotion(i, m),
            Action::SetOffset(i, off) => SceneEvent::SetOffset(i, off),
            Action::BuiltinModel(i) => SceneEvent::SetModel(i, ModelRef::Builtin),
            Action::SetCamera(c) => SceneEvent::SetCamera(c),
            Action::SetLight(l) => SceneEvent::SetLight(l),
            Action::Activate(id) => {
                self.activate(id);
                return;
            }
            Action::LoadModel(i) => {
                self.apply(Event::Scene(SceneEvent::SelectActor(Some(i))));
                let dir = self.start_dir();
                self.pick_file(Pick::Model, dir);
                return;
            }
            Action::OpenScene => {
                let dir = self.start_dir();
                self.pick_file(Pick::OpenScene, dir);
                return;
            }
            Action::SaveScene => {
                match self.scene.path.clone() {
                    Some(p) => self.save_scene_to(p),
                    None => {
                        let dir = self.start_dir();
                        self.pick_file(Pick::SaveScene, dir);
                    }
                }
                return;
            }
            Action::SaveSceneAs => {
                let dir = self.start_dir();
                self.pick_file(Pick::SaveScene, dir);
                return;
            }
        };
        self.apply(Event::Scene(event));
    }

    /// Delete, copy or paste across the timeline's sections: one action,
    /// undone at once.
    pub(super) fn scene_key_command(&mut self, c: UiCommand) {
        let sections = timeline_sections(&self.ws);
        let active = self.doc().map(|d| d.id);
        let mut views = Views::of(self.ws.docs());
        let edits = timeline::scene_command(
            self.ws.docs(),
            &mut views,
            &sections,
            active,
            &mut self.shared,
            &mut self.timeline,
            c,
        );
        self.sync_transport();
        self.apply_views(views);
        if !edits.is_empty() {
            self.apply(Event::Edit(edits));
        }
    }

    /// A bone of actor `actor` was clicked in the viewport: the timeline
    /// picks its row in the actor's motion, selects its key at the
    /// playhead (if any) and scrolls to it; the motion becomes active.
    pub(super) fn bone_picked(&mut self, actor: usize, name: &str) {
        let Some(a) = self.ws.scene().actors.get(actor) else {
            return;
        };
        let (Some(id), offset) = (a.motion, a.offset) else {
            return;
        };
        let frame = self.ws.transport().frame;
        let mut views = Views::of(self.ws.docs());
        let found = timeline::reveal_bone(
            self.ws.docs(),
            &mut views,
            &mut self.timeline,
            id,
            offset,
            name,
            frame,
        );
        self.apply_views(views);
        if found {
            self.activate(id);
        }
    }

    /// Draws the scene timeline and applies what it returns.
    pub(super) fn timeline_ui(&mut self, ui: &mut egui::Ui) {
        let sections = timeline_sections(&self.ws);
        let last = self.ws.scene_end();
        let active = self.doc().map(|d| d.id);
        let mut views = Views::of(self.ws.docs());
        let out = timeline::ui(
            ui,
            self.ws.docs(),
            &mut views,
            &sections,
            active,
            last,
            &mut self.shared,
            &mut self.timeline,
        );
        // The playhead first: the panel's copy is what it changed.
        self.sync_transport();
        self.apply_views(views);
        if let Some(id) = out.activate {
            self.activate(id);
        }
        if !out.edits.is_empty() {
            self.apply(Event::Edit(out.edits));
        }
    }
}
