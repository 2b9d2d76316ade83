//! The difference between two motions, stored as records changed in place,
//! removed and inserted by index — what undo keeps instead of whole copies.
//!
//! A [`MotionDiff`] sits between a *before* and an *after* state and holds
//! only what the motion does not hold now: in the after state the old values
//! of changed records and the removed records; in the before state the new
//! values and the inserted records. [`MotionDiff::toggle`] moves the motion
//! to the other state by swapping and moving records — nothing is cloned —
//! and leaves the diff ready to go back.
//!
//! The edit runs in three phases, in this order:
//! 1. `changed`: records replaced in place (indices of the before state);
//! 2. `removed_at`: records removed (ascending indices of the before state);
//! 3. `inserted_at`: records inserted (ascending indices of the after state).

use std::ops::Range;

use super::motion::Motion;
use super::records::{BoneKey, CameraKey, IkKey, LightKey, MorphKey, ShadowKey};
use super::track::{IndexChange, SectionChange};

/// A record a diff can hold: comparable, and with a known memory cost.
pub trait Record: Clone + PartialEq {
    /// Heap bytes owned beyond `size_of::<Self>()` (IK keys' variable tail).
    fn heap_bytes(&self) -> usize {
        0
    }

    /// Moves the records at `src` to start at `dst` (the ranges may
    /// overlap); what the records at the destination held before is lost
    /// and the source slots keep unspecified records. One record at a time
    /// by swapping; the fixed-size records override it with one `memmove`
    /// (undoing a Delete on a 1M-key dance moves ~100 MB: 3× faster).
    fn shift(v: &mut [Self], src: Range<usize>, dst: usize) {
        let len = src.len();
        if dst < src.start {
            for k in 0..len {
                v.swap(dst + k, src.start + k);
            }
        } else if dst > src.start {
            for k in (0..len).rev() {
                v.swap(dst + k, src.start + k);
            }
        }
    }
}

macro_rules! fixed_size_records {
    ($($t:ty),*) => {$(
        impl Record for $t {
            fn shift(v: &mut [Self], src: Range<usize>, dst: usize) {
                v.copy_within(src, dst);
            }
        }
    )*};
}
fixed_size_records!(BoneKey, MorphKey, CameraKey, LightKey, ShadowKey);

impl Record for IkKey {
    fn heap_bytes(&self) -> usize {
        self.raw.capacity()
    }
}

/// Whether `at` is strictly ascending with every index below `bound`.
fn ascending_below(at: &[u32], bound: usize) -> bool {
    at.windows(2).all(|w| w[0] < w[1]) && at.last().is_none_or(|&l| (l as usize) < bound)
}

/// The changes to one section's records (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct SectionDiff<T> {
    /// (index, the record value that is not in the motion now).
    changed: Vec<(u32, T)>,
    removed_at: Vec<u32>,
    inserted_at: Vec<u32>,
    /// The removed records (after state) or the inserted ones (before state).
    held: Vec<T>,
}

impl<T> Default for SectionDiff<T> {
    fn default() -> Self {
        SectionDiff {
            changed: Vec::new(),
            removed_at: Vec::new(),
            inserted_at: Vec::new(),
            held: Vec::new(),
        }
    }
}

/// Removes the records at ascending `at` in one pass and returns them in order.
fn take_at<T: Record>(v: &mut Vec<T>, at: &[u32]) -> Vec<T> {
    if at.is_empty() {
        return Vec::new();
    }
    let n = v.len();
    if ascending_below(at, n) {
        // The removed records, then each run of kept records moved left over
        // the gaps in one block move, then the tail cut off.
        let removed: Vec<T> = at.iter().map(|&i| v[i as usize].clone()).collect();
        let mut dst = at[0] as usize;
        for (j, &a) in at.iter().enumerate() {
            let from = a as usize + 1;
            let to = at.get(j + 1).map_or(n, |&b| b as usize);
            T::shift(v, from..to, dst);
            dst += to - from;
        }
        v.truncate(n - at.len());
        return removed;
    }
    // Indices out of order or range (never from `between`): one by one.
    let mut i = 0usize;
    let mut k = 0usize;
    v.extract_if(.., |_| {
        let hit = at.get(k).is_some_and(|&a| a as usize == i);
        k += usize::from(hit);
        i += 1;
        hit
    })
    .collect()
}

