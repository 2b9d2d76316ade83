//! Crash recovery copies: the GUI-free part (naming, writing, listing,
//! reading, deleting). Pure: tested with `cargo test --no-default-features`.
//!
//! While a document has unsaved edits the app writes a copy of it to
//! `data_dir()/recovery/`:
//!
//! ```text
//! <session>-doc<id>-g<generation>.vmd   the VMD bytes, exactly as a save writes them
//! <session>-doc<id>.json                the sidecar (Meta): original path, time,
//!                                       edits since the last save, the scene, and
//!                                       the name of the .vmd it describes
//! <session>.lock                        held locked while the session runs
//! ```
//!
//! Every file is written to a unique temporary file in the same folder and
//! renamed over its name, so a crash never leaves a half-written copy. The
//! `.vmd` of each write gets a new generation number and the sidecar is
//! renamed last: at any moment the sidecar names a complete `.vmd`. Older
//! generations are deleted after the sidecar moved on.
//!
//! A session holds an exclusive lock on its `.lock` file for as long as it
//! runs; the operating system releases it when the process dies, however it
//! dies. Listing skips the caller's own session and every session whose lock
//! is still held (another running instance): only copies left by a crash
//! (or by a session that ended with unsaved edits) are offered.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::vmd::{self, Motion};

/// The folder inside the app's data directory.
pub const DIR_NAME: &str = "recovery";
/// The sidecar's `format` field.
pub const FORMAT: &str = "vmd-studio-recovery";
/// The sidecar version this program writes and reads.
pub const VERSION: u32 = 1;
/// How often a modified document's copy is refreshed.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(30);
/// A copy is also written on every this-many-th edit since the last save.
pub const EDIT_TRIGGER: u64 = 50;
/// Environment variable overriding [`DEFAULT_INTERVAL`], in seconds
/// (e.g. `0.2`; tests use it).
pub const INTERVAL_ENV: &str = "VMD_STUDIO_RECOVERY_INTERVAL";

/// The refresh interval: [`INTERVAL_ENV`] if it holds a positive number of
/// seconds, else [`DEFAULT_INTERVAL`].
pub fn interval() -> Duration {
    std::env::var(INTERVAL_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(|s| Duration::from_secs_f64(s.max(0.01)))
        .unwrap_or(DEFAULT_INTERVAL)
}

/// `data_dir()/recovery`.
pub fn default_dir() -> Option<PathBuf> {
    crate::data_dir().map(|d| d.join(DIR_NAME))
}

/// What went wrong with a recovery copy.
#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    #[error("recovery folder {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("recovery copy {path} is damaged: {reason}")]
    Damaged { path: String, reason: String },
}

fn io_err(path: &Path, source: std::io::Error) -> RecoveryError {
    RecoveryError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Paths in a sidecar. A path that is text (always on Windows) is a JSON
/// string, as before; on Unix a name that is not UTF-8 — a Japanese MMD
/// archive unzipped with its Shift_JIS names as raw bytes — is written as
/// `{"os_bytes": [..]}`, so its copy is still written and restores to the
/// same file (serde's own `PathBuf` refuses such a path, and the copy was
/// lost).
mod os_path {
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Text(String),
        Bytes { os_bytes: Vec<u8> },
    }

    fn stored(p: &Path) -> Stored {
        if let Some(text) = p.to_str() {
            return Stored::Text(text.to_owned());
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            Stored::Bytes {
                os_bytes: p.as_os_str().as_bytes().to_vec(),
            }
        }
        #[cfg(not(unix))]
        {
            Stored::Text(p.to_string_lossy().into_owned())
        }
    }

    fn path(s: Stored) -> PathBuf {
        match s {
            Stored::Text(t) => PathBuf::from(t),
            #[cfg(unix)]
            Stored::Bytes { os_bytes } => {
                use std::os::unix::ffi::OsStringExt;
                PathBuf::from(std::ffi::OsString::from_vec(os_bytes))
            }
            #[cfg(not(unix))]
            Stored::Bytes { os_bytes } => {
                PathBuf::from(String::from_utf8_lossy(&os_bytes).into_owned())
            }
        }
    }

    pub fn serialize<S: Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
        stored(p).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        Stored::deserialize(d).map(path)
    }

    pub mod opt {
        use super::*;

        pub fn serialize<S: Serializer>(p: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
            p.as_deref().map(stored).serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
            Option::<Stored>::deserialize(d).map(|o| o.map(path))
        }
    }
}

