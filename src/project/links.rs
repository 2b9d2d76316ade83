//! Keys as MMD stores them → ordered lists. Each track starts at its
//! initial key; each key's `next` names the id of the following pool
//! record (`0`: the list ends). The list is followed from the initial key
//! only: pool records no list reaches (left over from edits in MMD) are
//! counted and ignored. A link to no record, a link back into a list
//! (a cycle, or two lists sharing a record) or a frame that is not later
//! than the one before ends the list with a warning. Every record is taken
//! at most once, so following never loops.
//!
//! `prev` is not used (MikuMikuMethods and nanoem do not read it either;
//! mmd-anim `collect_bone_keyframe_chain` checks it).

use super::document::{KeyPool, Record};
use super::error::{Warning, WarningKind};

/// Where a key of an ordered list lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAt {
    Initial(usize),
    Pool(usize),
}

impl<T> KeyPool<T> {
    /// The record at `at`, if there is one.
    pub fn get(&self, at: KeyAt) -> Option<&Record<T>> {
        match at {
            KeyAt::Initial(i) => self.initial.get(i),
            KeyAt::Pool(i) => self.pool.get(i),
        }
    }
}

/// The ordered lists of a pool: one per initial key, frames strictly
/// increasing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lists {
    pub lists: Vec<Vec<KeyAt>>,
    /// Pool records no list reaches.
    pub unreached: usize,
    pub warnings: Vec<Warning>,
}

impl Lists {
    /// Keys in all lists.
    pub fn key_count(&self) -> usize {
        self.lists.iter().map(Vec::len).sum()
    }
}

/// Follows every list of `keys`; `track(i)` names initial key `i`'s
/// track for warnings ("model 0 bone センター").
pub fn follow<T>(keys: &KeyPool<T>, track: impl Fn(usize) -> String) -> Lists {
    let mut warnings = Vec::new();
    // Pool ids, sorted, for lookup by binary search (ids are any i32).
    let mut by_id: Vec<(i32, usize)> = keys
        .pool
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id, i))
        .collect();
    by_id.sort_unstable();
    let mut dedup: Vec<(i32, usize)> = Vec::with_capacity(by_id.len());
    for (id, i) in by_id {
        match dedup.last() {
            Some(&(last, _)) if last == id => warnings.push(Warning {
                offset: keys.pool[i].offset,
                kind: WarningKind::DuplicateId {
                    track: track(0),
                    id,
                },
            }),
            _ => dedup.push((id, i)),
        }
    }
    let index = IdIndex::new(dedup);
    let mut taken = vec![false; keys.pool.len()];
    let mut reached = 0usize;
    let mut lists = Vec::with_capacity(keys.initial.len());
    for (i, first) in keys.initial.iter().enumerate() {
        let mut list = vec![KeyAt::Initial(i)];
        let mut last: &Record<T> = first;
        while last.next != 0 {
            let next = last.next;
            let Some(j) = index.get(next) else {
                warnings.push(Warning {
                    offset: last.offset,
                    kind: WarningKind::LinkOutOfRange {
                        track: track(i),
                        next,
                    },
                });
                break;
            };
            if taken[j] {
                warnings.push(Warning {
                    offset: last.offset,
                    kind: WarningKind::LinkCycle {
                        track: track(i),
                        next,
                    },
                });
                break;
            }
            let r = &keys.pool[j];
            if r.frame <= last.frame {
                warnings.push(Warning {
                    offset: r.offset,
                    kind: WarningKind::FrameNotIncreasing {
                        track: track(i),
                        from: last.frame,
                        to: r.frame,
                    },
                });
                break;
            }
            taken[j] = true;
            reached += 1;
            list.push(KeyAt::Pool(j));
            last = r;
        }
        lists.push(list);
    }
    Lists {
        lists,
        unreached: keys.pool.len() - reached,
        warnings,
    }
}

/// Pool records by id: a table indexed by `id - min` when the ids are
/// compact (MMD numbers its records densely), else a sorted list searched
/// by halves (ids can be any i32 in a hostile file). Built from ids that
/// are sorted and unique.
enum IdIndex {
    Table { min: i32, slots: Vec<u32> },
    Sorted(Vec<(i32, usize)>),
}

impl IdIndex {
    fn new(sorted: Vec<(i32, usize)>) -> IdIndex {
        let (Some(&(min, _)), Some(&(max, _))) = (sorted.first(), sorted.last()) else {
            return IdIndex::Sorted(sorted);
        };
        let span = i64::from(max) - i64::from(min) + 1;
        // Compact: at most 4 slots per record (and every index fits u32).
        if span > 4 * sorted.len() as i64 + 64 || sorted.len() >= u32::MAX as usize {
            return IdIndex::Sorted(sorted);
        }
        let mut slots = vec![u32::MAX; span as usize];
        for (id, i) in sorted {
            slots[(i64::from(id) - i64::from(min)) as usize] = i as u32;
        }
        IdIndex::Table { min, slots }
    }

