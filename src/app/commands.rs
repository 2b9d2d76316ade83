//! The router: the one place that sees the whole app. Commands (the
//! queue menus, shortcuts and tests push to, run at the frame's end), what
//! the panels ask for ([`Request`]), scene-panel actions, finished jobs
//! and file picks each go to the part that does the work — [`Edits`]
//! (the workspace), [`Opening`](super::opening::Opening),
//! [`Saving`](super::save_flow::Saving), [`Files`](super::Files) — or to a
//! panel's own state. The modal questions' answers are routed here too.

use std::path::{Path, PathBuf};

use super::AfterClose;
use super::CentralView;
use super::CloseGuard;
use super::StudioApp;
use super::Window;
use super::chrome::{self, Request};
use super::command::UiCommand;
use super::dock::Panel;
use super::edits::{self, Edits};
use super::files;
use super::jobs::{JobResult, Pick};
use super::panels;
use super::saving;
use super::scene_ops::Intent;
use super::scene_ui;
use crate::vmd;
use crate::workspace::Event;
use crate::workspace::TransportEvent;

/// Runs queued commands.
pub fn run_pending(app: &mut StudioApp) {
    let cmds = std::mem::take(&mut app.window.commands);
    for c in cmds {
        execute(app, c);
    }
}

/// Runs one command: file commands, undo/redo, the transport, views,
/// key commands.
pub fn execute(app: &mut StudioApp, c: UiCommand) {
    match c {
        UiCommand::Open
        | UiCommand::LoadModel
        | UiCommand::LoadPose
        | UiCommand::LoadPoseMirrored
        | UiCommand::SavePose
        | UiCommand::MergeMotion
        | UiCommand::Save
        | UiCommand::SaveAll
        | UiCommand::SaveAs
        | UiCommand::CloseTab => file_command(app, c),
        UiCommand::Undo => {
            app.apply(Event::Undo);
        }
        UiCommand::Redo | UiCommand::RedoAlt => {
            app.apply(Event::Redo);
        }
        UiCommand::PlayPause
        | UiCommand::StepBack
        | UiCommand::StepForward
        | UiCommand::Home
        | UiCommand::End => transport_command(
            Edits {
                ws: &mut app.ws,
                shared: &mut app.shared,
            },
            &mut app.window,
            c,
        ),
        UiCommand::PrevKey | UiCommand::NextKey => seek_key(app.edits(), c == UiCommand::NextKey),
        UiCommand::PrevCut | UiCommand::NextCut => seek_cut(app.edits(), c == UiCommand::NextCut),
        // Shows the timeline, as F2–F4 show their views (it toggled, so
        // F1 hid the timeline it names); its tab's × closes it.
        UiCommand::ShowDopeSheet => app.panels.show_dope_sheet = true,
        UiCommand::ShowCurves => app.panels.central = CentralView::Curves,
        UiCommand::ShowPreview => app.panels.central = CentralView::Preview,
        UiCommand::ShowForensics => app.panels.central = CentralView::Forensics,
        // Delete, copy and paste act on every timeline section's selection.
        UiCommand::DeleteKeys | UiCommand::CopyKeys | UiCommand::PasteKeys => {
            let events =
                scene_ui::key_command(&app.ws, &mut app.shared, &mut app.panels.timeline, c);
            app.edits().apply_all(events);
        }
        UiCommand::InsertKey
        | UiCommand::SelectAll
        | UiCommand::SelectAtFrame
        | UiCommand::FitAll => {
            // Key commands belong to the dope sheet.
            let offset = app.doc().map_or(0, |d| app.ws.offset_of(d.id));
            let ed = Edits {
                ws: &mut app.ws,
                shared: &mut app.shared,
            };
            edits::with_active(ed, &mut app.panels, |cx, p| {
                panels::timeline::command(cx, &mut p.timeline, offset, c)
            });
        }
    }
}

