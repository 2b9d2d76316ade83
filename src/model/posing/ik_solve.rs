//! MMD's CCD IK for [`Poser`] (step 4 of the pose, see the parent
//! module): one chain at a time, or two chains that share no value side by
//! side in lockstep ([`crate::model::ik_pairs`]) so that the CPU overlaps
//! their dependency chains, with the same result bit for bit. The types
//! here are the chains' plans ([`PlannedLink`], [`PathSlot`]) and their
//! per-solve state ([`IkLane`], [`ChainRun`]).

use glam::{Mat3, Mat4, Quat, Vec3};

use super::{MAX_IK_WORK, MAX_LOOPS, Posed, Poser};
use crate::model::data::Model;
use crate::model::ik::{LinkPlan, SolveAxis, limit_rotation, step_axis};

/// One CCD step of [`Poser::solve_chain`]: link `li` of chain `c`, the
/// chain's effector (`target`), the goal, the link's angle cap and whether the loop is in the first half.
#[derive(Debug, Clone, Copy)]
struct LinkStep {
    c: usize,
    li: usize,
    target: usize,
    goal: Vec3,
    cap: f32,
    first_half: bool,
}

/// Which way one CCD step turns its link (see [`Poser::link_aim`]).
#[derive(Debug, Clone, Copy)]
struct LinkAim {
    link: PlannedLink,
    /// The step's axis in the parent's frame.
    axis: Vec3,
    /// `|a×b|` and `a·b` of the unit vectors to the effector and the goal.
    sin: f32,
    cos: f32,
}

impl LinkAim {
    /// The step's angle, at most `cap`: atan2(|a×b|, a·b) rather than
    /// acos(a·b): in f32, acos loses small angles near convergence (the
    /// reference computes in f64), which drifts a nearly straight knee by
    /// up to 0.3 units over 50 loops.
    #[inline]
    fn angle(&self, cap: f32) -> f32 {
        self.sin.atan2(self.cos).min(cap)
    }
}

/// What the CCD loops need of one IK link, planned once per model.
#[derive(Debug, Clone, Copy)]
pub(super) struct PlannedLink {
    /// The rotated bone.
    bone: usize,
    /// Its limits, Euler order and solve axis.
    plan: LinkPlan,
    /// The bone whose world rotation is the link's parent frame (`None`:
    /// the placement's).
    parent: Option<usize>,
    /// Whether the link never turns: limits all zero, or the bone is the
    /// chain's effector or IK bone.
    fixed: bool,
    /// The first position in the chain's path (sorted by deform order)
    /// at or after the link's order position: where posing the path again
    /// after the link turns starts.
    from: usize,
}

/// The links of `chain` (whose path is `path`) as the CCD loops read them.
pub(super) fn planned_links(
    model: &Model,
    chain: &crate::model::skeleton::IkChain,
    path: &[usize],
    rank: &[usize],
) -> Vec<PlannedLink> {
    let n = model.skeleton.bones.len();
    chain
        .links
        .iter()
        .map(|l| {
            let plan = LinkPlan::new(l.limits);
            let lb = l.bone;
            PlannedLink {
                bone: lb,
                plan,
                parent: model.skeleton.bones[lb]
                    .parent
                    .filter(|&p| p < n && p != lb),
                fixed: plan.axis == SolveAxis::Fixed || lb == chain.target || lb == chain.ik_bone,
                from: path.partition_point(|&x| rank[x] < rank[lb]),
            }
        })
        .collect()
}

/// One bone of the path of the chain being solved: what its world matrix is
/// made of while the CCD loops run (its parent's world matrix, which the
/// loops may change, times `local`).
#[derive(Debug, Clone, Copy)]
struct PathSlot {
    bone: usize,
    /// Its parent as posing reads it (`None`: a root).
    parent: Option<usize>,
    /// Rest offset + local translation, in the parent's frame.
    offset: Vec3,
    /// `from_rotation_translation` of its local rotation and `offset`
    /// (made again only when the bone itself turns).
    local: Mat4,
}

/// The world matrix a bone with `parent` hangs from: the parent's in
/// `worlds`, else `root` (the placement, or the identity at the origin).
#[inline]
fn hang_from(parent: Option<usize>, root: &Mat4, worlds: &[Mat4]) -> Mat4 {
    match parent {
        Some(p) => worlds[p],
        None => *root,
    }
}

/// The scratch of one chain being solved.
#[derive(Debug, Clone, Default)]
pub(super) struct IkLane {
    /// Per path bone (see [`PathSlot`]).
    path: Vec<PathSlot>,
    /// Per link: the head position (bits) its direction to the goal was
    /// last computed from, and that direction.
    to_goal: Vec<Option<([u32; 3], Vec3)>>,
}

