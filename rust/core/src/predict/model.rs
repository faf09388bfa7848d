//! The fitted model: the one value that holds what a model is (its schema, rules, weights, runs,
//! K, T and training coverage) and decides rows with it (votes, threshold, decision value).
//! Every other piece reads it: the bindings hold one, the Polars plugin and the JSON form are
//! built from it and back through [`RuleModel::new`], and exporters print its public view
//! ([`RuleModel::vote_groups`], [`RuleSet::constraints`], [`RuleModel::decision_scale`]).
//!
//! How rows are decided (docs/semantics.md §5, §6): the *votes* of a row are an integer
//! (`u64`), and the row is positive iff its votes exceed the integer threshold:
//! - FIND-RS: 1 if some rule covers the row, else 0; threshold 0;
//! - BO: the number of runs whose rule set covers the row; threshold floor(T / 2);
//! - BP: the sum of the weights of the kept (top-K) rules covering the row; threshold
//!   floor(kept_weight * T / (2 * total_weight)) (gamma_K, [`threshold`](crate::predict::best_k::threshold));
//! - a *DNF* rule set (a rule budget's result from a BO or BP fit, docs/semantics.md §8) votes
//!   as FIND-RS does, whatever the method: 1 if some rule covers the row; threshold 0. Its
//!   weights are still the runs that found each rule, but they do not vote.
//!
//! The decision value is `votes / scale - offset` ([`RuleModel::decision_scale`]), positive
//! exactly where the row is positive. In every method the votes are a weighted count of
//! *groups* of which some rule covers the row ([`RuleModel::vote_groups`]): one group of all
//! rules (FIND-RS), one group per distinct run (BO), one group per rule (BP). Exporters print
//! that count against the threshold; none has a formula of its own.
//!
//! Invariant: a `RuleModel` has passed [`RuleModel::new`]'s checks (every way to build one goes
//! through it), so its parts agree with each other and with the method: K between 1 and the
//! number of rules, weights between 1 and T, BO weights equal to the number of runs holding the
//! rule, the total weight at least the kept weight. Its fields are private.
//!
//! Shape for what comes next. A model holds one [`RuleSet`] per described class. Today a model
//! is binary and holds exactly one set, describing the positive class. A binary model that
//! describes the negative class and negates (issue 12) adds a flag saying which class the set
//! describes. A multiclass model (issue 13) is not a `RuleModel` of several sets but a
//! [`MulticlassModel`](crate::learn::multiclass::MulticlassModel) of one binary `RuleModel` per class
//! set plus how they combine: each class set is exactly a binary model (its own rules, weights,
//! runs, K, threshold, decision scale and predictor), so this module's code serves every class
//! unchanged, with no set index threaded through it. A new kind of constraint (intervals on
//! ordered features) is a new [`ConstraintKind`](crate::data::schema::ConstraintKind) and lives in the
//! schema and the rules; the model only holds rules.

use crate::predict::best_k::{covered_rows, pruning_curve, threshold};
use crate::data::columns::Columns;
use crate::data::error::{FindRsError, Result};
use crate::predict::predictor::{Predictor, Tally};
use crate::data::row_index::RowIndex;
use crate::data::rule::Rule;
use crate::data::schema::Schema;
use std::sync::OnceLock;

/// The most runs a fit makes and a model may count (T): BP's accuracy at every K keeps a
/// counter per vote up to T / 2, and a weight is at most T.
pub const MAX_RUNS: u32 = 1_000_000;

/// How the runs of a fit make one model (docs/semantics.md §3, §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// One FIND-RS run: a rule set (a DNF).
    FindRs,
    /// FIND-RS-BO: the majority vote of T runs' rule sets.
    Bo,
    /// FIND-RS-BP: the distinct rules of T runs weighted by how many runs found them, the top K
    /// voting.
    Bp,
}

impl Method {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "find-rs" => Ok(Self::FindRs),
            "bo" => Ok(Self::Bo),
            "bp" => Ok(Self::Bp),
            other => Err(FindRsError::InvalidParameter(format!(
                "method must be 'find-rs', 'bo' or 'bp', got {other:?}"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::FindRs => "find-rs",
            Self::Bo => "bo",
            Self::Bp => "bp",
        }
    }
}

/// The plain parts of one rule set: what [`RuleModel::new`] checks and assembles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleSetParts {
    /// FIND-RS: the pruned rules in creation order; BO/BP: the distinct rules, heaviest first.
    pub rules: Vec<Rule>,
    /// Weight (alpha) of each rule: the number of runs that found it; 1 for FIND-RS.
    pub weights: Vec<u32>,
    /// BO: each run's rules (indices into `rules`); empty for the other methods.
    pub runs: Vec<Vec<u32>>,
    /// K: the first `n_kept` rules vote (BP); every rule for FIND-RS and BO.
    pub n_kept: usize,
    /// `None`: every rule found is in `rules`, and the total weight is the sum of `weights`.
    /// `Some(w)`: only the first rules are (a voting-only copy), and `w` is the total weight of
    /// all rules found (BP's gamma_K denominator).
    pub total_weight: Option<u64>,
    /// Training rows of the positive and of the negative class each rule covers.
    pub train_positives: Vec<u32>,
    pub train_negatives: Vec<u32>,
    /// BP: `curve[k]` is the number of training rows the top `k + 1` rules classify
    /// correctly; empty otherwise (or when unknown).
    pub curve: Vec<u32>,
    /// The rules vote as a DNF (positive when any holds) although the method is BO or BP: a
    /// rule budget chose them (docs/semantics.md §8). Such a set lists no runs and no curve, and
    /// every rule votes. Always false for FIND-RS, which is a DNF anyway.
    pub dnf: bool,
}

