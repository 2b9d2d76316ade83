//! One model on the GPU: its vertex and index buffers, textures, and one
//! uniform slot + bind group per material.

use wgpu::util::DeviceExt;

use glam::Mat4;

use super::RenderError;
use super::from_model::MeshTemplate;
use super::input::{RenderMaterial, RenderMesh, RenderVertex, SphereMode, TextureRgba};
use super::kit::{CasterPipelines, MATERIAL_FLOATS, ModelKit, write_rgba};
use super::skinning::GpuSkin;

/// A material's draw: its index range and the flags that pick pipelines.
#[derive(Clone, Copy, Debug)]
struct Draw {
    first: u32,
    count: u32,
    double_sided: bool,
    edge: bool,
    visible: bool,
    /// Flattened onto the floor (ground shadow).
    ground: bool,
    /// Drawn into the self-shadow map.
    casts: bool,
    /// Its alpha × its texture's least alpha cannot fall under MMD's
    /// alpha test (0.002, with a factor 2 to spare): drawn into the
    /// self-shadow map without the fragment shader.
    solid: bool,
    /// No texture, or one opaque in every texel: its ground shadow needs
    /// no alpha test (drawn with `fs_ground_plain`).
    ground_plain: bool,
}

/// Which of a material's texture slots hold a real texture (the bind group
/// is fixed at upload; a material morph cannot add a texture).
#[derive(Clone, Copy, Debug)]
struct Slots {
    texture: bool,
    sphere: bool,
    toon: bool,
    /// The texture's least alpha (0..1; 1 without a texture): filtering
    /// and mips mix texels, so no sample falls below it.
    least_alpha: f32,
}

pub struct GpuModel {
    vertex_buffer: wgpu::Buffer,
    vertex_count: usize,
    index_buffer: wgpu::Buffer,
    material_buffer: wgpu::Buffer,
    material_stride: u64,
    binds: Vec<wgpu::BindGroup>,
    draws: Vec<Draw>,
    slots: Vec<Slots>,
    scratch: Vec<f32>,
    /// Morphs and skinning on the GPU (uploaded from a [`MeshTemplate`]
    /// on a device with compute shaders); `None`: the caller uploads
    /// CPU-skinned vertices.
    skin: Option<GpuSkin>,
    _textures: Vec<wgpu::Texture>,
}

