//! The call in flight, where the library cannot take it away: a page of memory the
//! supervisor creates for each worker (a memfd, [`create`]) and passes to it as an
//! inherited descriptor; the worker maps it shared ([`attach`]) before the library is
//! loaded and closes the descriptor, so that a library closing descriptors cannot undo
//! it. Before each call the worker writes the call's text there and clears it after
//! (`in_flight::set`); the supervisor reads the page ([`Record::read`]) whenever the
//! worker dies — by a signal, `exit`, `_exit`, `abort` or a kill at its deadline — so a
//! death names its call whether or not any handler of the worker ran (a library may
//! replace them, block the signals, or exit from its own).
//!
//! The page also says what the worker's own handlers saw (the signal, whether it hit
//! another thread than the caller's), how the worker lost its channel to the supervisor
//! (`stdio`: closed or replaced, in which call, how many lines it had sent), and the
//! exit code the worker chose itself (an orphaned channel), so a death of the worker's
//! own is never told as the library's `exit`.
//!
//! Layout: 16 native-endian `u32` words, then text. Only atomics touch the mapping in
//! the worker (its signal handlers too); the supervisor reads the memfd with pread.

use std::fs::File;
use std::io;
use std::os::fd::RawFd;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::OnceLock;

/// Bytes of the page.
pub const SIZE: usize = 4096;
/// Bytes of a call's text kept (longer texts are cut).
pub const CAP: usize = 480;
const WORDS: usize = 16;
const HEAD: usize = WORDS * 4;
const MAGIC: u32 = u32::from_be_bytes(*b"MPIT");
/// Where, among the bytes after the words, the two texts start.
const TEXT_AT: usize = 0;
const TAKEN_AT: usize = 512;
const LAST_AT: usize = 1024;

/// The words.
pub(crate) const MAGIC_W: usize = 0;
pub(crate) const LEN_W: usize = 1;
pub(crate) const SIGNAL_W: usize = 2;
pub(crate) const FLAGS_W: usize = 3;
const TAKEN_LEN_W: usize = 4;
const SENT_W: usize = 5;
const EXIT_W: usize = 6;
const RECONNECTS_W: usize = 7;
const LAST_LEN_W: usize = 8;

/// Flags: a signal the worker's handler caught hit another thread than the caller's;
/// the channel was closed; it was replaced.
pub(crate) const OTHER_THREAD: u32 = 1;
const CLOSED: u32 = 2;
const REPLACED: u32 = 4;

/// A mapped page, for the rest of the process's life.
pub(crate) struct Page {
    pub(crate) words: &'static [AtomicU32],
    pub(crate) bytes: &'static [AtomicU8],
}

static PAGE: OnceLock<Page> = OnceLock::new();

/// The page, once attached (a worker's); `None` in any other process.
pub(crate) fn get() -> Option<&'static Page> {
    PAGE.get()
}

impl Page {
    pub(crate) fn text(&self) -> &'static [AtomicU8] {
        &self.bytes[TEXT_AT..TEXT_AT + CAP]
    }
}

/// A new page for one worker (supervisor side): a memfd of [`SIZE`] zero bytes, closed
/// on exec unless passed (`mpit_process::Cmd::pass_fd`).
pub fn create() -> io::Result<File> {
    super::shared::create(c"mpit-conform-in-flight", SIZE)
}

/// Maps the page passed as `fd` (worker side, before the library is loaded) and closes
/// the descriptor: from then on the call in flight is written there. Once per process.
pub fn attach(fd: RawFd) -> io::Result<()> {
    let p = super::shared::map(fd, SIZE, "page")?;
    // SAFETY: `p` is a shared mapping of SIZE bytes, never unmapped, so the slices live
    // as long as the process; page-aligned, and only ever accessed through the atomics
    // of `Page` in this process.
    let page = unsafe {
        let words = std::slice::from_raw_parts(p.cast::<AtomicU32>(), WORDS);
        let bytes = std::slice::from_raw_parts(p.cast::<AtomicU8>().add(HEAD), SIZE - HEAD);
        Page { words, bytes }
    };
    page.words[MAGIC_W].store(MAGIC, Ordering::Release);
    PAGE.set(page)
        .map_err(|_| io::Error::new(io::ErrorKind::AlreadyExists, "page attached twice"))
}

