//! The public view of rules: each rule as a list of constraints, each constraint a feature and
//! the training codes it allows plus whether a value never seen in training passes it.
//!
//! This is what exporters print (text, SQL, compiled Polars expressions) and how the JSON form
//! writes rules: a table of the distinct constraints of a list of rules, and each rule as ids
//! into it. Whether an unseen value passes a constraint is read from the rule's canonical slot
//! set ([`Rule`]'s invariant, docs/semantics.md §2), so that rule lives in one place, the rule
//! module, and every printer reads it from here.
//!
//! An interval constraint (an ordered feature, [`interval`](crate::data::interval)) lists the gap codes
//! of its first and last training values (one code when they are the same value), then null's
//! code when null passes, as [`Rule::constraints`](crate::data::rule::Rule::constraints) does
//! (`unseen_passes` is false: values between and beyond the training values are its reading,
//! given by the ends); the JSON form writes it so too. Two numbers whatever the number of values
//! inside: a BP model of Adult's `fnlwgt` (some 20,000 values) lists its intervals' ends, not
//! their values.
//!
//! Invariant: a [`ConstraintTable`] lists each distinct constraint of its rules once, sorted by
//! feature then codes, and rule `i`'s ids (ascending, hence in feature order) name exactly the
//! constraints of rule `i`; [`ConstraintTable::rules`] rebuilds the rules themselves.

use crate::data::bitset;
use crate::data::error::{FindRsError, Result};
use crate::data::interval::null_code;
use crate::data::rule::{interval_end_codes, Rule};
use crate::data::schema::{ConstraintKind, Schema};
use std::collections::HashMap;

/// One constraint of a rule (docs/semantics.md §2).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Constraint {
    /// The feature constrained.
    pub feature: usize,
    /// The training codes allowed, ascending.
    pub codes: Vec<u32>,
    /// Whether a value never seen in training (the unseen code) passes the constraint (false
    /// for an interval, see the module docs).
    pub unseen_passes: bool,
}

/// The distinct constraints of a list of rules and the rules as constraint ids (see the
/// module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstraintTable {
    pub constraints: Vec<Constraint>,
    /// Rule `i`'s constraint ids are `ids[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<u64>,
    pub ids: Vec<u32>,
}

