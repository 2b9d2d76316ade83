//! VPD pose files (`Vocaloid Pose Data file`): read, write, and the two
//! conversions between a pose and a motion's keys.
//!
//! A VPD is Shift_JIS text with CRLF line ends, as MikuMikuDance writes it:
//!
//! ```text
//! Vocaloid Pose Data file
//!
//! miku.osm;\t\t// 親ファイル名
//! 2;\t\t\t\t// 総ポーズボーン数
//!
//! Bone0{センター
//!   0.000000,1.500000,0.000000;\t\t\t\t// trans x,y,z
//!   0.000000,0.000000,0.000000,1.000000;\t\t// Quaternion x,y,z,w
//! }
//!
//! Morph0{まばたき
//!   1.000000;\t\t\t\t// weight
//! }
//! ```
//!
//! Morph blocks are MikuMikuMoving's addition, read by mmd_tools and
//! babylon-mmd. Positions and quaternions are in the same space as a VMD
//! bone key's (MMD's left-handed space, the offset from the rest pose and
//! the local rotation): mmd_tools imports a VPD bone through the very
//! converter it uses for VMD keys.
//!
//! Reading is strict: anything that is not this layout is refused with the
//! line it was found on ([`VpdError::line`], 1-based), and nothing is
//! returned. Names must fit a VMD key's 15-byte Shift_JIS field, so that a
//! pose can always become keys.
//!
//! Numbers are written as MMD writes them (`%f`: six decimals); a value
//! that six decimals would carry back more than 1e-6 away (|v| ≥ 8 can)
//! is written with the shortest digits that read back exactly instead.

use std::collections::{BTreeSet, HashSet};

use super::evaluate;
use super::key_edit::Replaced;
use super::motion::{KeyRef, Motion};
use super::name::{NameEncoding, decode_name, encode_name};
use super::ops::mirror::mirror_name_field;
use super::records::{BoneKey, MorphKey};
use super::track::TrackIndex;

/// The first line of every VPD.
pub const SIGNATURE: &str = "Vocaloid Pose Data file";

/// Bytes of a VMD bone/morph name field: the longest name a VPD may hold.
pub const NAME_FIELD: usize = 15;

/// How far a value may be from a key's and still count as the same
/// (six decimals carry a value to within 5e-7).
pub const SAME_VALUE: f32 = 1e-6;

/// A pose: bones' local values (and morph weights) for one model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Vpd {
    /// The parent file name on line 3, before the `;` (MMD writes the
    /// model's file name with `.osm`, e.g. `初音ミク.osm`).
    pub model: String,
    pub bones: Vec<VpdBone>,
    pub morphs: Vec<VpdMorph>,
}

/// One bone of a pose: offset from the rest position (MMD units) and local
/// rotation (x, y, z, w), as in a VMD bone key.
#[derive(Debug, Clone, PartialEq)]
pub struct VpdBone {
    pub name: String,
    pub position: [f32; 3],
    pub rotation: [f32; 4],
}

/// One morph of a pose: its weight (0..1 usually).
#[derive(Debug, Clone, PartialEq)]
pub struct VpdMorph {
    pub name: String,
    pub weight: f32,
}

/// Why a VPD was refused (reading) or could not be made (writing).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct VpdError {
    /// 1-based line of the file where the problem is; `None` when it is not
    /// about a line (writing, applying).
    pub line: Option<usize>,
    pub message: String,
}

fn at(line: usize, message: impl Into<String>) -> VpdError {
    VpdError {
        line: Some(line),
        message: message.into(),
    }
}

