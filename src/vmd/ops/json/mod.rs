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

mod document;
mod export;
mod import;

pub use document::{
    BoneCurves, BoneJson, CameraCurves, CameraJson, F32, IkEntryJson, IkJson, LightJson, MorphJson,
    ShadowJson, VmdJson, from_hex, to_hex,
};
pub use export::{ExportOptions, export_document, export_json};
pub use import::{import_document, import_json};

/// The `format` marker of an export.
pub const FORMAT: &str = "vmd-studio-json";
/// Coordinates tag: MMD's own (importable).
pub const COORDS_MMD: &str = "mmd-left-handed";
/// Coordinates tag: converted for right-handed engines (not importable).
pub const COORDS_RH: &str = "right-handed";
