//! JSON → VMD: the raw bytes are the source of truth where present, and
//! the built motion must read back as itself.

use super::document::{BoneJson, CameraJson, IkJson, MorphJson, VmdJson, from_hex, un3, un4};
use super::{COORDS_MMD, COORDS_RH, FORMAT};
use crate::vmd::interpolation::{self, BoneChannel, CameraChannel};
use crate::vmd::layout::{self, HEADER_LEN, IK_NAME_LEN, NAME_LEN};
use crate::vmd::motion::{Motion, Version};
use crate::vmd::name::{NameEncoding, decode_name, encode_name};
use crate::vmd::ops::report::{OpError, Report};
use crate::vmd::records::*;

fn hex_field<const N: usize>(hex: Option<&String>, what: &str) -> Result<Option<[u8; N]>, OpError> {
    let Some(h) = hex else { return Ok(None) };
    let bytes =
        from_hex(h).ok_or_else(|| OpError::BadInput(format!("{what}: \"{h}\" is not hex")))?;
    <[u8; N]>::try_from(bytes.as_slice())
        .map(Some)
        .map_err(|_| {
            OpError::BadInput(format!(
                "{what}: {} bytes of hex, expected {N}",
                bytes.len()
            ))
        })
}

fn name_field<const N: usize>(
    text: &str,
    hex: Option<&String>,
    enc: NameEncoding,
    what: &str,
) -> Result<[u8; N], OpError> {
    if let Some(f) = hex_field::<N>(hex, what)? {
        if decode_name(&f).text != text {
            return Err(OpError::BadInput(format!(
                "{what}: name \"{text}\" disagrees with name_hex (\"{}\"); to rename, remove name_hex",
                decode_name(&f).text
            )));
        }
        return Ok(f);
    }
    let v = encode_name(text, N, enc).map_err(|e| OpError::BadInput(format!("{what}: {e}")))?;
    <[u8; N]>::try_from(v.as_slice())
        .map_err(|_| OpError::BadInput(format!("{what}: bad name length")))
}

/// Builds a VMD from an MMD-coordinates export; refuses right-handed exports.
pub fn import_json(text: &str) -> Result<(Motion, Report), OpError> {
    let doc: VmdJson = serde_json::from_str(text)
        .map_err(|e| OpError::BadInput(format!("not a VMD Studio JSON export: {e}")))?;
    import_document(&doc)
}

/// Builds a VMD from a document; see [`import_json`].
pub fn import_document(doc: &VmdJson) -> Result<(Motion, Report), OpError> {
    check_document_kind(doc)?;
    let mut r = Report::new();
    let mut m = Motion::new_v2();
    let version = document_version(doc.version)?;
    m.version = version;
    m.header = import_header(doc, version)?;
    // The file's name encoding, for names given as text only.
    let enc = NameEncoding::ShiftJis;
    m.model_name_field = import_model_name_field(doc, version, enc)?;
    check_sections(doc)?;
    m.sections_present = doc.sections_present;
    m.trailing = import_trailing(doc)?;

    let mut built_from_fields = 0usize;
    for (i, b) in doc.bones.iter().enumerate() {
        let (k, built) = import_bone(b, i, enc)?;
        built_from_fields += usize::from(built);
        m.bones.push(k);
    }
    for (i, j) in doc.morphs.iter().enumerate() {
        m.morphs.push(import_morph(j, i, enc)?);
    }
    for (i, j) in doc.cameras.iter().enumerate() {
        let (k, built) = import_camera(j, i)?;
        built_from_fields += usize::from(built);
        m.cameras.push(k);
    }
    for j in &doc.lights {
        m.lights
            .push(LightKey::new(j.frame, un3(j.color), un3(j.direction)));
    }
    for j in &doc.shadows {
        m.shadows
            .push(ShadowKey::new(j.frame, j.mode, j.distance.0));
    }
    for (i, j) in doc.iks.iter().enumerate() {
        m.iks.push(import_ik(j, i, enc)?);
    }
    if built_from_fields > 0 {
        r.note(format!(
            "{built_from_fields} keys had no raw interpolation block; built from their curves"
        ));
    }
    r.added = m.bones.len()
        + m.morphs.len()
        + m.cameras.len()
        + m.lights.len()
        + m.shadows.len()
        + m.iks.len();
    if decode_model_name_text(&m) != doc.model_name {
        r.warn(format!(
            "model_name \"{}\" differs from its raw bytes (\"{}\"); the raw bytes were used",
            doc.model_name,
            decode_model_name_text(&m)
        ));
    }
    read_back(&m)?;
    r.note(format!("imported {} keys", r.added));
    Ok((m, r))
}

