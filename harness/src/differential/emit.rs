//! A failing sequence written out as a YAML case of `specs/` (the format of
//! specs/README.md), so `mpit-conform run --case-file it.yaml --lib PATH` replays it
//! deterministically: the same calls in the same order, the model's return codes as
//! the expectations, and the diverging call's outputs as far as the case language says
//! them. Indices are the target's; the entry of the diverging call is the case's subject
//! (`for_each` + `where: {name}`), so the strings are judged against it and a library
//! without that entry skips the case.

use super::compare::Divergence;
use super::gen::Gen;
use super::obs::{Obs, Out};
use super::op::{callback_tag, members_word, Act, Data, Kind, Op, Ref};
use super::props::{run_model, Found};
use super::Mirror;
use crate::verdict::Level;
use mpit_reference::profile::ReturnCode;
use mpit_reference::spec::TErr;
use std::fmt::Write;

/// YAML double-quoted scalar.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn level_word(l: Level) -> &'static str {
    match l {
        Level::Must => "must",
        Level::Should => "should",
        Level::Robustness => "robustness",
    }
}

/// The catalog entry an op names, if any.
fn entry(op: &Op) -> Option<(Kind, i32)> {
    match op {
        Op::GetInfo { kind, index, .. } => Some((*kind, *index)),
        Op::CvarHandleAlloc { index } => Some((Kind::Cvar, *index)),
        Op::PvarHandleAlloc { index, .. } => Some((Kind::Pvar, *index)),
        Op::EventHandleAlloc { index } => Some((Kind::Event, *index)),
        Op::CategoryMembers { index, .. } | Op::CategoryGetNumEvents { index } => {
            Some((Kind::Category, *index))
        }
        Op::SourceGetTimestamp { index } => Some((Kind::Source, *index)),
        _ => None,
    }
}

/// The catalog entry the call at `step` is about: the one it names by index, or the
/// one its handle was allocated for (so a read's subject is the variable read).
fn entry_at(start: &Gen, run: &[Op], step: usize) -> Option<(Kind, i32)> {
    let op = run.get(step)?;
    if let Some(e) = entry(op) {
        return Some(e);
    }
    let mut g = start.clone();
    for o in &run[..step] {
        g.apply(o);
    }
    let (kind, table, r) = match op {
        Op::PvarRead { handle, .. }
        | Op::PvarWrite { handle, .. }
        | Op::Pvar { handle, .. }
        | Op::PvarHandleFree { handle, .. } => (Kind::Pvar, &g.pvar_handles, *handle),
        Op::CvarRead { handle } | Op::CvarWrite { handle, .. } | Op::CvarHandleFree { handle } => {
            (Kind::Cvar, &g.cvar_handles, *handle)
        }
        Op::EventHandleFree { registration }
        | Op::EventRegisterCallback { registration, .. }
        | Op::EventSetDroppedHandler { registration, .. } => {
            (Kind::Event, &g.registrations, *registration)
        }
        _ => return None,
    };
    match r {
        Ref::Made(n) => table.get(usize::from(n)).map(|l| (kind, l.index)),
        _ => None,
    }
}

fn rc_name(rc: &ReturnCode) -> String {
    match rc {
        ReturnCode::Success => "MPI_SUCCESS".into(),
        ReturnCode::T(e) => e.spelling().into(),
        other => other.to_string(),
    }
}

/// What a call may return, as the comparator accepts it (specs/return-codes.yaml).
/// The `rc:` of a step: the codes the comparator accepts there
/// (`compare::accepted`, which asks the policy of specs/return-codes.yaml), `None` when
/// it accepts every code (the text is silent).
fn rc_expect(g: &Gen, op: &Op, m: &Obs) -> Option<String> {
    let codes = super::compare::accepted(g, op, m);
    if codes.len() > TErr::ALL.len() {
        return None;
    }
    Some(match codes.as_slice() {
        [one] => rc_name(one),
        _ => format!(
            "[{}]",
            codes.iter().map(rc_name).collect::<Vec<_>>().join(", ")
        ),
    })
}

