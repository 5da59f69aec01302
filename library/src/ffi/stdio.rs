//! The worker's private channel to the supervisor, out of the library's reach.
//!
//! A library prints: banners, progress dots without a newline, verbose debug output
//! (`I_MPI_DEBUG`, `OMPI_MCA_*_verbose`), and it may even close fd 1. The supervisor
//! starts a worker with its protocol on the worker's stdin/stdout; before the library
//! is loaded, the worker moves both to close-on-exec descriptors numbered from
//! [`FIRST_FD`] on, points fd 1 at fd 2 (the library's stdout joins its stderr, which
//! the supervisor captures, bounded, as the library's output) and fd 0 at /dev/null.
//! From then on nothing the library writes to, reads from or closes on fds 0-2 can
//! touch a protocol line.

use std::fs::File;
use std::io;
use std::os::fd::FromRawFd;

/// The lowest descriptor the channel may take: above the small numbers libraries open
/// and close casually.
const FIRST_FD: libc::c_int = 64;

/// The worker's ends of the protocol.
pub struct Channel {
    /// Supervisor → worker (was stdin).
    pub input: File,
    /// Worker → supervisor (was stdout).
    pub output: File,
}

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// Moves the protocol off fds 0 and 1 (see the module's doc). Call once, before the
/// library is opened.
pub fn take_protocol() -> io::Result<Channel> {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC), open, dup2 and close take plain integers and a
    // NUL-terminated literal; each result is checked. The two new descriptors are owned
    // by nothing else, so `File::from_raw_fd` takes sole ownership of them.
    unsafe {
        let input = check(libc::fcntl(0, libc::F_DUPFD_CLOEXEC, FIRST_FD))?;
        let output = check(libc::fcntl(1, libc::F_DUPFD_CLOEXEC, FIRST_FD))?;
        check(libc::dup2(2, 1))?;
        let null = check(libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY))?;
        if null != 0 {
            check(libc::dup2(null, 0))?;
            libc::close(null);
        }
        Ok(Channel {
            input: File::from_raw_fd(input),
            output: File::from_raw_fd(output),
        })
    }
}
