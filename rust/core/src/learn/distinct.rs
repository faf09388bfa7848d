//! The training rows collapsed to their distinct feature vectors, each with the number of
//! positive and negative training rows that hold it: a relative acceptance test (docs/semantics.md
//! §9.1) counts a candidate's negatives `n` and positives `p` once per distinct vector instead of
//! once per row, which on data with many repeated rows (replicated or low-cardinality tables) is
//! several times fewer words to visit.
//!
//! Invariants: `index` holds one row per distinct feature vector (every feature, interval
//! features included), in the order of each vector's first training row; vector `j`'s positive
//! and negative rows are `sum_b 2^b * bit j of pos_planes[b]` (resp. `neg_planes`), so for any
//! terms the rows they cover are exactly `sum_j covered(j) * weight(j)` of each label: the same
//! `(n, p)` as a count over the training rows, since whether terms cover a row depends only on
//! its feature vector. `neg_word[j]` is the word, in the negatives' own row index, of a negative
//! row holding vector `j` (for a vector that some negative holds). Built only when the distinct
//! vectors are at most [`WORTH`] of the rows: otherwise the per-row count is as fast.
//! `pair_pos[a * n_slots + b]` (`a < b`, schemas of at most [`PAIR_SLOTS`] slots, else empty)
//! is the number of positive rows whose vector holds both slots: every positive a candidate
//! covers holds both of any two of its single-slot terms, so the pair's positives in the
//! vectors not yet visited bound the candidate's positives still to come, which proves most
//! rejections several times sooner than one slot's bound (noisy connect-4, share 0.1: a
//! rejected count visited 69% of the words with the one-slot bound alone). The near-miss counts
//! of an AV rule (run.rs `count_near_misses`) are weighted sums over the vectors too
//! ([`Distinct::near_misses`]): a row is a near miss of a rule by its vector alone.

use crate::learn::acceptance::Acceptance;
use crate::data::bitset::{words_for, WORD_BITS};
use crate::data::error::{filled, Result};
use crate::data::identical::Groups;
use crate::data::row_index::RowIndex;
use crate::data::rule::Terms;
use crate::learn::weighted::{bit_planes, weigh_planes};
use crate::data::schema::Schema;

/// Collapse only when the distinct vectors are at most this share of the rows (numerator / 4).
const WORTH: usize = 3;
const WHAT: &str = "the distinct feature vectors of the training rows";
/// Pair counts are kept for schemas of at most this many slots (`4 * PAIR_SLOTS^2` bytes).
const PAIR_SLOTS: usize = 256;
/// A count bounds its positives by the pair of least positives among this many of its rarest
/// single-slot terms.
const PAIR_TRY: usize = 8;

pub struct Distinct {
    index: RowIndex,
    /// Weight bit planes, `[w * n_pos_planes + b]` (`n_neg_planes` for negatives).
    pos_planes: Vec<u64>,
    neg_planes: Vec<u64>,
    n_pos_planes: usize,
    n_neg_planes: usize,
    /// Per vector: a word of the negatives' row index holding one of its negative rows.
    neg_word: Vec<u32>,
    /// `[w * n_slots + slot]`: positive rows whose vector holds `slot` in index words `>= w`.
    pos_suffix: Vec<u32>,
    /// `[w]`: positive rows whose vector is in index words `>= w`.
    pos_rest: Vec<u32>,
    /// `[a * n_slots + b]`, `a < b`: positive rows whose vector holds slots `a` and `b` (empty
    /// above [`PAIR_SLOTS`] slots).
    pair_pos: Vec<u32>,
    n_slots: usize,
}

