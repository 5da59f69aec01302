//! The harness's own figures: a full `mpit-conform run` as a child process, timed from
//! spawn to reaping. CPU is wait4's (the run and every worker it reaped); the run itself
//! writes its own peak RSS and its workers' (`--bench-stats FILE`, getrusage SELF and
//! CHILDREN at its very end), because the children's ru_maxrss is a maximum that would
//! otherwise hide which of the two it was.

use super::spawn::measure;
use super::{BenchError, LibSpec, Spread};
use crate::exit_code;
use mpit_process::{usage_children, usage_self};
use mpit_process::{Cmd, Ended, Usage};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// What a run writes to `--bench-stats FILE` as it ends.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct RunUsage {
    /// The supervisor (getrusage RUSAGE_SELF).
    pub supervisor: Usage,
    /// The supervisor's own peak RSS (VmHWM), KiB. Linux keeps ru_maxrss across exec, so
    /// RUSAGE_SELF would also count the peak of whatever spawned the run; VmHWM is this
    /// process image's alone.
    #[serde(default)]
    pub supervisor_hwm_kb: u64,
    /// Its reaped workers (RUSAGE_CHILDREN: CPU summed, maxrss the largest).
    pub workers: Usage,
    /// The supervisor's open descriptors when the run started (its Ctrl-C handler
    /// installed) and when it ended: every worker's pipes, page and rendezvous closed.
    #[serde(default)]
    pub fds_start: u64,
    #[serde(default)]
    pub fds_end: u64,
}

impl RunUsage {
    /// Now, for a run that started with `fds_start` descriptors open.
    pub fn now(fds_start: u64) -> RunUsage {
        RunUsage {
            supervisor: usage_self(),
            supervisor_hwm_kb: vm_hwm_kb().unwrap_or(0),
            workers: usage_children(),
            fds_start,
            fds_end: open_fds(),
        }
    }
}

/// This process's open descriptors (`/proc/self/fd`, less the one reading it).
pub fn open_fds() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count().saturating_sub(1) as u64)
}

/// This process's peak resident set (`VmHWM` in /proc/self/status), KiB.
pub fn vm_hwm_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// The few keys of report.json the bench needs. Parsing the whole report (tens of
/// megabytes of evidence for some libraries) grew the bench process, and Linux carries a
/// parent's peak RSS into the ru_maxrss of the children it spawns afterwards.
#[derive(Deserialize)]
struct ReportHead {
    #[serde(default)]
    workers_started: Option<u64>,
    #[serde(default)]
    workers_started_mpi_init: Option<u64>,
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
    /// The most workers the run had at once (its report's `options.jobs`: `-j`, or
    /// what the run chose without it).
    #[serde(default)]
    pub lanes: usize,
    pub results: usize,
    pub by_status: BTreeMap<String, usize>,
    pub exit_code: i32,
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
    let exe = std::env::current_exe().map_err(|e| BenchError::Spawn(e.to_string()))?;
    let mut cmd = Cmd::new(exe);
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
