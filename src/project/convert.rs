//! A project's keys → VMD motions our writer saves: each model's bone,
//! morph and model ("表示・IK") keys become one motion; the camera, light
//! and self-shadow keys become one camera/light motion. Keys are taken in
//! the order [`super::links`] follows them (per track, frames rising).
//!
//! Curves: a PMM bone key holds four curves `x1 y1 x2 y2` (X, Y, Z,
//! rotation); the VMD block is the logical order P = `X_x1 Y_x1 Z_x1
//! R_x1, X_y1 …, X_x2 …, X_y2 …` in four rows, row k being P shifted left
//! by k with zeros at its end, and row 0 bytes 2–3 holding the physics
//! flag (`00 00` on, `63 0F` off) — the block MMD writes on VMD export
//! (`/work/shared/spec/vmd-format.md`). A PMM camera key holds six curves
//! `x1 y1 x2 y2` (target X, Y, Z, rotation, distance, field of view;
//! MikuMikuMethods `PmmFileReader.ReadCameraFrame`), a VMD camera block
//! the same six as `x1 x2 y1 y2` (MikuMikuMethods
//! `InterpolationCurve.CreateCameraBytes`, our spec).
//!
//! Names: PMM names are Shift_JIS bytes; a VMD field takes the first 15
//! (bones, morphs), 20 (IK entries, model name) bytes as MMD cuts them —
//! a longer name is cut at the byte limit, even inside a character.

use super::document::*;
use super::error::{Warning, WarningKind};
use super::links::{self, KeyAt, Lists};
use crate::vmd::interpolation::PHYSICS_OFF;
use crate::vmd::layout::BONE_KEY_LEN;
use crate::vmd::records::{BoneKey, CameraKey, IkKey, LightKey, MorphKey, ShadowKey};
use crate::vmd::{self, Motion};

/// The model name MMD writes into a camera/light VMD.
pub const CAMERA_MODEL_NAME: &str = "カメラ・照明";

/// `bytes` cut to an `N`-byte field as MMD writes it: the first `N`
/// bytes, NUL-padded when shorter.
pub fn name_field<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut f = [0u8; N];
    let n = bytes.len().min(N);
    f[..n].copy_from_slice(&bytes[..n]);
    f
}

/// The 64-byte VMD block of a PMM bone key's 16 curve bytes.
pub fn bone_block(curves: &[u8; 16], physics_off: bool) -> [u8; 64] {
    // P[c + 4m] = curve m (x1, y1, x2, y2) of channel c.
    let mut p = [0u8; 16];
    for c in 0..4 {
        for m in 0..4 {
            p[c + 4 * m] = curves[4 * c + m];
        }
    }
    let mut b = [0u8; 64];
    for k in 0..4 {
        // Row k holds P[k..16] from its start; its last k bytes stay 0.
        b[16 * k..16 * k + 16 - k].copy_from_slice(&p[k..]);
    }
    b[2..4].copy_from_slice(if physics_off { &PHYSICS_OFF } else { &[0, 0] });
    b
}

/// The 24-byte VMD camera block of a PMM camera key's curves.
pub fn camera_block(curves: &[u8; 24]) -> [u8; 24] {
    let mut b = [0u8; 24];
    for c in 0..6 {
        let [x1, y1, x2, y2] = [0, 1, 2, 3].map(|m| curves[4 * c + m]);
        b[4 * c..4 * c + 4].copy_from_slice(&[x1, x2, y1, y2]);
    }
    b
}

/// Replaces non-finite numbers by 0; true when any was replaced.
pub(super) fn finite<const N: usize>(v: &mut [f32; N]) -> bool {
    let mut bad = false;
    for x in v.iter_mut() {
        if !x.is_finite() {
            *x = 0.0;
            bad = true;
        }
    }
    bad
}

/// A key's frame as a VMD frame, or a warning when negative.
pub(super) fn vmd_frame<T>(
    r: &Record<T>,
    track: &dyn Fn() -> String,
    w: &mut Vec<Warning>,
) -> Option<u32> {
    u32::try_from(r.frame).ok().or_else(|| {
        w.push(Warning {
            offset: r.offset,
            kind: WarningKind::NegativeFrame {
                track: track(),
                frame: r.frame,
            },
        });
        None
    })
}

