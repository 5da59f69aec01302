//! Memory the library writes into, laid out so that no stray write goes unseen.
//!
//! ```text
//!  [ .. FILL .. | canary (CANARY) | buffer (len) | guard (GUARD..GUARD+7) ][ PROT_NONE page ]
//! ```
//!
//! Everything but the buffer is filled with [`FILL`] and compared after the call, so a
//! write up to [`GUARD`] bytes past the end, or [`CANARY`] bytes before the start, is
//! reported with its exact offsets while the call's other outputs (return code, `*len`)
//! stay available as evidence. A longer overrun reaches the protected page and faults at
//! its first byte there: the worker dies with SIGSEGV (a crash result) instead of
//! corrupting its own heap and reporting nonsense later.

use super::{FILL, GUARD};
use std::ptr::NonNull;

/// Checked bytes before the buffer (an underrun, e.g. a write at `buf[-1]`).
pub const CANARY: usize = 16;

/// One guarded buffer, mapped for the duration of one call.
pub(super) struct Guarded {
    /// The mapping: `data` writable bytes, then one PROT_NONE page.
    map: NonNull<u8>,
    map_len: usize,
    /// Offset of the buffer in the mapping.
    start: usize,
    len: usize,
    /// Offset of the protected page.
    fence: usize,
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions; it returns -1 only for unknown names.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

impl Guarded {
    /// A buffer of `len` bytes whose start is a multiple of `align` (1 for strings, so
    /// the guard ends exactly at the protected page; 8 for typed data).
    pub(super) fn new(len: usize, align: usize) -> Self {
        let page = page_size();
        let data = (CANARY + len + GUARD + align).div_ceil(page) * page;
        let map_len = data + page;
        let base = match pool_take(map_len) {
            Some(b) => b.as_ptr(),
            None => map(map_len, data, page),
        };
        // SAFETY: `base..base+data` is the writable part of a mapping of `map_len` bytes
        // (new, or returned to the pool by a dropped buffer that nothing points into).
        // Filled whole, so a reused mapping is exactly as a new one.
        unsafe { std::ptr::write_bytes(base, FILL, data) };
        let start = (data - GUARD - len) / align.max(1) * align.max(1);
        Guarded {
            map: NonNull::new(base).expect("a mapping is never at NULL"),
            map_len,
            start,
            len,
            fence: data,
        }
    }

    /// A guarded buffer holding `bytes` (the `*_write` calls' input).
    pub(super) fn with_data(bytes: &[u8], align: usize) -> Self {
        let g = Guarded::new(bytes.len(), align);
        // SAFETY: `start + len <= fence`, inside the writable part of the mapping.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), g.map.as_ptr().add(g.start), g.len)
        };
        g
    }

    pub(super) fn ptr(&mut self) -> *mut u8 {
        // SAFETY: `start` is inside the mapping (see `new`).
        unsafe { self.map.as_ptr().add(self.start) }
    }

    fn all(&self) -> &[u8] {
        // SAFETY: `0..fence` is the mapping's readable part, alive as long as `self`;
        // the call that wrote it has returned, so nothing else aliases it mutably.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr(), self.fence) }
    }

    /// The buffer's bytes as the library left them.
    pub(super) fn bytes(&self) -> Vec<u8> {
        self.all()[self.start..self.start + self.len].to_vec()
    }

    /// Offsets, relative to the buffer's start, of the canary and guard bytes the call
    /// changed: negative before the buffer, `>= len` past it. Empty when it kept inside.
    pub(super) fn stray(&self) -> Vec<i32> {
        self.stray_written().map(|(at, _)| at).collect()
    }

    /// The bytes the call left at [`Guarded::stray`]'s offsets, in the same order.
    pub(super) fn stray_bytes(&self) -> Vec<u8> {
        self.stray_written().map(|(_, b)| b).collect()
    }

