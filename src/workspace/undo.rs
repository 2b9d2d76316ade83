//! The scene-wide undo order: one undo step per user action, whatever it
//! touched (see the [module documentation](super)). The documents keep
//! their own steps; the workspace keeps the order of the groups and the
//! scene's own steps.

use std::collections::BTreeSet;

use super::event::Changes;
use super::{DocId, Workspace};
use crate::scene::{Actor, Song};

/// One entry of an undo group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Entry {
    Doc(DocId),
    Scene,
}

/// The parts of the scene an undo step of the scene swaps.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Arrangement {
    pub(super) actors: Vec<Actor<DocId>>,
    pub(super) camera: Option<DocId>,
    pub(super) light: Option<DocId>,
    pub(super) song: Option<Song>,
    pub(super) set: crate::scene::set::Set<DocId>,
    pub(super) selected_actor: Option<usize>,
}

/// What consecutive scene steps merge by (a drag on one field is one
/// undo step): an actor's offset, an accessory's panel values, an
/// accessory's key at one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MergeKey {
    Offset(usize),
    /// An actor and which of its placement's values changed (bits: X, Y,
    /// Z, turn): a drag on one field merges, the next field is a new step.
    Placement(usize, u8),
    AccessoryState(usize),
    AccessoryKey(usize, u32),
    BackgroundColour,
    BackgroundVideoOffset,
}

#[derive(Debug, Clone)]
pub(super) struct SceneStep {
    pub(super) label: &'static str,
    /// On the undo stack the arrangement before the step; on the redo
    /// stack the one after it.
    pub(super) other: Arrangement,
    /// Consecutive offsets of one actor merge: `Some(actor)`.
    pub(super) offset_of: Option<MergeKey>,
}

// ------------------------------------------------------------------ reading
impl Workspace {
    /// Whether anything can be undone (`undo`) or redone.
    pub fn can_step(&self, undo: bool) -> bool {
        self.last_group(undo).is_some() || self.fallback_target(undo).is_some()
    }

    /// The document the next undo (or redo) acts on: the first of the last
    /// group, else the active one. `None` for a scene-only step.
    pub fn step_target(&self, undo: bool) -> Option<DocId> {
        match self.last_group(undo) {
            Some(g) => self.order(undo)[g].iter().find_map(|e| match *e {
                Entry::Doc(id) if self.doc_can_step(id, undo) => Some(id),
                _ => None,
            }),
            None => self.fallback_target(undo),
        }
    }

    /// What the next undo (or redo) is called, for the Edit menu.
    pub fn step_label(&self, undo: bool) -> Option<String> {
        if let Some(g) = self.last_group(undo) {
            let first = self.order(undo)[g]
                .iter()
                .copied()
                .find(|&e| self.entry_can_step(e, undo))?;
            return match first {
                Entry::Scene => {
                    let stack = if undo {
                        &self.scene_undo
                    } else {
                        &self.scene_redo
                    };
                    stack.last().map(|s| s.label.to_owned())
                }
                Entry::Doc(id) => self.doc(id).and_then(|d| {
                    let h = d.history();
                    if undo { h.undo_label() } else { h.redo_label() }.map(str::to_owned)
                }),
            };
        }
        let d = self.doc(self.fallback_target(undo)?)?;
        let h = d.history();
        if undo { h.undo_label() } else { h.redo_label() }.map(str::to_owned)
    }

    /// How many files the next undo (or redo) changes (more than one for an
    /// action across timeline sections; 0 for a scene-only step).
    pub fn step_files(&self, undo: bool) -> usize {
        let Some(g) = self.last_group(undo) else {
            return usize::from(self.fallback_target(undo).is_some());
        };
        let ids: BTreeSet<DocId> = self.order(undo)[g]
            .iter()
            .filter_map(|e| match *e {
                Entry::Doc(id) => Some(id),
                Entry::Scene => None,
            })
            .collect();
        ids.len()
    }

    pub(super) fn order(&self, undo: bool) -> &Vec<Vec<Entry>> {
        if undo {
            &self.undo_order
        } else {
            &self.redo_order
        }
    }

    pub(super) fn doc_can_step(&self, id: DocId, undo: bool) -> bool {
        self.doc(id).is_some_and(|d| {
            if undo {
                d.history().can_undo()
            } else {
                d.history().can_redo()
            }
        })
    }

    pub(super) fn entry_can_step(&self, e: Entry, undo: bool) -> bool {
        match e {
            Entry::Doc(id) => self.doc_can_step(id, undo),
            Entry::Scene if undo => !self.scene_undo.is_empty(),
            Entry::Scene => !self.scene_redo.is_empty(),
        }
    }

