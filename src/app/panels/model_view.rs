//! The model renderer inside the viewport: each actor's mesh, posed once
//! per frame by the viewport's shared posing ([`super::viewport::Posing`]),
//! drawn by `render::Renderer` into the view's own offscreen target during
//! egui_wgpu's prepare step, and blitted into the view by a paint callback.
//! GPU resources (pipelines, one model per actor shared by the views, one
//! target per view) live in the egui_wgpu renderer's `callback_resources`.
//!
//! With the glow renderer (or no wgpu adapter) [`status`] says why, and the
//! viewport keeps its skeleton view.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;
use eframe::egui_wgpu::{self, wgpu};
use glam::{Mat4, Vec3, Vec4};

use crate::model::physics::{SimulationMode, Transport};
use crate::model::{Model, PoseEngine};
use crate::render::asset::ModelAsset;
use crate::render::stage::demo_model;
use crate::render::{
    COLOR_FORMAT, FrameParams, GpuModel, Light, LineVertex, MeshTemplate, OffscreenTarget,
    RenderMaterial, RenderVertex, Renderer, Shadows, ViewParams, msaa_samples,
};
use crate::scene::view::ViewCamera;

pub use super::framing::{ASPECTS, Settings, frame_rect, guides, mask_outside, notice};

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
    let status = match &cc.wgpu_render_state {
        Some(rs) => {
            let samples = msaa_samples(&rs.adapter, COLOR_FORMAT);
            let resources = GpuResources::new(&rs.device, &rs.queue, rs.target_format, samples);
            rs.renderer.write().callback_resources.insert(resources);
            let info = rs.adapter.get_info();
            Status::Ready(format!("{} ({:?})", info.name, info.backend))
        }
        None => Status::Unavailable(
            "model preview off: the app runs on the glow renderer (--renderer glow or no wgpu \
             adapter); showing skeletons"
                .into(),
        ),
    };
    cc.egui_ctx.data_mut(|d| d.insert_temp(status_id(), status));
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

/// One actor's posed mesh for the GPU: the posing's buffers, shared by
/// every view that draws them (reference counts, no copies).
#[derive(Clone)]
pub struct ActorFrame {
    /// (actor index, model generation): keys the GPU model.
    pub key: (usize, u64),
    /// Bumped by the posing when the buffers change: a generation is
    /// uploaded once, whatever the number of views.
    pub generation: u64,
    pub template: Arc<MeshTemplate>,
    pub vertices: Arc<Vec<RenderVertex>>,
    pub materials: Arc<Vec<RenderMaterial>>,
}

/// How the picture is taken: camera, light, ground grid, background.
#[derive(Clone, Copy, Debug)]
pub struct PictureSetup {
    /// View and projection; the projection's aspect must match the rect's.
    pub view: ViewParams,
    pub light: Light,
    /// Draw the ground grid and axes (depth-tested, so the model hides them).
    pub grid: bool,
    /// RGBA 0..1.
    pub background: [f32; 4],
    /// MMD's ground shadow and self-shadow.
    pub shadows: Shadows,
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
) -> Outcome {
    let PictureSetup {
        view,
        light,
        grid,
        background,
        shadows,
    } = setup;
    let mut out = Outcome::default();
    if !matches!(status(ui.ctx()), Status::Ready(_)) {
        return out;
    }
    let view_proj = view.projection * view.view;
    out.anything_in_frame = actors.iter().any(|a| any_in_frame(&a.vertices, &view_proj));
    let lines = if grid { grid_lines() } else { Vec::new() };
    painter.add(egui_wgpu::Callback::new_paint_callback(
        rect,
        ModelPaint {
            rect,
            view_number,
            view,
            light,
            shadows,
            background,
            actors,
            lines,
        },
    ));
    out.drawn = true;
    out
}

