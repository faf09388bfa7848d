//! Runs over interval features (mixed with AV and OH ones) against a plain Algorithm 1 that
//! knows nothing of slots, bitsets or filters: a rule is the most specific constraint of its
//! bucket (AV: the common value or `?`; OH: the bucket's value set; interval: the ranks' min
//! and max, null iff a bucket row is null), and absorbing a positive means that constraint of
//! the bucket plus the positive passes the acceptance test (at most tau negatives, or a share
//! of at most epsilon, docs/semantics.md §9.1), each training row tested directly.

use super::tests::ACCEPTANCES;
use super::*;
use crate::data::columns::Columns;
use crate::learn::ensemble::run_order;
use crate::data::interval::{null_code, Interval};
use crate::learn::prune::prune;
use crate::data::schema::{ConstraintKind, Schema};

/// One feature of the random data: its kind, domain size (interval: distinct values) and
/// whether null occurs (interval features only).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spec {
    pub kind: ConstraintKind,
    pub d: u32,
    pub null: bool,
}

pub(crate) const fn av(d: u32) -> Spec {
    Spec {
        kind: ConstraintKind::AttributeValue,
        d,
        null: false,
    }
}
pub(crate) const fn oh(d: u32) -> Spec {
    Spec {
        kind: ConstraintKind::OneHot,
        d,
        null: false,
    }
}
pub(crate) const fn iv(d: u32, null: bool) -> Spec {
    Spec {
        kind: ConstraintKind::Interval,
        d,
        null,
    }
}

pub(crate) fn mixed_schema(specs: &[Spec]) -> Schema {
    Schema::with_nulls(
        specs.iter().map(|s| s.d).collect(),
        specs.iter().map(|s| s.kind).collect(),
        specs.iter().map(|s| s.null).collect(),
    )
    .unwrap()
}

/// Random training rows (interval features as odd gap codes or null) and labels; with
/// `structured`, labels follow a threshold on the first interval feature most of the time.
pub(crate) fn mixed_data(
    seed: u64,
    n: usize,
    specs: &[Spec],
    structured: bool,
) -> (Vec<Vec<u32>>, Vec<bool>) {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut rows = Vec::with_capacity(n);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let row: Vec<u32> = specs
            .iter()
            .map(|s| match s.kind {
                ConstraintKind::Interval => {
                    if s.d == 0 || (s.null && next() % 6 == 0) {
                        null_code(s.d)
                    } else {
                        2 * (next() % s.d as u64) as u32 + 1
                    }
                }
                _ => (next() % s.d as u64) as u32,
            })
            .collect();
        let noise = next() % 3 != 0;
        let y = match specs
            .iter()
            .position(|s| s.kind == ConstraintKind::Interval && s.d > 1)
        {
            Some(f) if structured => {
                let low = row[f] < specs[f].d;
                if next() % 5 == 0 {
                    noise
                } else {
                    low
                }
            }
            _ => noise,
        };
        rows.push(row);
        labels.push(y);
    }
    (rows, labels)
}

/// A constraint of the plain algorithm.
#[derive(Clone, Debug)]
enum Naive {
    Av(Option<u32>),
    Oh(Vec<u32>),
    /// Ranks `lo..=hi` (none when `lo > hi`), and null.
    Iv {
        lo: u32,
        hi: u32,
        null: bool,
    },
}

fn most_specific(specs: &[Spec], rows: &[&Vec<u32>]) -> Vec<Naive> {
    specs
        .iter()
        .enumerate()
        .map(|(f, s)| match s.kind {
            ConstraintKind::AttributeValue => {
                let c = rows[0][f];
                Naive::Av(rows.iter().all(|r| r[f] == c).then_some(c))
            }
            ConstraintKind::OneHot => {
                let mut v: Vec<u32> = rows.iter().map(|r| r[f]).collect();
                v.sort_unstable();
                v.dedup();
                Naive::Oh(v)
            }
            ConstraintKind::Interval => {
                let nc = null_code(s.d);
                let ranks = rows.iter().filter(|r| r[f] != nc).map(|r| (r[f] - 1) / 2);
                Naive::Iv {
                    lo: ranks.clone().min().unwrap_or(1),
                    hi: ranks.max().unwrap_or(0),
                    null: rows.iter().any(|r| r[f] == nc),
                }
            }
        })
        .collect()
}

fn naive_covers(specs: &[Spec], rule: &[Naive], row: &[u32]) -> bool {
    rule.iter().zip(row).zip(specs).all(|((c, &x), s)| match c {
        Naive::Av(v) => v.is_none_or(|v| v == x),
        Naive::Oh(set) => set.contains(&x),
        Naive::Iv { lo, hi, null } => {
            if x == null_code(s.d) {
                *null
            } else {
                let r = (x - 1) / 2;
                *lo <= r && r <= *hi
            }
        }
    })
}

