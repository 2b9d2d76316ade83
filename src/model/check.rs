//! Checks both readers run after reading: they turn references that point
//! nowhere into safe values and say so in [`Warning`]s, so that every
//! invariant of [`Model`] holds whatever the file said.

use glam::{Quat, Vec2, Vec3, Vec4};

use super::data::{Deform, Model, MorphKind};
use super::error::Warning;

/// Largest magnitude a length (position, offset, size), UV, colour or ratio
/// read from a model may have; anything beyond is a broken file, not a
/// model (a character is ~20 units, a large stage a few thousand).
pub(crate) const NUMBER_BOUND: f32 = 1e5;

/// Whether `x` is finite and within [`NUMBER_BOUND`].
fn ok(x: f32) -> bool {
    x.is_finite() && x.abs() <= NUMBER_BOUND
}

fn ok2(v: Vec2) -> bool {
    ok(v.x) && ok(v.y)
}

fn ok3(v: Vec3) -> bool {
    ok(v.x) && ok(v.y) && ok(v.z)
}

fn ok4(v: Vec4) -> bool {
    ok(v.x) && ok(v.y) && ok(v.z) && ok(v.w)
}

/// Counts the elements of one kind that were replaced, and remembers the
/// first, for one warning per kind.
struct Tally {
    /// e.g. "vertex positions".
    what: &'static str,
    /// What was done, e.g. "set to 0".
    action: &'static str,
    count: usize,
    first: Option<String>,
}

impl Tally {
    fn new(what: &'static str, action: &'static str) -> Tally {
        Tally {
            what,
            action,
            count: 0,
            first: None,
        }
    }

    /// Records one bad element (described lazily: only the first is kept).
    fn bad(&mut self, describe: impl FnOnce() -> String) {
        if self.first.is_none() {
            self.first = Some(describe());
        }
        self.count += 1;
    }

    fn report(self, warnings: &mut Vec<Warning>) {
        if let Some(first) = self.first {
            warnings.push(Warning::general(format!(
                "{} {} {} not a finite number within ±{NUMBER_BOUND:e} (first: {first}); {}",
                self.count,
                self.what,
                if self.count == 1 { "is" } else { "are" },
                self.action
            )));
        }
    }
}

/// Replaces every non-finite or absurd number of `model` (beyond
/// [`NUMBER_BOUND`]) by a harmless value and says which elements in a
/// warning per kind, so that no such number reaches a pose, the skinning,
/// the renderer or a file.
pub(crate) fn fix_numbers(model: &mut Model, warnings: &mut Vec<Warning>) {
    // Vertices.
    let mut t = Tally::new("vertex positions", "set to 0");
    for (i, p) in model.positions.iter_mut().enumerate() {
        if !ok3(*p) {
            t.bad(|| format!("vertex {i} at {p}"));
            *p = Vec3::ZERO;
        }
    }
    t.report(warnings);
    let mut t = Tally::new("vertex normals", "set to +Y");
    for (i, n) in model.normals.iter_mut().enumerate() {
        if !ok3(*n) {
            t.bad(|| format!("vertex {i}, {n}"));
            *n = Vec3::Y;
        }
    }
    t.report(warnings);
    let mut t = Tally::new("vertex UVs", "set to 0");
    for (i, uv) in model.uvs.iter_mut().enumerate() {
        if !ok2(*uv) {
            t.bad(|| format!("vertex {i}, {uv}"));
            *uv = Vec2::ZERO;
        }
    }
    t.report(warnings);
    let mut t = Tally::new("additional vertex UVs", "set to 0");
    for (c, channel) in model.additional_uvs.iter_mut().enumerate() {
        for (i, uv) in channel.iter_mut().enumerate() {
            if !ok4(*uv) {
                t.bad(|| format!("channel {}, vertex {i}, {uv}", c + 1));
                *uv = Vec4::ZERO;
            }
        }
    }
    t.report(warnings);
    let mut t = Tally::new("vertex edge scales", "set to 1");
    for (i, e) in model.edge_scale.iter_mut().enumerate() {
        if !ok(*e) {
            t.bad(|| format!("vertex {i}, {e}"));
            *e = 1.0;
        }
    }
    t.report(warnings);
    fix_deforms(model, warnings);
    fix_materials(model, warnings);
    fix_bones(model, warnings);
    fix_morphs(model, warnings);
    fix_physics(model, warnings);
}

