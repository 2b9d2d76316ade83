//! Updating a [`TrackIndex`] after an undo or redo instead of building it
//! again. Undoing a Delete of 1,000 keys on a 1M-key dance used to rebuild
//! the whole index (every name hashed again); here the kept keys of each
//! track are renumbered with two cursors that only move forward, the
//! inserted or changed keys are placed by binary search, and the tracks are
//! put back in order of first appearance. The result is the index
//! [`TrackIndex::build`] gives for the new motion (the tests compare them
//! after random edits).

use super::{Lookup, Track, TrackIndex, pack, sorted};
use crate::vmd::motion::Motion;

/// What an edit did to one section's records, in index terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectionChange<'a> {
    /// Records gone: strictly ascending indices in the state before.
    pub removed: &'a [u32],
    /// Records added: strictly ascending indices in the state after.
    pub inserted: &'a [u32],
    /// Records replaced in place (ascending; only with nothing removed or
    /// inserted): the same index before and after.
    pub changed: Vec<u32>,
}

impl SectionChange<'_> {
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.inserted.is_empty() && self.changed.is_empty()
    }
}

/// What an edit did to every section (see [`TrackIndex::update`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexChange<'a> {
    pub bones: SectionChange<'a>,
    pub morphs: SectionChange<'a>,
    pub cameras: SectionChange<'a>,
    pub lights: SectionChange<'a>,
    pub shadows: SectionChange<'a>,
    pub iks: SectionChange<'a>,
}

impl TrackIndex {
    /// Brings the index of the motion before an edit up to date with `m`,
    /// the motion after it, given what the edit did. The named sections are
    /// updated in place; a changed camera, light, self-shadow or IK section
    /// is sorted again (they are not grouped by name). A change that does
    /// not fit the index (counts that do not add up, indices out of order
    /// or range) rebuilds that section instead, so the index is right
    /// whatever it is given. Returns whether the bone and morph tracks were
    /// updated in place (`false`: one was rebuilt).
    pub fn update(&mut self, m: &Motion, c: &IndexChange<'_>) -> bool {
        let bones_ok = c.bones.is_empty()
            || update_tracks(
                &mut self.bones,
                &mut self.bone_lookup,
                m.bones.len(),
                &c.bones,
                |i| m.bones[i].name_key(),
                |i| m.bones[i].frame(),
            );
        let morphs_ok = c.morphs.is_empty()
            || update_tracks(
                &mut self.morphs,
                &mut self.morph_lookup,
                m.morphs.len(),
                &c.morphs,
                |i| m.morphs[i].name_key(),
                |i| m.morphs[i].frame(),
            );
        if !(bones_ok && morphs_ok) {
            let full = TrackIndex::build(m);
            if !bones_ok {
                self.bones = full.bones;
                self.bone_lookup = full.bone_lookup;
            }
            if !morphs_ok {
                self.morphs = full.morphs;
                self.morph_lookup = full.morph_lookup;
            }
        }
        if !c.cameras.is_empty() {
            self.camera = sorted(m.cameras.len(), |i| m.cameras[i].frame());
        }
        if !c.lights.is_empty() {
            self.light = sorted(m.lights.len(), |i| m.lights[i].frame());
        }
        if !c.shadows.is_empty() {
            self.shadow = sorted(m.shadows.len(), |i| m.shadows[i].frame());
        }
        if !c.iks.is_empty() {
            self.ik = sorted(m.iks.len(), |i| m.iks[i].frame());
        }
        bones_ok && morphs_ok
    }
}

fn ascending_below(v: &[u32], bound: usize) -> bool {
    v.windows(2).all(|w| w[0] < w[1]) && v.last().is_none_or(|&l| (l as usize) < bound)
}