    /// (offset relative to the buffer's start, byte) of each changed canary or guard
    /// byte.
    fn stray_written(&self) -> impl Iterator<Item = (i32, u8)> + '_ {
        let all = self.all();
        let lo = self.start - CANARY;
        let hi = self.start + self.len;
        (lo..self.start)
            .chain(hi..self.fence)
            .filter(move |&k| all[k] != FILL)
            .map(move |k| ((k as i64 - self.start as i64) as i32, all[k]))
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if pool_give(self.map, self.map_len) {
            return;
        }
        // SAFETY: the mapping made in `map`, unmapped once; no reference into it
        // outlives `self` (`all` borrows `self`).
        unsafe { libc::munmap(self.map.as_ptr().cast(), self.map_len) };
    }
}

/// A new mapping of `map_len` bytes whose last `page` bytes (from `data` on) are
/// PROT_NONE.
fn map(map_len: usize, data: usize, page: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping with no address hint; the result is
    // checked against MAP_FAILED before use.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            map_len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        // Out of address space: the worker cannot go on meaningfully.
        panic!(
            "mmap of {map_len} bytes failed: {}",
            std::io::Error::last_os_error()
        );
    }
    let base = p.cast::<u8>();
    // SAFETY: `base + data` is page-aligned and the last page of the mapping just
    // created.
    if unsafe { libc::mprotect(base.add(data).cast(), page, libc::PROT_NONE) } != 0 {
        panic!("mprotect failed: {}", std::io::Error::last_os_error());
    }
    base
}

/// Mappings of dropped buffers kept for the next buffer of the same size, per thread.
/// A mapping, an mprotect and an unmapping for every buffer of every call cost about
/// 5 µs against a library's 50 ns per call (`cargo xtask bench`, per-call costs), and
/// were most of a suite worker's system time. The protected page stays as made.
const POOL_MAX: usize = 64;

thread_local! {
    static POOL: std::cell::RefCell<Vec<(NonNull<u8>, usize)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn pool_take(map_len: usize) -> Option<NonNull<u8>> {
    POOL.try_with(|p| {
        let mut p = p.borrow_mut();
        let i = p.iter().position(|(_, l)| *l == map_len)?;
        Some(p.swap_remove(i).0)
    })
    .ok()
    .flatten()
}

/// Whether the pool took the mapping (else the caller unmaps it).
fn pool_give(map: NonNull<u8>, map_len: usize) -> bool {
    POOL.try_with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < POOL_MAX {
            p.push((map, map_len));
            true
        } else {
            false
        }
    })
    .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_ends_at_its_guard_and_the_guard_at_the_fence() {
        for (len, align) in [(0, 1), (1, 1), (7, 1), (4096, 1), (13, 8), (0, 8)] {
            let mut g = Guarded::new(len, align);
            assert_eq!(g.ptr() as usize % align, 0);
            let tail = g.fence - (g.start + len);
            assert!(
                (GUARD..GUARD + align).contains(&tail),
                "{len}/{align}: {tail}"
            );
            assert!(g.start >= CANARY);
            assert!(g.stray().is_empty());
            assert_eq!(g.bytes(), vec![FILL; len]);
        }
    }

    #[test]
    fn stray_writes_are_reported_byte_exactly() {
        let mut g = Guarded::new(4, 1);
        let p = g.ptr();
        // SAFETY: (test) offsets -3, 0 and 5 lie in the canary, buffer and guard.
        unsafe {
            *p.sub(3) = 0;
            *p = b'x';
            *p.add(5) = 0;
        }
        assert_eq!(g.stray(), vec![-3, 5]);
        assert_eq!(g.bytes()[0], b'x');
        let g = Guarded::with_data(b"abc", 8);
        assert_eq!(g.bytes(), b"abc");
        assert!(g.stray().is_empty());
    }

    #[test]
    fn a_write_beyond_the_guard_faults_at_the_fence() {
        let mut g = Guarded::new(4, 1);
        let p = g.ptr();
        // SAFETY: (test) the child writes one byte at the protected page and exits
        // without returning into the test harness; the parent only waits for it.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: (test) the byte lies on the protected page of a live mapping: the
            // write faults, which is what is tested; `_exit` is not reached otherwise.
            unsafe {
                p.add(4 + GUARD).write_volatile(0);
                libc::_exit(0)
            }
        }
        let mut status = 0;
        // SAFETY: (test) `pid` is our child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(libc::WIFSIGNALED(status), "status {status}");
        assert_eq!(libc::WTERMSIG(status), libc::SIGSEGV);
    }
}
