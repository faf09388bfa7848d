//! A fitted rule model and its prediction, word-parallel over rows in blocks.
//!
//! Invariant: a model's integer score of a row and its threshold decide the class the same way
//! for every method (positive iff `score > threshold`):
//! - FIND-RS: score 1 if some rule covers the row, threshold 0;
//! - BO: the number of runs whose rule set covers the row, threshold floor(T / 2);
//! - BP: the sum of the weights of the kept (top-K) rules covering the row, threshold
//!   floor(kept_weight * T / (2 * total_weight)) (SPEC 5, gamma_K).

use crate::best_k::threshold;
use crate::bitset;
use crate::data::Columns;
use crate::error::{FindRsError, Result};
use crate::row_index::RowIndex;
use crate::rule::{Rule, Terms};
use crate::schema::Schema;
use rayon::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    FindRs,
    Bo,
    Bp,
}

impl Method {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "find-rs" => Ok(Self::FindRs),
            "bo" => Ok(Self::Bo),
            "bp" => Ok(Self::Bp),
            other => Err(FindRsError::InvalidParameter(format!(
                "method must be 'find-rs', 'bo' or 'bp', got {other:?}"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::FindRs => "find-rs",
            Self::Bo => "bo",
            Self::Bp => "bp",
        }
    }
}

#[derive(Clone, Debug)]
pub struct RuleModel {
    pub schema: Schema,
    pub method: Method,
    /// FIND-RS: the pruned rules in creation order; BO/BP: unique rules ranked by weight.
    pub rules: Vec<Rule>,
    /// Weight (alpha) of each rule; 1 for FIND-RS.
    pub weights: Vec<u32>,
    /// BO: the ranks of each run's rules. Empty for the other methods.
    pub runs: Vec<Vec<u32>>,
    /// T (1 for FIND-RS).
    pub n_runs: u32,
    /// BP: the number of top rules that vote (K). Others: all rules.
    pub n_kept: usize,
    /// BP: the sum of the weights of all rules found, kept or not (the denominator of gamma_K).
    pub total_weight: u64,
}

/// Rows per prediction block (a block's index is n_slots x 1024 words).
const BLOCK_ROWS: usize = 1 << 16;

/// `0..n` cut into blocks of `BLOCK_ROWS` rows, predicted in parallel.
fn row_blocks(n: usize) -> Vec<(usize, usize)> {
    (0..n).step_by(BLOCK_ROWS).map(|s| (s, (s + BLOCK_ROWS).min(n))).collect()
}

impl RuleModel {
    pub fn validate(&self) -> Result<()> {
        let n = self.rules.len();
        if self.weights.len() != n {
            return Err(FindRsError::InvalidData(format!(
                "{n} rules but {} weights",
                self.weights.len()
            )));
        }
        if self.n_kept > n {
            return Err(FindRsError::InvalidData(format!(
                "K = {} but only {n} rules",
                self.n_kept
            )));
        }
        if self.n_runs == 0 {
            return Err(FindRsError::InvalidData("T must be at least 1".into()));
        }
        if self.method == Method::Bo {
            if self.runs.len() != self.n_runs as usize {
                return Err(FindRsError::InvalidData(format!(
                    "a BO model needs T = {} runs, got {}",
                    self.n_runs,
                    self.runs.len()
                )));
            }
            if self.runs.iter().flatten().any(|&i| i as usize >= n) {
                return Err(FindRsError::InvalidData(
                    "a BO run names a rule that does not exist".into(),
                ));
            }
        }
        let kept: u64 = self.weights[..self.n_kept].iter().map(|&w| w as u64).sum();
        if self.method == Method::Bp && self.total_weight < kept {
            return Err(FindRsError::InvalidData(
                "the total weight is below the kept rules' weight".into(),
            ));
        }
        Ok(())
    }

