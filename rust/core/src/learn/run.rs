//! One FIND-RS run (Algorithm 1 of the paper, docs/semantics.md §3): positives in a given order,
//! each absorbed by the first rule whose generalization the [`Acceptance`] test accepts (the
//! paper's: it covers at most `tau` training negatives; docs/semantics.md §9.1 for a share),
//! else made a rule of its own; under a share only if that rule passes the test too (its own
//! rows, `TrainingSet::own_counts`), else left in no bucket.
//!
//! `cap` is the most negatives any accepted generalization may cover (`limit` of all training
//! positives; `tau` for the paper's test). Invariants kept while the run goes on, for every live
//! rule `r` (one covering `<= cap` negatives; a rule covering more is *dead*, made from a
//! contradictory positive, and can never absorb another positive since generalization only grows
//! coverage):
//! - `covered[r]` is the exact number of training negatives `r` covers;
//! - `counts[r][s]` is the number of *near-miss* negatives (covered by `r` but for one feature's
//!   constraint) that allowing slot `s` would bring in; `blocked[r]` holds the slots `s` with
//!   `covered[r] + counts[r][s] > cap`, `near[r]` those with a count above zero; unless
//!   `stale[r]`: then these three are those of an earlier, more specific `r` (before its last
//!   absorbs, under the absolute test without interval features), with `blocked[r]` and
//!   `near[r]` cut to the slots `r` now disallows. A near miss of that rule on a slot `r` still
//!   disallows (AV: its feature still constrained; OH: its value still outside the grown set)
//!   is one of `r` on it, and `r` covers at least its negatives, so the stale counts of those
//!   slots are lower bounds and the stale blocked slots a subset of the fresh ones: the
//!   filters below stay proven. A stale rule is refreshed (a scan of the negatives) only when
//!   a candidate of it was counted and rejected, so that the next positives meet its fresh
//!   blocked slots; one that absorbs the candidate stays stale, and so does one that never has
//!   a rejected candidate again;
//! - with a relative test (a share epsilon > 0), `pos_cov[r]` is the exact number of training
//!   positives `r` covers, and every rule passes the test: `(covered[r], pos_cov[r])` is
//!   accepted at every step of the run (a rule is made only from a positive whose own rows pass,
//!   and an absorb is accepted), so no rule is dead and a rule that covers the positive
//!   presented (`generalize(r, p) = r`) absorbs it. Without interval features
//!   `pos_counts[r][s]` is then the number of near-miss *positives* of slot `s`, as
//!   `counts[r][s]` is for negatives (both counted over the distinct vectors, weighted, for AV
//!   rules when the rows collapse: the same numbers): a
//!   candidate with exactly one slot outside the rule covers `covered[r] + counts[r][s]`
//!   negatives and `pos_cov[r] + pos_counts[r][s]` positives, decided without a scan.
//!
//! - `witnesses[r]` are a few negatives, not covered by `r`, that recently made a generalization
//!   of `r` cover too many negatives, each with the slot mask that tells in one XOR + AND per
//!   word whether generalizing `r` to a positive would cover it again; `single_slots[r]` holds
//!   the slots of `r`'s single-slot terms (on AV slots a witness's mask is those it lacks).
//! - with a relative test, `rejected` holds every mask `pm & !allowed[r]` of a positive whose
//!   generalization of `r`, as `r` is now, was counted and rejected ([`rejected`]); emptied
//!   whenever `r` changes. Without interval features generalize(r, p) depends on `p` only
//!   through that mask, so a positive with a remembered mask is rejected without counting (the
//!   same candidate, the same exact counts: docs/semantics.md §9.1 is unchanged); and every
//!   candidate (its allowed slot words) counted and rejected in this run, whatever rule it came
//!   from, so a candidate met again is rejected without counting (its verdict is its own exact
//!   counts).
//! - with a relative test, without interval features (and with the positives' feature vector
//!   numbers, `TrainingSet::pos_vector`), `copies` knows for every feature vector met in this
//!   run where its last copy went (a rule, or left out) and which rules changed since
//!   ([`copies`]): a later copy re-examines, in order, only the rules before that placement that
//!   changed since (all rules changed or made since, for a vector left out), and goes where the
//!   last copy went if none takes it. A rule's verdict on a positive depends only on the rule
//!   and the positive's feature vector, so this is the full scan's placement (on noisy repeated
//!   rows most positives are copies: at 2M rows a copy met ~154 candidate rules, of which ~3 had
//!   changed). Under an absolute test (`tolerance = 0` and the paper's settings) and with
//!   interval features every positive takes the full scan, unchanged.
//!
//! A positive whose outside slots meet `blocked[r]` is rejected by `r` without touching the
//! negatives: the near-miss negatives of different features are disjoint, so their counts add
//! up to a lower bound of what the generalization covers; covered witnesses give another lower
//! bound. These bounds are compared with `cap`, and with a relative test once more with
//! `limit(p)` while the candidate's positives `p` are counted (an upper bound of `p` until the
//! count is exact). The filters are exact, never a guess: a rejection is proven by negatives the
//! generalization would cover, and every accepted generalization has been counted on the
//! negatives' (and, with a relative test, the positives') bitsets.
//!
//! Interval features own no slot: their part of both filters (per rule, thresholds on the
//! positive's code derived from the near-miss negatives' codes, and per witness a range of
//! codes) lives in [`intervals`]; its thresholds are computed against `cap` too. A run over a
//! schema without interval features compiles without that part (`IV = false`).

mod blocked_index;
mod copies;
mod intervals;
mod rejected;
mod share_count;
#[cfg(test)]
mod share_tests;
#[cfg(test)]
pub(crate) mod interval_tests;

use crate::learn::acceptance::Acceptance;
use crate::data::bitset::{self, WORD_BITS};
use crate::data::interval::IntervalTerm;
use crate::data::rule::{generalize_into, Rule, TermRef, Terms};
use crate::data::schema::ConstraintKind;
use crate::learn::training::TrainingSet;
use blocked_index::BlockedIndex;
use copies::{Copies, LEFT_OUT};
use intervals::{Check, IvFilter};
use rejected::Rejected;

/// The rules of one run before pruning, with their buckets (positive indices, in the order they
/// were absorbed) and the number of training negatives each covers.
#[allow(dead_code)] // outside tests only the pruned rules are used
#[derive(Clone, Debug)]
pub struct RunResult {
    pub rules: Vec<Rule>,
    pub buckets: Vec<Vec<u32>>,
    pub neg_covered: Vec<u32>,
}

struct RunState<'a> {
    ts: &'a TrainingSet,
    acc: Acceptance,
    /// The most negatives an accepted generalization may cover: `acc.limit(positives)`.
    cap: u32,
    sw: usize,
    /// Some feature is one-hot (a candidate then widens the single-slot terms the positive
    /// fails instead of dropping them).
    has_one_hot: bool,
    /// Per feature, its slots as a slot mask (`sw` words each).
    feature_masks: Vec<u64>,
    /// The slots of the one-hot features (`sw` words).
    one_hot_slots: Vec<u64>,
    rules: Vec<Rule>,
    terms: Vec<Terms>,
    buckets: Vec<Vec<u32>>,
    covered: Vec<u32>,
    /// Per rule: `blocked`, `near` and `counts` predate its last generalizations (see the
    /// module docs).
    stale: Vec<bool>,
    /// Relative test only: the training positives each rule covers (empty otherwise).
    pos_cov: Vec<u32>,
    allowed: Vec<u64>,
    /// Per rule (`sw` words), the slots of its single-slot terms.
    single_slots: Vec<u64>,
    blocked: Vec<u64>,
    near: Vec<u64>,
    counts: Vec<Vec<u32>>,
    /// Relative test without interval features: per rule and slot, the near-miss *positives*
    /// (covered by the rule but for one feature's constraint) allowing the slot would bring in,
    /// as `counts` does for negatives (empty otherwise).
    pos_counts: Vec<Vec<u32>>,
    /// Per rule, the negatives' word where its last rejected candidate found covered rows.
    witness: Vec<usize>,
    /// Per rule, `WITNESSES` slots: negative index (`NONE` if empty), features it fails in the
    /// rule (`need`), and its mask (`sw` words each); `wit_next` is the ring position.
    wit_neg: Vec<u32>,
    wit_need: Vec<u32>,
    wit_mask: Vec<u64>,
    wit_next: Vec<u8>,
    /// Relative test only: per rule, the slot masks `pm & !allowed` of positives whose
    /// generalization of the rule, as it is now, was counted and rejected.
    rejected: Rejected,
    /// Without interval features: `blocked` transposed, to find a positive's candidates 64
    /// rules at a time.
    blocked_index: BlockedIndex,
    /// Relative test without interval features, with the positives' vector numbers: each
    /// vector's last placement and the rules' changes ([`copies`]); `copies_on` for this run.
    copies: Copies,
    copies_on: bool,
    // scratch
    /// The slots of the positive being presented.
    pos_slot_list: Vec<u32>,
    candidate: Terms,
    /// The interval features' filters (empty without interval features).
    ivf: IvFilter,
    slot_counts: Vec<u32>,
    feature_counts: Vec<u32>,
    word_terms: Vec<u64>,
    /// A slot mask (`sw` words).
    slot_scratch: Vec<u64>,
    /// The allowed slot words of the candidate about to be counted (relative test without
    /// interval features), its key in `rejected`'s candidates.
    candidate_allowed: Vec<u64>,
    /// Tests only: the candidates counted and rejected, and how many were counted again.
    #[cfg(test)]
    counted_rejected: std::collections::HashSet<Vec<u64>>,
    #[cfg(test)]
    recounted: usize,
    #[cfg(test)]
    candidate_hits: usize,
    /// Per slot term of the rule being refreshed: how many of its feature's slots it
    /// disallows (OH: counting its near misses bit by bit is cheaper below this many).
    term_disallowed: Vec<u32>,
    /// Per single-slot term of the rule being refreshed: its near misses over the distinct
    /// vectors.
    term_counts: Vec<u32>,
    // allocations of earlier runs, reused by the next run on the same thread
    spare_rules: Vec<Rule>,
    spare_terms: Vec<Terms>,
    spare_buckets: Vec<Vec<u32>>,
    spare_counts: Vec<Vec<u32>>,
}

