//! Rules compiled for prediction: per row, the rules that cover it come from a bucket lookup
//! and a few ANDs of precomputed rule bitsets, most of them skipped; the row's votes are counted
//! from them as a [`Tally`] says.
//!
//! The layout ([`predict_plan`](crate::predict::predict_plan)) splits the features the rules constrain
//! into a *lead* and *groups*. A row's codes on the lead make one combination, whose
//! *bucket* lists the chunks of the rule bitset holding rules that allow it: only those are
//! candidates. A row's codes on a group make one combination too, and the group's table holds,
//! for each combination, the bitset of the rules allowing it. The candidates are ANDed with
//! the row's bitset of each group in turn, chunk by chunk ([`CHUNK_WORDS`] words), and a chunk
//! that becomes zero is dropped. On connect-4 (42 three-valued features, rules of ~35 terms) a
//! row starts from a few chunks instead of the whole rule set, and goes through 9 groups
//! instead of 35 terms per rule.
//!
//! Interval features are first recoded to cells between the rules' endpoints
//! ([`interval_cells`](crate::predict::interval_cells)), which makes them small categorical features.
//!
//! The predictor knows rules and how to count their votes, not models: the
//! [`model`](crate::predict::model) compiles its voting rules into one and compares the votes with its
//! threshold.
//!
//! Invariant: for every row, the rules reported are exactly the rules given to
//! [`Predictor::new`] for which `Rule::covers_row` holds, each once, and the votes are the
//! tally of exactly those rules.

use crate::data::bitset::{for_each_one, words_for, WORD_BITS};
use crate::data::columns::Columns;
use crate::predict::interval_cells::Cells;
use crate::predict::predict_plan::{first_bits, plan, rules_by_slot, Group};
use crate::data::rule::Rule;
use crate::data::schema::Schema;
use rayon::prelude::*;

/// Words per chunk of a rule bitset (the unit of skipping).
pub const CHUNK_WORDS: usize = 8;

/// Rows per parallel task.
const BLOCK_ROWS: usize = 1 << 12;

