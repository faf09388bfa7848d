//! The near-miss and witness filters of a run on interval features (see the parent module).
//!
//! For a live rule `r` and an interval feature `f` on which `r` is `[lo, hi]` (gap codes), the
//! near-miss negatives of `r` on `f` (covered by `r` but for `f`) have codes outside `[lo, hi]`.
//! Widening `r` to a positive of code `x < lo` brings in exactly those with a code in `[x, lo)`
//! (symmetrically above, and the null ones for a null positive), so with
//! `need = tau - covered(r) + 1` the widening is rejected as soon as `x <= ` the `need`-th largest
//! near-miss code below `lo`: one comparison per feature ([`IvState`]'s `bl` and `bh`). With
//! tau > 0 the sorted near-miss codes are kept, and the count a widening brings in is two binary
//! searches ([`IvFilter::near_extra`]), added to the other features' near-miss counts (near
//! misses of different features are disjoint).
//!
//! A witness negative `n` that `r` does not cover is covered by `generalize(r, p)` on `f` iff
//! `p`'s code lies in a range: anything when `r` covers `n` on `f`; `[0, c_n]` when `c_n < lo`;
//! `[c_n, 2d]` when `c_n > hi`; `[c_n, c_n]` when `r` allows no value (`x is null`); the null
//! code when `n` is null.
//!
//! Invariant: for every live rule `i` and interval feature `j`, `state[i * n + j]` holds the
//! rule's current range and null flag, and its thresholds were computed from the rule's exact
//! near-miss negatives (so a rejection is always proven); a dead rule's state rejects every
//! positive.

use crate::data::interval::Bounds;
use crate::data::rule::Rule;
use crate::data::schema::Schema;
use crate::learn::training::TrainingSet;

const NULL_OK: u8 = 1;
const NULL_BLOCKED: u8 = 2;

/// One rule's constraint on one interval feature with its rejection thresholds: a non-null code
/// `x` outside `[lo, hi]` is rejected iff `x < bl || x >= bh`, a null one iff `NULL_BLOCKED`.
#[derive(Clone, Copy, Debug)]
struct IvState {
    lo: u32,
    hi: u32,
    bl: u32,
    bh: u32,
    null: u8,
}

/// What [`IvFilter::check`] found for a rule and a positive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Check {
    /// The rule covers the positive on every interval feature.
    Covers,
    /// It does not, and no threshold rejects the widening.
    Candidate,
    /// A near-miss threshold proves the widening covers too many negatives.
    Blocked,
}

/// The interval features' part of a run's state (see the module docs).
pub(super) struct IvFilter {
    n: usize,
    sizes: Vec<u32>,
    null_codes: Vec<u32>,
    state: Vec<IvState>,
    /// tau > 0: per rule, the sorted near-miss codes of each feature in turn, feature `j`'s
    /// ending at `near_ends[i * n + j]`; `null_near[i * n + j]` counts the null ones.
    near: Vec<Vec<u32>>,
    near_ends: Vec<u32>,
    null_near: Vec<u32>,
    /// Per witness slot and feature, the range of positive codes that covers it.
    wit: Vec<[u32; 2]>,
    scratch: Vec<Vec<u32>>,
    null_scratch: Vec<u32>,
    spare_near: Vec<Vec<u32>>,
}

const ANY: [u32; 2] = [0, u32::MAX];

impl IvFilter {
    pub fn new(schema: &Schema) -> Self {
        let ivs = schema.intervals();
        Self {
            n: ivs.len(),
            sizes: ivs.iter().map(|l| l.n_values).collect(),
            null_codes: ivs
                .iter()
                .map(|l| crate::data::interval::null_code(l.n_values))
                .collect(),
            state: Vec::new(),
            near: Vec::new(),
            near_ends: Vec::new(),
            null_near: Vec::new(),
            wit: Vec::new(),
            scratch: vec![Vec::new(); ivs.len()],
            null_scratch: vec![0; ivs.len()],
            spare_near: Vec::new(),
        }
    }

    pub fn reset(&mut self) {
        self.spare_near.append(&mut self.near);
        self.state.clear();
        self.near_ends.clear();
        self.null_near.clear();
        self.wit.clear();
    }

    /// Registers a new rule (its thresholds reject nothing until [`Self::finish_refresh`]); a
    /// dead rule rejects every positive.
    pub fn push_rule(&mut self, schema: &Schema, rule: &Rule, dead: bool, witnesses: usize) {
        for j in 0..self.n {
            let s = if dead {
                IvState {
                    lo: 1,
                    hi: 0,
                    bl: u32::MAX,
                    bh: 0,
                    null: NULL_BLOCKED,
                }
            } else {
                let b = rule.bounds(schema, j);
                IvState {
                    lo: b.lo,
                    hi: b.hi,
                    bl: 0,
                    bh: u32::MAX,
                    null: if b.null { NULL_OK } else { 0 },
                }
            };
            self.state.push(s);
        }
        let mut near = self.spare_near.pop().unwrap_or_default();
        near.clear();
        self.near.push(near);
        self.near_ends.extend(std::iter::repeat_n(0, self.n));
        self.null_near.extend(std::iter::repeat_n(0, self.n));
        self.wit
            .extend(std::iter::repeat_n(ANY, witnesses * self.n));
    }

    /// Takes rule `i`'s ranges after a generalization (thresholds follow in the refresh).
    pub fn set_bounds(&mut self, schema: &Schema, i: usize, rule: &Rule) {
        for j in 0..self.n {
            let b = rule.bounds(schema, j);
            let s = &mut self.state[i * self.n + j];
            s.lo = b.lo;
            s.hi = b.hi;
            s.null = if b.null { NULL_OK } else { 0 };
        }
    }