/// Weights outside 0..1 (or not numbers) and SDEF points out of bounds.
fn fix_deforms(model: &mut Model, warnings: &mut Vec<Warning>) {
    let mut w = Tally::new("vertex weights", "clamped to 0..1 (not a number: 0)");
    let mut s = Tally::new("SDEF points", "the vertex is skinned as BDEF2");
    let weight_ok = |x: f32| (0.0..=1.0).contains(&x);
    let clamp = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    for (i, d) in model.deforms.iter_mut().enumerate() {
        match d {
            Deform::Bdef1 { .. } => {}
            Deform::Bdef2 { bones, weight } => {
                if !weight_ok(*weight) {
                    w.bad(|| format!("vertex {i}, {weight}"));
                    *weight = clamp(*weight);
                }
                let _ = bones;
            }
            Deform::Sdef {
                bones,
                weight,
                c,
                r0,
                r1,
            } => {
                if !weight_ok(*weight) {
                    w.bad(|| format!("vertex {i}, {weight}"));
                    *weight = clamp(*weight);
                }
                if !(ok3(*c) && ok3(*r0) && ok3(*r1)) {
                    s.bad(|| format!("vertex {i}, C {c}, R0 {r0}, R1 {r1}"));
                    *d = Deform::Bdef2 {
                        bones: *bones,
                        weight: *weight,
                    };
                }
            }
            Deform::Bdef4 { weights, .. } | Deform::Qdef { weights, .. } => {
                if !weights.iter().all(|&x| weight_ok(x)) {
                    w.bad(|| format!("vertex {i}, {weights:?}"));
                    for x in weights.iter_mut() {
                        *x = clamp(*x);
                    }
                }
            }
        }
    }
    w.report(warnings);
    s.report(warnings);
}

fn fix_materials(model: &mut Model, warnings: &mut Vec<Warning>) {
    let mut t = Tally::new("material colours or sizes", "set to 0");
    let fix = |v: &mut f32| {
        let bad = !ok(*v);
        if bad {
            *v = 0.0;
        }
        bad
    };
    for m in &mut model.materials {
        let mut bad = false;
        for v in m
            .diffuse
            .as_mut()
            .iter_mut()
            .chain(m.specular.as_mut().iter_mut())
            .chain(m.ambient.as_mut().iter_mut())
            .chain(m.edge_colour.as_mut().iter_mut())
            .chain([&mut m.specular_power, &mut m.edge_size])
        {
            bad |= fix(v);
        }
        if bad {
            t.bad(|| format!("material {}", m.name));
        }
    }
    t.report(warnings);
}

fn fix_bones(model: &mut Model, warnings: &mut Vec<Warning>) {
    let mut pos = Tally::new("bone positions", "set to 0");
    let mut axis = Tally::new("bone fixed axes", "the bone turns freely");
    let mut local = Tally::new("bone local axes", "ignored");
    let mut ratio = Tally::new("bone append ratios", "the append is dropped");
    for b in &mut model.skeleton.bones {
        if !ok3(b.rest_position) {
            pos.bad(|| format!("bone {} at {}", b.name, b.rest_position));
            b.rest_position = Vec3::ZERO;
        }
        if let Some(a) = b.fixed_axis
            && !ok3(a)
        {
            axis.bad(|| format!("bone {}, {a}", b.name));
            b.fixed_axis = None;
        }
        if let Some((x, z)) = b.local_axes
            && !(ok3(x) && ok3(z))
        {
            local.bad(|| format!("bone {}, X {x}, Z {z}", b.name));
            b.local_axes = None;
        }
        if let Some(h) = b.inherit
            && !ok(h.ratio)
        {
            ratio.bad(|| format!("bone {}, {}", b.name, h.ratio));
            b.inherit = None;
        }
    }
    pos.report(warnings);
    axis.report(warnings);
    local.report(warnings);
    ratio.report(warnings);
    let mut unit = Tally::new("IK unit angles", "set to π");
    let mut limits = Tally::new("IK link limits", "set to ±π");
    let bones = &model.skeleton.bones;
    let name = |i: usize| bones.get(i).map_or("?", |b| b.name.as_str());
    for chain in &mut model.skeleton.iks {
        if !ok(chain.limit_angle) {
            unit.bad(|| format!("IK {}, {}", name(chain.ik_bone), chain.limit_angle));
            chain.limit_angle = std::f32::consts::PI;
        }
        for link in &mut chain.links {
            if let Some((min, max)) = &mut link.limits
                && !(ok3(*min) && ok3(*max))
            {
                limits.bad(|| format!("IK {}, link {}", name(chain.ik_bone), name(link.bone)));
                let pi = std::f32::consts::PI;
                for (v, d) in [(min, -pi), (max, pi)] {
                    for x in v.as_mut() {
                        if !ok(*x) {
                            *x = d;
                        }
                    }
                }
            }
        }
    }
    unit.report(warnings);
    limits.report(warnings);
}

