//! Per-fold codes for the cross-validation (docs/semantics.md §9.4): when an encoding depends
//! on the training labels (bin edges placed by Fayyad and Irani's cuts), each fold must be
//! encoded as a fit on that fold's training rows would encode it, or its held-out score sees
//! the held-out labels. A [`FoldCodes`] is one fold's base schema and code matrix, over every
//! row of the data in the data's row order; the cross-validation reads fold `f`'s training and
//! held-out rows from the `f`-th one.
//!
//! Invariants checked by [`check_fold_codes`]: there is one per fold; each has the features of
//! the shared data in the same order, with the same constraint kinds and null flags (only the
//! domain sizes and the codes may differ), and one code per row. A fold's training rows hold
//! training codes of its schema (checked where the fold is built); its held-out rows may hold
//! the unseen code, as prediction data may.

use crate::data::columns::Columns;
use crate::data::error::{FindRsError, Result};
use crate::data::schema::Schema;

/// One fold's encoding: its base schema and its codes for every row.
#[derive(Clone, Debug)]
pub struct FoldCodes<'a> {
    pub schema: Schema,
    pub data: Columns<'a>,
}

/// Checks `per_fold` against the shared `schema` and `n_rows` (see the module docs); an empty
/// slice (every fold reads the shared codes) is fine.
pub(crate) fn check_fold_codes(
    schema: &Schema,
    n_rows: usize,
    folds: usize,
    per_fold: &[FoldCodes],
) -> Result<()> {
    if per_fold.is_empty() {
        return Ok(());
    }
    let bad = |m: String| Err(FindRsError::InvalidData(m));
    if per_fold.len() != folds {
        return bad(format!(
            "{} per-fold code matrices for {folds} folds",
            per_fold.len()
        ));
    }
    for (f, c) in per_fold.iter().enumerate() {
        if c.schema.kinds() != schema.kinds()
            || c.schema.null_seen_flags() != schema.null_seen_flags()
        {
            return bad(format!(
                "fold {f}'s codes have other features (kinds or null flags) than the shared codes"
            ));
        }
        if c.data.n_features() != schema.n_features() || c.data.n_rows() != n_rows {
            return bad(format!(
                "fold {f}'s codes have {} rows of {} features, the data {n_rows} of {}",
                c.data.n_rows(),
                c.data.n_features(),
                schema.n_features()
            ));
        }
        for j in 0..schema.n_features() {
            let d = c.schema.max_code(j);
            if let Some(&code) = c.data.column(j).iter().find(|&&x| x > d) {
                return bad(format!(
                    "fold {f}'s feature {j} has code {code}, above its schema's {d}"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::schema::ConstraintKind;

    #[test]
    fn mismatched_fold_codes_are_errors() {
        let base = Schema::uniform(vec![3, 2], ConstraintKind::AttributeValue).unwrap();
        let a = [0u32, 1, 2];
        let b = [1u32, 0, 1];
        let good = FoldCodes {
            schema: Schema::uniform(vec![4, 2], ConstraintKind::AttributeValue).unwrap(),
            data: Columns::new(&base, vec![&a, &b]).unwrap(),
        };
        assert!(check_fold_codes(&base, 3, 2, &[]).is_ok());
        assert!(check_fold_codes(&base, 3, 2, &[good.clone(), good.clone()]).is_ok());
        assert!(check_fold_codes(&base, 3, 3, &[good.clone(), good.clone()]).is_err());
        assert!(check_fold_codes(&base, 4, 2, &[good.clone(), good.clone()]).is_err());
        let oh = FoldCodes {
            schema: Schema::uniform(vec![4, 2], ConstraintKind::OneHot).unwrap(),
            ..good.clone()
        };
        assert!(check_fold_codes(&base, 3, 2, &[good.clone(), oh]).is_err());
        let narrow = FoldCodes {
            schema: Schema::uniform(vec![1, 2], ConstraintKind::AttributeValue).unwrap(),
            ..good.clone()
        };
        assert!(check_fold_codes(&base, 3, 2, &[good, narrow]).is_err());
    }
}
