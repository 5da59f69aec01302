//! A Markdown summary for a CI step summary (GitHub's `$GITHUB_STEP_SUMMARY`, GitLab
//! notes): the target, counts by status, the top findings, then per area a table of what
//! did not pass with the evidence of fails folded in `<details>`. Long lists are cut
//! ("and N more"): step summaries have a size limit, and report.html has everything.

use super::escape::{evidence_text, first_line, html_text, markdown as md, shorten};
use super::{headline, rank, Report};
use crate::verdict::{Area, CaseResult, Status};
use std::fmt::Write;

/// Rows per area table.
pub const MAX_ROWS: usize = 25;
/// `<details>` evidence blocks per area.
pub const MAX_DETAILS: usize = 8;
/// Entries of "Top findings".
pub const MAX_TOP: usize = 10;
/// Characters of a message in a table cell.
const MAX_MESSAGE: usize = 160;

/// Findings first: by status rank, waived after unwaived, then in report order.
pub fn by_importance<'a>(results: impl IntoIterator<Item = &'a CaseResult>) -> Vec<&'a CaseResult> {
    let mut v: Vec<&CaseResult> = results.into_iter().collect();
    v.sort_by_key(|r| (r.waived.is_some(), rank(r.status)));
    v
}

fn code(s: &str) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("<code>{}</code>", md(s))
    }
}

fn status_cell(r: &CaseResult) -> String {
    let s = if r.status.is_bad() || r.status == Status::Error {
        format!("**{}**", r.status)
    } else {
        r.status.to_string()
    };
    match &r.waived {
        Some(w) => format!("{s} (waived: {})", md(&shorten(w, 80))),
        None => s,
    }
}

/// "3 fail · 1 crash · 40 pass": the non-zero counts, findings first.
pub fn counts_line(counts: &std::collections::BTreeMap<Status, usize>) -> String {
    let mut statuses: Vec<Status> = Status::ALL.to_vec();
    statuses.sort_by_key(|s| rank(*s));
    let parts: Vec<String> = statuses
        .iter()
        .filter_map(|s| {
            let n = counts.get(s).copied().unwrap_or(0);
            (n > 0).then(|| format!("{n} {s}"))
        })
        .collect();
    if parts.is_empty() {
        "no results".to_string()
    } else {
        parts.join(" · ")
    }
}

/// The file name of a library path (what headings show; the full path is on the target line).
pub fn lib_name(path: &str) -> &str {
    path.rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(path)
}

fn header(out: &mut String, r: &Report) {
    let t = &r.target;
    let _ = writeln!(
        out,
        "## mpit-conform: {} — {}\n",
        code(lib_name(&t.path)),
        counts_line(&r.summary.by_status)
    );
    let mut target = format!("**Target** {}", code(&t.path));
    if !t.abi_family.is_empty() {
        let _ = write!(target, " · ABI {}", md(&t.abi_family));
        if !t.abi_profile.is_empty() && t.abi_profile != t.abi_family {
            let _ = write!(target, " (profile {})", code(&t.abi_profile));
        }
    }
    if let Some(v) = &t.mpi_version {
        let _ = write!(target, " · MPI {}", md(v));
    }
    if !t.library_version.is_empty() {
        let _ = write!(target, " · {}", code(&first_line(&t.library_version, 100)));
    }
    if !t.sha256.is_empty() {
        let _ = write!(target, " · sha256 {}", code(&shorten(&t.sha256, 13)));
    }
    let _ = writeln!(out, "{target}  ");
    let _ = writeln!(
        out,
        "**Run** {} → {} on {} ({} {}, {} cores) · {} {}{}  ",
        md(&r.started),
        md(&r.finished),
        md(&r.host.hostname),
        md(&r.host.os),
        md(&r.host.arch),
        r.host.cores,
        md(&r.tool.name),
        md(&r.tool.version),
        if r.options.strict { " · --strict" } else { "" }
    );
    let _ = writeln!(out, "**Verdict** {}  ", md(&headline(r).1));
    if let Some(w) = &r.waivers {
        for note in w.notes() {
            let _ = writeln!(out, "**Waivers** {}  ", md(&note));
        }
    }
    out.push('\n');
}

fn status_table(out: &mut String, r: &Report) {
    let _ = writeln!(
        out,
        "| | {} | total |",
        Status::ALL.map(|s| s.as_str()).join(" | ")
    );
    let _ = writeln!(out, "|---|{}---:|", "---:|".repeat(Status::ALL.len()));
    let row = |name: &str, counts: &std::collections::BTreeMap<Status, usize>| {
        let cells: Vec<String> = Status::ALL
            .iter()
            .map(|s| counts.get(s).copied().unwrap_or(0).to_string())
            .collect();
        let total: usize = counts.values().sum();
        format!("| {name} | {} | {total} |", cells.join(" | "))
    };
    let _ = writeln!(out, "{}", row("**all**", &r.summary.by_status));
    for (area, counts) in &r.summary.by_area {
        let _ = writeln!(out, "{}", row(area.as_str(), counts));
    }
    out.push('\n');
}

