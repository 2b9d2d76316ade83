//! Pairs of independent IK steps in the deform schedule, planned once per
//! model for [`super::Poser`], which solves the two chains of a pair side
//! by side (one link step of each in turn) so that the CPU can overlap
//! their dependency chains.
//!
//! Two steps *commute* when neither writes a bone value the other reads or
//! writes (every per-bone value — local and append values, IK rotation,
//! world matrix — counted as the bone's); running them in either order, or
//! interleaved, then gives the same values bit for bit. An IK step `a` is
//! paired with a later IK step `b` of the same physics half when they
//! commute and the steps between them can be split into those `b` depends
//! on (transitively; moved before `a`, which they must commute with) and
//! the rest (kept after the pair, in order): every such reordering keeps
//! each pair of steps that do not commute in its original order.

use super::data::Model;
use super::deform_schedule::Step;

/// How far after an IK step its partner is looked for.
const WINDOW: usize = 64;

/// One schedule step with the bones it reads and writes (sorted, unique;
/// the reads include the writes).
struct Access {
    step: Step,
    reads: Vec<usize>,
    writes: Vec<usize>,
}

/// Whether sorted `a` and `b` share an element.
fn meet(a: &[usize], b: &[usize]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// Whether `x` and `y` may not be reordered.
fn conflict(x: &Access, y: &Access) -> bool {
    meet(&x.writes, &y.reads) || meet(&y.writes, &x.reads)
}

/// What posing bone `b` reads besides the bone itself: its parent and its
/// append source.
fn bone_reads(model: &Model, b: usize, reads: &mut Vec<usize>) {
    let bones = &model.skeleton.bones;
    let n = bones.len();
    reads.push(b);
    if let Some(p) = bones[b].parent.filter(|&p| p < n) {
        reads.push(p);
    }
    if let Some(h) = bones[b].inherit.filter(|h| h.source < n) {
        reads.push(h.source);
    }
}

fn sorted(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v.dedup();
    v
}

/// The bones step `step` reads and writes; `repose` is an IK step's list
/// of bones posed again after its chain.
fn access(model: &Model, step: Step, chain_paths: &[Vec<usize>], repose: &[usize]) -> Access {
    let skel = &model.skeleton;
    let n = skel.bones.len();
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    match step {
        Step::Bone(b) => {
            bone_reads(model, b, &mut reads);
            writes.push(b);
        }
        Step::Ik(c) => {
            let chain = &skel.iks[c];
            for l in chain.links.iter().filter(|l| l.bone < n) {
                writes.push(l.bone);
                reads.push(l.bone);
                reads.extend(skel.bones[l.bone].parent.filter(|&p| p < n));
            }
            for &b in chain_paths[c].iter().chain(repose) {
                writes.push(b);
                bone_reads(model, b, &mut reads);
            }
            reads.extend([chain.ik_bone, chain.target].into_iter().filter(|&x| x < n));
        }
        Step::IkPair(..) => unreachable!("pairs are planned here"),
    }
    Access {
        step,
        reads: sorted(reads),
        writes: sorted(writes),
    }
}

/// The schedule with independent IK steps paired ([`Step::IkPair`]) and
/// the steps between them reordered as the module says, and its new
/// physics split. `ik_repose[s]` is the list of bones step `s` of
/// `schedule` poses again (it follows its chain into the new schedule).
pub(super) fn pair_ik_steps(
    model: &Model,
    schedule: &[Step],
    physics_split: usize,
    chain_paths: &[Vec<usize>],
    ik_repose: &[Vec<usize>],
) -> (Vec<Step>, usize) {
    let accesses = |range: std::ops::Range<usize>| -> Vec<Access> {
        range
            .map(|s| access(model, schedule[s], chain_paths, &ik_repose[s]))
            .collect()
    };
    let n = model.skeleton.bones.len();
    let mut out = pair_half(accesses(0..physics_split), n);
    let split = out.len();
    out.extend(pair_half(accesses(physics_split..schedule.len()), n));
    (out, split)
}

/// One physics half of the schedule, paired.
fn pair_half(mut items: Vec<Access>, bones: usize) -> Vec<Step> {
    let mut out = Vec::with_capacity(items.len());
    let mut marks = Marks::new(bones);
    let mut i = 0;
    while i < items.len() {
        if let Step::Ik(_) = items[i].step
            && let Some((moved, j)) = partner(&items, i, &mut marks)
        {
            // moved (in order), the pair, the rest between, the rest after.
            let tail = items.split_off(j + 1);
            let b = items.pop().expect("partner");
            let between = items.split_off(i + 1);
            let a = items.pop().expect("step");
            let (Step::Ik(ca), Step::Ik(cb)) = (a.step, b.step) else {
                unreachable!("IK steps")
            };
            let (before, after): (Vec<_>, Vec<_>) =
                between.into_iter().zip(moved).partition(|(_, m)| *m);
            out.extend(before.iter().map(|(x, _)| x.step));
            out.push(Step::IkPair(ca, cb));
            items = after.into_iter().map(|(x, _)| x).collect();
            items.extend(tail);
            i = 0;
            continue;
        }
        out.push(items[i].step);
        i += 1;
    }
    out
}

/// The first IK step after `items[i]` (within [`WINDOW`]) that can be
/// paired with it: its position and, per step between, whether it must
/// move before the pair.
fn partner(items: &[Access], i: usize, marks: &mut Marks) -> Option<(Vec<bool>, usize)> {
    let a = &items[i];
    let end = items.len().min(i + 1 + WINDOW);
    (i + 1..end).find_map(|j| {
        let b = &items[j];
        if !matches!(b.step, Step::Ik(_)) || conflict(a, b) {
            return None;
        }
        // Steps between that `b` depends on, transitively: those that
        // conflict with `b` or with a later one of them (marked).
        marks.clear();
        marks.add(b);
        let mut moved = vec![false; j - i - 1];
        for k in (i + 1..j).rev() {
            let x = &items[k];
            if marks.conflict(x) {
                if conflict(x, a) {
                    return None;
                }
                moved[k - i - 1] = true;
                marks.add(x);
            }
        }
        Some((moved, j))
    })
}

/// The bones a set of steps reads and writes, marked per bone.
struct Marks {
    read: Vec<u32>,
    write: Vec<u32>,
    stamp: u32,
}

impl Marks {
    fn new(bones: usize) -> Marks {
        Marks {
            read: vec![0; bones],
            write: vec![0; bones],
            stamp: 0,
        }
    }

    /// Empties the set.
    fn clear(&mut self) {
        self.stamp += 1;
    }

    fn add(&mut self, x: &Access) {
        for &r in &x.reads {
            self.read[r] = self.stamp;
        }
        for &w in &x.writes {
            self.write[w] = self.stamp;
        }
    }

    /// Whether `x` may not be reordered with some step of the set.
    fn conflict(&self, x: &Access) -> bool {
        x.writes.iter().any(|&w| self.read[w] == self.stamp)
            || x.reads.iter().any(|&r| self.write[r] == self.stamp)
    }
}
