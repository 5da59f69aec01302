//! A zygote's forks: a worker that has done what every job has in common (parsed the
//! cases, loaded the library, maybe initialized MPI_T) makes a pristine copy of itself
//! per job instead of the supervisor exec-ing a new worker. The child stays in the
//! zygote's process group (a kill of the zygote's group reaches it, and whatever it
//! starts), inherits its channel, its page of the call in flight and its stderr; the
//! zygote waits for it with wait4(2) and tells the supervisor how it ended.
//!
//! fork(2) is only safe in a process with one thread: another thread's locks (the
//! allocator's, the library's) would be copied held. [`fork`] reads `/proc/self/task`
//! before each fork and refuses when a library started a thread.

use crate::{sys, Ended, Error, Exit};
use std::time::Instant;

/// Ends a forked child whose work is done and whose exit nobody judges (its C stdio
/// flushed first): the library's exit handlers, destructors and unloading, and the
/// unmapping they do, were most of a short child's end. Never for a worker whose death
/// at exit is a finding (a suite job's).
pub fn exit_child(code: i32) -> ! {
    sys::exit_now(code)
}

/// The threads of this process (`/proc/self/task`'s entries).
pub fn threads() -> std::io::Result<usize> {
    Ok(std::fs::read_dir("/proc/self/task")?.count())
}

/// Which side of a fork this is.
pub enum Forked {
    /// The new process (its parent waits for it).
    Child,
    /// The parent, with its child to wait for.
    Parent(ForkedChild),
}

/// A forked child, to be reaped by [`ForkedChild::wait`].
pub struct ForkedChild {
    pid: i32,
    started: Instant,
}

/// Forks this process, unless it runs more than one thread ([`Error::Threads`]).
pub fn fork() -> Result<Forked, Error> {
    let n = threads().map_err(Error::Fork)?;
    if n != 1 {
        return Err(Error::Threads(n));
    }
    let started = Instant::now();
    match sys::fork().map_err(Error::Fork)? {
        0 => Ok(Forked::Child),
        pid => Ok(Forked::Parent(ForkedChild { pid, started })),
    }
}

impl ForkedChild {
    pub fn pid(&self) -> u32 {
        self.pid.unsigned_abs()
    }

    /// Kills the child (SIGKILL); [`ForkedChild::wait`] then reaps it.
    pub fn kill(&self) {
        let _ = sys::signal(self.pid, libc::SIGKILL);
    }

    /// Waits for the child's end and reaps it: how it ended, its resource usage.
    pub fn wait(self) -> Result<Exit, Error> {
        let (raw, usage) = sys::wait4(self.pid).map_err(|source| Error::Wait {
            pid: self.pid(),
            source,
        })?;
        Ok(Exit {
            pid: self.pid(),
            ended: Ended::classify(raw, None),
            usage,
            wall: self.started.elapsed(),
        })
    }
}
