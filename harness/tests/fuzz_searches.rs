//! fuzz-props' searches side by side (`-j`, harness/src/workflows/streams.rs), through
//! the CLI on the reference cdylib: more searches add sequences to the first one's, and
//! a failure another search found is printed with that search's seed, which finds it
//! again alone.

mod common;
#[path = "common/fuzz_runs.rs"]
mod fuzz_runs;

use common::{reference_lib, scratch};
use fuzz_runs::{fuzz_props, sequences};

/// What diverged and the minimal sequence: the lines from `DIVERGENCE` to the line
/// before `found by` or `case written` (not the rates, counts or paths).
fn divergence(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.contains("DIVERGENCE"))
        .take_while(|l| !l.contains("found by search") && !l.contains("case written"))
        .collect()
}

#[test]
fn two_searches_run_twice_the_sequences_and_agree_with_the_model() {
    let lib = reference_lib();
    let dir = scratch("searches-clean");
    let (code, out) = fuzz_props(
        lib.to_str().unwrap(),
        None,
        &["-j", "2", "--cases", "128", "--robustness", "--strict"],
        dir.to_str().unwrap(),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("(seed 1, 2 searches side by side)"), "{out}");
    assert!(out.contains("0 failing mode(s), 0 warning(s)"), "{out}");
    // Each search runs the whole budget: 128 valid, 32 lifecycle, 64 robustness.
    assert_eq!(sequences(&out), 2 * (128 + 32 + 64), "{out}");
    // The lifecycle mode forks a child per sequence of both searches.
    assert!(
        out.lines()
            .any(|l| l.starts_with("lifecycle") && l.contains(", 64 forked (fork)")),
        "{out}"
    );
}

#[test]
fn a_failure_of_the_second_search_repeats_with_its_seed_alone() {
    let lib = reference_lib();
    let libs = lib.to_str().unwrap();
    let dir = scratch("searches-second");
    let fault = Some("timer-not-in-seconds");
    let args = ["--cases", "300", "--strict", "--fail-fast"];
    let with = |extra: &[&str], sub: &str| {
        let all: Vec<&str> = args.iter().chain(extra).copied().collect();
        fuzz_props(libs, fault, &all, dir.join(sub).to_str().unwrap())
    };
    // Seed 1 alone does not reach the fault within 300 sequences per mode...
    let (code, alone) = with(&["-j", "1", "--seed", "1"], "alone");
    assert_eq!(code, 0, "{alone}");
    // ... a second search beside it does, and says with which seed.
    let (code, two) = with(&["-j", "2", "--seed", "1"], "two");
    assert_eq!(code, 1, "{two}");
    let seed = two
        .lines()
        .find_map(|l| l.trim().strip_prefix("found by search 2 (seed "))
        .and_then(|l| l.split(':').next())
        .unwrap_or_else(|| panic!("no `found by search 2`:\n{two}"));
    assert_ne!(seed, "1", "{two}");
    // That seed alone finds the same divergence, shrunk to the same sequence.
    let (code, again) = with(&["-j", "1", "--seed", seed], "again");
    assert_eq!(code, 1, "{again}");
    assert!(!divergence(&two).is_empty(), "{two}");
    assert_eq!(divergence(&two), divergence(&again), "{two}\n{again}");
    assert!(!again.contains("found by search"), "{again}");
}
