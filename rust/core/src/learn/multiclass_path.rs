//! The accuracy-size path of a multiclass FIND-RS model (docs/semantics.md §10.1): an order
//! of all class sets' rules, and the rows each prefix classifies correctly.
//!
//! Each set's rules are first ranked by the set's own binary path ([`crate::learn::fit::path`]
//! on the set's training rows: its class against the classes after it, or against every other
//! class for one-vs-rest). The multiclass order then merges the rankings greedily: at each
//! step, of the sets' next rules, the one that adds the most rows classified right by the whole
//! model (ties: the set read first; a rule that costs rows still takes its turn). A model needs
//! a rule in every set, so the first steps give each set its first rule, the most gainful first,
//! sets without a rule yet firing nowhere.
//!
//! A FIND-RS set says "this class" exactly where one of its rules covers the row, so a row's
//! class under some rules per set follows from which sets cover it: a decision list takes the
//! first such set (else the default), one-vs-rest the set of the highest `1 / theta` (the first
//! on ties; the first set when none covers it), as [`MulticlassModel::predict`] decides.
//!
//! Invariant: [`Path::order`] lists every voting rule of every set once, a rule `r` of set `i`
//! numbered `offset(i) + r` (the sets' rules one set after another, in combination order), each
//! set's rules in its own ranking; `correct[k - 1]` is the rows right of the model of the
//! first `k` rules ([`MulticlassModel::with_rules`] of them).

use crate::data::columns::Columns;
use crate::data::error::{FindRsError, Result};
use crate::data::row_index::RowIndex;
use crate::learn::budget::Path;
use crate::learn::fit::path;
use crate::learn::multiclass::MulticlassModel;
use crate::predict::best_k::covered_rows;
use crate::predict::model::{Method, RuleModel};

/// The rows of `data` each voting rule of `set` covers.
fn rule_rows(set: &RuleModel, data: &Columns) -> Vec<Vec<u32>> {
    let rules = &set.rule_set().rules()[..set.rule_set().n_kept()];
    if let Ok(index) = RowIndex::from_all(set.schema(), data) {
        return covered_rows(set.schema(), &index, rules);
    }
    // Codes the index cannot hold (values unseen in training): the predictor's reading.
    let (offsets, ids) = set.fired(data);
    let mut out = vec![Vec::new(); rules.len()];
    for row in 0..data.n_rows() {
        for &r in &ids[offsets[row] as usize..offsets[row + 1] as usize] {
            out[r as usize].push(row as u32);
        }
    }
    out
}

/// Which sets cover each row and the class it gets, for a model of some rules per set.
struct State<'a> {
    classes: &'a [u32],
    set_class: Vec<u32>,
    /// Per set, its rank in the decision (decision list: its position; one-vs-rest: by
    /// `1 / theta` descending, then position).
    rank: Vec<usize>,
    /// Per set and row, the set's rules in the model that cover the row.
    hits: Vec<Vec<u32>>,
    /// Per row, the best rank of a covering set (`n_sets`: none).
    first: Vec<usize>,
    predicted: Vec<u32>,
    correct: i64,
}

impl<'a> State<'a> {
    fn new(model: &MulticlassModel, classes: &'a [u32]) -> Self {
        let set_class = model.set_classes().to_vec();
        let n_sets = set_class.len();
        let (rank, fallback) = match model.default_class() {
            Some(d) => ((0..n_sets).collect(), d),
            None => {
                let thetas = model.thetas();
                let mut ranked: Vec<usize> = (0..n_sets).collect();
                ranked.sort_by(|&a, &b| (1.0 / thetas[b]).total_cmp(&(1.0 / thetas[a])).then(a.cmp(&b)));
                let mut rank = vec![0; n_sets];
                for (k, &i) in ranked.iter().enumerate() {
                    rank[i] = k;
                }
                (rank, set_class[0])
            }
        };
        let n = classes.len();
        let correct = classes.iter().filter(|&&c| c == fallback).count() as i64;
        Self {
            classes,
            set_class,
            rank,
            hits: vec![vec![0; n]; n_sets],
            first: vec![n_sets; n],
            predicted: vec![fallback; n],
            correct,
        }
    }

