//! MPI-4.1 §15.3.7: performance variables, sessions and handles.
//! MPI_T_PVAR_ALL_HANDLES is decoded to `PvarTarget::All`; everything else goes
//! through the model's registries (R-PH-1: a foreign handle is INVALID_HANDLE).

use super::process::{self, Point};
use super::{
    abi, bound_object, c_name, copy_in, copy_out, export, free_inout, need, out_desc, out_str, put,
    put_mpi_handle, put_unchecked_if, t_call,
};
use crate::faults::Fault;
use crate::model::{Model, PvarHandle, Session};
use mpit_vocab::spec::{TErr, TResult};
use std::ffi::{c_char, c_int, c_void};

export! {
    fn MPI_T_pvar_get_num(num_pvar: *mut c_int) -> c_int {
        t_call(|m| {
            need(num_pvar)?;
            let n = m.pvar_get_num()?;
            // SAFETY: checked non-NULL.
            unsafe { put(num_pvar, n) };
            Ok(())
        })
    }
}

export! {
    /// R-PVAR-1: every NULL OUT/INOUT argument is ignored.
    fn MPI_T_pvar_get_info(
        pvar_index: c_int,
        name: *mut c_char,
        name_len: *mut c_int,
        verbosity: *mut c_int,
        var_class: *mut c_int,
        datatype: *mut usize,
        enumtype: *mut usize,
        desc: *mut c_char,
        desc_len: *mut c_int,
        bind: *mut c_int,
        readonly: *mut c_int,
        continuous: *mut c_int,
        atomic: *mut c_int,
    ) -> c_int {
        t_call(|m| {
            let info = m.pvar_get_info(pvar_index)?;
            let f = m.faults();
            if (name_len.is_null() || desc_len.is_null()) && f.has(Fault::UpstreamMpich7cdc468dbe) {
                return Err(TErr::Invalid);
            }
            let p = &abi().c;
            let dt = crate::ffi::cvar::datatype_out(m, info.datatype);
            // SAFETY: each pointer is NULL (ignored) or valid for its OUT type; the
            // string buffers hold the caller's `*len` bytes.
            unsafe {
                out_str(&info.name, name, name_len, f);
                put(verbosity, p.verbosity.num(info.verbosity) as c_int);
                put(var_class, p.pvar_class.num(info.var_class) as c_int);
                put_mpi_handle(datatype, dt);
                put(enumtype, info.enumtype.0 as usize);
                out_desc(&info.desc, desc, desc_len, f);
                put(bind, p.bind.num(info.bind) as c_int);
                // Fault `flag-returned-as-2`: "true" as 2, a C logical flag but not the
                // 0/1 R-PVAR-2 states.
                let two = f.has(Fault::FlagReturnedAsTwo);
                put(readonly, c_int::from(info.readonly) * if two { 2 } else { 1 });
                put(continuous, c_int::from(info.continuous));
                put_unchecked_if(
                    atomic,
                    c_int::from(info.atomic),
                    f.has(Fault::NullOutDerefPvar),
                );
            }
            Ok(())
        })
    }
}

export! {
    /// R-PVAR-4: by name and class; an unknown class number is MPI_T_ERR_INVALID.
    fn MPI_T_pvar_get_index(name: *const c_char, var_class: c_int, pvar_index: *mut c_int) -> c_int {
        t_call(|m| {
            need(pvar_index)?;
            // SAFETY: a NUL-terminated string or NULL (checked) per the signature.
            let name = unsafe { c_name(name) }?;
            let class = abi().c.pvar_class.lookup(var_class.into()).ok_or(TErr::Invalid)?;
            let i = m.pvar_get_index(name, class)?;
            // SAFETY: checked non-NULL.
            unsafe { put(pvar_index, i) };
            Ok(())
        })
    }
}

export! {
    fn MPI_T_pvar_session_create(pe_session: *mut usize) -> c_int {
        t_call(|m| {
            need(pe_session)?;
            let s = m.pvar_session_create()?;
            // SAFETY: checked non-NULL.
            unsafe { put(pe_session, s.0 as usize) };
            Ok(())
        })
    }
}

export! {
    /// R-SESS-1: sets `*pe_session` to MPI_T_PVAR_SESSION_NULL.
    fn MPI_T_pvar_session_free(pe_session: *mut usize) -> c_int {
        process::strike(Point::PvarSessionFree);
        t_call(|m| {
            // SAFETY: an INOUT session handle per the signature (NULL is refused).
            unsafe { free_inout(pe_session, |s| Ok(m.pvar_session_free(Session(s))?.0)) }
        })
    }
}

