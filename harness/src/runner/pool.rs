//! The supervisor's side of the suite: a pool of worker processes fed jobs from a
//! queue. A worker that dies by a signal turns the subject in flight into `crash`, one
//! silent past the deadline into `timeout` (its whole process group is killed); the
//! rest of its job goes back on the queue for a fresh worker. Results leave through a
//! channel; the pool never loads vendor code.

use super::protocol::{FromWorker, Hello, TargetFacts, ToWorker, ToWorkerRef};
use super::queue::{fresh_first, Queue};
use crate::exec::inventory::Entry;
use crate::exec::inventory::Inventory;
use crate::exec::RcLog;
use crate::target::catalog::CatalogDump;
use crate::verdict::{Area, CaseMeta, CaseResult, Level, Oracle, Status};
use serde::Serialize;
use std::collections::{BTreeSet, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One unit of work: a case over some of its subjects.
#[derive(Debug, Clone)]
pub struct Job {
    pub case: String,
    pub area: Area,
    pub level: Level,
    pub clause: String,
    /// Shared with the inventory's other jobs: a large catalog has each entry in the
    /// jobs of dozens of cases, and a copy per job made the plan most of the
    /// supervisor's memory (cloned only into the message sent to a worker).
    pub subjects: Vec<Option<Arc<Entry>>>,
    /// Display names of the subjects (for results the supervisor has to write itself).
    pub names: Vec<String>,
    /// Needs a process of its own (and MPI_Init when `mpi_init`).
    pub fresh: bool,
    pub mpi_init: bool,
    /// The worker holds a base MPI_T init (see `Hello::base_init`).
    pub base_init: bool,
    /// Sent along when the worker must not read its own (shared, as `subjects`).
    pub inventory: Option<Arc<Inventory>>,
}

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

    /// The subjects from `n` on, as a job of their own.
    fn rest(&self, n: usize) -> Option<Job> {
        (n < self.subjects.len()).then(|| Job {
            subjects: self.subjects[n..].to_vec(),
            names: self.names[n..].to_vec(),
            ..self.clone()
        })
    }
}

/// A running worker process.
pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Result<FromWorker, String>>,
    /// The last lines the library wrote to stderr (shown with a crash).
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The worker's private environment; dropped (directory removed) after the kill.
    _env: crate::target::WorkerEnv,
    /// The run's Ctrl-C flag: a wait for this worker ends early when it is set.
    stop: Arc<AtomicBool>,
    /// Set when the stderr reader reached end of file.
    stderr_done: Arc<AtomicBool>,
}

/// Why talking to a worker stopped.
#[derive(Debug)]
pub enum Broke {
    /// Killed by a signal (its name).
    Crash(String),
    Timeout,
    /// The run was interrupted (Ctrl-C) while waiting for the worker.
    Interrupted,
    /// Exited or said something unexpected.
    Other(String),
}

