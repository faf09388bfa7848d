//! The feature layout shared by data, rules and models.
//!
//! Every feature `f` has a training domain of `d_f` dense codes `0..d_f` (null, where present, is
//! one of them) plus one extra code `d_f` that stands for "a value never seen in training". Each
//! (feature, code) pair owns one *slot*; slots of feature `f` are `offset(f)..offset(f) + d_f + 1`.
//!
//! Invariant: slot numbering is a pure function of the domain sizes, so two schemas with equal
//! domain sizes and kinds number slots identically and rules can be compared as slot bitsets.

use crate::error::{FindRsError, Result};

/// How a feature's constraint generalizes (docs/semantics.md §2). A new kind of constraint (for
/// example a numeric interval, docs/semantics.md §7) is a new variant here plus its `generalize`
/// and near-miss rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// Attribute-value: `a = v` or `?`.
    AttributeValue,
    /// One-hot: a value set `S`; `a = v` when `|S| = 1`, `a not in (domain - S)` when `|S| >= 2`.
    OneHot,
}

impl ConstraintKind {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "av" => Ok(Self::AttributeValue),
            "oh" => Ok(Self::OneHot),
            other => Err(FindRsError::InvalidParameter(format!(
                "encoding must be 'av' or 'oh', got {other:?}"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::AttributeValue => "av",
            Self::OneHot => "oh",
        }
    }
}

/// Domain sizes and constraint kinds of the features, and the slot numbering derived from them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    domain_sizes: Vec<u32>,
    kinds: Vec<ConstraintKind>,
    offsets: Vec<usize>,
    n_slots: usize,
    feature_of_slot: Vec<u32>,
}

impl Schema {
    pub fn new(domain_sizes: Vec<u32>, kinds: Vec<ConstraintKind>) -> Result<Self> {
        if domain_sizes.len() != kinds.len() {
            return Err(FindRsError::InvalidParameter(format!(
                "{} domain sizes but {} constraint kinds",
                domain_sizes.len(),
                kinds.len()
            )));
        }
        if domain_sizes.is_empty() {
            return Err(FindRsError::InvalidData(
                "there are no feature columns".into(),
            ));
        }
        if let Some(f) = domain_sizes.iter().position(|&d| d == 0) {
            return Err(FindRsError::InvalidData(format!(
                "feature {f} has an empty domain"
            )));
        }
        let mut offsets = Vec::with_capacity(domain_sizes.len());
        let mut feature_of_slot = Vec::new();
        let mut n_slots = 0usize;
        for (f, &d) in domain_sizes.iter().enumerate() {
            offsets.push(n_slots);
            n_slots += d as usize + 1;
            feature_of_slot.extend(std::iter::repeat_n(f as u32, d as usize + 1));
        }
        Ok(Self {
            domain_sizes,
            kinds,
            offsets,
            n_slots,
            feature_of_slot,
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

    #[inline]
    pub fn n_slots(&self) -> usize {
        self.n_slots
    }

    /// Number of training codes of feature `f` (the unseen code is `domain_size(f)`).
    #[inline]
    pub fn domain_size(&self, f: usize) -> u32 {
        self.domain_sizes[f]
    }

    pub fn domain_sizes(&self) -> &[u32] {
        &self.domain_sizes
    }

    #[inline]
    pub fn kind(&self, f: usize) -> ConstraintKind {
        self.kinds[f]
    }

    pub fn kinds(&self) -> &[ConstraintKind] {
        &self.kinds
    }

    /// First slot of feature `f`.
    #[inline]
    pub fn offset(&self, f: usize) -> usize {
        self.offsets[f]
    }

    /// Slot of (feature `f`, code `c`); `c == domain_size(f)` is the unseen slot.
    #[inline]
    pub fn slot(&self, f: usize, code: u32) -> usize {
        self.offsets[f] + code as usize
    }

    /// Slot range of feature `f`, unseen slot included.
    #[inline]
    pub fn slots(&self, f: usize) -> std::ops::Range<usize> {
        self.offsets[f]..self.offsets[f] + self.domain_sizes[f] as usize + 1
    }

    /// The feature a slot belongs to.
    #[inline]
    pub fn feature_of(&self, slot: usize) -> usize {
        self.feature_of_slot[slot] as usize
    }

    /// Slot of the unseen code of feature `f`.
    #[inline]
    pub fn unseen_slot(&self, f: usize) -> usize {
        self.offsets[f] + self.domain_sizes[f] as usize
    }
}
