//! Solving x(t) = x for the eased curves of an [`super::EvalCache`].
//!
//! A curve's x(t) depends only on its (x1, x2) pair, so the cache keeps one
//! [`Solver`] per distinct pair (at most 128 × 128) and every eased channel
//! points at its solver by id. A solver splits x ∈ [0, 1] into 32 equal
//! intervals and stores, per interval, t(x) as a cubic (the Hermite cubic
//! through the exact t and dt/dx at both ends). Where x(t) is steep enough
//! (its slope stays above [`MIN_SLOPE`] over the interval) the cubic plus one
//! Newton step gives t to far better than the tolerance — checked when the
//! solver is made, at probes inside every interval against the exact root —
//! with no loop and no branch. The few intervals where x(t) flattens out (an
//! end with x1 = 0 or x2 = 127, or an interior double root) are marked slow
//! and use the safeguarded Newton solver, bracketed by the exact t at the
//! interval's ends.

use std::collections::HashMap;

use super::super::bezier::{Curve, SOLVER_MAX_ITERATIONS};

/// Marks a linear channel (no solver).
pub(super) const LINEAR: u16 = u16::MAX;
/// Intervals of a solver's table (at most 32: one bit each in `slow`).
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

/// Root finder for x(t) = x of one (x1, x2) pair.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Solver {
    /// The pair it solves (unit space is byte / 127, clamped to 127).
    pub(super) x1: u8,
    pub(super) x2: u8,
    /// x(t) = ((a·t + b)·t + c)·t.
    a: f64,
    b: f64,
    c: f64,
    /// Per interval k, t as a cubic in u = 32·x − k ∈ [0, 1]:
    /// `p[0] + u·(p[1] + u·(p[2] + u·p[3]))`.
    poly: [[f64; 4]; INTERVALS],
    /// Exact t at x = k / 32, k = 0..=32.
    nodes: [f64; INTERVALS + 1],
    /// Bit k set: interval k needs the safeguarded solver.
    slow: u32,
}

impl Solver {
    pub(super) fn new(x1: u8, x2: u8) -> Solver {
        let ux1 = f64::from(x1.min(127)) / 127.0;
        let ux2 = f64::from(x2.min(127)) / 127.0;
        let c = 3.0 * ux1;
        let b = 3.0 * (ux2 - ux1) - c;
        let a = 1.0 - c - b;
        let mut s = Solver {
            x1,
            x2,
            a,
            b,
            c,
            poly: [[0.0; 4]; INTERVALS],
            nodes: [0.0; INTERVALS + 1],
            slow: 0,
        };
        for k in 0..=INTERVALS {
            s.nodes[k] = s.exact(k as f64 / INTERVALS as f64, 0.0, 1.0);
        }
        let h = 1.0 / INTERVALS as f64;
        for k in 0..INTERVALS {
            let (t0, t1) = (s.nodes[k], s.nodes[k + 1]);
            let (s0, s1) = (s.slope(t0), s.slope(t1));
            // x' = 3a·t² + 2b·t + c: its least value over [t0, t1] is at an
            // end, or at the vertex when the parabola opens upwards.
            let mut least = s0.min(s1);
            if a > 0.0 {
                let v = -b / (3.0 * a);
                if v > t0 && v < t1 {
                    least = least.min(s.slope(v));
                }
            }
            if least >= MIN_SLOPE {
                // Hermite: t(0) = t0, t(1) = t1, t'(0) = h / x'(t0), t'(1) = h / x'(t1).
                let (d0, d1) = (h / s0, h / s1);
                s.poly[k] = [
                    t0,
                    d0,
                    3.0 * (t1 - t0) - 2.0 * d0 - d1,
                    2.0 * (t0 - t1) + d0 + d1,
                ];
                let ok = PROBES.iter().all(|&u| {
                    let x = (k as f64 + u) * h;
                    (s.fast(k, u, x) - s.exact(x, t0, t1)).abs() <= FAST_CHECK
                });
                if ok {
                    continue;
                }
            }
            s.poly[k] = [t0, t1 - t0, 0.0, 0.0];
            s.slow |= 1 << k;
        }
        s
    }

    /// x'(t).
    #[inline]
    fn slope(&self, t: f64) -> f64 {
        (3.0 * self.a * t + 2.0 * self.b) * t + self.c
    }

