//! Simplify within a scope: the keys of some bones, optionally only those
//! inside a frame range (what a physics bake just wrote).
//!
//! The scoped keys are simplified as a motion of their own, with the same
//! rules as [`simplify`](super::simplify()); every other record (other
//! bones, keys of the chosen bones outside the range, morphs, camera,
//! light, self-shadow, IK) keeps its bytes and its place. Simplify always
//! keeps a track's first and last key and never rewrites the curve that
//! arrives at its first key, so the scoped track's first and last keys in
//! the range stay byte-identical and the segments that enter and leave the
//! range play as before; only the playback strictly inside the range moves,
//! within the tolerances.

use std::collections::BTreeSet;

use super::report::OpError;
use super::simplify::{SimplifyParams, SimplifyReport, simplify_with_progress};
use crate::progress::Progress;
use crate::vmd::motion::Motion;
use crate::vmd::name::name_text;
use crate::vmd::records::BoneKey;

/// Which keys a scoped simplify may drop or re-curve.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SimplifyScope {
    /// Bone name keys (the name field's bytes up to its first NUL, as in
    /// [`BoneKey::name_key`]).
    pub bones: BTreeSet<Vec<u8>>,
    /// Inclusive motion frames; `None`: every frame.
    pub frames: Option<(u32, u32)>,
}

impl SimplifyScope {
    /// Whether `key` is one of the scoped keys.
    pub fn contains(&self, key: &BoneKey) -> bool {
        self.frames
            .is_none_or(|(a, b)| (a..=b).contains(&key.frame()))
            && self.bones.contains(key.name_key())
    }

    /// "12 bones (髪1, 髪2, …), frames 10–40": for a dialog or a report.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self.bones.iter().take(4).map(|b| name_text(b)).collect();
        let more = if self.bones.len() > names.len() {
            ", …"
        } else {
            ""
        };
        let frames = match self.frames {
            Some((a, b)) => format!("frames {a}–{b}"),
            None => "every frame".to_owned(),
        };
        format!(
            "{} bone{} ({}{more}), {frames}",
            self.bones.len(),
            if self.bones.len() == 1 { "" } else { "s" },
            names.join(", ")
        )
    }
}

/// Simplifies only the keys `scope` holds (see the module notes); the
/// report counts those keys alone.
pub fn simplify_scoped(
    m: &Motion,
    p: &SimplifyParams,
    scope: &SimplifyScope,
    progress: &Progress,
) -> Result<(Motion, SimplifyReport), OpError> {
    if let Some((a, b)) = scope.frames
        && a > b
    {
        return Err(OpError::BadParameter(format!(
            "the range {a}..{b} runs backwards"
        )));
    }
    let (inside, outside): (Vec<BoneKey>, Vec<BoneKey>) =
        m.bones.iter().cloned().partition(|k| scope.contains(k));
    if inside.is_empty() {
        return Err(OpError::BadParameter(format!(
            "no bone key lies in the scope ({})",
            scope.describe()
        )));
    }
    let sub = Motion {
        header: m.header,
        version: m.version,
        model_name_field: m.model_name_field.clone(),
        bones: inside,
        morphs: Vec::new(),
        cameras: Vec::new(),
        lights: Vec::new(),
        shadows: Vec::new(),
        iks: Vec::new(),
        sections_present: m.sections_present,
        trailing: Vec::new(),
    };
    let (done, mut report) = simplify_with_progress(&sub, p, progress)?;
    report
        .report
        .lines
        .insert(0, format!("only {}", scope.describe()));
    // Every other key in its place; the scoped keys, simplified, where the
    // first of them stood.
    let first = m
        .bones
        .iter()
        .position(|k| scope.contains(k))
        .unwrap_or(outside.len());
    let mut bones = Vec::with_capacity(outside.len() + done.bones.len());
    let mut rest = outside.into_iter();
    bones.extend(rest.by_ref().take(first));
    bones.extend(done.bones);
    bones.extend(rest);
    let mut out = m.clone();
    out.bones = bones;
    Ok((out, report))
}
