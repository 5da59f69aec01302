//! A step's expectation (`expect:`, `skip_unless:`) against one call's observation:
//! the return code, the strings (MPI-4.1 §15.3.3), the OUT values and `same_as`,
//! each judged by `judge`; a failed expectation that holds under another reading
//! (`or_reading`) is a `warn` naming the reading (`fail` under `--strict`).

use super::calls::Arg;
use super::{Exec, Finding};
use crate::judge;
use crate::judge::value::Val;
use mpit_spec::cases::expr::{Expr, Term};
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::Expect;
use mpit_spec::readings;
use mpit_spec::verdict::Status;
use mpit_target::ffi::StrArg;
use mpit_vocab::profile::ReturnCode;
use std::collections::BTreeMap;

/// An expectation not met: what differs, and the entry of specs/readings.yaml whose
/// other side the observation is when the judge itself knows it (a string convention
/// finding: `judge::StrBroke::reading`), without an `or_reading:` in the case.
pub(super) struct Miss {
    pub(super) msg: String,
    pub(super) reading: Option<&'static str>,
}

impl From<String> for Miss {
    fn from(msg: String) -> Self {
        Miss { msg, reading: None }
    }
}

impl Exec<'_, '_> {
    /// Judges one observation; false when a failure should stop the sequence.
    pub(super) fn judge(
        &mut self,
        x: &Expect,
        func: Func,
        args: &BTreeMap<&'static str, Arg>,
        code: &ReturnCode,
        outs: &BTreeMap<String, Val>,
    ) -> bool {
        let level = x.level.unwrap_or(self.case.level);
        let Err(Miss { msg, reading }) = self.check(x, func, args, code, outs) else {
            return true;
        };
        let other = if self.ctx.strict {
            Status::Fail
        } else {
            Status::Warn
        };
        let finding = match (reading, &x.or_reading) {
            // The message cites the entry already (`StrBroke`'s wording).
            (Some(id), _) => Finding {
                status: other,
                message: msg.clone(),
                reading: Some(readings::cite(id)),
            },
            (None, Some(r)) if self.check(&r.expect, func, args, code, outs).is_ok() => Finding {
                status: other,
                message: format!(
                    "{msg} (the library follows another reading: {})",
                    readings::cite(&r.reading)
                ),
                reading: Some(readings::cite(&r.reading)),
            },
            _ => Finding {
                status: self.level_status(level),
                message: msg.clone(),
                reading: None,
            },
        };
        if let Some(ev) = self.evidence.last_mut() {
            ev.expected = Some(msg);
        }
        let stop = finding.status == Status::Fail;
        self.findings.push(finding);
        !stop
    }

    pub(super) fn check(
        &self,
        x: &Expect,
        func: Func,
        args: &BTreeMap<&'static str, Arg>,
        code: &ReturnCode,
        outs: &BTreeMap<String, Val>,
    ) -> Result<(), Miss> {
        let call = func.c_name();
        if let Some(want) = &x.rc {
            if !judge::rc_matches(want, code) {
                return Err(
                    format!("{call} returned {code}, want {}", judge::rc_text(want)).into(),
                );
            }
        }
        for (field, check) in [("name", x.name), ("desc", x.desc)] {
            let Some(check) = check else { continue };
            let Some(Val::Str(out)) = outs.get(field) else {
                continue;
            };
            let arg = match args.get(field) {
                Some(Arg::Str(s)) => *s,
                _ => StrArg::sized(4096),
            };
            let want = self.string_for(func, field).unwrap_or_default();
            if let Err(b) = judge::strings::broke(check, arg, out, want.as_ref()) {
                return Err(Miss {
                    msg: format!("{call} {field}: {b}"),
                    reading: b.reading(),
                });
            }
        }
        for (field, p) in &x.out {
            let Some(v) = outs.get(field) else {
                return Err(format!("{call} has no OUT value {field}").into());
            };
            judge::pred(&p.0, v, &|e| self.value(e)).map_err(|e| {
                // Datatype handles are numbers (Open MPI: addresses): name them.
                let names = match field.as_str() {
                    "datatype" | "datatypes" => format!(" (got {})", self.datatype_names(v)),
                    _ => String::new(),
                };
                format!("{call} {field}: {e}{names}")
            })?;
        }
        if let Some(e) = &x.same_as {
            // A saved variable is looked at in place (a list collected over a whole
            // catalog is not copied per call).
            let by_ref = match e {
                Expr::Sum(t) if t.len() == 1 && t[0].0 == 1 => match &t[0].1 {
                    Term::Var(v) => self.vars.get(v),
                    _ => None,
                },
                _ => None,
            };
            let owned;
            let value = match by_ref {
                Some(v) => v,
                None => {
                    owned = self.value(e)?;
                    &owned
                }
            };
            let saved = match (value, self.iteration) {
                // A list collected by an earlier `for_all`: the element of this iteration.
                (Val::List(l), Some(i)) => l.get(i).cloned().ok_or_else(|| {
                    format!("same_as: the saved list has no element {i} (iterate the same entries)")
                })?,
                (v, _) => v.clone(),
            };
            match saved {
                Val::Outs(before) => judge::same_outs(&before, outs).map_err(|e| {
                    // A query's answers never change (R-CVAR-2); another call's are the
                    // case's own question (its rules say which).
                    let why = match call.ends_with("_get_info") {
                        true => "R-CVAR-2: get_info answers never change",
                        false => "the same as an earlier call of the case returned",
                    };
                    format!("{call}: {e} ({why})")
                })?,
                other => {
                    return Err(
                        format!("same_as needs a value saved with `all`, not {other}").into(),
                    )
                }
            }
        }
        Ok(())
    }

    /// `MPI_INT, 0x7f.. = &ompi_mpi_c_bool`: datatype handles as the target names them
    /// (at most the first eight of a list).
    fn datatype_names(&self, v: &Val) -> String {
        let one = |x: &Val| {
            let raw = x.int().unwrap_or(0) as u64;
            self.ctx.t.datatype(raw).map_or_else(
                || self.ctx.t.describe_datatype(raw),
                |d| d.spelling().to_string(),
            )
        };
        match v {
            Val::List(l) => l.iter().take(8).map(one).collect::<Vec<_>>().join(", "),
            x => one(x),
        }
    }
}
