//! Automatic settings (docs/semantics.md §9.4): stratified k-fold cross-validation of candidate
//! [`Setting`]s on the training data, every (run group, fold, run) a job on the current rayon
//! pool, then the best setting fitted on all rows.
//!
//! Settings that differ only in `min_support` or `n_rules` share their runs (a *run group*:
//! same encoding, tolerance, epsilon and class direction): the support filter and prune are
//! applied to each run's raw rules, and K is read off the pruning curves, so those candidates
//! cost almost nothing. Supports whose filter and prune keep the same rules of every run of a
//! fold also share those rules' simplification and widening (a function of the rules and the
//! fold's training set alone), made once.
//!
//! Invariants:
//! - the folds depend on (labels, k, seed) only: within each class, rows are shuffled by
//!   ChaCha8 (seed derived from `seed`) and dealt round-robin to the folds;
//! - run `t` of fold `f` presents the positives in `run_order(.., fold_seed(seed, f), t, ..)`
//!   for every run group (common random numbers), so each candidate's fold score is exactly
//!   what [`fit`] with seed `fold_seed(seed, f)` on the fold's training rows scores on its
//!   held-out rows (the tests check this against `fit`);
//! - nothing depends on the thread count or on scheduling: results are collected in job order;
//! - the best setting has the most held-out rows classified correctly (summed over folds, an
//!   integer: no float ties); ties go to fewer conditions (summed over folds), then to the
//!   earlier candidate. [`fit_best`] fits the best setting whose fit on all rows keeps a rule;
//!   [`fit_ranked`] does the same from a report made beforehand (no second cross-validation).
//!
//! A setting's `kind` (AV or OH) is the encoding of every feature that is not an interval
//! feature of the base schema; interval features stay intervals in every setting. A setting
//! with `simplify` simplifies every run's pruned rules as [`fit`] does (settings that differ
//! only in it share their runs too); a rule budget (`max_rules`) is not cross-validated and
//! cannot be combined.
//!
//! With per-fold codes ([`cross_validate_folds`], [`FoldCodes`]), fold `f`'s training and
//! held-out rows are read from its own schema and codes (an encoding fitted on that fold's
//! training rows, e.g. bin edges placed on its labels); the folds, the sample, the seeds and
//! everything above are unchanged, and each fold score is exactly what [`fit`] on the fold's
//! codes of its training rows scores on its codes of its held-out rows.
//!
//! With `max_rows`, the folds are made of a stratified sample of the rows (each class shuffled
//! as above, its first rows kept); the final fit uses every row, with the setting's support
//! scaled by rows / sampled rows ([`scaled_support`]). With `widen`, every run's interval ends
//! are widened as in [`fit`].

use crate::learn::acceptance::Acceptance;
use crate::learn::budget::dnf_path;
use crate::predict::best_k::pruning_curve;
use crate::data::columns::Columns;
use crate::learn::ensemble::{aggregate, run_order, Progress};
use crate::data::error::{FindRsError, Result};
use crate::learn::fit::{fit_or_none, FitOptions, Fitted, RuleCount};
use crate::select::fold_codes::{check_fold_codes, FoldCodes};
use crate::predict::model::Method;
use crate::learn::prune::{prune_covered, Coverage};
use crate::data::row_index::RowIndex;
use crate::data::rule::{Rule, Terms};
use crate::learn::run::{RunResult, Runner};
use crate::data::schema::{ConstraintKind, Schema};
use crate::learn::simplify::Simplifier;
use crate::learn::training::TrainingSet;
use crate::learn::widen::{widen_run, Widen};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::sync::atomic::Ordering;

/// One candidate: what [`fit`](crate::learn::fit) would be called with, and the class direction.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// The encoding of the features that are not interval features: AV or OH.
    pub kind: ConstraintKind,
    pub tolerance: u32,
    pub epsilon: f64,
    /// Learn the rules of the negative rows (the prediction is then their negation).
    pub negate: bool,
    pub min_support: u32,
    /// BP only (ignored otherwise).
    pub n_rules: RuleCount,
    /// Simplify each run's pruned rules (docs/semantics.md §8), as a fit with `simplify` does.
    pub simplify: bool,
}

impl Setting {
    /// The options of a fit with this setting: its tolerance, share, support, rule count and
    /// simplification over `base` (the encoding and the class direction are the caller's: the
    /// schema it passes and the labels it negates).
    pub fn fit_options(&self, base: &FitOptions) -> FitOptions {
        FitOptions {
            tolerance: self.tolerance,
            epsilon: self.epsilon,
            min_support: self.min_support,
            n_rules: self.n_rules,
            simplify: self.simplify,
            ..base.clone()
        }
    }
}

/// How the cross-validation fits: the method, its runs per fit, the folds, the seed.
#[derive(Clone, Debug)]
pub struct CvOptions {
    pub method: Method,
    /// Runs per fit (1 for FIND-RS).
    pub n_runs: u32,
    pub folds: usize,
    pub seed: u64,
    pub shuffle: bool,
    /// Cross-validate on a stratified sample of at most this many rows (`None`: every row);
    /// the final fit uses every row.
    pub max_rows: Option<usize>,
    /// With a sample, the final fit's `min_support` is the setting's scaled by rows / sampled
    /// rows ([`scaled_support`]); else the setting's own.
    pub scale_support: bool,
    /// Widen each run's interval ends, as a fit with `widen` does (after simplification).
    pub widen: Widen,
    /// Score each FIND-RS fold model's accuracy-size path ([`CvRow::path_correct`]), which a
    /// choice of the size reads (docs/semantics.md §8.1); `false` leaves the path counts empty.
    pub paths: bool,
}

/// The cross-validated score of one setting, per fold.
#[derive(Clone, Debug)]
pub struct CvRow {
    pub setting: Setting,
    /// Held-out rows classified correctly.
    pub correct: Vec<u32>,
    /// Held-out rows.
    pub rows: Vec<u32>,
    /// Voting rules (BO: the runs' rules, summed over the runs).
    pub rules: Vec<u32>,
    /// Conditions (constrained features) of those rules.
    pub conditions: Vec<u32>,
    /// FIND-RS: per fold, the held-out rows right by each model of the fold model's
    /// accuracy-size path (the DNF of its first `k` rules in the path's order on the fold's
    /// training rows, k = 1, 2, ...; docs/semantics.md §8.1); empty for BO, BP and a fold
    /// without a rule.
    pub path_correct: Vec<Vec<u32>>,
    /// The conditions of those models, alongside `path_correct`.
    pub path_conditions: Vec<Vec<u32>>,
    /// The fold's training rows right by the DNF of the path's first `k` rules, `k = 0, 1, ...`
    /// (one longer than `path_correct`: `k = 0` is the empty model, every training negative
    /// right), so a caller reads each rule's gain on the rows it was learned from.
    pub path_train: Vec<Vec<u32>>,
}

impl CvRow {
    fn key(&self) -> (u64, std::cmp::Reverse<u64>) {
        let c = self.correct.iter().map(|&c| c as u64).sum();
        let k = self.conditions.iter().map(|&c| c as u64).sum();
        (c, std::cmp::Reverse(k))
    }
}

/// Every setting's scores, and the one chosen.
#[derive(Clone, Debug)]
pub struct CvReport {
    pub rows: Vec<CvRow>,
    /// Index of the chosen setting in `rows` (and in the settings given).
    pub best: usize,
    /// Rows in the cross-validation (its sample, or every row).
    pub sampled: usize,
}

