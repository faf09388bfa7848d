//! A fitted rule model: its rules, weights and threshold; prediction compiles the voting rules
//! into a [`Predictor`].
//!
//! Invariant: a model's integer score of a row and its threshold decide the class the same way
//! for every method (positive iff `score > threshold`):
//! - FIND-RS: score 1 if some rule covers the row, threshold 0;
//! - BO: the number of runs whose rule set covers the row, threshold floor(T / 2);
//! - BP: the sum of the weights of the kept (top-K) rules covering the row, threshold
//!   floor(kept_weight * T / (2 * total_weight)) (docs/semantics.md §5, gamma_K).

use crate::best_k::threshold;
use crate::data::Columns;
use crate::error::{FindRsError, Result};
use crate::row_index::RowIndex;
use crate::predict::Predictor;
use crate::rule::Rule;
use crate::schema::Schema;

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

    /// The voting rules compiled for prediction (build it once to predict many times);
    /// `sample`, rows like those to predict, tunes the evaluation order.
    pub fn predictor(&self, sample: Option<&Columns>) -> Predictor {
        Predictor::new(self, sample)
    }

    /// The integer score of every row (see the module docs). Compiles a predictor for this
    /// call only (as do `fired` and `predict`); to predict many times, keep a
    /// [`PredictorCell`](crate::predict::PredictorCell).
    pub fn scores(&self, data: &Columns) -> Vec<u32> {
        self.predictor(Some(data)).scores(data)
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
        self.predictor(Some(data)).fired(data)
    }

    pub fn predict(&self, data: &Columns) -> Vec<bool> {
        self.predictor(Some(data)).predict(data)
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
