//! What the supervisor and a suite worker say to each other: one JSON document per
//! line, on a channel of their own (`target::ffi::stdio`: the worker moves it off the
//! stdin/stdout it shares with the library before the library is loaded). The marker
//! stays on every line as a second line of defence: a line without it is not a message.

use crate::differential::{Call, Mirror, Obs};
use crate::judge::inventory::{Entry, Inventory};
use crate::judge::return_codes::RcLog;
use mpit_report::capabilities::Step;
use mpit_spec::specs::Source;
use mpit_spec::verdict::{CaseResult, Json};
use mpit_target::catalog::CatalogDump;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Prefix of every protocol line on the worker's stdout.
pub const MARK: &str = "@@mpit-conform@@ ";

/// The line a zygote (`runner::zygote`) writes to its stderr after reaping a child:
/// what the child wrote is before it.
pub const CHILD_END: &str = "@@mpit-zygote child reaped";

/// Given on the worker's command line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hello {
    pub lib: PathBuf,
    pub abi: String,
    pub force: bool,
    pub strict: bool,
    /// Where the cases come from (the worker loads the same cases; jobs name them by id).
    pub specs: Source,
    /// Call MPI_Init (singleton) before anything else.
    pub mpi_init: bool,
    /// Serve one job, then exit (cases that change process state for good).
    pub single_job: bool,
    /// Hold one MPI_T_init_thread for the worker's whole life, so cases nest inside it
    /// and none depends on re-initialization (which two real libraries get wrong: a case
    /// of its own checks it, in a process of its own). Off for `init: manual` cases.
    pub base_init: bool,
    /// Catalog spots a worker reading its own inventory passes over: the entries that
    /// killed or stalled the supervisor's readers (`target::reading`).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub skip: BTreeSet<String>,
    /// Variables the worker's environment has besides its family's (`--model-check`:
    /// the catalog the reference serves, and no injected fault).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
    /// The descriptor of the worker's page of the call in flight (`target::ffi::page`),
    /// inherited from the supervisor; set by `child.rs` for each worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<i32>,
    /// The abstract socket the worker comes back on when the library takes its channel
    /// (`target::ffi::stdio`); set by `child.rs` for each worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rendezvous: Option<String>,
    /// A zygote (`runner::zygote`): it starts as any worker (never with MPI_Init) and
    /// then answers [`ToWorker::Fork`] with a child that serves as a fresh worker would.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zygote: bool,
    /// A `fuzz-props` worker: its sequences' observations go to a log
    /// (`target::ffi::log`), not one line per call; `child.rs` makes the log.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sequences: bool,
    /// The descriptor of that log, inherited from the supervisor; set by `child.rs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<i32>,
}

impl Hello {
    /// A worker of `lib` that runs no case of the suite (a catalog read, differential
    /// sequences): not strict, no MPI_Init, one job, inside a base init.
    pub fn bare(lib: PathBuf, abi: String, force: bool) -> Hello {
        Hello {
            lib,
            abi,
            force,
            strict: false,
            specs: Default::default(),
            mpi_init: false,
            single_job: true,
            base_init: true,
            skip: Default::default(),
            env: Vec::new(),
            page: None,
            rendezvous: None,
            zygote: false,
            sequences: false,
            log: None,
        }
    }
}

/// A zygote's child that becomes an MPI_Init worker (`ToWorker::Fork::mpi_init`). It is
/// forked by the zygote without MPI_T initialized, so that it calls MPI_Init and the
/// base init in the exec'd worker's order: Open MPI 4.1.4 numbers its control variables
/// differently when MPI_T was initialized before MPI_Init, and the inventory the job
/// is given was read in that order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MpiInitChild {
    /// The child's `Hello::skip`.
    pub skip: BTreeSet<String>,
    /// The child's `Hello::base_init`.
    pub base_init: bool,
}

