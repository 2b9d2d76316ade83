//! Physics bake: simulate a motion on a model and write the result as
//! keys, so that MikuMikuDance (or this program with physics off) plays
//! the simulation back.
//!
//! For every bone a dynamic body drives, one key per frame of the range
//! with the bone's local values that reproduce its simulated world matrix
//! (`local = parent_world⁻¹ · world`, minus the rest offset), the physics
//! flag off (`63 0F`, so MMD plays the keys instead of simulating), MMD's
//! default linear curves. Those bones' old keys inside the range are
//! replaced; every other record keeps its bytes.
//!
//! **After the range** MMD keeps a bone's physics off from its last
//! physics-off key on, so a bake that ends before the motion does would
//! freeze the hair from there to the end. For each baked bone whose physics
//! was on at `last + 1` in the motion as given (no key there of its own),
//! one more key at `last + 1` turns it back on: the motion's own values at
//! that frame, linear curves, the flag clear. A bake reaching the motion's
//! last frame writes none.
//!
//! **The simulation starts as playback does:** from frame 0 by default
//! (or from a lead-in frame the caller sets, at most the range's first),
//! settled there, and runs frame by frame in MMD's order through the one
//! pose engine; only the range's frames are written. So a bake of
//! 1200–1300 carries the hair's momentum into 1200 as playing from the
//! start shows it, not the hair settled at 1200.
//!
//! **Names a VMD cannot store:** a bone whose name Shift_JIS cannot hold,
//! or whose first 15 Shift_JIS bytes are another bone's too, is left out
//! (its keys would name no bone, or move the other one as well) and named
//! in [`BakeReport::left_out`] with why; every other bone is baked.
//!
//! Limits: a baked bone with an append (付与) or a fixed axis gets the
//! local rotation it must end with; playing it back composes the append
//! again (MMD's physics bones have neither in the models we have seen).

use std::ops::RangeInclusive;

use glam::{Mat4, Quat, Vec3};

use super::SimulationMode;
use crate::model::PoseEngine;
use crate::model::data::Model;
use crate::vmd::{BoneKey, IndexedMotion, Motion, interpolation};

/// Why a bake did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BakeError {
    /// The model has no rigid body (nothing to simulate).
    NoBodies,
    /// No dynamic body drives a bone (nothing to bake).
    NothingToBake,
    /// Every bone a dynamic body drives has a name a VMD cannot store
    /// (each named, with why); nothing was changed.
    NamesNotStorable(Vec<LeftOut>),
    /// The progress callback said stop; nothing was changed.
    Cancelled,
}

impl std::fmt::Display for BakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BakeError::NoBodies => "the model has no rigid bodies: nothing to simulate",
            BakeError::NothingToBake => "no dynamic rigid body drives a bone: nothing to bake",
            BakeError::NamesNotStorable(left) => {
                let list: Vec<String> = left.iter().map(LeftOut::to_string).collect();
                return write!(
                    f,
                    "no physics bone has a name a VMD can store: {}",
                    list.join("; ")
                );
            }
            BakeError::Cancelled => "bake cancelled",
        })
    }
}

impl std::error::Error for BakeError {}

/// What a bake did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BakeReport {
    /// The baked bones (model names), model order.
    pub bones: Vec<String>,
    /// Frames baked (the range's length).
    pub frames: u32,
    /// The frame the simulation started at (settled there): the lead-in
    /// before the range is simulated but not written.
    pub simulated_from: u32,
    /// Keys written (bones × frames).
    pub keys_written: usize,
    /// Old keys of the baked bones inside the range, replaced.
    pub keys_replaced: usize,
    /// Keys written at the frame after the range to turn physics back on
    /// (see the module notes); counted in `keys_written` too.
    pub keys_restoring: usize,
    /// Blow-up messages of the simulation (each reset the world).
    pub resets: Vec<String>,
    /// Problems in the model's bodies and joints (as loaded).
    pub warnings: Vec<String>,
    /// Bones a dynamic body drives that were not baked, each with why
    /// (their names cannot be stored in a VMD): model order.
    pub left_out: Vec<LeftOut>,
}

/// A physics bone the bake left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The bone's name in the model.
    pub bone: String,
    pub reason: LeftOutReason,
}

/// Why a bone's keys cannot be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeftOutReason {
    /// Its name has characters Shift_JIS (the VMD's encoding) cannot hold.
    NotShiftJis,
    /// Its name's first 15 Shift_JIS bytes (the VMD's name field) are
    /// those of these other bones too: its keys would move them as well.
    SharesNameField(Vec<String>),
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.reason {
            LeftOutReason::NotShiftJis => write!(
                f,
                "{} left out: its name has characters Shift_JIS cannot hold, so a VMD cannot store it",
                self.bone
            ),
            LeftOutReason::SharesNameField(others) => write!(
                f,
                "{} left out: its name's first 15 bytes in Shift_JIS (a VMD's name field) are also {}'s, so its keys would move {} too",
                self.bone,
                others.join(", "),
                if others.len() == 1 {
                    "that bone"
                } else {
                    "those bones"
                }
            ),
        }
    }
}

