//! The rules' blocked slots transposed: per chunk of 64 rules and per slot, the word whose bit
//! `j` says that slot is blocked in rule `64 * chunk + j`. A positive can be a candidate of a
//! rule only if none of its slots is blocked there, so the candidates among 64 rules are the
//! complement of the OR of the positive's slots' words: one load per feature instead of
//! reading every rule's masks.
//!
//! Invariant: for every rule `i` indexed with [`set_rule`](BlockedIndex::set_rule), bit
//! `i % 64` of word `(i / 64, s)` equals bit `s` of the rule's blocked mask as it was last
//! given; bits of rules not yet indexed are never read (the caller masks them off).

use crate::data::bitset::{self, WORD_BITS};

pub(super) struct BlockedIndex {
    n_slots: usize,
    words: Vec<u64>,
}

impl BlockedIndex {
    pub(super) fn new(n_slots: usize) -> Self {
        Self {
            n_slots,
            words: Vec::new(),
        }
    }

    pub(super) fn reset(&mut self) {
        self.words.clear();
    }

    /// Records rule `i`'s blocked slot mask (its first `n_slots` bits).
    pub(super) fn set_rule(&mut self, i: usize, blocked: &[u64]) {
        let ns = self.n_slots;
        let chunk = i / WORD_BITS;
        if self.words.len() < (chunk + 1) * ns {
            self.words.resize((chunk + 1) * ns, 0);
        }
        let b = i % WORD_BITS;
        let words = &mut self.words[chunk * ns..(chunk + 1) * ns];
        // Without a branch per slot: bit `b` of each slot's word := the slot's blocked bit.
        for (slots, mask) in words.chunks_mut(WORD_BITS).zip(blocked) {
            for (k, w) in slots.iter_mut().enumerate() {
                *w = (*w & !(1u64 << b)) | ((mask >> k) & 1) << b;
            }
        }
    }

    /// Unblocks in rule `i` (already indexed) the slots set in `slots` (a slot mask).
    pub(super) fn clear_slots(&mut self, i: usize, slots: &[u64]) {
        let ns = self.n_slots;
        let chunk = i / WORD_BITS;
        let bit = 1u64 << (i % WORD_BITS);
        let words = &mut self.words[chunk * ns..(chunk + 1) * ns];
        bitset::for_each_one(slots, |s| words[s] &= !bit);
    }

    /// The rules of chunk `chunk` (of `n_rules` indexed rules) in which none of `slots` is
    /// blocked, as bits of one word.
    #[inline]
    pub(super) fn free_of(&self, chunk: usize, n_rules: usize, slots: &[u32]) -> u64 {
        let ns = self.n_slots;
        let words = &self.words[chunk * ns..(chunk + 1) * ns];
        let mut blocked = 0u64;
        for &s in slots {
            blocked |= words[s as usize];
        }
        let live = n_rules - chunk * WORD_BITS;
        let live = if live >= WORD_BITS {
            !0
        } else {
            (1u64 << live) - 1
        };
        !blocked & live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After rules are indexed, re-indexed and partly unblocked, `free_of` answers what the
    /// rules' blocked masks say, slot by slot (130 slots: masks of three words, 150 rules:
    /// three chunks, the last one partial).
    #[test]
    fn free_of_follows_set_rule_and_clear_slots() {
        let (n_slots, n_rules, sw) = (130usize, 150usize, 3usize);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let valid = |w: usize| crate::data::bitset::valid_mask(n_slots, w);
        let mut index = BlockedIndex::new(n_slots);
        let mut masks = vec![0u64; n_rules * sw];
        for round in 0..3 {
            for i in 0..n_rules {
                let m = &mut masks[i * sw..(i + 1) * sw];
                for (w, x) in m.iter_mut().enumerate() {
                    *x = next() & next() & valid(w);
                }
                index.set_rule(i, m);
                if round > 0 && i % 3 == 0 {
                    let clear: Vec<u64> = (0..sw).map(|w| next() & valid(w)).collect();
                    index.clear_slots(i, &clear);
                    for (x, c) in m.iter_mut().zip(&clear) {
                        *x &= !c;
                    }
                }
            }
            for _ in 0..50 {
                let slots: Vec<u32> = (0..1 + next() % 6).map(|_| (next() % n_slots as u64) as u32).collect();
                for chunk in 0..n_rules.div_ceil(WORD_BITS) {
                    let free = index.free_of(chunk, n_rules, &slots);
                    for b in 0..WORD_BITS {
                        let i = chunk * WORD_BITS + b;
                        let want = i < n_rules
                            && slots.iter().all(|&s| !bitset::get(&masks[i * sw..(i + 1) * sw], s as usize));
                        assert_eq!(free >> b & 1 == 1, want, "round {round} rule {i} slots {slots:?}");
                    }
                }
            }
        }
    }
}
