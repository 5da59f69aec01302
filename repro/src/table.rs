//! The C types of the case language's OUT and parameter names: what a reproducer
//! declares for each (`MPI_T_enum`, `MPI_Info`, `int`, ...) and the null handle a
//! parameter defaults to. Per name, not per function: the argument list of each call is
//! the function table's `c:` column (`Func::c_args`, spec/src/cases/funcs.rs), the one
//! place a function is described. Where a name's type depends on the entity (a cvar's
//! or a pvar's `handle`), the C name says which.

use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::Neutral;

/// Whether the OUT `value` of `f` is a variable's value read through its handle (a
/// buffer sized by the handle's count and datatype), not an `int` (an enumeration
/// item's value, MPI-4.1 §15.3.5).
pub fn value_read_through_handle(f: Func) -> bool {
    f.param("handle").is_some()
}

/// The C type of an OUT value of `f` (`None`: a buffer the emitter lays out itself).
pub fn out_type(f: Func, out: &str) -> Option<&'static str> {
    Some(match out {
        "value" if !value_read_through_handle(f) => "int",
        "datatype" => "MPI_Datatype",
        "enumtype" => "MPI_T_enum",
        "handle" if c_name_has(f, "cvar") => "MPI_T_cvar_handle",
        "handle" => "MPI_T_pvar_handle",
        "session" => "MPI_T_pvar_session",
        "registration" => "MPI_T_event_registration",
        "info" => "MPI_Info",
        "mpi_session" => "MPI_Session",
        "newcomm" => "MPI_Comm",
        "ordering" => "MPI_T_source_order",
        "ticks_per_second" | "max_ticks" | "timestamp" => "MPI_Count",
        "time" => "double",
        "name" | "desc" | "value" | "indices" | "datatypes" | "displacements" | "bytes"
        | "overrun" | "strlen" => return None,
        _ => "int",
    })
}

/// The C type of a handle parameter of `f` (for a NULL of the right type).
pub fn param_type(f: Func, p: &str) -> &'static str {
    match p {
        "handle" if c_name_has(f, "cvar") => "MPI_T_cvar_handle",
        "handle" => "MPI_T_pvar_handle",
        "session" => "MPI_T_pvar_session",
        "enumtype" => "MPI_T_enum",
        "registration" => "MPI_T_event_registration",
        "info" => "MPI_Info",
        "mpi_session" => "MPI_Session",
        "newcomm" => "MPI_Comm",
        "comm" => "MPI_Comm",
        "cb_safety" => "MPI_T_cb_safety",
        _ => "int",
    }
}

/// The NULL handle a free leaves in the argument it frees (R-CVAR-7, R-SESS-1, R-PH-1;
/// `MPI_Info_free`), by the name the standard gives it: the NULL constant among the
/// values a left-out parameter takes (`Func::neutral`).
pub fn null_of(f: Func, p: &str) -> Option<&'static str> {
    match f.neutral(p) {
        Neutral::Constant(c) if c.ends_with("_NULL") => Some(c),
        _ => None,
    }
}

fn c_name_has(f: Func, word: &str) -> bool {
    f.c_name().contains(&format!("_{word}_"))
}