/// How the worker's channel was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// Its descriptor was closed.
    Closed,
    /// Its descriptor now refers to something else (dup2 over it, or closed and
    /// reopened).
    Replaced,
}

impl How {
    /// "closed", "replaced" (by dup2).
    pub fn verb(self) -> &'static str {
        match self {
            How::Closed => "closed",
            How::Replaced => "replaced",
        }
    }
}

/// The channel lost: how, in which call (none: between calls), and how many lines the
/// worker had sent before (the supervisor reads them all before the new channel's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    pub how: How,
    pub call: Option<String>,
    pub sent: u64,
}

/// Records that the channel was taken, in the call in flight (worker side).
pub(crate) fn taken(how: How, sent: u64) {
    let Some(p) = get() else { return };
    let n = (p.words[LEN_W].load(Ordering::Acquire) as usize).min(CAP);
    let (from, to) = (p.text(), &p.bytes[TAKEN_AT..TAKEN_AT + CAP]);
    for (d, s) in to.iter().zip(&from[..n]) {
        d.store(s.load(Ordering::Relaxed), Ordering::Relaxed);
    }
    p.words[TAKEN_LEN_W].store(n as u32, Ordering::Relaxed);
    p.words[SENT_W].store(sent.min(u64::from(u32::MAX)) as u32, Ordering::Relaxed);
    let flag = match how {
        How::Closed => CLOSED,
        How::Replaced => REPLACED,
    };
    p.words[FLAGS_W].fetch_and(!(CLOSED | REPLACED), Ordering::Relaxed);
    p.words[FLAGS_W].fetch_or(flag, Ordering::Relaxed);
    p.words[RECONNECTS_W].fetch_add(1, Ordering::Release);
}

/// Keeps the call that just returned (worker side, before its text is cleared), so a
/// death between calls — in the worker's own code, in a thread of the library's, in an
/// exit handler — says which call the library last returned from: a library can leave
/// its process broken and crash in the worker's next `malloc`.
pub(crate) fn returned() {
    let Some(p) = get() else { return };
    let n = (p.words[LEN_W].load(Ordering::Acquire) as usize).min(CAP);
    if n == 0 {
        return;
    }
    let (from, to) = (p.text(), &p.bytes[LAST_AT..LAST_AT + CAP]);
    for (d, s) in to.iter().zip(&from[..n]) {
        d.store(s.load(Ordering::Relaxed), Ordering::Relaxed);
    }
    p.words[LAST_LEN_W].store(n as u32, Ordering::Release);
}

/// Records the exit code the worker chose itself, just before it exits (worker side).
pub fn exiting(code: i32) {
    if let Some(p) = get() {
        p.words[EXIT_W].store(code as u32 | 0x8000_0000, Ordering::Release);
    }
}

/// Forgets what the last child of a zygote left on the page (zygote side, after it
/// reaped that child): the call in flight and the last one returned, the signal its
/// handler caught, and its own exit code. What the zygote's own channel went through
/// (taken, reconnects) stays.
pub fn reset() {
    let Some(p) = get() else { return };
    for w in [LEN_W, LAST_LEN_W, SIGNAL_W, EXIT_W] {
        p.words[w].store(0, Ordering::Relaxed);
    }
    p.words[FLAGS_W].fetch_and(!OTHER_THREAD, Ordering::Release);
}

/// What a worker's page says (supervisor side).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// The call in flight, if any.
    pub call: Option<String>,
    /// The last call that returned (with none in flight: what the library last did).
    pub last: Option<String>,
    /// The fatal signal the worker's own handler caught, if it ran.
    pub signal: Option<i32>,
    /// That signal hit another thread than the one calling the library.
    pub other_thread: bool,
    /// The last time the library took the worker's channel.
    pub taken: Option<Taken>,
    /// How many times it did (each time the worker came back on the rendezvous).
    pub reconnects: u32,
    /// The exit code the worker chose itself (its channel was gone).
    pub exited: Option<i32>,
}

