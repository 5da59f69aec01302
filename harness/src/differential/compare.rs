//! The comparator: the model's and the target's outcomes of the same sequence, call by
//! call, judged only where the standard leaves no latitude. Return codes are compared
//! against the set the standard allows (specs/return-codes.yaml), live values only where
//! the calls determine them (a stopped counter after reset, a value written and read
//! back), and the first difference is reported with the rule it breaks. Everything
//! after it is not compared: the two states no longer agree.

use super::gen::Gen;
use super::obs::{Obs, Out, StrObs, Trace};
use super::op::{Act, Kind, Op, Ref};
use crate::judge::return_codes::{
    Table, CODE_OUTSIDE_THE_TABLE_IN_AN_ERRONEOUS_CALL, CVAR_WRITE_REFUSED,
    FOREIGN_HANDLE_REFUSED_ANYWAY, HANDLE_OUTSIDE_THE_INTERFACE, READRESET_READONLY_NON_ATOMIC,
};
use crate::target::ffi::FILL;
use crate::verdict::Level;
use mpit_reference::profile::ReturnCode;
use mpit_reference::spec::TErr;
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
    /// A rule every initialization keeps (the string convention, buffer bounds, handles
    /// nulled by their free, `provided`, a growing update number), as opposed to what
    /// the catalog holds: R-FIN-3 lets the catalog change across re-initialization,
    /// never these.
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

/// What the comparator tracks to know which values the calls determine.
#[derive(Debug, Clone, Default)]
struct Determined {
    /// Per pvar handle (creation order): started, value determined.
    pvars: Vec<(bool, bool)>,
    /// Pvar handles reset (by themselves or through ALL_HANDLES) at least once.
    reset: std::collections::BTreeSet<usize>,
    /// Per cvar handle: value determined (written and accepted by both).
    cvars: Vec<bool>,
    /// The target's last `category_changed` (R-CAT: it never decreases).
    update_number: Option<i64>,
    /// The model's last `category_changed`: when it moved, the categories changed.
    model_update_number: Option<i64>,
    /// Per pvar handle, the library's own readings (relations::check).
    samples: Vec<super::relations::Sample>,
}

fn rule_of(op: &Op) -> &'static str {
    match op {
        Op::InitThread { .. } => "R-INIT-1",
        Op::Finalize => "R-FIN-1",
        Op::GetNum(k) | Op::GetInfo { kind: k, .. } => match k {
            Kind::Cvar => "R-CVAR-2",
            Kind::Pvar => "R-PVAR-1",
            Kind::Category => "R-CAT-1",
            Kind::Event => "R-EVT-1",
            Kind::Source => "R-SRC-1",
        },
        Op::GetIndex { kind, .. } => match kind {
            Kind::Cvar => "R-CVAR-5",
            Kind::Event => "R-EVT-IDX",
            _ => "R-CAT-1",
        },
        Op::PvarGetIndex { .. } => "R-PVAR-4",
        Op::CategoryMembers { .. } | Op::CategoryGetNumEvents { .. } => "R-CAT-1",
        Op::CategoryChanged => "R-CAT",
        Op::EnumGetInfo { .. } => "R-ENUM-2",
        Op::EnumGetItem { .. } => "R-ENUM-3",
        Op::CvarHandleAlloc { .. } => "R-CVAR-6",
        Op::CvarHandleFree { .. } => "R-CVAR-7",
        Op::CvarRead { .. } => "R-CVAR-8",
        Op::CvarWrite { .. } => "R-CVAR-9",
        Op::SessionCreate | Op::SessionFree { .. } => "R-SESS-1",
        Op::PvarHandleAlloc { .. } | Op::PvarHandleFree { .. } => "R-PH-1",
        Op::Pvar {
            handle: Ref::All, ..
        } => "R-PSTART-2",
        Op::Pvar { act, .. } => match act {
            Act::Reset => "R-PRESET-1",
            _ => "R-PSTART-1",
        },
        Op::PvarRead { reset: true, .. } => "R-PRR-1",
        Op::PvarRead { .. } => "R-PREAD-1",
        Op::PvarWrite { .. } => "R-PWRITE-1",
        Op::SourceGetTimestamp { .. } => "R-SRC-TS",
        Op::EventHandleAlloc { .. } => "R-EVT-1",
        Op::EventHandleFree { .. } => "R-EVT-FREE",
        Op::Simulate { .. } => "R-GEN-1",
        Op::MpiInit => "R-CVAR-1",
        Op::EventInfoObject { .. } => "R-EVT-INFO",
        Op::EventRegisterCallback { .. } | Op::RaiseEvent { .. } => "R-EVT-CB",
        Op::EventSetDroppedHandler { .. } => "R-EVT-DROP",
        Op::EventReadAfter { .. } => "R-EVT-INST",
    }
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
    op: &'a Op,
    level: Level,
}