/// Witness negatives kept per rule.
const WITNESSES: usize = 8;
const NONE: u32 = u32::MAX;

/// Runs FIND-RS over the positives of `ts` in `order` (indices into the positives).
#[cfg_attr(not(test), allow(dead_code))]
pub fn find_rs(ts: &TrainingSet, order: &[u32], acc: Acceptance) -> RunResult {
    let mut runner = Runner::new(ts, acc);
    runner.run(order);
    RunResult {
        rules: runner.rules().to_vec(),
        buckets: runner.buckets().to_vec(),
        neg_covered: runner.0.covered.clone(),
    }
}

/// Runs FIND-RS repeatedly on one training set, reusing its allocations from run to run (an
/// ensemble keeps one runner per thread).
pub struct Runner<'a>(RunState<'a>);

impl<'a> Runner<'a> {
    pub fn new(ts: &'a TrainingSet, acc: Acceptance) -> Self {
        Self(RunState::new(ts, acc))
    }

    /// One run over the positives in `order`; its rules and buckets are then readable here.
    pub fn run(&mut self, order: &[u32]) {
        self.0.reset();
        if self.0.ts.schema.has_intervals() {
            for &p in order {
                self.0.present::<true>(p as usize);
            }
        } else {
            for &p in order {
                self.0.present::<false>(p as usize);
            }
        }
    }

    pub fn rules(&self) -> &[Rule] {
        &self.0.rules
    }

    pub fn buckets(&self) -> &[Vec<u32>] {
        &self.0.buckets
    }

    /// Tests only: candidates rejected from memory without a count, and counted rejected
    /// candidates that an earlier count of this run had already rejected.
    #[cfg(test)]
    pub(crate) fn candidate_memory(&self) -> (usize, usize) {
        (self.0.candidate_hits, self.0.recounted)
    }

    /// Tests only: copies placed from their vector's last placement, and the rules they
    /// re-examined ([`copies`]).
    #[cfg(test)]
    pub(crate) fn copy_memory(&self) -> (usize, usize) {
        (self.0.copies.copies, self.0.copies.rechecked)
    }

    /// Tests only: runs the cut of [`copies`] deliberately wrong.
    #[cfg(test)]
    pub(crate) fn break_copies(&mut self, broken: copies::Broken) {
        self.0.copies.broken = broken;
    }
}

impl<'a> RunState<'a> {
    fn new(ts: &'a TrainingSet, acc: Acceptance) -> Self {
        Self {
            ts,
            acc,
            cap: acc.limit(ts.n_positives() as u32),
            sw: ts.slot_words(),
            has_one_hot: ts.schema.kinds().contains(&ConstraintKind::OneHot),
            feature_masks: feature_masks(&ts.schema),
            one_hot_slots: one_hot_slots(&ts.schema),
            rules: Vec::new(),
            terms: Vec::new(),
            buckets: Vec::new(),
            covered: Vec::new(),
            stale: Vec::new(),
            pos_cov: Vec::new(),
            allowed: Vec::new(),
            single_slots: Vec::new(),
            blocked: Vec::new(),
            near: Vec::new(),
            counts: Vec::new(),
            pos_counts: Vec::new(),
            witness: Vec::new(),
            wit_neg: Vec::new(),
            wit_need: Vec::new(),
            wit_mask: Vec::new(),
            wit_next: Vec::new(),
            rejected: Rejected::default(),
            blocked_index: BlockedIndex::new(ts.schema.n_slots()),
            copies: Copies::default(),
            copies_on: false,
            pos_slot_list: Vec::new(),
            candidate: Terms::new(),
            ivf: IvFilter::new(&ts.schema),
            slot_counts: vec![0; ts.schema.n_slots()],
            feature_counts: vec![0; ts.schema.n_features()],
            word_terms: Vec::new(),
            slot_scratch: Vec::new(),
            candidate_allowed: Vec::new(),
            #[cfg(test)]
            counted_rejected: Default::default(),
            #[cfg(test)]
            recounted: 0,
            #[cfg(test)]
            candidate_hits: 0,
            term_disallowed: Vec::new(),
            term_counts: Vec::new(),
            spare_rules: Vec::new(),
            spare_terms: Vec::new(),
            spare_buckets: Vec::new(),
            spare_counts: Vec::new(),
        }
    }

    /// Forgets the rules of the previous run, keeping their allocations for the next.
    fn reset(&mut self) {
        self.spare_rules.append(&mut self.rules);
        self.spare_terms.append(&mut self.terms);
        self.spare_buckets.append(&mut self.buckets);
        self.spare_counts.append(&mut self.counts);
        self.spare_counts.append(&mut self.pos_counts);
        self.covered.clear();
        self.stale.clear();
        self.pos_cov.clear();
        self.allowed.clear();
        self.single_slots.clear();
        self.blocked.clear();
        self.near.clear();
        self.witness.clear();
        self.wit_neg.clear();
        self.wit_need.clear();
        self.wit_mask.clear();
        self.wit_next.clear();
        self.rejected.reset();
        self.ivf.reset();
        self.blocked_index.reset();
        self.copies_on = false;
        if !self.acc.is_absolute() && !self.ts.schema.has_intervals() {
            // Only when rows repeat (as for the distinct-vector count): else few positives
            // are copies and the memory would cost 8 bytes per row for nothing.
            match self.ts.pos_vector(0) {
                Some((_, n_vectors)) if n_vectors * 4 <= self.ts.n_rows * 3 => {
                    self.copies.reset(n_vectors);
                    self.copies_on = true;
                }
                _ => {}
            }
        }
        #[cfg(test)]
        {
            self.counted_rejected.clear();
            self.recounted = 0;
            self.candidate_hits = 0;
        }
    }

    /// `IV`: the schema has interval features (checked once per run). Kept out of line so that
    /// each variant is optimized on its own. Under a relative test without interval features a
    /// copy of a feature vector already placed in this run is placed by
    /// [`present_copy`](Self::present_copy); every placement is then recorded ([`copies`]).
    #[inline(never)]
    fn present<const IV: bool>(&mut self, p: usize) {
        if !IV && self.copies_on {
            let v = self.ts.pos_vector(p).expect("the vector numbers exist when copies_on").0;
            let place = match self.copies.last_place(v, self.rules.len()) {
                Some(last) => self.present_copy(p, last),
                None => self.present_scan::<false>(p),
            };
            self.copies.placed(v, place);
        } else {
            self.present_scan::<IV>(p);
        }
    }

    /// Algorithm 1's step for positive `p` (docs/semantics.md §3): the rules in order, the
    /// first that takes it, else a rule of its own (under a share only if its own rows pass).
    /// Returns the rule it joined, or [`LEFT_OUT`].
    #[inline(always)]
    fn present_scan<const IV: bool>(&mut self, p: usize) -> u32 {
        let pm = self.ts.pos_slots(p);
        let mut from = 0;
        // Without intervals: the positive's slots, and the last chunk of 64 rules looked up
        // (the rules' blocked masks do not change until the positive is placed, but for a
        // stale rule's refresh, which is after the scan passed it).
        let mut chunk = (usize::MAX, 0u64);
        if !IV {
            self.pos_slot_list.clear();
            bitset::for_each_one(pm, |s| self.pos_slot_list.push(s as u32));
        }
        loop {
            let next = if IV {
                self.scan_iv(p, pm, from)
            } else {
                self.scan(pm, from, &mut chunk)
            };
            let Some((i, covers)) = next else { break };
            from = i + 1;
            if self.try_rule::<IV>(i, p, pm, covers) {
                return i as u32;
            }
        }
        if !self.acc.is_absolute() {
            // Under a share no rule that fails the test is made: p stays in no bucket.
            let (n, pos) = self.ts.own_counts(p);
            if !self.acc.accepts(n, pos) {
                return LEFT_OUT;
            }
        }
        self.add_rule::<IV>(p);
        (self.rules.len() - 1) as u32
    }

    /// A copy of a feature vector whose last copy in this run went to `last` (a rule, or
    /// [`LEFT_OUT`]): only the rules `copies.recheck` (those before `last` that changed since)
    /// are examined, in order, as the scan would; if none takes it, it goes where the last copy
    /// went ([`copies`] states why this is the scan's placement). Relative test, no intervals.
    fn present_copy(&mut self, p: usize, last: u32) -> u32 {
        let pm = self.ts.pos_slots(p);
        let sw = self.sw;
        for k in 0..self.copies.recheck.len() {
            let i = self.copies.recheck[k] as usize;
            // The scan's filter: a positive outside a blocked slot of the rule is rejected.
            let a = &self.allowed[i * sw..(i + 1) * sw];
            let b = &self.blocked[i * sw..(i + 1) * sw];
            let (mut out, mut hit) = (0u64, 0u64);
            for ((&x, &a), &b) in pm.iter().zip(a).zip(b) {
                let o = x & !a;
                out |= o;
                hit |= o & b;
            }
            if hit != 0 {
                continue;
            }
            if self.try_rule::<false>(i, p, pm, out == 0) {
                return i as u32;
            }
        }
        if last == LEFT_OUT {
            debug_assert!({
                let (n, pos) = self.ts.own_counts(p);
                !self.acc.accepts(n, pos)
            });
            return LEFT_OUT;
        }
        let k = last as usize;
        debug_assert!(
            pm.iter().zip(&self.allowed[k * sw..(k + 1) * sw]).all(|(&x, &a)| x & !a == 0),
            "rule {k} took a copy of this vector and no longer covers it"
        );
        self.buckets[k].push(p as u32);
        last
    }

