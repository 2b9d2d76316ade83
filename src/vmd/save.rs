//! The one way a file reaches disk: the app's saves, every command-line `-o`
//! and the toolbox's reports all come here.
//!
//! A save never leaves a half-written file and never loses the original:
//! 1. a symlink is followed, so the file it points to is replaced (the link stays);
//! 2. the bytes go to a uniquely named temporary file in the target's
//!    directory (the `tempfile` crate), which is synced to disk;
//! 3. the original file's permissions are copied onto it (a new file gets
//!    the usual `0666 & !umask`);
//! 4. the temporary file is read back and compared with the bytes in memory:
//!    a mismatch is an error and the original stays untouched;
//! 5. it is renamed over the target, and the directory is synced so the
//!    rename itself survives a power cut.
//!
//! [`DiskStamp`] remembers what a file looked like when it was opened or last
//! saved, so a save can refuse to overwrite a file someone else changed
//! meanwhile ([`SaveOptions::expect_unchanged`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::error::WriteError;

/// What a file on disk looked like: size, modification time and (on Unix)
/// device and inode. Two stamps differ when the file was rewritten or
/// replaced in between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskStamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
    /// Device and inode (Unix); `None` elsewhere.
    pub file_id: Option<(u64, u64)>,
}

impl DiskStamp {
    /// The stamp of the file at `path` (following symlinks), or `None` when
    /// there is no such file.
    pub fn of(path: &Path) -> Option<DiskStamp> {
        std::fs::metadata(path)
            .ok()
            .map(|m| DiskStamp::from_metadata(&m))
    }

    /// The stamp from metadata already at hand (e.g. of an open file handle).
    pub fn from_metadata(m: &std::fs::Metadata) -> DiskStamp {
        #[cfg(unix)]
        let file_id = {
            use std::os::unix::fs::MetadataExt;
            Some((m.dev(), m.ino()))
        };
        #[cfg(not(unix))]
        let file_id = None;
        DiskStamp {
            len: m.len(),
            modified: m.modified().ok(),
            file_id,
        }
    }
}

/// Reads a whole file and the stamp of exactly the file that was read.
pub fn read_with_stamp(path: &Path) -> std::io::Result<(Vec<u8>, DiskStamp)> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let stamp = DiskStamp::from_metadata(&f.metadata()?);
    let mut bytes = Vec::with_capacity(usize::try_from(stamp.len).unwrap_or(0));
    f.read_to_end(&mut bytes)?;
    Ok((bytes, stamp))
}

/// Options for [`save_bytes_with`].
#[derive(Default)]
pub struct SaveOptions<'a> {
    /// Refuse with [`WriteError::ChangedOnDisk`] when the target exists and
    /// no longer has this stamp (someone changed it since it was opened or
    /// last saved). A target that has disappeared is written.
    pub expect_unchanged: Option<DiskStamp>,
    /// Called with the temporary file's path once it has been written and
    /// synced, before it is checked and renamed over the target. Tests inject
    /// slow or faulty disks here; `None` in normal use.
    pub before_commit: Option<&'a (dyn Fn(&Path) + Sync)>,
}

/// Saves `bytes` to `path` the safe way (see the module docs) and returns the
/// stamp of the file written.
pub fn save_bytes(path: &Path, bytes: &[u8]) -> Result<DiskStamp, WriteError> {
    save_bytes_with(path, bytes, &SaveOptions::default())
}

