//! Curve presets and batch curve edits.
//!
//! * [`presets`] / [`preset`]: a library of easings VMD can store — control
//!   points inside the 0..=127 box, so no overshoot. Each preset is defined by
//!   its ideal real-valued control points (0..1 space, e.g. CSS
//!   `ease-in-out` = 0.42, 0, 0.58, 1) and stored as the nearest integers
//!   (`round(v · 127)`); [`Preset::quantisation_error`] says how far the
//!   stored easing strays from the ideal one (in weight units, 0..1).
//! * [`parse_curve`]: `"x1,y1,x2,y2"` → [`Curve`], with clear errors.
//! * Batch edits: [`set_bone_curves`] / [`set_camera_curves`] (a track and a
//!   frame range) and [`apply_bone_curve`] / [`apply_camera_curve`] (explicit
//!   key indices, for "apply to every selected key"). They go through the
//!   core's curve setters, so only interpolation bytes change — never a bone
//!   block's bytes 2–3 (the physics flag) — and they report which keys they
//!   matched and which of those actually changed.
//!
//! Frames are MMD frames (30 fps); control points are 0..=127 (127 = 1.0).

use std::sync::OnceLock;

use super::bezier::Curve;
use super::interpolation::{BoneChannel, CameraChannel};
use super::motion::Motion;
use super::track::TrackIndex;

// ---------------------------------------------------------------------------
// Presets
// ---------------------------------------------------------------------------

/// One entry of the preset library.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Preset {
    /// Kebab-case name used by the CLI (`--preset ease-in-out`).
    pub name: &'static str,
    /// Short human label for menus.
    pub label: &'static str,
    /// Where the ideal control points come from.
    pub source: &'static str,
    /// Ideal control points x1, y1, x2, y2 in 0..1 space.
    pub ideal: [f64; 4],
    /// The stored curve: each ideal value rounded to the nearest of 0..=127.
    pub curve: Curve,
    /// max over x ∈ [0, 1] of |weight_ideal(x) − weight_stored(x)|, weight
    /// units (0..1), sampled at [`QUANTISATION_SAMPLES`] + 1 evenly spaced x.
    pub quantisation_error: f64,
}

/// Number of intervals the quantisation error is sampled over.
pub const QUANTISATION_SAMPLES: usize = 1024;

/// (name, label, source, ideal x1, y1, x2, y2)
type PresetDef = (&'static str, &'static str, &'static str, [f64; 4]);

const PRESET_DEFS: &[PresetDef] = &[
    (
        "linear",
        "Linear",
        "MMD default (20,20)-(107,107)",
        [20.0 / 127.0, 20.0 / 127.0, 107.0 / 127.0, 107.0 / 127.0],
    ),
    ("ease", "Ease", "CSS ease", [0.25, 0.1, 0.25, 1.0]),
    ("ease-in", "Ease in", "CSS ease-in", [0.42, 0.0, 1.0, 1.0]),
    (
        "ease-out",
        "Ease out",
        "CSS ease-out",
        [0.0, 0.0, 0.58, 1.0],
    ),
    (
        "ease-in-out",
        "Ease in-out",
        "CSS ease-in-out",
        [0.42, 0.0, 0.58, 1.0],
    ),
    (
        "ease-in-soft",
        "Ease in (soft)",
        "easeInSine",
        [0.12, 0.0, 0.39, 0.0],
    ),
    (
        "ease-out-soft",
        "Ease out (soft)",
        "easeOutSine",
        [0.61, 1.0, 0.88, 1.0],
    ),
    (
        "ease-in-out-soft",
        "Ease in-out (soft)",
        "easeInOutSine",
        [0.37, 0.0, 0.63, 1.0],
    ),
    (
        "ease-in-strong",
        "Ease in (strong)",
        "easeInCubic",
        [0.32, 0.0, 0.67, 0.0],
    ),
    (
        "ease-out-strong",
        "Ease out (strong)",
        "easeOutCubic",
        [0.33, 1.0, 0.68, 1.0],
    ),
    (
        "ease-in-out-strong",
        "Ease in-out (strong)",
        "easeInOutCubic",
        [0.65, 0.0, 0.35, 1.0],
    ),
    (
        "slow-start",
        "Slow start (MMD)",
        "MMD habit: default curve with the first point dragged onto the bottom edge, (64,0)-(107,107)",
        [64.0 / 127.0, 0.0, 107.0 / 127.0, 107.0 / 127.0],
    ),
    (
        "slow-end",
        "Slow end (MMD)",
        "MMD habit: default curve with the second point dragged onto the top edge, (20,20)-(64,127)",
        [20.0 / 127.0, 20.0 / 127.0, 64.0 / 127.0, 1.0],
    ),
    (
        "slow-both",
        "Slow start and end (MMD)",
        "MMD habit: both points on the edges, (64,0)-(64,127)",
        [64.0 / 127.0, 0.0, 64.0 / 127.0, 1.0],
    ),
];

/// Nearest stored value for an ideal coordinate in 0..1.
fn quantise(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 127.0).round() as u8
}

