//! The viewport as views over one shared posing: two views drawn in one
//! frame pose each actor once (with physics, the world steps once);
//! during playback the VMD camera's view is the picture only and Escape
//! deselects; the free view's mouse follows MMD by default (right drag
//! rotates, middle drag pans) with the left-drag mapping as an option.
//! Run with `env -u DISPLAY cargo test --test ui views::`.

use crate::common::corpus;
use crate::common::ui::{harness, harness_sized, settle};

use egui::{Event, Modifiers, PointerButton, Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::panels::gizmo::Selected;
use vmd_studio::app::panels::viewport::{self, MouseMap, ViewMode};
use vmd_studio::app::scene_ops::scene_view;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::model::physics::SimulationMode;
use vmd_studio::workspace::TransportEvent;

/// What the two-view harness does each pass.
struct TwoViews {
    app: StudioApp,
    /// Draw the second view too.
    both: bool,
    /// egui passes run (the closure's calls).
    passes: u64,
}

/// `app` drawn as two views side by side (the main view and the second),
/// sharing the app's posing; each pass moves the playhead one frame
/// forward while playing, so every pass needs a new pose.
fn two_views(app: StudioApp, both: bool) -> Harness<'static, TwoViews> {
    let state = TwoViews {
        app,
        both,
        passes: 0,
    };
    egui_kittest::Harness::builder()
        .with_size(egui::vec2(1400.0, 700.0))
        .with_context_setup(vmd_studio::app::install_fonts)
        .build_ui_state(
            |ui, s: &mut TwoViews| {
                s.passes += 1;
                let app = &mut s.app;
                app.shared.transport.playing = true;
                app.shared.transport.frame = s.passes as f64;
                let scene = scene_view(&app.ws, &app.scene);
                let vp = &mut app.panels.viewport;
                ui.columns(2, |cols| {
                    let (left, right) = cols.split_at_mut(1);
                    viewport::ui(
                        &mut left[0],
                        &mut vp.posing,
                        &mut vp.view,
                        &scene,
                        &mut app.shared,
                    );
                    if s.both {
                        viewport::ui(
                            &mut right[0],
                            &mut vp.posing,
                            &mut vp.second,
                            &scene,
                            &mut app.shared,
                        );
                    }
                });
            },
            state,
        )
}

#[test]
fn two_views_pose_each_actor_once_per_frame() {
    // The demo: one actor (the built-in skeleton) wearing a dance, and a
    // camera. The main view looks through the camera, the second is free.
    let mut h = two_views(StudioApp::with_demo(), true);
    h.run_steps(12);
    let s = h.state();
    let posing = &s.app.panels.viewport.posing;
    assert!(s.passes >= 12, "{} passes", s.passes);
    assert_eq!(posing.updates(), s.passes, "brought up to date once a pass");
    // A new playhead each pass: one pose per pass for the one actor; a
    // second pose in the second view would make it 2 per pass.
    assert_eq!(
        posing.poses(),
        s.passes,
        "posed once per pass with two views"
    );
    assert_eq!(s.app.panels.viewport.view.mode, ViewMode::VmdCamera);
    assert_eq!(s.app.panels.viewport.second.mode, ViewMode::Free);
    assert_eq!(
        posing.moment().playhead,
        s.passes as f64,
        "the last pass's frame"
    );
}

