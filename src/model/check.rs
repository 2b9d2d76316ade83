//! Checks both readers run after reading: they turn references that point
//! nowhere into safe values and say so in [`Warning`]s, so that every
//! invariant of [`Model`] holds whatever the file said.

use super::data::{Deform, Model, MorphKind};
use super::error::Warning;

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

/// Checks that need the whole model: material index runs, bone parent
/// cycles, impulse rigid bodies.
pub(crate) fn check_model(model: &mut Model, warnings: &mut Vec<Warning>) {
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