/// One described class's rules and how they vote (see the module docs). Read-only; build one
/// through [`RuleModel::new`].
#[derive(Clone, Debug)]
pub struct RuleSet {
    rules: Vec<Rule>,
    weights: Vec<u32>,
    runs: Vec<Vec<u32>>,
    n_kept: usize,
    total_weight: u64,
    complete: bool,
    train_positives: Vec<u32>,
    train_negatives: Vec<u32>,
    curve: Vec<u32>,
    dnf: bool,
    /// The voting rules compiled for prediction, on first use (the rows of that first
    /// prediction tune its layout, never its answers).
    predictor: OnceLock<Predictor>,
}

impl RuleSet {
    /// Every rule found (FIND-RS: creation order; BO/BP: heaviest first).
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    pub fn weights(&self) -> &[u32] {
        &self.weights
    }

    /// BO: each run's rules (indices into [`rules`](Self::rules)); empty otherwise.
    pub fn runs(&self) -> &[Vec<u32>] {
        &self.runs
    }

    /// K: the number of rules that vote (the first K).
    pub fn n_kept(&self) -> usize {
        self.n_kept
    }

    /// The sum of the weights of every rule found (BP's gamma_K denominator).
    pub fn total_weight(&self) -> u64 {
        self.total_weight
    }

    /// The sum of the voting rules' weights.
    pub fn kept_weight(&self) -> u64 {
        self.weights[..self.n_kept].iter().map(|&w| w as u64).sum()
    }

    /// False for a voting-only copy ([`RuleModel::voting_only`]), which lacks the rules past K.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    pub fn train_positives(&self) -> &[u32] {
        &self.train_positives
    }

    pub fn train_negatives(&self) -> &[u32] {
        &self.train_negatives
    }

    /// BP: training rows classified correctly by the top `k + 1` rules, for every `k`.
    pub fn curve(&self) -> &[u32] {
        &self.curve
    }

    /// The rules vote as a DNF although the method is BO or BP (a rule budget's result; see
    /// [`RuleSetParts::dnf`]).
    pub fn is_dnf(&self) -> bool {
        self.dnf
    }

    /// A copy of the set's plain parts (to build a changed model through [`RuleModel::new`]).
    pub fn parts(&self) -> RuleSetParts {
        RuleSetParts {
            rules: self.rules.clone(),
            weights: self.weights.clone(),
            runs: self.runs.clone(),
            n_kept: self.n_kept,
            total_weight: (!self.complete).then_some(self.total_weight),
            train_positives: self.train_positives.clone(),
            train_negatives: self.train_negatives.clone(),
            curve: self.curve.clone(),
            dnf: self.dnf,
        }
    }
}

/// A fitted model (see the module docs).
#[derive(Clone, Debug)]
pub struct RuleModel {
    schema: Schema,
    method: Method,
    n_runs: u32,
    sets: Vec<RuleSet>,
}

