//! The target engine: calls carried out on a loaded library through the case
//! executor's engine (`exec::calls::invoke`, the safe wrappers of `target::ffi`),
//! outputs decoded with the target's ABI profile into [`Obs`] form and renumbered into
//! the mirror's numbering. Runs in a worker process (`remote`) or, for the in-process
//! fuzzer, in the fuzzer's own process.
//!
//! It names no function: each call comes as the generator made it, a call of the
//! table (`op::Call`), and each argument is resolved here by what it is (`A`): a handle the
//! sequence made, an index in the target's numbering, a string pair, a spec constant
//! as the ABI's number, the bytes a write passes, the OUT arguments passed as NULL.
//! The named OUT values come back as `Func::outs` names them and become the call's
//! [`Obs`] by what both engines observe of it (`Sees`). What a call needs of the
//! catalog (read sizes, an event type's element sizes) is `lower::OpLayout`'s, from
//! the handles the sequence made and the mirror's catalog.
//!
//! This module holds the engine, its handles, and the calls whose outputs are a code,
//! a handle, a value read or an index; two larger outcomes have a module each:
//!
//! - `info`: `*_get_info` of each kind, every OUT argument decoded (MPI-4.1 §15.3.6
//!   to §15.3.9);
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
use super::op::{Call, Data, Sees, Str, A};
use super::{HandleKind, Made, Mirror, Ref, Slots};
use crate::exec::calls::{self, Arg, Args, Outs};
use lower::{buf_of, handle_arg, handle_of, i32_of, int, int_arg, list_of, str_of, OpLayout, Vals};
use mpit_spec::cases::funcs::{Func, Param};
use mpit_target::ffi::{self, StrArg};
use mpit_target::{Predefined, Target};
use mpit_vocab::profile::ConstMap;
use mpit_vocab::spec::SpecEnum;

/// Sentinel pre-filled into category member arrays (R-CAT-1: unwritten entries stay).
/// The executor's `category_get_*` passes the same (`exec::calls`).
pub const SENTINEL: i32 = -7;

