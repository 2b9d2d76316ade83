//! The viewport's picture with skinning on the GPU, the pictures-per-second
//! read-out and Fast preview, driven with egui_kittest. Run with
//! `env -u DISPLAY cargo test --test ui viewport_gpu::`.
//!
//! The picture test draws through the app's real path — the viewport's
//! posing, its paint callback (skinning pass, offscreen render, blit) —
//! with kittest's wgpu renderer (lavapipe here; skipped without an
//! adapter except under CI=true).

use crate::common;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use vmd_studio::app::dock::Panel;
use vmd_studio::app::panels::model_view;
use vmd_studio::app::panels::viewport::ViewMode;
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::model::physics::SimulationMode;
use vmd_studio::workspace::TransportEvent;

/// The demo in the Preview, each step 1/60 s of the frame clock.
fn demo_at_60(w: f32, h: f32) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::with_demo();
    app.panels.central = CentralView::Preview;
    let mut h = Harness::builder()
        .with_size(egui::vec2(w, h))
        .with_step_dt(1.0 / 60.0)
        .with_context_setup(vmd_studio::app::install_fonts)
        .build_ui_state(|ui, app: &mut StudioApp| app.show(ui), app);
    h.run_steps(4);
    h
}

/// The status bar's read-out, as a number of pictures per second.
fn read_out(h: &Harness<'_, StudioApp>) -> Option<f64> {
    let node = h.query_by_label_contains(" fps")?;
    // A label's text is its AccessKit value.
    let an = node.accesskit_node();
    let label = an.value().or_else(|| an.label())?;
    let number = label.strip_prefix("viewport ")?.strip_suffix(" fps")?;
    number.parse().ok()
}

#[test]
fn pictures_per_second_show_while_playing_and_not_when_stopped() {
    let mut h = demo_at_60(1280.0, 720.0);
    assert_eq!(read_out(&h), None, "no read-out before playing");
    h.state_mut().transport(TransportEvent::Play);
    // A second and a half of pictures, one per step.
    h.run_steps(90);
    assert!(h.state().ws.transport().playing);
    // One picture per step, steps 1/60 s apart on the frame clock: 60 a
    // second (the figure is refreshed every half second; every one of
    // them is 60).
    let rate = read_out(&h).expect("the read-out while playing");
    assert!((rate - 60.0).abs() < 0.5, "{rate} pictures a second");
    h.state_mut().transport(TransportEvent::Pause);
    h.run_steps(3);
    assert_eq!(read_out(&h), None, "no read-out when stopped");
    // Playing again measures afresh.
    h.state_mut().transport(TransportEvent::Play);
    h.run_steps(60);
    let again = read_out(&h).expect("the read-out while playing again");
    assert!((again - 60.0).abs() < 0.5, "{again}");
}

/// eframe's storage in memory.
#[derive(Default)]
struct Memory(std::collections::HashMap<String, String>);

impl eframe::Storage for Memory {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

#[test]
fn fast_preview_is_switched_in_the_options_and_kept_with_the_settings() {
    let mut h = demo_at_60(1400.0, 900.0);
    assert!(
        !h.state().panels.viewport.posing.fast_preview,
        "off at first"
    );
    h.get_by_label("Options").click();
    h.run_steps(2);
    h.get_by_label("Fast preview").click();
    h.run_steps(2);
    assert!(h.state().panels.viewport.posing.fast_preview, "switched on");
    // The view's read-out says so.
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    // Quit (eframe saves the settings) and start again.
    let mut storage = Memory::default();
    eframe::App::save(h.state_mut(), &mut storage);
    drop(h);
    let mut app = StudioApp::with_demo();
    assert!(!app.panels.viewport.posing.fast_preview);
    app.panels.viewport.restore(&storage);
    assert!(app.panels.viewport.posing.fast_preview, "kept");
    // Switched off again, and kept off.
    app.panels.viewport.posing.fast_preview = false;
    let mut storage = Memory::default();
    eframe::App::save(&mut app, &mut storage);
    let mut next = StudioApp::with_demo();
    next.panels.viewport.posing.fast_preview = true;
    next.panels.viewport.restore(&storage);
    assert!(!next.panels.viewport.posing.fast_preview, "kept off");
}

/// Mei wearing the wait motion in the Preview, drawn by the app's model
/// renderer on kittest's wgpu device; `None` without an adapter or the
/// corpus.
fn mei_drawn() -> Option<Harness<'static, StudioApp>> {
    let corpus = common::corpus()?;
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.panels.central = CentralView::Preview;
    app.open_paths(vec![
        corpus.join("mei/mei.pmd"),
        corpus.join("mmdagent__mei_wait.vmd"),
    ]);
    // kittest's device (it prefers a software one); none here, no test.
    let mut h = common::ui::wgpu_harness(app, 900.0, 700.0)?;
    common::ui::settle(&mut h);
    let app = h.state_mut();
    assert!(
        app.scene.loaded(&app.ws.scene().actors[0].model),
        "Mei loaded"
    );
    // A fixed free view of Mei, nothing simulated: the picture depends on
    // the pose alone.
    app.panels.viewport.posing.physics = SimulationMode::Off;
    app.panels
        .viewport
        .view
        .set_view_mode("free:5,-20,32,0,11,0");
    assert_eq!(app.panels.viewport.view.mode, ViewMode::Free);
    Some(h)
}

