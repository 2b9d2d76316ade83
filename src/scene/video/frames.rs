//! Reading a background video's frames through ffmpeg, in step with the
//! timeline, with bounded memory: one ffmpeg process streams frames from
//! where they are wanted (`-ss` seeks when the playhead jumps back or far
//! ahead), and only the last frame read is kept.
//!
//! ffmpeg decodes to 30 frames per second ([`VIDEO_READ_FPS`], its `fps`
//! filter repeating or dropping frames of other rates), scaled down to at
//! most [`MAX_SIDE`] pixels a side (aspect kept), and writes them as a
//! stream of binary PPM pictures (`-f image2pipe -c:v ppm`): each carries
//! its own size, so no `ffprobe` is needed.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::Arc;

use crate::scene::set::VIDEO_READ_FPS;

/// Largest side of a decoded frame in pixels (larger videos are scaled
/// down by ffmpeg): 1920×1080 RGBA is 8 MB.
pub const MAX_SIDE: u32 = 1920;
/// Frames read and dropped rather than seeking again, when the wanted
/// frame is a little ahead of the stream (3 s of video).
const SKIP_AHEAD: u64 = 90;

/// One decoded frame: RGBA8, rows top to bottom, opaque.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoFrame {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// The running ffmpeg and where its stream is.
struct Stream {
    child: Child,
    out: BufReader<ChildStdout>,
    /// The index of the next frame the stream yields.
    next: u64,
    /// ffmpeg's error output, collected by a thread (joined at the end of
    /// the stream, when the pipe has closed).
    errors: Option<std::thread::JoinHandle<String>>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A background video's frames, read on demand (see the module docs).
pub struct VideoFrames {
    path: PathBuf,
    ffmpeg: PathBuf,
    stream: Option<Stream>,
    /// The last frame read and its index.
    last: Option<(u64, Arc<VideoFrame>)>,
    /// Frames the video has, once a stream ran out.
    end: Option<u64>,
    /// Set after a failure was reported: the video shows nothing more.
    failed: bool,
    /// Processes started (each seek starts one): for tests and timings.
    spawned: u32,
}

impl VideoFrames {
    /// A reader of `path` through the program `ffmpeg` (see
    /// [`super::locate_ffmpeg`]). Nothing runs until a frame is asked for.
    pub fn new(path: &Path, ffmpeg: &Path) -> VideoFrames {
        VideoFrames {
            path: path.to_owned(),
            ffmpeg: ffmpeg.to_owned(),
            stream: None,
            last: None,
            end: None,
            failed: false,
            spawned: 0,
        }
    }

    /// The video file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many ffmpeg processes this reader has started.
    pub fn processes_started(&self) -> u32 {
        self.spawned
    }

    /// Video frame `index` (at 30 per second); `Ok(None)` past the end of
    /// the video (and after a failure was reported once). An error names
    /// the file and says what ffmpeg said; it is returned once.
    pub fn frame(&mut self, index: u64) -> Result<Option<Arc<VideoFrame>>, String> {
        if self.failed || self.end.is_some_and(|end| index >= end) {
            return Ok(None);
        }
        if let Some((i, f)) = &self.last
            && *i == index
        {
            return Ok(Some(f.clone()));
        }
        let usable = self
            .stream
            .as_ref()
            .is_some_and(|s| s.next <= index && index - s.next <= SKIP_AHEAD);
        if !usable {
            self.stream = None;
            self.stream = Some(self.spawn(index).inspect_err(|_| self.failed = true)?);
        }
        match self.read_up_to(index) {
            Ok(Some(f)) => {
                let f = Arc::new(f);
                self.last = Some((index, f.clone()));
                Ok(Some(f))
            }
            Ok(None) => Ok(None),
            Err(e) => {
                self.failed = true;
                self.stream = None;
                Err(e)
            }
        }
    }

    /// Starts ffmpeg streaming from frame `index`.
    fn spawn(&mut self, index: u64) -> Result<Stream, String> {
        let seconds = index as f64 / f64::from(VIDEO_READ_FPS);
        let filter = format!(
            "fps={VIDEO_READ_FPS},scale=w='min({MAX_SIDE},iw)':h='min({MAX_SIDE},ih)':\
             force_original_aspect_ratio=decrease"
        );
        let mut cmd = Command::new(&self.ffmpeg);
        cmd.args(["-hide_banner", "-nostdin", "-nostats", "-loglevel", "error"]);
        if index > 0 {
            cmd.args(["-ss", &format!("{seconds:.6}")]);
        }
        cmd.arg("-i").arg(&self.path);
        cmd.args(["-an", "-sn", "-dn", "-vf", &filter]);
        cmd.args(["-f", "image2pipe", "-c:v", "ppm", "-"]);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| {
            format!(
                "background video {}: cannot run {}: {e}",
                self.path.display(),
                self.ffmpeg.display()
            )
        })?;
        self.spawned += 1;
        let errors = child.stderr.take().map(|mut err| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = err.read_to_string(&mut text);
                text
            })
        });
        let Some(out) = child.stdout.take() else {
            return Err(format!(
                "background video {}: ffmpeg gave no output pipe",
                self.path.display()
            ));
        };
        Ok(Stream {
            child,
            out: BufReader::with_capacity(1 << 20, out),
            next: index,
            errors,
        })
    }

    /// Reads (and drops) frames until `index`, returning it; `None` when
    /// the stream ends first (the video is shorter).
    fn read_up_to(&mut self, index: u64) -> Result<Option<VideoFrame>, String> {
        let path = self.path.display().to_string();
        let Some(s) = self.stream.as_mut() else {
            return Ok(None);
        };
        loop {
            match read_ppm(&mut s.out) {
                Ok(Some(f)) => {
                    s.next += 1;
                    if s.next > index {
                        return Ok(Some(f));
                    }
                }
                Ok(None) => {
                    let started = s.next;
                    let status = s.child.wait().ok();
                    let said = (s.errors.take())
                        .and_then(|t| t.join().ok())
                        .map(|e| e.trim().to_owned())
                        .unwrap_or_default();
                    self.stream = None;
                    if status.is_some_and(|st| st.success()) || (started > 0 && said.is_empty()) {
                        self.end = Some(self.end.map_or(started, |e| e.min(started)));
                        return Ok(None);
                    }
                    let said = last_lines(&said, 3);
                    return Err(format!(
                        "background video {path}: ffmpeg could not read it{}",
                        if said.is_empty() {
                            String::new()
                        } else {
                            format!(": {said}")
                        }
                    ));
                }
                Err(e) => return Err(format!("background video {path}: {e}")),
            }
        }
    }
}

