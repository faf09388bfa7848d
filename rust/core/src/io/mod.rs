//! The io layer: the model's one serialization (`json`: the model document, format version 2,
//! binary and multiclass), read back into the same model.
//!
//! Invariant: reading what was written gives the same model, and a document read is checked as a
//! fit's model is (the predict layer's constructors), so a model from a file is as valid as one
//! fitted.
//!
//! Imports: `data`, `predict`, `learn` (the multiclass model).

pub(crate) mod json;
