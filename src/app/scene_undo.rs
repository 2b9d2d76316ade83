//! One undo history across the scene's files: edits grouped over several
//! documents, undo/redo in the order they were made, and what each step
//! names (the edits; the documents keep their own differences).

use super::document::EditRequest;
use super::*;

impl StudioApp {
    /// Applies a panel's requests to document `id`, remembering the order
    /// of undo steps across the scene's documents.
    pub fn request_on(&mut self, id: u64, reqs: Vec<EditRequest>) {
        self.request_group(vec![(id, reqs)]);
    }

    /// Applies the requests one user action made in several documents (a
    /// move, delete or paste across timeline sections). Each document
    /// records its own undo step; the scene remembers them as one group,
    /// so one Undo takes the whole action back, as in Blender or MMD where
    /// one action is one undo step whatever it touched.
    pub fn request_group(&mut self, edits: Vec<(u64, Vec<EditRequest>)>) {
        let mut group = Vec::new();
        for (id, reqs) in edits {
            let Some(d) = self.docs.iter_mut().find(|d| d.id == id) else {
                continue;
            };
            for r in reqs {
                let (before, steps) = (d.state(), d.history().len());
                d.request(r);
                if d.state() != before || d.history().len() != steps {
                    group.push(id);
                }
            }
            if let Some(note) = d.take_history_note() {
                self.shared.info(note);
            }
        }
        if !group.is_empty() {
            self.scene.undo_order.push(group);
            self.scene.redo_order.clear();
        }
    }

    /// Whether `id` names an open document whose history can undo (or redo).
    pub(super) fn can_step(&self, id: u64, undo: bool) -> bool {
        self.docs.iter().any(|d| {
            d.id == id
                && if undo {
                    d.history().can_undo()
                } else {
                    d.history().can_redo()
                }
        })
    }

    /// Index in the undo (or redo) order of the last group that can still
    /// act (documents may have been closed or dropped old steps).
    pub(super) fn last_group(&self, undo: bool) -> Option<usize> {
        let order = if undo {
            &self.scene.undo_order
        } else {
            &self.scene.redo_order
        };
        order
            .iter()
            .rposition(|g| g.iter().any(|&id| self.can_step(id, undo)))
    }

    /// The document the next undo acts on: the one edited last (across
    /// the scene; the first of a group), else the active one.
    pub fn undo_target(&self) -> Option<u64> {
        self.step_target(true)
    }

    /// The document the next redo acts on.
    pub fn redo_target(&self) -> Option<u64> {
        self.step_target(false)
    }

    pub(super) fn step_target(&self, undo: bool) -> Option<u64> {
        let order = if undo {
            &self.scene.undo_order
        } else {
            &self.scene.redo_order
        };
        self.last_group(undo)
            .and_then(|g| order[g].iter().copied().find(|&id| self.can_step(id, undo)))
            .or_else(|| {
                self.doc()
                    .filter(|d| self.can_step(d.id, undo))
                    .map(|d| d.id)
            })
    }

    /// How many files the next undo (or redo) changes (more than one for an
    /// action across timeline sections).
    pub fn step_files(&self, undo: bool) -> usize {
        let order = if undo {
            &self.scene.undo_order
        } else {
            &self.scene.redo_order
        };
        let Some(g) = self.last_group(undo) else {
            return usize::from(self.step_target(undo).is_some());
        };
        let mut ids = order[g].clone();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    }

    /// Undoes the last action made anywhere in the scene (every document
    /// it changed); its first document becomes active.
    pub fn undo_scene(&mut self) {
        self.step_scene(true);
    }

    /// Redoes the last undone action anywhere in the scene.
    pub fn redo_scene(&mut self) {
        self.step_scene(false);
    }

    pub(super) fn step_scene(&mut self, undo: bool) {
        let group = match self.last_group(undo) {
            Some(g) if undo => self.scene.undo_order.remove(g),
            Some(g) => self.scene.redo_order.remove(g),
            // Nothing recorded: the active document's own history.
            None => match self.step_target(undo) {
                Some(id) => vec![id],
                None => return,
            },
        };
        let mut done = Vec::new();
        // Undo takes the steps back newest first; redo replays them in order.
        let order: Vec<u64> = if undo {
            group.iter().rev().copied().collect()
        } else {
            group.clone()
        };
        for id in order {
            if let Some(i) = self.doc_index(id) {
                let d = &mut self.docs[i];
                if if undo { d.undo() } else { d.redo() } {
                    done.push(id);
                }
            }
        }
        if done.is_empty() {
            return;
        }
        if let Some(i) = group.first().and_then(|&id| self.doc_index(id)) {
            self.active = i;
        }
        if undo {
            // Kept in the order the steps were made.
            done.reverse();
        }
        if undo {
            self.scene.redo_order.push(done);
        } else {
            self.scene.undo_order.push(done);
        }
    }

    /// Forgets a closed document in the scene.
    pub(super) fn scene_forget(&mut self, id: u64) {
        self.scene.scene.remove_motion(&id);
        for order in [&mut self.scene.undo_order, &mut self.scene.redo_order] {
            for g in order.iter_mut() {
                g.retain(|&d| d != id);
            }
            order.retain(|g| !g.is_empty());
        }
    }

    /// Which scene role a document has, for tab and list labels.
    pub fn role_label(&self, id: u64) -> Option<String> {
        let s = &self.scene.scene;
        let mut roles = Vec::new();
        if s.camera == Some(id) {
            roles.push("camera".to_owned());
        }
        if s.light == Some(id) && s.camera != Some(id) {
            roles.push("light".to_owned());
        }
        for a in &s.actors {
            if a.motion == Some(id) {
                roles.push(a.name.clone());
            }
        }
        (!roles.is_empty()).then(|| roles.join(", "))
    }

    /// The scene frame's motion frame for document `id` (its actor's offset
    /// removed; the camera and light have none).
    pub fn offset_of(&self, id: u64) -> i32 {
        self.scene
            .scene
            .actors
            .iter()
            .find(|a| a.motion == Some(id))
            .map_or(0, |a| a.offset)
    }
}
