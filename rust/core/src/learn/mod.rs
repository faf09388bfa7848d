//! The learn layer: fitting a model with given settings. When a run may generalize a rule
//! (`acceptance`), the training set as the learners see it (`distinct`, `weighted`, `row_parts`,
//! `training`), one FIND-RS run (`run` and its parts), prune with the support filter (`prune`),
//! a run's rules shortened (`simplify`) and interval ends widened (`widen`), the seeded runs and
//! their aggregation (`ensemble`), FIND-RS's best of several runs (`best_of`), the best DNF of at
//! most N rules (`budget`), the fit itself (`fit`: data and options in, a model out), one
//! binary fit per class (`multiclass`, with the multiclass model) and its accuracy-size path
//! (`multiclass_path`).
//!
//! Invariant: a fit is a function of the data, the options and the seed: run `i` depends on its
//! index only, never on the thread or the order runs finish in, so the same inputs give a
//! byte-identical model on any number of threads or chunks.
//!
//! Imports: `data`, `predict`.

pub(crate) mod acceptance;
pub(crate) mod best_of;
pub(crate) mod budget;
pub(crate) mod distinct;
pub(crate) mod ensemble;
pub(crate) mod fit;
pub(crate) mod multiclass;
pub(crate) mod multiclass_path;
pub(crate) mod prune;
pub(crate) mod row_parts;
pub(crate) mod run;
pub(crate) mod simplify;
pub(crate) mod training;
pub(crate) mod weighted;
pub(crate) mod widen;
