//! How a child ended and what it used: one type for every caller.

use crate::sys::SIGKILL;
use std::time::Duration;

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it (not the supervisor's deadline or stop flag).
    Signaled(i32),
    /// The supervisor killed its group past this deadline.
    TimedOut(Duration),
    /// The supervisor killed its group because the stop flag was set (Ctrl-C).
    Interrupted,
}

impl Ended {
    /// The exit code, if it exited.
    pub fn code(&self) -> Option<i32> {
        match self {
            Ended::Exited(c) => Some(*c),
            _ => None,
        }
    }

    /// The signal that killed it, if one did (and not the supervisor).
    pub fn signal(&self) -> Option<i32> {
        match self {
            Ended::Signaled(s) => Some(*s),
            _ => None,
        }
    }

    /// Exited with 0.
    pub fn success(&self) -> bool {
        *self == Ended::Exited(0)
    }

    /// The reaped status told apart from the supervisor's own kill: a SIGKILL the
    /// supervisor sent (`why`) is reported as its reason.
    pub(crate) fn classify(raw: Ended, why: Option<Ended>) -> Ended {
        match (why, raw) {
            (Some(w), Ended::Signaled(SIGKILL)) => w,
            _ => raw,
        }
    }
}

/// "exited with 1", "was killed by SIGSEGV", "was killed after 60s", "was interrupted".
impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Exited(c) => write!(f, "exited with {c}"),
            Ended::Signaled(s) => write!(f, "was killed by {}", signal_name(*s)),
            Ended::TimedOut(d) if d.subsec_nanos() == 0 => {
                write!(f, "was killed after {}s", d.as_secs())
            }
            Ended::TimedOut(d) => write!(f, "was killed after {d:?}"),
            Ended::Interrupted => f.write_str("was interrupted"),
        }
    }
}

/// The part of `struct rusage` mpit-conform reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// User CPU time, microseconds.
    pub user_us: u64,
    /// System CPU time, microseconds.
    pub sys_us: u64,
    /// Peak resident set size, KiB. Of a reaped child (and of `RUSAGE_CHILDREN`) it is
    /// the largest of it and its reaped descendants, not a sum.
    pub maxrss_kb: u64,
}

impl Usage {
    /// User + system time.
    pub fn cpu(&self) -> Duration {
        Duration::from_micros(self.user_us + self.sys_us)
    }
}

/// A reaped child: how it ended, what it used, how long it lived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// Its process id (and process group id).
    pub pid: u32,
    pub ended: Ended,
    /// wait4(2)'s: the child's own and that of the descendants it reaped.
    pub usage: Usage,
    /// From just before the spawn to its end being seen.
    pub wall: Duration,
}

/// A signal's name (`SIGSEGV`), or `signal N` for the rarer ones.
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
