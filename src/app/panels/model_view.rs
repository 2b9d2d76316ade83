//! The model renderer inside the viewport: each actor's mesh, posed once
//! per frame by the viewport's shared posing ([`super::viewport::Posing`]),
//! drawn by `render::Renderer` into the view's own offscreen target during
//! egui_wgpu's prepare step, and blitted into the view by a paint callback.
//! GPU resources (pipelines, one model per actor shared by the views, one
//! target per view) live in the egui_wgpu renderer's `callback_resources`.
//!
//! Meshes are skinned on the GPU where the device can ([`Skinning`]): the
//! posing's CPU work per picture is then the pose and a packed-pose upload
//! (`model_view/gpu.rs` records the compute pass); elsewhere, and as the
//! reference, on the CPU.
//!
//! With the glow renderer (or no wgpu adapter) [`status`] says why, and the
//! viewport keeps its skeleton view.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;
use eframe::egui_wgpu;
use glam::Vec3;

use crate::model::physics::{SimulationMode, Transport};
use crate::model::{Model, PoseEngine};
use crate::render::asset::ModelAsset;
use crate::render::stage::demo_model;
use crate::render::{COLOR_FORMAT, Light, LineVertex, Shadows, ViewParams, msaa_samples};
use crate::scene::view::ViewCamera;

mod background;
mod frame;
mod gpu;

pub use super::framing::{ASPECTS, Settings, frame_rect, guides, mask_outside, notice};
pub use background::SceneBackground;
pub use frame::{ActorFrame, FrameMesh, PictureSetup, Skinning};
pub use gpu::{FAST_SCALE, FAST_SHADOW_MAP, target_size};
use gpu::{GpuResources, ModelPaint};

/// Whether the model renderer can draw, and if not, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Drawing with this adapter ("llvmpipe (Vulkan, Cpu)" …).
    Ready(String),
    /// The skeleton view only, for this reason.
    Unavailable(String),
}

fn status_id() -> egui::Id {
    egui::Id::unique("vmd-studio model renderer status")
}

/// The model renderer's status (set by [`install`]; unknown before).
pub fn status(ctx: &egui::Context) -> Status {
    ctx.data(|d| d.get_temp::<Status>(status_id()))
        .unwrap_or_else(|| {
            Status::Unavailable("the model renderer was not started (no wgpu device)".into())
        })
}

/// Sets up the GPU side at app creation: pipelines in the egui_wgpu
/// renderer's callback resources, or the reason there is none.
pub fn install(cc: &eframe::CreationContext<'_>) {
    install_render_state(&cc.egui_ctx, cc.wgpu_render_state.as_ref());
}

/// [`install`] with `ctx` and egui_wgpu's render state (`None`: the glow
/// renderer or no adapter); tests give kittest's.
pub fn install_render_state(ctx: &egui::Context, render_state: Option<&egui_wgpu::RenderState>) {
    let (status, skinning) = match render_state {
        Some(rs) => {
            let samples = msaa_samples(&rs.adapter, COLOR_FORMAT);
            let resources = GpuResources::new(&rs.device, &rs.queue, rs.target_format, samples);
            let skinning = if resources.gpu_skinning() {
                Skinning::gpu()
            } else {
                Skinning::cpu()
            };
            rs.renderer.write().callback_resources.insert(resources);
            let info = rs.adapter.get_info();
            tracing::info!(
                "model renderer on {} ({:?}), {}x MSAA, skinning on the {}",
                info.name,
                info.backend,
                samples,
                if skinning.is_gpu() { "GPU" } else { "CPU" }
            );
            let status = Status::Ready(format!("{} ({:?})", info.name, info.backend));
            (status, skinning)
        }
        None => (
            Status::Unavailable(
                "model preview off: the app runs on the glow renderer (--renderer glow or no \
                 wgpu adapter); showing skeletons"
                    .into(),
            ),
            Skinning::cpu(),
        ),
    };
    ctx.data_mut(|d| {
        d.insert_temp(status_id(), status);
        d.insert_temp(
            skinning_id(),
            SkinningSlot {
                device: skinning,
                cpu_only: false,
            },
        );
    });
}

/// Where meshes are skinned: what the device allows, unless the CPU was
/// asked for ([`skin_on_cpu`]).
#[derive(Clone, Debug, Default)]
struct SkinningSlot {
    device: Skinning,
    cpu_only: bool,
}