    /// Index of the last group that can still act (documents may have been
    /// closed or dropped old steps).
    pub(super) fn last_group(&self, undo: bool) -> Option<usize> {
        self.order(undo)
            .iter()
            .rposition(|g| g.iter().any(|&e| self.entry_can_step(e, undo)))
    }

    /// With no group recorded: the active document's own history.
    pub(super) fn fallback_target(&self, undo: bool) -> Option<DocId> {
        self.active()
            .map(|d| d.id)
            .filter(|&id| self.doc_can_step(id, undo))
    }
}

// ----------------------------------------------------------------- changing
impl Workspace {
    /// Forgets a document's entries in the undo order.
    pub(super) fn forget_steps(&mut self, id: DocId) {
        for order in [&mut self.undo_order, &mut self.redo_order] {
            for g in order.iter_mut() {
                g.retain(|&e| e != Entry::Doc(id));
            }
            order.retain(|g| !g.is_empty());
        }
    }

    pub(super) fn push_group(&mut self, group: Vec<Entry>) {
        self.undo_order.push(group);
        self.redo_order.clear();
        self.scene_redo.clear();
    }

    pub(super) fn step(&mut self, undo: bool, ch: &mut Changes) {
        let label = self.step_label(undo);
        let group = match self.last_group(undo) {
            Some(g) if undo => self.undo_order.remove(g),
            Some(g) => self.redo_order.remove(g),
            None => match self.fallback_target(undo) {
                Some(id) => vec![Entry::Doc(id)],
                None => return,
            },
        };
        // Undo takes the steps back newest first; redo replays them in order.
        let order: Vec<Entry> = if undo {
            group.iter().rev().copied().collect()
        } else {
            group.clone()
        };
        let mut done = Vec::new();
        for e in order {
            let ok = match e {
                Entry::Doc(id) => match self.doc_index(id) {
                    Some(i) => {
                        let d = &mut self.docs[i];
                        let ok = if undo { d.undo() } else { d.redo() };
                        if ok {
                            ch.docs.push(id);
                        }
                        ok
                    }
                    None => false,
                },
                Entry::Scene => {
                    let ok = self.step_scene(undo);
                    ch.scene |= ok;
                    ok
                }
            };
            if ok {
                done.push(e);
            }
        }
        if done.is_empty() {
            return;
        }
        let verb = if undo { "Undid" } else { "Redid" };
        let what = label.map_or_else(|| " the last step".to_owned(), |l| format!(" “{l}”"));
        if let Some(i) = group.iter().find_map(|e| match *e {
            Entry::Doc(id) => self.doc_index(id),
            Entry::Scene => None,
        }) && i != self.active
        {
            // Never silently: the status line says which file the step
            // belonged to, now the active one.
            self.active = i;
            ch.active = true;
            let d = &self.docs[i];
            let name = d.title();
            let name = name.trim_start_matches("● ");
            ch.notes
                .push(format!("{verb}{what} in {name}, now the active file"));
        } else {
            // Every undo and redo says what it took back or did again.
            ch.notes.push(format!("{verb}{what}"));
        }
        if undo {
            // Kept in the order the steps were made.
            done.reverse();
            self.redo_order.push(done);
        } else {
            self.undo_order.push(done);
        }
    }

    pub(super) fn arrangement(&self) -> Arrangement {
        Arrangement {
            actors: self.scene.actors.clone(),
            camera: self.scene.camera,
            light: self.scene.light,
            song: self.scene.song.clone(),
            set: self.scene.set.clone(),
            selected_actor: self.selected_actor,
        }
    }

    pub(super) fn set_arrangement(&mut self, a: Arrangement) -> Arrangement {
        let old = self.arrangement();
        self.scene.actors = a.actors;
        self.scene.camera = a.camera;
        self.scene.light = a.light;
        self.scene.song = a.song;
        self.scene.set = a.set;
        self.selected_actor = a.selected_actor;
        old
    }

    /// Undoes (or redoes) the newest scene step.
    pub(super) fn step_scene(&mut self, undo: bool) -> bool {
        let stack = if undo {
            &mut self.scene_undo
        } else {
            &mut self.scene_redo
        };
        let Some(mut s) = stack.pop() else {
            return false;
        };
        s.other = self.set_arrangement(s.other);
        s.offset_of = None;
        if undo {
            self.scene_redo.push(s);
        } else {
            self.scene_undo.push(s);
        }
        self.scene_modified = true;
        true
    }
}

/// Forgets a closed document in a stored arrangement.
pub(super) fn forget_in(a: &mut Arrangement, id: DocId) {
    for actor in &mut a.actors {
        if actor.motion == Some(id) {
            actor.motion = None;
        }
    }
    if a.camera == Some(id) {
        a.camera = None;
    }
    if a.light == Some(id) {
        a.light = None;
    }
}
