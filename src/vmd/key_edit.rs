//! Key edits on a motion — move, delete, copy, paste, insert — and the
//! track vocabulary they use. GUI-free: the dope sheet and the scene
//! timeline call these and hand the result to the document, which applies
//! it through its undo history.
//!
//! Nothing here mutates the motion it is given. Each edit returns either
//! records replaced in place by index ([`KeyChanges`]: a move) or the whole
//! new motion and the keys to select in it ([`Replaced`]: delete, paste,
//! insert, which add or remove records). Frames are MMD frames (30 per
//! second). A track is one row of the sheet: a bone or a morph (named by
//! the raw name bytes before the NUL) or the camera, light, self-shadow or
//! IK/show section; [`TrackIndex`] keeps each track's keys sorted by frame.
//!
//! Two keys of one track on one frame are ambiguous in MMD (the later one
//! in the file wins): a move or paste that would make such a pair is
//! refused with a [`KeyClash`] instead.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::evaluate;
use super::motion::{KeyRef, Motion};
use super::name::{NameEncoding, decode_name};
use super::records::{BoneKey, CameraKey, FrameKey, IkKey, LightKey, MorphKey, ShadowKey};
use super::track::TrackIndex;

/// Track groups, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    Bones,
    Morphs,
    Camera,
    Light,
    Shadow,
    Ik,
}

impl Group {
    pub const ALL: [Group; 6] = [
        Group::Bones,
        Group::Morphs,
        Group::Camera,
        Group::Light,
        Group::Shadow,
        Group::Ik,
    ];
    pub fn label(self) -> &'static str {
        match self {
            Group::Bones => "Bones",
            Group::Morphs => "Morphs",
            Group::Camera => "Camera",
            Group::Light => "Light",
            Group::Shadow => "Self-shadow",
            Group::Ik => "IK / show",
        }
    }
}

/// A track: what one row shows. Bones and morphs are named by their raw
/// name bytes before the NUL (the track identity in the core).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TrackRef {
    Bone(Vec<u8>),
    Morph(Vec<u8>),
    Camera,
    Light,
    Shadow,
    Ik,
}

impl TrackRef {
    pub fn group(&self) -> Group {
        match self {
            TrackRef::Bone(_) => Group::Bones,
            TrackRef::Morph(_) => Group::Morphs,
            TrackRef::Camera => Group::Camera,
            TrackRef::Light => Group::Light,
            TrackRef::Shadow => Group::Shadow,
            TrackRef::Ik => Group::Ik,
        }
    }
}

/// The sorted key list (indices into the section) of a track; empty for a
/// bone or morph the motion does not have.
pub fn track_keys<'a>(idx: &'a TrackIndex, t: &TrackRef) -> &'a [u32] {
    match t {
        TrackRef::Bone(n) => idx.bone(n).map_or(&[], |t| t.keys.as_slice()),
        TrackRef::Morph(n) => idx.morph(n).map_or(&[], |t| t.keys.as_slice()),
        TrackRef::Camera => &idx.camera,
        TrackRef::Light => &idx.light,
        TrackRef::Shadow => &idx.shadow,
        TrackRef::Ik => &idx.ik,
    }
}

/// The track a key belongs to (`None` for an index past the section).
pub fn track_of(m: &Motion, k: KeyRef) -> Option<TrackRef> {
    Some(match k {
        KeyRef::Bone(i) => TrackRef::Bone(m.bones.get(i as usize)?.name_key().to_vec()),
        KeyRef::Morph(i) => TrackRef::Morph(m.morphs.get(i as usize)?.name_key().to_vec()),
        KeyRef::Camera(_) => TrackRef::Camera,
        KeyRef::Light(_) => TrackRef::Light,
        KeyRef::Shadow(_) => TrackRef::Shadow,
        KeyRef::Ik(_) => TrackRef::Ik,
    })
}

