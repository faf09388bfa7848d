//! The negatives indexed by the features split into a few parts, to find the negatives that
//! differ from a whole row in at most one feature without visiting every negative.
//!
//! Each row is packed into one `u128` (every feature's code in its own bit field; built only
//! when the fields fit). The features are split into `k` parts (up to [`PARTS`]); lookup `j`
//! groups the negatives by their fields *outside* part `j`. A negative differing from a row in
//! exactly feature `f` agrees with it outside `f`'s part, so it is in the row's group of lookup
//! `f`'s part and of no other lookup; a negative identical to the row is in its group of
//! every lookup. So [`RowParts::for_each_within_one`] reports, from the groups of the row, each
//! identical negative once (from lookup 0) and each negative differing in one feature once
//! (from its part's lookup), comparing packed rows exactly.
//!
//! Invariant: `rows[j]` holds every negative's packed row once, sorted by the hash of its
//! fields outside part `j` (then by the row), and `starts[j][b]..starts[j][b + 1]` are the
//! rows whose hash has top bits `b`, so a row's group lies in one bucket. Built only for
//! schemas without interval features (whose rules' near misses are not one slot each) and
//! only when a row's expected number of candidates is small next to a scan of the negatives'
//! bitsets.

/// At most this many parts (and lookups).
const PARTS: usize = 4;

/// A typical row's candidates must stay under this share of the scan they replace (the
/// negatives' words times the features), or the index is not built.
const WORTH_DIVISOR: usize = 4;

pub struct RowParts {
    /// Per feature, the shift and width of its field in a packed row.
    shift: Vec<u32>,
    width: Vec<u32>,
    /// Per lookup, the bits of the fields outside its part.
    masks: Vec<u128>,
    /// Per lookup, the features of its part.
    members: Vec<Vec<u32>>,
    /// Per lookup, the negatives' packed rows, grouped (see the invariant).
    rows: Vec<Vec<u128>>,
    /// Per lookup, bucket starts (`2^bits + 1` each).
    starts: Vec<Vec<u32>>,
    bits: u32,
    /// Candidates of a row drawn like the negatives, every lookup together.
    expected: usize,
}

impl RowParts {
    /// Bytes of the index of `n_neg` negatives: a packed row and a bucket start (at most two
    /// per negative) per negative and lookup.
    pub fn bytes(n_neg: usize) -> u64 {
        n_neg as u64 * PARTS as u64 * (16 + 8)
    }

    /// The index of `n_neg` negatives over features of `domain_sizes` (codes below them),
    /// `code(f, i)` being negative `i`'s code of feature `f`, when it pays: `None` with fewer
    /// than two features, no negative, fields wider than 128 bits together, or parts that
    /// leave too many candidates per row (the caller then scans).
    pub fn build_if_worth(domain_sizes: &[u32], n_neg: usize, code: impl Fn(usize, usize) -> u32) -> Option<Self> {
        let index = Self::new(domain_sizes, n_neg, code)?;
        let scan = n_neg.div_ceil(64) * domain_sizes.len();
        (index.expected * WORTH_DIVISOR <= scan).then_some(index)
    }

    /// The index, whatever it costs (`None` only with fewer than two features, no negative, or
    /// fields wider than 128 bits).
    pub(crate) fn new(domain_sizes: &[u32], n_neg: usize, code: impl Fn(usize, usize) -> u32) -> Option<Self> {
        let m = domain_sizes.len();
        if m < 2 || n_neg == 0 {
            return None;
        }
        let width: Vec<u32> = domain_sizes.iter().map(|&d| (32 - d.leading_zeros()).max(1)).collect();
        if width.iter().sum::<u32>() > 128 {
            return None;
        }
        let shift: Vec<u32> = width.iter().scan(0, |at, &w| { let s = *at; *at += w; Some(s) }).collect();
        let field = |f: usize| ((1u128 << width[f]) - 1) << shift[f];
        let part = split(m, n_neg, &code);
        let k = PARTS.min(m);
        let masks: Vec<u128> = (0..k)
            .map(|j| (0..m).filter(|&f| part[f] as usize != j).map(field).fold(0, |a, b| a | b))
            .collect();
        let members: Vec<Vec<u32>> = (0..k)
            .map(|j| (0..m as u32).filter(|&f| part[f as usize] as usize == j).collect())
            .collect();
        let packed: Vec<u128> = (0..n_neg)
            .map(|i| (0..m).fold(0u128, |a, f| a | (code(f, i) as u128) << shift[f]))
            .collect();
        let bits = usize::BITS - n_neg.leading_zeros();
        let (mut rows, mut starts) = (Vec::with_capacity(k), Vec::with_capacity(k));
        let mut squares = 0u64;
        for &mask in &masks {
            let mut keyed: Vec<(u64, u128)> = packed.iter().map(|&r| (hash(r & mask), r)).collect();
            keyed.sort_unstable();
            // A row drawn like the negatives meets sum(group^2) / n candidates per lookup.
            let mut from = 0;
            for x in 1..=keyed.len() {
                if x == keyed.len() || keyed[x].0 != keyed[from].0 {
                    squares += ((x - from) * (x - from)) as u64;
                    from = x;
                }
            }
            let mut st = vec![0u32; (1usize << bits) + 1];
            for &(h, _) in &keyed {
                st[bucket(h, bits) + 1] += 1;
            }
            for b in 1..st.len() {
                st[b] += st[b - 1];
            }
            rows.push(keyed.into_iter().map(|(_, r)| r).collect());
            starts.push(st);
        }
        let expected = (squares / n_neg as u64) as usize;
        Some(Self { shift, width, masks, members, rows, starts, bits, expected })
    }

