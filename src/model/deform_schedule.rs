//! The deform schedule of a model, planned once per model for
//! [`super::Poser`]: the bone order, the IK steps in it, where physics
//! splits it, each IK chain's path and the bones each IK step poses again.

use super::data::Model;

/// One step of the deform schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Bone(usize),
    Ik(usize),
    /// Two IK chains solved side by side (see [`super::ik_pairs`]).
    IkPair(usize, usize),
}

/// What [`Poser`](super::Poser) keeps of the deform schedule (see its fields).
pub(super) struct DeformPlan {
    pub(super) schedule: Vec<Step>,
    pub(super) rank: Vec<usize>,
    pub(super) physics_split: usize,
    pub(super) chain_paths: Vec<Vec<usize>>,
    pub(super) ik_repose: Vec<Vec<usize>>,
    pub(super) is_link: Vec<bool>,
}

/// Plans `model`'s deform schedule: the bone order, the IK steps in it, the
/// physics split, each chain's path and the bones each IK step re-poses.
pub(super) fn deform_plan(model: &Model) -> DeformPlan {
    let skel = &model.skeleton;
    let (order, rank) = deform_order(skel);
    let (schedule, physics_split) = deform_schedule(model, &order);
    let (is_link, chain_paths, chain_first) = ik_chain_paths(skel, &rank);
    let ik_repose = ik_repose_lists(
        skel,
        &schedule,
        &order,
        &rank,
        &chain_paths,
        &chain_first,
        physics_split,
    );
    DeformPlan {
        schedule,
        rank,
        physics_split,
        chain_paths,
        ik_repose,
        is_link,
    }
}

/// The bones in deform order (after-physics flag, then layer, then parents
/// first) and each bone's position in it.
fn deform_order(skel: &super::skeleton::Skeleton) -> (Vec<usize>, Vec<usize>) {
    let n = skel.bones.len();
    let mut order = skel.evaluation_order();
    // Stable: parents-first order survives within a (physics, layer) key.
    order.sort_by_key(|&i| (skel.bones[i].flags.after_physics, skel.bones[i].layer));
    let mut rank = vec![0; n];
    for (k, &b) in order.iter().enumerate() {
        rank[b] = k;
    }
    (order, rank)
}

/// The schedule (each bone of `order`, a PMX IK step right after its IK
/// bone, a PMD's IK steps at the end) and the position of its first
/// after-physics bone.
fn deform_schedule(model: &Model, order: &[usize]) -> (Vec<Step>, usize) {
    let skel = &model.skeleton;
    let n = skel.bones.len();
    let pmd = matches!(model.format, super::data::Format::Pmd);
    let mut schedule = Vec::with_capacity(n + skel.iks.len());
    for &b in order {
        schedule.push(Step::Bone(b));
        if !pmd {
            for (c, chain) in skel.iks.iter().enumerate() {
                if chain.ik_bone == b {
                    schedule.push(Step::Ik(c));
                }
            }
        }
    }
    if pmd {
        schedule.extend((0..skel.iks.len()).map(Step::Ik));
    }
    let after = |b: usize| skel.bones[b].flags.after_physics;
    let physics_split = schedule
        .iter()
        .position(|s| matches!(*s, Step::Bone(b) if after(b)))
        .unwrap_or(schedule.len());
    (schedule, physics_split)
}

/// Per bone whether it is an IK link; per chain its path from the top link
/// down to the effector (in deform order) and the order position of its
/// top link.
fn ik_chain_paths(
    skel: &super::skeleton::Skeleton,
    rank: &[usize],
) -> (Vec<bool>, Vec<Vec<usize>>, Vec<usize>) {
    let n = skel.bones.len();
    let mut is_link = vec![false; n];
    let mut chain_paths = Vec::with_capacity(skel.iks.len());
    let mut chain_first = Vec::with_capacity(skel.iks.len());
    for chain in &skel.iks {
        let mut first = rank.get(chain.target).copied().unwrap_or(0);
        for l in &chain.links {
            is_link[l.bone] = true;
            first = first.min(rank[l.bone]);
        }
        // Walk up from the effector to the highest link.
        let mut path = Vec::new();
        let mut b = Some(chain.target);
        let mut guard = 0;
        while let Some(x) = b {
            path.push(x);
            if rank[x] <= first || guard > n {
                break;
            }
            guard += 1;
            b = skel.bones[x].parent;
        }
        path.sort_by_key(|&x| rank[x]);
        chain_paths.push(path);
        chain_first.push(first);
    }
    (is_link, chain_paths, chain_first)
}

/// Per schedule step, the bones an IK step poses again after solving its
/// chain (empty for bone steps). The bones considered are those the step
/// follows in the deform order from the chain's top link on (order
/// positions `chain_first..done`); of them, a bone is kept when it is a
/// link or on the chain's path, when its parent or append source is kept
/// (or is on the path), or when its parent or append source comes at or
/// after it in the order (it then reads a value that posing changes, so it
/// is posed again as before). For a step after the physics split every
/// bone of the range is kept: the first half's bones there are re-posed
/// over the physics world's result, as they always were.
fn ik_repose_lists(
    skel: &super::skeleton::Skeleton,
    schedule: &[Step],
    order: &[usize],
    rank: &[usize],
    chain_paths: &[Vec<usize>],
    chain_first: &[usize],
    physics_split: usize,
) -> Vec<Vec<usize>> {
    let n = skel.bones.len();
    let mut affected = vec![false; n];
    let mut done = 0usize;
    let mut lists = Vec::with_capacity(schedule.len());
    for (s, step) in schedule.iter().enumerate() {
        match *step {
            Step::Bone(b) => {
                done = rank[b] + 1;
                lists.push(Vec::new());
            }
            Step::Ik(c) => {
                let range = chain_first[c]..done.max(chain_first[c]);
                if s >= physics_split {
                    lists.push(order[range].to_vec());
                    continue;
                }
                affected.fill(false);
                for l in &skel.iks[c].links {
                    if l.bone < n {
                        affected[l.bone] = true;
                    }
                }
                for &x in &chain_paths[c] {
                    affected[x] = true;
                }
                let mut list = Vec::new();
                for k in range {
                    let b = order[k];
                    let bone = &skel.bones[b];
                    let reads = |x: usize| affected[x] || rank[x] >= k;
                    let parent = bone.parent.filter(|&p| p < n && p != b).is_some_and(reads);
                    let source = bone
                        .inherit
                        .filter(|h| h.source < n && (h.rotation || h.translation))
                        .is_some_and(|h| reads(h.source));
                    if affected[b] || parent || source {
                        affected[b] = true;
                        list.push(b);
                    }
                }
                lists.push(list);
            }
            // Planned later, from this schedule's lists.
            Step::IkPair(..) => lists.push(Vec::new()),
        }
    }
    lists
}
