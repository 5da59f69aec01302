//! The supervisor's handle on one worker process: started by `mpit_process` (a process
//! group of its own, killed as a whole, reaped with wait4) with the library family's
//! environment, spoken to over the worker's private channel (`channel.rs`: its
//! stdin/stdout, which the worker moves away from the library before loading it, and
//! the connection it comes back on when the library takes them), the library's output
//! (the worker's stderr) drained into a bounded [`Tail`], its death or silence
//! explained as a [`Death`] that names the call in flight. The call in flight is read
//! from the worker's page (`target::ffi::page`), a memfd the worker maps before loading
//! the library: whatever the library does to signals, handlers and descriptors, the
//! page is read after every death. The protocol's per-call deadline is kept here: each
//! announced call starts it anew.

use super::channel::{self, Channel, Heard};
use super::death::Death;
use super::protocol::{FromWorker, Hello, MpiInitChild, TargetFacts, ToWorker, CHILD_END};
use crate::judge::inventory::Inventory;
use mpit_process::{exit_code, Cmd, Ended, Exit, Running, Tail};
use mpit_spec::verdict::Status;
use mpit_target::ffi::in_flight;
use mpit_target::ffi::log;
use mpit_target::ffi::page::{self, Record, Taken};
use mpit_target::{worker_env, WorkerEnv};
use serde::Serialize;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a worker told to quit may take to exit (its library's exit handlers and
/// destructors) before it is killed, and its exit reported as a timeout.
const EXIT_WAIT: Duration = Duration::from_secs(2);

/// A running worker process.
pub struct Worker {
    /// Killed with its group and reaped when dropped (before `_env` goes).
    proc: Running,
    channel: Channel,
    /// The worker's page of the call in flight (`None`: it could not be made).
    page: Option<File>,
    /// A `fuzz-props` worker's log of observations (`Hello::sequences`).
    log: Option<File>,
    /// The library's output (the worker's stdout and stderr), its last lines.
    output: Tail,
    /// The call the worker last announced (`FromWorker::Calling`) and has not yet come
    /// back from: its start, or a catalog entry (what names a death without a page).
    calling: Option<String>,
    /// When the process was seen to have ended while its channel had not.
    died: Option<Instant>,
    /// The worker's private environment; dropped (directory removed) after the kill.
    _env: WorkerEnv,
    /// The run's stop flag (Ctrl-C, --max-time): a wait for this worker ends early.
    stop: Arc<AtomicBool>,
    /// A zygote (`runner::zygote`): its children's ends come as `ChildEnded`.
    zygote: bool,
    /// A zygote's child is serving (`Some`), being told to end (`Some(true)`).
    child: Option<bool>,
    /// Killed (or seen dead): no more children.
    dead: bool,
    /// A zygote: the supervisor's inventory it keeps for its children (`Fork::keep`).
    kept: Option<Arc<Inventory>>,
}

/// Why talking to a worker stopped.
#[derive(Debug)]
pub enum Broke {
    /// Killed by a signal (its name), or ended by the library (`exit(N) ...`).
    Crash(String),
    /// The library took the worker's channel (closed or replaced its descriptors) and
    /// the worker could not come back: it exited.
    Taken(Taken),
    Timeout,
    /// The run was interrupted (Ctrl-C, --max-time) while waiting for the worker.
    Interrupted,
    /// Exited or said something unexpected.
    Other(String),
}

/// Why a worker could not be started.
#[derive(Debug)]
pub enum Start {
    /// The library cannot be loaded or is not MPI (the run exits 2), or the harness
    /// could not start a process.
    CannotRun(String),
    /// The worker died or hung in its start (loading the library, MPI_Init, the base
    /// MPI_T_init_thread): a finding about the library.
    Died(Death),
}

impl std::fmt::Display for Start {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Start::CannotRun(e) => f.write_str(e),
            Start::Died(d) => f.write_str(&d.message),
        }
    }
}

