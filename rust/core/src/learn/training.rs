//! The training set as the learners see it: positives as code rows and slot masks, negatives
//! (and positives) as slot bitsets. Built once per fit and shared, read-only, by every run.
//!
//! Invariant: positive `i` is data row `pos_rows[i]`; `pos_codes` holds its codes row-major and
//! `pos_slots` its one-slot-per-AV-or-OH-feature mask; `negatives` indexes the negative rows in
//! data order. With interval features, `pos_intervals(i)` holds positive `i`'s codes of the
//! interval features (in their order) and `neg_interval(j)` every negative's code of interval
//! feature `j`; `neg_codes(f)` holds every negative's code of feature `f`. For the relative
//! acceptance test (docs/semantics.md §9.1) it also answers, on first use, how many training
//! rows hold each slot and how many positives hold it in every suffix of the positives' words.

use crate::data::bitset::{self, words_for};
use crate::data::columns::Columns;
use crate::learn::distinct::Distinct;
use crate::data::error::{filled, zeroed_words, FindRsError, Result};
use crate::data::identical::Groups;
use crate::learn::row_parts::RowParts;
use crate::data::row_index::RowIndex;
use crate::data::schema::{ConstraintKind, Schema};
use crate::learn::weighted::Weighted;
use std::sync::OnceLock;

#[allow(dead_code)] // `n_rows` and `neg_rows` describe the set; tests and debugging read them
pub struct TrainingSet {
    pub schema: Schema,
    pub n_rows: usize,
    pub pos_rows: Vec<u32>,
    pub neg_rows: Vec<u32>,
    pos_codes: Vec<u32>,
    pos_slots: Vec<u64>,
    neg_slots: Vec<u64>,
    slot_words: usize,
    pos_iv: Vec<u32>,
    neg_iv: Vec<u32>,
    /// Every negative's code, feature by feature (`neg_codes(f)[i]` is negative `i`'s).
    neg_codes: Vec<u32>,
    pub negatives: RowIndex,
    pub positives: RowIndex,
    /// Built on first use: training rows holding each slot.
    slot_rows: OnceLock<Vec<u32>>,
    /// Built on first use: negatives holding each slot.
    neg_slot_rows: OnceLock<Vec<u32>>,
    /// Built on first use: positives holding each slot.
    pos_slot_rows: OnceLock<Vec<u32>>,
    /// Built on first use: `[w * n_slots + slot]` = positives holding `slot` in words `>= w` of
    /// the positives' index (`w` up to the number of words, where it is 0).
    pos_suffix: OnceLock<Vec<u32>>,
    /// Built on first use: the distinct feature vectors with their label counts, when there
    /// are few enough of them for counting over them to pay.
    distinct: OnceLock<Option<Distinct>>,
    /// Built on first use (relative tests, docs/semantics.md §9.1): per positive, the training
    /// negatives and positives identical to it in every feature, and its feature vector's
    /// number; `None` when its buffers could not be allocated (then
    /// [`own_counts`](Self::own_counts) counts on the bitsets).
    own_counts: OnceLock<Option<OwnRows>>,
    /// Built on first use: the negatives indexed by parts of the features, when the schema has
    /// no interval feature and the index pays ([`RowParts`]).
    neg_parts: OnceLock<Option<RowParts>>,
    /// Built on first use (simplification): the positives and the negatives each collapsed to
    /// their distinct vectors with weights ([`Weighted`]).
    weighted: OnceLock<(Weighted, Weighted)>,
}

/// The positives' own rows (see [`TrainingSet::own_counts`]) and feature vector numbers.
struct OwnRows {
    /// Per positive: `(negatives, positives)` identical to it.
    counts: Vec<(u32, u32)>,
    /// Per positive: its feature vector's group number (`identical::Groups`).
    vector: Vec<u32>,
    /// Groups of all training rows.
    n_vectors: usize,
}

impl TrainingSet {
    /// Bytes of the training set of `n_pos` positives and `n_neg` negatives, of which all but
    /// a few bytes per row are the slot masks and row indexes, which grow with rows x the
    /// features' numbers of values.
    pub fn bytes(schema: &Schema, n_pos: usize, n_neg: usize) -> u64 {
        let masks = (n_pos + n_neg) as u64 * words_for(schema.n_slots()) as u64 * 8;
        let codes = (n_pos + n_neg) as u64 * (schema.n_features() as u64 * 4 + 4);
        masks + codes + RowIndex::bytes(schema, n_pos) + RowIndex::bytes(schema, n_neg) + RowParts::bytes(n_neg)
    }

