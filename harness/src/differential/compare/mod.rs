//! The comparator: the model's and the target's outcomes of the same sequence, call by
//! call, judged only where the standard leaves no latitude. Return codes are compared
//! against the set the standard allows (specs/return-codes.yaml), live values only where the calls
//! determine them (a stopped counter after reset, a value written and read back), and
//! the first difference is reported with the rule it breaks. Everything after it is
//! not compared: the two states no longer agree.
//!
//! This module holds the walk over the two traces ([`compare_known`]), what a
//! divergence says ([`Divergence`]), the rule each call answers to, and the known
//! deviations passed over ([`Known`]). The judging itself is one concern a module:
//!
//! - `codes`: return codes against the set the standard and the policy allow
//!   (MPI-4.1 §15.3.10);
//! - `strings`: the string convention of every string OUT argument (MPI-4.1 §15.3.3);
//! - `outs`: the other OUT values of a call that succeeded in both engines;
//! - `determined`: which values the calls so far fix, tracked call by call.

mod codes;
mod determined;
mod outs;
mod strings;
#[cfg(test)]
mod tests;

use super::gen::Gen;
use super::obs::{Died, Obs, Trace};
use super::op::{Call, Ref, A};
use super::HandleKind;
use determined::{track, Determined};
use mpit_spec::cases::clauses::Clauses;
use mpit_spec::cases::funcs::Group;
use mpit_spec::specs::Source;
use mpit_spec::verdict::Level;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::TErr;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The first outcome of a sequence the standard fixes and the target got wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Divergence {
    /// Position of the call in the sequence (0-based).
    pub step: usize,
    /// The call, as `MPI_T_cvar_get_info(CvarGetInfo { .. })`.
    pub call: String,
    pub function: String,
    /// Rule id (specs/clauses.yaml gives its clause).
    pub rule: String,
    pub level: Level,
    /// One line: what differs.
    pub what: String,
    pub expected: String,
    pub actual: String,
    /// The call's index named another entry than the mirror's (a name with other
    /// bytes): a case replaying it must pass that index itself, not the index of the
    /// entry with the mirror's name.
    #[serde(default)]
    pub other_entry: bool,
    /// The divergence has a second reading one call cannot tell apart: a name whose
    /// bytes agree with the mirror's entry as far as shown, but not its length, is the
    /// string convention broken (R-STR-2) or the name of another entry (R-STR-6, a
    /// name that repeats). A case written for the first reading that does not
    /// reproduce is written in the second (`workflows/replayed.rs`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub two_readings: bool,
    /// A rule every call keeps whatever the catalog holds (the string convention,
    /// buffer bounds, handles nulled by their free, `provided`, a growing update
    /// number), as opposed to what the catalog says: the case written for it asserts
    /// the convention, not the entry's other OUT values.
    #[serde(default)]
    pub convention: bool,
    /// Earlier calls whose divergence `--known` passed over: (step, rule, the code the
    /// library returned), so a case replaying this one accepts that code there.
    #[serde(default)]
    pub passed_over: Vec<(usize, String, ReturnCode)>,
    /// A value held to a relation with an earlier read of the same variable (`gt`,
    /// `ge`, `le`, `eq`): the case written asks that relation of the saved value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relation: Option<String>,
    /// The other reading of a sentence the library follows (specs/readings.yaml id):
    /// the case written accepts it through `or_reading:`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
}

/// The rule a divergence in `op`'s outcome cites: its function's `rule:` column of the
/// table (`Func::rule`), or what the op says more than its function.
pub(crate) fn rule_of(op: &Call) -> &'static str {
    // ALL_HANDLES has its own sentence (MPI-4.1 §15.3.7).
    if op.act().is_some() && op.handle("handle") == Ref::All {
        return "R-PSTART-2";
    }
    // Around MPI_Init the question is the catalog's: no index moves. MPI_Finalize and
    // MPI_Session_init cite their own (R-GEN-4, R-MPI-2).
    if op.func.group() == Group::Mpi {
        return op.func.rule().unwrap_or("R-CVAR-1");
    }
    // An event instance read after its callback returned.
    if matches!(op.arg("instance"), Some(A::Handle(HandleKind::Instance, _))) {
        return "R-EVT-INST";
    }
    // Every other call's function has a `rule:` (`every_call_cites_a_rule`); the
    // reference's hook `simulate` is MPI activity, no MPI_T rule of its own.
    op.func.rule().unwrap_or("R-GEN-1")
}