/// Refuses documents that are not a VMD Studio export in MMD coordinates,
/// format version 1.
fn check_document_kind(doc: &VmdJson) -> Result<(), OpError> {
    if doc.format != FORMAT {
        return Err(OpError::BadInput(format!(
            "not a VMD Studio JSON export (format is \"{}\", expected \"{FORMAT}\")",
            doc.format
        )));
    }
    if doc.coordinates == COORDS_RH {
        return Err(OpError::BadInput(
            "this JSON was exported with --right-handed (converted coordinates, camera angles left out); only an export in MMD coordinates can be imported".into(),
        ));
    }
    if doc.coordinates != COORDS_MMD {
        return Err(OpError::BadInput(format!(
            "unknown coordinates \"{}\"",
            doc.coordinates
        )));
    }
    if doc.format_version != 1 {
        return Err(OpError::BadInput(format!(
            "format_version is {}, this build reads version 1",
            doc.format_version
        )));
    }
    Ok(())
}

/// The VMD version a document's `version` names.
fn document_version(v: u8) -> Result<Version, OpError> {
    match v {
        1 => Ok(Version::V1),
        2 => Ok(Version::V2),
        v => Err(OpError::BadInput(format!(
            "version is {v}, a VMD file is version 1 or 2"
        ))),
    }
}

/// The 30 header bytes: `header_hex` when given (it must start with the
/// version's signature), else the signature padded with zeros; either way
/// `header_text` must agree with them.
fn import_header(doc: &VmdJson, version: Version) -> Result<[u8; HEADER_LEN], OpError> {
    let signature = if version == Version::V1 {
        layout::HEADER_V1
    } else {
        layout::HEADER_V2
    };
    let header = match hex_field::<HEADER_LEN>(doc.header_hex.as_ref(), "header_hex")? {
        Some(h) => {
            if !h.starts_with(signature) {
                return Err(OpError::BadInput(format!(
                    "header_hex does not start with \"{}\", the header of a version {} file (version says {})",
                    String::from_utf8_lossy(signature),
                    version.number(),
                    version.number()
                )));
            }
            h
        }
        None => {
            let mut h = [0u8; HEADER_LEN];
            h[..signature.len()].copy_from_slice(signature);
            h
        }
    };
    let header_end = header.iter().position(|&b| b == 0).unwrap_or(HEADER_LEN);
    let header_text = String::from_utf8_lossy(&header[..header_end]);
    if doc.header_text != header_text {
        return Err(OpError::BadInput(format!(
            "header_text \"{}\" disagrees with the header bytes (\"{header_text}\")",
            doc.header_text
        )));
    }
    Ok(header)
}

/// The model name field: `model_name_hex` when given (its length must fit
/// the version), else `model_name` encoded.
fn import_model_name_field(
    doc: &VmdJson,
    version: Version,
    enc: NameEncoding,
) -> Result<Vec<u8>, OpError> {
    match &doc.model_name_hex {
        Some(h) => {
            let b =
                from_hex(h).ok_or_else(|| OpError::BadInput("model_name_hex is not hex".into()))?;
            if b.len() != version.model_name_len() {
                return Err(OpError::BadInput(format!(
                    "model_name_hex has {} bytes, a v{} file needs {}",
                    b.len(),
                    version.number(),
                    version.model_name_len()
                )));
            }
            Ok(b)
        }
        None => encode_name(&doc.model_name, version.model_name_len(), enc)
            .map_err(|e| OpError::BadInput(format!("model name: {e}"))),
    }
}

