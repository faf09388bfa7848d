//! Numeric columns as interval constraints versus 10 equal-width bins, core only (no Python):
//! `cargo run --release --example fit_numeric -- [DATA_DIR] [--splits N] [--repeat R]
//! [--datasets banknote,wine,adult] [--encoding av|oh] [--methods find-rs,bp]
//! [--numeric intervals,bins] [--widen]`; the data directory defaults to `$FINDRS_DATA_DIR`.
//!
//! Datasets: banknote (4 numeric columns), wine (13 numeric, each class against the rest) and
//! Adult (6 integer columns, 8 categorical; trained on `adult.data`, tested on `adult.test`).
//! Banknote and wine: split 0 trains on every other row and tests on the rest, split `k > 0` on
//! a random half (ChaCha8 seed `k`). Categorical columns (and bins) use the `--encoding` kind
//! (default AV); numeric columns are either interval features (exact values) or binned as
//! findrs' Python encoder does (scikit-learn's uniform `KBinsDiscretizer`: 10 equal-width bins
//! between the training min and max, values nudged by `1e-8 + 1e-5 |x|`, integer columns with
//! at most 10 distinct values categorical). For FIND-RS (one run, shuffled with seed 0) and
//! BP (T = 100, automatic K) it prints test accuracy, voting rules, conditions per voting rule
//! and the fit time (median of `--repeat` fits of already encoded columns; the machine's other
//! load makes these noisy).
//!
//! `--widen` fits with the core's `widen` option: each run's intervals are widened one feature
//! at a time (in feature order) as far as they go without covering a training negative the
//! rule did not cover (docs/semantics.md §11). It shows how much of the difference to bins comes
//! from FIND-S's tight [min, max] ends.
use findrs_core::{fit, null_code, Columns, ConstraintKind, FitOptions, Method, Progress, RuleCount, Schema, Widen};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::time::Instant;

/// A table of string fields with a binary label.
struct Table {
    rows: Vec<Vec<String>>,
    labels: Vec<bool>,
}

struct Dataset {
    name: String,
    train: Table,
    /// None: split `train` in halves.
    test: Option<Table>,
    numeric: Vec<usize>,
}

fn read_table(
    path: &std::path::Path,
    class_col: usize,
    positive: &str,
    skip: impl Fn(&str) -> bool,
) -> Table {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !skip(l))
    {
        let mut fields: Vec<String> = line.split(',').map(|f| f.trim().to_string()).collect();
        let class = fields.remove(class_col);
        labels.push(class.trim_end_matches('.') == positive);
        rows.push(fields);
    }
    Table { rows, labels }
}

fn datasets(dir: &std::path::Path, names: &[String]) -> Vec<Dataset> {
    let mut out = Vec::new();
    for name in names {
        match name.as_str() {
            "banknote" => out.push(Dataset {
                name: "banknote".into(),
                train: read_table(
                    &dir.join("data_banknote_authentication.txt"),
                    4,
                    "1",
                    |_| false,
                ),
                test: None,
                numeric: (0..4).collect(),
            }),
            "wine" => {
                for class in ["1", "2", "3"] {
                    out.push(Dataset {
                        name: format!("wine {class} vs rest"),
                        train: read_table(&dir.join("wine.data"), 0, class, |_| false),
                        test: None,
                        numeric: (0..13).collect(),
                    });
                }
            }
            "adult" => {
                let skip = |l: &str| l.starts_with('|');
                out.push(Dataset {
                    name: "adult".into(),
                    train: read_table(&dir.join("adult.data"), 14, ">50K", skip),
                    test: Some(read_table(&dir.join("adult.test"), 14, ">50K", skip)),
                    // age, fnlwgt, education-num, capital-gain, capital-loss, hours-per-week
                    numeric: vec![0, 2, 4, 10, 11, 12],
                });
            }
            other => panic!("unknown dataset {other:?} (banknote, wine, adult)"),
        }
    }
    out
}

/// How one column is encoded.
enum Encoder {
    /// Training values to codes; anything else is the unseen code.
    Categorical(HashMap<String, u32>),
    /// Sorted distinct non-null training values (gap codes, see `findrs_core::interval`).
    Interval { values: Vec<f64>, null_seen: bool },
    /// Inner bin edges and the occupied bins (their rank is the code).
    Bins { inner: Vec<f64>, occupied: Vec<u32> },
}

fn number(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|x| !x.is_nan())
}

