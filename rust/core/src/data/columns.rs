//! Encoded data: one `u32` code column per feature, borrowed from the caller (NumPy or Arrow
//! buffers on the Python side, so nothing is copied).
//!
//! Invariant: a `Columns` value has been checked against its schema: every column has `n_rows`
//! codes and every code is at most `max_code(f)`: the unseen code `domain_size(f)` of an AV or
//! OH feature, the null gap code `2 d + 1` of an interval feature (training data: only training
//! codes, see [`Columns::check_training`]).

use crate::data::error::{FindRsError, Result};
use crate::data::schema::{ConstraintKind, Schema};

#[derive(Clone, Debug)]
pub struct Columns<'a> {
    cols: Vec<&'a [u32]>,
    n_rows: usize,
}

impl<'a> Columns<'a> {
    /// Checks lengths and code ranges against `schema`. Codes equal to `domain_size(f)` mean
    /// "never seen in training" and are allowed here (prediction data), as are an interval
    /// feature's even gap codes (values between or beyond the training values).
    pub fn new(schema: &Schema, cols: Vec<&'a [u32]>) -> Result<Self> {
        if cols.len() != schema.n_features() {
            return Err(FindRsError::InvalidData(format!(
                "expected {} feature columns, got {}",
                schema.n_features(),
                cols.len()
            )));
        }
        let n_rows = cols.first().map_or(0, |c| c.len());
        for (f, col) in cols.iter().enumerate() {
            if col.len() != n_rows {
                return Err(FindRsError::InvalidData(format!(
                    "feature {f} has {} rows, feature 0 has {n_rows}",
                    col.len()
                )));
            }
            let d = schema.max_code(f);
            if let Some(&bad) = col.iter().find(|&&c| c > d) {
                let what = match schema.kind(f) {
                    ConstraintKind::Interval => "null code",
                    _ => "unseen code",
                };
                return Err(FindRsError::InvalidData(format!(
                    "feature {f} has code {bad}, above its {what} {d}"
                )));
            }
        }
        Ok(Self { cols, n_rows })
    }

    /// Training data must not contain unseen codes: every code is below `domain_size(f)`; an
    /// interval feature's codes are odd (training values) or its null code, when the schema
    /// says null occurs in training.
    pub fn check_training(&self, schema: &Schema) -> Result<()> {
        for (f, col) in self.cols.iter().enumerate() {
            let d = schema.domain_size(f);
            if schema.kind(f) == ConstraintKind::Interval {
                let null = schema.max_code(f);
                let seen = schema.null_seen(f);
                if let Some(&bad) = col
                    .iter()
                    .find(|&&c| !((c % 2 == 1 && c < 2 * d) || (c == null && seen)))
                {
                    return Err(FindRsError::InvalidData(format!(
                        "training interval feature {f} has code {bad}, not a training value's \
                         (odd codes below {}){}",
                        2 * d,
                        if seen {
                            format!(" nor null ({null})")
                        } else {
                            " and the schema says it holds no null".to_string()
                        }
                    )));
                }
                continue;
            }
            if col.iter().any(|&c| c >= d) {
                return Err(FindRsError::InvalidData(format!(
                    "training feature {f} has a code outside its domain 0..{d}"
                )));
            }
        }
        Ok(())
    }

    #[inline]
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    #[inline]
    pub fn n_features(&self) -> usize {
        self.cols.len()
    }

    #[inline]
    pub fn code(&self, row: usize, f: usize) -> u32 {
        self.cols[f][row]
    }

    #[inline]
    pub fn column(&self, f: usize) -> &'a [u32] {
        self.cols[f]
    }

    /// The codes of one row.
    pub fn row(&self, row: usize) -> Vec<u32> {
        self.cols.iter().map(|c| c[row]).collect()
    }

    /// Columns already known to fit a schema (the predictor's recoded blocks).
    pub(crate) fn from_checked(cols: Vec<&'a [u32]>, n_rows: usize) -> Self {
        Self { cols, n_rows }
    }

    /// A view of rows `start..end` (used to predict in row blocks).
    pub fn slice(&self, start: usize, end: usize) -> Columns<'a> {
        Columns {
            cols: self.cols.iter().map(|c| &c[start..end]).collect(),
            n_rows: end - start,
        }
    }
}