    /// Positive iff `score > threshold()`.
    pub fn threshold(&self) -> u64 {
        match self.method {
            Method::FindRs => 0,
            Method::Bo => self.n_runs as u64 / 2,
            Method::Bp => {
                let kept: u64 = self.weights[..self.n_kept].iter().map(|&w| w as u64).sum();
                threshold(kept, self.total_weight, self.n_runs as u64)
            }
        }
    }

    fn kept_terms(&self) -> Vec<Terms> {
        self.rules[..self.n_kept]
            .iter()
            .map(|r| {
                let mut t = Terms::new();
                r.terms(&self.schema, &mut t);
                t
            })
            .collect()
    }

    /// The integer score of every row (see the module docs).
    pub fn scores(&self, data: &Columns) -> Vec<u32> {
        let n = data.n_rows();
        let terms = self.kept_terms();
        let blocks = row_blocks(n);
        let parts: Vec<Vec<u32>> = blocks
            .par_iter()
            .map(|&(s, e)| {
                let index = RowIndex::from_all(&self.schema, &data.slice(s, e));
                self.block_scores(&index, &terms)
            })
            .collect();
        parts.concat()
    }

    fn block_scores(&self, index: &RowIndex, terms: &[Terms]) -> Vec<u32> {
        let nw = index.n_words();
        let mut scores = vec![0u32; index.n_rows()];
        match self.method {
            Method::FindRs => {
                let mut any = vec![0u64; nw];
                for t in terms {
                    for (w, a) in any.iter_mut().enumerate() {
                        *a |= index.covered_word(t, w);
                    }
                }
                bitset::for_each_one(&any, |r| scores[r] = 1);
            }
            Method::Bp => {
                for (t, &wt) in terms.iter().zip(&self.weights) {
                    for w in 0..nw {
                        let word = index.covered_word(t, w);
                        bitset::for_each_one(&[word], |b| scores[w * 64 + b] += wt);
                    }
                }
            }
            Method::Bo => {
                let mut any = vec![0u64; nw];
                for run in &self.runs {
                    any.iter_mut().for_each(|a| *a = 0);
                    for &i in run {
                        for (w, a) in any.iter_mut().enumerate() {
                            *a |= index.covered_word(&terms[i as usize], w);
                        }
                    }
                    bitset::for_each_one(&any, |r| scores[r] += 1);
                }
            }
        }
        scores
    }

    /// The signed decision value of an integer score: positive exactly where the row is
    /// predicted positive. FIND-RS: score - 1/2; BO: score / T - 1/2; BP: score / T - gamma_K / 2.
    pub fn decision(&self, score: u32) -> f64 {
        let s = score as f64;
        match self.method {
            Method::FindRs => s - 0.5,
            Method::Bo => s / self.n_runs as f64 - 0.5,
            Method::Bp => {
                let kept: u64 = self.weights[..self.n_kept].iter().map(|&w| w as u64).sum();
                let gamma = if self.total_weight == 0 {
                    0.0
                } else {
                    kept as f64 / self.total_weight as f64
                };
                s / self.n_runs as f64 - gamma / 2.0
            }
        }
    }

