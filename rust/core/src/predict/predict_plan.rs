//! How a [`Predictor`](crate::predict::predictor::Predictor) lays out a list of rules: which
//! features *lead* (their combination picks a bucket of candidate rules), how the other
//! constrained features are grouped and in which order their groups are ANDed, and where each
//! rule sits in the bitsets.
//!
//! Choices are greedy: with a sample of the rows to predict, each next feature (then group) is
//! the one that leaves the fewest (sample row, rule) pairs alive; without one, the one the rules
//! constrain most. The lead is capped in combinations ([`MAX_LEAD_COMBOS`]) and in bucket
//! entries ([`LEAD_ENTRIES_PER_RULE`] per rule, since a rule free on a lead feature sits in
//! the bucket of each of its values).
//!
//! Invariant: every feature some voting rule constrains is in exactly one of the lead and the
//! groups, and `rule_at` is a permutation of the voting rules. None of these choices changes
//! which rules cover a row, only how fast they are found.

use crate::data::bitset::{extract, for_each_one, words_for, WORD_BITS};
use crate::data::columns::Columns;
use crate::data::rule::Rule;
use crate::data::schema::Schema;

/// Most combinations of the lead features (the number of buckets).
pub const MAX_LEAD_COMBOS: usize = 1 << 16;

/// Most bucket entries per rule, on average, that the lead may cost.
pub const LEAD_ENTRIES_PER_RULE: u64 = 16;

/// Most combinations per group of the other features (a group's table has this many rule
/// bitsets at most, unless one feature alone has more slots).
pub const MAX_GROUP_COMBOS: usize = 256;

/// Most bytes of group tables; wider models get narrower groups (down to one feature each,
/// whose tables are as large as the rules' slot bitsets).
pub const MAX_TABLE_BYTES: u64 = 256 << 20;

/// Groups ordered greedily one by one; the others are ordered by a single scoring.
const MAX_GREEDY_GROUPS: usize = 16;

/// Rows of the sample used to choose the order.
const SAMPLE_ROWS: usize = 128;

/// Features evaluated together: their combination is the sum of code x stride.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    pub features: Vec<usize>,
    pub strides: Vec<u32>,
    pub n_combos: usize,
}

impl Group {
    fn new(schema: &Schema, features: Vec<usize>) -> Self {
        let mut strides = Vec::with_capacity(features.len());
        let mut n_combos = 1usize;
        for &f in &features {
            strides.push(n_combos as u32);
            n_combos *= schema.slots(f).len();
        }
        Self {
            features,
            strides,
            n_combos,
        }
    }

    /// Adds to `out[i]` the combination of row `start + i` of `data`, for every `i`.
    pub fn add_combos(&self, data: &Columns, start: usize, out: &mut [u32]) {
        for (&f, &stride) in self.features.iter().zip(&self.strides) {
            let col = &data.column(f)[start..start + out.len()];
            out.iter_mut().zip(col).for_each(|(o, &c)| *o += c * stride);
        }
    }

    /// Calls `f` with every combination `rule` allows.
    pub fn for_each_allowed_combo(&self, schema: &Schema, rule: &Rule, mut f: impl FnMut(u32)) {
        let mut combos = vec![0u32];
        let mut next = Vec::new();
        for (&feat, &stride) in self.features.iter().zip(&self.strides) {
            next.clear();
            for (code, slot) in schema.slots(feat).enumerate() {
                if rule.allows(slot) {
                    next.extend(combos.iter().map(|&c| c + code as u32 * stride));
                }
            }
            std::mem::swap(&mut combos, &mut next);
        }
        combos.into_iter().for_each(&mut f);
    }
}

/// The layout of a predictor (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub lead: Group,
    /// In evaluation order.
    pub groups: Vec<Group>,
    /// The rule at each bit position.
    pub rule_at: Vec<u32>,
}

/// The voting rules' (sample row, rule) pairs still alive, as one rule bitset per sample row.
struct Alive<'a> {
    schema: &'a Schema,
    rows: Vec<Vec<u32>>,
    /// For every slot, the rules allowing it (identity layout).
    by_slot: Vec<u64>,
    n_words: usize,
    alive: Vec<Vec<u64>>,
}

