//! An offscreen colour + depth target (multisampled where the renderer is),
//! its frame uniform, and reading the picture back to the CPU.

use wgpu::util::DeviceExt;

use super::background::{BACKDROP_FLOATS, Backdrop};
use super::input::{LineVertex, TextureRgba};
use super::model::GpuModel;
use super::renderer::{FRAME_FLOATS, FrameParams, Renderer};
use super::{DEPTH_FORMAT, RenderError, SHADOW_MAP_FORMAT};
use crate::scene::shadow::SHADOW_MAP_SIZE;

/// A picture `width`×`height` the renderer draws into. The resolved colour
/// texture can be read back ([`OffscreenTarget::read_rgba`]) or shown by the
/// app ([`OffscreenTarget::color_texture`]; it allows an sRGB view of the
/// same bytes, so egui shows the gamma-space colours unchanged).
pub struct OffscreenTarget {
    width: u32,
    height: u32,
    color: wgpu::Texture,
    color_view: wgpu::TextureView,
    msaa_view: Option<wgpu::TextureView>,
    depth_view: wgpu::TextureView,
    frame_buffer: wgpu::Buffer,
    frame_bind: wgpu::BindGroup,
    /// The self-shadow map (depth from the light) and its bind group.
    shadow_view: wgpu::TextureView,
    shadow_bind: wgpu::BindGroup,
    /// Where this target's background layers land (see
    /// [`super::background`]).
    backdrop_buffer: wgpu::Buffer,
    backdrop_bind: wgpu::BindGroup,
}

/// Bytes per row of a texture-to-buffer copy: 4 per pixel, padded to 256.
pub fn padded_bytes_per_row(width: u32) -> u32 {
    let unpadded = width * 4;
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    unpadded.div_ceil(align) * align
}

impl OffscreenTarget {
    /// A target with MMD's self-shadow map ([`SHADOW_MAP_SIZE`] square,
    /// or the device's largest texture if smaller).
    pub fn new(
        renderer: &Renderer,
        device: &wgpu::Device,
        width: u32,
        height: u32,
    ) -> Result<OffscreenTarget, RenderError> {
        Self::with_shadow_map(renderer, device, width, height, SHADOW_MAP_SIZE)
    }