/// Open, load, merge, save and close: most ask for a file first.
fn file_command(app: &mut StudioApp, c: UiCommand) {
    match c {
        UiCommand::Open => {
            ask(app, Pick::Open);
        }
        UiCommand::LoadModel => {
            ask(app, Pick::Model);
        }
        UiCommand::LoadPose | UiCommand::LoadPoseMirrored | UiCommand::SavePose => {
            if let Err(e) = super::vpd::pose_actor(&app.ws) {
                app.shared.error(e);
            } else {
                let purpose = match c {
                    UiCommand::SavePose => Pick::SavePose,
                    c => Pick::LoadPose {
                        mirror: c == UiCommand::LoadPoseMirrored,
                    },
                };
                ask(app, purpose);
            }
        }
        UiCommand::MergeMotion => {
            let actor = app.ws.selected_actor().unwrap_or(0);
            if app
                .ws
                .scene()
                .actors
                .get(actor)
                .is_some_and(|a| a.motion.is_some())
            {
                ask(app, Pick::Merge { actor });
            } else {
                app.shared
                    .error("Select an actor that wears a motion to merge another one into it");
            }
        }
        UiCommand::Save => {
            if let Some(d) = app.doc() {
                let id = d.id;
                match d.path.clone() {
                    Some(p) => app.save_doc_to(id, p),
                    None => ask(app, Pick::SaveAs { doc_id: id }),
                }
            }
        }
        UiCommand::SaveAll => app.save_all(),
        UiCommand::SaveAs => {
            if let Some(id) = app.doc().map(|d| d.id) {
                ask(app, Pick::SaveAs { doc_id: id });
            }
        }
        UiCommand::CloseTab => {
            if let Some(d) = app.doc() {
                if d.is_modified() {
                    app.window.close_guard = Some(CloseGuard {
                        doc_id: d.id,
                        then: AfterClose::CloseDoc,
                    });
                } else {
                    let id = d.id;
                    app.apply(Event::Close(id));
                }
            }
        }
        _ => {}
    }
}

/// Play/pause, step, Home and End.
fn transport_command(mut ed: Edits, window: &mut Window, c: UiCommand) {
    let last = ed.ws.scene_end();
    let now = ed.ws.transport().frame;
    match c {
        UiCommand::PlayPause => {
            if ed.ws.transport().playing {
                // Paused on a whole frame: what the status bar, the
                // dope sheet and the key panel all show.
                ed.transport(TransportEvent::SeekAndStop(now.floor()));
            } else {
                if now >= f64::from(last) {
                    ed.transport(TransportEvent::Seek(0.0));
                }
                ed.transport(TransportEvent::Play);
            }
            window.last_tick = None;
        }
        UiCommand::StepBack => {
            ed.transport(TransportEvent::SeekAndStop((now.ceil() - 1.0).max(0.0)))
        }
        UiCommand::StepForward => ed.transport(TransportEvent::SeekAndStop(now.floor() + 1.0)),
        UiCommand::Home => ed.transport(TransportEvent::Seek(0.0)),
        UiCommand::End => ed.transport(TransportEvent::Seek(f64::from(last))),
        _ => {}
    }
}

/// Seeks to the active file's next (or previous) key, on the scene timeline.
fn seek_key(mut ed: Edits, next: bool) {
    let now = ed.ws.transport().frame;
    if let Some(d) = ed.ws.active() {
        // The active file's keys, on the scene timeline.
        let offset = f64::from(ed.ws.offset_of(d.id));
        let now = now - offset;
        let frames = d.motion.key_frames_sorted();
        let target = if next {
            frames.iter().copied().find(|&f| f64::from(f) > now + 1e-9)
        } else {
            frames
                .iter()
                .rev()
                .copied()
                .find(|&f| f64::from(f) < now - 1e-9)
        };
        if let Some(f) = target {
            ed.transport(TransportEvent::Seek(f64::from(f) + offset));
        }
    }
}

