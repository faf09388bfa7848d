//! Rows grouped by their feature vector: the one place that finds identical rows, for the
//! contradiction counts (docs/semantics.md §1) and the distinct-vector view of the training rows
//! (`distinct`, docs/semantics.md §9.1).
//!
//! Invariant: two rows get the same group iff their codes are equal in every feature, and groups
//! are numbered in the order of their representatives, each group's row of least `rank` (then
//! least row number). Rows are hashed column by column, sorted by hash, and compared exactly
//! within a hash, so a hash collision never merges different vectors.

use crate::error::{filled, FindRsError, Result};

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

    /// [`new`](Self::new), or [`OutOfMemory`](crate::error::FindRsError::OutOfMemory) when its
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
        let mut order = filled(n, 0u32, WHAT)?;
        for (r, o) in order.iter_mut().enumerate() {
            *o = r as u32;
        }
        order.sort_unstable_by_key(|&r| (hash[r as usize], rank(r as usize), r));
        let same = |a: usize, b: usize| (0..m).all(|f| code(a, f) == code(b, f));
        let mut of_row = filled(n, 0u32, WHAT)?;
        let mut reps: Vec<u32> = Vec::new();
        let mut start = 0;
        while start < n {
            let h = hash[order[start] as usize];
            let end = start + order[start..].iter().take_while(|&&r| hash[r as usize] == h).count();
            let first = reps.len();
            // Within one hash, rows by rank: the first row of each vector represents it.
            for &r in &order[start..end] {
                let g = match reps[first..].iter().position(|&p| same(p as usize, r as usize)) {
                    Some(k) => first + k,
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
        // Renumber the groups by their representatives' rank.
        let mut by_rank = filled(reps.len(), 0u32, WHAT)?;
        for (g, b) in by_rank.iter_mut().enumerate() {
            *b = g as u32;
        }
        by_rank.sort_unstable_by_key(|&g| (rank(reps[g as usize] as usize), reps[g as usize]));
        let mut new_id = filled(reps.len(), 0u32, WHAT)?;
        for (i, &g) in by_rank.iter().enumerate() {
            new_id[g as usize] = i as u32;
        }
        for g in of_row.iter_mut() {
            *g = new_id[*g as usize];
        }
        for g in by_rank.iter_mut() {
            *g = reps[*g as usize];
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
