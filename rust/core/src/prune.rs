//! Prune (semantics §4): visit rules from last to first and drop rule `i` iff every example of its
//! bucket is covered by some later rule that is kept.
//!
//! Invariant: every training positive covered by the run's rules before pruning is covered by
//! the kept rules after it (a rule is dropped only when its bucket, the positives it alone may
//! account for by Proposition 4.1, is covered by kept rules; the authors' first-to-last sweep
//! does not keep this when tau > 0).

use crate::bitset;
use crate::rule::{Rule, Terms};
use crate::run::Runner;
use crate::training::TrainingSet;

/// Indices (increasing) of the rules of one run that prune keeps, given the rules in creation
/// order and their buckets.
pub fn prune(ts: &TrainingSet, rules: &[Rule], buckets: &[Vec<u32>]) -> Vec<usize> {
    let mut marked = vec![0u64; ts.positives.n_words()];
    let mut kept = Vec::new();
    let mut terms = Terms::new();
    for i in (0..rules.len()).rev() {
        let redundant = buckets[i].iter().all(|&p| bitset::get(&marked, p as usize));
        if redundant {
            continue;
        }
        kept.push(i);
        rules[i].terms(&ts.schema, &mut terms);
        ts.positives.or_covered_into(&terms, &mut marked);
    }
    kept.reverse();
    kept
}

/// One FIND-RS run followed by prune: the kept rules in creation order.
pub fn find_rs_pruned(ts: &TrainingSet, order: &[u32], tau: u32) -> Vec<Rule> {
    run_pruned(&mut Runner::new(ts, tau), ts, order)
}

/// [`find_rs_pruned`] with a reusable runner.
pub fn run_pruned(runner: &mut Runner, ts: &TrainingSet, order: &[u32]) -> Vec<Rule> {
    runner.run(order);
    let kept = prune(ts, runner.rules(), runner.buckets());
    kept.into_iter()
        .map(|i| runner.rules()[i].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Columns;
    use crate::run::find_rs;
    use crate::run::tests::{columns_of, random_data, training_set};
    use crate::schema::{ConstraintKind, Schema};

    /// semantics §4: prune never uncovers a training positive, for tau in 0..=3, both encodings,
    /// with contradictions allowed.
    #[test]
    fn prune_keeps_coverage_of_positives() {
        let domains = [3u32, 2, 4, 3, 2];
        for seed in 0..80u64 {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                for tau in 0..4u32 {
                    let (rows, labels) = random_data(seed + 1000, 70, &domains);
                    let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind) else {
                        continue;
                    };
                    let order: Vec<u32> = (0..ts.n_positives() as u32).collect();
                    let run = find_rs(&ts, &order, tau);
                    let kept = prune(&ts, &run.rules, &run.buckets);
                    for p in 0..ts.n_positives() {
                        let row = ts.pos_codes(p);
                        let before = run.rules.iter().any(|r| r.covers_row(&schema, row));
                        let after = kept.iter().any(|&i| run.rules[i].covers_row(&schema, row));
                        assert!(before, "every positive is in some bucket");
                        assert!(
                            after,
                            "prune uncovered positive {p} (seed {seed}, tau {tau})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn prune_drops_a_rule_whose_bucket_later_rules_cover() {
        // Three positives; the first alone, the next two generalize into a rule covering it.
        let schema = Schema::uniform(vec![2, 2], ConstraintKind::AttributeValue).unwrap();
        let rows = vec![vec![0, 0], vec![0, 1], vec![1, 1], vec![1, 0]];
        let labels = vec![true, true, true, false];
        let cols = columns_of(&rows, 2);
        let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let ts = TrainingSet::new(schema.clone(), &data, &labels).unwrap();
        // Order: (0,1), (1,1) -> rule "b = 1"; then (0,0) cannot join -> rule "a=0,b=0".
        let run = find_rs(&ts, &[1, 2, 0], 0);
        assert_eq!(run.rules.len(), 2);
        assert_eq!(prune(&ts, &run.rules, &run.buckets), vec![0, 1]);
        // Order: (0,0) first, then (0,1) generalizes it to "a = 0"; (1,1) makes "a=1,b=1".
        let run = find_rs(&ts, &[0, 1, 2], 0);
        assert_eq!(run.rules.len(), 2);
        assert_eq!(prune(&ts, &run.rules, &run.buckets), vec![0, 1]);
    }
}
