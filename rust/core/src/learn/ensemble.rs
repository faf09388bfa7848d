//! T FIND-RS runs in parallel and their aggregation into weighted unique rules (semantics §5).
//!
//! Invariants: run `t` presents the positives in the order drawn from ChaCha8 seeded with
//! `seed` on stream `t`, so a model depends on (data, parameters, seed, T) and never on the
//! number of threads or on scheduling; aggregated rules are ranked by weight (alpha) descending,
//! ties by first discovery (run index, then position in the run's pruned list).

use crate::learn::acceptance::Acceptance;
use crate::data::error::{FindRsError, Result};
use crate::learn::prune::run_pruned;
use crate::data::rule::Rule;
use crate::learn::run::Runner;
use crate::learn::simplify::Simplifier;
use crate::learn::training::TrainingSet;
use crate::learn::widen::{widen_run, Widen};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The presentation order of run `t`: row order without shuffling, else a permutation drawn
/// from ChaCha8 (seed `seed`, stream `t`).
pub fn run_order(n_positives: usize, seed: u64, t: u64, shuffle: bool) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n_positives as u32).collect();
    if shuffle {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(t);
        order.shuffle(&mut rng);
    }
    order
}

/// Shared flags between a long fit and its caller: set `cancel` to stop between runs;
/// `finished` counts finished runs (for progress bars).
#[derive(Default, Debug)]
pub struct Progress {
    pub cancel: AtomicBool,
    pub finished: AtomicUsize,
}

/// The pruned rule lists of the runs `runs` (run indexes; each simplified if `simplify`, then
/// its intervals widened if `widen`), computed in parallel on the current rayon pool. Run `t`'s
/// order depends on `seed` and `t` only, so the runs of `0..T` computed in any chunks are those
/// of one call on `0..T`.
#[allow(clippy::too_many_arguments)]
pub fn fit_runs(
    ts: &TrainingSet,
    acc: Acceptance,
    min_support: u32,
    runs: std::ops::Range<u64>,
    seed: u64,
    shuffle: bool,
    simplify: bool,
    widen: Widen,
    progress: &Progress,
) -> Result<Vec<Vec<Rule>>> {
    let runs: Vec<Option<Vec<Rule>>> = runs
        .into_par_iter()
        .map_init(
            || {
                (
                    Runner::new(ts, acc),
                    simplify.then(|| Simplifier::new(ts, acc)),
                )
            },
            |(runner, simplifier), t| {
                if progress.cancel.load(Ordering::Relaxed) {
                    return None;
                }
                let order = run_order(ts.n_positives(), seed, t, shuffle);
                let mut rules = run_pruned(runner, ts, &order, min_support);
                if let Some(s) = simplifier {
                    rules = s.simplify_run(&rules);
                }
                rules = widen_run(ts, widen, rules);
                progress.finished.fetch_add(1, Ordering::Relaxed);
                Some(rules)
            },
        )
        .collect();
    runs.into_iter()
        .map(|r| r.ok_or(FindRsError::Cancelled))
        .collect()
}

/// Unique rules of T runs with their weights, ranked (docs/semantics.md §5).
#[derive(Clone, Debug)]
pub struct Aggregate {
    /// Unique rules, ranked by `alpha` descending, ties by first discovery.
    pub rules: Vec<Rule>,
    /// `alpha[i]`: the number of runs whose pruned rule set contains `rules[i]`.
    pub alpha: Vec<u32>,
    /// For each run, the ranks (indices into `rules`) of its rules, in the run's order.
    pub runs: Vec<Vec<u32>>,
}

