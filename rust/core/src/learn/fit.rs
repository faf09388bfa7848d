//! Fitting entry point: data and options in, a [`RuleModel`] (plus what the fit learned about
//! the data) out. This is the one function the bindings call to learn.
//!
//! Invariant: the result depends on the data, the options and the seed only; the thread count
//! changes how fast, never what.

use crate::learn::acceptance::Acceptance;
use crate::predict::best_k::pruning_curve;
use crate::learn::best_of::{choose, BestOf};
use crate::learn::budget::{best_dnf, dnf_path, Path};
use crate::data::columns::Columns;
use crate::learn::ensemble::{aggregate, fit_runs, run_order, Progress};
use crate::data::error::{FindRsError, Result};
use crate::predict::model::{coverage_counts_on, Method, RuleModel, RuleSetParts, MAX_RUNS};
use crate::learn::prune::find_rs_pruned;
use crate::data::row_index::RowIndex;
use crate::data::schema::Schema;
use crate::learn::simplify::Simplifier;
use crate::data::rule::Rule;
use crate::learn::training::TrainingSet;
use crate::learn::weighted::Weighted;
use crate::learn::widen::{widen_run, Widen};

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
    /// Also accept a generalization whose training negatives are at most this share of the
    /// training rows it covers, in `[0, 1)` (docs/semantics.md §9.1); 0 is the paper's test.
    pub epsilon: f64,
    /// Each run drops the rules covering fewer training positives before prune
    /// (docs/semantics.md §9.2); 0 and 1 drop nothing.
    pub min_support: u32,
    /// T, the number of runs (FIND-RS: 1).
    pub n_runs: u32,
    /// FIND-RS: the run whose order is presented (stream `run` of the seed, the order of run
    /// `run` of a BO/BP fit, docs/semantics.md §5.3); 0 is the paper's FIND-RS. BO and BP: 0.
    pub run: u32,
    /// FIND-RS: make the runs `0..best_of` and keep the one with the most training rows right
    /// (a tie to the earliest; docs/semantics.md §5.3); 1 is one run (`run`). BO and BP: 1.
    pub best_of: u32,
    pub seed: u64,
    pub shuffle: bool,
    pub n_rules: RuleCount,
    /// Simplify each run's pruned rules before the runs are aggregated (docs/semantics.md §8).
    pub simplify: bool,
    /// A rule budget: a model with more voting rules is replaced by the best DNF of at most this
    /// many of its rules on the training data, or (BP) by its top-`max_rules` vote when that
    /// classifies more training rows correctly (docs/semantics.md §8).
    pub max_rules: Option<usize>,
    /// How each run's interval ends move toward the nearest training negatives, after prune
    /// and simplification, before the runs are aggregated (docs/semantics.md §11). No effect
    /// without interval features.
    pub widen: Widen,
}

impl Default for FitOptions {
    /// One FIND-RS run exactly as the paper's Algorithm 1: tau = 0, no share, no support
    /// filter, positives in row order (seed 0), no simplification, no rule budget, interval
    /// ends as learned.
    fn default() -> Self {
        Self {
            method: Method::FindRs,
            tolerance: 0,
            epsilon: 0.0,
            min_support: 0,
            n_runs: 1,
            run: 0,
            best_of: 1,
            seed: 0,
            shuffle: false,
            n_rules: RuleCount::Auto { accuracy_ratio: 0.99 },
            simplify: false,
            max_rules: None,
            widen: Widen::No,
        }
    }
}

