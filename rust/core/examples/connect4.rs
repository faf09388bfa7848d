//! Times the core on connect-4 (no Python): `cargo run --release --example connect4 -- DATA_DIR [T]`.
//! Training half: every other row (the Python benchmark uses the seed-0 split).
use findrs_core::data::Columns;
use findrs_core::ensemble::Progress;
use findrs_core::fit::{fit, FitOptions, RuleCount};
use findrs_core::model::Method;
use findrs_core::schema::{ConstraintKind, Schema};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).expect("usage: connect4 DATA_DIR [T] [av|oh]");
    let t: u32 = args.get(2).map_or(1, |s| s.parse().unwrap());
    let kind = ConstraintKind::parse(args.get(3).map_or("av", |s| s.as_str())).unwrap();
    let text = std::fs::read_to_string(format!("{dir}/connect-4.data")).expect("connect-4.data");
    let mut cols: Vec<Vec<u32>> = vec![Vec::new(); 42];
    let mut labels = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if i % 2 == 1 || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        for (j, v) in f[..42].iter().enumerate() {
            cols[j].push(match *v {
                "b" => 0,
                "o" => 1,
                _ => 2,
            });
        }
        labels.push(f[42] == "win");
    }
    let schema = Schema::uniform(vec![3; 42], kind).unwrap();
    let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
    if std::env::var("PHASES").is_ok() {
        phases(&schema, &data, &labels);
    }
    let method = if t == 1 { Method::FindRs } else { Method::Bp };
    let opts = FitOptions {
        method,
        tolerance: 0,
        n_runs: t,
        seed: 0,
        shuffle: true,
        n_rules: RuleCount::Auto {
            accuracy_ratio: 0.99,
        },
    };
    let start = Instant::now();
    let fitted = fit(schema, &data, &labels, &opts, &Progress::default()).unwrap();
    let secs = start.elapsed().as_secs_f64();
    let acc = fitted
        .model
        .predict(&data)
        .iter()
        .zip(&labels)
        .filter(|(a, b)| a == b)
        .count() as f64
        / labels.len() as f64;
    println!(
        "rows {} T {t} {:?}: {:.3} s, {} rules, K {}, train acc {:.4}",
        labels.len(),
        kind,
        secs,
        fitted.model.rules.len(),
        fitted.model.n_kept,
        acc
    );
}

#[allow(dead_code)]
fn phases(schema: &Schema, data: &Columns, labels: &[bool]) {
    use findrs_core::training::TrainingSet;
    let s = Instant::now();
    let ts = TrainingSet::new(schema.clone(), data, labels).unwrap();
    let a = s.elapsed().as_secs_f64();
    let order = findrs_core::ensemble::run_order(ts.n_positives(), 0, 0, true);
    let s = Instant::now();
    let run = findrs_core::run::find_rs(&ts, &order, 0);
    let b = s.elapsed().as_secs_f64();
    let s = Instant::now();
    let kept = findrs_core::prune::prune(&ts, &run.rules, &run.buckets);
    let c = s.elapsed().as_secs_f64();
    if let Ok(t) = std::env::var("PHASES_T") {
        let t: usize = t.parse().unwrap();
        let progress = findrs_core::ensemble::Progress::default();
        let s = Instant::now();
        let runs = findrs_core::ensemble::fit_runs(&ts, 0, t, 0, true, &progress).unwrap();
        let r = s.elapsed().as_secs_f64();
        let s = Instant::now();
        let agg = findrs_core::ensemble::aggregate(runs);
        let g = s.elapsed().as_secs_f64();
        let s = Instant::now();
        let index = findrs_core::row_index::RowIndex::from_all(schema, data);
        let curve = findrs_core::best_k::pruning_curve(
            schema, &index, labels, &agg.rules, &agg.alpha, t as u32,
        );
        let k = s.elapsed().as_secs_f64();
        println!("T={t}: runs {r:.3} s, aggregate {g:.3} s ({} rules), pruning curve {k:.3} s (auto K {})", agg.rules.len(), curve.auto_k(0.99));
    }
    println!(
        "phases: training set {a:.3} s, run {b:.3} s ({} rules), prune {c:.3} s ({} kept)",
        run.rules.len(),
        kept.len()
    );
}