/// Algorithm 1 on buckets of data rows.
fn naive_run(
    specs: &[Spec],
    rows: &[Vec<u32>],
    labels: &[bool],
    order: &[usize],
    acc: Acceptance,
) -> Vec<Vec<usize>> {
    let count = |rule: &[Naive], label: bool| {
        rows.iter()
            .zip(labels)
            .filter(|(r, &y)| y == label && naive_covers(specs, rule, r))
            .count() as u32
    };
    let mut buckets: Vec<Vec<usize>> = Vec::new();
    'outer: for &p in order {
        for b in buckets.iter_mut() {
            let mut members: Vec<&Vec<u32>> = b.iter().map(|&i| &rows[i]).collect();
            members.push(&rows[p]);
            let rule = most_specific(specs, &members);
            if acc.accepts(count(&rule, false), count(&rule, true)) {
                b.push(p);
                continue 'outer;
            }
        }
        // Under a share a rule failing the test is never made (docs/semantics.md §9.1).
        let own = most_specific(specs, &[&rows[p]]);
        if acc.is_absolute() || acc.accepts(count(&own, false), count(&own, true)) {
            buckets.push(vec![p]);
        }
    }
    buckets
}

/// The core's rule for a plain rule.
fn to_rule(schema: &Schema, specs: &[Spec], rule: &[Naive]) -> Rule {
    let mut cons = Vec::new();
    let mut ivs = Vec::new();
    for (f, c) in rule.iter().enumerate() {
        match c {
            Naive::Av(Some(v)) => cons.push((f, vec![*v])),
            Naive::Av(None) => {}
            Naive::Oh(set) => cons.push((f, set.clone())),
            Naive::Iv { lo, hi, null } => {
                let values = (lo <= hi).then_some((*lo, *hi));
                let whole = values == Some((0, specs[f].d.wrapping_sub(1)));
                if !(whole && (*null || !specs[f].null)) {
                    ivs.push((
                        f,
                        Interval {
                            values,
                            null: *null,
                        },
                    ));
                }
            }
        }
    }
    Rule::from_parts(schema, &cons, &ivs).unwrap()
}

fn check_mixed(specs: &[Spec], seeds: std::ops::Range<u64>, max_rows: usize) {
    let schema = mixed_schema(specs);
    for seed in seeds {
        let n = 10 + (seed as usize * 7) % max_rows;
        let (rows, labels) = mixed_data(seed, n, specs, seed % 2 == 0);
        let cols = run_tests_columns(&rows, specs.len());
        let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let Ok(ts) = TrainingSet::new(schema.clone(), &data, &labels) else {
            continue;
        };
        let absolute = (3u32, 0.0);
        for (k, (tau, eps)) in ACCEPTANCES.into_iter().chain([absolute]).enumerate() {
            let acc = Acceptance::new(tau, eps).unwrap();
            let cap = acc.limit(ts.n_positives() as u32);
            for shuffle in [false, true] {
                let order = run_order(ts.n_positives(), seed, k as u64, shuffle);
                let fast = find_rs(&ts, &order, acc);
                let rows_order: Vec<usize> = order
                    .iter()
                    .map(|&i| ts.pos_rows[i as usize] as usize)
                    .collect();
                let buckets = naive_run(specs, &rows, &labels, &rows_order, acc);
                let fast_buckets: Vec<Vec<usize>> = fast
                    .buckets
                    .iter()
                    .map(|b| {
                        b.iter()
                            .map(|&i| ts.pos_rows[i as usize] as usize)
                            .collect()
                    })
                    .collect();
                let ctx = format!("specs {specs:?} seed {seed} {acc:?} shuffle {shuffle}");
                assert_eq!(fast_buckets, buckets, "{ctx}");
                for (i, b) in buckets.iter().enumerate() {
                    let members: Vec<&Vec<u32>> = b.iter().map(|&r| &rows[r]).collect();
                    let naive = most_specific(specs, &members);
                    assert_eq!(
                        fast.rules[i],
                        to_rule(&schema, specs, &naive),
                        "rule {i}, {ctx}"
                    );
                    let negs = rows
                        .iter()
                        .zip(&labels)
                        .filter(|(r, &y)| !y && naive_covers(specs, &naive, r))
                        .count() as u32;
                    if negs <= cap {
                        assert_eq!(fast.neg_covered[i], negs, "rule {i}, {ctx}");
                    }
                    for (r, row) in rows.iter().enumerate() {
                        assert_eq!(
                            fast.rules[i].covers_row(&schema, row),
                            naive_covers(specs, &naive, row),
                            "rule {i} row {r}, {ctx}"
                        );
                    }
                }
            }
        }
    }
}

fn run_tests_columns(rows: &[Vec<u32>], m: usize) -> Vec<Vec<u32>> {
    super::tests::columns_of(rows, m)
}

