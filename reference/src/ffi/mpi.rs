//! The few MPI functions a tool needs next to MPI_T, for a singleton process: version
//! queries, MPI_Init/Finalize (which make `appears: mpi_init` entries visible),
//! MPI_COMM_WORLD/SELF of size 1, a minimal MPI_Info, and MPI_Wtime.

use super::{abi, c_name, export, lock, model_in, put, put_string};
use crate::model::{InfoHandle, Model, MpiState};
use crate::strings::{convention, StringArg};
use std::ffi::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;
use std::time::Instant;

/// `MPI_MAX_INFO_KEY` of the standard ABI (mpi_abi.h): keys are at most 255 characters.
const MAX_INFO_KEY: usize = 256;

/// An MPI (not MPI_T) error class, numbered by the profile.
#[derive(Debug, Clone, Copy)]
enum MpiErr {
    Arg,
    Info,
    Other,
}

fn mpi_code(r: Result<(), MpiErr>) -> c_int {
    let a = abi();
    match r {
        Ok(()) => a.success(),
        Err(MpiErr::Arg) => a.mpi_err("MPI_ERR_ARG"),
        Err(MpiErr::Info) => a.mpi_err("MPI_ERR_INFO"),
        Err(MpiErr::Other) => a.mpi_err("MPI_ERR_OTHER"),
    }
}

/// Runs a body without letting a panic out (a panic is MPI_ERR_OTHER).
fn mpi_guard(f: impl FnOnce() -> Result<(), MpiErr>) -> c_int {
    mpi_code(catch_unwind(AssertUnwindSafe(f)).unwrap_or(Err(MpiErr::Other)))
}

/// Runs a body on the model; `report` as for the MPI_T init calls.
fn with_model(report: bool, f: impl FnOnce(&mut Model) -> Result<(), MpiErr>) -> c_int {
    mpi_guard(|| {
        let mut g = lock();
        let m = model_in(&mut g, report).ok_or(MpiErr::Other)?;
        f(m)
    })
}

fn arg<T>(p: *const T) -> Result<(), MpiErr> {
    if p.is_null() {
        Err(MpiErr::Arg)
    } else {
        Ok(())
    }
}

export! {
    /// Reports MPI 4.1, the version of the MPI_T chapter the reference implements.
    fn MPI_Get_version(version: *mut c_int, subversion: *mut c_int) -> c_int {
        mpi_guard(|| {
            arg(version)?;
            arg(subversion)?;
            // SAFETY: both checked non-NULL; OUT ints per the signature.
            unsafe {
                put(version, 4);
                put(subversion, 1);
            }
            Ok(())
        })
    }
}

export! {
    /// `version` holds MPI_MAX_LIBRARY_VERSION_STRING (8192) bytes; `resultlen` is the
    /// length without the NUL.
    fn MPI_Get_library_version(version: *mut c_char, resultlen: *mut c_int) -> c_int {
        mpi_guard(|| {
            arg(version)?;
            arg(resultlen)?;
            let s = concat!(
                "mpit-reference ",
                env!("CARGO_PKG_VERSION"),
                " (reference MPI_T of mpit-conform: MPI-4.1 tool information interface, MPI-5.0 standard ABI 1.0)"
            );
            let out = convention(s, StringArg { buf_null: false, len: Some(s.len() as c_int + 1) }, &Default::default());
            // SAFETY: the caller's buffer holds 8192 bytes, more than this string.
            unsafe {
                put_string(&out, version, std::ptr::null_mut());
                put(resultlen, s.len() as c_int);
            }
            Ok(())
        })
    }
}

export! {
    /// The reference speaks the MPI-5 standard ABI 1.0.
    fn MPI_Abi_get_version(abi_major: *mut c_int, abi_minor: *mut c_int) -> c_int {
        mpi_guard(|| {
            arg(abi_major)?;
            arg(abi_minor)?;
            // SAFETY: both checked non-NULL.
            unsafe {
                put(abi_major, 1);
                put(abi_minor, 0);
            }
            Ok(())
        })
    }
}

export! {
    /// Makes the `appears: mpi_init` entries visible (R-CVAR-1: appended).
    fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int {
        let _ = (argc, argv);
        with_model(true, |m| m.mpi_init().map_err(|_| MpiErr::Other))
    }
}

export! {
    /// Provides the level asked for (the reference is MPI_THREAD_MULTIPLE-safe).
    fn MPI_Init_thread(argc: *mut c_int, argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int) -> c_int {
        let _ = (argc, argv);
        with_model(true, |m| {
            arg(provided)?;
            abi().c.thread_level.lookup(required.into()).ok_or(MpiErr::Arg)?;
            m.mpi_init().map_err(|_| MpiErr::Other)?;
            // SAFETY: checked non-NULL.
            unsafe { put(provided, required) };
            Ok(())
        })
    }
}

export! {
    /// MPI_T stays usable after MPI_Finalize (R-GEN-4).
    fn MPI_Finalize() -> c_int {
        with_model(false, |m| m.mpi_finalize().map_err(|_| MpiErr::Other))
    }
}

/// Where MPI is, without building a model (no model: never initialized).
fn mpi_state() -> MpiState {
    lock()
        .as_ref()
        .map_or(MpiState::NotInitialized, |m| m.mpi_state())
}

export! {
    /// True once MPI_Init has run, also after MPI_Finalize.
    fn MPI_Initialized(flag: *mut c_int) -> c_int {
        mpi_guard(|| {
            arg(flag)?;
            let v = mpi_state() != MpiState::NotInitialized;
            // SAFETY: checked non-NULL.
            unsafe { put(flag, c_int::from(v)) };
            Ok(())
        })
    }
}