/// Whether any vertex (every 7th, for speed) lands inside the picture.
fn any_in_frame(vertices: &[RenderVertex], view_proj: &Mat4) -> bool {
    vertices.iter().step_by(7).any(|v| {
        let c: Vec4 = *view_proj * Vec3::from(v.position).extend(1.0);
        c.w > 1e-4 && c.x.abs() <= c.w && c.y.abs() <= c.w && c.z >= 0.0 && c.z <= c.w
    })
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

// ------------------------------------------------------------- GPU side

/// One view's offscreen picture and the bind group that blits it.
struct ViewTarget {
    target: OffscreenTarget,
    blit_bind: wgpu::BindGroup,
}

/// Pipelines, the actors' GPU models (shared by the views) and each
/// view's target, in egui_wgpu's callback resources.
struct GpuResources {
    renderer: Renderer,
    /// By view number.
    targets: HashMap<u32, ViewTarget>,
    /// By (actor, model generation), with the pose generation uploaded.
    models: HashMap<(usize, u64), (GpuModel, Option<u64>)>,
    /// Models whose upload or update failed, logged once each (the paint
    /// callback has no status bar; a mesh that does not fit is a bug).
    warned: std::collections::HashSet<(usize, u64)>,
    blit_pipeline: wgpu::RenderPipeline,
    blit_layout: wgpu::BindGroupLayout,
    blit_sampler: wgpu::Sampler,
}

const BLIT_WGSL: &str = r#"
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
struct Out { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> };
@vertex fn vs(@builtin(vertex_index) i: u32) -> Out {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    var o: Out;
    o.pos = vec4<f32>(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 0.0, 1.0);
    o.uv = uv;
    return o;
}
// The picture holds gamma-space colours, as egui's usual (non-sRGB) framebuffer.
@fragment fn fs_gamma(i: Out) -> @location(0) vec4<f32> {
    return textureSample(t, s, i.uv);
}
// An sRGB framebuffer re-encodes what we write: hand it linear values.
@fragment fn fs_linear(i: Out) -> @location(0) vec4<f32> {
    let c = textureSample(t, s, i.uv);
    let lo = c.rgb / 12.92;
    let hi = pow((c.rgb + 0.055) / 1.055, vec3<f32>(2.4));
    return vec4<f32>(select(hi, lo, c.rgb <= vec3<f32>(0.04045)), c.a);
}
"#;

impl GpuResources {
    fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        egui_format: wgpu::TextureFormat,
        samples: u32,
    ) -> GpuResources {
        let renderer = Renderer::new(device, queue, COLOR_FORMAT, samples);
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("model view blit"),
            source: wgpu::ShaderSource::Wgsl(BLIT_WGSL.into()),
        });
        let blit_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("model view blit"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("model view blit"),
            bind_group_layouts: &[Some(&blit_layout)],
            immediate_size: 0,
        });
        let blit_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("model view blit"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs"),
                buffers: &[],
                compilation_options: Default::default(),
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            // eframe's egui pass is single-sampled unless `multisampling` is set (it is not).
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some(if egui_format.is_srgb() {
                    "fs_linear"
                } else {
                    "fs_gamma"
                }),
                targets: &[Some(wgpu::ColorTargetState {
                    format: egui_format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
                compilation_options: Default::default(),
            }),
            multiview_mask: None,
            cache: None,
        });
        let blit_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("model view blit"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        GpuResources {
            renderer,
            targets: HashMap::new(),
            models: HashMap::new(),
            warned: Default::default(),
            blit_pipeline,
            blit_layout,
            blit_sampler,
        }
    }

    /// View `view`'s target at `w`×`h` pixels (made again on a resize).
    fn ensure_target(&mut self, device: &wgpu::Device, view: u32, w: u32, h: u32) -> bool {
        if self
            .targets
            .get(&view)
            .is_some_and(|t| t.target.width() == w && t.target.height() == h)
        {
            return true;
        }
        let Ok(target) = OffscreenTarget::new(&self.renderer, device, w, h) else {
            self.targets.remove(&view);
            return false;
        };
        let tv = target.color_texture().create_view(&Default::default());
        let blit_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("model view blit"),
            layout: &self.blit_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&tv),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.blit_sampler),
                },
            ],
        });
        self.targets.insert(view, ViewTarget { target, blit_bind });
        true
    }
}

/// The paint callback: uploads the posed actors and renders them in
/// `prepare`, then copies the picture into the viewport in `paint`.
struct ModelPaint {
    rect: egui::Rect,
    view_number: u32,
    view: ViewParams,
    light: Light,
    shadows: Shadows,
    background: [f32; 4],
    actors: Vec<ActorFrame>,
    lines: Vec<LineVertex>,
}