    /// Rule `i`'s turn in the scan for positive `p` (`covers`: the rule covers it, `pm` its
    /// slots): the positive joins the rule as it is or generalized (`true`), or the rule
    /// rejects it (`false`), with the filters and counts of the module doc.
    #[inline(always)]
    fn try_rule<const IV: bool>(&mut self, i: usize, p: usize, pm: &[u64], covers: bool) -> bool {
        if covers {
            // The rule already covers p: generalize(r, p) = r. Under the absolute test a
            // live rule always passes; under a relative one every rule does (module doc).
            debug_assert!(
                self.acc.is_absolute() || self.acc.accepts(self.covered[i], self.pos_cov[i]),
                "rule {i} fails the share test"
            );
            self.buckets[i].push(p as u32);
            return true;
        }
        let cap = self.cap;
        let near = self.near_bound::<IV>(i, p, pm);
        if near > cap {
            return false;
        }
        let lower = if self.acc.is_absolute() {
            // Only whether the covered witnesses exceed the room left under `cap` matters.
            if self.witnesses_exceed::<IV>(i, p, pm, cap - self.covered[i]) {
                return false;
            }
            near
        } else {
            near.max(self.covered[i] + self.witness_hits::<IV>(i, p, pm))
        };
        if lower > cap {
            return false;
        }
        if !IV && !self.acc.is_absolute() {
            if let Some((n, pos)) = self.one_slot_counts(i, pm) {
                if self.acc.accepts(n, pos) {
                    self.absorb::<IV>(i, p, n, pos);
                    return true;
                }
                return false;
            }
            if self.was_rejected(i, pm) {
                return false;
            }
            if self.candidate_was_rejected(i, p) {
                // The same candidate, the same counts: remembered for rule i too.
                self.remember_rejected(i, pm);
                #[cfg(test)]
                {
                    self.candidate_hits += 1;
                }
                return false;
            }
        }
        self.build_candidate::<IV>(i, p);
        let at = if self.acc.is_absolute() {
            let (n, at) =
                self.ts
                    .negatives
                    .count_covered_from(&self.candidate, cap, self.witness[i]);
            if n <= cap {
                if !IV && !self.has_one_hot {
                    self.absorb_av_candidate(i, p, n);
                } else {
                    self.absorb::<IV>(i, p, n, 0);
                }
                return true;
            }
            if !IV && self.stale[i] {
                // Rejected: the fresh blocked slots may spare later positives the count.
                self.refresh_near_misses::<false>(i);
                self.stale[i] = false;
            }
            at
        } else {
            match self.count_relative(lower) {
                Ok((n, pos)) => {
                    self.absorb::<IV>(i, p, n, pos);
                    return true;
                }
                Err(at) => {
                    if !IV {
                        self.remember_rejected(i, pm);
                        self.rejected.insert_candidate(&self.candidate_allowed);
                        #[cfg(test)]
                        if !self.counted_rejected.insert(self.candidate_allowed.clone()) {
                            self.recounted += 1;
                        }
                    }
                    at
                }
            }
        };
        self.witness[i] = at;
        self.add_witness::<IV>(i, at);
        false
    }

    /// [`scan`](Self::scan) with interval features: a rule's slot part first (one AND rejects
    /// most), then its intervals ([`IvFilter::check`]).
    fn scan_iv(&self, p: usize, pm: &[u64], from: usize) -> Option<(usize, bool)> {
        let sw = self.sw;
        let pc = self.ts.pos_intervals(p);
        for k in from..self.rules.len() {
            let a = &self.allowed[k * sw..(k + 1) * sw];
            let b = &self.blocked[k * sw..(k + 1) * sw];
            let (mut out, mut hit) = (0u64, 0u64);
            for ((&p, &a), &b) in pm.iter().zip(a).zip(b) {
                let o = p & !a;
                out |= o;
                hit |= o & b;
            }
            if hit != 0 {
                continue;
            }
            match self.ivf.check(k, pc) {
                Check::Blocked => continue,
                Check::Covers => return Some((k, out == 0)),
                Check::Candidate => return Some((k, false)),
            }
        }
        None
    }

    /// The first rule from `from` on that covers the positive with slot mask `pm` (`true`), or
    /// whose blocked slots it avoids (`false`: a candidate worth a closer look). A rule's
    /// blocked slots are disallowed ones, so a rule covering the positive is one of those.
    /// Dead rules have every slot blocked, so they are never returned (unless the positive has
    /// no slot at all, when every rule covers it). `chunk` caches the last chunk's
    /// [`BlockedIndex::free_of`] for this positive.
    #[inline]
    fn scan(&self, pm: &[u64], from: usize, chunk: &mut (usize, u64)) -> Option<(usize, bool)> {
        let n = self.rules.len();
        let sw = self.sw;
        let mut c = from / WORD_BITS;
        while c * WORD_BITS < n {
            let free = if chunk.0 == c {
                chunk.1
            } else {
                let f = self.blocked_index.free_of(c, n, &self.pos_slot_list);
                *chunk = (c, f);
                f
            };
            let m = if c == from / WORD_BITS {
                free & (!0u64 << (from % WORD_BITS))
            } else {
                free
            };
            if m != 0 {
                let k = c * WORD_BITS + m.trailing_zeros() as usize;
                let a = &self.allowed[k * sw..(k + 1) * sw];
                let covers = pm.iter().zip(a).all(|(&p, &a)| p & !a == 0);
                return Some((k, covers));
            }
            c += 1;
        }
        None
    }

    /// Relative test: the candidate's negatives `n` and positives `p`, stopping as soon as the
    /// rejection is proven (`Err(a negatives' word holding covered rows, if one was seen)`);
    /// else `Ok((n, p))`, exact, with `n <= limit(p)`. Over the distinct feature vectors when
    /// the rows collapse ([`Distinct`](crate::learn::distinct::Distinct)), else over the rows
    /// ([`share_count`]).
    fn count_relative(&self, lower: u32) -> std::result::Result<(u32, u32), usize> {
        if let Some(d) = self.ts.distinct() {
            // The same verdict and exact counts, once per distinct feature vector.
            return d.count_relative(&self.candidate, &self.acc, lower);
        }
        share_count::count_relative(self.ts, &self.candidate, &self.acc, lower)
    }

    /// Relative test without interval features: the exact `(negatives, positives)` that
    /// generalize(rule i, p) covers when the positive has exactly one slot outside the rule's
    /// allowed slots (`None` otherwise). That candidate relaxes one feature's constraint only
    /// (AV: drops it; OH: adds that slot), so it covers the rule's rows plus exactly the near
    /// misses of that slot: `covered + counts[s]` negatives and `pos_cov + pos_counts[s]`
    /// positives, the same numbers a count over the bitsets gives.
    #[inline]
    fn one_slot_counts(&self, i: usize, pm: &[u64]) -> Option<(u32, u32)> {
        if !self.keep_counts() {
            return None;
        }
        let sw = self.sw;
        let a = &self.allowed[i * sw..(i + 1) * sw];
        let (mut ones, mut slot) = (0u32, 0usize);
        for w in 0..sw {
            let o = pm[w] & !a[w];
            if o != 0 {
                ones += o.count_ones();
                slot = w * WORD_BITS + o.trailing_zeros() as usize;
            }
        }
        if ones != 1 {
            return None;
        }
        Some((
            self.covered[i] + self.counts[i][slot],
            self.pos_cov[i] + self.pos_counts[i][slot],
        ))
    }

    /// Whether generalize(rule i, p) was already counted and rejected since rule `i` last
    /// changed: without interval features the candidate is a function of the rule and of the
    /// positive's slots outside the rule's allowed slots (`pm & !allowed`; `patch_slot_term`
    /// reads nothing else of the positive), so an equal mask means the same candidate, the same
    /// counts, and the same rejection.
    #[inline]
    fn was_rejected(&mut self, i: usize, pm: &[u64]) -> bool {
        let sw = self.sw;
        self.rejected
            .contains(i, pm, &self.allowed[i * sw..(i + 1) * sw])
    }

    /// Whether generalize(rule i, p) was counted and rejected in this run, from any rule (the
    /// relative test without interval features; see [`rejected`]). Leaves the candidate's
    /// allowed slot words in `candidate_allowed`, the key a rejection records.
    #[inline]
    fn candidate_was_rejected(&mut self, i: usize, p: usize) -> bool {
        let sw = self.sw;
        self.candidate_allowed.clear();
        self.candidate_allowed
            .extend_from_slice(&self.allowed[i * sw..(i + 1) * sw]);
        generalize_into(&mut self.candidate_allowed, &self.ts.schema, self.ts.pos_codes(p));
        self.rejected.candidate_rejected(&self.candidate_allowed)
    }

    /// Records `pm & !allowed` of rule `i` as a rejected candidate (see `was_rejected`).
    fn remember_rejected(&mut self, i: usize, pm: &[u64]) {
        let sw = self.sw;
        self.rejected
            .insert(i, pm, &self.allowed[i * sw..(i + 1) * sw]);
    }

