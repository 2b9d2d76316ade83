//! Cutting a piece out of an interpolation curve (for trim).
//!
//! A VMD curve is a cubic Bézier from (0,0) to (1,1) with control points
//! stored as integers 0..=127. To keep the shape of the part of a segment
//! between time fractions `x0` and `x1`, the curve parameters `t0`, `t1`
//! with `x(t) = x0`, `x1` are found, the Bézier is restricted to
//! `[t0, t1]` (blossoming / de Casteljau), and the piece is stretched back
//! into the unit box and rounded to 0..=127: of the floor/ceil roundings of
//! the four control values, the one whose curve stays closest to the exact
//! piece.

use crate::vmd::bezier::{Curve, bezier};

/// A piece of a curve, ready to store.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubCurve {
    /// The piece, rounded to 0..=127.
    pub curve: Curve,
    /// Largest difference between the rounded piece and the exact one, in
    /// units of 1/127 of the segment's value change (sampled at 65 points).
    pub max_error_units: f64,
    /// A control point fell outside 0..1 and was clamped (the exact piece is
    /// not representable).
    pub clamped: bool,
    /// The value does not change over the piece (or the piece has no
    /// length), so any curve plays the same; the linear curve is stored.
    pub degenerate: bool,
}

impl SubCurve {
    /// True when the stored piece differs visibly from the exact one.
    pub fn is_lossy(&self) -> bool {
        self.clamped || self.max_error_units > 1.0
    }
}

