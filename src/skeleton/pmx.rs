//! PMX 2.0/2.1 reader: walks past vertices, faces, textures and materials,
//! then reads bones with their IK data. Morphs and later sections are not
//! read.
//!
//! Layout (little-endian; see `shared/spec/model-bones.md`):
//! `"PMX "`, version f32, globals count u8 + globals, 4 × text (model name
//! local/universal, comment local/universal), then sections each an i32 count
//! followed by records.

use super::model::{Bone, BoneFlags, BoneTail, IkChain, IkLink, Inherit, Skeleton};
use super::reader::{Cursor, ModelError};

/// Bone flag bits (PMX 2.0).
mod flag {
    pub const TAIL_IS_BONE: u16 = 0x0001;
    pub const ROTATABLE: u16 = 0x0002;
    pub const MOVABLE: u16 = 0x0004;
    pub const VISIBLE: u16 = 0x0008;
    pub const IK: u16 = 0x0020;
    pub const INHERIT_ROTATION: u16 = 0x0100;
    pub const INHERIT_TRANSLATION: u16 = 0x0200;
    pub const FIXED_AXIS: u16 = 0x0400;
    pub const LOCAL_AXES: u16 = 0x0800;
    pub const EXTERNAL_PARENT: u16 = 0x2000;
}

/// Text encoding and index sizes from the PMX globals.
#[derive(Debug, Clone, Copy)]
struct Globals {
    utf8: bool,
    additional_vec4: u64,
    vertex_index: u8,
    texture_index: u8,
    bone_index: u8,
}

/// Reads a PMX file's skeleton. Indices outside the bone list (and −1) are
/// read as "none"; an IK chain whose target is missing is dropped, as is a
/// link whose bone is missing.
pub(crate) fn read_pmx(bytes: &[u8]) -> Result<Skeleton, ModelError> {
    let mut c = Cursor::new(bytes);
    c.bytes(4, "signature \"PMX \"")?;
    let version_at = c.offset();
    let version = c.f32("version")?;
    if !(1.999..=2.101).contains(&version) {
        return Err(Cursor::invalid_at(
            version_at,
            format!("PMX version {version} (expected 2.0 or 2.1)"),
        ));
    }
    let globals = read_globals(&mut c)?;
    for what in [
        "model name (local)",
        "model name (universal)",
        "comment (local)",
        "comment (universal)",
    ] {
        skip_text(&mut c, what)?;
    }
    skip_vertices(&mut c, &globals)?;
    skip_faces(&mut c, &globals)?;
    skip_textures(&mut c)?;
    skip_materials(&mut c, &globals)?;
    read_bones(&mut c, &globals)
}

fn read_globals(c: &mut Cursor) -> Result<Globals, ModelError> {
    let count_at = c.offset();
    let count = c.u8("globals count")?;
    if count < 8 {
        return Err(Cursor::invalid_at(
            count_at,
            format!("globals count {count} (expected at least 8)"),
        ));
    }
    let start = c.offset();
    let g = c.bytes(usize::from(count), "globals")?;
    let utf8 = match g[0] {
        0 => false,
        1 => true,
        other => {
            return Err(Cursor::invalid_at(
                start,
                format!("text encoding {other} (expected 0 = UTF-16LE or 1 = UTF-8)"),
            ));
        }
    };
    if g[1] > 4 {
        return Err(Cursor::invalid_at(
            start + 1,
            format!("additional vec4 count {} (expected 0 to 4)", g[1]),
        ));
    }
    let names = [
        "vertex index size",
        "texture index size",
        "material index size",
        "bone index size",
        "morph index size",
        "rigid-body index size",
    ];
    for (k, name) in names.iter().enumerate() {
        let size = g[2 + k];
        if !matches!(size, 1 | 2 | 4) {
            return Err(Cursor::invalid_at(
                start + 2 + k,
                format!("{name} {size} (expected 1, 2 or 4)"),
            ));
        }
    }
    Ok(Globals {
        utf8,
        additional_vec4: u64::from(g[1]),
        vertex_index: g[2],
        texture_index: g[3],
        bone_index: g[5],
    })
}

/// Reads an i32 byte length, checking it is not negative.
fn text_len(c: &mut Cursor, what: &str) -> Result<usize, ModelError> {
    let at = c.offset();
    let len = c.i32(what)?;
    usize::try_from(len)
        .map_err(|_| Cursor::invalid_at(at, format!("{what}: negative text length {len}")))
}

fn skip_text(c: &mut Cursor, what: &str) -> Result<(), ModelError> {
    let len = text_len(c, what)?;
    c.skip(len as u64, what)
}

