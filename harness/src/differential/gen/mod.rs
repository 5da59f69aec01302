//! Which calls make sense next: [`Gen`] is the shape of the reference model's state
//! (which handles and sessions are live, how deep MPI_T is initialized, which enums
//! were returned), the way wasmtime's API generators track live objects. It turns a
//! few random numbers ([`Pick`], from proptest or from cargo-fuzz's bytes) into a call
//! the standard allows in that state — or, in robustness mode, one with an argument
//! it leaves undefined — and says at which level the standard fixes its outcome.
//!
//! This module holds the state and how each call changes it ([`Gen::apply`], as the
//! standard predicts it for a conformant library); the rest is one question a module:
//!
//! - `pick`: which call a [`Pick`] makes in a state;
//! - `valid`: whether a call may come next (the precondition while shrinking too);
//! - `level`: at which level the standard fixes a call's outcome, and the states
//!   where it allows more than one;
//! - `bytes`: a whole sequence from cargo-fuzz's bytes ([`decode`]).

mod bytes;
mod level;
mod pick;
mod valid;

pub use bytes::{decode, Sampler};
pub use pick::Pick;

use super::op::{Act, Kind, Mode, Op, Ref};
use super::Mirror;
use mpit_reference::spec::Bind;
use mpit_reference::spec::Datatype;
use std::sync::Arc;

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

/// The generator's state.
#[derive(Clone)]
pub struct Gen {
    pub mirror: Arc<Mirror>,
    unbound: Arc<Unbound>,
    pub mode: Mode,
    /// `MPI_T_init_thread` calls of the sequence not yet finalized (outside lifecycle
    /// mode the worker's own init is underneath: the sequence never finalizes it).
    pub depth: u32,
    pub cvar_handles: Vec<Life>,
    pub sessions: Vec<Life>,
    pub pvar_handles: Vec<Life>,
    pub registrations: Vec<Life>,
    /// Enum names in the order get_info first returned them (`Op::EnumGetInfo` numbers).
    pub enums: Vec<String>,
    /// `MPI_Init` was called (the entries that appear at it are numbered).
    pub mpi: bool,
    /// Event instances delivered so far (`Op::EventReadAfter` numbers).
    pub instances: u16,
    /// MPI_T was fully finalized and initialized again (lifecycle): nothing requires
    /// the catalog to be the same as before (R-FIN-3, quality only).
    pub reinit: bool,
    finalized: bool,
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

fn live_ones(v: &[Life]) -> Vec<u16> {
    (0..v.len() as u16)
        .filter(|n| v[*n as usize].live)
        .collect()
}

impl Gen {
    pub fn new(mirror: Arc<Mirror>, mode: Mode) -> Gen {
        // Made once per mirror, not per sequence (a sequence is a few dozen calls).
        let unbound = mirror.unbound();
        Gen {
            mirror,
            unbound,
            mode,
            depth: 0,
            cvar_handles: Vec::new(),
            sessions: Vec::new(),
            pvar_handles: Vec::new(),
            registrations: Vec::new(),
            enums: Vec::new(),
            mpi: false,
            instances: 0,
            reinit: false,
            finalized: false,
        }
    }

