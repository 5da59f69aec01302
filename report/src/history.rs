//! The release history (scripts/release-history.sh): `mpit-conform matrix --history`, the matrix whose
//! columns are releases (labels `family/version`, the families' releases in order, as
//! `scripts/release-history.sh` passes them). On top of [`Matrix`] it says, per family,
//! in which releases a case (or a finding of `reports/FINDINGS.md`, through its claimed
//! cases) is unexpected (fail, crash, timeout, error): the first, the last, and the
//! release that fixed it. HISTORY.md, HISTORY.html, history.json and each finding's
//! `**History:**` line are rendered from it.

use super::escape::{html as h, markdown as md};
use super::findings::Claim;
use super::matrix::{cell_md, render_html_parts, targets_table_md, Cell, Extra, Matrix};
use super::{is_unexpected, worst, Report};
use crate::verdict::Status;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One family's columns, in release order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Family {
    pub name: String,
    /// Indices into the matrix's columns.
    pub cols: Vec<usize>,
}

/// The matrix with its columns grouped into families.
#[derive(Debug, Clone)]
pub struct History {
    pub matrix: Matrix,
    pub families: Vec<Family>,
    /// Published target (as FINDINGS.md names it) → its column label.
    pub published: BTreeMap<String, String>,
    /// Each column's library (`target.sha256`), so a report can be placed in the history.
    pub sha256: Vec<String>,
}

/// A family's name as a reader knows it.
pub fn family_title(f: &str) -> String {
    let (base, abi) = match f.strip_suffix("-abi") {
        Some(b) => (b, " (MPI-5 standard ABI)"),
        None => (f, ""),
    };
    let name = match base {
        "mpich" => "MPICH",
        "openmpi" => "Open MPI",
        "impi" => "Intel MPI",
        other => other,
    };
    format!("{name}{abi}")
}

/// The version part of a `family/version` label.
fn version(label: &str) -> &str {
    label.split_once('/').map_or(label, |(_, v)| v)
}

fn family_of(label: &str) -> &str {
    label.split_once('/').map_or("", |(f, _)| f)
}

/// Whether a cell is unexpected: `None` when the case was not judged in that release.
fn present(c: &Option<Cell>) -> Option<bool> {
    c.as_ref().map(|c| is_unexpected(c.worst))
}

impl History {
    /// `labels` are `family/version`; the families keep the order their first column has.
    pub fn new(
        reports: &[Report],
        labels: Vec<String>,
        published: BTreeMap<String, String>,
    ) -> History {
        let mut families: Vec<Family> = Vec::new();
        for (i, l) in labels.iter().enumerate() {
            let f = family_of(l);
            match families.iter_mut().find(|x| x.name == f) {
                Some(x) => x.cols.push(i),
                None => families.push(Family {
                    name: f.to_string(),
                    cols: vec![i],
                }),
            }
        }
        History {
            matrix: Matrix::labeled(reports, labels),
            families,
            published,
            sha256: reports.iter().map(|r| r.target.sha256.clone()).collect(),
        }
    }

    /// The releases `case` is unexpected in, in words, per family ([`span_text`]): only
    /// the family of the library whose SHA-256 is `sha256` when one column is that
    /// library, else every family that shows it. For a bug report: "MPICH: present in …".
    pub fn case_history(&self, case: &str, sha256: &str) -> Vec<String> {
        let Some(cells) = self
            .matrix
            .rows
            .iter()
            .find(|((_, c), _)| c == case)
            .map(|(_, cells)| cells)
        else {
            return Vec::new();
        };
        let own = self
            .sha256
            .iter()
            .position(|s| !s.is_empty() && s == sha256)
            .map(|i| family_of(&self.matrix.labels[i]));
        self.families
            .iter()
            .filter(|f| own.is_none_or(|o| o == f.name))
            .filter_map(|f| {
                let states: Vec<Option<bool>> =
                    f.cols.iter().map(|&i| present(&cells[i])).collect();
                let span = span_text(&self.versions(f), &states)?;
                Some(format!("{}: {span}", family_title(&f.name)))
            })
            .collect()
    }

    fn versions(&self, f: &Family) -> Vec<&str> {
        f.cols
            .iter()
            .map(|&i| version(&self.matrix.labels[i]))
            .collect()
    }

    /// The family a published target is a column of.
    fn family_of_target(&self, target: &str) -> Option<&Family> {
        let label = self.published.get(target)?;
        self.families.iter().find(|f| f.name == family_of(label))
    }
}

