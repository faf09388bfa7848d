//! The training rows of one label collapsed to their distinct feature vectors, each weighted by
//! the rows that hold it: what simplification ([`simplify`](crate::learn::simplify)) counts on. Whether
//! terms cover a row depends only on its feature vector, so the rows of a label that terms cover
//! are exactly the sum of the weights of the vectors they cover: the same counts as over the
//! rows, over fewer words when rows repeat (noisy connect-4 replicated to 2M rows: about 33,000
//! distinct vectors for 2M rows).
//!
//! Invariants: with a collapsed view, `index` holds one row per distinct vector of the label's
//! rows (every feature, interval features included), in the order of each vector's first row;
//! vector `j`'s weight (the label's rows that hold it) is `sum_b 2^b * bit j of
//! planes[w * n_planes + b]` (`w = j / 64`), and `first[j]` is the label's number (positive or
//! negative index) of its first row. It is built only when the distinct vectors are at most
//! [`WORTH`] of the rows; otherwise the view is the label's own row index, every row of weight 1
//! ([`Weighted::index`] returns the index the caller gives, `first` is the identity). Either way
//! [`Weighted::weigh`] of a word of covered bits is the number of the label's rows they stand for.

use crate::data::bitset::WORD_BITS;
use crate::data::error::{filled, zeroed_words, Result};
use crate::data::identical::Groups;
use crate::data::row_index::RowIndex;
use crate::data::rule::Terms;
use crate::data::schema::Schema;

/// Collapse only when the distinct vectors are at most this share of the rows (numerator / 4).
const WORTH: usize = 3;
const WHAT: &str = "the distinct feature vectors of a label's training rows (simplify)";

pub struct Weighted {
    /// One row per distinct vector; `None`: the label's own row index, weight 1 per row.
    index: Option<RowIndex>,
    /// Weight bit planes, `[w * n_planes + b]` (empty when not collapsed).
    planes: Vec<u64>,
    n_planes: usize,
    /// Per vector, the label's number of its first row (empty when not collapsed).
    first: Vec<u32>,
    /// The label's rows.
    total: u32,
}

impl Weighted {
    /// The view of `n` rows of one label, row `i` holding `code(i, f)` on feature `f` (rows in
    /// training order): collapsed when that pays, else the rows themselves. A collapse whose
    /// buffers cannot be allocated falls back to the rows (the same counts).
    pub fn build(schema: &Schema, n: usize, code: impl Fn(usize, usize) -> u32) -> Self {
        Self::collapse(schema, n, &code).ok().flatten().unwrap_or_else(|| Self::rows(n))
    }

    /// Bytes the view of `n` rows can take at its peak, its build included: an upper bound (it
    /// collapses only when the distinct vectors are at most `WORTH / 4` of the rows; the
    /// grouping takes 16 bytes per row and 20 per vector while it is built).
    pub fn bytes(schema: &Schema, n: usize) -> u64 {
        let d = n * WORTH / 4;
        let planes = (usize::BITS - n.leading_zeros()).max(1) as u64;
        let grouping = n as u64 * 16 + d as u64 * 20;
        RowIndex::bytes(schema, d) + crate::data::bitset::words_for(d) as u64 * planes * 8 + d as u64 * 8 + grouping
    }

    /// The rows themselves, weight 1 each.
    pub fn rows(n: usize) -> Self {
        Self {
            index: None,
            planes: Vec::new(),
            n_planes: 0,
            first: Vec::new(),
            total: n as u32,
        }
    }

    fn collapse(schema: &Schema, n: usize, code: &impl Fn(usize, usize) -> u32) -> Result<Option<Self>> {
        let groups = Groups::try_new(n, schema.n_features(), code, |r| r as u32)?;
        if groups.len() * 4 > n * WORTH {
            return Ok(None);
        }
        let mut weight = filled(groups.len(), 0u32, WHAT)?;
        for &g in &groups.of_row {
            weight[g as usize] += 1;
        }
        let reps = groups.reps;
        let index = RowIndex::from_fn(schema, reps.len(), |f, j| code(reps[j] as usize, f))?;
        let (planes, n_planes) = bit_planes(weight.len(), index.n_words(), |j| weight[j], WHAT)?;
        Ok(Some(Self {
            index: Some(index),
            planes,
            n_planes,
            first: reps,
            total: n as u32,
        }))
    }

