//! The call in flight, told to the supervisor when the library kills the worker.
//!
//! A vendor reading "crash" wants the call that crashed, not only the case. Before each
//! call the executor stores its text here (no system call: a copy into atomics), and
//! clears it after. In a worker the text lives in the page the supervisor reads after
//! the worker's death (`page`): that record is the source of truth, whatever the
//! library does to signals and descriptors. Elsewhere (an in-process fuzzer) it lives in
//! a static buffer.
//!
//! As an extra, handlers of the worker's own report what they see: on a fatal signal
//! (or `exit()` from a library's abort path) they record the signal and whether it hit
//! another thread than the caller's in the page, and write one line
//! `@@mpit-in-flight <call>` to stderr for a reader of the library's output. They only
//! read and write atomics and call write(2) and raise(2), which are async-signal-safe. A
//! library that installs handlers of its own replaces them; the page still names the
//! call.
//!
//! After each call, the worker's channel to the supervisor is checked (`stdio`): a
//! library that closed or replaced its descriptors is caught in the act, and the call
//! named.

use super::{page, stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU8, Ordering};

/// The marker the supervisor looks for at the start of a stderr line.
pub const MARKER: &str = "@@mpit-in-flight ";

const CAP: usize = page::CAP;
static TEXT: [AtomicU8; CAP] = [const { AtomicU8::new(0) }; CAP];
/// Bytes of `TEXT` in use; 0 = no call in flight.
static LEN: AtomicU32 = AtomicU32::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);
/// The thread that installed the handlers: the one that calls the library. A signal on
/// any other thread is one of the library's own threads dying (or a helper of ours),
/// whatever the calling thread was doing then.
static CALLER: AtomicI32 = AtomicI32::new(0);

/// In a zygote's child (a fork): its main thread, which calls the library, has a thread
/// id of its own, not the zygote's that installed the handlers.
pub fn forked() {
    if INSTALLED.load(Ordering::Relaxed) {
        // SAFETY: gettid(2) takes no arguments.
        CALLER.store(unsafe { libc::gettid() }, Ordering::Relaxed);
    }
}

/// What the marker line says when the signal or exit came from a thread other than the
/// one that calls the library, before the call in flight on the calling thread (if any).
pub const OTHER_THREAD: &str = "!other-thread";

/// The text and its length: the page's in a worker, else this process's buffer.
fn slots() -> (&'static [AtomicU8], &'static AtomicU32) {
    match page::get() {
        Some(p) => (p.text(), &p.words[page::LEN_W]),
        None => (&TEXT, &LEN),
    }
}

/// Records the call about to be made (`None` after it returned: then the worker's
/// channel is checked, see the module's doc). Long texts are cut.
pub fn set(call: Option<&str>) {
    let (text, len) = slots();
    if call.is_none() && page::get().is_some() {
        if !stdio::intact() {
            // Named while the call is still the one in flight.
            stdio::recover();
        }
        page::returned();
    }
    len.store(0, Ordering::Release);
    if let Some(c) = call {
        let b = c.as_bytes();
        let n = b.len().min(CAP);
        for (slot, byte) in text.iter().zip(&b[..n]) {
            slot.store(*byte, Ordering::Relaxed);
        }
        len.store(n as u32, Ordering::Release);
    }
}

/// Whether the handlers are installed (only they and the page read the text: a process
/// without them, such as an in-process fuzzer, need not make it).
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// [`set`] with the text formatted straight into the buffer: no allocation, and
/// formatting stops where the buffer is full (the same text `set` keeps).
pub fn set_fmt(call: std::fmt::Arguments<'_>) {
    let (text, len) = slots();
    len.store(0, Ordering::Release);
    let n = write_into(text, call);
    len.store(n as u32, Ordering::Release);
}

/// Formats `call` into `buf` up to its length; the bytes written.
fn write_into(buf: &[AtomicU8], call: std::fmt::Arguments<'_>) -> usize {
    struct Into<'a>(&'a [AtomicU8], usize);
    impl std::fmt::Write for Into<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            for b in s.bytes() {
                let Some(slot) = self.0.get(self.1) else {
                    return Err(std::fmt::Error);
                };
                slot.store(b, Ordering::Relaxed);
                self.1 += 1;
            }
            Ok(())
        }
    }
    let mut w = Into(buf, 0);
    let _ = std::fmt::write(&mut w, call);
    w.1
}

/// Records `sig` (and whether it hit another thread than the caller's) in the page, and
/// writes the marker line if a call is in flight or another thread died.
/// Async-signal-safe.
fn report(sig: libc::c_int) {
    // SAFETY: gettid(2) takes no arguments and is async-signal-safe.
    let other = unsafe { libc::gettid() } != CALLER.load(Ordering::Relaxed);
    if let Some(p) = page::get() {
        if sig != 0 {
            p.words[page::SIGNAL_W].store(sig as u32, Ordering::Relaxed);
        }
        if other {
            p.words[page::FLAGS_W].fetch_or(page::OTHER_THREAD, Ordering::Release);
        }
    }
    write_marker(other);
}

