//! Best-K pruning of a FIND-RS-BP model (docs/semantics.md §5): training accuracy of the top-K
//! rules for every K, with the threshold gamma_K * T / 2 that prediction uses, in one pass over
//! the (row, rule) coverage pairs.
//!
//! Invariant: after adding rules `0..K`, `score[r]` is the integer sum of the weights of those
//! rules covering row `r`, and each label's Fenwick tree counts the rows at every score up to
//! the largest threshold, floor(T / 2), and above it in one last position (every threshold is
//! below it, so those rows are positive at every K); so the accuracy at K is two prefix sums,
//! each coverage pair is touched once (O(log T) each), and the trees take O(T) memory whatever
//! the weights sum to.

use crate::data::bitset;
use crate::data::row_index::RowIndex;
use crate::data::rule::{Rule, Terms};
use crate::data::schema::Schema;
use rayon::prelude::*;

/// Integer threshold of the top-K vote: a row is positive iff its score is above it.
/// `score > gamma_K T / 2` with `gamma_K = kept / total` is `score > floor(kept T / (2 total))`.
#[inline]
pub fn threshold(kept_weight: u64, total_weight: u64, n_runs: u64) -> u64 {
    if total_weight == 0 {
        return 0;
    }
    ((kept_weight as u128 * n_runs as u128) / (2 * total_weight as u128)) as u64
}

struct Fenwick {
    tree: Vec<i64>,
}

impl Fenwick {
    fn new(n: usize) -> Self {
        Self {
            tree: vec![0; n + 1],
        }
    }
    fn add(&mut self, i: usize, v: i64) {
        let mut i = i + 1;
        while i < self.tree.len() {
            self.tree[i] += v;
            i += i & i.wrapping_neg();
        }
    }
    /// Sum over positions `0..=i`.
    fn prefix(&self, i: usize) -> i64 {
        let mut i = (i + 1).min(self.tree.len() - 1);
        let mut s = 0;
        while i > 0 {
            s += self.tree[i];
            i -= i & i.wrapping_neg();
        }
        s
    }
}

/// `correct[k]`: training rows classified correctly by the top `k + 1` rules; also, for each
/// rule, the positive and negative rows it covers (found on the way).
#[derive(Clone, Debug)]
pub struct PruningCurve {
    pub correct: Vec<u32>,
    pub pos_covered: Vec<u32>,
    pub neg_covered: Vec<u32>,
}

impl PruningCurve {
    /// The smallest K (1-based) whose training accuracy is at least `ratio` times the
    /// accuracy with all rules.
    pub fn auto_k(&self, ratio: f64) -> usize {
        let Some(&full) = self.correct.last() else {
            return 0;
        };
        let bound = ratio * full as f64 - 1e-9;
        self.correct
            .iter()
            .position(|&c| c as f64 >= bound)
            .map_or(self.correct.len(), |k| k + 1)
    }
}

/// Rows (indices into `index`) covered by each rule, computed in parallel. Each rule's
/// single-slot terms are ANDed rarest slot first (the order changes no row, only how soon a
/// word's AND reaches zero: on connect-4's BP100 most words then stop after the first four).
pub fn covered_rows(schema: &Schema, index: &RowIndex, rules: &[Rule]) -> Vec<Vec<u32>> {
    let slot_rows = index.slot_rows();
    rules
        .par_iter()
        .map_init(Terms::new, |terms, rule| {
            rule.terms(schema, terms);
            terms.sort_singles_by_key(|s| slot_rows[s as usize]);
            let mut rows = Vec::new();
            index.for_each_covered_word(terms, |w, word| {
                bitset::for_each_one(&[word], |b| rows.push((w * 64 + b) as u32));
            });
            rows
        })
        .collect()
}

