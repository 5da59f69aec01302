//! What each parameter of a call is for, read off the function table
//! (`cases::roles`: the table's one classification of its parameter names, `Func::role`
//! and `Func::handle_kind`), each role mapped to a decoder here. The oracle matches no
//! parameter name of its own for a role, so a row added to the table is fuzzed without
//! code here unless it brings a role the map has no decoder for.

use crate::judge::policy::{self, Policy};
use mpit_spec::cases::funcs::{Func, Group, Param};
use mpit_spec::cases::roles::Role as TableRole;
use mpit_spec::kind::Kind;

/// Which handles a handle argument is drawn from (`input::H::Typed`), and which pool a
/// handle a call returns joins: the table's kind of the handle (`cases::roles`). A
/// handle parameter of no kind (`comm`) draws from any live handle.
pub use mpit_spec::cases::roles::HandleKind as Pool;

/// The pools of handles the run holds and frees (not the instances, which are only ever
/// stale), for `H::Live`.
pub const LIVE: [Pool; 6] = [
    Pool::Cvar,
    Pool::Session,
    Pool::Pvar,
    Pool::Registration,
    Pool::Info,
    Pool::Enumtype,
];

/// The range an index-like `int` is drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// The kind's index space, `0..num` (R-CVAR-2, R-PVAR-1, R-CAT-1, R-SRC-1, R-EVT-1).
    Of(Kind),
    /// A small fixed range (enumeration items, event elements).
    Upto(usize),
}

/// The profile's table an `int` constant comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    ThreadLevel,
    CbSafety,
    PvarClass,
}

/// What a parameter is for, and so which decoder of `input` reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A handle of this pool (`None`: of any).
    Handle(Option<Pool>),
    Index(Range),
    Const(Table),
    /// A length or capacity: `base + k % modulo` for a byte `k` (never negative: an
    /// array the caller says is longer than it is would be the caller's bug, R-GEN-3).
    Size {
        base: i64,
        modulo: i64,
    },
    /// The reference's `simulate` steps: a signed byte, `% 16`.
    Steps,
    /// `user_data` of a callback: the registration's event index (not decoded).
    Tag,
    Str,
    /// A name of the kind's catalog (`*_get_index`).
    Name(Kind),
    Text,
    Obj,
    Data,
    Flag,
}

/// The kind a function is about (`Func::kind`).
pub fn kind_of(f: Func) -> Option<Kind> {
    f.kind()
}

/// The pool a handle named `name` belongs to, in a parameter or an OUT value of `f`
/// (the table's `Func::handle_kind`); `None` when the name is not a handle's.
pub fn pool_of(f: Func, name: &str) -> Option<Pool> {
    f.handle_kind(name)
}

/// The decoder of parameter `name` of `f`, by its role in the table
/// (`Func::role`).
pub fn role(f: Func, name: &str) -> Role {
    match f.role(name).unwrap_or(TableRole::Int) {
        TableRole::Handle(k) => Role::Handle(k),
        TableRole::Str => Role::Str,
        TableRole::Name(k) => Role::Name(k),
        TableRole::Text => Role::Text,
        TableRole::Obj => Role::Obj,
        TableRole::Data => Role::Data,
        TableRole::Flag => Role::Flag,
        TableRole::Index(kind) => Role::Index(kind.map_or(Range::Upto(8), Range::Of)),
        TableRole::ThreadLevel => Role::Const(Table::ThreadLevel),
        TableRole::CbSafety => Role::Const(Table::CbSafety),
        TableRole::PvarClass => Role::Const(Table::PvarClass),
        TableRole::Element => Role::Index(Range::Upto(4)),
        // Category member arrays: up to 255 entries.
        TableRole::Len => Role::Size {
            base: 0,
            modulo: 256,
        },
        // event_get_info's datatypes and displacements arrays.
        TableRole::Capacity => Role::Size { base: 0, modulo: 8 },
        // An event instance's buffer: at least 64 bytes, room for any element of the
        // default catalog (the buffer's size is not an argument of the C call: a
        // smaller one would be the caller's bug, R-GEN-3).
        TableRole::Bytes => Role::Size {
            base: 64,
            modulo: 64,
        },
        TableRole::Steps => Role::Steps,
        TableRole::Tag => Role::Tag,
        TableRole::Item | TableRole::Int => Role::Index(Range::Upto(8)),
    }
}

/// Whether a call reads a variable through a handle into a buffer the caller sizes
/// (its OUT `bytes`, no `bytes` parameter): the input then carries a slack byte, the
/// buffer's room beyond count × datatype size (R-CVAR-8).
pub fn reads_through_handle(f: Func) -> bool {
    f.outs().contains(&"bytes") && f.param("bytes").is_none()
}

/// Whether a call frees the handle its parameter `name` holds: a `*_free` whose
/// handle parameter comes back as an OUT of the same name.
pub fn freed_param(f: Func) -> Option<&'static str> {
    if !f.c_name().ends_with("_free") {
        return None;
    }
    f.params()
        .iter()
        .find(|(n, p)| *p == Param::Handle && f.outs().contains(n))
        .map(|(n, _)| *n)
}

/// Whether the OUT `name` is the caller's handle variable passed by address (the C
/// template's `{&name}`, e.g. `MPI_T_cvar_handle_free(&handle)`), which a successful
/// free sets to the kind's NULL handle (R-CVAR-7, R-SESS-1, R-PH-1); a registration is
/// passed by value (MPI-4.1 §15.3.8) and stays as it was.
pub fn nulled_by_free(f: Func, name: &str) -> bool {
    freed_param(f) == Some(name)
        && f.c_args()
            .is_some_and(|c| c.contains(&format!("{{&{name}}}")))
}