impl Engine for TargetEngine<'_> {
    /// Carries out one call, naming it as the call in flight (a crash then names it).
    fn call(&mut self, c: &Call) -> Obs {
        if ffi::in_flight::installed() {
            ffi::in_flight::set_fmt(format_args!("{c}"));
        }
        let o = self.carry_out(c);
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
        cap: s.cap().map(|c| c as usize),
        len: s.len_in(),
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
    /// handle the sequence did not make: see [`OpLayout`]), kept as the handle's last.
    fn read(&mut self, c: Outs, k: HandleKind, r: Ref) -> Obs {
        let Some((rc, v)) = c else {
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

    /// The call of the function table: its arguments lowered,
    /// the call made through the executor's engine, what both engines observe of its
    /// OUT arguments read back.
    fn carry_out(&mut self, c: &Call) -> Obs {
        if let Sees::Raise(_) = c.sees {
            // Anything a callback recorded before (a library thread) is not this event's.
            events::forget_deliveries();
        }
        let args = self.lower(c);
        let read = match c.sees {
            Sees::Read(k, r) => Some((k, r)),
            _ => None,
        };
        // The registration a callback is set on (its event type's elements).
        let registration = c.args.iter().find_map(|(_, a)| match a {
            A::Handle(HandleKind::Registration, r) => Some(*r),
            _ => None,
        });
        let outs = self.invoke_with(c.func, &args, read, registration);
        self.observe(c, outs)
    }

    /// One argument in the target's terms: its numbering, its handles, its ABI's numbers.
    fn arg(&self, a: &A) -> Arg {
        let p = &self.t.profile;
        match *a {
            A::Index(k, i) => int_arg(self.m.target_index(k, i)),
            A::Handle(k, r) => handle_arg(self.handle(k, r)),
            A::Enumtype(n) => handle_arg(self.enum_handle(n)),
            A::Str(s) => Arg::Str(arg(s)),
            A::Text(ref t) => Arg::Text(t.to_string()),
            A::Level(l) => int_arg(p.thread_level.num(l).unwrap_or(0) as i32),
            A::Class(c) => int_arg(p.pvar_class.num(c).unwrap_or(-1) as i32),
            A::Safety(s) => int_arg(p.cb_safety.num(s).unwrap_or(-1) as i32),
            A::Data(k, r, d) => Arg::Data(self.write_bytes(k, r, d)),
            A::Int(i) => Arg::Int(i),
            A::Flag(b) => Arg::Flag(b),
            A::InfoNull => handle_arg(self.consts.info_null as usize),
        }
    }

    /// The call's arguments as `calls::invoke` takes them. With `null_outs`, every
    /// nullable OUT argument (`Func::nullable_outs`) not passed with a buffer is NULL,
    /// a string pair among them as two NULL pointers (R-CVAR-3), as the executor's
    /// last round of `for_all: null_outs` passes them.
    fn lower(&self, c: &Call) -> Vec<(&'static str, Arg)> {
        let mut out: Vec<(&'static str, Arg)> = c
            .args
            .iter()
            .chain(&c.implied())
            .map(|(p, a)| (c.param_name(*p), self.arg(a)))
            .collect();
        if c.null_outs {
            let sized = |n: &str| {
                c.named_args()
                    .any(|(x, a)| x == n && matches!(a, A::Str(s) if *s != Str::NONE))
            };
            let nulls: Vec<&'static str> = c
                .func
                .nullable_outs()
                .iter()
                .copied()
                .filter(|n| !sized(n))
                .collect();
            for n in &nulls {
                let string = c.func.param(n) == Some(Param::Str);
                if string && !out.iter().any(|(x, _)| x == n) {
                    out.push((n, Arg::Str(StrArg::NULL)));
                }
            }
            out.push(("null", Arg::Nulls(nulls)));
        }
        out
    }

    /// What both engines observe of the call's OUT arguments ([`Sees`]).
    fn observe(&mut self, c: &Call, outs: Outs) -> Obs {
        let p = &self.t.profile;
        match c.sees {
            Sees::Code => self.rc_only(outs),
            Sees::Provided => self.answer(outs, |o, v| {
                let provided = i32_of(&v, "provided");
                o.with("provided", name(&p.thread_level, provided.into()))
            }),
            Sees::Count(k) => self.answer(outs, |o, v| {
                // In the mirror's numbering: entries it could not decode left out.
                let n = i32_of(&v, "num");
                o.with("num", Out::Int(i64::from(n - self.m.holes(k))))
            }),
            Sees::Index(k) => self.answer(outs, |o, v| {
                let i = i32_of(&v, "index");
                o.with("index", Out::Int(self.m.model_index(k, i).into()))
            }),
            Sees::Members(k) => self.answer(outs, |o, mut v| {
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
            }),
            Sees::Int(out) => {
                self.answer(outs, |o, v| o.with(out, Out::Int(i32_of(&v, out).into())))
            }
            Sees::Update => self.answer(outs, |o, v| {
                o.with(
                    "update_number",
                    Out::Int(i32_of(&v, "update_number").into()),
                )
            }),
            Sees::Named(out) => self.answer(outs, |o, mut v| {
                o.with(out, Out::Int(i32_of(&v, out).into()))
                    .with("name", str_of(&mut v, "name"))
            }),
            Sees::NameOnly => self.answer(outs, |o, mut v| o.with("name", str_of(&mut v, "name"))),
            Sees::Info(k) => self.info(k, outs),
            Sees::Alloc { kind, index } => self.alloc(outs, kind, c.handle_out(), index),
            Sees::Free { kind } => self.free(outs, kind, c.handle_out()),
            Sees::Read(k, r) => self.read(outs, k, r),
            Sees::InfoObject => self.info_object(outs),
            Sees::Raise(index) => self.delivered(outs, index),
        }
    }

    /// A new info object (never MPI_INFO_NULL, R-EVT-INFO): NULL or not.
    fn info_object(&self, outs: Outs) -> Obs {
        let Some((rc, v)) = outs else {
            return Obs::unsupported();
        };
        let o = self.rc_obs(rc);
        if !o.ok() {
            return o;
        }
        let info = int(&v, "info") as u64;
        let null = self.consts.info_null;
        // Freed again only in the reference (its catalog is declared): whether a
        // vendor's MPI_Info_free works before MPI_Init is not this op's question, and a
        // worker's leak is harmless.
        if info != null && (self.m.declared || self.m.hooks) {
            let _ = self.invoke(Func::InfoFree, &[("info", handle_arg(info as usize))]);
        }
        o.with("info", Out::Handle { null: info == null })
    }

    fn enum_handle(&self, n: u16) -> usize {
        self.slots.enums.get(n as usize).copied().unwrap_or(0) as usize
    }
}
