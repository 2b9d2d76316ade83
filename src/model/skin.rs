//! CPU skinning: BDEF1/2/4 (linear blend), SDEF (MMD's spherical deform)
//! and QDEF (dual-quaternion blend).
//!
//! Inputs are the vertex positions after vertex morphs and the per-bone
//! skinning matrices `S = world · translate(−rest)`.
//!
//! * **BDEF**: `p' = (Σ wᵢ Sᵢ) p`, `n' = normalize((Σ wᵢ Sᵢ) n)`.
//! * **SDEF** (as MMD and saba compute it): with weights `w₀`, `w₁ = 1 − w₀`
//!   and the stored `C`, `R0`, `R1`: `rw = w₀R0 + w₁R1`,
//!   `cr₀ = (C + (C + R0 − rw)) / 2`, `cr₁ = (C + (C + R1 − rw)) / 2`;
//!   then `p' = slerp(q₀, q₁, w₁)·(p − C) + w₀ S₀cr₀ + w₁ S₁cr₁` where
//!   `qᵢ` are the bones' world rotations, and `n' = slerp(q₀, q₁, w₁)·n`.
//!   When both bones move rigidly together this equals BDEF2; when they
//!   turn apart it keeps the volume that the linear blend loses.
//! * **QDEF**: each `Sᵢ` as a unit dual quaternion, blended with weights
//!   (signs aligned to the first), normalised, applied to `p` and `n`.
//!
//! Large meshes are split across threads (`std::thread::scope`).

use glam::{Mat4, Quat, Vec3};

use super::data::{Deform, Model};

/// Vertices per thread below which skinning stays on one thread.
const MIN_PER_THREAD: usize = 16_384;

#[derive(Debug, Clone, Copy)]
enum Kind {
    /// Linear blend of the first `n` bones.
    Linear(u8),
    /// SDEF, with an index into `SkinPlan::sdef`.
    Sdef(u32),
    Qdef,
}

#[derive(Debug, Clone, Copy)]
struct SkinVertex {
    bones: [u32; 4],
    weights: [f32; 4],
    kind: Kind,
}

/// SDEF constants of one vertex (model space).
#[derive(Debug, Clone, Copy)]
struct Sdef {
    c: Vec3,
    cr0: Vec3,
    cr1: Vec3,
}

/// Per-vertex skinning data, prepared once per model.
#[derive(Debug, Clone, Default)]
pub(crate) struct SkinPlan {
    vertices: Vec<SkinVertex>,
    sdef: Vec<Sdef>,
    has_qdef: bool,
}

impl SkinPlan {
    pub(crate) fn new(model: &Model) -> SkinPlan {
        let bones = model.skeleton.bones.len();
        let mut plan = SkinPlan::default();
        plan.vertices.reserve_exact(model.deforms.len());
        for d in &model.deforms {
            let (mut b, w) = d.bones_and_weights();
            // With no bones at all, every vertex stays put (see `skin`).
            if bones == 0 {
                b = [u32::MAX; 4];
            }
            let kind = match *d {
                Deform::Bdef1 { .. } => Kind::Linear(1),
                Deform::Bdef2 { .. } => Kind::Linear(2),
                Deform::Bdef4 { .. } => Kind::Linear(4),
                Deform::Sdef {
                    weight, c, r0, r1, ..
                } => {
                    let (w0, w1) = (weight, 1.0 - weight);
                    let rw = r0 * w0 + r1 * w1;
                    let r0 = c + r0 - rw;
                    let r1 = c + r1 - rw;
                    plan.sdef.push(Sdef {
                        c,
                        cr0: (c + r0) * 0.5,
                        cr1: (c + r1) * 0.5,
                    });
                    Kind::Sdef(plan.sdef.len() as u32 - 1)
                }
                Deform::Qdef { .. } => {
                    plan.has_qdef = true;
                    Kind::Qdef
                }
            };
            plan.vertices.push(SkinVertex {
                bones: b,
                weights: w,
                kind,
            });
        }
        plan
    }

