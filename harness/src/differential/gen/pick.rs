//! Which call a [`Pick`] makes in a state: a draw among the calls of
//! `specs/generator.yaml` that can be made there (their arguments exist: a live handle,
//! a session, an enumtype returned, an entry to allocate for), each with the file's
//! tickets (more where the semantics are: started counters, isolated sessions, a
//! re-init), then their arguments by role (`build`). Small numbers make simple calls,
//! so shrinking the numbers simplifies the call.

use super::plan::{self, Cond, Entry, IndexFrom, Role};
use super::{Gen, Life};
use crate::cases::funcs::Group;
use crate::differential::op::{Call, Kind};
use crate::differential::HandleKind;
use mpit_reference::spec::PvarClass;

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
        let class = |l: &Life| {
            self.mirror
                .catalog
                .pvars
                .get(usize::try_from(l.index).ok()?)
                .map(|p| (p.class, p.readonly))
        };
        let live: Vec<_> = self
            .pvar_handles
            .iter()
            .filter(|l| l.live)
            .filter_map(class)
            .collect();
        live.iter().any(|(c, ro)| c.starts_at_zero() && !ro)
            && !live
                .iter()
                .any(|(c, _)| matches!(c, PvarClass::HighWatermark | PvarClass::LowWatermark))
    }

    /// The call a pick makes in this state: the ticket `what` of the draw among the
    /// calls that can be made here.
    pub fn pick(&self, p: Pick) -> Call {
        let entries = plan::entries();
        let tickets = self.tickets.get_or_init(|| {
            // Each condition once (the isolation probe reads every handle).
            let holds = Cond::ALL.map(|c| self.holds(c));
            entries.iter().map(|e| self.tickets(e, &holds)).collect()
        });
        let total: u32 = tickets.iter().sum();
        let mut t = u32::from(p.what) % total.max(1);
        for (e, n) in entries.iter().zip(tickets) {
            if t < *n {
                return self.make(e, p, None);
            }
            t -= n;
        }
        self.make(&entries[0], p, None)
    }

    /// An entry's tickets here: none when it cannot be made, else its weight and the
    /// extra weights whose conditions hold.
    fn tickets(&self, e: &Entry, holds: &[bool; Cond::ALL.len()]) -> u32 {
        if !self.can_make(e) {
            return 0;
        }
        e.weight
            + e.more
                .iter()
                .filter(|m| m.when.iter().all(|c| holds[*c as usize]))
                .map(|m| m.weight)
                .sum::<u32>()
    }

    fn holds(&self, c: Cond) -> bool {
        let live_p = || self.pvar_handles.iter().filter(|l| l.live);
        match c {
            Cond::Stopped => live_p().any(|l| !l.started),
            Cond::Started => live_p().any(|l| l.started),
            Cond::Probe => self.isolation_probe(),
            Cond::OneSession => self.sessions.iter().filter(|l| l.live).count() == 1,
            Cond::OneHandle => live_p().count() == 1,
            Cond::TwoHandles => live_p().count() >= 2,
            Cond::PvarHandle => live_p().count() >= 1,
            Cond::Reinit => self.reinit && self.depth > 0,
            Cond::AroundInit => self.mode.lifecycle && self.mirror.declared && self.depth > 0,
            Cond::Lifecycle => self.mode.lifecycle,
            Cond::Hooks => self.mirror.hooks,
        }
    }

    /// Whether a call of `e` can be made here: the precondition's rules on who answers
    /// (`valid`), and every argument's objects exist (a live one, or in robustness
    /// mode any the sequence made).
    fn can_make(&self, e: &Entry) -> bool {
        let f = e.func;
        let m = &self.mirror;
        let r = self.mode.robustness;
        let ok = match f.group() {
            Group::Harness => m.hooks,
            Group::Mpi => self.mode.lifecycle && m.declared && !self.mpi,
            Group::MpiT => match f.depth() {
                1 => self.depth < 8,
                -1 => self.mode.lifecycle || self.depth > 0,
                _ => true,
            },
        };
        let takes_all = e.all_handles > 0 && e.takes_all;
        let made = |k: HandleKind| {
            let t = self.table(k);
            t.iter().any(|l| l.live) || (r && !t.is_empty())
        };
        ok && e.params.iter().all(|(_, role)| match role {
            Role::Index(_) if e.index_from == Some(IndexFrom::Registrations) => {
                !self.registrations.is_empty()
            }
            Role::Index(k) if f.allocates().is_some() => self
                .unbound_of(*k)
                .is_some_and(|l| l.iter().any(|i| *i < self.count(*k))),
            Role::Index(k) => r || self.count(*k) > 0,
            Role::Handle(HandleKind::Instance) => r && self.instances > 0,
            Role::Handle(HandleKind::Pvar) if takes_all => true,
            Role::Handle(k) => made(*k),
            Role::Enumtype => !self.enums.is_empty(),
            Role::Data(k) => m.exact_values || self.table(*k).iter().any(|l| l.live && l.read),
            _ => true,
        })
    }

    /// The entries of a kind a handle can be allocated for (no object to bind).
    pub(super) fn unbound_of(&self, k: Kind) -> Option<&[i32]> {
        match k {
            Kind::Cvar => Some(&self.unbound.cvars),
            Kind::Pvar => Some(&self.unbound.pvars),
            Kind::Event => Some(&self.unbound.events),
            Kind::Category | Kind::Source => None,
        }
    }
}
