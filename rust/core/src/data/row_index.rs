//! Slot bitsets over a set of rows: for every slot (feature, code), the rows that hold that code;
//! and for every interval feature, its prefix bitsets (index slots, see
//! [`interval`](crate::data::interval)). This is what makes coverage word-parallel: the rows a rule
//! covers are the AND over its constrained features of the OR of its allowed slots' bitsets, or
//! of its interval's formula over the prefix bitsets.
//!
//! Invariant: bits are stored word-major (`bits[w * n_slots + slot]`, `n_slots` counting every
//! index slot), so one word of every slot sits together in memory; bits at row positions
//! `>= n_rows` are zero in every slot, every row has exactly one set bit among the slots of each
//! AV or OH feature, the zero slot is empty, and an interval feature's "high digit <= a" and
//! "low digit <= b" slots hold the non-null rows whose gap code has those digits.

use crate::data::bitset::{valid_mask, words_for, WORD_BITS};
use crate::data::columns::Columns;
use crate::data::error::{zeroed_words, Result};
use crate::data::rule::Terms;
use crate::data::schema::{ConstraintKind, Schema};

#[derive(Clone, Debug)]
pub struct RowIndex {
    n_rows: usize,
    n_words: usize,
    n_slots: usize,
    bits: Vec<u64>,
}

impl RowIndex {
    /// Index of the given rows of `data`, in the given order (row `i` of the index is
    /// `rows[i]` of the data); an error when its memory cannot be allocated.
    pub fn from_rows(schema: &Schema, data: &Columns, rows: &[u32]) -> Result<Self> {
        Self::build(schema, rows.len(), |f, i| data.column(f)[rows[i] as usize])
    }

    /// Index of `n_rows` rows, row `i` holding `code(f, i)` on feature `f`; an error when its
    /// memory cannot be allocated.
    pub fn from_fn(schema: &Schema, n_rows: usize, code: impl Fn(usize, usize) -> u32) -> Result<Self> {
        Self::build(schema, n_rows, code)
    }

    /// Index of every row of `data`; an error when its memory cannot be allocated.
    pub fn from_all(schema: &Schema, data: &Columns) -> Result<Self> {
        Self::build(schema, data.n_rows(), |f, i| data.column(f)[i])
    }

    /// Bytes of the index of `n_rows` rows: one bit per row and index slot, so it grows with
    /// rows x the features' numbers of values.
    pub fn bytes(schema: &Schema, n_rows: usize) -> u64 {
        words_for(n_rows) as u64 * schema.n_index_slots() as u64 * 8
    }

    fn build(schema: &Schema, n_rows: usize, code: impl Fn(usize, usize) -> u32) -> Result<Self> {
        let n_words = words_for(n_rows);
        let n_slots = schema.n_index_slots();
        let mut bits = zeroed_words(
            n_words.saturating_mul(n_slots),
            "the row index (rows x values bitsets)",
        )?;
        for f in 0..schema.n_features() {
            if schema.kind(f) == ConstraintKind::Interval {
                continue;
            }
            let off = schema.offset(f);
            for i in 0..n_rows {
                bits[(i / WORD_BITS) * n_slots + off + code(f, i) as usize] |=
                    1u64 << (i % WORD_BITS);
            }
        }
        for l in schema.intervals() {
            for i in 0..n_rows {
                let base = (i / WORD_BITS) * n_slots;
                let bit = 1u64 << (i % WORD_BITS);
                let (high, low) = l.code_slots(code(l.feature, i));
                bits[base + high as usize] |= bit;
                if let Some(low) = low {
                    bits[base + low as usize] |= bit;
                }
            }
            // Prefix sums: "digit <= a" from "digit == a".
            for w in 0..n_words {
                let word = &mut bits[w * n_slots..(w + 1) * n_slots];
                for run in [l.high..l.high + l.n_high(), l.low..l.low + l.n_low()] {
                    for s in run.start as usize + 1..run.end as usize {
                        word[s] |= word[s - 1];
                    }
                }
            }
        }
        Ok(Self {
            n_rows,
            n_words,
            n_slots,
            bits,
        })
    }