impl RuleModel {
    /// Checks the parts and assembles the model. Errors say what is inconsistent: the method
    /// and T (FIND-RS has T = 1), no rule, K outside 1..=rules (FIND-RS and BO: all rules
    /// vote), a weight outside 1..=T (FIND-RS: 1), BO weights that are not the number of runs
    /// holding the rule, BO without one run per T or runs naming missing rules, runs on other
    /// methods, per-rule vectors of the wrong length, a rule of another schema, a total weight
    /// below the rules' weights, a DNF flag on FIND-RS or with runs, a curve or rules that do not
    /// vote.
    pub fn new(schema: Schema, method: Method, n_runs: u32, sets: Vec<RuleSetParts>) -> Result<Self> {
        let bad = |m: String| Err(FindRsError::InvalidData(m));
        if n_runs == 0 || n_runs > MAX_RUNS {
            return bad(format!("T must be from 1 to {MAX_RUNS}, got {n_runs}"));
        }
        if method == Method::FindRs && n_runs != 1 {
            return bad(format!("a FIND-RS model has T = 1, got {n_runs}"));
        }
        if sets.len() != 1 {
            return bad(format!("a binary model has one rule set, got {}", sets.len()));
        }
        let sets = sets
            .into_iter()
            .map(|p| Self::check_set(&schema, method, n_runs, p))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            schema,
            method,
            n_runs,
            sets,
        })
    }

    fn check_set(schema: &Schema, method: Method, n_runs: u32, p: RuleSetParts) -> Result<RuleSet> {
        let bad = |m: String| Err(FindRsError::InvalidData(m));
        let n = p.rules.len();
        if n == 0 {
            return bad("a model has at least one rule".into());
        }
        let words = schema.rule_words();
        if p.rules.iter().any(|r| r.allowed().len() != words) {
            return bad("a rule does not belong to the model's schema".into());
        }
        for (what, len) in [
            ("weights", p.weights.len()),
            ("training positive counts", p.train_positives.len()),
            ("training negative counts", p.train_negatives.len()),
        ] {
            if len != n {
                return bad(format!("{n} rules but {len} {what}"));
            }
        }
        if p.n_kept == 0 || p.n_kept > n {
            return bad(format!("K (the number of voting rules) must be from 1 to {n}, got {}", p.n_kept));
        }
        if (method != Method::Bp || p.dnf) && p.n_kept != n {
            let what = if p.dnf { "DNF".to_string() } else { format!("{} model", method.name()) };
            return bad(format!("every rule of a {what} votes: K must be {n}, got {}", p.n_kept));
        }
        if p.dnf {
            if method == Method::FindRs {
                return bad("a FIND-RS model is a DNF already: it takes no DNF flag".into());
            }
            if !p.runs.is_empty() || !p.curve.is_empty() || p.total_weight.is_some() {
                return bad("a DNF rule set lists no runs, no curve and no total weight".into());
            }
        }
        if let Some((i, &w)) = p.weights.iter().enumerate().find(|(_, &w)| w == 0 || w > n_runs) {
            return bad(format!("rule {i} weighs {w}; a weight counts runs, from 1 to T = {n_runs}"));
        }
        if method == Method::FindRs && p.weights.iter().any(|&w| w != 1) {
            return bad("every rule of a FIND-RS model weighs 1".into());
        }
        if method == Method::Bo && !p.dnf {
            if p.runs.len() != n_runs as usize {
                return bad(format!("a BO model lists T = {n_runs} runs, got {}", p.runs.len()));
            }
            let mut holding = vec![0u32; n];
            for run in &p.runs {
                let mut ids = run.clone();
                ids.sort_unstable();
                ids.dedup();
                for &i in &ids {
                    if i as usize >= n {
                        return bad(format!("a BO run names rule {i}, but there are {n} rules"));
                    }
                    holding[i as usize] += 1;
                }
            }
            if let Some(i) = (0..n).find(|&i| holding[i] != p.weights[i]) {
                return bad(format!(
                    "rule {i} of a BO model weighs {} but {} runs hold it",
                    p.weights[i], holding[i]
                ));
            }
        } else if !p.runs.is_empty() {
            return bad(format!("only a BO model lists runs; this one is {}", method.name()));
        }
        if !p.curve.is_empty() && (method != Method::Bp || p.curve.len() != n) {
            return bad(format!("a training curve has one entry per rule of a BP model, got {}", p.curve.len()));
        }
        let sum: u64 = p.weights.iter().map(|&w| w as u64).sum();
        let (total_weight, complete) = match p.total_weight {
            None => (sum, true),
            Some(t) if t >= sum => (t, false),
            Some(t) => return bad(format!("the total weight {t} is below the rules' weights {sum}")),
        };
        Ok(RuleSet {
            rules: p.rules,
            weights: p.weights,
            runs: p.runs,
            n_kept: p.n_kept,
            total_weight,
            complete,
            train_positives: p.train_positives,
            train_negatives: p.train_negatives,
            curve: p.curve,
            dnf: p.dnf,
            predictor: OnceLock::new(),
        })
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// T, the number of runs (1 for FIND-RS).
    pub fn n_runs(&self) -> u32 {
        self.n_runs
    }

    /// The rule sets, one per described class (one today).
    pub fn rule_sets(&self) -> &[RuleSet] {
        &self.sets
    }

    /// The rule set of a binary model.
    pub fn rule_set(&self) -> &RuleSet {
        &self.sets[0]
    }

    /// A rule budget's DNF of a BO or BP fit: its rules vote as FIND-RS's do.
    fn votes_as_dnf(&self) -> bool {
        self.rule_set().dnf
    }

    /// The same model with the top `k` rules voting (BP).
    pub fn with_n_rules(&self, k: usize) -> Result<Self> {
        let set = self.rule_set();
        if self.method != Method::Bp {
            return Err(FindRsError::InvalidParameter(format!(
                "only a BP model chooses its number of voting rules; this one is {}",
                self.method.name()
            )));
        }
        if set.dnf {
            return Err(FindRsError::InvalidParameter(
                "the rules of a rule budget's DNF all vote: fit without max_rules to choose K".into(),
            ));
        }
        if !set.complete {
            return Err(FindRsError::InvalidParameter(
                "a voting-only copy cannot change its number of voting rules".into(),
            ));
        }
        if k == 0 || k > set.rules.len() {
            return Err(FindRsError::InvalidParameter(format!(
                "n_rules must be from 1 to {}, got {k}",
                set.rules.len()
            )));
        }
        let mut parts = set.parts();
        parts.n_kept = k;
        Self::new(self.schema.clone(), self.method, self.n_runs, vec![parts])
    }

    /// The DNF of the rules `picked` (indices into [`RuleSet::rules`]: a BP model's rules beyond
    /// K too), in that order, each with its weight and training counts: positive when one of
    /// them covers the row. FIND-RS stays FIND-RS; a BO or BP model's rule set is marked
    /// [`RuleSetParts::dnf`] (its weights are shown, not counted). What a rule budget and the
    /// path's models are (docs/semantics.md §8). Errors when `picked` is empty, repeats a rule or
    /// names one the model does not have.
    pub fn with_rules(&self, picked: &[usize]) -> Result<Self> {
        let set = self.rule_set();
        let mut seen = vec![false; set.rules.len()];
        for &r in picked {
            if r >= set.rules.len() || std::mem::replace(&mut seen[r], true) {
                return Err(FindRsError::InvalidParameter(format!(
                    "the rules picked must be distinct rules of the model, below {}, got {picked:?}",
                    set.rules.len()
                )));
            }
        }
        if picked.is_empty() {
            return Err(FindRsError::InvalidParameter("a model keeps at least one rule".into()));
        }
        let pick = |v: &[u32]| picked.iter().map(|&r| v[r]).collect::<Vec<u32>>();
        let parts = RuleSetParts {
            rules: picked.iter().map(|&r| set.rules[r].clone()).collect(),
            weights: pick(&set.weights),
            n_kept: picked.len(),
            train_positives: pick(&set.train_positives),
            train_negatives: pick(&set.train_negatives),
            dnf: self.method != Method::FindRs,
            ..RuleSetParts::default()
        };
        Self::new(self.schema.clone(), self.method, self.n_runs, vec![parts])
    }

    /// The same model with no rule constraining the features `features` (each becomes `?` in
    /// every rule: [`Rule::drop_constraint`]); weights, runs, K, training counts and curve stay.
    /// The fit uses it for features with a single training code (docs/semantics.md §2.1): every
    /// training row satisfies such a constraint, so the counts it kept are still the rules'
    /// counts, and only rows outside the training codes (null, unseen) are decided anew.
    /// Errors on a feature index outside the schema.
    pub fn without_constraints_on(&self, features: &[usize]) -> Result<Self> {
        if let Some(&f) = features.iter().find(|&&f| f >= self.schema.n_features()) {
            return Err(FindRsError::InvalidParameter(format!(
                "feature {f} is out of range: the model has {} features",
                self.schema.n_features()
            )));
        }
        let sets = self
            .sets
            .iter()
            .map(|set| {
                let mut parts = set.parts();
                for rule in &mut parts.rules {
                    for &f in features {
                        rule.drop_constraint(&self.schema, f);
                    }
                }
                parts
            })
            .collect();
        Self::new(self.schema.clone(), self.method, self.n_runs, sets)
    }

    /// A copy holding only what prediction needs: the voting rules (BP's top K; all rules
    /// otherwise), with the total weight of all rules kept as a number. It predicts exactly as
    /// this model does.
    pub fn voting_only(&self) -> Self {
        let set = self.rule_set();
        let k = set.n_kept;
        let parts = RuleSetParts {
            rules: set.rules[..k].to_vec(),
            weights: set.weights[..k].to_vec(),
            runs: set.runs.clone(),
            n_kept: k,
            total_weight: if k == set.rules.len() && set.complete { None } else { Some(set.total_weight) },
            train_positives: set.train_positives[..k].to_vec(),
            train_negatives: set.train_negatives[..k].to_vec(),
            curve: Vec::new(),
            dnf: set.dnf,
        };
        Self::new(self.schema.clone(), self.method, self.n_runs, vec![parts])
            .expect("the voting rules of a valid model make a valid model")
    }

    /// Positive iff the votes exceed this (see the module docs).
    pub fn threshold(&self) -> u64 {
        let set = self.rule_set();
        if self.votes_as_dnf() {
            return 0;
        }
        match self.method {
            Method::FindRs => 0,
            Method::Bo => self.n_runs as u64 / 2,
            Method::Bp => threshold(set.kept_weight(), set.total_weight, self.n_runs as u64),
        }
    }

    /// `(scale, offset)` of the decision value `votes / scale - offset`: FIND-RS (1, 1/2), BO
    /// (T, 1/2), BP (T, gamma_K / 2) with gamma_K = kept weight / total weight; a DNF (1, 1/2).
    pub fn decision_scale(&self) -> (f64, f64) {
        let set = self.rule_set();
        if self.votes_as_dnf() {
            return (1.0, 0.5);
        }
        match self.method {
            Method::FindRs => (1.0, 0.5),
            Method::Bo => (self.n_runs as f64, 0.5),
            Method::Bp => {
                let gamma = set.kept_weight() as f64 / set.total_weight as f64;
                (self.n_runs as f64, gamma / 2.0)
            }
        }
    }

    /// The signed decision value of `votes`: positive exactly where the row is positive.
    #[inline]
    pub fn decision(&self, votes: u64) -> f64 {
        let (scale, offset) = self.decision_scale();
        votes as f64 / scale - offset
    }

    /// The most votes a row can get (every voting rule covers it).
    pub fn max_votes(&self) -> u64 {
        if self.votes_as_dnf() {
            return 1;
        }
        match self.method {
            Method::FindRs => 1,
            Method::Bo => self.n_runs as u64,
            Method::Bp => self.rule_set().kept_weight(),
        }
    }

    /// The votes as a weighted count of groups of voting rules: a row's votes are the sum of
    /// the weights of the groups of which some rule covers it. FIND-RS: one group of every
    /// rule, weight 1; BO: one group per distinct set of rules among the runs (in order of
    /// first appearance, rule ids sorted), weighing the number of runs with that set; BP: one
    /// group per voting rule, weighing the rule's weight. A DNF: as FIND-RS.
    pub fn vote_groups(&self) -> (Vec<Vec<u32>>, Vec<u64>) {
        let set = self.rule_set();
        if self.votes_as_dnf() {
            return (vec![(0..set.n_kept as u32).collect()], vec![1]);
        }
        match self.method {
            Method::FindRs => (vec![(0..set.n_kept as u32).collect()], vec![1]),
            Method::Bp => (
                (0..set.n_kept as u32).map(|i| vec![i]).collect(),
                set.weights[..set.n_kept].iter().map(|&w| w as u64).collect(),
            ),
            Method::Bo => {
                let mut groups: Vec<Vec<u32>> = Vec::new();
                let mut weights: Vec<u64> = Vec::new();
                let mut index = std::collections::HashMap::new();
                for run in &set.runs {
                    let mut ids = run.clone();
                    ids.sort_unstable();
                    ids.dedup();
                    let g = *index.entry(ids.clone()).or_insert_with(|| {
                        groups.push(ids);
                        weights.push(0);
                        groups.len() - 1
                    });
                    weights[g] += 1;
                }
                (groups, weights)
            }
        }
    }

    fn tally(&self) -> Tally {
        let set = self.rule_set();
        if self.votes_as_dnf() {
            return Tally::Any;
        }
        match self.method {
            Method::FindRs => Tally::Any,
            Method::Bo => Tally::Runs(set.runs.clone()),
            Method::Bp => Tally::Weights(set.weights[..set.n_kept].to_vec()),
        }
    }

    /// The voting rules compiled for prediction: compiled on the first call, whose `data` tunes
    /// the layout (never the answers), and kept for every later prediction.
    fn predictor(&self, data: &Columns) -> &Predictor {
        let set = self.rule_set();
        set.predictor.get_or_init(|| {
            Predictor::new(&self.schema, &set.rules[..set.n_kept], &self.tally(), Some(data))
        })
    }

    /// Checks that `data` has this model's features (see [`Columns::new`]).
    pub fn columns<'a>(&self, cols: Vec<&'a [u32]>) -> Result<Columns<'a>> {
        Columns::new(&self.schema, cols)
    }

    /// The votes of every row.
    pub fn votes(&self, data: &Columns) -> Vec<u64> {
        self.predictor(data).votes(data)
    }

    /// True where the votes exceed the threshold.
    pub fn predict(&self, data: &Columns) -> Vec<bool> {
        let t = self.threshold();
        self.votes(data).into_iter().map(|v| v > t).collect()
    }

    /// The decision value of every row.
    pub fn decisions(&self, data: &Columns) -> Vec<f64> {
        self.votes(data).into_iter().map(|v| self.decision(v)).collect()
    }

    /// For every row, the ids of the voting rules that cover it, in rule order (heaviest first
    /// for BO/BP), as CSR: row `r`'s ids are `ids[offsets[r]..offsets[r + 1]]`.
    ///
    /// A model not yet compiled for prediction answers up to [`FIRED_INDEX_ROWS`] rows from
    /// their row index ([`covered_rows`], the coverage the fit counts with) instead of
    /// compiling: the choice of rules with exceptions asks this once of each of many fold
    /// models on a few hundred held-out rows, where compiling cost more than the fold's fit.
    /// Both give exactly the rules of [`Rule::covers_row`].
    pub fn fired(&self, data: &Columns) -> (Vec<u64>, Vec<u32>) {
        let set = self.rule_set();
        if set.predictor.get().is_none() && data.n_rows() <= FIRED_INDEX_ROWS {
            if let Ok(index) = RowIndex::from_all(&self.schema, data) {
                return rows_csr(data.n_rows(), &covered_rows(&self.schema, &index, &set.rules[..set.n_kept]));
            }
        }
        self.predictor(data).fired(data)
    }

    /// BP: the number of rows of `data` (labelled by `labels`) the top-K vote classifies
    /// correctly, for K = 1..=rules (docs/semantics.md §5).
    pub fn pruning_curve(&self, data: &Columns, labels: &[bool]) -> Result<Vec<u32>> {
        let set = self.rule_set();
        if self.method != Method::Bp || !set.complete || set.dnf {
            return Err(FindRsError::InvalidParameter(
                "a pruning curve needs a BP model with all its rules (not a rule budget's DNF)".into(),
            ));
        }
        if labels.len() != data.n_rows() {
            return Err(FindRsError::InvalidData(format!(
                "{} labels for {} rows",
                labels.len(),
                data.n_rows()
            )));
        }
        let index = RowIndex::from_all(&self.schema, data)?;
        Ok(pruning_curve(&self.schema, &index, labels, &set.rules, &set.weights, self.n_runs).correct)
    }
}

