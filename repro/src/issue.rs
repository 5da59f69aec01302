//! A bug report for a library's maintainers, in Markdown that GitHub and GitLab render as
//! is (`mpit-conform report-bug`): a title in the tracker's style; the library,
//! its version and hash; the standard's sentences, quoted from specs/clauses.yaml (and
//! specs/readings.yaml where a reading applies); what the library did (the calls, the
//! values, the codes) against what was expected; how to build and run the reproducer,
//! and what it printed in this run; the other libraries of the matrix on the same case.
//! An entry of the findings list (`findings`) gives its title and text.
//!
//! Pure: the reproducer's build and run happen in the CLI (a child process, never this
//! one), which hands in what came of them ([`Run`]).

use super::findings::Finding;
use super::program::first_line;
use super::Origin;
use mpit_report::Report;
use mpit_spec::cases::clauses::Clauses;
use mpit_spec::cases::Case;
use mpit_spec::readings;
use mpit_spec::verdict::{CaseResult, Json, Status};
use std::fmt::Write as _;

/// What became of the reproducer in this run.
#[derive(Debug, Clone)]
pub enum Run {
    /// Built with `build` and run: how it ended (`exit status 1`), what that means, what
    /// it printed.
    Ran {
        build: String,
        ended: String,
        meaning: String,
        output: String,
    },
    /// `build` failed (or found no compiler): why, in its own words.
    NotBuilt { build: String, why: String },
    /// Not attempted (`--no-run`).
    NotRun,
}

/// The same case on another library of the matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Other {
    /// `MPICH 5.0.2 (libmpi.so.12)`.
    pub library: String,
    /// `passes (12 subjects)`, `fails too`, `not applicable: ...`.
    pub outcome: String,
    pub passes: bool,
}

/// Everything a report is written from.
pub struct Bug<'a> {
    pub case: &'a Case,
    pub result: &'a CaseResult,
    pub report: &'a Report,
    pub clauses: &'a Clauses,
    /// The reproducer's source (repro.c).
    pub program: &'a str,
    pub run: &'a Run,
    pub others: &'a [Other],
    pub finding: Option<&'a Finding>,
}

/// The library as a reader names it: `MPICH 4.0.2`, `Open MPI v5.0.11`, with the file
/// that tells two builds of one release apart.
pub fn library_name(report: &Report) -> String {
    let o = Origin::of(report);
    let mut name = o.library.split_whitespace().collect::<Vec<_>>().join(" ");
    name = name.replacen("MPICH Version: ", "MPICH ", 1);
    for cut in [", ", " (", " for "] {
        if let Some(i) = name.find(cut) {
            name.truncate(i);
        }
    }
    let file = o.path.rsplit('/').next().unwrap_or(&o.path).to_string();
    if name.starts_with("mpit-reference") {
        // The harness's own oracle, as a library: a reader should not mistake it.
        format!("{name} (mpit-conform's reference MPI_T, written from the standard)")
    } else if name.is_empty() {
        file
    } else {
        format!("{name} ({file})")
    }
}

/// How the results of `case` went on each of `reports` but `this` one's library.
pub fn others(case: &str, this: &Report, reports: &[Report]) -> Vec<Other> {
    let mut out = Vec::new();
    for r in reports {
        let same = r.target.sha256 == this.target.sha256 && r.target.path == this.target.path;
        let of_case: Vec<&CaseResult> = r.results.iter().filter(|x| x.case == case).collect();
        if same || of_case.is_empty() {
            continue;
        }
        let n = of_case.len();
        let count = |s: Status| of_case.iter().filter(|x| x.status == s).count();
        let bad = n - count(Status::Pass) - count(Status::Skip) - count(Status::Unsupported);
        let subjects = |k: usize| match (k, n) {
            (1, 1) => String::new(),
            (k, n) if k == n => format!(" ({n} subjects)"),
            (k, n) => format!(" ({k} of {n} subjects)"),
        };
        let (outcome, passes) = if count(Status::Pass) == n {
            (format!("passes{}", subjects(n)), true)
        } else if bad > 0 {
            let worst = of_case
                .iter()
                .filter(|x| !matches!(x.status, Status::Pass | Status::Skip | Status::Unsupported))
                .map(|x| x.status.as_str())
                .next()
                .unwrap_or("fail");
            (format!("{worst}s too{}", subjects(bad)), false)
        } else if count(Status::Pass) > 0 {
            (format!("passes{}", subjects(count(Status::Pass))), true)
        } else {
            let why = first_line(&of_case[0].message);
            (format!("not applicable: {}", shorten(&why, 100)), false)
        };
        out.push(Other {
            library: library_name(r),
            outcome,
            passes,
        });
    }
    out
}

