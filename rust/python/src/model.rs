//! `CoreModel` and `CoreMulticlass`: the core's models held by Python. `CoreModel` is a
//! [`RuleModel`] with the public view that Python's `RuleSetModel` reads (constraints, rules as
//! constraint ids, weights, vote groups, threshold, decision scale) and the core's one JSON
//! form; `CoreMulticlass` a [`MulticlassModel`] (docs/semantics.md §10), whose class sets are
//! handed out as ordinary `CoreModel`s (binary models of one class against the rest), so
//! Python reads each class through the binary view; it adds what combines them and the one
//! JSON form of the whole. The two live together because each names the other (a document
//! loads as either; a multiclass model hands out binary ones). Prediction is not here: Python
//! predicts through the expression plugin ([`crate::plugin`]), which holds the same model.
//!
//! Invariant: a model held here is never changed (the classes are frozen; a method that
//! changes a model returns a new one), so the constraint table built on first use stays true.
//!
//! Imports: `convert` only.

use crate::convert::{core_err, guarded, slices};
use findrs_core::{
    read_any_document, write_document, write_multiclass_document, AnyModel, ConstraintTable, MulticlassModel, RuleModel,
};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::OnceLock;

#[pyclass(module = "findrs._core", frozen)]
pub struct CoreModel {
    pub inner: RuleModel,
    /// The distinct constraints of every rule, built on first use.
    table: OnceLock<ConstraintTable>,
}

impl CoreModel {
    pub fn from_model(inner: RuleModel) -> Self {
        Self {
            inner,
            table: OnceLock::new(),
        }
    }

    fn table(&self) -> &ConstraintTable {
        self.table.get_or_init(|| {
            let rules: Vec<_> = self.inner.rule_sets().iter().flat_map(|s| s.rules().iter().cloned()).collect();
            ConstraintTable::of_rules(self.inner.schema(), &rules)
        })
    }
}

#[pymethods]
impl CoreModel {
    /// A model document (JSON format version 2) read and checked: the model (a `CoreModel`,
    /// or a `CoreMulticlass` for a multiclass document) and the other sections as
    /// `(name, JSON text)` pairs.
    #[staticmethod]
    fn load(py: Python<'_>, text: &str) -> PyResult<(Py<PyAny>, Vec<(String, String)>)> {
        let (model, sections) = py.detach(|| guarded(|| read_any_document(text).map_err(core_err)))?;
        let model = match model {
            AnyModel::Binary(m) => Py::new(py, CoreModel::from_model(m))?.into_any(),
            AnyModel::Multiclass(m) => Py::new(py, CoreMulticlass::from_model(m))?.into_any(),
        };
        Ok((model, sections))
    }

    /// The model document: `sections` (name, JSON text) first, then the model, with one text
    /// per distinct constraint (in `constraint_table` order).
    fn dump(&self, py: Python<'_>, sections: Vec<(String, String)>, texts: Vec<String>) -> PyResult<String> {
        py.detach(|| {
            guarded(|| {
                let s: Vec<(&str, &str)> = sections.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
                write_document(&self.inner, &s, Some(&texts)).map_err(core_err)
            })
        })
    }

    /// The voting-only model as the compact JSON the expression plugin receives.
    fn plugin_json(&self) -> String {
        findrs_core::model_to_json(&self.inner.voting_only())
    }

    /// The same model with the top `k` rules voting (BP).
    fn with_n_rules(&self, k: usize) -> PyResult<Self> {
        self.inner.with_n_rules(k).map(Self::from_model).map_err(core_err)
    }

    /// The same model with no rule constraining the features `features` (each `?` in every
    /// rule; docs/semantics.md §2.1).
    fn without_constraints_on(&self, features: Vec<usize>) -> PyResult<Self> {
        self.inner.without_constraints_on(&features).map(Self::from_model).map_err(core_err)
    }

    /// The DNF of the rules `picked`, in that order (the core's `with_rules`).
    fn with_rules(&self, picked: Vec<usize>) -> PyResult<Self> {
        self.inner.with_rules(&picked).map(Self::from_model).map_err(core_err)
    }

    /// The accuracy-size path of the voting rules on training codes and the labels the rules
    /// describe: `(order, correct)` (the core's `path`).
    fn path(
        &self,
        py: Python<'_>,
        columns_: Vec<PyReadonlyArray1<'_, u32>>,
        labels: PyReadonlyArray1<'_, bool>,
    ) -> PyResult<(Vec<usize>, Vec<u32>)> {
        let data = self.inner.columns(slices(&columns_)?).map_err(core_err)?;
        let y = labels.as_slice().map_err(|_| PyValueError::new_err("labels must be contiguous"))?;
        py.detach(|| {
            guarded(|| {
                let p = findrs_core::path(&self.inner, &data, y).map_err(core_err)?;
                Ok((p.order, p.correct))
            })
        })
    }

    /// BP: rows classified correctly by the top-K vote, for K = 1..=n_rules_found.
    fn pruning_curve(
        &self,
        py: Python<'_>,
        columns_: Vec<PyReadonlyArray1<'_, u32>>,
        labels: PyReadonlyArray1<'_, bool>,
    ) -> PyResult<Vec<u32>> {
        let data = self.inner.columns(slices(&columns_)?).map_err(core_err)?;
        let y = labels.as_slice().map_err(|_| PyValueError::new_err("labels must be contiguous"))?;
        py.detach(|| guarded(|| self.inner.pruning_curve(&data, y).map_err(core_err)))
    }

