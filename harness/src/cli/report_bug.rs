//! `mpit-conform report-bug`: from a result of a report, a directory a maintainer can
//! be handed: `repro.c` (the standalone C program, `mpit_repro`) and `ISSUE.md` (the
//! bug report, `mpit_repro::issue`), with what the reproducer printed when built and
//! run here (`build_repro`, in child processes) and how the same case went on the other
//! libraries of a matrix (`--also`, by default the published reports).

use super::build_repro;
use super::repro::{case_in, program_of, specs_of};
use anyhow::{bail, Context, Result};
use mpit_report::exit_code;
use mpit_report::json;
use mpit_report::Report;
use mpit_repro::findings::Findings;
use mpit_repro::issue::{self, Bug, Run};
use mpit_repro::Origin;
use mpit_repro::{file_name, pick};
use std::path::{Path, PathBuf};

/// Where the reports of the other libraries are when `--also` is not given.
const PUBLISHED: &str = "reports/published";

/// The findings list whose entries give a report its title and text.
const FINDINGS: &str = "reports/FINDINGS.md";

#[derive(clap::Args, Debug)]
pub struct ReportBugArgs {
    /// The report holding the result (report.json, or .json.gz as published).
    #[arg(long, value_name = "REPORT.json")]
    report: PathBuf,
    /// The case id.
    #[arg(long = "case", value_name = "ID")]
    case: String,
    /// The subject, as the report writes it (`cvar 26 dss_buffer_initial_size`);
    /// default: the case's first fail or crash, else its first warning.
    #[arg(long, value_name = "SUBJECT")]
    subject: Option<String>,
    /// The directory for repro.c and ISSUE.md (default:
    /// bug-reports/<case>--<subject>/).
    #[arg(long, short = 'o', value_name = "DIR")]
    out: Option<PathBuf>,
    /// A report of another library (report.json or .json.gz, or a directory holding one
    /// or whose subdirectories do), whose results of the same case the bug report lists
    /// (repeatable; default: reports/published/*/report.json.gz where that exists).
    #[arg(long = "also", value_name = "REPORT|DIR")]
    also: Vec<PathBuf>,
    /// The findings list whose entry for this result gives the title and the text
    /// (default: reports/FINDINGS.md where that exists).
    #[arg(long, value_name = "FILE.md")]
    findings: Option<PathBuf>,
    /// The compiler command for the reproducer, split shell-style (the source, `-o` and
    /// the program are appended); default: the library's own wrapper.
    #[arg(long, value_name = "COMMAND")]
    cc: Option<String>,
    /// Write repro.c and ISSUE.md only: neither build nor run the reproducer.
    #[arg(long)]
    no_run: bool,
    /// The case directory (default: the bundled specs/cases).
    #[arg(long, value_name = "DIR")]
    specs: Option<PathBuf>,
}

pub fn report_bug(a: &ReportBugArgs) -> Result<u8> {
    let (_, suite, clauses) = specs_of(a.specs.clone())?;
    let case = case_in(&suite, &a.case)?;
    let report = json::read(&a.report)?;
    let others = others(&a.also)?;
    let result = match pick(&report, &a.case, a.subject.as_deref()) {
        Ok(r) => r,
        Err(e) => bail!("{}: {e}", a.report.display()),
    };
    let Some(program) = program_of(case, result, &Origin::of(&report), &clauses)? else {
        eprintln!("mpit-conform: no bug report without a reproducer");
        return Ok(exit_code::FINDINGS);
    };
    let findings = match &a.findings {
        Some(f) => Some(
            std::fs::read_to_string(f).with_context(|| format!("cannot read {}", f.display()))?,
        ),
        None => std::fs::read_to_string(FINDINGS).ok(),
    }
    .map(|t| Findings::parse(&t))
    .unwrap_or_default();
    let target = target_name(&findings, &a.report, &report);
    let finding = target.and_then(|t| findings.claiming(&t, &result.case));
    let dir = a.out.clone().unwrap_or_else(|| {
        let name = file_name(result);
        Path::new("bug-reports").join(name.trim_end_matches(".c"))
    });
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let src = dir.join("repro.c");
    json::atomic_write(&src, program.as_bytes())
        .with_context(|| format!("cannot write {}", src.display()))?;
    let run = if a.no_run {
        Run::NotRun
    } else {
        build_repro::build_and_run(&src, &report, &a.report, a.cc.as_deref())
    };
    let others = issue::others(&result.case, &report, &others);
    let text = issue::render(&Bug {
        case,
        result,
        report: &report,
        clauses: &clauses,
        program: &program,
        run: &run,
        others: &others,
        finding,
    });
    let md = dir.join("ISSUE.md");
    json::atomic_write(&md, text.as_bytes())
        .with_context(|| format!("cannot write {}", md.display()))?;
    let ran = match &run {
        Run::Ran { ended, meaning, .. } => format!("the reproducer {ended}: {meaning}"),
        Run::NotBuilt { why, .. } => format!("the reproducer was not built: {why}"),
        Run::NotRun => "the reproducer was not run (--no-run)".into(),
    };
    eprintln!(
        "bug report of {} on {}{}: {} and {} ({ran})",
        result.case,
        if result.subject.is_empty() {
            "(no subject)"
        } else {
            &result.subject
        },
        finding.map(|f| format!(", {}", f.id)).unwrap_or_default(),
        md.display(),
        src.display()
    );
    Ok(exit_code::OK)
}

/// The reports `--also` names (each file, or each directory's report and its
/// subdirectories'), else the published ones where they are.
fn others(also: &[PathBuf]) -> Result<Vec<Report>> {
    let mut files = Vec::new();
    let given = !also.is_empty();
    let roots = if given {
        also.to_vec()
    } else if Path::new(PUBLISHED).is_dir() {
        vec![PathBuf::from(PUBLISHED)]
    } else {
        Vec::new()
    };
    for p in roots {
        if p.is_file() {
            files.push(p);
            continue;
        }
        if !p.is_dir() {
            bail!("--also {}: no such file or directory", p.display());
        }
        let mut found = report_in(&p).into_iter().collect::<Vec<_>>();
        let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&p)
            .with_context(|| format!("cannot read {}", p.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|d| d.is_dir())
            .collect();
        subdirs.sort();
        found.extend(subdirs.iter().filter_map(|d| report_in(d)));
        if found.is_empty() && given {
            bail!(
                "--also {}: no report.json or report.json.gz there",
                p.display()
            );
        }
        files.extend(found);
    }
    files
        .iter()
        .map(|f| json::read(f).map_err(anyhow::Error::from))
        .collect()
}

/// `DIR/report.json`, else `DIR/report.json.gz`, where there is one.
fn report_in(dir: &Path) -> Option<PathBuf> {
    ["report.json", "report.json.gz"]
        .iter()
        .map(|f| dir.join(f))
        .find(|f| f.is_file())
}

/// The findings list's name of the report's library: by its path in the list's targets
/// table, else by the directory the report is in (`reports/published/<target>/`).
fn target_name(findings: &Findings, file: &Path, report: &Report) -> Option<String> {
    if let Some(t) = findings.target_of_path(&report.target.path) {
        return Some(t.to_string());
    }
    let dir = file.parent()?.file_name()?.to_str()?;
    findings
        .targets
        .iter()
        .any(|(n, _)| n == dir)
        .then(|| dir.to_string())
}
