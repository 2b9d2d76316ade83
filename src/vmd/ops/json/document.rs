//! The JSON document: one struct per key type, floats that keep their
//! bits ([`F32`]) and hex for raw bytes.

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::vmd::bezier::Curve;

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

pub(super) fn f3(v: [f32; 3]) -> [F32; 3] {
    v.map(F32)
}
pub(super) fn f4(v: [f32; 4]) -> [F32; 4] {
    v.map(F32)
}
pub(super) fn un3(v: [F32; 3]) -> [f32; 3] {
    v.map(|x| x.0)
}
pub(super) fn un4(v: [F32; 4]) -> [f32; 4] {
    v.map(|x| x.0)
}

const SIGN: u32 = 0x8000_0000;
pub(super) fn neg(v: f32) -> f32 {
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
    /// [`COORDS_MMD`](super::COORDS_MMD) or [`COORDS_RH`](super::COORDS_RH).
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