fn plain(message: impl Into<String>) -> VpdError {
    VpdError {
        line: None,
        message: message.into(),
    }
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

/// The file's lines, decoded, without line ends and `//` comments, each
/// with its 1-based number. Shift_JIS never uses 0x0A inside a character,
/// so splitting the bytes on it is safe. A file that starts with a UTF-8
/// byte-order mark is read as UTF-8 (some tools write that).
fn lines(bytes: &[u8]) -> Result<Vec<(usize, String)>, VpdError> {
    let (bytes, utf8) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (rest, true),
        None => (bytes, false),
    };
    let mut out = Vec::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let n = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = if utf8 {
            std::str::from_utf8(raw)
                .map_err(|_| {
                    at(
                        n,
                        "the bytes are not UTF-8 (the file starts with a UTF-8 mark)",
                    )
                })?
                .to_owned()
        } else {
            encoding_rs::SHIFT_JIS
                .decode_without_bom_handling_and_without_replacement(raw)
                .ok_or_else(|| at(n, "the bytes are not Shift_JIS text"))?
                .into_owned()
        };
        let text = match text.find("//") {
            Some(c) => text[..c].to_owned(),
            None => text,
        };
        out.push((n, text));
    }
    Ok(out)
}

/// The lines that are not blank, in order.
struct Cursor {
    lines: Vec<(usize, String)>,
    next: usize,
    /// Number of the file's last line (for "ends early" errors).
    last: usize,
}

impl Cursor {
    fn next_line(&mut self) -> Option<(usize, &str)> {
        while let Some((n, t)) = self.lines.get(self.next) {
            self.next += 1;
            if !t.trim().is_empty() {
                return Some((*n, t.trim()));
            }
        }
        None
    }

    /// The next non-blank line, or an error saying what was expected.
    fn expect(&mut self, what: &str) -> Result<(usize, String), VpdError> {
        let last = self.last;
        self.next_line()
            .map(|(n, t)| (n, t.to_owned()))
            .ok_or_else(|| at(last, format!("the file ends where {what} was expected")))
    }
}

/// `a,b,c;` → the numbers, exactly `N` of them, each finite.
fn numbers<const N: usize>(line: usize, text: &str, what: &str) -> Result<[f32; N], VpdError> {
    let body = text.strip_suffix(';').ok_or_else(|| {
        at(
            line,
            format!("{what}: expected {N} numbers ending in ';', got {text:?}"),
        )
    })?;
    let parts: Vec<&str> = body.split(',').map(str::trim).collect();
    if parts.len() != N {
        return Err(at(
            line,
            format!(
                "{what}: expected {N} numbers, got {} in {text:?}",
                parts.len()
            ),
        ));
    }
    let mut out = [0f32; N];
    for (slot, p) in out.iter_mut().zip(&parts) {
        let v: f32 = p
            .parse()
            .map_err(|_| at(line, format!("{what}: {p:?} is not a number")))?;
        if !v.is_finite() {
            return Err(at(line, format!("{what}: {p:?} is not a finite number")));
        }
        *slot = v;
    }
    Ok(out)
}

