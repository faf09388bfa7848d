//! The feature layout shared by data, rules and models.
//!
//! A categorical feature `f` (AV or OH) has a training domain of `d_f` dense codes `0..d_f`
//! (null, where present, is one of them) plus one extra code `d_f` that stands for "a value never
//! seen in training". Each (feature, code) pair owns one *slot*; slots of feature `f` are
//! `offset(f)..offset(f) + d_f + 1`.
//!
//! An ordered feature (kind [`ConstraintKind::Interval`]) has `d_f` distinct non-null training
//! values and gap codes `0..=2 d_f + 1` ([`interval`](crate::data::interval)); it owns no slot. A rule
//! keeps its interval in one word after its slot bitset, and a row index keeps the feature's
//! prefix bitsets in *index slots* numbered after the slots: `zero_slot()` (always empty), then
//! each interval feature's bitsets ([`IntervalLayout`]).
//!
//! Invariant: slot and index-slot numbering are pure functions of the domain sizes, kinds and
//! null-seen flags, so two schemas with equal ones number slots identically and rules can be
//! compared as words. A schema without interval features has no index slot beyond its slots.

use crate::data::error::{FindRsError, Result};
use crate::data::interval::{self, IntervalLayout, MAX_VALUES};

/// The most slots a schema may have (some 268 million): far beyond any fit (a slot is a training
/// code of an AV or OH feature), and what keeps a corrupt domain size from allocating
/// gigabytes (its slot table, each rule's bitset) before anything else is checked.
pub const MAX_SLOTS: u64 = 1 << 28;

/// How a feature's constraint generalizes (docs/semantics.md §2). A new kind of constraint is a new variant
/// here plus its `generalize` and near-miss rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// Attribute-value: `a = v` or `?`.
    AttributeValue,
    /// One-hot: a value set `S`; `a = v` when `|S| = 1`, `a not in (domain - S)` when `|S| >= 2`.
    OneHot,
    /// An ordered feature: an interval of its values, possibly with null
    /// ([`Interval`](crate::Interval)).
    Interval,
}

impl ConstraintKind {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "av" => Ok(Self::AttributeValue),
            "oh" => Ok(Self::OneHot),
            "interval" => Ok(Self::Interval),
            other => Err(FindRsError::InvalidParameter(format!(
                "encoding must be 'av' or 'oh' (or 'interval' for an ordered feature), got {other:?}"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::AttributeValue => "av",
            Self::OneHot => "oh",
            Self::Interval => "interval",
        }
    }
}

/// Domain sizes and constraint kinds of the features, and the slot numbering derived from them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    domain_sizes: Vec<u32>,
    kinds: Vec<ConstraintKind>,
    /// `offsets[f]..offsets[f + 1]` are the slots of feature `f` (empty for interval features).
    offsets: Vec<usize>,
    n_slots: usize,
    feature_of_slot: Vec<u32>,
    /// Per feature: null occurs in its training data (interval features only; false otherwise).
    null_seen: Vec<bool>,
    /// The interval features in feature order, with their index layout.
    intervals: Vec<IntervalLayout>,
    /// Per feature: its position in `intervals`, or `u32::MAX`.
    interval_of: Vec<u32>,
    n_index_slots: usize,
}

impl Schema {
    /// A schema in which no interval feature holds null in training (see [`Self::with_nulls`]).
    pub fn new(domain_sizes: Vec<u32>, kinds: Vec<ConstraintKind>) -> Result<Self> {
        let n = domain_sizes.len();
        Self::with_nulls(domain_sizes, kinds, vec![false; n])
    }

