//! The skeleton: bones and IK chains, shared by the PMX/PMD readers, the
//! built-in skeleton and the pose rules.
//!
//! Coordinates are MMD model space: left-handed, Y up, the character facing
//! −Z (so its left side is +X), in model units (a typical character is about
//! 20 units tall). Angles are radians.
//!
//! **Invariant:** every bone index stored in a [`Skeleton`] (parents, tails,
//! inherit sources, IK bones, targets and links) is `< bones.len()`. The
//! readers drop references that point outside the bone list.

use glam::Vec3;

/// A model's bones and IK chains.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skeleton {
    /// Bones in file order (a parent may come after its child).
    pub bones: Vec<Bone>,
    /// IK chains in solving order: IK-bone order for PMX and the built-in
    /// skeleton, the file's IK-list order for PMD.
    pub iks: Vec<IkChain>,
}

/// One bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Japanese (local) name, as VMD motions refer to it.
    pub name: String,
    /// Parent bone, `None` for a root.
    pub parent: Option<usize>,
    /// Rest (bind) position in model space, MMD left-handed Y-up.
    pub rest_position: Vec3,
    /// Where the bone's display line ends, if anywhere.
    pub tail: Option<BoneTail>,
    /// Behaviour flags.
    pub flags: BoneFlags,
    /// Rotation and/or translation copied from another bone (PMX "append",
    /// PMD types 5 and 9).
    pub inherit: Option<Inherit>,
    /// PMX deform layer (0 for PMD and the built-in skeleton). Bones are
    /// posed layer by layer, lowest first.
    pub layer: i32,
    /// English (universal) name, empty when absent.
    pub name_en: String,
    /// PMX fixed axis (a twist bone turns about this model-space axis only).
    pub fixed_axis: Option<Vec3>,
    /// PMX local axes (X and Z, model space) for the editor's local frame.
    pub local_axes: Option<(Vec3, Vec3)>,
    /// PMX external-parent key.
    pub external_parent: Option<i32>,
}

impl Bone {
    /// A rotatable, visible bone with no tail and no inheritance.
    pub fn new(name: impl Into<String>, parent: Option<usize>, rest_position: Vec3) -> Self {
        Bone {
            name: name.into(),
            parent,
            rest_position,
            tail: None,
            flags: BoneFlags {
                rotatable: true,
                movable: false,
                visible: true,
                ik: false,
                operable: true,
                after_physics: false,
            },
            inherit: None,
            layer: 0,
            name_en: String::new(),
            fixed_axis: None,
            local_axes: None,
            external_parent: None,
        }
    }
}

/// The end of a bone's display line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BoneTail {
    /// Points at another bone's position.
    Bone(usize),
    /// An offset from the bone's own rest position (model units).
    Offset(Vec3),
}

/// What a bone may do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BoneFlags {
    /// May be rotated by a motion.
    pub rotatable: bool,
    /// May be translated by a motion.
    pub movable: bool,
    /// Shown in the editor.
    pub visible: bool,
    /// Is an IK bone (has an [`IkChain`]).
    pub ik: bool,
    /// May be selected and moved in an editor (PMX 0x0010).
    pub operable: bool,
    /// Posed after physics (PMX 0x1000): in the last pass of the deform
    /// order.
    pub after_physics: bool,
}

/// Rotation/translation copied from `source`, scaled by `ratio`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inherit {
    /// Bone whose local rotation/translation is copied.
    pub source: usize,
    /// Scale: 1.0 copies fully, 0.5 half (rotations are slerped), negative
    /// values reverse.
    pub ratio: f32,
    /// Copies the source's rotation.
    pub rotation: bool,
    /// Copies the source's translation.
    pub translation: bool,
    /// PMX "local" append (0x0080): copies the source's whole local
    /// transform (everything that moved it), not just its own motion.
    pub local: bool,
}

/// An IK chain: rotate `links` so that `target` reaches `ik_bone`.
#[derive(Debug, Clone, PartialEq)]
pub struct IkChain {
    /// The IK bone (the goal the effector is pulled to).
    pub ik_bone: usize,
    /// The end effector, e.g. 左足首 for 左足ＩＫ.
    pub target: usize,
    /// CCD iterations.
    pub loops: u32,
    /// Largest rotation of one link in one CCD step, radians.
    pub limit_angle: f32,
    /// Links from the one nearest the effector to the chain's root.
    pub links: Vec<IkLink>,
}

/// One link of an [`IkChain`].
#[derive(Debug, Clone, PartialEq)]
pub struct IkLink {
    /// The rotated bone.
    pub bone: usize,
    /// Euler-angle limits `(min, max)` in radians about the bone's local
    /// X, Y, Z axes, if constrained. A knee is `x ∈ [−π, −0.5°]`, y = z = 0.
    pub limits: Option<(Vec3, Vec3)>,
}

impl Skeleton {
    /// Index of the bone called `name` (exact match; the first if repeated).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// The IK chain driven by bone `ik_bone`, if any.
    pub fn ik_for(&self, ik_bone: usize) -> Option<&IkChain> {
        self.iks.iter().find(|ik| ik.ik_bone == ik_bone)
    }

    /// Children of every bone, each list in bone-index order.
    pub fn children(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.bones.len()];
        for (i, bone) in self.bones.iter().enumerate() {
            if let Some(p) = bone.parent.filter(|&p| p < self.bones.len() && p != i) {
                out[p].push(i);
            }
        }
        out
    }

    /// Children of bone `index`, in bone-index order.
    pub fn children_of(&self, index: usize) -> Vec<usize> {
        self.bones
            .iter()
            .enumerate()
            .filter(|&(i, b)| i != index && b.parent == Some(index))
            .map(|(i, _)| i)
            .collect()
    }

    /// Every bone once, parents before children, otherwise in index order.
    ///
    /// Files may list a child before its parent; that is handled. A bone on a
    /// parent cycle (malformed file) is placed where the cycle is entered,
    /// with the loop cut, so this always terminates.
    pub fn topological_order(&self) -> Vec<usize> {
        self.order_by(|bone| [bone.parent, None])
    }

    /// Like [`topological_order`](Self::topological_order), but a bone also
    /// comes after the source of its inherited rotation/translation, which
    /// is the order the pose solver evaluates bones in.
    pub fn evaluation_order(&self) -> Vec<usize> {
        self.order_by(|bone| [bone.parent, bone.inherit.map(|i| i.source)])
    }

    /// Depth-first ordering over the dependency edges `deps`, iterative (no
    /// recursion depth limit) and cycle-safe.
    fn order_by(&self, deps: impl Fn(&Bone) -> [Option<usize>; 2]) -> Vec<usize> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let n = self.bones.len();
        let mut mark = vec![Mark::New; n];
        let mut order = Vec::with_capacity(n);
        // Stack of (bone, next dependency slot to look at).
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for root in 0..n {
            if mark[root] != Mark::New {
                continue;
            }
            mark[root] = Mark::Open;
            stack.push((root, 0));
            while let Some(top) = stack.last_mut() {
                let (bone, slot) = *top;
                let d = deps(&self.bones[bone]);
                if slot < d.len() {
                    top.1 += 1;
                    if let Some(dep) = d[slot].filter(|&p| p < n && mark[p] == Mark::New) {
                        mark[dep] = Mark::Open;
                        stack.push((dep, 0));
                    }
                    // An Open dependency is a cycle: ignore that edge.
                } else {
                    mark[bone] = Mark::Done;
                    order.push(bone);
                    stack.pop();
                }
            }
        }
        order
    }
}
