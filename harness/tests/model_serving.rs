//! Both oracles on every YAML case of the seven real libraries. The reference (the
//! model behind its C ABI), serving the catalog each real library serves (`catalog
//! --format json`, its `catalog` loaded with `MPIT_REFERENCE_CATALOG`), runs the whole
//! suite, and each of its results is compared with the library's published one
//! (`reports/published/<name>/report.json.gz`, which `suite.rs` holds to a fresh run).
//! Results meet by case and subject, the subject's index left out: the reference
//! numbers only the entries it can hold.
//!
//! - What the model finds, the library is found to do too: a case that does not pass
//!   on a conforming implementation serving that catalog is about the catalog's own
//!   content (an enumeration on an `MPI_UNSIGNED` variable, R-ENUM-1), which the
//!   library serves; both oracles then give the same status.
//! - Every fail, warn and crash of the library is judged by the model too: `pass`
//!   (the library's behaviour is the finding: the case passes on the same catalog
//!   served conformingly) or the library's status (the catalog's content is). The
//!   exceptions are named: an entry the reference's catalog cannot hold (the dump's
//!   `undecoded`, e.g. an `MPI_C_BOOL` variable, no MPI_T datatype of §15.3.5), an
//!   enumeration only such entries use, and a rule of another MPI version than the one
//!   the library reports (the reference reports MPI 4.1).

mod common;

use common::{reference_lib, repo, run, scratch};
use mpit_conform::report::json;
use mpit_conform::verdict::{CaseResult, Status};
use std::collections::{BTreeMap, BTreeSet};

/// The kinds whose subjects carry an index (`cvar 12 NAME`), left out of the key.
const NUMBERED: [&str; 6] = ["cvar", "pvar", "category", "event", "source", "enum"];

/// (case, subject without its index).
type Key = (String, String);

fn key(r: &CaseResult) -> Key {
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

/// Results by key; a key two results share (two pvars of one name) is left out.
fn by_key(results: &[CaseResult]) -> BTreeMap<Key, &CaseResult> {
    let mut seen = BTreeMap::new();
    let mut twice = BTreeSet::new();
    for r in results {
        if seen.insert(key(r), r).is_some() {
            twice.insert(key(r));
        }
    }
    seen.retain(|k, _| !twice.contains(k));
    seen
}

/// What the reference cannot serve of a library's catalog: `kind name` of each entry
/// the dump could not decode, and `enum name` of each enumeration missing from the
/// decoded catalog.
struct Unservable {
    entries: BTreeSet<String>,
    enums: BTreeSet<String>,
}

impl Unservable {
    fn explains(&self, (_, subject): &Key) -> bool {
        if self.entries.contains(subject) {
            return true;
        }
        // `enum NAME` and `item N of NAME VALUE`.
        let enum_name = subject.strip_prefix("enum ").or_else(|| {
            let rest = subject.strip_prefix("item ")?;
            let (_, rest) = rest.split_once(" of ")?;
            Some(rest.rsplit_once(' ').map_or(rest, |(n, _)| n))
        });
        enum_name.is_some_and(|e| !self.enums.contains(e))
    }
}

/// The library's catalog as the reference serves it (a YAML file under `dir`), and what
/// of it the reference cannot serve.
fn served_catalog(name: &str, path: &str, dir: &std::path::Path) -> (String, Unservable) {
    let o = run(&["catalog", "--lib", path, "--format", "json"], &[]);
    assert_eq!(o.status.code(), Some(0), "{name}: catalog");
    let dump: serde_json::Value = serde_json::from_slice(&o.stdout).expect("catalog json");
    let file = dir.join(format!("{name}.yaml"));
    let yaml = yaml_serde::to_string(&dump["catalog"]).expect("catalog as YAML");
    std::fs::write(&file, yaml).expect("write catalog");
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    // "cvar NAME: datatype ..." (library/src/catalog/decode.rs).
    let entries = strings(&dump["undecoded"])
        .iter()
        .filter_map(|u| u.split_once(": ").map(|(e, _)| e.to_string()))
        .collect();
    let enums = dump["catalog"]["enums"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| e["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    (
        file.to_str().expect("utf-8 path").to_string(),
        Unservable { entries, enums },
    )
}

/// Whether the model's skip is the case's MPI version gate (`exec::run`'s wording).
fn version_gated(r: &CaseResult) -> bool {
    r.status == Status::Skip && r.message.starts_with("the library reports MPI ")
}

#[test]
fn the_model_serving_each_real_catalog_agrees_with_every_verdict() {
    let Some(targets) = common::real_targets() else {
        return;
    };
    let lib = reference_lib();
    let dir = scratch("model-serving");
    let mut disagree = Vec::new();
    for (name, path, _) in &targets {
        let (catalog, unservable) = served_catalog(name, path, &dir);
        let out = dir.join(name);
        let o = run(
            &[
                "run",
                "--quiet",
                "--lib",
                lib.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            &[("MPIT_REFERENCE_CATALOG", &catalog)],
        );
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{name}: exit {:?}",
            o.status
        );
        let model = json::read(&out.join("report.json")).expect("the model's report");
        let published =
            json::read(&repo().join(format!("reports/published/{name}/report.json.gz")))
                .expect("the published report");
        let (m, l) = (by_key(&model.results), by_key(&published.results));

        // What the model finds, the library is found to do too.
        for (k, r) in &m {
            if matches!(r.status, Status::Pass | Status::Skip | Status::Unsupported) {
                continue;
            }
            let theirs = l.get(k).map(|x| x.status);
            if theirs != Some(r.status) {
                disagree.push(format!(
                    "{name}: {k:?}: the model {} ({}), the library {theirs:?}",
                    r.status.as_str(),
                    r.message
                ));
            }
        }
        // Every finding on the library is judged by the model too.
        let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
        for (k, r) in &l {
            if !matches!(r.status, Status::Fail | Status::Warn | Status::Crash) {
                continue;
            }
            let why = match m.get(k) {
                Some(x) if x.status == Status::Pass => "the library's behaviour",
                Some(x) if x.status == r.status => "the catalog's content",
                Some(x) if version_gated(x) => "another MPI version's rule",
                None if unservable.explains(k) => "not servable",
                other => {
                    disagree.push(format!(
                        "{name}: {k:?}: the library {} ({}), the model {:?}",
                        r.status.as_str(),
                        r.message,
                        other.map(|x| (x.status.as_str(), &x.message))
                    ));
                    continue;
                }
            };
            *tally.entry(why).or_default() += 1;
        }
        eprintln!("{name}: findings judged by the model serving its catalog: {tally:?}");
        assert!(
            tally.get("the library's behaviour").is_some_and(|n| *n > 0),
            "{name}: no finding of the library passed on the model: {tally:?}"
        );
    }
    assert!(
        disagree.is_empty(),
        "{} results where the oracles disagree (the first 40):\n{}",
        disagree.len(),
        disagree[..disagree.len().min(40)].join("\n")
    );
}
