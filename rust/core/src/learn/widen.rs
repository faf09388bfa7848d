//! Interval ends widened toward the nearest training negatives (`widen`, beyond the paper,
//! docs/semantics.md §11).
//!
//! A FIND-RS rule's interval is the `[min, max]` of its bucket's values (FIND-S), so its ends
//! sit on the last positives it absorbed, however far the nearest negative is. With `widen`
//! ([`Widen`]), each run's rules (after prune and simplification, before the runs are
//! aggregated) have their intervals widened, one interval feature at a time in feature order.
//! The *limiting negatives* of the interval on feature `f` are the training negatives that the
//! rule (as widened so far) without its constraint on `f` covers, and that lie beyond one of
//! the interval's ends (a negative the rule already covers is no limit; a null one is none
//! either). With [`Widen::Open`] an end beyond which no limiting negative lies opens (reaches
//! the first or last training value, which the canonical form makes an open end) and the other
//! ends stay; with [`Widen::Nearest`] each end moves on to the training value just before the
//! nearest limiting negative (opening when there is none). The null flag stays as learned, and
//! a rule whose interval is only `x is null` keeps it.
//! Then, within the run, a rule equal to an earlier one or subsumed by another is dropped (as
//! simplification does: it adds no row to the run's DNF).
//!
//! Invariants (tested against a plain re-implementation that scans every negative):
//! - a widened rule covers every row the original covers, on any data (its intervals contain
//!   the original's; its other constraints are unchanged);
//! - it covers no training negative the original did not cover: each widening step stops
//!   before the nearest negative that the rule, as widened so far, would otherwise admit;
//! - hence a FIND-RS model still covers every training positive, and with tolerance 0 and no
//!   contradiction it stays consistent.

use crate::data::interval::{null_code, Bounds, Interval};

/// How a run's interval ends move after prune (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Widen {
    /// As learned: `[min, max]` of the bucket (the paper's FIND-S; the default).
    #[default]
    No,
    /// An end beyond which no limiting negative lies opens; the others stay.
    Open,
    /// Each end moves to the value next to the nearest limiting negative (opening when there
    /// is none).
    Nearest,
}

impl Widen {
    pub fn parse(name: &str) -> crate::data::error::Result<Self> {
        match name {
            "no" => Ok(Self::No),
            "open" => Ok(Self::Open),
            "nearest" => Ok(Self::Nearest),
            other => Err(crate::data::error::FindRsError::InvalidParameter(format!(
                "widen must be 'no', 'open' or 'nearest', got {other:?}"
            ))),
        }
    }
}
use crate::data::rule::{Rule, Terms};
use crate::learn::simplify::keep_maximal;
use crate::learn::training::TrainingSet;

/// The rules of one run with their intervals widened, without duplicates or subsumed rules, in
/// run order. A schema without interval features returns the rules unchanged.
pub fn widen_run(ts: &TrainingSet, widen: Widen, rules: Vec<Rule>) -> Vec<Rule> {
    if widen == Widen::No || !ts.schema.has_intervals() {
        return rules;
    }
    let mut terms = Terms::new();
    let widened = rules
        .iter()
        .map(|r| widen_rule(ts, widen, r, &mut terms))
        .collect();
    keep_maximal(&ts.schema, widened)
}

/// The new ranks of an interval `lo..=hi` of a feature of `d` values, `below` / `above` being
/// the ranks of the nearest limiting negatives on each side.
fn ends(
    widen: Widen,
    lo: u32,
    hi: u32,
    below: Option<u32>,
    above: Option<u32>,
    d: u32,
) -> (u32, u32) {
    match widen {
        Widen::No => (lo, hi),
        Widen::Open => (
            if below.is_none() { 0 } else { lo },
            if above.is_none() { d - 1 } else { hi },
        ),
        Widen::Nearest => (below.map_or(0, |b| b + 1), above.map_or(d - 1, |a| a - 1)),
    }
}

