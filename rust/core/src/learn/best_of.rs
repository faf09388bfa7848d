//! FIND-RS's best of several runs (docs/semantics.md §5.3, beyond the paper): a FIND-RS fit
//! with `best_of = T` makes the runs `0..T` of its seed, each exactly the run `t` a BO or BP
//! fit of `T` runs makes (§5), and keeps the one whose rule set (a row is positive when one of
//! its rules covers it) classifies the most training rows correctly.
//!
//! Invariant: the choice is made in integers on the training rows, ties go to the earliest run,
//! and a run that kept no rule is never chosen, so the chosen run depends on the data, the
//! options and the seed only (never on the thread count), and a FIND-RS fit of that one run
//! (`run = t`, `best_of = 1`) gives exactly its rules.

use crate::data::bitset::{count_ones, set, words_for};
use crate::data::row_index::RowIndex;
use crate::data::rule::{Rule, Terms};
use crate::data::schema::Schema;
use rayon::prelude::*;

/// Which run a `best_of` fit kept, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestOf {
    /// The index of the run kept (its order is stream `run` of the seed).
    pub run: u32,
    /// For every run `0..T`, the training rows its rule set classifies correctly.
    pub correct: Vec<u32>,
}

/// The training rows the rule set `rules` (a DNF: positive when a rule covers the row)
/// classifies correctly, over the rows of `index` with the positive rows' bitset `positives`.
pub fn correct_rows(schema: &Schema, index: &RowIndex, positives: &[u64], rules: &[Rule]) -> u32 {
    let mut covered = vec![0u64; index.n_words()];
    let mut terms = Terms::new();
    for rule in rules {
        rule.terms(schema, &mut terms);
        index.or_covered_into(&terms, &mut covered);
    }
    let n_pos = count_ones(positives);
    let cov = count_ones(&covered);
    let tp: usize = covered.iter().zip(positives).map(|(c, p)| (c & p).count_ones() as usize).sum();
    // Right: the covered positives and the negatives not covered.
    (tp + (index.n_rows() - n_pos) - (cov - tp)) as u32
}

