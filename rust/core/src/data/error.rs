//! Errors of the core. Every fallible public function returns `Result<_, FindRsError>`; the
//! core never panics on user data (panics are bugs, and the bindings convert them too).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindRsError {
    /// The data do not fit the schema or each other (lengths, codes out of range, no rows).
    InvalidData(String),
    /// A parameter is out of its range.
    InvalidParameter(String),
    /// The fit was cancelled (for example by Ctrl-C in Python).
    Cancelled,
    /// An allocation the data need failed (`bytes` for `what`).
    OutOfMemory { bytes: u64, what: &'static str },
}

impl fmt::Display for FindRsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidData(m) | Self::InvalidParameter(m) => f.write_str(m),
            Self::Cancelled => f.write_str("the fit was cancelled"),
            Self::OutOfMemory { bytes, what } => {
                write!(
                    f,
                    "could not allocate {:.2} GiB for {what}",
                    *bytes as f64 / (1u64 << 30) as f64
                )
            }
        }
    }
}

impl std::error::Error for FindRsError {}

pub type Result<T> = std::result::Result<T, FindRsError>;

/// `n` copies of `value`, or [`FindRsError::OutOfMemory`] naming `what` when the allocation
/// fails (instead of aborting the process, as `vec![value; n]` does).
pub fn filled<T: Clone>(n: usize, value: T, what: &'static str) -> Result<Vec<T>> {
    let mut v: Vec<T> = Vec::new();
    let bytes = (n as u64).saturating_mul(std::mem::size_of::<T>() as u64);
    v.try_reserve_exact(n)
        .map_err(|_| FindRsError::OutOfMemory { bytes, what })?;
    v.resize(n, value);
    Ok(v)
}

/// `n` zeroed words, or [`FindRsError::OutOfMemory`] when the allocation fails (instead of
/// aborting the process, as `vec![0; n]` does).
pub fn zeroed_words(n: usize, what: &'static str) -> Result<Vec<u64>> {
    let mut v: Vec<u64> = Vec::new();
    let bytes = (n as u64).saturating_mul(8);
    v.try_reserve_exact(n)
        .map_err(|_| FindRsError::OutOfMemory { bytes, what })?;
    v.resize(n, 0);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An allocation that cannot succeed is an error naming its size, not an abort (issue 10
    /// item 8: a row index of 100k rows x 190k values aborted the interpreter).
    #[test]
    fn failed_allocations_are_errors() {
        let e = zeroed_words(usize::MAX / 4, "a test").unwrap_err();
        assert!(matches!(e, FindRsError::OutOfMemory { what: "a test", .. }));
        assert!(e.to_string().starts_with("could not allocate"));
        assert_eq!(zeroed_words(3, "a test").unwrap(), vec![0; 3]);
    }
}