export! {
    fn MPI_Finalized(flag: *mut c_int) -> c_int {
        mpi_guard(|| {
            arg(flag)?;
            let v = mpi_state() == MpiState::Finalized;
            // SAFETY: checked non-NULL.
            unsafe { put(flag, c_int::from(v)) };
            Ok(())
        })
    }
}

/// A singleton's communicators: MPI_COMM_WORLD and MPI_COMM_SELF, size 1, rank 0,
/// usable between MPI_Init and MPI_Finalize. Other values are MPI_ERR_ARG (the
/// reference reports every bad argument of its few MPI calls as MPI_ERR_ARG).
fn comm_query(comm: usize, out: *mut c_int, value: c_int) -> c_int {
    mpi_guard(|| {
        arg(out)?;
        if !matches!(
            abi().object(comm),
            crate::model::BoundObject::CommWorld | crate::model::BoundObject::CommSelf
        ) {
            return Err(MpiErr::Arg);
        }
        if mpi_state() != MpiState::Initialized {
            return Err(MpiErr::Other);
        }
        // SAFETY: checked non-NULL; an OUT int per the signature.
        unsafe { put(out, value) };
        Ok(())
    })
}

export! {
    fn MPI_Comm_rank(comm: usize, rank: *mut c_int) -> c_int {
        comm_query(comm, rank, 0)
    }
}

export! {
    fn MPI_Comm_size(comm: usize, size: *mut c_int) -> c_int {
        comm_query(comm, size, 1)
    }
}

fn info(h: usize) -> InfoHandle {
    InfoHandle(h as u64)
}

export! {
    fn MPI_Info_create(info: *mut usize) -> c_int {
        with_model(false, |m| {
            arg(info)?;
            let h = m.info_create();
            // SAFETY: checked non-NULL.
            unsafe { put(info, h.0 as usize) };
            Ok(())
        })
    }
}

export! {
    /// Sets `*info` to MPI_INFO_NULL.
    fn MPI_Info_free(info: *mut usize) -> c_int {
        with_model(false, |m| {
            arg(info)?;
            // SAFETY: checked non-NULL; an INOUT handle.
            let h = unsafe { info.read() };
            m.info_free(self::info(h)).map_err(|_| MpiErr::Info)?;
            // SAFETY: as above.
            unsafe { put(info, abi().info_out(None)) };
            Ok(())
        })
    }
}

export! {
    fn MPI_Info_set(info: usize, key: *const c_char, value: *const c_char) -> c_int {
        with_model(false, |m| {
            // SAFETY: NUL-terminated strings or NULL (checked) per the signature.
            let (k, v) = unsafe { (c_name(key), c_name(value)) };
            let (k, v) = (k.map_err(|_| MpiErr::Arg)?, v.map_err(|_| MpiErr::Arg)?);
            if k.is_empty() || k.len() >= MAX_INFO_KEY {
                return Err(MpiErr::Info);
            }
            m.info_set(self::info(info), k, v).map_err(|_| MpiErr::Info)
        })
    }
}

export! {
    fn MPI_Info_get_nkeys(info: usize, nkeys: *mut c_int) -> c_int {
        with_model(false, |m| {
            arg(nkeys)?;
            let n = m.info_nkeys(self::info(info)).map_err(|_| MpiErr::Info)?;
            // SAFETY: checked non-NULL.
            unsafe { put(nkeys, n) };
            Ok(())
        })
    }
}

export! {
    /// `key` holds MPI_MAX_INFO_KEY bytes (keys are shorter, see MPI_Info_set).
    fn MPI_Info_get_nthkey(info: usize, n: c_int, key: *mut c_char) -> c_int {
        with_model(false, |m| {
            arg(key)?;
            let k = m.info_nthkey(self::info(info), n).map_err(|_| MpiErr::Arg)?;
            let out = convention(&k, StringArg { buf_null: false, len: Some(MAX_INFO_KEY as c_int) }, &Default::default());
            // SAFETY: non-NULL, MPI_MAX_INFO_KEY bytes per the standard.
            unsafe { put_string(&out, key, std::ptr::null_mut()) };
            Ok(())
        })
    }
}

export! {
    /// MPI-4.0: `*buflen` is the buffer size on input and strlen+1 on output; a missing
    /// key gives `*flag` = 0 and leaves the rest untouched.
    fn MPI_Info_get_string(info: usize, key: *const c_char, buflen: *mut c_int, value: *mut c_char, flag: *mut c_int) -> c_int {
        with_model(false, |m| {
            arg(buflen)?;
            arg(flag)?;
            // SAFETY: a NUL-terminated string or NULL (checked).
            let k = unsafe { c_name(key) }.map_err(|_| MpiErr::Arg)?;
            let v = m.info_get(self::info(info), k).map_err(|_| MpiErr::Info)?;
            // SAFETY: `flag` checked non-NULL; `buflen` checked non-NULL and `value`
            // holds `*buflen` bytes per the standard.
            unsafe {
                put(flag, c_int::from(v.is_some()));
                if let Some(v) = v {
                    let out = convention(&v, StringArg { buf_null: value.is_null(), len: Some(buflen.read()) }, &Default::default());
                    put_string(&out, value, buflen);
                }
            }
            Ok(())
        })
    }
}

export! {
    /// Seconds since the first call of MPI_Wtime in this process (monotonic), plus the
    /// time the simulated activity took (`MPIT_Reference_simulate`).
    fn MPI_Wtime() -> f64 {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64() + crate::ffi::hooks::simulated_seconds()
    }
}
