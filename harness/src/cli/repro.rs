//! `mpit-conform repro`: the standalone C program of one fail, crash or warning
//! (`mpit_conform::repro`).

use anyhow::{bail, Context, Result};
use mpit_conform::runner::{self, Config};
use mpit_process::{on_ctrl_c, out};
use mpit_report::exit_code;
use mpit_report::json;
use mpit_report::{read_history, Report};
use mpit_repro::{c_program, pick, Origin, ReproError};
use mpit_spec::cases::clauses::Clauses;
use mpit_spec::cases::{Case, Suite};
use mpit_spec::specs::Source;
use mpit_spec::verdict::CaseResult;
use mpit_target::lib_exists;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct ReproArgs {
    /// The report holding the result (report.json, or .json.gz as published).
    #[arg(
        long,
        value_name = "REPORT.json",
        required_unless_present = "lib",
        conflicts_with = "lib"
    )]
    report: Option<PathBuf>,
    /// Or: run the case on this library first (in worker processes, as `run` does),
    /// then write the reproducer of the result.
    #[arg(long, value_name = "PATH")]
    lib: Option<PathBuf>,
    /// The case id.
    #[arg(long = "case", value_name = "ID")]
    case: String,
    /// The subject, as the report writes it (`cvar 26 dss_buffer_initial_size`);
    /// default: the case's first fail or crash, else its first warning.
    #[arg(long, value_name = "SUBJECT")]
    subject: Option<String>,
    /// Write the C file here instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE.c")]
    out: Option<PathBuf>,
    /// The case directory (default: the bundled specs/cases).
    #[arg(long, value_name = "DIR")]
    specs: Option<PathBuf>,
    /// The release history (reports/history, scripts/release-history.sh): the header
    /// names the releases the case is unexpected in, of the library's family.
    #[arg(long, value_name = "DIR")]
    history: Option<PathBuf>,
}

/// The spec source of `--specs`, its suite and its clause list.
pub(super) fn specs_of(specs: Option<PathBuf>) -> Result<(Source, Suite, Clauses)> {
    let specs = super::run::specs_dir(specs);
    let suite = Suite::load(&specs)?;
    let clauses = Clauses::load(&specs)?;
    Ok((specs, suite, clauses))
}

/// The case `--case` names (bad input when the suite has none).
pub(super) fn case_in<'s>(suite: &'s Suite, id: &str) -> Result<&'s Case> {
    match suite.get(id) {
        Some(c) => Ok(c),
        None => bail!("no case `{id}` in the suite (`mpit-conform list` shows them)"),
    }
}

/// The C program of `result`; `None` when the case has no C translation (said on
/// stderr: the command then exits 1).
pub(super) fn program_of(
    case: &Case,
    result: &CaseResult,
    origin: &Origin,
    clauses: &Clauses,
) -> Result<Option<String>> {
    match c_program(case, result, origin, clauses) {
        Ok(t) => Ok(Some(t)),
        Err(ReproError::BadInput(m)) => bail!("{m}"),
        Err(ReproError::Unsupported(u)) => {
            eprintln!("mpit-conform: {u}");
            Ok(None)
        }
    }
}

pub fn repro(a: &ReproArgs) -> Result<u8> {
    let (specs, suite, clauses) = specs_of(a.specs.clone())?;
    let case = case_in(&suite, &a.case)?;
    let (rep, origin_name) = match (&a.report, &a.lib) {
        (Some(r), _) => (json::read(r)?, r.display().to_string()),
        (None, Some(lib)) => (run_case(lib, &a.case, specs)?, lib.display().to_string()),
        (None, None) => bail!("pass --report REPORT.json or --lib PATH"),
    };
    let result = match pick(&rep, &a.case, a.subject.as_deref()) {
        Ok(r) => r,
        Err(e) => bail!("{origin_name}: {e}"),
    };
    let mut origin = Origin::of(&rep);
    if let Some(dir) = &a.history {
        let hist = read_history(dir)?;
        origin.releases = hist.case_history(&result.case, &origin.sha256);
    }
    let Some(text) = program_of(case, result, &origin, &clauses)? else {
        return Ok(exit_code::FINDINGS);
    };
    match &a.out {
        Some(p) => {
            json::atomic_write(p, text.as_bytes())
                .with_context(|| format!("cannot write {}", p.display()))?;
            eprintln!(
                "reproducer of {} on {}: {}",
                result.case,
                if result.subject.is_empty() {
                    "(no subject)"
                } else {
                    &result.subject
                },
                p.display()
            );
        }
        None => out!("{text}"),
    }
    Ok(exit_code::OK)
}

/// The case run on `lib` by the runner (its workers load the library; this process
/// never does), the report kept in memory.
fn run_case(lib: &Path, case: &str, specs: Source) -> Result<Report> {
    if !lib_exists(lib) {
        bail!("{}: no such file", lib.display());
    }
    let cfg = Config {
        cases: vec![case.to_string()],
        max_time: Some(Duration::from_secs(30 * 60)),
        ..Config::quiet(lib.to_path_buf(), specs)
    };
    let stop = Arc::new(AtomicBool::new(false));
    let _ = on_ctrl_c(stop.clone());
    Ok(runner::run(&cfg, stop)?)
}
