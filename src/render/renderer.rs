//! Pipelines, layouts and samplers: everything that depends only on the
//! device, the colour format and the sample count. One `Renderer` draws any
//! number of models into any number of targets of that format.

use super::background::{Backdrop, BackdropKit, MAX_LAYERS};
use super::input::{Light, LineVertex, RenderVertex, Shadows, ViewParams};
use super::kit::{CasterPipelines, ModelKit};
use super::model::GpuModel;
use super::{DEPTH_FORMAT, SHADOW_MAP_FORMAT};
use crate::scene::shadow;

/// Floats in the frame uniform (see `Frame` in shader.wgsl).
pub(crate) const FRAME_FLOATS: usize = 88;

pub struct Renderer {
    pub(crate) format: wgpu::TextureFormat,
    pub(crate) samples: u32,
    pub(crate) frame_layout: wgpu::BindGroupLayout,
    /// Group 2 of the model pipelines: the self-shadow map.
    pub(crate) shadow_layout: wgpu::BindGroupLayout,
    model_culled: wgpu::RenderPipeline,
    zplot: CasterPipelines,
    ground: wgpu::RenderPipeline,
    ground_plain: wgpu::RenderPipeline,
    model_double: wgpu::RenderPipeline,
    edge: wgpu::RenderPipeline,
    line_depth: wgpu::RenderPipeline,
    line_overlay: wgpu::RenderPipeline,
    /// The background image and video layers (see [`super::background`]).
    pub(crate) backdrop_kit: BackdropKit,
    backdrop: wgpu::RenderPipeline,
    /// What models uploaded for this renderer share with it (material
    /// layout, samplers, the skinning pipeline).
    pub(crate) kit: ModelKit,
}

/// A renderer is what the app and the CLI hand to
/// [`GpuModel::upload`]: its kit.
impl AsRef<ModelKit> for Renderer {
    fn as_ref(&self) -> &ModelKit {
        &self.kit
    }
}

/// What a background layer's upload needs from the renderer.
impl AsRef<BackdropKit> for Renderer {
    fn as_ref(&self) -> &BackdropKit {
        &self.backdrop_kit
    }
}

/// One frame's camera, light and lines, as the shader's frame uniform wants them.
pub struct FrameParams<'a> {
    pub view: ViewParams,
    pub light: Light,
    /// Drawn depth-tested before the models (grid, axes).
    pub lines: &'a [LineVertex],
    /// Drawn over everything, no depth test (skeleton overlay).
    pub overlay_lines: &'a [LineVertex],
    /// Ground shadow and self-shadow.
    pub shadows: Shadows,
}

impl FrameParams<'_> {
    pub(crate) fn uniform(&self, width: u32, height: u32) -> [f32; FRAME_FLOATS] {
        let mut u = [0.0f32; FRAME_FLOATS];
        u[0..16].copy_from_slice(&self.view.view.to_cols_array());
        u[16..32].copy_from_slice(&self.view.projection.to_cols_array());
        u[32..35].copy_from_slice(&self.view.eye.to_array());
        let d = glam::Vec3::from(self.light.direction);
        let d = if d.length_squared() > 1e-12 {
            d.normalize()
        } else {
            glam::Vec3::from(Light::MMD_DEFAULT.direction).normalize()
        };
        u[36..39].copy_from_slice(&d.to_array());
        let c = self
            .light
            .color
            .map(|c| if c.is_finite() { c } else { 0.0 });
        u[40..43].copy_from_slice(&c);
        u[43] = 1.0;
        u[44] = width.max(1) as f32;
        u[45] = height.max(1) as f32;
        u[46] = height as f32 / 720.0;
        let ground = self
            .shadows
            .ground
            .then(|| shadow::ground_shadow_matrix(d.to_array()))
            .flatten();
        u[48..64].copy_from_slice(&ground.unwrap_or(glam::Mat4::ZERO).to_cols_array());
        let self_shadow = self.shadows.self_shadow;
        let on = self_shadow.is_on() && self.view.view.is_finite();
        if on {
            // The camera's forward direction: view space +Z back in the world.
            let forward = self.view.view.inverse().transform_vector3(glam::Vec3::Z);
            let m = shadow::shadow_map_matrix(self_shadow, self.view.eye, forward, d);
            if m.is_finite() {
                u[64..80].copy_from_slice(&m.to_cols_array());
            }
        }
        u[80..84].copy_from_slice(&shadow::ground_shadow_colour(
            c,
            self.shadows.ground_translucent,
        ));
        u[84] = if on { self_shadow.mode.code() } else { 0.0 };
        u[85] = shadow::SHADOW_MAP_SIZE as f32;
        u[86] = if ground.is_some() { 1.0 } else { 0.0 };
        u
    }

    /// Whether this frame runs the shadow-map pass.
    pub(crate) fn self_shadow_on(&self) -> bool {
        self.shadows.self_shadow.is_on()
    }

    /// Whether this frame draws ground shadows.
    pub(crate) fn ground_on(&self) -> bool {
        self.shadows.ground
            && shadow::ground_shadow_matrix(self.light.direction).is_some()
            && self.light.direction.iter().all(|x| x.is_finite())
    }
}