    /// Entries of a kind numbered at this point: the mirror's, and after `MPI_Init`
    /// those a declared catalog adds then.
    pub fn count(&self, k: Kind) -> i32 {
        let m = &self.mirror;
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
    pub fn read_datatype(&self, op: &Op) -> Option<Datatype> {
        let c = &self.mirror.catalog;
        let slot = |t: &[Life], n: u16| t.get(usize::from(n)).map(|l| l.index as usize);
        match op {
            Op::CvarRead {
                handle: Ref::Made(n),
            } => Some(c.cvars.get(slot(&self.cvar_handles, *n)?)?.datatype),
            Op::PvarRead {
                handle: Ref::Made(n),
                ..
            } => Some(c.pvars.get(slot(&self.pvar_handles, *n)?)?.datatype),
            _ => None,
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
            .and_then(|i| self.mirror.catalog.pvars.get(i))
            .is_some_and(|p| p.continuous)
    }

    /// The state after `op`, as the standard predicts it for a conformant library.
    pub fn apply(&mut self, op: &Op) {
        let init = self.initialized();
        match op {
            Op::InitThread { .. } => {
                self.reinit |= self.depth == 0 && self.finalized;
                self.depth += 1
            }
            Op::Finalize if self.depth > 0 => {
                self.depth -= 1;
                if self.mode.lifecycle && self.depth == 0 {
                    self.finalized = true;
                    // R-FIN-3: nothing survives the last finalize.
                    for l in self
                        .cvar_handles
                        .iter_mut()
                        .chain(&mut self.sessions)
                        .chain(&mut self.pvar_handles)
                        .chain(&mut self.registrations)
                    {
                        l.live = false;
                    }
                }
            }
            Op::MpiInit => self.mpi = true,
            _ if !init => {}
            Op::EventRegisterCallback {
                registration: Ref::Made(n),
                safety,
                set,
            } if Self::live(&self.registrations, Ref::Made(*n)) => {
                let l = &mut self.registrations[*n as usize];
                let bit = 1u8 << (*safety as u8);
                l.cbs = if *set { l.cbs | bit } else { l.cbs & !bit };
            }
            // R-EVT-CB (MPI-4.1 §15.3.8): each live registration of the event with a callback at a
            // level valid here gets one instance; the others drop it.
            Op::RaiseEvent { index, required } => {
                let valid = !0u8 << (*required as u8);
                let n = self
                    .registrations
                    .iter()
                    .filter(|l| l.live && l.index == *index && l.cbs & valid != 0)
                    .count();
                self.instances = self.instances.saturating_add(n as u16);
            }
            Op::GetInfo { kind, index, .. } if self.in_range(*kind, *index) => {
                let c = &self.mirror.catalog;
                let u = *index as usize;
                let e = match kind {
                    Kind::Cvar => c.cvars[u].enumtype.clone(),
                    Kind::Pvar => c.pvars[u].enumtype.clone(),
                    Kind::Event => c.events[u].enumtype.clone(),
                    _ => None,
                };
                if let Some(e) = e {
                    if !self.enums.contains(&e) {
                        self.enums.push(e);
                    }
                }
            }
            Op::CvarHandleAlloc { index } if self.in_range(Kind::Cvar, *index) => {
                self.cvar_handles.push(Life::new(*index, 0))
            }
            Op::CvarRead {
                handle: Ref::Made(n),
            } => {
                if let Some(l) = self.cvar_handles.get_mut(*n as usize) {
                    l.read = true;
                }
            }
            Op::PvarRead {
                handle: Ref::Made(n),
                ..
            } => {
                if let Some(l) = self.pvar_handles.get_mut(*n as usize) {
                    l.read = true;
                }
            }
            Op::CvarHandleFree {
                handle: Ref::Made(n),
            } => {
                if let Some(l) = self.cvar_handles.get_mut(*n as usize) {
                    l.live = false;
                }
            }
            Op::Pvar {
                act,
                session: Ref::Made(s),
                handle,
            } if matches!(act, Act::Start | Act::Stop) => {
                let on = *act == Act::Start;
                for (n, l) in self.pvar_handles.iter_mut().enumerate() {
                    let named = match handle {
                        Ref::Made(h) => usize::from(*h) == n,
                        Ref::All => l.session == *s,
                        _ => false,
                    };
                    if named && l.live {
                        l.started = on;
                    }
                }
            }
            Op::SessionCreate => self.sessions.push(Life::new(-1, 0)),
            Op::SessionFree {
                session: Ref::Made(n),
            } if Self::live(&self.sessions, Ref::Made(*n)) => {
                self.sessions[*n as usize].live = false;
                for h in self.pvar_handles.iter_mut().filter(|h| h.session == *n) {
                    h.live = false;
                }
            }
            Op::PvarHandleAlloc {
                session: Ref::Made(s),
                index,
            } if self.in_range(Kind::Pvar, *index) && Self::live(&self.sessions, Ref::Made(*s)) => {
                self.pvar_handles.push(Life::new(*index, *s))
            }
            Op::PvarHandleFree {
                session: Ref::Made(s),
                handle: Ref::Made(h),
            } => {
                if let Some(l) = self.pvar_handles.get_mut(*h as usize) {
                    if l.session == *s {
                        l.live = false;
                    }
                }
            }
            Op::EventHandleAlloc { index } if self.in_range(Kind::Event, *index) => {
                self.registrations.push(Life::new(*index, 0))
            }
            Op::EventHandleFree {
                registration: Ref::Made(n),
            } => {
                if let Some(l) = self.registrations.get_mut(*n as usize) {
                    l.live = false;
                }
            }
            _ => {}
        }
    }

    /// The ops that the sequence ends with to leave the process as it found it: every
    /// live handle, session and registration freed, every init of the sequence
    /// finalized (so a worker can run the next sequence).
    pub fn cleanup(&self) -> Vec<Op> {
        let mut ops = Vec::new();
        if !self.initialized() {
            return ops;
        }
        for n in live_ones(&self.registrations) {
            ops.push(Op::EventHandleFree {
                registration: Ref::Made(n),
            });
        }
        for n in live_ones(&self.cvar_handles) {
            ops.push(Op::CvarHandleFree {
                handle: Ref::Made(n),
            });
        }
        for n in live_ones(&self.sessions) {
            ops.push(Op::SessionFree {
                session: Ref::Made(n),
            });
        }
        for _ in 0..self.depth {
            ops.push(Op::Finalize);
        }
        ops
    }
}