/// The last `n` lines of `text`, joined with "; ".
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("; ")
}

/// One binary PPM picture (`P6`, maxval 255) from `r` as RGBA; `None` at a
/// clean end of the stream.
pub fn read_ppm(r: &mut impl BufRead) -> Result<Option<VideoFrame>, String> {
    if r.fill_buf().map_err(|e| e.to_string())?.is_empty() {
        return Ok(None);
    }
    let magic = token(r)?;
    if magic != "P6" {
        return Err(format!("unexpected picture header {magic:?} from ffmpeg"));
    }
    let width = number(r, "width")?;
    let height = number(r, "height")?;
    let maxval = number(r, "maxval")?;
    if maxval != 255 {
        return Err(format!("unexpected PPM maxval {maxval} from ffmpeg"));
    }
    if width == 0 || height == 0 || width > 2 * MAX_SIDE || height > 2 * MAX_SIDE {
        return Err(format!(
            "unexpected frame size {width}×{height} from ffmpeg"
        ));
    }
    let pixels = (width * height) as usize;
    let mut rgb = vec![0u8; pixels * 3];
    r.read_exact(&mut rgb)
        .map_err(|e| format!("frame cut short ({e})"))?;
    let mut rgba = Vec::with_capacity(pixels * 4);
    for p in rgb.chunks_exact(3) {
        rgba.extend_from_slice(&[p[0], p[1], p[2], 255]);
    }
    Ok(Some(VideoFrame {
        width,
        height,
        rgba,
    }))
}

/// A header token: skips whitespace (and `#` comments), reads up to the
/// next whitespace byte, which it consumes (the single byte before the
/// pixels).
fn token(r: &mut impl BufRead) -> Result<String, String> {
    let mut out = Vec::new();
    let mut byte = [0u8; 1];
    let mut comment = false;
    loop {
        if r.read(&mut byte).map_err(|e| e.to_string())? == 0 {
            return Err("picture header cut short".into());
        }
        let b = byte[0];
        if comment {
            comment = b != b'\n';
            continue;
        }
        if b.is_ascii_whitespace() {
            if out.is_empty() {
                continue;
            }
            break;
        }
        if b == b'#' && out.is_empty() {
            comment = true;
            continue;
        }
        out.push(b);
        if out.len() > 16 {
            return Err("picture header token too long".into());
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn number(r: &mut impl BufRead, what: &str) -> Result<u32, String> {
    let t = token(r)?;
    t.parse()
        .map_err(|_| format!("bad PPM {what} {t:?} from ffmpeg"))
}

#[cfg(test)]
mod tests {
    use super::read_ppm;

    #[test]
    fn reads_two_ppm_pictures_then_the_end() {
        let mut bytes = b"P6\n2 1\n255\n".to_vec();
        bytes.extend_from_slice(&[255, 0, 0, 0, 0, 255]);
        bytes.extend_from_slice(b"P6 1 1 255 ");
        bytes.extend_from_slice(&[1, 2, 3]);
        let mut r = std::io::Cursor::new(bytes);
        let a = read_ppm(&mut r).unwrap().unwrap();
        assert_eq!((a.width, a.height), (2, 1));
        assert_eq!(a.rgba, vec![255, 0, 0, 255, 0, 0, 255, 255]);
        let b = read_ppm(&mut r).unwrap().unwrap();
        assert_eq!(b.rgba, vec![1, 2, 3, 255]);
        assert_eq!(read_ppm(&mut r).unwrap(), None);
    }

    #[test]
    fn a_cut_picture_or_a_huge_size_is_an_error_not_a_panic() {
        let mut r = std::io::Cursor::new(b"P6\n2 2\n255\n\x01\x02".to_vec());
        assert!(read_ppm(&mut r).unwrap_err().contains("cut short"));
        let mut r = std::io::Cursor::new(b"P6\n99999 99999\n255\n".to_vec());
        assert!(read_ppm(&mut r).unwrap_err().contains("size"));
        let mut r = std::io::Cursor::new(b"P5\n1 1\n255\n\x00".to_vec());
        assert!(read_ppm(&mut r).is_err());
    }
}