/// The viewport panel's pixels of a rendered window (RGBA rows).
fn viewport_pixels(h: &Harness<'_, StudioApp>, img: &image::RgbaImage) -> Vec<[u8; 4]> {
    let r = h
        .state()
        .panels
        .dock
        .rect_of(Panel::Viewport)
        .expect("the viewport is shown");
    let (x0, y0) = (r.min.x.max(0.0) as u32, r.min.y.max(0.0) as u32);
    let (x1, y1) = (
        (r.max.x as u32).min(img.width()),
        (r.max.y as u32).min(img.height()),
    );
    let mut out = Vec::new();
    for y in y0..y1 {
        for x in x0..x1 {
            out.push(img.get_pixel(x, y).0);
        }
    }
    out
}

/// (pixels differing by more than `levels` in some channel, the largest
/// difference).
fn differing(a: &[[u8; 4]], b: &[[u8; 4]], levels: u8) -> (usize, u8) {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold((0, 0), |(n, worst), (p, q)| {
        let d = p
            .iter()
            .zip(q)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        (n + usize::from(d > levels), worst.max(d))
    })
}

/// Pauses at `frame` and renders the window after a few frames: the
/// viewport panel's pixels.
fn picture_at(h: &mut Harness<'static, StudioApp>, frame: f64) -> Vec<[u8; 4]> {
    h.state_mut().transport(TransportEvent::Seek(frame));
    h.run_steps(3);
    let img = h.render().expect("the window renders");
    viewport_pixels(h, &img)
}

/// The same posed Mei through the viewport's real drawing path, skinned on
/// the GPU and on the CPU: the pictures match. Tolerance (as the offscreen
/// test of the same two paths): no channel of any pixel of the viewport
/// panel differs by more than 8 levels, except on at most 0.2 % of its
/// pixels (silhouette pixels whose MSAA coverage flips when a vertex
/// moves by its last bit). Fast preview draws a coarser picture of the
/// same scene.
#[test]
fn the_viewport_skinned_on_the_gpu_draws_the_picture_the_cpu_draws() {
    let Some(mut h) = mei_drawn() else { return };
    let gpu_a = picture_at(&mut h, 20.0);
    assert!(
        h.state().panels.viewport.posing.mesh_gpu_frame(0).is_some(),
        "skinned on the GPU (the adapter has compute shaders)"
    );
    assert!(h.state().panels.viewport.posing.mesh_vertices(0).is_none());
    let gpu = picture_at(&mut h, 150.0);
    let total = gpu.len();
    // The pose moves the picture: Mei is drawn and skinned.
    let (moved, _) = differing(&gpu_a, &gpu, 8);
    assert!(moved * 1000 > total, "only {moved} of {total} pixels moved");

    model_view::skin_on_cpu(&h.ctx, true);
    let cpu = picture_at(&mut h, 150.0);
    assert!(h.state().panels.viewport.posing.mesh_vertices(0).is_some());
    assert!(h.state().panels.viewport.posing.mesh_gpu_frame(0).is_none());
    let (off, worst) = differing(&gpu, &cpu, 8);
    eprintln!(
        "viewport GPU vs CPU skinning: {off} of {total} pixels differ by > 8 levels \
         (largest difference {worst}); the pose moved {moved} pixels"
    );
    assert!(
        off * 500 <= total,
        "{off} of {total} pixels differ by more than 8 levels"
    );

    // Back to the GPU, then Fast preview: the same scene, coarser.
    model_view::skin_on_cpu(&h.ctx, false);
    h.state_mut().panels.viewport.posing.fast_preview = true;
    let fast = picture_at(&mut h, 150.0);
    let (coarse, _) = differing(&gpu, &fast, 8);
    let (near, _) = differing(&gpu, &fast, 48);
    eprintln!("Fast preview: {coarse} pixels differ by > 8 levels, {near} by > 48");
    assert!(coarse > 0, "Fast preview draws another picture");
    assert!(near * 10 < total, "{near} of {total}: not the same scene");
}