impl egui_wgpu::CallbackTrait for ModelPaint {
    fn prepare(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        screen: &egui_wgpu::ScreenDescriptor,
        encoder: &mut wgpu::CommandEncoder,
        resources: &mut egui_wgpu::CallbackResources,
    ) -> Vec<wgpu::CommandBuffer> {
        let Some(res) = resources.get_mut::<GpuResources>() else {
            return Vec::new();
        };
        let ppp = screen.pixels_per_point;
        let w = (self.rect.width() * ppp).round().max(1.0) as u32;
        let h = (self.rect.height() * ppp).round().max(1.0) as u32;
        if !res.ensure_target(device, self.view_number, w, h) {
            return Vec::new();
        }
        // Drop GPU models of actors that are gone or changed model.
        res.models
            .retain(|k, _| self.actors.iter().any(|a| a.key == *k));
        for a in &self.actors {
            if !res.models.contains_key(&a.key) {
                match GpuModel::upload(&res.renderer, device, queue, &a.template.mesh) {
                    Ok(m) => {
                        res.models.insert(a.key, (m, None));
                    }
                    Err(e) => {
                        if res.warned.insert(a.key) {
                            tracing::warn!("actor {}'s model not uploaded: {e}", a.key.0 + 1);
                        }
                        continue;
                    }
                }
            }
            // A pose generation is uploaded once, by the first view to draw it.
            if let Some((m, uploaded)) = res.models.get_mut(&a.key)
                && *uploaded != Some(a.generation)
            {
                let up = m
                    .update_vertices(queue, &a.vertices)
                    .and_then(|()| m.update_materials(queue, &a.materials));
                match up {
                    Ok(()) => *uploaded = Some(a.generation),
                    Err(e) => {
                        if res.warned.insert(a.key) {
                            tracing::warn!("actor {}'s model not updated: {e}", a.key.0 + 1);
                        }
                    }
                }
            }
        }
        let models: Vec<&GpuModel> = self
            .actors
            .iter()
            .filter_map(|a| res.models.get(&a.key).map(|(m, _)| m))
            .collect();
        let frame = FrameParams {
            view: self.view,
            light: self.light,
            lines: &self.lines,
            overlay_lines: &[],
            shadows: self.shadows,
        };
        if let Some(t) = res.targets.get(&self.view_number) {
            t.target.encode(
                &res.renderer,
                device,
                queue,
                encoder,
                &frame,
                &models,
                self.background,
            );
        }
        Vec::new()
    }

    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        pass: &mut wgpu::RenderPass<'static>,
        resources: &egui_wgpu::CallbackResources,
    ) {
        let Some(res) = resources.get::<GpuResources>() else {
            return;
        };
        let Some(t) = res.targets.get(&self.view_number) else {
            return;
        };
        pass.set_pipeline(&res.blit_pipeline);
        pass.set_bind_group(0, &t.blit_bind, &[]);
        pass.draw(0..3, 0..1);
    }
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
/// scene frame `eval` with the options `look`, as view number
/// `view_number`; returns what was drawn. `light` is the scene's light
/// document.
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
    look: &Settings,
    set_bounds: Option<(Vec3, Vec3)>,
    background: [f32; 3],
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
    let [r, g, b] = background.map(|c| {
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
    draw(
        ui,
        painter,
        pic_rect,
        view_number,
        actors,
        PictureSetup {
            view,
            light,
            grid,
            background,
            shadows,
        },
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_frame_test_sees_a_vertex_ahead_and_not_one_behind() {
        let v = ViewParams::mmd_default(1.0);
        let vp = v.projection * v.view;
        let at = |p: [f32; 3]| RenderVertex::new(p, [0.0, 1.0, 0.0], [0.0; 2]);
        assert!(any_in_frame(&[at([0.0, 10.0, 0.0])], &vp));
        assert!(!any_in_frame(&[at([0.0, 10.0, -60.0])], &vp)); // behind the eye
        assert!(!any_in_frame(&[at([200.0, 10.0, 0.0])], &vp)); // far off to the side
    }
}