impl FitOptions {
    /// Checks the ranges: T from 1 to [`MAX_RUNS`] (1 for FIND-RS), a fixed K of at least 1,
    /// `accuracy_ratio` in (0, 1], `max_rules` at least 1, `epsilon` in [0, 1).
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(FindRsError::InvalidParameter(m));
        self.acceptance()?;
        if self.n_runs == 0 || self.n_runs > MAX_RUNS {
            return bad(format!("T must be from 1 to {MAX_RUNS}, got {}", self.n_runs));
        }
        if self.method == Method::FindRs && self.n_runs != 1 {
            return bad(format!("FIND-RS makes one run: T must be 1, got {}", self.n_runs));
        }
        if self.best_of == 0 || self.best_of > MAX_RUNS {
            return bad(format!("best_of must be from 1 to {MAX_RUNS}, got {}", self.best_of));
        }
        if self.method != Method::FindRs && (self.best_of != 1 || self.run != 0) {
            return bad(format!(
                "run and best_of choose the run of a FIND-RS fit; BO and BP aggregate the runs 0..T (got run = {}, best_of = {})",
                self.run, self.best_of
            ));
        }
        if self.best_of > 1 && self.run != 0 {
            return bad(format!(
                "best_of = {} chooses the run itself; run must be 0 with it, got {}",
                self.best_of, self.run
            ));
        }
        if self.max_rules == Some(0) {
            return bad("max_rules must be at least 1".into());
        }
        match self.n_rules {
            RuleCount::Auto { accuracy_ratio } if !(accuracy_ratio > 0.0 && accuracy_ratio <= 1.0) => {
                bad(format!("accuracy_ratio must be in (0, 1], got {accuracy_ratio}"))
            }
            RuleCount::Fixed(0) => bad("n_rules must be at least 1".into()),
            _ => Ok(()),
        }
    }

    /// The acceptance test of a run (docs/semantics.md §3, §9.1).
    pub(crate) fn acceptance(&self) -> Result<Acceptance> {
        Acceptance::new(self.tolerance, self.epsilon)
    }
}

/// A fitted model and what the fit learned about the data besides it.
#[derive(Clone, Debug)]
pub struct Fitted {
    pub model: RuleModel,
    /// Training rows that have an identical row of the other label (docs/semantics.md §1).
    pub contradictions: usize,
    /// What the rule budget did, when `max_rules` replaced the model.
    pub budget: Option<BudgetReport>,
    /// Which run a FIND-RS fit with `best_of > 1` kept, and every run's training rows right.
    pub best_of: Option<BestOf>,
}

/// What a rule budget ([`FitOptions::max_rules`]) did, in training rows classified correctly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetReport {
    /// By the model before the budget (BP: its top-K vote).
    pub full_correct: u32,
    /// By the model returned.
    pub correct: u32,
}

/// The bytes a fit of `n_pos` positives and `n_neg` negatives allocates at its peak for the
/// structures that grow with rows x the features' numbers of values (the training set's slot
/// masks and row indexes and a run's rules, at most one per positive; then the index of every
/// row): a high-cardinality column at many rows can need gigabytes. The training set's
/// allocations fail as errors ([`FindRsError::OutOfMemory`]), not aborts; callers compare this
/// figure with the memory available to refuse a fit beforehand. It includes what a run with a
/// share tolerance adds (the distinct-vector view and the positives' suffix counts), an upper
/// bound for any tolerance, and what simplification's views ([`Weighted`]) and the count of the
/// contradictions (grouped while the run goes: 16 bytes per row, 20 per group) take.
pub fn fit_bytes(schema: &Schema, n_pos: usize, n_neg: usize) -> u64 {
    let rules = n_pos as u64 * schema.rule_words() as u64 * 8;
    let share = TrainingSet::share_bytes(schema, n_pos, n_neg);
    let simplify = Weighted::bytes(schema, n_pos) + Weighted::bytes(schema, n_neg);
    let contradictions = (n_pos + n_neg) as u64 * 36;
    (TrainingSet::bytes(schema, n_pos, n_neg) + rules + share + simplify + contradictions)
        .max(RowIndex::bytes(schema, n_pos + n_neg))
}

/// Fits a model of `options.method` on `data` (training codes: no unseen code) labelled by
/// `labels` (true = positive); `progress` counts finished runs and can cancel between runs.
/// A `min_support` that leaves no rule at all is an error (a model has at least one rule).
pub fn fit(
    schema: Schema,
    data: &Columns,
    labels: &[bool],
    options: &FitOptions,
    progress: &Progress,
) -> Result<Fitted> {
    fit_or_none(schema, data, labels, options, progress)?.ok_or_else(|| no_rule(options))
}