    #[inline]
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    #[inline]
    pub fn n_words(&self) -> usize {
        self.n_words
    }

    /// The word `w` of every slot, indexed by slot.
    #[inline]
    pub fn word(&self, w: usize) -> &[u64] {
        &self.bits[w * self.n_slots..(w + 1) * self.n_slots]
    }

    #[inline]
    pub fn valid(&self, w: usize) -> u64 {
        valid_mask(self.n_rows, w)
    }

    /// Rows of word `w` that satisfy `terms` (all rows when there are no terms).
    #[inline(always)]
    pub fn covered_word(&self, terms: &Terms, w: usize) -> u64 {
        terms.eval_all(self.word(w), self.valid(w))
    }

    /// Rows holding each index slot (`n_index_slots` entries): a key that orders a rule's
    /// single-slot terms rarest first, so that a word's AND reaches zero after fewer terms.
    pub fn slot_rows(&self) -> Vec<u32> {
        let mut rows = vec![0u32; self.n_slots];
        for w in 0..self.n_words {
            for (r, x) in rows.iter_mut().zip(self.word(w)) {
                *r += x.count_ones();
            }
        }
        rows
    }

    /// Calls `f(w, rows)` for every word `w` with the rows of that word that satisfy `terms`
    /// (zero included), in word order.
    #[inline]
    pub fn for_each_covered_word(&self, terms: &Terms, mut f: impl FnMut(usize, u64)) {
        if terms.intervals().is_empty() && !terms.singles().is_empty() {
            // As in `count_covered_from`: no valid mask needed, the first slots read once.
            let ns = self.n_slots;
            let head = SlotHead::new(terms, ns);
            let bits = &self.bits[..self.n_words * ns];
            for (w, word) in bits.chunks_exact(ns).enumerate() {
                f(w, head.covered(word, terms));
            }
        } else {
            for w in 0..self.n_words {
                f(w, self.covered_word(terms, w));
            }
        }
    }

    /// ORs into `out` (one bit per row) the rows that satisfy `terms`.
    pub fn or_covered_into(&self, terms: &Terms, out: &mut [u64]) {
        if terms.intervals().is_empty() && !terms.singles().is_empty() {
            // As in `count_covered_from`: no valid mask needed, the first slots read once.
            let ns = self.n_slots;
            let head = SlotHead::new(terms, ns);
            let bits = &self.bits[..self.n_words * ns];
            for (o, word) in out.iter_mut().zip(bits.chunks_exact(ns)) {
                *o |= head.covered(word, terms);
            }
        } else if terms.intervals().is_empty() {
            for (w, o) in out.iter_mut().enumerate().take(self.n_words) {
                *o |= terms.eval_slots(self.word(w), self.valid(w));
            }
        } else {
            for (w, o) in out.iter_mut().enumerate().take(self.n_words) {
                *o |= self.covered_word(terms, w);
            }
        }
    }

    /// Number of rows that satisfy `terms`, counting stops as soon as it exceeds `limit`
    /// (the returned value is then `> limit` but not necessarily exact).
    #[inline(always)]
    pub fn count_covered(&self, terms: &Terms, limit: u32) -> u32 {
        let mut count = 0u32;
        for w in 0..self.n_words {
            count += self.covered_word(terms, w).count_ones();
            if count > limit {
                return count;
            }
        }
        count
    }

