//! What single functions are held to beyond what every call of their kind is: the one
//! table of per-function facts both generated-call oracles read (the differential
//! comparator's levels, `differential::gen::level`; the `reference_ffi` fuzz oracle's
//! checks), each entry with the rule it comes from. The levels themselves are data
//! (specs/return-codes.yaml `levels:`); which functions meet a condition is here.

use mpit_spec::cases::funcs::Func;

/// A per-function fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Not called by the `reference_ffi` oracle (the entry says why).
    Never,
    /// Must not succeed with `MPI_T_PVAR_ALL_HANDLES` as its `handle`.
    RefusesAllHandles,
    /// A write outside the buffer or array it was given breaks this entry's rule rather
    /// than the table's `rule:` column (which says what a wrong answer breaks).
    BoundsRule,
    /// An index out of range has the code the function's own text names
    /// (specs/return-codes.yaml `levels: bad_index_explicit`); elsewhere only the table
    /// lists it (`bad_index_table_only`).
    BadIndexExplicit,
    /// Every OUT argument NULL where no sentence says NULL is ignored
    /// (`levels: null_out_unstated`).
    NullOutUnstated,
    /// A freed handle argument has the code the function's text names, not undefined
    /// behaviour (`levels: undefined_argument` does not apply to it).
    HandleExplicit,
}

/// The table: function, fact, the rule it comes from.
const POLICY: &[(Func, Policy, &str)] = &[
    // Made inside a SIGUSR2 handler the harness raises on its own thread: the case
    // executor's workers make it, not a fuzzer that shares its process with libFuzzer.
    (Func::PvarReadInSignal, Policy::Never, "R-PVAR-ASYNC"),
    // "MPI_T_PVAR_ALL_HANDLES may not be passed to pvar_read, pvar_write or
    // pvar_readreset"; the reference refuses it there (start, stop, reset take it).
    (Func::PvarRead, Policy::RefusesAllHandles, "R-PREAD-1"),
    (Func::PvarReadreset, Policy::RefusesAllHandles, "R-PREAD-1"),
    (Func::PvarWrite, Policy::RefusesAllHandles, "R-PREAD-1"),
    // A read's data stays within count × datatype size (the table's rule for
    // readreset is its atomicity, R-PRR-1).
    (Func::PvarReadreset, Policy::BoundsRule, "R-PREAD-1"),
    // num_elements is INOUT: the datatypes and displacements arrays hold that many.
    (Func::EventGetInfo, Policy::BoundsRule, "R-EVT-ELEM"),
    // The instance's data, read or copied into the caller's buffer.
    (Func::EventRead, Policy::BoundsRule, "MPI-4.1 §15.3.8.6"),
    (Func::EventCopy, Policy::BoundsRule, "MPI-4.1 §15.3.8.6"),
    // "MPI_T_ERR_INVALID_INDEX" for an event index out of range, also when only the
    // info object is asked; a source's timestamp likewise.
    (Func::EventGetInfo, Policy::BadIndexExplicit, "R-EVT-IDX"),
    (
        Func::EventGetInfoObject,
        Policy::BadIndexExplicit,
        "R-EVT-IDX",
    ),
    (
        Func::SourceGetTimestamp,
        Policy::BadIndexExplicit,
        "R-SRC-TS",
    ),
    // "A NULL OUT parameter to *_get_info is ignored" covers cvars, pvars and
    // categories (R-CVAR-3), "Any NULL INOUT/OUT argument is ignored" event_get_info;
    // nothing is said of these: the same by analogy (should).
    (Func::SourceGetInfo, Policy::NullOutUnstated, "R-CVAR-3"),
    (Func::EnumGetInfo, Policy::NullOutUnstated, "R-CVAR-3"),
    (Func::EnumGetItem, Policy::NullOutUnstated, "R-CVAR-3"),
    // MPI-4.1 §15.3.8, unverified (not held verbatim): MPI_T_EVENT_HANDLE_FREE "returns
    // MPI_T_ERR_INVALID_HANDLE if event_registration does not match a valid allocated
    // event-registration handle at the time of the call": one freed before. A NULL is
    // no registration any call returned: R-GEN-3 (specs/return-codes.yaml
    // `undefined_argument`).
    (Func::EventHandleFree, Policy::HandleExplicit, "R-EVT-FREE"),
];

/// The rule of `f`'s entry for `p`, if it has one.
pub fn rule(f: Func, p: Policy) -> Option<&'static str> {
    POLICY
        .iter()
        .find(|(g, q, _)| *g == f && *q == p)
        .map(|(_, _, r)| *r)
}

/// Whether `f` has an entry for `p`.
pub fn has(f: Func, p: Policy) -> bool {
    rule(f, p).is_some()
}