/// Updates named tracks in place; `false` (with the tracks in an
/// unspecified state) when the change does not fit them.
fn update_tracks<'a>(
    tracks: &mut Vec<Track>,
    lookup: &mut Lookup,
    n_new: usize,
    c: &SectionChange<'_>,
    name_of: impl Fn(usize) -> &'a [u8],
    frame_of: impl Fn(usize) -> u32,
) -> bool {
    // A record changed in place leaves its track and is placed again: it
    // is removed and inserted at the same index.
    let (removed, inserted): (&[u32], &[u32]) = if c.changed.is_empty() {
        (c.removed, c.inserted)
    } else if c.removed.is_empty() && c.inserted.is_empty() {
        (&c.changed, &c.changed)
    } else {
        return false;
    };
    let n_old: usize = tracks.iter().map(|t| t.keys.len()).sum();
    if n_old + inserted.len() != n_new + removed.len()
        || !ascending_below(removed, n_old)
        || !ascending_below(inserted, n_new)
        || u32::try_from(n_old.max(n_new)).is_err()
    {
        return false;
    }
    // Kept record with rank `base` among the kept ones lands at
    // base + #{j : inserted[j] − j ≤ base} (inserted record j has j inserted
    // and inserted[j] − j kept records before it). Both counts are cursors
    // that move forward while a track's keys ascend in file order (as they
    // do unless a file keys one frame twice out of order); otherwise they
    // are found again by binary search.
    let shifted: Vec<u32> = inserted
        .iter()
        .enumerate()
        .map(|(j, &x)| x - j as u32)
        .collect();
    for t in tracks.iter_mut() {
        let (mut r, mut s, mut prev) = (0usize, 0usize, 0u32);
        let mut w = 0usize;
        for k in 0..t.keys.len() {
            let old = t.keys[k];
            if old < prev {
                r = removed.partition_point(|&x| x < old);
                s = 0;
            } else {
                while r < removed.len() && removed[r] < old {
                    r += 1;
                }
            }
            prev = old;
            if removed.get(r) == Some(&old) {
                continue;
            }
            let base = old - r as u32;
            if s > 0 && shifted[s - 1] > base {
                s = shifted.partition_point(|&x| x <= base);
            }
            while s < shifted.len() && shifted[s] <= base {
                s += 1;
            }
            t.keys[w] = base + s as u32;
            t.frames[w] = t.frames[k];
            w += 1;
        }
        t.keys.truncate(w);
        t.frames.truncate(w);
    }
    for &i in inserted {
        let name = name_of(i as usize);
        let frame = frame_of(i as usize);
        let Some(key) = pack(name) else {
            return false;
        };
        let at = match lookup.get(&key) {
            Some(&at) if at < tracks.len() => at,
            _ => {
                tracks.push(Track {
                    name_key: name.to_vec(),
                    keys: Vec::new(),
                    frames: Vec::new(),
                });
                lookup.insert(key, tracks.len() - 1);
                tracks.len() - 1
            }
        };
        let t = &mut tracks[at];
        // Sorted by frame, equal frames in file order.
        let lo = t.frames.partition_point(|&f| f < frame);
        let hi = lo + t.frames[lo..].partition_point(|&f| f <= frame);
        let p = lo + t.keys[lo..hi].partition_point(|&k| k < i);
        t.keys.insert(p, i);
        t.frames.insert(p, frame);
    }
    // Order of first appearance (smallest file index), tracks that lost
    // every key dropped, names looked up again.
    tracks.retain(|t| !t.keys.is_empty());
    tracks.sort_by_cached_key(|t| t.keys.iter().min().copied());
    lookup.clear();
    for (j, t) in tracks.iter().enumerate() {
        if let Some(key) = pack(&t.name_key) {
            lookup.insert(key, j);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmd::diff::MotionDiff;
    use crate::vmd::{BoneKey, MorphKey, NameEncoding};
    use proptest::prelude::*;

    const NAMES: [&str; 4] = ["センター", "右腕", "左腕", "頭"];

    fn motion(bones: &[(u8, u32)], morphs: &[(u8, u32)]) -> Motion {
        let mut m = Motion::new_v2();
        for &(n, f) in bones {
            let name = NAMES[usize::from(n) % NAMES.len()];
            let key = BoneKey::new(
                name,
                NameEncoding::ShiftJis,
                f,
                [f as f32; 3],
                [0.0, 0.0, 0.0, 1.0],
            );
            m.bones.push(key.expect("name fits"));
        }
        for &(n, f) in morphs {
            let name = ["あ", "い"][usize::from(n) % 2];
            m.morphs
                .push(MorphKey::new(name, NameEncoding::ShiftJis, f, 0.5).expect("name fits"));
        }
        m
    }

    fn keys() -> impl Strategy<Value = Vec<(u8, u32)>> {
        prop::collection::vec((0u8..5, 0u32..8), 0..30)
    }

    proptest! {
        /// Any edit as undo stores it (records removed, inserted or changed,
        /// or a replaced range), then undone and redone: after each step the
        /// updated index equals the index built from scratch.
        #[test]
        fn updated_index_equals_a_rebuilt_one(
            b0 in keys(), b1 in keys(), m0 in keys(), m1 in keys(),
            removals in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
            edit in 0u8..4,
        ) {
            let old = motion(&b0, &m0);
            let new = match edit {
                // Scattered removals (a Delete).
                0 => {
                    let mut n = old.clone();
                    for r in &removals {
                        if !n.bones.is_empty() {
                            n.bones.remove(r.index(n.bones.len()));
                        }
                    }
                    n
                }
                // Insertions (a paste): the old records kept in order.
                1 => {
                    let mut n = old.clone();
                    for (i, r) in removals.iter().enumerate() {
                        let at = r.index(n.bones.len() + 1);
                        let extra = motion(&[(i as u8, 3)], &[]);
                        n.bones.insert(at, extra.bones[0]);
                    }
                    n
                }
                // Changes in place (a move: frames rewritten).
                2 => {
                    let mut n = old.clone();
                    for r in &removals {
                        if !n.bones.is_empty() {
                            let i = r.index(n.bones.len());
                            let f = n.bones[i].frame();
                            n.bones[i].set_frame(f + 2);
                        }
                    }
                    n
                }
                // Anything else.
                _ => motion(&b1, &m1),
            };
            let mut m = old.clone();
            let mut index = TrackIndex::build(&m);
            let mut diff = MotionDiff::replace(&mut m, new.clone());
            // Every edit `between` stores fits: never the rebuilding fallback.
            prop_assert!(index.update(&m, &diff.index_change()));
            prop_assert_eq!(&index, &TrackIndex::build(&new));
            diff.toggle(&mut m);
            prop_assert!(index.update(&m, &diff.index_change()));
            prop_assert_eq!(&index, &TrackIndex::build(&old));
            diff.toggle(&mut m);
            prop_assert!(index.update(&m, &diff.index_change()));
            prop_assert_eq!(&index, &TrackIndex::build(&new));
        }
    }

    /// A change that does not fit the index rebuilds the section.
    #[test]
    fn a_change_that_does_not_fit_rebuilds() {
        let m = motion(&[(0, 0), (1, 0), (0, 5)], &[]);
        let mut index = TrackIndex::build(&motion(&[(0, 0)], &[]));
        let bad = IndexChange {
            bones: SectionChange {
                removed: &[7],
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(!index.update(&m, &bad), "rebuilt, not updated in place");
        assert_eq!(index, TrackIndex::build(&m));
    }
}
