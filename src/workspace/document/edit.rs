//! Edits and edit requests, and applying an edit to the motion (records
//! swapped in, the inverse returned, index and evaluation cache updated).

use std::collections::BTreeSet;

use super::{Document, KeyChanges, KeyRef};
use crate::vmd::diff::MotionDiff;
use crate::vmd::{EvalCache, Motion, TrackIndex};

/// An undoable change to a motion.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Replace records by index; nothing is inserted or removed.
    SetKeys(KeyChanges),
    /// Replace the whole motion (inserting/deleting keys, toolbox operations).
    /// The selection to use afterwards may be given. Undo keeps only the
    /// difference (an [`Edit::Diff`]).
    ReplaceMotion {
        motion: Box<Motion>,
        selection: Option<BTreeSet<KeyRef>>,
    },
    /// A stored difference: applying it moves the motion to the diff's other
    /// state (what undo and redo of a [`Edit::ReplaceMotion`] run).
    Diff {
        diff: Box<MotionDiff>,
        selection: Option<BTreeSet<KeyRef>>,
    },
}

impl Edit {
    /// Memory the edit holds, in bytes (what the undo budget counts).
    pub fn bytes(&self) -> usize {
        fn list<T>(v: &[(u32, T)]) -> usize {
            v.len() * (4 + std::mem::size_of::<T>())
        }
        let sel = |s: &Option<BTreeSet<KeyRef>>| {
            s.as_ref()
                .map_or(0, |s| s.len() * std::mem::size_of::<KeyRef>())
        };
        std::mem::size_of::<Edit>()
            + match self {
                Edit::SetKeys(c) => {
                    list(&c.bones)
                        + list(&c.morphs)
                        + list(&c.cameras)
                        + list(&c.lights)
                        + list(&c.shadows)
                        + c.iks
                            .iter()
                            .map(|(_, k)| 4 + 32 + k.raw.len())
                            .sum::<usize>()
                        + c.model_name.as_ref().map_or(0, Vec::len)
                }
                Edit::ReplaceMotion { motion, selection } => motion.byte_len() + sel(selection),
                Edit::Diff { diff, selection } => diff.bytes() + sel(selection),
            }
    }
}

/// What a panel asks the document to do.
#[derive(Debug, Clone, PartialEq)]
pub enum EditRequest {
    /// Apply as its own undo step.
    Apply { edit: Edit, label: String },
    /// Apply, merging into the open step with the same id (a drag in progress).
    Merge {
        edit: Edit,
        label: String,
        merge_id: u64,
    },
    /// Close the open merged step (drag released).
    EndMerge,
}

impl EditRequest {
    pub fn apply(edit: Edit, label: impl Into<String>) -> Self {
        EditRequest::Apply {
            edit,
            label: label.into(),
        }
    }
    pub fn merge(edit: Edit, label: impl Into<String>, merge_id: u64) -> Self {
        EditRequest::Merge {
            edit,
            label: label.into(),
            merge_id,
        }
    }
}

fn set_at<T: Clone>(v: &mut [T], i: u32, new: T) -> Option<T> {
    v.get_mut(i as usize)
        .map(|slot| std::mem::replace(slot, new))
}

