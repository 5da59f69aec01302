//! The few MPI functions a tool needs next to MPI_T, for a singleton process: version
//! queries, MPI_Init/Finalize (which make `appears: mpi_init` entries visible),
//! MPI_COMM_WORLD/SELF of size 1, a minimal MPI_Info, MPI_Wtime, and what MPICH's
//! `mpivars` and Intel's `impi_info` import besides MPI_T: MPI_Type_get_name and
//! MPI_Abort.

use super::process::{self, Point};
use super::{
    abi, c_name, export, lock, model_in, put, put_mpi_handle, put_string, read_mpi_handle,
};
use crate::model::{InfoHandle, Model, MpiState, WorldErr};
use crate::strings::{convention, StringArg};
use mpit_vocab::profile::Family;
use std::ffi::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;
use std::time::Instant;

/// `MPI_MAX_INFO_KEY` of the standard ABI (mpi_abi.h): keys are at most 255 characters.
const MAX_INFO_KEY: usize = 256;

/// `MPI_MAX_OBJECT_NAME`: 128 in both ABIs the reference speaks (mpi_abi.h and MPICH's
/// mpi.h); MPI_Type_get_name's `type_name` holds that many bytes (MPI-4.1 §7.2).
const MAX_OBJECT_NAME: c_int = 128;

/// An MPI (not MPI_T) error class, numbered by the profile: the one mapping of the
/// reference's MPI calls, `world.rs`'s included.
#[derive(Debug, Clone, Copy)]
pub(super) enum MpiErr {
    Arg,
    Info,
    Comm,
    Session,
    Other,
}

impl From<WorldErr> for MpiErr {
    fn from(e: WorldErr) -> MpiErr {
        match e {
            WorldErr::Comm => MpiErr::Comm,
            WorldErr::Session => MpiErr::Session,
            WorldErr::NotInitialized | WorldErr::Broken => MpiErr::Other,
        }
    }
}

fn mpi_code(r: Result<(), MpiErr>) -> c_int {
    let a = abi();
    match r {
        Ok(()) => a.success(),
        Err(MpiErr::Arg) => a.mpi_err("MPI_ERR_ARG"),
        Err(MpiErr::Info) => a.mpi_err("MPI_ERR_INFO"),
        Err(MpiErr::Comm) => a.mpi_err("MPI_ERR_COMM"),
        Err(MpiErr::Session) => a.mpi_err("MPI_ERR_SESSION"),
        Err(MpiErr::Other) => a.mpi_err("MPI_ERR_OTHER"),
    }
}

/// Runs a body without letting a panic out (a panic is MPI_ERR_OTHER).
fn mpi_guard(f: impl FnOnce() -> Result<(), MpiErr>) -> c_int {
    mpi_code(catch_unwind(AssertUnwindSafe(f)).unwrap_or(Err(MpiErr::Other)))
}

/// Runs a body on the model; `report` as for the MPI_T init calls.
pub(super) fn with_model(report: bool, f: impl FnOnce(&mut Model) -> Result<(), MpiErr>) -> c_int {
    mpi_guard(|| {
        let mut g = lock();
        let m = model_in(&mut g, report).ok_or(MpiErr::Other)?;
        f(m)
    })
}

