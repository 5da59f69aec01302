//! Two reports compared result by result, keyed by (case, subject): what `mpit-conform
//! diff old.json new.json` prints and what `--baseline` gates on.
//!
//! Every key lands in exactly one bucket (reports/README.md "Diff"):
//! - `new_fails`: now `fail`, before absent or not unexpected;
//! - `new_crashes`: now `crash` or `timeout`, before absent or not unexpected;
//! - `new_errors`: now `error`, before absent or not unexpected;
//! - `fixed`: before unexpected (fail, crash, timeout, error), now not;
//! - `changed`: any other change of status (pass → warn, fail → crash, ...);
//! - `added` / `removed`: only in one report, and not in the buckets above;
//! - otherwise unchanged (counted).
//!
//! "Got worse" ([`Diff::worse`]) is a non-empty `new_fails` / `new_crashes` /
//! `new_errors` not counting waived results: the same rule as [`super::exit_code`] with
//! a baseline.

use super::{is_unexpected, key, result_order, Report};
use crate::verdict::{Area, CaseResult, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One (case, subject) whose status differs between the reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub case: String,
    pub subject: String,
    pub area: Area,
    /// `None`: not in that report.
    pub old: Option<Status>,
    pub new: Option<Status>,
    /// The newer report's message when it has the result, else the older one's.
    pub message: String,
    pub clause: String,
    /// The waiver reason, when the newer result is waived.
    pub waived: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Diff {
    pub new_fails: Vec<Change>,
    pub new_crashes: Vec<Change>,
    pub new_errors: Vec<Change>,
    pub fixed: Vec<Change>,
    pub changed: Vec<Change>,
    pub added: Vec<Change>,
    pub removed: Vec<Change>,
    pub unchanged: usize,
}

impl Diff {
    /// Something got worse that no waiver covers: the gate fails.
    pub fn worse(&self) -> bool {
        self.new_fails
            .iter()
            .chain(&self.new_crashes)
            .chain(&self.new_errors)
            .any(|c| c.waived.is_none())
    }

    /// Nothing differs at all.
    pub fn is_empty(&self) -> bool {
        self.new_fails.is_empty()
            && self.new_crashes.is_empty()
            && self.new_errors.is_empty()
            && self.fixed.is_empty()
            && self.changed.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
    }

    /// The text `mpit-conform diff` prints.
    pub fn render(&self, old: &Report, new: &Report) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "old: {} ({})", old.target.path, old.finished);
        let _ = writeln!(out, "new: {} ({})", new.target.path, new.finished);
        let sections: [(&str, &Vec<Change>); 7] = [
            ("new fails", &self.new_fails),
            ("new crashes and timeouts", &self.new_crashes),
            ("new errors", &self.new_errors),
            ("fixed", &self.fixed),
            ("changed", &self.changed),
            ("only in new", &self.added),
            ("only in old", &self.removed),
        ];
        for (title, changes) in sections {
            if changes.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{title} ({}):", changes.len());
            for c in changes {
                let name = if c.subject.is_empty() {
                    c.case.clone()
                } else {
                    format!("{} [{}]", c.case, c.subject)
                };
                let st = |s: Option<Status>| s.map_or("-", Status::as_str);
                let _ = write!(out, "  {name}: {} -> {}", st(c.old), st(c.new));
                if !c.message.is_empty() {
                    let _ = write!(out, "  {}", c.message.lines().next().unwrap_or(""));
                }
                if let Some(w) = &c.waived {
                    let _ = write!(out, "  (waived: {w})");
                }
                out.push('\n');
            }
        }
        let _ = writeln!(
            out,
            "\n{} new fails, {} new crashes/timeouts, {} new errors, {} fixed, {} changed, \
             {} only in new, {} only in old, {} unchanged",
            self.new_fails.len(),
            self.new_crashes.len(),
            self.new_errors.len(),
            self.fixed.len(),
            self.changed.len(),
            self.added.len(),
            self.removed.len(),
            self.unchanged
        );
        let _ = writeln!(
            out,
            "{}",
            if self.worse() {
                "verdict: worse than the old report"
            } else {
                "verdict: nothing got worse"
            }
        );
        out
    }
}

fn change(old: Option<&CaseResult>, new: Option<&CaseResult>) -> Option<Change> {
    let any = new.or(old)?;
    Some(Change {
        case: any.case.clone(),
        subject: any.subject.clone(),
        area: any.area,
        old: old.map(|r| r.status),
        new: new.map(|r| r.status),
        message: any.message.clone(),
        clause: any.clause.clone(),
        waived: new.and_then(|r| r.waived.clone()),
    })
}

/// Compares `old` with `new`. When a report holds a key twice, the first result counts.
pub fn diff(old: &Report, new: &Report) -> Diff {
    let mut before: BTreeMap<(&str, &str), &CaseResult> = BTreeMap::new();
    for r in &old.results {
        before.entry(key(r)).or_insert(r);
    }
    let mut seen = std::collections::HashSet::new();
    let mut d = Diff::default();
    for n in &new.results {
        if !seen.insert(key(n)) {
            continue;
        }
        let o = before.remove(&key(n));
        let was_bad = o.is_some_and(|o| is_unexpected(o.status));
        let bucket = match n.status {
            Status::Fail if !was_bad => &mut d.new_fails,
            Status::Crash | Status::Timeout if !was_bad => &mut d.new_crashes,
            Status::Error if !was_bad => &mut d.new_errors,
            s if was_bad && !is_unexpected(s) => &mut d.fixed,
            _ => match o {
                None => &mut d.added,
                Some(o) if o.status != n.status => &mut d.changed,
                Some(_) => {
                    d.unchanged += 1;
                    continue;
                }
            },
        };
        bucket.extend(change(o, Some(n)));
    }
    // What is left was only in the old report.
    let mut removed: Vec<&CaseResult> = before.into_values().collect();
    removed.sort_by(|a, b| result_order(a, b));
    d.removed = removed
        .into_iter()
        .filter_map(|o| change(Some(o), None))
        .collect();
    d
}
