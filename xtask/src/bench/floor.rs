//! The floor a library sets (supervisor side): fresh `__bench-probe` processes that open
//! the library, initialize MPI_T, read the whole catalog and finalize — (a) without and
//! (b) with MPI_Init around it — and one process timing single calls (c). The library
//! runs only in those children, with the environment its workers would get.

use super::probe::{Answer, PerCall, Phases, Probe, Task, MARK};
use super::spawn::{measure, Measured};
use super::{BenchError, LibSpec, Spread};
use mpit_process::Cmd;
use mpit_target::worker_env;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Floor figures of one library.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Floor {
    /// (a) wall ms of a fresh process: start, dlopen, MPI_T init, enumeration, finalize.
    pub enumerate_ms: Option<Spread>,
    /// (a) user+sys ms of that process.
    pub enumerate_cpu_ms: Option<Spread>,
    /// (b) the same with MPI_Init/MPI_Finalize around it.
    pub mpi_init_ms: Option<Spread>,
    /// The child's own phase times (median run of (a), and of (b)).
    pub phases: Option<Phases>,
    pub phases_mpi_init: Option<Phases>,
    /// Peak RSS of a floor process (largest seen), KiB.
    pub maxrss_kb: u64,
    /// (c).
    pub per_call: Option<PerCall>,
    /// Why a part is missing.
    pub notes: Vec<String>,
}

pub(crate) fn probe(
    lib: &LibSpec,
    task: Task,
    timeout: Duration,
) -> Result<(Measured, Answer), String> {
    let p = Probe {
        lib: lib.path.clone(),
        abi: lib.abi.clone(),
        task,
    };
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let json = serde_json::to_string(&p).map_err(|e| e.to_string())?;
    // The environment a worker for this library gets (Open MPI: a private TMPDIR), kept
    // alive until the child is gone.
    let env = worker_env(&lib.path);
    let mut cmd = Cmd::new(exe);
    cmd.arg("__bench-probe")
        .arg(json)
        .envs(env.vars())
        .envs(lib.env.iter().map(|(k, v)| (k, v)));
    let m = measure(cmd, timeout).map_err(|e| e.to_string())?;
    drop(env);
    let answer = m
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix(MARK))
        .and_then(|j| serde_json::from_str::<Answer>(j).ok());
    match answer {
        Some(a) => Ok((m, a)),
        None if m.timed_out() => Err(format!("no answer within {timeout:?}")),
        None => Err(format!(
            "no answer ({:?}); stderr: {}",
            m.ended,
            m.last_words()
        )),
    }
}

/// `runs` fresh enumerations after one discarded warm-up (page cache, dynamic linker
/// caches): wall and CPU spreads, the median run's phases, peak RSS.
pub type Enumerations = (Spread, Spread, Phases, u64);

pub fn enumerations(
    lib: &LibSpec,
    mpi_init: bool,
    runs: usize,
    timeout: Duration,
) -> Result<Enumerations, String> {
    let task = Task::Enumerate { mpi_init };
    probe(lib, task.clone(), timeout)?;
    let mut got: Vec<(f64, f64, Phases)> = Vec::new();
    let mut rss = 0;
    for _ in 0..runs.max(1) {
        match probe(lib, task.clone(), timeout)? {
            (m, Answer::Enumerated(ph)) => {
                // VmHWM from the child itself: wait4's maxrss also holds the bench's own
                // peak, carried across exec.
                rss = rss.max(if ph.hwm_kb > 0 {
                    ph.hwm_kb
                } else {
                    m.usage.maxrss_kb
                });
                got.push((ms(m.wall), ms(m.usage.cpu()), ph));
            }
            (_, Answer::Failed(e)) => return Err(e),
            (_, other) => return Err(format!("unexpected answer {other:?}")),
        }
    }
    let wall = Spread::of(got.iter().map(|g| g.0).collect());
    let cpu = Spread::of(got.iter().map(|g| g.1).collect());
    got.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median = got.swap_remove(got.len() / 2).2;
    Ok((wall, cpu, median, rss))
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Measures (a), (b) and (c) for one library. A part that fails is noted, not fatal:
/// a library whose MPI_Init cannot run as a singleton still has an (a).
pub fn measure_floor(
    lib: &LibSpec,
    runs: usize,
    per_call_ms: u64,
    timeout: Duration,
) -> Result<Floor, BenchError> {
    let mut f = Floor::default();
    match enumerations(lib, false, runs, timeout) {
        Ok((wall, cpu, ph, rss)) => {
            f.enumerate_ms = Some(wall);
            f.enumerate_cpu_ms = Some(cpu);
            f.phases = Some(ph);
            f.maxrss_kb = rss;
        }
        // Without (a) there is no floor to compare with: the library cannot be benched.
        Err(e) => return Err(BenchError::Floor(lib.name.clone(), e)),
    }
    match enumerations(lib, true, runs, timeout) {
        Ok((wall, _, ph, rss)) => {
            f.mpi_init_ms = Some(wall);
            f.phases_mpi_init = Some(ph);
            f.maxrss_kb = f.maxrss_kb.max(rss);
        }
        Err(e) => f.notes.push(format!("floor with MPI_Init: {e}")),
    }
    match probe(
        lib,
        Task::PerCall {
            budget_ms: per_call_ms,
        },
        timeout,
    ) {
        Ok((_, Answer::PerCall(p))) => f.per_call = Some(p),
        Ok((_, other)) => f.notes.push(format!("per-call: {other:?}")),
        Err(e) => f.notes.push(format!("per-call: {e}")),
    }
    Ok(f)
}