/// What the recovered document was in the scene.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Role {
    /// Worn by the actor at this index of [`SceneRecord::actors`].
    Actor {
        index: usize,
    },
    Camera,
    Light,
}

/// An actor of the scene, with paths (a motion without a file has none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActorRecord {
    pub name: String,
    /// `None`: the built-in skeleton.
    #[serde(default, with = "os_path::opt")]
    pub model: Option<PathBuf>,
    #[serde(default, with = "os_path::opt")]
    pub motion: Option<PathBuf>,
    pub offset: i32,
}

/// The scene's song when the copy was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SongRecord {
    #[serde(with = "os_path")]
    pub path: PathBuf,
    /// Scene frame at which the song's first sample plays.
    pub offset: i32,
}

/// The scene arrangement when the copy was written: enough to rebuild it
/// on restore (documents without a copy are opened from their files).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SceneRecord {
    /// The `.vmdscene` file, if the scene came from or went to one.
    #[serde(default, with = "os_path::opt")]
    pub scene_file: Option<PathBuf>,
    pub actors: Vec<ActorRecord>,
    #[serde(default, with = "os_path::opt")]
    pub camera: Option<PathBuf>,
    #[serde(default, with = "os_path::opt")]
    pub light: Option<PathBuf>,
    /// The song (absent in sidecars written before it was recorded).
    #[serde(default)]
    pub song: Option<SongRecord>,
    /// This document's roles.
    pub roles: Vec<Role>,
}

/// The sidecar of a recovery copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub format: String,
    pub version: u32,
    /// The session that wrote it.
    pub session: String,
    pub pid: u32,
    /// The document id inside that session.
    pub doc_id: u64,
    /// The file the document saves to (`None`: never saved, e.g. the demo).
    #[serde(default, with = "os_path::opt")]
    pub original: Option<PathBuf>,
    /// The name shown for it.
    pub name: String,
    /// When the copy was written, milliseconds since the Unix epoch.
    pub written_unix_ms: u64,
    /// Edits since the last save.
    pub edits: u64,
    /// The `.vmd` file (in the same folder) holding the bytes.
    pub vmd_file: String,
    /// Its length in bytes.
    pub len: u64,
    pub scene: Option<SceneRecord>,
}

/// What the caller knows about a document when writing its copy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocInfo {
    pub doc_id: u64,
    pub original: Option<PathBuf>,
    pub name: String,
    pub edits: u64,
    pub scene: Option<SceneRecord>,
}

/// A recovery copy found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Where one session writes: the folder and the session's name. Cheap to
/// clone, so a writer thread can own one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    dir: PathBuf,
    session: String,
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

/// A running session: its writer and the lock that tells other instances
/// it is alive. Dropping it releases the lock (and deletes the lock file
/// when the session left no copies behind).
#[derive(Debug)]
pub struct Session {
    writer: Writer,
    lock: Option<File>,
    /// Locks of dead sessions this one took over while offering their copies,
    /// so a second instance starting meanwhile does not offer them too.
    claimed: HashMap<String, File>,
}

impl Session {
    /// Starts a session writing to `dir` (created if missing).
    pub fn start(dir: &Path) -> Result<Session, RecoveryError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
        let session = format!(
            "s{}-{}-{}",
            std::process::id(),
            now_ms(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let lock_path = dir.join(format!("{session}.lock"));
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| io_err(&lock_path, e))?;
        lock.try_lock().map_err(|e| {
            io_err(
                &lock_path,
                match e {
                    std::fs::TryLockError::Error(e) => e,
                    std::fs::TryLockError::WouldBlock => std::io::Error::other("already locked"),
                },
            )
        })?;
        Ok(Session {
            writer: Writer {
                dir: dir.to_path_buf(),
                session,
            },
            lock: Some(lock),
            claimed: HashMap::new(),
        })
    }

