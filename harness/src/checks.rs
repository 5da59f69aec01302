//! The catalog checks: what a full catalog read shows about a target, judged against the
//! spec (each check cites its rule). The YAML case engine (issue "conformance suite")
//! will replace this hand-written set; these are the checks that exist today.

use crate::target::catalog::{class_mismatches, CatalogDump};
use mpit_reference::profile::ReturnCode;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    /// A SHOULD, or the other of two readings careful implementers could both hold
    /// (DESIGN.md "Readings"); `--strict` turns it into `Fail`.
    Warn,
    Skip,
}

/// One verdict, with its clause and evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub check: &'static str,
    pub clause: &'static str,
    pub status: Status,
    /// How many subjects were examined.
    pub subjects: usize,
    /// One line per failing subject: what was called, what came back, what was expected.
    pub evidence: Vec<String>,
}

fn verdict(
    check: &'static str,
    clause: &'static str,
    subjects: usize,
    evidence: Vec<String>,
) -> Verdict {
    let status = if subjects == 0 {
        Status::Skip
    } else if evidence.is_empty() {
        Status::Pass
    } else {
        Status::Fail
    };
    Verdict {
        check,
        clause,
        status,
        subjects,
        evidence,
    }
}

/// Judges one catalog read; `strict` makes the literal reading decide.
pub fn judge(d: &CatalogDump, strict: bool) -> Vec<Verdict> {
    let mut out = Vec::new();
    let n = d.names.len();

    out.push(verdict(
        "queries.succeed",
        "MPI-4.1 §15.3.6-9 R-CVAR-1: every index 0..num-1 is valid for get_info",
        n + d.failed_calls.len(),
        d.failed_calls
            .iter()
            .map(|f| format!("{} returned {} (expected MPI_SUCCESS)", f.call, f.returned))
            .collect(),
    ));

    let mut ev = Vec::new();
    for o in &d.names {
        let want = o.name.len() as i32 + 1;
        if o.len_null_buf != Some(want) {
            ev.push(format!(
                "{} {} `{}`: NULL buffer gave len {:?}, expected strlen+1 = {want}",
                o.kind, o.index, o.name, o.len_null_buf
            ));
        }
        if o.len_exact != Some(want) {
            ev.push(format!(
                "{} {} `{}`: buffer of {want} gave len {:?}, expected {want}",
                o.kind, o.index, o.name, o.len_exact
            ));
        }
    }
    let mut tr = Vec::new();
    let mut other_reading = Vec::new();
    let mut with_tr = 0;
    for o in &d.names {
        let Some(t) = &o.truncated else { continue };
        with_tr += 1;
        let strlen = o.name.len();
        let buf = t.buf.as_deref().unwrap_or(&[]);
        let want = &o.name.as_bytes()[..strlen - 1];
        // R-STR-1/2: n-1 characters, a NUL at n-1, length strlen+1, nothing past n.
        if t.len == Some(strlen as i32) {
            // "the length of the string plus one is returned": read as the truncated
            // string (n-1 characters) plus one, this gives n. The literal reading (the
            // full string) gives strlen+1.
            other_reading.push(format!("{} `{}` into {} bytes: len {}, the truncated string's length plus one; the literal reading of R-STR-2 wants strlen+1 = {}", o.kind, o.name, strlen, strlen, strlen + 1));
        } else if t.len != Some(strlen as i32 + 1) {
            tr.push(format!(
                "{} `{}` into {} bytes: len {:?}, expected strlen+1 = {}",
                o.kind,
                o.name,
                strlen,
                t.len,
                strlen + 1
            ));
        }
        if buf.len() != strlen || buf[strlen - 1] != 0 || &buf[..strlen - 1] != want {
            tr.push(format!(
                "{} `{}` into {} bytes: got {:?}, expected {:?} and a NUL at byte {}",
                o.kind,
                o.name,
                strlen,
                String::from_utf8_lossy(buf),
                String::from_utf8_lossy(want),
                strlen - 1
            ));
        }
        if t.overrun {
            tr.push(format!(
                "{} `{}` into {} bytes: wrote past the end of the buffer",
                o.kind, o.name, strlen
            ));
        }
    }
    const TRUNC: &str = "MPI-4.1 §15.3.3 R-STR-1, R-STR-2: truncated to n-1 characters plus NUL, length strlen+1, nothing written past n";
    if tr.is_empty() && !other_reading.is_empty() && !strict {
        out.push(Verdict {
            check: "strings.name.truncate",
            clause: TRUNC,
            status: Status::Warn,
            subjects: with_tr,
            evidence: other_reading,
        });
    } else {
        tr.extend(other_reading);
        out.push(verdict("strings.name.truncate", TRUNC, with_tr, tr));
    }

    out.push(verdict(
        "strings.name.length",
        "MPI-4.1 §15.3.3 R-STR-2, R-STR-3: the length returned is strlen+1",
        n,
        ev,
    ));

    let mut ev = Vec::new();
    let mut seen: BTreeMap<(String, String), i32> = BTreeMap::new();
    for o in &d.names {
        if o.name.is_empty() {
            ev.push(format!("{} {}: empty name", o.kind, o.index));
        }
        // R-STR-6: pvars are unique by (name, class), checked on the catalog below.
        if o.kind != "pvar" {
            if let Some(first) = seen.insert((o.kind.clone(), o.name.clone()), o.index) {
                ev.push(format!(
                    "{} `{}` at indices {first} and {}",
                    o.kind, o.name, o.index
                ));
            }
        }
    }
    let mut pv = BTreeSet::new();
    for p in &d.catalog.pvars {
        if !pv.insert((p.name.clone(), p.class)) {
            ev.push(format!("pvar `{}` ({}) appears twice", p.name, p.class));
        }
    }
    out.push(verdict(
        "indices.names.unique",
        "MPI-4.1 §15.3.3 R-STR-6: names non-empty and unique (pvars by name and class)",
        n,
        ev,
    ));

    let mut ev = Vec::new();
    let mut with_index = 0;
    for o in &d.names {
        if let Some((rc, i)) = &o.get_index {
            with_index += 1;
            if *rc != ReturnCode::Success || *i != o.index {
                ev.push(format!(
                    "{}_get_index(\"{}\") returned {rc} and index {i}; expected MPI_SUCCESS and {}",
                    o.kind, o.name, o.index
                ));
            }
        }
    }
    out.push(verdict(
        "indices.get_index.round_trip",
        "MPI-4.1 §15.3.6-9 R-CVAR-5, R-PVAR-4: get_index(name) returns the index",
        with_index,
        ev,
    ));

    let ev = class_mismatches(&d.catalog)
        .into_iter()
        .map(|(n, c, dt)| {
            format!(
                "pvar `{n}`: class {c} with datatype {dt}, allowed: {:?}",
                c.allowed_datatypes()
                    .iter()
                    .map(|d| d.spelling())
                    .collect::<Vec<_>>()
            )
        })
        .collect();
    out.push(verdict(
        "pvars.class.datatype",
        "MPI-4.1 §15.3.7 R-PCLASS: each class allows only its datatypes",
        d.catalog.pvars.len(),
        ev,
    ));

    let ev = d
        .undecoded
        .iter()
        .map(|u| format!("{u}: not a constant of the ABI profile"))
        .collect();
    out.push(verdict("enums_datatypes.constants.legal", "MPI-4.1 §15.3.5 R-TYPE-1, R-VERB-1, R-BIND-1, R-SCOPE-1: returned constants are legal values", n, ev));

    out.push(category_cycles(d));
    out
}

/// R-CAT-1: no category contains itself, directly or transitively.
fn category_cycles(d: &CatalogDump) -> Verdict {
    let cats = &d.catalog.categories;
    let idx: BTreeMap<&str, usize> = cats
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    let mut ev = Vec::new();
    for (start, c) in cats.iter().enumerate() {
        let mut stack: Vec<usize> = c
            .categories
            .iter()
            .filter_map(|n| idx.get(n.as_str()).copied())
            .collect();
        let mut seen = BTreeSet::new();
        while let Some(i) = stack.pop() {
            if i == start {
                ev.push(format!("category `{}` contains itself", c.name));
                break;
            }
            if seen.insert(i) {
                stack.extend(
                    cats[i]
                        .categories
                        .iter()
                        .filter_map(|n| idx.get(n.as_str()).copied()),
                );
            }
        }
    }
    verdict(
        "categories.acyclic",
        "MPI-4.1 §15.3.9 R-CAT-1: categories never contain themselves",
        cats.len(),
        ev,
    )
}
