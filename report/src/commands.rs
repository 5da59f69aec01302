//! One entry point per thing the CLI does with reports, so the CLI only wires flags to
//! calls.

use super::json::atomic_write;
use super::{
    diff, exit_code, headline, history, html, json, junit, markdown, matrix, Report, ReportError,
    Waivers,
};
use crate::verdict::Status;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The files [`write_all`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub json: PathBuf,
    pub markdown: PathBuf,
    pub html: PathBuf,
    pub junit: Option<PathBuf>,
}

fn create_dir(dir: &Path) -> Result<(), ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
        path: dir.to_path_buf(),
        source,
    })
}

/// Writes `report.json`, `report.md` and `report.html` into `out_dir` (created if
/// needed), and the JUnit XML to `junit` when given; each file atomically. The renderings
/// that can fail (JUnit, JSON serialization) come before any file is put in place, so a
/// rendering error leaves no new file behind.
pub fn write_all(
    report: &Report,
    out_dir: &Path,
    junit: Option<&Path>,
) -> Result<Written, ReportError> {
    // The JUnit text is rendered first (it can fail); report.json and report.html are
    // streamed and report.md is dropped once written: holding all three texts at once
    // was the supervisor's peak memory on large catalogs. report.html is written on a
    // thread of its own beside the other two (the run's last serial step).
    let junit_text = junit.map(|_| junit::render(report)).transpose()?;
    create_dir(out_dir)?;
    let w = Written {
        json: out_dir.join("report.json"),
        markdown: out_dir.join("report.md"),
        html: out_dir.join("report.html"),
        junit: junit.map(Path::to_path_buf),
    };
    let html = &w.html;
    std::thread::scope(|s| {
        let page = s.spawn(|| {
            super::json::atomic_write_with(html, |out| {
                html::write(report, out).map_err(|source| ReportError::Io {
                    path: html.clone(),
                    source,
                })
            })
        });
        let rest = json::write(report, &w.json)
            .and_then(|()| atomic_write(&w.markdown, markdown::render(report).as_bytes()));
        let page = page.join().unwrap_or_else(|_| {
            Err(ReportError::Io {
                path: html.clone(),
                source: std::io::Error::other("the thread writing it panicked"),
            })
        });
        rest.and(page)
    })?;
    if let (Some(path), Some(text)) = (&w.junit, junit_text) {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            create_dir(parent)?;
        }
        atomic_write(path, text.as_bytes())?;
    }
    Ok(w)
}

/// What [`conclude`] did.
#[derive(Debug, Clone)]
pub struct Concluded {
    pub written: Written,
    /// The process exit code ([`super::exit_code`]).
    pub exit: u8,
    /// The one-line verdict, for the terminal.
    pub headline: String,
    /// Waiver warnings (expired, unmatched, unexpected passes), one line each.
    pub notes: Vec<String>,
    /// The diff against the baseline, rendered, when there is one.
    pub baseline_diff: Option<String>,
}

/// The end of a run, in one call: applies the waivers (marking the report), writes every
/// file, and gates against the baseline. Waivers and baseline are loaded by the caller
/// *before* the run ([`Waivers::load`], [`json::read`]), so bad input stops the run before
/// it spends minutes on the library.
pub fn conclude(
    report: &mut Report,
    out_dir: &Path,
    junit: Option<&Path>,
    baseline: Option<&Report>,
    waivers: Option<&Waivers>,
) -> Result<Concluded, ReportError> {
    let notes = match waivers {
        Some(w) => w.apply(report, &today()).notes(),
        None => Vec::new(),
    };
    let written = write_all(report, out_dir, junit)?;
    Ok(Concluded {
        written,
        exit: exit_code(report, baseline),
        headline: headline(report).1,
        notes,
        baseline_diff: baseline.map(|b| diff::diff(b, report).render(b, report)),
    })
}

/// Writes `matrix.md` and `matrix.html` into `out_dir`; returns their paths.
pub fn write_matrix(reports: &[Report], out_dir: &Path) -> Result<[PathBuf; 2], ReportError> {
    write_matrix_as(reports, &matrix::Matrix::new(reports), out_dir)
}

/// [`write_matrix`] of an already built matrix (e.g. with the caller's column labels).
pub fn write_matrix_as(
    reports: &[Report],
    m: &matrix::Matrix,
    out_dir: &Path,
) -> Result<[PathBuf; 2], ReportError> {
    let md_text = matrix::render_markdown_with(reports, m);
    let html_text = matrix::render_html_with(reports, m);
    create_dir(out_dir)?;
    let paths = [out_dir.join("matrix.md"), out_dir.join("matrix.html")];
    atomic_write(&paths[0], md_text.as_bytes())?;
    atomic_write(&paths[1], html_text.as_bytes())?;
    Ok(paths)
}

