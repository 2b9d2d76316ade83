//! PMD reader: walks past vertices, faces and materials, then reads bones and
//! the IK list. Later sections (morphs, display frames, English names, …)
//! are not read.
//!
//! Layout (little-endian; see `shared/spec/model-bones.md`):
//! `"Pmd"` + version f32, model name 20 + comment 256 (Shift_JIS),
//! vertices u32 × 38, face indices u32 × 2, materials u32 × 70,
//! bones u16 × 39, IK u16 × (11 + 2 × chain length).

use glam::Vec3;

use super::model::{Bone, BoneFlags, BoneTail, IkChain, IkLink, Inherit, Skeleton};
use super::reader::{Cursor, ModelError};

/// Header: signature 3 + version 4 + model name 20 + comment 256.
const HEADER_SIZE: u64 = 3 + 4 + 20 + 256;
/// Vertex: position 12 + normal 12 + uv 8 + bones 2×2 + weight 1 + edge 1.
const VERTEX_SIZE: u64 = 12 + 12 + 8 + 2 * 2 + 1 + 1;
/// Material: diffuse 16 + specular power 4 + specular 12 + ambient 12
/// + toon 1 + edge 1 + face count 4 + texture name 20.
const MATERIAL_SIZE: u64 = 16 + 4 + 12 + 12 + 1 + 1 + 4 + 20;
/// Bone: name 20 + parent 2 + tail 2 + type 1 + IK parent 2 + position 12.
const BONE_SIZE: u64 = 20 + 2 + 2 + 1 + 2 + 12;
/// IK record without its chain: IK bone 2 + target 2 + chain length 1
/// + iterations 2 + limit 4.
const IK_FIXED_SIZE: u64 = 2 + 2 + 1 + 2 + 4;

/// PMD's IK limit unit: public solvers (saba) multiply by 4 to get radians
/// per CCD step.
pub const PMD_IK_LIMIT_TO_RADIANS: f32 = 4.0;
/// Smallest knee bend (radians) the solver allows: 0.5°.
pub const KNEE_MIN_BEND: f32 = 0.5 * std::f32::consts::PI / 180.0;

/// Limits given to a PMD knee (a chain bone whose name contains ひざ):
/// rotation about X only, `x ∈ [−π, −0.5°]`. In MMD's left-handed
/// coordinates a negative X rotation swings the shin backwards (+Z), so the
/// knee bends forward and never backwards.
pub fn knee_limits() -> (Vec3, Vec3) {
    (
        Vec3::new(-std::f32::consts::PI, 0.0, 0.0),
        Vec3::new(-KNEE_MIN_BEND, 0.0, 0.0),
    )
}

/// A 20-byte (or other fixed-size) Shift_JIS name, cut at the first NUL.
fn sjis_name(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    encoding_rs::SHIFT_JIS
        .decode_without_bom_handling(&raw[..end])
        .0
        .into_owned()
}

/// Reads a PMD file's skeleton. A parent, tail or IK reference of 0xFFFF or
/// outside the bone list is read as "none"; a tail of 0 also means "none"
/// (PMD tip bones use it).
pub(crate) fn read_pmd(bytes: &[u8]) -> Result<Skeleton, ModelError> {
    let mut c = Cursor::new(bytes);
    c.skip(HEADER_SIZE, "header (signature, version, name, comment)")?;

    let vertices = c.u32("vertex count")?;
    c.check_count(u64::from(vertices), VERTEX_SIZE, "vertex")?;
    c.skip(u64::from(vertices) * VERTEX_SIZE, "vertices")?;

    let faces = c.u32("face index count")?;
    c.check_count(u64::from(faces), 2, "face vertex index")?;
    c.skip(u64::from(faces) * 2, "face vertex indices")?;

    let materials = c.u32("material count")?;
    c.check_count(u64::from(materials), MATERIAL_SIZE, "material")?;
    c.skip(u64::from(materials) * MATERIAL_SIZE, "materials")?;

    let count = usize::from(c.u16("bone count")?);
    c.check_count(count as u64, BONE_SIZE, "bone")?;
    let mut bones = Vec::with_capacity(count);
    let index_in = |raw: u16| Some(usize::from(raw)).filter(|&i| i < count);
    let mut ik_bones = vec![false; count];
    for index in 0..count {
        let mut one = || -> Result<Bone, ModelError> {
            let name = sjis_name(c.bytes(20, "name")?);
            let parent = index_in(c.u16("parent index")?).filter(|&p| p != index);
            let tail_raw = c.u16("tail index")?;
            let kind = c.u8("bone type")?;
            let ik_parent = c.u16("IK parent index")?;
            let rest_position = c.vec3("position")?;
            let tail = index_in(tail_raw)
                .filter(|&t| t != 0 && t != index)
                .map(BoneTail::Bone);
            let (tail, inherit) = match kind {
                // 5: rotation influenced — copies the rotation of the bone in
                // the IK-parent field.
                5 => (
                    tail,
                    index_in(ik_parent).map(|source| Inherit {
                        source,
                        ratio: 1.0,
                        rotation: true,
                        translation: false,
                    }),
                ),
                // 9: rotation linked — the tail field holds the source, the
                // IK-parent field the ratio in percent.
                9 => (
                    None,
                    index_in(tail_raw).map(|source| Inherit {
                        source,
                        ratio: f32::from(ik_parent) / 100.0,
                        rotation: true,
                        translation: false,
                    }),
                ),
                _ => (tail, None),
            };
            Ok(Bone {
                name,
                parent,
                rest_position,
                tail,
                flags: BoneFlags {
                    rotatable: kind != 7,
                    movable: matches!(kind, 1 | 2),
                    visible: kind != 7,
                    ik: false,
                },
                inherit: inherit.filter(|i| i.source != index),
                layer: 0,
            })
        };
        bones.push(one().map_err(|e| e.within("bone", index))?);
    }

    let ik_count = c.u16("IK count")?;
    c.check_count(u64::from(ik_count), IK_FIXED_SIZE, "IK chain")?;
    let mut iks = Vec::with_capacity(usize::from(ik_count));
    for k in 0..usize::from(ik_count) {
        let mut one = || -> Result<Option<IkChain>, ModelError> {
            let ik_bone = index_in(c.u16("IK bone index")?);
            let target = index_in(c.u16("target bone index")?);
            let length = c.u8("chain length")?;
            let loops = c.u16("iterations")?;
            let limit = c.f32("angle limit")?;
            c.check_count(u64::from(length), 2, "chain bone index")?;
            let mut links = Vec::with_capacity(usize::from(length));
            for _ in 0..length {
                if let Some(bone) = index_in(c.u16("chain bone index")?) {
                    let limits = bones[bone].name.contains("ひざ").then(knee_limits);
                    links.push(IkLink { bone, limits });
                }
            }
            Ok(match (ik_bone, target) {
                (Some(ik_bone), Some(target)) => Some(IkChain {
                    ik_bone,
                    target,
                    loops: u32::from(loops),
                    limit_angle: limit * PMD_IK_LIMIT_TO_RADIANS,
                    links,
                }),
                _ => None,
            })
        };
        if let Some(chain) = one().map_err(|e| e.within("IK chain", k))? {
            ik_bones[chain.ik_bone] = true;
            iks.push(chain);
        }
    }
    for (bone, is_ik) in bones.iter_mut().zip(&ik_bones) {
        bone.flags.ik = *is_ik;
    }
    Ok(Skeleton { bones, iks })
}
