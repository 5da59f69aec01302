//! How each function of the case language (`cases::funcs::Func`, the executor's call
//! table) is written in C: the argument list of its prototype, in MPI-4.1 §15.3's order,
//! over the table's own parameter and OUT names, and the C type of each OUT.
//!
//! In a template, `{p}` is the parameter `p` of `Func::params()` (a string parameter
//! expands to its buffer and length pointer), `{&o}` the address of the OUT `o` of
//! `Func::outs()`; anything else is C as written. A test checks that every template names
//! exactly its function's parameters and OUTs, so the two tables cannot drift.

use crate::cases::funcs::Func;

/// The C argument list of `f`, or `None` when a reproducer cannot make the call (harness
/// operations, the reference's hooks, event instances that only exist in a callback).
pub fn c_args(f: Func) -> Option<&'static str> {
    use Func::*;
    Some(match f {
        InitThread => "{required}, {&provided}",
        Finalize => "",
        EnumGetInfo => "{enumtype}, {&num}, {name}",
        EnumGetItem => "{enumtype}, {item}, {&value}, {name}",
        CvarGetNum | PvarGetNum | CategoryGetNum | SourceGetNum | EventGetNum => "{&num}",
        CvarGetInfo => {
            "{index}, {name}, {&verbosity}, {&datatype}, {&enumtype}, {desc}, {&bind}, {&scope}"
        }
        CvarGetInfoNameOnly => "{index}, {name}, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
        CvarGetIndex | CategoryGetIndex | EventGetIndex => "{name}, {&index}",
        CvarHandleAlloc => "{index}, {obj}, {&handle}, {&count}",
        CvarHandleFree => "{&handle}",
        CvarRead => "{handle}, {&value}",
        CvarWrite => "{handle}, {data}",
        PvarGetInfo => "{index}, {name}, {&verbosity}, {&var_class}, {&datatype}, {&enumtype}, {desc}, {&bind}, {&readonly}, {&continuous}, {&atomic}",
        PvarGetInfoNameOnly => {
            "{index}, {name}, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"
        }
        PvarGetIndex => "{name}, {var_class}, {&index}",
        PvarSessionCreate => "{&session}",
        PvarSessionFree => "{&session}",
        PvarHandleAlloc => "{session}, {index}, {obj}, {&handle}, {&count}",
        PvarHandleFree => "{session}, {&handle}",
        PvarStart | PvarStop | PvarReset => "{session}, {handle}",
        PvarRead | PvarReadreset | PvarReadInSignal => "{session}, {handle}, {&value}",
        PvarWrite => "{session}, {handle}, {data}",
        CategoryGetInfo => {
            "{index}, {name}, {desc}, {&num_cvars}, {&num_pvars}, {&num_categories}"
        }
        CategoryGetInfoNameOnly => "{index}, {name}, NULL, NULL, NULL, NULL, NULL",
        CategoryGetNumEvents => "{index}, {&num}",
        CategoryGetCvars | CategoryGetPvars | CategoryGetEvents | CategoryGetCategories => {
            "{index}, {len}, {&indices}"
        }
        CategoryChanged => "{&update_number}",
        SourceGetInfo => {
            "{index}, {name}, {desc}, {&ordering}, {&ticks_per_second}, {&max_ticks}, NULL"
        }
        SourceGetInfoObject => "{index}, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {&info}",
        SourceGetTimestamp => "{index}, {&timestamp}",
        EventGetInfo => "{index}, {name}, {&verbosity}, {&datatypes}, {&displacements}, {&num_elements}, {&enumtype}, NULL, {desc}, {&bind}",
        EventGetInfoObject => {
            "{index}, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {&info}, NULL, NULL, NULL"
        }
        EventHandleAlloc => "{index}, {obj}, {info}, {&registration}",
        EventHandleSetInfo => "{registration}, {info}",
        EventHandleGetInfo => "{registration}, {&info}",
        EventRegisterCallback => "{registration}, {cb_safety}, {info}, (void *)(intptr_t){tag}, {callback}",
        EventCallbackSetInfo => "{registration}, {cb_safety}, {info}",
        EventCallbackGetInfo => "{registration}, {cb_safety}, {&info}",
        // By value (MPI-4.1 §15.3.8): the caller's variable is not nulled.
        EventHandleFree => "{registration}, NULL, {free_callback}",
        EventSetDroppedHandler => "{registration}, {handler}",
        GetVersion => "{&version}, {&subversion}",
        MpiInit | MpiFinalize => "",
        Initialized | Finalized => "{&flag}",
        MpiInitThread => "NULL, NULL, {required}, {&provided}",
        QueryThread => "{&provided}",
        SessionInit => "MPI_INFO_NULL, MPI_ERRORS_RETURN, {&mpi_session}",
        SessionFinalize => "{&mpi_session}",
        CommDup => "{comm}, {&newcomm}",
        CommFree => "{&comm}",
        CommRank => "{comm}, {&rank}",
        CommSize => "{comm}, {&size}",
        InfoCreate | InfoFree => "{&info}",
        InfoSet => "{info}, {key}, {value}",
        InfoGetNkeys => "{info}, {&nkeys}",
        // activity.c's `wtime(&time)`: MPI_Wtime returns a double, not a code.
        Wtime => "{&time}",
        // The reference's test hooks (mpit_reference.h): a program using them builds
        // against the reference only.
        Simulate => "{steps}",
        // activity.c's `activity`: MPI work, or the reference's simulate hook.
        Activity => "{messages}, {unexpected}, {hold}, {drain}, {collectives}, {comms}, {sessions}",
        RaiseEvent => "{index}, {cb_safety}",
        // Instances exist only inside a callback; harness operations are not MPI calls.
        EventRead | EventCopy | EventGetTimestamp | EventGetSource | CatalogSnapshot
        | PmpiTwins | Deliveries | InitCycles | InitThreads => return None,
    })
}

