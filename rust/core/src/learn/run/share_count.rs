//! The relative test's count over the training rows (docs/semantics.md §9.1): a candidate's
//! training negatives `n` and positives `p`, for a run with a share tolerance whose rows do not
//! collapse to few distinct vectors (else [`Distinct`](crate::learn::distinct::Distinct) counts).
//!
//! Invariant: the verdict is exactly `acc.accepts(n, p)` on the exact counts, and an accepted
//! candidate's `(n, p)` is exact. The count may stop early only on a proven rejection: `n`
//! counted so far (or the caller's lower bound `lower`) already exceeds `limit` of an upper bound
//! of `p` (the positives counted so far plus, for the positives not yet visited, the fewest that
//! hold any one single-slot term of the candidate).
//!
//! The negatives are counted first, all of them, and then the positives: nearly every counted
//! candidate of a noisy share-tolerance run is rejected, and a rejection needs `n` large
//! against a bound of `p`, which the single-slot terms' positive counts give before any
//! positive is visited. Counting both side by side (as before) visited the positives while the
//! bound on them was still loose.
//!
//! The words' popcounts use the CPU's POPCNT instruction when it has one (checked at run time;
//! the default x86-64 target has none, and a software popcount was most of a count's
//! instructions). The same numbers either way.

use crate::learn::acceptance::Acceptance;
use crate::data::bitset::WORD_BITS;
use crate::data::rule::Terms;
use crate::learn::training::TrainingSet;

/// `Ok((n, p))`, exact, when `acc` accepts them; else `Err(a word of the negatives' row index
/// holding a negative the candidate covers, or 0 if none was seen)`. `lower` is a lower bound
/// of `n`.
pub(super) fn count_relative(
    ts: &TrainingSet,
    candidate: &Terms,
    acc: &Acceptance,
    lower: u32,
) -> Result<(u32, u32), usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT, checked just above.
        return unsafe { count_popcnt(ts, candidate, acc, lower) };
    }
    count(ts, candidate, acc, lower)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn count_popcnt(
    ts: &TrainingSet,
    candidate: &Terms,
    acc: &Acceptance,
    lower: u32,
) -> Result<(u32, u32), usize> {
    count(ts, candidate, acc, lower)
}

#[inline(always)]
fn count(ts: &TrainingSet, candidate: &Terms, acc: &Acceptance, lower: u32) -> Result<(u32, u32), usize> {
    /// Words counted between two tests of the bound.
    const STEP: usize = 4;
    let (pos, neg) = (&ts.positives, &ts.negatives);
    let (pw, nw) = (pos.n_words(), neg.n_words());
    let total = ts.n_positives() as u32;
    let singles = candidate.singles();
    // Positives in words `ip..` that could hold every single-slot term: an upper bound.
    let unseen = |ip: usize| {
        let rest = (total as usize).saturating_sub(ip * WORD_BITS) as u32;
        singles
            .iter()
            .map(|&s| ts.pos_suffix(ip, s))
            .fold(rest, u32::min)
    };
    let most = unseen(0);
    // `!accepts(n, q)` is `n > limit(q)` (acceptance.rs) without limit's u128 division.
    if !acc.accepts(lower, most) {
        // Any word will do: a witness is only recorded where the candidate covers a negative.
        return Err(0);
    }
    let (mut n, mut hit, mut iw) = (0u32, 0usize, 0usize);
    while iw < nw {
        let end = (iw + STEP).min(nw);
        for w in iw..end {
            let c = neg.covered_word(candidate, w);
            if c != 0 {
                n += c.count_ones();
                hit = w;
            }
        }
        iw = end;
        if !acc.accepts(n.max(lower), most) {
            return Err(hit);
        }
    }
    let (mut p, mut ip) = (0u32, 0usize);
    while ip < pw {
        let end = (ip + STEP).min(pw);
        for w in ip..end {
            let c = pos.covered_word(candidate, w);
            if c != 0 {
                p += c.count_ones();
            }
        }
        ip = end;
        if !acc.accepts(n.max(lower), p + unseen(ip)) {
            return Err(hit);
        }
    }
    if acc.accepts(n.max(lower), p) {
        Ok((n, p))
    } else {
        Err(hit)
    }
}
