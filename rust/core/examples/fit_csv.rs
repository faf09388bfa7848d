//! Times the core on a categorical CSV whose last column is the class (no Python):
//! `cargo run --release --example fit_csv -- FILE POSITIVE [T] [REPEAT]`, e.g.
//! `fit_csv "$FINDRS_DATA_DIR/tic-tac-toe.data" positive 100 50` or
//! `fit_csv "$FINDRS_DATA_DIR/connect-4.data" win 1 3`. Trains on every other row.
use findrs_core::{fit, Columns, ConstraintKind, FitOptions, Method, Progress, RuleCount, Schema};
use std::collections::HashMap;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!(
            "usage: fit_csv FILE POSITIVE [T] [REPEAT], e.g. fit_csv \"$FINDRS_DATA_DIR/car.data\" unacc\n\
             FILE is a UCI data file such as car.data (Car Evaluation), tic-tac-toe.data \
             (Tic-Tac-Toe Endgame) or connect-4.data (Connect-4) from the UCI Machine Learning \
             Repository (https://archive.ics.uci.edu)"
        );
        std::process::exit(2);
    }
    let (file, positive) = (&args[1], &args[2]);
    let t: u32 = args.get(3).map_or(100, |s| s.parse().unwrap());
    let repeat: usize = args.get(4).map_or(20, |s| s.parse().unwrap());
    let text = std::fs::read_to_string(file).expect("data file");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.trim().split(',').collect())
        .collect();
    let m = rows[0].len() - 1;
    let mut dicts: Vec<HashMap<&str, u32>> = vec![HashMap::new(); m];
    let mut cols: Vec<Vec<u32>> = vec![Vec::new(); m];
    let mut labels = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if i % 2 == 1 {
            continue;
        }
        for f in 0..m {
            let n = dicts[f].len() as u32;
            cols[f].push(*dicts[f].entry(r[f]).or_insert(n));
        }
        labels.push(r[m] == positive);
    }
    let schema = Schema::uniform(
        dicts.iter().map(|d| d.len() as u32).collect(),
        ConstraintKind::AttributeValue,
    )
    .unwrap();
    let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
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
        ..FitOptions::default()
    };
    let mut times = Vec::new();
    let mut out = None;
    for _ in 0..repeat {
        let start = Instant::now();
        out = Some(fit(schema.clone(), &data, &labels, &opts, &Progress::default()).unwrap());
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let f = out.unwrap();
    println!(
        "{} rows, T {t}: median {:.3} ms, {} rules, K {}",
        labels.len(),
        times[times.len() / 2] * 1e3,
        f.model.rule_set().rules().len(),
        f.model.rule_set().n_kept()
    );
}
