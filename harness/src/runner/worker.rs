//! The suite worker: the same binary re-executed (`mpit-conform __suite-worker`), the
//! only process that loads the vendor library. It answers jobs with results on its
//! private channel (`target::ffi::stdio`, set up before the library is loaded) until
//! told to quit; a crash or hang is the supervisor's to observe. Whatever the library
//! prints goes to stderr, which the supervisor keeps the tail of.

use super::capability_probe;
use super::protocol::{FromWorker, Hello, MpiInitChild, TargetFacts, ToWorker};
use super::zygote;
use crate::differential::engine::Engine;
use crate::differential::target::TargetEngine;
use crate::differential::Mirror;
use crate::exec::{self, Ctx};
use crate::judge::inventory::{self, Inventory};
use crate::judge::return_codes::{RcLog, Table};
use mpit_process::{exit_child, usage_self};
use mpit_report::exit_code;
use mpit_spec::cases::expr::constant_kind;
use mpit_spec::cases::Suite;
use mpit_spec::readings;
use mpit_target::ffi::{in_flight, log, page, stdio};
use mpit_target::reading::Guard;
use mpit_target::{catalog, AbiChoice, Target};
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::ThreadLevel;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};

/// What the worker is in once its last job is done: the call its page names if the
/// library kills it in its exit handlers or destructors.
pub const AT_EXIT: &str = "exit (the library's exit handlers and destructors)";

fn send(m: &FromWorker) {
    let mut line = m.line();
    line.push('\n');
    // A channel that cannot be written (nor re-established) means the supervisor is
    // gone, or the library took it for good: nothing to do but stop, saying so.
    if stdio::send(line.as_bytes()).is_err() {
        orphaned();
    }
}

/// Where a sequence's observations go: the worker's log while it has room (a line per
/// call on the channel woke two threads of the supervisor's per call), then the channel.
/// The supervisor reads the log at `OpsDone` or after the worker's death, and puts its
/// lines before the channel's.
struct Observed {
    in_log: bool,
}

impl Observed {
    fn new() -> Observed {
        log::clear();
        Observed {
            in_log: log::attached(),
        }
    }

    fn tell(&mut self, m: &FromWorker) {
        let mut line = m.line();
        line.push('\n');
        self.in_log = self.in_log && log::append(line.as_bytes());
        if !self.in_log && stdio::send(line.as_bytes()).is_err() {
            orphaned();
        }
    }
}

/// Exits because the channel to the supervisor is gone; the page says it was the
/// worker's own exit, not the library's.
fn orphaned() -> ! {
    page::exiting(exit_code::WORKER_ORPHANED);
    std::process::exit(exit_code::WORKER_ORPHANED)
}

/// Announces a call of the start or of a catalog read (`FromWorker::Calling`) and leaves
/// it as the call in flight.
fn calling(call: &str) {
    send(&FromWorker::Calling(call.to_string()));
    in_flight::set(Some(call));
}

/// Serves until `Quit` or end of input; returns the exit code.
pub fn serve(hello: &Hello) -> i32 {
    let (t, own) = match start(hello) {
        Ok(started) => started,
        Err(code) => return code,
    };
    if hello.zygote {
        warm_up();
    }
    // A zygote's child forked for an MPI_Init job becomes an MPI_Init worker.
    let mut hello = hello.clone();
    if let Err(code) = serve_messages(&mut hello, &t, own) {
        return code;
    }
    // Leave MPI as a program should (R-FIN-4 is about MPI_T; MPI wants its finalize),
    // unless a case already finalized it.
    if hello.mpi_init && matches!(t.lib.finalized(), Some((_, false))) {
        in_flight::set(Some("MPI_Finalize (the worker's own, after its last job)"));
        t.lib.mpi_finalize();
    }
    // Left set: what runs from here on is the library's exit.
    in_flight::set(Some(AT_EXIT));
    0
}

