//! The encoder process: a bounded channel feeds a writer thread that
//! pipes frames into ffmpeg while the caller renders the next one, and
//! the MP4 is written to a temporary file beside the target that is
//! renamed over it only when ffmpeg succeeded.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::ffmpeg::{FfmpegMissing, ffmpeg_args};
use super::plan::VideoSpec;

/// Pictures waiting between the render loop and the writer thread (each
/// is width × height × 4 bytes: 8 MB at 1920×1080).
pub const QUEUE_PICTURES: usize = 4;

/// Lines of ffmpeg's stderr kept for an error message.
const STDERR_TAIL_LINES: usize = 12;

/// Why an export stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VideoError {
    Missing(FfmpegMissing),
    /// The user (or the program) cancelled it.
    Cancelled,
    /// Anything else, in words (with ffmpeg's last lines where it said
    /// something).
    Failed(String),
}

impl std::fmt::Display for VideoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VideoError::Missing(m) => m.fmt(f),
            VideoError::Cancelled => f.write_str("cancelled; no file was written"),
            VideoError::Failed(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for VideoError {}

/// ffmpeg running with a writer thread feeding its stdin. Pictures go in
/// with [`VideoWriter::push`] (blocking only while [`QUEUE_PICTURES`] wait);
/// [`VideoWriter::finish`] waits for ffmpeg and renames the temporary MP4
/// over the target. Dropped or [`cancelled`](VideoWriter::cancel) before
/// that, it kills ffmpeg and deletes the temporary file.
pub struct VideoWriter {
    target: PathBuf,
    frame_bytes: usize,
    tx: Option<SyncSender<Vec<u8>>>,
    writer: Option<JoinHandle<Result<(), String>>>,
    stderr: Option<JoinHandle<()>>,
    tail: Arc<Mutex<VecDeque<String>>>,
    child: Option<Child>,
    /// The temporary MP4 beside the target; deleted when dropped.
    part: Option<tempfile::TempPath>,
    pushed: u64,
    expected: u64,
}

impl std::fmt::Debug for VideoWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VideoWriter")
            .field("target", &self.target)
            .field("pushed", &self.pushed)
            .finish_non_exhaustive()
    }
}

/// The temporary file beside `target`: `.NAME.XXXXXX.part` in its folder,
/// so the final rename stays on one file system; its mode is the usual
/// `0666 & !umask` (the finished video keeps it).
pub fn partial_file_for(target: &Path) -> Result<tempfile::TempPath, String> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "cannot write {}: folder {} does not exist",
            target.display(),
            dir.display()
        ));
    }
    let name = target
        .file_name()
        .map_or_else(|| "video".into(), |n| n.to_string_lossy().into_owned());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".part");
    // Created with 0666 minus the user's umask, like any new file and like
    // the app's saved VMDs (tempfile's own default is 0600, which would make
    // the finished video private).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder
        .tempfile_in(&dir)
        .map(|f| f.into_temp_path())
        .map_err(|e| format!("cannot write in {}: {e}", dir.display()))
}