/// The [`KeyRef`] of index `i` in the section of track `t`.
pub fn key_ref(t: &TrackRef, i: u32) -> KeyRef {
    match t {
        TrackRef::Bone(_) => KeyRef::Bone(i),
        TrackRef::Morph(_) => KeyRef::Morph(i),
        TrackRef::Camera => KeyRef::Camera(i),
        TrackRef::Light => KeyRef::Light(i),
        TrackRef::Shadow => KeyRef::Shadow(i),
        TrackRef::Ik => KeyRef::Ik(i),
    }
}

/// Frame of index `i` in the section of track `t` (0 for a bad index).
pub fn frame_in(m: &Motion, t: &TrackRef, i: u32) -> u32 {
    m.key_frame(key_ref(t, i)).unwrap_or(0)
}

/// Display name of a track.
pub fn track_label(t: &TrackRef) -> String {
    match t {
        TrackRef::Bone(n) | TrackRef::Morph(n) => decode_name(n).text,
        other => other.group().label().to_owned(),
    }
}

/// Every track with keys: bones and morphs in order of first appearance,
/// then camera, light, self-shadow and IK/show.
pub fn all_tracks(idx: &TrackIndex) -> Vec<TrackRef> {
    let mut v: Vec<TrackRef> = idx
        .bones
        .iter()
        .map(|t| TrackRef::Bone(t.name_key.clone()))
        .chain(
            idx.morphs
                .iter()
                .map(|t| TrackRef::Morph(t.name_key.clone())),
        )
        .collect();
    for (t, n) in [
        (TrackRef::Camera, idx.camera.len()),
        (TrackRef::Light, idx.light.len()),
        (TrackRef::Shadow, idx.shadow.len()),
        (TrackRef::Ik, idx.ik.len()),
    ] {
        if n > 0 {
            v.push(t);
        }
    }
    v
}

/// The keys of track `t` on frame `f` (several when a file has duplicates).
pub fn keys_on_frame<'a>(
    m: &'a Motion,
    idx: &'a TrackIndex,
    t: &'a TrackRef,
    f: u32,
) -> impl Iterator<Item = KeyRef> + 'a {
    let keys = track_keys(idx, t);
    let s = keys.partition_point(|&k| frame_in(m, t, k) < f);
    keys[s..]
        .iter()
        .take_while(move |&&k| frame_in(m, t, k) == f)
        .map(move |&k| key_ref(t, k))
}

/// True when track `t` already has a key on frame `f`.
pub fn occupied(m: &Motion, idx: &TrackIndex, t: &TrackRef, f: u32) -> bool {
    keys_on_frame(m, idx, t, f).next().is_some()
}

/// Every key of every track on frame `f`.
pub fn select_at_frame(m: &Motion, idx: &TrackIndex, f: u32) -> BTreeSet<KeyRef> {
    let mut sel = BTreeSet::new();
    for t in all_tracks(idx) {
        sel.extend(keys_on_frame(m, idx, &t, f));
    }
    sel
}

/// Every key of the motion.
pub fn select_all(m: &Motion) -> BTreeSet<KeyRef> {
    let mut sel = BTreeSet::new();
    sel.extend((0..m.bones.len() as u32).map(KeyRef::Bone));
    sel.extend((0..m.morphs.len() as u32).map(KeyRef::Morph));
    sel.extend((0..m.cameras.len() as u32).map(KeyRef::Camera));
    sel.extend((0..m.lights.len() as u32).map(KeyRef::Light));
    sel.extend((0..m.shadows.len() as u32).map(KeyRef::Shadow));
    sel.extend((0..m.iks.len() as u32).map(KeyRef::Ik));
    sel
}

/// Records replaced in place (same count): the cheap, common edit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeyChanges {
    pub bones: Vec<(u32, BoneKey)>,
    pub morphs: Vec<(u32, MorphKey)>,
    pub cameras: Vec<(u32, CameraKey)>,
    pub lights: Vec<(u32, LightKey)>,
    pub shadows: Vec<(u32, ShadowKey)>,
    pub iks: Vec<(u32, IkKey)>,
    /// New model-name field bytes.
    pub model_name: Option<Vec<u8>>,
}

