//! File ▸ Export video…: the dialog exports the demo scene as an MP4 (a
//! job with progress), Cancel leaves no file, and without ffmpeg it says
//! how to get it and offers the PNG sequence instead.

use std::path::Path;

use egui::{Key, Modifiers};
use egui_kittest::kittest::{NodeT, Queryable};
use vmd_studio::app::StudioApp;
use vmd_studio::video::locate_ffmpeg;

use crate::common::ui::{harness, settle, settle_until, temp_dir};

/// A headless GPU for the export's renderer (lavapipe in CI), or `None`
/// with a note.
fn gpu() -> bool {
    match vmd_studio::render::Offscreen::new() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("CI=true needs a GPU adapter (mesa-vulkan-drivers): {e}");
            }
            eprintln!("SKIPPED: the export needs a GPU adapter: {e}");
            false
        }
    }
}

fn ffmpeg_present() -> bool {
    let ok = locate_ffmpeg(None).is_ok();
    if !ok {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true needs ffmpeg on PATH (apt-get install ffmpeg)");
        }
        eprintln!("SKIPPED: this test needs ffmpeg on PATH");
    }
    ok
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn open_dialog(h: &mut egui_kittest::Harness<'static, StudioApp>) {
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Export video…").click();
    h.run_steps(3);
    assert!(h.state().export_video.open);
}

/// Replaces the text of the field labelled `label`.
fn type_into(h: &mut egui_kittest::Harness<'static, StudioApp>, label: &str, text: &str) {
    h.get_by_label(label).click();
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label(label).type_text(text);
    h.run_steps(2);
}

