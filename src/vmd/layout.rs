//! Byte layout of a VMD file: header strings, name lengths and record sizes.
//!
//! Only the `vmd` layer reads this module; the app never needs an offset.

/// Every VMD header starts with this prefix.
pub const HEADER_PREFIX: &[u8] = b"Vocaloid Motion Data";
/// Header of current files (version 2): 30 bytes, NUL padded.
pub const HEADER_V2: &[u8] = b"Vocaloid Motion Data 0002";
/// Header of old files (version 1).
pub const HEADER_V1: &[u8] = b"Vocaloid Motion Data file";
/// The header field is always 30 bytes.
pub const HEADER_LEN: usize = 30;
/// Model name length in a v2 file.
pub const MODEL_NAME_LEN_V2: usize = 20;
/// Model name length in a v1 file.
pub const MODEL_NAME_LEN_V1: usize = 10;

/// Bone and morph names: 15 bytes, NUL terminated when shorter.
pub const NAME_LEN: usize = 15;
/// IK bone names inside IK/show keys are 20 bytes.
pub const IK_NAME_LEN: usize = 20;

/// Bone key = name 15 + frame 4 + position 3×4 + rotation 4×4 + interpolation 64.
pub const BONE_KEY_LEN: usize = 15 + 4 + 12 + 16 + 64; // 111
/// Morph key = name 15 + frame 4 + weight 4.
pub const MORPH_KEY_LEN: usize = 15 + 4 + 4; // 23
/// Camera key = frame 4 + distance 4 + target 12 + rotation 12 + interpolation 24 + fov 4 + perspective 1.
pub const CAMERA_KEY_LEN: usize = 4 + 4 + 12 + 12 + 24 + 4 + 1; // 61
/// Light key = frame 4 + colour 12 + direction 12.
pub const LIGHT_KEY_LEN: usize = 4 + 12 + 12; // 28
/// Self-shadow key = frame 4 + mode 1 + distance 4.
pub const SHADOW_KEY_LEN: usize = 4 + 1 + 4; // 9
/// Fixed head of an IK/show key = frame 4 + show 1 + IK count 4.
pub const IK_KEY_HEAD_LEN: usize = 4 + 1 + 4; // 9
/// One IK entry = name 20 + enabled 1.
pub const IK_ENTRY_LEN: usize = IK_NAME_LEN + 1; // 21

// Offsets inside a bone key.
pub const BONE_NAME: usize = 0;
pub const BONE_FRAME: usize = 15;
pub const BONE_POSITION: usize = 19;
pub const BONE_ROTATION: usize = 31;
pub const BONE_INTERPOLATION: usize = 47;
pub const BONE_INTERPOLATION_LEN: usize = 64;

// Offsets inside a morph key.
pub const MORPH_FRAME: usize = 15;
pub const MORPH_WEIGHT: usize = 19;

// Offsets inside a camera key.
pub const CAMERA_FRAME: usize = 0;
pub const CAMERA_DISTANCE: usize = 4;
pub const CAMERA_TARGET: usize = 8;
pub const CAMERA_ROTATION: usize = 20;
pub const CAMERA_INTERPOLATION: usize = 32;
pub const CAMERA_INTERPOLATION_LEN: usize = 24;
pub const CAMERA_FOV: usize = 56;
pub const CAMERA_PERSPECTIVE: usize = 60;

// Offsets inside a light key.
pub const LIGHT_FRAME: usize = 0;
pub const LIGHT_COLOR: usize = 4;
pub const LIGHT_DIRECTION: usize = 16;

// Offsets inside a self-shadow key.
pub const SHADOW_FRAME: usize = 0;
pub const SHADOW_MODE: usize = 4;
pub const SHADOW_DISTANCE: usize = 5;

/// The six sections in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Bone,
    Morph,
    Camera,
    Light,
    SelfShadow,
    Ik,
}

impl Section {
    pub const ALL: [Section; 6] = [
        Section::Bone,
        Section::Morph,
        Section::Camera,
        Section::Light,
        Section::SelfShadow,
        Section::Ik,
    ];

    /// Fixed record size, or the minimum size for the variable IK/show records.
    pub fn record_len(self) -> usize {
        match self {
            Section::Bone => BONE_KEY_LEN,
            Section::Morph => MORPH_KEY_LEN,
            Section::Camera => CAMERA_KEY_LEN,
            Section::Light => LIGHT_KEY_LEN,
            Section::SelfShadow => SHADOW_KEY_LEN,
            Section::Ik => IK_KEY_HEAD_LEN,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Section::Bone => "bone",
            Section::Morph => "morph",
            Section::Camera => "camera",
            Section::Light => "light",
            Section::SelfShadow => "self-shadow",
            Section::Ik => "IK/show",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn record_sizes_match_the_spec_table() {
        assert_eq!(BONE_KEY_LEN, 111);
        assert_eq!(MORPH_KEY_LEN, 23);
        assert_eq!(CAMERA_KEY_LEN, 61);
        assert_eq!(LIGHT_KEY_LEN, 28);
        assert_eq!(SHADOW_KEY_LEN, 9);
        assert_eq!(IK_ENTRY_LEN, 21);
        assert_eq!(BONE_INTERPOLATION + BONE_INTERPOLATION_LEN, BONE_KEY_LEN);
        assert_eq!(CAMERA_PERSPECTIVE + 1, CAMERA_KEY_LEN);
    }
}