    /// [`count_covered`](Self::count_covered) visiting the words from `start` round to
    /// `start - 1`; also returns the word at which the count went above `limit` (else `start`).
    /// Any visiting order gives the same verdict; starting where a rule last found a covered
    /// row usually stops after one word.
    #[inline(always)]
    pub fn count_covered_from(&self, terms: &Terms, limit: u32, start: usize) -> (u32, usize) {
        if !terms.intervals().is_empty() {
            return self.count_covered_from_with_intervals(terms, limit, start);
        }
        let mut count = 0u32;
        let n = self.n_words;
        let start = if start < n { start } else { 0 };
        if terms.singles().is_empty() {
            for w in (start..n).chain(0..start) {
                count += terms.eval_slots(self.word(w), self.valid(w)).count_ones();
                if count > limit {
                    return (count, w);
                }
            }
            return (count, start);
        }
        // A single-slot term's word is zero past the last row, so every word's rows are valid;
        // words are visited as consecutive chunks of the index (no per-word bounds to check).
        let ns = self.n_slots;
        let head = SlotHead::new(terms, ns);
        let bits = &self.bits[..n * ns];
        for (word, w) in bits[start * ns..].chunks_exact(ns).zip(start..) {
            let x = head.covered(word, terms);
            if x != 0 {
                count += x.count_ones();
                if count > limit {
                    return (count, w);
                }
            }
        }
        for (word, w) in bits[..start * ns].chunks_exact(ns).zip(0..) {
            let x = head.covered(word, terms);
            if x != 0 {
                count += x.count_ones();
                if count > limit {
                    return (count, w);
                }
            }
        }
        (count, start)
    }

    /// [`count_covered_from`](Self::count_covered_from) for terms with interval terms.
    #[inline(never)]
    fn count_covered_from_with_intervals(
        &self,
        terms: &Terms,
        limit: u32,
        start: usize,
    ) -> (u32, usize) {
        let mut count = 0u32;
        let n = self.n_words;
        let start = if start < n { start } else { 0 };
        for w in (start..n).chain(0..start) {
            count += self.covered_word(terms, w).count_ones();
            if count > limit {
                return (count, w);
            }
        }
        (count, start)
    }

}

/// The first eight single-slot terms of some terms (the last one repeated when there are
/// fewer, which changes no AND), read once and checked against the index's slots, so that a
/// word's first ANDs need neither a loop nor a bounds check: most words a candidate or rule is
/// evaluated on are empty after its first four terms (they are ordered rarest slot first),
/// most of the others after eight.
struct SlotHead {
    slots: [usize; 8],
    len: usize,
}

impl SlotHead {
    /// For `terms` with at least one single-slot term, over an index of `n_slots` slots.
    #[inline(always)]
    fn new(terms: &Terms, n_slots: usize) -> Self {
        let singles = terms.singles();
        let len = singles.len().min(8);
        let slots: [usize; 8] = std::array::from_fn(|j| singles[j.min(len - 1)] as usize);
        assert!(slots.iter().all(|&s| s < n_slots), "a term's slot outside the index");
        Self { slots, len }
    }

