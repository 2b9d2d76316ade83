//! An accessory as a [`Model`], so the model renderer draws it unchanged:
//! one root bone every vertex follows, MMD's accessory material rules, no
//! toon, no edges.

use glam::Vec4;

use super::{Accessory, XMaterial};
use crate::model::{Bone, Deform, Format, Material, MaterialFlags, Model, Toon, Warning};

/// MMD draws a `.x` mesh ten times larger than its file units (nanoem
/// `emapp/src/Accessory.cc` `kInitialWorldMatrix = scale(10)`; saba
/// `XFileModel.cpp` multiplies positions by 10).
pub const MMD_SCALE: f32 = 10.0;

/// The one bone of a converted accessory: its parent (world or a model's
/// bone) and placement are applied to the whole model through it or
/// through the model's world matrix (see `crate::scene::set`).
pub const ROOT_BONE: &str = "root";

/// MMD's culling rule for accessory materials: back faces are culled
/// unless the material is see-through (nanoem `emapp/src/Effect.cc`,
/// `isCullingEnabled = !(color.a < 1.0f)`, and
/// `AccessoryProgramBundle.cc` `m_cullMode = color.a < 1.0 ? NONE : BACK`;
/// nanoem reads that alpha from the emissive colour, which nanodxm always
/// sets to 1, so nanoem culls every accessory material; we take the face
/// colour's alpha, as MMD's rule for PMD materials does).
pub fn draws_both_faces(m: &XMaterial) -> bool {
    m.face_colour.w < 1.0
}

/// MMD's self-shadow trick: a material whose alpha is exactly 0.98 casts
/// no self-shadow (nanoem `Accessory.cc`: `enableCastingShadowMap =
/// abs(diffuse.a - 0.98) > epsilon`).
pub fn casts_self_shadow(m: &XMaterial) -> bool {
    (m.face_colour.w - 0.98).abs() > 1.0e-6
}

impl Accessory {
    /// The accessory as a model named `name`, in MMD units (×[`MMD_SCALE`]):
    /// a PMX 2.0-shaped model with one root bone every vertex follows
    /// fully, edge scale 0, materials with diffuse = faceColor, specular and
    /// power as stored, ambient = emissive, texture and sphere map as
    /// split, no toon, edges off, ground shadow and self-shadow on (the
    /// accessory's own ground-shadow switch belongs to its placement).
    /// The `.x` warnings come along, each prefixed with its line.
    pub fn to_model(&self, name: &str) -> Model {
        let mut m = Model::empty(Format::Pmx { version: 2.0 });
        m.utf8 = true;
        m.name = name.to_owned();
        m.comment = format!("DirectX .x accessory ({})", self.version);
        m.positions = self.positions.iter().map(|p| *p * MMD_SCALE).collect();
        m.normals = self.normals.clone();
        m.uvs = self.uvs.clone();
        m.deforms = vec![Deform::Bdef1 { bone: 0 }; self.positions.len()];
        m.edge_scale = vec![0.0; self.positions.len()];
        m.indices = self.indices.clone();
        m.textures = self.texture_names();
        let index_of = |name: &Option<String>| {
            name.as_ref()
                .and_then(|n| m.textures.iter().position(|t| t == n))
        };
        let materials: Vec<Material> = self
            .materials
            .iter()
            .enumerate()
            .map(|(i, x)| Material {
                name: if x.name.is_empty() {
                    format!("material {i}")
                } else {
                    x.name.clone()
                },
                name_en: String::new(),
                diffuse: x.face_colour,
                specular: x.specular,
                specular_power: x.power,
                ambient: x.emissive,
                flags: MaterialFlags {
                    double_sided: draws_both_faces(x),
                    ground_shadow: true,
                    self_shadow_map: casts_self_shadow(x),
                    self_shadow: true,
                    ..MaterialFlags::default()
                },
                edge_colour: Vec4::ZERO,
                edge_size: 0.0,
                texture: index_of(&x.texture),
                sphere: index_of(&x.sphere),
                sphere_mode: if x.sphere.is_some() {
                    x.sphere_mode
                } else {
                    crate::model::SphereMode::None
                },
                toon: Toon::None,
                memo: x.texture_filename.clone().unwrap_or_default(),
                index_count: x.index_count,
            })
            .collect();
        m.materials = materials;
        m.skeleton
            .bones
            .push(Bone::new(ROOT_BONE, None, glam::Vec3::ZERO));
        m.accessory_lighting = true;
        m.warnings = self
            .warnings
            .iter()
            .map(|w| Warning::general(w.to_string()))
            .collect();
        m
    }
}
