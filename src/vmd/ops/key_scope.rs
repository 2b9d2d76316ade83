//! Which keys Mirror and Speed act on: some bones (or every track) within
//! a frame range (or every frame).
//!
//! A bone scope names bones by their VMD name keys (the name field's bytes
//! up to the first NUL, [`BoneKey::name_key`]); with one, only those bones'
//! keys change and every other track (other bones, morphs, camera, light,
//! self-shadow, IK) keeps its bytes and its place.

use std::collections::BTreeSet;

use crate::vmd::name::name_text;
use crate::vmd::records::BoneKey;

/// The keys an operation may change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct KeyScope {
    /// Bone name keys; `None`: every track of the file (bones, morphs,
    /// camera, light, self-shadow, IK).
    pub bones: Option<BTreeSet<Vec<u8>>>,
    /// Inclusive motion frames; `None`: every frame.
    pub frames: Option<(u32, u32)>,
}

impl KeyScope {
    /// Every key of the file.
    pub fn all() -> KeyScope {
        KeyScope::default()
    }

    /// Whether the scope is the whole file.
    pub fn is_all(&self) -> bool {
        self.bones.is_none() && self.frames.is_none()
    }

    /// Whether frame `f` is inside the range.
    pub fn in_frames(&self, f: u32) -> bool {
        self.frames.is_none_or(|(a, b)| (a..=b).contains(&f))
    }

    /// Whether the bone named by `name_key` is in the scope.
    pub fn has_bone(&self, name_key: &[u8]) -> bool {
        self.bones.as_ref().is_none_or(|s| s.contains(name_key))
    }

    /// Whether tracks that are not bones (morphs, camera, light,
    /// self-shadow, IK) are in the scope: only without a bone scope.
    pub fn takes_other_tracks(&self) -> bool {
        self.bones.is_none()
    }

    /// Whether the bone key is in the scope (its bone and its frame).
    pub fn contains(&self, key: &BoneKey) -> bool {
        self.in_frames(key.frame()) && self.has_bone(key.name_key())
    }

    /// "3 bones (左腕, 右腕, …), frames 10–40": for reports and undo labels.
    pub fn describe(&self) -> String {
        let bones = match &self.bones {
            None => "every track".to_owned(),
            Some(set) => {
                let names: Vec<String> = set.iter().take(4).map(|b| name_text(b)).collect();
                let more = if set.len() > names.len() { ", …" } else { "" };
                format!(
                    "{} bone{} ({}{more})",
                    set.len(),
                    if set.len() == 1 { "" } else { "s" },
                    names.join(", ")
                )
            }
        };
        match self.frames {
            Some((a, b)) => format!("{bones}, frames {a}–{b}"),
            None => format!("{bones}, every frame"),
        }
    }
}