impl Ctx<'_> {
    fn div(&self, rule: &str, level: Level, what: String, m: &Obs, t: &Obs) -> Divergence {
        Divergence {
            step: self.step,
            call: format!("{}({:?})", self.op.function(), self.op),
            function: self.op.function(),
            rule: rule.to_string(),
            level,
            what,
            expected: show(m),
            actual: show(t),
            other_entry: false,
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

/// Compares two traces of `ops`, run from the state `start`.
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

pub fn compare(start: &Gen, ops: &[Op], model: &Trace, target: &Trace) -> Option<Divergence> {
    compare_known(start, ops, model, target, &Known::default())
}

/// [`compare`], passing over the divergences `known` accepts.
pub fn compare_known(
    start: &Gen,
    ops: &[Op],
    model: &Trace,
    target: &Trace,
    known: &Known,
) -> Option<Divergence> {
    let mut g = start.clone();
    let mut det = Determined::default();
    let mut passed_over = Vec::new();
    for (step, op) in ops.iter().enumerate() {
        let level = g.level(op);
        let cx = Ctx { step, op, level };
        let Some(m) = model.obs.get(step) else {
            unreachable!("the model answers every op")
        };
        if let Some((at, how)) = &target.died {
            if *at == step {
                let t = Obs::rc(ReturnCode::Success);
                let short = how.to_string();
                let short = short.split(" in MPI_T_").next().unwrap_or_default();
                let short = short.split("; library output").next().unwrap_or_default();
                let mut d = cx.div(
                    "R-GEN-1",
                    level,
                    format!("the worker died in {} ({short})", op.function()),
                    m,
                    &t,
                );
                d.actual = how.to_string();
                d.passed_over = passed_over;
                return Some(d);
            }
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
        let d = compare_rc(&cx, &g, m, t).or_else(|| {
            (m.ok() && t.ok())
                .then(|| compare_outs(&cx, &g, &det, m, t))
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
            // R-FIN-3 (specs/readings.yaml fin3.catalog_after_reinit): across a full
            // finalize and re-initialization the catalog (its
            // indices, entries, values) may change, a quality matter: what the calls
            // say of it is then a SHOULD. The conventions every call keeps do not
            // change with it (a write past a buffer, a handle not nulled, an illegal
            // `provided`, a shrinking update number stay MUST).
            if g.reinit
                && m.rc == t.rc
                && d.level == Level::Must
                && !d.convention
                && !g.mirror.declared
            {
                d.level = Level::Should;
                d.what.push_str(&format!(
                    " (after MPI_T was re-initialized: quality only, {})",
                    crate::readings::FIN3_CATALOG_AFTER_REINIT
                ));
            }
            return Some(d);
        }
        track(&mut det, &g, op, m, t);
        g.apply(op);
    }
    None
}

/// Whether `rc` is one of the codes of the policy's `either:` entry `which` for the
/// function `op` calls (specs/return-codes.yaml; the spec suite reads the same entry).
fn either(which: &str, op: &Op, rc: &ReturnCode) -> bool {
    match rc {
        ReturnCode::T(e) => Table::shared_either_has(which, &op.function(), e.spelling()),
        _ => false,
    }
}

/// Whether `op` outside the interface passes a handle or session
/// (`judge::inventory::two_errors_outside`): two errors at once.
fn handle_outside(op: &Op) -> bool {
    let name = op.function();
    crate::cases::funcs::Func::mpi_t()
        .find(|f| f.c_name() == name)
        .is_some_and(crate::judge::inventory::two_errors_outside)
}

/// The codes the comparator accepts for `op` in state `g` when the model answered `m`:
/// the model's own and those the policy lets stand beside it. A case written for a
/// divergence expects exactly these, so it never accepts what the comparator calls a
/// deviation (and never asks more than the comparator does).
pub fn accepted(g: &Gen, op: &Op, m: &Obs) -> Vec<ReturnCode> {
    let cx = Ctx {
        step: 0,
        op,
        level: g.level(op),
    };
    std::iter::once(ReturnCode::Success)
        .chain(TErr::ALL.iter().map(|e| ReturnCode::T(*e)))
        .filter(|c| compare_rc(&cx, g, m, &Obs::rc(c.clone())).is_none())
        .collect()
}

fn compare_rc(cx: &Ctx<'_>, g: &Gen, m: &Obs, t: &Obs) -> Option<Divergence> {
    use ReturnCode::{Success, T};
    if m.rc == t.rc {
        return None;
    }
    let op = cx.op;
    // R-RC-1..3: every code is MPI_SUCCESS or an MPI_T_ERR_* of the ABI. A call whose
    // arguments the standard leaves unchecked (its level is not must) may answer
    // anything: specs/return-codes.yaml `levels:
    // code_outside_the_table_in_an_erroneous_call`, as the run-wide check judges it.
    if matches!(t.rc, ReturnCode::MpiErr(_) | ReturnCode::Unknown(_)) {
        let level = match cx.level {
            Level::Must => Level::Must,
            _ => Table::shared_level(CODE_OUTSIDE_THE_TABLE_IN_AN_ERRONEOUS_CALL),
        };
        return Some(cx.div(
            "R-RC-3",
            level,
            format!(
                "{} returned {}, which is not an MPI_T error code",
                op.function(),
                t.rc
            ),
            m,
            t,
        ));
    }
    // Two errors at once: every code of the policy's `either:` entry conforms, whichever
    // the model picked (the spec suite's cases expect the same entries).
    let both = |which: &str| either(which, op, &m.rc) && either(which, op, &t.rc);
    match op {
        // Outside the interface, a call that passes a handle or session.
        _ if !g.initialized() && handle_outside(op) && both(HANDLE_OUTSIDE_THE_INTERFACE) => {
            return None
        }
        // R-PH-1 with a handle of another session, on a variable the call cannot act
        // on at all (a continuous one started, a read-only one reset).
        _ if g.foreign_session(op)
            && g.refusal(op).is_some_and(|e| {
                [&m.rc, &t.rc]
                    .iter()
                    .all(|c| **c == T(TErr::InvalidHandle) || **c == T(e))
            })
            && both(FOREIGN_HANDLE_REFUSED_ANYWAY) =>
        {
            return None
        }
        // R-PRR-1 and R-PRESET-1 on a read-only, non-atomic variable.
        Op::PvarRead { reset: true, .. }
            if g.readonly_non_atomic(op) && both(READRESET_READONLY_NON_ATOMIC) =>
        {
            return None
        }
        // A second start of a started handle (or stop of a stopped one): the text is
        // silent, any return code conforms (specs/readings.yaml
        // pvar.start_of_a_started_handle).
        Op::Pvar { .. } if g.repeat_start_stop(op) && matches!(t.rc, Success | T(_)) => {
            return None
        }
        // R-CVAR-9: a variable that cannot be set now or ever may say either (the
        // policy's `either: cvar_write_refused`); a writable-scope variable may still
        // refuse for its own reasons (specs/readings.yaml
        // cvar_write.a_writable_variable_may_refuse).
        Op::CvarWrite { .. }
            if (m.rc == Success || either(CVAR_WRITE_REFUSED, op, &m.rc))
                && either(CVAR_WRITE_REFUSED, op, &t.rc) =>
        {
            return None
        }
        // R-FIN-1, MPI-4.1 §15.3.4 (specs/readings.yaml fin1.corresponding_return_code):
        // an extra finalize returns "a corresponding return code"; strict reading
        // NOT_INITIALIZED, any MPI_T error otherwise.
        Op::Finalize if m.rc == T(TErr::NotInitialized) && t.rc == Success => {
            return Some(cx.div(
                "R-FIN-1",
                Level::Must,
                "one MPI_T_finalize more than MPI_T_init_thread returned MPI_SUCCESS".into(),
                m,
                t,
            ));
        }
        Op::Finalize if m.rc == T(TErr::NotInitialized) && matches!(t.rc, T(_)) => {
            return Some(cx.div(
                "R-FIN-1",
                Level::Should,
                format!(
                    "one MPI_T_finalize too many: a different MPI_T error than NOT_INITIALIZED \
                     (the other reading, {})",
                    crate::readings::FIN1_CORRESPONDING_RETURN_CODE
                ),
                m,
                t,
            ));
        }
        // R-SRC-TS: whether a source has ad-hoc timestamps is not in any get_info: unless
        // the catalog was given, SUCCESS and NOT_SUPPORTED are both conformant
        // (specs/readings.yaml source_timestamp.support_is_not_declared).
        Op::SourceGetTimestamp { .. }
            if !g.mirror.declared
                && [&m.rc, &t.rc]
                    .iter()
                    .all(|c| **c == Success || **c == T(TErr::NotSupported)) =>
        {
            return None
        }
        _ => {}
    }
    let rule = match op {
        _ if !g.initialized() => "R-INIT-1",
        // Asked for the name alone, every other OUT argument NULL: "ignored".
        Op::GetInfo { desc, .. } if *desc == super::op::Str::NONE && m.rc == Success => "R-CVAR-3",
        // R-EVT-IDX (MPI-4.1 §15.3.8): an invalid event index is explicitly INVALID_INDEX.
        Op::GetInfo {
            kind: Kind::Event, ..
        }
        | Op::EventHandleAlloc { .. }
        | Op::EventInfoObject { .. }
            if m.rc == T(TErr::InvalidIndex) =>
        {
            "R-EVT-IDX"
        }
        // R-PH-1: a handle not associated with the session is INVALID_HANDLE, whatever
        // the routine (F-7 answers a start, stop or reset instead).
        Op::Pvar { .. }
        | Op::PvarRead { .. }
        | Op::PvarWrite { .. }
        | Op::PvarHandleFree { .. }
            if m.rc == T(TErr::InvalidHandle) =>
        {
            "R-PH-1"
        }
        _ => rule_of(op),
    };
    Some(cx.div(
        rule,
        cx.level,
        format!(
            "{} returned {} where {} was expected",
            op.function(),
            t.rc,
            m.rc
        ),
        m,
        t,
    ))
}

fn compare_str(
    cx: &Ctx<'_>,
    field: &str,
    ms: &StrObs,
    ts: &StrObs,
    m: &Obs,
    t: &Obs,
) -> Option<Divergence> {
    let what =
        |rule: &str, s: String| Some(cx.div(rule, Level::Must, format!("{field}: {s}"), m, t));
    if !ts.stray.is_empty() {
        return what(
            "R-STR-1",
            format!("wrote outside the buffer at byte offsets {:?}", ts.stray),
        );
    }
    if let (Some(w), Some(b)) = (&ms.buf, &ts.buf) {
        if b.len() < w.len() || b[..w.len()] != w[..] {
            let got = &b[..w.len().min(b.len())];
            return what(
                "R-STR-1",
                format!(
                    "buffer of {} bytes holds {:?}, the convention writes {:?}",
                    b.len(),
                    String::from_utf8_lossy(got),
                    String::from_utf8_lossy(w)
                ),
            );
        }
        if w.is_empty() && b.iter().any(|x| *x != FILL) {
            // Nothing may be written: n == 0 (R-STR-3) or a NULL length (R-STR-4).
            let rule = if ms.len.is_none() {
                "R-STR-4"
            } else {
                "R-STR-3"
            };
            // An empty description at n == 0: the conflict of R-STR-3 with the
            // description sentence is decided for R-STR-3 (specs/readings.yaml
            // desc.empty_description_zero_buffer).
            let conflict = match (rule, ms.len) {
                ("R-STR-3", Some(1)) if field == "desc" => format!(
                    " ({})",
                    crate::readings::cite(crate::readings::DESC_EMPTY_DESCRIPTION_ZERO_BUFFER)
                ),
                _ => String::new(),
            };
            return what(
                rule,
                format!("wrote into a buffer the convention leaves untouched{conflict}"),
            );
        }
    }
    if ms.len != ts.len {
        // The other reading of R-STR-2 (specs/readings.yaml
        // str2.length_of_the_truncated_string): on truncation *len = n, the bytes
        // written. Careful implementers hold it; the literal reading decides under
        // --strict (specs/readings.yaml).
        let truncated = matches!((&ms.buf, ms.len), (Some(w), Some(l)) if !w.is_empty() && (w.len() as i32) < l);
        let n = ts.buf.as_ref().map(|b| b.len() as i32);
        if truncated && ts.len.is_some() && ts.len == n {
            return Some(cx.div(
                "R-STR-2",
                Level::Should,
                format!(
                    "{field}: *len is {} = n on truncation (the other reading of R-STR-2; the literal one says strlen+1 = {}; {})",
                    n.unwrap_or(0),
                    ms.len.unwrap_or(0),
                    crate::readings::STR2_LENGTH_OF_THE_TRUNCATED_STRING
                ),
                m,
                t,
            ));
        }
        let rule = match (&ms.buf, ms.len) {
            (None, _) => "R-STR-3",
            (Some(w), Some(l)) if w.is_empty() && l > 0 => "R-STR-3",
            _ => "R-STR-2",
        };
        return what(
            rule,
            format!(
                "*len is {} where strlen+1 = {} was expected",
                ts.len.map_or("NULL".into(), |l| l.to_string()),
                ms.len.map_or("untouched".into(), |l| l.to_string())
            ),
        );
    }
    None
}

fn compare_outs(cx: &Ctx<'_>, g: &Gen, det: &Determined, m: &Obs, t: &Obs) -> Option<Divergence> {
    let op = cx.op;
    for (name, mo) in &m.outs {
        let Some(to) = t.out(name) else {
            continue;
        };
        match (mo, to) {
            (Out::Str(ms), Out::Str(ts)) => {
                if let Some(mut d) = compare_str(cx, name, ms, ts, m, t) {
                    // Other characters (not a missing NUL or a short buffer): the
                    // index named another entry.
                    let text_differs = match (&ms.buf, &ts.buf) {
                        (Some(w), Some(b)) => {
                            let n = w.iter().position(|x| *x == 0).unwrap_or(w.len());
                            b.len() >= n && b[..n] != w[..n]
                        }
                        _ => false,
                    };
                    d.other_entry = name == "name"
                        && text_differs
                        && ts.stray.is_empty()
                        && matches!(op, Op::GetInfo { .. });
                    // Other bytes name another entry (the catalog); anything else is the
                    // string convention itself.
                    d.convention = !d.other_entry;
                    // After MPI_Init an index naming another entry is R-CVAR-1 (indices
                    // never move), whatever the string convention says of the bytes.
                    let moved = d.level == Level::Must && name == "name";
                    if g.mpi && moved && matches!(op, Op::GetInfo { .. }) {
                        d.rule = "R-CVAR-1".into();
                        d.what = format!("after MPI_Init, {}", d.what);
                    }
                    return Some(d);
                }
            }
            // A nested init that leaves provided as the harness set it (-1): the other
            // reading of "no effect beyond increasing the reference count"
            // (specs/readings.yaml init.nested_call_has_no_effect), as the spec suite.
            (_, Out::Name(p)) if name == "provided" && p == "unknown(-1)" && g.initialized() => {
                return Some(cx.div(
                    "R-INIT-1",
                    Level::Should,
                    format!(
                        "a nested MPI_T_init_thread left provided unwritten (the other \
                         reading, {})",
                        crate::readings::INIT_NESTED_CALL_HAS_NO_EFFECT
                    ),
                    m,
                    t,
                ));
            }
            // R-INIT-1: provided is one of the four levels (not necessarily `required`).
            (_, Out::Name(p)) if name == "provided" && p.starts_with("unknown") => {
                return Some(cx.convention(
                    "R-INIT-1",
                    format!("provided is {p}, not a thread level"),
                    m,
                    t,
                ));
            }
            (_, Out::Name(_)) if name == "provided" => {}
            (Out::Ints(mv), Out::Ints(tv)) if name == "indices" => {
                let k = mv.len();
                let sentinel = |x: &i64| *x == i64::from(super::target::SENTINEL);
                let ok = if g.mirror.declared {
                    tv.len() >= k && tv[..k] == mv[..] && tv[k..].iter().all(sentinel)
                } else {
                    // R-CAT: a library's categories may change as it registers
                    // variables (category_changed says so), and the mirror was read in
                    // another process: only the form is fixed, members then untouched
                    // entries (a write past `len` is the engine's `overrun`).
                    let written = tv.iter().take_while(|x| !sentinel(x)).count();
                    tv[written..].iter().all(sentinel)
                };
                if !ok {
                    return Some(cx.div(
                        "R-CAT-1",
                        Level::Must,
                        format!("indices {tv:?} where {mv:?} then untouched entries were expected"),
                        m,
                        t,
                    ));
                }
            }
            (Out::Bytes(mb), Out::Bytes(tb))
                if determined(g, det, op) && !same_value(g, op, mb, tb) =>
            {
                let rule = match op {
                    Op::CvarRead { .. } => "R-CVAR-9",
                    Op::RaiseEvent { .. } => "R-EVT-CB",
                    // A handle never reset: the class's semantics (R-PCLASS).
                    Op::PvarRead {
                        handle: Ref::Made(n),
                        ..
                    } if !det.reset.contains(&(*n as usize)) => "R-PCLASS",
                    _ => "R-PRESET-1",
                };
                return Some(cx.div(
                    rule,
                    Level::Must,
                    format!("the value read is {to} where the calls made it {mo}"),
                    m,
                    t,
                ));
            }
            (Out::Bytes(_), Out::Bytes(tb)) => {
                if let Some(b) = super::relations::check(g, &det.samples, op, tb) {
                    return Some(Divergence {
                        relation: Some(b.relation.into()),
                        ..cx.div(b.rule, Level::Must, b.what, m, t)
                    });
                }
            }
            // R-CAT: the update number is the library's own; only its growth is fixed.
            (Out::Int(mn), Out::Int(n)) if name == "update_number" => {
                if let Some(prev) = det.update_number.filter(|p| n < p) {
                    return Some(cx.convention(
                        "R-CAT",
                        format!("update_number went down from {prev} to {n}"),
                        m,
                        t,
                    ));
                }
                // §15.3.9: "If two calls to this routine return the same update number,
                // it is guaranteed that the category information has not changed
                // between the two calls". With the catalog declared (the same in both
                // engines), the model's number moving says the categories changed.
                if let (true, Some(mp), Some(tp)) = (
                    g.mirror.declared,
                    det.model_update_number,
                    det.update_number,
                ) {
                    if *mn != mp && *n == tp {
                        return Some(Divergence {
                            relation: Some("gt".into()),
                            ..cx.convention(
                                "R-CAT",
                                format!(
                                    "update_number is {n} again although the categories \
                                     changed since the last call"
                                ),
                                m,
                                t,
                            )
                        });
                    }
                }
            }
            // R-CAT: member counts of a library's category may change (see `indices`).
            (Out::Int(_), Out::Int(_))
                if name.starts_with("num_")
                    && matches!(
                        op,
                        Op::GetInfo {
                            kind: Kind::Category,
                            ..
                        }
                    )
                    && !g.mirror.declared => {}
            (Out::Int(_), Out::Int(_))
                if matches!(op, Op::CategoryGetNumEvents { .. }) && !g.mirror.declared => {}
            // A pvar's count is read back only from a handle; unless the catalog was
            // declared, the model's count is a guess (1).
            (Out::Int(_), Out::Int(_))
                if name == "count"
                    && matches!(op, Op::PvarHandleAlloc { .. })
                    && !g.mirror.declared => {}
            // R-PVAR-2 states the flags as 0 and 1; a C logical flag is true when
            // nonzero (MPI-4.1 §2.6.3): the other reading, SHOULD (specs/readings.yaml
            // pvar_flags.nonzero_is_true), as in the spec suite.
            (Out::Flag(true), Out::Int(n))
                if *n != 0 && super::obs::PVAR_FLAGS.contains(&name.as_str()) =>
            {
                let id = crate::readings::PVAR_FLAGS_NONZERO_IS_TRUE;
                return Some(Divergence {
                    reading: Some(id.into()),
                    ..cx.div(
                        "R-PVAR-2",
                        Level::Should,
                        format!("{name} is {n}: true as a C logical flag, not 1 (the other reading, {id})"),
                        m,
                        t,
                    )
                });
            }
            (a, b) if a != b => {
                let rule = match (op, name.as_str()) {
                    (Op::RaiseEvent { .. }, d) if d.starts_with("dropped") => "R-EVT-DROP",
                    (Op::CvarHandleFree { .. }, _) => "R-CVAR-7",
                    (Op::SessionFree { .. }, _) => "R-SESS-1",
                    (Op::PvarHandleFree { .. }, _) => "R-PH-1",
                    _ => rule_of(op),
                };
                let what = format!("{name} is {b} where {a} was expected");
                // A free that does not null its handle breaks a convention, not the catalog.
                let freed = matches!(
                    op,
                    Op::CvarHandleFree { .. } | Op::SessionFree { .. } | Op::PvarHandleFree { .. }
                );
                return Some(match freed {
                    true => cx.convention(rule, what, m, t),
                    false => cx.div(rule, Level::Must, what, m, t),
                });
            }
            _ => {}
        }
    }
    // Outputs only the target has: a write past a read buffer or a member array.
    for (name, to) in &t.outs {
        if m.out(name).is_none() && (name == "stray" || name == "overrun") {
            let rule = match op {
                Op::CategoryMembers { .. } => "R-CAT-1",
                Op::CvarRead { .. } => "R-CVAR-8",
                _ => "R-PREAD-1",
            };
            return Some(cx.convention(
                rule,
                format!("wrote past the buffer the standard sizes ({name}: {to})"),
                m,
                t,
            ));
        }
    }
    None
}

/// Two reads of the same variable: MPI_CHAR values are defined up to the first NUL
/// (R-TYPE-2); a vendor pvar's count may differ from the model's guess, so lists of
/// different lengths are compared only for being all zero (a reset counter).
fn same_value(g: &Gen, op: &Op, m: &[u8], t: &[u8]) -> bool {
    let dt = g.read_datatype(op);
    if dt == Some(mpit_reference::spec::Datatype::Char) {
        let text = |b: &[u8]| {
            b.iter()
                .take_while(|x| **x != 0)
                .copied()
                .collect::<Vec<u8>>()
        };
        return text(m) == text(t);
    }
    if m.len() != t.len() && !g.mirror.declared {
        return !m.iter().all(|x| *x == 0) || t.iter().all(|x| *x == 0);
    }
    m == t
}

/// Whether the value this read returns is fixed by the calls so far.
fn determined(g: &Gen, det: &Determined, op: &Op) -> bool {
    if g.mirror.exact_values {
        return true;
    }
    match op {
        Op::CvarRead {
            handle: Ref::Made(n),
        } => det.cvars.get(*n as usize).copied().unwrap_or(false),
        Op::PvarRead {
            handle: Ref::Made(n),
            ..
        } => det.pvars.get(*n as usize).is_some_and(|(_, d)| *d),
        _ => false,
    }
}

fn track(det: &mut Determined, g: &Gen, op: &Op, m: &Obs, t: &Obs) {
    let both = m.ok() && t.ok();
    let read = match t.out("value") {
        Some(Out::Bytes(b)) => Some(b.as_slice()),
        _ => None,
    };
    super::relations::track(g, &mut det.samples, op, m.ok(), t.ok(), read);
    let pvar = |n: usize| {
        g.pvar_handles
            .get(n)
            .and_then(|l| g.mirror.catalog.pvars.get(l.index as usize))
    };
    if let (Some(Out::Int(mn)), Some(Out::Int(n))) =
        (m.out("update_number"), t.out("update_number"))
    {
        det.update_number = Some(*n);
        det.model_update_number = Some(*mn);
    }
    match op {
        Op::CvarHandleAlloc { .. } if m.ok() => det.cvars.push(false),
        Op::CvarWrite {
            handle: Ref::Made(n),
            ..
        } => {
            if let Some(d) = det.cvars.get_mut(*n as usize) {
                *d = both;
            }
        }
        Op::PvarHandleAlloc { index, .. } if m.ok() => {
            det.pvars.push((g.continuous(*index), false));
        }
        Op::Pvar {
            act,
            handle,
            session,
        } if both => {
            for n in g.pvar_targets(*handle, *session) {
                let Some(p) = pvar(n) else { continue };
                let (cont, ro) = (p.continuous, p.readonly);
                let zero = p.class.starts_at_zero();
                if let Some(s) = det.pvars.get_mut(n) {
                    match act {
                        Act::Start if !cont => *s = (true, false),
                        Act::Stop if !cont => s.0 = false,
                        // R-PRESET-1: reset sets the start value; it stays while stopped.
                        Act::Reset if !ro => {
                            s.1 = !s.0 && zero;
                            det.reset.insert(n);
                        }
                        _ => {}
                    }
                }
            }
        }
        Op::PvarRead {
            handle: Ref::Made(n),
            reset: true,
            ..
        } if both => {
            let zero = pvar(*n as usize).is_some_and(|p| p.class.starts_at_zero());
            if let Some(s) = det.pvars.get_mut(*n as usize) {
                s.1 = !s.0 && zero;
            }
        }
        Op::PvarWrite {
            handle: Ref::Made(n),
            ..
        } => {
            if let Some(s) = det.pvars.get_mut(*n as usize) {
                s.1 = both && !s.0;
            }
        }
        _ => {}
    }
}

/// The clause of each rule, from `specs/clauses.yaml` (data, not code).
pub fn clauses(src: &crate::specs::Source) -> BTreeMap<String, String> {
    crate::cases::clauses::Clauses::load(src)
        .map(|c| c.rules.into_iter().map(|r| (r.rule, r.clause)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::differential::op::{Mode, Str};
    use crate::differential::{props, Mirror};
    use mpit_reference::catalog::Catalog;
    use std::sync::Arc;

    fn start() -> Gen {
        let m = Mirror::of_catalog(Catalog::default_catalog(), "default".into());
        Gen::new(
            Arc::new(m),
            Mode {
                robustness: false,
                lifecycle: false,
            },
        )
    }

    fn info() -> Vec<Op> {
        vec![Op::GetInfo {
            kind: Kind::Cvar,
            index: 0,
            name: Str::sized(4),
            desc: Str::sized(64),
        }]
    }

    #[test]
    fn the_model_agrees_with_itself() {
        let g = start();
        let m = props::run_model(&g, &info());
        assert_eq!(compare(&g, &info(), &m, &m.clone()), None);
    }

    #[test]
    fn a_trace_that_ends_early_is_never_agreement() {
        let g = start();
        let m = props::run_model(&g, &info());
        let d = compare(&g, &info(), &m, &Trace::default()).expect("a divergence");
        assert!(d.what.contains("no outcome"), "{d:?}");
    }

    #[test]
    fn a_length_off_by_one_on_truncation_breaks_r_str_2() {
        let g = start();
        let m = props::run_model(&g, &info());
        let mut t = m.clone();
        for (k, o) in &mut t.obs[0].outs {
            if let (true, Out::Str(s)) = (k == "name", o) {
                s.len = s.len.map(|l| l - 1);
            }
        }
        let d = compare(&g, &info(), &m, &t).expect("a divergence");
        assert_eq!(
            (d.rule.as_str(), d.level),
            ("R-STR-2", Level::Must),
            "{d:?}"
        );
    }

    /// R-FIN-3 lets a vendor's catalog change across a full finalize and a new init, so
    /// what the calls say of it is quality only then; the string convention is not the
    /// catalog: a wrong length after a re-init stays MUST, another entry's name does not.
    #[test]
    fn after_a_reinit_the_catalog_may_change_the_conventions_may_not() {
        let mut m = Mirror::of_catalog(Catalog::default_catalog(), "vendor".into());
        m.declared = false;
        let g = Gen::new(
            Arc::new(m),
            Mode {
                robustness: false,
                lifecycle: true,
            },
        );
        let ops = vec![
            Op::InitThread {
                required: mpit_reference::spec::ThreadLevel::Single,
            },
            Op::Finalize,
            Op::InitThread {
                required: mpit_reference::spec::ThreadLevel::Single,
            },
            info().remove(0),
        ];
        let m = props::run_model(&g, &ops);
        let name = |t: &mut Trace| match t.obs[3].outs.iter_mut().find(|(k, _)| k == "name") {
            Some((_, Out::Str(s))) => s.clone(),
            _ => unreachable!("get_info has a name"),
        };
        let mut t = m.clone();
        let mut s = name(&mut t);
        s.len = s.len.map(|l| l - 1);
        for (k, o) in &mut t.obs[3].outs {
            if k == "name" {
                *o = Out::Str(s.clone());
            }
        }
        let d = compare(&g, &ops, &m, &t).expect("a divergence");
        assert_eq!(
            (d.rule.as_str(), d.level),
            ("R-STR-2", Level::Must),
            "{d:?}"
        );
        // Other characters: the index names another entry now, which R-FIN-3 allows.
        let mut t = m.clone();
        let mut s = name(&mut t);
        if let Some(b) = s.buf.as_mut().and_then(|b| b.first_mut()) {
            *b ^= 0x20;
        }
        for (k, o) in &mut t.obs[3].outs {
            if k == "name" {
                *o = Out::Str(s.clone());
            }
        }
        let d = compare(&g, &ops, &m, &t).expect("a divergence");
        assert_eq!(d.level, Level::Should, "{d:?}");
    }

    /// Outside the interface a call with a session has two errors: NOT_INITIALIZED or
    /// the table's session code conforms (specs/return-codes.yaml `either:`), another
    /// code or success does not.
    #[test]
    fn a_stale_session_after_the_last_finalize_may_say_either_error() {
        let g = Gen::new(
            Arc::new(Mirror::of_catalog(Catalog::default_catalog(), "d".into())),
            Mode {
                robustness: true,
                lifecycle: true,
            },
        );
        let ops = vec![
            Op::InitThread {
                required: mpit_reference::spec::ThreadLevel::Single,
            },
            Op::SessionCreate,
            Op::Finalize,
            Op::SessionFree {
                session: Ref::Made(0),
            },
        ];
        let m = props::run_model(&g, &ops);
        assert_eq!(m.obs[3].rc, ReturnCode::T(TErr::NotInitialized));
        let t = with_rc(&m, 3, ReturnCode::T(TErr::InvalidSession));
        assert_eq!(compare(&g, &ops, &m, &t), None);
        for wrong in [ReturnCode::T(TErr::InvalidHandle), ReturnCode::Success] {
            let d = compare(&g, &ops, &m, &with_rc(&m, 3, wrong)).expect("a divergence");
            assert_eq!((d.step, d.level), (3, Level::Must), "{d:?}");
        }
    }

    /// The first pvar without an object to bind that is (or is not) continuous.
    /// specs/return-codes.yaml `either: readreset_readonly_non_atomic`: NO_WRITE
    /// conforms as NO_ATOMIC does (the probe readreset-readonly-no-write); another
    /// code does not (Open MPI's INVALID_HANDLE, F-6).
    #[test]
    fn readreset_of_a_readonly_non_atomic_pvar_may_say_either_refusal() {
        let g = start();
        let index = g
            .mirror
            .catalog
            .pvars
            .iter()
            .position(|p| p.readonly && !p.atomic && p.bind == mpit_reference::spec::Bind::NoObject)
            .expect("the default catalog has one") as i32;
        let ops = vec![
            Op::SessionCreate,
            Op::PvarHandleAlloc {
                session: Ref::Made(0),
                index,
            },
            Op::PvarRead {
                session: Ref::Made(0),
                handle: Ref::Made(0),
                reset: true,
            },
        ];
        let m = props::run_model(&g, &ops);
        assert_eq!(m.obs[2].rc, ReturnCode::T(TErr::PvarNoAtomic));
        let t = with_rc(&m, 2, ReturnCode::T(TErr::PvarNoWrite));
        assert_eq!(compare(&g, &ops, &m, &t), None);
        let t = with_rc(&m, 2, ReturnCode::T(TErr::InvalidHandle));
        let d = compare(&g, &ops, &m, &t).expect("a divergence");
        assert_eq!((d.step, d.level), (2, Level::Must), "{d:?}");
        // The case written for it accepts exactly the policy's two codes.
        let mut g2 = g.clone();
        g2.apply(&ops[0]);
        g2.apply(&ops[1]);
        assert_eq!(
            accepted(&g2, &ops[2], &m.obs[2]),
            [
                ReturnCode::T(TErr::PvarNoWrite),
                ReturnCode::T(TErr::PvarNoAtomic)
            ]
        );
    }

    fn pvar(g: &Gen, continuous: bool) -> i32 {
        g.mirror
            .catalog
            .pvars
            .iter()
            .position(|p| {
                p.continuous == continuous && p.bind == mpit_reference::spec::Bind::NoObject
            })
            .expect("the default catalog has one") as i32
    }

    fn with_rc(m: &Trace, step: usize, rc: ReturnCode) -> Trace {
        let mut t = m.clone();
        t.obs[step].rc = rc;
        t
    }

    #[test]
    fn another_sessions_handle_on_a_continuous_pvar_may_say_either_error() {
        let g = start();
        let ops = vec![
            Op::SessionCreate,
            Op::SessionCreate,
            Op::PvarHandleAlloc {
                session: Ref::Made(0),
                index: pvar(&g, true),
            },
            Op::Pvar {
                act: Act::Start,
                session: Ref::Made(1),
                handle: Ref::Made(0),
            },
        ];
        let m = props::run_model(&g, &ops);
        assert_eq!(m.obs[3].rc, ReturnCode::T(TErr::InvalidHandle));
        let t = with_rc(&m, 3, ReturnCode::T(TErr::PvarNoStartstop));
        assert_eq!(compare(&g, &ops, &m, &t), None);
        // Accepting the handle is F-7, whatever the variable.
        let d = compare(&g, &ops, &m, &with_rc(&m, 3, ReturnCode::Success)).expect("R-PH-1");
        assert_eq!((d.rule.as_str(), d.level), ("R-PH-1", Level::Must), "{d:?}");
    }

    #[test]
    fn a_second_start_of_a_started_handle_may_answer_any_mpi_t_code() {
        let g = start();
        let start = |act| Op::Pvar {
            act,
            session: Ref::Made(0),
            handle: Ref::Made(0),
        };
        let ops = vec![
            Op::SessionCreate,
            Op::PvarHandleAlloc {
                session: Ref::Made(0),
                index: pvar(&g, false),
            },
            start(Act::Start),
            start(Act::Start),
            Op::GetNum(Kind::Cvar),
        ];
        let m = props::run_model(&g, &ops);
        // The text is silent on a second start of the handle itself: any MPI_T code.
        let t = with_rc(&m, 3, ReturnCode::T(TErr::PvarNoStartstop));
        assert_eq!(compare(&g, &ops, &m, &t), None);
        // Not an MPI error class: R-RC-3 holds for every call with valid arguments.
        let t = with_rc(&m, 3, ReturnCode::MpiErr("MPI_ERR_ARG".into()));
        let d = compare(&g, &ops, &m, &t).expect("a divergence");
        assert_eq!(
            (d.step, d.rule.as_str(), d.level),
            (3, "R-RC-3", Level::Must)
        );
        // Passed over as known, it is recorded for the case written for a later one.
        let mut t = t;
        t.obs[4].rc = ReturnCode::T(TErr::NotInitialized);
        let known = Known::parse(&["R-RC-3".into()]).expect("a rule id");
        let d = compare_known(&g, &ops, &m, &t, &known).expect("the later divergence");
        assert_eq!(d.step, 4, "{d:?}");
        assert_eq!(
            d.passed_over,
            vec![(
                3,
                "R-RC-3".to_string(),
                ReturnCode::MpiErr("MPI_ERR_ARG".into())
            )]
        );
    }

    #[test]
    fn avoided_entries_get_no_handle() {
        let mut m = Mirror::of_catalog(Catalog::default_catalog(), "default".into());
        let first = m
            .catalog
            .pvars
            .iter()
            .position(|p| p.bind == mpit_reference::spec::Bind::NoObject)
            .expect("an unbound pvar");
        let name = m.catalog.pvars[first].name.clone();
        assert_eq!(m.avoid_handles(&format!("pvar:{name}")), Ok(1));
        for bad in ["pvar", "category:*", "pvar:no_such_pvar_*", "pvar:["] {
            assert!(m.avoid_handles(bad).is_err(), "{bad}");
        }
        let mut g = Gen::new(
            Arc::new(m),
            Mode {
                robustness: false,
                lifecycle: false,
            },
        );
        g.apply(&Op::SessionCreate);
        let alloc = |index| Op::PvarHandleAlloc {
            session: Ref::Made(0),
            index,
        };
        assert!(!g.valid(&alloc(first as i32)));
        let other = (first as i32 + 1..g.mirror.count(Kind::Pvar))
            .find(|i| {
                g.mirror.catalog.pvars[*i as usize].bind == mpit_reference::spec::Bind::NoObject
            })
            .expect("another unbound pvar");
        assert!(g.valid(&alloc(other)));
    }
}
