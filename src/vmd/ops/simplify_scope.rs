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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmd::name::NameEncoding;
    use crate::vmd::records::MorphKey;

    const ID: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

    /// `name` keyed on every frame `0..=20`, moving along x at `speed`
    /// units a frame (a straight line: MMD's default linear curves play
    /// it exactly, so two keys carry any stretch of it).
    fn track(name: &str, speed: f32, physics_off_in: Option<(u32, u32)>) -> Vec<BoneKey> {
        (0..=20u32)
            .map(|f| {
                let mut k = BoneKey::new(
                    name,
                    NameEncoding::ShiftJis,
                    f,
                    [speed * f as f32, 0.0, 0.0],
                    ID,
                )
                .expect("ascii name");
                if physics_off_in.is_some_and(|(a, b)| (a..=b).contains(&f)) {
                    k.set_physics_off(true);
                }
                k
            })
            .collect()
    }

    fn motion() -> Motion {
        let mut bones = track("hair", 0.5, Some((5, 15)));
        bones.extend(track("arm", 0.25, None));
        Motion {
            bones,
            morphs: vec![MorphKey::new("a", NameEncoding::ShiftJis, 3, 0.5).expect("ascii")],
            ..Motion::default()
        }
    }

    fn scope(frames: Option<(u32, u32)>) -> SimplifyScope {
        SimplifyScope {
            bones: [b"hair".to_vec()].into_iter().collect(),
            frames,
        }
    }

    #[test]
    fn only_the_scoped_keys_change() {
        let m = motion();
        let (out, report) = simplify_scoped(
            &m,
            &SimplifyParams::default(),
            &scope(Some((5, 15))),
            &Progress::default(),
        )
        .expect("runs");
        // By hand: the hair keys 5..=15 lie on one straight line, so only
        // the range's first and last stay; 11 keys become 2 (and the hair
        // keeps 6 + 6 keys: 0..=5 and 15..=20).
        assert_eq!((report.before.bones, report.after.bones), (11, 2));
        let hair: Vec<u32> = out
            .bones
            .iter()
            .filter(|k| k.name_key() == b"hair")
            .map(|k| k.frame())
            .collect();
        let want: Vec<u32> = (0..=5).chain(15..=20).collect();
        assert_eq!(hair, want);
        // Every kept key is byte-identical to its original (a straight line
        // needs no new curve), physics-off bytes included.
        for k in &out.bones {
            let orig = m
                .bones
                .iter()
                .find(|o| o.name_key() == k.name_key() && o.frame() == k.frame())
                .expect("a key of the input");
            assert_eq!(k.raw, orig.raw, "frame {}", k.frame());
        }
        let b15 = out
            .bones
            .iter()
            .find(|k| k.name_key() == b"hair" && k.frame() == 15)
            .expect("kept")
            .interpolation_block();
        assert_eq!(&b15[2..4], &[0x63, 0x0F], "physics stays off");
        // The other bone, in its place, and the morph: untouched.
        assert_eq!(&out.bones[12..], &m.bones[21..]);
        assert_eq!(out.morphs, m.morphs);
        assert_eq!(out.bones.len(), 12 + 21);
    }

    #[test]
    fn without_a_range_the_whole_track_is_scoped() {
        let m = motion();
        let (out, _) = simplify_scoped(
            &m,
            &SimplifyParams::default(),
            &scope(None),
            &Progress::default(),
        )
        .expect("runs");
        let hair: Vec<u32> = out
            .bones
            .iter()
            .filter(|k| k.name_key() == b"hair")
            .map(|k| k.frame())
            .collect();
        // The physics flag changes at 4→5 and 15→16: both keys around each
        // change stay, with the ends 0 and 20.
        assert_eq!(hair, vec![0, 4, 5, 15, 16, 20]);
        assert_eq!(&out.bones[6..], &m.bones[21..]);
    }

    #[test]
    fn an_empty_or_backwards_scope_is_refused() {
        let m = motion();
        let p = SimplifyParams::default();
        let none = SimplifyScope {
            bones: [b"tail".to_vec()].into_iter().collect(),
            frames: None,
        };
        let e = simplify_scoped(&m, &p, &none, &Progress::default()).expect_err("no keys");
        assert!(e.to_string().contains("no bone key"), "{e}");
        let e = simplify_scoped(&m, &p, &scope(Some((9, 3))), &Progress::default())
            .expect_err("backwards");
        assert!(e.to_string().contains("backwards"), "{e}");
        let e = simplify_scoped(&m, &p, &scope(Some((30, 40))), &Progress::default())
            .expect_err("outside the motion");
        assert!(e.to_string().contains("no bone key"), "{e}");
    }
}
