//! Interval features seen by a predictor as small categorical features: the gap codes of each
//! interval feature are cut into *cells*, the elementary intervals between the endpoints the
//! given rules use, so a rule allows a cell entirely or not at all and the table-based
//! [`Predictor`](crate::predict::predictor::Predictor) needs no interval logic.
//!
//! Invariant: for every rule `r` of the rule list the cells were derived from and every row
//! `x`, the derived rule covers the recoded row iff `r` covers `x`: on an AV or OH feature both
//! are the same slots; on an interval feature `f` with cut points `0 = b_0 < b_1 < ... < b_m`
//! (the lower ends `lo` and the successors `hi + 1` of the rules' ranges, up to `2d`), gap code
//! `g` lies in cell `t` iff `b_t <= g < b_{t+1}`, every cell lies inside or outside each range,
//! and null has a cell of its own (the last, `m`).

use crate::data::bitset::{self, words_for};
use crate::data::columns::Columns;
use crate::data::interval::{null_code, Bounds};
use crate::data::rule::Rule;
use crate::data::schema::{ConstraintKind, Schema};

/// The recoding of a schema's interval features into cells (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Cells {
    /// Per feature: the cell of every gap code (null's last), or None for an AV or OH feature.
    maps: Vec<Option<Vec<u32>>>,
}

impl Cells {
    /// The cells of `rules` over `schema`, the categorical schema they make (each interval
    /// feature becomes a one-hot feature whose codes are its cells, null's last) and the rules
    /// over it.
    pub fn derive(schema: &Schema, rules: &[Rule]) -> (Self, Schema, Vec<Rule>) {
        let m = schema.n_features();
        let mut maps: Vec<Option<Vec<u32>>> = vec![None; m];
        let mut cuts: Vec<Vec<u32>> = vec![Vec::new(); m];
        let mut domains = schema.domain_sizes().to_vec();
        let mut kinds = schema.kinds().to_vec();
        for (j, l) in schema.intervals().iter().enumerate() {
            let d = l.n_values;
            let mut b = vec![0u32];
            for r in rules {
                let iv = r.bounds(schema, j);
                if iv.is_free(d) || iv.is_empty() {
                    continue;
                }
                b.push(iv.lo);
                if iv.hi < 2 * d {
                    b.push(iv.hi + 1);
                }
            }
            b.sort_unstable();
            b.dedup();
            let n_cells = b.len() as u32;
            let mut map = Vec::with_capacity(2 * d as usize + 2);
            let mut t = 0usize;
            for g in 0..=2 * d {
                while t + 1 < b.len() && b[t + 1] <= g {
                    t += 1;
                }
                map.push(t as u32);
            }
            map.push(n_cells);
            maps[l.feature] = Some(map);
            cuts[l.feature] = b;
            domains[l.feature] = n_cells + 1;
            kinds[l.feature] = ConstraintKind::OneHot;
        }
        let derived = Schema::new(domains, kinds).expect("cells make a valid schema");
        let cells = Self { maps };
        let rules = rules
            .iter()
            .map(|r| cells.derive_rule(schema, &derived, &cuts, r))
            .collect();
        (cells, derived, rules)
    }

    fn derive_rule(&self, schema: &Schema, derived: &Schema, cuts: &[Vec<u32>], r: &Rule) -> Rule {
        let mut words = vec![0u64; words_for(derived.n_slots())];
        for (f, cuts) in cuts.iter().enumerate() {
            let out = derived.slots(f);
            match schema.interval_index(f) {
                None => {
                    for (s, t) in schema.slots(f).zip(out) {
                        if r.allows(s) {
                            bitset::set(&mut words, t);
                        }
                    }
                }
                Some(j) => {
                    let d = schema.domain_size(f);
                    let b: Bounds = r.bounds(schema, j);
                    if b.is_free(d) {
                        bitset::set_range(&mut words, out.start, out.end);
                        continue;
                    }
                    let map = self.maps[f].as_ref().expect("an interval feature");
                    if !b.is_empty() {
                        let (first, last) = (map[b.lo as usize], map[b.hi as usize]);
                        debug_assert_eq!(cuts[first as usize], b.lo);
                        bitset::set_range(
                            &mut words,
                            out.start + first as usize,
                            out.start + last as usize + 1,
                        );
                    }
                    if b.null {
                        bitset::set(&mut words, out.start + map[null_code(d) as usize] as usize);
                    }
                }
            }
        }
        Rule::from_words_unchecked(words)
    }

    /// The columns of rows `start..end` of `data`, interval features recoded to cells: returns
    /// the recoded columns (None where a feature is borrowed unchanged).
    pub fn recode(&self, data: &Columns, start: usize, end: usize) -> Vec<Option<Vec<u32>>> {
        self.maps
            .iter()
            .enumerate()
            .map(|(f, map)| {
                map.as_ref().map(|map| {
                    data.column(f)[start..end]
                        .iter()
                        .map(|&c| map[c as usize])
                        .collect()
                })
            })
            .collect()
    }

    /// Rows `start..end` of `data` with the recoded columns `recoded` (from [`Self::recode`]).
    pub fn columns<'a>(
        data: &Columns<'a>,
        recoded: &'a [Option<Vec<u32>>],
        start: usize,
        end: usize,
    ) -> Columns<'a> {
        let cols = recoded
            .iter()
            .enumerate()
            .map(|(f, r)| match r {
                Some(r) => r.as_slice(),
                None => &data.column(f)[start..end],
            })
            .collect();
        Columns::from_checked(cols, end - start)
    }
}