impl Worker {
    /// Starts `mpit-conform __suite-worker` in its own process group and waits for
    /// `Ready`. Waits end early when `stop` is set.
    pub fn start(
        hello: &Hello,
        timeout: Duration,
        stop: Arc<AtomicBool>,
    ) -> Result<(Worker, TargetFacts), Start> {
        let env = worker_env(&hello.lib);
        let exe = std::env::current_exe()
            .map_err(|e| Start::CannotRun(format!("cannot find own executable: {e}")))?;
        let mut cmd = Cmd::new(exe);
        let mut hello = hello.clone();
        // The page: this end kept to be read, a duplicate passed to the worker alone.
        let page = page::create().ok();
        if let Some(dup) = page.as_ref().and_then(|p| p.try_clone().ok()) {
            hello.page = Some(cmd.pass_fd(OwnedFd::from(dup)));
        }
        let log = hello.sequences.then(|| log::create().ok()).flatten();
        if let Some(dup) = log.as_ref().and_then(|l| l.try_clone().ok()) {
            hello.log = Some(cmd.pass_fd(OwnedFd::from(dup)));
        }
        let (listener, name) = channel::rendezvous().unzip();
        hello.rendezvous = name;
        let json = serde_json::to_string(&hello).map_err(|e| Start::CannotRun(e.to_string()))?;
        let born = Instant::now();
        // Own process group: a kill reaches whatever the library started too.
        let mut proc = cmd
            .arg("__suite-worker")
            .arg(json)
            .envs(env.vars())
            .envs(hello.env.iter().map(|(k, v)| (k, v)))
            .start()
            .map_err(|e| Start::CannotRun(format!("cannot start a worker: {e}")))?;
        let (Some(stdin), Some(stdout)) = (proc.take_stdin(), proc.take_stdout()) else {
            return Err(Start::CannotRun("worker pipes missing".into()));
        };
        let output = proc.tail().clone();
        let mut w = Worker {
            proc,
            channel: Channel::new(stdin, stdout, listener),
            page,
            log,
            output,
            calling: None,
            died: None,
            _env: env,
            stop,
            zygote: hello.zygote,
            child: None,
            dead: false,
            kept: None,
        };
        match w.next(timeout) {
            Ok(FromWorker::Ready(mut f)) => {
                f.start_wall_us = born.elapsed().as_micros() as u64;
                Ok((w, *f))
            }
            Ok(FromWorker::CannotRun(e)) => {
                w.kill();
                Err(Start::CannotRun(e))
            }
            Ok(other) => {
                w.kill();
                Err(Start::CannotRun(format!(
                    "unexpected first message from worker: {other:?}"
                )))
            }
            Err(Broke::Other(e)) => {
                w.kill();
                Err(Start::CannotRun(e))
            }
            Err(b) => Err(Start::Died(w.death(b))),
        }
    }

    /// [`Worker::start`] with its failure as one line.
    pub fn spawn(
        hello: &Hello,
        timeout: Duration,
        stop: Arc<AtomicBool>,
    ) -> Result<(Worker, TargetFacts), String> {
        Worker::start(hello, timeout, stop).map_err(|e| e.to_string())
    }

    pub fn send<M: Serialize + ?Sized>(&mut self, m: &M) -> Result<(), Broke> {
        let line = serde_json::to_string(m).map_err(|e| Broke::Other(e.to_string()))?;
        // The worker may have died since its last answer: the write is then an error,
        // told as its death (`send_line` keeps SIGPIPE from ending this process).
        self.channel.send(&line).map_err(|_| self.ended())
    }

    /// What the worker's page says (nothing when it has none).
    pub fn record(&self) -> Record {
        read_page(&self.page)
    }

    /// What the worker appended to its log of observations since it last cleared it
    /// (nothing without a log).
    pub fn logged(&self) -> Vec<u8> {
        self.log
            .as_ref()
            .and_then(|l| log::read(l).ok())
            .unwrap_or_default()
    }

    /// How many times the library took the worker's channel and the worker came back.
    pub fn restored(&self) -> u32 {
        self.channel.restored()
    }

