//! What reports/FINDINGS.md says of the C reproducers, for harness/tests/repro.rs: its
//! `<!-- repro -->` markers, the targets each `<!-- finding -->` names, and the published
//! report of a target.

use crate::common::repo;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `<!-- repro F-N file=F.c from=TARGET case=ID [also=T,..] [reference=not-applicable] -->`
#[derive(Debug, Clone)]
pub struct Marker {
    pub finding: String,
    pub file: String,
    pub from: String,
    pub case: String,
    pub also: Vec<String>,
    pub reference_not_applicable: bool,
}

pub fn findings_text() -> String {
    std::fs::read_to_string(repo().join("reports/FINDINGS.md")).unwrap()
}

pub fn markers(text: &str) -> Vec<Marker> {
    text.lines()
        .filter_map(|l| {
            let body = l.trim().strip_prefix("<!-- repro ")?.strip_suffix("-->")?;
            let mut it = body.split_whitespace();
            let mut m = Marker {
                finding: it.next()?.to_string(),
                file: String::new(),
                from: String::new(),
                case: String::new(),
                also: Vec::new(),
                reference_not_applicable: false,
            };
            for kv in it {
                let (k, v) = kv.split_once('=')?;
                match k {
                    "file" => m.file = v.into(),
                    "from" => m.from = v.into(),
                    "case" => m.case = v.into(),
                    "also" => m.also = v.split(',').map(str::to_string).collect(),
                    "reference" => m.reference_not_applicable = v == "not-applicable",
                    other => panic!("unknown key {other} in {l}"),
                }
            }
            Some(m)
        })
        .collect()
}

/// Finding id → the targets its `<!-- finding -->` lines name.
pub fn finding_targets(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in text.lines() {
        let Some(body) = l.trim().strip_prefix("<!-- finding ") else {
            continue;
        };
        let mut it = body.split_whitespace();
        let id = it.next().unwrap().to_string();
        for kv in it {
            if let Some(v) = kv.strip_prefix("targets=") {
                let e = out.entry(id.clone()).or_default();
                for t in v.split(',') {
                    if !e.iter().any(|x| x == t) {
                        e.push(t.to_string());
                    }
                }
            }
        }
    }
    out
}

pub fn published(target: &str) -> PathBuf {
    repo().join(format!("reports/published/{target}/report.json.gz"))
}