impl ConstraintTable {
    /// The table of `rules` (rules of `schema`).
    pub fn of_rules(schema: &Schema, rules: &[Rule]) -> Self {
        // A feature's allowed slots as the key: one word for features of up to 64 slots (every
        // slot feature in practice), the code list otherwise.
        let mut narrow: HashMap<(u32, u64), u32> = HashMap::new();
        let mut wide: HashMap<(usize, Vec<u32>), u32> = HashMap::new();
        let mut found: Vec<Constraint> = Vec::new();
        let mut offsets = Vec::with_capacity(rules.len() + 1);
        let mut ids = Vec::new();
        offsets.push(0u64);
        for rule in rules {
            for f in 0..schema.n_features() {
                let slots = schema.slots(f);
                let width = slots.len();
                let next = found.len() as u32;
                let new_constraint = |codes: Vec<u32>| Constraint {
                    feature: f,
                    codes,
                    unseen_passes: rule.allows(schema.unseen_slot(f)),
                };
                let id = if schema.kind(f) == ConstraintKind::Interval {
                    // An interval lists the gap codes of its values, then null's (as
                    // `Rule::constraints` does); unseen values are not its notion.
                    let Some(iv) = rule.interval(schema, f) else { continue };
                    let d = schema.domain_size(f);
                    let mut codes = interval_end_codes(&iv);
                    if iv.null {
                        codes.push(null_code(d));
                    }
                    *wide.entry((f, codes)).or_insert_with_key(|(_, codes)| {
                        found.push(Constraint { feature: f, codes: codes.clone(), unseen_passes: false });
                        next
                    })
                } else if width <= 64 {
                    let bits = bitset::extract(rule.allowed(), slots.start, width);
                    if bits.count_ones() as usize == width {
                        continue; // `?`
                    }
                    *narrow.entry((f as u32, bits)).or_insert_with(|| {
                        let codes = (0..width as u32 - 1).filter(|&c| bits >> c & 1 == 1).collect();
                        found.push(new_constraint(codes));
                        next
                    })
                } else {
                    if rule.is_free(schema, f) {
                        continue;
                    }
                    let codes: Vec<u32> = (0..schema.domain_size(f)).filter(|&c| rule.allows(schema.slot(f, c))).collect();
                    *wide.entry((f, codes)).or_insert_with_key(|(_, codes)| {
                        found.push(new_constraint(codes.clone()));
                        next
                    })
                };
                ids.push(id);
            }
            offsets.push(ids.len() as u64);
        }
        // Number the constraints in (feature, codes) order.
        let mut order: Vec<u32> = (0..found.len() as u32).collect();
        order.sort_by(|&a, &b| found[a as usize].cmp(&found[b as usize]));
        let mut rank = vec![0u32; found.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        for id in &mut ids {
            *id = rank[*id as usize];
        }
        for w in offsets.windows(2) {
            ids[w[0] as usize..w[1] as usize].sort_unstable();
        }
        let mut slots: Vec<Option<Constraint>> = found.into_iter().map(Some).collect();
        let constraints = order
            .iter()
            .map(|&i| slots[i as usize].take().expect("each constraint once"))
            .collect();
        Self {
            constraints,
            offsets,
            ids,
        }
    }

    pub fn n_rules(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The constraint ids of rule `i`.
    pub fn rule(&self, i: usize) -> &[u32] {
        &self.ids[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Checks a constraint `(feature, codes)` against `schema` as it would be read from a file:
    /// a known feature, codes ascending and in its domain, one code for an AV feature, and not
    /// every value of a feature with two or more (that is no constraint, `?`).
    pub fn check(schema: &Schema, feature: usize, codes: &[u32]) -> Result<()> {
        let bad = |m: String| Err(FindRsError::InvalidData(m));
        if feature >= schema.n_features() {
            return bad(format!(
                "a constraint names feature {feature}, but there are {} features",
                schema.n_features()
            ));
        }
        let d = schema.domain_size(feature);
        if codes.is_empty() {
            return bad(format!("a constraint on feature {feature} allows no value"));
        }
        if codes.windows(2).any(|w| w[0] >= w[1]) {
            return bad(format!("a constraint's codes on feature {feature} are not ascending: {codes:?}"));
        }
        if schema.kind(feature) == ConstraintKind::Interval {
            // Gap codes: `Rule::from_constraints` checks they make an interval.
            return Ok(());
        }
        if let Some(&c) = codes.iter().find(|&&c| c >= d) {
            return bad(format!(
                "a constraint on feature {feature} allows code {c}, outside its domain 0..{d}"
            ));
        }
        if schema.kind(feature) == ConstraintKind::AttributeValue && codes.len() != 1 {
            return bad(format!(
                "an AV constraint on feature {feature} allows one value, got {}",
                codes.len()
            ));
        }
        if d >= 2 && codes.len() == d as usize {
            return bad(format!(
                "a constraint on feature {feature} allows every value; leave the feature out of the rule"
            ));
        }
        Ok(())
    }

    /// The rules of a table read from a file: each constraint checked ([`check`](Self::check)),
    /// each id naming a constraint, no feature twice in a rule.
    pub fn rules(schema: &Schema, constraints: &[(usize, Vec<u32>)], rules: &[&[u32]]) -> Result<Vec<Rule>> {
        // Each constraint as the rule of that constraint alone: it allows every slot of the
        // other features, so a rule's slot words are the AND of its constraints' rules, and its
        // interval words are those of its interval constraints.
        let single = constraints
            .iter()
            .map(|(f, codes)| {
                Self::check(schema, *f, codes)?;
                let rule = Rule::from_constraints(schema, &[(*f, codes.clone())])?;
                if rule.is_free(schema, *f) {
                    return Err(FindRsError::InvalidData(format!(
                        "a constraint on feature {f} allows every value; leave the feature out of the rule"
                    )));
                }
                Ok(rule)
            })
            .collect::<Result<Vec<_>>>()?;
        let free = Rule::from_constraints(schema, &[])?;
        let slot_words = schema.slot_words();
        let mut seen = vec![usize::MAX; schema.n_features()];
        rules
            .iter()
            .enumerate()
            .map(|(i, ids)| {
                let mut words = free.allowed().to_vec();
                for &id in *ids {
                    let (f, _) = constraints.get(id as usize).ok_or_else(|| {
                        FindRsError::InvalidData(format!(
                            "rule {i} names constraint {id}, but there are {} constraints",
                            constraints.len()
                        ))
                    })?;
                    if std::mem::replace(&mut seen[*f], i) == i {
                        return Err(FindRsError::InvalidData(format!(
                            "rule {i}: feature {f} is constrained twice in one rule"
                        )));
                    }
                    let one = single[id as usize].allowed();
                    match schema.interval_index(*f) {
                        // A slot feature: AND the slot words (the others are all allowed).
                        None => words[..slot_words].iter_mut().zip(one).for_each(|(w, &c)| *w &= c),
                        // An interval feature: its own word.
                        Some(j) => words[slot_words + j] = one[slot_words + j],
                    }
                }
                Ok(Rule::from_words_unchecked(words))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lists_distinct_constraints_and_rebuilds_the_rules() {
        let schema = Schema::uniform(vec![3, 2, 1], ConstraintKind::OneHot).unwrap();
        let rules = vec![
            Rule::from_constraints(&schema, &[(1, vec![0]), (0, vec![0, 2])]).unwrap(),
            Rule::from_constraints(&schema, &[(0, vec![0, 2])]).unwrap(),
            Rule::from_constraints(&schema, &[(2, vec![0]), (0, vec![1])]).unwrap(),
            Rule::from_constraints(&schema, &[]).unwrap(),
        ];
        let t = ConstraintTable::of_rules(&schema, &rules);
        let c = |feature, codes: &[u32], unseen_passes| Constraint { feature, codes: codes.to_vec(), unseen_passes };
        assert_eq!(
            t.constraints,
            vec![c(0, &[0, 2], true), c(0, &[1], false), c(1, &[0], false), c(2, &[0], false)]
        );
        assert_eq!((0..4).map(|i| t.rule(i).to_vec()).collect::<Vec<_>>(), vec![vec![0, 2], vec![0], vec![1, 3], vec![]]);
        let plain: Vec<(usize, Vec<u32>)> = t.constraints.iter().map(|c| (c.feature, c.codes.clone())).collect();
        let ids: Vec<&[u32]> = (0..4).map(|i| t.rule(i)).collect();
        assert_eq!(ConstraintTable::rules(&schema, &plain, &ids).unwrap(), rules);
    }

    #[test]
    fn wide_features_go_through_the_table_too() {
        let schema = Schema::uniform(vec![70, 3], ConstraintKind::OneHot).unwrap();
        let rules = vec![
            Rule::from_constraints(&schema, &[(0, vec![5, 66]), (1, vec![2])]).unwrap(),
            Rule::from_constraints(&schema, &[(0, vec![1])]).unwrap(),
            Rule::from_constraints(&schema, &[(0, vec![5, 66])]).unwrap(),
        ];
        let t = ConstraintTable::of_rules(&schema, &rules);
        assert_eq!(t.constraints.len(), 3);
        assert_eq!(t.constraints[1], Constraint { feature: 0, codes: vec![5, 66], unseen_passes: true });
        let plain: Vec<(usize, Vec<u32>)> = t.constraints.iter().map(|c| (c.feature, c.codes.clone())).collect();
        let ids: Vec<&[u32]> = (0..3).map(|i| t.rule(i)).collect();
        assert_eq!(ConstraintTable::rules(&schema, &plain, &ids).unwrap(), rules);
    }

    /// An interval constraint is listed by its ends (two codes however many values lie
    /// between, one for a point), then null, and rebuilds the same rule.
    #[test]
    fn intervals_are_listed_by_their_ends() {
        use crate::data::interval::Interval;
        use crate::learn::run::interval_tests::{av, iv, mixed_schema};
        let schema = mixed_schema(&[iv(20_000, true), av(2)]);
        let iv = |values, null| Interval { values, null };
        let rules = vec![
            Rule::from_parts(&schema, &[(1, vec![0])], &[(0, iv(Some((10, 15_000)), false))]).unwrap(),
            Rule::from_parts(&schema, &[], &[(0, iv(Some((7, 7)), true))]).unwrap(),
            Rule::from_parts(&schema, &[], &[(0, iv(None, true))]).unwrap(),
        ];
        let t = ConstraintTable::of_rules(&schema, &rules);
        let codes: Vec<Vec<u32>> = t.constraints.iter().filter(|c| c.feature == 0).map(|c| c.codes.clone()).collect();
        assert_eq!(codes, vec![vec![15, 40_001], vec![21, 30_001], vec![40_001]]);
        let plain: Vec<(usize, Vec<u32>)> = t.constraints.iter().map(|c| (c.feature, c.codes.clone())).collect();
        let ids: Vec<&[u32]> = (0..3).map(|i| t.rule(i)).collect();
        assert_eq!(ConstraintTable::rules(&schema, &plain, &ids).unwrap(), rules);
    }

    #[test]
    fn bad_constraints_and_ids_are_refused() {
        let schema = Schema::uniform(vec![3, 2], ConstraintKind::AttributeValue).unwrap();
        let oh = Schema::uniform(vec![3, 2], ConstraintKind::OneHot).unwrap();
        for (s, f, codes, needle) in [
            (&schema, 2, vec![0], "there are 2 features"),
            (&schema, 0, vec![], "allows no value"),
            (&schema, 0, vec![3], "outside its domain"),
            (&schema, 0, vec![0, 1], "allows one value"),
            (&oh, 0, vec![1, 0], "not ascending"),
            (&oh, 1, vec![0, 1], "allows every value"),
        ] {
            let err = ConstraintTable::check(s, f, &codes).unwrap_err().to_string();
            assert!(err.contains(needle), "{err:?}");
        }
        let cons = vec![(0, vec![0]), (0, vec![1])];
        let twice: &[u32] = &[0, 1];
        assert!(ConstraintTable::rules(&schema, &cons, &[twice]).is_err());
        let missing: &[u32] = &[5];
        assert!(ConstraintTable::rules(&schema, &cons, &[missing]).unwrap_err().to_string().contains("constraint 5"));
    }
}
