//! The candidates a run counted and rejected, per rule since the rule last changed, and as
//! whole candidates whatever rule they came from (relative test without interval features,
//! docs/semantics.md §9.1).
//!
//! Invariant: `sets[r]` holds exactly the masks `pm & !allowed[r]` of the positives whose
//! generalization of rule `r`, as `r` is now, was counted and rejected; it is emptied whenever
//! `r` changes. Without interval features generalize(r, p) depends on `p` only through that
//! mask, so a positive whose mask is in the set would give the same candidate, the same exact
//! counts and the same rejection: it is rejected without counting. Every rejection is kept (not
//! only the last few), so a positive whose feature vector repeats an earlier one's is never
//! counted twice against an unchanged rule, however many copies the data holds.
//!
//! Invariant: `candidates` holds exactly the candidates (generalize(r, p) as its allowed slot
//! words, which without interval features are the whole rule and fix the rows it covers)
//! counted and rejected since the run began. A candidate's verdict is the test on its own exact
//! counts, which depend on nothing but the candidate and the training set, so a candidate met
//! again, from another rule or from a rule that changed since (absorbing a positive that the
//! candidate's positive also generalizes over gives the same candidate), is rejected without
//! counting. On noisy repeated rows this was 68% of a run's counts (results/scale.md).
//!
//! Each rule's set is an open-addressing table with its keys stored inline (`sw` words per
//! entry, all-zero marking an empty entry; a zero key, which a run never records since it means
//! the rule covers the positive, is kept in a flag), so a lookup touches one entry and no heap
//! key: with a `HashSet<Box<[u64]>>` (its control bytes, its bucket, then the boxed key: three
//! cache misses, the sets of a noisy run being far larger than the cache) the lookups, inserts
//! and rehashes were about a third of a noisy share-tolerance run's CPU samples (perf, Adult,
//! FIND-RS AV, supervised bins, share 0.2, support 41). Masks are hashed with a multiply-rotate hash finished by
//! MurmurHash3's 64-bit mix (the keys are the run's own slot masks: no untrusted input
//! chooses them).

/// The most entries a table may fill: `cap * LOAD_NUM / LOAD_DEN`.
const LOAD_NUM: usize = 1;
const LOAD_DEN: usize = 2;
/// A table's first capacity (entries).
const FIRST_CAP: usize = 8;
/// Tables above this many words are freed, not zeroed, when their rule changes (a zeroing
/// would cost as much as the growth it saves).
const KEEP_WORDS: usize = 256;

/// The most words the run-wide table of rejected candidates may take (256 MiB per run thread).
/// It is a cache: a candidate it has no room for is counted again when met again, with the same
/// verdict, so the cap bounds memory without changing any run.
const CANDIDATE_WORDS: usize = 1 << 25;

/// One rule's rejected masks: linear probing over `cap` entries of `sw` words.
#[derive(Default)]
struct Table {
    /// `cap * sw` words, `cap` a power of two (or none).
    words: Vec<u64>,
    /// Words per key (a table may be reused by a run over another schema).
    sw: usize,
    len: usize,
    zero: bool,
}

impl Table {
    fn clear(&mut self) {
        if self.len == 0 {
            return;
        }
        if self.words.len() > KEEP_WORDS {
            self.words = Vec::new();
        } else {
            self.words.fill(0);
        }
        self.len = 0;
        self.zero = false;
    }

    fn is_empty(&self) -> bool {
        self.len == 0 && !self.zero
    }

    /// The entry holding `key`, or the empty entry where it would go (`cap > 0`).
    #[inline]
    fn find(&self, key: &[u64], h: u64) -> (usize, bool) {
        let sw = key.len();
        let cap = self.words.len() / sw;
        let mut at = h as usize & (cap - 1);
        loop {
            let e = &self.words[at * sw..(at + 1) * sw];
            // Word by word, inline (a slice `==` calls memcmp).
            let (mut same, mut empty) = (true, true);
            for (&x, &k) in e.iter().zip(key) {
                same &= x == k;
                empty &= x == 0;
            }
            if same {
                return (at, true);
            }
            if empty {
                return (at, false);
            }
            at = (at + 1) & (cap - 1);
        }
    }