/// Checks a bone or morph name: not empty, Shift_JIS, at most 15 bytes.
fn check_name(text: &str) -> Result<(), String> {
    if text.is_empty() {
        return Err("the name is empty".into());
    }
    if text.contains([';', '{', '}', '\r', '\n']) {
        return Err(format!(
            "the name {text:?} holds one of ; {{ }} or a line break"
        ));
    }
    encode_name(text, NAME_FIELD, NameEncoding::ShiftJis)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `Bone3{name` or `Morph0{name` → (kind, index, name).
fn block_head(line: usize, text: &str) -> Result<(&'static str, usize, String), VpdError> {
    let (kind, rest) = if let Some(r) = text.strip_prefix("Bone") {
        ("Bone", r)
    } else if let Some(r) = text.strip_prefix("Morph") {
        ("Morph", r)
    } else {
        return Err(at(
            line,
            format!("expected a block \"BoneN{{name\" or \"MorphN{{name\", got {text:?}"),
        ));
    };
    let (index, name) = rest
        .split_once('{')
        .ok_or_else(|| at(line, format!("{kind} block without '{{': {text:?}")))?;
    let index: usize = index.trim().parse().map_err(|_| {
        at(
            line,
            format!("{kind} block number {index:?} is not a number"),
        )
    })?;
    let name = name.trim().to_owned();
    check_name(&name).map_err(|e| at(line, format!("{kind}{index}: {e}")))?;
    Ok((kind, index, name))
}

fn close(c: &mut Cursor, kind: &str, index: usize, open: usize) -> Result<(), VpdError> {
    let (n, t) = c.expect(&format!("the '}}' closing {kind}{index} (line {open})"))?;
    if t != "}" {
        return Err(at(
            n,
            format!("expected '}}' closing {kind}{index} (opened on line {open}), got {t:?}"),
        ));
    }
    Ok(())
}

/// Reads a VPD. Refuses (with the line) anything that is not one.
pub fn read(bytes: &[u8]) -> Result<Vpd, VpdError> {
    let all = lines(bytes)?;
    let last = all.len().max(1);
    match all.first() {
        Some((_, t)) if t.trim() == SIGNATURE => {}
        _ => {
            return Err(at(
                1,
                format!("not a VPD pose file: line 1 is not {SIGNATURE:?}"),
            ));
        }
    }
    let mut c = Cursor {
        lines: all,
        next: 1,
        last,
    };
    let (n, t) = c.expect("the model file name (\"NAME.osm;\")")?;
    let model = t
        .strip_suffix(';')
        .ok_or_else(|| {
            at(
                n,
                format!("expected the model file name ending in ';', got {t:?}"),
            )
        })?
        .trim()
        .to_owned();
    let (count_line, t) = c.expect("the bone count (\"N;\")")?;
    let count: usize = t
        .strip_suffix(';')
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| {
            at(
                count_line,
                format!("expected the bone count \"N;\", got {t:?}"),
            )
        })?;

    let mut vpd = Vpd {
        model,
        ..Vpd::default()
    };
    let mut bone_names = HashSet::new();
    let mut morph_names = HashSet::new();
    while let Some((n, t)) = c.next_line() {
        let (kind, index, name) = block_head(n, t)?;
        if kind == "Bone" {
            if index != vpd.bones.len() {
                return Err(at(
                    n,
                    format!("Bone{index} where Bone{} was expected", vpd.bones.len()),
                ));
            }
            if !vpd.morphs.is_empty() {
                return Err(at(n, format!("Bone{index} after the morph blocks")));
            }
            let (pn, pt) = c.expect(&format!("Bone{index}'s position \"x,y,z;\""))?;
            let position = numbers::<3>(pn, &pt, &format!("Bone{index} position"))?;
            let (rn, rt) = c.expect(&format!("Bone{index}'s rotation \"x,y,z,w;\""))?;
            let rotation = numbers::<4>(rn, &rt, &format!("Bone{index} rotation"))?;
            let len2: f32 = rotation.iter().map(|v| v * v).sum();
            if !len2.is_finite() || len2 <= 1e-12 {
                return Err(at(
                    rn,
                    format!("Bone{index} rotation: {rt:?} is not a rotation (zero length)"),
                ));
            }
            close(&mut c, kind, index, n)?;
            if !bone_names.insert(name.clone()) {
                return Err(at(n, format!("bone {name:?} is posed twice")));
            }
            vpd.bones.push(VpdBone {
                name,
                position,
                rotation,
            });
        } else {
            if index != vpd.morphs.len() {
                return Err(at(
                    n,
                    format!("Morph{index} where Morph{} was expected", vpd.morphs.len()),
                ));
            }
            let (wn, wt) = c.expect(&format!("Morph{index}'s weight \"w;\""))?;
            let [weight] = numbers::<1>(wn, &wt, &format!("Morph{index} weight"))?;
            close(&mut c, kind, index, n)?;
            if !morph_names.insert(name.clone()) {
                return Err(at(n, format!("morph {name:?} is set twice")));
            }
            vpd.morphs.push(VpdMorph { name, weight });
        }
    }
    if vpd.bones.len() != count {
        return Err(at(
            count_line,
            format!("the file says {count} bones but holds {}", vpd.bones.len()),
        ));
    }
    Ok(vpd)
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

/// A number as MMD writes it (`%f`), or exact digits where six decimals
/// would stray more than [`SAME_VALUE`].
fn num(v: f32) -> String {
    let six = format!("{v:.6}");
    match six.parse::<f32>() {
        Ok(back) if (f64::from(back) - f64::from(v)).abs() < f64::from(SAME_VALUE) => six,
        _ => format!("{v:?}"),
    }
}

fn sjis_line(out: &mut Vec<u8>, text: &str) -> Result<(), VpdError> {
    let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(text);
    if unmappable {
        return Err(plain(format!("{text:?} cannot be written in Shift_JIS")));
    }
    out.extend_from_slice(&bytes);
    out.extend_from_slice(b"\r\n");
    Ok(())
}

fn finite<const N: usize>(what: &str, v: &[f32; N]) -> Result<(), VpdError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(plain(format!(
            "{what} holds a value that is not a finite number: {v:?}"
        )))
    }
}