/// The worker's start: its page and channel, the library loaded, MPI_Init and the base
/// init when asked, then `Ready`; with the inventory a zygote's children inherit
/// ([`zygote_inventory`]). `Err`: the exit code (the supervisor was told why).
fn start(hello: &Hello) -> Result<(Target, Option<Inventory>), i32> {
    // The call in flight goes to the supervisor's page, mapped before the library can
    // touch the descriptor that brought it.
    if let Some(fd) = hello.page {
        if let Err(e) = page::attach(fd) {
            eprintln!("mpit-conform worker: cannot map its page: {e}");
            return Err(2);
        }
    }
    // A fuzz-props worker's log of observations, mapped as its page is (without one,
    // its observations go on the channel).
    if let Some(fd) = hello.log {
        if let Err(e) = log::attach(fd) {
            eprintln!("mpit-conform worker: cannot map its log of observations: {e}");
        }
    }
    // The protocol leaves fds 0 and 1 before the library can touch them.
    if let Err(e) = stdio::take_protocol(hello.rendezvous.as_deref()) {
        eprintln!("mpit-conform worker: cannot set up its channel: {e}");
        return Err(2);
    }
    // A crash or abort inside a vendor call names the call (ffi::in_flight).
    in_flight::install();
    let cannot = |why: String| {
        send(&FromWorker::CannotRun(why));
        2
    };
    let abi: AbiChoice = hello.abi.parse().map_err(cannot)?;
    calling("dlopen (loading the library and detecting its ABI)");
    let t = Target::open(&hello.lib, &abi, hello.force).map_err(|e| cannot(e.to_string()))?;
    inits(&t, hello, &calling).map_err(cannot)?;
    let mut held = 0;
    if hello.zygote && !hello.base_init && !hello.mpi_init {
        calling("MPI_T_init_thread in a child of the zygote (what it loads, held for the others)");
        held = zygote::hold_what_init_loads(&|| {
            let _ = base_init(&t);
        });
    }
    let own = zygote_inventory(&t, hello);
    let facts = TargetFacts {
        held_objects: held as u64,
        ..facts(&t)
    };
    in_flight::set(None);
    send(&FromWorker::Ready(Box::new(facts)));
    Ok((t, own))
}

/// A suite's zygote held initialized reads the inventory its children would each read
/// first (`job_run`, under the same base init and `skip`): they inherit it, as an
/// exec'd worker's later jobs reuse its own. Not a fuzz-props zygote: its sequences
/// start from the base init alone. A death here is the zygote's start failing, and
/// the run goes on with exec'd workers.
fn zygote_inventory(t: &Target, hello: &Hello) -> Option<Inventory> {
    let suite_held = hello.zygote && hello.base_init && !hello.mpi_init && !hello.sequences;
    if !suite_held {
        return None;
    }
    calling("reading the inventory in the zygote (for its children)");
    Some(own_inventory(t, hello))
}

/// The worker's own inventory, under its base init, passing over the catalog entries
/// the supervisor lost in its readers (reading them again would only die the same
/// way). Not announced per entry: a crash names the spot through the in-flight marker.
fn own_inventory(t: &Target, hello: &Hello) -> Inventory {
    inventory::read_guarded(t, &mut Guard::new(&hello.skip, &|_| {}))
}

/// MPI_Init when `hello.mpi_init`, then the base init when `hello.base_init` (see
/// `Hello::base_init`: cases nest inside it), each marked as the call in flight first;
/// `Err`: why one did not succeed.
fn inits(t: &Target, hello: &Hello, mark: &dyn Fn(&str)) -> Result<(), String> {
    if hello.mpi_init {
        mark("MPI_Init");
        mpi_init(t)?;
    }
    if hello.base_init {
        mark("MPI_T_init_thread(MPI_THREAD_SINGLE)");
        base_init(t)?;
    }
    Ok(())
}

/// The base init; `Err`: why it did not succeed.
fn base_init(t: &Target) -> Result<(), String> {
    let single = t.profile.thread_level.num(ThreadLevel::Single).unwrap_or(0) as i32;
    match t.lib.init_thread(single) {
        Some((rc, _)) if t.rc(rc) == ReturnCode::Success => Ok(()),
        Some((rc, _)) => Err(format!("MPI_T_init_thread returned {}", t.rc(rc))),
        None => Err("MPI_T_init_thread is not exported".into()),
    }
}

/// MPI_Init (singleton); `Err`: why it did not succeed.
fn mpi_init(t: &Target) -> Result<(), String> {
    match t.lib.mpi_init() {
        Some((rc, ())) if t.rc(rc) == ReturnCode::Success => Ok(()),
        Some((rc, ())) => Err(format!("MPI_Init returned {}", t.rc(rc))),
        None => Err("MPI_Init is not exported".into()),
    }
}

/// A zygote's child forked for an MPI_Init job: MPI_Init and the base init as an
/// exec'd MPI_Init worker's start makes them, then `MpiInitialized`. Not announced
/// with `Calling` (the zygote's `Forked` is on the same channel, in no set order): the
/// page names the call if the library dies in it, and the supervisor runs such a job
/// on an exec'd worker.
fn child_mpi_init(t: &Target, hello: &mut Hello, c: MpiInitChild) -> Result<(), i32> {
    (hello.skip, hello.mpi_init, hello.base_init) = (c.skip, true, c.base_init);
    if let Err(why) = inits(t, hello, &|call| in_flight::set(Some(call))) {
        send(&FromWorker::CannotRun(why));
        return Err(2);
    }
    in_flight::set(None);
    send(&FromWorker::MpiInitialized);
    Ok(())
}