impl Distinct {
    /// The distinct vectors of `n_pos + n_neg` rows: row `r < n_pos` is positive `r`, else
    /// negative `r - n_pos`; `code(r, f)` its code of feature `f`, `data_row(r)` its training
    /// row (which orders the vectors). `None` when collapsing would not pay.
    pub fn build(
        schema: &Schema,
        n_pos: usize,
        n_neg: usize,
        code: impl Fn(usize, usize) -> u32,
        data_row: impl Fn(usize) -> u32,
    ) -> Result<Option<Self>> {
        let n = n_pos + n_neg;
        let m = schema.n_features();
        let ids = Groups::try_new(n, m, &code, &data_row)?;
        if ids.len() * 4 > n * WORTH {
            return Ok(None);
        }
        // Per vector, in the order of its first training row: (representative, positives,
        // negatives, the negative with the least training row).
        let mut groups = filled(ids.len(), (0u32, 0u32, 0u32, u32::MAX), WHAT)?;
        for (g, &r) in groups.iter_mut().zip(&ids.reps) {
            g.0 = r;
        }
        for (r, &g) in ids.of_row.iter().enumerate() {
            let g = &mut groups[g as usize];
            if r < n_pos {
                g.1 += 1;
            } else {
                g.2 += 1;
                if g.3 == u32::MAX || data_row(r) < data_row(n_pos + g.3 as usize) {
                    g.3 = (r - n_pos) as u32;
                }
            }
        }
        drop(ids);
        let index = RowIndex::from_fn(schema, groups.len(), |f, i| code(groups[i].0 as usize, f))?;
        let words = index.n_words();
        let (pos_planes, n_pos_planes) = bit_planes(groups.len(), words, |j| groups[j].1, WHAT)?;
        let (neg_planes, n_neg_planes) = bit_planes(groups.len(), words, |j| groups[j].2, WHAT)?;
        let mut neg_word = filled(groups.len(), 0u32, WHAT)?;
        for (x, g) in neg_word.iter_mut().zip(&groups) {
            *x = if g.3 == u32::MAX { 0 } else { g.3 / WORD_BITS as u32 };
        }
        let n_slots = schema.n_slots();
        let mut pos_suffix = filled((words + 1) * n_slots, 0u32, WHAT)?;
        let mut pos_rest = filled(words + 1, 0u32, WHAT)?;
        for w in (0..words).rev() {
            let word = index.word(w);
            let mut rest = pos_rest[w + 1];
            for j in w * WORD_BITS..((w + 1) * WORD_BITS).min(groups.len()) {
                rest += groups[j].1;
            }
            pos_rest[w] = rest;
            for s in 0..n_slots {
                let mut x = word[s];
                let mut sum = pos_suffix[(w + 1) * n_slots + s];
                while x != 0 {
                    sum += groups[w * WORD_BITS + x.trailing_zeros() as usize].1;
                    x &= x - 1;
                }
                pos_suffix[w * n_slots + s] = sum;
            }
        }
        let pair_pos = if n_slots <= PAIR_SLOTS {
            pair_counts(&index, &pos_planes, n_pos_planes, n_slots)?
        } else {
            Vec::new()
        };
        Ok(Some(Self {
            index,
            pos_planes,
            neg_planes,
            n_pos_planes,
            n_neg_planes,
            neg_word,
            pos_suffix,
            pos_rest,
            pair_pos,
            n_slots,
        }))
    }

    /// Bytes the view of `n` training rows can take at its peak, its build included: an upper
    /// bound (it is built only when the distinct vectors are at most `WORTH / 4` of the rows;
    /// every allocation is fallible, so a failure is an error, not an abort).
    pub fn bytes(schema: &Schema, n: usize) -> u64 {
        let d = n * WORTH / 4;
        let words = words_for(d) as u64;
        // Bit planes of counts up to n, for each label.
        let planes = 2 * (usize::BITS - n.leading_zeros()).max(1) as u64;
        let grouping = n as u64 * 16 + d as u64 * 28;
        let suffix = (words + 1) * (schema.n_slots() as u64 + 1) * 4;
        let pairs = if schema.n_slots() <= PAIR_SLOTS { (schema.n_slots() as u64).pow(2) * 4 } else { 0 };
        RowIndex::bytes(schema, d) + words * planes * 8 + d as u64 * 4 + suffix + grouping + pairs
    }