    /// The cubic's t at u in interval k, then one Newton step.
    #[inline]
    fn fast(&self, k: usize, u: f64, x: f64) -> f64 {
        let p = &self.poly[k];
        let t = p[0] + u * (p[1] + u * (p[2] + u * p[3]));
        let fx = ((self.a * t + self.b) * t + self.c) * t - x;
        (t - fx / self.slope(t)).clamp(0.0, 1.0)
    }

    /// The root in [lo, hi] to ~1e-15 in x or 1e-14 in t (for the tables).
    fn exact(&self, x: f64, lo: f64, hi: f64) -> f64 {
        self.safeguarded(x, lo, hi, 0.5 * (lo + hi), 1e-14)
    }

    /// Newton's method kept inside the bracket [lo, hi] (a step that would
    /// leave it bisects instead).
    fn safeguarded(&self, x: f64, mut lo: f64, mut hi: f64, mut t: f64, tol: f64) -> f64 {
        let (a, b, c) = (self.a, self.b, self.c);
        for _ in 0..SOLVER_MAX_ITERATIONS {
            let fx = ((a * t + b) * t + c) * t - x;
            if fx.abs() <= 1e-15 {
                return t;
            }
            if fx > 0.0 {
                hi = t;
            } else {
                lo = t;
            }
            // d = 0 gives ±inf or NaN, which fails the bracket test.
            let newton = t - fx / self.slope(t);
            let next = if newton >= lo && newton <= hi {
                newton
            } else {
                0.5 * (lo + hi)
            };
            if (next - t).abs() < tol {
                return next;
            }
            t = next;
        }
        t
    }

    /// t with x(t) = x, for x in (0, 1).
    #[inline]
    pub(super) fn t_at(&self, x: f64) -> f64 {
        let u = x * INTERVALS as f64;
        let k = (u as usize).min(INTERVALS - 1);
        let u = u - k as f64;
        if self.slow & (1 << k) == 0 {
            self.fast(k, u, x)
        } else {
            self.slow_t(k, u, x)
        }
    }

    #[cold]
    #[inline(never)]
    fn slow_t(&self, k: usize, u: f64, x: f64) -> f64 {
        let (lo, hi) = (self.nodes[k], self.nodes[k + 1]);
        self.safeguarded(x, lo, hi, lo + (hi - lo) * u, SLOW_TOLERANCE)
    }
}

/// Distinct solvers of a cache, looked up by (x1, x2).
#[derive(Debug, Clone, Default)]
pub(super) struct Solvers {
    pub(super) list: Vec<Solver>,
    by_pair: HashMap<u16, u16>,
}

/// The eased part of a segment: per channel a solver id ([`LINEAR`] for a
/// straight channel) and the curve's y1, y2 in 0..1.
#[derive(Debug, Clone, Copy)]
pub(super) struct Eased {
    pub(super) solver: [u16; 4],
    pub(super) y: [[f64; 2]; 4],
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
        let key = (u16::from(x1) << 8) | u16::from(x2);
        // At most 128 × 128 = 16384 pairs: ids fit below LINEAR.
        *self.by_pair.entry(key).or_insert_with(|| {
            self.list.push(Solver::new(x1, x2));
            (self.list.len() - 1) as u16
        })
    }

    /// The eased part of a segment with these curves, or `None` when all
    /// four are straight lines.
    pub(super) fn eased(&mut self, curves: [Curve; 4]) -> Option<Eased> {
        if curves.iter().all(Curve::is_linear) {
            return None;
        }
        let unit = |v: u8| f64::from(v.min(127)) / 127.0;
        Some(Eased {
            solver: curves.map(|c| self.id(c)),
            y: curves.map(|c| [unit(c.y1), unit(c.y2)]),
        })
    }

    /// Weights of four channels at time fraction `x` in (0, 1).
    #[inline]
    pub(super) fn weights(&self, e: &Eased, x: f64) -> [f64; 4] {
        let mut w = [x; 4];
        for ch in 0..4 {
            let Some(s) = self.list.get(usize::from(e.solver[ch])) else {
                continue; // LINEAR (or an id this cache does not have)
            };
            let t = s.t_at(x);
            let [y1, y2] = e.y[ch];
            let u = 1.0 - t;
            w[ch] = 3.0 * u * t * (u * y1 + t * y2) + t * t * t;
        }
        w
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
        e.solver.map(|id| {
            self.solvers
                .list
                .get(usize::from(id))
                .map_or(0, |s| s.slow.count_ones())
        })
    }
}
