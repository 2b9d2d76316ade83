//! What a new user tripped over, each driven as a user would with
//! egui_kittest (no display needed): the built-in file browser when the
//! system dialog cannot open, typed paths in the File menu, the undo label
//! of a drag, selecting a key moves the playhead, zoom keeps the playhead
//! and never scrolls left of frame 0, a paused playhead is a whole frame,
//! held → steps once per repeat. Run with
//! `env -u DISPLAY cargo test --test ui newuser::`.

use crate::common;
use common::corpus;
use common::ui::{harness_sized as harness, settle};

use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::command::UiCommand;
use vmd_studio::workspace::document::KeyRef;

fn click_at(h: &mut Harness<'_, StudioApp>, p: Pos2) {
    h.hover_at(p);
    h.step();
    h.drag_at(p);
    h.step();
    h.drop_at(p);
    h.run_steps(2);
}

#[test]
fn open_falls_back_to_the_built_in_browser() {
    let Some(dir) = corpus() else { return };
    let mut app = StudioApp::default();
    // As on a bare X server: no desktop portal for the system dialog.
    app.files.native_dialog = false;
    app.run_command(UiCommand::Open);
    let mut h = harness(app, 1280.0, 720.0);
    h.run_steps(3);
    // The browser says why it is there, and lists the folder typed in.
    h.get_by_label_contains("system file dialog is not available");
    let folder = h.get_by_label("Folder");
    folder.click();
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Folder")
        .type_text(&dir.display().to_string());
    h.key_press(Key::Enter);
    h.run_steps(3);
    h.get_by_label("mmdagent__mei_wait.vmd").click();
    h.run_steps(2);
    h.get_by_role_and_label(egui::accesskit::Role::Button, "Open")
        .click();
    settle(&mut h);
    let app = h.state();
    assert_eq!(app.ws.docs().len(), 1, "{:?}", app.shared.messages);
    let canon = |p: &std::path::Path| std::fs::canonicalize(p).expect("exists");
    assert_eq!(
        app.ws.docs()[0].path.as_deref().map(canon),
        Some(canon(&dir.join("mmdagent__mei_wait.vmd")))
    );
    assert!(app.files.file_browser.is_none(), "the browser closed");
}

#[test]
fn the_file_menu_path_field_keeps_the_menu_open_and_enter_opens() {
    let Some(dir) = corpus() else { return };
    let mut h = harness(StudioApp::default(), 1280.0, 720.0);
    h.run_steps(2);
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Path:").click();
    h.run_steps(2);
    // Clicking into the field did not close the menu.
    h.get_by_label("Open scene…");
    let p = dir.join("mmdagent__mei_wait.vmd");
    h.get_by_label("Path:").type_text(&p.display().to_string());
    h.run_steps(1);
    h.key_press(Key::Enter);
    settle(&mut h);
    assert_eq!(
        h.state().ws.docs().len(),
        1,
        "{:?}",
        h.state().shared.messages
    );
}

#[test]
fn selecting_a_key_moves_the_playhead_and_select_flag_too() {
    let Some(dir) = corpus() else { return };
    let mut app = StudioApp::default();
    app.open_paths(vec![dir.join("mmdagent__mei_wait.vmd")]);
    let mut h = harness(app, 1280.0, 720.0);
    settle(&mut h);
    // A key at a frame other than the playhead's (0).
    let (k, f) = {
        let d = &h.state().ws.docs()[0];
        let t = d
            .index
            .bones
            .iter()
            .find(|t| t.keys.len() > 1)
            .expect("a track");
        let k = t.keys[1];
        (k, d.motion.bones[k as usize].frame())
    };
    assert!(f > 0);
    let p = {
        let app = h.state();
        app.panels
            .timeline
            .key_pos(&app.ws.docs()[0], KeyRef::Bone(k))
            .expect("in view")
    };
    click_at(&mut h, p);
    assert_eq!(h.state().ws.docs()[0].view.active, Some(KeyRef::Bone(k)));
    assert_eq!(h.state().ws.transport().frame, f64::from(f));
    // `--select TRACK@FRAME` does the same.
    let name = h.state().ws.docs()[0].motion.bones[k as usize].name().text;
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(0.0));
    assert!(h.state_mut().select_key(&format!("{name}@{f}")));
    assert_eq!(h.state().ws.transport().frame, f64::from(f));
}