    pub fn writer(&self) -> &Writer {
        &self.writer
    }

    /// Copies left by sessions that are not running (crashed, or ended with
    /// unsaved edits), oldest first, with the sidecars that could not be
    /// read. Never this session's own, nor a running instance's. The dead
    /// sessions found are claimed until [`Session::release`].
    pub fn orphans(&mut self) -> (Vec<Entry>, Vec<RecoveryError>) {
        let mut entries = Vec::new();
        let mut errors = Vec::new();
        let dir = self.writer.dir.clone();
        let Ok(rd) = std::fs::read_dir(&dir) else {
            return (entries, errors);
        };
        let mut live: HashMap<String, bool> = HashMap::new();
        for e in rd.flatten() {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let meta = match std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| serde_json::from_slice::<Meta>(&b).map_err(|e| e.to_string()))
            {
                Ok(m) if m.format == FORMAT && m.version <= VERSION => m,
                Ok(m) => {
                    errors.push(RecoveryError::Damaged {
                        path: path.display().to_string(),
                        reason: format!("format {:?} version {}", m.format, m.version),
                    });
                    continue;
                }
                Err(reason) => {
                    errors.push(RecoveryError::Damaged {
                        path: path.display().to_string(),
                        reason,
                    });
                    continue;
                }
            };
            // The sidecar names its bytes; never follow it out of the folder.
            if let Some(bad) = [&meta.vmd_file, &meta.session]
                .into_iter()
                .find(|n| !is_plain_name(n))
            {
                errors.push(RecoveryError::Damaged {
                    path: path.display().to_string(),
                    reason: format!("bad file name {bad:?}"),
                });
                continue;
            }
            if meta.session == self.writer.session {
                continue;
            }
            let alive = *live
                .entry(meta.session.clone())
                .or_insert_with(|| !self.claim(&meta.session));
            if alive {
                continue;
            }
            entries.push(Entry {
                vmd: dir.join(&meta.vmd_file),
                json: path,
                meta,
            });
        }
        self.sweep_locks(&dir);
        entries.sort_by(|a, b| {
            (a.meta.written_unix_ms, &a.meta.session, a.meta.doc_id).cmp(&(
                b.meta.written_unix_ms,
                &b.meta.session,
                b.meta.doc_id,
            ))
        });
        (entries, errors)
    }

    /// Deletes the lock files of dead sessions that left no copies.
    fn sweep_locks(&self, dir: &Path) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(session) = name.strip_suffix(".lock") else {
                continue;
            };
            if session == self.writer.session
                || self.claimed.contains_key(session)
                || has_files(dir, session)
            {
                continue;
            }
            if let Ok(f) = OpenOptions::new().write(true).open(e.path())
                && f.try_lock().is_ok()
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    /// Takes the lock of a session if nobody holds it: true when the
    /// session is dead (or already claimed by this one).
    fn claim(&mut self, session: &str) -> bool {
        if self.claimed.contains_key(session) {
            return true;
        }
        if !is_plain_name(session) {
            return false;
        }
        let path = self.writer.dir.join(format!("{session}.lock"));
        let f = match OpenOptions::new().write(true).open(&path) {
            Ok(f) => f,
            // No lock file: nobody can be holding it.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return true,
            Err(_) => return false,
        };
        match f.try_lock() {
            Ok(()) => {
                self.claimed.insert(session.to_owned(), f);
                true
            }
            Err(_) => false,
        }
    }

    /// Releases the dead sessions claimed by [`Session::orphans`], deleting
    /// the lock files of those that have no copies left.
    pub fn release(&mut self) {
        let dir = self.writer.dir.clone();
        for (session, f) in self.claimed.drain() {
            if !has_files(&dir, &session) {
                let _ = std::fs::remove_file(dir.join(format!("{session}.lock")));
            }
            drop(f);
        }
    }
}

