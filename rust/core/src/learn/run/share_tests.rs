//! Tests of a run under a share tolerance on noisy repeated rows (docs/semantics.md §9.1): no
//! rule that fails the test is ever made, so every rule of the rule set passes it at every step
//! of the run, and a positive is left in no bucket exactly when its own rows fail the test and
//! no rule took it.

use crate::learn::acceptance::Acceptance;
use crate::learn::run::tests::{naive_find_rs, training_set};
use crate::learn::run::copies::Broken;
use crate::learn::run::{find_rs, Runner};
use crate::data::rule::Rule;
use crate::data::schema::ConstraintKind;
use crate::learn::training::TrainingSet;

/// A few feature vectors, each with a majority label and about one row in six flipped, so
/// that many vectors hold both labels and some of their positives' own rows fail a share.
fn noisy_repeated_rows(seed: u64, domains: &[u32]) -> (Vec<Vec<u32>>, Vec<bool>, Vec<u32>) {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let n = 100 + 5 * seed as usize;
    let mut rows = Vec::with_capacity(n);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let row: Vec<u32> = domains.iter().map(|&d| (next() % d as u64) as u32).collect();
        let majority = (row.iter().sum::<u32>() + seed as u32) % 3 != 0;
        labels.push(majority ^ (next() % 6 == 0));
        rows.push(row);
    }
    let n_pos = labels.iter().filter(|&&y| y).count() as u32;
    let mut order: Vec<u32> = (0..n_pos).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    (rows, labels, order)
}

/// Calls `check` for every share run of the tests below: seeds 0..24 of `noisy_repeated_rows`,
/// AV and OH, shares 0.1, 0.2 and 0.35 (`tau = 0`), with the plain Algorithm 1's rules and
/// buckets (as training rows) for the same order.
fn for_each_share_run(mut check: impl FnMut(&str, &TrainingSet, &[u32], Acceptance, &[Rule], &[Vec<usize>])) {
    let domains = [2u32, 3, 2, 3];
    for seed in 0..24u64 {
        let (rows, labels, order) = noisy_repeated_rows(seed, &domains);
        for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
            let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind) else {
                continue;
            };
            let rows_order: Vec<usize> = order.iter().map(|&i| ts.pos_rows[i as usize] as usize).collect();
            for eps in [0.1, 0.2, 0.35] {
                let acc = Acceptance::new(0, eps).unwrap();
                let (rules, buckets) = naive_find_rs(&schema, &rows, &labels, &rows_order, acc);
                check(&format!("seed {seed} {kind:?} eps {eps}"), &ts, &order, acc, &rules, &buckets);
            }
        }
    }
}

/// Runs in a shuffled order equal the plain Algorithm 1 with the share's rule (rules and
/// buckets), and positives whose own rows fail the test were met and left out (so the path
/// that refuses them is exercised; the old core made them rules and fails this).
#[test]
fn noisy_repeated_rows_equal_algorithm_1() {
    let (mut refused, mut runs) = (0, 0);
    for_each_share_run(|what, ts, order, acc, rules, buckets| {
        let mut runner = Runner::new(ts, acc);
        runner.run(order);
        runs += 1;
        let placed: usize = runner.buckets().iter().map(Vec::len).sum();
        refused += order.len() - placed;
        assert_eq!(runner.rules(), rules, "{what}");
        let fast: Vec<Vec<usize>> = runner
            .buckets()
            .iter()
            .map(|b| b.iter().map(|&i| ts.pos_rows[i as usize] as usize).collect())
            .collect();
        assert_eq!(fast, buckets, "{what}");
    });
    assert!(refused > 100, "{runs} runs refused only {refused} positives");
}

/// The invariant of a share run, checked after every step (each prefix of the order is a run
/// that stops there): every rule covers `(n, p)` training negatives and positives that the test
/// accepts, a rule made from one positive included; a positive in no bucket is one whose own
/// rows (those identical to it) fail the test, and `own_counts` are those rows' counts.
#[test]
fn every_rule_passes_the_share_test_at_every_step() {
    let domains = [2u32, 3, 2];
    let mut checked = (0usize, 0usize);
    for seed in 0..10u64 {
        let (rows, labels, order) = noisy_repeated_rows(seed, &domains);
        for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
            let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind) else {
                continue;
            };
            let own = |p: usize| {
                let row = ts.pos_codes(p);
                let same = |y: bool| rows.iter().zip(&labels).filter(|(r, &l)| l == y && r.as_slice() == row).count() as u32;
                (same(false), same(true))
            };
            for (tau, eps) in [(0, 0.1), (0, 0.25), (1, 0.2)] {
                let acc = Acceptance::new(tau, eps).unwrap();
                for end in 1..=order.len() {
                    let run = find_rs(&ts, &order[..end], acc);
                    for rule in &run.rules {
                        let count = |y: bool| {
                            rows.iter().zip(&labels).filter(|(r, &l)| l == y && rule.covers_row(&schema, r)).count() as u32
                        };
                        let (n, p) = (count(false), count(true));
                        assert!(acc.accepts(n, p), "seed {seed} {kind:?} {acc:?} step {end}: n {n} p {p}");
                        checked.0 += 1;
                    }
                    let q = order[end - 1] as usize;
                    assert_eq!(ts.own_counts(q), own(q));
                    if !run.buckets.iter().flatten().any(|&b| b as usize == q) {
                        let (n, p) = own(q);
                        assert!(!acc.accepts(n, p), "seed {seed} step {end}: positive {q} left out");
                        checked.1 += 1;
                    }
                }
            }
        }
    }
    assert!(checked.0 > 10_000 && checked.1 > 100, "too little seen: {checked:?}");
}

