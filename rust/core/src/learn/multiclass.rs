//! Multiclass models (docs/semantics.md §10): one rule set per class, each a binary
//! [`RuleModel`] describing its class against the rest of its training rows, and a
//! [`Combine`] rule that turns their votes into one class per row.
//!
//! - [`Combine::OneVsRest`]: a set per class, learned on every training row (its class against
//!   all others). A row's *score* for a set is its votes over the set's real threshold,
//!   `votes / theta` with `theta = scale * offset` of the set's decision value (FIND-RS 1/2,
//!   BO T/2, BP gamma_K T/2), in double precision: above 1 exactly where the set alone says
//!   "this class". The row gets the class of the highest score; ties go to the set listed
//!   first. Sets are listed by training frequency, most frequent first (ties: lower class
//!   index first), so a row no rule covers (every score 0) gets the most frequent class.
//! - the two *decision lists*, [`Combine::RarestFirst`] (as RIPPER: the classes by training
//!   frequency, rarest first, ties to the lower class index; the most frequent class is the
//!   *default* and has no set) and [`Combine::FrequentFirst`] (most frequent first, ties to the
//!   lower class index; the last, rarest class is the default). Set `i` is learned on the rows
//!   of its class (positives) and of the classes after it, the default's included (negatives):
//!   the rows of earlier classes are left out. A row gets the class of the first set whose
//!   votes exceed its threshold, else the default. FIND-RS generalizes from the positives, so
//!   the class with the most rows gets the most general rules: frequent-first puts them first.
//!
//! A class set is an ordinary binary model (its own rules, weights, runs, K, threshold,
//! decision value and predictor), so everything the binary model guarantees holds per class,
//! and a multiclass model adds only the combination. That is why the sets are whole
//! [`RuleModel`]s rather than [`RuleSet`](crate::predict::model::RuleSet)s of one model: the binary
//! model's code is used unchanged for each class.
//!
//! Invariant: a [`MulticlassModel`] has passed [`MulticlassModel::new`]: its sets share one
//! schema, method and T, name distinct classes below the class count (at least 3), one per
//! class (one-vs-rest) or one per class but the default (decision list), in the order the
//! combination reads them.

use crate::data::columns::Columns;
use crate::learn::ensemble::Progress;
use crate::data::error::{FindRsError, Result};
use crate::learn::fit::{fit, FitOptions};
use crate::data::identical::Groups;
use crate::predict::model::{Method, RuleModel};
use crate::data::schema::Schema;
use rayon::prelude::*;

/// How the class sets of a multiclass model decide a row (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combine {
    /// The highest `votes / theta` over one set per class; ties to the set listed first (sets
    /// listed most frequent class first).
    OneVsRest,
    /// The first set (rarest class first) whose votes exceed its threshold, else the default
    /// (the most frequent class).
    RarestFirst,
    /// The first set (most frequent class first) whose votes exceed its threshold, else the
    /// default (the rarest class).
    FrequentFirst,
}

