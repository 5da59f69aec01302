//! One call: resolved arguments in, the target's safe wrapper called, OUT values named
//! as `Func::outs` lists them. No judging here.

use crate::cases::funcs::Func;
use crate::cases::Kind;
use crate::judge::inventory::{self, Inventory};
use crate::judge::value::{self, Val};
use crate::target::ffi::{self, BufOut, Nulls, ObjArg, Recording, StrArg, StrOut};
use crate::target::Target;
use mpit_reference::model::Members;
use mpit_reference::spec::Datatype;
use mpit_reference::value::Value;
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
    pub kind: Kind,
    pub index: i32,
    pub count: i32,
}

/// The datatype (from the inventory's text attribute) of a cvar/pvar.
fn datatype_of(inv: &Inventory, m: &HandleMeta) -> Option<Datatype> {
    let e = inv.find(m.kind, m.index)?;
    Datatype::from_spelling(e.attrs.get("datatype")?)
}

/// Bytes a read of this handle needs: count × size (R-CVAR-8), 8 per element when the
/// datatype is not one of the table (so a library's write still lands in the buffer).
pub fn read_bytes(inv: &Inventory, m: &HandleMeta) -> usize {
    let size = datatype_of(inv, m).map_or(8, |d| d.size());
    (m.count.clamp(0, 1 << 20) as usize) * size
}

/// A read buffer decoded by the variable's datatype: a list of numbers, or the text for
/// MPI_CHAR.
pub fn decode(inv: &Inventory, m: &HandleMeta, b: &BufOut) -> Val {
    let Some(dt) = datatype_of(inv, m) else {
        return Val::Bytes(b.clone());
    };
    match Value::from_bytes(dt, m.count.max(0) as usize, &b.bytes) {
        Value::Ints(v) => Val::List(v.into_iter().map(Val::Int).collect()),
        Value::Doubles(v) => Val::List(v.into_iter().map(Val::Float).collect()),
        Value::Chars(s) => Val::Str(StrOut {
            buf: Some(s.into_bytes()),
            ..StrOut::default()
        }),
    }
}

/// Encodes a number as `count` elements of the variable's datatype (`cvar_write` with
/// a literal value).
pub fn encode(inv: &Inventory, m: &HandleMeta, n: i64) -> Vec<u8> {
    let count = m.count.max(1) as usize;
    match datatype_of(inv, m) {
        Some(Datatype::Double) => {
            Value::Doubles(vec![n as f64; count]).to_bytes(Datatype::Double, count)
        }
        Some(Datatype::Char) => Value::Chars(n.to_string()).to_bytes(Datatype::Char, count),
        Some(dt) => Value::Ints(vec![n as i128; count]).to_bytes(dt, count),
        None => n.to_ne_bytes().repeat(count),
    }
}

/// The named OUT values of one call, or `None` when the symbol is not exported.
pub type Outs = Option<(i32, BTreeMap<String, Val>)>;

fn int(v: impl Into<i128>) -> Val {
    Val::Int(v.into())
}

/// Adds the `failed_call` OUT (the text of the call that ended a harness operation:
/// `activity`, `init_cycles`, `init_threads`) when there is one.
fn with_failed_call(
    mut o: (i32, BTreeMap<String, Val>),
    failed: &str,
) -> (i32, BTreeMap<String, Val>) {
    if !failed.is_empty() {
        o.1.insert(
            "failed_call".into(),
            Val::Str(StrOut {
                buf: Some(failed.as_bytes().to_vec()),
                ..StrOut::default()
            }),
        );
    }
    o
}

fn outs<const N: usize>(rc: i32, kv: [(&str, Val); N]) -> (i32, BTreeMap<String, Val>) {
    (
        rc,
        kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    )
}

/// Arguments by parameter name.
pub struct Args<'a>(pub &'a BTreeMap<&'static str, Arg>);

