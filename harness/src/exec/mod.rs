//! Running a case: steps become calls on the target, each observation is handed to
//! `judge`, and the findings become one `CaseResult` per (case, subject).

pub mod calls;

use crate::cases::expr::{ConstKind, Expr, Size, Term};
use crate::cases::funcs::{Func, Param};
use crate::cases::{Callee, Case, ForAll, InitMode, Kind, Require, Step, StringField};
use crate::judge;
use crate::judge::inventory::{Entry, Inventory};
use crate::judge::return_codes::{log_key, RcLog};
use crate::judge::value::Val;
use crate::target::ffi::StrArg;
use crate::target::Target;
use crate::verdict::{CaseResult, Evidence, Level, Status};
use calls::{Arg, Args, HandleMeta};
use mpit_reference::profile::{HandleWidth, ReturnCode};
use std::collections::BTreeMap;
use std::time::Instant;

/// What a case runs against.
pub struct Ctx<'a> {
    pub t: &'a Target,
    pub inv: &'a Inventory,
    pub strict: bool,
    pub mpi_version: Option<(i32, i32)>,
    /// Told the call text before an `erroneous` step's call and `None` after it, so the
    /// supervisor can judge a crash inside it by the step's level (the worker sends it).
    pub erroneous: Option<&'a ErroneousHook<'a>>,
}

/// See `Ctx::erroneous`.
pub type ErroneousHook<'a> = dyn Fn(Option<&str>) + 'a;

/// A broken expectation.
#[derive(Debug, Clone)]
struct Finding {
    status: Status,
    message: String,
    reading: Option<String>,
}

/// At most this many calls are kept as evidence of one result (the first ones, where a
/// sequence's setup is, and the one that failed, which is always kept).
const EVIDENCE_CAP: usize = 64;

struct Exec<'a, 'c> {
    ctx: &'c Ctx<'a>,
    case: &'c Case,
    subject: Option<&'c Entry>,
    vars: BTreeMap<String, Val>,
    handles: BTreeMap<u64, HandleMeta>,
    evidence: Vec<Evidence>,
    findings: Vec<Finding>,
    unsupported: Option<String>,
    /// A step's `skip_unless` that the library's answer did not meet: why the case
    /// does not apply.
    skipped: Option<String>,
    depth: i64,
    buffer: Option<Size>,
    /// The catalog entry of the current `for_all` iteration.
    current: Option<&'c Entry>,
    /// The position of the current `for_all` iteration (a `same_as` naming a list
    /// compares with its element at this position).
    iteration: Option<usize>,
    log: &'c mut RcLog,
    /// The call in flight is an `erroneous` step's (its return code is logged apart).
    erroneous_now: bool,
    /// `moved_from` observations: whether any value moved, and what the first move was.
    moved: Option<(bool, String)>,
}

