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
/// The solver stops once its Newton step in t is below this. y(t) has a
/// slope of at most 3, so the weight is then accurate to about 3e-12,
/// however steep the curve is in x (a tolerance in x alone is not enough:
/// near a vertical end, 1e-7 in x can be 1e-3 in the weight).
pub const SOLVER_TOLERANCE: f64 = 1e-12;

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

#[inline]
fn bezier_derivative(p1: f64, p2: f64, t: f64) -> f64 {
    let u = 1.0 - t;
    3.0 * u * u * p1 + 6.0 * u * t * (p2 - p1) + 3.0 * t * t * (1.0 - p2)
}

/// Finds t with x(t) = x. x(t) is non-decreasing for control x in [0, 1],
/// so a bracket [lo, hi] is kept and Newton steps that leave it fall back to
/// bisection. Bounded by [`SOLVER_MAX_ITERATIONS`]; stops when the step in
/// t is below [`SOLVER_TOLERANCE`].
fn solve_t(x1: f64, x2: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut t = x;
    for _ in 0..SOLVER_MAX_ITERATIONS {
        let fx = bezier(x1, x2, t) - x;
        if fx == 0.0 {
            return t;
        }
        if fx > 0.0 {
            hi = t;
        } else {
            lo = t;
        }
        let d = bezier_derivative(x1, x2, t);
        let newton = if d > 0.0 { t - fx / d } else { f64::NAN };
        let next = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - t).abs() < SOLVER_TOLERANCE || hi - lo < SOLVER_TOLERANCE {
            return next;
        }
        t = next;
    }
    t
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