    /// Skins `positions`/`normals` into `out_p`/`out_n` with the per-bone
    /// `skinning` matrices (`world` gives the bones' rotations for SDEF).
    pub(crate) fn skin(
        &self,
        positions: &[Vec3],
        normals: &[Vec3],
        skinning: &[Mat4],
        world: &[Mat4],
        out_p: &mut Vec<Vec3>,
        out_n: &mut Vec<Vec3>,
    ) {
        let n = self.vertices.len().min(positions.len()).min(normals.len());
        out_p.resize(n, Vec3::ZERO);
        out_n.resize(n, Vec3::ZERO);
        out_p.truncate(n);
        out_n.truncate(n);
        let rotations: Vec<Quat> = if self.sdef.is_empty() {
            Vec::new()
        } else {
            world
                .iter()
                .map(|m| Quat::from_mat4(m).normalize())
                .collect()
        };
        let duals: Vec<(Quat, Quat)> = if self.has_qdef {
            skinning.iter().map(dual_quat).collect()
        } else {
            Vec::new()
        };
        let ctx = Ctx {
            plan: self,
            positions,
            normals,
            skinning,
            rotations: &rotations,
            duals: &duals,
        };
        let threads = std::thread::available_parallelism()
            .map(|x| x.get())
            .unwrap_or(1)
            .min(n / MIN_PER_THREAD)
            .max(1);
        if threads == 1 {
            ctx.run(0, out_p, out_n);
            return;
        }
        let chunk = n.div_ceil(threads);
        std::thread::scope(|s| {
            for (k, (p, nn)) in out_p
                .chunks_mut(chunk)
                .zip(out_n.chunks_mut(chunk))
                .enumerate()
            {
                let ctx = &ctx;
                s.spawn(move || ctx.run(k * chunk, p, nn));
            }
        });
    }
}

/// Everything one skinning pass reads.
struct Ctx<'a> {
    plan: &'a SkinPlan,
    positions: &'a [Vec3],
    normals: &'a [Vec3],
    skinning: &'a [Mat4],
    rotations: &'a [Quat],
    duals: &'a [(Quat, Quat)],
}

impl Ctx<'_> {
    /// Skins vertices `start..start + out_p.len()`.
    fn run(&self, start: usize, out_p: &mut [Vec3], out_n: &mut [Vec3]) {
        let mat = |b: u32| {
            self.skinning
                .get(b as usize)
                .copied()
                .unwrap_or(Mat4::IDENTITY)
        };
        for (k, (op, on)) in out_p.iter_mut().zip(out_n.iter_mut()).enumerate() {
            let i = start + k;
            let v = &self.plan.vertices[i];
            let p = self.positions[i];
            let nrm = self.normals[i];
            match v.kind {
                Kind::Linear(1) => {
                    let m = mat(v.bones[0]);
                    *op = m.transform_point3(p);
                    *on = m.transform_vector3(nrm).normalize_or_zero();
                }
                Kind::Linear(count) => {
                    let mut m = mat(v.bones[0]) * v.weights[0];
                    for j in 1..usize::from(count) {
                        let w = v.weights[j];
                        if w != 0.0 {
                            m += mat(v.bones[j]) * w;
                        }
                    }
                    *op = m.transform_point3(p);
                    *on = m.transform_vector3(nrm).normalize_or_zero();
                }
                Kind::Sdef(s) => {
                    let sd = self.plan.sdef[s as usize];
                    let (b0, b1) = (v.bones[0] as usize, v.bones[1] as usize);
                    let (w0, w1) = (v.weights[0], v.weights[1]);
                    let q0 = self.rotations.get(b0).copied().unwrap_or(Quat::IDENTITY);
                    let q1 = self.rotations.get(b1).copied().unwrap_or(Quat::IDENTITY);
                    let q1 = if q0.dot(q1) < 0.0 { -q1 } else { q1 };
                    let rot = q0.slerp(q1, w1).normalize();
                    *op = rot * (p - sd.c)
                        + mat(v.bones[0]).transform_point3(sd.cr0) * w0
                        + mat(v.bones[1]).transform_point3(sd.cr1) * w1;
                    *on = (rot * nrm).normalize_or_zero();
                }
                Kind::Qdef => {
                    let dq = |b: u32| {
                        self.duals
                            .get(b as usize)
                            .copied()
                            .unwrap_or((Quat::IDENTITY, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)))
                    };
                    let (r0, _) = dq(v.bones[0]);
                    let mut real = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
                    let mut dual = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
                    for j in 0..4 {
                        let w = v.weights[j];
                        if w == 0.0 {
                            continue;
                        }
                        let (r, d) = dq(v.bones[j]);
                        let w = if r.dot(r0) < 0.0 { -w } else { w };
                        real += r * w;
                        dual += d * w;
                    }
                    let len = real.length();
                    if len < 1e-8 {
                        *op = p;
                        *on = nrm;
                        continue;
                    }
                    let (real, dual) = (real / len, dual / len);
                    let t = dual * real.conjugate();
                    *op = real * p + 2.0 * Vec3::new(t.x, t.y, t.z);
                    *on = (real * nrm).normalize_or_zero();
                }
            }
        }
    }
}