/// Uploads an image with a full mip chain (box-filtered on the CPU). Images
/// larger than the device allows are halved until they fit.
fn upload_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    image: &TextureRgba,
    mips: bool,
) -> wgpu::Texture {
    let max = device.limits().max_texture_dimension_2d.max(1);
    let mut level0 = std::borrow::Cow::Borrowed(image);
    while level0.width > max || level0.height > max {
        level0 = std::borrow::Cow::Owned(level0.half());
    }
    let levels = if mips {
        32 - level0.width.max(level0.height).leading_zeros()
    } else {
        1
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("model texture"),
        size: wgpu::Extent3d {
            width: level0.width,
            height: level0.height,
            depth_or_array_layers: 1,
        },
        mip_level_count: levels,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: super::TEXTURE_FORMAT,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let mut level = level0.into_owned();
    for mip in 0..levels {
        if mip > 0 {
            level = level.half();
        }
        write_rgba(
            queue,
            &texture,
            mip,
            level.width,
            level.height,
            &level.pixels,
        );
    }
    texture
}

fn sphere_mode_code(mode: SphereMode) -> f32 {
    match mode {
        SphereMode::None => 0.0,
        SphereMode::Multiply | SphereMode::SubTexture => 1.0,
        SphereMode::Add => 2.0,
    }
}

fn material_uniform(m: &RenderMaterial, slots: Slots) -> [f32; MATERIAL_FLOATS] {
    let mut u = [0.0f32; MATERIAL_FLOATS];
    let finite = |v: f32| if v.is_finite() { v } else { 0.0 };
    let put = |u: &mut [f32; MATERIAL_FLOATS], at: usize, v: &[f32]| {
        for (i, x) in v.iter().enumerate() {
            u[at + i] = finite(*x);
        }
    };
    put(&mut u, 0, &m.diffuse);
    put(&mut u, 4, &m.specular);
    u[7] = finite(m.specular_power).max(0.0);
    put(&mut u, 8, &m.ambient);
    put(&mut u, 12, &m.edge_color);
    u[16] = finite(m.edge_size).max(0.0);
    u[17] = if slots.sphere {
        sphere_mode_code(m.sphere_mode)
    } else {
        0.0
    };
    u[18] = if slots.texture { 1.0 } else { 0.0 };
    u[19] = if slots.toon { 1.0 } else { 0.0 };
    put(&mut u, 20, &m.texture_tint.mul);
    put(&mut u, 24, &m.texture_tint.add);
    put(&mut u, 28, &m.sphere_tint.mul);
    put(&mut u, 32, &m.sphere_tint.add);
    put(&mut u, 36, &m.toon_tint.mul);
    put(&mut u, 40, &m.toon_tint.add);
    u[44] = if m.receives_shadow { 1.0 } else { 0.0 };
    u[45] = if m.accessory_lighting { 1.0 } else { 0.0 };
    u
}

fn draw_of(m: &RenderMaterial, slots: Slots, first: u32, count: u32) -> Draw {
    let visible = m.diffuse[3] > 0.0 && count > 0;
    let least_alpha = if slots.texture {
        slots.least_alpha
    } else {
        1.0
    };
    Draw {
        solid: m.diffuse[3] * least_alpha >= 0.004,
        ground_plain: least_alpha == 1.0,
        first,
        count,
        double_sided: m.double_sided,
        edge: m.edge && m.edge_size > 0.0 && m.edge_color[3] > 0.0 && visible,
        visible,
        ground: m.ground_shadow && visible,
        casts: m.casts_shadow && visible,
    }
}

/// A mesh's textures on the GPU: colour/sphere textures (mipmapped) and
/// toon ramps (without mips), one entry per mesh texture (`None`: missing,
/// malformed, or not used as a toon ramp).
struct MeshTextures {
    textures: Vec<Option<wgpu::Texture>>,
    /// Each uploaded texture's least alpha (0..1).
    least_alphas: Vec<f32>,
    toon_textures: Vec<Option<wgpu::Texture>>,
    views: Vec<Option<wgpu::TextureView>>,
    toon_views: Vec<Option<wgpu::TextureView>>,
}

impl MeshTextures {
    fn upload(device: &wgpu::Device, queue: &wgpu::Queue, mesh: &RenderMesh) -> MeshTextures {
        let textures: Vec<Option<wgpu::Texture>> = mesh
            .textures
            .iter()
            .map(|t| {
                t.as_ref()
                    .filter(|t| t.is_valid())
                    .map(|t| upload_texture(device, queue, t, true))
            })
            .collect();
        // Toon ramps sampled without mips: a ramp is a few pixels wide.
        let toon_textures: Vec<Option<wgpu::Texture>> = mesh
            .textures
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let used_as_toon = mesh.materials.iter().any(|m| m.toon == Some(i));
                t.as_ref()
                    .filter(|t| used_as_toon && t.is_valid())
                    .map(|t| upload_texture(device, queue, t, false))
            })
            .collect();
        let view_of = |list: &[Option<wgpu::Texture>]| -> Vec<Option<wgpu::TextureView>> {
            list.iter()
                .map(|t| t.as_ref().map(|t| t.create_view(&Default::default())))
                .collect()
        };
        let views = view_of(&textures);
        let toon_views = view_of(&toon_textures);
        let least_alphas = mesh
            .textures
            .iter()
            .map(|t| {
                let pixels = t.as_ref().filter(|t| t.is_valid()).map(|t| &t.pixels[..]);
                let least = pixels.unwrap_or(&[]).chunks_exact(4).map(|p| p[3]).min();
                f32::from(least.unwrap_or(255)) / 255.0
            })
            .collect();
        MeshTextures {
            textures,
            least_alphas,
            toon_textures,
            views,
            toon_views,
        }
    }

    /// The texture, sphere and toon views material `m` samples (`None`: the
    /// slot is empty and samples white).
    fn views_of(
        &self,
        m: &RenderMaterial,
    ) -> (
        Option<wgpu::TextureView>,
        Option<wgpu::TextureView>,
        Option<wgpu::TextureView>,
    ) {
        let pick = |index: Option<usize>, list: &[Option<wgpu::TextureView>]| {
            index
                .and_then(|k| list.get(k))
                .and_then(|v| v.as_ref())
                .cloned()
        };
        let tex = pick(m.texture, &self.views);
        let sphere = if m.sphere_mode == SphereMode::None {
            None
        } else {
            pick(m.sphere, &self.views)
        };
        let toon = pick(m.toon, &self.toon_views);
        (tex, sphere, toon)
    }

    /// The least alpha of texture `index` (1 for none or a missing one:
    /// it samples white).
    fn least_alpha(&self, index: Option<usize>) -> f32 {
        let uploaded = |k: usize| self.textures.get(k).is_some_and(Option::is_some);
        index
            .filter(|&k| uploaded(k))
            .and_then(|k| self.least_alphas.get(k).copied())
            .unwrap_or(1.0)
    }

    /// Every uploaded texture, kept alive with the model.
    fn into_owned(self) -> Vec<wgpu::Texture> {
        self.textures
            .into_iter()
            .chain(self.toon_textures)
            .flatten()
            .collect()
    }
}

