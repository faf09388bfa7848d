//! A model's voting rules compiled for prediction: per row, the set of rules that cover it is
//! an AND of a few precomputed rule bitsets, most of it skipped.
//!
//! The features the voting rules constrain are packed into *groups* of a few features whose
//! slot counts multiply to at most [`MAX_COMBOS`] (a wider feature is a group of its own). A row's
//! codes on a group's features make one *combination*, and the group's table holds, for every
//! combination, the bitset of the rules that allow it on all of the group's features. The rules
//! covering a row are the AND of its combinations' bitsets, one per group: for connect-4's 42
//! three-valued features, 14 ANDs instead of walking every rule's 35 terms.
//!
//! The bitsets are cut into chunks of [`CHUNK_WORDS`] words, and rules are laid out so that a
//! chunk holds similar rules (sorted by their constraints, group by group). Each chunk ANDs its
//! groups most selective first (the groups whose combinations it allows least) and stops as
//! soon as the chunk is zero, so a row reads a few words of most chunks.
//!
//! Invariant: for every row, the rules reported are exactly the voting rules `k < n_kept` for
//! which `Rule::covers_row` holds, each once.

use crate::bitset::{extract, for_each_one, words_for, WORD_BITS};
use crate::data::Columns;
use crate::model::{Method, RuleModel};
use rayon::prelude::*;

/// Most combinations per feature group (a group's table has this many rule bitsets at most,
/// unless one feature alone has more slots).
pub const MAX_COMBOS: usize = 256;

/// Words per chunk of a rule bitset (the unit of early exit).
pub const CHUNK_WORDS: usize = 8;

/// Rows per parallel task.
const BLOCK_ROWS: usize = 1 << 12;

/// Features evaluated together: combination = sum of code x stride.
#[derive(Clone, Debug)]
struct Group {
    features: Vec<usize>,
    strides: Vec<u32>,
    n_combos: usize,
    /// Start of the group's table: combination `c`'s bitset is `n_words` words at
    /// `table[offset + c * n_words]`.
    offset: usize,
}

/// The voting rules of a [`RuleModel`] compiled for prediction (see the module docs).
#[derive(Clone, Debug)]
pub struct Predictor {
    method: Method,
    threshold: u64,
    /// The rule at each bit position of the bitsets.
    rule_at: Vec<u32>,
    weights: Vec<u32>,
    /// Words of a rule bitset (a multiple of [`CHUNK_WORDS`]; padding bits are zero).
    n_words: usize,
    groups: Vec<Group>,
    table: Vec<u64>,
    /// The groups in evaluation order.
    order: Vec<u32>,
    /// Every voting rule (the covered set when no feature is constrained).
    all_rules: Vec<u64>,
    /// BO: for each rule, the runs that contain it (CSR over `rule_runs`).
    rule_run_offsets: Vec<u32>,
    rule_runs: Vec<u32>,
    n_runs: usize,
}

