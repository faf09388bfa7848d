//! A rule budget: of a model's rules, the DNF of at most `n` rules that classifies the most
//! training rows correctly (positive iff one of its rules covers the row), found by
//! 1. greedy forward selection: add the rule that raises the number of training rows classified
//!    correctly the most (newly covered positives minus newly covered negatives; ties: the
//!    lowest rule index, i.e. the heaviest rule of a BP model), while some rule raises it;
//!    evaluated lazily, a rule's last newly covered positive count bounding what it can add;
//! 2. local search from the better of that DNF and the DNF of the first `n` rules: replace one
//!    chosen rule by the unchosen rule (or by nothing) that raises the count the most, while one
//!    does (at most [`MAX_PASSES`] passes over the chosen rules, each swap a strict gain), then
//!    refill by greedy selection when a removal freed room;
//! 3. a model keeps at least one rule: when no rule adds a correct row (each covers more
//!    training negatives than positives), the one rule that costs the fewest correct rows
//!    (ties: the lowest index) is chosen;
//! 4. the chosen rules are listed greedily: each next one adds the most correct rows.
//!
//! Invariants: the result depends on the rules, their order and the training data only (every
//! tie goes to the lowest rule index); it holds from 1 to `n` distinct rules; unless step 3
//! applied, its training accuracy is at least that of the greedy DNF and of the DNF of the first
//! `n` rules; it is exactly `correct` (tested against a plain evaluation). Why a DNF: on consistent rules (tolerance 0, no contradiction) a vote of the same
//! rules can only cover fewer training positives and no fewer negatives, so the DNF is at least as
//! accurate on training data, and it reads as "positive when any of these rules holds".
//! [`crate::learn::fit`] compares the result with the top-`n` vote of a BP model and keeps the better.

use crate::data::bitset;
use crate::data::row_index::RowIndex;
use crate::data::rule::{Rule, Terms};
use crate::data::schema::Schema;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Local-search passes over the chosen rules at most.
pub const MAX_PASSES: usize = 8;

/// The chosen rules and the training rows their DNF classifies correctly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Indices into the candidate rules, most useful first (see the module docs).
    pub picked: Vec<usize>,
    /// Training rows the DNF of the picked rules classifies correctly.
    pub correct: u32,
}

struct Evaluator<'a> {
    schema: &'a Schema,
    index: &'a RowIndex,
    rules: &'a [Rule],
    /// Positive rows, per word.
    pos: Vec<u64>,
    terms: Terms,
}

impl Evaluator<'_> {
    /// The rows rule `r` covers, per word.
    fn cover(&mut self, r: usize) -> Vec<u64> {
        self.rules[r].terms(self.schema, &mut self.terms);
        (0..self.index.n_words())
            .map(|w| self.index.covered_word(&self.terms, w))
            .collect()
    }

    /// Positives and negatives that rule `r` covers outside `covered`.
    fn gain(&mut self, r: usize, covered: &[u64]) -> (u32, u32) {
        self.rules[r].terms(self.schema, &mut self.terms);
        let (mut dp, mut dn) = (0, 0);
        for (w, &c) in covered.iter().enumerate() {
            let new = self.index.covered_word(&self.terms, w) & !c;
            dp += (new & self.pos[w]).count_ones();
            dn += (new & !self.pos[w]).count_ones();
        }
        (dp, dn)
    }

    fn correct(&self, covered: &[u64]) -> u32 {
        let mut ok = 0;
        for (w, &c) in covered.iter().enumerate() {
            let valid = self.index.valid(w);
            ok += (c & self.pos[w]).count_ones() + (!c & valid & !self.pos[w]).count_ones();
        }
        ok
    }
}

