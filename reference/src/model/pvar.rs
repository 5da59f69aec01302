//! MPI-4.1 §15.3.7: performance variables, sessions, handles, MPI_T_PVAR_ALL_HANDLES.
//!
//! Every pvar has a live "world" value (the resource it measures) that moves only when
//! `Model::simulate` steps it: deterministic, no clocks and no randomness, so two runs
//! of the same calls read the same values. Each handle holds its own value (R-SESS-1:
//! nothing done through one session or handle influences another):
//!
//! * COUNTER / AGGREGATE / TIMER accumulate while the handle is active (started, or
//!   continuous); they start at 0 (at allocation and on reset).
//! * HIGHWATERMARK / LOWWATERMARK take the max / min of the world level while active;
//!   they start at the current level (at allocation and on reset).
//! * LEVEL / SIZE / PERCENTAGE / STATE / GENERIC follow the world value while active and
//!   keep the last value seen while stopped; they start at the current world value.
//!
//! Starting and stopping never sets a starting value: only allocation ("the first time
//! the variable is used") and reset do, so counters never decrease and watermarks never
//! move the wrong way except through a reset.
//!
//! The module is the state and the variables' information; beside it `simulation` (the
//! world values and what an active handle gains in a step), `sessions` (sessions and
//! handles: creation, allocation, which handle a call names) and `access` (start, stop,
//! read, write, reset).

mod access;
mod sessions;
mod simulation;
#[cfg(test)]
mod tests;

pub use simulation::TIMER_STEP_SECS;

use super::{EnumHandle, Model, PvarHandle, Registry, Session};
use crate::faults::{Fault, Faults};
use mpit_vocab::catalog::{Appears, Catalog};
use mpit_vocab::spec::{Bind, Datatype, PvarClass, TErr, TResult, Verbosity};
use mpit_vocab::value::Value;
use simulation::{accumulate, fit, observe, starting_value, world_at};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What `MPI_T_pvar_get_info` returns (strings go through `crate::strings`).
#[derive(Debug, Clone, PartialEq)]
pub struct PvarInfo {
    pub name: String,
    pub verbosity: Verbosity,
    pub var_class: PvarClass,
    pub datatype: Datatype,
    pub enumtype: EnumHandle,
    pub desc: Option<String>,
    pub bind: Bind,
    pub readonly: bool,
    pub continuous: bool,
    pub atomic: bool,
}

#[derive(Debug, Clone)]
struct HandleState {
    session: Session,
    /// Catalog slot (= visible index: pvar indices never move, R-PVAR-1).
    slot: usize,
    count: usize,
    continuous: bool,
    /// Started by the user; meaningless for continuous handles (always active).
    started: bool,
    /// The handle's own value, exactly `count` elements.
    value: Value,
}

impl HandleState {
    /// R-PSTART-1: continuous handles are active from allocation on; the others between
    /// start and stop.
    fn active(&self) -> bool {
        self.continuous || self.started
    }
}

#[derive(Debug, Default, Clone)]
pub(super) struct PvarState {
    /// Steps simulated so far.
    tick: u64,
    /// The catalog's `value` of each pvar (the world at step 0 is derived from it).
    /// Never changed: shared by clones.
    base: Arc<Vec<Value>>,
    /// The live value of each pvar's resource at step `tick`. Shared until a step
    /// moves it (`Arc::make_mut`): the harness clones a model per generated sequence.
    world: Arc<Vec<Value>>,
    sessions: BTreeSet<Session>,
    /// Ordered by id, i.e. by allocation order.
    handles: Registry<PvarHandle, HandleState>,
}

impl PvarState {
    pub(super) fn new(cat: &Catalog) -> Self {
        let base: Vec<Value> = cat
            .pvars
            .iter()
            .map(|p| Value::from_cat(p.datatype, p.count as usize, p.value.as_ref()))
            .collect();
        let world = cat
            .pvars
            .iter()
            .zip(&base)
            .map(|(p, b)| world_at(cat, p, b, 0))
            .collect();
        PvarState {
            tick: 0,
            base: Arc::new(base),
            world: Arc::new(world),
            sessions: BTreeSet::new(),
            handles: Registry::new(),
        }
    }

    /// Invalidate every session and handle (full MPI_T finalize).
    pub(super) fn clear_sessions(&mut self) {
        self.sessions.clear();
        self.handles.clear();
    }

    /// One unit of simulated MPI activity: the world moves, then every active handle
    /// accumulates (COUNTER, AGGREGATE, TIMER) or observes the new world value.
    pub(super) fn step(&mut self, cat: &Catalog, faults: &Faults) {
        self.tick += 1;
        let t = self.tick;
        let world = Arc::make_mut(&mut self.world);
        for ((w, p), b) in world.iter_mut().zip(&cat.pvars).zip(self.base.iter()) {
            *w = world_at(cat, p, b, t);
        }
        // Fault `stopped-handle-counts`: stopped handles are updated as well.
        let all = faults.has(Fault::StoppedHandleCounts);
        for h in self.handles.values_mut().filter(|h| all || h.active()) {
            let class = cat.pvars[h.slot].class;
            accumulate(class, &mut h.value, t, faults);
            observe(class, &mut h.value, &self.world[h.slot], faults);
        }
    }

