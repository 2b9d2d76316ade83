//! The motion's per-key physics switch (bytes 2–3 of a bone key's
//! interpolation block, `63 0F` = off): which bones have physics off at a
//! frame.

use crate::model::data::Model;
use crate::vmd::{Motion, TrackIndex};

/// VMD bone name field length.
const NAME_FIELD: usize = 15;

/// Per model bone, whether the motion switches its physics off at `frame`:
/// the flag of the bone's last key at or before `frame` (a bone before its
/// first key, or without a track, has physics on). Bones match tracks by
/// their Shift_JIS name cut to the 15-byte field, as MMD matches them.
pub fn physics_off_at(model: &Model, motion: &Motion, index: &TrackIndex, frame: f64) -> Vec<bool> {
    let frame = if frame.is_finite() {
        frame.max(0.0)
    } else {
        0.0
    };
    let whole = frame.floor().min(f64::from(u32::MAX)) as u32;
    model
        .skeleton
        .bones
        .iter()
        .map(|b| {
            let name = encoding_rs::SHIFT_JIS.encode(&b.name).0;
            let key = &name[..name.len().min(NAME_FIELD)];
            let Some(track) = index.bone(key) else {
                return false;
            };
            // Keys at or before `whole`: the last of them is in force.
            let n = track.frames.partition_point(|&f| f <= whole);
            n.checked_sub(1)
                .and_then(|k| track.keys.get(k))
                .and_then(|&i| motion.bones.get(i as usize))
                .is_some_and(|k| k.physics_off())
        })
        .collect()
}
