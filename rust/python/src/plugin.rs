//! Polars expression plugins: the prediction, decision value and fired rules of a model (and a
//! multiclass model's class, `findrs_class`),
//! applied to the feature columns already encoded to codes by Polars expressions (the encoders'
//! `plugin_inputs()`: a string feature's Enum-cast codes still hold nulls for unseen values and
//! nulls, which the plugin fills as it reads them, see `codes_of`), batch by batch
//! (`is_elementwise`: the streaming engine may call them per chunk). Their C entry points are
//! declared with `plugin_function!` (`plugin_abi.rs`).
//! This is findrs' one prediction path: eager `predict` runs these too.
//!
//! Invariant: the model travels in the kwargs as the core's JSON (`model_to_json` of its
//! voting-only copy; `multiclass_to_json` for a multiclass model) plus a key; it is parsed once per key and cached, so a batch costs the
//! kwargs' decoding and the prediction only. The cached model compiles its predictor on the
//! first batch.

use findrs_core::{any_model_from_json, model_from_json, AnyModel, Columns, MulticlassModel, RuleModel, Schema};
use polars::prelude::*;
use crate::plugin_abi::plugin_function;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Deserialize)]
struct ModelKwargs {
    /// Identifies the model (a digest of `model`, computed on the Python side).
    key: String,
    model: String,
    /// Per feature, the code of a null in its code column (empty: code columns have no nulls).
    #[serde(default)]
    fills: Vec<u32>,
    /// Per feature, the index of a Boolean input "the value was null": its rows get the code
    /// `fills[i] - 1` (the null value's code, the last training code) instead of `fills[i]`.
    #[serde(default)]
    null_inputs: Vec<Option<usize>>,
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

/// The codes of one feature: its column as is when it holds `u32` codes without nulls (no
/// copy), otherwise read once into `u32`, a null becoming `fill`, or `null_code` where
/// `was_null` says the input value was null (a string feature: the Enum cast's physical codes,
/// null for values never seen in training and for nulls alike).
enum Codes<'a> {
    Borrowed(&'a [u32]),
    Owned(Vec<u32>),
}

fn codes_of<'a>(s: &'a Series, fill: Option<u32>, was_null: Option<&Series>, null_code: u32) -> PolarsResult<Codes<'a>> {
    let bad = || polars_err!(ComputeError: "findrs: column {} must hold unsigned integer codes, got {}", s.name(), s.dtype());
    if s.null_count() == 0 {
        if let Ok(ca) = s.u32() {
            if let Ok(slice) = ca.cont_slice() {
                return Ok(Codes::Borrowed(slice));
            }
        }
    } else if fill.is_none() {
        polars_bail!(ComputeError: "findrs: code column {} has nulls", s.name());
    }
    let fill = fill.unwrap_or(0);
    let flags = match was_null {
        Some(w) => Some(w.bool().map_err(|_| polars_err!(ComputeError: "findrs: null flags of {} must be Boolean", s.name()))?),
        None => None,
    };
    let mut out = Vec::with_capacity(s.len());
    fn push<T: PolarsNumericType>(ca: &ChunkedArray<T>, out: &mut Vec<u32>, fill: u32)
    where
        T::Native: Into<u64>,
    {
        let no_nulls = ca.null_count() == 0;
        for arr in ca.downcast_iter() {
            if no_nulls {
                out.extend(arr.values().iter().map(|&v| Into::<u64>::into(v) as u32));
            } else {
                out.extend(arr.iter().map(|v| v.map_or(fill, |&v| Into::<u64>::into(v) as u32)));
            }
        }
    }
    match s.dtype() {
        DataType::UInt8 => push(s.u8()?, &mut out, fill),
        DataType::UInt16 => push(s.u16()?, &mut out, fill),
        DataType::UInt32 => push(s.u32()?, &mut out, fill),
        _ => return Err(bad()),
    }
    if let Some(flags) = flags {
        if flags.len() != out.len() {
            polars_bail!(ComputeError: "findrs: null flags of {} have {} rows, not {}", s.name(), flags.len(), out.len());
        }
        let mut r = 0;
        for arr in flags.downcast_iter() {
            for v in arr.iter() {
                if v == Some(true) {
                    out[r] = null_code;
                }
                r += 1;
            }
        }
    }
    Ok(Codes::Owned(out))
}