fn show(o: &Obs) -> String {
    let mut s = o.rc.to_string();
    for (k, v) in &o.outs {
        s.push_str(&format!(", {k}: {v}"));
    }
    s
}

struct Ctx<'a> {
    step: usize,
    op: &'a Call,
    level: Level,
}

impl Ctx<'_> {
    fn div(&self, rule: &str, level: Level, what: String, m: &Obs, t: &Obs) -> Divergence {
        Divergence {
            step: self.step,
            call: self.op.to_string(),
            function: self.op.func.c_name().to_string(),
            rule: rule.to_string(),
            level,
            what,
            expected: show(m),
            actual: show(t),
            other_entry: false,
            two_readings: false,
            convention: false,
            passed_over: Vec::new(),
            relation: None,
            reading: None,
        }
    }

    /// [`Ctx::div`] of a rule every initialization keeps ([`Divergence::convention`]).
    fn convention(&self, rule: &str, what: String, m: &Obs, t: &Obs) -> Divergence {
        Divergence {
            convention: true,
            ..self.div(rule, Level::Must, what, m, t)
        }
    }
}

/// Divergences already known (a finding of FINDINGS.md, `fuzz-props --known`): the
/// comparison passes over them and goes on, so a library with one deviation that every
/// sequence hits (Open MPI's F-9) is still explored. A crash is never passed over.
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// (rule, function): `R-INIT-1` or `R-INIT-1:MPI_T_init_thread`.
    pub entries: Vec<(String, Option<String>)>,
    /// Divergences passed over so far.
    pub hits: std::cell::Cell<u64>,
}

impl Known {
    /// `RULE` or `RULE:FUNCTION`, as given on the command line.
    pub fn parse(specs: &[String]) -> Result<Known, String> {
        let entries = specs
            .iter()
            .map(|s| match s.split_once(':') {
                Some((r, f)) if r.starts_with("R-") && f.starts_with("MPI") => {
                    Ok((r.to_string(), Some(f.to_string())))
                }
                None if s.starts_with("R-") => Ok((s.clone(), None)),
                _ => Err(format!(
                    "--known {s}: expected a rule id (R-INIT-1) or RULE:FUNCTION (R-INIT-1:MPI_T_init_thread)"
                )),
            })
            .collect::<Result<_, _>>()?;
        Ok(Known {
            entries,
            hits: Default::default(),
        })
    }

    fn accepts(&self, d: &Divergence) -> bool {
        let known = self
            .entries
            .iter()
            .any(|(r, f)| *r == d.rule && f.as_ref().is_none_or(|f| *f == d.function));
        if known {
            self.hits.set(self.hits.get() + 1);
        }
        known
    }
}

/// The worker died in `cx`'s call. R-GEN-3 (MPI-4.1 §15.3.10, "the behavior of the
/// implementation is undefined"): after a call with arguments the standard leaves
/// undefined, what follows is undefined too, so a death in a later call is judged at
/// that call's level, as the suite's runner judges a crash after an `erroneous` step
/// (`runner/pool.rs`: warn, fail under `--strict`), and the message names it.
fn death(
    cx: &Ctx,
    ops: &[Call],
    undefined: Option<(usize, Level)>,
    how: &Died,
    m: &Obs,
    passed_over: Vec<(usize, String, ReturnCode)>,
) -> Divergence {
    let t = Obs::rc(ReturnCode::Success);
    let short = how.to_string();
    let short = short.split(" in MPI_T_").next().unwrap_or_default();
    let short = short.split("; library output").next().unwrap_or_default();
    let mut what = format!("the worker died in {} ({short})", cx.op.function());
    let mut level = cx.level;
    if let Some((k, l)) = undefined.filter(|_| level == Level::Must) {
        level = l;
        what.push_str(&format!(
            " after call {} ({}), whose arguments the standard leaves undefined (R-GEN-3)",
            k + 1,
            ops[k].function()
        ));
    }
    let mut d = cx.div("R-GEN-1", level, what, m, &t);
    d.actual = how.to_string();
    d.passed_over = passed_over;
    d
}

