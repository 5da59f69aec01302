//! One step of a case: a built-in check, or a call (repeated, or once per `for_all`
//! iteration with the iteration's variables in scope), its expectation judged, its
//! OUT values saved. The call in flight is named to the supervisor (and, for an
//! `erroneous` step, to the worker's hook) so a crash inside it can be reported.

use super::calls::Arg;
use super::{Exec, Finding};
use crate::judge;
use crate::judge::inventory::Entry;
use crate::judge::value::Val;
use mpit_spec::cases::expr::Expr;
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::{Builtin, Callee, ForAll, Step};
use mpit_spec::verdict::Status;
use mpit_target::ffi::in_flight;
use std::collections::BTreeMap;

/// One iteration of a step: the catalog entry it is about, or the value of `$item`
/// (or `$null`).
type Iteration<'c> = (Option<&'c Entry>, Option<Val>);

impl<'a, 'c> Exec<'a, 'c> {
    /// The iterations of a step's `for_all`: catalog entries, or elements of a saved
    /// list (one, with neither, without `for_all`).
    fn iterations(&self, step: &'c Step, func: Func) -> Result<Vec<Iteration<'c>>, String> {
        Ok(match &step.for_all {
            None => vec![(None, None)],
            Some(ForAll::Kind(k)) => self
                .ctx
                .inv
                .of(*k)
                .filter(|e| step.filter.accepts(&e.attrs))
                .map(|e| (Some(e), None))
                .collect(),
            Some(ForAll::List(v)) => match self.vars.get(v) {
                Some(Val::List(l)) => l.iter().map(|x| (None, Some(x.clone()))).collect(),
                Some(other) => vec![(None, Some(other.clone()))],
                None => return Err(format!("`${v}` is not set")),
            },
            Some(ForAll::Range(e)) => match self.int(e) {
                Ok(n) => (0..n.clamp(0, 1 << 20))
                    .map(|i| (None, Some(Val::Int(i as i128))))
                    .collect(),
                Err(e) => return Err(e),
            },
            // Each OUT argument NULL on its own, then all of them (position = the
            // argument's place in `nullable_outs`; one past the end: all).
            Some(ForAll::NullOuts) => (0..=func.nullable_outs().len())
                .map(|i| (None, Some(Val::Int(i as i128))))
                .collect(),
        })
    }

    /// A built-in check's step (`check:`); false stops the sequence.
    fn check_step(&mut self, b: Builtin, step: &'c Step) -> bool {
        let mut args = BTreeMap::new();
        for (k, e) in &step.args {
            match self.value(e) {
                Ok(v) => {
                    args.insert(k.clone(), v);
                }
                Err(e) => return self.error(e),
            }
        }
        let (p, v) = (&self.ctx.t.profile, self.ctx.mpi_version);
        if let Err(msg) = judge::builtin(b, p, self.ctx.inv, &args, v) {
            let status = self.level_status(self.case.level);
            self.findings.push(Finding {
                status,
                message: msg,
                reading: None,
            });
            return status != Status::Fail;
        }
        true
    }

    /// Runs a step; false stops the sequence (a failed MUST or an unsupported call).
    pub(super) fn step(&mut self, step: &'c Step) -> bool {
        if let Some(b) = step.check {
            return self.check_step(b, step);
        }
        let func = match step.callee() {
            Some(Callee::Func(f)) => f,
            Some(Callee::Subject) => {
                match self
                    .subject
                    .and_then(|s| s.attrs.get("function"))
                    .and_then(|f| Func::from_yaml(f))
                {
                    Some(f) => f,
                    None => return self.error("`$function` without a function subject".into()),
                }
            }
            None => return self.error("a step without a call".into()),
        };
        let items = match self.iterations(step, func) {
            Ok(items) => items,
            Err(e) => return self.error(e),
        };
        // A loop with nothing to go over (no entry of the kind, a count of 0, an empty
        // saved list): its check holds vacuously.
        if items.is_empty() {
            self.empty_loop = match &step.for_all {
                Some(ForAll::Kind(k)) => Some(k.as_str()),
                Some(ForAll::Range(_)) => Some("range"),
                Some(ForAll::List(_)) => Some("list"),
                _ => self.empty_loop,
            };
        }
        let collect = step.for_all.is_some();
        if collect {
            for var in step.save.keys() {
                self.vars.insert(var.clone(), Val::List(Vec::new()));
            }
        }
        for (position, (entry, item)) in items.into_iter().enumerate() {
            if collect {
                self.iteration = Some(position);
            }
            // The iteration's variables shadow others of the same name until its end
            // (restored one by one: cloning every variable, the lists being collected
            // among them, per iteration would be quadratic).
            let mut shadowed: Vec<(String, Option<Val>)> = Vec::new();
            if let Some(e) = entry {
                for (k, v) in &e.vars {
                    let old = self.vars.insert(k.clone(), Val::Int(*v as i128));
                    shadowed.push((k.clone(), old));
                }
                self.current = Some(e);
            }
            if let Some(v) = item {
                let var = match step.for_all {
                    Some(ForAll::NullOuts) => "null",
                    _ => "item",
                };
                let old = self.vars.insert(var.into(), v);
                shadowed.push((var.into(), old));
            }
            let mut keep = true;
            let mut saves: Vec<(String, Val)> = Vec::new();
            for _ in 0..step.repeat.unwrap_or(1).max(1) {
                let args = match self.args(func, step) {
                    Ok(a) => a,
                    // A default the profile cannot name (Open MPI has no callback
                    // safety constants) for a function the library does not export:
                    // the missing function is the finding.
                    Err(_) if self.not_exported(func) => {
                        self.unsupported = Some(func.c_name().to_string());
                        return false;
                    }
                    Err(e) => return self.error(e),
                };
                let hook = self.ctx.erroneous.filter(|_| step.erroneous);
                let text = call_text(func, &args);
                if let Some(h) = hook {
                    h(Some(&text));
                }
                // Named to the supervisor if the library kills the worker in this call.
                in_flight::set(Some(&text));
                self.erroneous_now = step.erroneous;
                let called = self.call_outs(func, &args);
                self.erroneous_now = false;
                in_flight::set(None);
                if let Some(h) = hook {
                    h(None);
                }
                let Some((code, outs)) = called else {
                    return false;
                };
                if let Some(x) = &step.skip_unless {
                    if let Err(why) = self.check(x, func, &args, &code, &outs) {
                        self.skipped = Some(why.msg);
                        return false;
                    }
                }
                if let Some(x) = &step.expect {
                    keep = self.judge(x, func, &args, &code, &outs);
                    if let Some(e) = &x.moved_from {
                        self.observe_move(e, &outs);
                    }
                }
                saves = step
                    .save
                    .iter()
                    .filter_map(|(var, out)| {
                        let v = if out == "all" {
                            Some(Val::Outs(outs.clone()))
                        } else {
                            outs.get(out).cloned()
                        };
                        v.map(|v| (var.clone(), v))
                    })
                    .collect();
                if !keep {
                    break;
                }
            }
            if collect {
                // Restore the shadowed variables; the collected lists stay.
                for (k, old) in shadowed.into_iter().rev() {
                    if step.save.contains_key(&k) {
                        continue;
                    }
                    match old {
                        Some(v) => self.vars.insert(k, v),
                        None => self.vars.remove(&k),
                    };
                }
                for (k, v) in saves {
                    if let Some(Val::List(l)) = self.vars.get_mut(&k) {
                        l.push(v);
                    }
                }
            } else {
                for (k, v) in saves {
                    self.vars.insert(k, v);
                }
            }
            self.current = None;
            self.iteration = None;
            if !keep {
                return false;
            }
        }
        true
    }

    /// Records whether the `value` OUT moved away from `from` (`moved_from`).
    fn observe_move(&mut self, from: &Expr, outs: &BTreeMap<String, Val>) {
        let (Ok(was), Some(now)) = (self.value(from), outs.get("value")) else {
            return;
        };
        let first = |v: &Val| match v {
            Val::List(l) => l.first().cloned().unwrap_or(Val::Int(0)),
            other => other.clone(),
        };
        let (was, now) = (first(&was), first(now));
        let moved = was != now;
        match &mut self.moved {
            Some((true, _)) => {}
            slot => *slot = Some((moved, format!("{was} then {now}"))),
        }
    }

    /// Whether `func` is an MPI_T entry point the library lacks.
    fn not_exported(&self, func: Func) -> bool {
        self.ctx
            .t
            .lib
            .entry_points()
            .iter()
            .any(|(n, ok)| *n == func.c_name() && !ok)
    }
}

/// `MPI_T_cvar_read(handle: 0)`: a call as a crash report names it.
fn call_text(func: Func, args: &BTreeMap<&'static str, Arg>) -> String {
    let a: Vec<String> = args
        .iter()
        .map(|(k, v)| format!("{k}: {}", v.to_json()))
        .collect();
    format!("{}({})", func.c_name(), a.join(", "))
}
