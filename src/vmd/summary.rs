//! What `inspect` prints: kind, counts, length, tracks, cuts, curve facts
//! and warnings about odd content.

use std::collections::HashMap;

use serde::Serialize;

use super::error::ReadError;
use super::layout;
use super::motion::Motion;
use super::name::{DecodedName, NameEncoding, decode_name};
use super::read::read_streaming_bones;
use super::records::BoneKey;
use super::track::TrackIndex;

/// Kind of file, by the mmdbox.net thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Motion,
    Morph,
    Camera,
    Light,
    Unknown,
}

impl Kind {
    pub fn of(m: &Motion) -> Kind {
        Kind::of_counts(
            m.bones.len(),
            m.morphs.len(),
            m.cameras.len(),
            m.lights.len(),
        )
    }

    /// [`Kind::of`] from the bone, morph, camera and light key counts.
    pub fn of_counts(b: usize, mo: usize, c: usize, l: usize) -> Kind {
        if b > 10 {
            Kind::Motion
        } else if mo > 10 {
            Kind::Morph
        } else if c > 10 {
            Kind::Camera
        } else if l >= 1 && c <= 10 {
            Kind::Light
        } else {
            Kind::Unknown
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Kind::Motion => "motion",
            Kind::Morph => "morph",
            Kind::Camera => "camera",
            Kind::Light => "light",
            Kind::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub bones: usize,
    pub morphs: usize,
    pub cameras: usize,
    pub lights: usize,
    pub self_shadows: usize,
    pub ik: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrackSummary {
    pub name: String,
    pub keys: usize,
}

/// The summary of a motion. Field names are the `inspect --json` keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub version: u8,
    pub model_name: String,
    pub kind: Kind,
    pub counts: Counts,
    pub last_frame: Option<u32>,
    pub duration_seconds: f64,
    pub bone_tracks: Vec<TrackSummary>,
    pub morph_tracks: Vec<TrackSummary>,
    pub camera_cuts: usize,
    pub cut_frames: Vec<u32>,
    pub linear_bone_keys: usize,
    pub physics_off_keys: usize,
    pub warnings: Vec<String>,
}

/// Frames (of the earlier key) where the sorted camera has a cut.
pub fn cut_frames(m: &Motion, idx: &TrackIndex) -> Vec<u32> {
    idx.camera
        .windows(2)
        .filter_map(|w| {
            let (a, b) = (
                m.cameras[w[0] as usize].frame(),
                m.cameras[w[1] as usize].frame(),
            );
            (b.checked_sub(a) == Some(1)).then_some(a)
        })
        .collect()
}

fn name_warning(where_: &str, d: &DecodedName, raw: &[u8]) -> Option<String> {
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    if d.cut_mid_char {
        Some(format!(
            "{where_} \"{}\" was cut in the middle of a double-byte character (bytes {hex})",
            d.text
        ))
    } else if d.undecodable {
        Some(format!(
            "{where_} bytes {hex} are neither Shift_JIS nor GBK"
        ))
    } else if d.encoding == NameEncoding::Gbk {
        Some(format!(
            "{where_} \"{}\" is GBK, not Shift_JIS (bytes {hex})",
            d.text
        ))
    } else {
        None
    }
}

/// One bone track as the summary sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BoneTrackFacts {
    name_key: Vec<u8>,
    keys: usize,
    /// Keys on a frame an earlier key of the track already has.
    duplicates: usize,
}

/// What the summary needs of the bone keys: from a motion and its index
/// ([`summarize`]), or gathered one key at a time ([`BoneTally`]) while the
/// keys stream past ([`super::read::read_streaming_bones`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BoneFacts {
    count: usize,
    linear: usize,
    physics_off: usize,
    last_frame: Option<u32>,
    /// In order of first appearance, as [`TrackIndex::bones`].
    tracks: Vec<BoneTrackFacts>,
}

