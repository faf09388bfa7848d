//! Fitting entry point: data and options in, a [`RuleModel`] (plus what the fit learned about
//! the data) out. This is the one function the bindings call to learn.
//!
//! Invariant: the result depends on the data, the options and the seed only; the thread count
//! changes how fast, never what.

use crate::best_k::pruning_curve;
use crate::data::Columns;
use crate::ensemble::{aggregate, fit_runs, run_order, Progress};
use crate::error::{FindRsError, Result};
use crate::model::{coverage_counts, Method, RuleModel, RuleSetParts, MAX_RUNS};
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

/// The options of a fit; [`FitOptions::validate`] is where their ranges are checked.
#[derive(Clone, Debug)]
pub struct FitOptions {
    pub method: Method,
    /// How many training negatives one rule may cover (docs/semantics.md §3).
    pub tolerance: u32,
    /// T, the number of runs (FIND-RS: 1).
    pub n_runs: u32,
    pub seed: u64,
    pub shuffle: bool,
    pub n_rules: RuleCount,
}

impl FitOptions {
    /// Checks the ranges: T from 1 to [`MAX_RUNS`] (1 for FIND-RS), a fixed K of at least 1,
    /// `accuracy_ratio` in (0, 1].
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(FindRsError::InvalidParameter(m));
        if self.n_runs == 0 || self.n_runs > MAX_RUNS {
            return bad(format!("T must be from 1 to {MAX_RUNS}, got {}", self.n_runs));
        }
        if self.method == Method::FindRs && self.n_runs != 1 {
            return bad(format!("FIND-RS makes one run: T must be 1, got {}", self.n_runs));
        }
        match self.n_rules {
            RuleCount::Auto { accuracy_ratio } if !(accuracy_ratio > 0.0 && accuracy_ratio <= 1.0) => {
                bad(format!("accuracy_ratio must be in (0, 1], got {accuracy_ratio}"))
            }
            RuleCount::Fixed(0) => bad("n_rules must be at least 1".into()),
            _ => Ok(()),
        }
    }
}

/// A fitted model and what the fit learned about the data besides it.
#[derive(Clone, Debug)]
pub struct Fitted {
    pub model: RuleModel,
    /// Training rows that have an identical row of the other label (docs/semantics.md §1).
    pub contradictions: usize,
}

/// Fits a model of `options.method` on `data` (training codes: no unseen code) labelled by
/// `labels` (true = positive); `progress` counts finished runs and can cancel between runs.
pub fn fit(
    schema: Schema,
    data: &Columns,
    labels: &[bool],
    options: &FitOptions,
    progress: &Progress,
) -> Result<Fitted> {
    options.validate()?;
    let ts = TrainingSet::new(schema.clone(), data, labels)?;
    let contradictions = TrainingSet::contradictions(data, labels);
    let tau = options.tolerance;
    let runs = if options.method == Method::FindRs {
        let order = run_order(ts.n_positives(), options.seed, 0, options.shuffle);
        vec![find_rs_pruned(&ts, &order, tau)]
    } else {
        fit_runs(&ts, tau, options.n_runs as usize, options.seed, options.shuffle, progress)?
    };
    let mut parts = RuleSetParts::default();
    if options.method == Method::FindRs {
        let rules = runs.into_iter().next().expect("one run");
        parts.weights = vec![1; rules.len()];
        parts.rules = rules;
    } else {
        let agg = aggregate(runs);
        parts.rules = agg.rules;
        parts.weights = agg.alpha;
        if options.method == Method::Bo {
            parts.runs = agg.runs;
        }
    }
    let n = parts.rules.len();
    parts.n_kept = n;
    if options.method == Method::Bp {
        let index = RowIndex::from_all(&schema, data);
        let curve = pruning_curve(&schema, &index, labels, &parts.rules, &parts.weights, options.n_runs);
        parts.n_kept = match options.n_rules {
            RuleCount::All => n,
            RuleCount::Fixed(k) => k.min(n),
            RuleCount::Auto { accuracy_ratio } => curve.auto_k(accuracy_ratio),
        };
        parts.train_positives = curve.pos_covered;
        parts.train_negatives = curve.neg_covered;
        parts.curve = curve.correct;
    } else {
        (parts.train_positives, parts.train_negatives) = coverage_counts(&schema, &parts.rules, data, labels);
    }
    let model = RuleModel::new(schema, options.method, options.n_runs, vec![parts])?;
    Ok(Fitted { model, contradictions })
}