/// The marker line: the call in flight, tagged when `other` (another thread died).
/// Async-signal-safe.
fn write_marker(other: bool) {
    let (text, len) = slots();
    let n = (len.load(Ordering::Acquire) as usize).min(CAP);
    if n == 0 && !other {
        return;
    }
    let mut line = [0u8; CAP + 48];
    let mut k = format_head(&mut line);
    if other {
        let tag = OTHER_THREAD.as_bytes();
        line[k..k + tag.len()].copy_from_slice(tag);
        k += tag.len();
        line[k] = b' ';
        k += 1;
    }
    for slot in &text[..n] {
        line[k] = slot.load(Ordering::Relaxed);
        k += 1;
    }
    line[k] = b'\n';
    // SAFETY: write(2) on fd 2 from a stack buffer of at least `k + 1` initialised bytes;
    // async-signal-safe. A short or failed write loses only this diagnostic.
    unsafe { libc::write(2, line.as_ptr().cast(), k + 1) };
}

/// "\n" + MARKER into `line`; returns the bytes used (no allocation: signal context).
fn format_head(line: &mut [u8]) -> usize {
    line[0] = b'\n';
    let m = MARKER.as_bytes();
    line[1..1 + m.len()].copy_from_slice(m);
    1 + m.len()
}

extern "C" fn on_signal(sig: libc::c_int) {
    report(sig);
    // SA_RESETHAND restored the default action: re-raising ends the process by the same
    // signal, so the supervisor still sees e.g. SIGSEGV.
    // SAFETY: raise(2) is async-signal-safe.
    unsafe { libc::raise(sig) };
}

extern "C" fn on_exit() {
    // A library's abort path (MPI_Abort → exit(1)) runs atexit handlers.
    report(0);
}

/// Installs the handlers (once per process): SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT on
/// an alternate stack (a stack overflow must still be reported), and an atexit hook.
pub fn install() {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    // SAFETY: gettid(2) takes no arguments.
    CALLER.store(unsafe { libc::gettid() }, Ordering::Relaxed);
    const ALT: usize = 64 * 1024;
    // Leaked on purpose: the alternate stack must live as long as the process.
    let stack: &'static mut [u8] = Box::leak(vec![0u8; ALT].into_boxed_slice());
    // SAFETY: sigaltstack/sigaction/atexit take plain data built here; the handlers are
    // `extern "C"` functions that never unwind and only do async-signal-safe work; the
    // alternate stack is 'static.
    unsafe {
        let ss = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: ALT,
        };
        libc::sigaltstack(&ss, std::ptr::null_mut());
        for sig in [
            libc::SIGSEGV,
            libc::SIGBUS,
            libc::SIGILL,
            libc::SIGFPE,
            libc::SIGABRT,
        ] {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_ONSTACK | libc::SA_RESETHAND | libc::SA_NODEFER;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
        libc::atexit(on_exit);
    }
}

/// The call named by a marker line among `lines` (the last one wins).
pub fn find<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> Option<&'a str> {
    lines
        .rev()
        .find_map(|l| l.trim_start().strip_prefix(MARKER).map(str::trim_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_line_is_found_in_a_tail() {
        let tail = [
            "noise",
            "@@mpit-in-flight MPI_T_pvar_start(session=1)",
            "Abort",
        ];
        assert_eq!(find(tail.into_iter()), Some("MPI_T_pvar_start(session=1)"));
        assert_eq!(find(["a", "b"].into_iter()), None);
    }

    /// `set_fmt` keeps what `set` keeps: the text, cut at the buffer's size (checked
    /// on a buffer of the test's own: other tests use the process-wide one).
    #[test]
    fn set_fmt_keeps_what_set_keeps() {
        let buf: [AtomicU8; CAP] = [const { AtomicU8::new(0) }; CAP];
        let long = "é".repeat(CAP);
        for s in [
            "MPI_T_cvar_read(CvarRead { handle: Made(0) })",
            long.as_str(),
        ] {
            let n = write_into(&buf, format_args!("{}({:?})", s, 7));
            let want = format!("{s}(7)");
            let want = &want.as_bytes()[..want.len().min(CAP)];
            let got: Vec<u8> = buf[..n].iter().map(|b| b.load(Ordering::Relaxed)).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_crash_inside_a_call_names_the_call() {
        // SAFETY: (test) fork; the child installs the handlers, records a call, and dies
        // by SIGSEGV via raise; the parent reads its stderr through a pipe.
        unsafe {
            let mut fds = [0; 2];
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            let pid = libc::fork();
            if pid == 0 {
                libc::dup2(fds[1], 2);
                install();
                set(Some("MPI_T_cvar_get_num(num)"));
                libc::raise(libc::SIGSEGV);
                libc::_exit(0);
            }
            libc::close(fds[1]);
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            let mut buf = [0u8; 1024];
            let n = libc::read(fds[0], buf.as_mut_ptr().cast(), buf.len());
            let text = String::from_utf8_lossy(&buf[..n.max(0) as usize]).into_owned();
            assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGSEGV);
            assert_eq!(
                find(text.lines()),
                Some("MPI_T_cvar_get_num(num)"),
                "{text}"
            );
        }
    }
}