impl BoneFacts {
    fn of(m: &Motion, idx: &TrackIndex) -> BoneFacts {
        BoneFacts {
            count: m.bones.len(),
            linear: m.bones.iter().filter(|k| k.is_linear()).count(),
            physics_off: m.bones.iter().filter(|k| k.physics_off()).count(),
            last_frame: m.bones.iter().map(BoneKey::frame).max(),
            tracks: idx
                .bones
                .iter()
                .map(|t| BoneTrackFacts {
                    name_key: t.name_key.clone(),
                    keys: t.keys.len(),
                    // `frames` is sorted: equal neighbours are duplicates.
                    duplicates: t.frames.windows(2).filter(|w| w[0] == w[1]).count(),
                })
                .collect(),
        }
    }
}

/// Gathers [`BoneFacts`] from bone keys given one at a time, in file order,
/// keeping only a frame (4 bytes) per key.
#[derive(Debug, Default)]
pub struct BoneTally {
    count: usize,
    linear: usize,
    physics_off: usize,
    last_frame: Option<u32>,
    names: Vec<Vec<u8>>,
    frames: Vec<Vec<u32>>,
    lookup: HashMap<Vec<u8>, usize>,
    /// The track of the previous key, and per track the track whose key
    /// came after one of its keys last time: files store a track's keys
    /// together or (baked dances) in the same bone order every frame, so
    /// the map is consulted about once per distinct name.
    last: Option<usize>,
    next: Vec<usize>,
}

impl BoneTally {
    pub fn add(&mut self, k: &BoneKey) {
        self.count += 1;
        self.linear += usize::from(k.is_linear());
        self.physics_off += usize::from(k.physics_off());
        let frame = k.frame();
        self.last_frame = Some(self.last_frame.map_or(frame, |f| f.max(frame)));
        let name = k.name_key();
        let is = |t: usize| self.names.get(t).is_some_and(|n| n.as_slice() == name);
        let t = match self.last {
            Some(l) if is(l) => l,
            Some(l) if self.next.get(l).is_some_and(|&n| is(n)) => self.next[l],
            _ => match self.lookup.get(name) {
                Some(&t) => t,
                None => {
                    let t = self.names.len();
                    self.names.push(name.to_vec());
                    self.frames.push(Vec::new());
                    self.next.push(usize::MAX);
                    self.lookup.insert(name.to_vec(), t);
                    t
                }
            },
        };
        if let Some(l) = self.last {
            self.next[l] = t;
        }
        self.last = Some(t);
        self.frames[t].push(frame);
    }

    pub fn finish(self) -> BoneFacts {
        let tracks = self
            .names
            .into_iter()
            .zip(self.frames)
            .map(|(name_key, mut frames)| {
                frames.sort_unstable();
                BoneTrackFacts {
                    name_key,
                    keys: frames.len(),
                    duplicates: frames.windows(2).filter(|w| w[0] == w[1]).count(),
                }
            })
            .collect();
        BoneFacts {
            count: self.count,
            linear: self.linear,
            physics_off: self.physics_off,
            last_frame: self.last_frame,
            tracks,
        }
    }
}

/// The summary of the VMD file `r` yields (`len` bytes), without holding
/// its bone keys: the same as [`summarize`] of what [`read`](fn@super::read) reads
/// from those bytes, errors included (see
/// [`super::read::read_streaming_bones`]). What `inspect` uses: a large
/// dance is summarized in a few hundred kilobytes of memory.
pub fn summarize_reader(
    r: &mut impl std::io::Read,
    len: u64,
) -> std::io::Result<Result<Summary, ReadError>> {
    let mut tally = BoneTally::default();
    let m = match read_streaming_bones(r, len, |k| tally.add(k))? {
        Ok(m) => m,
        Err(e) => return Ok(Err(e)),
    };
    let idx = TrackIndex::build(&m);
    Ok(Ok(summarize_with(&m, &idx, &tally.finish())))
}

/// Builds the summary.
pub fn summarize(m: &Motion, idx: &TrackIndex) -> Summary {
    summarize_with(m, idx, &BoneFacts::of(m, idx))
}

