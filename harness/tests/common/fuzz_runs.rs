#![allow(dead_code)] // each test binary that includes this file uses part of it
//! The differential oracle's commands on the reference, for harness/tests/differential.rs:
//! `fuzz-props` and the `run --case-file` that replays a written case, with a reference
//! fault or none; how many sequences a search ran; how many a fault may take to be found
//! (`budget`), and the faults outside the generator's vocabulary.

use crate::common::{run, stdout};

/// `mpit-conform fuzz-props` on `lib` with `fault` or none: its exit code and output.
/// One search (`-j 1`) unless `extra` gives `-j`: the seeds and budgets of these tests
/// are a single search's, and the fault sweep runs two at once itself.
pub fn fuzz_props(lib: &str, fault: Option<&str>, extra: &[&str], out: &str) -> (i32, String) {
    let mut args = vec!["fuzz-props", "--lib", lib, "--timeout", "3", "--out", out];
    if !extra.contains(&"-j") {
        args.extend(["-j", "1"]);
    }
    args.extend_from_slice(extra);
    let env: Vec<(&str, &str)> = fault
        .map(|f| vec![("MPIT_REFERENCE_FAULTS", f)])
        .unwrap_or_default();
    let o = run(&args, &env);
    (o.status.code().unwrap_or(-1), stdout(&o))
}

/// Sequences run before the failure was found and shrunk (from the mode lines).
pub fn sequences(out: &str) -> u64 {
    out.lines()
        .filter_map(|l| l.split_once(" sequences,"))
        .filter_map(|(head, _)| head.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// `mpit-conform run --strict --case-file CASE` on the reference, with `fault` or
/// none: its exit code and output.
pub fn replay(lib: &str, case: &str, fault: Option<&str>, out: &std::path::Path) -> (i32, String) {
    let env: Vec<(&str, &str)> = fault
        .map(|f| vec![("MPIT_REFERENCE_FAULTS", f)])
        .unwrap_or_default();
    let o = run(
        &[
            "run",
            "--strict",
            "--timeout",
            "3",
            "--case-file",
            case,
            "--lib",
            lib,
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
        &env,
    );
    (o.status.code().unwrap_or(-1), stdout(&o))
}

/// Sequences a fault may take to be found: 1024, except the faults named here with
/// what they measured, so that no other fault's search may quietly grow.
pub fn budget(fault: &str) -> u32 {
    match fault {
        // Its sequence needs the one MPI_DOUBLE TIMER among 17 pvars: found after 2,361.
        "timer-not-in-seconds" => 4096,
        // Its sequence needs two pvar handles, activity while one counts, a reset of the
        // other and a read of the first: found after 2,371 (seeds 2 and 3: 1,541 and
        // 1,818; the generator before specs/generator.yaml found it after 295 on seed 1
        // and not within 4,096 on seeds 2 and 3).
        "reset-leaks-across-sessions" => 4096,
        _ => 1024,
    }
}

/// Faults outside the generator's vocabulary, with why: fuzz-props generates MPI_T call
/// sequences on one thread (with MPI_Init and the reference's simulated MPI work), and
/// these faults live in MPI calls it does not make or in runs longer than a sequence.
/// The YAML suite catches each of them (suite.rs, mutation score).
pub const OUTSIDE_THE_GENERATOR: &[(&str, &str)] = &[
    (
        "query-thread-follows-mpi-t",
        "needs MPI_Init_thread and MPI_Query_thread",
    ),
    (
        "session-finalize-ends-mpi-t",
        "needs MPI_Session_init and MPI_Session_finalize",
    ),
    (
        "init-fails-after-1000-cycles",
        "needs 1000 full init/finalize cycles in one process",
    ),
    (
        "init-uncounted-off-first-thread",
        "needs MPI_T calls from a second thread",
    ),
    ("dup-comm-binding-refused", "needs MPI_Comm_dup"),
];
