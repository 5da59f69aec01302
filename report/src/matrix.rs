//! Several reports side by side (several `--lib` at once, or `mpit-conform matrix`): one
//! row per area (the case group), then one row per case, one column per target. A cell
//! collapses the results to the worst status and how many have it ("fail 3/40": 3 of 40
//! subjects fail).

use super::escape::{first_line, html as h, markdown as md};
use super::html::page;
use super::markdown::counts_line;
use super::{worst, Report};
use crate::verdict::{Area, Status};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One case on one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub worst: Status,
    pub counts: BTreeMap<Status, usize>,
    pub total: usize,
}

impl Cell {
    /// "fail 3/40", or just "pass" for a single subject.
    pub fn short(&self) -> String {
        let n = self.counts.get(&self.worst).copied().unwrap_or(0);
        if self.total > 1 {
            format!("{} {n}/{}", self.worst, self.total)
        } else {
            self.worst.to_string()
        }
    }
}

/// The side-by-side table.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// Column headings, unique (the shortest path suffixes that tell the targets apart).
    pub labels: Vec<String>,
    /// (area, case) → one cell per report; `None`: the case is not in that report.
    pub rows: BTreeMap<(Area, String), Vec<Option<Cell>>>,
    /// area → one cell per report over all the area's results.
    pub groups: BTreeMap<Area, Vec<Option<Cell>>>,
}

fn add(cells: &mut [Option<Cell>], i: usize, status: Status) {
    let cell = cells[i].get_or_insert_with(|| Cell {
        worst: status,
        counts: BTreeMap::new(),
        total: 0,
    });
    *cell.counts.entry(status).or_default() += 1;
    cell.total += 1;
    cell.worst = worst([cell.worst, status]).unwrap_or(status);
}

impl Matrix {
    /// Columns labelled by the libraries' paths (see [`labels`]).
    pub fn new(reports: &[Report]) -> Matrix {
        Matrix::labeled(reports, labels(reports))
    }

    /// Columns labelled by the caller (`mpit-conform matrix NAME=REPORT`).
    pub fn labeled(reports: &[Report], labels: Vec<String>) -> Matrix {
        let n = reports.len();
        let mut rows: BTreeMap<(Area, String), Vec<Option<Cell>>> = BTreeMap::new();
        let mut groups: BTreeMap<Area, Vec<Option<Cell>>> = BTreeMap::new();
        for (i, rep) in reports.iter().enumerate() {
            for r in &rep.results {
                let cells = rows
                    .entry((r.area, r.case.clone()))
                    .or_insert_with(|| vec![None; n]);
                add(cells, i, r.status);
                add(
                    groups.entry(r.area).or_insert_with(|| vec![None; n]),
                    i,
                    r.status,
                );
            }
        }
        Matrix {
            labels,
            rows,
            groups,
        }
    }

    /// Whether a row has anything but passes (absent cells count as different).
    fn interesting(cells: &[Option<Cell>]) -> bool {
        cells
            .iter()
            .any(|c| c.as_ref().is_none_or(|c| c.worst != Status::Pass))
    }
}

/// Unique column labels: the library's file name, lengthened by parent directories
/// where two targets share it (MPICH and Intel MPI both ship `libmpi.so.12`).
fn labels(reports: &[Report]) -> Vec<String> {
    let parts: Vec<Vec<&str>> = reports
        .iter()
        .map(|r| {
            r.target
                .path
                .rsplit('/')
                .filter(|s| !s.is_empty())
                .collect()
        })
        .collect();
    let mut depth = vec![1usize; reports.len()];
    let label = |i: usize, d: usize| -> String {
        let p = &parts[i];
        let mut v: Vec<&str> = p.iter().take(d).copied().collect();
        v.reverse();
        if v.is_empty() {
            "(no path)".to_string()
        } else {
            v.join("/")
        }
    };
    // Lengthen clashing labels until they differ or their paths run out.
    loop {
        let current: Vec<String> = (0..reports.len()).map(|i| label(i, depth[i])).collect();
        let mut grew = false;
        for i in 0..reports.len() {
            let clash = current
                .iter()
                .enumerate()
                .any(|(j, l)| j != i && *l == current[i]);
            if clash && depth[i] < parts[i].len() {
                depth[i] += 1;
                grew = true;
            }
        }
        if !grew {
            // Same path twice (the same library run twice): number them.
            return current
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    if current.iter().filter(|x| *x == l).count() > 1 {
                        format!("{l} #{}", i + 1)
                    } else {
                        l.clone()
                    }
                })
                .collect();
        }
    }
}

