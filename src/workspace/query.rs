//! Reading the workspace: its documents, the scene, the selection, and the
//! facts every panel needs once ([`Workspace::scene_end`],
//! [`Workspace::wearer`], [`Workspace::offset_of`]).

use super::{DocId, Document, Transport, Workspace};
use crate::scene::Scene;

impl Workspace {
    /// The open documents, in tab order.
    pub fn docs(&self) -> &[Document] {
        &self.docs
    }

    pub fn doc(&self, id: DocId) -> Option<&Document> {
        self.docs.iter().find(|d| d.id == id)
    }

    /// The index of document `id` in [`Self::docs`].
    pub fn doc_index(&self, id: DocId) -> Option<usize> {
        self.docs.iter().position(|d| d.id == id)
    }

    /// The active document (what the key panel and curve editor show).
    pub fn active(&self) -> Option<&Document> {
        self.docs.get(self.active)
    }

    /// The document whose key the key panel and curve editor show: the
    /// active one when it has an active key, else the one holding the
    /// selection's active key (one selection, shown the same everywhere:
    /// a click on another file's tab, or an undo that lands in another
    /// file, does not make the editors forget the selected key), else the
    /// active one.
    pub fn focus(&self) -> Option<&Document> {
        let a = self.active()?;
        if a.view.active.is_some() {
            return Some(a);
        }
        Some(
            self.docs
                .iter()
                .find(|d| d.view.active.is_some())
                .unwrap_or(a),
        )
    }

    /// The active document's index in [`Self::docs`] (0 when none is open).
    pub fn active_index(&self) -> usize {
        self.active
    }

    pub fn scene(&self) -> &Scene<DocId> {
        &self.scene
    }

    /// The actor that menus and drops act on.
    pub fn selected_actor(&self) -> Option<usize> {
        self.selected_actor
    }

    /// The arrangement changed since it was last saved or opened.
    pub fn scene_modified(&self) -> bool {
        self.scene_modified
    }

    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// Undo memory per document, bytes.
    pub fn undo_budget(&self) -> usize {
        self.undo_budget
    }

    /// The actor wearing document `id` (the first, if several do).
    pub fn wearer(&self, id: DocId) -> Option<usize> {
        self.scene.actors.iter().position(|a| a.motion == Some(id))
    }

    /// Frames document `id` is shifted by on the scene timeline: its
    /// wearer's offset; 0 for the camera, the light and files outside the
    /// scene. Scene frame = motion frame + offset.
    pub fn offset_of(&self, id: DocId) -> i32 {
        self.wearer(id).map_or(0, |i| self.scene.actors[i].offset)
    }

    /// The song's last frame on the scene timeline (its offset added), once
    /// its length is known.
    pub fn song_end(&self) -> Option<u32> {
        let s = self.scene.song.as_ref()?;
        let end = f64::from(s.offset) + self.song_frames?;
        Some(end.ceil().clamp(0.0, f64::from(u32::MAX)) as u32)
    }

    /// The scene's last frame: the latest key of any open document on the
    /// scene timeline (actors' offsets added), or the song's end if later;
    /// 0 for an empty workspace. The one answer for the timeline's length,
    /// playback's wrap, the End key and video export's default range.
    pub fn scene_end(&self) -> u32 {
        let keys = self.docs.iter().filter_map(|d| {
            let f = i64::from(d.motion.last_frame()?) + i64::from(self.offset_of(d.id));
            Some(f.clamp(0, i64::from(u32::MAX)) as u32)
        });
        keys.chain(self.song_end()).max().unwrap_or(0)
    }

    /// Which scene roles document `id` has, for tab and list labels.
    pub fn role_label(&self, id: DocId) -> Option<String> {
        let s = &self.scene;
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

    /// The open documents with unsaved edits, in tab order.
    pub fn modified(&self) -> impl Iterator<Item = &Document> {
        self.docs.iter().filter(|d| d.is_modified())
    }

    /// How many open documents have unsaved edits (the title bar's and the
    /// close guard's count).
    pub fn modified_count(&self) -> usize {
        self.modified().count()
    }
}