    /// Whether rule `i` covers the positive with interval codes `pc`, or may absorb it, or is
    /// proven unable to.
    #[inline]
    pub fn check(&self, i: usize, pc: &[u32]) -> Check {
        let st = &self.state[i * self.n..(i + 1) * self.n];
        let mut covers = true;
        for ((s, &c), &nc) in st.iter().zip(pc).zip(&self.null_codes) {
            if s.lo <= c && c <= s.hi {
                continue;
            }
            if c == nc {
                if s.null & NULL_OK != 0 {
                    continue;
                }
                if s.null & NULL_BLOCKED != 0 {
                    return Check::Blocked;
                }
            } else if c < s.bl || c >= s.bh {
                return Check::Blocked;
            }
            covers = false;
        }
        if covers {
            Check::Covers
        } else {
            Check::Candidate
        }
    }

    /// tau > 0: the number of near-miss negatives of rule `i` that widening it to the positive
    /// with interval codes `pc` brings in, over the interval features.
    pub fn near_extra(&self, i: usize, pc: &[u32]) -> u32 {
        let mut extra = 0;
        let mut start = 0usize;
        for (j, &c) in pc.iter().enumerate() {
            let k = i * self.n + j;
            let end = self.near_ends[k] as usize;
            let s = &self.state[k];
            if !(s.lo <= c && c <= s.hi) {
                if c == self.null_codes[j] {
                    if s.null & NULL_OK == 0 {
                        extra += self.null_near[k];
                    }
                } else {
                    let codes = &self.near[i][start..end];
                    let (a, b) = Bounds {
                        lo: s.lo,
                        hi: s.hi,
                        null: false,
                    }
                    .widened_range(c);
                    let n = codes.partition_point(|&x| x <= b) - codes.partition_point(|&x| x < a);
                    extra += n as u32;
                }
            }
            start = end;
        }
        extra
    }

    /// Records near-miss negatives of the rule being refreshed: the set bits of `near` in
    /// negatives' word `w` fail only interval feature `j`.
    #[inline]
    pub fn collect(&mut self, ts: &TrainingSet, j: usize, mut near: u64, w: usize) {
        let codes = ts.neg_interval(j);
        let nc = self.null_codes[j];
        while near != 0 {
            let c = codes[w * 64 + near.trailing_zeros() as usize];
            near &= near - 1;
            if c == nc {
                self.null_scratch[j] += 1;
            } else {
                self.scratch[j].push(c);
            }
        }
    }

    /// Turns the near-miss negatives collected since the last refresh into rule `i`'s
    /// thresholds (and, with tau > 0, its sorted near-miss codes).
    pub fn finish_refresh(&mut self, i: usize, covered: u32, tau: u32) {
        let need = (tau - covered + 1) as usize;
        if tau > 0 {
            self.near[i].clear();
        }
        for j in 0..self.n {
            let k = i * self.n + j;
            let codes = &mut self.scratch[j];
            let nulls = std::mem::take(&mut self.null_scratch[j]);
            let s = &mut self.state[k];
            if s.null & NULL_OK == 0 && nulls as usize >= need {
                s.null |= NULL_BLOCKED;
            } else {
                s.null &= !NULL_BLOCKED;
            }
            let (mut bl, mut bh) = (0, u32::MAX);
            if s.lo > s.hi {
                // `x is null`: a widening brings in the near misses of one value (no threshold).
            } else if tau == 0 {
                for &c in codes.iter() {
                    if c < s.lo {
                        bl = bl.max(c + 1);
                    } else {
                        bh = bh.min(c);
                    }
                }
            } else {
                codes.sort_unstable();
                let below = codes.partition_point(|&c| c < s.lo);
                if below >= need {
                    bl = codes[below - need] + 1;
                }
                if codes.len() - below >= need {
                    bh = codes[below + need - 1];
                }
            }
            s.bl = bl;
            s.bh = bh;
            if tau > 0 {
                if s.lo > s.hi {
                    codes.sort_unstable();
                }
                self.near[i].extend_from_slice(codes);
                self.near_ends[k] = self.near[i].len() as u32;
                self.null_near[k] = nulls;
            }
            codes.clear();
        }
    }

    /// Sets the ranges of witness slot `w` of rule `i` for negative `neg` (an index into the
    /// negatives); true iff the rule fails `neg` on some interval feature.
    pub fn set_witness(&mut self, ts: &TrainingSet, i: usize, w: usize, neg: usize) -> bool {
        let mut fails = false;
        for j in 0..self.n {
            let s = self.state[i * self.n + j];
            let c = ts.neg_interval(j)[neg];
            let nc = self.null_codes[j];
            let covered = (s.lo <= c && c <= s.hi) || (c == nc && s.null & NULL_OK != 0);
            self.wit[w * self.n + j] = if covered {
                ANY
            } else {
                fails = true;
                if c == nc || s.lo > s.hi {
                    [c, c]
                } else if c < s.lo {
                    [0, c]
                } else {
                    [c, 2 * self.sizes[j]]
                }
            };
        }
        fails
    }

    /// True iff the positive with interval codes `pc` satisfies witness slot `w`'s ranges.
    #[inline]
    pub fn witness_covers(&self, w: usize, pc: &[u32]) -> bool {
        self.wit[w * self.n..(w + 1) * self.n]
            .iter()
            .zip(pc)
            .all(|(r, &c)| r[0] <= c && c <= r[1])
    }
}
