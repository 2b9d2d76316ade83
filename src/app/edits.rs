//! Edits: the one way into the workspace (`apply`) and what follows an
//! event — transport sync, panel edit requests, key selection — over the
//! two things they touch: the workspace and the panels' shared frame
//! state ([`Edits`]); and running a panel against one document
//! ([`with_doc`]).

use super::Panels;
use super::panels::PanelCtx;
use super::panels::Shared;
use super::song;
use crate::workspace::Changes;
use crate::workspace::Event;
use crate::workspace::TransportEvent;
use crate::workspace::Workspace;
use crate::workspace::document;
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

/// The workspace and the panels' shared frame state, borrowed together:
/// what an event needs to be applied and its notes shown.
pub struct Edits<'a> {
    pub ws: &'a mut Workspace,
    pub shared: &'a mut Shared,
}

impl Edits<'_> {
    /// Applies an event to the workspace (the one way to change it); see
    /// [`apply`].
    pub fn apply(&mut self, e: Event) -> Changes {
        apply(self.ws, self.shared, e)
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
    pub fn sync_transport(&mut self) {
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

    pub fn select_key_in(&mut self, doc_index: usize, spec: &str) -> bool {
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

    /// Applies what a panel asked for: the playhead it moved on its copy
    /// of the transport first, then its events in order.
    pub fn apply_all(&mut self, events: Vec<Event>) {
        self.sync_transport();
        for e in events {
            self.apply(e);
        }
    }
}

/// Runs a panel against the active document and applies what it returns.
pub fn with_active<R>(
    ed: Edits,
    panels: &mut Panels,
    f: impl FnOnce(&mut PanelCtx, &mut Panels) -> R,
) -> Option<R> {
    let id = ed.ws.active()?.id;
    with_doc(ed, panels, id, f)
}

/// Runs a panel against the document holding the selected key
/// ([`crate::workspace::Workspace::focus`]): the key panel and the
/// curve editor.
pub fn with_focus<R>(
    ed: Edits,
    panels: &mut Panels,
    f: impl FnOnce(&mut PanelCtx, &mut Panels) -> R,
) -> Option<R> {
    let id = ed.ws.focus()?.id;
    with_doc(ed, panels, id, f)
}

/// Runs a panel against document `id` and applies what it returns: the
/// playhead it moved first, then its selection, then its edits (one user
/// action).
pub fn with_doc<R>(
    mut ed: Edits,
    panels: &mut Panels,
    id: u64,
    f: impl FnOnce(&mut PanelCtx, &mut Panels) -> R,
) -> Option<R> {
    let doc = ed.ws.doc(id)?;
    let mut view = doc.view.clone();
    let mut edits = Vec::new();
    let r = {
        let mut cx = PanelCtx {
            doc,
            view: &mut view,
            edits: &mut edits,
            shared: ed.shared,
        };
        f(&mut cx, panels)
    };
    // The playhead first: the panel's copy is what it changed.
    ed.sync_transport();
    if ed.ws.doc(id).is_some_and(|d| d.view != view) {
        ed.apply(Event::Select { doc: id, view });
    }
    ed.request_on(id, edits);
    Some(r)
}