/// The summary of a motion whose bone keys are described by `bones` (`m`
/// and `idx` then need not hold them: see [`super::read::read_streaming_bones`]);
/// the same as [`summarize`] of the whole motion.
pub fn summarize_with(m: &Motion, idx: &TrackIndex, bones: &BoneFacts) -> Summary {
    let mut warnings = Vec::new();
    let model = m.model_name();
    if let Some(w) = name_warning("model name", &model, &m.model_name_field) {
        warnings.push(w);
    }
    let bone_names: Vec<(&[u8], usize)> = bones
        .tracks
        .iter()
        .map(|t| (t.name_key.as_slice(), t.keys))
        .collect();
    let morph_names: Vec<(&[u8], usize)> = idx
        .morphs
        .iter()
        .map(|t| (t.name_key.as_slice(), t.keys.len()))
        .collect();
    let bone_tracks = track_list(&bone_names, "bone", &mut warnings);
    let morph_tracks = track_list(&morph_names, "morph", &mut warnings);

    duplicate_key_warnings(m, idx, bones, &mut warnings);
    ik_name_warnings(m, &mut warnings);

    if !m.trailing.is_empty() {
        warnings.push(format!(
            "{} bytes after the last section are kept as they are",
            m.trailing.len()
        ));
    }
    let kind = Kind::of_counts(bones.count, m.morphs.len(), m.cameras.len(), m.lights.len());
    if !m.cameras.is_empty() && model.text != "カメラ・照明" {
        warnings.push(format!(
            "camera keys in a file whose model name is \"{}\", not カメラ・照明: MMD may load it onto a model",
            model.text
        ));
    }
    let cuts = cut_frames(m, idx);
    // The latest frame of the other sections, and of the bone keys.
    let last_frame = m.frames().chain(bones.last_frame).max();
    Summary {
        version: m.version.number(),
        model_name: model.text,
        kind,
        counts: Counts {
            bones: bones.count,
            morphs: m.morphs.len(),
            cameras: m.cameras.len(),
            lights: m.lights.len(),
            self_shadows: m.shadows.len(),
            ik: m.iks.len(),
        },
        last_frame,
        duration_seconds: f64::from(last_frame.unwrap_or(0)) / 30.0,
        bone_tracks,
        morph_tracks,
        camera_cuts: cuts.len(),
        cut_frames: cuts,
        linear_bone_keys: bones.linear,
        physics_off_keys: bones.physics_off,
        warnings,
    }
}

/// The tracks' summaries, in order, warning (into `warnings`) about odd
/// names and about different raw names that show as the same text.
fn track_list(
    tracks: &[(&[u8], usize)],
    what: &str,
    warnings: &mut Vec<String>,
) -> Vec<TrackSummary> {
    let mut out = Vec::with_capacity(tracks.len());
    let mut by_text: HashMap<String, usize> = HashMap::new();
    for &(name_key, keys) in tracks {
        let d = decode_name(name_key);
        if let Some(w) = name_warning(what, &d, name_key) {
            warnings.push(w);
        }
        if d.cut_mid_char {
            *by_text.entry(d.text.clone()).or_default() += 1;
        }
        out.push(TrackSummary { name: d.text, keys });
    }
    // Two different raw names that show the same after dropping a dangling byte.
    for &(name_key, _) in tracks {
        let d = decode_name(name_key);
        if !d.cut_mid_char
            && let Some(n) = by_text.get_mut(&d.text)
        {
            *n += 1;
        }
    }
    for (text, n) in by_text {
        if n > 1 {
            warnings.push(format!(
                "{n} different {what} names show as \"{text}\" once truncated: they are separate tracks"
            ));
        }
    }
    out
}

