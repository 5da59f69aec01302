//! The target engine: ops carried out on a loaded library through the safe wrappers of
//! `target::ffi`, outputs decoded with the target's ABI profile into [`Obs`] form and
//! renumbered into the mirror's numbering. Runs in a worker process (`remote`) or, for
//! the in-process fuzzer, in the fuzzer's own process.
//!
//! This module holds the engine, its handles, and the calls whose outputs are a code,
//! a handle, a value read or an index; two larger calls have a module each:
//!
//! - `info`: `*_get_info` of each kind, every OUT argument decoded (MPI-4.1 §15.3.6
//!   to §15.3.9), or the name alone with every other OUT argument NULL;
//! - `events`: the reference's raised events and the callbacks the recorder saw run
//!   (§15.3.8), and what a callback reads.

mod events;
mod info;

use super::obs::{Obs, Out, StrObs};
use super::op::{callback_tag, Act, Data, Kind, Op, Str};
use super::{HandleKind, Made, Mirror, Ref, Slots};
use crate::target::ffi::{self, Called, Nulls, ObjArg, StrArg, StrOut};
use crate::target::Target;
use mpit_reference::model::Members;
use mpit_reference::profile::ConstMap;
use mpit_reference::spec::SpecEnum;

/// Sentinel pre-filled into category member arrays (R-CAT-1: unwritten entries stay).
pub const SENTINEL: i32 = -7;

/// A loaded library and the handles this sequence made in it.
pub struct TargetEngine<'a> {
    t: &'a Target,
    m: &'a Mirror,
    slots: Slots,
}

fn arg(s: Str) -> StrArg {
    StrArg {
        cap: s.cap.map(|c| c as usize),
        len: s.len,
    }
}

fn str_out(o: &StrOut) -> Out {
    Out::Str(StrObs {
        buf: o.buf.clone(),
        len: o.len,
        stray: o.stray.clone(),
    })
}

fn name<K: SpecEnum>(table: &ConstMap<K, Option<i64>>, n: i64) -> Out {
    Out::Name(
        table
            .lookup(n)
            .map_or(format!("unknown({n})"), |k| k.spelling().to_string()),
    )
}