impl Combine {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "one-vs-rest" => Ok(Self::OneVsRest),
            "rarest-first" => Ok(Self::RarestFirst),
            "frequent-first" => Ok(Self::FrequentFirst),
            other => Err(FindRsError::InvalidParameter(format!(
                "multiclass must be 'one-vs-rest', 'rarest-first' or 'frequent-first', got {other:?}"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::OneVsRest => "one-vs-rest",
            Self::RarestFirst => "rarest-first",
            Self::FrequentFirst => "frequent-first",
        }
    }

    /// A decision list (with a default class), as opposed to one-vs-rest.
    pub fn is_list(self) -> bool {
        self != Self::OneVsRest
    }
}

/// A multiclass model (see the module docs). Build one with [`fit_multiclass`] or
/// [`MulticlassModel::new`].
#[derive(Clone, Debug)]
pub struct MulticlassModel {
    n_classes: u32,
    combine: Combine,
    /// The class each set describes, in the order the combination reads the sets.
    set_class: Vec<u32>,
    sets: Vec<RuleModel>,
    default: Option<u32>,
}

impl MulticlassModel {
    /// Checks the parts and assembles the model. `sets[i]` describes class `set_class[i]`
    /// (an index below `n_classes`); `default` is a decision list's class without a set
    /// (`None` for one-vs-rest). Errors say what is inconsistent: fewer than 3 classes, sets of
    /// other schemas, methods or T, a class named twice or out of range, a class without a set
    /// (one-vs-rest) or a default that is missing, out of range or has a set (decision list).
    pub fn new(
        n_classes: u32,
        combine: Combine,
        set_class: Vec<u32>,
        sets: Vec<RuleModel>,
        default: Option<u32>,
    ) -> Result<Self> {
        let bad = |m: String| Err(FindRsError::InvalidData(m));
        if n_classes < 3 {
            return bad(format!("a multiclass model has at least 3 classes, got {n_classes}"));
        }
        if set_class.len() != sets.len() {
            return bad(format!("{} rule sets but {} classes named for them", sets.len(), set_class.len()));
        }
        let first = sets.first().ok_or_else(|| FindRsError::InvalidData("a multiclass model has rule sets".into()))?;
        if sets.iter().any(|s| s.schema() != first.schema()) {
            return bad("the rule sets of a multiclass model share one schema".into());
        }
        if sets.iter().any(|s| s.method() != first.method() || s.n_runs() != first.n_runs()) {
            return bad("the rule sets of a multiclass model share one method and T".into());
        }
        let want = match (combine.is_list(), default) {
            (false, Some(_)) => return bad("a one-vs-rest model has no default class".into()),
            (true, None) => return bad("a decision list has a default class".into()),
            (false, None) => n_classes as usize,
            (true, Some(_)) => n_classes as usize - 1,
        };
        if sets.len() != want {
            return bad(format!(
                "a {} model of {n_classes} classes has {want} rule sets, got {}",
                combine.name(),
                sets.len()
            ));
        }
        let mut seen = vec![false; n_classes as usize];
        for &c in set_class.iter().chain(default.iter()) {
            if c >= n_classes {
                return bad(format!("class {c} is out of range: the model has {n_classes} classes"));
            }
            if std::mem::replace(&mut seen[c as usize], true) {
                return bad(format!("class {c} has two rule sets (or is also the default)"));
            }
        }
        Ok(Self {
            n_classes,
            combine,
            set_class,
            sets,
            default,
        })
    }

    pub fn n_classes(&self) -> u32 {
        self.n_classes
    }

    pub fn combine(&self) -> Combine {
        self.combine
    }

    /// The class each set describes, in combination order.
    pub fn set_classes(&self) -> &[u32] {
        &self.set_class
    }

    /// The class sets, each a binary model of its class against the rest of its training rows.
    pub fn sets(&self) -> &[RuleModel] {
        &self.sets
    }

    /// The decision list's class when no set fires (`None` for one-vs-rest).
    pub fn default_class(&self) -> Option<u32> {
        self.default
    }

    pub fn schema(&self) -> &Schema {
        self.sets[0].schema()
    }

    pub fn method(&self) -> Method {
        self.sets[0].method()
    }

    pub fn n_runs(&self) -> u32 {
        self.sets[0].n_runs()
    }

    /// Per set, `theta = scale * offset` of its decision value: one-vs-rest scores a row
    /// `votes / theta`.
    pub fn thetas(&self) -> Vec<f64> {
        self.sets
            .iter()
            .map(|s| {
                let (scale, offset) = s.decision_scale();
                scale * offset
            })
            .collect()
    }

    /// The same model with no rule of any class set constraining the features `features`
    /// ([`RuleModel::without_constraints_on`]).
    pub fn without_constraints_on(&self, features: &[usize]) -> Result<Self> {
        Ok(Self {
            sets: self
                .sets
                .iter()
                .map(|s| s.without_constraints_on(features))
                .collect::<Result<Vec<_>>>()?,
            ..self.clone()
        })
    }

