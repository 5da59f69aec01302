//! The hostile-library faults (`faults::hostile::HostileFault`): the reference doing to
//! its process what real MPI libraries do (Open MPI, Intel MPI and MPICH builds install
//! signal handlers that print a backtrace and exit; daemonizing code closes descriptors
//! and forks helpers that leave the process group; libraries register exit handlers and
//! change the working directory, the umask and resource limits). The crashes are real
//! faults (an access to a page without access rights, a read past the end of a mapped
//! file), not `raise`, so that a blocked signal or a replaced handler acts as it would
//! on a vendor's bug. The forks here are the library's behaviour under test, not
//! supervision (`process/tests/spawn_confined.rs` names this file).

use super::process::Point;
use crate::faults::hostile::HostileFault;
use crate::faults::{CRASHING_CVAR, HANGING_CVAR};
use std::collections::BTreeSet;
use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// The exit code of the reference's own fatal-signal handlers (`handlers-exit`).
pub(crate) const HANDLER_EXIT: c_int = 14;

fn active() -> &'static BTreeSet<HostileFault> {
    static SET: OnceLock<BTreeSet<HostileFault>> = OnceLock::new();
    SET.get_or_init(HostileFault::from_env)
}

/// Misbehaves at `p` if a hostile fault says so; returns otherwise.
pub(crate) fn strike(p: Point) {
    let on = active();
    if on.is_empty() {
        return;
    }
    let handlers =
        on.contains(&HostileFault::HandlersExit) || on.contains(&HostileFault::HandlersReraise);
    let blocked = on.contains(&HostileFault::SignalsBlocked);
    match p {
        Point::VersionQuery | Point::MpiInit if on.contains(&HostileFault::ForkedMpiInit) => {
            forked_mpi_init(p)
        }
        Point::InitThread => first_init(on),
        Point::CvarGetInfo(CRASHING_CVAR) if handlers || blocked => segv(),
        Point::CvarGetInfo(HANGING_CVAR) if blocked || on.contains(&HostileFault::LeaveGroup) => {
            hang()
        }
        Point::PvarSessionFree if handlers => bus(),
        Point::CvarHandleFree if handlers => std::process::abort(),
        _ => {}
    }
}

/// `forked-mpi-init`: the process that first queried the version is the library's;
/// MPI_Init in another one (a fork's child) aborts.
fn forked_mpi_init(p: Point) {
    static FIRST: OnceLock<u32> = OnceLock::new();
    let first = *FIRST.get_or_init(std::process::id);
    if matches!(p, Point::MpiInit) && first != std::process::id() {
        eprintln!("mpit-reference: MPI_Init in a forked process (forked-mpi-init)");
        std::process::abort();
    }
}

fn hang() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// What each hostile fault does at the process's first `MPI_T_init_thread`.
fn first_init(on: &BTreeSet<HostileFault>) {
    static FIRST: AtomicBool = AtomicBool::new(true);
    if !FIRST.swap(false, Ordering::SeqCst) {
        return;
    }
    for f in on {
        match f {
            HostileFault::HandlersExit => handlers(exit_handler),
            HostileFault::HandlersReraise => handlers(reraise_handler),
            HostileFault::SignalsBlocked => block_signals(),
            HostileFault::CloseFds => close_fds(),
            HostileFault::CloseAllFds => close_all_fds(),
            HostileFault::CloseFdsForGood => {
                close_all_fds();
                lower_limit(libc::RLIMIT_NOFILE, 3);
            }
            HostileFault::Dup2OverFds => dup2_over_fds(),
            HostileFault::ForkDaemon => fork_daemon(false),
            HostileFault::SetsidDaemon => fork_daemon(true),
            HostileFault::LeaveGroup => leave_group(),
            HostileFault::HangAtExit => hang_at_exit(),
            HostileFault::Chdir => {
                let _ = std::env::set_current_dir("/");
            }
            HostileFault::Umask => {
                // SAFETY: umask(2) takes and returns plain integers.
                unsafe { libc::umask(0o777) };
            }
            HostileFault::Rlimits => lower_limits(),
            HostileFault::ThreadAtInit => sleeping_thread(),
            // At load, not here (`at_load`); at MPI_Init (`forked_mpi_init`).
            HostileFault::ThreadAtLoad | HostileFault::ForkedMpiInit => {}
        }
    }
}

