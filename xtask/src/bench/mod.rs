//! `cargo xtask bench`: how fast the harness judges a library, against the floor the
//! library itself sets (reports/bench/ANALYSIS.md reads the figures). Per library: the floor (fresh processes that only open,
//! initialize, enumerate and finalize: `floor`, run in `child`), the full suite with
//! each `-j` (`suite`), and for the reference the suite on replicated catalogs
//! (`scale`). The figures go to `bench.json`, and `BENCH.md` is rendered from them
//! (`markdown`).
//!
//! Vendor code runs only in child processes, as in a suite run: the bench process
//! itself never loads a library.

mod bound;
pub mod child;
pub mod floor;
pub mod markdown;
pub mod probe;
pub mod scale;
pub mod soak;
pub mod spawn;
pub mod suite;
pub mod throughput;
pub mod workers;

use floor::Floor;
use mpit_report::now_rfc3339;
use scale::Scaling;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use suite::{RunSpec, SuiteFigures};
use throughput::Throughput;

/// Why a bench could not be made (or a part of it).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start a process: {0}")]
    Spawn(String),
    #[error("{0}: floor: {1}")]
    Floor(String, String),
    #[error("{0}: suite run: {1}")]
    Run(String, String),
    #[error("generated catalog: {0}")]
    Catalog(String),
    #[error("{0}")]
    Input(String),
    #[error("cannot write bench.json: {0}")]
    Json(#[from] serde_json::Error),
    #[error("interrupted")]
    Interrupted,
}

/// A library to bench: its name in the tables, path and `--abi`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibSpec {
    pub name: String,
    pub path: PathBuf,
    pub abi: String,
    /// Extra environment for every process that loads it (a scaled reference catalog).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
}

/// Median, min and max of a few measurements (milliseconds unless named otherwise).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(mut v: Vec<f64>) -> Spread {
        if v.is_empty() {
            return Spread::default();
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Spread {
            n,
            median,
            min: v[0],
            max: v[n - 1],
        }
    }
}

/// What the bench was asked to do.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    /// The command that regenerates the report (shown at the top of BENCH.md).
    pub command: String,
    pub floor_runs: usize,
    pub per_call_ms: u64,
    pub suite_runs_reference: usize,
    /// Runs with the largest -j on each real library; `suite_runs_real_other` with the
    /// others (the real libraries' runs are most of the bench's time).
    pub suite_runs_real: usize,
    #[serde(default)]
    pub suite_runs_real_other: usize,
    pub jobs: Vec<usize>,
    pub scale: Vec<usize>,
    pub scale_runs: usize,
    /// `--case` globs for every suite run (empty: the full suite).
    pub cases: Vec<String>,
    pub notes: Vec<String>,
    /// Property-test searches per engine (0: none), sequences per search (through a
    /// worker, in-process), longest sequence.
    #[serde(default)]
    pub props_runs: usize,
    #[serde(default)]
    pub props_cases: u32,
    #[serde(default)]
    pub props_cases_in_process: u32,
    #[serde(default)]
    pub props_max_len: usize,
    /// Timed windows per fuzz oracle (0: none) and their length.
    #[serde(default)]
    pub fuzz_windows: usize,
    #[serde(default)]
    pub fuzz_window_ms: u64,
}

/// Everything a bench is given besides the settings.
#[derive(Debug, Clone)]
pub struct Options {
    pub settings: Settings,
    /// The reference first, then the real libraries.
    pub libs: Vec<LibSpec>,
    pub out: PathBuf,
    /// The fuzz seed corpus (`fuzz/corpus`, one directory per target).
    pub corpus: PathBuf,
    /// A limit per process (floor child or suite run).
    pub floor_timeout: Duration,
    pub run_timeout: Duration,
}

/// The machine the figures were taken on.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Machine {
    pub cores: usize,
    pub cpu_model: String,
    pub kernel: String,
    /// /proc/loadavg (1, 5, 15 min) before and after.
    pub load_before: Vec<f64>,
    pub load_after: Vec<f64>,
}

