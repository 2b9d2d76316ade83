//! What a new user tripped over, second round (issue 38), checked as a
//! user meets it.

use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;

use crate::common::ui::{harness_sized, settle};

/// 38.10: the window grows from 1280×720 to 1920×1080 with the demo open
/// and the timeline as first fitted: the ruler is fitted again, so the
/// scene still fills it (before, it kept the old zoom and ran far past the
/// scene's end). The scene's end is the demo's last key, frame 120.
#[test]
fn the_timeline_is_fitted_again_when_the_window_grows() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    settle(&mut h);
    let end = f64::from(h.state().ws.scene_end());
    assert!(end >= 100.0, "the demo runs to frame {end}");
    let small = h.state().panels.timeline.layout().expect("ruler");
    let (_, hi) = small.visible_frames();
    // The fit shows the scene with a small margin.
    assert!(hi > end && hi < end * 1.1, "fitted at 1280: up to {hi}");
    h.set_size(egui::vec2(1920.0, 1080.0));
    h.run_steps(4);
    let big = h.state().panels.timeline.layout().expect("ruler");
    // The timeline's column grows with the window (a third of its width).
    assert!(big.ruler.width() > small.ruler.width() + 150.0);
    let (_, hi) = big.visible_frames();
    assert!(
        hi > end && hi < end * 1.1,
        "fitted again at 1920: up to {hi}"
    );
    assert!(big.px_per_frame > small.px_per_frame * 1.3);
}

/// The timeline's zoom, points per frame.
fn ruler_zoom(h: &egui_kittest::Harness<'_, StudioApp>) -> f32 {
    h.state()
        .panels
        .timeline
        .layout()
        .expect("ruler")
        .px_per_frame
}

/// A zoom the user chose is kept when the window grows.
#[test]
fn a_zoom_the_user_chose_is_kept_when_the_window_grows() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    settle(&mut h);
    h.get_by_label("Zoom in").click();
    h.run_steps(2);
    let zoom = ruler_zoom(&h);
    h.set_size(egui::vec2(1920.0, 1080.0));
    h.run_steps(4);
    let after = ruler_zoom(&h);
    assert_eq!(after, zoom);
}

/// 38.10: a key drag and a plain Ctrl+Z / Ctrl+Y each say on the status
/// line what they did (they were silent).
#[test]
fn a_key_drag_and_undo_redo_say_what_they_did() {
    let mut h = harness_sized(StudioApp::with_demo(), 1400.0, 1000.0);
    settle(&mut h);
    crate::common::ui::open_folded_sections(&mut h);
    {
        let t = &mut h.state_mut().panels.timeline;
        t.px_per_frame = 8.0;
        t.left_frame = -5.0;
    }
    h.run_steps(3);
    let (doc, index, from) = {
        let app = h.state();
        let doc = app
            .ws
            .docs()
            .iter()
            .position(|d| !d.motion.cameras.is_empty())
            .expect("the demo camera");
        let m = &app.ws.docs()[doc].motion;
        // A camera key with frame f + 3 free on its track (the move is not
        // refused), within the first 60 frames (in view).
        let k = (0..m.cameras.len())
            .find(|&i| {
                let f = m.cameras[i].frame();
                f > 0 && f < 60 && m.cameras.iter().all(|c| c.frame() != f + 3)
            })
            .expect("a camera key that can move 3 frames");
        let f = m.cameras[k].frame();
        (doc, k, f)
    };
    let key = vmd_studio::workspace::document::KeyRef::Camera(index as u32);
    let p = {
        let app = h.state();
        app.panels
            .timeline
            .key_pos(&app.ws.docs()[doc], key)
            .expect("the key in view")
    };
    // Three frames right, 8 points each.
    crate::common::ui::drag(&mut h, p, p + egui::vec2(24.0, 0.0));
    let last = |h: &egui_kittest::Harness<'_, StudioApp>| {
        h.state().shared.messages.last().map(|(t, _)| t.clone())
    };
    assert_eq!(
        h.state().ws.docs()[doc].motion.cameras[index].frame(),
        from + 3
    );
    let moved = format!("Moved 1 key to frame {}", from + 3);
    assert_eq!(last(&h), Some(moved));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(last(&h).as_deref(), Some("Undid “Move 1 key”"));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Y);
    h.run_steps(2);
    assert_eq!(last(&h).as_deref(), Some("Redid “Move 1 key”"));
}