/// Splits the bones to bake into those a VMD can name and those it cannot
/// (a name Shift_JIS cannot hold, or a name field shared with another
/// bone of the model).
fn storable(model: &Model, bones: Vec<usize>) -> (Vec<usize>, Vec<LeftOut>) {
    let all = &model.skeleton.bones;
    let keys: Vec<Vec<u8>> = all
        .iter()
        .map(|b| name_key(&name_field(&b.name)).to_vec())
        .collect();
    let mut kept = Vec::new();
    let mut left = Vec::new();
    for b in bones {
        let name = &all[b].name;
        let (_, _, unmappable) = encoding_rs::SHIFT_JIS.encode(name);
        let reason = if unmappable {
            Some(LeftOutReason::NotShiftJis)
        } else {
            let others: Vec<String> = (0..all.len())
                .filter(|&o| o != b && keys[o] == keys[b])
                .map(|o| all[o].name.clone())
                .collect();
            (!others.is_empty()).then_some(LeftOutReason::SharesNameField(others))
        };
        match reason {
            Some(reason) => left.push(LeftOut {
                bone: name.clone(),
                reason,
            }),
            None => kept.push(b),
        }
    }
    (kept, left)
}

/// The 15-byte VMD name field for a model bone name: Shift_JIS, cut to
/// the field as MMD matches names, NUL-padded.
fn name_field(name: &str) -> [u8; 15] {
    let bytes = encoding_rs::SHIFT_JIS.encode(name).0;
    let mut field = [0u8; 15];
    let n = bytes.len().min(15);
    field[..n].copy_from_slice(&bytes[..n]);
    field
}

/// The key bytes a name field identifies (up to the first NUL).
fn name_key(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..end]
}

/// Simulates `motion` on `model` from frame 0 and returns the motion with
/// the physics bones baked over `range` (motion frames, inclusive; see the
/// module notes): [`bake_physics_from`] with the lead-in from the start.
pub fn bake_physics(
    model: &Model,
    motion: &Motion,
    range: RangeInclusive<u32>,
    progress: impl FnMut(f32) -> bool,
) -> Result<(Motion, BakeReport), BakeError> {
    bake_physics_from(model, motion, range, 0, progress)
}

/// Simulates `motion` on `model` from frame `start` (settled there; at most
/// the range's first frame) to the range's last, and returns the motion
/// with the physics bones baked over `range` (motion frames, inclusive;
/// see the module notes). `progress` gets the fraction of the simulation
/// done (0..=1) after each frame and returns `false` to cancel. The input
/// is never changed.
pub fn bake_physics_from(
    model: &Model,
    motion: &Motion,
    range: RangeInclusive<u32>,
    start: u32,
    mut progress: impl FnMut(f32) -> bool,
) -> Result<(Motion, BakeReport), BakeError> {
    let (first, last) = (*range.start(), *range.end());
    let (first, last) = (first.min(last), first.max(last));
    let start = start.min(first);
    let mut engine = PoseEngine::new(model);
    if !engine.enable_physics(model, SimulationMode::Trace) {
        return Err(BakeError::NoBodies);
    }
    let bones = &model.skeleton.bones;
    let mut baked: Vec<usize> = Vec::new();
    let mut warnings = Vec::new();
    if let Some(world) = engine.physics() {
        warnings = world.warnings().to_vec();
        for b in 0..bones.len() {
            if let Some(i) = world.driver(b)
                && world
                    .setup()
                    .bodies
                    .get(i)
                    .is_some_and(|s| s.mode.is_dynamic())
            {
                baked.push(b);
            }
        }
    }
    if baked.is_empty() {
        return Err(BakeError::NothingToBake);
    }
    let (baked, left_out) = storable(model, baked);
    if baked.is_empty() {
        return Err(BakeError::NamesNotStorable(left_out));
    }
    let fields: Vec<[u8; 15]> = baked.iter().map(|&b| name_field(&bones[b].name)).collect();

    let indexed = IndexedMotion::new(motion.clone());
    engine.bind(model, Some(&indexed.index));
    let total = u64::from(last - first) + 1;
    let simulated = u64::from(last - start) + 1;
    let mut keys = Vec::with_capacity(baked.len() * total as usize);
    let mut resets = Vec::new();
    let mut block = interpolation::DEFAULT_BONE_BLOCK;
    interpolation::set_physics_off(&mut block, true);
    for (k, frame) in (start..=last).enumerate() {
        engine.pose_bones(model, Some(indexed.as_ref()), f64::from(frame), |_| {});
        if let Some(m) = engine.take_physics_message() {
            resets.push(format!("frame {frame}: {m}"));
        }
        // The lead-in is simulated, not written.
        if frame >= first {
            let world = &engine.posed.bone_world;
            for (j, &b) in baked.iter().enumerate() {
                let (t, r) = local_values(model, world, b);
                keys.push(bone_key(&fields[j], frame, t, r, block));
            }
        }
        if !progress((k as u64 + 1) as f32 / simulated as f32) {
            return Err(BakeError::Cancelled);
        }
    }

    let restoring = restore_keys(model, motion, &indexed, &baked, &fields, last);
    keys.extend(restoring.iter().cloned());

    let mut out = motion.clone();
    let before = out.bones.len();
    out.bones.retain(|key| {
        let in_range = (first..=last).contains(&key.frame());
        !(in_range
            && fields
                .iter()
                .any(|f| name_key(f) == name_key(key.name_field())))
    });
    let replaced = before - out.bones.len();
    let written = keys.len();
    out.bones.extend(keys);
    Ok((
        out,
        BakeReport {
            bones: baked.iter().map(|&b| bones[b].name.clone()).collect(),
            frames: total as u32,
            simulated_from: start,
            keys_written: written,
            keys_replaced: replaced,
            keys_restoring: restoring.len(),
            resets,
            warnings,
            left_out,
        },
    ))
}