    /// Bytes a run with a share tolerance adds to the training set at most (docs/semantics.md
    /// §9.1): the positives' suffix counts (`pos_suffix`), the distinct-vector view and the
    /// positives' own-row counts and vector numbers (`own_counts`, `pos_vector`).
    pub fn share_bytes(schema: &Schema, n_pos: usize, n_neg: usize) -> u64 {
        let suffix = (words_for(n_pos) as u64 + 1) * schema.n_slots() as u64 * 4;
        // Own-row counts and vector numbers (12 bytes per positive), the grouping (16 per row,
        // 8 per group), and a run's memory of each vector's last placement (8 per group, kept
        // only when the groups are at most 3/4 of the rows).
        let own = n_pos as u64 * 12 + (n_pos + n_neg) as u64 * 32;
        suffix + Distinct::bytes(schema, n_pos + n_neg) + own
    }

    pub fn new(schema: Schema, data: &Columns, labels: &[bool]) -> Result<Self> {
        if labels.len() != data.n_rows() {
            return Err(FindRsError::InvalidData(format!(
                "{} labels for {} rows",
                labels.len(),
                data.n_rows()
            )));
        }
        data.check_training(&schema)?;
        let pos_rows: Vec<u32> = (0..labels.len() as u32)
            .filter(|&r| labels[r as usize])
            .collect();
        let neg_rows: Vec<u32> = (0..labels.len() as u32)
            .filter(|&r| !labels[r as usize])
            .collect();
        if pos_rows.is_empty() {
            return Err(FindRsError::InvalidData(
                "the training set has no positive row".into(),
            ));
        }
        let m = schema.n_features();
        let slot_words = words_for(schema.n_slots());
        let mut pos_codes = Vec::with_capacity(pos_rows.len() * m);
        let mut pos_slots = zeroed_words(pos_rows.len() * slot_words, "the positives' slot masks")?;
        // Interval features own no slot.
        let slotted: Vec<bool> = (0..m)
            .map(|f| schema.kind(f) != ConstraintKind::Interval)
            .collect();
        let all_slotted = !schema.has_intervals();
        for (i, &r) in pos_rows.iter().enumerate() {
            let mask = &mut pos_slots[i * slot_words..(i + 1) * slot_words];
            for (f, &slotted) in slotted.iter().enumerate() {
                let c = data.code(r as usize, f);
                pos_codes.push(c);
                if all_slotted || slotted {
                    bitset::set(mask, schema.slot(f, c));
                }
            }
        }
        let mut neg_slots = zeroed_words(neg_rows.len() * slot_words, "the negatives' slot masks")?;
        for (i, &r) in neg_rows.iter().enumerate() {
            let mask = &mut neg_slots[i * slot_words..(i + 1) * slot_words];
            for (f, &slotted) in slotted.iter().enumerate() {
                if all_slotted || slotted {
                    bitset::set(mask, schema.slot(f, data.code(r as usize, f)));
                }
            }
        }
        let ivs = schema.intervals();
        let pos_iv: Vec<u32> = pos_rows
            .iter()
            .flat_map(|&r| ivs.iter().map(move |l| data.code(r as usize, l.feature)))
            .collect();
        let neg_iv: Vec<u32> = ivs
            .iter()
            .flat_map(|l| neg_rows.iter().map(|&r| data.code(r as usize, l.feature)))
            .collect();
        let neg_codes: Vec<u32> = (0..m)
            .flat_map(|f| neg_rows.iter().map(move |&r| data.code(r as usize, f)))
            .collect();
        let negatives = RowIndex::from_rows(&schema, data, &neg_rows)?;
        let positives = RowIndex::from_rows(&schema, data, &pos_rows)?;
        Ok(Self {
            schema,
            n_rows: data.n_rows(),
            pos_rows,
            neg_rows,
            pos_codes,
            pos_slots,
            neg_slots,
            slot_words,
            pos_iv,
            neg_iv,
            neg_codes,
            negatives,
            positives,
            slot_rows: OnceLock::new(),
            neg_slot_rows: OnceLock::new(),
            pos_slot_rows: OnceLock::new(),
            pos_suffix: OnceLock::new(),
            distinct: OnceLock::new(),
            own_counts: OnceLock::new(),
            neg_parts: OnceLock::new(),
            weighted: OnceLock::new(),
        })
    }

    /// Rows identical in every feature to a row of the other label (semantics §1 contradictions).
    pub fn contradictions(data: &Columns, labels: &[bool]) -> usize {
        let groups = Groups::new(data.n_rows(), data.n_features(), |r, f| data.code(r, f), |r| r as u32);
        groups.contradictions(|r| labels[r] as u32)
    }