impl<'a> TargetEngine<'a> {
    pub fn new(t: &'a Target, m: &'a Mirror) -> TargetEngine<'a> {
        TargetEngine {
            t,
            m,
            slots: Slots::default(),
        }
    }

    fn constant(&self, n: &str) -> u64 {
        self.t.handles.get(n).copied().unwrap_or(0)
    }

    /// The kind's NULL handle in this ABI.
    fn null(&self, k: HandleKind) -> u64 {
        self.constant(match k {
            HandleKind::Cvar => "MPI_T_CVAR_HANDLE_NULL",
            HandleKind::Session => "MPI_T_PVAR_SESSION_NULL",
            HandleKind::Pvar => "MPI_T_PVAR_HANDLE_NULL",
            HandleKind::Registration => "MPI_T_EVENT_REGISTRATION_NULL",
            HandleKind::Instance => "MPI_T_EVENT_INSTANCE_NULL",
        })
    }

    fn handle(&self, k: HandleKind, r: Ref) -> usize {
        let all = self.constant("MPI_T_PVAR_ALL_HANDLES");
        self.slots.resolve(k, r, self.null(k), all) as usize
    }

    fn is_null(&self, k: HandleKind, v: usize) -> Out {
        Out::Handle {
            null: v as u64 == self.null(k),
        }
    }

    fn rc_obs(&self, rc: i32) -> Obs {
        Obs::rc(self.t.rc(rc))
    }

    /// A call's outcome: "unsupported" when the symbol is missing, the code, and the OUT
    /// values `outs` adds when the call succeeded (they are undefined otherwise).
    fn answer<T>(&self, c: Called<T>, outs: impl FnOnce(Obs, T) -> Obs) -> Obs {
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

    /// Bytes a read through this handle needs: count × datatype size (R-CVAR-8).
    /// ALL_HANDLES or a handle the sequence did not make: a generous buffer, so a
    /// library that writes anyway writes into memory the harness owns.
    fn read_size(&self, k: HandleKind, r: Ref) -> usize {
        self.slots
            .layout(k, r, &self.m.catalog)
            .map_or(64, |(dt, n)| dt.size() * n)
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

    fn read_obs(&mut self, k: HandleKind, r: Ref, c: Called<ffi::BufOut>) -> Obs {
        let Some((rc, b)) = c else {
            return Obs::unsupported();
        };
        let o = self.rc_obs(rc);
        if !o.ok() {
            return o;
        }
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

    /// Carries out one op, naming it as the call in flight (a crash then names it).
    pub fn apply(&mut self, op: &Op) -> Obs {
        if ffi::in_flight::installed() {
            ffi::in_flight::set_fmt(format_args!("{}({op:?})", op.function()));
        }
        let o = self.call(op);
        ffi::in_flight::set(None);
        o
    }

    fn call(&mut self, op: &Op) -> Obs {
        let (t, p) = (self.t, &self.t.profile);
        let lib = &t.lib;
        let ti = |k: Kind, i: i32| self.m.target_index(k, i);
        match op {
            Op::InitThread { required } => {
                let req = p.thread_level.num(*required).unwrap_or(0) as i32;
                self.answer(lib.init_thread(req), |o, provided| {
                    o.with("provided", name(&p.thread_level, provided.into()))
                })
            }
            Op::Finalize => lib
                .finalize()
                .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc)),
            Op::GetNum(k) => {
                let c = match k {
                    Kind::Cvar => lib.cvar_get_num(),
                    Kind::Pvar => lib.pvar_get_num(),
                    Kind::Category => lib.category_get_num(),
                    Kind::Event => lib.event_get_num(),
                    Kind::Source => lib.source_get_num(),
                };
                self.answer(c, |o, n| {
                    // In the mirror's numbering: entries it could not decode left out.
                    o.with("num", Out::Int(i64::from(n - self.m.holes(*k))))
                })
            }
            Op::GetInfo {
                kind,
                index,
                name: n,
                desc,
            } => self.get_info(*kind, ti(*kind, *index), *n, *desc),
            Op::GetIndex { kind, name: n } => {
                let c = match kind {
                    Kind::Cvar => lib.cvar_get_index(n),
                    Kind::Category => lib.category_get_index(n),
                    _ => lib.event_get_index(n),
                };
                self.index_obs(*kind, c)
            }
            Op::PvarGetIndex { name: n, class } => {
                let cls = p.pvar_class.num(*class).unwrap_or(-1) as i32;
                self.index_obs(Kind::Pvar, lib.pvar_get_index(n, cls))
            }
            Op::CategoryMembers { index, which, len } => {
                let c = lib.category_members_guarded(
                    *which,
                    ti(Kind::Category, *index),
                    usize::from(*len),
                    SENTINEL,
                );
                let Some((rc, (v, overrun))) = c else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                let k = match which {
                    Members::Cvars => Kind::Cvar,
                    Members::Pvars => Kind::Pvar,
                    Members::Events => Kind::Event,
                    Members::Categories => Kind::Category,
                };
                let v = v
                    .into_iter()
                    .map(|x| {
                        if x == SENTINEL {
                            i64::from(x)
                        } else {
                            i64::from(self.m.model_index(k, x))
                        }
                    })
                    .collect();
                let o = o.with("indices", Out::Ints(v));
                if overrun {
                    o.with("overrun", Out::Flag(true))
                } else {
                    o
                }
            }
            Op::CategoryGetNumEvents { index } => self.answer(
                lib.category_get_num_events(ti(Kind::Category, *index)),
                |o, n| o.with("num", Out::Int(n.into())),
            ),
            Op::CategoryChanged => self.answer(lib.category_changed(), |o, n| {
                o.with("update_number", Out::Int(n.into()))
            }),
            // A NULL name pair (Str::NONE) comes with a NULL `num` / `value`: every OUT
            // argument NULL, nothing to see but the return code.
            Op::EnumGetInfo { enumtype, name: n } if *n == Str::NONE => {
                let h = self.enum_handle(*enumtype);
                self.answer(
                    lib.enum_get_info_nulls(h, StrArg::NULL, Nulls(&["num"])),
                    |o, _| o,
                )
            }
            Op::EnumGetItem {
                enumtype,
                item,
                name: n,
            } if *n == Str::NONE => {
                let h = self.enum_handle(*enumtype);
                self.answer(
                    lib.enum_get_item_nulls(h, *item, StrArg::NULL, Nulls(&["value"])),
                    |o, _| o,
                )
            }
            Op::EnumGetInfo { enumtype, name: n } => {
                let h = self.enum_handle(*enumtype);
                self.answer(lib.enum_get_info(h, arg(*n)), |o, (num, s)| {
                    o.with("num", Out::Int(num.into()))
                        .with("name", str_out(&s))
                })
            }
            Op::EnumGetItem {
                enumtype,
                item,
                name: n,
            } => {
                let h = self.enum_handle(*enumtype);
                self.answer(lib.enum_get_item(h, *item, arg(*n)), |o, (value, s)| {
                    o.with("value", Out::Int(value.into()))
                        .with("name", str_out(&s))
                })
            }
            Op::CvarHandleAlloc { index } => {
                let Some((rc, (h, count))) =
                    lib.cvar_handle_alloc(ti(Kind::Cvar, *index), ObjArg::Null)
                else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                self.made(HandleKind::Cvar, h, *index, count);
                o.with("handle", self.is_null(HandleKind::Cvar, h))
                    .with("count", Out::Int(count.into()))
            }
            Op::CvarHandleFree { handle } => {
                let h = self.handle(HandleKind::Cvar, *handle);
                self.answer(lib.cvar_handle_free(h), |o, after| {
                    o.with("handle", self.is_null(HandleKind::Cvar, after))
                })
            }
            Op::CvarRead { handle } => {
                let h = self.handle(HandleKind::Cvar, *handle);
                let c = lib.cvar_read(h, self.read_size(HandleKind::Cvar, *handle));
                self.read_obs(HandleKind::Cvar, *handle, c)
            }
            Op::CvarWrite { handle, data } => {
                let h = self.handle(HandleKind::Cvar, *handle);
                let bytes = self.write_bytes(HandleKind::Cvar, *handle, *data);
                lib.cvar_write(h, &bytes)
                    .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc))
            }
            Op::SessionCreate => {
                let Some((rc, s)) = lib.pvar_session_create() else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                self.made(HandleKind::Session, s, -1, 0);
                o.with("session", self.is_null(HandleKind::Session, s))
            }
            Op::SessionFree { session } => {
                let s = self.handle(HandleKind::Session, *session);
                self.answer(lib.pvar_session_free(s), |o, after| {
                    o.with("session", self.is_null(HandleKind::Session, after))
                })
            }
            Op::PvarHandleAlloc { session, index } => {
                let s = self.handle(HandleKind::Session, *session);
                let Some((rc, (h, count))) =
                    lib.pvar_handle_alloc(s, ti(Kind::Pvar, *index), ObjArg::Null)
                else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                self.made(HandleKind::Pvar, h, *index, count);
                o.with("handle", self.is_null(HandleKind::Pvar, h))
                    .with("count", Out::Int(count.into()))
            }
            Op::PvarHandleFree { session, handle } => {
                let s = self.handle(HandleKind::Session, *session);
                let h = self.handle(HandleKind::Pvar, *handle);
                self.answer(lib.pvar_handle_free(s, h), |o, after| {
                    o.with("handle", self.is_null(HandleKind::Pvar, after))
                })
            }
            Op::Pvar {
                act,
                session,
                handle,
            } => {
                let s = self.handle(HandleKind::Session, *session);
                let h = self.handle(HandleKind::Pvar, *handle);
                let c = match act {
                    Act::Start => lib.pvar_start(s, h),
                    Act::Stop => lib.pvar_stop(s, h),
                    Act::Reset => lib.pvar_reset(s, h),
                };
                c.map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc))
            }
            Op::PvarRead {
                session,
                handle,
                reset,
            } => {
                let s = self.handle(HandleKind::Session, *session);
                let h = self.handle(HandleKind::Pvar, *handle);
                let n = self.read_size(HandleKind::Pvar, *handle);
                let c = if *reset {
                    lib.pvar_readreset(s, h, n)
                } else {
                    lib.pvar_read(s, h, n)
                };
                self.read_obs(HandleKind::Pvar, *handle, c)
            }
            Op::PvarWrite {
                session,
                handle,
                data,
            } => {
                let s = self.handle(HandleKind::Session, *session);
                let h = self.handle(HandleKind::Pvar, *handle);
                let bytes = self.write_bytes(HandleKind::Pvar, *handle, *data);
                lib.pvar_write(s, h, &bytes)
                    .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc))
            }
            Op::SourceGetTimestamp { index } => lib
                .source_get_timestamp(ti(Kind::Source, *index))
                .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc)),
            Op::EventHandleAlloc { index } => {
                let info = self.constant("MPI_INFO_NULL");
                let Some((rc, r)) =
                    lib.event_handle_alloc(ti(Kind::Event, *index), ObjArg::Null, info)
                else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                self.made(HandleKind::Registration, r, *index, 0);
                o.with("registration", self.is_null(HandleKind::Registration, r))
            }
            Op::EventHandleFree { registration } => {
                let r = self.handle(HandleKind::Registration, *registration);
                lib.event_handle_free(r, false)
                    .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc))
            }
            Op::Simulate { steps } => lib
                .reference_simulate(i32::from(*steps))
                .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc)),
            Op::MpiInit => lib
                .mpi_init()
                .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc)),
            Op::EventInfoObject { index } => {
                let Some((rc, info)) = lib.event_get_info_object(ti(Kind::Event, *index)) else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                let null = self.constant("MPI_INFO_NULL");
                // Freed again only in the reference (its catalog is declared): whether
                // a vendor's MPI_Info_free works before MPI_Init is not this op's
                // question, and a worker's leak is harmless.
                if info != null && (self.m.declared || self.m.hooks) {
                    let _ = lib.info_free(info);
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
                let index = self
                    .slots
                    .made(HandleKind::Registration, *registration)
                    .map_or(-1, |m| m.index);
                let recording = set.then(|| ffi::Recording {
                    tag,
                    element_sizes: self.element_sizes(index),
                });
                let level = self.t.profile.cb_safety.num(*safety).unwrap_or(-1) as i32;
                let info = self.constant("MPI_INFO_NULL");
                lib.event_register_callback(r, level, info, recording)
                    .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc))
            }
            Op::EventSetDroppedHandler { registration, set } => {
                let r = self.handle(HandleKind::Registration, *registration);
                lib.event_set_dropped_handler(r, *set)
                    .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc))
            }
            Op::RaiseEvent { index, required } => self.raise_event(*index, *required),
            Op::EventReadAfter { instance } => {
                let i = self.handle(HandleKind::Instance, Ref::Made(*instance));
                lib.event_read(i, 0, 16)
                    .map_or_else(Obs::unsupported, |(rc, _)| self.rc_obs(rc))
            }
        }
    }

    fn enum_handle(&self, n: u16) -> usize {
        self.slots.enums.get(n as usize).copied().unwrap_or(0) as usize
    }

    fn index_obs(&self, k: Kind, c: Called<i32>) -> Obs {
        self.answer(c, |o, i| {
            o.with("index", Out::Int(self.m.model_index(k, i).into()))
        })
    }
}
