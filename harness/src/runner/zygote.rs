//! Zygotes (fork-speed workers): a worker that has done what every job has in common (parsed the
//! cases, exec'd the harness, loaded the library, detected its ABI, resolved its
//! symbols; for the second kind also `MPI_T_init_thread`) and then forks one child per
//! job that needs a pristine process. The child serves exactly as a fresh worker does:
//! the same protocol on the channel it inherits, the same page of the call in flight
//! (mapped shared, so the supervisor reads the child's call after its death), the same
//! guard pages and per-call deadline, its output on the zygote's stderr, which the
//! supervisor cuts per child (`Tail::clear`, [`CHILD_END`]). The zygote reaps the child
//! with wait4 (`mpit_process::fork`) and says how it ended (`FromWorker::ChildEnded`);
//! `runner::child` turns that into the death a worker's end would be.
//!
//! Fork only while the zygote runs one thread (`/proc/self/task`, checked before each
//! fork): a library that started a thread gets exec'd workers as before, and the
//! report says so (`workers_path`). Never after MPI_Init: a zygote never calls it; an
//! MPI_Init job's child is forked by the zygote without MPI_T initialized and calls
//! MPI_Init, then the base init, in the exec'd worker's order (`MpiInitChild`). A zygote that cannot
//! start, refuses to fork, or whose child lost its channel to the library switches
//! that kind of zygote off for the rest of the run, and a child whose MPI_Init fails,
//! dies or stalls switches MPI_Init children off; the job goes to an exec'd worker, so
//! the verdicts are the exec'd path's.

use super::child::Worker;
use super::protocol::{FromWorker, Hello, MpiInitChild, ToWorker, CHILD_END};
use super::queue::Job;
use mpit_process::{exit_child, fork as fork_process, Ended, Forked};
use mpit_target::ffi::{in_flight, page, preload, stdio};
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Worker side, a zygote's `Fork`: whether this is the child (which goes on serving);
/// the zygote itself returns once the child is reaped and reported.
/// `forked`: say `Forked` (not when the child answers at once: its lines could come
/// first).
pub fn fork(send: &dyn Fn(&FromWorker), forked: bool) -> bool {
    // What the last child left on the page was read by the supervisor after its
    // `ChildEnded`: cleared now, before the next child writes there.
    page::reset();
    match fork_process() {
        Err(e) => {
            send(&FromWorker::NoFork(e.to_string()));
            false
        }
        Ok(Forked::Child) => {
            // The rendezvous is the zygote's: a child whose channel the library takes
            // exits, its page saying so, and the supervisor runs the job exec'd.
            stdio::no_rendezvous();
            in_flight::forked();
            true
        }
        Ok(Forked::Parent(child)) => {
            if forked {
                send(&FromWorker::Forked { pid: child.pid() });
            }
            let ended = child.wait().map(|e| e.ended);
            eprintln!("{CHILD_END}");
            let (code, signal) = match ended {
                Ok(Ended::Exited(c)) => (Some(c), None),
                Ok(Ended::Signaled(s)) => (None, Some(s)),
                _ => (None, None),
            };
            send(&FromWorker::ChildEnded { code, signal });
            false
        }
    }
}

/// How long a plain zygote waits for the child that says what the library's
/// `MPI_T_init_thread` loads (Open MPI 4.1.4: 0.22 s); well under the shortest
/// `--timeout`, which bounds the zygote's start.
const HOLD_PROBE: Duration = Duration::from_secs(1);

/// Worker side, a plain zygote before it says `Ready`: holds the shared objects the
/// library's `MPI_T_init_thread` loads (`ffi::preload`: its children find them loaded,
/// and let go of them at their own first init), as read from a child that makes the
/// init (`init`) and exits: the zygote itself never initializes. A child that dies, or
/// takes longer than [`HOLD_PROBE`], leaves nothing held: the children load what they
/// load themselves.
pub fn hold_what_init_loads(init: &dyn Fn()) -> usize {
    let before: BTreeSet<PathBuf> = preload::loaded_objects().into_iter().collect();
    let Ok((mut ours, mut theirs)) = UnixStream::pair() else {
        return 0;
    };
    let child = match fork_process() {
        Ok(Forked::Child) => {
            drop(ours);
            init();
            let mut text = String::new();
            for p in preload::loaded_objects() {
                if !before.contains(&p) {
                    text.push_str(&p.to_string_lossy());
                    text.push('\n');
                }
            }
            let _ = theirs.write_all(text.as_bytes());
            exit_child(0)
        }
        Ok(Forked::Parent(child)) => child,
        Err(_) => return 0,
    };
    drop(theirs);
    let mut text = String::new();
    let read = ours
        .set_read_timeout(Some(HOLD_PROBE))
        .and_then(|()| ours.read_to_string(&mut text));
    if read.is_err() {
        child.kill();
    }
    let clean = matches!(child.wait(), Ok(e) if e.ended == Ended::Exited(0));
    // The child's output, and what it left on the page, are no child's of the run.
    eprintln!("{CHILD_END}");
    page::reset();
    match (read, clean) {
        (Ok(_), true) => preload::hold(&text.lines().map(PathBuf::from).collect::<Vec<_>>()),
        _ => 0,
    }
}