impl Document {
    /// Applies an edit, returning its inverse. Invalid indices are ignored.
    pub(super) fn apply_raw(&mut self, edit: Edit) -> Edit {
        let m = &mut self.motion;
        let inverse = match edit {
            Edit::SetKeys(c) => {
                let mut inv = KeyChanges::default();
                let mut reindex = false;
                let mut touched = Touched::default();
                for (i, k) in c.bones {
                    let (f, n) = (k.frame(), k.name_key().to_vec());
                    if let Some(old) = set_at(&mut m.bones, i, k) {
                        reindex |= old.frame() != f || old.name_key() != n.as_slice();
                        touched.bones.insert(old.name_key().to_vec());
                        touched.bones.insert(n);
                        inv.bones.push((i, old));
                    }
                }
                for (i, k) in c.morphs {
                    let (f, n) = (k.frame(), k.name_key().to_vec());
                    if let Some(old) = set_at(&mut m.morphs, i, k) {
                        reindex |= old.frame() != f || old.name_key() != n.as_slice();
                        touched.morphs.insert(old.name_key().to_vec());
                        touched.morphs.insert(n);
                        inv.morphs.push((i, old));
                    }
                }
                for (i, k) in c.cameras {
                    let f = k.frame();
                    if let Some(old) = set_at(&mut m.cameras, i, k) {
                        reindex |= old.frame() != f;
                        inv.cameras.push((i, old));
                    }
                }
                for (i, k) in c.lights {
                    let f = k.frame();
                    if let Some(old) = set_at(&mut m.lights, i, k) {
                        reindex |= old.frame() != f;
                        inv.lights.push((i, old));
                    }
                }
                for (i, k) in c.shadows {
                    let f = k.frame();
                    if let Some(old) = set_at(&mut m.shadows, i, k) {
                        reindex |= old.frame() != f;
                        inv.shadows.push((i, old));
                    }
                }
                for (i, k) in c.iks {
                    let f = k.frame();
                    if let Some(old) = set_at(&mut m.iks, i, k) {
                        reindex |= old.frame() != f;
                        inv.iks.push((i, old));
                    }
                }
                if let Some(name) = c.model_name {
                    inv.model_name = Some(std::mem::replace(&mut m.model_name_field, name));
                }
                // Inverse applies in reverse order so repeated indices restore correctly.
                inv.bones.reverse();
                inv.morphs.reverse();
                inv.cameras.reverse();
                inv.lights.reverse();
                inv.shadows.reverse();
                inv.iks.reverse();
                if reindex {
                    self.index = TrackIndex::build(&self.motion);
                }
                touched.update(&mut self.cache, &self.motion, &self.index);
                Edit::SetKeys(inv)
            }
            Edit::ReplaceMotion { motion, selection } => {
                let diff = MotionDiff::replace(m, *motion);
                self.index.update(&self.motion, &diff.index_change());
                Touched::by(&diff, &self.motion).update(&mut self.cache, &self.motion, &self.index);
                let selection = self.swap_selection(selection);
                Edit::Diff {
                    diff: Box::new(diff),
                    selection,
                }
            }
            Edit::Diff {
                mut diff,
                selection,
            } => {
                diff.toggle(m);
                // Only what the step moved is re-placed in the index (an undo
                // of a Delete on a 1M-key dance: ~4 ms instead of a ~35 ms
                // rebuild; see benches/undo.rs).
                self.index.update(&self.motion, &diff.index_change());
                // Likewise the cache: only the tracks the step touched are
                // decoded again.
                Touched::by(&diff, &self.motion).update(&mut self.cache, &self.motion, &self.index);
                let selection = self.swap_selection(selection);
                Edit::Diff { diff, selection }
            }
        };
        self.revision += 1;
        self.prune_selection();
        inverse
    }
}

/// The bone and morph tracks (name bytes) an edit touched: what the
/// evaluation cache decodes again.
#[derive(Debug, Default)]
struct Touched {
    bones: BTreeSet<Vec<u8>>,
    morphs: BTreeSet<Vec<u8>>,
}

impl Touched {
    /// The tracks of every record `diff`'s last move removed, inserted or
    /// changed (old and new names), with `m` in the state after that move.
    fn by(diff: &MotionDiff, m: &Motion) -> Touched {
        let ic = diff.index_change();
        let mut t = Touched::default();
        let now = |at: &[u32], changed: &[u32], name: &dyn Fn(usize) -> Option<Vec<u8>>| {
            at.iter()
                .chain(changed)
                .filter_map(|&i| name(i as usize))
                .collect::<Vec<_>>()
        };
        t.bones
            .extend(now(ic.bones.inserted, &ic.bones.changed, &|i| {
                m.bones.get(i).map(|k| k.name_key().to_vec())
            }));
        t.morphs
            .extend(now(ic.morphs.inserted, &ic.morphs.changed, &|i| {
                m.morphs.get(i).map(|k| k.name_key().to_vec())
            }));
        t.bones
            .extend(diff.held_bones().map(|k| k.name_key().to_vec()));
        t.morphs
            .extend(diff.held_morphs().map(|k| k.name_key().to_vec()));
        t
    }

    /// Brings `cache` in line with `m` and its up-to-date `index`.
    fn update(&self, cache: &mut EvalCache, m: &Motion, index: &TrackIndex) {
        if self.bones.is_empty() && self.morphs.is_empty() {
            return;
        }
        let bones: Vec<&[u8]> = self.bones.iter().map(Vec::as_slice).collect();
        let morphs: Vec<&[u8]> = self.morphs.iter().map(Vec::as_slice).collect();
        cache.update(m, index, &bones, &morphs);
    }
}
