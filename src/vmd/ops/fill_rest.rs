//! Rest-pose fill: identity keys at frame 0 (書かれていないところへ初期姿勢を書き込む).
//!
//! For every bone of the motion (and any extra bone names given) without a
//! key at frame 0, a key is added at frame 0 with position (0, 0, 0),
//! rotation (0, 0, 0, 1) and MMD's default linear block
//! ([`DEFAULT_BONE_BLOCK`]).
//!
//! Effect on playback: in MMD a bone whose first key is at frame N holds
//! that key's pose from frame 0. After the fill it starts from the rest pose
//! at frame 0 and moves to that pose between 0 and N. This is what the
//! source article wants when motions are composed (a bone the other motion
//! moved must return to rest), and the report says it for every such bone.

use super::report::{OpError, Report};
use crate::vmd::interpolation::DEFAULT_BONE_BLOCK;
use crate::vmd::motion::Motion;
use crate::vmd::name::encode_name;
use crate::vmd::records::BoneKey;
use crate::vmd::track::TrackIndex;

/// Parameters of [`fill_rest_with`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FillRestParams {
    /// Bone names not in the motion that must also hold the rest pose (the
    /// union with another motion's bones when composing).
    pub extra_bones: Vec<String>,
}

/// [`fill_rest_with`] for the motion's own bones.
pub fn fill_rest(m: &Motion) -> Result<(Motion, Report), OpError> {
    fill_rest_with(m, &FillRestParams::default())
}

/// A rest key at frame 0 that keeps `template`'s name field bytes.
fn rest_key(template: &BoneKey) -> BoneKey {
    let mut k = *template;
    k.set_frame(0);
    k.set_position([0.0; 3]);
    k.set_rotation([0.0, 0.0, 0.0, 1.0]);
    k.set_interpolation_block(DEFAULT_BONE_BLOCK);
    k
}

/// Adds rest keys at frame 0; see the module docs.
pub fn fill_rest_with(m: &Motion, p: &FillRestParams) -> Result<(Motion, Report), OpError> {
    let idx = TrackIndex::build(m);
    let mut r = Report::new();
    let mut out = m.clone();
    for t in &idx.bones {
        let first = t.keys.first().map(|&i| &m.bones[i as usize]);
        let Some(first) = first else { continue };
        if first.frame() == 0 {
            continue;
        }
        let name = t.name().text;
        // The template keeps the name field's bytes (junk after the NUL too).
        out.bones.push(rest_key(first));
        r.added += 1;
        let pos = first.position();
        let rot = first.rotation();
        let is_rest = pos == [0.0; 3] && rot == [0.0, 0.0, 0.0, 1.0];
        if is_rest {
            r.note(format!(
                "bone \"{name}\": added a rest key at frame 0 (first key at frame {} is also the rest pose: playback unchanged)",
                first.frame()
            ));
        } else {
            r.warn(format!(
                "bone \"{name}\": added a rest key at frame 0; its first key is at frame {}, so frames 0..{} now move from the rest pose to that key instead of holding it",
                first.frame(),
                first.frame()
            ));
        }
    }
    let enc = m.name_encoding();
    for name in &p.extra_bones {
        let field = match encode_name(name, crate::vmd::layout::NAME_LEN, enc) {
            Ok(f) => f,
            Err(e) => {
                r.refuse(format!("extra bone \"{name}\" not added: {e}"));
                continue;
            }
        };
        let key = crate::vmd::name::name_bytes(&field);
        if idx.bone(key).is_some() || out.bones.iter().any(|k| k.name_key() == key) {
            continue;
        }
        match BoneKey::new(name, enc, 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]) {
            Ok(k) => {
                out.bones.push(k);
                r.added += 1;
                r.note(format!(
                    "bone \"{name}\": not in this motion; added a rest key at frame 0 so it holds the rest pose"
                ));
            }
            Err(e) => r.refuse(format!("extra bone \"{name}\" not added: {e}")),
        }
    }
    r.note(format!(
        "rest-pose fill: {} keys added at frame 0 (position 0, rotation identity, linear curves)",
        r.added
    ));
    Ok((out, r))
}
