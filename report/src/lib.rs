//! Reports: the product vendors gate releases on (docs/ARCHITECTURE.md, "Reports").
//! The crate `mpit-report`, with its
//! `capabilities` (the capability states a run records) and `exit_code` (the exit
//! codes a run ends with, which a report decides).
//!
//! The runner and the reports meet only through [`RunEvent`]s: a [`Builder`] turns the
//! stream into a [`Report`], which is the contract (`report.json`, documented in
//! `reports/README.md`). Every other output is rendered from a `Report` alone, so a report
//! read back from disk renders exactly like a fresh one.
//!
//! The CLI's flow, each step one call here:
//!
//! ```text
//! Waivers::load(file)?, json::read(baseline)?    before the run: bad input stops it early
//! Builder::new → event(..)* → finish()            the run
//! conclude(&mut report, out, junit, baseline, waivers)?
//!     = Waivers::apply + write_all + exit_code    report.json/.md/.html (+ JUnit), exit code
//! diff_command(old, new)?                          `mpit-conform diff`
//! write_matrix(&reports, out_dir)?                 several --lib
//! ```

#![forbid(unsafe_code)]

pub mod bug;
pub mod capabilities;
mod capability_cells;
mod commands;
pub mod diff;
mod escape;
pub mod exit_code;
pub mod findings;
pub mod history;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod matrix;
pub mod model_check;
mod order;
pub mod waivers;

pub use capability_cells::cell as capability_cell;
pub use commands::{
    conclude, diff_command, diff_exact_command, read_history, sha256_file, today, write_all,
    write_history, write_matrix, write_matrix_as, Concluded, Written,
};
pub use order::{natural_cmp, rank, result_order, worst};
pub use waivers::{WaiverOutcome, Waivers};

// The spec crate's modules under the paths the rest of mpit-conform uses.
use mpit_spec::{specs, verdict};

use crate::capabilities::Capabilities;
use crate::specs::Provenance;
use crate::verdict::{Area, CaseResult, Oracle, Status};
use mpit_vocab::yaml::YamlError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// The version of the `report.json` format this build writes and reads. Bumped only when
/// a stable key changes meaning or disappears (reports/README.md "Versioning").
pub const FORMAT_VERSION: u32 = 1;

/// Everything that can go wrong writing or reading reports.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not an mpit-conform report: {message}", path.display())]
    NotAReport { path: PathBuf, message: String },
    #[error("{}: format_version {found}, this mpit-conform reads {FORMAT_VERSION}", path.display())]
    FormatVersion { path: PathBuf, found: u64 },
    #[error(transparent)]
    Waivers(#[from] YamlError),
    #[error("cannot render JUnit XML: {0}")]
    Junit(#[from] quick_junit::SerializeError),
    #[error("cannot serialize the report: {0}")]
    Serialize(#[from] serde_json::Error),
}

/// The library under test, as the runner found it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetInfo {
    /// The path given with `--lib`.
    pub path: String,
    /// Hex SHA-256 of the file ([`sha256_file`]): which build was judged.
    pub sha256: String,
    /// `mpich` | `openmpi` | `standard`.
    pub abi_family: String,
    /// The ABI profile used (a bundled name or a file).
    pub abi_profile: String,
    /// Why this family: the symbols or strings that decided it, when auto-detected.
    #[serde(default)]
    pub detection: Option<String>,
    /// `MPI_Get_library_version`, verbatim (may span lines).
    pub library_version: String,
    /// `MPI_Get_version` as "major.minor", when the library answers.
    #[serde(default)]
    pub mpi_version: Option<String>,
    /// Catalog sizes: cvars, pvars, categories, enums, events, sources.
    #[serde(default)]
    pub counts: BTreeMap<String, i64>,
    /// Objects the ABI profile names that the library does not export (a profile that
    /// does not fit the library).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<String>,
}

/// The options the run was made with (so a report says how to reproduce it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunOptions {
    pub strict: bool,
    pub jobs: usize,
    pub timeout_ms: u64,
    /// `--case` globs; empty: every case.
    #[serde(default)]
    pub cases: Vec<String>,
    /// `--area` filters; empty: every area.
    #[serde(default)]
    pub areas: Vec<String>,
    pub abi: String,
    #[serde(default)]
    pub baseline: Option<String>,
    #[serde(default)]
    pub waivers: Option<String>,
    /// `--launcher`: the cross-rank run's launcher line (argv joined by spaces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launcher: Option<String>,
}

