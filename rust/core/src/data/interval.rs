//! Interval constraints on ordered (numeric) features: [`ConstraintKind::Interval`].
//!
//! **Codes.** An ordered feature with `d` distinct non-null training values `v_0 < ... < v_{d-1}`
//! uses *gap codes*: value `v_i` is `2i + 1`, a value below `v_0` is `0`, one strictly between
//! `v_i` and `v_{i+1}` is `2i + 2`, one above `v_{d-1}` is `2d`, and null (NaN included) is
//! `2d + 1`. One encoder serves training (whose rows hold odd codes or null) and prediction
//! (whose rows may fall in any gap); the schema's `domain_size` of such a feature is `d`.
//!
//! **Constraints.** A rule's constraint on the feature is a contiguous range `[lo, hi]` of gap
//! codes plus a null flag ([`Bounds`]); a code satisfies it iff `lo <= code <= hi`, or it is null
//! and the flag is set. The most specific constraint covering a set of training rows is the range
//! from the smallest to the largest of their values (FIND-S over intervals), with null allowed
//! iff one of the rows is null; generalizing to a row widens the range to the row's value (or
//! sets the flag for a null row). Canonical form, which makes equal constraints equal words:
//! - a range that reaches `v_0` is open below (`lo = 0`), one that reaches `v_{d-1}` open above
//!   (`hi = 2d`), so a value beyond the training range passes exactly when the interval is open
//!   on that side, and a value in a gap passes exactly when both neighbours lie in the range;
//! - a rule made from a null row has the empty range and the flag (`x is null`); widening it with
//!   a value `v` gives the point `[v, v]` plus null (`x = v or x is null`);
//! - the whole range with the flag is unconstrained (`?`). The whole range without it reads
//!   `x is not null` when null occurs in the training data; when it does not, null was never
//!   seen and is treated as an unseen value is by a generalized constraint: the whole range is
//!   `?` and admits null.
//!
//! **Coverage over row bitsets.** A [`RowIndex`](crate::data::row_index::RowIndex) keeps, per interval
//! feature, prefix bitsets "gap code <= k" for the `2d + 1` non-null codes. A feature with few
//! codes stores one bitset per code ([`IntervalLayout::base`] 1); a wider one splits a code into
//! a high and a low digit in base `B ~ sqrt(2d + 1)` and stores "high digit <= a" and "low digit
//! <= b" (`2 sqrt(2d + 1)` bitsets instead of `2d + 1`), from which "code <= k" is
//! `high <= a - 1 or (high <= a and low <= b)`. An [`IntervalTerm`] is thus a fixed formula over
//! seven bitsets of the index: exact, constant time per 64 rows, whatever `d`.
//!
//! Invariant: a [`Bounds`] value held by a rule is canonical for its feature's `d` and
//! null-seen flag (as [`Bounds::canonical`] leaves it), so rule identity is word equality.

use crate::data::bitset::words_for;

/// Most distinct values an interval feature may have (its gap codes then fit in 31 bits).
pub const MAX_VALUES: u32 = (1 << 30) - 2;

/// `lo` of the empty range (no non-null value allowed); its `hi` is 0.
const EMPTY_LO: u32 = 0x7FFF_FFFF;

/// The gap code of null for a feature of `d` values.
#[inline]
pub fn null_code(d: u32) -> u32 {
    2 * d + 1
}

/// An interval constraint as the training values' ranks: the public view of a rule's constraint
/// on an ordered feature (see the module docs for what it admits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interval {
    /// `Some((lo, hi))`: the values of ranks `lo..=hi` (`lo <= hi < d`), open below when
    /// `lo == 0` (reads `x <= v_hi`) and open above when `hi == d - 1` (`x >= v_lo`). `None`:
    /// no non-null value (`x is null`).
    pub values: Option<(u32, u32)>,
    /// Whether null satisfies the constraint.
    pub null: bool,
}

impl Interval {
    /// True iff a row with gap code `code` satisfies the constraint on a feature of `d` values.
    pub fn covers_code(&self, d: u32, code: u32) -> bool {
        Bounds::from_interval(self, d).covers(d, code)
    }
}

/// A constraint as a range of gap codes plus the null flag (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub lo: u32,
    pub hi: u32,
    pub null: bool,
}