/// The history of one row over one family's releases, in words: "present in 4.0.2–4.1.3
/// (3 of 10 releases); fixed in 4.2.3". `None` when it is present in none.
pub fn span_text(versions: &[&str], states: &[Option<bool>]) -> Option<String> {
    let judged = states.iter().filter(|s| s.is_some()).count();
    let on: Vec<usize> = (0..states.len())
        .filter(|&i| states[i] == Some(true))
        .collect();
    let last = *on.last()?;
    // Runs of present releases, skipping releases that did not judge the case.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &i in &on {
        match runs.last_mut() {
            Some((_, end)) if states[*end + 1..i].iter().all(|s| s.is_none()) => *end = i,
            _ => runs.push((i, i)),
        }
    }
    let runs_text: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                versions[a].to_string()
            } else {
                format!("{}–{}", versions[a], versions[b])
            }
        })
        .collect();
    // A release that did not judge the case, or (a finding) whose result cannot tell.
    let undecided = match states.len() - judged {
        0 => String::new(),
        n => format!("; {n} undecided"),
    };
    let mut s = if on.len() == judged {
        format!(
            "present in every release that decides it ({}, {} of {}{undecided})",
            runs_text.join(", "),
            on.len(),
            judged
        )
    } else {
        format!(
            "present in {} ({} of {} releases that decide it{undecided})",
            runs_text.join(", "),
            on.len(),
            judged
        )
    };
    // Where it went away and came back.
    for w in runs.windows(2) {
        if let Some(gone) = (w[0].1 + 1..w[1].0).find(|&i| states[i] == Some(false)) {
            let _ = write!(
                s,
                "; gone in {}, back in {}",
                versions[gone], versions[w[1].0]
            );
        }
    }
    match (last + 1..states.len()).find(|&i| states[i] == Some(false)) {
        Some(fixed) => {
            let _ = write!(s, "; fixed in {}", versions[fixed]);
        }
        None if last + 1 == states.len() => {
            let _ = write!(
                s,
                "; still present in the newest release, {}",
                versions[last]
            );
        }
        None => {
            let _ = write!(s, "; no release after {} decides it", versions[last]);
        }
    }
    Some(s)
}

/// One finding on one family: the worst status of its claimed cases per release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingRow {
    pub id: String,
    pub family: String,
    pub cases: Vec<String>,
    /// One per column of the family; `None`: none of the cases was judged there.
    pub cells: Vec<Option<Status>>,
    /// [`span_text`] of the row; `None` when no release shows it.
    pub span: Option<String>,
}

/// The findings' rows: per finding (in the order of their first claim) and per family
/// of the published targets its claims name, the claimed cases followed through the
/// family's releases ([`finding_state`] says when it is present in one).
pub fn finding_rows(hist: &History, claims: &[Claim]) -> Vec<FindingRow> {
    let mut by_case: BTreeMap<&str, &Vec<Option<Cell>>> = BTreeMap::new();
    for ((_, case), cells) in &hist.matrix.rows {
        by_case.insert(case, cells);
    }
    // (row, case) -> the statuses the case has where it was found (the claim's published
    // targets of the row's family).
    let mut found: BTreeMap<(usize, String), Vec<Status>> = BTreeMap::new();
    let mut rows: Vec<FindingRow> = Vec::new();
    for c in claims {
        for t in &c.targets {
            let Some(fam) = hist.family_of_target(t) else {
                continue;
            };
            let at = match rows
                .iter()
                .position(|r| r.id == c.id && r.family == fam.name)
            {
                Some(i) => i,
                None => {
                    rows.push(FindingRow {
                        id: c.id.clone(),
                        family: fam.name.clone(),
                        cases: Vec::new(),
                        cells: Vec::new(),
                        span: None,
                    });
                    rows.len() - 1
                }
            };
            let col = hist
                .matrix
                .labels
                .iter()
                .position(|l| Some(l) == hist.published.get(t));
            for case in &c.cases {
                if !rows[at].cases.contains(case) {
                    rows[at].cases.push(case.clone());
                }
                let st = col.and_then(|i| by_case.get(case.as_str())?[i].as_ref());
                found
                    .entry((at, case.clone()))
                    .or_default()
                    .extend(st.map(|cell| cell.worst).filter(|s| is_unexpected(*s)));
            }
        }
    }
    for (at, row) in rows.iter_mut().enumerate() {
        let fam = hist
            .families
            .iter()
            .find(|f| f.name == row.family)
            .expect("a row's family is one of the history's");
        let mut states = Vec::new();
        let empty = Vec::new();
        let found_of: Vec<&Vec<Status>> = row
            .cases
            .iter()
            .map(|c| found.get(&(at, c.clone())).unwrap_or(&empty))
            .collect();
        row.cells = fam
            .cols
            .iter()
            .map(|&i| {
                let cells: Vec<(Status, &[Status])> = row
                    .cases
                    .iter()
                    .zip(&found_of)
                    .filter_map(|(c, f)| {
                        Some((by_case.get(c.as_str())?[i].as_ref()?.worst, f.as_slice()))
                    })
                    .collect();
                states.push(finding_state(&cells));
                worst(cells.iter().map(|(s, _)| *s))
            })
            .collect();
        row.span = span_text(&hist.versions(fam), &states);
    }
    rows
}