/// A real SIGSEGV: a write to a page mapped without access rights.
fn segv() -> ! {
    // SAFETY: mmap of one anonymous page with no access rights; the volatile write to
    // it faults (SIGSEGV), which is the point. The page is never unmapped.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if p != libc::MAP_FAILED {
            std::ptr::write_volatile(p.cast::<u8>(), 1);
        }
    }
    super::crash()
}

/// A real SIGBUS: a read of a mapped page past the end of its (empty) file.
fn bus() -> ! {
    // SAFETY: memfd_create with a NUL-terminated literal; mmap of one page of the empty
    // file; the volatile read past its end raises SIGBUS, which is the point.
    unsafe {
        let fd = libc::memfd_create(c"mpit-reference-sigbus".as_ptr(), libc::MFD_CLOEXEC);
        if fd >= 0 {
            let p = libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ,
                libc::MAP_SHARED,
                fd,
                0,
            );
            if p != libc::MAP_FAILED {
                let _ = std::ptr::read_volatile(p.cast::<u8>());
            }
        }
    }
    super::crash()
}

fn say(msg: &[u8]) {
    // SAFETY: write(2) on fd 2 from a valid slice; async-signal-safe.
    unsafe { libc::write(2, msg.as_ptr().cast(), msg.len()) };
}

extern "C" fn exit_handler(_sig: c_int) {
    say(b"mpit-reference: caught a fatal signal; exiting with 14\n");
    // SAFETY: _exit(2) is async-signal-safe and ends the process at once.
    unsafe { libc::_exit(HANDLER_EXIT) };
}

extern "C" fn reraise_handler(sig: c_int) {
    say(b"mpit-reference: caught a fatal signal; raising it again\n");
    // SAFETY: signal(2) with SIG_DFL and raise(3) are async-signal-safe; the signal is
    // blocked in its handler, so it is delivered (and ends the process) on return.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// The library's own SIGSEGV, SIGBUS and SIGABRT handlers, replacing whatever the
/// process had.
fn handlers(h: extern "C" fn(c_int)) {
    for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGABRT] {
        // SAFETY: sigaction with a zeroed struct (plain data) naming an `extern "C"`
        // handler that only makes async-signal-safe calls.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = h as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// No alternate signal stack, and every signal that can be blocked blocked in the
/// calling thread.
fn block_signals() {
    // SAFETY: sigaltstack with SS_DISABLE reads only the flag; sigfillset initializes the
    // set; pthread_sigmask changes this thread's mask.
    unsafe {
        let ss = libc::stack_t {
            ss_sp: std::ptr::null_mut(),
            ss_flags: libc::SS_DISABLE,
            ss_size: 0,
        };
        libc::sigaltstack(&ss, std::ptr::null_mut());
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
    }
}

fn close_fds() {
    for fd in 3..1024 {
        // SAFETY: close(2) of a number; the library does not care what it closes.
        unsafe { libc::close(fd) };
    }
}

fn close_all_fds() {
    // SAFETY: close_range(2) closes descriptors by number, as daemonizing code does.
    if unsafe { libc::close_range(3, libc::c_uint::MAX, 0) } == 0 {
        return;
    }
    // SAFETY: getrlimit fills a plain struct of this frame.
    let max = unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut r);
        r.rlim_cur.min(1 << 20) as c_int
    };
    for fd in 3..max {
        // SAFETY: close(2) of a number.
        unsafe { libc::close(fd) };
    }
}

