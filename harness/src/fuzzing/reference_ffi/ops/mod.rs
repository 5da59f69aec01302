//! One input's run: the handles it holds, each decoded call's arguments resolved
//! against them and made through the case executor's engine (`exec::calls::invoke`),
//! and the checks after it (`checks`; see the module docs of `reference_ffi`).

mod checks;
mod deliveries;

use super::input::{Call, Gen, Idx, Konst, Name, Obj, H, S};
use super::roles::{Plan, Pool, Range, Role, LIVE};
use super::Fixture;
use crate::exec::calls::{self, Arg, Args, Layout};
use crate::judge::value::Val;
use mpit_spec::kind::Kind;
use mpit_target::ffi::{self, BufOut, StrArg};

/// A data buffer for a handle the run does not hold: room for any variable of the
/// default catalog, so a reference that wrongly accepts the handle is caught by the
/// checks (a write past `need`) rather than by the guard page.
const UNKNOWN_BUF: usize = 64;
/// The largest data buffer made (a count the library returns is not trusted further).
const MAX_BUF: usize = 1 << 20;
/// The recorder tag of a registration the run does not hold (no element is read).
const NO_TAG: usize = 1 << 20;

/// What one input holds. Its storage is kept by the fixture from input to input (each
/// run starts with every vector cleared): an input is a few microseconds, and growing
/// these vectors anew for each one was a measurable part of that.
#[derive(Default)]
pub(super) struct Held {
    /// Live cvar handles with count × datatype size.
    cvars: Vec<(u64, usize)>,
    sessions: Vec<u64>,
    /// Live pvar handles: (session, handle, count × datatype size).
    pvars: Vec<(u64, u64, usize)>,
    /// Event registrations with their event index.
    regs: Vec<(u64, usize)>,
    infos: Vec<u64>,
    enums: Vec<u64>,
    /// Event instances seen in callbacks (stale once the callback returned).
    instances: Vec<u64>,
    /// Handles freed by this input.
    freed: Vec<u64>,
    freed_cvars: Vec<u64>,
    /// The arguments of the call being made (storage reused from call to call).
    args: Vec<(&'static str, Arg)>,
    /// The handles `finish` frees, copied out of their pool.
    live: Vec<u64>,
}

impl Held {
    fn clear(&mut self) {
        self.cvars.clear();
        self.sessions.clear();
        self.pvars.clear();
        self.regs.clear();
        self.infos.clear();
        self.enums.clear();
        self.instances.clear();
        self.freed.clear();
        self.freed_cvars.clear();
        self.args.clear();
        self.live.clear();
    }
}

/// One input's run.
pub(super) struct Run<'a> {
    f: &'a Fixture,
    /// `MPI_T_init_thread` calls of this input that succeeded and are not finalized.
    inits: u32,
    h: Held,
}

fn pick(v: &[u64], k: u8) -> u64 {
    if v.is_empty() {
        0
    } else {
        v[k as usize % v.len()]
    }
}

/// The string argument an [`S`] stands for.
fn str_arg(s: S) -> StrArg {
    match s {
        S::Sized(n) => StrArg::sized(n as usize),
        S::Roomy { cap, n } => StrArg {
            cap: Some(cap as usize),
            len: Some((n % cap.saturating_add(1).max(1)) as i32),
        },
        S::NullBuf(n) => StrArg {
            cap: None,
            len: Some(n as i32),
        },
        S::NonPositive(n) => StrArg {
            cap: Some(8),
            len: Some(-(n as i32).abs()),
        },
        S::NullLen(buf) => StrArg {
            cap: buf.then_some(8),
            len: None,
        },
    }
}