/// The error of a fit whose runs left no rule: under a share no positive's own rows passed the
/// test (docs/semantics.md §9.1: every positive is identical to more than a share of negative
/// rows), or the support filter dropped every rule.
pub fn no_rule(options: &FitOptions) -> FindRsError {
    let s = options.min_support;
    let runs = if options.method == Method::FindRs { "run" } else { "runs" };
    let share = format!(
        "tolerance = {} leaves no rule: every training positive is identical to more than that \
         share of negative rows (contradictions, docs/semantics.md §9.1), so no rule passes the \
         share test; use a larger tolerance or an integer one",
        options.epsilon
    );
    if options.epsilon > 0.0 && s <= 1 {
        return FindRsError::InvalidParameter(share);
    }
    let mut msg = format!(
        "min_support = {s} leaves no rule: no rule of the {runs} covers {s} training positives; \
         use a smaller min_support"
    );
    if options.epsilon > 0.0 {
        msg.push_str(&format!(" (or: {share})"));
    }
    FindRsError::InvalidParameter(msg)
}

/// The models of several methods from one set of runs (docs/semantics.md §5.1): BO and BP
/// aggregate the same T runs, so `methods = [Bo, Bp]` runs them once and returns, in the
/// order asked, exactly the models that separate fits of each method with these options would
/// return (`options.method` is ignored). FIND-RS makes its own single run: it cannot share.
pub fn fit_methods(
    schema: Schema,
    data: &Columns,
    labels: &[bool],
    options: &FitOptions,
    methods: &[Method],
    progress: &Progress,
) -> Result<Vec<Fitted>> {
    let Some(&first) = methods.first() else {
        return Err(FindRsError::InvalidParameter("no method to fit".into()));
    };
    if methods.len() > 1 && methods.contains(&Method::FindRs) {
        return Err(FindRsError::InvalidParameter(
            "FIND-RS makes its own single run; only BO and BP share their T runs".into(),
        ));
    }
    let first_options = FitOptions {
        method: first,
        ..options.clone()
    };
    let mut runs = fit_run_range(
        &schema,
        data,
        labels,
        &first_options,
        0..first_options.n_runs_made(),
        progress,
    )?;
    let mut out = Vec::with_capacity(methods.len());
    for (i, &method) in methods.iter().enumerate() {
        let o = FitOptions {
            method,
            ..options.clone()
        };
        let these = if i + 1 == methods.len() {
            std::mem::take(&mut runs)
        } else {
            runs.clone()
        };
        out.push(
            fit_from_runs(schema.clone(), data, labels, &o, these)?.ok_or_else(|| no_rule(&o))?,
        );
    }
    Ok(out)
}

impl FitOptions {
    /// The runs a fit makes: T, or for FIND-RS `best_of` (1: one run).
    pub fn n_runs_made(&self) -> u32 {
        if self.method == Method::FindRs {
            self.best_of
        } else {
            self.n_runs
        }
    }
}

/// The pruned (with `simplify`, simplified) rule lists of the runs `runs` (run indexes in
/// `0..T`) of a fit with `options` on this data. Run `t` depends on the data, the options, the
/// seed and `t` only, so the runs of one fit can be computed in chunks, on any machines, and
/// handed together (in run order) to [`fit_from_runs`]: the model is that of [`fit`].
pub fn fit_run_range(
    schema: &Schema,
    data: &Columns,
    labels: &[bool],
    options: &FitOptions,
    runs: std::ops::Range<u32>,
    progress: &Progress,
) -> Result<Vec<Vec<Rule>>> {
    options.validate()?;
    if runs.start > runs.end || runs.end > options.n_runs_made() {
        return Err(FindRsError::InvalidParameter(format!(
            "runs {}..{} are not runs of a fit of {} runs",
            runs.start,
            runs.end,
            options.n_runs_made()
        )));
    }
    let ts = TrainingSet::new(schema.clone(), data, labels)?;
    let acc = options.acceptance()?;
    let support = options.min_support;
    if options.method == Method::FindRs && options.best_of == 1 {
        if runs.is_empty() {
            return Ok(Vec::new());
        }
        let order = run_order(ts.n_positives(), options.seed, options.run as u64, options.shuffle);
        let rules = if options.simplify {
            // A run is sequential: another thread of the pool builds the views simplification
            // counts on (`TrainingSet::weighted`, built once either way) while it goes.
            let (rules, _) = rayon::join(|| find_rs_pruned(&ts, &order, acc, support), || ts.weighted());
            Simplifier::new(&ts, acc).simplify_run(&rules)
        } else {
            find_rs_pruned(&ts, &order, acc, support)
        };
        return Ok(vec![widen_run(&ts, options.widen, rules)]);
    }
    let range = runs.start as u64..runs.end as u64;
    fit_runs(
        &ts,
        acc,
        support,
        range,
        options.seed,
        options.shuffle,
        options.simplify,
        options.widen,
        progress,
    )
}

