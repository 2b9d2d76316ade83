//! Sorted per-track views over the file-order key storage.
//!
//! Keys stay in file order inside [`Motion`] (so saving keeps the order);
//! a [`TrackIndex`] lists, per bone / morph and for the camera, light,
//! self-shadow and IK/show sections, the key indices sorted by frame
//! (stable: keys on the same frame keep file order, the last one wins when
//! evaluating).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

mod update;

pub use update::{IndexChange, SectionChange};

use super::motion::Motion;
use super::name::{DecodedName, decode_name};
use super::records::{BoneKey, MorphKey};

/// One named track: a bone or a morph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Track {
    /// Name bytes up to the first NUL: what identifies the track.
    pub name_key: Vec<u8>,
    /// Indices into `Motion::bones` / `Motion::morphs`, sorted by frame.
    pub keys: Vec<u32>,
    /// The frame of each of `keys`, same order (a contiguous copy, so that
    /// finding the keys around a frame does not touch the records).
    pub frames: Vec<u32>,
}

impl Track {
    pub fn name(&self) -> DecodedName {
        decode_name(&self.name_key)
    }
}

/// A track name (at most 15 bytes) packed with its length into one integer:
/// a cheap, exact hash-map key.
#[inline]
fn pack(name: &[u8]) -> Option<u128> {
    if name.len() > 15 {
        return None;
    }
    let mut b = [0u8; 16];
    b[..name.len()].copy_from_slice(name);
    b[15] = name.len() as u8;
    Some(u128::from_le_bytes(b))
}

/// Multiply-xorshift hash for packed names (track names are not an attack
/// surface worth SipHash: a hostile file can at worst make indexing slower).
#[derive(Default, Clone, Copy)]
struct PackedHasher(u64);

impl Hasher for PackedHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u128(&mut self, v: u128) {
        let x = (v as u64) ^ ((v >> 64) as u64).rotate_left(29) ^ self.0;
        let h = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Lookup = HashMap<u128, usize, BuildHasherDefault<PackedHasher>>;

/// Sorted views of every track.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrackIndex {
    /// Bone tracks in order of first appearance in the file.
    pub bones: Vec<Track>,
    pub morphs: Vec<Track>,
    pub camera: Vec<u32>,
    pub light: Vec<u32>,
    pub shadow: Vec<u32>,
    pub ik: Vec<u32>,
    bone_lookup: Lookup,
    morph_lookup: Lookup,
}

/// [`pack`] of a whole name field (its first 15 bytes): the name up to
/// the first NUL, found in one 16-byte word (no byte loop, no copy of a
/// variable length), so that grouping a million keys is cheap.
#[inline]
fn pack_field(field: &[u8]) -> u128 {
    const ONES: u128 = u128::from_le_bytes([0x01; 16]);
    const HIGHS: u128 = u128::from_le_bytes([0x80; 16]);
    let mut b = [0u8; 16];
    let n = field.len().min(15);
    b[..n].copy_from_slice(&field[..n]);
    let x = u128::from_le_bytes(b);
    // The lowest byte of `x` that is zero has its high bit set here (bits
    // above it may be set by the borrow, below it never); byte 15 is zero,
    // so the name is at most 15 bytes long.
    let zero = x.wrapping_sub(ONES) & !x & HIGHS;
    let len = zero.trailing_zeros() / 8;
    let name = x & ((1u128 << (8 * len)) - 1);
    name | (u128::from(len) << 120)
}

/// Keys staged per track by [`group`]: (index, frame) pairs.
const STAGE: usize = 16;

#[derive(Clone, Copy)]
struct Staged {
    len: usize,
    keys: [u32; STAGE],
    frames: [u32; STAGE],
}

impl Default for Staged {
    fn default() -> Self {
        Staged {
            len: 0,
            keys: [0; STAGE],
            frames: [0; STAGE],
        }
    }
}

impl Staged {
    /// Stages a key; true when the block is full (flush it).
    #[inline]
    fn push(&mut self, key: u32, frame: u32) -> bool {
        if let (Some(k), Some(f)) = (self.keys.get_mut(self.len), self.frames.get_mut(self.len)) {
            *k = key;
            *f = frame;
            self.len += 1;
        }
        self.len >= STAGE
    }
    fn flush_into(&mut self, track: &mut Track) {
        let n = self.len.min(STAGE);
        track.keys.extend_from_slice(&self.keys[..n]);
        track.frames.extend_from_slice(&self.frames[..n]);
        self.len = 0;
    }
}