/// Runs `case` on `subject` (None for cases without `for_each`).
pub fn run(ctx: &Ctx, case: &Case, subject: Option<&Entry>, log: &mut RcLog) -> CaseResult {
    let start = Instant::now();
    let clause = case.clause_text();
    let mut r = CaseResult::new(
        case.meta(&clause),
        subject.map(Entry::subject).unwrap_or_default(),
        Status::Pass,
        String::new(),
    );
    if let Some(why) = skip_reason(ctx, case) {
        r.status = Status::Skip;
        r.message = why;
        return r;
    }
    // Handle values among a subject's variables (enum handles: addresses in Open MPI and
    // MPICH) are valid only in the process that read them: take this worker's own reading
    // of the same entry when it has one.
    let subject = subject.map(|s| local_entry(ctx.inv, s).unwrap_or(s));
    let sizes: Vec<Option<Size>> = match &case.buffers {
        Some(b) => b.sizes.iter().map(|s| Some(*s)).collect(),
        None => vec![None],
    };
    let mut x = Exec {
        ctx,
        case,
        subject,
        vars: BTreeMap::new(),
        handles: BTreeMap::new(),
        evidence: Vec::new(),
        findings: Vec::new(),
        unsupported: None,
        skipped: None,
        depth: 0,
        buffer: None,
        current: None,
        iteration: None,
        log,
        erroneous_now: false,
        moved: None,
    };
    for size in sizes {
        x.reset(size);
        let before = x.findings.len();
        x.sequence();
        if let Some(s) = size {
            for f in &mut x.findings[before..] {
                f.message = format!("buffer {}: {}", s.text(), f.message);
            }
        }
        if x.findings.iter().any(|f| f.status == Status::Fail)
            || x.unsupported.is_some()
            || x.skipped.is_some()
        {
            break;
        }
    }
    r.duration_ms = start.elapsed().as_secs_f64() * 1000.0;
    let worst = x
        .findings
        .iter()
        .max_by_key(|f| (f.status == Status::Fail, f.status == Status::Warn))
        .cloned();
    match (worst, x.unsupported) {
        (Some(f), _) => {
            r.status = f.status;
            r.message = f.message;
            r.reading = f.reading;
            r.evidence = x.evidence;
        }
        (None, Some(u)) => {
            r.status = Status::Unsupported;
            r.message = format!("{u} is not exported");
            r.evidence = x.evidence;
        }
        (None, None) if x.skipped.is_some() => {
            r.status = Status::Skip;
            r.message = format!("does not apply: {}", x.skipped.unwrap_or_default());
            r.evidence = x.evidence;
        }
        (None, None) => {
            r.message = format!("{} calls as expected", x.evidence.len());
        }
    }
    if let Some((moved, how)) = x.moved {
        r.exercised = Some(moved);
        if r.status == Status::Pass {
            r.message = if moved {
                format!("{}; the value moved ({how})", r.message)
            } else {
                format!(
                    "{}; the value did not move ({how}): the relations held vacuously",
                    r.message
                )
            };
        }
    }
    r
}

/// The entry of `inv` that is `s` (same kind, index and name; items also the same enum).
fn local_entry<'i>(inv: &'i Inventory, s: &Entry) -> Option<&'i Entry> {
    inv.at(s.kind, s.index)
        .find(|e| e.name == s.name && e.attrs.get("enum") == s.attrs.get("enum"))
}

fn skip_reason(ctx: &Ctx, case: &Case) -> Option<String> {
    let v = ctx.mpi_version;
    if let (Some(since), Some((a, b))) = (case.since, v) {
        if (a, b) < (since.0, since.1) {
            return Some(format!(
                "the library reports MPI {a}.{b}; the rule is from MPI {}.{}",
                since.0, since.1
            ));
        }
    }
    if let (Some(until), Some((a, b))) = (case.until, v) {
        if (a, b) > (until.0, until.1) {
            return Some(format!(
                "the library reports MPI {a}.{b}; the rule was dropped after MPI {}.{}",
                until.0, until.1
            ));
        }
    }
    if case.requires(Require::ReferenceHooks) && !ctx.t.lib.exports("MPIT_Reference_simulate") {
        return Some("needs the reference's test hooks".into());
    }
    None
}

impl<'a, 'c> Exec<'a, 'c> {
    fn reset(&mut self, size: Option<Size>) {
        self.vars.clear();
        for (k, v) in &self.ctx.inv.globals {
            self.vars.insert(k.clone(), Val::Int(*v as i128));
        }
        if let Some(s) = self.subject {
            for (k, v) in &s.vars {
                self.vars.insert(k.clone(), Val::Int(*v as i128));
            }
        }
        self.handles.clear();
        self.buffer = size;
        self.current = None;
        self.iteration = None;
    }

    fn level_status(&self, level: Level) -> Status {
        match (level, self.ctx.strict) {
            (Level::Must, _) | (_, true) => Status::Fail,
            _ => Status::Warn,
        }
    }

    /// One pass over the steps, bracketed by MPI_T init/finalize unless the case
    /// manages them; whatever the steps leave initialized is finalized afterwards.
    fn sequence(&mut self) {
        let auto = self.case.init == InitMode::Auto;
        if auto {
            let single = self.constant("MPI_THREAD_SINGLE").unwrap_or(0);
            let mut a = BTreeMap::new();
            a.insert("required", Arg::Int(single));
            match self.call(Func::InitThread, &a) {
                Some(ReturnCode::Success) => {}
                Some(code) => {
                    self.findings.push(Finding {
                        status: Status::Fail,
                        message: format!("MPI_T_init_thread returned {code} (R-INIT-1)"),
                        reading: None,
                    });
                    return;
                }
                None => return,
            }
        }
        let case = self.case;
        for step in &case.steps {
            if !self.step(step) {
                break;
            }
        }
        // Leave MPI_T finalized so the worker can be reused (checked by the runner).
        let mut guard = 0;
        while self.depth > 0 && guard < 10_000 {
            guard += 1;
            if self.call(Func::Finalize, &BTreeMap::new()) != Some(ReturnCode::Success) {
                break;
            }
        }
    }

