//! Running a case: steps become calls on the target, each observation is handed to
//! `judge`, and the findings become one `CaseResult` per (case, subject).
//!
//! This module holds the case loop: the `Exec` state of one (case, subject), the pass
//! over the steps once per buffer size, and the result made of the findings. The steps
//! themselves are `step`'s; `args` resolves a step's arguments, `values` its
//! expressions, `constants` the MPI constants they name; `record` makes one call and
//! keeps its evidence, return code and handles; `expect` judges its observation
//! (through `judge`); `calls` is the call on the target itself.

mod args;
pub mod calls;
mod constants;
mod expect;
mod record;
mod step;
mod values;

pub use constants::resolve_constant;

use crate::judge::inventory::{Entry, Inventory};
use crate::judge::return_codes::RcLog;
use crate::judge::value::Val;
use calls::{Arg, HandleMeta};
use mpit_spec::cases::expr::Size;
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::{Case, InitMode, Require};
use mpit_spec::verdict::{CaseResult, Evidence, Level, Status, VERSION_GATE};
use mpit_target::Target;
use mpit_vocab::profile::ReturnCode;
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

/// One (case, subject) under way: its variables, the handles the library handed out,
/// the evidence and findings so far.
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
    /// A `for_all` that had nothing to go over (a kind with no entry, `range` of 0, an
    /// empty `list`): its check held vacuously, so the result does not count as judging
    /// the case's rules (`coverage`).
    empty_loop: Option<&'static str>,
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
        empty_loop: None,
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
    if let (Some(kind), Status::Pass) = (x.empty_loop, r.status) {
        r.exercised = Some(false);
        r.message = format!(
            "{}; a `for_all` step ({kind}) had nothing to go over: its check held vacuously",
            r.message
        );
        return r;
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
                "{VERSION_GATE}{a}.{b}; the rule is from MPI {}.{}",
                since.0, since.1
            ));
        }
    }
    if let (Some(until), Some((a, b))) = (case.until, v) {
        if (a, b) > (until.0, until.1) {
            return Some(format!(
                "{VERSION_GATE}{a}.{b}; the rule was dropped after MPI {}.{}",
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
}