/// 38.10: F1 ("Dope sheet": "Show the dope sheet") shows the timeline, as
/// F2–F4 show their views; it hid the timeline when pressed with it open.
#[test]
fn f1_shows_the_dope_sheet_and_never_hides_it() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    settle(&mut h);
    assert!(h.state().panels.show_dope_sheet);
    h.key_press(egui::Key::F1);
    h.run_steps(3);
    assert!(h.state().panels.show_dope_sheet, "F1 kept the timeline");
    assert!(
        h.state().panels.timeline.layout().is_some(),
        "and it is drawn"
    );
    // Closed (its tab's ×), F1 brings it back.
    h.state_mut().panels.show_dope_sheet = false;
    h.run_steps(3);
    assert!(!h.state().panels.show_dope_sheet);
    h.key_press(egui::Key::F1);
    h.run_steps(3);
    assert!(h.state().panels.show_dope_sheet, "F1 shows it again");
}

/// Opens a Tools menu entry by its label.
fn tools(h: &mut egui_kittest::Harness<'static, StudioApp>, item: &str) {
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label(item).click();
    h.run_steps(3);
}

/// 38.4: a tool dialog names the file it changes and keeps it: another
/// file becoming active (as an undo in it does) does not retarget the open
/// dialog; the file can be picked in the dialog; Bake physics opens on the
/// motion the selected actor wears even when the camera file is active.
#[test]
fn a_tool_dialog_keeps_its_file_when_another_becomes_active() {
    use vmd_studio::workspace::Event;
    let mut h = harness_sized(StudioApp::with_demo(), 1400.0, 900.0);
    settle(&mut h);
    let id_of = |h: &egui_kittest::Harness<'static, StudioApp>, camera: bool| {
        h.state()
            .ws
            .docs()
            .iter()
            .find(|d| d.motion.cameras.is_empty() != camera)
            .map(|d| d.id)
            .expect("the demo's dance and camera")
    };
    let (dance, camera) = (id_of(&h, false), id_of(&h, true));
    h.state_mut().apply(Event::Activate(dance));
    h.run_steps(2);
    tools(&mut h, "Mirror left/right…");
    assert_eq!(h.state().panels.toolbox.target, Some(dance));
    // The camera file becomes active (an undo of a camera edit does this).
    h.state_mut().apply(Event::Activate(camera));
    h.run_steps(3);
    assert_eq!(
        h.state().panels.toolbox.target,
        Some(dance),
        "still the dance"
    );
    let cam_before = vmd_studio::vmd::write(&h.state().ws.doc(camera).unwrap().motion).unwrap();
    let dance_before = h.state().ws.doc(dance).unwrap().revision;
    h.get_by_label("Mirror the motion").click();
    crate::common::ui::settle_until(&mut h, "the mirror", |a| {
        a.ws.doc(dance).is_some_and(|d| d.revision != dance_before)
    });
    assert_eq!(
        vmd_studio::vmd::write(&h.state().ws.doc(camera).unwrap().motion).unwrap(),
        cam_before,
        "the camera was not touched"
    );
    // Picked in the dialog: the camera file.
    h.get_by_label("File:").click();
    h.run_steps(2);
    // The popup's entry (the tab bar and the scene panel name it too).
    h.get_all_by_label("demo_camera.vmd")
        .last()
        .expect("the popup's entry")
        .click();
    h.run_steps(2);
    assert_eq!(h.state().panels.toolbox.target, Some(camera));
    // Bake physics opens on the selected actor's motion, the camera active.
    h.state_mut().apply(Event::Activate(camera));
    tools(&mut h, "Bake physics…");
    assert_eq!(h.state().panels.toolbox.target, Some(dance));
}

/// 38.10: the Export dialog's frame fields take typing after any click,
/// one where the hand moves a few pixels included (a DragValue took that
/// as a drag: the number changed and typing went nowhere).
#[test]
fn a_click_that_moves_a_little_lets_the_export_frames_be_typed() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    settle(&mut h);
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Export video…").click();
    h.run_steps(3);
    for (label, typed, want) in [
        ("First frame", "12", 12),
        ("Last frame (inclusive)", "57", 57),
    ] {
        let at = h.get_by_label(label).rect().center();
        // Pressed, moved 4 px while held, released: a shaky click.
        crate::common::ui::drag(&mut h, at, at + egui::vec2(4.0, 1.0));
        h.run_steps(1);
        for c in typed.chars() {
            h.input_mut().events.push(egui::Event::Text(c.to_string()));
            h.run_steps(1);
        }
        h.key_press(egui::Key::Enter);
        h.run_steps(2);
        let st = &h.state().export_video;
        let got = if label == "First frame" {
            st.first
        } else {
            st.last
        };
        assert_eq!(got, want, "{label}");
    }
}