fn blend() -> wgpu::BlendState {
    wgpu::BlendState {
        color: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::SrcAlpha,
            dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
            operation: wgpu::BlendOperation::Add,
        },
        alpha: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
            operation: wgpu::BlendOperation::Add,
        },
    }
}

/// The ground shadow's blend: the picture under it multiplied by the
/// shader's factor (alpha kept), so the shadow is darker than whatever it
/// falls on — on MMD's white background exactly MMD's colour.
fn multiply() -> wgpu::BlendState {
    wgpu::BlendState {
        color: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::Dst,
            dst_factor: wgpu::BlendFactor::Zero,
            operation: wgpu::BlendOperation::Add,
        },
        alpha: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::Zero,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        },
    }
}

/// Model vertex attributes: position, normal, uv, edge scale.
const VERTEX_ATTRS: [wgpu::VertexAttribute; 4] = wgpu::vertex_attr_array![
    0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Float32
];
/// Line vertex attributes: position, colour.
const LINE_ATTRS: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];

fn vertex_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: (RenderVertex::FLOATS * 4) as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &VERTEX_ATTRS,
    }
}

fn line_vertex_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: (LineVertex::FLOATS * 4) as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &LINE_ATTRS,
    }
}

/// Depth against the colour targets' depth buffer.
fn depth(write: bool, compare: wgpu::CompareFunction) -> Option<wgpu::DepthStencilState> {
    Some(wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(write),
        depth_compare: Some(compare),
        stencil: wgpu::StencilState::default(),
        bias: wgpu::DepthBiasState::default(),
    })
}

/// The three bind group layouts: frame (group 0), material (group 1) and
/// the self-shadow map (group 2).
struct BindLayouts {
    frame: wgpu::BindGroupLayout,
    material: wgpu::BindGroupLayout,
    shadow: wgpu::BindGroupLayout,
}

impl BindLayouts {
    fn new(device: &wgpu::Device) -> BindLayouts {
        let uniform_entry = |binding, visibility| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let texture_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let sampler_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        };
        let vf = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
        let frame = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("frame"),
            entries: &[uniform_entry(0, vf)],
        });
        let material = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                uniform_entry(0, vf),
                texture_entry(1),
                texture_entry(2),
                texture_entry(3),
                sampler_entry(4),
                sampler_entry(5),
            ],
        });
        let shadow = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow map"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Depth,
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        BindLayouts {
            frame,
            material,
            shadow,
        }
    }
}

/// What every pipeline shares: the shader, the pipeline layouts, the
/// colour target and the sample count.
struct PipelineKit<'a> {
    device: &'a wgpu::Device,
    shader: wgpu::ShaderModule,
    /// Frame, material and shadow map: the lit model passes.
    model_layout: wgpu::PipelineLayout,
    /// Frame and material: the shadow map and the ground shadow.
    material_only_layout: wgpu::PipelineLayout,
    /// Frame only: lines.
    line_layout: wgpu::PipelineLayout,
    multisample: wgpu::MultisampleState,
    targets: [Option<wgpu::ColorTargetState>; 1],
}