impl Bounds {
    /// The unconstrained constraint (`?`).
    #[inline]
    pub fn free(d: u32) -> Self {
        Self {
            lo: 0,
            hi: 2 * d,
            null: true,
        }
    }

    /// No value at all (not a constraint; the start of a widening, and a dead rule's state).
    #[inline]
    pub fn nothing() -> Self {
        Self {
            lo: EMPTY_LO,
            hi: 0,
            null: false,
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.lo > self.hi
    }

    #[inline]
    pub fn is_free(&self, d: u32) -> bool {
        *self == Self::free(d)
    }

    /// True iff gap code `code` satisfies the constraint.
    #[inline]
    pub fn covers(&self, d: u32, code: u32) -> bool {
        (self.lo <= code && code <= self.hi) || (self.null && code == null_code(d))
    }

    /// The most specific constraint covering one training code.
    #[inline]
    pub fn of_code(d: u32, null_seen: bool, code: u32) -> Self {
        let mut b = Self::nothing();
        b.widen(d, null_seen, code);
        b
    }

    /// Widens the constraint to cover training code `code` (FIND-S); true iff it changed.
    #[inline]
    pub fn widen(&mut self, d: u32, null_seen: bool, code: u32) -> bool {
        if self.covers(d, code) {
            return false;
        }
        if code == null_code(d) {
            self.null = true;
        } else {
            self.lo = self.lo.min(code);
            self.hi = self.hi.max(code);
        }
        *self = self.canonical(d, null_seen);
        true
    }

    /// The canonical form: open ends at the extreme values, and the whole range is `?` when
    /// null was never seen in training.
    #[inline]
    pub fn canonical(mut self, d: u32, null_seen: bool) -> Self {
        if !self.is_empty() && d > 0 {
            if self.lo == 1 {
                self.lo = 0;
            }
            if self.hi == 2 * d - 1 {
                self.hi = 2 * d;
            }
        }
        if !null_seen && self.lo == 0 && self.hi == 2 * d {
            self.null = true;
        }
        self
    }

    /// The widened range covering `code` too, without canonical ends: enough to count the
    /// training rows it covers (training codes are odd, never at an open end).
    #[inline]
    pub fn widened_range(&self, code: u32) -> (u32, u32) {
        (self.lo.min(code), self.hi.max(code))
    }

    #[inline]
    pub fn pack(self) -> u64 {
        self.lo as u64 | (self.hi as u64) << 32 | (self.null as u64) << 63
    }

    #[inline]
    pub fn unpack(w: u64) -> Self {
        Self {
            lo: w as u32,
            hi: (w >> 32) as u32 & 0x7FFF_FFFF,
            null: w >> 63 == 1,
        }
    }

    pub fn to_interval(self, d: u32) -> Interval {
        let values = (!self.is_empty()).then(|| {
            let lo = if self.lo == 0 { 0 } else { (self.lo - 1) / 2 };
            let hi = if self.hi == 2 * d {
                d - 1
            } else {
                (self.hi - 1) / 2
            };
            (lo, hi)
        });
        Interval {
            values,
            null: self.null,
        }
    }

    /// The constraint of an [`Interval`] (not checked; see [`IntervalLayout::bounds_of`]).
    pub fn from_interval(iv: &Interval, d: u32) -> Self {
        match iv.values {
            None => Self {
                null: iv.null,
                ..Self::nothing()
            },
            Some((lo, hi)) => Self {
                lo: if lo == 0 { 0 } else { 2 * lo + 1 },
                hi: if hi + 1 == d { 2 * d } else { 2 * hi + 1 },
                null: iv.null,
            },
        }
    }
}

/// Where an interval feature's prefix bitsets sit among a row index's slots (see the module
/// docs), with the feature's `d` and null-seen flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntervalLayout {
    pub feature: usize,
    /// `d`, the number of distinct non-null training values.
    pub n_values: u32,
    /// Whether null occurs in the training data.
    pub null_seen: bool,
    /// The base of the code split (1: one prefix bitset per code).
    pub base: u32,
    /// Index slot of "high digit <= 0" (then 1, 2, ...).
    pub high: u32,
    /// Index slot of "low digit <= 0" (then 1, ..., `base - 1`); unused when `base == 1`.
    pub low: u32,
    /// Index slot of the null rows.
    pub null_slot: u32,
}

/// Features with at most this many non-null gap codes keep one prefix bitset per code.
pub const DIRECT_CODES: u32 = 128;

