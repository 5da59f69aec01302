//! The capability probe, in the worker (the only process that loads vendor code): the
//! calls behind the states of `capabilities::derive`, each kept as evidence. Three
//! phases, each sent when it is over ([`Step`]):
//!
//! 1. exports: `dlsym` of each of the 20 MPI-4.0 MPI_T functions in the loaded library;
//! 2. sources (§15.3.8.1): `MPI_T_source_get_num`, `_get_info` of each source, then
//!    `MPI_T_source_get_timestamp` of each twice, [`TICK_WAIT`] apart;
//! 3. events (§15.3.8.2-4): `MPI_T_event_get_num`, `_get_info` of each event type, a
//!    registration with the harness's recording callback for each type not bound to an
//!    object (one bound to an object needs one, which the probe does not have), then
//!    something to fire them: MPI work after `MPI_Init` (the `activity` step's), and
//!    on a library that exports the reference's `MPIT_Reference_raise_event` hook,
//!    that hook. The evidence names which one delivered the first callback.
//!
//! Every call is announced first (`calling`), so a crash or hang is pinned on it and the
//! supervisor still writes the report (state `unknown`, with the death as evidence).

use crate::exec::resolve_constant;
use mpit_report::capabilities::{Num, Seen, Step, MPI4_FUNCTIONS};
use mpit_spec::verdict::Evidence;
use mpit_target::activity::Plan;
use mpit_target::ffi::{self, ObjArg, RawHandle, Recording, StrArg};
use mpit_target::Target;
use mpit_vocab::profile::ReturnCode;
use serde_json::{json, Value as Json};

/// One evidence entry.
fn ev(call: String, args: Json, rc: Option<String>, out: Json) -> Evidence {
    Evidence {
        call,
        args: args.into(),
        rc,
        out: out.into(),
        expected: None,
    }
}
use std::time::Duration;

/// At most this many sources and event types are probed (the known catalogs have 2).
const MAX_ENTRIES: i32 = 64;
/// Evidence entries kept per capability; the rest are counted in a last entry.
const MAX_EVIDENCE: usize = 40;
/// Between the two timestamp reads of a source: long enough for a clock of 1 kHz.
pub const TICK_WAIT: Duration = Duration::from_millis(20);
/// After the MPI work, for callbacks a library delivers from a thread of its own.
const SETTLE: Duration = Duration::from_millis(50);
/// The recorder tags of the probe's registrations: this plus the event index.
const TAG_BASE: usize = 0x7100_0000;

/// The calls of one phase, as evidence.
struct Calls<'a> {
    t: &'a Target,
    calling: &'a dyn Fn(&str),
    kept: Vec<Evidence>,
    dropped: usize,
}

impl<'a> Calls<'a> {
    fn new(t: &'a Target, calling: &'a dyn Fn(&str)) -> Self {
        Calls {
            t,
            calling,
            kept: Vec::new(),
            dropped: 0,
        }
    }

    /// Announces `call` (so a death is pinned on it), makes it, and keeps it as
    /// evidence with its return code and `out(value)`. `None`: not exported.
    fn call<T>(
        &mut self,
        call: &str,
        args: Json,
        f: impl FnOnce() -> ffi::Called<T>,
        out: impl FnOnce(&T) -> Json,
    ) -> Option<(bool, T)> {
        (self.calling)(call);
        let (rc, v) = f()?;
        let code = self.t.rc(rc);
        let ok = code == ReturnCode::Success;
        let name = call.split('(').next().unwrap_or(call).to_string();
        self.note(ev(name, args, Some(code.to_string()), out(&v)));
        Some((ok, v))
    }

    fn note(&mut self, e: Evidence) {
        if self.kept.len() < MAX_EVIDENCE {
            self.kept.push(e);
        } else {
            self.dropped += 1;
        }
    }

    fn done(mut self, num: Option<Num>, alive: Option<String>) -> Seen {
        if self.dropped > 0 {
            let more = format!("({} more calls, not kept)", self.dropped);
            self.kept.push(ev(more, Json::Null, None, Json::Null));
        }
        Seen {
            num,
            alive,
            calls: self.kept,
        }
    }

    /// `*_get_num` through `f`.
    fn num(&mut self, name: &str, f: impl FnOnce() -> ffi::Called<i32>) -> Option<Num> {
        (self.calling)(name);
        let (rc, n) = f()?;
        let code = self.t.rc(rc);
        let out = json!({ "num": n });
        self.note(ev(name.into(), Json::Null, Some(code.to_string()), out));
        Some(Num {
            rc: code.to_string(),
            ok: code == ReturnCode::Success,
            value: i64::from(n),
        })
    }
}