impl IkLane {
    /// The unit vector from link `li`'s head at `head` to `goal`, computed
    /// again only when the head moved (a link's head moves only when a link
    /// above it turns; the top link's never does).
    #[inline]
    fn goal_direction(&mut self, li: usize, head: Vec3, goal: Vec3) -> Vec3 {
        let bits = head.to_array().map(f32::to_bits);
        match self.to_goal[li] {
            Some((h, d)) if h == bits => d,
            _ => {
                let d = (goal - head).normalize_or_zero();
                self.to_goal[li] = Some((bits, d));
                d
            }
        }
    }

    /// World matrices again for the bones of the chain's path (top link
    /// down to the effector, in deform order) from the turned `link`'s
    /// order position on. Their local rotations are current: the caller
    /// sets the link's (its local matrix is made again here), every other
    /// path bone's is the one its slot's local matrix was made from. A lazy
    /// effector (`lazy`) gets its translation alone: `parent world ·
    /// (offset, 1)`, the very column the whole product computes, bit for
    /// bit (glam's `Mat4 · Mat4` multiplies each column by `mul_vec4`); the
    /// rest of its matrix is made once the chain is solved.
    fn repose_path(&mut self, lazy: bool, link: PlannedLink, root: &Mat4, out: &mut Posed) {
        let last = self.path.len() - 1;
        for k in link.from..self.path.len() {
            let slot = &mut self.path[k];
            let pw = hang_from(slot.parent, root, &out.bone_world);
            if lazy && k == last {
                out.bone_world[slot.bone].w_axis = pw.mul_vec4(slot.offset.extend(1.0));
                continue;
            }
            if slot.bone == link.bone {
                slot.local =
                    Mat4::from_rotation_translation(out.local_rotations[slot.bone], slot.offset);
            }
            out.bone_world[slot.bone] = pw * slot.local;
        }
    }
}

/// Where one chain's CCD loops stand (see [`Poser::ik_tick`]).
#[derive(Debug, Clone, Copy)]
struct ChainRun {
    c: usize,
    /// Its scratch in [`Poser`]'s `ik_lanes`.
    lane: usize,
    target: usize,
    goal: Vec3,
    /// The chain's unit angle.
    unit: f32,
    loops: usize,
    half: usize,
    /// The chain's link count.
    links: usize,
    /// The loop and the link within it that come next.
    i: usize,
    li: usize,
    /// Whether some link's IK rotation changed in this loop.
    turned: bool,
}

impl ChainRun {
    /// Its next link step.
    #[inline]
    fn step(&self) -> LinkStep {
        LinkStep {
            c: self.c,
            li: self.li,
            target: self.target,
            goal: self.goal,
            cap: self.unit * (self.li + 1) as f32,
            first_half: self.i < self.half,
        }
    }
}

/// Whether the effector `target` is within 1e-4 units of `goal`.
#[inline]
fn reached(out: &Posed, target: usize, goal: Vec3) -> bool {
    out.bone_world[target]
        .w_axis
        .truncate()
        .distance_squared(goal)
        < 1e-8
}

impl Poser {
    /// CCD for chain `c` by MMD's rule (see [`crate::model::ik`]): the links'
    /// IK rotations start from identity, each step turns one link towards
    /// the IK bone, and the loops stop once the effector is within 1e-4
    /// units of it.
    pub(super) fn solve_chain(&mut self, model: &Model, c: usize, out: &mut Posed) {
        let root = self.root();
        if let Some(mut run) = self.begin_chain(model, c, 0, out) {
            self.run_alone(&mut run, &root, out);
        }
    }

    /// Chains `a` and `b` (which commute, see [`crate::model::ik_pairs`]) solved
    /// side by side: their loops in lockstep, each link step worked out
    /// stage by stage for both chains, then written for both, each chain
    /// computing exactly what [`solve_chain`](Self::solve_chain) would, so
    /// that the CPU overlaps their dependency chains (each loop is one long
    /// chain of latencies: Mei's legs, -20 % wall time per pose).
    pub(super) fn solve_pair(&mut self, model: &Model, a: usize, b: usize, out: &mut Posed) {
        let root = self.root();
        let ra = self.begin_chain(model, a, 0, out);
        let rb = self.begin_chain(model, b, 1, out);
        let (mut ra, mut rb) = match (ra, rb) {
            (Some(ra), Some(rb)) => (ra, rb),
            (Some(mut r), None) | (None, Some(mut r)) => {
                self.run_alone(&mut r, &root, out);
                return;
            }
            (None, None) => return,
        };
        let (mut on_a, mut on_b) = (ra.loops > 0, rb.loops > 0);
        while on_a && on_b {
            // Both turns are worked out before either is written: the
            // chains share no value, and the CPU overlaps the two.
            let (ta, tb) = self.link_turns(&ra, &rb, &root, out);
            on_a = self.end_tick(&mut ra, ta, &root, out);
            on_b = self.end_tick(&mut rb, tb, &root, out);
        }
        if on_a {
            self.run_alone(&mut ra, &root, out);
        } else {
            self.finish_chain(&ra, &root, out);
        }
        if on_b {
            self.run_alone(&mut rb, &root, out);
        } else {
            self.finish_chain(&rb, &root, out);
        }
    }

