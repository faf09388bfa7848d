//! Twin rules of a run under a relative test without interval features (docs/semantics.md
//! §9.1): a new rule made from a positive whose feature vector an earlier rule was also made
//! from, while that earlier rule has not changed since. Such rules arise on noisy data with
//! repeated rows: a vector whose rows are mostly negative makes a rule that fails the test
//! (`n > limit(p)`), a later copy of the positive is covered by it, is refused by it (the same
//! failing counts) and by every other rule, and becomes an identical rule of its own; a
//! contradictory vector with many copies makes many.
//!
//! Invariant: `groups[g]` lists, in increasing order, the rules made from vector `g` that have
//! not changed since they were made; `group_of[r]` is `r`'s group while `r` is in it, else
//! `NONE`. A rule is *shadowed* when it is in a group but not its first.
//!
//! Why skipping a shadowed rule `r` (twin of the group's first, `f < r`) leaves the run
//! unchanged: both are the same rule with the same training coverage, so for any positive `q`
//! they give the same candidate generalize(rule, q), the same exact counts and the same
//! verdict; a positive reaching `r` in the scan has passed `f` first (rules are visited in
//! index order), so `f` was not taken: `f` covered `q` and failed the test, or its candidate
//! was refused (by a count or by an exact filter). `r` would do the same, so `q` goes on to the
//! rules after `r` either way. Nothing but an absorb changes a rule, and a shadowed rule is
//! never offered a positive, so it stays identical to `f` until `f` changes; then the next rule
//! of the group takes `f`'s place (its near-miss state, computed when it was made, is its
//! exact state, since it has not changed). What skipping saves is the twin's filters and
//! counts: only its witnesses and rejected masks, which decide no verdict, differ.

use std::collections::HashMap;

const NONE: u32 = u32::MAX;

#[derive(Default)]
pub(super) struct Twins {
    /// Slot mask of a rule's vector (as the positive held it) -> its group.
    by_mask: HashMap<Box<[u64]>, u32>,
    groups: Vec<Vec<u32>>,
    group_of: Vec<u32>,
    /// Rules made shadowed, and shadowed rules that became their group's first (for tests).
    #[cfg(test)]
    made: usize,
    #[cfg(test)]
    woke: usize,
}

impl Twins {
    pub(super) fn reset(&mut self) {
        self.by_mask.clear();
        self.groups.clear();
        self.group_of.clear();
    }

    /// Records rule `i` (the next rule index) made from the positive with slot mask `pm`:
    /// `true` when it is shadowed (an earlier unchanged rule was made from the same vector).
    pub(super) fn push_rule(&mut self, i: usize, pm: &[u64]) -> bool {
        debug_assert_eq!(i, self.group_of.len());
        let n = self.groups.len() as u32;
        let g = *self.by_mask.entry(pm.into()).or_insert(n);
        if g == n {
            self.groups.push(Vec::new());
        }
        let group = &mut self.groups[g as usize];
        group.push(i as u32);
        self.group_of.push(g);
        #[cfg(test)]
        {
            self.made += usize::from(group.len() > 1);
        }
        group.len() > 1
    }

    /// Rule `i` changed (it absorbed a positive): it leaves its group. Returns the rule that
    /// stops being shadowed, if any (then the group's new first).
    pub(super) fn rule_changed(&mut self, i: usize) -> Option<usize> {
        let g = std::mem::replace(&mut self.group_of[i], NONE);
        if g == NONE {
            return None;
        }
        let group = &mut self.groups[g as usize];
        // Only a group's first is ever offered a positive, so only it can change.
        debug_assert_eq!(group.first(), Some(&(i as u32)));
        group.remove(0);
        #[cfg(test)]
        {
            self.woke += usize::from(!group.is_empty());
        }
        group.first().map(|&r| r as usize)
    }

    /// Whether rule `i` is shadowed by an earlier twin (never, for a rule not recorded).
    #[inline]
    pub(super) fn shadowed(&self, i: usize) -> bool {
        match self.group_of.get(i) {
            Some(&g) if g != NONE => self.groups[g as usize][0] != i as u32,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::acceptance::Acceptance;
    use crate::run::tests::{naive_find_rs, training_set};
    use crate::run::Runner;
    use crate::schema::ConstraintKind;

    /// Noisy repeated rows (a few feature vectors, each with a majority label and some copies
    /// flipped) make twins under a share tolerance: runs in a shuffled order equal the plain
    /// Algorithm 1 (rules and buckets), and twins were both skipped and later offered
    /// positives again (their first rule changed), so both paths are exercised.
    #[test]
    fn runs_with_twin_rules_equal_algorithm_1() {
        let domains = [2u32, 3, 2, 3];
        let (mut made, mut woke, mut runs) = (0, 0, 0);
        for seed in 0..24u64 {
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
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind) else {
                    continue;
                };
                let mut order: Vec<u32> = (0..ts.n_positives() as u32).collect();
                for i in (1..order.len()).rev() {
                    order.swap(i, (next() % (i as u64 + 1)) as usize);
                }
                for eps in [0.1, 0.2, 0.35] {
                    let acc = Acceptance::new(0, eps).unwrap();
                    let mut runner = Runner::new(&ts, acc);
                    runner.run(&order);
                    made += runner.0.twins.made;
                    woke += runner.0.twins.woke;
                    runs += 1;
                    let rows_order: Vec<usize> = order.iter().map(|&i| ts.pos_rows[i as usize] as usize).collect();
                    let (rules, buckets) = naive_find_rs(&schema, &rows, &labels, &rows_order, acc);
                    assert_eq!(runner.rules(), &rules[..], "seed {seed} {kind:?} eps {eps}");
                    let fast: Vec<Vec<usize>> = runner
                        .buckets()
                        .iter()
                        .map(|b| b.iter().map(|&i| ts.pos_rows[i as usize] as usize).collect())
                        .collect();
                    assert_eq!(fast, buckets, "seed {seed} {kind:?} eps {eps}");
                }
            }
        }
        assert!(made > 100 && woke > 10, "{runs} runs: {made} twins made, {woke} woken");
    }
}
