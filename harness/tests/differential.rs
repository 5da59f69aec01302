//! The differential oracle end to end, through `mpit-conform fuzz-props` and `replay`:
//! the reference cdylib agrees with the model; every reference fault is found and
//! shrunk, and the case written for it fails with the fault and passes without; bad
//! input gets one line and exit 2.
//!
//! Beside it in common/: `fuzz_runs.rs` (fuzz-props and replay runs, each fault's budget).

mod common;
#[path = "common/fuzz_runs.rs"]
mod fuzz_runs;

use common::{reference_lib, run, scratch, stdout};
use fuzz_runs::{budget, fuzz_props, replay, sequences, OUTSIDE_THE_GENERATOR};
use mpit_conform::differential::compare::{compare, Divergence};
use mpit_conform::differential::emit::case_yaml;
use mpit_conform::differential::engine::trace;
use mpit_conform::differential::gen::{self, Sampler};
use mpit_conform::differential::op::{Call, Kind, Mode, Ref, A};
use mpit_conform::differential::props::{completed, run_model, Found};
use mpit_conform::differential::target::TargetEngine;
use mpit_conform::differential::{HandleKind, Mirror, Slots};
use mpit_spec::cases::funcs::Func;
use mpit_spec::verdict::Level;
use mpit_target::{AbiChoice, Target};
use mpit_vocab::catalog::Catalog;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::ThreadLevel;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

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
    // The sequences really ran: 256 valid, 64 lifecycle (a quarter), 128 robustness.
    assert_eq!(sequences(&out), 256 + 64 + 128, "{out}");
}

/// Divergences whose first written form did not fail on replay (seeds found by the
/// sweep of every fault): each case fuzz-props keeps must fail on replay with the
/// fault, and pass without it.
/// - duplicate-name: the second cvar reports the first one's name, and a short buffer
///   shows the same bytes with another length (R-STR-2 or R-STR-6). The case naming
///   its subject by the declared name would skip (the library has no entry of that
///   name), so the other form is written.
/// - pvar-get-index-ignores-class: a category lists pvar 6 twice, [6, 6, 8] for
///   [6, 7, 8]; the list's form alone passes, so each declared member is looked up by
///   name and class and must be found at its index.
#[test]
fn each_case_written_reproduces_its_divergence_on_replay() {
    let lib = reference_lib();
    let libs = lib.to_str().unwrap();
    for (fault, seed, seen) in [
        // Seeds 3 and 4 since the generator makes MPI_Finalize and MPI_Session_init (2 and 8 before: the valid mode
        // draws differently now).
        ("duplicate-name", "3", "*len = 19, want strlen+1 = 14"),
        (
            "pvar-get-index-ignores-class",
            "4",
            "indices [6, 6, 8] where [6, 7, 8]",
        ),
    ] {
        let dir = scratch(&format!("diff-replayed-{fault}"));
        let (code, out) = fuzz_props(
            libs,
            Some(fault),
            &["--seed", seed, "--cases", "200", "--robustness", "--strict"],
            dir.to_str().unwrap(),
        );
        assert_eq!(code, 1, "{fault}: {out}");
        assert!(out.contains(seen), "{fault}: {out}");
        let written = out.matches("case written: ").count();
        assert!(written >= 1, "{fault}: {out}");
        assert!(
            out.contains(&format!(
                "{written} case(s) written, {written} reproducing the divergence on replay"
            )),
            "{fault}: {out}"
        );
        for case in out
            .lines()
            .filter_map(|l| l.trim().strip_prefix("case written: "))
        {
            let (code, text) = replay(libs, case, Some(fault), &dir.join("with"));
            assert_eq!(code, 1, "{fault}: {case} on replay:\n{text}");
            let (code, text) = replay(libs, case, None, &dir.join("without"));
            assert_eq!(code, 0, "{fault}: {case} without the fault:\n{text}");
        }
    }
}

