//! The data layer: the rows and the language rules speak over them. Word bitsets (`bitset`),
//! the core's errors (`error`), interval constraints on ordered features (`interval`: gap codes,
//! bounds), the feature layout (`schema`: features, slots, constraint kinds), borrowed code
//! columns (`columns`), rules as slot sets plus intervals (`rule`), slot and prefix bitsets over
//! rows (`row_index`) and rows grouped by feature vector (`identical`).
//!
//! Invariant: a value here is checked against its [`Schema`](schema::Schema) when built (codes
//! within their domains, rules canonical: one word layout per schema), so every layer above
//! reads codes and rules without checking them again; nothing here knows how rules are learnt,
//! chosen or voted.
//!
//! Imports: no other layer.

pub(crate) mod bitset;
pub(crate) mod columns;
pub(crate) mod error;
pub(crate) mod identical;
pub(crate) mod interval;
pub(crate) mod row_index;
pub(crate) mod rule;
pub(crate) mod schema;
