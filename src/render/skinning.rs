//! Vertex morphs, UV morphs and skinning on the GPU (`skin.wgsl`): a
//! compute pass per model and frame writes the vertex buffer the drawing
//! pipelines read, from the rest mesh and the model's
//! [`SkinTables`](crate::model::SkinTables) (uploaded once) and the frame's
//! skinning matrices and morph weights (uploaded per frame: 64 bytes a
//! bone, 4 a morph). The CPU's part of a frame is then the pose alone.
//!
//! The CPU path ([`crate::model::PoseEngine::pose`] and
//! [`super::from_model::posed_vertices`]) stays the reference; the shader
//! follows it formula for formula (glam's quaternion code included), and
//! `tests/render_skinning.rs` compares the two.

use glam::Mat4;
use wgpu::util::DeviceExt;

use super::input::RenderVertex;
use crate::model::{DeformCode, SkinTables};

/// Invocations per workgroup (`@workgroup_size` in skin.wgsl).
const WORKGROUP: u32 = 64;
/// vec4s per vertex in the mesh buffer (see skin.wgsl).
const VERTEX_VEC4S: usize = 5;

/// The skinning compute pipeline and its bind group layout.
#[derive(Clone)]
pub(crate) struct SkinPipeline {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

impl SkinPipeline {
    /// The pipeline, or `None` when the device cannot run it (no compute
    /// shaders or fewer than three storage buffers per stage: WebGL-class
    /// limits).
    pub(crate) fn new(device: &wgpu::Device) -> Option<SkinPipeline> {
        let limits = device.limits();
        if limits.max_storage_buffers_per_shader_stage < 3
            || limits.max_compute_workgroup_size_x < WORKGROUP
            || limits.max_compute_invocations_per_workgroup < WORKGROUP
            || limits.max_compute_workgroups_per_dimension == 0
        {
            return None;
        }
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skinning"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, true),
                storage(3, false),
            ],
        });
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("skinning shader"),
            source: wgpu::ShaderSource::Wgsl(include_str!("skin.wgsl").into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skinning"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("skinning"),
            layout: Some(&pipeline_layout),
            module: &shader,
            entry_point: Some("cs_skin"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        Some(SkinPipeline { layout, pipeline })
    }
}

/// One model's skinning buffers: the mesh data, the per-frame pose and the
/// dispatch size. The output is the model's vertex buffer.
pub(crate) struct GpuSkin {
    pipeline: wgpu::ComputePipeline,
    bind: wgpu::BindGroup,
    pose_buffer: wgpu::Buffer,
    bone_count: usize,
    morph_count: usize,
    /// Workgroups per row and rows of the dispatch.
    groups: (u32, u32),
    /// The packed pose, reused from frame to frame (no per-frame allocation).
    scratch: Vec<f32>,
}

/// `x` if finite, else 0 (one bad number cannot blank the picture).
fn finite(x: f32) -> f32 {
    if x.is_finite() { x } else { 0.0 }
}

/// The mesh buffer's words (see skin.wgsl) and the SDEF and delta bases in
/// vec4 units. `None` when the counts do not fit the shader's fields.
fn pack_mesh(rest: &[RenderVertex], tables: &SkinTables) -> Option<(Vec<u32>, u32, u32)> {
    let n = rest.len();
    let sdef_base = u32::try_from(n.checked_mul(VERTEX_VEC4S)?).ok()?;
    let delta_base =
        sdef_base.checked_add(u32::try_from(tables.sdef.len().checked_mul(3)?).ok()?)?;
    let total = (delta_base as usize)
        .checked_add(tables.deltas.len())?
        .max(1);
    u32::try_from(total).ok()?;
    let mut words = Vec::with_capacity(total * 4);
    let f = |x: f32| finite(x).to_bits();
    for (v, e) in rest.iter().zip(&tables.vertices) {
        if e.delta_count >= 1 << 29 {
            return None;
        }
        let code = e.code as u32 | (e.delta_count << 3);
        words.extend_from_slice(&[
            f(v.position[0]),
            f(v.position[1]),
            f(v.position[2]),
            f(v.edge_scale),
            f(v.normal[0]),
            f(v.normal[1]),
            f(v.normal[2]),
            f(v.uv[0]),
            f(v.uv[1]),
            code,
            if e.code == DeformCode::Sdef {
                e.sdef
            } else {
                0
            },
            e.first_delta,
        ]);
        words.extend_from_slice(&e.bones);
        words.extend(e.weights.map(f));
    }
    for s in &tables.sdef {
        for p in s {
            words.extend_from_slice(&[f(p.x), f(p.y), f(p.z), 0]);
        }
    }
    for d in &tables.deltas {
        let tag = d.morph.checked_mul(2)? | u32::from(d.uv);
        words.extend_from_slice(&[f(d.delta.x), f(d.delta.y), f(d.delta.z), tag]);
    }
    words.resize(total * 4, 0);
    Some((words, sdef_base, delta_base))
}

