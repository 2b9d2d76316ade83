//! Left/right mirror: the motion as seen in a mirror placed on the YZ plane.
//!
//! MMD space is left-handed, Y up, the model faces −Z; mirroring maps
//! x → −x. For a rotation R the mirrored rotation is M·R·M with
//! M = diag(−1, 1, 1), which for a quaternion (x, y, z, w) is (x, −y, −z, w).
//!
//! * Bones: position (−x, y, z), rotation (x, −y, −z, w), 左 ⇄ 右 in names.
//! * Camera: target (−x, y, z), rotation (rx, −ry, −rz), distance and field
//!   of view kept. With `eye = target + Ry(−ry)·Rx(−rx)·Rz(−rz)·(0,0,d)`:
//!   M·Ry(a)·M = Ry(−a), M·Rx(a)·M = Rx(a), M·Rz(a)·M = Rz(−a), and
//!   M·(0,0,d) = (0,0,d), so M·eye = M·target + Ry(ry)·Rx(−rx)·Rz(rz)·(0,0,d),
//!   which is the eye of the mirrored key; the view direction and up vector
//!   mirror the same way.
//! * Light: direction (−x, y, z). Self-shadow: unchanged.
//! * Morph names and IK entry names (20-byte fields): 左 ⇄ 右.
//!
//! Signs are flipped by flipping the sign bit, and a swapped name keeps the
//! field's bytes after the name, so mirroring twice gives back the
//! original bytes. Interpolation bytes are never touched.

use std::collections::HashMap;

use super::key_scope::KeyScope;
use super::report::{OpError, Report};
use crate::vmd::motion::Motion;
use crate::vmd::name::{decode_name, encode_name};
use crate::vmd::records::BoneKey;

const SIGN: u32 = 0x8000_0000;

fn neg(v: f32) -> f32 {
    f32::from_bits(v.to_bits() ^ SIGN)
}

fn swap_char(c: char) -> char {
    match c {
        '左' => '右',
        '右' => '左',
        c => c,
    }
}