fn tail_text(tail: &Mutex<VecDeque<String>>) -> String {
    tail.lock()
        .map(|t| t.iter().cloned().collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

impl VideoWriter {
    /// Starts `ffmpeg` writing `spec` to a temporary file beside `target`.
    pub fn start(
        ffmpeg: &Path,
        spec: &VideoSpec,
        target: &Path,
    ) -> Result<VideoWriter, VideoError> {
        spec.check().map_err(VideoError::Failed)?;
        if let Some(song) = &spec.song
            && !song.path.is_file()
        {
            return Err(VideoError::Failed(format!(
                "song {} not found",
                song.path.display()
            )));
        }
        let part = partial_file_for(target).map_err(VideoError::Failed)?;
        let mut child = Command::new(ffmpeg)
            .args(ffmpeg_args(spec, &part))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    VideoError::Missing(FfmpegMissing {
                        named: Some(ffmpeg.to_path_buf()),
                    })
                } else {
                    VideoError::Failed(format!("cannot start {}: {e}", ffmpeg.display()))
                }
            })?;
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr = child.stderr.take().map(|err| {
            let tail = Arc::clone(&tail);
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(Result::ok) {
                    if let Ok(mut t) = tail.lock() {
                        if t.len() == STDERR_TAIL_LINES {
                            t.pop_front();
                        }
                        t.push_back(line);
                    }
                }
            })
        });
        let Some(mut stdin) = child.stdin.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(VideoError::Failed("ffmpeg has no stdin".into()));
        };
        let (tx, rx): (SyncSender<Vec<u8>>, Receiver<Vec<u8>>) = sync_channel(QUEUE_PICTURES);
        let writer = std::thread::Builder::new()
            .name("video-writer".into())
            .spawn(move || {
                for frame in rx {
                    stdin
                        .write_all(&frame)
                        .map_err(|e| format!("writing a picture to ffmpeg: {e}"))?;
                }
                // Dropping stdin closes the pipe: ffmpeg finishes the file.
                Ok(())
            })
            .map_err(|e| VideoError::Failed(format!("cannot start the writer thread: {e}")))?;
        Ok(VideoWriter {
            target: target.to_path_buf(),
            frame_bytes: spec.frame_bytes(),
            tx: Some(tx),
            writer: Some(writer),
            stderr,
            tail,
            child: Some(child),
            part: Some(part),
            pushed: 0,
            expected: spec.times.count(),
        })
    }

    /// Queues one picture (RGBA8, rows top to bottom, no padding).
    pub fn push(&mut self, rgba: Vec<u8>) -> Result<(), VideoError> {
        if rgba.len() != self.frame_bytes {
            return Err(VideoError::Failed(format!(
                "a picture of {} bytes where {} were expected",
                rgba.len(),
                self.frame_bytes
            )));
        }
        let sent = self.tx.as_ref().is_some_and(|tx| tx.send(rgba).is_ok());
        if !sent {
            // The writer stopped: ffmpeg exited early. Say why.
            return Err(self.failure("ffmpeg stopped reading pictures"));
        }
        self.pushed += 1;
        Ok(())
    }

    /// Pictures queued so far.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Stops and collects the reason, killing ffmpeg; the temporary file
    /// goes when `self` drops.
    fn failure(&mut self, what: &str) -> VideoError {
        self.tx = None;
        let writer = self.writer.take().map(|w| w.join());
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
        self.child = None;
        if let Some(s) = self.stderr.take() {
            let _ = s.join();
        }
        let mut msg = what.to_owned();
        if let Some(Ok(Err(e))) = writer {
            msg = format!("{msg} ({e})");
        }
        let tail = tail_text(&self.tail);
        if !tail.is_empty() {
            msg = format!("{msg}; ffmpeg said:\n{tail}");
        }
        VideoError::Failed(msg)
    }

    /// Closes the pipe, waits for ffmpeg and renames the finished MP4 over
    /// the target. Fails (deleting the temporary file) when fewer pictures
    /// came than the spec asked for or ffmpeg failed.
    pub fn finish(mut self) -> Result<PathBuf, VideoError> {
        if self.pushed != self.expected {
            let what = format!(
                "only {} of {} pictures were rendered",
                self.pushed, self.expected
            );
            return Err(self.failure(&what));
        }
        self.tx = None;
        let wrote = match self.writer.take().map(|w| w.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err("the writer thread panicked".to_owned()),
            None => Ok(()),
        };
        let status = match self.child.take() {
            Some(mut c) => c.wait().map_err(|e| e.to_string()),
            None => Err("ffmpeg is gone".to_owned()),
        };
        if let Some(s) = self.stderr.take() {
            let _ = s.join();
        }
        let tail = tail_text(&self.tail);
        let said = |m: String| {
            if tail.is_empty() {
                m
            } else {
                format!("{m}; ffmpeg said:\n{tail}")
            }
        };
        match (wrote, status) {
            (Ok(()), Ok(s)) if s.success() => {}
            (Err(e), _) => return Err(VideoError::Failed(said(e))),
            (_, Ok(s)) => return Err(VideoError::Failed(said(format!("ffmpeg failed ({s})")))),
            (_, Err(e)) => return Err(VideoError::Failed(said(format!("ffmpeg: {e}")))),
        }
        let Some(part) = self.part.take() else {
            return Err(VideoError::Failed("the temporary file is gone".into()));
        };
        part.persist(&self.target).map_err(|e| {
            VideoError::Failed(format!("cannot rename onto {}: {e}", self.target.display()))
        })?;
        Ok(self.target.clone())
    }

    /// Stops: kills ffmpeg and deletes the temporary file. The target is
    /// untouched (an older file there stays as it was).
    pub fn cancel(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.tx = None;
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
        self.child = None;
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
        if let Some(s) = self.stderr.take() {
            let _ = s.join();
        }
        // ffmpeg has exited (Windows cannot delete a file still open).
        self.part = None;
    }
}

