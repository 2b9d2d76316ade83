//! Video export's GPU-free part: which pictures a frame range makes, the
//! `ffmpeg` command line (H.264 yuv420p + AAC in MP4, raw RGBA frames on
//! stdin), lining the song up with the first picture, finding `ffmpeg`, and
//! the encoder process itself ([`VideoWriter`]): a bounded channel feeds a
//! writer thread that pipes frames into ffmpeg while the caller renders the
//! next one, and the MP4 is written to a temporary file beside the target
//! that is renamed over it only when ffmpeg succeeded: a cancelled or failed
//! export leaves nothing behind.
//!
//! No GUI or GPU type: the renderer's loop (`render::sequence`) feeds it
//! pictures, the CLI and the app call that loop.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// MMD's timeline rate: scene frames per second.
pub const MMD_FPS: f64 = 30.0;

/// Pictures waiting between the render loop and the writer thread (each
/// is width × height × 4 bytes: 8 MB at 1920×1080).
pub const QUEUE_PICTURES: usize = 4;

/// Lines of ffmpeg's stderr kept for an error message.
const STDERR_TAIL_LINES: usize = 12;

/// The pictures of an inclusive range of scene frames at 30 or 60 per
/// second: picture `i` shows scene frame `first + i / (fps / 30)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PictureTimes {
    pub first: u32,
    pub last: u32,
    /// 30 (one picture per MMD frame) or 60 (two).
    pub fps: u32,
}

impl PictureTimes {
    /// `first..=last` at `fps`; refuses an empty range and rates other
    /// than 30 and 60.
    pub fn new(first: u32, last: u32, fps: u32) -> Result<PictureTimes, String> {
        if fps != 30 && fps != 60 {
            return Err(format!("{fps} pictures per second: use 30 or 60"));
        }
        if last < first {
            return Err(format!(
                "frames {first}..{last}: the end is before the start"
            ));
        }
        Ok(PictureTimes { first, last, fps })
    }

    fn per_frame(&self) -> u64 {
        u64::from(self.fps / 30).max(1)
    }

    /// Number of pictures: every frame, and at 60 fps the half frames
    /// between them (`first..=last` at 60 fps: 2·(last − first) + 1).
    pub fn count(&self) -> u64 {
        u64::from(self.last - self.first) * self.per_frame() + 1
    }

    /// The scene frame picture `i` shows.
    pub fn frame(&self, i: u64) -> f64 {
        f64::from(self.first) + i as f64 / self.per_frame() as f64
    }

    /// Length of the video in seconds (count / fps).
    pub fn seconds(&self) -> f64 {
        self.count() as f64 / f64::from(self.fps)
    }
}

/// The song under the video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SongInput {
    /// Any file ffmpeg reads (WAV, MP3, OGG, FLAC…).
    pub path: PathBuf,
    /// Scene frame at which the song's first sample plays (the scene's
    /// song offset, [`crate::scene::Song::offset`]).
    pub offset: i32,
}

/// How the song lines up with the video's first picture (scene frame
/// `first`): the song time at video time `t` is `t + (first − offset) / 30`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SongAlign {
    /// The song starts with the video.
    Together,
    /// The song started before the video: skip this many seconds of it
    /// (ffmpeg `-ss` on the song input).
    Skip(f64),
    /// The song starts this many seconds into the video (`-itsoffset` on the
    /// song input: silence before it).
    Delay(f64),
}

impl SongAlign {
    /// Lines a song whose first sample plays at scene frame `song_offset`
    /// up with a video starting at scene frame `first`.
    pub fn new(first: u32, song_offset: i32) -> SongAlign {
        let frames = i64::from(first) - i64::from(song_offset);
        let secs = frames as f64 / MMD_FPS;
        match frames {
            0 => SongAlign::Together,
            f if f > 0 => SongAlign::Skip(secs),
            _ => SongAlign::Delay(-secs),
        }
    }
}

/// What to encode.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoSpec {
    pub width: u32,
    pub height: u32,
    pub times: PictureTimes,
    pub song: Option<SongInput>,
}

impl VideoSpec {
    /// Bytes of one RGBA picture.
    pub fn frame_bytes(&self) -> usize {
        self.width as usize * self.height as usize * 4
    }