fn read_text(c: &mut Cursor, g: &Globals, what: &str) -> Result<String, ModelError> {
    let len = text_len(c, what)?;
    let raw = c.bytes(len, what)?;
    Ok(if g.utf8 {
        String::from_utf8_lossy(raw).into_owned()
    } else {
        encoding_rs::UTF_16LE
            .decode_without_bom_handling(raw)
            .0
            .into_owned()
    })
}

/// Reads an i32 section count, checking it is not negative.
fn section_count(c: &mut Cursor, what: &str) -> Result<u64, ModelError> {
    let at = c.offset();
    let n = c.i32(what)?;
    u64::try_from(n).map_err(|_| Cursor::invalid_at(at, format!("negative {what} {n}")))
}

/// Reads a signed index of `size` bytes (−1 = none).
fn signed_index(c: &mut Cursor, size: u8, what: &str) -> Result<i64, ModelError> {
    Ok(match size {
        1 => i64::from(c.i8(what)?),
        2 => i64::from(c.i16(what)?),
        _ => i64::from(c.i32(what)?),
    })
}

/// A bone index, `None` when negative or not below `bone_count`.
fn bone_index(
    c: &mut Cursor,
    g: &Globals,
    bone_count: usize,
    what: &str,
) -> Result<Option<usize>, ModelError> {
    let raw = signed_index(c, g.bone_index, what)?;
    Ok(usize::try_from(raw).ok().filter(|&i| i < bone_count))
}

fn skip_vertices(c: &mut Cursor, g: &Globals) -> Result<(), ModelError> {
    let count = section_count(c, "vertex count")?;
    let bi = u64::from(g.bone_index);
    // position 12 + normal 12 + uv 8 + additional 16n + weight type 1
    let fixed = 12 + 12 + 8 + 16 * g.additional_vec4;
    // smallest weight data (BDEF1: one bone index) + edge scale f32
    c.check_count(count, fixed + 1 + bi + 4, "vertex")?;
    for i in 0..count {
        let index = i as usize;
        c.skip(fixed, "vertex position, normal, uv and additional vec4s")
            .map_err(|e| e.within("vertex", index))?;
        let type_at = c.offset();
        let weight = c.u8("weight type").map_err(|e| e.within("vertex", index))?;
        let data = match weight {
            0 => bi,                  // BDEF1: 1 bone
            1 => 2 * bi + 4,          // BDEF2: 2 bones + weight
            2 | 4 => 4 * bi + 4 * 4,  // BDEF4 / QDEF: 4 bones + 4 weights
            3 => 2 * bi + 4 + 3 * 12, // SDEF: 2 bones + weight + C, R0, R1
            other => {
                return Err(Cursor::invalid_at(
                    type_at,
                    format!("vertex {index}: weight type {other} (expected 0 to 4)"),
                ));
            }
        };
        c.skip(data + 4, "vertex weights and edge scale")
            .map_err(|e| e.within("vertex", index))?;
    }
    Ok(())
}

fn skip_faces(c: &mut Cursor, g: &Globals) -> Result<(), ModelError> {
    let count = section_count(c, "face index count")?;
    let size = u64::from(g.vertex_index);
    c.check_count(count, size, "face vertex index")?;
    c.skip(count * size, "face vertex indices")
}

fn skip_textures(c: &mut Cursor) -> Result<(), ModelError> {
    let count = section_count(c, "texture count")?;
    c.check_count(count, 4, "texture path")?;
    for i in 0..count {
        skip_text(c, "texture path").map_err(|e| e.within("texture", i as usize))?;
    }
    Ok(())
}

fn skip_materials(c: &mut Cursor, g: &Globals) -> Result<(), ModelError> {
    let count = section_count(c, "material count")?;
    let ti = u64::from(g.texture_index);
    // diffuse 16 + specular 12 + strength 4 + ambient 12 + flags 1
    // + edge colour 16 + edge size 4 + texture + environment texture
    // + environment mode 1
    let middle = 16 + 12 + 4 + 12 + 1 + 16 + 4 + 2 * ti + 1;
    // two names, middle, toon reference 1 + smallest toon value 1, memo,
    // face-index count 4
    c.check_count(count, 4 + 4 + middle + 2 + 4 + 4, "material")?;
    for i in 0..count {
        let index = i as usize;
        let one = |c: &mut Cursor| -> Result<(), ModelError> {
            skip_text(c, "name (local)")?;
            skip_text(c, "name (universal)")?;
            c.skip(middle, "colours, flags and texture indices")?;
            let toon_at = c.offset();
            let toon = c.u8("toon reference")?;
            match toon {
                0 => c.skip(ti, "toon texture index")?,
                1 => c.skip(1, "shared toon number")?,
                other => {
                    return Err(Cursor::invalid_at(
                        toon_at,
                        format!("toon reference {other} (expected 0 or 1)"),
                    ));
                }
            }
            skip_text(c, "memo")?;
            c.skip(4, "face-index count")
        };
        one(c).map_err(|e| e.within("material", index))?;
    }
    Ok(())
}

