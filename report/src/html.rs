//! One self-contained HTML page per report: inline CSS and a little inline JavaScript, no
//! network. Header with target and counts (the counts are the status filter), an area and
//! text filter, a table per area, and each result that did not pass expandable to its
//! evidence. Every string from the report is escaped: vendor libraries name things.

use super::escape::{first_line, html as h, shorten};
use super::markdown::{by_importance, counts_line, lib_name};
use super::{bug, headline, oracle_name, rank, Report};
use crate::verdict::{Area, CaseResult, Json, Status};
use std::fmt::Write;

pub(super) const CSS: &str = include_str!("assets/report.css");
const JS: &str = include_str!("assets/report.js");

/// A complete page around `body`; `script` is inline JavaScript (may be empty).
pub(super) fn page(title: &str, body: &str, script: &str) -> String {
    let mut out = String::with_capacity(body.len() + CSS.len() + script.len() + 512);
    page_start(&mut out, title);
    out.push_str(body);
    page_end(&mut out, script);
    out
}

/// The page up to the start of its body.
fn page_start(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n",
        h(title)
    );
}

/// The script and the end of the page.
fn page_end(out: &mut String, script: &str) {
    if !script.is_empty() {
        let _ = write!(out, "<script>\n{script}</script>\n");
    }
    out.push_str("</body>\n</html>\n");
}

/// The statuses in the order a reader wants them: findings first.
fn statuses_by_rank() -> Vec<Status> {
    let mut v = Status::ALL.to_vec();
    v.sort_by_key(|s| rank(*s));
    v
}

fn meta_row(out: &mut String, name: &str, value_html: &str) {
    let _ = writeln!(out, "<dt>{}</dt><dd>{value_html}</dd>", h(name));
}

fn header(out: &mut String, r: &Report) {
    let t = &r.target;
    let _ = writeln!(
        out,
        "<header class=\"top\">\n<h1>mpit-conform <span class=\"lib\">{}</span></h1>",
        h(lib_name(&t.path))
    );
    let (code, text) = headline(r);
    let class = ["good", "bad", "partial"][usize::from(code.min(2))];
    let _ = writeln!(out, "<div class=\"verdict {class}\">{}</div>", h(&text));
    out.push_str("<dl class=\"meta\">\n");
    meta_row(out, "Library", &format!("<code>{}</code>", h(&t.path)));
    if !t.sha256.is_empty() {
        meta_row(out, "SHA-256", &format!("<code>{}</code>", h(&t.sha256)));
    }
    let mut abi = h(&t.abi_family);
    if !t.abi_profile.is_empty() {
        let _ = write!(abi, " · profile <code>{}</code>", h(&t.abi_profile));
    }
    if let Some(d) = &t.detection {
        let _ = write!(abi, " · detected by {}", h(d));
    }
    meta_row(out, "ABI", &abi);
    let version = if t.library_version.lines().nth(1).is_some() {
        format!(
            "<details><summary><code>{}</code></summary><pre>{}</pre></details>",
            h(&first_line(&t.library_version, 120)),
            h(&t.library_version)
        )
    } else {
        format!("<code>{}</code>", h(&t.library_version))
    };
    meta_row(out, "Library version", &version);
    meta_row(
        out,
        "MPI version",
        &h(t.mpi_version.as_deref().unwrap_or("unknown")),
    );
    if !t.counts.is_empty() {
        let c: Vec<String> = t
            .counts
            .iter()
            .map(|(k, v)| format!("{} {v}", h(k)))
            .collect();
        meta_row(out, "Catalog", &c.join(" · "));
    }
    meta_row(
        out,
        "Run",
        &h(&format!(
            "{} → {} on {} ({} {}, {} cores) · {} {} · report format {}",
            r.started,
            r.finished,
            r.host.hostname,
            r.host.os,
            r.host.arch,
            r.host.cores,
            r.tool.name,
            r.tool.version,
            r.format_version
        )),
    );
    let o = &r.options;
    let mut opts = format!(
        "abi {} · jobs {} · timeout {} ms · {}",
        o.abi,
        o.jobs,
        o.timeout_ms,
        if o.strict { "strict" } else { "not strict" }
    );
    for (name, list) in [("case", &o.cases), ("area", &o.areas)] {
        if !list.is_empty() {
            let _ = write!(opts, " · --{name} {}", list.join(","));
        }
    }
    for (name, v) in [("baseline", &o.baseline), ("waivers", &o.waivers)] {
        if let Some(v) = v {
            let _ = write!(opts, " · --{name} {v}");
        }
    }
    meta_row(out, "Options", &h(&opts));
    if let Some(w) = &r.waivers {
        let mut s = format!(
            "{} result{} waived",
            w.applied,
            if w.applied == 1 { "" } else { "s" }
        );
        for n in w.notes() {
            let _ = write!(s, "<br>{}", h(&n));
        }
        meta_row(out, "Waivers", &s);
    }
    out.push_str("</dl>\n<div class=\"chips\" role=\"group\" aria-label=\"Show statuses\">\n");
    for s in statuses_by_rank() {
        let n = r.summary.count(s);
        // Passes start hidden: the page is for findings; one click shows them.
        let pressed = s != Status::Pass;
        let _ = writeln!(
            out,
            "<button type=\"button\" class=\"chip{}\" data-status=\"{s}\" aria-pressed=\"{pressed}\" \
             title=\"show or hide {s}\"><span class=\"dot s-{s}\"></span>{s} <b>{n}</b></button>",
            if n == 0 { " zero" } else { "" }
        );
    }
    let _ = writeln!(out, "</div>\n</header>");
}