    /// `run`'s loops to the end, then [`finish_chain`](Self::finish_chain).
    fn run_alone(&mut self, run: &mut ChainRun, root: &Mat4, out: &mut Posed) {
        let mut on = run.i < run.loops;
        while on {
            let turn = self.link_turn(run, root, out);
            on = self.end_tick(run, turn, root, out);
        }
        self.finish_chain(run, root, out);
    }

    /// Chain `c`'s start: the links' IK rotations back to identity, its
    /// path posed, and (unless the effector already reaches the goal, or
    /// the chain cannot be solved: `None`) its loops set up in `lane`.
    fn begin_chain(
        &mut self,
        model: &Model,
        c: usize,
        lane: usize,
        out: &mut Posed,
    ) -> Option<ChainRun> {
        let chain = &model.skeleton.iks[c];
        let target = chain.target;
        if chain.links.is_empty() || target >= out.bone_world.len() {
            return None;
        }
        for link in &chain.links {
            self.ik_r[link.bone] = Quat::IDENTITY;
        }
        // The chain may come before its links in the deform order (an IK
        // bone listed before the leg): pose its path fully (motion and
        // append) first.
        for k in 0..self.chain_paths[c].len() {
            let x = self.chain_paths[c][k];
            self.pose_bone(model, x, out);
        }
        let goal = out.bone_world[chain.ik_bone].w_axis.truncate();
        if reached(out, target, goal) {
            return None;
        }
        self.start_chain(model, c, lane, out);
        let unit = if chain.limit_angle.is_finite() && chain.limit_angle > 0.0 {
            chain.limit_angle
        } else {
            std::f32::consts::PI
        };
        let work = (chain.links.len() * self.chain_paths[c].len()).max(1);
        let loops = (chain.loops.min(MAX_LOOPS) as usize).min(MAX_IK_WORK / work);
        Some(ChainRun {
            c,
            lane,
            target,
            goal,
            unit,
            loops,
            half: loops / 2,
            links: self.chain_links[c].len(),
            i: 0,
            li: 0,
            turned: false,
        })
    }

    /// The step of `run`'s next link (see [`turn_link`](Self::turn_link)):
    /// its new IK rotation, `None` when it does not change.
    #[inline(always)]
    fn link_turn(&mut self, run: &ChainRun, root: &Mat4, out: &Posed) -> Option<Quat> {
        self.turn_link(run.lane, run.step(), root, out)
    }

    /// [`link_turn`](Self::link_turn) of `a` and `b` (chains that share no
    /// value), stage by stage, so that the CPU overlaps the two.
    #[inline(always)]
    fn link_turns(
        &mut self,
        a: &ChainRun,
        b: &ChainRun,
        root: &Mat4,
        out: &Posed,
    ) -> (Option<Quat>, Option<Quat>) {
        let (sa, sb) = (a.step(), b.step());
        let aim_a = self.link_aim(a.lane, sa, root, out);
        let aim_b = self.link_aim(b.lane, sb, root, out);
        let angle_a = aim_a.map(|x| x.angle(sa.cap));
        let angle_b = aim_b.map(|x| x.angle(sb.cap));
        let ik_a = aim_a.zip(angle_a).map(|(x, t)| (x.link, self.turned(x, t)));
        let ik_b = aim_b.zip(angle_b).map(|(x, t)| (x.link, self.turned(x, t)));
        let ta = ik_a.and_then(|(l, ik)| self.limited(l, ik, sa.first_half));
        let tb = ik_b.and_then(|(l, ik)| self.limited(l, ik, sb.first_half));
        (ta, tb)
    }

