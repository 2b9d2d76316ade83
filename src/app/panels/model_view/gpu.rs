//! The model renderer's GPU side, in egui_wgpu's callback resources: the
//! pipelines (a second set without MSAA for Fast preview), the actors'
//! GPU models shared by the views, one offscreen target per view, and the
//! paint callback that skins, renders and blits.
//!
//! A GPU-skinned actor ([`FrameMesh::Gpu`]) is uploaded once from its
//! [`MeshTemplate`](crate::render::MeshTemplate) (rest mesh and skinning
//! tables); each new pose generation then costs a packed-pose upload and
//! the skinning compute pass, recorded into egui's encoder before the
//! first view's render pass reads the vertices. A CPU-skinned one
//! ([`FrameMesh::Vertices`]) uploads its vertices. Either way the
//! materials after material morphs follow.

use std::collections::{HashMap, HashSet};

use eframe::egui;
use eframe::egui_wgpu::{self, wgpu};

use super::background::Layers;
use super::frame::{ActorFrame, FrameMesh, PictureSetup, Skinning};
use crate::render::{
    Backdrop, COLOR_FORMAT, FrameParams, GpuBackground, GpuModel, LineVertex, OffscreenTarget,
    Renderer, TextureRgba,
};
use crate::scene::set::ImageFit;

/// Fast preview's render scale: the picture is drawn at this fraction of
/// the view's width and height (0.5625 of its pixels) and upscaled by the
/// blit's linear filter.
pub const FAST_SCALE: f32 = 0.75;
/// Fast preview's self-shadow map side (MMD's is 2048).
pub const FAST_SHADOW_MAP: u32 = 1024;

/// One view's offscreen picture, the bind group that blits it, and
/// whether it is Fast preview's.
struct ViewTarget {
    target: OffscreenTarget,
    blit_bind: wgpu::BindGroup,
    fast: bool,
}

/// An actor's model on the GPU: skinned there (uploaded from its
/// template) or given vertices, and the pose generation it holds.
struct ActorModel {
    model: GpuModel,
    /// Uploaded for a GPU-skinned frame (the GPU may have refused it:
    /// [`GpuModel::is_gpu_skinned`]).
    for_gpu: bool,
    uploaded: Option<u64>,
}

/// Pipelines, the actors' GPU models (shared by the views) and each
/// view's target, in egui_wgpu's callback resources.
pub(super) struct GpuResources {
    renderer: Renderer,
    /// The same pipelines single-sampled (Fast preview), made when first
    /// asked for; `None` also while the main renderer has no MSAA.
    fast_renderer: Option<Renderer>,
    /// By view number.
    targets: HashMap<u32, ViewTarget>,
    /// By (actor, model generation).
    models: HashMap<(usize, u64), ActorModel>,
    /// Models whose upload or update failed, logged once each (the paint
    /// callback has no status bar; a mesh that does not fit is a bug).
    warned: HashSet<(usize, u64)>,
    blit_pipeline: wgpu::RenderPipeline,
    blit_layout: wgpu::BindGroupLayout,
    blit_sampler: wgpu::Sampler,
    /// The background image and the video's frame on the GPU, with the
    /// number of the pixels they hold (uploaded when it changes).
    bg_image: Option<(u64, GpuBackground)>,
    bg_video: Option<(u64, GpuBackground)>,
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

/// The blit: the view's picture (gamma-space RGBA8) into egui's pass.
fn blit_pipeline(
    device: &wgpu::Device,
    egui_format: wgpu::TextureFormat,
) -> (wgpu::RenderPipeline, wgpu::BindGroupLayout, wgpu::Sampler) {
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("model view blit"),
        source: wgpu::ShaderSource::Wgsl(BLIT_WGSL.into()),
    });
    let blit_layout = crate::render::background::texture_sampler_layout(device, "model view blit");
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
    (blit_pipeline, blit_layout, blit_sampler)
}