/// A rigid transform as a unit dual quaternion `(real, dual)` with
/// `dual = ½ · t · real`.
fn dual_quat(m: &Mat4) -> (Quat, Quat) {
    let real = Quat::from_mat4(m).normalize();
    let t = m.w_axis.truncate();
    let dual = Quat::from_xyzw(t.x, t.y, t.z, 0.0) * real * 0.5;
    (real, dual)
}

/// How the GPU deforms one vertex ([`SkinTables`]); the codes the skinning
/// shader (`src/render/skin.wgsl`) reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeformCode {
    /// No deform given for the vertex: it stays at rest (morphs still apply).
    Rest = 0,
    /// BDEF1: the first bone's matrix alone.
    Bdef1 = 1,
    /// BDEF2: linear blend of two bones.
    Bdef2 = 2,
    /// BDEF4: linear blend of four bones.
    Bdef4 = 4,
    /// SDEF: see the module documentation; constants in [`SkinTables::sdef`].
    Sdef = 5,
    /// QDEF: dual-quaternion blend of four bones.
    Qdef = 6,
}

/// One vertex's deform for GPU skinning: the bones (an index past the
/// bone count means the identity, as on the CPU), their weights, and where
/// its SDEF constants and morph deltas are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkinEntry {
    pub code: DeformCode,
    pub bones: [u32; 4],
    pub weights: [f32; 4],
    /// Index into [`SkinTables::sdef`] (0 unless SDEF).
    pub sdef: u32,
    /// This vertex's deltas: `SkinTables::deltas[first..first + count]`.
    pub first_delta: u32,
    pub delta_count: u32,
}

/// One vertex or UV morph delta of one vertex ([`SkinTables::deltas`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MorphDelta {
    /// The morph (index into `Model::morphs`): its applied weight scales
    /// the delta.
    pub morph: u32,
    /// `false`: a position delta (x, y, z, model units); `true`: a main-UV
    /// delta (x, y).
    pub uv: bool,
    pub delta: Vec3,
}

/// What skinning on the GPU needs of a model, prepared once, as plain
/// numbers (no GPU type): per vertex its deform and the vertex and main-UV
/// morph deltas that touch it, vertex-major and in morph order (the order
/// the CPU adds them in, so both sum alike). Per frame the GPU then needs
/// only the skinning matrices ([`super::Posed::skinning`]) and the applied
/// morph weights ([`super::Posed::applied_morphs`]).
///
/// SDEF constants are `[C, (C + R0') / 2, (C + R1') / 2]` with
/// `R0' = C + R0 − rw`, `R1' = C + R1 − rw`, `rw = w₀R0 + w₁R1`, exactly as
/// the CPU path computes them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkinTables {
    /// One per model vertex (`Model::positions`).
    pub vertices: Vec<SkinEntry>,
    pub sdef: Vec<[Vec3; 3]>,
    pub deltas: Vec<MorphDelta>,
    /// `Model::skeleton.bones.len()`.
    pub bone_count: u32,
    /// `Model::morphs.len()`.
    pub morph_count: u32,
}

