//! Which calls make sense next: [`Gen`] is the shape of the reference model's state
//! (which handles and sessions are live, how deep MPI_T is initialized, which enums
//! were returned), the way wasmtime's API generators track live objects. It turns a
//! few random numbers ([`Pick`], from proptest or from cargo-fuzz's bytes) into a call
//! the standard allows in that state — or, in robustness mode, one with an argument
//! it leaves undefined — and says at which level the standard fixes its outcome.
//!
//! This module holds the state and how each call changes it ([`Gen::apply`], as the
//! standard predicts it for a conformant library, read off what the call is: its init
//! count, a handle made or freed, a read); the rest is one question a module:
//!
//! - `plan`: which functions it calls, how often (`specs/generator.yaml`), and what
//!   each parameter takes, read off the function table;
//! - `pick`: which of them a [`Pick`] calls in a state;
//! - `build`: the call's arguments, drawn by what each parameter is, and what both
//!   engines observe of it (no function is named in this module or those above);
//! - `valid`: whether a call may come next (the precondition while shrinking too);
//! - `level`: at which level the standard fixes a call's outcome, and the states
//!   where it allows more than one;
//! - `bytes`: a whole sequence from cargo-fuzz's bytes ([`decode`]).

mod build;
mod bytes;
mod level;
#[cfg(test)]
pub(crate) mod make;
mod pick;
mod plan;
mod sees;
mod valid;

pub use build::call;
pub use bytes::{decode, Sampler};
pub use pick::Pick;
pub use plan::listed;
pub use sees::sees;

use super::op::{Act, Call, Kind, Mode, Ref, Sees, A};
use super::{HandleKind, Mirror};
use mpit_spec::cases::funcs::Group;
use mpit_vocab::spec::Bind;
use mpit_vocab::spec::Datatype;
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

/// One object a sequence made, as the generator predicts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Life {
    pub index: i32,
    /// For pvar handles: the session (its creation number).
    pub session: u16,
    pub live: bool,
    /// Read through at least once (a `Data::Readback` write needs a value to write back).
    pub read: bool,
    /// For registrations: the safety levels with a callback (bit `CbSafety as u8`).
    pub cbs: u8,
    /// For pvar handles: started (by itself or through ALL_HANDLES) and not stopped.
    pub started: bool,
    /// For pvar handles of a writable COUNTER, AGGREGATE or TIMER: counted activity
    /// (started or continuous when it ran) and not reset since, so that a reset of
    /// another handle must leave its value alone (R-SESS-1, mpich#1930).
    pub counted: bool,
}

impl Life {
    fn new(index: i32, session: u16) -> Life {
        Life {
            index,
            session,
            live: true,
            read: false,
            cbs: 0,
            started: false,
            counted: false,
        }
    }
}

/// Entries a handle can be allocated for without an MPI object (bind NO_OBJECT:
/// `obj_handle` is ignored, R-BIND-3), by kind.
#[derive(Debug, Default)]
pub struct Unbound {
    pub cvars: Vec<i32>,
    pub pvars: Vec<i32>,
    pub events: Vec<i32>,
}

impl Unbound {
    /// The mirror's: handles are allocated for entries without an object to bind
    /// (and not avoided with `--avoid`).
    pub fn of(mirror: &Mirror) -> Unbound {
        let c = &mirror.catalog;
        let unbound = |k: Kind, binds: Vec<Bind>| {
            binds
                .into_iter()
                .enumerate()
                .filter(|(_, b)| *b == Bind::NoObject)
                .map(|(i, _)| i as i32)
                .filter(|i| !mirror.avoids(k, *i))
                .collect()
        };
        Unbound {
            cvars: unbound(Kind::Cvar, c.cvars.iter().map(|v| v.bind).collect()),
            pvars: unbound(Kind::Pvar, c.pvars.iter().map(|v| v.bind).collect()),
            events: unbound(Kind::Event, c.events.iter().map(|v| v.bind).collect()),
        }
    }
}

