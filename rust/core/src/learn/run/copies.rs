//! Where each positive feature vector's last copy went in a run, so that a later copy of it
//! re-examines only the rules that changed since (relative test without interval features,
//! docs/semantics.md §3 and §9.1).
//!
//! Invariant, for every vector `v` seen in the run: `place[v]` is the rule its last copy joined
//! (or [`LEFT_OUT`]: no rule took it and its own rows fail the test), and `since[v]` the number
//! of rule changes (an absorb, or a rule made) the run had logged right after that copy was
//! placed; `changed[r]` is the log position of rule `r`'s last change. Rules are only appended
//! and generalized during a run, never removed or reordered, so a rule index names the same rule
//! for the whole run.
//!
//! Why a copy needs only the rules `r < place[v]` with `changed[r] >= since[v]`, in index
//! order: without interval features a rule's verdict on a positive (it covers it, or the test
//! accepts or rejects generalize(r, p) on its exact counts) depends only on the rule as it is
//! and the positive's feature vector. When the last copy was placed at `k`, every rule before
//! `k` rejected it; one unchanged since rejects it again. Rule `k` covered it then (it took the
//! copy, by an absorb or as it was) and generalizing only grows coverage, so it covers it now,
//! whatever changed in it. Rules after `k`, made since included, are never reached. A copy left
//! out was rejected by every rule then alive and its own rows fail the test (a property of the
//! vector and the training rows alone), so it can go elsewhere only through a rule that changed
//! or was made since: those are re-examined, every one of them. Hence the first re-examined rule
//! that takes the copy is where the full scan would place it, and if none does it goes where the
//! last copy went. A re-examination does what the scan does for that rule (covers, absorb,
//! counted rejection with its memories), so the rules, buckets and counts are those of the full
//! scan; only the filter memories of the rules skipped (witnesses, rejected masks) are not
//! refreshed, and those change no verdict.
//!
//! The changed rules are found from whichever is shorter: the log since `since[v]` (filtered,
//! sorted, deduplicated) or `changed[..k]`.

/// `place` of a vector no copy of which was presented yet in this run.
const UNSEEN: u32 = u32::MAX;
/// `place` of a vector whose last copy no rule took and whose own rows fail the test.
pub(super) const LEFT_OUT: u32 = u32::MAX - 1;

#[derive(Default)]
pub(super) struct Copies {
    /// Per feature vector (`TrainingSet::pos_vector`): the rule its last copy joined,
    /// [`LEFT_OUT`] or [`UNSEEN`].
    place: Vec<u32>,
    /// Per feature vector: the length of `log` right after its last copy was placed.
    since: Vec<u32>,
    /// Per rule: its last position in `log`.
    changed: Vec<u32>,
    /// Every rule change of the run (absorb or rule made), in order: the rule's index.
    log: Vec<u32>,
    /// The rules a copy is to re-examine, in index order.
    pub(super) recheck: Vec<u32>,
    /// Tests only: a deliberately wrong variant, to see the tests fail with it.
    #[cfg(test)]
    pub(super) broken: Broken,
    /// Tests only: copies placed from memory, and the rules they re-examined.
    #[cfg(test)]
    pub(super) copies: usize,
    #[cfg(test)]
    pub(super) rechecked: usize,
}

/// Tests only: ways to get the cut wrong.
#[cfg(test)]
#[derive(Clone, Copy, Default, PartialEq, Debug)]
pub(crate) enum Broken {
    #[default]
    No,
    /// A copy re-examines nothing: it goes where the last copy went.
    IgnoreChanges,
    /// A left-out copy does not re-examine the rules made since.
    SkipNewRules,
    /// Rules generalized since are not re-examined (only those made since).
    SkipAbsorbs,
}

impl Copies {
    /// Forgets the previous run: `n_vectors` feature vectors, none seen.
    pub(super) fn reset(&mut self, n_vectors: usize) {
        self.place.clear();
        self.place.resize(n_vectors, UNSEEN);
        self.since.clear();
        self.since.resize(n_vectors, 0);
        self.changed.clear();
        self.log.clear();
        self.recheck.clear();
        #[cfg(test)]
        {
            self.copies = 0;
            self.rechecked = 0;
        }
    }

    /// Records a change of rule `r` (an absorb, or `r` was just made).
    #[inline]
    pub(super) fn rule_changed(&mut self, r: usize) {
        let at = self.log.len() as u32;
        self.log.push(r as u32);
        if r == self.changed.len() {
            self.changed.push(at);
        } else {
            self.changed[r] = at;
        }
    }

    /// Records that a copy of vector `v` was placed at `place` (a rule, or [`LEFT_OUT`]), after
    /// any change that placing it made.
    #[inline]
    pub(super) fn placed(&mut self, v: u32, place: u32) {
        self.place[v as usize] = place;
        self.since[v as usize] = self.log.len() as u32;
    }

    /// For a copy of vector `v` with `n_rules` rules alive: `None` if no copy of `v` was placed
    /// yet in this run; else where the last copy went, with `recheck` set to the rules before
    /// it (all rules, for [`LEFT_OUT`]) that changed since, in index order.
    pub(super) fn last_place(&mut self, v: u32, n_rules: usize) -> Option<u32> {
        let place = self.place[v as usize];
        if place == UNSEEN {
            return None;
        }
        let since = self.since[v as usize];
        let end = if place == LEFT_OUT { n_rules } else { place as usize };
        self.recheck.clear();
        let new_entries = self.log.len() - since as usize;
        if new_entries < end {
            self.recheck.extend(self.log[since as usize..].iter().filter(|&&r| (r as usize) < end));
            self.recheck.sort_unstable();
            self.recheck.dedup();
        } else {
            self.recheck.extend(
                self.changed[..end]
                    .iter()
                    .enumerate()
                    .filter(|&(_, &c)| c >= since)
                    .map(|(r, _)| r as u32),
            );
        }
        #[cfg(test)]
        {
            let made_before = |r: u32| self.log[..since as usize].contains(&r);
            match self.broken {
                Broken::No => {}
                Broken::IgnoreChanges => self.recheck.clear(),
                Broken::SkipNewRules => self.recheck.retain(|&r| made_before(r)),
                Broken::SkipAbsorbs => self.recheck.retain(|&r| !made_before(r)),
            }
            self.copies += 1;
            self.rechecked += self.recheck.len();
        }
        Some(place)
    }
}