/// The run to keep among `runs` (in run order) on the indexed training rows labelled by
/// `labels`: the most rows right, a tie to the earliest, never a run without rules; `None`
/// when every run is empty.
pub fn choose(schema: &Schema, index: &RowIndex, labels: &[bool], runs: &[Vec<Rule>]) -> Option<BestOf> {
    let mut positives = vec![0u64; words_for(labels.len())];
    for (i, _) in labels.iter().enumerate().filter(|(_, &y)| y) {
        set(&mut positives, i);
    }
    let correct: Vec<u32> = runs.par_iter().map(|r| correct_rows(schema, index, &positives, r)).collect();
    let run = (0..runs.len())
        .filter(|&t| !runs[t].is_empty())
        .max_by_key(|&t| (correct[t], std::cmp::Reverse(t)))?;
    Some(BestOf { run: run as u32, correct })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::columns::Columns;
    use crate::learn::ensemble::Progress;
    use crate::learn::fit::{fit, fit_run_range, FitOptions};
    use crate::io::json::model_to_json;
    use crate::predict::model::Method;
    use crate::learn::run::tests::{columns_of, random_data};
    use crate::data::schema::ConstraintKind;

    /// A row-by-row count of what [`correct_rows`] counts on bitsets.
    fn naive_correct(schema: &Schema, rules: &[Rule], rows: &[Vec<u32>], labels: &[bool]) -> u32 {
        rows.iter()
            .zip(labels)
            .filter(|(r, &y)| rules.iter().any(|rule| rule.covers_row(schema, r)) == y)
            .count() as u32
    }

    #[test]
    fn the_kept_run_is_the_first_with_the_most_rows_right() {
        let domains = [3u32, 2, 4, 3, 2];
        let mut other_than_first = 0;
        for seed in 0..40u64 {
            let (rows, labels) = random_data(seed + 900, 80, &domains);
            let kind = if seed % 2 == 0 { ConstraintKind::AttributeValue } else { ConstraintKind::OneHot };
            let schema = Schema::uniform(domains.to_vec(), kind).unwrap();
            let cols = columns_of(&rows, domains.len());
            let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
            let p = Progress::default();
            let t = 7u32;
            let base = FitOptions {
                method: Method::FindRs,
                tolerance: (seed % 3) as u32,
                epsilon: if seed % 5 == 0 { 0.2 } else { 0.0 },
                seed,
                shuffle: true,
                simplify: seed % 4 == 1,
                ..FitOptions::default()
            };
            let best = FitOptions { best_of: t, ..base.clone() };
            let fitted = fit(schema.clone(), &data, &labels, &best, &p).unwrap();
            let chosen = fitted.best_of.clone().expect("a best_of fit says which run it kept");
            // Each run refitted alone: its rules, and their rows right counted row by row.
            let mut alone = Vec::new();
            for r in 0..t {
                let o = FitOptions { run: r, ..base.clone() };
                let rules = fit_run_range(&schema, &data, &labels, &o, 0..1, &p).unwrap().remove(0);
                alone.push(rules);
            }
            let counts: Vec<u32> = alone.iter().map(|r| naive_correct(&schema, r, &rows, &labels)).collect();
            assert_eq!(chosen.correct, counts, "seed {seed}");
            let top = (0..t as usize).filter(|&r| !alone[r].is_empty()).map(|r| counts[r]).max().unwrap();
            let first = (0..t as usize).find(|&r| !alone[r].is_empty() && counts[r] == top).unwrap();
            assert_eq!(chosen.run as usize, first, "seed {seed}: ties go to the earliest run");
            other_than_first += (first != 0) as u32;
            // The refit of the recorded run gives the same model.
            let refit = fit(schema.clone(), &data, &labels, &FitOptions { run: chosen.run, ..base.clone() }, &p).unwrap();
            assert_eq!(model_to_json(&refit.model), model_to_json(&fitted.model), "seed {seed}");
            assert!(refit.best_of.is_none());
            // Runs 0..T are those of a BO fit of T runs.
            let bo = FitOptions { method: Method::Bo, n_runs: t, ..base.clone() };
            let bo_runs = fit_run_range(&schema, &data, &labels, &bo, 0..t, &p).unwrap();
            assert_eq!(bo_runs, alone, "seed {seed}");
            // Any thread count keeps the same run.
            for n in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                let again = pool.install(|| fit(schema.clone(), &data, &labels, &best, &p).unwrap());
                assert_eq!(again.best_of, fitted.best_of);
                assert_eq!(model_to_json(&again.model), model_to_json(&fitted.model));
            }
        }
        assert!(other_than_first > 5, "the data should make later runs win sometimes ({other_than_first})");
    }

    #[test]
    fn best_of_one_is_the_run_and_bad_options_are_errors() {
        let domains = [3u32, 2, 4];
        let (rows, labels) = random_data(7, 50, &domains);
        let schema = Schema::uniform(domains.to_vec(), ConstraintKind::AttributeValue).unwrap();
        let cols = columns_of(&rows, domains.len());
        let data = Columns::new(&schema, cols.iter().map(|c| c.as_slice()).collect()).unwrap();
        let p = Progress::default();
        let base = FitOptions { seed: 3, shuffle: true, ..FitOptions::default() };
        let one = fit(schema.clone(), &data, &labels, &FitOptions { best_of: 1, ..base.clone() }, &p).unwrap();
        let plain = fit(schema.clone(), &data, &labels, &base, &p).unwrap();
        assert_eq!(model_to_json(&one.model), model_to_json(&plain.model));
        assert!(one.best_of.is_none());
        for bad in [
            FitOptions { best_of: 0, ..base.clone() },
            FitOptions { best_of: 3, run: 1, ..base.clone() },
            FitOptions { method: Method::Bo, n_runs: 3, best_of: 2, ..base.clone() },
            FitOptions { method: Method::Bp, n_runs: 3, run: 1, ..base.clone() },
        ] {
            assert!(fit(schema.clone(), &data, &labels, &bad, &p).is_err(), "{bad:?}");
        }
    }
}