    /// `covered[i]` plus the near-miss negatives generalize(rule i, p) would bring in: a lower
    /// bound of the candidate's coverage (just `covered[i]` when the counts are not kept: then
    /// `cap` is 0, every near slot and interval code is blocked and the scan checked them).
    fn near_bound<const IV: bool>(&self, i: usize, p: usize, pm: &[u64]) -> u32 {
        if !self.keep_counts() {
            return self.covered[i];
        }
        let sw = self.sw;
        let a = &self.allowed[i * sw..(i + 1) * sw];
        let nm = &self.near[i * sw..(i + 1) * sw];
        let mut extra = 0u32;
        for w in 0..sw {
            let mut x = pm[w] & !a[w] & nm[w];
            while x != 0 {
                let s = w * 64 + x.trailing_zeros() as usize;
                extra += self.counts[i][s];
                x &= x - 1;
            }
        }
        if IV {
            extra += self.ivf.near_extra(i, self.ts.pos_intervals(p));
        }
        self.covered[i] + extra
    }

    /// The terms of generalize(rule i, p), patched from the rule's own terms.
    fn build_candidate<const IV: bool>(&mut self, i: usize, p: usize) {
        let schema = &self.ts.schema;
        let codes = self.ts.pos_codes(p);
        let rule = &self.rules[i];
        let terms = &self.terms[i];
        self.candidate.clear();
        let candidate = &mut self.candidate;
        // A single-slot term the positive satisfies (its slot bit is set in the positive's
        // mask) is kept as it is; only the others need the positive's code.
        let pm = self.ts.pos_slots(p);
        candidate.extend_singles_held(terms, pm);
        if self.has_one_hot {
            for (k, &s) in terms.singles().iter().enumerate() {
                if !bitset::get(pm, s as usize) {
                    patch_slot_term(candidate, schema, rule, codes, terms.single(k));
                }
            }
        }
        for q in 0..terms.n_spans() {
            patch_slot_term(candidate, schema, rule, codes, terms.span(q));
        }
        if IV {
            let zero = schema.zero_slot();
            for t in self.terms[i].intervals() {
                let f = t.feature as usize;
                let j = schema.interval_index(f).expect("an interval feature");
                let l = &schema.intervals()[j];
                let mut b = rule.bounds(schema, j);
                if !b.widen(l.n_values, l.null_seen, codes[f]) {
                    self.candidate.push_interval(*t);
                } else if !b.is_free(l.n_values) {
                    self.candidate.push_interval(IntervalTerm::new(l, zero, b));
                }
            }
        }
    }

    fn absorb<const IV: bool>(&mut self, i: usize, p: usize, covered: u32, pos: u32) {
        let sw = self.sw;
        let codes = self.ts.pos_codes(p);
        let schema = &self.ts.schema;
        generalize_into(&mut self.allowed[i * sw..(i + 1) * sw], schema, codes);
        self.rules[i].generalize(schema, codes);
        if IV {
            self.ivf.set_bounds(schema, i, &self.rules[i]);
        }
        self.buckets[i].push(p as u32);
        self.covered[i] = covered;
        self.rejected.rule_changed(i);
        if self.copies_on {
            self.copies.rule_changed(i);
        }
        self.rules[i].terms(schema, &mut self.terms[i]);
        self.sort_terms(i);
        self.set_single_slots(i);
        if !self.acc.is_absolute() {
            self.pos_cov[i] = pos;
        }
        if !IV && self.acc.is_absolute() {
            self.make_stale(i);
        } else {
            self.refresh_near_misses::<IV>(i);
        }
        for k in 0..WITNESSES {
            let n = self.wit_neg[i * WITNESSES + k];
            if n != NONE {
                self.set_witness::<IV>(i, k, n);
            }
        }
    }

    /// [`absorb`](Self::absorb) of positive `p` by rule `i` under the absolute test, on a
    /// schema of AV features only, right after `candidate` was built for them and counted
    /// (`covered` negatives). The rule's new terms are the candidate's: AV generalization keeps
    /// the constraints `p` satisfies, which are the single-slot terms `build_candidate` kept,
    /// in their (rarest-first) order, so no terms are rebuilt nor sorted. A witness's mask
    /// holds the rule's slot of each feature the witness fails; the features the witness still
    /// fails are those still constrained, whose slots `p` holds, so its new mask is its old
    /// one ANDed with `p`'s slots (empty: the rule now covers it, it stops being a witness).
    fn absorb_av_candidate(&mut self, i: usize, p: usize, covered: u32) {
        let sw = self.sw;
        let ts = self.ts;
        let codes = ts.pos_codes(p);
        let pm = ts.pos_slots(p);
        generalize_into(&mut self.allowed[i * sw..(i + 1) * sw], &ts.schema, codes);
        self.rules[i].generalize(&ts.schema, codes);
        self.buckets[i].push(p as u32);
        self.covered[i] = covered;
        self.rejected.rule_changed(i);
        if self.copies_on {
            self.copies.rule_changed(i);
        }
        self.terms[i].copy_from(&self.candidate);
        // The kept single-slot terms are those `p` satisfies: the slots `p` holds.
        for (x, &y) in self.single_slots[i * sw..(i + 1) * sw].iter_mut().zip(pm) {
            *x &= y;
        }
        self.make_stale(i);
        for k in 0..WITNESSES {
            let j = i * WITNESSES + k;
            if self.wit_neg[j] == NONE {
                continue;
            }
            let mask = &mut self.wit_mask[j * sw..(j + 1) * sw];
            let mut need = 0;
            for (m, &x) in mask.iter_mut().zip(pm) {
                *m &= x;
                need += m.count_ones();
            }
            self.wit_need[j] = need;
            if need == 0 {
                self.wit_neg[j] = NONE;
            }
        }
    }

    /// Number of witnesses of rule `i` that generalize(rule i, p) covers: those whose mask
    /// meets none of the positive's slots flipped on the one-hot slots (see `set_witness`).
    #[inline]
    fn witness_hits<const IV: bool>(&self, i: usize, p: usize, pm: &[u64]) -> u32 {
        (0..WITNESSES)
            .filter(|&k| self.witness_covered::<IV>(i * WITNESSES + k, p, pm))
            .count() as u32
    }

    /// Whether witness slot `j` holds a negative that generalize(rule, p) covers: its mask
    /// meets none of the positive's slots flipped on the one-hot slots (see `set_witness`),
    /// and with `IV` its interval features are covered too.
    #[inline]
    fn witness_covered<const IV: bool>(&self, j: usize, p: usize, pm: &[u64]) -> bool {
        if self.wit_neg[j] == NONE {
            return false;
        }
        let sw = self.sw;
        let mask = &self.wit_mask[j * sw..(j + 1) * sw];
        let slots_pass = pm
            .iter()
            .zip(mask)
            .zip(&self.one_hot_slots)
            .all(|((&x, &m), &o)| (x ^ o) & m == 0);
        slots_pass && (!IV || self.ivf.witness_covers(j, self.ts.pos_intervals(p)))
    }

    /// Whether more than `room` witnesses of rule `i` are covered by generalize(rule i, p)
    /// (the test of [`witness_hits`](Self::witness_hits)): the newest witnesses first, since
    /// they were found by the latest rejections, stopping as soon as the answer is known.
    #[inline]
    fn witnesses_exceed<const IV: bool>(&self, i: usize, p: usize, pm: &[u64], room: u32) -> bool {
        let newest = self.wit_next[i] as usize + WITNESSES - 1;
        let mut hits = 0;
        for d in 0..WITNESSES {
            let j = i * WITNESSES + (newest - d) % WITNESSES;
            if self.witness_covered::<IV>(j, p, pm) {
                hits += 1;
                if hits > room {
                    return true;
                }
            }
        }
        false
    }

    /// Records as a witness of rule `i` a negative covered by the candidate in word `w` that
    /// rule `i` itself does not cover.
    fn add_witness<const IV: bool>(&mut self, i: usize, w: usize) {
        let mut bits = self.ts.negatives.covered_word(&self.candidate, w);
        while bits != 0 {
            let n = (w * WORD_BITS + bits.trailing_zeros() as usize) as u32;
            bits &= bits - 1;
            let known = &self.wit_neg[i * WITNESSES..(i + 1) * WITNESSES];
            if known.contains(&n) {
                return;
            }
            let k = self.wit_next[i] as usize;
            self.set_witness::<IV>(i, k, n);
            if self.wit_neg[i * WITNESSES + k] != NONE {
                self.wit_next[i] = ((k + 1) % WITNESSES) as u8;
                return;
            }
        }
    }

    /// Witness `k` of rule `i` := negative `n` with its mask relative to the rule now (empty if
    /// the rule covers `n`). Generalizing the rule to a positive covers `n` iff it relaxes
    /// every feature `n` fails: AV, the rule allows one slot of such a feature and the positive
    /// must not hold it (the mask has that slot, which the positive's mask must miss); OH, the
    /// positive must hold `n`'s own slot (the mask has it, which the positive's mask, flipped
    /// on the one-hot slots, must miss); an interval feature: the range of codes that widens
    /// over `n`'s. So the slot part is one XOR and AND per word, no count.
    fn set_witness<const IV: bool>(&mut self, i: usize, k: usize, n: u32) {
        let sw = self.sw;
        let j = i * WITNESSES + k;
        let terms = &self.terms[i];
        let need = if !self.has_one_hot && terms.n_spans() == 0 {
            // AV slots only: a constrained feature allows one slot, its single-slot term, and
            // a free one never fails; so `n` fails exactly the terms whose slot it does not
            // hold (it holds one slot per feature), and each such slot is that feature's part
            // of the mask (`fm & a` in `slot_witness_mask`): the mask is the rule's term slots
            // that `n` lacks, a few words, no per-slot feature lookup.
            let nm = self.ts.neg_slots(n as usize);
            let mask = &mut self.wit_mask[j * sw..(j + 1) * sw];
            let singles = &self.single_slots[i * sw..(i + 1) * sw];
            let mut need = 0;
            for ((m, &x), &t) in mask.iter_mut().zip(nm).zip(singles) {
                *m = t & !x;
                need += m.count_ones();
            }
            need
        } else {
            self.slot_witness_mask(i, j, n)
        };
        let iv_fails = IV && self.ivf.set_witness(self.ts, i, j, n as usize);
        self.wit_need[j] = need;
        self.wit_neg[j] = if need == 0 && !iv_fails { NONE } else { n };
    }

