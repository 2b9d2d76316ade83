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
                FileKind::Model | FileKind::Scene | FileKind::Accessory
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

/// Opens the main window.
pub fn run(args: Cli) -> CliResult {
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