pub(super) fn arg<T>(p: *const T) -> Result<(), MpiErr> {
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
            crate::ffi::parse_early();
            process::strike(Point::VersionQuery);
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
            crate::ffi::parse_early();
            process::strike(Point::VersionQuery);
            arg(version)?;
            arg(resultlen)?;
            let s = library_version();
            let s = s.as_str();
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

/// The version string: under MPICH's ABI it also carries the `MPICH Version:` line
/// MPICH's own library starts with, naming the release of the profile (from its
/// description, e.g. "MPICH 5.0.2 mpi.h"), so a reader of this string (a tool, the
/// harness choosing a profile) takes the numbers of that header.
fn library_version() -> String {
    let head = concat!(
        "mpit-reference ",
        env!("CARGO_PKG_VERSION"),
        " (reference MPI_T of mpit-conform: MPI-4.1 tool information interface"
    );
    let a = abi();
    match a.p.family {
        Family::Mpich => {
            let release =
                a.p.description
                    .strip_prefix("MPICH ")
                    .and_then(|r| r.split_whitespace().next())
                    .unwrap_or("unknown");
            format!(
                "{head}, MPICH ABI of {}: {})\nMPICH Version:\t{release}",
                a.p.description, a.why
            )
        }
        _ => format!("{head}, MPI-5.0 standard ABI 1.0)"),
    }
}

export! {
    /// The standard ABI 1.0; under MPICH's ABI -1.-1, what native MPICH 5 and Intel MPI
    /// answer (docs/ABI.md: they export the function but speak no standard ABI).
    fn MPI_Abi_get_version(abi_major: *mut c_int, abi_minor: *mut c_int) -> c_int {
        mpi_guard(|| {
            arg(abi_major)?;
            arg(abi_minor)?;
            let (major, minor) = match abi().p.family {
                Family::Standard => (1, 0),
                _ => (-1, -1),
            };
            // SAFETY: both checked non-NULL.
            unsafe {
                put(abi_major, major);
                put(abi_minor, minor);
            }
            Ok(())
        })
    }
}

export! {
    /// Makes the `appears: mpi_init` entries visible (R-CVAR-1: appended).
    fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int {
        let _ = (argc, argv);
        process::strike(Point::MpiInit);
        with_model(true, |m| m.mpi_init().map_err(|_| MpiErr::Other))
    }
}

export! {
    /// Provides the level asked for (the reference is MPI_THREAD_MULTIPLE-safe).
    fn MPI_Init_thread(argc: *mut c_int, argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int) -> c_int {
        let _ = (argc, argv);
        with_model(true, |m| {
            arg(provided)?;
            let level = abi().c.thread_level.lookup(required.into()).ok_or(MpiErr::Arg)?;
            // The level MPI_Query_thread reports from now on (R-MPI-1).
            m.mpi_init_thread(level).map_err(|_| MpiErr::Other)?;
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
    let comm = abi().mpi_handle(comm);
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
    InfoHandle(abi().mpi_handle(h) as u64)
}

export! {
    fn MPI_Info_create(info: *mut usize) -> c_int {
        with_model(false, |m| {
            arg(info)?;
            let h = m.info_create();
            // SAFETY: checked non-NULL; an OUT MPI_Info of the ABI's width.
            unsafe { put_mpi_handle(info, h.0 as usize) };
            Ok(())
        })
    }
}

export! {
    /// Sets `*info` to MPI_INFO_NULL.
    fn MPI_Info_free(info: *mut usize) -> c_int {
        with_model(false, |m| {
            arg(info)?;
            // SAFETY: checked non-NULL; an INOUT MPI_Info of the ABI's width.
            let h = unsafe { read_mpi_handle(info) };
            m.info_free(self::info(h)).map_err(|_| MpiErr::Info)?;
            // SAFETY: as above.
            unsafe { put_mpi_handle(info, abi().info_out(None)) };
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
    /// The name of a predefined datatype the reference uses (MPI-4.1 §7.2: a predefined
    /// type's name is its C name, e.g. "MPI_INT"); any other handle is MPI_ERR_TYPE.
    /// `type_name` holds MPI_MAX_OBJECT_NAME bytes; `resultlen` is the length without NUL.
    fn MPI_Type_get_name(datatype: usize, type_name: *mut c_char, resultlen: *mut c_int) -> c_int {
        let a = abi();
        match a.datatype_of(datatype) {
            None => a.mpi_err("MPI_ERR_TYPE"),
            Some(d) => mpi_guard(|| {
                arg(type_name)?;
                arg(resultlen)?;
                let s = d.spelling();
                let out = convention(s, StringArg { buf_null: false, len: Some(MAX_OBJECT_NAME) }, &Default::default());
                // SAFETY: both checked non-NULL; `type_name` holds MPI_MAX_OBJECT_NAME
                // bytes per the standard, and the convention writes at most that many.
                unsafe {
                    put_string(&out, type_name, std::ptr::null_mut());
                    put(resultlen, s.len().min(MAX_OBJECT_NAME as usize - 1) as c_int);
                }
                Ok(())
            }),
        }
    }
}

export! {
    /// A singleton's abort: ends the process with `errorcode` as its exit status (MPI-4.1
    /// §11.5: "return errorcode to the invoking environment", as MPICH's singleton
    /// does), after one line on stderr. `exit` flushes the tool's stdio buffers.
    fn MPI_Abort(comm: usize, errorcode: c_int) -> c_int {
        let comm = abi().mpi_handle(comm);
        eprintln!("mpit-reference: MPI_Abort(comm {comm:#x}, errorcode {errorcode}) called");
        std::process::exit(errorcode)
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
