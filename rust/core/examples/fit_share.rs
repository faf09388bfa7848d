//! Times one FIND-RS fit under a share tolerance (docs/semantics.md §9.1), the kind of fit the
//! automatic settings choose on noisy data, on integer codes without Python:
//! `cargo run --release --example fit_share -- FILE EPSILON [MIN_SUPPORT] [SIMPLIFY 0|1] [REPEAT]
//! [THREADS]`.
//! FILE as `fit_codes` reads it (`python benchmarks/write_codes.py` writes Adult's; its first
//! line holds the domain sizes, every other line a row's codes then its label, 0 or 1). AV
//! features, shuffled positives (seed 0), `THREADS` threads (default one). Prints the fit's seconds (the least of
//! `REPEAT`), its rules and a hash of the model's JSON, so that two builds can be checked to fit
//! the same model.
#[path = "common/codes.rs"]
mod codes;

use codes::{read_codes, Codes};
use findrs_core::{fit, model_to_json, Columns, ConstraintKind, FitOptions, Method, Progress, Schema};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: fit_share FILE EPSILON [MIN_SUPPORT] [SIMPLIFY 0|1] [REPEAT] [THREADS]");
        std::process::exit(2);
    }
    let Codes { sizes, cols, labels } = read_codes(&args[1]);
    let epsilon: f64 = args[2].parse().unwrap();
    let min_support: u32 = args.get(3).map_or(0, |s| s.parse().unwrap());
    let simplify = args.get(4).is_some_and(|s| s == "1");
    let repeat: usize = args.get(5).map_or(1, |s| s.parse().unwrap());
    let threads: usize = args.get(6).map_or(1, |s| s.parse().unwrap());
    let schema = Schema::uniform(sizes, ConstraintKind::AttributeValue).unwrap();
    let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
    let opts = FitOptions {
        method: Method::FindRs,
        epsilon,
        min_support,
        seed: 0,
        shuffle: true,
        simplify,
        ..FitOptions::default()
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().unwrap();
    pool.install(|| {
        let mut best = f64::INFINITY;
        let mut out = None;
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            out = Some(fit(schema.clone(), &data, &labels, &opts, &Progress::default()).unwrap());
            best = best.min(start.elapsed().as_secs_f64());
        }
        let f = out.unwrap();
        let mut h = DefaultHasher::new();
        model_to_json(&f.model).hash(&mut h);
        println!(
            "{} rows, share {epsilon}, support {min_support}, simplify {simplify}, {threads} threads: {best:.3} s, {} rules, model hash {:016x}",
            labels.len(),
            f.model.rule_set().rules().len(),
            h.finish()
        );
    });
}
