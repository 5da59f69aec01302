//! The checks after each call, by the function table's columns and the OUT names
//! (`Func::outs`), not by function: the return code, the string pairs, the R-STR-5
//! lengths, what was written outside a buffer or array, the initialization count, the
//! pools (allocations join, frees leave with the kind's NULL handle) and the refusals
//! of `policy` and of stale handles.

use super::super::policy::{self, Policy};
use super::super::roles::{freed_param, kind_of, nulled_by_free, pool_of, Pool};
use super::super::{check_buf, check_mpi_rc, check_str, check_t_rc};
use super::{handle_of, out_handle, Run, MAX_BUF};
use crate::cases::funcs::{Func, Group};
use crate::exec::calls::{self, Arg, Args, NoHandles, OutMap};
use crate::judge::value::Val;
use crate::kind::Kind;
use crate::repro::table::null_of;
use mpit_reference::profile::ReturnCode;

impl Run<'_> {
    /// Every check of one call that returned `rc` and `outs`; whether it succeeded.
    pub(super) fn after(
        &mut self,
        f: Func,
        args: &[(&'static str, Arg)],
        rc: i32,
        outs: &OutMap,
    ) -> bool {
        let call = f.c_name();
        let decoded = self.f.target.rc(rc);
        // R-RC-1/2/3 for the chapter's functions and the reference's hooks; an MPI
        // function answers with MPI's codes (MPI-4.1 §9.4).
        match f.group() {
            Group::Mpi => check_mpi_rc(call, rc, &decoded),
            Group::MpiT | Group::Harness => check_t_rc(call, rc, &decoded),
        }
        let ok = decoded == ReturnCode::Success;
        self.refusals(f, args, ok);
        self.strings(f, args, outs, ok);
        self.bounds(f, args, outs, ok);
        self.depth(f, outs, ok);
        if ok {
            self.pools(f, args, outs);
        }
        ok
    }

    /// What the reference refuses: `MPI_T_PVAR_ALL_HANDLES` where the policy says
    /// (R-PREAD-1), a cvar handle this run freed (R-CVAR-7, as the reference implements
    /// it: its registries never hand a value out twice), an event instance after its
    /// callback returned (MPI-4.1 §15.3.8.6).
    fn refusals(&self, f: Func, args: &[(&'static str, Arg)], ok: bool) {
        if !ok {
            return;
        }
        let call = f.c_name();
        if let Some(rule) = policy::rule(f, Policy::RefusesAllHandles) {
            assert!(
                handle_of(args, "handle") != Some(self.f.nulls.all_handles),
                "{rule}: {call} accepted MPI_T_PVAR_ALL_HANDLES"
            );
        }
        for (n, _) in f.params() {
            let (Some(pool), Some(h)) = (pool_of(f, n), handle_of(args, n)) else {
                continue;
            };
            match pool {
                Pool::Cvar => assert!(
                    !self.freed_cvars.contains(&h),
                    "R-CVAR-7: {call} accepted the cvar handle {h:#x} freed before"
                ),
                Pool::Instance => assert!(
                    !self.instances.contains(&h),
                    "MPI-4.1 §15.3.8.6: {call} accepted the event instance {h:#x} after its callback returned"
                ),
                _ => {}
            }
        }
    }

    /// The string convention in every (buf, len) pair (R-STR-1..4), and the lengths the
    /// fixture saw with a NULL buffer for the entry the strings are of (R-STR-2: strlen+1
    /// whatever the buffer; R-STR-5: the same internal array each time).
    fn strings(&self, f: Func, args: &[(&'static str, Arg)], outs: &OutMap, ok: bool) {
        let call = f.c_name();
        let kind = f
            .strings_of()
            .and_then(|s| Kind::ALL.into_iter().find(|k| k.word() == s.as_str()));
        let index = args.iter().find_map(|(n, a)| match a {
            Arg::Int(i) if *n == "index" => usize::try_from(*i).ok(),
            _ => None,
        });
        let first = kind
            .zip(index)
            .and_then(|(k, i)| self.f.lens[k.index()].get(i));
        for (n, a) in args {
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
    fn bounds(&self, f: Func, args: &[(&'static str, Arg)], outs: &OutMap, ok: bool) {
        let call = f.c_name();
        let rule = policy::rule(f, Policy::BoundsRule)
            .or(f.rule())
            .unwrap_or("MPI-4.1 §15.3");
        if let Some(Val::Bytes(b)) = outs.get("bytes") {
            let need = handle_of(args, "handle").and_then(|h| self.need(kind_of(f), h));
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
    fn depth(&mut self, f: Func, outs: &OutMap, ok: bool) {
        let call = f.c_name();
        if let Some(p) = outs.get("provided").and_then(Val::int).filter(|_| ok) {
            assert!(
                self.f.thread_levels.contains(&(p as i64)),
                "R-INIT-1: {call} returned provided = {p}, not a thread level"
            );
        }
        match f.depth() {
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
    fn pools(&mut self, f: Func, args: &[(&'static str, Arg)], outs: &OutMap) {
        let index = args.iter().find_map(|(n, a)| match a {
            Arg::Int(i) if *n == "index" => Some(*i),
            _ => None,
        });
        let made = f.allocates().and_then(|_| f.outs().first().copied());
        if let (Some(o), Some(i)) = (made, index) {
            let h = out_handle(outs.get(o)).unwrap_or(0);
            let count = outs.get("count").and_then(Val::int).unwrap_or(0).max(0) as usize;
            let elem = |k: Kind| {
                let e = usize::try_from(i).ok();
                e.and_then(|e| self.f.elem[k.index()].get(e).copied())
                    .unwrap_or(8)
            };
            match pool_of(f, o) {
                Some(Pool::Cvar) => {
                    let need = count.saturating_mul(elem(Kind::Cvar)).min(MAX_BUF);
                    self.cvars.push((h, need));
                }
                Some(Pool::Pvar) => {
                    let need = count.saturating_mul(elem(Kind::Pvar)).min(MAX_BUF);
                    let s = handle_of(args, "session").unwrap_or(0);
                    self.pvars.push((s, h, need));
                }
                Some(Pool::Reg) => self.regs.push((h, i.max(0) as usize)),
                _ => {}
            }
        }
        for o in f.outs() {
            if Some(*o) == made || f.param(o).is_some() {
                continue;
            }
            let (Some(pool), Some(h)) = (pool_of(f, o), out_handle(outs.get(o))) else {
                continue;
            };
            match pool {
                Pool::Session => self.sessions.push(h),
                Pool::Info if h != self.f.nulls.info => self.infos.push(h),
                Pool::Enum if h != 0 && h != self.f.nulls.enumtype && !self.enums.contains(&h) => {
                    self.enums.push(h)
                }
                _ => {}
            }
        }
        let Some(n) = freed_param(f) else { return };
        let Some(h) = handle_of(args, n) else { return };
        if nulled_by_free(f, n) {
            let null = null_of(f, n).unwrap_or("the NULL handle");
            let want = self.f.target.handles.get(null).copied().unwrap_or(0);
            let after = out_handle(outs.get(n));
            let rule = f.rule().map_or(String::new(), |r| format!("{r}: "));
            assert_eq!(after, Some(want), "{rule}{} leaves {null}", f.c_name());
        }
        self.forget(pool_of(f, n), h);
    }

    /// `v` freed: out of every pool, with the pvar handles of a freed session.
    fn forget(&mut self, pool: Option<Pool>, v: u64) {
        self.freed.push(v);
        if pool == Some(Pool::Cvar) {
            self.freed_cvars.push(v);
        }
        if pool == Some(Pool::Session) {
            let gone: Vec<u64> = self
                .pvars
                .iter()
                .filter(|p| p.0 == v)
                .map(|p| p.1)
                .collect();
            self.freed.extend(gone);
            self.pvars.retain(|p| p.0 != v);
            self.sessions.retain(|x| *x != v);
            return;
        }
        self.cvars.retain(|c| c.0 != v);
        self.pvars.retain(|p| p.1 != v);
        self.regs.retain(|r| r.0 != v);
        self.infos.retain(|i| *i != v);
    }
}