/// Compares two traces of `ops`, run from the state `start`.
pub fn compare(start: &Gen, ops: &[Call], model: &Trace, target: &Trace) -> Option<Divergence> {
    compare_known(start, ops, model, target, &Known::default())
}

/// [`compare`], passing over the divergences `known` accepts.
pub fn compare_known(
    start: &Gen,
    ops: &[Call],
    model: &Trace,
    target: &Trace,
    known: &Known,
) -> Option<Divergence> {
    let mut g = start.clone();
    let mut det = Determined::default();
    let mut passed_over = Vec::new();
    // The first call whose arguments the standard leaves undefined (any level but
    // MUST, as the written case marks it `erroneous`), and its level.
    let mut undefined: Option<(usize, Level)> = None;
    for (step, op) in ops.iter().enumerate() {
        let level = g.level(op);
        let cx = Ctx { step, op, level };
        let Some(m) = model.obs.get(step) else {
            unreachable!("the model answers every op")
        };
        if let Some((at, how)) = &target.died {
            if *at == step {
                return Some(death(&cx, ops, undefined, how, m, passed_over));
            }
        }
        if level != Level::Must && undefined.is_none() {
            undefined = Some((step, level));
        }
        // A trace that ends early without the process dying is the harness's failure,
        // never an agreement: say so rather than pass the rest unjudged.
        let Some(t) = target.obs.get(step) else {
            let mut d = cx.div(
                "R-GEN-1",
                Level::Must,
                format!("no outcome of {} came back from the worker", op.function()),
                m,
                m,
            );
            d.actual = "nothing (the trace ended early)".into();
            return Some(d);
        };
        if t.unsupported {
            g.apply(op);
            continue;
        }
        let d = codes::compare_rc(&cx, &g, m, t).or_else(|| {
            (m.ok() && t.ok())
                .then(|| outs::compare_outs(&cx, &g, &det, m, t))
                .flatten()
        });
        let d = match d {
            Some(d) if known.accepts(&d) => {
                passed_over.push((step, d.rule, t.rc.clone()));
                None
            }
            d => d,
        };
        if let Some(mut d) = d {
            d.passed_over = passed_over;
            return Some(d);
        }
        track(&mut det, &g, op, m, t);
        g.apply(op);
    }
    None
}

/// The codes the comparator accepts for `op` in state `g` when the model answered `m`:
/// the model's own and those the policy lets stand beside it. A case written for a
/// divergence expects exactly these, so it never accepts what the comparator calls a
/// deviation (and never asks more than the comparator does).
pub fn accepted(g: &Gen, op: &Call, m: &Obs) -> Vec<ReturnCode> {
    let cx = Ctx {
        step: 0,
        op,
        level: g.level(op),
    };
    std::iter::once(ReturnCode::Success)
        .chain(TErr::ALL.iter().map(|e| ReturnCode::T(*e)))
        .filter(|c| codes::compare_rc(&cx, g, m, &Obs::rc(c.clone())).is_none())
        .collect()
}

/// The clause of each rule, from `specs/clauses.yaml` (data, not code).
pub fn clauses(src: &Source) -> BTreeMap<String, String> {
    Clauses::load(src)
        .map(|c| c.rules.into_iter().map(|r| (r.rule, r.clause)).collect())
        .unwrap_or_default()
}