/// A bone key record from its name field, frame, local values and
/// interpolation block.
fn bone_key(field: &[u8; 15], frame: u32, t: Vec3, r: Quat, block: [u8; 64]) -> BoneKey {
    let mut key = BoneKey {
        raw: [0; crate::vmd::layout::BONE_KEY_LEN],
    };
    key.set_name_field(field);
    key.set_frame(frame);
    key.set_position(t.to_array());
    key.set_rotation(r.to_array());
    key.set_interpolation_block(block);
    key
}

/// The keys at `last + 1` that give the baked bones their physics back
/// (module notes): for each baked bone with no key of its own at that
/// frame and physics on there in `motion` (its latest key at or before it
/// not flagged off), a key with the motion's sampled values and the flag
/// clear. None when `last` is the motion's last frame or beyond.
fn restore_keys(
    model: &Model,
    motion: &Motion,
    indexed: &IndexedMotion,
    baked: &[usize],
    fields: &[[u8; 15]],
    last: u32,
) -> Vec<BoneKey> {
    let Some(next) = last.checked_add(1) else {
        return Vec::new();
    };
    if motion.last_frame().is_none_or(|end| end <= last) {
        return Vec::new();
    }
    let mut plain = PoseEngine::new(model);
    plain.bind(model, Some(&indexed.index));
    plain.pose_bones(model, Some(indexed.as_ref()), f64::from(next), |_| {});
    let input = plain.input();
    let mut out = Vec::new();
    for (j, &b) in baked.iter().enumerate() {
        let own = |key: &&BoneKey| name_key(key.name_field()) == name_key(&fields[j]);
        // The bone's latest key at or before `next` decides its flag there.
        let latest = motion
            .bones
            .iter()
            .filter(own)
            .filter(|k| k.frame() <= next)
            .max_by_key(|k| k.frame());
        if latest.is_some_and(|k| k.frame() == next || k.physics_off()) {
            continue;
        }
        let t = input.translations.get(b).copied().unwrap_or(Vec3::ZERO);
        let r = input.rotations.get(b).copied().unwrap_or(Quat::IDENTITY);
        let (t, r) = if t.is_finite() && r.is_finite() {
            (t, r)
        } else {
            (Vec3::ZERO, Quat::IDENTITY)
        };
        out.push(bone_key(
            &fields[j],
            next,
            t,
            r,
            interpolation::DEFAULT_BONE_BLOCK,
        ));
    }
    out
}

/// Bone `b`'s local translation (offset from rest, in the parent's frame)
/// and rotation that give its world matrix under its parent's:
/// `world = parent · translate(rest − parent rest + t) · rotate(r)`.
/// Non-finite results give the rest values.
fn local_values(model: &Model, world: &[Mat4], b: usize) -> (Vec3, Quat) {
    let bones = &model.skeleton.bones;
    let Some(w) = world.get(b) else {
        return (Vec3::ZERO, Quat::IDENTITY);
    };
    let parent = bones[b]
        .parent
        .filter(|&p| p < bones.len() && p != b && p < world.len());
    let (pw, prest) = match parent {
        Some(p) => (world[p], bones[p].rest_position),
        None => (Mat4::IDENTITY, Vec3::ZERO),
    };
    let local = pw.inverse() * *w;
    let r = Quat::from_mat4(&local);
    let t = local.w_axis.truncate() - (bones[b].rest_position - prest);
    if r.is_finite() && t.is_finite() && r.length_squared() > 1.0e-12 {
        (t, r.normalize())
    } else {
        (Vec3::ZERO, Quat::IDENTITY)
    }
}