/// The seed of fold `f`'s runs.
pub fn fold_seed(seed: u64, fold: usize) -> u64 {
    splitmix(seed ^ splitmix(fold as u64 + 1))
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The fold (`0..k`) of every row: each class shuffled and dealt round-robin.
#[cfg(test)]
pub(crate) fn stratified_folds(labels: &[bool], k: usize, seed: u64) -> Vec<u32> {
    sampled_folds(labels, k, seed, None)
}

/// A row outside the cross-validation's sample.
pub const UNSAMPLED: u32 = u32::MAX;

/// The fold of every row of the cross-validation that [`cross_validate`] makes with `k` folds,
/// `seed` and `max_rows` ([`UNSAMPLED`] for a row outside its sample): what a caller needs to
/// encode each fold on its own training rows ([`FoldCodes`]).
pub fn cv_folds(labels: &[bool], k: usize, seed: u64, max_rows: Option<usize>) -> Vec<u32> {
    sampled_folds(labels, k, seed, max_rows)
}

/// The rows each class keeps in a sample of at most `max_rows` rows: its share of the sample,
/// rounded, and at least `min(k, its rows)`. Every row without a limit or when the rows fit.
fn class_quota(n_class: usize, n: usize, k: usize, max_rows: Option<usize>) -> usize {
    match max_rows {
        Some(m) if m < n => {
            let share = ((n_class as u128 * m as u128 + n as u128 / 2) / n as u128) as usize;
            share.max(k.min(n_class)).min(n_class)
        }
        _ => n_class,
    }
}

/// The fold of every row of a stratified sample of at most `max_rows` rows (about; each class
/// keeps its share), [`UNSAMPLED`] for the others: each class shuffled, its first rows kept
/// and dealt round-robin. Without a limit (or when the rows fit) this is [`stratified_folds`].
pub(crate) fn sampled_folds(labels: &[bool], k: usize, seed: u64, max_rows: Option<usize>) -> Vec<u32> {
    let n = labels.len();
    let mut fold = vec![UNSAMPLED; n];
    let mut rng = ChaCha8Rng::seed_from_u64(splitmix(seed ^ 0x00F0_1D5E_ED00));
    for class in [true, false] {
        let mut rows: Vec<usize> = (0..n).filter(|&r| labels[r] == class).collect();
        rows.shuffle(&mut rng);
        let quota = class_quota(rows.len(), n, k, max_rows);
        for (i, r) in rows.into_iter().take(quota).enumerate() {
            fold[r] = (i % k) as u32;
        }
    }
    fold
}

/// The final fit's `min_support` for a candidate's `s` scored on `sampled` of `n` rows: `s`
/// scaled by `n / sampled`, rounded (`s` itself without sampling).
pub fn scaled_support(s: u32, n: usize, sampled: usize) -> u32 {
    if sampled >= n || sampled == 0 {
        return s;
    }
    let x = (s as u128 * n as u128 + sampled as u128 / 2) / sampled as u128;
    x.min(u32::MAX as u128) as u32
}

/// `base` with every feature that is not an interval feature encoded as `kind`.
fn encoded(base: &Schema, kind: ConstraintKind) -> Result<Schema> {
    let kinds = base
        .kinds()
        .iter()
        .map(|&k| {
            if k == ConstraintKind::Interval {
                k
            } else {
                kind
            }
        })
        .collect();
    Schema::with_nulls(
        base.domain_sizes().to_vec(),
        kinds,
        base.null_seen_flags().to_vec(),
    )
}

/// What a run group shares: everything but `min_support` and `n_rules`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct GroupKey {
    kind: ConstraintKind,
    tolerance: u32,
    epsilon: f64,
    negate: bool,
}

impl GroupKey {
    fn of(s: &Setting) -> Self {
        Self {
            kind: s.kind,
            tolerance: s.tolerance,
            epsilon: s.epsilon,
            negate: s.negate,
        }
    }
}

/// One fold's data: its training rows (codes and index) and its held-out rows indexed. AV and
/// OH number slots alike, so one index serves both encodings.
struct Fold {
    test_index: RowIndex,
    test_labels: Vec<bool>,
    train_index: RowIndex,
    train_labels: Vec<bool>,
    codes: Vec<Vec<u32>>,
}

/// The settings' scores (see the module docs). `schema` is the base schema of `data` (its
/// interval features stay intervals); `settings` must be AV or OH.
pub fn cross_validate(
    schema: &Schema,
    data: &Columns,
    labels: &[bool],
    settings: &[Setting],
    cv: &CvOptions,
    progress: &Progress,
) -> Result<CvReport> {
    cross_validate_folds(schema, data, &[], labels, settings, cv, progress)
}