    /// Number of distinct feature vectors.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn len(&self) -> usize {
        self.index.n_rows()
    }

    /// The relative test's count of `candidate` (run.rs `count_relative`, over the distinct
    /// vectors): its training negatives `n` and positives `p`, stopping as soon as
    /// `max(n so far, lower)` exceeds the limit of every positive count still possible (`p` so
    /// far plus the positive rows of the vectors not yet visited that hold every single-slot
    /// term): `Err(a word of the negatives' row index holding a negative the candidate covers,
    /// or 0 if none was seen)`. Else `Ok((n, p))`, exact, with `n <= limit(p)`.
    ///
    /// The popcounts use the CPU's POPCNT instruction when it has one (checked at run time;
    /// the default x86-64 target has none): the same numbers, a fraction of the instructions.
    pub fn count_relative(
        &self,
        candidate: &Terms,
        acc: &Acceptance,
        lower: u32,
    ) -> std::result::Result<(u32, u32), usize> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT, checked just above.
            return unsafe { self.count_popcnt(candidate, acc, lower) };
        }
        self.count(candidate, acc, lower)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn count_popcnt(
        &self,
        candidate: &Terms,
        acc: &Acceptance,
        lower: u32,
    ) -> std::result::Result<(u32, u32), usize> {
        self.count(candidate, acc, lower)
    }

    /// Near misses of a rule whose terms are all single-slot (`singles`), over the distinct
    /// vectors: `out[j] +=` the rows of one label (`positives`, else negatives) that hold every
    /// slot of `singles` but `singles[j]`, weighted by the vector's rows of that label. The same
    /// numbers as a count over the rows (whether a row is such a near miss depends on its vector
    /// alone), on the vectors' words instead of the rows'.
    pub fn near_misses(&self, singles: &[u32], positives: bool, out: &mut [u32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT, checked just above.
            return unsafe { self.near_misses_popcnt(singles, positives, out) };
        }
        self.near_misses_any(singles, positives, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn near_misses_popcnt(&self, singles: &[u32], positives: bool, out: &mut [u32]) {
        self.near_misses_any(singles, positives, out)
    }

    #[inline(always)]
    fn near_misses_any(&self, singles: &[u32], positives: bool, out: &mut [u32]) {
        let (planes, np) = if positives {
            (&self.pos_planes, self.n_pos_planes)
        } else {
            (&self.neg_planes, self.n_neg_planes)
        };
        for w in 0..self.index.n_words() {
            let pl = &planes[w * np..(w + 1) * np];
            // Vectors with rows of this label.
            let valid = pl.iter().fold(0u64, |o, &x| o | x) & self.index.valid(w);
            if valid == 0 {
                continue;
            }
            let word = self.index.word(w);
            // Bit-sliced count of failed terms per vector: `one` = at least one, `two` = two.
            let (mut one, mut two) = (0u64, 0u64);
            for chunk in singles.chunks(4) {
                for &s in chunk {
                    let fail = !word[s as usize] & valid;
                    two |= one & fail;
                    one |= fail;
                }
                if two == valid {
                    break;
                }
            }
            let exactly_one = one & !two;
            if exactly_one == 0 {
                continue;
            }
            for (j, &s) in singles.iter().enumerate() {
                let near = exactly_one & !word[s as usize];
                if near != 0 {
                    out[j] += weigh_planes(pl, near);
                }
            }
        }
    }

    /// Among the first [`PAIR_TRY`] single-slot terms (the rarest), the two slots `(a, b)`,
    /// `a < b`, held together by the fewest positive rows, and that number.
    fn best_pair(&self, singles: &[u32]) -> Option<(usize, usize, u32)> {
        if self.pair_pos.is_empty() || singles.len() < 2 {
            return None;
        }
        let head = &singles[..singles.len().min(PAIR_TRY)];
        let mut best: Option<(usize, usize, u32)> = None;
        for (k, &x) in head.iter().enumerate() {
            for &y in &head[k + 1..] {
                let (a, b) = (x.min(y) as usize, x.max(y) as usize);
                let c = self.pair_pos[a * self.n_slots + b];
                if best.is_none_or(|(_, _, m)| c < m) {
                    best = Some((a, b, c));
                }
            }
        }
        best
    }

    #[inline(always)]
    fn count(
        &self,
        candidate: &Terms,
        acc: &Acceptance,
        lower: u32,
    ) -> std::result::Result<(u32, u32), usize> {
        const STEP: usize = 4;
        let singles = candidate.singles();
        let unseen = |w: usize| {
            singles
                .iter()
                .map(|&s| self.pos_suffix[w * self.n_slots + s as usize])
                .fold(self.pos_rest[w], u32::min)
        };
        // The bound on the positives still to come: the pair's positives not yet visited
        // (`pair_left`), and the positives holding the slot of the fewest (`rare`), whichever
        // is less; without a pair, every single-slot term's suffix as before.
        let pair = self.best_pair(singles);
        let first = pair.map_or(u32::MAX, |(_, _, c)| c).min(unseen(0));
        if !acc.accepts(lower, first) {
            return Err(0);
        }
        let rare = singles
            .iter()
            .copied()
            .min_by_key(|&s| self.pos_suffix[s as usize]);
        let (pa, pb, mut pair_left) = pair.unwrap_or((0, 0, u32::MAX));
        let (pp, np) = (self.n_pos_planes, self.n_neg_planes);
        let words = self.index.n_words();
        let (mut n, mut p, mut hit) = (0u32, 0u32, None::<usize>);
        let mut w = 0;
        while w < words {
            let end = (w + STEP).min(words);
            for v in w..end {
                let pos = &self.pos_planes[v * pp..(v + 1) * pp];
                if pair.is_some() {
                    let word = self.index.word(v);
                    let x = word[pa] & word[pb];
                    if x != 0 {
                        for (b, &y) in pos.iter().enumerate() {
                            pair_left -= (x & y).count_ones() << b;
                        }
                    }
                }
                let c = self.index.covered_word(candidate, v);
                if c == 0 {
                    continue;
                }
                let neg = &self.neg_planes[v * np..(v + 1) * np];
                let mut any = 0u64;
                for (b, &x) in neg.iter().enumerate() {
                    let y = c & x;
                    any |= y;
                    n += y.count_ones() << b;
                }
                if hit.is_none() && any != 0 {
                    hit = Some(v * WORD_BITS + any.trailing_zeros() as usize);
                }
                for (b, &x) in pos.iter().enumerate() {
                    p += (c & x).count_ones() << b;
                }
            }
            w = end;
            let left = match (pair, rare) {
                (Some(_), Some(s)) => pair_left.min(self.pos_suffix[w * self.n_slots + s as usize]),
                _ => unseen(w),
            };
            if !acc.accepts(n.max(lower), p + left) {
                return Err(hit.map_or(0, |j| self.neg_word[j] as usize));
            }
        }
        Ok((n, p))
    }
}

/// `pair_pos` of [`Distinct`]: for slots `a < b`, the positive rows (weights in `planes`) whose
/// vector holds both.
fn pair_counts(index: &RowIndex, planes: &[u64], n_planes: usize, n_slots: usize) -> Result<Vec<u32>> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT, checked just above.
        return unsafe { pair_counts_popcnt(index, planes, n_planes, n_slots) };
    }
    pair_counts_any(index, planes, n_planes, n_slots)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn pair_counts_popcnt(index: &RowIndex, planes: &[u64], n_planes: usize, n_slots: usize) -> Result<Vec<u32>> {
    pair_counts_any(index, planes, n_planes, n_slots)
}

