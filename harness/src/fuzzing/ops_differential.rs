//! `ops_differential`: the bytes become an MPI_T call sequence (`differential::gen`),
//! run on the reference model and on the library `MPIT_FUZZ_LIB` names (default: the
//! reference cdylib) in this process; a MUST divergence panics, which is what libFuzzer
//! reports. A crash inside the library is a crash of the fuzzer: also a finding.
//! As with `fuzz-props`, `MPIT_FUZZ_KNOWN` (comma-separated `RULE[:FUNCTION]`) passes
//! over known deviations and `MPIT_FUZZ_AVOID` (comma-separated `KIND:GLOB`) allocates no
//! handle for entries whose call crashes, so a library is explored past them.

use crate::differential::compare::Known;
use crate::differential::props::{check_completed, completed_from};
use crate::differential::target::InProcess;
use crate::differential::{gen, Divergence, Gen, Mirror};
use mpit_reference::ENV_CATALOG;
use mpit_spec::verdict::Level;
use mpit_target::{catalog, AbiChoice, Target};
use mpit_vocab::catalog::Catalog;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::ThreadLevel;
use std::sync::{Arc, OnceLock};

/// The library and its mirror, opened once per process.
pub struct Setup {
    pub target: Target,
    pub mirror: Arc<Mirror>,
    /// `MPIT_FUZZ_KNOWN`, as given (a `Known` is made per input: it counts).
    pub known: Vec<String>,
}

/// A comma-separated list from the environment (none when unset or empty).
fn list_from_env(var: &str) -> Vec<String> {
    std::env::var(var)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Opens `lib` in this process, holds one MPI_T init (sequences nest inside it, as in
/// a worker) and mirrors its catalog. In one process every input runs after the
/// previous ones, so nothing that outlives a sequence is generated: no simulated
/// activity, and values are compared only where the calls determine them.
pub fn open(lib: &std::path::Path) -> Result<Setup, String> {
    let t = Target::open(lib, &AbiChoice::Auto, false).map_err(|e| e.to_string())?;
    let single = t.profile.thread_level.num(ThreadLevel::Single).unwrap_or(0) as i32;
    match t.lib.init_thread(single) {
        Some((rc, _)) if t.rc(rc) == ReturnCode::Success => {}
        other => {
            return Err(format!(
                "{}: MPI_T_init_thread failed: {other:?}",
                lib.display()
            ))
        }
    }
    let version = t
        .lib
        .get_library_version()
        .map(|(_, v)| v)
        .unwrap_or_default();
    let mut m = if version.starts_with("mpit-reference ") {
        let c = match std::env::var_os(ENV_CATALOG) {
            Some(f) => Catalog::load(std::path::Path::new(&f)).map_err(|e| e.to_string())?,
            None => Catalog::default_catalog(),
        };
        Mirror::of_catalog(c, "the reference's catalog".into())
    } else {
        Mirror::from_dump(catalog::read(&t, false))
    };
    m.exact_values = false;
    m.hooks = false;
    for spec in list_from_env("MPIT_FUZZ_AVOID") {
        m.avoid_handles(&spec)
            .map_err(|e| format!("MPIT_FUZZ_AVOID: {e}"))?;
    }
    let known = list_from_env("MPIT_FUZZ_KNOWN");
    Known::parse(&known).map_err(|e| format!("MPIT_FUZZ_KNOWN: {e}"))?;
    Ok(Setup {
        target: t,
        mirror: Arc::new(m),
        known,
    })
}

/// Runs one input; the divergence, if any.
pub fn run_with(s: &Setup, data: &[u8]) -> Option<Divergence> {
    let (mode, ops, end) = gen::decode(&s.mirror, data)?;
    let start = Gen::new(s.mirror.clone(), mode);
    // The closing calls from the state decoding left: no second replay, no copy.
    let all = completed_from(ops, &end);
    let mut e = InProcess {
        target: &s.target,
        mirror: &s.mirror,
    };
    let known = Known::parse(&s.known).unwrap_or_default();
    check_completed(&start, &all, &mut e, &known).ok().flatten()
}

static SETUP: OnceLock<Setup> = OnceLock::new();

/// The fuzz target's body.
pub fn run(data: &[u8]) {
    let s = SETUP.get_or_init(|| {
        let lib =
            super::library_from_env("MPIT_FUZZ_LIB").unwrap_or_else(|e| super::setup_failed(&e));
        open(&lib).unwrap_or_else(|e| {
            super::setup_failed(&super::FuzzSetupError::Init {
                path: lib.display().to_string(),
                what: e,
            })
        })
    });
    if let Some(d) = run_with(s, data) {
        if d.level == Level::Must {
            panic!(
                "{} ({}) at call {}: {}\n  expected (reference model): {}\n  actual (library): {}",
                d.function,
                d.rule,
                d.step + 1,
                d.what,
                d.expected,
                d.actual
            );
        }
    }
}
