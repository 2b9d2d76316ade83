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
        let g = self.g;
        let name = self.text("name (local)")?;
        let name_en = self.text("name (universal)")?;
        let panel = self.c.u8("panel")?;
        let kind_at = self.c.offset();
        let kind = self.c.u8("morph type")?;
        let n = self.count("offset count")?;
        let vertices = m.vertex_count();
        let bones = m.skeleton.bones.len();
        let what = |s: &str| format!("morph {name}: {s}");
        let (iv, ib, imo, ima, ir) = (
            u64::from(g.vertex_index),
            u64::from(g.bone_index),
            u64::from(g.morph_index),
            u64::from(g.material_index),
            u64::from(g.rigid_index),
        );
        let size = match kind {
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
        };
        self.c.check_count(n as u64, size, "morph offset")?;
        let kind = match kind {
            0 | 9 => {
                let mut refs = Vec::with_capacity(n);
                for _ in 0..n {
                    let at = self.c.offset();
                    let target = self.index(g.morph_index, count, &what("morph index"))?;
                    let ratio = self.c.f32("ratio")?;
                    match target {
                        Some(t) if t == index => self.warnings.push(Warning::at(
                            at,
                            what("refers to itself; that entry is ignored"),
                        )),
                        Some(morph) => refs.push(MorphRef { morph, ratio }),
                        None => {}
                    }
                }
                if kind == 0 {
                    MorphKind::Group(refs)
                } else {
                    MorphKind::Flip(refs)
                }
            }
            1 => {
                let mut out = Vec::with_capacity(n);
                for _ in 0..n {
                    let at = self.c.offset();
                    let v = self.vertex_index("vertex index")?;
                    let offset = self.c.vec3("vertex offset")?;
                    if let Some(v) = self.checked(at, v, vertices, &what("vertex index")) {
                        out.push(VertexOffset {
                            vertex: v as u32,
                            offset,
                        });
                    }
                }
                MorphKind::Vertex(out)
            }
            2 => {
                let mut out = Vec::with_capacity(n);
                for _ in 0..n {
                    let bone = self.index(g.bone_index, bones, &what("bone index"))?;
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
                MorphKind::Bone(out)
            }
            3..=7 => {
                let channel = kind - 3;
                if usize::from(channel) > g.additional_uvs {
                    self.warnings.push(Warning::at(
                        kind_at,
                        what(&format!(
                            "changes additional UV {channel} but the model has {}",
                            g.additional_uvs
                        )),
                    ));
                }
                let mut offsets = Vec::with_capacity(n);
                for _ in 0..n {
                    let at = self.c.offset();
                    let v = self.vertex_index("vertex index")?;
                    let offset = self.c.vec4("uv offset")?;
                    if let Some(v) = self.checked(at, v, vertices, &what("vertex index")) {
                        offsets.push(UvOffset {
                            vertex: v as u32,
                            offset,
                        });
                    }
                }
                MorphKind::Uv { channel, offsets }
            }
            8 => {
                let mut out = Vec::with_capacity(n);
                for _ in 0..n {
                    let at = self.c.offset();
                    let raw = self.signed(g.material_index, "material index")?;
                    let material =
                        self.checked(at, raw, m.materials.len(), &what("material index"));
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
                MorphKind::Material(out)
            }
            _ => {
                let mut out = Vec::with_capacity(n);
                for _ in 0..n {
                    let body = self.signed(g.rigid_index, "rigid body index")?;
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
                MorphKind::Impulse(out)
            }
        };
        Ok(Morph {
            name,
            name_en,
            panel,
            kind,
        })
    }
}
