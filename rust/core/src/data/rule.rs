//! Rules (conjunctions) as sets of allowed slots plus intervals, their generalization
//! (docs/semantics.md §2 and §3), and the `Terms` through which a rule is evaluated
//! word-parallel over a [`RowIndex`].
//!
//! Invariant: a rule's words are the set of (feature, code) slots it allows, unseen slots
//! included, followed by one packed interval per interval feature
//! ([`interval`](crate::data::interval)), and they are canonical: the unseen slot of a feature is
//! allowed exactly when the constraint's kind says an unseen value satisfies it (AV: only `?`;
//! OH: `|S| >= 2`), and an interval is in the canonical form of its module. So two rules are the
//! same rule (docs/semantics.md §2) iff their words are equal, and a feature is unconstrained
//! (`?`) iff all of its slots are allowed (an interval feature: iff its interval is the free one).
//!
//! [`RowIndex`]: crate::data::row_index::RowIndex

use crate::data::bitset;
use crate::data::error::{FindRsError, Result};
use crate::data::interval::{null_code, Bounds, Interval, IntervalLayout, IntervalTerm};
use crate::data::schema::{ConstraintKind, Schema};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    allowed: Vec<u64>,
}

/// Sets in `words` (zeroed, `schema.rule_words()` long) the most specific rule covering `row`.
#[inline]
fn fill_row(words: &mut [u64], schema: &Schema, row: &[u32]) {
    if !schema.has_intervals() {
        for (f, &c) in row.iter().enumerate() {
            bitset::set(words, schema.slot(f, c));
        }
        return;
    }
    let sw = schema.slot_words();
    for (f, &c) in row.iter().enumerate() {
        match schema.interval_index(f) {
            None => bitset::set(words, schema.slot(f, c)),
            Some(j) => {
                let l = &schema.intervals()[j];
                words[sw + j] = Bounds::of_code(l.n_values, l.null_seen, c).pack();
            }
        }
    }
}

impl Rule {
    /// The most specific rule covering the training row `row` (every feature constrained to
    /// the row's code).
    pub fn from_row(schema: &Schema, row: &[u32]) -> Self {
        let mut allowed = vec![0u64; schema.rule_words()];
        fill_row(&mut allowed, schema, row);
        Self { allowed }
    }

    /// Turns this rule into the most specific rule covering `row`, reusing its allocation.
    pub fn assign_row(&mut self, schema: &Schema, row: &[u32]) {
        self.allowed.clear();
        self.allowed.resize(schema.rule_words(), 0);
        fill_row(&mut self.allowed, schema, row);
    }

    /// A rule from its words ([`allowed`](Self::allowed)); an error unless the words are a
    /// canonical rule of `schema` (the right length, no bit past the last slot, unseen slots as
    /// docs/semantics.md §2 says, canonical intervals).
    pub fn from_words(schema: &Schema, words: Vec<u64>) -> Result<Self> {
        if words.len() != schema.rule_words() {
            return Err(FindRsError::InvalidData(format!(
                "a rule of this schema has {} words, got {}",
                schema.rule_words(),
                words.len()
            )));
        }
        let sw = schema.slot_words();
        for (j, l) in schema.intervals().iter().enumerate() {
            if !is_canonical_word(l, words[sw + j]) {
                return Err(FindRsError::InvalidData(format!(
                    "a rule's interval on feature {} is not canonical for its schema",
                    l.feature
                )));
            }
        }
        let rule = Self { allowed: words };
        // The slot part: rebuild it from the slot features' constraints.
        let slot_constraints: Vec<(usize, Vec<u32>)> = (0..schema.n_features())
            .filter(|&f| schema.interval_index(f).is_none() && !rule.is_free(schema, f))
            .map(|f| (f, rule.slot_codes(schema, f)))
            .collect();
        let mut canonical = Self::from_constraints(schema, &slot_constraints)?;
        canonical.allowed[sw..].copy_from_slice(&rule.allowed[sw..]);
        if canonical != rule {
            return Err(FindRsError::InvalidData(
                "a rule's slot bitset is not canonical for its schema".into(),
            ));
        }
        Ok(rule)
    }