impl Args<'_> {
    fn int(&self, k: &str) -> i32 {
        match self.0.get(k) {
            Some(Arg::Int(i)) => *i as i32,
            Some(Arg::Flag(b)) => *b as i32,
            _ => 0,
        }
    }
    fn handle(&self, k: &str) -> usize {
        match self.0.get(k) {
            Some(Arg::Int(i)) => *i as u64 as usize,
            _ => 0,
        }
    }
    fn obj(&self, k: &str, width: usize) -> ObjArg {
        match self.0.get(k) {
            Some(Arg::Obj(Some(v))) => ObjArg::Local { value: *v, width },
            _ => ObjArg::Null,
        }
    }
    fn s(&self, k: &str) -> StrArg {
        match self.0.get(k) {
            Some(Arg::Str(s)) => *s,
            _ => StrArg::sized(4096),
        }
    }
    fn text(&self, k: &str) -> &str {
        match self.0.get(k) {
            Some(Arg::Text(t)) => t,
            _ => "",
        }
    }
    fn data(&self, k: &str) -> &[u8] {
        match self.0.get(k) {
            Some(Arg::Data(d)) => d,
            _ => &[],
        }
    }
    /// The OUT arguments to pass as NULL (`for_all: null_outs`).
    fn nulls(&self) -> &[&'static str] {
        match self.0.get("null") {
            Some(Arg::Nulls(n)) => n,
            _ => &[],
        }
    }
    fn flag(&self, k: &str) -> bool {
        match self.0.get(k) {
            Some(Arg::Flag(b)) => *b,
            Some(Arg::Int(i)) => *i != 0,
            _ => false,
        }
    }
}

/// Calls `f` on the target. The OUT values of arguments passed as NULL are left out:
/// nothing was returned for them (R-CVAR-3).
pub fn invoke(
    t: &Target,
    inv: &Inventory,
    handles: &BTreeMap<u64, HandleMeta>,
    f: Func,
    a: &Args,
) -> Outs {
    let (rc, mut outs) = call(t, inv, handles, f, a)?;
    let nulls = a.nulls();
    for n in nulls {
        outs.remove(*n);
    }
    // §15.3.8: "If num_elements is NULL, num_elements and both arrays are ignored".
    if nulls.contains(&"num_elements") {
        outs.remove("datatypes");
        outs.remove("displacements");
    }
    Some((rc, outs))
}