/// How a row's votes are counted from the rules that cover it (docs/semantics.md §5, §6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tally {
    /// 1 if some rule covers the row, else 0 (FIND-RS).
    Any,
    /// The sum of the covering rules' weights, one weight per rule (BP).
    Weights(Vec<u32>),
    /// The number of runs of which some rule covers the row (BO): `runs[t]` lists the rules
    /// (indices into the predictor's rules; others are ignored) of run `t`.
    Runs(Vec<Vec<u32>>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Count {
    Any,
    Weights,
    Runs,
}

/// Rules compiled for prediction (see the module docs).
#[derive(Clone, Debug)]
pub struct Predictor {
    /// The rule at each bit position of the bitsets.
    rule_at: Vec<u32>,
    /// Which [`Tally`] counts the votes (its data is below).
    count: Count,
    /// Per rule: its weight ([`Tally::Weights`]), else empty.
    weights: Vec<u32>,
    /// Words of a rule bitset (a multiple of [`CHUNK_WORDS`]; padding bits are zero).
    n_words: usize,
    lead: Group,
    /// Bucket of lead combination `c`: entries `bucket_offsets[c]..bucket_offsets[c + 1]`,
    /// each a chunk index and that chunk's bits ([`CHUNK_WORDS`] words in `bucket_bits`).
    bucket_offsets: Vec<u32>,
    bucket_chunks: Vec<u32>,
    bucket_bits: Vec<u64>,
    /// In evaluation order; group `g`'s combination `c` has its bitset at
    /// `table[table_offsets[g] + c * n_words..][..n_words]`.
    groups: Vec<Group>,
    table_offsets: Vec<usize>,
    table: Vec<u64>,
    /// BO: for each rule, the runs that contain it (CSR over `rule_runs`).
    rule_run_offsets: Vec<u32>,
    rule_runs: Vec<u32>,
    n_runs: usize,
    /// With interval features: their recoding to cells (the layout is over the recoded rows).
    cells: Option<Cells>,
}

impl Predictor {
    /// Compiles `rules` (of `schema`) with the way their votes are counted. `sample` (rows like
    /// those to predict) only tunes the layout; predictions never depend on it.
    pub fn new(schema: &Schema, rules: &[Rule], tally: &Tally, sample: Option<&Columns>) -> Self {
        if !schema.has_intervals() {
            return Self::compile(schema, rules, tally, sample);
        }
        let (cells, derived, rules) = Cells::derive(schema, rules);
        let recoded = sample.map(|d| cells.recode(d, 0, d.n_rows()));
        let sample = sample
            .zip(recoded.as_ref())
            .map(|(d, r)| Cells::columns(d, r, 0, d.n_rows()));
        let mut p = Self::compile(&derived, &rules, tally, sample.as_ref());
        p.cells = Some(cells);
        p
    }

    fn compile(schema: &Schema, rules: &[Rule], tally: &Tally, sample: Option<&Columns>) -> Self {
        let n_rules = rules.len();
        let n_words = words_for(n_rules).div_ceil(CHUNK_WORDS) * CHUNK_WORDS;
        let plan = plan(schema, rules, sample);
        // For every slot, the rule positions that allow it.
        let by_slot = rules_by_slot(schema, rules, &plan.rule_at, n_words);
        let all = first_bits(n_rules, n_words);
        // Each group's table: the AND of its features' slot bitsets for every combination.
        let mut table_offsets = Vec::with_capacity(plan.groups.len());
        let mut table =
            Vec::with_capacity(plan.groups.iter().map(|g| g.n_combos).sum::<usize>() * n_words);
        for g in &plan.groups {
            table_offsets.push(table.len());
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
        // Buckets: each rule position under every lead combination it allows, then per
        // combination the chunks those positions fall in. The positions are visited in
        // increasing order, so a counting sort by combination lists each combination's
        // positions in increasing order (no comparison sort: with few rules the lead may have
        // 2^16 combinations and as many entries, and a sort dominated compiling a small model).
        let n_combos = plan.lead.n_combos;
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (p, &k) in plan.rule_at.iter().enumerate() {
            plan.lead
                .for_each_allowed_combo(schema, &rules[k as usize], |c| pairs.push((c, p as u32)));
        }
        let mut combo_start = vec![0usize; n_combos + 1];
        for &(c, _) in &pairs {
            combo_start[c as usize + 1] += 1;
        }
        for c in 0..n_combos {
            combo_start[c + 1] += combo_start[c];
        }
        let mut positions = vec![0u32; pairs.len()];
        let mut next = combo_start.clone();
        for &(c, p) in &pairs {
            positions[next[c as usize]] = p;
            next[c as usize] += 1;
        }
        let mut bucket_offsets = Vec::with_capacity(n_combos + 1);
        bucket_offsets.push(0u32);
        let mut bucket_chunks = Vec::new();
        let mut bucket_bits = Vec::new();
        for c in 0..n_combos {
            let mut chunk = usize::MAX;
            for &q in &positions[combo_start[c]..combo_start[c + 1]] {
                let q = q as usize;
                if q / (CHUNK_WORDS * WORD_BITS) != chunk {
                    chunk = q / (CHUNK_WORDS * WORD_BITS);
                    bucket_bits.extend_from_slice(&[0u64; CHUNK_WORDS]);
                    bucket_chunks.push(chunk as u32);
                }
                let start = bucket_bits.len() - CHUNK_WORDS;
                bucket_bits[start + q / WORD_BITS - chunk * CHUNK_WORDS] |= 1u64 << (q % WORD_BITS);
            }
            bucket_offsets.push(bucket_chunks.len() as u32);
        }
        // BO: the runs of each rule.
        let mut rule_run_offsets = vec![0u32; n_rules + 1];
        let mut rule_runs = Vec::new();
        let mut n_runs = 0;
        if let Tally::Runs(runs) = tally {
            n_runs = runs.len();
            let mut pairs: Vec<(u32, u32)> = runs
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
        let weights = match tally {
            Tally::Weights(w) => {
                assert_eq!(w.len(), n_rules, "a weight per rule");
                w.clone()
            }
            _ => Vec::new(),
        };
        Self {
            rule_at: plan.rule_at,
            count: match tally {
                Tally::Any => Count::Any,
                Tally::Weights(_) => Count::Weights,
                Tally::Runs(_) => Count::Runs,
            },
            weights,
            n_words,
            lead: plan.lead,
            bucket_offsets,
            bucket_chunks,
            bucket_bits,
            groups: plan.groups,
            table_offsets,
            table,
            rule_run_offsets,
            rule_runs,
            n_runs,
            cells: None,
        }
    }

    /// Appends to `out` the positions of the rules covering a row, given its lead combination
    /// and its table offset per group (combination included); `acc` and `live` are scratch
    /// space of `n_words` words and `n_words / CHUNK_WORDS` entries.
    #[inline]
    fn covering(&self, lead: usize, offs: &[usize], acc: &mut [u64], live: &mut [u32], out: &mut Vec<u32>) {
        let (a, b) = (self.bucket_offsets[lead] as usize, self.bucket_offsets[lead + 1] as usize);
        for (j, e) in (a..b).enumerate() {
            let c = self.bucket_chunks[e] as usize;
            acc[c * CHUNK_WORDS..][..CHUNK_WORDS]
                .copy_from_slice(&self.bucket_bits[e * CHUNK_WORDS..][..CHUNK_WORDS]);
            live[j] = c as u32;
        }
        let mut n_live = b - a;
        for &off in offs {
            if n_live == 0 {
                return;
            }
            let t = &self.table[off..off + self.n_words];
            let mut kept = 0;
            for j in 0..n_live {
                let c = live[j] as usize;
                let x = &mut acc[c * CHUNK_WORDS..][..CHUNK_WORDS];
                x.iter_mut()
                    .zip(&t[c * CHUNK_WORDS..][..CHUNK_WORDS])
                    .for_each(|(x, &y)| *x &= y);
                live[kept] = c as u32;
                kept += x.iter().any(|&w| w != 0) as usize;
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
                let recoded = self.cells.as_ref().map(|c| c.recode(data, s, s + rows));
                let block;
                let (data, s) = match &recoded {
                    Some(r) => {
                        block = Cells::columns(data, r, s, s + rows);
                        (&block, 0)
                    }
                    None => (data, s),
                };
                let mut lead = vec![0u32; rows];
                self.lead.add_combos(data, s, &mut lead);
                // Each row's table offsets, group-major.
                let mut offs = vec![0usize; n_groups * rows];
                let mut combo = vec![0u32; rows];
                for (g, group) in self.groups.iter().enumerate() {
                    combo.iter_mut().for_each(|c| *c = 0);
                    group.add_combos(data, s, &mut combo);
                    offs[g * rows..(g + 1) * rows]
                        .iter_mut()
                        .zip(&combo)
                        .for_each(|(o, &c)| *o = self.table_offsets[g] + c as usize * self.n_words);
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
                    self.covering(lead[i] as usize, &row_offs, &mut acc, &mut live, &mut ids);
                    ids.iter_mut().for_each(|p| *p = self.rule_at[*p as usize]);
                    per_row(&mut state, i, &ids);
                }
                state
            })
            .collect()
    }

    /// The votes of every row (see [`Tally`]).
    pub fn votes(&self, data: &Columns) -> Vec<u64> {
        let parts = match self.count {
            Count::Any => self.map_blocks(
                data,
                |rows| vec![0u64; rows],
                |votes, i, ids| votes[i] = !ids.is_empty() as u64,
            ),
            Count::Weights => self.map_blocks(
                data,
                |rows| vec![0u64; rows],
                |votes, i, ids| votes[i] = ids.iter().map(|&k| self.weights[k as usize] as u64).sum(),
            ),
            Count::Runs => self.map_blocks(
                data,
                |rows| (vec![0u64; rows], vec![0u64; words_for(self.n_runs)]),
                |(votes, runs), i, ids| {
                    // The runs with a covering rule, each counted once.
                    runs.iter_mut().for_each(|v| *v = 0);
                    for &k in ids {
                        let k = k as usize;
                        let (a, b) = (self.rule_run_offsets[k], self.rule_run_offsets[k + 1]);
                        for &t in &self.rule_runs[a as usize..b as usize] {
                            runs[t as usize / WORD_BITS] |= 1u64 << (t as usize % WORD_BITS);
                        }
                    }
                    votes[i] = runs.iter().map(|v| v.count_ones() as u64).sum();
                },
            )
            .into_iter()
            .map(|(v, _)| v)
            .collect(),
        };
        parts.concat()
    }

    /// For every row, the ids of the rules that cover it, in increasing id order, as
    /// CSR: row `r`'s ids are `ids[offsets[r]..offsets[r + 1]]`.
    pub fn fired(&self, data: &Columns) -> (Vec<u64>, Vec<u32>) {
        let parts = self.map_blocks(
            data,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rule::Rule;
    use crate::data::schema::{ConstraintKind, Schema};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Votes are u64 sums (issue 10 item 5): three rules weighing 2^32 - 1 each.
    #[test]
    fn votes_do_not_overflow_32_bits() {
        let schema = Schema::uniform(vec![2], ConstraintKind::OneHot).unwrap();
        let rules = vec![Rule::from_constraints(&schema, &[]).unwrap(); 3];
        let col = [0u32, 1, 2];
        let data = Columns::new(&schema, vec![&col]).unwrap();
        let p = Predictor::new(&schema, &rules, &Tally::Weights(vec![u32::MAX; 3]), Some(&data));
        assert_eq!(p.votes(&data), vec![3 * u32::MAX as u64; 3]);
    }

    /// Random rules over random schemas (wide features, many rules spanning many chunks,
    /// enough features for both a lead and groups, and for more groups than are ordered
    /// greedily) and random rows with unseen codes: for every tally, with and without a
    /// sample, each row's fired rules and votes are the naive ones.
    #[test]
    fn predictor_matches_naive_coverage() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for case in 0..48 {
            let kind = if case % 2 == 0 {
                ConstraintKind::AttributeValue
            } else {
                ConstraintKind::OneHot
            };
            // Some schemas have more groups than are ordered greedily.
            let n_f = if case % 8 == 5 { 120 } else { rng.random_range(1..16) };
            let domains: Vec<u32> = (0..n_f)
                .map(|_| if rng.random_bool(0.1) { 70 } else { rng.random_range(1..5) })
                .collect();
            let schema = Schema::uniform(domains.clone(), kind).unwrap();
            let n_rows = rng.random_range(1..300);
            let cols: Vec<Vec<u32>> = domains
                .iter()
                .map(|&d| (0..n_rows).map(|_| rng.random_range(0..=d)).collect())
                .collect();
            let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let want_rules = if case % 4 == 3 { 1500 } else { rng.random_range(0..40) };
            let p_free = rng.random_range(0.2..0.9);
            let mut rules: Vec<Rule> = Vec::new();
            for _ in 0..want_rules {
                let mut cons = Vec::new();
                for (f, &d) in domains.iter().enumerate() {
                    if rng.random_bool(p_free) {
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
            let covers: Vec<Vec<u32>> = (0..n_rows)
                .map(|row| {
                    let codes = data.row(row);
                    (0..n as u32)
                        .filter(|&i| rules[i as usize].covers_row(&schema, &codes))
                        .collect()
                })
                .collect();
            let runs: Vec<Vec<u32>> = (0..5)
                .map(|_| (0..n as u32).filter(|_| rng.random_bool(0.3)).collect())
                .collect();
            let weights: Vec<u32> = (0..n as u32).map(|i| i % 3 + 1).collect();
            for tally in [Tally::Any, Tally::Runs(runs.clone()), Tally::Weights(weights.clone())] {
                for sample in [None, Some(&data)] {
                    let p = Predictor::new(&schema, &rules, &tally, sample);
                    let (offsets, ids) = p.fired(&data);
                    let votes = p.votes(&data);
                    for row in 0..n_rows {
                        let want = &covers[row];
                        let got = &ids[offsets[row] as usize..offsets[row + 1] as usize];
                        assert_eq!(got, want.as_slice(), "case {case} {tally:?} row {row}");
                        let expected = match &tally {
                            Tally::Any => !want.is_empty() as u64,
                            Tally::Weights(w) => want.iter().map(|&i| w[i as usize] as u64).sum(),
                            Tally::Runs(runs) => runs
                                .iter()
                                .filter(|run| run.iter().any(|i| want.contains(i)))
                                .count() as u64,
                        };
                        assert_eq!(votes[row], expected, "case {case} {tally:?} row {row}");
                    }
                }
            }
        }
    }

    /// Models with interval features (wide and narrow, with and without null, free on some
    /// rules) predict exactly the naive coverage on rows in every gap, beyond both ends and
    /// null, for every tally, with and without a sample; the coverage counts agree.
    #[test]
    fn predictor_with_intervals_matches_naive_coverage() {
        use crate::learn::run::interval_tests::{av, iv, mixed_schema, oh, random_rows, random_rule};
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let spec_sets = [
            vec![iv(4, true), av(3), iv(300, false), oh(3)],
            vec![iv(9, false)],
            vec![iv(2000, true), iv(1, true), av(2)],
        ];
        for case in 0..24 {
            let schema = mixed_schema(&spec_sets[case % 3]);
            let n_rows = rng.random_range(1..400);
            let cols = random_rows(&mut rng, &schema, n_rows);
            let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let want_rules = if case % 4 == 3 { 1200 } else { rng.random_range(0..60) };
            let p_free = rng.random_range(0.1..0.8);
            let mut rules: Vec<Rule> = Vec::new();
            for _ in 0..want_rules {
                let rule = random_rule(&mut rng, &schema, p_free);
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
            let n = rules.len();
            let covers: Vec<Vec<u32>> = (0..n_rows)
                .map(|row| {
                    let codes = data.row(row);
                    (0..n as u32)
                        .filter(|&i| rules[i as usize].covers_row(&schema, &codes))
                        .collect()
                })
                .collect();
            let runs: Vec<Vec<u32>> = (0..5)
                .map(|_| (0..n as u32).filter(|_| rng.random_bool(0.3)).collect())
                .collect();
            let weights: Vec<u32> = (0..n as u32).map(|i| i % 3 + 1).collect();
            for (which, n_kept) in [(0, n), (1, n), (2, n - n / 3)] {
                let tally = match which {
                    0 => Tally::Any,
                    1 => Tally::Runs(runs.clone()),
                    _ => Tally::Weights(weights[..n_kept].to_vec()),
                };
                for sample in [None, Some(&data)] {
                    let p = Predictor::new(&schema, &rules[..n_kept], &tally, sample);
                    let (offsets, ids) = p.fired(&data);
                    let votes = p.votes(&data);
                    for row in 0..n_rows {
                        let want: Vec<u32> =
                            covers[row].iter().copied().filter(|&i| (i as usize) < n_kept).collect();
                        let got = &ids[offsets[row] as usize..offsets[row + 1] as usize];
                        assert_eq!(got, want.as_slice(), "case {case} {tally:?} row {row}");
                        let expected = match &tally {
                            Tally::Any => !want.is_empty() as u64,
                            Tally::Weights(w) => want.iter().map(|&i| w[i as usize] as u64).sum(),
                            Tally::Runs(runs) => runs
                                .iter()
                                .filter(|run| run.iter().any(|i| want.contains(i)))
                                .count() as u64,
                        };
                        assert_eq!(votes[row], expected, "case {case} {tally:?} row {row}");
                    }
                }
            }
            let labels: Vec<bool> = (0..n_rows).map(|r| r % 3 == 0).collect();
            let (pos, neg) = crate::predict::model::coverage_counts(&schema, &rules, &data, &labels).unwrap();
            for i in 0..n {
                let rows: Vec<usize> =
                    (0..n_rows).filter(|&r| covers[r].contains(&(i as u32))).collect();
                let p = rows.iter().filter(|&&r| labels[r]).count() as u32;
                assert_eq!((pos[i], neg[i]), (p, rows.len() as u32 - p), "case {case} rule {i}");
            }
        }
    }
}
