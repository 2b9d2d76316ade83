//! The window's frame around the panels: the menu bar (one function per
//! menu), the document tabs, the status bar and the unsaved-changes guard.
//! Each draws from the workspace and what it is given, and returns
//! [`Request`]s; the router carries them out ([`super::commands::route`]),
//! the commands themselves in [`super::commands::execute`].

use crate::model::physics::SimulationMode;
use std::path::PathBuf;

use super::command::UiCommand;
use super::dock::{Dock, Panel, Preset};
use super::jobs::Pick;
use super::panels::{self, Shared};
use crate::workspace::{Event, TransportEvent, Workspace};

/// What a click in the window's frame asks for.
#[derive(Debug, Clone)]
pub enum Request {
    Command(UiCommand),
    Event(Event),
    OpenPaths(Vec<PathBuf>),
    OpenDemo,
    Scene(panels::scene::Action),
    ExportVideo,
    /// Save document `doc` at `path` (the typed save path).
    SaveTo {
        doc: u64,
        path: PathBuf,
    },
    /// File ▸ Load song…: the song dialog.
    PickSong,
    /// A file dialog for this purpose, starting in this folder (the
    /// toolbox's Browse…).
    Pick(Pick, Option<PathBuf>),
    RemoveSong,
    /// View ▸ Panels: close an open panel, open a closed one.
    TogglePanel(Panel),
    /// View ▸ Reset layout.
    ResetLayout,
    /// View ▸ Layout presets ▸ one of them.
    UsePreset(Preset),
    /// View ▸ Layout presets ▸ Save current layout as ….
    SavePreset(Preset),
    /// View ▸ Layout presets ▸ Restore built-in presets.
    RestorePresets,
}

/// The frame's own state: the typed-path fields of the File menu.
#[derive(Debug, Default)]
pub struct Chrome {
    pub path_field: String,
    pub save_path_field: String,
}

/// What the menus show besides the workspace.
pub struct MenuInput<'a> {
    pub ws: &'a Workspace,
    pub recent: &'a [PathBuf],
    /// A song is loaded (File ▸ Remove song).
    pub has_song: bool,
    /// The docked layout (View ▸ Panels).
    pub dock: &'a Dock,
    /// A background job runs (a spinner after the file tabs).
    pub busy: bool,
}

/// The menu bar.
pub fn menu_bar(
    ui: &mut egui::Ui,
    input: &MenuInput,
    chrome: &mut Chrome,
    toolbox: &mut panels::toolbox::State,
    physics: &mut SimulationMode,
    collide_actors: &mut bool,
) -> Vec<Request> {
    let mut out = Vec::new();
    egui::MenuBar::new().ui(ui, |ui| {
        file_menu(ui, input, chrome, &mut out);
        edit_menu(ui, input.ws, &mut out);
        view_menu(ui, input.dock, &mut out);
        playback_menu(ui, input.ws, physics, collide_actors, &mut out);
        // Disabled rather than replaced without a file: its items keep
        // their places.
        ui.menu_button("Tools", |ui| {
            ui.add_enabled_ui(input.ws.active().is_some(), |ui| {
                panels::toolbox::menu(ui, toolbox);
            });
        });
        // The file tabs after the menus, in the same row.
        ui.separator();
        out.extend(tabs(ui, input.ws, input.busy));
    });
    out
}

