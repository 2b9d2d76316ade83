//! Lossless JSON export and import, and a right-handed export for
//! three.js-style engines.
//!
//! The export holds every field of every key in file order: names as text
//! plus the raw bytes of the whole name field (hex), positions, rotations,
//! curves as control points (0..=127) plus the raw interpolation block
//! (hex), the bone physics flag, the camera cut flag and the evaluated eye
//! per camera key, the header and model-name fields (hex), how many
//! sections the file had, and any trailing bytes.
//!
//! Floats are written as JSON numbers when they read back to the identical
//! bits; otherwise (NaN, infinities, the rare value that would not) as a
//! string `"0x"` + the 8 hex digits of the IEEE bits. Import uses the raw
//! hex fields as the source of truth when present, so import(export(m))
//! writes the identical VMD bytes.
//!
//! `right_handed`: positions (x, y, −z), quaternions (−x, −y, z, w), camera
//! target and eye (x, y, −z), light direction (x, y, −z), and the camera
//! orientation as a quaternion: MMD's orientation Ry(−ry)·Rx(−rx)·Rz(−rz)
//! conjugated by the z-flip, i.e. (−qx, −qy, qz, qw). In that frame the
//! camera looks along its local −Z (three.js convention) and its local +Y
//! is up. The camera's Euler angles are left out (they are MMD-only).
//! Such an export cannot be imported.

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::report::{OpError, Report};
use crate::vmd::bezier::Curve;
use crate::vmd::camera::{camera_orientation, eye_position};
use crate::vmd::evaluate::is_cut;
use crate::vmd::interpolation::{self, BoneChannel, CameraChannel};
use crate::vmd::layout::{self, HEADER_LEN, IK_NAME_LEN, NAME_LEN};
use crate::vmd::motion::{Motion, Version};
use crate::vmd::name::{NameEncoding, decode_name, encode_name};
use crate::vmd::records::*;
use crate::vmd::track::TrackIndex;

/// The `format` marker of an export.
pub const FORMAT: &str = "vmd-studio-json";
/// Coordinates tag: MMD's own (importable).
pub const COORDS_MMD: &str = "mmd-left-handed";
/// Coordinates tag: converted for right-handed engines (not importable).
pub const COORDS_RH: &str = "right-handed";

/// An `f32` that survives JSON bit for bit (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32(pub f32);

fn json_roundtrips(v: f32) -> bool {
    v.is_finite()
        && serde_json::to_string(&v)
            .ok()
            .and_then(|s| serde_json::from_str::<f32>(&s).ok())
            .is_some_and(|b| b.to_bits() == v.to_bits())
}

impl Serialize for F32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if json_roundtrips(self.0) {
            s.serialize_f32(self.0)
        } else {
            s.serialize_str(&format!("0x{:08x}", self.0.to_bits()))
        }
    }
}

