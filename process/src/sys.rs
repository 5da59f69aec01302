//! Every `unsafe` of the crate: kill(2) and killpg(2), waitid(2) with `WNOWAIT` (has the
//! child ended? without reaping it), wait4(2) (reaping, with the child's rusage),
//! getrusage(2), SIGPIPE's action and per-thread mask (signal(2), pthread_sigmask(3)),
//! prctl(2) `PR_SET_CHILD_SUBREAPER` (orphans come back to this process), getpgid(2),
//! fcntl(2) `FD_CLOEXEC` (a descriptor passed to one child), and mallopt(3)
//! `M_ARENA_MAX`. std reaps with waitpid,
//! offers no rusage and signals a child's leader only, never its group.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

use crate::ended::{Ended, Usage};
use std::io;

/// The signal that ends a group.
pub(crate) const SIGKILL: i32 = libc::SIGKILL;

fn usage_of(r: &libc::rusage) -> Usage {
    let us = |t: libc::timeval| (t.tv_sec.max(0) as u64) * 1_000_000 + t.tv_usec.max(0) as u64;
    Usage {
        user_us: us(r.ru_utime),
        sys_us: us(r.ru_stime),
        // Linux reports ru_maxrss in kilobytes.
        maxrss_kb: r.ru_maxrss.max(0) as u64,
    }
}

/// SIGKILL to the process group `pgid` and to its leader `pgid` itself, which may have
/// left the group (setpgid(2) into another group of the session: a library's doing). The
/// caller promises that the leader (a child of this process, `pgid` its pid) is not
/// reaped yet, so the id still names the group this crate created and the process.
pub(crate) fn kill_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: killpg(2) and kill(2) take plain integers and touch no memory of ours;
        // the group is the one created for a child whose leader is still unreaped.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
            libc::kill(pgid, libc::SIGKILL);
        }
    }
}

/// The process group of `pid` (an unreaped child: the caller's promise), if it has one.
pub(crate) fn group_of(pid: i32) -> Option<i32> {
    // SAFETY: getpgid(2) takes a plain integer.
    let g = unsafe { libc::getpgid(pid) };
    (g > 0).then_some(g)
}

/// Reaps the child `pid` if it has ended (wait4 `WNOHANG`): whether it was reaped.
pub(crate) fn reap_if_ended(pid: i32) -> bool {
    let mut status: libc::c_int = 0;
    // SAFETY: `status` is a valid out-parameter of this frame; rusage may be NULL.
    let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, std::ptr::null_mut()) };
    got == pid
}

