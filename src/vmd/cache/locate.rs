//! Where a frame falls in a track's sorted, distinct key frames.
//!
//! A binary search costs a chain of dependent loads and compares (a dance
//! track of 200 keys: 8 of them); tracks of real dances are keyed unevenly
//! (dense runs, long holds), so guessing from the average spacing misses
//! often. A [`Locator`] is a bucket table over the track's frame range:
//! bucket b (frames `first + b·2^shift ..`) stores the last key at or before
//! its first frame, with at most 4 buckets per key (at least 64 in all), so
//! a lookup is one table read and a step or two forward; a bucket holding
//! many keys (a dense run inside a wide bucket) is binary-searched within
//! the bucket only.

/// Where a frame falls in a track's deduplicated frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Loc {
    Empty,
    Hold(u32),
    /// Strictly inside segment i (key i → key i + 1).
    Between(u32),
}

/// The reference: a plain binary search.
#[inline]
pub(super) fn locate(frames: &[u32], frame: f64) -> Loc {
    if frames.is_empty() {
        return Loc::Empty;
    }
    let after = frames.partition_point(|&f| f64::from(f) <= frame);
    if after == 0 {
        Loc::Hold(0)
    } else if after == frames.len() || f64::from(frames[after - 1]) == frame {
        Loc::Hold((after - 1) as u32)
    } else {
        Loc::Between((after - 1) as u32)
    }
}

/// Keys walked forward from a bucket's start before binary-searching.
const WALK: usize = 3;

/// Bucket table of one track (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Locator {
    /// `start[b]`: index of the last key at or before frame `first + (b << shift)`
    /// (empty for fewer than two keys).
    start: Box<[u32]>,
    shift: u32,
    /// The first and last key frames (kept here so that a lookup reads
    /// neither end of the frames).
    first: u32,
    last: u32,
}

impl Locator {
    pub(super) fn new(frames: &[u32]) -> Locator {
        let n = frames.len();
        let (Some(&first), Some(&last)) = (frames.first(), frames.last()) else {
            return Locator::default();
        };
        if n < 2 {
            return Locator::default();
        }
        let span = u64::from(last.saturating_sub(first));
        let most = (4 * n as u64).max(64);
        let mut shift = 0u32;
        while (span >> shift) + 1 > most {
            shift += 1;
        }
        let buckets = (span >> shift) + 1;
        let mut start = Vec::with_capacity(buckets as usize);
        let mut i = 0usize;
        for b in 0..buckets {
            let f = u64::from(first) + (b << shift);
            while i + 1 < n && u64::from(frames[i + 1]) <= f {
                i += 1;
            }
            start.push(i as u32);
        }
        Locator {
            start: start.into_boxed_slice(),
            shift,
            first,
            last,
        }
    }

    /// [`locate`] through the table. `frames` must be what the table was
    /// made from.
    #[inline(always)]
    pub(super) fn locate(&self, frames: &[u32], frame: f64) -> Loc {
        if self.start.is_empty() {
            return locate(frames, frame);
        }
        let n = frames.len();
        let (first, last) = (f64::from(self.first), f64::from(self.last));
        // At or before the first key (or NaN): hold the first; from the last on, the last.
        if frame.is_nan() || frame <= first {
            return Loc::Hold(0);
        }
        if frame >= last {
            return Loc::Hold((n - 1) as u32);
        }
        // Now n ≥ 2 and first < frame < last ≤ u32::MAX.
        let bucket = ((frame - first) as u64 >> self.shift) as usize;
        let Some(&s) = self.start.get(bucket) else {
            return locate(frames, frame);
        };
        let mut i = s as usize;
        // frames[i] ≤ frame < frames[n − 1]: every walk below stays inside.
        let mut steps = 0;
        while i + 1 < n && f64::from(frames[i + 1]) <= frame {
            i += 1;
            steps += 1;
            if steps == WALK {
                // A dense bucket: the key is at most the next bucket's start.
                let end = self
                    .start
                    .get(bucket + 1)
                    .map_or(n - 1, |&e| (e as usize).min(n - 1))
                    .max(i);
                let within = frames[i..=end].partition_point(|&f| f64::from(f) <= frame);
                i += within.saturating_sub(1);
                break;
            }
        }
        if f64::from(frames[i]) == frame {
            Loc::Hold(i as u32)
        } else {
            Loc::Between(i as u32)
        }
    }

    /// [`Self::locate`] starting from a remembered segment: for frames in
    /// the same or the next segment no search is needed.
    #[inline(always)]
    pub(super) fn locate_from(&self, frames: &[u32], frame: f64, hint: &mut u32) -> Loc {
        let i = *hint as usize;
        let inside = |i: usize| {
            i + 1 < frames.len() && f64::from(frames[i]) < frame && frame < f64::from(frames[i + 1])
        };
        let loc = if inside(i) {
            Loc::Between(i as u32)
        } else if inside(i + 1) {
            Loc::Between(i as u32 + 1)
        } else {
            self.locate(frames, frame)
        };
        if let Loc::Between(i) | Loc::Hold(i) = loc {
            *hint = i;
        }
        loc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_table_finds_what_the_binary_search_finds() {
        let dense: Vec<u32> = (0..300).chain([5000, 5001, 9000]).collect();
        let sparse_then_dense: Vec<u32> = [0, 4000].into_iter().chain(4001..4400).collect();
        let huge: Vec<u32> = vec![0, 7, u32::MAX - 5, u32::MAX];
        let tracks: [&[u32]; 9] = [
            &[],
            &[5],
            &[0, 10],
            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            // Uneven: a dense run, then a long gap.
            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 500, 501, 1000],
            &[3, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 4000],
            &dense,
            &sparse_then_dense,
            &huge,
        ];
        for frames in tracks {
            let loc = Locator::new(frames);
            assert!(loc.start.len() <= (4 * frames.len()).max(64), "{frames:?}");
            let mut hint = 0;
            let probes = (-20..9100).map(f64::from).chain(
                [u32::MAX - 6, u32::MAX - 5, u32::MAX - 1, u32::MAX]
                    .into_iter()
                    .map(f64::from),
            );
            for base in probes {
                for frac in [0.0, 0.25, 0.999] {
                    let f = base + frac;
                    let want = locate(frames, f);
                    assert_eq!(loc.locate(frames, f), want, "{frames:?} at {f}");
                    assert_eq!(loc.locate_from(frames, f, &mut hint), want, "at {f}");
                }
            }
            for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300] {
                assert_eq!(loc.locate(frames, f), locate(frames, f), "{f}");
            }
        }
    }
}