/// Runs the three phases; `step` sends each, `calling` announces each call.
pub fn run(t: &Target, step: &dyn Fn(Step), calling: &dyn Fn(&str)) {
    step(Step::Exports(
        MPI4_FUNCTIONS
            .iter()
            .map(|f| (f.to_string(), t.lib.exports(f)))
            .collect(),
    ));
    step(Step::Sources(sources(t, calling)));
    step(Step::Events(events(t, calling)));
}

fn name_of(o: &ffi::StrOut) -> String {
    o.text().unwrap_or_default()
}

fn sources(t: &Target, calling: &dyn Fn(&str)) -> Seen {
    let mut c = Calls::new(t, calling);
    let lib = &t.lib;
    let num = c.num("MPI_T_source_get_num", || lib.source_get_num());
    let n = match &num {
        Some(Num {
            ok: true, value, ..
        }) => (*value).clamp(0, i64::from(MAX_ENTRIES)) as i32,
        _ => return c.done(num, None),
    };
    let mut names = Vec::new();
    for i in 0..n {
        let info = c.call(
            &format!("MPI_T_source_get_info({i})"),
            json!({ "source_index": i }),
            || lib.source_get_info(i, StrArg::sized(256), StrArg::LEN_ONLY),
            |o| {
                json!({ "name": name_of(&o.name), "ordering": o.ordering,
                        "ticks_per_second": o.ticks_per_second, "max_ticks": o.max_ticks })
            },
        );
        names.push(info.map(|(_, o)| name_of(&o.name)).unwrap_or_default());
    }
    // §15.3.8.1: MPI_T_source_get_timestamp returns MPI_SUCCESS with the source's
    // current time, or MPI_T_ERR_NOT_SUPPORTED when the source takes no ad-hoc stamps.
    let stamp = |c: &mut Calls, i: i32| {
        c.call(
            &format!("MPI_T_source_get_timestamp({i})"),
            json!({ "source_index": i }),
            || lib.source_get_timestamp(i),
            |v| json!({ "timestamp": v }),
        )
        .and_then(|(ok, v)| ok.then_some(v))
    };
    let first: Vec<Option<i64>> = (0..n).map(|i| stamp(&mut c, i)).collect();
    std::thread::sleep(TICK_WAIT);
    let mut alive = None;
    for i in 0..n {
        let later = stamp(&mut c, i);
        if let (Some(a), Some(b), None) = (first[i as usize], later, &alive) {
            if b > a {
                alive = Some(format!(
                    "source {i} {}: MPI_T_source_get_timestamp went from {a} to {b} over {} ms",
                    names[i as usize],
                    TICK_WAIT.as_millis()
                ));
            }
        }
    }
    c.done(num, alive)
}

/// A registration the probe made: event index, name, handle.
struct Registered {
    index: i32,
    name: String,
    reg: RawHandle,
}

fn events(t: &Target, calling: &dyn Fn(&str)) -> Seen {
    let mut c = Calls::new(t, calling);
    let lib = &t.lib;
    let num = c.num("MPI_T_event_get_num", || lib.event_get_num());
    let n = match &num {
        Some(Num {
            ok: true, value, ..
        }) => (*value).clamp(0, i64::from(MAX_ENTRIES)) as i32,
        _ => return c.done(num, None),
    };
    let constant = |name: &str| resolve_constant(t, name).ok();
    let (Some(no_object), Some(none), Some(info_null)) = (
        constant("MPI_T_BIND_NO_OBJECT"),
        constant("MPI_T_CB_REQUIRE_NONE"),
        constant("MPI_INFO_NULL"),
    ) else {
        return c.done(num, None);
    };
    let mut regs: Vec<Registered> = Vec::new();
    for i in 0..n {
        let Some((true, info)) = c.call(
            &format!("MPI_T_event_get_info({i})"),
            json!({ "event_index": i }),
            || lib.event_get_info(i, StrArg::sized(256), StrArg::LEN_ONLY, 32),
            |o| json!({ "name": name_of(&o.name), "bind": o.bind, "num_elements": o.num_elements }),
        ) else {
            continue;
        };
        // §15.3.8.4: an event bound to an MPI object needs that object's handle to
        // register for; the probe registers only the ones bound to no object.
        if i64::from(info.bind) != no_object {
            continue;
        }
        let Some((true, reg)) = c.call(
            &format!("MPI_T_event_handle_alloc({i})"),
            json!({ "event_index": i, "obj_handle": "NULL", "info": "MPI_INFO_NULL" }),
            || lib.event_handle_alloc(i, ObjArg::Null, info_null as u64),
            |r| json!({ "event_registration": r }),
        ) else {
            continue;
        };
        let count = usize::try_from(info.num_elements).unwrap_or(0);
        let sizes = info
            .datatypes
            .iter()
            .take(count)
            .map(|d| t.datatype(*d).map_or(8, |d| d.size()))
            .collect();
        let recording = Recording {
            tag: TAG_BASE + i as usize,
            element_sizes: sizes,
        };
        let registered = c.call(
            &format!("MPI_T_event_register_callback({i})"),
            json!({ "event_index": i, "cb_safety": "MPI_T_CB_REQUIRE_NONE" }),
            || lib.event_register_callback(reg, none as i32, info_null as u64, Some(recording)),
            |_| Json::Null,
        );
        let name = name_of(&info.name);
        if matches!(registered, Some((true, _))) {
            regs.push(Registered {
                index: i,
                name,
                reg,
            });
        } else {
            free(&mut c, i, reg);
        }
    }
    if regs.is_empty() {
        return c.done(num, None);
    }
    let _stale = ffi::take_deliveries();
    let mut alive = mpi_work(&mut c, t, &regs);
    if alive.is_none() && lib.exports("MPIT_Reference_raise_event") {
        for r in &regs {
            let i = r.index;
            c.call(
                &format!("MPIT_Reference_raise_event({i})"),
                json!({ "event_index": i, "required": "MPI_T_CB_REQUIRE_NONE" }),
                || lib.reference_raise_event(i, none as i32),
                |_| Json::Null,
            );
        }
        alive = fired(
            &mut c,
            &regs,
            "raised through MPIT_Reference_raise_event (the reference's test hook)",
        );
    }
    for r in &regs {
        free(&mut c, r.index, r.reg);
    }
    c.done(num, alive)
}

