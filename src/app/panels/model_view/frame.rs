//! What the viewport's posing hands the model renderer for one picture:
//! each actor's mesh as posed ([`ActorFrame`]), and where its vertices
//! are skinned ([`Skinning`]): on the GPU from the bones' matrices (the
//! compute pass of `render::skinning`), or on the CPU (the reference, and
//! the fallback where the device cannot run the compute pass).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use glam::{Mat4, Vec3, Vec4};

use crate::render::from_model::{GpuFrameData, approx_skinned_position};
use crate::render::{Light, MeshTemplate, RenderMaterial, RenderVertex, Shadows, ViewParams};

/// Where the viewport skins its actors' meshes. Set from the renderer's
/// device when the app starts ([`super::install`]); a model the GPU
/// refused (a mesh past the device's buffer limits) is skinned on the CPU
/// from the next picture on.
#[derive(Clone, Debug, Default)]
pub struct Skinning {
    /// `false`: every mesh on the CPU.
    gpu: bool,
    /// Models (by [`ModelEntry::id`](super::ModelEntry)) the GPU could not
    /// skin: the paint callback notes them, the posing reads them.
    refused: Arc<Mutex<HashSet<u64>>>,
}

impl Skinning {
    /// Skinning on the GPU (each model's refusal noted as it happens).
    pub fn gpu() -> Skinning {
        Skinning {
            gpu: true,
            refused: Arc::default(),
        }
    }

    /// Skinning on the CPU for every model.
    pub fn cpu() -> Skinning {
        Skinning::default()
    }

    /// Whether meshes are skinned on the GPU (where it takes them).
    pub fn is_gpu(&self) -> bool {
        self.gpu
    }

    /// Whether model `id` is skinned on the GPU.
    pub fn on_gpu(&self, id: u64) -> bool {
        self.gpu && !self.refused.lock().is_ok_and(|r| r.contains(&id))
    }

    /// Notes that the GPU could not take model `id` (its next pictures
    /// are skinned on the CPU).
    pub(super) fn refuse(&self, id: u64) {
        if let Ok(mut r) = self.refused.lock() {
            r.insert(id);
        }
    }
}

/// One actor's (or set piece's) mesh as posed for this picture.
#[derive(Clone)]
pub enum FrameMesh {
    /// Vertices moved on the CPU (CPU skinning, a placed set piece) and
    /// the materials after material morphs.
    Vertices {
        vertices: Arc<Vec<RenderVertex>>,
        materials: Arc<Vec<RenderMaterial>>,
    },
    /// Skinned on the GPU: the packed pose (skinning matrices, morph
    /// weights) and the materials.
    Gpu(Arc<GpuFrameData>),
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
    pub mesh: FrameMesh,
}

impl ActorFrame {
    /// Whether some vertex (every 7th, for speed) lands inside the picture
    /// of `view_proj`. A GPU-skinned mesh's vertices are placed here by
    /// [`approx_skinned_position`] (a linear blend of their bones).
    pub fn in_frame(&self, view_proj: &Mat4) -> bool {
        match &self.mesh {
            FrameMesh::Vertices { vertices, .. } => vertices
                .iter()
                .step_by(7)
                .any(|v| in_clip(view_proj, Vec3::from(v.position))),
            FrameMesh::Gpu(data) => (0..self.template.mesh.vertices.len())
                .step_by(7)
                .filter_map(|i| approx_skinned_position(&self.template, &data.pose, i))
                .any(|p| in_clip(view_proj, p)),
        }
    }
}

/// Whether `p` lands inside the picture of `view_proj` (in front of the
/// eye, within the near and far planes).
pub(super) fn in_clip(view_proj: &Mat4, p: Vec3) -> bool {
    let c: Vec4 = *view_proj * p.extend(1.0);
    c.w > 1e-4 && c.x.abs() <= c.w && c.y.abs() <= c.w && c.z >= 0.0 && c.z <= c.w
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
    /// Fast preview: no MSAA, a smaller shadow map, fewer pixels
    /// (upscaled). Exports never use it.
    pub fast: bool,
}

#[cfg(test)]
mod tests {
    use super::in_clip;
    use crate::render::ViewParams;
    use glam::Vec3;

    #[test]
    fn in_frame_test_sees_a_vertex_ahead_and_not_one_behind() {
        let v = ViewParams::mmd_default(1.0);
        let vp = v.projection * v.view;
        assert!(in_clip(&vp, Vec3::new(0.0, 10.0, 0.0)));
        assert!(!in_clip(&vp, Vec3::new(0.0, 10.0, -60.0))); // behind the eye
        assert!(!in_clip(&vp, Vec3::new(200.0, 10.0, 0.0))); // far off to the side
    }
}
