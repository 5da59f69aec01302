//! `mpit-conform report-bug`: from a result of a report, a directory with
//! repro.c and ISSUE.md.
//!
//! - the command report.html shows under a failing result runs as shown, beside
//!   report.json, and writes both files;
//! - ISSUE.md quotes each rule of the case from specs/clauses.yaml, lists the calls,
//!   gives the build line, and pastes what the reproducer printed when built and run
//!   (in a child process) with the library's own compiler: here the reference with a
//!   fault, where it exits 1, and without it, where it exits 0;
//! - `--also` lists the other libraries on the same case, `--findings` gives the entry's
//!   title and text, a reproducer that does not build is said in ISSUE.md, not an error;
//! - bad input is one line and exit 2.

mod common;

use common::{reference_lib, repo, run, scratch};
use mpit_spec::cases::clauses::Clauses;
use mpit_spec::cases::Suite;
use std::path::Path;
use std::process::{Command, Output};

const FAULT: &str = "handle-not-nulled";

/// The text of the first `<pre class="cmd">` of a page, unescaped.
fn first_command(html: &str) -> String {
    let start = html
        .find("<pre class=\"cmd\">")
        .expect("a bug report command")
        + 17;
    let end = start + html[start..].find("</pre>").expect("its end");
    html[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// `mpit-conform ARGS` in `dir`, with the fault or without.
fn in_dir(dir: &Path, args: &[String], fault: bool) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mpit-conform"));
    c.args(args).current_dir(dir);
    if fault {
        c.env("MPIT_REFERENCE_FAULTS", FAULT);
    } else {
        c.env_remove("MPIT_REFERENCE_FAULTS");
    }
    c.output().expect("run mpit-conform")
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_command_report_html_shows_writes_the_bug_report() {
    let lib = reference_lib();
    let s = scratch("report-bug");
    let out = s.join("out");
    let o = run(
        &[
            "--lib",
            lib.to_str().unwrap(),
            "--quiet",
            "--area",
            "cvars",
            "--out",
            out.to_str().unwrap(),
        ],
        &[("MPIT_REFERENCE_FAULTS", FAULT)],
    );
    assert_eq!(o.status.code(), Some(1), "the fault fails a case");
    let cmd = first_command(&read(&out.join("report.html")));
    let words = shlex::split(&cmd).expect("a shell command");
    assert_eq!(
        words[..3],
        ["mpit-conform", "report-bug", "--report"],
        "{cmd}"
    );
    let case_id = &words[words.iter().position(|w| w == "--case").unwrap() + 1];

    // As shown, beside report.json.
    let o = in_dir(&out, &words[1..], true);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{cmd}: {err}");
    let written: Vec<_> = std::fs::read_dir(out.join("bug-reports"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    let dir = &written[0];
    let issue = read(&dir.join("ISSUE.md"));
    let program = read(&dir.join("repro.c"));
    assert!(issue.starts_with("# MPI_T: "), "{issue}");
    assert!(issue.contains("## What the standard says"));
    let suite = Suite::load(&mpit_spec::specs::Source::Bundled).unwrap();
    let clauses = Clauses::load(&mpit_spec::specs::Source::Bundled).unwrap();
    for rule in &suite.get(case_id).unwrap().rules {
        let q = clauses.rules.iter().find(|r| &r.rule == rule).unwrap();
        let strength = format!("{:?}", q.strength).to_lowercase();
        let quoted = format!("{rule} ({strength}): \"{}\"", q.quote);
        assert!(issue.contains(&quoted), "{quoted}\n{issue}");
    }
    assert!(issue.contains("| # | call | arguments | returned | OUT values |"));
    assert!(issue.contains("```sh\nmpicc repro.c -o repro && ./repro\n```"));
    assert!(
        issue.contains("Built with `cc -DMPI_ABI")
            && issue.contains("exited with 1 (the deviation reproduces)"),
        "{issue}"
    );
    assert!(issue.contains("verdict: REPRODUCED"));
    assert!(issue.contains(&format!(
        "<details><summary>repro.c</summary>\n\n```c\n{}",
        &program[..40]
    )));
    // The program is what `repro` writes.
    let subject = &words[words.iter().position(|w| w == "--subject").unwrap() + 1];
    let o = run(
        &[
            "repro",
            "--report",
            out.join("report.json").to_str().unwrap(),
            "--case",
            case_id,
            "--subject",
            subject,
        ],
        &[],
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), program);

    // Without the fault the same program does not reproduce, and the report says so.
    let mut again = words[1..].to_vec();
    again.extend(["-o".into(), "without".into()]);
    let o = in_dir(&out, &again, false);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        read(&out.join("without/ISSUE.md")).contains("exited with 0 (it does not reproduce here)")
    );

    // The other libraries of the published matrix, and an entry of a findings list.
    let findings = s.join("FINDINGS.md");
    std::fs::write(
        &findings,
        format!(
            "| target | library | path |\n|---|---|---|\n| faulty | the reference, faulty | `{}` |\n\n## Here\n\n### F-99. Freed handles stay valid\n- **Observed:** the handle is unchanged.\n- **Replay:** `--case x`.\n<!-- finding F-99 targets=faulty cases={case_id} -->\n",
            lib.display()
        ),
    )
    .unwrap();
    let mut more = words[1..].to_vec();
    more.extend(
        [
            "-o",
            "more",
            "--no-run",
            "--findings",
            findings.to_str().unwrap(),
            "--also",
        ]
        .map(String::from),
    );
    more.push(repo().join("reports/published").display().to_string());
    let o = in_dir(&out, &more, true);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let issue = read(&out.join("more/ISSUE.md"));
    assert!(
        issue.starts_with("# MPI_T: Freed handles stay valid (MPI-4.1 §"),
        "{issue}"
    );
    assert!(
        issue.contains("- **Observed:** the handle is unchanged.") && !issue.contains("Replay")
    );
    assert!(
        issue.contains("## Other MPI libraries")
            && issue.contains("| MPICH 4.0.2 (libmpich.so.12) |"),
        "{issue}"
    );
    assert!(!issue.contains("Built with"), "--no-run builds nothing");

    // A compiler that fails: said in ISSUE.md, the files still written.
    let mut broken = words[1..].to_vec();
    broken.extend(["-o", "broken", "--cc", "false"].map(String::from));
    let o = in_dir(&out, &broken, true);
    assert_eq!(o.status.code(), Some(0));
    assert!(read(&out.join("broken/ISSUE.md")).contains(
        "It could not be built here (`false repro.c -o repro`): the compiler exited with 1"
    ));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let (_s, report) = common::passing_report("report-bug-bad");
    let r = report.to_str().unwrap();
    let one_line_2 = common::one_line_exit_2;
    one_line_2(
        &["report-bug", "--report", r, "--case", "no.such.case"],
        "no case `no.such.case`",
    );
    one_line_2(
        &[
            "report-bug",
            "--report",
            r,
            "--case",
            "strings.cvar.name.sizes",
        ],
        "not a fail, warning or crash",
    );
    one_line_2(
        &[
            "report-bug",
            "--report",
            r,
            "--case",
            "strings.cvar.name.sizes",
            "--also",
            "/nonexistent/x",
        ],
        "--also /nonexistent/x: no such file or directory",
    );
    one_line_2(
        &[
            "report-bug",
            "--report",
            "/nonexistent/report.json",
            "--case",
            "strings.cvar.name.sizes",
        ],
        "nonexistent",
    );
}
