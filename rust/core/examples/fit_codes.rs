//! Times the core's two phases (the T BP runs at tau = 0; the model built from them) on integer
//! codes: `cargo run --release --example fit_codes -- FILE [av|oh] [T] [THREADS]`. FILE's first
//! line holds the domain sizes, every other line a row's codes then its label (0 or 1), as
//! `python benchmarks/write_codes.py adult.codes` writes Adult's.
#[path = "common/codes.rs"]
mod codes;

use codes::{read_codes, Codes};
use findrs_core::{fit_from_runs, fit_run_range, Columns, ConstraintKind, FitOptions, Method, Progress, RuleCount, Schema};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Codes { sizes, cols, labels } = read_codes(&args[1]);
    let kind = ConstraintKind::parse(args.get(2).map_or("av", |s| s.as_str())).unwrap();
    let t: u32 = args.get(3).map_or(100, |s| s.parse().unwrap());
    let threads: usize = args.get(4).map_or(1, |s| s.parse().unwrap());
    let schema = Schema::uniform(sizes, kind).unwrap();
    let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
    let opts = FitOptions {
        method: Method::Bp,
        tolerance: 0,
        n_runs: t,
        seed: 0,
        shuffle: true,
        n_rules: RuleCount::Auto { accuracy_ratio: 0.99 },
        ..FitOptions::default()
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let start = Instant::now();
        let runs = fit_run_range(&schema, &data, &labels, &opts, 0..t, &Progress::default()).unwrap();
        let t_runs = start.elapsed().as_secs_f64();
        let n: usize = runs.iter().map(|r| r.len()).sum();
        let start = Instant::now();
        let f = fit_from_runs(schema.clone(), &data, &labels, &opts, runs).unwrap().unwrap();
        let t_model = start.elapsed().as_secs_f64();
        println!(
            "{} rows, T {t}: runs {:.3} s ({n} rules), model {:.3} s ({} distinct, K {})",
            labels.len(),
            t_runs,
            t_model,
            f.model.rule_set().rules().len(),
            f.model.rule_set().n_kept()
        );
    });
}