    /// The slot part of [`set_witness`](Self::set_witness) for any slot kind: witness slot
    /// `j` of rule `i` gets negative `n`'s mask; returns the number of features `n` fails.
    fn slot_witness_mask(&mut self, i: usize, j: usize, n: u32) -> u32 {
        let sw = self.sw;
        let schema = &self.ts.schema;
        let a = &self.allowed[i * sw..(i + 1) * sw];
        let nm = self.ts.neg_slots(n as usize);
        let mask = &mut self.wit_mask[j * sw..(j + 1) * sw];
        mask.iter_mut().for_each(|x| *x = 0);
        let mut need = 0;
        for w in 0..sw {
            let mut out = nm[w] & !a[w];
            while out != 0 {
                let slot = w * WORD_BITS + out.trailing_zeros() as usize;
                out &= out - 1;
                need += 1;
                let f = schema.feature_of(slot);
                match schema.kind(f) {
                    ConstraintKind::AttributeValue => {
                        let fm = &self.feature_masks[f * sw..(f + 1) * sw];
                        for ((m, &fm), &a) in mask.iter_mut().zip(fm).zip(a) {
                            *m |= fm & a;
                        }
                    }
                    ConstraintKind::OneHot => bitset::set(mask, slot),
                    ConstraintKind::Interval => {} // never: interval features own no slot
                }
            }
        }
        need
    }

    fn add_rule<const IV: bool>(&mut self, p: usize) {
        let schema = &self.ts.schema;
        let row = self.ts.pos_codes(p);
        let rule = match self.spare_rules.pop() {
            Some(mut r) => {
                r.assign_row(schema, row);
                r
            }
            None => Rule::from_row(schema, row),
        };
        let mut terms = self
            .spare_terms
            .pop()
            .unwrap_or_else(|| Terms::with_capacity(schema.n_features()));
        rule.terms(schema, &mut terms);
        let mut bucket = self.spare_buckets.pop().unwrap_or_default();
        bucket.clear();
        bucket.push(p as u32);
        let mut counts = self.spare_counts.pop().unwrap_or_default();
        counts.clear();
        let cap = self.cap;
        self.sort_singles(&mut terms);
        // Absolute test without interval features: the row's identical and near-miss negatives
        // from the parts index, when it pays (else, and for a dead rule, the bitsets).
        let from_parts = if !IV && self.acc.is_absolute() {
            self.row_near_misses(&rule, p).filter(|&identical| identical <= cap)
        } else {
            None
        };
        let covered = match from_parts {
            Some(identical) => identical,
            None => self.ts.negatives.count_covered(&terms, cap),
        };
        if !self.acc.is_absolute() {
            self.pos_cov.push(self.ts.positives.count_covered(&terms, u32::MAX));
        }
        self.allowed.extend_from_slice(&rule.allowed()[..self.sw]);
        self.blocked.extend(std::iter::repeat_n(0, self.sw));
        self.near.extend(std::iter::repeat_n(0, self.sw));
        self.counts.push(counts);
        let mut pos_counts = self.spare_counts.pop().unwrap_or_default();
        pos_counts.clear();
        self.pos_counts.push(pos_counts);
        self.witness.push(0);
        self.wit_neg.extend([NONE; WITNESSES]);
        self.wit_need.extend([0; WITNESSES]);
        self.wit_mask
            .extend(std::iter::repeat_n(0, WITNESSES * self.sw));
        self.wit_next.push(0);
        self.rejected.push_rule();
        if self.copies_on {
            self.copies.rule_changed(self.rules.len());
        }
        if IV {
            self.ivf.push_rule(schema, &rule, covered > cap, WITNESSES);
        }
        self.rules.push(rule);
        self.terms.push(terms);
        self.single_slots.extend(std::iter::repeat_n(0, self.sw));
        self.set_single_slots(self.rules.len() - 1);
        self.buckets.push(bucket);
        self.covered.push(covered);
        self.stale.push(false);
        let i = self.rules.len() - 1;
        if covered > cap {
            let sw = self.sw;
            self.allowed[i * sw..(i + 1) * sw]
                .iter_mut()
                .for_each(|x| *x = 0);
            self.blocked[i * sw..(i + 1) * sw]
                .iter_mut()
                .for_each(|x| *x = !0);
            if !IV {
                self.blocked_index
                    .set_rule(i, &self.blocked[i * sw..(i + 1) * sw]);
            }
        } else if from_parts.is_some() {
            self.set_near_misses::<IV>(i);
        } else {
            self.refresh_near_misses::<IV>(i);
        }
    }

    /// For `rule`, the whole row of positive `p`, under an absolute test without interval
    /// features: the number of negatives identical to it, with `slot_counts` set as
    /// [`count_near_misses`](Self::count_near_misses) sets it for negatives (exact counts of
    /// the near misses: negatives differing from the row in exactly one feature), both from
    /// the negatives' parts index ([`RowParts`](crate::learn::row_parts::RowParts)), which finds
    /// every negative within one feature of a row. `None` without the index.
    fn row_near_misses(&mut self, rule: &Rule, p: usize) -> Option<u32> {
        let ts = self.ts;
        let parts = ts.neg_parts()?;
        let schema = &ts.schema;
        let slot_counts = &mut self.slot_counts;
        let feature_counts = &mut self.feature_counts;
        slot_counts.iter_mut().for_each(|c| *c = 0);
        feature_counts.iter_mut().for_each(|c| *c = 0);
        let mut identical = 0u32;
        parts.for_each_within_one(ts.pos_codes(p), |near| match near {
            None => identical += 1,
            Some((f, code)) => match schema.kind(f) {
                ConstraintKind::AttributeValue => feature_counts[f] += 1,
                ConstraintKind::OneHot => slot_counts[schema.slot(f, code)] += 1,
                ConstraintKind::Interval => {} // never: no interval feature here
            },
        });
        // AV: allowing any other value of f drops the constraint, admitting all its near misses.
        for f in 0..schema.n_features() {
            let c = feature_counts[f];
            if c > 0 {
                for s in schema.slots(f) {
                    if !rule.allows(s) {
                        slot_counts[s] = c;
                    }
                }
            }
        }
        Some(identical)
    }

    /// After an absorb under the absolute test without interval features: rule `i`'s
    /// near-miss state becomes stale
    /// (see the module docs), its blocked and near slots cut to those it still disallows.
    fn make_stale(&mut self, i: usize) {
        let sw = self.sw;
        let allowed = &self.allowed[i * sw..(i + 1) * sw];
        let blocked = &mut self.blocked[i * sw..(i + 1) * sw];
        let near = &mut self.near[i * sw..(i + 1) * sw];
        // The blocked slots the rule now allows, unblocked in the index (usually a few).
        let cleared = &mut self.slot_scratch;
        cleared.clear();
        for ((b, n), &a) in blocked.iter_mut().zip(near).zip(allowed) {
            cleared.push(*b & a);
            *b &= !a;
            *n &= !a;
        }
        self.blocked_index.clear_slots(i, &self.slot_scratch);
        self.stale[i] = true;
    }

    /// `single_slots` of rule `i` from its terms.
    fn set_single_slots(&mut self, i: usize) {
        let sw = self.sw;
        let mask = &mut self.single_slots[i * sw..(i + 1) * sw];
        mask.iter_mut().for_each(|x| *x = 0);
        for &s in self.terms[i].singles() {
            bitset::set(mask, s as usize);
        }
    }

    /// Rule `i`'s single-slot terms, rarest slot first (a candidate's counting then reaches an
    /// empty word sooner, and a near-miss count a word where every row fails two terms).
    fn sort_terms(&mut self, i: usize) {
        let mut terms = std::mem::take(&mut self.terms[i]);
        self.sort_singles(&mut terms);
        self.terms[i] = terms;
    }

    /// Sorts single-slot terms rarest slot first: among the negatives under the absolute test
    /// (only negatives are counted), among all training rows under a relative one. The order
    /// changes no count, only how soon a word's AND reaches zero.
    fn sort_singles(&self, terms: &mut Terms) {
        let ts = self.ts;
        if self.acc.is_absolute() {
            terms.sort_singles_by_key(|s| ts.neg_slot_rows(s));
        } else {
            terms.sort_singles_by_key(|s| ts.slot_rows(s));
        }
    }

    /// Whether rules keep their near-miss counts (needed by `near_bound`): only a cap above 0
    /// lets a generalization bring in near misses.
    #[inline]
    fn keep_counts(&self) -> bool {
        self.cap > 0
    }

    /// Recomputes `blocked`, `near` and `counts` of rule `i` from the negatives' bitsets (and
    /// with `IV` its interval thresholds; with a relative test and no interval features also
    /// `pos_counts` from the positives' bitsets).
    fn refresh_near_misses<const IV: bool>(&mut self, i: usize) {
        self.count_near_misses::<IV>(i, false);
        self.set_near_misses::<IV>(i);
        if !IV && !self.acc.is_absolute() && self.keep_counts() {
            self.count_near_misses::<false>(i, true);
            self.pos_counts[i].clear();
            self.pos_counts[i].extend_from_slice(&self.slot_counts);
        }
    }

