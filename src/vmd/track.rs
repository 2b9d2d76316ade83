//! Sorted per-track views over the file-order key storage.
//!
//! Keys stay in file order inside [`Motion`] (so saving keeps the order);
//! a [`TrackIndex`] lists, per bone / morph and for the camera, light,
//! self-shadow and IK/show sections, the key indices sorted by frame
//! (stable: keys on the same frame keep file order, the last one wins when
//! evaluating).

use std::collections::HashMap;

use super::motion::Motion;
use super::name::{DecodedName, decode_name};

/// One named track: a bone or a morph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Track {
    /// Name bytes up to the first NUL: what identifies the track.
    pub name_key: Vec<u8>,
    /// Indices into `Motion::bones` / `Motion::morphs`, sorted by frame.
    pub keys: Vec<u32>,
}

impl Track {
    pub fn name(&self) -> DecodedName {
        decode_name(&self.name_key)
    }
}

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
    bone_lookup: HashMap<Vec<u8>, usize>,
    morph_lookup: HashMap<Vec<u8>, usize>,
}

fn group<'a>(
    names: impl Iterator<Item = &'a [u8]>,
    frame: impl Fn(usize) -> u32,
) -> (Vec<Track>, HashMap<Vec<u8>, usize>) {
    let mut lookup: HashMap<&'a [u8], usize> = HashMap::new();
    let mut tracks: Vec<Track> = Vec::new();
    for (i, name) in names.enumerate() {
        let t = *lookup.entry(name).or_insert_with(|| {
            tracks.push(Track {
                name_key: name.to_vec(),
                keys: Vec::new(),
            });
            tracks.len() - 1
        });
        tracks[t].keys.push(i as u32);
    }
    for t in &mut tracks {
        if !t
            .keys
            .windows(2)
            .all(|w| frame(w[0] as usize) <= frame(w[1] as usize))
        {
            t.keys.sort_by_key(|&i| frame(i as usize));
        }
    }
    let owned = lookup.into_iter().map(|(k, v)| (k.to_vec(), v)).collect();
    (tracks, owned)
}

fn sorted(n: usize, frame: impl Fn(usize) -> u32) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    if !v
        .windows(2)
        .all(|w| frame(w[0] as usize) <= frame(w[1] as usize))
    {
        v.sort_by_key(|&i| frame(i as usize));
    }
    v
}

impl TrackIndex {
    pub fn build(m: &Motion) -> TrackIndex {
        let (bones, bone_lookup) =
            group(m.bones.iter().map(|k| k.name_key()), |i| m.bones[i].frame());
        let (morphs, morph_lookup) = group(m.morphs.iter().map(|k| k.name_key()), |i| {
            m.morphs[i].frame()
        });
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
        self.bone_lookup.get(name_key).map(|&i| &self.bones[i])
    }
    pub fn morph(&self, name_key: &[u8]) -> Option<&Track> {
        self.morph_lookup.get(name_key).map(|&i| &self.morphs[i])
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
    }
}
