//! The `ffmpeg` command line (H.264 yuv420p + AAC in MP4, raw RGBA
//! frames on stdin) and finding the `ffmpeg` program.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::plan::{SongAlign, VideoSpec};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::video::plan::{PictureTimes, SongInput};

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
}
