//! `cargo xtask bench --workers-compare` (fork-speed workers): forked workers (zygotes, the
//! default) side by side with exec'd ones (`--workers exec`, `--no-zygote`), in one
//! bench, alternated run by run (fork, exec, fork, exec, ...) so that a change of the
//! machine's load hits both. Per library: the full suite's wall and CPU (the run and
//! every process it reaped) and the supervisor's peak RSS; fuzz-props' sequences per
//! second in its held-initialized and lifecycle modes; a lifecycle sequence's cost
//! (a pristine worker each) against the library's floor (a fresh process that only
//! loads, initializes, enumerates and finalizes: `floor`). Everything is measured in
//! child processes (`spawn::measure`); the bench process never loads a library.
//!
//! Self-contained on purpose: the rest of the bench knows of it only through
//! `bench::workers::compare` and the flag that calls it.

use super::bound::{floor_bound_ms, Floors, Processes};
use super::floor::{enumerations, ms};
use super::spawn::{interrupted, measure, Measured};
use super::{BenchError, LibSpec, Spread};
use mpit_process::Cmd;
use mpit_report::now_rfc3339;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    pub libs: Vec<LibSpec>,
    /// Where WORKERS.md and workers.json go.
    pub out: PathBuf,
    /// Suite runs per path and library.
    pub suite_runs: usize,
    /// fuzz-props runs per path and library, and `--cases` of each.
    pub props_runs: usize,
    pub props_cases: u32,
    pub floor_runs: usize,
    pub timeout: Duration,
}

/// One path's figures (medians over the runs).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PathFigures {
    pub suite_wall_ms: Spread,
    pub suite_cpu_ms: Spread,
    pub supervisor_rss_kb: u64,
    pub workers_path: String,
    /// The worker processes of the last run, and its workers at once.
    #[serde(default)]
    pub processes: Processes,
    #[serde(default)]
    pub lanes: usize,
    /// [`floor_bound_ms`] of the last run, when the floors were measured.
    #[serde(default)]
    pub floor_bound_ms: Option<f64>,
    /// fuzz-props sequences per second: MPI_T held initialized, lifecycle.
    pub held_per_s: Spread,
    pub lifecycle_per_s: Spread,
}

/// One library.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LibFigures {
    pub name: String,
    /// Floor (a): a fresh process that loads, initializes, enumerates, finalizes.
    pub floor_ms: Spread,
    /// Floors (a) and (b) per kind of process, for the floor-bound.
    #[serde(default)]
    pub floors: Option<Floors>,
    pub fork: PathFigures,
    pub exec: PathFigures,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Compare {
    pub date: String,
    pub loadavg: Vec<f64>,
    pub libs: Vec<LibFigures>,
}

/// Runs the comparison and writes `WORKERS.md` and `workers.json` under `o.out`.
pub fn compare(o: &Options) -> Result<Compare, BenchError> {
    let mut c = Compare {
        date: now_rfc3339(),
        loadavg: super::loadavg(),
        libs: Vec::new(),
    };
    for lib in &o.libs {
        eprintln!("bench --workers-compare: {}", lib.name);
        let mut f = LibFigures {
            name: lib.name.clone(),
            ..LibFigures::default()
        };
        f.floors = floors(lib, o, &mut f);
        let mut suite: [Vec<SuiteRun>; 2] = Default::default();
        for _ in 0..o.suite_runs {
            for (i, path) in PATHS.iter().enumerate() {
                suite[i].push(suite_run(lib, path, o.timeout)?);
            }
        }
        let mut props: [Vec<(f64, f64)>; 2] = Default::default();
        for _ in 0..o.props_runs {
            for (i, path) in PATHS.iter().enumerate() {
                match props_run(lib, path, o.props_cases, o.timeout) {
                    Ok(r) => props[i].push(r),
                    Err(e) => f.notes.push(format!("fuzz-props --workers {path}: {e}")),
                }
            }
        }
        for (i, p) in [&mut f.fork, &mut f.exec].into_iter().enumerate() {
            fill(p, &suite[i], &props[i]);
            p.floor_bound_ms = f
                .floors
                .map(|fl| floor_bound_ms(&fl, &p.processes, p.lanes, cores()));
        }
        c.libs.push(f);
        if interrupted() {
            return Err(BenchError::Interrupted);
        }
    }
    write(o, &c)?;
    Ok(c)
}

