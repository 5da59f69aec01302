//! What the oracle holds single functions to beyond the checks every call gets
//! (`ops::checks`): the one place in `reference_ffi` that names MPI_T functions, each
//! entry with the rule it comes from.

use crate::cases::funcs::Func;

/// A per-function fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Not called by this oracle (the entry says why).
    Never,
    /// Must not succeed with `MPI_T_PVAR_ALL_HANDLES` as its `handle`.
    RefusesAllHandles,
    /// A write outside the buffer or array it was given breaks this entry's rule rather
    /// than the table's `rule:` column (which says what a wrong answer breaks).
    BoundsRule,
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