/// The file a save to `path` really writes: `path` itself, or the end of its
/// symlink chain (which may not exist yet).
pub fn resolve_target(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    // The kernel's own limit on a symlink chain is 40.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p)?;
                p = if link.is_absolute() {
                    link
                } else {
                    p.parent().unwrap_or_else(|| Path::new("")).join(link)
                };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// [`save_bytes`] with options.
pub fn save_bytes_with(
    path: &Path,
    bytes: &[u8],
    opts: &SaveOptions<'_>,
) -> Result<DiskStamp, WriteError> {
    let io = |source| WriteError::Io {
        path: path.display().to_string(),
        source,
    };
    let target = resolve_target(path).map_err(io)?;
    let existing = std::fs::metadata(&target).ok();
    if let (Some(expected), Some(meta)) = (&opts.expect_unchanged, &existing)
        && DiskStamp::from_metadata(meta) != *expected
    {
        return Err(WriteError::ChangedOnDisk {
            path: path.display().to_string(),
        });
    }
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        return Err(io(std::io::Error::other("not a regular file")));
    }
    if cfg!(windows)
        && existing
            .as_ref()
            .is_some_and(|m| m.permissions().readonly())
    {
        // Windows cannot rename over a read-only file (and a read-only
        // temporary copy could not be deleted either): say so before
        // writing anything. On Unix the rename replaces it and the new file
        // keeps the old one's mode.
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "the file is read-only (clear its read-only flag, or save under another name); nothing was written",
        )));
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    let new_file_mode = {
        use std::os::unix::fs::PermissionsExt;
        // Created with 0666 minus the umask, like any newly saved file
        // (tempfile's own default is 0600).
        std::fs::Permissions::from_mode(0o666)
    };
    #[cfg(unix)]
    builder.permissions(new_file_mode);
    let mut tmp = builder.tempfile_in(&dir).map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    // The original's mode bits go onto the new file. Unix only: on Windows
    // the one permission is the read-only flag, refused above, and copying
    // it would make the temporary file impossible to rename or delete.
    #[cfg(unix)]
    if let Some(meta) = &existing {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(io)?;
    }
    tmp.as_file().sync_all().map_err(io)?;
    if let Some(hook) = opts.before_commit {
        hook(tmp.path());
    }
    // Read back through a fresh handle: what a later open will see.
    let back = std::fs::read(tmp.path()).map_err(io)?;
    if back != bytes {
        return Err(WriteError::Verify {
            path: path.display().to_string(),
            written: bytes.len(),
            read: back.len(),
            first_difference: first_difference(bytes, &back),
        });
    }
    drop(back);
    let file = tmp.persist(&target).map_err(|e| io(e.error))?;
    // The stamp of the file this save wrote (through its handle: another
    // writer may already have replaced the name).
    let stamp = DiskStamp::from_metadata(&file.metadata().map_err(io)?);
    drop(file);
    #[cfg(unix)]
    std::fs::File::open(&dir)
        .and_then(|d| d.sync_all())
        .map_err(io)?;
    Ok(stamp)
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("vmd-save-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch dir");
        d
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn a_new_file_is_written_and_no_temporary_is_left() {
        let d = scratch("new");
        let p = d.join("out.vmd");
        let stamp = save_bytes(&p, b"hello").expect("save");
        assert_eq!(std::fs::read(&p).expect("read"), b"hello");
        assert_eq!(stamp.len, 5);
        assert_eq!(Some(stamp), DiskStamp::of(&p));
        assert!(leftovers(&d).is_empty(), "{:?}", leftovers(&d));
    }

    #[cfg(unix)]
    #[test]
    fn saving_through_a_symlink_writes_its_target_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let d = scratch("link");
        std::fs::create_dir_all(d.join("real")).expect("dir");
        let real = d.join("real/dance.vmd");
        std::fs::write(&real, b"old").expect("write");
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        let link = d.join("link.vmd");
        // A relative link, resolved against the link's own directory.
        std::os::unix::fs::symlink("real/dance.vmd", &link).expect("symlink");
        save_bytes(&link, b"new bytes").expect("save");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink(),
            "the link is still a link"
        );
        assert_eq!(std::fs::read(&real).expect("read"), b"new bytes");
        let mode = std::fs::metadata(&real).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        assert!(leftovers(&d.join("real")).is_empty());
        assert!(leftovers(&d).is_empty());
    }

    #[test]
    fn a_file_changed_since_it_was_stamped_is_refused_and_kept() {
        let d = scratch("changed");
        let p = d.join("a.vmd");
        let stamp = save_bytes(&p, b"mine").expect("save");
        // Someone else rewrites it (a different length, so the stamp differs
        // even where timestamps are coarse).
        std::fs::write(&p, b"theirs!").expect("write");
        let opts = SaveOptions {
            expect_unchanged: Some(stamp),
            ..Default::default()
        };
        let e = save_bytes_with(&p, b"mine again", &opts).expect_err("refused");
        assert!(matches!(e, WriteError::ChangedOnDisk { .. }), "{e}");
        assert_eq!(std::fs::read(&p).expect("read"), b"theirs!");
    }

    #[test]
    fn a_read_back_mismatch_is_an_error_and_the_original_stays() {
        let d = scratch("verify");
        let p = d.join("a.vmd");
        std::fs::write(&p, b"original").expect("write");
        // A disk that flips a byte after the write reported success.
        let corrupt = |tmp: &Path| {
            let mut b = std::fs::read(tmp).expect("tmp");
            b[2] ^= 0xFF;
            std::fs::write(tmp, b).expect("corrupt");
        };
        let opts = SaveOptions {
            before_commit: Some(&corrupt),
            ..Default::default()
        };
        let e = save_bytes_with(&p, b"replacement", &opts).expect_err("mismatch");
        match e {
            WriteError::Verify {
                first_difference, ..
            } => assert_eq!(first_difference, 2),
            other => panic!("{other}"),
        }
        assert_eq!(std::fs::read(&p).expect("read"), b"original");
        assert!(leftovers(&d).is_empty());
    }

    #[test]
    fn two_saves_at_once_use_different_temporary_files() {
        // Both writers pause with their temporary file written; with one
        // shared temporary name the second would clobber the first.
        let d = scratch("race");
        let p = d.join("a.vmd");
        let barrier = std::sync::Barrier::new(2);
        let wait = |_: &Path| {
            barrier.wait();
        };
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| {
                save_bytes_with(
                    &p,
                    &[1u8; 1000],
                    &SaveOptions {
                        before_commit: Some(&wait),
                        ..Default::default()
                    },
                )
            });
            let b = s.spawn(|| {
                save_bytes_with(
                    &p,
                    &[2u8; 2000],
                    &SaveOptions {
                        before_commit: Some(&wait),
                        ..Default::default()
                    },
                )
            });
            (a.join(), b.join())
        });
        assert!(matches!(a, Ok(Ok(_))) && matches!(b, Ok(Ok(_))));
        let got = std::fs::read(&p).expect("read");
        assert!(
            got == [1u8; 1000] || got == [2u8; 2000],
            "the file is one save or the other, never a mix"
        );
        assert!(leftovers(&d).is_empty());
    }
}