    /// `blocked`, `near` and `counts` of rule `i` (and with `IV` its interval thresholds) from
    /// the near-miss counts of its negatives in `slot_counts`.
    fn set_near_misses<const IV: bool>(&mut self, i: usize) {
        let sw = self.sw;
        let blocked = &mut self.blocked[i * sw..(i + 1) * sw];
        let near = &mut self.near[i * sw..(i + 1) * sw];
        blocked.iter_mut().for_each(|x| *x = 0);
        near.iter_mut().for_each(|x| *x = 0);
        let covered = self.covered[i];
        for (s, &c) in self.slot_counts.iter().enumerate() {
            if c > 0 {
                bitset::set(near, s);
                if covered + c > self.cap {
                    bitset::set(blocked, s);
                }
            }
        }
        if !IV {
            self.blocked_index
                .set_rule(i, &self.blocked[i * sw..(i + 1) * sw]);
        }
        if self.keep_counts() {
            self.counts[i].clear();
            self.counts[i].extend_from_slice(&self.slot_counts);
        }
        if IV {
            self.ivf.finish_refresh(i, covered, self.cap);
        }
    }

    /// `slot_counts[s]` := the near misses of rule `i` among the negatives (or, with
    /// `positives`, the positives) that allowing slot `s` would bring in: rows satisfying every
    /// term of the rule but one, that one being `s`'s feature (AV: any disallowed slot of the
    /// feature counts all of them, since allowing it drops the constraint; OH: by the row's
    /// slot). With `IV` (negatives only) the interval terms' near misses go to the filter.
    fn count_near_misses<const IV: bool>(&mut self, i: usize, positives: bool) {
        let ts = self.ts;
        let schema = &ts.schema;
        let terms = &self.terms[i];
        let k = terms.len();
        let singles = terms.singles();
        let ns = singles.len();
        let ivs = terms.intervals();
        self.slot_counts.iter_mut().for_each(|c| *c = 0);
        self.feature_counts.iter_mut().for_each(|c| *c = 0);
        if !IV && !self.acc.is_absolute() && ns == k && !self.has_one_hot {
            // Relative test, AV terms only, rows that collapse: the same near misses counted
            // once per distinct vector, weighted by its rows of the label.
            if let Some(d) = ts.distinct() {
                self.term_counts.clear();
                self.term_counts.resize(ns, 0);
                d.near_misses(singles, positives, &mut self.term_counts);
                for (j, &c) in self.term_counts.iter().enumerate() {
                    self.feature_counts[terms.get(j).feature] += c;
                }
                self.av_feature_counts_to_slots(i);
                return;
            }
        }
        self.word_terms.resize(if IV { k + ivs.len() } else { k }, 0);
        self.term_disallowed.clear();
        for j in 0..k {
            let f = terms.get(j).feature;
            let n = if schema.kind(f) == ConstraintKind::OneHot {
                (0..schema.domain_size(f))
                    .filter(|&c| !self.rules[i].allows(schema.slot(f, c)))
                    .count()
            } else {
                0
            };
            self.term_disallowed.push(n as u32);
        }
        let negs = if positives { &ts.positives } else { &ts.negatives };
        // The first 16 (or 8) single-slot terms' slots, read and checked against the index once
        // (most words saturate within them; a rule with fewer than 8 takes the loop alone).
        let n_index_slots = ts.schema.n_index_slots();
        let head16: Option<[usize; 16]> = (ns >= 16).then(|| head_slots(singles, n_index_slots));
        let head8: Option<[usize; 8]> = (8..16).contains(&ns).then(|| head_slots(singles, n_index_slots));
        for w in 0..negs.n_words() {
            let valid = negs.valid(w);
            let slots = &negs.word(w)[..n_index_slots];
            // Bit-sliced count of failed terms per negative: `one` = at least one, `two` = two.
            // A word where every negative fails two terms holds no near miss: stop early.
            // Most words saturate within the first terms, so a single-slot term's word is not
            // kept here: the few words with a near miss read it again below.
            let (mut one, mut two) = (0u64, 0u64);
            let mut saturated = false;
            let mut rest = singles;
            if let Some(h) = &head16 {
                saturated = saturates(slots, h, valid, &mut one, &mut two);
                rest = &singles[16..];
            } else if let Some(h) = &head8 {
                saturated = saturates(slots, h, valid, &mut one, &mut two);
                rest = &singles[8..];
            }
            for chunk in rest.chunks(4) {
                if saturated {
                    break;
                }
                for &slot in chunk {
                    let fail = !slots[slot as usize] & valid;
                    two |= one & fail;
                    one |= fail;
                }
                if two == valid {
                    saturated = true;
                    break;
                }
            }
            if saturated {
                continue;
            }
            for j in ns..k {
                let sat = terms.span(j - ns).eval(slots);
                self.word_terms[j] = sat;
                let fail = !sat & valid;
                two |= one & fail;
                one |= fail;
            }
            if IV {
                for (q, t) in ivs.iter().enumerate() {
                    let sat = t.eval(slots);
                    self.word_terms[k + q] = sat;
                    let fail = !sat & valid;
                    two |= one & fail;
                    one |= fail;
                }
            }
            if two == valid {
                continue;
            }
            let exactly_one = one & !two;
            if exactly_one == 0 {
                continue;
            }
            if !IV && !positives && exactly_one.count_ones() as usize * 4 <= k {
                // Few near misses against many terms: find each one's failed term from its own
                // slots instead (it fails exactly one slot term, so it holds exactly one slot
                // the rule disallows: the term's feature, and on OH its slot).
                let sw = self.sw;
                let allowed = &self.allowed[i * sw..(i + 1) * sw];
                let mut x = exactly_one;
                while x != 0 {
                    let n = w * WORD_BITS + x.trailing_zeros() as usize;
                    x &= x - 1;
                    let nm = ts.neg_slots(n);
                    let (q, out) = nm
                        .iter()
                        .zip(allowed)
                        .map(|(&m, &a)| m & !a)
                        .enumerate()
                        .find(|&(_, o)| o != 0)
                        .expect("a near miss fails one term");
                    let slot = q * WORD_BITS + out.trailing_zeros() as usize;
                    let f = schema.feature_of(slot);
                    match schema.kind(f) {
                        ConstraintKind::AttributeValue => self.feature_counts[f] += 1,
                        ConstraintKind::OneHot => self.slot_counts[slot] += 1,
                        ConstraintKind::Interval => {} // never: interval features own no slot
                    }
                }
                continue;
            }
            for j in 0..k {
                let sat = if j < ns { slots[singles[j] as usize] } else { self.word_terms[j] };
                let near = exactly_one & !sat;
                if near == 0 {
                    continue;
                }
                let f = terms.get(j).feature;
                match schema.kind(f) {
                    ConstraintKind::AttributeValue => {
                        self.feature_counts[f] += near.count_ones();
                    }
                    ConstraintKind::OneHot => {
                        // Each near miss holds one disallowed slot of f: count them by slot,
                        // visiting the near misses or the disallowed slots, whichever are fewer
                        // (the slot loop alone made OH runs ~20x slower than AV on Adult).
                        if !positives && near.count_ones() < self.term_disallowed[j] {
                            let codes = ts.neg_codes(f);
                            let mut x = near;
                            while x != 0 {
                                let n = w * WORD_BITS + x.trailing_zeros() as usize;
                                self.slot_counts[schema.slot(f, codes[n])] += 1;
                                x &= x - 1;
                            }
                        } else {
                            for c in 0..schema.domain_size(f) {
                                let s = schema.slot(f, c);
                                if !self.rules[i].allows(s) {
                                    self.slot_counts[s] += (near & slots[s]).count_ones();
                                }
                            }
                        }
                    }
                    ConstraintKind::Interval => {} // never: interval features own no slot
                }
            }
            if IV {
                for (q, t) in ivs.iter().enumerate() {
                    let near = exactly_one & !self.word_terms[k + q];
                    if near != 0 {
                        let j = schema.interval_index(t.feature as usize).expect("interval");
                        self.ivf.collect(ts, j, near, w);
                    }
                }
            }
        }
        self.av_feature_counts_to_slots(i);
    }

    /// AV: allowing any other value of a feature `f` drops rule `i`'s constraint on it,
    /// admitting all its near misses (`feature_counts[f]`): each slot `i` disallows gets them.
    fn av_feature_counts_to_slots(&mut self, i: usize) {
        let schema = &self.ts.schema;
        let rule = &self.rules[i];
        for f in 0..schema.n_features() {
            let c = self.feature_counts[f];
            if c > 0 {
                for s in schema.slots(f) {
                    if !rule.allows(s) {
                        self.slot_counts[s] = c;
                    }
                }
            }
        }
    }
}

/// The first `H` slots of `singles` (at least `H`), each checked to be below `n_slots`.
fn head_slots<const H: usize>(singles: &[u32], n_slots: usize) -> [usize; H] {
    let h: [usize; H] = std::array::from_fn(|j| singles[j] as usize);
    assert!(h.iter().all(|&s| s < n_slots), "a term's slot outside the index");
    h
}

/// [`RunState::count_near_misses`]' bit-sliced count of failed terms over the single-slot
/// terms `h`, four at a time, in one word (`slots`: that word of every index slot): whether
/// every valid row then fails two terms (the word holds no near miss).
#[inline(always)]
fn saturates<const H: usize>(slots: &[u64], h: &[usize; H], valid: u64, one: &mut u64, two: &mut u64) -> bool {
    for four in h.chunks_exact(4) {
        for &slot in four {
            let fail = !slots[slot] & valid;
            *two |= *one & fail;
            *one |= fail;
        }
        if *two == valid {
            return true;
        }
    }
    false
}