/// What the runner tells the reports, in order: one `Started`, results, one `Finished`.
// One `Started` per run: its size does not matter, boxing it would only burden the API.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunEvent {
    Started {
        target: TargetInfo,
        options: RunOptions,
        /// How many results the plan expects (an estimate when subjects expand at run time).
        planned: usize,
    },
    Result(CaseResult),
    Finished {
        interrupted: bool,
        /// What stopped the run before its end, when that was not Ctrl-C: `--max-time`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stopped_by: Option<String>,
    },
    /// How many worker processes the run started (sent before `Finished`; optional, so
    /// streams and reports without it stay valid).
    Workers(WorkerCount),
    /// What the capability probe found (optional, as `Workers`).
    Capabilities(Box<Capabilities>),
}

/// Worker processes a run started: every process that loaded the library, the
/// inventory readers and crash replacements included.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerCount {
    pub started: u64,
    /// Of those, the ones that called MPI_Init (before their steps or in one).
    pub with_mpi_init: u64,
    /// Workers forked by a zygote, besides those started.
    #[serde(default)]
    pub forked: u64,
    /// Of those, the ones that called MPI_Init after the fork.
    #[serde(default)]
    pub forked_mpi_init: u64,
    /// `fork`, `exec`, or `fork+exec: <why a zygote was switched off>`.
    #[serde(default)]
    pub path: Option<String>,
    /// Shared objects a zygote without MPI_T held for its children: what the library's
    /// `MPI_T_init_thread` loads (the most any zygote of the run held).
    #[serde(default)]
    pub zygote_held: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
    /// The cases the run used: their source, the spec bundle's hash and the MPI
    /// standard they target (absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specs: Option<Provenance>,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: "mpit-conform".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            specs: None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: String,
    pub os: String,
    pub arch: String,
    pub cores: usize,
}