impl Encoder {
    fn fit(col: &[&str], numeric: bool, intervals: bool) -> Self {
        let nums: Vec<f64> = if numeric {
            col.iter().filter_map(|s| number(s)).collect()
        } else {
            vec![]
        };
        let mut distinct = nums.clone();
        distinct.sort_by(|a, b| a.partial_cmp(b).unwrap());
        distinct.dedup();
        let integer = nums.iter().all(|x| x.fract() == 0.0);
        if !numeric || (!intervals && integer && distinct.len() <= 10) {
            let mut values: Vec<&str> = col.to_vec();
            values.sort_unstable();
            values.dedup();
            return Self::Categorical(
                values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (v.to_string(), i as u32))
                    .collect(),
            );
        }
        if intervals {
            let null_seen = col.iter().any(|s| number(s).is_none());
            return Self::Interval {
                values: distinct,
                null_seen,
            };
        }
        let finite: Vec<f64> = nums.iter().copied().filter(|x| x.is_finite()).collect();
        let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let inner: Vec<f64> = (1..10).map(|i| lo + (hi - lo) * i as f64 / 10.0).collect();
        let mut enc = Self::Bins {
            inner,
            occupied: Vec::new(),
        };
        let mut occupied: Vec<u32> = nums.iter().map(|&x| enc.bin(x)).collect();
        occupied.sort_unstable();
        occupied.dedup();
        if let Self::Bins { occupied: o, .. } = &mut enc {
            *o = occupied;
        }
        enc
    }

    /// KBinsDiscretizer's bin of `x` (null stays with the caller).
    fn bin(&self, x: f64) -> u32 {
        let Self::Bins { inner, .. } = self else {
            unreachable!()
        };
        let nudged = if x.is_infinite() {
            x
        } else {
            x + (1e-8 + 1e-5 * x.abs())
        };
        inner.partition_point(|&e| e <= nudged) as u32
    }

    fn domain(&self) -> u32 {
        match self {
            Self::Categorical(m) => m.len() as u32,
            Self::Interval { values, .. } => values.len() as u32,
            Self::Bins { occupied, .. } => occupied.len() as u32 + 1, // + null
        }
    }

    fn code(&self, s: &str) -> u32 {
        match self {
            Self::Categorical(m) => *m.get(s).unwrap_or(&(m.len() as u32)),
            Self::Interval { values, .. } => {
                let d = values.len() as u32;
                match number(s) {
                    None => null_code(d),
                    Some(x) => {
                        let i = values.partition_point(|&v| v < x);
                        if i < values.len() && values[i] == x {
                            2 * i as u32 + 1
                        } else {
                            2 * i as u32
                        }
                    }
                }
            }
            Self::Bins { occupied, .. } => match number(s) {
                None => occupied.len() as u32, // null: its own code
                Some(x) => {
                    let b = self.bin(x);
                    match occupied.binary_search(&b) {
                        Ok(i) => i as u32,
                        Err(_) => occupied.len() as u32 + 1, // unseen
                    }
                }
            },
        }
    }
}

struct Outcome {
    accuracy: f64,
    rules: usize,
    conditions: f64,
    ms: f64,
}