#[test]
fn with_physics_the_second_view_does_not_step_the_world_again() {
    let Some(corpus) = corpus() else { return };
    // The same run drawn with one view and with two: every number the
    // world produces must be the same.
    // Mei (31 rigid bodies) wearing the wait motion, loaded by the app.
    let run = |both: bool| {
        let mut app = StudioApp::default();
        app.files.native_dialog = false;
        app.open_paths(vec![
            corpus.join("mei/mei.pmd"),
            corpus.join("mmdagent__mei_wait.vmd"),
        ]);
        let mut h = harness_sized(app, 1400.0, 900.0);
        settle(&mut h);
        let mut app = h.into_state();
        assert!(
            app.scene.loaded(&app.ws.scene().actors[0].model),
            "Mei loaded"
        );
        // A fresh posing: the loading harness posed with its own clock.
        app.panels.viewport = Default::default();
        app.panels.viewport.posing.physics = SimulationMode::Always;
        let mut h = two_views(app, both);
        h.run_steps(20);
        let s = h.into_state();
        let p = &s.app.panels.viewport.posing;
        let bones = p.posed_bones(0).expect("Mei posed").1.to_vec();
        (s.passes, p.poses(), p.physics_steps(0), bones)
    };
    let (passes1, poses1, steps1, bones1) = run(false);
    let (passes2, poses2, steps2, bones2) = run(true);
    assert_eq!(passes1, passes2);
    assert_eq!(poses1, passes1, "one pose per pass with one view");
    assert_eq!(poses2, passes2, "one pose per pass with two views");
    assert!(steps1 > 0, "the world stepped");
    assert_eq!(steps2, steps1, "the second view stepped the world again");
    assert_eq!(bones2, bones1, "the same simulated pose");
}

fn demo_in_preview() -> Harness<'static, StudioApp> {
    let mut app = StudioApp::with_demo();
    app.panels.central = CentralView::Preview;
    let mut h = harness(app);
    h.run_steps(4);
    h
}

/// Selects bone `name` of actor 0 (as a click on its joint does).
fn select(h: &mut Harness<'_, StudioApp>, name: &str) {
    let app = h.state_mut();
    let rig = app.scene.rig_for(&app.ws.scene().actors[0].model);
    let bone = rig.skeleton.find(name).expect("bone in the skeleton");
    app.panels.viewport.posing.pose.selected = Some(Selected {
        actor: 0,
        bone,
        name: name.to_owned(),
    });
    h.run_steps(2);
}

#[test]
fn playback_through_the_camera_shows_the_picture_only_and_escape_deselects() {
    let mut h = demo_in_preview();
    assert_eq!(h.state().panels.viewport.view.mode, ViewMode::VmdCamera);
    h.state_mut().transport(TransportEvent::Seek(20.0));
    select(&mut h, "左腕");
    // Stopped: the gizmo and the joints are drawn over the camera's view.
    let drawn = h.state().panels.viewport.posing.pose.drawn().cloned();
    assert!(
        drawn.as_ref().is_some_and(|d| d.gizmo.is_some()),
        "gizmo drawn while stopped"
    );
    assert!(drawn.is_some_and(|d| !d.joints.is_empty()), "joints drawn");
    assert!(
        h.state()
            .panels
            .viewport
            .posing
            .pose
            .ring_grab_point(0)
            .is_some()
    );
    // Playing through the camera: the picture only.
    h.state_mut().transport(TransportEvent::Play);
    h.run_steps(3);
    assert!(h.state().ws.transport().playing);
    let pose = &h.state().panels.viewport.posing.pose;
    assert!(
        pose.drawn().is_none(),
        "no gizmo, no joints during playback"
    );
    assert!(pose.ring_grab_point(0).is_none());
    assert!(pose.selected.is_some(), "the selection itself stays");
    // The free view keeps its gizmo during playback (it is the work view).
    h.state_mut().panels.viewport.view.mode = ViewMode::Free;
    h.run_steps(2);
    assert!(
        h.state()
            .panels
            .viewport
            .posing
            .pose
            .drawn()
            .is_some_and(|d| d.gizmo.is_some())
    );
    h.state_mut().panels.viewport.view.mode = ViewMode::VmdCamera;
    h.state_mut().transport(TransportEvent::Pause);
    h.run_steps(2);
    assert!(
        h.state().panels.viewport.posing.pose.drawn().is_some(),
        "back when stopped"
    );
    // Escape deselects.
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(h.state().panels.viewport.posing.pose.selected.is_none());
    assert!(
        h.state()
            .panels
            .viewport
            .posing
            .pose
            .drawn()
            .is_some_and(|d| d.gizmo.is_none()),
        "no gizmo without a selection"
    );
}