/// View: the centre views, the panels (open or closed), the layout.
fn view_menu(ui: &mut egui::Ui, dock: &Dock, out: &mut Vec<Request>) {
    ui.menu_button("View", |ui| {
        for c in [
            UiCommand::ShowDopeSheet,
            UiCommand::ShowCurves,
            UiCommand::ShowPreview,
            UiCommand::ShowForensics,
            UiCommand::FitAll,
        ] {
            if c.menu_button(ui, true) {
                out.push(Request::Command(c));
            }
        }
        ui.separator();
        ui.menu_button("Panels", |ui| {
            for p in Panel::ALL {
                let mut open = dock.is_open(p);
                if ui.checkbox(&mut open, p.title()).changed() {
                    out.push(Request::TogglePanel(p));
                }
            }
        });
        ui.menu_button("Layout presets", |ui| {
            for p in Preset::ALL {
                let saved = if dock.presets.contains_key(&p) {
                    " (saved)"
                } else {
                    ""
                };
                if ui.button(format!("{}{saved}", p.label())).clicked() {
                    out.push(Request::UsePreset(p));
                    ui.close();
                }
            }
            ui.separator();
            ui.menu_button("Save current layout as", |ui| {
                for p in Preset::ALL {
                    if ui.button(p.label()).clicked() {
                        out.push(Request::SavePreset(p));
                        ui.close();
                    }
                }
            });
            if ui
                .add_enabled(
                    !dock.presets.is_empty(),
                    egui::Button::new("Restore built-in presets"),
                )
                .clicked()
            {
                out.push(Request::RestorePresets);
                ui.close();
            }
        });
        if ui
            .button("Reset layout")
            .on_hover_text("Every panel back where it starts: the picture over the timeline")
            .clicked()
        {
            out.push(Request::ResetLayout);
            ui.close();
        }
    });
}

/// File: open, recent, typed paths, demo, song, scene, export, save,
/// models, merge, close, quit.
fn file_menu(ui: &mut egui::Ui, input: &MenuInput, chrome: &mut Chrome, out: &mut Vec<Request>) {
    let ws = input.ws;
    let active = ws.active().map(|d| d.id);
    let has_doc = active.is_some();
    // Clicks inside this menu do not close it (its typed-path fields must
    // take a click); each action closes it itself.
    let keep_open = egui::containers::menu::MenuConfig::new()
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
    egui::containers::menu::MenuButton::new("File")
        .config(keep_open)
        .ui(ui, |ui| {
            let mut ask = |ui: &mut egui::Ui, r: Request| {
                out.push(r);
                ui.close();
            };
            open_items(ui, input, chrome, &mut ask);
            ui.separator();
            scene_items(ui, &mut ask);
            ui.separator();
            save_items(ui, chrome, active, &mut ask);
            ui.separator();
            model_items(ui, ws, &mut ask);
            ui.separator();
            if UiCommand::CloseTab.menu_button(ui, has_doc) {
                ask(ui, Request::Command(UiCommand::CloseTab));
            }
            if ui.button("Quit").clicked() {
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                ui.close();
            }
        });
}

/// Open…, Open recent, a typed path, the demo, the song.
fn open_items(
    ui: &mut egui::Ui,
    input: &MenuInput,
    chrome: &mut Chrome,
    ask: &mut impl FnMut(&mut egui::Ui, Request),
) {
    if UiCommand::Open.menu_button(ui, true) {
        ask(ui, Request::Command(UiCommand::Open));
    }
    ui.menu_button("Open recent", |ui| {
        if input.recent.is_empty() {
            ui.weak("No recent files");
        }
        for p in input.recent {
            if ui.button(p.display().to_string()).clicked() {
                ask(ui, Request::OpenPaths(vec![p.clone()]));
            }
        }
    });
    let field = PathField {
        label: "Path:",
        hint: "/path/to/file.vmd",
        width: 220.0,
        button: "Open",
        enabled: true,
    };
    if let Some(p) = field.ui(ui, &mut chrome.path_field) {
        ask(ui, Request::OpenPaths(vec![p]));
    }
    if ui.button("Open demo").clicked() {
        ask(ui, Request::OpenDemo);
    }
    if ui
        .button("Load song…")
        .on_hover_text(
            "WAV, MP3, OGG Vorbis or FLAC: its waveform and beat grid appear under the \
             timeline's ruler (dropping the file works too)",
        )
        .clicked()
    {
        ask(ui, Request::PickSong);
    }
    // Always listed (disabled without a song): the items under it
    // keep their places.
    if ui
        .add_enabled(input.has_song, egui::Button::new("Remove song"))
        .clicked()
    {
        ask(ui, Request::RemoveSong);
    }
}

