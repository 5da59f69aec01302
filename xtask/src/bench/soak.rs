//! `cargo xtask bench --soak`: what a long life leaves behind (descriptors, processes, zombies, temporary files). The suite on
//! the reference N times in a row in this one process (so that whatever a run leaves —
//! a descriptor, a process, a temporary directory — piles up here, in the supervisor of
//! every run), its report written each time as `run` writes it; then `fuzz-props` in its
//! lifecycle mode (a fresh worker for every sequence) for S seconds. Before and after
//! each phase it counts this process's open descriptors (and names any new one), the
//! live processes carrying its tag (`mpit_process::TAG`: its workers and whatever they
//! started), its children not reaped, the `mpit*` entries of the temporary directory, the
//! entries of /dev/shm, and its resident memory. The figures go to `soak.json` and
//! `SOAK.md` beside the bench's. A measurement, not a timed test.

use super::{loadavg, BenchError};
use mpit_conform::differential::props::{self, Search};
use mpit_conform::differential::{Mirror, Mode};
use mpit_conform::runner::remote::Remote;
use mpit_conform::runner::usage::open_fds;
use mpit_conform::runner::{self, Config};
use mpit_process::{sweep_orphans, TAG};
use mpit_report::now_rfc3339;
use mpit_spec::specs::Source;
use mpit_vocab::catalog::Catalog;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a soak is asked.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    pub lib: PathBuf,
    pub runs: usize,
    pub fuzz: Duration,
    /// The command line, as SOAK.md shows it.
    pub command: String,
}

/// What is counted before and after a phase.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// This process's open descriptors.
    pub fds: u64,
    /// Live processes whose tag names this process: its children and their descendants.
    pub processes: u64,
    /// Its children that ended and were not reaped.
    pub zombies: u64,
    /// Entries of the temporary directory named `mpit*`.
    pub temp: u64,
    /// Entries of /dev/shm (the machine's: other users' show too).
    pub shm: u64,
    /// Resident memory, KiB.
    pub rss_kb: u64,
}

/// One phase: its work, and the counts around it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Phase {
    pub name: String,
    /// Suite runs, or lifecycle sequences.
    pub units: u64,
    /// Worker processes started.
    pub workers: u64,
    pub wall_s: f64,
    pub before: Counts,
    pub after: Counts,
    /// Descriptors open after and not before (what they refer to).
    pub new_fds: Vec<String>,
    /// Each distinct `by_status` of the runs, with how many runs had it (the suite); the
    /// divergences found (fuzz).
    pub outcomes: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Soak {
    pub date: String,
    pub command: String,
    pub lib: PathBuf,
    pub load_before: Vec<f64>,
    pub load_after: Vec<f64>,
    pub phases: Vec<Phase>,
}

impl Soak {
    /// Nothing piled up: every count but /dev/shm's (the machine's) and memory is back.
    pub fn leak_free(&self) -> bool {
        self.phases.iter().all(|p| {
            let (b, a) = (&p.before, &p.after);
            a.fds <= b.fds
                && a.processes <= b.processes
                && a.zombies <= b.zombies
                && a.temp <= b.temp
        })
    }
}

fn fd_targets() -> Vec<String> {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| {
            d.flatten()
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .map(|p| p.display().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn entries(dir: &Path, prefix: &str) -> u64 {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
            .count() as u64
    })
}

/// Live processes tagged by this process, and its unreaped children.
fn processes() -> (u64, u64) {
    let me = std::process::id();
    let ours = format!("{me}.");
    let (mut live, mut zombies) = (0, 0);
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let mut f = stat
            .rsplit_once(')')
            .map_or("", |(_, r)| r)
            .split_whitespace();
        let (state, ppid) = (f.next(), f.next().and_then(|p| p.parse::<u32>().ok()));
        if state == Some("Z") {
            zombies += u64::from(ppid == Some(me));
            continue;
        }
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let tag = env
            .split(|b| *b == 0)
            .find_map(|v| v.strip_prefix(format!("{TAG}=").as_bytes()))
            .map(String::from_utf8_lossy);
        if tag.is_some_and(|t| t.split('/').any(|c| c.starts_with(&ours))) {
            live += 1;
        }
    }
    (live, zombies)
}