/// Calls `f` with the code columns as slices (checked for nulls and type; see [`codes_of`]).
fn with_codes<T>(inputs: &[Series], kw: &ModelKwargs, schema: &Schema, f: impl FnOnce(&Columns) -> T) -> PolarsResult<T> {
    let n_features = schema.n_features();
    if inputs.len() < n_features {
        polars_bail!(ComputeError: "findrs: {} input columns for {} features", inputs.len(), n_features);
    }
    let owned: Vec<Series> = inputs[..n_features].iter().map(|s| s.rechunk()).collect();
    let mut codes = Vec::with_capacity(n_features);
    for (i, s) in owned.iter().enumerate() {
        let fill = kw.fills.get(i).copied();
        let was_null = match kw.null_inputs.get(i).copied().flatten() {
            Some(j) => Some(inputs.get(j).ok_or_else(|| polars_err!(ComputeError: "findrs: no input {}", j))?),
            None => None,
        };
        codes.push(codes_of(s, fill, was_null, fill.unwrap_or(1).saturating_sub(1))?);
    }
    let slices: Vec<&[u32]> = codes
        .iter()
        .map(|c| match c {
            Codes::Borrowed(s) => *s,
            Codes::Owned(v) => v.as_slice(),
        })
        .collect();
    let data = Columns::new(schema, slices).map_err(|e| polars_err!(ComputeError: "findrs: {}", e))?;
    Ok(f(&data))
}

fn name_of(inputs: &[Series]) -> PlSmallStr {
    inputs.first().map(|s| s.name().clone()).unwrap_or_else(|| "findrs".into())
}

plugin_function!(_polars_plugin_findrs_predict, _polars_plugin_field_findrs_predict, findrs_predict, |name| Field::new(name, DataType::Boolean));

fn findrs_predict(inputs: &[Series], kwargs: ModelKwargs) -> PolarsResult<Series> {
    let m = model(&kwargs)?;
    let pred = with_codes(inputs, &kwargs, m.schema(), |d| m.predict(d))?;
    Ok(BooleanChunked::from_slice(name_of(inputs), &pred).into_series())
}

plugin_function!(_polars_plugin_findrs_decision, _polars_plugin_field_findrs_decision, findrs_decision, |name| Field::new(name, DataType::Float64));

fn findrs_decision(inputs: &[Series], kwargs: ModelKwargs) -> PolarsResult<Series> {
    let m = model(&kwargs)?;
    let values = with_codes(inputs, &kwargs, m.schema(), |d| m.decisions(d))?;
    Ok(Float64Chunked::from_vec(name_of(inputs), values).into_series())
}

plugin_function!(_polars_plugin_findrs_fired, _polars_plugin_field_findrs_fired, findrs_fired, |_| Field::new("fired".into(), DataType::List(Box::new(DataType::UInt32))));

fn findrs_fired(inputs: &[Series], kwargs: ModelKwargs) -> PolarsResult<Series> {
    let m = model(&kwargs)?;
    let (offsets, ids) = with_codes(inputs, &kwargs, m.schema(), |d| m.fired(d))?;
    let n = offsets.len() - 1;
    let mut builder = ListPrimitiveChunkedBuilder::<UInt32Type>::new(name_of(inputs), n, ids.len(), DataType::UInt32);
    for r in 0..n {
        builder.append_slice(&ids[offsets[r] as usize..offsets[r + 1] as usize]);
    }
    Ok(builder.finish().into_series())
}

plugin_function!(_polars_plugin_findrs_class, _polars_plugin_field_findrs_class, findrs_class, |name| Field::new(name, DataType::UInt32));

/// A multiclass model's class of each row (an index into the model's classes,
/// docs/semantics.md §10).
fn findrs_class(inputs: &[Series], kwargs: ModelKwargs) -> PolarsResult<Series> {
    let m = multiclass(&kwargs)?;
    let classes = with_codes(inputs, &kwargs, m.schema(), |d| m.predict(d))?;
    Ok(UInt32Chunked::from_vec(name_of(inputs), classes).into_series())
}
