//! Fitting entry point: data and options in, a [`RuleModel`] (plus what the fit learned about
//! the data) out. This is the one function the bindings call to learn.
//!
//! Invariant: the result depends on the data, the options and the seed only; the thread count
//! changes how fast, never what.

use crate::best_k::{pruning_curve, PruningCurve};
use crate::data::Columns;
use crate::ensemble::{aggregate, fit_runs, run_order, Progress};
use crate::error::{FindRsError, Result};
use crate::model::{Method, RuleModel};
use crate::prune::find_rs_pruned;
use crate::row_index::RowIndex;
use crate::schema::Schema;
use crate::training::TrainingSet;

/// How many BP rules vote.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RuleCount {
    /// The smallest K whose training accuracy is >= ratio x that of all rules.
    Auto { accuracy_ratio: f64 },
    /// The top K (capped at the number of rules).
    Fixed(usize),
    /// Every rule.
    All,
}

#[derive(Clone, Debug)]
pub struct FitOptions {
    pub method: Method,
    pub tolerance: u32,
    pub n_runs: u32,
    pub seed: u64,
    pub shuffle: bool,
    pub n_rules: RuleCount,
}

#[derive(Clone, Debug)]
pub struct Fitted {
    pub model: RuleModel,
    /// BP only: training accuracy for every K.
    pub curve: Option<PruningCurve>,
    /// Training positives and negatives covered by each rule of the model.
    pub pos_covered: Vec<u32>,
    pub neg_covered: Vec<u32>,
    /// Training rows that have an identical row of the other label (docs/semantics.md §1).
    pub contradictions: usize,
}

impl Fitted {
    fn new(model: RuleModel, curve: Option<PruningCurve>, data: &Columns, labels: &[bool]) -> Self {
        let (pos_covered, neg_covered) = match &curve {
            Some(c) => (c.pos_covered.clone(), c.neg_covered.clone()),
            None => model.coverage_counts(data, labels),
        };
        let contradictions = TrainingSet::contradictions(data, labels);
        Self {
            model,
            curve,
            pos_covered,
            neg_covered,
            contradictions,
        }
    }
}

pub fn fit(
    schema: Schema,
    data: &Columns,
    labels: &[bool],
    options: &FitOptions,
    progress: &Progress,
) -> Result<Fitted> {
    if options.n_runs == 0 {
        return Err(FindRsError::InvalidParameter("T must be at least 1".into()));
    }
    if let RuleCount::Auto { accuracy_ratio } = options.n_rules {
        if !(0.0..=1.0).contains(&accuracy_ratio) {
            return Err(FindRsError::InvalidParameter(format!(
                "accuracy_ratio must be in [0, 1], got {accuracy_ratio}"
            )));
        }
    }
    if let RuleCount::Fixed(0) = options.n_rules {
        return Err(FindRsError::InvalidParameter(
            "n_rules must be at least 1".into(),
        ));
    }
    let ts = TrainingSet::new(schema.clone(), data, labels)?;
    let tau = options.tolerance;
    if options.method == Method::FindRs {
        let order = run_order(ts.n_positives(), options.seed, 0, options.shuffle);
        let rules = find_rs_pruned(&ts, &order, tau);
        let n = rules.len();
        let model = RuleModel {
            schema,
            method: Method::FindRs,
            weights: vec![1; n],
            rules,
            runs: Vec::new(),
            n_runs: 1,
            n_kept: n,
            total_weight: n as u64,
        };
        return Ok(Fitted::new(model, None, data, labels));
    }
    let runs = fit_runs(
        &ts,
        tau,
        options.n_runs as usize,
        options.seed,
        options.shuffle,
        progress,
    )?;
    let agg = aggregate(runs);
    let total_weight: u64 = agg.alpha.iter().map(|&a| a as u64).sum();
    let n = agg.rules.len();
    let mut model = RuleModel {
        schema,
        method: options.method,
        rules: agg.rules,
        weights: agg.alpha,
        runs: Vec::new(),
        n_runs: options.n_runs,
        n_kept: n,
        total_weight,
    };
    if options.method == Method::Bo {
        model.runs = agg.runs;
        return Ok(Fitted::new(model, None, data, labels));
    }
    let index = RowIndex::from_all(&model.schema, data);
    let curve = pruning_curve(
        &model.schema,
        &index,
        labels,
        &model.rules,
        &model.weights,
        options.n_runs,
    );
    model.n_kept = match options.n_rules {
        RuleCount::All => n,
        RuleCount::Fixed(k) => k.min(n),
        RuleCount::Auto { accuracy_ratio } => curve.auto_k(accuracy_ratio),
    };
    Ok(Fitted::new(model, Some(curve), data, labels))
}