    /// Like [`new`](Self::new) with a self-shadow map `shadow_side` pixels
    /// square (at least 1, at most the device's largest texture): a
    /// smaller map is cheaper and blurrier (the viewport's Fast preview).
    pub fn with_shadow_map(
        renderer: &Renderer,
        device: &wgpu::Device,
        width: u32,
        height: u32,
        shadow_side: u32,
    ) -> Result<OffscreenTarget, RenderError> {
        let max = device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(RenderError::BadSize { width, height, max });
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let srgb = renderer.format.add_srgb_suffix();
        let view_formats: &[wgpu::TextureFormat] = if srgb != renderer.format {
            &[srgb]
        } else {
            &[]
        };
        let color = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen colour"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: renderer.format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats,
        });
        let color_view = color.create_view(&Default::default());
        let msaa_view = (renderer.samples > 1).then(|| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some("offscreen colour (MSAA)"),
                    size,
                    mip_level_count: 1,
                    sample_count: renderer.samples,
                    dimension: wgpu::TextureDimension::D2,
                    format: renderer.format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        });
        let depth_view = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("offscreen depth"),
                size,
                mip_level_count: 1,
                sample_count: renderer.samples,
                dimension: wgpu::TextureDimension::D2,
                format: DEPTH_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&Default::default());
        let (frame_buffer, frame_bind) = uniform_buffer(
            device,
            &renderer.frame_layout,
            "frame uniform",
            FRAME_FLOATS,
        );
        let side = shadow_side.min(max).max(1);
        let shadow_view = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("self-shadow map"),
                size: wgpu::Extent3d {
                    width: side,
                    height: side,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: SHADOW_MAP_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
            .create_view(&Default::default());
        let shadow_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("self-shadow map"),
            layout: &renderer.shadow_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&shadow_view),
            }],
        });
        let (backdrop_buffer, backdrop_bind) = uniform_buffer(
            device,
            &renderer.backdrop_kit.uniform_layout,
            "backdrop rects",
            BACKDROP_FLOATS,
        );
        Ok(OffscreenTarget {
            width,
            height,
            color,
            color_view,
            msaa_view,
            depth_view,
            frame_buffer,
            frame_bind,
            shadow_view,
            shadow_bind,
            backdrop_buffer,
            backdrop_bind,
        })
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The self-shadow map's side in pixels.
    pub fn shadow_map_side(&self) -> u32 {
        self.shadow_view.texture().width()
    }

    /// The resolved picture (single-sampled, the renderer's format).
    pub fn color_texture(&self) -> &wgpu::Texture {
        &self.color
    }

    /// Draws one frame: the self-shadow map when on, then clears to `clear`
    /// (RGBA 0..1) and draws lines, models, ground shadows, edges and
    /// overlay lines; submits the work.
    pub fn render(
        &self,
        renderer: &Renderer,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &FrameParams<'_>,
        models: &[&GpuModel],
        clear: [f32; 4],
    ) {
        let backdrop = Backdrop::colour(clear);
        self.render_backdrop(renderer, device, queue, frame, models, &backdrop);
    }

    /// Like [`OffscreenTarget::render`] over a background of layers
    /// (image, video frame) on the clear colour.
    pub fn render_backdrop(
        &self,
        renderer: &Renderer,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &FrameParams<'_>,
        models: &[&GpuModel],
        backdrop: &Backdrop<'_>,
    ) {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("offscreen frame"),
        });
        let at = (renderer, device, queue);
        self.encode_backdrop(at, &mut encoder, frame, models, backdrop);
        queue.submit([encoder.finish()]);
    }

    /// Like [`OffscreenTarget::render`] but records into the caller's encoder
    /// (the frame uniform is written through `queue` at once).
    #[allow(clippy::too_many_arguments)]
    pub fn encode(
        &self,
        renderer: &Renderer,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameParams<'_>,
        models: &[&GpuModel],
        clear: [f32; 4],
    ) {
        let backdrop = Backdrop::colour(clear);
        self.encode_backdrop((renderer, device, queue), encoder, frame, models, &backdrop);
    }

    /// Like [`OffscreenTarget::encode`] over a background of layers (the
    /// rectangles are written through `queue` at once, into this target's
    /// own uniform).
    pub fn encode_backdrop(
        &self,
        (renderer, device, queue): (&Renderer, &wgpu::Device, &wgpu::Queue),
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameParams<'_>,
        models: &[&GpuModel],
        backdrop: &Backdrop<'_>,
    ) {
        let clear = backdrop.clear;
        if !backdrop.layers.is_empty() {
            let rects = backdrop.uniform(self.width, self.height);
            queue.write_buffer(&self.backdrop_buffer, 0, bytemuck::cast_slice(&rects));
        }
        let mut uniform = frame.uniform(self.width, self.height);
        // The map may be smaller than MMD's on a small device.
        uniform[85] = uniform[85].min(self.shadow_view.texture().width() as f32);
        queue.write_buffer(&self.frame_buffer, 0, bytemuck::cast_slice(&uniform));
        if frame.self_shadow_on() {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("self-shadow map pass"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.shadow_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            renderer.draw_shadow_map(&mut pass, &self.frame_bind, models);
        }
        let lines = line_buffer(device, frame.lines);
        let overlay = line_buffer(device, frame.overlay_lines);
        let (view, resolve) = match &self.msaa_view {
            Some(msaa) => (msaa, Some(&self.color_view)),
            None => (&self.color_view, None),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("model pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                resolve_target: resolve,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: f64::from(clear[0]),
                        g: f64::from(clear[1]),
                        b: f64::from(clear[2]),
                        a: f64::from(clear[3]),
                    }),
                    store: if resolve.is_some() {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
                },
                depth_slice: None,
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(0),
                    store: wgpu::StoreOp::Discard,
                }),
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        renderer.draw_backdrop(&mut pass, &self.backdrop_bind, backdrop);
        renderer.draw(
            &mut pass,
            &self.frame_bind,
            &self.shadow_bind,
            models,
            lines.as_ref().map(|(b, n)| (b, *n)),
            overlay.as_ref().map(|(b, n)| (b, *n)),
            frame.ground_on(),
        );
    }

    /// Copies the picture to the CPU (waits for the GPU): RGBA8, rows top to
    /// bottom, no padding.
    pub fn read_rgba(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<TextureRgba, RenderError> {
        let padded = padded_bytes_per_row(self.width);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: u64::from(padded) * u64::from(self.height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("readback"),
        });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.color,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([encoder.finish()]);
        let slice = buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        rx.recv()
            .map_err(|e| RenderError::Readback(e.to_string()))?
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        let bgra = matches!(
            self.color.format(),
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        );
        let mut pixels = Vec::with_capacity((self.width * self.height * 4) as usize);
        {
            let mapped = slice
                .get_mapped_range()
                .map_err(|e| RenderError::Readback(e.to_string()))?;
            for row in mapped.chunks(padded as usize) {
                let row = &row[..(self.width * 4) as usize];
                if bgra {
                    for p in row.chunks_exact(4) {
                        pixels.extend_from_slice(&[p[2], p[1], p[0], p[3]]);
                    }
                } else {
                    pixels.extend_from_slice(row);
                }
            }
        }
        buffer.unmap();
        Ok(TextureRgba {
            width: self.width,
            height: self.height,
            pixels,
        })
    }
}

fn line_buffer(device: &wgpu::Device, lines: &[LineVertex]) -> Option<(wgpu::Buffer, u32)> {
    let count = lines.len() / 2 * 2;
    if count == 0 {
        return None;
    }
    let mut data = Vec::with_capacity(count * LineVertex::FLOATS);
    for v in &lines[..count] {
        data.extend_from_slice(&v.position);
        data.extend_from_slice(&v.color);
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("lines"),
        contents: bytemuck::cast_slice(&data),
        usage: wgpu::BufferUsages::VERTEX,
    });
    Some((buffer, count as u32))
}

/// A uniform buffer of `floats` f32s (written each picture) and its bind
/// group at binding 0 of `layout`.
fn uniform_buffer(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    label: &str,
    floats: usize,
) -> (wgpu::Buffer, wgpu::BindGroup) {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: (floats * 4) as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    });
    (buffer, bind)
}