impl Predictor {
    /// Compiles the voting rules of `model`. `sample` (rows like those to predict) only tunes
    /// the evaluation order; predictions never depend on it.
    pub fn new(model: &RuleModel, sample: Option<&Columns>) -> Self {
        let schema = &model.schema;
        let n_rules = model.n_kept;
        let rules = &model.rules[..n_rules];
        let n_words = words_for(n_rules).div_ceil(CHUNK_WORDS) * CHUNK_WORDS;
        // Features some rule constrains, packed in order into groups.
        let constrained: Vec<usize> = (0..schema.n_features())
            .filter(|&f| rules.iter().any(|r| !r.is_free(schema, f)))
            .collect();
        let mut groups: Vec<Group> = Vec::new();
        let mut combos = usize::MAX;
        for &f in &constrained {
            let width = schema.slots(f).len();
            if groups.is_empty() || combos.saturating_mul(width) > MAX_COMBOS {
                groups.push(Group {
                    features: Vec::new(),
                    strides: Vec::new(),
                    n_combos: 0,
                    offset: 0,
                });
                combos = 1;
            }
            let g = groups.last_mut().expect("a group");
            g.features.push(f);
            g.strides.push(combos as u32);
            combos *= width;
        }
        let widths = |g: &Group| -> Vec<usize> {
            g.features.iter().map(|&f| schema.slots(f).len()).collect()
        };
        for g in &mut groups {
            g.n_combos = widths(g).iter().product();
        }
        // Group order: from a first layout (rules in id order), the groups that leave the
        // fewest (row, rule) pairs of the sample alive first, else the sparsest tables.
        let identity: Vec<u32> = (0..n_rules as u32).collect();
        let table = build_table(model, &identity, &mut groups, n_words);
        let order = match sample {
            Some(data) if data.n_rows() > 0 => greedy_order(&groups, &table, n_words, data),
            _ => density_order(&groups, &table, n_words),
        };
        // Rule layout: sorted by their allowed slots on the groups' features, in group order,
        // so that a chunk holds rules that die together.
        let keys: Vec<Vec<u64>> = rules
            .iter()
            .map(|r| {
                order
                    .iter()
                    .flat_map(|&g| groups[g as usize].features.iter())
                    .map(|&f| {
                        let s = schema.slots(f);
                        extract(r.allowed(), s.start, s.len().min(WORD_BITS))
                    })
                    .collect()
            })
            .collect();
        let mut rule_at = identity;
        rule_at.sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]).then(a.cmp(&b)));
        let table = build_table(model, &rule_at, &mut groups, n_words);
        let mut all_rules = vec![0u64; n_words];
        (0..n_rules).for_each(|p| all_rules[p / WORD_BITS] |= 1u64 << (p % WORD_BITS));
        // BO: the runs of each rule.
        let mut rule_run_offsets = vec![0u32; n_rules + 1];
        let mut rule_runs = Vec::new();
        if model.method == Method::Bo {
            let mut pairs: Vec<(u32, u32)> = model
                .runs
                .iter()
                .enumerate()
                .flat_map(|(t, run)| run.iter().map(move |&i| (i, t as u32)))
                .filter(|&(i, _)| (i as usize) < n_rules)
                .collect();
            pairs.sort_unstable();
            pairs.dedup();
            for &(i, _) in &pairs {
                rule_run_offsets[i as usize + 1] += 1;
            }
            for i in 0..n_rules {
                rule_run_offsets[i + 1] += rule_run_offsets[i];
            }
            rule_runs = pairs.into_iter().map(|(_, t)| t).collect();
        }
        Self {
            method: model.method,
            threshold: model.threshold(),
            rule_at,
            weights: model.weights[..n_rules].to_vec(),
            n_words,
            groups,
            table,
            order,
            all_rules,
            rule_run_offsets,
            rule_runs,
            n_runs: model.runs.len(),
        }
    }

    /// Appends to `out` the positions of the rules covering the row whose per-group table
    /// offsets (combination included) are `offs`; `acc` and `live` are scratch space of
    /// `n_words` words and `n_words / CHUNK_WORDS` entries.
    #[inline]
    fn covering(&self, offs: &[usize], acc: &mut [u64], live: &mut [u32], out: &mut Vec<u32>) {
        let Some((&first, rest)) = self.order.split_first() else {
            for_each_one(&self.all_rules, |p| out.push(p as u32));
            return;
        };
        let nw = self.n_words;
        acc.copy_from_slice(&self.table[offs[first as usize]..][..nw]);
        let mut n_live = 0;
        for (c, chunk) in acc.chunks_exact(CHUNK_WORDS).enumerate() {
            live[n_live] = c as u32;
            n_live += chunk.iter().any(|&w| w != 0) as usize;
        }
        for &g in rest {
            if n_live == 0 {
                return;
            }
            let t = &self.table[offs[g as usize]..][..nw];
            let mut kept = 0;
            for j in 0..n_live {
                let c = live[j] as usize;
                let a = &mut acc[c * CHUNK_WORDS..][..CHUNK_WORDS];
                a.iter_mut().zip(&t[c * CHUNK_WORDS..][..CHUNK_WORDS]).for_each(|(x, &y)| *x &= y);
                live[kept] = c as u32;
                kept += a.iter().any(|&w| w != 0) as usize;
            }
            n_live = kept;
        }
        for &c in &live[..n_live] {
            let base = c as usize * CHUNK_WORDS;
            for_each_one(&acc[base..base + CHUNK_WORDS], |b| out.push((base * WORD_BITS + b) as u32));
        }
    }

    /// Calls `per_row(state, row offset in the block, ids of the covering rules)` for every
    /// row of each block (ids in no particular order), blocks in parallel; returns the blocks'
    /// states in row order.
    fn map_blocks<S: Send>(
        &self,
        data: &Columns,
        first_only: bool,
        init: impl Fn(usize) -> S + Sync,
        per_row: impl Fn(&mut S, usize, &[u32]) + Sync,
    ) -> Vec<S> {
        let n = data.n_rows();
        let starts: Vec<usize> = (0..n).step_by(BLOCK_ROWS).collect();
        let n_groups = self.groups.len();
        starts
            .par_iter()
            .map(|&s| {
                let rows = (s + BLOCK_ROWS).min(n) - s;
                // Each row's table offsets, group-major.
                let mut offs = vec![0usize; n_groups * rows];
                for (g, group) in self.groups.iter().enumerate() {
                    let out = &mut offs[g * rows..(g + 1) * rows];
                    let mut combo = vec![0u32; rows];
                    for (&f, &stride) in group.features.iter().zip(&group.strides) {
                        let col = &data.column(f)[s..s + rows];
                        combo.iter_mut().zip(col).for_each(|(o, &c)| *o += c * stride);
                    }
                    out.iter_mut()
                        .zip(&combo)
                        .for_each(|(o, &c)| *o = group.offset + c as usize * self.n_words);
                }
                let mut state = init(rows);
                let mut row_offs = vec![0usize; n_groups];
                let mut ids = Vec::new();
                let mut acc = vec![0u64; self.n_words];
                let mut live = vec![0u32; self.n_words / CHUNK_WORDS];
                for i in 0..rows {
                    for (g, o) in row_offs.iter_mut().enumerate() {
                        *o = offs[g * rows + i];
                    }
                    ids.clear();
                    self.covering(&row_offs, &mut acc, &mut live, &mut ids);
                    let _ = first_only;
                    ids.iter_mut().for_each(|p| *p = self.rule_at[*p as usize]);
                    per_row(&mut state, i, &ids);
                }
                state
            })
            .collect()
    }

    /// The integer score of every row (see [`RuleModel`]'s module docs).
    pub fn scores(&self, data: &Columns) -> Vec<u32> {
        let parts = match self.method {
            Method::FindRs => self.map_blocks(
                data,
                true,
                |rows| vec![0u32; rows],
                |scores, i, ids| scores[i] = !ids.is_empty() as u32,
            ),
            Method::Bp => self.map_blocks(
                data,
                false,
                |rows| vec![0u32; rows],
                |scores, i, ids| scores[i] = ids.iter().map(|&k| self.weights[k as usize]).sum(),
            ),
            Method::Bo => self
                .map_blocks(
                    data,
                    false,
                    |rows| (vec![0u32; rows], vec![0u64; words_for(self.n_runs)]),
                    |(scores, votes), i, ids| {
                        // The runs with a covering rule, each counted once.
                        votes.iter_mut().for_each(|v| *v = 0);
                        for &k in ids {
                            let k = k as usize;
                            let (a, b) = (self.rule_run_offsets[k], self.rule_run_offsets[k + 1]);
                            for &t in &self.rule_runs[a as usize..b as usize] {
                                votes[t as usize / WORD_BITS] |= 1u64 << (t as usize % WORD_BITS);
                            }
                        }
                        scores[i] = votes.iter().map(|v| v.count_ones()).sum();
                    },
                )
                .into_iter()
                .map(|(s, _)| s)
                .collect(),
        };
        parts.concat()
    }

    /// Positive iff the score is above the threshold.
    pub fn predict(&self, data: &Columns) -> Vec<bool> {
        self.scores(data)
            .into_iter()
            .map(|s| s as u64 > self.threshold)
            .collect()
    }

    /// For every row, the ids of the voting rules that cover it, in increasing id order, as
    /// CSR: row `r`'s ids are `ids[offsets[r]..offsets[r + 1]]`.
    pub fn fired(&self, data: &Columns) -> (Vec<u64>, Vec<u32>) {
        let parts = self.map_blocks(
            data,
            false,
            |rows| (Vec::with_capacity(rows), Vec::new()),
            |(counts, all): &mut (Vec<u32>, Vec<u32>), _, ids| {
                let start = all.len();
                all.extend_from_slice(ids);
                all[start..].sort_unstable();
                counts.push(ids.len() as u32);
            },
        );
        let mut offsets = Vec::with_capacity(data.n_rows() + 1);
        let mut all = Vec::new();
        offsets.push(0u64);
        for (counts, ids) in parts {
            let mut at = *offsets.last().expect("offsets start at 0");
            for c in counts {
                at += c as u64;
                offsets.push(at);
            }
            all.extend(ids);
        }
        (offsets, all)
    }
}