const PATHS: [&str; 2] = ["fork", "exec"];

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Floors (a) and (b) (fresh processes, with their phases); (a)'s wall also goes to
/// `f.floor_ms`. A floor that cannot be measured is a note, and no floor-bound.
fn floors(lib: &LibSpec, o: &Options, f: &mut LibFigures) -> Option<Floors> {
    let mut measure = |mpi_init: bool| match enumerations(lib, mpi_init, o.floor_runs, o.timeout) {
        Ok((wall, _, phases, _)) => Some((wall, phases)),
        Err(e) => {
            f.notes
                .push(format!("floor ({}): {e}", if mpi_init { "b" } else { "a" }));
            None
        }
    };
    let (a, b) = (measure(false)?, measure(true)?);
    f.floor_ms = a.0;
    Some(Floors::new(
        (a.0.median, b.0.median),
        Some(&a.1),
        Some(&b.1),
    ))
}

struct SuiteRun {
    wall_ms: f64,
    cpu_ms: f64,
    rss_kb: u64,
    processes: Processes,
    lanes: usize,
    path: String,
}

/// The `mpit-conform` beside this binary (the measured runs are the shipped one's).
fn exe() -> Result<PathBuf, BenchError> {
    super::spawn::conform_exe().map_err(BenchError::Spawn)
}

/// One `mpit-conform --lib L --workers PATH` run: wall and CPU from wait4, the
/// supervisor's VmHWM from `--bench-stats`, the worker counts from report.json.
fn suite_run(lib: &LibSpec, path: &str, timeout: Duration) -> Result<SuiteRun, BenchError> {
    let mut cmd = Cmd::new(exe()?);
    // Kept until the report is read (a command's private directory goes with it).
    let dir = tempfile::Builder::new()
        .prefix("mpit-bench-workers-")
        .tempdir()
        .map_err(|e| BenchError::Spawn(e.to_string()))?;
    let (out, stats) = (dir.path().join("out"), dir.path().join("stats.json"));
    cmd.arg("--lib")
        .arg(&lib.path)
        .args(["--abi", &lib.abi, "-q", "--workers", path, "--out"])
        .arg(&out)
        .arg("--bench-stats")
        .arg(&stats)
        .envs(lib.env.iter().map(|(k, v)| (k, v)));
    let m = measure(cmd, timeout)?;
    let bad = |why: String| BenchError::Run(lib.name.clone(), why);
    if m.ended.code().is_none_or(|c| c >= 2) {
        return Err(bad(format!("{:?}: {}", m.ended, m.last_words())));
    }
    let report = read_json(&out.join("report.json")).map_err(bad)?;
    let n = |k: &str| report[k].as_u64().unwrap_or(0);
    let rss_kb = read_json(&stats)
        .ok()
        .and_then(|s| s["supervisor_hwm_kb"].as_u64())
        .unwrap_or(0);
    Ok(SuiteRun {
        wall_ms: ms(m.wall),
        cpu_ms: ms(m.usage.cpu()),
        rss_kb,
        processes: Processes {
            started: n("workers_started"),
            started_mpi_init: n("workers_started_mpi_init"),
            forked: n("workers_forked"),
            forked_mpi_init: n("workers_forked_mpi_init"),
        },
        lanes: report["options"]["jobs"].as_u64().unwrap_or(0) as usize,
        path: report["workers_path"]
            .as_str()
            .unwrap_or("exec")
            .to_string(),
    })
}

fn read_json(p: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
}

