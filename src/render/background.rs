//! The picture's background (MMD's 背景画像 and 背景AVI): the clear colour,
//! over it the image, over that the video's current frame, each a textured
//! rectangle drawn first in the model pass, with no depth test and no depth
//! write, so everything else (lines, stages, models, ground shadows, edges)
//! draws over it. Where a layer lands is [`ImageFit::placement`]'s answer
//! for the target's size, written per target (views of different sizes
//! share a layer).
//!
//! A layer's texture is uploaded once ([`GpuBackground::upload`]); a video
//! layer rewrites the same texture with each new frame
//! ([`GpuBackground::update`]).

use std::path::Path;

use super::input::TextureRgba;
use super::{DEPTH_FORMAT, RenderError, TEXTURE_FORMAT};
use crate::scene::set::ImageFit;

/// Layers a picture can have behind the models: the image and the video.
pub const MAX_LAYERS: usize = 2;

/// Floats in a target's backdrop uniform: one NDC rectangle per layer.
pub(crate) const BACKDROP_FLOATS: usize = 4 * MAX_LAYERS;

const BACKDROP_WGSL: &str = r#"
struct Backdrop { rects: array<vec4<f32>, 2> };
@group(0) @binding(0) var<uniform> backdrop: Backdrop;
@group(1) @binding(0) var layer_texture: texture_2d<f32>;
@group(1) @binding(1) var layer_sampler: sampler;
struct Out { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> };
// Two triangles over the layer's rectangle (left, top, right, bottom in
// clip space); the instance is the layer.
@vertex fn vs_backdrop(@builtin(vertex_index) v: u32, @builtin(instance_index) layer: u32) -> Out {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(0.0, 1.0),
        vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0));
    let c = corners[v];
    let r = backdrop.rects[layer];
    var o: Out;
    o.pos = vec4<f32>(mix(r.x, r.z, c.x), mix(r.y, r.w, c.y), 0.5, 1.0);
    o.uv = c;
    return o;
}
@fragment fn fs_backdrop(i: Out) -> @location(0) vec4<f32> {
    return textureSample(layer_texture, layer_sampler, i.uv);
}
"#;

/// The backdrop's layouts and sampler: device-level, shared by a renderer
/// and its Fast-preview twin (a [`Renderer`](super::Renderer) hands it to
/// [`GpuBackground::upload`]).
#[derive(Clone)]
pub struct BackdropKit {
    pub(crate) uniform_layout: wgpu::BindGroupLayout,
    pub(crate) layer_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
}

impl BackdropKit {
    pub(crate) fn new(device: &wgpu::Device) -> BackdropKit {
        let uniform_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("backdrop rects"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let layer_layout = texture_sampler_layout(device, "backdrop layer");
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("backdrop"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        BackdropKit {
            uniform_layout,
            layer_layout,
            sampler,
        }
    }

    /// The pipeline for `format` at `samples` per pixel: alpha-blended
    /// over the clear colour, no culling, depth and stencil untouched.
    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        samples: u32,
        blend: wgpu::BlendState,
    ) -> wgpu::RenderPipeline {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("backdrop"),
            source: wgpu::ShaderSource::Wgsl(BACKDROP_WGSL.into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("backdrop"),
            bind_group_layouts: &[Some(&self.uniform_layout), Some(&self.layer_layout)],
            immediate_size: 0,
        });
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("backdrop"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_backdrop"),
                buffers: &[],
                compilation_options: wgpu::PipelineCompilationOptions::default(),
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::Always),
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            }),
            multisample: wgpu::MultisampleState {
                count: samples.max(1),
                mask: !0,
                alpha_to_coverage_enabled: false,
            },
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs_backdrop"),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: Some(blend),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
                compilation_options: wgpu::PipelineCompilationOptions::default(),
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}

/// One background layer on the GPU: an RGBA8 texture (gamma-space, as
/// model textures) and its bind group.
pub struct GpuBackground {
    texture: wgpu::Texture,
    bind: wgpu::BindGroup,
    width: u32,
    height: u32,
}