    /// Whether the rows were collapsed.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn is_collapsed(&self) -> bool {
        self.index.is_some()
    }

    /// The index the view counts on: its own, or `rows` (the label's row index) when not
    /// collapsed.
    #[inline]
    pub fn index<'a>(&'a self, rows: &'a RowIndex) -> &'a RowIndex {
        self.index.as_ref().unwrap_or(rows)
    }

    /// The label's rows that the bits `bits` of word `w` of [`index`](Self::index) stand for.
    #[inline]
    pub fn weigh(&self, w: usize, bits: u64) -> u32 {
        if self.n_planes == 0 {
            return bits.count_ones();
        }
        weigh_planes(&self.planes[w * self.n_planes..(w + 1) * self.n_planes], bits)
    }

    /// The label's rows that `terms` cover (`rows`: the label's row index).
    pub fn count_covered(&self, rows: &RowIndex, terms: &Terms) -> u32 {
        let index = self.index(rows);
        (0..index.n_words())
            .map(|w| self.weigh(w, index.covered_word(terms, w)))
            .sum()
    }

    /// The label's number of the first row of vector `j` of [`index`](Self::index).
    #[inline]
    pub fn first(&self, j: usize) -> usize {
        if self.index.is_none() {
            j
        } else {
            self.first[j] as usize
        }
    }

    /// The label's rows.
    #[inline]
    pub fn total(&self) -> u32 {
        self.total
    }
}

/// Bit planes of the weights of `n` vectors laid out over `n_words` index words:
/// `planes[w * n_planes + b]` holds bit `b` of the weight of each vector of word `w`, so the
/// weight of vector `j` is `sum_b 2^b * bit (j % 64) of planes[(j / 64) * n_planes + b]`.
/// Returns the planes and `n_planes` (at least 1: enough bits for the largest weight).
pub fn bit_planes(
    n: usize,
    n_words: usize,
    weight: impl Fn(usize) -> u32,
    what: &'static str,
) -> Result<(Vec<u64>, usize)> {
    let max = (0..n).map(&weight).max().unwrap_or(0);
    let n_planes = (u32::BITS - max.leading_zeros()).max(1) as usize;
    let mut planes = zeroed_words(n_words * n_planes, what)?;
    for j in 0..n {
        let (w, bit, x) = (j / WORD_BITS, 1u64 << (j % WORD_BITS), weight(j));
        for b in 0..n_planes {
            if x >> b & 1 == 1 {
                planes[w * n_planes + b] |= bit;
            }
        }
    }
    Ok((planes, n_planes))
}

/// The summed weights of the vectors whose bits are set in `bits`, given one word's planes
/// (`planes[b]`: bit `b` of each vector's weight; see [`bit_planes`]).
#[inline(always)]
pub fn weigh_planes(planes: &[u64], bits: u64) -> u32 {
    planes.iter().enumerate().map(|(b, &p)| (bits & p).count_ones() << b).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rule::Rule;
    use crate::learn::run::tests::{random_data, training_set};
    use crate::data::schema::ConstraintKind;

    /// Over rows repeated 4 times, the collapsed view counts what the rows count, for the
    /// rules made from rows and their generalizations.
    #[test]
    fn a_collapsed_view_counts_the_rows() {
        let domains = [3u32, 2, 4, 3];
        for seed in 0..20u64 {
            let (rows, labels) = random_data(seed, 30, &domains);
            let rows: Vec<Vec<u32>> = (0..4).flat_map(|_| rows.clone()).collect();
            let labels: Vec<bool> = (0..4).flat_map(|_| labels.clone()).collect();
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind) else { continue };
                let (pos, neg) = ts.weighted();
                assert!(pos.is_collapsed(), "seed {seed}: 4 copies of each row collapse");
                let mut terms = Terms::new();
                for (a, b) in rows.iter().zip(rows.iter().skip(7)) {
                    let mut rule = Rule::from_row(&schema, a);
                    for r in [Rule::from_row(&schema, a), {
                        rule.generalize(&schema, b);
                        rule.clone()
                    }] {
                        r.terms(&schema, &mut terms);
                        let want = |y: bool| {
                            rows.iter().zip(&labels).filter(|(x, &l)| l == y && r.covers_row(&schema, x)).count() as u32
                        };
                        assert_eq!(pos.count_covered(&ts.positives, &terms), want(true), "seed {seed}");
                        assert_eq!(neg.count_covered(&ts.negatives, &terms), want(false), "seed {seed}");
                        assert_eq!(pos.total() + neg.total(), rows.len() as u32);
                    }
                }
                // Each vector's first positive: in training order, and every distinct positive once.
                let firsts: Vec<usize> = (0..pos.index(&ts.positives).n_rows()).map(|j| pos.first(j)).collect();
                assert!(firsts.windows(2).all(|w| w[0] < w[1]), "seed {seed}");
                let mut seen: Vec<&[u32]> = Vec::new();
                let want: Vec<usize> = (0..ts.n_positives())
                    .filter(|&i| {
                        let new = !seen.contains(&ts.pos_codes(i));
                        seen.push(ts.pos_codes(i));
                        new
                    })
                    .collect();
                assert_eq!(firsts, want, "seed {seed}");
            }
        }
    }
}
