//! Starting the app: the window (`run`) with its command-line roles, and
//! screenshot mode (render a few frames, capture, save, exit).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{CentralView, RECENT_KEY, StudioApp, install_fonts, panels, scene_ops, settings};
use crate::cli::{Cli, CliError, CliResult, GraphicsBackend, PanelArg};
use crate::workspace::TransportEvent;
use crate::workspace::files::FileKind;

/// Screenshot mode: render a few frames, capture, save, exit.
pub(super) struct ScreenshotPlan {
    path: PathBuf,
    frames_left: u32,
    requested: bool,
    result: Arc<Mutex<Option<Result<(), String>>>>,
}

impl ScreenshotPlan {
    /// One frame of screenshot mode: wait while `busy` (jobs running, a
    /// song loading) and a few frames more, capture, save, close.
    pub(super) fn step(&mut self, ctx: &egui::Context, busy: bool) {
        let plan = self;
        if let Some(result) = plan.result.lock().ok().and_then(|mut r| r.take()) {
            match result {
                Ok(()) => eprintln!("screenshot saved to {}", plan.path.display()),
                Err(e) => eprintln!("screenshot failed: {e}"),
            }
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if busy {
            ctx.request_repaint();
            return;
        }
        if plan.frames_left > 0 {
            plan.frames_left -= 1;
            ctx.request_repaint();
            return;
        }
        if !plan.requested {
            plan.requested = true;
            let path = plan.path.clone();
            let slot = plan.result.clone();
            let ctx2 = ctx.clone();
            ctx.request_screenshot(move |image| {
                let r = save_png(&path, &image);
                if let Ok(mut s) = slot.lock() {
                    *s = Some(r);
                }
                ctx2.request_repaint();
            });
        }
        ctx.request_repaint();
    }
}

fn save_png(path: &Path, image: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = image.size;
    let mut buf = Vec::with_capacity(w * h * 4);
    for p in &image.pixels {
        buf.extend_from_slice(&p.to_array());
    }
    let img = image::RgbaImage::from_raw(w as u32, h as u32, buf)
        .ok_or_else(|| "screenshot buffer has the wrong size".to_string())?;
    img.save(path).map_err(|e| e.to_string())
}

/// Opens the files named on the command line, each in the role of what it
/// is (in the order given: a scene file, models, motions, cameras, a song),
/// and `merge` onto the selected actor's motion. The bundled demo opens only
/// when no file is given, or only songs (which need a timeline to sit on),
/// or only accessories (the demo dancer wears them: a `.vac`'s bone is
/// looked up on the actors there when it opens).
pub fn open_command_line(app: &mut StudioApp, files: &[PathBuf], merge: &[PathBuf]) {
    let set_only =
        !files.is_empty() && files.iter().all(|p| FileKind::of(p) == FileKind::Accessory);
    if set_only {
        app.open_demo();
        app.panels.central = CentralView::Preview;
        app.open_paths(files.to_vec());
    } else if files.is_empty() {
        // First start: the demo scene, seen through its VMD camera.
        app.open_demo();
        app.panels.central = CentralView::Preview;
    } else {
        app.open_paths(files.to_vec());
        let shows_model = files.iter().any(|p| {
            matches!(
                FileKind::of(p),
                FileKind::Model | FileKind::Scene | FileKind::Project | FileKind::Accessory
            )
        });
        if shows_model {
            app.panels.central = CentralView::Preview;
        }
    }
    for p in merge {
        app.open_for(p.clone(), scene_ops::Intent::MergeInto(None));
    }
}

/// The environment variable that makes the wgpu window fail at once, as a
/// lost device or a missing adapter would (tests and CI check the fallback
/// to glow with it).
pub const FAIL_WGPU_ENV: &str = "VMD_STUDIO_TEST_WGPU_FAILS";

/// The command line to start again with when the wgpu window could not
/// open: `args` (the program's, without the program name) with any
/// `--renderer X` / `--renderer=X` replaced by `--renderer glow`. `None`
/// when they already ask for glow (nothing left to fall back to).
pub fn glow_retry_args(args: &[std::ffi::OsString]) -> Option<Vec<std::ffi::OsString>> {
    let mut out = Vec::with_capacity(args.len() + 2);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let s = a.to_string_lossy();
        if s == "--renderer" {
            let v = it.next().map(|v| v.to_string_lossy().into_owned());
            if v.as_deref() == Some("glow") {
                return None;
            }
        } else if let Some(v) = s.strip_prefix("--renderer=") {
            if v == "glow" {
                return None;
            }
        } else {
            out.push(a.clone());
        }
    }
    out.push("--renderer".into());
    out.push("glow".into());
    Some(out)
}