/// The bytes of a VPD, laid out as MikuMikuDance writes them (Shift_JIS,
/// CRLF). Refuses names that do not fit a 15-byte Shift_JIS field and
/// values that are not finite numbers; nothing is half-made.
pub fn write(vpd: &Vpd) -> Result<Vec<u8>, VpdError> {
    if vpd.model.contains([';', '\r', '\n']) {
        return Err(plain(format!(
            "the model file name {:?} holds ';' or a line break",
            vpd.model
        )));
    }
    let mut out = Vec::new();
    sjis_line(&mut out, SIGNATURE)?;
    sjis_line(&mut out, "")?;
    sjis_line(&mut out, &format!("{};\t\t// 親ファイル名", vpd.model))?;
    sjis_line(
        &mut out,
        &format!("{};\t\t\t\t// 総ポーズボーン数", vpd.bones.len()),
    )?;
    sjis_line(&mut out, "")?;
    let mut seen = HashSet::new();
    for (i, b) in vpd.bones.iter().enumerate() {
        check_name(&b.name).map_err(|e| plain(format!("bone {i}: {e}")))?;
        if !seen.insert(&b.name) {
            return Err(plain(format!("bone {:?} is posed twice", b.name)));
        }
        finite(&format!("bone {:?} position", b.name), &b.position)?;
        finite(&format!("bone {:?} rotation", b.name), &b.rotation)?;
        let [x, y, z] = b.position.map(num);
        let [qx, qy, qz, qw] = b.rotation.map(num);
        sjis_line(&mut out, &format!("Bone{i}{{{}", b.name))?;
        sjis_line(&mut out, &format!("  {x},{y},{z};\t\t\t\t// trans x,y,z"))?;
        sjis_line(
            &mut out,
            &format!("  {qx},{qy},{qz},{qw};\t\t// Quaternion x,y,z,w"),
        )?;
        sjis_line(&mut out, "}")?;
        sjis_line(&mut out, "")?;
    }
    let mut seen = HashSet::new();
    for (i, m) in vpd.morphs.iter().enumerate() {
        check_name(&m.name).map_err(|e| plain(format!("morph {i}: {e}")))?;
        if !seen.insert(&m.name) {
            return Err(plain(format!("morph {:?} is set twice", m.name)));
        }
        finite(&format!("morph {:?} weight", m.name), &[m.weight])?;
        sjis_line(&mut out, &format!("Morph{i}{{{}", m.name))?;
        sjis_line(&mut out, &format!("  {};\t\t\t\t// weight", num(m.weight)))?;
        sjis_line(&mut out, "}")?;
        sjis_line(&mut out, "")?;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Pose ⇄ keys
// ---------------------------------------------------------------------------

/// The Shift_JIS text of a track name, refusing names whose bytes would
/// not come back from that text.
fn track_text(kind: &str, key: &[u8]) -> Result<String, VpdError> {
    let d = decode_name(key);
    match encode_name(&d.text, NAME_FIELD, NameEncoding::ShiftJis) {
        Ok(field) if super::name::name_bytes(&field) == key => Ok(d.text),
        _ => Err(plain(format!(
            "{kind} track {:?} ({}) cannot be written as Shift_JIS text",
            d.text,
            d.encoding.label()
        ))),
    }
}

/// The pose the motion's keys give at `frame`: every bone track with its
/// interpolated position and rotation, every morph track with its weight —
/// the values before IK and physics, in the motion's track order (first
/// appearance in the file). `model` is the parent file name line.
///
/// Tracks whose names cannot be written as Shift_JIS text that reads back
/// as the same bytes (a name cut inside a character by the 15-byte field,
/// a GBK name) are left out; the second value says which, and why.
pub fn pose_at(m: &Motion, idx: &TrackIndex, frame: f64, model: &str) -> (Vpd, Vec<String>) {
    let mut vpd = Vpd {
        model: model.to_owned(),
        ..Vpd::default()
    };
    let mut left_out = Vec::new();
    for t in &idx.bones {
        match track_text("bone", &t.name_key) {
            Ok(name) => {
                let p = evaluate::bone_at(m, t, frame);
                vpd.bones.push(VpdBone {
                    name,
                    position: p.position,
                    rotation: p.rotation,
                });
            }
            Err(e) => left_out.push(e.message),
        }
    }
    for t in &idx.morphs {
        match track_text("morph", &t.name_key) {
            Ok(name) => vpd.morphs.push(VpdMorph {
                name,
                weight: evaluate::morph_at(m, t, frame),
            }),
            Err(e) => left_out.push(e.message),
        }
    }
    (vpd, left_out)
}

/// What [`apply_vpd`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct VpdApplied {
    /// The new motion and its added or changed keys; `None` when the motion
    /// already holds the pose at that frame (nothing to do).
    pub edit: Option<Replaced>,
    /// Keys added (bones, morphs).
    pub added: usize,
    /// Existing keys on the frame whose values were replaced.
    pub changed: usize,
    /// Bones and morphs whose value at the frame already was the pose's.
    pub unchanged: usize,
    /// Names kept unmirrored, and why (mirror only).
    pub notes: Vec<String>,
}

/// A 15-byte name field for `name`, mirrored (左 ⇄ 右) on request.
fn field(
    kind: &str,
    name: &str,
    mirror: bool,
    notes: &mut Vec<String>,
) -> Result<[u8; NAME_FIELD], VpdError> {
    let bytes = encode_name(name, NAME_FIELD, NameEncoding::ShiftJis)
        .map_err(|e| plain(format!("{kind} {name:?}: {e}")))?;
    let mut out = [0u8; NAME_FIELD];
    out.copy_from_slice(&bytes);
    if mirror {
        match mirror_name_field(&out) {
            Ok(Some(swapped)) => {
                if let Ok(f) = <[u8; NAME_FIELD]>::try_from(swapped.as_slice()) {
                    out = f;
                }
            }
            Ok(None) => {}
            Err(why) => notes.push(format!("{kind} {name:?} kept its name: {why}")),
        }
    }
    Ok(out)
}

fn same_position(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= SAME_VALUE)
}