fn filters(out: &mut String, r: &Report) {
    out.push_str(
        "<nav class=\"filters\">\n<label>Area <select id=\"f-area\"><option value=\"\">all areas</option>",
    );
    for area in r.summary.by_area.keys() {
        let _ = write!(out, "<option value=\"{area}\">{area}</option>");
    }
    out.push_str(
        "</select></label>\n<input id=\"f-text\" type=\"search\" \
         placeholder=\"Filter by case, subject, clause, message, evidence…\" aria-label=\"Filter text\">\n\
         <button type=\"button\" id=\"expand\">Expand all</button>\
         <button type=\"button\" id=\"collapse\">Collapse all</button>\n\
         <span id=\"shown\"></span>\n</nav>\n",
    );
}

/// The evidence block of a result: why, where in the standard, and every call.
fn evidence(out: &mut String, r: &CaseResult) {
    out.push_str("<tr class=\"ev\"><td colspan=\"7\">\n");
    let _ = writeln!(out, "<p class=\"evmsg\">{}</p>", h(&r.message));
    let _ = write!(
        out,
        "<div class=\"evhead\"><span>clause <b>{}</b></span><span>level <b>{}</b></span>\
         <span>oracle <b>{}</b></span><span>time <b>{:.1} ms</b></span>",
        h(&r.clause),
        r.level,
        oracle_name(r.oracle),
        r.duration_ms
    );
    if let Some(reading) = &r.reading {
        let _ = write!(out, "<span>reading <b>{}</b></span>", h(reading));
    }
    if let Some(w) = &r.waived {
        let _ = write!(out, "<span>waived <b>{}</b></span>", h(w));
    }
    if let Some(m) = &r.model {
        let _ = write!(out, "<span>model check <b>{}</b></span>", h(&m.line()));
    }
    out.push_str("</div>\n");
    if r.evidence.is_empty() {
        out.push_str("<p class=\"none\">No calls recorded.</p>\n");
    } else {
        out.push_str(
            "<table class=\"calls\"><colgroup><col class=\"n\"><col class=\"call\"><col><col class=\"rc\">\
             <col><col></colgroup>\n<thead><tr><th>#</th><th>call</th><th>args</th><th>rc</th>\
             <th>out</th><th>expected</th></tr></thead><tbody>\n",
        );
        for (i, e) in r.evidence.iter().enumerate() {
            let json = |v: &Json| {
                if v.is_null() {
                    String::new()
                } else {
                    format!("<pre>{}</pre>", h(v.compact()))
                }
            };
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td>\
                 <td>{}</td><td class=\"expected\">{}</td></tr>",
                i + 1,
                h(&e.call),
                json(&e.args),
                h(e.rc.as_deref().unwrap_or("")),
                json(&e.out),
                h(e.expected.as_deref().unwrap_or(""))
            );
        }
        out.push_str("</tbody></table>\n");
    }
    if let Some(path) = &r.repro {
        // `run --repro`: the standalone C program of this result (crate::repro).
        let _ = write!(
            out,
            "<details class=\"repro\"><summary>C reproducer <a href=\"{0}\"><code>{0}</code></a> \
             (<code>mpicc {1} &amp;&amp; ./a.out</code>: exit 1 when it reproduces)</summary>",
            h(path),
            h(path.rsplit('/').next().unwrap_or(path))
        );
        if let Some(src) = &r.repro_source {
            let _ = write!(
                out,
                "<button type=\"button\" class=\"copy\">Copy</button><pre class=\"c\">{}</pre>",
                h(src)
            );
        }
        out.push_str("</details>\n");
    }
    if bug::reproducible(r) {
        // `mpit-conform report-bug`: the command that writes this result's bug report
        // (repro.c and ISSUE.md), run beside the report.json written with this page.
        let _ = writeln!(
            out,
            "<div class=\"bug\">Bug report for the library's maintainers (repro.c and ISSUE.md), \
             run beside report.json: <button type=\"button\" class=\"copy\">Copy</button>\
             <pre class=\"cmd\">{}</pre></div>",
            h(&bug::command(r, "report.json"))
        );
    }
    out.push_str("</td></tr>\n");
}

