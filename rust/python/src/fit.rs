//! `fit`, `fit_runs` and `fit_auto` (and the small helpers `cv_folds`, `fold_seed`,
//! `fit_bytes`): learn a binary model with the GIL released, through [`crate::drive`].
//!
//! Invariant: a function converts its arguments (codes, schema, the options dict) to the
//! core's types, calls the core once through `drive`, and converts the result back; no
//! algorithm here.
//!
//! Imports: `convert`, `options`, `drive`, `model`.

use crate::convert::{columns, core_err, schema, slices};
use crate::drive::drive;
use crate::model::CoreModel;
use crate::options::{rule_count, Cv, FindRs, Options, RunRules, Runs, Vote};
use findrs_core::{
    cross_validate_folds, cv_folds as core_cv_folds, cv_runs, final_support, fit_best_folds, fit_in_order, fit_ranked, fit_bytes as core_fit_bytes,
    fit_from_runs, fit_methods, fit_run_range, fold_seed as core_fold_seed, ConstraintKind, FitOptions, FoldCodes,
    CvReport, CvRow, Method, Rule, Schema, Setting,
};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Training rows classified correctly before a rule budget and by the model it returned.
type BudgetCounts = (u32, u32);

/// A FIND-RS fit with `best_of > 1` (docs/semantics.md §5.3): the run kept, and every run's
/// training rows right.
type BestOfRuns = (u32, Vec<u32>);

/// The bytes a fit of `n_pos` positives and `n_neg` negatives over these features allocates
/// at its peak for what grows with rows x values (see the core's `fit_bytes`).
#[pyfunction]
#[pyo3(signature = (domain_sizes, kinds, n_pos, n_neg, null_seen=None))]
pub fn fit_bytes(
    domain_sizes: Vec<u32>,
    kinds: Vec<String>,
    n_pos: usize,
    n_neg: usize,
    null_seen: Option<Vec<bool>>,
) -> PyResult<u64> {
    let null_seen = null_seen.unwrap_or_else(|| vec![false; kinds.len()]);
    Ok(core_fit_bytes(&schema(domain_sizes, &kinds, null_seen)?, n_pos, n_neg))
}

/// Fits a model per method of `options`' `method` ("find-rs", "bo", "bp", or "bo+bp": BO and BP
/// from one set of T runs, docs/semantics.md §5.1), the settings the dict `options` holds
/// ([`Runs`], [`RunRules`], [`Vote`], [`FindRs`]). Returns, per method, the model, the number of
/// training rows that have an identical row of the other label (contradictions) and, when a
/// rule budget replaced the model, the training rows classified correctly before it and by
/// the model returned. `runs`: the words and per-run rule counts of every run, as
/// [`fit_runs`] returns them concatenated in run order (the runs were computed elsewhere);
/// `None` makes them here. `run` / `best_of` (FIND-RS): the run whose order is presented, or
/// the number of runs `0..best_of` to choose the one with the most training rows right from
/// (docs/semantics.md §5.3); a model so chosen comes with the run kept and every run's rows
/// right.
#[pyfunction]
#[pyo3(signature = (columns_, domain_sizes, kinds, null_seen, labels, options, progress=None, runs=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit(
    py: Python<'_>,
    columns_: Vec<PyReadonlyArray1<'_, u32>>,
    domain_sizes: Vec<u32>,
    kinds: Vec<String>,
    null_seen: Vec<bool>,
    labels: PyReadonlyArray1<'_, bool>,
    options: Options<(Runs, RunRules, Vote, FindRs)>,
    progress: Option<Py<PyAny>>,
    runs: Option<(PyReadonlyArray1<'_, u64>, PyReadonlyArray1<'_, u32>)>,
) -> PyResult<Vec<(CoreModel, usize, Option<BudgetCounts>, Option<BestOfRuns>)>> {
    let Options((common, setting, vote, find_rs)) = options;
    let schema = schema(domain_sizes, &kinds, null_seen)?;
    let sl = slices(&columns_)?;
    let data = columns(&schema, sl)?;
    let y = labels.as_slice().map_err(|_| PyValueError::new_err("labels must be contiguous"))?;
    let methods = common.methods()?;
    let options = find_rs.apply(vote.apply(setting.apply(common.fit_options(methods[0])?)));
    let (n_runs, n_jobs) = (common.n_runs, common.n_jobs);
    let fitted = match runs {
        None => {
            let total = if options.method == Method::FindRs { 0 } else { n_runs as usize };
            drive(py, n_jobs, progress, total, |state| {
                fit_methods(schema.clone(), &data, y, &options, &methods, state)
            })?
        }
        Some((words, lengths)) => {
            let words = words.as_slice().map_err(|_| PyValueError::new_err("rule words must be contiguous"))?;
            let lengths = lengths.as_slice().map_err(|_| PyValueError::new_err("run lengths must be contiguous"))?;
            let runs = rules_of(&schema, words, lengths)?;
            drive(py, n_jobs, None, 0, |_| {
                methods
                    .iter()
                    .map(|&m| {
                        let o = FitOptions { method: m, ..options.clone() };
                        fit_from_runs(schema.clone(), &data, y, &o, runs.clone())?
                            .ok_or_else(|| findrs_core::no_rule(&o))
                    })
                    .collect()
            })?
        }
    };
    Ok(fitted
        .into_iter()
        .map(|f| {
            let budget = f.budget.map(|b| (b.full_correct, b.correct));
            let best = f.best_of.map(|b| (b.run, b.correct));
            (CoreModel::from_model(f.model), f.contradictions, budget, best)
        })
        .collect())
}