    /// For every row of `columns_`, the ids of the voting rules that cover it, as CSR
    /// `(offsets, ids)`: row `r`'s are `ids[offsets[r]:offsets[r + 1]]` (the core's `fired`).
    #[allow(clippy::type_complexity)]
    fn fired<'py>(
        &self,
        py: Python<'py>,
        columns_: Vec<PyReadonlyArray1<'_, u32>>,
    ) -> PyResult<(Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u32>>)> {
        let data = self.inner.columns(slices(&columns_)?).map_err(core_err)?;
        let (offsets, ids) = py.detach(|| guarded(|| Ok(self.inner.fired(&data))))?;
        Ok((offsets.into_pyarray(py), ids.into_pyarray(py)))
    }

    /// The distinct constraints of every rule: `(feature, codes, unseen_passes)`, sorted by
    /// feature then codes.
    fn constraint_table(&self) -> Vec<(usize, Vec<u32>, bool)> {
        self.table().constraints.iter().map(|c| (c.feature, c.codes.clone(), c.unseen_passes)).collect()
    }

    /// Every rule as constraint ids (into `constraint_table`), as CSR: rule `i`'s ids are
    /// `ids[offsets[i]:offsets[i + 1]]`.
    #[allow(clippy::type_complexity)]
    fn rule_constraints<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u32>>) {
        let t = self.table();
        (t.offsets.clone().into_pyarray(py), t.ids.clone().into_pyarray(py))
    }

    /// The votes as groups of voting rules and their weights (see the core's `vote_groups`).
    fn vote_groups(&self) -> (Vec<Vec<u32>>, Vec<u64>) {
        self.inner.vote_groups()
    }

    #[getter]
    fn method(&self) -> &'static str {
        self.inner.method().name()
    }

    /// T, the number of runs.
    #[getter]
    #[allow(non_snake_case)]
    fn T(&self) -> u32 {
        self.inner.n_runs()
    }

    /// K, the number of voting rules.
    #[getter]
    fn n_rules(&self) -> usize {
        self.inner.rule_set().n_kept()
    }

    /// Every rule found, voting or not.
    #[getter]
    fn n_rules_found(&self) -> usize {
        self.inner.rule_set().rules().len()
    }

    #[getter]
    fn domain_sizes(&self) -> Vec<u32> {
        self.inner.schema().domain_sizes().to_vec()
    }

    /// Per feature: whether null occurs in its training data (interval features; false for
    /// the others, whose null is one of their codes).
    #[getter]
    fn null_seen(&self) -> Vec<bool> {
        self.inner.schema().null_seen_flags().to_vec()
    }

    #[getter]
    fn kinds(&self) -> Vec<&'static str> {
        self.inner.schema().kinds().iter().map(|k| k.name()).collect()
    }

    /// Positive iff the votes exceed this.
    #[getter]
    fn threshold(&self) -> u64 {
        self.inner.threshold()
    }

    /// `(scale, offset)`: decision = votes / scale - offset.
    #[getter]
    fn decision_scale(&self) -> (f64, f64) {
        self.inner.decision_scale()
    }

    /// The most votes a row can get.
    #[getter]
    fn max_votes(&self) -> u64 {
        self.inner.max_votes()
    }

    #[getter]
    fn weights(&self) -> Vec<u32> {
        self.inner.rule_set().weights().to_vec()
    }

    #[getter]
    fn runs(&self) -> Vec<Vec<u32>> {
        self.inner.rule_set().runs().to_vec()
    }

    #[getter]
    fn train_positives(&self) -> Vec<u32> {
        self.inner.rule_set().train_positives().to_vec()
    }

    #[getter]
    fn train_negatives(&self) -> Vec<u32> {
        self.inner.rule_set().train_negatives().to_vec()
    }

    /// BP: training rows classified correctly by the top k + 1 rules (empty otherwise).
    #[getter]
    fn curve(&self) -> Vec<u32> {
        self.inner.rule_set().curve().to_vec()
    }

    /// The rules of a BO or BP fit vote as a DNF: a rule budget chose them.
    #[getter]
    fn dnf(&self) -> bool {
        self.inner.rule_set().is_dnf()
    }
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

    /// The accuracy-size path of a FIND-RS model on its training rows `columns_` with each
    /// row's class index `classes`: `(order, correct)` (the core's `multiclass_path`).
    fn path(
        &self,
        py: Python<'_>,
        columns_: Vec<PyReadonlyArray1<'_, u32>>,
        classes: PyReadonlyArray1<'_, u32>,
    ) -> PyResult<(Vec<usize>, Vec<u32>)> {
        let data = self.inner.columns(slices(&columns_)?).map_err(core_err)?;
        let c = classes.as_slice().map_err(|_| PyValueError::new_err("classes must be contiguous"))?;
        py.detach(|| {
            guarded(|| {
                let p = findrs_core::multiclass_path(&self.inner, &data, c).map_err(core_err)?;
                Ok((p.order, p.correct))
            })
        })
    }

    /// The rows of `columns_` (class indices `classes`) right of each prefix of a path's
    /// `order` (the core's `multiclass_held_out_path`).
    fn held_out_path(
        &self,
        py: Python<'_>,
        order: Vec<usize>,
        columns_: Vec<PyReadonlyArray1<'_, u32>>,
        classes: PyReadonlyArray1<'_, u32>,
    ) -> PyResult<Vec<u32>> {
        let data = self.inner.columns(slices(&columns_)?).map_err(core_err)?;
        let c = classes.as_slice().map_err(|_| PyValueError::new_err("classes must be contiguous"))?;
        py.detach(|| guarded(|| findrs_core::multiclass_held_out_path(&self.inner, &order, &data, c).map_err(core_err)))
    }

    /// The model whose set `i` keeps the rules `picked[i]` of set `i`, in that order (the
    /// core's `with_rules`; the multiclass path's models).
    fn with_rules(&self, picked: Vec<Vec<usize>>) -> PyResult<Self> {
        self.inner.with_rules(&picked).map(Self::from_model).map_err(core_err)
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