    /// Whether one more key of `sw` words fits without the table growing past `max_words`.
    fn has_room(&self, sw: usize, max_words: usize) -> bool {
        let cap = if sw == self.sw { self.words.len() / sw } else { 0 };
        (self.len + 1) * LOAD_DEN <= cap * LOAD_NUM || (cap * 2).max(FIRST_CAP) * sw <= max_words
    }

    /// Records a nonzero `key` whose hash is `h`.
    fn insert(&mut self, key: &[u64], h: u64) {
        let sw = key.len();
        if sw != self.sw {
            debug_assert_eq!(self.len, 0, "one schema per run");
            (self.words, self.sw) = (Vec::new(), sw);
        }
        let cap = self.words.len() / sw;
        if (self.len + 1) * LOAD_DEN > cap * LOAD_NUM {
            self.grow(sw, (cap * 2).max(FIRST_CAP));
        }
        let (at, found) = self.find(key, h);
        if !found {
            self.words[at * sw..(at + 1) * sw].copy_from_slice(key);
            self.len += 1;
        }
    }

    fn grow(&mut self, sw: usize, cap: usize) {
        let old = std::mem::replace(&mut self.words, vec![0u64; cap * sw]);
        for e in old.chunks_exact(sw) {
            if e.iter().any(|&x| x != 0) {
                let (at, _) = self.find(e, hash(e));
                self.words[at * sw..(at + 1) * sw].copy_from_slice(e);
            }
        }
    }
}

