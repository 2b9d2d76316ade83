//! Solving x(t) = x for the eased curves of an [`super::EvalCache`].
//!
//! A curve's x(t) depends only on its (x1, x2) pair, so the cache keeps one
//! solver per distinct pair (at most 128 × 128) and every eased channel
//! points at its solver by id. A solver splits x ∈ [0, 1] into 32 equal
//! intervals and stores, per interval (one cache line), t(x) as a cubic (the Hermite cubic
//! through the exact t and dt/dx at both ends). Where x(t) is steep enough
//! (its slope stays above [`MIN_SLOPE`] over the interval) the cubic plus one
//! Newton step gives t to far better than the tolerance — checked when the
//! solver is made, at probes inside every interval against the exact root —
//! with no loop and no branch. The few intervals where x(t) flattens out (an
//! end with x1 = 0 or x2 = 127, or an interior double root) are marked slow
//! and use the safeguarded Newton solver, bracketed by the exact t at the
//! interval's ends.

use super::super::bezier::{Curve, XCubic};

/// Marks a linear channel (no solver).
pub(super) const LINEAR: u16 = u16::MAX;
/// Intervals of a solver's table.
const INTERVALS: usize = 32;
/// An interval is fast only when x'(t) ≥ this over all of it, so that one
/// Newton step (error ≈ |x''| / (2·x') · e², |x''| ≤ 12) squares the cubic's
/// error.
const MIN_SLOPE: f64 = 0.02;
/// Probes (fractions of an interval) where a fast interval's result is
/// checked against the exact root when the solver is made.
const PROBES: [f64; 6] = [0.02, 0.2, 0.4, 0.6, 0.8, 0.98];
/// How far a fast interval's t may be from the exact root at a probe. The
/// weight's slope in t is at most 3 and the tests demand 1e-6 of the weight:
/// this leaves a margin of 300.
const FAST_CHECK: f64 = 1e-9;
/// The safeguarded solver stops once its step in t is below this (in a slow
/// interval convergence can be linear with ratio ≤ 2/3, so t is then within
/// 2e-8, the weight within 6e-8).
const SLOW_TOLERANCE: f64 = 1e-8;

/// Interval k of one solver: everything the fast path reads, in one cache line.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
pub(super) struct Interval {
    /// t as a cubic in u = 32·x − k ∈ [0, 1]: `p[0] + u·(p[1] + u·(p[2] + u·p[3]))`
    /// (in a slow interval: the straight line between the exact ends).
    p: [f64; 4],
    /// x(t).
    x: XCubic,
    /// Needs the safeguarded solver.
    slow: bool,
}

impl Interval {
    /// The cubic's t at u, then one Newton step whose 1 / x'(t) is the
    /// cubic's own dt/dx (no division; the cubic's slope is within a tiny
    /// relative error of the true one, so the step still squares the error
    /// — and the build checks the result).
    #[inline]
    fn fast(&self, u: f64, x: f64) -> f64 {
        let p = &self.p;
        let t = p[0] + u * (p[1] + u * (p[2] + u * p[3]));
        let dt_du = p[1] + u * (2.0 * p[2] + 3.0 * u * p[3]);
        let fx = self.x.at(t) - x;
        (t - fx * dt_du * INTERVALS as f64).clamp(0.0, 1.0)
    }

    #[cold]
    #[inline(never)]
    fn slow_t(&self, nodes: &[f64; INTERVALS + 1], k: usize, u: f64, x: f64) -> f64 {
        let (lo, hi) = (nodes[k], nodes[k + 1]);
        self.x
            .solve_bracketed(x, lo, hi, lo + (hi - lo) * u, SLOW_TOLERANCE)
    }
}