impl Host {
    /// This machine. The hostname is read from procfs rather than gethostname(2), which
    /// would need `unsafe` outside `target::ffi` (library/src/ffi/).
    pub fn current() -> Host {
        let hostname = ["/proc/sys/kernel/hostname", "/etc/hostname"]
            .iter()
            .find_map(|p| {
                let s = std::fs::read_to_string(p).ok()?;
                let s = s.trim();
                (!s.is_empty()).then(|| s.to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        Host {
            hostname,
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// Counts of a report, recomputable from its results ([`Summary::of`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub total: usize,
    /// All eight statuses, zeros included, so scripts can index without a default.
    pub by_status: BTreeMap<Status, usize>,
    /// Only areas with results; within an area all eight statuses.
    pub by_area: BTreeMap<Area, BTreeMap<Status, usize>>,
    /// Results a waiver matched (still counted under their status above).
    #[serde(default)]
    pub waived: usize,
}

impl Summary {
    /// The counts as the run's last lines say them: each status that occurred, in the
    /// statuses' order, then the total (`12491 pass, 2 fail, 1604 warn, 131 skip (14228
    /// total)`).
    pub fn line(&self) -> String {
        let by: Vec<String> = self
            .by_status
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        format!("{} ({} total)", by.join(", "), self.total)
    }
}

fn zero_counts() -> BTreeMap<Status, usize> {
    Status::ALL.iter().map(|s| (*s, 0)).collect()
}

impl Summary {
    pub fn of(results: &[CaseResult]) -> Summary {
        let mut s = Summary {
            total: results.len(),
            by_status: zero_counts(),
            by_area: BTreeMap::new(),
            waived: 0,
        };
        for r in results {
            *s.by_status.entry(r.status).or_default() += 1;
            *s.by_area
                .entry(r.area)
                .or_insert_with(zero_counts)
                .entry(r.status)
                .or_default() += 1;
            s.waived += usize::from(r.waived.is_some());
        }
        s
    }

    pub fn count(&self, status: Status) -> usize {
        self.by_status.get(&status).copied().unwrap_or(0)
    }
}

/// `report.json`: one run against one library.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub format_version: u32,
    pub tool: Tool,
    /// RFC 3339, UTC.
    pub started: String,
    pub finished: String,
    pub host: Host,
    /// The run was stopped (Ctrl-C, `--max-time`, or the runner ended without saying it
    /// finished): the results are a part of the plan.
    pub interrupted: bool,
    /// What stopped it when that was not Ctrl-C (`--max-time 5m`): the cases it did not
    /// finish are `timeout` results, so the verdict is complete (exit 1, not 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// How many results were planned; compare with `summary.total`.
    #[serde(default)]
    pub planned: usize,
    pub target: TargetInfo,
    pub options: RunOptions,
    pub summary: Summary,
    /// What `--waivers` did, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waivers: Option<WaiverOutcome>,
    /// Worker processes started, when the runner said (absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers_started: Option<u64>,
    /// Of those, the ones that called MPI_Init, before their steps or in one of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers_started_mpi_init: Option<u64>,
    /// Workers a zygote forked (a pristine process without an exec); absent in
    /// older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers_forked: Option<u64>,
    /// Of those, the ones that called MPI_Init after the fork, before their steps or in
    /// one of them (earlier reports counted only the former); absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers_forked_mpi_init: Option<u64>,
    /// How the workers were made: `exec`, `fork`, or `fork+exec: <why a zygote was
    /// switched off>` (a library that started a thread, say); absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers_path: Option<String>,
    /// Shared objects the zygote without MPI_T held for its children, as its probe found
    /// the library's `MPI_T_init_thread` loading them (runner::zygote); absent in older
    /// reports and with `--workers exec`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zygote_held_objects: Option<u64>,
    /// Events, sources and the MPI-4.0 functions: absent, empty, present, alive
    /// (reports/README.md "Capabilities"; absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Capabilities>,
    /// `--model-check`: the reference's run on this library's catalog, summed up (each
    /// finding's own is its result's `model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_check: Option<model_check::Summary>,
    pub results: Vec<CaseResult>,
}

/// RFC 3339 UTC, to the second: the form of `started` / `finished`.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// Collects [`RunEvent`]s into a [`Report`].
#[derive(Debug)]
pub struct Builder {
    started: String,
    finished: Option<String>,
    target: TargetInfo,
    options: RunOptions,
    planned: usize,
    results: Vec<CaseResult>,
    interrupted: Option<bool>,
    stopped_by: Option<String>,
    workers: Option<WorkerCount>,
    capabilities: Option<Capabilities>,
}

impl Report {
    /// The line a run ends its output with (`results: 13277 pass, 2 fail, … (15015
    /// total)`): the CLI prints it, and the README's example is checked against it.
    pub fn results_line(&self) -> String {
        let interrupted = if self.interrupted {
            " — interrupted"
        } else {
            ""
        };
        format!("results: {}{interrupted}", self.summary.line())
    }
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    pub fn new() -> Self {
        Builder {
            started: now_rfc3339(),
            finished: None,
            target: TargetInfo::default(),
            options: RunOptions::default(),
            planned: 0,
            results: Vec::new(),
            interrupted: None,
            stopped_by: None,
            workers: None,
            capabilities: None,
        }
    }

    pub fn event(&mut self, ev: RunEvent) {
        match ev {
            RunEvent::Started {
                target,
                options,
                planned,
            } => {
                self.target = target;
                self.options = options;
                self.planned = planned;
            }
            RunEvent::Result(r) => self.results.push(r),
            RunEvent::Finished {
                interrupted,
                stopped_by,
            } => {
                self.interrupted = Some(interrupted);
                self.stopped_by = stopped_by;
                self.finished = Some(now_rfc3339());
            }
            RunEvent::Workers(w) => self.workers = Some(w),
            RunEvent::Capabilities(c) => self.capabilities = Some(*c),
        }
    }

    /// The report. Results are put in a fixed order ([`result_order`]) because parallel workers finish in any order and reports must diff cleanly.
    /// Without a `Finished` event the run did not end normally: it is marked interrupted.
    pub fn finish(self) -> Report {
        let mut results = self.results;
        // Unstable: no scratch copy of the results at the run's peak of memory (7.7 MB
        // of Open MPI 4.1.4's 29,000); results of one (case, subject) come in any order
        // from parallel workers anyway.
        results.sort_unstable_by(result_order);
        Report {
            format_version: FORMAT_VERSION,
            tool: Tool::default(),
            started: self.started,
            finished: self.finished.unwrap_or_else(now_rfc3339),
            host: Host::current(),
            interrupted: self.interrupted.unwrap_or(true),
            stopped_by: self.stopped_by,
            planned: self.planned,
            summary: Summary::of(&results),
            target: self.target,
            options: self.options,
            waivers: None,
            workers_started: self.workers.as_ref().map(|w| w.started),
            workers_started_mpi_init: self.workers.as_ref().map(|w| w.with_mpi_init),
            workers_forked: self.workers.as_ref().map(|w| w.forked),
            workers_forked_mpi_init: self.workers.as_ref().map(|w| w.forked_mpi_init),
            workers_path: self.workers.as_ref().and_then(|w| w.path.clone()),
            zygote_held_objects: self
                .workers
                .as_ref()
                .filter(|w| w.path.as_deref() != Some("exec"))
                .map(|w| w.zygote_held),
            capabilities: self.capabilities,
            model_check: None,
            results,
        }
    }
}

/// Whether a result needs a human: the statuses exit codes and waivers are about
/// (fail, crash, timeout) plus `error`, where the harness could not judge.
pub fn is_unexpected(s: Status) -> bool {
    s.is_bad() || s == Status::Error
}

/// The serde name of an oracle (as in `report.json`).
pub fn oracle_name(o: Oracle) -> &'static str {
    match o {
        Oracle::Spec => "spec",
        Oracle::Differential => "differential",
        Oracle::RunWide => "run_wide",
    }
}

/// The key results are compared by across reports.
pub fn key(r: &CaseResult) -> (&str, &str) {
    (&r.case, &r.subject)
}

/// The process exit code for a run (reports/README.md "Exit codes"):
/// - 2 the verdict is incomplete: the run was interrupted, or a result is `error` (the
///   harness could not run that case) that is not waived;
/// - 1 a `fail`, `crash` or `timeout` that is not waived;
/// - 0 nothing unexpected.
///
/// With a baseline, a result counts only if the baseline does not already have an
/// unexpected status for the same (case, subject): the gate is "nothing got worse".
pub fn exit_code(report: &Report, baseline: Option<&Report>) -> u8 {
    let before: Option<HashMap<(&str, &str), Status>> =
        baseline.map(|b| b.results.iter().map(|r| (key(r), r.status)).collect());
    let counts = |r: &&CaseResult| {
        r.waived.is_none()
            && before
                .as_ref()
                .and_then(|m| m.get(&key(r)))
                .is_none_or(|old| !is_unexpected(*old))
    };
    let counted: Vec<&CaseResult> = report.results.iter().filter(counts).collect();
    // Stopped by --max-time: what did not finish is a `timeout`, the verdict is whole.
    let incomplete = report.interrupted && report.stopped_by.is_none();
    if incomplete || counted.iter().any(|r| r.status == Status::Error) {
        exit_code::CANNOT_RUN
    } else if counted.iter().any(|r| r.status.is_bad()) {
        exit_code::FINDINGS
    } else {
        exit_code::OK
    }
}

/// The one-line verdict the Markdown and HTML headers show, with the exit code it stands
/// for (that of [`exit_code`] without a baseline).
pub fn headline(r: &Report) -> (u8, String) {
    let open = |pred: fn(Status) -> bool| {
        r.results
            .iter()
            .filter(|x| pred(x.status) && x.waived.is_none())
            .count()
    };
    let bad = open(Status::is_bad);
    let errors = open(|s| s == Status::Error);
    let code = exit_code(r, None);
    let mut text = if r.interrupted {
        format!(
            "Interrupted after {} of {} planned results: {bad} fail/crash/timeout not waived",
            r.summary.total, r.planned
        )
    } else if errors > 0 {
        format!(
            "Incomplete: {errors} case(s) the harness could not run (error); \
             {bad} fail/crash/timeout not waived"
        )
    } else if bad > 0 {
        format!("{bad} unexpected: fail, crash or timeout not waived")
    } else {
        "Nothing unexpected".to_string()
    };
    if r.summary.waived > 0 {
        text.push_str(&format!(" ({} waived)", r.summary.waived));
    }
    (code, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_has_every_status() {
        let s = Summary::of(&[]);
        assert_eq!(s.by_status.len(), 8);
        assert!(s.by_area.is_empty());
    }

    #[test]
    fn oracle_names_match_serde() {
        for o in [Oracle::Spec, Oracle::Differential, Oracle::RunWide] {
            assert_eq!(serde_json::to_value(o).ok(), Some(oracle_name(o).into()));
        }
    }
}