/// A fast hash of a slot mask: each word folded in with a rotate, XOR and multiply (as rustc's
/// FxHasher), finished with MurmurHash3's 64-bit mix so the low bits depend on every word.
#[inline]
fn hash(key: &[u64]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = 0u64;
    for &x in key {
        h = (h.rotate_left(5) ^ x).wrapping_mul(K);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[derive(Default)]
pub(super) struct Rejected {
    sets: Vec<Table>,
    /// Tables of earlier runs, emptied, reused by the next run on the same thread.
    spare: Vec<Table>,
    key: Vec<u64>,
    /// Every candidate counted and rejected in this run (its allowed slot words).
    candidates: Table,
}

impl Rejected {
    /// Forgets every rule (a new run).
    pub(super) fn reset(&mut self) {
        for mut s in self.sets.drain(..) {
            s.clear();
            self.spare.push(s);
        }
        self.candidates.clear();
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
        if self.key.iter().all(|&x| x == 0) {
            return self.sets[i].zero;
        }
        self.sets[i].len != 0 && self.sets[i].find(&self.key, hash(&self.key)).1
    }

    /// Records `pm & !allowed` as counted and rejected against rule `i` as it is now.
    pub(super) fn insert(&mut self, i: usize, pm: &[u64], allowed: &[u64]) {
        self.fill_key(pm, allowed);
        if self.key.iter().all(|&x| x == 0) {
            self.sets[i].zero = true;
            return;
        }
        self.sets[i].insert(&self.key, hash(&self.key));
    }

    /// Whether the candidate whose allowed slot words are `allowed` was counted and rejected
    /// in this run.
    #[inline]
    pub(super) fn candidate_rejected(&self, allowed: &[u64]) -> bool {
        self.candidates.len != 0 && self.candidates.find(allowed, hash(allowed)).1
    }

    /// Records the candidate whose allowed slot words are `allowed` as counted and rejected
    /// (no candidate allows no slot: it allows its positive's), while the table stays within
    /// [`CANDIDATE_WORDS`].
    pub(super) fn insert_candidate(&mut self, allowed: &[u64]) {
        self.insert_candidate_within(allowed, CANDIDATE_WORDS);
    }

    fn insert_candidate_within(&mut self, allowed: &[u64], max_words: usize) {
        if allowed.iter().any(|&x| x != 0) && self.candidates.has_room(allowed.len(), max_words) {
            self.candidates.insert(allowed, hash(allowed));
        }
    }

    fn fill_key(&mut self, pm: &[u64], allowed: &[u64]) {
        self.key.clear();
        self.key
            .extend(pm.iter().zip(allowed).map(|(&p, &a)| p & !a));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set answers exactly what was inserted since the rule last changed, whatever the
    /// hash: masks differing in one bit, of several words, are told apart.
    #[test]
    fn remembers_exactly_the_inserted_masks() {
        let mut r = Rejected::default();
        r.push_rule();
        r.push_rule();
        let allowed = [0u64, 1 << 3, 0];
        let masks: Vec<[u64; 3]> = (0..200u64).map(|i| [i * 0x9E37, 1 << (i % 64), i >> 3]).collect();
        for m in masks.iter().step_by(2) {
            r.insert(0, m, &allowed);
        }
        for (k, m) in masks.iter().enumerate() {
            // Bit 3 of word 1 is allowed, so masks equal but for it share a key.
            let key_twin = masks.iter().step_by(2).any(|e| {
                e[0] == m[0] && e[2] == m[2] && (e[1] & !(1 << 3)) == (m[1] & !(1 << 3))
            });
            assert_eq!(r.contains(0, m, &allowed), k % 2 == 0 || key_twin, "mask {k}");
            assert!(!r.contains(1, m, &allowed));
        }
        r.rule_changed(0);
        assert!(masks.iter().all(|m| !r.contains(0, m, &allowed)));
        // A zero key (kept apart from the empty entries) and keys of another width (a table
        // reused by a run over another schema) are told apart too.
        assert!(!r.contains(1, &[0, 0, 0], &allowed));
        r.insert(1, &[0, 1 << 3, 0], &allowed);
        assert!(r.contains(1, &[0, 0, 0], &allowed));
        assert!(!r.contains(1, &[1, 0, 0], &allowed));
        r.reset();
        r.push_rule();
        r.insert(0, &[5, 6], &[0, 0]);
        assert!(r.contains(0, &[5, 6], &[0, 0]));
        assert!(!r.contains(0, &[5, 7], &[0, 0]));
    }

    /// Rejected candidates are kept across rule changes and told apart by every bit, until
    /// the next run.
    #[test]
    fn remembers_rejected_candidates_for_the_whole_run() {
        let mut r = Rejected::default();
        r.push_rule();
        let cands: Vec<[u64; 2]> = (1..300u64).map(|i| [i * 0x9E37_79B9, 1 << (i % 64)]).collect();
        assert!(cands.iter().all(|c| !r.candidate_rejected(c)));
        for c in cands.iter().step_by(3) {
            r.insert_candidate(c);
        }
        r.rule_changed(0);
        for (k, c) in cands.iter().enumerate() {
            assert_eq!(r.candidate_rejected(c), k % 3 == 0, "candidate {k}");
            let mut d = *c;
            d[1] ^= 1 << 7;
            assert_eq!(r.candidate_rejected(&d), cands.iter().step_by(3).any(|e| *e == d), "neighbour of {k}");
        }
        r.reset();
        assert!(cands.iter().all(|c| !r.candidate_rejected(c)));
    }

    /// The run-wide table stops growing at its word budget: what it holds is still found, what
    /// found no room is not (it will be counted again), and its words stay within the budget.
    #[test]
    fn the_candidate_table_stays_within_its_budget() {
        let mut r = Rejected::default();
        let cands: Vec<[u64; 2]> = (1..1000u64).map(|i| [i, i.rotate_left(17)]).collect();
        for c in &cands {
            r.insert_candidate_within(c, 64);
        }
        assert!(r.candidates.words.len() <= 64, "{} words", r.candidates.words.len());
        let held = cands.iter().filter(|c| r.candidate_rejected(&c[..])).count();
        assert_eq!(held, r.candidates.len);
        assert_eq!(held, 16, "32 entries of 2 words at load 1/2");
        assert!(cands[..16].iter().all(|c| r.candidate_rejected(&c[..])));
    }
}
