//! Resource accounting for `mpit-conform bench`: getrusage(2) and wait4(2). std reaps
//! children with waitpid and offers no rusage, so the bench reaps the processes it
//! measures itself, here.

use std::time::Duration;

/// The part of `struct rusage` the bench reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// User CPU time, microseconds.
    pub user_us: u64,
    /// System CPU time, microseconds.
    pub sys_us: u64,
    /// Peak resident set size, KiB (Linux reports ru_maxrss in kilobytes). For
    /// `RUSAGE_CHILDREN` it is the largest of the waited-for descendants, not a sum.
    pub maxrss_kb: u64,
}

impl Usage {
    fn of(r: &libc::rusage) -> Usage {
        let us = |t: libc::timeval| (t.tv_sec.max(0) as u64) * 1_000_000 + t.tv_usec.max(0) as u64;
        Usage {
            user_us: us(r.ru_utime),
            sys_us: us(r.ru_stime),
            maxrss_kb: r.ru_maxrss.max(0) as u64,
        }
    }

    /// User + system time.
    pub fn cpu(&self) -> Duration {
        Duration::from_micros(self.user_us + self.sys_us)
    }
}

fn getrusage(who: libc::c_int) -> Usage {
    // SAFETY: rusage is plain data; getrusage(2) fills it and reads nothing from it.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `r` is a valid out-parameter of this frame; RUSAGE_SELF/CHILDREN are valid.
    if unsafe { libc::getrusage(who, &mut r) } != 0 {
        return Usage::default();
    }
    Usage::of(&r)
}

/// This process (all its threads).
pub fn usage_self() -> Usage {
    getrusage(libc::RUSAGE_SELF)
}

/// This process's children that have terminated and been waited for (and theirs).
pub fn usage_children() -> Usage {
    getrusage(libc::RUSAGE_CHILDREN)
}

/// How a waited-for child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Exited(i32),
    Signaled(i32),
}

/// Waits for the child `pid` (blocking) and returns how it ended and its resource usage
/// (Linux: the child's own plus that of its waited-for descendants). The caller must not
/// also wait for it through `std::process::Child`.
pub fn wait4(pid: u32) -> std::io::Result<(Ended, Usage)> {
    let pid = libc::pid_t::try_from(pid)
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data, filled by wait4.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `r` are valid out-parameters of this frame; `pid` names a
        // child of this process that nobody else waits for (the caller's promise).
        let got = unsafe { libc::wait4(pid, &mut status, 0, &mut r) };
        if got == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let ended = if libc::WIFSIGNALED(status) {
        Ended::Signaled(libc::WTERMSIG(status))
    } else {
        Ended::Exited(libc::WEXITSTATUS(status))
    };
    Ok((ended, Usage::of(&r)))
}
