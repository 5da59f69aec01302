//! MPI calls of the lifecycle matrix (specs/cases/lifecycle.yaml): `MPI_Query_thread`,
//! MPI sessions, and duplicated communicators a variable can be bound to. Error classes
//! and the model lock are `mpi.rs`'s (`with_model`, `MpiErr`, with `WorldErr` converted).

use super::args::{put_mpi_handle, read_mpi_handle};
use super::mpi::{arg, with_model};
use super::{abi, export, put};
use crate::model::BoundObject;
use std::ffi::c_int;

export! {
    /// R-MPI-1: the level MPI_Init_thread returned, whatever MPI_T_init_thread did.
    fn MPI_Query_thread(provided: *mut c_int) -> c_int {
        with_model(true, |m| {
            arg(provided)?;
            let level = m.query_thread()?;
            // SAFETY: checked non-NULL above; an OUT int per the signature.
            unsafe { put(provided, abi().c.thread_level.num(level) as c_int) };
            Ok(())
        })
    }
}

export! {
    /// A new session (the info and error handler are accepted and not kept).
    fn MPI_Session_init(info: usize, errhandler: usize, session: *mut usize) -> c_int {
        let _ = (info, errhandler);
        with_model(true, |m| {
            arg(session)?;
            let s = m.session_init()?;
            // SAFETY: checked non-NULL above; an OUT MPI_Session (an int under MPICH).
            unsafe { put_mpi_handle(session, s as usize) };
            Ok(())
        })
    }
}

export! {
    /// Ends a session and sets the handle to MPI_SESSION_NULL; MPI_T is untouched.
    fn MPI_Session_finalize(session: *mut usize) -> c_int {
        with_model(true, |m| {
            arg(session)?;
            // SAFETY: checked non-NULL above; an INOUT MPI_Session (an int under MPICH).
            let s = unsafe { read_mpi_handle(session) };
            m.session_finalize(s as u64)?;
            let null = abi().p.handle_num("MPI_SESSION_NULL").unwrap_or(0);
            // SAFETY: as above.
            unsafe { put_mpi_handle(session, null as usize) };
            Ok(())
        })
    }
}

export! {
    /// A duplicate of MPI_COMM_WORLD, MPI_COMM_SELF or a duplicate, usable as a bind
    /// target (R-BIND-3) until freed.
    fn MPI_Comm_dup(comm: usize, newcomm: *mut usize) -> c_int {
        with_model(true, |m| {
            arg(newcomm)?;
            let known = match abi().object(comm) {
                BoundObject::CommWorld | BoundObject::CommSelf => true,
                BoundObject::Other(v) => m.comm_exists(v),
                _ => false,
            };
            let c = m.comm_dup(known)?;
            // SAFETY: checked non-NULL above; an OUT MPI_Comm (an int under MPICH).
            unsafe { put_mpi_handle(newcomm, c as usize) };
            Ok(())
        })
    }
}

export! {
    /// Frees a duplicate and sets the handle to MPI_COMM_NULL.
    fn MPI_Comm_free(comm: *mut usize) -> c_int {
        with_model(true, |m| {
            arg(comm)?;
            // SAFETY: checked non-NULL above; an INOUT MPI_Comm (an int under MPICH).
            let c = unsafe { read_mpi_handle(comm) };
            m.comm_free(c as u64)?;
            let null = abi().p.handle_num("MPI_COMM_NULL").unwrap_or(0);
            // SAFETY: as above.
            unsafe { put_mpi_handle(comm, null as usize) };
            Ok(())
        })
    }
}
