//! `run --model-check`: a library's report and the reference's, the reference serving
//! the catalog the library serves, met result by result. Each fail, warn, crash and
//! timeout of the library gets the reference's result for the same case and subject
//! ([`ModelCheck`]): a pass there makes the finding the library's behaviour, the same
//! status its catalog's content. Results meet by case and by subject without its index:
//! the reference numbers only the entries it can hold, so an index may differ where a
//! name does not.

use super::{Report, Summary as Counts};
use crate::verdict::{Agreement, CaseResult, ModelCheck, Status, VERSION_GATE};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The subject kinds that carry an index (`cvar 12 NAME`), left out of the key.
const NUMBERED: [&str; 6] = ["cvar", "pvar", "category", "event", "source", "enum"];

/// What the reference cannot serve of the library's catalog.
#[derive(Debug, Clone, Default)]
pub struct Served {
    /// `kind name` of each entry the catalog reader could not decode (a datatype or a
    /// constant outside the ABI profile).
    pub undecoded: BTreeSet<String>,
    /// The names of the enumerations the served catalog holds.
    pub enums: BTreeSet<String>,
}

impl Served {
    /// From a catalog read: its `undecoded` lines (`cvar NAME: datatype ...`, as
    /// mpit-target's decoder writes them) and the names of the enumerations it holds.
    pub fn of<'a>(
        undecoded: impl IntoIterator<Item = &'a str>,
        enums: impl IntoIterator<Item = String>,
    ) -> Served {
        Served {
            undecoded: undecoded
                .into_iter()
                .filter_map(|u| u.split_once(": ").map(|(e, _)| e.to_string()))
                .collect(),
            enums: enums.into_iter().collect(),
        }
    }

    /// Whether the reference cannot hold the subject: an undecoded entry, or an
    /// enumeration (`enum NAME`, `item N of NAME VALUE`) missing from its catalog.
    fn cannot_hold(&self, subject: &str) -> bool {
        if self.undecoded.contains(subject) {
            return true;
        }
        let enum_name = subject.strip_prefix("enum ").or_else(|| {
            let (_, rest) = subject.strip_prefix("item ")?.split_once(" of ")?;
            Some(rest.rsplit_once(' ').map_or(rest, |(n, _)| n))
        });
        enum_name.is_some_and(|e| !self.enums.contains(e))
    }
}

/// report.json's `model_check`: which reference served which catalog, how the
/// library's findings fared, and what the reference found that the library does not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The reference cdylib, and its SHA-256.
    pub reference: String,
    pub reference_sha256: String,
    /// The catalog it served (written beside report.json), the library's as read.
    pub catalog: String,
    /// The reference's own result counts by status.
    pub model_summary: Counts,
    #[serde(flatten)]
    pub tally: Tally,
}

/// How the library's findings fared, and what the reference found that the library
/// does not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// The library's fails, warns and crashes by [`Agreement`].
    pub by: BTreeMap<Agreement, usize>,
    /// `case subject: status` of each reference result that is not a pass, skip or
    /// unsupported where the library's status differs: the reference's problem (or the
    /// catalog dump's), never the library's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_only: Vec<String>,
}

