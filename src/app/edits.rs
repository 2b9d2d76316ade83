//! Edits: the one way into the workspace (`apply`) and what follows an
//! event — transport sync, panel edit requests, key selection, scene and
//! toolbox actions.

use std::path::{Path, PathBuf};

use super::Panels;
use super::StudioApp;
use super::jobs::Pick;
use super::panels;
use super::panels::PanelCtx;
use super::panels::Shared;
use super::scene_ui;
use super::song;
use crate::workspace::Changes;
use crate::workspace::Event;
use crate::workspace::TransportEvent;
use crate::workspace::Workspace;
use crate::workspace::document;
use crate::workspace::document::Document;
use crate::workspace::document::EditRequest;

/// Applies an event to the workspace (the one way to change it); its
/// notes go to the status bar, the song follows the scene's song slot and
/// the panels' copy of the transport follows a transport change.
pub fn apply(ws: &mut Workspace, shared: &mut Shared, e: Event) -> Changes {
    let song_before = ws.scene().song.clone();
    let ch = ws.apply(e);
    if ws.scene().song != song_before {
        song::scene_song_changed(&mut shared.song, ws.scene().song.as_ref(), &shared.jobs);
    }
    for n in &ch.notes {
        shared.info(n.clone());
    }
    if ch.transport {
        shared.transport = ws.transport().clone();
    }
    ch
}

impl StudioApp {
    /// Applies an event to the workspace (the one way to change it); see
    /// [`apply`].
    pub fn apply(&mut self, e: Event) -> Changes {
        apply(&mut self.ws, &mut self.shared, e)
    }

    /// A transport command.
    pub fn transport(&mut self, e: TransportEvent) {
        self.apply(Event::Transport(e));
    }

    /// Makes document `id` the active one.
    pub fn activate(&mut self, id: u64) {
        self.apply(Event::Activate(id));
    }

    /// Sends what the panels changed on their copy of the transport
    /// ([`Shared::transport`]) to the workspace, as transport events.
    pub(super) fn sync_transport(&mut self) {
        let want = self.shared.transport.clone();
        let have = self.ws.transport().clone();
        if want.loop_range != have.loop_range {
            self.transport(TransportEvent::SetLoop(want.loop_range));
        }
        if want.preview_rate != have.preview_rate {
            self.transport(TransportEvent::SetRate(want.preview_rate));
        }
        if want.frame != have.frame {
            self.transport(TransportEvent::Seek(want.frame));
        }
        if want.playing != have.playing {
            self.transport(if want.playing {
                TransportEvent::Play
            } else {
                TransportEvent::Pause
            });
        }
        self.shared.transport = self.ws.transport().clone();
    }

    /// Applies a panel's edits to document `id` as one user action.
    pub fn request_on(&mut self, id: u64, reqs: Vec<EditRequest>) {
        if !reqs.is_empty() {
            self.apply(Event::Edit(vec![(id, reqs)]));
        }
    }

    /// Selects the key `TRACK@FRAME` (bone or morph name, or `camera`) in the
    /// active document, or else in another open one, which becomes active;
    /// returns whether it was found.
    pub fn select_key(&mut self, spec: &str) -> bool {
        // The active document first, then the others (which becomes active).
        let active = self.ws.active_index();
        let order: Vec<usize> = std::iter::once(active)
            .chain((0..self.ws.docs().len()).filter(|&i| i != active))
            .collect();
        order.into_iter().any(|i| self.select_key_in(i, spec))
    }

    pub(super) fn select_key_in(&mut self, doc_index: usize, spec: &str) -> bool {
        let Some((track, frame)) = spec.rsplit_once('@') else {
            return false;
        };
        let Ok(frame) = frame.trim().parse::<u32>() else {
            return false;
        };
        let Some(doc) = self.ws.docs().get(doc_index) else {
            return false;
        };
        let m = &doc.motion;
        let found = if track.eq_ignore_ascii_case("camera") {
            doc.index
                .camera
                .iter()
                .find(|&&i| m.cameras[i as usize].frame() == frame)
                .map(|&i| document::KeyRef::Camera(i))
        } else if let Some(t) = doc.index.bone_by_text(track) {
            t.keys
                .iter()
                .find(|&&i| m.bones[i as usize].frame() == frame)
                .map(|&i| document::KeyRef::Bone(i))
        } else {
            doc.index.morph_by_text(track).and_then(|t| {
                t.keys
                    .iter()
                    .find(|&&i| m.morphs[i as usize].frame() == frame)
                    .map(|&i| document::KeyRef::Morph(i))
            })
        };
        match found {
            Some(k) => {
                let id = doc.id;
                let view = document::DocView {
                    selection: std::iter::once(k).collect(),
                    active: Some(k),
                    reveal: Some(k),
                };
                self.apply(Event::Select { doc: id, view });
                self.activate(id);
                // The playhead goes to the selected key (scene frame: the
                // actor's offset added).
                let at = f64::from(frame) + f64::from(self.ws.offset_of(id));
                self.transport(TransportEvent::SeekAndStop(at));
                true
            }
            None => false,
        }
    }

    /// Runs a panel against the active document and applies what it returns.
    pub(super) fn with_active<R>(
        &mut self,
        f: impl FnOnce(&mut PanelCtx, &mut Panels) -> R,
    ) -> Option<R> {
        let id = self.ws.active()?.id;
        self.with_doc(id, f)
    }