pub(super) fn non_finite<T>(r: &Record<T>, track: &dyn Fn() -> String) -> Warning {
    Warning {
        offset: r.offset,
        kind: WarningKind::NonFinite {
            track: track(),
            frame: r.frame,
        },
    }
}

/// What a pool held that the motion does not: records no list reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Unreached {
    pub bone: usize,
    pub morph: usize,
    pub model: usize,
    pub camera: usize,
    pub light: usize,
    pub self_shadow: usize,
}

/// A model's motion and what building it found.
#[derive(Debug, Clone)]
pub struct ModelMotion {
    pub motion: Motion,
    pub unreached: Unreached,
    /// Model keys that set an outside parent (VMD has no place for it).
    pub outside_parent_keys: usize,
    pub warnings: Vec<Warning>,
}

/// The ordered bone, morph and model-key lists of a model.
pub fn model_lists(m: &PmmModel, model: usize) -> [Lists; 3] {
    let bone = |i: usize| {
        let n = m.bone_names.get(i).map_or("?", |t| t.text.as_str());
        format!("model {model} bone {n}")
    };
    let morph = |i: usize| {
        let n = m.morph_names.get(i).map_or("?", |t| t.text.as_str());
        format!("model {model} morph {n}")
    };
    [
        links::follow(&m.bones, bone),
        links::follow(&m.morphs, morph),
        links::follow(&m.model_keys, |_| format!("model {model} display/IK")),
    ]
}

/// Model `model` of the project as a VMD motion (v2 header, the model's
/// name in the 20-byte field).
pub fn model_motion(m: &PmmModel, model: usize) -> ModelMotion {
    let [bl, ml, kl] = model_lists(m, model);
    let mut w = Vec::new();
    w.extend(bl.warnings.iter().cloned());
    w.extend(ml.warnings.iter().cloned());
    w.extend(kl.warnings.iter().cloned());
    let mut out = Motion::new_v2();
    out.model_name_field = name_field::<20>(m.name.bytes()).to_vec();
    out.bones.reserve_exact(bl.key_count());
    for (i, list) in bl.lists.iter().enumerate() {
        let Some(name) = m.bone_names.get(i) else {
            continue;
        };
        let field = name_field::<15>(name.bytes());
        let track = || format!("model {model} bone {}", name.text);
        for &at in list {
            let Some(r) = m.bones.get(at) else { continue };
            let Some(frame) = vmd_frame(r, &track, &mut w) else {
                continue;
            };
            let mut k = r.value;
            let mut bad = finite(&mut k.position);
            if k.rotation.iter().any(|x| !x.is_finite()) {
                k.rotation = [0.0, 0.0, 0.0, 1.0];
                bad = true;
            }
            if bad {
                w.push(non_finite(r, &track));
            }
            let mut key = BoneKey {
                raw: [0; BONE_KEY_LEN],
            };
            key.set_name_field(&field);
            key.set_frame(frame);
            key.set_position(k.position);
            key.set_rotation(k.rotation);
            key.set_interpolation_block(bone_block(&k.curves, k.physics_off));
            out.bones.push(key);
        }
    }
    out.morphs.reserve_exact(ml.key_count());
    for (i, list) in ml.lists.iter().enumerate() {
        let Some(name) = m.morph_names.get(i) else {
            continue;
        };
        let field = name_field::<15>(name.bytes());
        let track = || format!("model {model} morph {}", name.text);
        for &at in list {
            let Some(r) = m.morphs.get(at) else { continue };
            let Some(frame) = vmd_frame(r, &track, &mut w) else {
                continue;
            };
            let mut weight = [r.value.weight];
            if finite(&mut weight) {
                w.push(non_finite(r, &track));
            }
            let mut key = MorphKey { raw: [0; 23] };
            key.set_name_field(&field);
            key.set_frame(frame);
            key.set_weight(weight[0]);
            out.morphs.push(key);
        }
    }
    let (iks, outside_parent_keys) = model_keys(m, model, &kl, &mut w);
    out.iks = iks;
    ModelMotion {
        motion: out,
        unreached: Unreached {
            bone: bl.unreached,
            morph: ml.unreached,
            model: kl.unreached,
            ..Unreached::default()
        },
        outside_parent_keys,
        warnings: w,
    }
}

