//! Polars expression plugins: the prediction, decision value and fired rules of a model (and a
//! multiclass model's class, `findrs_class`),
//! applied to the feature columns (the encoders' `plugin_inputs()`: a string feature's column
//! itself, String, Categorical or Enum, which `plugin_input` reads into codes with no Polars
//! cast; any other feature's codes from a Polars expression), batch by batch
//! (`is_elementwise`: the streaming engine may call them per chunk). Their C entry points are
//! declared with `plugin_function!` (`plugin_abi.rs`).
//! This is findrs' one prediction path: eager `predict` runs these too.
//!
//! Invariant: the model travels in the kwargs as the core's JSON (`model_to_json` of its
//! voting-only copy; `multiclass_to_json` for a multiclass model) plus a key; it is parsed once per key and cached, so a batch costs the
//! kwargs' decoding and the prediction only. The cached model compiles its predictor on the
//! first batch.
//!
//! Imports: `plugin_abi`, `plugin_input`.

use findrs_core::{any_model_from_json, model_from_json, AnyModel, Columns, MulticlassModel, RuleModel, Schema};
use crate::plugin_abi::{plugin_function, Input, Output};
use polars_arrow::array::{BooleanArray, ListArray, PrimitiveArray};
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::offset::OffsetsBuffer;
use polars_error::{polars_bail, polars_err, PolarsResult};
use polars_utils::pl_str::PlSmallStr;
use crate::plugin_input::{code_column, string_codes, Codes, StringFeature};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Deserialize)]
struct ModelKwargs {
    /// Identifies the model (a digest of `model`, computed on the Python side).
    key: String,
    model: String,
    /// Per feature, its training strings when its input is the column itself (a string
    /// feature), None when the input is a code column.
    #[serde(default)]
    strings: Vec<Option<StringFeature>>,
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

/// Calls `f` with the features' codes (see `plugin_input`: a string feature reads its column
/// itself, any other its code column).
fn with_codes<T>(inputs: &[Input], kw: &ModelKwargs, schema: &Schema, f: impl FnOnce(&Columns) -> T) -> PolarsResult<T> {
    let n_features = schema.n_features();
    if inputs.len() != n_features {
        polars_bail!(ComputeError: "findrs: {} input columns for {} features", inputs.len(), n_features);
    }
    let mut codes = Vec::with_capacity(n_features);
    for (i, input) in inputs.iter().enumerate() {
        codes.push(match kw.strings.get(i).and_then(Option::as_ref) {
            Some(feature) => Codes::Owned(string_codes(input, feature)?),
            None => code_column(input)?,
        });
    }
    let slices: Vec<&[u32]> = codes.iter().map(Codes::as_slice).collect();
    let data = Columns::new(schema, slices).map_err(|e| polars_err!(ComputeError: "findrs: {}", e))?;
    Ok(f(&data))
}

fn name_of(inputs: &[Input]) -> PlSmallStr {
    inputs.first().map(|s| s.name.clone()).unwrap_or_else(|| "findrs".into())
}

plugin_function!(_polars_plugin_findrs_predict, _polars_plugin_field_findrs_predict, findrs_predict, |name| Field::new(name, ArrowDataType::Boolean, true));

fn findrs_predict(inputs: &[Input], kwargs: ModelKwargs) -> PolarsResult<Output> {
    let m = model(&kwargs)?;
    let pred = with_codes(inputs, &kwargs, m.schema(), |d| m.predict(d))?;
    Ok(Output { name: name_of(inputs), array: BooleanArray::from_slice(&pred).boxed() })
}

plugin_function!(_polars_plugin_findrs_decision, _polars_plugin_field_findrs_decision, findrs_decision, |name| Field::new(name, ArrowDataType::Float64, true));

fn findrs_decision(inputs: &[Input], kwargs: ModelKwargs) -> PolarsResult<Output> {
    let m = model(&kwargs)?;
    let values = with_codes(inputs, &kwargs, m.schema(), |d| m.decisions(d))?;
    Ok(Output { name: name_of(inputs), array: PrimitiveArray::from_vec(values).boxed() })
}

/// A Polars `List(UInt32)`: an Arrow large list of nullable `u32` items named "item".
fn fired_dtype() -> ArrowDataType {
    ArrowDataType::UInt32.to_large_list(true)
}

plugin_function!(_polars_plugin_findrs_fired, _polars_plugin_field_findrs_fired, findrs_fired, |_| Field::new("fired".into(), fired_dtype(), true));

fn findrs_fired(inputs: &[Input], kwargs: ModelKwargs) -> PolarsResult<Output> {
    let m = model(&kwargs)?;
    let (offsets, ids) = with_codes(inputs, &kwargs, m.schema(), |d| m.fired(d))?;
    let offsets: Vec<i64> = offsets.into_iter().map(|o| o as i64).collect();
    let offsets = OffsetsBuffer::try_from(offsets)?;
    let list = ListArray::<i64>::try_new(fired_dtype(), offsets, PrimitiveArray::from_vec(ids).boxed(), None)?;
    Ok(Output { name: name_of(inputs), array: list.boxed() })
}

plugin_function!(_polars_plugin_findrs_class, _polars_plugin_field_findrs_class, findrs_class, |name| Field::new(name, ArrowDataType::UInt32, true));

/// A multiclass model's class of each row (an index into the model's classes,
/// docs/semantics.md §10).
fn findrs_class(inputs: &[Input], kwargs: ModelKwargs) -> PolarsResult<Output> {
    let m = multiclass(&kwargs)?;
    let classes = with_codes(inputs, &kwargs, m.schema(), |d| m.predict(d))?;
    Ok(Output { name: name_of(inputs), array: PrimitiveArray::from_vec(classes).boxed() })
}
