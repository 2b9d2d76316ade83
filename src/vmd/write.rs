//! [`Motion`] → bytes, the exact inverse of [`super::read::read`], and an
//! atomic save to disk.

use std::io::Write;
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

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, flushed and synced, then renamed over the target. On any
/// failure the original file is untouched and the temporary file removed.
pub fn save_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let io = |source| WriteError::Io {
        path: path.display().to_string(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "motion.vmd".into());
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.flush()?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

/// Serializes and saves atomically.
pub fn save(m: &Motion, path: &Path) -> Result<(), WriteError> {
    let bytes = write(m)?;
    save_bytes_atomic(path, &bytes)
}
