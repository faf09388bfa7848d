//! Rules (conjunctions) as sets of allowed slots, their generalization (docs/semantics.md §2 and
//! §3), and the `Terms` through which a rule is evaluated word-parallel over a [`RowIndex`].
//!
//! Invariant: a rule is the set of (feature, code) slots it allows, unseen slots included, and
//! that set is canonical: the unseen slot of a feature is allowed exactly when the constraint's
//! kind says an unseen value satisfies it (AV: only `?`; OH: `|S| >= 2`). So two rules are the
//! same rule (docs/semantics.md §2) iff their slot bitsets are equal, and a feature is
//! unconstrained (`?`) iff all of its slots are allowed.
//!
//! [`RowIndex`]: crate::row_index::RowIndex

use crate::bitset::{self, words_for};
use crate::error::{FindRsError, Result};
use crate::schema::{ConstraintKind, Schema};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    allowed: Vec<u64>,
}

impl Rule {
    /// The most specific rule covering `row` (every feature constrained to the row's code).
    pub fn from_row(schema: &Schema, row: &[u32]) -> Self {
        let mut allowed = vec![0u64; words_for(schema.n_slots())];
        for (f, &c) in row.iter().enumerate() {
            bitset::set(&mut allowed, schema.slot(f, c));
        }
        Self { allowed }
    }

    /// Turns this rule into the most specific rule covering `row`, reusing its allocation.
    pub fn assign_row(&mut self, schema: &Schema, row: &[u32]) {
        self.allowed.clear();
        self.allowed.resize(words_for(schema.n_slots()), 0);
        for (f, &c) in row.iter().enumerate() {
            bitset::set(&mut self.allowed, schema.slot(f, c));
        }
    }

    /// A rule from its slot bitset ([`allowed`](Self::allowed)); an error unless the words
    /// are a canonical rule of `schema` (the right length, no bit past the last slot, unseen
    /// slots as docs/semantics.md §2 says).
    pub fn from_words(schema: &Schema, words: Vec<u64>) -> Result<Self> {
        if words.len() != words_for(schema.n_slots()) {
            return Err(FindRsError::InvalidData(format!(
                "a rule of this schema has {} words, got {}",
                words_for(schema.n_slots()),
                words.len()
            )));
        }
        let rule = Self { allowed: words };
        let canonical = Self::from_constraints(schema, &rule.constraints(schema))?;
        if canonical != rule {
            return Err(FindRsError::InvalidData(
                "a rule's slot bitset is not canonical for its schema".into(),
            ));
        }
        Ok(rule)
    }

    /// A rule from its constraints: `(feature, allowed training codes)`; features not listed
    /// are unconstrained. AV constraints must allow exactly one code.
    pub fn from_constraints(schema: &Schema, constraints: &[(usize, Vec<u32>)]) -> Result<Self> {
        let mut allowed = vec![0u64; words_for(schema.n_slots())];
        let mut seen = vec![false; schema.n_features()];
        for (f, codes) in constraints {
            let f = *f;
            if f >= schema.n_features() {
                return Err(FindRsError::InvalidData(format!(
                    "a constraint names feature {f}, but there are {} features",
                    schema.n_features()
                )));
            }
            if std::mem::replace(&mut seen[f], true) {
                return Err(FindRsError::InvalidData(format!(
                    "feature {f} is constrained twice in one rule"
                )));
            }
            let d = schema.domain_size(f);
            if codes.is_empty() {
                return Err(FindRsError::InvalidData(format!(
                    "the constraint on feature {f} allows no value"
                )));
            }
            if let Some(&bad) = codes.iter().find(|&&c| c >= d) {
                return Err(FindRsError::InvalidData(format!(
                    "the constraint on feature {f} allows code {bad}, outside its domain 0..{d}"
                )));
            }
            if schema.kind(f) == ConstraintKind::AttributeValue && codes.len() != 1 {
                return Err(FindRsError::InvalidData(format!(
                    "an AV constraint on feature {f} must allow exactly one value, got {}",
                    codes.len()
                )));
            }
            for &c in codes {
                bitset::set(&mut allowed, schema.slot(f, c));
            }
            let n_allowed = bitset::count_range(&allowed, schema.offset(f), schema.unseen_slot(f));
            if unseen_allowed(schema.kind(f), n_allowed) {
                bitset::set(&mut allowed, schema.unseen_slot(f));
            }
        }
        for f in (0..schema.n_features()).filter(|&f| !seen[f]) {
            let r = schema.slots(f);
            bitset::set_range(&mut allowed, r.start, r.end);
        }
        Ok(Self { allowed })
    }