/// Most rows [`RuleModel::fired`] answers from a row index when the model is not compiled.
pub const FIRED_INDEX_ROWS: usize = 1 << 16;

/// Per-rule covered rows (ascending, as [`covered_rows`] gives them) turned into per-row rule
/// ids as CSR over `n_rows` rows; each row's ids ascend, since the rules are visited in order.
fn rows_csr(n_rows: usize, by_rule: &[Vec<u32>]) -> (Vec<u64>, Vec<u32>) {
    let mut offsets = vec![0u64; n_rows + 1];
    for &r in by_rule.iter().flatten() {
        offsets[r as usize + 1] += 1;
    }
    for r in 0..n_rows {
        offsets[r + 1] += offsets[r];
    }
    let mut next: Vec<usize> = offsets[..n_rows].iter().map(|&o| o as usize).collect();
    let mut ids = vec![0u32; offsets[n_rows] as usize];
    for (k, rows) in by_rule.iter().enumerate() {
        for &r in rows {
            ids[next[r as usize]] = k as u32;
            next[r as usize] += 1;
        }
    }
    (offsets, ids)
}

/// For each rule, the number of positive and of negative rows of `data` it covers.
#[cfg(test)]
pub(crate) fn coverage_counts(
    schema: &Schema,
    rules: &[Rule],
    data: &Columns,
    labels: &[bool],
) -> Result<(Vec<u32>, Vec<u32>)> {
    let index = RowIndex::from_all(schema, data)?;
    Ok(coverage_counts_on(schema, &index, rules, labels))
}