/// Open/save the scene, export video.
fn scene_items(ui: &mut egui::Ui, ask: &mut impl FnMut(&mut egui::Ui, Request)) {
    if ui
        .button("Open scene…")
        .on_hover_text(
            "Open a .vmdscene file or an MMD project (.pmm): actors, motions, camera, light, \
             accessories, song",
        )
        .clicked()
    {
        ask(ui, Request::Scene(panels::scene::Action::OpenScene));
    }
    if ui
        .button("Save scene")
        .on_hover_text(
            "Save the arrangement and every motion with unsaved edits \
             (motions without edits are not rewritten)",
        )
        .clicked()
    {
        ask(ui, Request::Scene(panels::scene::Action::SaveScene));
    }
    if ui.button("Save scene as…").clicked() {
        ask(ui, Request::Scene(panels::scene::Action::SaveSceneAs));
    }
    if ui
        .button("Collect scene into folder…")
        .on_hover_text(
            "Copy everything the scene uses into one folder: every motion as \
             VMD (unsaved edits included), the models, stages and accessories \
             with their textures, the song and a .vmdscene that opens on any \
             machine",
        )
        .clicked()
    {
        ask(ui, Request::Scene(panels::scene::Action::CollectScene));
    }
    if ui
        .button("Export video…")
        .on_hover_text(
            "The scene through its camera as an MP4 with the song (needs \
             ffmpeg), or as a PNG sequence",
        )
        .clicked()
    {
        ask(ui, Request::ExportVideo);
    }
}

/// Save, Save all, Save as, a typed save path (`active`: the active file).
fn save_items(
    ui: &mut egui::Ui,
    chrome: &mut Chrome,
    active: Option<u64>,
    ask: &mut impl FnMut(&mut egui::Ui, Request),
) {
    let has_doc = active.is_some();
    for c in [UiCommand::Save, UiCommand::SaveAll, UiCommand::SaveAs] {
        if c.menu_button(ui, has_doc) {
            ask(ui, Request::Command(c));
        }
    }
    let field = PathField {
        label: "Save to path:",
        hint: "/path/to/new.vmd",
        width: 200.0,
        button: "Save",
        enabled: has_doc,
    };
    if let Some(p) = field.ui(ui, &mut chrome.save_path_field)
        && let Some(doc) = active
    {
        ask(ui, Request::SaveTo { doc, path: p });
    }
}

/// Load model, merge a motion, load/save a pose.
fn model_items(ui: &mut egui::Ui, ws: &Workspace, ask: &mut impl FnMut(&mut egui::Ui, Request)) {
    if UiCommand::LoadModel.menu_button(ui, true) {
        ask(ui, Request::Command(UiCommand::LoadModel));
    }
    let can_merge = ws
        .selected_actor()
        .or(Some(0))
        .and_then(|i| ws.scene().actors.get(i))
        .is_some_and(|a| a.motion.is_some());
    if UiCommand::MergeMotion.menu_button(ui, can_merge) {
        ask(ui, Request::Command(UiCommand::MergeMotion));
    }
    for c in [
        UiCommand::LoadPose,
        UiCommand::LoadPoseMirrored,
        UiCommand::SavePose,
    ] {
        if c.menu_button(ui, can_merge) {
            ask(ui, Request::Command(c));
        }
    }
}

/// A labelled path field with a button.
struct PathField {
    label: &'static str,
    hint: &'static str,
    width: f32,
    button: &'static str,
    enabled: bool,
}