/// Runs `start..end` of a fit of `method` ("bo", "bp" or "bo+bp": the runs are the same;
/// "find-rs": run 0) with these options ([`Runs`], [`RunRules`]), on `n_jobs` threads: every rule's words, concatenated
/// in run order, and each run's number of rules. `widen` widens each run's interval ends here
/// (as [`fit`] does), so `fit` given these runs does not widen them again. A run depends on the
/// data, the options, the seed and its index only, so chunks of runs computed anywhere,
/// concatenated in run order and passed to [`fit`] as `runs`, give the model of a local fit.
#[pyfunction]
#[pyo3(signature = (columns_, domain_sizes, kinds, null_seen, labels, options, start, end))]
#[allow(clippy::too_many_arguments)]
pub fn fit_runs<'py>(
    py: Python<'py>,
    columns_: Vec<PyReadonlyArray1<'_, u32>>,
    domain_sizes: Vec<u32>,
    kinds: Vec<String>,
    null_seen: Vec<bool>,
    labels: PyReadonlyArray1<'_, bool>,
    options: Options<(Runs, RunRules)>,
    start: u32,
    end: u32,
) -> PyResult<(Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u32>>)> {
    let Options((common, setting)) = options;
    let schema = schema(domain_sizes, &kinds, null_seen)?;
    let sl = slices(&columns_)?;
    let data = columns(&schema, sl)?;
    let y = labels.as_slice().map_err(|_| PyValueError::new_err("labels must be contiguous"))?;
    let options = setting.apply(common.fit_options(common.methods()?[0])?);
    let n_jobs = common.n_jobs;
    let runs = drive(py, n_jobs, None, 0, |state| fit_run_range(&schema, &data, y, &options, start..end, state))?;
    let lengths: Vec<u32> = runs.iter().map(|r| r.len() as u32).collect();
    let words: Vec<u64> = runs.iter().flatten().flat_map(|r| r.allowed().iter().copied()).collect();
    Ok((words.into_pyarray(py), lengths.into_pyarray(py)))
}

/// The runs of `words` (rules of `schema.rule_words()` words each, concatenated) split by
/// `lengths` (rules per run); an error unless each rule is a canonical rule of the schema.
fn rules_of(schema: &Schema, words: &[u64], lengths: &[u32]) -> PyResult<Vec<Vec<Rule>>> {
    let w = schema.rule_words();
    let total: u64 = lengths.iter().map(|&n| n as u64).sum();
    if total * w as u64 != words.len() as u64 {
        return Err(PyValueError::new_err(format!(
            "{} rule words for {total} rules of {w} words",
            words.len()
        )));
    }
    let mut chunks = words.chunks_exact(w.max(1));
    lengths
        .iter()
        .map(|&n| {
            (0..n)
                .map(|_| {
                    let c = if w == 0 { &[][..] } else { chunks.next().expect("counted") };
                    Rule::from_words(schema, c.to_vec()).map_err(core_err)
                })
                .collect()
        })
        .collect()
}

