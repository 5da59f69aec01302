//! The supervisor's side of the suite: a pool of worker processes fed jobs from a
//! queue. A worker that dies by a signal turns the subject in flight into `crash`, one
//! silent past the deadline into `timeout` (its whole process group is killed); the
//! rest of its job goes back on the queue for a fresh worker. Results leave through a
//! channel; the pool never loads vendor code.

use super::protocol::{FromWorker, Hello, ToWorkerRef};
use super::queue::{fresh_first, Job, Queue};
use super::zygote::{self, Shared, Zygotes};
use crate::judge::return_codes::RcLog;
use mpit_spec::verdict::{CaseMeta, CaseResult, Oracle, Status};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

impl Job {
    fn result(&self, n: usize, status: Status, message: String) -> CaseResult {
        let meta = CaseMeta {
            case: &self.case,
            area: self.area,
            level: self.level,
            clause: &self.clause,
            oracle: Oracle::Spec,
        };
        CaseResult::new(
            meta,
            self.names.get(n).cloned().unwrap_or_default(),
            status,
            message,
        )
    }

    /// A crash or hang of the worker with its evidence.
    fn death(&self, n: usize, subject: Option<String>, d: &Death, timeout: Duration) -> CaseResult {
        let mut r = self.result(n, d.status, d.message.clone());
        if let Some(s) = subject {
            r.subject = s;
        }
        r.evidence.push(d.evidence(timeout));
        r
    }

    /// The subjects from `n` on, as a job of their own.
    fn rest(&self, n: usize) -> Option<Job> {
        (n < self.subjects.len()).then(|| Job {
            subjects: self.subjects[n..].to_vec(),
            names: self.names[n..].to_vec(),
            ..self.clone()
        })
    }
}

pub use super::child::{signal_name, Broke, Start, Worker};
pub use super::death::Death;

/// What the pool needs to start workers.
#[derive(Clone)]
pub struct Setup {
    pub hello: Hello,
    pub jobs: usize,
    pub timeout: Duration,
    /// Set by Ctrl-C: lanes stop taking jobs and waits for workers end.
    pub stop: Arc<AtomicBool>,
    /// The run's zygotes (`runner::zygote`): off with `--workers exec`.
    pub zygotes: Arc<Shared>,
}

impl Setup {
    /// One worker at a time asked one question of `lib` (`catalog`, and the catalog
    /// `run --model-check` serves): no case, no MPI_Init.
    pub fn one_question(
        lib: PathBuf,
        abi: String,
        force: bool,
        timeout: Duration,
        stop: Arc<AtomicBool>,
    ) -> Setup {
        Setup {
            hello: Hello::bare(lib, abi, force),
            jobs: 1,
            timeout,
            stop,
            zygotes: Shared::new(false),
        }
    }
}

/// What a pool run leaves besides its results.
#[derive(Debug, Default)]
pub struct Outcome {
    pub log: RcLog,
    pub interrupted: bool,
    pub workers_started: u64,
    /// Of those, the ones that called MPI_Init.
    pub workers_started_mpi_init: u64,
    /// Workers forked by a zygote (not counted in `workers_started`; the zygotes are).
    pub workers_forked: u64,
    /// Of those, the ones that called MPI_Init.
    pub workers_forked_mpi_init: u64,
}