/// `mpit-conform diff OLD NEW`: the text to print and the exit code (1 when something
/// got worse that no waiver in NEW covers, else 0). Unreadable input is an error (exit 2).
pub fn diff_command(old: &Path, new: &Path) -> Result<(String, u8), ReportError> {
    let old = json::read(old)?;
    let new = json::read(new)?;
    let d = diff::diff(&old, &new);
    let code = if d.worse() {
        exit_code::FINDINGS
    } else {
        exit_code::OK
    };
    Ok((d.render(&old, &new), code))
}

/// Hex SHA-256 of a file, for `TargetInfo.sha256`: which build of a library was judged.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(format!("{:x}", h.finalize()))
}

/// Today's date in UTC, `YYYY-MM-DD`: what waiver expiry dates are compared with.
pub fn today() -> String {
    let mut s = super::now_rfc3339();
    s.truncate(10);
    s
}

/// `mpit-conform matrix --history`: the release history of `reports` (labels
/// `family/version`, in release order) into `out_dir`: HISTORY.md, HISTORY.html and
/// history.json. With `findings` (reports/FINDINGS.md), its findings get rows, and each
/// one's `**History:**` line in that file is rewritten. Returns the files written.
pub fn write_history(
    reports: &[Report],
    labels: Vec<String>,
    published: std::collections::BTreeMap<String, String>,
    findings: Option<&Path>,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    let hist = history::History::new(reports, labels, published);
    let text = findings
        .map(|p| {
            std::fs::read_to_string(p).map_err(|source| ReportError::Io {
                path: p.to_path_buf(),
                source,
            })
        })
        .transpose()?;
    let claims = text
        .as_deref()
        .map(super::findings::claims)
        .unwrap_or_default();
    let rows = history::finding_rows(&hist, &claims);
    create_dir(out_dir)?;
    let summary = history::Summary {
        columns: hist.matrix.labels.clone(),
        published: hist.published.clone(),
        findings: rows.clone(),
    };
    let mut written = vec![
        out_dir.join("HISTORY.md"),
        out_dir.join("HISTORY.html"),
        out_dir.join("history.json"),
    ];
    atomic_write(
        &written[0],
        history::render_markdown(reports, &hist, &rows).as_bytes(),
    )?;
    atomic_write(
        &written[1],
        history::render_html(reports, &hist, &rows).as_bytes(),
    )?;
    let mut json = serde_json::to_string_pretty(&summary)?;
    json.push('\n');
    atomic_write(&written[2], json.as_bytes())?;
    if let (Some(path), Some(text)) = (findings, text) {
        let new = super::findings::with_history(&text, &history::finding_lines(&rows));
        if new != text {
            atomic_write(path, new.as_bytes())?;
        }
        written.push(path.to_path_buf());
    }
    Ok(written)
}

/// `mpit-conform diff --exact OLD NEW`: as [`diff_command`], but any moved verdict (a
/// status that changed, a result only in one report) makes the exit 1, not only a worse
/// one: the release history's check in CI.
/// `allow`: (case, statuses) whose changes do not count when the old and the new status
/// are both among the statuses, `None` standing for no such result (a result the
/// library makes nondeterministic, `reports/history/unstable.txt`; `None` for one
/// that only some runs have, a crash at a worker's exit).
pub fn diff_exact_command(
    old: &Path,
    new: &Path,
    allow: &[(String, Vec<Option<Status>>)],
) -> Result<(String, u8), ReportError> {
    let old = json::read(old)?;
    let new = json::read(new)?;
    let mut d = diff::diff(&old, &new);
    let mut allowed = 0usize;
    for bucket in [
        &mut d.new_fails,
        &mut d.new_crashes,
        &mut d.new_errors,
        &mut d.fixed,
        &mut d.changed,
        &mut d.added,
        &mut d.removed,
    ] {
        bucket.retain(|c| {
            let ok = allow
                .iter()
                .any(|(case, st)| *case == c.case && st.contains(&c.old) && st.contains(&c.new));
            allowed += usize::from(ok);
            !ok
        });
    }
    let code = if d.is_empty() {
        exit_code::OK
    } else {
        exit_code::FINDINGS
    };
    let mut text = d.render(&old, &new);
    if allowed > 0 {
        text.push_str(&format!(
            "{allowed} changes between statuses --allow names (not counted)\n"
        ));
    }
    Ok((text, code))
}

/// The recorded release history in `dir` (`reports/history`: its `history.json` names
/// the columns, each `<label>/report.json.gz` is read).
pub fn read_history(dir: &Path) -> Result<history::History, ReportError> {
    let file = dir.join("history.json");
    let text = std::fs::read_to_string(&file).map_err(|source| ReportError::Io {
        path: file.clone(),
        source,
    })?;
    let summary: history::Summary = serde_json::from_str(&text)?;
    let reports = summary
        .columns
        .iter()
        .map(|l| json::read(&dir.join(l).join("report.json.gz")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(history::History::new(
        &reports,
        summary.columns,
        summary.published,
    ))
}
