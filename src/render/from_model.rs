//! From the model layer's data to the renderer's input: mesh, materials and
//! textures once per model, then vertices (and material morphs) per frame.

use std::collections::HashMap;

use crate::model::{self, Model, Posed, SkinTables, TextureSet, Toon};

use super::input::{
    RenderMaterial, RenderMesh, RenderVertex, SphereMode, TextureRgba, TextureTint,
};

fn rgba(t: &model::Texture) -> TextureRgba {
    TextureRgba {
        width: t.width,
        height: t.height,
        pixels: t.rgba.clone(),
    }
}

fn sphere_mode(m: model::SphereMode) -> SphereMode {
    match m {
        model::SphereMode::None => SphereMode::None,
        model::SphereMode::Multiply => SphereMode::Multiply,
        model::SphereMode::Add => SphereMode::Add,
        model::SphereMode::SubTexture => SphereMode::SubTexture,
    }
}

/// The renderer's view of a model's materials and textures: the model's
/// own textures (decoded ones; missing ones `None`), followed by our
/// built-in toon ramps for the shared toons its materials use; and what
/// skinning on the GPU needs of it ([`SkinTables`]).
#[derive(Clone, Debug)]
pub struct MeshTemplate {
    pub mesh: RenderMesh,
    /// Deforms and vertex/UV morph deltas, one entry per mesh vertex.
    pub skin: SkinTables,
}

impl MeshTemplate {
    /// Builds the mesh at the rest pose.
    pub fn new(model: &Model, textures: &TextureSet) -> MeshTemplate {
        let mut tex: Vec<Option<TextureRgba>> = (0..model.textures.len())
            .map(|i| textures.get(i).map(rgba))
            .collect();
        let mut shared: HashMap<u8, usize> = HashMap::new();
        let mut materials = Vec::with_capacity(model.materials.len());
        for m in &model.materials {
            let toon = match m.toon {
                Toon::None => None,
                Toon::Texture(i) => Some(i),
                Toon::Shared(k) => Some(*shared.entry(k).or_insert_with(|| {
                    tex.push(Some(rgba(&model::builtin_toon(k))));
                    tex.len() - 1
                })),
            };
            let mut r = RenderMaterial {
                texture: m.texture,
                sphere: m.sphere,
                sphere_mode: sphere_mode(m.sphere_mode),
                toon,
                double_sided: m.flags.double_sided,
                edge: m.flags.edge,
                ground_shadow: m.flags.ground_shadow,
                casts_shadow: m.flags.self_shadow_map,
                receives_shadow: m.flags.self_shadow,
                accessory_lighting: model.accessory_lighting,
                index_count: u32::try_from(m.index_count).unwrap_or(u32::MAX),
                ..Default::default()
            };
            set_colours(&mut r, m);
            materials.push(r);
        }
        let mut mesh = RenderMesh {
            vertices: Vec::new(),
            indices: model.indices.clone(),
            materials,
            textures: tex,
        };
        rest_vertices(model, &mut mesh.vertices);
        MeshTemplate {
            mesh,
            skin: SkinTables::new(model),
        }
    }
}

fn set_colours(r: &mut RenderMaterial, m: &model::Material) {
    r.diffuse = m.diffuse.to_array();
    r.specular = m.specular.to_array();
    r.specular_power = m.specular_power;
    r.ambient = m.ambient.to_array();
    r.edge_color = m.edge_colour.to_array();
    r.edge_size = m.edge_size;
}

/// The model's vertices as stored (rest pose, no morphs).
pub fn rest_vertices(model: &Model, out: &mut Vec<RenderVertex>) {
    out.clear();
    let n = model.positions.len();
    out.extend((0..n).map(|i| {
        RenderVertex {
            position: model.positions[i].to_array(),
            normal: model
                .normals
                .get(i)
                .map_or([0.0, 1.0, 0.0], |v| v.to_array()),
            uv: model.uvs.get(i).map_or([0.0; 2], |v| v.to_array()),
            edge_scale: model.edge_scale.get(i).copied().unwrap_or(1.0),
        }
    }));
}

/// The posed vertices: skinned positions and normals from `posed` (the
/// rest values where `posed` has none), UVs moved by UV morphs.
pub fn posed_vertices(model: &Model, posed: &Posed, out: &mut Vec<RenderVertex>) {
    let n = model.positions.len();
    out.clear();
    out.reserve(n);
    let skinned = posed.positions.len() == n && posed.normals.len() == n;
    let uv_morph = posed.uv_morphed && posed.uv_offsets.len() == n;
    for i in 0..n {
        let (p, nrm) = if skinned {
            (posed.positions[i], posed.normals[i])
        } else {
            (
                model.positions[i],
                model.normals.get(i).copied().unwrap_or(glam::Vec3::Y),
            )
        };
        let mut uv = model.uvs.get(i).copied().unwrap_or_default();
        if uv_morph {
            uv += posed.uv_offsets[i].truncate().truncate();
        }
        out.push(RenderVertex {
            position: p.to_array(),
            normal: nrm.to_array(),
            uv: uv.to_array(),
            edge_scale: model.edge_scale.get(i).copied().unwrap_or(1.0),
        });
    }
}