    /// The rows of one word (`word`: that word of every slot, beyond the last row all zero)
    /// that satisfy every slot term of `terms` (the terms this head was made from).
    #[inline(always)]
    fn covered(&self, word: &[u64], terms: &Terms) -> u64 {
        let s = &self.slots;
        let x = word[s[0]] & word[s[1]] & word[s[2]] & word[s[3]];
        if x == 0 {
            return 0;
        }
        let x = x & word[s[4]] & word[s[5]] & word[s[6]] & word[s[7]];
        if x == 0 {
            0
        } else {
            terms.eval_slots_after(word, x, self.len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::run::interval_tests::{av, iv, mixed_schema, oh, random_rows, random_rule};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Slot terms only (the path that reads a rule's first eight slots once): for rules of
    /// 0 to 12 terms (fewer than eight repeat a slot), AV and OH, the covered rows of each word
    /// (`for_each_covered_word`, `or_covered_into`) are those `Rule::covers_row` covers, and
    /// from every start word and at limits below, at and above the true count, the count is
    /// exact when it stays within the limit, else above it, stopping at the first word (in
    /// visiting order) where the running count passes the limit.
    #[test]
    fn slot_term_counts_from_any_word_match_the_rows() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut checked = 0;
        for specs in [
            vec![av(2), av(3), oh(4), av(2), oh(3), av(2), av(3), av(2), av(2), av(3), av(2), av(2)],
            vec![av(70), oh(130), av(3)],
        ] {
            let schema = mixed_schema(&specs);
            for n_rows in [1, 64, 200, 330] {
                let cols = random_rows(&mut rng, &schema, n_rows);
                let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect())
                    .unwrap();
                let index = RowIndex::from_all(&schema, &data).unwrap();
                let mut terms = Terms::new();
                for p_free in [0.0, 0.3, 0.6, 0.9] {
                    for _ in 0..10 {
                        let rule = random_rule(&mut rng, &schema, p_free);
                        rule.terms(&schema, &mut terms);
                        let covered: Vec<bool> = (0..n_rows)
                            .map(|r| rule.covers_row(&schema, &data.row(r)))
                            .collect();
                        let n = covered.iter().filter(|&&c| c).count() as u32;
                        let nw = index.n_words();
                        let mut by_word = vec![0u64; nw];
                        index.for_each_covered_word(&terms, |w, x| by_word[w] = x);
                        let mut ored = vec![0u64; nw];
                        index.or_covered_into(&terms, &mut ored);
                        for (r, &c) in covered.iter().enumerate() {
                            assert_eq!(crate::data::bitset::get(&by_word, r), c, "row {r} rule {rule:?}");
                            assert_eq!(crate::data::bitset::get(&ored, r), c, "row {r} rule {rule:?}");
                        }
                        assert_eq!(crate::data::bitset::count_ones(&by_word) as u32, n);
                        assert_eq!(crate::data::bitset::count_ones(&ored) as u32, n);
                        for start in 0..nw + 1 {
                            for limit in [0, n.saturating_sub(1), n, n + 1, u32::MAX] {
                                let (got, at) = index.count_covered_from(&terms, limit, start);
                                let from = if start < nw { start } else { 0 };
                                let order = (from..nw).chain(0..from);
                                let mut run = 0;
                                let mut want = (n, from);
                                for w in order {
                                    run += (w * 64..(w * 64 + 64).min(n_rows))
                                        .filter(|&r| covered[r])
                                        .count() as u32;
                                    if run > limit {
                                        want = (run, w);
                                        break;
                                    }
                                }
                                assert_eq!((got, at), want, "rule {rule:?} start {start} limit {limit}");
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 5000, "only {checked} counts checked");
    }

    /// Interval terms over the prefix bitsets (direct and sqrt-split) give exactly the rows
    /// `Rule::covers_row` covers, for rows with any gap code, unseen value or null.
    #[test]
    fn coverage_with_intervals_is_exact_on_every_code() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for specs in [
            vec![iv(3, true), iv(500, true), av(2), iv(1, false), oh(3)],
            vec![iv(70, false), iv(0, true)],
        ] {
            let schema = mixed_schema(&specs);
            for _ in 0..30 {
                let cols = random_rows(&mut rng, &schema, 300);
                let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect())
                    .unwrap();
                let index = RowIndex::from_all(&schema, &data).unwrap();
                let mut terms = Terms::new();
                for _ in 0..20 {
                    let rule = random_rule(&mut rng, &schema, 0.4);
                    rule.terms(&schema, &mut terms);
                    let want: Vec<bool> = (0..300)
                        .map(|r| rule.covers_row(&schema, &data.row(r)))
                        .collect();
                    let mut got = vec![0u64; index.n_words()];
                    index.or_covered_into(&terms, &mut got);
                    for (r, &w) in want.iter().enumerate() {
                        assert_eq!(crate::data::bitset::get(&got, r), w, "row {r} rule {rule:?}");
                    }
                    let n = want.iter().filter(|&&w| w).count() as u32;
                    assert_eq!(index.count_covered(&terms, u32::MAX), n);
                    assert_eq!(index.count_covered_from(&terms, u32::MAX, 3).0, n);
                }
            }
        }
    }
}
