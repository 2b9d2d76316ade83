//! What the models on the GPU share with the renderer that draws them: the
//! material bind group layout, the samplers, the white stand-in texture,
//! the material uniform stride and the skinning pipeline. Built once per
//! [`Renderer`](super::Renderer) and handed to
//! [`GpuModel`](super::GpuModel) uploads (so a model never needs the
//! renderer's pipelines, nor the renderer a model's insides).

use super::skinning::SkinPipeline;

/// Floats in one material uniform (see `Material` in shader.wgsl).
pub(crate) const MATERIAL_FLOATS: usize = 48;

/// The self-shadow map's pipelines, one per face mode, each twice: with
/// the fragment shader that discards (MMD's alpha test: a material alpha ×
/// texture alpha under 0.002 casts nothing) and depth-only for a material
/// whose alpha cannot fall that low. Depth alone skips the fragment shader:
/// the same depths for a fraction of a software rasteriser's time.
pub(crate) struct CasterPipelines {
    pub(crate) culled: wgpu::RenderPipeline,
    pub(crate) double: wgpu::RenderPipeline,
    pub(crate) solid_culled: wgpu::RenderPipeline,
    pub(crate) solid_double: wgpu::RenderPipeline,
}

impl CasterPipelines {
    /// The pipeline for a material drawn on both faces or culled, which
    /// needs the alpha test or not (`solid`).
    pub(crate) fn pick(&self, double_sided: bool, solid: bool) -> &wgpu::RenderPipeline {
        match (double_sided, solid) {
            (false, false) => &self.culled,
            (true, false) => &self.double,
            (false, true) => &self.solid_culled,
            (true, true) => &self.solid_double,
        }
    }
}

/// Shared GPU objects a model's upload needs (see the module docs). A
/// clone shares the same objects (wgpu handles are reference counted).
#[derive(Clone)]
pub struct ModelKit {
    pub(crate) material_layout: wgpu::BindGroupLayout,
    pub(crate) sampler_wrap: wgpu::Sampler,
    pub(crate) sampler_clamp: wgpu::Sampler,
    /// 1×1 white: stands in for every missing texture.
    pub(crate) white: wgpu::TextureView,
    _white_texture: wgpu::Texture,
    /// Byte distance between two materials' uniforms (≥ the device's
    /// uniform offset alignment).
    pub(crate) material_stride: u64,
    /// The compute pipeline that morphs and skins vertices on the GPU;
    /// `None` on a device without compute shaders or storage buffers
    /// (WebGL-class), where models are skinned on the CPU.
    pub(crate) skin: Option<SkinPipeline>,
}

impl ModelKit {
    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        material_layout: wgpu::BindGroupLayout,
    ) -> ModelKit {
        let (sampler_wrap, sampler_clamp) = samplers(device);
        let (white_texture, white) = white_texture(device, queue);
        ModelKit {
            material_layout,
            sampler_wrap,
            sampler_clamp,
            white,
            _white_texture: white_texture,
            material_stride: material_stride(device),
            skin: SkinPipeline::new(device),
        }
    }

    /// Whether models uploaded with a [`MeshTemplate`](super::MeshTemplate)
    /// are morphed and skinned on the GPU (else on the CPU).
    pub fn gpu_skinning(&self) -> bool {
        self.skin.is_some()
    }
}

impl AsRef<ModelKit> for ModelKit {
    fn as_ref(&self) -> &ModelKit {
        self
    }
}

/// Writes one mip level of RGBA8 pixels (rows unpadded; wgpu pads the copy).
pub(crate) fn write_rgba(
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    mip: u32,
    width: u32,
    height: u32,
    pixels: &[u8],
) {
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: mip,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        pixels,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(width * 4),
            rows_per_image: Some(height),
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
    );
}

/// The texture samplers: wrapping with linear mips (textures, spheres) and
/// clamped with nearest mips (toon ramps).
fn samplers(device: &wgpu::Device) -> (wgpu::Sampler, wgpu::Sampler) {
    let sampler = |address, mip| {
        device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("texture sampler"),
            address_mode_u: address,
            address_mode_v: address,
            address_mode_w: address,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: mip,
            ..Default::default()
        })
    };
    let wrap = sampler(wgpu::AddressMode::Repeat, wgpu::MipmapFilterMode::Linear);
    let clamp = sampler(
        wgpu::AddressMode::ClampToEdge,
        wgpu::MipmapFilterMode::Nearest,
    );
    (wrap, clamp)
}

/// The 1×1 white texture and its view.
fn white_texture(device: &wgpu::Device, queue: &wgpu::Queue) -> (wgpu::Texture, wgpu::TextureView) {
    let white = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("white"),
        size: wgpu::Extent3d {
            width: 1,
            height: 1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: super::TEXTURE_FORMAT,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    write_rgba(queue, &white, 0, 1, 1, &[255; 4]);
    let view = white.create_view(&wgpu::TextureViewDescriptor::default());
    (white, view)
}

/// Byte distance between two materials' uniforms: the uniform size rounded
/// up to the device's offset alignment (at least 16).
fn material_stride(device: &wgpu::Device) -> u64 {
    let align = u64::from(device.limits().min_uniform_buffer_offset_alignment).max(16);
    (MATERIAL_FLOATS as u64 * 4).div_ceil(align) * align
}