/// Whether a finding is present in one release, from its cases' statuses there: present
/// when one of them is unexpected with a status the case had where the finding was
/// found (a `fail` where it failed, a `crash` where it crashed); `None`, undecided, when
/// a case is unexpected there only with another status (a crash can hide a fail, and a
/// case of several findings can fail for another one) or none was judged; absent when
/// every case judged there came out expected.
fn finding_state(cells: &[(Status, &[Status])]) -> Option<bool> {
    if cells.iter().any(|(s, found)| found.contains(s)) {
        Some(true)
    } else if cells.is_empty() || cells.iter().any(|(s, _)| is_unexpected(*s)) {
        None
    } else {
        Some(false)
    }
}

/// Each finding's `**History:**` line (FINDINGS.md), from its rows.
pub fn finding_lines(rows: &[FindingRow]) -> BTreeMap<String, String> {
    let mut lines: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in rows {
        lines.entry(r.id.clone()).or_default().push(format!(
            "{}: {}",
            family_title(&r.family),
            r.span.as_deref().unwrap_or("in no release judged")
        ));
    }
    lines
        .into_iter()
        .map(|(id, parts)| {
            (
                id,
                format!(
                    "{}. From the release history ([HISTORY.md](history/HISTORY.md), `scripts/release-history.sh`).",
                    parts.join(". ")
                ),
            )
        })
        .collect()
}

/// What `history.json` holds: the columns in order, the published targets' columns, the
/// findings' rows (so a test can check FINDINGS.md against the reports).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    pub columns: Vec<String>,
    pub published: BTreeMap<String, String>,
    pub findings: Vec<FindingRow>,
}

fn status_md(s: &Option<Status>) -> String {
    match s {
        None => "—".to_string(),
        Some(s) if is_unexpected(*s) => format!("**{s}**"),
        Some(s) => s.to_string(),
    }
}

/// The first and last release of a row within a family, "—" when none.
fn first_last(hist: &History, fam: &Family, cells: &[Option<Cell>]) -> [String; 2] {
    let on: Vec<usize> = fam
        .cols
        .iter()
        .copied()
        .filter(|&i| present(&cells[i]) == Some(true))
        .collect();
    match (on.first(), on.last()) {
        (Some(&a), Some(&b)) => [
            version(&hist.matrix.labels[a]).to_string(),
            version(&hist.matrix.labels[b]).to_string(),
        ],
        _ => ["—".to_string(), "—".to_string()],
    }
}