/// The two kinds: MPI_T not initialized (`init: manual` cases, MPI_Init jobs,
/// fuzz-props' lifecycle mode), and held initialized (the base init of `init: auto`
/// cases).
pub const PLAIN: usize = 0;
pub const INITIALIZED: usize = 1;

/// The kind of zygote whose children serve a worker with or without the base init and
/// MPI_Init: an MPI_Init worker's child makes its own base init, after MPI_Init
/// (`MpiInitChild`).
pub fn kind(base_init: bool, mpi_init: bool) -> usize {
    match base_init && !mpi_init {
        true => INITIALIZED,
        false => PLAIN,
    }
}

/// The kind of zygote whose children serve `job` ([`kind`]).
pub fn kind_for(job: &Job) -> usize {
    kind(job.base_init, job.mpi_init)
}

/// What the lanes of a run share about zygotes.
#[derive(Default)]
pub struct Shared {
    /// Zygotes asked for (`--workers fork`, the default).
    pub enabled: bool,
    /// A kind switched off for the rest of the run.
    off: [AtomicBool; 2],
    /// MPI_Init in forked children switched off for the rest of the run.
    mpi_init_off: AtomicBool,
    /// Why, one line each.
    notes: Mutex<BTreeSet<String>>,
    /// Children forked.
    pub forked: AtomicU64,
    /// Of those, the ones that called MPI_Init.
    pub forked_mpi_init: AtomicU64,
    /// Zygotes started (exec'd workers themselves).
    pub started: AtomicU64,
    /// The most shared objects a zygote without MPI_T held (`TargetFacts::held_objects`).
    pub held: AtomicU64,
}

impl Shared {
    pub fn new(enabled: bool) -> Arc<Shared> {
        Arc::new(Shared {
            enabled,
            ..Shared::default()
        })
    }

    /// Switches `kind` off for the rest of the run, saying why.
    pub fn off(&self, kind: usize, why: String) {
        self.off[kind].store(true, Ordering::SeqCst);
        let name = ["plain", "initialized"][kind];
        if let Ok(mut n) = self.notes.lock() {
            n.insert(format!("{name} zygote off: {why}"));
        }
    }

    /// Switches MPI_Init in forked children off for the rest of the run, saying why.
    fn mpi_init_off(&self, why: String) {
        self.mpi_init_off.store(true, Ordering::SeqCst);
        if let Ok(mut n) = self.notes.lock() {
            n.insert(format!("MPI_Init in forked children off: {why}"));
        }
    }

    /// Which path the run's workers took, for report.json's `workers_path`: `exec`
    /// (`--workers exec`), `fork`, or `fork+exec: <why the fallback>`.
    pub fn path(&self) -> String {
        if !self.enabled {
            return "exec".into();
        }
        let notes = self.notes.lock().map(|n| n.clone()).unwrap_or_default();
        match notes.is_empty() {
            true => "fork".into(),
            false => {
                let why: Vec<String> = notes.into_iter().collect();
                format!("fork+exec: {}", why.join("; "))
            }
        }
    }
}

/// One lane's idle zygotes.
pub struct Zygotes {
    hello: Hello,
    timeout: Duration,
    stop: Arc<AtomicBool>,
    shared: Arc<Shared>,
    /// Idle, or with a child that ends by itself (`put_ending`): reaped at the next fork.
    idle: [Option<(Worker, bool)>; 2],
    /// The catalog spots each kind's zygote passes over (`Hello::skip`).
    skips: [BTreeSet<String>; 2],
    /// Sent to each zygote once started (fuzz-props' mirror), for its children.
    first: Option<ToWorker>,
}

impl Zygotes {
    pub fn new(
        hello: &Hello,
        timeout: Duration,
        stop: Arc<AtomicBool>,
        shared: Arc<Shared>,
    ) -> Zygotes {
        Zygotes {
            hello: hello.clone(),
            timeout,
            stop,
            shared,
            idle: [None, None],
            skips: Default::default(),
            first: None,
        }
    }

    /// A message each zygote gets once started, before its first fork.
    pub fn first(&mut self, m: ToWorker) {
        self.first = Some(m);
    }