/// `rule` with each interval widened (see the module docs); `terms` is scratch space.
pub fn widen_rule(ts: &TrainingSet, widen: Widen, rule: &Rule, terms: &mut Terms) -> Rule {
    let schema = &ts.schema;
    let mut out = rule.clone();
    for (j, layout) in schema.intervals().iter().enumerate() {
        let d = layout.n_values;
        let Some(Interval {
            values: Some((lo, hi)),
            null,
        }) = out.interval(schema, layout.feature)
        else {
            continue;
        };
        // The negatives the rule covers but for its constraint on this feature.
        let mut probe = out.clone();
        probe.drop_constraint(schema, layout.feature);
        probe.terms(schema, terms);
        let codes = ts.neg_interval(j);
        let (mut below, mut above): (Option<u32>, Option<u32>) = (None, None);
        for w in 0..ts.negatives.n_words() {
            let mut bits = ts.negatives.covered_word(terms, w);
            while bits != 0 {
                let k = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let c = codes[k];
                if c == null_code(d) {
                    continue;
                }
                let r = (c - 1) / 2;
                if r < lo {
                    below = Some(below.map_or(r, |b| b.max(r)));
                } else if r > hi {
                    above = Some(above.map_or(r, |a| a.min(r)));
                }
            }
        }
        let wide = Interval {
            values: Some(ends(widen, lo, hi, below, above, d)),
            null,
        };
        let b = Bounds::from_interval(&wide, d).canonical(d, layout.null_seen);
        out.set_bounds(schema, j, b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::acceptance::Acceptance;
    use crate::data::columns::Columns;
    use crate::learn::ensemble::run_order;
    use crate::learn::prune::find_rs_pruned;
    use crate::learn::run::interval_tests::{av, iv, mixed_data, mixed_schema, oh, Spec};
    use crate::data::schema::{ConstraintKind, Schema};

    /// The plain widening: for each interval feature in order, scan every negative row, test
    /// the rule on it with the feature's code replaced by one inside the interval, and move the
    /// ends to the values next to the nearest such negatives outside.
    fn naive_widen(schema: &Schema, widen: Widen, rule: &Rule, negatives: &[&Vec<u32>]) -> Rule {
        let mut rule = rule.clone();
        for (j, l) in schema.intervals().iter().enumerate() {
            let f = l.feature;
            let d = l.n_values;
            let Some(Interval {
                values: Some((lo, hi)),
                null,
            }) = rule.interval(schema, f)
            else {
                continue;
            };
            let mut below = None;
            let mut above = None;
            for n in negatives {
                let c = n[f];
                if c == null_code(d) {
                    continue;
                }
                let mut probe = (*n).clone();
                probe[f] = 2 * lo + 1;
                if !rule.covers_row(schema, &probe) {
                    continue;
                }
                let r = (c - 1) / 2;
                if r < lo {
                    below = Some(below.map_or(r, |b: u32| b.max(r)));
                } else if r > hi {
                    above = Some(above.map_or(r, |a: u32| a.min(r)));
                }
            }
            let (lo, hi) = match widen {
                Widen::No => (lo, hi),
                Widen::Open => (
                    if below.is_some() { lo } else { 0 },
                    if above.is_some() { hi } else { d - 1 },
                ),
                Widen::Nearest => (below.map_or(0, |b| b + 1), above.map_or(d - 1, |a| a - 1)),
            };
            let wide = Interval {
                values: Some((lo, hi)),
                null,
            };
            rule.set_bounds(
                schema,
                j,
                Bounds::from_interval(&wide, d).canonical(d, l.null_seen),
            );
        }
        rule
    }

    fn check(specs: &[Spec], widen: Widen, seeds: std::ops::Range<u64>, n: usize) -> usize {
        let schema = mixed_schema(specs);
        let mut changed = 0;
        for seed in seeds {
            let (rows, labels) = mixed_data(seed + 77, n, specs, seed % 2 == 0);
            let cols = crate::learn::run::tests::columns_of(&rows, specs.len());
            let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let Ok(ts) = TrainingSet::new(schema.clone(), &data, &labels) else {
                continue;
            };
            let negatives: Vec<&Vec<u32>> = rows
                .iter()
                .zip(&labels)
                .filter(|(_, &y)| !y)
                .map(|(r, _)| r)
                .collect();
            for tau in [0u32, 2] {
                let order = run_order(ts.n_positives(), seed, 0, true);
                let rules = find_rs_pruned(&ts, &order, Acceptance::absolute(tau), 0);
                let mut terms = Terms::new();
                for rule in &rules {
                    let wide = widen_rule(&ts, widen, rule, &mut terms);
                    assert_eq!(
                        wide,
                        naive_widen(&schema, widen, rule, &negatives),
                        "seed {seed} tau {tau}"
                    );
                    changed += (wide != *rule) as usize;
                    for (row, &y) in rows.iter().zip(&labels) {
                        let before = rule.covers_row(&schema, row);
                        let after = wide.covers_row(&schema, row);
                        assert!(!before || after, "a widened rule lost a row (seed {seed})");
                        assert!(
                            y || before || !after,
                            "a widened rule covers a new negative (seed {seed})"
                        );
                    }
                    // Every gap code too: the intervals contain the original's.
                    assert!(rule.is_subsumed_by(&schema, &wide), "seed {seed}");
                }
                let run = widen_run(&ts, widen, rules.clone());
                assert!(run.len() <= rules.len());
                for (row, &y) in rows.iter().zip(&labels) {
                    let covered = |rs: &[Rule]| rs.iter().any(|r| r.covers_row(&schema, row));
                    assert!(
                        !covered(&rules) || covered(&run),
                        "the widened run lost a row (seed {seed})"
                    );
                    assert!(!y || covered(&run), "a positive uncovered (seed {seed})");
                }
                for (a, ra) in run.iter().enumerate() {
                    for (b, rb) in run.iter().enumerate() {
                        assert!(
                            a == b || !ra.is_subsumed_by(&schema, rb),
                            "subsumed rule kept (seed {seed})"
                        );
                    }
                }
            }
        }
        changed
    }

    #[test]
    fn widening_equals_the_plain_scan_and_adds_no_negative() {
        for widen in [Widen::Open, Widen::Nearest] {
            let changed = check(
                &[iv(6, true), av(3), iv(40, false), oh(3)],
                widen,
                0..40,
                70,
            );
            assert!(changed > 50, "{widen:?}: {changed}");
            // Wide features (split prefix bitsets), several negative words, all-null features.
            check(
                &[iv(300, true), iv(0, true), iv(3, false)],
                widen,
                0..10,
                200,
            );
            check(&[iv(2000, false), av(2)], widen, 0..8, 150);
        }
        assert_eq!(
            check(&[iv(6, true), av(3), iv(40, false)], Widen::No, 0..10, 70),
            0
        );
    }

    #[test]
    fn a_schema_without_intervals_is_unchanged() {
        let schema = Schema::uniform(vec![3, 2], ConstraintKind::AttributeValue).unwrap();
        let rows = vec![vec![0, 1], vec![1, 0], vec![2, 1]];
        let labels = vec![true, false, true];
        let cols = crate::learn::run::tests::columns_of(&rows, 2);
        let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let ts = TrainingSet::new(schema.clone(), &data, &labels).unwrap();
        let rules = find_rs_pruned(&ts, &[0, 1], Acceptance::absolute(0), 0);
        assert_eq!(widen_run(&ts, Widen::Nearest, rules.clone()), rules);
    }
}
