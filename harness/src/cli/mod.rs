//! The command line (clap), and the wiring from a command to the runner, the workers
//! and the reports. Exit codes: 0 nothing unexpected, 1 an unexpected fail / crash /
//! timeout, 2 could not run (bad input, library not loadable).

mod build_repro;
mod catalog;
mod fuzz;
mod report_bug;
mod repro;
mod run;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use mpit_conform::runner::pool::Setup;
use mpit_conform::runner::{ranks, worker};
use mpit_process::{adopt_orphans, limit_malloc_arenas, out, outln};
use mpit_reference::faults::hostile::HostileFault;
use mpit_reference::faults::Faults;
use mpit_reference::faults::ProcessFault;
use mpit_report::exit_code;
use mpit_report::{diff_command, diff_exact_command};
use mpit_spec::specs;
use mpit_target::lib_exists;
use mpit_target::AbiChoice;
use mpit_vocab::profile::AbiProfile;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "mpit-conform",
    version = version_line(),
    about = "Conformance harness for MPI_T (the MPI tool information interface)"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(clap::Args, Debug, Clone)]
struct TargetArgs {
    /// The MPI library to judge (a shared object, loaded unmodified in a worker process;
    /// `builtin:reference`: the reference linked into this binary).
    #[arg(long)]
    lib: Option<PathBuf>,
    /// ABI family: auto, mpich, openmpi, standard, or a profile FILE.yaml.
    #[arg(long, default_value = "auto")]
    abi: String,
    /// Proceed although --abi contradicts what the library exports.
    #[arg(long)]
    force: bool,
    /// Seconds a worker may stay silent before it is killed and reported as a timeout.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
}

