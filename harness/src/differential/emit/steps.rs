//! The steps of a case: each generated call as the case language's `call`, `args` and
//! `save` (specs/README.md), the call being its entry of the function table
//! (`Call::func`). Handles and sessions are saved when made and passed by name (`$c0`,
//! `$s0`, `$p0`, `$r0`); the subject's index is `$index`; another entry is looked up
//! by name first (`*_get_index`, saved as `$x0`, ...), since an index is the library's
//! own numbering and a name is the same on every library.
//!
//! A `$name` is written only when an earlier step saved it, so every case loads
//! (`validate` rejects an unsaved one). Where the sequence names what no step saved (a
//! robustness sequence's handle whose allocation failed or never happened, a foreign
//! handle of a kind it never made: R-GEN-3), the step passes the value the target
//! engine passed in that call instead, as a number (`Slots::resolve`).

use crate::differential::obs::{Obs, Out};
use crate::differential::op::{Call, Data, Kind, Ref, Sees, Str, A};
use crate::differential::{HandleKind, Mirror, Slots};
use mpit_spec::cases::written::{Value, WrittenForAll, WrittenRc, WrittenStep};
use std::collections::BTreeSet;

/// The case's subject (`for_each:` and `where:`), and how a step passes its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Subject {
    /// None: no call names an entry, or the diverging index named another entry than
    /// the mirror's (the library may lack the mirror's entry; its index is passed as
    /// the number and the entry is found by name after it).
    None,
    /// The diverging call's entry, passed as `$index`.
    Entry(Kind, i32),
    /// The diverging call's entry, passed as the number it had before MPI_Init (the
    /// divergence is that it moved, R-CVAR-1). `$index` is that number to the executor,
    /// which read it before the case, but the C reproducer finds the subject by name
    /// where it is used, after MPI_Init, and saw no move.
    Pinned(Kind, i32),
    /// The enum item the diverging `enum_get_item` reads (`for_each: item`, found by
    /// its name), so the step can judge its name string.
    Item,
}

impl Subject {
    /// The catalog entry the case is about, if it is one.
    pub(super) fn entry(self) -> Option<(Kind, i32)> {
        match self {
            Subject::Entry(k, i) | Subject::Pinned(k, i) => Some((k, i)),
            Subject::None | Subject::Item => None,
        }
    }
}

pub(super) struct Writer<'a> {
    pub(super) m: &'a Mirror,
    pub(super) subject: Subject,
    pub(super) made: [usize; 4],
    /// Per raised event: the number of the first instance it delivered and how many
    /// (the model's), so `EventReadAfter` finds the `deliveries` list saved with it.
    pub(super) raises: Vec<(u16, u16)>,
    /// `category_changed` calls so far (their numbers are saved as `$u0`, `$u1`, ...).
    pub(super) updates: usize,
    /// MPI_T is initialized at the step being written (an entry can be looked up).
    pub(super) init: bool,
    /// MPI_Init has run before the step being written (late entries exist).
    pub(super) mpi: bool,
    /// Entries other than the subject, looked up by name (`$x0`, `$x1`, ...): an index
    /// is the library's own numbering, a name is the same on every library.
    pub(super) looked_up: Vec<((Kind, i32), String)>,
    /// The `*_get_index` steps to write before the step being written.
    pub(super) lookups: Vec<WrittenStep>,
    /// The variables the steps written so far saved: the only `$names` a step may use.
    pub(super) saved: BTreeSet<String>,
}

/// The variable prefix and the target engine's table of each kind of handle a step
/// passes by name: cvar handles, sessions, pvar handles, registrations.
const TABLES: [(&str, HandleKind); 4] = [
    ("c", HandleKind::Cvar),
    ("s", HandleKind::Session),
    ("p", HandleKind::Pvar),
    ("r", HandleKind::Registration),
];

/// A kind's NULL handle as the case language writes it.
pub(super) fn null_value(k: HandleKind) -> Value {
    match k {
        HandleKind::Cvar => "MPI_T_CVAR_HANDLE_NULL".into(),
        HandleKind::Session => "MPI_T_PVAR_SESSION_NULL".into(),
        HandleKind::Pvar => "MPI_T_PVAR_HANDLE_NULL".into(),
        // MPI-4.1 names no NULL registration constant; the case language writes 0.
        HandleKind::Registration | HandleKind::Instance => Value::Int(0),
    }
}

