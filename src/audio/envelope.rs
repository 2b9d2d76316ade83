//! The waveform's min/max envelope as a pyramid of precomputed levels, so a
//! lane of any width and zoom is drawn in time proportional to its width.
//!
//! Level 0 holds the min and max of every block of [`BASE_BLOCK`] sample
//! positions (over all channels); level `l + 1` merges pairs of level `l`.
//! Only whole blocks are stored. A query for the sample range `[a, b)`
//! walks the levels like a bottom-up segment tree and reads the few raw
//! samples at the two ragged ends, so its answer is the *exact* min and max
//! of the samples in the range, at any zoom, in O(log n + BASE_BLOCK).

use super::pcm::Pcm;

/// Samples per level-0 block.
pub const BASE_BLOCK: usize = 16;

/// A lane column this many samples wide or wider is drawn from whole
/// blocks, its ends rounded to the nearest block boundary (see
/// [`Envelope::columns`]).
pub const COARSE_COLUMN: usize = 256;

/// Smallest and largest sample in a range. `min <= max` always.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinMax {
    pub min: i16,
    pub max: i16,
}

impl MinMax {
    const EMPTY: MinMax = MinMax {
        min: i16::MAX,
        max: i16::MIN,
    };

    fn merge(self, o: MinMax) -> MinMax {
        MinMax {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    fn is_empty(&self) -> bool {
        self.min > self.max
    }
}

/// The pyramid. Built once per song.
#[derive(Debug, Clone, Default)]
pub struct Envelope {
    levels: Vec<Vec<MinMax>>,
}

impl Envelope {
    /// Builds every level from the song's samples.
    pub fn build(pcm: &Pcm) -> Envelope {
        let c = usize::from(pcm.channels());
        let blocks = pcm.len() / BASE_BLOCK;
        let mut level0 = Vec::with_capacity(blocks);
        for block in pcm.interleaved().chunks_exact(BASE_BLOCK * c).take(blocks) {
            let mut mm = MinMax::EMPTY;
            for &s in block {
                mm.min = mm.min.min(s);
                mm.max = mm.max.max(s);
            }
            level0.push(mm);
        }
        let mut levels = vec![level0];
        while let Some(last) = levels.last()
            && last.len() >= 2
        {
            let next: Vec<MinMax> = last.chunks_exact(2).map(|p| p[0].merge(p[1])).collect();
            levels.push(next);
        }
        Envelope { levels }
    }

    /// Number of levels.
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.levels.iter().map(|l| l.len()).sum::<usize>() * std::mem::size_of::<MinMax>()
    }

    /// Exact min/max of sample positions `[a, b)` (clipped to the song);
    /// `None` when the clipped range is empty.
    pub fn range(&self, pcm: &Pcm, a: usize, b: usize) -> Option<MinMax> {
        let b = b.min(pcm.len());
        if a >= b {
            return None;
        }
        let mut acc = MinMax::EMPTY;
        let raw = |acc: &mut MinMax, from: usize, to: usize| raw(pcm, acc, from, to);
        // Whole level-0 blocks inside [a, b); no stored block reaches past
        // the last whole block, so the tail beyond it is read raw.
        let stored_end = self.levels.first().map_or(0, |l| l.len()) * BASE_BLOCK;
        let a_blk = a.div_ceil(BASE_BLOCK) * BASE_BLOCK;
        let b_blk = (b / BASE_BLOCK * BASE_BLOCK).min(stored_end);
        if a_blk >= b_blk {
            raw(&mut acc, a, b);
        } else {
            raw(&mut acc, a, a_blk);
            raw(&mut acc, b_blk, b);
            let (mut lo, mut hi) = (a_blk / BASE_BLOCK, b_blk / BASE_BLOCK);
            for level in &self.levels {
                if lo >= hi {
                    break;
                }
                if lo % 2 == 1 {
                    acc = acc.merge(level[lo]);
                    lo += 1;
                }
                if hi % 2 == 1 {
                    hi -= 1;
                    acc = acc.merge(level[hi]);
                }
                lo /= 2;
                hi /= 2;
            }
        }
        (!acc.is_empty()).then_some(acc)
    }

    /// Fills one entry per pixel column: column `c` covers sample positions
    /// `[floor(start + c·spc), floor(start + (c+1)·spc))` (at least one
    /// position), where `start` is the fractional sample position at the
    /// column's left edge and `spc` the samples per column (> 0): its exact
    /// min and max, except that a column of [`COARSE_COLUMN`] samples or
    /// more has its ends rounded to the nearest 16-sample block (≤ 8
    /// samples, invisible at that zoom). Columns outside the song get `None`.
    pub fn columns(
        &self,
        pcm: &Pcm,
        start: f64,
        samples_per_column: f64,
        out: &mut [Option<MinMax>],
    ) {
        let spc = if samples_per_column.is_finite() && samples_per_column > 0.0 {
            samples_per_column
        } else {
            1.0
        };
        let len = pcm.len() as f64;
        for (c, slot) in out.iter_mut().enumerate() {
            let x0 = (start + c as f64 * spc).floor();
            let x1 = (start + (c + 1) as f64 * spc).floor().max(x0 + 1.0);
            *slot = if x1 <= 0.0 || x0 >= len {
                None
            } else {
                self.column(pcm, x0.max(0.0) as usize, x1.min(len) as usize)
            };
        }
    }

    /// [`Envelope::range`] as a lane's columns need it: the same exact min
    /// and max, read from level 0 at the two ends of the whole blocks and
    /// from one coarser level in between (a few dozen entries per column),
    /// so that neighbouring columns read neighbouring entries and the levels
    /// in between are not touched. At fit-all, a 5-minute song's 1920
    /// columns each missed the cache once per level with the tree walk; here
    /// they stream through two arrays.
    ///
    /// A column of [`COARSE_COLUMN`] samples or more is rounded to the
    /// nearest block boundaries (at most `BASE_BLOCK / 2` = 8 samples at each
    /// end, under 1/32 of the column): the raw samples at its ends are then
    /// not read, and those reads — far apart in a long song, a cache and TLB
    /// miss each — were most of the time at fit-all. The last column still
    /// reads the song's tail past the last whole block.
    fn column(&self, pcm: &Pcm, a: usize, b: usize) -> Option<MinMax> {
        let b = b.min(pcm.len());
        let Some(level0) = self.levels.first() else {
            return self.range(pcm, a, b);
        };
        let stored_end = level0.len() * BASE_BLOCK;
        let coarse = b.saturating_sub(a) >= COARSE_COLUMN;
        let round = |x: usize| (x + BASE_BLOCK / 2) / BASE_BLOCK * BASE_BLOCK;
        let (a_blk, b_blk) = if coarse {
            (round(a), round(b).min(stored_end))
        } else {
            (
                a.div_ceil(BASE_BLOCK) * BASE_BLOCK,
                (b / BASE_BLOCK * BASE_BLOCK).min(stored_end),
            )
        };
        if a >= b || a_blk >= b_blk {
            return self.range(pcm, a, b);
        }
        let mut acc = MinMax::EMPTY;
        if coarse {
            raw(pcm, &mut acc, stored_end.max(a), b);
        } else {
            raw(pcm, &mut acc, a, a_blk);
            raw(pcm, &mut acc, b_blk, b);
        }
        let (lo, hi) = (a_blk / BASE_BLOCK, b_blk / BASE_BLOCK);
        // The coarse level: blocks of about 1/32 of the column.
        let l = ((hi - lo) / 32).max(1).ilog2() as usize;
        let l = l.min(self.levels.len() - 1);
        let (lo_l, hi_l) = (lo.div_ceil(1 << l), hi >> l);
        let merge = |acc: MinMax, part: &[MinMax]| part.iter().fold(acc, |m, &x| m.merge(x));
        if l == 0 || lo_l >= hi_l {
            acc = merge(acc, &level0[lo..hi]);
        } else {
            acc = merge(acc, &level0[lo..lo_l << l]);
            acc = merge(acc, &self.levels[l][lo_l..hi_l]);
            acc = merge(acc, &level0[hi_l << l..hi]);
        }
        (!acc.is_empty()).then_some(acc)
    }
}

/// Merges the raw samples at positions `[from, to)` into `acc`.
fn raw(pcm: &Pcm, acc: &mut MinMax, from: usize, to: usize) {
    for i in from..to {
        if let Some((lo, hi)) = pcm.min_max(i) {
            acc.min = acc.min.min(lo);
            acc.max = acc.max.max(hi);
        }
    }
}
