//! The chapter's MPI_T functions (MPI-4.1 §15.3), through the target's safe wrappers:
//! string OUT arguments as (buf, len) pairs, the OUT arguments of `for_all: null_outs`
//! passed as NULL, reads decoded by the handle's datatype.
//!
//! `call` sends each function to the call of its family, as the chapter groups them:
//! initialization (§15.3.4), enumerations (§15.3.5), control variables (§15.3.6),
//! performance variables (§15.3.7), event sources and events (§15.3.8), categories
//! (§15.3.9).

use super::{int, outs, Args, Layout, OutMap, Outs};
use crate::judge::value::Val;
use mpit_spec::cases::funcs::Func;
use mpit_target::ffi::{BufOut, Lib, Nulls, Recording};
use mpit_target::Target;
use mpit_vocab::spec::Members;

pub(super) fn call(t: &Target, layout: &dyn Layout, f: Func, a: &Args) -> Outs {
    let lib = &t.lib;
    match f {
        Func::InitThread | Func::Finalize => lifecycle_call(lib, f, a),
        Func::EnumGetInfo | Func::EnumGetItem => enum_call(lib, f, a),
        Func::CvarGetNum
        | Func::CvarGetInfo
        | Func::CvarGetInfoNameOnly
        | Func::CvarGetIndex
        | Func::CvarHandleAlloc
        | Func::CvarHandleFree
        | Func::CvarRead
        | Func::CvarWrite => cvar_call(lib, layout, f, a),
        Func::PvarGetNum
        | Func::PvarGetInfo
        | Func::PvarGetInfoNameOnly
        | Func::PvarGetIndex
        | Func::PvarSessionCreate
        | Func::PvarSessionFree
        | Func::PvarHandleAlloc
        | Func::PvarHandleFree
        | Func::PvarStart
        | Func::PvarStop
        | Func::PvarReset
        | Func::PvarRead
        | Func::PvarReadreset
        | Func::PvarReadInSignal
        | Func::PvarWrite => pvar_call(lib, layout, f, a),
        Func::SourceGetNum
        | Func::SourceGetInfo
        | Func::SourceGetInfoObject
        | Func::SourceGetTimestamp => source_call(lib, f, a),
        Func::EventGetNum
        | Func::EventGetInfo
        | Func::EventGetIndex
        | Func::EventGetInfoObject
        | Func::EventHandleAlloc
        | Func::EventHandleSetInfo
        | Func::EventHandleGetInfo
        | Func::EventRegisterCallback
        | Func::EventCallbackSetInfo
        | Func::EventCallbackGetInfo
        | Func::EventHandleFree
        | Func::EventSetDroppedHandler
        | Func::EventRead
        | Func::EventCopy
        | Func::EventGetTimestamp
        | Func::EventGetSource => event_call(lib, layout, f, a),
        Func::CategoryGetNum
        | Func::CategoryChanged
        | Func::CategoryGetInfo
        | Func::CategoryGetInfoNameOnly
        | Func::CategoryGetNumEvents
        | Func::CategoryGetIndex
        | Func::CategoryGetCvars
        | Func::CategoryGetPvars
        | Func::CategoryGetEvents
        | Func::CategoryGetCategories => category_call(lib, f, a),
        // `calls::call` sends only this group here (`Func::group`); a row added to the
        // table without its call here stops at the first case that makes it.
        _ => unreachable!("{f:?} is not an MPI_T function with a call here"),
    }
}

/// The bytes a read through handle `h` passes: a handle of unknown layout, 64 (see
/// `Layout::read_bytes`).
fn bytes_for(layout: &dyn Layout, h: usize) -> usize {
    layout.read_bytes(h as u64).unwrap_or(64)
}