#[derive(clap::Args, Debug, Clone)]
struct RunArgs {
    /// The MPI libraries to judge; several give one report each and a matrix
    /// (`builtin:reference`: the reference linked into this binary).
    #[arg(long = "lib", value_name = "PATH")]
    libs: Vec<PathBuf>,
    /// ABI family: auto, mpich, openmpi, standard, or a profile FILE.yaml.
    #[arg(long, default_value = "auto")]
    abi: String,
    /// Proceed although --abi contradicts what the library exports.
    #[arg(long)]
    force: bool,
    /// Seconds a worker may stay silent before it is killed and reported as a timeout.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    /// The whole run's bound per library (e.g. 90s, 20m, 1h): then the workers are
    /// killed, what did not finish is reported as `timeout`, and the report is written
    /// (exit 1). With the per-call --timeout, a library that hangs everywhere still ends.
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = humantime::parse_duration)]
    max_time: std::time::Duration,
    /// SHOULD, robustness and second-reading findings fail instead of warning.
    #[arg(long)]
    strict: bool,
    /// Parallel worker processes (default: the number of cores, up to six times as
    /// many when the library's start mostly waits instead of computing).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    #[command(flatten)]
    workers: WorkersArgs,
    /// Only cases whose id matches this glob (repeatable).
    #[arg(long = "case", value_name = "GLOB")]
    cases: Vec<String>,
    /// Only cases of this area (repeatable).
    #[arg(long = "area", value_name = "AREA")]
    areas: Vec<String>,
    /// Where report.json, report.md and report.html go.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
    /// Also write JUnit XML here.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Gate on "nothing got worse" against this earlier report.json.
    #[arg(long, value_name = "REPORT.json")]
    baseline: Option<PathBuf>,
    /// Known findings to accept (YAML: case glob, target glob, reason, expiry).
    #[arg(long, value_name = "FILE.yaml")]
    waivers: Option<PathBuf>,
    /// The case directory (default: the bundled specs/cases).
    #[arg(long, value_name = "DIR", conflicts_with = "case_file")]
    specs: Option<PathBuf>,
    /// Run the cases of this one file instead (e.g. one `fuzz-props` wrote).
    #[arg(long, value_name = "FILE.yaml")]
    case_file: Option<PathBuf>,
    /// No progress output.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Also check cross-rank consistency: run one worker per rank under the library's
    /// own launcher, e.g. "mpiexec -n 4" (split shell-style; the harness appends its
    /// rank worker). README.md, "Cross-rank consistency", has the lines that work.
    #[arg(long, value_name = "COMMAND")]
    launcher: Option<String>,
    /// Also write a standalone C reproducer of each fail, crash and warning (at most 3
    /// subjects per case) into repro/ beside report.json, linked from each report.
    #[arg(long)]
    repro: bool,
    /// Also run the cases on the bundled reference serving this library's catalog, and
    /// give each fail, warn and crash the reference's result there: a pass makes the
    /// finding the library's behaviour, the same status its catalog's content
    /// (report.json `model`, `model_check`; the catalog in model-catalog.yaml).
    #[arg(long)]
    model_check: bool,
    /// Write the run's own and its workers' resource usage here as it ends
    /// (`cargo xtask bench`).
    #[arg(long, value_name = "FILE", hide = true)]
    bench_stats: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run the suite (the default when no subcommand is given).
    Run(RunArgs),
    /// List the cases (filterable with --case and --area).
    List {
        #[arg(long = "case", value_name = "GLOB")]
        cases: Vec<String>,
        #[arg(long = "area", value_name = "AREA")]
        areas: Vec<String>,
        #[arg(long, value_name = "DIR")]
        specs: Option<PathBuf>,
    },
    /// Print everything a library exposes through MPI_T.
    Catalog {
        #[command(flatten)]
        target: TargetArgs,
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
        /// Call MPI_Init (singleton) before reading.
        #[arg(long)]
        after_init: bool,
    },
    /// Compare two reports: new fails, fixed, changed, new crashes (exit 1 when worse).
    Diff {
        old: PathBuf,
        new: PathBuf,
        /// Exit 1 when any verdict moved (a changed status, a result only in one report),
        /// not only when something got worse.
        #[arg(long)]
        exact: bool,
        /// With --exact: `CASE:STATUS,STATUS`, a change of CASE between two of these
        /// statuses does not count (a result the library makes nondeterministic);
        /// `absent` for a result only some runs have (a crash at a worker's exit).
        #[arg(long, value_name = "CASE:STATUSES", requires = "exact")]
        allow: Vec<String>,
    },
    /// Put existing reports side by side: matrix.md and matrix.html in --out.
    Matrix {
        /// `[LABEL=]REPORT.json` (or `.json.gz`); the label heads the column (default:
        /// from the library's path).
        #[arg(required = true, value_name = "[LABEL=]REPORT")]
        reports: Vec<String>,
        #[arg(long, value_name = "DIR", default_value = "reports/out")]
        out: PathBuf,
        /// The release history instead (scripts/release-history.sh): labels are
        /// `family/version`, in release order; writes HISTORY.md, HISTORY.html and
        /// history.json: per case and per finding, the releases it is unexpected in.
        #[arg(long)]
        history: bool,
        /// With --history: the findings file (reports/FINDINGS.md) whose findings get
        /// rows, and whose `**History:**` lines are rewritten.
        #[arg(long, value_name = "FILE", requires = "history")]
        findings: Option<PathBuf>,
        /// With --history: `TARGET=family/version`, the column a published target (as
        /// FINDINGS.md names it) is (repeatable).
        #[arg(long, value_name = "TARGET=LABEL", requires = "history")]
        published: Vec<String>,
    },
    /// How many rules of specs/clauses.yaml the cases cover, and which they miss.
    Coverage {
        #[arg(long, value_name = "DIR")]
        specs: Option<PathBuf>,
        /// Count the rules only the cross-rank run checks (a run with --launcher).
        #[arg(long)]
        with_launcher: bool,
        /// The published reports (`reference/report.json.gz` and one
        /// `<target>/report.json.gz` per real library): the rules they judged are
        /// counted beside the citations.
        #[arg(long, value_name = "DIR", default_value = "reports/published")]
        reports: PathBuf,
    },
    /// The spec bundle the binary carries: `specs export DIR` writes it out for editing
    /// (then `--specs DIR/cases` runs the edited cases).
    Specs {
        #[command(subcommand)]
        action: SpecsCmd,
    },
    /// List the reference's injectable faults (spec violations: the mutation score).
    Faults {
        /// List the process faults instead (crash, hang, exit, noise: the reference
        /// misbehaving as a process, to show every run still ends with a report).
        #[arg(long)]
        process: bool,
        /// List the conforming probes instead: behaviours the standard allows that the
        /// reference does not pick; no oracle may flag them.
        #[arg(long, conflicts_with = "process")]
        conforming: bool,
        /// List the hostile-library faults instead (its own signal handlers, blocked
        /// signals, closed descriptors, daemons, exit handlers, limits: what real
        /// libraries do to their process; every death must still name its call).
        #[arg(long, conflicts_with_all = ["process", "conforming", "corpus"])]
        hostile: bool,
        /// List the upstream corpus instead: bugs MPICH and Open MPI shipped, re-created
        /// in the reference (reports/UPSTREAM.md).
        #[arg(long, conflicts_with_all = ["process", "conforming"])]
        corpus: bool,
    },
    /// Property tests of the differential oracle: generated MPI_T call sequences run on
    /// the library (in a worker) and on the reference model loaded with its catalog; a
    /// divergence is shrunk and written out as a YAML case.
    FuzzProps(fuzz::FuzzPropsArgs),
    /// Write the standalone C program of a fail, crash or warning: it includes only <mpi.h>,
    /// builds with the library's mpicc, makes the case's calls on the same subject
    /// (looked up by name) and exits 1 when the deviation reproduces.
    Repro(repro::ReproArgs),
    /// Write a bug report of a fail, crash or warning for the library's maintainers: a
    /// directory with repro.c (as `repro` writes it) and ISSUE.md (the standard's
    /// sentences, the calls and what came back, the build line, the reproducer's output
    /// here, the other libraries of the matrix on the same case), Markdown to paste.
    ReportBug(report_bug::ReportBugArgs),
    /// Replay a cargo-fuzz artifact of `ops_differential` on a library in a worker
    /// (`--emit-case`: write the divergence as a YAML case).
    Replay(fuzz::ReplayArgs),
    #[command(name = "__suite-worker", hide = true)]
    SuiteWorker { hello: String },
    /// One rank of the cross-rank run (started by the launcher).
    #[command(name = "__rank-worker", hide = true)]
    RankWorker { hello: String },
}