impl<'a> PipelineKit<'a> {
    fn new(
        device: &'a wgpu::Device,
        layouts: &BindLayouts,
        format: wgpu::TextureFormat,
        samples: u32,
    ) -> PipelineKit<'a> {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("mmd shader"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shader.wgsl").into()),
        });
        let model_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("model"),
            bind_group_layouts: &[
                Some(&layouts.frame),
                Some(&layouts.material),
                Some(&layouts.shadow),
            ],
            immediate_size: 0,
        });
        let material_only_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("zplot / ground shadow"),
            bind_group_layouts: &[Some(&layouts.frame), Some(&layouts.material)],
            immediate_size: 0,
        });
        let line_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lines"),
            bind_group_layouts: &[Some(&layouts.frame)],
            immediate_size: 0,
        });
        PipelineKit {
            device,
            shader,
            model_layout,
            material_only_layout,
            line_layout,
            multisample: wgpu::MultisampleState {
                count: samples.max(1),
                mask: !0,
                alpha_to_coverage_enabled: false,
            },
            targets: [Some(wgpu::ColorTargetState {
                format,
                blend: Some(blend()),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }
    }

    /// A lit mesh pass (model or edge). MMD's triangles are clockwise seen
    /// from their front (Direct3D).
    fn mesh(
        &self,
        label: &str,
        vs: &str,
        fs: &str,
        cull: Option<wgpu::Face>,
    ) -> wgpu::RenderPipeline {
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&self.model_layout),
                vertex: wgpu::VertexState {
                    module: &self.shader,
                    entry_point: Some(vs),
                    buffers: &[Some(vertex_layout())],
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    front_face: wgpu::FrontFace::Cw,
                    cull_mode: cull,
                    ..Default::default()
                },
                depth_stencil: depth(true, wgpu::CompareFunction::Less),
                multisample: self.multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &self.shader,
                    entry_point: Some(fs),
                    targets: &self.targets,
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                }),
                multiview_mask: None,
                cache: None,
            })
    }

    /// The self-shadow map: depth only, from the light, single-sampled;
    /// with `alpha_test`, the fragment shader that discards what MMD's
    /// alpha test drops, else no fragment shader at all.
    fn zplot(
        &self,
        label: &str,
        cull: Option<wgpu::Face>,
        alpha_test: bool,
    ) -> wgpu::RenderPipeline {
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&self.material_only_layout),
                vertex: wgpu::VertexState {
                    module: &self.shader,
                    entry_point: Some("vs_zplot"),
                    buffers: &[Some(vertex_layout())],
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    front_face: wgpu::FrontFace::Cw,
                    cull_mode: cull,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: SHADOW_MAP_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: alpha_test.then(|| wgpu::FragmentState {
                    module: &self.shader,
                    entry_point: Some("fs_zplot"),
                    targets: &[],
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                }),
                multiview_mask: None,
                cache: None,
            })
    }

    /// The ground shadow: both faces, depth-tested but not written, each
    /// pixel once (stencil 0 → 1).
    fn ground(&self, fs: &str) -> wgpu::RenderPipeline {
        let once = wgpu::StencilFaceState {
            compare: wgpu::CompareFunction::Equal,
            fail_op: wgpu::StencilOperation::Keep,
            depth_fail_op: wgpu::StencilOperation::Keep,
            pass_op: wgpu::StencilOperation::IncrementClamp,
        };
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("ground shadow"),
                layout: Some(&self.material_only_layout),
                vertex: wgpu::VertexState {
                    module: &self.shader,
                    entry_point: Some("vs_ground"),
                    buffers: &[Some(vertex_layout())],
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(false),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: wgpu::StencilState {
                        front: once,
                        back: once,
                        read_mask: 0xff,
                        write_mask: 0xff,
                    },
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: self.multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &self.shader,
                    entry_point: Some(fs),
                    targets: &[self.targets[0].clone().map(|t| wgpu::ColorTargetState {
                        blend: Some(multiply()),
                        ..t
                    })],
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                }),
                multiview_mask: None,
                cache: None,
            })
    }

    /// Lines (grid, axes, skeleton overlay).
    fn line(
        &self,
        label: &str,
        write: bool,
        compare: wgpu::CompareFunction,
    ) -> wgpu::RenderPipeline {
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&self.line_layout),
                vertex: wgpu::VertexState {
                    module: &self.shader,
                    entry_point: Some("vs_line"),
                    buffers: &[Some(line_vertex_layout())],
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::LineList,
                    ..Default::default()
                },
                depth_stencil: depth(write, compare),
                multisample: self.multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &self.shader,
                    entry_point: Some("fs_line"),
                    targets: &self.targets,
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                }),
                multiview_mask: None,
                cache: None,
            })
    }
}

