//! Which call a [`Pick`] makes in a state: a draw among the calls of
//! `specs/generator.yaml` that can be made there (their arguments exist: a live handle,
//! a session, an enumtype returned, an entry to allocate for), each with the file's
//! tickets (more where the semantics are: started counters, isolated sessions, a
//! re-init), then their arguments by role (`build`). Small numbers make simple calls,
//! so shrinking the numbers simplifies the call.

use super::plan::{self, Cond, Entry, Gate, IndexFrom, Role};
use super::Gen;
use crate::differential::op::{Call, Kind};
use crate::differential::HandleKind;
use mpit_vocab::spec::PvarClass;
use std::cell::RefCell;
use std::rc::Rc;

/// Random numbers one call is made from. Small values make simple calls, so shrinking
/// the numbers towards zero simplifies the call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, arbitrary::Arbitrary)]
pub struct Pick {
    /// Which call (a ticket of the draw).
    pub what: u16,
    pub a: u16,
    pub b: u16,
    pub c: u8,
}

impl Gen {
    /// Whether a live handle measures a writable COUNTER, AGGREGATE or TIMER and none a
    /// watermark: then the generator probes session isolation.
    fn isolation_probe(&self) -> bool {
        let mut counter = false;
        for l in self.pvar_handles.iter().filter(|l| l.live) {
            let Some(p) = usize::try_from(l.index)
                .ok()
                .and_then(|i| self.mirror().catalog.pvars.get(i))
            else {
                continue;
            };
            if matches!(p.class, PvarClass::HighWatermark | PvarClass::LowWatermark) {
                return false;
            }
            counter |= p.class.starts_at_zero() && !p.readonly;
        }
        counter
    }

    /// The call a pick makes in this state: the ticket `what` of the draw among the
    /// calls that can be made here.
    pub fn pick(&self, p: Pick) -> Call {
        let entries = plan::entries();
        let tickets = self.tickets.get_or_init(|| {
            // What the entries ask of the state, each once (the isolation probe reads
            // every handle). The tickets depend on these facts alone, and a search
            // meets a few hundred distinct sets of them: each set's tickets are worked
            // out once per thread, as running totals (a draw is then a binary search).
            let here = Here::of(self);
            let key = here.key();
            TICKETS.with_borrow_mut(|seen| {
                // The state before most often had the same facts: its set first.
                if seen.keys.get(seen.last) == Some(&key) {
                    return seen.tickets[seen.last].clone();
                }
                let i = match seen.keys.binary_search(&key) {
                    Ok(i) => i,
                    Err(i) => {
                        let t: Rc<[u32]> = entries
                            .iter()
                            .scan(0, |total, e| {
                                *total += here.tickets(e);
                                Some(*total)
                            })
                            .collect();
                        seen.keys.insert(i, key);
                        seen.tickets.insert(i, t);
                        i
                    }
                };
                seen.last = i;
                seen.tickets[i].clone()
            })
        });
        let total = tickets.last().copied().unwrap_or(0);
        let t = u32::from(p.what) % total.max(1);
        // The first entry whose running total passes the ticket drawn.
        let e = entries
            .get(tickets.partition_point(|n| *n <= t))
            .unwrap_or(&entries[0]);
        self.make(e, p, None)
    }

    /// Every condition of `Cond::ALL` here (one pass over the pvar handles).
    fn conditions(&self) -> [bool; Cond::ALL.len()] {
        let (mut live, mut started, mut counted) = (0, 0, false);
        for l in self.pvar_handles.iter().filter(|l| l.live) {
            live += 1;
            started += usize::from(l.started);
            counted |= l.counted;
        }
        let sessions = self.sessions.iter().filter(|l| l.live).count();
        // Each condition stored at its position, in straight-line code: a loop over
        // `Cond::ALL` matching each one compiled to an indirect jump per condition that
        // mispredicted nine times in ten (cachegrind: ~507k per 4,096-sequence search).
        let mut holds = [false; Cond::ALL.len()];
        let mut set = |c: Cond, v: bool| holds[c as usize] = v;
        set(Cond::Stopped, started < live);
        set(Cond::Started, started > 0);
        // The probe reads every live handle's variable: none, no probe.
        set(Cond::Probe, live > 0 && self.isolation_probe());
        set(Cond::OneSession, sessions == 1);
        set(Cond::OneHandle, live == 1);
        set(Cond::TwoHandles, live >= 2);
        set(Cond::PvarHandle, live >= 1);
        set(Cond::Reinit, self.reinit && self.depth > 0);
        set(Cond::Finalized, self.finalized && self.depth == 0);
        set(
            Cond::AroundInit,
            self.mode.lifecycle && self.mirror().declared && self.depth > 0,
        );
        set(Cond::Lifecycle, self.mode.lifecycle);
        set(Cond::Hooks, self.mirror().hooks);
        // MPI_Init added entries and MPI_T is initialized to ask for them (R-CVAR-1,
        // R-PVAR-1: they stay, numbered after the others, also after MPI_Finalize).
        set(
            Cond::Added,
            self.mpi && self.depth > 0 && Kind::ALL.iter().any(|k| self.mirror().late(*k) > 0),
        );
        set(Cond::MpiSession, self.mpi_session_under_t && self.depth > 0);
        set(Cond::Counted, counted);
        set(Cond::Valid, !self.mode.robustness);
        // Names every condition, so that a new one does not compile until it is set
        // above (it would otherwise never hold).
        let _every_one_set = |c: Cond| match c {
            Cond::Stopped | Cond::Started | Cond::Probe | Cond::OneSession => (),
            Cond::OneHandle | Cond::TwoHandles | Cond::PvarHandle | Cond::Reinit => (),
            Cond::Finalized | Cond::AroundInit | Cond::Lifecycle | Cond::Hooks => (),
            Cond::Added | Cond::MpiSession | Cond::Counted | Cond::Valid => (),
        };
        holds
    }