impl<'a> Alive<'a> {
    fn new(schema: &'a Schema, rules: &[Rule], data: &Columns) -> Self {
        let n_words = words_for(rules.len());
        let identity: Vec<u32> = (0..rules.len() as u32).collect();
        let by_slot = rules_by_slot(schema, rules, &identity, n_words);
        let step = data.n_rows().div_ceil(SAMPLE_ROWS).max(1);
        let rows: Vec<Vec<u32>> = (0..data.n_rows()).step_by(step).map(|r| data.row(r)).collect();
        let all = first_bits(rules.len(), n_words);
        let alive = rows.iter().map(|_| all.clone()).collect();
        Self {
            schema,
            rows,
            by_slot,
            n_words,
            alive,
        }
    }

    fn slot_bits(&self, row: &[u32], f: usize) -> &[u64] {
        let s = self.schema.slot(f, row[f]);
        &self.by_slot[s * self.n_words..(s + 1) * self.n_words]
    }

    /// Pairs left alive after ANDing the features `fs` in.
    fn survivors(&self, fs: &[usize]) -> u64 {
        self.rows
            .iter()
            .zip(&self.alive)
            .map(|(row, alive)| {
                // Word by word, no per-row allocation (this runs for every candidate feature).
                (0..self.n_words)
                    .map(|w| {
                        let x = fs.iter().fold(alive[w], |a, &f| a & self.slot_bits(row, f)[w]);
                        x.count_ones() as u64
                    })
                    .sum::<u64>()
            })
            .sum()
    }

    fn and_in(&mut self, fs: &[usize]) {
        for i in 0..self.rows.len() {
            for &f in fs {
                let s = self.schema.slot(f, self.rows[i][f]);
                let bits = &self.by_slot[s * self.n_words..(s + 1) * self.n_words];
                self.alive[i].iter_mut().zip(bits).for_each(|(a, &b)| *a &= b);
            }
        }
    }
}

/// For every slot, the bitset (`n_words` words) of the positions `p` whose rule `rule_at[p]`
/// allows that slot; slot `s`'s bitset is `out[s * n_words..(s + 1) * n_words]`.
pub(crate) fn rules_by_slot(schema: &Schema, rules: &[Rule], rule_at: &[u32], n_words: usize) -> Vec<u64> {
    let n_slots = schema.n_slots();
    let mut by_slot = vec![0u64; n_slots * n_words];
    for (p, &k) in rule_at.iter().enumerate() {
        for_each_one(rules[k as usize].allowed(), |s| {
            if s < n_slots {
                by_slot[s * n_words + p / WORD_BITS] |= 1u64 << (p % WORD_BITS);
            }
        });
    }
    by_slot
}

/// The bitset of `n_words` words whose first `n` bits are set.
pub(crate) fn first_bits(n: usize, n_words: usize) -> Vec<u64> {
    let mut bits = vec![0u64; n_words];
    (0..n).for_each(|p| bits[p / WORD_BITS] |= 1u64 << (p % WORD_BITS));
    bits
}

/// `features` packed in order into groups of at most `max_combos` combinations (or one
/// feature, when it alone has more slots).
fn pack(schema: &Schema, features: &[usize], max_combos: usize) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut combos = usize::MAX;
    for &f in features {
        let w = schema.slots(f).len();
        if groups.is_empty() || combos.saturating_mul(w) > max_combos {
            groups.push(Vec::new());
            combos = 1;
        }
        groups.last_mut().expect("a group").push(f);
        combos *= w;
    }
    groups
}

/// Rule bitsets in the tables of `groups`.
fn table_words(schema: &Schema, groups: &[Vec<usize>]) -> u64 {
    groups
        .iter()
        .map(|fs| fs.iter().map(|&f| schema.slots(f).len() as u64).product::<u64>())
        .sum()
}