    /// Words known to be a canonical rule of the schema they are used with.
    pub(crate) fn from_words_unchecked(words: Vec<u64>) -> Self {
        Self { allowed: words }
    }

    /// A rule from its constraints: `(feature, allowed training codes)`; features not listed
    /// are unconstrained. AV constraints must allow exactly one code. An interval feature's
    /// codes are gap codes: the odd codes of the first and last values it allows (one code when
    /// they are the same value; a contiguous run of all its values is read the same way),
    /// and/or its null code (when null occurs in training), as [`constraints`](Self::constraints)
    /// lists them.
    pub fn from_constraints(schema: &Schema, constraints: &[(usize, Vec<u32>)]) -> Result<Self> {
        Self::from_parts(schema, constraints, &[])
    }

    /// [`from_constraints`](Self::from_constraints) with interval features' constraints also
    /// given as [`Interval`]s (each feature listed once in all).
    pub fn from_parts(
        schema: &Schema,
        constraints: &[(usize, Vec<u32>)],
        intervals: &[(usize, Interval)],
    ) -> Result<Self> {
        let mut allowed = vec![0u64; schema.rule_words()];
        let sw = schema.slot_words();
        for (j, l) in schema.intervals().iter().enumerate() {
            allowed[sw + j] = Bounds::free(l.n_values).pack();
        }
        let mut seen = vec![false; schema.n_features()];
        let mut check_feature = |f: usize| -> Result<()> {
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
            Ok(())
        };
        for (f, iv) in intervals {
            let f = *f;
            check_feature(f)?;
            let Some(j) = schema.interval_index(f) else {
                return Err(FindRsError::InvalidData(format!(
                    "an interval constrains feature {f}, which is not an interval feature"
                )));
            };
            let b = schema.intervals()[j]
                .bounds_of(iv)
                .map_err(FindRsError::InvalidData)?;
            allowed[sw + j] = b.pack();
        }
        for (f, codes) in constraints {
            let f = *f;
            check_feature(f)?;
            let d = schema.domain_size(f);
            if codes.is_empty() {
                return Err(FindRsError::InvalidData(format!(
                    "the constraint on feature {f} allows no value"
                )));
            }
            if let Some(j) = schema.interval_index(f) {
                allowed[sw + j] = interval_of_codes(&schema.intervals()[j], codes)?.pack();
                continue;
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

    /// The rule's words: its slot bitset (`schema.slot_words()` words), then one packed
    /// interval per interval feature.
    #[inline]
    pub fn allowed(&self) -> &[u64] {
        &self.allowed
    }

    #[inline]
    pub fn allows(&self, slot: usize) -> bool {
        bitset::get(&self.allowed, slot)
    }

    /// The interval of the `j`-th interval feature (free included).
    #[inline]
    pub(crate) fn bounds(&self, schema: &Schema, j: usize) -> Bounds {
        Bounds::unpack(self.allowed[schema.slot_words() + j])
    }

    /// Sets the interval of the `j`-th interval feature (`b` canonical for it, as
    /// [`Bounds::canonical`] leaves it).
    #[inline]
    pub(crate) fn set_bounds(&mut self, schema: &Schema, j: usize, b: Bounds) {
        self.allowed[schema.slot_words() + j] = b.pack();
    }

    /// True iff the rule covers the row given by its codes.
    pub fn covers_row(&self, schema: &Schema, row: &[u32]) -> bool {
        row.iter()
            .enumerate()
            .all(|(f, &c)| match schema.interval_index(f) {
                None => self.allows(schema.slot(f, c)),
                Some(j) => self.bounds(schema, j).covers(schema.domain_size(f), c),
            })
    }

    /// True iff feature `f` is unconstrained (`?`).
    pub fn is_free(&self, schema: &Schema, f: usize) -> bool {
        match schema.interval_index(f) {
            None => schema.slots(f).all(|s| self.allows(s)),
            Some(j) => self.bounds(schema, j).is_free(schema.domain_size(f)),
        }
    }

    /// The interval constraint on interval feature `f`, or None when `f` is free (or not an
    /// interval feature).
    pub fn interval(&self, schema: &Schema, f: usize) -> Option<Interval> {
        let j = schema.interval_index(f)?;
        let d = schema.domain_size(f);
        let b = self.bounds(schema, j);
        (!b.is_free(d)).then(|| b.to_interval(d))
    }

    fn slot_codes(&self, schema: &Schema, f: usize) -> Vec<u32> {
        (0..schema.domain_size(f))
            .filter(|&c| self.allows(schema.slot(f, c)))
            .collect()
    }

    /// The constrained features with their allowed training codes, in feature order. An
    /// interval feature lists the odd gap codes of all its allowed training values, then its
    /// null code if null is allowed (see [`interval`](Self::interval) for the compact form;
    /// the public table lists an interval's ends only, [`ConstraintTable`](crate::ConstraintTable)).
    pub fn constraints(&self, schema: &Schema) -> Vec<(usize, Vec<u32>)> {
        (0..schema.n_features())
            .filter(|&f| !self.is_free(schema, f))
            .map(|f| match schema.interval_index(f) {
                None => (f, self.slot_codes(schema, f)),
                Some(j) => {
                    let d = schema.domain_size(f);
                    let iv = self.bounds(schema, j).to_interval(d);
                    let mut codes: Vec<u32> = match iv.values {
                        Some((lo, hi)) => (lo..=hi).map(|r| 2 * r + 1).collect(),
                        None => Vec::new(),
                    };
                    if iv.null {
                        codes.push(null_code(d));
                    }
                    (f, codes)
                }
            })
            .collect()
    }

    /// Generalizes the rule to cover `row` (docs/semantics.md §3): AV drops every constraint the row
    /// violates, OH adds the row's value to each set, an interval widens to the row's value.
    /// Returns true iff the rule changed.
    pub fn generalize(&mut self, schema: &Schema, row: &[u32]) -> bool {
        let sw = schema.slot_words();
        let mut changed = generalize_into(&mut self.allowed[..sw], schema, row);
        for (j, l) in schema.intervals().iter().enumerate() {
            let w = &mut self.allowed[sw + j];
            let mut b = Bounds::unpack(*w);
            if b.widen(l.n_values, l.null_seen, row[l.feature]) {
                *w = b.pack();
                changed = true;
            }
        }
        changed
    }

    /// Drops the constraint on feature `f`: the feature becomes unconstrained (`?`: every slot
    /// allowed, the unseen one included; an interval feature's free interval), which keeps the
    /// rule canonical.
    pub fn drop_constraint(&mut self, schema: &Schema, f: usize) {
        match schema.interval_index(f) {
            None => {
                let r = schema.slots(f);
                bitset::set_range(&mut self.allowed, r.start, r.end);
            }
            Some(j) => {
                self.allowed[schema.slot_words() + j] = Bounds::free(schema.domain_size(f)).pack()
            }
        }
    }

    /// The number of constrained features.
    pub fn n_constraints(&self, schema: &Schema) -> usize {
        (0..schema.n_features())
            .filter(|&f| !self.is_free(schema, f))
            .count()
    }

    /// True iff every row this rule covers, `other` covers too, whatever its values (unseen
    /// ones and every gap code included): this rule's allowed slots are a subset of `other`'s
    /// and each of its intervals lies within `other`'s.
    pub fn is_subsumed_by(&self, schema: &Schema, other: &Rule) -> bool {
        let sw = schema.slot_words();
        let slots = self.allowed[..sw]
            .iter()
            .zip(&other.allowed[..sw])
            .all(|(&a, &b)| a & !b == 0);
        slots
            && (0..schema.intervals().len()).all(|j| {
                let (a, b) = (self.bounds(schema, j), other.bounds(schema, j));
                (!a.null || b.null) && (a.is_empty() || (b.lo <= a.lo && a.hi <= b.hi))
            })
    }

    /// Appends to `terms` the terms that evaluate this rule (see [`Terms`]).
    pub(crate) fn terms(&self, schema: &Schema, terms: &mut Terms) {
        terms.clear();
        build_terms(&self.allowed, schema, terms);
        if schema.has_intervals() {
            let zero = schema.zero_slot();
            for (j, l) in schema.intervals().iter().enumerate() {
                let b = self.bounds(schema, j);
                if !b.is_free(l.n_values) {
                    terms.ivs.push(IntervalTerm::new(l, zero, b));
                }
            }
        }
    }
}

/// Whether `w` is a canonical packed interval of feature `l`.
fn is_canonical_word(l: &IntervalLayout, w: u64) -> bool {
    let b = Bounds::unpack(w);
    if b.pack() != w {
        return false;
    }
    let d = l.n_values;
    let valid = if b.is_empty() {
        b == Bounds { null: true, ..Bounds::nothing() } && l.null_seen
    } else {
        let end_ok = |c: u32, open: u32| c == open || (c % 2 == 1 && c < 2 * d);
        b.hi <= 2 * d && end_ok(b.lo, 0) && end_ok(b.hi, 2 * d)
    };
    valid && b.canonical(d, l.null_seen) == b && (!b.null || l.null_seen || b.is_free(d))
}

/// The interval allowing exactly the training codes `codes` (odd gap codes of contiguous
/// values, and/or the null code), canonical.
/// The gap codes of an interval's first and last values (one code when they coincide; none
/// for `x is null`), then null's when it passes: the form tables and files use.
pub(crate) fn interval_end_codes(iv: &Interval) -> Vec<u32> {
    let mut codes: Vec<u32> = match iv.values {
        Some((lo, hi)) if lo == hi => vec![2 * lo + 1],
        Some((lo, hi)) => vec![2 * lo + 1, 2 * hi + 1],
        None => Vec::new(),
    };
    codes.reserve(1);
    codes
}

fn interval_of_codes(l: &IntervalLayout, codes: &[u32]) -> Result<Bounds> {
    let (f, d) = (l.feature, l.n_values);
    let mut null = false;
    let mut ranks = Vec::with_capacity(codes.len());
    for &c in codes {
        if c == null_code(d) && l.null_seen {
            null = true;
        } else if c % 2 == 1 && c < 2 * d {
            ranks.push((c - 1) / 2);
        } else {
            return Err(FindRsError::InvalidData(format!(
                "the constraint on interval feature {f} allows code {c}, not a training code \
                 (odd codes below {} are values{})",
                2 * d,
                if l.null_seen {
                    format!(", {} is null", null_code(d))
                } else {
                    String::new()
                }
            )));
        }
    }
    ranks.sort_unstable();
    ranks.dedup();
    let values = match (ranks.first(), ranks.last()) {
        (Some(&lo), Some(&hi)) => {
            // The two ends, or every value from the first to the last.
            if ranks.len() > 2 && (hi - lo) as usize + 1 != ranks.len() {
                return Err(FindRsError::InvalidData(format!(
                    "the constraint on interval feature {f} lists {} values that are not \
                     contiguous (ranks {lo}..={hi} with gaps); an interval lists its first and \
                     last values",
                    ranks.len()
                )));
            }
            Some((lo, hi))
        }
        _ => None,
    };
    l.bounds_of(&Interval { values, null })
        .map_err(FindRsError::InvalidData)
}

/// Whether the unseen slot is allowed, given the number of allowed training codes (docs/semantics.md §2).
#[inline]
fn unseen_allowed(kind: ConstraintKind, n_allowed_training: usize) -> bool {
    match kind {
        // AV: only `?` admits unseen values; `?` is handled by setting the whole feature.
        ConstraintKind::AttributeValue => false,
        ConstraintKind::OneHot => n_allowed_training >= 2,
        ConstraintKind::Interval => unreachable!("interval features own no slot"),
    }
}

/// In-place generalization of the slot bitset of a rule (its first `schema.slot_words()`
/// words) to cover `row` on the AV and OH features; true iff it changed.
pub(crate) fn generalize_into(allowed: &mut [u64], schema: &Schema, row: &[u32]) -> bool {
    if schema.has_intervals() {
        return generalize_slots_skipping_intervals(allowed, schema, row);
    }
    let mut changed = false;
    for (f, &c) in row.iter().enumerate() {
        let s = schema.slot(f, c);
        if bitset::get(allowed, s) {
            continue;
        }
        changed = true;
        generalize_slot(allowed, schema, f, s);
    }
    changed
}

fn generalize_slots_skipping_intervals(allowed: &mut [u64], schema: &Schema, row: &[u32]) -> bool {
    let mut changed = false;
    for (f, &c) in row.iter().enumerate() {
        if schema.kind(f) == ConstraintKind::Interval {
            continue;
        }
        let s = schema.slot(f, c);
        if bitset::get(allowed, s) {
            continue;
        }
        changed = true;
        generalize_slot(allowed, schema, f, s);
    }
    changed
}

/// Allows slot `s` of feature `f`, which the rule does not allow yet (docs/semantics.md §3).
#[inline]
fn generalize_slot(allowed: &mut [u64], schema: &Schema, f: usize, s: usize) {
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
        ConstraintKind::Interval => unreachable!("interval features own no slot"),
    }
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
/// that zeroes a word fastest); any other slot term is a short OR of slot bitsets (the allowed
/// slots, or the complement of the disallowed ones, whichever list is shorter); an interval
/// feature's term is an [`IntervalTerm`] over the index's prefix bitsets. The *slot terms* are
/// the singles and the spans ([`len`](Self::len) of them); the interval terms come last.
#[derive(Clone, Debug, Default)]
pub struct Terms {
    singles: Vec<u32>,
    single_features: Vec<u32>,
    slots: Vec<u32>,
    spans: Vec<Span>,
    ivs: Vec<IntervalTerm>,
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
        self.ivs.clear();
    }

    /// Number of slot terms (singles and spans; the interval terms are [`intervals`](Self::intervals)).
    #[inline]
    pub fn len(&self) -> usize {
        self.singles.len() + self.spans.len()
    }

    /// True iff there is no term at all (the rule covers every row).
    #[inline]
    #[allow(dead_code)] // beside `len`
    pub fn is_empty(&self) -> bool {
        self.len() == 0 && self.ivs.is_empty()
    }

    /// The interval terms.
    #[inline]
    pub fn intervals(&self) -> &[IntervalTerm] {
        &self.ivs
    }

    /// Appends an interval term.
    #[inline]
    pub fn push_interval(&mut self, t: IntervalTerm) {
        self.ivs.push(t);
    }

    /// Rows of one word (given that word of every index slot) that satisfy every term, within
    /// `valid`.
    #[inline(always)]
    pub fn eval_all(&self, word_of_slot: &[u64], valid: u64) -> u64 {
        let acc = self.eval_slots(word_of_slot, valid);
        if acc == 0 || self.ivs.is_empty() {
            return acc;
        }
        self.eval_intervals(word_of_slot, acc)
    }

    /// Rows of `acc` (one word) that satisfy every interval term.
    #[inline]
    pub fn eval_intervals(&self, word_of_slot: &[u64], mut acc: u64) -> u64 {
        for t in &self.ivs {
            acc &= t.eval(word_of_slot);
            if acc == 0 {
                return 0;
            }
        }
        acc
    }

    /// Rows of one word that satisfy every slot term (the interval terms are not evaluated:
    /// this is [`eval_all`](Self::eval_all) for terms without any).
    #[inline(always)]
    pub fn eval_slots(&self, word_of_slot: &[u64], valid: u64) -> u64 {
        self.eval_slots_after(word_of_slot, valid, 0)
    }

    /// [`eval_slots`](Self::eval_slots) of the terms from single-slot term `skip` on, given
    /// `acc`, the rows of one word that satisfy the first `skip` single-slot terms.
    #[inline(always)]
    pub fn eval_slots_after(&self, word_of_slot: &[u64], mut acc: u64, skip: usize) -> u64 {
        for chunk in self.singles[skip..].chunks(4) {
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

    /// Term `k` (`k < singles().len()`), a single slot.
    #[inline]
    pub fn single(&self, k: usize) -> TermRef<'_> {
        TermRef {
            slots: &self.singles[k..k + 1],
            negate: false,
            feature: self.single_features[k] as usize,
        }
    }

    /// Number of multi-slot or negated slot terms.
    #[inline]
    pub fn n_spans(&self) -> usize {
        self.spans.len()
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


    /// Makes these terms equal to `other`, reusing this allocation.
    pub fn copy_from(&mut self, other: &Terms) {
        self.clear();
        self.singles.extend_from_slice(&other.singles);
        self.single_features.extend_from_slice(&other.single_features);
        self.slots.extend_from_slice(&other.slots);
        self.spans.extend_from_slice(&other.spans);
        self.ivs.extend_from_slice(&other.ivs);
    }

    /// Reorders the single-slot terms by increasing `key(slot)` (e.g. how many rows hold the
    /// slot, so that a word's AND reaches zero sooner). The terms' meaning does not change.
    pub fn sort_singles_by_key(&mut self, key: impl Fn(u32) -> u32) {
        const SMALL: usize = 64;
        let n = self.singles.len();
        if n <= SMALL {
            // A rule's terms, usually a few dozen: an insertion sort on (key, feature) packed in
            // one word, without allocating (this runs once per new or counted rule). The
            // packed keys are distinct, so this is the order of the sort below.
            let mut keys = [0u64; SMALL];
            for (k, (&s, &f)) in keys.iter_mut().zip(self.singles.iter().zip(&self.single_features)) {
                *k = (key(s) as u64) << 32 | f as u64;
            }
            for i in 1..n {
                let (k, s, f) = (keys[i], self.singles[i], self.single_features[i]);
                let mut j = i;
                while j > 0 && keys[j - 1] > k {
                    keys[j] = keys[j - 1];
                    self.singles[j] = self.singles[j - 1];
                    self.single_features[j] = self.single_features[j - 1];
                    j -= 1;
                }
                keys[j] = k;
                self.singles[j] = s;
                self.single_features[j] = f;
            }
            return;
        }
        let mut pairs: Vec<(u32, u32)> = self
            .singles
            .iter()
            .copied()
            .zip(self.single_features.iter().copied())
            .collect();
        // Features are distinct among the singles, so the keys are too: an unstable sort
        // gives the one order.
        pairs.sort_unstable_by_key(|&(s, f)| (key(s), f));
        for (i, (s, f)) in pairs.into_iter().enumerate() {
            self.singles[i] = s;
            self.single_features[i] = f;
        }
    }

    /// Appends the single-slot terms of `from` whose slot is set in `mask` (the terms a row
    /// with that slot mask satisfies), in their order.
    #[inline]
    pub fn extend_singles_held(&mut self, from: &Terms, mask: &[u64]) {
        for (&s, &f) in from.singles.iter().zip(&from.single_features) {
            if crate::data::bitset::get(mask, s as usize) {
                self.singles.push(s);
                self.single_features.push(f);
            }
        }
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
            ivs: Vec::new(),
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
    #[inline(always)]
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

    /// The allocation-free insertion sort of a few terms gives the order of the general sort
    /// (by key, then feature), with repeated keys, on both sides of its size limit.
    #[test]
    fn sorting_singles_orders_by_key_then_feature() {
        for m in [1usize, 5, 63, 64, 65, 130] {
            let s = Schema::uniform(vec![3; m], ConstraintKind::AttributeValue).unwrap();
            let row: Vec<u32> = (0..m as u32).map(|f| f * 7 % 3).collect();
            let mut terms = Terms::new();
            Rule::from_row(&s, &row).terms(&s, &mut terms);
            assert_eq!(terms.singles().len(), m);
            let key = |slot: u32| slot.wrapping_mul(2_654_435_761) >> 28; // 16 keys, many repeated
            terms.sort_singles_by_key(key);
            let got: Vec<(u32, u32)> = (0..m).map(|k| (key(terms.singles()[k]), terms.single(k).feature as u32)).collect();
            let mut want = got.clone();
            want.sort_unstable();
            assert_eq!(got, want, "{m} features");
            for k in 0..m {
                let f = terms.single(k).feature;
                assert_eq!(terms.singles()[k] as usize, s.slot(f, row[f]), "a term keeps its slot");
            }
        }
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

    /// Features: a (AV, 3 codes), x (interval, 4 values, null seen), b (OH, 2 codes),
    /// y (interval, 200 values, no null).
    fn mixed() -> Schema {
        use ConstraintKind::*;
        Schema::with_nulls(
            vec![3, 4, 2, 200],
            vec![AttributeValue, Interval, OneHot, Interval],
            vec![false, true, false, false],
        )
        .unwrap()
    }

    #[test]
    fn interval_rules_read_as_intervals_and_cover_gaps() {
        let s = mixed();
        // x: values 1, 3, 5, 7 (ranks 0..3), gaps 0, 2, 4, 6, 8, null 9.
        let mut r = Rule::from_row(&s, &[1, 3, 0, 101]);
        assert_eq!(r.interval(&s, 1), Some(Interval { values: Some((1, 1)), null: false }));
        assert!(r.covers_row(&s, &[1, 3, 0, 101]));
        assert!(!r.covers_row(&s, &[1, 4, 0, 101]), "a gap next to a point fails");
        r.generalize(&s, &[1, 5, 0, 101]);
        assert_eq!(r.interval(&s, 1), Some(Interval { values: Some((1, 2)), null: false }));
        assert_eq!(r.constraints(&s)[1], (1, vec![3, 5]));
        assert!(r.covers_row(&s, &[1, 4, 0, 101]), "a gap strictly inside passes");
        assert!(!r.covers_row(&s, &[1, 6, 0, 101]) && !r.covers_row(&s, &[1, 2, 0, 101]));
        assert!(!r.covers_row(&s, &[1, 9, 0, 101]), "null fails");
        r.generalize(&s, &[1, 7, 0, 101]);
        assert_eq!(r.interval(&s, 1), Some(Interval { values: Some((1, 3)), null: false }));
        assert!(r.covers_row(&s, &[1, 8, 0, 101]), "open above: beyond the last value passes");
        assert!(!r.covers_row(&s, &[1, 0, 0, 101]), "closed below");
        r.generalize(&s, &[1, 9, 0, 101]);
        assert_eq!(r.constraints(&s)[1], (1, vec![3, 5, 7, 9]), "`x >= v_1 or x is null`");
        r.generalize(&s, &[1, 1, 0, 101]);
        assert!(r.is_free(&s, 1) && r.interval(&s, 1).is_none());
        // y has no null in training: its whole range is `?` and admits null.
        r.generalize(&s, &[1, 1, 0, 1]);
        r.generalize(&s, &[1, 1, 0, 399]);
        assert!(r.is_free(&s, 3) && r.covers_row(&s, &[1, 1, 0, 401]));
        // A rule from a null row: `x is null`; widened by a value: the point plus null.
        let mut n = Rule::from_row(&s, &[0, 9, 1, 5]);
        assert_eq!(n.interval(&s, 1), Some(Interval { values: None, null: true }));
        assert!(!n.covers_row(&s, &[0, 3, 1, 5]));
        n.generalize(&s, &[0, 3, 1, 5]);
        assert_eq!(n.interval(&s, 1), Some(Interval { values: Some((1, 1)), null: true }));
    }

    #[test]
    fn interval_rules_round_trip_and_reject_non_canonical_words() {
        let s = mixed();
        let rows = [[0, 9, 1, 5], [0, 3, 1, 7], [1, 1, 1, 5], [0, 5, 0, 399], [0, 7, 1, 1]];
        let mut r = Rule::from_row(&s, &rows[0]);
        for row in &rows[1..] {
            for rule in [r.clone(), Rule::from_row(&s, row)] {
                let back = Rule::from_constraints(&s, &rule.constraints(&s)).unwrap();
                assert_eq!(back, rule);
                assert_eq!(Rule::from_words(&s, rule.allowed().to_vec()).unwrap(), rule);
                let ivs: Vec<(usize, Interval)> =
                    [1, 3].iter().filter_map(|&f| rule.interval(&s, f).map(|i| (f, i))).collect();
                let cons: Vec<(usize, Vec<u32>)> =
                    rule.constraints(&s).into_iter().filter(|c| c.0 % 2 == 0).collect();
                assert_eq!(Rule::from_parts(&s, &cons, &ivs).unwrap(), rule);
            }
            r.generalize(&s, row);
        }
        let sw = s.slot_words();
        let with = |j: usize, b: Bounds| {
            let mut w = Rule::from_row(&s, &rows[1]).allowed().to_vec();
            w[sw + j] = b.pack();
            Rule::from_words(&s, w)
        };
        let b = |lo, hi, null| Bounds { lo, hi, null };
        assert!(with(0, b(3, 5, false)).is_ok());
        assert!(with(0, b(1, 5, false)).is_err(), "rank 0 must be open below");
        assert!(with(0, b(3, 7, false)).is_err(), "the last rank must be open above");
        assert!(with(0, b(4, 5, false)).is_err(), "ends are values");
        assert!(with(0, b(3, 9, false)).is_err(), "past 2d");
        assert!(with(0, b(5, 3, false)).is_err());
        assert!(with(0, Bounds::nothing()).is_err(), "no value and no null");
        assert!(with(0, Bounds { null: true, ..Bounds::nothing() }).is_ok());
        assert!(with(1, Bounds { null: true, ..Bounds::nothing() }).is_err(), "y has no null");
        assert!(with(1, b(0, 400, false)).is_err(), "y's whole range admits null");
        assert!(with(1, b(0, 400, true)).is_ok());
        assert!(with(1, b(3, 101, true)).is_err(), "null never seen in y");
        // Constraints given as codes: every value or the two ends, null only where seen.
        assert!(Rule::from_constraints(&s, &[(1, vec![1, 3, 7])]).is_err(), "not contiguous");
        assert_eq!(
            Rule::from_constraints(&s, &[(1, vec![3, 7])]).unwrap(),
            Rule::from_constraints(&s, &[(1, vec![3, 5, 7])]).unwrap(),
            "the ends read as every value between"
        );
        assert!(Rule::from_constraints(&s, &[(1, vec![4])]).is_err(), "a gap is no training code");
        assert!(Rule::from_constraints(&s, &[(3, vec![401])]).is_err(), "y has no null");
        assert!(Rule::from_constraints(&s, &[(1, vec![9])]).is_ok());
        let iv = |values, null| Interval { values, null };
        assert!(Rule::from_parts(&s, &[], &[(0, iv(Some((0, 1)), false))]).is_err());
        assert!(Rule::from_parts(&s, &[], &[(1, iv(Some((2, 4)), false))]).is_err());
        assert!(Rule::from_parts(&s, &[], &[(1, iv(None, false))]).is_err());
        assert!(Rule::from_parts(&s, &[(1, vec![3])], &[(1, iv(None, true))]).is_err());
        let free = Rule::from_parts(&s, &[], &[(3, iv(Some((0, 199)), false))]).unwrap();
        assert_eq!(free, Rule::from_constraints(&s, &[]).unwrap(), "canonical: `?`");
    }
}
