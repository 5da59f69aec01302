//! The suite runner: plans jobs from the cases and the target's inventory, runs them
//! in the worker pool, and turns the stream of results into report events. Runner and
//! reports meet only through `RunEvent`s.

pub mod capabilities;
pub mod capability_probe;
mod channel;
pub mod child;
pub mod deadline;
pub mod death;
pub mod plan;
pub mod pool;
pub mod protocol;
pub mod queue;
pub mod ranks;
pub mod readers;
pub mod remote;
mod startup;
pub mod usage;
pub mod worker;
pub mod zygote;

use crate::judge::inventory::Inventory;
use crate::judge::return_codes;
use mpit_report::{sha256_file, Builder, Report, RunEvent, RunOptions, TargetInfo, WorkerCount};
use mpit_spec::cases::{Case, Require, Suite};
use mpit_spec::specs::Source;
use mpit_spec::verdict::{CaseResult, Status};
use mpit_target::library_file;
use mpit_vocab::yaml::YamlError;
use protocol::{Hello, TargetFacts};
use readers::ReadError;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// Everything a run needs (the CLI fills it).
#[derive(Debug, Clone)]
pub struct Config {
    pub lib: PathBuf,
    pub abi: String,
    pub force: bool,
    pub strict: bool,
    /// Workers at once; `None`: as many as cores, more when the library's start
    /// mostly waits ([`lanes`]).
    pub jobs: Option<usize>,
    pub timeout: Duration,
    pub specs: Source,
    pub cases: Vec<String>,
    pub areas: Vec<String>,
    /// Show a progress bar (a terminal) or plain lines.
    pub progress: Progress,
    /// The library's launcher, split into argv (`--launcher "mpiexec -n 4"`): runs the
    /// cross-rank consistency check besides the suite (`ranks`).
    pub launcher: Option<Vec<String>>,
    /// The whole run's bound (`--max-time`): then the workers are killed and what did
    /// not finish is reported as `timeout`.
    pub max_time: Option<Duration>,
    /// Variables every worker's environment has besides its family's (`Hello::env`).
    pub env: Vec<(String, String)>,
    /// Pristine workers forked by zygotes (`--workers fork`, the default) rather than
    /// exec'd (`--workers exec`, `--no-zygote`): `zygote.rs`.
    pub zygote: bool,
}

