//! The copies on disk: writing one atomically (bytes, then the sidecar),
//! reading and deleting one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{DocInfo, FORMAT, Meta, RecoveryError, VERSION, io_err};
use crate::vmd::{self, Motion};

/// A recovery copy found on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub meta: Meta,
    /// The sidecar.
    pub json: PathBuf,
    /// The bytes.
    pub vmd: PathBuf,
}

impl Entry {
    /// The copy's bytes, checked: the length the sidecar gives, and a VMD
    /// the reader accepts.
    pub fn read(&self) -> Result<(Vec<u8>, Motion), RecoveryError> {
        let bytes = std::fs::read(&self.vmd).map_err(|e| io_err(&self.vmd, e))?;
        let damaged = |reason: String| RecoveryError::Damaged {
            path: self.vmd.display().to_string(),
            reason,
        };
        if bytes.len() as u64 != self.meta.len {
            return Err(damaged(format!(
                "{} bytes, the sidecar says {}",
                bytes.len(),
                self.meta.len
            )));
        }
        let m = vmd::read(&bytes).map_err(|e| damaged(e.to_string()))?;
        Ok((bytes, m))
    }

    /// Deletes the copy (sidecar first, then every generation of its bytes).
    pub fn delete(&self) -> Result<(), RecoveryError> {
        remove_quiet(&self.json)?;
        let dir = self.json.parent().unwrap_or(Path::new("."));
        remove_generations(dir, &doc_stem(&self.meta.session, self.meta.doc_id), None)
    }

    /// The name to show: the original file's path, else the document name.
    pub fn display_name(&self) -> String {
        match &self.meta.original {
            Some(p) => p.display().to_string(),
            None => format!("{} (never saved)", self.meta.name),
        }
    }
}

fn remove_quiet(p: &Path) -> Result<(), RecoveryError> {
    match std::fs::remove_file(p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(p, e)),
    }
}

fn doc_stem(session: &str, doc_id: u64) -> String {
    format!("{session}-doc{doc_id}")
}

/// Deletes `<stem>-g*.vmd` files in `dir`, except `keep`.
fn remove_generations(dir: &Path, stem: &str, keep: Option<&str>) -> Result<(), RecoveryError> {
    let prefix = format!("{stem}-g");
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(dir, e)),
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix) && name.ends_with(".vmd") && Some(name.as_str()) != keep {
            remove_quiet(&e.path())?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically: a unique temporary file in the same
/// folder, flushed to disk, renamed over the name.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RecoveryError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".recovery-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| io_err(dir, e))?;
    tmp.write_all(bytes).map_err(|e| io_err(path, e))?;
    tmp.as_file().sync_all().map_err(|e| io_err(path, e))?;
    tmp.persist(path).map_err(|e| io_err(path, e.error))?;
    // The rename itself reaches the disk with the folder.
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Where one session writes: the folder and the session's name. Cheap to
/// clone, so a writer thread can own one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    pub(super) dir: PathBuf,
    pub(super) session: String,
}

impl Writer {
    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The session's name.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The sidecar path of a document's copy.
    pub fn json_path(&self, doc_id: u64) -> PathBuf {
        self.dir
            .join(format!("{}.json", doc_stem(&self.session, doc_id)))
    }

    /// Writes (or replaces) a document's copy. `bytes` must be what a save
    /// would write; they are checked with the VMD reader first, so a copy
    /// that could not be restored is never written.
    pub fn write(&self, info: &DocInfo, bytes: &[u8]) -> Result<Entry, RecoveryError> {
        static GENERATION: AtomicU64 = AtomicU64::new(1);
        let stem = doc_stem(&self.session, info.doc_id);
        if let Err(e) = vmd::read(bytes) {
            return Err(RecoveryError::Damaged {
                path: stem,
                reason: format!("the bytes to write do not read back: {e}"),
            });
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| io_err(&self.dir, e))?;
        let generation = GENERATION.fetch_add(1, Ordering::Relaxed);
        let vmd_file = format!("{stem}-g{generation}.vmd");
        let vmd = self.dir.join(&vmd_file);
        write_atomic(&vmd, bytes)?;
        let meta = Meta {
            format: FORMAT.to_owned(),
            version: VERSION,
            session: self.session.clone(),
            pid: std::process::id(),
            doc_id: info.doc_id,
            original: info.original.clone(),
            name: info.name.clone(),
            written_unix_ms: now_ms(),
            edits: info.edits,
            vmd_file: vmd_file.clone(),
            len: bytes.len() as u64,
            scene: info.scene.clone(),
        };
        let json = self.json_path(info.doc_id);
        let text = serde_json::to_vec_pretty(&meta).map_err(|e| RecoveryError::Damaged {
            path: json.display().to_string(),
            reason: e.to_string(),
        })?;
        write_atomic(&json, &text)?;
        remove_generations(&self.dir, &stem, Some(&vmd_file))?;
        Ok(Entry { meta, json, vmd })
    }

    /// Deletes a document's copy, if there is one.
    pub fn delete(&self, doc_id: u64) -> Result<(), RecoveryError> {
        remove_quiet(&self.json_path(doc_id))?;
        remove_generations(&self.dir, &doc_stem(&self.session, doc_id), None)
    }
}
