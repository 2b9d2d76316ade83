//! Material morphs (PMX material offsets): each material's colours, edge
//! and texture tints after the morphs applied this frame. Its own state
//! ([`MaterialMorphs`]: the multiply and add factors, reused frame to
//! frame); the poser calls it in its morph step.

use glam::{Vec3, Vec4};

use super::data::{MaterialOp, Model, MorphKind};

/// A material's parameters after material morphs. Colours 0..1.
///
/// `diffuse … edge_size` are the material's own values with the morphs
/// applied (`value × Π lerp(1, m, w) + Σ a·w`). The texture factors are the
/// morphs' tints (PMX テクスチャ係数): a renderer turns a sampled texture,
/// sphere or toon colour `t` into `t × mul + add` per channel, alpha
/// included; with no morph active `mul = 1` and `add = 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialState {
    pub diffuse: Vec4,
    pub specular: Vec3,
    pub specular_power: f32,
    pub ambient: Vec3,
    pub edge_colour: Vec4,
    pub edge_size: f32,
    pub texture_mul: Vec4,
    pub texture_add: Vec4,
    pub sphere_mul: Vec4,
    pub sphere_add: Vec4,
    pub toon_mul: Vec4,
    pub toon_add: Vec4,
}

/// The multiply factors and additions of the material morphs, one per
/// material, kept between frames so no frame allocates.
#[derive(Debug, Clone, Default)]
pub(super) struct MaterialMorphs {
    mul: Vec<MaterialState>,
    add: Vec<MaterialState>,
}

impl MaterialMorphs {
    /// Applies the material morphs of `model` at their `applied` weights
    /// (after group and flip morphs) to its materials, into `out` (one
    /// state per material): multiply factors and additions, then combined.
    pub(super) fn apply(&mut self, model: &Model, applied: &[f32], out: &mut Vec<MaterialState>) {
        let nm = model.materials.len();
        reset(&mut self.mul, nm, MaterialState::splat(1.0));
        reset(&mut self.add, nm, MaterialState::splat(0.0));
        for (m, morph) in model.morphs.iter().enumerate() {
            let w = applied.get(m).copied().unwrap_or(0.0);
            let MorphKind::Material(list) = &morph.kind else {
                continue;
            };
            if w == 0.0 {
                continue;
            }
            for o in list {
                let value = MaterialState::from_offset(o);
                let range = match o.material {
                    Some(i) if i < nm => i..i + 1,
                    Some(_) => 0..0,
                    None => 0..nm,
                };
                for i in range {
                    match o.op {
                        MaterialOp::Multiply => {
                            self.mul[i] = self.mul[i].mul(&value.lerp_from_one(w));
                        }
                        MaterialOp::Add => {
                            self.add[i] = self.add[i].add(&value.scale(w));
                        }
                    }
                }
            }
        }
        out.clear();
        out.extend(model.materials.iter().enumerate().map(|(i, mat)| {
            let base = MaterialState {
                diffuse: mat.diffuse,
                specular: mat.specular,
                specular_power: mat.specular_power,
                ambient: mat.ambient,
                edge_colour: mat.edge_colour,
                edge_size: mat.edge_size,
                texture_mul: Vec4::ONE,
                texture_add: Vec4::ZERO,
                sphere_mul: Vec4::ONE,
                sphere_add: Vec4::ZERO,
                toon_mul: Vec4::ONE,
                toon_add: Vec4::ZERO,
            };
            let mut s = base.mul(&self.mul[i]).add(&self.add[i]);
            // The tints start from 1 (mul) and 0 (add), not from the base.
            s.texture_mul = self.mul[i].texture_mul;
            s.texture_add = self.add[i].texture_add;
            s.sphere_mul = self.mul[i].sphere_mul;
            s.sphere_add = self.add[i].sphere_add;
            s.toon_mul = self.mul[i].toon_mul;
            s.toon_add = self.add[i].toon_add;
            s
        }));
    }
}

impl MaterialState {
    fn splat(v: f32) -> Self {
        MaterialState {
            diffuse: Vec4::splat(v),
            specular: Vec3::splat(v),
            specular_power: v,
            ambient: Vec3::splat(v),
            edge_colour: Vec4::splat(v),
            edge_size: v,
            texture_mul: Vec4::splat(v),
            texture_add: Vec4::splat(v),
            sphere_mul: Vec4::splat(v),
            sphere_add: Vec4::splat(v),
            toon_mul: Vec4::splat(v),
            toon_add: Vec4::splat(v),
        }
    }

    /// A morph offset as a state; each tint fills both its `mul` and `add`
    /// slot (the op decides which one is used).
    fn from_offset(o: &super::data::MaterialOffset) -> Self {
        MaterialState {
            diffuse: o.diffuse,
            specular: o.specular,
            specular_power: o.specular_power,
            ambient: o.ambient,
            edge_colour: o.edge_colour,
            edge_size: o.edge_size,
            texture_mul: o.texture_tint,
            texture_add: o.texture_tint,
            sphere_mul: o.sphere_tint,
            sphere_add: o.sphere_tint,
            toon_mul: o.toon_tint,
            toon_add: o.toon_tint,
        }
    }

    fn zip(&self, o: &Self, f4: impl Fn(Vec4, Vec4) -> Vec4, f1: impl Fn(f32, f32) -> f32) -> Self {
        let f3 = |a: Vec3, b: Vec3| f4(a.extend(0.0), b.extend(0.0)).truncate();
        MaterialState {
            diffuse: f4(self.diffuse, o.diffuse),
            specular: f3(self.specular, o.specular),
            specular_power: f1(self.specular_power, o.specular_power),
            ambient: f3(self.ambient, o.ambient),
            edge_colour: f4(self.edge_colour, o.edge_colour),
            edge_size: f1(self.edge_size, o.edge_size),
            texture_mul: f4(self.texture_mul, o.texture_mul),
            texture_add: f4(self.texture_add, o.texture_add),
            sphere_mul: f4(self.sphere_mul, o.sphere_mul),
            sphere_add: f4(self.sphere_add, o.sphere_add),
            toon_mul: f4(self.toon_mul, o.toon_mul),
            toon_add: f4(self.toon_add, o.toon_add),
        }
    }

    fn mul(&self, o: &Self) -> Self {
        self.zip(o, |a, b| a * b, |a, b| a * b)
    }

    fn add(&self, o: &Self) -> Self {
        self.zip(o, |a, b| a + b, |a, b| a + b)
    }

    fn scale(&self, w: f32) -> Self {
        self.zip(self, |a, _| a * w, |a, _| a * w)
    }

    /// `lerp(1, self, w)` per component.
    fn lerp_from_one(&self, w: f32) -> Self {
        self.zip(
            self,
            |a, _| Vec4::ONE + (a - Vec4::ONE) * w,
            |a, _| 1.0 + (a - 1.0) * w,
        )
    }
}

fn reset<T: Clone>(v: &mut Vec<T>, n: usize, value: T) {
    v.clear();
    v.resize(n, value);
}