impl Config {
    /// A quiet run of every case of `specs` on `lib` with the command line's defaults (the
    /// ABI detected, not strict, `--timeout 10`, as many workers as the run chooses, no
    /// bound on the whole run): what `repro`, the replay of `fuzz-props` and the soak
    /// start from.
    pub fn quiet(lib: PathBuf, specs: Source) -> Config {
        Config {
            lib,
            abi: "auto".into(),
            force: false,
            strict: false,
            jobs: None,
            timeout: Duration::from_secs(10),
            specs,
            cases: Vec::new(),
            areas: Vec::new(),
            progress: Progress::Quiet,
            launcher: None,
            max_time: None,
            zygote: true,
            env: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Bar,
    Lines,
    Quiet,
}

/// Why a run could not start (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Cases(#[from] YamlError),
    #[error("{0}")]
    Target(String),
    #[error("{0}")]
    Filter(String),
}

/// How many workers run at once when `-j` is not given. A worker's start that mostly
/// sleeps uses no core while it sleeps (Open MPI 4.1.4: 0.22 s wall, 0.04 s on a core,
/// nearly all of the rest in `usleep` calls of its PSM constructors), so more workers
/// than cores keep the cores busy: as many per core as the start's wall time is a
/// multiple of the time it ran or waited for a core, at most [`MAX_PER_CORE`]. A start
/// that computes (or only waited for a busy core) gets one worker per core.
pub fn lanes(cores: usize, facts: &TargetFacts) -> usize {
    let wall = facts.start_wall_us;
    let busy = (facts.start_cpu_us + facts.start_run_delay_us).max(1);
    // Starts shorter than 50 ms are not worth it: the work is in the cases then.
    if wall < 50_000 || wall < 2 * busy {
        return cores;
    }
    cores * (wall.div_ceil(busy) as usize).min(MAX_PER_CORE)
}

/// Workers per core at most. Six, not four: on 2 cores, Open MPI 4.1.4's suite (start
/// 0.22 s wall for 0.04 s on a core) took 13.6-14.4 s with 12 workers against 15.7-16.5 s
/// with 8 and 14.0-15.2 s with 16; Open MPI 5.0.11's 5.4 s with 12 against 7.0-7.3 s
/// with 8 (alternated runs; reports/bench/WORKERS.md).
const MAX_PER_CORE: usize = 6;

/// `specs` with an absolute path (as given when it cannot be made one).
fn absolute(specs: &Source) -> Source {
    match specs {
        Source::Dir(d) => Source::Dir(std::path::absolute(d).unwrap_or_else(|_| d.clone())),
        Source::Bundled => Source::Bundled,
    }
}

/// Runs the suite against one library; `ctrl_c` interrupts it, and so does
/// `cfg.max_time` (then the report is whole: what did not finish is `timeout`).
pub fn run(cfg: &Config, ctrl_c: Arc<AtomicBool>) -> Result<Report, RunError> {
    let clock = deadline::Clock::start(ctrl_c, cfg.max_time);
    let stop = clock.stop.clone();
    let mut report = run_until(cfg, &stop, &clock)?;
    if clock.expired().is_some() {
        clock.finish_late(&mut report);
    }
    Ok(report)
}

fn run_until(
    cfg: &Config,
    stop: &Arc<AtomicBool>,
    clock: &deadline::Clock,
) -> Result<Report, RunError> {
    // Which build was judged: the library's hash, taken while the suite loads and the
    // inventory readers run (tens of MB for some libraries: it held up every run).
    let sha256 = {
        let lib = library_file(&cfg.lib);
        std::thread::spawn(move || sha256_file(&lib).unwrap_or_default())
    };
    let suite = Suite::load(&cfg.specs)?;
    // The cross-rank results are filtered like cases (`--case 'ranks.*'`: those alone).
    let ranks_ids: Vec<&str> = match &cfg.launcher {
        Some(_) => ranks::selected(&cfg.cases, &cfg.areas),
        None => Vec::new(),
    };
    let selected: Vec<&Case> = match plan::select(&suite, &cfg.cases, &cfg.areas) {
        Ok(s) => s,
        Err(_) if !ranks_ids.is_empty() => Vec::new(),
        Err(e) => return Err(RunError::Filter(e)),
    };
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut setup = setup_for(cfg, stop, cores);
    let after_read = selected.iter().any(|c| c.requires(Require::MpiInit));
    // With two lanes or more, the inventory after MPI_Init (a worker that spends most
    // of its life in MPI_Init: 0.3 s for some libraries) is read beside everything
    // else: the pool starts with the cases that do not need it, and the MPI_Init cases
    // join its queue when it arrives. With -j1 everything stays one process at a time.
    let beside = after_read && setup.jobs >= 2;
    let after_reader = beside.then(|| {
        let setup = setup.clone();
        std::thread::spawn(move || readers::inventory(&setup, true))
    });
    let sha = |h: std::thread::JoinHandle<String>| h.join().unwrap_or_default();
    let (facts, before) = match readers::inventory(&setup, false) {
        Ok(x) => x,
        Err(e) => {
            if let Some(h) = after_reader {
                let _ = join_after(h);
            }
            return match e {
                // The library died or hung in its start, or --max-time passed while
                // its catalog was read: a report that says so, not exit 2.
                ReadError::Died(d) => Ok(startup::failed(cfg, &selected, &d, sha(sha256))),
                ReadError::Interrupted if clock.expired().is_some() => {
                    Ok(startup::unstarted(cfg, &selected, sha(sha256)))
                }
                e => Err(RunError::Target(e.to_string())),
            };
        }
    };
    // The capability probe, a worker of its own beside the suite's (the capability states of report.json); after
    // them with -j1, which keeps to one process at a time.
    let probe = (cfg.jobs != Some(1)).then(|| {
        let setup = setup.clone();
        std::thread::spawn(move || capabilities::probe(&setup))
    });
    // Results before any job: the entries the readers lost, then the plan's skips.
    let mut early: Vec<CaseResult> = readers::lost_results(&before, false, cfg.timeout);
    setup.jobs = cfg.jobs.unwrap_or_else(|| lanes(cores, &facts));
    let (rx, (jobs, later_jobs, runner, peak)) = start_jobs(
        cfg,
        clock,
        &mut setup,
        &selected,
        &before,
        after_reader,
        &mut early,
    );
    let planned = early.len() + jobs + later_jobs + ranks_ids.len();

    let mut b = Builder::new();
    b.event(RunEvent::Started {
        target: target_info(cfg, &facts, &before, sha256.join().unwrap_or_default()),
        // The most workers at once (more join when the MPI_Init reader's start shows
        // that those workers mostly wait).
        options: run_options(cfg, peak),
        planned,
    });
    let bar = progress_bar(cfg.progress, planned as u64);
    for r in early {
        tick(&bar, cfg.progress, &r);
        b.event(RunEvent::Result(r));
    }
    // Pvars whose handle allocation killed a worker: the cross-rank values job passes
    // over them (F-10).
    let mut alloc_crashed: Vec<String> = Vec::new();
    for r in rx {
        tick(&bar, cfg.progress, &r);
        if let Some(a) = ranks::values::crashed_alloc(&r) {
            if !alloc_crashed.contains(&a) {
                alloc_crashed.push(a);
            }
        }
        b.event(RunEvent::Result(r));
    }
    let outcome = runner.join().unwrap_or_default();
    let probed = match probe.map_or_else(|| Ok(capabilities::probe(&setup)), |h| h.join()) {
        Ok((caps, started)) => {
            b.event(RunEvent::Capabilities(Box::new(caps)));
            started
        }
        Err(_) => 0,
    };
    // The inventory readers are workers too (one, two with an MPI_Init inventory), and
    // so is the capability probe's.
    let readers = 1 + u64::from(after_read) + probed;
    b.event(RunEvent::Workers(WorkerCount {
        started: outcome.workers_started + readers,
        with_mpi_init: outcome.workers_started_mpi_init + u64::from(after_read),
        forked: outcome.workers_forked,
        forked_mpi_init: outcome.workers_forked_mpi_init,
        path: Some(setup.zygotes.path()),
        zygote_held: setup.zygotes.held.load(Ordering::SeqCst),
    }));
    // The cross-rank check (`--launcher`): its own MPI job, after the suite's workers.
    if !outcome.interrupted && !stop.load(Ordering::SeqCst) {
        let ranks = Ranks {
            ids: &ranks_ids,
            alloc_crashed: &alloc_crashed,
        };
        ranks.run(cfg, &setup, stop, &bar, &mut b);
    }
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    // The run-wide check speaks for the whole run only when the whole run happened.
    if !outcome.interrupted && cfg.cases.is_empty() && cfg.areas.is_empty()
        || cfg.areas.iter().any(|a| a == "errors")
    {
        if let Ok(table) = return_codes::Table::bundled() {
            for r in return_codes::judge(&table, &outcome.log, cfg.strict) {
                b.event(RunEvent::Result(r));
            }
        }
    }
    b.event(RunEvent::Finished {
        interrupted: outcome.interrupted || stop.load(Ordering::SeqCst),
        stopped_by: None,
    });
    Ok(b.finish())
}

/// The pool's setup for `cfg`: its workers' hello, as many lanes as cores until the
/// start's facts say more.
fn setup_for(cfg: &Config, stop: &Arc<AtomicBool>, cores: usize) -> pool::Setup {
    pool::Setup {
        hello: Hello {
            lib: cfg.lib.clone(),
            abi: cfg.abi.clone(),
            force: cfg.force,
            strict: cfg.strict,
            // Absolute: a library may change the worker's directory (chdir) before the
            // worker loads an area's cases.
            specs: absolute(&cfg.specs),
            mpi_init: false,
            single_job: false,
            base_init: true,
            skip: Default::default(),
            env: cfg.env.clone(),
            page: None,
            rendezvous: None,
            zygote: false,
            sequences: false,
            log: None,
        },
        jobs: cfg.jobs.unwrap_or(cores),
        timeout: cfg.timeout,
        stop: stop.clone(),
        zygotes: zygote::Shared::new(cfg.zygote),
    }
}

/// A running pool.
type Pool = std::thread::JoinHandle<pool::Outcome>;

/// Plans the jobs and starts the pool: with the MPI_Init inventory read beside it
/// (`after_reader`), the jobs that need it join the queue when it arrives. The results'
/// receiver, the subjects planned now and later, the pool, the most lanes at once.
fn start_jobs(
    cfg: &Config,
    clock: &deadline::Clock,
    setup: &mut pool::Setup,
    selected: &[&Case],
    before: &Inventory,
    after_reader: Option<AfterReader>,
    early: &mut Vec<CaseResult>,
) -> (mpsc::Receiver<CaseResult>, (usize, usize, Pool, usize)) {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let after_read = selected.iter().any(|c| c.requires(Require::MpiInit));
    let (tx, rx) = mpsc::channel::<CaseResult>();
    let started = match after_reader {
        Some(h) => {
            let (with_init, without): (Vec<&Case>, Vec<&Case>) = selected
                .iter()
                .copied()
                .partition(|c| c.requires(Require::MpiInit));
            let now = plan::jobs(&without, before, &Ok(Inventory::default()), early);
            clock.plan(&now);
            let n_now: usize = now.iter().map(|j| j.subjects.len()).sum();
            let (later_tx, later_rx) = mpsc::channel::<(Vec<queue::Job>, usize)>();
            let runner = {
                let setup = setup.clone();
                std::thread::spawn(move || pool::run(&setup, now, Some(later_rx), tx))
            };
            let after = join_after(h);
            // The MPI_Init workers' start (the reader's) may wait where the plain one
            // did not (Open MPI 5.0.11: 1.1 s wall, 0.1 s CPU): more lanes from now on.
            let want = match (&after, cfg.jobs) {
                (Ok((f, _)), None) => setup.jobs.max(lanes(cores, f)),
                _ => setup.jobs,
            };
            let after = after
                .map(|(_, inv)| inv)
                .map_err(|e| unread(e, cfg.timeout));
            if let Ok(inv) = &after {
                early_lost(early, inv, true, cfg.timeout);
            }
            let later = plan::jobs(&with_init, before, &after, early);
            clock.plan(&later);
            let n_later: usize = later.iter().map(|j| j.subjects.len()).sum();
            let _ = later_tx.send((later, want));
            (n_now, n_later, runner, want)
        }
        None => {
            let after: Result<Inventory, plan::Unread> = if after_read {
                readers::inventory(setup, true)
                    .map(|(f, inv)| {
                        if cfg.jobs.is_none() {
                            setup.jobs = setup.jobs.max(lanes(cores, &f));
                        }
                        inv
                    })
                    .map_err(|e| unread(e, cfg.timeout))
            } else {
                Ok(Inventory::default())
            };
            if let (Ok(inv), true) = (&after, after_read) {
                early_lost(early, inv, true, cfg.timeout);
            }
            let jobs = plan::jobs(selected, before, &after, early);
            clock.plan(&jobs);
            let n: usize = jobs.iter().map(|j| j.subjects.len()).sum();
            let runner = {
                let setup = setup.clone();
                std::thread::spawn(move || pool::run(&setup, jobs, None, tx))
            };
            (n, 0, runner, setup.jobs)
        }
    };
    (rx, started)
}

/// The MPI_Init inventory's reader, run beside the plain one.
type AfterReader = std::thread::JoinHandle<Result<(TargetFacts, Inventory), ReadError>>;

fn join_after(h: AfterReader) -> Result<(TargetFacts, Inventory), ReadError> {
    h.join()
        .unwrap_or_else(|_| Err(ReadError::CannotRun("the inventory reader panicked".into())))
}

/// The cross-rank check's cases and the pvars whose handle allocation killed a worker.
struct Ranks<'a> {
    ids: &'a [&'a str],
    alloc_crashed: &'a [String],
}