    /// Rows right gained when a rule of set `i` covering `rows` joins the model.
    fn gain(&self, i: usize, rows: &[u32]) -> i64 {
        let (c, rank, hits) = (self.set_class[i], self.rank[i], &self.hits[i]);
        let mut g = 0i64;
        for &r in rows {
            let r = r as usize;
            if hits[r] == 0 && rank < self.first[r] {
                g += (self.classes[r] == c) as i64 - (self.predicted[r] == self.classes[r]) as i64;
            }
        }
        g
    }

    fn add(&mut self, i: usize, rows: &[u32]) {
        self.correct += self.gain(i, rows);
        let (c, rank) = (self.set_class[i], self.rank[i]);
        for &r in rows {
            let r = r as usize;
            if self.hits[i][r] == 0 && rank < self.first[r] {
                self.first[r] = rank;
                self.predicted[r] = c;
            }
            self.hits[i][r] += 1;
        }
    }

    fn count(&self) -> u32 {
        u32::try_from(self.correct).expect("a count of rows")
    }
}

fn check(model: &MulticlassModel, data: &Columns, classes: &[u32]) -> Result<()> {
    if model.method() != Method::FindRs {
        return Err(FindRsError::InvalidParameter("only a multiclass FIND-RS model has an accuracy-size path".into()));
    }
    if classes.len() != data.n_rows() {
        return Err(FindRsError::InvalidParameter(format!(
            "one class per row: {} classes for {} rows",
            classes.len(),
            data.n_rows()
        )));
    }
    if let Some(&c) = classes.iter().find(|&&c| c >= model.n_classes()) {
        return Err(FindRsError::InvalidParameter(format!("class {c} is not below {}", model.n_classes())));
    }
    Ok(())
}

/// The rule numbering's offset of every set (and the total last).
fn offsets(model: &MulticlassModel) -> Vec<usize> {
    let mut out = vec![0];
    for s in model.sets() {
        out.push(out.last().unwrap() + s.rule_set().n_kept());
    }
    out
}

/// The path of `model` on its training rows `data` (each row's class index `classes`).
pub fn multiclass_path(model: &MulticlassModel, data: &Columns, classes: &[u32]) -> Result<Path> {
    check(model, data, classes)?;
    let sets = model.sets();
    let set_class = model.set_classes();
    let decision_list = model.default_class().is_some();
    let mut ranked = Vec::with_capacity(sets.len());
    for (i, s) in sets.iter().enumerate() {
        if !decision_list || i == 0 {
            // Learned on every row (one-vs-rest, a decision list's first set).
            let labels: Vec<bool> = classes.iter().map(|&c| c == set_class[i]).collect();
            ranked.push(path(s, data, &labels)?.order);
            continue;
        }
        // A decision list's later set is learned on the rows of its class and the classes after it.
        let rows: Vec<usize> = (0..data.n_rows()).filter(|&r| !set_class[..i].contains(&classes[r])).collect();
        let cols: Vec<Vec<u32>> =
            (0..data.n_features()).map(|f| rows.iter().map(|&r| data.column(f)[r]).collect()).collect();
        let sub = Columns::new(s.schema(), cols.iter().map(|c| c.as_slice()).collect())?;
        let labels: Vec<bool> = rows.iter().map(|&r| classes[r] == set_class[i]).collect();
        ranked.push(path(s, &sub, &labels)?.order);
    }
    let covers: Vec<Vec<Vec<u32>>> = sets.iter().map(|s| rule_rows(s, data)).collect();
    let offsets = offsets(model);
    let mut state = State::new(model, classes);
    let mut next = vec![0usize; sets.len()];
    let (mut order, mut correct) = (Vec::new(), Vec::new());
    loop {
        let open: Vec<usize> = (0..sets.len()).filter(|&i| next[i] < ranked[i].len()).collect();
        let empty: Vec<usize> = open.iter().copied().filter(|&i| next[i] == 0).collect();
        let pool = if empty.is_empty() { open } else { empty };
        let mut best: Option<(i64, usize)> = None;
        for &i in &pool {
            let g = state.gain(i, &covers[i][ranked[i][next[i]]]);
            if best.is_none_or(|(bg, _)| g > bg) {
                best = Some((g, i));
            }
        }
        let Some((_, i)) = best else { break };
        let r = ranked[i][next[i]];
        state.add(i, &covers[i][r]);
        next[i] += 1;
        order.push(offsets[i] + r);
        correct.push(state.count());
    }
    Ok(Path { order, correct })
}

