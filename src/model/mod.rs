//! Models: PMX/PMD readers, mesh, materials, textures, morphs, MMD's pose
//! rules and CPU skinning — everything a renderer needs, with no GUI or GPU
//! type (builds and tests with `--no-default-features`).
//!
//! # Coordinates and units
//! MMD model space, used as stored, never converted: **left-handed, Y up**,
//! the character facing −Z with its left side at +X, in the file's units (a
//! character is about 20 tall; 1 unit ≈ 8 cm). Rotations are quaternions
//! (x, y, z, w) and angles radians. UV (0, 0) is a texture's top-left, V
//! grows downwards. Colours are 0..1 floats as stored. Matrices are glam
//! column-major `Mat4` acting on column vectors (`world · p`).
//!
//! # Reading
//! * [`Model::read`] (bytes) / [`Model::open`] (file) read PMX 2.0/2.1 or
//!   PMD completely into a [`Model`]: vertex buffers (structure of arrays:
//!   `positions`, `normals`, `uvs`, `additional_uvs`, `deforms`,
//!   `edge_scale`), the triangle `indices`, `textures` (paths as named),
//!   `materials` (each drawing a run of `indices`), the [`Skeleton`],
//!   `morphs`, display frames, rigid bodies, joints and soft bodies.
//!   Fatal problems are a [`ModelError`] naming the byte offset; tolerated
//!   ones (bad references, a bone cycle, …) are [`Warning`]s in
//!   `Model::warnings`, and the model still loads.
//! * [`LoadedModel::open`] also decodes the textures to RGBA8
//!   ([`TextureSet`], parallel to `Model::textures`; a missing or broken
//!   file is `None` plus a warning naming the path).
//! * [`builtin_toon`] gives our own ramps for MMD's shared toons
//!   ([`Toon::Shared`]).
//! * [`load_model`] keeps the old skeleton-only entry point.
//!
//! # Posing (per frame)
//! ```text
//! let motion = IndexedMotion::new(motion);            // index + evaluation cache
//! let mut engine = PoseEngine::new(&model);           // once per model
//! engine.bind(&model, Some(&motion.index));           // once per track index
//! // per frame:
//! engine.pose(&model, Some(motion.as_ref()), frame);
//! // engine.posed.bone_world, .skinning, .positions, .normals,
//! // .materials, .uv_offsets … (see [`Posed`])
//! ```
//! [`PoseEngine`] is the one path every pose takes (see [`engine`]): the
//! motion's values come from its [`EvalCache`](crate::vmd::EvalCache), the
//! [`MotionBinding`] matches names as MMD does, [`Poser`] applies the rules.
//! [`PoseInput`] can also be filled by hand (an editor's live pose). The
//! rules are written out in [`posing`] and [`skin`](self#posing-per-frame).
//! They follow MMD: motion keys → bone morphs → append (付与)
//! rotation/translation (ratio, negative ratios, local append, chains) → deform
//! order by layer and after-physics flag → CCD IK in the model's chain order
//! with loop count, per-step limit, per-link limits and PMD's knee rule,
//! switched by the motion's IK keys → vertex/UV/material/group/flip morphs →
//! skinning (BDEF1/2/4, SDEF, QDEF) with vertex morphs applied first.
//! [`missing_names`] says which bone and morph tracks of a motion a model
//! lacks. The built-in skeleton is a model with no mesh
//! ([`standard_model`]) and is posed the same way.

mod binding;
pub mod builtin;
mod check;
mod cursor;
pub mod data;
mod deform_schedule;
pub mod engine;
pub mod error;
pub mod gizmo;
mod ik;
mod ik_pairs;
mod load;
mod material_morph;
pub mod physics;
mod pmd;
mod pmx;
pub mod posing;
pub mod skeleton;
mod skin;
pub use skin::{DeformCode, MorphDelta, SkinEntry, SkinTables};
pub mod texture;
pub mod xfile;

pub use binding::{MissingNames, MotionBinding, bone_track, missing_names};
pub use builtin::{STANDARD_SKELETON_JSON, parse_skeleton_json, standard_model, standard_skeleton};
pub use data::{
    BoneOffset, Deform, DisplayFrame, DisplayItem, Format, Impulse, Joint, Material, MaterialFlags,
    MaterialOffset, MaterialOp, Model, Morph, MorphCounts, MorphKind, MorphRef, PhysicsMode,
    RigidBody, Shape, SoftBody, SphereMode, Toon, UvOffset, VertexOffset,
};
pub use engine::{PoseEngine, replace_bone};
pub use error::{ModelError, Warning};
pub use load::{LoadedModel, load_model, read_set_piece};
pub use pmd::{KNEE_MIN_BEND, PMD_IK_LIMIT_TO_RADIANS, knee_limits};
pub use posing::{MaterialState, PoseInput, Posed, Poser};
pub use skeleton::{Bone, BoneFlags, BoneTail, IkChain, IkLink, Inherit, Skeleton};
pub use texture::{
    TOON_SIZE, Texture, TextureProblem, TextureSet, builtin_toon, decode_texture, load_textures,
    load_textures_with, resolve_texture_path,
};