/// Supervisor → worker, one per line on stdin.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ToWorker {
    /// Read and send the inventory, passing over the calls in `skip` (each a call
    /// that killed or stalled an earlier reader: `target::reading`).
    Inventory {
        #[serde(default)]
        skip: BTreeSet<String>,
    },
    /// Read and send the decoded catalog (`mpit-conform catalog`), passing over `skip`.
    Catalog {
        #[serde(default)]
        skip: BTreeSet<String>,
    },
    /// Run a case on these subjects (none: the case has no `for_each`).
    Job {
        job: u64,
        case: String,
        subjects: Vec<Option<Entry>>,
        /// The supervisor's inventory, for workers that must not read one themselves
        /// (no base init: reading would initialize MPI_T before the case does).
        inventory: Option<Box<Inventory>>,
        /// The inventory is the one the worker's zygote keeps (`Fork::keep`): not sent
        /// again, nor parsed again by each child.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        kept: bool,
    },
    /// The mirror the differential ops are numbered in (`differential::Mirror`), once
    /// before the first `Ops`.
    Mirror(Box<Mirror>),
    /// Carry out these differential ops in order, one `Observed` each.
    Ops {
        seq: u64,
        ops: Vec<Call>,
    },
    /// A zygote forks a child (`runner::zygote`) that serves the next messages as a
    /// fresh worker of the zygote's hello would, `single_job` or not, until it exits;
    /// the zygote answers `Forked`, then `ChildEnded` once it has reaped the child (or
    /// `NoFork`). `area`: the cases to parse before forking, once for every child.
    /// With `then`, the child serves that message first (and the zygote sends no
    /// `Forked`: the child's answers may come before it): one line per sequence.
    /// With `mpi_init`, the child starts as an exec'd MPI_Init worker does (MPI_Init,
    /// then the base init) and answers `MpiInitialized`; the zygote itself never calls
    /// MPI_Init.
    Fork {
        single_job: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        area: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        then: Option<Box<ToWorker>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mpi_init: Option<MpiInitChild>,
        /// The supervisor's inventory, kept by the zygote for its children's jobs
        /// (`Job::kept`) until another comes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        keep: Option<Box<Inventory>>,
    },
    /// Run the capability probe (`runner::capability_probe`): one `Probe` per phase, then
    /// `ProbeDone`.
    Capabilities,
    Quit,
}

/// [`ToWorker::Job`] borrowed from the supervisor's plan, for sending: the same JSON
/// line, without a copy of the subjects and of the inventory per job (a manual-init
/// job carries the whole inventory, and there is one per subject).
#[derive(Debug, Serialize)]
pub enum ToWorkerRef<'a> {
    Job {
        job: u64,
        case: &'a str,
        subjects: Vec<Option<&'a Entry>>,
        inventory: Option<&'a Inventory>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        kept: bool,
    },
}

/// Facts about the target, sent once the library is open.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TargetFacts {
    pub library_version: String,
    pub mpi_version: Option<(i32, i32)>,
    pub family: String,
    pub profile: String,
    pub detection: Option<String>,
    /// MPI-4.1 entry points the library does not export.
    pub unsupported: Vec<String>,
    /// Objects the profile names that the library does not export.
    pub unresolved: Vec<String>,
    /// The worker's start (exec, dlopen, MPI_Init when asked, the base
    /// MPI_T_init_thread): the time its main thread ran on a core, and the time it was
    /// ready to run but waited for one (`/proc/self/schedstat`)...
    #[serde(default)]
    pub start_cpu_us: u64,
    #[serde(default)]
    pub start_run_delay_us: u64,
    /// ...and its wall time, from spawn to `Ready` (filled in by the supervisor). The
    /// rest of the wall time the start slept: a start that mostly sleeps lets more
    /// workers run than there are cores (`runner::lanes`).
    #[serde(default)]
    pub start_wall_us: u64,
    /// A zygote without MPI_T: the shared objects it holds for its children
    /// (`zygote::hold_what_init_loads`).
    #[serde(default)]
    pub held_objects: u64,
}