/// The C type of an OUT value of `f` (`None`: a buffer the emitter lays out itself).
pub fn out_type(f: Func, out: &str) -> Option<&'static str> {
    Some(match out {
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

/// The null handle a parameter defaults to (the executor's `default_int`).
pub fn null_of(f: Func, p: &str) -> Option<&'static str> {
    Some(match p {
        "handle" if c_name_has(f, "cvar") => "MPI_T_CVAR_HANDLE_NULL",
        "handle" => "MPI_T_PVAR_HANDLE_NULL",
        "session" => "MPI_T_PVAR_SESSION_NULL",
        "enumtype" => "MPI_T_ENUM_NULL",
        "registration" => "MPI_T_EVENT_REGISTRATION_NULL",
        "info" => "MPI_INFO_NULL",
        "comm" => "MPI_COMM_WORLD",
        "cb_safety" => "MPI_T_CB_REQUIRE_NONE",
        "required" => "MPI_THREAD_SINGLE",
        _ => return None,
    })
}

/// Parameters the emitter turns into buffer sizes rather than arguments:
/// `event_get_info`'s `capacity` sizes the datatype and displacement arrays and is the
/// value of the INOUT `num_elements`.
pub const SIZED_BY_EMITTER: &[(&str, &str)] = &[("event_get_info", "capacity")];

fn c_name_has(f: Func, word: &str) -> bool {
    f.c_name().contains(&format!("_{word}_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every template names each parameter of its function once and only OUTs the
    /// function has: the C reproducer makes the call the executor makes.
    #[test]
    fn templates_follow_the_call_table() {
        for f in Func::ALL {
            let Some(t) = c_args(*f) else { continue };
            let mut named = Vec::new();
            let mut rest = t;
            while let Some(i) = rest.find('{') {
                let j = rest[i..].find('}').expect("closed") + i;
                named.push(&rest[i + 1..j]);
                rest = &rest[j + 1..];
            }
            for (p, _) in f.params() {
                if SIZED_BY_EMITTER.contains(&(f.yaml(), *p)) {
                    continue;
                }
                let amp = format!("&{p}");
                assert_eq!(
                    named.iter().filter(|n| **n == *p || **n == amp).count(),
                    1,
                    "{}: parameter {p} in {t:?}",
                    f.yaml()
                );
            }
            for n in &named {
                if let Some(o) = n.strip_prefix('&') {
                    assert!(
                        f.outs().contains(&o) || f.param(o).is_some(),
                        "{}: {o} is neither an OUT nor a parameter",
                        f.yaml()
                    );
                } else {
                    assert!(f.param(n).is_some(), "{}: {n} is not a parameter", f.yaml());
                }
            }
        }
    }
}