    /// The model whose set `i` keeps the rules `picked[i]` of set `i`, in that order
    /// ([`RuleModel::with_rules`]); the combination stays. What the multiclass accuracy-size
    /// path's models are (docs/semantics.md §10.1). Errors when `picked` does not give one
    /// list per set, or a list is empty, repeats a rule or names one the set does not have.
    pub fn with_rules(&self, picked: &[Vec<usize>]) -> Result<Self> {
        if picked.len() != self.sets.len() {
            return Err(FindRsError::InvalidParameter(format!(
                "the rules picked must be one list per class set ({}), got {}",
                self.sets.len(),
                picked.len()
            )));
        }
        Ok(Self {
            sets: self.sets.iter().zip(picked).map(|(s, p)| s.with_rules(p)).collect::<Result<Vec<_>>>()?,
            ..self.clone()
        })
    }

    /// A copy holding what prediction needs: each set's [`RuleModel::voting_only`].
    pub fn voting_only(&self) -> Self {
        Self {
            sets: self.sets.iter().map(RuleModel::voting_only).collect(),
            ..self.clone()
        }
    }

    /// Checks that `data` has this model's features.
    pub fn columns<'a>(&self, cols: Vec<&'a [u32]>) -> Result<Columns<'a>> {
        self.sets[0].columns(cols)
    }

    /// The class of every row (see the module docs).
    pub fn predict(&self, data: &Columns) -> Vec<u32> {
        let n = data.n_rows();
        match self.default {
            None => {
                let thetas = self.thetas();
                let mut best = vec![f64::NEG_INFINITY; n];
                let mut class = vec![0u32; n];
                for ((set, &theta), &c) in self.sets.iter().zip(&thetas).zip(&self.set_class) {
                    for (r, v) in set.votes(data).into_iter().enumerate() {
                        let score = v as f64 / theta;
                        if score > best[r] {
                            best[r] = score;
                            class[r] = c;
                        }
                    }
                }
                class
            }
            Some(default) => {
                let mut class: Vec<Option<u32>> = vec![None; n];
                for (set, &c) in self.sets.iter().zip(&self.set_class) {
                    let t = set.threshold();
                    for (r, v) in set.votes(data).into_iter().enumerate() {
                        if class[r].is_none() && v > t {
                            class[r] = Some(c);
                        }
                    }
                }
                class.into_iter().map(|c| c.unwrap_or(default)).collect()
            }
        }
    }
}

/// A fitted multiclass model and what the fit learned about the data besides it.
#[derive(Clone, Debug)]
pub struct FittedMulticlass {
    pub model: MulticlassModel,
    /// Training rows identical in every feature to a row of another class.
    pub contradictions: usize,
    /// Per set, in set order: the contradictions of its own training rows and labels (rows of
    /// its class identical to a row of another class it was learned against, and those rows).
    pub set_contradictions: Vec<usize>,
}

