//! Drawing the window: the frame's layout (menu bar, tabs, side and
//! central panels), playback ticking and the modal dialogs.

use super::AfterClose;
use super::CloseGuard;
use super::StudioApp;
use super::chrome;
use super::command::UiCommand;
use super::dock::Panel;
use super::jobs::Pick;
use super::panels;
use super::recovery::OfferChoice;
use super::saving;
use super::scene_ops;
use super::scene_ui;
use super::song;
use crate::workspace::Event;
use crate::workspace::TransportEvent;
use std::path::Path;
use std::sync::Arc;

impl StudioApp {
    /// Advances playback in real time at 30 fps (frames are dropped, never slowed).
    pub(super) fn tick_playback(&mut self, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        if !self.ws.transport().playing {
            self.window.last_tick = None;
            return;
        }
        let seconds = self
            .window
            .last_tick
            .map_or(0.0, |last| (now - last).max(0.0));
        self.window.last_tick = Some(now);
        self.transport(TransportEvent::Advance { seconds });
        ctx.request_repaint();
    }

    /// Draws the whole window (the eframe `ui` entry point, also used by tests).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.shared.transport = self.ws.transport().clone();
        // What the panels drawn early (status bar, tabs, key panel) show:
        // if a later panel changes it this frame, draw once more.
        let before = self.redraw_key();
        self.begin_frame(&ctx);
        self.menu_and_status(ui);
        self.central_ui(ui);
        self.toolbox_windows(&ctx);
        self.sync_transport();
        // Whatever a panel changed on its copy of the transport.
        self.sync_transport();
        self.dialogs(&ctx);
        self.run_pending();
        self.toolbox_apply();
        self.keep_up(&ctx);
        let after = self.redraw_key();
        if after != before {
            ctx.request_repaint();
        }
        let busy = self.jobs.is_busy() || self.shared.song.loading().is_some();
        if let Some(plan) = &mut self.window.screenshot {
            plan.step(&ctx, busy);
        }
    }

    /// What the panels drawn early (status bar, tabs, key panel) show: the
    /// frame, the active file, the files' revisions, the file browser.
    fn redraw_key(&self) -> (f64, usize, u64, bool) {
        (
            self.ws.transport().frame,
            self.ws.active_index(),
            self.ws.docs().iter().map(|d| d.revision).sum::<u64>(),
            self.files.file_browser.is_some(),
        )
    }

    /// The frame's start: finished jobs, dropped files, a pending
    /// `--select`, the close request (and its guard), shortcuts, playback and
    /// the song.
    fn begin_frame(&mut self, ctx: &egui::Context) {
        self.jobs.set_context(ctx);
        self.poll_jobs();
        self.handle_dropped_files(ctx);
        if !self.jobs.is_busy()
            && let Some(spec) = self.window.pending_select.take()
            && !self.select_key(&spec)
        {
            self.shared
                .error(format!("--select {spec}: no such key in the active file"));
        }
        if std::mem::take(&mut self.window.close_window) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        // A screenshot run closes by itself once the picture is saved; its
        // edits (e.g. a `--merge`) are not the user's work, so no guard.
        if ctx.input(|i| i.viewport().close_requested())
            && self.window.screenshot.is_none()
            && let Some(d) = self.ws.docs().iter().find(|d| d.is_modified())
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.window.close_guard = Some(CloseGuard {
                doc_id: d.id,
                then: AfterClose::Quit,
            });
        }
        let cmds = UiCommand::from_input(ctx);
        self.window.commands.extend(cmds);
        self.tick_playback(ctx);
        let events = song::frame(
            &mut self.shared.song,
            &self.ws,
            &mut self.shared.transport,
            &self.shared.jobs,
            ctx,
        );
        let notes = std::mem::take(&mut self.shared.song.messages);
        self.shared.messages.extend(notes);
        self.apply_all(events);
    }

    /// The menu bar with the tabs, and the status bar.
    fn menu_and_status(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("menu").show(ui, |ui| {
            let input = chrome::MenuInput {
                ws: &self.ws,
                recent: &self.files.recent,
                has_song: self.shared.song.song.is_some(),
                dock: &self.panels.dock,
            };
            let mut asked = chrome::menu_bar(
                ui,
                &input,
                &mut self.panels.chrome,
                &mut self.panels.toolbox,
                &mut self.panels.viewport.posing.physics,
                &mut self.panels.viewport.posing.collide_actors,
            );
            asked.extend(chrome::tabs(ui, &self.ws, self.jobs.is_busy()));
            self.chrome_requests(asked);
        });
        egui::Panel::bottom("status").show(ui, |ui| {
            chrome::status_bar(
                ui,
                &self.ws,
                &mut self.shared,
                &mut self.panels.viewport.posing.physics,
            )
        });
    }

    /// The central area: the docked panels, or the start page when nothing
    /// is open.
    fn central_ui(&mut self, ui: &mut egui::Ui) {
        if self.ws.docs().is_empty() && self.ws.scene().actors.is_empty() {
            egui::CentralPanel::default().show(ui, |ui| {
                ui.vertical_centered(|ui| {
                    ui.add_space(80.0);
                    ui.heading("VMD Studio");
                    ui.label(
                        "Open a VMD file (Ctrl+O), drop files onto the window, or open the demo.",
                    );
                    if ui.button("Open…").clicked() {
                        self.run_command(UiCommand::Open);
                    }
                    if ui.button("Open demo").clicked() {
                        self.open_demo();
                    }
                });
            });
        } else {
            egui::CentralPanel::default()
                .frame(egui::Frame::new().fill(ui.visuals().panel_fill))
                .show(ui, |ui| self.dock_ui(ui));
        }
    }

    /// The toolbox's windows, on the file the open dialog targets (Bake
    /// physics simulates the model of the actor wearing it).
    fn toolbox_windows(&mut self, ctx: &egui::Context) {
        let target = self.panels.toolbox.target_index(&self.ws);
        let wearer = self
            .ws
            .docs()
            .get(target)
            .and_then(|d| self.ws.wearer(d.id))
            .and_then(|i| self.ws.scene().actors.get(i));
        self.panels.toolbox.wearer_offset = wearer.map_or(0, |a| a.offset);
        self.panels.toolbox.wearer_model = wearer.and_then(|a| match &a.model {
            crate::scene::ModelRef::File(p) => {
                Some((a.name.clone(), Arc::clone(self.scene.models.get(p)?)))
            }
            crate::scene::ModelRef::Builtin => None,
        });
        if self.panels.toolbox.open == Some(panels::toolbox::Tool::Sizing) {
            let sizing = &mut self.panels.toolbox.sizing;
            sizing.actors = scene_ops::actor_models(&self.ws, &self.scene);
            sizing.wearer = self
                .ws
                .docs()
                .get(target)
                .and_then(|d| self.ws.wearer(d.id));
        }
        panels::toolbox::windows(
            ctx,
            self.ws.docs(),
            target,
            &mut self.shared,
            &mut self.panels.toolbox,
        );
        if self.panels.toolbox.sizing.take_browse() {
            let dir = self.panels.toolbox.sizing.browse_dir();
            let dir = dir.or_else(|| self.start_dir());
            self.pick_file(Pick::SizingSource, dir);
        }
    }

    /// The modal windows: close guard, file browser, video export, disk
    /// conflict, recovery offer.
    fn dialogs(&mut self, ctx: &egui::Context) {
        self.close_guard_ui(ctx);
        self.file_browser_ui(ctx);
        self.export_video.ui(
            ctx,
            &self.ws,
            &self.scene,
            &self.panels.viewport,
            &mut self.shared,
        );
        if self.export_video.take_browse() {
            let dir = self.export_video.folder().or_else(|| self.start_dir());
            self.pick_file(Pick::ExportVideo, dir);
        }
        self.disk_conflict_ui(ctx);
        match self.recovery.window(ctx) {
            Some(OfferChoice::Restore) => self.restore_recovered(),
            Some(OfferChoice::Discard) => self.discard_recovered(),
            Some(OfferChoice::Later) => self.keep_recovered(),
            None => {}
        }
    }

    /// After the frame's commands: the recovery copy, the window title and
    /// repaints while jobs run.
    fn keep_up(&mut self, ctx: &egui::Context) {
        self.recovery
            .tick(&self.ws, self.scene.path.as_deref(), &mut self.shared, ctx);
        let title = super::window_title(&self.ws);
        // Only on change: every viewport command also requests a repaint,
        // and sending it each frame would keep an idle window redrawing.
        if self.window.title != title {
            self.window.title = title.clone();
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title));
        }
        if self.jobs.is_busy() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
    }

    /// The docked panels, filling `ui`.
    fn dock_ui(&mut self, ui: &mut egui::Ui) {
        self.panels.dock.prepare(ui.available_size());
        self.panels.dock.follow(self.panels.central);
        self.panels
            .dock
            .follow_timeline(self.panels.show_dope_sheet);
        let Some(mut tree) = self.panels.dock.tree.take() else {
            return;
        };
        if let Some(m) = self.panels.dock.message.take() {
            self.shared.error(m);
        }
        let mut behavior = DockBehavior {
            app: self,
            close: None,
        };
        tree.ui(&mut behavior, ui);
        if let Some(id) = behavior.close {
            tree.remove_recursively(id);
        }
        self.panels.dock.tree = Some(tree);
        self.panels.show_dope_sheet = self.panels.dock.note_timeline();
    }

    /// Draws one docked panel.
    fn panel_ui(&mut self, ui: &mut egui::Ui, panel: Panel) {
        match panel {
            Panel::Viewport => self.viewport_ui(ui, false),
            Panel::SecondView => self.viewport_ui(ui, true),
            Panel::Timeline => {
                let events = scene_ui::timeline_ui(
                    ui,
                    &self.ws,
                    &mut self.shared,
                    &mut self.panels.timeline,
                );
                self.apply_all(events);
            }
            Panel::Curves => {
                self.with_focus(|cx, p| panels::curve_editor::ui(ui, cx, &mut p.curve_editor));
            }
            Panel::ValueGraph => {
                self.with_focus(|cx, p| panels::value_graph::ui(ui, cx, &mut p.value_graph));
            }
            Panel::Forensics => {
                self.with_focus(|cx, p| panels::forensics::ui(ui, cx, &mut p.forensics));
            }
            Panel::Scene => scrolled(ui, "dock-scene", |ui| self.scene_panel_ui(ui)),
            Panel::Inspector => scrolled(ui, "dock-inspector", |ui| {
                self.with_active(|cx, p| panels::inspector::ui(ui, cx, &mut p.inspector));
            }),
            Panel::KeyFields => scrolled(ui, "dock-key-fields", |ui| {
                self.with_focus(|cx, p| panels::key_panel::ui(ui, cx, &mut p.key_panel));
            }),
            Panel::Toolbox => scrolled(ui, "dock-toolbox", |ui| {
                if self.ws.docs().is_empty() {
                    ui.weak("Open a file to use the toolbox");
                } else {
                    panels::toolbox::ui(ui, &mut self.panels.toolbox);
                }
            }),
        }
    }

    /// A 3D view (the first, or the second beside it) and what it asks
    /// for; both pose through the one [`panels::viewport::State::posing`].
    fn viewport_ui(&mut self, ui: &mut egui::Ui, second: bool) {
        let out = {
            let mut view = scene_ops::scene_view(&self.ws, &self.scene);
            // Tools ▸ Size motion's preview: the sized motion on its actor.
            if let Some((i, sized)) = self.panels.toolbox.viewport_preview(&self.ws)
                && let Some(a) = view.actors.get_mut(i)
            {
                a.motion = Some(sized);
            }
            let vp = &mut self.panels.viewport;
            let which = if second { &mut vp.second } else { &mut vp.view };
            panels::viewport::ui(ui, &mut vp.posing, which, &view, &mut self.shared)
        };
        // The viewport edits the scene camera's keys and (posing) the
        // actors' motions, each on its document.
        self.apply_all(out.events);
        // A bone clicked in the view: its row (and key) in the timeline.
        if let Some(b) = out.picked {
            let events =
                scene_ui::bone_picked(&self.ws, &mut self.panels.timeline, b.actor, &b.name);
            self.apply_all(events);
        }
    }

    /// The scene panel (left side), and the changes it asks for.
    pub(super) fn scene_panel_ui(&mut self, ui: &mut egui::Ui) {
        let active = self.doc().map(|d| d.id);
        let actions = panels::scene::ui(ui, &self.ws, &self.scene, active, &mut self.panels.scene);
        for a in actions {
            self.scene_action(a);
        }
    }

    /// Carries out what the menu bar and the tabs asked for.
    pub(super) fn chrome_requests(&mut self, asked: Vec<chrome::Request>) {
        use chrome::Request;
        for r in asked {
            match r {
                Request::Command(c) => self.run_command(c),
                Request::Event(e) => {
                    self.apply(e);
                }
                Request::OpenPaths(p) => self.open_paths(p),
                Request::OpenDemo => self.open_demo(),
                Request::Scene(a) => self.scene_action(a),
                Request::ExportVideo => self.open_export_video(),
                Request::SaveTo { doc, path } => self.save_doc_to(doc, path),
                Request::PickSong => {
                    let dir = self
                        .shared
                        .song
                        .path
                        .as_ref()
                        .and_then(|p| p.parent().map(Path::to_path_buf))
                        .or_else(|| self.start_dir());
                    self.pick_file(Pick::Song, dir);
                }
                Request::TogglePanel(p) => {
                    self.panels.dock.toggle(p);
                    if p == Panel::Timeline {
                        self.panels.show_dope_sheet = self.panels.dock.is_open(p);
                    }
                }
                Request::ResetLayout => {
                    self.panels.dock.reset();
                    self.panels.show_dope_sheet = true;
                    self.panels.central = super::CentralView::Preview;
                }
                Request::UsePreset(p) => {
                    self.panels.dock.use_preset(p);
                    self.panels.show_dope_sheet = true;
                    self.panels.central = super::CentralView::Preview;
                }
                Request::SavePreset(p) => {
                    self.panels.dock.save_preset(p);
                    self.shared
                        .info(format!("The layout is kept as the {} preset", p.label()));
                }
                Request::RestorePresets => {
                    for p in super::dock::Preset::ALL {
                        self.panels.dock.restore_preset(p);
                    }
                }
                Request::RemoveSong => {
                    self.shared.song.clear();
                    if self.ws.scene().song.is_some() {
                        self.apply(Event::Scene(crate::workspace::SceneEvent::SetSong(None)));
                    }
                }
            }
        }
    }

    /// The question asked when a save meets a file changed on disk, and
    /// its answer.
    pub(super) fn disk_conflict_ui(&mut self, ctx: &egui::Context) {
        use saving::DiskChoice;
        let Some(c) = self.saves.disk_conflict.clone() else {
            return;
        };
        if !self.ws.docs().iter().any(|d| d.id == c.doc_id) {
            self.saves.disk_conflict = None;
            return;
        }
        let Some(choice) = saving::disk_conflict_modal(ctx, &c) else {
            return;
        };
        self.saves.disk_conflict = None;
        match choice {
            DiskChoice::Overwrite => self.save_doc_overwriting(c.doc_id, c.path),
            DiskChoice::Reload => {
                self.window.after_save = None;
                // An unmodified document is replaced by the file when it is
                // opened again (see `poll_jobs`).
                self.apply(Event::Discard(c.doc_id));
                self.open_paths(vec![c.path]);
            }
            DiskChoice::Cancel => self.window.after_save = None,
        }
    }

    /// The unsaved-changes question, while one is asked, and its answer.
    pub(super) fn close_guard_ui(&mut self, ctx: &egui::Context) {
        use chrome::GuardChoice;
        let Some(guard) = self.window.close_guard.clone() else {
            return;
        };
        let Some(title) = super::guard_subject(&self.ws, &guard) else {
            self.window.close_guard = None;
            return;
        };
        match chrome::close_guard_modal(ctx, &title) {
            Some(GuardChoice::Save) => {
                self.window.close_guard = None;
                self.activate(guard.doc_id);
                self.window.after_save = Some(guard);
                self.run_command(UiCommand::Save);
            }
            Some(GuardChoice::Discard) => {
                self.window.close_guard = None;
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
            Some(GuardChoice::Cancel) => self.window.close_guard = None,
            None => {}
        }
    }
}