impl Renderer {
    /// Builds the pipelines for targets of `format` with `samples` (1 or 4)
    /// samples per pixel.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
        samples: u32,
    ) -> Renderer {
        let layouts = BindLayouts::new(device);
        let models = ModelKit::new(device, queue, layouts.material.clone());
        let backdrop = BackdropKit::new(device);
        Renderer::build(device, layouts, models, backdrop, format, samples)
    }

    /// The same renderer with `samples` (1 or 4) samples per pixel: new
    /// pipelines over the same bind group layouts and model kit, so a
    /// model uploaded for `self` draws with either (the viewport's Fast
    /// preview draws without MSAA this way).
    pub fn with_samples(&self, device: &wgpu::Device, samples: u32) -> Renderer {
        let layouts = BindLayouts {
            frame: self.frame_layout.clone(),
            material: self.kit.material_layout.clone(),
            shadow: self.shadow_layout.clone(),
        };
        let backdrop = self.backdrop_kit.clone();
        Renderer::build(
            device,
            layouts,
            self.kit.clone(),
            backdrop,
            self.format,
            samples,
        )
    }

    fn build(
        device: &wgpu::Device,
        layouts: BindLayouts,
        models: ModelKit,
        backdrop_kit: BackdropKit,
        format: wgpu::TextureFormat,
        samples: u32,
    ) -> Renderer {
        let kit = PipelineKit::new(device, &layouts, format, samples);
        let backdrop = backdrop_kit.pipeline(device, format, samples, blend());
        let model_culled = kit.mesh(
            "model (culled)",
            "vs_model",
            "fs_model",
            Some(wgpu::Face::Back),
        );
        let model_double = kit.mesh("model (double-sided)", "vs_model", "fs_model", None);
        let edge = kit.mesh("edge", "vs_edge", "fs_edge", Some(wgpu::Face::Front));
        let zplot = CasterPipelines {
            culled: kit.zplot("shadow map (culled)", Some(wgpu::Face::Back), true),
            double: kit.zplot("shadow map (double-sided)", None, true),
            solid_culled: kit.zplot("shadow map (culled, solid)", Some(wgpu::Face::Back), false),
            solid_double: kit.zplot("shadow map (double-sided, solid)", None, false),
        };
        let ground = kit.ground("fs_ground");
        let ground_plain = kit.ground("fs_ground_plain");
        let line_depth = kit.line("lines", true, wgpu::CompareFunction::Less);
        let line_overlay = kit.line("overlay lines", false, wgpu::CompareFunction::Always);
        Renderer {
            format,
            samples: samples.max(1),
            frame_layout: layouts.frame,
            shadow_layout: layouts.shadow,
            model_culled,
            zplot,
            ground,
            ground_plain,
            model_double,
            edge,
            line_depth,
            line_overlay,
            backdrop_kit,
            backdrop,
            kit: models,
        }
    }

    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    pub fn samples(&self) -> u32 {
        self.samples
    }

    /// Whether models uploaded from a [`MeshTemplate`](super::MeshTemplate)
    /// are morphed and skinned on the GPU (compute shaders available).
    pub fn gpu_skinning(&self) -> bool {
        self.kit.gpu_skinning()
    }

    /// Records the background layers of `backdrop` (image, then video
    /// frame) into `pass`, before anything else; `rects_bind` holds the
    /// target's backdrop uniform.
    pub(crate) fn draw_backdrop(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        rects_bind: &wgpu::BindGroup,
        backdrop: &Backdrop<'_>,
    ) {
        if backdrop.layers.is_empty() {
            return;
        }
        pass.set_pipeline(&self.backdrop);
        pass.set_bind_group(0, rects_bind, &[]);
        for (i, (layer, _)) in backdrop.layers.iter().take(MAX_LAYERS).enumerate() {
            pass.set_bind_group(1, layer.bind_group(), &[]);
            pass.draw(0..6, i as u32..i as u32 + 1);
        }
    }

    /// Records the shadow-map pass: every casting material's depth from the
    /// light (`frame_bind` holds the frame uniform with the light's matrix).
    pub(crate) fn draw_shadow_map(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        frame_bind: &wgpu::BindGroup,
        models: &[&GpuModel],
    ) {
        pass.set_bind_group(0, frame_bind, &[]);
        for model in models {
            model.draw_casters(pass, &self.zplot);
        }
    }

    /// Records the draws of one frame into `pass`: depth-tested lines, then
    /// every model's materials in order, the ground shadows (when
    /// `ground`), then their edges, then the overlay lines. `frame_bind`
    /// holds the frame uniform, `shadow_bind` the self-shadow map.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn draw<'p>(
        &self,
        pass: &mut wgpu::RenderPass<'p>,
        frame_bind: &wgpu::BindGroup,
        shadow_bind: &wgpu::BindGroup,
        models: &[&GpuModel],
        lines: Option<(&wgpu::Buffer, u32)>,
        overlay: Option<(&wgpu::Buffer, u32)>,
        ground: bool,
    ) {
        pass.set_bind_group(0, frame_bind, &[]);
        pass.set_bind_group(2, shadow_bind, &[]);
        if let Some((buffer, count)) = lines {
            pass.set_pipeline(&self.line_depth);
            pass.set_vertex_buffer(0, buffer.slice(..));
            pass.draw(0..count, 0..1);
        }
        for model in models {
            model.draw_materials(pass, &self.model_culled, &self.model_double);
        }
        if ground {
            pass.set_stencil_reference(0);
            for model in models {
                model.draw_ground_shadows(pass, &self.ground, &self.ground_plain);
            }
        }
        for model in models {
            model.draw_edges(pass, &self.edge);
        }
        if let Some((buffer, count)) = overlay {
            pass.set_pipeline(&self.line_overlay);
            pass.set_vertex_buffer(0, buffer.slice(..));
            pass.draw(0..count, 0..1);
        }
    }
}
