//! A call of an [`Entry`] made in a state: each argument drawn by its [`Role`] from the
//! generator's state and a [`Pick`]'s numbers, and what both engines observe of its
//! OUTs ([`Sees`]) read off the table's OUT names and columns. No function is named
//! here: `specs/generator.yaml` says which are called. In robustness mode an argument
//! may be one the standard leaves undefined (MPI-4.1 §15.3.10: a stale, NULL or
//! foreign handle, an index out of range).

use super::plan::{self, Entry, IndexFrom, Role};
use super::sees::sees;
use super::{live_ones, Gen, Pick};
use crate::differential::op::{callback_tag, Act, Call, Data, Kind, Ref, Sees, Str, A};
use crate::differential::HandleKind;
use arrayvec::ArrayVec;
use mpit_spec::cases::funcs::{Func, Param};
use mpit_vocab::catalog::Enum;
use mpit_vocab::spec::{CbSafety, PvarClass, ThreadLevel};

const BOGUS_NAME: &str = "mpit_conform_no_such_name";

/// A call of `f` with these arguments, observed as the table says ([`sees`]), with
/// the generator's file's overrides where it lists `f`: how the tests and the closing
/// calls of a sequence make a call.
pub fn call(f: Func, args: impl IntoIterator<Item = (&'static str, A)>) -> Call {
    let mut c = Call::new(f, args, Sees::Code);
    c.sees = sees(plan::entry_of(f).and_then(|e| e.sees), &c);
    c
}

impl Gen {
    /// A string argument for a string of `strlen` bytes: every size the convention
    /// distinguishes (R-STR-1..4).
    fn str_arg(strlen: usize, k: u16) -> Str {
        let len = strlen as u32 + 1;
        match k % 10 {
            0 | 1 => Str::sized(len),
            2 => Str::sized(len.saturating_sub(1)),
            3 => Str::sized(len + 1),
            4 => Str::sized(1),
            5 => Str::sized(0),
            // As the case language's `null_buf` / `null_len` pass them (so an emitted
            // case replays the same call): the length is strlen+1.
            6 => Str::new(None, Some(len as i32)),
            7 => Str::new(Some(len), None),
            8 => Str::sized(2),
            _ => Str::sized(64),
        }
    }

    /// An index of a kind: valid, or (robustness, when `c` says so) past the end or
    /// negative.
    fn index(&self, n: i32, a: u16, c: u8) -> i32 {
        if self.mode.robustness && c % 6 == 5 {
            return if a % 2 == 0 {
                n + i32::from(a % 3)
            } else {
                -1 - i32::from(a % 2)
            };
        }
        if n == 0 {
            0
        } else {
            i32::from(a) % n
        }
    }

    /// A handle argument: a live object, or (robustness) a freed, NULL or foreign one.
    fn handle_ref(&self, live: &[u16], all: usize, a: u16, c: u8) -> Ref {
        if self.mode.robustness && c % 5 == 4 {
            let dead: Vec<u16> = (0..all as u16).filter(|n| !live.contains(n)).collect();
            // Stale handles first: the one misuse a tool makes by accident.
            return match a % 4 {
                0 | 1 if !dead.is_empty() => Ref::Made(dead[a as usize % dead.len()]),
                2 => Ref::Foreign(0),
                _ => Ref::Null,
            };
        }
        match live.len() {
            0 => Ref::Null,
            n => Ref::Made(live[a as usize % n]),
        }
    }

    fn strings_of(&self, k: Kind, i: i32) -> (usize, usize) {
        let c = &self.mirror().catalog;
        let u = usize::try_from(i).unwrap_or(usize::MAX);
        let d = |d: &Option<String>| d.as_deref().map_or(0, str::len);
        match k {
            Kind::Cvar => c.cvars.get(u).map(|v| (v.name.len(), d(&v.desc))),
            Kind::Pvar => c.pvars.get(u).map(|v| (v.name.len(), d(&v.desc))),
            Kind::Category => c.categories.get(u).map(|v| (v.name.len(), d(&v.desc))),
            Kind::Event => c.events.get(u).map(|v| (v.name.len(), d(&v.desc))),
            Kind::Source => c.sources.get(u).map(|v| (v.name.len(), d(&v.desc))),
        }
        .unwrap_or((8, 8))
    }

    fn unbound_index(&self, list: &[i32], n: i32, b: u16, c: u8) -> i32 {
        if self.mode.robustness && c % 6 == 5 {
            return self.index(n, b, c);
        }
        // Entries that appear at MPI_Init are numbered only after it.
        let visible = list.iter().take_while(|i| **i < n).count();
        match visible {
            0 => 0,
            k => list[b as usize % k],
        }
    }

    fn data(&self, a: u16) -> Data {
        // Only the reference is written arbitrary numbers: a vendor's configuration is
        // written back what was read from it.
        if self.mirror().exact_values && a % 3 == 2 {
            Data::Int(i32::from(a % 100))
        } else {
            Data::Readback
        }
    }

    /// The call of `e` that `p` makes here; `fixed` is an argument given rather than
    /// drawn (the closing calls free a given handle).
    pub(super) fn make(&self, e: &Entry, p: Pick, fixed: Option<(&str, A)>) -> Call {
        let Pick { a, b, c, .. } = p;
        // A number of its own for each parameter position.
        let n = |i: usize| [b, a, b >> 4, a >> 4, b >> 8][i.min(4)];
        let null_outs = e.null_outs.as_ref().filter(|(k, _)| c % k == k - 1);
        let mut call = Call::new(e.func, [], Sees::Code);
        call.null_outs = null_outs.is_some();
        // Handles and indices first: a session, a string's size, a class, a tag and
        // an item depend on them (`Role::stage`).
        let mut drawn = ArrayVec::<usize, 5>::new();
        for &j in &e.draw_order {
            let (i, name, role) = &e.params[j];
            let dropped =
                matches!(null_outs, Some((_, keep)) if *role == Role::Str && !keep.contains(name));
            if dropped {
                continue;
            }
            let arg = match &fixed {
                Some((f, v)) if f == name => v.clone(),
                _ => self.arg(e, &call, name, role, n(*i), p),
            };
            // `i` is the parameter's position in the prototype (`plan::Entry::params`).
            call.args.push((*i as u8, arg));
            drawn.push(j);
        }
        // Back to prototype order.
        if !e.drawn_in_order {
            let mut by_position: ArrayVec<_, 5> =
                drawn.into_iter().zip(call.args.drain(..)).collect();
            by_position.sort_unstable_by_key(|(j, _)| *j);
            call.args = by_position.into_iter().map(|(_, a)| a).collect();
        }
        call.sees = match (e.sees_template, call.null_outs) {
            (_, true) => sees(e.sees, &call),
            (Sees::Alloc { kind, .. }, _) => Sees::Alloc {
                kind,
                index: call.index(),
            },
            (Sees::Read(kind, _), _) => Sees::Read(kind, call.handle("handle")),
            (Sees::Raise(_), _) => Sees::Raise(call.index()),
            (t, _) => t,
        };
        call
    }

    fn arg(&self, e: &Entry, call: &Call, name: &str, role: &Role, k: u16, p: Pick) -> A {
        let Pick { a, c, .. } = p;
        let m = self.mirror();
        match role {
            Role::Index(kind) => A::Index(*kind, self.index_arg(e, *kind, k, c)),
            Role::Item => {
                let items = self.enum_of(call).map_or(0, |x| x.items.len() as i32);
                A::Int(self.index(items, k >> 3, c).into())
            }
            Role::Handle(kind) => A::Handle(*kind, self.handle_arg(e, call, *kind, k, p)),
            Role::Enumtype => A::Enumtype((usize::from(k) % self.enums.len().max(1)) as u16),
            Role::Str => A::Str(Self::str_arg(self.strlen(call, name), k)),
            Role::Name(kind) => {
                let n = self.count(*kind);
                let name = match n == 0 || k % 7 == 6 {
                    true => BOGUS_NAME,
                    false => m
                        .name(*kind, usize::from(k) % n as usize)
                        .unwrap_or(BOGUS_NAME),
                };
                A::Text(name.into())
            }
            Role::Level => A::Level(ThreadLevel::ALL[usize::from(k) % 4]),
            Role::Safety => A::Safety(CbSafety::ALL[usize::from(a) % 4]),
            // R-PVAR-4: name and class identify a pvar together; sometimes the right
            // name with another class.
            Role::Class => {
                let named = m
                    .catalog
                    .pvars
                    .iter()
                    .find(|v| *v.name == *call.text("name"));
                match named {
                    Some(_) if c % 4 == 3 => {
                        A::Class(PvarClass::ALL[usize::from(c) % PvarClass::ALL.len()])
                    }
                    Some(v) => A::Class(v.class),
                    None => A::Class(PvarClass::Counter),
                }
            }
            // A write-back needs a value read through the handle; the reference is
            // written a number instead.
            Role::Data(kind) => {
                let h = call.handle("handle");
                let read = matches!(h, Ref::Made(n) if self.table(*kind).get(usize::from(n)).is_some_and(|l| l.read));
                match self.data(a) {
                    Data::Readback if !read && m.exact_values => {
                        A::Data(*kind, h, Data::Int(i32::from(a % 100)))
                    }
                    d => A::Data(*kind, h, d),
                }
            }
            Role::Flag => A::Flag(k % 4 != 3),
            Role::Tag => A::Int(callback_tag(call.handle("registration"), call.safety()) as i64),
            Role::Hinted(h) => match e.func.param(name) {
                Some(Param::Flag) => A::Flag(h.draw(k) != 0),
                _ => A::Int(h.draw(k)),
            },
        }
    }

    fn index_arg(&self, e: &Entry, kind: Kind, k: u16, c: u8) -> i32 {
        if e.index_from == Some(IndexFrom::Registrations) {
            let r = &self.registrations;
            return r
                .get(usize::from(k) % r.len().max(1))
                .map_or(0, |l| l.index);
        }
        if let Some(i) = self.added_index(e.allocates, kind, k) {
            return i;
        }
        // A handle is allocated for an entry with no object to bind (R-BIND-3).
        match self.unbound_of(kind).filter(|_| e.allocates) {
            Some(list) => self.unbound_index(list, self.count(kind), k, c),
            None => self.index(self.count(kind), k, c),
        }
    }

    /// After MPI_Init, one index in two is of an entry MPI_Init added (numbered after
    /// the others, R-CVAR-1; "not allowed to [...] delete a variable once it has been
    /// added", R-PVAR-1): where implementations lost or broke them (ompi#11492, #7084,
    /// #4433). For an allocation, one with no object to bind (R-BIND-3).
    fn added_index(&self, allocates: bool, kind: Kind, k: u16) -> Option<i32> {
        let m = self.mirror();
        let (n, late) = (m.count(kind), m.late(kind));
        if !self.mpi || self.mode.robustness || late == 0 || k % 2 == 0 {
            return None;
        }
        let k = usize::from(k >> 1);
        if !allocates {
            return Some(n + (k % late as usize) as i32);
        }
        // No cvar handle of one: a written case's replay sizes and decodes a read by
        // the catalog its worker read before MPI_Init, which does not hold it.
        if kind == Kind::Cvar {
            return None;
        }
        let added: Vec<i32> = self
            .unbound_of(kind)?
            .iter()
            .copied()
            .filter(|i| (n..n + late).contains(i))
            .collect();
        (!added.is_empty()).then(|| added[k % added.len()])
    }

    /// A handle argument. A pvar handle where start, stop and reset take
    /// `MPI_T_PVAR_ALL_HANDLES` is that one call in `all_handles`, or when no handle is
    /// live (R-PSTART-2); where a call refuses it, robustness passes it now and then
    /// (R-PREAD-1). A start mostly starts a handle not started. A write-back writes
    /// through a handle read before. A session beside a pvar handle is the handle's
    /// own, sometimes another live one (R-PH-1: INVALID_HANDLE).
    fn handle_arg(&self, e: &Entry, call: &Call, kind: HandleKind, k: u16, p: Pick) -> Ref {
        let Pick { a, c, .. } = p;
        let table = self.table(kind);
        let mut live: Vec<u16> = live_ones(table).collect();
        match kind {
            HandleKind::Instance => return Ref::Made(k % self.instances.max(1)),
            HandleKind::Session if e.has_handle => {
                let sessions: Vec<u16> = live_ones(&self.sessions).collect();
                return match call.handle("handle") {
                    Ref::Made(_) if a % 11 == 10 && sessions.len() > 1 => {
                        Ref::Made(sessions[usize::from(a) % sessions.len()])
                    }
                    Ref::Made(h) => Ref::Made(self.pvar_handles[usize::from(h)].session),
                    _ => self.handle_ref(&sessions, self.sessions.len(), k, c),
                };
            }
            HandleKind::Pvar => {
                if e.all_handles > 0 && (live.is_empty() || a % e.all_handles == e.all_handles - 1)
                {
                    return Ref::All;
                }
                if self.mode.robustness && !call.takes_all_handles() && c % 7 == 6 {
                    return Ref::All;
                }
                // With a handle that counted activity, a reset mostly resets another
                // one and a read mostly reads it: the other handles keep their counts
                // (R-SESS-1, mpich#1930).
                let want = match (call.act(), e.sees_template) {
                    (Some(Act::Reset), _) => Some(false),
                    (None, Sees::Read(..)) => Some(true),
                    _ => None,
                };
                let counted = |n: &u16| table[usize::from(*n)].counted;
                if let Some(w) = want.filter(|_| (a >> 2) % 4 != 3 && live.iter().any(counted)) {
                    let some: Vec<u16> = live.iter().copied().filter(|n| counted(n) == w).collect();
                    if !some.is_empty() {
                        live = some;
                    }
                }
                if call.act() == Some(Act::Start) && a % 4 != 3 {
                    let stopped: Vec<u16> = live
                        .iter()
                        .copied()
                        .filter(|n| !table[usize::from(*n)].started)
                        .collect();
                    if !stopped.is_empty() {
                        live = stopped;
                    }
                }
            }
            _ => {}
        }
        // A write-back needs a value read through the same handle.
        if e.has_data && self.data(a) == Data::Readback {
            let read: Vec<u16> = live
                .iter()
                .copied()
                .filter(|n| table[usize::from(*n)].read)
                .collect();
            if !read.is_empty() || !self.mirror().exact_values {
                live = read;
            }
        }
        self.handle_ref(&live, table.len(), k, c)
    }

    /// The length of the string a (buf, len) parameter returns: the entry's name or
    /// description, the enumeration's name or its item's (8 when out of range).
    fn strlen(&self, call: &Call, param: &str) -> usize {
        if let Some(e) = self.enum_of(call) {
            let item = call.arg("item").map(|_| call.int("item"));
            return match item {
                None => e.name.len(),
                Some(i) => usize::try_from(i)
                    .ok()
                    .and_then(|i| e.items.get(i))
                    .map_or(8, |it| it.name.len()),
            };
        }
        let (name, desc) = match (call.func.strings_kind(), call.entry()) {
            (Some(k), Some((_, i))) => self.strings_of(k, i),
            _ => (8, 8),
        };
        match param {
            "desc" => desc,
            _ => name,
        }
    }

    fn enum_of(&self, call: &Call) -> Option<&Enum> {
        let A::Enumtype(e) = call.arg("enumtype")? else {
            return None;
        };
        let name = self.enums.get(usize::from(*e))?;
        self.mirror().catalog.enums.iter().find(|x| &x.name == name)
    }
}