/// The 32 intervals of one (x1, x2) pair, and the exact t at x = k / 32.
fn make_solver(x1: u8, x2: u8) -> ([Interval; INTERVALS], [f64; INTERVALS + 1]) {
    let ux1 = f64::from(x1.min(127)) / 127.0;
    let ux2 = f64::from(x2.min(127)) / 127.0;
    let cubic = XCubic::new(ux1, ux2);
    let plain = Interval {
        p: [0.0; 4],
        x: cubic,
        slow: true,
    };
    // Solved from the whole of [0, 1] starting at its middle, as the raw
    // path starts at t = x: on a flat spot (x1 = 127, x2 = 0 at x = 1/2) the
    // root is ill-conditioned (x(t) − x ≈ 4(t − ½)³, so 1e-16 in x is 6e-6 in
    // t), and the two must land on the same t there.
    let mut nodes = [0.0f64; INTERVALS + 1];
    for (k, n) in nodes.iter_mut().enumerate() {
        *n = cubic.solve_bracketed(k as f64 / INTERVALS as f64, 0.0, 1.0, 0.5, 1e-14);
    }
    let h = 1.0 / INTERVALS as f64;
    let intervals = std::array::from_fn(|k| {
        let (t0, t1) = (nodes[k], nodes[k + 1]);
        let (s0, s1) = (cubic.slope(t0), cubic.slope(t1));
        // x' = 3a·t² + 2b·t + c: its least value over [t0, t1] is at an
        // end, or at the vertex when the parabola opens upwards.
        let mut least = s0.min(s1);
        if cubic.a > 0.0 {
            let v = -cubic.b / (3.0 * cubic.a);
            if v > t0 && v < t1 {
                least = least.min(cubic.slope(v));
            }
        }
        if least >= MIN_SLOPE {
            // Hermite: t(0) = t0, t(1) = t1, t'(0) = h / x'(t0), t'(1) = h / x'(t1).
            let (d0, d1) = (h / s0, h / s1);
            let fast = Interval {
                p: [
                    t0,
                    d0,
                    3.0 * (t1 - t0) - 2.0 * d0 - d1,
                    2.0 * (t0 - t1) + d0 + d1,
                ],
                slow: false,
                ..plain
            };
            let ok = PROBES.iter().all(|&u| {
                let x = (k as f64 + u) * h;
                let t = fast.fast(u, x);
                // Newton from the fast result converges at once where it is good.
                let exact = cubic.solve_bracketed(x, t0, t1, t.clamp(t0, t1), 1e-14);
                (t - exact).abs() <= FAST_CHECK
            });
            if ok {
                return fast;
            }
        }
        Interval {
            p: [t0, t1 - t0, 0.0, 0.0],
            ..plain
        }
    });
    (intervals, nodes)
}

/// Distinct solvers of a cache, looked up by (x1, x2). Solver `id` owns
/// `intervals[32·id .. 32·id + 32]`.
#[derive(Debug, Clone, Default)]
pub(super) struct Solvers {
    intervals: Vec<Interval>,
    nodes: Vec<[f64; INTERVALS + 1]>,
    /// The (x1, x2) pair of each solver (clamped to 127).
    pub(super) pairs: Vec<(u8, u8)>,
    /// Solver id by `x1 · 128 + x2` ([`LINEAR`] where none was made yet):
    /// a direct table (32 KB), so that building a cache of a million keys
    /// does not hash four curves per key.
    by_pair: Vec<u16>,
}

/// The eased part of a segment: per channel a solver id ([`LINEAR`] for a
/// straight channel) and the curve's y1, y2 in 0..1.
#[derive(Debug, Clone, Copy)]
pub(super) struct Eased {
    pub(super) solver: [u16; 4],
    pub(super) y: [[f32; 2]; 4],
}

impl Eased {
    /// All four channels straight (what a linear segment of an eased track holds).
    pub(super) const NONE: Eased = Eased {
        solver: [LINEAR; 4],
        y: [[0.0; 2]; 4],
    };
}

impl PartialEq for Eased {
    /// Solver ids depend on the order the cache met curves in: compare the
    /// control points and linear flags instead (the curves are compared
    /// beside).
    fn eq(&self, o: &Self) -> bool {
        (0..4).all(|c| {
            (self.solver[c] == LINEAR) == (o.solver[c] == LINEAR)
                && self.y[c][0].to_bits() == o.y[c][0].to_bits()
                && self.y[c][1].to_bits() == o.y[c][1].to_bits()
        })
    }
}