impl Ranks<'_> {
    /// Runs the check under `cfg`'s launcher, if any, its results into `b`.
    fn run(
        &self,
        cfg: &Config,
        setup: &pool::Setup,
        stop: &Arc<AtomicBool>,
        bar: &Option<indicatif::ProgressBar>,
        b: &mut Builder,
    ) {
        let Some(launcher) = cfg.launcher.as_ref().filter(|_| !self.ids.is_empty()) else {
            return;
        };
        if let Some(bar) = bar {
            bar.set_message(format!("ranks: {}", launcher.join(" ")));
        }
        let results = ranks::run(
            launcher,
            &setup.hello,
            cfg.timeout,
            stop,
            self.ids,
            self.alloc_crashed,
        );
        for r in results
            .into_iter()
            .filter(|r| self.ids.contains(&r.case.as_str()))
        {
            tick(bar, cfg.progress, &r);
            b.event(RunEvent::Result(r));
        }
    }
}

/// The results for the entries the inventory's readers lost.
fn early_lost(early: &mut Vec<CaseResult>, inv: &Inventory, after_init: bool, t: Duration) {
    early.extend(readers::lost_results(inv, after_init, t));
}

/// The MPI_Init reader's failure as the planner's reason.
fn unread(e: ReadError, timeout: Duration) -> plan::Unread {
    match e {
        ReadError::Died(d) => plan::Unread {
            status: d.status,
            message: d.message.clone(),
            evidence: vec![d.evidence(timeout)],
        },
        e => plan::Unread {
            status: Status::Error,
            message: format!("failed: {e}"),
            evidence: Vec::new(),
        },
    }
}

