//! The target engine: ops carried out on a loaded library through the case executor's
//! engine (`exec::calls::invoke`, the safe wrappers of `target::ffi`), outputs decoded
//! with the target's ABI profile into [`Obs`] form and renumbered into the mirror's
//! numbering. Runs in a worker process (`remote`) or, for the in-process fuzzer, in the
//! fuzzer's own process.
//!
//! Each op is lowered to a function of the table (`cases::funcs::Func`) and its
//! arguments: handles resolved, indices in the target's numbering, string pairs, the
//! bytes a write passes, the OUT arguments passed as NULL. The named OUT values come
//! back as `Func::outs` names them and become the op's [`Obs`]. What a call needs of the
//! catalog (read sizes, an event type's element sizes) is `lower::OpLayout`'s, from the
//! handles the sequence made and the mirror's catalog.
//!
//! This module holds the engine, its handles, and the calls whose outputs are a code,
//! a handle, a value read or an index; two larger calls have a module each:
//!
//! - `info`: `*_get_info` of each kind, every OUT argument decoded (MPI-4.1 §15.3.6
//!   to §15.3.9), or the name alone with every other OUT argument NULL;
//! - `events`: the reference's raised events and the callbacks the recorder saw run
//!   (§15.3.8), and what a callback reads.
//!
//! `in_process` runs whole sequences on the engine in this process ([`InProcess`]).

mod events;
mod in_process;
mod info;
mod lower;

pub use in_process::InProcess;

use super::engine::Engine;
use super::obs::{Obs, Out};
use super::op::{callback_tag, Act, Data, Kind, Op, Str};
use super::{HandleKind, Made, Mirror, Ref, Slots};
use crate::cases::funcs::Func;
use crate::exec::calls::{self, Arg, Args, Outs};
use crate::target::ffi::{self, StrArg};
use crate::target::{Predefined, Target};
use lower::{buf_of, handle_arg, handle_of, i32_of, int, int_arg, list_of, str_of, OpLayout, Vals};
use mpit_reference::model::Members;
use mpit_reference::profile::ConstMap;
use mpit_reference::spec::SpecEnum;

/// Sentinel pre-filled into category member arrays (R-CAT-1: unwritten entries stay).
/// The executor's `category_get_*` passes the same (`exec::calls`).
pub const SENTINEL: i32 = -7;

impl Engine for TargetEngine<'_> {
    /// Carries out one op, naming it as the call in flight (a crash then names it).
    fn call(&mut self, op: &Op) -> Obs {
        if ffi::in_flight::installed() {
            ffi::in_flight::set_fmt(format_args!("{}({op:?})", op.function()));
        }
        let o = self.carry_out(op);
        ffi::in_flight::set(None);
        o
    }
}

/// A loaded library and the handles this sequence made in it.
pub struct TargetEngine<'a> {
    t: &'a Target,
    m: &'a Mirror,
    slots: Slots,
    /// The target's NULL handles and ALL_HANDLES, read once.
    consts: Predefined,
}

fn arg(s: Str) -> StrArg {
    StrArg {
        cap: s.cap.map(|c| c as usize),
        len: s.len,
    }
}

fn name<K: SpecEnum>(table: &ConstMap<K, Option<i64>>, n: i64) -> Out {
    Out::Name(
        table
            .lookup(n)
            .map_or_else(|| format!("unknown({n})").into(), |k| k.spelling().into()),
    )
}

