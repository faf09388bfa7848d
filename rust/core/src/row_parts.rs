//! The negatives indexed by the features split into a few parts, to find the negatives that
//! differ from a whole row in at most one feature without visiting every negative.
//!
//! The features are split into `k` parts (up to [`PARTS`]); lookup `j`'s key hashes the codes of
//! every feature *outside* part `j`. A negative differing from a row in exactly feature `f`
//! agrees with it outside `f`'s part, so it has the row's key in lookup `part_of(f)` (and, the
//! key covering `f` otherwise, in no other lookup but by a hash collision); a negative identical
//! to the row has its key in every lookup. Per lookup the negatives are sorted by key, and a
//! row's *candidates* are the negatives of its key. A hash collision only adds a candidate:
//! the caller checks each candidate against the row exactly and counts a near miss only in
//! the lookup of its feature's part, an identical negative only in lookup 0, so the index
//! decides nothing by itself.
//!
//! Invariant: for each lookup `j`, `keys[j]` is sorted and `negs[j][x]` is the negative (an
//! index into the training set's negatives) whose key is `keys[j][x]`; every negative appears
//! once per lookup, and the parts partition the features. Built only for schemas without
//! interval features (whose rules' near misses are not one slot each) and only when a row's
//! expected number of candidates is small next to a scan of the negatives' bitsets.

/// At most this many parts (and lookups).
const PARTS: usize = 4;

/// A typical row's candidates must stay under this share of the scan they replace (the
/// negatives' words times the features), or the index is not built.
const WORTH_DIVISOR: usize = 4;

pub struct RowParts {
    /// Per feature, its part.
    part: Vec<u8>,
    /// Per lookup, the features whose codes its key hashes (those outside its part).
    key_features: Vec<Vec<u32>>,
    keys: Vec<Vec<u64>>,
    negs: Vec<Vec<u32>>,
    /// Candidates of a row drawn like the negatives, every lookup together.
    expected: usize,
}

impl RowParts {
    /// Bytes of the index of `n_neg` negatives: a key and an index per negative and lookup.
    pub fn bytes(n_neg: usize) -> u64 {
        n_neg as u64 * PARTS as u64 * (8 + 4)
    }

    /// The index of `n_neg` negatives over `n_features` slot features, `code(f, i)` being
    /// negative `i`'s code of feature `f`, when it pays: `None` with fewer than two features,
    /// no negative, or parts that leave too many candidates per row (the caller then scans).
    pub fn build_if_worth(n_features: usize, n_neg: usize, code: impl Fn(usize, usize) -> u32) -> Option<Self> {
        let index = Self::new(n_features, n_neg, code)?;
        let scan = n_neg.div_ceil(64) * n_features;
        (index.expected * WORTH_DIVISOR <= scan).then_some(index)
    }

    /// The index, whatever it costs (`None` only with fewer than two features or no negative).
    pub(crate) fn new(n_features: usize, n_neg: usize, code: impl Fn(usize, usize) -> u32) -> Option<Self> {
        if n_features < 2 || n_neg == 0 {
            return None;
        }
        let part = split(n_features, n_neg, &code);
        let k = PARTS.min(n_features);
        let key_features: Vec<Vec<u32>> = (0..k)
            .map(|j| (0..n_features as u32).filter(|&f| part[f as usize] as usize != j).collect())
            .collect();
        let (mut keys, mut negs) = (Vec::with_capacity(k), Vec::with_capacity(k));
        let mut squares = 0u64;
        for features in &key_features {
            let mut pairs: Vec<(u64, u32)> = (0..n_neg)
                .map(|i| (key(features.iter().map(|&f| code(f as usize, i))), i as u32))
                .collect();
            pairs.sort_unstable();
            // A row drawn like the negatives meets sum(group^2) / n candidates per lookup.
            let mut start = 0;
            for x in 1..=pairs.len() {
                if x == pairs.len() || pairs[x].0 != pairs[start].0 {
                    squares += ((x - start) * (x - start)) as u64;
                    start = x;
                }
            }
            keys.push(pairs.iter().map(|p| p.0).collect());
            negs.push(pairs.iter().map(|p| p.1).collect());
        }
        let expected = (squares / n_neg as u64) as usize;
        Some(Self { part, key_features, keys, negs, expected })
    }