/// Groups keys — each its packed name field ([`pack_field`]) and frame, in
/// storage order — into named tracks (in order of first appearance), each
/// sorted by frame, stable (equal frames keep file order). `name_of(i)` is
/// key `i`'s name bytes (up to the NUL), asked once per track.
fn group<'a>(
    keys: impl Iterator<Item = (u128, u32)>,
    name_of: impl Fn(usize) -> &'a [u8],
) -> (Vec<Track>, Lookup) {
    let mut lookup = Lookup::default();
    let mut tracks: Vec<Track> = Vec::new();
    // Per track: its packed name, and the track whose key came right after
    // one of its keys last time. Files store a track's keys together, or
    // (baked dances) frame by frame in the same bone order every frame, so
    // "the same track as the previous key" or "the track that followed it
    // last time" is almost always right: the hash map is consulted about
    // once per distinct name, not once per key.
    let mut packed: Vec<u128> = Vec::new();
    let mut next: Vec<usize> = Vec::new();
    // The previous key's track (none before the first key).
    let mut last = usize::MAX;
    // Each track's newest keys, staged in a small block of their own and
    // moved to the track's vectors a cache line at a time: a baked dance
    // interleaves hundreds of tracks, and writing each key straight to its
    // track's vectors touched a different page per key (a TLB miss each).
    let mut staged: Vec<Staged> = Vec::new();
    for (i, (key, frame)) in keys.enumerate() {
        let t = if packed.get(last) == Some(&key) {
            last
        } else if let Some(&n) = next.get(last)
            && packed.get(n) == Some(&key)
        {
            n
        } else {
            *lookup.entry(key).or_insert_with(|| {
                tracks.push(Track {
                    name_key: name_of(i).to_vec(),
                    keys: Vec::new(),
                    frames: Vec::new(),
                });
                packed.push(key);
                next.push(usize::MAX);
                staged.push(Staged::default());
                tracks.len() - 1
            })
        };
        if let Some(n) = next.get_mut(last) {
            *n = t;
        }
        last = t;
        if let Some(stage) = staged.get_mut(t)
            && stage.push(i as u32, frame)
            && let Some(track) = tracks.get_mut(t)
        {
            stage.flush_into(track);
        }
    }
    for (stage, track) in staged.iter_mut().zip(&mut tracks) {
        stage.flush_into(track);
    }
    for t in &mut tracks {
        if !t.frames.is_sorted() {
            // Sort (frame, file index) pairs: stable by construction.
            let mut v: Vec<u64> = t
                .frames
                .iter()
                .zip(&t.keys)
                .map(|(&f, &k)| (u64::from(f) << 32) | u64::from(k))
                .collect();
            v.sort_unstable();
            t.keys = v.iter().map(|&x| x as u32).collect();
            t.frames = v.iter().map(|&x| (x >> 32) as u32).collect();
        }
    }
    (tracks, lookup)
}

fn sorted(n: usize, frame: impl Fn(usize) -> u32) -> Vec<u32> {
    let frames: Vec<u32> = (0..n).map(&frame).collect();
    if frames.is_sorted() {
        return (0..n as u32).collect();
    }
    let mut v: Vec<u64> = frames
        .iter()
        .enumerate()
        .map(|(i, &f)| (u64::from(f) << 32) | i as u64)
        .collect();
    v.sort_unstable();
    v.into_iter().map(|x| x as u32).collect()
}

impl TrackIndex {
    pub fn build(m: &Motion) -> TrackIndex {
        let (bones, bone_lookup) = group(
            m.bones
                .iter()
                .map(|k| (pack_field(k.name_field()), k.frame())),
            |i| m.bones.get(i).map_or(&[], BoneKey::name_key),
        );
        let (morphs, morph_lookup) = group(
            m.morphs
                .iter()
                .map(|k| (pack_field(k.name_field()), k.frame())),
            |i| m.morphs.get(i).map_or(&[], MorphKey::name_key),
        );
        TrackIndex {
            bones,
            morphs,
            camera: sorted(m.cameras.len(), |i| m.cameras[i].frame()),
            light: sorted(m.lights.len(), |i| m.lights[i].frame()),
            shadow: sorted(m.shadows.len(), |i| m.shadows[i].frame()),
            ik: sorted(m.iks.len(), |i| m.iks[i].frame()),
            bone_lookup,
            morph_lookup,
        }
    }

    /// The bone track with this name (raw bytes before NUL).
    pub fn bone(&self, name_key: &[u8]) -> Option<&Track> {
        let i = *self.bone_lookup.get(&pack(name_key)?)?;
        self.bones.get(i)
    }
    pub fn morph(&self, name_key: &[u8]) -> Option<&Track> {
        let i = *self.morph_lookup.get(&pack(name_key)?)?;
        self.morphs.get(i)
    }
    /// Index of a bone track by display name.
    pub fn bone_by_text(&self, text: &str) -> Option<&Track> {
        self.bones.iter().find(|t| t.name().text == text)
    }
    pub fn morph_by_text(&self, text: &str) -> Option<&Track> {
        self.morphs.iter().find(|t| t.name().text == text)
    }
}