/// The objects of a handle kind a sequence made, shared between a state and its
/// clones until one changes it (`Rc::make_mut`): the property search clones the state
/// for every call it draws (`props::Machine::transitions`), and most calls change no
/// table, so a clone was mostly copies of tables that stayed as they were.
pub type Table = Rc<Vec<Life>>;

/// What every state of a sequence shares and none changes: the mirror and its entries a
/// handle can be allocated for. Behind one `Rc`, so that a clone of a state bumps one
/// count that is not atomic: the search clones a state for every call it draws, and
/// atomic counts there (two `Arc`s, and the tables' when they were `Arc`s) were
/// measurable in the property search (reports/bench/ANALYSIS.md, "The one function table").
struct Fixed {
    mirror: Arc<Mirror>,
    unbound: Arc<Unbound>,
}

/// The generator's state.
#[derive(Clone)]
pub struct Gen {
    fixed: Rc<Fixed>,
    pub mode: Mode,
    /// `MPI_T_init_thread` calls of the sequence not yet finalized (outside lifecycle
    /// mode the worker's own init is underneath: the sequence never finalizes it).
    pub depth: u32,
    pub cvar_handles: Table,
    pub sessions: Table,
    pub pvar_handles: Table,
    pub registrations: Table,
    /// Enum names in the order get_info first returned them (the numbers of
    /// `A::Enumtype`).
    pub enums: Rc<Vec<String>>,
    /// `MPI_Init` was called (the entries that appear at it are numbered, also after
    /// `MPI_Finalize`: nothing is removed, R-CVAR-1).
    pub mpi: bool,
    /// `MPI_Finalize` was called (lifecycle; MPI_T stays usable, R-GEN-4).
    pub mpi_finalized: bool,
    /// `MPI_Session_init` calls made (lifecycle; the sessions stay open), and whether
    /// one was made while MPI_T was initialized.
    pub mpi_sessions: u8,
    pub mpi_session_under_t: bool,
    /// Event instances delivered so far (the numbers of `HandleKind::Instance`).
    pub instances: u16,
    /// MPI_T was fully finalized and initialized again (lifecycle): the catalog is the
    /// same as before (MPI-4.1 §15.3.6, R-CVAR-1), so the generator asks it again.
    pub reinit: bool,
    finalized: bool,
    /// Each listed call's tickets in this state as running totals (`pick`), worked out
    /// on the first pick:
    /// proptest reads a transition's value more than once, and each read picks again.
    tickets: std::cell::OnceCell<Rc<[u32]>>,
}

impl std::fmt::Debug for Gen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Gen {{ depth: {}, cvar handles: {}, sessions: {}, pvar handles: {}, registrations: {}, enums: {} }}",
            self.depth,
            self.cvar_handles.len(),
            self.sessions.len(),
            self.pvar_handles.len(),
            self.registrations.len(),
            self.enums.len()
        )
    }
}

/// The creation numbers of a table's live objects, in order.
fn live_ones(v: &[Life]) -> impl Iterator<Item = u16> + '_ {
    (0..v.len() as u16).filter(|n| v[*n as usize].live)
}

impl Gen {
    pub fn new(mirror: Arc<Mirror>, mode: Mode) -> Gen {
        // Made once per mirror, not per sequence (a sequence is a few dozen calls).
        let unbound = mirror.unbound();
        Gen {
            fixed: Rc::new(Fixed { mirror, unbound }),
            mode,
            depth: 0,
            cvar_handles: Table::default(),
            sessions: Table::default(),
            pvar_handles: Table::default(),
            registrations: Table::default(),
            enums: Rc::default(),
            mpi: false,
            mpi_finalized: false,
            mpi_sessions: 0,
            mpi_session_under_t: false,
            instances: 0,
            reinit: false,
            finalized: false,
            tickets: std::cell::OnceCell::new(),
        }
    }

    /// The mirrored catalog the sequence is generated for.
    pub fn mirror(&self) -> &Arc<Mirror> {
        &self.fixed.mirror
    }

    /// Entries of a kind numbered at this point: the mirror's, and after `MPI_Init`
    /// those a declared catalog adds then.
    pub fn count(&self, k: Kind) -> i32 {
        let m = self.mirror();
        m.count(k) + if self.mpi { m.late(k) } else { 0 }
    }