fn counts() -> (Counts, Vec<String>) {
    sweep_orphans();
    let (processes, zombies) = processes();
    let c = Counts {
        fds: open_fds(),
        processes,
        zombies,
        temp: entries(&std::env::temp_dir(), "mpit"),
        shm: entries(Path::new("/dev/shm"), ""),
        rss_kb: status_kb("VmRSS:"),
    };
    (c, fd_targets())
}

/// Runs `work` between two counts.
fn phase(
    name: &str,
    work: impl FnOnce() -> Result<(u64, u64, BTreeMap<String, u64>), BenchError>,
) -> Result<Phase, BenchError> {
    let (before, fds_before) = counts();
    let t0 = Instant::now();
    let (units, workers, outcomes) = work()?;
    let wall_s = t0.elapsed().as_secs_f64();
    let (after, fds_after) = counts();
    let mut new_fds = fds_after;
    for f in &fds_before {
        if let Some(i) = new_fds.iter().position(|g| g == f) {
            new_fds.remove(i);
        }
    }
    Ok(Phase {
        name: name.into(),
        units,
        workers,
        wall_s,
        before,
        after,
        new_fds,
        outcomes,
    })
}

/// The suite `runs` times, each report written to `scratch` (as `run` writes it).
fn suites(
    lib: &Path,
    runs: usize,
    scratch: &Path,
    stop: &Arc<AtomicBool>,
) -> Result<(u64, u64, BTreeMap<String, u64>), BenchError> {
    let cfg = Config::quiet(lib.to_path_buf(), Source::Bundled);
    let mut outcomes = BTreeMap::new();
    let mut workers = 0;
    for n in 0..runs {
        if stop.load(Ordering::SeqCst) {
            return Err(BenchError::Interrupted);
        }
        let r = runner::run(&cfg, stop.clone())
            .map_err(|e| BenchError::Run("reference".into(), e.to_string()))?;
        workers += r.workers_started.unwrap_or(0);
        let by: Vec<String> = r
            .summary
            .by_status
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(s, n)| format!("{n} {}", s.as_str()))
            .collect();
        *outcomes.entry(by.join(", ")).or_default() += 1;
        mpit_report::json::write(&r, &scratch.join("report.json"))
            .map_err(|e| BenchError::Run("reference".into(), e.to_string()))?;
        if (n + 1) % 10 == 0 {
            eprintln!("bench: soak: {} of {runs} suite runs", n + 1);
        }
    }
    Ok((runs as u64, workers, outcomes))
}

/// `fuzz-props` in its lifecycle mode for `budget`, one search after another (seeds
/// 1, 2, ...), the reference mirrored as `fuzz-props` mirrors it.
fn lifecycle(
    lib: &Path,
    budget: Duration,
    stop: &Arc<AtomicBool>,
) -> Result<(u64, u64, BTreeMap<String, u64>), BenchError> {
    let m = Arc::new(Mirror::of_catalog(
        Catalog::default_catalog(),
        "the reference's default catalog".into(),
    ));
    let mode = Mode {
        robustness: false,
        lifecycle: true,
    };
    let until = Instant::now() + budget;
    let (mut sequences, mut workers) = (0, 0);
    let mut outcomes = BTreeMap::new();
    let mut seed = 0;
    while Instant::now() < until {
        if stop.load(Ordering::SeqCst) {
            return Err(BenchError::Interrupted);
        }
        seed += 1;
        let mut r = Remote::new(
            lib.to_path_buf(),
            "auto".into(),
            false,
            Duration::from_secs(10),
            m.clone(),
            stop.clone(),
        );
        // A search generates all its cases (the time limit only skips running them
        // once it has passed), so each search is of fuzz-props's size.
        let s = Search {
            cases: 256,
            seed,
            max_len: 24,
            mode,
            strict: false,
            known: Default::default(),
            time_limit: Some(until.saturating_duration_since(Instant::now())),
        };
        let f = props::search(m.clone(), &s, &mut r)
            .map_err(|e| BenchError::Run("reference".into(), e.to_string()))?;
        sequences += f.sequences;
        workers += r.started;
        let found = f.warnings.len() as u64 + u64::from(f.failure.is_some());
        *outcomes.entry("divergences".to_string()).or_default() += found;
    }
    *outcomes.entry("searches".to_string()).or_default() += seed;
    Ok((sequences, workers, outcomes))
}