    /// H.264 in yuv420p halves the chroma both ways: both sides must be even.
    pub fn check(&self) -> Result<(), String> {
        if self.width == 0
            || self.height == 0
            || !self.width.is_multiple_of(2)
            || !self.height.is_multiple_of(2)
        {
            return Err(format!(
                "video size {}x{}: H.264 (yuv420p) needs an even width and height, e.g. {}x{}",
                self.width,
                self.height,
                self.width.max(1).div_ceil(2) * 2,
                self.height.max(1).div_ceil(2) * 2
            ));
        }
        Ok(())
    }
}

/// Seconds as ffmpeg reads them: plain decimal, microseconds.
fn secs_arg(s: f64) -> String {
    let t = format!("{s:.6}");
    let t = t.trim_end_matches('0');
    t.trim_end_matches('.').to_owned()
}

/// The ffmpeg command line (without the program) that reads raw RGBA
/// pictures of `spec` on stdin (and the song, lined up with the first
/// picture) and writes an MP4 to `out`: H.264 (libx264, yuv420p, BT.709
/// tagged) and AAC, cut to the pictures' length (a longer song is cut, a
/// shorter one leaves silence; the video is never cut to the song).
pub fn ffmpeg_args(spec: &VideoSpec, out: &Path) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
    push(&["-hide_banner", "-nostats", "-loglevel", "error", "-y"]);
    let size = format!("{}x{}", spec.width, spec.height);
    let rate = spec.times.fps.to_string();
    push(&[
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgba",
        "-s",
        &size,
        "-framerate",
        &rate,
        "-i",
        "pipe:0",
    ]);
    if let Some(song) = &spec.song {
        match SongAlign::new(spec.times.first, song.offset) {
            SongAlign::Together => {}
            SongAlign::Skip(s) => push(&["-ss", &secs_arg(s)]),
            SongAlign::Delay(s) => push(&["-itsoffset", &secs_arg(s)]),
        }
        push(&["-i"]);
        a.push(song.path.as_os_str().to_owned());
    }
    let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
    push(&["-map", "0:v:0"]);
    if spec.song.is_some() {
        push(&["-map", "1:a:0"]);
    }
    push(&[
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-crf",
        "18",
        // RGB → BT.709 limited-range YUV, tagged so players convert it back
        // with the same matrix.
        "-vf",
        "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
        "-pix_fmt",
        "yuv420p",
        "-colorspace",
        "bt709",
        "-color_primaries",
        "bt709",
        "-color_trc",
        "bt709",
        "-color_range",
        "tv",
    ]);
    if spec.song.is_some() {
        push(&["-c:a", "aac", "-b:a", "192k"]);
    }
    // The length by time, not by `-frames:v`: a frame limit on the video
    // stream ends the whole file there and cuts the audio short.
    let secs = secs_arg(spec.times.seconds());
    push(&["-t", &secs, "-movflags", "+faststart", "-f", "mp4"]);
    a.push(out.as_os_str().to_owned());
    a
}

/// ffmpeg could not be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FfmpegMissing {
    /// The path the user named, if any.
    pub named: Option<PathBuf>,
}

impl std::fmt::Display for FfmpegMissing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.named {
            Some(p) => write!(f, "ffmpeg not found at {}", p.display())?,
            None => write!(f, "ffmpeg not found on PATH")?,
        }
        write!(f, ". {HOW_TO_GET_FFMPEG}")
    }
}

impl std::error::Error for FfmpegMissing {}

/// What to tell a user without ffmpeg.
pub const HOW_TO_GET_FFMPEG: &str = "Video export needs ffmpeg: on Debian/Ubuntu \
`sudo apt install ffmpeg`, on Fedora `sudo dnf install ffmpeg`, on macOS \
`brew install ffmpeg`; on Windows download a build from https://ffmpeg.org/download.html \
and name its ffmpeg.exe (--ffmpeg PATH, or the ffmpeg field of File > Export video…). \
A PNG sequence needs no ffmpeg (render … -o FOLDER).";

