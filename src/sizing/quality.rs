//! The quality measures of a sizing, as the user sees them and the tests
//! assert them: each frame of the motion posed on the source (with the
//! original motion), on the target with the original motion ("before") and
//! on the target with the sized motion ("after"), through the one
//! [`PoseEngine`] (IK and append included, no physics). Hand contacts are
//! read by [`super::contacts`].

use glam::Vec3;

use super::contacts::{HandBones, Hands};
use super::measure::{BodyMeasure, SizingError, measure};
use super::motion::FLOOR_TOLERANCE;
use crate::model::{Model, PoseEngine};
use crate::vmd::{IndexedMotion, Motion};

/// An ankle within this share of the leg's length of its IK bone reaches
/// it.
pub const REACH_TOLERANCE: f32 = 0.05;

/// At most this many frames are posed per model; longer motions are
/// sampled at an even stride.
const MAX_FRAMES: u32 = 20_000;

/// The measures over the frames of one (model, motion) pairing. Lengths
/// are divided by the model's leg length (|ひざ − 足| + |足首 − ひざ|).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QualityStats {
    /// Frames posed.
    pub frames: usize,
    /// (a) Share of frames (0..1) in which every leg with its IK on has the
    /// ankle within 5 % of the leg length of its 足ＩＫ bone.
    pub ik_reach: f64,
    /// (b) Mean ankle-to-ankle distance / leg length.
    pub stance: f64,
    /// (b) Mean |stance − the source's stance at the same frame|.
    pub stance_error: f64,
    /// (c) Mean height of the hip joints (足, world Y) above the ankles'
    /// rest height, / leg length: the part of the hips' height the legs
    /// hold up (the feet below the ankles differ from model to model and
    /// are not sized).
    pub hip_height: f64,
    /// (c) Mean |hip height − the source's at the same frame|.
    pub hip_error: f64,
    /// (d) Frames with a toe (つま先, else 足首) more than 1 % of the leg
    /// length below the floor — for the target, only frames where the
    /// source's toe was not below it.
    pub floor_frames: usize,
    /// (d) The deepest such toe below the floor, model units (≥ 0).
    pub floor_depth: f32,
    /// (e) Angle between the upper arm's (腕 → ひじ) world direction and the
    /// source's at the same frame, mean over frames and both arms, degrees;
    /// `None` when a model lacks arm bones.
    pub arm_angle_mean: Option<f64>,
    /// (e) The largest such angle, degrees.
    pub arm_angle_max: Option<f64>,
    /// (f) Frames in which the source's wrists touch each other (closer
    /// than [`HAND_CONTACT`](super::HAND_CONTACT) of its arm length): the
    /// same count in all three rows.
    pub hand_contacts: usize,
    /// (f) Share (0..1) of those frames in which this model's wrists touch
    /// (closer than the same share of its own arm length); `None` when
    /// there are none or a model lacks arm bones.
    pub hand_contacts_kept: Option<f64>,
    /// (f) (frame, hand) pairs in which the source's wrist touches its
    /// head (closer than [`HEAD_CONTACT`](super::HEAD_CONTACT) of its arm
    /// length to 頭).
    pub head_contacts: usize,
    /// (f) Share of those in which this model's same wrist touches its
    /// head; `None` when there are none or a model lacks 頭 or arms.
    pub head_contacts_kept: Option<f64>,
}

/// The source, the target before sizing and after, side by side.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QualityReport {
    pub source: QualityStats,
    pub before: QualityStats,
    pub after: QualityStats,
}

/// What one posed frame shows.
#[derive(Debug, Clone, Copy)]
struct FrameShape {
    reach: bool,
    stance: f32,
    hip: f32,
    /// Lowest toe height / leg length.
    toe: f32,
    toe_units: f32,
    arms: Option<[Vec3; 2]>,
    hands: Option<Hands>,
}

/// Poses a model frame by frame and reads its [`FrameShape`].
struct Probe<'a> {
    model: &'a Model,
    body: BodyMeasure,
    engine: PoseEngine,
    /// Per leg: (足ＩＫ bone, its chain's index, the chain's effector).
    iks: Vec<(usize, usize, usize)>,
    toes: [usize; 2],
    hands: Option<HandBones>,
}

impl<'a> Probe<'a> {
    fn new(model: &'a Model, role: &str, motion: &IndexedMotion) -> Result<Self, SizingError> {
        let body = measure(model, role)?;
        let mut engine = PoseEngine::new(model);
        engine.bind(model, Some(&motion.index));
        let iks = body
            .legs
            .iter()
            .filter_map(|l| {
                let (ik, _) = l.ik?;
                let chain = model.skeleton.iks.iter().position(|c| c.ik_bone == ik)?;
                Some((ik, chain, model.skeleton.iks[chain].target))
            })
            .collect();
        let toes = [0, 1].map(|i| body.legs[i].toe.unwrap_or(body.legs[i].bones[2]));
        let hands = HandBones::of(model, &body);
        Ok(Probe {
            model,
            body,
            engine,
            iks,
            toes,
            hands,
        })
    }

