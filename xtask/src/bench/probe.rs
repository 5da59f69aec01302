//! What the bench's child process (`child`, `mpit-conform __bench-probe JSON`) is asked
//! and what it answers: the task, the marked JSON line's contents and the throughput
//! figures it carries. Types only, so the parent's side (`floor`, `throughput`) and the
//! child's side depend on this module and not on each other.

use super::Spread;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Prefix of the result line on the child's stdout (the library may print too).
pub const MARK: &str = "@@mpit-bench@@ ";

/// What the child is asked to do (its command-line argument).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Probe {
    pub lib: PathBuf,
    pub abi: String,
    pub task: Task,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Task {
    /// Floor (a), or (b) with `mpi_init`.
    Enumerate { mpi_init: bool },
    /// Per-call costs (c): each loop runs for about `budget_ms`.
    PerCall { budget_ms: u64 },
    /// Property-test sequences per second (`super::throughput`): `runs` searches of
    /// `cases` sequences, in this process or through a worker.
    Props {
        remote: bool,
        runs: usize,
        cases: u32,
        max_len: usize,
    },
    /// Executions per second of one fuzz oracle (`super::throughput`).
    Fuzz {
        oracle: String,
        corpus: PathBuf,
        windows: usize,
        window_ms: u64,
    },
}

/// Phase times of one enumeration, microseconds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Phases {
    /// dlopen, ABI detection and profile (`Target::open`).
    pub open_us: u64,
    pub mpi_init_us: u64,
    pub init_thread_us: u64,
    /// Every cvar, pvar, category, enum (and item), event and source get_info.
    pub enumerate_us: u64,
    pub finalize_us: u64,
    pub mpi_finalize_us: u64,
    /// get_info calls made while enumerating (two per entry: lengths, then strings).
    pub calls: u64,
    /// Entries read: cvars, pvars, categories, enums, events, sources.
    pub entries: [u64; 6],
    /// The process's peak RSS (VmHWM) at the end, KiB.
    #[serde(default)]
    pub hwm_kb: u64,
}

/// One timed loop of the per-call task.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Loop {
    pub call: String,
    pub iterations: u64,
    pub ns_per_call: f64,
}

/// What the per-call task found.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PerCall {
    pub loops: Vec<Loop>,
    /// Why a loop is missing (no cvar, no pvar, no readable pvar, ...).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Answer {
    Enumerated(Phases),
    PerCall(PerCall),
    Throughput(Measured),
    Failed(String),
}

/// One property-test engine's figures.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PropsFigures {
    /// `in-process` or `worker`.
    pub engine: String,
    /// Sequences generated per run, longest sequence (proptest draws lengths 1..=max).
    pub cases: u32,
    pub max_len: usize,
    pub runs: Vec<PropsRun>,
    pub per_s: Spread,
    /// /proc/loadavg when the child started.
    pub load: Vec<f64>,
}

/// One `props::search` run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PropsRun {
    pub sequences: u64,
    /// Generated calls (closing calls not counted), and calls made (with them).
    pub ops: u64,
    pub calls: u64,
    pub elapsed_ms: f64,
    pub per_s: f64,
    /// Worker processes started (the worker engine).
    pub workers: u64,
    /// Divergences: a failure found, or warnings (none expected on the reference).
    pub divergences: u64,
}

/// One fuzz oracle's figures.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FuzzFigures {
    pub oracle: String,
    pub seeds: usize,
    pub generated: usize,
    pub mean_bytes: f64,
    /// Executions and milliseconds of each timed window.
    pub windows: Vec<(u64, f64)>,
    pub exec_per_s: Spread,
    pub load: Vec<f64>,
}

/// The child's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Measured {
    Props(PropsFigures),
    Fuzz(FuzzFigures),
}
