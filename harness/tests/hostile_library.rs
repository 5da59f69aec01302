//! A death is always blamed on the right call, whatever the library does to its process
//! (`mpit-conform faults --hostile`: its own fatal-signal handlers that exit or raise
//! again, blocked signals and no alternate stack, closed or replaced descriptors,
//! daemons in and out of the process group, a process that leaves its group, an exit
//! handler that hangs, the working directory, the umask, resource limits, a thread of the
//! library's at load or at init, which zygotes must not fork). For each:
//! the run ends with its reports, every crash and timeout names the call in flight and
//! what killed the worker, the rest of the suite runs where the library allows, and
//! nothing is left behind (`process_runs::suite` checks files, processes and the
//! supervisor's descriptors).

mod common;
#[path = "common/process_runs.rs"]
mod process_runs;

use common::*;
use process_runs::*;
use serde_json::Value;
use std::collections::BTreeSet;

/// Every crash and timeout of `r` names a call in flight: its evidence names a call,
/// and its message does not say that none was. Returns them.
fn deaths_name_their_call<'a>(name: &str, r: &'a Value) -> Vec<&'a Value> {
    let deaths: Vec<&Value> = results(r)
        .iter()
        .filter(|x| x["status"] == "crash" || x["status"] == "timeout")
        .collect();
    for d in &deaths {
        let call = d["evidence"][0]["call"].as_str().unwrap_or_default();
        assert!(
            !call.is_empty() && !call.starts_with("(no MPI_T call"),
            "{name}: a death without its call: {d}"
        );
        assert!(
            !text(d).contains("no MPI_T call was in flight"),
            "{name}: {d}"
        );
    }
    deaths
}

/// The call a death names (its evidence's).
fn call_of(d: &Value) -> &str {
    d["evidence"][0]["call"].as_str().unwrap_or_default()
}

/// The verdicts of the clean run, whatever the fault did to the process; the run, for
/// what else its test checks.
fn same_verdicts_as_clean(fault: &str, extra: &[&str]) -> Run {
    let r = faulty_run(fault, fault, extra);
    assert_eq!(
        r.out.status.code(),
        Some(0),
        "{fault}: {}",
        String::from_utf8_lossy(&r.out.stderr)
    );
    let clean = clean();
    let (got, want) = (verdicts(&r.report), verdicts(&clean.report));
    let moved: Vec<_> = got.symmetric_difference(&want).take(5).collect();
    assert!(moved.is_empty(), "{fault}: verdicts moved: {moved:?}");
    r
}

