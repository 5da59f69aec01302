//! The capability states (`crate::capabilities`) in the human reports: a table in
//! report.md and report.html, and the "Capabilities" table of the matrix (one row per
//! capability, one column per target). A report without them (older, or a report of a
//! run that wrote none) shows "—".

use super::escape::{html as h, markdown as md};
use super::Report;
use crate::capabilities::{Capability, State};
use std::fmt::Write;

/// The row names readers see, and the keys of report.json's `capabilities`.
const ROWS: [(&str, &str); 3] = [
    ("events", "events"),
    ("sources", "sources"),
    ("mpi4_functions", "MPI-4.0 functions"),
];

fn get<'a>(r: &'a Report, key: &str) -> Option<&'a Capability> {
    let c = r.capabilities.as_ref()?;
    c.rows()
        .into_iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// "firing (2)", "partial (3/20)", "absent": the state and its count.
pub fn cell(c: &Capability, key: &str) -> String {
    match (c.count, key) {
        (Some(n), "mpi4_functions") => {
            format!("{} ({n}/{})", c.state, c.exported.len() + c.missing.len())
        }
        (Some(n), _) => format!("{} ({n})", c.state),
        (None, _) => c.state.to_string(),
    }
}

fn css(s: State) -> &'static str {
    match s {
        State::Firing | State::Ticking | State::Present => "s-pass",
        State::Empty | State::Partial => "s-warn",
        State::Absent => "s-skip",
        State::Unknown => "s-crash",
    }
}

/// The report.md section: one row per capability, with why.
pub fn markdown(out: &mut String, r: &Report) {
    if r.capabilities.is_none() {
        return;
    }
    let _ = writeln!(
        out,
        "### Capabilities\n\n\
         Not pass/fail: what the library offers of the MPI-4.0 additions, from the probe's \
         calls (reports/README.md \"Capabilities\").\n\n| capability | state | why |\n|---|---|---|"
    );
    for (key, name) in ROWS {
        if let Some(c) = get(r, key) {
            let _ = writeln!(
                out,
                "| {name} | **{}** | {} |",
                md(&cell(c, key)),
                md(&c.message)
            );
        }
    }
    out.push('\n');
}

/// The report.html section: the same table, each row's evidence behind a disclosure.
pub fn html(out: &mut String, r: &Report) {
    if r.capabilities.is_none() {
        return;
    }
    out.push_str(
        "<section class=\"caps\"><h2>Capabilities <span class=\"sub\">not pass/fail: what the \
         library offers of the MPI-4.0 additions, from the probe's calls</span></h2>\n\
         <table class=\"calls\"><thead><tr><th>capability</th><th>state</th><th>why</th></tr></thead><tbody>\n",
    );
    for (key, name) in ROWS {
        let Some(c) = get(r, key) else { continue };
        let _ = write!(
            out,
            "<tr><td>{name}</td><td><span class=\"badge {}\">{}</span></td><td>{}",
            css(c.state),
            h(&cell(c, key)),
            h(&c.message)
        );
        if !c.missing.is_empty() && !c.exported.is_empty() {
            let _ = write!(
                out,
                "<br>missing: <code>{}</code>",
                h(&c.missing.join(", "))
            );
        }
        if !c.evidence.is_empty() {
            let _ = write!(
                out,
                "<details><summary>{} call{}</summary><pre>",
                c.evidence.len(),
                if c.evidence.len() == 1 { "" } else { "s" }
            );
            for e in &c.evidence {
                let line = serde_json::to_string(e).unwrap_or_default();
                let _ = writeln!(out, "{}", h(&line));
            }
            out.push_str("</pre></details>");
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody></table></section>\n");
}

/// The matrix's Markdown table.
pub fn matrix_markdown(out: &mut String, reports: &[Report], labels: &[String]) {
    if reports.iter().all(|r| r.capabilities.is_none()) {
        return;
    }
    let heads: Vec<String> = labels.iter().map(|l| md(l)).collect();
    let _ = writeln!(
        out,
        "### Capabilities\n\nNot pass/fail: absent (not exported), empty (exported, 0 of \
         them), present, firing (a callback was delivered) / ticking (a timestamp advanced); \
         see reports/README.md \"Capabilities\".\n\n| capability | {} |",
        heads.join(" | ")
    );
    let _ = writeln!(out, "|---|{}", "---|".repeat(labels.len()));
    for (key, name) in ROWS {
        let cells: Vec<String> = reports
            .iter()
            .map(|r| get(r, key).map_or("—".to_string(), |c| md(&cell(c, key))))
            .collect();
        let _ = writeln!(out, "| {name} | {} |", cells.join(" | "));
    }
    out.push('\n');
}

/// The matrix's HTML table (each cell's title: why).
pub fn matrix_html(b: &mut String, reports: &[Report], labels: &[String]) {
    if reports.iter().all(|r| r.capabilities.is_none()) {
        return;
    }
    b.push_str(
        "<section class=\"caps\"><h2>Capabilities <span class=\"sub\">not pass/fail</span></h2>\
         <table class=\"matrix\"><thead><tr><th>capability</th>",
    );
    for l in labels {
        let _ = write!(b, "<th>{}</th>", h(l));
    }
    b.push_str("</tr></thead><tbody>\n");
    for (key, name) in ROWS {
        let _ = write!(b, "<tr><td class=\"area\">{name}</td>");
        for r in reports {
            match get(r, key) {
                None => b.push_str("<td class=\"cell\">—</td>"),
                Some(c) => {
                    let _ = write!(
                        b,
                        "<td class=\"cell\" title=\"{}\"><span class=\"badge {}\">{}</span></td>",
                        h(&c.message),
                        css(c.state),
                        h(&cell(c, key))
                    );
                }
            }
        }
        b.push_str("</tr>\n");
    }
    b.push_str("</tbody></table></section>\n");
}