/// Where a frame falls in a sorted key list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bracket {
    /// No keys.
    Empty,
    /// Before the first key, on a key, or after the last: hold this key.
    Hold(u32),
    /// Strictly between two keys A (earlier) and B (later); `t` in (0, 1).
    Between(u32, u32),
}

/// Finds the keys around `frame` (fractional) in `keys` sorted by `frame_of`.
///
/// When several keys share a frame, the last one in storage order is the key
/// of that frame everywhere: held on it, held before the first key, and used
/// as either end of a segment (so the value is continuous at every key).
pub fn bracket(keys: &[u32], frame: f64, frame_of: impl Fn(u32) -> u32) -> Bracket {
    if keys.is_empty() {
        return Bracket::Empty;
    }
    // First key strictly after `frame`.
    let after = keys.partition_point(|&k| f64::from(frame_of(k)) <= frame);
    if after == 0 {
        return Bracket::Hold(last_on_frame(keys, 0, &frame_of));
    }
    let a = keys[after - 1];
    if after == keys.len() || f64::from(frame_of(a)) == frame {
        return Bracket::Hold(a);
    }
    Bracket::Between(a, last_on_frame(keys, after, &frame_of))
}

/// [`bracket`] over a track, using its contiguous `frames`; `None` when
/// `frames` does not match `keys` (a track not made by [`TrackIndex::build`]).
#[inline]
pub fn bracket_track(track: &Track, frame: f64) -> Option<Bracket> {
    let frames = &track.frames;
    let keys = &track.keys;
    if frames.len() != keys.len() {
        return None;
    }
    if keys.is_empty() {
        return Some(Bracket::Empty);
    }
    let last_on = |i: usize| {
        let mut j = i;
        while j + 1 < frames.len() && frames[j + 1] == frames[i] {
            j += 1;
        }
        keys[j]
    };
    let after = frames.partition_point(|&f| f64::from(f) <= frame);
    Some(if after == 0 {
        Bracket::Hold(last_on(0))
    } else if after == frames.len() || f64::from(frames[after - 1]) == frame {
        Bracket::Hold(keys[after - 1])
    } else {
        Bracket::Between(keys[after - 1], last_on(after))
    })
}

/// The last key (in storage order) on the same frame as `keys[i]`.
#[inline]
fn last_on_frame(keys: &[u32], i: usize, frame_of: &impl Fn(u32) -> u32) -> u32 {
    let f = frame_of(keys[i]);
    let mut j = i;
    while j + 1 < keys.len() && frame_of(keys[j + 1]) == f {
        j += 1;
    }
    keys[j]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_field_is_the_packed_name_before_its_nul() {
        // Every name length 0..=15, junk after the NUL, NUL-like bytes
        // (0x80, 0x01, 0xFF) around it: the same key as the byte loop.
        for len in 0..=15usize {
            for fill in [0x01u8, 0x80, 0xFF, 0x41] {
                let mut field = [fill; 15];
                if len < 15 {
                    field[len] = 0;
                }
                let name = &field[..len];
                assert_eq!(
                    Some(pack_field(&field)),
                    pack(name),
                    "len {len} fill {fill:#x}"
                );
                assert_eq!(name_bytes_len(&field), len);
            }
        }
        // A NUL first, then a second NUL later: the first one ends the name.
        let field = *b"ab\0cd\0efghijklm";
        assert_eq!(Some(pack_field(&field)), pack(b"ab"));
    }

    fn name_bytes_len(field: &[u8]) -> usize {
        super::super::name::name_bytes(field).len()
    }

    #[test]
    fn duplicate_frames_use_the_last_key_in_file_order() {
        // Storage: 0 → frame 0, 1 → frame 0, 2 → frame 10, 3 → frame 10.
        let frames = [0u32, 0, 10, 10];
        let keys = [0u32, 1, 2, 3];
        let f = |k: u32| frames[k as usize];
        assert_eq!(bracket(&keys, 0.0, f), Bracket::Hold(1));
        assert_eq!(bracket(&keys, -1.0, f), Bracket::Hold(1));
        assert_eq!(bracket(&keys, 5.0, f), Bracket::Between(1, 3));
        assert_eq!(bracket(&keys, 10.0, f), Bracket::Hold(3));
        assert_eq!(bracket(&keys, 11.0, f), Bracket::Hold(3));
        assert_eq!(bracket(&[], 1.0, f), Bracket::Empty);
        // The same through a track's own frame list.
        let t = Track {
            name_key: b"a".to_vec(),
            keys: keys.to_vec(),
            frames: frames.to_vec(),
        };
        for x in [-1.0, 0.0, 5.0, 10.0, 11.0] {
            assert_eq!(bracket_track(&t, x), Some(bracket(&keys, x, f)), "{x}");
        }
    }
}
