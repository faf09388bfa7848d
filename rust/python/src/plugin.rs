//! Polars expression plugins: the prediction, decision value and fired rules of a model (and a
//! multiclass model's class, `findrs_class`),
//! applied to the feature columns already encoded to codes by Polars expressions (the encoders'
//! `expr()`), batch by batch (`is_elementwise`: the streaming engine may call them per chunk).
//! This is findrs' one prediction path: eager `predict` runs these too.
//!
//! Invariant: the model travels in the kwargs as the core's JSON (`model_to_json` of its
//! voting-only copy; `multiclass_to_json` for a multiclass model) plus a key; it is parsed once per key and cached, so a batch costs the
//! kwargs' decoding and the prediction only. The cached model compiles its predictor on the
//! first batch.

use findrs_core::{any_model_from_json, model_from_json, AnyModel, Columns, MulticlassModel, RuleModel, Schema};
use polars::prelude::*;
use pyo3_polars::derive::polars_expr;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Deserialize)]
struct ModelKwargs {
    /// Identifies the model (a digest of `model`, computed on the Python side).
    key: String,
    model: String,
}

const CACHE_SIZE: usize = 32;

type Cache<T> = OnceLock<Mutex<HashMap<String, Arc<T>>>>;

/// The model of `kw` from `cache`, parsed by `parse` on first use.
fn cached<T>(cache: &Cache<T>, kw: &ModelKwargs, parse: impl FnOnce(&str) -> findrs_core::Result<T>) -> PolarsResult<Arc<T>> {
    let cache = cache.get_or_init(Default::default);
    if let Some(m) = cache.lock().expect("model cache").get(&kw.key) {
        return Ok(m.clone());
    }
    let m = Arc::new(parse(&kw.model).map_err(|e| polars_err!(ComputeError: "findrs: {}", e))?);
    let mut map = cache.lock().expect("model cache");
    if map.len() >= CACHE_SIZE {
        map.clear();
    }
    map.insert(kw.key.clone(), m.clone());
    Ok(m)
}

fn model(kw: &ModelKwargs) -> PolarsResult<Arc<RuleModel>> {
    static CACHE: Cache<RuleModel> = OnceLock::new();
    cached(&CACHE, kw, model_from_json)
}

fn multiclass(kw: &ModelKwargs) -> PolarsResult<Arc<MulticlassModel>> {
    static CACHE: Cache<MulticlassModel> = OnceLock::new();
    cached(&CACHE, kw, |text| match any_model_from_json(text)? {
        AnyModel::Multiclass(m) => Ok(m),
        AnyModel::Binary(_) => Err(findrs_core::FindRsError::InvalidData("a binary model, not multiclass".into())),
    })
}

/// Calls `f` with the code columns as slices (rechunked, checked for nulls and type).
fn with_codes<T>(inputs: &[Series], schema: &Schema, f: impl FnOnce(&Columns) -> T) -> PolarsResult<T> {
    let owned: Vec<Series> = inputs.iter().map(|s| s.rechunk()).collect();
    let mut slices = Vec::with_capacity(owned.len());
    for s in &owned {
        let ca = s.u32().map_err(|_| {
            polars_err!(ComputeError: "findrs: column {} must hold uint32 codes, got {}", s.name(), s.dtype())
        })?;
        if ca.null_count() > 0 {
            polars_bail!(ComputeError: "findrs: code column {} has nulls", s.name());
        }
        slices.push(ca.cont_slice()?);
    }
    let data = Columns::new(schema, slices).map_err(|e| polars_err!(ComputeError: "findrs: {}", e))?;
    Ok(f(&data))
}

fn name_of(inputs: &[Series]) -> PlSmallStr {
    inputs.first().map(|s| s.name().clone()).unwrap_or_else(|| "findrs".into())
}

#[polars_expr(output_type=Boolean)]
fn findrs_predict(inputs: &[Series], kwargs: ModelKwargs) -> PolarsResult<Series> {
    let m = model(&kwargs)?;
    let pred = with_codes(inputs, m.schema(), |d| m.predict(d))?;
    Ok(BooleanChunked::from_slice(name_of(inputs), &pred).into_series())
}

#[polars_expr(output_type=Float64)]
fn findrs_decision(inputs: &[Series], kwargs: ModelKwargs) -> PolarsResult<Series> {
    let m = model(&kwargs)?;
    let values = with_codes(inputs, m.schema(), |d| m.decisions(d))?;
    Ok(Float64Chunked::from_vec(name_of(inputs), values).into_series())
}

fn list_u32(_input_fields: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new("fired".into(), DataType::List(Box::new(DataType::UInt32))))
}

#[polars_expr(output_type_func=list_u32)]
fn findrs_fired(inputs: &[Series], kwargs: ModelKwargs) -> PolarsResult<Series> {
    let m = model(&kwargs)?;
    let (offsets, ids) = with_codes(inputs, m.schema(), |d| m.fired(d))?;
    let n = offsets.len() - 1;
    let mut builder = ListPrimitiveChunkedBuilder::<UInt32Type>::new(name_of(inputs), n, ids.len(), DataType::UInt32);
    for r in 0..n {
        builder.append_slice(&ids[offsets[r] as usize..offsets[r + 1] as usize]);
    }
    Ok(builder.finish().into_series())
}

/// A multiclass model's class of each row (an index into the model's classes,
/// docs/semantics.md §10).
#[polars_expr(output_type=UInt32)]
fn findrs_class(inputs: &[Series], kwargs: ModelKwargs) -> PolarsResult<Series> {
    let m = multiclass(&kwargs)?;
    let classes = with_codes(inputs, m.schema(), |d| m.predict(d))?;
    Ok(UInt32Chunked::from_vec(name_of(inputs), classes).into_series())
}