/// One `fuzz-props --workers PATH` run: sequences per second held initialized, and in
/// the lifecycle mode (a pristine worker per sequence), as it prints them.
fn props_run(
    lib: &LibSpec,
    path: &str,
    cases: u32,
    timeout: Duration,
) -> Result<(f64, f64), String> {
    let mut cmd = Cmd::new(exe().map_err(|e| e.to_string())?);
    let dir = cmd
        .private_dir("mpit-bench-props-")
        .map_err(|e| e.to_string())?;
    cmd.args(["fuzz-props", "--lib"])
        .arg(&lib.path)
        .args(["--abi", &lib.abi, "--workers", path, "--seed", "1"])
        .args(["--cases", &cases.to_string(), "--out"])
        .arg(dir)
        .envs(lib.env.iter().map(|(k, v)| (k, v)));
    let m: Measured = measure(cmd, timeout).map_err(|e| e.to_string())?;
    let rate = |mode: &str| {
        m.stdout
            .lines()
            .find(|l| l.starts_with(mode))
            .and_then(|l| l.split(" sequences/s").next())
            .and_then(|l| l.rsplit('(').next())
            .and_then(|n| n.trim().parse::<f64>().ok())
    };
    match (rate("valid calls, MPI_T initialized"), rate("lifecycle:")) {
        (Some(h), Some(l)) => Ok((h, l)),
        _ => Err(format!("no rates ({:?}): {}", m.ended, m.last_words())),
    }
}

fn fill(p: &mut PathFigures, suite: &[SuiteRun], props: &[(f64, f64)]) {
    p.suite_wall_ms = Spread::of(suite.iter().map(|r| r.wall_ms).collect());
    p.suite_cpu_ms = Spread::of(suite.iter().map(|r| r.cpu_ms).collect());
    p.supervisor_rss_kb = suite.iter().map(|r| r.rss_kb).max().unwrap_or(0);
    if let Some(r) = suite.last() {
        (p.processes, p.lanes) = (r.processes, r.lanes);
        p.workers_path = r.path.clone();
    }
    p.held_per_s = Spread::of(props.iter().map(|r| r.0).collect());
    p.lifecycle_per_s = Spread::of(props.iter().map(|r| r.1).collect());
}

fn bound(ms: Option<f64>) -> String {
    ms.map_or("–".into(), |b| format!("{b:.0}"))
}

/// `wall / bound` as `2.41×`.
fn times(wall: f64, bound: Option<f64>) -> String {
    match bound.filter(|b| *b > 0.0) {
        Some(b) => format!("{:.2}×", wall / b),
        None => "–".into(),
    }
}

fn ratio(a: f64, b: f64) -> String {
    match b > 0.0 {
        true => format!("{:.2}", a / b),
        false => "–".into(),
    }
}