/// Same rotation: q and −q are one rotation.
fn same_rotation(a: [f32; 4], b: [f32; 4]) -> bool {
    let close = |s: f32| {
        a.iter()
            .zip(&b)
            .all(|(x, y)| (x - s * y).abs() <= SAME_VALUE)
    };
    close(1.0) || close(-1.0)
}

/// Keys at `frame` that make the motion hold `vpd` there: only for the
/// bones and morphs it names. For each one:
///
/// * its value at the frame already is the pose's (within [`SAME_VALUE`]):
///   left alone (so a pose saved by [`pose_at`] and applied back at that
///   frame changes no byte);
/// * it has a key on the frame: that key's position and rotation (weight)
///   are replaced, nothing else of it changes;
/// * else a key is added (MMD's default linear curves; the track's name
///   field when the track exists).
///
/// `mirror`: the pose is mirrored first as the toolbox's mirror does
/// (左 ⇄ 右 in names, position (−x, y, z), rotation (x, −y, −z, w)).
/// The motion given is not touched; every record not listed as changed
/// keeps its bytes, new keys are appended.
pub fn apply_vpd(
    m: &Motion,
    idx: &TrackIndex,
    vpd: &Vpd,
    frame: u32,
    mirror: bool,
) -> Result<VpdApplied, VpdError> {
    let ff = f64::from(frame);
    let mut out = m.clone();
    let mut sel = BTreeSet::new();
    let mut r = VpdApplied {
        edit: None,
        added: 0,
        changed: 0,
        unchanged: 0,
        notes: Vec::new(),
    };
    for b in &vpd.bones {
        finite(&format!("bone {:?} position", b.name), &b.position)?;
        finite(&format!("bone {:?} rotation", b.name), &b.rotation)?;
        let name = field("bone", &b.name, mirror, &mut r.notes)?;
        let (position, rotation) = if mirror {
            let [x, y, z] = b.position;
            let [qx, qy, qz, qw] = b.rotation;
            ([-x, y, z], [qx, -qy, -qz, qw])
        } else {
            (b.position, b.rotation)
        };
        let key = super::name::name_bytes(&name);
        let track = idx.bone(key);
        let on_frame: Vec<u32> = track
            .map(|t| {
                t.keys
                    .iter()
                    .copied()
                    .filter(|&i| m.bones.get(i as usize).is_some_and(|k| k.frame() == frame))
                    .collect()
            })
            .unwrap_or_default();
        let now = match track {
            Some(t) => evaluate::bone_at(m, t, ff),
            None => evaluate::BonePose::default(),
        };
        if same_position(now.position, position) && same_rotation(now.rotation, rotation) {
            r.unchanged += 1;
            continue;
        }
        if on_frame.is_empty() {
            let mut k = BoneKey::new("", NameEncoding::ShiftJis, frame, position, rotation)
                .map_err(|e| plain(e.to_string()))?;
            let src = track
                .and_then(|t| t.keys.first())
                .and_then(|&i| m.bones.get(i as usize));
            match src.and_then(|s| <&[u8; NAME_FIELD]>::try_from(s.name_field()).ok()) {
                Some(f) => k.set_name_field(f),
                None => k.set_name_field(&name),
            }
            sel.insert(KeyRef::Bone(out.bones.len() as u32));
            out.bones.push(k);
            r.added += 1;
        } else {
            for i in on_frame {
                let k = &mut out.bones[i as usize];
                k.set_position(position);
                k.set_rotation(rotation);
                sel.insert(KeyRef::Bone(i));
                r.changed += 1;
            }
        }
    }
    for v in &vpd.morphs {
        finite(&format!("morph {:?} weight", v.name), &[v.weight])?;
        let name = field("morph", &v.name, mirror, &mut r.notes)?;
        let key = super::name::name_bytes(&name);
        let track = idx.morph(key);
        let now = track.map_or(0.0, |t| evaluate::morph_at(m, t, ff));
        if (now - v.weight).abs() <= SAME_VALUE {
            r.unchanged += 1;
            continue;
        }
        let on_frame: Vec<u32> = track
            .map(|t| {
                t.keys
                    .iter()
                    .copied()
                    .filter(|&i| m.morphs.get(i as usize).is_some_and(|k| k.frame() == frame))
                    .collect()
            })
            .unwrap_or_default();
        if on_frame.is_empty() {
            let mut k = MorphKey::new("", NameEncoding::ShiftJis, frame, v.weight)
                .map_err(|e| plain(e.to_string()))?;
            let src = track
                .and_then(|t| t.keys.first())
                .and_then(|&i| m.morphs.get(i as usize));
            match src.and_then(|s| <&[u8; NAME_FIELD]>::try_from(s.name_field()).ok()) {
                Some(f) => k.set_name_field(f),
                None => k.set_name_field(&name),
            }
            sel.insert(KeyRef::Morph(out.morphs.len() as u32));
            out.morphs.push(k);
            r.added += 1;
        } else {
            for i in on_frame {
                out.morphs[i as usize].set_weight(v.weight);
                sel.insert(KeyRef::Morph(i));
                r.changed += 1;
            }
        }
    }
    if !sel.is_empty() {
        r.edit = Some(Replaced {
            motion: out,
            selection: sel,
        });
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_printf_f_where_that_is_exact_enough() {
        assert_eq!(num(0.5), "0.500000");
        assert_eq!(num(-0.0), "-0.000000");
        assert_eq!(num(1.0), "1.000000");
        // 1000.1 in f32 is 1000.0999755859375: six decimals read back as
        // 1000.099976 → the f32 nearest, which is the same value.
        assert_eq!(num(1000.1), "1000.099976");
    }

    #[test]
    fn errors_name_the_line() {
        let e = read(b"Vocaloid Pose Data file\r\n\r\nm.osm;\r\nx;\r\n").unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(e.to_string().starts_with("line 4: "), "{e}");
    }
}
