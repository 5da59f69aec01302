//! MPI-4.1 §15.3.6: control variables.

use super::process::{self, Point};
use super::{
    abi, bound_object, c_name, copy_in, copy_out, crash, export, free_inout, need, out_desc,
    out_str, put, put_mpi_handle, put_unchecked_if, t_call,
};
use crate::faults::Fault;
use crate::model::CvarHandle;
use mpit_vocab::spec::Datatype;
use std::ffi::{c_char, c_int, c_void};

/// What fault `verbosity-out-of-range` writes: none of the nine verbosity constants.
const ILLEGAL_VERBOSITY: c_int = 0x7fff;

/// The bytes of an address (fault `upstream-mpich-2021`): no NUL among them.
const POINTER_BYTES: [u8; 8] = [0x10, 0x5e, 0xa2, 0x3c, 0xfd, 0x7f, 0x01, 0x02];

export! {
    fn MPI_T_cvar_get_num(num_cvar: *mut c_int) -> c_int {
        t_call(|m| {
            need(num_cvar)?;
            let n = m.cvar_get_num()?;
            // SAFETY: checked non-NULL; an OUT int per the signature.
            unsafe { put(num_cvar, n) };
            Ok(())
        })
    }
}

export! {
    /// R-CVAR-3: every NULL OUT/INOUT argument is ignored.
    fn MPI_T_cvar_get_info(
        cvar_index: c_int,
        name: *mut c_char,
        name_len: *mut c_int,
        verbosity: *mut c_int,
        datatype: *mut usize,
        enumtype: *mut usize,
        desc: *mut c_char,
        desc_len: *mut c_int,
        bind: *mut c_int,
        scope: *mut c_int,
    ) -> c_int {
        process::strike(Point::CvarGetInfo(cvar_index));
        t_call(|m| {
            let info = m.cvar_get_info(cvar_index)?;
            let f = m.faults();
            if verbosity.is_null() && f.has(Fault::NullOutRejected) {
                return Err(mpit_vocab::spec::TErr::Invalid);
            }
            if (name_len.is_null() || desc_len.is_null()) && f.has(Fault::UpstreamMpich7cdc468dbe) {
                return Err(mpit_vocab::spec::TErr::Invalid);
            }
            let dt = datatype_out(m, info.datatype);
            let p = &abi().c;
            let verb = if f.has(Fault::VerbosityOutOfRange) {
                ILLEGAL_VERBOSITY
            } else {
                p.verbosity.num(info.verbosity) as c_int
            };
            // SAFETY: each pointer is NULL (ignored) or valid for its OUT type; the
            // string buffers hold the caller's `*len` bytes.
            unsafe {
                out_str(&info.name, name, name_len, f);
                // ompi a28012b29d: "Return the verbosity level in MPI_T_cvar_get_info."
                if !f.has(Fault::UpstreamOmpiA28012b29d) {
                    put(verbosity, verb);
                }
                put_mpi_handle(datatype, dt);
                put(enumtype, info.enumtype.0 as usize);
                out_desc(&info.desc, desc, desc_len, f);
                put_unchecked_if(
                    bind,
                    p.bind.num(info.bind) as c_int,
                    f.has(Fault::NullOutDerefCvar),
                );
                put(scope, p.scope.num(info.scope) as c_int);
            }
            Ok(())
        })
    }
}

/// A variable's datatype as the ABI's handle; fault `upstream-mpich-7247` returns the
/// internal object's address before MPI is initialized (the builtins table was filled
/// by MPI_Init).
pub(super) fn datatype_out(m: &crate::model::Model, dt: Datatype) -> usize {
    let before_mpi = m.mpi_state() == crate::model::MpiState::NotInitialized;
    if before_mpi && m.faults().has(Fault::UpstreamMpich7247) {
        INTERNAL_DATATYPE + 8 * dt as usize
    } else {
        abi().datatype(dt)
    }
}

/// Where fault `upstream-mpich-7247`'s internal datatype objects live (an address, none
/// of Table 19's constants in either ABI).
const INTERNAL_DATATYPE: usize = 0x7f3a_0000;

export! {
    /// R-CVAR-5: MPI_T_ERR_INVALID_NAME for an unknown name.
    fn MPI_T_cvar_get_index(name: *const c_char, cvar_index: *mut c_int) -> c_int {
        t_call(|m| {
            need(cvar_index)?;
            // SAFETY: a NUL-terminated string or NULL (checked) per the signature.
            let name = unsafe { c_name(name) }?;
            let i = m.cvar_get_index(name)?;
            // SAFETY: checked non-NULL.
            unsafe { put(cvar_index, i) };
            Ok(())
        })
    }
}

export! {
    /// R-CVAR-6: `obj_handle` is NULL or the address of a handle (R-BIND-3).
    fn MPI_T_cvar_handle_alloc(
        cvar_index: c_int,
        obj_handle: *mut c_void,
        handle: *mut usize,
        count: *mut c_int,
    ) -> c_int {
        t_call(|m| {
            need(handle)?;
            need(count)?;
            // SAFETY: NULL or the address of one handle per R-BIND-3.
            let obj = unsafe { bound_object(obj_handle) };
            let (h, n) = m.cvar_handle_alloc(cvar_index, obj)?;
            // SAFETY: both checked non-NULL.
            unsafe {
                put(handle, h.0 as usize);
                put(count, n);
            }
            Ok(())
        })
    }
}

export! {
    /// R-CVAR-7: sets `*handle` to MPI_T_CVAR_HANDLE_NULL.
    fn MPI_T_cvar_handle_free(handle: *mut usize) -> c_int {
        process::strike(Point::CvarHandleFree);
        t_call(|m| {
            // SAFETY: an INOUT handle per the signature (NULL is refused).
            unsafe { free_inout(handle, |h| Ok(m.cvar_handle_free(CvarHandle(h))?.0)) }
        })
    }
}

export! {
    /// R-CVAR-8: writes exactly count × size(datatype) bytes.
    fn MPI_T_cvar_read(handle: usize, buf: *mut c_void) -> c_int {
        t_call(|m| {
            need(buf)?;
            let h = CvarHandle(handle as u64);
            let (dt, count) = m.cvar_handle_layout(h)?;
            if dt == Datatype::Char && m.faults().has(Fault::CrashInCall) {
                crash();
            }
            let mut bytes = m.cvar_read(h)?;
            if dt == Datatype::Char && m.faults().has(Fault::UpstreamMpich2021) {
                // mpich#2021: `count` bytes from the `char *` holding the string.
                bytes = POINTER_BYTES.iter().copied().cycle().take(count).collect();
            }
            bytes.truncate(count * dt.size());
            // SAFETY: the caller provides count × size bytes (R-CVAR-8).
            unsafe { copy_out(&bytes, buf) };
            Ok(())
        })
    }
}

export! {
    /// R-CVAR-9: reads exactly count × size(datatype) bytes.
    fn MPI_T_cvar_write(handle: usize, buf: *const c_void) -> c_int {
        t_call(|m| {
            need(buf)?;
            let h = CvarHandle(handle as u64);
            let (dt, count) = m.cvar_handle_layout(h)?;
            if m.faults().has(Fault::UpstreamOmpi2689) && m.cvar_handle_enumerated(h) {
                // ompi#2689: the enumerator's string from a NULL value.
                crash();
            }
            // SAFETY: the caller provides count × size bytes (R-CVAR-8).
            let bytes = unsafe { copy_in(buf, count * dt.size()) };
            m.cvar_write(h, &bytes)
        })
    }
}