/// The value of the handle argument at `at` (handles travel as `Arg::Int`, as in the
/// case language).
fn handle_at(args: &[(&'static str, Arg)], at: Option<usize>) -> Option<u64> {
    match args.get(at?) {
        Some((_, Arg::Int(v))) => Some(*v as u64),
        _ => None,
    }
}

/// A handle OUT value.
fn out_handle(v: Option<&Val>) -> Option<u64> {
    v.and_then(Val::int).map(|v| v as u64)
}

/// What a call needs of the handles the run holds: a read's buffer (count × datatype
/// size plus the call's slack, or [`UNKNOWN_BUF`] plus slack for a handle it does not
/// hold) and a registration's element sizes for the recorder.
struct Pools<'r, 'a> {
    run: &'r Run<'a>,
    kind: Option<Kind>,
    slack: u8,
}

impl Layout for Pools<'_, '_> {
    fn read_bytes(&self, handle: u64) -> Option<usize> {
        let s = self.slack as usize;
        Some(match self.run.need(self.kind, handle) {
            Some(n) => n + s % 9,
            None => UNKNOWN_BUF + s % UNKNOWN_BUF,
        })
    }

    fn decode(&self, _: u64, _: &BufOut) -> Option<Val> {
        None
    }

    fn element_sizes(&self, registration: u64) -> Vec<usize> {
        self.run
            .event_of(registration)
            .and_then(|i| self.run.f.event_elems.get(i).cloned())
            .unwrap_or_default()
    }

    fn event_of(&self, registration: u64) -> Option<i32> {
        self.run.event_of(registration).map(|i| i as i32)
    }
}

impl<'a> Run<'a> {
    /// A run starting from nothing held, in `h`'s storage.
    pub(super) fn new(f: &'a Fixture, mut h: Held) -> Self {
        h.clear();
        Run { f, inits: 0, h }
    }

    /// How many handles pool `p` holds (for `None`, the pools of [`LIVE`] one
    /// after the other).
    fn pool_len(&self, p: Option<Pool>) -> usize {
        match p {
            Some(Pool::Cvar) => self.h.cvars.len(),
            Some(Pool::Session) => self.h.sessions.len(),
            Some(Pool::Pvar) => self.h.pvars.len(),
            Some(Pool::Registration) => self.h.regs.len(),
            Some(Pool::Info) => self.h.infos.len(),
            Some(Pool::Enumtype) => self.h.enums.len(),
            Some(Pool::Instance) => self.h.instances.len(),
            None => LIVE.iter().map(|q| self.pool_len(Some(*q))).sum(),
        }
    }

    /// The `i`-th handle of pool `p` (`i < pool_len(p)`), in the order of
    /// [`Run::pool_len`]. Read in place: copying a pool out for each handle argument
    /// was a large part of the oracle's allocations.
    fn pool_at(&self, p: Option<Pool>, i: usize) -> u64 {
        match p {
            Some(Pool::Cvar) => self.h.cvars[i].0,
            Some(Pool::Session) => self.h.sessions[i],
            Some(Pool::Pvar) => self.h.pvars[i].1,
            Some(Pool::Registration) => self.h.regs[i].0,
            Some(Pool::Info) => self.h.infos[i],
            Some(Pool::Enumtype) => self.h.enums[i],
            Some(Pool::Instance) => self.h.instances[i],
            None => {
                let mut i = i;
                for q in LIVE {
                    let n = self.pool_len(Some(q));
                    if i < n {
                        return self.pool_at(Some(q), i);
                    }
                    i -= n;
                }
                0
            }
        }
    }

    /// The `k`-th handle of pool `p` (wrapping), 0 when it is empty.
    fn pick_in(&self, p: Option<Pool>, k: u8) -> u64 {
        match self.pool_len(p) {
            0 => 0,
            n => self.pool_at(p, k as usize % n),
        }
    }

    fn h(&self, h: H, p: Option<Pool>) -> u64 {
        match h {
            H::Zero => 0,
            H::One => 1,
            H::Small(k) => k as u64,
            H::Typed(k) => self.pick_in(p, k),
            H::Live(k, delta) => self.pick_in(None, k).wrapping_add_signed(delta as i64),
            H::Freed(k) => {
                // Most recent first: `Freed(0)` right after a free is the handle just
                // freed (zero bytes are what mutations produce most). The stale handles
                // are the freed ones then the instances, counted from the end.
                let (freed, n) = (
                    self.h.freed.len(),
                    self.h.freed.len() + self.h.instances.len(),
                );
                match n {
                    0 => 0,
                    _ => match n - 1 - k as usize % n {
                        i if i < freed => self.h.freed[i],
                        i => self.h.instances[i - freed],
                    },
                }
            }
            H::Predefined(k) => pick(&self.f.predefined, k),
            H::Any(v) => v,
        }
    }

    fn count(&self, r: Range) -> usize {
        match r {
            Range::Of(k) => self.f.names[k.index()].len(),
            Range::Upto(n) => n,
        }
    }

    fn idx(&self, i: Idx, r: Range) -> i64 {
        match i {
            Idx::In(k) => (k as usize % (self.count(r) + 2)) as i64,
            Idx::Any(v) => v.into(),
        }
    }

    fn konst(k: Konst, table: &[i64]) -> i64 {
        match k {
            Konst::Known(i) => table[i as usize % table.len()],
            Konst::Any(v) => v.into(),
        }
    }

    fn name(&self, kind: Kind, n: &Name) -> String {
        let names = &self.f.names[kind.index()];
        let real = |k: u8| names.get(k as usize % names.len().max(1)).cloned();
        match n {
            Name::Real(k) => real(*k).unwrap_or_default(),
            Name::Mangled(k, at) => {
                // The `at`-th character (of the name's characters, wrapping) cut there
                // or replaced by 'X', in place (no list of the characters).
                let mut s = real(*k).unwrap_or_default();
                let len = s.chars().count();
                let at = *at as usize % len.max(1);
                if let Some((i, c)) = s.char_indices().nth(at) {
                    if at % 2 == 0 {
                        s.truncate(i);
                    } else {
                        s.replace_range(i..i + c.len_utf8(), "X");
                    }
                }
                s
            }
            Name::Any(s) => s.clone(),
        }
    }

    /// Bytes the variable behind `h` has (count × datatype size), when the run holds
    /// `h` as a handle of the kind the call is about.
    fn need(&self, kind: Option<Kind>, h: u64) -> Option<usize> {
        match kind? {
            Kind::Cvar => self.h.cvars.iter().find(|c| c.0 == h).map(|c| c.1),
            Kind::Pvar => self.h.pvars.iter().find(|p| p.1 == h).map(|p| p.2),
            _ => None,
        }
    }

    fn event_of(&self, registration: u64) -> Option<usize> {
        self.h
            .regs
            .iter()
            .find(|r| r.0 == registration)
            .map(|r| r.1)
    }

    /// The arguments of `c` into `out` (cleared first), its decoded values resolved
    /// against what the run holds; strings and bytes are moved out of `c`.
    fn resolve(&self, c: Call, out: &mut Vec<(&'static str, Arg)>) {
        let plan = c.plan;
        out.clear();
        for ((name, role), g) in plan.params.iter().zip(c.gens.iter_mut()) {
            let a = match (role, g) {
                (Role::Handle(p), Gen::Handle(h)) => Arg::Int(self.h(*h, *p) as i64),
                (Role::Index(r), Gen::Index(i)) => Arg::Int(self.idx(*i, *r)),
                (Role::Const(t), Gen::Const(k)) => Arg::Int(Self::konst(*k, self.f.table(*t))),
                (Role::Size { base, modulo }, Gen::Byte(b)) => Arg::Int(base + *b as i64 % modulo),
                (Role::Steps, Gen::Signed(s)) => Arg::Int(*s as i64 % 16),
                // The recorder reads each element with its size: the event's own sizes
                // for a registration the run holds, none for any other value.
                (Role::Tag, _) => Arg::Int(
                    handle_at(out, plan.registration)
                        .and_then(|r| self.event_of(r))
                        .unwrap_or(NO_TAG) as i64,
                ),
                (Role::Name(k), Gen::Name(n)) => Arg::Text(self.name(*k, n)),
                (_, Gen::Text(t)) => Arg::Text(std::mem::take(t)),
                (_, Gen::Str(s)) => Arg::Str(str_arg(*s)),
                (_, Gen::Obj(Obj::Null)) => Arg::Obj(None),
                (_, Gen::Obj(Obj::Holding(h))) => Arg::Obj(Some(self.h(*h, Some(Pool::Info)))),
                // Exactly the variable's size when the run holds the handle.
                (_, Gen::Data(d)) => {
                    let mut d = std::mem::take(d);
                    let h = handle_at(out, plan.handle);
                    if let Some(n) = h.and_then(|h| self.need(plan.kind, h)) {
                        d.resize(n, 0);
                    }
                    Arg::Data(d)
                }
                (_, Gen::Flag(b)) => Arg::Flag(*b),
                _ => Arg::Int(0),
            };
            out.push((name, a));
        }
    }

    /// Makes one decoded call. A call that would end an initialization this input did
    /// not make is not made: the fixture's must stay (R-INIT-1, R-FIN-1).
    pub(super) fn exec(&mut self, c: Call) {
        if c.plan.f.depth() < 0 && self.inits == 0 {
            return;
        }
        let (plan, slack) = (c.plan, c.slack);
        let mut args = std::mem::take(&mut self.h.args);
        self.resolve(c, &mut args);
        self.call(plan, &args, slack);
        self.h.args = args;
    }

    /// The plan's function with `args` through the engine, then every check; whether it
    /// succeeded.
    fn call(&mut self, plan: &Plan, args: &[(&'static str, Arg)], slack: u8) -> bool {
        let layout = Pools {
            run: self,
            kind: plan.kind,
            slack,
        };
        let outs = calls::invoke(&self.f.target, &layout, plan.f, &Args::List(args));
        let Some((rc, outs)) = outs else {
            return false;
        };
        self.after(plan, args, rc, &outs)
    }

    /// Frees what the input still holds and finalizes its own inits, so the next input
    /// starts from the fixture's state. Freeing a handle the run holds must work where
    /// the free has a rule (R-CVAR-7, R-SESS-1, R-EVT-FREE). Gives back the storage.
    pub(super) fn finish(mut self) -> Held {
        let fx = self.f;
        // Registrations first (their callbacks go), sessions with their pvar handles.
        for pool in [Pool::Registration, Pool::Session, Pool::Cvar, Pool::Info] {
            let free = fx
                .frees
                .iter()
                .find(|p| p.frees.is_some_and(|x| x.pool == pool));
            let Some((plan, param)) = free.and_then(|p| Some((p, p.frees?.param))) else {
                continue;
            };
            let mut live = std::mem::take(&mut self.h.live);
            live.clear();
            live.extend((0..self.pool_len(Some(pool))).map(|i| self.pool_at(Some(pool), i)));
            let mut args = std::mem::take(&mut self.h.args);
            for &v in &live {
                // The handle, and no to every flag (`free_callback`).
                let arg = |n: &str| match n == param {
                    true => Arg::Int(v as i64),
                    false => Arg::Flag(false),
                };
                args.clear();
                args.extend(plan.params.iter().map(|(n, _)| (*n, arg(n))));
                let ok = self.call(plan, &args, 0);
                if let Some(rule) = plan.f.rule().filter(|_| !ok) {
                    panic!(
                        "{rule}: {} of the live handle {v:#x} failed",
                        plan.f.c_name()
                    );
                }
            }
            self.h.args = args;
            self.h.live = live;
        }
        while self.inits > 0 {
            let Some(fin) = &fx.ends_init else { break };
            if !self.call(fin, &[], 0) {
                break;
            }
        }
        self.check_deliveries();
        // The recorder keeps these until drained; nothing about them is judged here.
        ffi::take_dropped();
        ffi::take_dropped_positions();
        ffi::take_freed();
        self.h
    }
}
