//! A long-lived child the caller talks to over its stdin and stdout (mpit-conform's
//! suite workers). The protocol and its per-message deadlines are the caller's; this
//! is the starting, the signalling, the killing of the group and the reaping. A child
//! dropped while alive is killed with its group and reaped.

use crate::orphans::Registered;
use crate::{sys, Cmd, Ended, Error, Exit, Tail};
use std::process::{ChildStdin, ChildStdout, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A started child: piped stdin and stdout, stderr drained into a [`Tail`].
pub struct Running {
    pid: i32,
    /// Its entry in the registry of children (swept for orphans once reaped).
    registered: Registered,
    started: Instant,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    tail: Tail,
    /// Once reaped.
    exit: Option<Exit>,
    until: Option<(Instant, Duration)>,
    stop: Option<Arc<AtomicBool>>,
    /// Removed after the group is killed (field order: dropped after `Drop::drop`).
    _dir: Option<tempfile::TempDir>,
}

impl Cmd {
    /// Starts the child in its own process group with piped stdin and stdout (for the
    /// caller to take: [`Running::take_stdin`], [`Running::take_stdout`]) and its stderr
    /// kept as a [`Tail`]. The command's deadline and stop flag are honoured by
    /// [`Running::try_wait`] and the waits built on it.
    pub fn start(&mut self) -> Result<Running, Error> {
        let started = Instant::now();
        let (mut child, registered) = self.spawn(Stdio::piped(), Stdio::piped(), Stdio::piped())?;
        let pid = i32::try_from(child.id()).unwrap_or(0);
        let tail = match child.stderr.take() {
            Some(e) => Tail::drain(e),
            None => Tail::drain(std::io::empty()),
        };
        Ok(Running {
            pid,
            registered,
            started,
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            tail,
            exit: None,
            until: self.timeout.map(|t| (started + t, t)),
            stop: self.stop.clone(),
            _dir: self.dir.take(),
        })
        // `child` is dropped without a wait: the reaping is wait4's, here.
    }
}

impl Running {
    pub fn pid(&self) -> u32 {
        self.pid.unsigned_abs()
    }

    /// The child's stdin (once).
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// The child's stdout (once).
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.stdout.take()
    }

    /// The last lines of its stderr.
    pub fn tail(&self) -> &Tail {
        &self.tail
    }

    /// Sends `sig` to the child (its leader, not the group), unless it was reaped.
    pub fn signal(&self, sig: i32) -> std::io::Result<()> {
        match self.exit {
            Some(_) => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
            None => sys::signal(self.pid, sig),
        }
    }

    /// How it ended, if it has: reaped now (after its group is killed). Past the
    /// command's deadline, or once its stop flag is set, it is killed first.
    pub fn try_wait(&mut self) -> Result<Option<Exit>, Error> {
        if let Some(e) = self.exit {
            return Ok(Some(e));
        }
        let ended = sys::exited(self.pid, false).map_err(|source| self.wait_error(source))?;
        if ended {
            return self.reap(None).map(Some);
        }
        if self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst)) {
            return self.reap(Some(Ended::Interrupted)).map(Some);
        }
        match self.until {
            Some((at, t)) if Instant::now() >= at => self.reap(Some(Ended::TimedOut(t))).map(Some),
            _ => Ok(None),
        }
    }

    /// [`Running::try_wait`] for up to `wait`: polls from 50 µs doubling to 5 ms (a
    /// child told to quit usually exits within a millisecond).
    pub fn wait_for(&mut self, wait: Duration) -> Result<Option<Exit>, Error> {
        let deadline = Instant::now() + wait;
        let mut nap = 0u32;
        loop {
            if let Some(e) = self.try_wait()? {
                return Ok(Some(e));
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_micros((50u64 << nap.min(7)).min(5000)));
            nap += 1;
        }
    }

    /// Waits for its end (or its deadline, or its stop flag).
    pub fn wait(&mut self) -> Result<Exit, Error> {
        loop {
            if let Some(e) = self.wait_for(Duration::from_secs(1))? {
                return Ok(e);
            }
        }
    }

    /// Kills its whole group and reaps it; how it ended (`Signaled(SIGKILL)` unless it
    /// had ended already).
    pub fn kill(&mut self) -> Result<Exit, Error> {
        match self.exit {
            Some(e) => Ok(e),
            None => self.reap(None),
        }
    }

    /// Kills the group (the leader is not reaped yet: the id is still the group's), then
    /// reaps the leader. `why`: the supervisor's reason for the kill.
    fn reap(&mut self, why: Option<Ended>) -> Result<Exit, Error> {
        sys::kill_group(self.pid);
        let (raw, usage) = sys::wait4(self.pid).map_err(|source| self.wait_error(source))?;
        self.registered.reaped();
        let e = Exit {
            pid: self.pid(),
            ended: Ended::classify(raw, why),
            usage,
            wall: self.started.elapsed(),
        };
        self.exit = Some(e);
        Ok(e)
    }

    fn wait_error(&self, source: std::io::Error) -> Error {
        Error::Wait {
            pid: self.pid(),
            source,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.exit.is_none() {
            let _ = self.reap(None);
        }
    }
}
