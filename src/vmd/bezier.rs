//! Interpolation curves: cubic Béziers from (0,0) to (127,127) with two
//! control points stored as integers 0..=127 (127 = 1.0).

/// One interpolation curve in VMD's 0..=127 integer space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Curve {
    pub x1: u8,
    pub y1: u8,
    pub x2: u8,
    pub y2: u8,
}

/// Iteration cap of the curve solver (safeguarded Newton steps; a step
/// that would leave the bracket is replaced by bisection, so even 64
/// halvings alone would pin t to 2⁻⁶⁴).
pub const SOLVER_MAX_ITERATIONS: usize = 64;
/// The solver stops once its Newton step in t is below this. Newton
/// converges quadratically, so t is then accurate to about 1e-12 or better
/// (checked against plain bisection in the tests), and since y(t) has a
/// slope of at most 3 so is the weight — however steep the curve is in x (a
/// tolerance in x alone is not enough: near a vertical end, 1e-7 in x can
/// be 1e-3 in the weight).
pub const SOLVER_TOLERANCE: f64 = 1e-9;

impl Curve {
    /// MMD's default for a new key: control points on the diagonal.
    pub const LINEAR: Curve = Curve {
        x1: 20,
        y1: 20,
        x2: 107,
        y2: 107,
    };

    pub const fn new(x1: u8, y1: u8, x2: u8, y2: u8) -> Curve {
        Curve { x1, y1, x2, y2 }
    }

    /// Control points in 0..1 space: ((x1, y1), (x2, y2)).
    pub fn unit_points(&self) -> ((f64, f64), (f64, f64)) {
        let f = |v: u8| f64::from(v.min(127)) / 127.0;
        ((f(self.x1), f(self.y1)), (f(self.x2), f(self.y2)))
    }

    /// Straight line: both control points on the diagonal (any values).
    pub fn is_linear(&self) -> bool {
        self.x1 == self.y1 && self.x2 == self.y2
    }

    /// Eased progress (0..1) at time fraction `x` (0..1, clamped).
    ///
    /// Solves x(t) = x for the curve parameter t with at most
    /// [`SOLVER_MAX_ITERATIONS`] steps, then returns y(t). Every byte value is
    /// handled, including x1 = x2 = 0 and values above 127 (clamped).
    pub fn weight(&self, x: f64) -> f64 {
        let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
        if self.is_linear() {
            return x;
        }
        let ((x1, y1), (x2, y2)) = self.unit_points();
        let t = solve_t(x1, x2, x);
        bezier(y1, y2, t)
    }

    /// [`Curve::weight`] of several curves at the same `x`, solved side by
    /// side so the CPU overlaps their Newton iterations (a bone key's four
    /// channels, a camera key's six items). Gives exactly the values
    /// [`Curve::weight`] gives, one curve at a time.
    pub fn weights<const N: usize>(curves: &[Curve; N], x: f64) -> [f64; N] {
        let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
        if x <= 0.0 || x >= 1.0 {
            return [x; N];
        }
        let mut a = [0.0; N];
        let mut b = [0.0; N];
        let mut c = [0.0; N];
        let mut lo = [0.0; N];
        let mut hi = [1.0; N];
        let mut t = [x; N];
        let mut done = [false; N];
        for i in 0..N {
            let ((x1, _), (x2, _)) = curves[i].unit_points();
            c[i] = 3.0 * x1;
            b[i] = 3.0 * (x2 - x1) - c[i];
            a[i] = 1.0 - c[i] - b[i];
            done[i] = curves[i].is_linear();
        }
        // Same iteration as `solve_t`, lane by lane; a finished lane keeps its t.
        for _ in 0..SOLVER_MAX_ITERATIONS {
            let mut all = true;
            for i in 0..N {
                let ti = t[i];
                let fx = ((a[i] * ti + b[i]) * ti + c[i]) * ti - x;
                let hit = fx.abs() <= 1e-15;
                let (l, h) = if fx > 0.0 { (lo[i], ti) } else { (ti, hi[i]) };
                let d = (3.0 * a[i] * ti + 2.0 * b[i]) * ti + c[i];
                let newton = ti - fx / d;
                let next = if newton >= l && newton <= h {
                    newton
                } else {
                    0.5 * (l + h)
                };
                if !done[i] {
                    lo[i] = l;
                    hi[i] = h;
                    t[i] = if hit { ti } else { next };
                    done[i] = hit || (next - ti).abs() < SOLVER_TOLERANCE;
                }
                all &= done[i];
            }
            if all {
                break;
            }
        }
        std::array::from_fn(|i| {
            if curves[i].is_linear() {
                x
            } else {
                let ((_, y1), (_, y2)) = curves[i].unit_points();
                bezier(y1, y2, t[i])
            }
        })
    }