/// A candidate counted and rejected once in a run is never counted again, whichever rule it
/// comes from and however that rule changed since (the run's memory of rejected candidates,
/// `run/rejected.rs`), and the runs still equal the plain Algorithm 1. Fails when the memory
/// is not consulted (counted again: thousands of times here) or not filled.
#[test]
fn a_rejected_candidate_is_counted_once_per_run() {
    let (mut hits, mut runs) = (0, 0);
    for_each_share_run(|what, ts, order, acc, rules, _| {
        let mut runner = Runner::new(ts, acc);
        // Twice on one runner: the memory is the run's, forgotten by the next.
        for _ in 0..2 {
            runner.run(order);
            runs += 1;
            let (h, recounted) = runner.candidate_memory();
            assert_eq!(recounted, 0, "{what}: a rejected candidate counted again");
            hits += h;
            assert_eq!(runner.rules(), rules, "{what}");
        }
    });
    assert!(hits > 1_000, "{runs} runs met only {hits} remembered candidates");
}

/// A copy of a feature vector already placed in the run re-examines only the rules that changed
/// since (`run/copies.rs`), and the runs still equal the plain Algorithm 1 (rules and buckets),
/// two runs on one runner (the memory is the run's). Most copies re-examine far fewer rules than
/// exist. The same check fails with each deliberately wrong variant of the cut: a copy that
/// re-examines nothing, a left-out copy that skips the rules made since, and a copy that skips
/// the rules generalized since.
#[test]
fn a_copy_re_examines_only_the_rules_changed_since() {
    let (mut copies, mut rechecked, mut rules_alive) = (0, 0, 0);
    let mut wrong = [(Broken::IgnoreChanges, 0), (Broken::SkipNewRules, 0), (Broken::SkipAbsorbs, 0)];
    for_each_share_run(|what, ts, order, acc, rules, buckets| {
        let as_rows = |r: &Runner| -> Vec<Vec<usize>> {
            r.buckets().iter().map(|b| b.iter().map(|&i| ts.pos_rows[i as usize] as usize).collect()).collect()
        };
        let mut runner = Runner::new(ts, acc);
        for _ in 0..2 {
            runner.run(order);
            assert_eq!(runner.rules(), rules, "{what}");
            assert_eq!(as_rows(&runner), buckets, "{what}");
            let (c, r) = runner.copy_memory();
            copies += c;
            rechecked += r;
            rules_alive += c * rules.len();
        }
        for (broken, failed) in wrong.iter_mut() {
            let mut bad = Runner::new(ts, acc);
            bad.break_copies(*broken);
            bad.run(order);
            if bad.rules() != rules || as_rows(&bad) != buckets {
                *failed += 1;
            }
        }
    });
    assert!(copies > 2_000, "only {copies} copies placed from memory");
    assert!(rechecked * 4 < rules_alive, "{rechecked} rules re-examined for {copies} copies");
    for (broken, failed) in wrong {
        assert!(failed > 0, "the cut broken as {broken:?} still equals Algorithm 1 in every run");
    }
}

/// Under a share the near-miss counts of every rule, negatives' (`counts`) and positives'
/// (`pos_counts`), equal a count by training row: refreshed after each run, for AV rules over
/// the distinct vectors (`Distinct::near_misses`), for OH ones over the rows.
#[test]
fn share_near_miss_counts_equal_a_count_by_row() {
    let domains = [2u32, 3, 2, 3];
    let mut compared = 0;
    for seed in 0..12u64 {
        let (rows, labels, order) = noisy_repeated_rows(seed, &domains);
        for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
            let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind) else {
                continue;
            };
            assert!(ts.distinct().is_some(), "seed {seed}: the rows repeat, the view is built");
            for eps in [0.1, 0.35] {
                let acc = Acceptance::new(0, eps).unwrap();
                let mut runner = Runner::new(&ts, acc);
                runner.run(&order);
                let st = &mut runner.0;
                for i in 0..st.rules.len() {
                    st.refresh_near_misses::<false>(i);
                    let rule = &st.rules[i];
                    let mut want = [vec![0u32; schema.n_slots()], vec![0u32; schema.n_slots()]];
                    for (row, &y) in rows.iter().zip(&labels) {
                        let failed: Vec<usize> =
                            (0..schema.n_features()).filter(|&f| !rule.allows(schema.slot(f, row[f]))).collect();
                        if let [f] = failed[..] {
                            let w = &mut want[y as usize];
                            match kind {
                                ConstraintKind::OneHot => w[schema.slot(f, row[f])] += 1,
                                _ => schema.slots(f).filter(|&s| !rule.allows(s)).for_each(|s| w[s] += 1),
                            }
                        }
                    }
                    let what = format!("seed {seed} {kind:?} eps {eps} rule {i}");
                    assert_eq!(st.counts[i], want[0], "negatives, {what}");
                    assert_eq!(st.pos_counts[i], want[1], "positives, {what}");
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 200, "only {compared} rules compared");
}