/// Runs every job; results go to `tx` as they arrive. Stops early when `setup.stop` is
/// set. `later` brings more jobs while the pool runs (those that wait for the inventory
/// read after MPI_Init), until it is closed, with the lanes wanted from then on (more
/// than `setup.jobs` when the MPI_Init workers' start mostly waits, `runner::lanes`).
pub fn run(
    setup: &Setup,
    jobs: Vec<Job>,
    later: Option<Receiver<(Vec<Job>, usize)>>,
    tx: Sender<CaseResult>,
) -> Outcome {
    let stop = &*setup.stop;
    let queue = Queue::new(fresh_first(jobs), later.is_some());
    let log = Mutex::new(RcLog::default());
    let started = [AtomicU64::new(0), AtomicU64::new(0)];
    let lanes = setup.jobs.max(1);
    std::thread::scope(|s| {
        let lane = |tx: Sender<CaseResult>| {
            let (q, log, started) = (&queue, &log, &started);
            move || lane(setup, q, &tx, stop, log, started)
        };
        match later {
            // Whoever brings the late jobs (the MPI_Init inventory reader) is a worker
            // process too: one lane fewer until they are in, so no more than -j workers
            // run at once.
            Some(rx) => {
                for _ in 1..lanes.max(2) {
                    s.spawn(lane(tx.clone()));
                }
                let last = lane(tx.clone());
                let (q, more) = (&queue, tx.clone());
                s.spawn(move || {
                    let mut last = Some(last);
                    let mut running = lanes.max(2) - 1;
                    for (jobs, want) in rx {
                        q.feed(Some(fresh_first(jobs).into()));
                        if let Some(l) = last.take() {
                            s.spawn(l);
                            running += 1;
                        }
                        for _ in running..want {
                            s.spawn(lane(more.clone()));
                        }
                        running = running.max(want);
                    }
                    q.feed(None);
                    if let Some(l) = last {
                        s.spawn(l);
                    }
                });
            }
            None => {
                for _ in 0..lanes {
                    s.spawn(lane(tx.clone()));
                }
            }
        }
        drop(tx);
    });
    let log = log.into_inner().unwrap_or_default();
    Outcome {
        log,
        interrupted: stop.load(Ordering::SeqCst),
        workers_started: started[0].load(Ordering::SeqCst)
            + setup.zygotes.started.load(Ordering::SeqCst),
        workers_started_mpi_init: started[1].load(Ordering::SeqCst),
        workers_forked: setup.zygotes.forked.load(Ordering::SeqCst),
        workers_forked_mpi_init: setup.zygotes.forked_mpi_init.load(Ordering::SeqCst),
    }
}

/// One lane of the pool: at most one worker at a time.
fn lane(
    setup: &Setup,
    q: &Queue,
    tx: &Sender<CaseResult>,
    stop: &AtomicBool,
    log: &Mutex<RcLog>,
    // Workers started: all, and those with MPI_Init.
    started: &[AtomicU64; 2],
) {
    let mut reusable: Option<Cur> = None;
    // The job the reusable worker served last: a death at its exit is that job's.
    let mut last: Option<Job> = None;
    let mut zygotes = Zygotes::new(
        &setup.hello,
        setup.timeout,
        setup.stop.clone(),
        setup.zygotes.clone(),
    );
    // `erroneous`: the worker made a call with an argument the standard leaves undefined
    // (R-GEN-3 in specs/clauses.yaml: the behaviour is undefined from that call on; the
    // call itself was judged). It serves no other job, and its exit is not judged: after
    // `pvars.session.double_free` a heap it corrupted killed Open MPI 4.1.4's and
    // 5.0.11's workers at their exit in some runs only ("corrupted double-linked list").
    let quit = |w: Cur, zygotes: &mut Zygotes, job: &Option<Job>, erroneous: bool| {
        if let (Some(d), Some(job), false) = (w.end(zygotes), job, erroneous) {
            let at_exit = "(at the worker's exit)".to_string();
            let _ = tx.send(job.death(0, Some(at_exit), &d, setup.timeout));
        }
    };
    let mut next_job = 0u64;
    loop {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Some(job) = q.pop(stop) else {
            break;
        };
        next_job += 1;
        let mut cur = match (job.fresh || !job.base_init, reusable.take()) {
            (false, Some(w)) => w,
            (fresh, old) => {
                if let Some(old) = old {
                    quit(old, &mut zygotes, &last, false);
                }
                match worker_for(setup, q, tx, started, &mut zygotes, &job, fresh) {
                    Some(w) => w,
                    None => continue,
                }
            }
        };
        let mut talk = Talk::default();
        let result = talk.job(setup, tx, log, cur.w(), &job, next_job);
        let erroneous = talk.erroneous.is_some();
        match result {
            Ok(true) if !job.fresh && !erroneous => {
                reusable = Some(cur);
                last = Some(job);
            }
            Ok(_) => quit(cur, &mut zygotes, &Some(job), erroneous),
            Err(b) => {
                if stop.load(Ordering::SeqCst) {
                    cur.w().kill();
                    break;
                }
                if let Some(rest) = talk.broke(setup, tx, &mut zygotes, cur, &job, b) {
                    q.push_front(rest);
                }
            }
        }
    }
    if let Some(w) = reusable {
        quit(w, &mut zygotes, &last, false);
    }
    zygotes.quit();
}

