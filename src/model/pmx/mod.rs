//! PMX 2.0/2.1 reader: every section, into a [`Model`].
//!
//! Layout (little-endian; see `shared/spec/model-bones.md`): `"PMX "`,
//! version f32, globals count u8 + globals (text encoding, additional-UV
//! count, six index sizes), 4 × text (model name local/universal, comment
//! local/universal), then sections, each an i32 count followed by records:
//! vertices, face indices, textures, materials, bones, morphs, display
//! frames, rigid bodies, joints and (2.1) soft bodies.
//!
//! Vertex indices of size 1 and 2 are unsigned; every other index is
//! signed, −1 meaning "none". Counts are checked against the bytes left
//! before anything is allocated. References that point nowhere are dropped
//! with a [`Warning`]; the model still loads.

mod bones;
mod morphs;
mod physics;

use super::cursor::Cursor;
use super::data::{Deform, Format, Material, MaterialFlags, Model, PhysicsMode, SphereMode, Toon};
use super::error::{ModelError, Warning};

/// Bone flag bits (PMX 2.0).
mod flag {
    pub const TAIL_IS_BONE: u16 = 0x0001;
    pub const ROTATABLE: u16 = 0x0002;
    pub const MOVABLE: u16 = 0x0004;
    pub const VISIBLE: u16 = 0x0008;
    pub const OPERABLE: u16 = 0x0010;
    pub const IK: u16 = 0x0020;
    pub const LOCAL_APPEND: u16 = 0x0080;
    pub const INHERIT_ROTATION: u16 = 0x0100;
    pub const INHERIT_TRANSLATION: u16 = 0x0200;
    pub const FIXED_AXIS: u16 = 0x0400;
    pub const LOCAL_AXES: u16 = 0x0800;
    pub const AFTER_PHYSICS: u16 = 0x1000;
    pub const EXTERNAL_PARENT: u16 = 0x2000;
}

/// Text encoding and index sizes from the PMX globals.
#[derive(Debug, Clone, Copy)]
struct Globals {
    utf8: bool,
    additional_uvs: usize,
    vertex_index: u8,
    texture_index: u8,
    material_index: u8,
    bone_index: u8,
    morph_index: u8,
    rigid_index: u8,
}

/// The reader's state: the cursor, the globals and the warnings so far.
struct Reader<'a> {
    c: Cursor<'a>,
    g: Globals,
    warnings: Vec<Warning>,
}

/// Reads a whole PMX file.
pub(crate) fn read_pmx(bytes: &[u8]) -> Result<Model, ModelError> {
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
    let g = read_globals(&mut c)?;
    let mut r = Reader {
        c,
        g,
        warnings: Vec::new(),
    };
    let name = r.text("model name (local)")?;
    let name_en = r.text("model name (universal)")?;
    let comment = r.text("comment (local)")?;
    let comment_en = r.text("comment (universal)")?;
    let mut model = Model::empty(Format::Pmx { version });
    model.utf8 = g.utf8;
    model.name = name;
    model.name_en = name_en;
    model.comment = comment;
    model.comment_en = comment_en;
    model.additional_uvs = vec![Vec::new(); g.additional_uvs];
    let raw_bones = r.vertices(&mut model)?;
    r.faces(&mut model)?;
    r.textures(&mut model)?;
    r.materials(&mut model)?;
    model.skeleton = r.bones()?;
    super::check::fix_deform_bones(&mut model, &raw_bones, &mut r.warnings);
    // Files written by some tools end after the bones (or later): a
    // section that is entirely absent reads as empty.
    if r.optional_section("morphs") {
        r.morphs(&mut model)?;
    }
    if r.optional_section("display frames") {
        r.display_frames(&mut model)?;
    }
    if r.optional_section("rigid bodies") {
        r.rigid_bodies(&mut model)?;
    }
    if r.optional_section("joints") {
        r.joints(&mut model)?;
    }
    if version > 2.05 && r.c.remaining() > 0 {
        r.soft_bodies(&mut model)?;
    }
    if r.c.remaining() > 0 {
        let at = r.c.offset();
        let left = r.c.remaining();
        r.warnings.push(Warning::at(
            at,
            format!("{left} bytes after the last section were ignored"),
        ));
    }
    super::check::check_model(&mut model, &mut r.warnings);
    model.warnings = r.warnings;
    Ok(model)
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
        additional_uvs: usize::from(g[1]),
        vertex_index: g[2],
        texture_index: g[3],
        material_index: g[4],
        bone_index: g[5],
        morph_index: g[6],
        rigid_index: g[7],
    })
}