/// Whether a name read from a sidecar can only mean a file inside the
/// recovery folder, on every system: not empty, not hidden, no separator
/// (`/`, `\`), and nothing Windows reads as a drive or a stream (`C:x`,
/// `x:stream`) or refuses in a name (`<>"|?*`, control characters) —
/// `Path::join` on Windows leaves the folder for `C:evil.vmd`.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.chars().any(|c| {
            matches!(c, '/' | '\\' | ':' | '<' | '>' | '"' | '|' | '?' | '*') || c.is_control()
        })
}

/// Whether `dir` holds copies (sidecars or bytes) of `session`.
fn has_files(dir: &Path, session: &str) -> bool {
    let prefix = format!("{session}-doc");
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(&prefix))
    })
}

impl Drop for Session {
    fn drop(&mut self) {
        self.release();
        let dir = self.writer.dir.clone();
        let session = self.writer.session.clone();
        if !has_files(&dir, &session) {
            let _ = std::fs::remove_file(dir.join(format!("{session}.lock")));
        }
        drop(self.lock.take());
    }
}

/// `unix_ms` as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn format_utc(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small valid VMD: a v2 header, model name, one bone key, empty rest.
    fn vmd_bytes(frame: u32) -> Vec<u8> {
        let mut b = Vec::new();
        let mut header = b"Vocaloid Motion Data 0002".to_vec();
        header.resize(30, 0);
        b.extend(&header);
        let mut name = b"model".to_vec();
        name.resize(20, 0);
        b.extend(&name);
        b.extend(1u32.to_le_bytes());
        // Bone record: 15 name, frame, pos 3f, rot 4f, 64 interpolation = 111.
        let mut bone = b"center".to_vec();
        bone.resize(15, 0);
        bone.extend(frame.to_le_bytes());
        bone.extend([0u8; 12]);
        bone.extend([0u8; 12]);
        bone.extend(1.0f32.to_le_bytes());
        bone.extend([20u8; 64]);
        assert_eq!(bone.len(), 111);
        b.extend(bone);
        for _ in 0..4 {
            b.extend(0u32.to_le_bytes()); // morphs, cameras, lights, shadows
        }
        b.extend(0u32.to_le_bytes()); // IK
        b
    }

    fn temp_dir(tag: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("vmd-recovery-{tag}-"))
            .tempdir()
            .expect("temp dir")
    }

    fn info(doc_id: u64, edits: u64) -> DocInfo {
        DocInfo {
            doc_id,
            original: Some(PathBuf::from("/music/dance.vmd")),
            name: "dance.vmd".into(),
            edits,
            scene: Some(SceneRecord {
                scene_file: None,
                actors: vec![ActorRecord {
                    name: "Actor 1".into(),
                    model: Some(PathBuf::from("/models/mei.pmd")),
                    motion: Some(PathBuf::from("/music/dance.vmd")),
                    offset: -12,
                }],
                camera: None,
                light: None,
                song: Some(SongRecord {
                    path: PathBuf::from("/music/song.wav"),
                    offset: 5,
                }),
                roles: vec![Role::Actor { index: 0 }],
            }),
        }
    }

    #[test]
    fn the_test_vmd_is_valid() {
        let m = vmd::read(&vmd_bytes(7)).expect("reads");
        assert_eq!(m.bones.len(), 1);
        assert_eq!(vmd::write(&m).expect("writes"), vmd_bytes(7));
    }

    #[test]
    fn a_dead_sessions_copy_is_listed_read_and_deleted() {
        let dir = temp_dir("cycle");
        let bytes = vmd_bytes(42);
        {
            let crashed = Session::start(dir.path()).expect("session");
            crashed.writer().write(&info(3, 7), &bytes).expect("write");
            // Its own copies are never offered to itself.
            let mut c = crashed;
            assert!(c.orphans().0.is_empty());
            // A second running instance does not see them either.
            let mut other = Session::start(dir.path()).expect("session");
            assert!(other.orphans().0.is_empty());
            // Dropped: lock released, as when the process dies.
        }
        let mut next = Session::start(dir.path()).expect("session");
        let (found, errors) = next.orphans();
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(found.len(), 1);
        let e = &found[0];
        assert_eq!(e.meta.edits, 7);
        assert_eq!(e.meta.doc_id, 3);
        assert_eq!(
            e.meta.original.as_deref(),
            Some(Path::new("/music/dance.vmd"))
        );
        assert_eq!(e.meta.scene, info(3, 7).scene);
        let (read, m) = e.read().expect("read");
        assert_eq!(read, bytes);
        assert_eq!(m.bones[0].frame(), 42);
        e.delete().expect("delete");
        next.release();
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with(next.writer().session()))
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    #[test]
    fn rewriting_keeps_one_generation_and_the_newest_bytes() {
        let dir = temp_dir("gen");
        let s = Session::start(dir.path()).expect("session");
        s.writer().write(&info(1, 1), &vmd_bytes(1)).expect("w1");
        let e = s.writer().write(&info(1, 2), &vmd_bytes(2)).expect("w2");
        let vmds: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "vmd"))
            .collect();
        assert_eq!(vmds.len(), 1);
        assert_eq!(e.read().expect("read").0, vmd_bytes(2));
        assert_eq!(e.meta.edits, 2);
        s.writer().delete(1).expect("delete");
        assert!(!e.json.exists() && !e.vmd.exists());
    }

    #[test]
    fn bytes_that_do_not_read_back_are_never_written() {
        let dir = temp_dir("bad");
        let s = Session::start(dir.path()).expect("session");
        let mut b = vmd_bytes(1);
        b.truncate(60);
        assert!(matches!(
            s.writer().write(&info(1, 1), &b),
            Err(RecoveryError::Damaged { .. })
        ));
        assert!(!s.writer().json_path(1).exists());
    }

    #[test]
    fn damaged_copies_are_reported_not_trusted() {
        let dir = temp_dir("damaged");
        {
            let s = Session::start(dir.path()).expect("session");
            let e = s.writer().write(&info(1, 1), &vmd_bytes(1)).expect("w");
            // Bytes cut short after writing (a disk problem).
            let mut b = std::fs::read(&e.vmd).expect("read");
            b.truncate(b.len() - 5);
            std::fs::write(&e.vmd, &b).expect("cut");
            // A sidecar that is not JSON, and one pointing out of the folder.
            std::fs::write(dir.path().join("junk.json"), b"{not json").expect("junk");
            let mut m = e.meta.clone();
            m.session = "s0-0-0".into();
            m.vmd_file = "../etc/passwd".into();
            std::fs::write(
                dir.path().join("escape.json"),
                serde_json::to_vec(&m).expect("json"),
            )
            .expect("escape");
        }
        let mut s = Session::start(dir.path()).expect("session");
        let (found, errors) = s.orphans();
        assert_eq!(found.len(), 1);
        assert_eq!(errors.len(), 2, "{errors:?}");
        let err = found[0].read().expect_err("cut short");
        assert!(err.to_string().contains("sidecar says"), "{err}");
    }

    #[test]
    fn sidecars_naming_a_drive_or_stream_are_refused_on_every_system() {
        let dir = temp_dir("names");
        {
            let s = Session::start(dir.path()).expect("session");
            let e = s.writer().write(&info(1, 1), &vmd_bytes(1)).expect("w");
            // On Windows `dir.join("C:evil.vmd")` is a file in the current
            // folder of drive C, and `x.vmd:s` an alternate data stream; on
            // Linux all three are plain names, so make them exist there: only
            // the check keeps them from being offered.
            for (i, bad) in ["C:evil.vmd", "copy.vmd:stream", "a|b.vmd"]
                .iter()
                .enumerate()
            {
                // (Never created on Windows: there they are not names.)
                if cfg!(unix) {
                    std::fs::copy(&e.vmd, dir.path().join(bad)).expect("copy");
                }
                let mut m = e.meta.clone();
                m.session = format!("s0-0-{i}");
                m.vmd_file = (*bad).to_owned();
                std::fs::write(
                    dir.path().join(format!("bad{i}.json")),
                    serde_json::to_vec(&m).expect("json"),
                )
                .expect("sidecar");
            }
            // A session name that would put its lock file on another drive.
            let mut m = e.meta.clone();
            m.session = "D:s1".into();
            std::fs::write(
                dir.path().join("bad-session.json"),
                serde_json::to_vec(&m).expect("json"),
            )
            .expect("sidecar");
        }
        let mut s = Session::start(dir.path()).expect("session");
        let (found, errors) = s.orphans();
        // Only the good copy (its session is dead) is offered.
        let offered: Vec<&str> = found.iter().map(|e| e.meta.vmd_file.as_str()).collect();
        assert_eq!(found.len(), 1, "{offered:?}");
        assert!(offered[0].ends_with(".vmd") && !offered[0].contains(':'));
        let bad: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(bad.len(), 4, "{bad:?}");
        for name in ["C:evil.vmd", "copy.vmd:stream", "a|b.vmd", "D:s1"] {
            assert!(bad.iter().any(|m| m.contains(name)), "{name}: {bad:?}");
        }
    }

    /// An MMD archive unzipped on Linux keeps its Shift_JIS names as raw
    /// bytes: such paths are no UTF-8, and the copy must still be written
    /// and point back at the same files.
    #[cfg(unix)]
    #[test]
    fn paths_that_are_not_utf8_are_kept_byte_for_byte() {
        use std::os::unix::ffi::OsStrExt;
        // 83 5F 83 93 83 58 is ダンス in Shift_JIS (not UTF-8).
        let sjis: &[u8] = b"\x83\x5f\x83\x93\x83\x58";
        let (text, _, bad) = encoding_rs::SHIFT_JIS.decode(sjis);
        assert!(!bad && text == "ダンス");
        let mut raw = b"/mmd/".to_vec();
        raw.extend_from_slice(sjis);
        let folder = PathBuf::from(std::ffi::OsStr::from_bytes(&raw));
        assert!(folder.to_str().is_none(), "not UTF-8");
        let mut doc = info(4, 2);
        doc.original = Some(folder.join("dance.vmd"));
        if let Some(scene) = &mut doc.scene {
            scene.actors[0].model = Some(folder.join("model.pmx"));
            scene.scene_file = Some(folder.join("show.vmdscene"));
        }
        let dir = temp_dir("sjis");
        {
            let s = Session::start(dir.path()).expect("session");
            let e = s.writer().write(&doc, &vmd_bytes(3)).expect("written");
            let json = std::fs::read_to_string(&e.json).expect("sidecar");
            // UTF-8 paths stay plain strings; the others are their bytes.
            assert!(json.contains("\"/music/song.wav\""), "{json}");
            assert!(json.contains("os_bytes"), "{json}");
        }
        let mut next = Session::start(dir.path()).expect("session");
        let (found, errors) = next.orphans();
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].meta.original, doc.original);
        assert_eq!(found[0].meta.scene, doc.scene);
    }

    #[test]
    fn plain_names_are_told_from_paths() {
        for good in ["s12-1700000000000-0-doc3-g7.vmd", "s1-2-3", "ダンス.vmd"] {
            assert!(is_plain_name(good), "{good}");
        }
        for bad in [
            "",
            ".hidden.vmd",
            "..",
            "../x.vmd",
            "a\\b.vmd",
            "C:x.vmd",
            "x.vmd:s",
            "a*b",
            "a\nb",
        ] {
            assert!(!is_plain_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn utc_times_match_known_dates() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
        // 2000-02-29 12:34:56 UTC = 951827696 s (leap day).
        assert_eq!(format_utc(951_827_696_000), "2000-02-29 12:34:56 UTC");
        // 2026-11-30 10:00:00 UTC = 1796032800 s.
        assert_eq!(format_utc(1_796_032_800_999), "2026-11-30 10:00:00 UTC");
    }

    #[test]
    fn interval_defaults_to_thirty_seconds() {
        if std::env::var_os(INTERVAL_ENV).is_none() {
            assert_eq!(interval(), Duration::from_secs(30));
        }
    }
}
