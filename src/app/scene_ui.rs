//! The scene's panels glued to the app: the scene panel's actions and the
//! one timeline of every file (drawing through the panels, applying what
//! they return).

use super::*;
use crate::scene::ModelRef;

impl StudioApp {
    /// The scene panel (left side), and the changes it asks for.
    pub(super) fn scene_panel_ui(&mut self, ui: &mut egui::Ui) {
        let active = self.doc().map(|d| d.id);
        let actions =
            super::panels::scene::ui(ui, &self.scene, &self.docs, active, &mut self.scene_panel);
        for a in actions {
            self.scene_action(a);
        }
    }

    /// Applies a scene-panel action.
    pub fn scene_action(&mut self, a: super::panels::scene::Action) {
        use super::jobs::Pick;
        use super::panels::scene::Action;
        let s = &mut self.scene.scene;
        let mut changed = true;
        match a {
            Action::SelectActor(i) => {
                self.scene.selected_actor = Some(i);
                if let Some(id) = s.actors.get(i).and_then(|a| a.motion)
                    && let Some(k) = self.doc_index(id)
                {
                    self.active = k;
                }
                changed = false;
            }
            Action::AddActor => {
                let i = s.add_actor();
                self.scene.selected_actor = Some(i);
            }
            Action::RemoveActor(i) => {
                if i < s.actors.len() {
                    s.actors.remove(i);
                }
                self.scene.selected_actor = match self.scene.selected_actor {
                    Some(j) if j > i => Some(j - 1),
                    Some(j) if j == i => s.actors.len().checked_sub(1),
                    other => other,
                };
            }
            Action::RenameActor(i, name) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.name = name;
                }
            }
            Action::SetMotion(i, m) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.motion = m;
                }
            }
            Action::SetOffset(i, off) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.offset = off;
                }
            }
            Action::LoadModel(i) => {
                self.scene.selected_actor = Some(i);
                let dir = self.start_dir();
                self.pick_file(Pick::Model, dir);
                changed = false;
            }
            Action::BuiltinModel(i) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.model = ModelRef::Builtin;
                }
            }
            Action::SetCamera(c) => s.camera = c,
            Action::SetLight(l) => s.light = l,
            Action::Activate(id) => {
                if let Some(k) = self.doc_index(id) {
                    self.active = k;
                }
                changed = false;
            }
            Action::OpenScene => {
                let dir = self.start_dir();
                self.pick_file(Pick::OpenScene, dir);
                changed = false;
            }
            Action::SaveScene => {
                match self.scene.path.clone() {
                    Some(p) => self.save_scene_to(p),
                    None => {
                        let dir = self.start_dir();
                        self.pick_file(Pick::SaveScene, dir);
                    }
                }
                changed = false;
            }
            Action::SaveSceneAs => {
                let dir = self.start_dir();
                self.pick_file(Pick::SaveScene, dir);
                changed = false;
            }
        }
        if changed {
            self.scene.modified = true;
        }
    }
}

impl StudioApp {
    /// The timeline's sections: camera, light (if another file), each
    /// actor's motion, then open files outside the scene.
    pub fn timeline_sections(&self) -> Vec<super::panels::timeline::Section> {
        use super::panels::timeline::Section;
        let s = &self.scene.scene;
        let mut out: Vec<Section> = Vec::new();
        let push = |out: &mut Vec<Section>, id: u64, role: String, offset: i32| {
            if !out.iter().any(|x| x.doc_id == id) {
                out.push(Section {
                    doc_id: id,
                    role,
                    offset,
                });
            }
        };
        if let Some(c) = s.camera {
            let role = if s.light == Some(c) {
                "Camera + light"
            } else {
                "Camera"
            };
            push(&mut out, c, role.to_owned(), 0);
        }
        if let Some(l) = s.light {
            push(&mut out, l, "Light".to_owned(), 0);
        }
        for a in &s.actors {
            if let Some(m) = a.motion {
                push(&mut out, m, a.name.clone(), a.offset);
            }
        }
        for d in &self.docs {
            push(&mut out, d.id, "Not in the scene".to_owned(), 0);
        }
        out
    }

    /// Delete, copy or paste across the timeline's sections: one action,
    /// undone at once.
    pub(super) fn scene_key_command(&mut self, c: super::command::Command) {
        let sections = self.timeline_sections();
        let active = self.doc().map(|d| d.id);
        let edits = super::panels::timeline::scene_command(
            &mut self.docs,
            &sections,
            active,
            &mut self.shared,
            &mut self.dope_sheet,
            c,
        );
        self.request_group(edits);
    }

    /// A bone of actor `actor` was clicked in the viewport: the timeline
    /// picks its row in the actor's motion, selects its key at the
    /// playhead (if any) and scrolls to it; the motion becomes active.
    pub(super) fn bone_picked(&mut self, actor: usize, name: &str) {
        let Some(a) = self.scene.scene.actors.get(actor) else {
            return;
        };
        let (Some(id), offset) = (a.motion, a.offset) else {
            return;
        };
        let frame = self.shared.transport.frame;
        if super::panels::timeline::reveal_bone(
            &mut self.docs,
            &mut self.dope_sheet,
            id,
            offset,
            name,
            frame,
        ) && let Some(i) = self.doc_index(id)
        {
            self.active = i;
        }
    }

    /// Draws the scene timeline and applies what it returns.
    pub(super) fn timeline_ui(&mut self, ui: &mut egui::Ui) {
        let sections = self.timeline_sections();
        let last = sections
            .iter()
            .filter_map(|s| {
                let d = self.docs.iter().find(|d| d.id == s.doc_id)?;
                let f = i64::from(d.motion.last_frame()?) + i64::from(s.offset);
                Some(f.clamp(0, i64::from(u32::MAX)) as u32)
            })
            .max()
            .unwrap_or(0);
        let active = self.doc().map(|d| d.id);
        let out = super::panels::timeline::ui(
            ui,
            &mut self.docs,
            &sections,
            active,
            last,
            &mut self.shared,
            &mut self.dope_sheet,
        );
        if let Some(id) = out.activate
            && let Some(i) = self.doc_index(id)
        {
            self.active = i;
        }
        self.request_group(out.edits);
    }
}