/// The OUT values of a cvar or pvar read through handle `h`: the bytes, how many come
/// before the first NUL, whether the library wrote past them, and the value the handle's
/// datatype decodes.
fn read_outs(layout: &dyn Layout, rc: i32, h: usize, b: BufOut) -> (i32, OutMap) {
    let value = layout.decode(h as u64, &b);
    let mut o = outs(
        rc,
        [
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
    );
    if let Some(v) = value {
        o.1.insert("value", v);
    }
    o
}

/// MPI_T_init_thread and MPI_T_finalize (MPI-4.1 §15.3.4).
fn lifecycle_call(lib: &Lib, f: Func, a: &Args) -> Outs {
    Some(match f {
        Func::InitThread => lib
            .init_thread(a.int("required"))
            .map(|(rc, p)| outs(rc, [("provided", int(p))]))?,
        Func::Finalize => lib.finalize().map(|(rc, ())| outs(rc, []))?,
        _ => unreachable!("{f:?} is not an MPI_T function with a call here"),
    })
}

/// The enumerations' queries (MPI-4.1 §15.3.5).
fn enum_call(lib: &Lib, f: Func, a: &Args) -> Outs {
    let nulls = Nulls(a.nulls());
    Some(match f {
        Func::EnumGetInfo => lib
            .enum_get_info_nulls(a.handle("enumtype"), a.s("name"), nulls)
            .map(|(rc, (n, s))| outs(rc, [("num", int(n)), ("name", Val::Str(s))]))?,
        Func::EnumGetItem => lib
            .enum_get_item_nulls(a.handle("enumtype"), a.int("item"), a.s("name"), nulls)
            .map(|(rc, (v, s))| outs(rc, [("value", int(v)), ("name", Val::Str(s))]))?,
        _ => unreachable!("{f:?} is not an MPI_T function with a call here"),
    })
}

/// The control variables (MPI-4.1 §15.3.6): queries, handles, reads and writes.
fn cvar_call(lib: &Lib, layout: &dyn Layout, f: Func, a: &Args) -> Outs {
    let nulls = Nulls(a.nulls());
    Some(match f {
        Func::CvarGetNum => lib
            .cvar_get_num()
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
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
        Func::CvarGetInfoNameOnly => lib
            .cvar_get_info_name_only(a.int("index"), a.s("name"))
            .map(|(rc, n)| outs(rc, [("name", Val::Str(n))]))?,
        Func::CvarGetIndex => lib
            .cvar_get_index(a.text("name"))
            .map(|(rc, i)| outs(rc, [("index", int(i))]))?,
        Func::CvarHandleAlloc => lib
            .cvar_handle_alloc(a.int("index"), a.obj("obj", lib.handle_width()))
            .map(|(rc, (h, n))| outs(rc, [("handle", int(h as u64)), ("count", int(n))]))?,
        Func::CvarHandleFree => lib
            .cvar_handle_free(a.handle("handle"))
            .map(|(rc, h)| outs(rc, [("handle", int(h as u64))]))?,
        Func::CvarRead => {
            let h = a.handle("handle");
            lib.cvar_read(h, bytes_for(layout, h))
                .map(|(rc, b)| read_outs(layout, rc, h, b))?
        }
        Func::CvarWrite => lib
            .cvar_write(a.handle("handle"), a.data("data"))
            .map(|(rc, ())| outs(rc, []))?,
        _ => unreachable!("{f:?} is not an MPI_T function with a call here"),
    })
}

/// The performance variables (MPI-4.1 §15.3.7): queries, sessions, handles, reads.
fn pvar_call(lib: &Lib, layout: &dyn Layout, f: Func, a: &Args) -> Outs {
    let nulls = Nulls(a.nulls());
    Some(match f {
        Func::PvarGetNum => lib
            .pvar_get_num()
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
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
        Func::PvarGetInfoNameOnly => lib
            .pvar_get_info_name_only(a.int("index"), a.s("name"))
            .map(|(rc, n)| outs(rc, [("name", Val::Str(n))]))?,
        Func::PvarGetIndex => lib
            .pvar_get_index(a.text("name"), a.int("var_class"))
            .map(|(rc, i)| outs(rc, [("index", int(i))]))?,
        Func::PvarSessionCreate => lib
            .pvar_session_create()
            .map(|(rc, s)| outs(rc, [("session", int(s as u64))]))?,
        Func::PvarSessionFree => lib
            .pvar_session_free(a.handle("session"))
            .map(|(rc, s)| outs(rc, [("session", int(s as u64))]))?,
        Func::PvarHandleAlloc => lib
            .pvar_handle_alloc(
                a.handle("session"),
                a.int("index"),
                a.obj("obj", lib.handle_width()),
            )
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
                Func::PvarRead => lib.pvar_read(s, h, bytes_for(layout, h)),
                Func::PvarReadInSignal => {
                    lib.pvar_read_in_signal_handler(s, h, bytes_for(layout, h))
                }
                _ => lib.pvar_readreset(s, h, bytes_for(layout, h)),
            };
            got.map(|(rc, b)| read_outs(layout, rc, h, b))?
        }
        Func::PvarWrite => lib
            .pvar_write(a.handle("session"), a.handle("handle"), a.data("data"))
            .map(|(rc, ())| outs(rc, []))?,
        _ => unreachable!("{f:?} is not an MPI_T function with a call here"),
    })
}

/// The event sources (MPI-4.1 §15.3.8).
fn source_call(lib: &Lib, f: Func, a: &Args) -> Outs {
    let nulls = Nulls(a.nulls());
    Some(match f {
        Func::SourceGetNum => lib
            .source_get_num()
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
        Func::SourceGetInfoObject => lib
            .source_get_info_object(a.int("index"))
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::SourceGetTimestamp => lib
            .source_get_timestamp(a.int("index"))
            .map(|(rc, ts)| outs(rc, [("timestamp", int(ts))]))?,
        _ => unreachable!("{f:?} is not an MPI_T function with a call here"),
    })
}

/// Event types, registrations, callbacks and instances (MPI-4.1 §15.3.8).
fn event_call(lib: &Lib, layout: &dyn Layout, f: Func, a: &Args) -> Outs {
    let nulls = Nulls(a.nulls());
    Some(match f {
        Func::EventGetNum => lib
            .event_get_num()
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
        Func::EventGetInfo => {
            let cap = a
                .get("capacity")
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
        Func::EventGetIndex => lib
            .event_get_index(a.text("name"))
            .map(|(rc, i)| outs(rc, [("index", int(i))]))?,
        Func::EventGetInfoObject => lib
            .event_get_info_object(a.int("index"))
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::EventHandleAlloc => lib
            .event_handle_alloc(
                a.int("index"),
                a.obj("obj", lib.handle_width()),
                a.handle("info") as u64,
            )
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
                element_sizes: layout.element_sizes(reg as u64),
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
        _ => unreachable!("{f:?} is not an MPI_T function with a call here"),
    })
}

/// The categories and their members (MPI-4.1 §15.3.9).
fn category_call(lib: &Lib, f: Func, a: &Args) -> Outs {
    let nulls = Nulls(a.nulls());
    Some(match f {
        Func::CategoryGetNum => lib
            .category_get_num()
            .map(|(rc, n)| outs(rc, [("num", int(n))]))?,
        Func::CategoryChanged => lib
            .category_changed()
            .map(|(rc, n)| outs(rc, [("update_number", int(n))]))?,
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
        Func::CategoryGetInfoNameOnly => lib
            .category_get_info_name_only(a.int("index"), a.s("name"))
            .map(|(rc, n)| outs(rc, [("name", Val::Str(n))]))?,
        Func::CategoryGetIndex => lib
            .category_get_index(a.text("name"))
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
        _ => unreachable!("{f:?} is not an MPI_T function with a call here"),
    })
}
