//! Model skeletons: PMX/PMD bone reader, the built-in MMD skeleton, FK and IK.
//!
//! Pure code (no GUI types). Coordinates are MMD model space — left-handed,
//! Y up, the character facing −Z with its left side at +X, in model units
//! (a typical character is about 20 tall); angles are radians.
//!
//! * [`load_model`] reads bones and IK chains from PMX 2.0/2.1 or PMD bytes.
//! * [`standard_skeleton`] is VMD Studio's own standard MMD skeleton.
//! * [`solve_pose`] / [`PoseSolver`] pose a skeleton: forward kinematics,
//!   then MMD-style CCD IK.

pub mod builtin;
pub mod model;
mod pmd;
mod pmx;
pub mod pose;
mod reader;

pub use builtin::{STANDARD_SKELETON_JSON, parse_skeleton_json, standard_skeleton};
pub use model::{Bone, BoneFlags, BoneTail, IkChain, IkLink, Inherit, Skeleton};
pub use pmd::{KNEE_MIN_BEND, PMD_IK_LIMIT_TO_RADIANS, knee_limits};
pub use pose::{
    BonePose, MAX_IK_LOOPS, PoseResult, PoseSolver, forward_kinematics, solve_pose, unknown_bones,
    world_positions,
};
pub use reader::{ModelError, load_model};