impl<'de> Deserialize<'de> for F32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<F32, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = F32;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a \"0x\"-prefixed 8-digit hex bit pattern")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<F32, E> {
                Ok(F32(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<F32, E> {
                Ok(F32(v as f32))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<F32, E> {
                Ok(F32(v as f32))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<F32, E> {
                let bits = v
                    .strip_prefix("0x")
                    .and_then(from_hex)
                    .and_then(|b| <[u8; 4]>::try_from(b.as_slice()).ok())
                    .ok_or_else(|| {
                        E::custom(format!(
                            "bad float \"{v}\": expected a number or \"0x\" and 8 hex digits"
                        ))
                    })?;
                Ok(F32(f32::from_bits(u32::from_be_bytes(bits))))
            }
        }
        d.deserialize_any(V)
    }
}

fn f3(v: [f32; 3]) -> [F32; 3] {
    v.map(F32)
}
fn f4(v: [f32; 4]) -> [F32; 4] {
    v.map(F32)
}
fn un3(v: [F32; 3]) -> [f32; 3] {
    v.map(|x| x.0)
}
fn un4(v: [F32; 4]) -> [f32; 4] {
    v.map(|x| x.0)
}

const SIGN: u32 = 0x8000_0000;
fn neg(v: f32) -> f32 {
    f32::from_bits(v.to_bits() ^ SIGN)
}

/// Lowercase hex of bytes.
pub fn to_hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    s
}

/// Bytes from hex: pairs of hex digits (either case) and nothing else;
/// `None` on odd length or any other character (`+`, `-`, spaces).
pub fn from_hex(s: &str) -> Option<Vec<u8>> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    b.chunks_exact(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// The four curves of a bone key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoneCurves {
    pub x: Curve,
    pub y: Curve,
    pub z: Curve,
    pub rotation: Curve,
}

/// The six curves of a camera key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CameraCurves {
    pub target_x: Curve,
    pub target_y: Curve,
    pub target_z: Curve,
    pub rotation: Curve,
    pub distance: Curve,
    pub fov: Curve,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoneJson {
    pub name: String,
    /// The whole 15-byte name field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_hex: Option<String>,
    pub frame: u32,
    /// MMD units (or converted, see `coordinates`).
    pub position: [F32; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [F32; 4],
    pub curves: BoneCurves,
    /// The whole 64-byte interpolation block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpolation_hex: Option<String>,
    pub physics_off: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MorphJson {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_hex: Option<String>,
    pub frame: u32,
    /// 0..1.
    pub weight: F32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CameraJson {
    pub frame: u32,
    /// Distance from the target (negative = pulled back).
    pub distance: F32,
    pub target: [F32; 3],
    /// Euler x, y, z in radians (MMD convention); absent in a right-handed export.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[F32; 3]>,
    /// Camera orientation quaternion (x, y, z, w): MMD's Ry(−ry)·Rx(−rx)·Rz(−rz),
    /// or its right-handed counterpart. Informational; not read on import.
    pub orientation: [f32; 4],
    /// Eye position evaluated at this key. Informational.
    pub eye: [f32; 3],
    /// This key is exactly one frame after the previous camera key: a cut.
    pub cut: bool,
    pub curves: CameraCurves,
    /// The whole 24-byte interpolation block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpolation_hex: Option<String>,
    /// Degrees.
    pub fov: u32,
    pub perspective: bool,
    /// The stored byte (0 = perspective on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perspective_byte: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LightJson {
    pub frame: u32,
    /// RGB 0..1.
    pub color: [F32; 3],
    pub direction: [F32; 3],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShadowJson {
    pub frame: u32,
    /// 0 off, 1 mode 1, 2 mode 2.
    pub mode: u8,
    pub distance: F32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IkEntryJson {
    pub name: String,
    /// The whole 20-byte name field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_hex: Option<String>,
    pub enabled: bool,
    /// The stored byte (non-zero = on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_byte: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IkJson {
    pub frame: u32,
    pub show: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show_byte: Option<u8>,
    pub entries: Vec<IkEntryJson>,
}

/// A whole VMD as JSON. Arrays are in file order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VmdJson {
    pub format: String,
    pub format_version: u32,
    /// [`COORDS_MMD`] or [`COORDS_RH`].
    pub coordinates: String,
    pub version: u8,
    pub header_text: String,
    /// The 30 header bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_hex: Option<String>,
    pub model_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_name_hex: Option<String>,
    /// Sections (bone, morph, camera, light, self-shadow, IK) that had a count field.
    pub sections_present: usize,
    /// Bytes after the last section.
    #[serde(default)]
    pub trailing_hex: String,
    pub bones: Vec<BoneJson>,
    pub morphs: Vec<MorphJson>,
    pub cameras: Vec<CameraJson>,
    pub lights: Vec<LightJson>,
    pub shadows: Vec<ShadowJson>,
    pub iks: Vec<IkJson>,
}

/// Options of [`export_json`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExportOptions {
    /// Convert to right-handed coordinates (three.js style).
    pub right_handed: bool,
    /// Indented output.
    pub pretty: bool,
}

fn z_flip(v: [f32; 3]) -> [f32; 3] {
    [v[0], v[1], neg(v[2])]
}
fn quat_rh(q: [f32; 4]) -> [f32; 4] {
    [neg(q[0]), neg(q[1]), q[2], q[3]]
}

/// Builds the document (for the GUI and [`export_json`]).
pub fn export_document(m: &Motion, opts: ExportOptions) -> VmdJson {
    let rh = opts.right_handed;
    let idx = TrackIndex::build(m);
    let mut cut = vec![false; m.cameras.len()];
    for w in idx.camera.windows(2) {
        let (a, b) = (&m.cameras[w[0] as usize], &m.cameras[w[1] as usize]);
        if is_cut(a.frame(), b.frame()) {
            cut[w[1] as usize] = true;
        }
    }
    let header_end = m.header.iter().position(|&b| b == 0).unwrap_or(HEADER_LEN);
    VmdJson {
        format: FORMAT.into(),
        format_version: 1,
        coordinates: if rh { COORDS_RH } else { COORDS_MMD }.into(),
        version: m.version.number(),
        header_text: String::from_utf8_lossy(&m.header[..header_end]).into_owned(),
        header_hex: Some(to_hex(&m.header)),
        model_name: m.model_name().text,
        model_name_hex: Some(to_hex(&m.model_name_field)),
        sections_present: m.sections_present,
        trailing_hex: to_hex(&m.trailing),
        bones: m
            .bones
            .iter()
            .map(|k| {
                let c = k.curves();
                let (p, q) = (k.position(), k.rotation());
                BoneJson {
                    name: k.name().text,
                    name_hex: Some(to_hex(k.name_field())),
                    frame: k.frame(),
                    position: f3(if rh { z_flip(p) } else { p }),
                    rotation: f4(if rh { quat_rh(q) } else { q }),
                    curves: BoneCurves {
                        x: c[0],
                        y: c[1],
                        z: c[2],
                        rotation: c[3],
                    },
                    interpolation_hex: Some(to_hex(&k.interpolation_block())),
                    physics_off: k.physics_off(),
                }
            })
            .collect(),
        morphs: m
            .morphs
            .iter()
            .map(|k| MorphJson {
                name: k.name().text,
                name_hex: Some(to_hex(k.name_field())),
                frame: k.frame(),
                weight: F32(k.weight()),
            })
            .collect(),
        cameras: m
            .cameras
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let c = k.curves();
                let (t, r, d) = (k.target(), k.rotation(), k.distance());
                let eye = eye_position(t, r, d);
                let q = camera_orientation(r).to_array();
                CameraJson {
                    frame: k.frame(),
                    distance: F32(d),
                    target: f3(if rh { z_flip(t) } else { t }),
                    rotation: (!rh).then(|| f3(r)),
                    orientation: if rh { quat_rh(q) } else { q },
                    eye: if rh { z_flip(eye) } else { eye },
                    cut: cut[i],
                    curves: CameraCurves {
                        target_x: c[0],
                        target_y: c[1],
                        target_z: c[2],
                        rotation: c[3],
                        distance: c[4],
                        fov: c[5],
                    },
                    interpolation_hex: Some(to_hex(&k.interpolation_block())),
                    fov: k.fov(),
                    perspective: k.perspective(),
                    perspective_byte: Some(k.perspective_byte()),
                }
            })
            .collect(),
        lights: m
            .lights
            .iter()
            .map(|k| LightJson {
                frame: k.frame(),
                color: f3(k.color()),
                direction: f3(if rh {
                    z_flip(k.direction())
                } else {
                    k.direction()
                }),
            })
            .collect(),
        shadows: m
            .shadows
            .iter()
            .map(|k| ShadowJson {
                frame: k.frame(),
                mode: k.mode(),
                distance: F32(k.distance()),
            })
            .collect(),
        iks: m
            .iks
            .iter()
            .map(|k| IkJson {
                frame: k.frame(),
                show: k.show(),
                show_byte: Some(k.raw[4]),
                entries: (0..k.entry_count())
                    .map(|i| IkEntryJson {
                        name: k.entry_name(i).text,
                        name_hex: Some(to_hex(k.entry_name_field(i))),
                        enabled: k.entry_enabled(i),
                        enabled_byte: Some(
                            k.raw[layout::IK_KEY_HEAD_LEN + i * layout::IK_ENTRY_LEN + IK_NAME_LEN],
                        ),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Exports as JSON text; see the module docs.
pub fn export_json(m: &Motion, opts: ExportOptions) -> Result<(String, Report), OpError> {
    let doc = export_document(m, opts);
    let text = if opts.pretty {
        serde_json::to_string_pretty(&doc)
    } else {
        serde_json::to_string(&doc)
    }
    .map_err(|e| OpError::BadInput(format!("JSON export failed: {e}")))?;
    let mut r = Report::new();
    r.note(format!(
        "exported {} bone, {} morph, {} camera, {} light, {} self-shadow and {} IK/show keys",
        m.bones.len(),
        m.morphs.len(),
        m.cameras.len(),
        m.lights.len(),
        m.shadows.len(),
        m.iks.len()
    ));
    if opts.right_handed {
        r.note("right-handed: positions and eye/target (x, y, −z), quaternions (−x, −y, z, w), camera orientation from Ry(−ry)·Rx(−rx)·Rz(−rz) conjugated by the z-flip (looks along local −Z); this file cannot be imported back");
    } else {
        r.note("MMD coordinates with raw bytes: import-json gives back the identical VMD");
    }
    Ok((text, r))
}

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