    /// Calls `visit(j, n)` with every candidate negative `n` of the row `codes` (indexed by
    /// feature) in lookup `j`: every negative agreeing with the row outside part `j`, and maybe
    /// a few more (hash collisions).
    #[inline]
    pub fn for_each_candidate(&self, codes: &[u32], mut visit: impl FnMut(usize, u32)) {
        for (j, features) in self.key_features.iter().enumerate() {
            let k = key(features.iter().map(|&f| codes[f as usize]));
            let keys = &self.keys[j];
            let from = keys.partition_point(|&x| x < k);
            for (&x, &n) in keys[from..].iter().zip(&self.negs[j][from..]) {
                if x != k {
                    break;
                }
                visit(j, n);
            }
        }
    }

    /// The part holding feature `f` (the lookup in which a near miss of `f` is counted).
    #[inline]
    pub fn part_of(&self, f: usize) -> usize {
        self.part[f] as usize
    }
}

/// Per feature its part, the parts about equally selective: by decreasing entropy of the
/// negatives' codes, each feature to the part with the smallest total so far (ties: the lower
/// part; features in order of index among equal entropies).
fn split(n_features: usize, n_neg: usize, code: &impl Fn(usize, usize) -> u32) -> Vec<u8> {
    let entropy = |f: usize| {
        let mut codes: Vec<u32> = (0..n_neg).map(|i| code(f, i)).collect();
        codes.sort_unstable();
        let mut h = 0.0f64;
        let mut start = 0;
        for x in 1..=codes.len() {
            if x == codes.len() || codes[x] != codes[start] {
                let p = (x - start) as f64 / n_neg as f64;
                h -= p * p.ln();
                start = x;
            }
        }
        h
    };
    let mut order: Vec<(f64, usize)> = (0..n_features).map(|f| (entropy(f), f)).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let k = PARTS.min(n_features);
    let mut totals = vec![0.0f64; k];
    let mut sizes = vec![0usize; k];
    let mut part = vec![0u8; n_features];
    for (e, f) in order {
        // An empty part first, so that every part gets a feature.
        let j = (0..k)
            .min_by(|&a, &b| (sizes[a] > 0).cmp(&(sizes[b] > 0)).then(totals[a].total_cmp(&totals[b])))
            .expect("k >= 1");
        part[f] = j as u8;
        totals[j] += e;
        sizes[j] += 1;
    }
    part
}

/// A fixed 64-bit hash of a sequence of codes (the same on every machine and run).
#[inline]
fn key(codes: impl Iterator<Item = u32>) -> u64 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64;
    for c in codes {
        h = (h.rotate_left(23) ^ c as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Every negative within one feature of a row is visited where the caller counts it
    /// (identical: in every lookup; differing in `f` only: in lookup `part_of(f)`), each
    /// negative at most once per lookup, on random rows of random small domains.
    #[test]
    fn candidates_hold_every_negative_within_one_feature() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..60 {
            let m = rng.random_range(2..8usize);
            let domains: Vec<u32> = (0..m).map(|_| rng.random_range(1..5)).collect();
            let n = rng.random_range(1..200usize);
            let rows: Vec<Vec<u32>> = (0..n)
                .map(|_| domains.iter().map(|&d| rng.random_range(0..d)).collect())
                .collect();
            let index = RowParts::new(m, n, |f, i| rows[i][f]).expect("two features, a negative");
            let k = index.keys.len();
            assert_eq!(k, PARTS.min(m));
            for j in 0..k {
                assert!((0..m).any(|f| index.part_of(f) == j), "part {j} empty");
            }
            for _ in 0..30 {
                let row: Vec<u32> = domains.iter().map(|&d| rng.random_range(0..d)).collect();
                let mut seen = vec![vec![false; k]; n];
                index.for_each_candidate(&row, |j, i| {
                    assert!(!seen[i as usize][j], "negative {i} visited twice in lookup {j}");
                    seen[i as usize][j] = true;
                });
                for (i, r) in rows.iter().enumerate() {
                    let diff: Vec<usize> = (0..m).filter(|&f| r[f] != row[f]).collect();
                    match diff[..] {
                        [] => assert!(seen[i].iter().all(|&s| s), "identical negative {i}"),
                        [f] => assert!(seen[i][index.part_of(f)], "near negative {i} missed"),
                        _ => {}
                    }
                }
            }
        }
    }
}