/// Decodes PMX text bytes in the file's encoding (invalid sequences become
/// U+FFFD; names are never cut).
pub(crate) fn decode_text(raw: &[u8], utf8: bool) -> String {
    if utf8 {
        String::from_utf8_lossy(raw).into_owned()
    } else {
        encoding_rs::UTF_16LE
            .decode_without_bom_handling(raw)
            .0
            .into_owned()
    }
}

impl Reader<'_> {
    fn text(&mut self, what: &str) -> Result<String, ModelError> {
        let at = self.c.offset();
        let len = self.c.i32(what)?;
        let len = usize::try_from(len)
            .map_err(|_| Cursor::invalid_at(at, format!("{what}: negative text length {len}")))?;
        let raw = self.c.bytes(len, what)?;
        Ok(decode_text(raw, self.g.utf8))
    }

    /// Reads an i32 section count, checking it is not negative.
    fn count(&mut self, what: &str) -> Result<usize, ModelError> {
        let at = self.c.offset();
        let n = self.c.i32(what)?;
        usize::try_from(n).map_err(|_| Cursor::invalid_at(at, format!("negative {what} {n}")))
    }

    /// Whether a trailing section is present; warns when the file ends
    /// before it.
    fn optional_section(&mut self, what: &str) -> bool {
        if self.c.remaining() == 0 {
            let at = self.c.offset();
            self.warnings.push(Warning::at(
                at,
                format!("the file ends before the {what} section; read as none"),
            ));
            false
        } else {
            true
        }
    }

    /// A signed index of `size` bytes (−1 = none).
    fn signed(&mut self, size: u8, what: &str) -> Result<i64, ModelError> {
        Ok(match size {
            1 => i64::from(self.c.i8(what)?),
            2 => i64::from(self.c.i16(what)?),
            _ => i64::from(self.c.i32(what)?),
        })
    }

    /// A vertex index: unsigned for sizes 1 and 2, signed i32 for 4.
    fn vertex_index(&mut self, what: &str) -> Result<i64, ModelError> {
        Ok(match self.g.vertex_index {
            1 => i64::from(self.c.u8(what)?),
            2 => i64::from(self.c.u16(what)?),
            _ => i64::from(self.c.i32(what)?),
        })
    }

    /// An index that must be below `count` (or −1 = none). Anything else is
    /// `None` with a warning naming `what` and the offset.
    fn index(&mut self, size: u8, count: usize, what: &str) -> Result<Option<usize>, ModelError> {
        let at = self.c.offset();
        let raw = self.signed(size, what)?;
        Ok(self.checked(at, raw, count, what))
    }

    fn checked(&mut self, at: usize, raw: i64, count: usize, what: &str) -> Option<usize> {
        match usize::try_from(raw) {
            Ok(i) if i < count => Some(i),
            _ if raw == -1 => None,
            _ => {
                self.warnings.push(Warning::at(
                    at,
                    format!("{what} {raw} is out of range (count {count}); ignored"),
                ));
                None
            }
        }
    }

    /// Reads the vertices; returns the raw bone indices per vertex (checked
    /// once the bone count is known).
    fn vertices(&mut self, m: &mut Model) -> Result<Vec<[i64; 4]>, ModelError> {
        let count = self.count("vertex count")?;
        let bi = u64::from(self.g.bone_index);
        let fixed = 12 + 12 + 8 + 16 * self.g.additional_uvs as u64;
        self.c
            .check_count(count as u64, fixed + 1 + bi + 4, "vertex")?;
        m.positions.reserve_exact(count);
        m.normals.reserve_exact(count);
        m.uvs.reserve_exact(count);
        m.deforms.reserve_exact(count);
        m.edge_scale.reserve_exact(count);
        for ch in &mut m.additional_uvs {
            ch.reserve_exact(count);
        }
        let mut raw_bones = Vec::with_capacity(count);
        for i in 0..count {
            let (deform, raw) = self.vertex(m).map_err(|e| e.within("vertex", i))?;
            m.deforms.push(deform);
            raw_bones.push(raw);
        }
        Ok(raw_bones)
    }

    fn vertex(&mut self, m: &mut Model) -> Result<(Deform, [i64; 4]), ModelError> {
        m.positions.push(self.c.vec3("position")?);
        m.normals.push(self.c.vec3("normal")?);
        m.uvs.push(self.c.vec2("uv")?);
        for ch in &mut m.additional_uvs {
            ch.push(self.c.vec4("additional uv")?);
        }
        let type_at = self.c.offset();
        let kind = self.c.u8("weight type")?;
        let bs = self.g.bone_index;
        let mut raw = [-1i64; 4];
        let deform = match kind {
            0 => {
                raw[0] = self.signed(bs, "bone index")?;
                Deform::Bdef1 { bone: 0 }
            }
            1 | 3 => {
                raw[0] = self.signed(bs, "bone index 1")?;
                raw[1] = self.signed(bs, "bone index 2")?;
                let weight = self.c.f32("weight")?;
                if kind == 1 {
                    Deform::Bdef2 {
                        bones: [0; 2],
                        weight,
                    }
                } else {
                    Deform::Sdef {
                        bones: [0; 2],
                        weight,
                        c: self.c.vec3("SDEF C")?,
                        r0: self.c.vec3("SDEF R0")?,
                        r1: self.c.vec3("SDEF R1")?,
                    }
                }
            }
            2 | 4 => {
                for r in &mut raw {
                    *r = self.signed(bs, "bone index")?;
                }
                let mut weights = [0.0; 4];
                for w in &mut weights {
                    *w = self.c.f32("weight")?;
                }
                if kind == 2 {
                    Deform::Bdef4 {
                        bones: [0; 4],
                        weights,
                    }
                } else {
                    Deform::Qdef {
                        bones: [0; 4],
                        weights,
                    }
                }
            }
            other => {
                return Err(Cursor::invalid_at(
                    type_at,
                    format!("weight type {other} (expected 0 to 4)"),
                ));
            }
        };
        m.edge_scale.push(self.c.f32("edge scale")?);
        Ok((deform, raw))
    }

    fn faces(&mut self, m: &mut Model) -> Result<(), ModelError> {
        let count = self.count("face index count")?;
        self.c.check_count(
            count as u64,
            u64::from(self.g.vertex_index),
            "face vertex index",
        )?;
        let vertices = m.vertex_count();
        let start = self.c.offset();
        m.indices.reserve_exact(count);
        let mut bad = 0usize;
        for _ in 0..count {
            let raw = self.vertex_index("face vertex index")?;
            match u32::try_from(raw) {
                Ok(v) if (v as usize) < vertices => m.indices.push(v),
                _ => {
                    bad += 1;
                    m.indices.push(0);
                }
            }
        }
        if bad > 0 {
            self.warnings.push(Warning::at(
                start,
                format!("{bad} face vertex indices point past the {vertices} vertices; vertex 0 used instead"),
            ));
        }
        if !count.is_multiple_of(3) {
            self.warnings.push(Warning::at(
                start,
                format!(
                    "face index count {count} is not a multiple of 3; the last {} ignored",
                    count % 3
                ),
            ));
            m.indices.truncate(count - count % 3);
        }
        Ok(())
    }

    fn textures(&mut self, m: &mut Model) -> Result<(), ModelError> {
        let count = self.count("texture count")?;
        self.c.check_count(count as u64, 4, "texture path")?;
        for i in 0..count {
            let path = self
                .text("texture path")
                .map_err(|e| e.within("texture", i))?;
            m.textures.push(path);
        }
        Ok(())
    }

    fn materials(&mut self, m: &mut Model) -> Result<(), ModelError> {
        let count = self.count("material count")?;
        let ti = u64::from(self.g.texture_index);
        let min = 4 + 4 + 16 + 12 + 4 + 12 + 1 + 16 + 4 + 2 * ti + 1 + 2 + 4 + 4;
        self.c.check_count(count as u64, min, "material")?;
        for i in 0..count {
            let mat = self
                .material(m.textures.len())
                .map_err(|e| e.within("material", i))?;
            m.materials.push(mat);
        }
        Ok(())
    }

    fn material(&mut self, textures: usize) -> Result<Material, ModelError> {
        let ts = self.g.texture_index;
        let name = self.text("name (local)")?;
        let name_en = self.text("name (universal)")?;
        let diffuse = self.c.vec4("diffuse")?;
        let specular = self.c.vec3("specular")?;
        let specular_power = self.c.f32("specular power")?;
        let ambient = self.c.vec3("ambient")?;
        let flags = MaterialFlags::from_bits(self.c.u8("flags")?);
        let edge_colour = self.c.vec4("edge colour")?;
        let edge_size = self.c.f32("edge size")?;
        let texture = self.index(ts, textures, &format!("material {name}: texture index"))?;
        let sphere = self.index(
            ts,
            textures,
            &format!("material {name}: sphere texture index"),
        )?;
        let mode_at = self.c.offset();
        let sphere_mode = match self.c.u8("sphere mode")? {
            0 => SphereMode::None,
            1 => SphereMode::Multiply,
            2 => SphereMode::Add,
            3 => SphereMode::SubTexture,
            other => {
                self.warnings.push(Warning::at(
                    mode_at,
                    format!("material {name}: sphere mode {other} (expected 0 to 3); no sphere"),
                ));
                SphereMode::None
            }
        };
        let toon_at = self.c.offset();
        let toon = match self.c.u8("toon reference")? {
            0 => match self.index(
                ts,
                textures,
                &format!("material {name}: toon texture index"),
            )? {
                Some(t) => Toon::Texture(t),
                None => Toon::None,
            },
            1 => {
                let at = self.c.offset();
                match self.c.u8("shared toon number")? {
                    n @ 0..=9 => Toon::Shared(n),
                    255 => Toon::None,
                    n => {
                        self.warnings.push(Warning::at(
                            at,
                            format!("material {name}: shared toon {n} (expected 0 to 9); no toon"),
                        ));
                        Toon::None
                    }
                }
            }
            other => {
                return Err(Cursor::invalid_at(
                    toon_at,
                    format!("toon reference {other} (expected 0 or 1)"),
                ));
            }
        };
        let memo = self.text("memo")?;
        let count_at = self.c.offset();
        let index_count = self.c.i32("face index count")?;
        let index_count = usize::try_from(index_count).map_err(|_| {
            Cursor::invalid_at(count_at, format!("negative face index count {index_count}"))
        })?;
        Ok(Material {
            name,
            name_en,
            diffuse,
            specular,
            specular_power,
            ambient,
            flags,
            edge_colour,
            edge_size,
            texture,
            sphere: if sphere_mode == SphereMode::None {
                None
            } else {
                sphere
            },
            sphere_mode,
            toon,
            memo,
            index_count,
        })
    }
}

/// Rigid-body mode byte (unknown values follow the bone).
pub(crate) fn physics_mode(b: u8) -> PhysicsMode {
    match b {
        1 => PhysicsMode::Physics,
        2 => PhysicsMode::PhysicsWithBone,
        _ => PhysicsMode::FollowBone,
    }
}
