//! findrs-core: FIND-RS, FIND-RS-BO and FIND-RS-BP ("Bayes Point Rule Set Learning") on
//! bitsets, with no Python in sight. Data flows one way: encoded code columns ([`data`]) and a
//! [`schema`] become a [`training`] set; runs ([`run`]) and [`prune`] make rule sets; the
//! [`ensemble`] aggregates runs into a [`model`], which [`predict`] compiles for prediction (laid
//! out by [`predict_plan`]). Ordered features may be constrained by intervals ([`interval`]).

pub mod best_k;
pub mod bitset;
pub mod data;
pub mod ensemble;
pub mod error;
pub mod fit;
pub mod interval;
mod interval_cells;
pub mod model;
pub mod predict;
pub mod predict_plan;
pub mod prune;
pub mod row_index;
pub mod rule;
pub mod run;
pub mod schema;
pub mod training;

pub use error::{FindRsError, Result};