impl Tally {
    /// One line: `behaviour 995, catalog 0, ...`.
    pub fn line(&self) -> String {
        Agreement::ALL
            .iter()
            .map(|a| format!("{} {}", a.as_str(), self.by.get(a).copied().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// (case, subject without its index).
fn key(r: &CaseResult) -> (String, String) {
    let mut w = r.subject.splitn(3, ' ');
    let subject = match (w.next(), w.next(), w.next()) {
        (Some(kind), Some(n), Some(name))
            if NUMBERED.contains(&kind) && n.parse::<u32>().is_ok() =>
        {
            format!("{kind} {name}")
        }
        _ => r.subject.clone(),
    };
    (r.case.clone(), subject)
}

/// A result's [`key`] and which of the results with that key it is, in report order
/// (two pvars of one name, classes apart): both catalogs keep the library's order.
type Nth = ((String, String), usize);

fn keys(results: &[CaseResult]) -> Vec<Nth> {
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    results
        .iter()
        .map(|r| {
            let k = key(r);
            let n = seen.entry(k.clone()).or_default();
            *n += 1;
            (k, *n - 1)
        })
        .collect()
}

fn by_key(results: &[CaseResult]) -> BTreeMap<Nth, usize> {
    keys(results)
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, i))
        .collect()
}

fn is_finding(s: Status) -> bool {
    s.is_bad() || s == Status::Warn
}

/// Sets `model` on each fail, warn, crash and timeout of `lib` from `model`'s result for it.
pub fn annotate(lib: &mut Report, model: &Report, served: &Served) -> Tally {
    let theirs = by_key(&model.results);
    let lib_keys = keys(&lib.results);
    let ours: BTreeMap<Nth, usize> = lib_keys.iter().cloned().zip(0..).collect();
    let mut tally = Tally::default();
    for (r, k) in lib.results.iter_mut().zip(lib_keys) {
        if !is_finding(r.status) {
            continue;
        }
        let m = theirs.get(&k).map(|i| &model.results[*i]);
        let (agreement, message) = match m {
            Some(m) if m.status == Status::Pass => (Agreement::Behaviour, m.message.clone()),
            Some(m) if m.status == r.status => (Agreement::Catalog, m.message.clone()),
            // `exec::run`'s wording for a rule of another MPI version.
            Some(m) if m.status == Status::Skip && m.message.starts_with(VERSION_GATE) => {
                (Agreement::Version, m.message.clone())
            }
            Some(m) => (Agreement::Disagree, m.message.clone()),
            None if served.cannot_hold(&k.0 .1) => (
                Agreement::NotServable,
                "the reference's catalog cannot hold this entry (the catalog reader could \
                 not decode it)"
                    .into(),
            ),
            None => (
                Agreement::Disagree,
                "the reference has no result for this case and subject".into(),
            ),
        };
        *tally.by.entry(agreement).or_default() += 1;
        r.model = Some(ModelCheck {
            agreement,
            status: m.map(|m| m.status),
            message,
        });
    }
    for (m, k) in model.results.iter().zip(keys(&model.results)) {
        if !(is_finding(m.status) || m.status == Status::Error) {
            continue;
        }
        let mine = ours.get(&k).map(|i| lib.results[*i].status);
        if mine != Some(m.status) {
            tally.model_only.push(format!(
                "{} {}: {} (the library: {})",
                m.case,
                m.subject,
                m.status.as_str(),
                mine.map_or("no result", |s| s.as_str())
            ));
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::super::Builder;
    use super::*;
    use crate::verdict::{Area, CaseMeta, Level, Oracle};

    fn result(case: &str, subject: &str, status: Status, message: &str) -> CaseResult {
        let meta = CaseMeta {
            case,
            area: Area::Strings,
            level: Level::Must,
            clause: "MPI-4.1 §15.3.3",
            oracle: Oracle::Spec,
        };
        CaseResult::new(meta, subject.into(), status, message.into())
    }

    fn report(results: Vec<CaseResult>) -> Report {
        let mut r = Builder::new().finish();
        r.results = results;
        r
    }

    #[test]
    fn each_finding_gets_the_references_result_by_name() {
        let mut lib = report(vec![
            result("s.a", "cvar 3 x", Status::Fail, "len 1"),
            result("s.b", "cvar 3 x", Status::Fail, "enum on unsigned"),
            result("s.c", "cvar 4 b", Status::Warn, "len 1"),
            result("s.d", "item 0 of boolean false", Status::Fail, "len 1"),
            result("s.e", "cvar 3 x", Status::Fail, "3.1 rule"),
            result("s.f", "cvar 3 x", Status::Crash, "SIGSEGV"),
            result("s.g", "cvar 3 x", Status::Pass, "ok"),
            result("s.h", "pvar 6 two", Status::Fail, "len 1"),
            result("s.h", "pvar 7 two", Status::Fail, "len 2"),
        ]);
        let model = report(vec![
            result("s.a", "cvar 1 x", Status::Pass, "ok"),
            result("s.b", "cvar 1 x", Status::Fail, "enum on unsigned"),
            result(
                "s.e",
                "cvar 1 x",
                Status::Skip,
                "the library reports MPI 4.1; ...",
            ),
            result("s.f", "cvar 1 x", Status::Skip, "no such thing"),
            result("s.g", "cvar 1 x", Status::Fail, "the reference's bug"),
            result("s.h", "pvar 2 two", Status::Pass, "ok"),
            result("s.h", "pvar 3 two", Status::Fail, "len 2"),
        ]);
        let served = Served::of(["cvar b: datatype 0x1 = &ompi_mpi_c_bool"], []);
        let t = annotate(&mut lib, &model, &served);
        let got: Vec<_> = lib
            .results
            .iter()
            .map(|r| r.model.as_ref().map(|m| m.agreement))
            .collect();
        use Agreement::*;
        assert_eq!(
            got,
            [
                Some(Behaviour),
                Some(Catalog),
                Some(NotServable),
                Some(NotServable),
                Some(Version),
                Some(Disagree),
                None,
                Some(Behaviour),
                Some(Catalog),
            ]
        );
        assert_eq!(t.by[&NotServable], 2);
        assert_eq!(t.model_only, ["s.g cvar 1 x: fail (the library: pass)"]);
        assert_eq!(
            t.line(),
            "behaviour 2, catalog 2, version 1, not_servable 2, disagree 1"
        );
    }
}