impl Worker {
    /// Starts `mpit-conform __suite-worker` in its own process group and waits for
    /// `Ready`. Waits end early when `stop` is set.
    pub fn spawn(
        hello: &Hello,
        timeout: Duration,
        stop: Arc<AtomicBool>,
    ) -> Result<(Worker, TargetFacts), String> {
        let env = crate::target::worker_env(&hello.lib);
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
        let json = serde_json::to_string(hello).map_err(|e| e.to_string())?;
        let born = Instant::now();
        let mut child = Command::new(exe)
            .arg("__suite-worker")
            .arg(json)
            .envs(env.vars())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Own process group: a timeout kills whatever the library started too.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start a worker: {e}"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("worker pipes missing".into());
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(m) = FromWorker::parse(&line) {
                    if tx.send(m).is_err() {
                        break;
                    }
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_done = Arc::new(AtomicBool::new(false));
        let (t2, done2) = (tail.clone(), stderr_done.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Ok(mut q) = t2.lock() {
                    if q.len() >= 20 {
                        q.pop_front();
                    }
                    q.push_back(line);
                }
            }
            done2.store(true, Ordering::SeqCst);
        });
        let mut w = Worker {
            child,
            stdin,
            rx,
            stderr: tail,
            _env: env,
            stop,
            stderr_done,
        };
        match w.next(timeout) {
            Ok(FromWorker::Ready(mut f)) => {
                f.start_wall_us = born.elapsed().as_micros() as u64;
                Ok((w, *f))
            }
            Ok(FromWorker::CannotRun(e)) => {
                w.kill();
                Err(e)
            }
            Ok(other) => {
                w.kill();
                Err(format!("unexpected first message from worker: {other:?}"))
            }
            Err(b) => Err(w.explain(b)),
        }
    }

    pub fn send<M: Serialize + ?Sized>(&mut self, m: &M) -> Result<(), Broke> {
        let line = serde_json::to_string(m).map_err(|e| Broke::Other(e.to_string()))?;
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|_| self.ended())
    }

    /// The next protocol message within `timeout`. The wait is cut into short slices so
    /// that Ctrl-C does not wait out a hanging vendor call: when the stop flag is set
    /// the worker's process group is killed and the wait ends.
    pub fn next(&mut self, timeout: Duration) -> Result<FromWorker, Broke> {
        const SLICE: Duration = Duration::from_millis(50);
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left.min(SLICE)) {
                Ok(Ok(m)) => return Ok(m),
                Ok(Err(e)) => return Err(Broke::Other(e)),
                Err(RecvTimeoutError::Timeout) if self.stop.load(Ordering::SeqCst) => {
                    self.kill();
                    return Err(Broke::Interrupted);
                }
                Err(RecvTimeoutError::Timeout) if Instant::now() >= deadline => {
                    self.kill();
                    return Err(Broke::Timeout);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(self.ended()),
            }
        }
    }

    /// How the process ended (it closed its stdout).
    fn ended(&mut self) -> Broke {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut nap = Backoff::default();
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() < deadline => nap.sleep(),
                _ => break None,
            }
        };
        self.kill();
        match status {
            Some(s) => match s.signal() {
                Some(sig) => Broke::Crash(signal_name(sig)),
                // A Rust panic (101) is the harness's own failure; any other exit in
                // the middle of a job is the library ending the process (MPI_Abort,
                // exit()), which is a crash of the call in flight.
                None if s.code() == Some(101) => {
                    Broke::Other(format!("worker exited with {s} in the middle of a job"))
                }
                None => Broke::Crash(format!(
                    "exit({}) inside the library",
                    s.code().map_or_else(|| "?".into(), |c| c.to_string())
                )),
            },
            None => Broke::Other("worker closed its output but did not exit".into()),
        }
    }

    /// A one-line explanation with the library's last words.
    pub fn explain(&self, b: Broke) -> String {
        // The process is gone; let its stderr reader drain the last lines (the in-flight
        // marker is written at the very end).
        let deadline = Instant::now() + Duration::from_millis(500);
        while !self.stderr_done.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        let tail: Vec<String> = self
            .stderr
            .lock()
            .map(|q| q.iter().cloned().collect())
            .unwrap_or_default();
        let call = crate::target::ffi::in_flight::find(tail.iter().map(String::as_str))
            .map(str::to_string);
        let marker = crate::target::ffi::in_flight::MARKER.trim_end();
        let tail: Vec<&String> = tail
            .iter()
            // Banner lines ("=====") say nothing; the marker is not the library's.
            .filter(|l| super::says_something(l) && !l.trim_start().starts_with(marker))
            .collect();
        let what = match (b, call) {
            (Broke::Crash(s), Some(c)) => format!("worker killed by {s} in {c}"),
            (b, _) => Self::what(b),
        };
        match tail.last() {
            Some(l) => format!("{what}; library stderr: {}", l.trim()),
            None => what,
        }
    }

    fn what(b: Broke) -> String {
        match b {
            Broke::Crash(s) => format!("worker killed by {s}"),
            Broke::Timeout => "worker timed out".into(),
            Broke::Interrupted => "interrupted".into(),
            Broke::Other(s) => s,
        }
    }

    /// Kills the worker's whole process group and reaps it.
    pub fn kill(&mut self) {
        if let Ok(pgid) = i32::try_from(self.child.id()) {
            crate::target::ffi::kill_process_group(pgid);
        }
        let _ = self.child.wait();
    }

    /// Asks the worker to quit, then makes sure of it.
    pub fn quit(mut self) {
        let _ = self.send(&ToWorker::Quit);
        let deadline = Instant::now() + Duration::from_secs(2);
        let mut nap = Backoff::default();
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            nap.sleep();
        }
        self.kill();
    }
}