/// The encoded bytes of `text` (no padding), or `None` when it does not encode.
fn encoded(text: &str, enc: crate::vmd::NameEncoding, max: usize) -> Result<Vec<u8>, String> {
    // A generous field so that only encodability is checked here.
    match encode_name(text, max * 4 + 8, enc) {
        Ok(mut v) => {
            while v.last() == Some(&0) {
                v.pop();
            }
            Ok(v)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The name field with 左 and 右 swapped, keeping every byte after the name.
///
/// `Ok(None)`: the name has neither character. `Err(reason)`: the swap is
/// refused (the partner name does not fit the field, does not encode, or
/// the bytes would not read back as the swapped name).
pub fn mirror_name_field(field: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let d = decode_name(field);
    if !d.text.contains(['左', '右']) {
        return Ok(None);
    }
    if d.undecodable {
        return Err("its bytes do not decode cleanly".into());
    }
    let enc = d.encoding;
    let swapped: String = d.text.chars().map(swap_char).collect();
    let old = encoded(&d.text, enc, field.len())?;
    if !field.starts_with(&old) {
        return Err(format!(
            "its bytes do not re-encode identically in {}",
            enc.label()
        ));
    }
    let new = encoded(&swapped, enc, field.len())?;
    if new.len() > field.len() {
        return Err(format!(
            "the partner \"{swapped}\" is {} bytes in {} but the field holds {}",
            new.len(),
            enc.label(),
            field.len()
        ));
    }
    let mut out = field.to_vec();
    if new.len() == old.len() {
        out[..new.len()].copy_from_slice(&new);
    } else {
        out.fill(0);
        out[..new.len()].copy_from_slice(&new);
    }
    let back = decode_name(&out);
    if back.text != swapped || back.encoding != enc {
        return Err(format!(
            "the partner \"{swapped}\" would read back as \"{}\" ({})",
            back.text,
            back.encoding.label()
        ));
    }
    Ok(Some(out))
}

/// Caches the swap per distinct name field and reports each name once.
struct NameSwapper<'r> {
    what: &'static str,
    done: HashMap<Vec<u8>, Option<Vec<u8>>>,
    report: &'r mut Report,
}

impl NameSwapper<'_> {
    fn swap(&mut self, field: &[u8]) -> Option<Vec<u8>> {
        if let Some(v) = self.done.get(field) {
            return v.clone();
        }
        let res = match mirror_name_field(field) {
            Ok(Some(new)) => {
                self.report.note(format!(
                    "{} \"{}\" renamed to \"{}\"",
                    self.what,
                    decode_name(field).text,
                    decode_name(&new).text
                ));
                Some(new)
            }
            Ok(None) => None,
            Err(why) => {
                self.report.refuse(format!(
                    "{} \"{}\" kept its name (values mirrored): {why}",
                    self.what,
                    decode_name(field).text
                ));
                None
            }
        };
        self.done.insert(field.to_vec(), res.clone());
        res
    }
}

/// Mirrors a motion left/right. Never fails; refusals are in the report.
pub fn mirror(m: &Motion) -> Result<(Motion, Report), OpError> {
    mirror_scoped(m, &KeyScope::all())
}

/// Whether a bone key is mirrored: its frame is in the range, and its bone
/// or its 左⇄右 partner is in the scope (a pair mirrors together, so the
/// two sides swap and no key lands on the other side's key).
fn takes_bone(scope: &KeyScope, k: &BoneKey) -> bool {
    if !scope.in_frames(k.frame()) {
        return false;
    }
    scope.has_bone(k.name_key())
        || matches!(mirror_name_field(k.name_field()),
            Ok(Some(p)) if scope.has_bone(crate::vmd::name::name_bytes(&p)))
}

/// Mirrors the keys in `scope` (see [`KeyScope`]); every other key keeps
/// its bytes. Never fails; refusals are in the report.
pub fn mirror_scoped(m: &Motion, scope: &KeyScope) -> Result<(Motion, Report), OpError> {
    let mut report = Report::new();
    let mut out = m.clone();
    let mut renamed_keys = 0usize;
    let others = scope.takes_other_tracks();
    let (mut bones, mut cameras, mut lights) = (0usize, 0usize, 0usize);

    {
        let mut names = NameSwapper {
            what: "bone",
            done: HashMap::new(),
            report: &mut report,
        };
        for k in out.bones.iter_mut().filter(|k| takes_bone(scope, k)) {
            bones += 1;
            let [x, y, z] = k.position();
            k.set_position([neg(x), y, z]);
            let [qx, qy, qz, qw] = k.rotation();
            k.set_rotation([qx, neg(qy), neg(qz), qw]);
            if let Some(new) = names.swap(k.name_field())
                && let Ok(field) = <[u8; 15]>::try_from(new.as_slice())
            {
                k.set_name_field(&field);
                renamed_keys += 1;
            }
        }
    }
    {
        let mut names = NameSwapper {
            what: "morph",
            done: HashMap::new(),
            report: &mut report,
        };
        for k in (out.morphs.iter_mut()).filter(|k| others && scope.in_frames(k.frame())) {
            if let Some(new) = names.swap(k.name_field())
                && let Ok(field) = <[u8; 15]>::try_from(new.as_slice())
            {
                k.set_name_field(&field);
                renamed_keys += 1;
            }
        }
    }
    for k in (out.cameras.iter_mut()).filter(|k| others && scope.in_frames(k.frame())) {
        cameras += 1;
        let [x, y, z] = k.target();
        k.set_target([neg(x), y, z]);
        let [rx, ry, rz] = k.rotation();
        k.set_rotation([rx, neg(ry), neg(rz)]);
    }
    for k in (out.lights.iter_mut()).filter(|k| others && scope.in_frames(k.frame())) {
        lights += 1;
        let [x, y, z] = k.direction();
        k.set_direction([neg(x), y, z]);
    }
    {
        let mut names = NameSwapper {
            what: "IK entry",
            done: HashMap::new(),
            report: &mut report,
        };
        for k in (out.iks.iter_mut()).filter(|k| others && scope.in_frames(k.frame())) {
            for i in 0..k.entry_count() {
                if let Some(new) = names.swap(k.entry_name_field(i)) {
                    let at =
                        crate::vmd::layout::IK_KEY_HEAD_LEN + i * crate::vmd::layout::IK_ENTRY_LEN;
                    k.raw[at..at + new.len()].copy_from_slice(&new);
                    renamed_keys += 1;
                }
            }
        }
    }

    report.changed = bones
        + cameras
        + lights
        + out
            .morphs
            .iter()
            .zip(&m.morphs)
            .filter(|(a, b)| a != b)
            .count()
        + out.iks.iter().zip(&m.iks).filter(|(a, b)| a != b).count();
    report.note(format!(
        "mirrored {} bone keys (position x, rotation y/z), {} camera keys (target x, rotation y/z), {} light keys (direction x); {} name fields swapped 左⇄右; interpolation untouched",
        bones,
        cameras,
        lights,
        renamed_keys
    ));
    if !scope.is_all() {
        report.note(format!("only {}", scope.describe()));
    }
    Ok((out, report))
}
