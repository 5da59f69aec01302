//! Reference-only hooks (no PMPI twins): drive simulated MPI activity and events, and
//! list the injectable faults.

use super::{t_call, t_call_deliver};
use crate::faults::Fault;
use mpit_vocab::spec::TErr;
use std::ffi::{c_char, c_int, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// `int MPIT_Reference_simulate(int steps)`: `steps` units of MPI activity (counters
/// count, levels move, timers run). A negative count is MPI_T_ERR_INVALID.
#[no_mangle]
pub extern "C" fn MPIT_Reference_simulate(steps: c_int) -> c_int {
    t_call(|m| {
        let steps = u32::try_from(steps).map_err(|_| TErr::Invalid)?;
        // The reference's MPI work: the fault `mpi-broken-after-t-finalize` breaks it.
        if m.mpi_state() == crate::model::MpiState::Initialized && m.mpi_usable().is_err() {
            return Err(TErr::Invalid);
        }
        m.simulate(steps);
        SIMULATED_STEPS.fetch_add(u64::from(steps), Ordering::Relaxed);
        Ok(())
    })
}

/// Steps simulated in this process, over every initialization: MPI_Wtime adds their
/// time, so the simulated work takes time on the reference's clock as a TIMER counts it
/// (MPI-4.1 §15.3.7: a MPI_DOUBLE TIMER is in MPI_Wtime's units).
static SIMULATED_STEPS: AtomicU64 = AtomicU64::new(0);

/// The seconds the simulated steps took (never decreases).
pub(super) fn simulated_seconds() -> f64 {
    SIMULATED_STEPS.load(Ordering::Relaxed) as f64 * crate::model::TIMER_STEP_SECS
}

/// `int MPIT_Reference_raise_event(int event_index, MPI_T_cb_safety required)`: the
/// reference observes one event of that type in a context requiring `required`; the
/// callbacks (dropped handlers first where due) run before it returns, without the
/// lock held. An unknown safety level is MPI_T_ERR_INVALID.
#[no_mangle]
pub extern "C" fn MPIT_Reference_raise_event(event_index: c_int, required: c_int) -> c_int {
    t_call_deliver(|m| {
        let s = super::abi()
            .c
            .cb_safety
            .lookup(required.into())
            .ok_or(TErr::Invalid)?;
        m.raise_event(event_index, s)
    })
}

/// `int MPIT_Reference_fault_count(void)`: how many faults can be injected with
/// `MPIT_REFERENCE_FAULTS`.
#[no_mangle]
pub extern "C" fn MPIT_Reference_fault_count() -> c_int {
    Fault::ALL.len() as c_int
}

/// `const char *MPIT_Reference_fault_name(int i)`: the name of fault `i` (static,
/// NUL-terminated), NULL when `i` is out of range.
#[no_mangle]
pub extern "C" fn MPIT_Reference_fault_name(i: c_int) -> *const c_char {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        Fault::ALL
            .iter()
            .filter_map(|f| CString::new(f.name()).ok())
            .collect()
    });
    usize::try_from(i)
        .ok()
        .and_then(|i| names.get(i))
        .map_or(std::ptr::null(), |s| s.as_ptr())
}