/// `mpit-conform replay ARTIFACT --emit-case` writes the case of the divergence the
/// artifact shows and replays it. Two cases whose first written form passed on replay:
/// - an event's name with a missing NUL, in a call whose other OUT arguments are NULL
///   (`for_all: null_outs`), where the case asked only the return code;
/// - an enum item's name length for a NULL buffer (R-STR-3): the case had no subject
///   to judge the string against; the item is its subject now (`for_each: item`).
#[test]
fn replay_writes_a_case_that_reproduces_the_artifacts_divergence() {
    let lib = reference_lib();
    let libs = lib.to_str().unwrap();
    for (seed, fault, function) in [
        ("seed-00-valid", "missing-nul", "MPI_T_event_get_info"),
        (
            "seed-07-robust",
            "null-buf-len-no-plus-one",
            "MPI_T_enum_get_item",
        ),
    ] {
        let artifact = common::repo()
            .join("fuzz/corpus/ops_differential")
            .join(seed);
        let dir = scratch(&format!("diff-replay-emit-{fault}"));
        let o = run(
            &[
                "replay",
                artifact.to_str().unwrap(),
                "--lib",
                libs,
                "--emit-case",
                "--out",
                dir.to_str().unwrap(),
            ],
            &[("MPIT_REFERENCE_FAULTS", fault)],
        );
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{fault}: {out}");
        assert!(out.contains("replayed: fail"), "{fault}: {out}");
        assert!(out.contains(function), "{fault}: {out}");
        let case = out
            .lines()
            .find_map(|l| l.trim().strip_prefix("case written: "))
            .expect("a case written");
        let (code, text) = replay(libs, case, Some(fault), &dir.join("with"));
        assert_eq!(code, 1, "{fault}: {text}");
        let (code, text) = replay(libs, case, None, &dir.join("without"));
        assert_eq!(code, 0, "{fault}: {text}");
    }
}

