//! The select layer: automatic settings, beyond the paper (docs/semantics.md §9). Each fold's own
//! codes (`fold_codes`) and the cross-validation of candidate settings that chooses one and fits
//! it (`cv`).
//!
//! Invariant: choosing reads the training rows only (the folds split them, stratified, by the
//! seed), and the final fit of the setting chosen is an ordinary fit of the learn layer with that
//! setting: the same model as fitting it by hand.
//!
//! Imports: `data`, `predict`, `learn`.

pub(crate) mod cv;
pub(crate) mod fold_codes;