fn skinning_id() -> egui::Id {
    egui::Id::unique("vmd-studio model renderer skinning")
}

/// Where the viewport skins meshes now (the CPU before [`install`]).
pub fn skinning(ctx: &egui::Context) -> Skinning {
    let slot = ctx
        .data(|d| d.get_temp::<SkinningSlot>(skinning_id()))
        .unwrap_or_default();
    if slot.cpu_only {
        Skinning::cpu()
    } else {
        slot.device
    }
}

/// Skins every mesh on the CPU (`true`: the reference path, for checks
/// against the GPU's picture) or where the device allows (`false`).
pub fn skin_on_cpu(ctx: &egui::Context, cpu_only: bool) {
    ctx.data_mut(|d| {
        d.get_temp_mut_or_default::<SkinningSlot>(skinning_id())
            .cpu_only = cpu_only;
    });
}

// ------------------------------------------------------------- CPU side

/// A model the renderer draws; `id` (its asset's generation) keys its GPU
/// buffers.
pub struct ModelEntry {
    pub id: u64,
    pub asset: Arc<ModelAsset>,
}

impl std::fmt::Debug for ModelEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelEntry")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The models in use, keyed by path (an entry is made again when its
/// asset's generation changes), kept in the viewport's shared posing.
#[derive(Default)]
pub struct ModelCache {
    /// By model path (`None`: the built-in figure, the demo mannequin).
    models: HashMap<Option<PathBuf>, Result<Arc<ModelEntry>, String>>,
}

impl std::fmt::Debug for ModelCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelCache")
            .field("models", &self.models.len())
            .finish_non_exhaustive()
    }
}

impl ModelCache {
    /// The entry for a model file already loaded (`asset`), or for the
    /// built-in figure (`path` None). Nothing is read here: files load in
    /// the background; until then the actor has no entry.
    pub fn model(
        &mut self,
        path: Option<&Path>,
        asset: Option<&Arc<ModelAsset>>,
    ) -> Result<Arc<ModelEntry>, String> {
        let key = path.map(Path::to_path_buf);
        if let Some(r) = self.models.get(&key) {
            match (r, asset) {
                (Ok(e), Some(a)) if e.id == a.generation() => return r.clone(),
                (_, None) => return r.clone(),
                // The file was loaded again: a new entry.
                _ => {}
            }
        }
        let asset = match (path, asset) {
            (_, Some(a)) => Ok(Arc::clone(a)),
            (None, None) => demo_model().map(|m| Arc::new(ModelAsset::new(m))),
            (Some(p), None) => {
                // Loading (or failed): not cached, so the asset is taken
                // as soon as it arrives.
                return Err(format!("{}: loading…", p.display()));
            }
        };
        let entry = asset.map(|asset| {
            Arc::new(ModelEntry {
                id: asset.generation(),
                asset,
            })
        });
        self.models.insert(key, entry.clone());
        entry
    }
}

/// The viewport's physics for one actor and one painted frame: the mode
/// the user picked, whether the gizmo drags one of the actor's bones (the
/// actor is then posed without physics: the drag shows the animated pose
/// of every bone, and the world resets when the drag ends) and what the
/// transport does.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhysicsRun {
    pub mode: SimulationMode,
    pub dragging: bool,
    pub transport: Transport,
}

/// Switches `engine`'s physics to `run` before a pose: the user's Off drops
/// the world (the animated pose, nothing simulated); any other mode builds
/// it once (a model without rigid bodies stays without) and hands the
/// clock the transport. A temporary Off (a gizmo drag) keeps the world; the
/// clock resets it when the mode comes back.
pub fn apply_physics(engine: &mut PoseEngine, model: &Model, run: PhysicsRun) {
    if run.mode == SimulationMode::Off {
        if engine.physics().is_some() {
            engine.disable_physics();
        }
        return;
    }
    let mode = if run.dragging {
        SimulationMode::Off
    } else {
        run.mode
    };
    if engine.enable_physics(model, mode) {
        engine.set_transport(run.transport);
    }
}

/// What [`draw`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The models were drawn (the caller need not draw skeletons).
    pub drawn: bool,
    /// Some vertex of some model is inside the picture.
    pub anything_in_frame: bool,
}