#[derive(Subcommand, Debug)]
enum SpecsCmd {
    /// Write every bundled spec file under DIR (same layout as the repository's specs/).
    Export { dir: PathBuf },
}

/// `--version`: the tool, the spec bundle it carries, the standard its cases target.
fn version_line() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(|| {
        format!(
            "{} (spec bundle sha256:{}; cases for MPI-{})",
            env!("CARGO_PKG_VERSION"),
            specs::hash(),
            specs::MPI_STANDARD
        )
    })
}

/// How pristine workers are made: the flags `run` and `fuzz-props` share.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct WorkersArgs {
    /// How pristine workers are made: `fork` (default), from a zygote per library that
    /// has loaded the library once (and one with MPI_T initialized), or `exec`, a fresh
    /// exec of this binary each. An MPI_Init worker is a child of the zygote without
    /// MPI_T that calls MPI_Init after the fork; a library that starts a thread, or
    /// dies in MPI_Init after a fork, falls back to exec (report.json `workers_path`
    /// says so).
    #[arg(long, value_enum, default_value = "fork")]
    pub workers: WorkersPath,
    /// Same as `--workers exec`.
    #[arg(long)]
    pub no_zygote: bool,
}

impl WorkersArgs {
    /// Whether fresh workers are forked from zygotes.
    pub fn forks(&self) -> bool {
        self.workers == WorkersPath::Fork && !self.no_zygote
    }
}

/// How pristine workers are made (`--workers`).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkersPath {
    Fork,
    Exec,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum Format {
    Table,
    Json,
    Yaml,
}