/// [`fit`], with `None` when the support filter leaves no rule in any run (docs/semantics.md
/// §9.2; nothing else can).
pub(crate) fn fit_or_none(
    schema: Schema,
    data: &Columns,
    labels: &[bool],
    options: &FitOptions,
    progress: &Progress,
) -> Result<Option<Fitted>> {
    // The training set's indexes live only inside `fit_run_range`: freed before the index of
    // every row is built, the two never take memory at once (see `fit_bytes`). The
    // contradictions are counted on another thread of the pool meanwhile (a FIND-RS run is
    // sequential; the count depends on the data only).
    let (runs, contradictions) = rayon::join(
        || fit_run_range(&schema, data, labels, options, 0..options.n_runs_made(), progress),
        || TrainingSet::contradictions(data, labels),
    );
    fit_from_counted_runs(schema, data, labels, options, runs?, Some(contradictions))
}

/// The model of a fit with `options` whose runs (all of them, in run order, as
/// [`fit_run_range`] returns them) are `runs`; `None` when no run kept a rule.
pub fn fit_from_runs(
    schema: Schema,
    data: &Columns,
    labels: &[bool],
    options: &FitOptions,
    runs: Vec<Vec<Rule>>,
) -> Result<Option<Fitted>> {
    fit_from_counted_runs(schema, data, labels, options, runs, None)
}

/// [`fit_from_runs`] given the data's [`TrainingSet::contradictions`] when already counted.
fn fit_from_counted_runs(
    schema: Schema,
    data: &Columns,
    labels: &[bool],
    options: &FitOptions,
    runs: Vec<Vec<Rule>>,
    contradictions: Option<usize>,
) -> Result<Option<Fitted>> {
    options.validate()?;
    if runs.len() != options.n_runs_made() as usize {
        return Err(FindRsError::InvalidParameter(format!(
            "a fit of {} runs was given the rules of {} runs",
            options.n_runs_made(),
            runs.len()
        )));
    }
    if data.n_rows() != labels.len() {
        return Err(FindRsError::InvalidParameter(format!(
            "{} rows but {} labels",
            data.n_rows(),
            labels.len()
        )));
    }
    if runs.iter().all(|r| r.is_empty()) {
        return Ok(None);
    }
    let contradictions = contradictions.unwrap_or_else(|| TrainingSet::contradictions(data, labels));
    let mut parts = RuleSetParts::default();
    let mut best_of = None;
    let mut index = None;
    if options.method == Method::FindRs {
        let mut runs = runs;
        let rules = if options.best_of > 1 {
            // docs/semantics.md §5.3: the run with the most training rows right.
            let ix = RowIndex::from_all(&schema, data)?;
            let best = choose(&schema, &ix, labels, &runs).expect("a run kept a rule");
            index = Some(ix);
            let rules = runs.swap_remove(best.run as usize);
            best_of = Some(best);
            rules
        } else {
            runs.into_iter().next().expect("one run")
        };
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
        let index = RowIndex::from_all(&schema, data)?;
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
        let ix = match index {
            Some(ix) => ix,
            None => RowIndex::from_all(&schema, data)?,
        };
        (parts.train_positives, parts.train_negatives) = coverage_counts_on(&schema, &ix, &parts.rules, labels);
    }
    let model = RuleModel::new(schema, options.method, options.n_runs, vec![parts])?;
    match options.max_rules {
        Some(n) if n < model.rule_set().n_kept() => {
            let (model, report) = with_budget(model, data, labels, n)?;
            Ok(Some(Fitted { model, contradictions, budget: Some(report), best_of }))
        }
        _ => Ok(Some(Fitted { model, contradictions, budget: None, best_of })),
    }
}