/// Inserts `items` so that they end up at the ascending indices `at` of the
/// result, moving each old record at most once (back to front, in place).
fn put_at<T: Record>(v: &mut Vec<T>, at: &[u32], mut items: Vec<T>) {
    let Some(filler) = items.first().cloned() else {
        return;
    };
    let n = v.len();
    let total = n + items.len();
    v.resize(total, filler);
    if at.len() == items.len() && ascending_below(at, total) {
        // Back to front: the old records that end between item j and item
        // j + 1 move right by j + 1 in one block move, then item j lands.
        // The counts add up to n − at[0], so `src_end` never underflows.
        let mut src_end = n;
        for j in (0..at.len()).rev() {
            let p = at[j] as usize;
            let dst_end = at.get(j + 1).map_or(total, |&b| b as usize);
            let Some(src_start) = src_end.checked_sub(dst_end - (p + 1)) else {
                break;
            };
            T::shift(v, src_start..src_end, p + 1);
            src_end = src_start;
            if let Some(item) = items.pop() {
                v[p] = item;
            }
        }
        return;
    }
    // Indices out of order or range (never from `between`): one by one.
    let mut src = n;
    let mut next = at.len().min(items.len());
    for dst in (0..total).rev() {
        if next == 0 {
            break;
        }
        if at[next - 1] as usize == dst {
            next -= 1;
            if let Some(item) = items.pop() {
                v[dst] = item;
            }
        } else if let Some(s) = src.checked_sub(1) {
            src = s;
            v.swap(dst, src);
        } else {
            // Indices out of range (never from `between`): stop moving.
            break;
        }
    }
}

fn common_prefix<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// The indices of `long` not used when greedily matching `short` as a
/// subsequence of it; `None` when `short` is not a subsequence.
fn unmatched<T: PartialEq>(long: &[T], short: &[T], offset: usize) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(long.len() - short.len());
    let mut j = 0;
    for (i, x) in long.iter().enumerate() {
        if j < short.len() && *x == short[j] {
            j += 1;
        } else {
            out.push(u32::try_from(offset + i).ok()?);
        }
    }
    (j == short.len()).then_some(out)
}

fn index_range(from: usize, to: usize) -> Vec<u32> {
    (from..to).filter_map(|i| u32::try_from(i).ok()).collect()
}

impl<T: Record> SectionDiff<T> {
    /// The diff from `old` to `new`, in the after state (it keeps what it
    /// needs of `old`, which it consumes).
    ///
    /// Exact and small for the edits the app makes: records changed in place
    /// (same count), records removed (the new list is a subsequence of the
    /// old), records inserted (the old list is a subsequence of the new).
    /// Anything else is stored as one replaced range between the first and
    /// the last difference.
    pub fn between(old: Vec<T>, new: &[T]) -> Self {
        let p = common_prefix(&old, new);
        let s = common_suffix(&old[p..], &new[p..]);
        let (old_end, new_end) = (old.len() - s, new.len() - s);
        let mut d = SectionDiff::default();
        if old_end == p && new_end == p {
            return d;
        }
        let (om, nm) = (&old[p..old_end], &new[p..new_end]);
        if om.len() == nm.len() {
            d.changed = (p..old_end)
                .filter(|&i| old[i] != new[i])
                .filter_map(|i| Some((u32::try_from(i).ok()?, old[i].clone())))
                .collect();
            return d;
        }
        if nm.len() < om.len()
            && let Some(removed) = unmatched(om, nm, p)
        {
            d.removed_at = removed;
        } else if om.len() < nm.len()
            && let Some(inserted) = unmatched(nm, om, p)
        {
            d.inserted_at = inserted;
        } else {
            d.removed_at = index_range(p, old_end);
            d.inserted_at = index_range(p, new_end);
        }
        let mut old = old;
        d.held = take_at(&mut old, &d.removed_at);
        d
    }