#[test]
fn a_library_handler_that_exits_does_not_take_the_call_away() {
    // The case: the library's SIGSEGV handler prints and calls _exit(14); the
    // crash is still MPI_T_cvar_get_info's, as for a plain SIGSEGV (SIGBUS and
    // SIGABRT alike, in MPI_T_pvar_session_free and MPI_T_cvar_handle_free).
    let r = faulty_run("handlers-exit", "handlers-exit", &[]);
    assert_eq!(r.out.status.code(), Some(1));
    let deaths = deaths_name_their_call("handlers-exit", &r.report);
    let function = |d: &Value| {
        call_of(d)
            .split(['(', ' '])
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let calls: BTreeSet<String> = deaths.iter().map(|d| function(d)).collect();
    let want = [
        "MPI_T_cvar_get_info",
        "MPI_T_cvar_handle_free",
        "MPI_T_pvar_session_free",
    ];
    assert_eq!(calls, want.map(String::from).into(), "the calls that died");
    for d in deaths {
        assert_eq!(d["status"], "crash", "{d}");
        // Where the library's handler ran (after its first MPI_T_init_thread), it is
        // the exit(14) of the call in flight.
        if text(d).contains("caught a fatal signal") {
            let words = format!("exit(14) inside the library in {}", function(d));
            assert!(text(d).contains(&words), "{d}");
        }
    }
    assert!(with(&r.report, "cvars.catalog.read", "crash")
        .iter()
        .any(|x| x["subject"] == "MPI_T_cvar_get_info(1)"));
    assert!(count(&r.report, "pass") > 500, "the rest of the suite ran");
}

#[test]
fn a_library_handler_that_raises_again_does_not_take_the_call_away() {
    let r = faulty_run("handlers-reraise", "handlers-reraise", &[]);
    assert_eq!(r.out.status.code(), Some(1));
    let deaths = deaths_name_their_call("handlers-reraise", &r.report);
    assert!(!deaths.is_empty());
    for (call, signal) in [
        ("MPI_T_cvar_get_info", "SIGSEGV"),
        ("MPI_T_pvar_session_free", "SIGBUS"),
        ("MPI_T_cvar_handle_free", "SIGABRT"),
    ] {
        let of: Vec<_> = deaths
            .iter()
            .filter(|d| call_of(d).starts_with(call))
            .collect();
        assert!(!of.is_empty(), "no crash in {call}");
        assert!(
            of.iter()
                .all(|d| text(d).contains(&format!("killed by {signal} in {call}"))),
            "{call}: {}",
            of[0]
        );
    }
    assert!(count(&r.report, "pass") > 500, "the rest of the suite ran");
}

#[test]
fn blocked_signals_and_no_alternate_stack_still_name_the_call() {
    let r = faulty_run("signals-blocked", "signals-blocked", &[]);
    assert_eq!(r.out.status.code(), Some(1));
    let deaths = deaths_name_their_call("signals-blocked", &r.report);
    let crash = deaths.iter().filter(|d| d["status"] == "crash");
    let timeout = deaths.iter().filter(|d| d["status"] == "timeout");
    assert!(crash.clone().count() > 0 && timeout.clone().count() > 0);
    for d in crash {
        assert!(
            text(d).contains("killed by SIGSEGV in MPI_T_cvar_get_info"),
            "{d}"
        );
    }
    for d in timeout {
        assert!(text(d).contains("timed out in MPI_T_cvar_get_info"), "{d}");
    }
    assert!(count(&r.report, "pass") > 500, "the rest of the suite ran");
}

#[test]
fn descriptors_closed_by_daemonizing_code_change_no_verdict() {
    // The case: closing 3..1023 in MPI_T_init_thread cost the whole suite.
    same_verdicts_as_clean("close-fds", &[]);
}

#[test]
fn a_channel_closed_or_replaced_is_re_established() {
    for fault in ["close-all-fds", "dup2-over-fds"] {
        same_verdicts_as_clean(fault, &[]);
    }
}

#[test]
fn a_channel_taken_for_good_is_told_as_what_it_is() {
    // The second case, where the worker cannot come back: no file can be opened
    // after the library closed everything. Not an exit of the library's, and the
    // skipped cases say why.
    let r = faulty_run("close-fds-for-good", "close-fds-for-good", &[]);
    assert_eq!(r.out.status.code(), Some(1));
    let deaths = deaths_name_their_call("close-fds-for-good", &r.report);
    let why = "the library closed the worker's descriptors in MPI_T_init_thread";
    assert_eq!(deaths.len(), 1, "{deaths:?}");
    assert!(text(deaths[0]).contains(why), "{}", deaths[0]);
    assert!(!text(deaths[0]).contains("exit("), "{}", deaths[0]);
    let skipped: Vec<_> = results(&r.report)
        .iter()
        .filter(|x| x["status"] == "skip")
        .collect();
    assert!(skipped.len() > 100);
    assert!(
        skipped.iter().all(|x| text(x).contains(why)),
        "{}",
        skipped[0]
    );
}

#[test]
fn daemons_in_or_out_of_the_process_group_are_not_left_behind() {
    for fault in ["fork-daemon", "setsid-daemon"] {
        same_verdicts_as_clean(fault, &[]);
    }
}

#[test]
fn a_worker_that_leaves_its_process_group_is_still_killed() {
    let r = faulty_run("leave-group", "leave-group", &[]);
    assert_eq!(r.out.status.code(), Some(1));
    let deaths = deaths_name_their_call("leave-group", &r.report);
    assert!(!deaths.is_empty());
    assert!(deaths
        .iter()
        .all(|d| d["status"] == "timeout" && text(d).contains("MPI_T_cvar_get_info")));
    assert!(count(&r.report, "pass") > 500, "the rest of the suite ran");
}

#[test]
fn an_exit_handler_that_hangs_is_a_timeout_of_the_workers_exit() {
    // Every worker hangs at its exit for --timeout: a few cases keep the run short.
    let r = faulty_run("hang-at-exit", "hang-at-exit", &["--area", "cvars"]);
    assert_eq!(r.out.status.code(), Some(1));
    let deaths = deaths_name_their_call("hang-at-exit", &r.report);
    assert!(!deaths.is_empty());
    assert!(deaths.iter().all(|d| d["status"] == "timeout"
        && d["subject"] == "(at the worker's exit)"
        && call_of(d).starts_with("exit")));
    assert!(count(&r.report, "pass") > 50, "the cases ran");
}

#[test]
fn working_directory_and_umask_change_no_verdict() {
    // A relative --specs must still be found by a worker whose library moved it.
    let specs = repo().join("specs/cases");
    let rel = pathdiff(&specs);
    for fault in ["chdir", "umask"] {
        same_verdicts_as_clean(fault, &["--specs", &rel]);
    }
}

/// `p` relative to the working directory (the test's: the harness crate).
fn pathdiff(p: &std::path::Path) -> String {
    let cwd = std::env::current_dir().expect("cwd");
    let p = p.canonicalize().expect("specs");
    let cwd = cwd.canonicalize().expect("cwd");
    let common = cwd
        .ancestors()
        .find(|a| p.starts_with(a))
        .expect("a common ancestor");
    let ups = cwd
        .strip_prefix(common)
        .expect("prefix")
        .components()
        .count();
    let mut rel = std::path::PathBuf::new();
    for _ in 0..ups {
        rel.push("..");
    }
    rel.push(p.strip_prefix(common).expect("prefix"));
    rel.display().to_string()
}

#[test]
fn lowered_limits_end_with_a_report_that_names_every_death() {
    let r = faulty_run("rlimits", "rlimits", &[]);
    assert!(
        matches!(r.out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&r.out.stderr)
    );
    deaths_name_their_call("rlimits", &r.report);
    assert!(count(&r.report, "pass") > 500, "the rest of the suite ran");
}

/// report.json's `workers_path` (how the pristine workers were made: forked by a zygote or exec'd).
fn workers_path(r: &Value) -> &str {
    r["workers_path"].as_str().unwrap_or_default()
}

#[test]
fn a_library_that_starts_a_thread_when_loaded_gets_exec_d_workers() {
    // A process with a second thread must not fork (MPI-4.1 §15.3 says nothing of it;
    // POSIX fork copies only the calling thread): both zygotes fall back, the verdicts
    // are the clean run's, and the report says which path was taken.
    let r = same_verdicts_as_clean("thread-at-load", &[]);
    let path = workers_path(&r.report);
    assert!(
        path.starts_with("fork+exec:")
            && path.contains("plain zygote off")
            && path.contains("initialized zygote off")
            && path.contains("2 threads"),
        "{path}"
    );
    assert_eq!(r.report["workers_forked"], 0, "no child was forked");
    assert_eq!(workers_path(&clean().report), "fork", "the clean run forks");
    assert!(clean().report["workers_forked"].as_u64().unwrap_or(0) > 50);
}

#[test]
fn a_library_that_starts_a_thread_at_init_keeps_only_the_plain_zygote() {
    let r = same_verdicts_as_clean("thread-at-init", &[]);
    let path = workers_path(&r.report);
    assert!(
        path.contains("initialized zygote off") && !path.contains("plain zygote off"),
        "{path}"
    );
    // The `init: manual` cases still run in children of the plain zygote.
    assert!(
        r.report["workers_forked"].as_u64().unwrap_or(0) > 50,
        "{path}"
    );
}

#[test]
fn a_library_that_refuses_mpi_init_after_a_fork_gets_exec_d_mpi_init_workers() {
    // The first MPI_Init job's child aborts in MPI_Init: MPI_Init children are switched
    // off for the run, that job and the later ones run on exec'd MPI_Init workers, the
    // other jobs still fork, and the verdicts are the clean run's.
    let r = same_verdicts_as_clean("forked-mpi-init", &[]);
    let path = workers_path(&r.report);
    assert!(
        path.starts_with("fork+exec: MPI_Init in forked children off")
            && !path.contains("zygote off"),
        "{path}"
    );
    let n = |r: &Value, k: &str| r[k].as_u64().unwrap_or(0);
    // At most one child per lane (2) called MPI_Init: the ones that died in it before
    // MPI_Init children were switched off.
    assert!(n(&r.report, "workers_forked_mpi_init") <= 2, "{path}");
    assert!(n(&r.report, "workers_started_mpi_init") > 5, "{path}");
    assert!(n(&r.report, "workers_forked") > 50, "{path}");
    // The clean run forks its MPI_Init workers: one exec'd, the inventory reader.
    assert!(n(&clean().report, "workers_forked_mpi_init") > 5);
    assert_eq!(n(&clean().report, "workers_started_mpi_init"), 1);
    // A manual case that calls MPI_Init in a step dies there in a plain zygote's
    // child: the case runs again exec'd, and passes as it does there.
    let only = ["--case", "lifecycle.mpi.*"];
    let r = faulty_run("forked-mpi-init-step", "forked-mpi-init", &only);
    let path = workers_path(&r.report);
    assert!(path.contains("a child died in MPI_Init"), "{path}");
    assert_eq!(count(&r.report, "crash"), 0, "{path}");
    assert!(count(&r.report, "pass") >= 4, "{path}");
}

#[test]
fn exec_d_workers_give_the_verdicts_of_forked_ones() {
    // `--no-zygote` keeps the exec'd path of before zygotes; the clean run forks.
    let r = faulty_run("no-zygote", "", &["--no-zygote"]);
    assert_eq!(r.out.status.code(), Some(0));
    assert_eq!(workers_path(&r.report), "exec");
    assert_eq!(r.report["workers_forked"], 0);
    assert_eq!(r.report["workers_forked_mpi_init"], 0);
    assert_eq!(verdicts(&r.report), verdicts(&clean().report));
}

/// Every hostile fault the reference has is one these tests run.
#[test]
fn every_hostile_fault_has_its_test() {
    let tested = [
        "handlers-exit",
        "handlers-reraise",
        "signals-blocked",
        "close-fds",
        "close-all-fds",
        "close-fds-for-good",
        "dup2-over-fds",
        "fork-daemon",
        "setsid-daemon",
        "leave-group",
        "hang-at-exit",
        "chdir",
        "umask",
        "rlimits",
        "thread-at-load",
        "thread-at-init",
        "forked-mpi-init",
    ];
    every_fault_is_tested("--hostile", &tested);
}
