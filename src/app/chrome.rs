//! The window's frame around the panels: the menu bar, the document tabs,
//! the status bar and the unsaved-changes guard (drawing and what their
//! clicks ask for; the commands themselves run in `execute`).

use std::path::PathBuf;

use super::command::UiCommand;
use super::{AfterClose, StudioApp, panels};
use crate::workspace::{Event, TransportEvent};

impl StudioApp {
    pub(super) fn menu_bar(&mut self, ui: &mut egui::Ui) {
        let has_doc = self.doc().is_some();
        // Undo and redo act on the last edit made anywhere in the scene:
        // the label names it and its file.
        let ws = &self.ws;
        let label_of = |undo: bool| {
            let l = ws.step_label(undo)?;
            let Some(d) = ws.step_target(undo).and_then(|id| ws.doc(id)) else {
                // A scene action (add an actor, an offset): no file changes.
                return Some(format!("{l} (scene)"));
            };
            // An action across timeline sections changes several files at once.
            match ws.step_files(undo) {
                n if n > 1 => Some(format!("{l} ({} and {} more)", d.title(), n - 1)),
                _ => Some(format!("{l} ({})", d.title())),
            }
        };
        let (can_undo, can_redo) = (ws.can_step(true), ws.can_step(false));
        let (undo_label, redo_label) = (label_of(true), label_of(false));
        egui::MenuBar::new().ui(ui, |ui| {
            // Clicks inside this menu do not close it (its typed-path fields
            // must take a click); each action closes it itself.
            let keep_open = egui::containers::menu::MenuConfig::new()
                .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
            egui::containers::menu::MenuButton::new("File")
                .config(keep_open)
                .ui(ui, |ui| {
                    if UiCommand::Open.menu_button(ui, true) {
                        self.run_command(UiCommand::Open);
                        ui.close();
                    }
                    ui.menu_button("Open recent", |ui| {
                        if self.recent.is_empty() {
                            ui.weak("No recent files");
                        }
                        for p in self.recent.clone() {
                            if ui.button(p.display().to_string()).clicked() {
                                self.open_paths(vec![p]);
                                ui.close();
                            }
                        }
                    });
                    ui.horizontal(|ui| {
                        let l = ui.label("Path:");
                        let r = ui
                            .add(
                                egui::TextEdit::singleline(&mut self.path_field)
                                    .hint_text("/path/to/file.vmd")
                                    .desired_width(220.0),
                            )
                            .labelled_by(l.id);
                        let enter = (r.lost_focus() || r.has_focus())
                            && ui.input(|i| i.key_pressed(egui::Key::Enter));
                        if (ui.button("Open").clicked() || enter)
                            && !self.path_field.trim().is_empty()
                        {
                            let p = PathBuf::from(self.path_field.trim());
                            self.open_paths(vec![p]);
                            ui.close();
                        }
                    });
                    if ui.button("Open demo").clicked() {
                        self.open_demo();
                        ui.close();
                    }
                    self.song_menu(ui);
                    ui.separator();
                    if ui
                        .button("Open scene…")
                        .on_hover_text("Open a .vmdscene file: actors, motions, camera, light")
                        .clicked()
                    {
                        self.scene_action(panels::scene::Action::OpenScene);
                        ui.close();
                    }
                    if ui
                        .button("Save scene")
                        .on_hover_text(
                            "Save the arrangement and every motion with unsaved edits \
                         (motions without edits are not rewritten)",
                        )
                        .clicked()
                    {
                        self.scene_action(panels::scene::Action::SaveScene);
                        ui.close();
                    }
                    if ui.button("Save scene as…").clicked() {
                        self.scene_action(panels::scene::Action::SaveSceneAs);
                        ui.close();
                    }
                    if ui
                        .button("Export video…")
                        .on_hover_text(
                            "The scene through its camera as an MP4 with the song (needs \
                             ffmpeg), or as a PNG sequence",
                        )
                        .clicked()
                    {
                        self.open_export_video();
                        ui.close();
                    }
                    ui.separator();
                    if UiCommand::Save.menu_button(ui, has_doc) {
                        self.run_command(UiCommand::Save);
                        ui.close();
                    }
                    if UiCommand::SaveAs.menu_button(ui, has_doc) {
                        self.run_command(UiCommand::SaveAs);
                        ui.close();
                    }
                    ui.horizontal(|ui| {
                        let l = ui.label("Save to path:");
                        let r = ui
                            .add(
                                egui::TextEdit::singleline(&mut self.save_path_field)
                                    .hint_text("/path/to/new.vmd")
                                    .desired_width(200.0),
                            )
                            .labelled_by(l.id);
                        let enter = (r.lost_focus() || r.has_focus())
                            && ui.input(|i| i.key_pressed(egui::Key::Enter));
                        if (ui.add_enabled(has_doc, egui::Button::new("Save")).clicked() || enter)
                            && !self.save_path_field.trim().is_empty()
                            && let Some(id) = self.doc().map(|d| d.id)
                        {
                            let p = PathBuf::from(self.save_path_field.trim());
                            self.save_doc_to(id, p);
                            ui.close();
                        }
                    });
                    ui.separator();
                    if UiCommand::LoadModel.menu_button(ui, true) {
                        self.run_command(UiCommand::LoadModel);
                        ui.close();
                    }
                    let can_merge = self
                        .ws
                        .selected_actor()
                        .or(Some(0))
                        .and_then(|i| self.ws.scene().actors.get(i))
                        .is_some_and(|a| a.motion.is_some());
                    if UiCommand::MergeMotion.menu_button(ui, can_merge) {
                        self.run_command(UiCommand::MergeMotion);
                        ui.close();
                    }
                    ui.separator();
                    if UiCommand::CloseTab.menu_button(ui, has_doc) {
                        self.run_command(UiCommand::CloseTab);
                        ui.close();
                    }
                    if ui.button("Quit").clicked() {
                        ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                        ui.close();
                    }
                });
            ui.menu_button("Edit", |ui| {
                let undo = UiCommand::Undo.menu_button(ui, can_undo);
                if let Some(l) = &undo_label {
                    ui.weak(format!("  {l}"));
                }
                if undo {
                    self.run_command(UiCommand::Undo);
                }
                if UiCommand::Redo.menu_button(ui, can_redo) {
                    self.run_command(UiCommand::Redo);
                }
                if let Some(l) = &redo_label {
                    ui.weak(format!("  {l}"));
                }
                ui.separator();
                for c in [
                    UiCommand::CopyKeys,
                    UiCommand::PasteKeys,
                    UiCommand::InsertKey,
                    UiCommand::DeleteKeys,
                    UiCommand::SelectAll,
                    UiCommand::SelectAtFrame,
                ] {
                    if c.menu_button(ui, has_doc) {
                        self.run_command(c);
                    }
                }
                ui.separator();
                if let Some(e) = super::settings::undo_budget_ui(ui, &self.ws) {
                    self.apply(e);
                }
            });
            ui.menu_button("View", |ui| {
                for c in [
                    UiCommand::ShowDopeSheet,
                    UiCommand::ShowCurves,
                    UiCommand::ShowPreview,
                    UiCommand::ShowForensics,
                    UiCommand::FitAll,
                ] {
                    if c.menu_button(ui, true) {
                        self.run_command(c);
                    }
                }
            });
            ui.menu_button("Playback", |ui| {
                for c in [
                    UiCommand::PlayPause,
                    UiCommand::StepBack,
                    UiCommand::StepForward,
                    UiCommand::PrevKey,
                    UiCommand::NextKey,
                    UiCommand::Home,
                    UiCommand::End,
                    UiCommand::PrevCut,
                    UiCommand::NextCut,
                ] {
                    if c.menu_button(ui, true) {
                        self.run_command(c);
                    }
                }
                ui.separator();
                ui.label("Preview rate");
                let mut chosen = self.ws.transport().preview_rate;
                for rate in [30, 60, 120] {
                    ui.radio_value(&mut chosen, rate, format!("{rate} fps"));
                }
                if chosen != self.ws.transport().preview_rate {
                    self.transport(TransportEvent::SetRate(chosen));
                }
            });
            ui.menu_button("Tools", |ui| {
                if self.doc().is_some() {
                    panels::toolbox::menu(ui, &mut self.toolbox);
                } else {
                    ui.weak("Open a file first");
                }
            });
        });
    }