    /// Goes from the before to the after state.
    fn forward(&mut self, v: &mut Vec<T>) {
        self.swap_changed(v);
        let removed = take_at(v, &self.removed_at);
        put_at(v, &self.inserted_at, std::mem::take(&mut self.held));
        self.held = removed;
    }

    /// Goes from the after to the before state.
    fn backward(&mut self, v: &mut Vec<T>) {
        let inserted = take_at(v, &self.inserted_at);
        put_at(v, &self.removed_at, std::mem::take(&mut self.held));
        self.held = inserted;
        self.swap_changed(v);
    }

    /// What the last move did in index terms: `forward` to the after state,
    /// or back to the before state.
    fn index_change(&self, forward: bool) -> SectionChange<'_> {
        let changed = self.changed.iter().map(|&(i, _)| i).collect();
        if forward {
            SectionChange {
                removed: &self.removed_at,
                inserted: &self.inserted_at,
                changed,
            }
        } else {
            SectionChange {
                removed: &self.inserted_at,
                inserted: &self.removed_at,
                changed,
            }
        }
    }

    fn swap_changed(&mut self, v: &mut [T]) {
        for (i, rec) in &mut self.changed {
            if let Some(slot) = v.get_mut(*i as usize) {
                std::mem::swap(slot, rec);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.removed_at.is_empty() && self.inserted_at.is_empty()
    }

    /// Memory this diff holds.
    pub fn bytes(&self) -> usize {
        let rec = std::mem::size_of::<T>();
        self.changed
            .iter()
            .map(|(_, r)| 4 + rec + r.heap_bytes())
            .sum::<usize>()
            + self
                .held
                .iter()
                .map(|r| rec + r.heap_bytes())
                .sum::<usize>()
            + 4 * (self.removed_at.len() + self.inserted_at.len())
    }
}

/// The fields of a motion outside its sections.
#[derive(Debug, Clone, PartialEq)]
struct Frame {
    header: [u8; super::layout::HEADER_LEN],
    version: super::motion::Version,
    model_name_field: Vec<u8>,
    sections_present: usize,
    trailing: Vec<u8>,
}

impl Frame {
    fn swap_with(&mut self, m: &mut Motion) {
        std::mem::swap(&mut self.header, &mut m.header);
        std::mem::swap(&mut self.version, &mut m.version);
        std::mem::swap(&mut self.model_name_field, &mut m.model_name_field);
        std::mem::swap(&mut self.sections_present, &mut m.sections_present);
        std::mem::swap(&mut self.trailing, &mut m.trailing);
    }
}

/// The difference between two whole motions (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct MotionDiff {
    bones: SectionDiff<BoneKey>,
    morphs: SectionDiff<MorphKey>,
    cameras: SectionDiff<CameraKey>,
    lights: SectionDiff<LightKey>,
    shadows: SectionDiff<ShadowKey>,
    iks: SectionDiff<IkKey>,
    /// Header, model name, section count and trailing bytes, when they
    /// differ: the values not in the motion now.
    frame: Option<Box<Frame>>,
    /// Which state the motion is in.
    at_after: bool,
}

impl MotionDiff {
    /// Replaces `m` with `new` and returns the diff back to the old motion
    /// (in the after state: [`Self::toggle`] undoes the replacement).
    pub fn replace(m: &mut Motion, new: Motion) -> MotionDiff {
        let old = std::mem::replace(m, new);
        let frame = Frame {
            header: old.header,
            version: old.version,
            model_name_field: old.model_name_field,
            sections_present: old.sections_present,
            trailing: old.trailing,
        };
        let same_frame = frame.header == m.header
            && frame.version == m.version
            && frame.model_name_field == m.model_name_field
            && frame.sections_present == m.sections_present
            && frame.trailing == m.trailing;
        MotionDiff {
            bones: SectionDiff::between(old.bones, &m.bones),
            morphs: SectionDiff::between(old.morphs, &m.morphs),
            cameras: SectionDiff::between(old.cameras, &m.cameras),
            lights: SectionDiff::between(old.lights, &m.lights),
            shadows: SectionDiff::between(old.shadows, &m.shadows),
            iks: SectionDiff::between(old.iks, &m.iks),
            frame: (!same_frame).then(|| Box::new(frame)),
            at_after: true,
        }
    }

