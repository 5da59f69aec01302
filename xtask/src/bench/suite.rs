//! The harness's own figures: a full `mpit-conform run` (the binary beside this one,
//! [`super::spawn::conform_exe`]) as a child process, timed from
//! spawn to reaping. CPU is wait4's (the run and every worker it reaped); the run itself
//! writes its own peak RSS and its workers' (`--bench-stats FILE`, getrusage SELF and
//! CHILDREN at its very end), because the children's ru_maxrss is a maximum that would
//! otherwise hide which of the two it was.

use super::spawn::measure;
use super::{BenchError, LibSpec, Spread};
use mpit_conform::runner::usage::RunUsage;
use mpit_process::{Cmd, Ended};
use mpit_report::exit_code;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The few keys of report.json the bench needs. Parsing the whole report (tens of
/// megabytes of evidence for some libraries) grew the bench process, and Linux carries a
/// parent's peak RSS into the ru_maxrss of the children it spawns afterwards.
#[derive(Deserialize)]
struct ReportHead {
    #[serde(default)]
    workers_started: Option<u64>,
    #[serde(default)]
    workers_started_mpi_init: Option<u64>,
    #[serde(default)]
    workers_forked: Option<u64>,
    #[serde(default)]
    workers_forked_mpi_init: Option<u64>,
    options: HeadOptions,
    summary: HeadSummary,
}

#[derive(Deserialize)]
struct HeadOptions {
    jobs: usize,
}

#[derive(Deserialize)]
struct HeadSummary {
    total: usize,
    by_status: BTreeMap<String, usize>,
}

/// One run of the suite.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SuiteRun {
    pub wall_ms: f64,
    /// user+sys of the run and all its workers (wait4).
    pub cpu_ms: f64,
    pub supervisor_cpu_ms: f64,
    pub supervisor_rss_kb: u64,
    pub worker_rss_kb: u64,
    pub workers_started: u64,
    pub workers_mpi_init: u64,
    /// Workers a zygote forked (they pay no exec and no dlopen).
    #[serde(default)]
    pub workers_forked: u64,
    /// Of those, the ones that called MPI_Init.
    #[serde(default)]
    pub workers_forked_mpi_init: u64,
    /// The most workers the run had at once (its report's `options.jobs`: `-j`, or
    /// what the run chose without it).
    #[serde(default)]
    pub lanes: usize,
    pub results: usize,
    pub by_status: BTreeMap<String, usize>,
    pub exit_code: i32,
}

impl SuiteRun {
    /// The worker processes the run made ([`super::bound::Processes`]).
    pub fn processes(&self) -> super::bound::Processes {
        super::bound::Processes {
            started: self.workers_started,
            started_mpi_init: self.workers_mpi_init,
            forked: self.workers_forked,
            forked_mpi_init: self.workers_forked_mpi_init,
        }
    }
}

/// Several runs with one `-j`, and what they come to against the floor.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SuiteFigures {
    pub jobs: usize,
    pub runs: Vec<SuiteRun>,
    pub wall_ms: Spread,
    pub cpu_ms: Spread,
    /// Filled by `bench::derive` once the floor is known.
    #[serde(default)]
    pub floor_bound_ms: Option<f64>,
    #[serde(default)]
    pub ratio: Option<f64>,
    #[serde(default)]
    pub overhead_us_per_result: Option<f64>,
}

impl SuiteFigures {
    /// The run with the median wall time (its counts stand for the set).
    pub fn median_run(&self) -> Option<&SuiteRun> {
        let mut v: Vec<&SuiteRun> = self.runs.iter().collect();
        v.sort_by(|a, b| a.wall_ms.total_cmp(&b.wall_ms));
        v.get(v.len() / 2).copied()
    }
}

/// Options a bench passes to every suite run.
#[derive(Debug, Clone, Default)]
pub struct RunSpec {
    pub jobs: usize,
    pub cases: Vec<String>,
    pub timeout: Duration,
}

