//! One progress-and-cancel type for every long operation: song decoding
//! and beat finding (`audio`), toolbox operations (`vmd::ops`), model
//! loading, and the app's job service, which shows it in the status bar.
//! Pure: no GUI type.
//!
//! A [`Progress`] is shared through an `Arc`: the worker reports, the UI
//! (or the job service) reads and may ask it to stop. A worker reports
//! either a fraction ([`Progress::report`], [`Progress::set_fraction`]) or
//! counted steps ([`Progress::set_steps`], then [`Progress::advance`] from
//! any thread); the fraction is always in 0..=1, never NaN.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// Progress of one operation and its cancel switch (lock-free but for the
/// "what" text).
#[derive(Debug)]
pub struct Progress {
    /// Fraction done in 0..=1 as `f32` bits; `u32::MAX` = not reported yet.
    fraction_bits: AtomicU32,
    /// Counted steps: `done` of `total` (used when `total` > 0).
    done: AtomicU64,
    total: AtomicU64,
    /// What the operation is doing now ("decoding", "texture 3 of 12").
    what: Mutex<String>,
    cancel: AtomicBool,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            fraction_bits: AtomicU32::new(u32::MAX),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            what: Mutex::new(String::new()),
            cancel: AtomicBool::new(false),
        }
    }
}

impl Progress {
    /// A fresh progress, shared.
    pub fn new() -> std::sync::Arc<Progress> {
        std::sync::Arc::new(Progress::default())
    }

    /// Fraction done, 0..=1 (0 before the first report).
    pub fn fraction(&self) -> f32 {
        self.reported().unwrap_or(0.0)
    }

    /// Fraction done, or `None` before the operation reported anything.
    pub fn reported(&self) -> Option<f32> {
        let total = self.total.load(Ordering::Relaxed);
        if total > 0 {
            let done = self.done.load(Ordering::Relaxed);
            return Some((done as f64 / total as f64).min(1.0) as f32);
        }
        let bits = self.fraction_bits.load(Ordering::Relaxed);
        (bits != u32::MAX).then(|| f32::from_bits(bits))
    }

    /// Sets the fraction done (clamped to 0..=1; NaN counts as 0). Ends
    /// step counting.
    pub fn set_fraction(&self, fraction: f32) {
        let f = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.total.store(0, Ordering::Relaxed);
        self.fraction_bits.store(f.to_bits(), Ordering::Relaxed);
    }

    /// Sets the fraction done and what the operation is doing now.
    pub fn report(&self, fraction: f32, what: &str) {
        self.set_fraction(fraction);
        self.set_what(what);
    }

    /// Says what the operation is doing now.
    pub fn set_what(&self, what: &str) {
        if let Ok(mut w) = self.what.lock()
            && *w != what
        {
            w.clear();
            w.push_str(what);
        }
    }

    /// What the operation said it is doing (empty before it said).
    pub fn what(&self) -> String {
        self.what.lock().map(|w| w.clone()).unwrap_or_default()
    }

    /// Starts counting: `total` steps, none done yet (the fraction is
    /// `done / total` from now on; `total` 0 leaves it at 0).
    pub fn set_steps(&self, total: u64) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        if total == 0 {
            self.fraction_bits.store(0f32.to_bits(), Ordering::Relaxed);
        }
    }

    /// `steps` more steps done (any thread).
    pub fn advance(&self, steps: u64) {
        self.done.fetch_add(steps, Ordering::Relaxed);
    }

    /// Asks the operation to stop; it checks [`Progress::is_cancelled`]
    /// and returns its own "cancelled" error.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fraction_is_none_until_reported_and_always_in_range() {
        let p = Progress::default();
        assert_eq!(p.reported(), None);
        assert_eq!(p.fraction(), 0.0);
        p.report(0.25, "texture 1 of 4");
        assert_eq!(p.reported(), Some(0.25));
        assert_eq!(p.what(), "texture 1 of 4");
        p.set_fraction(7.0);
        assert_eq!(p.fraction(), 1.0);
        p.set_fraction(f32::NAN);
        assert_eq!(p.fraction(), 0.0);
    }

    #[test]
    fn counted_steps_from_several_threads() {
        let p = Progress::default();
        p.set_steps(8);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| p.advance(3));
            }
        });
        assert_eq!(p.reported(), Some(0.75));
        // More steps than announced never pass 1.
        p.advance(5);
        assert_eq!(p.fraction(), 1.0);
        // A plain fraction ends the counting.
        p.set_fraction(0.5);
        assert_eq!(p.fraction(), 0.5);
    }

    #[test]
    fn cancel_is_seen() {
        let p = Progress::default();
        assert!(!p.is_cancelled());
        p.cancel();
        assert!(p.is_cancelled());
    }
}