    /// Whether MPI_T is initialized at this point of the sequence.
    pub fn initialized(&self) -> bool {
        !self.mode.lifecycle || self.depth > 0
    }

    fn in_range(&self, k: Kind, i: i32) -> bool {
        i >= 0 && i < self.count(k)
    }

    fn live(table: &[Life], r: Ref) -> bool {
        matches!(r, Ref::Made(n) if table.get(n as usize).is_some_and(|l| l.live))
    }

    /// The datatype of the variable a read (`cvar_read`, `pvar_read[reset]`) of a
    /// handle the sequence made reads.
    pub fn read_datatype(&self, c: &Call) -> Option<Datatype> {
        let cat = &self.mirror().catalog;
        let Sees::Read(kind, Ref::Made(n)) = c.sees else {
            return None;
        };
        let slot = |t: &[Life]| t.get(usize::from(n)).map(|l| l.index as usize);
        match kind {
            HandleKind::Cvar => Some(cat.cvars.get(slot(&self.cvar_handles)?)?.datatype),
            HandleKind::Pvar => Some(cat.pvars.get(slot(&self.pvar_handles)?)?.datatype),
            _ => None,
        }
    }

    /// The objects of a handle kind the sequence made (event instances are only
    /// counted: [`Gen::instances`]).
    fn table_mut(&mut self, k: HandleKind) -> Option<&mut Vec<Life>> {
        match k {
            HandleKind::Cvar => Some(Rc::make_mut(&mut self.cvar_handles)),
            HandleKind::Session => Some(Rc::make_mut(&mut self.sessions)),
            HandleKind::Pvar => Some(Rc::make_mut(&mut self.pvar_handles)),
            HandleKind::Registration => Some(Rc::make_mut(&mut self.registrations)),
            HandleKind::Instance => None,
        }
    }

