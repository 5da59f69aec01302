//! The comparison of the ranks' catalogs: entries are matched by name (pvars by name and
//! class), never by index (R-GEN-7: indices, number and type of variables may differ
//! between processes), and the attributes the standard requires to be identical are
//! compared, rank 0's value (or that of the lowest rank that has the entry) being the
//! expected one:
//! - cvars: verbosity, datatype, enumtype, bind, scope, description (R-CVAR-4);
//! - pvars of the same name and class: verbosity, class, datatype, enumtype, bind,
//!   readonly, continuous, atomic, description (R-PVAR-3);
//! - categories: description (MPI-4.1 §15.3.9, R-GEN-6: an equivalent name across
//!   processes implies an equivalent description; members may differ, variables being
//!   per process);
//! - events: verbosity, element datatypes, num_elements, enumtype, bind; displacements
//!   may differ (MPI-4.1 §15.3.8, R-GEN-6);
//! - enumerations: same name, same meaning, but the items may differ (R-GEN-6); nothing
//!   is required of their values, so same-named items with other values are noted in
//!   the evidence, not judged.
//!
//! Descriptions are compared as strings: "equivalent" strings are identical up to the
//! NUL (R-STR-5). Names seen on some ranks only are allowed (R-GEN-7) and listed as
//! information.

use mpit_spec::cases::builtin::{CaseDef, CATEGORIES, CVARS, ENUMS, EVENTS, PVARS};
use mpit_spec::verdict::{CaseResult, Evidence, Status};
use mpit_vocab::catalog::Catalog;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Differences shown as evidence, at most (the message counts them all).
const EVIDENCE_CAP: usize = 50;
/// Names listed in the "only on some ranks" note, at most.
const NAMES_CAP: usize = 50;

/// An entry's identity across ranks: its name, and for a pvar its class (R-PVAR-2).
type Key = (String, Option<String>);
/// The attributes compared, in a fixed order.
type Attrs = Vec<(&'static str, Value)>;

fn text(v: &impl std::fmt::Display) -> Value {
    Value::String(v.to_string())
}

fn opt(v: &Option<String>) -> Value {
    v.as_ref().map_or(Value::Null, |s| Value::String(s.clone()))
}

fn enumtype(v: &Option<String>) -> Value {
    v.as_ref()
        .map_or_else(|| "MPI_T_ENUM_NULL".into(), |s| Value::String(s.clone()))
}

fn cvars(c: &Catalog) -> Vec<(Key, Attrs)> {
    c.cvars
        .iter()
        .map(|v| {
            let attrs = vec![
                ("verbosity", text(&v.verbosity)),
                ("datatype", text(&v.datatype)),
                ("enumtype", enumtype(&v.enumtype)),
                ("bind", text(&v.bind)),
                ("scope", text(&v.scope)),
                ("description", opt(&v.desc)),
            ];
            ((v.name.clone(), None), attrs)
        })
        .collect()
}

fn pvars(c: &Catalog) -> Vec<(Key, Attrs)> {
    c.pvars
        .iter()
        .map(|v| {
            let attrs = vec![
                ("verbosity", text(&v.verbosity)),
                ("class", text(&v.class)),
                ("datatype", text(&v.datatype)),
                ("enumtype", enumtype(&v.enumtype)),
                ("bind", text(&v.bind)),
                ("readonly", Value::Bool(v.readonly)),
                ("continuous", Value::Bool(v.continuous)),
                ("atomic", Value::Bool(v.atomic)),
                ("description", opt(&v.desc)),
            ];
            ((v.name.clone(), Some(v.class.to_string())), attrs)
        })
        .collect()
}

fn categories(c: &Catalog) -> Vec<(Key, Attrs)> {
    c.categories
        .iter()
        .map(|v| ((v.name.clone(), None), vec![("description", opt(&v.desc))]))
        .collect()
}

fn events(c: &Catalog) -> Vec<(Key, Attrs)> {
    c.events
        .iter()
        .map(|v| {
            let types: Vec<Value> = v.elements.iter().map(|e| text(&e.datatype)).collect();
            let attrs = vec![
                ("verbosity", text(&v.verbosity)),
                ("num_elements", json!(v.elements.len())),
                ("array_of_datatypes", Value::Array(types)),
                ("enumtype", enumtype(&v.enumtype)),
                ("bind", text(&v.bind)),
            ];
            ((v.name.clone(), None), attrs)
        })
        .collect()
}

/// One attribute of one entry that differs on one rank.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    pub key: Key,
    pub attribute: &'static str,
    /// The rank whose value is expected (rank 0, or the lowest rank with the entry).
    pub expected_rank: i32,
    pub expected: Value,
    pub rank: i32,
    pub actual: Value,
}