/// `model` (more than `n` voting rules) under a rule budget of `n`: the best DNF of at most `n`
/// of its rules on the training data (a DNF rule set of the same method and T; FIND-RS: a
/// FIND-RS model), or for BP its top-`n` vote when that classifies more training rows
/// correctly.
fn with_budget(model: RuleModel, data: &Columns, labels: &[bool], n: usize) -> Result<(RuleModel, BudgetReport)> {
    let set = model.rule_set();
    let bp = model.method() == Method::Bp;
    let full_correct = if bp {
        set.curve()[set.n_kept() - 1]
    } else {
        model.predict(data).iter().zip(labels).filter(|(p, y)| p == y).count() as u32
    };
    let index = RowIndex::from_all(model.schema(), data)?;
    let budget = best_dnf(model.schema(), &index, labels, set.rules(), set.train_positives(), n);
    if bp && set.curve()[n - 1] > budget.correct {
        let correct = set.curve()[n - 1];
        return Ok((model.with_n_rules(n)?, BudgetReport { full_correct, correct }));
    }
    let dnf = model.with_rules(&budget.picked)?;
    Ok((dnf, BudgetReport { full_correct, correct: budget.correct }))
}

/// The accuracy-size path of `model`'s voting rules (a binary model) on its training rows
/// `data` with the labels its rules describe (docs/semantics.md §8): the prefix of `k` rules of
/// `order` is the DNF of `k` rules the path offers, `correct[k - 1]` its training rows right;
/// the last point is the model itself (a BO or BP vote counts as it votes).
pub fn path(model: &RuleModel, data: &Columns, labels: &[bool]) -> Result<Path> {
    if labels.len() != data.n_rows() {
        return Err(FindRsError::InvalidParameter(format!(
            "one label per training row: {} labels for {} rows",
            labels.len(),
            data.n_rows()
        )));
    }
    let set = model.rule_set();
    let index = RowIndex::from_all(model.schema(), data)?;
    let mut path = dnf_path(model.schema(), &index, labels, &set.rules()[..set.n_kept()]);
    if model.method() != Method::FindRs && !set.is_dnf() {
        // The last point is the model itself: a vote, not the DNF of all its voting rules.
        let right = model.predict(data).iter().zip(labels).filter(|(p, y)| p == y).count();
        *path.correct.last_mut().expect("a model has a voting rule") = right as u32;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::run::tests::{columns_of, random_data};
    use crate::data::schema::ConstraintKind;

    fn options(method: Method, tau: u32, seed: u64, simplify: bool, max_rules: Option<usize>) -> FitOptions {
        FitOptions {
            method,
            tolerance: tau,
            n_runs: if method == Method::FindRs { 1 } else { 12 },
            seed,
            shuffle: true,
            n_rules: RuleCount::Auto { accuracy_ratio: 0.99 },
            simplify,
            max_rules,
            ..FitOptions::default()
        }
    }

    /// Random rows without contradictions (the first label of a repeated row wins).
    fn consistent_data(seed: u64, n: usize, domains: &[u32]) -> (Vec<Vec<u32>>, Vec<bool>) {
        let (rows, labels) = random_data(seed, n, domains);
        let mut seen = std::collections::HashMap::new();
        rows.into_iter().zip(labels).filter(|(r, y)| *seen.entry(r.clone()).or_insert(*y) == *y).unzip()
    }

    #[test]
    fn simplified_find_rs_still_covers_every_training_positive() {
        let domains = [3u32, 2, 4, 3, 2, 1];
        let mut shorter = 0;
        for seed in 0..60u64 {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                for tau in 0..4u32 {
                    let (rows, labels) = consistent_data(seed + 900, 70, &domains);
                    let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
                    let cols = columns_of(&rows, domains.len());
                    let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                    let progress = Progress::default();
                    let fit_with = |simplify| {
                        fit(schema.clone(), &data, &labels, &options(Method::FindRs, tau, seed, simplify, None), &progress)
                    };
                    let Ok(plain) = fit_with(false) else {
                        continue;
                    };
                    let simple = fit_with(true).unwrap();
                    let ts = TrainingSet::new(schema.clone(), &data, &labels).unwrap();
                    let order = run_order(ts.n_positives(), seed, 0, true);
                    assert_eq!(
                        plain.model.rule_set().rules(),
                        find_rs_pruned(&ts, &order, Acceptance::absolute(tau), 0),
                        "simplify=false is Algorithm 1 + prune"
                    );
                    let pred = simple.model.predict(&data);
                    for (r, (&p, &y)) in pred.iter().zip(&labels).enumerate() {
                        assert!(!y || p, "positive row {r} uncovered (seed {seed} {kind:?} tau {tau})");
                    }
                    for (k, &n) in simple.model.rule_set().train_negatives().iter().enumerate() {
                        assert!(n <= tau, "rule {k} covers {n} negatives (seed {seed} tau {tau})");
                    }
                    let count = |m: &RuleModel| m.rule_set().rules().iter().map(|r| r.n_constraints(&schema)).sum::<usize>();
                    shorter += (count(&simple.model) < count(&plain.model)) as usize;
                    assert!(simple.model.rule_set().rules().iter().all(|r| r.is_free(&schema, 5)), "constant feature kept");
                }
            }
        }
        assert!(shorter > 100, "{shorter}");
    }

    /// Widened interval rules (FIND-RS and each BP run, simplified or not) still cover every
    /// training positive and, on consistent data with tolerance 0, no training negative; a
    /// widened FIND-RS model is the plain one's rules widened (`widen_run`); `Widen::No` is
    /// Algorithm 1 + prune.
    #[test]
    fn widened_interval_models_stay_consistent() {
        use crate::learn::run::interval_tests::{av, iv, mixed_data, mixed_schema};
        use crate::learn::widen::widen_run;
        let specs = [iv(8, true), av(3), iv(30, false), iv(4, false)];
        let schema = mixed_schema(&specs);
        let mut changed = 0;
        for seed in 0..30u64 {
            let (rows, labels) = mixed_data(seed + 3, 80, &specs, true);
            let mut seen = std::collections::HashMap::new();
            let (rows, labels): (Vec<_>, Vec<_>) =
                rows.into_iter().zip(labels).filter(|(r, y)| *seen.entry(r.clone()).or_insert(*y) == *y).unzip();
            let cols = columns_of(&rows, specs.len());
            let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let progress = Progress::default();
            for method in [Method::FindRs, Method::Bp] {
                for simplify in [false, true] {
                    let mut o = options(method, 0, seed, simplify, None);
                    o.n_rules = RuleCount::All;
                    let Ok(plain) = fit(schema.clone(), &data, &labels, &o, &progress) else {
                        continue;
                    };
                    for widen in [Widen::Open, Widen::Nearest] {
                        o.widen = widen;
                        let wide = fit(schema.clone(), &data, &labels, &o, &progress).unwrap();
                        let pred = wide.model.predict(&data);
                        assert!(pred.iter().zip(&labels).all(|(p, y)| p == y), "seed {seed} {method:?} {widen:?}");
                        assert!(wide.model.rule_set().train_negatives().iter().all(|&n| n == 0));
                        if method == Method::FindRs {
                            let ts = TrainingSet::new(schema.clone(), &data, &labels).unwrap();
                            let expected = widen_run(&ts, widen, plain.model.rule_set().rules().to_vec());
                            assert_eq!(wide.model.rule_set().rules(), expected.as_slice());
                            changed += (expected != plain.model.rule_set().rules()) as usize;
                        }
                    }
                }
            }
        }
        assert!(changed > 20, "{changed}");
    }

    /// A model's training rows classified correctly, the plain way: a DNF (FIND-RS or a
    /// budget's) is positive when a rule covers the row, BO when more than T / 2 runs' rule sets
    /// cover it, BP when the covering kept rules' weights sum above the threshold.
    fn right(model: &RuleModel, rows: &[Vec<u32>], labels: &[bool]) -> u32 {
        let set = model.rule_set();
        let dnf = model.method() == Method::FindRs || set.is_dnf();
        let kept = &set.rules()[..set.n_kept()];
        rows.iter()
            .zip(labels)
            .filter(|(row, &y)| {
                let covers: Vec<bool> = kept.iter().map(|r| r.covers_row(model.schema(), row)).collect();
                let positive = if dnf {
                    covers.iter().any(|&c| c)
                } else if model.method() == Method::Bo {
                    let runs = set.runs().iter().filter(|run| run.iter().any(|&i| covers[i as usize])).count();
                    2 * runs > model.n_runs() as usize
                } else {
                    let votes: u64 = covers.iter().zip(set.weights()).filter(|(&c, _)| c).map(|(_, &w)| w as u64).sum();
                    votes > model.threshold()
                };
                positive == y
            })
            .count() as u32
    }

    #[test]
    fn a_budget_beats_the_top_n_vote_and_reports_its_accuracy() {
        let domains = [3u32, 3, 2, 4, 2, 3];
        let mut dnf = [0usize; 3];
        for seed in 0..30u64 {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                for (tau, simplify) in [(0u32, false), (0, true), (2, true)] {
                    for (m, method) in [Method::FindRs, Method::Bo, Method::Bp].into_iter().enumerate() {
                        let (rows, labels) = random_data(seed + 40, 90, &domains);
                        let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
                        let cols = columns_of(&rows, domains.len());
                        let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                        let progress = Progress::default();
                        let mut o = options(method, tau, seed, simplify, None);
                        o.n_rules = RuleCount::All;
                        let Ok(full) = fit(schema.clone(), &data, &labels, &o, &progress) else {
                            continue;
                        };
                        let full_k = full.model.rule_set().n_kept();
                        for n in [1usize, 3, 6] {
                            o.max_rules = Some(n);
                            let b = fit(schema.clone(), &data, &labels, &o, &progress).unwrap();
                            let ctx = format!("seed {seed} {kind:?} tau {tau} {method:?} n {n}");
                            if n >= full_k {
                                assert!(b.budget.is_none(), "{ctx}");
                                assert_eq!(b.model.rule_set().rules(), full.model.rule_set().rules(), "{ctx}");
                                continue;
                            }
                            let report = b.budget.clone().expect("a budget");
                            let set = b.model.rule_set();
                            assert!(set.n_kept() <= n && set.n_kept() >= 1, "{ctx}");
                            assert_eq!((b.model.method(), b.model.n_runs()), (method, o.n_runs), "{ctx}");
                            match method {
                                Method::FindRs => assert!(!set.is_dnf(), "{ctx}"),
                                Method::Bo => assert!(set.is_dnf() && set.runs().is_empty(), "{ctx}"),
                                // The DNF, or the top-n vote of every rule found.
                                Method::Bp => assert!(
                                    set.is_dnf() || (set.n_kept() == n && set.rules() == full.model.rule_set().rules()),
                                    "{ctx}"
                                ),
                            }
                            assert_eq!(report.correct, right(&b.model, &rows, &labels), "{ctx}");
                            assert_eq!(report.full_correct, right(&full.model, &rows, &labels), "{ctx}");
                            assert_eq!(b.model.predict(&data).iter().zip(&labels).filter(|(p, y)| p == y).count() as u32, report.correct, "{ctx}");
                            // The chosen rules are rules of the full model, with their weights
                            // and training counts.
                            let fs = full.model.rule_set();
                            for (i, r) in set.rules().iter().enumerate() {
                                let j = fs.rules().iter().position(|q| q == r).expect("a rule of the full model");
                                assert_eq!(
                                    (set.weights()[i], set.train_positives()[i], set.train_negatives()[i]),
                                    (fs.weights()[j], fs.train_positives()[j], fs.train_negatives()[j]),
                                    "{ctx}"
                                );
                            }
                            if method == Method::Bp {
                                let top = full.model.with_n_rules(n).unwrap();
                                assert!(report.correct >= right(&top, &rows, &labels), "{ctx}");
                            }
                            dnf[m] += set.is_dnf() as usize;
                            for threads in [1, 2] {
                                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                                let again = pool.install(|| fit(schema.clone(), &data, &labels, &o, &progress).unwrap());
                                assert_eq!(again.model.rule_set().rules(), set.rules(), "{ctx} threads {threads}");
                                assert_eq!(again.model.rule_set().weights(), set.weights(), "{ctx}");
                            }
                        }
                    }
                }
            }
        }
        assert!(dnf[1] > 50 && dnf[2] > 50, "{dnf:?}");
    }

    /// BO and BP from one set of runs are the models of separate fits (docs/semantics.md §5.1),
    /// with every option that changes a model, and whatever the thread count.
    #[test]
    fn one_fit_gives_the_bo_and_the_bp_of_separate_fits() {
        use crate::io::json::model_to_json;
        let domains = [3u32, 3, 2, 4, 2, 3];
        let mut compared = 0;
        for seed in 0..20u64 {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                for (tau, simplify, max_rules, support) in [
                    (0u32, false, None, 0u32),
                    (1, true, None, 0),
                    (0, false, Some(3), 0),
                    (2, false, None, 3),
                ] {
                    let (rows, labels) = random_data(seed + 70, 80, &domains);
                    let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
                    let cols = columns_of(&rows, domains.len());
                    let data =
                        Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                    let progress = Progress::default();
                    let mut o = options(Method::Bp, tau, seed, simplify, max_rules);
                    o.min_support = support;
                    let alone = |m: Method| {
                        fit(
                            schema.clone(),
                            &data,
                            &labels,
                            &FitOptions {
                                method: m,
                                ..o.clone()
                            },
                            &progress,
                        )
                    };
                    let (bo, bp) = (alone(Method::Bo), alone(Method::Bp));
                    let ctx = format!(
                        "seed {seed} {kind:?} tau {tau} simplify {simplify} budget {max_rules:?}"
                    );
                    for threads in [1, 2] {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(threads)
                            .build()
                            .unwrap();
                        let both = pool.install(|| {
                            fit_methods(
                                schema.clone(),
                                &data,
                                &labels,
                                &o,
                                &[Method::Bo, Method::Bp],
                                &progress,
                            )
                        });
                        let (Ok(bo), Ok(bp)) = (&bo, &bp) else {
                            assert!(
                                both.is_err(),
                                "{ctx}: separate fits failed, the pair did not"
                            );
                            continue;
                        };
                        let both = both.unwrap();
                        assert_eq!(
                            model_to_json(&both[0].model),
                            model_to_json(&bo.model),
                            "{ctx}"
                        );
                        assert_eq!(
                            model_to_json(&both[1].model),
                            model_to_json(&bp.model),
                            "{ctx}"
                        );
                        assert_eq!(both[0].budget, bo.budget, "{ctx}");
                        assert_eq!(both[1].budget, bp.budget, "{ctx}");
                        assert_eq!(
                            (both[0].contradictions, both[1].contradictions),
                            (bo.contradictions, bp.contradictions)
                        );
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 200, "{compared}");
        let (rows, labels) = random_data(1, 30, &domains);
        let schema = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let cols = columns_of(&rows, domains.len());
        let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let o = options(Method::Bo, 0, 1, false, None);
        let p = Progress::default();
        assert!(fit_methods(
            schema.clone(),
            &data,
            &labels,
            &o,
            &[Method::FindRs, Method::Bp],
            &p
        )
        .is_err());
        assert!(fit_methods(schema, &data, &labels, &o, &[], &p).is_err());
    }

    /// The runs of a fit computed in chunks (as workers of a cluster would) give the model of
    /// one local fit; a wrong number of runs is refused.
    #[test]
    fn runs_in_chunks_give_the_model_of_one_fit() {
        use crate::io::json::model_to_json;
        let domains = [3u32, 2, 4, 3, 2];
        for seed in 0..15u64 {
            for method in [Method::FindRs, Method::Bo, Method::Bp] {
                let (rows, labels) = random_data(seed + 300, 70, &domains);
                let schema =
                    Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
                let cols = columns_of(&rows, domains.len());
                let data =
                    Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                let p = Progress::default();
                let o = options(method, 1, seed, seed % 2 == 0, None);
                let whole = fit(schema.clone(), &data, &labels, &o, &p).unwrap();
                let t = o.n_runs_made();
                let cuts: Vec<u32> = if t == 1 {
                    vec![0, 1]
                } else {
                    vec![0, 1, 5, 5, 11, t]
                };
                let mut runs = Vec::new();
                for w in cuts.windows(2) {
                    runs.extend(
                        fit_run_range(&schema, &data, &labels, &o, w[0]..w[1], &p).unwrap(),
                    );
                }
                let chunked = fit_from_runs(schema.clone(), &data, &labels, &o, runs.clone())
                    .unwrap()
                    .unwrap();
                assert_eq!(
                    model_to_json(&chunked.model),
                    model_to_json(&whole.model),
                    "seed {seed} {method:?}"
                );
                assert!(
                    fit_from_runs(schema.clone(), &data, &labels, &o, runs[1..].to_vec()).is_err()
                );
                assert!(fit_run_range(&schema, &data, &labels, &o, 0..t + 1, &p).is_err());
            }
        }
    }
}
