//! Simplification and a rule budget on a categorical CSV whose last column is the class (no
//! Python): `cargo run --release --example fit_simplify -- FILE POSITIVE [T] [MAX_RULES]`, e.g.
//! `fit_simplify "$FINDRS_DATA_DIR/kr-vs-kp.data" won 100 5`. Trains on every other row and
//! fits BP (T runs) with and without `simplify`, then with the budget; prints per fit the median
//! time of 5, the rules, the conditions per voting rule and the training accuracy.
use findrs_core::{fit, Columns, ConstraintKind, FitOptions, Fitted, Method, Progress, RuleCount, Schema};
use std::collections::HashMap;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: fit_simplify FILE POSITIVE [T] [MAX_RULES], FILE a UCI data file such as kr-vs-kp.data");
        std::process::exit(2);
    }
    let (file, positive) = (&args[1], &args[2]);
    let t: u32 = args.get(3).map_or(100, |s| s.parse().unwrap());
    let max_rules: Option<usize> = args.get(4).map(|s| s.parse().unwrap());
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
    for r in rows.iter().step_by(2) {
        for f in 0..m {
            let n = dicts[f].len() as u32;
            cols[f].push(*dicts[f].entry(r[f]).or_insert(n));
        }
        labels.push(r[m] == positive);
    }
    let schema = Schema::uniform(dicts.iter().map(|d| d.len() as u32).collect(), ConstraintKind::AttributeValue).unwrap();
    let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
    let method = if t == 1 { Method::FindRs } else { Method::Bp };
    let mut settings = vec![(false, None), (true, None)];
    if max_rules.is_some() {
        settings.extend([(false, max_rules), (true, max_rules)]);
    }
    for (simplify, max_rules) in settings {
        let opts = FitOptions {
            method,
            tolerance: 0,
            n_runs: t,
            seed: 0,
            shuffle: true,
            n_rules: RuleCount::Auto { accuracy_ratio: 0.99 },
            simplify,
            max_rules,
            ..FitOptions::default()
        };
        let mut times = Vec::new();
        let mut out: Option<Fitted> = None;
        for _ in 0..5 {
            let start = Instant::now();
            out = Some(fit(schema.clone(), &data, &labels, &opts, &Progress::default()).unwrap());
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let f = out.unwrap();
        let set = f.model.rule_set();
        let k = set.n_kept();
        let conditions: usize = set.rules()[..k].iter().map(|r| r.n_constraints(&schema)).sum();
        let right = f.model.predict(&data).iter().zip(&labels).filter(|(p, y)| p == y).count();
        let budget = f.budget.map_or(String::new(), |b| {
            format!(", before the budget {:.4}", b.full_correct as f64 / labels.len() as f64)
        });
        println!(
            "simplify {simplify:5} max_rules {max_rules:?}: median {:.1} ms, {} rules found, {k} vote{}, {:.2} conditions per voting rule, training accuracy {:.4}{budget}",
            times[times.len() / 2] * 1e3,
            set.rules().len(),
            if set.is_dnf() { " as a DNF" } else { "" },
            conditions as f64 / k as f64,
            right as f64 / labels.len() as f64,
        );
    }
}