/// The materials after material morphs: `template` (from
/// [`MeshTemplate`]) with colours, edge and texture tints from `posed`.
pub fn posed_materials(template: &[RenderMaterial], posed: &Posed, out: &mut Vec<RenderMaterial>) {
    out.clear();
    out.extend_from_slice(template);
    for (r, s) in out.iter_mut().zip(&posed.materials) {
        r.diffuse = s.diffuse.to_array();
        r.specular = s.specular.to_array();
        r.specular_power = s.specular_power;
        r.ambient = s.ambient.to_array();
        r.edge_color = s.edge_colour.to_array();
        r.edge_size = s.edge_size;
        r.texture_tint = TextureTint {
            mul: s.texture_mul.to_array(),
            add: s.texture_add.to_array(),
        };
        r.sphere_tint = TextureTint {
            mul: s.sphere_mul.to_array(),
            add: s.sphere_add.to_array(),
        };
        r.toon_tint = TextureTint {
            mul: s.toon_mul.to_array(),
            add: s.toon_add.to_array(),
        };
    }
}

/// Posing state for one model wearing (or not) one motion: the program's
/// one pose engine (see [`crate::model::engine`]).
pub use crate::model::PoseEngine as ModelPosing;

/// The CPU's data for one GPU-skinned frame of one model: the materials
/// after material morphs and the packed pose the skinning pass reads
/// ([`super::skinning::pack_pose`]). Buffers are reused frame to frame.
#[derive(Debug, Clone, Default)]
pub struct GpuFrameData {
    pub materials: Vec<RenderMaterial>,
    /// Skinning matrices then morph weights, as uploaded.
    pub pose: Vec<f32>,
}

/// The whole per-frame CPU path of one GPU-skinned model (`render`'s and
/// `storyboard`'s; the viewport's posing does the same per actor, with its
/// scene's shared physics world and the posing tool, then calls
/// [`fill_gpu_frame`]): the bones at motion frame `frame` (with physics
/// when the engine has it on), material morphs, and the data the GPU gets.
/// No vertex is touched on the CPU.
pub fn prepare_gpu_frame(
    engine: &mut ModelPosing,
    model: &Model,
    motion: Option<crate::vmd::MotionRef<'_>>,
    frame: f64,
    template: &MeshTemplate,
    out: &mut GpuFrameData,
) {
    engine.pose_bones(model, motion, frame, |_| {});
    engine.morph_materials(model);
    fill_gpu_frame(&engine.posed, template, out);
}

/// The GPU's data for one frame of a model posed as `posed` (bones and
/// material morphs: [`ModelPosing::pose_bones`] then
/// [`ModelPosing::morph_materials`]): the materials after material morphs
/// and the packed pose. Reuses `out`'s buffers.
pub fn fill_gpu_frame(posed: &Posed, template: &MeshTemplate, out: &mut GpuFrameData) {
    posed_materials(&template.mesh.materials, posed, &mut out.materials);
    super::skinning::pack_pose(
        &posed.skinning,
        &posed.applied_morphs,
        template.skin.bone_count as usize,
        template.skin.morph_count as usize,
        &mut out.pose,
    );
}

/// Where vertex `i` of `template` lands, roughly, under `pose` (packed as
/// [`GpuFrameData::pose`]): its rest position moved by the linear blend
/// of its bones' skinning matrices, for every deform kind (SDEF and QDEF
/// approximated by it; vertex morphs left out). `None` past the last
/// vertex. For cheap CPU questions about a mesh the GPU skins (is any of
/// it in the picture?); the picture itself comes from the GPU. Bones past
/// the pose, and non-finite results, count as the rest position.
pub fn approx_skinned_position(
    template: &MeshTemplate,
    pose: &[f32],
    i: usize,
) -> Option<glam::Vec3> {
    let rest = glam::Vec3::from(template.mesh.vertices.get(i)?.position);
    let Some(e) = template.skin.vertices.get(i) else {
        return Some(rest);
    };
    let bones = match e.code {
        model::DeformCode::Rest => 0,
        model::DeformCode::Bdef1 => 1,
        model::DeformCode::Bdef2 | model::DeformCode::Sdef => 2,
        model::DeformCode::Bdef4 | model::DeformCode::Qdef => 4,
    };
    let matrix = |b: u32| {
        let at = (b as usize).checked_mul(16)?;
        pose.get(at..at + 16).map(glam::Mat4::from_cols_slice)
    };
    let mut sum = glam::Vec3::ZERO;
    let mut weight = 0.0f32;
    for k in 0..bones {
        let w = if bones == 1 { 1.0 } else { e.weights[k] };
        if !(w.is_finite() && w > 0.0) {
            continue;
        }
        if let Some(m) = matrix(e.bones[k]) {
            sum += m.transform_point3(rest) * w;
            weight += w;
        }
    }
    let p = if weight > 0.0 { sum / weight } else { rest };
    Some(if p.is_finite() { p } else { rest })
}