/// Seeks to the next (or previous) cut of the first open camera.
fn seek_cut(mut ed: Edits, next: bool) {
    let now = ed.ws.transport().frame;
    // Cuts of the first open camera.
    if let Some(d) = ed.ws.docs().iter().find(|d| !d.motion.cameras.is_empty()) {
        let cuts: Vec<u32> = vmd::summary::cut_frames(&d.motion, &d.index)
            .into_iter()
            .map(|a| a + 1)
            .collect();
        let target = if next {
            cuts.iter().copied().find(|&f| f64::from(f) > now + 1e-9)
        } else {
            cuts.iter()
                .rev()
                .copied()
                .find(|&f| f64::from(f) < now - 1e-9)
        };
        if let Some(f) = target {
            ed.transport(TransportEvent::Seek(f64::from(f)));
        }
    }
}

/// Applies a scene-panel action: arrangement changes are workspace
/// events (each one undo step); the rest open dialogs or save.
pub fn scene_action(app: &mut StudioApp, a: panels::scene::Action) {
    use panels::scene::Action;
    if let Some(e) = scene_ui::scene_event(&a) {
        app.apply(Event::Scene(e));
        return;
    }
    match a {
        Action::Activate(id) => app.activate(id),
        Action::LoadModel(i) => {
            app.apply(Event::Scene(crate::workspace::SceneEvent::SelectActor(
                Some(i),
            )));
            ask(app, Pick::Model);
        }
        Action::SaveScene if app.scene.path.is_some() => {
            if let Some(p) = app.scene.path.clone() {
                app.save_scene_to(p);
            }
        }
        Action::Set(panels::scene_set::SetAction::AddStage) => {
            ask(app, Pick::Stage);
        }
        Action::Set(panels::scene_set::SetAction::AddAccessory) => {
            ask(app, Pick::Accessory);
        }
        Action::Set(panels::scene_set::SetAction::PickPropMotion(i)) => {
            ask(app, Pick::StageMotion(i));
        }
        Action::Set(panels::scene_set::SetAction::PickBackgroundImage) => {
            ask(app, Pick::BackgroundImage);
        }
        Action::Set(panels::scene_set::SetAction::PickBackgroundVideo) => {
            ask(app, Pick::BackgroundVideo);
        }
        Action::OpenScene => {
            ask(app, Pick::OpenScene);
        }
        Action::Set(panels::scene_set::SetAction::MoveInView(i)) => {
            let Some(name) = app
                .ws
                .scene()
                .set
                .accessories
                .get(i)
                .map(|a| a.name.clone())
            else {
                return;
            };
            let tool = &mut app.panels.viewport.posing.pose;
            tool.placing = None;
            tool.deselect();
            tool.moving_accessory = Some(i);
            panels::gizmo::accessory_move_started(&mut app.shared, &name);
        }
        Action::PlaceInView(i) => {
            let Some(name) = app.ws.scene().actors.get(i).map(|a| a.name.clone()) else {
                return;
            };
            app.panels.viewport.posing.pose.placing = Some(i);
            app.panels.viewport.posing.pose.moving_accessory = None;
            app.shared.info(format!(
                "Placing {name}: drag an arrow to move it, the ring to turn it; Esc when done"
            ));
        }
        Action::CollectScene => {
            ask(app, Pick::CollectScene);
        }
        Action::Locate(slot) => {
            let dir = (app.scene.project.as_ref())
                .and_then(|r| r.project.parent().map(Path::to_path_buf))
                .or_else(|| files::start_dir(&app.ws));
            app.files.pick(&mut app.jobs, Pick::Locate(slot), dir);
        }
        // Save scene with no file yet, and Save scene as.
        _ => {
            ask(app, Pick::SaveScene);
        }
    }
}

/// Applies finished background jobs.
pub fn poll_jobs(app: &mut StudioApp) {
    for r in app.jobs.poll() {
        match r {
            r @ (JobResult::Motion { seq, .. } | JobResult::Model { seq, .. }) => {
                app.queue_loaded(seq, r)
            }
            r @ JobResult::Saved { .. } => app.saving().save_finished(r),
            JobResult::Picked {
                purpose,
                quick_none: true,
                ..
            } => {
                // Say so, and use the built-in browser from now on.
                app.shared.error(
                    "The system file dialog could not open (no desktop portal?); \
                     using VMD Studio's own file browser",
                );
                let dir = files::start_dir(&app.ws);
                app.files.fall_back_to_browser(purpose, dir);
            }
            JobResult::Picked { purpose, paths, .. } => picked(app, purpose, paths),
        }
    }
}