    #[inline]
    pub fn allowed(&self) -> &[u64] {
        &self.allowed
    }

    #[inline]
    pub fn allows(&self, slot: usize) -> bool {
        bitset::get(&self.allowed, slot)
    }

    /// True iff the rule covers the row given by its codes.
    pub fn covers_row(&self, schema: &Schema, row: &[u32]) -> bool {
        row.iter()
            .enumerate()
            .all(|(f, &c)| self.allows(schema.slot(f, c)))
    }

    /// True iff feature `f` is unconstrained (`?`).
    pub fn is_free(&self, schema: &Schema, f: usize) -> bool {
        schema.slots(f).all(|s| self.allows(s))
    }

    /// The constrained features with their allowed training codes, in feature order.
    pub fn constraints(&self, schema: &Schema) -> Vec<(usize, Vec<u32>)> {
        (0..schema.n_features())
            .filter(|&f| !self.is_free(schema, f))
            .map(|f| {
                let codes = (0..schema.domain_size(f))
                    .filter(|&c| self.allows(schema.slot(f, c)))
                    .collect();
                (f, codes)
            })
            .collect()
    }

    /// Generalizes the rule to cover `row` (semantics §3): AV drops every constraint the row
    /// violates, OH adds the row's value to each set. Returns true iff the rule changed.
    pub fn generalize(&mut self, schema: &Schema, row: &[u32]) -> bool {
        generalize_into(&mut self.allowed, schema, row)
    }

    /// Appends to `terms` the terms that evaluate this rule (see [`Terms`]).
    pub fn terms(&self, schema: &Schema, terms: &mut Terms) {
        terms.clear();
        build_terms(&self.allowed, schema, terms);
    }
}

/// Whether the unseen slot is allowed, given the number of allowed training codes (semantics §2).
#[inline]
fn unseen_allowed(kind: ConstraintKind, n_allowed_training: usize) -> bool {
    match kind {
        // AV: only `?` admits unseen values; `?` is handled by setting the whole feature.
        ConstraintKind::AttributeValue => false,
        ConstraintKind::OneHot => n_allowed_training >= 2,
    }
}

/// In-place generalization of an allowed-slot bitset to cover `row`; true iff it changed.
pub(crate) fn generalize_into(allowed: &mut [u64], schema: &Schema, row: &[u32]) -> bool {
    let mut changed = false;
    for (f, &c) in row.iter().enumerate() {
        let s = schema.slot(f, c);
        if bitset::get(allowed, s) {
            continue;
        }
        changed = true;
        match schema.kind(f) {
            ConstraintKind::AttributeValue => {
                let r = schema.slots(f);
                bitset::set_range(allowed, r.start, r.end);
            }
            ConstraintKind::OneHot => {
                bitset::set(allowed, s);
                // The set now holds at least two training codes (it held one or more before).
                bitset::set(allowed, schema.unseen_slot(f));
            }
        }
    }
    changed
}

/// One multi-slot or negated term: the rows whose code of one feature lies in a slot list
/// (`negate == false`), or outside it (`negate == true`).
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    end: u32,
    negate: bool,
    feature: u32,
}

/// The terms of a rule in evaluation order: one per constrained feature. A term allowing a
/// single slot is kept in `singles` (its word is ANDed in directly, the common case, and the one
/// that zeroes a word fastest); any other term is a short OR of slot bitsets (the allowed slots,
/// or the complement of the disallowed ones, whichever list is shorter).
#[derive(Clone, Debug, Default)]
pub struct Terms {
    singles: Vec<u32>,
    single_features: Vec<u32>,
    slots: Vec<u32>,
    spans: Vec<Span>,
}

#[derive(Clone, Copy)]
pub struct TermRef<'a> {
    slots: &'a [u32],
    negate: bool,
    pub feature: usize,
}

impl TermRef<'_> {
    /// The rows of one word that satisfy this term, given that word of every slot.
    #[inline(always)]
    pub fn eval(&self, word_of_slot: &[u64]) -> u64 {
        let mut x = 0u64;
        for &s in self.slots {
            x |= word_of_slot[s as usize];
        }
        if self.negate {
            !x
        } else {
            x
        }
    }
}