    /// The next protocol message within `timeout` (each `Calling` announcement starts
    /// the wait anew: the deadline is per call). The wait is cut into short slices so
    /// that Ctrl-C does not wait out a hanging vendor call: when the stop flag is set
    /// the worker's process group is killed and the wait ends. A worker that died
    /// without its channel ending (a daemon of the library's holds it) is seen within a
    /// slice, and its last lines are still read.
    pub fn next(&mut self, timeout: Duration) -> Result<FromWorker, Broke> {
        const SLICE: Duration = Duration::from_millis(50);
        // After its channel's end, a worker exits or comes back on its rendezvous.
        const POLL: Duration = Duration::from_millis(2);
        // The last lines of a worker that died come within this.
        const LAST_LINES: Duration = Duration::from_millis(200);
        let mut deadline = Instant::now() + timeout;
        // A sequence's observations go to the log, not the channel: each one appended is
        // a call that returned, which starts the wait anew as a line would.
        let mut logged = self.log.as_ref().map(log::used);
        loop {
            if let Some(at) = self.died {
                self.channel.accept(&|| read_page(&self.page));
                if self.channel.ended || at.elapsed() >= LAST_LINES {
                    return Err(self.ended());
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let wait = match (self.died, self.channel.ended) {
                (Some(at), _) => LAST_LINES.saturating_sub(at.elapsed()),
                (None, true) => POLL,
                (None, false) => SLICE,
            };
            match self.channel.hear(wait.min(left), || read_page(&self.page)) {
                Heard::Message(Ok(FromWorker::ChildEnded { code, signal }))
                    if self.child.is_some() =>
                {
                    self.calling = None;
                    // The child's last words are in the pipe before the zygote's line.
                    self.output.settle_on(CHILD_END, Duration::from_millis(500));
                    if self.child.take() == Some(true) {
                        return Ok(FromWorker::ChildEnded { code, signal });
                    }
                    return Err(self.child_broke(code, signal));
                }
                Heard::Message(Ok(FromWorker::Calling(c))) => {
                    self.calling = Some(c);
                    deadline = Instant::now() + timeout;
                }
                Heard::Message(Ok(m)) => {
                    self.calling = None;
                    return Ok(m);
                }
                Heard::Message(Err(e)) => return Err(Broke::Other(e)),
                Heard::Ended | Heard::Nothing => {}
            }
            if self.stop.load(Ordering::SeqCst) {
                self.kill();
                return Err(Broke::Interrupted);
            }
            if self.died.is_some() {
                continue;
            }
            let now_logged = self.log.as_ref().map(log::used);
            if now_logged != logged {
                logged = now_logged;
                deadline = Instant::now() + timeout;
            }
            if Instant::now() >= deadline {
                self.kill();
                return Err(Broke::Timeout);
            }
            if matches!(self.proc.try_wait(), Ok(Some(_))) {
                self.died = Some(Instant::now());
                self.dead = true;
            }
        }
    }

    /// How the process ended (it closed its channel, or died).
    fn ended(&mut self) -> Broke {
        let status = self.wait_exit(Duration::from_secs(5));
        self.kill();
        self.broke(status.map(|e| e.ended))
    }

    /// How a zygote's child ended, as its end would be told of an exec'd worker.
    fn child_broke(&mut self, code: Option<i32>, signal: Option<i32>) -> Broke {
        let ended = match (code, signal) {
            (Some(c), _) => Some(Ended::Exited(c)),
            (_, Some(s)) => Some(Ended::Signaled(s)),
            _ => None,
        };
        self.broke(ended)
    }

    fn broke(&mut self, ended: Option<Ended>) -> Broke {
        let rec = self.record();
        match ended {
            // The worker's own exit: its channel was gone (and the page says whether
            // the library took it).
            Some(Ended::Exited(c)) if rec.exited == Some(c) => match rec.taken {
                Some(t) => Broke::Taken(t),
                None => Broke::Other(format!(
                    "worker exited with {c}: its channel to the supervisor closed"
                )),
            },
            Some(Ended::Signaled(sig)) => Broke::Crash(signal_name(sig)),
            // A Rust panic is the harness's own failure; any other exit in the middle
            // of a job is the library ending the process (MPI_Abort, exit()), which is
            // a crash of the call in flight.
            Some(Ended::Exited(exit_code::RUST_PANIC)) => Broke::Other(format!(
                "worker exited with exit status: {} in the middle of a job",
                exit_code::RUST_PANIC
            )),
            Some(Ended::Exited(c)) => Broke::Crash(format!("exit({c}) inside the library")),
            // The worker is started without a deadline or stop flag of its own (the
            // waits here keep them), so these are not seen; told as what they are.
            Some(Ended::TimedOut(_)) => Broke::Timeout,
            Some(Ended::Interrupted) => Broke::Interrupted,
            None => Broke::Other("worker closed its output but did not exit".into()),
        }
    }

    /// The worker's end within `wait` (polled from 50 µs doubling to 5 ms: a worker
    /// usually exits within a millisecond of its last answer).
    fn wait_exit(&mut self, wait: Duration) -> Option<Exit> {
        self.proc.wait_for(wait).ok().flatten()
    }

    /// The library's last lines, once its output has ended (or a moment has passed).
    fn last_output(&self) -> Vec<String> {
        // The process is gone; let the drain read the last lines (the in-flight marker
        // is written at the very end).
        // A zygote alive has settled its child's output on `ChildEnded`.
        if !self.zygote || self.dead {
            self.output.settle(Duration::from_millis(500));
        }
        // A library's backtrace names the worker's executable: this binary, wherever it
        // was built or installed. Reports name it by its name, not by a machine's path.
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let lines = self.output.lines();
        match exe.is_empty() {
            true => lines,
            false => lines
                .into_iter()
                .map(|l| l.replace(&exe, "mpit-conform"))
                .collect(),
        }
    }

    /// The call in flight and whether another thread died: the page's, else (no page)
    /// the marker line of the worker's handler or the last call announced.
    fn in_flight(&self, tail: &[String]) -> (bool, Option<String>) {
        if self.page.is_some() {
            let rec = self.record();
            return (rec.other_thread, rec.call);
        }
        let marked = in_flight::find(tail.iter().map(String::as_str)).map(str::to_string);
        let (other, marked) = match marked {
            Some(m) => match m.strip_prefix(in_flight::OTHER_THREAD) {
                Some(rest) => (
                    true,
                    Some(rest.trim().to_string()).filter(|r| !r.is_empty()),
                ),
                None => (false, Some(m)),
            },
            None => (false, None),
        };
        (other, marked.or_else(|| self.calling.clone()))
    }

    /// With no call in flight, the call the library last returned from (the page's), as
    /// the message says it: a library can break its process in a call and crash in the
    /// worker's next allocation.
    fn after_last(&self) -> String {
        match self.page.is_some().then(|| self.record().last).flatten() {
            Some(last) => format!(" (the last call, {last}, had returned)"),
            None => String::new(),
        }
    }

    /// Why the worker stopped, with the call in flight and the library's last words.
    pub fn death(&self, b: Broke) -> Death {
        let tail = self.last_output();
        let (other_thread, mut call) = self.in_flight(&tail);
        let marker = in_flight::MARKER.trim_end();
        let output: Vec<String> = tail
            .into_iter()
            .filter(|l| !l.trim_start().starts_with(marker) && l.as_str() != CHILD_END)
            .collect();
        let status = match &b {
            Broke::Crash(_) | Broke::Taken(_) => Status::Crash,
            Broke::Timeout => Status::Timeout,
            Broke::Interrupted | Broke::Other(_) => Status::Error,
        };
        let returned = matches!(b, Broke::Taken(_));
        let what = match (b, &call, other_thread) {
            (Broke::Taken(t), _, _) => {
                let what = format!(
                    "the library {} the worker's descriptors {}: its channel to the supervisor \
                     is gone and could not be re-established",
                    t.how.verb(),
                    t.call.as_deref().map_or_else(
                        || "while no MPI_T call was in flight".to_string(),
                        |c| format!("in {c}")
                    )
                );
                call = t.call;
                what
            }
            (Broke::Crash(s), _, true) => format!(
                "worker killed by {s} on a thread of the library's own, not in an MPI_T call{}",
                call.as_ref()
                    .map_or_else(String::new, |c| format!(" (the calling thread was in {c})"))
            ),
            (Broke::Crash(s), Some(c), false) => format!("worker killed by {s} in {c}"),
            (Broke::Crash(s), None, false) => {
                format!(
                    "worker killed by {s} while no MPI_T call was in flight{}",
                    self.after_last()
                )
            }
            (Broke::Timeout, Some(c), _) => format!("worker timed out in {c}"),
            (b, _, _) => Self::what(b),
        };
        // Banner lines ("=====") say nothing.
        let message = match output.iter().rev().find(|l| super::says_something(l)) {
            Some(l) => format!("{what}; library output: {}", l.trim()),
            None => what,
        };
        Death {
            status,
            message,
            call,
            other_thread,
            returned,
            output,
        }
    }

    /// A one-line explanation with the library's last words.
    pub fn explain(&self, b: Broke) -> String {
        self.death(b).message
    }

    fn what(b: Broke) -> String {
        match b {
            Broke::Crash(s) => format!("worker killed by {s}"),
            Broke::Taken(t) => format!("the library {} the worker's descriptors", t.how.verb()),
            Broke::Timeout => "worker timed out".into(),
            Broke::Interrupted => "interrupted".into(),
            Broke::Other(s) => s,
        }
    }

    /// Kills the worker's whole process group and reaps it (once: afterwards a no-op).
    pub fn kill(&mut self) {
        self.dead = true;
        let _ = self.proc.kill();
    }

    /// Killed, or seen to have ended.
    pub fn is_dead(&self) -> bool {
        self.dead
    }

    /// Neither killed nor seen to have ended.
    pub fn alive(&mut self) -> bool {
        !self.dead && matches!(self.proc.try_wait(), Ok(None))
    }

    /// A zygote forks a child that serves from now on (`runner::zygote`); the error
    /// says why not (the zygote is then of no more use).
    /// With `then`, the child serves it at once and this does not wait: a `NoFork`
    /// comes instead of the first answer. With `mpi_init`, this also waits for the
    /// child's MPI_Init (`Fork::mpi_init`).
    pub fn fork(
        &mut self,
        single_job: bool,
        area: Option<&str>,
        then: Option<&ToWorker>,
        mpi_init: Option<MpiInitChild>,
        keep: Option<&Arc<Inventory>>,
        timeout: Duration,
    ) -> Result<(), String> {
        self.output.clear();
        // Sent once to each zygote, and again only when another comes.
        let keep = keep.filter(|k| !self.keeps(k));
        let fork = ToWorker::Fork {
            single_job,
            area: area.map(str::to_string),
            then: then.map(|m| Box::new(m.clone())),
            mpi_init: mpi_init.clone(),
            keep: keep.map(|k| Box::new(Inventory::clone(k))),
        };
        if let Some(k) = keep {
            self.kept = Some(k.clone());
        }
        if then.is_some() {
            self.child = Some(false);
            return self.send(&fork).map_err(|b| self.explain(b));
        }
        self.send(&fork).map_err(|b| self.explain(b))?;
        // The zygote's `Forked` and the child's `MpiInitialized`, in either order.
        let (mut forked, mut initialized) = (false, mpi_init.is_none());
        while !(forked && initialized) {
            match self.next(timeout) {
                Ok(FromWorker::Forked { .. }) => {
                    self.child = Some(false);
                    forked = true;
                }
                Ok(FromWorker::MpiInitialized) => initialized = true,
                Ok(FromWorker::NoFork(why)) => return Err(why),
                Ok(FromWorker::CannotRun(why)) => return Err(format!("the child: {why}")),
                Ok(other) => return Err(format!("unexpected answer to Fork: {other:?}")),
                Err(b) => return Err(self.explain(b)),
            }
        }
        Ok(())
    }

    /// Whether this zygote keeps `inv` for its children (`Job::kept`).
    pub fn keeps(&self, inv: &Arc<Inventory>) -> bool {
        self.kept.as_ref().is_some_and(|k| Arc::ptr_eq(k, inv))
    }

    /// Ends a zygote's child: tells it to quit (unless it ends by itself after a
    /// single job), then waits for the zygote's word that it was reaped. A child that
    /// dies by a signal on its way out, or does not end within [`EXIT_WAIT`] (the
    /// zygote is killed then), is told back as its death, as [`Worker::quit`] tells a
    /// worker's.
    pub fn end_child(&mut self, quit: bool) -> Option<Death> {
        if quit {
            let _ = self.send(&ToWorker::Quit);
        }
        self.child = Some(true);
        let b = match self.next(EXIT_WAIT) {
            Ok(FromWorker::ChildEnded {
                signal: Some(sig), ..
            }) => Broke::Crash(signal_name(sig)),
            Ok(FromWorker::ChildEnded { .. }) => return None,
            Ok(_) => {
                self.kill();
                return None;
            }
            Err(b) => {
                self.kill();
                b
            }
        };
        self.child = None;
        Some(self.exit_death(b))
    }

    /// Asks the worker to quit, then makes sure of it. A worker that dies by a signal
    /// on its way out (a library destructor, an atexit handler, a thread of the
    /// library's), or does not end within [`EXIT_WAIT`], is told back as its death.
    pub fn quit(mut self) -> Option<Death> {
        let _ = self.send(&ToWorker::Quit);
        let status = self.wait_exit(EXIT_WAIT);
        self.kill();
        let b = match status.map(|e| e.ended) {
            Some(Ended::Signaled(sig)) => Broke::Crash(signal_name(sig)),
            Some(_) => return None,
            None => Broke::Timeout,
        };
        Some(self.exit_death(b))
    }

    /// A death at the worker's exit, after its last job.
    fn exit_death(&self, b: Broke) -> Death {
        let mut d = self.death(b);
        if d.status == Status::Timeout {
            let late = format!("worker did not end within {EXIT_WAIT:?}, in");
            d.message = d.message.replacen("worker timed out in", &late, 1);
        }
        d.message = format!("at the worker's exit, after its last job: {}", d.message);
        d
    }
}

/// What a worker's page says (nothing without one, or when it cannot be read).
fn read_page(page: &Option<File>) -> Record {
    page.as_ref()
        .and_then(|p| Record::read(p).ok())
        .unwrap_or_default()
}

pub use mpit_process::signal_name;
