//! `mpit-conform repro`: the standalone C program of one fail or crash (`crate::repro`).

use crate::coverage::Clauses;
use crate::report;
use crate::repro::{self, Origin, ReproError};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

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
    /// default: the case's first fail or crash.
    #[arg(long, value_name = "SUBJECT")]
    subject: Option<String>,
    /// Write the C file here instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE.c")]
    out: Option<PathBuf>,
    /// The case directory (default: the bundled specs/cases).
    #[arg(long, value_name = "DIR")]
    specs: Option<PathBuf>,
}

pub fn repro(a: &ReproArgs) -> Result<u8> {
    let specs = super::run::specs_dir(a.specs.clone());
    let suite = crate::cases::Suite::load(&specs)?;
    let clauses = Clauses::load(&specs)?;
    let Some(case) = suite.get(&a.case) else {
        bail!(
            "no case `{}` in the suite (`mpit-conform list` shows them)",
            a.case
        )
    };
    let scratch;
    let report_path = match (&a.report, &a.lib) {
        (Some(r), _) => r.clone(),
        (None, Some(lib)) => {
            scratch = Scratch::new()?;
            run_case(lib, &a.case, a.specs.as_deref(), &scratch.0)?;
            scratch.0.join("report.json")
        }
        (None, None) => bail!("pass --report REPORT.json or --lib PATH"),
    };
    let rep = report::json::read(&report_path)?;
    let result = match repro::pick(&rep, &a.case, a.subject.as_deref()) {
        Ok(r) => r,
        Err(e) => bail!("{}: {e}", report_path.display()),
    };
    let text = match repro::c_program(case, result, &Origin::of(&rep), &clauses) {
        Ok(t) => t,
        Err(ReproError::BadInput(m)) => bail!("{m}"),
        Err(ReproError::Unsupported(u)) => {
            eprintln!("mpit-conform: {u}");
            return Ok(1);
        }
    };
    match &a.out {
        Some(p) => {
            report::json::atomic_write(p, text.as_bytes())
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
        None => print!("{text}"),
    }
    Ok(0)
}

/// `mpit-conform run --lib LIB --case ID` in a child (the library runs in workers, never
/// in this process), its report in `dir`.
fn run_case(lib: &Path, case: &str, specs: Option<&Path>, dir: &Path) -> Result<()> {
    if !lib.exists() {
        bail!("{}: no such file", lib.display());
    }
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["run", "--quiet", "--case", case, "--out"])
        .arg(dir)
        .arg("--lib")
        .arg(lib);
    if let Some(s) = specs {
        cmd.arg("--specs").arg(s);
    }
    // The run's summary goes to stderr: stdout is the C program's when no -o is given.
    cmd.stdout(std::io::stderr());
    let st = cmd.status().context("cannot run the case")?;
    match st.code() {
        Some(0 | 1) => Ok(()),
        _ => bail!("running {case} on {} failed ({st})", lib.display()),
    }
}

/// A private directory removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        let d = std::env::temp_dir().join(format!("mpit-repro-{}", std::process::id()));
        std::fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
        Ok(Scratch(d))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
