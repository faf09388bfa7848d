//! `fit_multiclass`: learn one rule set per class with the GIL released, through
//! [`crate::drive`] (docs/semantics.md §10), giving a [`CoreMulticlass`].
//!
//! Invariant: as `fit`'s: arguments converted, the core called once, the result converted
//! back; no algorithm here.
//!
//! Imports: `convert`, `options`, `drive`, `model`.

use crate::convert::{columns, core_err, schema, slices};
use crate::drive::drive;
use crate::model::CoreMulticlass;
use crate::options::{Multiclass, Options, RunRules, Runs, Vote};
use findrs_core::{fit_multiclass as core_fit, Combine, Method};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Fits one rule set per class (`classes[r]` is row `r`'s class, below `n_classes`) combined by
/// `combine` (`"one-vs-rest"`, `"rarest-first"` or `"frequent-first"`), the settings the dict
/// `options` holds ([`Runs`], [`RunRules`], [`Vote`], [`Multiclass`]); `null_seen` and `widen`
/// as in `fit` (interval features: each set's interval ends widen toward its own negatives).
/// Returns the model, the number of training rows identical to a row of another class, and
/// per set the contradictions of its own training rows.
#[pyfunction]
#[pyo3(signature = (columns_, domain_sizes, kinds, null_seen, classes, n_classes, options, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_multiclass(
    py: Python<'_>,
    columns_: Vec<PyReadonlyArray1<'_, u32>>,
    domain_sizes: Vec<u32>,
    kinds: Vec<String>,
    null_seen: Vec<bool>,
    classes: PyReadonlyArray1<'_, u32>,
    n_classes: u32,
    options: Options<(Runs, RunRules, Vote, Multiclass)>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(CoreMulticlass, usize, Vec<usize>)> {
    let Options((common, rules, vote, multi)) = options;
    let schema = schema(domain_sizes, &kinds, null_seen)?;
    let data = columns(&schema, slices(&columns_)?)?;
    let y = classes.as_slice().map_err(|_| PyValueError::new_err("classes must be contiguous"))?;
    let combine = Combine::parse(&multi.combine).map_err(core_err)?;
    let method = common.method()?;
    let options = vote.apply(rules.apply(common.fit_options(method)?));
    let (n_runs, n_jobs) = (common.n_runs, common.n_jobs);
    let n_sets = (n_classes as usize).saturating_sub(combine.is_list() as usize);
    let total = if method == Method::FindRs { 0 } else { n_sets * n_runs as usize };
    let fitted = drive(py, n_jobs, progress, total, |state| {
        core_fit(schema.clone(), &data, y, n_classes, combine, &options, state)
    })?;
    Ok((CoreMulticlass::from_model(fitted.model), fitted.contradictions, fitted.set_contradictions))
}
