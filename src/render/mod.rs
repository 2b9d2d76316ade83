//! The model renderer (feature `render`): wgpu pipelines with MMD-style
//! shading, offscreen targets and readback. Used by the app's viewport and by
//! the CLI's `render` and `storyboard` verbs.
//!
//! The input is plain data ([`input`]): vertices, indices, material
//! parameters, RGBA8 textures, a light and a view from the MMD camera math in
//! [`crate::vmd::camera`]. Posing happens on the CPU in the model layer.
//! Vertex and UV morphs and skinning happen on the GPU ([`skinning`]: a
//! compute pass per model and frame, fed the bones' skinning matrices and
//! the morph weights — Mei: 147 bones × 64 bytes ≈ 9 KB a frame) wherever
//! the device has compute shaders; elsewhere the CPU skins
//! ([`crate::model::PoseEngine::pose`]) and the renderer uploads the result
//! (Mei: 8,983 vertices × 36 bytes ≈ 323 KB a frame).
//!
//! Drawing order per frame, as MMD: with self-shadow on, first a depth-only
//! pass from the light into the shadow map (materials that cast); then
//! depth-tested lines (grid, axes), every material in file order
//! (alpha-blended, depth-tested and depth-written, back faces culled unless
//! double-sided; receivers darkened where the map says), the ground shadows
//! (each model flattened onto y = 0, stencilled so a pixel darkens once,
//! pulled a hair towards the eye so a floor at y = 0 does not fight it),
//! then the edges of every material that has one (back faces pushed out
//! along the screen-space normal), then overlay lines. The shadow math lives
//! in [`crate::scene::shadow`].

pub mod asset;
pub mod background;
pub mod from_model;
mod gpu;
pub mod input;
mod kit;
mod model;
mod renderer;
pub mod sequence;
pub mod sheet;
mod skinning;
pub mod stage;
mod target;

pub use background::{Backdrop, BackdropKit, GpuBackground};
pub use from_model::MeshTemplate;
pub use gpu::{Gpu, msaa_samples};
pub use input::{
    Light, LineVertex, RenderMaterial, RenderMesh, RenderVertex, SelfShadow, SelfShadowMode,
    Shadows, SphereMode, TextureRgba, TextureTint, ViewParams,
};
pub use kit::ModelKit;
pub use model::GpuModel;
pub use renderer::{FrameParams, Renderer};
pub use skinning::pack_pose;
pub use target::{OffscreenTarget, padded_bytes_per_row};

/// The wgpu this renderer is built on (the one egui-wgpu 0.37 uses).
pub use wgpu;

/// The depth buffer's format (with stencil: the ground shadow darkens each
/// pixel once however many of its triangles overlap there).
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24PlusStencil8;
/// The self-shadow map's format (single-sampled, read back by the shader).
pub const SHADOW_MAP_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Colour format of offscreen pictures: plain (gamma-space) RGBA8, as MMD.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Format of model textures on the GPU (not sRGB: MMD does not linearise).
pub const TEXTURE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("no GPU adapter for the model renderer: {0}")]
    NoAdapter(String),
    #[error("picture size {width}×{height} is not drawable (1..={max} pixels per side)")]
    BadSize { width: u32, height: u32, max: u32 },
    #[error("mesh not drawable: {0}")]
    BadMesh(String),
    #[error("reading the picture back from the GPU failed: {0}")]
    Readback(String),
    #[error("writing {path}: {message}")]
    Write { path: String, message: String },
}

impl TextureRgba {
    /// The pixel at column `x`, row `y` (0,0 is top left); `None` outside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = ((y * self.width + x) * 4) as usize;
        self.pixels.get(i..i + 4).and_then(|p| p.try_into().ok())
    }

    /// Writes a PNG: to a temporary file beside `path`, then renamed over
    /// it, so a failed write never leaves half a picture.
    pub fn save_png(&self, path: &std::path::Path) -> Result<(), RenderError> {
        let err = |message: String| RenderError::Write {
            path: path.display().to_string(),
            message,
        };
        let image = image::RgbaImage::from_raw(self.width, self.height, self.pixels.clone())
            .ok_or_else(|| err("pixel buffer does not match the size".into()))?;
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".part");
        let tmp = std::path::PathBuf::from(tmp);
        image
            .save_with_format(&tmp, image::ImageFormat::Png)
            .map_err(|e| err(e.to_string()))?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            err(e.to_string())
        })
    }
}

/// A headless GPU with a renderer for [`COLOR_FORMAT`]: what the CLI and
/// tests draw with.
pub struct Offscreen {
    pub gpu: Gpu,
    pub renderer: Renderer,
}

impl Offscreen {
    /// Opens a headless GPU and builds the pipelines (MSAA 4× where allowed).
    pub fn new() -> Result<Offscreen, RenderError> {
        let gpu = Gpu::headless()?;
        let samples = gpu.msaa_samples(COLOR_FORMAT);
        let renderer = Renderer::new(&gpu.device, &gpu.queue, COLOR_FORMAT, samples);
        Ok(Offscreen { gpu, renderer })
    }

    pub fn upload(&self, mesh: &RenderMesh) -> Result<GpuModel, RenderError> {
        GpuModel::upload(&self.renderer, &self.gpu.device, &self.gpu.queue, mesh)
    }

    /// Uploads a model for morphs and skinning on the GPU where the device
    /// allows (see [`GpuModel::upload_template`]).
    pub fn upload_template(&self, template: &MeshTemplate) -> Result<GpuModel, RenderError> {
        GpuModel::upload_template(&self.renderer, &self.gpu.device, &self.gpu.queue, template)
    }

    pub fn target(&self, width: u32, height: u32) -> Result<OffscreenTarget, RenderError> {
        OffscreenTarget::new(&self.renderer, &self.gpu.device, width, height)
    }

    /// Renders one picture and reads it back.
    pub fn picture(
        &self,
        target: &OffscreenTarget,
        frame: &FrameParams<'_>,
        models: &[&GpuModel],
        clear: [f32; 4],
    ) -> Result<TextureRgba, RenderError> {
        self.picture_backdrop(target, frame, models, &Backdrop::colour(clear))
    }

    /// Renders one picture over a background of layers and reads it back.
    pub fn picture_backdrop(
        &self,
        target: &OffscreenTarget,
        frame: &FrameParams<'_>,
        models: &[&GpuModel],
        backdrop: &Backdrop<'_>,
    ) -> Result<TextureRgba, RenderError> {
        target.render_backdrop(
            &self.renderer,
            &self.gpu.device,
            &self.gpu.queue,
            frame,
            models,
            backdrop,
        );
        target.read_rgba(&self.gpu.device, &self.gpu.queue)
    }

    /// Uploads a background layer (an image, or a video's first frame).
    pub fn upload_background(&self, image: &TextureRgba) -> Result<GpuBackground, RenderError> {
        GpuBackground::upload(&self.renderer, &self.gpu.device, &self.gpu.queue, image)
    }
}