fn fix_morphs(model: &mut Model, warnings: &mut Vec<Warning>) {
    let mut t = Tally::new("morph offsets or ratios", "set to 0 (rotations: none)");
    for morph in &mut model.morphs {
        let mut bad = false;
        match &mut morph.kind {
            MorphKind::Group(refs) | MorphKind::Flip(refs) => {
                for r in refs {
                    if !ok(r.ratio) {
                        r.ratio = 0.0;
                        bad = true;
                    }
                }
            }
            MorphKind::Vertex(list) => {
                for o in list {
                    if !ok3(o.offset) {
                        o.offset = Vec3::ZERO;
                        bad = true;
                    }
                }
            }
            MorphKind::Bone(list) => {
                for o in list {
                    if !ok3(o.translation) {
                        o.translation = Vec3::ZERO;
                        bad = true;
                    }
                    let q = o.rotation;
                    let len = q.length();
                    if !(len.is_finite() && len > 1e-6 && ok4(Vec4::from(q))) {
                        o.rotation = Quat::IDENTITY;
                        bad = true;
                    } else {
                        o.rotation = q / len;
                    }
                }
            }
            MorphKind::Uv { offsets, .. } => {
                for o in offsets {
                    if !ok4(o.offset) {
                        o.offset = Vec4::ZERO;
                        bad = true;
                    }
                }
            }
            MorphKind::Material(list) => {
                for o in list {
                    for v in o
                        .diffuse
                        .as_mut()
                        .iter_mut()
                        .chain(o.specular.as_mut().iter_mut())
                        .chain(o.ambient.as_mut().iter_mut())
                        .chain(o.edge_colour.as_mut().iter_mut())
                        .chain(o.texture_tint.as_mut().iter_mut())
                        .chain(o.sphere_tint.as_mut().iter_mut())
                        .chain(o.toon_tint.as_mut().iter_mut())
                        .chain([&mut o.specular_power, &mut o.edge_size])
                    {
                        if !ok(*v) {
                            *v = 0.0;
                            bad = true;
                        }
                    }
                }
            }
            MorphKind::Impulse(list) => {
                for i in list {
                    if !(ok3(i.velocity) && ok3(i.torque)) {
                        i.velocity = Vec3::ZERO;
                        i.torque = Vec3::ZERO;
                        bad = true;
                    }
                }
            }
        }
        if bad {
            t.bad(|| format!("morph {}", morph.name));
        }
    }
    t.report(warnings);
}

/// Rigid bodies and joints are kept for a later physics step; their
/// numbers are bounded like everything else.
fn fix_physics(model: &mut Model, warnings: &mut Vec<Warning>) {
    let mut t = Tally::new("rigid-body or joint numbers", "set to 0");
    let fix3 = |v: &mut Vec3| {
        let bad = !ok3(*v);
        if bad {
            *v = Vec3::ZERO;
        }
        bad
    };
    for b in &mut model.rigid_bodies {
        let mut bad = fix3(&mut b.size) | fix3(&mut b.position) | fix3(&mut b.rotation);
        for v in [
            &mut b.mass,
            &mut b.linear_damping,
            &mut b.angular_damping,
            &mut b.restitution,
            &mut b.friction,
        ] {
            if !ok(*v) {
                *v = 0.0;
                bad = true;
            }
        }
        if bad {
            t.bad(|| format!("rigid body {}", b.name));
        }
    }
    for j in &mut model.joints {
        let mut bad = fix3(&mut j.position) | fix3(&mut j.rotation);
        for v in [
            &mut j.translation_limits.0,
            &mut j.translation_limits.1,
            &mut j.rotation_limits.0,
            &mut j.rotation_limits.1,
            &mut j.spring_translation,
            &mut j.spring_rotation,
        ] {
            bad |= fix3(v);
        }
        if bad {
            t.bad(|| format!("joint {}", j.name));
        }
    }
    t.report(warnings);
}