impl KeyChanges {
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
            && self.morphs.is_empty()
            && self.cameras.is_empty()
            && self.lights.is_empty()
            && self.shadows.is_empty()
            && self.iks.is_empty()
            && self.model_name.is_none()
    }
}

/// A whole new motion and the keys to select in it (indices of the new
/// motion): what delete, paste and insert return.
#[derive(Debug, Clone, PartialEq)]
pub struct Replaced {
    pub motion: Motion,
    pub selection: BTreeSet<KeyRef>,
}

/// Why a move or paste was refused: track `track` would get two keys on
/// frame `frame` (or, for a paste, already has one there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyClash {
    pub track: TrackRef,
    pub frame: u32,
}

/// `frame + delta`, held inside `0..=u32::MAX`.
fn shifted(frame: u32, delta: i64) -> u32 {
    (i64::from(frame) + delta).clamp(0, i64::from(u32::MAX)) as u32
}

/// A move of a set of keys in time: the keys and their frames when the
/// move began, so that a drag can try offset after offset against the
/// motion as it is now (with the keys wherever the last offset put them).
#[derive(Debug, Clone, Default)]
pub struct KeyMove {
    keys: Vec<(KeyRef, u32)>,
    moved: HashSet<KeyRef>,
}

impl KeyMove {
    /// Starts moving `keys` (those that exist in `m`).
    pub fn new(m: &Motion, keys: impl IntoIterator<Item = KeyRef>) -> KeyMove {
        let keys: Vec<(KeyRef, u32)> = keys
            .into_iter()
            .filter_map(|k| m.key_frame(k).map(|f| (k, f)))
            .collect();
        let moved = keys.iter().map(|&(k, _)| k).collect();
        KeyMove { keys, moved }
    }
    /// The moved keys and their frames when the move began.
    pub fn keys(&self) -> &[(KeyRef, u32)] {
        &self.keys
    }
    pub fn len(&self) -> usize {
        self.keys.len()
    }
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
    /// The smallest offset allowed: the earliest key lands on frame 0.
    pub fn min_delta(&self) -> i64 {
        -self
            .keys
            .iter()
            .map(|&(_, f)| i64::from(f))
            .min()
            .unwrap_or(0)
    }

    /// The first track where moving by `delta` puts two keys on one frame:
    /// a moved key on a key that stays, or two moved keys that were on
    /// different frames landing together (keys that already shared a frame
    /// may keep sharing it).
    pub fn clash(&self, m: &Motion, idx: &TrackIndex, delta: i64) -> Option<KeyClash> {
        let mut landing: HashMap<(TrackRef, u32), u32> = HashMap::new();
        for &(k, f0) in &self.keys {
            let f = shifted(f0, delta);
            let Some(t) = track_of(m, k) else { continue };
            if keys_on_frame(m, idx, &t, f).any(|other| !self.moved.contains(&other)) {
                return Some(KeyClash { track: t, frame: f });
            }
            if let Some(&prev) = landing.get(&(t.clone(), f))
                && prev != f0
            {
                return Some(KeyClash { track: t, frame: f });
            }
            landing.insert((t, f), f0);
        }
        None
    }