    pub(super) fn tabs(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            let (mut close, mut pick) = (None, None);
            let active = self.ws.active_index();
            for (i, d) in self.ws.docs().iter().enumerate() {
                let r = ui.selectable_label(i == active, d.title());
                let r = match &d.path {
                    Some(p) => r.on_hover_text(p.display().to_string()),
                    None => r,
                };
                if r.clicked() {
                    pick = Some(d.id);
                }
                if r.middle_clicked() {
                    close = Some(d.id);
                }
            }
            if let Some(id) = pick {
                self.activate(id);
            }
            if let Some(id) = close {
                self.activate(id);
                self.run_command(UiCommand::CloseTab);
            }
            if self.jobs.is_busy() {
                ui.separator();
                ui.spinner();
            }
        });
    }

    pub(super) fn status_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let t = self.ws.transport();
            ui.monospace(format!(
                "frame {:>6.1}  {:>7.2} s {}",
                t.frame,
                t.frame / 30.0,
                if t.playing { "playing" } else { "paused" }
            ));
            ui.separator();
            self.song_status(ui);
            if let Some((msg, err)) = self.shared.messages.last() {
                if *err {
                    ui.colored_label(ui.visuals().error_fg_color, msg);
                } else {
                    ui.label(msg);
                }
                if self.shared.messages.len() > 1 {
                    ui.menu_button(format!("({} messages)", self.shared.messages.len()), |ui| {
                        for (m, e) in self.shared.messages.iter().rev().take(30) {
                            if *e {
                                ui.colored_label(ui.visuals().error_fg_color, m);
                            } else {
                                ui.label(m);
                            }
                        }
                    });
                }
                if ui
                    .small_button("Clear")
                    .on_hover_text("Dismiss messages")
                    .clicked()
                {
                    self.shared.messages.clear();
                }
            }
        });
    }

    pub(super) fn close_guard_modal(&mut self, ctx: &egui::Context) {
        let Some(guard) = self.close_guard.clone() else {
            return;
        };
        let Some(doc) = self.ws.docs().iter().find(|d| d.id == guard.doc_id) else {
            self.close_guard = None;
            return;
        };
        let title = doc.title();
        let mut choice = None;
        egui::Modal::new(egui::Id::unique("close-guard")).show(ctx, |ui| {
            ui.heading("Unsaved changes");
            ui.label(format!("{title} has edits that are not saved."));
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    choice = Some(0);
                }
                if ui.button("Discard").clicked() {
                    choice = Some(1);
                }
                if ui.button("Cancel").clicked() {
                    choice = Some(2);
                }
            });
        });
        match choice {
            Some(0) => {
                self.close_guard = None;
                if self.ws.doc(guard.doc_id).is_some() {
                    self.activate(guard.doc_id);
                    self.after_save = Some(guard.clone());
                    self.run_command(UiCommand::Save);
                }
            }
            Some(1) => {
                self.close_guard = None;
                match guard.then {
                    AfterClose::CloseDoc => self.close_doc(guard.doc_id),
                    AfterClose::Quit => {
                        // Discard this one's edits, then close again: the
                        // guard asks about the next modified file, if any.
                        self.apply(Event::Discard(guard.doc_id));
                        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    }
                }
            }
            Some(_) => {
                self.close_guard = None;
            }
            None => {}
        }
    }
}
