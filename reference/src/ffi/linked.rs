//! The C entry points by name, for a program that links this crate instead of loading
//! the cdylib: mpit-conform's `--lib builtin:reference` and its `run --model-check`
//! run the reference's C ABI inside their own executable, so they need no
//! `libmpit_reference.so` beside it. The names and functions are the cdylib's exports,
//! the `PMPI_` twins (R-GEN-8) included; `harness/tests/one_binary.rs` holds the two
//! lists equal.
//!
//! An executable does not export these symbols to the dynamic linker (no
//! `--export-dynamic`; the same test checks it), so a vendor library loaded into the
//! same process still binds its own `MPI_T_*` calls to itself.

use super::MPI_T_PVAR_ALL_HANDLES;
use super::{category, cvar, enums, event, hooks, init, mpi, pvar, world};

macro_rules! linked {
    (
        twins: $($module:ident::$name:ident),+;
        alone: $($hmodule:ident::$hname:ident),+;
    ) => {
        /// Every function name [`symbol`] resolves, in the cdylib's spelling.
        pub const FUNCTIONS: &[&str] = &[
            $(stringify!($name), concat!("P", stringify!($name)),)+
            $(stringify!($hname),)+
        ];

        /// The address of the exported function or object `name`, as `dlsym` on the
        /// cdylib gives it; `None` for a name the cdylib does not export. The caller
        /// calls a function only through the prototype the standard (or
        /// `reference/include/mpit_reference.h`) declares for its name.
        pub fn symbol(name: &str) -> Option<usize> {
            match name {
                $(stringify!($name) => Some($module::$name as *const () as usize),)+
                // The twin `export!` emits beside each (`PMPI_<name>`).
                $(concat!("P", stringify!($name)) => Some($module::$name::pmpi as *const () as usize),)+
                $(stringify!($hname) => Some($hmodule::$hname as *const () as usize),)+
                "MPI_T_PVAR_ALL_HANDLES" => Some(std::ptr::addr_of!(MPI_T_PVAR_ALL_HANDLES) as usize),
                _ => None,
            }
        }
    };
}

// The MPI and MPI_T functions, each with its PMPI_ twin; then the reference's hooks,
// which have none.
linked! {
    twins:
        category::MPI_T_category_changed,
        category::MPI_T_category_get_categories,
        category::MPI_T_category_get_cvars,
        category::MPI_T_category_get_events,
        category::MPI_T_category_get_index,
        category::MPI_T_category_get_info,
        category::MPI_T_category_get_num,
        category::MPI_T_category_get_num_events,
        category::MPI_T_category_get_pvars,
        cvar::MPI_T_cvar_get_index,
        cvar::MPI_T_cvar_get_info,
        cvar::MPI_T_cvar_get_num,
        cvar::MPI_T_cvar_handle_alloc,
        cvar::MPI_T_cvar_handle_free,
        cvar::MPI_T_cvar_read,
        cvar::MPI_T_cvar_write,
        enums::MPI_T_enum_get_info,
        enums::MPI_T_enum_get_item,
        event::MPI_T_event_callback_get_info,
        event::MPI_T_event_callback_set_info,
        event::MPI_T_event_copy,
        event::MPI_T_event_get_index,
        event::MPI_T_event_get_info,
        event::MPI_T_event_get_num,
        event::MPI_T_event_get_source,
        event::MPI_T_event_get_timestamp,
        event::MPI_T_event_handle_alloc,
        event::MPI_T_event_handle_free,
        event::MPI_T_event_handle_get_info,
        event::MPI_T_event_handle_set_info,
        event::MPI_T_event_read,
        event::MPI_T_event_register_callback,
        event::MPI_T_event_set_dropped_handler,
        event::MPI_T_source_get_info,
        event::MPI_T_source_get_num,
        event::MPI_T_source_get_timestamp,
        init::MPI_T_finalize,
        init::MPI_T_init_thread,
        mpi::MPI_Abi_get_version,
        mpi::MPI_Abort,
        mpi::MPI_Comm_rank,
        mpi::MPI_Comm_size,
        mpi::MPI_Finalize,
        mpi::MPI_Finalized,
        mpi::MPI_Get_library_version,
        mpi::MPI_Get_version,
        mpi::MPI_Info_create,
        mpi::MPI_Info_free,
        mpi::MPI_Info_get_nkeys,
        mpi::MPI_Info_get_nthkey,
        mpi::MPI_Info_get_string,
        mpi::MPI_Info_set,
        mpi::MPI_Init,
        mpi::MPI_Init_thread,
        mpi::MPI_Initialized,
        mpi::MPI_Type_get_name,
        mpi::MPI_Wtime,
        pvar::MPI_T_pvar_get_index,
        pvar::MPI_T_pvar_get_info,
        pvar::MPI_T_pvar_get_num,
        pvar::MPI_T_pvar_handle_alloc,
        pvar::MPI_T_pvar_handle_free,
        pvar::MPI_T_pvar_read,
        pvar::MPI_T_pvar_readreset,
        pvar::MPI_T_pvar_reset,
        pvar::MPI_T_pvar_session_create,
        pvar::MPI_T_pvar_session_free,
        pvar::MPI_T_pvar_start,
        pvar::MPI_T_pvar_stop,
        pvar::MPI_T_pvar_write,
        world::MPI_Comm_dup,
        world::MPI_Comm_free,
        world::MPI_Query_thread,
        world::MPI_Session_finalize,
        world::MPI_Session_init;
    alone:
        hooks::MPIT_Reference_fault_count,
        hooks::MPIT_Reference_fault_name,
        hooks::MPIT_Reference_raise_event,
        hooks::MPIT_Reference_simulate;
}