/// Plans the predictor of `rules` (see the module docs).
pub(crate) fn plan(schema: &Schema, rules: &[Rule], sample: Option<&Columns>) -> Plan {
    let n_rules = rules.len() as u64;
    // allowed[k][f]: the number of slots of feature f that rule k allows.
    let n_f = schema.n_features();
    let allowed: Vec<Vec<u32>> = rules
        .iter()
        .map(|r| {
            (0..n_f)
                .map(|f| schema.slots(f).filter(|&s| r.allows(s)).count() as u32)
                .collect()
        })
        .collect();
    let constrained: Vec<usize> = (0..n_f)
        .filter(|&f| {
            let width = schema.slots(f).len() as u32;
            allowed.iter().any(|a| a[f] < width)
        })
        .collect();
    let mut alive = sample.filter(|d| d.n_rows() > 0).map(|d| Alive::new(schema, rules, d));
    // How much a feature (or group) prunes: sample survivors, else the rules' allowed
    // fraction of its slots (in millionths, summed over rules).
    let uniform = |fs: &[usize]| -> u64 {
        allowed
            .iter()
            .map(|a| {
                fs.iter().fold(1_000_000u64, |x, &f| {
                    x * a[f] as u64 / schema.slots(f).len() as u64
                })
            })
            .sum()
    };

    // The lead: greedy, within the combination and bucket-entry budgets.
    let mut lead: Vec<usize> = Vec::new();
    let mut combos = 1usize;
    let mut entries: Vec<u64> = vec![1; rules.len()];
    let budget = (LEAD_ENTRIES_PER_RULE * n_rules).max(MAX_LEAD_COMBOS as u64);
    loop {
        let mut best: Option<(u64, usize)> = None;
        for &f in constrained.iter().filter(|f| !lead.contains(f)) {
            if combos * schema.slots(f).len() > MAX_LEAD_COMBOS {
                continue;
            }
            let total: u64 = entries.iter().zip(&allowed).map(|(&e, a)| e * a[f] as u64).sum();
            if total > budget {
                continue;
            }
            let score = match &alive {
                Some(a) => a.survivors(&[f]),
                None => uniform(&[f]),
            };
            if best.is_none_or(|(s, g)| (score, f) < (s, g)) {
                best = Some((score, f));
            }
        }
        let Some((_, f)) = best else { break };
        lead.push(f);
        combos *= schema.slots(f).len();
        entries.iter_mut().zip(&allowed).for_each(|(e, a)| *e *= a[f] as u64);
        if let Some(a) = alive.as_mut() {
            a.and_in(&[f]);
        }
    }

    // The other features, packed in order into groups (as wide as the table budget allows),
    // then ordered greedily.
    let rest: Vec<usize> = constrained.iter().copied().filter(|f| !lead.contains(f)).collect();
    let n_words = words_for(rules.len()) as u64;
    let mut max_combos = MAX_GROUP_COMBOS;
    let mut left = pack(schema, &rest, max_combos);
    while max_combos > 1 && table_words(schema, &left) * n_words * 8 > MAX_TABLE_BYTES {
        max_combos /= 4;
        left = pack(schema, &rest, max_combos);
    }
    let score = |alive: &Option<Alive>, fs: &[usize]| match alive {
        Some(a) => a.survivors(fs),
        None => uniform(fs),
    };
    let mut groups = Vec::with_capacity(left.len());
    while !left.is_empty() && groups.len() < MAX_GREEDY_GROUPS {
        let (i, _) = left
            .iter()
            .enumerate()
            .map(|(i, fs)| (i, (score(&alive, fs), fs[0])))
            .min_by_key(|&(_, key)| key)
            .expect("a group is left");
        let fs = left.remove(i);
        if let Some(a) = alive.as_mut() {
            a.and_in(&fs);
        }
        groups.push(Group::new(schema, fs));
    }
    // Past that, the rest by one scoring (greedy re-scoring costs groups^2 on wide data).
    let mut rest: Vec<((u64, usize), Vec<usize>)> =
        left.into_iter().map(|fs| ((score(&alive, &fs), fs[0]), fs)).collect();
    rest.sort_unstable();
    groups.extend(rest.into_iter().map(|(_, fs)| Group::new(schema, fs)));

    // Rule layout: sorted by the allowed slots of the lead, then of each group in order, so
    // that a chunk of the bitsets holds rules that die together.
    let order: Vec<usize> = lead.iter().chain(groups.iter().flat_map(|g| &g.features)).copied().collect();
    let keys: Vec<Vec<u64>> = rules
        .iter()
        .map(|r| {
            order
                .iter()
                .map(|&f| {
                    let s = schema.slots(f);
                    extract(r.allowed(), s.start, s.len().min(WORD_BITS))
                })
                .collect()
        })
        .collect();
    let mut rule_at: Vec<u32> = (0..rules.len() as u32).collect();
    rule_at.sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]).then(a.cmp(&b)));
    Plan {
        lead: Group::new(schema, lead),
        groups,
        rule_at,
    }
}
