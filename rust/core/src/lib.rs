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
//! Modules, each depending only on those above it:
//! `bitset`, `error`, `interval` (interval constraints on ordered features: gap codes, bounds),
//! `schema` (features, slots, constraint kinds), `data` (code columns), `rule` (rules as slot
//! sets plus intervals), `row_index` (slot and prefix bitsets over rows), `acceptance` (when a
//! run may generalize a rule), `identical` (rows grouped by feature vector), `distinct` (the
//! rows as distinct feature vectors with their label counts), `training`, `run` (one FIND-RS run), `prune` (with the
//! support filter), `simplify` (a run's rules shortened, beyond the paper), `widen` (a run's
//! interval ends widened toward the nearest negatives, beyond the paper), `ensemble` (seeded
//! runs, aggregation), `best_of` (FIND-RS's best of several runs by training accuracy, beyond
//! the paper), `best_k` (BP's threshold and accuracy at every K), `budget` (the best
//! DNF of at most N rules, beyond the paper), `constraints` (the public view of rules),
//! `predict_plan`, `interval_cells` and `predict` (rules compiled for prediction: they know rules
//! and tallies, not models), `model`, `fit`, `fold_codes` (one fold's own codes for the cross-validation), `cv` (automatic
//! settings, beyond the paper),
//! `multiclass` (one binary model per class and how they combine, docs/semantics.md §10),
//! `json`.

mod acceptance;
mod best_k;
mod best_of;
mod bitset;
mod budget;
mod constraints;
mod cv;
mod data;
mod distinct;
mod ensemble;
mod error;
mod fit;
mod fold_codes;
mod identical;
mod interval;
mod interval_cells;
mod json;
mod model;
mod multiclass;
mod predict;
mod predict_plan;
mod prune;
mod row_parts;
mod row_index;
mod rule;
mod run;
mod schema;
mod simplify;
mod training;
mod weighted;
mod widen;

pub use best_of::BestOf;
pub use constraints::{Constraint, ConstraintTable};
pub use cv::{
    cross_validate, cross_validate_folds, cv_folds, cv_runs, final_support, fit_best, fit_best_folds, fit_ranked, fold_seed, scaled_support,
    CvOptions, CvReport, CvRow, Setting, UNSAMPLED,
};
pub use fold_codes::FoldCodes;
pub use data::Columns;
pub use ensemble::Progress;
pub use error::{FindRsError, Result};
pub use fit::{
    fit, fit_bytes, fit_from_runs, fit_methods, fit_run_range, no_rule, BudgetReport, FitOptions, Fitted, RuleCount,
};
pub use interval::{null_code, Interval};
pub use json::{
    any_model_from_json, model_from_json, model_to_json, multiclass_to_json, read_any_document, read_document,
    write_document, write_multiclass_document, AnyModel, FORMAT, FORMAT_VERSION,
};
pub use model::{Method, RuleModel, RuleSet, RuleSetParts, MAX_RUNS};
pub use multiclass::{fit_multiclass, Combine, FittedMulticlass, MulticlassModel};
pub use rule::Rule;
pub use schema::{ConstraintKind, Schema};
pub use widen::Widen;
