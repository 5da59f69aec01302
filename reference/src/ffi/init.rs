//! MPI-4.1 §15.3.4: `MPI_T_init_thread` and `MPI_T_finalize`.

use super::process::{self, Point};
use super::{abi, code, export, guard, lock, model_in, need, put, t_call};
use crate::faults::Fault;
use mpit_vocab::spec::TErr;
use std::ffi::c_int;

/// What fault `provided-illegal` writes: none of the four thread levels.
const ILLEGAL_PROVIDED: c_int = 0x7777;

export! {
    /// R-INIT-1: nesting counts; a catalog or fault list that cannot be loaded gives
    /// MPI_T_ERR_CANNOT_INIT with one line on stderr; an unknown level MPI_T_ERR_INVALID.
    fn MPI_T_init_thread(required: c_int, provided: *mut c_int) -> c_int {
        process::strike(Point::InitThread);
        guard(|| {
            let mut g = lock();
            let Some(m) = model_in(&mut g, true) else {
                return code(Err(TErr::CannotInit), &Default::default());
            };
            let p = &abi().c;
            let r = (|| {
                need(provided)?;
                let level = p.thread_level.lookup(required.into()).ok_or(TErr::Invalid)?;
                let got = m.init_thread(level)?;
                // ompi 675236d09b: "nested calls previously did not write *provided".
                if m.faults().has(Fault::UpstreamOmpi675236d09b) && m.init_count() > 1 {
                    return Ok(());
                }
                let n = if m.faults().has(Fault::ProvidedIllegal) {
                    ILLEGAL_PROVIDED
                } else {
                    p.thread_level.num(got) as c_int
                };
                // SAFETY: checked non-NULL above; an OUT int per the signature.
                unsafe { put(provided, n) };
                Ok(())
            })();
            code(r, m.faults())
        })
    }
}

export! {
    /// R-FIN-1/2: one more finalize than inits gives MPI_T_ERR_NOT_INITIALIZED.
    fn MPI_T_finalize() -> c_int {
        t_call(|m| {
            let last = m.init_count() == 1;
            let after_mpi = m.mpi_state() == crate::model::MpiState::Finalized;
            if last && after_mpi && m.faults().has(Fault::UpstreamOmpi11485) {
                // ompi#11485: closing components MPI_Finalize already closed.
                crate::ffi::crash();
            }
            m.finalize()
        })
    }
}
