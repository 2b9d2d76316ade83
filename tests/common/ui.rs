//! The egui_kittest harness and waits the GUI tests share (built only with
//! the `gui` feature, so the core tests still build without it).

use std::path::PathBuf;
use std::time::Duration;

use egui::Pos2;
use egui_kittest::Harness;
use vmd_studio::app::StudioApp;

/// The whole app in a 1400×900-point window.
pub fn harness(app: StudioApp) -> Harness<'static, StudioApp> {
    harness_sized(app, 1400.0, 900.0)
}

/// The whole app in a `w`×`h`-point window, with the app's fonts
/// (kittest panics on a glyph no font has).
pub fn harness_sized(app: StudioApp, w: f32, h: f32) -> Harness<'static, StudioApp> {
    Harness::builder()
        .with_size(egui::vec2(w, h))
        .with_context_setup(vmd_studio::app::install_fonts)
        .build_ui_state(|ui, app: &mut StudioApp| app.show(ui), app)
}

/// Steps frames until `done` holds (at most 4000 frames 5 ms apart), fails
/// naming `what` if it never does, then runs 3 more frames.
pub fn settle_until(h: &mut Harness<'_, StudioApp>, what: &str, done: impl Fn(&StudioApp) -> bool) {
    for _ in 0..4000 {
        h.step();
        if done(h.state()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(done(h.state()), "{what} did not finish");
    h.run_steps(3);
}

/// Waits for every background job (loads, saves) to finish.
pub fn settle(h: &mut Harness<'_, StudioApp>) {
    settle_until(h, "background job", |app| !app.jobs.is_busy());
}

/// A primary-button drag from `from` to `to` in four moves, then a release
/// (the cursor leaves the window).
pub fn drag(h: &mut Harness<'_, StudioApp>, from: Pos2, to: Pos2) {
    h.hover_at(from);
    h.step();
    h.drag_at(from);
    h.step();
    for t in [0.25f32, 0.5, 0.75, 1.0] {
        h.hover_at(from + (to - from) * t);
        h.step();
    }
    h.drop_at(to);
    h.run_steps(2);
}

/// A fresh, empty directory for one test's files.
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-studio-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Opens every folded timeline section, as a click on its header's arrow
/// does: a camera section folds to its header when it first shows beside
/// a dance (issue 38.1); tests that work on camera keys open it.
pub fn open_folded_sections(h: &mut Harness<'_, StudioApp>) {
    h.state_mut().panels.timeline.collapsed.clear();
    h.run_steps(2);
}

/// Turns the mouse wheel over `panel` until a widget labelled `label` is
/// drawn there (the default layout gives the side panels less height than
/// their content), then lets the scroll settle.
pub fn scroll_to_label(
    h: &mut Harness<'_, StudioApp>,
    panel: vmd_studio::app::dock::Panel,
    label: &str,
) {
    use egui_kittest::kittest::Queryable;
    for _ in 0..40 {
        let Some(r) = h.state().panels.dock.rect_of(panel) else {
            panic!("{panel:?} is not drawn");
        };
        // Drawn whole inside the panel (a widget cut at its edge takes no
        // click at its centre).
        if h.query_by_label(label)
            .is_some_and(|n| r.contains_rect(n.rect()))
        {
            break;
        }
        h.hover_at(r.center());
        h.step();
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -60.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: egui::Modifiers::NONE,
        });
        h.run_steps(2);
    }
    h.run_steps(12);
}

/// The old arrangement, the timeline under the picture (View ▸ Curves
/// preset), for tests about the timeline's rows and scrolling that need it
/// short and wide.
pub fn timeline_under_the_picture(h: &mut Harness<'_, StudioApp>) {
    h.state_mut()
        .panels
        .dock
        .use_preset(vmd_studio::app::dock::Preset::Curves);
    h.run_steps(3);
}

/// A press and release of `button` at `at` (a click, or a right-click that
/// opens a context menu), one step each.
pub fn press(h: &mut Harness<'_, StudioApp>, at: Pos2, button: egui::PointerButton) {
    h.hover_at(at);
    h.step();
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    }
}

/// The whole app drawn by its model renderer on kittest's wgpu device
/// (lavapipe in CI), so the viewport fills its meshes; `None` (the test is
/// skipped, not under `CI=true`) without an adapter.
pub fn wgpu_harness(app: StudioApp, w: f32, h: f32) -> Option<Harness<'static, StudioApp>> {
    use vmd_studio::app::panels::model_view;
    if let Err(e) = vmd_studio::render::Gpu::headless() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true needs a GPU adapter (lavapipe): {e}"
        );
        eprintln!("SKIPPED: no wgpu adapter: {e}");
        return None;
    }
    let rs = egui_kittest::wgpu::create_render_state(
        egui_kittest::wgpu::default_wgpu_setup(),
        eframe::egui_wgpu::RendererOptions::PREDICTABLE,
    );
    let renderer = egui_kittest::wgpu::WgpuTestRenderer::from_render_state(rs.clone());
    Some(
        Harness::builder()
            .with_size(egui::vec2(w, h))
            .renderer(renderer)
            .with_context_setup(move |ctx| {
                vmd_studio::app::install_fonts(ctx);
                model_view::install_render_state(ctx, Some(&rs));
            })
            .build_ui_state(|ui, app: &mut StudioApp| app.show(ui), app),
    )
}

/// Clicks `button` in the scene panel and picks `file` in `dir` with the
/// built-in file browser.
pub fn pick_in_browser(
    h: &mut Harness<'_, StudioApp>,
    button: &str,
    dir: &std::path::Path,
    file: &str,
) {
    use egui_kittest::kittest::Queryable;
    scroll_to_label(h, vmd_studio::app::dock::Panel::Scene, button);
    h.get_by_label(button).click();
    h.run_steps(3);
    h.get_by_label("Folder").click();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Folder")
        .type_text(&dir.display().to_string());
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    h.get_by_label(file).click();
    h.run_steps(2);
    h.get_by_role_and_label(egui::accesskit::Role::Button, "Open")
        .click();
    settle(h);
    h.run_steps(2);
}