impl<'a> TargetEngine<'a> {
    pub fn new(t: &'a Target, m: &'a Mirror) -> TargetEngine<'a> {
        TargetEngine {
            t,
            m,
            slots: Slots::default(),
            consts: t.predefined,
        }
    }

    /// The kind's NULL handle in this ABI.
    fn null(&self, k: HandleKind) -> u64 {
        k.null(&self.consts)
    }

    fn handle(&self, k: HandleKind, r: Ref) -> usize {
        self.slots
            .resolve(k, r, self.null(k), self.consts.all_handles) as usize
    }

    fn is_null(&self, k: HandleKind, v: usize) -> Out {
        Out::Handle {
            null: v as u64 == self.null(k),
        }
    }

    fn rc_obs(&self, rc: i32) -> Obs {
        Obs::rc(self.t.rc(rc))
    }

    /// `f` called through the executor's engine with `args`; `layout` names the handle
    /// a read goes through and the registration a callback is set on.
    fn invoke_with(
        &self,
        f: Func,
        args: &[(&'static str, Arg)],
        read: Option<(HandleKind, Ref)>,
        registration: Option<Ref>,
    ) -> Outs {
        let layout = OpLayout {
            slots: &self.slots,
            m: self.m,
            read,
            registration,
        };
        calls::invoke(self.t, &layout, f, &Args::List(args))
    }

    /// `f` called with `args`, no handle whose layout matters.
    fn invoke(&self, f: Func, args: &[(&'static str, Arg)]) -> Outs {
        self.invoke_with(f, args, None, None)
    }

    /// A call's outcome: "unsupported" when the symbol is missing, the code, and the OUT
    /// values `outs` adds when the call succeeded (they are undefined otherwise).
    fn answer(&self, c: Outs, outs: impl FnOnce(Obs, Vals) -> Obs) -> Obs {
        let Some((rc, v)) = c else {
            return Obs::unsupported();
        };
        let o = self.rc_obs(rc);
        if o.ok() {
            outs(o, v)
        } else {
            o
        }
    }

    /// A call whose outcome is its code alone.
    fn rc_only(&self, c: Outs) -> Obs {
        c.map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc))
    }

    fn write_bytes(&self, k: HandleKind, r: Ref, d: Data) -> Vec<u8> {
        self.slots.write_bytes(k, r, d, &self.m.catalog)
    }

    fn made(&mut self, k: HandleKind, value: usize, index: i32, count: i32) {
        self.slots.table_mut(k).push(Made {
            value: value as u64,
            index,
            count,
            last_read: Vec::new(),
        });
    }

    /// A read through `handle` (count × datatype size bytes, R-CVAR-8, or 64 for a
    /// handle the sequence did not make: see [`OpLayout`]).
    fn read(&mut self, f: Func, k: HandleKind, r: Ref, args: &[(&'static str, Arg)]) -> Obs {
        let Some((rc, v)) = self.invoke_with(f, args, Some((k, r)), None) else {
            return Obs::unsupported();
        };
        let o = self.rc_obs(rc);
        if !o.ok() {
            return o;
        }
        let b = buf_of(v);
        if let Some(m) = self.slots.made(k, r) {
            m.last_read = b.bytes.clone();
        }
        let o = o.with("value", Out::Bytes(b.bytes));
        if b.overrun {
            o.with(
                "stray",
                Out::Ints(b.stray.iter().map(|x| i64::from(*x)).collect()),
            )
        } else {
            o
        }
    }

    /// An allocation: the handle made (kept at the end of its table when the call
    /// succeeded), its NULL-ness and, for variable handles, the element count.
    fn alloc(&mut self, c: Outs, k: HandleKind, out: &'static str, index: i32) -> Obs {
        let Some((rc, v)) = c else {
            return Obs::unsupported();
        };
        let o = self.rc_obs(rc);
        if !o.ok() {
            return o;
        }
        let h = handle_of(&v, out);
        let counted = matches!(k, HandleKind::Cvar | HandleKind::Pvar);
        let count = if counted { i32_of(&v, "count") } else { 0 };
        self.made(k, h, index, count);
        let o = o.with(out, self.is_null(k, h));
        if counted {
            o.with("count", Out::Int(count.into()))
        } else {
            o
        }
    }

    /// A free: the handle as the call left it, NULL or not.
    fn free(&self, c: Outs, k: HandleKind, out: &'static str) -> Obs {
        self.answer(c, |o, v| o.with(out, self.is_null(k, handle_of(&v, out))))
    }

    fn carry_out(&mut self, op: &Op) -> Obs {
        let p = &self.t.profile;
        let ti = |k: Kind, i: i32| int_arg(self.m.target_index(k, i));
        match op {
            Op::InitThread { required } => {
                let req = p.thread_level.num(*required).unwrap_or(0) as i32;
                let c = self.invoke(Func::InitThread, &[("required", int_arg(req))]);
                self.answer(c, |o, v| {
                    let provided = i32_of(&v, "provided");
                    o.with("provided", name(&p.thread_level, provided.into()))
                })
            }
            Op::Finalize => self.rc_only(self.invoke(Func::Finalize, &[])),
            Op::GetNum(k) => {
                let f = match k {
                    Kind::Cvar => Func::CvarGetNum,
                    Kind::Pvar => Func::PvarGetNum,
                    Kind::Category => Func::CategoryGetNum,
                    Kind::Event => Func::EventGetNum,
                    Kind::Source => Func::SourceGetNum,
                };
                self.answer(self.invoke(f, &[]), |o, v| {
                    // In the mirror's numbering: entries it could not decode left out.
                    let n = i32_of(&v, "num");
                    o.with("num", Out::Int(i64::from(n - self.m.holes(*k))))
                })
            }
            Op::GetInfo {
                kind,
                index,
                name: n,
                desc,
            } => self.get_info(*kind, self.m.target_index(*kind, *index), *n, *desc),
            Op::GetIndex { kind, name: n } => {
                let f = match kind {
                    Kind::Cvar => Func::CvarGetIndex,
                    Kind::Category => Func::CategoryGetIndex,
                    _ => Func::EventGetIndex,
                };
                let c = self.invoke(f, &[("name", Arg::Text(n.clone()))]);
                self.index_obs(*kind, c)
            }
            Op::PvarGetIndex { name: n, class } => {
                let cls = p.pvar_class.num(*class).unwrap_or(-1) as i32;
                let c = self.invoke(
                    Func::PvarGetIndex,
                    &[("name", Arg::Text(n.clone())), ("var_class", int_arg(cls))],
                );
                self.index_obs(Kind::Pvar, c)
            }
            Op::CategoryMembers { index, which, len } => {
                let (f, k) = match which {
                    Members::Cvars => (Func::CategoryGetCvars, Kind::Cvar),
                    Members::Pvars => (Func::CategoryGetPvars, Kind::Pvar),
                    Members::Events => (Func::CategoryGetEvents, Kind::Event),
                    Members::Categories => (Func::CategoryGetCategories, Kind::Category),
                };
                let c = self.invoke(
                    f,
                    &[
                        ("index", ti(Kind::Category, *index)),
                        ("len", int_arg(*len)),
                    ],
                );
                self.answer(c, |o, mut v| {
                    let indices = list_of(&mut v, "indices")
                        .map(|x| {
                            let x = x as i32;
                            if x == SENTINEL {
                                i64::from(x)
                            } else {
                                i64::from(self.m.model_index(k, x))
                            }
                        })
                        .collect();
                    let o = o.with("indices", Out::Ints(indices));
                    if int(&v, "overrun") != 0 {
                        o.with("overrun", Out::Flag(true))
                    } else {
                        o
                    }
                })
            }
            Op::CategoryGetNumEvents { index } => {
                let c = self.invoke(
                    Func::CategoryGetNumEvents,
                    &[("index", ti(Kind::Category, *index))],
                );
                self.answer(c, |o, v| o.with("num", Out::Int(i32_of(&v, "num").into())))
            }
            Op::CategoryChanged => self.answer(self.invoke(Func::CategoryChanged, &[]), |o, v| {
                o.with(
                    "update_number",
                    Out::Int(i32_of(&v, "update_number").into()),
                )
            }),
            // A NULL name pair (Str::NONE) comes with a NULL `num` / `value`: every OUT
            // argument NULL, nothing to see but the return code.
            Op::EnumGetInfo { enumtype, name: n } if *n == Str::NONE => {
                let c = self.invoke(
                    Func::EnumGetInfo,
                    &[
                        ("enumtype", handle_arg(self.enum_handle(*enumtype))),
                        ("name", Arg::Str(StrArg::NULL)),
                        ("null", Arg::Nulls(vec!["num"])),
                    ],
                );
                self.answer(c, |o, _| o)
            }
            Op::EnumGetItem {
                enumtype,
                item,
                name: n,
            } if *n == Str::NONE => {
                let c = self.invoke(
                    Func::EnumGetItem,
                    &[
                        ("enumtype", handle_arg(self.enum_handle(*enumtype))),
                        ("item", int_arg(*item)),
                        ("name", Arg::Str(StrArg::NULL)),
                        ("null", Arg::Nulls(vec!["value"])),
                    ],
                );
                self.answer(c, |o, _| o)
            }
            Op::EnumGetInfo { enumtype, name: n } => {
                let c = self.invoke(
                    Func::EnumGetInfo,
                    &[
                        ("enumtype", handle_arg(self.enum_handle(*enumtype))),
                        ("name", Arg::Str(arg(*n))),
                    ],
                );
                self.answer(c, |o, mut v| {
                    o.with("num", Out::Int(i32_of(&v, "num").into()))
                        .with("name", str_of(&mut v, "name"))
                })
            }
            Op::EnumGetItem {
                enumtype,
                item,
                name: n,
            } => {
                let c = self.invoke(
                    Func::EnumGetItem,
                    &[
                        ("enumtype", handle_arg(self.enum_handle(*enumtype))),
                        ("item", int_arg(*item)),
                        ("name", Arg::Str(arg(*n))),
                    ],
                );
                self.answer(c, |o, mut v| {
                    o.with("value", Out::Int(i32_of(&v, "value").into()))
                        .with("name", str_of(&mut v, "name"))
                })
            }
            Op::CvarHandleAlloc { index } => {
                let c = self.invoke(Func::CvarHandleAlloc, &[("index", ti(Kind::Cvar, *index))]);
                self.alloc(c, HandleKind::Cvar, "handle", *index)
            }
            Op::CvarHandleFree { handle } => {
                let h = self.handle(HandleKind::Cvar, *handle);
                let c = self.invoke(Func::CvarHandleFree, &[("handle", handle_arg(h))]);
                self.free(c, HandleKind::Cvar, "handle")
            }
            Op::CvarRead { handle } => {
                let h = self.handle(HandleKind::Cvar, *handle);
                let args = [("handle", handle_arg(h))];
                self.read(Func::CvarRead, HandleKind::Cvar, *handle, &args)
            }
            Op::CvarWrite { handle, data } => {
                let h = self.handle(HandleKind::Cvar, *handle);
                let bytes = self.write_bytes(HandleKind::Cvar, *handle, *data);
                self.rc_only(self.invoke(
                    Func::CvarWrite,
                    &[("handle", handle_arg(h)), ("data", Arg::Data(bytes))],
                ))
            }
            Op::SessionCreate => {
                let c = self.invoke(Func::PvarSessionCreate, &[]);
                self.alloc(c, HandleKind::Session, "session", -1)
            }
            Op::SessionFree { session } => {
                let s = self.handle(HandleKind::Session, *session);
                let c = self.invoke(Func::PvarSessionFree, &[("session", handle_arg(s))]);
                self.free(c, HandleKind::Session, "session")
            }
            Op::PvarHandleAlloc { session, index } => {
                let s = self.handle(HandleKind::Session, *session);
                let c = self.invoke(
                    Func::PvarHandleAlloc,
                    &[
                        ("session", handle_arg(s)),
                        ("index", ti(Kind::Pvar, *index)),
                    ],
                );
                self.alloc(c, HandleKind::Pvar, "handle", *index)
            }
            Op::PvarHandleFree { session, handle } => {
                let c = self.invoke(Func::PvarHandleFree, &self.pvar_args(*session, *handle));
                self.free(c, HandleKind::Pvar, "handle")
            }
            Op::Pvar {
                act,
                session,
                handle,
            } => {
                let f = match act {
                    Act::Start => Func::PvarStart,
                    Act::Stop => Func::PvarStop,
                    Act::Reset => Func::PvarReset,
                };
                self.rc_only(self.invoke(f, &self.pvar_args(*session, *handle)))
            }
            Op::PvarRead {
                session,
                handle,
                reset,
            } => {
                let f = if *reset {
                    Func::PvarReadreset
                } else {
                    Func::PvarRead
                };
                let args = self.pvar_args(*session, *handle);
                self.read(f, HandleKind::Pvar, *handle, &args)
            }
            Op::PvarWrite {
                session,
                handle,
                data,
            } => {
                let [s, h] = self.pvar_args(*session, *handle);
                let bytes = self.write_bytes(HandleKind::Pvar, *handle, *data);
                self.rc_only(self.invoke(Func::PvarWrite, &[s, h, ("data", Arg::Data(bytes))]))
            }
            Op::SourceGetTimestamp { index } => self.rc_only(self.invoke(
                Func::SourceGetTimestamp,
                &[("index", ti(Kind::Source, *index))],
            )),
            Op::EventHandleAlloc { index } => {
                let info = self.consts.info_null;
                let c = self.invoke(
                    Func::EventHandleAlloc,
                    &[
                        ("index", ti(Kind::Event, *index)),
                        ("info", handle_arg(info as usize)),
                    ],
                );
                self.alloc(c, HandleKind::Registration, "registration", *index)
            }
            Op::EventHandleFree { registration } => {
                let r = self.handle(HandleKind::Registration, *registration);
                self.rc_only(self.invoke(
                    Func::EventHandleFree,
                    &[
                        ("registration", handle_arg(r)),
                        ("free_callback", Arg::Flag(false)),
                    ],
                ))
            }
            Op::Simulate { steps } => {
                self.rc_only(self.invoke(Func::Simulate, &[("steps", int_arg(*steps))]))
            }
            Op::MpiInit => self.rc_only(self.invoke(Func::MpiInit, &[])),
            Op::EventInfoObject { index } => {
                let c = self.invoke(
                    Func::EventGetInfoObject,
                    &[("index", ti(Kind::Event, *index))],
                );
                let Some((rc, v)) = c else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                let info = int(&v, "info") as u64;
                let null = self.consts.info_null;
                // Freed again only in the reference (its catalog is declared): whether
                // a vendor's MPI_Info_free works before MPI_Init is not this op's
                // question, and a worker's leak is harmless.
                if info != null && (self.m.declared || self.m.hooks) {
                    let _ = self.invoke(Func::InfoFree, &[("info", handle_arg(info as usize))]);
                }
                o.with("info", Out::Handle { null: info == null })
            }
            Op::EventRegisterCallback {
                registration,
                safety,
                set,
            } => {
                let r = self.handle(HandleKind::Registration, *registration);
                let tag = callback_tag(*registration, *safety);
                let level = p.cb_safety.num(*safety).unwrap_or(-1) as i32;
                let info = self.consts.info_null;
                let args = vec![
                    ("registration", handle_arg(r)),
                    ("cb_safety", int_arg(level)),
                    ("info", handle_arg(info as usize)),
                    // With `callback`, the recorder, reading the event type's elements
                    // by `OpLayout::element_sizes`.
                    ("callback", Arg::Flag(*set)),
                    ("tag", Arg::Int(tag as i64)),
                ];
                let c = self.invoke_with(
                    Func::EventRegisterCallback,
                    &args,
                    None,
                    Some(*registration),
                );
                self.rc_only(c)
            }
            Op::EventSetDroppedHandler { registration, set } => {
                let r = self.handle(HandleKind::Registration, *registration);
                self.rc_only(self.invoke(
                    Func::EventSetDroppedHandler,
                    &[
                        ("registration", handle_arg(r)),
                        ("handler", Arg::Flag(*set)),
                    ],
                ))
            }
            Op::RaiseEvent { index, required } => self.raise_event(*index, *required),
            Op::EventReadAfter { instance } => {
                let i = self.handle(HandleKind::Instance, Ref::Made(*instance));
                self.rc_only(self.invoke(
                    Func::EventRead,
                    &[
                        ("instance", handle_arg(i)),
                        ("element", int_arg(0)),
                        ("bytes", int_arg(16)),
                    ],
                ))
            }
        }
    }

    /// The (session, handle) arguments of a pvar call.
    fn pvar_args(&self, session: Ref, handle: Ref) -> [(&'static str, Arg); 2] {
        let s = self.handle(HandleKind::Session, session);
        let h = self.handle(HandleKind::Pvar, handle);
        [("session", handle_arg(s)), ("handle", handle_arg(h))]
    }

    fn enum_handle(&self, n: u16) -> usize {
        self.slots.enums.get(n as usize).copied().unwrap_or(0) as usize
    }

    fn index_obs(&self, k: Kind, c: Outs) -> Obs {
        self.answer(c, |o, v| {
            let i = i32_of(&v, "index");
            o.with("index", Out::Int(self.m.model_index(k, i).into()))
        })
    }
}