/// Opens the main window.
pub fn run(args: Cli) -> CliResult {
    if args.renderer == GraphicsBackend::Wgpu && std::env::var_os(FAIL_WGPU_ENV).is_some() {
        return Err(CliError(format!(
            "cannot open a window: WGPU error: no adapter (forced by {FAIL_WGPU_ENV})"
        )));
    }
    let size = args.size;
    let renderer = match args.renderer {
        GraphicsBackend::Glow => eframe::Renderer::Glow,
        GraphicsBackend::Wgpu => eframe::Renderer::Wgpu,
    };
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size(size)
            .with_min_inner_size([640.0, 400.0])
            .with_title("VMD Studio")
            .with_drag_and_drop(true),
        renderer,
        persist_window: args.screenshot.is_none(),
        // Screenshots start from a clean layout, not the user's saved one.
        persistence_path: args
            .screenshot
            .as_ref()
            .map(|_| std::env::temp_dir().join(format!("vmd-studio-shot-{}", std::process::id()))),
        ..Default::default()
    };
    let files = args.files.clone();
    let merge = args.merge.clone();
    let stages = args.stage.clone();
    let screenshot = args.screenshot.clone();
    let frame = args.frame;
    let panel = args.panel;
    let select = args.select.clone();
    let view = args.view;
    eframe::run_native(
        "VMD Studio",
        options,
        Box::new(move |cc| {
            install_fonts(&cc.egui_ctx);
            panels::model_view::install(cc);
            let mut app = StudioApp::default();
            if screenshot.is_none()
                && let Some(storage) = cc.storage
            {
                if let Some(e) = settings::load_undo_budget(storage) {
                    app.apply(e);
                }
                app.panels.viewport.restore(storage);
                app.panels.dock.restore(storage);
                if let Some(list) = eframe::get_value::<Vec<String>>(storage, RECENT_KEY) {
                    app.files.recent = list.into_iter().map(PathBuf::from).collect();
                }
            }
            open_command_line(&mut app, &files, &merge);
            for s in &stages {
                app.add_stage(s.clone());
            }
            if let Some(f) = frame {
                app.transport(TransportEvent::Seek(f.max(0.0)));
            }
            match panel {
                Some(PanelArg::Preview) => app.panels.central = CentralView::Preview,
                Some(PanelArg::Forensics) => app.panels.central = CentralView::Forensics,
                Some(PanelArg::Curves) => app.panels.central = CentralView::Curves,
                Some(PanelArg::Graph) => app.panels.central = CentralView::ValueGraph,
                Some(PanelArg::Dope) => app.panels.show_dope_sheet = true,
                None => {}
            }
            if screenshot.is_none() {
                app.start_recovery();
            }
            app.window.pending_select = select;
            if let Some(v) = view {
                app.panels.viewport.set_view_mode(&v.spec());
            }
            if let Some(path) = screenshot {
                app.window.screenshot = Some(ScreenshotPlan {
                    path,
                    frames_left: 12,
                    requested: false,
                    result: Arc::new(Mutex::new(None)),
                });
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| CliError(format!("cannot open a window: {e}")))
}

#[cfg(test)]
mod tests {
    use super::glow_retry_args;
    use std::ffi::OsString;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_glow_retry_keeps_every_argument_but_the_renderer() {
        assert_eq!(
            glow_retry_args(&args(&["dance.vmd", "--size", "1280x720"])),
            Some(args(&[
                "dance.vmd",
                "--size",
                "1280x720",
                "--renderer",
                "glow"
            ]))
        );
        assert_eq!(
            glow_retry_args(&args(&["--renderer", "wgpu", "a.pmx"])),
            Some(args(&["a.pmx", "--renderer", "glow"]))
        );
        assert_eq!(
            glow_retry_args(&args(&["--renderer=wgpu", "a.pmx"])),
            Some(args(&["a.pmx", "--renderer", "glow"]))
        );
        // Already on glow: nothing to fall back to.
        assert_eq!(glow_retry_args(&args(&["--renderer", "glow"])), None);
        assert_eq!(glow_retry_args(&args(&["x.vmd", "--renderer=glow"])), None);
    }
}
