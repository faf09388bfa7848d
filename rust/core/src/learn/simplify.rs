//! Simplification of a run's pruned rules (`simplify`): each rule keeps only the conditions it
//! needs to stay acceptable, then the run drops the rules that became duplicates or that another
//! of its rules subsumes. A FIND-RS rule is the least general generalization of the positives
//! it absorbed, so it keeps every condition those positives happen to share (`veil_type = p` on
//! mushroom); simplification removes them.
//!
//! Order (deterministic; it favours the shortest result). Of the rule's own conditions:
//! 1. *forward*: start from none (the empty rule covers every training row) and add the
//!    conditions back in decreasing order of the training negatives each excludes on its own
//!    (ties: the lowest feature index), skipping any that excludes no negative still covered,
//!    until the rule is [`acceptable`];
//! 2. *backward*: drop, one at a time, the kept condition whose removal brings in the fewest
//!    training negatives among those whose removal keeps the rule acceptable (ties: the lowest
//!    feature index), until none can go.
//!
//! The most discriminating conditions come first, so few are needed; the backward pass then
//! removes those a later one made redundant. Re-ranking the conditions at every forward step by
//! the negatives they exclude among those still covered (the textbook greedy for this hitting
//! set) gave the same lengths within 0.01 condition per rule on connect-4, kr-vs-kp and mushroom
//! at twice the cost. The cost per rule is a few passes over the negatives' bitsets of one slot
//! each (about 35 us for a 35-condition connect-4 rule, against 90 us for the run that made it).
//!
//! 3. *re-grow* (per run, after dropping duplicates and subsumed rules): the run's rules, longest
//!    first (ties: run order), are each replaced by the least general generalization of the
//!    training positives that only it covers in the run (as they stand at its turn), simplified
//!    by 1 and 2, when that is acceptable and has fewer conditions; a rule covering no positive
//!    alone is dropped; then, in the same order, so is a rule that a later replacement left
//!    covering no positive alone. Unacceptable rules are left as they are.
//!
//! Why 3: any rule covering all the positives the original covered may only use conditions that
//! hold on all of them, and since the rule is the least general generalization of the positives
//! it absorbed (some of them), those are generalizations of the rule's own conditions; so 1 and
//! 2 alone cannot go below the shortest acceptable subset of them (about 5.3 conditions per rule
//! on kr-vs-kp, by a beam search). A rule only needs to cover the positives no other rule of its
//! run covers, which admits conditions the original did not have.
//!
//! A condition is a constrained feature: `a = v`, a value set, or an interval (which is dropped
//! whole; keeping one of its two ends is not tried).
//!
//! A rule that is not acceptable to begin with (made from a contradictory positive) only loses
//! its constraints that exclude no training row.
//!
//! Invariants (tested against a plain re-implementation that counts by scanning rows):
//! - after 1 and 2, a rule's conditions are a subset of the original's, each unchanged, so it
//!   covers every row the original covers (a superset of its training positives); after 3 the
//!   run's rules together cover every training positive the run's rules covered, and each
//!   acceptable rule covers a training positive no other rule of the run covers;
//! - an acceptable rule stays acceptable (the run's [`Acceptance`] test: at most `tau` training
//!   negatives, or a share of at most epsilon of the rows it covers, docs/semantics.md §9.1),
//!   and no single condition of the result can be dropped with the rule staying acceptable;
//! - a constraint that excludes no training row (a constant training feature) never survives;
//! - a simplified run holds no two equal rules and no rule another of its rules subsumes
//!   ([`Rule::is_subsumed_by`]: allowed slots a subset, each interval within the other's; the
//!   first of equal rules is kept, a subsumed rule is dropped), in the run's order. Such a rule adds no row to the run's DNF on any data, seen values or not, so
//!   dropping it leaves the run's predictions unchanged on every row; a rule counts once per run
//!   in BP's alpha;
//! - hence a simplified FIND-RS model covers every training positive (as Algorithm 1's does),
//!   and with tolerance 0 and no contradiction it covers no training negative: it stays
//!   consistent.

use crate::learn::acceptance::Acceptance;
use crate::data::rule::{Rule, Terms};
use crate::data::schema::Schema;
use crate::learn::training::TrainingSet;
use crate::learn::weighted::Weighted;

/// The run's acceptance test: may a rule covering `negatives` training negatives and
/// `positives` training positives stand? (Algorithm 1 with tolerance `tau`: at most `tau`
/// negatives; with a share, docs/semantics.md §9.1.) Simplification asks only this function.
#[inline]
pub fn acceptable(acc: Acceptance, negatives: u32, positives: u32) -> bool {
    acc.accepts(negatives, positives)
}

/// Whether [`acceptable`] looks at the positives under `acc`; when it does not (the paper's
/// absolute test), simplification does not count them (it passes 0). A test fails if this says
/// false of a test that uses them.
fn uses_positives(acc: Acceptance) -> bool {
    !acc.is_absolute()
}

/// Simplifies rules on one training set; holds scratch space, so keep one per thread.
pub struct Simplifier<'a> {
    ts: &'a TrainingSet,
    /// The positives and the negatives the counts are made on: distinct vectors with weights
    /// when the rows repeat enough ([`TrainingSet::weighted`]), else the rows; the same counts.
    pos: &'a Weighted,
    neg: &'a Weighted,
    acc: Acceptance,
    /// [`uses_positives`] of `acc`.
    uses_pos: bool,
    /// Training negatives holding each slot.
    neg_count: Vec<u32>,
    terms: Terms,
    /// Conditions (see [`feature_of`]) in the forward order.
    order: Vec<(u32, usize, usize)>,
    /// The kept conditions: (condition, row of `neg_sat` / `pos_sat`).
    kept: Vec<(usize, usize)>,
    /// Row `k` (`nw` words): the negatives satisfying the `k`-th term kept so far.
    neg_sat: Vec<u64>,
    /// Row `k` (`pw` words): the positives satisfying it.
    pos_sat: Vec<u64>,
    cover: Vec<u64>,
    live: Vec<u32>,
    pcover: Vec<u64>,
    add_neg: Vec<u32>,
    add_pos: Vec<u32>,
}

