//! What the sheet keeps between frames and rebuilds when the document or
//! its revision changes: track names and camera cuts ([`Cache`]), frame
//! lists of the single-track sections ([`FrameCache`]) and, for large
//! selections, one bit per key ([`SelBits`]).

use std::collections::{BTreeSet, HashMap};

use super::{State, frame_in, track_keys};
use crate::vmd;
use crate::vmd::key_edit::TrackRef;
use crate::workspace::document::{Document, KeyRef};

/// Names and cuts of the document shown, rebuilt when it changes.
#[derive(Debug, Clone, Default)]
pub(super) struct Cache {
    pub(super) doc_id: u64,
    pub(super) revision: u64,
    pub(super) bone_names: Vec<String>,
    pub(super) morph_names: Vec<String>,
    /// Earlier frame of every cut (camera keys exactly one frame apart).
    pub(super) cuts: Vec<u32>,
}

/// Per-track frame lists (sorted like the track's keys) for the camera,
/// light, self-shadow and IK rows (bone and morph tracks carry theirs in
/// [`crate::vmd::Track::frames`]), filled lazily for the rows drawn and
/// dropped whenever the document changes. Reading frames
/// from a contiguous `u32` list instead of from 111-byte records spread over
/// a 100 MB motion is what keeps a frame of a 1 M-key file cheap.
#[derive(Debug, Default)]
pub(super) struct FrameCache {
    pub(super) doc_id: u64,
    pub(super) revision: u64,
    tracks: HashMap<TrackRef, Vec<u32>>,
}

impl FrameCache {
    pub(super) fn get(&mut self, doc: &Document, t: &TrackRef) -> &[u32] {
        if self.doc_id != doc.id || self.revision != doc.revision {
            self.doc_id = doc.id;
            self.revision = doc.revision;
            self.tracks.clear();
        }
        self.tracks.entry(t.clone()).or_insert_with(|| {
            let m = &doc.motion;
            track_keys(doc, t)
                .iter()
                .map(|&k| frame_in(m, t, k))
                .collect()
        })
    }
}

/// Selections larger than this are tested through [`SelBits`].
pub(super) const SEL_BITS_MIN: usize = 4096;

/// (document id, revision, selection size, first, last).
pub(super) type SelFingerprint = (u64, u64, usize, Option<KeyRef>, Option<KeyRef>);

/// The selection as one bit per key per section, for large selections.
/// Rebuilt when the document, its revision, or the selection's size or
/// ends change (a cheap fingerprint: a large selection that changes without
/// changing any of these would show stale highlights until the next change).
#[derive(Debug, Default)]
pub(super) struct SelBits {
    fingerprint: Option<SelFingerprint>,
    bits: [Vec<u64>; 6],
}

fn section_of(k: KeyRef) -> (usize, u32) {
    match k {
        KeyRef::Bone(i) => (0, i),
        KeyRef::Morph(i) => (1, i),
        KeyRef::Camera(i) => (2, i),
        KeyRef::Light(i) => (3, i),
        KeyRef::Shadow(i) => (4, i),
        KeyRef::Ik(i) => (5, i),
    }
}

impl SelBits {
    pub(super) fn refresh(&mut self, doc: &Document, sel: &BTreeSet<KeyRef>) {
        if sel.len() <= SEL_BITS_MIN {
            return;
        }
        let fp = (
            doc.id,
            doc.revision,
            sel.len(),
            sel.first().copied(),
            sel.last().copied(),
        );
        if self.fingerprint == Some(fp) {
            return;
        }
        self.fingerprint = Some(fp);
        let m = &doc.motion;
        let lens = [
            m.bones.len(),
            m.morphs.len(),
            m.cameras.len(),
            m.lights.len(),
            m.shadows.len(),
            m.iks.len(),
        ];
        for (b, n) in self.bits.iter_mut().zip(lens) {
            b.clear();
            b.resize(n.div_ceil(64), 0);
        }
        for &k in sel {
            let (s, i) = section_of(k);
            if let Some(w) = self.bits[s].get_mut(i as usize / 64) {
                *w |= 1 << (i % 64);
            }
        }
    }
    pub(super) fn contains(&self, k: KeyRef) -> bool {
        let (s, i) = section_of(k);
        self.bits[s]
            .get(i as usize / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

/// How the drawing asks "is this key selected?".
pub(super) enum SelTest<'a> {
    Set(&'a BTreeSet<KeyRef>),
    Bits(&'a SelBits),
}

impl SelTest<'_> {
    pub(super) fn is_empty(&self) -> bool {
        match self {
            SelTest::Set(s) => s.is_empty(),
            SelTest::Bits(_) => false,
        }
    }
    pub(super) fn contains(&self, k: KeyRef) -> bool {
        match self {
            SelTest::Set(s) => s.contains(&k),
            SelTest::Bits(b) => b.contains(k),
        }
    }
}

impl State {
    pub(super) fn refresh_cache(&mut self, doc: &Document) {
        if self.cache.doc_id == doc.id && self.cache.revision == doc.revision {
            return;
        }
        self.cache = Cache {
            doc_id: doc.id,
            revision: doc.revision,
            bone_names: doc.index.bones.iter().map(|t| t.name().text).collect(),
            morph_names: doc.index.morphs.iter().map(|t| t.name().text).collect(),
            cuts: vmd::summary::cut_frames(&doc.motion, &doc.index),
        };
    }
}
