//! One MPI_T call of a generated sequence ([`Call`]: a call of the function table),
//! with its arguments in a form both engines (the reference model and a loaded
//! library) can carry out: indices in the mirrored catalog's numbering, handles by the
//! number of the call that made them, string buffers by size.

use mpit_reference::spec::CbSafety;
use serde::{Deserialize, Serialize};

/// The entity kinds with a `*_get_num` and an index space, here for the oracle's many
/// users (`op::Kind`).
pub use crate::kind::Kind;

/// A handle argument. Objects are named by the order the sequence made them in (per
/// handle kind), so the same sequence names the same objects in both engines, whatever
/// numbers each hands out. A freed object keeps its number: naming it passes the stale
/// handle value (robustness, R-GEN-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ref {
    /// The n-th object of this kind the sequence made.
    Made(u16),
    /// The kind's NULL handle.
    Null,
    /// `MPI_T_PVAR_ALL_HANDLES` (MPI-4.1 §15.3.7).
    All,
    /// The n-th cvar handle where a pvar handle or session goes, or the n-th pvar handle
    /// where a cvar handle goes (robustness).
    Foreign(u16),
}

/// A (buf, len) pair of the string convention (MPI-4.1 §15.3.3): a buffer of `cap`
/// bytes (`None`: NULL) and `*len` on input (`None`: NULL length pointer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Str {
    pub cap: Option<u32>,
    pub len: Option<i32>,
}

impl Str {
    /// Both pointers NULL. As a `desc` of cvar, pvar and category `get_info` it asks
    /// for the name alone: every OUT argument but the name is NULL (R-CVAR-3: "ignored"),
    /// the case language's `*_get_info_name_only`.
    pub const NONE: Str = Str {
        cap: None,
        len: None,
    };

    pub fn sized(n: u32) -> Str {
        Str {
            cap: Some(n),
            len: Some(n as i32),
        }
    }
}

/// What a `*_write` call writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Data {
    /// The bytes the last read of the same handle returned in this engine (zeros when
    /// none): a write that does not change the library's configuration.
    Readback,
    /// This number in every element of the variable's datatype.
    Int(i32),
}

/// `start`, `stop` or `reset` of pvar handles ([`Call::act`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    Start,
    Stop,
    Reset,
}

/// The `user_data` the recording callback of registration `n` at `safety` is given: the
/// delivery's tag says which registration's callback of which level ran (R-EVT-CB).
pub fn callback_tag(registration: Ref, safety: CbSafety) -> usize {
    // A registration the sequence did not make (robustness) gets a number of its own.
    let n = match registration {
        Ref::Made(n) => n,
        _ => u16::MAX - 1,
    };
    (usize::from(n) + 1) * 4 + safety as usize
}

/// Which sequences a run generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mode {
    /// Also invalid arguments the standard leaves undefined (stale, NULL and foreign
    /// handles, indices out of range, ALL_HANDLES to read/write): judged at robustness
    /// level (R-GEN-3; specs/return-codes.yaml `levels: undefined_argument`).
    pub robustness: bool,
    /// The sequence starts with MPI_T not initialized, in a process of its own, and may
    /// call anything before init and after the last finalize (R-INIT-1, R-FIN-1).
    pub lifecycle: bool,
}

mod call;

pub use call::{Args, Call, Sees, A};

#[cfg(test)]
pub(crate) mod tests;
