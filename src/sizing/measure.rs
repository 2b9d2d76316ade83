//! Rest-pose measurements of a model and the leg ratios between two.
//!
//! Follows VMDサイジング v5 (miu200521358/vmd_sizing, MIT):
//! `src/utils/MServiceUtils.pyx` `calc_leg_ik_ratio` (horizontal ratio =
//! straight 左足→左足首 distance, vertical ratio = its Y drop),
//! `src/service/parts/MoveService.py` `set_center_y_offset` (hips lowered so
//! the drop keeps the source's share of the leg's bone length),
//! `src/mmd/PmxData.pyx` `calc_stance` (arm rest directions, with the wrist's
//! display tail or ±X when no 中指１).

use glam::Vec3;

use crate::model::Model;

/// Left or right, as MMD bone names spell it (左 / 右).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    /// Both sides, left first.
    pub const BOTH: [Side; 2] = [Side::Left, Side::Right];

    /// The name prefix: 左 or 右.
    pub fn prefix(self) -> &'static str {
        match self {
            Side::Left => "左",
            Side::Right => "右",
        }
    }

    /// `prefix + stem`, e.g. 左 + 足ＩＫ.
    pub fn name(self, stem: &str) -> String {
        format!("{}{stem}", self.prefix())
    }

    /// +1 for the left side (+X in MMD), −1 for the right.
    fn sign(self) -> f32 {
        match self {
            Side::Left => 1.0,
            Side::Right => -1.0,
        }
    }
}

/// Why a model, a motion or a pairing cannot be sized. Nothing is written
/// when one of these comes back.
#[derive(Debug, Clone, PartialEq)]
pub enum SizingError {
    /// The model (`role`: "source" or "target") lacks these standard bones.
    MissingBones { role: String, names: Vec<String> },
    /// Two bones that must be apart sit at the same rest position.
    ZeroLength {
        role: String,
        from: String,
        to: String,
    },
    /// A rest position is not a finite number.
    NonFiniteBone { role: String, bone: String },
    /// A motion key holds a non-finite position or rotation.
    NonFiniteKey { bone: String, frame: u32 },
    /// A camera key holds a non-finite look-at point or distance.
    NonFiniteCamera { frame: u32 },
    /// The motion drives none of the source's bones.
    DifferentSkeleton { tracks: usize },
    /// No target was given.
    NoTarget,
}

impl std::fmt::Display for SizingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizingError::MissingBones { role, names } => write!(
                f,
                "the {role} model lacks the standard bone{} {}",
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ),
            SizingError::ZeroLength { role, from, to } => write!(
                f,
                "the {role} model's bones {from} and {to} sit at the same rest position (zero-length bone)"
            ),
            SizingError::NonFiniteBone { role, bone } => write!(
                f,
                "the {role} model's bone {bone} has a non-finite rest position"
            ),
            SizingError::NonFiniteKey { bone, frame } => write!(
                f,
                "the motion's key of {bone} at frame {frame} holds a non-finite value"
            ),
            SizingError::NonFiniteCamera { frame } => write!(
                f,
                "the camera key at frame {frame} holds a non-finite look-at point or distance"
            ),
            SizingError::DifferentSkeleton { tracks } => write!(
                f,
                "none of the motion's {tracks} bone tracks names a bone of the source model (a motion for a different skeleton?)"
            ),
            SizingError::NoTarget => write!(f, "no target model to size for"),
        }
    }
}

impl std::error::Error for SizingError {}

/// One leg at rest: bone indices and rest positions (model units).
#[derive(Debug, Clone, PartialEq)]
pub struct LegMeasure {
    /// 足, ひざ, 足首 bone indices.
    pub bones: [usize; 3],
    /// Rest positions of 足 (hip joint), ひざ, 足首.
    pub hip: Vec3,
    pub knee: Vec3,
    pub ankle: Vec3,
    /// つま先 (the toe-IK target) if the model has it.
    pub toe: Option<usize>,
    /// 足ＩＫ if the model has it, with its rest position.
    pub ik: Option<(usize, Vec3)>,
    /// |ひざ − 足| + |足首 − ひざ|: the leg's bone length.
    pub length: f32,
}

/// One arm at rest: 腕, ひじ, 手首 with each one's unit rest direction (to
/// the next joint; the wrist's to 中指１, else its tail, else ±X as v5).
#[derive(Debug, Clone, PartialEq)]
pub struct ArmMeasure {
    /// 腕, ひじ, 手首 bone indices.
    pub bones: [usize; 3],
    /// Unit model-space rest directions of the three bones.
    pub directions: [Vec3; 3],
    /// |ひじ − 腕| + |手首 − ひじ| at rest, model units: the unit hand
    /// contacts are measured in.
    pub length: f32,
}