#[test]
fn zoom_keeps_the_playhead_and_never_scrolls_left_of_zero() {
    let mut h = harness(StudioApp::with_demo(), 1280.0, 720.0);
    h.run_steps(3);
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(60.0));
    h.run_steps(2);
    let x0 = h
        .state()
        .panels
        .timeline
        .layout()
        .expect("ruler")
        .x_of(60.0);
    h.get_by_label("Zoom in").click();
    h.run_steps(2);
    let l = h.state().panels.timeline.layout().expect("ruler");
    assert!(l.px_per_frame > 0.0);
    assert!((l.x_of(60.0) - x0).abs() < 0.5, "{} vs {x0}", l.x_of(60.0));
    for _ in 0..12 {
        h.get_by_label("Zoom out").click();
        h.run_steps(1);
    }
    h.run_steps(2);
    let l = h.state().panels.timeline.layout().expect("ruler");
    // Frame 0 is at most a few points right of the key area's left edge,
    // never with empty negative time before it.
    let x_zero = l.x_of(0.0);
    assert!(
        x_zero >= l.keys.left() - 0.5,
        "{x_zero} < {}",
        l.keys.left()
    );
    assert!(x_zero <= l.keys.left() + 8.5, "{x_zero}");
}

#[test]
fn pause_lands_on_a_whole_frame_and_held_right_steps_per_repeat() {
    let mut h = harness(StudioApp::with_demo(), 1280.0, 720.0);
    h.run_steps(2);
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Seek(12.6));
    h.state_mut()
        .transport(vmd_studio::workspace::TransportEvent::Play);
    h.state_mut().run_command(UiCommand::PlayPause);
    h.run_steps(1);
    let t = &h.state().ws.transport();
    assert!(!t.playing);
    assert_eq!(
        t.frame,
        t.frame.floor(),
        "whole frame after pause: {}",
        t.frame
    );
    let f0 = t.frame;
    // Three key-repeat events for → in one frame: three frames forward.
    for _ in 0..3 {
        h.event(egui::Event::Key {
            key: Key::ArrowRight,
            physical_key: None,
            pressed: true,
            repeat: true,
            modifiers: Modifiers::NONE,
        });
    }
    h.run_steps(1);
    assert_eq!(h.state().ws.transport().frame, f0 + 3.0);
}

#[test]
fn the_undo_label_names_the_whole_drag() {
    use vmd_studio::vmd::{BoneKey, Motion, NameEncoding};
    use vmd_studio::workspace::document::{Edit, EditRequest, KeyChanges};
    let mut m = Motion::new_v2();
    m.bones.push(
        BoneKey::new(
            "センター",
            NameEncoding::ShiftJis,
            0,
            [0.0; 3],
            [0.0, 0.0, 0.0, 1.0],
        )
        .expect("key"),
    );
    let mut ws = vmd_studio::workspace::Workspace::new();
    let new = vmd_studio::workspace::NewDocument::new(m, None, "t");
    let id = ws
        .apply(vmd_studio::workspace::Event::Open(Box::new(new)))
        .opened
        .expect("opened");
    let merge = vmd_studio::workspace::merge_id();
    for (f, label) in [
        (1, "→ 39,0,107,108"),
        (2, "→ 39,0,90,80"),
        (3, "→ 39,0,73,65"),
    ] {
        let mut k = ws.doc(id).expect("doc").motion.bones[0];
        k.set_frame(f);
        let e = EditRequest::merge(
            Edit::SetKeys(KeyChanges {
                bones: vec![(0, k)],
                ..Default::default()
            }),
            label,
            merge,
        );
        ws.apply(vmd_studio::workspace::Event::edit(id, e));
    }
    ws.apply(vmd_studio::workspace::Event::edit(
        id,
        EditRequest::EndMerge,
    ));
    let d = ws.doc(id).expect("doc");
    assert_eq!(d.history().len(), 1);
    assert_eq!(d.history().undo_label(), Some("→ 39,0,73,65"));
}

#[test]
fn a_toolbox_result_with_bones_the_model_lacks_says_so() {
    use vmd_studio::vmd::{BoneKey, NameEncoding};
    let app = StudioApp::with_demo();
    let dance = app.ws.scene().actors[0].motion.expect("demo dance");
    let d = app.ws.docs().iter().find(|d| d.id == dance).expect("open");
    // As a mirror onto a model without the bone would: one new track.
    let mut m = d.motion.clone();
    m.bones.push(
        BoneKey::new(
            "NoSuchBone",
            NameEncoding::ShiftJis,
            0,
            [0.0; 3],
            [0.0, 0.0, 0.0, 1.0],
        )
        .expect("key"),
    );
    let note = app
        .scene
        .names_the_model_lacks(&app.ws, dance, &m)
        .expect("a note");
    assert!(note.contains("NoSuchBone"), "{note}");
    assert!(note.contains("built-in skeleton"), "{note}");
    // The unchanged motion needs no note.
    assert_eq!(
        app.scene.names_the_model_lacks(&app.ws, dance, &d.motion),
        None
    );
}