impl IntervalLayout {
    /// The layout of feature `feature` with `d` values, its bitsets from index slot `first` on;
    /// returns it and the next free index slot.
    pub(crate) fn new(feature: usize, d: u32, null_seen: bool, first: u32) -> (Self, u32) {
        let codes = 2 * d + 1;
        let base = if codes <= DIRECT_CODES {
            1
        } else {
            (codes as f64).sqrt().ceil() as u32
        };
        let n_high = codes.div_ceil(base);
        let n_low = if base == 1 { 0 } else { base };
        let layout = Self {
            feature,
            n_values: d,
            null_seen,
            base,
            high: first,
            low: first + n_high,
            null_slot: first + n_high + n_low,
        };
        (layout, first + n_high + n_low + 1)
    }

    /// Number of "high digit <= a" bitsets.
    #[inline]
    pub fn n_high(&self) -> u32 {
        self.low - self.high
    }

    /// Number of "low digit <= b" bitsets (0 when `base == 1`).
    #[inline]
    pub fn n_low(&self) -> u32 {
        self.null_slot - self.low
    }

    /// `(x, y, z)` with "gap code <= k" = `x | (y & z)` over the index (`zero`: the all-zero slot).
    #[inline]
    pub fn prefix(&self, k: u32, zero: u32) -> [u32; 3] {
        if self.base == 1 {
            return [self.high + k, zero, zero];
        }
        let (a, b) = (k / self.base, k % self.base);
        let below = if a == 0 { zero } else { self.high + a - 1 };
        [below, self.high + a, self.low + b]
    }

    /// The index slots a row with gap code `code` sets before prefix sums: `(high, low)` digits
    /// (`low` unused when `base == 1`), or the null slot.
    #[inline]
    pub(crate) fn code_slots(&self, code: u32) -> (u32, Option<u32>) {
        if code == null_code(self.n_values) {
            (self.null_slot, None)
        } else if self.base == 1 {
            (self.high + code, None)
        } else {
            (
                self.high + code / self.base,
                Some(self.low + code % self.base),
            )
        }
    }

    /// The constraint of an [`Interval`], or why it is not one on this feature.
    pub(crate) fn bounds_of(&self, iv: &Interval) -> Result<Bounds, String> {
        let d = self.n_values;
        let f = self.feature;
        if let Some((lo, hi)) = iv.values {
            if lo > hi || hi >= d {
                return Err(format!(
                    "the interval on feature {f} has ranks {lo}..={hi}, not within 0..{d}"
                ));
            }
        } else if !iv.null {
            return Err(format!("the interval on feature {f} allows no value"));
        }
        if iv.null && !self.null_seen && iv.values != Some((0, d.wrapping_sub(1))) {
            return Err(format!(
                "the interval on feature {f} allows null, which its training data never held"
            ));
        }
        Ok(Bounds::from_interval(iv, d).canonical(d, self.null_seen))
    }
}

/// One interval constraint evaluated over a row index word: `(upper & !lower) | null` with
/// `upper` = "code <= hi", `lower` = "code <= lo - 1", each `x | (y & z)` (see
/// [`IntervalLayout::prefix`]), and `null` the null slot or the all-zero slot.
#[derive(Clone, Copy, Debug)]
pub struct IntervalTerm {
    pub feature: u32,
    upper: [u32; 3],
    lower: [u32; 3],
    null: u32,
}

impl IntervalTerm {
    pub(crate) fn new(layout: &IntervalLayout, zero: u32, b: Bounds) -> Self {
        let (upper, lower) = if b.is_empty() {
            ([zero; 3], [zero; 3])
        } else {
            let lower = if b.lo == 0 {
                [zero; 3]
            } else {
                layout.prefix(b.lo - 1, zero)
            };
            (layout.prefix(b.hi, zero), lower)
        };
        Self {
            feature: layout.feature as u32,
            upper,
            lower,
            null: if b.null { layout.null_slot } else { zero },
        }
    }

    /// The rows of one word that satisfy the constraint, given that word of every index slot.
    #[inline(always)]
    pub fn eval(&self, w: &[u64]) -> u64 {
        let [a, b, c] = self.upper;
        let [x, y, z] = self.lower;
        let up = w[a as usize] | (w[b as usize] & w[c as usize]);
        let low = w[x as usize] | (w[y as usize] & w[z as usize]);
        (up & !low) | w[self.null as usize]
    }
}

