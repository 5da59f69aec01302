//! reports/FINDINGS.md and the published reports agree: every `fail`,
//! `crash`, `timeout` or `error` of a published report is claimed by a finding, and every
//! claim is an unexpected result in both published runs of that library (default and
//! `--strict`) at level must (the findings are MUST deviations; a SHOULD or robustness
//! result that crashed belongs to the file's lower-severity list): nothing is listed
//! that was not reproduced, nothing found is left out.
//!
//! And each finding's `**History:**` line is what the recorded release history
//! (`reports/history/`, `scripts/release-history.sh`) says of its cases, release by
//! release; the history's copies of the published targets are the published reports.

mod common;

use common::repo;
use mpit_report::{findings, history, json, Report};
use mpit_spec::verdict::{Level, Status};
use std::collections::{BTreeMap, BTreeSet};

/// `<!-- finding F-N [level=should] targets=a,b cases=x,y -->` lines: (id, targets,
/// cases, level; `must` unless the line says otherwise), as the release history reads them.
fn claims(text: &str) -> Vec<(String, Vec<String>, Vec<String>, Level)> {
    findings::claims(text)
        .into_iter()
        .map(|c| (c.id, c.targets, c.cases, c.level))
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

/// The release history (scripts/release-history.sh): `reports/history/history.json` names the columns in
/// release order and which published target each copied release is; from the recorded
/// reports, every finding's `**History:**` line of FINDINGS.md is computed again and must
/// be the one the file has, every finding must have one, and a published target's column
/// must be its published report, byte for byte (so no history can move a published
/// verdict).
#[test]
fn findings_carry_their_history() {
    let dir = repo().join("reports/history");
    let summary: history::Summary = serde_json::from_str(
        &std::fs::read_to_string(dir.join("history.json"))
            .expect("reports/history/history.json: run scripts/release-history.sh"),
    )
    .unwrap();
    assert!(
        summary.columns.len() >= 25,
        "{} releases in the history",
        summary.columns.len()
    );
    let mut problems = Vec::new();
    for (target, label) in &summary.published {
        for file in ["report.json.gz", "strict/report.json.gz"] {
            let a = std::fs::read(repo().join("reports/published").join(target).join(file));
            let b = std::fs::read(dir.join(label).join(file));
            if a.is_err() || a.ok() != b.ok() {
                problems.push(format!(
                    "reports/history/{label}/{file} is not reports/published/{target}/{file}"
                ));
            }
        }
    }
    let reports: Vec<Report> = summary
        .columns
        .iter()
        .map(|l| json::read(&dir.join(l).join("report.json.gz")).unwrap())
        .collect();
    let hist = history::History::new(&reports, summary.columns.clone(), summary.published);
    let text = std::fs::read_to_string(repo().join("reports/FINDINGS.md")).unwrap();
    let rows = history::finding_rows(&hist, &findings::claims(&text));
    let lines = history::finding_lines(&rows);
    let ids: std::collections::BTreeSet<String> = claims(&text).into_iter().map(|c| c.0).collect();
    for id in &ids {
        match lines.get(id) {
            None => problems.push(format!("{id}: no release of the history shows its targets")),
            Some(l) => {
                let want = format!("{} {l}", findings::HISTORY_PREFIX);
                if !text.lines().any(|x| x == want) {
                    problems.push(format!(
                        "{id}: FINDINGS.md lacks its history line (bash scripts/release-history.sh --render):\n  {want}"
                    ));
                }
            }
        }
    }
    let n = text
        .lines()
        .filter(|l| l.starts_with(findings::HISTORY_PREFIX))
        .count();
    if n != ids.len() {
        problems.push(format!(
            "{n} history lines in FINDINGS.md for {} findings",
            ids.len()
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