struct Writer<'a> {
    m: &'a Mirror,
    subject: Option<(Kind, i32)>,
    out: String,
    made: [usize; 4],
    /// Per raised event: the number of the first instance it delivered and how many
    /// (the model's), so `EventReadAfter` finds the `deliveries` list saved with it.
    raises: Vec<(u16, u16)>,
    /// `category_changed` calls so far (their numbers are saved as `$u0`, `$u1`, ...).
    updates: usize,
    /// A `for_all:` for the step being written (set by `call`).
    for_all: Option<String>,
    /// The subject's index is passed as the number (the divergence is that this
    /// index names another entry than the subject, found by name).
    literal: bool,
    /// MPI_T is initialized at the step being written (an entry can be looked up).
    init: bool,
    /// Entries other than the subject, looked up by name (`$x0`, `$x1`, ...): an index
    /// is the library's own numbering, a name is the same on every library.
    looked_up: Vec<((Kind, i32), String)>,
    /// The `*_get_index` steps to write before the step being written.
    lookups: String,
}

/// `key: value` pairs of a step's `args:` or `save:`.
type Pairs = Vec<(String, String)>;

const PREFIX: [&str; 4] = ["c", "s", "p", "r"];

impl Writer<'_> {
    fn index(&mut self, k: Kind, i: i32) -> String {
        if self.subject == Some((k, i)) && !self.literal {
            return "$index".into();
        }
        if let Some((_, v)) = self.looked_up.iter().find(|(e, _)| *e == (k, i)) {
            return format!("${v}");
        }
        let n = self.m.count(k);
        if let (Some(call), true) = (self.get_index(k, i), self.init && (0..n).contains(&i)) {
            let v = format!("x{}", self.looked_up.len());
            let _ = writeln!(self.lookups, "      - call: {call}");
            let _ = writeln!(self.lookups, "        save: {{{v}: index}}");
            let _ = writeln!(self.lookups, "        expect:\n          rc: MPI_SUCCESS");
            self.looked_up.push(((k, i), v.clone()));
            return format!("${v}");
        }
        if i >= n {
            let num = match k {
                Kind::Cvar => "num_cvars",
                Kind::Pvar => "num_pvars",
                Kind::Category => "num_categories",
                Kind::Event => "num_events",
                Kind::Source => "num_sources",
            };
            return format!("${num} + {}", i - n);
        }
        self.m.target_index(k, i).to_string()
    }

    /// The `*_get_index` call (and its `args:` line) that finds entry `i` by name;
    /// none for sources, which have no get_index.
    fn get_index(&self, k: Kind, i: i32) -> Option<String> {
        let name = quoted(self.m.name(k, usize::try_from(i).ok()?)?);
        match k {
            Kind::Source => None,
            Kind::Pvar => self.m.catalog.pvars.get(i as usize).map(|p| {
                format!(
                    "pvar_get_index\n        args: {{name: {name}, var_class: MPI_T_PVAR_CLASS_{}}}",
                    p.class.spelling()
                )
            }),
            k => Some(format!("{}_get_index\n        args: {{name: {name}}}", k.word())),
        }
    }

    fn handle(r: Ref, table: usize, null: &str) -> String {
        match r {
            Ref::Made(n) => format!("${}{n}", PREFIX[table]),
            Ref::Null => null.into(),
            Ref::All => "MPI_T_PVAR_ALL_HANDLES".into(),
            Ref::Foreign(n) => format!("${}{n}", PREFIX[if table == 0 { 2 } else { 0 }]),
        }
    }

    fn size(s: super::op::Str) -> String {
        match (s.cap, s.len) {
            (None, _) => "null_buf".into(),
            (Some(_), None) => "null_len".into(),
            (Some(c), Some(_)) => c.to_string(),
        }
    }

    /// `call`, `args` and `save` of one op.
    fn call(&mut self, op: &Op, m: &Obs) -> (String, Pairs, Pairs) {
        let mut args: Vec<(String, String)> = Vec::new();
        let mut save = Vec::new();
        let mut a = |k: &str, v: String| args.push((k.to_string(), v));
        let sess = |r: Ref| Self::handle(r, 1, "MPI_T_PVAR_SESSION_NULL");
        let pv = |r: Ref| Self::handle(r, 2, "MPI_T_PVAR_HANDLE_NULL");
        // MPI-4.1 names no NULL registration constant; the case language writes 0.
        let reg = |r: Ref| Self::handle(r, 3, "0");
        let name = match op {
            Op::InitThread { required } => {
                a("required", required.spelling().into());
                "init_thread".into()
            }
            Op::Finalize => "finalize".into(),
            Op::GetNum(k) => format!("{}_get_num", k.word()),
            Op::GetInfo {
                kind,
                index,
                name,
                desc,
            } => {
                a("index", self.index(*kind, *index));
                a("name", Self::size(*name));
                if *desc == super::op::Str::NONE && matches!(kind, Kind::Event | Kind::Source) {
                    // No `*_name_only` in the case language for these: each OUT
                    // argument NULL in turn, then all of them.
                    self.for_all = Some("null_outs".into());
                    format!("{}_get_info", kind.word())
                } else if *desc == super::op::Str::NONE {
                    format!("{}_get_info_name_only", kind.word())
                } else {
                    a("desc", Self::size(*desc));
                    format!("{}_get_info", kind.word())
                }
            }
            Op::GetIndex { kind, name } => {
                a("name", quoted(name));
                format!("{}_get_index", kind.word())
            }
            Op::PvarGetIndex { name, class } => {
                a("name", quoted(name));
                a(
                    "var_class",
                    format!("MPI_T_PVAR_CLASS_{}", class.spelling()),
                );
                "pvar_get_index".into()
            }
            Op::CategoryMembers { index, which, len } => {
                a("index", self.index(Kind::Category, *index));
                a("len", len.to_string());
                format!("category_get_{}", members_word(*which))
            }
            Op::CategoryGetNumEvents { index } => {
                a("index", self.index(Kind::Category, *index));
                "category_get_num_events".into()
            }
            Op::CategoryChanged => {
                if m.ok() {
                    save.push((format!("u{}", self.updates), "update_number".into()));
                    self.updates += 1;
                }
                "category_changed".into()
            }
            Op::EnumGetInfo { enumtype, name } => {
                a("enumtype", format!("$e{enumtype}"));
                if *name == super::op::Str::NONE {
                    self.for_all = Some("null_outs".into());
                } else {
                    a("name", Self::size(*name));
                }
                "enum_get_info".into()
            }
            Op::EnumGetItem {
                enumtype,
                item,
                name,
            } => {
                a("enumtype", format!("$e{enumtype}"));
                a("item", item.to_string());
                if *name == super::op::Str::NONE {
                    self.for_all = Some("null_outs".into());
                } else {
                    a("name", Self::size(*name));
                }
                "enum_get_item".into()
            }
            Op::CvarHandleAlloc { index } => {
                a("index", self.index(Kind::Cvar, *index));
                if m.ok() {
                    save.push((format!("c{}", self.made[0]), "handle".into()));
                    self.made[0] += 1;
                }
                "cvar_handle_alloc".into()
            }
            Op::CvarHandleFree { handle } => {
                a("handle", Self::handle(*handle, 0, "MPI_T_CVAR_HANDLE_NULL"));
                "cvar_handle_free".into()
            }
            Op::CvarRead { handle } => {
                a("handle", Self::handle(*handle, 0, "MPI_T_CVAR_HANDLE_NULL"));
                if let Ref::Made(n) = handle {
                    save.push((format!("vc{n}"), "bytes".into()));
                }
                "cvar_read".into()
            }
            Op::CvarWrite { handle, data } => {
                a("handle", Self::handle(*handle, 0, "MPI_T_CVAR_HANDLE_NULL"));
                a("data", Self::data(*handle, *data, "vc"));
                "cvar_write".into()
            }
            Op::SessionCreate => {
                if m.ok() {
                    save.push((format!("s{}", self.made[1]), "session".into()));
                    self.made[1] += 1;
                }
                "pvar_session_create".into()
            }
            Op::SessionFree { session } => {
                a("session", sess(*session));
                "pvar_session_free".into()
            }
            Op::PvarHandleAlloc { session, index } => {
                a("session", sess(*session));
                a("index", self.index(Kind::Pvar, *index));
                if m.ok() {
                    save.push((format!("p{}", self.made[2]), "handle".into()));
                    self.made[2] += 1;
                }
                "pvar_handle_alloc".into()
            }
            Op::PvarHandleFree { session, handle } => {
                a("session", sess(*session));
                a("handle", pv(*handle));
                "pvar_handle_free".into()
            }
            Op::Pvar {
                act,
                session,
                handle,
            } => {
                a("session", sess(*session));
                a("handle", pv(*handle));
                match act {
                    Act::Start => "pvar_start",
                    Act::Stop => "pvar_stop",
                    Act::Reset => "pvar_reset",
                }
                .into()
            }
            Op::PvarRead {
                session,
                handle,
                reset,
            } => {
                a("session", sess(*session));
                a("handle", pv(*handle));
                if let Ref::Made(n) = handle {
                    save.push((format!("vp{n}"), "bytes".into()));
                    // The number, for a relation with a later read (relations.rs).
                    save.push((format!("vv{n}"), "value".into()));
                }
                if *reset {
                    "pvar_readreset"
                } else {
                    "pvar_read"
                }
                .into()
            }
            Op::PvarWrite {
                session,
                handle,
                data,
            } => {
                a("session", sess(*session));
                a("handle", pv(*handle));
                a("data", Self::data(*handle, *data, "vp"));
                "pvar_write".into()
            }
            Op::SourceGetTimestamp { index } => {
                a("index", self.index(Kind::Source, *index));
                "source_get_timestamp".into()
            }
            Op::EventHandleAlloc { index } => {
                a("index", self.index(Kind::Event, *index));
                if m.ok() {
                    save.push((format!("r{}", self.made[3]), "registration".into()));
                    self.made[3] += 1;
                }
                "event_handle_alloc".into()
            }
            Op::EventHandleFree { registration } => {
                a("registration", Self::handle(*registration, 3, "0"));
                "event_handle_free".into()
            }
            Op::Simulate { steps } => {
                a("steps", steps.to_string());
                "simulate".into()
            }
            Op::MpiInit => "mpi_init".into(),
            Op::EventInfoObject { index } => {
                a("index", self.index(Kind::Event, *index));
                "event_get_info_object".into()
            }
            Op::EventRegisterCallback {
                registration,
                safety,
                set,
            } => {
                a("registration", reg(*registration));
                a(
                    "cb_safety",
                    format!("MPI_T_CB_REQUIRE_{}", safety.spelling()),
                );
                a("info", "MPI_INFO_NULL".into());
                a("callback", u8::from(*set).to_string());
                a("tag", callback_tag(*registration, *safety).to_string());
                "event_register_callback".into()
            }
            Op::EventSetDroppedHandler { registration, set } => {
                a("registration", reg(*registration));
                a("handler", u8::from(*set).to_string());
                "event_set_dropped_handler".into()
            }
            Op::RaiseEvent { index, required } => {
                a("index", self.index(Kind::Event, *index));
                a(
                    "cb_safety",
                    format!("MPI_T_CB_REQUIRE_{}", required.spelling()),
                );
                let first = self.raises.last().map_or(0, |(f, n)| f + n);
                let n = match m.out("count") {
                    Some(Out::Int(n)) => *n as u16,
                    _ => 0,
                };
                self.raises.push((first, n));
                "raise_event".into()
            }
            Op::EventReadAfter { instance } => {
                // The list of instances saved after the raise that delivered this one:
                // every instance in it is stale alike.
                let k = self
                    .raises
                    .iter()
                    .position(|(f, n)| (*f..f + n).contains(instance))
                    .unwrap_or(0);
                self.for_all = Some(format!("$i{k}"));
                a("instance", "$item".into());
                a("element", "0".into());
                a("bytes", "16".into());
                "event_read".into()
            }
        };
        (name, args, save)
    }

    fn data(h: Ref, d: Data, prefix: &str) -> String {
        match (d, h) {
            (Data::Int(n), _) => n.to_string(),
            (Data::Readback, Ref::Made(n)) => format!("${prefix}{n}"),
            (Data::Readback, _) => "0".into(),
        }
    }
}

