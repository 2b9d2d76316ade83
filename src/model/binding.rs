//! Connects a VMD motion to a model: which bone/morph track drives which
//! bone/morph, and which IK key entry switches which chain.
//!
//! VMD names are Shift_JIS bytes in fixed fields (15 bytes for bones and
//! morphs, 20 for IK entries); MMD matches a model name by its Shift_JIS
//! bytes, cut to the field when longer, so that is what is done here.

use std::collections::{HashMap, HashSet};

use glam::{Quat, Vec3};

use super::data::Model;
use super::posing::PoseInput;
use crate::vmd::evaluate::{bone_at, ik_at, morph_at};
use crate::vmd::{Motion, TrackIndex};

/// Bone/morph field length in VMD.
const NAME_FIELD: usize = 15;
/// IK entry name field length in VMD.
const IK_NAME_FIELD: usize = 20;

/// Shift_JIS bytes of a model name (unencodable characters become `?`,
/// which no VMD name contains, so they simply do not match).
fn sjis(name: &str) -> Vec<u8> {
    encoding_rs::SHIFT_JIS.encode(name).0.into_owned()
}

/// `bytes` cut to `len` (a VMD field), as MMD writes over-long names.
fn cut(bytes: &[u8], len: usize) -> &[u8] {
    &bytes[..bytes.len().min(len)]
}

/// Which track drives which bone and morph, and how IK keys map to chains.
/// Build once per (model, motion) pair; [`MotionBinding::sample`] then fills
/// a [`PoseInput`] per frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MotionBinding {
    /// Per model bone, the index of its track in `TrackIndex::bones`.
    bone_tracks: Vec<Option<usize>>,
    /// Per model morph, the index of its track in `TrackIndex::morphs`.
    morph_tracks: Vec<Option<usize>>,
    /// Per IK chain, its IK bone's name as an IK-key entry holds it.
    ik_names: Vec<Vec<u8>>,
    /// Motion bone tracks the model has no bone for (decoded names).
    pub unknown_bones: Vec<String>,
    /// Motion morph tracks the model has no morph for.
    pub unknown_morphs: Vec<String>,
}

impl MotionBinding {
    /// Matches the model's bones, morphs and IK bones with the motion's
    /// tracks by name.
    pub fn new(model: &Model, index: &TrackIndex) -> MotionBinding {
        let bone_keys: Vec<Vec<u8>> = model
            .skeleton
            .bones
            .iter()
            .map(|b| cut(&sjis(&b.name), NAME_FIELD).to_vec())
            .collect();
        let morph_keys: Vec<Vec<u8>> = model
            .morphs
            .iter()
            .map(|m| cut(&sjis(&m.name), NAME_FIELD).to_vec())
            .collect();
        let bone_pos: HashMap<&[u8], usize> = index
            .bones
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name_key.as_slice(), i))
            .collect();
        let morph_pos: HashMap<&[u8], usize> = index
            .morphs
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name_key.as_slice(), i))
            .collect();
        let bone_tracks = bone_keys
            .iter()
            .map(|k| bone_pos.get(k.as_slice()).copied())
            .collect();
        let morph_tracks = morph_keys
            .iter()
            .map(|k| morph_pos.get(k.as_slice()).copied())
            .collect();
        let known_bones: HashSet<&[u8]> = bone_keys.iter().map(Vec::as_slice).collect();
        let mut known_morphs: HashSet<&[u8]> = morph_keys.iter().map(Vec::as_slice).collect();
        // PMD's base skin is folded into the mesh, not a morph; MMD writes
        // "base" keys for it, which are not missing.
        if matches!(model.format, super::data::Format::Pmd) {
            known_morphs.insert(b"base");
        }
        let unknown_bones = index
            .bones
            .iter()
            .filter(|t| !known_bones.contains(t.name_key.as_slice()))
            .map(|t| t.name().text)
            .collect();
        let unknown_morphs = index
            .morphs
            .iter()
            .filter(|t| !known_morphs.contains(t.name_key.as_slice()))
            .map(|t| t.name().text)
            .collect();
        let ik_names = model
            .skeleton
            .iks
            .iter()
            .map(|c| {
                let name = model
                    .skeleton
                    .bones
                    .get(c.ik_bone)
                    .map(|b| b.name.as_str())
                    .unwrap_or("");
                cut(&sjis(name), IK_NAME_FIELD).to_vec()
            })
            .collect();
        MotionBinding {
            bone_tracks,
            morph_tracks,
            ik_names,
            unknown_bones,
            unknown_morphs,
        }
    }

    /// Fills `input` with the motion's values at `frame` (fractional frames
    /// allowed): bone offsets and rotations, morph weights, IK switches.
    /// Bones and morphs without a track rest; an IK chain the IK key does
    /// not mention stays on.
    pub fn sample(
        &self,
        model: &Model,
        motion: &Motion,
        index: &TrackIndex,
        frame: f64,
        input: &mut PoseInput,
    ) {
        input.reset(model);
        for (b, track) in self.bone_tracks.iter().enumerate() {
            let Some(t) = track.and_then(|t| index.bones.get(t)) else {
                continue;
            };
            let pose = bone_at(motion, t, frame);
            if let (Some(tr), Some(rot)) =
                (input.translations.get_mut(b), input.rotations.get_mut(b))
            {
                *tr = Vec3::from(pose.position);
                *rot = Quat::from_array(pose.rotation);
            }
        }
        for (m, track) in self.morph_tracks.iter().enumerate() {
            let Some(t) = track.and_then(|t| index.morphs.get(t)) else {
                continue;
            };
            if let Some(w) = input.morphs.get_mut(m) {
                *w = morph_at(motion, t, frame);
            }
        }
        if let Some(key) = ik_at(motion, index, frame) {
            for e in 0..key.entry_count() {
                let name = key.entry_name_key(e);
                for (c, want) in self.ik_names.iter().enumerate() {
                    if want.as_slice() == name
                        && let Some(on) = input.ik.get_mut(c)
                    {
                        *on = key.entry_enabled(e);
                    }
                }
            }
        }
    }
}