/// Fits one set per class (see the module docs) on `data` (training codes) with classes
/// `classes` (`classes[r]` below `n_classes`, each class present), every set with `options`.
/// `progress` counts the finished runs of every set (T per set).
pub fn fit_multiclass(
    schema: Schema,
    data: &Columns,
    classes: &[u32],
    n_classes: u32,
    combine: Combine,
    options: &FitOptions,
    progress: &Progress,
) -> Result<FittedMulticlass> {
    options.validate()?;
    if classes.len() != data.n_rows() {
        return Err(FindRsError::InvalidData(format!("{} classes for {} rows", classes.len(), data.n_rows())));
    }
    let mut counts = vec![0usize; n_classes as usize];
    for &c in classes {
        if c >= n_classes {
            return Err(FindRsError::InvalidData(format!("class {c} is out of range: there are {n_classes} classes")));
        }
        counts[c as usize] += 1;
    }
    if n_classes < 3 {
        return Err(FindRsError::InvalidParameter(format!(
            "a multiclass fit needs at least 3 classes, got {n_classes}"
        )));
    }
    if let Some(c) = counts.iter().position(|&k| k == 0) {
        return Err(FindRsError::InvalidData(format!("class {c} has no training row")));
    }
    // Most frequent first (ties: lower class first).
    let mut by_frequency: Vec<u32> = (0..n_classes).collect();
    by_frequency.sort_by_key(|&c| (std::cmp::Reverse(counts[c as usize]), c));
    let (set_class, default) = match combine {
        Combine::OneVsRest => (by_frequency, None),
        Combine::FrequentFirst => {
            let mut order = by_frequency;
            let default = order.pop();
            (order, default)
        }
        Combine::RarestFirst => {
            let mut order: Vec<u32> = (0..n_classes).collect();
            order.sort_by_key(|&c| (counts[c as usize], c));
            let default = order.pop();
            (order, default)
        }
    };
    let fit_set = |i: usize| -> Result<(RuleModel, usize)> {
        let c = set_class[i];
        match combine {
            Combine::OneVsRest => {
                let labels: Vec<bool> = classes.iter().map(|&k| k == c).collect();
                let f = fit(schema.clone(), data, &labels, options, progress)?;
                Ok((f.model, f.contradictions))
            }
            Combine::RarestFirst | Combine::FrequentFirst => {
                // The rows of this class and of the classes after it in the list.
                let mut later = vec![false; n_classes as usize];
                for &k in set_class[i..].iter().chain(default.iter()) {
                    later[k as usize] = true;
                }
                let rows: Vec<usize> = (0..classes.len()).filter(|&r| later[classes[r] as usize]).collect();
                let cols: Vec<Vec<u32>> = (0..data.n_features())
                    .map(|f| {
                        let col = data.column(f);
                        rows.iter().map(|&r| col[r]).collect()
                    })
                    .collect();
                let sub = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect())?;
                let labels: Vec<bool> = rows.iter().map(|&r| classes[r] == c).collect();
                let f = fit(schema.clone(), &sub, &labels, options, progress)?;
                Ok((f.model, f.contradictions))
            }
        }
    };
    let (sets, set_contradictions): (Vec<_>, Vec<_>) = (0..set_class.len())
        .into_par_iter()
        .map(fit_set)
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let model = MulticlassModel::new(n_classes, combine, set_class, sets, default)?;
    Ok(FittedMulticlass {
        model,
        contradictions: contradictions(data, classes),
        set_contradictions,
    })
}

