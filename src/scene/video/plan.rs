//! The plan of a video: which pictures a frame range makes, how the song
//! lines up with the first picture, what size to encode; and the time
//! left of an export.

use std::path::PathBuf;
use std::time::Duration;

/// MMD's timeline rate: scene frames per second.
pub const MMD_FPS: f64 = 30.0;

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
/// The output frame's shape: free, or the height follows the width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aspect {
    Free,
    Wide,
    Classic,
    Square,
    Vertical,
}

impl Aspect {
    pub const ALL: [Aspect; 5] = [
        Aspect::Wide,
        Aspect::Classic,
        Aspect::Square,
        Aspect::Vertical,
        Aspect::Free,
    ];

    /// Width : height, `None` when free.
    pub fn ratio(self) -> Option<(u32, u32)> {
        match self {
            Aspect::Free => None,
            Aspect::Wide => Some((16, 9)),
            Aspect::Classic => Some((4, 3)),
            Aspect::Square => Some((1, 1)),
            Aspect::Vertical => Some((9, 16)),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Aspect::Free => "free",
            Aspect::Wide => "16:9",
            Aspect::Classic => "4:3",
            Aspect::Square => "1:1",
            Aspect::Vertical => "9:16 (vertical)",
        }
    }

    /// The height for `width` (even, as H.264 yuv420p needs), or `None`
    /// when free.
    pub fn height_for(self, width: u32) -> Option<u32> {
        let (w, h) = self.ratio()?;
        let exact = f64::from(width) * f64::from(h) / f64::from(w);
        Some(((exact / 2.0).round() as u32 * 2).max(2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn time_left_scales_the_time_per_picture() {
        assert_eq!(time_left(0, 10, Duration::from_secs(5)), None);
        assert_eq!(
            time_left(5, 20, Duration::from_secs(10)),
            Some(Duration::from_secs(30))
        );
        assert_eq!(clock(Duration::from_secs(65)), "1:05");
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
    }

    #[test]
    fn the_aspect_sets_an_even_height() {
        assert_eq!(Aspect::Wide.height_for(1920), Some(1080));
        assert_eq!(Aspect::Wide.height_for(320), Some(180));
        // 16:9 of 100 is 56.25 → 56.
        assert_eq!(Aspect::Wide.height_for(100), Some(56));
        assert_eq!(Aspect::Classic.height_for(640), Some(480));
        assert_eq!(Aspect::Vertical.height_for(1080), Some(1920));
        assert_eq!(Aspect::Free.height_for(1080), None);
    }
}
