//! Judging: an observation against what a case expects. Pure functions over values the
//! executor hands in; nothing here calls the library.
//!
//! One concept per module: `strings` the string convention of MPI-4.1 §15.3.3 (judged
//! here once, for every (buf, len) pair), `rc_set` an expectation's set of return
//! codes, `predicates` the predicates on OUT values, `builtins` the checks over more
//! than one call's data; `return_codes` the run-wide return-code table, `value` the
//! values observed, `inventory` the catalog read from the library; `policy` the facts
//! of single functions the generated-call oracles read (ALL_HANDLES refused, an
//! explicit bad-index code, ...).

mod builtins;
pub mod inventory;
pub mod policy;
mod predicates;
mod rc_set;
pub mod return_codes;
pub mod strings;
pub mod value;

pub use builtins::builtin;
pub use predicates::{pred, same_outs};
pub use rc_set::{rc_matches, rc_text};
pub use strings::{string, StrBroke};

/// The byte the harness fills string buffers with before a call (not NUL, so a missing
/// terminator shows), mirrored from `target::ffi`.
pub use mpit_target::ffi::FILL;
