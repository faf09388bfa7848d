//! The predict layer: the fitted model and how it decides rows. The model value (`model`:
//! [`RuleModel`](model::RuleModel), its rule sets, method, votes, threshold and decision scale),
//! the vote of the top K rules at every K (`best_k`: BP's threshold and training accuracy), the
//! rules compiled for prediction (`predict_plan`, `interval_cells`, `predictor`: they know rules
//! and tallies, not models) and the public view of rules (`constraints`: what exporters print).
//!
//! Invariant: a model is a value: built once (by a fit or read from JSON) and checked then, never
//! changed after (a changed model is a new one, e.g. `with_n_rules`); predicting it reads the
//! same votes, threshold and rules the fit recorded, so the decision of a row depends on the
//! model and the row alone.
//!
//! Imports: `data`.

pub(crate) mod best_k;
pub(crate) mod constraints;
pub(crate) mod interval_cells;
pub(crate) mod model;
pub(crate) mod predict_plan;
pub(crate) mod predictor;
