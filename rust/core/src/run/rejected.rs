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
//!
//! The masks are hashed with [`MaskHasher`], a multiply-rotate hash, not the standard library's
//! SipHash: the keys are the run's own slot masks (no untrusted input chooses them), and SipHash
//! was a tenth of a noisy share-tolerance fit (perf, Adult with the default's settings).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

type Set = HashSet<Box<[u64]>, BuildHasherDefault<MaskHasher>>;

#[derive(Default)]
pub(super) struct Rejected {
    sets: Vec<Set>,
    /// Sets of earlier runs, emptied, reused by the next run on the same thread.
    spare: Vec<Set>,
    key: Vec<u64>,
}

/// A fast hash of slot masks: each 64-bit word is folded in with a rotate, XOR and multiply
/// (as rustc's FxHasher), and the result is finished with MurmurHash3's 64-bit mix, so that
/// both the low bits (the bucket) and the top bits (hashbrown's tag) depend on every word.
#[derive(Default)]
pub(super) struct MaskHasher(u64);

impl MaskHasher {
    const K: u64 = 0x517c_c1b7_2722_0a95;

    #[inline]
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(Self::K);
    }
}

impl Hasher for MaskHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }

    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
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
        let mut a = MaskHasher::default();
        a.write(&[1, 2, 3]);
        let mut b = MaskHasher::default();
        b.write(&[1, 2, 3, 0]);
        assert_ne!(a.finish(), b.finish(), "a short tail is told from a zero byte");
    }
}
