//! One call made and recorded: the evidence of the result (at most `EVIDENCE_CAP`
//! calls), the run-wide return-code log, and the handles the library handed out (their
//! kind, index and element count, for reads and writes through them) and the MPI_T
//! init depth.

use super::calls::{self, Arg, Args, HandleMeta, Recorded};
use super::{Exec, EVIDENCE_CAP};
use crate::judge::return_codes::log_key;
use crate::judge::value::Val;
use mpit_spec::cases::funcs::Func;
use mpit_spec::verdict::{Evidence, Json};
use mpit_vocab::profile::ReturnCode;
use std::collections::BTreeMap;

impl Exec<'_, '_> {
    /// One call: evidence, return-code log, handle bookkeeping. `None` when the symbol
    /// is missing (recorded as unsupported).
    pub(super) fn call_outs(
        &mut self,
        func: Func,
        args: &BTreeMap<&'static str, Arg>,
    ) -> Option<(ReturnCode, BTreeMap<String, Val>)> {
        let t = self.ctx.t;
        let layout = Recorded {
            inv: self.ctx.inv,
            handles: &self.handles,
        };
        let Some((rc, outs)) = calls::invoke(t, &layout, func, &Args::Map(args)) else {
            self.unsupported = Some(func.c_name().to_string());
            return None;
        };
        // The case's variables and saved OUT values are named by owned strings.
        let outs: BTreeMap<String, Val> =
            outs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let code = t.rc(rc);
        if func.c_name().starts_with("MPI_T_") {
            let key = log_key(func.c_name(), self.erroneous_now);
            *self
                .log
                .0
                .entry(key)
                .or_default()
                .entry(code.to_string())
                .or_default() += 1;
        }
        if code == ReturnCode::Success {
            self.track(func, args, &outs);
        }
        // The first calls are kept, and the last slot holds the latest call until an
        // expectation fails on it (`expect.rs` marks the last evidence): the failing call
        // is always in the evidence, with what was expected of it.
        let full = self.evidence.len() >= EVIDENCE_CAP;
        if full && self.evidence.last().is_some_and(|e| e.expected.is_none()) {
            self.evidence.pop();
        }
        if self.evidence.len() < EVIDENCE_CAP {
            self.evidence.push(Evidence {
                call: func.c_name().to_string(),
                // Written as text at once: a tree of values per call, made to be
                // written and dropped, was most of the cost of keeping evidence.
                args: Json::of(args),
                rc: Some(code.to_string()),
                out: Json::of(&outs),
                expected: None,
            });
        }
        Some((code, outs))
    }

    pub(super) fn call(
        &mut self,
        func: Func,
        args: &BTreeMap<&'static str, Arg>,
    ) -> Option<ReturnCode> {
        self.call_outs(func, args).map(|(c, _)| c)
    }

    fn track(
        &mut self,
        func: Func,
        args: &BTreeMap<&'static str, Arg>,
        outs: &BTreeMap<String, Val>,
    ) {
        let index = match args.get("index") {
            Some(Arg::Int(i)) => *i as i32,
            _ => 0,
        };
        let count = outs.get("count").and_then(Val::int).unwrap_or(0) as i32;
        let handle = |k: &str| outs.get(k).and_then(Val::int).map(|h| h as u64);
        self.depth += i64::from(func.depth());
        // A handle the call made (its first OUT), kept with what it is for: reads are
        // sized and decoded by its variable's datatype and count (R-CVAR-8).
        if let (Some(kind), Some(out)) = (func.allocates(), func.outs().first()) {
            if let Some(h) = handle(out) {
                self.handles.insert(h, HandleMeta { kind, index, count });
            }
        }
    }
}