fn is_program(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// Looks for program `name` in the folders of `path_var` (a `PATH` value),
/// adding the platform's executable suffix (`.exe`) where it has none.
pub fn find_on_path(name: &str, path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let path_var = path_var?;
    let with_suffix = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    std::env::split_paths(path_var)
        .filter(|d| !d.as_os_str().is_empty())
        .flat_map(|d| [d.join(&with_suffix), d.join(name)])
        .find(|p| is_program(p))
}

/// The ffmpeg to run: `named` (a path, or a bare name looked up on PATH)
/// when given and not empty, else `ffmpeg` on PATH.
pub fn locate_ffmpeg(named: Option<&Path>) -> Result<PathBuf, FfmpegMissing> {
    let path_var = std::env::var_os("PATH");
    locate_ffmpeg_in(named, path_var.as_deref())
}

/// [`locate_ffmpeg`] with the `PATH` value given (tests).
pub fn locate_ffmpeg_in(
    named: Option<&Path>,
    path_var: Option<&std::ffi::OsStr>,
) -> Result<PathBuf, FfmpegMissing> {
    let named = named.filter(|p| !p.as_os_str().is_empty());
    let missing = || FfmpegMissing {
        named: named.map(Path::to_path_buf),
    };
    match named {
        Some(p) if p.components().count() > 1 || p.is_absolute() => {
            if is_program(p) {
                Ok(p.to_path_buf())
            } else {
                Err(missing())
            }
        }
        Some(p) => {
            let name = p.to_string_lossy();
            find_on_path(&name, path_var).ok_or_else(missing)
        }
        None => find_on_path("ffmpeg", path_var).ok_or_else(missing),
    }
}

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
/// so the final rename stays on one file system.
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
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".part")
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

/// "1:05 left" from `done` of `total` pictures in `elapsed`; `None` before
/// the first picture.
pub fn time_left(done: u64, total: u64, elapsed: Duration) -> Option<Duration> {
    if done == 0 || total < done {
        return None;
    }
    let per = elapsed.as_secs_f64() / done as f64;
    Some(Duration::from_secs_f64(per * (total - done) as f64))
}

