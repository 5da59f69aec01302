//! The raw entry points: one `Option<fn pointer>` per symbol, resolved once at open.
//!
//! Every prototype is the MPI-4.1 one (MPI-4.1 §15.3) written with this
//! module's fixed-width stand-ins:
//! * MPI_T handles (`MPI_T_enum`, `MPI_T_cvar_handle`, `MPI_T_pvar_handle`,
//!   `MPI_T_pvar_session`, `MPI_T_event_registration`, `MPI_T_event_instance`) are
//!   pointers in every family: [`RawHandle`] (`usize`).
//! * MPI object handles passed **by value** (`MPI_Info`, `MPI_Comm`) are [`RawObj`]
//!   (`u64`) whatever the family's width. They are always among the first six integer
//!   arguments, so they travel in a general-purpose register; the System V x86-64 ABI
//!   (and AAPCS64 alike) passes an `int` and a pointer argument in the same register and
//!   a callee reading an `int` uses only the low 32 bits. Passing the 32-bit MPICH value
//!   zero-extended to 64 bits is therefore exactly what a C caller passes; one table of
//!   prototypes serves both widths, with no per-width function pointer types to keep in
//!   step. `mod.rs` refuses to build for other architectures, where this would have to
//!   be re-argued.
//! * MPI object handles returned through a pointer (`MPI_Datatype *`, `MPI_Info *`) get an
//!   8-byte zeroed slot; the callee writes 4 or 8 bytes and `Lib::obj_out` decodes them
//!   with the family's width (docs/ABI.md, "Handle widths").
//! * `MPI_Count` is `int64_t` (`long long`) in every family.

use super::{RawHandle, RawObj};
use std::ffi::{c_char, c_int, c_void};

/// `MPI_T_event_cb_function` (MPI-4.1 §15.3.8.4).
pub(super) type EventCb = unsafe extern "C" fn(RawHandle, RawHandle, c_int, *mut c_void);
/// `MPI_T_event_free_cb_function` (MPI-4.1 §15.3.8.4).
pub(super) type FreeCb = unsafe extern "C" fn(RawHandle, c_int, *mut c_void);
/// `MPI_T_event_dropped_cb_function` (MPI-4.1 §15.3.8.5): `MPI_Count count` first.
pub(super) type DroppedCb = unsafe extern "C" fn(i64, RawHandle, c_int, c_int, *mut c_void);

/// `int MPI_X_free(MPI_X *)`: an MPI object handle passed INOUT.
pub(super) type ObjFree = unsafe extern "C" fn(*mut RawObj) -> c_int;

/// `double MPI_Wtime(void)` (MPI-4.1 §9.6): the one entry point the harness calls that
/// does not return an `int` code.
pub(super) type Wtime = unsafe extern "C" fn() -> f64;

macro_rules! symbols {
    ($($kind:ident $field:ident = $sym:literal : ($($arg:ty),*);)+) => {
        /// Resolved entry points; `None` when the library does not export one.
        #[derive(Clone, Copy)]
        pub(super) struct Raw {
            $( pub(super) $field: Option<unsafe extern "C" fn($($arg),*) -> c_int>, )+
            pub(super) wtime: Option<Wtime>,
        }

        impl Raw {
            /// Nothing resolved (every entry point "unsupported").
            #[cfg(test)]
            pub(super) const EMPTY: Raw = Raw { $( $field: None, )+ wtime: None };

            /// # Safety
            /// `find` gives the address of the exported function of each name, and that
            /// function has the C signature the MPI-4.1 standard (and every family's
            /// mpi.h) declares for the name; the caller must only call them while the
            /// code behind the addresses stays loaded.
            pub(super) unsafe fn resolve(find: &dyn Fn(&str) -> Option<*const c_void>) -> Raw {
                Raw { $( $field: find($sym).map(|p| {
                    // SAFETY: per this function's contract (the prototype is the standard's);
                    // a function pointer and a data pointer have one size on the
                    // platforms `mod.rs` builds for.
                    unsafe { std::mem::transmute::<*const c_void, unsafe extern "C" fn($($arg),*) -> c_int>(p) }
                }), )+
                    wtime: find("MPI_Wtime").map(|p| {
                        // SAFETY: per this function's contract (`double MPI_Wtime(void)`).
                        unsafe { std::mem::transmute::<*const c_void, Wtime>(p) }
                    }),
                }
            }

            /// The entry points the catalog reports as supported or not: `api` lines
            /// (the 51 MPI-4.1 MPI_T functions and the MPI calls the target layer needs
            /// before MPI_Init). `aux` lines (MPI_Info, communicator queries, the
            /// reference's hooks) are resolved but not listed.
            pub(super) fn names(&self) -> Vec<(&'static str, bool)> {
                let mut v = Vec::new();
                $( if stringify!($kind) == "api" { v.push(($sym, self.$field.is_some())); } )+
                v
            }
        }
    };
}

