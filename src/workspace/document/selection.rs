//! Per-document view state: the selection, the active key.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{Document, KeyRef};

/// Selected keys of one document. Cloning is cheap (the set is shared
/// until one copy changes), so a panel can work on its own copy every
/// frame and the shell hand it back in an [`crate::workspace::Event::Select`] only
/// when it differs.
#[derive(Debug, Clone, Default)]
pub struct Selection(Arc<BTreeSet<KeyRef>>);

impl Selection {
    fn set(&mut self) -> &mut BTreeSet<KeyRef> {
        Arc::make_mut(&mut self.0)
    }
    pub fn insert(&mut self, k: KeyRef) -> bool {
        self.set().insert(k)
    }
    pub fn remove(&mut self, k: &KeyRef) -> bool {
        self.set().remove(k)
    }
    pub fn clear(&mut self) {
        if !self.0.is_empty() {
            self.0 = Arc::default();
        }
    }
    pub fn retain(&mut self, f: impl FnMut(&KeyRef) -> bool) {
        self.set().retain(f)
    }
    /// The keys as a plain set.
    pub fn to_set(&self) -> BTreeSet<KeyRef> {
        (*self.0).clone()
    }
}

impl std::ops::Deref for Selection {
    type Target = BTreeSet<KeyRef>;
    fn deref(&self) -> &BTreeSet<KeyRef> {
        &self.0
    }
}

impl PartialEq for Selection {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl From<BTreeSet<KeyRef>> for Selection {
    fn from(s: BTreeSet<KeyRef>) -> Self {
        Selection(Arc::new(s))
    }
}

impl FromIterator<KeyRef> for Selection {
    fn from_iter<I: IntoIterator<Item = KeyRef>>(it: I) -> Self {
        Selection(Arc::new(it.into_iter().collect()))
    }
}

impl Extend<KeyRef> for Selection {
    fn extend<I: IntoIterator<Item = KeyRef>>(&mut self, it: I) {
        self.set().extend(it)
    }
}

impl<'a> IntoIterator for &'a Selection {
    type Item = &'a KeyRef;
    type IntoIter = std::collections::btree_set::Iter<'a, KeyRef>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Per-document view state that is not part of undo: the selection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocView {
    pub selection: Selection,
    /// The key last clicked: what the key panel and curve editor show.
    pub active: Option<KeyRef>,
    /// A key the dope sheet should scroll into view (set by the inspector).
    pub reveal: Option<KeyRef>,
}

impl Document {
    /// After a whole-motion change (the index already updated): sets the
    /// given selection and returns the old one.
    pub(super) fn swap_selection(
        &mut self,
        selection: Option<BTreeSet<KeyRef>>,
    ) -> Option<BTreeSet<KeyRef>> {
        let old_sel = std::mem::take(&mut self.view.selection).to_set();
        self.view.selection = selection.unwrap_or_default().into();
        self.view.active = self.view.selection.iter().next().copied();
        Some(old_sel)
    }

    /// Drops selected keys that no longer exist.
    pub(in crate::workspace) fn prune_selection(&mut self) {
        let m = &self.motion;
        let exists = |k: &KeyRef| match *k {
            KeyRef::Bone(i) => (i as usize) < m.bones.len(),
            KeyRef::Morph(i) => (i as usize) < m.morphs.len(),
            KeyRef::Camera(i) => (i as usize) < m.cameras.len(),
            KeyRef::Light(i) => (i as usize) < m.lights.len(),
            KeyRef::Shadow(i) => (i as usize) < m.shadows.len(),
            KeyRef::Ik(i) => (i as usize) < m.iks.len(),
        };
        self.view.selection.retain(exists);
        if let Some(a) = self.view.active
            && !exists(&a)
        {
            self.view.active = None;
        }
    }
}
