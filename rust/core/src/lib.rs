//! findrs-core: FIND-RS, FIND-RS-BO and FIND-RS-BP ("Bayes Point Rule Set Learning") on
//! bitsets, with no Python in sight.
//!
//! Data flows one way. Encoded code columns ([`Columns`], checked against a [`Schema`]) and
//! labels go into [`fit`]: a training set, one FIND-RS run per seed and prune, the runs
//! aggregated into weighted rules, BP's K chosen ([`fit_multiclass`]: one such fit per class,
//! giving a [`MulticlassModel`]). Out comes a [`RuleModel`], the one value
//! that holds a model and decides rows (votes, threshold, decision value); it compiles its
//! voting rules into a predictor on first use. Its public view (the rules as
//! [`Constraint`]s of a [`ConstraintTable`], the vote groups, the decision scale) is what
//! exporters print, and [`write_document`] / [`read_document`] are its one serialization.
//!
//! [`fit_best`] chooses settings (encoding, tolerance, support, class direction, K) by
//! cross-validation on the training rows, then fits the best (docs/semantics.md §9).
//!
//! Layers, each a folder whose `mod.rs` states what it holds, its invariant and the layers it
//! may import (tests/test_structure.py checks the imports against it, and that no two modules
//! import each other in a circle):
//! - `data`: the rows and the language of rules (`bitset`, `error`, `interval`, `schema`,
//!   `columns`, `rule`, `row_index`, `identical`); imports no other layer.
//! - `predict`: the model and how it decides rows (`model`, `best_k`, `constraints`,
//!   `predict_plan`, `interval_cells`, `predictor`); imports `data`.
//! - `learn`: a fit with given settings (`acceptance`, `distinct`, `weighted`, `row_parts`,
//!   `training`, `run`, `prune`, `simplify`, `widen`, `ensemble`, `best_of`, `budget`, `fit`,
//!   `multiclass`, `multiclass_path`); imports `data` and `predict`.
//! - `select`: automatic settings by cross-validation (`fold_codes`, `cv`); imports `data`,
//!   `predict`, `learn`.
//! - `io`: the JSON document (`json`); imports `data`, `predict`, `learn`.

mod data;
mod io;
mod learn;
mod predict;
mod select;

pub use data::columns::Columns;
pub use data::error::{FindRsError, Result};
pub use data::interval::{null_code, Interval};
pub use data::rule::Rule;
pub use data::schema::{ConstraintKind, Schema};
pub use predict::constraints::{Constraint, ConstraintTable};
pub use predict::model::{Method, RuleModel, RuleSet, RuleSetParts, MAX_RUNS};
pub use learn::best_of::BestOf;
pub use learn::budget::Path;
pub use learn::ensemble::Progress;
pub use learn::fit::{
    fit, fit_bytes, fit_from_runs, fit_methods, fit_run_range, no_rule, path, BudgetReport, FitOptions, Fitted, RuleCount,
};
pub use learn::multiclass::{fit_multiclass, Combine, FittedMulticlass, MulticlassModel};
pub use learn::multiclass_path::{multiclass_held_out_path, multiclass_path};
pub use learn::widen::Widen;
pub use select::cv::{
    cross_validate, cross_validate_folds, cv_folds, cv_runs, final_support, fit_best, fit_best_folds, fit_in_order, fit_ranked, fold_seed,
    CvOptions, CvReport, CvRow, Setting, UNSAMPLED,
};
pub use select::fold_codes::FoldCodes;
pub use io::json::{
    any_model_from_json, model_from_json, model_to_json, multiclass_to_json, read_any_document, read_document,
    write_document, write_multiclass_document, AnyModel, FORMAT, FORMAT_VERSION,
};