/// y of the ideal (real-valued) curve at time fraction `x`, by bisection on
/// x(t) (60 halvings: t is exact to 1e-18, far below f64 rounding of the weight).
/// Independent of [`Curve::weight`] so that the two can check each other.
pub fn ideal_weight(p: [f64; 4], x: f64) -> f64 {
    let [x1, y1, x2, y2] = p;
    let b = |p1: f64, p2: f64, t: f64| {
        let u = 1.0 - t;
        3.0 * u * u * t * p1 + 3.0 * u * t * t * p2 + t * t * t
    };
    let x = x.clamp(0.0, 1.0);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if b(x1, x2, mid) < x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    b(y1, y2, 0.5 * (lo + hi))
}

/// max over sampled x of |ideal(x) − stored(x)|, weight units.
fn quantisation_error(ideal: [f64; 4], stored: Curve) -> f64 {
    (0..=QUANTISATION_SAMPLES)
        .map(|i| {
            let x = i as f64 / QUANTISATION_SAMPLES as f64;
            (ideal_weight(ideal, x) - stored.weight(x)).abs()
        })
        .fold(0.0, f64::max)
}

fn build_preset(def: &PresetDef) -> Preset {
    let (name, label, source, ideal) = *def;
    let curve = Curve::new(
        quantise(ideal[0]),
        quantise(ideal[1]),
        quantise(ideal[2]),
        quantise(ideal[3]),
    );
    Preset {
        name,
        label,
        source,
        ideal,
        curve,
        quantisation_error: quantisation_error(ideal, curve),
    }
}

/// The whole library, in menu order (computed once).
pub fn presets() -> &'static [Preset] {
    static LIB: OnceLock<Vec<Preset>> = OnceLock::new();
    LIB.get_or_init(|| PRESET_DEFS.iter().map(build_preset).collect())
}

/// A preset by its kebab-case name.
pub fn preset(name: &str) -> Option<Preset> {
    presets().iter().find(|p| p.name == name).cloned()
}

/// The names of every preset, in menu order.
pub fn preset_names() -> Vec<&'static str> {
    presets().iter().map(|p| p.name).collect()
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