/// A pristine worker for `job`: forked by a zygote where one may be (an MPI_Init job's
/// child calls MPI_Init after the fork: `runner::zygote`), else exec'd. `None`: the
/// job's results (or its first subject's crash in the worker's start) are sent, and
/// its rest requeued.
fn worker_for(
    setup: &Setup,
    q: &Queue,
    tx: &Sender<CaseResult>,
    started: &[AtomicU64; 2],
    zygotes: &mut Zygotes,
    job: &Job,
    fresh: bool,
) -> Option<Cur> {
    let kind = zygote::kind_for(job);
    if let Some(w) = zygotes.fork(kind, fresh, Some(job), None) {
        return Some(Cur::Child {
            w,
            kind,
            single: fresh,
        });
    }
    let hello = Hello {
        mpi_init: job.mpi_init,
        single_job: fresh,
        base_init: job.base_init,
        skip: (*job.skip).clone(),
        ..setup.hello.clone()
    };
    started[0].fetch_add(1, Ordering::SeqCst);
    // Before its steps or in one of them: either way the worker pays MPI_Init.
    if job.calls_mpi_init {
        started[1].fetch_add(1, Ordering::SeqCst);
    }
    match Worker::start(&hello, setup.timeout, setup.stop.clone()) {
        Ok((w, _)) => Some(Cur::Exec(w)),
        // The library killed or stalled the worker's start (a thread of its
        // own, say): the first subject takes the crash, the rest go on.
        Err(Start::Died(d)) if d.status != Status::Error => {
            let mut r = job.death(0, None, &d, setup.timeout);
            r.message = format!("in the worker's start: {}", r.message);
            let _ = tx.send(r);
            if let Some(rest) = job.rest(1) {
                q.push_front(rest);
            }
            None
        }
        Err(e) => {
            for n in 0..job.subjects.len() {
                let _ =
                    tx.send(job.result(n, Status::Error, format!("could not start a worker: {e}")));
            }
            None
        }
    }
}

/// What a lane heard of the job in flight.
#[derive(Default)]
struct Talk {
    /// The subject in flight.
    in_flight: usize,
    /// The subjects answered.
    done: BTreeSet<usize>,
    /// The last `erroneous` call of the subject in flight (subject, call text, whether
    /// it returned). Once a call has passed arguments the standard leaves undefined,
    /// the behaviour is undefined from there on (R-GEN-3): a corrupted heap may kill
    /// the worker at a later call, or between calls.
    erroneous: Option<(usize, String, bool)>,
}

impl Talk {
    /// Sends `job` to `w` and relays its results until `Done`: whether the worker is
    /// clean (reusable).
    fn job(
        &mut self,
        setup: &Setup,
        tx: &Sender<CaseResult>,
        log: &Mutex<RcLog>,
        w: &mut Worker,
        job: &Job,
        id: u64,
    ) -> Result<bool, Broke> {
        // A forked child has the inventory its zygote keeps: not sent per job.
        let kept = job.inventory.as_ref().is_some_and(|i| w.keeps(i));
        let msg = ToWorkerRef::Job {
            job: id,
            case: &job.case,
            subjects: job.subjects.iter().map(|s| s.as_deref()).collect(),
            inventory: job.inventory.as_deref().filter(|_| !kept),
            kept,
        };
        w.send(&msg)?;
        loop {
            if setup.stop.load(Ordering::SeqCst) {
                return Err(Broke::Interrupted);
            }
            match w.next(setup.timeout)? {
                FromWorker::Started { n, .. } => self.in_flight = n,
                FromWorker::Erroneous { n, call, .. } => {
                    self.erroneous = match (call, self.erroneous.take()) {
                        (Some(c), _) => Some((n, c, false)),
                        (None, Some((m, c, _))) if m == n => Some((m, c, true)),
                        (None, _) => None,
                    }
                }
                FromWorker::Result { n, result, .. } => {
                    self.done.insert(n);
                    let _ = tx.send(*result);
                }
                FromWorker::Done { log: l, clean, .. } => {
                    if let Ok(mut g) = log.lock() {
                        g.merge(&l);
                    }
                    return Ok(clean);
                }
                FromWorker::CannotRun(e) => return Err(Broke::Other(e)),
                other => return Err(Broke::Other(format!("unexpected message {other:?}"))),
            }
        }
    }