/// How many value results saw their value move under activity (`exercised`): a pass
/// whose value never moved held its relation vacuously, and the reader should know how
/// many those were.
fn values_line(out: &mut String, r: &Report) {
    let sampled: Vec<&CaseResult> = r.results.iter().filter(|x| x.exercised.is_some()).collect();
    if sampled.is_empty() {
        return;
    }
    let moved = sampled.iter().filter(|x| x.exercised == Some(true)).count();
    let _ = writeln!(
        out,
        "Values under activity: {moved} of {} sampled results saw their value move; the \
         other {} passed or failed on a value that stayed put.\n",
        sampled.len(),
        sampled.len() - moved
    );
}

fn result_row(r: &CaseResult, with_area: bool) -> String {
    let area = if with_area {
        format!("{} | ", r.area)
    } else {
        String::new()
    };
    // `run --repro`: the C reproducer, linked beside the message.
    let repro = r
        .repro
        .as_ref()
        .map(|p| format!(" ([C reproducer]({p}))"))
        .unwrap_or_default();
    format!(
        "| {area}{} | {} | {} | {} | {}{repro} |",
        code(&r.case),
        md(&shorten(&r.subject, 60)),
        status_cell(r),
        md(&r.clause),
        md(&shorten(&r.message, MAX_MESSAGE)),
    )
}

fn top_findings(out: &mut String, r: &Report) {
    let top: Vec<&CaseResult> = by_importance(
        r.results
            .iter()
            .filter(|x| rank(x.status) <= rank(Status::Warn) && x.waived.is_none()),
    );
    if top.is_empty() {
        return;
    }
    let _ = writeln!(out, "### Top findings\n");
    let _ = writeln!(out, "| area | case | subject | status | clause | message |");
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for x in top.iter().take(MAX_TOP) {
        let _ = writeln!(out, "{}", result_row(x, true));
    }
    more(out, top.len(), MAX_TOP);
    out.push('\n');
}

fn more(out: &mut String, total: usize, shown: usize) {
    if total > shown {
        let _ = writeln!(out, "\n_and {} more_", total - shown);
    }
}

fn area_section(out: &mut String, area: Area, results: &[&CaseResult]) {
    let not_pass = by_importance(results.iter().copied().filter(|x| x.status != Status::Pass));
    if not_pass.is_empty() {
        return;
    }
    let mut counts = std::collections::BTreeMap::new();
    for x in results {
        *counts.entry(x.status).or_insert(0usize) += 1;
    }
    let _ = writeln!(out, "### {} — {}\n", area, counts_line(&counts));
    let _ = writeln!(out, "| case | subject | status | clause | message |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for x in not_pass.iter().take(MAX_ROWS) {
        let _ = writeln!(out, "{}", result_row(x, false));
    }
    more(out, not_pass.len(), MAX_ROWS);
    out.push('\n');
    // Evidence of what went wrong, folded: a reviewer opens the ones they care about.
    let with_evidence: Vec<&&CaseResult> = not_pass
        .iter()
        .filter(|x| x.status.is_bad() || x.status == Status::Error)
        .collect();
    for x in with_evidence.iter().take(MAX_DETAILS) {
        let name = if x.subject.is_empty() {
            x.case.clone()
        } else {
            format!("{} [{}]", x.case, shorten(&x.subject, 60))
        };
        let mut body = format!("{}\nclause: {}   level: {}\n", x.message, x.clause, x.level);
        if let Some(reading) = &x.reading {
            let _ = writeln!(body, "reading: {reading}");
        }
        if let Some(m) = &x.model {
            let _ = writeln!(body, "model check: {}", m.line());
        }
        if x.evidence.is_empty() {
            body.push_str("(no calls recorded)\n");
        } else {
            body.push_str(&evidence_text(&x.evidence));
        }
        // Inside <details> GitHub renders HTML, so the body is HTML-escaped in a <pre>.
        let _ = writeln!(
            out,
            "<details><summary>{} — {}</summary>\n\n<pre>{}</pre>\n</details>\n",
            x.status,
            html_text(&name),
            html_text(body.trim_end())
        );
    }
    if with_evidence.len() > MAX_DETAILS {
        let _ = writeln!(
            out,
            "_and {} more with evidence in report.html_\n",
            with_evidence.len() - MAX_DETAILS
        );
    }
}

/// `run --model-check`: how the findings fared on the reference serving this catalog.
fn model_check_line(out: &mut String, r: &Report) {
    if let Some(m) = &r.model_check {
        let _ = writeln!(
            out,
            "Model check (the reference serving this library's catalog, `{}`), the fails, \
             warns and crashes: {}; {} results the reference has and the library not.\n",
            m.catalog,
            m.tally.line(),
            m.tally.model_only.len()
        );
    }
}

/// The Markdown summary of a report.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    header(&mut out, report);
    status_table(&mut out, report);
    super::capability_cells::markdown(&mut out, report);
    values_line(&mut out, report);
    model_check_line(&mut out, report);
    top_findings(&mut out, report);
    for area in Area::ALL {
        let results: Vec<&CaseResult> = report.results.iter().filter(|r| r.area == area).collect();
        area_section(&mut out, area, &results);
    }
    out
}
