//! Run to completion: stdin closed, both output streams captured, the leader's end
//! awaited (blocking: the wall time has no polling slack), the group killed past the
//! deadline or on the stop flag, then killed in any case and the leader reaped.

use crate::capture::{Captured, Draining};
use crate::{sys, Cmd, Ended, Error, Exit};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How often the watcher looks at the stop flag.
pub(crate) const TICK: Duration = Duration::from_millis(50);

/// How long the output may take to end once the group is gone (a process that left
/// the group may hold a pipe).
const GRACE: Duration = Duration::from_secs(2);

/// A child that ran to its end.
#[derive(Debug)]
pub struct Outcome {
    pub exit: Exit,
    pub stdout: Captured,
    pub stderr: Captured,
    /// The private directory ([`Cmd::private_dir`]), removed with the outcome.
    dir: Option<tempfile::TempDir>,
}

impl Outcome {
    /// The private directory, if the command had one (still there until the outcome
    /// is dropped).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_ref().map(|d| d.path())
    }
}

impl Cmd {
    /// Runs the child to its end (or its deadline, or its stop flag) and reaps it.
    pub fn run(&mut self) -> Result<Outcome, Error> {
        let stop = self.stop.clone();
        self.run_inner(stop.as_deref())
    }

    /// [`Cmd::run`] with a borrowed stop flag (instead of [`Cmd::stop_on`]'s).
    pub fn run_until(&mut self, stop: &AtomicBool) -> Result<Outcome, Error> {
        self.run_inner(Some(stop))
    }

    fn run_inner(&mut self, stop: Option<&AtomicBool>) -> Result<Outcome, Error> {
        let started = Instant::now();
        let (mut child, registered) = self.spawn(Stdio::null(), Stdio::piped(), Stdio::piped())?;
        let id = child.id();
        let pid = i32::try_from(id).unwrap_or(0);
        let out = child.stdout.take().map(|r| Draining::start(r, self.cap));
        let err = child.stderr.take().map(|r| Draining::start(r, self.cap));
        // Never waited for through std: reaped below with wait4.
        drop(child);
        let until = self.timeout.map(|t| (started + t, t));
        let (seen, wall, why) = std::thread::scope(|s| {
            let (quit, quit_rx) = mpsc::channel::<()>();
            let watcher = (until.is_some() || stop.is_some())
                .then(|| s.spawn(move || watch(pid, &quit_rx, until, stop)));
            // Blocks until the leader ends, without reaping it: the group id stays ours
            // while the watcher may still kill.
            let seen = sys::exited(pid, true);
            let wall = started.elapsed();
            drop(quit);
            let why = watcher.and_then(|w| w.join().ok()).flatten();
            (seen, wall, why)
        });
        // Whatever the leader left running in its group (its leader is not reaped yet).
        sys::kill_group(pid);
        let reaped = sys::wait4(pid);
        if reaped.is_ok() {
            registered.reaped();
        }
        let (raw, usage) = match (seen, reaped) {
            (_, Ok(r)) => r,
            (Err(source), Err(_)) | (Ok(_), Err(source)) => {
                return Err(Error::Wait { pid: id, source })
            }
        };
        let finish = |d: Option<Draining>| d.map(|d| d.finish(GRACE)).unwrap_or_default();
        Ok(Outcome {
            exit: Exit {
                pid: id,
                ended: Ended::classify(raw, why),
                usage,
                wall,
            },
            stdout: finish(out),
            stderr: finish(err),
            dir: self.dir.take(),
        })
    }
}

/// Kills the group `pgid` past `until` or once `stop` is set; ends without killing when
/// `quit` says the leader has ended. Returns why it killed.
fn watch(
    pgid: i32,
    quit: &Receiver<()>,
    until: Option<(Instant, Duration)>,
    stop: Option<&AtomicBool>,
) -> Option<Ended> {
    loop {
        if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            sys::kill_group(pgid);
            return Some(Ended::Interrupted);
        }
        let now = Instant::now();
        let mut nap = TICK;
        if let Some((at, t)) = until {
            if now >= at {
                sys::kill_group(pgid);
                return Some(Ended::TimedOut(t));
            }
            nap = at - now;
            if stop.is_some() {
                nap = nap.min(TICK);
            }
        }
        match quit.recv_timeout(nap) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return None,
        }
    }
}
