//! The song in the app, driven as a user would with egui_kittest: a song
//! dropped onto the demo scene decodes in the background, its lane appears
//! under the timeline's ruler, dragging the lane moves the song (the
//! waveform's painted geometry moves by exactly offset × zoom), a broken
//! song changes nothing, and with no sound device the transport plays
//! silently and the status bar says why.

use crate::common;
use common::ui::harness;

use crate::audio_support;

use std::path::PathBuf;
use std::time::Duration;

use audio_support::{click_track, wav_bytes};
use egui::Pos2;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::panels::waveform::WAVE_COLOR;

/// Each call gets its own folder: tests run in parallel in one process, and
/// two of them writing the same file while a third decodes it read a torn WAV.
fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("vmd-ui-song-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A 120 BPM click track whose first click is at 0 s, so the waveform
/// starts exactly where the song does.
fn song_file() -> PathBuf {
    let (x, _) = click_track(44_100, 120.0, 0.0, 12.0);
    temp("click120.wav", &wav_bytes(44_100, 1, 16, &x))
}

/// Steps until background work (scene files, the song) is done.
fn settle(h: &mut Harness<'_, StudioApp>) {
    for _ in 0..3000 {
        h.step();
        let s = h.state();
        if !s.jobs.is_busy() && s.shared.song.loading().is_none() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        h.state().shared.song.loading().is_none(),
        "song did not load"
    );
    h.run_steps(3);
}

/// Left edge of the painted waveform: the smallest x of any vertex of a
/// mesh in the waveform's colour.
fn waveform_left(h: &Harness<'_, StudioApp>) -> Option<f32> {
    let mut left: Option<f32> = None;
    for cs in &h.output().shapes {
        if let egui::epaint::Shape::Mesh(m) = &cs.shape {
            for v in m.vertices.iter().filter(|v| v.color == WAVE_COLOR) {
                left = Some(left.map_or(v.pos.x, |l: f32| l.min(v.pos.x)));
            }
        }
    }
    left
}

#[test]
fn song_lane_appears_and_dragging_moves_the_song() {
    let mut app = StudioApp::with_demo();
    let path = song_file();
    // The same call a file drop ends in.
    app.open_paths(vec![path.clone()]);
    let mut h = harness(app);
    settle(&mut h);
    let s = h.state();
    assert!(s.shared.song.song.is_some(), "{:?}", s.shared.messages);
    let in_scene = s.ws.scene().song.clone().expect("the scene has the song");
    assert_eq!((in_scene.path, in_scene.offset), (path.clone(), 0));
    // The beat grid of the click track: 120 BPM from 0 s.
    let g = s.shared.song.grid.expect("beat grid");
    assert!((g.bpm - 120.0).abs() < 0.5, "bpm {}", g.bpm);
    // Beats on the clicks (every 0.5 s from 0), within a frame.
    let phase = g.first_beat_seconds / 0.5;
    assert!(
        (phase - phase.round()).abs() * 0.5 < 1.0 / 30.0,
        "first beat {}",
        g.first_beat_seconds
    );

    let lane = h.get_by_label("Song lane").rect();
    let l = h.state().panels.timeline.layout().expect("timeline layout");
    // The song starts at frame 0: its first click is painted at x_of(0).
    let x0 = waveform_left(&h).expect("waveform painted");
    assert!(
        (x0 - l.x_of(0.0)).abs() <= 1.0,
        "waveform at {x0}, frame 0 at {}",
        l.x_of(0.0)
    );

    // Drag the waveform 12 frames to the right.
    let ppf = l.px_per_frame;
    let from = Pos2::new(l.x_of(20.0), lane.center().y + 8.0);
    let to = from + egui::vec2(12.0 * ppf, 0.0);
    h.hover_at(from);
    h.step();
    h.drag_at(from);
    h.step();
    for t in [0.25f32, 0.5, 0.75, 1.0] {
        h.hover_at(from + (to - from) * t);
        h.step();
    }
    h.drop_at(to);
    h.run_steps(3);
    let s = h.state();
    assert_eq!(s.shared.song.offset_frames, 12);
    assert_eq!(s.ws.scene().song.as_ref().map(|s| s.offset), Some(12));
    let l = s.panels.timeline.layout().unwrap();
    let x1 = waveform_left(&h).expect("waveform painted");
    assert!(
        (x1 - l.x_of(12.0)).abs() <= 1.0,
        "after the drag the waveform starts at {x1}, frame 12 is at {}",
        l.x_of(12.0)
    );
    assert!((x1 - x0 - 12.0 * ppf).abs() <= 1.0);
}

#[test]
fn broken_song_changes_nothing() {
    let mut app = StudioApp::with_demo();
    let bad = temp(
        "broken.mp3",
        &b"ID3\x04\x00\x00\x00\x00\x00\x10not really audio".repeat(20),
    );
    app.open_paths(vec![bad]);
    let mut h = harness(app);
    settle(&mut h);
    let s = h.state();
    assert!(s.shared.song.song.is_none());
    assert!(s.ws.scene().song.is_none());
    let msg = s
        .shared
        .messages
        .iter()
        .find(|(m, _)| m.contains("Song not loaded"))
        .expect("an error message");
    assert!(msg.1 && msg.0.contains("broken.mp3"), "{msg:?}");
    assert!(h.query_by_label("Song lane").is_none());
}

#[test]
fn no_sound_device_plays_silently_and_says_why() {
    let mut app = StudioApp::with_demo();
    app.open_paths(vec![song_file()]);
    let mut h = harness(app);
    settle(&mut h);
    if let Some(device) = h.state().shared.song.device_name() {
        // A machine with a sound server (CI starts a null sink for the
        // sound tests): the song plays there, and the status bar says no
        // "No sound". The transport below runs all the same.
        eprintln!("this machine has sound ({device}): the no-sound checks do not apply");
        assert!(h.query_by_label("No sound").is_none());
    } else {
        // No sound server or device: the status bar says so (the reason
        // on hover and in the messages).
        h.get_by_label("No sound");
        assert!(
            h.state()
                .shared
                .messages
                .iter()
                .any(|(m, _)| m.starts_with("No sound: ")),
            "the reason is among the messages"
        );
    }
    let start = h.state().ws.transport().frame;
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Play);
    // Silent, the system clock moves it at once. With sound the picture
    // follows what is heard: the device's latency first (an idle null sink,
    // as in CI, may take up to 2 s to start a new stream).
    let t0 = std::time::Instant::now();
    while t0.elapsed() < Duration::from_secs(5)
        && (t0.elapsed() < Duration::from_millis(300)
            || h.state().ws.transport().frame <= start + 5.0)
    {
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    let s = h.state();
    assert!(
        s.ws.transport().frame > start + 5.0,
        "the silent transport runs: {} → {}",
        start,
        s.ws.transport().frame
    );
}

#[test]
fn a_song_dropped_on_the_empty_window_plays_under_the_demo_scene() {
    // Nothing open: the start screen.
    let mut app = StudioApp::default();
    assert!(app.ws.docs().is_empty());
    let path = song_file();
    app.open_paths(vec![path.clone()]);
    let mut h = harness(app);
    settle(&mut h);
    let s = h.state();
    // The demo scene opened (its dance and camera) and the song is in it,
    // so the lane has a timeline to sit on.
    assert_eq!(s.ws.docs().len(), 2, "demo dance and camera");
    assert_eq!(s.ws.scene().actors.len(), 1);
    assert!(s.ws.scene().camera.is_some());
    assert_eq!(
        s.ws.scene().song.as_ref().map(|s| s.path.clone()),
        Some(path)
    );
    assert!(waveform_left(&h).is_some(), "the waveform is painted");
}