/// What sizing needs of a model at rest.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyMeasure {
    /// Left then right leg.
    pub legs: [LegMeasure; 2],
    /// Left then right arm, `None` when the model lacks an arm bone.
    pub arms: Option<[ArmMeasure; 2]>,
    /// The arm bones that are missing (empty when `arms` is `Some`).
    pub missing_arm_bones: Vec<String>,
    /// センター's index and rest position.
    pub center: (usize, Vec3),
    /// Straight 左足 → 左足首 distance (v5's horizontal leg length).
    pub leg_reach: f32,
    /// 左足.y − 左足首.y (v5's vertical leg length).
    pub leg_drop: f32,
    /// Mean bone length of the two legs (|ひざ − 足| + |足首 − ひざ|): the
    /// unit the quality report divides by.
    pub leg_length: f32,
    /// Mean rest height of the two hip joints (足) above the floor.
    pub hip_height: f32,
}

/// Distances below this (model units) count as zero-length bones.
const MIN_LENGTH: f32 = 1e-4;

/// Measures `model` at rest. `role` ("source" / "target") goes into the
/// error messages. Legs (足, ひざ, 足首 on both sides) and センター are
/// required; arms are optional here (`arms` is `None` and
/// `missing_arm_bones` names what lacks), the sizing refuses arm-less
/// models only when arms are to be sized.
pub fn measure(model: &Model, role: &str) -> Result<BodyMeasure, SizingError> {
    let sk = &model.skeleton;
    let mut missing = Vec::new();
    let mut need = |name: String| -> usize {
        match sk.find(&name) {
            Some(i) => i,
            None => {
                missing.push(name);
                usize::MAX
            }
        }
    };
    let center = need("センター".into());
    let leg_idx: Vec<[usize; 3]> = Side::BOTH
        .iter()
        .map(|s| {
            [
                need(s.name("足")),
                need(s.name("ひざ")),
                need(s.name("足首")),
            ]
        })
        .collect();
    if !missing.is_empty() {
        return Err(SizingError::MissingBones {
            role: role.into(),
            names: missing,
        });
    }
    let pos = |i: usize| -> Result<Vec3, SizingError> {
        let p = sk.bones[i].rest_position;
        if p.is_finite() {
            Ok(p)
        } else {
            Err(SizingError::NonFiniteBone {
                role: role.into(),
                bone: sk.bones[i].name.clone(),
            })
        }
    };
    let apart = |a: usize, b: usize| -> Result<f32, SizingError> {
        let d = pos(a)?.distance(pos(b)?);
        if d > MIN_LENGTH {
            Ok(d)
        } else {
            Err(SizingError::ZeroLength {
                role: role.into(),
                from: sk.bones[a].name.clone(),
                to: sk.bones[b].name.clone(),
            })
        }
    };
    let mut legs = Vec::with_capacity(2);
    for (side, &[hip, knee, ankle]) in Side::BOTH.iter().zip(&leg_idx) {
        let length = apart(hip, knee)? + apart(knee, ankle)?;
        let ik = match sk.find(&side.name("足ＩＫ")) {
            Some(i) => Some((i, pos(i)?)),
            None => None,
        };
        legs.push(LegMeasure {
            bones: [hip, knee, ankle],
            hip: pos(hip)?,
            knee: pos(knee)?,
            ankle: pos(ankle)?,
            toe: sk.find(&side.name("つま先")),
            ik,
            length,
        });
    }
    let legs: [LegMeasure; 2] = legs.try_into().map_err(|_| SizingError::MissingBones {
        role: role.into(),
        names: vec!["足".into()],
    })?;
    let left = &legs[0];
    let leg_reach = apart(left.bones[0], left.bones[2])?;
    let leg_drop = left.hip.y - left.ankle.y;
    if leg_drop <= MIN_LENGTH {
        return Err(SizingError::ZeroLength {
            role: role.into(),
            from: "左足".into(),
            to: "左足首 (no vertical drop: the ankle is not below the hip)".into(),
        });
    }
    let (arms, missing_arm_bones) = measure_arms(model, role)?;
    Ok(BodyMeasure {
        leg_length: (legs[0].length + legs[1].length) / 2.0,
        hip_height: (legs[0].hip.y + legs[1].hip.y) / 2.0,
        legs,
        arms,
        missing_arm_bones,
        center: (center, pos(center)?),
        leg_reach,
        leg_drop,
    })
}

