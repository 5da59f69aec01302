//! One call: resolved arguments in, the target's safe wrapper called, OUT values named
//! as `Func::outs` lists them. No judging here.
//!
//! This module holds the argument and OUT value types and the dispatch by the function
//! table's group: the chapter's MPI_T functions (`mpi_t`), the MPI functions the cases
//! need beside them (`mpi`), and the harness operations (`harness_ops`). `data` sizes,
//! decodes and encodes a variable's buffer by its datatype; `layout` is what a call
//! asks of the catalog behind its handles, answered by each engine that calls.

mod data;
mod harness_ops;
mod layout;
mod mpi;
mod mpi_t;

pub use data::{decode, encode, read_bytes};
pub use layout::{Layout, NoHandles, Recorded};

use crate::judge::value::{self, Val};
use mpit_spec::cases::funcs::{Func, Group};
use mpit_spec::cases::SubjectKind;
use mpit_target::ffi::{ObjArg, StrArg};
use mpit_target::Target;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;

/// An argument as passed.
#[derive(Debug, Clone)]
pub enum Arg {
    Int(i64),
    Str(StrArg),
    Text(String),
    Obj(Option<u64>),
    Data(Vec<u8>),
    Flag(bool),
    /// The OUT arguments passed as NULL (`for_all: null_outs`), under the key `null`.
    Nulls(Vec<&'static str>),
}

impl Arg {
    pub fn to_json(&self) -> Json {
        match self {
            Arg::Int(i) => json!(i),
            Arg::Str(s) => {
                json!({"buf": s.cap.map_or(json!("NULL"), |c| json!(c)), "len": s.len.map_or(json!("NULL"), |l| json!(l))})
            }
            Arg::Text(t) => json!(t),
            Arg::Obj(None) => json!("NULL"),
            Arg::Obj(Some(v)) => json!(format!("&{v:#x}")),
            Arg::Data(d) => json!(value::hex(d, 64)),
            Arg::Flag(b) => json!(b),
            Arg::Nulls(n) => json!(n),
        }
    }
}

/// What the executor knows about a handle it got from the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandleMeta {
    pub kind: SubjectKind,
    pub index: i32,
    pub count: i32,
}

/// The OUT values of one call by their names in `Func::outs` (static: the engine
/// allocates no key per call), or `None` when the symbol is not exported.
pub type Outs = Option<(i32, OutMap)>;

/// OUT values by name, in the order the call lists them: a handful per call, so a
/// list (one allocation, no tree) is the cheap map fuzz-props' engine needs per call.
#[derive(Debug, Clone, Default)]
pub struct OutMap(Vec<(&'static str, Val)>);

impl OutMap {
    pub fn get(&self, k: &str) -> Option<&Val> {
        self.0.iter().find(|(n, _)| *n == k).map(|(_, v)| v)
    }
    pub fn remove(&mut self, k: &str) -> Option<Val> {
        let i = self.0.iter().position(|(n, _)| *n == k)?;
        Some(self.0.remove(i).1)
    }
    /// Sets `k` (replacing a value of that name).
    pub fn insert(&mut self, k: &'static str, v: Val) {
        self.remove(k);
        self.0.push((k, v));
    }
}

impl IntoIterator for OutMap {
    type Item = (&'static str, Val);
    type IntoIter = std::vec::IntoIter<(&'static str, Val)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

fn int(v: impl Into<i128>) -> Val {
    Val::Int(v.into())
}

fn outs<const N: usize>(rc: i32, kv: [(&'static str, Val); N]) -> (i32, OutMap) {
    (rc, OutMap(kv.into_iter().collect()))
}

/// Arguments by parameter name: a case step's map, or the few pairs an engine passes
/// (fuzz-props' target engine: a list, no map built per call).
pub enum Args<'a> {
    Map(&'a BTreeMap<&'static str, Arg>),
    List(&'a [(&'static str, Arg)]),
}

impl Args<'_> {
    fn get(&self, k: &str) -> Option<&Arg> {
        match self {
            Args::Map(m) => m.get(k),
            Args::List(l) => l.iter().find(|(n, _)| *n == k).map(|(_, a)| a),
        }
    }

    fn int(&self, k: &str) -> i32 {
        match self.get(k) {
            Some(Arg::Int(i)) => *i as i32,
            Some(Arg::Flag(b)) => *b as i32,
            _ => 0,
        }
    }
    fn handle(&self, k: &str) -> usize {
        match self.get(k) {
            Some(Arg::Int(i)) => *i as u64 as usize,
            _ => 0,
        }
    }
    fn obj(&self, k: &str, width: usize) -> ObjArg {
        match self.get(k) {
            Some(Arg::Obj(Some(v))) => ObjArg::Local { value: *v, width },
            _ => ObjArg::Null,
        }
    }
    fn s(&self, k: &str) -> StrArg {
        match self.get(k) {
            Some(Arg::Str(s)) => *s,
            _ => StrArg::sized(4096),
        }
    }
    fn text(&self, k: &str) -> &str {
        match self.get(k) {
            Some(Arg::Text(t)) => t,
            _ => "",
        }
    }
    fn data(&self, k: &str) -> &[u8] {
        match self.get(k) {
            Some(Arg::Data(d)) => d,
            _ => &[],
        }
    }
    /// The OUT arguments to pass as NULL (`for_all: null_outs`).
    fn nulls(&self) -> &[&'static str] {
        match self.get("null") {
            Some(Arg::Nulls(n)) => n,
            _ => &[],
        }
    }
    fn flag(&self, k: &str) -> bool {
        match self.get(k) {
            Some(Arg::Flag(b)) => *b,
            Some(Arg::Int(i)) => *i != 0,
            _ => false,
        }
    }
}

/// Calls `f` on the target. The OUT values of arguments passed as NULL are left out:
/// nothing was returned for them (R-CVAR-3).
pub fn invoke(t: &Target, layout: &dyn Layout, f: Func, a: &Args) -> Outs {
    let (rc, mut outs) = call(t, layout, f, a)?;
    let nulls = a.nulls();
    for n in nulls {
        outs.remove(n);
    }
    // §15.3.8: "If num_elements is NULL, num_elements and both arrays are ignored".
    if nulls.contains(&"num_elements") {
        outs.remove("datatypes");
        outs.remove("displacements");
    }
    Some((rc, outs))
}

/// The call itself, by the function's group (`Func::group`, from the function table):
/// the group's module names each of its functions.
fn call(t: &Target, layout: &dyn Layout, f: Func, a: &Args) -> Outs {
    match f.group() {
        Group::MpiT => mpi_t::call(t, layout, f, a),
        Group::Mpi => mpi::call(t, f, a),
        Group::Harness => harness_ops::call(t, layout, f, a),
    }
}