export! {
    fn MPI_T_pvar_handle_alloc(
        pe_session: usize,
        pvar_index: c_int,
        obj_handle: *mut c_void,
        handle: *mut usize,
        count: *mut c_int,
    ) -> c_int {
        t_call(|m| {
            need(handle)?;
            need(count)?;
            // SAFETY: NULL or the address of one handle per R-BIND-3.
            let obj = unsafe { bound_object(obj_handle) };
            let f = m.faults();
            let unloaded = f.has(Fault::UpstreamOmpi4433) && m.pvar_appears_with_mpi(pvar_index);
            if unloaded && m.mpi_state() != crate::model::MpiState::NotInitialized {
                // ompi#4433: the notify callback of a dlclose()d component.
                crate::ffi::crash();
            }
            let (h, n) = m.pvar_handle_alloc(Session(pe_session as u64), pvar_index, obj)?;
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
    /// R-PH-1: sets `*handle` to MPI_T_PVAR_HANDLE_NULL.
    fn MPI_T_pvar_handle_free(pe_session: usize, handle: *mut usize) -> c_int {
        t_call(|m| {
            let s = Session(pe_session as u64);
            // SAFETY: an INOUT handle per the signature (NULL is refused).
            unsafe { free_inout(handle, |h| Ok(m.pvar_handle_free(s, PvarHandle(h))?.0)) }
        })
    }
}

/// The session and target of a pvar access call.
fn st(pe_session: usize, handle: usize) -> (Session, crate::model::PvarTarget) {
    (Session(pe_session as u64), abi().pvar_target(handle))
}

/// [`st`] for start, stop and reset; fault `upstream-mpich-6390` does not recognize
/// MPI_T_PVAR_ALL_HANDLES there and looks it up as a handle.
fn st_of(m: &Model, pe_session: usize, handle: usize) -> (Session, crate::model::PvarTarget) {
    let (s, t) = st(pe_session, handle);
    match t {
        crate::model::PvarTarget::All if m.faults().has(Fault::UpstreamMpich6390) => {
            (s, crate::model::PvarTarget::One(PvarHandle(handle as u64)))
        }
        t => (s, t),
    }
}

export! {
    /// R-PSTART-1/2.
    fn MPI_T_pvar_start(pe_session: usize, handle: usize) -> c_int {
        t_call(|m| {
            let (s, t) = st_of(m, pe_session, handle);
            m.pvar_start(s, t)
        })
    }
}

export! {
    fn MPI_T_pvar_stop(pe_session: usize, handle: usize) -> c_int {
        t_call(|m| {
            let (s, t) = st_of(m, pe_session, handle);
            m.pvar_stop(s, t)
        })
    }
}

/// Reads a handle's value into `buf` (count × size bytes) with `read`.
///
/// # Safety
/// `buf` is NULL or valid for count × size(datatype) bytes of the handle.
unsafe fn read_into(
    m: &mut Model,
    pe_session: usize,
    handle: usize,
    buf: *mut c_void,
    read: impl FnOnce(&mut Model, Session, crate::model::PvarTarget) -> TResult<Vec<u8>>,
) -> TResult<()> {
    need(buf)?;
    let (s, t) = st(pe_session, handle);
    let (dt, count) = m.pvar_handle_layout(s, t)?;
    if m.faults().has(Fault::UpstreamOmpiD34a4300b8) && m.pvar_handle_is_watermark(s, t) {
        // ompi d34a4300b8: "Segmentation fault when using watermark variables."
        crate::ffi::crash();
    }
    let mut bytes = read(m, s, t)?;
    bytes.truncate(count * dt.size());
    // SAFETY: non-NULL; valid for count × size bytes per this function's contract.
    unsafe { copy_out(&bytes, buf) };
    Ok(())
}

export! {
    /// R-PREAD-1: writes exactly count × size(datatype) bytes.
    fn MPI_T_pvar_read(pe_session: usize, handle: usize, buf: *mut c_void) -> c_int {
        // SAFETY: the caller provides count × size bytes at `buf` (R-PREAD-1).
        t_call(|m| unsafe { read_into(m, pe_session, handle, buf, |m, s, t| m.pvar_read(s, t)) })
    }
}

export! {
    /// R-PWRITE-1: reads exactly count × size(datatype) bytes.
    fn MPI_T_pvar_write(pe_session: usize, handle: usize, buf: *const c_void) -> c_int {
        t_call(|m| {
            need(buf)?;
            let (s, t) = st(pe_session, handle);
            let (dt, count) = m.pvar_handle_layout(s, t)?;
            // SAFETY: non-NULL; the caller provides count × size bytes.
            let bytes = unsafe { copy_in(buf, count * dt.size()) };
            m.pvar_write(s, t, &bytes)
        })
    }
}

export! {
    /// R-PRESET-1.
    fn MPI_T_pvar_reset(pe_session: usize, handle: usize) -> c_int {
        t_call(|m| {
            let (s, t) = st_of(m, pe_session, handle);
            m.pvar_reset(s, t)
        })
    }
}

export! {
    /// R-PRR-1.
    fn MPI_T_pvar_readreset(pe_session: usize, handle: usize, buf: *mut c_void) -> c_int {
        // SAFETY: the caller provides count × size bytes at `buf` (R-PREAD-1).
        t_call(|m| unsafe { read_into(m, pe_session, handle, buf, |m, s, t| m.pvar_readreset(s, t)) })
    }
}