/// Accuracy of the top-K vote on the indexed rows for every K.
pub fn pruning_curve(
    schema: &Schema,
    index: &RowIndex,
    labels: &[bool],
    rules: &[Rule],
    alpha: &[u32],
    n_runs: u32,
) -> PruningCurve {
    let n = index.n_rows();
    let total: u64 = alpha.iter().map(|&a| a as u64).sum();
    // Scores above every threshold share one position (see the module docs).
    let cap = total.min(n_runs as u64 / 2 + 1) as usize;
    let at = |score: u64| (score as usize).min(cap);
    let mut pos = Fenwick::new(cap + 1);
    let mut neg = Fenwick::new(cap + 1);
    let n_pos = labels.iter().filter(|&&y| y).count() as i64;
    pos.add(0, n_pos);
    neg.add(0, n as i64 - n_pos);
    let mut score = vec![0u64; n];
    let mut correct = Vec::with_capacity(rules.len());
    let mut pos_covered = Vec::with_capacity(rules.len());
    let mut neg_covered = Vec::with_capacity(rules.len());
    let mut kept = 0u64;
    const CHUNK: usize = 2048;
    for (c, chunk) in rules.chunks(CHUNK).enumerate() {
        let cover = covered_rows(schema, index, chunk);
        for (j, rows) in cover.iter().enumerate() {
            let a = alpha[c * CHUNK + j] as u64;
            let p = rows.iter().filter(|&&r| labels[r as usize]).count() as u32;
            pos_covered.push(p);
            neg_covered.push(rows.len() as u32 - p);
            for &r in rows {
                let r = r as usize;
                let tree = if labels[r] { &mut pos } else { &mut neg };
                tree.add(at(score[r]), -1);
                score[r] += a;
                tree.add(at(score[r]), 1);
            }
            kept += a;
            let t = (threshold(kept, total, n_runs as u64) as usize).min(cap);
            let ok = (n_pos - pos.prefix(t)) + neg.prefix(t);
            correct.push(ok as u32);
        }
    }
    PruningCurve {
        correct,
        pos_covered,
        neg_covered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_is_the_floor_of_gamma_t_half() {
        assert_eq!(threshold(10, 10, 100), 50);
        assert_eq!(threshold(10, 10, 3), 1);
        assert_eq!(threshold(5, 10, 3), 0);
        assert_eq!(threshold(7, 9, 100), 38); // 7*100/18 = 38.9
    }

    /// Weights of 2^32 - 1 (issue 10 item 7): the counters stop at T / 2 + 1, so the curve
    /// takes no memory for the weights' sum, and it is still exact.
    #[test]
    fn huge_weights_take_no_memory_and_count_right() {
        use crate::data::columns::Columns;
        use crate::data::schema::ConstraintKind;
        let schema = Schema::uniform(vec![2], ConstraintKind::AttributeValue).unwrap();
        let rules = vec![
            Rule::from_constraints(&schema, &[(0, vec![0])]).unwrap(),
            Rule::from_constraints(&schema, &[(0, vec![1])]).unwrap(),
        ];
        let col = [0u32, 1];
        let data = Columns::new(&schema, vec![&col]).unwrap();
        let index = RowIndex::from_all(&schema, &data).unwrap();
        let curve = pruning_curve(&schema, &index, &[true, false], &rules, &[u32::MAX, u32::MAX], 4);
        // K = 1: threshold 1, row 0 (votes 2^32 - 1) positive, row 1 negative: both right.
        // K = 2: threshold 2, both rows positive: one right.
        assert_eq!(curve.correct, vec![2, 1]);
    }

    #[test]
    fn auto_k_is_smallest_meeting_ratio() {
        let c = PruningCurve {
            correct: vec![50, 80, 97, 99, 100],
            pos_covered: vec![],
            neg_covered: vec![],
        };
        assert_eq!(c.auto_k(0.99), 4);
        assert_eq!(c.auto_k(0.97), 3);
        assert_eq!(c.auto_k(1.0), 5);
        assert_eq!(c.auto_k(0.0), 1);
    }

    /// The curve over interval rules: at every K, the rows whose covering top-K weights sum
    /// above the threshold, counted naively with `Rule::covers_row`.
    #[test]
    fn curve_with_interval_rules_matches_naive_vote() {
        use crate::data::columns::Columns;
        use crate::learn::run::interval_tests::{av, iv, mixed_schema, random_rows, random_rule};
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let schema = mixed_schema(&[iv(6, true), av(2), iv(150, false)]);
        for _ in 0..10 {
            let n = 200;
            let cols = random_rows(&mut rng, &schema, n);
            let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let labels: Vec<bool> = (0..n).map(|_| rng.random_bool(0.5)).collect();
            let rules: Vec<Rule> = (0..30).map(|_| random_rule(&mut rng, &schema, 0.3)).collect();
            let alpha: Vec<u32> = (0..30).map(|i| 30 - i).collect();
            let index = RowIndex::from_all(&schema, &data).unwrap();
            let curve = pruning_curve(&schema, &index, &labels, &rules, &alpha, 40);
            let total: u64 = alpha.iter().map(|&a| a as u64).sum();
            for k in 1..=rules.len() {
                let kept: u64 = alpha[..k].iter().map(|&a| a as u64).sum();
                let t = threshold(kept, total, 40);
                let correct = (0..n)
                    .filter(|&r| {
                        let row = data.row(r);
                        let score: u64 = (0..k)
                            .filter(|&i| rules[i].covers_row(&schema, &row))
                            .map(|i| alpha[i] as u64)
                            .sum();
                        (score > t) == labels[r]
                    })
                    .count() as u32;
                assert_eq!(curve.correct[k - 1], correct, "K = {k}");
            }
        }
    }
}