/// The soak (see the module's doc).
pub fn soak(o: &SoakOptions, stop: &Arc<AtomicBool>) -> Result<Soak, BenchError> {
    let scratch = tempfile::Builder::new()
        .prefix("mpit-soak-")
        .tempdir()
        .map_err(|e| BenchError::Io {
            path: std::env::temp_dir(),
            source: e,
        })?;
    let load_before = loadavg();
    let mut phases = Vec::new();
    let name = format!("the suite ×{}", o.runs);
    phases.push(phase(&name, || {
        suites(&o.lib, o.runs, scratch.path(), stop)
    })?);
    let name = format!("fuzz-props lifecycle, {} s", o.fuzz.as_secs());
    phases.push(phase(&name, || lifecycle(&o.lib, o.fuzz, stop))?);
    Ok(Soak {
        date: now_rfc3339(),
        command: o.command.clone(),
        lib: o.lib.clone(),
        load_before,
        load_after: loadavg(),
        phases,
    })
}

/// Writes `soak.json` and `SOAK.md` into `dir` (each to a temporary file, renamed).
pub fn write(s: &Soak, dir: &Path) -> Result<(), BenchError> {
    let io = |path: PathBuf| move |e: std::io::Error| BenchError::Io { path, source: e };
    std::fs::create_dir_all(dir).map_err(io(dir.to_path_buf()))?;
    let mut json = serde_json::to_string_pretty(s)?;
    json.push('\n');
    for (name, text) in [("soak.json", json), ("SOAK.md", markdown(s))] {
        let path = dir.join(name);
        mpit_report::json::atomic_write(&path, text.as_bytes())
            .map_err(|e| BenchError::Run("soak".into(), format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

/// SOAK.md.
pub fn markdown(s: &Soak) -> String {
    let mut md = format!(
        "# Soak\n\nWhat a long life leaves behind (`xtask/src/bench/soak.rs`): the suite on the \
         reference run again and again in one process, which is the supervisor of every run, \
         its report written each time; then `fuzz-props` in its lifecycle mode (a fresh worker \
         per sequence). Counted before and after each phase: the process's open descriptors, \
         the live processes carrying its tag (its workers and whatever they started), its \
         children not reaped, the `mpit*` entries of the temporary directory, /dev/shm's \
         entries (the machine's: other users' show too) and the resident memory.\n\n\
         - Command: `{}`\n- Date: {}\n- Library: `{}`\n- Load average before / after: {:?} / {:?}\n- Verdict: {}\n\n",
        s.command,
        s.date,
        s.lib.display(),
        s.load_before,
        s.load_after,
        if s.leak_free() { "no leak: every count is back where it started" } else { "LEAK: a count grew (below)" }
    );
    md.push_str("| phase | units | workers | wall | descriptors | processes | zombies | temp entries | /dev/shm | RSS (KiB) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for p in &s.phases {
        let (b, a) = (&p.before, &p.after);
        md.push_str(&format!(
            "| {} | {} | {} | {:.0} s | {} → {} | {} → {} | {} → {} | {} → {} | {} → {} | {} → {} |\n",
            p.name, p.units, p.workers, p.wall_s, b.fds, a.fds, b.processes, a.processes,
            b.zombies, a.zombies, b.temp, a.temp, b.shm, a.shm, b.rss_kb, a.rss_kb
        ));
    }
    for p in &s.phases {
        md.push_str(&format!("\n{}: ", p.name));
        let o: Vec<String> = p
            .outcomes
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        md.push_str(&o.join("; "));
        if !p.new_fds.is_empty() {
            md.push_str(&format!("; new descriptors: {}", p.new_fds.join(", ")));
        }
        md.push('\n');
    }
    md
}
