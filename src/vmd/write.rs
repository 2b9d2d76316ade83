//! [`Motion`] → bytes, the exact inverse of [`super::read::read`]; saving
//! goes through [`save`](mod@super::save).

use std::path::Path;

use super::error::WriteError;
use super::layout::Section;
use super::motion::Motion;

fn count_u32(what: &'static str, n: usize) -> Result<[u8; 4], WriteError> {
    u32::try_from(n)
        .map(u32::to_le_bytes)
        .map_err(|_| WriteError::TooManyRecords { what, count: n })
}

/// Serializes a motion. Unedited motions give back the bytes they were read from.
pub fn write(m: &Motion) -> Result<Vec<u8>, WriteError> {
    let mut out = Vec::with_capacity(m.byte_len());
    out.extend_from_slice(&m.header);
    out.extend_from_slice(&m.model_name_field);
    for s in Section::ALL.iter().take(m.sections_to_write()) {
        out.extend_from_slice(&count_u32(s.label(), m.count(*s))?);
        match s {
            Section::Bone => m.bones.iter().for_each(|k| out.extend_from_slice(&k.raw)),
            Section::Morph => m.morphs.iter().for_each(|k| out.extend_from_slice(&k.raw)),
            Section::Camera => m.cameras.iter().for_each(|k| out.extend_from_slice(&k.raw)),
            Section::Light => m.lights.iter().for_each(|k| out.extend_from_slice(&k.raw)),
            Section::SelfShadow => m.shadows.iter().for_each(|k| out.extend_from_slice(&k.raw)),
            Section::Ik => m.iks.iter().for_each(|k| out.extend_from_slice(&k.raw)),
        }
    }
    out.extend_from_slice(&m.trailing);
    Ok(out)
}

/// Saves `bytes` to `path` through the one save routine
/// ([`super::save::save_bytes`]: unique temporary file, fsync, permissions,
/// symlinks, read-back).
pub fn save_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    super::save::save_bytes(path, bytes).map(|_| ())
}

/// Serializes and saves (see [`save`](mod@super::save)).
pub fn save(m: &Motion, path: &Path) -> Result<(), WriteError> {
    let bytes = write(m)?;
    save_bytes_atomic(path, &bytes)
}