    /// Calls `visit(None)` once per negative identical to the row `codes` (indexed by feature)
    /// and `visit(Some((f, c)))` once per negative that differs from it in exactly feature
    /// `f`, where it has code `c`.
    #[inline]
    pub fn for_each_within_one(&self, codes: &[u32], mut visit: impl FnMut(Option<(usize, u32)>)) {
        let row = codes.iter().enumerate().fold(0u128, |a, (f, &c)| a | (c as u128) << self.shift[f]);
        for (j, &mask) in self.masks.iter().enumerate() {
            let key = row & mask;
            let b = bucket(hash(key), self.bits);
            let rows = &self.rows[j][self.starts[j][b] as usize..self.starts[j][b + 1] as usize];
            for &r in rows {
                if r & mask != key {
                    continue;
                }
                let x = r ^ row;
                if x == 0 {
                    if j == 0 {
                        visit(None);
                    }
                    continue;
                }
                let mut differs = self.members[j]
                    .iter()
                    .map(|&f| f as usize)
                    .filter(|&f| (x >> self.shift[f]) & ((1u128 << self.width[f]) - 1) != 0);
                let f = differs.next().expect("a difference inside the part");
                if differs.next().is_none() {
                    visit(Some((f, ((r >> self.shift[f]) & ((1u128 << self.width[f]) - 1)) as u32)));
                }
            }
        }
    }
}

/// The bucket of hash `h` among `2^bits`: its top bits.
#[inline]
fn bucket(h: u64, bits: u32) -> usize {
    if bits == 0 { 0 } else { (h >> (64 - bits)) as usize }
}

/// A fixed 64-bit hash of a packed row's fields (the same on every machine and run).
#[inline]
fn hash(key: u128) -> u64 {
    let (lo, hi) = (key as u64, (key >> 64) as u64);
    let h = (lo ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0x517c_c1b7_2722_0a95);
    let h = (h.rotate_left(29) ^ hi).wrapping_mul(0x2545_f491_4f6c_dd1d);
    h ^ (h >> 31)
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Exactly the negatives identical to a row (as `None`) and those differing from it in one
    /// feature (with that feature and their code) are reported, once each, on random rows of
    /// random domains (some wider than 64 slots, so the packed rows span both halves).
    #[test]
    fn reports_every_negative_within_one_feature_once() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for t in 0..80 {
            let m = rng.random_range(2..9usize);
            let top = if t % 4 == 0 { 300 } else { 5 };
            let domains: Vec<u32> = (0..m).map(|_| rng.random_range(1..top)).collect();
            let n = rng.random_range(1..200usize);
            let rows: Vec<Vec<u32>> = (0..n)
                .map(|_| domains.iter().map(|&d| rng.random_range(0..d)).collect())
                .collect();
            let index = RowParts::new(&domains, n, |f, i| rows[i][f]).expect("two features, a negative");
            assert_eq!(index.masks.len(), PARTS.min(m));
            for j in 0..index.masks.len() {
                assert!(!index.members[j].is_empty(), "part {j} empty");
            }
            for q in 0..30 {
                // Half the rows asked are negatives' rows with one code changed, so that near
                // misses are common.
                let mut row: Vec<u32> = if q % 2 == 0 {
                    domains.iter().map(|&d| rng.random_range(0..d)).collect()
                } else {
                    rows[rng.random_range(0..n)].clone()
                };
                let f = rng.random_range(0..m);
                row[f] = rng.random_range(0..domains[f]);
                let mut got: Vec<Option<(usize, u32)>> = Vec::new();
                index.for_each_within_one(&row, |d| got.push(d));
                let mut want: Vec<Option<(usize, u32)>> = Vec::new();
                for r in &rows {
                    let diff: Vec<usize> = (0..m).filter(|&f| r[f] != row[f]).collect();
                    match diff[..] {
                        [] => want.push(None),
                        [f] => want.push(Some((f, r[f]))),
                        _ => {}
                    }
                }
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "domains {domains:?} row {row:?}");
            }
        }
    }
}
