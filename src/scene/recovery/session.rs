//! A running session: its lock, and the copies that dead sessions left.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use super::copies::now_ms;
use super::{Entry, FORMAT, Meta, RecoveryError, VERSION, Writer, io_err};

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
        sweep_stale_temporaries(&dir, std::time::SystemTime::now());
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
pub(super) fn is_plain_name(name: &str) -> bool {
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

/// How old a `.recovery-*.tmp` must be to count as left over: a write keeps
/// its temporary file for milliseconds (write, flush, rename), so one older
/// than this was left by a process that died (or a rename that failed, as
/// on Windows before read-only files were refused first).
pub const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(600);

/// Deletes the leftover temporary files of atomic writes in `dir`
/// (`.recovery-*.tmp` last modified more than [`STALE_TEMPORARY`] before
/// `now`); younger ones may be a live write and stay. Returns how many went.
pub fn sweep_stale_temporaries(dir: &Path, now: std::time::SystemTime) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with(".recovery-") && name.ends_with(".tmp")) {
            continue;
        }
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > STALE_TEMPORARY);
        if old && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}