symbols! {
    api get_version = "MPI_Get_version": (*mut c_int, *mut c_int);
    api get_library_version = "MPI_Get_library_version": (*mut c_char, *mut c_int);
    api abi_get_version = "MPI_Abi_get_version": (*mut c_int, *mut c_int);
    api mpi_init = "MPI_Init": (*mut c_int, *mut c_void);
    api mpi_finalize = "MPI_Finalize": ();
    api init_thread = "MPI_T_init_thread": (c_int, *mut c_int);
    api finalize = "MPI_T_finalize": ();
    api enum_get_info = "MPI_T_enum_get_info": (RawHandle, *mut c_int, *mut c_char, *mut c_int);
    api enum_get_item = "MPI_T_enum_get_item": (RawHandle, c_int, *mut c_int, *mut c_char, *mut c_int);
    api cvar_get_num = "MPI_T_cvar_get_num": (*mut c_int);
    api cvar_get_info = "MPI_T_cvar_get_info": (c_int, *mut c_char, *mut c_int, *mut c_int, *mut RawObj, *mut RawHandle, *mut c_char, *mut c_int, *mut c_int, *mut c_int);
    api cvar_get_index = "MPI_T_cvar_get_index": (*const c_char, *mut c_int);
    api cvar_handle_alloc = "MPI_T_cvar_handle_alloc": (c_int, *mut c_void, *mut RawHandle, *mut c_int);
    api cvar_handle_free = "MPI_T_cvar_handle_free": (*mut RawHandle);
    api cvar_read = "MPI_T_cvar_read": (RawHandle, *mut c_void);
    api cvar_write = "MPI_T_cvar_write": (RawHandle, *const c_void);
    api pvar_get_num = "MPI_T_pvar_get_num": (*mut c_int);
    api pvar_get_info = "MPI_T_pvar_get_info": (c_int, *mut c_char, *mut c_int, *mut c_int, *mut c_int, *mut RawObj, *mut RawHandle, *mut c_char, *mut c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int);
    api pvar_get_index = "MPI_T_pvar_get_index": (*const c_char, c_int, *mut c_int);
    api pvar_session_create = "MPI_T_pvar_session_create": (*mut RawHandle);
    api pvar_session_free = "MPI_T_pvar_session_free": (*mut RawHandle);
    api pvar_handle_alloc = "MPI_T_pvar_handle_alloc": (RawHandle, c_int, *mut c_void, *mut RawHandle, *mut c_int);
    api pvar_handle_free = "MPI_T_pvar_handle_free": (RawHandle, *mut RawHandle);
    api pvar_start = "MPI_T_pvar_start": (RawHandle, RawHandle);
    api pvar_stop = "MPI_T_pvar_stop": (RawHandle, RawHandle);
    api pvar_read = "MPI_T_pvar_read": (RawHandle, RawHandle, *mut c_void);
    api pvar_write = "MPI_T_pvar_write": (RawHandle, RawHandle, *const c_void);
    api pvar_reset = "MPI_T_pvar_reset": (RawHandle, RawHandle);
    api pvar_readreset = "MPI_T_pvar_readreset": (RawHandle, RawHandle, *mut c_void);
    api category_get_num = "MPI_T_category_get_num": (*mut c_int);
    api category_get_info = "MPI_T_category_get_info": (c_int, *mut c_char, *mut c_int, *mut c_char, *mut c_int, *mut c_int, *mut c_int, *mut c_int);
    api category_get_num_events = "MPI_T_category_get_num_events": (c_int, *mut c_int);
    api category_get_index = "MPI_T_category_get_index": (*const c_char, *mut c_int);
    api category_get_cvars = "MPI_T_category_get_cvars": (c_int, c_int, *mut c_int);
    api category_get_pvars = "MPI_T_category_get_pvars": (c_int, c_int, *mut c_int);
    api category_get_events = "MPI_T_category_get_events": (c_int, c_int, *mut c_int);
    api category_get_categories = "MPI_T_category_get_categories": (c_int, c_int, *mut c_int);
    api category_changed = "MPI_T_category_changed": (*mut c_int);
    api source_get_num = "MPI_T_source_get_num": (*mut c_int);
    api source_get_info = "MPI_T_source_get_info": (c_int, *mut c_char, *mut c_int, *mut c_char, *mut c_int, *mut c_int, *mut i64, *mut i64, *mut RawObj);
    api source_get_timestamp = "MPI_T_source_get_timestamp": (c_int, *mut i64);
    api event_get_num = "MPI_T_event_get_num": (*mut c_int);
    api event_get_info = "MPI_T_event_get_info": (c_int, *mut c_char, *mut c_int, *mut c_int, *mut c_void, *mut isize, *mut c_int, *mut RawHandle, *mut RawObj, *mut c_char, *mut c_int, *mut c_int);
    api event_get_index = "MPI_T_event_get_index": (*const c_char, *mut c_int);
    api event_handle_alloc = "MPI_T_event_handle_alloc": (c_int, *mut c_void, RawObj, *mut RawHandle);
    api event_handle_set_info = "MPI_T_event_handle_set_info": (RawHandle, RawObj);
    api event_handle_get_info = "MPI_T_event_handle_get_info": (RawHandle, *mut RawObj);
    api event_register_callback = "MPI_T_event_register_callback": (RawHandle, c_int, RawObj, *mut c_void, Option<EventCb>);
    api event_callback_set_info = "MPI_T_event_callback_set_info": (RawHandle, c_int, RawObj);
    api event_callback_get_info = "MPI_T_event_callback_get_info": (RawHandle, c_int, *mut RawObj);
    api event_handle_free = "MPI_T_event_handle_free": (RawHandle, *mut c_void, Option<FreeCb>);
    api event_set_dropped_handler = "MPI_T_event_set_dropped_handler": (RawHandle, Option<DroppedCb>);
    api event_read = "MPI_T_event_read": (RawHandle, c_int, *mut c_void);
    api event_copy = "MPI_T_event_copy": (RawHandle, *mut c_void);
    api event_get_timestamp = "MPI_T_event_get_timestamp": (RawHandle, *mut i64);
    api event_get_source = "MPI_T_event_get_source": (RawHandle, *mut c_int);
    aux initialized = "MPI_Initialized": (*mut c_int);
    aux finalized = "MPI_Finalized": (*mut c_int);
    aux comm_rank = "MPI_Comm_rank": (RawObj, *mut c_int);
    aux comm_size = "MPI_Comm_size": (RawObj, *mut c_int);
    aux info_create = "MPI_Info_create": (*mut RawObj);
    aux info_set = "MPI_Info_set": (RawObj, *const c_char, *const c_char);
    aux info_get_nkeys = "MPI_Info_get_nkeys": (RawObj, *mut c_int);
    aux info_get_nthkey = "MPI_Info_get_nthkey": (RawObj, c_int, *mut c_char);
    aux info_get_string = "MPI_Info_get_string": (RawObj, *const c_char, *mut c_int, *mut c_char, *mut c_int);
    aux info_free = "MPI_Info_free": (*mut RawObj);
    aux mpi_send = "MPI_Send": (*const c_void, c_int, RawObj, c_int, c_int, RawObj);
    aux mpi_recv = "MPI_Recv": (*mut c_void, c_int, RawObj, c_int, c_int, RawObj, *mut c_void);
    aux mpi_isend = "MPI_Isend": (*const c_void, c_int, RawObj, c_int, c_int, RawObj, *mut RawObj);
    aux mpi_irecv = "MPI_Irecv": (*mut c_void, c_int, RawObj, c_int, c_int, RawObj, *mut RawObj);
    aux mpi_wait = "MPI_Wait": (*mut RawObj, *mut c_void);
    aux mpi_barrier = "MPI_Barrier": (RawObj);
    aux mpi_bcast = "MPI_Bcast": (*mut c_void, c_int, RawObj, c_int, RawObj);
    aux comm_dup = "MPI_Comm_dup": (RawObj, *mut RawObj);
    aux comm_free = "MPI_Comm_free": (*mut RawObj);
    aux mpi_init_thread = "MPI_Init_thread": (*mut c_int, *mut c_void, c_int, *mut c_int);
    aux query_thread = "MPI_Query_thread": (*mut c_int);
    aux session_init = "MPI_Session_init": (RawObj, RawObj, *mut RawObj);
    aux session_finalize = "MPI_Session_finalize": (*mut RawObj);
    aux reference_simulate = "MPIT_Reference_simulate": (c_int);
    aux reference_raise_event = "MPIT_Reference_raise_event": (c_int, c_int);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The listed entry points are the 51 MPI-4.1 MPI_T functions (MPI-4.1 §15.3: 31 from
    /// MPI-3.1, 20 added by MPI-4.0) plus the five MPI calls usable before MPI_Init.
    #[test]
    fn the_51_mpi_t_functions_are_listed() {
        let names = Raw::EMPTY.names();
        let t: Vec<_> = names
            .iter()
            .filter(|(n, _)| n.starts_with("MPI_T_"))
            .collect();
        assert_eq!(t.len(), 51);
        assert_eq!(names.len(), 56);
        let mut sorted: Vec<_> = t.iter().map(|(n, _)| *n).collect();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 51, "no duplicates");
        assert!(names.iter().all(|(_, ok)| !ok));
    }
}