impl GpuResources {
    pub(super) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        egui_format: wgpu::TextureFormat,
        samples: u32,
    ) -> GpuResources {
        let renderer = Renderer::new(device, queue, COLOR_FORMAT, samples);
        let (blit_pipeline, blit_layout, blit_sampler) = blit_pipeline(device, egui_format);
        GpuResources {
            renderer,
            fast_renderer: None,
            targets: HashMap::new(),
            models: HashMap::new(),
            warned: HashSet::new(),
            blit_pipeline,
            blit_layout,
            blit_sampler,
            bg_image: None,
            bg_video: None,
        }
    }

    /// Brings the background layers on the GPU up to `layers`: each
    /// uploaded only when its pixels' number changed (an image once, a
    /// video frame once, into the same texture).
    fn sync_background(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, layers: &Layers) {
        let image = layers.image.as_ref().map(|(id, pic, _)| (*id, &**pic));
        sync_layer(&self.renderer, device, queue, &mut self.bg_image, image);
        let frame;
        let video = match &layers.video {
            Some((id, _)) if self.bg_video.as_ref().is_some_and(|(have, _)| have == id) => return,
            Some((id, f)) => {
                // The frame's pixels copied once, when it is new.
                frame = TextureRgba {
                    width: f.width,
                    height: f.height,
                    pixels: f.rgba.clone(),
                };
                Some((*id, &frame))
            }
            None => None,
        };
        sync_layer(&self.renderer, device, queue, &mut self.bg_video, video);
    }

    /// Whether the renderer skins on the GPU (compute shaders available).
    pub(super) fn gpu_skinning(&self) -> bool {
        self.renderer.gpu_skinning()
    }

    /// The renderer for Fast preview (`fast`) or full quality.
    fn renderer(&self, fast: bool) -> &Renderer {
        match &self.fast_renderer {
            Some(r) if fast => r,
            _ => &self.renderer,
        }
    }

    /// View `view`'s target at `w`×`h` pixels, Fast preview's when `fast`
    /// (made again on a resize or a switch).
    fn ensure_target(
        &mut self,
        device: &wgpu::Device,
        view: u32,
        (w, h): (u32, u32),
        fast: bool,
    ) -> bool {
        if self
            .targets
            .get(&view)
            .is_some_and(|t| t.target.width() == w && t.target.height() == h && t.fast == fast)
        {
            return true;
        }
        if fast && self.fast_renderer.is_none() && self.renderer.samples() > 1 {
            self.fast_renderer = Some(self.renderer.with_samples(device, 1));
        }
        let shadow_side = if fast {
            FAST_SHADOW_MAP
        } else {
            crate::scene::shadow::SHADOW_MAP_SIZE
        };
        let made = OffscreenTarget::with_shadow_map(self.renderer(fast), device, w, h, shadow_side);
        let Ok(target) = made else {
            self.targets.remove(&view);
            return false;
        };
        let tv = target.color_texture().create_view(&Default::default());
        let blit_bind = crate::render::background::texture_sampler_bind(
            device,
            &self.blit_layout,
            "model view blit",
            &tv,
            &self.blit_sampler,
        );
        self.targets.insert(
            view,
            ViewTarget {
                target,
                blit_bind,
                fast,
            },
        );
        true
    }

    /// Uploads a model for `a` (from its template when it is skinned on
    /// the GPU; a model the GPU refuses is noted in `skinning`).
    fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        a: &ActorFrame,
        skinning: &Skinning,
    ) -> Option<ActorModel> {
        let gpu = matches!(a.mesh, FrameMesh::Gpu(_));
        let made = if gpu {
            GpuModel::upload_template(&self.renderer, device, queue, &a.template)
        } else {
            GpuModel::upload(&self.renderer, device, queue, &a.template.mesh)
        };
        match made {
            Ok(model) => {
                if gpu && !model.is_gpu_skinned() {
                    // Too large for the device's buffers: the posing skins
                    // this model on the CPU from the next picture on.
                    skinning.refuse(a.key.1);
                    tracing::info!("actor {}'s model is skinned on the CPU", a.key.0 + 1);
                }
                Some(ActorModel {
                    model,
                    for_gpu: gpu,
                    uploaded: None,
                })
            }
            Err(e) => {
                if self.warned.insert(a.key) {
                    tracing::warn!("actor {}'s model not uploaded: {e}", a.key.0 + 1);
                }
                None
            }
        }
    }

    /// Brings every actor's GPU model up to date with its pose: uploads
    /// new models, drops those of actors gone, and sends each new pose
    /// generation once (the skinning pass recorded into `encoder`).
    fn sync_models(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        actors: &[ActorFrame],
        skinning: &Skinning,
    ) {
        // Drop GPU models of actors that are gone, changed model, or
        // switched between GPU and CPU skinning.
        self.models.retain(|k, m| {
            actors
                .iter()
                .any(|a| a.key == *k && m.for_gpu == matches!(a.mesh, FrameMesh::Gpu(_)))
        });
        for a in actors {
            if !self.models.contains_key(&a.key) {
                match self.upload(device, queue, a, skinning) {
                    Some(m) => {
                        self.models.insert(a.key, m);
                    }
                    None => continue,
                }
            }
            let Some(m) = self.models.get_mut(&a.key) else {
                continue;
            };
            if m.uploaded == Some(a.generation) {
                continue;
            }
            let up = match &a.mesh {
                FrameMesh::Vertices {
                    vertices,
                    materials,
                } => m
                    .model
                    .update_vertices(queue, vertices)
                    .and_then(|()| m.model.update_materials(queue, materials)),
                FrameMesh::Gpu(data) if m.model.is_gpu_skinned() => m
                    .model
                    .encode_packed_pose(queue, encoder, &data.pose)
                    .and_then(|()| m.model.update_materials(queue, &data.materials)),
                // Refused by the GPU: the rest pose until the CPU's vertices come.
                FrameMesh::Gpu(_) => Ok(()),
            };
            match up {
                Ok(()) => m.uploaded = Some(a.generation),
                Err(e) => {
                    if self.warned.insert(a.key) {
                        tracing::warn!("actor {}'s model not updated: {e}", a.key.0 + 1);
                    }
                }
            }
        }
    }
}