/// A file dialog (system or built-in) closed with `paths` (empty: cancelled).
pub fn picked(app: &mut StudioApp, purpose: Pick, paths: Vec<PathBuf>) {
    match purpose {
        Pick::Open => app.open_paths(paths),
        Pick::Merge { actor } => {
            for p in paths {
                app.open_for(p, Intent::MergeInto(Some(actor)));
            }
        }
        Pick::Song => {
            if let Some(p) = paths.into_iter().next() {
                app.load_song(p);
            }
        }
        Pick::Model => {
            let sel = app.ws.selected_actor();
            for p in paths {
                match sel {
                    Some(i) => app.open_for(p, Intent::ActorModel(i)),
                    None => app.open_for(p, Intent::Auto),
                }
            }
        }
        Pick::Stage => {
            for p in paths {
                app.add_stage(p);
            }
        }
        Pick::Accessory => {
            for p in paths {
                app.add_accessory(p);
            }
        }
        Pick::StageMotion(i) => {
            if let Some(p) = paths.into_iter().next() {
                app.open_for(p, Intent::StageMotion(i));
            }
        }
        Pick::BackgroundImage | Pick::BackgroundVideo => {
            if let Some(path) = paths.into_iter().next() {
                let bg = &app.ws.scene().set.background;
                let e = if purpose == Pick::BackgroundImage {
                    let fit = bg.image.as_ref().map(|i| i.fit).unwrap_or_default();
                    let im = crate::scene::set::BackgroundImage { path, fit };
                    crate::workspace::SceneEvent::SetBackgroundImage(Some(im))
                } else {
                    let frame_offset = bg.video.as_ref().map_or(0, |v| v.frame_offset);
                    let v = crate::scene::set::BackgroundVideo { path, frame_offset };
                    crate::workspace::SceneEvent::SetBackgroundVideo(Some(v))
                };
                app.apply(Event::Scene(e));
            }
        }
        Pick::LoadPose { mirror } => {
            if let Some(p) = paths.first() {
                app.load_pose_file(p, mirror);
            }
        }
        Pick::SavePose => {
            if let Some(p) = paths.first() {
                app.save_pose_file(p);
            }
        }
        Pick::OpenScene => {
            if let Some(p) = paths.first() {
                if crate::project::is_project_path(p) {
                    app.open_project(p);
                } else {
                    app.open_scene(p);
                }
            }
        }
        Pick::SaveScene => {
            if let Some(p) = paths.into_iter().next() {
                app.save_scene_to(p);
            }
        }
        Pick::Locate(slot) => app.opening().locate(slot, paths.first()),
        Pick::CollectScene => {
            if let Some(p) = paths.into_iter().next() {
                app.collect_scene_to(&p);
            }
        }
        Pick::SizingSource => {
            if let Some(p) = paths.into_iter().next() {
                app.panels.toolbox.sizing.source_picked(p);
            }
        }
        Pick::ExportVideo => {
            if let Some(p) = paths.into_iter().next() {
                app.export_video.path = p.display().to_string();
                app.export_video.confirm_overwrite = None;
            }
        }
        Pick::SaveAs { doc_id } => {
            if paths.is_empty()
                && app
                    .window
                    .after_save
                    .as_ref()
                    .is_some_and(|g| g.doc_id == doc_id)
            {
                // The Save As dialog was cancelled: nothing closes.
                app.window.after_save = None;
            }
            if let Some(p) = paths.into_iter().next() {
                app.save_doc_to(doc_id, p);
            }
        }
    }
}