/// How a case written for a divergence asks a true pvar flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FlagTrue {
    /// `1`, as R-PVAR-2 states it (specs/readings.yaml pvar_flags.nonzero_is_true).
    One,
    /// `{ne: 0}`, a C logical flag (the other reading).
    Nonzero,
}

/// The diverging call's outputs as `out:` predicates and string checks.
/// `flags`: how a true pvar flag is written: `1`, or `{ne: 0}` for the other reading of
/// R-PVAR-2 (specs/readings.yaml pvar_flags.nonzero_is_true).
fn out_expect(
    op: &Op,
    m: &Obs,
    w: &Writer<'_>,
    d: &Divergence,
    g: &Gen,
    flags: FlagTrue,
) -> Vec<String> {
    // Written as `for_all: null_outs` (every OUT NULL in turn): no OUT value is there in
    // every iteration, so only the return code is asked.
    let none = super::op::Str::NONE;
    match op {
        Op::EnumGetInfo { name, .. } | Op::EnumGetItem { name, .. } if *name == none => {
            return Vec::new()
        }
        Op::GetInfo {
            kind: Kind::Event | Kind::Source,
            desc,
            ..
        } if *desc == none => return Vec::new(),
        _ => {}
    }
    let mut lines = Vec::new();
    let mut out = Vec::new();
    let subject_step = entry(op).is_some() && entry(op) == w.subject;
    for (name, o) in &m.outs {
        // A divergence of the string convention: the entry's other OUT values are one
        // release's catalog, not the standard, so the case does not assert them.
        if d.convention && matches!(op, Op::GetInfo { .. }) && !matches!(o, Out::Str(_)) {
            continue;
        }
        // `*_get_info_name_only` returns the name alone.
        if matches!(op, Op::GetInfo { desc, .. } if *desc == super::op::Str::NONE) && name != "name"
        {
            continue;
        }
        match o {
            Out::Str(_) if subject_step && matches!(op, Op::GetInfo { .. }) => {
                lines.push(format!("{name}: truncated"))
            }
            // R-CAT: the number is the library's own; it never decreases.
            Out::Int(_) if name == "update_number" && w.updates >= 2 => out.push(format!(
                "{name}: {{{}: $u{}}}",
                d.relation.as_deref().unwrap_or("ge"),
                w.updates - 2
            )),
            Out::Int(_) if name == "update_number" => {}
            // The recorder's calls inside the callbacks: all SUCCESS, in the case
            // language's raw codes (0 in every ABI).
            Out::Int(0) if name == "failed_calls" => {
                if matches!(m.out("count"), Some(Out::Int(n)) if *n > 0) {
                    out.push("call_rcs: MPI_SUCCESS".into())
                }
            }
            Out::Int(_) if name == "failed_calls" => {}
            // Lists of a raised event's callbacks: their length and values (the case
            // language has no list literal: one value, or the range of values).
            Out::Ints(v) if matches!(op, Op::RaiseEvent { .. }) => {
                if !["tags", "dropped", "dropped_tags", "dropped_at"].contains(&name.as_str()) {
                    continue;
                }
                let each = match (v.iter().min(), v.iter().max()) {
                    (Some(lo), Some(hi)) if lo == hi => format!(", each: {{eq: {lo}}}"),
                    (Some(lo), Some(hi)) => format!(", each: {{between: [{lo}, {hi}]}}"),
                    _ => String::new(),
                };
                out.push(format!("{name}: {{length: {}{each}}}", v.len()))
            }
            Out::Int(_)
                if name == "count"
                    && matches!(op, Op::PvarHandleAlloc { .. })
                    && !w.m.declared => {}
            // R-CAT: a library's categories may gain members; the comparator judges
            // them by form only, and so does the case.
            Out::Int(_)
                if name.starts_with("num_")
                    && matches!(op, Op::GetInfo { kind: Kind::Category, .. })
                    && !w.m.declared => {}
            Out::Int(n) => {
                let v = match (op, name.as_str()) {
                    (Op::GetIndex { kind, .. }, "index") => w.m.target_index(*kind, *n as i32).into(),
                    (Op::PvarGetIndex { .. }, "index") => w.m.target_index(Kind::Pvar, *n as i32).into(),
                    (Op::GetNum(k), "num") => *n + i64::from(w.m.holes(*k)),
                    _ => *n,
                };
                out.push(format!("{name}: {v}"))
            }
            Out::Handle { null } => {
                let n = match op {
                    Op::SessionCreate | Op::SessionFree { .. } => "MPI_T_PVAR_SESSION_NULL",
                    Op::PvarHandleAlloc { .. } | Op::PvarHandleFree { .. } => "MPI_T_PVAR_HANDLE_NULL",
                    Op::EventHandleAlloc { .. } | Op::EventHandleFree { .. } => "0",
                    Op::EventInfoObject { .. } => "MPI_INFO_NULL",
                    _ => "MPI_T_CVAR_HANDLE_NULL",
                };
                out.push(if *null {
                    format!("{name}: {n}")
                } else {
                    format!("{name}: {{ne: {n}}}")
                })
            }
            // R-PVAR-2: 0 or 1 (the other reading, any nonzero, is `or_reading:`).
            Out::Flag(b) if super::obs::PVAR_FLAGS.contains(&name.as_str()) => {
                out.push(match (b, flags) {
                    (false, _) => format!("{name}: 0"),
                    (true, FlagTrue::One) => format!("{name}: 1"),
                    (true, FlagTrue::Nonzero) => format!("{name}: {{ne: 0}}"),
                })
            }
            Out::Enum(None) => out.push(format!("{name}: MPI_T_ENUM_NULL")),
            Out::Enum(Some(_)) => out.push(format!("{name}: {{ne: MPI_T_ENUM_NULL}}")),
            // R-INIT-1: any of the four levels, not necessarily the one asked for.
            Out::Name(_) if name == "provided" => out.push(format!(
                "{name}: {{in: [MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE]}}"
            )),
            Out::Name(s) if name != "datatypes" => {
                let c = match name.as_str() {
                    "verbosity" => format!("MPI_T_VERBOSITY_{s}"),
                    "bind" => format!("MPI_T_BIND_{s}"),
                    "scope" => format!("MPI_T_SCOPE_{s}"),
                    "var_class" => format!("MPI_T_PVAR_CLASS_{s}"),
                    "ordering" => format!("MPI_T_SOURCE_{s}"),
                    _ => s.clone(),
                };
                out.push(format!("{name}: {c}"))
            }
            Out::Ints(v) if name == "indices" => {
                out.push(format!("{name}: {{skip: {}, each: {{eq: -7}}}}", v.len()))
            }
            Out::Bytes(b) if d.rule == "R-PRESET-1" && b.iter().all(|x| *x == 0) => {
                out.push(format!("{name}: 0"))
            }
            // A relation with the library's earlier reading (relations.rs): the case
            // asks the same of the value it saved then.
            Out::Bytes(_) if name == "value" && d.relation.is_some() => {
                let pred = match (d.relation.as_deref(), op) {
                    (Some("nonneg"), _) => "{ge: 0}".to_string(),
                    (Some("fraction"), _) => "{between: [0, 1]}".to_string(),
                    (
                        Some(r),
                        Op::PvarRead {
                            handle: Ref::Made(n),
                            ..
                        },
                    ) => format!("{{{r}: $vv{n}}}"),
                    _ => continue,
                };
                out.push(format!("{name}: {pred}"))
            }
            // A value the calls determine (a written one, or any of the reference's):
            // the model's, decoded, for numbers.
            Out::Bytes(b) if name == "value" => {
                if let Some(v) = number_pred(g, op, b) {
                    out.push(format!("{name}: {v}"))
                }
            }
            _ => {}
        }
    }
    // Nothing written past the array or buffer the standard sizes (the target engine's
    // `overrun`, which the model never has).
    if matches!(
        op,
        Op::CategoryMembers { .. } | Op::CvarRead { .. } | Op::PvarRead { .. }
    ) && m.ok()
    {
        out.push("overrun: 0".into());
    }
    if !out.is_empty() {
        lines.push(format!("out: {{{}}}", out.join(", ")));
    }
    lines
}

