//! When a FIND-RS run may generalize a rule (docs/semantics.md §3 and §9.1): the acceptance
//! predicate on the training negatives `n` and positives `p` that the generalization covers.
//!
//! `Acceptance { tolerance: tau, epsilon }` accepts `(n, p)` iff `n <= tau` or
//! `n * 2^32 <= e * (n + p)`, where `e = floor(epsilon * 2^32)` (epsilon in `[0, 1)`).
//!
//! Invariants:
//! - with `epsilon = 0` (so `e = 0`) it is exactly the paper's test `n <= tau`;
//! - it is non-increasing in `n` and non-decreasing in `p`, and `accepts(n, p)` iff
//!   `n <= limit(p)`, so a lower bound of `n` above `limit` of an upper bound of `p` proves a
//!   rejection (the run's filters rely on this);
//! - an accepted `(n, p)` with `n > tau` has `n / (n + p) <= e / 2^32 <= epsilon`: the rule's
//!   training precision is at least `1 - epsilon`. The arithmetic is exact (integers in u128).

use crate::data::error::{FindRsError, Result};

/// 2^32: epsilon's fixed-point unit.
const ONE: u128 = 1 << 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acceptance {
    tolerance: u32,
    /// epsilon in units of 2^-32, below 2^32.
    e: u64,
}

impl Acceptance {
    /// The paper's absolute tolerance: at most `tolerance` negatives.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn absolute(tolerance: u32) -> Self {
        Self { tolerance, e: 0 }
    }

    /// At most `tolerance` negatives, or a share of negatives among the covered training rows
    /// of at most `epsilon` (rounded down to a multiple of 2^-32).
    pub fn new(tolerance: u32, epsilon: f64) -> Result<Self> {
        if !(0.0..1.0).contains(&epsilon) {
            return Err(FindRsError::InvalidParameter(format!(
                "epsilon must be in [0, 1), got {epsilon}"
            )));
        }
        let e = (epsilon * ONE as f64).floor() as u64;
        Ok(Self {
            tolerance,
            e: e.min(ONE as u64 - 1),
        })
    }

    /// True iff the test is the paper's absolute count (no relative part).
    #[inline]
    pub fn is_absolute(&self) -> bool {
        self.e == 0
    }

    /// Whether a generalization covering `n` training negatives and `p` positives is accepted.
    #[inline]
    pub fn accepts(&self, n: u32, p: u32) -> bool {
        n <= self.tolerance || (n as u128) * ONE <= self.e as u128 * (n as u128 + p as u128)
    }

    /// The largest `n` accepted together with `p` positives.
    #[inline]
    pub fn limit(&self, p: u32) -> u32 {
        if self.e == 0 {
            return self.tolerance;
        }
        // n (2^32 - e) <= e p  <=>  n <= e p / (2^32 - e).
        let rel = (self.e as u128 * p as u128) / (ONE - self.e as u128);
        self.tolerance.max(rel.min(u32::MAX as u128) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_epsilon_is_the_absolute_count() {
        for tau in 0..4 {
            let a = Acceptance::new(tau, 0.0).unwrap();
            assert_eq!(a, Acceptance::absolute(tau));
            for n in 0..10 {
                for p in [0, 1, 5, 1000, u32::MAX] {
                    assert_eq!(a.accepts(n, p), n <= tau);
                    assert_eq!(a.limit(p), tau);
                }
            }
        }
    }

    #[test]
    fn limit_is_the_largest_accepted_count_and_precision_holds() {
        for eps in [1e-9, 0.01, 0.05, 0.1, 0.25, 1.0 / 3.0, 0.5, 0.9, 0.999_999] {
            for tau in [0u32, 2] {
                let a = Acceptance::new(tau, eps).unwrap();
                for p in 0..300u32 {
                    let l = a.limit(p);
                    assert!(a.accepts(l, p), "eps {eps} p {p}");
                    assert!(!a.accepts(l + 1, p), "eps {eps} p {p}");
                    for n in 0..=l.min(2000) {
                        assert!(a.accepts(n, p));
                        if n > tau {
                            assert!(n as f64 / (n + p) as f64 <= eps + 1e-15);
                        }
                    }
                    assert!(a.limit(p + 1) >= l);
                }
            }
        }
        assert!(Acceptance::new(0, 1.0).is_err());
        assert!(Acceptance::new(0, -0.1).is_err());
        assert!(Acceptance::new(0, f64::NAN).is_err());
    }
}