/// [`coverage_counts`] on the index of every row, already built.
pub(crate) fn coverage_counts_on(schema: &Schema, index: &RowIndex, rules: &[Rule], labels: &[bool]) -> (Vec<u32>, Vec<u32>) {
    covered_rows(schema, index, rules)
        .iter()
        .map(|rs| {
            let p = rs.iter().filter(|&&r| labels[r as usize]).count() as u32;
            (p, rs.len() as u32 - p)
        })
        .unzip()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::data::schema::ConstraintKind;

    /// Rules `a = 1` and `b not in {1}` over an OH schema of domains 2 and 3, in a model of
    /// `method` with weights 3 and 1 (BO: runs {0}, {1}, {0, 1}; T = 3).
    pub(crate) fn model(method: Method) -> RuleModel {
        let schema = Schema::uniform(vec![2, 3], ConstraintKind::OneHot).unwrap();
        let rules = vec![
            Rule::from_constraints(&schema, &[(0, vec![1])]).unwrap(),
            Rule::from_constraints(&schema, &[(1, vec![0, 2])]).unwrap(),
        ];
        let (weights, runs, t) = match method {
            Method::FindRs => (vec![1, 1], vec![], 1),
            Method::Bo => (vec![2, 2], vec![vec![0], vec![1], vec![0, 1]], 3),
            Method::Bp => (vec![3, 1], vec![], 3),
        };
        let parts = RuleSetParts {
            rules,
            weights,
            runs,
            n_kept: 2,
            total_weight: None,
            train_positives: vec![0, 0],
            train_negatives: vec![0, 0],
            curve: vec![],
            dnf: false,
        };
        RuleModel::new(schema, method, t, vec![parts]).unwrap()
    }

    /// `fired` answers a model not yet compiled from the rows' index and a compiled one from
    /// its predictor: the same ids, the naive coverage (interval features with and without
    /// null, AV and OH features, unseen codes), on random FIND-RS and BP models.
    #[test]
    fn fired_from_the_index_is_the_predictors() {
        use crate::learn::run::interval_tests::{av, iv, mixed_schema, oh, random_rows, random_rule};
        use rand::{RngExt, SeedableRng};
        use rand_chacha::ChaCha8Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for case in 0..16 {
            let schema = mixed_schema(&[iv(9, case % 2 == 0), av(3), oh(4), iv(300, false)]);
            let n_rows = rng.random_range(1..300);
            let cols = random_rows(&mut rng, &schema, n_rows);
            let mut rules: Vec<Rule> = Vec::new();
            while rules.len() < 1 + case * 3 {
                let p_free = rng.random_range(0.1..0.8);
                let rule = random_rule(&mut rng, &schema, p_free);
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
            let n = rules.len();
            let (method, n_kept) = if case % 4 == 1 { (Method::Bp, n - n / 3) } else { (Method::FindRs, n) };
            let parts = RuleSetParts {
                rules: rules.clone(),
                weights: vec![1; n],
                runs: vec![],
                n_kept,
                total_weight: None,
                train_positives: vec![0; n],
                train_negatives: vec![0; n],
                curve: vec![],
                dnf: false,
            };
            let m = RuleModel::new(schema.clone(), method, 1, vec![parts]).unwrap();
            let data = m.columns(cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let (offsets, ids) = m.fired(&data);
            for r in 0..n_rows {
                let codes = data.row(r);
                let want: Vec<u32> =
                    (0..n_kept as u32).filter(|&i| rules[i as usize].covers_row(&schema, &codes)).collect();
                assert_eq!(&ids[offsets[r] as usize..offsets[r + 1] as usize], want.as_slice(), "case {case} row {r}");
            }
            m.votes(&data); // compiles the predictor
            assert!(m.rule_set().predictor.get().is_some());
            assert_eq!(m.fired(&data), (offsets, ids), "case {case}");
        }
    }

    #[test]
    fn votes_fired_and_decisions_agree() {
        // rows: (a, b) codes; code 2 of a / 3 of b are unseen values.
        let a = [0u32, 1, 0, 2, 1];
        let b = [1u32, 1, 2, 3, 0];
        for method in [Method::FindRs, Method::Bo, Method::Bp] {
            let m = model(method);
            let data = m.columns(vec![&a, &b]).unwrap();
            let (offsets, ids) = m.fired(&data);
            let fired: Vec<Vec<u32>> = (0..5)
                .map(|r| ids[offsets[r] as usize..offsets[r + 1] as usize].to_vec())
                .collect();
            // rule 0: a = 1; rule 1: b not in {1} (unseen b passes).
            assert_eq!(fired, vec![vec![], vec![0], vec![1], vec![1], vec![0, 1]]);
            let votes = m.votes(&data);
            let pred = m.predict(&data);
            let (groups, weights) = m.vote_groups();
            for r in 0..5 {
                assert_eq!(pred[r], m.decision(votes[r]) > 0.0, "{method:?} row {r}");
                assert_eq!(pred[r], votes[r] > m.threshold(), "{method:?} row {r}");
                // The groups' weighted count is the votes.
                let count: u64 = groups
                    .iter()
                    .zip(&weights)
                    .filter(|(g, _)| g.iter().any(|i| fired[r].contains(i)))
                    .map(|(_, &w)| w)
                    .sum();
                assert_eq!(count, votes[r], "{method:?} row {r}");
                assert!(votes[r] <= m.max_votes());
            }
        }
        let bp = model(Method::Bp);
        let data = bp.columns(vec![&a, &b]).unwrap();
        assert_eq!(bp.votes(&data), vec![0, 3, 1, 1, 4]);
        assert_eq!(bp.threshold(), 1); // floor(4 * 3 / 8)
        let bo = model(Method::Bo);
        assert_eq!(bo.votes(&bo.columns(vec![&a, &b]).unwrap()), vec![0, 2, 2, 2, 3]);
        assert_eq!(bo.threshold(), 1);
    }

    #[test]
    fn constructor_refuses_inconsistent_parts() {
        let good = model(Method::Bo);
        let schema = good.schema().clone();
        let parts = good.rule_set().parts();
        let check = |method: Method, t: u32, edit: &dyn Fn(&mut RuleSetParts), needle: &str| {
            let mut p = parts.clone();
            edit(&mut p);
            let err = RuleModel::new(schema.clone(), method, t, vec![p]).unwrap_err().to_string();
            assert!(err.contains(needle), "{err:?} lacks {needle:?}");
        };
        assert!(RuleModel::new(schema.clone(), Method::Bo, 3, vec![parts.clone()]).is_ok());
        check(Method::Bo, 3, &|p| p.weights[0] = 3, "runs hold it");
        check(Method::Bo, 3, &|p| p.runs.pop().map(drop).unwrap_or(()), "lists T = 3 runs");
        check(Method::Bo, 3, &|p| p.runs[0] = vec![7], "names rule 7");
        check(Method::Bo, 3, &|p| p.n_kept = 1, "every rule of a bo model votes");
        check(Method::Bp, 3, &|p| p.n_kept = 0, "from 1 to 2");
        check(Method::Bp, 3, &|p| p.n_kept = 3, "from 1 to 2");
        check(Method::Bp, 3, &|_| (), "only a BO model lists runs");
        check(Method::Bp, 3, &|p| { p.runs.clear(); p.weights[0] = 4 }, "from 1 to T = 3");
        check(Method::Bp, 3, &|p| { p.runs.clear(); p.weights[1] = 0 }, "weighs 0");
        check(Method::Bp, 3, &|p| { p.runs.clear(); p.total_weight = Some(3) }, "below the rules' weights");
        check(Method::Bp, 3, &|p| { p.runs.clear(); p.curve = vec![1] }, "one entry per rule");
        check(Method::Bp, 3, &|p| { p.runs.clear(); p.train_negatives.pop(); }, "2 rules but 1 training negative counts");
        check(Method::FindRs, 1, &|p| { p.runs.clear(); }, "weighs 2");
        check(Method::FindRs, 3, &|p| { p.runs.clear(); }, "T = 1");
        check(Method::FindRs, 1, &|p| { p.runs.clear(); p.rules.clear(); }, "at least one rule");
        check(Method::FindRs, 1, &|p| { p.runs.clear(); p.weights = vec![1, 1]; p.dnf = true }, "takes no DNF flag");
        check(Method::Bo, 3, &|p| p.dnf = true, "lists no runs");
        check(Method::Bp, 3, &|p| { p.runs.clear(); p.dnf = true; p.curve = vec![1, 2] }, "no curve");
        check(Method::Bp, 3, &|p| { p.runs.clear(); p.dnf = true; p.n_kept = 1 }, "every rule of a DNF votes");
        let other = Schema::uniform(vec![200, 3], ConstraintKind::OneHot).unwrap();
        let mut p = parts.clone();
        p.rules[0] = Rule::from_constraints(&other, &[(0, vec![1])]).unwrap();
        assert!(RuleModel::new(schema.clone(), Method::Bo, 3, vec![p]).is_err());
        assert!(RuleModel::new(schema.clone(), Method::Bo, 3, vec![]).is_err());
        assert!(RuleModel::new(schema, Method::Bo, 0, vec![parts]).is_err());
    }

    #[test]
    fn with_n_rules_and_voting_only_keep_predictions() {
        let m = model(Method::Bp);
        let a = [0u32, 1, 0, 2, 1];
        let b = [1u32, 1, 2, 3, 0];
        let k1 = m.with_n_rules(1).unwrap();
        assert_eq!(k1.rule_set().n_kept(), 1);
        assert_eq!(k1.threshold(), 1); // floor(3 * 3 / 8)
        assert!(m.with_n_rules(0).is_err() && m.with_n_rules(3).is_err());
        assert!(model(Method::Bo).with_n_rules(1).is_err());
        for full in [m, k1] {
            let v = full.voting_only();
            assert_eq!(v.rule_set().total_weight(), 4);
            assert_eq!(v.threshold(), full.threshold());
            assert_eq!(v.decision_scale(), full.decision_scale());
            let data = full.columns(vec![&a, &b]).unwrap();
            assert_eq!(v.votes(&data), full.votes(&data));
        }
    }

    /// Dropping the constraints on a feature of one training code (docs/semantics.md §2.1)
    /// keeps every vote on rows holding that code, and rows with the feature's unseen code
    /// vote as if they held it; weights, K, runs and counts stay; the other features'
    /// constraints stay; an index outside the schema is refused.
    #[test]
    fn without_constraints_on_frees_a_one_code_feature() {
        // Feature 0: one training code (0; 1 is unseen). Feature 1: codes 0..3 (3 unseen).
        let schema = Schema::uniform(vec![1, 3], ConstraintKind::AttributeValue).unwrap();
        let rule = |b: u32| Rule::from_constraints(&schema, &[(0, vec![0]), (1, vec![b])]).unwrap();
        for (method, weights, runs, t) in [
            (Method::FindRs, vec![1, 1], vec![], 1),
            (Method::Bo, vec![2, 1], vec![vec![0], vec![0, 1]], 2),
            (Method::Bp, vec![3, 1], vec![], 3),
        ] {
            let parts = RuleSetParts {
                rules: vec![rule(1), rule(2)],
                weights,
                runs,
                n_kept: 2,
                total_weight: None,
                train_positives: vec![4, 2],
                train_negatives: vec![0, 1],
                curve: vec![],
                dnf: false,
            };
            let m = RuleModel::new(schema.clone(), method, t, vec![parts]).unwrap();
            let free = m.without_constraints_on(&[0]).unwrap();
            let (a, b) = (free.rule_set(), m.rule_set());
            assert!(a.rules().iter().all(|r| r.is_free(&schema, 0) && !r.is_free(&schema, 1)));
            assert!(a.rules().iter().all(|r| r.n_constraints(&schema) == 1));
            assert_eq!((a.weights(), a.runs(), a.n_kept()), (b.weights(), b.runs(), b.n_kept()));
            assert_eq!((a.train_positives(), a.train_negatives()), (b.train_positives(), b.train_negatives()));
            assert_eq!(free.threshold(), m.threshold());
            let f0 = [0u32, 0, 0, 0, 1, 1, 1, 1];
            let f1 = [0u32, 1, 2, 3, 0, 1, 2, 3];
            let seen = [0u32; 8];
            let data = m.columns(vec![&f0, &f1]).unwrap();
            let as_seen = m.columns(vec![&seen, &f1]).unwrap();
            let before = m.votes(&data);
            let after = free.votes(&data);
            assert_eq!(after[..4], before[..4]);
            assert_eq!(after[4..], m.votes(&as_seen)[4..]);
            assert_eq!(before[4..], [0, 0, 0, 0]);
            assert!(after[5] > 0);
            assert_eq!(free.without_constraints_on(&[0]).unwrap().votes(&data), after);
            assert!(m.without_constraints_on(&[2]).is_err());
        }
    }

    /// A budget's DNF of BO or BP rules votes as FIND-RS does (any rule), keeps its method, T
    /// and weights, refuses to change K, and survives the JSON form and the voting-only copy.
    #[test]
    fn a_dnf_set_votes_as_find_rs() {
        let a = [0u32, 1, 0, 2, 1];
        let b = [1u32, 1, 2, 3, 0];
        let find_rs = model(Method::FindRs);
        let data = find_rs.columns(vec![&a, &b]).unwrap();
        for method in [Method::Bo, Method::Bp] {
            let m = model(method);
            let mut parts = m.rule_set().parts();
            parts.runs.clear();
            parts.dnf = true;
            let dnf = RuleModel::new(m.schema().clone(), method, 3, vec![parts]).unwrap();
            assert_eq!((dnf.method(), dnf.n_runs()), (method, 3));
            assert_eq!(dnf.rule_set().weights(), m.rule_set().weights());
            assert_eq!(dnf.votes(&data), find_rs.votes(&data));
            assert_eq!(dnf.predict(&data), find_rs.predict(&data));
            assert_eq!(dnf.decisions(&data), find_rs.decisions(&data));
            assert_eq!(
                (dnf.threshold(), dnf.decision_scale(), dnf.max_votes(), dnf.vote_groups()),
                (0, (1.0, 0.5), 1, find_rs.vote_groups())
            );
            assert!(dnf.with_n_rules(1).is_err());
            assert!(dnf.pruning_curve(&data, &[true; 5]).is_err());
            for copy in [crate::io::json::model_from_json(&crate::io::json::model_to_json(&dnf)).unwrap(), dnf.voting_only()] {
                assert!(copy.rule_set().is_dnf());
                assert_eq!(copy.votes(&data), dnf.votes(&data));
            }
        }
    }

    #[test]
    fn bp_pruning_curve_counts_correct_rows() {
        let m = model(Method::Bp);
        let a = [0u32, 1, 0, 1];
        let b = [1u32, 1, 2, 0];
        let data = m.columns(vec![&a, &b]).unwrap();
        // K = 1: a = 1 (weight 3 > floor(3 * 3 / 8) = 1); K = 2: votes > 1.
        let labels = [false, true, false, true];
        assert_eq!(m.pruning_curve(&data, &labels).unwrap(), vec![4, 4]);
        assert!(model(Method::Bo).pruning_curve(&data, &labels).is_err());
        assert!(m.pruning_curve(&data, &labels[..3]).is_err());
    }
}