/// WORKERS.md: one table per measure, exec / fork ratios (above 1: fork is faster).
pub fn markdown(c: &Compare) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Forked and exec'd workers\n\nGenerated by `cargo xtask bench \
         --workers-compare` on {} (1-min load average at the start: {}). Runs alternate \
         fork, exec, fork, exec; figures are medians. Ratios are exec / fork for times and \
         fork / exec for rates: above 1, the zygotes are faster. The machine has 2 cores \
         and was shared with other work: see ANALYSIS.md and the load.\n",
        c.date,
        c.loadavg.first().map_or("?".into(), |l| format!("{l:.2}"))
    );
    s.push_str("## Full suite\n\nFloor-bound: the library's floor for every worker process the run made, over \
         the workers at once the cores can run (`min(-j, cores)`): an exec'd process at \
         floor (a) (a fresh process that loads the library, MPI_T init, reads every entry, \
         finalize) or (b) (the same inside MPI_Init) when it called MPI_Init, a forked child \
         at the library's calls of (a) or (b) alone (no start, no dlopen). Workers with \
         MPI_Init: those that called it, before their steps or in one.\n\n\
         | library | wall fork (ms) | wall exec (ms) | ratio | CPU fork (ms) | CPU exec (ms) | ratio | supervisor RSS fork / exec (MB) | workers fork: started + forked (MPI_Init) | workers exec (MPI_Init) | -j | floor-bound fork / exec (ms) | wall / floor-bound fork / exec | path |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for l in &c.libs {
        let (f, e) = (&l.fork, &l.exec);
        let _ = writeln!(
            s,
            "| {} | {:.0} | {:.0} | {} | {:.0} | {:.0} | {} | {:.1} / {:.1} | {} + {} ({}) | {} ({}) | {} | {} / {} | {} / {} | {} |",
            l.name,
            f.suite_wall_ms.median,
            e.suite_wall_ms.median,
            ratio(e.suite_wall_ms.median, f.suite_wall_ms.median),
            f.suite_cpu_ms.median,
            e.suite_cpu_ms.median,
            ratio(e.suite_cpu_ms.median, f.suite_cpu_ms.median),
            f.supervisor_rss_kb as f64 / 1024.0,
            e.supervisor_rss_kb as f64 / 1024.0,
            f.processes.started,
            f.processes.forked,
            f.processes.started_mpi_init + f.processes.forked_mpi_init,
            e.processes.started,
            e.processes.started_mpi_init,
            f.lanes,
            bound(f.floor_bound_ms),
            bound(e.floor_bound_ms),
            times(f.suite_wall_ms.median, f.floor_bound_ms),
            times(e.suite_wall_ms.median, e.floor_bound_ms),
            f.workers_path.replace('|', "/")
        );
    }
    let searches = std::thread::available_parallelism().map_or(1, |n| n.get());
    let _ = write!(
        s,
        "\n## fuzz-props (sequences/s)\n\n`fuzz-props` at its default `-j`: {searches} \
         search(es) side by side, each of the whole `--cases`; a rate is all the searches' \
         sequences over the mode's wall time, and ms/sequence its inverse.\n\n"
    );
    s.push_str("| library | held fork | held exec | ratio | lifecycle fork | lifecycle exec | ratio | lifecycle ms/sequence fork / exec | floor (a) ms |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for l in &c.libs {
        let (f, e) = (&l.fork, &l.exec);
        let per = |r: f64| {
            if r > 0.0 {
                format!("{:.2}", 1000.0 / r)
            } else {
                "–".into()
            }
        };
        let _ = writeln!(
            s,
            "| {} | {:.0} | {:.0} | {} | {:.0} | {:.0} | {} | {} / {} | {:.1} |",
            l.name,
            f.held_per_s.median,
            e.held_per_s.median,
            ratio(f.held_per_s.median, e.held_per_s.median),
            f.lifecycle_per_s.median,
            e.lifecycle_per_s.median,
            ratio(f.lifecycle_per_s.median, e.lifecycle_per_s.median),
            per(f.lifecycle_per_s.median),
            per(e.lifecycle_per_s.median),
            l.floor_ms.median
        );
    }
    let notes: Vec<String> = c
        .libs
        .iter()
        .flat_map(|l| l.notes.iter().map(move |n| format!("- {}: {n}", l.name)))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(s, "\n## Notes\n\n{}", notes.join("\n"));
    }
    s
}

/// Writes both files, each through a temporary file renamed into place.
fn write(o: &Options, c: &Compare) -> Result<(), BenchError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BenchError::Io { path, source }
    };
    std::fs::create_dir_all(&o.out).map_err(io(&o.out))?;
    for (name, text) in [
        ("workers.json", serde_json::to_string_pretty(c)?),
        ("WORKERS.md", markdown(c)),
    ] {
        let (tmp, dest) = (o.out.join(format!(".{name}.tmp")), o.out.join(name));
        std::fs::write(&tmp, text).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &dest).map_err(io(&dest))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_table_gives_each_paths_floor_bound_and_the_walls_ratio_to_it() {
        let path = |wall: f64, bound: Option<f64>| PathFigures {
            suite_wall_ms: Spread::of(vec![wall]),
            floor_bound_ms: bound,
            lanes: 2,
            ..PathFigures::default()
        };
        let c = Compare {
            libs: vec![LibFigures {
                name: "lib".into(),
                fork: path(1300.0, Some(650.0)),
                exec: path(1900.0, None),
                ..LibFigures::default()
            }],
            ..Compare::default()
        };
        let md = markdown(&c);
        let row = md
            .lines()
            .find(|l| l.starts_with("| lib |"))
            .expect("a row");
        assert!(row.contains("| 650 / – | 2.00× / – |"), "{row}");
    }
}