/// Rows identical in every feature to a row of another class.
fn contradictions(data: &Columns, classes: &[u32]) -> usize {
    let groups = Groups::new(data.n_rows(), data.n_features(), |r, f| data.code(r, f), |r| r as u32);
    groups.contradictions(|r| classes[r])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::fit::RuleCount;
    use crate::data::schema::ConstraintKind;

    /// Random rows of `domains` with classes `0..k` from the first two features (so rules can
    /// describe them) and some noise.
    fn data(seed: u64, n: usize, domains: &[u32], k: u32) -> (Vec<Vec<u32>>, Vec<u32>) {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut rows = Vec::new();
        let mut classes = Vec::new();
        for _ in 0..n {
            let row: Vec<u32> = domains.iter().map(|&d| (next() % d as u64) as u32).collect();
            let c = if next() % 10 == 0 { (next() % k as u64) as u32 } else { (row[0] + 2 * row[1]) % k };
            rows.push(row);
            classes.push(c);
        }
        (rows, classes)
    }

    fn options(method: Method, seed: u64) -> FitOptions {
        FitOptions {
            method,
            tolerance: 0,
            n_runs: if method == Method::FindRs { 1 } else { 9 },
            seed,
            shuffle: true,
            n_rules: RuleCount::Auto { accuracy_ratio: 0.99 },
            ..FitOptions::default()
        }
    }

    /// The combination computed the plain way from each set's own predictions and votes.
    fn plain_predict(m: &MulticlassModel, rows: &[Vec<u32>]) -> Vec<u32> {
        let cols: Vec<Vec<u32>> = (0..m.schema().n_features()).map(|f| rows.iter().map(|r| r[f]).collect()).collect();
        let data = m.columns(cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let votes: Vec<Vec<u64>> = m.sets().iter().map(|s| s.votes(&data)).collect();
        let says: Vec<Vec<bool>> = m.sets().iter().map(|s| s.predict(&data)).collect();
        (0..rows.len())
            .map(|r| match m.combine() {
                Combine::RarestFirst | Combine::FrequentFirst => {
                    (0..m.sets().len()).find(|&i| says[i][r]).map(|i| m.set_classes()[i]).unwrap_or(m.default_class().unwrap())
                }
                Combine::OneVsRest => {
                    let thetas = m.thetas();
                    let mut best = 0;
                    for i in 1..m.sets().len() {
                        if votes[i][r] as f64 / thetas[i] > votes[best][r] as f64 / thetas[best] {
                            best = i;
                        }
                    }
                    m.set_classes()[best]
                }
            })
            .collect()
    }

    #[test]
    fn fits_predict_training_classes_and_combine_as_documented() {
        let domains = [3u32, 3, 2, 4, 3];
        for seed in 0..12u64 {
            for k in [3u32, 4, 5] {
                let (rows, classes) = data(seed, 160, &domains, k);
                if (0..k).any(|c| !classes.contains(&c)) {
                    continue;
                }
                let mut counts = vec![0usize; k as usize];
                classes.iter().for_each(|&c| counts[c as usize] += 1);
                for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                    let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
                    let cols: Vec<Vec<u32>> = (0..domains.len()).map(|f| rows.iter().map(|r| r[f]).collect()).collect();
                    let d = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                    for method in [Method::FindRs, Method::Bo, Method::Bp] {
                        for combine in [Combine::OneVsRest, Combine::RarestFirst, Combine::FrequentFirst] {
                            let ctx = format!("seed {seed} k {k} {kind:?} {method:?} {combine:?}");
                            let progress = Progress::default();
                            let f = fit_multiclass(schema.clone(), &d, &classes, k, combine, &options(method, seed), &progress)
                                .unwrap();
                            let m = &f.model;
                            let runs = if method == Method::FindRs { 0 } else { 9 };
                            assert_eq!(progress.finished.into_inner(), runs * m.sets().len(), "{ctx}");
                            // Set order: by frequency.
                            let freq: Vec<usize> = m.set_classes().iter().map(|&c| counts[c as usize]).collect();
                            match combine {
                                Combine::OneVsRest => assert!(freq.windows(2).all(|w| w[0] >= w[1]), "{ctx}"),
                                Combine::RarestFirst => {
                                    assert!(freq.windows(2).all(|w| w[0] <= w[1]), "{ctx}");
                                    let dflt = counts[m.default_class().unwrap() as usize];
                                    assert!(freq.iter().all(|&f| f <= dflt), "{ctx}");
                                }
                                Combine::FrequentFirst => {
                                    assert!(freq.windows(2).all(|w| w[0] >= w[1]), "{ctx}");
                                    let dflt = counts[m.default_class().unwrap() as usize];
                                    assert!(freq.iter().all(|&f| f >= dflt), "{ctx}");
                                }
                            }
                            // Training rows, unseen values and every class.
                            let mut probe = rows.clone();
                            probe.push(domains.iter().map(|&d| d).collect()); // unseen everywhere
                            let cols: Vec<Vec<u32>> =
                                (0..domains.len()).map(|f| probe.iter().map(|r| r[f]).collect()).collect();
                            let pd = m.columns(cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                            let pred = m.predict(&pd);
                            assert!(pred.iter().all(|&c| c < k), "{ctx}");
                            assert_eq!(pred, plain_predict(m, &probe), "{ctx}");
                            // A row no rule covers gets the most frequent class.
                            // (The rarest class for frequent-first.)
                            let top = (0..k).max_by_key(|&c| (counts[c as usize], std::cmp::Reverse(c))).unwrap();
                            let dl_top = (0..k).max_by_key(|&c| (counts[c as usize], c)).unwrap();
                            let dl_last = (0..k).min_by_key(|&c| (counts[c as usize], std::cmp::Reverse(c))).unwrap();
                            if kind == ConstraintKind::AttributeValue {
                                let want = match combine {
                                    Combine::OneVsRest => top,
                                    Combine::RarestFirst => dl_top,
                                    Combine::FrequentFirst => dl_last,
                                };
                                assert_eq!(*pred.last().unwrap(), want, "{ctx}");
                            }
                            // The voting-only copy predicts the same.
                            assert_eq!(m.voting_only().predict(&pd), pred, "{ctx}");
                            // With tau = 0 and FIND-RS, rows without contradictions are classified
                            // correctly on training data by the decision list.
                            if method == Method::FindRs && combine.is_list() && f.contradictions == 0 {
                                assert_eq!(&pred[..rows.len()], &classes[..], "{ctx}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// The model of picked rules per set (the path's models) keeps the combination.
    #[test]
    fn with_rules_keeps_the_combination_and_the_picked_rules() {
        let domains = [3u32, 3, 2, 2];
        let (rows, classes) = data(5, 150, &domains, 3);
        let schema = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let cols: Vec<Vec<u32>> = (0..domains.len()).map(|f| rows.iter().map(|r| r[f]).collect()).collect();
        let d = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        for combine in [Combine::OneVsRest, Combine::FrequentFirst] {
            let m = fit_multiclass(schema.clone(), &d, &classes, 3, combine, &options(Method::FindRs, 1), &Progress::default())
                .unwrap()
                .model;
            let all: Vec<Vec<usize>> = m.sets().iter().map(|s| (0..s.rule_set().rules().len()).collect()).collect();
            let same = m.with_rules(&all).unwrap();
            assert_eq!(same.predict(&d), m.predict(&d));
            let first: Vec<Vec<usize>> = m.sets().iter().map(|_| vec![0]).collect();
            let small = m.with_rules(&first).unwrap();
            assert_eq!((small.combine(), small.set_classes(), small.default_class()), (m.combine(), m.set_classes(), m.default_class()));
            assert!(small.sets().iter().zip(m.sets()).all(|(a, b)| a.rule_set().rules() == &b.rule_set().rules()[..1]));
            assert!(m.with_rules(&first[1..]).is_err());
            let mut empty = first.clone();
            empty[0].clear();
            assert!(m.with_rules(&empty).is_err());
        }
    }

    /// A feature of one training code (docs/semantics.md §2.1) dropped from every class set:
    /// the same predictions on rows holding that code, and a row with the unseen code there
    /// predicted as one holding the training code; the combination stays.
    #[test]
    fn without_constraints_on_frees_every_class_set() {
        let domains = [3u32, 3, 1, 2];
        let (rows, classes) = data(3, 150, &domains, 3);
        let schema = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let cols: Vec<Vec<u32>> = (0..domains.len()).map(|f| rows.iter().map(|r| r[f]).collect()).collect();
        let d = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        for combine in [Combine::OneVsRest, Combine::RarestFirst] {
            for method in [Method::FindRs, Method::Bp] {
                let f = fit_multiclass(schema.clone(), &d, &classes, 3, combine, &options(method, 1), &Progress::default())
                    .unwrap();
                let m = f.model;
                assert!(m.sets().iter().all(|s| s.rule_set().rules().iter().all(|r| !r.is_free(&schema, 2))));
                let free = m.without_constraints_on(&[2]).unwrap();
                assert_eq!((free.combine(), free.set_classes(), free.default_class()), (m.combine(), m.set_classes(), m.default_class()));
                assert!(free.sets().iter().all(|s| s.rule_set().rules().iter().all(|r| r.is_free(&schema, 2))));
                let mut unseen = cols.clone();
                unseen[2] = vec![1; rows.len()];
                let u = Columns::new(&schema, unseen.iter().map(|c| c.as_slice()).collect()).unwrap();
                assert_eq!(free.predict(&d), m.predict(&d));
                assert_eq!(free.predict(&u), m.predict(&d));
                assert!(m.without_constraints_on(&[4]).is_err());
            }
        }
    }

    #[test]
    fn the_thread_count_never_changes_the_model() {
        let domains = [3u32, 3, 2, 4];
        let (rows, classes) = data(5, 200, &domains, 4);
        let schema = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let cols: Vec<Vec<u32>> = (0..domains.len()).map(|f| rows.iter().map(|r| r[f]).collect()).collect();
        let d = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        for combine in [Combine::OneVsRest, Combine::RarestFirst, Combine::FrequentFirst] {
            let fits: Vec<String> = [1, 2, 3]
                .iter()
                .map(|&n| {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                    let f = pool.install(|| {
                        fit_multiclass(schema.clone(), &d, &classes, 4, combine, &options(Method::Bp, 3), &Progress::default())
                            .unwrap()
                    });
                    crate::io::json::multiclass_to_json(&f.model)
                })
                .collect();
            assert!(fits.iter().all(|f| *f == fits[0]));
        }
    }

    #[test]
    fn contradictions_count_rows_of_mixed_classes() {
        let schema = Schema::uniform(vec![2, 2], ConstraintKind::AttributeValue).unwrap();
        let a = [0u32, 0, 0, 1, 1, 1];
        let b = [0u32, 0, 1, 1, 1, 0];
        let d = Columns::new(&schema, vec![&a, &b]).unwrap();
        // (0,0) x2 with classes 0 and 1; (1,1) x2 with classes 2 and 2; the rest single.
        assert_eq!(contradictions(&d, &[0, 1, 2, 2, 2, 0]), 2);
        let classes = [0u32, 1, 2, 2, 2, 0];
        let bad = |c: &[u32], k: u32| fit_multiclass(schema.clone(), &d, c, k, Combine::OneVsRest, &options(Method::FindRs, 0), &Progress::default()).unwrap_err().to_string();
        assert!(bad(&classes[..5], 3).contains("5 classes for 6 rows"));
        assert!(bad(&classes, 2).contains("out of range"));
        assert!(bad(&[0, 1, 3, 3, 3, 0], 4).contains("class 2 has no training row"));
        assert!(bad(&[0, 1, 1, 1, 1, 0], 2).contains("at least 3 classes"));
    }

    #[test]
    fn constructor_refuses_inconsistent_parts() {
        let domains = [3u32, 3, 2];
        let (rows, classes) = data(1, 120, &domains, 3);
        let schema = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let cols: Vec<Vec<u32>> = (0..domains.len()).map(|f| rows.iter().map(|r| r[f]).collect()).collect();
        let d = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let m = fit_multiclass(schema.clone(), &d, &classes, 3, Combine::OneVsRest, &options(Method::FindRs, 0), &Progress::default())
            .unwrap()
            .model;
        let sets = m.sets().to_vec();
        let err = |n: u32, c: Combine, sc: Vec<u32>, s: Vec<RuleModel>, dflt: Option<u32>| {
            MulticlassModel::new(n, c, sc, s, dflt).unwrap_err().to_string()
        };
        assert!(MulticlassModel::new(3, Combine::OneVsRest, vec![2, 0, 1], sets.clone(), None).is_ok());
        assert!(err(2, Combine::OneVsRest, vec![0, 1], sets[..2].to_vec(), None).contains("at least 3"));
        assert!(err(3, Combine::OneVsRest, vec![0, 1], sets.clone(), None).contains("3 rule sets but 2"));
        assert!(err(3, Combine::OneVsRest, vec![0, 1, 1], sets.clone(), None).contains("class 1 has two"));
        assert!(err(3, Combine::OneVsRest, vec![0, 1, 3], sets.clone(), None).contains("out of range"));
        assert!(err(3, Combine::OneVsRest, vec![0, 1, 2], sets.clone(), Some(0)).contains("no default"));
        assert!(err(3, Combine::RarestFirst, vec![0, 1], sets[..2].to_vec(), None).contains("has a default"));
        assert!(err(3, Combine::RarestFirst, vec![0, 1], sets[..2].to_vec(), Some(1)).contains("class 1 has two"));
        assert!(err(3, Combine::RarestFirst, vec![0, 1], sets[..2].to_vec(), Some(3)).contains("out of range"));
        assert!(err(4, Combine::RarestFirst, vec![0, 1], sets[..2].to_vec(), Some(3)).contains("has 3 rule sets, got 2"));
        let other = Schema::uniform(vec![3, 3, 3], ConstraintKind::AttributeValue).unwrap();
        let cols3: Vec<Vec<u32>> = vec![vec![0, 1, 2, 0], vec![0, 1, 2, 1], vec![0, 0, 1, 2]];
        let d3 = Columns::new(&other, cols3.iter().map(|c| c.as_slice()).collect()).unwrap();
        let alien = fit(other, &d3, &[true, false, true, false], &options(Method::FindRs, 0), &Progress::default()).unwrap().model;
        let mut mixed = sets.clone();
        mixed[1] = alien;
        assert!(err(3, Combine::OneVsRest, vec![0, 1, 2], mixed, None).contains("one schema"));
        assert!(Combine::parse("ovr").is_err());
        for name in ["one-vs-rest", "rarest-first", "frequent-first"] {
            assert_eq!(Combine::parse(name).unwrap().name(), name);
        }
    }
}
