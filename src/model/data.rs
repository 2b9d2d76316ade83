//! A whole model as the PMX/PMD readers give it: mesh, materials, texture
//! paths, skeleton, morphs, display frames, rigid bodies, joints and soft
//! bodies.
//!
//! Coordinates are MMD model space — left-handed, Y up, the character
//! facing −Z with its left side at +X — in the file's units (a character is
//! about 20 tall). UVs have (0, 0) at the texture's top-left, V growing
//! downwards (DirectX convention, as MMD). Colours are linear 0..1 floats as
//! stored. Angles are radians.
//!
//! **Invariants** (the readers guarantee them; a file that breaks one loads
//! with a [`Warning`] and the reference is dropped or replaced):
//! * every vertex buffer (`positions`, `normals`, `uvs`, `edge_scale`,
//!   `deforms`, each of `additional_uvs`) has `vertex_count()` entries;
//! * `indices.len()` is a multiple of 3 and every index is a vertex;
//! * the materials' `index_count`s add up to `indices.len()`;
//! * every bone index (deforms, morphs, display frames, rigid bodies) is a
//!   bone, every texture index a texture, every material index a material,
//!   every morph index a morph other than the morph itself.

use glam::{Quat, Vec2, Vec3, Vec4};

use super::error::Warning;
use super::skeleton::Skeleton;

/// Which file format a model came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Format {
    /// PMX, with its version (2.0 or 2.1).
    Pmx {
        /// 2.0 or 2.1 as stored.
        version: f32,
    },
    /// PMD (version 1.0).
    Pmd,
}

/// A model: everything a renderer and the pose rules need. See the module
/// documentation for units and invariants.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// PMX (with version) or PMD.
    pub format: Format,
    /// PMX text encoding (`true` = UTF-8, `false` = UTF-16LE); PMD text is
    /// Shift_JIS and reads as `false` here.
    pub utf8: bool,
    /// Model name (Japanese / local).
    pub name: String,
    /// Model name in English (universal), empty when absent.
    pub name_en: String,
    /// Comment (local).
    pub comment: String,
    /// Comment in English, empty when absent.
    pub comment_en: String,
    /// Vertex positions, model units.
    pub positions: Vec<Vec3>,
    /// Vertex normals (as stored; usually unit length).
    pub normals: Vec<Vec3>,
    /// Vertex UVs, (0, 0) = top-left of the texture.
    pub uvs: Vec<Vec2>,
    /// PMX additional UVs: `additional_uvs[k][v]` is channel `k` (0..4) of
    /// vertex `v`. Empty for PMD and for PMX files that declare none.
    pub additional_uvs: Vec<Vec<Vec4>>,
    /// How each vertex follows the bones.
    pub deforms: Vec<Deform>,
    /// Edge (outline) thickness factor per vertex (PMD: 1 or 0 from the
    /// vertex's edge flag).
    pub edge_scale: Vec<f32>,
    /// Triangle list: three vertex indices per triangle, front faces
    /// clockwise as MMD draws them. Materials take consecutive runs.
    pub indices: Vec<u32>,
    /// Texture paths as the file names them (relative to the model file,
    /// Windows separators possible). PMD names are split at `*` into
    /// texture and sphere and collected here once each.
    pub textures: Vec<String>,
    /// Materials in drawing order.
    pub materials: Vec<Material>,
    /// Bones and IK chains.
    pub skeleton: Skeleton,
    /// Morphs in file order (PMD: the base skin is not listed; its data is
    /// folded into the vertex morphs, which hold model vertex indices).
    pub morphs: Vec<Morph>,
    /// Display frames (the editor's bone/morph groups).
    pub display_frames: Vec<DisplayFrame>,
    /// Rigid bodies (read and kept; no simulation yet).
    pub rigid_bodies: Vec<RigidBody>,
    /// Joints between rigid bodies (read and kept).
    pub joints: Vec<Joint>,
    /// PMX 2.1 soft bodies (read and kept).
    pub soft_bodies: Vec<SoftBody>,
    /// Problems the reader tolerated, in file order.
    pub warnings: Vec<Warning>,
    /// Lit as MMD lights an accessory (a converted `.x`): Lambert shading,
    /// no toon, the ambient colour alone where self-shadowed; models (PMX,
    /// PMD) are lit through their toon.
    pub accessory_lighting: bool,
}