pub(crate) fn targets_table_md(out: &mut String, reports: &[Report], m: &Matrix) {
    let _ = writeln!(
        out,
        "| target | path | ABI | MPI | library version | results |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for (r, l) in reports.iter().zip(&m.labels) {
        let t = &r.target;
        let _ = writeln!(
            out,
            "| **{}** | {} | {} | {} | {} | {}{} |",
            md(l),
            md(&t.path),
            md(&t.abi_family),
            md(t.mpi_version.as_deref().unwrap_or("?")),
            md(&first_line(&t.library_version, 60)),
            counts_line(&r.summary.by_status),
            if r.interrupted { " (interrupted)" } else { "" }
        );
    }
    out.push('\n');
}

pub(crate) fn cell_md(c: &Option<Cell>) -> String {
    match c {
        None => "—".to_string(),
        Some(c) if c.worst.is_bad() || c.worst == Status::Error => format!("**{}**", c.short()),
        Some(c) => c.short(),
    }
}

/// The matrix as Markdown. Rows where every target passes are counted, not listed.
pub fn render_markdown(reports: &[Report]) -> String {
    render_markdown_with(reports, &Matrix::new(reports))
}

/// [`render_markdown`] of an already built (e.g. [`Matrix::labeled`]) matrix.
pub fn render_markdown_with(reports: &[Report], m: &Matrix) -> String {
    let mut out = format!("## mpit-conform matrix: {} targets\n\n", reports.len());
    targets_table_md(&mut out, reports, m);
    super::capability_cells::matrix_markdown(&mut out, reports, &m.labels);
    let heads: Vec<String> = m.labels.iter().map(|l| md(l)).collect();
    let _ = writeln!(out, "### By area\n\n| area | {} |", heads.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(m.labels.len()));
    for (area, cells) in &m.groups {
        let cells: Vec<String> = cells.iter().map(cell_md).collect();
        let _ = writeln!(out, "| {area} | {} |", cells.join(" | "));
    }
    let _ = writeln!(out, "\n### By case\n");
    let _ = writeln!(
        out,
        "| area | case | {} |",
        m.labels
            .iter()
            .map(|l| md(l))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(out, "|---|---|{}", "---|".repeat(m.labels.len()));
    let mut all_pass = 0usize;
    for ((area, case), cells) in &m.rows {
        if !Matrix::interesting(cells) {
            all_pass += 1;
            continue;
        }
        let cells: Vec<String> = cells.iter().map(cell_md).collect();
        let _ = writeln!(
            out,
            "| {area} | <code>{}</code> | {} |",
            md(case),
            cells.join(" | ")
        );
    }
    let _ = writeln!(
        out,
        "\n_{all_pass} cases pass on every target (not listed)._"
    );
    out
}

const MATRIX_JS: &str = r#"(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.m"));
  var only = document.getElementById("f-only");
  var text = document.getElementById("f-text");
  var shown = document.getElementById("shown");
  function apply() {
    var q = text.value.trim().toLowerCase(), n = 0;
    rows.forEach(function (r) {
      var show = (!only.checked || r.dataset.interesting === "1") &&
        (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
      r.hidden = !show;
      if (show) { n++; }
    });
    shown.textContent = n + " of " + rows.length + " cases shown";
  }
  only.addEventListener("change", apply);
  text.addEventListener("input", apply);
  apply();
})();
"#;

/// The matrix as a self-contained HTML page (all rows; a checkbox hides all-pass rows).
pub fn render_html(reports: &[Report]) -> String {
    render_html_with(reports, &Matrix::new(reports))
}