    /// Runs a panel against the document holding the selected key
    /// ([`crate::workspace::Workspace::focus`]): the key panel and the
    /// curve editor.
    pub(super) fn with_focus<R>(
        &mut self,
        f: impl FnOnce(&mut PanelCtx, &mut Panels) -> R,
    ) -> Option<R> {
        let id = self.ws.focus()?.id;
        self.with_doc(id, f)
    }

    /// Runs a panel against document `id` and applies what it returns.
    fn with_doc<R>(
        &mut self,
        id: u64,
        f: impl FnOnce(&mut PanelCtx, &mut Panels) -> R,
    ) -> Option<R> {
        let doc = self.ws.doc(id)?;
        let mut view = doc.view.clone();
        let mut edits = Vec::new();
        let r = {
            let mut cx = PanelCtx {
                doc,
                view: &mut view,
                edits: &mut edits,
                shared: &mut self.shared,
            };
            f(&mut cx, &mut self.panels)
        };
        // The playhead first: the panel's copy is what it changed.
        self.sync_transport();
        if self.ws.doc(id).is_some_and(|d| d.view != view) {
            self.apply(Event::Select { doc: id, view });
        }
        self.request_on(id, edits);
        Some(r)
    }

    /// Applies what a panel asked for: the playhead it moved on its copy
    /// of the transport first, then its events in order.
    pub(super) fn apply_all(&mut self, events: Vec<Event>) {
        self.sync_transport();
        for e in events {
            self.apply(e);
        }
    }

    /// Applies a scene-panel action: arrangement changes are workspace
    /// events (each one undo step); the rest open dialogs or save.
    pub fn scene_action(&mut self, a: panels::scene::Action) {
        use panels::scene::Action;
        if let Some(e) = scene_ui::scene_event(&a) {
            self.apply(Event::Scene(e));
            return;
        }
        match a {
            Action::Activate(id) => self.activate(id),
            Action::LoadModel(i) => {
                self.apply(Event::Scene(crate::workspace::SceneEvent::SelectActor(
                    Some(i),
                )));
                let dir = self.start_dir();
                self.pick_file(Pick::Model, dir);
            }
            Action::SaveScene if self.scene.path.is_some() => {
                if let Some(p) = self.scene.path.clone() {
                    self.save_scene_to(p);
                }
            }
            Action::Set(panels::scene_set::SetAction::AddStage) => {
                let dir = self.start_dir();
                self.pick_file(Pick::Stage, dir);
            }
            Action::Set(panels::scene_set::SetAction::AddAccessory) => {
                let dir = self.start_dir();
                self.pick_file(Pick::Accessory, dir);
            }
            Action::OpenScene => {
                let dir = self.start_dir();
                self.pick_file(Pick::OpenScene, dir);
            }
            Action::CollectScene => {
                let dir = self.start_dir();
                self.pick_file(Pick::CollectScene, dir);
            }
            Action::Locate(slot) => {
                let dir = (self.scene.project.as_ref())
                    .and_then(|r| r.project.parent().map(Path::to_path_buf))
                    .or_else(|| self.start_dir());
                self.pick_file(Pick::Locate(slot), dir);
            }
            // Save scene with no file yet, and Save scene as.
            _ => {
                let dir = self.start_dir();
                self.pick_file(Pick::SaveScene, dir);
            }
        }
    }

    /// The user located `file` for a slot a project left empty: it goes in
    /// (an accessory's path is one undo step; a model loads onto its
    /// actor), and every other missing file found beside it too
    /// ([`crate::project::missing::ProjectReport::located`]).
    /// `None`: the dialog was cancelled.
    pub(super) fn locate(&mut self, slot: crate::project::missing::Slot, file: Option<&PathBuf>) {
        let (Some(report), Some(file)) = (&self.scene.project, file) else {
            return;
        };
        let l = report.located(self.ws.scene(), slot, file);
        for e in l.events {
            self.apply(Event::Scene(e));
        }
        for (f, intent) in l.opens {
            self.open_for(f, intent);
        }
        if !l.also_found.is_empty() {
            let names: Vec<&str> = l.also_found.iter().map(|(n, _)| n.as_str()).collect();
            self.shared.info(format!(
                "Also found beside {}: {}",
                file.display(),
                names.join(", ")
            ));
        }
    }

    /// Runs a toolbox operation the toolbox panel queued (it owns the dialogs).
    pub(super) fn toolbox_apply(&mut self) {
        if let Some((motion, name)) = self.panels.toolbox.take_new_document() {
            self.open_motion(motion, None, &name);
        }
        let Some(req) = self.panels.toolbox.take_request() else {
            return;
        };
        // The file the dialog targets, not whichever is active now.
        let target = self.panels.toolbox.target_index(&self.ws);
        let target_id = self.ws.docs().get(target).map(|d| d.id);
        let docs: Vec<&Document> = self.ws.docs().iter().collect();
        match panels::toolbox::run_request(&req, &docs, target) {
            Ok(outcome) => {
                for line in &outcome.report_lines {
                    self.shared.info(line.clone());
                }
                if let Some(id) = target_id
                    && let Some(note) =
                        self.scene
                            .names_the_model_lacks(&self.ws, id, &outcome.motion)
                {
                    self.shared.error(format!("{}: {note}", outcome.label));
                }
                if let Some(id) = target_id {
                    self.request_on(
                        id,
                        vec![EditRequest::apply(
                            document::Edit::ReplaceMotion {
                                motion: Box::new(outcome.motion),
                                selection: None,
                            },
                            outcome.label,
                        )],
                    );
                }
            }
            Err(e) => self.shared.error(e),
        }
    }
}
