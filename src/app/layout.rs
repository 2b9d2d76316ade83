//! Drawing the window: the frame's panels (menu bar, tabs, status bar,
//! the docked panels, the toolbox's windows) over [`Frame`], which borrows
//! the workspace, the shared frame state and the panels' own state, and
//! collects what they ask of the shell as [`Request`]s; playback ticking;
//! and the modal questions, which return the user's answer.

use super::AfterClose;
use super::CloseGuard;
use super::Panels;
use super::StudioApp;
use super::Window;
use super::chrome;
use super::chrome::Request;
use super::command::UiCommand;
use super::commands;
use super::dock::Panel;
use super::edits::{self, Edits};
use super::files;
use super::jobs::Pick;
use super::panels;
use super::panels::PanelCtx;
use super::panels::Shared;
use super::recovery::OfferChoice;
use super::scene_ops;
use super::scene_ui;
use super::song;
use crate::workspace::TransportEvent;
use crate::workspace::Workspace;
use std::path::PathBuf;
use std::sync::Arc;

/// One stage of drawing the frame: what the panels read and change, and
/// what they ask of the shell (carried out by the shell after the stage,
/// in order).
pub struct Frame<'a> {
    pub ws: &'a mut Workspace,
    pub shared: &'a mut Shared,
    pub panels: &'a mut Panels,
    /// The loaded models, pending opens and the scene file's path.
    pub scene: &'a scene_ops::SceneState,
    /// The recent files (File ▸ Recent).
    pub recent: &'a [PathBuf],
    /// Background jobs are running (the tabs show it).
    pub busy: bool,
    /// What the panels asked of the shell, in order.
    pub asked: Vec<Request>,
}