pub fn aggregate(runs: Vec<Vec<Rule>>) -> Aggregate {
    let mut index: HashMap<Rule, u32> = HashMap::new();
    let mut unique: Vec<Rule> = Vec::new();
    let mut alpha: Vec<u32> = Vec::new();
    let mut members: Vec<Vec<u32>> = Vec::with_capacity(runs.len());
    for run in runs {
        let mut ids = Vec::with_capacity(run.len());
        for rule in run {
            let id = *index.entry(rule.clone()).or_insert_with(|| {
                unique.push(rule);
                alpha.push(0);
                (unique.len() - 1) as u32
            });
            // A run's pruned set has no duplicates unless contradictions made two point rules.
            if !ids.contains(&id) {
                alpha[id as usize] += 1;
            }
            ids.push(id);
        }
        members.push(ids);
    }
    // Stable sort: equal alphas keep discovery order.
    let mut order: Vec<u32> = (0..unique.len() as u32).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(alpha[i as usize]));
    let mut rank = vec![0u32; unique.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i as usize] = r as u32;
    }
    let mut slots: Vec<Option<Rule>> = unique.into_iter().map(Some).collect();
    let rules = order
        .iter()
        .map(|&i| slots[i as usize].take().expect("each rule once"))
        .collect();
    let alpha = order.iter().map(|&i| alpha[i as usize]).collect();
    let runs = members
        .into_iter()
        .map(|ids| ids.into_iter().map(|i| rank[i as usize]).collect())
        .collect();
    Aggregate { rules, alpha, runs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::schema::{ConstraintKind, Schema};

    #[test]
    fn orders_depend_on_seed_and_run_only() {
        assert_eq!(run_order(5, 1, 0, false), vec![0, 1, 2, 3, 4]);
        let a = run_order(50, 7, 3, true);
        assert_eq!(a, run_order(50, 7, 3, true));
        assert_ne!(a, run_order(50, 7, 4, true));
        assert_ne!(a, run_order(50, 8, 3, true));
        let mut s = a.clone();
        s.sort();
        assert_eq!(s, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn aggregate_counts_and_ranks() {
        let schema = Schema::uniform(vec![2, 2], ConstraintKind::AttributeValue).unwrap();
        let r = |a: u32, b: u32| Rule::from_row(&schema, &[a, b]);
        let runs = vec![
            vec![r(0, 0), r(1, 1)],
            vec![r(1, 1), r(0, 1)],
            vec![r(0, 1), r(1, 1)],
        ];
        let agg = aggregate(runs);
        assert_eq!(agg.alpha, vec![3, 2, 1]);
        assert_eq!(agg.rules, vec![r(1, 1), r(0, 1), r(0, 0)]);
        assert_eq!(agg.runs, vec![vec![2, 0], vec![0, 1], vec![1, 0]]);
    }

    /// Rule identity with intervals is equality of constraints: the same interval reached by
    /// widening, from codes or from an `Interval` is one rule, and aggregation merges it.
    #[test]
    fn aggregate_merges_equal_interval_rules() {
        use crate::data::interval::Interval;
        use crate::learn::run::interval_tests::{av, iv, mixed_schema};
        let schema = mixed_schema(&[iv(5, true), av(2)]);
        // Values 1, 3, 5, 7, 9; null 11.
        let mut widened = Rule::from_row(&schema, &[5, 0]);
        widened.generalize(&schema, &[3, 0]);
        widened.generalize(&schema, &[11, 0]);
        let coded = Rule::from_constraints(&schema, &[(0, vec![3, 5, 11]), (1, vec![0])]).unwrap();
        let interval = Rule::from_parts(
            &schema,
            &[(1, vec![0])],
            &[(0, Interval { values: Some((1, 2)), null: true })],
        )
        .unwrap();
        assert_eq!(widened, coded);
        assert_eq!(widened, interval);
        let other = Rule::from_row(&schema, &[3, 0]);
        let agg = aggregate(vec![vec![widened, other.clone()], vec![coded], vec![interval, other]]);
        assert_eq!(agg.alpha, vec![3, 2]);
        assert_eq!(agg.runs, vec![vec![0, 1], vec![0], vec![0, 1]]);
    }
}