/// Per feature of `schema`, the slot mask of its slots (`slot_words` words each; empty for an
/// interval feature).
fn feature_masks(schema: &crate::data::schema::Schema) -> Vec<u64> {
    let sw = schema.slot_words();
    let mut masks = vec![0u64; schema.n_features() * sw];
    for f in 0..schema.n_features() {
        let r = schema.slots(f);
        bitset::set_range(&mut masks[f * sw..(f + 1) * sw], r.start, r.end);
    }
    masks
}

/// The slot mask of every slot of the one-hot features of `schema`.
fn one_hot_slots(schema: &crate::data::schema::Schema) -> Vec<u64> {
    let mut mask = vec![0u64; schema.slot_words()];
    for f in 0..schema.n_features() {
        if schema.kind(f) == ConstraintKind::OneHot {
            let r = schema.slots(f);
            bitset::set_range(&mut mask, r.start, r.end);
        }
    }
    mask
}

/// Appends to `candidate` the slot term `t` of `rule` generalized to the row `codes`: kept when
/// the row satisfies it, dropped (AV) or widened by the row's slot (OH) otherwise.
#[inline(always)]
fn patch_slot_term(
    candidate: &mut Terms,
    schema: &crate::data::schema::Schema,
    rule: &Rule,
    codes: &[u32],
    t: TermRef,
) {
    let f = t.feature;
    let ps = schema.slot(f, codes[f]) as u32;
    if rule.allows(ps as usize) {
        candidate.push_term(t);
        return;
    }
    match schema.kind(f) {
        ConstraintKind::AttributeValue => {} // the constraint is dropped
        ConstraintKind::OneHot => candidate.push_term_with(t, ps),
        ConstraintKind::Interval => {} // never: interval features own no slot
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::data::columns::Columns;
    use crate::data::schema::{ConstraintKind, Schema};

    /// Algorithm 1 the obvious way: generalize, then count the negatives and positives it
    /// covers on every training row and test them; under a share, a positive no rule takes
    /// makes a rule only if that rule passes the test.
    pub(crate) fn naive_find_rs(
        schema: &Schema,
        rows: &[Vec<u32>],
        labels: &[bool],
        order: &[usize],
        acc: Acceptance,
    ) -> (Vec<Rule>, Vec<Vec<usize>>) {
        let count = |g: &Rule, label: bool| {
            rows.iter()
                .zip(labels)
                .filter(|(r, &y)| y == label && g.covers_row(schema, r))
                .count() as u32
        };
        let mut rules: Vec<Rule> = Vec::new();
        let mut buckets: Vec<Vec<usize>> = Vec::new();
        'outer: for &p in order {
            for (i, r) in rules.iter_mut().enumerate() {
                let mut g = r.clone();
                g.generalize(schema, &rows[p]);
                if acc.accepts(count(&g, false), count(&g, true)) {
                    *r = g;
                    buckets[i].push(p);
                    continue 'outer;
                }
            }
            // Under a share a rule failing the test is never made (docs/semantics.md §9.1).
            let own = Rule::from_row(schema, &rows[p]);
            if acc.is_absolute() || acc.accepts(count(&own, false), count(&own, true)) {
                rules.push(own);
                buckets.push(vec![p]);
            }
        }
        (rules, buckets)
    }

    /// Deterministic pseudo-random data for tests (xorshift; no dependency on `rand` here).
    pub(crate) fn random_data(seed: u64, n: usize, domains: &[u32]) -> (Vec<Vec<u32>>, Vec<bool>) {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let rows: Vec<Vec<u32>> = (0..n)
            .map(|_| {
                domains
                    .iter()
                    .map(|&d| (next() % d as u64) as u32)
                    .collect()
            })
            .collect();
        let labels = (0..n).map(|_| next() % 3 != 0).collect();
        (rows, labels)
    }

    pub(crate) fn columns_of(rows: &[Vec<u32>], m: usize) -> Vec<Vec<u32>> {
        (0..m)
            .map(|f| rows.iter().map(|r| r[f]).collect())
            .collect()
    }

    /// The schema and training set of code rows (None when there is no positive).
    pub(crate) fn training_set(
        rows: &[Vec<u32>],
        labels: &[bool],
        domains: &[u32],
        kind: ConstraintKind,
    ) -> Option<(Schema, TrainingSet)> {
        let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
        let cols = columns_of(rows, domains.len());
        let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let ts = TrainingSet::new(schema.clone(), &data, labels).ok()?;
        Some((schema, ts))
    }

    /// (tau, epsilon) pairs the fast run is checked against the naive one with: the paper's
    /// absolute tolerances, then shares (docs/semantics.md §9.1).
    pub(crate) const ACCEPTANCES: [(u32, f64); 7] =
        [(0, 0.0), (1, 0.0), (2, 0.0), (0, 0.1), (0, 0.25), (1, 0.2), (0, 0.5)];

    #[test]
    fn matches_naive_algorithm_1() {
        check_against_naive(&[2, 3, 4, 2, 3], 60);
        // A feature with more than 64 slots and masks spanning several words.
        check_against_naive(&[70, 3, 2, 130], 25);
    }

    /// Few distinct feature vectors among many rows: the relative test then counts once per
    /// distinct vector (distinct.rs), which must give the same run.
    #[test]
    fn matches_naive_algorithm_1_on_repeated_rows() {
        let domains = [2u32, 3, 2, 2];
        check_against_naive(&domains, 60);
        let collapsed = (0..60u64)
            .filter(|&seed| {
                let (rows, labels) = random_data(seed, 20 + (seed as usize % 50), &domains);
                training_set(&rows, &labels, &domains, ConstraintKind::AttributeValue)
                    .is_some_and(|(_, ts)| ts.distinct().is_some())
            })
            .count();
        assert!(collapsed > 40, "only {collapsed} training sets collapsed");
    }

    /// The parts index (row_parts.rs) gives a new rule the same near-miss state as a scan of
    /// the negatives' bitsets: every rule's blocked and near slots, near-miss counts and
    /// covered negatives agree after each run (the filters' inputs, not only the rules).
    #[test]
    fn new_rules_near_misses_from_the_parts_index_equal_the_scan() {
        let mut compared = 0;
        for domains in [&[2u32, 3, 4, 2, 3][..], &[70, 3, 2, 130], &[2, 2, 2, 2, 2, 2, 2]] {
            for seed in 0..40u64 {
                for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                    for tau in 0..3 {
                        let acc = Acceptance::absolute(tau);
                        let (rows, labels) = random_data(seed, 20 + (seed as usize % 80), domains);
                        let Some((_, ts)) = training_set(&rows, &labels, domains, kind) else {
                            continue;
                        };
                        let (_, forced) = training_set(&rows, &labels, domains, kind).unwrap();
                        assert!(forced.force_neg_parts() || ts.neg_rows.is_empty());
                        let order: Vec<u32> = (0..ts.n_positives() as u32).collect();
                        let (mut a, mut b) = (Runner::new(&ts, acc), Runner::new(&forced, acc));
                        a.run(&order);
                        b.run(&order);
                        let (a, b) = (&a.0, &b.0);
                        let ctx = format!("seed {seed} kind {kind:?} tau {tau} domains {domains:?}");
                        assert_eq!(a.rules, b.rules, "{ctx}");
                        assert_eq!(a.covered, b.covered, "{ctx}");
                        assert_eq!(a.blocked, b.blocked, "{ctx}");
                        assert_eq!(a.near, b.near, "{ctx}");
                        assert_eq!(a.counts, b.counts, "{ctx}");
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 500, "only {compared} runs compared");
    }

    /// A stale rule's near-miss state (module docs) bounds the fresh one from below: its
    /// blocked and near slots are subsets of the fresh ones and its counts at most the fresh
    /// counts on every slot it disallows; a rule that is not stale has exactly the fresh state.
    /// Checked on every live rule after runs at tau 0, 1 and 2 (AV and OH, the absolute test).
    #[test]
    fn stale_near_miss_state_bounds_the_fresh_one() {
        let (mut stale, mut fresh) = (0, 0);
        for domains in [&[2u32, 3, 4, 2, 3][..], &[3, 3, 3, 3, 3, 3, 3], &[70, 3, 2, 130]] {
            for seed in 0..40u64 {
                for (tau, kind) in (0..3).flat_map(|t| [(t, ConstraintKind::AttributeValue), (t, ConstraintKind::OneHot)]) {
                    let (rows, labels) = random_data(seed, 40 + (seed as usize % 80), domains);
                    let Some((_, ts)) = training_set(&rows, &labels, domains, kind) else {
                        continue;
                    };
                    let order: Vec<u32> = (0..ts.n_positives() as u32).collect();
                    let mut runner = Runner::new(&ts, Acceptance::absolute(tau));
                    runner.run(&order);
                    let st = &mut runner.0;
                    let sw = st.sw;
                    for i in 0..st.rules.len() {
                        if st.covered[i] > st.cap {
                            continue; // dead: every slot blocked, never refreshed
                        }
                        let was_stale = st.stale[i];
                        let words = |v: &Vec<u64>| v[i * sw..(i + 1) * sw].to_vec();
                        let (blocked, near, counts) = (words(&st.blocked), words(&st.near), st.counts[i].clone());
                        st.refresh_near_misses::<false>(i);
                        let (fb, fnear, fc) = (words(&st.blocked), words(&st.near), &st.counts[i]);
                        let ctx = format!("seed {seed} tau {tau} {kind:?} domains {domains:?} rule {i}");
                        if was_stale {
                            stale += 1;
                            assert!(blocked.iter().zip(&fb).all(|(&b, &f)| b & !f == 0), "{ctx}");
                            assert!(near.iter().zip(&fnear).all(|(&b, &f)| b & !f == 0), "{ctx}");
                            assert_eq!(counts.len(), fc.len(), "{ctx}");
                            let rule = &st.rules[i];
                            let disallowed = (0..counts.len()).filter(|&s| !rule.allows(s));
                            assert!(disallowed.into_iter().all(|s| counts[s] <= fc[s]), "{ctx}");
                        } else {
                            fresh += 1;
                            assert_eq!((blocked, near, &counts), (fb, fnear, fc), "{ctx}");
                        }
                    }
                }
            }
        }
        assert!(stale > 200 && fresh > 200, "too few rules of a kind: {stale} stale, {fresh} fresh");
    }

    /// A refresh's near-miss counts equal a count negative by negative: for every live rule
    /// after runs at tau 1 and 2 (where the counts are kept), AV and OH, on rules of few and
    /// of many features (so both ways of finding a near miss's term are taken), each negative
    /// failing exactly one feature adds 1 to every slot of it the rule disallows (AV) or to its
    /// own slot (OH).
    #[test]
    fn refreshed_near_miss_counts_equal_a_count_by_negative() {
        let mut compared = 0;
        let wide = [2u32; 24];
        for domains in [&[2u32, 3, 4, 2, 3][..], &[70, 3, 2, 130], &wide] {
            for seed in 0..15u64 {
                for (tau, kind) in (1..3).flat_map(|t| [(t, ConstraintKind::AttributeValue), (t, ConstraintKind::OneHot)]) {
                    let (rows, labels) = random_data(seed, 150 + (seed as usize % 80), domains);
                    let Some((schema, ts)) = training_set(&rows, &labels, domains, kind) else {
                        continue;
                    };
                    let order: Vec<u32> = (0..ts.n_positives() as u32).collect();
                    let mut runner = Runner::new(&ts, Acceptance::absolute(tau));
                    runner.run(&order);
                    let st = &mut runner.0;
                    for i in 0..st.rules.len() {
                        if st.covered[i] > st.cap {
                            continue;
                        }
                        st.refresh_near_misses::<false>(i);
                        let rule = &st.rules[i];
                        let mut want = vec![0u32; schema.n_slots()];
                        for n in 0..ts.neg_rows.len() {
                            let failed: Vec<usize> = (0..schema.n_features())
                                .filter(|&f| !rule.allows(schema.slot(f, ts.neg_codes(f)[n])))
                                .collect();
                            if let [f] = failed[..] {
                                match kind {
                                    ConstraintKind::OneHot => want[schema.slot(f, ts.neg_codes(f)[n])] += 1,
                                    _ => schema.slots(f).filter(|&s| !rule.allows(s)).for_each(|s| want[s] += 1),
                                }
                            }
                        }
                        assert_eq!(st.counts[i], want, "seed {seed} tau {tau} {kind:?} domains {domains:?} rule {i}");
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 500, "only {compared} rules compared");
    }

    /// The AV witness mask (one bit per term the negative fails, read off the rule's terms)
    /// equals the general one (per failed slot, the feature's allowed slots): every live rule
    /// of AV runs at tau 0..2, against every negative.
    #[test]
    fn av_witness_masks_equal_the_general_ones() {
        let (mut compared, mut failing) = (0, 0);
        for domains in [&[2u32, 3, 4, 2, 3][..], &[70, 3, 2, 130]] {
            for seed in 0..20u64 {
                for tau in 0..3 {
                    let (rows, labels) = random_data(seed, 40 + (seed as usize % 60), domains);
                    let Some((_, ts)) = training_set(&rows, &labels, domains, ConstraintKind::AttributeValue) else {
                        continue;
                    };
                    let order: Vec<u32> = (0..ts.n_positives() as u32).collect();
                    let mut runner = Runner::new(&ts, Acceptance::absolute(tau));
                    runner.run(&order);
                    let st = &mut runner.0;
                    let sw = st.sw;
                    for i in 0..st.rules.len() {
                        if st.covered[i] > st.cap {
                            continue;
                        }
                        assert_eq!(st.terms[i].n_spans(), 0);
                        let j = i * WITNESSES;
                        for n in 0..ts.neg_rows.len() as u32 {
                            st.set_witness::<false>(i, 0, n);
                            let fast = (st.wit_mask[j * sw..(j + 1) * sw].to_vec(), st.wit_need[j]);
                            let need = st.slot_witness_mask(i, j, n);
                            let general = (st.wit_mask[j * sw..(j + 1) * sw].to_vec(), need);
                            assert_eq!(fast, general, "seed {seed} tau {tau} rule {i} negative {n}");
                            compared += 1;
                            failing += usize::from(need > 0);
                        }
                    }
                }
            }
        }
        assert!(compared > 2000 && failing > 1000, "{compared} compared, {failing} failing");
    }

    fn check_against_naive(domains: &[u32], seeds: u64) {
        for seed in 0..seeds {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                for (tau, eps) in ACCEPTANCES {
                    let acc = Acceptance::new(tau, eps).unwrap();
                    let (rows, labels) = random_data(seed, 20 + (seed as usize % 50), domains);
                    let Some((schema, ts)) = training_set(&rows, &labels, domains, kind) else {
                        continue;
                    };
                    let order: Vec<u32> = (0..ts.n_positives() as u32).rev().collect();
                    let fast = find_rs(&ts, &order, acc);
                    // The same run with the negatives' parts index, whether or not it pays
                    // on data this small (row_parts.rs).
                    let (_, forced) = training_set(&rows, &labels, domains, kind).unwrap();
                    if forced.force_neg_parts() {
                        let with_parts = find_rs(&forced, &order, acc);
                        assert_eq!(with_parts.rules, fast.rules, "parts index: seed {seed} kind {kind:?} {acc:?}");
                        assert_eq!(with_parts.buckets, fast.buckets);
                        assert_eq!(with_parts.neg_covered, fast.neg_covered);
                    }
                    let rows_order: Vec<usize> = order
                        .iter()
                        .map(|&i| ts.pos_rows[i as usize] as usize)
                        .collect();
                    let (rules, buckets) = naive_find_rs(&schema, &rows, &labels, &rows_order, acc);
                    assert_eq!(fast.rules, rules, "seed {seed} kind {kind:?} {acc:?}");
                    let fast_buckets: Vec<Vec<usize>> = fast
                        .buckets
                        .iter()
                        .map(|b| {
                            b.iter()
                                .map(|&i| ts.pos_rows[i as usize] as usize)
                                .collect()
                        })
                        .collect();
                    assert_eq!(fast_buckets, buckets);
                }
            }
        }
    }

    /// The acceptance guarantee (docs/semantics.md §9.1): every rule that absorbed two or more
    /// positives covers `n <= tau` training negatives or has training precision `>= 1 - epsilon`
    /// (`accepts(n, p)` with `p` its covered positives); a rule of one positive covers only rows
    /// identical to it.
    #[test]
    fn every_grown_rule_passes_the_acceptance_test() {
        let domains = [3u32, 4, 2, 3, 2];
        let mut grown = 0;
        for seed in 0..60u64 {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                for (tau, eps) in ACCEPTANCES {
                    let acc = Acceptance::new(tau, eps).unwrap();
                    let (rows, labels) = random_data(seed + 500, 90, &domains);
                    let Some((schema, ts)) = training_set(&rows, &labels, &domains, kind) else {
                        continue;
                    };
                    let order: Vec<u32> = (0..ts.n_positives() as u32).collect();
                    let run = find_rs(&ts, &order, acc);
                    for (rule, bucket) in run.rules.iter().zip(&run.buckets) {
                        let count = |label: bool| {
                            rows.iter()
                                .zip(&labels)
                                .filter(|(r, &y)| y == label && rule.covers_row(&schema, r))
                                .count() as u32
                        };
                        let (n, p) = (count(false), count(true));
                        if bucket.len() >= 2 {
                            grown += 1;
                            assert!(acc.accepts(n, p), "seed {seed} {acc:?}: n {n} p {p}");
                            if n > tau {
                                assert!(n as f64 / (n + p) as f64 <= eps + 1e-12);
                            }
                        } else {
                            let first = ts.pos_codes(bucket[0] as usize);
                            for r in &rows {
                                if rule.covers_row(&schema, r) {
                                    assert_eq!(r.as_slice(), first);
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(grown > 1000, "the test saw too few grown rules ({grown})");
    }

    /// Proposition 4.1: no rule covers an example of a later rule's bucket (data without
    /// contradictions, any tau).
    #[test]
    fn proposition_4_1_on_buckets() {
        let domains = [3u32, 3, 2, 4, 2, 3];
        for seed in 0..80u64 {
            for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
                for tau in 0..4u32 {
                    let (mut rows, labels) = random_data(seed, 60, &domains);
                    // Drop contradictions: keep the first label of every duplicated row.
                    let mut seen = std::collections::HashMap::new();
                    let mut keep_rows = Vec::new();
                    let mut keep_labels = Vec::new();
                    for (r, y) in rows.drain(..).zip(labels) {
                        if *seen.entry(r.clone()).or_insert(y) == y {
                            keep_rows.push(r);
                            keep_labels.push(y);
                        }
                    }
                    let Some((schema, ts)) = training_set(&keep_rows, &keep_labels, &domains, kind)
                    else {
                        continue;
                    };
                    let order: Vec<u32> = (0..ts.n_positives() as u32).collect();
                    let run = find_rs(&ts, &order, Acceptance::absolute(tau));
                    for i in 0..run.rules.len() {
                        for &p in &run.buckets[i] {
                            let row = ts.pos_codes(p as usize);
                            assert!(run.rules[i].covers_row(&schema, row));
                            for j in 0..i {
                                assert!(
                                    !run.rules[j].covers_row(&schema, row),
                                    "Prop 4.1, seed {seed}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