fn dup2_over_fds() {
    let fds: Vec<c_int> = std::fs::read_dir("/proc/self/fd")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .filter(|fd| *fd >= 3)
                .collect()
        })
        .unwrap_or_default();
    // SAFETY: open of a NUL-terminated literal; dup2 and close of numbers.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null < 0 {
            return;
        }
        for fd in fds.into_iter().filter(|fd| *fd != null) {
            libc::dup2(null, fd);
        }
        libc::close(null);
    }
}

/// The child of a fork that only waits for signals: what a library's helper does while
/// it holds the descriptors it inherited. Async-signal-safe, as a child of a
/// multi-threaded process must be.
fn sleep_forever() -> ! {
    loop {
        // SAFETY: pause(2) takes nothing.
        unsafe { libc::pause() };
    }
}

/// A helper that holds every descriptor of the process; with `setsid`, a daemon of a
/// session of its own (forked twice, so that its parent is gone and it is nobody's
/// process group member).
fn fork_daemon(setsid: bool) {
    // SAFETY: fork(2); the child makes only async-signal-safe calls (setsid, fork,
    // _exit, pause). The parent reaps the intermediate child of a double fork.
    unsafe {
        let pid = libc::fork();
        if pid != 0 {
            if setsid && pid > 0 {
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            return;
        }
        if setsid {
            libc::setsid();
            if libc::fork() != 0 {
                libc::_exit(0);
            }
        }
    }
    sleep_forever()
}

/// The process leaves its process group for the group of a helper it forks.
fn leave_group() {
    // SAFETY: fork(2); the child makes only async-signal-safe calls. setpgid(2) takes
    // plain integers: the helper leads a new group, which the parent then joins.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            libc::setpgid(0, 0);
            sleep_forever();
        }
        if pid > 0 {
            libc::setpgid(pid, pid);
            libc::setpgid(0, pid);
        }
    }
}

/// A thread of the library's own that sleeps for good (a progress or monitoring thread).
fn sleeping_thread() {
    let _ = std::thread::Builder::new()
        .name("mpit-ref-sleeper".into())
        .spawn(|| hang());
}

/// `thread-at-load`: the cdylib's constructor starts a thread. Only in the cdylib a
/// program dlopens (its file is `libmpit_reference.so`): the same code linked into
/// mpit-conform (`builtin:reference`) does nothing here.
extern "C" fn at_load() {
    if !active().contains(&HostileFault::ThreadAtLoad) {
        return;
    }
    // SAFETY: dladdr(3) fills a plain struct of this frame for an address of this
    // object; dli_fname, when set, is a NUL-terminated path owned by the loader.
    let in_cdylib = unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        libc::dladdr(at_load as *const libc::c_void, &mut info) != 0
            && !info.dli_fname.is_null()
            && std::ffi::CStr::from_ptr(info.dli_fname)
                .to_string_lossy()
                .ends_with(".so")
    };
    if in_cdylib {
        sleeping_thread();
    }
}

/// The constructor of the loaded object (ELF `.init_array`).
#[used]
#[link_section = ".init_array"]
static AT_LOAD: extern "C" fn() = at_load;

fn hang_at_exit() {
    extern "C" fn never_returns() {
        hang()
    }
    // SAFETY: atexit(3) with an `extern "C"` function that takes nothing.
    unsafe { libc::atexit(never_returns) };
}

fn lower_limits() {
    lower_limit(libc::RLIMIT_NOFILE, 64);
    lower_limit(libc::RLIMIT_STACK, 1 << 20);
}

/// The soft limit on `res` lowered to `soft` (the hard limit as it is).
fn lower_limit(res: libc::__rlimit_resource_t, soft: libc::rlim_t) {
    // SAFETY: getrlimit/setrlimit with a plain struct of this frame.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(res, &mut r) == 0 {
            r.rlim_cur = soft.min(r.rlim_max);
            libc::setrlimit(res, &r);
        }
    }
}