impl Drop for VideoWriter {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The first of `NAME-2.EXT`, `NAME-3.EXT`, … beside `target` that does not
/// exist (`target` itself if it does not).
pub fn free_name(target: &Path) -> PathBuf {
    if !target.exists() {
        return target.to_path_buf();
    }
    let stem = target
        .file_stem()
        .map_or_else(|| "video".into(), |s| s.to_string_lossy().into_owned());
    let ext = target
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    (2u32..)
        .map(|n| target.with_file_name(format!("{stem}-{n}{ext}")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| target.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::video::plan::PictureTimes;

    /// The partial file (and so the finished video) gets the mode any new
    /// file gets here: the reference is a file `std::fs::File::create`
    /// makes in the same folder (0666 minus the umask), not tempfile's 0600.
    #[cfg(unix)]
    #[test]
    fn the_partial_file_gets_the_usual_mode_of_a_new_file() {
        use std::os::unix::fs::PermissionsExt;
        let out = tempfile::tempdir().unwrap();
        let reference = out.path().join("reference");
        std::fs::File::create(&reference).unwrap();
        let want = std::fs::metadata(&reference).unwrap().permissions().mode() & 0o777;
        let part = partial_file_for(&out.path().join("video.mp4")).unwrap();
        let got = std::fs::metadata(&part).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            got, want,
            "partial file mode {got:o}, a new file's {want:o}"
        );
    }

    /// A free name beside taken ones: `take.mp4` and `take-2.mp4` exist,
    /// so `take-3.mp4`; a name not taken is itself.
    #[test]
    fn a_free_name_skips_the_taken_ones() {
        let out = tempfile::tempdir().unwrap();
        let take = out.path().join("take.mp4");
        assert_eq!(free_name(&take), take);
        std::fs::write(&take, b"1").unwrap();
        std::fs::write(out.path().join("take-2.mp4"), b"2").unwrap();
        assert_eq!(free_name(&take), out.path().join("take-3.mp4"));
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// A stand-in ffmpeg (shell script): reads stdin, writes the last
    /// argument, then fails or succeeds as told.
    #[cfg(unix)]
    fn fake_ffmpeg(dir: &Path, exit: i32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join("fake-ffmpeg");
        let script = format!(
            "#!/bin/sh\nfor a; do out=\"$a\"; done\ncat > \"$out\"\n\
             echo 'line one' >&2\necho 'Unknown encoder libx264' >&2\nexit {exit}\n"
        );
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn small_spec(pictures: u32) -> VideoSpec {
        VideoSpec {
            width: 4,
            height: 2,
            times: PictureTimes::new(0, pictures - 1, 30).unwrap(),
            song: None,
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_failed_encode_leaves_no_file_and_quotes_ffmpeg() {
        let tools = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        let target = out.path().join("clip.mp4");
        let fake = fake_ffmpeg(tools.path(), 1);
        let spec = small_spec(3);
        let mut w = VideoWriter::start(&fake, &spec, &target).unwrap();
        for _ in 0..3 {
            // The fake may exit before all pictures are taken; either way the
            // result below must be a failure with its words.
            if w.push(vec![7; spec.frame_bytes()]).is_err() {
                break;
            }
        }
        let e = w.finish().unwrap_err().to_string();
        assert!(e.contains("Unknown encoder libx264"), "{e}");
        assert!(
            names_in(out.path()).is_empty(),
            "{:?}",
            names_in(out.path())
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_finished_encode_is_renamed_onto_the_target_and_a_cancel_leaves_nothing() {
        let tools = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        let target = out.path().join("clip.mp4");
        let fake = fake_ffmpeg(tools.path(), 0);
        let spec = small_spec(3);
        let mut w = VideoWriter::start(&fake, &spec, &target).unwrap();
        for i in 0..3u8 {
            w.push(vec![i; spec.frame_bytes()]).unwrap();
        }
        assert_eq!(w.finish().unwrap(), target);
        assert_eq!(names_in(out.path()), ["clip.mp4"]);
        // The fake wrote stdin to the file: every byte of every picture, in order.
        let bytes = std::fs::read(&target).unwrap();
        let expect: Vec<u8> = (0..3u8).flat_map(|i| vec![i; 32]).collect();
        assert_eq!(bytes, expect);

        // A cancel midway: the older clip.mp4 stays, no part file.
        let mut w = VideoWriter::start(&fake, &spec, &target).unwrap();
        w.push(vec![9; spec.frame_bytes()]).unwrap();
        assert_eq!(
            names_in(out.path()).len(),
            2,
            "the part file exists meanwhile"
        );
        w.cancel();
        assert_eq!(names_in(out.path()), ["clip.mp4"]);
        assert_eq!(std::fs::read(&target).unwrap(), expect);

        // Too few pictures is a failure, not a short video.
        let w = VideoWriter::start(&fake, &spec, &out.path().join("short.mp4")).unwrap();
        let e = w.finish().unwrap_err().to_string();
        assert!(e.contains("0 of 3"), "{e}");
        assert_eq!(names_in(out.path()), ["clip.mp4"]);
    }

    #[test]
    fn a_missing_program_or_folder_is_an_error_not_a_panic() {
        let out = tempfile::tempdir().unwrap();
        let spec = small_spec(1);
        let e = VideoWriter::start(
            Path::new("/nonexistent/ffmpeg"),
            &spec,
            &out.path().join("a.mp4"),
        )
        .unwrap_err();
        assert!(matches!(e, VideoError::Missing(_)), "{e:?}");
        assert!(names_in(out.path()).is_empty());
        let e = VideoWriter::start(
            Path::new("ffmpeg"),
            &spec,
            &out.path().join("no/such/dir/a.mp4"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
    }
}
