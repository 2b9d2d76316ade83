//! Changing the workspace: [`Workspace::apply`], the one way in, and the
//! actions it dispatches to (opening, closing, edits, scene actions).

use super::event::{Changes, Event, NewDocument, SceneEvent};
use super::placing::{self, Intent};
use super::undo::{Arrangement, Entry, MergeKey, SceneStep, forget_in};
use super::{DocId, Document, EditRequest, Workspace};
use crate::scene::{MotionRole, Placed, Scene};

impl Workspace {
    /// Applies one event: the only way to change the workspace.
    pub fn apply(&mut self, event: Event) -> Changes {
        let mut ch = Changes::default();
        match event {
            Event::Open(new) => self.open(*new, &mut ch),
            Event::Close(id) => self.close(id, &mut ch),
            Event::Activate(id) => {
                if let Some(i) = self.doc_index(id)
                    && i != self.active
                {
                    self.active = i;
                    ch.active = true;
                }
            }
            Event::Edit(edits) => self.edit(edits, &mut ch),
            Event::Undo => self.step(true, &mut ch),
            Event::Redo => self.step(false, &mut ch),
            Event::Saved {
                doc,
                state,
                path,
                disk_stamp,
            } => {
                if let Some(i) = self.doc_index(doc) {
                    let d = &mut self.docs[i];
                    d.path = Some(path);
                    d.disk_stamp = disk_stamp;
                    d.mark_saved_state(state);
                    ch.docs.push(doc);
                }
            }
            Event::Discard(doc) => {
                if let Some(i) = self.doc_index(doc) {
                    self.docs[i].mark_saved();
                    ch.docs.push(doc);
                }
            }
            Event::Scene(e) => self.scene_event(e, &mut ch),
            Event::SceneSaved => self.scene_modified = false,
            Event::Select { doc, view } => {
                if let Some(i) = self.doc_index(doc)
                    && self.docs[i].view != view
                {
                    self.docs[i].view = view;
                    self.docs[i].prune_selection();
                    ch.selection = true;
                }
            }
            Event::Transport(e) => {
                let end = self.scene_end();
                ch.transport = self.transport.apply(e, end);
            }
            Event::SongLength(seconds) => {
                self.song_frames = seconds
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(|s| s * 30.0);
            }
            Event::SetUndoBudget(bytes) => {
                self.undo_budget = bytes.max(1024 * 1024);
                for d in &mut self.docs {
                    d.set_undo_budget(self.undo_budget);
                    if let Some(n) = d.take_history_note() {
                        ch.notes.push(n);
                    }
                }
            }
        }
        ch
    }

    fn open(&mut self, new: NewDocument, ch: &mut Changes) {
        let before = self.active().map(|d| d.id);
        let role = MotionRole::of(&new.motion);
        let shown = new.path.as_ref().map(|p| p.display().to_string());
        let place = new.place;
        let mut d = Document::new(new.motion, new.path, new.name);
        d.disk_stamp = new.disk_stamp;
        d.set_undo_budget(self.undo_budget);
        if new.unsaved {
            d.mark_saved_state(u64::MAX);
        }
        let slot = new.replace.and_then(|id| self.doc_index(id));
        let (i, id) = match slot {
            Some(i) => {
                let id = self.docs[i].id;
                d.id = id;
                self.docs[i] = d;
                self.forget_steps(id);
                (i, id)
            }
            None => {
                let id = d.id;
                self.docs.push(d);
                (self.docs.len() - 1, id)
            }
        };
        self.active = i;
        ch.opened = Some(id);
        ch.docs.push(id);
        ch.active = true;
        if let Some(intent) = place {
            self.place_opened(id, role, intent, shown, before, ch);
        }
    }