impl PathField {
    /// The path when the button is clicked or Enter pressed with something typed.
    fn ui(&self, ui: &mut egui::Ui, text: &mut String) -> Option<PathBuf> {
        ui.horizontal(|ui| {
            let l = ui.label(self.label);
            let r = ui
                .add(
                    egui::TextEdit::singleline(text)
                        .hint_text(self.hint)
                        .desired_width(self.width),
                )
                .labelled_by(l.id);
            let enter =
                (r.lost_focus() || r.has_focus()) && ui.input(|i| i.key_pressed(egui::Key::Enter));
            let clicked = ui
                .add_enabled(self.enabled, egui::Button::new(self.button))
                .clicked();
            ((clicked || enter) && !text.trim().is_empty()).then(|| PathBuf::from(text.trim()))
        })
        .inner
    }
}

/// The label of the next undo (or redo): the step and the file(s) it changes.
fn step_label(ws: &Workspace, undo: bool) -> Option<String> {
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
}

/// Edit: undo and redo (named), the key commands, the undo budget.
fn edit_menu(ui: &mut egui::Ui, ws: &Workspace, out: &mut Vec<Request>) {
    let has_doc = ws.active().is_some();
    ui.menu_button("Edit", |ui| {
        // The step labels are always there ("nothing to undo"), so the
        // items under them never move.
        let undo = UiCommand::Undo.menu_button(ui, ws.can_step(true));
        let l = step_label(ws, true).unwrap_or_else(|| "nothing to undo".into());
        ui.weak(format!("  {l}"));
        if undo {
            out.push(Request::Command(UiCommand::Undo));
        }
        if UiCommand::Redo.menu_button(ui, ws.can_step(false)) {
            out.push(Request::Command(UiCommand::Redo));
        }
        let l = step_label(ws, false).unwrap_or_else(|| "nothing to redo".into());
        ui.weak(format!("  {l}"));
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
                out.push(Request::Command(c));
            }
        }
        ui.separator();
        if let Some(e) = super::settings::undo_budget_ui(ui, ws) {
            out.push(Request::Event(e));
        }
    });
}

/// Playback: the transport commands and the preview rate.
fn playback_menu(
    ui: &mut egui::Ui,
    ws: &Workspace,
    physics: &mut SimulationMode,
    collide_actors: &mut bool,
    out: &mut Vec<Request>,
) {
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
                out.push(Request::Command(c));
            }
        }
        ui.separator();
        ui.label("Preview rate");
        let mut chosen = ws.transport().preview_rate;
        for rate in [30, 60, 120] {
            ui.radio_value(&mut chosen, rate, format!("{rate} fps"));
        }
        if chosen != ws.transport().preview_rate {
            out.push(Request::Event(Event::Transport(TransportEvent::SetRate(
                chosen,
            ))));
        }
        ui.separator();
        ui.label("Physics");
        for m in SimulationMode::ALL {
            ui.radio_value(physics, m, m.label());
        }
        use panels::viewport::Posing;
        ui.checkbox(collide_actors, Posing::COLLIDE_ACTORS)
            .on_hover_text(Posing::COLLIDE_ACTORS_TIP);
    });
}

/// The document tabs: a click activates, a middle click closes.
pub fn tabs(ui: &mut egui::Ui, ws: &Workspace, busy: bool) -> Vec<Request> {
    let mut out = Vec::new();
    {
        let active = ws.active_index();
        for (i, d) in ws.docs().iter().enumerate() {
            let r = ui.selectable_label(i == active, d.title());
            let r = match &d.path {
                Some(p) => r.on_hover_text(p.display().to_string()),
                None => r,
            };
            if r.clicked() {
                out.push(Request::Event(Event::Activate(d.id)));
            }
            if r.middle_clicked() {
                out.push(Request::Event(Event::Activate(d.id)));
                out.push(Request::Command(UiCommand::CloseTab));
            }
        }
        if busy {
            ui.separator();
            ui.spinner();
        }
    }
    out
}

