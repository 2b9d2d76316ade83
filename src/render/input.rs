//! What the renderer draws, as plain data: no GPU type appears here, so the
//! model layer (or a test) can build it without touching wgpu.
//!
//! Coordinates are MMD's: left-handed, Y up, a model faces −Z, units as in
//! the model file. Colours are MMD's too: 0..1, gamma space (MMD shades in
//! gamma space, and so do we: textures are uploaded and sampled as plain
//! `Rgba8Unorm`, never linearised).

use glam::{Mat4, Vec3, Vec4};

pub use crate::scene::shadow::{SelfShadow, SelfShadowMode};

/// One vertex as the GPU gets it: already morphed and skinned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderVertex {
    pub position: [f32; 3],
    /// Unit normal (the renderer normalises again per pixel).
    pub normal: [f32; 3],
    pub uv: [f32; 2],
    /// PMX per-vertex edge scale (PMD: 1 everywhere). Multiplies the
    /// material's edge size.
    pub edge_scale: f32,
}

impl RenderVertex {
    /// Floats per vertex in the GPU buffer.
    pub const FLOATS: usize = 9;

    pub fn new(position: [f32; 3], normal: [f32; 3], uv: [f32; 2]) -> Self {
        Self {
            position,
            normal,
            uv,
            edge_scale: 1.0,
        }
    }
}

/// How a material's sphere map combines with its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SphereMode {
    #[default]
    None,
    /// `.sph`: colour × sphere.
    Multiply,
    /// `.spa`: colour + sphere.
    Add,
    /// PMX "sub-texture" (sphere sampled with additional UV 1). Drawn as
    /// [`SphereMode::Multiply`] with the normal-based sphere coordinates.
    SubTexture,
}

/// A material morph's tint of one of the three textures, as MMD applies it:
/// `rgb = lerp(1, tex·mul + add, mul.a + add.a)`. The default leaves the
/// texture as it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureTint {
    pub mul: [f32; 4],
    pub add: [f32; 4],
}

impl Default for TextureTint {
    fn default() -> Self {
        Self {
            mul: [1.0; 4],
            add: [0.0; 4],
        }
    }
}

/// One material: a run of `index_count` indices (3 per triangle) following
/// the previous material's, and how to shade it.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderMaterial {
    /// Diffuse RGBA (alpha 0 hides the material, edges included, as in MMD).
    pub diffuse: [f32; 4],
    pub specular: [f32; 3],
    /// Specular exponent (MMD "reflect"); negative values are treated as 0.
    pub specular_power: f32,
    pub ambient: [f32; 3],
    /// Draw both faces (PMX flag 0x01; PMD: alpha < 1).
    pub double_sided: bool,
    /// Draw the edge outline (PMX flag 0x10; PMD edge flag).
    pub edge: bool,
    pub edge_color: [f32; 4],
    /// Outline width in pixels at 720 lines of output (MMD's edge size;
    /// PMD materials have 1).
    pub edge_size: f32,
    /// Index into [`RenderMesh::textures`]; a bad index draws untextured.
    pub texture: Option<usize>,
    pub sphere: Option<usize>,
    pub sphere_mode: SphereMode,
    /// The toon ramp, sampled at u = 0, v = 0.5 − 0.5·(N·L): the top row is
    /// the lit colour, the bottom row the shadow colour. `None`: no toon
    /// shading (white).
    pub toon: Option<usize>,
    pub texture_tint: TextureTint,
    pub sphere_tint: TextureTint,
    pub toon_tint: TextureTint,
    /// Number of indices (3 × triangles) this material draws.
    pub index_count: u32,
    /// Flattened onto the floor as the ground shadow (PMX flag 0x02; PMD:
    /// always). Off by default for generated meshes.
    pub ground_shadow: bool,
    /// Drawn into the self-shadow map: casts self-shadow (PMX 0x04).
    pub casts_shadow: bool,
    /// Darkened where the self-shadow map says it is in shadow (PMX 0x08).
    pub receives_shadow: bool,
    /// MMD's accessory lighting (MME `full.fx` with `use_toon` off):
    /// ambient + max(0, N·L) · diffuse · light, and the ambient colour alone
    /// where self-shadowed; off: a model's toon lighting.
    pub accessory_lighting: bool,
}