    /// Runs a step; false stops the sequence (a failed MUST or an unsupported call).
    fn step(&mut self, step: &'c Step) -> bool {
        if let Some(b) = step.check {
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
            return true;
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
        // The iterations of `for_all`: catalog entries, or elements of a saved list.
        let items: Vec<(Option<&'c Entry>, Option<Val>)> = match &step.for_all {
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
                None => return self.error(format!("`${v}` is not set")),
            },
            Some(ForAll::Range(e)) => match self.int(e) {
                Ok(n) => (0..n.clamp(0, 1 << 20))
                    .map(|i| (None, Some(Val::Int(i as i128))))
                    .collect(),
                Err(e) => return self.error(e),
            },
            // Each OUT argument NULL on its own, then all of them (position = the
            // argument's place in `nullable_outs`; one past the end: all).
            Some(ForAll::NullOuts) => (0..=func.nullable_outs().len())
                .map(|i| (None, Some(Val::Int(i as i128))))
                .collect(),
        };
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
                crate::target::ffi::in_flight::set(Some(&text));
                self.erroneous_now = step.erroneous;
                let called = self.call_outs(func, &args);
                self.erroneous_now = false;
                crate::target::ffi::in_flight::set(None);
                if let Some(h) = hook {
                    h(None);
                }
                let Some((code, outs)) = called else {
                    return false;
                };
                if let Some(x) = &step.skip_unless {
                    if let Err(why) = self.check(x, func, &args, &code, &outs) {
                        self.skipped = Some(why);
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

    fn error(&mut self, message: String) -> bool {
        self.findings.push(Finding {
            status: Status::Error,
            message,
            reading: None,
        });
        false
    }

    /// The entry a string OUT value is judged against.
    fn entry(&self) -> Option<&'c Entry> {
        self.current.or(self.subject)
    }

    fn constant(&self, name: &str) -> Result<i64, String> {
        resolve_constant(self.ctx.t, name)
    }

    fn value(&self, e: &Expr) -> Result<Val, String> {
        match e {
            Expr::Sum(terms) if terms.len() == 1 && terms[0].0 == 1 => self.term(&terms[0].1),
            // Integers stay exact; a float term (a double pvar's value, an MPI_Wtime
            // time) makes the sum a float. A read of several elements makes it a list,
            // element by element (the other terms added to each); one element counts
            // as that element.
            Expr::Sum(terms) => {
                let vals: Vec<(i64, Val)> = terms
                    .iter()
                    .map(|(k, t)| self.term(t).map(|v| (*k, v)))
                    .collect::<Result<_, _>>()?;
                let width = vals
                    .iter()
                    .filter_map(|(_, v)| match v {
                        Val::List(l) if l.len() > 1 => Some(l.len()),
                        _ => None,
                    })
                    .max();
                match width {
                    None => sum(&vals, 0),
                    Some(n) => (0..n)
                        .map(|i| sum(&vals, i))
                        .collect::<Result<_, _>>()
                        .map(Val::List),
                }
            }
            Expr::Null => Ok(Val::Int(0)),
            Expr::Text(t) => Err(format!("`{t}` is not a value")),
            Expr::Shape(_) => Err("a buffer shape is not a value".into()),
        }
    }

    fn term(&self, t: &Term) -> Result<Val, String> {
        match t {
            Term::Int(i) => Ok(Val::Int(*i as i128)),
            Term::Var(v) => self
                .vars
                .get(v)
                .cloned()
                .ok_or_else(|| format!("`${v}` is not set")),
            Term::Const(c) => self.constant(c).map(|n| Val::Int(n as i128)),
        }
    }

    fn int(&self, e: &Expr) -> Result<i64, String> {
        let v = self.value(e)?;
        v.int()
            .map(|i| i as i64)
            .ok_or_else(|| format!("{v} is not an integer"))
    }

    /// The string a (buf, len) parameter is compared with, and its length + 1.
    fn string_for(&self, func: Func, param: &str) -> Option<Vec<u8>> {
        let e = self.entry()?;
        let matches = func.strings_of() == Some(e.kind);
        matches.then(|| e.bytes(if param == "desc" { "desc" } else { "name" }))
    }

    fn str_arg(&self, func: Func, param: &str, e: Option<&Expr>) -> Result<StrArg, String> {
        let want = self.string_for(func, param);
        let l = want.as_ref().map_or(4096, |s| s.len() as i64 + 1);
        let size = match e {
            None => Size::Full,
            Some(Expr::Shape(s)) => *s,
            Some(Expr::Sum(t)) if t.len() == 1 && t[0].1 == Term::Var("buffer".into()) => {
                let field = self.case.buffers.as_ref().map(|b| b.string);
                // The varied buffer applies to the string `buffers.string` names.
                if field
                    == Some(if param == "desc" {
                        StringField::Desc
                    } else {
                        StringField::Name
                    })
                {
                    self.buffer.unwrap_or(Size::Full)
                } else {
                    Size::Full
                }
            }
            Some(other) => Size::Fixed(self.int(other)?.clamp(0, 1 << 20) as u32),
        };
        Ok(match size {
            Size::Fixed(n) => StrArg::sized(n as usize),
            Size::Len(k) => StrArg::sized((l + k).max(0) as usize),
            Size::NullBuf => StrArg {
                cap: None,
                len: Some(l as i32),
            },
            Size::NullLen => StrArg {
                cap: Some(l as usize),
                len: None,
            },
            Size::Full => StrArg::sized((l + 64) as usize),
        })
    }

    /// Resolves every parameter: the step's argument, else a variable of the same name
    /// (subject or saved), else the parameter's neutral default.
    fn args(&self, func: Func, step: &Step) -> Result<BTreeMap<&'static str, Arg>, String> {
        let mut out = BTreeMap::new();
        let nulls = self.nulls(func, step);
        for (name, p) in func.params() {
            if *p == Param::Str && nulls.contains(name) {
                out.insert(*name, Arg::Str(StrArg::NULL));
                continue;
            }
            let given = step.args.get(*name);
            let from_var = || self.vars.get(*name).and_then(Val::int).map(|i| i as i64);
            let arg = match p {
                Param::Str => Arg::Str(self.str_arg(func, name, given)?),
                Param::Text => match given {
                    Some(Expr::Text(t)) => Arg::Text(t.clone()),
                    Some(Expr::Sum(t)) if t.len() == 1 && matches!(t[0].1, Term::Var(_)) => {
                        match &t[0].1 {
                            Term::Var(v) if v == "name" => {
                                Arg::Text(self.entry().map(|e| e.name.clone()).unwrap_or_default())
                            }
                            Term::Var(v) => match self.vars.get(v) {
                                Some(Val::Str(s)) => Arg::Text(s.text().unwrap_or_default()),
                                Some(other) => Arg::Text(other.to_string()),
                                None => return Err(format!("`${v}` is not set")),
                            },
                            _ => unreachable!("matched a variable above"),
                        }
                    }
                    Some(Expr::Sum(_)) | Some(Expr::Shape(_)) => {
                        return Err(format!("`{name}` takes text"))
                    }
                    Some(Expr::Null) => Arg::Text(String::new()),
                    None => Arg::Text(self.entry().map(|e| e.name.clone()).unwrap_or_default()),
                },
                Param::Obj => match given {
                    None | Some(Expr::Null) => Arg::Obj(None),
                    Some(e) => Arg::Obj(Some(self.int(e)? as u64)),
                },
                Param::Data => {
                    let h = step
                        .args
                        .get("handle")
                        .map(|e| self.int(e))
                        .transpose()?
                        .or_else(|| self.vars.get("handle").and_then(Val::int).map(|i| i as i64));
                    let meta = h.and_then(|h| self.handles.get(&(h as u64)).copied());
                    match given.map(|e| self.value(e)).transpose()? {
                        Some(Val::Bytes(b)) => Arg::Data(b.bytes),
                        Some(v) => {
                            let n = v.int().ok_or_else(|| format!("cannot write {v}"))? as i64;
                            Arg::Data(meta.map_or_else(
                                || n.to_ne_bytes().to_vec(),
                                |m| calls::encode(self.ctx.inv, &m, n),
                            ))
                        }
                        None => Arg::Data(Vec::new()),
                    }
                }
                Param::Flag => Arg::Flag(match given {
                    Some(e) => self.int(e)? != 0,
                    None => true,
                }),
                Param::Int | Param::Handle => Arg::Int(match given {
                    Some(e) => self.int(e)?,
                    None => match from_var() {
                        Some(v) => v,
                        None => self.default_int(name)?,
                    },
                }),
            };
            out.insert(*name, arg);
        }
        if !nulls.is_empty() {
            out.insert("null", Arg::Nulls(nulls));
        }
        Ok(out)
    }

    /// The OUT arguments this iteration of `for_all: null_outs` passes as NULL: the
    /// `$null`-th of the function's nullable OUTs, or all of them one past the last.
    fn nulls(&self, func: Func, step: &Step) -> Vec<&'static str> {
        if step.for_all != Some(ForAll::NullOuts) {
            return Vec::new();
        }
        let all = func.nullable_outs();
        let i = self.vars.get("null").and_then(Val::int).unwrap_or(0) as usize;
        match all.get(i) {
            Some(one) => vec![*one],
            None => all.to_vec(),
        }
    }