/// Refuses indices that point past the vertices.
fn check_indices(mesh: &RenderMesh) -> Result<(), RenderError> {
    let n = mesh.vertices.len();
    if let Some((i, bad)) = mesh
        .indices
        .iter()
        .enumerate()
        .find(|(_, v)| **v as usize >= n)
    {
        return Err(RenderError::BadMesh(format!(
            "index {i} is {bad} but the mesh has {n} vertices"
        )));
    }
    Ok(())
}

/// The vertex buffer (never empty: one zero vertex stands in for none) and
/// the packed floats, kept as scratch for later updates.
fn upload_vertices(
    device: &wgpu::Device,
    vertices: &[RenderVertex],
    storage: bool,
) -> (wgpu::Buffer, Vec<f32>) {
    let mut scratch = Vec::new();
    pack_vertices(vertices, &mut scratch);
    if scratch.is_empty() {
        scratch.resize(RenderVertex::FLOATS, 0.0);
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("model vertices"),
        contents: bytemuck::cast_slice(&scratch),
        usage: if storage {
            wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::STORAGE
        } else {
            wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST
        },
    });
    (buffer, scratch)
}

/// The index buffer of whole triangles (a trailing partial one is dropped;
/// never empty) and how many indices it draws.
fn upload_indices(device: &wgpu::Device, indices: &[u32]) -> (wgpu::Buffer, u32) {
    let mut indices = indices.to_vec();
    indices.truncate(indices.len() / 3 * 3);
    let index_total = indices.len() as u32;
    if indices.is_empty() {
        indices.push(0);
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("model indices"),
        contents: bytemuck::cast_slice(&indices),
        usage: wgpu::BufferUsages::INDEX,
    });
    (buffer, index_total)
}

/// Material `i`'s bind group: its slice of the material uniforms, its
/// texture, sphere and toon views (white where empty) and the samplers.
fn material_bind(
    kit: &ModelKit,
    device: &wgpu::Device,
    material_buffer: &wgpu::Buffer,
    i: usize,
    (tex, sphere, toon): (
        Option<&wgpu::TextureView>,
        Option<&wgpu::TextureView>,
        Option<&wgpu::TextureView>,
    ),
) -> wgpu::BindGroup {
    let white = &kit.white;
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("material"),
        layout: &kit.material_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: material_buffer,
                    offset: i as u64 * kit.material_stride,
                    size: wgpu::BufferSize::new(MATERIAL_FLOATS as u64 * 4),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(tex.unwrap_or(white)),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(sphere.unwrap_or(white)),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::TextureView(toon.unwrap_or(white)),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::Sampler(&kit.sampler_wrap),
            },
            wgpu::BindGroupEntry {
                binding: 5,
                resource: wgpu::BindingResource::Sampler(&kit.sampler_clamp),
            },
        ],
    })
}

