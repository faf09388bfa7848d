//! `CoreModel`: a fitted rule model held in Rust, built by `fit` or from saved constraints.

use crate::convert::{columns, core_err, guarded, slices};
use findrs_core::data::Columns;
use crate::state::{Constraints, ModelState};
use findrs_core::best_k::pruning_curve;
use findrs_core::model::RuleModel;
use findrs_core::predict::{Predictor, PredictorCell};
use findrs_core::row_index::RowIndex;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

#[pyclass(module = "findrs._core", frozen)]
pub struct CoreModel {
    pub inner: RuleModel,
    predictor: PredictorCell,
}

impl CoreModel {
    pub fn from_model(inner: RuleModel) -> Self {
        Self {
            inner,
            predictor: PredictorCell::default(),
        }
    }

    fn predictor(&self, data: &Columns) -> &Predictor {
        self.predictor.get(&self.inner, data)
    }

    /// The NumPy code columns as core columns checked against this model's schema.
    fn data<'a>(&self, arrays: &'a [PyReadonlyArray1<'_, u32>]) -> PyResult<Columns<'a>> {
        columns(&self.inner.schema, slices(arrays)?)
    }
}

#[pymethods]
impl CoreModel {
    #[new]
    #[pyo3(signature = (domain_sizes, kinds, method, rules, weights, runs, n_runs, n_kept, total_weight))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        domain_sizes: Vec<u32>,
        kinds: Vec<String>,
        method: &str,
        rules: Vec<Constraints>,
        weights: Vec<u32>,
        runs: Vec<Vec<u32>>,
        n_runs: u32,
        n_kept: usize,
        total_weight: u64,
    ) -> PyResult<Self> {
        guarded(|| {
            let state = ModelState {
                domain_sizes,
                kinds,
                method: method.to_string(),
                rules,
                rule_bits: String::new(),
                weights,
                runs,
                n_runs,
                n_kept,
                total_weight,
            };
            Ok(Self::from_model(state.into_model().map_err(core_err)?))
        })
    }

    /// The model as compact JSON (what the expression plugin receives); with `voting_only`, a
    /// BP model keeps just its top-K rules.
    #[pyo3(signature = (voting_only=false))]
    fn state_json(&self, voting_only: bool) -> String {
        ModelState::from_model(&self.inner, voting_only).to_json()
    }

    /// Decision values (> 0 exactly where the prediction is positive).
    fn decision<'py>(
        &self,
        py: Python<'py>,
        columns_: Vec<PyReadonlyArray1<'py, u32>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let data = self.data(&columns_)?;
        let m = &self.inner;
        let out = py.detach(|| {
            guarded(|| Ok(self.predictor(&data).scores(&data).into_iter().map(|s| m.decision(s)).collect::<Vec<_>>()))
        })?;
        Ok(out.into_pyarray(py))
    }

    /// The voting rules covering each row, as CSR (offsets, rule ids).
    #[allow(clippy::type_complexity)]
    fn fired<'py>(
        &self,
        py: Python<'py>,
        columns_: Vec<PyReadonlyArray1<'py, u32>>,
    ) -> PyResult<(Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u32>>)> {
        let data = self.data(&columns_)?;
        let (offsets, ids) = py.detach(|| guarded(|| Ok(self.predictor(&data).fired(&data))))?;
        Ok((offsets.into_pyarray(py), ids.into_pyarray(py)))
    }

    /// Integer scores of the rows (see `threshold`).
    fn scores<'py>(
        &self,
        py: Python<'py>,
        columns_: Vec<PyReadonlyArray1<'py, u32>>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let data = self.data(&columns_)?;
        let out = py.detach(|| guarded(|| Ok(self.predictor(&data).scores(&data))))?;
        Ok(out.into_pyarray(py))
    }

    /// A row is positive iff its score is above this.
    fn threshold(&self) -> u64 {
        self.inner.threshold()
    }

    /// Rows classified correctly by the top-K vote, for K = 1..=n_rules (BP pruning curve).
    fn pruning_curve(
        &self,
        py: Python<'_>,
        columns_: Vec<PyReadonlyArray1<'_, u32>>,
        labels: PyReadonlyArray1<'_, bool>,
    ) -> PyResult<Vec<u32>> {
        let data = self.data(&columns_)?;
        let y = labels.as_slice().map_err(|_| PyValueError::new_err("labels must be contiguous"))?;
        if y.len() != data.n_rows() {
            return Err(PyValueError::new_err("labels and columns differ in length"));
        }
        let m = &self.inner;
        py.detach(|| {
            guarded(|| {
                let index = RowIndex::from_all(&m.schema, &data);
                Ok(pruning_curve(&m.schema, &index, y, &m.rules, &m.weights, m.n_runs).correct)
            })
        })
    }

    /// The same model with the top `k` rules voting (BP).
    fn with_n_kept(&self, k: usize) -> PyResult<Self> {
        if k == 0 || k > self.inner.rules.len() {
            return Err(PyValueError::new_err(format!(
                "n_rules must be between 1 and {}, got {k}",
                self.inner.rules.len()
            )));
        }
        let mut inner = self.inner.clone();
        inner.n_kept = k;
        Ok(Self::from_model(inner))
    }

    /// The number of constraints (constrained features) of the first `limit` rules.
    fn n_constraints(&self, limit: usize) -> usize {
        let m = &self.inner;
        let n = limit.min(m.rules.len());
        m.rules[..n]
            .iter()
            .map(|r| (0..m.schema.n_features()).filter(|&f| !r.is_free(&m.schema, f)).count())
            .sum()
    }

    /// The rules' constraints, in rule order; the first `limit` rules only when given.
    #[pyo3(signature = (limit=None))]
    fn rules(&self, limit: Option<usize>) -> Vec<Constraints> {
        let n = limit.map_or(self.inner.rules.len(), |k| k.min(self.inner.rules.len()));
        self.inner.rules[..n].iter().map(|r| r.constraints(&self.inner.schema)).collect()
    }

    #[getter]
    fn weights(&self) -> Vec<u32> {
        self.inner.weights.clone()
    }

    #[getter]
    fn runs(&self) -> Vec<Vec<u32>> {
        self.inner.runs.clone()
    }

    #[getter]
    fn method(&self) -> &'static str {
        self.inner.method.name()
    }

    #[getter]
    fn n_runs(&self) -> u32 {
        self.inner.n_runs
    }

    #[getter]
    fn n_kept(&self) -> usize {
        self.inner.n_kept
    }

    #[getter]
    fn total_weight(&self) -> u64 {
        self.inner.total_weight
    }

    #[getter]
    fn n_rules(&self) -> usize {
        self.inner.rules.len()
    }
}