impl Model {
    /// A model with nothing in it, for building models in code (tests,
    /// generated benchmarks). Fill the public fields keeping the
    /// invariants above.
    pub fn empty(format: Format) -> Model {
        Model {
            format,
            utf8: false,
            name: String::new(),
            name_en: String::new(),
            comment: String::new(),
            comment_en: String::new(),
            positions: Vec::new(),
            normals: Vec::new(),
            uvs: Vec::new(),
            additional_uvs: Vec::new(),
            deforms: Vec::new(),
            edge_scale: Vec::new(),
            indices: Vec::new(),
            textures: Vec::new(),
            materials: Vec::new(),
            skeleton: Skeleton::default(),
            morphs: Vec::new(),
            display_frames: Vec::new(),
            rigid_bodies: Vec::new(),
            joints: Vec::new(),
            soft_bodies: Vec::new(),
            warnings: Vec::new(),
            accessory_lighting: false,
        }
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// The run of `indices` each material draws, in material order.
    pub fn material_ranges(&self) -> Vec<std::ops::Range<usize>> {
        let mut start = 0;
        self.materials
            .iter()
            .map(|m| {
                let end = start + m.index_count;
                let r = start..end;
                start = end;
                r
            })
            .collect()
    }

    /// Index of the morph called `name` (exact match; the first if repeated).
    pub fn find_morph(&self, name: &str) -> Option<usize> {
        self.morphs.iter().position(|m| m.name == name)
    }

    /// Number of morphs of each kind.
    pub fn morph_counts(&self) -> MorphCounts {
        let mut c = MorphCounts::default();
        for m in &self.morphs {
            match &m.kind {
                MorphKind::Group(_) => c.group += 1,
                MorphKind::Vertex(_) => c.vertex += 1,
                MorphKind::Bone(_) => c.bone += 1,
                MorphKind::Uv { channel: 0, .. } => c.uv += 1,
                MorphKind::Uv { .. } => c.additional_uv += 1,
                MorphKind::Material(_) => c.material += 1,
                MorphKind::Flip(_) => c.flip += 1,
                MorphKind::Impulse(_) => c.impulse += 1,
            }
        }
        c
    }
}

/// Morphs counted by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct MorphCounts {
    pub group: usize,
    pub vertex: usize,
    pub bone: usize,
    /// UV morphs on the main UV.
    pub uv: usize,
    /// UV morphs on additional UV channels 1–4.
    pub additional_uv: usize,
    pub material: usize,
    pub flip: usize,
    pub impulse: usize,
}

/// How a vertex follows bones. Bone indices are valid bones (the reader
/// replaces a bad index with bone 0 at weight 0 and warns).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Deform {
    /// One bone, fully.
    Bdef1 { bone: u32 },
    /// Two bones, linear blend: `weight` for the first, `1 − weight` for the
    /// second.
    Bdef2 { bones: [u32; 2], weight: f32 },
    /// Four bones, linear blend with the given weights (as stored).
    Bdef4 { bones: [u32; 4], weights: [f32; 4] },
    /// Spherical deform: two bones as BDEF2 plus the rotation centre `c`
    /// and the reference points `r0`, `r1` (model space).
    Sdef {
        bones: [u32; 2],
        weight: f32,
        c: Vec3,
        r0: Vec3,
        r1: Vec3,
    },
    /// PMX 2.1 dual-quaternion deform, four bones and weights.
    Qdef { bones: [u32; 4], weights: [f32; 4] },
}

impl Deform {
    /// The bones and weights (unused slots have weight 0).
    pub fn bones_and_weights(&self) -> ([u32; 4], [f32; 4]) {
        match *self {
            Deform::Bdef1 { bone } => ([bone, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            Deform::Bdef2 { bones, weight } | Deform::Sdef { bones, weight, .. } => {
                ([bones[0], bones[1], 0, 0], [weight, 1.0 - weight, 0.0, 0.0])
            }
            Deform::Bdef4 { bones, weights } | Deform::Qdef { bones, weights } => (bones, weights),
        }
    }

    /// Short name of the deform type: `BDEF1`, `BDEF2`, `BDEF4`, `SDEF`, `QDEF`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Deform::Bdef1 { .. } => "BDEF1",
            Deform::Bdef2 { .. } => "BDEF2",
            Deform::Bdef4 { .. } => "BDEF4",
            Deform::Sdef { .. } => "SDEF",
            Deform::Qdef { .. } => "QDEF",
        }
    }
}

/// Material drawing flags (PMX bits; PMD gets equivalents).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MaterialFlags {
    /// Draw both faces (no back-face culling). 0x01.
    pub double_sided: bool,
    /// Cast a shadow on the ground plane. 0x02.
    pub ground_shadow: bool,
    /// Drawn into the self-shadow map (casts). 0x04.
    pub self_shadow_map: bool,
    /// Receives self-shadow. 0x08.
    pub self_shadow: bool,
    /// Draw the outline (edge). 0x10.
    pub edge: bool,
    /// PMX 2.1: use additional UV 1 as vertex colour. 0x20.
    pub vertex_colour: bool,
    /// PMX 2.1: draw points. 0x40.
    pub point: bool,
    /// PMX 2.1: draw lines. 0x80.
    pub line: bool,
}