/// The rows of `data` (class indices `classes`) right of each prefix of `order` (a path's
/// order of `model`'s rules): the path's models on held-out rows.
pub fn multiclass_held_out_path(
    model: &MulticlassModel,
    order: &[usize],
    data: &Columns,
    classes: &[u32],
) -> Result<Vec<u32>> {
    check(model, data, classes)?;
    let offsets = offsets(model);
    if let Some(&g) = order.iter().find(|&&g| g >= *offsets.last().unwrap()) {
        return Err(FindRsError::InvalidParameter(format!("rule {g} is not one of the model's {}", offsets.last().unwrap())));
    }
    let covers: Vec<Vec<Vec<u32>>> = model.sets().iter().map(|s| rule_rows(s, data)).collect();
    let mut state = State::new(model, classes);
    Ok(order
        .iter()
        .map(|&g| {
            let i = offsets.partition_point(|&o| o <= g) - 1;
            state.add(i, &covers[i][g - offsets[i]]);
            state.count()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::schema::{ConstraintKind, Schema};
    use crate::learn::ensemble::Progress;
    use crate::learn::fit::{FitOptions, RuleCount};
    use crate::learn::multiclass::{fit_multiclass, Combine};

    fn data(seed: u64, n: usize, domains: &[u32]) -> (Vec<Vec<u32>>, Vec<u32>) {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let cols: Vec<Vec<u32>> = domains.iter().map(|&d| (0..n).map(|_| (next() % d as u64) as u32).collect()).collect();
        let classes = (0..n)
            .map(|r| if next() % 10 == 0 { (next() % 3) as u32 } else { (cols[0][r] + cols[1][r]) % 3 })
            .collect();
        (cols, classes)
    }

    /// The plain reading of a model of some rules per set: each row's class from which sets
    /// have a picked rule covering it, as the module docs say.
    fn plain_right(model: &MulticlassModel, data: &Columns, classes: &[u32], picked: &[Vec<usize>]) -> u32 {
        let cut = model.with_rules(picked).unwrap();
        cut.predict(data).iter().zip(classes).filter(|(p, c)| p == c).count() as u32
    }

    /// The path's counts are the rows right of its prefixes' models, on the training rows and on
    /// other rows, and its order lists every rule once.
    #[test]
    fn the_counts_are_the_prefix_models_rows_right() {
        let domains = [3u32, 3, 2, 4];
        let schema = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        for combine in [Combine::FrequentFirst, Combine::RarestFirst, Combine::OneVsRest] {
            for seed in 0..4 {
                let (cols, classes) = data(seed, 120, &domains);
                let d = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                let options = FitOptions {
                    method: Method::FindRs,
                    tolerance: 1,
                    n_runs: 1,
                    seed,
                    shuffle: true,
                    n_rules: RuleCount::Auto { accuracy_ratio: 0.99 },
                    ..FitOptions::default()
                };
                let m = fit_multiclass(schema.clone(), &d, &classes, 3, combine, &options, &Progress::default()).unwrap().model;
                let p = multiclass_path(&m, &d, &classes).unwrap();
                let total: usize = m.sets().iter().map(|s| s.rule_set().n_kept()).sum();
                let mut sorted = p.order.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..total).collect::<Vec<_>>());
                let (other, other_classes) = data(seed + 100, 60, &domains);
                let o = Columns::new(&schema, other.iter().map(|c| c.as_slice()).collect()).unwrap();
                let held = multiclass_held_out_path(&m, &p.order, &o, &other_classes).unwrap();
                let offsets = offsets(&m);
                for k in m.sets().len()..=total {
                    let mut picked = vec![Vec::new(); m.sets().len()];
                    for &g in &p.order[..k] {
                        let i = offsets.partition_point(|&x| x <= g) - 1;
                        picked[i].push(g - offsets[i]);
                    }
                    assert_eq!(p.correct[k - 1], plain_right(&m, &d, &classes, &picked));
                    assert_eq!(held[k - 1], plain_right(&m, &o, &other_classes, &picked));
                }
                assert!(multiclass_held_out_path(&m, &[total], &o, &other_classes).is_err());
                assert!(multiclass_path(&m, &d, &classes[1..]).is_err());
            }
        }
    }
}
