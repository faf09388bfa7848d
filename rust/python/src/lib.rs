//! `findrs._core`: thin PyO3 bindings of findrs-core. No algorithm lives here: functions
//! convert NumPy buffers to borrowed slices (no copy), call the core with the GIL released, and
//! convert back. `python/findrs/_core.pyi` types what this module exports.
//!
//! Invariant: no Rust panic and no core error reaches Python unconverted: core errors become
//! `ValueError` (`KeyboardInterrupt` when a fit was cancelled by a signal, `MemoryError` when an
//! allocation the data need failed), panics become `RuntimeError` naming them as a findrs bug.
//!
//! Modules, each importing only modules above it (each `//!` doc states what it may import;
//! tests/test_structure.py checks it): `alloc` (the global allocator), `convert` (Python
//! buffers to core types, errors and panics to exceptions), `options` (the settings dict of a
//! fit), `drive` (a core job off the GIL, on a pool, cancellable), `model` (the models held by
//! Python), `fit` and `multiclass` (the fit functions); and the expression plugin:
//! `plugin_abi` (the Polars plugin C ABI), `plugin_input` (input columns to codes), `plugin`
//! (the plugin functions).

mod alloc;
mod convert;
mod drive;
mod fit;
mod model;
mod multiclass;
mod options;
mod plugin;
mod plugin_abi;
mod plugin_input;

// Polars plugins must allocate with the allocator of the Python polars that calls them.
#[global_allocator]
static ALLOC: alloc::PolarsAllocator = alloc::PolarsAllocator::new();

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<model::CoreModel>()?;
    m.add_class::<model::CoreMulticlass>()?;
    m.add_function(wrap_pyfunction!(fit::fit, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_runs, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_auto, m)?)?;
    m.add_function(wrap_pyfunction!(fit::cv_folds, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fold_seed, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(multiclass::fit_multiclass, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_RUNS", findrs_core::MAX_RUNS)?;
    m.add("FORMAT_VERSION", findrs_core::FORMAT_VERSION)?;
    m.add("UNSAMPLED", findrs_core::UNSAMPLED)?;
    Ok(())
}