    /// The pool index of the record with `id`.
    fn get(&self, id: i32) -> Option<usize> {
        match self {
            IdIndex::Table { min, slots } => {
                let at = usize::try_from(i64::from(id) - i64::from(*min)).ok()?;
                slots
                    .get(at)
                    .filter(|&&s| s != u32::MAX)
                    .map(|&s| s as usize)
            }
            IdIndex::Sorted(v) => v
                .binary_search_by_key(&id, |&(x, _)| x)
                .ok()
                .map(|k| v[k].1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: i32, frame: i32, next: i32) -> Record<()> {
        Record {
            id,
            frame,
            prev: 0,
            next,
            selected: false,
            value: (),
            offset: 100 + id as usize,
        }
    }

    /// Ids far apart (a hostile or odd file) are followed as compact ones
    /// are: the chain 0 → 2_000_000_000 → 7 → 1_500_000_000, by hand.
    #[test]
    fn sparse_ids_are_followed_too() {
        let keys = KeyPool {
            initial: vec![rec(0, 0, 2_000_000_000)],
            pool: vec![
                rec(1_500_000_000, 30, 0),
                rec(7, 20, 1_500_000_000),
                rec(2_000_000_000, 10, 7),
            ],
        };
        let l = follow(&keys, |i| format!("t{i}"));
        assert_eq!(
            l.lists,
            vec![vec![
                KeyAt::Initial(0),
                KeyAt::Pool(2),
                KeyAt::Pool(1),
                KeyAt::Pool(0)
            ]]
        );
        assert!(l.warnings.is_empty());
    }

    #[test]
    fn lists_follow_ids_not_file_order_and_skip_stale_records() {
        // Two tracks (ids 0, 1). Pool in file order: id 5 (track 0, frame
        // 20), id 3 (stale: no list reaches it), id 4 (track 0, frame 10),
        // id 6 (track 1, frame 7).
        let keys = KeyPool {
            initial: vec![rec(0, 0, 4), rec(1, 0, 6)],
            pool: vec![rec(5, 20, 0), rec(3, 99, 0), rec(4, 10, 5), rec(6, 7, 0)],
        };
        let l = follow(&keys, |i| format!("t{i}"));
        assert_eq!(
            l.lists,
            vec![
                vec![KeyAt::Initial(0), KeyAt::Pool(2), KeyAt::Pool(0)],
                vec![KeyAt::Initial(1), KeyAt::Pool(3)],
            ]
        );
        assert_eq!(l.unreached, 1);
        assert!(l.warnings.is_empty());
    }

    #[test]
    fn a_cycle_a_dangling_link_and_a_backward_frame_each_end_their_list() {
        let keys = KeyPool {
            // track 0: 0 → 10 → 11 → 10 (cycle); track 1: 1 → 42 (none);
            // track 2: 2 → 12 (frame 5) → 13 (frame 5: not later).
            initial: vec![rec(0, 0, 10), rec(1, 0, 42), rec(2, 0, 12)],
            pool: vec![
                rec(10, 1, 11),
                rec(11, 2, 10),
                rec(12, 5, 13),
                rec(13, 5, 0),
            ],
        };
        let l = follow(&keys, |i| format!("t{i}"));
        assert_eq!(
            l.lists[0],
            vec![KeyAt::Initial(0), KeyAt::Pool(0), KeyAt::Pool(1)]
        );
        assert_eq!(l.lists[1], vec![KeyAt::Initial(1)]);
        assert_eq!(l.lists[2], vec![KeyAt::Initial(2), KeyAt::Pool(2)]);
        assert_eq!(l.unreached, 1);
        let kinds: Vec<_> = l.warnings.iter().map(|w| w.kind.clone()).collect();
        assert_eq!(
            kinds,
            vec![
                WarningKind::LinkCycle {
                    track: "t0".into(),
                    next: 10
                },
                WarningKind::LinkOutOfRange {
                    track: "t1".into(),
                    next: 42
                },
                WarningKind::FrameNotIncreasing {
                    track: "t2".into(),
                    from: 5,
                    to: 5
                },
            ]
        );
    }

    #[test]
    fn a_self_link_ends_at_once() {
        let keys = KeyPool {
            initial: vec![rec(0, 0, 7)],
            pool: vec![rec(7, 3, 7)],
        };
        let l = follow(&keys, |_| "t".into());
        assert_eq!(l.lists[0].len(), 2);
        assert_eq!(l.warnings.len(), 1);
    }
}