/// Warnings about keys that share a (track, frame) and about names cut
/// to the same 15 bytes.
fn duplicate_key_warnings(
    m: &Motion,
    idx: &TrackIndex,
    bones: &BoneFacts,
    warnings: &mut Vec<String>,
) {
    // Duplicate (track, frame) keys. A track whose name fills the whole
    // 15-byte field and keys some frame twice is most likely two bones whose
    // longer names were cut to the same bytes (e.g. `middle_04_leaf_L` and
    // `…_R`): a truncated-name collision, worth its own warning.
    let dups = |t: &super::track::Track, frame: &dyn Fn(usize) -> u32| {
        t.keys
            .windows(2)
            .filter(|w| frame(w[0] as usize) == frame(w[1] as usize))
            .count()
    };
    let mut collision = |what: &str, name_key: &[u8], n: usize| {
        if n > 0 && name_key.len() == layout::NAME_LEN {
            warnings.push(format!(
                "{what} name \"{}\" fills all {} bytes and has {n} frames keyed more than once: \
                 probably different {what}s whose names were cut to the same bytes; \
                 they are one track here and the later key in the file is used",
                decode_name(name_key).text,
                layout::NAME_LEN
            ));
        }
    };
    let mut dup_bone = 0usize;
    for t in &bones.tracks {
        collision("bone", &t.name_key, t.duplicates);
        dup_bone += t.duplicates;
    }
    let mut dup_morph = 0usize;
    for t in &idx.morphs {
        let n = dups(t, &|i| m.morphs[i].frame());
        collision("morph", &t.name_key, n);
        dup_morph += n;
    }
    if dup_bone > 0 {
        warnings.push(format!(
            "{dup_bone} bone keys share a (bone, frame) with another key; the later one in the file is used"
        ));
    }
    if dup_morph > 0 {
        warnings.push(format!(
            "{dup_morph} morph keys share a (morph, frame) with another key; the later one in the file is used"
        ));
    }
    let dup_cam = idx
        .camera
        .windows(2)
        .filter(|w| m.cameras[w[0] as usize].frame() == m.cameras[w[1] as usize].frame())
        .count();
    if dup_cam > 0 {
        warnings.push(format!(
            "{dup_cam} camera keys share a frame with another camera key"
        ));
    }
}

/// Odd IK names, once per distinct name.
fn ik_name_warnings(m: &Motion, warnings: &mut Vec<String>) {
    // Odd IK names, once per distinct name (every IK/show key repeats them).
    let mut seen_ik = std::collections::HashSet::new();
    for k in &m.iks {
        for e in 0..k.entry_count() {
            if !seen_ik.insert(k.entry_name_key(e)) {
                continue;
            }
            let d = k.entry_name(e);
            if let Some(w) = name_warning("IK", &d, k.entry_name_key(e)) {
                warnings.push(w);
            }
        }
    }
}

impl Summary {
    /// Human-readable report (what `inspect` prints without `--json`).
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let c = &self.counts;
        let _ = writeln!(s, "kind:        {}", self.kind.label());
        let _ = writeln!(s, "version:     {}", self.version);
        let _ = writeln!(s, "model name:  {}", self.model_name);
        let _ = writeln!(
            s,
            "keys:        {} bone, {} morph, {} camera, {} light, {} self-shadow, {} IK/show",
            c.bones, c.morphs, c.cameras, c.lights, c.self_shadows, c.ik
        );
        match self.last_frame {
            Some(f) => {
                let _ = writeln!(
                    s,
                    "length:      frame {f} ({:.2} s at 30 fps)",
                    self.duration_seconds
                );
            }
            None => {
                let _ = writeln!(s, "length:      no keys");
            }
        }
        let _ = writeln!(s, "camera cuts: {}", self.camera_cuts);
        if !self.cut_frames.is_empty() {
            let list: Vec<String> = self.cut_frames.iter().map(u32::to_string).collect();
            let _ = writeln!(s, "cut frames:  {}", list.join(" "));
        }
        let _ = writeln!(
            s,
            "curves:      {} of {} bone keys linear on all four channels; {} with physics off",
            self.linear_bone_keys, c.bones, self.physics_off_keys
        );
        if !self.bone_tracks.is_empty() {
            let _ = writeln!(s, "bone tracks ({}):", self.bone_tracks.len());
            for t in &self.bone_tracks {
                let _ = writeln!(s, "  {:<16} {}", t.name, t.keys);
            }
        }
        if !self.morph_tracks.is_empty() {
            let _ = writeln!(s, "morph tracks ({}):", self.morph_tracks.len());
            for t in &self.morph_tracks {
                let _ = writeln!(s, "  {:<16} {}", t.name, t.keys);
            }
        }
        if !self.warnings.is_empty() {
            let _ = writeln!(s, "warnings ({}):", self.warnings.len());
            for w in &self.warnings {
                let _ = writeln!(s, "  - {w}");
            }
        }
        s
    }
}