    /// The entries of a kind a handle can be allocated for (no object to bind).
    pub(super) fn unbound_of(&self, k: Kind) -> Option<&[i32]> {
        match k {
            Kind::Cvar => Some(&self.fixed.unbound.cvars),
            Kind::Pvar => Some(&self.fixed.unbound.pvars),
            Kind::Event => Some(&self.fixed.unbound.events),
            Kind::Category | Kind::Source => None,
        }
    }
}

thread_local! {
    /// The bundled entries' tickets (running totals, in the file's order) by what they
    /// read of a state (`Here::key`). A search meets some hundreds of keys; a binary
    /// search of them measured no slower than a hash map. `Rc`: per thread, and an
    /// atomic count per pick was measurable.
    static TICKETS: RefCell<Seen> = const {
        RefCell::new(Seen {
            keys: Vec::new(),
            tickets: Vec::new(),
            last: 0,
        })
    };
}

/// The sets of facts met so far: their keys sorted (apart, so that a binary search
/// reads only keys), each one's tickets, and the last one drawn from.
struct Seen {
    keys: Vec<u64>,
    tickets: Vec<Rc<[u32]>>,
    last: usize,
}

/// What the entries' tickets read of one state, worked out once per state.
struct Here {
    holds: [bool; Cond::ALL.len()],
    /// Whether a call behind each [`Gate`] may be made (`Gen::gate_open`, the
    /// precondition's).
    gates: [bool; Gate::ALL.len()],
    /// By `HandleKind`: a live object of the kind, or in robustness mode any the
    /// sequence made; and a value read through a live handle (or the reference's
    /// exact values: a write needs no read-back).
    made: [bool; HandleKind::ALL.len()],
    data: [bool; HandleKind::ALL.len()],
    /// By `Kind`: an entry to pass (robustness passes indices out of range too), and
    /// an entry with no object to bind to allocate a handle for.
    index: [bool; Kind::ALL.len()],
    unbound: [bool; Kind::ALL.len()],
    registrations: bool,
    instances: bool,
    enums: bool,
}

impl Here {
    fn of(g: &Gen) -> Here {
        let m = g.mirror();
        let r = g.mode.robustness;
        // Plain loops rather than `[T; N]::map`: this runs once per state generated,
        // and the maps' closures were not inlined (`try_map` in the profile).
        let mut gates = [false; Gate::ALL.len()];
        for (open, x) in gates.iter_mut().zip(Gate::ALL) {
            *open = g.gate_open(x);
        }
        let (mut made, mut data) = (
            [false; HandleKind::ALL.len()],
            [false; HandleKind::ALL.len()],
        );
        for (i, k) in HandleKind::ALL.into_iter().enumerate() {
            let t = g.table(k);
            made[i] = t.iter().any(|l| l.live) || (r && !t.is_empty());
            data[i] = m.exact_values || t.iter().any(|l| l.live && l.read);
        }
        let (mut index, mut unbound) = ([false; Kind::ALL.len()], [false; Kind::ALL.len()]);
        for (i, k) in Kind::ALL.into_iter().enumerate() {
            let n = g.count(k);
            index[i] = r || n > 0;
            unbound[i] = g.unbound_of(k).is_some_and(|l| l.iter().any(|x| *x < n));
        }
        Here {
            holds: g.conditions(),
            gates,
            made,
            data,
            index,
            unbound,
            registrations: !g.registrations.is_empty(),
            instances: r && g.instances > 0,
            enums: !g.enums.is_empty(),
        }
    }

    /// Every fact in one number, a bit each, the tickets' cache key.
    fn key(&self) -> u64 {
        const BITS: usize =
            Cond::ALL.len() + Gate::ALL.len() + 2 * HandleKind::ALL.len() + 2 * Kind::ALL.len() + 3;
        const _: () = assert!(BITS <= 64);
        let last = [self.registrations, self.instances, self.enums];
        let sets: [&[bool]; 7] = [
            &self.holds,
            &self.gates,
            &self.made,
            &self.data,
            &self.index,
            &self.unbound,
            &last,
        ];
        let mut k = 0;
        for set in sets {
            for b in set {
                k = (k << 1) | u64::from(*b);
            }
        }
        k
    }

    /// An entry's tickets here: none when it cannot be made, else its weight and the
    /// extra weights whose conditions hold.
    fn tickets(&self, e: &Entry) -> u32 {
        if !self.can_make(e) {
            return 0;
        }
        e.weight
            + e.more
                .iter()
                .filter(|m| m.when.iter().all(|c| self.holds[*c as usize]))
                .map(|m| m.weight)
                .sum::<u32>()
    }

    /// Whether a call of `e` can be made here: its gate, and every argument's objects
    /// exist (a live one, or in robustness mode any the sequence made).
    fn can_make(&self, e: &Entry) -> bool {
        self.gates[e.gate as usize]
            && e.params.iter().all(|(_, _, role)| match role {
                Role::Index(_) if e.index_from == Some(IndexFrom::Registrations) => {
                    self.registrations
                }
                Role::Index(k) if e.allocates => self.unbound[*k as usize],
                Role::Index(k) => self.index[*k as usize],
                Role::Handle(HandleKind::Instance) => self.instances,
                Role::Handle(HandleKind::Pvar) if e.all_handles > 0 => true,
                Role::Handle(k) => self.made[*k as usize],
                Role::Enumtype => self.enums,
                Role::Data(k) => self.data[*k as usize],
                _ => true,
            })
    }
}