/// Carries out what the panels asked for (the menu bar, the tabs, the
/// scene panel, the toolbox), in order.
pub fn route(app: &mut StudioApp, asked: Vec<Request>) {
    for r in asked {
        match r {
            Request::Command(c) => app.run_command(c),
            Request::Event(e) => {
                app.apply(e);
            }
            Request::OpenPaths(p) => app.open_paths(p),
            Request::OpenDemo => app.open_demo(),
            Request::Scene(a) => scene_action(app, a),
            Request::Pick(purpose, dir) => app.files.pick(&mut app.jobs, purpose, dir),
            Request::ExportVideo => app.open_export_video(),
            Request::SaveTo { doc, path } => app.save_doc_to(doc, path),
            Request::PickSong => {
                let dir = app
                    .shared
                    .song
                    .path
                    .as_ref()
                    .and_then(|p| p.parent().map(Path::to_path_buf))
                    .or_else(|| files::start_dir(&app.ws));
                app.files.pick(&mut app.jobs, Pick::Song, dir);
            }
            Request::TogglePanel(p) => {
                app.panels.dock.toggle(p);
                if p == Panel::Timeline {
                    app.panels.show_dope_sheet = app.panels.dock.is_open(p);
                }
            }
            Request::ResetLayout => {
                app.panels.dock.reset();
                app.panels.show_dope_sheet = true;
                app.panels.central = super::CentralView::Preview;
            }
            Request::UsePreset(p) => {
                app.panels.dock.use_preset(p);
                app.panels.show_dope_sheet = true;
                app.panels.central = super::CentralView::Preview;
            }
            Request::SavePreset(p) => {
                app.panels.dock.save_preset(p);
                app.shared
                    .info(format!("The layout is kept as the {} preset", p.label()));
            }
            Request::RestorePresets => {
                for p in super::dock::Preset::ALL {
                    app.panels.dock.restore_preset(p);
                }
            }
            Request::RemoveSong => {
                app.shared.song.clear();
                if app.ws.scene().song.is_some() {
                    app.apply(Event::Scene(crate::workspace::SceneEvent::SetSong(None)));
                }
            }
        }
    }
}

/// The question asked when a save meets a file changed on disk, and
/// its answer.
pub fn disk_conflict_ui(app: &mut StudioApp, ctx: &egui::Context) {
    use saving::DiskChoice;
    let Some(c) = app.saves.disk_conflict.clone() else {
        return;
    };
    if !app.ws.docs().iter().any(|d| d.id == c.doc_id) {
        app.saves.disk_conflict = None;
        return;
    }
    let Some(choice) = saving::disk_conflict_modal(ctx, &c) else {
        return;
    };
    app.saves.disk_conflict = None;
    match choice {
        DiskChoice::Overwrite => app.save_doc_overwriting(c.doc_id, c.path),
        DiskChoice::Reload => {
            app.window.after_save = None;
            // An unmodified document is replaced by the file when it is
            // opened again (see `poll_jobs`).
            app.apply(Event::Discard(c.doc_id));
            app.open_paths(vec![c.path]);
        }
        DiskChoice::Cancel => app.window.after_save = None,
    }
}

/// The unsaved-changes question, while one is asked, and its answer.
pub fn close_guard_ui(app: &mut StudioApp, ctx: &egui::Context) {
    use chrome::GuardChoice;
    let Some(guard) = app.window.close_guard.clone() else {
        return;
    };
    let Some(title) = super::guard_subject(&app.ws, &guard) else {
        app.window.close_guard = None;
        return;
    };
    match chrome::close_guard_modal(ctx, &title) {
        Some(GuardChoice::Save) => {
            app.window.close_guard = None;
            app.activate(guard.doc_id);
            app.window.after_save = Some(guard);
            app.run_command(UiCommand::Save);
        }
        Some(GuardChoice::Discard) => {
            app.window.close_guard = None;
            match guard.then {
                AfterClose::CloseDoc => {
                    app.apply(Event::Close(guard.doc_id));
                }
                AfterClose::Quit => {
                    // Discard this one's edits, then close again: the
                    // guard asks about the next modified file, if any.
                    app.apply(Event::Discard(guard.doc_id));
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
            }
        }
        Some(GuardChoice::Cancel) => app.window.close_guard = None,
        None => {}
    }
}

/// Asks the user for a file for `purpose`, starting in the active file's
/// folder.
fn ask(app: &mut StudioApp, purpose: Pick) {
    let dir = files::start_dir(&app.ws);
    app.files.pick(&mut app.jobs, purpose, dir);
}