/// A candidate setting as Python passes it: (encoding, tolerance, epsilon, negate,
/// min_support, n_rules, accuracy_ratio, simplify), with n_rules and accuracy_ratio as in `fit`.
type PySetting = (String, u32, f64, bool, u32, Option<usize>, Option<f64>, bool);

/// One candidate's cross-validation as Python passes it back, lists over the folds: (correct,
/// rows, rules, conditions).
type PyCvRow = (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>);

/// One candidate's cross-validation as Python receives it: [`PyCvRow`], then per fold the
/// held-out rows right and the conditions of each model of the fold model's path, and its
/// training rows right (the empty model first) (FIND-RS; empty otherwise; docs/semantics.md §8.1).
type PyCvOut = (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>, Vec<Vec<u32>>, Vec<Vec<u32>>, Vec<Vec<u32>>);

/// Cross-validates the candidate settings (stratified `folds`-fold CV on these rows, `cv_n_runs`
/// runs per fit; the dict `options` holds [`Runs`] and [`Cv`]), then fits the best on all rows with `n_runs` runs (docs/semantics.md §9.4).
/// `kinds` is the base encoding (a candidate's encoding replaces "av" and "oh"); `max_rows`
/// limits the cross-validation to a stratified sample (the final fit uses every row, its
/// support scaled). Returns the model, the contradictions, the index of the candidate fitted,
/// every candidate's scores, the rows the cross-validation used and the final fit's
/// `min_support`. The model of a negated candidate describes the negative rows. `widen`
/// ("no", "open", "nearest") widens every run's interval ends, in the cross-validation and the
/// final fit. `final_fit=false` stops after the cross-validation: no model (`None`, 0
/// contradictions), the index is the best-ranked candidate's and the support its scaled one
/// (what a fit would use unless that support leaves no rule), so Python can compare the
/// cross-validations of several encodings and fit only the winner's (docs/semantics.md §9.4).
/// `fold_columns`: one (code columns, domain sizes) per fold, every row of the frame encoded
/// as a fit on that fold's training rows encodes it (bin edges placed on its labels); the
/// cross-validation reads fold `f` from the `f`-th (same kinds and null flags as the shared
/// codes), the final fit the shared codes (docs/semantics.md §9.4). `scores`: the
/// cross-validation is already made (each candidate's fold counts as this function returns
/// them, and the rows it used): none is run, the final fit goes down those scores as after
/// one (the same model as without `scores` when they are this cross-validation's).
/// `best_of`: the final FIND-RS fit keeps the best of that many runs by training accuracy
/// (docs/semantics.md §5.3; the cross-validation's fold fits make one run each); with more
/// than 1, the result ends with the run kept and every run's training rows right. `order`
/// (with `scores`): the candidates to fit first, in that order, before the scores' ranking (a
/// choice by the models' size, docs/semantics.md §8.1).
#[pyfunction]
#[pyo3(signature = (columns_, domain_sizes, kinds, null_seen, labels, candidates, options, progress=None, fold_columns=None, scores=None, order=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_auto(
    py: Python<'_>,
    columns_: Vec<PyReadonlyArray1<'_, u32>>,
    domain_sizes: Vec<u32>,
    kinds: Vec<String>,
    null_seen: Vec<bool>,
    labels: PyReadonlyArray1<'_, bool>,
    candidates: Vec<PySetting>,
    options: Options<(Runs, Cv)>,
    progress: Option<Py<PyAny>>,
    fold_columns: Option<Vec<(Vec<PyReadonlyArray1<'_, u32>>, Vec<u32>)>>,
    scores: Option<(Vec<PyCvRow>, usize)>,
    order: Option<Vec<usize>>,
) -> PyResult<(Option<CoreModel>, usize, usize, Vec<PyCvOut>, usize, u32, Option<BestOfRuns>)> {
    let Options((common, cv_items)) = options;
    let flags = null_seen.clone();
    let base = schema(domain_sizes, &kinds, null_seen)?;
    let sl = slices(&columns_)?;
    let data = columns(&base, sl)?;
    let fold_columns = fold_columns.unwrap_or_default();
    let per_fold = fold_columns
        .iter()
        .map(|(cols, sizes)| {
            let s = schema(sizes.clone(), &kinds, flags.clone())?;
            let data = columns(&s, slices(cols)?)?;
            Ok(FoldCodes { schema: s, data })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let y = labels.as_slice().map_err(|_| PyValueError::new_err("labels must be contiguous"))?;
    let method = common.method()?;
    let settings = candidates
        .into_iter()
        .map(|(kind, tolerance, epsilon, negate, min_support, k, ratio, simplify)| {
            Ok(Setting {
                kind: ConstraintKind::parse(&kind).map_err(core_err)?,
                tolerance,
                epsilon,
                negate,
                min_support,
                n_rules: rule_count(k, ratio),
                simplify,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let cv = cv_items.cv_options(&common)?;
    let options = FitOptions { best_of: cv_items.best_of, ..common.fit_options(method)? };
    let (n_runs, n_jobs, final_fit) = (common.n_runs, common.n_jobs, cv_items.final_fit);
    let (fitted, report) = if let Some((rows, sampled)) = scores {
        if !final_fit || rows.len() != settings.len() {
            return Err(PyValueError::new_err(format!(
                "scores of {} candidates for {} candidates (and only with final_fit)",
                rows.len(),
                settings.len()
            )));
        }
        let rows = settings
            .into_iter()
            .zip(rows)
            .map(|(setting, (correct, rows, rules, conditions))| CvRow {
                setting,
                correct,
                rows,
                rules,
                conditions,
                path_correct: Vec::new(),
                path_conditions: Vec::new(),
                path_train: Vec::new(),
            })
            .collect();
        let report = CvReport { rows, best: 0, sampled };
        let total = if method == Method::FindRs { 1 } else { n_runs as usize };
        let (fitted, report) = drive(py, n_jobs, progress, total, |state| match &order {
            Some(order) => fit_in_order(&base, &data, y, report.clone(), order, &cv, &options, state),
            None => fit_ranked(&base, &data, y, report.clone(), &cv, &options, state),
        })?;
        (Some(fitted), report)
    } else if order.is_some() {
        return Err(PyValueError::new_err("an order of candidates goes with their scores"));
    } else if final_fit {
        let total = cv_runs(&settings, &cv) + if method == Method::FindRs { 1 } else { n_runs as usize };
        let (fitted, report) =
            drive(py, n_jobs, progress, total, |state| {
                fit_best_folds(&base, &data, &per_fold, y, &settings, &cv, &options, state)
            })?;
        (Some(fitted), report)
    } else {
        let total = cv_runs(&settings, &cv);
        (None, drive(py, n_jobs, progress, total, |state| cross_validate_folds(&base, &data, &per_fold, y, &settings, &cv, state))?)
    };
    let support = final_support(&report.rows[report.best].setting, &cv, y.len(), report.sampled);
    let sampled = report.sampled;
    let rows = report
        .rows
        .into_iter()
        .map(|r| (r.correct, r.rows, r.rules, r.conditions, r.path_correct, r.path_conditions, r.path_train))
        .collect();
    let (model, contradictions, best) = match fitted {
        Some(f) => (Some(CoreModel::from_model(f.model)), f.contradictions, f.best_of.map(|b| (b.run, b.correct))),
        None => (None, 0, None),
    };
    Ok((model, contradictions, report.best, rows, sampled, support, best))
}

/// The fold of every row in the cross-validation of `fit_auto` with these `labels`, `folds`,
/// `seed` and `max_rows` (`2**32 - 1` for a row outside its sample), so Python can encode each
/// fold on its own training rows (docs/semantics.md §9.4).
#[pyfunction]
#[pyo3(signature = (labels, folds, seed, max_rows=None))]
pub fn cv_folds<'py>(
    py: Python<'py>,
    labels: PyReadonlyArray1<'_, bool>,
    folds: usize,
    seed: u64,
    max_rows: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let y = labels.as_slice().map_err(|_| PyValueError::new_err("labels must be contiguous"))?;
    if folds < 2 {
        return Err(PyValueError::new_err("folds must be at least 2"));
    }
    Ok(core_cv_folds(y, folds, seed, max_rows).into_pyarray(py))
}

/// The seed of fold `fold`'s runs in the cross-validation of `fit_auto` with `seed`: its fold
/// scores are those of a fit with this `random_state` (docs/semantics.md §9.4).
#[pyfunction]
pub fn fold_seed(seed: u64, fold: usize) -> u64 {
    core_fold_seed(seed, fold)
}
