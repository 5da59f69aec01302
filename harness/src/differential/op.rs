//! One MPI_T call of a generated sequence ([`Call`]: a call of the function table),
//! with its arguments in a form both engines (the reference model and a loaded
//! library) can carry out: indices in the mirrored catalog's numbering, handles by the
//! number of the call that made them, string buffers by size.

use mpit_vocab::spec::CbSafety;
use serde::{Deserialize, Serialize};

/// The entity kinds with a `*_get_num` and an index space, here for the oracle's many
/// users (`op::Kind`).
pub use mpit_spec::kind::Kind;

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
///
/// Twelve bytes rather than two `Option`s' sixteen, so that an argument ([`A`]) is
/// sixteen: a generated sequence's calls are copied whole many times per sequence
/// (proptest's trees, the search's own copy, the closing calls), and those copies were
/// the largest cost the function table added (reports/bench/ANALYSIS.md, "The one function table"). The wire form is
/// the two options', as before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StrWire", into = "StrWire")]
pub struct Str {
    cap: u32,
    len: i32,
    /// Bit 0: the buffer is NULL; bit 1: the length pointer is.
    nulls: u8,
}

/// [`Str`] as it is written and read: two options.
#[derive(Serialize, Deserialize)]
struct StrWire {
    cap: Option<u32>,
    len: Option<i32>,
}

impl From<StrWire> for Str {
    fn from(w: StrWire) -> Str {
        Str::new(w.cap, w.len)
    }
}

impl From<Str> for StrWire {
    fn from(s: Str) -> StrWire {
        StrWire {
            cap: s.cap(),
            len: s.len_in(),
        }
    }
}

impl Str {
    const NULL_BUF: u8 = 1;
    const NULL_LEN: u8 = 2;

    /// Both pointers NULL. As a `desc` of cvar, pvar and category `get_info` it asks
    /// for the name alone: every OUT argument but the name is NULL (R-CVAR-3: "ignored"),
    /// the case language's `*_get_info_name_only`.
    pub const NONE: Str = Str::new(None, None);

    pub const fn new(cap: Option<u32>, len: Option<i32>) -> Str {
        let mut nulls = 0;
        let cap = match cap {
            Some(c) => c,
            None => {
                nulls |= Str::NULL_BUF;
                0
            }
        };
        let len = match len {
            Some(l) => l,
            None => {
                nulls |= Str::NULL_LEN;
                0
            }
        };
        Str { cap, len, nulls }
    }

    pub fn sized(n: u32) -> Str {
        Str::new(Some(n), Some(n as i32))
    }

    /// The buffer's size in bytes, `None` for a NULL buffer.
    pub fn cap(self) -> Option<u32> {
        (self.nulls & Str::NULL_BUF == 0).then_some(self.cap)
    }

    /// `*len` on input, `None` for a NULL length pointer.
    pub fn len_in(self) -> Option<i32> {
        (self.nulls & Str::NULL_LEN == 0).then_some(self.len)
    }
}

/// A name passed in (`*_get_index`), behind one thin pointer so that an argument
/// ([`A`]) stays sixteen bytes (see [`Str`]). Reads as a `str`; written as one.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
// The box is the point: a `String` or a `Box<str>` is two or three words, this one.
#[allow(clippy::box_collection)]
pub struct Text(Box<String>);

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Box::new(s.to_string()))
    }
}

/// As the string: evidence shows `name: "x"`.
impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0.as_str(), f)
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