fn read_bones(c: &mut Cursor, g: &Globals) -> Result<Skeleton, ModelError> {
    let count_u64 = section_count(c, "bone count")?;
    let bi = u64::from(g.bone_index);
    // two names (4 each), position 12, parent, layer 4, flags 2, smallest tail
    let min_bone = 4 + 4 + 12 + bi + 4 + 2 + bi.min(12);
    c.check_count(count_u64, min_bone, "bone")?;
    // check_count bounds count by the file length, so this fits in usize.
    let count = count_u64 as usize;
    let mut bones = Vec::with_capacity(count);
    let mut iks = Vec::new();
    for index in 0..count {
        let (bone, ik) = read_bone(c, g, count, index).map_err(|e| e.within("bone", index))?;
        bones.push(bone);
        if let Some(ik) = ik {
            iks.push(ik);
        }
    }
    Ok(Skeleton { bones, iks })
}

fn read_bone(
    c: &mut Cursor,
    g: &Globals,
    count: usize,
    index: usize,
) -> Result<(Bone, Option<IkChain>), ModelError> {
    let name = read_text(c, g, "name (local)")?;
    skip_text(c, "name (universal)")?;
    let rest_position = c.vec3("position")?;
    let parent = bone_index(c, g, count, "parent index")?.filter(|&p| p != index);
    let layer = c.i32("deform layer")?;
    let bits = c.u16("flags")?;
    let tail = if bits & flag::TAIL_IS_BONE != 0 {
        bone_index(c, g, count, "tail bone index")?.map(BoneTail::Bone)
    } else {
        Some(BoneTail::Offset(c.vec3("tail offset")?))
    };
    let inherit = if bits & (flag::INHERIT_ROTATION | flag::INHERIT_TRANSLATION) != 0 {
        let source = bone_index(c, g, count, "inherit parent index")?;
        let ratio = c.f32("inherit ratio")?;
        source.filter(|&s| s != index).map(|source| Inherit {
            source,
            ratio,
            rotation: bits & flag::INHERIT_ROTATION != 0,
            translation: bits & flag::INHERIT_TRANSLATION != 0,
        })
    } else {
        None
    };
    if bits & flag::FIXED_AXIS != 0 {
        c.skip(12, "fixed axis")?;
    }
    if bits & flag::LOCAL_AXES != 0 {
        c.skip(24, "local axes")?;
    }
    if bits & flag::EXTERNAL_PARENT != 0 {
        c.skip(4, "external parent key")?;
    }
    let ik = if bits & flag::IK != 0 {
        read_ik(c, g, count, index)?
    } else {
        None
    };
    let bone = Bone {
        name,
        parent,
        rest_position,
        tail,
        flags: BoneFlags {
            rotatable: bits & flag::ROTATABLE != 0,
            movable: bits & flag::MOVABLE != 0,
            visible: bits & flag::VISIBLE != 0,
            ik: ik.is_some(),
        },
        inherit,
        layer,
    };
    Ok((bone, ik))
}

fn read_ik(
    c: &mut Cursor,
    g: &Globals,
    count: usize,
    ik_bone: usize,
) -> Result<Option<IkChain>, ModelError> {
    let target = bone_index(c, g, count, "IK target index")?;
    let loops = c.i32("IK loop count")?;
    let limit_angle = c.f32("IK angle limit")?;
    let link_count = section_count(c, "IK link count")?;
    let bi = u64::from(g.bone_index);
    c.check_count(link_count, bi + 1, "IK link")?;
    let mut links = Vec::with_capacity(link_count as usize);
    for k in 0..link_count as usize {
        let one = |c: &mut Cursor| -> Result<Option<IkLink>, ModelError> {
            let bone = bone_index(c, g, count, "bone index")?;
            let limits = match c.u8("has-limits flag")? {
                0 => None,
                _ => {
                    let a = c.vec3("lower limit")?;
                    let b = c.vec3("upper limit")?;
                    Some((a.min(b), a.max(b)))
                }
            };
            Ok(bone.map(|bone| IkLink { bone, limits }))
        };
        if let Some(link) = one(c).map_err(|e| e.within("IK link", k))? {
            links.push(link);
        }
    }
    Ok(target.map(|target| IkChain {
        ik_bone,
        target,
        loops: u32::try_from(loops).unwrap_or(0),
        limit_angle,
        links,
    }))
}