/// Why a curve text or channel name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CurveParseError {
    #[error("a curve needs 4 values x1,y1,x2,y2 (each 0..127), got {0} in {1:?}")]
    WrongCount(usize, String),
    #[error("curve value {which} = {text:?} is not a whole number (expected 0..127)")]
    NotANumber { which: &'static str, text: String },
    #[error("curve value {which} = {value} is negative (expected 0..127)")]
    Negative { which: &'static str, value: i64 },
    #[error("curve value {which} = {value} is above 127 (expected 0..127)")]
    TooLarge { which: &'static str, value: i64 },
    #[error("unknown {kind} channel {text:?}; expected one of: {expected}")]
    UnknownChannel {
        kind: &'static str,
        text: String,
        expected: &'static str,
    },
}

/// Parses `"x1,y1,x2,y2"` (spaces allowed around values) into a curve with
/// every value in 0..=127.
pub fn parse_curve(text: &str) -> Result<Curve, CurveParseError> {
    const NAMES: [&str; 4] = ["x1", "y1", "x2", "y2"];
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 4 {
        let n = if text.trim().is_empty() {
            0
        } else {
            parts.len()
        };
        return Err(CurveParseError::WrongCount(n, text.to_string()));
    }
    let mut v = [0u8; 4];
    for (i, part) in parts.iter().enumerate() {
        let which = NAMES[i];
        let n: i64 = part.parse().map_err(|_| CurveParseError::NotANumber {
            which,
            text: (*part).to_string(),
        })?;
        if n < 0 {
            return Err(CurveParseError::Negative { which, value: n });
        }
        if n > 127 {
            return Err(CurveParseError::TooLarge { which, value: n });
        }
        v[i] = n as u8;
    }
    Ok(Curve::new(v[0], v[1], v[2], v[3]))
}

/// Formats a curve as `x1,y1,x2,y2` (the inverse of [`parse_curve`]).
pub fn format_curve(c: Curve) -> String {
    format!("{},{},{},{}", c.x1, c.y1, c.x2, c.y2)
}

const BONE_CHANNEL_NAMES: &str = "x, y, z, rotation, all";
const CAMERA_CHANNEL_NAMES: &str = "target-x, target-y, target-z, rotation, distance, fov, all";

/// Parses a bone channel list: `x`, `y`, `z`, `rotation` (or `r`), `all`,
/// or several joined by commas (`x,y,z`). Order follows the block; no repeats.
pub fn parse_bone_channels(text: &str) -> Result<Vec<BoneChannel>, CurveParseError> {
    let mut out = Vec::new();
    for part in text.split(',').map(|s| s.trim().to_ascii_lowercase()) {
        let add: &[BoneChannel] = match part.as_str() {
            "x" => &[BoneChannel::X],
            "y" => &[BoneChannel::Y],
            "z" => &[BoneChannel::Z],
            "rotation" | "r" | "rot" => &[BoneChannel::Rotation],
            "all" => &BoneChannel::ALL,
            _ => {
                return Err(CurveParseError::UnknownChannel {
                    kind: "bone",
                    text: part,
                    expected: BONE_CHANNEL_NAMES,
                });
            }
        };
        out.extend_from_slice(add);
    }
    Ok(BoneChannel::ALL
        .into_iter()
        .filter(|c| out.contains(c))
        .collect())
}

/// Parses a camera channel list: `target-x`, `target-y`, `target-z`,
/// `rotation`, `distance`, `fov`, `all`, or several joined by commas.
pub fn parse_camera_channels(text: &str) -> Result<Vec<CameraChannel>, CurveParseError> {
    let mut out = Vec::new();
    for part in text.split(',').map(|s| s.trim().to_ascii_lowercase()) {
        let add: &[CameraChannel] = match part.as_str() {
            "target-x" | "x" => &[CameraChannel::TargetX],
            "target-y" | "y" => &[CameraChannel::TargetY],
            "target-z" | "z" => &[CameraChannel::TargetZ],
            "rotation" | "r" | "rot" => &[CameraChannel::Rotation],
            "distance" | "dist" => &[CameraChannel::Distance],
            "fov" => &[CameraChannel::Fov],
            "all" => &CameraChannel::ALL,
            _ => {
                return Err(CurveParseError::UnknownChannel {
                    kind: "camera",
                    text: part,
                    expected: CAMERA_CHANNEL_NAMES,
                });
            }
        };
        out.extend_from_slice(add);
    }
    Ok(CameraChannel::ALL
        .into_iter()
        .filter(|c| out.contains(c))
        .collect())
}

// ---------------------------------------------------------------------------
// Batch edits
// ---------------------------------------------------------------------------

/// Which bone track(s) to edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoneTrack<'a> {
    /// The raw name bytes before the first NUL (exact track identity).
    NameKey(&'a [u8]),
    /// The decoded display name; every track that decodes to it.
    Text(&'a str),
}

/// Inclusive frame range; `None` ends are open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameRange {
    pub from: Option<u32>,
    pub to: Option<u32>,
}

impl FrameRange {
    pub const ALL: FrameRange = FrameRange {
        from: None,
        to: None,
    };
    pub fn new(from: Option<u32>, to: Option<u32>) -> FrameRange {
        FrameRange { from, to }
    }
    pub fn contains(&self, frame: u32) -> bool {
        self.from.is_none_or(|f| frame >= f) && self.to.is_none_or(|t| frame <= t)
    }
}

impl std::fmt::Display for FrameRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.from, self.to) {
            (None, None) => write!(f, "all frames"),
            (a, Some(b)) => write!(f, "frames {}..={b}", a.unwrap_or(0)),
            (Some(a), None) => write!(f, "frames {a}.."),
        }
    }
}