/// A side panel's content, scrolled when it does not fit its tile.
fn scrolled(ui: &mut egui::Ui, salt: &str, add: impl FnOnce(&mut egui::Ui)) {
    egui::ScrollArea::vertical()
        .id_salt(salt)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::Frame::new()
                .inner_margin(egui::Margin::symmetric(6, 4))
                .show(ui, add);
        });
}

/// Draws the tiles of the docked layout through the app.
struct DockBehavior<'a> {
    app: &'a mut StudioApp,
    /// A tab whose close button was clicked (closed after drawing).
    close: Option<egui_tiles::TileId>,
}

impl egui_tiles::Behavior<Panel> for DockBehavior<'_> {
    fn pane_ui(
        &mut self,
        ui: &mut egui::Ui,
        _tile_id: egui_tiles::TileId,
        panel: &mut Panel,
    ) -> egui_tiles::UiResponse {
        // Each panel in its own child, clipped to its tile.
        let rect = ui.max_rect();
        ui.scope_builder(
            egui::UiBuilder::new()
                .max_rect(rect)
                .id_salt(("dock-pane", *panel)),
            |ui| {
                ui.set_clip_rect(rect.intersect(ui.clip_rect()));
                self.app.panel_ui(ui, *panel);
            },
        );
        egui_tiles::UiResponse::None
    }

    fn tab_title_for_pane(&mut self, panel: &Panel) -> egui::WidgetText {
        panel.title().into()
    }

    /// The close button of a tab group's front panel, at the right of its
    /// tab bar (one per group, so the File menu's Close stays the only
    /// "Close" in the window).
    fn top_bar_right_ui(
        &mut self,
        tiles: &egui_tiles::Tiles<Panel>,
        ui: &mut egui::Ui,
        _tile_id: egui_tiles::TileId,
        tabs: &egui_tiles::Tabs,
        _scroll_offset: &mut f32,
    ) {
        let Some(active) = tabs.active else {
            return;
        };
        let Some(panel) = tiles.get_pane(&active) else {
            return;
        };
        let r = ui
            .add(egui::Button::new("✕").frame(false).small())
            .on_hover_text(format!(
                "Close the {} panel (View ▸ Panels brings it back)",
                panel.title()
            ));
        r.widget_info(|| {
            egui::WidgetInfo::labeled(
                egui::Role::Button,
                ui.is_enabled(),
                format!("Close panel {}", panel.title()),
            )
        });
        if r.clicked() {
            self.close = Some(active);
        }
    }

    fn simplification_options(&self) -> egui_tiles::SimplificationOptions {
        egui_tiles::SimplificationOptions {
            // Every panel keeps a tab: its handle to move and close it.
            all_panes_must_have_tabs: true,
            ..Default::default()
        }
    }

    fn gap_width(&self, _style: &egui::Style) -> f32 {
        2.0
    }
}