#[test]
fn every_reference_fault_is_found_and_its_case_replays_it() {
    let lib = reference_lib();
    let o = run(&["faults"], &[]);
    let listed: Vec<String> = stdout(&o)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(listed.len() >= 40, "{listed:?}");
    for (f, why) in OUTSIDE_THE_GENERATOR {
        assert!(
            listed.iter().any(|l| l == f),
            "{f} ({why}) is not a fault any more"
        );
    }
    let faults: Vec<String> = listed
        .into_iter()
        .filter(|f| !OUTSIDE_THE_GENERATOR.iter().any(|(o, _)| o == f))
        .collect();
    let results = Arc::new(Mutex::new(BTreeMap::new()));
    let queue = Arc::new(Mutex::new(faults.clone()));
    let dir = scratch("diff-faults");
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (q, r, lib, dir) = (queue.clone(), results.clone(), lib.clone(), dir.clone());
            std::thread::spawn(move || loop {
                let Some(f) = q.lock().unwrap().pop() else {
                    break;
                };
                let libs = lib.to_str().unwrap();
                let out = dir.join(&f);
                let cases = budget(&f).to_string();
                let (code, text) = fuzz_props(
                    libs,
                    Some(&f),
                    &["--cases", &cases, "--robustness", "--strict", "--fail-fast"],
                    out.to_str().unwrap(),
                );
                // The case written for the first failing mode: it must fail with the
                // fault and pass without it (the replay is deterministic).
                let case = text
                    .lines()
                    .find_map(|l| l.trim().strip_prefix("case written: "))
                    .map(str::to_string);
                let replays = case.map(|c| {
                    let with = replay(libs, &c, Some(&f), &out.join("with"));
                    let without = replay(libs, &c, None, &out.join("without"));
                    (c, with, without)
                });
                r.lock().unwrap().insert(f, (code, text, replays));
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let results = results.lock().unwrap();
    let mut missed = Vec::new();
    let mut table = String::new();
    for f in &faults {
        let (code, out, replays) = &results[f];
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
            missed.push(format!("{f} not found (exit {code}):\n{out}"));
            continue;
        }
        // fuzz-props replayed each case it wrote itself and says whether it reproduces.
        if out.contains("does NOT reproduce") || !out.contains("replayed: ") {
            missed.push(format!(
                "{f}: fuzz-props wrote a case its replay does not fail:\n{out}"
            ));
        }
        match replays {
            None => missed.push(format!("{f}: no case written:\n{out}")),
            Some((case, (w, wo), (n, no))) if *w != 1 || *n != 0 => missed.push(format!(
                "{f}: {case} exits {w} with the fault (want 1) and {n} without (want 0):\n{wo}\n{no}"
            )),
            Some(_) => {}
        }
    }
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("differential-faults.txt");
    let _ = std::fs::write(&tmp, &table);
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// A divergence at the last op of `ops`, written as a case by `case_yaml`.
fn written(m: &Arc<Mirror>, mode: Mode, ops: Vec<Call>, level: Level) -> String {
    let op = ops.last().expect("an op").clone();
    let found = Found {
        divergence: Divergence {
            step: ops.len() - 1,
            call: op.to_string(),
            function: op.function().to_string(),
            rule: "R-RC-1".into(),
            level,
            what: "a divergence made up for the test".into(),
            expected: "the model's answer".into(),
            actual: "another".into(),
            other_entry: false,
            two_readings: false,
            convention: false,
            passed_over: Vec::new(),
            relation: None,
            reading: None,
        },
        run: ops.clone(),
        ops,
        mode,
    };
    case_yaml(&found, m, "libmpit_reference.so", 1)
}

/// Cases the writer once could not write so that they load (specs/README.md,
/// "Values"): a robustness call through a handle no step saved (R-GEN-3) passes the
/// value fuzz-props' target engine passed, and a value past `i64` is asked exactly. Each
/// loads and replays: the reference passes it, and the handle case fails under a fault
/// that changes the code that call returns.
#[test]
fn cases_with_unsaved_handles_and_values_past_i64_load_and_replay() {
    let lib = reference_lib();
    let libs = lib.to_str().unwrap();
    let dir = scratch("diff-unsaved");
    let m = Arc::new(Mirror::of_catalog(
        Catalog::default_catalog(),
        "the default catalog".into(),
    ));
    // A pvar handle where a cvar handle goes, of a sequence that made none.
    let foreign = Ref::Foreign(0);
    let robust = Mode {
        robustness: true,
        lifecycle: false,
    };
    let text = written(
        &m,
        robust,
        vec![gen::call(
            Func::CvarRead,
            [("handle", A::Handle(HandleKind::Cvar, foreign))],
        )],
        Level::Robustness,
    );
    let value = Slots::default().resolve(HandleKind::Cvar, foreign, 0, 0);
    assert!(text.contains(&format!("{value:#x}")), "{text}");
    let handle = dir.join("handle.yaml");
    std::fs::write(&handle, &text).unwrap();
    let (code, out) = replay(libs, handle.to_str().unwrap(), None, &dir.join("h"));
    assert_eq!(code, 0, "{out}\n{text}");
    let fault = Some("error-code-out-of-range");
    let (code, out) = replay(libs, handle.to_str().unwrap(), fault, &dir.join("f"));
    assert_eq!(code, 1, "{out}\n{text}");
    // The evidence of the failed call (a pass keeps none): the same handle value.
    let report = std::fs::read_to_string(dir.join("f/report.json")).unwrap();
    assert!(report.contains(&format!("\"handle\": {value}")), "{report}");
    // ref_cvar_uint64 reads 18000000000000000000.
    let index = m
        .catalog
        .cvars
        .iter()
        .position(|c| c.name == "ref_cvar_uint64");
    let ops = vec![
        gen::call(
            Func::CvarHandleAlloc,
            [(
                "index",
                A::Index(Kind::Cvar, index.expect("ref_cvar_uint64") as i32),
            )],
        ),
        gen::call(
            Func::CvarRead,
            [("handle", A::Handle(HandleKind::Cvar, Ref::Made(0)))],
        ),
    ];
    let valid = Mode {
        robustness: false,
        lifecycle: false,
    };
    let text = written(&m, valid, ops, Level::Must);
    assert!(text.contains("value: 2*9000000000000000000"), "{text}");
    let uint = dir.join("uint.yaml");
    std::fs::write(&uint, &text).unwrap();
    let (code, out) = replay(libs, uint.to_str().unwrap(), None, &dir.join("u"));
    assert_eq!(code, 0, "{out}\n{text}");
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
    let l = lib.to_str().unwrap();
    check(
        &["fuzz-props", "--lib", l, "--avoid", "pvar:no_such_pvar_*"],
        "no pvar of the mirror matches",
    );
    check(
        &["fuzz-props", "--lib", l, "--known", "not-a-rule"],
        "expected a rule id",
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

/// The cases fuzz-props wrote for real libraries (specs/cases/differential.yaml) ask only
/// what the standard fixes: the reference, serving the catalog each real library
/// serves, passes every one that applies to it, and every case applies to at least
/// one of those catalogs (or the reference's own), so none goes unchecked.
#[test]
fn written_cases_pass_on_the_reference_serving_each_real_catalog() {
    let Some(targets) = common::real_targets() else {
        return;
    };
    let lib = reference_lib();
    let dir = scratch("diff-catalogs");
    let cases = common::repo().join("specs/cases/differential.yaml");
    let text = std::fs::read_to_string(&cases).unwrap();
    let ids: std::collections::BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- id: ").map(str::to_string))
        .collect();
    assert!(ids.len() >= 10, "{ids:?}");
    let mut passed = std::collections::BTreeSet::new();
    let mut runs: Vec<(String, Option<std::path::PathBuf>)> = vec![("reference".into(), None)];
    for (name, path, _) in &targets {
        let o = run(&["catalog", "--lib", path, "--format", "yaml"], &[]);
        assert_eq!(o.status.code(), Some(0), "{name}: catalog");
        let f = dir.join(format!("{name}.yaml"));
        std::fs::write(&f, &o.stdout).unwrap();
        runs.push((name.clone(), Some(f)));
    }
    for (name, catalog) in &runs {
        let out = dir.join(name);
        let env: Vec<(&str, &str)> = catalog
            .iter()
            .map(|c| ("MPIT_REFERENCE_CATALOG", c.to_str().unwrap()))
            .collect();
        let o = run(
            &[
                "run",
                "--strict",
                "--quiet",
                "--case-file",
                cases.to_str().unwrap(),
                "--lib",
                lib.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            &env,
        );
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        for r in report["results"].as_array().unwrap() {
            let (case, status) = (r["case"].as_str().unwrap(), r["status"].as_str().unwrap());
            if !ids.contains(case) {
                continue;
            }
            assert!(
                ["pass", "skip"].contains(&status),
                "the reference with {name}'s catalog: {case} {status}: {}",
                r["message"]
            );
            if status == "pass" {
                passed.insert(case.to_string());
            }
        }
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stdout(&o));
    }
    let unchecked: Vec<_> = ids.difference(&passed).collect();
    assert!(
        unchecked.is_empty(),
        "never run on a conformant library: {unchecked:?}"
    );
}

/// Functions the generator makes no call of which succeeds in both engines, with why:
/// their OUT names are never compared (they record none either way).
const NEVER_BOTH_SUCCEED: &[(&str, &str)] = &[
    (
        "event_read",
        "reads an event instance after its callback returned: erroneous (R-EVT-INST), \
         generated in robustness mode to see the library refuse it, never to succeed",
    ),
    (
        "mpi_finalize",
        "follows MPI_Init in its sequence, and this test runs every sequence in one \
         process: MPI_Init succeeds in the library only once (its first sequence), \
         MPI_Finalize only there if that sequence makes it",
    ),
];

/// Brings the library in this process to where a sequence of `lifecycle` mode starts:
/// MPI_T finalized completely, then (not lifecycle) initialized once, as a worker's
/// base init (`runner::remote`).
fn base(t: &Target, lifecycle: bool) {
    for _ in 0..64 {
        match t.lib.finalize() {
            Some((rc, _)) if t.rc(rc) == ReturnCode::Success => {}
            _ => break,
        }
    }
    if !lifecycle {
        let single = t.profile.thread_level.num(ThreadLevel::Single).unwrap_or(0) as i32;
        let rc = t.lib.init_thread(single).map(|(rc, _)| t.rc(rc));
        assert_eq!(rc, Some(ReturnCode::Success), "the base MPI_T_init_thread");
    }
}

/// One vocabulary of OUT names per op: generated sequences run on the model and on the
/// reference cdylib in this process (the `InProcess` engine's `TargetEngine`); for
/// every call both answered with MPI_SUCCESS (up to the comparator's first divergence,
/// after which the two states no longer agree), both observations name the same OUT
/// arguments. The comparator would otherwise pass over an OUT one engine names
/// differently; here it must not exist. Every function the generator makes
/// (specs/generator.yaml, `gen::listed`) is seen succeeding in both, or listed in [`NEVER_BOTH_SUCCEED`].
#[test]
fn both_engines_name_the_same_outs() {
    let lib = reference_lib();
    let t = Target::open(&lib, &AbiChoice::Auto, false).expect("open the reference cdylib");
    let mut m = Mirror::of_catalog(Catalog::default_catalog(), "the default catalog".into());
    // One process runs every sequence: counters, cvars and events outlive each one, so
    // only the values the calls determine are compared (as `fuzzing::ops_differential`).
    m.exact_values = false;
    let m = Arc::new(m);
    let mut sampler = Sampler::new(0);
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    // Each disagreement once (function and the two sets), with its first call.
    let mut disagreements: BTreeMap<String, String> = BTreeMap::new();
    let (mut sequences, mut calls) = (0u64, 0u64);
    for (robustness, lifecycle, n) in [
        (false, false, 400),
        (true, false, 300),
        (false, true, 200),
        (true, true, 150),
    ] {
        let mode = Mode {
            robustness,
            lifecycle,
        };
        for _ in 0..n {
            let (start, ops) = sampler.sequence(&m, mode, 48);
            let all = completed(&start, &ops);
            base(&t, lifecycle);
            let model = run_model(&start, &all);
            let target = trace(&mut TargetEngine::new(&t, &m), &all);
            let upto = compare(&start, &all, &model, &target).map_or(all.len(), |d| d.step + 1);
            sequences += 1;
            for (i, op) in all.iter().enumerate().take(upto) {
                let (mo, to) = (&model.obs[i], &target.obs[i]);
                if !(mo.ok() && to.ok()) {
                    continue;
                }
                calls += 1;
                *seen.entry(op.func.yaml()).or_default() += 1;
                let names = |o: &mpit_conform::differential::Obs| -> BTreeSet<String> {
                    o.outs.iter().map(|(n, _)| n.to_string()).collect()
                };
                let (mn, tn) = (names(mo), names(to));
                if mn != tn {
                    disagreements
                        .entry(format!(
                            "{}: the model names {mn:?}, the target engine {tn:?}",
                            op.function()
                        ))
                        .or_insert_with(|| format!("{op:?}"));
                }
            }
        }
    }
    base(&t, true);
    assert!(
        disagreements.is_empty(),
        "the engines disagree on OUT names:\n{}",
        disagreements
            .iter()
            .map(|(what, first)| format!("{what} (first: {first})"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let made: BTreeSet<&str> = gen::listed().map(Func::yaml).collect();
    let unseen: Vec<&str> = made
        .into_iter()
        .filter(|v| !seen.contains_key(v))
        .filter(|v| !NEVER_BOTH_SUCCEED.iter().any(|(n, _)| n == v))
        .collect();
    assert!(
        unseen.is_empty(),
        "never seen succeeding in both engines: {unseen:?} ({sequences} sequences, \
         {calls} calls compared; seen: {seen:?})"
    );
    for (v, why) in NEVER_BOTH_SUCCEED {
        assert!(
            !seen.contains_key(v),
            "{v} succeeded in both: take it off NEVER_BOTH_SUCCEED ({why})"
        );
    }
    eprintln!("{sequences} sequences, {calls} calls compared: {seen:?}");
}