impl Terms {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn clear(&mut self) {
        self.singles.clear();
        self.single_features.clear();
        self.slots.clear();
        self.spans.clear();
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.singles.len() + self.spans.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows of one word (given that word of every slot) that satisfy every term, within `valid`.
    #[inline]
    pub fn eval_all(&self, word_of_slot: &[u64], valid: u64) -> u64 {
        let mut acc = valid;
        for chunk in self.singles.chunks(4) {
            for &s in chunk {
                acc &= word_of_slot[s as usize];
            }
            if acc == 0 {
                return 0;
            }
        }
        for i in 0..self.spans.len() {
            acc &= self.span(i).eval(word_of_slot);
            if acc == 0 {
                return 0;
            }
        }
        acc
    }

    /// The slots of the single-slot terms (terms `0..singles().len()`).
    #[inline]
    pub fn singles(&self) -> &[u32] {
        &self.singles
    }

    /// Term `singles().len() + i`.
    #[inline]
    pub fn span(&self, i: usize) -> TermRef<'_> {
        let s = self.spans[i];
        TermRef {
            slots: &self.slots[s.start as usize..s.end as usize],
            negate: s.negate,
            feature: s.feature as usize,
        }
    }

    /// Term `i`: singles first, then the others.
    #[inline]
    pub fn get(&self, i: usize) -> TermRef<'_> {
        let n = self.singles.len();
        if i < n {
            TermRef {
                slots: &self.singles[i..i + 1],
                negate: false,
                feature: self.single_features[i] as usize,
            }
        } else {
            self.span(i - n)
        }
    }

    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = TermRef<'_>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    fn push_single(&mut self, slot: u32, feature: u32) {
        self.singles.push(slot);
        self.single_features.push(feature);
    }

    /// Empty terms with room for a rule over `n_features` features.
    pub fn with_capacity(n_features: usize) -> Self {
        Self {
            singles: Vec::with_capacity(n_features),
            single_features: Vec::with_capacity(n_features),
            slots: Vec::new(),
            spans: Vec::new(),
        }
    }

    fn push_span(&mut self, slots: impl Iterator<Item = u32>, negate: bool, feature: u32) {
        let start = self.slots.len() as u32;
        self.slots.extend(slots);
        let end = self.slots.len() as u32;
        if end - start == 1 && !negate {
            let s = self.slots.pop().expect("one slot");
            self.push_single(s, feature);
        } else if !(negate && end == start) {
            // (A negated empty list holds for every row: no term.)
            self.spans.push(Span {
                start,
                end,
                negate,
                feature,
            });
        }
    }

    /// Appends a copy of `t`.
    #[inline]
    pub fn push_term(&mut self, t: TermRef<'_>) {
        if t.slots.len() == 1 && !t.negate {
            self.push_single(t.slots[0], t.feature as u32);
        } else {
            self.push_span(t.slots.iter().copied(), t.negate, t.feature as u32);
        }
    }

    /// Appends `t` widened to also allow `slot` (one-hot generalization). Only for evaluation on
    /// training rows: the unseen slot, which no training row holds, is not updated.
    pub fn push_term_with(&mut self, t: TermRef<'_>, slot: u32) {
        if t.negate {
            self.push_span(
                t.slots.iter().copied().filter(|&s| s != slot),
                true,
                t.feature as u32,
            );
        } else {
            self.push_span(
                t.slots.iter().copied().chain(std::iter::once(slot)),
                false,
                t.feature as u32,
            );
        }
    }

}

fn build_terms(allowed: &[u64], schema: &Schema, terms: &mut Terms) {
    for f in 0..schema.n_features() {
        let range = schema.slots(f);
        let width = range.len();
        if width > 64 {
            build_wide_term(allowed, range, f, terms);
            continue;
        }
        // The feature's slots fit one word: one extract, then bit tricks.
        let bits = bitset::extract(allowed, range.start, width);
        let n_allowed = bits.count_ones() as usize;
        if n_allowed == width {
            continue;
        }
        let negate = n_allowed * 2 > width;
        if !negate && n_allowed == 1 {
            terms.push_single(
                (range.start + bits.trailing_zeros() as usize) as u32,
                f as u32,
            );
            continue;
        }
        let full = if width == 64 { !0 } else { (1u64 << width) - 1 };
        let mut pick = if negate { !bits & full } else { bits };
        let start = terms.slots.len() as u32;
        while pick != 0 {
            terms
                .slots
                .push((range.start + pick.trailing_zeros() as usize) as u32);
            pick &= pick - 1;
        }
        let end = terms.slots.len() as u32;
        terms.spans.push(Span {
            start,
            end,
            negate,
            feature: f as u32,
        });
    }
}