/// A point inside the 3D canvas: left of the shot list, below the toolbar.
fn canvas_point(h: &Harness<'_, StudioApp>) -> Pos2 {
    let shots = h.get_by_label_contains("Shots (").rect();
    let free = h.get_by_label("Free view").rect();
    let canvas = Rect::from_min_max(
        Pos2::new(free.left(), free.bottom() + 40.0),
        Pos2::new(shots.left() - 20.0, free.bottom() + 300.0),
    );
    canvas.center()
}

/// A drag with `button` from `from` to `to` in four moves.
fn drag_with(h: &mut Harness<'_, StudioApp>, button: PointerButton, from: Pos2, to: Pos2) {
    h.hover_at(from);
    h.step();
    h.event(Event::PointerButton {
        pos: from,
        button,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    h.step();
    for t in [0.25f32, 0.5, 0.75, 1.0] {
        h.hover_at(from + (to - from) * t);
        h.step();
    }
    h.event(Event::PointerButton {
        pos: to,
        button,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    h.run_steps(2);
}

#[test]
fn the_free_view_mouse_follows_mmd_by_default_and_the_old_mapping_is_an_option() {
    let mut h = demo_in_preview();
    h.get_by_label("Free view").click();
    h.run_steps(2);
    assert_eq!(h.state().panels.viewport.view.mouse, MouseMap::Mmd);
    let p = canvas_point(&h);
    let free = |h: &Harness<'_, StudioApp>| h.state().panels.viewport.view.free;
    // Right drag rotates (right → yaw decreases, down → pitch decreases).
    let before = free(&h);
    drag_with(
        &mut h,
        PointerButton::Secondary,
        p,
        p + egui::vec2(80.0, 30.0),
    );
    let after = free(&h);
    assert!(
        after.rotation[1] < before.rotation[1],
        "{before:?} → {after:?}"
    );
    assert!(
        after.rotation[0] < before.rotation[0],
        "{before:?} → {after:?}"
    );
    assert_eq!(after.target, before.target, "rotating does not pan");
    // Middle drag pans: the target moves, the angles stay.
    let before = after;
    drag_with(&mut h, PointerButton::Middle, p, p + egui::vec2(60.0, 0.0));
    let after = free(&h);
    assert_ne!(after.target, before.target, "middle drag pans");
    assert_eq!(after.rotation, before.rotation);
    // A left drag on empty space leaves the view alone (MMD).
    let before = after;
    drag_with(
        &mut h,
        PointerButton::Primary,
        p,
        p + egui::vec2(60.0, 40.0),
    );
    assert_eq!(free(&h), before, "left drag on empty space");
    // The wheel zooms (closer: a shorter distance).
    h.hover_at(p);
    h.event(Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, 120.0),
        modifiers: Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
    });
    h.run_steps(8);
    assert!(
        free(&h).distance.abs() < before.distance.abs(),
        "wheel zooms in"
    );
    // The left-drag mapping, chosen in the toolbar's Mouse menu.
    h.get_by_label("Options").click();
    h.run_steps(2);
    h.get_by_label("Mouse: MMD").click();
    h.run_steps(2);
    h.get_by_label(MouseMap::LeftOrbit.label()).click();
    h.run_steps(2);
    assert_eq!(h.state().panels.viewport.view.mouse, MouseMap::LeftOrbit);
    let before = free(&h);
    drag_with(&mut h, PointerButton::Primary, p, p + egui::vec2(80.0, 0.0));
    let after = free(&h);
    assert!(
        after.rotation[1] < before.rotation[1],
        "left drag rotates now"
    );
    let before = after;
    drag_with(
        &mut h,
        PointerButton::Secondary,
        p,
        p + egui::vec2(60.0, 0.0),
    );
    let after = free(&h);
    assert_ne!(after.target, before.target, "right drag pans now");
    assert_eq!(after.rotation, before.rotation);
}