impl GpuModel {
    /// Uploads `mesh` (vertices as given: the caller skins on the CPU and
    /// calls [`update_vertices`](Self::update_vertices)). `kit` is the
    /// [`Renderer`](super::Renderer) that will draw it. Refuses indices
    /// that point past the vertices; a material whose index run passes
    /// the end of the index list draws what is there; textures that are
    /// missing or malformed draw as white (the material's colours alone).
    pub fn upload(
        kit: &impl AsRef<ModelKit>,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mesh: &RenderMesh,
    ) -> Result<GpuModel, RenderError> {
        Self::upload_with(kit.as_ref(), device, queue, mesh, None)
    }

    /// Uploads a model's template for morphs and skinning on the GPU
    /// (where the device has compute shaders; else as
    /// [`upload`](Self::upload)): each frame then needs only
    /// [`update_pose`](Self::update_pose) (or
    /// [`encode_pose`](Self::encode_pose)) with the bones' skinning
    /// matrices and the morph weights. See
    /// [`is_gpu_skinned`](Self::is_gpu_skinned).
    pub fn upload_template(
        kit: &impl AsRef<ModelKit>,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        template: &MeshTemplate,
    ) -> Result<GpuModel, RenderError> {
        Self::upload_with(
            kit.as_ref(),
            device,
            queue,
            &template.mesh,
            Some(&template.skin),
        )
    }

    fn upload_with(
        kit: &ModelKit,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mesh: &RenderMesh,
        tables: Option<&crate::model::SkinTables>,
    ) -> Result<GpuModel, RenderError> {
        check_indices(mesh)?;
        let skin_on = kit.skin.is_some()
            && tables.is_some_and(|t| {
                !mesh.vertices.is_empty() && t.vertices.len() == mesh.vertices.len()
            });
        let (vertex_buffer, scratch) = upload_vertices(device, &mesh.vertices, skin_on);
        let skin = match (&kit.skin, tables) {
            (Some(pipeline), Some(tables)) if skin_on => {
                GpuSkin::new(pipeline, device, &mesh.vertices, tables, &vertex_buffer)
            }
            _ => None,
        };
        let (index_buffer, index_total) = upload_indices(device, &mesh.indices);
        let textures = MeshTextures::upload(device, queue, mesh);

        let stride = kit.material_stride;
        let material_count = mesh.materials.len().max(1) as u64;
        let material_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("materials"),
            size: stride * material_count,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut binds = Vec::with_capacity(mesh.materials.len());
        let mut draws = Vec::with_capacity(mesh.materials.len());
        let mut slots = Vec::with_capacity(mesh.materials.len());
        let mut first = 0u32;
        for (i, m) in mesh.materials.iter().enumerate() {
            let (tex, sphere, toon) = textures.views_of(m);
            let slot = Slots {
                texture: tex.is_some(),
                sphere: sphere.is_some(),
                toon: toon.is_some(),
                least_alpha: textures.least_alpha(m.texture),
            };
            slots.push(slot);
            binds.push(material_bind(
                kit,
                device,
                &material_buffer,
                i,
                (tex.as_ref(), sphere.as_ref(), toon.as_ref()),
            ));
            let count = m.index_count.min(index_total.saturating_sub(first)) / 3 * 3;
            draws.push(draw_of(m, slot, first, count));
            first = first.saturating_add(count);
        }
        let mut model = GpuModel {
            vertex_buffer,
            vertex_count: mesh.vertices.len(),
            index_buffer,
            material_buffer,
            material_stride: stride,
            binds,
            draws,
            slots,
            scratch,
            skin,
            _textures: textures.into_owned(),
        };
        model.update_materials(queue, &mesh.materials)?;
        Ok(model)
    }

    /// Whether this model morphs and skins its vertices on the GPU (see
    /// [`upload_template`](Self::upload_template)).
    pub fn is_gpu_skinned(&self) -> bool {
        self.skin.is_some()
    }