impl Default for RenderMaterial {
    fn default() -> Self {
        Self {
            diffuse: [1.0; 4],
            specular: [0.0; 3],
            specular_power: 0.0,
            ambient: [0.0; 3],
            double_sided: false,
            edge: false,
            edge_color: [0.0, 0.0, 0.0, 1.0],
            edge_size: 1.0,
            texture: None,
            sphere: None,
            sphere_mode: SphereMode::None,
            toon: None,
            texture_tint: TextureTint::default(),
            sphere_tint: TextureTint::default(),
            toon_tint: TextureTint::default(),
            index_count: 0,
            ground_shadow: false,
            casts_shadow: false,
            receives_shadow: false,
            accessory_lighting: false,
        }
    }
}

/// An RGBA8 image, rows top to bottom, no padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureRgba {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl TextureRgba {
    /// A `width`×`height` image of one colour.
    pub fn solid(width: u32, height: u32, rgba: [u8; 4]) -> Self {
        let n = (width as usize) * (height as usize);
        Self {
            width,
            height,
            pixels: rgba.iter().copied().cycle().take(n * 4).collect(),
        }
    }

    /// True when the pixel buffer holds exactly width × height RGBA pixels
    /// and the image is not empty.
    pub fn is_valid(&self) -> bool {
        self.width > 0
            && self.height > 0
            && (self.width as usize)
                .checked_mul(self.height as usize)
                .and_then(|n| n.checked_mul(4))
                == Some(self.pixels.len())
    }

    /// The next smaller mip level (2×2 box filter, odd edges clamped).
    pub fn half(&self) -> TextureRgba {
        let w = (self.width / 2).max(1);
        let h = (self.height / 2).max(1);
        let sw = self.width as usize;
        let sh = self.height as usize;
        let mut pixels = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h as usize {
            for x in 0..w as usize {
                let xs = [(2 * x).min(sw - 1), (2 * x + 1).min(sw - 1)];
                let ys = [(2 * y).min(sh - 1), (2 * y + 1).min(sh - 1)];
                for c in 0..4 {
                    let mut sum = 0u32;
                    for yy in ys {
                        for xx in xs {
                            sum += u32::from(self.pixels[(yy * sw + xx) * 4 + c]);
                        }
                    }
                    pixels.push(((sum + 2) / 4) as u8);
                }
            }
        }
        TextureRgba {
            width: w,
            height: h,
            pixels,
        }
    }
}

/// A whole model ready to upload: vertices, triangle indices, materials in
/// drawing order, and the textures they name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderMesh {
    pub vertices: Vec<RenderVertex>,
    /// Triangle list; indices past the vertex count are refused at upload.
    pub indices: Vec<u32>,
    pub materials: Vec<RenderMaterial>,
    /// `None` where a texture is missing or could not be decoded: materials
    /// naming it fall back to their colours.
    pub textures: Vec<Option<TextureRgba>>,
}

/// The light: MMD's single directional light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    /// RGB 0..1 (MMD's light colour; a VMD light key's colour).
    pub color: [f32; 3],
    /// The direction the light travels (a VMD light key's "position"
    /// vector), MMD space. Need not be unit length.
    pub direction: [f32; 3],
}

impl Light {
    /// MMD's default light: colour 154/255 grey, direction (−0.5, −1, 0.5).
    pub const MMD_DEFAULT: Light = Light {
        color: [154.0 / 255.0; 3],
        direction: [-0.5, -1.0, 0.5],
    };
}

impl Default for Light {
    fn default() -> Self {
        Self::MMD_DEFAULT
    }
}