/// Worker → supervisor.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum FromWorker {
    /// The worker is about to make this call while starting (loading the library,
    /// MPI_Init, the base MPI_T_init_thread) or reading the catalog: a crash or hang
    /// before the next message is pinned on it.
    Calling(String),
    Ready(Box<TargetFacts>),
    /// The target cannot be loaded or started (the run exits 2).
    CannotRun(String),
    Inventory(Box<Inventory>),
    Catalog(Box<CatalogDump>),
    /// Subject `n` of the job is about to run (so a crash can be pinned on it).
    Started {
        job: u64,
        n: usize,
    },
    /// Subject `n` is about to make an `erroneous` call (its text), or has returned from
    /// it (`None`): a crash or hang in between, or later in the same subject (the
    /// behaviour is undefined from that call on, R-GEN-3), is judged at the case's level.
    Erroneous {
        job: u64,
        n: usize,
        call: Option<String>,
    },
    Result {
        job: u64,
        n: usize,
        result: Box<CaseResult>,
    },
    /// Op `n` of differential sequence `seq` returned this: a line of the worker's log
    /// of observations (`Hello::sequences`), or on the channel when it has none or the
    /// log is full.
    Observed {
        seq: u64,
        n: usize,
        obs: Box<Obs>,
    },
    /// The sequence is over.
    OpsDone {
        seq: u64,
    },
    /// A phase of the capability probe is over: what it saw.
    Probe(Box<Step>),
    /// The capability probe is over.
    ProbeDone,
    /// A zygote forked the child that answers from now on.
    Forked {
        pid: u32,
    },
    /// A zygote did not fork (a thread of the library's, say): why.
    NoFork(String),
    /// A child forked with `Fork::mpi_init`: its MPI_Init returned `MPI_SUCCESS`.
    MpiInitialized,
    /// A zygote's child ended (reaped with wait4): its exit code or signal.
    ChildEnded {
        #[serde(default)]
        code: Option<i32>,
        #[serde(default)]
        signal: Option<i32>,
    },
    /// The job is over; `clean` when MPI_T is finalized again and the worker can be
    /// reused.
    Done {
        job: u64,
        log: RcLog,
        clean: bool,
    },
}

impl FromWorker {
    pub fn line(&self) -> String {
        let body = Json::verbatim(|| serde_json::to_string(self));
        format!("{MARK}{}", body.unwrap_or_default())
    }
    /// A protocol line, or `None` for the library's own output.
    pub fn parse(line: &str) -> Option<Result<FromWorker, String>> {
        let body = line.strip_prefix(MARK)?;
        let m = Json::verbatim(|| serde_json::from_str(body));
        Some(m.map_err(|e| format!("bad message from worker: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpit_spec::cases::SubjectKind;

    /// The borrowed job is the same line as the owned one (the worker parses `ToWorker`).
    #[test]
    fn a_borrowed_job_serializes_as_the_owned_one() {
        let entry = |index: i32, name: &str| Entry {
            kind: SubjectKind::Cvar,
            index,
            name: name.into(),
            desc: "d".into(),
            attrs: [("scope".to_string(), "MPI_T_SCOPE_LOCAL".to_string())].into(),
            vars: [("index".to_string(), i64::from(index))].into(),
            members: Default::default(),
            raw: Default::default(),
        };
        let inv = Inventory {
            entries: vec![entry(0, "a"), entry(1, "b\"c")],
            ..Inventory::default()
        };
        let e = &inv.entries[0];
        let owned = ToWorker::Job {
            job: 7,
            case: "cvars.x".into(),
            subjects: vec![Some(e.clone()), None],
            inventory: Some(Box::new(inv.clone())),
            kept: false,
        };
        let borrowed = ToWorkerRef::Job {
            job: 7,
            case: "cvars.x",
            subjects: vec![Some(e), None],
            inventory: Some(&inv),
            kept: false,
        };
        let a = serde_json::to_string(&owned).expect("owned");
        assert_eq!(serde_json::to_string(&borrowed).expect("borrowed"), a);
        let none = ToWorkerRef::Job {
            job: 1,
            case: "c",
            subjects: vec![None],
            inventory: None,
            kept: true,
        };
        let back: ToWorker =
            serde_json::from_str(&serde_json::to_string(&none).expect("json")).expect("parses");
        assert!(matches!(
            back,
            ToWorker::Job {
                job: 1,
                inventory: None,
                kept: true,
                ..
            }
        ));
    }
}