    /// What the last [`MotionDiff::toggle`] (or [`MotionDiff::replace`]) did,
    /// for [`TrackIndex::update`](super::TrackIndex::update).
    pub fn index_change(&self) -> IndexChange<'_> {
        let f = self.at_after;
        IndexChange {
            bones: self.bones.index_change(f),
            morphs: self.morphs.index_change(f),
            cameras: self.cameras.index_change(f),
            lights: self.lights.index_change(f),
            shadows: self.shadows.index_change(f),
            iks: self.iks.index_change(f),
        }
    }

    /// The bone records the diff holds now: the ones the last move removed
    /// and the values its changed records had before. With the records now
    /// at the last move's inserted and changed indices, these are every
    /// bone record that move touched (what an evaluation cache decodes again).
    pub fn held_bones(&self) -> impl Iterator<Item = &BoneKey> {
        self.bones
            .held
            .iter()
            .chain(self.bones.changed.iter().map(|(_, r)| r))
    }

    /// [`Self::held_bones`] for morph records.
    pub fn held_morphs(&self) -> impl Iterator<Item = &MorphKey> {
        self.morphs
            .held
            .iter()
            .chain(self.morphs.changed.iter().map(|(_, r)| r))
    }

    /// Moves `m` to the other state (after → before, or before → after).
    /// `m` must be in the state this diff was left in.
    pub fn toggle(&mut self, m: &mut Motion) {
        if self.at_after {
            self.bones.backward(&mut m.bones);
            self.morphs.backward(&mut m.morphs);
            self.cameras.backward(&mut m.cameras);
            self.lights.backward(&mut m.lights);
            self.shadows.backward(&mut m.shadows);
            self.iks.backward(&mut m.iks);
        } else {
            self.bones.forward(&mut m.bones);
            self.morphs.forward(&mut m.morphs);
            self.cameras.forward(&mut m.cameras);
            self.lights.forward(&mut m.lights);
            self.shadows.forward(&mut m.shadows);
            self.iks.forward(&mut m.iks);
        }
        if let Some(f) = &mut self.frame {
            f.swap_with(m);
        }
        self.at_after = !self.at_after;
    }

    /// Whether the two states are the same motion.
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
            && self.morphs.is_empty()
            && self.cameras.is_empty()
            && self.lights.is_empty()
            && self.shadows.is_empty()
            && self.iks.is_empty()
            && self.frame.is_none()
    }

    /// Memory this diff holds, in bytes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.bones.bytes()
            + self.morphs.bytes()
            + self.cameras.bytes()
            + self.lights.bytes()
            + self.shadows.bytes()
            + self.iks.bytes()
            + self.frame.as_ref().map_or(0, |f| {
                std::mem::size_of::<Frame>() + f.model_name_field.len() + f.trailing.len()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Record for u32 {
        fn shift(v: &mut [Self], src: Range<usize>, dst: usize) {
            v.copy_within(src, dst);
        }
    }

    /// A record that is not `Copy`: the default, swapping `shift`.
    #[derive(Debug, Clone, PartialEq)]
    struct Owned(Vec<u8>);
    impl Record for Owned {}

    /// Applies `between(old, new)` backward and forward and checks both ends.
    fn round_trip(old: &[u32], new: &[u32]) -> SectionDiff<u32> {
        let mut d = SectionDiff::between(old.to_vec(), new);
        let mut v = new.to_vec();
        d.backward(&mut v);
        assert_eq!(v, old, "back from {new:?}");
        d.forward(&mut v);
        assert_eq!(v, new, "forward to {new:?}");
        d
    }

    #[test]
    fn scattered_removals_are_stored_as_removals() {
        let old: Vec<u32> = (0..100).collect();
        let new: Vec<u32> = old.iter().copied().filter(|x| x % 7 != 3).collect();
        let d = round_trip(&old, &new);
        // 3, 10, …, 94: 14 records; nothing else is held.
        assert_eq!(d.removed_at.len(), 14);
        assert!(d.changed.is_empty() && d.inserted_at.is_empty());
        assert_eq!(d.bytes(), 14 * (4 + 4));
    }

    #[test]
    fn insertions_changes_and_mixed_edits_round_trip() {
        let old: Vec<u32> = (0..50).collect();
        let mut ins = old.clone();
        ins.insert(10, 1000);
        ins.insert(30, 1001);
        ins.push(1002);
        let d = round_trip(&old, &ins);
        assert_eq!(d.inserted_at, vec![10, 30, 52]);
        assert!(d.removed_at.is_empty());
        let mut ch = old.clone();
        ch[5] = 500;
        ch[40] = 400;
        let d = round_trip(&old, &ch);
        assert_eq!(d.changed.len(), 2);
        // Remove one and insert another elsewhere: a replaced range.
        let mut mixed = old.clone();
        mixed.remove(5);
        mixed.insert(20, 999);
        mixed.push(77);
        round_trip(&old, &mixed);
        round_trip(&old, &[]);
        round_trip(&[], &old);
        round_trip(&old, &old);
        // Duplicates: greedy matching still gives a valid script.
        round_trip(&[1, 1, 2, 1, 1], &[1, 2, 1]);
        round_trip(&[1, 2, 1], &[1, 1, 2, 1, 1]);
    }

    proptest::proptest! {
        /// Any two lists (small values, so duplicates are common): back and
        /// forth gives each list exactly.
        #[test]
        fn any_edit_round_trips(
            old in proptest::collection::vec(0u32..6, 0..40),
            new in proptest::collection::vec(0u32..6, 0..40),
        ) {
            let mut d = SectionDiff::between(old.clone(), &new);
            let mut v = new.clone();
            d.backward(&mut v);
            proptest::prop_assert_eq!(&v, &old);
            d.forward(&mut v);
            proptest::prop_assert_eq!(&v, &new);
            d.backward(&mut v);
            proptest::prop_assert_eq!(&v, &old);
        }

        /// The same with records that are not `Copy` (the swapping path).
        #[test]
        fn any_edit_round_trips_with_owned_records(
            old in proptest::collection::vec(0u8..6, 0..40),
            new in proptest::collection::vec(0u8..6, 0..40),
        ) {
            let own = |l: &[u8]| l.iter().map(|&x| Owned(vec![x])).collect::<Vec<_>>();
            let (old, new) = (own(&old), own(&new));
            let mut d = SectionDiff::between(old.clone(), &new);
            let mut v = new.clone();
            d.backward(&mut v);
            proptest::prop_assert_eq!(&v, &old);
            d.forward(&mut v);
            proptest::prop_assert_eq!(&v, &new);
        }
    }

    /// The block moves against a plain insert/remove written here, on
    /// scattered indices (both paths).
    #[test]
    fn take_and_put_match_vec_insert_and_remove() {
        let base: Vec<u32> = (0..200).collect();
        let at: Vec<u32> = (0..200).filter(|i| i % 7 == 2 || i % 11 == 0).collect();
        let mut v = base.clone();
        let removed = take_at(&mut v, &at);
        let mut expect = base.clone();
        for &i in at.iter().rev() {
            expect.remove(i as usize);
        }
        assert_eq!(v, expect);
        assert_eq!(removed, at, "the records removed, in order");
        put_at(&mut v, &at, removed);
        assert_eq!(v, base);
        let mut o: Vec<Owned> = base.iter().map(|&x| Owned(vec![x as u8])).collect();
        let orig = o.clone();
        let removed = take_at(&mut o, &at);
        assert_eq!(o.len(), 200 - at.len());
        put_at(&mut o, &at, removed);
        assert_eq!(o, orig);
    }

    #[test]
    fn put_at_places_items_at_result_indices() {
        let mut v = vec![10, 20, 30];
        put_at(&mut v, &[0, 2, 4, 5], vec![1, 2, 3, 4]);
        assert_eq!(v, vec![1, 10, 2, 20, 3, 4, 30]);
        let mut v = vec![10, 20];
        put_at(&mut v, &[2, 3], vec![30, 40]);
        assert_eq!(v, vec![10, 20, 30, 40]);
        let mut v = vec![10, 20];
        put_at(&mut v, &[0, 1], vec![1, 2]);
        assert_eq!(v, vec![1, 2, 10, 20]);
    }
}
