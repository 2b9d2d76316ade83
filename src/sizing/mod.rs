//! Sizing: fit a motion made for one body (the *source* model) to another
//! (the *target*), as VMDサイジング v5 does (miu200521358/vmd_sizing, MIT,
//! Python; its ideas are cited where used, the code is ours).
//!
//! Pure: no GUI or GPU type; poses go through the one
//! [`PoseEngine`](crate::model::PoseEngine).
//!
//! # Steps
//! 1. [`measure`]: each model's rest skeleton — leg lengths, hip height,
//!    arm rest directions — or a [`SizingError`] naming what is missing.
//! 2. [`LegRatios`]: the target's leg over the source's, horizontal
//!    (straight hip→ankle distance) and vertical (hip→ankle drop), v5's
//!    `calc_leg_ik_ratio`; several actors share one horizontal ratio
//!    ([`shared_horizontal`]).
//! 3. [`size_motion`]: keys of semi-standard bones the target lacks folded
//!    into the bones that carry them there (グルーブ → センター, 上半身3,
//!    腰, 肩P, 足D …), movement bones scaled, the hips moved so they keep the
//!    source's height-to-leg proportion, arms turned by the difference of
//!    rest directions, toes kept off the floor. Every record of a bone
//!    the sizing does not touch stays byte-identical; changed keys keep
//!    their interpolation curves; keys are added only where a bone with no
//!    track must now move (one key at frame 0).
//!    Where the source's hands touch, the target's arms are turned so
//!    its hands meet too ([`hands`]).
//! 4. [`quality`]: the numbers the user sees — leg IK reach, stance,
//!    hip height, floor, arm direction, hand contacts kept
//!    ([`contacts`]) — for the source, the target wearing the unsized
//!    motion and the target wearing the sized one.
//! 5. [`size_camera`] (optional): the camera motion's look-at points and
//!    distances mapped from the source's body onto the target's, so a
//!    shot of the source's face is a shot of the target's face
//!    ([`camera`], after v5's `CameraService`).
//!
//! # Units
//! MMD model units (left-handed, Y up, ≈ 8 cm each), frames at 30 fps,
//! angles in degrees in reports and radians inside.

mod camera;
mod contacts;
mod fold;
mod hands;
mod measure;
mod motion;
mod quality;

pub use camera::{CameraFit, CameraOutcome, CameraReport, camera_fit, size_camera};
pub use contacts::{HAND_CONTACT, HEAD_CONTACT};
pub use measure::{
    ArmMeasure, BodyMeasure, GROUP_HORIZONTAL_CAP, LegMeasure, LegRatios, Side, SizingError,
    leg_ratios, measure, shared_horizontal,
};
pub use motion::{
    BoneChange, SizingOptions, SizingOutcome, size_group, size_in_group, size_motion, size_motions,
};
pub use quality::{QualityReport, QualityStats, quality};
