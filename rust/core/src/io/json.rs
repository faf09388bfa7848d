//! The model's JSON form, format version 2: the one serialization of a [`RuleModel`] (model
//! files, pickles and the Polars plugin's kwargs all use it).
//!
//! A *document* is one JSON object: `"format": "findrs-model"`, `"version": 2`, any sections its
//! writer adds (the Python package adds `target`, `features`, `params` and `training`; they are
//! kept as raw JSON text, checked only for being JSON, and handed back as they were), and
//! `"model"`, which this module reads and writes:
//!
//! ```json
//! "model": {
//!   "method": "bp", "T": 100,
//!   "schema": {"domains": [3, 3], "kinds": ["av", "av"]},
//!   "constraints": [{"feature": 0, "codes": [2], "text": "a1 = x"}, ...],
//!   "rule_sets": [{
//!     "n_rules": 2,
//!     "rules": [{"weight": 31, "constraints": [0, 4], "train_positives": 40, "train_negatives": 0}, ...],
//!     "runs": [[0, 1], ...],
//!     "curve": [301, 330, ...]
//!   }]
//! }
//! ```
//!
//! `constraints` is the table of the distinct constraints of the rules
//! ([`ConstraintTable`]): a feature (index into `schema`) and its allowed training codes;
//! `text`, when present, is the constraint as the writer reads it (ignored when loading). A rule
//! is its weight, its constraints as ids into the table, and the training rows of each class
//! it covers; rules are in model order (rule `i` is id `i`). `n_rules` is K; `runs` (BO only)
//! each run's rule ids; `curve` (BP only) the training rows classified correctly by the top
//! `k + 1` rules; `total_weight` appears only in a voting-only copy (the plugin's), which lacks
//! the rules past K; `"dnf": true` marks the rules of a BO or BP fit that a rule budget chose
//! and that vote as a DNF (docs/semantics.md §8; absent otherwise). Every model read goes through [`RuleModel::new`], so a file is checked
//! as thoroughly as a fitted model.
//!
//! A multiclass model ([`MulticlassModel`], docs/semantics.md §10) writes one rule set per
//! class set, in combination order, each naming its class (`"class": 2`), and a `combine`
//! object before them: `{"rule": "one-vs-rest" | "rarest-first" | "frequent-first", "classes": 4,
//! "default": 0}`
//! (`default` only for a decision list). One constraint table serves every set. A binary model
//! writes neither field, so its text is as before; each set is read as a binary model and the
//! whole through [`MulticlassModel::new`].
//!
//! Layout: the text is indented for reading; arrays of numbers or strings stay on one line
//! (numbers separated by a bare comma: a big model's rules are mostly constraint ids), and each
//! element of an array of objects (a constraint, a rule, a feature) gets its own line, except
//! rule sets, which are spread out like the document.
//!
//! Invariant: [`read_document`] of [`write_document`]'s text gives back an equal model and the
//! same sections ([`read_any_document`] of [`write_multiclass_document`]'s likewise).

use crate::predict::constraints::ConstraintTable;
use crate::data::error::{FindRsError, Result};
use crate::predict::model::{Method, RuleModel, RuleSet, RuleSetParts};
use crate::learn::multiclass::{Combine, MulticlassModel};
use crate::data::schema::{ConstraintKind, Schema};
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use std::fmt;

