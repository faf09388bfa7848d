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
}

impl fmt::Display for FindRsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidData(m) | Self::InvalidParameter(m) => f.write_str(m),
            Self::Cancelled => f.write_str("the fit was cancelled"),
        }
    }
}

impl std::error::Error for FindRsError {}

pub type Result<T> = std::result::Result<T, FindRsError>;