/// One background layer brought to `want` (its pixels' number and
/// pixels); `None` drops it. A failed upload is logged and leaves none.
fn sync_layer(
    renderer: &Renderer,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    slot: &mut Option<(u64, GpuBackground)>,
    want: Option<(u64, &TextureRgba)>,
) {
    let Some((id, pic)) = want else {
        *slot = None;
        return;
    };
    if slot.as_ref().is_some_and(|(have, _)| *have == id) {
        return;
    }
    let done = match slot.take() {
        Some((_, mut g)) => g.update(renderer, device, queue, pic).map(|()| g),
        None => GpuBackground::upload(renderer, device, queue, pic),
    };
    match done {
        Ok(g) => *slot = Some((id, g)),
        Err(e) => tracing::warn!("background layer not uploaded: {e}"),
    }
}

/// The paint callback: skins and uploads the posed actors and renders
/// them in `prepare`, then copies the picture into the viewport in `paint`.
pub(super) struct ModelPaint {
    pub rect: egui::Rect,
    pub view_number: u32,
    pub setup: PictureSetup,
    pub actors: Vec<ActorFrame>,
    pub lines: Vec<LineVertex>,
    /// Where a model the GPU refuses is noted.
    pub skinning: Skinning,
    /// The background image and video frame behind the models.
    pub layers: Layers,
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
        let fast = self.setup.fast;
        let size = target_size(self.rect.size(), screen.pixels_per_point, fast);
        if !res.ensure_target(device, self.view_number, size, fast) {
            return Vec::new();
        }
        res.sync_models(device, queue, encoder, &self.actors, &self.skinning);
        res.sync_background(device, queue, &self.layers);
        let models: Vec<&GpuModel> = self
            .actors
            .iter()
            .filter_map(|a| res.models.get(&a.key).map(|m| &m.model))
            .collect();
        let frame = FrameParams {
            view: self.setup.view,
            light: self.setup.light,
            lines: &self.lines,
            overlay_lines: &[],
            shadows: self.setup.shadows,
        };
        let mut layers: Vec<(&GpuBackground, ImageFit)> = Vec::new();
        if let (Some((_, g)), Some((_, _, fit))) = (&res.bg_image, &self.layers.image) {
            layers.push((g, *fit));
        }
        if let (Some((_, g)), Some(_)) = (&res.bg_video, &self.layers.video) {
            // MMD stretches its 背景AVI to the screen.
            layers.push((g, ImageFit::Stretch));
        }
        let backdrop = Backdrop {
            clear: self.setup.background,
            layers: &layers,
        };
        if let Some(t) = res.targets.get(&self.view_number) {
            let at = (res.renderer(fast), device, queue);
            t.target
                .encode_backdrop(at, encoder, &frame, &models, &backdrop);
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

/// The target's pixels for a view of `size` points at `ppp` pixels per
/// point: all of them, or [`FAST_SCALE`] of each side for Fast preview;
/// at least 1×1 (a non-finite size draws one pixel).
pub fn target_size(size: egui::Vec2, ppp: f32, fast: bool) -> (u32, u32) {
    let scale = if fast { FAST_SCALE } else { 1.0 };
    let side = |points: f32| {
        let px = (points * ppp * scale).round();
        if px.is_finite() {
            px.clamp(1.0, 16384.0) as u32
        } else {
            1
        }
    };
    (side(size.x), side(size.y))
}