/// A set piece's vertices placed by `world` (a stage at its rest pose and
/// the identity, an accessory at its placement): positions moved by
/// `world`, normals turned by its linear part (inverse transpose, so a
/// non-uniform scale keeps them perpendicular) and made unit again; UVs and
/// edge scales as at rest. A degenerate `world` (scale 0) keeps the rest
/// normals; a non-finite one places nothing (the rest vertices).
pub fn placed_vertices(rest: &[RenderVertex], world: glam::Mat4, out: &mut Vec<RenderVertex>) {
    out.clear();
    out.extend_from_slice(rest);
    if !world.is_finite() || world == glam::Mat4::IDENTITY {
        return;
    }
    let linear = glam::Mat3::from_mat4(world);
    let normal_matrix = if linear.determinant().abs() > 1e-12 {
        Some(linear.inverse().transpose())
    } else {
        None
    };
    for v in out.iter_mut() {
        v.position = world
            .transform_point3(glam::Vec3::from(v.position))
            .to_array();
        if let Some(m) = normal_matrix {
            let n = (m * glam::Vec3::from(v.normal)).normalize_or(glam::Vec3::from(v.normal));
            v.normal = n.to_array();
        }
    }
}

/// A set piece's materials as drawn: the template's, every diffuse alpha
/// multiplied by `opacity` (an accessory's Tr, clamped to 0..1; MMD
/// multiplies each material's alpha by it) and, with `ground_shadow` off,
/// no material casting the ground shadow.
pub fn placed_materials(
    template: &[RenderMaterial],
    opacity: f32,
    ground_shadow: bool,
    out: &mut Vec<RenderMaterial>,
) {
    let opacity = if opacity.is_finite() {
        opacity.clamp(0.0, 1.0)
    } else {
        1.0
    };
    out.clear();
    out.extend_from_slice(template);
    for m in out.iter_mut() {
        m.diffuse[3] *= opacity;
        m.ground_shadow &= ground_shadow;
    }
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec3};

    use super::{MeshTemplate, approx_skinned_position};
    use crate::model::{Bone, Deform, Format, Model, TextureSet};

    /// Three vertices at (1, 0, 0): on bone 1 alone, half on bones 0 and
    /// 1, and with no deform record; bone 1 moved up by 2, bone 0 still.
    #[test]
    fn approximate_positions_blend_the_bones_matrices() {
        let mut m = Model::empty(Format::Pmx { version: 2.0 });
        m.skeleton.bones.push(Bone::new("root", None, Vec3::ZERO));
        m.skeleton.bones.push(Bone::new("up", Some(0), Vec3::ZERO));
        m.positions = vec![Vec3::X; 3];
        m.deforms = vec![
            Deform::Bdef1 { bone: 1 },
            Deform::Bdef2 {
                bones: [0, 1],
                weight: 0.5,
            },
        ];
        let template = MeshTemplate::new(&m, &TextureSet::default());
        let mut pose = Vec::new();
        let up = Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0));
        crate::render::pack_pose(&[Mat4::IDENTITY, up], &[], 2, 0, &mut pose);
        let at = |i| approx_skinned_position(&template, &pose, i).expect("a vertex");
        assert!(at(0).distance(Vec3::new(1.0, 2.0, 0.0)) < 1e-6, "{}", at(0));
        assert!(at(1).distance(Vec3::new(1.0, 1.0, 0.0)) < 1e-6, "{}", at(1));
        assert!(at(2).distance(Vec3::X) < 1e-6, "{}", at(2));
        assert_eq!(approx_skinned_position(&template, &pose, 3), None);
        // A pose too short for the bones: the rest position, never NaN.
        assert!(approx_skinned_position(&template, &[], 0).is_some_and(|p| p == Vec3::X));
        let nan = vec![f32::NAN; pose.len()];
        assert_eq!(approx_skinned_position(&template, &nan, 0), Some(Vec3::X));
    }
}
