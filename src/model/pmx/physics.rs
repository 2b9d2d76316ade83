//! PMX display frames, rigid bodies, joints and 2.1 soft bodies (read and
//! kept; nothing is simulated).

use super::{Reader, physics_mode};
use crate::model::cursor::Cursor;
use crate::model::data::{DisplayFrame, DisplayItem, Joint, Model, RigidBody, Shape, SoftBody};
use crate::model::error::{ModelError, Warning};

impl Reader<'_> {
    pub(super) fn display_frames(&mut self, m: &mut Model) -> Result<(), ModelError> {
        let count = self.count("display frame count")?;
        self.c
            .check_count(count as u64, 4 + 4 + 1 + 4, "display frame")?;
        let bones = m.skeleton.bones.len();
        let morphs = m.morphs.len();
        for i in 0..count {
            let one = |r: &mut Self| -> Result<DisplayFrame, ModelError> {
                let name = r.text("name (local)")?;
                let name_en = r.text("name (universal)")?;
                let special = r.c.u8("special flag")? != 0;
                let n = r.count("item count")?;
                r.c.check_count(n as u64, 2, "display item")?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    let at = r.c.offset();
                    match r.c.u8("item kind")? {
                        0 => {
                            if let Some(b) = r.index(r.g.bone_index, bones, "display bone index")? {
                                items.push(DisplayItem::Bone(b));
                            }
                        }
                        1 => {
                            if let Some(k) =
                                r.index(r.g.morph_index, morphs, "display morph index")?
                            {
                                items.push(DisplayItem::Morph(k));
                            }
                        }
                        other => {
                            return Err(Cursor::invalid_at(
                                at,
                                format!("display item kind {other} (expected 0 or 1)"),
                            ));
                        }
                    }
                }
                Ok(DisplayFrame {
                    name,
                    name_en,
                    special,
                    items,
                })
            };
            let frame = one(self).map_err(|e| e.within("display frame", i))?;
            m.display_frames.push(frame);
        }
        Ok(())
    }
    pub(super) fn rigid_bodies(&mut self, m: &mut Model) -> Result<(), ModelError> {
        let count = self.count("rigid body count")?;
        let ib = u64::from(self.g.bone_index);
        self.c
            .check_count(count as u64, 8 + ib + 1 + 2 + 1 + 36 + 20 + 1, "rigid body")?;
        let bones = m.skeleton.bones.len();
        for i in 0..count {
            let one = |r: &mut Self| -> Result<RigidBody, ModelError> {
                let name = r.text("name (local)")?;
                let name_en = r.text("name (universal)")?;
                let bone = r.index(
                    r.g.bone_index,
                    bones,
                    &format!("rigid body {name}: bone index"),
                )?;
                let group = r.c.u8("group")?;
                let no_collision = r.c.u16("non-collision mask")?;
                let shape_at = r.c.offset();
                let shape = match r.c.u8("shape")? {
                    0 => Shape::Sphere,
                    1 => Shape::Box,
                    2 => Shape::Capsule,
                    other => {
                        r.warnings.push(Warning::at(
                            shape_at,
                            format!("rigid body {name}: shape {other} (expected 0 to 2); read as a sphere"),
                        ));
                        Shape::Sphere
                    }
                };
                let size = r.c.vec3("size")?;
                let position = r.c.vec3("position")?;
                let rotation = r.c.vec3("rotation")?;
                let mass = r.c.f32("mass")?;
                let linear_damping = r.c.f32("linear damping")?;
                let angular_damping = r.c.f32("angular damping")?;
                let restitution = r.c.f32("restitution")?;
                let friction = r.c.f32("friction")?;
                let mode = physics_mode(r.c.u8("physics mode")?);
                Ok(RigidBody {
                    name,
                    name_en,
                    bone,
                    group,
                    no_collision,
                    shape,
                    size,
                    position,
                    rotation,
                    mass,
                    linear_damping,
                    angular_damping,
                    restitution,
                    friction,
                    mode,
                })
            };
            let body = one(self).map_err(|e| e.within("rigid body", i))?;
            m.rigid_bodies.push(body);
        }
        Ok(())
    }
    pub(super) fn joints(&mut self, m: &mut Model) -> Result<(), ModelError> {
        let count = self.count("joint count")?;
        let ir = u64::from(self.g.rigid_index);
        self.c
            .check_count(count as u64, 8 + 1 + 2 * ir + 12 * 8, "joint")?;
        let bodies = m.rigid_bodies.len();
        for i in 0..count {
            let one = |r: &mut Self| -> Result<Joint, ModelError> {
                let name = r.text("name (local)")?;
                let name_en = r.text("name (universal)")?;
                let kind = r.c.u8("joint type")?;
                let a = r.index(
                    r.g.rigid_index,
                    bodies,
                    &format!("joint {name}: rigid body A"),
                )?;
                let b = r.index(
                    r.g.rigid_index,
                    bodies,
                    &format!("joint {name}: rigid body B"),
                )?;
                Ok(Joint {
                    name,
                    name_en,
                    kind,
                    rigid_bodies: [a, b],
                    position: r.c.vec3("position")?,
                    rotation: r.c.vec3("rotation")?,
                    translation_limits: (
                        r.c.vec3("translation min")?,
                        r.c.vec3("translation max")?,
                    ),
                    rotation_limits: (r.c.vec3("rotation min")?, r.c.vec3("rotation max")?),
                    spring_translation: r.c.vec3("spring translation")?,
                    spring_rotation: r.c.vec3("spring rotation")?,
                })
            };
            let joint = one(self).map_err(|e| e.within("joint", i))?;
            m.joints.push(joint);
        }
        Ok(())
    }
    pub(super) fn soft_bodies(&mut self, m: &mut Model) -> Result<(), ModelError> {
        let count = self.count("soft body count")?;
        let g = self.g;
        let fixed_after_material = 1 + 2 + 1 + 4 + 4 + 4 + 4 + 4 + 12 * 4 + 6 * 4 + 4 * 4 + 3 * 4;
        self.c.check_count(
            count as u64,
            8 + 1 + u64::from(g.material_index) + fixed_after_material + 8,
            "soft body",
        )?;
        let materials = m.materials.len();
        for i in 0..count {
            let one = |r: &mut Self| -> Result<SoftBody, ModelError> {
                let name = r.text("name (local)")?;
                let name_en = r.text("name (universal)")?;
                let shape = r.c.u8("shape")?;
                let material = r.index(
                    g.material_index,
                    materials,
                    &format!("soft body {name}: material"),
                )?;
                r.c.skip(fixed_after_material, "soft body parameters")?;
                let anchors = r.count("anchor count")?;
                let anchor_size = u64::from(g.rigid_index) + u64::from(g.vertex_index) + 1;
                r.c.check_count(anchors as u64, anchor_size, "anchor")?;
                r.c.skip(anchors as u64 * anchor_size, "anchors")?;
                let pins = r.count("pin count")?;
                let pin_size = u64::from(g.vertex_index);
                r.c.check_count(pins as u64, pin_size, "pinned vertex")?;
                r.c.skip(pins as u64 * pin_size, "pinned vertices")?;
                Ok(SoftBody {
                    name,
                    name_en,
                    shape,
                    material,
                    anchors,
                    pins,
                })
            };
            let body = one(self).map_err(|e| e.within("soft body", i))?;
            m.soft_bodies.push(body);
        }
        Ok(())
    }
}