/// What comparing one kind of entry found.
#[derive(Debug, Default)]
pub struct Compared {
    /// Entries present on at least two ranks (the ones compared).
    pub compared: usize,
    pub diffs: Vec<Diff>,
    /// Entries not on every rank, with the ranks that have them (R-GEN-7: allowed).
    pub partial: Vec<(Key, Vec<i32>)>,
}

/// Compares the entries of every rank by key.
pub fn compare(ranks: &[(i32, Vec<(Key, Attrs)>)]) -> Compared {
    // key → [(rank, attributes)], the first entry of a name on each rank.
    let mut by_key: BTreeMap<&Key, Vec<(i32, &Attrs)>> = BTreeMap::new();
    for (rank, entries) in ranks {
        for (k, a) in entries {
            let holders = by_key.entry(k).or_default();
            if holders.last().is_none_or(|(r, _)| r != rank) {
                holders.push((*rank, a));
            }
        }
    }
    let mut out = Compared::default();
    for (key, holders) in by_key {
        if holders.len() < ranks.len() {
            out.partial
                .push((key.clone(), holders.iter().map(|(r, _)| *r).collect()));
        }
        let Some(((r0, first), rest)) = holders.split_first() else {
            continue;
        };
        if rest.is_empty() {
            continue;
        }
        out.compared += 1;
        for (rank, attrs) in rest {
            for ((name, want), (_, got)) in first.iter().zip(attrs.iter()) {
                if want != got {
                    out.diffs.push(Diff {
                        key: key.clone(),
                        attribute: name,
                        expected_rank: *r0,
                        expected: want.clone(),
                        rank: *rank,
                        actual: got.clone(),
                    });
                }
            }
        }
    }
    out
}