impl Record {
    /// Reads a page (the memfd of [`create`], whose copy the worker mapped). A page the
    /// worker never attached reads as nothing in flight.
    pub fn read(page: &File) -> io::Result<Record> {
        let mut b = vec![0u8; SIZE];
        page.read_exact_at(&mut b, 0)?;
        let w = |i: usize| u32::from_ne_bytes([b[i * 4], b[i * 4 + 1], b[i * 4 + 2], b[i * 4 + 3]]);
        if w(MAGIC_W) != MAGIC {
            return Ok(Record::default());
        }
        let text = |at: usize, n: u32| {
            let n = (n as usize).min(CAP);
            (n > 0).then(|| String::from_utf8_lossy(&b[HEAD + at..HEAD + at + n]).into_owned())
        };
        let flags = w(FLAGS_W);
        let how = match flags {
            f if f & REPLACED != 0 => Some(How::Replaced),
            f if f & CLOSED != 0 => Some(How::Closed),
            _ => None,
        };
        Ok(Record {
            call: text(TEXT_AT, w(LEN_W)),
            last: text(LAST_AT, w(LAST_LEN_W)),
            signal: Some(w(SIGNAL_W) as i32).filter(|s| *s != 0),
            other_thread: flags & OTHER_THREAD != 0,
            taken: how.map(|how| Taken {
                how,
                call: text(TAKEN_AT, w(TAKEN_LEN_W)),
                sent: u64::from(w(SENT_W)),
            }),
            reconnects: w(RECONNECTS_W),
            exited: Some(w(EXIT_W))
                .filter(|e| e & 0x8000_0000 != 0)
                .map(|e| (e & 0x7fff_ffff) as i32),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::in_flight;
    use std::os::fd::AsRawFd;

    /// Whatever ends the process — a signal no handler sees, or `_exit` from a library's
    /// own handler — the page still names the call in flight; a worker's own exit says
    /// so; a death between calls names none in flight and the one that last returned.
    /// Each in a forked child (a page is attached once per process).
    #[test]
    fn a_death_by_any_means_leaves_its_call_in_the_page() {
        for end in 0..4 {
            let page = create().expect("memfd");
            let passed = page.try_clone().expect("dup");
            // SAFETY: (test) fork; the child maps the page, records a call and ends
            // (SIGSEGV with the default action, _exit(14), or the worker's own exit(3));
            // the parent reaps it and reads the page.
            unsafe {
                let pid = libc::fork();
                if pid == 0 {
                    let ok = attach(passed.as_raw_fd()).is_ok();
                    in_flight::set(Some("MPI_T_cvar_get_info(5)"));
                    if end == 3 {
                        in_flight::set(None);
                    }
                    match (ok, end) {
                        (false, _) => libc::_exit(99),
                        (_, 0 | 3) => {
                            libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                            libc::raise(libc::SIGSEGV);
                        }
                        (_, 1) => libc::_exit(14),
                        _ => {
                            exiting(3);
                            libc::_exit(3);
                        }
                    }
                    libc::_exit(98);
                }
                let mut status = 0;
                libc::waitpid(pid, &mut status, 0);
                assert!(status & 0xff00 != 99 << 8, "the child could not attach");
            }
            let r = Record::read(&page).expect("read");
            let (call, last) = match end {
                3 => (None, Some("MPI_T_cvar_get_info(5)")),
                _ => (Some("MPI_T_cvar_get_info(5)"), None),
            };
            assert_eq!(
                (r.call.as_deref(), r.last.as_deref()),
                (call, last),
                "{end}"
            );
            assert_eq!(r.exited, (end == 2).then_some(3), "{end}");
            assert_eq!(r.taken, None);
        }
        // A page nobody attached: nothing in flight.
        assert_eq!(
            Record::read(&create().expect("memfd")).ok(),
            Some(Record::default())
        );
    }
}