/// Which of MMD's shadows a frame draws (see [`crate::scene::shadow`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shadows {
    /// Ground shadow (地面影) of materials with the ground-shadow flag, in
    /// the light's colour on the floor y = 0.
    pub ground: bool,
    /// MMD's "translucent ground shadow": alpha 0.5 instead of opaque.
    pub ground_translucent: bool,
    /// Self-shadow mode and distance (from the camera's self-shadow track;
    /// [`SelfShadow::OFF`] for none).
    pub self_shadow: SelfShadow,
}

impl Shadows {
    /// No shadows at all (the plain toon shading).
    pub const NONE: Shadows = Shadows {
        ground: false,
        ground_translucent: false,
        self_shadow: SelfShadow::OFF,
    };
    /// MMD's start-up look: opaque ground shadow, self-shadow mode 1 at
    /// distance 8875.
    pub const MMD_DEFAULT: Shadows = Shadows {
        ground: true,
        ground_translucent: false,
        self_shadow: SelfShadow::MMD_DEFAULT,
    };
}

impl Default for Shadows {
    fn default() -> Self {
        Self::MMD_DEFAULT
    }
}

/// Where the picture is taken from: view and projection matrices (MMD space
/// → left-handed view space → wgpu clip space with depth 0..1) and the eye.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewParams {
    pub view: Mat4,
    pub projection: Mat4,
    pub eye: Vec3,
}

impl ViewParams {
    /// The picture of an MMD camera key: `target`, `rotation` (radians, as
    /// stored in VMD), `distance` (negative: in front of the target), vertical
    /// field of view in degrees, and the output's width/height ratio.
    pub fn mmd_camera(
        target: [f32; 3],
        rotation: [f32; 3],
        distance: f32,
        fov_deg: f32,
        perspective: bool,
        aspect: f32,
    ) -> Self {
        Self::mmd_camera_far(
            target,
            rotation,
            distance,
            fov_deg,
            perspective,
            aspect,
            crate::vmd::camera::DEFAULT_FAR,
        )
    }

    /// [`ViewParams::mmd_camera`] with the far plane at `far` (see
    /// [`crate::vmd::camera::fitted_far`]: a set bigger than the default
    /// far plane is drawn whole).
    pub fn mmd_camera_far(
        target: [f32; 3],
        rotation: [f32; 3],
        distance: f32,
        fov_deg: f32,
        perspective: bool,
        aspect: f32,
        far: f32,
    ) -> Self {
        use crate::vmd::camera;
        Self {
            view: camera::view_matrix(target, rotation, distance),
            projection: camera::projection_matrix_far(fov_deg, aspect, perspective, distance, far),
            eye: Vec3::from(camera::eye_position(target, rotation, distance)),
        }
    }

    /// MMD's start-up camera (target (0,10,0), distance −45, 30°).
    pub fn mmd_default(aspect: f32) -> Self {
        Self::mmd_camera([0.0, 10.0, 0.0], [0.0; 3], -45.0, 30.0, true, aspect)
    }

    /// Where a point lands in a `width`×`height` picture: pixel coordinates
    /// (x right, y down, pixel centres at +0.5) and the depth 0..1, or `None`
    /// behind the eye. A CPU twin of the vertex shader, for checks.
    pub fn project(&self, p: Vec3, width: u32, height: u32) -> Option<(f32, f32, f32)> {
        let clip: Vec4 = self.projection * self.view * p.extend(1.0);
        if clip.w <= 1e-6 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        let x = (ndc.x * 0.5 + 0.5) * width as f32;
        let y = (0.5 - ndc.y * 0.5) * height as f32;
        Some((x, y, ndc.z))
    }
}

/// A coloured line vertex (grid, axes, skeleton overlay).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineVertex {
    pub position: [f32; 3],
    pub color: [f32; 4],
}

impl LineVertex {
    pub const FLOATS: usize = 7;
}