/// Makes this process the reaper of its orphaned descendants (prctl(2)
/// `PR_SET_CHILD_SUBREAPER`): a process whose parent dies is re-parented here, not to
/// init, so that it can be found and killed. Not inherited by children.
pub(crate) fn become_subreaper() -> io::Result<()> {
    // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes plain integers.
    match unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Sets or clears `FD_CLOEXEC` on `fd` (a descriptor this process owns): a descriptor
/// without it is inherited by the next child started.
pub(crate) fn set_inheritable(fd: std::os::fd::BorrowedFd<'_>, on: bool) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = fd.as_raw_fd();
    // SAFETY: fcntl(2) F_GETFD/F_SETFD on a descriptor the caller borrows (open for the
    // duration of the call) takes and returns plain integers.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        let flags = if on {
            flags & !libc::FD_CLOEXEC
        } else {
            flags | libc::FD_CLOEXEC
        };
        if libc::fcntl(fd, libc::F_SETFD, flags) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Sends `sig` to the process `pid` (an unreaped child: the caller's promise).
pub(crate) fn signal(pid: i32, sig: i32) -> io::Result<()> {
    if pid <= 0 {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    match unsafe { libc::kill(pid, sig) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Whether the child `pid` has ended, leaving it unreaped (waitid `WNOWAIT`): its pid,
/// and with it its group id, stay reserved until [`wait4`]. With `block`, waits for it.
pub(crate) fn exited(pid: i32, block: bool) -> io::Result<bool> {
    let id = libc::id_t::try_from(pid).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let flags = libc::WEXITED | libc::WNOWAIT | if block { 0 } else { libc::WNOHANG };
    loop {
        // SAFETY: siginfo_t is plain data, for which all zeroes is a valid value (and
        // what WNOHANG leaves in it when no child has ended).
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid out-parameter of this frame; P_PID names one child.
        let r = unsafe { libc::waitid(libc::P_PID, id, &mut info, flags) };
        if r == 0 {
            // SAFETY: waitid filled `info` for a child's state change (the SIGCHLD
            // layout, whose pid si_pid reads) or left it zeroed (si_pid reads 0).
            return Ok(unsafe { info.si_pid() } == pid);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Reaps the child `pid` (blocking): how it ended and its resource usage (Linux: its own
/// plus that of the descendants it reaped). Nobody else may wait for it.
pub(crate) fn wait4(pid: i32) -> io::Result<(Ended, Usage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data, for which all zeroes is a valid value.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `r` are valid out-parameters of this frame; `pid` is a
        // child of this process that only this crate waits for.
        let got = unsafe { libc::wait4(pid, &mut status, 0, &mut r) };
        if got == pid {
            break;
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let ended = if libc::WIFSIGNALED(status) {
        Ended::Signaled(libc::WTERMSIG(status))
    } else {
        Ended::Exited(libc::WEXITSTATUS(status))
    };
    Ok((ended, usage_of(&r)))
}

fn getrusage(who: libc::c_int) -> Usage {
    // SAFETY: rusage is plain data, for which all zeroes is a valid value.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `r` is a valid out-parameter of this frame; `who` is RUSAGE_SELF or
    // RUSAGE_CHILDREN.
    if unsafe { libc::getrusage(who, &mut r) } != 0 {
        return Usage::default();
    }
    usage_of(&r)
}

pub(crate) fn usage_self() -> Usage {
    getrusage(libc::RUSAGE_SELF)
}

pub(crate) fn usage_children() -> Usage {
    getrusage(libc::RUSAGE_CHILDREN)
}

/// SIGPIPE's default action (terminate) for the whole process.
pub(crate) fn default_sigpipe() {
    // SAFETY: signal(2) with SIG_DFL installs no Rust code as a handler.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}

/// SIGPIPE blocked for the calling thread only (once per thread).
pub(crate) fn block_sigpipe_in_thread() {
    thread_local! {
        static BLOCKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if BLOCKED.with(|b| b.replace(true)) {
        return;
    }
    // SAFETY: sigset_t is plain data initialised by sigemptyset; pthread_sigmask only
    // changes this thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// fork(2): `0` in the child, the child's pid in the parent. The caller (`zygote.rs`)
/// has checked that this process runs one thread, so no lock or allocator state of
/// another thread is copied half-held into the child.
pub(crate) fn fork() -> io::Result<i32> {
    // SAFETY: fork(2) takes no argument; with one thread in the process (the caller's
    // check) the child's copy of the address space is consistent, and the child goes on
    // running this same single-threaded program.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid)
}

/// Flushes the C library's stdio buffers (what a library printed with `printf` stays
/// captured) and ends the process at once with `code`: no exit handlers, no
/// destructors, no unloading of the libraries (`_exit(2)`).
pub(crate) fn exit_now(code: i32) -> ! {
    // SAFETY: fflush(NULL) flushes every open output stream and takes no pointer of
    // ours; _exit(2) ends the process and does not return.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(code)
    }
}

/// mallopt(3) `M_ARENA_MAX`: at most `n` malloc arenas from now on (glibc only).
pub(crate) fn limit_malloc_arenas(n: i32) {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt(3) takes two integers and touches no memory of ours; it changes
    // the allocator's policy for arenas not yet created.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, n);
    }
    #[cfg(not(target_env = "gnu"))]
    let _ = n;
}