#[test]
fn interval_runs_match_naive_algorithm_1() {
    // Mixed kinds, nulls, a wide interval feature (sqrt-split prefix bitsets).
    check_mixed(
        &[iv(5, true), av(3), oh(4), iv(300, false), iv(2, true)],
        0..40,
        60,
    );
    // Only interval features: rules have no slot at all.
    check_mixed(&[iv(7, true), iv(150, false), iv(1, true)], 0..40, 60);
    // An all-null interval feature, many rows (several negative words), few values.
    check_mixed(&[iv(0, true), iv(4, false), av(2), iv(3, true)], 0..12, 200);
    // Mostly distinct values: every row its own value.
    check_mixed(&[iv(2000, true), oh(3)], 0..12, 150);
}

/// Proposition 4.1 with intervals: no rule covers an example of a later rule's bucket, on
/// data without contradictions (absolute tolerances); and prune keeps every positive of a
/// bucket covered (with contradictions, and with shares too).
#[test]
fn interval_buckets_keep_proposition_4_1_and_prune_coverage() {
    let specs = [iv(6, true), av(3), iv(40, false), oh(3)];
    let schema = mixed_schema(&specs);
    for seed in 0..60u64 {
        let (rows, labels) = mixed_data(seed + 500, 70, &specs, seed % 3 == 0);
        let mut seen = std::collections::HashMap::new();
        let (mut kr, mut kl) = (Vec::new(), Vec::new());
        for (r, y) in rows.iter().zip(&labels) {
            if *seen.entry(r.clone()).or_insert(*y) == *y {
                kr.push(r.clone());
                kl.push(*y);
            }
        }
        for (rows, labels, clean) in [(&kr, &kl, true), (&rows, &labels, false)] {
            let cols = run_tests_columns(rows, specs.len());
            let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let Ok(ts) = TrainingSet::new(schema.clone(), &data, labels) else {
                continue;
            };
            for (tau, eps) in ACCEPTANCES {
                let order = run_order(ts.n_positives(), seed, 0, true);
                let run = find_rs(&ts, &order, Acceptance::new(tau, eps).unwrap());
                for i in 0..run.rules.len() {
                    for &p in &run.buckets[i] {
                        let row = ts.pos_codes(p as usize);
                        assert!(run.rules[i].covers_row(&schema, row));
                        // Prop 4.1 is the absolute test's: a share may accept a later,
                        // wider generalization of a rule that rejected a narrower one.
                        if clean && eps == 0.0 {
                            for j in 0..i {
                                assert!(!run.rules[j].covers_row(&schema, row), "seed {seed}");
                            }
                        }
                    }
                }
                let kept = prune(&ts, &run.rules, &run.buckets);
                // Under a share a positive whose own rows fail the test may be in no bucket.
                for &p in run.buckets.iter().flatten() {
                    let row = ts.pos_codes(p as usize);
                    assert!(
                        kept.iter().any(|&i| run.rules[i].covers_row(&schema, row)),
                        "prune uncovered positive {p} (seed {seed}, tau {tau}, epsilon {eps})"
                    );
                }
            }
        }
    }
}

/// A random rule over a mixed schema: each feature free with probability `p_free`, else a
/// random value (AV), value set (OH) or interval with or without null (interval).
pub(crate) fn random_rule(rng: &mut rand_chacha::ChaCha8Rng, schema: &Schema, p_free: f64) -> Rule {
    use rand::RngExt;
    let mut cons = Vec::new();
    let mut ivs = Vec::new();
    for f in 0..schema.n_features() {
        if rng.random_bool(p_free) {
            continue;
        }
        let d = schema.domain_size(f);
        match schema.kind(f) {
            ConstraintKind::AttributeValue => cons.push((f, vec![rng.random_range(0..d)])),
            ConstraintKind::OneHot => {
                let mut v: Vec<u32> = (0..d).filter(|_| rng.random_bool(0.5)).collect();
                if v.is_empty() {
                    v.push(rng.random_range(0..d));
                }
                cons.push((f, v));
            }
            ConstraintKind::Interval => {
                let seen = schema.null_seen(f);
                let values = (d > 0 && !(seen && rng.random_bool(0.15))).then(|| {
                    let a = rng.random_range(0..d);
                    let b = rng.random_range(0..d);
                    // Often an open end.
                    match rng.random_range(0..4) {
                        0 => (0, a.max(b)),
                        1 => (a.min(b), d - 1),
                        _ => (a.min(b), a.max(b)),
                    }
                });
                let null = seen && (values.is_none() || rng.random_bool(0.3));
                if values == Some((0, d.wrapping_sub(1))) && !seen {
                    continue;
                }
                ivs.push((f, Interval { values, null }));
            }
        }
    }
    Rule::from_parts(schema, &cons, &ivs).unwrap()
}

/// Random rows to predict: any code up to `max_code` (unseen values, every gap, null).
pub(crate) fn random_rows(
    rng: &mut rand_chacha::ChaCha8Rng,
    schema: &Schema,
    n: usize,
) -> Vec<Vec<u32>> {
    use rand::RngExt;
    (0..schema.n_features())
        .map(|f| {
            (0..n)
                .map(|_| rng.random_range(0..=schema.max_code(f)))
                .collect()
        })
        .collect()
}
