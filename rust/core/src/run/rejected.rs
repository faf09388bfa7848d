//! The candidates a run counted and rejected, per rule, since the rule last changed (relative
//! test without interval features, docs/semantics.md §9.1).
//!
//! Invariant: `sets[r]` holds exactly the masks `pm & !allowed[r]` of the positives whose
//! generalization of rule `r`, as `r` is now, was counted and rejected; it is emptied whenever
//! `r` changes. Without interval features generalize(r, p) depends on `p` only through that
//! mask, so a positive whose mask is in the set would give the same candidate, the same exact
//! counts and the same rejection: it is rejected without counting. Every rejection is kept (not
//! only the last few), so a positive whose feature vector repeats an earlier one's is never
//! counted twice against an unchanged rule, however many copies the data holds.

use std::collections::HashSet;

#[derive(Default)]
pub(super) struct Rejected {
    sets: Vec<HashSet<Box<[u64]>>>,
    /// Sets of earlier runs, emptied, reused by the next run on the same thread.
    spare: Vec<HashSet<Box<[u64]>>>,
    key: Vec<u64>,
}

impl Rejected {
    /// Forgets every rule (a new run).
    pub(super) fn reset(&mut self) {
        for mut s in self.sets.drain(..) {
            s.clear();
            self.spare.push(s);
        }
    }

    /// A new rule, with nothing rejected yet.
    pub(super) fn push_rule(&mut self) {
        self.sets.push(self.spare.pop().unwrap_or_default());
    }

    /// Rule `i` changed: its rejections no longer hold.
    pub(super) fn rule_changed(&mut self, i: usize) {
        self.sets[i].clear();
    }

    /// Whether `pm & !allowed` was counted and rejected against rule `i` as it is now.
    #[inline]
    pub(super) fn contains(&mut self, i: usize, pm: &[u64], allowed: &[u64]) -> bool {
        if self.sets[i].is_empty() {
            return false;
        }
        self.fill_key(pm, allowed);
        self.sets[i].contains(self.key.as_slice())
    }

    /// Records `pm & !allowed` as counted and rejected against rule `i` as it is now.
    pub(super) fn insert(&mut self, i: usize, pm: &[u64], allowed: &[u64]) {
        self.fill_key(pm, allowed);
        self.sets[i].insert(self.key.clone().into_boxed_slice());
    }

    fn fill_key(&mut self, pm: &[u64], allowed: &[u64]) {
        self.key.clear();
        self.key
            .extend(pm.iter().zip(allowed).map(|(&p, &a)| p & !a));
    }
}