    /// A document just opened takes its role in the scene (`intent`); a
    /// file from disk (`shown`: its path) says where it went. A camera or
    /// light does not take the key panel from the motion that had it.
    fn place_opened(
        &mut self,
        id: DocId,
        role: MotionRole,
        intent: Intent,
        shown: Option<String>,
        before: Option<DocId>,
        ch: &mut Changes,
    ) {
        let mut s = self.scene.clone();
        let mut selected = self.selected_actor;
        let placed = match intent {
            Intent::ActorMotion(i) if i < s.actors.len() => {
                s.actors[i].motion = Some(id);
                Some(Placed::ActorMotion {
                    index: i,
                    new: false,
                })
            }
            Intent::Camera { light_too } => {
                s.camera = Some(id);
                if light_too {
                    s.light = Some(id);
                }
                Some(Placed::Camera)
            }
            Intent::Light => {
                s.light = Some(id);
                Some(Placed::Light)
            }
            Intent::StageMotion(i) if i < s.set.props.len() => {
                s.set.props[i].motion = Some(id);
                Some(Placed::StageMotion { index: i })
            }
            // Already in the scene (reopened): keep its roles.
            _ if s.uses(&id) => None,
            _ => Some(s.assign_motion(id, role, selected)),
        };
        if let Some(Placed::ActorMotion { index, .. }) = placed
            && (selected.is_none() || intent == Intent::Auto)
        {
            selected = Some(index);
        }
        let text = placed
            .as_ref()
            .map(|p| placing::placed_text(&s, p))
            .unwrap_or_else(|| "again".to_owned());
        let modified = intent == Intent::Auto && shown.is_some();
        self.scene_event(
            SceneEvent::Arrange {
                scene: Box::new(s),
                selected_actor: selected,
                fresh: false,
                modified,
            },
            ch,
        );
        if let Some(path) = shown {
            ch.notes.push(format!("Opened {path} {text}"));
        }
        if role != MotionRole::Motion
            && let Some(b) = before.filter(|&b| b != id && self.wearer(b).is_some())
            && let Some(k) = self.doc_index(b)
        {
            self.active = k;
        }
    }

    fn close(&mut self, id: DocId, ch: &mut Changes) {
        let Some(i) = self.doc_index(id) else {
            return;
        };
        self.docs.remove(i);
        self.forget_steps(id);
        let before = self.scene.clone();
        self.scene.remove_motion(&id);
        for s in self.scene_undo.iter_mut().chain(self.scene_redo.iter_mut()) {
            forget_in(&mut s.other, id);
        }
        ch.scene = self.scene != before;
        if self.active > i || self.active >= self.docs.len() {
            self.active = self.active.saturating_sub(1);
        }
        ch.closed = Some(id);
        ch.active = true;
    }

    fn edit(&mut self, edits: Vec<(DocId, Vec<EditRequest>)>, ch: &mut Changes) {
        let mut group = Vec::new();
        for (id, reqs) in edits {
            let Some(i) = self.doc_index(id) else {
                continue;
            };
            let d = &mut self.docs[i];
            let mut changed = false;
            for r in reqs {
                let (before, steps) = (d.state(), d.history().len());
                let rev = d.revision;
                d.request(r);
                if d.state() != before || d.history().len() != steps {
                    group.push(Entry::Doc(id));
                }
                changed |= d.revision != rev;
            }
            if let Some(note) = d.take_history_note() {
                ch.notes.push(note);
            }
            if changed {
                ch.docs.push(id);
            }
        }
        if !group.is_empty() {
            group.dedup();
            self.push_group(group);
        }
    }

    /// Applies one scene event, recording an undo step when it changed the
    /// arrangement.
    fn scene_event(&mut self, e: SceneEvent, ch: &mut Changes) {
        let before = self.arrangement();
        let label = e.label();
        let offset_of = match &e {
            SceneEvent::SetPlacement(i, p) => {
                Some(MergeKey::Placement(*i, self.placement_change(*i, p)))
            }
            _ => merge_key(&e),
        };
        match e {
            SceneEvent::SelectActor(i) => {
                self.select_actor(i, ch);
                return;
            }
            SceneEvent::EndMerge => {
                if let Some(step) = self.scene_undo.last_mut() {
                    step.offset_of = None;
                }
                return;
            }
            SceneEvent::Arrange {
                scene,
                selected_actor,
                fresh,
                modified,
            } => {
                self.arrange(*scene, selected_actor, fresh, modified, ch);
                return;
            }
            // Nothing to remove: no undo step, not even the arrangement's
            // comparison (a scene holding a NaN never compares equal).
            SceneEvent::RemoveActor(i) if i >= self.scene.actors.len() => return,
            e @ (SceneEvent::AddActor
            | SceneEvent::RemoveActor(_)
            | SceneEvent::RenameActor(..)
            | SceneEvent::SetMotion(..)
            | SceneEvent::SetOffset(..)
            | SceneEvent::SetPlacement(..)
            | SceneEvent::SetModel(..)) => self.actor_event(e),
            e @ (SceneEvent::AddProp(_)
            | SceneEvent::AddAccessory(_)
            | SceneEvent::RemoveProp(_)
            | SceneEvent::RemoveAccessory(_)
            | SceneEvent::ShowProp(..)
            | SceneEvent::PropOrder(..)
            | SceneEvent::SetAccessoryState(..)
            | SceneEvent::SetAccessoryFile(..)
            | SceneEvent::SetAccessoryKey(..)
            | SceneEvent::RemoveAccessoryKey(..)
            | SceneEvent::MoveAccessoryKey(..)
            | SceneEvent::SetPropMotion(..)
            | SceneEvent::SetBackgroundColour(_)
            | SceneEvent::SetBackgroundImage(_)
            | SceneEvent::SetBackgroundVideo(_)
            | SceneEvent::SetBackgroundVideoOffset(_)) => self.set_piece_event(e),
            e @ (SceneEvent::SetCamera(_) | SceneEvent::SetLight(_) | SceneEvent::SetSong(_)) => {
                self.stage_event(e)
            }
        }
        self.record_scene_step(before, label, offset_of, ch);
    }