/// Curve parameter t in 0..1 with x(t) = x (bisection, x(t) is non-decreasing).
fn solve(x1: f64, x2: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if bezier(x1, x2, mid) < x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Blossom of the cubic with coefficients p = [p0, p1, p2, p3] at (u, v, w).
fn blossom(p: [f64; 4], u: f64, v: f64, w: f64) -> f64 {
    let l1: [f64; 3] = std::array::from_fn(|i| p[i] + (p[i + 1] - p[i]) * u);
    let l2: [f64; 2] = std::array::from_fn(|i| l1[i] + (l1[i + 1] - l1[i]) * v);
    l2[0] + (l2[1] - l2[0]) * w
}

/// The part of `curve` between time fractions `x0 < x1` (both in 0..1),
/// stretched to a whole curve and rounded to the 0..=127 curve closest to
/// the exact piece. A straight curve stays byte-identical.
pub fn sub_curve(curve: Curve, x0: f64, x1: f64) -> SubCurve {
    let exact = |curve: Curve| SubCurve {
        curve,
        max_error_units: 0.0,
        clamped: false,
        degenerate: false,
    };
    let x0 = x0.clamp(0.0, 1.0);
    let x1 = x1.clamp(0.0, 1.0);
    if curve.is_linear() || (x0 <= 0.0 && x1 >= 1.0) {
        return exact(curve);
    }
    let ((cx1, cy1), (cx2, cy2)) = curve.unit_points();
    let t0 = solve(cx1, cx2, x0);
    let t1 = solve(cx1, cx2, x1);
    let px = [0.0, cx1, cx2, 1.0];
    let py = [0.0, cy1, cy2, 1.0];
    let q = |p: [f64; 4]| {
        [
            blossom(p, t0, t0, t0),
            blossom(p, t0, t0, t1),
            blossom(p, t0, t1, t1),
            blossom(p, t1, t1, t1),
        ]
    };
    let (qx, qy) = (q(px), q(py));
    let (dx, dy) = (qx[3] - qx[0], qy[3] - qy[0]);
    if dx <= 1e-12 || dy <= 1e-12 {
        return SubCurve {
            curve: Curve::LINEAR,
            max_error_units: 0.0,
            clamped: false,
            degenerate: true,
        };
    }
    let nx = [(qx[1] - qx[0]) / dx, (qx[2] - qx[0]) / dx];
    let ny = [(qy[1] - qy[0]) / dy, (qy[2] - qy[0]) / dy];
    let out_of_box = |v: f64| !(-1e-9..=1.0 + 1e-9).contains(&v);
    let clamped = nx.iter().chain(ny.iter()).any(|&v| out_of_box(v));
    // Exact piece: the original's weight over [x0, x1], rescaled.
    let y0 = bezier(cy1, cy2, t0);
    let exact_w: Vec<(f64, f64)> = (0..=64)
        .map(|i| {
            let s = f64::from(i) / 64.0;
            (s, (curve.weight(x0 + s * (x1 - x0)) - y0) / dy)
        })
        .collect();
    let error_of = |c: Curve| {
        exact_w
            .iter()
            .map(|&(s, want)| (want - c.weight(s)).abs() * 127.0)
            .fold(0.0f64, f64::max)
    };
    // Of the 16 floor/ceil roundings of the four control values, keep the one
    // closest to the exact piece (ties: the nearest rounding, tried first).
    let exact = [nx[0], ny[0], nx[1], ny[1]].map(|v| v.clamp(0.0, 1.0) * 127.0);
    let nearest = exact.map(|v| v.round() as u8);
    let mut piece = Curve::new(nearest[0], nearest[1], nearest[2], nearest[3]);
    let mut max_err = error_of(piece);
    for combo in 0u8..16 {
        let b: [u8; 4] = std::array::from_fn(|i| {
            let v = exact[i];
            if combo & (1 << i) == 0 {
                v.floor() as u8
            } else {
                v.ceil() as u8
            }
        });
        let c = Curve::new(b[0], b[1], b[2], b[3]);
        if c == piece {
            continue;
        }
        let e = error_of(c);
        if e < max_err - 1e-12 {
            piece = c;
            max_err = e;
        }
    }
    SubCurve {
        curve: piece,
        max_error_units: max_err,
        clamped,
        degenerate: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_stays_linear_bytes() {
        let c = Curve::new(30, 30, 90, 90);
        assert_eq!(sub_curve(c, 0.25, 0.75).curve, c);
    }

    #[test]
    fn halves_of_a_symmetric_ease_hand_computed() {
        // Ease-in-out (64,0)-(63,127) is close to symmetric; take a
        // symmetric one with x1 = 127 - x2: (127, 0)-(0, 127).
        // x(t) = 3t(1-t)²·1 + 3t²(1-t)·0 + t³; x(0.5) = 0.375 + 0.125 = 0.5
        // so x = 0.5 ↔ t = 0.5. First half: blossom points
        // Q0 = (0,0), Q1 = B(0,0,.5) = (0.5, 0), Q2 = B(0,.5,.5) = (0.5, 0.25),
        // Q3 = (0.5, 0.5); normalized: (1, 0), (1, 0.5) → bytes (127,0),(127,63.5):
        // y2 sits on a rounding tie, so 63 or 64.
        let c = Curve::new(127, 0, 0, 127);
        let s = sub_curve(c, 0.0, 0.5);
        assert_eq!((s.curve.x1, s.curve.y1, s.curve.x2), (127, 0, 127));
        assert!(matches!(s.curve.y2, 63 | 64), "{:?}", s.curve);
        assert!(!s.clamped);
        assert!(s.max_error_units < 1.0, "{}", s.max_error_units);
    }

    #[test]
    fn pieces_follow_the_original_shape() {
        for c in [
            Curve::new(10, 100, 60, 127),
            Curve::new(90, 5, 120, 40),
            Curve::new(64, 0, 64, 127),
        ] {
            for (a, b) in [(0.0, 0.3), (0.3, 1.0), (0.2, 0.7)] {
                let s = sub_curve(c, a, b);
                if s.degenerate || s.clamped {
                    continue;
                }
                assert!(
                    s.max_error_units < 2.0,
                    "{c:?} {a}..{b}: {}",
                    s.max_error_units
                );
            }
        }
    }
}