/// Left edge of the Key panel, right edge of the preview's tile (the 3D
/// canvas ends there; the posing and shots have a tile of their own since
/// issue 38.1), whether the dope sheet's toolbar is one row, and the top
/// of the time ruler (the rows under the toolbar start there).
fn layout_edges(h: &Harness<'_, StudioApp>) -> (f32, f32, bool, f32) {
    let key = h.get_by_label("Key").rect().left();
    let posing = h
        .state()
        .panels
        .dock
        .rect_of(vmd_studio::app::dock::Panel::Viewport)
        .expect("the preview is drawn")
        .right();
    let fit = h.get_by_label("Fit all").rect();
    let clear = h.get_by_label("Clear loop").rect();
    let ruler = h.get_by_label("Drag to scrub").rect().top();
    (
        key,
        posing,
        (clear.center().y - fit.center().y).abs() < 2.0,
        ruler,
    )
}

#[test]
fn selecting_a_key_keeps_the_layout_at_1280x720() {
    layout_kept_by_selecting(1280.0, 720.0);
}

#[test]
fn selecting_a_key_keeps_the_layout_at_1400x900_and_1920x1080() {
    // 1400×900 is the size the ui_app drags run at; there the toolbar has
    // room for the selection read-out on its first row, and the read-out
    // used to wrap to a second row once a key was selected.
    layout_kept_by_selecting(1400.0, 900.0);
    layout_kept_by_selecting(1920.0, 1080.0);
}

/// Selecting a key and deselecting it move no panel edge and no dope-sheet
/// row at a `w`×`ht` window.
fn layout_kept_by_selecting(w: f32, ht: f32) {
    let mut app = StudioApp::with_demo();
    app.panels.central = vmd_studio::app::CentralView::Preview;
    let mut h = harness(app, w, ht);
    h.run_steps(4);
    let at = format!("{w}x{ht}");
    let (key0, posing0, one_row0, ruler0) = layout_edges(&h);
    // With nothing selected the read-out is shown whole (the shown text
    // of a cut label ends in "…").
    let cut = h
        .query_all(egui_kittest::kittest::By::new().predicate(|n| {
            n.value()
                .is_some_and(|v| v.starts_with("nothing sel") && v.contains('…'))
        }))
        .count();
    assert_eq!(cut, 0, "{at}: \"nothing selected\" is cut");
    // The demo dance keys 左腕 at frame 40 (examples/make_demo.rs).
    assert!(h.state_mut().select_key("左腕@40"));
    h.run_steps(4);
    assert!(h.state().ws.docs().iter().any(|d| d.view.active.is_some()));
    let (key1, posing1, one_row1, ruler1) = layout_edges(&h);
    assert_eq!(key1, key0, "{at}: the Key panel moved: {key0} → {key1}");
    // The toolbar's selection read-out ("1 selected in demo_dance.vmd") is
    // cut with a tooltip instead of wrapping to another row, so the keys
    // under the toolbar stay where the user clicked them.
    assert_eq!(
        ruler1, ruler0,
        "{at}: the dope sheet rows moved: {ruler0} → {ruler1}"
    );
    let status = h.get_by_label_contains("1 selected in ");
    assert!(
        status.rect().right() <= key0,
        "{at}: selection read-out runs under the Key panel: {:?}",
        status.rect()
    );
    assert_eq!(
        posing1, posing0,
        "{at}: the preview changed width: {posing0} → {posing1}"
    );
    // The timeline is a column beside the picture (issue 38.1): its
    // toolbar may take two rows, but selecting never changes how many.
    assert_eq!(one_row0, one_row1, "{at}: selecting rewrapped the toolbar");
    // Deselecting changes nothing either.
    let ids: Vec<u64> = h.state().ws.docs().iter().map(|d| d.id).collect();
    for doc in ids {
        let view = Default::default();
        h.state_mut()
            .apply(vmd_studio::workspace::Event::Select { doc, view });
    }
    h.run_steps(4);
    let (key2, posing2, _, ruler2) = layout_edges(&h);
    assert_eq!((key2, posing2, ruler2), (key0, posing0, ruler0), "{at}");
    // The Key panel leaves the preview most of the centre: the 3D canvas
    // (central panel minus the preview's side panel) is at least 440 wide.
    let canvas_left = h.get_by_label("VMD camera").rect().left();
    assert!(
        posing0 - canvas_left >= 440.0,
        "{at}: canvas {}",
        posing0 - canvas_left
    );
}