    /// Point on the curve at parameter `t` (0..1), in 0..1 space.
    pub fn point_at(&self, t: f64) -> (f64, f64) {
        let ((x1, y1), (x2, y2)) = self.unit_points();
        (bezier(x1, x2, t), bezier(y1, y2, t))
    }
}

impl Default for Curve {
    fn default() -> Self {
        Curve::LINEAR
    }
}

/// One coordinate of the cubic Bézier with end points 0 and 1.
#[inline]
pub fn bezier(p1: f64, p2: f64, t: f64) -> f64 {
    let u = 1.0 - t;
    3.0 * u * u * t * p1 + 3.0 * u * t * t * p2 + t * t * t
}

/// Finds t with x(t) = x. x(t) is non-decreasing for control x in [0, 1],
/// so a bracket [lo, hi] is kept and Newton steps that leave it fall back to
/// bisection. Bounded by [`SOLVER_MAX_ITERATIONS`]; stops when x(t) = x to
/// 1e-15 or the step in t is below [`SOLVER_TOLERANCE`].
///
/// x(t) is evaluated in power form, `((a·t + b)·t + c)·t` with
/// c = 3·x1, b = 3·(x2 − x1) − c, a = 1 − c − b (Horner: 3 multiplies).
pub(crate) fn solve_t(x1: f64, x2: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    solve_t_near(x1, x2, x, x)
}

/// [`solve_t`] for x strictly inside 0..1, starting from `guess` (0..1)
/// instead of x: when the t of a nearby x is known (samples in order), the
/// Newton steps start close and stop after one or two. Same bracket, same
/// stopping rules, so the same accuracy.
pub(crate) fn solve_t_near(x1: f64, x2: f64, x: f64, guess: f64) -> f64 {
    let t = if guess.is_finite() {
        guess.clamp(0.0, 1.0)
    } else {
        x
    };
    XCubic::new(x1, x2).solve_bracketed(x, 0.0, 1.0, t, SOLVER_TOLERANCE)
}

/// A curve's x(t) in power form, `((a·t + b)·t + c)·t` with c = 3·x1,
/// b = 3·(x2 − x1) − c, a = 1 − c − b (x1, x2 in 0..1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct XCubic {
    pub(crate) a: f64,
    pub(crate) b: f64,
    pub(crate) c: f64,
}

impl XCubic {
    pub(crate) fn new(x1: f64, x2: f64) -> XCubic {
        let c = 3.0 * x1;
        let b = 3.0 * (x2 - x1) - c;
        XCubic {
            a: 1.0 - c - b,
            b,
            c,
        }
    }

    /// x(t).
    #[inline]
    pub(crate) fn at(&self, t: f64) -> f64 {
        ((self.a * t + self.b) * t + self.c) * t
    }

    /// x'(t).
    #[inline]
    pub(crate) fn slope(&self, t: f64) -> f64 {
        (3.0 * self.a * t + 2.0 * self.b) * t + self.c
    }