    /// Positives holding `slot` (an AV or OH slot) in the positives' index words `w..`.
    #[inline]
    pub fn pos_suffix(&self, w: usize, slot: u32) -> u32 {
        let n = self.schema.n_slots();
        let table = self.pos_suffix.get_or_init(|| {
            let pw = self.positives.n_words();
            let mut t = vec![0u32; (pw + 1) * n];
            for w in (0..pw).rev() {
                let word = self.positives.word(w);
                for s in 0..n {
                    t[w * n + s] = t[(w + 1) * n + s] + word[s].count_ones();
                }
            }
            t
        });
        table[w * n + slot as usize]
    }

    /// Code of feature `f` of row `r` of the positives followed by the negatives (`r < np` is
    /// positive `r`, else negative `r - np`).
    #[inline]
    fn code_of(&self, r: usize, f: usize) -> u32 {
        let (np, m, nn) = (self.pos_rows.len(), self.schema.n_features(), self.neg_rows.len());
        if r < np {
            self.pos_codes[r * m + f]
        } else {
            self.neg_codes[f * nn + (r - np)]
        }
    }

    /// `(n, p)`: the training negatives and positives identical to positive `i` in every
    /// feature, i.e. what the rule made from it (its most specific rule, docs/semantics.md §3)
    /// covers. Grouped once on first use; counted on the bitsets if that cannot be allocated.
    pub fn own_counts(&self, i: usize) -> (u32, u32) {
        if let Some(t) = self.own_table() {
            return t.counts[i];
        }
        let rule = crate::data::rule::Rule::from_row(&self.schema, self.pos_codes(i));
        let mut terms = crate::data::rule::Terms::with_capacity(self.schema.n_features());
        rule.terms(&self.schema, &mut terms);
        (
            self.negatives.count_covered(&terms, u32::MAX),
            self.positives.count_covered(&terms, u32::MAX),
        )
    }

    /// The positives' own-row counts and vector numbers, grouped on first use (`None` when the
    /// buffers could not be allocated).
    fn own_table(&self) -> Option<&OwnRows> {
        self.own_counts.get_or_init(|| {
            let (np, nn, m) = (self.pos_rows.len(), self.neg_rows.len(), self.schema.n_features());
            let groups = Groups::try_new(np + nn, m, |r, f| self.code_of(r, f), |r| r as u32).ok()?;
            let mut per_group = filled(groups.len(), (0u32, 0u32), "the feature vectors' label counts").ok()?;
            for (r, &g) in groups.of_row.iter().enumerate() {
                let c = &mut per_group[g as usize];
                if r < np {
                    c.1 += 1;
                } else {
                    c.0 += 1;
                }
            }
            let mut own = filled(np, (0u32, 0u32), "the positives' own-row counts").ok()?;
            for (o, &g) in own.iter_mut().zip(&groups.of_row[..np]) {
                *o = per_group[g as usize];
            }
            let mut vector = filled(np, 0u32, "the positives' feature vector numbers").ok()?;
            vector.copy_from_slice(&groups.of_row[..np]);
            Some(OwnRows { counts: own, vector, n_vectors: groups.len() })
        })
        .as_ref()
    }

    /// Positive `i`'s feature vector as a number below `n`, with `n`, the number of distinct
    /// feature vectors of the training rows: two positives get the same number iff their codes
    /// are equal in every feature (built with [`own_counts`](Self::own_counts) on first use;
    /// `None` when that table could not be allocated).
    pub fn pos_vector(&self, i: usize) -> Option<(u32, usize)> {
        let t = self.own_table()?;
        Some((t.vector[i], t.n_vectors))
    }

    /// The training rows collapsed to their distinct feature vectors ([`Distinct`]), built on
    /// first use; `None` when they are not few enough to pay (or could not be allocated: the
    /// per-row count gives the same numbers).
    pub fn distinct(&self) -> Option<&Distinct> {
        self.distinct
            .get_or_init(|| {
                let (np, nn) = (self.pos_rows.len(), self.neg_rows.len());
                let code = |r: usize, f: usize| self.code_of(r, f);
                let row = |r: usize| {
                    if r < np {
                        self.pos_rows[r]
                    } else {
                        self.neg_rows[r - np]
                    }
                };
                Distinct::build(&self.schema, np, nn, code, row).ok().flatten()
            })
            .as_ref()
    }

    /// The positives and the negatives, each collapsed to their distinct feature vectors with
    /// weights when that pays ([`Weighted`]), built on first use: simplification counts on them.
    pub fn weighted(&self) -> &(Weighted, Weighted) {
        self.weighted.get_or_init(|| {
            let (np, nn, m) = (self.pos_rows.len(), self.neg_rows.len(), self.schema.n_features());
            let pos = Weighted::build(&self.schema, np, |i, f| self.pos_codes[i * m + f]);
            let neg = Weighted::build(&self.schema, nn, |i, f| self.neg_codes[f * nn + i]);
            (pos, neg)
        })
    }

