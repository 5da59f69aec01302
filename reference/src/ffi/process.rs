//! The process faults (`faults::ProcessFault`): the reference misbehaving as a process
//! the way vendor libraries do — dying by a signal, hanging, exiting, printing — so the
//! harness's tests can show that every such run still ends with a whole report.

use crate::faults::{ProcessFault, CRASHING_CVAR, HANGING_CVAR};
use std::collections::BTreeSet;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// Where a process fault can strike.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Point {
    /// `MPI_Get_version` or `MPI_Get_library_version`.
    VersionQuery,
    MpiInit,
    InitThread,
    CvarGetInfo(i32),
    PvarSessionFree,
    CvarHandleFree,
}

fn active() -> &'static BTreeSet<ProcessFault> {
    static SET: OnceLock<BTreeSet<ProcessFault>> = OnceLock::new();
    SET.get_or_init(ProcessFault::from_env)
}

fn segfault() -> ! {
    // SAFETY: raise(2) with a valid signal number; the default action ends the process
    // (a handler installed by the caller runs first, as it would on a real fault).
    unsafe { libc::raise(libc::SIGSEGV) };
    std::process::abort()
}

fn hang() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Misbehaves at `p` if a process fault says so; returns otherwise.
pub(crate) fn strike(p: Point) {
    super::hostile::strike(p);
    let on = active();
    if on.is_empty() {
        return;
    }
    match p {
        Point::CvarGetInfo(CRASHING_CVAR) if on.contains(&ProcessFault::CrashInGetInfo) => {
            segfault()
        }
        Point::CvarGetInfo(HANGING_CVAR) if on.contains(&ProcessFault::HangInGetInfo) => hang(),
        Point::PvarSessionFree if on.contains(&ProcessFault::ExitInCall) => std::process::exit(1),
        Point::CvarHandleFree if on.contains(&ProcessFault::AbortInCall) => std::process::abort(),
        Point::InitThread => init_thread(on),
        _ => {}
    }
}

fn init_thread(on: &BTreeSet<ProcessFault>) {
    if on.contains(&ProcessFault::CrashInInit) {
        segfault();
    }
    if on.contains(&ProcessFault::HangInInit) {
        hang();
    }
    // The rest strike once per process, at the first init.
    static FIRST: AtomicBool = AtomicBool::new(true);
    if !FIRST.swap(false, Ordering::SeqCst) {
        return;
    }
    if on.contains(&ProcessFault::ThreadCrash) {
        std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(20));
            segfault();
        });
    }
    if on.contains(&ProcessFault::NoisyOutput) {
        let mut out = std::io::stdout().lock();
        // A protocol-looking line, bytes that are not UTF-8, and a line left open.
        let _ =
            out.write_all(b"@@mpit-conform@@ {\"Done\":{\"job\":0,\"log\":{},\"clean\":true}}\n");
        let _ = out.write_all(b"{\"Ready\":null}\n\xff\xfe not utf-8\n");
        let _ = out.write_all(b"mpit-reference: starting up ...");
        let _ = out.flush();
        let mut err = std::io::stderr().lock();
        for i in 0..5000 {
            let _ = writeln!(err, "mpit-reference: noisy-output line {i} of 5000");
        }
    }
    if on.contains(&ProcessFault::CrashAtExit) {
        extern "C" fn at_exit() {
            segfault()
        }
        // SAFETY: atexit(3) with an `extern "C"` function that takes nothing.
        unsafe { libc::atexit(at_exit) };
    }
    if on.contains(&ProcessFault::CloseStdout) {
        // SAFETY: close(2) on fd 1, which this process owns; later writes to it fail
        // with EBADF (or reach whatever file takes the number), as in a real library.
        unsafe { libc::close(1) };
    }
}