/// Replaces raw per-vertex bone indices (as read, before the bone count was
/// known) by checked ones. A bad index becomes bone 0; its weight becomes 0
/// where the deform allows it (BDEF4/QDEF slots), and a warning counts the
/// vertices whose weighted bones were bad. Unused BDEF4 slots (−1 with
/// weight 0) are normal and not warned about.
pub(crate) fn fix_deform_bones(model: &mut Model, raw: &[[i64; 4]], warnings: &mut Vec<Warning>) {
    let n = model.skeleton.bones.len();
    let ok =
        |r: i64| -> Option<u32> { usize::try_from(r).ok().filter(|&i| i < n).map(|i| i as u32) };
    let mut bad = 0usize;
    for (deform, raw) in model.deforms.iter_mut().zip(raw) {
        let mut any_bad = false;
        let mut take = |r: i64, weight: f32| -> u32 {
            match ok(r) {
                Some(i) => i,
                None => {
                    if weight != 0.0 {
                        any_bad = true;
                    }
                    0
                }
            }
        };
        match deform {
            Deform::Bdef1 { bone } => *bone = take(raw[0], 1.0),
            Deform::Bdef2 { bones, weight } | Deform::Sdef { bones, weight, .. } => {
                bones[0] = take(raw[0], *weight);
                bones[1] = take(raw[1], 1.0 - *weight);
            }
            Deform::Bdef4 { bones, weights } | Deform::Qdef { bones, weights } => {
                for k in 0..4 {
                    if ok(raw[k]).is_none() {
                        bones[k] = take(raw[k], weights[k]);
                        weights[k] = 0.0;
                    } else {
                        bones[k] = take(raw[k], weights[k]);
                    }
                }
            }
        }
        if any_bad {
            bad += 1;
        }
    }
    if n == 0 && !model.deforms.is_empty() {
        warnings.push(Warning::general(
            "the model has no bones: its vertices stay where they are",
        ));
    } else if bad > 0 {
        warnings.push(Warning::general(format!(
            "{bad} vertices name a bone the model does not have; bone 0 is used instead"
        )));
    }
}

/// Checks that need the whole model: numbers ([`fix_numbers`]), material
/// index runs, bone parent cycles, impulse rigid bodies.
pub(crate) fn check_model(model: &mut Model, warnings: &mut Vec<Warning>) {
    fix_numbers(model, warnings);
    // Material runs: multiples of 3, and not past the end of the indices.
    let total = model.indices.len();
    let mut start = 0usize;
    for m in &mut model.materials {
        if !m.index_count.is_multiple_of(3) {
            warnings.push(Warning::general(format!(
                "material {}: face index count {} is not a multiple of 3; rounded down",
                m.name, m.index_count
            )));
            m.index_count -= m.index_count % 3;
        }
        let available = total - start;
        if m.index_count > available {
            warnings.push(Warning::general(format!(
                "material {}: draws {} face indices but only {available} are left; cut to {available}",
                m.name, m.index_count
            )));
            m.index_count = available;
        }
        start += m.index_count;
    }
    // Bone parent cycles.
    let cycles = parent_cycles(
        &model
            .skeleton
            .bones
            .iter()
            .map(|b| b.parent)
            .collect::<Vec<_>>(),
    );
    if !cycles.is_empty() {
        let names: Vec<&str> = cycles
            .iter()
            .take(8)
            .map(|&i| model.skeleton.bones[i].name.as_str())
            .collect();
        warnings.push(Warning::general(format!(
            "{} bones are their own ancestors ({}); each cycle is cut where it is entered",
            cycles.len(),
            names.join(", ")
        )));
    }
    // Impulses name rigid bodies, which come after the morphs.
    let bodies = model.rigid_bodies.len();
    for morph in &mut model.morphs {
        if let MorphKind::Impulse(list) = &mut morph.kind {
            let before = list.len();
            list.retain(|i| i.rigid_body < bodies);
            if list.len() < before {
                warnings.push(Warning::general(format!(
                    "morph {}: {} impulses name a missing rigid body; ignored",
                    morph.name,
                    before - list.len()
                )));
            }
        }
    }
}

/// Bones that are on a parent cycle (their own ancestor), in index order.
/// Linear time: each bone is walked once.
pub(crate) fn parent_cycles(parents: &[Option<usize>]) -> Vec<usize> {
    let n = parents.len();
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; n];
    let mut on_cycle = vec![false; n];
    let mut path = Vec::new();
    for start in 0..n {
        let mut b = start;
        path.clear();
        loop {
            if state[b] == 2 {
                break;
            }
            if state[b] == 1 {
                // The path from the first visit of `b` is a cycle.
                if let Some(pos) = path.iter().position(|&x| x == b) {
                    for &x in &path[pos..] {
                        on_cycle[x] = true;
                    }
                }
                break;
            }
            state[b] = 1;
            path.push(b);
            match parents[b].filter(|&p| p < n) {
                Some(p) => b = p,
                None => break,
            }
        }
        for &x in &path {
            state[x] = 2;
        }
    }
    (0..n).filter(|&i| on_cycle[i]).collect()
}