/// What a batch edit did. Key indices point into `Motion::bones` or
/// `Motion::cameras` (file order).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CurveEditReport {
    /// Every key the edit addressed (in the order given / frame order).
    pub matched: Vec<usize>,
    /// The subset whose bytes changed. A key whose curves already equal the
    /// target (every copy included) is matched but not changed.
    pub changed: Vec<usize>,
    /// Number of channels written per key.
    pub channels: usize,
}

impl CurveEditReport {
    pub fn matched_count(&self) -> usize {
        self.matched.len()
    }
    pub fn changed_count(&self) -> usize {
        self.changed.len()
    }
}

/// Why a batch edit was refused (nothing was changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CurveEditError {
    #[error("no bone track named {name:?}{}", suggest(.close))]
    NoSuchBone { name: String, close: Vec<String> },
    #[error("no channel given")]
    NoChannel,
    #[error("empty frame range: from {from} is after to {to}")]
    EmptyRange { from: u32, to: u32 },
    #[error("key index {index} is out of range ({len} keys)")]
    KeyOutOfRange { index: usize, len: usize },
}

fn suggest(close: &[String]) -> String {
    if close.is_empty() {
        String::new()
    } else {
        format!("; did you mean: {}?", close.join(", "))
    }
}

fn check_range(range: FrameRange) -> Result<(), CurveEditError> {
    match (range.from, range.to) {
        (Some(from), Some(to)) if from > to => Err(CurveEditError::EmptyRange { from, to }),
        _ => Ok(()),
    }
}