    /// The records of the moved keys with their frames set to
    /// `original + delta` (everything else in each record kept).
    pub fn changes(&self, m: &Motion, delta: i64) -> KeyChanges {
        fn push<K: FrameKey + Clone>(keys: &[K], i: u32, f: u32, out: &mut Vec<(u32, K)>) {
            if let Some(r) = keys.get(i as usize) {
                let mut r = r.clone();
                r.set_frame(f);
                out.push((i, r));
            }
        }
        let mut c = KeyChanges::default();
        for &(k, f0) in &self.keys {
            let f = shifted(f0, delta);
            match k {
                KeyRef::Bone(i) => push(&m.bones, i, f, &mut c.bones),
                KeyRef::Morph(i) => push(&m.morphs, i, f, &mut c.morphs),
                KeyRef::Camera(i) => push(&m.cameras, i, f, &mut c.cameras),
                KeyRef::Light(i) => push(&m.lights, i, f, &mut c.lights),
                KeyRef::Shadow(i) => push(&m.shadows, i, f, &mut c.shadows),
                KeyRef::Ik(i) => push(&m.iks, i, f, &mut c.iks),
            }
        }
        c
    }

    /// The move by `delta` frames (held at `min_delta`), or the clash that
    /// refuses it.
    pub fn apply(&self, m: &Motion, idx: &TrackIndex, delta: i64) -> Result<KeyChanges, KeyClash> {
        let delta = delta.max(self.min_delta());
        match self.clash(m, idx, delta) {
            Some(c) => Err(c),
            None => Ok(self.changes(m, delta)),
        }
    }
}

/// Keeps the records whose index is not selected, in file order.
fn retain_unselected<T>(v: &mut Vec<T>, sel: &BTreeSet<KeyRef>, make: fn(u32) -> KeyRef) {
    let mut i = 0u32;
    v.retain(|_| {
        let keep = !sel.contains(&make(i));
        i += 1;
        keep
    });
}

/// The motion without the keys in `sel` (the others keep their file order).
pub fn delete_keys(m: &Motion, sel: &BTreeSet<KeyRef>) -> Motion {
    let mut m = m.clone();
    retain_unselected(&mut m.bones, sel, KeyRef::Bone);
    retain_unselected(&mut m.morphs, sel, KeyRef::Morph);
    retain_unselected(&mut m.cameras, sel, KeyRef::Camera);
    retain_unselected(&mut m.lights, sel, KeyRef::Light);
    retain_unselected(&mut m.shadows, sel, KeyRef::Shadow);
    retain_unselected(&mut m.iks, sel, KeyRef::Ik);
    m
}

/// Copied keys: records as they were (bone and morph records carry their
/// track names), in selection order per section.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Clipboard {
    pub bones: Vec<BoneKey>,
    pub morphs: Vec<MorphKey>,
    pub cameras: Vec<CameraKey>,
    pub lights: Vec<LightKey>,
    pub shadows: Vec<ShadowKey>,
    pub iks: Vec<IkKey>,
}