    fn default_int(&self, name: &str) -> Result<i64, String> {
        let c = |n: &str| self.constant(n);
        match name {
            "required" => c("MPI_THREAD_SINGLE"),
            "handle" => c("MPI_T_CVAR_HANDLE_NULL"),
            "session" => c("MPI_T_PVAR_SESSION_NULL"),
            "enumtype" => c("MPI_T_ENUM_NULL"),
            "info" => c("MPI_INFO_NULL"),
            "comm" => c("MPI_COMM_WORLD"),
            "cb_safety" => c("MPI_T_CB_REQUIRE_NONE"),
            "len" | "capacity" => Ok(64),
            "bytes" => Ok(64),
            _ => Ok(0),
        }
    }

    /// One call: evidence, return-code log, handle bookkeeping. `None` when the symbol
    /// is missing (recorded as unsupported).
    fn call_outs(
        &mut self,
        func: Func,
        args: &BTreeMap<&'static str, Arg>,
    ) -> Option<(ReturnCode, BTreeMap<String, Val>)> {
        let t = self.ctx.t;
        let Some((rc, outs)) = calls::invoke(t, self.ctx.inv, &self.handles, func, &Args(args))
        else {
            self.unsupported = Some(func.c_name().to_string());
            return None;
        };
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
        if self.evidence.len() < EVIDENCE_CAP {
            self.evidence.push(Evidence {
                call: func.c_name().to_string(),
                args: serde_json::Value::Object(
                    args.iter()
                        .map(|(k, v)| (k.to_string(), v.to_json()))
                        .collect(),
                )
                .into(),
                rc: Some(code.to_string()),
                out: serde_json::Value::Object(
                    outs.iter().map(|(k, v)| (k.clone(), v.to_json())).collect(),
                )
                .into(),
                expected: None,
            });
        }
        Some((code, outs))
    }

