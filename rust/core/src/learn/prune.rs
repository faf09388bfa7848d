//! Prune (semantics §4): visit rules from last to first and drop rule `i` iff every example of its
//! bucket is covered by some later rule that is kept. Before it, an optional support filter
//! (semantics §9.2) drops every rule covering fewer than `min_support` training positives.
//!
//! Invariants:
//! - every training positive covered by the run's rules before pruning is covered by the kept
//!   rules after it (a rule is dropped only when its bucket, the positives it alone may account
//!   for by Proposition 4.1, is covered by kept rules; the authors' first-to-last sweep does not
//!   keep this when tau > 0);
//! - with `min_support = s`: every kept rule covers at least `s` training positives, and every
//!   training positive covered by a rule of support `>= s` before pruning is covered after it
//!   (prune runs over the supported rules, each positive of an unsupported rule's bucket joining
//!   the bucket of the last supported rule that covers it). `s <= 1` drops nothing: every rule
//!   covers the positive it was made from;
//! - a [`Coverage`] evaluates each rule's coverage of the training positives at most once, so
//!   pruning one run under several supports ([`prune_covered`]) gives what separate
//!   [`prune_supported`] calls give.

use crate::learn::acceptance::Acceptance;
use crate::data::bitset;
use crate::data::rule::{Rule, Terms};
use crate::learn::run::Runner;
use crate::learn::training::TrainingSet;

/// The training positives each rule of one run covers (a bitset over the positives' index per
/// rule), evaluated on first ask and kept: prune under several supports (the cross-validation
/// scores a run under each support candidate) evaluates each rule once.
pub struct Coverage<'a> {
    ts: &'a TrainingSet,
    rules: &'a [Rule],
    /// Rule `i`'s bitset is `words[i * nw..(i + 1) * nw]`, valid where `done[i]`.
    words: Vec<u64>,
    done: Vec<bool>,
    terms: Terms,
}

impl<'a> Coverage<'a> {
    pub fn new(ts: &'a TrainingSet, rules: &'a [Rule]) -> Self {
        Self {
            ts,
            rules,
            words: vec![0; rules.len() * ts.positives.n_words()],
            done: vec![false; rules.len()],
            terms: Terms::new(),
        }
    }

    /// The training positives rule `i` covers.
    fn of(&mut self, i: usize) -> &[u64] {
        let (ts, nw) = (self.ts, self.ts.positives.n_words());
        let out = &mut self.words[i * nw..(i + 1) * nw];
        if !self.done[i] {
            self.rules[i].terms(&ts.schema, &mut self.terms);
            // Rarest among the positives first: the same rows, fewer ANDs per word.
            self.terms.sort_singles_by_key(|s| ts.pos_slot_rows(s));
            ts.positives.or_covered_into(&self.terms, out);
            self.done[i] = true;
        }
        out
    }
}

/// Indices (increasing) of the rules of one run that prune keeps, given the rules in creation
/// order and their buckets (the fits prune through [`prune_supported`], whose support `<= 1`
/// is this).
#[cfg(test)]
pub fn prune(ts: &TrainingSet, rules: &[Rule], buckets: &[Vec<u32>]) -> Vec<usize> {
    prune_covered(&mut Coverage::new(ts, rules), buckets, 0)
}

/// [`prune`] over the rules that cover at least `min_support` training positives (`<= 1`:
/// plain [`prune`]). The positives of a dropped (unsupported) rule's bucket, its *orphans*,
/// join the bucket of the last supported rule covering them, so that prune keeps them covered.
pub fn prune_supported(
    ts: &TrainingSet,
    rules: &[Rule],
    buckets: &[Vec<u32>],
    min_support: u32,
) -> Vec<usize> {
    prune_covered(&mut Coverage::new(ts, rules), buckets, min_support)
}

/// [`prune_supported`] of the run whose rules `cov` evaluates (`buckets` theirs); `cov` may
/// be shared by calls with different supports.
pub fn prune_covered(cov: &mut Coverage, buckets: &[Vec<u32>], min_support: u32) -> Vec<usize> {
    let n = buckets.len();
    let nw = cov.ts.positives.n_words();
    let mut supported = vec![true; n];
    let mut orphans = vec![0u64; nw];
    if min_support > 1 {
        for i in 0..n {
            // A bucket of `s` positives proves the support without counting.
            if buckets[i].len() < min_support as usize {
                let count: u32 = cov.of(i).iter().map(|w| w.count_ones()).sum();
                if count < min_support {
                    supported[i] = false;
                    for &p in &buckets[i] {
                        bitset::set(&mut orphans, p as usize);
                    }
                }
            }
        }
    }
    let mut n_orphans: u32 = orphans.iter().map(|w| w.count_ones()).sum();
    let mut marked = vec![0u64; nw];
    let mut kept = Vec::new();
    for i in (0..n).rev() {
        if !supported[i] {
            continue;
        }
        let mut redundant = buckets[i].iter().all(|&p| bitset::get(&marked, p as usize));
        // The orphans this rule covers and no later supported rule did are its own now (with
        // no orphan left, nothing to do: the rule is evaluated only if it is kept).
        if n_orphans > 0 {
            let covered = cov.of(i);
            for w in 0..nw {
                let mine = orphans[w] & covered[w];
                redundant &= mine & !marked[w] == 0;
                n_orphans -= mine.count_ones();
                orphans[w] &= !mine;
            }
        }
        if redundant {
            continue;
        }
        kept.push(i);
        for (m, c) in marked.iter_mut().zip(cov.of(i)) {
            *m |= c;
        }
    }
    kept.reverse();
    kept
}

