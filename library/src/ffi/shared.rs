//! Memory a worker shares with the supervisor whatever ends it: a memfd the supervisor
//! makes ([`create`]) and passes to the worker, which maps it shared ([`map`]) before the
//! library is loaded and closes the descriptor, so that a library closing descriptors
//! cannot undo it. The page of the call in flight (`page.rs`) and a `fuzz-props`
//! worker's log of observations (`log.rs`) are two; the supervisor reads both with
//! pread.

use std::ffi::{c_void, CStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};

/// A new memfd of `size` zero bytes named `name` (supervisor side), closed on exec
/// unless passed (`mpit_process::Cmd::pass_fd`).
pub(crate) fn create(name: &CStr, size: usize) -> io::Result<File> {
    // SAFETY: memfd_create with a NUL-terminated name; the new descriptor is owned by
    // nothing else, so `File::from_raw_fd` takes sole ownership of it.
    let f = unsafe {
        let fd = libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        File::from_raw_fd(fd)
    };
    f.set_len(size as u64)?;
    Ok(f)
}

/// Maps `size` bytes of the memfd passed as `fd` shared and read-write (worker side),
/// for the rest of the process's life, and closes the descriptor. The memory is
/// page-aligned and zeroed until someone writes it.
pub(crate) fn map(fd: RawFd, size: usize, what: &str) -> io::Result<*mut c_void> {
    // SAFETY: fd is the descriptor the supervisor passed (its number from the worker's
    // hello): taken over here and closed when `f` drops, after the mapping is made.
    let f = unsafe { File::from_raw_fd(fd) };
    if f.metadata()?.len() < size as u64 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{what} too small"),
        ));
    }
    // SAFETY: a shared read-write mapping of `size` bytes of a file at least that long,
    // at an address the kernel picks; never unmapped.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            f.as_raw_fd(),
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(p)
}