    /// The negatives indexed by parts of the features ([`RowParts`]), built on first use;
    /// `None` with interval features or when the index would not pay.
    pub fn neg_parts(&self) -> Option<&RowParts> {
        self.neg_parts
            .get_or_init(|| {
                if self.schema.has_intervals() {
                    return None;
                }
                let n = self.neg_rows.len();
                RowParts::build_if_worth(self.schema.domain_sizes(), n, |f, i| self.neg_codes[f * n + i])
            })
            .as_ref()
    }

    /// Tests: builds the parts index even where it would not pay (before any use); whether
    /// there is one (no interval feature, two features or more, a negative).
    #[cfg(test)]
    pub(crate) fn force_neg_parts(&self) -> bool {
        let n = self.neg_rows.len();
        if !self.schema.has_intervals() {
            let parts = RowParts::new(self.schema.domain_sizes(), n, |f, i| self.neg_codes[f * n + i]);
            let _ = self.neg_parts.set(parts);
        }
        self.neg_parts().is_some()
    }

    /// Training rows holding `slot` (an AV or OH slot).
    #[inline]
    pub fn slot_rows(&self, slot: u32) -> u32 {
        self.slot_rows.get_or_init(|| {
            let mut rows = vec![0u32; self.schema.n_slots()];
            for index in [&self.positives, &self.negatives] {
                for w in 0..index.n_words() {
                    for (r, x) in rows.iter_mut().zip(index.word(w)) {
                        *r += x.count_ones();
                    }
                }
            }
            rows
        })[slot as usize]
    }

    /// Negatives holding `slot` (an AV or OH slot).
    #[inline]
    pub fn neg_slot_rows(&self, slot: u32) -> u32 {
        self.neg_slot_rows.get_or_init(|| {
            let mut rows = vec![0u32; self.schema.n_slots()];
            for w in 0..self.negatives.n_words() {
                for (r, x) in rows.iter_mut().zip(self.negatives.word(w)) {
                    *r += x.count_ones();
                }
            }
            rows
        })[slot as usize]
    }

    /// Positives holding `slot` (an AV or OH slot).
    #[inline]
    pub fn pos_slot_rows(&self, slot: u32) -> u32 {
        self.pos_slot_rows.get_or_init(|| self.positives.slot_rows())[slot as usize]
    }

    #[inline]
    pub fn n_positives(&self) -> usize {
        self.pos_rows.len()
    }

    #[inline]
    pub fn slot_words(&self) -> usize {
        self.slot_words
    }

    /// Codes of positive `i`.
    #[inline]
    pub fn pos_codes(&self, i: usize) -> &[u32] {
        let m = self.schema.n_features();
        &self.pos_codes[i * m..(i + 1) * m]
    }

    /// Every negative's code on feature `f`, indexed like `neg_rows`.
    #[inline]
    pub fn neg_codes(&self, f: usize) -> &[u32] {
        let n = self.neg_rows.len();
        &self.neg_codes[f * n..(f + 1) * n]
    }

    /// Slot mask of negative `i` (one slot per feature), `i` indexing `neg_rows`.
    #[inline]
    pub fn neg_slots(&self, i: usize) -> &[u64] {
        &self.neg_slots[i * self.slot_words..(i + 1) * self.slot_words]
    }

    /// Slot mask of positive `i` (one slot per AV or OH feature).
    #[inline]
    pub fn pos_slots(&self, i: usize) -> &[u64] {
        &self.pos_slots[i * self.slot_words..(i + 1) * self.slot_words]
    }

    /// Codes of positive `i` on the interval features, in their order.
    #[inline]
    pub fn pos_intervals(&self, i: usize) -> &[u32] {
        let k = self.schema.intervals().len();
        &self.pos_iv[i * k..(i + 1) * k]
    }

    /// Every negative's code on the `j`-th interval feature, indexed like `neg_rows`.
    #[inline]
    pub fn neg_interval(&self, j: usize) -> &[u32] {
        let n = self.neg_rows.len();
        &self.neg_iv[j * n..(j + 1) * n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::schema::{ConstraintKind, Schema};

    #[test]
    fn counts_rows_of_feature_vectors_with_both_labels() {
        let schema = Schema::uniform(vec![2, 3], ConstraintKind::AttributeValue).unwrap();
        let a = [0u32, 0, 1, 0, 1, 1];
        let b = [2u32, 2, 0, 2, 0, 1];
        let data = Columns::new(&schema, vec![&a, &b]).unwrap();
        // (0,2) x3 with labels T,F,T -> 3 rows; (1,0) x2 both T -> 0; (1,1) alone -> 0.
        let labels = [true, false, true, true, true, false];
        assert_eq!(TrainingSet::contradictions(&data, &labels), 3);
        assert_eq!(TrainingSet::contradictions(&data, &[true; 6]), 0);
    }
}