impl MaterialFlags {
    /// Decodes the PMX flag byte.
    pub fn from_bits(b: u8) -> Self {
        MaterialFlags {
            double_sided: b & 0x01 != 0,
            ground_shadow: b & 0x02 != 0,
            self_shadow_map: b & 0x04 != 0,
            self_shadow: b & 0x08 != 0,
            edge: b & 0x10 != 0,
            vertex_colour: b & 0x20 != 0,
            point: b & 0x40 != 0,
            line: b & 0x80 != 0,
        }
    }

    /// The PMX flag byte.
    pub fn bits(&self) -> u8 {
        [
            self.double_sided,
            self.ground_shadow,
            self.self_shadow_map,
            self.self_shadow,
            self.edge,
            self.vertex_colour,
            self.point,
            self.line,
        ]
        .iter()
        .enumerate()
        .fold(0, |acc, (i, &on)| acc | (u8::from(on) << i))
    }
}

/// How a sphere (environment) texture combines with the colour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SphereMode {
    /// No sphere texture.
    #[default]
    None,
    /// Multiply (`.sph`).
    Multiply,
    /// Add (`.spa`).
    Add,
    /// PMX: a sub-texture sampled with additional UV 1.
    SubTexture,
}

/// Which toon ramp a material uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Toon {
    /// No toon ramp.
    #[default]
    None,
    /// One of MMD's ten shared toons, `toon01.bmp`…`toon10.bmp`, as
    /// 0..=9. We draw our own look-alikes: [`super::builtin_toon`].
    Shared(u8),
    /// The model's own toon texture (index into [`Model::textures`]).
    Texture(usize),
}

/// One material: its colours, textures and the run of triangles it draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name (local). PMD materials have none: `材質N` (1-based) is given.
    pub name: String,
    /// Name in English, empty when absent.
    pub name_en: String,
    /// Diffuse colour and alpha (0..1).
    pub diffuse: Vec4,
    /// Specular colour (0..1).
    pub specular: Vec3,
    /// Specular power (shininess exponent).
    pub specular_power: f32,
    /// Ambient colour (0..1).
    pub ambient: Vec3,
    /// Drawing flags.
    pub flags: MaterialFlags,
    /// Outline colour and alpha.
    pub edge_colour: Vec4,
    /// Outline size (model units at edge scale 1).
    pub edge_size: f32,
    /// Main texture (index into [`Model::textures`]).
    pub texture: Option<usize>,
    /// Sphere texture (index into [`Model::textures`]).
    pub sphere: Option<usize>,
    /// How the sphere texture is applied.
    pub sphere_mode: SphereMode,
    /// Toon ramp.
    pub toon: Toon,
    /// Free text from the author.
    pub memo: String,
    /// Number of entries of [`Model::indices`] this material draws (a
    /// multiple of 3), starting where the previous material's run ends.
    pub index_count: usize,
}

/// A morph: a named, weighted change to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Morph {
    /// Name (local), as VMD morph tracks refer to it.
    pub name: String,
    /// Name in English, empty when absent.
    pub name_en: String,
    /// Editor panel: 0 system, 1 eyebrow, 2 eye, 3 mouth, 4 other.
    pub panel: u8,
    /// What the morph changes.
    pub kind: MorphKind,
}

/// What a morph changes, with its offsets.
#[derive(Debug, Clone, PartialEq)]
pub enum MorphKind {
    /// Other morphs, each with a ratio (weights multiply through).
    Group(Vec<MorphRef>),
    /// Vertex position offsets (model units).
    Vertex(Vec<VertexOffset>),
    /// Bone translation/rotation offsets.
    Bone(Vec<BoneOffset>),
    /// UV offsets; `channel` 0 is the main UV (x, y used), 1–4 the
    /// additional UVs.
    Uv { channel: u8, offsets: Vec<UvOffset> },
    /// Material parameter changes.
    Material(Vec<MaterialOffset>),
    /// PMX 2.1 flip: the weight picks one of the listed morphs.
    Flip(Vec<MorphRef>),
    /// PMX 2.1 impulse on rigid bodies (kept, not simulated).
    Impulse(Vec<Impulse>),
}

impl MorphKind {
    /// Short name of the kind: `group`, `vertex`, `bone`, `uv`, `uv1`…`uv4`,
    /// `material`, `flip`, `impulse`.
    pub fn name(&self) -> &'static str {
        match self {
            MorphKind::Group(_) => "group",
            MorphKind::Vertex(_) => "vertex",
            MorphKind::Bone(_) => "bone",
            MorphKind::Uv { channel: 0, .. } => "uv",
            MorphKind::Uv { channel: 1, .. } => "uv1",
            MorphKind::Uv { channel: 2, .. } => "uv2",
            MorphKind::Uv { channel: 3, .. } => "uv3",
            MorphKind::Uv { .. } => "uv4",
            MorphKind::Material(_) => "material",
            MorphKind::Flip(_) => "flip",
            MorphKind::Impulse(_) => "impulse",
        }
    }
}