/// The best DNF of at most `n` of `rules` on the training rows of `index` (labels `labels`);
/// `pos_covered[r]` is the number of training positives rule `r` covers.
pub fn best_dnf(
    schema: &Schema,
    index: &RowIndex,
    labels: &[bool],
    rules: &[Rule],
    pos_covered: &[u32],
    n: usize,
) -> Budget {
    assert_eq!(labels.len(), index.n_rows(), "one label per training row");
    assert_eq!(pos_covered.len(), rules.len(), "one count per rule");
    let mut pos = vec![0u64; index.n_words()];
    for (r, _) in labels.iter().enumerate().filter(|(_, &y)| y) {
        bitset::set(&mut pos, r);
    }
    let mut ev = Evaluator {
        schema,
        index,
        rules,
        pos,
        terms: Terms::new(),
    };
    let n = n.min(rules.len());
    let mut chosen = greedy(&mut ev, pos_covered, Vec::new(), n);
    let first: Vec<usize> = (0..n).collect();
    if correct_of(&mut ev, &first) > correct_of(&mut ev, &chosen) {
        chosen = first;
    }
    // Candidates for a swap, by the bound on what they can add (their covered positives).
    let mut by_bound: Vec<usize> = (0..rules.len()).filter(|&r| pos_covered[r] > 0).collect();
    by_bound.sort_by_key(|&r| (Reverse(pos_covered[r]), r));
    for _ in 0..MAX_PASSES {
        let before = correct_of(&mut ev, &chosen);
        swap_pass(&mut ev, pos_covered, &by_bound, &mut chosen);
        if chosen.len() < n {
            chosen = greedy(&mut ev, pos_covered, chosen, n);
        }
        if correct_of(&mut ev, &chosen) == before {
            break;
        }
    }
    if chosen.is_empty() && n > 0 {
        let none = vec![0u64; index.n_words()];
        let least_bad = (0..rules.len()).max_by_key(|&r| {
            let (p, q) = ev.gain(r, &none);
            (p as i64 - q as i64, Reverse(r))
        });
        chosen.extend(least_bad);
    }
    let picked = greedy_order(&mut ev, &chosen);
    let correct = correct_of(&mut ev, &picked);
    Budget { picked, correct }
}

fn union(ev: &mut Evaluator, chosen: &[usize]) -> Vec<u64> {
    let mut covered = vec![0u64; ev.index.n_words()];
    for &r in chosen {
        for (c, x) in covered.iter_mut().zip(ev.cover(r)) {
            *c |= x;
        }
    }
    covered
}

fn correct_of(ev: &mut Evaluator, chosen: &[usize]) -> u32 {
    let covered = union(ev, chosen);
    ev.correct(&covered)
}

/// Adds rules to `chosen` greedily (lazy evaluation) until it holds `n` or none adds a correct row.
fn greedy(ev: &mut Evaluator, pos_covered: &[u32], mut chosen: Vec<usize>, n: usize) -> Vec<usize> {
    let mut covered = union(ev, &chosen);
    // (bound, lowest index first): the bound is the rule's newly covered positives when last
    // evaluated, which only falls as `covered` grows.
    let mut heap: BinaryHeap<(u32, Reverse<usize>)> = (0..ev.rules.len())
        .filter(|r| pos_covered[*r] > 0 && !chosen.contains(r))
        .map(|r| (pos_covered[r], Reverse(r)))
        .collect();
    let mut aside = Vec::new();
    while chosen.len() < n {
        // (gain, index) of the best rule evaluated in this step.
        let mut best: Option<(i64, usize)> = None;
        while let Some(&(bound, Reverse(r))) = heap.peek() {
            if let Some((g, b)) = best {
                if (bound as i64) < g || (bound as i64 == g && r > b) {
                    break;
                }
            }
            heap.pop();
            let (dp, dn) = ev.gain(r, &covered);
            aside.push((dp, r));
            let g = dp as i64 - dn as i64;
            if best.is_none_or(|(bg, b)| g > bg || (g == bg && r < b)) {
                best = Some((g, r));
            }
        }
        let Some((g, r)) = best.filter(|&(g, _)| g > 0) else {
            break;
        };
        let _ = g;
        chosen.push(r);
        for (c, x) in covered.iter_mut().zip(ev.cover(r)) {
            *c |= x;
        }
        heap.extend(
            aside
                .drain(..)
                .filter(|&(dp, q)| q != r && dp > 0)
                .map(|(dp, q)| (dp, Reverse(q))),
        );
    }
    chosen
}

/// Rows covered by at least one (`one`) and by at least two (`two`) of `covers`.
fn one_two(covers: &[Vec<u64>], n_words: usize) -> (Vec<u64>, Vec<u64>) {
    let (mut one, mut two) = (vec![0u64; n_words], vec![0u64; n_words]);
    for cov in covers {
        for w in 0..n_words {
            two[w] |= one[w] & cov[w];
            one[w] |= cov[w];
        }
    }
    (one, two)
}