/// Sleeps between polls for a worker's exit: 50 µs doubling to 5 ms. A worker usually
/// exits within a millisecond of its last answer; a fixed 5 ms sleep added a few
/// milliseconds to each of a run's (often more than a hundred) workers.
#[derive(Default)]
struct Backoff(u32);

impl Backoff {
    fn sleep(&mut self) {
        let us = (50u64 << self.0.min(7)).min(5000);
        self.0 += 1;
        std::thread::sleep(Duration::from_micros(us));
    }
}

pub fn signal_name(sig: i32) -> String {
    match sig {
        4 => "SIGILL".into(),
        6 => "SIGABRT".into(),
        7 => "SIGBUS".into(),
        8 => "SIGFPE".into(),
        9 => "SIGKILL".into(),
        11 => "SIGSEGV".into(),
        13 => "SIGPIPE".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

/// What the pool needs to start workers.
#[derive(Clone)]
pub struct Setup {
    pub hello: Hello,
    pub jobs: usize,
    pub timeout: Duration,
    /// Set by Ctrl-C: lanes stop taking jobs and waits for workers end.
    pub stop: Arc<AtomicBool>,
}

/// What a pool run leaves besides its results.
#[derive(Debug, Default)]
pub struct Outcome {
    pub log: RcLog,
    pub interrupted: bool,
    pub workers_started: u64,
    /// Of those, the ones that called MPI_Init.
    pub workers_started_mpi_init: u64,
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
        workers_started: started[0].load(Ordering::SeqCst),
        workers_started_mpi_init: started[1].load(Ordering::SeqCst),
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
    // A single-job worker exits on its own; writing `Quit` to it must not kill the run.
    crate::target::ffi::block_sigpipe_in_thread();
    let mut reusable: Option<Worker> = None;
    let mut next_job = 0u64;
    loop {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Some(job) = q.pop(stop) else {
            break;
        };
        next_job += 1;
        let mut w = match (job.fresh || !job.base_init, reusable.take()) {
            (false, Some(w)) => w,
            (fresh, old) => {
                if let Some(old) = old {
                    old.quit();
                }
                let hello = Hello {
                    mpi_init: job.mpi_init,
                    single_job: fresh,
                    base_init: job.base_init,
                    ..setup.hello.clone()
                };
                started[0].fetch_add(1, Ordering::SeqCst);
                if job.mpi_init {
                    started[1].fetch_add(1, Ordering::SeqCst);
                }
                match Worker::spawn(&hello, setup.timeout, setup.stop.clone()) {
                    Ok((w, _)) => w,
                    Err(e) => {
                        for n in 0..job.subjects.len() {
                            let _ = tx.send(job.result(
                                n,
                                Status::Error,
                                format!("could not start a worker: {e}"),
                            ));
                        }
                        continue;
                    }
                }
            }
        };
        let msg = ToWorkerRef::Job {
            job: next_job,
            case: &job.case,
            subjects: job.subjects.iter().map(|s| s.as_deref()).collect(),
            inventory: job.inventory.as_deref(),
        };
        let mut in_flight = 0usize;
        let mut done: BTreeSet<usize> = BTreeSet::new();
        // The `erroneous` call in flight, if any (subject, call text).
        let mut erroneous: Option<(usize, String)> = None;
        let outcome: Result<bool, Broke> = (|| {
            w.send(&msg)?;
            loop {
                if stop.load(Ordering::SeqCst) {
                    return Err(Broke::Interrupted);
                }
                match w.next(setup.timeout)? {
                    FromWorker::Started { n, .. } => in_flight = n,
                    FromWorker::Erroneous { n, call, .. } => erroneous = call.map(|c| (n, c)),
                    FromWorker::Result { n, result, .. } => {
                        done.insert(n);
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
        })();
        match outcome {
            Ok(true) if !job.fresh => reusable = Some(w),
            Ok(_) => w.quit(),
            Err(b) => {
                if stop.load(Ordering::SeqCst) {
                    w.kill();
                    break;
                }
                let status = match &b {
                    Broke::Crash(_) => Status::Crash,
                    Broke::Timeout => Status::Timeout,
                    Broke::Interrupted | Broke::Other(_) => Status::Error,
                };
                let what = match &b {
                    Broke::Timeout => format!("no answer within {:?}", setup.timeout),
                    _ => String::new(),
                };
                let msg = w.explain(b);
                w.kill();
                let n = if done.contains(&in_flight) {
                    in_flight + 1
                } else {
                    in_flight
                };
                if n < job.subjects.len() {
                    let mut text = if what.is_empty() {
                        msg
                    } else {
                        format!("{what}: {msg}")
                    };
                    let mut status = status;
                    // A crash or hang inside a call with an argument the standard leaves
                    // undefined (R-GEN-3) is reported at the case's level (DESIGN.md:
                    // robustness warns), with the call named.
                    if let Some((_, call)) = erroneous.as_ref().filter(|(m, _)| *m == n) {
                        if matches!(status, Status::Crash | Status::Timeout) {
                            text = format!(
                                "{} inside {call}, whose argument the standard leaves \
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
                    let _ = tx.send(job.result(n, status, text));
                }
                if let Some(rest) = job.rest(n + 1) {
                    q.push_front(rest);
                }
            }
        }
    }
    if let Some(w) = reusable {
        w.quit();
    }
}

/// Asks a dedicated worker (base MPI_T init, MPI_Init first when `mpi_init`) one
/// question and returns its answer; the worker is gone afterwards.
fn ask(setup: &Setup, mpi_init: bool, q: ToWorker) -> Result<(TargetFacts, FromWorker), String> {
    let hello = Hello {
        mpi_init,
        single_job: true,
        base_init: true,
        ..setup.hello.clone()
    };
    let (mut w, facts) = Worker::spawn(&hello, setup.timeout, setup.stop.clone())?;
    match w.send(&q).and_then(|_| w.next(setup.timeout)) {
        Ok(answer) => {
            w.quit();
            Ok((facts, answer))
        }
        Err(b) => {
            let e = w.explain(b);
            w.kill();
            Err(e)
        }
    }
}

/// Reads one inventory with a dedicated worker.
pub fn inventory(setup: &Setup, mpi_init: bool) -> Result<(TargetFacts, Inventory), String> {
    match ask(setup, mpi_init, ToWorker::Inventory)? {
        (facts, FromWorker::Inventory(inv)) => Ok((facts, *inv)),
        (_, other) => Err(format!(
            "unexpected answer to an inventory request: {other:?}"
        )),
    }
}

/// Reads the decoded catalog with a dedicated worker (`mpit-conform catalog`).
pub fn catalog(setup: &Setup, mpi_init: bool) -> Result<CatalogDump, String> {
    match ask(setup, mpi_init, ToWorker::Catalog)? {
        (_, FromWorker::Catalog(d)) => Ok(*d),
        (_, other) => Err(format!("unexpected answer to a catalog request: {other:?}")),
    }
}