impl Frame<'_> {
    /// The workspace and the shared frame state, for applying events.
    fn edits(&mut self) -> Edits<'_> {
        Edits {
            ws: self.ws,
            shared: self.shared,
        }
    }

    /// Runs a panel against the document holding the selected key.
    fn with_focus<R>(&mut self, f: impl FnOnce(&mut PanelCtx, &mut Panels) -> R) -> Option<R> {
        let ed = Edits {
            ws: self.ws,
            shared: self.shared,
        };
        edits::with_focus(ed, self.panels, f)
    }

    /// Runs a panel against the active document.
    fn with_active<R>(&mut self, f: impl FnOnce(&mut PanelCtx, &mut Panels) -> R) -> Option<R> {
        let ed = Edits {
            ws: self.ws,
            shared: self.shared,
        };
        edits::with_active(ed, self.panels, f)
    }

    /// The menu bar with the file tabs on its right (one row: the height
    /// goes to the picture and the timeline), and the status bar.
    pub fn menu_and_status(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("menu").show(ui, |ui| {
            let input = chrome::MenuInput {
                ws: self.ws,
                recent: self.recent,
                has_song: self.shared.song.song.is_some(),
                dock: &self.panels.dock,
                busy: self.busy,
            };
            let asked = chrome::menu_bar(
                ui,
                &input,
                &mut self.panels.chrome,
                &mut self.panels.toolbox,
                &mut self.panels.viewport.posing.physics,
                &mut self.panels.viewport.posing.collide_actors,
            );
            self.asked.extend(asked);
        });
        egui::Panel::bottom("status").show(ui, |ui| {
            chrome::status_bar(
                ui,
                self.ws,
                self.shared,
                &mut self.panels.viewport.posing.physics,
            )
        });
    }

    /// The central area: the docked panels, or the start page when nothing
    /// is open.
    pub fn central_ui(&mut self, ui: &mut egui::Ui) {
        if self.ws.docs().is_empty() && self.ws.scene().actors.is_empty() {
            egui::CentralPanel::default().show(ui, |ui| {
                ui.vertical_centered(|ui| {
                    ui.add_space(80.0);
                    ui.heading("VMD Studio");
                    ui.label(
                        "Open a VMD file (Ctrl+O), drop files onto the window, or open the demo.",
                    );
                    if ui.button("Open…").clicked() {
                        self.asked.push(Request::Command(UiCommand::Open));
                    }
                    if ui.button("Open demo").clicked() {
                        self.asked.push(Request::OpenDemo);
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
    pub fn toolbox_windows(&mut self, ctx: &egui::Context) {
        let target = self.panels.toolbox.target_index(self.ws);
        let wearer = self
            .ws
            .docs()
            .get(target)
            .and_then(|d| self.ws.wearer(d.id))
            .and_then(|i| self.ws.scene().actors.get(i));
        self.panels.toolbox.wearer_offset = wearer.map_or(0, |a| a.offset);
        self.panels.toolbox.scene_motions = match self.ws.docs().get(target) {
            Some(d) if self.panels.toolbox.open == Some(panels::toolbox::Tool::Speed) => {
                panels::toolbox::scene_motions(self.ws, d.id)
            }
            _ => Vec::new(),
        };
        self.panels.toolbox.wearer_model = wearer.and_then(|a| match &a.model {
            crate::scene::ModelRef::File(p) => {
                Some((a.name.clone(), Arc::clone(self.scene.models.get(p)?)))
            }
            crate::scene::ModelRef::Builtin => None,
        });
        if self.panels.toolbox.open == Some(panels::toolbox::Tool::Sizing) {
            let sizing = &mut self.panels.toolbox.sizing;
            sizing.actors = scene_ops::actor_models(self.ws, self.scene);
            let target_id = self.ws.docs().get(target).map(|d| d.id);
            sizing.scene_camera = (self.ws.scene().camera)
                .filter(|c| Some(*c) != target_id)
                .and_then(|c| Some((c, self.ws.doc(c)?.title())));
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
            self.shared,
            &mut self.panels.toolbox,
        );
        if self.panels.toolbox.sizing.take_browse() {
            let dir = self.panels.toolbox.sizing.browse_dir();
            let dir = dir.or_else(|| files::start_dir(self.ws));
            self.asked.push(Request::Pick(Pick::SizingSource, dir));
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
        // The posing and shots column sits inside the main view only when
        // the layout has no tile for it (a layout stored before it had).
        self.panels.viewport.view.side_panel = tree.tiles.find_pane(&Panel::Shots).is_none();
        let mut behavior = DockBehavior {
            frame: self,
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
            Panel::Shots => {
                let view = scene_ops::scene_view(self.ws, self.scene);
                let vp = &mut self.panels.viewport;
                let events = panels::viewport::side_ui(ui, &mut vp.posing, &view, self.shared);
                self.edits().apply_all(events);
            }
            Panel::Timeline => {
                let events =
                    scene_ui::timeline_ui(ui, self.ws, self.shared, &mut self.panels.timeline);
                self.edits().apply_all(events);
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
            let mut view = scene_ops::scene_view(self.ws, self.scene);
            // Tools ▸ Size motion's preview: the sized motion on its actor.
            if let Some((i, sized)) = self.panels.toolbox.viewport_preview(self.ws)
                && let Some(a) = view.actors.get_mut(i)
            {
                a.motion = Some(sized);
            }
            // … and the source body wearing it unsized, as a ghost.
            view.source_ghost =
                self.panels
                    .toolbox
                    .viewport_ghost(self.ws)
                    .map(|(actor, model, motion)| panels::viewport::SourceGhost {
                        actor,
                        model,
                        motion,
                    });
            let vp = &mut self.panels.viewport;
            let which = if second { &mut vp.second } else { &mut vp.view };
            panels::viewport::ui(ui, &mut vp.posing, which, &view, self.shared)
        };
        // The viewport edits the scene camera's keys and (posing) the
        // actors' motions, each on its document.
        self.edits().apply_all(out.events);
        // A bone clicked in the view: its row (and key) in the timeline.
        if let Some(b) = out.picked {
            let events =
                scene_ui::bone_picked(self.ws, &mut self.panels.timeline, b.actor, &b.name);
            self.edits().apply_all(events);
        }
    }

    /// The scene panel (left side), and the changes it asks for.
    fn scene_panel_ui(&mut self, ui: &mut egui::Ui) {
        let active = self.ws.active().map(|d| d.id);
        let actions = panels::scene::ui(ui, self.ws, self.scene, active, &mut self.panels.scene);
        self.asked.extend(actions.into_iter().map(Request::Scene));
    }
}

/// Advances playback in real time at 30 fps (frames are dropped, never slowed).
pub fn tick_playback(mut ed: Edits, window: &mut Window, ctx: &egui::Context) {
    let now = ctx.input(|i| i.time);
    if !ed.ws.transport().playing {
        window.last_tick = None;
        return;
    }
    let seconds = window.last_tick.map_or(0.0, |last| (now - last).max(0.0));
    window.last_tick = Some(now);
    ed.transport(TransportEvent::Advance { seconds });
    ctx.request_repaint();
}

/// Draws the whole window (the eframe `ui` entry point, also used by tests).
pub fn show(app: &mut StudioApp, ui: &mut egui::Ui) {
    let ctx = ui.ctx().clone();
    app.shared.transport = app.ws.transport().clone();
    // What the panels drawn early (status bar, tabs, key panel) show:
    // if a later panel changes it this frame, draw once more.
    let before = redraw_key(app);
    app.shared.typing = ctx.egui_wants_keyboard_input();
    begin_frame(app, &ctx);
    stage(app, |f| f.menu_and_status(ui));
    stage(app, |f| f.central_ui(ui));
    stage(app, |f| f.toolbox_windows(&ctx));
    // Whatever a panel changed on its copy of the transport.
    app.edits().sync_transport();
    dialogs(app, &ctx);
    commands::run_pending(app);
    app.opening().toolbox_apply();
    keep_up(app, &ctx);
    let after = redraw_key(app);
    if after != before {
        ctx.request_repaint();
    }
    let busy = app.jobs.is_busy() || app.shared.song.loading().is_some();
    if let Some(plan) = &mut app.window.screenshot {
        plan.step(&ctx, busy);
    }
}

/// What the panels drawn early (status bar, tabs, key panel) show: the
/// frame, the active file, the files' revisions, the file browser.
fn redraw_key(app: &StudioApp) -> (f64, usize, u64, bool) {
    (
        app.ws.transport().frame,
        app.ws.active_index(),
        app.ws.docs().iter().map(|d| d.revision).sum::<u64>(),
        app.files.file_browser.is_some(),
    )
}

/// The frame's start: finished jobs, dropped files, a pending
/// `--select`, the close request (and its guard), shortcuts, playback and
/// the song.
fn begin_frame(app: &mut StudioApp, ctx: &egui::Context) {
    app.jobs.set_context(ctx);
    commands::poll_jobs(app);
    let dropped = files::dropped(ctx);
    if !dropped.is_empty() {
        app.open_paths(dropped);
    }
    if !app.jobs.is_busy()
        && let Some(spec) = app.window.pending_select.take()
        && !app.edits().select_key(&spec)
    {
        app.shared
            .error(format!("--select {spec}: no such key in the active file"));
    }
    if std::mem::take(&mut app.window.close_window) {
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
    }
    // A screenshot run closes by itself once the picture is saved; its
    // edits (e.g. a `--merge`) are not the user's work, so no guard.
    if ctx.input(|i| i.viewport().close_requested())
        && app.window.screenshot.is_none()
        && let Some(d) = app.ws.docs().iter().find(|d| d.is_modified())
    {
        ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        app.window.close_guard = Some(CloseGuard {
            doc_id: d.id,
            then: AfterClose::Quit,
        });
    }
    // A key that ended a field's edit this frame is not a shortcut.
    if !app.shared.typing {
        let cmds = UiCommand::from_input(ctx);
        app.window.commands.extend(cmds);
    }
    tick_playback(
        Edits {
            ws: &mut app.ws,
            shared: &mut app.shared,
        },
        &mut app.window,
        ctx,
    );
    let events = song::frame(
        &mut app.shared.song,
        &app.ws,
        &mut app.shared.transport,
        &app.shared.jobs,
        ctx,
    );
    let notes = std::mem::take(&mut app.shared.song.messages);
    app.shared.messages.extend(notes);
    app.edits().apply_all(events);
}

/// The modal windows: close guard, file browser, video export, disk
/// conflict, recovery offer.
fn dialogs(app: &mut StudioApp, ctx: &egui::Context) {
    commands::close_guard_ui(app, ctx);
    if let Some((purpose, paths)) = app.files.browser_ui(ctx) {
        commands::picked(app, purpose, paths);
    }
    app.export_video.ui(
        ctx,
        &app.ws,
        &app.scene,
        &app.panels.viewport,
        &mut app.shared,
    );
    if app.export_video.take_browse() {
        let dir = (app.export_video.folder()).or_else(|| files::start_dir(&app.ws));
        app.files.pick(&mut app.jobs, Pick::ExportVideo, dir);
    }
    commands::disk_conflict_ui(app, ctx);
    match app.recovery.window(ctx) {
        Some(OfferChoice::Restore) => app.restore_recovered(),
        Some(OfferChoice::Discard) => app.discard_recovered(),
        Some(OfferChoice::Later) => app.keep_recovered(),
        None => {}
    }
}

/// After the frame's commands: the recovery copy, the window title and
/// repaints while jobs run.
fn keep_up(app: &mut StudioApp, ctx: &egui::Context) {
    app.recovery
        .tick(&app.ws, app.scene.path.as_deref(), &mut app.shared, ctx);
    let title = super::window_title(&app.ws);
    // Only on change: every viewport command also requests a repaint,
    // and sending it each frame would keep an idle window redrawing.
    if app.window.title != title {
        app.window.title = title.clone();
        ctx.send_viewport_cmd(egui::ViewportCommand::Title(title));
    }
    if app.jobs.is_busy() {
        ctx.request_repaint_after(std::time::Duration::from_millis(50));
    }
}

/// Draws one stage of the frame, then carries out what it asked for.
fn stage(app: &mut StudioApp, draw: impl FnOnce(&mut Frame)) {
    let mut frame = app.frame();
    draw(&mut frame);
    let asked = frame.asked;
    commands::route(app, asked);
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

/// Draws the tiles of the docked layout through the frame.
struct DockBehavior<'a, 'f> {
    frame: &'a mut Frame<'f>,
    /// A tab whose close button was clicked (closed after drawing).
    close: Option<egui_tiles::TileId>,
}

impl egui_tiles::Behavior<Panel> for DockBehavior<'_, '_> {
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
                self.frame.panel_ui(ui, *panel);
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