impl<'a> Simplifier<'a> {
    pub fn new(ts: &'a TrainingSet, acc: Acceptance) -> Self {
        let (pos, neg) = ts.weighted();
        Self::with_views(ts, acc, pos, neg)
    }

    /// A simplifier counting on the views `pos` and `neg` of `ts`'s positives and negatives
    /// (the tests compare collapsed views with the rows).
    fn with_views(ts: &'a TrainingSet, acc: Acceptance, pos: &'a Weighted, neg: &'a Weighted) -> Self {
        let n_slots = ts.schema.n_slots();
        let mut neg_count = vec![0u32; n_slots];
        let negs = neg.index(&ts.negatives);
        for w in 0..negs.n_words() {
            // The slots only: an interval feature's bitsets come after them.
            for (c, &bits) in neg_count.iter_mut().zip(&negs.word(w)[..n_slots]) {
                *c += neg.weigh(w, bits);
            }
        }
        Self {
            ts,
            pos,
            neg,
            acc,
            uses_pos: uses_positives(acc),
            neg_count,
            terms: Terms::new(),
            order: Vec::new(),
            kept: Vec::new(),
            neg_sat: Vec::new(),
            pos_sat: Vec::new(),
            cover: Vec::new(),
            live: Vec::new(),
            pcover: Vec::new(),
            add_neg: Vec::new(),
            add_pos: Vec::new(),
        }
    }

    /// The rules of one run simplified, without duplicates or subsumed rules, in run order.
    pub fn simplify_run(&mut self, rules: &[Rule]) -> Vec<Rule> {
        let simplified: Vec<Rule> = rules.iter().map(|r| self.simplify(r)).collect();
        let maximal = keep_maximal(&self.ts.schema, simplified);
        let regrown = self.regrow(maximal);
        keep_maximal(&self.ts.schema, regrown)
    }

    /// The training positives `terms` covers, as words of the positives' view (distinct
    /// vectors when collapsed).
    fn positives_covered(&self, terms: &Terms) -> Vec<u64> {
        let poss = self.pos.index(&self.ts.positives);
        (0..poss.n_words())
            .map(|w| poss.covered_word(terms, w))
            .collect()
    }

    /// Re-grows the run's rules from the positives only they cover (see the module docs),
    /// longest first (ties: run order); keeps the run order.
    fn regrow(&mut self, rules: Vec<Rule>) -> Vec<Rule> {
        let ts = self.ts;
        let schema = &ts.schema;
        // The positives' view: a vector stands for its rows, which every rule covers alike.
        let n_pos = self.pos.index(&ts.positives).n_rows();
        let pos = self.pos;
        let mut rules: Vec<Option<Rule>> = rules.into_iter().map(Some).collect();
        let mut cover: Vec<Vec<u64>> = Vec::with_capacity(rules.len());
        // How many of the run's rules cover each positive (each distinct positive vector).
        let mut times = vec![0u32; n_pos];
        for r in rules.iter().flatten() {
            r.terms(schema, &mut self.terms);
            let c = self.positives_covered(&self.terms);
            crate::data::bitset::for_each_one(&c, |j| times[j] += 1);
            cover.push(c);
        }
        let mut order: Vec<(std::cmp::Reverse<usize>, usize)> = rules
            .iter()
            .enumerate()
            .map(|(i, r)| (std::cmp::Reverse(r.as_ref().unwrap().n_constraints(schema)), i))
            .collect();
        order.sort_unstable();
        let mut own: Vec<usize> = Vec::new();
        for &(std::cmp::Reverse(len), i) in &order {
            let rule = rules[i].as_ref().unwrap();
            if !self.is_acceptable(rule) {
                continue;
            }
            own.clear();
            crate::data::bitset::for_each_one(&cover[i], |j| {
                if times[j] == 1 {
                    own.push(j)
                }
            });
            let replacement = match own.split_first() {
                None => None,
                Some((&first, rest)) => {
                    // The least general generalization of the rows, which their distinct
                    // vectors give (in any order).
                    let mut lgg = Rule::from_row(schema, ts.pos_codes(pos.first(first)));
                    for &j in rest {
                        lgg.generalize(schema, ts.pos_codes(pos.first(j)));
                    }
                    let grown = self.simplify(&lgg);
                    if grown.n_constraints(schema) >= len || !self.is_acceptable(&grown) {
                        continue;
                    }
                    Some(grown)
                }
            };
            crate::data::bitset::for_each_one(&cover[i], |j| times[j] -= 1);
            match replacement {
                None => rules[i] = None,
                Some(grown) => {
                    grown.terms(schema, &mut self.terms);
                    cover[i] = self.positives_covered(&self.terms);
                    crate::data::bitset::for_each_one(&cover[i], |j| times[j] += 1);
                    rules[i] = Some(grown);
                }
            }
        }
        // A later re-grown rule may cover all that an earlier one covered alone: drop such
        // rules, in the same order.
        for &(_, i) in &order {
            let Some(rule) = rules[i].as_ref() else { continue };
            let mut alone = false;
            crate::data::bitset::for_each_one(&cover[i], |j| alone |= times[j] == 1);
            if !alone && self.is_acceptable(rule) {
                crate::data::bitset::for_each_one(&cover[i], |j| times[j] -= 1);
                rules[i] = None;
            }
        }
        rules.into_iter().flatten().collect()
    }