/// The model ("表示・IK") keys as VMD IK/show keys, and how many set an
/// outside parent.
fn model_keys(m: &PmmModel, model: usize, kl: &Lists, w: &mut Vec<Warning>) -> (Vec<IkKey>, usize) {
    let ik_names: Vec<Option<[u8; 20]>> = m
        .ik_bones
        .iter()
        .map(|&b| {
            let name = usize::try_from(b).ok().and_then(|b| m.bone_names.get(b));
            name.map(|n| name_field::<20>(n.bytes()))
        })
        .collect();
    for (k, n) in ik_names.iter().enumerate() {
        if n.is_none() {
            w.push(Warning {
                offset: m.offset,
                kind: WarningKind::BoneIndexOutOfRange {
                    track: format!("model {model} IK bone {k}"),
                    index: m.ik_bones[k],
                },
            });
        }
    }
    let mut outside_parent_keys = 0;
    let mut out = Vec::new();
    let track = || format!("model {model} display/IK");
    for &at in kl.lists.iter().flatten() {
        let Some(r) = m.model_keys.get(at) else {
            continue;
        };
        let Some(frame) = vmd_frame(r, &track, w) else {
            continue;
        };
        if r.value.outside_parents.iter().any(|&(mi, _)| mi >= 0) {
            outside_parent_keys += 1;
        }
        out.push(ik_key(frame, &r.value, &ik_names));
    }
    (out, outside_parent_keys)
}

/// A VMD IK/show key: frame, shown, then per IK bone its 20-byte name and
/// on/off (VMD `IkKey` layout: 9 + 21 × n bytes).
fn ik_key(frame: u32, k: &PmmModelKey, names: &[Option<[u8; 20]>]) -> IkKey {
    let entries: Vec<([u8; 20], bool)> = names
        .iter()
        .zip(&k.ik_enabled)
        .filter_map(|(n, &on)| n.map(|n| (n, on)))
        .collect();
    let mut raw = Vec::with_capacity(9 + 21 * entries.len());
    raw.extend_from_slice(&frame.to_le_bytes());
    raw.push(u8::from(k.visible));
    raw.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (n, on) in entries {
        raw.extend_from_slice(&n);
        raw.push(u8::from(on));
    }
    IkKey { raw }
}

/// The camera/light motion and what building it found.
#[derive(Debug, Clone)]
pub struct CameraMotion {
    pub motion: Motion,
    pub unreached: Unreached,
    /// Camera keys that follow a model's bone (VMD has no place for it).
    pub follow_keys: usize,
    pub warnings: Vec<Warning>,
}

/// The camera, light and self-shadow keys as one VMD motion named
/// [`CAMERA_MODEL_NAME`].
pub fn camera_motion(p: &Project) -> CameraMotion {
    let mut out = Motion::new_v2();
    let name = encoding_rs::SHIFT_JIS.encode(CAMERA_MODEL_NAME).0;
    out.model_name_field = name_field::<20>(&name).to_vec();
    let mut w = Vec::new();
    let mut unreached = Unreached::default();
    let mut follow_keys = 0;
    if let Some(cam) = &p.camera {
        let l = links::follow(&cam.keys, |_| "camera".to_owned());
        unreached.camera = l.unreached;
        w.extend(l.warnings.iter().cloned());
        let track = || "camera".to_owned();
        for &at in l.lists.iter().flatten() {
            let Some(r) = cam.keys.get(at) else { continue };
            let Some(frame) = vmd_frame(r, &track, &mut w) else {
                continue;
            };
            let mut k = r.value;
            let mut d = [k.distance];
            let bad = finite(&mut d) | finite(&mut k.target) | finite(&mut k.angles);
            if bad {
                w.push(non_finite(r, &track));
            }
            if k.follow.is_some_and(|(mi, _)| mi >= 0) {
                follow_keys += 1;
            }
            let fov = u32::try_from(k.fov).unwrap_or(0);
            let mut key = CameraKey::new(frame, d[0], k.target, k.angles, fov, k.perspective);
            key.set_interpolation_block(camera_block(&k.curves));
            out.cameras.push(key);
        }
    }
    if let Some(light) = &p.light {
        let l = links::follow(&light.keys, |_| "light".to_owned());
        unreached.light = l.unreached;
        w.extend(l.warnings.iter().cloned());
        let track = || "light".to_owned();
        for &at in l.lists.iter().flatten() {
            let Some(r) = light.keys.get(at) else {
                continue;
            };
            let Some(frame) = vmd_frame(r, &track, &mut w) else {
                continue;
            };
            let mut k = r.value;
            if finite(&mut k.color) | finite(&mut k.direction) {
                w.push(non_finite(r, &track));
            }
            out.lights.push(LightKey::new(frame, k.color, k.direction));
        }
    }
    if let Some(s) = &p.self_shadow {
        let l = links::follow(&s.keys, |_| "self-shadow".to_owned());
        unreached.self_shadow = l.unreached;
        w.extend(l.warnings.iter().cloned());
        let track = || "self-shadow".to_owned();
        for &at in l.lists.iter().flatten() {
            let Some(r) = s.keys.get(at) else { continue };
            let Some(frame) = vmd_frame(r, &track, &mut w) else {
                continue;
            };
            let mut d = [r.value.distance];
            if finite(&mut d) {
                w.push(non_finite(r, &track));
            }
            out.shadows.push(ShadowKey::new(frame, r.value.mode, d[0]));
        }
    }
    CameraMotion {
        motion: out,
        unreached,
        follow_keys,
        warnings: w,
    }
}