/// Words of a rule over a schema with `n_slots` slots and `n_intervals` interval features: the
/// slot bitset, then one packed [`Bounds`] per interval feature.
#[inline]
pub(crate) fn rule_words(n_slots: usize, n_intervals: usize) -> usize {
    words_for(n_slots) + n_intervals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_is_min_max_with_open_ends_and_null() {
        // d = 4: values 1, 3, 5, 7; gaps 0, 2, 4, 6, 8; null 9.
        let (d, seen) = (4, true);
        let mut b = Bounds::of_code(d, seen, 3);
        assert_eq!((b.lo, b.hi, b.null), (3, 3, false));
        assert!(b.covers(d, 3) && !b.covers(d, 2) && !b.covers(d, 4) && !b.covers(d, 9));
        assert!(b.widen(d, seen, 5));
        assert_eq!((b.lo, b.hi), (3, 5));
        assert!(b.covers(d, 4), "a gap strictly inside passes");
        assert!(!b.widen(d, seen, 5));
        assert!(b.widen(d, seen, 1));
        assert_eq!(
            (b.lo, b.hi),
            (0, 5),
            "reaching v_0 opens the interval below"
        );
        assert!(b.covers(d, 0), "below every training value passes");
        assert!(b.widen(d, seen, 9));
        assert!(b.null && b.covers(d, 9));
        assert!(b.widen(d, seen, 7));
        assert!(b.is_free(d));
        assert_eq!(
            b.to_interval(d),
            Interval {
                values: Some((0, 3)),
                null: true
            }
        );
    }

    #[test]
    fn null_rows_and_never_seen_null() {
        let d = 3;
        let mut b = Bounds::of_code(d, true, null_code(d));
        assert!(b.is_empty() && b.null);
        assert_eq!(
            b.to_interval(d),
            Interval {
                values: None,
                null: true
            }
        );
        b.widen(d, true, 3);
        assert_eq!(
            b.to_interval(d),
            Interval {
                values: Some((1, 1)),
                null: true
            }
        );
        // Without null in training the whole range is `?` (admits null).
        let mut b = Bounds::of_code(d, false, 1);
        b.widen(d, false, 5);
        assert!(b.is_free(d) && b.covers(d, null_code(d)));
        // With null seen it reads `x is not null`.
        let mut b = Bounds::of_code(d, true, 1);
        b.widen(d, true, 5);
        assert!(!b.is_free(d) && !b.covers(d, null_code(d)) && b.covers(d, 6));
        // One value: both ends open.
        let b = Bounds::of_code(1, false, 1);
        assert!(b.is_free(1));
    }

    #[test]
    fn pack_and_interval_round_trip() {
        let d = 5;
        for b in [
            Bounds::free(d),
            Bounds::of_code(d, true, null_code(d)),
            Bounds::of_code(d, true, 5),
            Bounds {
                lo: 3,
                hi: 10,
                null: true,
            },
        ] {
            assert_eq!(Bounds::unpack(b.pack()), b);
            assert_eq!(Bounds::from_interval(&b.to_interval(d), d), b);
        }
    }

    #[test]
    fn prefix_formula_matches_codes() {
        for d in [1u32, 5, 63, 64, 100, 1000] {
            let (layout, end) = IntervalLayout::new(0, d, true, 1);
            let zero = 0u32;
            assert_eq!(end, layout.null_slot + 1);
            // One "row" per gap code: build the prefix bitsets of single rows and check
            // "code <= k" for every k.
            for code in 0..=2 * d {
                let mut w = vec![0u64; end as usize];
                let (h, l) = layout.code_slots(code);
                w[h as usize] = 1;
                if let Some(l) = l {
                    w[l as usize] = 1;
                }
                for i in 1..layout.n_high() {
                    let s = (layout.high + i) as usize;
                    w[s] |= w[s - 1];
                }
                for i in 1..layout.n_low() {
                    let s = (layout.low + i) as usize;
                    w[s] |= w[s - 1];
                }
                for k in 0..=2 * d {
                    let [x, y, z] = layout.prefix(k, zero);
                    let got = w[x as usize] | (w[y as usize] & w[z as usize]);
                    assert_eq!(got == 1, code <= k, "d {d} code {code} k {k}");
                }
            }
        }
    }
}
