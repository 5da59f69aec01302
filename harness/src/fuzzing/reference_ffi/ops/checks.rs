//! The checks after each call, by the function table's columns and the OUT names
//! (`Func::outs`), not by function: the return code, the string pairs, the R-STR-5
//! lengths, what was written outside a buffer or array, the initialization count, the
//! pools (allocations join, frees leave with the kind's NULL handle) and the refusals
//! of `judge::policy` and of stale handles.

use super::super::roles::{Plan, Pool, Role};
use super::super::{check_buf, check_mpi_rc, check_str, check_t_rc};
use super::{handle_at, out_handle, Run, MAX_BUF};
use crate::exec::calls::{self, Arg, Args, NoHandles, OutMap};
use crate::judge::value::Val;
use mpit_spec::kind::Kind;
use mpit_vocab::profile::ReturnCode;

/// The `int` argument at `at`.
fn int_at(args: &[(&'static str, Arg)], at: Option<usize>) -> Option<i64> {
    match args.get(at?) {
        Some((_, Arg::Int(i))) => Some(*i),
        _ => None,
    }
}

impl Run<'_> {
    /// Every check of one call that returned `rc` and `outs`; whether it succeeded.
    pub(super) fn after(
        &mut self,
        plan: &Plan,
        args: &[(&'static str, Arg)],
        rc: i32,
        outs: &OutMap,
    ) -> bool {
        let call = plan.f.c_name();
        let decoded = self.f.rc(rc);
        // R-RC-1/2/3 for the chapter's functions and the reference's hooks; an MPI
        // function answers with MPI's codes (MPI-4.1 §9.4).
        match plan.mpi_codes {
            true => check_mpi_rc(call, rc, &decoded),
            false => check_t_rc(call, rc, &decoded),
        }
        let ok = *decoded == ReturnCode::Success;
        if ok {
            self.refusals(plan, args);
        }
        self.strings(plan, args, outs, ok);
        self.bounds(plan, args, outs, ok);
        self.depth(plan, outs, ok);
        if ok {
            self.pools(plan, args, outs);
        }
        ok
    }

    /// What the reference refuses: `MPI_T_PVAR_ALL_HANDLES` where the policy says
    /// (R-PREAD-1), a cvar handle this run freed (R-CVAR-7, as the reference implements
    /// it: its registries never hand a value out twice), an event instance after its
    /// callback returned (MPI-4.1 §15.3.8.6).
    fn refusals(&self, plan: &Plan, args: &[(&'static str, Arg)]) {
        let call = plan.f.c_name();
        if let Some(rule) = plan.all_handles {
            assert!(
                handle_at(args, plan.handle) != Some(self.f.nulls.all_handles),
                "{rule}: {call} accepted MPI_T_PVAR_ALL_HANDLES"
            );
        }
        for (k, (_, role)) in plan.params.iter().enumerate() {
            let (Role::Handle(pool), Some(h)) = (role, handle_at(args, Some(k))) else {
                continue;
            };
            match pool {
                Some(Pool::Cvar) => assert!(
                    !self.h.freed_cvars.contains(&h),
                    "R-CVAR-7: {call} accepted the cvar handle {h:#x} freed before"
                ),
                Some(Pool::Instance) => assert!(
                    !self.h.instances.contains(&h),
                    "MPI-4.1 §15.3.8.6: {call} accepted the event instance {h:#x} after its callback returned"
                ),
                _ => {}
            }
        }
    }

    /// The string convention in every (buf, len) pair (R-STR-1..4), and the lengths the
    /// fixture saw with a NULL buffer for the entry the strings are of (R-STR-2: strlen+1
    /// whatever the buffer; R-STR-5: the same internal array each time).
    fn strings(&self, plan: &Plan, args: &[(&'static str, Arg)], outs: &OutMap, ok: bool) {
        let call = plan.f.c_name();
        let index = int_at(args, plan.index).and_then(|i| usize::try_from(i).ok());
        let first = plan
            .strings
            .zip(index)
            .and_then(|(k, i)| self.f.lens[k.index()].get(i));
        for ((n, role), (_, a)) in plan.params.iter().zip(args) {
            if *role != Role::Str {
                continue;
            }
            let (Arg::Str(arg), Some(Val::Str(out))) = (a, outs.get(n)) else {
                continue;
            };
            check_str(call, *arg, out, ok);
            let was = match (first, *n) {
                (Some(l), "name") => l.0,
                (Some(l), "desc") => l.1,
                _ => None,
            };
            if ok && arg.len.is_some() && was.is_some() {
                assert_eq!(
                    out.len, was,
                    "R-STR-2/R-STR-5: {call}({index:?}) returned {n} length {:?} with {arg:?}, {was:?} with a NULL buffer (strlen+1 whatever the buffer)",
                    out.len
                );
            }
        }
    }

    /// Nothing written outside a buffer or array: a read's data within count × datatype
    /// size (R-CVAR-8, R-PREAD-1), a member list within `len` (R-CAT-1), event data
    /// within its buffer (§15.3.8.6), event_get_info's arrays within num_elements.
    fn bounds(&self, plan: &Plan, args: &[(&'static str, Arg)], outs: &OutMap, ok: bool) {
        let (call, rule) = (plan.f.c_name(), plan.bounds);
        if let Some(Val::Bytes(b)) = outs.get("bytes") {
            let need = handle_at(args, plan.handle).and_then(|h| self.need(plan.kind, h));
            check_buf(call, rule, b, need, ok);
        } else if outs
            .get("overrun")
            .and_then(Val::int)
            .is_some_and(|o| o != 0)
        {
            panic!("{rule}: {call} wrote past the array it was given ({args:?})");
        }
    }

    /// The initialization count (R-INIT-1, R-FIN-1): a successful init adds one and
    /// returns a thread level; a finalize, made only while this input holds an init of
    /// its own, succeeds and leaves MPI_T answering for the fixture's.
    fn depth(&mut self, plan: &Plan, outs: &OutMap, ok: bool) {
        let call = plan.f.c_name();
        if plan.provided && ok {
            if let Some(p) = outs.get("provided").and_then(Val::int) {
                assert!(
                    self.f.thread_levels.contains(&(p as i64)),
                    "R-INIT-1: {call} returned provided = {p}, not a thread level"
                );
            }
        }
        match plan.f.depth() {
            d if d > 0 && ok => self.inits += 1,
            d if d < 0 => {
                assert!(
                    ok,
                    "R-FIN-1: {call} failed with {} inits outstanding (this input's {} and the fixture's)",
                    self.inits + 1,
                    self.inits
                );
                self.inits -= 1;
                // The fixture's init is still held: MPI_T must still answer.
                let probe = Kind::Cvar.get_num();
                if let Some((rc, _)) =
                    calls::invoke(&self.f.target, &NoHandles, probe, &Args::List(&[]))
                {
                    assert!(
                        self.f.target.rc(rc) == ReturnCode::Success,
                        "R-INIT-1/R-FIN-1: after a finalize matching one of {} inits, {} returned {}",
                        self.inits + 2,
                        probe.c_name(),
                        self.f.target.rc(rc)
                    );
                }
            }
            _ => {}
        }
    }

    /// After a success: the handle an allocation made joins its pool with what the run
    /// needs of it, handles the call returned join theirs, and a freed handle leaves
    /// every pool, its variable set to the kind's NULL handle when passed by address
    /// (R-CVAR-7, R-SESS-1, R-PH-1).
    fn pools(&mut self, plan: &Plan, args: &[(&'static str, Arg)], outs: &OutMap) {
        if let (Some((o, pool)), Some(i)) = (plan.made, int_at(args, plan.index)) {
            let h = out_handle(outs.get(o)).unwrap_or(0);
            let count = outs.get("count").and_then(Val::int).unwrap_or(0).max(0) as usize;
            let elem = |k: Kind| {
                let e = usize::try_from(i).ok();
                e.and_then(|e| self.f.elem[k.index()].get(e).copied())
                    .unwrap_or(8)
            };
            match pool {
                Pool::Cvar => {
                    let need = count.saturating_mul(elem(Kind::Cvar)).min(MAX_BUF);
                    self.h.cvars.push((h, need));
                }
                Pool::Pvar => {
                    let need = count.saturating_mul(elem(Kind::Pvar)).min(MAX_BUF);
                    let s = handle_at(args, plan.session).unwrap_or(0);
                    self.h.pvars.push((s, h, need));
                }
                Pool::Registration => self.h.regs.push((h, i.max(0) as usize)),
                _ => {}
            }
        }
        for (o, pool) in &plan.joins {
            let Some(h) = out_handle(outs.get(o)) else {
                continue;
            };
            match pool {
                Pool::Session => self.h.sessions.push(h),
                Pool::Info if h != self.f.nulls.info_null => self.h.infos.push(h),
                Pool::Enumtype
                    if h != 0 && h != self.f.nulls.enum_null && !self.h.enums.contains(&h) =>
                {
                    self.h.enums.push(h)
                }
                _ => {}
            }
        }
        let Some(free) = plan.frees else { return };
        let at = plan.params.iter().position(|(n, _)| *n == free.param);
        let Some(h) = handle_at(args, at) else { return };
        if let Some((null, want)) = free.null {
            let after = out_handle(outs.get(free.param));
            // The rule's prefix is made only for the message (after every free, it cost
            // a `format!`).
            let rule = || plan.f.rule().map_or(String::new(), |r| format!("{r}: "));
            assert_eq!(
                after,
                Some(want),
                "{}{} leaves {null}",
                rule(),
                plan.f.c_name()
            );
        }
        self.forget(Some(free.pool), h);
    }

    /// `v` freed: out of every pool, with the pvar handles of a freed session.
    fn forget(&mut self, pool: Option<Pool>, v: u64) {
        self.h.freed.push(v);
        if pool == Some(Pool::Cvar) {
            self.h.freed_cvars.push(v);
        }
        if pool == Some(Pool::Session) {
            let gone: Vec<u64> = self
                .h
                .pvars
                .iter()
                .filter(|p| p.0 == v)
                .map(|p| p.1)
                .collect();
            self.h.freed.extend(gone);
            self.h.pvars.retain(|p| p.0 != v);
            self.h.sessions.retain(|x| *x != v);
            return;
        }
        self.h.cvars.retain(|c| c.0 != v);
        self.h.pvars.retain(|p| p.1 != v);
        self.h.regs.retain(|r| r.0 != v);
        self.h.infos.retain(|i| *i != v);
    }
}