    /// `null_seen[f]`: whether interval feature `f` holds null in the training data (ignored for
    /// the other kinds, whose null is one of their codes). For an interval feature,
    /// `domain_sizes[f]` is its number of distinct non-null training values, which may be 0 only
    /// when null is seen.
    pub fn with_nulls(
        domain_sizes: Vec<u32>,
        kinds: Vec<ConstraintKind>,
        null_seen: Vec<bool>,
    ) -> Result<Self> {
        if domain_sizes.len() != kinds.len() || null_seen.len() != kinds.len() {
            return Err(FindRsError::InvalidParameter(format!(
                "{} domain sizes, {} constraint kinds and {} null flags",
                domain_sizes.len(),
                kinds.len(),
                null_seen.len()
            )));
        }
        if domain_sizes.is_empty() {
            return Err(FindRsError::InvalidData(
                "there are no feature columns".into(),
            ));
        }
        let null_seen: Vec<bool> = null_seen
            .iter()
            .zip(&kinds)
            .map(|(&n, &k)| n && k == ConstraintKind::Interval)
            .collect();
        for (f, (&d, &k)) in domain_sizes.iter().zip(&kinds).enumerate() {
            if k == ConstraintKind::Interval {
                if d == 0 && !null_seen[f] {
                    return Err(FindRsError::InvalidData(format!(
                        "interval feature {f} has no training value"
                    )));
                }
                if d > MAX_VALUES {
                    return Err(FindRsError::InvalidData(format!(
                        "interval feature {f} has {d} distinct values, more than {MAX_VALUES}"
                    )));
                }
            } else if d == 0 {
                return Err(FindRsError::InvalidData(format!(
                    "feature {f} has an empty domain"
                )));
            }
        }
        let slots: u64 = domain_sizes
            .iter()
            .zip(&kinds)
            .filter(|(_, &k)| k != ConstraintKind::Interval)
            .map(|(&d, _)| d as u64 + 1)
            .sum();
        if slots > MAX_SLOTS {
            return Err(FindRsError::InvalidData(format!(
                "the features' domains make {slots} slots, more than {MAX_SLOTS}"
            )));
        }
        let mut offsets = Vec::with_capacity(domain_sizes.len() + 1);
        let mut feature_of_slot = Vec::new();
        let mut interval_of = vec![u32::MAX; domain_sizes.len()];
        let mut n_slots = 0usize;
        let mut n_intervals = 0usize;
        for (f, &d) in domain_sizes.iter().enumerate() {
            offsets.push(n_slots);
            if kinds[f] == ConstraintKind::Interval {
                interval_of[f] = n_intervals as u32;
                n_intervals += 1;
                continue;
            }
            n_slots += d as usize + 1;
            feature_of_slot.extend(std::iter::repeat_n(f as u32, d as usize + 1));
        }
        offsets.push(n_slots);
        // Index slots: the slots, then (with interval features) the zero slot and each
        // interval feature's prefix bitsets.
        let mut intervals = Vec::with_capacity(n_intervals);
        let mut next = n_slots as u32 + 1;
        for (f, &d) in domain_sizes.iter().enumerate() {
            if kinds[f] == ConstraintKind::Interval {
                let (layout, end) = IntervalLayout::new(f, d, null_seen[f], next);
                intervals.push(layout);
                next = end;
            }
        }
        let n_index_slots = if intervals.is_empty() {
            n_slots
        } else {
            next as usize
        };
        Ok(Self {
            domain_sizes,
            kinds,
            offsets,
            n_slots,
            feature_of_slot,
            null_seen,
            intervals,
            interval_of,
            n_index_slots,
        })
    }

    /// The same kind for every feature (the paper's global AV or OH encoding).
    pub fn uniform(domain_sizes: Vec<u32>, kind: ConstraintKind) -> Result<Self> {
        let kinds = vec![kind; domain_sizes.len()];
        Self::new(domain_sizes, kinds)
    }

    #[inline]
    pub fn n_features(&self) -> usize {
        self.domain_sizes.len()
    }

    /// Number of slots (of the AV and OH features).
    #[inline]
    pub fn n_slots(&self) -> usize {
        self.n_slots
    }

    /// Number of training codes of feature `f` (the unseen code is `domain_size(f)`); for an
    /// interval feature, its number of distinct non-null training values `d`.
    #[inline]
    pub fn domain_size(&self, f: usize) -> u32 {
        self.domain_sizes[f]
    }

    pub fn domain_sizes(&self) -> &[u32] {
        &self.domain_sizes
    }

    /// The largest code a row may hold: the unseen code, or an interval feature's null code.
    #[inline]
    pub fn max_code(&self, f: usize) -> u32 {
        match self.kinds[f] {
            ConstraintKind::Interval => interval::null_code(self.domain_sizes[f]),
            _ => self.domain_sizes[f],
        }
    }

    #[inline]
    pub fn kind(&self, f: usize) -> ConstraintKind {
        self.kinds[f]
    }

    pub fn kinds(&self) -> &[ConstraintKind] {
        &self.kinds
    }

    /// Whether interval feature `f` holds null in the training data (false for other kinds).
    #[inline]
    pub fn null_seen(&self, f: usize) -> bool {
        self.null_seen[f]
    }

    pub fn null_seen_flags(&self) -> &[bool] {
        &self.null_seen
    }

    /// True iff some feature is an interval feature.
    #[inline]
    pub fn has_intervals(&self) -> bool {
        !self.intervals.is_empty()
    }