/// `m:ss` (or `h:mm:ss`).
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(a: &[OsString]) -> Vec<String> {
        a.iter().map(|s| s.to_string_lossy().into_owned()).collect()
    }

    /// The value following flag `flag` (first occurrence).
    fn after(a: &[String], flag: &str) -> Option<String> {
        a.iter()
            .position(|s| s == flag)
            .and_then(|i| a.get(i + 1).cloned())
    }

    #[test]
    fn picture_times_count_every_frame_and_the_half_frames_at_60() {
        let t = PictureTimes::new(10, 14, 30).unwrap();
        assert_eq!(t.count(), 5);
        assert_eq!(t.frame(4), 14.0);
        let t = PictureTimes::new(10, 14, 60).unwrap();
        // 10, 10.5, …, 14.
        assert_eq!(t.count(), 9);
        assert_eq!(t.frame(1), 10.5);
        assert_eq!(t.frame(8), 14.0);
        assert!((t.seconds() - 9.0 / 60.0).abs() < 1e-12);
        assert!(PictureTimes::new(0, 5, 24).is_err());
        assert!(PictureTimes::new(5, 4, 30).is_err());
    }

    #[test]
    fn the_song_is_skipped_or_delayed_by_the_distance_from_its_offset() {
        // Video from scene frame 90; song starts at frame 0: 3 s already played.
        assert_eq!(SongAlign::new(90, 0), SongAlign::Skip(3.0));
        // Song starts at frame 45, video at 0: 1.5 s of silence first.
        assert_eq!(SongAlign::new(0, 45), SongAlign::Delay(1.5));
        // A negative offset (the song starts before frame 0).
        assert_eq!(SongAlign::new(0, -15), SongAlign::Skip(0.5));
        assert_eq!(SongAlign::new(30, 30), SongAlign::Together);
    }

    #[test]
    fn the_command_line_reads_rgba_on_stdin_and_writes_h264_aac_mp4() {
        let spec = VideoSpec {
            width: 320,
            height: 180,
            times: PictureTimes::new(0, 59, 30).unwrap(),
            song: Some(SongInput {
                path: "song.wav".into(),
                offset: 15,
            }),
        };
        let a = strs(&ffmpeg_args(&spec, Path::new("out.part")));
        assert_eq!(after(&a, "-f").as_deref(), Some("rawvideo"));
        assert_eq!(after(&a, "-pix_fmt").as_deref(), Some("rgba"));
        assert_eq!(after(&a, "-s").as_deref(), Some("320x180"));
        assert_eq!(after(&a, "-framerate").as_deref(), Some("30"));
        // Raw input from stdin comes first, the song second.
        let inputs: Vec<&String> = a
            .iter()
            .enumerate()
            .filter(|(i, _)| *i > 0 && a[i - 1] == "-i")
            .map(|(_, s)| s)
            .collect();
        assert_eq!(inputs, ["pipe:0", "song.wav"]);
        // Offset 15 frames, video from 0: the song starts 0.5 s in, and
        // the option sits before the song's -i (it applies to that input).
        let its = a.iter().position(|s| s == "-itsoffset").unwrap();
        assert_eq!(a[its + 1], "0.5");
        assert_eq!(a[its + 2], "-i");
        assert_eq!(a[its + 3], "song.wav");
        assert!(!a.contains(&"-ss".to_owned()));
        assert_eq!(after(&a, "-c:v").as_deref(), Some("libx264"));
        assert!(
            a.windows(2)
                .any(|w| w[0] == "-pix_fmt" && w[1] == "yuv420p")
        );
        assert_eq!(after(&a, "-c:a").as_deref(), Some("aac"));
        assert!(a.windows(2).any(|w| w == ["-map", "1:a:0"]));
        // 60 pictures at 30 fps = 2 s; never -shortest (a short song would cut the
        // video) nor -frames:v (it cuts the audio).
        assert_eq!(after(&a, "-t").as_deref(), Some("2"));
        assert!(!a.contains(&"-shortest".to_owned()));
        assert!(!a.contains(&"-frames:v".to_owned()));
        assert_eq!(a.last().map(String::as_str), Some("out.part"));
        assert_eq!(a[a.len() - 2], "mp4");

        // Video from frame 45 with the song from frame 0: skip 1.5 s.
        let spec = VideoSpec {
            times: PictureTimes::new(45, 104, 60).unwrap(),
            ..spec
        };
        let a = strs(&ffmpeg_args(&spec, Path::new("o")));
        let ss = a.iter().position(|s| s == "-ss").unwrap();
        // The song started at frame 15, 30 frames before the video: skip 1 s.
        assert_eq!(a[ss + 1], "1");
        assert_eq!(after(&a, "-framerate").as_deref(), Some("60"));
        // (104 − 45)·2 + 1 = 119 pictures at 60 fps: 119 / 60 s.
        assert_eq!(after(&a, "-t").as_deref(), Some("1.983333"));

        // No song: no audio options at all.
        let spec = VideoSpec { song: None, ..spec };
        let a = strs(&ffmpeg_args(&spec, Path::new("o")));
        assert!(!a.contains(&"-c:a".to_owned()));
        assert_eq!(a.iter().filter(|s| *s == "-i").count(), 1);
    }

    #[test]
    fn odd_sizes_are_refused_with_a_suggestion() {
        let spec = VideoSpec {
            width: 321,
            height: 180,
            times: PictureTimes::new(0, 1, 30).unwrap(),
            song: None,
        };
        let e = spec.check().unwrap_err();
        assert!(e.contains("even") && e.contains("322x180"), "{e}");
    }

    #[test]
    fn ffmpeg_is_found_on_path_or_where_named_and_missing_says_how_to_get_it() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir
            .path()
            .join(format!("ffmpeg{}", std::env::consts::EXE_SUFFIX));
        std::fs::write(&exe, b"#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let empty = tempfile::tempdir().unwrap();
        let path_var = std::env::join_paths([empty.path(), dir.path()]).unwrap();
        assert_eq!(locate_ffmpeg_in(None, Some(&path_var)).unwrap(), exe);
        assert_eq!(
            locate_ffmpeg_in(Some(&exe), None).unwrap(),
            exe,
            "a named path needs no PATH"
        );
        // An empty name means "look on PATH".
        assert_eq!(
            locate_ffmpeg_in(Some(Path::new("")), Some(&path_var)).unwrap(),
            exe
        );
        let e = locate_ffmpeg_in(None, Some(empty.path().as_os_str())).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("not found on PATH"), "{text}");
        assert!(text.contains("sudo apt install ffmpeg"), "{text}");
        assert!(text.contains("ffmpeg.org"), "{text}");
        let e =
            locate_ffmpeg_in(Some(Path::new("/nonexistent/ffmpeg")), Some(&path_var)).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/ffmpeg"), "{e}");
        #[cfg(unix)]
        {
            // A file that is not executable is not a program.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert!(locate_ffmpeg_in(None, Some(&path_var)).is_err());
        }
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

    #[test]
    fn time_left_scales_the_time_per_picture() {
        assert_eq!(time_left(0, 10, Duration::from_secs(5)), None);
        assert_eq!(
            time_left(5, 20, Duration::from_secs(10)),
            Some(Duration::from_secs(30))
        );
        assert_eq!(clock(Duration::from_secs(65)), "1:05");
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
    }
}