fn show(k: &Key) -> String {
    match &k.1 {
        Some(class) => format!("{} ({class})", k.0),
        None => k.0.clone(),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

/// The result of one kind: `fail` naming the differing attributes, `pass`, or `skip`
/// when no entry is on two ranks.
fn verdict(
    def: &CaseDef,
    noun: &str,
    rule: &str,
    attrs: &str,
    n_ranks: usize,
    c: &Compared,
) -> CaseResult {
    let subject = format!("{n_ranks} ranks");
    let partial = if c.partial.is_empty() {
        String::new()
    } else {
        format!(
            "; {} only on some ranks (allowed, R-GEN-7)",
            plural(c.partial.len(), noun)
        )
    };
    let (status, message) = if c.compared == 0 {
        (
            Status::Skip,
            format!("no {noun} is on two ranks: nothing to compare{partial}"),
        )
    } else if c.diffs.is_empty() {
        (
            Status::Pass,
            format!(
                "{} compared by name across {n_ranks} ranks: identical {attrs}{partial}",
                plural(c.compared, noun)
            ),
        )
    } else {
        let entries: std::collections::BTreeSet<&Key> = c.diffs.iter().map(|d| &d.key).collect();
        let first: Vec<String> = c
            .diffs
            .iter()
            .take(3)
            .map(|d| {
                format!(
                    "{} {}: {} on rank {}, {} on rank {}",
                    show(&d.key),
                    d.attribute,
                    short(&d.expected),
                    d.expected_rank,
                    short(&d.actual),
                    d.rank
                )
            })
            .collect();
        (
            Status::Fail,
            format!(
                "{} of {} differ across ranks ({rule}): {}{}{partial}",
                entries.len(),
                plural(c.compared, noun),
                first.join("; "),
                if c.diffs.len() > 3 {
                    format!("; {} more differences", c.diffs.len() - 3)
                } else {
                    String::new()
                }
            ),
        )
    };
    let mut r = def.result(subject, status, message);
    for d in c.diffs.iter().take(EVIDENCE_CAP) {
        let mut args = json!({"name": d.key.0, "rank": d.rank});
        if let Some(class) = &d.key.1 {
            args["class"] = Value::String(class.clone());
        }
        r.evidence.push(Evidence {
            call: def.call.to_string(),
            args: args.into(),
            rc: None,
            out: (json!({ d.attribute: d.actual })).into(),
            expected: Some(format!(
                "{} {} as on rank {} ({rule})",
                d.attribute, d.expected, d.expected_rank
            )),
        });
    }
    if !c.partial.is_empty() {
        let names: Vec<String> = c
            .partial
            .iter()
            .take(NAMES_CAP)
            .map(|(k, rs)| {
                let rs: Vec<String> = rs.iter().map(|r| r.to_string()).collect();
                format!("{}: rank {}", show(k), rs.join(", "))
            })
            .collect();
        r.evidence.push(Evidence {
            call: def.call.to_string(),
            args: (Value::Null).into(),
            rc: None,
            out: (json!({
                "only_on_some_ranks": c.partial.len(),
                "names": names,
                "note": "allowed: number and indices of entries may differ between processes (R-GEN-7)",
            })).into(),
            expected: None,
        });
    }
    r
}

fn plural(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}

/// Same-named enumerations: compared by name only (R-GEN-6 lets their items differ);
/// items of the same name whose values differ are noted.
fn enums(ranks: &[(i32, &Catalog)]) -> CaseResult {
    let entries: Vec<(i32, Vec<(Key, Attrs)>)> = ranks
        .iter()
        .map(|(r, c)| {
            let e = c
                .enums
                .iter()
                .map(|e| ((e.name.clone(), None), Vec::new()))
                .collect();
            (*r, e)
        })
        .collect();
    let c = compare(&entries);
    let mut r = verdict(
        &ENUMS,
        "enum",
        "R-GEN-6",
        "names (items may differ, R-GEN-6)",
        ranks.len(),
        &c,
    );
    // enum → item → [(rank, value)]
    let mut items: BTreeMap<(&str, &str), Vec<(i32, i32)>> = BTreeMap::new();
    for (rank, cat) in ranks {
        for e in &cat.enums {
            for it in &e.items {
                items
                    .entry((e.name.as_str(), it.name.as_str()))
                    .or_default()
                    .push((*rank, it.value));
            }
        }
    }
    let other: Vec<String> = items
        .iter()
        .filter(|(_, vs)| vs.iter().any(|(_, v)| *v != vs[0].1))
        .map(|((e, i), vs)| {
            let vs: Vec<String> = vs.iter().map(|(r, v)| format!("{v} on rank {r}")).collect();
            format!("{e}.{i}: {}", vs.join(", "))
        })
        .collect();
    if !other.is_empty() {
        r.message.push_str(&format!(
            "; {} same-named items have other values on other ranks (noted, not judged: R-GEN-6 asks only for the same meaning)",
            other.len()
        ));
        r.evidence.push(Evidence {
            call: ENUMS.call.to_string(),
            args: (Value::Null).into(),
            rc: None,
            out: (json!({"items_with_other_values": other.into_iter().take(NAMES_CAP).collect::<Vec<_>>()})).into(),
            expected: None,
        });
    }
    r
}

/// The five comparison results over the ranks' catalogs (at least two).
pub fn judge(ranks: &[(i32, &Catalog)]) -> Vec<CaseResult> {
    type Extract = fn(&Catalog) -> Vec<(Key, Attrs)>;
    let kinds: [(&CaseDef, &str, &str, &str, Extract); 4] = [
        (
            &CVARS,
            "cvar",
            "R-CVAR-4",
            "verbosity, datatype, enumtype, bind, scope, description",
            cvars,
        ),
        (
            &PVARS,
            "pvar",
            "R-PVAR-3",
            "verbosity, class, datatype, enumtype, bind, readonly, continuous, atomic, description",
            pvars,
        ),
        (
            &CATEGORIES,
            "category",
            "R-GEN-6",
            "description",
            categories,
        ),
        (
            &EVENTS,
            "event",
            "R-GEN-6",
            "verbosity, datatypes, num_elements, enumtype, bind",
            events,
        ),
    ];
    let mut out: Vec<CaseResult> = kinds
        .iter()
        .map(|(def, noun, rule, attrs, f)| {
            let entries: Vec<(i32, Vec<(Key, Attrs)>)> =
                ranks.iter().map(|(r, c)| (*r, f(c))).collect();
            verdict(def, noun, rule, attrs, ranks.len(), &compare(&entries))
        })
        .collect();
    out.push(enums(ranks));
    out
}

/// The comparison cases as `skip`, when there is nothing to compare (`why`).
pub fn skipped(subject: &str, why: &str) -> Vec<CaseResult> {
    [CVARS, PVARS, CATEGORIES, EVENTS, ENUMS]
        .iter()
        .map(|d| d.result(subject.to_string(), Status::Skip, why.to_string()))
        .collect()
}

#[cfg(test)]
#[path = "catalogs_tests.rs"]
mod tests;
