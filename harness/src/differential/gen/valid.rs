//! Whether a call may come next (proptest-state-machine's precondition, checked again
//! while shrinking, and the filter on cargo-fuzz's picks): it names only objects the
//! sequence made and functions the target exports, with valid arguments unless
//! robustness is asked for (MPI-4.1 §15.3.10: the implementation need not check them).

use super::plan::Gate;
use super::{Gen, Life};
use crate::differential::op::{Call, Data, Kind, Ref, Sees, A};
use crate::differential::HandleKind;
use crate::judge::policy::{self, Policy};

/// MPI sessions a lifecycle sequence opens at most.
const MPI_SESSIONS: u8 = 3;

impl Gen {
    fn supports(&self, f: &str) -> bool {
        self.mirror().supports(f)
    }

    fn valid_ref(&self, table: &[Life], r: Ref) -> bool {
        match r {
            Ref::Made(n) => {
                (n as usize) < table.len() && (self.mode.robustness || table[n as usize].live)
            }
            Ref::Null | Ref::Foreign(_) => self.mode.robustness,
            Ref::All => false,
        }
    }

    fn writable_data(&self, table: &[Life], h: Ref, d: Data) -> bool {
        d != Data::Readback
            || matches!(h, Ref::Made(n) if table.get(n as usize).is_some_and(|l| l.read))
    }

    /// Whether this call may come next (proptest-state-machine's precondition, also
    /// checked while shrinking): it names only objects the sequence made, and only
    /// valid arguments unless robustness is asked for. Read off the call's arguments
    /// by what each is, and the table's columns: no function is named here.
    pub fn valid(&self, c: &Call) -> bool {
        // (The function's name is made only when there is a list to look it up in.)
        let listed = !self.mirror().unsupported.is_empty();
        if listed && !c.needs_hooks() && !self.supports(c.func.c_name()) {
            return false;
        }
        self.gate_open(Gate::of(c.func))
            && c.named_args().all(|(name, a)| self.valid_arg(c, name, a))
    }

    /// Whether a call behind this gate may come next (also what `pick` draws among).
    pub(super) fn gate_open(&self, g: Gate) -> bool {
        match g {
            // The reference's hooks, on its entries only.
            Gate::Harness => self.mirror().hooks,
            // MPI_Init, once, where the catalog says what it adds (R-CVAR-1).
            Gate::Mpi => self.mode.lifecycle && self.mirror().declared && !self.mpi,
            // MPI_Finalize, once, after MPI_Init: MPI_T "can be called [...] after
            // MPI_FINALIZE" (R-GEN-4), so MPI_T calls (and the closing MPI_T_finalize
            // calls) follow it; MPI is not initialized again (a fresh process each).
            Gate::MpiEnd => self.mode.lifecycle && self.mpi && !self.mpi_finalized,
            // MPI_Session_init, a few times, before MPI_Finalize, where the catalog says
            // what MPI adds (a session, like MPI_Init, may load what adds variables): it
            // leaves MPI_T as it was (R-MPI-2). The sessions stay open: the process
            // ends with the sequence.
            Gate::MpiSession => {
                self.mode.lifecycle
                    && self.mirror().declared
                    && !self.mpi_finalized
                    && self.mpi_sessions < MPI_SESSIONS
            }
            // R-INIT-1: nested, at most so deep.
            Gate::DepthUp => self.depth < 8,
            // R-FIN-1: after an init, unless lifecycle probes it.
            Gate::DepthDown => self.mode.lifecycle || self.depth > 0,
            Gate::Any => true,
        }
    }

    fn valid_arg(&self, c: &Call, name: &str, a: &A) -> bool {
        let r = self.mode.robustness;
        match *a {
            // The hooks raise only events of the catalog, in any mode.
            A::Index(k, i) if c.needs_hooks() => self.in_range(k, i),
            // A handle is allocated for an entry without an MPI object (R-BIND-3), or in
            // robustness mode for one out of range.
            A::Index(k, i) if matches!(c.sees, Sees::Alloc { .. }) => {
                let unbound = match k {
                    Kind::Cvar => &self.fixed.unbound.cvars,
                    Kind::Pvar => &self.fixed.unbound.pvars,
                    Kind::Event => &self.fixed.unbound.events,
                    _ => return false,
                };
                (unbound.contains(&i) && self.in_range(k, i)) || (r && !self.in_range(k, i))
            }
            A::Index(k, i) => r || self.in_range(k, i),
            // MPI_T_PVAR_ALL_HANDLES where start, stop and reset take it (R-PSTART-2);
            // read, write and readreset cannot (R-PREAD-1), robustness only.
            A::Handle(HandleKind::Pvar, Ref::All) => {
                c.takes_all_handles() || (r && policy::has(c.func, Policy::RefusesAllHandles))
            }
            // An instance is valid only during its callback (R-EVT-INST): robustness.
            A::Handle(HandleKind::Instance, Ref::Made(n)) => r && n < self.instances,
            A::Handle(HandleKind::Instance, _) => false,
            A::Handle(k, h) => self.valid_ref(self.table(k), h),
            A::Enumtype(e) => usize::from(e) < self.enums.len(),
            A::Int(item) if name == "item" => {
                let Some(e) = self.enums.get(c.int("enumtype") as usize) else {
                    return false;
                };
                let n = self
                    .mirror()
                    .catalog
                    .enums
                    .iter()
                    .find(|x| &x.name == e)
                    .map_or(0, |x| x.items.len() as i64);
                r || (item >= 0 && item < n)
            }
            A::Data(k, h, d) => self.writable_data(self.table(k), h, d),
            _ => true,
        }
    }

    /// The objects of a handle kind the sequence made.
    pub(super) fn table(&self, k: HandleKind) -> &[Life] {
        match k {
            HandleKind::Cvar => &self.cvar_handles,
            HandleKind::Session => &self.sessions,
            HandleKind::Pvar => &self.pvar_handles,
            HandleKind::Registration => &self.registrations,
            HandleKind::Instance => &[],
        }
    }
}