impl Machine {
    fn current() -> Machine {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".into());
        Machine {
            cores: cores(),
            cpu_model,
            kernel: format!("{} {kernel}", std::env::consts::OS),
            load_before: loadavg(),
            load_after: Vec::new(),
        }
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn loadavg() -> Vec<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .map(|t| {
            t.split_whitespace()
                .take(3)
                .filter_map(|x| x.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// One library's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LibFigures {
    #[serde(flatten)]
    pub lib: LibSpec,
    pub real: bool,
    pub floor: Option<Floor>,
    /// One per `-j`.
    pub suites: Vec<SuiteFigures>,
    pub errors: Vec<String>,
}

/// One target of the issue and whether it was met.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Verdict {
    pub target: String,
    pub scope: String,
    /// `None`: not measured.
    pub met: Option<bool>,
    pub detail: String,
}

/// `bench.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Bench {
    pub format_version: u32,
    pub tool_version: String,
    pub date: String,
    pub duration_s: f64,
    pub machine: Machine,
    pub settings: Settings,
    pub libraries: Vec<LibFigures>,
    pub scaling: Option<Scaling>,
    /// Property-test and fuzz-oracle throughput on the reference.
    #[serde(default)]
    pub throughput: Option<Throughput>,
    pub verdicts: Vec<Verdict>,
    /// Figures this bench does not have yet, and why.
    pub not_measured: Vec<String>,
}

/// The limits the issue sets.
pub const MAX_RATIO: f64 = 2.0;
pub const MAX_WALL_MS: f64 = 30_000.0;
pub const MAX_SUPERVISOR_RSS_KB: u64 = 100 * 1024;
/// Marginal cost per result of the largest scaling step over the smallest: above this
/// the growth is not called linear (the spread of repeated runs is far below it).
pub const MAX_MARGINAL_GROWTH: f64 = 1.5;
/// Property-test sequences per second in-process, and `ops_differential` executions per
/// second in-process, on the reference.
pub const MIN_PROPS_PER_S: f64 = 2_000.0;
pub const MIN_OPS_DIFFERENTIAL_EXEC_PER_S: f64 = 20_000.0;

fn progress(msg: &str) {
    eprintln!("bench: {msg}");
}

/// Ctrl-C kills the measured child (`spawn`) and ends the bench at the next step, with
/// no bench.json.
fn stop_if_interrupted() -> Result<(), BenchError> {
    match spawn::interrupted() {
        true => Err(BenchError::Interrupted),
        false => Ok(()),
    }
}

/// Makes the whole bench and writes `bench.json` and `BENCH.md` into `o.out`.
pub fn run(o: &Options) -> Result<Bench, BenchError> {
    let started = Instant::now();
    let date = now_rfc3339();
    let machine = Machine::current();
    let scratch = tempfile::Builder::new()
        .prefix("mpit-bench-")
        .tempdir()
        .map_err(|e| BenchError::Io {
            path: std::env::temp_dir(),
            source: e,
        })?;
    let mut libraries = Vec::new();
    for lib in &o.libs {
        let mut f = LibFigures {
            lib: lib.clone(),
            real: lib.name != "reference",
            floor: None,
            suites: Vec::new(),
            errors: Vec::new(),
        };
        progress(&format!("{}: floor", lib.name));
        match floor::measure_floor(
            lib,
            o.settings.floor_runs,
            o.settings.per_call_ms,
            o.floor_timeout,
        ) {
            Ok(fl) => f.floor = Some(fl),
            Err(e) => f.errors.push(e.to_string()),
        }
        stop_if_interrupted()?;
        if f.floor.is_some() {
            let most = judged_jobs(&o.settings.jobs);
            for &jobs in &o.settings.jobs {
                let runs = match (f.real, jobs == most) {
                    (false, _) => o.settings.suite_runs_reference,
                    (true, true) => o.settings.suite_runs_real,
                    (true, false) => o.settings.suite_runs_real_other,
                };
                progress(&format!("{}: suite -j {jobs} ×{runs}", lib.name));
                let spec = RunSpec {
                    jobs,
                    cases: o.settings.cases.clone(),
                    timeout: o.run_timeout,
                };
                match suite::measure_suite(lib, &spec, runs, &scratch.path().join("run")) {
                    Ok(s) => f.suites.push(s),
                    Err(e) => f.errors.push(e.to_string()),
                }
                stop_if_interrupted()?;
            }
        }
        derive(&mut f, machine.cores);
        libraries.push(f);
    }
    let set = &o.settings;
    let throughput = match o.libs.iter().find(|l| l.name == "reference") {
        Some(r) if set.props_runs > 0 || set.fuzz_windows > 0 => {
            progress("reference: property tests and fuzz oracles");
            let budget = throughput::Budget {
                props_runs: set.props_runs,
                props_cases: set.props_cases,
                props_cases_in_process: set.props_cases_in_process,
                props_max_len: set.props_max_len,
                fuzz_windows: set.fuzz_windows,
                fuzz_ms: set.fuzz_window_ms,
                corpus: o.corpus.clone(),
            };
            Some(throughput::measure(r, &budget, o.run_timeout)?)
        }
        _ => None,
    };
    stop_if_interrupted()?;
    let scaling = match o.libs.iter().find(|l| l.name == "reference") {
        Some(r) if !o.settings.scale.is_empty() => {
            let jobs = o.settings.jobs.iter().copied().max().unwrap_or(2);
            progress(&format!(
                "reference: scaling ×{:?} -j {jobs}",
                o.settings.scale
            ));
            let spec = RunSpec {
                jobs,
                cases: o.settings.cases.clone(),
                timeout: o.run_timeout,
            };
            Some(scale::measure_scaling(
                r,
                &o.settings.scale,
                &spec,
                o.settings.scale_runs,
                o.settings.floor_runs,
                o.floor_timeout,
                &scratch.path().join("scale"),
                machine.cores,
            )?)
        }
        _ => None,
    };
    stop_if_interrupted()?;
    let mut machine = machine;
    machine.load_after = loadavg();
    let mut verdicts = verdicts(&libraries, scaling.as_ref(), &o.settings);
    verdicts.extend(throughput_verdicts(throughput.as_ref()));
    let bench = Bench {
        format_version: 1,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        date,
        duration_s: started.elapsed().as_secs_f64(),
        machine,
        settings: o.settings.clone(),
        libraries,
        scaling,
        throughput,
        verdicts,
        not_measured: Vec::new(),
    };
    write(&bench, &o.out)?;
    Ok(bench)
}

/// Writes `bench.json` and `BENCH.md` into `dir`.
pub fn write(b: &Bench, dir: &Path) -> Result<(), BenchError> {
    std::fs::create_dir_all(dir).map_err(|e| BenchError::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let json = dir.join("bench.json");
    let mut text = serde_json::to_string_pretty(b)?;
    text.push('\n');
    std::fs::write(&json, text).map_err(|e| BenchError::Io {
        path: json.clone(),
        source: e,
    })?;
    let md = dir.join("BENCH.md");
    std::fs::write(&md, markdown::render(b)).map_err(|e| BenchError::Io {
        path: md.clone(),
        source: e,
    })?;
    Ok(())
}

/// The -j the targets are judged on: 0 (none given: what a user gets) when measured,
/// else the largest.
pub fn judged_jobs(jobs: &[usize]) -> usize {
    if jobs.contains(&0) {
        0
    } else {
        jobs.iter().copied().max().unwrap_or(1)
    }
}

/// `-j` as the tables write it: a number, or `auto` for none given.
pub fn jobs_word(j: usize) -> String {
    match j {
        0 => "auto".into(),
        j => j.to_string(),
    }
}

/// The floor-bound of each suite figure ([`bound::floor_bound_ms`] of the median run);
/// the ratio of the suite's wall to it; and the per-result overhead beyond it.
pub fn derive(f: &mut LibFigures, cores: usize) {
    let Some(floors) = f.floor.as_ref().and_then(bound::Floors::of) else {
        return;
    };
    for s in &mut f.suites {
        let Some(run) = s.median_run() else { continue };
        let lanes = match s.jobs {
            0 => run.lanes,
            j => j,
        };
        let bound = bound::floor_bound_ms(&floors, &run.processes(), lanes, cores);
        let results = run.results.max(1) as f64;
        s.floor_bound_ms = Some(bound);
        s.ratio = (bound > 0.0).then(|| s.wall_ms.median / bound);
        s.overhead_us_per_result = Some((s.wall_ms.median - bound) * 1000.0 / results);
    }
}

fn verdicts(libs: &[LibFigures], scaling: Option<&Scaling>, set: &Settings) -> Vec<Verdict> {
    let mut v = Vec::new();
    let full = set.cases.is_empty();
    let jobs = judged_jobs(&set.jobs);
    for l in libs.iter().filter(|l| l.real) {
        let s = l.suites.iter().find(|s| s.jobs == jobs);
        let (ratio, wall) = (s.and_then(|s| s.ratio), s.map(|s| s.wall_ms.median));
        let jobs = jobs_word(jobs);
        v.push(Verdict {
            target: format!("suite ≤ {MAX_RATIO}× floor-bound (-j {jobs})"),
            scope: l.lib.name.clone(),
            met: ratio.map(|r| r <= MAX_RATIO && full),
            detail: ratio.map_or("not measured".into(), |r| format!("{r:.2}×")),
        });
        v.push(Verdict {
            target: format!("suite ≤ {:.0} s wall (-j {jobs})", MAX_WALL_MS / 1000.0),
            scope: l.lib.name.clone(),
            met: wall.map(|w| w <= MAX_WALL_MS && full),
            detail: wall.map_or("not measured".into(), |w| format!("{:.1} s", w / 1000.0)),
        });
    }
    let rss = libs
        .iter()
        .flat_map(|l| l.suites.iter().flat_map(|s| s.runs.iter()))
        .map(|r| r.supervisor_rss_kb)
        .max();
    v.push(Verdict {
        target: "supervisor peak RSS ≤ 100 MB".into(),
        scope: "all runs".into(),
        met: rss.map(|r| r <= MAX_SUPERVISOR_RSS_KB),
        detail: rss.map_or("not measured".into(), |r| {
            format!("{:.1} MB", r as f64 / 1024.0)
        }),
    });
    let lin = scaling.and_then(|s| s.marginal_growth());
    v.push(Verdict {
        target: "linear scaling with (case, subject) pairs".into(),
        scope: "reference, replicated catalogs".into(),
        met: lin.map(|g| g <= MAX_MARGINAL_GROWTH),
        detail: match (lin, scaling.and_then(|s| s.fit.as_ref())) {
            (Some(g), Some(f)) => format!(
                "marginal cost per result, largest step / smallest: {g:.2}; fit R² {:.4}",
                f.r2
            ),
            _ => "not measured".into(),
        },
    });
    v
}

fn throughput_verdicts(t: Option<&Throughput>) -> Vec<Verdict> {
    let props = t
        .and_then(|t| t.props("in-process"))
        .map(|p| p.per_s.median);
    let fuzz = t
        .and_then(|t| t.fuzz("ops_differential"))
        .map(|f| f.exec_per_s.median);
    vec![
        Verdict {
            target: format!(
                "property tests ≥ {} sequences/s in-process (reference)",
                thousands(MIN_PROPS_PER_S)
            ),
            scope: "reference cdylib".into(),
            met: props.map(|v| v >= MIN_PROPS_PER_S),
            detail: props.map_or("not measured".into(), |v| {
                format!("{} sequences/s", thousands(v))
            }),
        },
        Verdict {
            target: format!(
                "fuzz ops_differential ≥ {} exec/s in-process (reference)",
                thousands(MIN_OPS_DIFFERENTIAL_EXEC_PER_S)
            ),
            scope: "reference cdylib".into(),
            met: fuzz.map(|v| v >= MIN_OPS_DIFFERENTIAL_EXEC_PER_S),
            detail: fuzz.map_or("not measured".into(), |v| {
                format!("{} exec/s", thousands(v))
            }),
        },
    ]
}

/// A rounded number with thousands separators (`12,345`).
pub fn thousands(v: f64) -> String {
    let n = v.round().max(0.0) as u64;
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Reads `name path abi` lines (scripts/install-targets.sh's list); blank lines and
/// `#` comments are skipped, a malformed line is an error naming it.
pub fn read_targets(path: &Path) -> Result<Vec<LibSpec>, BenchError> {
    let text = std::fs::read_to_string(path).map_err(|e| BenchError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let [name, lib, abi] = f[..] else {
            return Err(BenchError::Input(format!(
                "{}:{}: expected `name path abi`",
                path.display(),
                n + 1
            )));
        };
        // The list's abi column is the family detection would find; `auto` keeps the
        // run what a user's run would be.
        let _ = abi;
        out.push(LibSpec {
            name: name.into(),
            path: lib.into(),
            abi: "auto".into(),
            env: Vec::new(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads() {
        let s = Spread::of(vec![3.0, 1.0, 2.0]);
        assert_eq!((s.n, s.median, s.min, s.max), (3, 2.0, 1.0, 3.0));
        assert_eq!(Spread::of(vec![1.0, 2.0, 3.0, 4.0]).median, 2.5);
        assert_eq!(Spread::of(vec![]).n, 0);
    }
}