/// Queues the picture of the posed `actors` into `rect` of `painter`, as
/// view number `view` (each view renders into its own target).
pub fn draw(
    ui: &egui::Ui,
    painter: &egui::Painter,
    rect: egui::Rect,
    view_number: u32,
    actors: Vec<ActorFrame>,
    setup: PictureSetup,
    layers: background::Layers,
) -> Outcome {
    let mut out = Outcome::default();
    if !matches!(status(ui.ctx()), Status::Ready(_)) {
        return out;
    }
    let view_proj = setup.view.projection * setup.view.view;
    out.anything_in_frame = actors.iter().any(|a| a.in_frame(&view_proj));
    let lines = if setup.grid { grid_lines() } else { Vec::new() };
    painter.add(egui_wgpu::Callback::new_paint_callback(
        rect,
        ModelPaint {
            rect,
            view_number,
            setup,
            actors,
            lines,
            skinning: skinning(ui.ctx()),
            layers,
        },
    ));
    out.drawn = true;
    out
}

/// The ground grid (2-unit squares, a brighter line every 10) as
/// depth-tested lines, so the model hides what is behind it.
pub fn grid_lines() -> Vec<LineVertex> {
    const HALF: i32 = 20;
    const STEP: f32 = 2.0;
    let extent = HALF as f32 * STEP;
    let minor = [0.24, 0.25, 0.27, 1.0];
    let major = [0.34, 0.36, 0.40, 1.0];
    let mut out = Vec::new();
    let mut seg = |a: [f32; 3], b: [f32; 3], c: [f32; 4]| {
        out.push(LineVertex {
            position: a,
            color: c,
        });
        out.push(LineVertex {
            position: b,
            color: c,
        });
    };
    for i in -HALF..=HALF {
        let v = i as f32 * STEP;
        let c = if i % 5 == 0 { major } else { minor };
        seg([v, 0.0, -extent], [v, 0.0, extent], c);
        seg([-extent, 0.0, v], [extent, 0.0, v], c);
    }
    for (dir, c) in [
        ([6.0, 0.0, 0.0], [0.9, 0.27, 0.27, 1.0]),
        ([0.0, 6.0, 0.0], [0.35, 0.78, 0.35, 1.0]),
        ([0.0, 0.0, 6.0], [0.31, 0.51, 0.98, 1.0]),
    ] {
        seg([0.0, 0.001, 0.0], dir, c);
    }
    out
}

// ------------------------------------------------------------- the viewport hook

/// The model view's controls for a view's Options menu: output frame,
/// guides, skeleton overlay, shadows, and why the model is not drawn when
/// it is not.
pub fn settings_ui(ui: &mut egui::Ui, s: &mut Settings) {
    ui.menu_button(format!("Frame: {}", s.label()), |ui| {
        for (i, (name, _)) in ASPECTS.iter().enumerate() {
            ui.radio_value(&mut s.aspect, i, *name);
        }
        ui.radio_value(&mut s.aspect, ASPECTS.len(), "custom");
    })
    .response
    .on_hover_text(
        "The video's shape: in the VMD-camera view, what is outside it is masked and the \
         field of view applies to its height, as in the rendered video",
    );
    if s.aspect >= ASPECTS.len() {
        ui.horizontal(|ui| {
            ui.add(
                egui::DragValue::new(&mut s.custom.0)
                    .range(16..=8192)
                    .suffix(" w"),
            );
            ui.add(
                egui::DragValue::new(&mut s.custom.1)
                    .range(16..=8192)
                    .suffix(" h"),
            );
        });
    }
    ui.checkbox(&mut s.guides, "Guides")
        .on_hover_text("Rule-of-thirds lines and 90 % / 80 % safe areas in the camera frame");
    match status(ui.ctx()) {
        Status::Ready(_) => {
            ui.checkbox(&mut s.skeleton_overlay, "Skeleton")
                .on_hover_text("Draw the bones over the rendered model");
            ui.checkbox(&mut s.ground_shadow, "Ground shadow")
                .on_hover_text("MMD's ground shadow: each model flattened onto the floor along the light, in the light's colour");
            ui.checkbox(&mut s.self_shadow, "Self-shadow")
                .on_hover_text(
                    "MMD's self-shadow from a shadow map: mode and distance from the camera's \
                 self-shadow keys (mode 1 at 8875 without any)",
                );
        }
        Status::Unavailable(why) => {
            ui.weak("skeleton view").on_hover_text(why);
        }
    }
}