    /// The first subject not answered.
    fn next_subject(&self) -> usize {
        if self.done.contains(&self.in_flight) {
            self.in_flight + 1
        } else {
            self.in_flight
        }
    }

    /// The worker broke off `job`: the subject in flight takes its death; what is
    /// returned goes back on the queue.
    fn broke(
        &self,
        setup: &Setup,
        tx: &Sender<CaseResult>,
        zygotes: &mut Zygotes,
        mut cur: Cur,
        job: &Job,
        b: Broke,
    ) -> Option<Job> {
        // A child whose channel the library took cannot come back on the
        // rendezvous (it is the zygote's): the subject in flight and the rest
        // run again on exec'd workers, which can (`runner::zygote`).
        if let (Cur::Child { .. }, Broke::Taken(t)) = (&cur, &b) {
            zygotes.channel_taken(t.call.as_deref());
            cur.w().kill();
            return job.rest(self.next_subject());
        }
        let w = cur.w();
        let what = match &b {
            Broke::Timeout => format!("no answer within {:?}", setup.timeout),
            _ => String::new(),
        };
        let death = w.death(b);
        // A child that died or stalled in MPI_Init may have met a library that
        // refuses a fork: the subject in flight and the rest run again on exec'd
        // workers, which judge it.
        if let (Cur::Child { .. }, true) = (&cur, in_mpi_init(&death)) {
            zygotes.mpi_init_off(format!("a child died in MPI_Init: {}", death.message));
            if let Cur::Child { w, kind, .. } = cur {
                zygotes.put(kind, w);
            }
            return job.rest(self.next_subject());
        }
        // A zygote whose child died goes on forking; an exec'd worker, or a
        // zygote killed at the deadline, is gone.
        match cur {
            Cur::Child { w, kind, .. } => zygotes.put(kind, w),
            Cur::Exec(mut w) => w.kill(),
        }
        let status = death.status;
        let msg = death.message.clone();
        let n = self.next_subject();
        // Every subject answered, then the worker died before `Done` (a thread
        // of the library's, say): the death is still the job's.
        if n >= job.subjects.len() && status != Status::Error {
            let after = "(after its last subject)".to_string();
            let _ = tx.send(job.death(0, Some(after), &death, setup.timeout));
        }
        if n < job.subjects.len() {
            let mut text = if what.is_empty() {
                msg
            } else {
                format!("{what}: {msg}")
            };
            let mut status = status;
            // A crash or hang inside a call with an argument the standard leaves
            // undefined (R-GEN-3) is reported at the case's level
            // (docs/ARCHITECTURE.md, "Verdicts": robustness warns), with the call named.
            if let Some((_, call, returned)) = self.erroneous.as_ref().filter(|(m, _, _)| *m == n) {
                if matches!(status, Status::Crash | Status::Timeout) {
                    let at = if *returned { "after" } else { "inside" };
                    text = format!(
                        "{} {at} {call}, whose argument the standard leaves \
                         undefined (R-GEN-3): {text}",
                        status.as_str()
                    );
                    status = if setup.hello.strict {
                        Status::Fail
                    } else {
                        Status::Warn
                    };
                }
            }
            let mut r = job.result(n, status, text);
            r.evidence.push(death.evidence(setup.timeout));
            let _ = tx.send(r);
        }
        job.rest(n + 1)
    }
}

/// A worker's death in MPI_Init or MPI_Init_thread (crash or timeout).
fn in_mpi_init(d: &Death) -> bool {
    matches!(d.status, Status::Crash | Status::Timeout)
        && d.call.as_deref().is_some_and(|c| c.starts_with("MPI_Init"))
}

/// A lane's current worker: exec'd, or a zygote's child (the zygote with it).
enum Cur {
    Exec(Worker),
    Child {
        w: Worker,
        kind: usize,
        single: bool,
    },
}

impl Cur {
    fn w(&mut self) -> &mut Worker {
        match self {
            Cur::Exec(w) | Cur::Child { w, .. } => w,
        }
    }

    /// Ends the worker after its last job: its death at exit, if it died there. A
    /// zygote goes back to the lane's idle ones.
    fn end(self, zygotes: &mut Zygotes) -> Option<Death> {
        match self {
            Cur::Exec(w) => w.quit(),
            Cur::Child {
                mut w,
                kind,
                single,
            } => {
                let d = w.end_child(!single);
                zygotes.put(kind, w);
                d
            }
        }
    }
}