/// Edit distance between two strings, counted in chars.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Up to five track names close to `name`: names containing it or contained
/// in it, and names within an edit distance of a third of its length (≥ 1),
/// closest first.
pub fn close_bone_names(idx: &TrackIndex, name: &str) -> Vec<String> {
    let lower = name.to_lowercase();
    let limit = (name.chars().count() / 3).max(1);
    let mut scored: Vec<(usize, String)> = idx
        .bones
        .iter()
        .map(|t| t.name().text)
        .filter_map(|text| {
            let t = text.to_lowercase();
            let d = levenshtein(&lower, &t);
            let contains = !lower.is_empty() && (t.contains(&lower) || lower.contains(&t));
            (d <= limit || contains).then_some((d, text))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(5).map(|(_, t)| t).collect()
}

/// Key indices of the bone track(s) named `track`, sorted by frame.
pub fn bone_track_keys(
    m: &Motion,
    idx: &TrackIndex,
    track: BoneTrack<'_>,
) -> Result<Vec<usize>, CurveEditError> {
    let keys: Vec<usize> = match track {
        BoneTrack::NameKey(k) => idx
            .bone(k)
            .map(|t| t.keys.iter().map(|&i| i as usize).collect())
            .unwrap_or_default(),
        BoneTrack::Text(text) => {
            let mut v: Vec<usize> = idx
                .bones
                .iter()
                .filter(|t| t.name().text == text)
                .flat_map(|t| t.keys.iter().map(|&i| i as usize))
                .collect();
            v.sort_by_key(|&i| (m.bones[i].frame(), i));
            v
        }
    };
    if keys.is_empty() {
        let name = match track {
            BoneTrack::NameKey(k) => super::name::decode_name(k).text,
            BoneTrack::Text(t) => t.to_string(),
        };
        let close = close_bone_names(idx, &name);
        return Err(CurveEditError::NoSuchBone { name, close });
    }
    Ok(keys)
}

/// Sets `curve` on `channels` of every key of bone `track` whose frame is in
/// `range`. Changes only those keys' interpolation bytes (never bytes 2–3).
/// Errors (with nothing changed) when no track has that name, no channel is
/// given or the range is reversed. An empty match is not an error.
pub fn set_bone_curves(
    m: &mut Motion,
    track: BoneTrack<'_>,
    range: FrameRange,
    channels: &[BoneChannel],
    curve: Curve,
) -> Result<CurveEditReport, CurveEditError> {
    check_range(range)?;
    if channels.is_empty() {
        return Err(CurveEditError::NoChannel);
    }
    let idx = TrackIndex::build(m);
    let keys: Vec<usize> = bone_track_keys(m, &idx, track)?
        .into_iter()
        .filter(|&i| range.contains(m.bones[i].frame()))
        .collect();
    apply_bone_curve(m, &keys, channels, curve)
}

/// Sets `curve` on `channels` of every camera key whose frame is in `range`
/// (keys in frame order).
pub fn set_camera_curves(
    m: &mut Motion,
    range: FrameRange,
    channels: &[CameraChannel],
    curve: Curve,
) -> Result<CurveEditReport, CurveEditError> {
    check_range(range)?;
    if channels.is_empty() {
        return Err(CurveEditError::NoChannel);
    }
    let mut keys: Vec<usize> = (0..m.cameras.len())
        .filter(|&i| range.contains(m.cameras[i].frame()))
        .collect();
    keys.sort_by_key(|&i| (m.cameras[i].frame(), i));
    apply_camera_curve(m, &keys, channels, curve)
}

/// One key's interpolation block before and after a curve edit (for undo).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockChange<const N: usize> {
    /// Index into `Motion::bones` (N = 64) or `Motion::cameras` (N = 24).
    pub key: usize,
    pub before: [u8; N],
    pub after: [u8; N],
}

impl<const N: usize> BlockChange<N> {
    /// The edit leaves the bytes as they were.
    pub fn is_noop(&self) -> bool {
        self.before == self.after
    }
}

/// A bone key's 64-byte block before and after.
pub type BoneBlockChange = BlockChange<64>;
/// A camera key's 24-byte block before and after.
pub type CameraBlockChange = BlockChange<24>;

/// The new interpolation block of each listed bone key after setting
/// `curve` on `channels`, for every key given (duplicates dropped). Pure: the motion is not touched. Errors on an index
/// out of range.
pub fn plan_bone_curve(
    m: &Motion,
    keys: &[usize],
    channels: &[BoneChannel],
    curve: Curve,
) -> Result<Vec<BoneBlockChange>, CurveEditError> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(keys.len());
    for &i in keys {
        let k = m.bones.get(i).ok_or(CurveEditError::KeyOutOfRange {
            index: i,
            len: m.bones.len(),
        })?;
        if !seen.insert(i) {
            continue;
        }
        let mut edited = *k;
        for &c in channels {
            edited.set_curve(c, curve);
        }
        out.push(BlockChange {
            key: i,
            before: k.interpolation_block(),
            after: edited.interpolation_block(),
        });
    }
    Ok(out)
}

/// Camera counterpart of [`plan_bone_curve`].
pub fn plan_camera_curve(
    m: &Motion,
    keys: &[usize],
    channels: &[CameraChannel],
    curve: Curve,
) -> Result<Vec<CameraBlockChange>, CurveEditError> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(keys.len());
    for &i in keys {
        let k = m.cameras.get(i).ok_or(CurveEditError::KeyOutOfRange {
            index: i,
            len: m.cameras.len(),
        })?;
        if !seen.insert(i) {
            continue;
        }
        let mut edited = *k;
        for &c in channels {
            edited.set_curve(c, curve);
        }
        out.push(BlockChange {
            key: i,
            before: k.interpolation_block(),
            after: edited.interpolation_block(),
        });
    }
    Ok(out)
}