/// Parses in a zygote what each of its children would otherwise parse again: the
/// tables the cases and the judges read once per process (the standard ABI's handle
/// names, the return-code table, the readings), from YAML compiled into the binary.
fn warm_up() {
    let _ = constant_kind("MPI_COMM_WORLD");
    let _ = Table::shared();
    let _ = readings::all();
}

/// What a worker keeps between messages.
struct State {
    /// The cases of each area, loaded when a job of that area first comes.
    areas: BTreeMap<String, Suite>,
    own: Option<Inventory>,
    /// A zygote's: the supervisor's inventory, kept for its children (`Job::kept`).
    kept: Option<Inventory>,
    mirror: Option<Mirror>,
    /// A zygote's child serves as a fresh worker would, one job or until `Quit`.
    single_job: bool,
    /// A zygote's child.
    child: bool,
}

/// The messages, until `Quit` or end of input; `Err`: the exit code.
fn serve_messages(hello: &mut Hello, t: &Target, own: Option<Inventory>) -> Result<(), i32> {
    let mut st = State {
        areas: BTreeMap::new(),
        own,
        kept: None,
        mirror: None,
        single_job: hello.single_job,
        child: false,
    };
    let r = serve_loop(hello, t, &mut st);
    // A zygote's child frees none of its state as it ends: most of it was inherited,
    // and each free writes a chunk header into a page shared with the zygote, which the
    // kernel then copies (most of a forked worker's page faults were these copies, for
    // memory about to vanish).
    if st.child {
        std::mem::forget(st);
    }
    r
}

fn serve_loop(hello: &mut Hello, t: &Target, st: &mut State) -> Result<(), i32> {
    // A child forked with its first message (`Fork::then`) serves it, then reads on.
    let mut then: Option<ToWorker> = None;
    let mut lines = BufReader::new(stdio::Input).lines();
    loop {
        let msg: ToWorker = match then.take() {
            Some(m) => m,
            None => match lines.next() {
                None => return Ok(()),
                Some(Err(_)) => orphaned(),
                Some(Ok(line)) => match serde_json::from_str(&line) {
                    Ok(m) => m,
                    Err(_) => continue,
                },
            },
        };
        match msg {
            ToWorker::Quit => return Ok(()),
            ToWorker::Fork {
                single_job: one,
                area,
                then: first,
                mpi_init,
                keep,
            } => {
                if !hello.zygote {
                    send(&FromWorker::CannotRun(
                        "Fork to a worker that is no zygote".into(),
                    ));
                    return Err(2);
                }
                if let Some(k) = keep {
                    st.kept = Some(*k);
                }
                // The cases are parsed once, in the zygote, for every child.
                if let Some(area) = area.filter(|a| !st.areas.contains_key(a)) {
                    if let Ok(s) = Suite::load_area(&hello.specs, &area) {
                        st.areas.insert(area, s);
                    }
                }
                if zygote::fork(&send, first.is_none()) {
                    st.single_job = one;
                    st.child = true;
                    then = first.map(|m| *m);
                    if let Some(c) = mpi_init {
                        // The catalog may grow at MPI_Init: the child reads its own
                        // after it (and frees nothing it inherited).
                        std::mem::forget(st.own.take());
                        child_mpi_init(t, hello, c)?;
                    }
                }
            }
            ToWorker::Mirror(m) => st.mirror = Some(*m),
            ToWorker::Ops { seq, ops } => {
                let Some(m) = &st.mirror else {
                    send(&FromWorker::CannotRun("Ops before Mirror".into()));
                    return Err(2);
                };
                let mut e = TargetEngine::new(t, m);
                let mut observed = Observed::new();
                for (n, op) in ops.iter().enumerate() {
                    let obs = Box::new(e.call(op));
                    observed.tell(&FromWorker::Observed { seq, n, obs });
                }
                send(&FromWorker::OpsDone { seq });
                // A sequence's child ends at once: nobody judges its exit (the
                // supervisor has the whole trace), and the library's exit handlers and
                // unloading were most of its end.
                if st.child && st.single_job {
                    exit_child(0);
                }
            }
            ToWorker::Capabilities => {
                let step = |s| send(&FromWorker::Probe(Box::new(s)));
                capability_probe::run(t, &step, &calling);
                in_flight::set(None);
                send(&FromWorker::ProbeDone);
            }
            ToWorker::Catalog { skip } => {
                let g = Guard::new(&skip, &calling);
                let d = catalog::read_guarded(t, hello.mpi_init, g);
                send(&FromWorker::Catalog(Box::new(d)));
            }
            ToWorker::Inventory { skip } => {
                let i = inventory::read_guarded(t, &mut Guard::new(&skip, &calling));
                send(&FromWorker::Inventory(Box::new(i)));
            }
            ToWorker::Job {
                job,
                case,
                subjects,
                inventory: given,
                kept,
            } => {
                let given = match given {
                    Some(i) => Given::Sent(i),
                    None if kept => Given::Kept,
                    None => Given::None,
                };
                job_run(hello, t, st, job, &case, &subjects, given)?;
                if st.single_job {
                    return Ok(());
                }
            }
        }
    }
}

