//! `ModelState`: the plain-data form of a core model (what `CoreModel(...)` takes, and the JSON
//! the expression plugin receives in its kwargs). One construction path: every model that
//! Python or the plugin builds goes through `ModelState::into_model`, which validates it.
//! Python passes the rules as constraints; the plugin's JSON carries them as hex slot bitsets,
//! which are several times smaller (every streaming batch decodes the kwargs again).

use findrs_core::model::{Method, RuleModel};
use findrs_core::rule::Rule;
use findrs_core::bitset::words_for;
use findrs_core::schema::{ConstraintKind, Schema};
use findrs_core::{FindRsError, Result};
use serde::{Deserialize, Serialize};

/// A rule: its constraints as (feature index, allowed training codes), constrained features only.
pub type Constraints = Vec<(usize, Vec<u32>)>;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModelState {
    pub domain_sizes: Vec<u32>,
    pub kinds: Vec<String>,
    pub method: String,
    /// The rules as constraints (empty when `rule_bits` holds them).
    #[serde(default)]
    pub rules: Vec<Constraints>,
    /// The rules as slot bitsets: per rule, `words_for(n_slots)` words of 16 hex digits.
    #[serde(default)]
    pub rule_bits: String,
    pub weights: Vec<u32>,
    pub runs: Vec<Vec<u32>>,
    pub n_runs: u32,
    pub n_kept: usize,
    pub total_weight: u64,
}

impl ModelState {
    /// The state of `m`; with `voting_only`, a BP model keeps just its top-K rules (what
    /// prediction needs: the total weight that sets the threshold is kept as a number).
    pub fn from_model(m: &RuleModel, voting_only: bool) -> Self {
        let n = if voting_only && m.method == Method::Bp { m.n_kept } else { m.rules.len() };
        Self {
            domain_sizes: m.schema.domain_sizes().to_vec(),
            kinds: m.schema.kinds().iter().map(|k| k.name().to_string()).collect(),
            method: m.method.name().to_string(),
            rules: Vec::new(),
            rule_bits: m.rules[..n]
                .iter()
                .flat_map(|r| r.allowed().iter().map(|w| format!("{w:016x}")))
                .collect(),
            weights: m.weights[..n].to_vec(),
            runs: m.runs.clone(),
            n_runs: m.n_runs,
            n_kept: m.n_kept,
            total_weight: m.total_weight,
        }
    }

    pub fn into_model(self) -> Result<RuleModel> {
        let kinds = self
            .kinds
            .iter()
            .map(|k| ConstraintKind::parse(k))
            .collect::<Result<Vec<_>>>()?;
        let schema = Schema::new(self.domain_sizes, kinds)?;
        let method = Method::parse(&self.method)?;
        let rules = if self.rule_bits.is_empty() {
            self.rules
                .iter()
                .map(|c| Rule::from_constraints(&schema, c))
                .collect::<Result<Vec<_>>>()?
        } else {
            if !self.rules.is_empty() {
                return Err(FindRsError::InvalidData(
                    "a model state has both rules and rule bits".into(),
                ));
            }
            rules_from_hex(&schema, &self.rule_bits)?
        };
        let m = RuleModel {
            schema,
            method,
            rules,
            weights: self.weights,
            runs: self.runs,
            n_runs: self.n_runs,
            n_kept: self.n_kept,
            total_weight: self.total_weight,
        };
        m.validate()?;
        Ok(m)
    }

    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| FindRsError::InvalidData(format!("bad model state: {e}")))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a model state always serializes")
    }
}

/// Rules from their hex slot bitsets (see `ModelState::rule_bits`).
fn rules_from_hex(schema: &Schema, hex: &str) -> Result<Vec<Rule>> {
    let per_rule = words_for(schema.n_slots()) * 16;
    let bad = || FindRsError::InvalidData("bad rule bits in a model state".into());
    if !hex.is_ascii() || hex.len() % per_rule != 0 {
        return Err(bad());
    }
    hex.as_bytes()
        .chunks(per_rule)
        .map(|rule| {
            let words = rule
                .chunks(16)
                .map(|w| {
                    std::str::from_utf8(w)
                        .ok()
                        .and_then(|t| u64::from_str_radix(t, 16).ok())
                        .ok_or_else(bad)
                })
                .collect::<Result<Vec<u64>>>()?;
            Rule::from_words(schema, words)
        })
        .collect()
}