fn row(out: &mut String, r: &CaseResult) {
    // Every result but a pass opens to its evidence (a pass has nothing to explain).
    let expandable = r.status != Status::Pass;
    let mut class = String::from("r");
    if expandable {
        class.push_str(" x");
    }
    if r.status.is_bad() || r.status == Status::Error {
        class.push_str(" finding");
    }
    if r.waived.is_some() {
        class.push_str(" waived");
    }
    let _ = write!(
        out,
        "<tr class=\"{class}\" data-status=\"{}\" data-area=\"{}\"{}>",
        r.status,
        r.area,
        if expandable {
            " tabindex=\"0\" aria-expanded=\"false\""
        } else {
            ""
        }
    );
    let waived = if r.waived.is_some() {
        "<br><span class=\"waived-tag\">waived</span>"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "<td class=\"tog\">{}</td><td><span class=\"badge s-{s}\">{s}</span>{waived}</td>\
         <td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        if expandable { "<span>▸</span>" } else { "" },
        h(&r.case),
        h(&r.subject),
        r.level,
        h(&r.clause),
        h(&shorten(&r.message, 300)),
        s = r.status,
    );
    if expandable {
        evidence(out, r);
    }
}

fn area_section(
    out: &mut String,
    area: Area,
    results: &[&CaseResult],
    drain: &mut dyn FnMut(&mut String),
) {
    let mut counts = std::collections::BTreeMap::new();
    for x in results {
        *counts.entry(x.status).or_insert(0usize) += 1;
    }
    let _ = writeln!(
        out,
        "<section class=\"area\" data-area=\"{area}\" id=\"area-{area}\">\n\
         <h2>{area} <span class=\"sub\">{} · {} result{}</span></h2>",
        h(&counts_line(&counts)),
        results.len(),
        if results.len() == 1 { "" } else { "s" }
    );
    out.push_str(
        "<table class=\"results\"><colgroup><col class=\"tog\"><col class=\"st\"><col class=\"case\">\
         <col class=\"subj\"><col class=\"lvl\"><col class=\"cl\"><col></colgroup>\n\
         <thead><tr><th></th><th>status</th><th>case</th><th>subject</th><th>level</th>\
         <th>clause</th><th>message</th></tr></thead>\n<tbody>\n",
    );
    for r in by_importance(results.iter().copied()) {
        row(out, r);
        drain(out);
    }
    out.push_str("</tbody></table>\n<p class=\"none\" hidden></p>\n</section>\n");
}

/// The HTML page of a report.
pub fn render(report: &Report) -> String {
    let mut page = String::with_capacity(8192 + CSS.len() + JS.len() + report.results.len() * 700);
    render_into(report, &mut page, &mut |_| {});
    page
}

/// Writes the HTML page of a report to `w` as it is rendered: a report of tens of
/// thousands of results makes a page of tens of megabytes, never held whole.
pub fn write(report: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut failed: Option<std::io::Error> = None;
    let mut chunk = String::with_capacity(1 << 17);
    let mut drain = |buf: &mut String| {
        if buf.len() >= 1 << 16 && failed.is_none() {
            if let Err(e) = w.write_all(buf.as_bytes()) {
                failed = Some(e);
            }
            buf.clear();
        }
    };
    render_into(report, &mut chunk, &mut drain);
    if let Some(e) = failed {
        return Err(e);
    }
    w.write_all(chunk.as_bytes())
}

/// Renders the page into `body`, calling `drain` after each result row (it may write
/// out and clear what is there so far).
fn render_into(report: &Report, body: &mut String, drain: &mut dyn FnMut(&mut String)) {
    let title = format!(
        "mpit-conform — {} — {}",
        lib_name(&report.target.path),
        counts_line(&report.summary.by_status)
    );
    page_start(body, &title);
    header(body, report);
    filters(body, report);
    body.push_str("<main>\n");
    super::capability_cells::html(body, report);
    if report.results.is_empty() {
        body.push_str("<p class=\"none\">This report holds no results.</p>\n");
    }
    for area in Area::ALL {
        let results: Vec<&CaseResult> = report.results.iter().filter(|r| r.area == area).collect();
        if !results.is_empty() {
            area_section(body, area, &results, drain);
        }
    }
    let _ = writeln!(
        body,
        "</main>\n<footer>{} {} · report.json format_version {} · areas and statuses: see reports/README.md</footer>",
        h(&report.tool.name),
        h(&report.tool.version),
        report.format_version
    );
    page_end(body, JS);
}