/// [`cross_validate`] with fold `f`'s rows read from `per_fold[f]` (its own schema and codes,
/// [`FoldCodes`]) instead of `schema` and `data`; an empty `per_fold` is [`cross_validate`].
/// The folds and the sample are the same either way (they depend on the labels only).
pub fn cross_validate_folds(
    schema: &Schema,
    data: &Columns,
    per_fold: &[FoldCodes],
    labels: &[bool],
    settings: &[Setting],
    cv: &CvOptions,
    progress: &Progress,
) -> Result<CvReport> {
    let bad = |m: String| Err(FindRsError::InvalidParameter(m));
    if settings.is_empty() {
        return bad("cross-validation needs at least one candidate setting".into());
    }
    if labels.len() != data.n_rows() {
        return Err(FindRsError::InvalidData(format!(
            "{} labels for {} rows",
            labels.len(),
            data.n_rows()
        )));
    }
    let n_pos = labels.iter().filter(|&&y| y).count();
    let n_neg = labels.len() - n_pos;
    let k = cv.folds;
    if cv.max_rows == Some(0) {
        return bad("the cross-validation's sample needs at least one row".into());
    }
    if k < 2 || k > n_pos.min(n_neg) {
        return bad(format!(
            "{k}-fold cross-validation needs 2 <= k <= the rows of the smaller class ({})",
            n_pos.min(n_neg)
        ));
    }
    let n_runs = if cv.method == Method::FindRs {
        1
    } else {
        cv.n_runs
    };
    for s in settings {
        if s.kind == ConstraintKind::Interval {
            return bad(
                "a candidate's encoding is AV or OH (interval features stay intervals)".into(),
            );
        }
        s.fit_options(&FitOptions {
            method: cv.method,
            n_runs,
            ..FitOptions::default()
        })
        .validate()?;
    }
    check_fold_codes(schema, labels.len(), k, per_fold)?;
    // The base schema and codes of each fold: the shared ones, or the fold's own.
    let bases: Vec<(&Schema, &Columns)> = if per_fold.is_empty() {
        vec![(schema, data)]
    } else {
        per_fold.iter().map(|c| (&c.schema, &c.data)).collect()
    };
    let base_of = |f: usize| bases[f.min(bases.len() - 1)];
    let av: Vec<Schema> = bases
        .iter()
        .map(|(s, _)| encoded(s, ConstraintKind::AttributeValue))
        .collect::<Result<_>>()?;
    let oh: Vec<Schema> = bases
        .iter()
        .map(|(s, _)| encoded(s, ConstraintKind::OneHot))
        .collect::<Result<_>>()?;
    let schema_of = |kind, f: usize| match kind {
        ConstraintKind::OneHot => &oh[f.min(oh.len() - 1)],
        _ => &av[f.min(av.len() - 1)],
    };
    if per_fold.is_empty() {
        data.check_training(&av[0])?;
    }

    let fold_of = sampled_folds(labels, k, cv.seed, cv.max_rows);
    let folds: Vec<Fold> = (0..k)
        .into_par_iter()
        .map(|f| -> Result<Fold> {
            let rows_where = |inside: bool| -> Vec<u32> {
                (0..labels.len() as u32)
                    .filter(|&r| {
                        let x = fold_of[r as usize];
                        x != UNSAMPLED && (x == f as u32) == inside
                    })
                    .collect()
            };
            let (train_rows, test_rows) = (rows_where(false), rows_where(true));
            let data = base_of(f).1;
            let av = schema_of(ConstraintKind::AttributeValue, f);
            let codes: Vec<Vec<u32>> = (0..data.n_features())
                .map(|j| {
                    let col = data.column(j);
                    train_rows.iter().map(|&r| col[r as usize]).collect()
                })
                .collect();
            if !per_fold.is_empty() {
                // A fold's own codes: its training rows hold training codes of its schema.
                Columns::new(av, codes.iter().map(|c| c.as_slice()).collect())?.check_training(av)?;
            }
            Ok(Fold {
                test_index: RowIndex::from_rows(av, data, &test_rows)?,
                test_labels: test_rows.iter().map(|&r| labels[r as usize]).collect(),
                train_index: RowIndex::from_rows(av, data, &train_rows)?,
                train_labels: train_rows.iter().map(|&r| labels[r as usize]).collect(),
                codes,
            })
        })
        .collect::<Result<_>>()?;

    // Run groups, in order of first appearance.
    let mut groups: Vec<GroupKey> = Vec::new();
    let group_of: Vec<usize> = settings
        .iter()
        .map(|s| {
            let g = GroupKey::of(s);
            groups.iter().position(|x| *x == g).unwrap_or_else(|| {
                groups.push(g);
                groups.len() - 1
            })
        })
        .collect();

    // Training sets per (kind, direction) and fold, shared by the groups of one kind and
    // direction.
    let mut ts_keys: Vec<(ConstraintKind, bool)> = Vec::new();
    for g in &groups {
        if !ts_keys.contains(&(g.kind, g.negate)) {
            ts_keys.push((g.kind, g.negate));
        }
    }
    let sets: Vec<TrainingSet> = (0..ts_keys.len() * k)
        .into_par_iter()
        .map(|j| {
            let (kind, negate) = ts_keys[j / k];
            let fold = &folds[j % k];
            let y: Vec<bool> = fold.train_labels.iter().map(|&y| y != negate).collect();
            let s = schema_of(kind, j % k);
            let cols = Columns::new(s, fold.codes.iter().map(|c| c.as_slice()).collect())?;
            TrainingSet::new(s.clone(), &cols, &y)
        })
        .collect::<Result<_>>()?;
    let set_of = |g: &GroupKey, f: usize| -> &TrainingSet {
        let j = ts_keys
            .iter()
            .position(|&x| x == (g.kind, g.negate))
            .expect("every group has a training set");
        &sets[j * k + f]
    };

    // The runs: one job per (group, fold, run).
    let t = n_runs as usize;
    let runs: Vec<Option<RunResult>> = (0..groups.len() * k * t)
        .into_par_iter()
        .map(|j| {
            if progress.cancel.load(Ordering::Relaxed) {
                return None;
            }
            let (g, f, r) = (j / (k * t), (j / t) % k, j % t);
            let key = &groups[g];
            let ts = set_of(key, f);
            let acc = Acceptance::new(key.tolerance, key.epsilon).expect("checked above");
            let order = run_order(
                ts.n_positives(),
                fold_seed(cv.seed, f),
                r as u64,
                cv.shuffle,
            );
            let mut runner = Runner::new(ts, acc);
            runner.run(&order);
            progress.finished.fetch_add(1, Ordering::Relaxed);
            Some(RunResult {
                rules: runner.rules().to_vec(),
                buckets: runner.buckets().to_vec(),
                neg_covered: Vec::new(),
            })
        })
        .collect();
    let runs: Vec<RunResult> = runs
        .into_iter()
        .map(|r| r.ok_or(FindRsError::Cancelled))
        .collect::<Result<_>>()?;

    // Scores: one job per (group, fold, simplify); each scores the group's settings with that
    // simplification, one support after the other. Supports whose filter and prune keep the
    // same rules of every run share their simplified and widened rules (a function of those
    // rules and the fold's training set), which are made once.
    let mut jobs: Vec<(usize, usize, bool, Vec<u32>)> = Vec::new();
    for g in 0..groups.len() {
        let mut variants: Vec<(bool, Vec<u32>)> = Vec::new();
        for (s, _) in settings.iter().zip(&group_of).filter(|(_, &gi)| gi == g) {
            match variants.iter_mut().find(|(simp, _)| *simp == s.simplify) {
                Some((_, supports)) => {
                    if !supports.contains(&s.min_support) {
                        supports.push(s.min_support);
                    }
                }
                None => variants.push((s.simplify, vec![s.min_support])),
            }
        }
        for f in 0..k {
            for (simp, supports) in &variants {
                jobs.push((g, f, *simp, supports.clone()));
            }
        }
    }
    let scored: Vec<Vec<(usize, Score)>> = jobs
        .par_iter()
        .map(|(g, f, simplify, supports)| {
            let (g, f, simplify) = (*g, *f, *simplify);
            let key = &groups[g];
            let ts = set_of(key, f);
            let acc = Acceptance::new(key.tolerance, key.epsilon).expect("checked above");
            let mut simplifier = simplify.then(|| Simplifier::new(ts, acc));
            let group_runs = &runs[(g * k + f) * t..(g * k + f + 1) * t];
            // The kept rules' indices of every run, and their rules simplified and widened.
            let mut made: Vec<(Vec<Vec<usize>>, Vec<Vec<Rule>>)> = Vec::new();
            let mut out = Vec::new();
            // Each run's rules' coverage of the positives, evaluated once for every support.
            let mut coverage: Vec<Coverage> = group_runs.iter().map(|run| Coverage::new(ts, &run.rules)).collect();
            for &support in supports {
                let kept: Vec<Vec<usize>> = group_runs
                    .iter()
                    .zip(&mut coverage)
                    .map(|(run, cov)| prune_covered(cov, &run.buckets, support))
                    .collect();
                let pruned: Vec<Vec<Rule>> = match made.iter().position(|(idx, _)| *idx == kept) {
                    Some(i) => made[i].1.clone(),
                    None => {
                        let pruned: Vec<Vec<Rule>> = group_runs
                            .iter()
                            .zip(&kept)
                            .map(|(run, idx)| {
                                let rules: Vec<Rule> =
                                    idx.iter().map(|&i| run.rules[i].clone()).collect();
                                let rules = match simplifier.as_mut() {
                                    Some(s) => s.simplify_run(&rules),
                                    None => rules,
                                };
                                widen_run(ts, cv.widen, rules)
                            })
                            .collect();
                        made.push((kept, pruned.clone()));
                        pruned
                    }
                };
                let policies: Vec<(usize, RuleCount)> = settings
                    .iter()
                    .enumerate()
                    .filter(|&(i, s)| {
                        group_of[i] == g && s.min_support == support && s.simplify == simplify
                    })
                    .map(|(i, s)| (i, s.n_rules))
                    .collect();
                let fold = &folds[f];
                out.extend(score_fold(
                    schema_of(key.kind, f),
                    fold,
                    cv.paths,
                    key.negate,
                    cv.method,
                    n_runs,
                    pruned,
                    &policies,
                ));
            }
            out
        })
        .collect();

    let mut rows: Vec<CvRow> = settings
        .iter()
        .map(|s| CvRow {
            setting: s.clone(),
            correct: vec![0; k],
            rows: vec![0; k],
            rules: vec![0; k],
            conditions: vec![0; k],
            path_correct: vec![Vec::new(); k],
            path_conditions: vec![Vec::new(); k],
            path_train: vec![Vec::new(); k],
        })
        .collect();
    for (&(_, f, _, _), scores) in jobs.iter().zip(scored) {
        for (i, sc) in scores {
            rows[i].correct[f] = sc.correct;
            rows[i].rows[f] = folds[f].test_labels.len() as u32;
            rows[i].rules[f] = sc.rules;
            rows[i].conditions[f] = sc.conditions;
            rows[i].path_train[f] = sc.path_train;
            (rows[i].path_correct[f], rows[i].path_conditions[f]) = sc.path.into_iter().unzip();
        }
    }
    let best = ranking(&rows)[0];
    let sampled = fold_of.iter().filter(|&&x| x != UNSAMPLED).count();
    Ok(CvReport {
        rows,
        best,
        sampled,
    })
}