/// Both arms' rest directions, or `None` and the missing names.
fn measure_arms(
    model: &Model,
    role: &str,
) -> Result<(Option<[ArmMeasure; 2]>, Vec<String>), SizingError> {
    let sk = &model.skeleton;
    let mut missing = Vec::new();
    let mut found = Vec::new();
    for side in Side::BOTH {
        let names = [side.name("腕"), side.name("ひじ"), side.name("手首")];
        let idx: Vec<Option<usize>> = names.iter().map(|n| sk.find(n)).collect();
        for (n, i) in names.iter().zip(&idx) {
            if i.is_none() {
                missing.push(n.clone());
            }
        }
        if let [Some(a), Some(e), Some(w)] = idx[..] {
            found.push((side, [a, e, w]));
        }
    }
    if !missing.is_empty() {
        return Ok((None, missing));
    }
    let mut arms = Vec::with_capacity(2);
    for (side, [arm, elbow, wrist]) in found {
        let p = |i: usize| -> Result<Vec3, SizingError> {
            let v = sk.bones[i].rest_position;
            if v.is_finite() {
                Ok(v)
            } else {
                Err(SizingError::NonFiniteBone {
                    role: role.into(),
                    bone: sk.bones[i].name.clone(),
                })
            }
        };
        let dir = |a: usize, to: Vec3| -> Result<Vec3, SizingError> {
            let d = to - p(a)?;
            if d.length() > MIN_LENGTH && d.is_finite() {
                Ok(d.normalize())
            } else {
                Err(SizingError::ZeroLength {
                    role: role.into(),
                    from: sk.bones[a].name.clone(),
                    to: "the next arm joint".into(),
                })
            }
        };
        let hand_end = wrist_end(model, side, wrist, p(wrist)?);
        let length = p(arm)?.distance(p(elbow)?) + p(elbow)?.distance(p(wrist)?);
        arms.push(ArmMeasure {
            bones: [arm, elbow, wrist],
            length,
            directions: [
                dir(arm, p(elbow)?)?,
                dir(elbow, p(wrist)?)?,
                dir(wrist, hand_end)?,
            ],
        });
    }
    let right = arms.pop();
    let left = arms.pop();
    Ok(match (left, right) {
        (Some(l), Some(r)) => (Some([l, r]), Vec::new()),
        _ => (None, missing),
    })
}

/// Where the hand points at rest: 中指１, else the wrist's display tail,
/// else one unit along ±X (v5 `calc_stance`).
fn wrist_end(model: &Model, side: Side, wrist: usize, at: Vec3) -> Vec3 {
    let sk = &model.skeleton;
    if let Some(f) = sk.find(&side.name("中指１")) {
        let p = sk.bones[f].rest_position;
        if p.distance(at) > MIN_LENGTH {
            return p;
        }
    }
    match sk.bones[wrist].tail {
        Some(crate::model::BoneTail::Bone(t)) if t < sk.bones.len() => {
            let p = sk.bones[t].rest_position;
            if p.distance(at) > MIN_LENGTH {
                return p;
            }
        }
        Some(crate::model::BoneTail::Offset(o)) if o.length() > MIN_LENGTH => return at + o,
        _ => {}
    }
    at + Vec3::X * side.sign()
}

/// The target's legs over the source's (v5 `calc_leg_ik_ratio`, and for
/// the hips our own rule below).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LegRatios {
    /// Target straight hip→ankle distance over the source's (v5): scales X
    /// and Z of the movement bones.
    pub horizontal: f32,
    /// Target hip→ankle drop over the source's (v5): scales Y of the
    /// movement bones other than the hips (全ての親, the feet).
    pub vertical: f32,
    /// Target leg bone length over the source's: scales Y of センター and
    /// グルーブ, so the hips' height above the ankles over the leg's length
    /// is the source's at every frame (with `hip_offset`).
    pub hips: f32,
    /// How far (model units) the target's センター moves so that at rest
    /// its hip→ankle drop is the source's share of the leg's bone length:
    /// v5's `set_center_y_offset`, which only lowers; we also raise a
    /// target whose rest legs are more bent than the source's, so knees
    /// bend as much as they did.
    pub hip_offset: f32,
}

/// The ratios of `target`'s legs to `source`'s (left legs, as v5).
pub fn leg_ratios(source: &BodyMeasure, target: &BodyMeasure) -> LegRatios {
    let sl = &source.legs[0];
    let tl = &target.legs[0];
    let source_share = source.leg_drop / sl.length;
    let wanted_drop = source_share * tl.length;
    LegRatios {
        horizontal: target.leg_reach / source.leg_reach,
        vertical: target.leg_drop / source.leg_drop,
        hips: tl.length / sl.length,
        hip_offset: wanted_drop - target.leg_drop,
    }
}

/// v5's cap on the shared horizontal ratio of a group
/// (`src/module/MOptions.pyx` `calc_leg_ratio`).
pub const GROUP_HORIZONTAL_CAP: f32 = 1.2;

/// The one horizontal ratio several actors sized together share, so a
/// formation keeps its spacing: the mean of their ratios, capped at
/// [`GROUP_HORIZONTAL_CAP`] (v5). A single actor keeps its own ratio.
pub fn shared_horizontal(ratios: &[LegRatios]) -> Option<f32> {
    match ratios {
        [] => None,
        [one] => Some(one.horizontal),
        many => {
            let mean = many.iter().map(|r| r.horizontal).sum::<f32>() / many.len() as f32;
            Some(mean.min(GROUP_HORIZONTAL_CAP))
        }
    }
}