#[test]
fn the_dialog_exports_an_mp4_and_cancel_leaves_nothing() {
    if !ffmpeg_present() || !gpu() {
        return;
    }
    let dir = temp_dir("export-video");
    let mp4 = dir.join("demo.mp4");
    let mut h = harness(StudioApp::with_demo());
    settle(&mut h);
    open_dialog(&mut h);
    // The range defaults to the whole scene (the demo's last key is past 0).
    assert!(h.state().export_video.last > 0);
    type_into(&mut h, "File:", &mp4.display().to_string());
    {
        let st = &mut h.state_mut().export_video;
        st.first = 0;
        st.last = 9;
        st.width = 64;
        st.height = 36;
    }
    h.run_steps(1);
    h.get_by_label("Export").click();
    h.run_steps(1);
    assert!(
        h.state().export_video.is_running(),
        "{:?}",
        h.state().export_video.outcome
    );
    settle_until(&mut h, "the export", |a| !a.export_video.is_running());
    let outcome = h.state().export_video.outcome.clone();
    assert!(
        matches!(&outcome, Some((t, false)) if t.contains("10 pictures")),
        "{outcome:?}"
    );
    assert_eq!(names_in(&dir), ["demo.mp4"]);
    let len = std::fs::metadata(&mp4).unwrap().len();
    assert!(len > 1000, "an MP4 of {len} bytes");

    // A long export, cancelled from the dialog once a picture is done.
    let long = dir.join("long.mp4");
    type_into(&mut h, "File:", &long.display().to_string());
    h.state_mut().export_video.last = 3000;
    h.get_by_label("Export").click();
    settle_until(&mut h, "the first pictures", |a| {
        a.export_video.progress_text().is_some_and(|(f, _)| f > 0.0)
    });
    let (_, text) = h.state().export_video.progress_text().unwrap();
    assert!(text.contains("of 3001") && text.contains("left"), "{text}");
    h.get_by_label("Cancel export").click();
    settle_until(&mut h, "the cancel", |a| !a.export_video.is_running());
    let outcome = h.state().export_video.outcome.clone();
    assert!(
        matches!(&outcome, Some((t, true)) if t.contains("cancelled")),
        "{outcome:?}"
    );
    assert_eq!(names_in(&dir), ["demo.mp4"], "no part file, no long.mp4");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_ffmpeg_the_dialog_says_how_to_get_it_and_offers_pngs() {
    let dir = temp_dir("export-no-ffmpeg");
    let mut h = harness(StudioApp::with_demo());
    settle(&mut h);
    open_dialog(&mut h);
    type_into(&mut h, "ffmpeg:", "/nonexistent/ffmpeg");
    // The message and the way out are on screen; Export is off.
    h.get_by_label_contains("sudo apt install ffmpeg");
    h.get_by_label_contains("ffmpeg.org");
    assert!(h.get_by_label("Export").accesskit_node().is_disabled());
    let frames = dir.join("frames");
    type_into(&mut h, "PNG folder:", &frames.display().to_string());
    {
        let st = &mut h.state_mut().export_video;
        st.first = 0;
        st.last = 2;
        st.width = 32;
        st.height = 18;
    }
    h.get_by_label("Export PNG sequence instead").click();
    h.run_steps(1);
    settle_until(&mut h, "the PNG export", |a| !a.export_video.is_running());
    let outcome = h.state().export_video.outcome.clone();
    if vmd_studio::render::Offscreen::new().is_err() {
        // No GPU here: the job says so instead of crashing.
        assert!(matches!(&outcome, Some((_, true))), "{outcome:?}");
        return;
    }
    assert!(
        matches!(&outcome, Some((t, false)) if t.contains("Wrote 3 pictures")),
        "{outcome:?}"
    );
    assert_eq!(names_in(&frames), ["00000.png", "00001.png", "00002.png"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The video is simulated as the preview is: Mei (`mei/mei.pmd`, 31 rigid
/// bodies) wearing `mei_wait`, exported as PNGs over frames 0..=40 with
/// Playback ▸ Physics "While playing", then "Off". Her hair hangs by its
/// bodies only when simulated, so the last picture differs between the
/// two; the same settings twice give the same bytes (deterministic).
#[test]
fn the_export_simulates_physics_as_the_preview_does() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    if !gpu() {
        return;
    }
    let dir = temp_dir("export-physics");
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.open_paths(vec![
        corpus.join("mei/mei.pmd"),
        corpus.join("mmdagent__mei_wait.vmd"),
    ]);
    let mut h = harness(app);
    settle(&mut h);
    let export = |h: &mut egui_kittest::Harness<'static, StudioApp>, tag: &str| {
        if !h.state().export_video.open {
            open_dialog(h);
        }
        type_into(h, "ffmpeg:", "/nonexistent/ffmpeg");
        let frames = dir.join(tag);
        type_into(h, "PNG folder:", &frames.display().to_string());
        {
            let st = &mut h.state_mut().export_video;
            st.first = 0;
            st.last = 40;
            st.width = 160;
            st.height = 90;
        }
        h.get_by_label("Export PNG sequence instead").click();
        h.run_steps(1);
        settle_until(h, "the PNG export", |a| !a.export_video.is_running());
        let outcome = h.state().export_video.outcome.clone();
        assert!(
            matches!(&outcome, Some((t, false)) if t.contains("Wrote 41 pictures")),
            "{outcome:?}"
        );
        let physics = h.state().export_video.physics;
        (
            physics,
            std::fs::read(frames.join("00040.png")).expect("png"),
        )
    };
    assert_ne!(
        h.state().panels.viewport.posing.physics,
        vmd_studio::model::physics::SimulationMode::Off
    );
    let (on, simulated) = export(&mut h, "on");
    let (_, again) = export(&mut h, "again");
    h.state_mut().panels.viewport.posing.physics = vmd_studio::model::physics::SimulationMode::Off;
    h.run_steps(2);
    let (off, plain) = export(&mut h, "off");
    assert!(on && !off, "the dialog follows the preview's mode");
    assert!(simulated == again, "two simulated exports, the same bytes");
    assert!(simulated != plain, "the hair is simulated in the video");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Export onto an existing file asks first: nothing is written until
/// Overwrite; Choose another name puts the next free name in the field.
#[test]
fn export_onto_an_existing_file_asks_and_offers_a_free_name() {
    if !ffmpeg_present() {
        return;
    }
    let dir = temp_dir("export-overwrite");
    let old = dir.join("take.mp4");
    std::fs::write(&old, b"an earlier video").unwrap();
    std::fs::write(dir.join("take-2.mp4"), b"another").unwrap();
    let mut h = harness(StudioApp::with_demo());
    settle(&mut h);
    open_dialog(&mut h);
    type_into(&mut h, "File:", &old.display().to_string());
    h.get_by_label("Export").click();
    h.run_steps(2);
    assert!(!h.state().export_video.is_running(), "nothing started");
    h.get_by_label_contains("exists. Replace it?");
    assert_eq!(std::fs::read(&old).unwrap(), b"an earlier video");
    h.get_by_label("Choose another name").click();
    h.run_steps(2);
    // take-2.mp4 is taken too: the first free name is take-3.mp4.
    assert_eq!(
        h.state().export_video.path,
        dir.join("take-3.mp4").display().to_string()
    );
    assert!(h.state().export_video.confirm_overwrite.is_none());
    assert!(!h.state().export_video.is_running());
    assert_eq!(
        names_in(&dir),
        ["take-2.mp4", "take.mp4"],
        "nothing written"
    );
    if gpu() {
        // Back to the old name: Overwrite starts the export; cancelled, the
        // old video is as it was.
        type_into(&mut h, "File:", &old.display().to_string());
        {
            let st = &mut h.state_mut().export_video;
            st.last = 3000;
            st.width = 32;
            st.height = 18;
        }
        h.get_by_label("Export").click();
        h.run_steps(2);
        h.get_by_label("Overwrite").click();
        h.run_steps(1);
        assert!(h.state().export_video.is_running(), "Overwrite starts it");
        settle_until(&mut h, "the first pictures", |a| {
            a.export_video.progress_text().is_some_and(|(f, _)| f > 0.0)
        });
        h.get_by_label("Cancel export").click();
        settle_until(&mut h, "the cancel", |a| !a.export_video.is_running());
        assert_eq!(std::fs::read(&old).unwrap(), b"an earlier video");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// With nothing saved yet (the demo) the file is a full path in the
/// current folder, not a bare name; Browse… opens a save dialog for MP4s
/// in that folder, and the file chosen there becomes the dialog's file.
#[test]
fn the_default_file_is_a_full_path_and_browse_sets_it() {
    let dir = temp_dir("export-browse");
    let mut h = harness(StudioApp::with_demo());
    h.state_mut().files.native_dialog = false;
    settle(&mut h);
    open_dialog(&mut h);
    let path = std::path::PathBuf::from(&h.state().export_video.path);
    assert!(path.is_absolute(), "{}", path.display());
    assert_eq!(
        path.file_name().and_then(|n| n.to_str()),
        Some("video.mp4"),
        "{}",
        path.display()
    );
    type_into(
        &mut h,
        "File:",
        &dir.join("first.mp4").display().to_string(),
    );
    h.get_by_label("Browse…").click();
    h.run_steps(4);
    let browser = h
        .state()
        .files
        .file_browser
        .as_ref()
        .expect("a save dialog");
    assert_eq!(browser.purpose, vmd_studio::app::jobs::Pick::ExportVideo);
    assert_eq!(browser.dir, dir, "it starts in the file's folder");
    type_into(&mut h, "File name", "chosen");
    h.get_by_label("Save").click();
    h.run_steps(3);
    assert!(h.state().files.file_browser.is_none(), "the browser closed");
    assert_eq!(
        h.state().export_video.path,
        dir.join("chosen.mp4").display().to_string(),
        "the extension added"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