/// The inventory a job comes with.
enum Given {
    /// In the job (`Job::inventory`).
    Sent(Box<Inventory>),
    /// The one the zygote kept (`Job::kept`).
    Kept,
    /// None: the worker's own, read under its base init.
    None,
}

/// One `Job`: its subjects in order, a `Result` each, then `Done`; `Err`: the exit code.
fn job_run(
    hello: &Hello,
    t: &Target,
    st: &mut State,
    job: u64,
    case: &str,
    subjects: &[Option<inventory::Entry>],
    given: Given,
) -> Result<(), i32> {
    // Borrowed, not cloned per job: a large catalog made the copy O(catalog)
    // for each of O(catalog) jobs.
    let given_inv;
    let inv: &Inventory = match (given, &st.kept) {
        (Given::Sent(i), _) => {
            given_inv = *i;
            &given_inv
        }
        (Given::Kept, Some(k)) => k,
        (Given::Kept, None) => {
            send(&FromWorker::CannotRun(
                "a job for a kept inventory, and none kept".into(),
            ));
            return Err(2);
        }
        // Under the base init, reading is a query like any other.
        (Given::None, _) => st.own.get_or_insert_with(|| own_inventory(t, hello)),
    };
    let mut log = RcLog::default();
    let current = std::cell::Cell::new(0usize);
    let erroneous = |call: Option<&str>| {
        send(&FromWorker::Erroneous {
            job,
            n: current.get(),
            call: call.map(str::to_string),
        })
    };
    let ctx = Ctx {
        t,
        inv,
        strict: hello.strict,
        mpi_version: t.lib.get_version().map(|(_, v)| v),
        erroneous: Some(&erroneous),
    };
    let area = case.split('.').next().unwrap_or_default().to_string();
    if !st.areas.contains_key(&area) {
        match Suite::load_area(&hello.specs, &area) {
            Ok(s) => {
                st.areas.insert(area.clone(), s);
            }
            Err(e) => {
                send(&FromWorker::CannotRun(e.to_string()));
                return Err(2);
            }
        }
    }
    let Some(c) = st.areas.get(&area).and_then(|s| s.get(case)) else {
        send(&FromWorker::CannotRun(format!("unknown case {case}")));
        return Err(2);
    };
    for (n, s) in subjects.iter().enumerate() {
        current.set(n);
        send(&FromWorker::Started { job, n });
        let result = exec::run(&ctx, c, s.as_ref(), &mut log);
        send(&FromWorker::Result {
            job,
            n,
            result: Box::new(result),
        });
    }
    // Reusable when the base init is intact: MPI_T still answers a query.
    let clean = !st.single_job
        && hello.base_init
        && matches!(t.lib.cvar_get_num(), Some((rc, _)) if t.rc(rc) == ReturnCode::Success);
    send(&FromWorker::Done { job, log, clean });
    Ok(())
}

fn facts(t: &Target) -> TargetFacts {
    // The main thread's time on a core and waiting for one (Linux: "cpu_ns
    // run_delay_ns slices"); without schedstat, getrusage's CPU and no wait.
    let (cpu_us, run_delay_us) = std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| {
            let mut f = s.split_whitespace().map(|x| x.parse::<u64>().ok());
            Some((f.next()?? / 1000, f.next()?? / 1000))
        })
        .unwrap_or_else(|| {
            let cpu = usage_self().cpu();
            (cpu.as_micros() as u64, 0)
        });
    TargetFacts {
        library_version: t
            .lib
            .get_library_version()
            .map(|(_, s)| s)
            .unwrap_or_default(),
        mpi_version: t.lib.get_version().map(|(_, v)| v),
        family: t.profile.family.to_string(),
        profile: t.profile_origin.clone(),
        detection: t
            .detection
            .as_ref()
            .map(|d| format!("{} family: {}", d.family, d.evidence)),
        unsupported: t.unsupported(),
        unresolved: t.unresolved.clone(),
        start_cpu_us: cpu_us,
        start_run_delay_us: run_delay_us,
        start_wall_us: 0,
        held_objects: 0,
    }
}
