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
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
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
    /// Evidence form ([`Serialize`] as a value).
    pub fn to_json(&self) -> Json {
        serde_json::to_value(self).unwrap_or(Json::Null)
    }
}

/// Evidence form: a string pair as its `buf` capacity and `*len` (`"NULL"` for a NULL
/// pointer), an object by its address, data as hex. Written straight to the evidence's
/// text (`record.rs`), keys in order as a `serde_json::Value` lists them.
impl Serialize for Arg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Arg::Int(i) => s.serialize_i64(*i),
            Arg::Str(a) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("buf", &a.cap.map_or_else(|| json!("NULL"), |c| json!(c)))?;
                m.serialize_entry("len", &a.len.map_or_else(|| json!("NULL"), |l| json!(l)))?;
                m.end()
            }
            Arg::Text(t) => s.serialize_str(t),
            Arg::Obj(None) => s.serialize_str("NULL"),
            Arg::Obj(Some(v)) => s.serialize_str(&format!("&{v:#x}")),
            Arg::Data(d) => s.serialize_str(&value::hex(d, 64)),
            Arg::Flag(b) => s.serialize_bool(*b),
            Arg::Nulls(n) => n.serialize(s),
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

#[cfg(test)]
mod tests {
    use super::Arg;
    use mpit_spec::verdict::Json;
    use mpit_target::ffi::StrArg;
    use std::collections::BTreeMap;

    /// Arguments as evidence: written straight to text, keys in order, as they always
    /// read.
    #[test]
    fn arguments_read_as_they_always_did() {
        let args: BTreeMap<&'static str, Arg> = [
            (
                "name",
                Arg::Str(StrArg {
                    cap: Some(8),
                    len: None,
                }),
            ),
            ("index", Arg::Int(-1)),
            ("handle", Arg::Obj(Some(255))),
            ("obj", Arg::Obj(None)),
            ("data", Arg::Data(vec![1, 171])),
            ("flag", Arg::Flag(true)),
            ("null", Arg::Nulls(vec!["count", "desc"])),
            ("text", Arg::Text("a\"b".into())),
        ]
        .into();
        let want = r#"{"data":"01ab","flag":true,"handle":"&0xff","index":-1,"name":{"buf":8,"len":"NULL"},"null":["count","desc"],"obj":"NULL","text":"a\"b"}"#;
        assert_eq!(Json::of(&args).compact(), want);
        let tree: serde_json::Map<String, serde_json::Value> = args
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_json()))
            .collect();
        assert_eq!(Json::from(serde_json::Value::Object(tree)), Json::of(&args));
    }
}