/// Every curve box's fields and buttons stay inside its column and the
/// four columns inside the centre (nothing runs under the Key panel, where
/// it would be cut off), at 1280×720 and 1920×1080.
#[test]
fn the_four_curve_boxes_and_their_buttons_fit_the_centre() {
    for (w, ht) in [(1280.0, 720.0), (1400.0, 900.0), (1920.0, 1080.0)] {
        let mut app = StudioApp::with_demo();
        app.panels.central = vmd_studio::app::CentralView::Curves;
        let mut h = harness(app, w, ht);
        h.run_steps(4);
        assert!(h.state_mut().select_key("左腕@40"));
        h.run_steps(4);
        let key_panel = h
            .state()
            .panels
            .dock
            .rect_of(vmd_studio::app::dock::Panel::KeyFields)
            .expect("the key panel is drawn");
        let mut rights = Vec::new();
        for label in ["Linear", "Preset", "Copy", "Paste"] {
            let found: Vec<_> = h
                .query_all_by_label(label)
                .map(|n| n.rect())
                .filter(|r| r.right() < w - 1.0 && r.top() < ht * 0.7)
                .collect();
            // A bone key has four curves: X, Y, Z move and rotation.
            assert_eq!(found.len(), 4, "{w}x{ht}: {label}: {found:?}");
            rights.extend(found.iter().map(|r| (label, *r)));
        }
        let centre = h
            .state()
            .panels
            .dock
            .rect_of(vmd_studio::app::dock::Panel::Curves)
            .expect("the curve editor is drawn");
        for (label, r) in rights {
            assert!(
                !r.intersects(key_panel) && r.right() <= centre.right() + 0.5,
                "{w}x{ht}: a {label} button {r:?} runs under the Key panel {key_panel:?} \
                 or out of the centre {centre:?}"
            );
        }
    }
}

/// A bone key with wide values (GimmeGimme's 左腕 at frame 1209: rotation
/// 69.362, 15.5727, 6.5575 degrees): the Key panel's value fields lie inside
/// the panel and none covers another (a wrapped line in the panel's grid
/// used to run under the next row), at 1280×720 and 1600×1000.
#[test]
fn the_key_panel_fields_fit_and_never_overlap() {
    let Some(dir) = corpus() else { return };
    for (w, ht) in [(1280.0, 720.0), (1600.0, 1000.0)] {
        let mut app = StudioApp::default();
        app.open_paths(vec![dir.join("webmmd__GimmeGimme_with_emotion.vmd")]);
        app.panels.central = vmd_studio::app::CentralView::Curves;
        let mut h = harness(app, w, ht);
        settle(&mut h);
        assert!(h.state_mut().select_key("左腕@1209"));
        h.run_steps(4);
        let key_left = h.get_by_label("Key").rect().left();
        let fields: Vec<egui::Rect> = h
            .query_all(egui_kittest::kittest::By::new().role(egui::accesskit::Role::SpinButton))
            .map(|n| n.rect())
            .filter(|r| r.left() >= key_left)
            .collect();
        // Frame, position x y z, rotation x y z, quaternion x y z w.
        assert!(fields.len() >= 11, "{w}x{ht}: {} fields", fields.len());
        for (a, ra) in fields.iter().enumerate() {
            assert!(
                ra.right() <= w - 4.0,
                "{w}x{ht}: a field ends at {} of {w}",
                ra.right()
            );
            for rb in &fields[a + 1..] {
                assert!(
                    !ra.shrink(1.0).intersects(rb.shrink(1.0)),
                    "{w}x{ht}: fields overlap: {ra:?} {rb:?}"
                );
            }
        }
    }
}

#[test]
fn the_selection_read_out_names_the_one_file_even_when_another_is_active() {
    // Seen driving the release build: a key selected in the dance, the
    // camera made active (an undo there does it), and the read-out said
    // "1 selected in 1 files".
    let mut h = harness(StudioApp::with_demo(), 1400.0, 900.0);
    h.run_steps(3);
    assert!(h.state_mut().select_key("左腕@40"));
    h.run_steps(3);
    let camera = h
        .state()
        .ws
        .docs()
        .iter()
        .find(|d| d.title().contains("demo_camera"))
        .map(|d| d.id)
        .expect("the demo has its camera file");
    h.state_mut()
        .apply(vmd_studio::workspace::Event::Activate(camera));
    h.run_steps(3);
    assert!(
        h.state()
            .ws
            .active()
            .is_some_and(|d| d.title().contains("demo_camera")),
        "the camera is the active file"
    );
    h.get_by_label_contains("1 selected in demo_dance.vmd");
    assert_eq!(
        h.query_all(
            egui_kittest::kittest::By::new()
                .predicate(|n| n.value().is_some_and(|v| v.contains("in 1 files")))
        )
        .count(),
        0,
        "no \"in 1 files\""
    );
}