/// One pass of swaps over `chosen`, in its order: position `i` takes the rule (or nothing)
/// that classifies the most training rows correctly with the others, when that beats keeping it.
fn swap_pass(ev: &mut Evaluator, pos_covered: &[u32], by_bound: &[usize], chosen: &mut Vec<usize>) {
    let nw = ev.index.n_words();
    let mut covers: Vec<Vec<u64>> = chosen.iter().map(|&r| ev.cover(r)).collect();
    let (mut one, mut two) = one_two(&covers, nw);
    let mut others = vec![0u64; nw];
    let mut i = 0;
    while i < chosen.len() {
        // `others`: rows covered by the chosen rules but the one at i; the rule at i adds
        // `keep` correct rows to them (its loss if removed).
        let (mut dp, mut dn) = (0u32, 0u32);
        for w in 0..nw {
            let only = covers[i][w] & !two[w];
            others[w] = one[w] & !only;
            dp += (only & ev.pos[w]).count_ones();
            dn += (only & !ev.pos[w]).count_ones();
        }
        let keep = dp as i64 - dn as i64;
        // Nothing in its place adds 0; a rule must add more than both to replace it.
        let bar = keep.max(0);
        let mut best: Option<(i64, usize)> = None;
        for &c in by_bound {
            let bound = pos_covered[c] as i64;
            match best {
                None if bound <= bar => break,
                Some((g, _)) if bound < g => break,
                _ => {}
            }
            if chosen.contains(&c) {
                continue;
            }
            let (p, q) = ev.gain(c, &others);
            let g = p as i64 - q as i64;
            if g > bar && best.is_none_or(|(bg, b)| g > bg || (g == bg && c < b)) {
                best = Some((g, c));
            }
        }
        match best {
            Some((_, c)) => {
                chosen[i] = c;
                covers[i] = ev.cover(c);
                (one, two) = one_two(&covers, nw);
                i += 1;
            }
            None if keep < 0 => {
                chosen.remove(i);
                covers.remove(i);
                (one, two) = one_two(&covers, nw);
            }
            None => i += 1,
        }
    }
}

/// The accuracy-size path of the DNF of `rules` (docs/semantics.md §8.1): `order` lists every
/// rule, each next one the rule that adds the most correct training rows to the DNF of those
/// before it (ties: the lowest index), and `correct[k]` is the number of training rows the DNF
/// of the first `k + 1` rules classifies correctly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    /// Indices into the rules: every rule once.
    pub order: Vec<usize>,
    /// Training rows right by each prefix of `order` (as long as `order`).
    pub correct: Vec<u32>,
}

/// The path of the DNF of `rules` on the training rows of `index` (labels `labels`): a prefix
/// of `k` rules is the model of `k` rules the path offers. Prefixes are nested, and each next
/// rule is the one that raises the training count the most (or lowers it the least).
pub fn dnf_path(schema: &Schema, index: &RowIndex, labels: &[bool], rules: &[Rule]) -> Path {
    assert_eq!(labels.len(), index.n_rows(), "one label per training row");
    let mut pos = vec![0u64; index.n_words()];
    for (r, _) in labels.iter().enumerate().filter(|(_, &y)| y) {
        bitset::set(&mut pos, r);
    }
    let mut ev = Evaluator { schema, index, rules, pos, terms: Terms::new() };
    let all: Vec<usize> = (0..rules.len()).collect();
    let (order, gains) = greedy_order_gains(&mut ev, &all);
    let mut now = ev.correct(&vec![0u64; index.n_words()]) as i64;
    let correct = gains
        .iter()
        .map(|g| {
            now += g;
            u32::try_from(now).expect("a count of training rows")
        })
        .collect();
    Path { order, correct }
}

/// `chosen` reordered: each next rule is the one that adds the most correct rows to those
/// before it (ties: the lowest index); lazy, as [`greedy`].
fn greedy_order(ev: &mut Evaluator, chosen: &[usize]) -> Vec<usize> {
    greedy_order_gains(ev, chosen).0
}

