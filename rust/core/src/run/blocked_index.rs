//! The rules' blocked slots transposed: per chunk of 64 rules and per slot, the word whose bit
//! `j` says that slot is blocked in rule `64 * chunk + j`. A positive can be a candidate of a
//! rule only if none of its slots is blocked there, so the candidates among 64 rules are the
//! complement of the OR of the positive's slots' words: one load per feature instead of
//! reading every rule's masks.
//!
//! Invariant: for every rule `i` indexed with [`set_rule`](BlockedIndex::set_rule), bit
//! `i % 64` of word `(i / 64, s)` equals bit `s` of the rule's blocked mask as it was last
//! given; bits of rules not yet indexed are never read (the caller masks them off).

use crate::bitset::{self, WORD_BITS};

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
        let bit = 1u64 << (i % WORD_BITS);
        let words = &mut self.words[chunk * ns..(chunk + 1) * ns];
        for (s, w) in words.iter_mut().enumerate() {
            if bitset::get(blocked, s) {
                *w |= bit;
            } else {
                *w &= !bit;
            }
        }
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
