//! PMX morphs: group, vertex, bone, UV (main and additional), material,
//! and the 2.1 flip and impulse morphs.

use glam::Quat;

use super::Reader;
use crate::model::cursor::Cursor;
use crate::model::data::{
    BoneOffset, Impulse, MaterialOffset, MaterialOp, Model, Morph, MorphKind, MorphRef, UvOffset,
    VertexOffset,
};
use crate::model::error::{ModelError, Warning};

impl Reader<'_> {
    pub(super) fn morphs(&mut self, m: &mut Model) -> Result<(), ModelError> {
        let count = self.count("morph count")?;
        // two names, panel 1, type 1, offset count 4
        self.c
            .check_count(count as u64, 4 + 4 + 1 + 1 + 4, "morph")?;
        m.morphs.reserve_exact(count);
        for i in 0..count {
            let morph = self.morph(m, count, i).map_err(|e| e.within("morph", i))?;
            m.morphs.push(morph);
        }
        Ok(())
    }
    fn morph(&mut self, m: &Model, count: usize, index: usize) -> Result<Morph, ModelError> {
        let name = self.text("name (local)")?;
        let name_en = self.text("name (universal)")?;
        let panel = self.c.u8("panel")?;
        let kind_at = self.c.offset();
        let kind = self.c.u8("morph type")?;
        let n = self.count("offset count")?;
        let size = self.offset_size(kind, kind_at)?;
        self.c.check_count(n as u64, size, "morph offset")?;
        let vertices = m.vertex_count();
        let kind = match kind {
            0 | 9 => {
                let refs = self.morph_refs(&name, n, count, index)?;
                if kind == 0 {
                    MorphKind::Group(refs)
                } else {
                    MorphKind::Flip(refs)
                }
            }
            1 => MorphKind::Vertex(self.vertex_offsets(&name, n, vertices)?),
            2 => MorphKind::Bone(self.bone_offsets(&name, n, m.skeleton.bones.len())?),
            3..=7 => self.uv_morph(&name, n, kind - 3, kind_at, vertices)?,
            8 => MorphKind::Material(self.material_offsets(&name, n, m.materials.len())?),
            _ => MorphKind::Impulse(self.impulses(n)?),
        };
        Ok(Morph {
            name,
            name_en,
            panel,
            kind,
        })
    }

    /// Bytes of one offset of morph type `kind` (read at `kind_at`);
    /// refuses types past 10.
    fn offset_size(&self, kind: u8, kind_at: usize) -> Result<u64, ModelError> {
        let g = self.g;
        let (iv, ib, imo, ima, ir) = (
            u64::from(g.vertex_index),
            u64::from(g.bone_index),
            u64::from(g.morph_index),
            u64::from(g.material_index),
            u64::from(g.rigid_index),
        );
        Ok(match kind {
            0 | 9 => imo + 4,
            1 => iv + 12,
            2 => ib + 12 + 16,
            3..=7 => iv + 16,
            8 => ima + 1 + 16 + 12 + 4 + 12 + 16 + 4 + 16 * 3,
            10 => ir + 1 + 24,
            other => {
                return Err(Cursor::invalid_at(
                    kind_at,
                    format!("morph type {other} (expected 0 to 10)"),
                ));
            }
        })
    }

    /// Group (0) and flip (9) entries: other morphs by index; an entry
    /// naming the morph itself (`index`) is dropped with a warning.
    fn morph_refs(
        &mut self,
        name: &str,
        n: usize,
        count: usize,
        index: usize,
    ) -> Result<Vec<MorphRef>, ModelError> {
        let mut refs = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.c.offset();
            let target = self.index(self.g.morph_index, count, &what(name, "morph index"))?;
            let ratio = self.c.f32("ratio")?;
            match target {
                Some(t) if t == index => self.warnings.push(Warning::at(
                    at,
                    what(name, "refers to itself; that entry is ignored"),
                )),
                Some(morph) => refs.push(MorphRef { morph, ratio }),
                None => {}
            }
        }
        Ok(refs)
    }

    /// Vertex (1) offsets; a bad vertex index is dropped.
    fn vertex_offsets(
        &mut self,
        name: &str,
        n: usize,
        vertices: usize,
    ) -> Result<Vec<VertexOffset>, ModelError> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.c.offset();
            let v = self.vertex_index("vertex index")?;
            let offset = self.c.vec3("vertex offset")?;
            if let Some(v) = self.checked(at, v, vertices, &what(name, "vertex index")) {
                out.push(VertexOffset {
                    vertex: v as u32,
                    offset,
                });
            }
        }
        Ok(out)
    }

    /// Bone (2) offsets; a rotation that is not a finite, non-zero
    /// quaternion becomes the identity.
    fn bone_offsets(
        &mut self,
        name: &str,
        n: usize,
        bones: usize,
    ) -> Result<Vec<BoneOffset>, ModelError> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let bone = self.index(self.g.bone_index, bones, &what(name, "bone index"))?;
            let translation = self.c.vec3("translation")?;
            let q = self.c.vec4("rotation")?;
            let rotation = Quat::from_vec4(q);
            let rotation = if rotation.length_squared() > 1e-12 && rotation.is_finite() {
                rotation.normalize()
            } else {
                Quat::IDENTITY
            };
            if let Some(bone) = bone {
                out.push(BoneOffset {
                    bone,
                    translation,
                    rotation,
                });
            }
        }
        Ok(out)
    }

    /// UV (3) and additional UV (4..=7, `channel` 1..=4) offsets; a channel
    /// the model lacks is kept with a warning.
    fn uv_morph(
        &mut self,
        name: &str,
        n: usize,
        channel: u8,
        kind_at: usize,
        vertices: usize,
    ) -> Result<MorphKind, ModelError> {
        let g = self.g;
        if usize::from(channel) > g.additional_uvs {
            self.warnings.push(Warning::at(
                kind_at,
                what(
                    name,
                    &format!(
                        "changes additional UV {channel} but the model has {}",
                        g.additional_uvs
                    ),
                ),
            ));
        }
        let mut offsets = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.c.offset();
            let v = self.vertex_index("vertex index")?;
            let offset = self.c.vec4("uv offset")?;
            if let Some(v) = self.checked(at, v, vertices, &what(name, "vertex index")) {
                offsets.push(UvOffset {
                    vertex: v as u32,
                    offset,
                });
            }
        }
        Ok(MorphKind::Uv { channel, offsets })
    }

    /// Material (8) offsets: −1 means every material; a bad index is dropped.
    fn material_offsets(
        &mut self,
        name: &str,
        n: usize,
        materials: usize,
    ) -> Result<Vec<MaterialOffset>, ModelError> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.c.offset();
            let raw = self.signed(self.g.material_index, "material index")?;
            let material = self.checked(at, raw, materials, &what(name, "material index"));
            let op_at = self.c.offset();
            let op = match self.c.u8("operation")? {
                0 => MaterialOp::Multiply,
                1 => MaterialOp::Add,
                other => {
                    return Err(Cursor::invalid_at(
                        op_at,
                        format!("material operation {other} (expected 0 or 1)"),
                    ));
                }
            };
            let offset = MaterialOffset {
                material,
                op,
                diffuse: self.c.vec4("diffuse")?,
                specular: self.c.vec3("specular")?,
                specular_power: self.c.f32("specular power")?,
                ambient: self.c.vec3("ambient")?,
                edge_colour: self.c.vec4("edge colour")?,
                edge_size: self.c.f32("edge size")?,
                texture_tint: self.c.vec4("texture tint")?,
                sphere_tint: self.c.vec4("sphere tint")?,
                toon_tint: self.c.vec4("toon tint")?,
            };
            // −1 means every material; a bad index is dropped.
            if material.is_some() || raw == -1 {
                out.push(offset);
            }
        }
        Ok(out)
    }

    /// Impulse (10, PMX 2.1) entries. Rigid bodies come later in the file:
    /// their indices are checked then; a negative one is dropped here.
    fn impulses(&mut self, n: usize) -> Result<Vec<Impulse>, ModelError> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let body = self.signed(self.g.rigid_index, "rigid body index")?;
            let local = self.c.u8("local flag")? != 0;
            let velocity = self.c.vec3("velocity")?;
            let torque = self.c.vec3("torque")?;
            // Rigid bodies come later in the file: checked then.
            if let Ok(rigid_body) = usize::try_from(body) {
                out.push(Impulse {
                    rigid_body,
                    local,
                    velocity,
                    torque,
                });
            }
        }
        Ok(out)
    }
}

/// A message about morph `name`.
fn what(name: &str, s: &str) -> String {
    format!("morph {name}: {s}")
}