    /// For every row, the ids of the voting rules that cover it, in rule order (heaviest first
    /// for BO/BP), as CSR: row `r`'s ids are `ids[offsets[r]..offsets[r + 1]]`.
    pub fn fired(&self, data: &Columns) -> (Vec<u64>, Vec<u32>) {
        let n = data.n_rows();
        let terms = self.kept_terms();
        let blocks = row_blocks(n);
        let parts: Vec<(Vec<u32>, Vec<u32>)> = blocks
            .par_iter()
            .map(|&(s, e)| {
                let index = RowIndex::from_all(&self.schema, &data.slice(s, e));
                let rows = e - s;
                // Two passes over the rules: count per row, then fill in rule order.
                let mut counts = vec![0u32; rows];
                for t in &terms {
                    for w in 0..index.n_words() {
                        bitset::for_each_one(&[index.covered_word(t, w)], |b| {
                            counts[w * 64 + b] += 1
                        });
                    }
                }
                let mut start = Vec::with_capacity(rows + 1);
                let mut acc = 0u32;
                for &c in &counts {
                    start.push(acc);
                    acc += c;
                }
                let mut ids = vec![0u32; acc as usize];
                let mut fill = start.clone();
                for (id, t) in terms.iter().enumerate() {
                    for w in 0..index.n_words() {
                        bitset::for_each_one(&[index.covered_word(t, w)], |b| {
                            let r = w * 64 + b;
                            ids[fill[r] as usize] = id as u32;
                            fill[r] += 1;
                        });
                    }
                }
                (counts, ids)
            })
            .collect();
        let mut offsets = Vec::with_capacity(n + 1);
        let mut all = Vec::new();
        offsets.push(0u64);
        for (counts, ids) in parts {
            let mut at = *offsets.last().expect("offsets start at 0");
            for c in counts {
                at += c as u64;
                offsets.push(at);
            }
            all.extend(ids);
        }
        (offsets, all)
    }

    pub fn predict(&self, data: &Columns) -> Vec<bool> {
        let t = self.threshold();
        self.scores(data)
            .into_iter()
            .map(|s| s as u64 > t)
            .collect()
    }

    /// For each rule, the number of positive and of negative rows it covers.
    pub fn coverage_counts(&self, data: &Columns, labels: &[bool]) -> (Vec<u32>, Vec<u32>) {
        let index = RowIndex::from_all(&self.schema, data);
        let rows = crate::best_k::covered_rows(&self.schema, &index, &self.rules);
        rows.iter()
            .map(|rs| {
                let p = rs.iter().filter(|&&r| labels[r as usize]).count() as u32;
                (p, rs.len() as u32 - p)
            })
            .unzip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ConstraintKind;

    fn model(method: Method) -> RuleModel {
        let schema = Schema::uniform(vec![2, 3], ConstraintKind::OneHot).unwrap();
        let rules = vec![
            Rule::from_constraints(&schema, &[(0, vec![1])]).unwrap(),
            Rule::from_constraints(&schema, &[(1, vec![0, 2])]).unwrap(),
        ];
        RuleModel {
            schema,
            method,
            rules,
            weights: vec![3, 1],
            runs: vec![vec![0], vec![1], vec![0, 1]],
            n_runs: 3,
            n_kept: 2,
            total_weight: 4,
        }
    }

    #[test]
    fn scores_fired_and_decisions_agree() {
        // rows: (a, b) codes; code 2 of a / 3 of b are unseen values.
        let a = [0u32, 1, 0, 2, 1];
        let b = [1u32, 1, 2, 3, 0];
        for method in [Method::FindRs, Method::Bo, Method::Bp] {
            let m = model(method);
            let data = Columns::new(&m.schema, vec![&a, &b]).unwrap();
            let (offsets, ids) = m.fired(&data);
            let fired: Vec<Vec<u32>> = (0..5)
                .map(|r| ids[offsets[r] as usize..offsets[r + 1] as usize].to_vec())
                .collect();
            // rule 0: a = 1; rule 1: b not in {1} (unseen b passes).
            assert_eq!(fired, vec![vec![], vec![0], vec![1], vec![1], vec![0, 1]]);
            let scores = m.scores(&data);
            let pred = m.predict(&data);
            for r in 0..5 {
                assert_eq!(pred[r], m.decision(scores[r]) > 0.0, "{method:?} row {r}");
            }
        }
        let bp = model(Method::Bp);
        let data = Columns::new(&bp.schema, vec![&a, &b]).unwrap();
        assert_eq!(bp.scores(&data), vec![0, 3, 1, 1, 4]);
        assert_eq!(bp.threshold(), 1); // floor(4 * 3 / 8)
        let bo = model(Method::Bo);
        assert_eq!(
            bo.scores(&Columns::new(&bo.schema, vec![&a, &b]).unwrap()),
            vec![0, 2, 2, 2, 3]
        );
    }
}