    fn handles_of(&self, s: Session) -> Vec<PvarHandle> {
        self.handles
            .iter()
            .filter(|(_, st)| st.session == s)
            .map(|(h, _)| *h)
            .collect()
    }

    /// Starts a non-continuous handle; an already started one is left as it is.
    fn start(&mut self, h: PvarHandle, cat: &Catalog, faults: &Faults) {
        if let Some(st) = self.handles.get_mut(&h) {
            if !st.continuous && !st.started {
                st.started = true;
                // Active from now on: LEVEL-like values show the current world value.
                observe(
                    cat.pvars[st.slot].class,
                    &mut st.value,
                    &self.world[st.slot],
                    faults,
                );
            }
        }
    }

    fn stop(&mut self, h: PvarHandle) {
        if let Some(st) = self.handles.get_mut(&h) {
            st.started = false;
        }
    }

    /// R-PRESET-1: back to the class's starting value (R-PCLASS).
    fn reset(&mut self, h: PvarHandle, cat: &Catalog, faults: &Faults) {
        if let Some(st) = self.handles.get_mut(&h) {
            let p = &cat.pvars[st.slot];
            if p.class.starts_at_zero() && faults.has(Fault::CounterNotZeroedByReset) {
                return;
            }
            st.value = starting_value(p, &self.world[st.slot], st.count);
        }
        // Fault `reset-leaks-across-sessions`: every other handle is reset too, in this
        // session and in every other (R-SESS-1 says sessions isolate).
        if faults.has(Fault::ResetLeaksAcrossSessions) {
            for st in self.handles.values_mut() {
                let p = &cat.pvars[st.slot];
                if !p.readonly {
                    st.value = fit(starting_value(p, &self.world[st.slot], 0), st.count);
                }
            }
        }
    }
}

impl Model {
    fn pvar_visible(&self) -> usize {
        if self.catalog_skipped() {
            return 0;
        }
        self.visible_count(&self.cat.pvars, |p| p.appears)
    }

    /// Faults `upstream-ompi-11492` and `-7084`: after MPI_Init the variables that
    /// appeared with it belong to components MPI_Init did not select; they stay counted
    /// but their information is gone.
    fn pvar_dead(&self, i: usize) -> TResult<()> {
        let late = self.cat.pvars[i].appears != Appears::Always;
        if late && self.fault(Fault::UpstreamOmpi7084) {
            return Err(TErr::Memory);
        }
        if late && self.fault(Fault::UpstreamOmpi11492) {
            return Err(TErr::Invalid);
        }
        Ok(())
    }

    /// Whether pvar `i` is one MPI_Init adds (for the corpus's faults of unloaded
    /// components).
    pub fn pvar_appears_with_mpi(&self, i: i32) -> bool {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.cat.pvars.get(i))
            .is_some_and(|p| p.appears != Appears::Always)
    }

    /// `MPI_T_pvar_get_num`.
    pub fn pvar_get_num(&self) -> TResult<i32> {
        self.require_init()?;
        Ok(self.pvar_visible() as i32)
    }

    /// `MPI_T_pvar_get_info`. R-PVAR-1: the same answer on every call.
    pub fn pvar_get_info(&self, i: i32) -> TResult<PvarInfo> {
        self.require_init()?;
        let i = self.index(i, self.pvar_visible())?;
        self.pvar_dead(i)?;
        let p = &self.cat.pvars[i];
        let datatype = if p.class == PvarClass::Counter && self.fault(Fault::ClassDatatypeMismatch)
        {
            Datatype::Double
        } else {
            p.datatype
        };
        Ok(PvarInfo {
            name: p.name.clone(),
            verbosity: p.verbosity,
            var_class: p.class,
            datatype,
            enumtype: self.enum_handle(&p.enumtype),
            desc: p.desc.clone(),
            bind: p.bind,
            readonly: p.readonly,
            continuous: p.continuous,
            atomic: p.atomic,
        })
    }

    /// `MPI_T_pvar_get_index` (R-PVAR-4: by name and class).
    pub fn pvar_get_index(&self, name: &str, class: PvarClass) -> TResult<i32> {
        self.require_init()?;
        let any_class = self.fault(Fault::PvarGetIndexIgnoresClass);
        self.cat.pvars[..self.pvar_visible()]
            .iter()
            .position(|p| p.name == name && (any_class || p.class == class))
            // Fault `upstream-ompi-2421`: the index was never set at registration.
            .map(|i| {
                if self.fault(Fault::UpstreamOmpi2421) {
                    0
                } else {
                    i as i32
                }
            })
            .ok_or(TErr::InvalidName)
    }
}