    /// Which values of actor `i`'s placement `p` changes, as bits (X, Y, Z,
    /// turn).
    fn placement_change(&self, i: usize, p: &crate::scene::ActorPlacement) -> u8 {
        let Some(a) = self.scene.actors.get(i) else {
            return 0;
        };
        let (old, new) = (&a.placement, p);
        [
            old.position.x != new.position.x,
            old.position.y != new.position.y,
            old.position.z != new.position.z,
            old.turn_degrees != new.turn_degrees,
        ]
        .iter()
        .enumerate()
        .fold(0, |bits, (k, &c)| bits | (u8::from(c) << k))
    }

    /// Selects actor `i` (none when out of range); its motion becomes the
    /// active document. Not an undo step.
    fn select_actor(&mut self, i: Option<usize>, ch: &mut Changes) {
        let s = &mut self.scene;
        let i = i.filter(|&i| i < s.actors.len());
        if i != self.selected_actor {
            self.selected_actor = i;
            ch.scene = true;
        }
        // Its motion becomes the active document.
        if let Some(id) = i.and_then(|i| s.actors[i].motion)
            && let Some(k) = self.docs.iter().position(|d| d.id == id)
            && k != self.active
        {
            self.active = k;
            ch.active = true;
        }
    }

    /// Replaces the whole scene ([`SceneEvent::Arrange`]); a fresh one
    /// forgets the scene's undo history. Not an undo step.
    fn arrange(
        &mut self,
        scene: Scene<DocId>,
        selected_actor: Option<usize>,
        fresh: bool,
        modified: bool,
        ch: &mut Changes,
    ) {
        self.scene = scene;
        self.selected_actor = selected_actor.filter(|&i| i < self.scene.actors.len());
        if fresh {
            self.scene_undo.clear();
            self.scene_redo.clear();
            for o in [&mut self.undo_order, &mut self.redo_order] {
                for g in o.iter_mut() {
                    g.retain(|&e| e != Entry::Scene);
                }
                o.retain(|g| !g.is_empty());
            }
            self.scene_modified = modified;
        } else {
            self.scene_modified |= modified;
        }
        ch.scene = true;
    }