/// A motion's bytes as our VMD writer gives them (an error only for more
/// than `u32::MAX` keys in a section).
pub fn vmd_bytes(m: &Motion) -> Result<Vec<u8>, vmd::WriteError> {
    vmd::write(m)
}

/// An ordered key list's records (for callers that want PMM values, e.g.
/// accessory and gravity keys, which VMD cannot hold).
pub fn records<'a, T>(
    keys: &'a KeyPool<T>,
    list: &'a [KeyAt],
) -> impl Iterator<Item = &'a Record<T>> {
    list.iter().filter_map(|&at| keys.get(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bone_block_is_laid_out_as_mmd_exports_it() {
        // Curves X (1,2,3,4), Y (5,6,7,8), Z (9,10,11,12), R (13,14,15,16).
        let curves: [u8; 16] = std::array::from_fn(|i| i as u8 + 1);
        let b = bone_block(&curves, false);
        // Row 0 = P: X_x1 Y_x1 Z_x1 R_x1 | X_y1 … | X_x2 … | X_y2 …, with
        // bytes 2–3 the physics flag (00 00: on).
        let row0 = [1, 5, 0, 0, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16];
        assert_eq!(b[..16], row0);
        // Row 1 = P shifted by one (P[1..16]) then 0.
        let p = [1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16];
        assert_eq!(b[16..31], p[1..]);
        assert_eq!(b[31], 0);
        assert_eq!(b[32..46], p[2..]);
        assert_eq!(b[46..48], [0, 0]);
        assert_eq!(b[48..61], p[3..]);
        assert_eq!(b[61..64], [0, 0, 0]);
        // Our VMD reader gives back every curve, and physics on.
        let curves_back = vmd::interpolation::bone_curves(&b);
        for (c, got) in curves_back.iter().enumerate() {
            let want = &curves[4 * c..4 * c + 4];
            assert_eq!([got.x1, got.y1, got.x2, got.y2], want, "channel {c}");
        }
        assert!(!vmd::interpolation::physics_off(&b));
        assert!(vmd::interpolation::physics_off(&bone_block(&curves, true)));
    }

    #[test]
    fn mmds_default_curves_give_mmds_default_block() {
        let curves = [20, 20, 107, 107].repeat(4);
        let curves: [u8; 16] = curves.try_into().unwrap();
        assert_eq!(
            bone_block(&curves, false),
            vmd::interpolation::DEFAULT_BONE_BLOCK
        );
    }

    #[test]
    fn camera_curves_go_from_x1_y1_x2_y2_to_x1_x2_y1_y2() {
        let curves: [u8; 24] = std::array::from_fn(|i| i as u8);
        let b = camera_block(&curves);
        assert_eq!(b[..8], [0, 2, 1, 3, 4, 6, 5, 7]);
        let fov = vmd::interpolation::camera_curve(&b, vmd::CameraChannel::Fov);
        assert_eq!([fov.x1, fov.y1, fov.x2, fov.y2], [20, 21, 22, 23]);
    }

    #[test]
    fn names_are_cut_at_the_byte_limit_like_mmd() {
        // 8 two-byte characters = 16 bytes: the 15-byte field ends inside the 8th.
        let name = encoding_rs::SHIFT_JIS.encode("あいうえおかきく").0;
        let f = name_field::<15>(&name);
        assert_eq!(f[..], name[..15]);
        assert_eq!(name_field::<20>(b"abc")[..4], *b"abc\0");
    }
}