/// Draws the posed meshes `actors` into `pic_rect` through `camera` at
/// scene frame `eval` with the options `look` (Fast preview when `fast`),
/// as view number `view_number`; returns what was drawn. `light` is the
/// scene's light document.
#[allow(clippy::too_many_arguments)]
pub fn draw_scene(
    ui: &egui::Ui,
    painter: &egui::Painter,
    pic_rect: egui::Rect,
    view_number: u32,
    actors: Vec<ActorFrame>,
    camera: &ViewCamera,
    light: Option<&crate::workspace::document::Document>,
    camera_motion: Option<&crate::workspace::document::Document>,
    eval: f64,
    grid: bool,
    fast: bool,
    look: &Settings,
    set_bounds: Option<(Vec3, Vec3)>,
    background: SceneBackground<'_>,
) -> Outcome {
    let aspect = pic_rect.width() / pic_rect.height().max(1.0);
    let far = set_bounds.map_or(crate::vmd::camera::DEFAULT_FAR, |(lo, hi)| {
        crate::vmd::camera::fitted_far(camera.eye(), lo, hi)
    });
    let view = ViewParams::mmd_camera_far(
        camera.target,
        camera.rotation,
        camera.distance,
        camera.fov,
        camera.perspective,
        aspect,
        far,
    );
    let light_motion = light;
    let light = light
        .and_then(|d| crate::vmd::evaluate::light_at(&d.motion, &d.index, eval))
        .map_or(Light::MMD_DEFAULT, |l| Light {
            color: l.color,
            direction: l.direction,
        });
    // The scene's background, as every export clears (one setting, so the
    // preview and the video look the same).
    let (layers, problems) = background::layers(ui.ctx(), &background, eval);
    let [r, g, b] = background.colour.map(|c| {
        if c.is_finite() {
            c.clamp(0.0, 1.0)
        } else {
            1.0
        }
    });
    let background = [r, g, b, 1.0];
    let self_shadow = if look.self_shadow {
        crate::scene::shadow::scene_self_shadow(
            camera_motion.map(|d| (&d.motion, &d.index)),
            light_motion.map(|d| (&d.motion, &d.index)),
            eval,
        )
    } else {
        crate::render::SelfShadow::OFF
    };
    let shadows = Shadows {
        ground: look.ground_shadow,
        ground_translucent: false,
        self_shadow,
    };
    let setup = PictureSetup {
        view,
        light,
        grid,
        background,
        shadows,
        fast,
    };
    let out = draw(ui, painter, pic_rect, view_number, actors, setup, layers);
    background_notices(ui, painter, pic_rect, &problems);
    out
}

/// What of the background cannot be shown, on the picture itself (bottom
/// right, one line each, up to the first parenthesis: the whole message is
/// in the log).
fn background_notices(
    ui: &egui::Ui,
    painter: &egui::Painter,
    pic_rect: egui::Rect,
    problems: &[String],
) {
    let colour = ui.visuals().error_fg_color;
    let mut corner = pic_rect.right_bottom() - egui::vec2(8.0, 8.0);
    for p in problems.iter().rev() {
        let short = p.split(" (").next().unwrap_or(p);
        let short: String = if short.chars().count() > 110 {
            short.chars().take(109).chain(['…']).collect()
        } else {
            short.to_owned()
        };
        let galley = painter.layout_no_wrap(short, egui::FontId::proportional(12.0), colour);
        let rect = egui::Align2::RIGHT_BOTTOM.anchor_size(corner, galley.size());
        painter.rect_filled(rect.expand(3.0), 3.0, egui::Color32::from_black_alpha(190));
        painter.galley(rect.min, galley, colour);
        corner.y -= rect.height() + 8.0;
    }
}

/// Camera-view dressing: the mask outside the output frame, guides, and a
/// notice when no model is in the picture.
pub fn frame_overlays(
    painter: &egui::Painter,
    view_rect: egui::Rect,
    frame: egui::Rect,
    settings: &Settings,
    outcome: &Outcome,
) {
    mask_outside(painter, view_rect, frame);
    if settings.guides {
        guides(painter, frame);
    }
    if outcome.drawn && !outcome.anything_in_frame {
        notice(
            painter,
            frame,
            frame.center(),
            "Nothing of any model is in the frame at this moment",
        );
    }
    painter.text(
        egui::pos2(frame.max.x - 6.0, frame.min.y + 4.0),
        egui::Align2::RIGHT_TOP,
        settings.label(),
        egui::FontId::monospace(11.0),
        egui::Color32::from_white_alpha(120),
    );
}