/// One `mpit-conform run` of `lib`, reports into `scratch` (removed afterwards).
pub fn run_once(lib: &LibSpec, spec: &RunSpec, scratch: &Path) -> Result<SuiteRun, BenchError> {
    let _ = std::fs::remove_dir_all(scratch);
    std::fs::create_dir_all(scratch).map_err(|e| BenchError::Io {
        path: scratch.to_path_buf(),
        source: e,
    })?;
    let stats = scratch.join("bench-stats.json");
    let mut cmd = Cmd::new(super::spawn::conform_exe().map_err(BenchError::Spawn)?);
    cmd.arg("run")
        .arg("--lib")
        .arg(&lib.path)
        .args(["--abi", &lib.abi, "-q"])
        .arg("--out")
        .arg(scratch.join("out"))
        .arg("--bench-stats")
        .arg(&stats);
    // -j 0: none given, the run chooses (the default a user gets).
    if spec.jobs > 0 {
        cmd.args(["-j", &spec.jobs.to_string()]);
    }
    for c in &spec.cases {
        cmd.args(["--case", c]);
    }
    cmd.envs(lib.env.iter().map(|(k, v)| (k, v)));
    let m = measure(cmd, spec.timeout)?;
    let code = match m.ended {
        Ended::Exited(c) => c,
        Ended::Signaled(s) => {
            return Err(BenchError::Run(
                lib.name.clone(),
                format!("the run died by signal {s}"),
            ))
        }
        e @ (Ended::TimedOut(_) | Ended::Interrupted) => {
            return Err(BenchError::Run(lib.name.clone(), format!("the run {e}")))
        }
    };
    // Exit 1 (findings) is a normal run; 2 could not run.
    if code > i32::from(exit_code::FINDINGS) {
        return Err(BenchError::Run(
            lib.name.clone(),
            format!("exit {code}: {}", m.last_words()),
        ));
    }
    let report: ReportHead = std::fs::File::open(scratch.join("out/report.json"))
        .map_err(|e| e.to_string())
        .and_then(|f| {
            serde_json::from_reader(std::io::BufReader::new(f)).map_err(|e| e.to_string())
        })
        .map_err(|e| BenchError::Run(lib.name.clone(), format!("report.json: {e}")))?;
    let usage: RunUsage = std::fs::read_to_string(&stats)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| BenchError::Run(lib.name.clone(), "no --bench-stats file".into()))?;
    let _ = std::fs::remove_dir_all(scratch);
    Ok(SuiteRun {
        wall_ms: super::floor::ms(m.wall),
        cpu_ms: super::floor::ms(m.usage.cpu()),
        supervisor_cpu_ms: super::floor::ms(usage.supervisor.cpu()),
        supervisor_rss_kb: if usage.supervisor_hwm_kb > 0 {
            usage.supervisor_hwm_kb
        } else {
            usage.supervisor.maxrss_kb
        },
        worker_rss_kb: usage.workers.maxrss_kb,
        workers_started: report.workers_started.unwrap_or(0),
        workers_mpi_init: report.workers_started_mpi_init.unwrap_or(0),
        workers_forked: report.workers_forked.unwrap_or(0),
        workers_forked_mpi_init: report.workers_forked_mpi_init.unwrap_or(0),
        lanes: report.options.jobs,
        results: report.summary.total,
        by_status: report
            .summary
            .by_status
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .collect(),
        exit_code: code,
    })
}

/// `runs` runs with `spec.jobs`.
pub fn measure_suite(
    lib: &LibSpec,
    spec: &RunSpec,
    runs: usize,
    scratch: &Path,
) -> Result<SuiteFigures, BenchError> {
    let mut got = Vec::new();
    for _ in 0..runs.max(1) {
        got.push(run_once(lib, spec, scratch)?);
    }
    Ok(SuiteFigures {
        jobs: spec.jobs,
        wall_ms: Spread::of(got.iter().map(|r| r.wall_ms).collect()),
        cpu_ms: Spread::of(got.iter().map(|r| r.cpu_ms).collect()),
        runs: got,
        floor_bound_ms: None,
        ratio: None,
        overhead_us_per_result: None,
    })
}