/// The functions this oracle calls: the chapter's MPI_T functions (and their variant
/// spellings) but those the policy table rules out, the MPI functions on info objects
/// (`MPI_Info_*`: events and sources hand them out), and the reference's test hooks
/// (`MPIT_Reference_*`). Not `MPI_Init` and the like: MPI cannot be initialized again
/// after `MPI_Finalize`, so one input would change what every later one sees.
pub fn callable() -> Vec<Func> {
    Func::ALL
        .iter()
        .copied()
        .filter(|f| match f.group() {
            Group::MpiT => !policy::has(*f, Policy::Never),
            Group::Mpi => f.c_name().starts_with("MPI_Info_"),
            Group::Harness => f.c_name().starts_with("MPIT_Reference_"),
        })
        .collect()
}

/// What a successful call frees.
#[derive(Debug, Clone, Copy)]
pub struct Free {
    /// The handle parameter (an OUT of the same name).
    pub param: &'static str,
    pub pool: Pool,
    /// The NULL handle the caller's variable holds afterwards ([`nulled_by_free`]): its
    /// constant's name and value (`Fixture::open` looks the value up).
    pub null: Option<(&'static str, u64)>,
}

/// Everything the oracle reads off the table for one function, worked out once when
/// the fixture opens: the derivations above compare names, and made per call they cost
/// the fuzzer a large part of its time.
#[derive(Debug, Clone)]
pub struct Plan {
    pub f: Func,
    pub kind: Option<Kind>,
    /// Every parameter with its role, in prototype order (an input's values and the
    /// resolved arguments stand in this order).
    pub params: Vec<(&'static str, Role)>,
    /// Whether an input carries a slack byte for the read buffer ([`reads_through_handle`]).
    pub slack: bool,
    /// The positions of the parameters named `index`, `handle`, `session`,
    /// `registration`.
    pub index: Option<usize>,
    pub handle: Option<usize>,
    pub session: Option<usize>,
    pub registration: Option<usize>,
    /// The handle a successful call makes (its first OUT, `Func::allocates`) and its pool.
    pub made: Option<(&'static str, Pool)>,
    /// The other handle OUTs that join a pool (not parameters of the same name).
    pub joins: Vec<(&'static str, Pool)>,
    pub frees: Option<Free>,
    /// The kind whose catalog strings the (buf, len) pairs return (`Func::strings_of`).
    pub strings: Option<Kind>,
    /// The rule that refuses `MPI_T_PVAR_ALL_HANDLES` here, if any (`policy`).
    pub all_handles: Option<&'static str>,
    /// The rule a write outside a buffer or array breaks.
    pub bounds: &'static str,
    /// Whether the call answers with MPI's codes (MPI-4.1 §9.4) rather than MPI_T's.
    pub mpi_codes: bool,
    /// Whether it returns a thread level as `provided` (R-INIT-1).
    pub provided: bool,
}

impl Plan {
    pub fn new(f: Func) -> Plan {
        let params: Vec<(&'static str, Role)> =
            f.params().iter().map(|(n, _)| (*n, role(f, n))).collect();
        let pos = |name: &str| params.iter().position(|(n, _)| *n == name);
        let made = f
            .allocates()
            .and_then(|_| f.outs().first())
            .and_then(|o| Some((*o, pool_of(f, o)?)));
        let joins = f
            .outs()
            .iter()
            .filter(|o| made.map(|m| m.0) != Some(**o) && f.param(o).is_none())
            .filter_map(|o| Some((*o, pool_of(f, o)?)))
            .collect();
        let frees = freed_param(f).and_then(|n| {
            Some(Free {
                param: n,
                pool: pool_of(f, n)?,
                null: None,
            })
        });
        let strings = f.strings_kind();
        Plan {
            f,
            kind: kind_of(f),
            slack: reads_through_handle(f),
            index: pos("index"),
            handle: pos("handle"),
            session: pos("session"),
            registration: pos("registration"),
            params,
            made,
            joins,
            frees,
            strings,
            all_handles: policy::rule(f, Policy::RefusesAllHandles),
            bounds: policy::rule(f, Policy::BoundsRule)
                .or(f.rule())
                .unwrap_or("MPI-4.1 §15.3"),
            mpi_codes: f.group() == Group::Mpi,
            provided: f.outs().contains(&"provided"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every parameter of every callable function has a role, and the table's handle
    /// names all have pools: a new parameter name shows up here first.
    #[test]
    fn every_parameter_of_the_callable_functions_has_a_role() {
        let fs = callable();
        assert!(fs.len() > 50, "{}", fs.len());
        for f in &fs {
            for (n, _) in f.params() {
                if let Role::Handle(pool) = role(*f, n) {
                    assert!(pool.is_some(), "{}: {n}", f.yaml());
                }
            }
        }
        let frees: Vec<&str> = fs
            .iter()
            .filter(|f| freed_param(**f).is_some())
            .map(|f| f.yaml())
            .collect();
        assert_eq!(frees.len(), 5, "{frees:?}");
        let nulled = fs
            .iter()
            .filter(|f| freed_param(**f).is_some_and(|n| nulled_by_free(**f, n)))
            .count();
        assert_eq!(nulled, 4, "all but the registration, passed by value");
    }
}
