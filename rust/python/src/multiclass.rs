//! `fit_multiclass` and `CoreMulticlass`: the core's multiclass model held by Python
//! (docs/semantics.md §10). Its class sets are handed out as ordinary [`CoreModel`]s (binary
//! models of one class against the rest), so Python reads each class through the binary view;
//! this class adds what combines them and the one JSON form of the whole.

use crate::convert::{columns, core_err, guarded, schema, slices};
use crate::fit::drive;
use crate::model::CoreModel;
use crate::options::{Multiclass, Options, RunRules, Runs, Vote};
use findrs_core::{fit_multiclass as core_fit, write_multiclass_document, Combine, ConstraintTable, Method, MulticlassModel};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::OnceLock;

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

#[pyclass(module = "findrs._core", frozen)]
pub struct CoreMulticlass {
    pub inner: MulticlassModel,
    /// The distinct constraints of every rule of every set, built on first use.
    table: OnceLock<ConstraintTable>,
}

impl CoreMulticlass {
    pub fn from_model(inner: MulticlassModel) -> Self {
        Self {
            inner,
            table: OnceLock::new(),
        }
    }

    fn table(&self) -> &ConstraintTable {
        self.table.get_or_init(|| {
            let rules: Vec<_> = self.inner.sets().iter().flat_map(|s| s.rule_set().rules().iter().cloned()).collect();
            ConstraintTable::of_rules(self.inner.schema(), &rules)
        })
    }
}

#[pymethods]
impl CoreMulticlass {
    /// The model document: `sections` (name, JSON text) first, then the model, with one text
    /// per distinct constraint of all sets (in `constraint_table` order).
    fn dump(&self, py: Python<'_>, sections: Vec<(String, String)>, texts: Vec<String>) -> PyResult<String> {
        py.detach(|| {
            guarded(|| {
                let s: Vec<(&str, &str)> = sections.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
                write_multiclass_document(&self.inner, &s, Some(&texts)).map_err(core_err)
            })
        })
    }

    /// The voting-only model as the compact JSON the expression plugin receives.
    fn plugin_json(&self) -> String {
        findrs_core::multiclass_to_json(&self.inner.voting_only())
    }

    /// The same model with no rule of any class set constraining the features `features`
    /// (docs/semantics.md §2.1).
    fn without_constraints_on(&self, features: Vec<usize>) -> PyResult<Self> {
        self.inner.without_constraints_on(&features).map(Self::from_model).map_err(core_err)
    }

    /// Each class set as a binary model, in combination order.
    fn class_models(&self) -> Vec<CoreModel> {
        self.inner.sets().iter().cloned().map(CoreModel::from_model).collect()
    }

    /// The distinct constraints of every rule of every set: `(feature, codes, unseen_passes)`.
    fn constraint_table(&self) -> Vec<(usize, Vec<u32>, bool)> {
        self.table().constraints.iter().map(|c| (c.feature, c.codes.clone(), c.unseen_passes)).collect()
    }

    #[getter]
    fn method(&self) -> &'static str {
        self.inner.method().name()
    }

    #[getter]
    #[allow(non_snake_case)]
    fn T(&self) -> u32 {
        self.inner.n_runs()
    }

    #[getter]
    fn domain_sizes(&self) -> Vec<u32> {
        self.inner.schema().domain_sizes().to_vec()
    }

    /// Per feature: whether null occurs in its training data (interval features; false for
    /// the others), as `CoreModel.null_seen`.
    #[getter]
    fn null_seen(&self) -> Vec<bool> {
        self.inner.schema().null_seen_flags().to_vec()
    }

    #[getter]
    fn kinds(&self) -> Vec<&'static str> {
        self.inner.schema().kinds().iter().map(|k| k.name()).collect()
    }

    /// `"one-vs-rest"`, `"rarest-first"` or `"frequent-first"`.
    #[getter]
    fn combine(&self) -> &'static str {
        self.inner.combine().name()
    }

    #[getter]
    fn n_classes(&self) -> u32 {
        self.inner.n_classes()
    }

    /// The class each set describes, in combination order.
    #[getter]
    fn set_classes(&self) -> Vec<u32> {
        self.inner.set_classes().to_vec()
    }

    /// The decision list's class when no set fires (`None` for one-vs-rest).
    #[getter]
    fn default_class(&self) -> Option<u32> {
        self.inner.default_class()
    }

    /// Per set, theta = scale * offset: one-vs-rest scores a row votes / theta.
    #[getter]
    fn thetas(&self) -> Vec<f64> {
        self.inner.thetas()
    }
}