fn run_options(cfg: &Config, jobs: usize) -> RunOptions {
    RunOptions {
        strict: cfg.strict,
        jobs,
        timeout_ms: cfg.timeout.as_millis() as u64,
        cases: cfg.cases.clone(),
        areas: cfg.areas.clone(),
        abi: cfg.abi.clone(),
        baseline: None,
        waivers: None,
        launcher: cfg.launcher.as_ref().map(|l| l.join(" ")),
    }
}

fn target_info(cfg: &Config, f: &TargetFacts, inv: &Inventory, sha256: String) -> TargetInfo {
    let mut counts: std::collections::BTreeMap<String, i64> = inv
        .globals
        .iter()
        .map(|(k, v)| (k.trim_start_matches("num_").to_string(), *v))
        .collect();
    counts.retain(|_, v| *v >= 0);
    TargetInfo {
        path: cfg.lib.display().to_string(),
        sha256,
        abi_family: f.family.clone(),
        abi_profile: f.profile.clone(),
        detection: f.detection.clone(),
        library_version: f.library_version.clone(),
        mpi_version: f.mpi_version.map(|(a, b)| format!("{a}.{b}")),
        counts,
        unresolved: f.unresolved.clone(),
    }
}

fn progress_bar(p: Progress, total: u64) -> Option<indicatif::ProgressBar> {
    (p == Progress::Bar).then(|| {
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    })
}