    /// Whether `rule` passes the run's acceptance test on the training set.
    fn is_acceptable(&mut self, rule: &Rule) -> bool {
        let ts = self.ts;
        rule.terms(&ts.schema, &mut self.terms);
        let neg = self.neg.count_covered(&ts.negatives, &self.terms);
        let pos = if self.uses_pos {
            self.pos.count_covered(&ts.positives, &self.terms)
        } else {
            0
        };
        acceptable(self.acc, neg, pos)
    }

    /// `rule` with only the conditions it needs (see the module docs for the order).
    pub fn simplify(&mut self, rule: &Rule) -> Rule {
        let ts = self.ts;
        let schema = &ts.schema;
        rule.terms(schema, &mut self.terms);
        let neg = self.neg.count_covered(&ts.negatives, &self.terms);
        let pos = if self.uses_pos {
            self.pos.count_covered(&ts.positives, &self.terms)
        } else {
            0
        };
        if !acceptable(self.acc, neg, pos) || !self.forward(rule) {
            return self.without_vacuous(rule);
        }
        self.backward();
        let mut out = rule.clone();
        for c in 0..n_conditions(&self.terms) {
            if !self.kept.iter().any(|&(k, _)| k == c) {
                out.drop_constraint(schema, feature_of(&self.terms, c));
            }
        }
        out
    }

    /// Forward pass into `kept`; false if no subset of the terms reached acceptance (only
    /// possible for a predicate that is not monotone in the conditions dropped).
    fn forward(&mut self, rule: &Rule) -> bool {
        let ts = self.ts;
        let schema = &ts.schema;
        let (negw, posw) = (self.neg, self.pos);
        let (negs, poss) = (negw.index(&ts.negatives), posw.index(&ts.positives));
        let nw = negs.n_words();
        let pw = if self.uses_pos { poss.n_words() } else { 0 };
        let n_neg = negw.total();
        // (negatives a term satisfies, feature, term): most excluded first, then lowest feature.
        self.order.clear();
        for c in 0..n_conditions(&self.terms) {
            let f = feature_of(&self.terms, c);
            let sat: u32 = if c < self.terms.len() {
                schema
                    .slots(f)
                    .filter(|&s| rule.allows(s))
                    .map(|s| self.neg_count[s])
                    .sum()
            } else {
                (0..nw)
                    .map(|w| negw.weigh(w, eval(&self.terms, c, negs.word(w)) & negs.valid(w)))
                    .sum()
            };
            self.order.push((sat, f, c));
        }
        self.order.sort_unstable();
        self.cover.clear();
        self.cover.extend((0..nw).map(|w| negs.valid(w)));
        self.live.clear();
        self.live
            .extend((0..nw as u32).filter(|&w| negs.valid(w as usize) != 0));
        self.pcover.clear();
        self.pcover.extend((0..pw).map(|w| poss.valid(w)));
        self.kept.clear();
        let (mut neg, mut pos) = (
            n_neg,
            if self.uses_pos {
                posw.total()
            } else {
                0
            },
        );
        for &(_, _, t) in &self.order {
            if acceptable(self.acc, neg, pos) {
                break;
            }
            let row = self.kept.len();
            self.neg_sat.resize((row + 1) * nw, 0);
            let sat = &mut self.neg_sat[row * nw..(row + 1) * nw];
            for (w, x) in sat.iter_mut().enumerate() {
                *x = eval(&self.terms, t, negs.word(w)) & negs.valid(w);
            }
            let gain: u32 = self
                .live
                .iter()
                .map(|&w| negw.weigh(w as usize, self.cover[w as usize] & !sat[w as usize]))
                .sum();
            if gain == 0 {
                continue;
            }
            self.kept.push((t, row));
            for &w in &self.live {
                self.cover[w as usize] &= sat[w as usize];
            }
            let cover = &self.cover;
            self.live.retain(|&w| cover[w as usize] != 0);
            neg -= gain;
            if !self.uses_pos {
                continue;
            }
            self.pos_sat.resize((row + 1) * pw, 0);
            pos = 0;
            for w in 0..pw {
                let sat = eval(&self.terms, t, poss.word(w)) & poss.valid(w);
                self.pos_sat[row * pw + w] = sat;
                self.pcover[w] &= sat;
                pos += posw.weigh(w, self.pcover[w]);
            }
        }
        acceptable(self.acc, neg, pos)
    }

    /// Backward pass over `kept`.
    fn backward(&mut self) {
        let ts = self.ts;
        let (negw, posw) = (self.neg, self.pos);
        let (negs, poss) = (negw.index(&ts.negatives), posw.index(&ts.positives));
        let nw = negs.n_words();
        let pw = if self.uses_pos { poss.n_words() } else { 0 };
        while !self.kept.is_empty() {
            let base_neg = near_misses(
                &self.kept,
                &self.neg_sat,
                nw,
                |w| negs.valid(w),
                |w, bits| negw.weigh(w, bits),
                &mut self.add_neg,
            );
            let base_pos = near_misses(
                &self.kept,
                &self.pos_sat,
                pw,
                |w| poss.valid(w),
                |w, bits| posw.weigh(w, bits),
                &mut self.add_pos,
            );
            // (negatives without it, feature, position in kept)
            let mut best: Option<(u32, usize, usize)> = None;
            for (i, &(t, _)) in self.kept.iter().enumerate() {
                let (n, p) = (base_neg + self.add_neg[i], base_pos + self.add_pos[i]);
                if !acceptable(self.acc, n, p) {
                    continue;
                }
                let f = feature_of(&self.terms, t);
                if best.is_none_or(|(bn, bf, _)| n < bn || (n == bn && f < bf)) {
                    best = Some((n, f, i));
                }
            }
            let Some((_, _, i)) = best else { break };
            self.kept.remove(i);
        }
    }