/// The bytes after the last section; refused when a reader would take them
/// for another section's count.
fn import_trailing(doc: &VmdJson) -> Result<Vec<u8>, OpError> {
    let trailing = from_hex(&doc.trailing_hex)
        .ok_or_else(|| OpError::BadInput("trailing_hex is not hex".into()))?;
    if doc.sections_present < 6 && trailing.len() >= 4 {
        return Err(OpError::BadInput(format!(
            "trailing_hex has {} bytes after {} sections: a reader takes its first 4 bytes as the next section's count (only a file with all 6 sections, or fewer than 4 trailing bytes, keeps them as trailing data)",
            trailing.len(),
            doc.sections_present
        )));
    }
    Ok(trailing)
}

/// Bone key `i`; the flag says its interpolation block was built from its
/// curves (no `interpolation_hex`).
fn import_bone(b: &BoneJson, i: usize, enc: NameEncoding) -> Result<(BoneKey, bool), OpError> {
    let what = format!("bone key #{i}");
    let mut k = BoneKey {
        raw: [0; layout::BONE_KEY_LEN],
    };
    let f: [u8; NAME_LEN] = name_field(&b.name, b.name_hex.as_ref(), enc, &what)?;
    k.set_name_field(&f);
    k.set_frame(b.frame);
    k.set_position(un3(b.position));
    k.set_rotation(un4(b.rotation));
    let c = [b.curves.x, b.curves.y, b.curves.z, b.curves.rotation];
    let built = match hex_field::<64>(b.interpolation_hex.as_ref(), &what)? {
        Some(block) => {
            k.set_interpolation_block(block);
            if k.curves() != c {
                return Err(disagrees(&what, "curves", "interpolation_hex"));
            }
            if k.physics_off() != b.physics_off {
                return Err(disagrees(&what, "physics_off", "interpolation_hex"));
            }
            false
        }
        None => {
            k.set_interpolation_block(interpolation::DEFAULT_BONE_BLOCK);
            for ch in BoneChannel::ALL {
                k.set_curve(ch, c[ch.index()]);
            }
            k.set_physics_off(b.physics_off);
            true
        }
    };
    Ok((k, built))
}

/// Morph key `i`.
fn import_morph(j: &MorphJson, i: usize, enc: NameEncoding) -> Result<MorphKey, OpError> {
    let what = format!("morph key #{i}");
    let mut k = MorphKey {
        raw: [0; layout::MORPH_KEY_LEN],
    };
    let f: [u8; NAME_LEN] = name_field(&j.name, j.name_hex.as_ref(), enc, &what)?;
    k.set_name_field(&f);
    k.set_frame(j.frame);
    k.set_weight(j.weight.0);
    Ok(k)
}

/// Camera key `i`; the flag says its interpolation block was built from its
/// curves (no `interpolation_hex`).
fn import_camera(j: &CameraJson, i: usize) -> Result<(CameraKey, bool), OpError> {
    let what = format!("camera key #{i}");
    let rotation = j
        .rotation
        .ok_or_else(|| OpError::BadInput(format!("{what}: no rotation (Euler angles)")))?;
    let mut k = CameraKey {
        raw: [0; layout::CAMERA_KEY_LEN],
    };
    k.set_frame(j.frame);
    k.set_distance(j.distance.0);
    k.set_target(un3(j.target));
    k.set_rotation(un3(rotation));
    let c = &j.curves;
    let cs = [
        c.target_x, c.target_y, c.target_z, c.rotation, c.distance, c.fov,
    ];
    let built = match hex_field::<24>(j.interpolation_hex.as_ref(), &what)? {
        Some(block) => {
            k.set_interpolation_block(block);
            if k.curves() != cs {
                return Err(disagrees(&what, "curves", "interpolation_hex"));
            }
            false
        }
        None => {
            for ch in CameraChannel::ALL {
                k.set_curve(ch, cs[ch.index()]);
            }
            true
        }
    };
    k.set_fov(j.fov);
    match j.perspective_byte {
        Some(b) => {
            k.raw[layout::CAMERA_PERSPECTIVE] = b;
            if k.perspective() != j.perspective {
                return Err(disagrees(&what, "perspective", "perspective_byte"));
            }
        }
        None => k.set_perspective(j.perspective),
    }
    Ok((k, built))
}

