//! The worker's private channel to the supervisor, out of the library's reach.
//!
//! A library prints: banners, progress dots without a newline, verbose debug output
//! (`I_MPI_DEBUG`, `OMPI_MCA_*_verbose`), and it may even close fd 1. The supervisor
//! starts a worker with its protocol on the worker's stdin/stdout; before the library
//! is loaded, the worker moves both to close-on-exec descriptors placed high ([`place`]:
//! from 1024 up when the limit allows, above the 3..1023 that daemonizing code closes
//! and select(2) can name), points fd 1 at fd 2 (the library's stdout joins its stderr,
//! which the supervisor captures, bounded, as the library's output) and fd 0 at
//! /dev/null. From then on nothing the library writes to, reads from or closes on fds
//! 0-2 can touch a protocol line.
//!
//! A library may still close every descriptor (close_range) or point them all at
//! /dev/null (dup2). So the channel is checked: after each call (`in_flight::set`, its
//! close-on-exec flag, which both clear) and before each read or write (its identity:
//! device and inode). A channel taken is recorded in the shared page (`page::taken`:
//! closed or replaced, in which call, how many lines were sent) and the worker comes
//! back on the supervisor's rendezvous, an abstract Unix socket named in its hello,
//! which then carries both directions. Without one, or when the connection fails, the
//! next write fails and the worker exits; the page says why.

use super::page::{self, How};
use std::io;
use std::os::fd::{IntoRawFd, RawFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixStream};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// The lowest descriptor the channel takes when the limit on open files allows: above
/// what daemonizing code closes (3..1023) and FD_SETSIZE.
const HIGH_FD: libc::c_int = 1024;
/// The lowest otherwise: above the small numbers libraries open and close casually.
const FIRST_FD: libc::c_int = 64;

/// One end of the channel: its descriptor and what it referred to when placed.
struct End {
    fd: AtomicI32,
    dev: AtomicU64,
    ino: AtomicU64,
}

impl End {
    const fn new() -> End {
        End {
            fd: AtomicI32::new(-1),
            dev: AtomicU64::new(0),
            ino: AtomicU64::new(0),
        }
    }

    fn set(&self, fd: RawFd) -> io::Result<()> {
        let (dev, ino) = identity(fd)?;
        self.dev.store(dev, Ordering::Relaxed);
        self.ino.store(ino, Ordering::Relaxed);
        self.fd.store(fd, Ordering::Release);
        Ok(())
    }

    fn fd(&self) -> RawFd {
        self.fd.load(Ordering::Acquire)
    }

    /// Still the descriptor placed: `None` when it is, else how it was taken.
    fn lost(&self) -> Option<How> {
        match identity(self.fd()) {
            Ok((d, i))
                if d == self.dev.load(Ordering::Relaxed)
                    && i == self.ino.load(Ordering::Relaxed) =>
            {
                None
            }
            Ok(_) => Some(How::Replaced),
            Err(_) => Some(How::Closed),
        }
    }

    /// The cheap check after a call: the close-on-exec flag placed with it, which a
    /// close (EBADF) or a dup2 over it (dup2 clears it) takes away.
    fn flag_intact(&self) -> bool {
        // SAFETY: fcntl(F_GETFD) takes and returns plain integers.
        let flags = unsafe { libc::fcntl(self.fd(), libc::F_GETFD) };
        flags >= 0 && flags & libc::FD_CLOEXEC != 0
    }
}

static INPUT: End = End::new();
static OUTPUT: End = End::new();
/// The supervisor's rendezvous (an abstract socket name), if it gave one.
static RENDEZVOUS: OnceLock<String> = OnceLock::new();
/// The rendezvous is not this process's to use (a zygote's child: the supervisor's
/// listener belongs to the zygote's channel).
static NO_RENDEZVOUS: AtomicBool = AtomicBool::new(false);
/// Lines written, over every channel.
static SENT: AtomicU64 = AtomicU64::new(0);
/// The channel was lost and not re-established yet.
static LOST: AtomicBool = AtomicBool::new(false);
/// Writes and reconnections take turns.
static TURN: Mutex<()> = Mutex::new(());

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// (device, inode) of what `fd` refers to.
fn identity(fd: RawFd) -> io::Result<(u64, u64)> {
    // SAFETY: stat is plain data, for which all zeroes is a valid value; fstat(2) fills
    // it from a descriptor number (an error if it is not open).
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        check(libc::fstat(fd, &mut st))?;
        Ok((st.st_dev, st.st_ino))
    }
}