impl SkinTables {
    /// The tables of `model`. Vertices without a deform record rest; morph
    /// offsets naming a vertex past the end are left out (as on the CPU).
    pub fn new(model: &Model) -> SkinTables {
        let nv = model.positions.len();
        let bones = model.skeleton.bones.len();
        let mut t = SkinTables {
            vertices: Vec::with_capacity(nv),
            bone_count: u32::try_from(bones).unwrap_or(u32::MAX),
            morph_count: u32::try_from(model.morphs.len()).unwrap_or(u32::MAX),
            ..Default::default()
        };
        let plan = SkinPlan::new(model);
        for i in 0..nv {
            let entry = match plan.vertices.get(i) {
                None => SkinEntry {
                    code: DeformCode::Rest,
                    bones: [u32::MAX; 4],
                    weights: [0.0; 4],
                    sdef: 0,
                    first_delta: 0,
                    delta_count: 0,
                },
                Some(v) => {
                    let (code, sdef) = match v.kind {
                        Kind::Linear(1) => (DeformCode::Bdef1, 0),
                        Kind::Linear(2) => (DeformCode::Bdef2, 0),
                        Kind::Linear(_) => (DeformCode::Bdef4, 0),
                        Kind::Sdef(s) => {
                            let sd = plan.sdef[s as usize];
                            t.sdef.push([sd.c, sd.cr0, sd.cr1]);
                            (DeformCode::Sdef, t.sdef.len() as u32 - 1)
                        }
                        Kind::Qdef => (DeformCode::Qdef, 0),
                    };
                    SkinEntry {
                        code,
                        bones: v.bones,
                        weights: v.weights,
                        sdef,
                        first_delta: 0,
                        delta_count: 0,
                    }
                }
            };
            t.vertices.push(entry);
        }
        t.collect_deltas(model);
        t
    }

    /// Gathers the vertex and main-UV morph deltas, vertex-major, each
    /// vertex's in morph order (a counting sort: stable).
    fn collect_deltas(&mut self, model: &Model) {
        let nv = self.vertices.len();
        let mut all: Vec<(u32, MorphDelta)> = Vec::new();
        for (m, morph) in model.morphs.iter().enumerate() {
            let Ok(m) = u32::try_from(m) else { break };
            match &morph.kind {
                super::data::MorphKind::Vertex(list) => {
                    all.extend(list.iter().filter(|o| (o.vertex as usize) < nv).map(|o| {
                        let d = MorphDelta {
                            morph: m,
                            uv: false,
                            delta: o.offset,
                        };
                        (o.vertex, d)
                    }));
                }
                super::data::MorphKind::Uv {
                    channel: 0,
                    offsets,
                } => {
                    all.extend(
                        offsets
                            .iter()
                            .filter(|o| (o.vertex as usize) < nv)
                            .map(|o| {
                                let d = MorphDelta {
                                    morph: m,
                                    uv: true,
                                    delta: Vec3::new(o.offset.x, o.offset.y, 0.0),
                                };
                                (o.vertex, d)
                            }),
                    );
                }
                _ => {}
            }
        }
        for &(v, _) in &all {
            self.vertices[v as usize].delta_count += 1;
        }
        let mut next = 0u32;
        for e in &mut self.vertices {
            e.first_delta = next;
            next += e.delta_count;
        }
        let mut fill: Vec<u32> = self.vertices.iter().map(|e| e.first_delta).collect();
        self.deltas = vec![
            MorphDelta {
                morph: 0,
                uv: false,
                delta: Vec3::ZERO,
            };
            all.len()
        ];
        for (v, d) in all {
            let at = &mut fill[v as usize];
            self.deltas[*at as usize] = d;
            *at += 1;
        }
    }
}