    /// `rule` without its constraints that exclude no training row (`self.terms` holds its
    /// terms).
    fn without_vacuous(&self, rule: &Rule) -> Rule {
        let ts = self.ts;
        let mut out = rule.clone();
        for c in 0..n_conditions(&self.terms) {
            let views = [self.neg.index(&ts.negatives), self.pos.index(&ts.positives)];
            let vacuous = views.iter().all(|index| {
                (0..index.n_words())
                    .all(|w| index.valid(w) & !eval(&self.terms, c, index.word(w)) == 0)
            });
            if vacuous {
                out.drop_constraint(&ts.schema, feature_of(&self.terms, c));
            }
        }
        out
    }
}

/// A rule's conditions are its terms: the slot terms `0..terms.len()`, then the interval terms.
fn n_conditions(terms: &Terms) -> usize {
    terms.len() + terms.intervals().len()
}

/// The feature of condition `c`.
fn feature_of(terms: &Terms, c: usize) -> usize {
    match c.checked_sub(terms.len()) {
        None => terms.get(c).feature,
        Some(k) => terms.intervals()[k].feature as usize,
    }
}

/// The rows of one word satisfying condition `c`, given that word of every index slot.
#[inline]
fn eval(terms: &Terms, c: usize, word: &[u64]) -> u64 {
    match c.checked_sub(terms.len()) {
        None => terms.get(c).eval(word),
        Some(k) => terms.intervals()[k].eval(word),
    }
}

/// Rows covered by the conjunction of the `kept` terms (their satisfied-row words in rows of
/// `sat`, `n_words` each); and in `add[i]` the rows that dropping `kept[i]` would add (those
/// failing that term alone). `weigh(w, bits)`: the rows the bits of word `w` stand for.
fn near_misses(
    kept: &[(usize, usize)],
    sat: &[u64],
    n_words: usize,
    valid: impl Fn(usize) -> u64,
    weigh: impl Fn(usize, u64) -> u32,
    add: &mut Vec<u32>,
) -> u32 {
    add.clear();
    add.resize(kept.len(), 0);
    let mut covered = 0;
    for w in 0..n_words {
        let v = valid(w);
        // Bit-sliced count of failed terms: `one` = at least one, `two` = at least two.
        let (mut one, mut two) = (0u64, 0u64);
        for &(_, k) in kept {
            let fail = v & !sat[k * n_words + w];
            two |= one & fail;
            one |= fail;
        }
        covered += weigh(w, v & !one);
        let exactly_one = one & !two;
        if exactly_one == 0 {
            continue;
        }
        for (i, &(_, k)) in kept.iter().enumerate() {
            add[i] += weigh(w, exactly_one & !sat[k * n_words + w]);
        }
    }
    covered
}

