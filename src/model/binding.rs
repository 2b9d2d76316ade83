//! Connects a VMD motion to a model: which bone/morph track drives which
//! bone/morph, and which IK key entry switches which chain.
//!
//! VMD names are Shift_JIS bytes in fixed fields (15 bytes for bones and
//! morphs, 20 for IK entries); MMD matches a model name by its Shift_JIS
//! bytes, cut to the field when longer, so that is what is done here.

use std::collections::{HashMap, HashSet};

use glam::{Quat, Vec3};

use super::data::{Format, Model};
use super::posing::PoseInput;
use crate::vmd::{MotionRef, Playhead, TrackIndex};

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

/// The bone and morph tracks of a motion that a model has nothing for, by
/// MMD's name rule (Shift_JIS bytes, model names cut to the 15-byte VMD
/// field). Decoded names, each once, in the index's order (first
/// appearance in the file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MissingNames {
    pub bones: Vec<String>,
    pub morphs: Vec<String>,
}

impl MissingNames {
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty() && self.morphs.is_empty()
    }
}

/// The 15-byte VMD keys of a model's bones and morphs.
fn model_keys(model: &Model) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let bones = model
        .skeleton
        .bones
        .iter()
        .map(|b| cut(&sjis(&b.name), NAME_FIELD).to_vec())
        .collect();
    let morphs = model
        .morphs
        .iter()
        .map(|m| cut(&sjis(&m.name), NAME_FIELD).to_vec())
        .collect();
    (bones, morphs)
}

/// Which bone and morph tracks of `index` the model lacks — the one rule
/// the viewport's list, the toolbox's warning, `model --motion` and the
/// binding all use. A PMD model's base skin (`base` keys MMD writes) is
/// not missing: it is folded into the mesh.
pub fn missing_names(model: &Model, index: &TrackIndex) -> MissingNames {
    let (bone_keys, morph_keys) = model_keys(model);
    missing_from(model, index, &bone_keys, &morph_keys)
}

fn missing_from(
    model: &Model,
    index: &TrackIndex,
    bone_keys: &[Vec<u8>],
    morph_keys: &[Vec<u8>],
) -> MissingNames {
    let known_bones: HashSet<&[u8]> = bone_keys.iter().map(Vec::as_slice).collect();
    let mut known_morphs: HashSet<&[u8]> = morph_keys.iter().map(Vec::as_slice).collect();
    if matches!(model.format, Format::Pmd) {
        known_morphs.insert(b"base");
    }
    MissingNames {
        bones: index
            .bones
            .iter()
            .filter(|t| !known_bones.contains(t.name_key.as_slice()))
            .map(|t| t.name().text)
            .collect(),
        morphs: index
            .morphs
            .iter()
            .filter(|t| !known_morphs.contains(t.name_key.as_slice()))
            .map(|t| t.name().text)
            .collect(),
    }
}

/// The bone track of `index` that drives a model bone called `name`, by
/// MMD's name rule (what [`MotionBinding`] binds it to).
pub fn bone_track(index: &TrackIndex, name: &str) -> Option<usize> {
    let key = sjis(name);
    let key = cut(&key, NAME_FIELD);
    index
        .bones
        .iter()
        .position(|t| t.name_key.as_slice() == key)
}

/// Which track drives which bone and morph, and how IK keys map to chains.
/// Build once per (model, track index) pair — again when the index's
/// tracks change; [`MotionBinding::sample`] then fills a [`PoseInput`] per
/// frame from the motion's evaluation cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MotionBinding {
    /// (model bone, its track in `TrackIndex::bones`), for bones with a track.
    bone_tracks: Vec<(u32, u32)>,
    /// (model morph, its track in `TrackIndex::morphs`), for morphs with a track.
    morph_tracks: Vec<(u32, u32)>,
    /// Per IK chain, its IK bone's name as an IK-key entry holds it.
    ik_names: Vec<Vec<u8>>,
    /// What the motion uses that the model lacks ([`missing_names`]).
    pub missing: MissingNames,
}

impl MotionBinding {
    /// Matches the model's bones, morphs and IK bones with the motion's
    /// tracks by name.
    pub fn new(model: &Model, index: &TrackIndex) -> MotionBinding {
        let (bone_keys, morph_keys) = model_keys(model);
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
        let pairs = |keys: &[Vec<u8>], pos: &HashMap<&[u8], usize>| -> Vec<(u32, u32)> {
            keys.iter()
                .enumerate()
                .filter_map(|(b, k)| {
                    let t = *pos.get(k.as_slice())?;
                    Some((u32::try_from(b).ok()?, u32::try_from(t).ok()?))
                })
                .collect()
        };
        let bone_tracks = pairs(&bone_keys, &bone_pos);
        let morph_tracks = pairs(&morph_keys, &morph_pos);
        let missing = missing_from(model, index, &bone_keys, &morph_keys);
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
            missing,
        }
    }

    /// How many model bones a track drives.
    pub fn bound_bones(&self) -> usize {
        self.bone_tracks.len()
    }

    /// The bone track driving model bone `bone`, if any.
    pub fn bone_track(&self, bone: usize) -> Option<usize> {
        let b = u32::try_from(bone).ok()?;
        self.bone_tracks
            .iter()
            .find(|&&(x, _)| x == b)
            .map(|&(_, t)| t as usize)
    }

    /// Fills `input` with the motion's values at `frame` (fractional frames
    /// allowed): bone offsets and rotations and morph weights from the
    /// evaluation cache, IK switches from the IK/show key in force. Bones
    /// and morphs without a track rest; an IK chain the IK key does not
    /// mention stays on.
    pub fn sample(&self, model: &Model, src: MotionRef<'_>, frame: f64, input: &mut PoseInput) {
        self.fill(model, src, frame, input, |t| src.cache.bone_at(t, frame));
    }

    /// [`Self::sample`] for playback: `head` remembers each track's
    /// segment, so consecutive frames need no search (same values).
    pub fn sample_playing(
        &self,
        model: &Model,
        src: MotionRef<'_>,
        head: &mut Playhead,
        frame: f64,
        input: &mut PoseInput,
    ) {
        self.fill(model, src, frame, input, |t| {
            src.cache.bone_playing(head, t, frame)
        });
    }

    fn fill(
        &self,
        model: &Model,
        src: MotionRef<'_>,
        frame: f64,
        input: &mut PoseInput,
        mut bone: impl FnMut(usize) -> crate::vmd::evaluate::BonePose,
    ) {
        input.reset(model);
        for &(b, t) in &self.bone_tracks {
            let pose = bone(t as usize);
            if let (Some(tr), Some(rot)) = (
                input.translations.get_mut(b as usize),
                input.rotations.get_mut(b as usize),
            ) {
                *tr = Vec3::from(pose.position);
                *rot = Quat::from_array(pose.rotation);
            }
        }
        for &(m, t) in &self.morph_tracks {
            if let Some(w) = input.morphs.get_mut(m as usize) {
                *w = src.cache.morph_at(t as usize, frame);
            }
        }
        if let Some(key) = src.ik_at(frame) {
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