    fn shape(&mut self, motion: &IndexedMotion, frame: f64) -> FrameShape {
        self.engine
            .pose_bones(self.model, Some(motion.as_ref()), frame, |_| {});
        let posed = &self.engine.posed;
        let at = |b: usize| posed.bone_world[b].w_axis.truncate();
        let len = self.body.leg_length;
        let reach = self.iks.iter().all(|&(ik, chain, effector)| {
            !posed.ik_enabled.get(chain).copied().unwrap_or(false)
                || at(ik).distance(at(effector)) <= REACH_TOLERANCE * len
        });
        let [l, r] = &self.body.legs;
        let stance = at(l.bones[2]).distance(at(r.bones[2])) / len;
        let ankles = (l.ankle.y + r.ankle.y) / 2.0;
        let hip = ((at(l.bones[0]).y + at(r.bones[0]).y) / 2.0 - ankles) / len;
        let toe_units = at(self.toes[0]).y.min(at(self.toes[1]).y);
        let arms = self.body.arms.as_ref().map(|arms| {
            arms.each_ref()
                .map(|a| (at(a.bones[1]) - at(a.bones[0])).normalize_or_zero())
        });
        let hands = self.hands.as_ref().map(|h| h.read(&posed.bone_world));
        FrameShape {
            hands,
            reach,
            stance,
            hip,
            toe: toe_units / len,
            toe_units,
            arms,
        }
    }
}

/// Running sums of one pairing's [`QualityStats`].
#[derive(Default)]
struct Tally {
    frames: usize,
    reached: usize,
    stance: f64,
    stance_error: f64,
    hip: f64,
    hip_error: f64,
    floor_frames: usize,
    floor_depth: f32,
    arm_sum: f64,
    arm_n: usize,
    arm_max: f64,
    arms_known: bool,
    hand_contacts: usize,
    hand_kept: usize,
    hands_known: bool,
    head_contacts: usize,
    head_kept: usize,
    heads_known: bool,
}

impl Tally {
    fn add(&mut self, s: &FrameShape, source: &FrameShape, is_source: bool) {
        self.frames += 1;
        self.reached += usize::from(s.reach);
        self.stance += f64::from(s.stance);
        self.stance_error += f64::from((s.stance - source.stance).abs());
        self.hip += f64::from(s.hip);
        self.hip_error += f64::from((s.hip - source.hip).abs());
        let below = s.toe < -FLOOR_TOLERANCE;
        let source_on = source.toe >= -FLOOR_TOLERANCE;
        if below && (is_source || source_on) {
            self.floor_frames += 1;
            self.floor_depth = self.floor_depth.max(-s.toe_units);
        }
        if let (Some(a), Some(b)) = (s.arms, source.arms) {
            self.arms_known = true;
            for (x, y) in a.iter().zip(&b) {
                let deg = f64::from(x.dot(*y).clamp(-1.0, 1.0).acos().to_degrees());
                self.arm_sum += deg;
                self.arm_n += 1;
                self.arm_max = self.arm_max.max(deg);
            }
        }
        self.add_contacts(s.hands, source.hands);
    }

    /// (f): the source's contacts at this frame, and whether `s` keeps
    /// them.
    fn add_contacts(&mut self, s: Option<Hands>, source: Option<Hands>) {
        let Some(source) = source else { return };
        if source.clap() {
            self.hand_contacts += 1;
            if let Some(s) = s {
                self.hands_known = true;
                self.hand_kept += usize::from(s.clap());
            }
        }
        let here = s.filter(|s| s.head.is_some()).map(|s| s.on_head());
        for (i, touch) in source.on_head().into_iter().enumerate() {
            if touch {
                self.head_contacts += 1;
                if let Some(h) = here {
                    self.heads_known = true;
                    self.head_kept += usize::from(h[i]);
                }
            }
        }
    }

    fn stats(&self) -> QualityStats {
        let n = self.frames.max(1) as f64;
        QualityStats {
            frames: self.frames,
            ik_reach: self.reached as f64 / n,
            stance: self.stance / n,
            stance_error: self.stance_error / n,
            hip_height: self.hip / n,
            hip_error: self.hip_error / n,
            floor_frames: self.floor_frames,
            floor_depth: self.floor_depth,
            arm_angle_mean: self
                .arms_known
                .then(|| self.arm_sum / self.arm_n.max(1) as f64),
            arm_angle_max: self.arms_known.then_some(self.arm_max),
            hand_contacts: self.hand_contacts,
            hand_contacts_kept: self
                .hands_known
                .then(|| self.hand_kept as f64 / self.hand_contacts.max(1) as f64),
            head_contacts: self.head_contacts,
            head_contacts_kept: self
                .heads_known
                .then(|| self.head_kept as f64 / self.head_contacts.max(1) as f64),
        }
    }
}

/// Poses every frame of `motion` (0 through its last bone key; an even
/// stride past 20,000 frames) on `source`, and on `target` with `motion`
/// and with `sized`, and measures each.
pub fn quality(
    motion: &Motion,
    sized: &Motion,
    source: &Model,
    target: &Model,
) -> Result<QualityReport, SizingError> {
    let original = IndexedMotion::new(motion.clone());
    let sized = IndexedMotion::new(sized.clone());
    let mut src = Probe::new(source, "source", &original)?;
    let mut before = Probe::new(target, "target", &original)?;
    let mut after = Probe::new(target, "target", &sized)?;
    let last = motion.bones.iter().map(|k| k.frame()).max().unwrap_or(0);
    let stride = last / MAX_FRAMES + 1;
    let mut tallies: [Tally; 3] = Default::default();
    let mut frame = 0u32;
    loop {
        let f = f64::from(frame);
        let s = src.shape(&original, f);
        let b = before.shape(&original, f);
        let a = after.shape(&sized, f);
        tallies[0].add(&s, &s, true);
        tallies[1].add(&b, &s, false);
        tallies[2].add(&a, &s, false);
        match frame.checked_add(stride) {
            Some(next) if next <= last => frame = next,
            _ => break,
        }
    }
    let [s, b, a] = tallies.each_ref().map(Tally::stats);
    Ok(QualityReport {
        source: s,
        before: b,
        after: a,
    })
}