fn call(
    t: &Target,
    inv: &Inventory,
    handles: &BTreeMap<u64, HandleMeta>,
    f: Func,
    a: &Args,
) -> Outs {
    let nulls = Nulls(a.nulls());
    let lib = &t.lib;
    let width = lib.handle_width();
    let meta = |h: usize| handles.get(&(h as u64)).copied();
    let read = |h: usize, b: &BufOut| match meta(h) {
        Some(m) => decode(inv, &m, b),
        None => Val::Bytes(b.clone()),
    };
    let bytes_for = |h: usize| meta(h).map_or(64, |m| read_bytes(inv, &m));
    let read_outs = |rc: i32, h: usize, b: BufOut| {
        outs(
            rc,
            [
                ("value", read(h, &b)),
                ("overrun", int(b.overrun as i32)),
                // Bytes before the first NUL (the whole buffer when it has none): an
                // MPI_CHAR value must end within `count` (R-TYPE-2).
                (
                    "strlen",
                    int(b
                        .bytes
                        .iter()
                        .position(|c| *c == 0)
                        .unwrap_or(b.bytes.len()) as i64),
                ),
                ("bytes", Val::Bytes(b)),
            ],
        )
    };
    Some(match f {
        Func::InitThread => lib
            .init_thread(a.int("required"))
            .map(|(rc, p)| outs(rc, [("provided", int(p))]))?,
        Func::Finalize => lib.finalize().map(|(rc, ())| outs(rc, []))?,
        Func::EnumGetInfo => lib
            .enum_get_info_nulls(a.handle("enumtype"), a.s("name"), nulls)
            .map(|(rc, (n, s))| outs(rc, [("num", int(n)), ("name", Val::Str(s))]))?,
        Func::EnumGetItem => lib
            .enum_get_item_nulls(a.handle("enumtype"), a.int("item"), a.s("name"), nulls)
            .map(|(rc, (v, s))| outs(rc, [("value", int(v)), ("name", Val::Str(s))]))?,
        Func::CvarGetNum => lib
            .cvar_get_num()
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
        Func::PvarGetNum => lib
            .pvar_get_num()
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
        Func::CategoryGetNum => lib
            .category_get_num()
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
        Func::EventGetNum => lib
            .event_get_num()
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
        Func::SourceGetNum => lib
            .source_get_num()
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
        Func::CategoryChanged => lib
            .category_changed()
            .map(|(rc, n)| outs(rc, [("update_number", int(n))]))?,
        Func::CvarGetInfo => lib
            .cvar_get_info_nulls(a.int("index"), a.s("name"), a.s("desc"), nulls)
            .map(|(rc, o)| {
                outs(
                    rc,
                    [
                        ("name", Val::Str(o.name)),
                        ("verbosity", int(o.verbosity)),
                        ("datatype", int(o.datatype)),
                        ("enumtype", int(o.enumtype as u64)),
                        ("desc", Val::Str(o.desc)),
                        ("bind", int(o.bind)),
                        ("scope", int(o.scope)),
                    ],
                )
            })?,
        Func::PvarGetInfo => lib
            .pvar_get_info_nulls(a.int("index"), a.s("name"), a.s("desc"), nulls)
            .map(|(rc, o)| {
                outs(
                    rc,
                    [
                        ("name", Val::Str(o.name)),
                        ("verbosity", int(o.verbosity)),
                        ("var_class", int(o.var_class)),
                        ("datatype", int(o.datatype)),
                        ("enumtype", int(o.enumtype as u64)),
                        ("desc", Val::Str(o.desc)),
                        ("bind", int(o.bind)),
                        ("readonly", int(o.readonly)),
                        ("continuous", int(o.continuous)),
                        ("atomic", int(o.atomic)),
                    ],
                )
            })?,
        Func::CategoryGetInfo => lib
            .category_get_info_nulls(a.int("index"), a.s("name"), a.s("desc"), nulls)
            .map(|(rc, o)| {
                outs(
                    rc,
                    [
                        ("name", Val::Str(o.name)),
                        ("desc", Val::Str(o.desc)),
                        ("num_cvars", int(o.num_cvars)),
                        ("num_pvars", int(o.num_pvars)),
                        ("num_categories", int(o.num_categories)),
                    ],
                )
            })?,
        Func::CategoryGetNumEvents => lib
            .category_get_num_events(a.int("index"))
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
        Func::SourceGetInfo => lib
            .source_get_info_nulls(a.int("index"), a.s("name"), a.s("desc"), nulls)
            .map(|(rc, o)| {
                outs(
                    rc,
                    [
                        ("name", Val::Str(o.name)),
                        ("desc", Val::Str(o.desc)),
                        ("ordering", int(o.ordering)),
                        ("ticks_per_second", int(o.ticks_per_second)),
                        ("max_ticks", int(o.max_ticks)),
                    ],
                )
            })?,
        Func::EventGetInfo => {
            let cap =
                a.0.get("capacity")
                    .map_or(64, |_| a.int("capacity").clamp(0, 4096) as usize);
            lib.event_get_info_nulls(a.int("index"), a.s("name"), a.s("desc"), cap, nulls)
                .map(|(rc, o)| {
                    outs(
                        rc,
                        [
                            ("name", Val::Str(o.name)),
                            ("verbosity", int(o.verbosity)),
                            (
                                "datatypes",
                                Val::List(o.datatypes.iter().map(|d| int(*d)).collect()),
                            ),
                            (
                                "displacements",
                                Val::List(o.displacements.iter().map(|d| int(*d as i64)).collect()),
                            ),
                            ("num_elements", int(o.num_elements)),
                            ("enumtype", int(o.enumtype as u64)),
                            ("desc", Val::Str(o.desc)),
                            ("bind", int(o.bind)),
                            ("overrun", int(o.overrun as i32)),
                        ],
                    )
                })?
        }
        Func::CvarGetIndex => lib
            .cvar_get_index(a.text("name"))
            .map(|(rc, i)| outs(rc, [("index", int(i))]))?,
        Func::CategoryGetIndex => lib
            .category_get_index(a.text("name"))
            .map(|(rc, i)| outs(rc, [("index", int(i))]))?,
        Func::EventGetIndex => lib
            .event_get_index(a.text("name"))
            .map(|(rc, i)| outs(rc, [("index", int(i))]))?,
        Func::PvarGetIndex => lib
            .pvar_get_index(a.text("name"), a.int("var_class"))
            .map(|(rc, i)| outs(rc, [("index", int(i))]))?,
        Func::CategoryGetCvars
        | Func::CategoryGetPvars
        | Func::CategoryGetEvents
        | Func::CategoryGetCategories => {
            let which = match f {
                Func::CategoryGetCvars => Members::Cvars,
                Func::CategoryGetPvars => Members::Pvars,
                Func::CategoryGetEvents => Members::Events,
                _ => Members::Categories,
            };
            let len = a.int("len").clamp(0, 1 << 20) as usize;
            // The sentinel -7 is no valid index: entries the call must leave alone keep it,
            // and guard entries past `len` show a write beyond the array.
            lib.category_members_guarded(which, a.int("index"), len, -7)
                .map(|(rc, (v, overrun))| {
                    outs(
                        rc,
                        [
                            ("indices", Val::List(v.into_iter().map(int).collect())),
                            ("overrun", int(overrun as i32)),
                        ],
                    )
                })?
        }
        Func::CvarHandleAlloc => lib
            .cvar_handle_alloc(a.int("index"), a.obj("obj", width))
            .map(|(rc, (h, n))| outs(rc, [("handle", int(h as u64)), ("count", int(n))]))?,
        Func::CvarHandleFree => lib
            .cvar_handle_free(a.handle("handle"))
            .map(|(rc, h)| outs(rc, [("handle", int(h as u64))]))?,
        Func::CvarRead => {
            let h = a.handle("handle");
            lib.cvar_read(h, bytes_for(h))
                .map(|(rc, b)| read_outs(rc, h, b))?
        }
        Func::CvarWrite => lib
            .cvar_write(a.handle("handle"), a.data("data"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::PvarSessionCreate => lib
            .pvar_session_create()
            .map(|(rc, s)| outs(rc, [("session", int(s as u64))]))?,
        Func::PvarSessionFree => lib
            .pvar_session_free(a.handle("session"))
            .map(|(rc, s)| outs(rc, [("session", int(s as u64))]))?,
        Func::PvarHandleAlloc => lib
            .pvar_handle_alloc(a.handle("session"), a.int("index"), a.obj("obj", width))
            .map(|(rc, (h, n))| outs(rc, [("handle", int(h as u64)), ("count", int(n))]))?,
        Func::PvarHandleFree => lib
            .pvar_handle_free(a.handle("session"), a.handle("handle"))
            .map(|(rc, h)| outs(rc, [("handle", int(h as u64))]))?,
        Func::PvarStart => lib
            .pvar_start(a.handle("session"), a.handle("handle"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::PvarStop => lib
            .pvar_stop(a.handle("session"), a.handle("handle"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::PvarReset => lib
            .pvar_reset(a.handle("session"), a.handle("handle"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::PvarRead | Func::PvarReadreset | Func::PvarReadInSignal => {
            let (s, h) = (a.handle("session"), a.handle("handle"));
            let got = match f {
                Func::PvarRead => lib.pvar_read(s, h, bytes_for(h)),
                Func::PvarReadInSignal => lib.pvar_read_in_signal_handler(s, h, bytes_for(h)),
                _ => lib.pvar_readreset(s, h, bytes_for(h)),
            };
            got.map(|(rc, b)| read_outs(rc, h, b))?
        }
        Func::PvarWrite => lib
            .pvar_write(a.handle("session"), a.handle("handle"), a.data("data"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::CvarGetInfoNameOnly => lib
            .cvar_get_info_name_only(a.int("index"), a.s("name"))
            .map(|(rc, n)| outs(rc, [("name", Val::Str(n))]))?,
        Func::PvarGetInfoNameOnly => lib
            .pvar_get_info_name_only(a.int("index"), a.s("name"))
            .map(|(rc, n)| outs(rc, [("name", Val::Str(n))]))?,
        Func::CategoryGetInfoNameOnly => lib
            .category_get_info_name_only(a.int("index"), a.s("name"))
            .map(|(rc, n)| outs(rc, [("name", Val::Str(n))]))?,
        Func::SourceGetInfoObject => lib
            .source_get_info_object(a.int("index"))
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::EventGetInfoObject => lib
            .event_get_info_object(a.int("index"))
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::SourceGetTimestamp => lib
            .source_get_timestamp(a.int("index"))
            .map(|(rc, ts)| outs(rc, [("timestamp", int(ts))]))?,
        Func::EventHandleAlloc => lib
            .event_handle_alloc(a.int("index"), a.obj("obj", width), a.handle("info") as u64)
            .map(|(rc, r)| outs(rc, [("registration", int(r as u64))]))?,
        Func::EventHandleSetInfo => lib
            .event_handle_set_info(a.handle("registration"), a.handle("info") as u64)
            .map(|(rc, ())| outs(rc, []))?,
        Func::EventHandleGetInfo => lib
            .event_handle_get_info(a.handle("registration"))
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::EventRegisterCallback => {
            let reg = a.handle("registration");
            let recorder = a.flag("callback").then(|| Recording {
                tag: a.int("tag") as usize,
                element_sizes: meta(reg)
                    .map(|m| element_sizes(inv, m.index))
                    .unwrap_or_default(),
            });
            lib.event_register_callback(reg, a.int("cb_safety"), a.handle("info") as u64, recorder)
                .map(|(rc, ())| outs(rc, []))?
        }
        Func::EventCallbackSetInfo => lib
            .event_callback_set_info(
                a.handle("registration"),
                a.int("cb_safety"),
                a.handle("info") as u64,
            )
            .map(|(rc, ())| outs(rc, []))?,
        Func::EventCallbackGetInfo => lib
            .event_callback_get_info(a.handle("registration"), a.int("cb_safety"))
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::EventHandleFree => lib
            .event_handle_free(a.handle("registration"), a.flag("free_callback"))
            .map(|(rc, r)| outs(rc, [("registration", int(r as u64))]))?,
        Func::EventSetDroppedHandler => lib
            .event_set_dropped_handler(a.handle("registration"), a.flag("handler"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::EventRead => lib
            .event_read(
                a.handle("instance"),
                a.int("element"),
                a.int("bytes").max(0) as usize,
            )
            .map(|(rc, b)| {
                outs(
                    rc,
                    [("overrun", int(b.overrun as i32)), ("bytes", Val::Bytes(b))],
                )
            })?,
        Func::EventCopy => lib
            .event_copy(a.handle("instance"), a.int("bytes").max(0) as usize)
            .map(|(rc, b)| {
                outs(
                    rc,
                    [("overrun", int(b.overrun as i32)), ("bytes", Val::Bytes(b))],
                )
            })?,
        Func::EventGetTimestamp => lib
            .event_get_timestamp(a.handle("instance"))
            .map(|(rc, ts)| outs(rc, [("timestamp", int(ts))]))?,
        Func::EventGetSource => lib
            .event_get_source(a.handle("instance"))
            .map(|(rc, s)| outs(rc, [("source", int(s))]))?,
        Func::GetVersion => lib
            .get_version()
            .map(|(rc, (v, s))| outs(rc, [("version", int(v)), ("subversion", int(s))]))?,
        Func::MpiInit => lib.mpi_init().map(|(rc, ())| outs(rc, []))?,
        Func::MpiFinalize => lib.mpi_finalize().map(|(rc, ())| outs(rc, []))?,
        Func::Initialized => lib
            .initialized()
            .map(|(rc, b)| outs(rc, [("flag", int(b as i32))]))?,
        Func::Finalized => lib
            .finalized()
            .map(|(rc, b)| outs(rc, [("flag", int(b as i32))]))?,
        Func::CommRank => lib
            .comm_rank(a.handle("comm") as u64)
            .map(|(rc, r)| outs(rc, [("rank", int(r))]))?,
        Func::CommSize => lib
            .comm_size(a.handle("comm") as u64)
            .map(|(rc, r)| outs(rc, [("size", int(r))]))?,
        Func::InfoCreate => lib
            .info_create()
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::InfoSet => lib
            .info_set(a.handle("info") as u64, a.text("key"), a.text("value"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::InfoGetNkeys => lib
            .info_get_nkeys(a.handle("info") as u64)
            .map(|(rc, n)| outs(rc, [("nkeys", int(n))]))?,
        Func::InfoFree => lib
            .info_free(a.handle("info") as u64)
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::MpiInitThread => lib
            .mpi_init_thread(a.int("required"))
            .map(|(rc, p)| outs(rc, [("provided", int(p))]))?,
        Func::QueryThread => lib
            .query_thread()
            .map(|(rc, p)| outs(rc, [("provided", int(p))]))?,
        Func::SessionInit => {
            // The constants as a case names them (exec::resolve_constant); a profile
            // without them cannot make the call.
            let h = |n: &str| super::resolve_constant(t, n).ok().map(|v| v as u64);
            let (Some(info), Some(errh)) = (h("MPI_INFO_NULL"), h("MPI_ERRORS_RETURN")) else {
                return None;
            };
            lib.session_init(info, errh)
                .map(|(rc, s)| outs(rc, [("mpi_session", int(s))]))?
        }
        Func::SessionFinalize => lib
            .session_finalize(a.handle("mpi_session") as u64)
            .map(|(rc, s)| outs(rc, [("mpi_session", int(s))]))?,
        Func::CommDup => lib
            .comm_dup(a.handle("comm") as u64)
            .map(|(rc, c)| outs(rc, [("newcomm", int(c))]))?,
        Func::CommFree => lib
            .comm_free(a.handle("comm") as u64)
            .map(|(rc, c)| outs(rc, [("comm", int(c))]))?,
        Func::InitCycles | Func::InitThreads => {
            let n = |k: &str| a.int(k).clamp(0, 1_000_000) as u32;
            let c = match f {
                Func::InitThreads => {
                    t.init_threads(a.int("required"), n("threads").min(64), n("cycles"))?
                }
                _ => t.init_cycles(a.int("required"), n("cycles"))?,
            };
            let (rc, failed) = c.failed.map_or((0, String::new()), |(what, rc)| (rc, what));
            let o = outs(
                rc,
                [
                    ("completed", int(c.completed)),
                    ("budget_hit", int(c.budget_hit as i32)),
                    (
                        "provided",
                        Val::List(c.provided.into_iter().map(int).collect()),
                    ),
                ],
            );
            with_failed_call(o, &failed)
        }
        Func::CatalogSnapshot => {
            let snap = inventory::read(t);
            let counts = Val::Outs(
                snap.globals
                    .iter()
                    .map(|(k, v)| (k.clone(), int(*v)))
                    .collect(),
            );
            outs(
                0,
                [
                    ("catalog", Val::Snapshot(Box::new(snap))),
                    ("counts", counts),
                ],
            )
        }
        Func::PmpiTwins => {
            // R-GEN-8: every exported MPI_T_* has its PMPI_T_* twin.
            let exported: Vec<Func> = Func::mpi_t().filter(|f| lib.exports(f.c_name())).collect();
            let missing: Vec<Val> = exported
                .iter()
                .filter(|f| !lib.exports(&format!("P{}", f.c_name())))
                .map(|f| {
                    Val::Str(StrOut {
                        buf: Some(format!("P{}", f.c_name()).into_bytes()),
                        ..StrOut::default()
                    })
                })
                .collect();
            outs(
                0,
                [
                    ("exported", int(exported.len() as i64)),
                    ("missing", Val::List(missing)),
                ],
            )
        }
        Func::Deliveries => {
            let d = ffi::take_deliveries();
            let dropped = ffi::take_dropped();
            let dropped_at = ffi::take_dropped_positions();
            let freed = ffi::take_freed();
            let list = |v: Vec<Val>| Val::List(v);
            outs(
                0,
                [
                    ("count", int(d.len() as i64)),
                    ("tags", list(d.iter().map(|x| int(x.tag as u64)).collect())),
                    ("safeties", list(d.iter().map(|x| int(x.safety)).collect())),
                    (
                        "sources",
                        list(
                            d.iter()
                                .map(|x| int(x.source.map_or(-1, |s| s.1)))
                                .collect(),
                        ),
                    ),
                    (
                        "timestamps",
                        list(
                            d.iter()
                                .map(|x| int(x.timestamp.map_or(-1, |s| s.1)))
                                .collect(),
                        ),
                    ),
                    (
                        "instances",
                        list(d.iter().map(|x| int(x.instance as u64)).collect()),
                    ),
                    ("call_rcs", list(d.iter().flat_map(call_rcs).collect())),
                    (
                        "data_ok",
                        list(d.iter().map(|x| int(data_ok(lib, handles, x))).collect()),
                    ),
                    ("dropped", list(dropped.iter().map(|x| int(x.1)).collect())),
                    (
                        "dropped_tags",
                        list(dropped.iter().map(|x| int(x.0 as u64)).collect()),
                    ),
                    (
                        "dropped_sources",
                        list(dropped.iter().map(|x| int(x.2)).collect()),
                    ),
                    (
                        "dropped_at",
                        list(dropped_at.iter().map(|x| int(*x as u64)).collect()),
                    ),
                    (
                        "freed",
                        list(freed.iter().map(|x| int(*x as u64)).collect()),
                    ),
                ],
            )
        }
        Func::Activity => {
            let n = |k: &str| a.int(k).clamp(0, 100_000) as u32;
            let plan = crate::target::activity::Plan {
                messages: n("messages"),
                // Around the ranks: the cross-rank run's (runner::ranks::values); a case
                // runs in one process.
                ring: 0,
                unexpected: n("unexpected"),
                collectives: n("collectives"),
                comms: n("comms"),
                sessions: n("sessions"),
                hold: n("hold"),
                drain: a.int("drain") != 0,
            };
            let d = t.activity(&plan)?;
            let (rc, failed) = d.failed.map_or((0, ""), |(c, rc)| (rc, c));
            let o = outs(
                rc,
                [("calls", int(d.calls)), ("seconds", Val::Float(d.seconds))],
            );
            with_failed_call(o, failed)
        }
        Func::Wtime => outs(0, [("time", Val::Float(lib.wtime()?))]),
        Func::Simulate => lib
            .reference_simulate(a.int("steps"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::RaiseEvent => lib
            .reference_raise_event(a.int("index"), a.int("cb_safety"))
            .map(|(rc, ())| outs(rc, []))?,
    })
}

/// The return codes of the calls the recorder made inside one callback
/// (event_get_timestamp, event_get_source, event_read per element, event_copy), raw.
fn call_rcs(d: &ffi::Delivery) -> Vec<Val> {
    let mut v: Vec<i32> = Vec::new();
    v.extend(d.timestamp.map(|x| x.0));
    v.extend(d.source.map(|x| x.0));
    v.extend(d.elements.iter().map(|x| x.0));
    v.extend(d.copy.as_ref().map(|x| x.0));
    v.into_iter().map(int).collect()
}

/// Whether one delivery's data agree (§15.3.8.6): every element read and the copy
/// succeeded, nothing was written past a buffer, and element k of the copy, at the
/// displacement `event_get_info` gives, holds the bytes event_read returned for it.
/// 1 yes, 0 no, -1 when the registration is unknown to the executor (not judged).
fn data_ok(lib: &ffi::Lib, handles: &BTreeMap<u64, HandleMeta>, d: &ffi::Delivery) -> i32 {
    let Some(m) = handles
        .get(&(d.registration as u64))
        .filter(|m| m.kind == Kind::Event)
    else {
        return -1;
    };
    let Some((0, info)) = lib.event_get_info(m.index, StrArg::LEN_ONLY, StrArg::LEN_ONLY, 64)
    else {
        return -1;
    };
    let Some((0, copy)) = &d.copy else { return 0 };
    if copy.overrun || d.elements.len() != info.num_elements.max(0) as usize {
        return 0;
    }
    for ((rc, el), disp) in d.elements.iter().zip(&info.displacements) {
        let Ok(at) = usize::try_from(*disp) else {
            return 0;
        };
        let got = copy.bytes.get(at..at + el.bytes.len());
        if *rc != 0 || el.overrun || got != Some(&el.bytes[..]) {
            return 0;
        }
    }
    1
}

/// Byte sizes of an event type's elements (for the recorder's `event_read` calls).
fn element_sizes(inv: &Inventory, event: i32) -> Vec<usize> {
    inv.find(Kind::Event, event)
        .and_then(|e| e.attrs.get("datatype"))
        .map(|s| {
            s.split(',')
                .filter(|x| !x.is_empty())
                .map(|x| Datatype::from_spelling(x).map_or(8, |d| d.size()))
                .collect()
        })
        .unwrap_or_default()
}
