//! Step 5 of the pose for [`Poser`]: vertex, UV and material morphs, and
//! the expansion of group and flip morphs into the weights they apply.

use glam::Vec4;

use super::{MAX_MORPH_DEPTH, Posed, Poser, reset};
use crate::model::data::{Model, MorphKind};

impl Poser {
    /// Material morphs alone, with `out`'s applied weights: what a
    /// renderer that morphs and skins vertices on the GPU needs of step 5
    /// (`out.materials`; `positions`, `normals` and UV offsets are left as
    /// they are).
    pub fn morph_materials(&mut self, model: &Model, out: &mut Posed) {
        self.material_morphs(model, out);
    }

    /// Vertex, UV and material morphs (step 5).
    pub(super) fn apply_morphs(&mut self, model: &Model, out: &mut Posed) {
        self.vertex_and_uv_morphs(model, out);
        self.material_morphs(model, out);
    }

    /// Vertex and UV morphs into `self.morphed_positions` and
    /// `out.uv_offsets`.
    fn vertex_and_uv_morphs(&mut self, model: &Model, out: &mut Posed) {
        let nv = model.vertex_count();
        // Vertex morphs: a scratch copy only when one is active.
        let any_vertex =
            model.morphs.iter().enumerate().any(|(m, x)| {
                out.applied_morphs[m] != 0.0 && matches!(x.kind, MorphKind::Vertex(_))
            });
        self.morphed_positions.clear();
        if any_vertex {
            self.morphed_positions.extend_from_slice(&model.positions);
        }
        // UV morphs.
        let any_uv =
            model.morphs.iter().enumerate().any(|(m, x)| {
                out.applied_morphs[m] != 0.0 && matches!(x.kind, MorphKind::Uv { .. })
            });
        if any_uv || out.uv_morphed || out.uv_offsets.len() != nv {
            reset(&mut out.uv_offsets, nv, Vec4::ZERO);
            out.additional_uv_offsets
                .resize(model.additional_uvs.len(), Vec::new());
            for ch in &mut out.additional_uv_offsets {
                reset(ch, nv, Vec4::ZERO);
            }
        }
        out.uv_morphed = any_uv;
        for (m, morph) in model.morphs.iter().enumerate() {
            let w = out.applied_morphs[m];
            if w == 0.0 {
                continue;
            }
            match &morph.kind {
                MorphKind::Vertex(list) => {
                    for o in list {
                        if let Some(p) = self.morphed_positions.get_mut(o.vertex as usize) {
                            *p += o.offset * w;
                        }
                    }
                }
                MorphKind::Uv { channel, offsets } => {
                    let target = if *channel == 0 {
                        Some(&mut out.uv_offsets)
                    } else {
                        out.additional_uv_offsets.get_mut(usize::from(*channel) - 1)
                    };
                    if let Some(target) = target {
                        for o in offsets {
                            if let Some(t) = target.get_mut(o.vertex as usize) {
                                *t += o.offset * w;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Material morphs into `out.materials` (see [`MaterialMorphs`]).
    fn material_morphs(&mut self, model: &Model, out: &mut Posed) {
        self.materials
            .apply(model, &out.applied_morphs, &mut out.materials);
    }
}

/// Expands group and flip morphs: `applied[m]` is the weight morph `m`
/// takes effect with (groups and flips themselves get 0).
pub(crate) fn expand_morphs(model: &Model, weights: &[f32], applied: &mut Vec<f32>) {
    reset(applied, model.morphs.len(), 0.0);
    fn visit(model: &Model, m: usize, w: f32, depth: usize, applied: &mut [f32]) {
        if depth > MAX_MORPH_DEPTH || w == 0.0 || !w.is_finite() {
            return;
        }
        let Some(morph) = model.morphs.get(m) else {
            return;
        };
        match &morph.kind {
            MorphKind::Group(refs) => {
                for r in refs {
                    visit(model, r.morph, w * r.ratio, depth + 1, applied);
                }
            }
            MorphKind::Flip(refs) => {
                if w > 0.0 && !refs.is_empty() {
                    let n = refs.len();
                    let k =
                        (((n + 1) as f32 * w).floor() as i64 - 1).clamp(0, n as i64 - 1) as usize;
                    visit(model, refs[k].morph, refs[k].ratio, depth + 1, applied);
                }
            }
            _ => applied[m] += w,
        }
    }
    for (m, &w) in weights.iter().enumerate().take(model.morphs.len()) {
        visit(model, m, w, 0, applied);
    }
}