/// A read's bytes as a predicate on the case language's `value`: the number, or the
/// range of the elements' numbers (`None` for MPI_CHAR: strings are not numbers).
fn number_pred(g: &Gen, op: &Op, b: &[u8]) -> Option<String> {
    let dt = g.read_datatype(op)?;
    let count = b.len() / dt.size().max(1);
    let nums: Vec<f64> = match mpit_reference::value::Value::from_bytes(dt, count, b) {
        mpit_reference::value::Value::Ints(v) => v.into_iter().map(|x| x as f64).collect(),
        mpit_reference::value::Value::Doubles(v) => v,
        mpit_reference::value::Value::Chars(_) => return None,
    };
    let lo = nums.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = nums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // The case language's numbers are integers: a fraction is bounded by the integers
    // around it (0.5 → between 0 and 1, which still rejects a percentage of 1.5).
    let (lo, hi) = (lo.floor(), hi.ceil());
    match nums.len() {
        0 => None,
        _ if lo == hi => Some(format!("{lo}")),
        _ => Some(format!("{{between: [{lo}, {hi}]}}")),
    }
}

/// The YAML text of a case replaying `found` on the library it was found on.
pub fn case_yaml(
    found: &Found,
    mirror: &std::sync::Arc<Mirror>,
    library: &str,
    seed: u64,
) -> String {
    let d = &found.divergence;
    let start = Gen::new(mirror.clone(), found.mode);
    let model = run_model(&start, &found.run);
    let subject = entry_at(&start, &found.run, d.step)
        .or_else(|| found.run.iter().find_map(entry))
        .filter(|(k, i)| *i >= 0 && *i < mirror.count(*k))
        // The index names another entry: the mirror's entry may be gone from the
        // library, so the case has no subject and asks get_index instead (below).
        .filter(|_| !d.other_entry);
    let mut w = Writer {
        m: mirror,
        subject,
        out: String::new(),
        made: [0; 4],
        raises: Vec::new(),
        updates: 0,
        for_all: None,
        literal: d.other_entry,
        init: false,
        looked_up: Vec::new(),
        lookups: String::new(),
    };
    let func = d.function.trim_start_matches("MPI_T_").to_lowercase();
    let hash = {
        use sha2::Digest;
        let h = sha2::Sha256::digest(format!("{:?}{}", found.run, d.what).as_bytes());
        h.iter()
            .take(4)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let mut y = String::new();
    let _ = writeln!(
        y,
        "# Found by `mpit-conform fuzz-props` (seed {seed}) on {library}."
    );
    let _ = writeln!(y, "# {}: {}", d.rule, d.what);
    let _ = writeln!(y, "# expected (reference model): {}", d.expected);
    let _ = writeln!(y, "# actual (library):           {}", d.actual);
    let _ = writeln!(
        y,
        "# Replay: mpit-conform run --case-file THIS.yaml --lib {library}"
    );
    let _ = writeln!(y, "area: differential");
    let _ = writeln!(y, "cases:");
    let _ = writeln!(y, "  - id: differential.{func}.{hash}");
    let _ = writeln!(
        y,
        "    title: {}",
        quoted(&format!("{} ({})", d.what, d.rule))
    );
    let _ = writeln!(y, "    clause: {}", quoted(&clause_of(&d.rule)));
    let _ = writeln!(y, "    rules: [{}]", d.rule);
    let _ = writeln!(y, "    level: {}", level_word(d.level));
    if found.mode.lifecycle {
        let _ = writeln!(y, "    init: manual");
    }
    // Events raised and simulated activity count per process (the values depend on
    // them), and MPI_Init happens once: a process of its own.
    let fresh = found
        .run
        .iter()
        .any(|o| matches!(o, Op::RaiseEvent { .. } | Op::MpiInit | Op::Simulate { .. }));
    match (found.run.iter().any(Op::needs_hooks), fresh) {
        (true, true) => {
            let _ = writeln!(y, "    requires: [reference_hooks, fresh_process]");
        }
        (true, false) => {
            let _ = writeln!(y, "    requires: [reference_hooks]");
        }
        (false, true) => {
            let _ = writeln!(y, "    requires: [fresh_process]");
        }
        (false, false) => {}
    }
    if let Some((k, i)) = subject {
        let _ = writeln!(y, "    for_each: {}", k.word());
        let name = mirror.name(k, i as usize).unwrap_or_default();
        // R-PVAR-4: a pvar is named by its name and class together.
        let class = match k {
            Kind::Pvar => mirror
                .catalog
                .pvars
                .get(i as usize)
                .map(|p| format!(", var_class: MPI_T_PVAR_CLASS_{}", p.class.spelling()))
                .unwrap_or_default(),
            _ => String::new(),
        };
        let _ = writeln!(y, "    where: {{name: {}{class}}}", quoted(name));
    }
    let _ = writeln!(y, "    steps:");
    let mut g = start.clone();
    // The enum handles, saved from the get_info that first returned each.
    let mut enums_seen = 0usize;
    for (n, op) in found.run.iter().enumerate().take(d.step + 1) {
        let m = &model.obs[n];
        let level = g.level(op);
        w.init = g.initialized();
        let (call, args, mut save) = w.call(op, m);
        y.push_str(&std::mem::take(&mut w.lookups));
        if let Some(Out::Enum(Some(e))) = m.out("enumtype") {
            if *e as usize == enums_seen {
                save.push((format!("e{e}"), "enumtype".into()));
                enums_seen += 1;
            }
        }
        let raise = matches!(op, Op::RaiseEvent { .. });
        let _ = writeln!(y, "      - call: {call}");
        if let Some(f) = w.for_all.take() {
            let _ = writeln!(y, "        for_all: {f}");
        }
        if !args.is_empty() {
            let a: Vec<String> = args.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            let _ = writeln!(y, "        args: {{{}}}", a.join(", "));
        }
        if !save.is_empty() && n < d.step {
            let s: Vec<String> = save.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            let _ = writeln!(y, "        save: {{{}}}", s.join(", "));
        }
        if level != Level::Must {
            let _ = writeln!(y, "        erroneous: true");
        }
        let _ = writeln!(y, "        expect:");
        match (
            d.passed_over.iter().find(|p| p.0 == n),
            rc_expect(&g, op, m),
        ) {
            // A known deviation (`--known`) the search went past: its own case judges
            // it. This one does not judge the call (it never accepts a code the policy
            // calls a deviation) and goes on to its own.
            (Some((_, rule, t)), _) if *t != m.rc => {
                let _ = writeln!(
                    y,
                    "          # not judged here: the known deviation {rule} ({} at this \
                     call), passed over; its own case judges it",
                    rc_name(t)
                );
            }
            (_, Some(rc)) => {
                let _ = writeln!(y, "          rc: {rc}");
            }
            (_, None) => {
                let _ = writeln!(
                    y,
                    "          # any return code conforms here (the text is silent)"
                );
            }
        }
        if n == d.step && !raise {
            for l in out_expect(op, m, &w, d, &g, FlagTrue::One) {
                let _ = writeln!(y, "          {l}");
            }
            // The library follows the other reading of a flag (R-PVAR-2): the same
            // expectation with every true flag as "nonzero".
            if let Some(r) = &d.reading {
                let _ = writeln!(y, "          or_reading:");
                let _ = writeln!(y, "            reading: {r}");
                let _ = writeln!(y, "            expect:");
                if let Some(rc) = rc_expect(&g, op, m) {
                    let _ = writeln!(y, "              rc: {rc}");
                }
                for l in out_expect(op, m, &w, d, &g, FlagTrue::Nonzero) {
                    let _ = writeln!(y, "              {l}");
                }
            }
        }
        if level != Level::Must {
            let _ = writeln!(y, "          level: {}", level_word(level));
        }
        if raise {
            // The callbacks the event ran: drained by the harness's `deliveries` step.
            let _ = writeln!(y, "      - call: deliveries");
            if n < d.step {
                let _ = writeln!(y, "        save: {{i{}: instances}}", w.raises.len() - 1);
            } else {
                let _ = writeln!(y, "        expect:");
                for l in out_expect(op, m, &w, d, &g, FlagTrue::One) {
                    let _ = writeln!(y, "          {l}");
                }
            }
        }
        g.apply(op);
    }
    if let (true, Some(Op::GetInfo { kind, index, .. })) = (d.other_entry, found.run.get(d.step)) {
        // R-CVAR-1/R-STR-6: the entry the mirror has at that index is found there by
        // its name (sources have no get_index).
        let at = mirror.target_index(*kind, *index);
        if let Some(call) = w.get_index(*kind, *index) {
            let _ = writeln!(y, "      - call: {call}");
            let _ = writeln!(y, "        expect:");
            let _ = writeln!(y, "          rc: MPI_SUCCESS");
            let _ = writeln!(y, "          out: {{index: {at}}}");
        }
        // An index whose name is another entry's: the names repeat (R-STR-6).
        let _ = writeln!(y, "      - check: names_unique");
    }
    w.out.push_str(&y);
    w.out
}

/// The clause of a rule (specs/clauses.yaml, the data the coverage command reads too).
fn clause_of(rule: &str) -> String {
    super::compare::clauses(&crate::specs::Source::Bundled)
        .remove(rule)
        .unwrap_or_else(|| "MPI-4.1 §15.3".into())
}
