//! `ModelState`: the plain-data form of a core model (what `CoreModel(...)` takes, and the JSON
//! the expression plugin receives in its kwargs). One construction path: every model that
//! Python or the plugin builds goes through `ModelState::into_model`, which validates it.

use findrs_core::model::{Method, RuleModel};
use findrs_core::rule::Rule;
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
    pub rules: Vec<Constraints>,
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
            rules: m.rules[..n].iter().map(|r| r.constraints(&m.schema)).collect(),
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
        let rules = self
            .rules
            .iter()
            .map(|c| Rule::from_constraints(&schema, c))
            .collect::<Result<Vec<_>>>()?;
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
