//! Property tests: proptest-state-machine drives [`Gen`] as the reference state machine
//! (its state is the shape of the model's: live objects, init depth), every generated
//! sequence runs on the model and on the target, and the comparator judges them. A
//! failing sequence is shrunk by proptest (fewer calls, simpler arguments; a crash or
//! hang is a failure too, the next run gets a fresh worker) to the minimal one.

use super::compare::{compare_known, Divergence, Known};
use super::engine::{trace, EngineError, Runner};
use super::gen::{Gen, Pick};
use super::model::ModelEngine;
use super::obs::Trace;
use super::op::{Call, Mode};
use super::Mirror;
use mpit_spec::verdict::Level;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use proptest_state_machine::ReferenceStateMachine;
use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

thread_local! {
    /// The mirror and mode the state machine generates for: proptest-state-machine's
    /// `init_state` takes no arguments, so the run sets them here first.
    static SETUP: RefCell<Option<(Arc<Mirror>, Mode)>> = const { RefCell::new(None) };
}

/// The reference state machine of proptest-state-machine.
pub struct Machine;

impl ReferenceStateMachine for Machine {
    type State = Gen;
    type Transition = Call;

    fn init_state() -> BoxedStrategy<Gen> {
        let (m, mode) = SETUP
            .with(|s| s.borrow().clone())
            .expect("differential::props: SETUP is set before generating");
        Just(Gen::new(m, mode)).boxed()
    }

    fn transitions(state: &Gen) -> BoxedStrategy<Call> {
        let g = state.clone();
        (any::<u16>(), any::<u16>(), any::<u16>(), any::<u8>())
            .prop_map(move |(what, a, b, c)| g.pick(Pick { what, a, b, c }))
            .boxed()
    }

    fn apply(mut state: Gen, op: &Call) -> Gen {
        state.apply(op);
        state
    }

    fn preconditions(state: &Gen, op: &Call) -> bool {
        state.valid(op)
    }
}

/// The sequence with the calls that undo it appended (handles freed, inits
/// finalized), so the next sequence starts where this one did.
pub fn completed(start: &Gen, ops: &[Call]) -> Vec<Call> {
    completed_owned(start, ops.to_vec())
}

/// [`completed`] of a sequence the caller gives up (the search's own copy: not
/// copied again).
fn completed_owned(start: &Gen, ops: Vec<Call>) -> Vec<Call> {
    let mut end = start.clone();
    for op in &ops {
        end.apply(op);
    }
    completed_from(ops, &end)
}

/// [`completed`] from the generator's state after `ops` (the bytes decoder's): the
/// same sequence, without replaying or copying it.
pub fn completed_from(mut ops: Vec<Call>, end: &Gen) -> Vec<Call> {
    if !end.mode.lifecycle {
        ops.extend(end.cleanup());
    }
    ops
}

/// The model's trace of `ops`.
pub fn run_model(start: &Gen, ops: &[Call]) -> Trace {
    trace(
        &mut ModelEngine::new(start.mirror(), !start.mode.lifecycle),
        ops,
    )
}

/// Runs one sequence (completed) on both engines and compares.
pub fn check(
    start: &Gen,
    ops: &[Call],
    engine: &mut dyn Runner,
    known: &Known,
) -> Result<Option<Divergence>, EngineError> {
    check_completed(start, &completed(start, ops), engine, known)
}

/// [`check`] of a sequence already [`completed`].
pub fn check_completed(
    start: &Gen,
    all: &[Call],
    engine: &mut dyn Runner,
    known: &Known,
) -> Result<Option<Divergence>, EngineError> {
    let model = run_model(start, all);
    let target = engine.run(all, start.mode.lifecycle)?;
    let d = compare_known(start, all, &model, &target, known);
    if d.is_some()
        || target.died.is_some()
        || all
            .iter()
            .any(|op| op.leaves_traces(start.mirror().exact_values))
    {
        engine.discard();
    }
    Ok(d)
}

/// A property-test run's budget.
#[derive(Debug, Clone)]
pub struct Search {
    pub cases: u32,
    pub seed: u64,
    pub max_len: usize,
    pub mode: Mode,
    /// SHOULD and robustness divergences fail too (`--strict`).
    pub strict: bool,
    /// Divergences passed over (`--known`).
    pub known: Known,
    /// Stop generating new cases after this long (shrinking still finishes).
    pub time_limit: Option<Duration>,
}

/// A failure, shrunk.
#[derive(Debug, Clone)]
pub struct Found {
    /// The minimal sequence as generated, and as run (with the closing calls).
    pub ops: Vec<Call>,
    pub run: Vec<Call>,
    pub divergence: Divergence,
    pub mode: Mode,
}

