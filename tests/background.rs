//! The background's pure parts (issue 34.5): where an image lands for each
//! fit mode, which video frame a scene frame shows, and the ffmpeg frame
//! reader (when ffmpeg is there): in step, one process while playing on,
//! a new one only when the playhead jumps, nothing past the end, a broken
//! file named.

mod common;

use std::path::PathBuf;

use vmd_studio::scene::set::{BackgroundVideo, ImageFit};

#[test]
fn each_fit_mode_places_the_image_where_worked_out() {
    // 40×20 into 80×32: Fit scales by min(2, 1.6) = 1.6 → 64×32 at x 8.
    assert_eq!(
        ImageFit::Fit.placement((40, 20), (80, 32)),
        [8.0, 0.0, 72.0, 32.0]
    );
    // A tall image in a wide picture: 10×40 into 100×50 → ×1.25 → 12.5×50.
    assert_eq!(
        ImageFit::Fit.placement((10, 40), (100, 50)),
        [43.75, 0.0, 56.25, 50.0]
    );
    assert_eq!(
        ImageFit::Stretch.placement((10, 40), (100, 50)),
        [0.0, 0.0, 100.0, 50.0]
    );
    // Original: its own size, offset rounded down: (81 − 40) / 2 = 20.5 → 20.
    assert_eq!(
        ImageFit::Original.placement((40, 20), (81, 32)),
        [20.0, 6.0, 60.0, 26.0]
    );
    // Larger than the picture: centred, cropped on both sides.
    assert_eq!(
        ImageFit::Original.placement((200, 100), (100, 50)),
        [-50.0, -25.0, 150.0, 75.0]
    );
    // Nothing to place: the whole picture, never NaN.
    for fit in ImageFit::ALL {
        assert_eq!(fit.placement((0, 5), (10, 10)), [0.0, 0.0, 10.0, 10.0]);
        assert!(fit.placement((1, 1), (0, 0)).iter().all(|v| v.is_finite()));
    }
}

#[test]
fn a_scene_frame_shows_the_video_frame_at_its_time_from_the_offset() {
    let v = BackgroundVideo {
        path: PathBuf::from("v.mp4"),
        frame_offset: 10,
    };
    assert_eq!(v.video_frame(9.0), None, "before the offset");
    assert_eq!(v.video_frame(10.0), Some(0));
    assert_eq!(v.video_frame(25.0), Some(15));
    // 60 pictures a second: the half frame shows the same video frame.
    assert_eq!(v.video_frame(25.5), Some(15));
    assert_eq!(v.video_frame(f64::NAN), None);
    assert_eq!(v.video_frame(f64::INFINITY), None);
    let early = BackgroundVideo {
        frame_offset: -30,
        ..v
    };
    assert_eq!(
        early.video_frame(0.0),
        Some(30),
        "a negative offset: 1 s in"
    );
}

fn ffmpeg() -> Option<PathBuf> {
    match vmd_studio::video::locate_ffmpeg(None) {
        Ok(p) => Some(p),
        Err(e) => {
            eprintln!("SKIPPED: the video reader test needs ffmpeg: {e}");
            None
        }
    }
}

fn is_red(p: &[u8]) -> bool {
    p[0] > 230 && p[1] < 25 && p[2] < 25
}

fn is_blue(p: &[u8]) -> bool {
    p[0] < 25 && p[1] < 25 && p[2] > 230
}

#[test]
fn the_reader_plays_on_in_one_process_and_seeks_only_on_jumps() {
    use vmd_studio::video::VideoFrames;
    let Some(ffmpeg) = ffmpeg() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("rb.mp4");
    common::red_then_blue(&ffmpeg, &video, "32x18");
    let mut r = VideoFrames::new(&video, &ffmpeg);
    // Playing frames 0..=40 in order: one process.
    for i in 0..=40u64 {
        let f = r.frame(i).unwrap().expect("within the video");
        assert_eq!((f.width, f.height), (32, 18));
        assert_eq!(f.rgba.len(), 32 * 18 * 4);
        let p = &f.rgba[..4];
        if i < 28 {
            assert!(is_red(p), "frame {i} red: {p:?}");
        } else if i > 32 {
            assert!(is_blue(p), "frame {i} blue: {p:?}");
        }
    }
    assert_eq!(r.processes_started(), 1, "playing on reads one stream");
    // The same frame again: no work at all.
    r.frame(40).unwrap();
    assert_eq!(r.processes_started(), 1);
    // A jump back: one seek.
    let f = r.frame(5).unwrap().expect("frame 5");
    assert!(is_red(&f.rgba[..4]));
    assert_eq!(r.processes_started(), 2);
    // A jump far ahead: another; then past the end, nothing (and once the
    // end is known, no process to find that out again).
    let f = r.frame(50).unwrap().expect("frame 50");
    assert!(is_blue(&f.rgba[..4]));
    assert_eq!(r.processes_started(), 2, "50 is within the skip-ahead of 6");
    assert_eq!(r.frame(75).unwrap(), None, "past the 60 frames");
    let started = r.processes_started();
    assert_eq!(r.frame(90).unwrap(), None);
    assert_eq!(r.processes_started(), started, "the end is remembered");
}

#[test]
fn a_broken_video_is_named_once_and_then_shows_nothing() {
    use vmd_studio::video::VideoFrames;
    let Some(ffmpeg) = ffmpeg() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("broken clip.mp4");
    std::fs::write(&video, b"this is not a video at all").unwrap();
    let mut r = VideoFrames::new(&video, &ffmpeg);
    let e = r.frame(0).unwrap_err();
    assert!(e.contains("broken clip.mp4"), "names the file: {e}");
    assert_eq!(r.frame(1).unwrap(), None, "said once; then nothing");
}
