//! Join: the second motion placed after the first.
//!
//! The second motion's frame 0 lands at `at` or at the first's last frame +
//! `gap` (default 1). Records are concatenated per section in file order:
//! the first's, then the (shifted) second's. No (track, frame) appears
//! twice in the result: when both files key the same track on the same
//! frame the second's key wins; two keys on one frame inside one file are
//! resolved as MMD plays them (the later record wins). Every resolved
//! overlap is reported. Header, model name and trailing bytes come from the
//! first file.

use std::collections::HashMap;

use super::report::{OpError, Report};
use crate::vmd::motion::Motion;
use crate::vmd::name::decode_name;

/// Where the second motion starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinPlacement {
    /// Second's frame 0 at the first's last keyed frame + this many frames.
    Gap(u32),
    /// Second's frame 0 at this frame.
    At(u32),
}

impl Default for JoinPlacement {
    fn default() -> Self {
        JoinPlacement::Gap(1)
    }
}

/// Parameters of [`join`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JoinParams {
    pub placement: JoinPlacement,
}

/// Which file a record came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Src {
    First,
    Second,
}

impl Src {
    fn label(self) -> &'static str {
        match self {
            Src::First => "first",
            Src::Second => "second",
        }
    }
}

/// Keeps, per (track, frame), only the record MMD would play; reports the rest.
/// `items` are (source, track key, frame, label) in output order.
fn dedupe(items: &[(Src, Vec<u8>, u32)], what: &str, named: bool, r: &mut Report) -> Vec<bool> {
    let mut last: HashMap<(&[u8], u32), usize> = HashMap::new();
    for (i, (_, name, f)) in items.iter().enumerate() {
        last.insert((name.as_slice(), *f), i);
    }
    let mut keep = vec![true; items.len()];
    for (i, (src, name, f)) in items.iter().enumerate() {
        let Some(&w) = last.get(&(name.as_slice(), *f)) else {
            continue;
        };
        if w == i {
            continue;
        }
        keep[i] = false;
        let track = if named {
            format!("{what} \"{}\"", decode_name(name).text)
        } else {
            what.to_owned()
        };
        let (wsrc, _, _) = &items[w];
        if *src != *wsrc {
            r.drop_key(format!(
                "{track}: both files key frame {f}; the second file's key wins, the first's is dropped"
            ));
        } else {
            r.drop_key(format!(
                "{track}: the {} file has two keys at frame {f}; kept the later record (the one MMD plays)",
                src.label()
            ));
        }
    }
    keep
}

fn shift(f: u32, by: u32, what: &str) -> Result<u32, OpError> {
    f.checked_add(by).ok_or_else(|| {
        OpError::FrameOverflow(format!("{what} frame {f} + {by} does not fit 32 bits"))
    })
}

/// Joins `second` after `first`; see the module docs.
pub fn join(first: &Motion, second: &Motion, p: JoinParams) -> Result<(Motion, Report), OpError> {
    let mut r = Report::new();
    let offset = match p.placement {
        JoinPlacement::At(f) => f,
        JoinPlacement::Gap(g) => {
            let last = first.last_frame().unwrap_or(0);
            last.checked_add(g)
                .ok_or_else(|| OpError::FrameOverflow(format!("last frame {last} + gap {g}")))?
        }
    };
    r.note(format!(
        "the second file's frame 0 is placed at frame {offset}"
    ));
    let mut out = first.clone();
    out.sections_present = first.sections_present.max(second.sections_present);

    macro_rules! section {
        ($field:ident, $what:expr, $named:expr, $name:expr) => {{
            let mut items = Vec::new();
            let mut recs = Vec::new();
            for k in &first.$field {
                items.push((Src::First, $name(k), k.frame()));
                recs.push(k.clone());
            }
            for k in &second.$field {
                let mut k = k.clone();
                k.set_frame(shift(k.frame(), offset, $what)?);
                items.push((Src::Second, $name(&k), k.frame()));
                recs.push(k);
            }
            let keep = dedupe(&items, $what, $named, &mut r);
            out.$field = recs
                .into_iter()
                .zip(keep)
                .filter_map(|(k, keep)| keep.then_some(k))
                .collect();
        }};
    }
    section!(bones, "bone", true, |k: &crate::vmd::BoneKey| k
        .name_key()
        .to_vec());
    section!(morphs, "morph", true, |k: &crate::vmd::MorphKey| k
        .name_key()
        .to_vec());
    section!(cameras, "camera", false, |_k: &crate::vmd::CameraKey| {
        Vec::new()
    });
    section!(
        lights,
        "light",
        false,
        |_k: &crate::vmd::LightKey| Vec::new()
    );
    section!(
        shadows,
        "self-shadow",
        false,
        |_k: &crate::vmd::ShadowKey| Vec::new()
    );
    section!(iks, "IK/show", false, |_k: &crate::vmd::IkKey| Vec::new());

    r.changed = second.bones.len()
        + second.morphs.len()
        + second.cameras.len()
        + second.lights.len()
        + second.shadows.len()
        + second.iks.len();
    if let (Some(lf), Some(sf)) = (
        first.cameras.iter().map(|k| k.frame()).max(),
        second.cameras.iter().map(|k| k.frame()).min(),
    ) && sf.checked_add(offset) == lf.checked_add(1)
    {
        r.note(format!(
            "camera: the first file's last camera key ({lf}) and the second's first ({}) are one frame apart: a cut between the two",
            lf + 1
        ));
    }
    if first.version != second.version {
        r.note("the files have different header versions; the first file's header and model-name field are kept");
    }
    if !second.trailing.is_empty() {
        r.warn(format!(
            "the second file's {} trailing bytes after its last section are not carried over",
            second.trailing.len()
        ));
    }
    r.note(format!(
        "joined: {} keys from the first file, {} from the second shifted by {offset} frames, {} dropped as overlaps",
        first.bones.len() + first.morphs.len() + first.cameras.len() + first.lights.len() + first.shadows.len() + first.iks.len(),
        r.changed,
        r.dropped
    ));
    Ok((out, r))
}