/// What a run saw.
#[derive(Debug, Clone, Default)]
pub struct Findings {
    /// Sequences run on the target (generated and shrinking ones).
    pub sequences: u64,
    /// Calls generated (the sequences' own, closing calls not counted).
    pub ops: u64,
    /// Calls made on the target.
    pub calls: u64,
    pub elapsed: Duration,
    /// Divergences below the failing level (SHOULD, robustness): reported, not shrunk.
    pub warnings: Vec<Divergence>,
    pub failure: Option<Found>,
}

impl Findings {
    /// Keeps a divergence below the failing level: one per (rule, function), at most
    /// 100 (a library that breaks one rule everywhere would otherwise fill the report).
    pub fn warn(&mut self, d: Divergence) {
        let seen = self
            .warnings
            .iter()
            .any(|w| w.rule == d.rule && w.function == d.function);
        if self.warnings.len() < 100 && !seen {
            self.warnings.push(d);
        }
    }
}

/// Whether a divergence fails the run (else it warns).
pub fn fails(d: &Divergence, strict: bool) -> bool {
    strict || d.level == Level::Must
}

/// Generates, runs and shrinks sequences on `engine` against the model of `mirror`.
pub fn search(
    mirror: Arc<Mirror>,
    cfg: &Search,
    engine: &mut dyn Runner,
) -> Result<Findings, EngineError> {
    SETUP.with(|s| *s.borrow_mut() = Some((mirror.clone(), cfg.mode)));
    let mut seed = [0u8; 32];
    for (i, b) in seed.iter_mut().enumerate() {
        *b = (cfg.seed >> (8 * (i % 8))) as u8 ^ (i as u8);
    }
    let config = Config {
        cases: cfg.cases,
        failure_persistence: None,
        max_shrink_iters: 2048,
        max_global_rejects: 100_000,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let strategy = Machine::sequential_strategy(1..=cfg.max_len.max(1));
    let engine = RefCell::new(engine);
    let findings = RefCell::new(Findings::default());
    let fatal: RefCell<Option<EngineError>> = RefCell::new(None);
    let began = Instant::now();
    let shrinking = std::cell::Cell::new(false);
    let last_fail: RefCell<Option<(Gen, Vec<Call>)>> = RefCell::new(None);
    let result = runner.run(&strategy, |(start, ops, seen)| {
        // proptest-state-machine shrinks only the transitions the test says it applied.
        let applied = |n: usize| {
            if let Some(c) = &seen {
                c.store(n, std::sync::atomic::Ordering::SeqCst);
            }
        };
        applied(ops.len());
        if fatal.borrow().is_some() {
            return Ok(());
        }
        if cfg.time_limit.is_some_and(|l| began.elapsed() > l) {
            return Ok(());
        }
        let mut e = engine.borrow_mut();
        // Once a failure is found, every run starts in a fresh process: the minimal
        // sequence must fail on its own, as the case written from it will run.
        if shrinking.get() {
            e.discard();
        }
        let generated = ops.len();
        let all = completed_owned(&start, ops);
        let ops = &all[..generated];
        let d = match check_completed(&start, &all, &mut **e, &cfg.known) {
            Ok(d) => d,
            Err(err) => {
                *fatal.borrow_mut() = Some(err);
                return Ok(());
            }
        };
        let mut f = findings.borrow_mut();
        f.sequences += 1;
        f.ops += ops.len() as u64;
        f.calls += all.len() as u64;
        match d {
            Some(d) if fails(&d, cfg.strict) => {
                shrinking.set(true);
                // The last failing run is the smallest (proptest only moves on from a
                // failure to a simpler candidate). Kept here rather than taken from the
                // TestError: a candidate whose transition shrank into another call was
                // seen reported there after it had passed.
                *last_fail.borrow_mut() = Some((start.clone(), ops.to_vec()));
                applied((d.step + 1).min(ops.len()));
                Err(TestCaseError::fail(d.what.clone()))
            }
            Some(d) => {
                f.warn(d);
                Ok(())
            }
            None => Ok(()),
        }
    });
    if let Some(e) = fatal.into_inner() {
        return Err(e);
    }
    let mut f = findings.into_inner();
    f.elapsed = began.elapsed();
    if let Err(TestError::Abort(why)) = &result {
        return Err(EngineError::Protocol(format!("proptest gave up: {why}")));
    }
    if let (Err(TestError::Fail(..)), Some((start, ops))) = (result, last_fail.into_inner()) {
        // The minimal sequence, run once more for its divergence (deterministic on the
        // model; a library that flips is reported as it behaved this time).
        let e = engine.into_inner();
        e.discard();
        if let Some(d) = check(&start, &ops, &mut *e, &cfg.known)? {
            f.failure = Some(Found {
                run: completed(&start, &ops),
                ops,
                divergence: d,
                mode: cfg.mode,
            });
        }
    }
    Ok(f)
}
