//! Hand contacts: when a posed body's hands touch each other or its head,
//! in units of its own arm length, so a body with longer arms is held to
//! the same rule (issue 36 measure (f), and the frames hand alignment
//! works on).
//!
//! The points are the wrist joints (手首): every standard model has them,
//! they are what the arm chain 腕 → ひじ → 手首 places, and fingertip bones
//! (人指先, 中指先) are missing from many models (PMD models often lack the
//! 先 bones) and follow finger keys the sizing does not place.

use glam::{Mat4, Vec3};

use super::measure::BodyMeasure;
use crate::model::Model;

/// Two wrists closer than this share of the arm's length (|ひじ − 腕| +
/// |手首 − ひじ|, mean of both arms) touch. 20 % is 8–9 cm on a 160 cm
/// figure (arm ≈ 43 cm): palms pressed together put the wrist joints a
/// wrist's thickness apart (≈ 5 cm), hands touching at the fingers (a
/// heart) up to about a palm's width, so both count, and hands merely
/// held near each other (v5 aligns from 1.7 units, ≈ 35 % of Animasa
/// Miku's arm) do not. 10 % was tried first: on the corpus's 7,404-frame
/// dance for the vmd_sizing sample model no frame came that close, the
/// nearest were at 10–15 %.
pub const HAND_CONTACT: f32 = 0.20;

/// A wrist closer than this share of the arm's length to the 頭 bone
/// touches the head. The 頭 bone sits at the top of the neck, inside the
/// head, about a quarter of an arm below its crown and behind its face,
/// so a hand on the cheek, the crown or the back of the head is this far
/// from it.
pub const HEAD_CONTACT: f32 = 0.25;

/// Where a posed body's hands are, each distance divided by the body's
/// arm length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Hands {
    /// Wrist to wrist.
    pub between: f32,
    /// Left and right wrist to 頭; `None` when the model has no 頭.
    pub head: Option<[f32; 2]>,
}

impl Hands {
    /// The wrists touch each other.
    pub fn clap(&self) -> bool {
        self.between <= HAND_CONTACT
    }

    /// Which wrists touch the head (left, right).
    pub fn on_head(&self) -> [bool; 2] {
        self.head
            .map_or([false; 2], |d| d.map(|x| x <= HEAD_CONTACT))
    }
}

/// The bones hand contacts are read from, in one model.
#[derive(Debug, Clone)]
pub(crate) struct HandBones {
    /// Left and right 手首.
    pub wrists: [usize; 2],
    /// 頭, if the model has it.
    pub head: Option<usize>,
    /// Mean arm length, model units (> 0).
    pub arm_length: f32,
}

impl HandBones {
    /// `None` when the body lacks arm bones or its arms have no length.
    pub fn of(model: &Model, body: &BodyMeasure) -> Option<Self> {
        let arms = body.arms.as_ref()?;
        let arm_length = (arms[0].length + arms[1].length) / 2.0;
        (arm_length.is_finite() && arm_length > 0.0).then(|| HandBones {
            wrists: [arms[0].bones[2], arms[1].bones[2]],
            head: model.skeleton.find("頭"),
            arm_length,
        })
    }

    /// The contacts of a posed body (`bone_world` from the pose engine).
    pub fn read(&self, bone_world: &[Mat4]) -> Hands {
        let at = |b: usize| {
            bone_world
                .get(b)
                .map_or(Vec3::ZERO, |m| m.w_axis.truncate())
        };
        let [l, r] = self.wrists.map(at);
        let len = self.arm_length;
        Hands {
            between: l.distance(r) / len,
            head: self.head.map(|h| {
                let h = at(h);
                [l.distance(h) / len, r.distance(h) / len]
            }),
        }
    }
}