    /// Finds t in [lo, hi] with x(t) = x, from `guess` (inside the bracket):
    /// Newton steps, a step that would leave the bracket bisects instead,
    /// and the bracket shrinks around the root as it goes (x(t) is
    /// non-decreasing). Stops when x(t) = x to 1e-15, when a step in t is
    /// below `tol`, or after [`SOLVER_MAX_ITERATIONS`] steps. The one
    /// bracketed Newton of the crate: [`solve_t`] and the evaluation cache's
    /// solver tables both use it.
    pub(crate) fn solve_bracketed(
        &self,
        x: f64,
        mut lo: f64,
        mut hi: f64,
        guess: f64,
        tol: f64,
    ) -> f64 {
        let mut t = guess;
        for _ in 0..SOLVER_MAX_ITERATIONS {
            let fx = self.at(t) - x;
            if fx.abs() <= 1e-15 {
                return t;
            }
            if fx > 0.0 {
                hi = t;
            } else {
                lo = t;
            }
            // x'(t) = 0 gives ±inf or NaN, which fails the bracket test.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_curve_returns_x() {
        for i in 0..=10 {
            let x = i as f64 / 10.0;
            assert!((Curve::LINEAR.weight(x) - x).abs() < 1e-12);
        }
    }

    #[test]
    fn ease_out_curve_at_half() {
        // (0,127)-(127,127): x(t) = 3t²(1−t) + t³ ... hand computation:
        // x1 = 0, x2 = 1 → x(t) = 3t² − 2t³; x = 0.5 → t = 0.5.
        // y1 = y2 = 1 → y(t) = 3t(1−t)² + 3t²(1−t) + t³ = 1 − (1−t)³ = 0.875.
        let c = Curve::new(0, 127, 127, 127);
        assert!((c.weight(0.5) - 0.875).abs() < 1e-6, "{}", c.weight(0.5));
    }

    #[test]
    fn weights_side_by_side_equal_weight_one_by_one() {
        let vals = [0u8, 1, 20, 64, 107, 126, 127, 200];
        let mut curves = Vec::new();
        for &x1 in &vals {
            for &x2 in &vals {
                curves.push(Curve::new(x1, 127 - x1.min(127), x2, x1 / 2));
            }
        }
        for chunk in curves.chunks_exact(4) {
            let four = [chunk[0], chunk[1], chunk[2], chunk[3]];
            for i in 0..=50 {
                let x = f64::from(i) / 50.0 + if i % 7 == 3 { 1e-7 } else { 0.0 };
                let w = Curve::weights(&four, x);
                for (k, c) in four.iter().enumerate() {
                    assert_eq!(w[k].to_bits(), c.weight(x).to_bits(), "{c:?} at {x}");
                }
            }
        }
    }

    #[test]
    fn solver_reaches_tolerance_on_every_extreme() {
        let vals = [0u8, 1, 20, 64, 107, 126, 127, 200, 255];
        for &x1 in &vals {
            for &x2 in &vals {
                let c = Curve::new(x1, 0, x2, 127);
                let ((px1, _), (px2, _)) = c.unit_points();
                let near_ends = [1e-12, 1e-9, 1e-6, 1e-3, 1.0 - 1e-3, 1.0 - 1e-9];
                for x in (0..=20).map(|i| f64::from(i) / 20.0).chain(near_ends) {
                    let t = solve_t(px1, px2, x);
                    assert!(
                        (bezier(px1, px2, t) - x).abs() <= 1e-6,
                        "x1={x1} x2={x2} x={x}"
                    );
                    // Against plain bisection (100 halvings): t itself is right.
                    let (mut lo, mut hi) = (0.0, 1.0);
                    for _ in 0..100 {
                        let mid = 0.5 * (lo + hi);
                        if bezier(px1, px2, mid) < x {
                            lo = mid
                        } else {
                            hi = mid
                        }
                    }
                    // Where x(t) is flat (x'(t) = 0 at an end, or at t = ½ for
                    // x1 = 1, x2 = 0) both land within rounding of x and may
                    // differ in t; then x(t) must equal x to a few ulps.
                    let flat = (bezier(px1, px2, t) - x).abs() <= 4.0 * f64::EPSILON;
                    assert!(
                        (t - lo).abs() <= 1e-9 || flat,
                        "x1={x1} x2={x2} x={x}: {t} vs {lo}"
                    );
                    let w = c.weight(x);
                    assert!((0.0..=1.0).contains(&w));
                }
            }
        }
    }
}