#[allow(clippy::too_many_arguments)]
fn run(
    train: &Table,
    test: &Table,
    numeric: &[usize],
    intervals: bool,
    kind: ConstraintKind,
    method: Method,
    repeat: usize,
    widen_ends: bool,
) -> Outcome {
    let m = train.rows[0].len();
    let encoders: Vec<Encoder> = (0..m)
        .map(|f| {
            let col: Vec<&str> = train.rows.iter().map(|r| r[f].as_str()).collect();
            Encoder::fit(&col, numeric.contains(&f), intervals)
        })
        .collect();
    let kinds: Vec<ConstraintKind> = encoders
        .iter()
        .map(|e| match e {
            Encoder::Interval { .. } => ConstraintKind::Interval,
            _ => kind,
        })
        .collect();
    let nulls = encoders
        .iter()
        .map(|e| {
            matches!(
                e,
                Encoder::Interval {
                    null_seen: true,
                    ..
                }
            )
        })
        .collect();
    let schema = Schema::with_nulls(encoders.iter().map(Encoder::domain).collect(), kinds, nulls)
        .expect("schema");
    let encode = |t: &Table| -> Vec<Vec<u32>> {
        (0..m)
            .map(|f| t.rows.iter().map(|r| encoders[f].code(&r[f])).collect())
            .collect()
    };
    let (train_cols, test_cols) = (encode(train), encode(test));
    let train_data =
        Columns::new(&schema, train_cols.iter().map(|c| c.as_slice()).collect()).expect("train");
    let test_data =
        Columns::new(&schema, test_cols.iter().map(|c| c.as_slice()).collect()).expect("test");
    let opts = FitOptions {
        method,
        tolerance: 0,
        n_runs: if method == Method::FindRs { 1 } else { 100 },
        seed: 0,
        shuffle: true,
        n_rules: RuleCount::Auto {
            accuracy_ratio: 0.99,
        },
        widen: if widen_ends && intervals { Widen::Nearest } else { Widen::No },
        ..FitOptions::default()
    };
    let mut times = Vec::new();
    let mut fitted = None;
    for _ in 0..repeat {
        let start = Instant::now();
        fitted = Some(
            fit(
                schema.clone(),
                &train_data,
                &train.labels,
                &opts,
                &Progress::default(),
            )
            .expect("fit"),
        );
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let model = fitted.expect("one fit").model;
    let pred = model.predict(&test_data);
    let correct = pred
        .iter()
        .zip(&test.labels)
        .filter(|(p, y)| p == y)
        .count();
    let voting = &model.rule_set().rules()[..model.rule_set().n_kept()];
    let conditions: usize = voting
        .iter()
        .map(|r| (0..m).filter(|&f| !r.is_free(&schema, f)).count())
        .sum();
    Outcome {
        accuracy: correct as f64 / test.labels.len() as f64,
        rules: voting.len(),
        conditions: conditions as f64 / voting.len().max(1) as f64,
        ms: times[times.len() / 2] * 1e3,
    }
}

/// Split `k` of a table: every other row for 0, a random half otherwise.
fn split(t: &Table, k: u64) -> (Table, Table) {
    let mut idx: Vec<usize> = (0..t.rows.len()).collect();
    if k > 0 {
        idx.shuffle(&mut ChaCha8Rng::seed_from_u64(k));
    } else {
        idx.sort_by_key(|&i| (i % 2, i));
    }
    let half = t.rows.len().div_ceil(2);
    let take = |ids: &[usize]| Table {
        rows: ids.iter().map(|&i| t.rows[i].clone()).collect(),
        labels: ids.iter().map(|&i| t.labels[i]).collect(),
    };
    (take(&idx[..half]), take(&idx[half..]))
}

fn mean_sd(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, v.sqrt())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut dir = std::env::var("FINDRS_DATA_DIR").ok();
    let (mut splits, mut repeat, mut kind) = (1u64, 5usize, ConstraintKind::AttributeValue);
    let mut widen_ends = false;
    let mut names: Vec<String> = vec!["banknote".into(), "wine".into(), "adult".into()];
    let mut methods = vec![Method::FindRs, Method::Bp];
    let mut numeric = vec![true, false];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().expect("a value after the flag").clone();
        match a.as_str() {
            "--splits" => splits = value().parse().expect("--splits N"),
            "--widen" => widen_ends = true,
            "--repeat" => repeat = value().parse().expect("--repeat R"),
            "--datasets" => names = value().split(',').map(String::from).collect(),
            "--encoding" => kind = ConstraintKind::parse(&value()).expect("--encoding av|oh"),
            "--methods" => {
                methods = value()
                    .split(',')
                    .map(|m| Method::parse(m).expect("method"))
                    .collect()
            }
            "--numeric" => {
                numeric = value()
                    .split(',')
                    .map(|n| match n {
                        "intervals" => true,
                        "bins" => false,
                        other => panic!("--numeric intervals,bins, got {other:?}"),
                    })
                    .collect()
            }
            other => dir = Some(other.to_string()),
        }
    }
    let dir = dir.expect("pass the data directory or set FINDRS_DATA_DIR");
    println!(
        "| dataset | numeric as | method | accuracy | voting rules | conditions/rule | fit ms |"
    );
    println!("|---|---|---|---|---|---|---|");
    for ds in datasets(std::path::Path::new(&dir), &names) {
        let n_splits = if ds.test.is_some() { 1 } else { splits };
        for &method in &methods {
            for &intervals in &numeric {
                let mut acc = Vec::new();
                let mut rules = Vec::new();
                let mut conds = Vec::new();
                let mut ms = Vec::new();
                for k in 0..n_splits {
                    let (train, test) = match &ds.test {
                        Some(test) => (None, test),
                        None => (Some(split(&ds.train, k)), &ds.train),
                    };
                    let (tr, te) = match &train {
                        Some((tr, te)) => (tr, te),
                        None => (&ds.train, test),
                    };
                    let reps = if ds.name == "adult" {
                        repeat.min(3)
                    } else {
                        repeat
                    };
                    let o = run(
                        tr,
                        te,
                        &ds.numeric,
                        intervals,
                        kind,
                        method,
                        reps,
                        widen_ends,
                    );
                    acc.push(o.accuracy);
                    rules.push(o.rules as f64);
                    conds.push(o.conditions);
                    ms.push(o.ms);
                }
                let (a, sd) = mean_sd(&acc);
                let acc_text = if n_splits > 1 {
                    format!("{a:.3} ± {sd:.3}")
                } else {
                    format!("{a:.3}")
                };
                println!(
                    "| {} | {} | {} | {} | {:.1} | {:.2} | {:.1} |",
                    ds.name,
                    match (intervals, widen_ends) {
                        (true, false) => "intervals",
                        (true, true) => "intervals, widened",
                        _ => "10 bins",
                    },
                    if method == Method::FindRs {
                        "FIND-RS"
                    } else {
                        "BP100"
                    },
                    acc_text,
                    mean_sd(&rules).0,
                    mean_sd(&conds).0,
                    mean_sd(&ms).0,
                );
            }
        }
    }
}