fn free(c: &mut Calls, i: i32, reg: RawHandle) {
    let lib = &c.t.lib;
    c.call(
        &format!("MPI_T_event_handle_free({i})"),
        json!({ "event_index": i, "free_cb_function": "NULL" }),
        || lib.event_handle_free(reg, false),
        |_| Json::Null,
    );
}

/// MPI work (MPI_Init first when MPI is not initialized), then the deliveries it
/// caused. MPI_Init after MPI_T_init_thread is allowed (§15.3.4: the tool interface can
/// be initialized before MPI); the probe's process ends right after, so MPI is
/// finalized here.
fn mpi_work(c: &mut Calls, t: &Target, regs: &[Registered]) -> Option<String> {
    let lib = &t.lib;
    let mut inited = false;
    if lib.exports("MPI_Init") && matches!(lib.initialized(), Some((_, false))) {
        inited = matches!(
            c.call("MPI_Init", Json::Null, || lib.mpi_init(), |_| Json::Null),
            Some((true, _))
        );
    }
    let plan = Plan {
        messages: 4,
        unexpected: 2,
        collectives: 2,
        comms: 2,
        sessions: 2,
        ..Plan::default()
    };
    (c.calling)("the activity step's MPI work");
    let done = t.activity(&plan);
    let args =
        json!({ "messages": 4, "unexpected": 2, "collectives": 2, "comms": 2, "sessions": 2 });
    let out = match &done {
        Some(d) => json!({ "calls_succeeded": d.calls,
                           "first_failure": d.failed.map(|(f, rc)| format!("{f} returned {rc}")) }),
        None => json!({ "calls_succeeded": 0, "note": "the library can do none of it" }),
    };
    c.note(ev("activity".into(), args, None, out));
    std::thread::sleep(SETTLE);
    let alive = fired(c, regs, "during MPI work (the activity step's)");
    if inited {
        c.call(
            "MPI_Finalize",
            Json::Null,
            || lib.mpi_finalize(),
            |_| Json::Null,
        );
    }
    alive
}

/// The deliveries recorded since the last drain, as evidence, and the first one
/// described (`how`: what raised it).
fn fired(c: &mut Calls, regs: &[Registered], how: &str) -> Option<String> {
    let got = ffi::take_deliveries();
    let ours: Vec<(&Registered, &ffi::Delivery)> = got
        .iter()
        .filter_map(|d| {
            let r = regs.iter().find(|r| TAG_BASE + r.index as usize == d.tag)?;
            Some((r, d))
        })
        .collect();
    let per_event: Vec<Json> = regs
        .iter()
        .map(|r| {
            let n = ours.iter().filter(|(x, _)| x.index == r.index).count();
            json!({ "event_index": r.index, "name": r.name, "callbacks": n })
        })
        .collect();
    let out = json!({ "count": ours.len(), "events": per_event });
    c.note(ev("deliveries".into(), json!({ "after": how }), None, out));
    let (r, d) = ours.first()?;
    let types = regs
        .iter()
        .filter(|x| ours.iter().any(|(y, _)| y.index == x.index))
        .count();
    let source = match d.source {
        Some((0, s)) => format!(" from source {s}"),
        _ => String::new(),
    };
    Some(format!(
        "{} callback(s) delivered for {types} of the {} event types registered, {how}; \
         the first: event {} {}{source}",
        ours.len(),
        regs.len(),
        r.index,
        r.name
    ))
}