    /// The interval features' layouts, in feature order.
    #[inline]
    pub fn intervals(&self) -> &[IntervalLayout] {
        &self.intervals
    }

    /// The position of feature `f` among the interval features, if it is one.
    #[inline]
    pub fn interval_index(&self, f: usize) -> Option<usize> {
        let j = self.interval_of[f];
        (j != u32::MAX).then_some(j as usize)
    }

    /// Number of row index slots: the slots, then the interval features' bitsets.
    #[inline]
    pub fn n_index_slots(&self) -> usize {
        self.n_index_slots
    }

    /// The index slot that is empty in every row (only with interval features).
    #[inline]
    pub fn zero_slot(&self) -> u32 {
        self.n_slots as u32
    }

    /// Words of the slot bitset part of a rule.
    #[inline]
    pub fn slot_words(&self) -> usize {
        crate::data::bitset::words_for(self.n_slots)
    }

    /// Words of a rule: its slot bitset, then one word per interval feature.
    #[inline]
    pub fn rule_words(&self) -> usize {
        interval::rule_words(self.n_slots, self.intervals.len())
    }

    /// First slot of feature `f`.
    #[inline]
    pub fn offset(&self, f: usize) -> usize {
        self.offsets[f]
    }

    /// Slot of (feature `f`, code `c`); `c == domain_size(f)` is the unseen slot. Not for
    /// interval features, which own no slot.
    #[inline]
    pub fn slot(&self, f: usize, code: u32) -> usize {
        debug_assert!(self.kinds[f] != ConstraintKind::Interval);
        self.offsets[f] + code as usize
    }

    /// Slot range of feature `f`, unseen slot included (empty for an interval feature).
    #[inline]
    pub fn slots(&self, f: usize) -> std::ops::Range<usize> {
        self.offsets[f]..self.offsets[f + 1]
    }

    /// The feature a slot belongs to.
    #[inline]
    pub fn feature_of(&self, slot: usize) -> usize {
        self.feature_of_slot[slot] as usize
    }

    /// Slot of the unseen code of feature `f` (not an interval feature).
    #[inline]
    pub fn unseen_slot(&self, f: usize) -> usize {
        debug_assert!(self.kinds[f] != ConstraintKind::Interval);
        self.offsets[f] + self.domain_sizes[f] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_features_own_no_slot_and_get_index_slots() {
        use ConstraintKind::*;
        let s = Schema::with_nulls(
            vec![3, 1000, 2, 5],
            vec![AttributeValue, Interval, OneHot, Interval],
            vec![true, true, false, false],
        )
        .unwrap();
        assert_eq!(s.n_slots(), 4 + 3);
        assert_eq!(s.slots(1), 4..4);
        assert_eq!(s.slots(2), 4..7);
        assert_eq!(s.interval_index(1), Some(0));
        assert_eq!(s.interval_index(3), Some(1));
        assert_eq!(s.interval_index(2), None);
        assert!(!s.null_seen(0) && s.null_seen(1) && !s.null_seen(3));
        assert_eq!(s.max_code(1), 2001);
        assert_eq!(s.max_code(0), 3);
        assert_eq!(s.zero_slot(), 7);
        let wide = &s.intervals()[0];
        assert!(wide.base > 1 && wide.high == 8);
        let narrow = &s.intervals()[1];
        assert_eq!(narrow.base, 1);
        assert_eq!(narrow.high, wide.null_slot + 1);
        assert_eq!(s.n_index_slots() as u32, narrow.null_slot + 1);
        assert_eq!(s.rule_words(), 1 + 2);
        let plain = Schema::uniform(vec![3, 2], AttributeValue).unwrap();
        assert_eq!(plain.n_index_slots(), plain.n_slots());
        assert!(Schema::new(vec![0], vec![Interval]).is_err());
        assert!(Schema::with_nulls(vec![0], vec![Interval], vec![true]).is_ok());
    }

    /// A domain of u32::MAX (a corrupt model file) allocated 16 GiB of slot table, and the
    /// process aborted: it is refused before anything is allocated.
    #[test]
    fn domains_beyond_the_slot_limit_are_refused() {
        use ConstraintKind::*;
        let err = Schema::uniform(vec![u32::MAX, 3], OneHot).unwrap_err().to_string();
        assert!(err.contains("slots, more than"), "{err}");
        assert!(Schema::uniform(vec![(MAX_SLOTS / 2) as u32; 2], AttributeValue).is_err());
        assert!(Schema::new(vec![u32::MAX, 2], vec![Interval, AttributeValue]).is_err());
    }
}