/// IK/show key `i` with its entries.
fn import_ik(j: &IkJson, i: usize, enc: NameEncoding) -> Result<IkKey, OpError> {
    let what = format!("IK/show key #{i}");
    let mut k = IkKey::new(j.frame, j.show);
    if let Some(b) = j.show_byte {
        k.raw[4] = b;
        if k.show() != j.show {
            return Err(disagrees(&what, "show", "show_byte"));
        }
    }
    let n = u32::try_from(j.entries.len())
        .map_err(|_| OpError::BadInput(format!("{what}: too many entries")))?;
    for (e_i, e) in j.entries.iter().enumerate() {
        let f: [u8; IK_NAME_LEN] = name_field(
            &e.name,
            e.name_hex.as_ref(),
            enc,
            &format!("{what} entry {e_i}"),
        )?;
        k.raw.extend_from_slice(&f);
        let byte = e.enabled_byte.unwrap_or(u8::from(e.enabled));
        if (byte != 0) != e.enabled {
            return Err(disagrees(
                &format!("{what} entry {e_i}"),
                "enabled",
                "enabled_byte",
            ));
        }
        k.raw.push(byte);
    }
    k.raw[5..9].copy_from_slice(&n.to_le_bytes());
    Ok(k)
}

fn disagrees(what: &str, field: &str, raw: &str) -> OpError {
    OpError::BadInput(format!(
        "{what}: {field} disagrees with {raw}; to change {field}, remove {raw}"
    ))
}

fn decode_model_name_text(m: &Motion) -> String {
    m.model_name().text
}

/// Sections listed after `sections_present` must be empty: the writer would
/// otherwise add their counts, and the file would read back with more
/// sections than the JSON says.
fn check_sections(doc: &VmdJson) -> Result<(), OpError> {
    let n = doc.sections_present;
    if n > 6 {
        return Err(OpError::BadInput(format!(
            "sections_present is {n}, at most 6"
        )));
    }
    let counts = [
        ("bones", doc.bones.len()),
        ("morphs", doc.morphs.len()),
        ("cameras", doc.cameras.len()),
        ("lights", doc.lights.len()),
        ("shadows", doc.shadows.len()),
        ("iks", doc.iks.len()),
    ];
    for (i, (field, count)) in counts.iter().enumerate().skip(n) {
        if *count > 0 {
            return Err(OpError::BadInput(format!(
                "sections_present is {n} but {field} (section {}) has {count} keys",
                i + 1
            )));
        }
    }
    Ok(())
}

/// Writes the built motion and reads it back: the file must give back
/// exactly this motion (same sections, keys and trailing bytes).
fn read_back(m: &Motion) -> Result<(), OpError> {
    let bytes = crate::vmd::write(m)
        .map_err(|e| OpError::BadInput(format!("the built VMD cannot be written: {e}")))?;
    let back = crate::vmd::read(&bytes)
        .map_err(|e| OpError::BadInput(format!("the built VMD does not read back: {e}")))?;
    if back != *m {
        let what = if back.sections_present != m.sections_present {
            format!(
                "sections_present: {} read back as {}",
                m.sections_present, back.sections_present
            )
        } else if back.trailing != m.trailing {
            "trailing_hex reads back differently".to_owned()
        } else if back.header != m.header || back.version != m.version {
            "header_hex and version read back differently".to_owned()
        } else {
            "the keys read back differently".to_owned()
        };
        return Err(OpError::BadInput(format!(
            "the built VMD reads back differently ({what})"
        )));
    }
    Ok(())
}
