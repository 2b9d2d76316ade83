//! PMX bones and IK chains.

use super::{Reader, flag};
use crate::model::error::{ModelError, Warning};
use crate::model::skeleton::{Bone, BoneFlags, BoneTail, IkChain, IkLink, Inherit, Skeleton};

impl Reader<'_> {
    pub(super) fn bones(&mut self) -> Result<Skeleton, ModelError> {
        let count = self.count("bone count")?;
        let bi = u64::from(self.g.bone_index);
        // two names (4 each), position 12, parent, layer 4, flags 2, smallest tail
        let min_bone = 4 + 4 + 12 + bi + 4 + 2 + bi.min(12);
        self.c.check_count(count as u64, min_bone, "bone")?;
        let mut bones = Vec::with_capacity(count);
        let mut iks = Vec::new();
        for index in 0..count {
            let (bone, ik) = self
                .bone(count, index)
                .map_err(|e| e.within("bone", index))?;
            bones.push(bone);
            if let Some(ik) = ik {
                iks.push(ik);
            }
        }
        Ok(Skeleton { bones, iks })
    }
    fn bone(&mut self, count: usize, index: usize) -> Result<(Bone, Option<IkChain>), ModelError> {
        let bs = self.g.bone_index;
        let name = self.text("name (local)")?;
        let name_en = self.text("name (universal)")?;
        let rest_position = self.c.vec3("position")?;
        let parent_at = self.c.offset();
        let parent = self.index(bs, count, &format!("bone {name}: parent index"))?;
        let parent = if parent == Some(index) {
            self.warnings.push(Warning::at(
                parent_at,
                format!("bone {name} is its own parent; read as a root"),
            ));
            None
        } else {
            parent
        };
        let layer = self.c.i32("deform layer")?;
        let bits = self.c.u16("flags")?;
        let tail = if bits & flag::TAIL_IS_BONE != 0 {
            self.index(bs, count, &format!("bone {name}: tail bone index"))?
                .map(BoneTail::Bone)
        } else {
            Some(BoneTail::Offset(self.c.vec3("tail offset")?))
        };
        let inherit = if bits & (flag::INHERIT_ROTATION | flag::INHERIT_TRANSLATION) != 0 {
            let at = self.c.offset();
            let source = self.index(bs, count, &format!("bone {name}: append parent index"))?;
            let ratio = self.c.f32("append ratio")?;
            if source == Some(index) {
                self.warnings.push(Warning::at(
                    at,
                    format!("bone {name} appends from itself; ignored"),
                ));
            }
            source.filter(|&s| s != index).map(|source| Inherit {
                source,
                ratio: if ratio.is_finite() { ratio } else { 0.0 },
                rotation: bits & flag::INHERIT_ROTATION != 0,
                translation: bits & flag::INHERIT_TRANSLATION != 0,
                local: bits & flag::LOCAL_APPEND != 0,
            })
        } else {
            None
        };
        let fixed_axis = if bits & flag::FIXED_AXIS != 0 {
            Some(self.c.vec3("fixed axis")?)
        } else {
            None
        };
        let local_axes = if bits & flag::LOCAL_AXES != 0 {
            Some((self.c.vec3("local X axis")?, self.c.vec3("local Z axis")?))
        } else {
            None
        };
        let external_parent = if bits & flag::EXTERNAL_PARENT != 0 {
            Some(self.c.i32("external parent key")?)
        } else {
            None
        };
        let ik = if bits & flag::IK != 0 {
            self.ik(count, index, &name)?
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
                operable: bits & flag::OPERABLE != 0,
                after_physics: bits & flag::AFTER_PHYSICS != 0,
            },
            inherit,
            layer,
            name_en,
            fixed_axis,
            local_axes,
            external_parent,
        };
        Ok((bone, ik))
    }
    fn ik(
        &mut self,
        count: usize,
        ik_bone: usize,
        name: &str,
    ) -> Result<Option<IkChain>, ModelError> {
        let bs = self.g.bone_index;
        let target = self.index(bs, count, &format!("bone {name}: IK target index"))?;
        let loops = self.c.i32("IK loop count")?;
        let limit_angle = self.c.f32("IK angle limit")?;
        let link_count = self.count("IK link count")?;
        self.c
            .check_count(link_count as u64, u64::from(bs) + 1, "IK link")?;
        let mut links = Vec::with_capacity(link_count);
        for k in 0..link_count {
            let one = |r: &mut Self| -> Result<Option<IkLink>, ModelError> {
                let bone = r.index(bs, count, &format!("bone {name}: IK link bone index"))?;
                let limits = match r.c.u8("has-limits flag")? {
                    0 => None,
                    _ => {
                        let a = r.c.vec3("lower limit")?;
                        let b = r.c.vec3("upper limit")?;
                        Some((a.min(b), a.max(b)))
                    }
                };
                Ok(bone.map(|bone| IkLink { bone, limits }))
            };
            if let Some(link) = one(self).map_err(|e| e.within("IK link", k))? {
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
}
