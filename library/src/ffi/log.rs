//! A differential sequence's observations, where a death cannot take them: a memfd the
//! supervisor creates for a `fuzz-props` worker ([`create`]) and the worker maps shared
//! before the library is loaded ([`attach`]), as it does its page (`page.rs`). The
//! worker appends each call's observation line there ([`append`]) instead of writing
//! it to its channel, and says `OpsDone` once per sequence; the supervisor reads the
//! lines ([`read`]) at that line, or after the worker's death or its kill at a
//! deadline. Whatever ends the worker, the observations of the calls that returned are
//! there: a crash still ends the trace at the call in flight.
//!
//! Why: one line per call woke the supervisor's reader thread and then the search's
//! thread for each call of a sequence, most of a lifecycle sequence's cost after the
//! fork (`fuzz-props` on the reference, 2 cores: a fifth of the run's CPU).
//!
//! Layout: a native-endian `u32` word, the bytes in use, then the lines. The worker
//! publishes the count after the bytes (release); the supervisor reads the memfd with
//! pread once the worker has said `OpsDone` or is dead.

use std::fs::File;
use std::io;
use std::os::fd::RawFd;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::OnceLock;

/// Bytes of the log: far more than a sequence of `fuzz-props`' longest (`--max-len`
/// 24) writes; a line that does not fit goes to the channel instead ([`append`]).
pub const SIZE: usize = 1 << 20;
const HEAD: usize = 8;

struct Log {
    used: &'static AtomicU32,
    bytes: &'static [AtomicU8],
}

static LOG: OnceLock<Log> = OnceLock::new();

/// A new log for one worker (supervisor side), closed on exec unless passed.
pub fn create() -> io::Result<File> {
    super::shared::create(c"mpit-conform-observations", SIZE)
}

/// Maps the log passed as `fd` (worker side, before the library is loaded) and closes
/// the descriptor. Once per process.
pub fn attach(fd: RawFd) -> io::Result<()> {
    let p = super::shared::map(fd, SIZE, "log")?;
    // SAFETY: `p` is a shared mapping of SIZE bytes, never unmapped, so the references
    // live as long as the process; page-aligned, and only ever accessed through these
    // atomics in this process.
    let log = unsafe {
        Log {
            used: &*p.cast::<AtomicU32>(),
            bytes: std::slice::from_raw_parts(p.cast::<AtomicU8>().add(HEAD), SIZE - HEAD),
        }
    };
    LOG.set(log)
        .map_err(|_| io::Error::new(io::ErrorKind::AlreadyExists, "log attached twice"))
}

/// Whether this process has a log (a `fuzz-props` worker that attached one).
pub fn attached() -> bool {
    LOG.get().is_some()
}

/// Empties the log (worker side, before a sequence's first call).
pub fn clear() {
    if let Some(l) = LOG.get() {
        l.used.store(0, Ordering::Release);
    }
}

/// Appends `line` (worker side); false when there is no log or it does not fit, and
/// the caller sends the line on its channel instead (the supervisor puts the log's
/// lines before the channel's).
pub fn append(line: &[u8]) -> bool {
    let Some(l) = LOG.get() else { return false };
    let at = l.used.load(Ordering::Relaxed) as usize;
    let Some(to) = l.bytes.get(at..at + line.len()) else {
        return false;
    };
    for (d, s) in to.iter().zip(line) {
        d.store(*s, Ordering::Relaxed);
    }
    l.used.store((at + line.len()) as u32, Ordering::Release);
    true
}

/// The bytes in the log (supervisor side): what the worker appended since it last
/// cleared it.
pub fn read(log: &File) -> io::Result<Vec<u8>> {
    let mut head = [0u8; 4];
    log.read_exact_at(&mut head, 0)?;
    let used = (u32::from_ne_bytes(head) as usize).min(SIZE - HEAD);
    let mut b = vec![0u8; used];
    log.read_exact_at(&mut b, HEAD as u64)?;
    Ok(b)
}

/// How many bytes the log holds (supervisor side): it grows while the worker's calls
/// return, which is progress for a deadline.
pub fn used(log: &File) -> u32 {
    let mut head = [0u8; 4];
    match log.read_exact_at(&mut head, 0) {
        Ok(()) => u32::from_ne_bytes(head),
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// A child appends two lines, clears, appends one and dies by SIGSEGV: the parent
    /// reads the one line; a line too long for the log is refused; a log nobody
    /// attached reads as empty.
    #[test]
    fn the_lines_appended_survive_the_death_of_the_process() {
        let log = create().expect("memfd");
        let passed = log.try_clone().expect("dup");
        // SAFETY: (test) fork; the child maps the log, appends, and dies by SIGSEGV
        // with the default action; the parent reaps it and reads the log.
        unsafe {
            let pid = libc::fork();
            if pid == 0 {
                if attach(passed.as_raw_fd()).is_err() || !attached() {
                    libc::_exit(99);
                }
                let ok = append(b"one\n") && append(b"two\n");
                clear();
                // No allocation in a child forked from a threaded test process.
                static TOO_LONG: [u8; SIZE] = [b'x'; SIZE];
                let refused = !append(&TOO_LONG);
                if !(ok && refused && append(b"three\n")) {
                    libc::_exit(98);
                }
                libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                libc::raise(libc::SIGSEGV);
                libc::_exit(97);
            }
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            assert!(libc::WIFSIGNALED(status), "the child exited: {status:#x}");
        }
        assert_eq!(read(&log).expect("read"), b"three\n");
        assert_eq!(used(&log), 6);
        assert_eq!(read(&create().expect("memfd")).expect("read"), b"");
        assert!(!append(b"no log in this process\n"));
    }
}