impl GpuSkin {
    /// Uploads `tables` for the mesh whose rest vertices are `rest` and
    /// binds `output` (the model's vertex buffer, made with `STORAGE`
    /// usage, `rest.len()` × 9 floats). `None` when the tables do not fit
    /// the mesh or the device's limits: the caller then skins on the CPU.
    pub(crate) fn new(
        pipeline: &SkinPipeline,
        device: &wgpu::Device,
        rest: &[RenderVertex],
        tables: &SkinTables,
        output: &wgpu::Buffer,
    ) -> Option<GpuSkin> {
        if rest.is_empty() || tables.vertices.len() != rest.len() {
            return None;
        }
        let (words, sdef_base, delta_base) = pack_mesh(rest, tables)?;
        let limits = device.limits();
        let max_binding = limits.max_storage_buffer_binding_size;
        let bone_count = tables.bone_count as usize;
        let morph_count = tables.morph_count as usize;
        let weight_base = u32::try_from(bone_count.checked_mul(4)?).ok()?;
        let pose_vec4s = weight_base as usize + morph_count.div_ceil(4).max(1);
        let pose_bytes = (pose_vec4s * 16) as u64;
        let mesh_bytes = (words.len() * 4) as u64;
        if mesh_bytes > max_binding || pose_bytes > max_binding || output.size() > max_binding {
            return None;
        }
        let n = rest.len() as u32;
        let total_groups = n.div_ceil(WORKGROUP);
        let per_row = total_groups.min(limits.max_compute_workgroups_per_dimension);
        let rows = total_groups.div_ceil(per_row);
        if rows > limits.max_compute_workgroups_per_dimension {
            return None;
        }
        let params: [u32; 8] = [
            n,
            tables.bone_count,
            tables.morph_count,
            sdef_base,
            delta_base,
            weight_base,
            per_row * WORKGROUP,
            0,
        ];
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skinning params"),
            contents: bytemuck::cast_slice(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let mesh_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skinning mesh"),
            contents: bytemuck::cast_slice(&words),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let pose_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skinning pose"),
            size: pose_bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }
        }
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skinning"),
            layout: &pipeline.layout,
            entries: &[
                entry(0, &params_buffer),
                entry(1, &mesh_buffer),
                entry(2, &pose_buffer),
                entry(3, output),
            ],
        });
        Some(GpuSkin {
            pipeline: pipeline.pipeline.clone(),
            bind,
            pose_buffer,
            bone_count,
            morph_count,
            groups: (per_row, rows),
            scratch: vec![0.0; pose_vec4s * 4],
        })
    }

    /// Uploads a frame's `skinning` matrices (one per bone, as
    /// [`crate::model::Posed::skinning`]; missing ones and non-finite ones
    /// count as the identity) and applied morph `weights` (as
    /// [`crate::model::Posed::applied_morphs`]; missing or non-finite: 0),
    /// and records the skinning pass into `encoder`.
    pub(crate) fn encode(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        skinning: &[Mat4],
        weights: &[f32],
    ) {
        self.pack_pose(skinning, weights);
        queue.write_buffer(&self.pose_buffer, 0, bytemuck::cast_slice(&self.scratch));
        self.dispatch(encoder);
    }

    /// Like [`encode`](Self::encode) with the pose already packed by
    /// [`pack_pose`] for this model's bone and morph counts; `false` (and
    /// nothing done) when `packed` has another length.
    pub(crate) fn encode_packed(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        packed: &[f32],
    ) -> bool {
        if packed.len() != self.scratch.len() {
            return false;
        }
        queue.write_buffer(&self.pose_buffer, 0, bytemuck::cast_slice(packed));
        self.dispatch(encoder);
        true
    }

    fn dispatch(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("skinning"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind, &[]);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }

    fn pack_pose(&mut self, skinning: &[Mat4], weights: &[f32]) {
        pack_pose(
            skinning,
            weights,
            self.bone_count,
            self.morph_count,
            &mut self.scratch,
        );
    }
}

/// The skinning pass's per-frame data as it is uploaded (see skin.wgsl):
/// `bone_count` skinning matrices, column-major (missing or non-finite
/// ones: the identity), then `morph_count` morph weights (missing or
/// non-finite: 0), padded to whole vec4s. Reuses `out`'s allocation. This
/// and the pose are the whole CPU cost of a GPU-skinned frame.
pub fn pack_pose(
    skinning: &[Mat4],
    weights: &[f32],
    bone_count: usize,
    morph_count: usize,
    out: &mut Vec<f32>,
) {
    let bones = bone_count * 16;
    out.resize(bones + morph_count.div_ceil(4).max(1) * 4, 0.0);
    let (mats, rest) = out.split_at_mut(bones);
    for (k, slot) in mats.chunks_exact_mut(16).enumerate() {
        let m = skinning
            .get(k)
            .filter(|m| m.is_finite())
            .unwrap_or(&Mat4::IDENTITY);
        slot.copy_from_slice(&m.to_cols_array());
    }
    for (k, w) in rest.iter_mut().enumerate() {
        *w = if k < morph_count {
            weights.get(k).copied().map_or(0.0, finite)
        } else {
            0.0
        };
    }
}