/// Sets `curve` on `channels` of the bone keys with these indices (into
/// `Motion::bones`). All-or-nothing: an index out of range changes nothing.
pub fn apply_bone_curve(
    m: &mut Motion,
    keys: &[usize],
    channels: &[BoneChannel],
    curve: Curve,
) -> Result<CurveEditReport, CurveEditError> {
    let plan = plan_bone_curve(m, keys, channels, curve)?;
    let mut report = CurveEditReport {
        channels: channels.len(),
        ..Default::default()
    };
    for ch in plan {
        report.matched.push(ch.key);
        if !ch.is_noop() {
            m.bones[ch.key].set_interpolation_block(ch.after);
            report.changed.push(ch.key);
        }
    }
    Ok(report)
}

/// Sets `curve` on `channels` of the camera keys with these indices (into
/// `Motion::cameras`). All-or-nothing like [`apply_bone_curve`].
pub fn apply_camera_curve(
    m: &mut Motion,
    keys: &[usize],
    channels: &[CameraChannel],
    curve: Curve,
) -> Result<CurveEditReport, CurveEditError> {
    let plan = plan_camera_curve(m, keys, channels, curve)?;
    let mut report = CurveEditReport {
        channels: channels.len(),
        ..Default::default()
    };
    for ch in plan {
        report.matched.push(ch.key);
        if !ch.is_noop() {
            m.cameras[ch.key].set_interpolation_block(ch.after);
            report.changed.push(ch.key);
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_and_refuses() {
        assert_eq!(parse_curve("20,20,107,107"), Ok(Curve::LINEAR));
        assert_eq!(parse_curve(" 0, 127 ,64,1"), Ok(Curve::new(0, 127, 64, 1)));
        assert!(matches!(
            parse_curve("1,2,3"),
            Err(CurveParseError::WrongCount(3, _))
        ));
        assert!(matches!(
            parse_curve(""),
            Err(CurveParseError::WrongCount(0, _))
        ));
        assert!(matches!(
            parse_curve("1,2,3,4,5"),
            Err(CurveParseError::WrongCount(5, _))
        ));
        assert!(matches!(
            parse_curve("1,2,128,4"),
            Err(CurveParseError::TooLarge {
                which: "x2",
                value: 128
            })
        ));
        assert!(matches!(
            parse_curve("1,-2,3,4"),
            Err(CurveParseError::Negative {
                which: "y1",
                value: -2
            })
        ));
        assert!(matches!(
            parse_curve("1,2,3,a"),
            Err(CurveParseError::NotANumber { which: "y2", .. })
        ));
        assert!(matches!(
            parse_curve("1,2.5,3,4"),
            Err(CurveParseError::NotANumber { .. })
        ));
        assert_eq!(
            parse_curve(&format_curve(Curve::new(9, 8, 7, 6))),
            Ok(Curve::new(9, 8, 7, 6))
        );
    }

    #[test]
    fn channel_lists() {
        assert_eq!(
            parse_bone_channels("all").unwrap(),
            BoneChannel::ALL.to_vec()
        );
        assert_eq!(
            parse_bone_channels("rotation,x").unwrap(),
            vec![BoneChannel::X, BoneChannel::Rotation]
        );
        assert!(parse_bone_channels("w").is_err());
        assert!(parse_bone_channels("distance").is_err());
        assert_eq!(
            parse_camera_channels("fov").unwrap(),
            vec![CameraChannel::Fov]
        );
        assert_eq!(
            parse_camera_channels("all").unwrap(),
            CameraChannel::ALL.to_vec()
        );
        assert!(parse_camera_channels("q").is_err());
    }

    #[test]
    fn levenshtein_counts_chars() {
        assert_eq!(levenshtein("センター", "センタ"), 1);
        assert_eq!(levenshtein("abc", "abc"), 0);
        assert_eq!(levenshtein("", "ab"), 2);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
    }

    #[test]
    fn ideal_weight_matches_the_closed_form() {
        // x1 = 0, x2 = 1 → x(t) = 3t² − 2t³, so x = 0.5 at t = 0.5;
        // y1 = y2 = 1 → y(0.5) = 1 − 0.5³ = 0.875 (hand computation).
        assert!((ideal_weight([0.0, 1.0, 1.0, 1.0], 0.5) - 0.875).abs() < 1e-12);
    }
}