/// A close-on-exec duplicate of `fd` placed high (see the module's doc), `fd` closed;
/// `fd` itself when no higher number is free.
fn place(fd: RawFd) -> io::Result<RawFd> {
    // SAFETY: getrlimit fills a plain struct of this frame; fcntl(F_DUPFD_CLOEXEC) and
    // close take plain integers.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        let limit = match libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) {
            0 => r.rlim_cur.min(libc::c_int::MAX as libc::rlim_t) as libc::c_int,
            _ => FIRST_FD + 8,
        };
        for from in [HIGH_FD, limit.saturating_sub(64), FIRST_FD] {
            if from < 3 || from >= limit {
                continue;
            }
            if let Ok(high) = check(libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, from)) {
                libc::close(fd);
                return Ok(high);
            }
        }
        check(libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC))?;
    }
    Ok(fd)
}

/// Moves the protocol off fds 0 and 1 (see the module's doc) and keeps `rendezvous`, the
/// supervisor's socket to come back to. Call once, before the library is opened.
pub fn take_protocol(rendezvous: Option<&str>) -> io::Result<()> {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC), open, dup2 and close take plain integers and a
    // NUL-terminated literal; each result is checked.
    let (input, output) = unsafe {
        let input = check(libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 3))?;
        let output = check(libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3))?;
        check(libc::dup2(2, 1))?;
        let null = check(libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY))?;
        if null != 0 {
            check(libc::dup2(null, 0))?;
            libc::close(null);
        }
        (input, output)
    };
    INPUT.set(place(input)?)?;
    OUTPUT.set(place(output)?)?;
    if let Some(r) = rendezvous {
        let _ = RENDEZVOUS.set(r.to_string());
    }
    Ok(())
}

/// From now on a channel taken is not re-established: the next write fails and the
/// process exits, its page saying why (a zygote's child, whose supervisor listens for
/// the zygote, not for it).
pub fn no_rendezvous() {
    NO_RENDEZVOUS.store(true, Ordering::Relaxed);
}

/// Whether both ends still carry the flag they were placed with (the check after each
/// call: one fcntl each).
pub fn intact() -> bool {
    INPUT.fd() < 0 || (INPUT.flag_intact() && OUTPUT.flag_intact())
}

/// After a call that took the channel: recorded in the call's name, and the worker comes
/// back on the rendezvous. A failure is left for the next write to meet.
pub fn recover() {
    let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    let _ = restore();
}

/// The channel checked by identity, and re-established if it was taken (the caller
/// holds the turn).
fn restore() -> io::Result<()> {
    let how = match (INPUT.lost(), OUTPUT.lost()) {
        (None, None) => return Ok(()),
        (Some(How::Replaced), _) | (_, Some(How::Replaced)) => How::Replaced,
        _ => How::Closed,
    };
    // Recorded once per loss (a retry after a failed one keeps the call it was lost in).
    if !LOST.swap(true, Ordering::Relaxed) {
        page::taken(how, SENT.load(Ordering::Relaxed));
    }
    let name = RENDEZVOUS
        .get()
        .filter(|_| !NO_RENDEZVOUS.load(Ordering::Relaxed))
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "no rendezvous"))?;
    let addr = SocketAddr::from_abstract_name(name.as_bytes())?;
    let fd = place(UnixStream::connect_addr(&addr)?.into_raw_fd())?;
    INPUT.set(fd)?;
    OUTPUT.set(fd)?;
    LOST.store(false, Ordering::Relaxed);
    Ok(())
}

/// Writes one protocol line (with its newline), re-establishing a channel the library
/// took first. An error: the supervisor cannot be reached any more.
pub fn send(line: &[u8]) -> io::Result<()> {
    let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        restore()?;
        match write_all(OUTPUT.fd(), line) {
            Ok(()) => {
                SENT.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            // Taken while being written: the whole line again, on the new channel.
            Err(_) if OUTPUT.lost().is_some() => {}
            Err(e) => return Err(e),
        }
    }
}

fn write_all(fd: RawFd, mut b: &[u8]) -> io::Result<()> {
    while !b.is_empty() {
        // SAFETY: write(2) from a valid slice of `b.len()` bytes.
        let n = unsafe { libc::write(fd, b.as_ptr().cast(), b.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        b = &b[n as usize..];
    }
    Ok(())
}

/// The supervisor → worker direction, re-established like [`send`]'s. End of input is
/// the supervisor closing the channel it still has.
pub struct Input;

impl io::Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            {
                let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
                restore()?;
            }
            // SAFETY: read(2) into a valid buffer of `buf.len()` bytes.
            let n = unsafe { libc::read(INPUT.fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                return Ok(n as usize);
            }
            let e = io::Error::last_os_error();
            if n < 0 && e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            // Taken between the check and the read: again, on the channel restored.
            if INPUT.lost().is_some() {
                continue;
            }
            return if n == 0 { Ok(0) } else { Err(e) };
        }
    }
}