/// A group/flip member.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MorphRef {
    /// The morph driven.
    pub morph: usize,
    /// Its weight per unit of the group's weight.
    pub ratio: f32,
}

/// One vertex offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexOffset {
    pub vertex: u32,
    /// Added to the rest position at weight 1 (model units).
    pub offset: Vec3,
}

/// One bone offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneOffset {
    pub bone: usize,
    /// Added to the bone's local translation at weight 1.
    pub translation: Vec3,
    /// Applied to the bone's local rotation at weight 1 (slerped from
    /// identity by the weight).
    pub rotation: Quat,
}

/// One UV offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UvOffset {
    pub vertex: u32,
    /// Added at weight 1 (main UV uses x, y).
    pub offset: Vec4,
}

/// How a material offset combines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaterialOp {
    /// `value × lerp(1, offset, weight)`.
    Multiply,
    /// `value + offset × weight`.
    Add,
}

/// One material offset (PMX material morph).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialOffset {
    /// The material changed; `None` = every material.
    pub material: Option<usize>,
    pub op: MaterialOp,
    pub diffuse: Vec4,
    pub specular: Vec3,
    pub specular_power: f32,
    pub ambient: Vec3,
    pub edge_colour: Vec4,
    pub edge_size: f32,
    /// Tint of the main texture colour (RGBA).
    pub texture_tint: Vec4,
    /// Tint of the sphere texture colour.
    pub sphere_tint: Vec4,
    /// Tint of the toon texture colour.
    pub toon_tint: Vec4,
}

/// One impulse (PMX 2.1), kept for a later physics step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Impulse {
    pub rigid_body: usize,
    /// Velocity and torque are in the body's local frame.
    pub local: bool,
    pub velocity: Vec3,
    pub torque: Vec3,
}

/// A display frame: a named group of bones and morphs for the editor.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayFrame {
    pub name: String,
    pub name_en: String,
    /// A special frame (Root, 表情).
    pub special: bool,
    pub items: Vec<DisplayItem>,
}

/// An entry of a display frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisplayItem {
    Bone(usize),
    Morph(usize),
}

/// Rigid body shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Sphere,
    Box,
    Capsule,
}

/// How a rigid body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhysicsMode {
    /// Follows its bone.
    FollowBone,
    /// Simulated; drives its bone.
    Physics,
    /// Simulated, position snapped to its bone.
    PhysicsWithBone,
}

/// A rigid body (read and kept; not simulated yet).
#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody {
    pub name: String,
    pub name_en: String,
    /// The bone it belongs to, if any.
    pub bone: Option<usize>,
    /// Collision group 0..15.
    pub group: u8,
    /// The file's 16-bit collision mask as stored: a set bit is a group this
    /// body collides with (a PMX editor shows the clear bits ticked as its
    /// "non-collision groups"; `../shared/spec/physics.md`).
    pub no_collision: u16,
    pub shape: Shape,
    /// Sphere: x = radius; box: half extents; capsule: x = radius, y = height.
    pub size: Vec3,
    /// Model space (PMD files store it relative to the bone; the reader
    /// converts it).
    pub position: Vec3,
    /// Euler angles, radians.
    pub rotation: Vec3,
    pub mass: f32,
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub restitution: f32,
    pub friction: f32,
    pub mode: PhysicsMode,
}

/// A joint between two rigid bodies (read and kept).
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    pub name: String,
    pub name_en: String,
    /// 0 = spring 6DOF (PMX 2.0 and PMD); 2.1 adds 1–5.
    pub kind: u8,
    pub rigid_bodies: [Option<usize>; 2],
    pub position: Vec3,
    pub rotation: Vec3,
    pub translation_limits: (Vec3, Vec3),
    pub rotation_limits: (Vec3, Vec3),
    pub spring_translation: Vec3,
    pub spring_rotation: Vec3,
}

/// A PMX 2.1 soft body (read and kept; only what identifies it is exposed).
#[derive(Debug, Clone, PartialEq)]
pub struct SoftBody {
    pub name: String,
    pub name_en: String,
    /// 0 = triangle mesh, 1 = rope.
    pub shape: u8,
    pub material: Option<usize>,
    /// Number of anchor rigid bodies.
    pub anchors: usize,
    /// Number of pinned vertices.
    pub pins: usize,
}
