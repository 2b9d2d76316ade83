//! Keeping the camera framing: a camera motion made for the source body,
//! sized so each shot frames the same part of the target's body.
//!
//! # Where the idea comes from
//! VMDサイジング v5 (miu200521358/vmd_sizing, MIT,
//! `src/service/parts/CameraService.py`, `execute_rep_camera`) poses both
//! models at every camera key, finds the bones in the picture (the face
//! first, then the trunk), moves the look-at point by the difference of
//! the bones' positions on the two bodies and multiplies the distance by a
//! ratio of the bodies' sizes: the head ratio when only the face is in the
//! picture, otherwise the ratio of the visible extents, and the whole-body
//! height ratio (`calc_ratio`: head top over the floor) when nothing else
//! is known; the angles and the field of view stay.
//!
//! # Ours, simpler and without posing
//! We map each key's look-at point through the two bodies at rest:
//! - **X and Z** × the motion's horizontal ratio ([`LegRatios::horizontal`],
//!   shared in a group), the ratio the movement bones' X/Z are scaled by,
//!   so a camera that follows the dancer across the stage still follows it;
//! - **Y** piecewise linearly through three landmarks, the floor (0), the
//!   hip joints (足, mean height) and the head (頭): a look-at point at the
//!   source's head height goes to the target's head height, one at its
//!   hips to the target's hips, one halfway between to halfway between;
//!   below the hips the hips' ratio applies (through the floor), above the
//!   head the height ratio;
//! - **distance** × the height ratio (the target's 頭 height over the
//!   source's, v5's whole-body `body_ratio` with the 頭 bone standing in
//!   for the head-top vertex), so the body fills the same part of the
//!   picture.
//!
//! Angles, field of view, perspective flag, curves, frame numbers and every
//! other record stay byte-identical; a key whose mapped values differ from
//! its own by less than 1e-6 per component keeps its bytes.
//!
//! What this does not do that v5 does: follow the pose (a look-at point on
//! a raised hand is mapped by its height, not by the hand), choose the
//! head ratio for face close-ups, and widen a shot that would cut the
//! target's head off.

use glam::Vec3;

use super::measure::{LegRatios, SizingError, measure};
use crate::model::Model;
use crate::vmd::Motion;

/// A change smaller than this (per component) is not written.
const SAME: f32 = 1e-6;

/// How the camera is mapped from the source body onto the target body
/// (model units, heights above the floor).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CameraFit {
    /// X/Z scale of the look-at point: the motion's horizontal ratio.
    pub horizontal: f32,
    /// Source and target mean rest height of the hip joints (足).
    pub source_hips: f32,
    pub target_hips: f32,
    /// Source and target rest height of 頭.
    pub source_head: f32,
    pub target_head: f32,
}

impl CameraFit {
    /// The target's 頭 height over the source's: the distance's scale.
    pub fn height_ratio(&self) -> f32 {
        self.target_head / self.source_head
    }

    /// A look-at height on the source mapped onto the target (piecewise
    /// linear through floor, hips and head; see the module's notes).
    pub fn map_height(&self, y: f32) -> f32 {
        if y <= self.source_hips {
            y * (self.target_hips / self.source_hips)
        } else if y <= self.source_head {
            let t = (y - self.source_hips) / (self.source_head - self.source_hips);
            self.target_hips + t * (self.target_head - self.target_hips)
        } else {
            self.target_head + (y - self.source_head) * self.height_ratio()
        }
    }

    /// A look-at point on the source mapped onto the target.
    pub fn map_target(&self, p: [f32; 3]) -> [f32; 3] {
        [
            p[0] * self.horizontal,
            self.map_height(p[1]),
            p[2] * self.horizontal,
        ]
    }
}