impl Solvers {
    /// The solver id of `curve`, or [`LINEAR`].
    pub(super) fn id(&mut self, curve: Curve) -> u16 {
        if curve.is_linear() {
            return LINEAR;
        }
        let (x1, x2) = (curve.x1.min(127), curve.x2.min(127));
        let key = usize::from(x1) * 128 + usize::from(x2);
        if self.by_pair.is_empty() {
            self.by_pair = vec![LINEAR; 128 * 128];
        }
        match self.by_pair.get(key) {
            Some(&id) if id != LINEAR => id,
            _ => {
                let (intervals, nodes) = make_solver(x1, x2);
                self.intervals.extend_from_slice(&intervals);
                self.nodes.push(nodes);
                self.pairs.push((x1, x2));
                // At most 128 × 128 = 16384 pairs: ids fit below LINEAR.
                let id = (self.pairs.len() - 1) as u16;
                if let Some(slot) = self.by_pair.get_mut(key) {
                    *slot = id;
                }
                id
            }
        }
    }

    /// The eased part of a segment with these curves, or `None` when all
    /// four are straight lines.
    pub(super) fn eased(&mut self, curves: [Curve; 4]) -> Option<Eased> {
        if curves.iter().all(Curve::is_linear) {
            return None;
        }
        let unit = |v: u8| f32::from(v.min(127)) / 127.0;
        Some(Eased {
            solver: curves.map(|c| self.id(c)),
            y: curves.map(|c| [unit(c.y1), unit(c.y2)]),
        })
    }

    /// Weights of four channels at time fraction `x` in (0, 1).
    #[inline]
    pub(super) fn weights(&self, e: &Eased, x: f64) -> [f64; 4] {
        let u = x * INTERVALS as f64;
        let k = (u as usize).min(INTERVALS - 1);
        let u = u - k as f64;
        std::array::from_fn(|ch| {
            let id = usize::from(e.solver[ch]);
            // LINEAR (or an id this cache does not have) reads nothing.
            let Some(iv) = self.intervals.get(id * INTERVALS + k) else {
                return x;
            };
            let t = if iv.slow {
                match self.nodes.get(id) {
                    Some(nodes) => iv.slow_t(nodes, k, u, x),
                    None => return x,
                }
            } else {
                iv.fast(u, x)
            };
            let [y1, y2] = e.y[ch].map(f64::from);
            let v = 1.0 - t;
            3.0 * v * t * (v * y1 + t * y2) + t * t * t
        })
    }

    /// How many of the 32 intervals of solver `id` take the safeguarded path.
    fn slow_intervals(&self, id: u16) -> u32 {
        let at = usize::from(id) * INTERVALS;
        self.intervals
            .get(at..at + INTERVALS)
            .map_or(0, |s| s.iter().filter(|i| i.slow).count() as u32)
    }
}

/// Four curves prepared the way a cached segment holds them: the fast
/// solver on its own, for benchmarks and tests.
#[derive(Debug, Clone)]
pub struct PreparedCurves {
    solvers: Solvers,
    eased: Option<Eased>,
}

impl PreparedCurves {
    pub fn new(curves: [Curve; 4]) -> PreparedCurves {
        let mut solvers = Solvers::default();
        let eased = solvers.eased(curves);
        PreparedCurves { solvers, eased }
    }

    /// The four weights at time fraction `x` (clamped to 0..1), as the cache
    /// computes them: within 1e-6 of [`Curve::weights`].
    pub fn weights(&self, x: f64) -> [f64; 4] {
        let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
        match &self.eased {
            Some(e) if x > 0.0 && x < 1.0 => self.solvers.weights(e, x),
            _ => [x; 4],
        }
    }

    /// How many of the 32 intervals of each channel's solver take the
    /// safeguarded path (0 for a linear channel).
    pub fn slow_intervals(&self) -> [u32; 4] {
        let Some(e) = &self.eased else {
            return [0; 4];
        };
        e.solver.map(|id| self.solvers.slow_intervals(id))
    }
}