/// One FIND-RS run followed by the support filter and prune: the kept rules in creation order.
pub fn find_rs_pruned(ts: &TrainingSet, order: &[u32], acc: Acceptance, min_support: u32) -> Vec<Rule> {
    run_pruned(&mut Runner::new(ts, acc), ts, order, min_support)
}

/// [`find_rs_pruned`] with a reusable runner.
pub fn run_pruned(runner: &mut Runner, ts: &TrainingSet, order: &[u32], min_support: u32) -> Vec<Rule> {
    runner.run(order);
    let kept = prune_supported(ts, runner.rules(), runner.buckets(), min_support);
    kept.into_iter()
        .map(|i| runner.rules()[i].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::columns::Columns;
    use crate::learn::run::find_rs;
    use crate::learn::run::tests::{columns_of, random_data, training_set};
    use crate::data::schema::{ConstraintKind, Schema};

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
                    let run = find_rs(&ts, &order, Acceptance::absolute(tau));
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

    /// The support guarantee (docs/semantics.md §9.2): every kept rule covers at least `s`
    /// training positives, and every positive covered by a rule of support `>= s` before
    /// pruning stays covered; `s <= 1` is plain prune. Also with interval features.
    #[test]
    fn support_filter_keeps_its_guarantees() {
        use crate::learn::run::interval_tests::{av, iv, mixed_data, mixed_schema, oh};
        let domains = [3u32, 2, 4, 3, 2];
        let specs = [iv(6, true), av(3), iv(20, false), oh(3)];
        let mixed = mixed_schema(&specs);
        for seed in 0..60u64 {
            let mut cases = Vec::new();
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                let (rows, labels) = random_data(seed + 2000, 80, &domains);
                if let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind) {
                    cases.push((schema, ts));
                }
            }
            let (rows, labels) = mixed_data(seed + 3000, 80, &specs, seed % 2 == 0);
            let cols = columns_of(&rows, specs.len());
            let data = Columns::new(&mixed, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            if let Ok(ts) = TrainingSet::new(mixed.clone(), &data, &labels) {
                cases.push((mixed.clone(), ts));
            }
            for (schema, ts) in &cases {
                for (tau, eps) in [(0u32, 0.0), (1, 0.0), (0, 0.2)] {
                    let acc = Acceptance::new(tau, eps).unwrap();
                    let order: Vec<u32> = (0..ts.n_positives() as u32).collect();
                    let run = find_rs(ts, &order, acc);
                    let support = |r: &Rule| {
                        (0..ts.n_positives())
                            .filter(|&p| r.covers_row(schema, ts.pos_codes(p)))
                            .count() as u32
                    };
                    let plain = prune(ts, &run.rules, &run.buckets);
                    for s in [0u32, 1, 2, 3, 5] {
                        let kept = prune_supported(ts, &run.rules, &run.buckets, s);
                        if s <= 1 {
                            assert_eq!(kept, plain);
                        }
                        for &i in &kept {
                            assert!(support(&run.rules[i]) >= s, "seed {seed} s {s}");
                        }
                        for p in 0..ts.n_positives() {
                            let row = ts.pos_codes(p);
                            let before = run
                                .rules
                                .iter()
                                .any(|r| support(r) >= s && r.covers_row(schema, row));
                            let after = kept.iter().any(|&i| run.rules[i].covers_row(schema, row));
                            assert!(!before || after, "seed {seed} s {s}: positive {p} lost");
                        }
                    }
                }
            }
        }
    }

    /// One [`Coverage`] shared by the supports of a run (as the cross-validation shares it)
    /// keeps what separate [`prune_supported`] calls keep, supports in any order.
    #[test]
    fn shared_coverage_prunes_as_separate_calls() {
        use crate::learn::run::interval_tests::{av, iv, mixed_data, mixed_schema, oh};
        let specs = [iv(6, true), av(3), iv(20, false), oh(3)];
        let mixed = mixed_schema(&specs);
        let domains = [3u32, 2, 4, 3, 2];
        for seed in 0..40u64 {
            let mut cases = Vec::new();
            let (rows, labels) = random_data(seed + 4000, 90, &domains);
            if let Some((_, ts)) = training_set(&rows, &labels, &domains, ConstraintKind::AttributeValue) {
                cases.push(ts);
            }
            let (rows, labels) = mixed_data(seed + 5000, 90, &specs, seed % 2 == 1);
            let cols = columns_of(&rows, specs.len());
            let data = Columns::new(&mixed, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            if let Ok(ts) = TrainingSet::new(mixed.clone(), &data, &labels) {
                cases.push(ts);
            }
            for ts in &cases {
                let order: Vec<u32> = (0..ts.n_positives() as u32).rev().collect();
                let run = find_rs(ts, &order, Acceptance::new(seed as u32 % 2, 0.0).unwrap());
                let mut cov = Coverage::new(ts, &run.rules);
                for s in [3u32, 0, 5, 2, 1, 3, 8] {
                    let want = prune_supported(ts, &run.rules, &run.buckets, s);
                    assert_eq!(prune_covered(&mut cov, &run.buckets, s), want, "seed {seed} s {s}");
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
        let run = find_rs(&ts, &[1, 2, 0], Acceptance::absolute(0));
        assert_eq!(run.rules.len(), 2);
        assert_eq!(prune(&ts, &run.rules, &run.buckets), vec![0, 1]);
        // Order: (0,0) first, then (0,1) generalizes it to "a = 0"; (1,1) makes "a=1,b=1".
        let run = find_rs(&ts, &[0, 1, 2], Acceptance::absolute(0));
        assert_eq!(run.rules.len(), 2);
        assert_eq!(prune(&ts, &run.rules, &run.buckets), vec![0, 1]);
    }
}