impl Clipboard {
    /// Copies the keys of `sel` that exist in `m`.
    pub fn copy(m: &Motion, sel: &BTreeSet<KeyRef>) -> Clipboard {
        let mut c = Clipboard::default();
        for &k in sel {
            let i = |x: u32| x as usize;
            match k {
                KeyRef::Bone(x) => c.bones.extend(m.bones.get(i(x)).cloned()),
                KeyRef::Morph(x) => c.morphs.extend(m.morphs.get(i(x)).cloned()),
                KeyRef::Camera(x) => c.cameras.extend(m.cameras.get(i(x)).cloned()),
                KeyRef::Light(x) => c.lights.extend(m.lights.get(i(x)).cloned()),
                KeyRef::Shadow(x) => c.shadows.extend(m.shadows.get(i(x)).cloned()),
                KeyRef::Ik(x) => c.iks.extend(m.iks.get(i(x)).cloned()),
            }
        }
        c
    }
    pub fn len(&self) -> usize {
        self.bones.len()
            + self.morphs.len()
            + self.cameras.len()
            + self.lights.len()
            + self.shadows.len()
            + self.iks.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The earliest frame of any copied key.
    pub fn earliest(&self) -> Option<u32> {
        self.bones
            .iter()
            .map(BoneKey::frame)
            .chain(self.morphs.iter().map(MorphKey::frame))
            .chain(self.cameras.iter().map(CameraKey::frame))
            .chain(self.lights.iter().map(LightKey::frame))
            .chain(self.shadows.iter().map(ShadowKey::frame))
            .chain(self.iks.iter().map(IkKey::frame))
            .min()
    }

    /// Pastes the copied keys into `m` so that the earliest lands on frame
    /// `at` (every key keeps its distance from the earliest one), appended
    /// after each section's records. Bone and morph keys go to the tracks
    /// of their own names. `None` when there is nothing to paste; a
    /// [`KeyClash`] when a pasted key would land on a frame its track
    /// already has a key on (or two pasted keys on one frame).
    pub fn paste(
        &self,
        m: &Motion,
        idx: &TrackIndex,
        at: u32,
    ) -> Option<Result<Replaced, KeyClash>> {
        self.paste_shifted(m, idx, i64::from(at) - i64::from(self.earliest()?))
    }

    /// Pastes the copied keys with every frame moved by `delta` (keys that
    /// would land before frame 0 or past `u32::MAX` are left out). `None`
    /// when nothing is left to paste.
    pub fn paste_shifted(
        &self,
        m0: &Motion,
        idx: &TrackIndex,
        delta: i64,
    ) -> Option<Result<Replaced, KeyClash>> {
        let shift = |f: u32| u32::try_from(i64::from(f) + delta).ok();
        let mut m = m0.clone();
        let mut seen: HashSet<(TrackRef, u32)> = HashSet::new();
        let mut sel = BTreeSet::new();
        let mut clash: Option<KeyClash> = None;
        let mut check = |t: TrackRef, f: u32| {
            if clash.is_none() && (occupied(m0, idx, &t, f) || !seen.insert((t.clone(), f))) {
                clash = Some(KeyClash { track: t, frame: f });
            }
        };
        fn section<K: FrameKey + Clone>(
            list: &[K],
            dst: &mut Vec<K>,
            shift: impl Fn(u32) -> Option<u32>,
            track: impl Fn(&K) -> TrackRef,
            kref: fn(u32) -> KeyRef,
            check: &mut impl FnMut(TrackRef, u32),
            sel: &mut BTreeSet<KeyRef>,
        ) {
            for k in list {
                let Some(f) = shift(k.frame()) else { continue };
                let mut k = k.clone();
                k.set_frame(f);
                check(track(&k), f);
                sel.insert(kref(dst.len() as u32));
                dst.push(k);
            }
        }
        let bone = |k: &BoneKey| TrackRef::Bone(k.name_key().to_vec());
        let morph = |k: &MorphKey| TrackRef::Morph(k.name_key().to_vec());
        section(
            &self.bones,
            &mut m.bones,
            shift,
            bone,
            KeyRef::Bone,
            &mut check,
            &mut sel,
        );
        section(
            &self.morphs,
            &mut m.morphs,
            shift,
            morph,
            KeyRef::Morph,
            &mut check,
            &mut sel,
        );
        let camera = |_: &CameraKey| TrackRef::Camera;
        section(
            &self.cameras,
            &mut m.cameras,
            shift,
            camera,
            KeyRef::Camera,
            &mut check,
            &mut sel,
        );
        let light = |_: &LightKey| TrackRef::Light;
        section(
            &self.lights,
            &mut m.lights,
            shift,
            light,
            KeyRef::Light,
            &mut check,
            &mut sel,
        );
        let shadow = |_: &ShadowKey| TrackRef::Shadow;
        section(
            &self.shadows,
            &mut m.shadows,
            shift,
            shadow,
            KeyRef::Shadow,
            &mut check,
            &mut sel,
        );
        let ik = |_: &IkKey| TrackRef::Ik;
        section(
            &self.iks,
            &mut m.iks,
            shift,
            ik,
            KeyRef::Ik,
            &mut check,
            &mut sel,
        );
        if let Some(c) = clash {
            return Some(Err(c));
        }
        (!sel.is_empty()).then_some(Ok(Replaced {
            motion: m,
            selection: sel,
        }))
    }
}

/// What [`insert_keys`] made.
#[derive(Debug, Clone, PartialEq)]
pub struct Inserted {
    /// The new motion and the new keys; `None` when no key was added.
    pub edit: Option<Replaced>,
    /// Tracks that already had a key on the frame (left alone).
    pub skipped: usize,
}

/// A key on frame `f` in each of `tracks` that has none there, holding the
/// track's value at that frame as the motion plays it now (between two
/// keys: the interpolated value, through the later key's curves). New bone
/// keys get MMD's default linear curves and the name field of the track's
/// first key; an IK/show key copies the state in force. Tracks without keys
/// are left out (there is no value to key).
pub fn insert_keys(m0: &Motion, idx: &TrackIndex, tracks: &BTreeSet<TrackRef>, f: u32) -> Inserted {
    let ff = f64::from(f);
    let mut m = m0.clone();
    let mut sel = BTreeSet::new();
    let mut skipped = 0usize;
    for t in tracks {
        if occupied(m0, idx, t, f) {
            skipped += 1;
            continue;
        }
        match t {
            TrackRef::Bone(n) => {
                let Some(track) = idx.bone(n) else { continue };
                let Some(src) = track.keys.first().and_then(|&i| m0.bones.get(i as usize)) else {
                    continue;
                };
                let pose = evaluate::bone_at(m0, track, ff);
                let Ok(mut k) =
                    BoneKey::new("", NameEncoding::ShiftJis, f, pose.position, pose.rotation)
                else {
                    continue;
                };
                let Ok(field) = src.name_field().try_into() else {
                    continue;
                };
                k.set_name_field(field);
                sel.insert(KeyRef::Bone(m.bones.len() as u32));
                m.bones.push(k);
            }
            TrackRef::Morph(n) => {
                let Some(track) = idx.morph(n) else { continue };
                let Some(src) = track.keys.first().and_then(|&i| m0.morphs.get(i as usize)) else {
                    continue;
                };
                let w = evaluate::morph_at(m0, track, ff);
                let Ok(mut k) = MorphKey::new("", NameEncoding::ShiftJis, f, w) else {
                    continue;
                };
                let Ok(field) = src.name_field().try_into() else {
                    continue;
                };
                k.set_name_field(field);
                sel.insert(KeyRef::Morph(m.morphs.len() as u32));
                m.morphs.push(k);
            }
            TrackRef::Camera => {
                let Some(c) = evaluate::camera_at(m0, idx, ff) else {
                    continue;
                };
                let k = CameraKey::new(
                    f,
                    c.distance,
                    c.target,
                    c.rotation,
                    c.fov.round().max(0.0) as u32,
                    c.perspective,
                );
                sel.insert(KeyRef::Camera(m.cameras.len() as u32));
                m.cameras.push(k);
            }
            TrackRef::Light => {
                let Some(s) = evaluate::light_at(m0, idx, ff) else {
                    continue;
                };
                sel.insert(KeyRef::Light(m.lights.len() as u32));
                m.lights.push(LightKey::new(f, s.color, s.direction));
            }
            TrackRef::Shadow => {
                let Some((mode, dist)) = evaluate::shadow_at(m0, idx, ff) else {
                    continue;
                };
                sel.insert(KeyRef::Shadow(m.shadows.len() as u32));
                m.shadows.push(ShadowKey::new(f, mode, dist));
            }
            TrackRef::Ik => {
                let Some(k) = evaluate::ik_at(m0, idx, ff) else {
                    continue;
                };
                let mut k = k.clone();
                k.set_frame(f);
                sel.insert(KeyRef::Ik(m.iks.len() as u32));
                m.iks.push(k);
            }
        }
    }
    let edit = (!sel.is_empty()).then_some(Replaced {
        motion: m,
        selection: sel,
    });
    Inserted { edit, skipped }
}