    /// After [`link_turn`](Self::link_turn): the turn written and the path
    /// below the link posed again, then, after a loop's last link, the
    /// loop's end (stop once reached). Returns whether the loops go on.
    /// A loop that turns no link leaves every world matrix as it was, so
    /// each following loop of the same half would repeat it exactly: skip
    /// to the second half, or stop (the same result as running them,
    /// without the work; on MMT + GimmeGimme most loops are such no-ops
    /// because a limited knee cannot reach the target).
    #[inline(always)]
    fn end_tick(
        &mut self,
        run: &mut ChainRun,
        turn: Option<Quat>,
        root: &Mat4,
        out: &mut Posed,
    ) -> bool {
        let li = run.li;
        if let Some(ik) = turn {
            let link = self.chain_links[run.c][li];
            let lb = link.bone;
            self.ik_r[lb] = ik;
            out.local_rotations[lb] = (ik * self.append_r[lb]).normalize();
            let lazy = self.lazy_effector[run.c];
            self.ik_lanes[run.lane].repose_path(lazy, link, root, out);
            run.turned = true;
        }
        run.li = li + 1;
        if run.li < run.links {
            return true;
        }
        if reached(out, run.target, run.goal) {
            return false;
        }
        run.i = if run.turned {
            run.i + 1
        } else if run.i < run.half {
            run.half
        } else {
            run.loops
        };
        run.li = 0;
        run.turned = false;
        run.i < run.loops
    }

    /// After `run`'s loops: a lazy effector's whole matrix.
    fn finish_chain(&mut self, run: &ChainRun, root: &Mat4, out: &mut Posed) {
        if self.lazy_effector[run.c]
            && let Some(slot) = self.ik_lanes[run.lane].path.last()
        {
            // The loops moved only the effector's translation.
            out.bone_world[slot.bone] = hang_from(slot.parent, root, &out.bone_world) * slot.local;
        }
    }

    /// What a root bone hangs from: the placement, or the identity at the
    /// origin.
    fn root(&self) -> Mat4 {
        self.placement.map_or(Mat4::IDENTITY, |(m, _)| m)
    }

    /// Before chain `c`'s loops: its path's slots (see [`PathSlot`]) and no
    /// direction to the goal known, in `lane`.
    fn start_chain(&mut self, model: &Model, c: usize, lane: usize, out: &Posed) {
        let mut path = std::mem::take(&mut self.ik_lanes[lane].path);
        path.clear();
        for k in 0..self.chain_paths[c].len() {
            let x = self.chain_paths[c][k];
            let (parent, offset) = self.parent_offset(model, x);
            path.push(PathSlot {
                bone: x,
                parent,
                offset,
                local: Mat4::from_rotation_translation(out.local_rotations[x], offset),
            });
        }
        let scratch = &mut self.ik_lanes[lane];
        scratch.path = path;
        scratch.to_goal.clear();
        scratch.to_goal.resize(self.chain_links[c].len(), None);
    }

    /// One CCD step: link `step.li` of chain `step.c` (solved in `lane`)
    /// turned towards the goal (MMD's rule, see [`crate::model::ik`]). Returns its
    /// new IK rotation, `None` when it does not change (the caller writes
    /// it and poses the path below again).
    #[inline(always)]
    fn turn_link(&mut self, lane: usize, step: LinkStep, root: &Mat4, out: &Posed) -> Option<Quat> {
        let aim = self.link_aim(lane, step, root, out)?;
        self.link_rotation(aim, aim.angle(step.cap), step.first_half)
    }

    /// The first half of [`turn_link`](Self::turn_link): which way link
    /// `step.li` turns (`None`: it does not).
    #[inline(always)]
    fn link_aim(
        &mut self,
        lane: usize,
        step: LinkStep,
        root: &Mat4,
        out: &Posed,
    ) -> Option<LinkAim> {
        let link = self.chain_links[step.c][step.li];
        if link.fixed {
            return None;
        }
        let lb = link.bone;
        let head = out.bone_world[lb].w_axis.truncate();
        let effector = out.bone_world[step.target].w_axis.truncate();
        let to_effector = (effector - head).normalize_or_zero();
        let to_goal = self.ik_lanes[lane].goal_direction(step.li, head, step.goal);
        let parent = match link.parent {
            Some(p) => Mat3::from_mat4(out.bone_world[p]),
            None => Mat3::from_mat4(*root),
        };
        let cross = to_effector.cross(to_goal);
        let axis = step_axis(&link.plan, cross, parent, step.first_half)?;
        Some(LinkAim {
            link,
            axis,
            sin: cross.length(),
            cos: to_effector.dot(to_goal),
        })
    }

    /// The second half of [`turn_link`](Self::turn_link): the link's new IK
    /// rotation after turning `angle` about `aim`'s axis (limited), `None`
    /// when it does not change.
    #[inline(always)]
    fn link_rotation(&self, aim: LinkAim, angle: f32, first_half: bool) -> Option<Quat> {
        self.limited(aim.link, self.turned(aim, angle), first_half)
    }