/// The rows' indices from best to worst (stable: ties keep the candidates' order).
fn ranking(rows: &[CvRow]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| rows[b].key().cmp(&rows[a].key()));
    order
}

/// Cross-validates `settings` on `data` (base schema `schema`), then fits the best on all rows
/// with `options` (its method, T, seed and shuffle; the setting's encoding, tolerance, epsilon,
/// K and simplification, its support scaled by [`scaled_support`] when the cross-validation
/// used a sample). A negated setting's model describes the negative rows:
/// predict their complement. When the best setting's support filter leaves no rule on all
/// rows, the next best is fitted, and so on; `report.best` is the setting fitted.
pub fn fit_best(
    schema: &Schema,
    data: &Columns,
    labels: &[bool],
    settings: &[Setting],
    cv: &CvOptions,
    options: &FitOptions,
    progress: &Progress,
) -> Result<(Fitted, CvReport)> {
    fit_best_folds(schema, data, &[], labels, settings, cv, options, progress)
}

/// [`fit_best`] whose cross-validation reads each fold from `per_fold`
/// ([`cross_validate_folds`]); the final fit uses `schema` and `data` (every row).
#[allow(clippy::too_many_arguments)]
pub fn fit_best_folds(
    schema: &Schema,
    data: &Columns,
    per_fold: &[FoldCodes],
    labels: &[bool],
    settings: &[Setting],
    cv: &CvOptions,
    options: &FitOptions,
    progress: &Progress,
) -> Result<(Fitted, CvReport)> {
    no_budget(options)?;
    let report = cross_validate_folds(schema, data, per_fold, labels, settings, cv, progress)?;
    fit_ranked(schema, data, labels, report, cv, options, progress)
}

/// The final fit of [`fit_best`] from a cross-validation's `report` that is already made
/// (e.g. by [`cross_validate_folds`] with `cv`, its settings and these labels): the settings
/// fitted on all rows in the order of their scores (the best first; ties to fewer conditions,
/// then to the earlier setting), each with its [`final_support`] for `report.sampled` of these
/// rows, until one keeps a rule; `report.best` becomes the setting fitted. Equal to
/// [`fit_best_folds`] with the report's settings when the report is that cross-validation's,
/// which a caller that compares several cross-validations (Python's encoding axes,
/// docs/semantics.md §9.4) uses to fit the winner without cross-validating it again.
pub fn fit_ranked(
    schema: &Schema,
    data: &Columns,
    labels: &[bool],
    report: CvReport,
    cv: &CvOptions,
    options: &FitOptions,
    progress: &Progress,
) -> Result<(Fitted, CvReport)> {
    fit_in_order(schema, data, labels, report, &[], cv, options, progress)
}

/// [`fit_ranked`] trying the candidates `first` (indices into the report) before the others,
/// which follow in the report's ranking: a caller that chooses by another rule (the size of the
/// models, docs/semantics.md §8.1) names the candidate to fit, the ranking stays the fallback.
#[allow(clippy::too_many_arguments)]
pub fn fit_in_order(
    schema: &Schema,
    data: &Columns,
    labels: &[bool],
    mut report: CvReport,
    first: &[usize],
    cv: &CvOptions,
    options: &FitOptions,
    progress: &Progress,
) -> Result<(Fitted, CvReport)> {
    no_budget(options)?;
    if let Some(&i) = first.iter().find(|&&i| i >= report.rows.len()) {
        return Err(FindRsError::InvalidParameter(format!(
            "candidate {i} is not in a report of {} candidates",
            report.rows.len()
        )));
    }
    if labels.len() != data.n_rows() || report.sampled > labels.len() || report.sampled == 0 {
        return Err(FindRsError::InvalidParameter(format!(
            "a cross-validation report of {} sampled rows cannot be fitted on {} labels of {} rows",
            report.sampled,
            labels.len(),
            data.n_rows()
        )));
    }
    if report.rows.is_empty() {
        return Err(FindRsError::InvalidParameter("a cross-validation report without candidates cannot be fitted".into()));
    }
    let rest = ranking(&report.rows).into_iter().filter(|i| !first.contains(i));
    for i in first.iter().copied().chain(rest).collect::<Vec<_>>() {
        let s = &report.rows[i].setting;
        let y: Vec<bool> = labels.iter().map(|&y| y != s.negate).collect();
        let opts = FitOptions {
            min_support: final_support(s, cv, labels.len(), report.sampled),
            widen: cv.widen,
            ..s.fit_options(options)
        };
        if let Some(fitted) = fit_or_none(encoded(schema, s.kind)?, data, &y, &opts, progress)? {
            report.best = i;
            return Ok((fitted, report));
        }
    }
    Err(FindRsError::InvalidParameter(
        "every candidate's min_support leaves no rule on these rows; include a smaller one".into(),
    ))
}

/// A rule budget is not cross-validated (see the module docs): an error before any work.
fn no_budget(options: &FitOptions) -> Result<()> {
    if options.max_rules.is_some() {
        return Err(FindRsError::InvalidParameter(
            "a rule budget (max_rules) cannot be combined with automatic settings yet: the \
             cross-validation does not score budgets"
                .into(),
        ));
    }
    Ok(())
}

/// The `min_support` [`fit_best`] fits setting `s` with on `n` rows after a cross-validation
/// of `sampled` rows.
pub fn final_support(s: &Setting, cv: &CvOptions, n: usize, sampled: usize) -> u32 {
    if cv.scale_support {
        scaled_support(s.min_support, n, sampled)
    } else {
        s.min_support
    }
}

