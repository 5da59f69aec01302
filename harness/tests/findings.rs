//! reports/FINDINGS.md and the published reports agree (issue 6 §1–2): every `fail`,
//! `crash`, `timeout` or `error` of a published report is claimed by a finding, and every
//! claim is an unexpected result in both published runs of that library (default and
//! `--strict`) at level must (the findings are MUST deviations; a SHOULD or robustness
//! result that crashed belongs to the file's lower-severity list): nothing is listed
//! that was not reproduced, nothing found is left out.

mod common;

use common::repo;
use mpit_conform::report::{json, Report};
use mpit_conform::verdict::{Level, Status};
use std::collections::{BTreeMap, BTreeSet};

/// `<!-- finding F-N [level=should] targets=a,b cases=x,y -->` lines: (id, targets,
/// cases, level; `must` unless the line says otherwise).
fn claims(text: &str) -> Vec<(String, Vec<String>, Vec<String>, Level)> {
    text.lines()
        .filter_map(|l| {
            let body = l
                .trim()
                .strip_prefix("<!-- finding ")?
                .strip_suffix("-->")?;
            let mut it = body.split_whitespace();
            let id = it.next()?.to_string();
            let mut targets = Vec::new();
            let mut cases = Vec::new();
            let mut level = Level::Must;
            for kv in it {
                let (k, v) = kv.split_once('=')?;
                let list = v.split(',').map(str::to_string).collect();
                match k {
                    "targets" => targets = list,
                    "cases" => cases = list,
                    "level" => level = serde_json::from_value(serde_json::json!(v)).ok()?,
                    _ => return None,
                }
            }
            Some((id, targets, cases, level))
        })
        .collect()
}

/// The level of each case's unexpected results (a case has one level).
fn levels(r: &Report) -> BTreeMap<String, Level> {
    r.results
        .iter()
        .filter(|x| {
            matches!(
                x.status,
                Status::Fail | Status::Crash | Status::Timeout | Status::Error
            )
        })
        .map(|x| (x.case.clone(), x.level))
        .collect()
}

fn unexpected(r: &Report) -> BTreeSet<String> {
    r.results
        .iter()
        .filter(|x| {
            matches!(
                x.status,
                Status::Fail | Status::Crash | Status::Timeout | Status::Error
            )
        })
        .map(|x| x.case.clone())
        .collect()
}

#[test]
fn findings_match_the_published_reports() {
    let text = std::fs::read_to_string(repo().join("reports/FINDINGS.md")).unwrap();
    let claims = claims(&text);
    assert!(claims.len() >= 15, "{} findings parsed", claims.len());
    // (target, case) pairs whose status varies between runs (reports/published/unstable.yaml).
    let unstable: Vec<serde_json::Value> = yaml_serde::from_str(
        &std::fs::read_to_string(repo().join("reports/published/unstable.yaml")).unwrap(),
    )
    .unwrap();
    let is_unstable =
        |t: &str, c: &str| unstable.iter().any(|e| e["target"] == t && e["case"] == c);
    let published = repo().join("reports/published");
    let mut claimed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // (target, case) -> the level its claim states.
    let mut claimed_level: BTreeMap<(String, String), Level> = BTreeMap::new();
    for (_, targets, cases, level) in &claims {
        for t in targets {
            claimed
                .entry(t.clone())
                .or_default()
                .extend(cases.iter().cloned());
            for c in cases {
                claimed_level.insert((t.clone(), c.clone()), *level);
            }
        }
    }
    let mut problems = Vec::new();
    let targets: Vec<String> = std::fs::read_dir(&published)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("report.json.gz").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(targets.len() >= 8, "published: {targets:?}");
    for t in &targets {
        let dir = published.join(t);
        let report = json::read(&dir.join("report.json.gz")).unwrap();
        let default = unexpected(&report);
        let level_of = levels(&report);
        let strict = unexpected(&json::read(&dir.join("strict/report.json.gz")).unwrap());
        let mine = claimed.get(t).cloned().unwrap_or_default();
        for c in &mine {
            let want = claimed_level[&(t.clone(), c.clone())];
            if let Some(got) = level_of.get(c).filter(|l| **l != want) {
                problems.push(format!(
                    "{t}: {c} is claimed at level {want:?} but its result is at level {got:?}"
                ));
            }
            // An unstable result is claimed when its finding was reproduced, yet may pass
            // in the published run.
            if (!default.contains(c) || !strict.contains(c)) && !is_unstable(t, c) {
                problems.push(format!(
                    "{t}: {c} is claimed but not unexpected in both runs"
                ));
            }
        }
        for c in &default {
            if !mine.contains(c) && !is_unstable(t, c) {
                problems.push(format!("{t}: {c} is unexpected but no finding claims it"));
            }
        }
    }
    for t in claimed.keys() {
        if !targets.contains(t) {
            problems.push(format!("claims for {t}, which has no published report"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
