//! Argument helpers of the C ABI: required pointers, OUT values, names, the string
//! convention's (buf, len) pairs, bound objects and data buffers. Only pointers the
//! caller passed are dereferenced, and a NULL one never is.

use super::{abi, crash};
use crate::faults::{Fault, Faults};
use crate::model::BoundObject;
use crate::strings::{self, StringArg, StringOut};
use mpit_vocab::profile::HandleWidth;
use mpit_vocab::spec::{TErr, TResult};
use std::ffi::{c_char, c_int, c_void, CStr};

/// A required pointer argument: NULL gives MPI_T_ERR_INVALID.
pub(crate) fn need<T>(p: *const T) -> TResult<()> {
    if p.is_null() {
        Err(TErr::Invalid)
    } else {
        Ok(())
    }
}

/// Stores `v` in an OUT argument; a NULL pointer is ignored (R-CVAR-3).
///
/// # Safety
/// `p` is NULL or valid for writing one aligned `T`.
pub(crate) unsafe fn put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: non-NULL, and the caller's contract makes it valid for one `T`.
        unsafe { p.write(v) }
    }
}

/// [`put`], or, under a `null-out-deref-*` fault, a store without the NULL check (what
/// a library that forgets R-CVAR-3 does): a NULL pointer then crashes the process.
///
/// # Safety
/// As [`put`].
pub(crate) unsafe fn put_unchecked_if<T>(p: *mut T, v: T, unchecked: bool) {
    if unchecked && p.is_null() {
        super::crash();
    }
    // SAFETY: the caller's contract.
    unsafe { put(p, v) }
}

/// An INOUT handle argument of a `*_free` call: reads the handle, lets `free` decide
/// the value the caller's variable must hold afterwards (R-CVAR-7, R-SESS-1, R-PH-1:
/// the null handle), and stores it.
///
/// # Safety
/// `p` is NULL (MPI_T_ERR_INVALID) or valid for reading and writing one handle.
pub(crate) unsafe fn free_inout(
    p: *mut usize,
    free: impl FnOnce(u64) -> TResult<u64>,
) -> TResult<()> {
    need(p)?;
    // SAFETY: checked non-NULL; valid per this function's contract.
    let after = free(unsafe { p.read() } as u64)?;
    // SAFETY: as above.
    unsafe { put(p, after as usize) };
    Ok(())
}

/// A `const char *name` argument (NULL gives MPI_T_ERR_INVALID; bytes that are not
/// UTF-8 cannot name anything: MPI_T_ERR_INVALID_NAME).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
pub(crate) unsafe fn c_name<'a>(p: *const c_char) -> TResult<&'a str> {
    need(p)?;
    // SAFETY: non-NULL and NUL-terminated per the caller's contract.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().map_err(|_| TErr::InvalidName)
}

/// Reads the (buf, len) pair of one string argument (MPI-4.1 §15.3.3).
///
/// # Safety
/// `len` is NULL or valid for reading an int.
unsafe fn string_arg(buf: *const c_char, len: *const c_int) -> StringArg {
    let len = if len.is_null() {
        None
    } else {
        // SAFETY: non-NULL, valid per the caller's contract.
        Some(unsafe { len.read() })
    };
    StringArg {
        buf_null: buf.is_null(),
        len,
    }
}

/// Fault `upstream-ompi-38bcbc4696`: a NULL buffer with a non-zero `*len` was still
/// `strncpy`'d into (what that does to the process).
///
/// # Safety
/// `len` is NULL or valid for reading.
unsafe fn null_buf_written(buf: *const c_char, len: *const c_int, f: &Faults) {
    if buf.is_null() && !len.is_null() && f.has(Fault::UpstreamOmpi38bcbc4696) {
        // SAFETY: non-NULL, valid per the caller's contract.
        if unsafe { len.read() } > 0 {
            crash();
        }
    }
}

/// Carries out a [`StringOut`] computed by `crate::strings`.
///
/// # Safety
/// `buf` is NULL or valid for `out.write.len()` bytes (the caller's `*len`, which the
/// convention respects except under the string faults); `len` is NULL or valid.
pub(crate) unsafe fn put_string(out: &StringOut, buf: *mut c_char, len: *mut c_int) {
    if out.deref_null_len {
        // Fault `null-len-deref`: what dereferencing the NULL length pointer does.
        crash();
    }
    if !out.write.is_empty() && !buf.is_null() {
        // SAFETY: `buf` is non-NULL and, per the convention, has room for these bytes;
        // a Vec never overlaps the caller's buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(out.write.as_ptr(), buf.cast::<u8>(), out.write.len())
        }
    }
    if let Some(l) = out.len {
        // SAFETY: `len` is NULL or valid per the caller's contract.
        unsafe { put(len, l) }
    }
}