/// The term of a feature with more than 64 slots.
fn build_wide_term(allowed: &[u64], range: std::ops::Range<usize>, f: usize, terms: &mut Terms) {
    let width = range.len();
    let n_allowed = bitset::count_range(allowed, range.start, range.end);
    if n_allowed == width {
        return;
    }
    let negate = n_allowed * 2 > width;
    let start = terms.slots.len() as u32;
    let slots = &mut terms.slots;
    bitset::for_each_in_range(allowed, range.start, range.end, !negate, |s| {
        slots.push(s as u32)
    });
    let end = terms.slots.len() as u32;
    if end - start == 1 && !negate {
        let s = terms.slots.pop().expect("one slot");
        terms.push_single(s, f as u32);
    } else {
        terms.spans.push(Span {
            start,
            end,
            negate,
            feature: f as u32,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(kind: ConstraintKind) -> Schema {
        Schema::uniform(vec![3, 2, 1], kind).unwrap()
    }

    #[test]
    fn av_generalize_drops_violated_constraints() {
        let s = schema(ConstraintKind::AttributeValue);
        let mut r = Rule::from_row(&s, &[0, 1, 0]);
        assert!(r.covers_row(&s, &[0, 1, 0]));
        assert!(!r.covers_row(&s, &[1, 1, 0]));
        assert!(r.generalize(&s, &[2, 1, 0]));
        assert!(r.is_free(&s, 0));
        assert!(r.covers_row(&s, &[3, 1, 0]), "? admits the unseen code");
        assert_eq!(r.constraints(&s), vec![(1, vec![1]), (2, vec![0])]);
        assert!(!r.generalize(&s, &[1, 1, 0]));
    }

    #[test]
    fn oh_generalize_grows_sets_and_unseen_follows_spec2() {
        let s = schema(ConstraintKind::OneHot);
        let mut r = Rule::from_row(&s, &[0, 1, 0]);
        assert!(!r.covers_row(&s, &[3, 1, 0]), "a = v rejects unseen values");
        r.generalize(&s, &[2, 1, 0]);
        assert_eq!(r.constraints(&s)[0], (0, vec![0, 2]));
        assert!(
            r.covers_row(&s, &[3, 1, 0]),
            "a not in {{1}} admits unseen values"
        );
        assert!(!r.covers_row(&s, &[1, 1, 0]));
        r.generalize(&s, &[1, 0, 0]);
        assert!(r.is_free(&s, 0) && r.is_free(&s, 1));
        assert!(!r.is_free(&s, 2), "a one-value domain stays `a = v`");
    }

    #[test]
    fn from_words_accepts_canonical_rules_only() {
        for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
            let s = schema(kind);
            let mut r = Rule::from_row(&s, &[1, 0, 0]);
            r.generalize(&s, &[2, 0, 0]);
            assert_eq!(Rule::from_words(&s, r.allowed().to_vec()).unwrap(), r);
        }
        let s = schema(ConstraintKind::AttributeValue);
        // slots: a 0..4 (3 = unseen), b 4..7, c 7..9; n_slots = 9.
        let two_values = 0b11 | 0b1111 << 4 | 0b11 << 7;
        assert!(Rule::from_words(&s, vec![two_values]).is_err(), "AV allows one value or all");
        let past_the_end = 0b1 | 0b1111 << 4 | 0b11 << 7 | 1 << 20;
        assert!(Rule::from_words(&s, vec![past_the_end]).is_err());
        assert!(Rule::from_words(&s, vec![0, 0]).is_err(), "wrong length");
        let s = schema(ConstraintKind::OneHot);
        let single_with_unseen = 0b1001 | 0b1111 << 4 | 0b11 << 7;
        assert!(Rule::from_words(&s, vec![single_with_unseen]).is_err(), "docs/semantics.md §2");
    }

    #[test]
    fn from_constraints_round_trips() {
        for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
            let s = schema(kind);
            let mut r = Rule::from_row(&s, &[1, 0, 0]);
            r.generalize(&s, &[2, 0, 0]);
            let back = Rule::from_constraints(&s, &r.constraints(&s)).unwrap();
            assert_eq!(back, r);
        }
        let s = schema(ConstraintKind::AttributeValue);
        assert!(Rule::from_constraints(&s, &[(0, vec![0, 1])]).is_err());
        assert!(Rule::from_constraints(&s, &[(5, vec![0])]).is_err());
        assert!(Rule::from_constraints(&s, &[(0, vec![3])]).is_err());
    }
}