/// The fit of `source`'s body onto `target`'s with the motion's `ratios`
/// (their `horizontal` is the one the body motion was sized with). Both
/// models need the leg bones [`measure`] needs and 頭, the head above
/// the hips, the hips above the floor.
pub fn camera_fit(
    source: &Model,
    target: &Model,
    ratios: &LegRatios,
) -> Result<CameraFit, SizingError> {
    let (source_hips, source_head) = landmarks(source, "source")?;
    let (target_hips, target_head) = landmarks(target, "target")?;
    Ok(CameraFit {
        horizontal: ratios.horizontal,
        source_hips,
        target_hips,
        source_head,
        target_head,
    })
}

/// (hip height, head height) of `model` at rest.
fn landmarks(model: &Model, role: &str) -> Result<(f32, f32), SizingError> {
    let body = measure(model, role)?;
    let sk = &model.skeleton;
    let head = sk.find("頭").ok_or_else(|| SizingError::MissingBones {
        role: role.into(),
        names: vec!["頭".into()],
    })?;
    let head_y = sk.bones[head].rest_position.y;
    if !head_y.is_finite() {
        return Err(SizingError::NonFiniteBone {
            role: role.into(),
            bone: "頭".into(),
        });
    }
    if body.hip_height <= SAME {
        return Err(SizingError::ZeroLength {
            role: role.into(),
            from: "the floor".into(),
            to: "足 (the hips are not above the floor)".into(),
        });
    }
    if head_y - body.hip_height <= SAME {
        return Err(SizingError::ZeroLength {
            role: role.into(),
            from: "足".into(),
            to: "頭 (the head is not above the hips)".into(),
        });
    }
    Ok((body.hip_height, head_y))
}

/// What [`size_camera`] did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CameraReport {
    pub fit: CameraFit,
    /// The distance's scale ([`CameraFit::height_ratio`]).
    pub distance_ratio: f32,
    /// Camera keys in the motion.
    pub keys: usize,
    /// Keys whose look-at point or distance changed.
    pub changed: usize,
    /// Keys left byte-identical.
    pub untouched: usize,
    /// How far the look-at point moved, model units: the largest and the
    /// mean over all keys.
    pub target_shift_max: f32,
    pub target_shift_mean: f32,
}

/// A sized camera motion and its report.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraOutcome {
    pub motion: Motion,
    pub report: CameraReport,
}

/// Sizes the camera keys of `camera` with `fit`: each key's look-at point
/// mapped ([`CameraFit::map_target`]), its distance × the height ratio;
/// nothing else changes (see the module's notes). Refuses a key with a
/// non-finite look-at point or distance.
pub fn size_camera(camera: &Motion, fit: &CameraFit) -> Result<CameraOutcome, SizingError> {
    let mut motion = camera.clone();
    let ratio = fit.height_ratio();
    let (mut changed, mut shift_max, mut shift_sum) = (0usize, 0f32, 0f64);
    for key in &mut motion.cameras {
        let target = key.target();
        let distance = key.distance();
        if !(distance.is_finite() && target.iter().all(|v| v.is_finite())) {
            return Err(SizingError::NonFiniteCamera { frame: key.frame() });
        }
        let new_target = fit.map_target(target);
        let new_distance = distance * ratio;
        let moved = Vec3::from_array(new_target).distance(Vec3::from_array(target));
        shift_max = shift_max.max(moved);
        shift_sum += f64::from(moved);
        let mut touched = false;
        if new_target
            .iter()
            .zip(&target)
            .any(|(a, b)| (a - b).abs() > SAME)
        {
            key.set_target(new_target);
            touched = true;
        }
        if (new_distance - distance).abs() > SAME {
            key.set_distance(new_distance);
            touched = true;
        }
        changed += usize::from(touched);
    }
    let keys = motion.cameras.len();
    let report = CameraReport {
        fit: *fit,
        distance_ratio: ratio,
        keys,
        changed,
        untouched: keys - changed,
        target_shift_max: shift_max,
        target_shift_mean: if keys == 0 {
            0.0
        } else {
            (shift_sum / keys as f64) as f32
        },
    };
    Ok(CameraOutcome { motion, report })
}