    fn call(&mut self, func: Func, args: &BTreeMap<&'static str, Arg>) -> Option<ReturnCode> {
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
        match func {
            Func::InitThread => self.depth += 1,
            Func::Finalize => self.depth -= 1,
            Func::CvarHandleAlloc | Func::PvarHandleAlloc => {
                let kind = if func == Func::CvarHandleAlloc {
                    Kind::Cvar
                } else {
                    Kind::Pvar
                };
                if let Some(h) = handle("handle") {
                    self.handles.insert(h, HandleMeta { kind, index, count });
                }
            }
            Func::EventHandleAlloc => {
                if let Some(h) = handle("registration") {
                    self.handles.insert(
                        h,
                        HandleMeta {
                            kind: Kind::Event,
                            index,
                            count: 0,
                        },
                    );
                }
            }
            _ => {}
        }
    }

    /// Judges one observation; false when a failure should stop the sequence.
    fn judge(
        &mut self,
        x: &crate::cases::Expect,
        func: Func,
        args: &BTreeMap<&'static str, Arg>,
        code: &ReturnCode,
        outs: &BTreeMap<String, Val>,
    ) -> bool {
        let level = x.level.unwrap_or(self.case.level);
        let Err(msg) = self.check(x, func, args, code, outs) else {
            return true;
        };
        let finding = match &x.or_reading {
            Some(r) if self.check(&r.expect, func, args, code, outs).is_ok() => Finding {
                status: if self.ctx.strict {
                    Status::Fail
                } else {
                    Status::Warn
                },
                message: format!(
                    "{msg} (the library follows another reading: {})",
                    crate::readings::cite(&r.reading)
                ),
                reading: Some(crate::readings::cite(&r.reading)),
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

    fn check(
        &self,
        x: &crate::cases::Expect,
        func: Func,
        args: &BTreeMap<&'static str, Arg>,
        code: &ReturnCode,
        outs: &BTreeMap<String, Val>,
    ) -> Result<(), String> {
        let call = func.c_name();
        if let Some(want) = &x.rc {
            if !judge::rc_matches(want, code) {
                return Err(format!(
                    "{call} returned {code}, want {}",
                    judge::rc_text(want)
                ));
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
            judge::string(check, arg, out, &want).map_err(|e| format!("{call} {field}: {e}"))?;
        }
        for (field, p) in &x.out {
            let Some(v) = outs.get(field) else {
                return Err(format!("{call} has no OUT value {field}"));
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
                    format!("{call}: {e} (R-CVAR-2: get_info answers never change)")
                })?,
                other => {
                    return Err(format!(
                        "same_as needs a value saved with `all`, not {other}"
                    ))
                }
            }
        }
        Ok(())
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

/// A constant of a case (`MPI_T_ERR_INVALID_INDEX`, `MPI_COMM_WORLD`) as this target
/// spells it.
/// One element of a sum: element `i` of each list term (a one-element list is that
/// element for every `i`), each times its coefficient.
fn sum(vals: &[(i64, Val)], i: usize) -> Result<Val, String> {
    let mut total: i128 = 0;
    let mut float: Option<f64> = None;
    for (k, v) in vals {
        let v = match v {
            Val::List(l) if l.len() == 1 => &l[0],
            Val::List(l) => l
                .get(i)
                .ok_or_else(|| format!("{v} has no element {i} to add"))?,
            v => v,
        };
        match (v, float.as_mut()) {
            (Val::Int(n), None) => total += *k as i128 * n,
            (Val::Int(_) | Val::Float(_), _) => {
                let x = v.num().unwrap_or_default();
                *float.get_or_insert(total as f64) += *k as f64 * x;
            }
            _ => return Err(format!("{v} is not a number")),
        }
    }
    Ok(float.map_or(Val::Int(total), Val::Float))
}

pub fn resolve_constant(t: &Target, name: &str) -> Result<i64, String> {
    let p = &t.profile;
    let missing = || format!("{name} is not defined by the {} ABI profile", p.family);
    match crate::cases::expr::constant_kind(name)
        .ok_or_else(|| format!("unknown constant {name}"))?
    {
        ConstKind::Success => Ok(p.success),
        ConstKind::LastCode => Ok(p.err_lastcode),
        ConstKind::TErr(e) => p.code(e).ok_or_else(missing),
        ConstKind::ThreadLevel(x) => p.thread_level.num(x).ok_or_else(missing),
        ConstKind::Verbosity(x) => p.verbosity.num(x).ok_or_else(missing),
        ConstKind::Bind(x) => p.bind.num(x).ok_or_else(missing),
        ConstKind::Scope(x) => p.scope.num(x).ok_or_else(missing),
        ConstKind::PvarClass(x) => p.pvar_class.num(x).ok_or_else(missing),
        ConstKind::CbSafety(x) => p.cb_safety.num(x).ok_or_else(missing),
        ConstKind::SourceOrder(x) => p.source_order.num(x).ok_or_else(missing),
        ConstKind::Datatype(d) => t.datatype_handle(d).map(|v| v as i64).ok_or_else(missing),
        ConstKind::Handle => {
            let v = t
                .handles
                .get(name)
                .map(|v| *v as i64)
                .or_else(|| p.handle_num(name))
                .ok_or_else(missing)?;
            // MPICH's MPI handles are ints: pass them as the int they are.
            Ok(match p.mpi_handle_width {
                HandleWidth::Int if name.starts_with("MPI_") && !name.starts_with("MPI_T_") => {
                    v & 0xffff_ffff
                }
                _ => v,
            })
        }
    }
}