/// Issue 38.1: at 1280×720 the demo opens with its camera section folded
/// to its header, so the dance's bone rows start in the timeline's view
/// (the camera's rows pushed them below the fold); opened by hand it
/// stays open.
#[test]
fn the_camera_folds_beside_a_dance_so_its_rows_show() {
    let mut h = harness_sized(StudioApp::with_demo(), 1280.0, 720.0);
    settle(&mut h);
    h.run_steps(3);
    let (camera, dance) = {
        let s = h.state().ws.scene();
        (
            s.camera.expect("demo camera"),
            s.actors[0].motion.expect("demo dance"),
        )
    };
    assert!(h.state().panels.timeline.collapsed.contains(&camera));
    assert!(!h.state().panels.timeline.collapsed.contains(&dance));
    // センター, the dance's first bone track, has a key in view (the
    // camera's header, group and row, 62 points, pushed it below).
    let in_view = |h: &egui_kittest::Harness<'static, StudioApp>| {
        let app = h.state();
        let d = app.ws.doc(dance).expect("open");
        let k = d
            .motion
            .bones
            .iter()
            .position(|k| k.name().text == "センター")
            .expect("the demo keys センター");
        app.panels
            .timeline
            .key_pos(d, vmd_studio::workspace::document::KeyRef::Bone(k as u32))
            .is_some()
    };
    assert!(in_view(&h), "the dance's センター row is in view");
    h.state_mut().panels.timeline.collapsed.remove(&camera);
    h.run_steps(3);
    assert!(
        !h.state().panels.timeline.collapsed.contains(&camera),
        "opened by hand, it stays open"
    );
}

/// Issue 38.1: a model, a dance, a camera and a song opened at 1280×720
/// and at 1920×1080. The default layout shows the picture through the
/// camera on at least 40 % of the window (the 16:9 picture drawn, not its
/// tile) and at least 8 of the dance's bone rows in the timeline, with the
/// shots list and posing controls in a tile of their own (the picture has
/// no column taken out of it).
#[test]
fn the_default_layout_shows_a_big_picture_and_the_dance_rows() {
    use std::collections::BTreeSet;
    use vmd_studio::app::dock::Panel;
    use vmd_studio::workspace::document::KeyRef;
    let Some(c) = crate::common::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let song = tmp.path().join("song.wav");
    let samples: Vec<f32> = (0..44_100 * 4)
        .map(|i| (i as f32 * 0.01).sin() * 0.3)
        .collect();
    std::fs::write(
        &song,
        crate::audio_support::wav_bytes(44_100, 1, 16, &samples),
    )
    .unwrap();
    for (w, ht) in [(1280.0, 720.0), (1920.0, 1080.0)] {
        // As `vmd-studio MODEL DANCE CAMERA SONG` opens them.
        let mut app = StudioApp::default();
        vmd_studio::app::open_command_line(
            &mut app,
            &[
                c.join("mei/mei.pmd"),
                c.join("webmmd__GimmeGimme_with_emotion.vmd"),
                c.join("webmmd__GimmexGimme.vmd"),
                song.clone(),
            ],
            &[],
        );
        let mut h = harness_sized(app, w, ht);
        settle(&mut h);
        h.run_steps(4);
        let app = h.state();
        let scene = app.ws.scene();
        assert!(
            scene.song.is_some() && scene.camera.is_some(),
            "{:?}",
            app.shared.messages
        );
        let dance = app
            .ws
            .doc(scene.actors[0].motion.expect("worn"))
            .expect("open");
        // The picture: what the view drew through the camera.
        let drawn = app
            .panels
            .viewport
            .posing
            .pose
            .drawn_in(0)
            .expect("the view drew");
        let size = drawn.screen.size;
        assert!(
            (size.x / size.y - 16.0 / 9.0).abs() < 0.02,
            "the camera's 16:9 picture: {size:?}"
        );
        let share = size.x * size.y / (w * ht);
        assert!(
            share >= 0.40,
            "{w}×{ht}: the picture is {:.1} %",
            share * 100.0
        );
        // The dance's rows: bone tracks with a key drawn in view.
        let shown: BTreeSet<String> = dance
            .motion
            .bones
            .iter()
            .enumerate()
            .filter(|(k, _)| {
                app.panels
                    .timeline
                    .key_pos(dance, KeyRef::Bone(*k as u32))
                    .is_some()
            })
            .map(|(_, key)| key.name().text.clone())
            .collect();
        assert!(
            shown.len() >= 8,
            "{w}×{ht}: {} bone rows in view: {shown:?}",
            shown.len()
        );
        assert!(app.panels.dock.is_open(Panel::Shots));
        assert!(
            !app.panels.viewport.view.side_panel,
            "no column in the picture"
        );
    }
}
