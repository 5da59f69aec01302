//! An op lowered to the executor's engine and back: [`OpLayout`], what a call asks of
//! the catalog behind its handles (`exec::calls::Layout`), answered from the handles
//! the sequence made and the mirror's catalog; the arguments as `exec::calls::Arg`;
//! the named OUT values (`Func::outs`) read back as the wrappers returned them.

use crate::differential::obs::{Out, StrObs};
use crate::differential::{HandleKind, Mirror, Ref, Slots};
use crate::exec::calls::{Arg, Layout, OutMap};
use crate::judge::value::Val;
use mpit_target::ffi::{BufOut, StrOut};

/// The named OUT values of one call.
pub type Vals = OutMap;

/// The catalog layout of the op being carried out, for `calls::invoke`: from the
/// handles the sequence made and the mirror's catalog. By the handle argument as the
/// op names it (`Ref`), not by the value passed: a freed handle's value may come back
/// for a later one, and a `Foreign` ref passes another table's value, where the op's
/// own slot is what sizes the read (R-CVAR-8).
pub struct OpLayout<'s> {
    pub slots: &'s Slots,
    pub m: &'s Mirror,
    /// The handle a read goes through.
    pub read: Option<(HandleKind, Ref)>,
    /// The registration a callback is set on.
    pub registration: Option<Ref>,
}

impl Layout for OpLayout<'_> {
    /// count × datatype size for a handle the sequence made; `None` (64 bytes) for
    /// ALL_HANDLES, NULL or a handle it did not make.
    fn read_bytes(&self, _handle: u64) -> Option<usize> {
        let (k, r) = self.read?;
        self.slots
            .layout(k, r, &self.m.catalog)
            .map(|(dt, n)| dt.size() * n)
    }

    /// The engine compares the raw bytes (`Out::Bytes`): nothing to decode.
    fn decode(&self, _handle: u64, _b: &BufOut) -> Option<Val> {
        None
    }

    fn element_sizes(&self, _registration: u64) -> Vec<usize> {
        let index = match self.registration {
            Some(Ref::Made(n)) => self
                .slots
                .table(HandleKind::Registration)
                .get(n as usize)
                .map_or(-1, |m| m.index),
            _ => -1,
        };
        usize::try_from(index)
            .ok()
            .and_then(|i| self.m.catalog.events.get(i))
            .map(|e| e.elements.iter().map(|x| x.datatype.size()).collect())
            .unwrap_or_default()
    }

    /// Only the `deliveries` operation asks, which no op lowers to.
    fn event_of(&self, _registration: u64) -> Option<i32> {
        None
    }
}

/// A string OUT pair as the comparator sees it.
fn str_out(o: &StrOut) -> Out {
    Out::Str(StrObs {
        buf: o.buf.clone(),
        len: o.len,
        stray: o.stray.clone(),
        stray_bytes: o.stray_bytes.clone(),
        inexact: false,
    })
}

/// A handle or index argument.
pub fn int_arg(v: impl Into<i64>) -> Arg {
    Arg::Int(v.into())
}

/// A handle value as `calls::Args::handle` reads it back.
pub fn handle_arg(h: usize) -> Arg {
    Arg::Int(h as u64 as i64)
}

/// An integer OUT value (0 when the call left it out: not one of this engine's calls).
pub fn int(v: &Vals, k: &str) -> i128 {
    v.get(k).and_then(Val::int).unwrap_or(0)
}

/// An `int` OUT value, as the wrapper returned it.
pub fn i32_of(v: &Vals, k: &str) -> i32 {
    int(v, k) as i32
}

/// A handle OUT value, as the wrapper returned it.
pub fn handle_of(v: &Vals, k: &str) -> usize {
    int(v, k) as u64 as usize
}

/// A string OUT pair, moved out of the call's values (no copy of the buffer).
pub fn str_of(v: &mut Vals, k: &str) -> Out {
    match v.remove(k) {
        Some(Val::Str(s)) => Out::Str(StrObs {
            buf: s.buf,
            len: s.len,
            stray: s.stray,
            stray_bytes: s.stray_bytes,
            inexact: false,
        }),
        _ => str_out(&StrOut::default()),
    }
}

/// A list OUT value (indices, datatypes, displacements), moved out of the call's
/// values: its integers, in order (no intermediate list).
pub fn list_of(v: &mut Vals, k: &str) -> impl Iterator<Item = i128> {
    let l = match v.remove(k) {
        Some(Val::List(l)) => l,
        _ => Vec::new(),
    };
    l.into_iter().filter_map(|x| x.int())
}

/// A read's buffer.
pub fn buf_of(mut v: Vals) -> BufOut {
    match v.remove("bytes") {
        Some(Val::Bytes(b)) => b,
        _ => BufOut::default(),
    }
}