/// The number of runs [`cross_validate`] makes (for progress reports).
pub fn cv_runs(settings: &[Setting], cv: &CvOptions) -> usize {
    let mut groups: Vec<GroupKey> = Vec::new();
    for s in settings {
        let g = GroupKey::of(s);
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    let t = if cv.method == Method::FindRs {
        1
    } else {
        cv.n_runs as usize
    };
    groups.len() * cv.folds * t
}

#[derive(Clone, Debug)]
struct Score {
    correct: u32,
    rules: u32,
    conditions: u32,
    /// FIND-RS: (held-out rows right, conditions) of each model of the path ([`CvRow::path_correct`]).
    path: Vec<(u32, u32)>,
    /// FIND-RS: the training rows right by each prefix, the empty one first ([`CvRow::path_train`]).
    path_train: Vec<u32>,
}

fn conditions(schema: &Schema, rule: &Rule) -> u32 {
    (0..schema.n_features())
        .filter(|&f| !rule.is_free(schema, f))
        .count() as u32
}

/// The accuracy-size path of the DNF of `rules` on a fold's training rows (`train`, labels
/// `train_y`; docs/semantics.md §8.1), scored on its held-out rows (`test`, `test_y`): for each
/// `k`, the held-out rows the DNF of the path's first `k` rules classifies correctly, and its
/// conditions; then the training rows right by each prefix, the empty one first. Empty without
/// a rule.
fn held_out_path(
    schema: &Schema,
    train: &RowIndex,
    train_y: &[bool],
    test: &RowIndex,
    test_y: &[bool],
    rules: &[Rule],
) -> (Vec<(u32, u32)>, Vec<u32>) {
    let path = dnf_path(schema, train, train_y, rules);
    let train_path = if rules.is_empty() {
        Vec::new()
    } else {
        let empty = train_y.iter().filter(|&&y| !y).count() as u32;
        std::iter::once(empty).chain(path.correct.iter().copied()).collect()
    };
    let mut pos = vec![0u64; test.n_words()];
    for (r, _) in test_y.iter().enumerate().filter(|(_, &y)| y) {
        crate::data::bitset::set(&mut pos, r);
    }
    // No rule: every negative is right; each rule adds its new positives, loses its new negatives.
    let mut right = test_y.iter().filter(|&&y| !y).count() as i64;
    let (mut covered, mut conds) = (vec![0u64; test.n_words()], 0u32);
    let mut terms = Terms::new();
    let held_out = path
        .order
        .iter()
        .map(|&r| {
            rules[r].terms(schema, &mut terms);
            for (w, c) in covered.iter_mut().enumerate() {
                let new = test.covered_word(&terms, w) & !*c & test.valid(w);
                right += (new & pos[w]).count_ones() as i64 - (new & !pos[w]).count_ones() as i64;
                *c |= new;
            }
            conds += conditions(schema, &rules[r]);
            (right as u32, conds)
        })
        .collect();
    (held_out, train_path)
}

/// Held-out score of one fold's pruned runs, for each (setting index, K policy).
#[allow(clippy::too_many_arguments)]
fn score_fold(
    schema: &Schema,
    fold: &Fold,
    paths: bool,
    negate: bool,
    method: Method,
    n_runs: u32,
    runs: Vec<Vec<Rule>>,
    policies: &[(usize, RuleCount)],
) -> Vec<(usize, Score)> {
    let test_y: Vec<bool> = fold.test_labels.iter().map(|&y| y != negate).collect();
    let index = &fold.test_index;
    let covered = |rules: &[Rule]| -> Vec<u64> {
        let mut out = vec![0u64; index.n_words()];
        let mut terms = Terms::new();
        for r in rules {
            r.terms(schema, &mut terms);
            index.or_covered_into(&terms, &mut out);
        }
        out
    };
    let count_correct = |pred: &dyn Fn(usize) -> bool| -> u32 {
        (0..test_y.len()).filter(|&r| pred(r) == test_y[r]).count() as u32
    };
    let all = |sc: Score| policies.iter().map(|&(i, _)| (i, sc.clone())).collect();
    match method {
        Method::FindRs => {
            let rules = &runs[0];
            let cov = covered(rules);
            let train_y: Vec<bool> = fold.train_labels.iter().map(|&y| y != negate).collect();
            let (path, path_train) = if paths {
                held_out_path(schema, &fold.train_index, &train_y, index, &test_y, rules)
            } else {
                (Vec::new(), Vec::new())
            };
            all(Score {
                correct: count_correct(&|r| crate::data::bitset::get(&cov, r)),
                rules: rules.len() as u32,
                conditions: rules.iter().map(|r| conditions(schema, r)).sum(),
                path,
                path_train,
            })
        }
        Method::Bo => {
            let mut votes = vec![0u32; test_y.len()];
            let (mut n_rules, mut conds) = (0, 0);
            for rules in &runs {
                let cov = covered(rules);
                crate::data::bitset::for_each_one(&cov, |r| votes[r] += 1);
                n_rules += rules.len() as u32;
                conds += rules.iter().map(|r| conditions(schema, r)).sum::<u32>();
            }
            let half = n_runs / 2;
            all(Score {
                correct: count_correct(&|r| votes[r] > half),
                rules: n_rules,
                conditions: conds,
                path: Vec::new(),
                path_train: Vec::new(),
            })
        }
        Method::Bp => {
            let agg = aggregate(runs);
            let n = agg.rules.len();
            let train_y: Vec<bool> = fold.train_labels.iter().map(|&y| y != negate).collect();
            let train_curve = pruning_curve(
                schema,
                &fold.train_index,
                &train_y,
                &agg.rules,
                &agg.alpha,
                n_runs,
            );
            let test_curve = pruning_curve(schema, index, &test_y, &agg.rules, &agg.alpha, n_runs);
            let mut prefix_conds = Vec::with_capacity(n + 1);
            prefix_conds.push(0u32);
            for r in &agg.rules {
                let c = *prefix_conds.last().expect("non-empty");
                prefix_conds.push(c + conditions(schema, r));
            }
            policies
                .iter()
                .map(|&(i, policy)| {
                    let kk = match policy {
                        RuleCount::All => n,
                        RuleCount::Fixed(x) => x.min(n),
                        RuleCount::Auto { accuracy_ratio } => train_curve.auto_k(accuracy_ratio),
                    };
                    let correct = if kk == 0 {
                        count_correct(&|_| false)
                    } else {
                        test_curve.correct[kk - 1]
                    };
                    let sc = Score {
                        correct,
                        rules: kk as u32,
                        conditions: prefix_conds[kk],
                        path: Vec::new(),
                        path_train: Vec::new(),
                    };
                    (i, sc)
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::fit::fit;
    use crate::learn::run::interval_tests::{av, iv, mixed_data, mixed_schema, Spec};
    use crate::learn::run::tests::{columns_of, random_data};

    fn settings() -> Vec<Setting> {
        let mut v = Vec::new();
        let policies = [
            RuleCount::Auto {
                accuracy_ratio: 0.99,
            },
            RuleCount::All,
            RuleCount::Fixed(2),
        ];
        let accs = [(0, 0.0), (1, 0.0), (0, 0.2), (0, 0.35)];
        for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
            for (tolerance, epsilon) in accs {
                for negate in [false, true] {
                    for min_support in [0, 3] {
                        for n_rules in policies {
                            for simplify in [false, true] {
                                v.push(Setting {
                                    kind,
                                    tolerance,
                                    epsilon,
                                    negate,
                                    min_support,
                                    n_rules,
                                    simplify,
                                });
                            }
                        }
                    }
                }
            }
        }
        v
    }

    /// Every fold score equals that of `fit` on the fold's training rows, predicted on its
    /// held-out rows (negated for `negate`); categorical features only, or mixed with
    /// interval features.
    #[test]
    fn fold_scores_match_fit() {
        let domains = [3u32, 4, 2, 3, 2];
        let specs = [iv(6, true), av(3), iv(15, false), av(2)];
        for seed in 0..12u64 {
            for method in [Method::FindRs, Method::Bo, Method::Bp] {
                let (base, rows, labels) = if seed % 3 == 2 {
                    let (rows, labels) = mixed_data(seed + 40, 80, &specs, seed % 2 == 0);
                    (mixed_schema(&specs), rows, labels)
                } else {
                    let (rows, labels) = random_data(seed + 77, 80, &domains);
                    let s =
                        Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
                    (s, rows, labels)
                };
                // A sample of the rows on every other seed; interval ends widened on two seeds
                // in three (every setting is scored simplified and not).
                let widen = [Widen::No, Widen::Open, Widen::Nearest][seed as usize / 3 % 3];
                // Each fold read from its own codes (refitted on its training rows) on every
                // other seed, with and without a sample.
                let per_fold = seed / 2 % 2 == 1;
                check_fold_scores(
                    &base,
                    &rows,
                    &labels,
                    method,
                    seed,
                    seed % 2 == 1,
                    widen,
                    per_fold,
                );
            }
        }
    }

    /// The [`FoldCodes`] of each fold's schema (from `fold_rows`) over its columns.
    fn fold_codes_of<'a>(
        fold_rows: &[(Schema, Vec<Vec<u32>>)],
        fold_cols: &'a [Vec<Vec<u32>>],
    ) -> Vec<FoldCodes<'a>> {
        fold_rows
            .iter()
            .zip(fold_cols)
            .map(|((s, _), c)| FoldCodes {
                schema: s.clone(),
                data: Columns::new(s, c.iter().map(|c| c.as_slice()).collect()).unwrap(),
            })
            .collect()
    }

    /// Fold `f`'s own codes, as an encoder refitted on the fold's training rows gives them: the
    /// values of each AV/OH feature that its training rows hold are numbered in order (on odd
    /// folds the first AV/OH feature's values merged in pairs first, as a coarser binning), every other value
    /// gets the unseen code; interval features keep their codes. Returns the fold's base schema
    /// and its rows.
    fn refit_codes(
        base: &Schema,
        rows: &[Vec<u32>],
        fold_of: &[u32],
        f: u32,
    ) -> (Schema, Vec<Vec<u32>>) {
        let m = base.n_features();
        let train: Vec<usize> = (0..rows.len())
            .filter(|&r| fold_of[r] != f && fold_of[r] != UNSAMPLED)
            .collect();
        let mut maps: Vec<Option<Vec<Option<u32>>>> = Vec::new();
        let mut domains = Vec::new();
        let first = (0..m).find(|&j| base.kind(j) != ConstraintKind::Interval);
        for j in 0..m {
            if base.kind(j) == ConstraintKind::Interval {
                maps.push(None);
                domains.push(base.domain_size(j));
                continue;
            }
            let merge = |v: u32| if Some(j) == first && f % 2 == 1 { v / 2 } else { v };
            let mut seen = vec![false; base.domain_size(j) as usize];
            for &r in &train {
                seen[merge(rows[r][j]) as usize] = true;
            }
            let mut next = 0u32;
            let numbers: Vec<Option<u32>> = seen
                .iter()
                .map(|&x| {
                    x.then(|| {
                        next += 1;
                        next - 1
                    })
                })
                .collect();
            let map = (0..base.domain_size(j))
                .map(|v| numbers[merge(v) as usize])
                .collect();
            maps.push(Some(map));
            domains.push(next);
        }
        let schema = Schema::with_nulls(
            domains.clone(),
            base.kinds().to_vec(),
            base.null_seen_flags().to_vec(),
        )
        .unwrap();
        let recoded = rows
            .iter()
            .map(|row| {
                (0..m)
                    .map(|j| match &maps[j] {
                        None => row[j],
                        Some(map) => map[row[j] as usize].unwrap_or(domains[j]),
                    })
                    .collect()
            })
            .collect();
        (schema, recoded)
    }

    #[allow(clippy::too_many_arguments)]
    fn check_fold_scores(
        base: &Schema,
        rows: &[Vec<u32>],
        labels: &[bool],
        method: Method,
        seed: u64,
        sample: bool,
        widen: Widen,
        per_fold: bool,
    ) {
        let max_rows = sample.then_some(50);
        let m = base.n_features();
        let cols = columns_of(rows, m);
        let data = Columns::new(base, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let cv = CvOptions {
            method,
            n_runs: 5,
            folds: 3,
            seed,
            shuffle: true,
            max_rows,
            scale_support: true,
            widen,
            paths: true,
        };
        let fold_of = sampled_folds(labels, 3, seed, max_rows);
        assert_eq!(cv_folds(labels, 3, seed, max_rows), fold_of);
        // Each fold's base schema and rows: the shared ones, or its own.
        let fold_rows: Vec<(Schema, Vec<Vec<u32>>)> = (0..3u32)
            .map(|f| {
                if per_fold {
                    refit_codes(base, rows, &fold_of, f)
                } else {
                    (base.clone(), rows.to_vec())
                }
            })
            .collect();
        let fold_cols: Vec<Vec<Vec<u32>>> =
            fold_rows.iter().map(|(_, r)| columns_of(r, m)).collect();
        let fold_codes = fold_codes_of(&fold_rows, &fold_cols);
        let report = if per_fold {
            let r = cross_validate_folds(
                base,
                &data,
                &fold_codes,
                labels,
                &settings(),
                &cv,
                &Progress::default(),
            )
            .unwrap();
            // The refitted codes differ from the shared ones: so do some scores.
            let shared =
                cross_validate(base, &data, labels, &settings(), &cv, &Progress::default())
                    .unwrap();
            assert!(r.rows.iter().zip(&shared.rows).any(|(a, b)| a.correct != b.correct
                || a.conditions != b.conditions));
            r
        } else {
            cross_validate(base, &data, labels, &settings(), &cv, &Progress::default()).unwrap()
        };
        let in_sample = fold_of.iter().filter(|&&x| x != UNSAMPLED).count();
        assert_eq!(report.sampled, in_sample);
        if sample {
            assert!(in_sample < rows.len() && in_sample.abs_diff(50) <= 1);
        }
        for row in &report.rows {
            let s = &row.setting;
            for f in 0..3 {
                let (fold_base, rows) = (&fold_rows[f].0, &fold_rows[f].1);
                let schema = encoded(fold_base, s.kind).unwrap();
                let tr: Vec<usize> = (0..rows.len())
                    .filter(|&r| fold_of[r] != f as u32 && fold_of[r] != UNSAMPLED)
                    .collect();
                let te: Vec<usize> = (0..rows.len())
                    .filter(|&r| fold_of[r] == f as u32)
                    .collect();
                let pick = |idx: &[usize]| -> Vec<Vec<u32>> {
                    idx.iter().map(|&r| rows[r].clone()).collect()
                };
                let tr_cols = columns_of(&pick(&tr), m);
                let te_cols = columns_of(&pick(&te), m);
                let tr_data =
                    Columns::new(&schema, tr_cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                let te_data =
                    Columns::new(&schema, te_cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                let y: Vec<bool> = tr.iter().map(|&r| labels[r] != s.negate).collect();
                let opts = FitOptions {
                    method,
                    tolerance: s.tolerance,
                    epsilon: s.epsilon,
                    min_support: s.min_support,
                    n_runs: if method == Method::FindRs { 1 } else { 5 },
                    seed: fold_seed(seed, f),
                    shuffle: true,
                    n_rules: s.n_rules,
                    simplify: s.simplify,
                    max_rules: None,
                    widen,
                    ..FitOptions::default()
                };
                let ctx = format!("seed {seed} {method:?} {s:?} fold {f}");
                assert_eq!(row.rows[f], te.len() as u32);
                let Some(fitted) =
                    fit_or_none(schema.clone(), &tr_data, &y, &opts, &Progress::default()).unwrap()
                else {
                    // No rule: every held-out row predicted negative.
                    let correct = te.iter().filter(|&&r| labels[r] == s.negate).count() as u32;
                    assert_eq!(row.correct[f], correct, "{ctx}");
                    assert_eq!((row.rules[f], row.conditions[f]), (0, 0), "{ctx}");
                    assert!(row.path_correct[f].is_empty() && row.path_conditions[f].is_empty(), "{ctx}");
                    continue;
                };
                if method == Method::FindRs {
                    // Each model of the fold's path, scored on its held-out rows, as `path` and
                    // `with_rules` make it.
                    let path = crate::learn::fit::path(&fitted.model, &tr_data, &y).unwrap();
                    assert_eq!(row.path_correct[f].len(), path.order.len(), "{ctx}");
                    for k in 1..=path.order.len() {
                        let m = fitted.model.with_rules(&path.order[..k]).unwrap();
                        let right = te
                            .iter()
                            .zip(m.predict(&te_data))
                            .filter(|(&r, p)| (*p != s.negate) == labels[r])
                            .count() as u32;
                        assert_eq!(row.path_correct[f][k - 1], right, "{ctx} k {k}");
                        let conds: u32 = m.rule_set().rules().iter().map(|r| conditions(&schema, r)).sum();
                        assert_eq!(row.path_conditions[f][k - 1], conds, "{ctx} k {k}");
                    }
                    assert_eq!(row.path_correct[f].last(), Some(&row.correct[f]), "{ctx}");
                    let empty = y.iter().filter(|&&p| !p).count() as u32;
                    assert_eq!(row.path_train[f][0], empty, "{ctx}");
                    assert_eq!(row.path_train[f][1..], path.correct[..], "{ctx}");
                } else {
                    assert!(row.path_correct[f].is_empty(), "{ctx}");
                }
                let pred = fitted.model.predict(&te_data);
                let correct = te
                    .iter()
                    .zip(&pred)
                    .filter(|(&r, &p)| (p != s.negate) == labels[r])
                    .count() as u32;
                assert_eq!(row.correct[f], correct, "{ctx}");
                if method != Method::Bo {
                    let set = fitted.model.rule_set();
                    let voting = &set.rules()[..set.n_kept()];
                    assert_eq!(row.rules[f] as usize, voting.len(), "{ctx}");
                    let conds: u32 = voting.iter().map(|r| conditions(&schema, r)).sum();
                    assert_eq!(row.conditions[f], conds, "{ctx}");
                }
            }
        }
    }

    #[test]
    fn same_report_for_any_thread_count() {
        let domains = [3u32, 4, 2, 3, 2, 5];
        let (rows, labels) = random_data(5, 200, &domains);
        let cols = columns_of(&rows, domains.len());
        let base = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let data = Columns::new(&base, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let cv = CvOptions {
            method: Method::Bp,
            n_runs: 7,
            folds: 4,
            seed: 9,
            shuffle: true,
            max_rows: Some(150),
            scale_support: true,
            widen: Widen::No,
            paths: true,
        };
        // With one code matrix, then with each fold read from its own codes too.
        let fold_of = cv_folds(&labels, 4, 9, Some(150));
        let fold_rows: Vec<(Schema, Vec<Vec<u32>>)> =
            (0..4).map(|f| refit_codes(&base, &rows, &fold_of, f)).collect();
        let fold_cols: Vec<Vec<Vec<u32>>> = fold_rows
            .iter()
            .map(|(_, r)| columns_of(r, domains.len()))
            .collect();
        let fold_codes = fold_codes_of(&fold_rows, &fold_cols);
        for per_fold in [&fold_codes[..0], &fold_codes[..]] {
            let go = |threads| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    cross_validate_folds(
                        &base,
                        &data,
                        per_fold,
                        &labels,
                        &settings(),
                        &cv,
                        &Progress::default(),
                    )
                    .unwrap()
                })
            };
            let (a, b) = (go(1), go(4));
            assert_eq!(a.best, b.best);
            for (x, y) in a.rows.iter().zip(&b.rows) {
                assert_eq!(x.correct, y.correct);
                assert_eq!(x.conditions, y.conditions);
            }
        }
    }

    /// The chosen setting has the most held-out rows right, then the fewest conditions, then
    /// comes first; `fit_best` fits it (or, when its support leaves no rule, the next best).
    #[test]
    fn the_best_setting_is_chosen_and_fitted() {
        let specs: [Spec; 3] = [iv(8, true), av(3), av(4)];
        let base = mixed_schema(&specs);
        for seed in 0..6u64 {
            let (rows, labels) = mixed_data(seed + 900, 90, &specs, true);
            let cols = columns_of(&rows, specs.len());
            let data = Columns::new(&base, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let cv = CvOptions {
                method: Method::FindRs,
                n_runs: 1,
                folds: 3,
                seed,
                shuffle: true,
                max_rows: None,
                scale_support: true,
                widen: Widen::No,
                paths: true,
            };
            let mut cands = settings();
            // A support no rule reaches on all rows: never fitted.
            cands.insert(
                0,
                Setting {
                    min_support: 10_000,
                    ..cands[0].clone()
                },
            );
            let options = FitOptions {
                seed,
                shuffle: true,
                ..FitOptions::default()
            };
            let (fitted, report) = fit_best(
                &base,
                &data,
                &labels,
                &cands,
                &cv,
                &options,
                &Progress::default(),
            )
            .unwrap();
            let key = |r: &CvRow| {
                let c: u32 = r.correct.iter().sum();
                let k: u32 = r.conditions.iter().sum();
                (c, k)
            };
            let b = &report.rows[report.best];
            assert_ne!(b.setting.min_support, 10_000);
            for (i, r) in report.rows.iter().enumerate() {
                let (c, k) = key(r);
                let (bc, bk) = key(b);
                if r.setting.min_support == 10_000 {
                    continue;
                }
                assert!(
                    c < bc || (c == bc && (k > bk || (k == bk && i >= report.best))),
                    "seed {seed}"
                );
            }
            let s = &b.setting;
            let y: Vec<bool> = labels.iter().map(|&y| y != s.negate).collect();
            let opts = s.fit_options(&options);
            let again = fit(
                encoded(&base, s.kind).unwrap(),
                &data,
                &y,
                &opts,
                &Progress::default(),
            )
            .unwrap();
            assert_eq!(
                fitted.model.rule_set().rules(),
                again.model.rule_set().rules()
            );
            assert_eq!(fitted.model.schema(), again.model.schema());
        }
    }

    /// On labels that are noise, a support no rule reaches (every held-out row negative) wins
    /// the cross-validation; its fit on all rows keeps no rule, so the next best is fitted.
    #[test]
    fn a_support_that_leaves_no_rule_is_passed_over() {
        let domains = [4u32, 4, 3, 5];
        let (rows, _) = random_data(3, 200, &domains);
        let labels: Vec<bool> = (0..200).map(|i| (i * 7919) % 10 < 2).collect();
        let cols = columns_of(&rows, domains.len());
        let base = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let data = Columns::new(&base, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let plain = Setting {
            kind: ConstraintKind::AttributeValue,
            tolerance: 0,
            epsilon: 0.0,
            negate: false,
            min_support: 0,
            n_rules: RuleCount::All,
            simplify: false,
        };
        let never = Setting {
            min_support: 10_000,
            ..plain.clone()
        };
        let cv = CvOptions {
            method: Method::FindRs,
            n_runs: 1,
            folds: 4,
            seed: 1,
            shuffle: true,
            max_rows: None,
            scale_support: true,
            widen: Widen::No,
            paths: true,
        };
        let options = FitOptions {
            seed: 1,
            shuffle: true,
            ..FitOptions::default()
        };
        let cands = [plain, never];
        let (fitted, report) = fit_best(
            &base,
            &data,
            &labels,
            &cands,
            &cv,
            &options,
            &Progress::default(),
        )
        .unwrap();
        assert_eq!(
            ranking(&report.rows)[0],
            1,
            "the empty candidate wins the CV"
        );
        assert_eq!(report.best, 0);
        assert!(!fitted.model.rule_set().rules().is_empty());
        // The same fallback from a report made beforehand (what Python's encoding axes reuse).
        let made = cross_validate(&base, &data, &labels, &cands, &cv, &Progress::default()).unwrap();
        let (again, again_report) = fit_ranked(&base, &data, &labels, made, &cv, &options, &Progress::default()).unwrap();
        assert_eq!(again_report.best, 0);
        assert_eq!(again.model.rule_set().rules(), fitted.model.rule_set().rules());
        let mut none = cross_validate(&base, &data, &labels, &cands[1..], &cv, &Progress::default()).unwrap();
        assert!(matches!(
            fit_ranked(&base, &data, &labels, none.clone(), &cv, &options, &Progress::default()),
            Err(FindRsError::InvalidParameter(_))
        ));
        none.sampled = labels.len() + 1;
        assert!(matches!(
            fit_ranked(&base, &data, &labels, none, &cv, &options, &Progress::default()),
            Err(FindRsError::InvalidParameter(_))
        ));
        let only = fit_best(
            &base,
            &data,
            &labels,
            &cands[1..],
            &cv,
            &options,
            &Progress::default(),
        );
        assert!(matches!(only, Err(FindRsError::InvalidParameter(_))));
    }

    #[test]
    fn folds_are_stratified_and_cover_every_row() {
        let labels: Vec<bool> = (0..103).map(|i| i % 3 == 0).collect();
        let f = stratified_folds(&labels, 5, 1);
        for class in [true, false] {
            let mut counts = [0usize; 5];
            for (r, &y) in labels.iter().enumerate() {
                if y == class {
                    counts[f[r] as usize] += 1;
                }
            }
            assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1);
        }
        assert_eq!(f, stratified_folds(&labels, 5, 1));
        assert_ne!(f, stratified_folds(&labels, 5, 2));
    }

    /// A sample keeps each class's share (rounded, at least `k` rows), is stratified over the
    /// folds, is a prefix of the unsampled deal (same shuffles), and without a limit or when
    /// the rows fit it is `stratified_folds`.
    #[test]
    fn sampled_folds_are_a_stratified_sample() {
        let labels: Vec<bool> = (0..1003).map(|i| i % 7 == 0).collect();
        let n_pos = labels.iter().filter(|&&y| y).count();
        assert_eq!(sampled_folds(&labels, 3, 4, None), stratified_folds(&labels, 3, 4));
        assert_eq!(sampled_folds(&labels, 3, 4, Some(1003)), stratified_folds(&labels, 3, 4));
        for max in [1usize, 10, 100, 500] {
            let f = sampled_folds(&labels, 3, 4, Some(max));
            for class in [true, false] {
                let n_class = if class { n_pos } else { 1003 - n_pos };
                let kept: Vec<usize> = (0..1003)
                    .filter(|&r| labels[r] == class && f[r] != UNSAMPLED)
                    .collect();
                assert_eq!(kept.len(), class_quota(n_class, 1003, 3, Some(max)));
                assert!(kept.len() >= 3);
                let mut counts = [0usize; 3];
                for &r in &kept {
                    counts[f[r] as usize] += 1;
                }
                assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1);
            }
            let total = f.iter().filter(|&&x| x != UNSAMPLED).count();
            // Each class keeps its rounded share, or k rows when that is fewer.
            assert!(total.abs_diff(max) <= 1 || total <= max + 6, "{max}: {total}");
            if max >= 100 {
                assert!(total.abs_diff(max) <= 1, "{max}: {total}");
            }
        }
        assert_eq!(scaled_support(10, 1000, 250), 40);
        assert_eq!(scaled_support(3, 1000, 1000), 3);
        assert_eq!(scaled_support(0, 1000, 7), 0);
    }

    /// With a sample, `fit_best` fits the winner on every row with its support scaled.
    #[test]
    fn a_sampled_cross_validation_fits_on_every_row() {
        let domains = [3u32, 4, 2, 3, 2, 5];
        let (rows, labels) = random_data(11, 300, &domains);
        let cols = columns_of(&rows, domains.len());
        let base = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let data = Columns::new(&base, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let cv = CvOptions {
            method: Method::FindRs,
            n_runs: 1,
            folds: 3,
            seed: 2,
            shuffle: true,
            max_rows: Some(100),
            scale_support: true,
            widen: Widen::No,
            paths: true,
        };
        let cands: Vec<Setting> = settings()
            .into_iter()
            .filter(|s| s.min_support == 3 && !s.negate)
            .collect();
        let options = FitOptions {
            seed: 2,
            shuffle: true,
            ..FitOptions::default()
        };
        let (fitted, report) = fit_best(
            &base,
            &data,
            &labels,
            &cands,
            &cv,
            &options,
            &Progress::default(),
        )
        .unwrap();
        assert_eq!(report.sampled, 100);
        let made = cross_validate(&base, &data, &labels, &cands, &cv, &Progress::default()).unwrap();
        let (from_report, r2) = fit_ranked(&base, &data, &labels, made, &cv, &options, &Progress::default()).unwrap();
        assert_eq!(r2.best, report.best);
        assert_eq!(from_report.model.rule_set().rules(), fitted.model.rule_set().rules());
        let s = &report.rows[report.best].setting;
        let opts = FitOptions {
            min_support: 9,
            ..s.fit_options(&options)
        };
        let again = fit(
            encoded(&base, s.kind).unwrap(),
            &data,
            &labels,
            &opts,
            &Progress::default(),
        )
        .unwrap();
        assert_eq!(
            fitted.model.rule_set().rules(),
            again.model.rule_set().rules()
        );
    }

    #[test]
    fn bad_requests_are_errors() {
        let domains = [3u32, 2];
        let (rows, labels) = random_data(1, 30, &domains);
        let cols = columns_of(&rows, 2);
        let base = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let data = Columns::new(&base, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let cv = CvOptions {
            method: Method::FindRs,
            n_runs: 1,
            folds: 3,
            seed: 0,
            shuffle: true,
            max_rows: None,
            scale_support: true,
            widen: Widen::No,
            paths: true,
        };
        let go = |s: &[Setting], cv: &CvOptions| {
            cross_validate(&base, &data, &labels, s, cv, &Progress::default())
        };
        let one = settings()[0].clone();
        assert!(go(&[], &cv).is_err());
        // Per-fold codes: one per fold, and a fold's training rows hold training codes.
        let narrow = Schema::uniform(vec![2, 2], ConstraintKind::AttributeValue).unwrap();
        let per_fold = |schema: &Schema| -> Vec<FoldCodes> {
            (0..3)
                .map(|_| FoldCodes {
                    schema: schema.clone(),
                    data: data.clone(),
                })
                .collect()
        };
        let folds_go = |codes: &[FoldCodes]| {
            cross_validate_folds(
                &base,
                &data,
                codes,
                &labels,
                std::slice::from_ref(&one),
                &cv,
                &Progress::default(),
            )
        };
        assert!(folds_go(&per_fold(&base)).is_ok());
        assert!(folds_go(&per_fold(&base)[..2]).is_err());
        // Code 2 of feature 0 is the unseen code of a 2-value domain: fine in held-out rows
        // only, and some training row of every fold holds it.
        assert!(cols[0].contains(&2));
        assert!(matches!(
            folds_go(&per_fold(&narrow)),
            Err(FindRsError::InvalidData(_))
        ));
        assert!(go(
            std::slice::from_ref(&one),
            &CvOptions {
                folds: 1,
                ..cv.clone()
            }
        )
        .is_err());
        assert!(go(
            std::slice::from_ref(&one),
            &CvOptions {
                folds: 31,
                ..cv.clone()
            }
        )
        .is_err());
        for bad in [
            Setting {
                epsilon: 1.0,
                ..one.clone()
            },
            Setting {
                kind: ConstraintKind::Interval,
                ..one.clone()
            },
        ] {
            assert!(go(&[bad], &cv).is_err());
        }
        let bp = CvOptions {
            method: Method::Bp,
            n_runs: 3,
            ..cv.clone()
        };
        assert!(go(
            &[Setting {
                n_rules: RuleCount::Fixed(0),
                ..one.clone()
            }],
            &bp
        )
        .is_err());
        assert!(go(
            &[Setting {
                n_rules: RuleCount::Auto {
                    accuracy_ratio: 0.0
                },
                ..one
            }],
            &bp
        )
        .is_err());
    }
}
