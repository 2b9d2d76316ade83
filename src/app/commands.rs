//! Command dispatch: the queue menus, shortcuts and tests push to, and
//! what each [`UiCommand`] does when it runs at the end of a frame.

use super::AfterClose;
use super::CentralView;
use super::CloseGuard;
use super::StudioApp;
use super::command::UiCommand;
use super::jobs::Pick;
use super::panels;
use super::scene_ui;
use crate::vmd;
use crate::workspace::Event;
use crate::workspace::TransportEvent;

impl StudioApp {
    /// Queues a command (menus, shortcuts and tests all come here).
    pub fn run_command(&mut self, c: UiCommand) {
        self.window.commands.push(c);
    }

    /// Runs queued commands.
    pub(super) fn run_pending(&mut self) {
        let cmds = std::mem::take(&mut self.window.commands);
        for c in cmds {
            self.execute(c);
        }
    }

    /// Runs one command: file commands, undo/redo, the transport, views,
    /// key commands.
    pub(super) fn execute(&mut self, c: UiCommand) {
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
            | UiCommand::CloseTab => self.file_command(c),
            UiCommand::Undo => {
                self.apply(Event::Undo);
            }
            UiCommand::Redo | UiCommand::RedoAlt => {
                self.apply(Event::Redo);
            }
            UiCommand::PlayPause
            | UiCommand::StepBack
            | UiCommand::StepForward
            | UiCommand::Home
            | UiCommand::End => self.transport_command(c),
            UiCommand::PrevKey | UiCommand::NextKey => self.seek_key(c == UiCommand::NextKey),
            UiCommand::PrevCut | UiCommand::NextCut => self.seek_cut(c == UiCommand::NextCut),
            // Shows the timeline, as F2–F4 show their views (it toggled, so
            // F1 hid the timeline it names); its tab's × closes it.
            UiCommand::ShowDopeSheet => self.panels.show_dope_sheet = true,
            UiCommand::ShowCurves => self.panels.central = CentralView::Curves,
            UiCommand::ShowPreview => self.panels.central = CentralView::Preview,
            UiCommand::ShowForensics => self.panels.central = CentralView::Forensics,
            // Delete, copy and paste act on every timeline section's selection.
            UiCommand::DeleteKeys | UiCommand::CopyKeys | UiCommand::PasteKeys => {
                let events =
                    scene_ui::key_command(&self.ws, &mut self.shared, &mut self.panels.timeline, c);
                self.apply_all(events);
            }
            UiCommand::InsertKey
            | UiCommand::SelectAll
            | UiCommand::SelectAtFrame
            | UiCommand::FitAll => {
                // Key commands belong to the dope sheet.
                let offset = self.doc().map_or(0, |d| self.ws.offset_of(d.id));
                self.with_active(|cx, p| panels::timeline::command(cx, &mut p.timeline, offset, c));
            }
        }
    }

    /// Open, load, merge, save and close: most ask for a file first.
    fn file_command(&mut self, c: UiCommand) {
        match c {
            UiCommand::Open => {
                let dir = self.start_dir();
                self.pick_file(Pick::Open, dir);
            }
            UiCommand::LoadModel => {
                let dir = self.start_dir();
                self.pick_file(Pick::Model, dir);
            }
            UiCommand::LoadPose | UiCommand::LoadPoseMirrored | UiCommand::SavePose => {
                if let Err(e) = super::vpd::pose_actor(&self.ws) {
                    self.shared.error(e);
                } else {
                    let dir = self.start_dir();
                    let purpose = match c {
                        UiCommand::SavePose => Pick::SavePose,
                        c => Pick::LoadPose {
                            mirror: c == UiCommand::LoadPoseMirrored,
                        },
                    };
                    self.pick_file(purpose, dir);
                }
            }
            UiCommand::MergeMotion => {
                let actor = self.ws.selected_actor().unwrap_or(0);
                if self
                    .ws
                    .scene()
                    .actors
                    .get(actor)
                    .is_some_and(|a| a.motion.is_some())
                {
                    let dir = self.start_dir();
                    self.pick_file(Pick::Merge { actor }, dir);
                } else {
                    self.shared
                        .error("Select an actor that wears a motion to merge another one into it");
                }
            }
            UiCommand::Save => {
                if let Some(d) = self.doc() {
                    let id = d.id;
                    match d.path.clone() {
                        Some(p) => self.save_doc_to(id, p),
                        None => {
                            let dir = self.start_dir();
                            self.pick_file(Pick::SaveAs { doc_id: id }, dir);
                        }
                    }
                }
            }
            UiCommand::SaveAll => self.save_all(),
            UiCommand::SaveAs => {
                if let Some(id) = self.doc().map(|d| d.id) {
                    let dir = self.start_dir();
                    self.pick_file(Pick::SaveAs { doc_id: id }, dir);
                }
            }
            UiCommand::CloseTab => {
                if let Some(d) = self.doc() {
                    if d.is_modified() {
                        self.window.close_guard = Some(CloseGuard {
                            doc_id: d.id,
                            then: AfterClose::CloseDoc,
                        });
                    } else {
                        let id = d.id;
                        self.close_doc(id);
                    }
                }
            }
            _ => {}
        }
    }

    /// Play/pause, step, Home and End.
    fn transport_command(&mut self, c: UiCommand) {
        let last = self.ws.scene_end();
        let now = self.ws.transport().frame;
        match c {
            UiCommand::PlayPause => {
                if self.ws.transport().playing {
                    // Paused on a whole frame: what the status bar, the
                    // dope sheet and the key panel all show.
                    self.transport(TransportEvent::SeekAndStop(now.floor()));
                } else {
                    if now >= f64::from(last) {
                        self.transport(TransportEvent::Seek(0.0));
                    }
                    self.transport(TransportEvent::Play);
                }
                self.window.last_tick = None;
            }
            UiCommand::StepBack => {
                self.transport(TransportEvent::SeekAndStop((now.ceil() - 1.0).max(0.0)))
            }
            UiCommand::StepForward => {
                self.transport(TransportEvent::SeekAndStop(now.floor() + 1.0))
            }
            UiCommand::Home => self.transport(TransportEvent::Seek(0.0)),
            UiCommand::End => self.transport(TransportEvent::Seek(f64::from(last))),
            _ => {}
        }
    }

    /// Seeks to the active file's next (or previous) key, on the scene timeline.
    fn seek_key(&mut self, next: bool) {
        let now = self.ws.transport().frame;
        if let Some(d) = self.doc() {
            // The active file's keys, on the scene timeline.
            let offset = f64::from(self.ws.offset_of(d.id));
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
                self.transport(TransportEvent::Seek(f64::from(f) + offset));
            }
        }
    }

    /// Seeks to the next (or previous) cut of the first open camera.
    fn seek_cut(&mut self, next: bool) {
        let now = self.ws.transport().frame;
        // Cuts of the first open camera.
        if let Some(d) = self.ws.docs().iter().find(|d| !d.motion.cameras.is_empty()) {
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
                self.transport(TransportEvent::Seek(f64::from(f)));
            }
        }
    }

    pub(super) fn close_doc(&mut self, id: u64) {
        self.apply(Event::Close(id));
    }
}