    /// The pvar handles (creation numbers) a start, stop or reset of `handle` in
    /// `session` acts on: that one, or with ALL_HANDLES every live one of the session.
    pub fn pvar_targets(&self, handle: Ref, session: Ref) -> Vec<usize> {
        match (handle, session) {
            (Ref::Made(n), _) => vec![usize::from(n)],
            (Ref::All, Ref::Made(s)) => (0..self.pvar_handles.len())
                .filter(|h| self.pvar_handles[*h].session == s && self.pvar_handles[*h].live)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the mirror's pvar `index` is continuous (its handles count from their
    /// allocation: R-PSTART-1).
    pub fn continuous(&self, index: i32) -> bool {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.mirror().catalog.pvars.get(i))
            .is_some_and(|p| p.continuous)
    }

    /// The state after `c`, as the standard predicts it for a conformant library, by
    /// what the call is: its init count (the table's `depth:`), MPI_Init, a handle made
    /// or freed, a read, a callback set or an event raised, a start or stop.
    pub fn apply(&mut self, c: &Call) {
        self.tickets = std::cell::OnceCell::new();
        let depth = c.func.depth();
        if depth > 0 {
            self.reinit |= self.depth == 0 && self.finalized;
            self.depth += 1;
            return;
        }
        if depth < 0 {
            if self.depth > 0 {
                self.finalize_one();
            }
            return;
        }
        if c.func.group() == Group::Mpi {
            match plan::Gate::of(c.func) {
                plan::Gate::MpiEnd => self.mpi_finalized = true,
                plan::Gate::MpiSession => {
                    self.mpi_sessions = self.mpi_sessions.saturating_add(1);
                    self.mpi_session_under_t |= self.depth > 0;
                }
                _ => self.mpi = true,
            }
            return;
        }
        if !self.initialized() {
            return;
        }
        if c.func.group() == Group::Harness && c.arg("steps").is_some() {
            self.activity();
            return;
        }
        if let Some((k, Ref::Made(n))) = c.frees() {
            self.free(k, n, c.handle("session"));
            return;
        }
        match c.sees {
            // R-EVT-CB (MPI-4.1 §15.3.8): each live registration of the event with a
            // callback at a level valid here gets one instance; the others drop it.
            Sees::Raise(index) => {
                let valid = !0u8 << (c.safety() as u8);
                let n = self
                    .registrations
                    .iter()
                    .filter(|l| l.live && l.index == index && l.cbs & valid != 0)
                    .count();
                self.instances = self.instances.saturating_add(n as u16);
            }
            // Only a get_info that returns its enumtype gives the sequence an
            // enumeration: the name alone, or every OUT NULL, gives none, so a later
            // enum_get_info could only pass MPI_T_ENUM_NULL, which is no valid argument
            // (an invalid parameter value: R-GEN-3).
            Sees::Info(_) if !c.null_outs => {
                // Copied only when new (most get_info calls return a known one).
                let new = c
                    .entry()
                    .and_then(|(k, i)| self.enumtype(k, i))
                    .filter(|e| !self.enums.iter().any(|x| x == e))
                    .map(str::to_owned);
                if let Some(e) = new {
                    Rc::make_mut(&mut self.enums).push(e);
                }
            }
            Sees::Alloc { kind, index } => self.alloc(c, kind, index),
            // Changed (and so copied, when shared) only the first time.
            Sees::Read(kind, Ref::Made(n))
                if self
                    .table(kind)
                    .get(usize::from(n))
                    .is_some_and(|l| !l.read) =>
            {
                if let Some(l) = self.table_mut(kind).and_then(|t| t.get_mut(usize::from(n))) {
                    l.read = true;
                }
            }
            _ => {}
        }
        // A callback set or removed at a level (R-EVT-CB). (Each argument is looked up
        // only where the one before it says the call is of that kind.)
        if let Some(A::Flag(set)) = c.arg("callback") {
            if let Ref::Made(n) = c.handle("registration") {
                if Self::live(&self.registrations, Ref::Made(n)) {
                    let l = &mut Rc::make_mut(&mut self.registrations)[usize::from(n)];
                    let bit = 1u8 << (c.safety() as u8);
                    l.cbs = if *set { l.cbs | bit } else { l.cbs & !bit };
                }
            }
        }
        let act = match c.act() {
            Some(act) => act,
            // A readreset resets what it reads (R-PRR-1).
            None if c.resets() => Act::Reset,
            None => return,
        };
        if let Ref::Made(s) = c.handle("session") {
            let handle = c.handle("handle");
            for (n, l) in Rc::make_mut(&mut self.pvar_handles).iter_mut().enumerate() {
                let named = match handle {
                    Ref::Made(h) => usize::from(h) == n,
                    Ref::All => l.session == s,
                    _ => false,
                };
                match act {
                    _ if !named || !l.live => {}
                    Act::Reset => l.counted = false,
                    _ => l.started = act == Act::Start,
                }
            }
        }
    }

    /// MPI activity (the reference's `simulate`): each live handle of a writable
    /// COUNTER, AGGREGATE or TIMER that is started, or continuous (R-PSTART-1), counts
    /// it (R-PCLASS). Copied only when a handle starts counting.
    fn activity(&mut self) {
        let cat = &self.fixed.mirror.catalog;
        let counts = |l: &Life| {
            let p = usize::try_from(l.index).ok().and_then(|i| cat.pvars.get(i));
            l.live
                && !l.counted
                && p.is_some_and(|p| {
                    p.class.starts_at_zero() && !p.readonly && (l.started || p.continuous)
                })
        };
        if !self.pvar_handles.iter().any(counts) {
            return;
        }
        for l in Rc::make_mut(&mut self.pvar_handles).iter_mut() {
            if counts(l) {
                l.counted = true;
            }
        }
    }

    /// A finalize of the sequence's init; after the last one in lifecycle mode no
    /// handle or session survives (the text keeps the catalog, says nothing of them).
    fn finalize_one(&mut self) {
        self.depth -= 1;
        if self.mode.lifecycle && self.depth == 0 {
            self.finalized = true;
            for l in Rc::make_mut(&mut self.cvar_handles)
                .iter_mut()
                .chain(Rc::make_mut(&mut self.sessions))
                .chain(Rc::make_mut(&mut self.pvar_handles))
                .chain(Rc::make_mut(&mut self.registrations))
            {
                l.live = false;
            }
        }
    }

    /// The enumtype (by name) of an entry in range, if it has one.
    fn enumtype(&self, k: Kind, i: i32) -> Option<&str> {
        if !self.in_range(k, i) {
            return None;
        }
        let c = &self.mirror().catalog;
        let u = i as usize;
        match k {
            Kind::Cvar => c.cvars[u].enumtype.as_deref(),
            Kind::Pvar => c.pvars[u].enumtype.as_deref(),
            Kind::Event => c.events[u].enumtype.as_deref(),
            _ => None,
        }
    }

    /// A handle made for the entry the call's index names (in range), in the session it
    /// names (live), if any.
    fn alloc(&mut self, c: &Call, kind: HandleKind, index: i32) {
        if let Some((k, i)) = c.entry() {
            if !self.in_range(k, i) {
                return;
            }
        }
        let session = match c.arg("session") {
            None => 0,
            Some(A::Handle(_, Ref::Made(s))) if Self::live(&self.sessions, Ref::Made(*s)) => *s,
            Some(_) => return,
        };
        if let Some(t) = self.table_mut(kind) {
            t.push(Life::new(index, session));
        }
    }

    /// Object `n` of a kind freed: a session only while live, and with it its handles
    /// (R-SESS-1); a pvar handle only with its own session (R-PH-1).
    fn free(&mut self, k: HandleKind, n: u16, session: Ref) {
        let u = usize::from(n);
        if k == HandleKind::Session {
            if Self::live(&self.sessions, Ref::Made(n)) {
                Rc::make_mut(&mut self.sessions)[u].live = false;
                for h in Rc::make_mut(&mut self.pvar_handles)
                    .iter_mut()
                    .filter(|h| h.session == n)
                {
                    h.live = false;
                }
            }
            return;
        }
        let Some(l) = self.table_mut(k).and_then(|t| t.get_mut(u)) else {
            return;
        };
        match (k, session) {
            (HandleKind::Pvar, Ref::Made(s)) if l.session == s => l.live = false,
            (HandleKind::Pvar, _) => {}
            _ => l.live = false,
        }
    }

    /// The calls that the sequence ends with to leave the process as it found it:
    /// every live registration, cvar handle and session freed (pvar handles go with
    /// their session, R-SESS-1), every init of the sequence finalized (so a worker can
    /// run the next sequence). Each is the generator's call that frees that kind of
    /// handle, or lowers the init count (the table's `depth:`).
    pub fn cleanup(&self) -> Vec<Call> {
        let mut calls = Vec::new();
        if !self.initialized() {
            return calls;
        }
        // The entries these calls are made of, looked up once (every sequence ends
        // with them).
        type Closers = (
            [Option<&'static plan::Entry>; 3],
            Option<&'static plan::Entry>,
        );
        static CLOSERS: OnceLock<Closers> = OnceLock::new();
        const FREED: [HandleKind; 3] = [
            HandleKind::Registration,
            HandleKind::Cvar,
            HandleKind::Session,
        ];
        let (frees, lowers) = CLOSERS.get_or_init(|| {
            let entries = plan::entries();
            (
                FREED.map(|kind| entries.iter().find(|e| e.frees == Some(kind))),
                entries.iter().find(|e| e.func.depth() < 0),
            )
        });
        for (kind, e) in FREED.into_iter().zip(frees) {
            let Some(e) = e else {
                continue;
            };
            let param = e.func.outs().first().copied().unwrap_or("handle");
            for n in live_ones(self.table(kind)) {
                let fixed = (param, A::Handle(kind, Ref::Made(n)));
                calls.push(self.make(e, Pick::default(), Some(fixed)));
            }
        }
        if let Some(e) = lowers {
            for _ in 0..self.depth {
                calls.push(self.make(e, Pick::default(), None));
            }
        }
        calls
    }
}