/// The value the target engine passes for a handle the sequence did not make
/// (`Slots::resolve` with nothing made: a value no call returned), as the number a
/// case writes: the same call, the same undefined argument (R-GEN-3).
fn unmade(k: HandleKind, r: Ref) -> Value {
    format!("{:#x}", Slots::default().resolve(k, r, 0, 0)).into()
}

impl Writer<'_> {
    /// `$name` when an earlier step saved it.
    pub(super) fn var(&self, name: &str) -> Option<Value> {
        self.saved.contains(name).then(|| format!("${name}").into())
    }

    fn index(&mut self, k: Kind, i: i32) -> Value {
        if self.subject == Subject::Pinned(k, i) {
            return i64::from(self.m.target_index(k, i)).into();
        }
        if self.subject == Subject::Entry(k, i) {
            return "$index".into();
        }
        if let Some((_, v)) = self.looked_up.iter().find(|(e, _)| *e == (k, i)) {
            return format!("${v}").into();
        }
        let n = self.m.count(k);
        // After MPI_Init, an index past the count read before it may name an entry that
        // appeared then (a declared catalog's `appears: mpi_init`, numbered after the
        // others, R-CVAR-1): found by name too. As `$num_pvars + 0` it meant the count
        // of the case's start to the executor and the count at that point (after
        // MPI_Init) to the C reproducer, which then called past the end.
        let late = self.mpi && i >= n && i < n + self.m.late(k);
        if let (Some(mut step), true) = (
            self.get_index(k, i),
            self.init && ((0..n).contains(&i) || late),
        ) {
            let v = format!("x{}", self.looked_up.len());
            step.save.push(v.clone(), "index");
            step.expect.rc = Some(WrittenRc::One("MPI_SUCCESS".into()));
            self.lookups.push(step);
            self.looked_up.push(((k, i), v.clone()));
            return format!("${v}").into();
        }
        // A category subject's member counts shadow the catalog-wide `$num_*` of the
        // same names (specs/README.md, "Variables"): the number past the target's end.
        let shadowed =
            k != Kind::Source && matches!(self.subject.entry(), Some((Kind::Category, _)));
        if i >= n && !shadowed {
            let num = match k {
                Kind::Cvar => "num_cvars",
                Kind::Pvar => "num_pvars",
                Kind::Category => "num_categories",
                Kind::Event => "num_events",
                Kind::Source => "num_sources",
            };
            return format!("${num} + {}", i - n).into();
        }
        i64::from(self.m.target_index(k, i)).into()
    }

    /// The `*_get_index` step (call and args) that finds entry `i` by name; none for
    /// sources, which have no get_index.
    pub(super) fn get_index(&self, k: Kind, i: i32) -> Option<WrittenStep> {
        let name = self.m.name(k, usize::try_from(i).ok()?)?;
        let mut step = WrittenStep::call(k.get_index()?);
        step.arg("name", name);
        if k == Kind::Pvar {
            // R-PVAR-4: a pvar is named by its name and class together.
            let p = self.m.catalog.pvars.get(i as usize)?;
            step.arg(
                "var_class",
                format!("MPI_T_PVAR_CLASS_{}", p.class.spelling()),
            );
        }
        Some(step)
    }

    /// A handle argument: the handle saved when it was made, else (a handle whose
    /// allocation failed or never ran) the value the target engine passed.
    fn handle(&self, r: Ref, table: usize, null: Value) -> Value {
        let (prefix, kind) = TABLES[table];
        // A foreign handle is the same-numbered one of another table (`Slots::resolve`):
        // a pvar handle where a cvar handle goes, a cvar handle elsewhere.
        let named = match r {
            Ref::Made(n) => format!("{prefix}{n}"),
            Ref::Foreign(n) => format!("{}{n}", TABLES[if table == 0 { 2 } else { 0 }].0),
            Ref::Null => return null,
            Ref::All => return "MPI_T_PVAR_ALL_HANDLES".into(),
        };
        self.var(&named).unwrap_or_else(|| unmade(kind, r))
    }

    fn size(s: Str) -> Value {
        match (s.cap(), s.len_in()) {
            (None, _) => "null_buf".into(),
            (Some(_), None) => "null_len".into(),
            (Some(c), Some(_)) => i64::from(c).into(),
        }
    }

    /// The step of one call: its `call` (the table entry), `args`, `save` and
    /// `for_all`, as the target engine makes it.
    pub(super) fn call(&mut self, c: &Call, m: &Obs) -> WrittenStep {
        let mut s = WrittenStep::call(c.func);
        if c.null_outs {
            // Each OUT argument NULL in turn, then all of them.
            s.for_all = Some(WrittenForAll::NullOuts);
        }
        for (name, a) in c.named_args() {
            match *a {
                // A pair passed as NULL is one of the `for_all: null_outs` rounds.
                A::Str(Str::NONE) if c.null_outs => {}
                A::Handle(HandleKind::Instance, Ref::Made(n)) => self.instance(&mut s, n),
                _ => {
                    let v = self.value(a);
                    s.arg(name, v);
                }
            }
        }
        self.saves(&mut s, c, m);
        s
    }

    /// An argument as the case language writes it.
    fn value(&mut self, a: &A) -> Value {
        match *a {
            A::Index(k, i) => self.index(k, i),
            A::Handle(k, r) => {
                let t = TABLES.iter().position(|(_, x)| *x == k).unwrap_or(0);
                self.handle(r, t, null_value(k))
            }
            A::Enumtype(n) => self.enumtype(n),
            A::Str(s) => Self::size(s),
            A::Text(ref t) => t.to_string().into(),
            A::Level(l) => l.spelling().into(),
            A::Class(c) => format!("MPI_T_PVAR_CLASS_{}", c.spelling()).into(),
            A::Safety(s) => format!("MPI_T_CB_REQUIRE_{}", s.spelling()).into(),
            A::Data(k, r, d) => self.data(r, d, if k == HandleKind::Cvar { "vc" } else { "vp" }),
            A::Int(i) => i.into(),
            A::Flag(b) => i64::from(b).into(),
            A::InfoNull => "MPI_INFO_NULL".into(),
        }
    }

    /// The event instance an `event_read` after its callback passes: every instance of
    /// the list saved after the raise that delivered it is stale alike.
    fn instance(&self, s: &mut WrittenStep, instance: u16) {
        let k = self
            .raises
            .iter()
            .position(|(f, n)| (*f..f + n).contains(&instance))
            .unwrap_or(0);
        let list = format!("i{k}");
        if self.saved.contains(&list) {
            s.for_all = Some(WrittenForAll::List(list));
            s.arg("instance", "$item");
        } else {
            // No raise delivered it: the value the target engine passed.
            s.arg(
                "instance",
                unmade(HandleKind::Instance, Ref::Made(instance)),
            );
        }
    }

    /// What the step saves for later steps: a handle made, a value read, an update
    /// number; and the instances a raise delivered, counted for `instance`.
    fn saves(&mut self, s: &mut WrittenStep, c: &Call, m: &Obs) {
        match c.sees {
            Sees::Alloc { kind, .. } if m.ok() => {
                let out = c.handle_out();
                if let Some(t) = TABLES.iter().position(|(_, x)| *x == kind) {
                    s.save.push(format!("{}{}", TABLES[t].0, self.made[t]), out);
                    self.made[t] += 1;
                }
            }
            Sees::Read(k, Ref::Made(n)) => {
                if k == HandleKind::Cvar {
                    s.save.push(format!("vc{n}"), "bytes");
                } else {
                    s.save.push(format!("vp{n}"), "bytes");
                    // The number, for a relation with a later read (relations.rs).
                    s.save.push(format!("vv{n}"), "value");
                }
            }
            Sees::Update if m.ok() => {
                s.save.push(format!("u{}", self.updates), "update_number");
                self.updates += 1;
            }
            Sees::Raise(_) => {
                let first = self.raises.last().map_or(0, |(f, n)| f + n);
                let n = match m.out("count") {
                    Some(Out::Int(n)) => *n as u16,
                    _ => 0,
                };
                self.raises.push((first, n));
            }
            _ => {}
        }
    }

    /// The data of a write: a number, or the bytes the last read through the handle
    /// returned. With no read saved the target engine writes zeros (`Slots::
    /// write_bytes`), as the executor does for `0`.
    fn data(&self, h: Ref, d: Data, prefix: &str) -> Value {
        match (d, h) {
            (Data::Int(n), _) => i64::from(n).into(),
            (Data::Readback, Ref::Made(n)) => {
                self.var(&format!("{prefix}{n}")).unwrap_or(Value::Int(0))
            }
            (Data::Readback, _) => Value::Int(0),
        }
    }

    /// An enumeration saved from the get_info that first returned it; one no step
    /// saved (its get_info failed, or asked the name only) is passed as the target
    /// engine passes it: 0 (`TargetEngine::enum_handle`).
    fn enumtype(&self, n: u16) -> Value {
        self.var(&format!("e{n}")).unwrap_or(Value::Int(0))
    }
}