/// HISTORY.md: the releases, then per family the findings' rows and the cases that are
/// unexpected in at least one of its releases, each with its first and last release.
pub fn render_markdown(reports: &[Report], hist: &History, rows: &[FindingRow]) -> String {
    let strict = reports.first().is_some_and(|r| r.options.strict);
    let mut out = format!(
        "# MPI_T release history{}\n\n{} releases judged, in {} families (columns: `family/version`, \
         in release order). Made by `bash scripts/release-history.sh`, which says how each \
         release was fetched; the releases it tried and could not judge are in \
         [RELEASES.md]({}RELEASES.md). A cell is the worst status of the case's results in \
         that release (`fail 3/40`: 3 of its 40 subjects fail); **bold**: unexpected (fail, \
         crash, timeout, error); —: not judged there (the case is newer than the release's \
         MPI, or the release has no such subject).\n\n",
        if strict { " (--strict)" } else { "" },
        reports.len(),
        hist.families.len(),
        if strict { "../" } else { "" },
    );
    targets_table_md(&mut out, reports, &hist.matrix);
    if !rows.is_empty() {
        let _ = writeln!(
            out,
            "## Findings\n\nEach finding of [FINDINGS.md](../FINDINGS.md) on each family of the \
             published targets it names. It is present in a release when one of its claimed \
             cases is unexpected there with the status it had where the finding was found (a \
             fail where it failed, a crash where it crashed); a release where a claimed case is \
             unexpected only with another status (a crash can hide a fail; a case two findings \
             claim can fail for the other one) counts neither way; the cell shows the worst \
             status of its cases.\n"
        );
    }
    for fam in &hist.families {
        let mine: Vec<&FindingRow> = rows.iter().filter(|r| r.family == fam.name).collect();
        if mine.is_empty() {
            continue;
        }
        let vs = hist.versions(fam);
        let _ = writeln!(
            out,
            "### {}\n\n| finding | history | {} |\n|---|---|{}",
            family_title(&fam.name),
            vs.iter().map(|v| md(v)).collect::<Vec<_>>().join(" | "),
            "---|".repeat(vs.len())
        );
        for r in mine {
            let _ = writeln!(
                out,
                "| [{}](../FINDINGS.md) | {} | {} |",
                r.id,
                md(r.span.as_deref().unwrap_or("in no release judged")),
                r.cells
                    .iter()
                    .map(status_md)
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "## Cases\n\nPer family, every case that is unexpected in at least one of its releases.\n"
    );
    for fam in &hist.families {
        let vs = hist.versions(fam);
        let listed: Vec<_> = hist
            .matrix
            .rows
            .iter()
            .filter(|(_, cells)| fam.cols.iter().any(|&i| present(&cells[i]) == Some(true)))
            .collect();
        let _ = writeln!(
            out,
            "### {} ({} cases)\n",
            family_title(&fam.name),
            listed.len()
        );
        if listed.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "| area | case | first | last | {} |\n|---|---|---|---|{}",
            vs.iter().map(|v| md(v)).collect::<Vec<_>>().join(" | "),
            "---|".repeat(vs.len())
        );
        for ((area, case), cells) in listed {
            let [first, last] = first_last(hist, fam, cells);
            let _ = writeln!(
                out,
                "| {area} | <code>{}</code> | {first} | {last} | {} |",
                md(case),
                fam.cols
                    .iter()
                    .map(|&i| cell_md(&cells[i]))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        out.push('\n');
    }
    out
}

/// HISTORY.html: the matrix page (every case, filterable) with the findings' table above
/// it and each case's first and last unexpected release beside its name.
pub fn render_html(reports: &[Report], hist: &History, rows: &[FindingRow]) -> String {
    let mut before = String::new();
    if !rows.is_empty() {
        before.push_str("<h2>Findings</h2>\n<table class=\"matrix\"><thead><tr><th>finding</th><th>family</th><th>history</th></tr></thead><tbody>\n");
        for r in rows {
            let _ = writeln!(
                before,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                h(&r.id),
                h(&family_title(&r.family)),
                h(r.span.as_deref().unwrap_or("in no release judged"))
            );
        }
        before.push_str("</tbody></table>\n<h2>Cases</h2>\n");
    }
    let labels = &hist.matrix.labels;
    let extra = Extra {
        title: Some(format!(
            "mpit-conform release history — {} releases",
            reports.len()
        )),
        before,
        heads: vec!["first", "last"],
        cols: Some(Box::new(move |cells: &[Option<Cell>]| {
            let on: Vec<usize> = (0..cells.len())
                .filter(|&i| present(&cells[i]) == Some(true))
                .collect();
            match (on.first(), on.last()) {
                (Some(&a), Some(&b)) => vec![labels[a].clone(), labels[b].clone()],
                _ => vec![String::new(), String::new()],
            }
        })),
    };
    render_html_parts(reports, &hist.matrix, &extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_is_present_with_the_status_it_was_found_with() {
        use Status::{Crash, Fail, Pass, Warn};
        let crashed: &[Status] = &[Crash];
        assert_eq!(finding_state(&[(Crash, crashed), (Pass, &[])]), Some(true));
        // A fail where it crashed: another deviation, or the same one masked: undecided.
        assert_eq!(finding_state(&[(Fail, crashed)]), None);
        assert_eq!(finding_state(&[(Warn, crashed), (Pass, &[])]), Some(false));
        assert_eq!(finding_state(&[]), None);
    }

    #[test]
    fn spans_in_words() {
        let v = ["1", "2", "3", "4", "5"];
        let t = |s: [Option<bool>; 5]| span_text(&v, &s);
        assert_eq!(t([Some(false); 5]), None);
        assert_eq!(
            t([Some(true), Some(true), None, Some(false), Some(false)]).unwrap(),
            "present in 1–2 (2 of 4 releases that decide it; 1 undecided); fixed in 4"
        );
        assert_eq!(
            t([Some(true), None, Some(true), Some(true), Some(true)]).unwrap(),
            "present in every release that decides it (1–5, 4 of 4; 1 undecided); still present in the newest release, 5"
        );
        assert_eq!(
            t([Some(true), Some(true), Some(false), Some(true), None]).unwrap(),
            "present in 1–2, 4 (3 of 4 releases that decide it; 1 undecided); gone in 3, back in 4; no release after 4 decides it"
        );
        assert_eq!(
            t([Some(true), Some(false), Some(true), Some(false), None]).unwrap(),
            "present in 1, 3 (2 of 4 releases that decide it; 1 undecided); gone in 2, back in 3; fixed in 4"
        );
    }
}
