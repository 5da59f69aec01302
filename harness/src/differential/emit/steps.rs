//! The steps of a case: each op as the case language's `call`, `args` and `save`
//! (specs/README.md). Handles and sessions are saved when made and passed by name
//! (`$c0`, `$s0`, `$p0`, `$r0`); the subject's index is `$index`; another entry is
//! looked up by name first (`*_get_index`, saved as `$x0`, ...), since an index is the
//! library's own numbering and a name is the same on every library.

use super::quoted;
use crate::differential::obs::{Obs, Out};
use crate::differential::op::{callback_tag, members_word, Act, Data, Kind, Op, Ref, Str};
use crate::differential::Mirror;
use std::fmt::Write;

pub(super) struct Writer<'a> {
    pub(super) m: &'a Mirror,
    pub(super) subject: Option<(Kind, i32)>,
    pub(super) out: String,
    pub(super) made: [usize; 4],
    /// Per raised event: the number of the first instance it delivered and how many
    /// (the model's), so `EventReadAfter` finds the `deliveries` list saved with it.
    pub(super) raises: Vec<(u16, u16)>,
    /// `category_changed` calls so far (their numbers are saved as `$u0`, `$u1`, ...).
    pub(super) updates: usize,
    /// A `for_all:` for the step being written (set by `call`).
    pub(super) for_all: Option<String>,
    /// The subject's index is passed as the number (the divergence is that this
    /// index names another entry than the subject, found by name).
    pub(super) literal: bool,
    /// MPI_T is initialized at the step being written (an entry can be looked up).
    pub(super) init: bool,
    /// Entries other than the subject, looked up by name (`$x0`, `$x1`, ...): an index
    /// is the library's own numbering, a name is the same on every library.
    pub(super) looked_up: Vec<((Kind, i32), String)>,
    /// The `*_get_index` steps to write before the step being written.
    pub(super) lookups: String,
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
    pub(super) fn get_index(&self, k: Kind, i: i32) -> Option<String> {
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

    fn size(s: Str) -> String {
        match (s.cap, s.len) {
            (None, _) => "null_buf".into(),
            (Some(_), None) => "null_len".into(),
            (Some(c), Some(_)) => c.to_string(),
        }
    }

    /// `call`, `args` and `save` of one op.
    pub(super) fn call(&mut self, op: &Op, m: &Obs) -> (String, Pairs, Pairs) {
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
            Op::GetNum(k) => k.get_num().yaml().into(),
            Op::GetInfo {
                kind,
                index,
                name,
                desc,
            } => {
                a("index", self.index(*kind, *index));
                a("name", Self::size(*name));
                if *desc == Str::NONE && matches!(kind, Kind::Event | Kind::Source) {
                    // No `*_name_only` in the case language for these: each OUT
                    // argument NULL in turn, then all of them.
                    self.for_all = Some("null_outs".into());
                    format!("{}_get_info", kind.word())
                } else if *desc == Str::NONE {
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
                if *name == Str::NONE {
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
                if *name == Str::NONE {
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