    /// Adds, removes or changes an actor (the actor events of [`SceneEvent`]).
    fn actor_event(&mut self, e: SceneEvent) {
        let s = &mut self.scene;
        match e {
            SceneEvent::AddActor => {
                let i = s.add_actor();
                self.selected_actor = Some(i);
            }
            SceneEvent::RemoveActor(i) => {
                // (scene_event returns before this for an index out of range.)
                if i >= s.actors.len() {
                    return;
                }
                s.actors.remove(i);
                self.selected_actor = match self.selected_actor {
                    Some(j) if j > i => Some(j - 1),
                    Some(j) if j == i => s.actors.len().checked_sub(1),
                    other => other,
                };
            }
            SceneEvent::RenameActor(i, name) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.name = name;
                }
            }
            SceneEvent::SetMotion(i, m) => {
                let known = m.is_none_or(|id| self.docs.iter().any(|d| d.id == id));
                if let Some(a) = s.actors.get_mut(i)
                    && known
                {
                    a.motion = m;
                }
            }
            SceneEvent::SetOffset(i, off) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.offset = off;
                }
            }
            SceneEvent::SetPlacement(i, p) => {
                // A value that is not finite would place nothing: refused.
                if let Some(a) = s.actors.get_mut(i)
                    && p.position.is_finite()
                    && p.turn_degrees.is_finite()
                {
                    a.placement = p;
                }
            }
            SceneEvent::SetModel(i, model) => {
                if let Some(a) = s.actors.get_mut(i) {
                    a.model = model;
                }
            }
            _ => {}
        }
    }

    /// Adds, removes or changes a stage prop or an accessory (the set-piece
    /// events of [`SceneEvent`]).
    fn set_piece_event(&mut self, e: SceneEvent) {
        let s = &mut self.scene;
        match e {
            SceneEvent::AddProp(path) => s.set.props.push(crate::scene::set::Prop::new(path)),
            SceneEvent::AddAccessory(a) => s.set.accessories.push(*a),
            SceneEvent::RemoveProp(i) if i < s.set.props.len() => {
                s.set.props.remove(i);
            }
            SceneEvent::RemoveAccessory(i) if i < s.set.accessories.len() => {
                s.set.accessories.remove(i);
            }
            SceneEvent::ShowProp(i, shown) => {
                if let Some(p) = s.set.props.get_mut(i) {
                    p.shown = shown;
                }
            }
            SceneEvent::PropOrder(i, order) => {
                if let Some(p) = s.set.props.get_mut(i) {
                    p.order = order;
                }
            }
            SceneEvent::SetAccessoryState(i, state) => {
                if let Some(a) = s.set.accessories.get_mut(i) {
                    a.state = *state;
                }
            }
            SceneEvent::SetBackgroundColour(c) => {
                // A non-finite channel keeps the old value; 0..1.
                let old = s.set.background.colour;
                s.set.background.colour = std::array::from_fn(|k| {
                    if c[k].is_finite() {
                        c[k].clamp(0.0, 1.0)
                    } else {
                        old[k]
                    }
                });
            }
            SceneEvent::SetBackgroundImage(image) => s.set.background.image = image,
            SceneEvent::SetBackgroundVideo(video) => s.set.background.video = video,
            SceneEvent::SetBackgroundVideoOffset(offset) => {
                if let Some(v) = &mut s.set.background.video {
                    v.frame_offset = offset;
                }
            }
            SceneEvent::SetAccessoryFile(i, path) => {
                if let Some(a) = s.set.accessories.get_mut(i) {
                    a.path = path;
                }
            }
            SceneEvent::SetAccessoryKey(i, key) => {
                if let Some(a) = s.set.accessories.get_mut(i) {
                    a.set_key(*key);
                }
            }
            SceneEvent::RemoveAccessoryKey(i, frame) => {
                if let Some(a) = s.set.accessories.get_mut(i) {
                    a.remove_key(frame);
                }
            }
            SceneEvent::SetPropMotion(i, m) => {
                if let Some(p) = s.set.props.get_mut(i) {
                    p.motion = m;
                }
            }
            SceneEvent::MoveAccessoryKey(i, from, to) => {
                if let Some(a) = s.set.accessories.get_mut(i) {
                    a.move_key(from, to);
                }
            }
            _ => {}
        }
    }

    /// Sets the scene's camera motion, light motion or song (the stage
    /// events of [`SceneEvent`]).
    fn stage_event(&mut self, e: SceneEvent) {
        let s = &mut self.scene;
        match e {
            SceneEvent::SetCamera(c) => s.camera = c,
            SceneEvent::SetLight(l) => s.light = l,
            SceneEvent::SetSong(song) => {
                if song.as_ref().map(|s| &s.path) != s.song.as_ref().map(|s| &s.path) {
                    self.song_frames = None;
                }
                s.song = song;
            }
            _ => {}
        }
    }

    /// After a scene change: marks the scene changed and pushes an undo step
    /// holding `before` (merged into the last one for a drag), unless the
    /// arrangement is unchanged.
    fn record_scene_step(
        &mut self,
        before: Arrangement,
        label: &'static str,
        offset_of: Option<MergeKey>,
        ch: &mut Changes,
    ) {
        if self.arrangement() == before {
            return;
        }
        ch.scene = true;
        self.scene_modified = true;
        // Consecutive offsets of one actor are one step (a drag).
        let merges = offset_of.is_some()
            && self
                .scene_undo
                .last()
                .is_some_and(|t| t.offset_of == offset_of)
            && self.undo_order.last() == Some(&vec![Entry::Scene])
            && self.redo_order.is_empty();
        if !merges {
            self.scene_undo.push(SceneStep {
                label,
                other: before,
                offset_of,
            });
            self.push_group(vec![Entry::Scene]);
        }
    }
}

/// The undo step `e` merges into when it follows one with the same key.
fn merge_key(e: &SceneEvent) -> Option<MergeKey> {
    // Consecutive changes of one field's owner merge into one step (a
    // drag): actor offsets by actor, accessory placements by accessory.
    match e {
        SceneEvent::SetOffset(i, _) => Some(MergeKey::Offset(*i)),
        SceneEvent::SetAccessoryState(i, _) => Some(MergeKey::AccessoryState(*i)),
        SceneEvent::SetAccessoryKey(i, k) => Some(MergeKey::AccessoryKey(*i, k.frame)),
        SceneEvent::SetBackgroundColour(_) => Some(MergeKey::BackgroundColour),
        SceneEvent::SetBackgroundVideoOffset(_) => Some(MergeKey::BackgroundVideoOffset),
        _ => None,
    }
}