/// Returns a name through the string convention.
///
/// # Safety
/// As for [`put_string`], with `buf` valid for the caller's `*len` bytes.
pub(crate) unsafe fn out_str(s: &str, buf: *mut c_char, len: *mut c_int, f: &Faults) {
    // SAFETY: forwarded caller contract.
    unsafe { null_buf_written(buf, len, f) };
    // SAFETY: forwarded caller contract.
    let out = strings::convention(s, unsafe { string_arg(buf, len) }, f);
    // SAFETY: forwarded caller contract.
    unsafe { put_string(&out, buf, len) }
}

/// Returns a description through the convention (no description: "" of length 1).
///
/// # Safety
/// As for [`out_str`].
pub(crate) unsafe fn out_desc(d: &Option<String>, buf: *mut c_char, len: *mut c_int, f: &Faults) {
    // SAFETY: forwarded caller contract.
    unsafe { null_buf_written(buf, len, f) };
    // SAFETY: forwarded caller contract.
    let out = strings::description(d, f).out(unsafe { string_arg(buf, len) }, f);
    // SAFETY: forwarded caller contract.
    unsafe { put_string(&out, buf, len) }
}

/// Decodes `obj_handle` (R-BIND-3): NULL is no object; otherwise one MPI handle of the
/// ABI's width is read from it (an `int` under MPICH: reading 8 bytes would take 4
/// bytes of whatever follows the caller's variable).
///
/// # Safety
/// `obj` is NULL or valid for reading one MPI handle of the ABI's width.
pub(crate) unsafe fn bound_object(obj: *const c_void) -> BoundObject {
    if obj.is_null() {
        return BoundObject::None;
    }
    // SAFETY: non-NULL and readable per the caller's contract.
    let v = unsafe { read_mpi_handle(obj.cast::<usize>()) };
    abi().object(v)
}

/// Reads an `MPI_Datatype`/`MPI_Comm`/`MPI_Info` variable the caller passed by address
/// (declared `*const usize` in the signatures): 4 bytes under MPICH, 8 otherwise.
///
/// # Safety
/// `p` is non-NULL and valid for reading one handle of the ABI's width (`void *` and
/// `int *` promise no 8-byte alignment, hence the unaligned reads).
pub(crate) unsafe fn read_mpi_handle(p: *const usize) -> usize {
    match abi().width {
        // SAFETY: per the contract, 4 readable bytes.
        HandleWidth::Int => (unsafe { p.cast::<u32>().read_unaligned() }) as usize,
        // SAFETY: per the contract, 8 readable bytes.
        HandleWidth::Pointer => unsafe { p.read_unaligned() },
    }
}

/// Stores an `MPI_Datatype`/`MPI_Comm`/`MPI_Info` OUT value at `p[k]` with the ABI's
/// width (an array of `int` under MPICH); a NULL pointer is ignored (R-CVAR-3).
///
/// # Safety
/// `p` is NULL or valid for writing `k + 1` handles of the ABI's width.
pub(crate) unsafe fn put_mpi_handle_at(p: *mut usize, k: usize, v: usize) {
    if p.is_null() {
        return;
    }
    match abi().width {
        // SAFETY: per the contract, room for `k + 1` ints; the value is the low 32 bits
        // (every MPICH handle value is an int).
        HandleWidth::Int => unsafe { p.cast::<u32>().add(k).write_unaligned(v as u32) },
        // SAFETY: per the contract, room for `k + 1` pointer-sized handles.
        HandleWidth::Pointer => unsafe { p.add(k).write_unaligned(v) },
    }
}

/// [`put_mpi_handle_at`] for one OUT handle.
///
/// # Safety
/// `p` is NULL or valid for writing one handle of the ABI's width.
pub(crate) unsafe fn put_mpi_handle(p: *mut usize, v: usize) {
    // SAFETY: forwarded caller contract.
    unsafe { put_mpi_handle_at(p, 0, v) }
}

/// Copies model bytes into a user buffer.
///
/// # Safety
/// `dst` is non-NULL and valid for `bytes.len()` bytes.
pub(crate) unsafe fn copy_out(bytes: &[u8], dst: *mut c_void) {
    // SAFETY: per the caller's contract; a Vec never overlaps the user's buffer.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst.cast::<u8>(), bytes.len()) }
}

/// Reads `n` bytes from a user buffer.
///
/// # Safety
/// `src` is non-NULL and valid for reading `n` bytes.
pub(crate) unsafe fn copy_in(src: *const c_void, n: usize) -> Vec<u8> {
    // SAFETY: per the caller's contract.
    unsafe { std::slice::from_raw_parts(src.cast::<u8>(), n) }.to_vec()
}