/// The groups' tables for the rule layout `rule_at` (position -> rule id); sets each group's
/// offset.
fn build_table(model: &RuleModel, rule_at: &[u32], groups: &mut [Group], n_words: usize) -> Vec<u64> {
    let schema = &model.schema;
    let n_slots = schema.n_slots();
    // For every slot, the rule positions that allow it.
    let mut by_slot = vec![0u64; n_slots * n_words];
    for (p, &k) in rule_at.iter().enumerate() {
        for_each_one(model.rules[k as usize].allowed(), |s| {
            if s < n_slots {
                by_slot[s * n_words + p / WORD_BITS] |= 1u64 << (p % WORD_BITS);
            }
        });
    }
    let mut all = vec![0u64; n_words];
    (0..rule_at.len()).for_each(|p| all[p / WORD_BITS] |= 1u64 << (p % WORD_BITS));
    // Each combination's bitset: the AND of its features' slot bitsets.
    let mut table = Vec::with_capacity(groups.iter().map(|g| g.n_combos).sum::<usize>() * n_words);
    for g in groups.iter_mut() {
        g.offset = table.len();
        for c in 0..g.n_combos {
            let start = table.len();
            table.extend_from_slice(&all);
            let mut rest = c;
            for &f in &g.features {
                let width = schema.slots(f).len();
                let slot = schema.slot(f, (rest % width) as u32);
                rest /= width;
                let row = &by_slot[slot * n_words..(slot + 1) * n_words];
                table[start..].iter_mut().zip(row).for_each(|(a, &b)| *a &= b);
            }
        }
    }
    table
}