/// The `format` field of every findrs model document.
pub const FORMAT: &str = "findrs-model";
/// The format version this module writes and reads.
pub const FORMAT_VERSION: u32 = 2;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelJson {
    method: String,
    #[serde(rename = "T")]
    n_runs: u32,
    schema: SchemaJson,
    constraints: Vec<ConstraintJson>,
    /// A multiclass model: how its rule sets combine (absent for a binary model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    combine: Option<CombineJson>,
    rule_sets: Vec<RuleSetJson>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CombineJson {
    rule: String,
    classes: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default: Option<u32>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SchemaJson {
    domains: Vec<u32>,
    kinds: Vec<String>,
    /// Per feature, whether an interval feature held null in training (only with intervals).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    null_seen: Vec<bool>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConstraintJson {
    feature: usize,
    codes: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSetJson {
    /// A multiclass model: the class the set describes (absent for a binary model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    class: Option<u32>,
    n_rules: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    total_weight: Option<u64>,
    rules: Vec<RuleJson>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    runs: Vec<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    curve: Vec<u32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    dnf: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleJson {
    weight: u32,
    constraints: Vec<u32>,
    train_positives: u32,
    train_negatives: u32,
}

fn invalid(what: &str, e: impl fmt::Display) -> FindRsError {
    FindRsError::InvalidData(format!("{what}: {e}"))
}

fn model_json(model: &RuleModel, texts: Option<&[String]>) -> Result<ModelJson> {
    let sets: Vec<&RuleSet> = model.rule_sets().iter().collect();
    sets_json(model.schema(), model.method(), model.n_runs(), &sets, texts)
}

fn multiclass_json(model: &MulticlassModel, texts: Option<&[String]>) -> Result<ModelJson> {
    let sets: Vec<&RuleSet> = model.sets().iter().map(|s| s.rule_set()).collect();
    let mut m = sets_json(model.schema(), model.method(), model.n_runs(), &sets, texts)?;
    m.combine = Some(CombineJson {
        rule: model.combine().name().to_string(),
        classes: model.n_classes(),
        default: model.default_class(),
    });
    for (s, &c) in m.rule_sets.iter_mut().zip(model.set_classes()) {
        s.class = Some(c);
    }
    Ok(m)
}

fn sets_json(schema: &Schema, method: Method, n_runs: u32, sets: &[&RuleSet], texts: Option<&[String]>) -> Result<ModelJson> {
    let mut rule_sets = Vec::with_capacity(sets.len());
    // One table for the constraints of every set.
    let all: Vec<_> = sets.iter().flat_map(|s| s.rules().iter().cloned()).collect();
    let table = ConstraintTable::of_rules(schema, &all);
    if let Some(t) = texts {
        if t.len() != table.constraints.len() {
            return Err(FindRsError::InvalidParameter(format!(
                "{} constraint texts for {} constraints",
                t.len(),
                table.constraints.len()
            )));
        }
    }
    let mut at = 0usize;
    for set in sets {
        let rules = (0..set.rules().len())
            .map(|i| RuleJson {
                weight: set.weights()[i],
                constraints: table.rule(at + i).to_vec(),
                train_positives: set.train_positives()[i],
                train_negatives: set.train_negatives()[i],
            })
            .collect();
        at += set.rules().len();
        rule_sets.push(RuleSetJson {
            class: None,
            n_rules: set.n_kept(),
            total_weight: (!set.is_complete()).then_some(set.total_weight()),
            rules,
            runs: set.runs().to_vec(),
            curve: set.curve().to_vec(),
            dnf: set.is_dnf(),
        });
    }
    Ok(ModelJson {
        method: method.name().to_string(),
        n_runs,
        schema: SchemaJson {
            domains: schema.domain_sizes().to_vec(),
            kinds: schema.kinds().iter().map(|k| k.name().to_string()).collect(),
            null_seen: if schema.has_intervals() { schema.null_seen_flags().to_vec() } else { Vec::new() },
        },
        constraints: table
            .constraints
            .into_iter()
            .enumerate()
            .map(|(i, c)| ConstraintJson {
                feature: c.feature,
                codes: c.codes,
                text: texts.map(|t| t[i].clone()),
            })
            .collect(),
        combine: None,
        rule_sets,
    })
}

/// The most bytes a model read from JSON may take for its schemas and rules (2 GiB).
const MAX_LOAD_BYTES: u64 = 1 << 31;

/// Bounds every size a `"model"` section gives before anything sized by it is allocated (a
/// corrupt domain of `u32::MAX` made the schema allocate 16 GiB, and the process aborted). In a
/// whole document (`document_len`: its length), the AV and OH domains count training values
/// its `features` section lists, so together they are at most its length; in any text, the
/// schemas (one per rule set) and the rules (one bitset per rule and per constraint, as wide as
/// the domains make it) fit in [`MAX_LOAD_BYTES`]. The counts themselves (rules, constraints,
/// runs, rule sets) are lists the text holds; K, T, weights and classes are checked against
/// them before they size anything ([`RuleModel::new`], [`MulticlassModel::new`]).
fn check_sizes(m: &ModelJson, document_len: Option<usize>) -> Result<()> {
    let bad = |s: String| Err(FindRsError::InvalidData(s));
    let slot_features = m.schema.kinds.iter().filter(|k| k.as_str() != "interval").count() as u64;
    let values: u64 = m
        .schema
        .domains
        .iter()
        .zip(&m.schema.kinds)
        .filter(|(_, k)| k.as_str() != "interval")
        .map(|(&d, _)| d as u64)
        .sum();
    if let Some(len) = document_len {
        if values > len as u64 {
            return bad(format!(
                "the schema's domains hold {values} training values, more than a document of {len} characters lists"
            ));
        }
    }
    let n_slots = values + slot_features;
    if n_slots > crate::data::schema::MAX_SLOTS {
        return bad(format!("the schema's domains make {n_slots} slots, more than {}", crate::data::schema::MAX_SLOTS));
    }
    let n_features = m.schema.domains.len() as u64;
    let intervals = n_features - slot_features.min(n_features);
    let rule_bytes = 8 * (n_slots.div_ceil(64) + intervals);
    let rules = m.constraints.len() as u64 + m.rule_sets.iter().map(|s| s.rules.len() as u64).sum::<u64>();
    let schemas = (m.rule_sets.len() as u64).max(1) * (4 * n_slots + 32 * n_features);
    let bytes = rules.saturating_mul(rule_bytes).saturating_add(schemas);
    if bytes > MAX_LOAD_BYTES {
        return bad(format!(
            "{rules} rules and constraints over {n_slots} slots would take {bytes} bytes, more than {MAX_LOAD_BYTES}"
        ));
    }
    Ok(())
}

/// The model a `"model"` section describes: binary, or multiclass when it has `combine`.
fn any_model_of(m: ModelJson) -> Result<AnyModel> {
    let Some(combine) = m.combine.as_ref() else {
        if m.rule_sets.iter().any(|s| s.class.is_some()) {
            return Err(FindRsError::InvalidData("a rule set names a class but the model has no \"combine\"".into()));
        }
        return model_of(m).map(AnyModel::Binary);
    };
    let rule = Combine::parse(&combine.rule).map_err(|e| FindRsError::InvalidData(e.to_string()))?;
    let (n_classes, default) = (combine.classes, combine.default);
    let set_class = m
        .rule_sets
        .iter()
        .map(|s| s.class.ok_or_else(|| FindRsError::InvalidData("every rule set of a multiclass model names its class".into())))
        .collect::<Result<Vec<u32>>>()?;
    let (schema, method, n_runs, sets) = parts_of(m)?;
    let sets = sets
        .into_iter()
        .map(|p| RuleModel::new(schema.clone(), method, n_runs, vec![p]))
        .collect::<Result<Vec<_>>>()?;
    MulticlassModel::new(n_classes, rule, set_class, sets, default).map(AnyModel::Multiclass)
}

fn model_of(m: ModelJson) -> Result<RuleModel> {
    if let Some(c) = &m.combine {
        return Err(FindRsError::InvalidData(format!(
            "this findrs model is multiclass ({} classes), not binary",
            c.classes
        )));
    }
    let (schema, method, n_runs, sets) = parts_of(m)?;
    RuleModel::new(schema, method, n_runs, sets)
}

fn parts_of(m: ModelJson) -> Result<(Schema, Method, u32, Vec<RuleSetParts>)> {
    let method = Method::parse(&m.method)?;
    if m.schema.domains.len() != m.schema.kinds.len() {
        return Err(FindRsError::InvalidData(format!(
            "the schema lists {} domains but {} kinds",
            m.schema.domains.len(),
            m.schema.kinds.len()
        )));
    }
    let kinds = m
        .schema
        .kinds
        .iter()
        .map(|k| ConstraintKind::parse(k).map_err(|e| FindRsError::InvalidData(e.to_string())))
        .collect::<Result<Vec<_>>>()?;
    let schema = if m.schema.null_seen.is_empty() {
        Schema::new(m.schema.domains, kinds)?
    } else {
        Schema::with_nulls(m.schema.domains, kinds, m.schema.null_seen)?
    };
    let constraints: Vec<(usize, Vec<u32>)> = m.constraints.into_iter().map(|c| (c.feature, c.codes)).collect();
    let mut sets = Vec::with_capacity(m.rule_sets.len());
    for s in m.rule_sets {
        let ids: Vec<&[u32]> = s.rules.iter().map(|r| r.constraints.as_slice()).collect();
        let rules = ConstraintTable::rules(&schema, &constraints, &ids)?;
        sets.push(RuleSetParts {
            rules,
            weights: s.rules.iter().map(|r| r.weight).collect(),
            runs: s.runs,
            n_kept: s.n_rules,
            total_weight: s.total_weight,
            train_positives: s.rules.iter().map(|r| r.train_positives).collect(),
            train_negatives: s.rules.iter().map(|r| r.train_negatives).collect(),
            curve: s.curve,
            dnf: s.dnf,
        });
    }
    Ok((schema, method, m.n_runs, sets))
}

/// The `"model"` section of `model` alone, as compact JSON (what the plugin's kwargs carry).
pub fn model_to_json(model: &RuleModel) -> String {
    let m = model_json(model, None).expect("no texts to check");
    serde_json::to_string(&m).expect("a model always serializes")
}

/// A model from [`model_to_json`]'s text, checked as [`RuleModel::new`] checks.
pub fn model_from_json(text: &str) -> Result<RuleModel> {
    let m: ModelJson = serde_json::from_str(text).map_err(|e| invalid("bad findrs model JSON", e))?;
    check_sizes(&m, None)?;
    model_of(m)
}

/// The `"model"` section of a multiclass model alone, as compact JSON.
pub fn multiclass_to_json(model: &MulticlassModel) -> String {
    let m = multiclass_json(model, None).expect("no texts to check");
    serde_json::to_string(&m).expect("a model always serializes")
}

/// A binary or multiclass model from [`model_to_json`]'s or [`multiclass_to_json`]'s text.
pub fn any_model_from_json(text: &str) -> Result<AnyModel> {
    let m: ModelJson = serde_json::from_str(text).map_err(|e| invalid("bad findrs model JSON", e))?;
    check_sizes(&m, None)?;
    any_model_of(m)
}

/// A model of either kind, as a document holds it.
#[derive(Clone, Debug)]
pub enum AnyModel {
    Binary(RuleModel),
    Multiclass(MulticlassModel),
}

/// A whole document (see the module docs): `sections` are `(name, JSON text)` pairs written in
/// order between `version` and `model`; `texts`, when given, one text per distinct constraint
/// (in the order of [`ConstraintTable::of_rules`] over all rules of all sets).
pub fn write_document(model: &RuleModel, sections: &[(&str, &str)], texts: Option<&[String]>) -> Result<String> {
    document(sections, model_json(model, texts)?)
}

/// [`write_document`] of a multiclass model: its rule sets in combination order, each naming
/// its class, and `combine`.
pub fn write_multiclass_document(
    model: &MulticlassModel,
    sections: &[(&str, &str)],
    texts: Option<&[String]>,
) -> Result<String> {
    document(sections, multiclass_json(model, texts)?)
}

fn document(sections: &[(&str, &str)], m: ModelJson) -> Result<String> {
    let mut out = String::new();
    out.push_str(&format!("{{\"format\":\"{FORMAT}\",\"version\":{FORMAT_VERSION}"));
    for (name, text) in sections {
        if matches!(*name, "format" | "version" | "model") {
            return Err(FindRsError::InvalidParameter(format!("{name:?} is not a section name")));
        }
        let raw = RawValue::from_string(text.to_string())
            .map_err(|e| FindRsError::InvalidParameter(format!("section {name:?} is not JSON: {e}")))?;
        out.push(',');
        out.push_str(&serde_json::to_string(name).expect("a string serializes"));
        out.push(':');
        out.push_str(raw.get());
    }
    out.push_str(",\"model\":");
    out.push_str(&serde_json::to_string(&m).expect("a model always serializes"));
    out.push('}');
    Ok(layout(&out))
}

/// The model and the other sections (in file order, `format` and `version` left out) of a
/// document; an error says what is wrong (not a findrs model, another version, which field).
/// A multiclass document is refused: read it with [`read_any_document`].
pub fn read_document(text: &str) -> Result<(RuleModel, Vec<(String, String)>)> {
    match read_any_document(text)? {
        (AnyModel::Binary(m), sections) => Ok((m, sections)),
        (AnyModel::Multiclass(m), _) => Err(FindRsError::InvalidData(format!(
            "this findrs model is multiclass ({} classes), not binary",
            m.n_classes()
        ))),
    }
}

/// [`read_document`] for a binary or multiclass document.
pub fn read_any_document(text: &str) -> Result<(AnyModel, Vec<(String, String)>)> {
    let top: Entries = serde_json::from_str(text).map_err(|e| invalid("not a findrs model: invalid JSON", e))?;
    let get = |name: &str| top.0.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
    let format: Option<String> = get("format").and_then(|v| serde_json::from_str(v.get()).ok());
    if format.as_deref() != Some(FORMAT) {
        return Err(FindRsError::InvalidData(format!(
            "not a findrs model: the \"format\" field is not \"{FORMAT}\""
        )));
    }
    let version = get("version").map(|v| v.get().to_string()).unwrap_or_else(|| "missing".into());
    if version != FORMAT_VERSION.to_string() {
        return Err(FindRsError::InvalidData(format!(
            "findrs model format version {version} is not supported here (this reads version {FORMAT_VERSION})"
        )));
    }
    let model = get("model").ok_or_else(|| FindRsError::InvalidData("the findrs model has no \"model\" section".into()))?;
    let m: ModelJson = serde_json::from_str(model.get()).map_err(|e| invalid("the \"model\" section is malformed", e))?;
    check_sizes(&m, Some(text.len()))?;
    let model = any_model_of(m)?;
    let sections = top
        .0
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "format" | "version" | "model"))
        .map(|(k, v)| (k.clone(), v.get().to_string()))
        .collect();
    Ok((model, sections))
}

/// A JSON object's entries, in order, values as raw text; a repeated key is an error.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
                let mut out: Vec<(String, &'a RawValue)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, &'a RawValue>()? {
                    if out.iter().any(|(e, _)| *e == k) {
                        return Err(serde::de::Error::custom(format!("the field {k:?} appears twice")));
                    }
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Arrays whose object elements are spread out like the document (see the module docs).
const SPREAD_ITEMS: &[&str] = &["rule_sets"];

/// Re-indents JSON text (see the module docs): objects spread one entry a line, arrays of
/// scalars on one line, arrays of containers one element a line, each element on one line
/// unless it is an object in a [`SPREAD_ITEMS`] array.
fn layout(text: &str) -> String {
    struct Frame {
        inline: bool,
        /// An inline array of numbers: elements separated by a bare comma.
        numbers: bool,
        spread_items: bool,
        empty: bool,
        is_object: bool,
        key: String,
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut stack: Vec<Frame> = Vec::new();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        (0..depth).for_each(|_| out.push_str("  "));
    };
    let next_non_space = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        b.get(j).copied()
    };
    let mut i = 0;
    // The key most recently read in the current object.
    let mut last_key = String::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => {
                let start = i;
                i += 1;
                while b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let s = &text[start..=i];
                out.push_str(s);
                if stack.last().is_some_and(|f| f.is_object) && next_non_space(i + 1) == Some(b':') {
                    last_key = s[1..s.len() - 1].to_string();
                }
            }
            b'{' | b'[' => {
                let is_object = c == b'{';
                let parent = stack.last();
                let in_array = parent.is_some_and(|p| !p.is_object);
                let inline = match parent {
                    Some(p) if p.inline => true,
                    Some(p) if !p.is_object => !(is_object && p.spread_items),
                    _ => {
                        // In an object (or at the top): objects spread, arrays only when they
                        // hold containers.
                        !is_object && !matches!(next_non_space(i + 1), Some(b'{') | Some(b'['))
                    }
                };
                if in_array && !parent.is_some_and(|p| p.inline) {
                    newline(&mut out, stack.len());
                }
                let key = if parent.is_some_and(|p| p.is_object) { last_key.clone() } else { String::new() };
                out.push(c as char);
                stack.push(Frame {
                    inline,
                    numbers: !is_object && matches!(next_non_space(i + 1), Some(b'0'..=b'9') | Some(b'-')),
                    spread_items: !is_object && SPREAD_ITEMS.contains(&key.as_str()),
                    empty: matches!(next_non_space(i + 1), Some(b'}') | Some(b']')),
                    is_object,
                    key,
                });
                if is_object && !inline && !stack.last().is_some_and(|f| f.empty) {
                    newline(&mut out, stack.len());
                }
            }
            b'}' | b']' => {
                let f = stack.pop().expect("balanced JSON");
                if !f.inline && !f.empty {
                    newline(&mut out, stack.len());
                }
                out.push(c as char);
                let _ = f.key;
            }
            b',' => {
                out.push(',');
                let f = stack.last().expect("a comma inside a container");
                if f.inline {
                    if !f.numbers {
                        out.push(' ');
                    }
                } else if f.is_object {
                    newline(&mut out, stack.len());
                }
            }
            b':' => out.push_str(": "),
            c if c.is_ascii_whitespace() => {}
            _ => {
                let start = i;
                while i + 1 < b.len() && !matches!(b[i + 1], b',' | b'}' | b']' | b':') && !b[i + 1].is_ascii_whitespace() {
                    i += 1;
                }
                out.push_str(&text[start..=i]);
            }
        }
        i += 1;
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::model::tests::model;

    #[test]
    fn documents_round_trip_with_their_sections() {
        for method in [Method::FindRs, Method::Bo, Method::Bp] {
            let m = model(method);
            let texts = vec!["a = y".to_string(), "b not in {q}".to_string()];
            let sections = [("target", r#"{"column": "y", "positive": true}"#), ("features", "[1, [2, 3], {}]")];
            let text = write_document(&m, &sections, Some(&texts)).unwrap();
            let (back, got) = read_document(&text).unwrap();
            assert_eq!(json_of(&back), json_of(&m));
            assert_eq!(got.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), vec!["target", "features"]);
            for ((_, sent), (_, back)) in sections.iter().zip(&got) {
                let sent: serde_json::Value = serde_json::from_str(sent).unwrap();
                assert_eq!(serde_json::from_str::<serde_json::Value>(back).unwrap(), sent);
            }
            let plugin = model_to_json(&m.voting_only());
            assert_eq!(json_of(&model_from_json(&plugin).unwrap()), json_of(&m.voting_only()));
        }
    }

    fn json_of(m: &RuleModel) -> String {
        model_to_json(m)
    }

    /// Models over interval features (with and without null, AV and OH beside) round-trip
    /// and predict the same on rows in every gap, beyond both ends and null.
    #[test]
    fn interval_models_round_trip() {
        use crate::data::columns::Columns;
        use crate::learn::run::interval_tests::{av, iv, mixed_schema, oh, random_rows, random_rule};
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let schema = mixed_schema(&[iv(6, true), av(3), iv(90, false), oh(4)]);
        let rules: Vec<_> = (0..40).map(|_| random_rule(&mut rng, &schema, 0.4)).collect();
        let n = rules.len();
        let parts = RuleSetParts {
            rules,
            weights: (0..n as u32).map(|i| 5 - i % 5).collect(),
            n_kept: n - 7,
            train_positives: vec![1; n],
            train_negatives: vec![0; n],
            ..Default::default()
        };
        let m = RuleModel::new(schema.clone(), Method::Bp, 5, vec![parts]).unwrap();
        let text = write_document(&m, &[], None).unwrap();
        assert!(text.contains("\"null_seen\": [true, false, false, false]"), "{text}");
        let (back, _) = read_document(&text).unwrap();
        assert_eq!(model_to_json(&back), model_to_json(&m));
        let cols = random_rows(&mut rng, &schema, 500);
        let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        assert_eq!(back.votes(&data), m.votes(&data));
        let plugin = model_from_json(&model_to_json(&m.voting_only())).unwrap();
        assert_eq!(plugin.votes(&data), m.votes(&data));
    }

    /// Multiclass documents of both combinations round-trip, predict the same (also as the
    /// plugin's voting-only copy), and are refused where a binary model is expected; binary
    /// documents carry neither `combine` nor `class`.
    #[test]
    fn multiclass_documents_round_trip() {
        use crate::data::columns::Columns;
        use crate::learn::ensemble::Progress;
        use crate::learn::fit::{FitOptions, RuleCount};
        use crate::learn::multiclass::fit_multiclass;
        let schema = Schema::uniform(vec![3, 3, 2], ConstraintKind::OneHot).unwrap();
        let a: Vec<u32> = (0..90).map(|i| i % 3).collect();
        let b: Vec<u32> = (0..90).map(|i| (i / 3) % 3).collect();
        let c: Vec<u32> = (0..90).map(|i| (i / 9) % 2).collect();
        let classes: Vec<u32> = (0..90).map(|i| ((a[i] + b[i] + c[i]) % 4).min(2)).collect();
        let data = Columns::new(&schema, vec![&a, &b, &c]).unwrap();
        for method in [Method::FindRs, Method::Bo, Method::Bp] {
            for combine in [Combine::OneVsRest, Combine::RarestFirst, Combine::FrequentFirst] {
                let options = FitOptions {
                    method,
                    tolerance: 1,
                    n_runs: if method == Method::FindRs { 1 } else { 5 },
                    seed: 4,
                    shuffle: true,
                    n_rules: RuleCount::Auto { accuracy_ratio: 0.9 },
                    ..FitOptions::default()
                };
                let m = fit_multiclass(schema.clone(), &data, &classes, 3, combine, &options, &Progress::default())
                    .unwrap()
                    .model;
                let text = write_multiclass_document(&m, &[("target", "{}")], None).unwrap();
                assert!(text.contains(&format!("\"rule\": \"{}\"", combine.name())), "{text}");
                assert!(text.contains("\"class\": "), "{text}");
                let (back, sections) = read_any_document(&text).unwrap();
                assert_eq!(sections.len(), 1);
                let AnyModel::Multiclass(back) = back else { panic!("a multiclass model") };
                assert_eq!(multiclass_to_json(&back), multiclass_to_json(&m));
                assert_eq!(back.predict(&data), m.predict(&data));
                let AnyModel::Multiclass(plugin) = any_model_from_json(&multiclass_to_json(&m.voting_only())).unwrap() else {
                    panic!("a multiclass model")
                };
                assert_eq!(plugin.predict(&data), m.predict(&data));
                assert!(read_document(&text).unwrap_err().to_string().contains("multiclass (3 classes)"));
                assert!(model_from_json(&multiclass_to_json(&m)).unwrap_err().to_string().contains("multiclass"));
                // A class without combine, combine without classes, a bad rule, a wrong default.
                let cases: Vec<(String, &str)> = vec![
                    (text.replacen("\"combine\"", "\"x\"", 1), "unknown field"),
                    (text.replace(&format!("\"rule\": \"{}\"", combine.name()), "\"rule\": \"vote\""), "multiclass must be"),
                    (text.replacen("\"class\": ", "\"klass\": ", 1), "unknown field"),
                    (text.replace("\"classes\": 3", "\"classes\": 7"), "rule sets"),
                ];
                for (bad, needle) in cases {
                    let err = read_any_document(&bad).unwrap_err().to_string();
                    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
                }
            }
        }
        let binary = write_document(&model(Method::Bp), &[], None).unwrap();
        assert!(!binary.contains("combine") && !binary.contains("\"class\""), "{binary}");
        let tagged = binary.replace("\"n_rules\": 2", "\"class\": 0, \"n_rules\": 2");
        assert!(read_any_document(&tagged).unwrap_err().to_string().contains("no \"combine\""));
    }

    #[test]
    fn layout_is_readable_and_the_same_json() {
        let m = model(Method::Bo);
        let text = write_document(&m, &[("features", r#"[{"name": "a", "values": ["x", "y"]}, {"name": "b"}]"#)], None).unwrap();
        let plain: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(plain["model"]["rule_sets"][0]["runs"], serde_json::json!([[0], [1], [0, 1]]));
        assert!(text.contains("\n  \"features\": [\n    {\"name\": \"a\", \"values\": [\"x\", \"y\"]},\n    {\"name\": \"b\"}\n  ],"), "{text}");
        assert!(text.contains("\n        \"rules\": [\n          {\"weight\": 2, \"constraints\": [0], \"train_positives\": 0, \"train_negatives\": 0},"), "{text}");
        assert!(text.contains("\"domains\": [2,3],"), "{text}");
        assert!(text.contains("\"kinds\": [\"oh\", \"oh\"]"), "{text}");
        assert_eq!(layout("{\"a\":{},\"b\":[],\"c\":\"x,\\\"}\"}"), "{\n  \"a\": {},\n  \"b\": [],\n  \"c\": \"x,\\\"}\"\n}\n");
    }

    /// Sizes no document can justify are refused before they allocate (a domain of u32::MAX
    /// made the schema allocate 16 GiB and the process abort).
    #[test]
    fn corrupt_sizes_are_refused_before_they_allocate() {
        let good = write_document(&model(Method::Bp), &[], None).unwrap();
        assert!(good.contains("\"domains\": [2,3]"), "{good}");
        for (domains, needle) in [
            ("[4294967295,3]", "more than a document of"),
            ("[2,4294967295]", "more than a document of"),
            ("[2147483648,2147483648]", "more than a document of"),
        ] {
            let bad = good.replace("\"domains\": [2,3]", &format!("\"domains\": {domains}"));
            let err = read_document(&bad).unwrap_err().to_string();
            assert!(err.contains(needle), "{err:?} lacks {needle:?}");
        }
        // The plugin's text lists no values: the fixed bounds hold there.
        let plugin = model_to_json(&model(Method::Bp));
        let bad = plugin.replace("\"domains\":[2,3]", "\"domains\":[4294967295,3]");
        assert!(model_from_json(&bad).unwrap_err().to_string().contains("slots, more than"));
        let wide = plugin.replace("\"domains\":[2,3]", "\"domains\":[268000000,3]");
        let rules: Vec<String> = (0..100).map(|_| r#"{"weight":1,"constraints":[],"train_positives":0,"train_negatives":0}"#.to_string()).collect();
        let many = wide.replacen("\"rules\":[", &format!("\"rules\":[{},", rules.join(",")), 1);
        assert!(model_from_json(&many).unwrap_err().to_string().contains("bytes, more than"));
        // Out-of-range and negative numbers are refused by the parser.
        for bad in ["\"T\": 4294967296", "\"T\": -1", "\"T\": 1e300"] {
            assert!(read_document(&good.replace("\"T\": 3", bad)).is_err());
        }
    }

    #[test]
    fn bad_documents_say_what_is_wrong() {
        let m = model(Method::Bp);
        let good = write_document(&m, &[], None).unwrap();
        let cases: Vec<(String, &str)> = vec![
            ("[1]".into(), "invalid JSON"),
            (good.replace("findrs-model", "other"), "not a findrs model"),
            (good.replace("\"version\": 2", "\"version\": 1"), "version 1 is not supported"),
            (good.replace("\"method\": \"bp\"", "\"method\": \"xx\""), "method must be"),
            (good.replace("\"weight\": 3", "\"weight\": 4"), "from 1 to T = 3"),
            (good.replace("\"weight\": 3", "\"weight\": \"3\""), "malformed"),
            (good.replace("\"n_rules\": 2", "\"n_rules\": 0"), "from 1 to 2"),
            (good.replace("\"kinds\": [\"oh\", \"oh\"]", "\"kinds\": [\"oh\", \"zz\"]"), "encoding must be"),
            (good.replace("\"constraints\": [1]", "\"constraints\": [7]"), "constraint 7"),
            (good.replace("\"T\": 3", "\"T\": 3, \"extra\": 1"), "unknown field"),
            (good.replace("\"version\": 2,", "\"version\": 2, \"version\": 2,"), "appears twice"),
            (good.replace("\"domains\": [2,3]", "\"domains\": [2]"), "2 kinds"),
        ];
        for (text, needle) in cases {
            let err = read_document(&text).unwrap_err().to_string();
            assert!(err.contains(needle), "{err:?} lacks {needle:?}");
        }
        assert!(write_document(&m, &[("model", "1")], None).is_err());
        assert!(write_document(&m, &[("x", "{bad")], None).is_err());
        assert!(write_document(&m, &[], Some(&["only one".to_string()])).is_err());
    }
}