/// The issue's title: the finding's, else what the library did, with the section.
pub fn title(b: &Bug) -> String {
    let section = b
        .result
        .clause
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    match b.finding {
        Some(f) => format!("MPI_T: {} ({section})", f.title),
        None => format!(
            "MPI_T: {} ({section})",
            shorten(&first_line(&b.result.message), 110)
        ),
    }
}

/// The report, in Markdown: a `# title` line, then the body to paste.
pub fn render(b: &Bug) -> String {
    let r = b.result;
    let t = &b.report.target;
    let mut s = format!("# {}\n\n", title(b));
    let subject = if r.subject.is_empty() {
        String::new()
    } else {
        format!(" on {}", code(&r.subject))
    };
    let _ = writeln!(
        s,
        "**Library:** {}, MPI {} (`{}`, ABI family {}, SHA-256 `{}`)  ",
        library_name(b.report),
        t.mpi_version.as_deref().unwrap_or("(version not read)"),
        t.path,
        t.abi_family,
        t.sha256
    );
    let _ = writeln!(
        s,
        "**Standard:** {} ({})  \n**Found by:** mpit-conform {}, case {}{subject}: `{}`{}\n",
        r.clause,
        r.level.as_str(),
        b.report.tool.version,
        code(&r.case),
        r.status.as_str(),
        b.finding
            .map(|f| format!(" ({} of its findings list)", f.id))
            .unwrap_or_default()
    );
    if r.status == Status::Warn {
        s.push_str("**A warning:** a SHOULD, a robustness probe or the other reading of a sentence, which `mpit-conform --strict` fails; the reproducer defines `REPRO_STRICT` to count it.\n\n");
    }
    standard(&mut s, b);
    observed(&mut s, b);
    reproduce(&mut s, b);
    if !b.others.is_empty() {
        s.push_str("## Other MPI libraries\n\n");
        let passing: Vec<&str> = b
            .others
            .iter()
            .filter(|o| o.passes)
            .map(|o| o.library.as_str())
            .collect();
        if !passing.is_empty() {
            let _ = writeln!(
                s,
                "The same case passes on {}: the expectation is implementable.\n",
                passing.join(", ")
            );
        }
        s.push_str("| library | same case, same harness |\n|---|---|\n");
        for o in b.others {
            let _ = writeln!(s, "| {} | {} |", cell(&o.library), cell(&o.outcome));
        }
        s.push('\n');
    }
    let specs = b.report.tool.specs.clone().unwrap_or_default();
    let _ = writeln!(
        s,
        "## Versions\n\n- {}: `{}`\n- mpit-conform {} (spec bundle sha256 `{}`, cases for MPI-{})",
        library_name(b.report),
        first_line(&t.library_version),
        b.report.tool.version,
        specs.sha256,
        specs.mpi_standard
    );
    s
}

/// "What the standard says": each rule of the case, quoted, and the readings that apply.
fn standard(s: &mut String, b: &Bug) {
    s.push_str("## What the standard says\n\n");
    for rule in &b.case.rules {
        if let Some(q) = b.clauses.rules.iter().find(|x| &x.rule == rule) {
            let strength = format!("{:?}", q.strength).to_lowercase();
            let _ = writeln!(s, "> {}, {rule} ({strength}): \"{}\"\n", q.clause, q.quote);
        }
    }
    s.push_str(
        "(mpit-conform's clause list, specs/clauses.yaml: each rule's sentence, short.)\n\n",
    );
    let named = b
        .result
        .reading
        .as_deref()
        .and_then(|x| x.split_whitespace().next());
    for x in readings::all() {
        if named != Some(x.id.as_str()) && !x.used_by.iter().any(|c| c == &b.case.id) {
            continue;
        }
        let sentences = match &x.sentence {
            Some(one) => vec![one.clone()],
            None => x.sentences.clone(),
        };
        for one in sentences {
            let _ = writeln!(s, "> {}\n", one.trim());
        }
        let what = [("Read here as", &x.literal), ("Or", &x.other)]
            .into_iter()
            .chain([("Decided", &x.choice), ("Meaning", &x.meaning)])
            .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}: {}", v.trim())))
            .collect::<Vec<_>>();
        let kind = format!("{:?}", x.kind).to_lowercase();
        let _ = writeln!(
            s,
            "(mpit-conform's specs/readings.yaml `{}`, a {kind} of the text.) {}\n",
            x.id,
            what.join(" ")
        );
    }
    if let Some(f) = b.finding {
        if let Some(text) = f.bullet(&["Standard"]) {
            let _ = writeln!(s, "{} of mpit-conform's findings list: {text}\n", f.id);
        }
    }
}