/// Groups ordered by the density of their tables, sparsest first.
fn density_order(groups: &[Group], table: &[u64], n_words: usize) -> Vec<u32> {
    let mut density: Vec<(u64, u32)> = groups
        .iter()
        .enumerate()
        .map(|(gi, g)| {
            let ones: u64 = table[g.offset..g.offset + g.n_combos * n_words]
                .iter()
                .map(|w| w.count_ones() as u64)
                .sum();
            (ones * 1024 / g.n_combos as u64, gi as u32)
        })
        .collect();
    density.sort_unstable();
    density.into_iter().map(|(_, g)| g).collect()
}

/// Rows of the sample used to choose the group order.
const SAMPLE_ROWS: usize = 256;

/// Groups in greedy order on a sample of rows: each next group is the one that leaves the
/// fewest (row, rule) pairs alive, given the groups before it.
fn greedy_order(groups: &[Group], table: &[u64], n_words: usize, data: &Columns) -> Vec<u32> {
    let n = data.n_rows();
    let step = n.div_ceil(SAMPLE_ROWS).max(1);
    let rows: Vec<usize> = (0..n).step_by(step).collect();
    // Each sample row's table offset per group.
    let offs: Vec<Vec<usize>> = rows
        .iter()
        .map(|&r| {
            groups
                .iter()
                .map(|g| {
                    let mut combo = 0usize;
                    for (&f, &stride) in g.features.iter().zip(&g.strides) {
                        combo += data.code(r, f) as usize * stride as usize;
                    }
                    g.offset + combo * n_words
                })
                .collect()
        })
        .collect();
    let mut alive: Vec<Vec<u64>> = rows.iter().map(|_| vec![!0u64; n_words]).collect();
    let mut left: Vec<u32> = (0..groups.len() as u32).collect();
    let mut order = Vec::with_capacity(groups.len());
    while !left.is_empty() {
        let survivors = |g: u32| -> u64 {
            alive
                .iter()
                .zip(&offs)
                .map(|(a, o)| {
                    let t = &table[o[g as usize]..o[g as usize] + n_words];
                    a.iter().zip(t).map(|(&x, &y)| (x & y).count_ones() as u64).sum::<u64>()
                })
                .sum()
        };
        let (i, &best) = left
            .iter()
            .enumerate()
            .min_by_key(|&(_, &g)| (survivors(g), g))
            .expect("a group is left");
        for (a, o) in alive.iter_mut().zip(&offs) {
            let t = &table[o[best as usize]..o[best as usize] + n_words];
            a.iter_mut().zip(t).for_each(|(x, &y)| *x &= y);
        }
        order.push(best);
        left.remove(i);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Rule;
    use crate::schema::{ConstraintKind, Schema};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random rules over a random schema, with prefixes shared on purpose, and random rows
    /// (unseen codes included): every word's walk reports exactly the covering rules.
    #[test]
    fn walk_reports_exactly_the_covering_rules() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for case in 0..60 {
            let kind = if case % 2 == 0 {
                ConstraintKind::AttributeValue
            } else {
                ConstraintKind::OneHot
            };
            let n_f = rng.random_range(1..6);
            let domains: Vec<u32> = (0..n_f)
                .map(|_| if rng.random_bool(0.1) { 70 } else { rng.random_range(1..5) })
                .collect();
            let schema = Schema::uniform(domains.clone(), kind).unwrap();
            let n_rows = rng.random_range(1..200);
            let cols: Vec<Vec<u32>> = domains
                .iter()
                .map(|&d| (0..n_rows).map(|_| rng.random_range(0..=d)).collect())
                .collect();
            let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let mut rules = Vec::new();
            for _ in 0..rng.random_range(0..25) {
                let mut cons = Vec::new();
                for (f, &d) in domains.iter().enumerate() {
                    if rng.random_bool(0.5) {
                        continue;
                    }
                    let mut vals: Vec<u32> = (0..d).filter(|_| rng.random_bool(0.5)).collect();
                    if vals.is_empty() || (kind == ConstraintKind::AttributeValue && vals.len() > 1) {
                        vals = vec![rng.random_range(0..d)];
                    }
                    if vals.len() as u32 == d {
                        continue;
                    }
                    cons.push((f, vals));
                }
                let rule = Rule::from_constraints(&schema, &cons).unwrap();
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
            let n = rules.len();
            let model = RuleModel {
                schema: schema.clone(),
                method: Method::Bp,
                weights: (0..n as u32).map(|i| i % 3 + 1).collect(),
                rules,
                runs: Vec::new(),
                n_runs: 3,
                n_kept: n,
                total_weight: 3 * n as u64,
            };
            let p = Predictor::new(&model, if case % 3 == 0 { None } else { Some(&data) });
            let (offsets, ids) = p.fired(&data);
            let scores = p.scores(&data);
            for row in 0..n_rows {
                let codes = data.row(row);
                let want: Vec<u32> = (0..n as u32)
                    .filter(|&i| model.rules[i as usize].covers_row(&schema, &codes))
                    .collect();
                let got = &ids[offsets[row] as usize..offsets[row + 1] as usize];
                assert_eq!(got, want.as_slice(), "case {case} row {row}");
                let score: u32 = want.iter().map(|&i| model.weights[i as usize]).sum();
                assert_eq!(scores[row], score, "case {case} row {row}");
            }
        }
    }
}
