//! Rows grouped by their feature vector: the one place that finds identical rows, for the
//! contradiction counts (docs/semantics.md §1) and the distinct-vector view of the training rows
//! (`distinct`, docs/semantics.md §9.1).
//!
//! Invariant: two rows get the same group iff their codes are equal in every feature, and groups
//! are numbered in the order of their representatives, each group's row of least `rank` (then
//! least row number). Rows are hashed column by column, sorted by the top half of their hash,
//! and compared exactly within a run of equal top halves, so a hash collision never merges
//! different vectors.

use crate::data::error::{filled, FindRsError, Result};

/// The groups of `n` rows of `m` features (`code(r, f)`: row `r`'s code of feature `f`).
pub struct Groups {
    /// Per row, its group's number.
    pub of_row: Vec<u32>,
    /// Per group, its representative row.
    pub reps: Vec<u32>,
}

impl Groups {
    pub fn new(n: usize, m: usize, code: impl Fn(usize, usize) -> u32, rank: impl Fn(usize) -> u32) -> Self {
        Self::try_new(n, m, code, rank).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`new`](Self::new), or [`OutOfMemory`](crate::data::error::FindRsError::OutOfMemory) when its
    /// buffers (16 bytes per row, 20 per group) cannot be allocated.
    pub fn try_new(
        n: usize,
        m: usize,
        code: impl Fn(usize, usize) -> u32,
        rank: impl Fn(usize) -> u32,
    ) -> Result<Self> {
        const WHAT: &str = "grouping identical rows";
        let mut hash = filled(n, 0xcbf2_9ce4_8422_2325u64, WHAT)?;
        for f in 0..m {
            for (r, h) in hash.iter_mut().enumerate() {
                *h = (h.rotate_left(23) ^ code(r, f) as u64).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        // Each row keyed by its hash's top 32 bits and its number in one u64, so the sort
        // compares plain integers (no closure per comparison): rows of one vector share a key's
        // top half, and each run of equal top halves is compared exactly below.
        let mut keyed = hash;
        for (r, k) in keyed.iter_mut().enumerate() {
            *k = (*k & !0xffff_ffffu64) | r as u64;
        }
        keyed.sort_unstable();
        let same = |a: usize, b: usize| (0..m).all(|f| code(a, f) == code(b, f));
        let mut of_row = filled(n, 0u32, WHAT)?;
        let mut reps: Vec<u32> = Vec::new();
        let mut start = 0;
        while start < n {
            let h = keyed[start] >> 32;
            let end = start + keyed[start..].iter().take_while(|&&k| k >> 32 == h).count();
            let first = reps.len();
            for &k in &keyed[start..end] {
                let r = (k & 0xffff_ffff) as u32;
                let g = match reps[first..].iter().position(|&p| same(p as usize, r as usize)) {
                    Some(i) => {
                        // A group's representative is its row of least (rank, row number).
                        let p = &mut reps[first + i];
                        if (rank(r as usize), r) < (rank(*p as usize), *p) {
                            *p = r;
                        }
                        first + i
                    }
                    None => {
                        reps.try_reserve(1).map_err(|_| FindRsError::OutOfMemory {
                            bytes: (reps.len() as u64 + 1) * 4,
                            what: WHAT,
                        })?;
                        reps.push(r);
                        reps.len() - 1
                    }
                };
                of_row[r as usize] = g as u32;
            }
            start = end;
        }
        drop(keyed);
        // The groups numbered by their representatives' (rank, row number), sorted as one u64
        // each; a representative's group is read back from `of_row`.
        let mut ranked = filled(reps.len(), 0u64, WHAT)?;
        for (k, &p) in ranked.iter_mut().zip(&reps) {
            *k = (rank(p as usize) as u64) << 32 | p as u64;
        }
        drop(reps);
        ranked.sort_unstable();
        let mut new_id = filled(ranked.len(), 0u32, WHAT)?;
        let mut by_rank = filled(ranked.len(), 0u32, WHAT)?;
        for (i, &k) in ranked.iter().enumerate() {
            let p = (k & 0xffff_ffff) as u32;
            new_id[of_row[p as usize] as usize] = i as u32;
            by_rank[i] = p;
        }
        drop(ranked);
        for g in of_row.iter_mut() {
            *g = new_id[*g as usize];
        }
        Ok(Groups { of_row, reps: by_rank })
    }

    pub fn len(&self) -> usize {
        self.reps.len()
    }

    /// Rows whose vector is also held by a row of another class (`class(r)`): semantics §1's
    /// contradictions.
    pub fn contradictions(&self, class: impl Fn(usize) -> u32) -> usize {
        // Per group: the class of its representative, whether another class occurs, its size.
        let mut seen: Vec<(u32, bool, usize)> = self.reps.iter().map(|&r| (class(r as usize), false, 0)).collect();
        for (r, &g) in self.of_row.iter().enumerate() {
            let e = &mut seen[g as usize];
            e.1 |= e.0 != class(r);
            e.2 += 1;
        }
        seen.iter().filter(|e| e.1).map(|e| e.2).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain definition, for the tests: a row's group is represented by its identical row
    /// of least (rank, row number), the groups numbered in the order of those.
    fn plain(rows: &[Vec<u32>], rank: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let n = rows.len();
        let rep: Vec<u32> = (0..n)
            .map(|r| (0..n).filter(|&q| rows[q] == rows[r]).min_by_key(|&q| (rank[q], q)).unwrap() as u32)
            .collect();
        let mut reps: Vec<u32> = rep.clone();
        reps.sort_unstable_by_key(|&p| (rank[p as usize], p));
        reps.dedup();
        let of_row = rep.iter().map(|p| reps.iter().position(|x| x == p).unwrap() as u32).collect();
        (of_row, reps)
    }

    #[test]
    fn groups_equal_the_plain_definition_on_random_rows() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for case in 0..200 {
            let n = rng.random_range(0..120);
            let m = rng.random_range(0..5);
            let values = rng.random_range(1..4);
            let rows: Vec<Vec<u32>> = (0..n).map(|_| (0..m).map(|_| rng.random_range(0..values)).collect()).collect();
            // Ranks with ties (least row number breaks them) or a permutation-like spread.
            let spread = if case % 2 == 0 { 5 } else { 1000 };
            let rank: Vec<u32> = (0..n).map(|_| rng.random_range(0..spread)).collect();
            let g = Groups::new(n, m, |r, f| rows[r][f], |r| rank[r]);
            let (of_row, reps) = plain(&rows, &rank);
            assert_eq!(g.of_row, of_row, "case {case}");
            assert_eq!(g.reps, reps, "case {case}");
        }
    }

    /// Groups against the plain definition: same group iff same row; reps by rank.
    #[test]
    fn groups_are_the_identical_rows_numbered_by_rank() {
        let rows: [[u32; 2]; 7] = [[1, 0], [0, 1], [1, 0], [2, 2], [0, 1], [1, 0], [2, 2]];
        let rank = |r: usize| [5u32, 1, 0, 9, 0, 3, 2][r];
        let g = Groups::new(rows.len(), 2, |r, f| rows[r][f], rank);
        for a in 0..rows.len() {
            for b in 0..rows.len() {
                assert_eq!(g.of_row[a] == g.of_row[b], rows[a] == rows[b]);
            }
        }
        // Representatives: least rank in each group, groups in that order.
        assert_eq!(g.reps, vec![2, 4, 6]);
        assert_eq!(g.len(), 3);
        let classes = [0u32, 1, 1, 2, 1, 0, 2];
        assert_eq!(g.contradictions(|r| classes[r]), 3);
    }

    /// A colliding hash never merges vectors: many rows, few features, exact comparison.
    #[test]
    fn every_distinct_vector_is_its_own_group() {
        let n = 4096;
        let g = Groups::new(n, 3, |r, f| ((r >> (4 * f)) & 15) as u32, |r| r as u32);
        assert_eq!(g.len(), n);
        assert_eq!(g.reps, (0..n as u32).collect::<Vec<_>>());
    }
}
