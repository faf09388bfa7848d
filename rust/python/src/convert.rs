//! Conversions between Python objects and core types, and error/panic conversion.
//!
//! Invariant: every core error and panic becomes a Python exception here (see `lib.rs`).
//!
//! Imports: no module of the crate.

use findrs_core::{Columns, ConstraintKind, FindRsError, Schema};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub fn core_err(e: FindRsError) -> PyErr {
    match e {
        FindRsError::Cancelled => PyKeyboardInterrupt::new_err("findrs fit cancelled"),
        e @ FindRsError::OutOfMemory { .. } => PyMemoryError::new_err(e.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

pub fn panic_err(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    PyRuntimeError::new_err(format!(
        "internal error in findrs' Rust core (a bug, please report it): {msg}"
    ))
}

/// Runs `f`, turning a panic into a `RuntimeError`.
pub fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(panic_err(p)))
}

/// The schema of a fit: per feature its number of training codes (an interval feature: its
/// distinct non-null values), its kind (`"av"`, `"oh"`, `"interval"`) and whether null occurs
/// in its training column (read for interval features, whose null is not one of the values).
pub fn schema(domain_sizes: Vec<u32>, kinds: &[String], null_seen: Vec<bool>) -> PyResult<Schema> {
    let kinds = kinds
        .iter()
        .map(|k| ConstraintKind::parse(k))
        .collect::<Result<Vec<_>, _>>()
        .map_err(core_err)?;
    Schema::with_nulls(domain_sizes, kinds, null_seen).map_err(core_err)
}

/// Borrowed slices of C-contiguous uint32 arrays.
pub fn slices<'a>(arrays: &'a [PyReadonlyArray1<'_, u32>]) -> PyResult<Vec<&'a [u32]>> {
    arrays
        .iter()
        .enumerate()
        .map(|(i, a)| {
            a.as_slice().map_err(|_| {
                PyValueError::new_err(format!("code column {i} is not a contiguous uint32 array"))
            })
        })
        .collect()
}

pub fn columns<'a>(schema: &Schema, slices: Vec<&'a [u32]>) -> PyResult<Columns<'a>> {
    Columns::new(schema, slices).map_err(core_err)
}