fn tick(bar: &Option<indicatif::ProgressBar>, p: Progress, r: &CaseResult) {
    match (bar, p) {
        (Some(bar), _) => {
            bar.inc(1);
            bar.set_message(r.case.clone());
            if r.status.is_bad() {
                bar.println(format!(
                    "{:>7} {} [{}] {}",
                    r.status.as_str().to_uppercase(),
                    r.case,
                    r.subject,
                    r.message
                ));
            }
        }
        (None, Progress::Lines) if r.status.is_bad() => {
            eprintln!(
                "{:>7} {} [{}] {}",
                r.status.as_str().to_uppercase(),
                r.case,
                r.subject,
                r.message
            );
        }
        _ => {}
    }
}

/// Whether a line of a library's or launcher's output says anything: blank lines and the
/// rulers around banners and help texts ("=====", "-----") do not. Used wherever the
/// harness quotes a process's last words (worker crashes, launcher failures, bench).
pub fn says_something(line: &str) -> bool {
    line.chars().any(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(wall_ms: u64, cpu_ms: u64, run_delay_ms: u64) -> TargetFacts {
        TargetFacts {
            library_version: String::new(),
            mpi_version: None,
            family: String::new(),
            profile: String::new(),
            detection: None,
            unsupported: Vec::new(),
            unresolved: Vec::new(),
            start_cpu_us: cpu_ms * 1000,
            start_run_delay_us: run_delay_ms * 1000,
            start_wall_us: wall_ms * 1000,
            held_objects: 0,
        }
    }

    #[test]
    fn a_start_that_sleeps_gets_more_workers_than_cores() {
        // Open MPI 4.1.4's start: 222 ms, 43 ms on a core.
        assert_eq!(lanes(2, &start(222, 43, 0)), 12);
        assert_eq!(lanes(2, &start(222, 70, 0)), 8);
        assert_eq!(lanes(2, &start(500, 10, 0)), 12);
        assert_eq!(lanes(2, &start(300, 100, 0)), 6);
        // A start that computes, or only waited for a busy core, gets one per core.
        assert_eq!(lanes(2, &start(50, 49, 0)), 2);
        assert_eq!(lanes(2, &start(300, 40, 250)), 2);
        // Short starts are not worth more workers.
        assert_eq!(lanes(4, &start(30, 1, 0)), 4);
    }
}