/// `rules` without the later copies of equal rules and without rules another rule subsumes
/// ([`Rule::is_subsumed_by`]), in their order.
pub fn keep_maximal(schema: &Schema, rules: Vec<Rule>) -> Vec<Rule> {
    let n = rules.len();
    // A rule subsuming another constrains a subset of its features: no more of them, and (folded
    // into 64 bits) a subset of its signature.
    let constrained: Vec<Vec<usize>> = rules
        .iter()
        .map(|r| {
            (0..schema.n_features())
                .filter(|&f| !r.is_free(schema, f))
                .collect()
        })
        .collect();
    let sig: Vec<u64> = constrained
        .iter()
        .map(|fs| fs.iter().fold(0u64, |s, f| s | 1 << (f % 64)))
        .collect();
    let mut by_count: Vec<usize> = (0..n).collect();
    by_count.sort_by_key(|&i| constrained[i].len());
    let mut keep = vec![true; n];
    for i in 0..n {
        for &j in &by_count {
            if constrained[j].len() > constrained[i].len() {
                break;
            }
            if j == i || sig[j] & !sig[i] != 0 || !rules[i].is_subsumed_by(schema, &rules[j]) {
                continue;
            }
            // Of equal rules the first is kept.
            if j < i || rules[i] != rules[j] {
                keep[i] = false;
                break;
            }
        }
    }
    rules
        .into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::columns::Columns;
    use crate::learn::prune::find_rs_pruned;
    use crate::learn::run::tests::{columns_of, random_data, training_set, ACCEPTANCES};
    use crate::data::schema::ConstraintKind;

    /// A rule's constraints as (feature, allowed training codes), the plain way.
    type Plain = Vec<(usize, Vec<u32>)>;

    fn covers(c: &Plain, row: &[u32]) -> bool {
        c.iter().all(|(f, codes)| codes.contains(&row[*f]))
    }

    /// (negatives, positives) covered, by scanning the rows.
    fn count(c: &Plain, rows: &[Vec<u32>], labels: &[bool]) -> (u32, u32) {
        let (mut n, mut p) = (0, 0);
        for (r, &y) in rows.iter().zip(labels) {
            if covers(c, r) {
                if y {
                    p += 1
                } else {
                    n += 1
                }
            }
        }
        (n, p)
    }

    /// The module's order, written the obvious way on constraint lists.
    fn naive_simplify(c: &Plain, rows: &[Vec<u32>], labels: &[bool], acc: Acceptance) -> Plain {
        let (n0, p0) = count(c, rows, labels);
        if !acceptable(acc, n0, p0) {
            // Only constraints that exclude no training row go.
            return c
                .iter()
                .filter(|(f, codes)| rows.iter().any(|r| !codes.contains(&r[*f])))
                .cloned()
                .collect();
        }
        // Forward: by the negatives each condition excludes alone (most first, then lowest
        // feature), skipping those that exclude no negative still covered.
        let mut order: Vec<(u32, usize)> = c
            .iter()
            .enumerate()
            .map(|(k, cond)| (count(&vec![cond.clone()], rows, labels).0, k))
            .collect();
        order.sort_by_key(|&(sat, k)| (sat, c[k].0));
        let mut kept: Plain = Vec::new();
        for (_, k) in order {
            let (n, p) = count(&kept, rows, labels);
            if acceptable(acc, n, p) {
                break;
            }
            let mut with = kept.clone();
            with.push(c[k].clone());
            if count(&with, rows, labels).0 < n {
                kept = with;
            }
        }
        loop {
            let mut best: Option<(u32, usize)> = None;
            for k in 0..kept.len() {
                let mut without = kept.clone();
                without.remove(k);
                let (n, p) = count(&without, rows, labels);
                if acceptable(acc, n, p)
                    && best.is_none_or(|(bn, b)| n < bn || (n == bn && kept[k].0 < kept[b].0))
                {
                    best = Some((n, k));
                }
            }
            match best {
                Some((_, k)) => {
                    kept.remove(k);
                }
                None => break,
            }
        }
        kept.sort();
        kept
    }

    /// Rules to simplify: the pruned rules of two runs, and the point rules of a few rows.
    fn some_rules(ts: &TrainingSet, rows: &[Vec<u32>], acc: Acceptance) -> Vec<Rule> {
        let n = ts.n_positives() as u32;
        let mut rules = find_rs_pruned(ts, &(0..n).collect::<Vec<_>>(), acc, 0);
        rules.extend(find_rs_pruned(ts, &(0..n).rev().collect::<Vec<_>>(), acc, 0));
        rules.extend(rows.iter().take(5).map(|r| Rule::from_row(&ts.schema, r)));
        rules
    }

    /// Simplifies `some_rules` of the data and checks the result against the plain order and
    /// the module's guarantees; counts the conditions dropped and the unacceptable rules seen.
    fn check_data(
        schema: &Schema,
        ts: &TrainingSet,
        rows: &[Vec<u32>],
        labels: &[bool],
        acc: Acceptance,
        ctx: &str,
        counts: &mut (usize, usize),
    ) {
        let mut simplifier = Simplifier::new(ts, acc);
        for rule in some_rules(ts, rows, acc) {
            let plain = rule.constraints(schema);
            let got = simplifier.simplify(&rule);
            let want = naive_simplify(&plain, rows, labels, acc);
            let ctx = format!("{ctx} {acc:?} rule {plain:?}");
            assert_eq!(got.constraints(schema), want, "{ctx}");
            // Conditions: a subset, each unchanged; so coverage is a superset.
            assert!(rule.is_subsumed_by(schema, &got), "{ctx}");
            let (n0, p0) = count(&plain, rows, labels);
            let (n, p) = count(&want, rows, labels);
            counts.0 += plain.len() - want.len();
            counts.1 += !acceptable(acc, n0, p0) as usize;
            assert!(p >= p0, "{ctx}");
            if acceptable(acc, n0, p0) {
                assert!(acceptable(acc, n, p), "{ctx}");
                for k in 0..want.len() {
                    let mut w = want.clone();
                    w.remove(k);
                    let (n, p) = count(&w, rows, labels);
                    assert!(!acceptable(acc, n, p), "redundant condition: {ctx}");
                }
            }
            for (f, codes) in &want {
                assert!(
                    rows.iter().any(|r| !codes.contains(&r[*f])),
                    "a vacuous constraint survived: {ctx}"
                );
            }
        }
    }

    #[test]
    fn matches_the_plain_order_and_keeps_its_guarantees() {
        let mut counts = (0usize, 0usize);
        // The last feature is constant in the data; the one before uses 2 of its 4 codes
        // in most seeds.
        for (domains, seeds) in [
            (vec![3u32, 2, 4, 3, 2, 1], 60u64),
            (vec![2, 5, 3, 70, 1], 20),
        ] {
            for seed in 0..seeds {
                for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                    for (tau, eps) in ACCEPTANCES.into_iter().chain([(3, 0.0)]) {
                        let acc = Acceptance::new(tau, eps).unwrap();
                        let (rows, labels) =
                            random_data(seed + 77, 30 + (seed as usize % 40), &domains);
                        let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind)
                        else {
                            continue;
                        };
                        let ctx = format!("seed {seed} {kind:?}");
                        check_data(&schema, &ts, &rows, &labels, acc, &ctx, &mut counts);
                    }
                }
            }
        }
        assert!(
            counts.0 > 1000 && counts.1 > 10,
            "the data exercise both cases: {counts:?}"
        );
    }

    /// The same with interval features (nulls, a single value) among AV and OH ones.
    #[test]
    fn matches_the_plain_order_with_intervals() {
        use crate::learn::run::interval_tests::{av, iv, oh};
        let mut counts = (0usize, 0usize);
        let specs = [
            vec![iv(6, true), av(3), oh(3), iv(1, false), av(2)],
            vec![oh(2), iv(9, false), iv(3, true), av(1)],
        ];
        for_each_mixed_case(&specs, 50, 11, 20, |case| {
            let ctx = format!("seed {} {:?}", case.seed, case.specs);
            let (schema, ts, rows, labels) = (case.schema, case.ts, case.rows, case.labels);
            check_data(schema, ts, rows, labels, case.acc, &ctx, &mut counts);
        });
        assert!(counts.0 > 500 && counts.1 > 10, "{counts:?}");
    }

    /// One random mixed-feature case (interval, AV and OH features) for an acceptance.
    struct MixedCase<'a> {
        seed: u64,
        specs: &'a [crate::learn::run::interval_tests::Spec],
        schema: &'a Schema,
        ts: &'a TrainingSet,
        rows: &'a [Vec<u32>],
        labels: &'a [bool],
        acc: Acceptance,
    }

    /// Calls `f` for every feature list in `spec_lists`, `seeds` random data sets of each
    /// (`min_rows` to `min_rows + 44` rows, seeds offset by `seed_offset`; sets that are not
    /// a valid training set skipped) and every acceptance of `ACCEPTANCES` plus `(3, 0)`.
    fn for_each_mixed_case(
        spec_lists: &[Vec<crate::learn::run::interval_tests::Spec>],
        seeds: u64,
        seed_offset: u64,
        min_rows: usize,
        mut f: impl FnMut(MixedCase<'_>),
    ) {
        use crate::learn::run::interval_tests::{mixed_data, mixed_schema};
        for specs in spec_lists {
            let schema = mixed_schema(specs);
            for seed in 0..seeds {
                let n = min_rows + (seed as usize % 45);
                let (rows, labels) = mixed_data(seed + seed_offset, n, specs, seed % 2 == 0);
                let cols = columns_of(&rows, specs.len());
                let data =
                    Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
                let Ok(ts) = TrainingSet::new(schema.clone(), &data, &labels) else {
                    continue;
                };
                for (tau, eps) in ACCEPTANCES.into_iter().chain([(3, 0.0)]) {
                    let acc = Acceptance::new(tau, eps).unwrap();
                    let (schema, ts, rows, labels) = (&schema, &ts, &rows[..], &labels[..]);
                    f(MixedCase { seed, specs, schema, ts, rows, labels, acc });
                }
            }
        }
    }

    /// `rule` without its constraints on the features `kept` does not constrain.
    fn restricted(schema: &Schema, rule: &Rule, kept: &Plain) -> Rule {
        let mut out = rule.clone();
        for (f, _) in rule.constraints(schema) {
            if !kept.iter().any(|(k, _)| *k == f) {
                out.drop_constraint(schema, f);
            }
        }
        out
    }

    /// `rules` without later equal rules and rules another subsumes, by the definition.
    fn maximal_by_definition(schema: &Schema, rules: &[Rule]) -> Vec<Rule> {
        (0..rules.len())
            .filter(|&i| {
                !(0..rules.len()).any(|j| {
                    j != i
                        && rules[i].is_subsumed_by(schema, &rules[j])
                        && (rules[i] != rules[j] || j < i)
                })
            })
            .map(|i| rules[i].clone())
            .collect()
    }

    /// The positive rows `live[i]` covers and no other live rule covers.
    fn alone(schema: &Schema, live: &[Option<Rule>], i: usize, rows: &[Vec<u32>], labels: &[bool]) -> Vec<usize> {
        let covers = |k: usize, r: &[u32]| live[k].as_ref().is_some_and(|x| x.covers_row(schema, r));
        (0..rows.len())
            .filter(|&j| {
                labels[j]
                    && covers(i, &rows[j])
                    && !(0..live.len()).any(|k| k != i && covers(k, &rows[j]))
            })
            .collect()
    }

    /// `simplify_run` written the obvious way: each rule by the plain order, duplicates and
    /// subsumed rules out, then the re-growing of the module docs, counting by scanning rows.
    fn naive_simplify_run(
        schema: &Schema,
        rules: &[Rule],
        rows: &[Vec<u32>],
        labels: &[bool],
        acc: Acceptance,
    ) -> Vec<Rule> {
        let simplify = |r: &Rule| {
            restricted(schema, r, &naive_simplify(&r.constraints(schema), rows, labels, acc))
        };
        let ok = |r: &Rule| {
            let (n, p) = count(&r.constraints(schema), rows, labels);
            acceptable(acc, n, p)
        };
        let simplified: Vec<Rule> = rules.iter().map(simplify).collect();
        let mut live: Vec<Option<Rule>> = maximal_by_definition(schema, &simplified)
            .into_iter()
            .map(Some)
            .collect();
        let mut order: Vec<usize> = (0..live.len()).collect();
        let len = |r: &Option<Rule>| r.as_ref().unwrap().constraints(schema).len();
        order.sort_by_key(|&i| (std::cmp::Reverse(len(&live[i])), i));
        for &i in &order {
            let rule = live[i].clone().unwrap();
            if !ok(&rule) {
                continue;
            }
            let own = alone(schema, &live, i, rows, labels);
            if own.is_empty() {
                live[i] = None;
                continue;
            }
            // The least general generalization of `own`, built by Algorithm 1's own steps.
            let mut lgg = Rule::from_row(schema, &rows[own[0]]);
            for &j in &own[1..] {
                lgg.generalize(schema, &rows[j]);
            }
            let grown = simplify(&lgg);
            if grown.constraints(schema).len() < rule.constraints(schema).len() && ok(&grown) {
                live[i] = Some(grown);
            }
        }
        for &i in &order {
            if live[i].as_ref().is_some_and(|r| ok(r))
                && alone(schema, &live, i, rows, labels).is_empty()
            {
                live[i] = None;
            }
        }
        maximal_by_definition(schema, &live.into_iter().flatten().collect::<Vec<_>>())
    }

    /// `simplify_run` equals the plain version on random data, and keeps the run's guarantees:
    /// every positive the run covered stays covered, no rule grows, each acceptable rule stays
    /// irredundant and covers a positive alone.
    #[test]
    fn simplify_run_matches_the_plain_version_and_keeps_coverage() {
        let (mut regrown, mut dropped, mut runs) = (0usize, 0usize, 0usize);
        for (domains, seeds) in [(vec![3u32, 2, 4, 3, 2, 1, 2], 40u64), (vec![2, 5, 3, 2, 2, 2, 3], 30)] {
            for seed in 0..seeds {
                for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                    for (tau, eps) in ACCEPTANCES.into_iter().chain([(3, 0.0)]) {
                        let acc = Acceptance::new(tau, eps).unwrap();
                        let (rows, labels) =
                            random_data(seed + 301, 30 + (seed as usize % 50), &domains);
                        let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind)
                        else {
                            continue;
                        };
                        let n = ts.n_positives() as u32;
                        let order: Vec<u32> = (0..n).map(|i| (i * 7 + seed as u32) % n).collect();
                        let mut rules = find_rs_pruned(&ts, &order, acc, 0);
                        if let Some(j) = labels.iter().position(|&y| !y) {
                            rules.push(Rule::from_row(&schema, &rows[j]));
                        }
                        let ctx = format!("seed {seed} {kind:?} {acc:?}");
                        let got = Simplifier::new(&ts, acc).simplify_run(&rules);
                        let want = naive_simplify_run(&schema, &rules, &rows, &labels, acc);
                        assert_eq!(got, want, "{ctx}");
                        runs += 1;
                        let mut simplified: Vec<Rule> = {
                            let mut s = Simplifier::new(&ts, acc);
                            rules.iter().map(|r| s.simplify(r)).collect()
                        };
                        simplified = keep_maximal(&schema, simplified);
                        regrown += got.iter().filter(|r| !simplified.contains(r)).count();
                        dropped += simplified.len().saturating_sub(got.len());
                        assert!(got.len() <= rules.len(), "{ctx}");
                        let len = |rs: &[Rule]| rs.iter().map(|r| r.n_constraints(&schema)).sum::<usize>();
                        assert!(len(&got) <= len(&simplified), "{ctx}");
                        let live: Vec<Option<Rule>> = got.iter().cloned().map(Some).collect();
                        for (j, row) in rows.iter().enumerate() {
                            if labels[j] && rules.iter().any(|r| r.covers_row(&schema, row)) {
                                assert!(got.iter().any(|r| r.covers_row(&schema, row)), "{ctx} row {j}");
                            }
                        }
                        for (i, r) in got.iter().enumerate() {
                            let plain = r.constraints(&schema);
                            let (n, p) = count(&plain, &rows, &labels);
                            if !acceptable(acc, n, p) {
                                continue;
                            }
                            assert!(!alone(&schema, &live, i, &rows, &labels).is_empty(), "{ctx}");
                            for k in 0..plain.len() {
                                let mut w = plain.clone();
                                w.remove(k);
                                let (n, p) = count(&w, &rows, &labels);
                                assert!(!acceptable(acc, n, p), "redundant condition: {ctx}");
                            }
                        }
                    }
                }
            }
        }
        assert!(regrown > 100 && dropped > 20 && runs > 500, "{regrown} {dropped} {runs}");
    }

    /// Rows repeated (each row 1 to 4 times, a few copies with the other label): simplification
    /// on the collapsed views (distinct vectors with weights, [`Weighted`]) gives exactly the
    /// rules it gives on the rows, and the plain version's; AV, OH and interval features.
    #[test]
    fn collapsed_views_simplify_as_the_rows_do() {
        use crate::learn::run::interval_tests::{av, iv, mixed_data, mixed_schema, oh};
        let repeat = |rows: Vec<Vec<u32>>, labels: Vec<bool>, seed: u64| {
            let (mut r, mut l) = (Vec::new(), Vec::new());
            for (i, (row, y)) in rows.into_iter().zip(labels).enumerate() {
                let copies = 1 + (i as u64 * 7 + seed) % 4;
                for c in 0..copies {
                    r.push(row.clone());
                    l.push(if c == 2 && i % 5 == 0 { !y } else { y });
                }
            }
            (r, l)
        };
        let mut collapsed = 0usize;
        let mut check = |schema: &Schema, rows: &[Vec<u32>], labels: &[bool], ctx: &str| {
            let cols = columns_of(rows, schema.n_features());
            let data = Columns::new(schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let Ok(ts) = TrainingSet::new(schema.clone(), &data, labels) else { return };
            let (pos, neg) = ts.weighted();
            collapsed += (pos.is_collapsed() && neg.is_collapsed()) as usize;
            let (prow, nrow) = (Weighted::rows(ts.n_positives()), Weighted::rows(ts.neg_rows.len()));
            for (tau, eps) in ACCEPTANCES.into_iter().chain([(3, 0.0)]) {
                let acc = Acceptance::new(tau, eps).unwrap();
                let n = ts.n_positives() as u32;
                let mut rules = find_rs_pruned(&ts, &(0..n).rev().collect::<Vec<_>>(), acc, 0);
                if let Some(j) = labels.iter().position(|&y| !y) {
                    rules.push(Rule::from_row(schema, &rows[j]));
                }
                let got = Simplifier::new(&ts, acc).simplify_run(&rules);
                let on_rows = Simplifier::with_views(&ts, acc, &prow, &nrow).simplify_run(&rules);
                assert_eq!(got, on_rows, "{ctx} {acc:?}");
                assert_eq!(got, naive_simplify_run(schema, &rules, rows, labels, acc), "{ctx} {acc:?}");
            }
        };
        for seed in 0..40u64 {
            let domains = [3u32, 2, 4, 3, 2];
            let (rows, labels) = random_data(seed + 77, 25 + seed as usize % 30, &domains);
            let (rows, labels) = repeat(rows, labels, seed);
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
                check(&schema, &rows, &labels, &format!("seed {seed} {kind:?}"));
            }
            let specs = [iv(6, true), av(3), oh(3), iv(3, false)];
            let schema = mixed_schema(&specs);
            let (rows, labels) = mixed_data(seed + 503, 20 + seed as usize % 25, &specs, seed % 2 == 0);
            let (rows, labels) = repeat(rows, labels, seed);
            check(&schema, &rows, &labels, &format!("seed {seed} intervals"));
        }
        assert!(collapsed > 60, "{collapsed} of 120 data sets collapsed");
    }

    /// The same with interval features (nulls, a single value) among AV and OH ones.
    #[test]
    fn simplify_run_matches_the_plain_version_with_intervals() {
        use crate::learn::run::interval_tests::{av, iv, oh};
        let (mut changed, mut runs) = (0usize, 0usize);
        let specs = [
            vec![iv(6, true), av(3), oh(3), iv(1, false), av(2), oh(2)],
            vec![oh(2), iv(9, false), iv(3, true), av(1), av(2)],
        ];
        for_each_mixed_case(&specs, 40, 907, 25, |case| {
            let MixedCase { seed, specs, schema, ts, rows, labels, acc } = case;
            let n = ts.n_positives() as u32;
            let rules = find_rs_pruned(ts, &(0..n).rev().collect::<Vec<_>>(), acc, 0);
            let got = Simplifier::new(ts, acc).simplify_run(&rules);
            let want = naive_simplify_run(schema, &rules, rows, labels, acc);
            assert_eq!(got, want, "seed {seed} {specs:?} {acc:?}");
            for (j, row) in rows.iter().enumerate() {
                if labels[j] && rules.iter().any(|r| r.covers_row(schema, row)) {
                    assert!(got.iter().any(|r| r.covers_row(schema, row)), "seed {seed}");
                }
            }
            let simplified = {
                let mut s = Simplifier::new(ts, acc);
                keep_maximal(schema, rules.iter().map(|r| s.simplify(r)).collect())
            };
            changed += (got != simplified) as usize;
            runs += 1;
        });
        assert!(changed > 50 && runs > 300, "{changed} {runs}");
    }

    #[test]
    fn uses_positives_tells_the_truth() {
        for (tau, eps) in ACCEPTANCES.into_iter().chain([(3, 0.0)]) {
            let acc = Acceptance::new(tau, eps).unwrap();
            let mut differs = false;
            for n in 0..20 {
                for p in 0..50 {
                    differs |= acceptable(acc, n, p) != acceptable(acc, n, 0);
                }
            }
            assert!(uses_positives(acc) || !differs, "{acc:?}");
        }
    }

    #[test]
    fn keeps_the_first_of_equal_rules_and_drops_subsumed_ones() {
        let schema = Schema::uniform(vec![3, 3, 2], ConstraintKind::OneHot).unwrap();
        let r = |c: &[(usize, Vec<u32>)]| Rule::from_constraints(&schema, c).unwrap();
        let a = r(&[(0, vec![0])]);
        let a_b = r(&[(0, vec![0]), (1, vec![1])]);
        let a_or = r(&[(0, vec![0, 1])]);
        let c = r(&[(2, vec![1])]);
        let rules = vec![
            a_b.clone(),
            a.clone(),
            c.clone(),
            a.clone(),
            a_or.clone(),
            c.clone(),
        ];
        assert_eq!(keep_maximal(&schema, rules), vec![c.clone(), a_or.clone()]);
        let rules = vec![c.clone(), a.clone(), c.clone(), a_b];
        assert_eq!(keep_maximal(&schema, rules), vec![c, a]);
    }

    /// `is_subsumed_by` is containment on every row of the code space (unseen values, gaps
    /// and null included), and `keep_maximal` follows from it, with interval features.
    #[test]
    fn subsumption_is_containment_on_every_row() {
        use crate::learn::run::interval_tests::{av, iv, mixed_schema, oh, random_rule};
        use rand::SeedableRng;
        let specs = [iv(2, true), av(2), oh(3), iv(3, false)];
        let schema = mixed_schema(&specs);
        let mut space: Vec<Vec<u32>> = vec![Vec::new()];
        for f in 0..specs.len() {
            space = space
                .iter()
                .flat_map(|r| {
                    (0..=schema.max_code(f)).map(move |c| {
                        let mut r = r.clone();
                        r.push(c);
                        r
                    })
                })
                .collect();
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let (mut strict, mut equal) = (0, 0);
        for _ in 0..300 {
            let rules: Vec<Rule> = (0..6)
                .map(|_| random_rule(&mut rng, &schema, 0.5))
                .collect();
            for a in &rules {
                for b in &rules {
                    let contained = space
                        .iter()
                        .all(|row| !a.covers_row(&schema, row) || b.covers_row(&schema, row));
                    assert_eq!(a.is_subsumed_by(&schema, b), contained, "{a:?} {b:?}");
                    strict += (contained && a != b) as usize;
                    equal += (a == b) as usize;
                }
            }
            let want: Vec<Rule> = (0..rules.len())
                .filter(|&i| {
                    !(0..rules.len()).any(|j| {
                        j != i
                            && rules[i].is_subsumed_by(&schema, &rules[j])
                            && (rules[i] != rules[j] || j < i)
                    })
                })
                .map(|i| rules[i].clone())
                .collect();
            assert_eq!(keep_maximal(&schema, rules), want);
        }
        assert!(strict > 100 && equal > 1800, "{strict} {equal}");
    }

    /// `keep_maximal` against the plain definition, on random rules of a real run.
    #[test]
    fn keep_maximal_matches_the_definition() {
        let domains = [3u32, 2, 3, 2];
        for seed in 0..40u64 {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                let (rows, labels) = random_data(seed + 5, 40, &domains);
                let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind) else {
                    continue;
                };
                let acc = Acceptance::absolute(1);
                let mut s = Simplifier::new(&ts, acc);
                let rules: Vec<Rule> = some_rules(&ts, &rows, acc)
                    .iter()
                    .map(|r| s.simplify(r))
                    .collect();
                let want: Vec<Rule> = (0..rules.len())
                    .filter(|&i| {
                        !(0..rules.len()).any(|j| {
                            j != i
                                && rules[i].is_subsumed_by(&schema, &rules[j])
                                && (rules[i] != rules[j] || j < i)
                        })
                    })
                    .map(|i| rules[i].clone())
                    .collect();
                assert_eq!(keep_maximal(&schema, rules), want, "seed {seed}");
            }
        }
    }
}