/// The status bar: the playhead, job progress (or why there is no
/// sound), the last message and the message list.
pub fn status_bar(
    ui: &mut egui::Ui,
    ws: &Workspace,
    shared: &mut Shared,
    physics: &mut SimulationMode,
) {
    ui.horizontal(|ui| {
        let t = ws.transport();
        // Play/Pause for users who do not know Space (the shell sends the
        // change on the panels' transport copy as a transport event).
        let (icon, tip) = if shared.transport.playing {
            ("Pause", "Pause playback (Space)")
        } else {
            ("▶ Play", "Play from the playhead (Space)")
        };
        if ui.button(icon).on_hover_text(tip).clicked() {
            shared.transport.playing = !shared.transport.playing;
        }
        ui.monospace(format!(
            "frame {:>6.1}  {:>7.2} s {}",
            t.frame,
            t.frame / 30.0,
            if t.playing { "playing" } else { "paused" }
        ));
        // Pictures the viewport drew in the last second, while playing.
        let (frame, now) = (ui.ctx().cumulative_frame_nr(), ui.input(|i| i.time));
        if let Some(rate) = shared.pictures.figure(frame, now).filter(|_| t.playing) {
            ui.monospace(format!("viewport {rate:.1} fps"))
                .on_hover_text(
                    "Pictures the viewport drew per second over the last second (not the playback \
                 clock). Below the preview rate? Options ▸ Fast preview draws fewer pixels.",
                );
        }
        ui.separator();
        ui.menu_button(format!("Physics: {}", physics.label()), |ui| {
            for m in SimulationMode::ALL {
                ui.radio_value(physics, m, m.label());
            }
        })
        .response
        .on_hover_text("When hair, skirts and accessories are simulated (as MMD's physics menu)");
        ui.separator();
        // Every background job (the song's decoding and beat finding too),
        // with Cancel; else why the song cannot be heard.
        let busy = super::jobs::ui::progress_ui(ui, &shared.jobs);
        let song = &shared.song;
        if !busy
            && song.loading().is_none()
            && let Some(why) = song.no_sound_reason()
        {
            // Short, the reason on hover: a long reason here used to take
            // the whole bar and hide every later message (an undo's
            // "now the active file" among them).
            ui.weak("No sound").on_hover_text(format!(
                "No sound: {why}. The waveform, the beat grid and the transport work without sound"
            ));
            ui.separator();
        }
        // The count and Clear come before the message, which is cut to
        // the room left: a long message never pushes them off the bar.
        if let Some((msg, err)) = shared.messages.last().cloned() {
            if shared.messages.len() > 1 {
                ui.menu_button(format!("({} messages)", shared.messages.len()), |ui| {
                    for (m, e) in shared.messages.iter().rev().take(30) {
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
                shared.messages.clear();
            }
            let text = if err {
                egui::RichText::new(&msg).color(ui.visuals().error_fg_color)
            } else {
                egui::RichText::new(&msg)
            };
            ui.add(egui::Label::new(text).truncate()).on_hover_text(msg);
        }
    });
}

/// The unsaved-changes question's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardChoice {
    Save,
    Discard,
    Cancel,
}

/// Asks what to do with `title`'s unsaved edits; the answer once given.
pub fn close_guard_modal(ctx: &egui::Context, title: &str) -> Option<GuardChoice> {
    // The question names the file alone: without the tab's modified mark
    // and the count of other modified files (said on the line under it).
    let title = title.trim_start_matches("● ");
    let name = title
        .split_once(" (")
        .filter(|(_, rest)| rest.contains("files with unsaved edits"))
        .map_or(title, |(n, _)| n);
    let mut choice = None;
    egui::Modal::new(egui::Id::unique("close-guard")).show(ctx, |ui| {
        ui.heading(format!("Save changes to {name}?"));
        ui.label(format!("{title} has edits that are not saved."));
        ui.horizontal(|ui| {
            if ui.button("Save").clicked() {
                choice = Some(GuardChoice::Save);
            }
            if ui.button("Discard").clicked() {
                choice = Some(GuardChoice::Discard);
            }
            if ui.button("Cancel").clicked() {
                choice = Some(GuardChoice::Cancel);
            }
        });
    });
    choice
}