pub fn main() -> Result<u8> {
    let cli = Cli::parse();
    // A supervisor starts every child through mpit_process (spawn_confined.rs holds it),
    // so it can take back what leaves their process groups (a library's setsid daemon).
    // The workers load the library and supervise nothing (a bench probe may start
    // workers of its own: it adopts too).
    let worker = matches!(
        cli.cmd,
        Some(Cmd::SuiteWorker { .. } | Cmd::RankWorker { .. })
    );
    if !worker {
        let _ = adopt_orphans();
        limit_malloc_arenas();
    }
    match cli.cmd {
        Some(Cmd::SuiteWorker { hello }) => {
            let h = serde_json::from_str(&hello).context("malformed worker hello")?;
            Ok(worker::serve(&h) as u8)
        }
        Some(Cmd::RankWorker { hello }) => {
            let h = serde_json::from_str(&hello).context("malformed rank worker hello")?;
            Ok(ranks::rank::serve(&h) as u8)
        }
        Some(Cmd::Specs {
            action: SpecsCmd::Export { dir },
        }) => {
            let n = specs::export(&dir).map_err(anyhow::Error::msg)?;
            outln!("{n} files written under {}", dir.display());
            Ok(exit_code::OK)
        }
        Some(Cmd::Faults {
            process,
            conforming,
            hostile,
            corpus,
        }) => {
            match (process, conforming, hostile, corpus) {
                (true, _, _, _) => out!("{}", ProcessFault::listing()),
                (_, true, _, _) => out!("{}", Faults::conforming_listing()),
                (_, _, true, _) => out!("{}", HostileFault::listing()),
                (_, _, _, true) => out!("{}", Faults::corpus_listing()),
                _ => out!("{}", Faults::listing()),
            }
            Ok(exit_code::OK)
        }
        Some(Cmd::Catalog {
            target,
            format,
            after_init,
        }) => {
            let dump = match catalog::read_catalog(&target, after_init)? {
                Ok(d) => d,
                Err(died) => {
                    eprintln!("mpit-conform: {died}");
                    return Ok(exit_code::FINDINGS);
                }
            };
            match format {
                Format::Json => outln!("{}", serde_json::to_string_pretty(&dump)?),
                Format::Yaml => out!("{}", dump.catalog.to_yaml()),
                Format::Table => {
                    catalog::print_table(&dump);
                    catalog::print_lost(&dump);
                }
            }
            // What could be read is printed; what could not makes the exit 1.
            for l in dump
                .lost
                .iter()
                .filter(|_| !matches!(format, Format::Table))
            {
                eprintln!(
                    "mpit-conform: not read: {} ({}): {}",
                    l.call, l.status, l.message
                );
            }
            Ok(if dump.lost.is_empty() {
                exit_code::OK
            } else {
                exit_code::FINDINGS
            })
        }
        Some(Cmd::FuzzProps(a)) => fuzz::fuzz_props(&a),
        Some(Cmd::Replay(a)) => fuzz::replay(&a),
        Some(Cmd::Repro(a)) => repro::repro(&a),
        Some(Cmd::ReportBug(a)) => report_bug::report_bug(&a),
        Some(Cmd::Diff {
            old,
            new,
            exact,
            allow,
        }) => {
            let (text, code) = if exact {
                diff_exact_command(&old, &new, &run::allowed(&allow)?)?
            } else {
                diff_command(&old, &new)?
            };
            out!("{text}");
            Ok(code)
        }
        Some(Cmd::Matrix {
            reports,
            out,
            history: true,
            findings,
            published,
        }) => {
            let written = run::history(&reports, &published, findings.as_deref(), &out)?;
            let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
            outln!("history: {}", names.join(" "));
            Ok(exit_code::OK)
        }
        Some(Cmd::Matrix { reports, out, .. }) => {
            let [md, html] = run::matrix(&reports, &out)?;
            outln!("matrix: {} {}", md.display(), html.display());
            Ok(exit_code::OK)
        }
        Some(Cmd::List {
            cases,
            areas,
            specs,
        }) => run::list(&cases, &areas, specs),
        Some(Cmd::Coverage {
            reports,
            specs,
            with_launcher,
        }) => run::coverage(specs, with_launcher, &reports),
        Some(Cmd::Run(args)) => run::run(&args),
        None => run::run(&cli.run),
    }
}

/// The worker setup for a one-question command (`catalog`), with the input checked
/// before any worker loads vendor code.
fn request(t: &TargetArgs) -> Result<Setup> {
    let Some(lib) = &t.lib else {
        bail!("--lib PATH is required (the MPI library to judge)")
    };
    if !lib_exists(lib) {
        bail!("{}: no such file", lib.display());
    }
    let abi = t.abi.parse::<AbiChoice>().map_err(anyhow::Error::msg)?;
    if let AbiChoice::File(p) = &abi {
        AbiProfile::load(p)?;
    }
    Ok(Setup::one_question(
        lib.clone(),
        t.abi.clone(),
        t.force,
        std::time::Duration::from_secs(t.timeout.max(1)),
        Default::default(),
    ))
}