    /// A zygote of `kind` with a fresh child forked, which serves the next messages
    /// (one job when `single_job`): for `job`, with its area parsed in the zygote and
    /// its `skip`, and for an MPI_Init job after the child's MPI_Init (and its base
    /// init); `None`: run the job on an exec'd worker.
    pub fn fork(
        &mut self,
        kind: usize,
        single_job: bool,
        job: Option<&Job>,
        then: Option<&ToWorker>,
    ) -> Option<Worker> {
        static NO_SKIP: BTreeSet<String> = BTreeSet::new();
        let area = job.and_then(|j| j.case.split('.').next());
        let skip = job.map_or(&NO_SKIP, |j| &*j.skip);
        // `Some(base_init)`: the child starts with MPI_Init, then the base init if true.
        let mpi_init = job.and_then(|j| j.mpi_init.then_some(j.base_init));
        let calls_mpi_init = job.is_some_and(|j| j.calls_mpi_init);
        if !self.shared.enabled
            || self.shared.off[kind].load(Ordering::SeqCst)
            || (calls_mpi_init && self.mpi_init_is_off())
        {
            return None;
        }
        let idle = match self.idle[kind].take() {
            Some((mut w, true)) => {
                let _ = w.end_child(false);
                Some(w).filter(|w| !w.is_dead())
            }
            other => other.map(|(w, _)| w),
        };
        let mut w = match idle {
            // An MPI_Init child takes its `skip` in the `Fork`: any zygote will do.
            Some(w) if mpi_init.is_some() || &self.skips[kind] == skip => w,
            _ => {
                if mpi_init.is_none() {
                    self.skips[kind] = skip.clone();
                }
                let hello = Hello {
                    zygote: true,
                    mpi_init: false,
                    single_job: false,
                    base_init: kind == INITIALIZED,
                    skip: self.skips[kind].clone(),
                    ..self.hello.clone()
                };
                self.shared.started.fetch_add(1, Ordering::SeqCst);
                let started = Worker::start(&hello, self.timeout, self.stop.clone())
                    .map_err(|e| e.to_string())
                    .map(|(w, facts)| {
                        self.shared
                            .held
                            .fetch_max(facts.held_objects, Ordering::SeqCst);
                        w
                    })
                    .and_then(|mut w| match &self.first {
                        Some(m) => w.send(m).map(|()| w).map_err(|b| format!("{b:?}")),
                        None => Ok(w),
                    });
                match started {
                    Ok(w) => w,
                    Err(e) => {
                        self.shared.off(kind, format!("it did not start: {e}"));
                        return None;
                    }
                }
            }
        };
        let child = mpi_init.map(|base_init| MpiInitChild {
            skip: skip.clone(),
            base_init,
        });
        let keep = job.and_then(|j| j.inventory.as_ref());
        match w.fork(single_job, area, then, child, keep, self.timeout) {
            Ok(()) => {
                self.shared.forked.fetch_add(1, Ordering::SeqCst);
                // Before its steps or in one of them (`lifecycle.matrix.*`): either way
                // the child pays MPI_Init, the bench's floor (b).
                if calls_mpi_init {
                    self.shared.forked_mpi_init.fetch_add(1, Ordering::SeqCst);
                }
                Some(w)
            }
            Err(why) if mpi_init.is_some() => {
                self.shared.mpi_init_off(why);
                w.kill();
                None
            }
            Err(why) => {
                self.shared.off(kind, why);
                w.kill();
                None
            }
        }
    }

    /// Takes back a zygote whose child has ended (killed and dropped when it died).
    pub fn put(&mut self, kind: usize, mut w: Worker) {
        if w.alive() {
            self.idle[kind] = Some((w, false));
        }
    }

    /// Takes back a zygote whose child ends by itself (a single job or sequence done):
    /// its end is awaited at the next fork, while the supervisor does other work.
    pub fn put_ending(&mut self, kind: usize, w: Worker) {
        self.idle[kind] = Some((w, true));
    }

    /// A child died or stalled in MPI_Init: no more MPI_Init in forked children this
    /// run (a library that detects the fork, say).
    pub fn mpi_init_off(&self, why: String) {
        self.shared.mpi_init_off(why);
    }

    /// Whether MPI_Init in forked children is off for the rest of the run.
    fn mpi_init_is_off(&self) -> bool {
        self.shared.mpi_init_off.load(Ordering::SeqCst)
    }

    /// The library took a child's channel: no more zygotes of either kind this run.
    pub fn channel_taken(&self, call: Option<&str>) {
        let why = format!(
            "the library took a child's channel in {}",
            call.unwrap_or("no MPI_T call")
        );
        self.shared.off(PLAIN, why.clone());
        self.shared.off(INITIALIZED, why);
    }

    /// Ends the idle zygotes (at the lane's end).
    pub fn quit(&mut self) {
        for z in self.idle.iter_mut() {
            if let Some((mut w, ending)) = z.take() {
                if ending {
                    let _ = w.end_child(false);
                }
                let _ = w.quit();
            }
        }
    }
}

impl Drop for Zygotes {
    fn drop(&mut self) {
        self.quit();
    }
}