/// "What happens": the finding's text where there is one, the calls and what came back.
fn observed(s: &mut String, b: &Bug) {
    let r = b.result;
    s.push_str("## What happens\n\n");
    match b.finding {
        Some(f) => {
            for (k, v) in &f.bullets {
                if !matches!(
                    k.as_str(),
                    "Standard" | "Replay" | "Reproducer" | "Severity"
                ) {
                    let _ = writeln!(s, "- **{k}:** {v}");
                }
            }
            s.push('\n');
        }
        None => {
            let _ = writeln!(s, "{}\n", first_line(&r.message));
        }
    }
    if r.evidence.is_empty() {
        return;
    }
    s.push_str("The calls, as mpit-conform made them (a worker process; handles are addresses; the OUT values of a call that returned an error are left out):\n\n| # | call | arguments | returned | OUT values |\n|---|---|---|---|---|\n");
    for (i, e) in r.evidence.iter().enumerate() {
        let succeeded = e.rc.as_deref().is_none_or(|rc| rc == "MPI_SUCCESS");
        let _ = writeln!(
            s,
            "| {} | `{}` | {} | {} | {} |",
            i + 1,
            e.call,
            cell(&values(&e.args)),
            e.rc.as_deref().map(code).unwrap_or_default(),
            if succeeded {
                cell(&values(&e.out))
            } else {
                String::new()
            }
        );
    }
    s.push('\n');
    let verdict = first_line(&r.message);
    for e in &r.evidence {
        match e.expected.as_deref() {
            Some(x) if !verdict.contains(x) => {
                let _ = writeln!(s, "**Expected** of `{}`: {x}  ", e.call);
            }
            _ => {}
        }
    }
    let _ = writeln!(
        s,
        "**mpit-conform's verdict:** `{}` ({}): {verdict}\n",
        r.status.as_str(),
        r.level.as_str(),
    );
}

/// "How to reproduce": the build line, the program, and what it did in this run.
fn reproduce(s: &mut String, b: &Bug) {
    let lines = b.program.lines().count();
    let _ = writeln!(
        s,
        "## How to reproduce\n\n`repro.c` ({lines} lines, attached) includes only `<mpi.h>`, finds the subject by name, makes the same calls and exits 1 when the deviation reproduces (or dies as the finding says), 0 when it does not, 77 when it does not apply:\n\n```sh\nmpicc repro.c -o repro && ./repro\n```\n"
    );
    match b.run {
        Run::Ran {
            build,
            ended,
            meaning,
            output,
        } => {
            let _ = writeln!(
                s,
                "Built with `{build}` and run for this report: it {ended} ({meaning}).\n\n{}",
                fenced("text", &tail_lines(output, 80))
            );
        }
        Run::NotBuilt { build, why } => {
            let _ = writeln!(
                s,
                "It could not be built here (`{build}`): {}\n",
                first_line(why)
            );
        }
        Run::NotRun => {}
    }
    let _ = writeln!(
        s,
        "<details><summary>repro.c</summary>\n\n{}\n</details>\n",
        fenced("c", b.program)
    );
}

/// A JSON object of evidence as `name=value, ...` (strings bare, long values cut).
fn values(v: &Json) -> String {
    let value = v.value();
    let Some(map) = value.as_object() else {
        return shorten(v.compact(), 60);
    };
    map.iter()
        .map(|(k, v)| {
            let text = match v.as_str() {
                Some(s) => s.to_string(),
                None => v.to_string(),
            };
            format!("{k}={}", shorten(&text, 60))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Text in backticks.
fn code(s: &str) -> String {
    format!("`{s}`")
}

/// Text for a table cell: no `|`, no newline.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// `text` fenced, with a fence longer than any run of backticks inside it.
fn fenced(lang: &str, text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}\n", text.trim_end())
}

/// The last `n` lines of `text`, with a line saying how many were left out.
fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= n {
        return text.to_string();
    }
    format!(
        "... ({} lines left out)\n{}",
        lines.len() - n,
        lines[lines.len() - n..].join("\n")
    )
}

/// At most `n` characters, `...` where cut.
fn shorten(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}