#[inline(always)]
fn pair_counts_any(index: &RowIndex, planes: &[u64], n_planes: usize, n_slots: usize) -> Result<Vec<u32>> {
    let mut out = filled(n_slots * n_slots, 0u32, WHAT)?;
    for w in 0..index.n_words() {
        let word = &index.word(w)[..n_slots];
        let pl = &planes[w * n_planes..(w + 1) * n_planes];
        let positive = pl.iter().fold(0u64, |o, &x| o | x);
        for a in 0..n_slots {
            let x = word[a] & positive;
            if x == 0 {
                continue;
            }
            let row = &mut out[a * n_slots..(a + 1) * n_slots];
            for b in a + 1..n_slots {
                let y = x & word[b];
                if y != 0 {
                    row[b] += pl.iter().enumerate().map(|(k, &z)| (y & z).count_ones() << k).sum::<u32>();
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rule::Rule;
    use crate::data::schema::ConstraintKind;

    #[test]
    fn collapses_repeated_rows_with_their_label_counts() {
        let schema = Schema::uniform(vec![2, 2], ConstraintKind::AttributeValue).unwrap();
        // positives: (0,1) x3, (1,1); negatives: (0,1) x2, (1,0) x2.
        let pos = [[0u32, 1], [0, 1], [1, 1], [0, 1]];
        let neg = [[0u32, 1], [1, 0], [1, 0], [0, 1]];
        let code = |r: usize, f: usize| if r < 4 { pos[r][f] } else { neg[r - 4][f] };
        let d = Distinct::build(&schema, 4, 4, code, |r| r as u32)
            .unwrap()
            .expect("3 vectors of 8 rows");
        assert_eq!(d.len(), 3);
        let acc = Acceptance::new(0, 0.5).unwrap();
        let all = Terms::new();
        assert_eq!(d.count_relative(&all, &acc, 0), Ok((4, 4)));
        // Buffers that cannot be allocated are an error, not an abort.
        let huge = Distinct::build(&schema, usize::MAX / 64, 0, |_, _| 0, |r| r as u32);
        assert!(matches!(huge, Err(crate::data::error::FindRsError::OutOfMemory { .. })));
        let none_distinct = Distinct::build(&schema, 2, 1, |r, f| [[0u32, 0], [0, 1], [1, 1]][r][f], |r| r as u32);
        assert!(none_distinct.unwrap().is_none());
    }

    /// The pair counts are the positives holding both slots, and a count bounded by them gives
    /// exactly the verdict and counts of a plain count over the rows: for random rules (AV and
    /// OH, a row generalized by up to 3 others) and shares 0.05 to 0.5, with a lower bound
    /// `lower` of the negatives that is sometimes the exact count.
    #[test]
    fn pair_bounded_counts_equal_a_plain_count() {
        use crate::learn::run::tests::random_data;
        // Enough distinct vectors (a few hundred) for the count to test its bound between words.
        let domains = [4u32, 3, 4, 3, 5, 2];
        let mut checked = (0, 0);
        for kind in [ConstraintKind::AttributeValue, ConstraintKind::OneHot] {
            let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
            for seed in 0..6u64 {
                let (rows, labels) = random_data(seed, 3000, &domains);
                let pos: Vec<&Vec<u32>> = rows.iter().zip(&labels).filter(|(_, &y)| y).map(|(r, _)| r).collect();
                let neg: Vec<&Vec<u32>> = rows.iter().zip(&labels).filter(|(_, &y)| !y).map(|(r, _)| r).collect();
                let code = |r: usize, f: usize| if r < pos.len() { pos[r][f] } else { neg[r - pos.len()][f] };
                let d = Distinct::build(&schema, pos.len(), neg.len(), code, |r| r as u32)
                    .unwrap()
                    .expect("at most 1,440 vectors of 3,000 rows");
                assert!(d.len() > 8 * WORD_BITS, "seed {seed}: {} vectors", d.len());
                let n_slots = schema.n_slots();
                for a in 0..n_slots {
                    for b in a + 1..n_slots {
                        let holds = |r: &Vec<u32>, s: usize| schema.slot(schema.feature_of(s), r[schema.feature_of(s)]) == s;
                        let want = pos.iter().filter(|r| holds(r, a) && holds(r, b)).count() as u32;
                        assert_eq!(d.pair_pos[a * n_slots + b], want, "slots {a} {b}");
                    }
                }
                for (k, start) in rows.iter().enumerate().take(40) {
                    let mut rule = Rule::from_row(&schema, start);
                    for other in rows.iter().skip(k + 1).step_by(7).take(k % 4) {
                        rule.generalize(&schema, other);
                    }
                    let mut terms = Terms::new();
                    rule.terms(&schema, &mut terms);
                    let n = neg.iter().filter(|r| rule.covers_row(&schema, r)).count() as u32;
                    let p = pos.iter().filter(|r| rule.covers_row(&schema, r)).count() as u32;
                    for eps in [0.05, 0.1, 0.2, 0.35, 0.5] {
                        let acc = Acceptance::new(0, eps).unwrap();
                        for lower in [0, n / 2, n] {
                            let got = d.count_relative(&terms, &acc, lower);
                            if acc.accepts(n, p) {
                                assert_eq!(got, Ok((n, p)), "seed {seed} row {k} eps {eps}");
                                checked.0 += 1;
                            } else {
                                assert!(got.is_err(), "seed {seed} row {k} eps {eps}");
                                checked.1 += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked.0 > 200 && checked.1 > 200, "accepted/rejected checked: {checked:?}");
    }
}
