//! The differential oracle end to end, through `mpit-conform fuzz-props` and `replay`:
//! the reference cdylib agrees with the model; every reference fault the op set can
//! reach is found and shrunk; the case written from a failure replays it; bad input
//! gets one line and exit 2.

mod common;

use common::{reference_lib, run, scratch, stdout};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Faults the differential does not find, and why (four outside what the ops can
/// reach, one not found within the budget). The suite's own cases
/// catch each of them (harness/tests/suite.rs, the mutation score).
const UNREACHABLE: &[(&str, &str)] = &[
    (
        "index-shift-after-growth",
        "needs MPI_Init inside a sequence; the ops have no MPI_Init",
    ),
    (
        "event-info-null",
        "needs the info OUT argument of event_get_info; the ops pass NULL",
    ),
    (
        "event-read-outside-callback",
        "needs event callbacks and raised events; the ops register none",
    ),
    (
        "dropped-after-event",
        "needs event callbacks and raised events; the ops register none",
    ),
    (
        "watermark-wrong-direction",
        "reachable (alloc a HIGHWATERMARK handle, start, simulate a falling level, read) \
         but not found within this test's 1024 + 128 + 512 sequences",
    ),
];

fn fuzz_props(lib: &str, fault: Option<&str>, extra: &[&str], out: &str) -> (i32, String) {
    let mut args = vec!["fuzz-props", "--lib", lib, "--timeout", "3", "--out", out];
    args.extend_from_slice(extra);
    let env: Vec<(&str, &str)> = fault
        .map(|f| vec![("MPIT_REFERENCE_FAULTS", f)])
        .unwrap_or_default();
    let o = run(&args, &env);
    (o.status.code().unwrap_or(-1), stdout(&o))
}

/// Sequences run before the failure was found and shrunk (from the mode lines).
fn sequences(out: &str) -> u64 {
    out.lines()
        .filter_map(|l| l.split_once(" sequences,"))
        .filter_map(|(head, _)| head.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[test]
fn reference_agrees_with_the_model() {
    let lib = reference_lib();
    let dir = scratch("diff-clean");
    let (code, out) = fuzz_props(
        lib.to_str().unwrap(),
        None,
        &["--cases", "256", "--robustness", "--strict"],
        dir.to_str().unwrap(),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 failing mode(s), 0 warning(s)"), "{out}");
    // The sequences really ran: 256 valid, 32 lifecycle, 128 robustness.
    assert_eq!(sequences(&out), 256 + 32 + 128, "{out}");
}

#[test]
fn every_reachable_reference_fault_is_found() {
    let lib = reference_lib();
    let o = run(&["faults"], &[]);
    let faults: Vec<String> = stdout(&o)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(faults.len() >= 40, "{faults:?}");
    for (f, _) in UNREACHABLE {
        assert!(faults.iter().any(|x| x == f), "{f} is no fault any more");
    }
    let todo: Vec<String> = faults
        .into_iter()
        .filter(|f| !UNREACHABLE.iter().any(|(u, _)| u == f))
        .collect();
    let results = Arc::new(Mutex::new(BTreeMap::new()));
    let queue = Arc::new(Mutex::new(todo.clone()));
    let dir = scratch("diff-faults");
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (q, r, lib, dir) = (queue.clone(), results.clone(), lib.clone(), dir.clone());
            std::thread::spawn(move || loop {
                let Some(f) = q.lock().unwrap().pop() else {
                    break;
                };
                let (code, out) = fuzz_props(
                    lib.to_str().unwrap(),
                    Some(&f),
                    &["--cases", "1024", "--robustness", "--strict"],
                    dir.join(&f).to_str().unwrap(),
                );
                r.lock().unwrap().insert(f, (code, out));
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let results = results.lock().unwrap();
    let mut missed = Vec::new();
    let mut table = String::new();
    for f in &todo {
        let (code, out) = &results[f];
        let found = *code == 1 && out.contains("DIVERGENCE");
        let line = out
            .lines()
            .find(|l| l.contains("DIVERGENCE"))
            .unwrap_or("")
            .trim();
        table.push_str(&format!(
            "{f:<40} {:>5} sequences  {line}\n",
            sequences(out)
        ));
        if !found {
            missed.push(format!("{f} (exit {code}):\n{out}"));
        }
    }
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("differential-faults.txt");
    let _ = std::fs::write(&tmp, &table);
    assert!(
        missed.is_empty(),
        "faults not found:\n{}",
        missed.join("\n")
    );
}

#[test]
fn the_case_written_for_a_failure_replays_it() {
    let lib = reference_lib();
    let libs = lib.to_str().unwrap();
    let dir = scratch("diff-emit");
    let fault = "trunc-len-off-by-one";
    let (code, out) = fuzz_props(libs, Some(fault), &["--cases", "64"], dir.to_str().unwrap());
    assert_eq!(code, 1, "{out}");
    let case = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("case written: "))
        .expect("a case path")
        .to_string();
    let text = std::fs::read_to_string(&case).unwrap();
    assert!(
        text.contains("area: differential") && text.contains("R-STR-2"),
        "{text}"
    );
    let rep = dir.join("replay");
    let with = run(
        &[
            "run",
            "--case-file",
            &case,
            "--lib",
            libs,
            "--out",
            rep.to_str().unwrap(),
            "-q",
        ],
        &[("MPIT_REFERENCE_FAULTS", fault)],
    );
    assert_eq!(with.status.code(), Some(1), "{}", stdout(&with));
    let without = run(
        &[
            "run",
            "--case-file",
            &case,
            "--lib",
            libs,
            "--out",
            rep.to_str().unwrap(),
            "-q",
        ],
        &[],
    );
    assert_eq!(without.status.code(), Some(0), "{}", stdout(&without));
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    let lib = reference_lib();
    let dir = scratch("diff-bad");
    let check = |args: &[&str], needle: &str| {
        let o = run(args, &[]);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    check(
        &["fuzz-props", "--lib", "/nonexistent/libmpi.so"],
        "no such file",
    );
    let d = dir.to_str().unwrap();
    check(&["replay", d, "--lib", lib.to_str().unwrap()], "not a file");
    let empty = dir.join("empty");
    std::fs::write(&empty, b"").unwrap();
    check(
        &[
            "replay",
            empty.to_str().unwrap(),
            "--lib",
            lib.to_str().unwrap(),
        ],
        "not an ops_differential artifact",
    );
    check(
        &[
            "run",
            "--case-file",
            "/nonexistent.yaml",
            "--lib",
            lib.to_str().unwrap(),
        ],
        "no such file",
    );
}