/// [`render_html`] of an already built matrix.
pub fn render_html_with(reports: &[Report], m: &Matrix) -> String {
    render_html_parts(reports, m, &Extra::default())
}

/// What the release history ([`super::history`]) adds to the HTML matrix: its own title,
/// a block before the table (the findings), and columns after the case's name (the first
/// and last release a case is unexpected in).
#[derive(Default)]
pub(crate) struct Extra<'a> {
    pub title: Option<String>,
    pub before: String,
    pub heads: Vec<&'static str>,
    #[allow(clippy::type_complexity)]
    pub cols: Option<Box<dyn Fn(&[Option<Cell>]) -> Vec<String> + 'a>>,
}

pub(crate) fn render_html_parts(reports: &[Report], m: &Matrix, extra: &Extra) -> String {
    let title = extra
        .title
        .clone()
        .unwrap_or_else(|| format!("mpit-conform matrix — {} targets", reports.len()));
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<header class=\"top\"><h1>{} <span class=\"plain\">{} targets</span></h1>\n\
         <dl class=\"meta\">",
        h(title.split(" — ").next().unwrap_or(&title)),
        reports.len()
    );
    for (r, l) in reports.iter().zip(&m.labels) {
        let t = &r.target;
        let _ = writeln!(
            b,
            "<dt><b>{}</b></dt><dd><code>{}</code> · {} · MPI {} · <code>{}</code> · {}{}</dd>",
            h(l),
            h(&t.path),
            h(&t.abi_family),
            h(t.mpi_version.as_deref().unwrap_or("?")),
            h(&first_line(&t.library_version, 80)),
            h(&counts_line(&r.summary.by_status)),
            if r.interrupted { " · interrupted" } else { "" }
        );
    }
    b.push_str(
        "</dl></header>\n<nav class=\"filters\"><label><input type=\"checkbox\" id=\"f-only\" checked> \
         only cases that do not pass everywhere</label>\n<input id=\"f-text\" type=\"search\" \
         placeholder=\"Filter by case or area…\" aria-label=\"Filter text\"><span id=\"shown\"></span></nav>\n\
         <main>",
    );
    b.push_str(&extra.before);
    super::capability_cells::matrix_html(&mut b, reports, &m.labels);
    b.push_str("<table class=\"matrix\"><thead><tr><th>area</th><th>case</th>");
    for head in &extra.heads {
        let _ = write!(b, "<th>{head}</th>");
    }
    for l in &m.labels {
        let _ = write!(b, "<th>{}</th>", h(l));
    }
    b.push_str("</tr></thead>\n<tbody>\n");
    // Area rows first: the case groups, always shown.
    for (area, cells) in &m.groups {
        let _ = write!(
            b,
            "<tr class=\"group\"><td class=\"area\">{area}</td><td>all cases</td>{}",
            "<td></td>".repeat(extra.heads.len())
        );
        for c in cells {
            html_cell(&mut b, c);
        }
        b.push_str("</tr>\n");
    }
    for ((area, case), cells) in &m.rows {
        let _ = write!(
            b,
            "<tr class=\"m\" data-interesting=\"{}\"><td class=\"area\">{area}</td><td><code>{}</code></td>",
            u8::from(Matrix::interesting(cells)),
            h(case)
        );
        if let Some(cols) = &extra.cols {
            for col in cols(cells) {
                let _ = write!(b, "<td>{}</td>", h(&col));
            }
        }
        for c in cells {
            html_cell(&mut b, c);
        }
        b.push_str("</tr>\n");
    }
    b.push_str("</tbody></table></main>\n");
    page(&title, &b, MATRIX_JS)
}

fn html_cell(b: &mut String, c: &Option<Cell>) {
    match c {
        None => b.push_str("<td class=\"cell\">—</td>"),
        Some(c) => {
            let _ = write!(
                b,
                "<td class=\"cell\" title=\"{}\"><span class=\"badge s-{}\">{}</span>\
                 <span class=\"n\">{}</span></td>",
                h(&counts_line(&c.counts)),
                c.worst,
                c.worst,
                if c.total > 1 {
                    h(&counts_line(&c.counts))
                } else {
                    String::new()
                }
            );
        }
    }
}
