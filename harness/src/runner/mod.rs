//! The suite runner: plans jobs from the cases and the target's inventory, runs them
//! in the worker pool, and turns the stream of results into report events. Runner and
//! reports meet only through `RunEvent`s.

pub mod plan;
pub mod pool;
pub mod protocol;
pub mod queue;
pub mod ranks;
pub mod return_codes;
pub mod worker;

use crate::cases::{Case, Suite};
use crate::exec::inventory::Inventory;
use crate::report::{self, Builder, Report, RunEvent, RunOptions, TargetInfo};
use crate::verdict::CaseResult;
use protocol::{Hello, TargetFacts};
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
    pub jobs: usize,
    pub timeout: Duration,
    pub specs: PathBuf,
    pub cases: Vec<String>,
    pub areas: Vec<String>,
    /// Show a progress bar (a terminal) or plain lines.
    pub progress: Progress,
    /// The library's launcher, split into argv (`--launcher "mpiexec -n 4"`): runs the
    /// cross-rank consistency check besides the suite (`ranks`).
    pub launcher: Option<Vec<String>>,
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
    Cases(#[from] mpit_reference::yaml::YamlError),
    #[error("{0}")]
    Target(String),
    #[error("{0}")]
    Filter(String),
}

/// Runs the suite against one library; `stop` interrupts it (Ctrl-C).
pub fn run(cfg: &Config, stop: Arc<AtomicBool>) -> Result<Report, RunError> {
    // Which build was judged: the library's hash, taken while the suite loads and the
    // inventory readers run (tens of MB for some libraries: it held up every run).
    let sha256 = {
        let lib = cfg.lib.clone();
        std::thread::spawn(move || report::sha256_file(&lib).unwrap_or_default())
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
    let setup = pool::Setup {
        hello: Hello {
            lib: cfg.lib.clone(),
            abi: cfg.abi.clone(),
            force: cfg.force,
            strict: cfg.strict,
            specs: cfg.specs.clone(),
            mpi_init: false,
            single_job: false,
            base_init: true,
        },
        jobs: cfg.jobs,
        timeout: cfg.timeout,
        stop: stop.clone(),
    };
    let after_read = selected
        .iter()
        .any(|c| c.requires(crate::cases::Require::MpiInit));
    // With two lanes or more, the inventory after MPI_Init (a worker that spends most
    // of its life in MPI_Init: 0.3 s for some libraries) is read beside everything
    // else: the pool starts with the cases that do not need it, and the MPI_Init cases
    // join its queue when it arrives. With -j1 everything stays one process at a time.
    let beside = after_read && cfg.jobs >= 2;
    let after_reader = beside.then(|| {
        let setup = setup.clone();
        std::thread::spawn(move || pool::inventory(&setup, true).map(|(_, inv)| inv))
    });
    let join_after = |h: std::thread::JoinHandle<Result<Inventory, String>>| {
        h.join()
            .unwrap_or_else(|_| Err("the inventory reader thread panicked".into()))
    };
    let (facts, before) = match pool::inventory(&setup, false) {
        Ok(x) => x,
        Err(e) => {
            if let Some(h) = after_reader {
                let _ = join_after(h);
            }
            return Err(RunError::Target(e));
        }
    };
    let mut early: Vec<CaseResult> = Vec::new();
    let (tx, rx) = mpsc::channel::<CaseResult>();
    let (jobs, later_jobs, runner) = match after_reader {
        Some(h) => {
            let (with_init, without): (Vec<&Case>, Vec<&Case>) = selected
                .iter()
                .partition(|c| c.requires(crate::cases::Require::MpiInit));
            let now = plan::jobs(&without, &before, &Ok(Inventory::default()), &mut early);
            let n_now: usize = now.iter().map(|j| j.subjects.len()).sum();
            let (later_tx, later_rx) = mpsc::channel::<Vec<pool::Job>>();
            let runner = {
                let setup = setup.clone();
                std::thread::spawn(move || pool::run(&setup, now, Some(later_rx), tx))
            };
            let after = join_after(h);
            let later = plan::jobs(&with_init, &before, &after, &mut early);
            let n_later: usize = later.iter().map(|j| j.subjects.len()).sum();
            let _ = later_tx.send(later);
            (n_now, n_later, runner)
        }
        None => {
            let after: Result<Inventory, String> = if after_read {
                pool::inventory(&setup, true).map(|(_, inv)| inv)
            } else {
                Ok(Inventory::default())
            };
            let jobs = plan::jobs(&selected, &before, &after, &mut early);
            let n: usize = jobs.iter().map(|j| j.subjects.len()).sum();
            let runner = {
                let setup = setup.clone();
                std::thread::spawn(move || pool::run(&setup, jobs, None, tx))
            };
            (n, 0, runner)
        }
    };
    let planned = early.len() + jobs + later_jobs + ranks_ids.len();

    let mut b = Builder::new();
    b.event(RunEvent::Started {
        target: target_info(cfg, &facts, &before, sha256.join().unwrap_or_default()),
        options: RunOptions {
            strict: cfg.strict,
            jobs: cfg.jobs,
            timeout_ms: cfg.timeout.as_millis() as u64,
            cases: cfg.cases.clone(),
            areas: cfg.areas.clone(),
            abi: cfg.abi.clone(),
            baseline: None,
            waivers: None,
            launcher: cfg.launcher.as_ref().map(|l| l.join(" ")),
        },
        planned,
    });
    let bar = progress_bar(cfg.progress, planned as u64);
    for r in early {
        tick(&bar, cfg.progress, &r);
        b.event(RunEvent::Result(r));
    }
    for r in rx {
        tick(&bar, cfg.progress, &r);
        b.event(RunEvent::Result(r));
    }
    let outcome = runner.join().unwrap_or_default();
    // The inventory readers are workers too (one, two with an MPI_Init inventory).
    let readers = 1 + u64::from(after_read);
    b.event(RunEvent::Workers(report::WorkerCount {
        started: outcome.workers_started + readers,
        with_mpi_init: outcome.workers_started_mpi_init + u64::from(after_read),
    }));
    // The cross-rank check (`--launcher`): its own MPI job, after the suite's workers.
    let launcher = cfg.launcher.as_ref().filter(|_| !ranks_ids.is_empty());
    if let Some(launcher) = launcher.filter(|_| !outcome.interrupted) {
        if let Some(bar) = &bar {
            bar.set_message(format!("ranks: {}", launcher.join(" ")));
        }
        let results = ranks::run(launcher, &setup.hello, cfg.timeout, &stop);
        for r in results
            .into_iter()
            .filter(|r| ranks_ids.contains(&r.case.as_str()))
        {
            tick(&bar, cfg.progress, &r);
            b.event(RunEvent::Result(r));
        }
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
    });
    Ok(b.finish())
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