    /// Poses a GPU-skinned model: uploads the bones' `skinning` matrices
    /// ([`crate::model::Posed::skinning`]) and the applied morph `weights`
    /// ([`crate::model::Posed::applied_morphs`]) and submits the skinning
    /// pass (ordered before any later submission on `queue`). An error on
    /// a model skinned on the CPU.
    pub fn update_pose(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        skinning: &[Mat4],
        weights: &[f32],
    ) -> Result<(), RenderError> {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("skinning"),
        });
        self.encode_pose(queue, &mut encoder, skinning, weights)?;
        queue.submit([encoder.finish()]);
        Ok(())
    }

    /// Like [`update_pose`](Self::update_pose), recording the skinning
    /// pass into the caller's `encoder` (before the passes that draw the
    /// model: the app's paint callback records it in `prepare`).
    pub fn encode_pose(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        skinning: &[Mat4],
        weights: &[f32],
    ) -> Result<(), RenderError> {
        match &mut self.skin {
            Some(skin) => {
                skin.encode(queue, encoder, skinning, weights);
                Ok(())
            }
            None => Err(RenderError::BadMesh(
                "this model is skinned on the CPU: give it vertices".into(),
            )),
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// The vertices as the GPU last wrote them (waits for the GPU): what a
    /// GPU-skinned model draws, for checks against the CPU path. An error
    /// on a model skinned on the CPU.
    pub fn read_vertices(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<RenderVertex>, RenderError> {
        if self.skin.is_none() {
            return Err(RenderError::Readback(
                "only a GPU-skinned model's vertices can be read back".into(),
            ));
        }
        let err = |e: String| RenderError::Readback(e);
        let size = self.vertex_buffer.size();
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("vertex readback"),
            size,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("vertex readback"),
        });
        encoder.copy_buffer_to_buffer(&self.vertex_buffer, 0, &buffer, 0, size);
        queue.submit([encoder.finish()]);
        let slice = buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| err(e.to_string()))?;
        rx.recv()
            .map_err(|e| err(e.to_string()))?
            .map_err(|e| err(e.to_string()))?;
        let vertices = {
            let mapped = slice.get_mapped_range().map_err(|e| err(e.to_string()))?;
            let floats: Vec<f32> = mapped
                .chunks_exact(4)
                .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            floats
                .chunks_exact(RenderVertex::FLOATS)
                .take(self.vertex_count)
                .map(|f| RenderVertex {
                    position: [f[0], f[1], f[2]],
                    normal: [f[3], f[4], f[5]],
                    uv: [f[6], f[7]],
                    edge_scale: f[8],
                })
                .collect()
        };
        buffer.unmap();
        Ok(vertices)
    }

    /// Like [`encode_pose`](Self::encode_pose) with the pose packed by
    /// [`pack_pose`](super::pack_pose) (as
    /// [`prepare_gpu_frame`](super::from_model::prepare_gpu_frame) leaves
    /// it), so the frame packs it once.
    pub fn encode_packed_pose(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        packed: &[f32],
    ) -> Result<(), RenderError> {
        let Some(skin) = &mut self.skin else {
            return Err(RenderError::BadMesh(
                "this model is skinned on the CPU: give it vertices".into(),
            ));
        };
        if skin.encode_packed(queue, encoder, packed) {
            Ok(())
        } else {
            Err(RenderError::BadMesh(format!(
                "a packed pose of {} floats does not fit this model",
                packed.len()
            )))
        }
    }

    /// Replaces the vertices (after posing, morphs and skinning). The count
    /// must be the uploaded one.
    pub fn update_vertices(
        &mut self,
        queue: &wgpu::Queue,
        vertices: &[RenderVertex],
    ) -> Result<(), RenderError> {
        if vertices.len() != self.vertex_count {
            return Err(RenderError::BadMesh(format!(
                "{} vertices given for a model of {}",
                vertices.len(),
                self.vertex_count
            )));
        }
        if vertices.is_empty() {
            return Ok(());
        }
        pack_vertices(vertices, &mut self.scratch);
        queue.write_buffer(&self.vertex_buffer, 0, bytemuck::cast_slice(&self.scratch));
        Ok(())
    }

    /// Replaces the material parameters (material morphs). The list must be
    /// as long as the uploaded one; texture choices and index counts are
    /// kept from the upload.
    pub fn update_materials(
        &mut self,
        queue: &wgpu::Queue,
        materials: &[RenderMaterial],
    ) -> Result<(), RenderError> {
        if materials.len() != self.draws.len() {
            return Err(RenderError::BadMesh(format!(
                "{} materials given for a model of {}",
                materials.len(),
                self.draws.len()
            )));
        }
        if materials.is_empty() {
            return Ok(());
        }
        let stride_floats = (self.material_stride / 4) as usize;
        let mut data = vec![0.0f32; stride_floats * materials.len()];
        for (i, m) in materials.iter().enumerate() {
            let u = material_uniform(m, self.slots[i]);
            data[i * stride_floats..i * stride_floats + MATERIAL_FLOATS].copy_from_slice(&u);
            let d = self.draws[i];
            self.draws[i] = draw_of(m, self.slots[i], d.first, d.count);
        }
        queue.write_buffer(&self.material_buffer, 0, bytemuck::cast_slice(&data));
        Ok(())
    }

    pub(crate) fn draw_materials(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        culled: &wgpu::RenderPipeline,
        double: &wgpu::RenderPipeline,
    ) {
        if self.vertex_count == 0 {
            return;
        }
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        for (d, bind) in self.draws.iter().zip(&self.binds) {
            if !d.visible {
                continue;
            }
            pass.set_pipeline(if d.double_sided { double } else { culled });
            pass.set_bind_group(1, bind, &[]);
            pass.draw_indexed(d.first..d.first + d.count, 0, 0..1);
        }
    }

    /// The ground shadow of every material with the flag (pipeline: both
    /// faces, stencilled).
    pub(crate) fn draw_ground_shadows(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        ground: &wgpu::RenderPipeline,
        plain: &wgpu::RenderPipeline,
    ) {
        if self.vertex_count == 0 || !self.draws.iter().any(|d| d.ground) {
            return;
        }
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        for (d, bind) in self.draws.iter().zip(&self.binds) {
            if d.ground {
                pass.set_pipeline(if d.ground_plain { plain } else { ground });
                pass.set_bind_group(1, bind, &[]);
                pass.draw_indexed(d.first..d.first + d.count, 0, 0..1);
            }
        }
    }

    /// The casting materials' depth into the self-shadow map.
    pub(crate) fn draw_casters(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        pipelines: &CasterPipelines,
    ) {
        if self.vertex_count == 0 || !self.draws.iter().any(|d| d.casts) {
            return;
        }
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        for (d, bind) in self.draws.iter().zip(&self.binds) {
            if d.casts {
                pass.set_pipeline(pipelines.pick(d.double_sided, d.solid));
                pass.set_bind_group(1, bind, &[]);
                pass.draw_indexed(d.first..d.first + d.count, 0, 0..1);
            }
        }
    }

    pub(crate) fn draw_edges(&self, pass: &mut wgpu::RenderPass<'_>, edge: &wgpu::RenderPipeline) {
        if self.vertex_count == 0 || !self.draws.iter().any(|d| d.edge) {
            return;
        }
        pass.set_pipeline(edge);
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        for (d, bind) in self.draws.iter().zip(&self.binds) {
            if d.edge {
                pass.set_bind_group(1, bind, &[]);
                pass.draw_indexed(d.first..d.first + d.count, 0, 0..1);
            }
        }
    }
}

/// Flattens vertices into the GPU layout (9 floats each); non-finite
/// numbers become 0 so one bad vertex cannot blank the picture.
pub(crate) fn pack_vertices(vertices: &[RenderVertex], out: &mut Vec<f32>) {
    out.clear();
    out.reserve(vertices.len() * RenderVertex::FLOATS);
    for v in vertices {
        out.extend_from_slice(&v.position);
        out.extend_from_slice(&v.normal);
        out.extend_from_slice(&v.uv);
        out.push(v.edge_scale);
    }
    for x in out.iter_mut() {
        if !x.is_finite() {
            *x = 0.0;
        }
    }
}