impl GpuBackground {
    /// Uploads `image` (scaled down on the CPU first if a side exceeds the
    /// device's largest texture) for the renderer `kit` (a
    /// [`Renderer`](super::Renderer)).
    pub fn upload(
        kit: &impl AsRef<BackdropKit>,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        image: &TextureRgba,
    ) -> Result<GpuBackground, RenderError> {
        let max = device.limits().max_texture_dimension_2d;
        let fitted;
        let image = if image.width > max || image.height > max {
            fitted = shrink(image, max)?;
            &fitted
        } else {
            image
        };
        check(image)?;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("background layer"),
            size: wgpu::Extent3d {
                width: image.width,
                height: image.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: TEXTURE_FORMAT,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        super::kit::write_rgba(queue, &texture, 0, image.width, image.height, &image.pixels);
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let kit = kit.as_ref();
        let bind = texture_sampler_bind(
            device,
            &kit.layer_layout,
            "background layer",
            &view,
            &kit.sampler,
        );
        Ok(GpuBackground {
            texture,
            bind,
            width: image.width,
            height: image.height,
        })
    }

    /// Replaces the pixels (a video's next frame): the same texture when
    /// the size is the same, else a new one.
    pub fn update(
        &mut self,
        kit: &impl AsRef<BackdropKit>,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        image: &TextureRgba,
    ) -> Result<(), RenderError> {
        if image.width == self.width && image.height == self.height {
            check(image)?;
            super::kit::write_rgba(
                queue,
                &self.texture,
                0,
                self.width,
                self.height,
                &image.pixels,
            );
            return Ok(());
        }
        *self = GpuBackground::upload(kit, device, queue, image)?;
        Ok(())
    }

    pub(crate) fn bind_group(&self) -> &wgpu::BindGroup {
        &self.bind
    }

    /// The texture's size in pixels (after any scaling down).
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }
}

/// The layers of one picture's background, bottom first.
#[derive(Clone, Copy)]
pub struct Backdrop<'a> {
    /// The clear colour, RGBA 0..1.
    pub clear: [f32; 4],
    /// The image, then the video frame (each with how it fits); at most
    /// [`MAX_LAYERS`] are drawn.
    pub layers: &'a [(&'a GpuBackground, ImageFit)],
}

impl Backdrop<'_> {
    /// Only a colour.
    pub fn colour(clear: [f32; 4]) -> Backdrop<'static> {
        Backdrop { clear, layers: &[] }
    }

    /// The backdrop uniform for a `width`×`height` target: each layer's
    /// rectangle in clip space (x right, y up).
    pub(crate) fn uniform(&self, width: u32, height: u32) -> [f32; BACKDROP_FLOATS] {
        let mut u = [0.0f32; BACKDROP_FLOATS];
        let (w, h) = (width.max(1) as f32, height.max(1) as f32);
        for (i, (layer, fit)) in self.layers.iter().take(MAX_LAYERS).enumerate() {
            let [l, t, r, b] = fit.placement(layer.size(), (width, height));
            u[i * 4..i * 4 + 4].copy_from_slice(&[
                l / w * 2.0 - 1.0,
                1.0 - t / h * 2.0,
                r / w * 2.0 - 1.0,
                1.0 - b / h * 2.0,
            ]);
        }
        u
    }
}

fn check(image: &TextureRgba) -> Result<(), RenderError> {
    let want = u64::from(image.width) * u64::from(image.height) * 4;
    if image.width == 0 || image.height == 0 || image.pixels.len() as u64 != want {
        return Err(RenderError::BadMesh(format!(
            "background picture {}×{} with {} bytes",
            image.width,
            image.height,
            image.pixels.len()
        )));
    }
    Ok(())
}

/// `image` scaled down (aspect kept) so no side exceeds `max`.
fn shrink(image: &TextureRgba, max: u32) -> Result<TextureRgba, RenderError> {
    check(image)?;
    let s = f64::from(max) / f64::from(image.width.max(image.height));
    let w = ((f64::from(image.width) * s).floor() as u32).clamp(1, max);
    let h = ((f64::from(image.height) * s).floor() as u32).clamp(1, max);
    let src = image::RgbaImage::from_raw(image.width, image.height, image.pixels.clone())
        .ok_or_else(|| RenderError::BadMesh("background picture size".into()))?;
    let out = image::imageops::resize(&src, w, h, image::imageops::FilterType::Triangle);
    Ok(TextureRgba {
        width: w,
        height: h,
        pixels: out.into_raw(),
    })
}

/// Reads a background image file (PNG, BMP, TGA, JPEG, DDS: what the
/// `image` crate was built with) as RGBA8. The error names the file.
pub fn read_image(path: &Path) -> Result<TextureRgba, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("background image {}: {e}", path.display()))?;
    let img = image::load_from_memory(&bytes)
        .map_err(|e| format!("background image {}: {e}", path.display()))?
        .into_rgba8();
    let (width, height) = img.dimensions();
    if width == 0 || height == 0 {
        return Err(format!(
            "background image {}: it has no pixels",
            path.display()
        ));
    }
    Ok(TextureRgba {
        width,
        height,
        pixels: img.into_raw(),
    })
}

/// A bind group layout of one filterable 2D texture (binding 0) and its
/// sampler (binding 1), seen by the fragment stage: a picture drawn onto
/// another (the backdrop's layers, the viewport's blit).
pub fn texture_sampler_layout(device: &wgpu::Device, label: &str) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
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
    })
}

/// A bind group of [`texture_sampler_layout`]'s shape: `view` at binding 0,
/// `sampler` at binding 1.
pub fn texture_sampler_bind(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    label: &str,
    view: &wgpu::TextureView,
    sampler: &wgpu::Sampler,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(sampler),
            },
        ],
    })
}