/// [`greedy_order`] with the correct rows each rule adds to those before it (negative: it
/// costs more than it adds).
fn greedy_order_gains(ev: &mut Evaluator, chosen: &[usize]) -> (Vec<usize>, Vec<i64>) {
    let nw = ev.index.n_words();
    let covers: Vec<Vec<u64>> = chosen.iter().map(|&r| ev.cover(r)).collect();
    let gain = |k: usize, covered: &[u64]| -> (u32, i64) {
        let (mut dp, mut dn) = (0u32, 0u32);
        for w in 0..nw {
            let new = covers[k][w] & !covered[w];
            dp += (new & ev.pos[w]).count_ones();
            dn += (new & !ev.pos[w]).count_ones();
        }
        (dp, dp as i64 - dn as i64)
    };
    let mut covered = vec![0u64; nw];
    // (bound on the gain, lowest rule index first, position in `chosen`); a rule's newly
    // covered positives bound its gain and only fall.
    let mut heap: BinaryHeap<(i64, Reverse<usize>, usize)> = (0..chosen.len())
        .map(|k| (gain(k, &covered).0 as i64, Reverse(chosen[k]), k))
        .collect();
    let mut out = Vec::with_capacity(chosen.len());
    let mut gains = Vec::with_capacity(chosen.len());
    let mut aside = Vec::new();
    while !heap.is_empty() {
        let mut best: Option<(i64, usize, usize)> = None;
        while let Some(&(bound, Reverse(r), k)) = heap.peek() {
            if let Some((g, b, _)) = best {
                if bound < g || (bound == g && r > b) {
                    break;
                }
            }
            heap.pop();
            let (dp, g) = gain(k, &covered);
            aside.push((dp as i64, Reverse(r), k));
            if best.is_none_or(|(bg, b, _)| g > bg || (g == bg && r < b)) {
                best = Some((g, r, k));
            }
        }
        let (g, r, k) = best.expect("a rule left");
        for w in 0..nw {
            covered[w] |= covers[k][w];
        }
        out.push(r);
        gains.push(g);
        heap.extend(aside.drain(..).filter(|&(_, _, q)| q != k));
    }
    (out, gains)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::columns::Columns;
    use crate::learn::ensemble::Progress;
    use crate::learn::fit::{fit, FitOptions, RuleCount};
    use crate::predict::model::Method;
    use crate::learn::run::tests::{columns_of, random_data};
    use crate::data::schema::ConstraintKind;

    fn dnf_correct(
        schema: &Schema,
        rules: &[Rule],
        picked: &[usize],
        rows: &[Vec<u32>],
        labels: &[bool],
    ) -> u32 {
        rows.iter()
            .zip(labels)
            .filter(|(r, &y)| picked.iter().any(|&k| rules[k].covers_row(schema, r)) == y)
            .count() as u32
    }

    /// Plain greedy forward selection (every rule evaluated at every step).
    fn naive_greedy(
        schema: &Schema,
        rules: &[Rule],
        rows: &[Vec<u32>],
        labels: &[bool],
        n: usize,
    ) -> Vec<usize> {
        let mut picked: Vec<usize> = Vec::new();
        while picked.len() < n {
            let now = dnf_correct(schema, rules, &picked, rows, labels) as i64;
            let mut best: Option<(i64, usize)> = None;
            for r in (0..rules.len()).filter(|r| !picked.contains(r)) {
                let mut with = picked.clone();
                with.push(r);
                let g = dnf_correct(schema, rules, &with, rows, labels) as i64 - now;
                if g > 0 && best.is_none_or(|(bg, _)| g > bg) {
                    best = Some((g, r));
                }
            }
            match best {
                Some((_, r)) => picked.push(r),
                None => break,
            }
        }
        picked
    }

    #[test]
    fn greedy_matches_the_plain_one_and_the_budget_beats_both_baselines() {
        let domains = [3u32, 2, 4, 3, 2, 3];
        let mut better_than_greedy = 0;
        for seed in 0..40u64 {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                for tau in [0u32, 2] {
                    let (rows, labels) = random_data(seed + 300, 80, &domains);
                    let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
                    let cols = columns_of(&rows, domains.len());
                    let data =
                        Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                    let options = FitOptions {
                        method: Method::Bp,
                        tolerance: tau,
                        n_runs: 15,
                        seed,
                        shuffle: true,
                        n_rules: RuleCount::All,
                        simplify: seed % 2 == 0,
                        max_rules: None,
                        ..FitOptions::default()
                    };
                    let Ok(fitted) = fit(
                        schema.clone(),
                        &data,
                        &labels,
                        &options,
                        &Progress::default(),
                    ) else {
                        continue;
                    };
                    let rules = fitted.model.rule_set().rules();
                    let pos_covered = fitted.model.rule_set().train_positives();
                    let index = RowIndex::from_all(&schema, &data).unwrap();
                    let mut ev = Evaluator {
                        schema: &schema,
                        index: &index,
                        rules,
                        pos: vec![],
                        terms: Terms::new(),
                    };
                    ev.pos = vec![0; index.n_words()];
                    for (r, &y) in labels.iter().enumerate() {
                        if y {
                            bitset::set(&mut ev.pos, r);
                        }
                    }
                    for n in [1usize, 2, 3, 5] {
                        let ctx = format!("seed {seed} {kind:?} tau {tau} n {n}");
                        let lazy =
                            greedy(&mut ev, pos_covered, Vec::new(), n.min(rules.len()));
                        let plain =
                            naive_greedy(&schema, rules, &rows, &labels, n.min(rules.len()));
                        assert_eq!(lazy, plain, "{ctx}");
                        let b = best_dnf(&schema, &index, &labels, rules, pos_covered, n);
                        assert!(b.picked.len() <= n, "{ctx}");
                        let mut distinct = b.picked.clone();
                        distinct.sort();
                        distinct.dedup();
                        assert_eq!(distinct.len(), b.picked.len(), "{ctx}");
                        assert_eq!(
                            b.correct,
                            dnf_correct(&schema, rules, &b.picked, &rows, &labels),
                            "{ctx}"
                        );
                        let g = dnf_correct(&schema, rules, &plain, &rows, &labels);
                        let first: Vec<usize> = (0..n.min(rules.len())).collect();
                        let first_correct = dnf_correct(&schema, rules, &first, &rows, &labels);
                        assert!(!b.picked.is_empty(), "{ctx}");
                        if plain.is_empty() && first_correct <= g {
                            // No rule adds a correct row: the least bad one is kept.
                            let single = |r: usize| dnf_correct(&schema, rules, &[r], &rows, &labels);
                            let best = (0..rules.len()).map(single).max().unwrap();
                            assert_eq!(b.picked.len(), 1, "{ctx}");
                            assert_eq!(b.correct, best, "{ctx}");
                            continue;
                        }
                        assert!(b.correct >= g, "{ctx}");
                        assert!(b.correct >= first_correct, "{ctx}");
                        better_than_greedy += (b.correct > g) as usize;
                        assert_eq!(
                            b,
                            best_dnf(&schema, &index, &labels, rules, pos_covered, n)
                        );
                    }
                }
            }
        }
        assert!(
            better_than_greedy > 0,
            "the local search never improved on greedy selection"
        );
    }

    #[test]
    fn the_path_is_the_plain_greedy_order_of_every_rule_with_its_counts() {
        let domains = [3u32, 2, 4, 3, 2, 3];
        let mut tails = 0;
        for seed in 0..30u64 {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                let (rows, labels) = random_data(seed + 900, 70, &domains);
                let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
                let cols = columns_of(&rows, domains.len());
                let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                let options = FitOptions {
                    method: Method::Bp,
                    tolerance: (seed % 3) as u32,
                    n_runs: 9,
                    seed,
                    shuffle: true,
                    n_rules: RuleCount::All,
                    ..FitOptions::default()
                };
                let Ok(fitted) = fit(schema.clone(), &data, &labels, &options, &Progress::default()) else {
                    continue;
                };
                let rules = fitted.model.rule_set().rules();
                let index = RowIndex::from_all(&schema, &data).unwrap();
                let path = dnf_path(&schema, &index, &labels, rules);
                let ctx = format!("seed {seed} {kind:?}");
                let mut sorted = path.order.clone();
                sorted.sort();
                assert_eq!(sorted, (0..rules.len()).collect::<Vec<_>>(), "{ctx}");
                assert_eq!(path.correct.len(), rules.len(), "{ctx}");
                // Each next rule adds the most (ties: the lowest index), counted plainly.
                for k in 0..rules.len() {
                    let before = &path.order[..k];
                    let with = |r: usize| {
                        let mut p = before.to_vec();
                        p.push(r);
                        dnf_correct(&schema, rules, &p, &rows, &labels)
                    };
                    let best = (0..rules.len())
                        .filter(|r| !before.contains(r))
                        .max_by_key(|&r| (with(r), Reverse(r)))
                        .unwrap();
                    assert_eq!(path.order[k], best, "{ctx} step {k}");
                    assert_eq!(path.correct[k], with(best), "{ctx} step {k}");
                    tails += (k > 0 && path.correct[k] < path.correct[k - 1]) as usize;
                }
            }
        }
        assert!(tails > 0, "no path had a rule that costs rows: the tail is untested");
    }
}