    /// The link's IK rotation turned `angle` about `aim`'s axis, before its
    /// limits.
    #[inline(always)]
    fn turned(&self, aim: LinkAim, angle: f32) -> Quat {
        (Quat::from_axis_angle(aim.axis, angle) * self.ik_r[aim.link.bone]).normalize()
    }

    /// [`turned`](Self::turned)'s `ik` within `link`'s limits: the new IK
    /// rotation, `None` when it does not change.
    #[inline(always)]
    fn limited(&self, link: PlannedLink, mut ik: Quat, first_half: bool) -> Option<Quat> {
        let lb = link.bone;
        if link.plan.limits.is_some() {
            let animated = self.append_r[lb];
            let total = limit_rotation(&link.plan, ik * animated, first_half);
            ik = (total * animated.inverse()).normalize();
        }
        let same = ik.to_array().map(f32::to_bits) == self.ik_r[lb].to_array().map(f32::to_bits);
        (ik.is_finite() && !same).then_some(ik)
    }
}

#[cfg(test)]
mod pair_tests {
    use super::super::{Posed, Poser};
    use crate::model::MotionBinding;
    use crate::model::data::Model;
    use crate::model::deform_schedule::{Step, deform_plan};
    use crate::vmd::{self, IndexedMotion};
    use glam::Mat4;

    /// The corpus pairs solved both with and without IK pairs; each
    /// frame's bones must match bit for bit (IK switches and placement
    /// varied, so that a pair also runs one chain alone).
    #[test]
    fn paired_chains_pose_as_the_chains_alone() {
        let dir = std::env::var_os("VMD_CORPUS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus").into());
        if !dir.is_dir() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "corpus directory {} is missing (CI=true)",
                dir.display()
            );
            eprintln!("note: corpus {} not found; skipping", dir.display());
            return;
        }
        let sample = "frontier/sizing_mmdbase_sample_model/";
        let cases = [
            (
                format!("{sample}サンプルモデル.pmx"),
                format!("{sample}サンプルモーション2.vmd"),
            ),
            (
                format!("{sample}サンプルモデル.pmx"),
                format!("{sample}サンプルモーション3.vmd"),
            ),
            (
                "mei/mei.pmd".into(),
                "webmmd__GimmeGimme_with_emotion.vmd".into(),
            ),
            (
                "unitymmdloader__mmt_test_model.pmx".into(),
                "webmmd__GimmeGimme_with_emotion.vmd".into(),
            ),
        ];
        let mut paired_any = false;
        for (m, v) in cases {
            let (Ok(model), Ok(bytes)) = (Model::open(&dir.join(&m)), std::fs::read(dir.join(&v)))
            else {
                continue;
            };
            let motion = IndexedMotion::new(vmd::read_vec(bytes).expect("corpus motion parses"));
            let binding = MotionBinding::new(&model, &motion.index);
            let mut paired = Poser::new(&model);
            paired_any |= paired
                .schedule
                .iter()
                .any(|s| matches!(s, Step::IkPair(..)));
            let mut alone = paired.clone();
            let plan = deform_plan(&model);
            (alone.schedule, alone.physics_split) = (plan.schedule, plan.physics_split);
            let (mut a, mut b) = (Posed::default(), Posed::default());
            for i in 0..400u32 {
                let frame = f64::from(i) * 1.25;
                binding.sample(&model, motion.as_ref(), frame, paired.input_mut());
                let chains = paired.input().ik.len();
                for c in 0..chains {
                    paired.input_mut().ik[c] &= (i >> (c % 4)) % 5 != 0;
                }
                let placement = (i % 3 == 0).then(|| Mat4::from_rotation_y(0.3));
                paired.set_placement(placement);
                alone.set_placement(placement);
                *alone.input_mut() = paired.input().clone();
                paired.pose_bones(&model, &mut a);
                alone.pose_bones(&model, &mut b);
                let bits = |p: &Posed| {
                    let w = p.bone_world.iter().chain(&p.skinning);
                    let r = p.local_rotations.iter().map(|q| glam::Vec4::from(*q));
                    w.flat_map(|m| m.to_cols_array())
                        .chain(r.flat_map(|q| q.to_array()))
                        .map(f32::to_bits)
                        .collect::<Vec<_>>()
                };
                assert!(bits(&a) == bits(&b), "{m} + {v}: frame {frame} differs");
            }
        }
        assert!(paired_any || !dir.join("mei/mei.pmd").exists());
    }
}
