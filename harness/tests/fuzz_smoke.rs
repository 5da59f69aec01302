//! The fuzz oracles (`mpit_conform::fuzzing`) on stable Rust: every seed of
//! `fuzz/corpus/<target>/` and a few hundred deterministic pseudo-random inputs go
//! through each oracle's `run`, so an oracle that panics on a conformant library, or a
//! parser regression on the seeds, fails `cargo test` without nightly or cargo-fuzz.
//!
//! The inputs come from a xorshift generator with fixed seeds rather than proptest:
//! the oracles take raw bytes and do their own structuring (`arbitrary`), so a byte
//! generator is all that is needed, and its stream is fixed by this file, not by a
//! dependency's release (a failure names the input's number, which replays exactly).

mod common;

use mpit_conform::fuzzing::{self, catalog_yaml, reference_ffi, spec_yaml, strings};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Inputs per oracle beyond the seeds.
const NOISE: usize = 300;

/// The seed files of one target, sorted by name.
fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = common::repo().join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());
    files
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, b)
        })
        .collect()
}

/// `NOISE` inputs: half random bytes, half seeds with a few bytes replaced, inserted,
/// deleted or cut (what libFuzzer's first mutations look like), so the YAML oracles
/// see mostly-valid text and not only garbage.
fn noise(seeds: &[(PathBuf, Vec<u8>)], seed: u64) -> Vec<Vec<u8>> {
    let bytes: Vec<Vec<u8>> = seeds.iter().map(|s| s.1.clone()).collect();
    mpit_conform::fuzzing::generated(&bytes, NOISE, seed)
}

/// Runs every seed and the noise through `run`, naming the input that panicked.
fn drive(target: &str, seed: u64, run: impl Fn(&[u8])) {
    let seeds = corpus(target);
    for (p, b) in &seeds {
        eprintln!("{target}: seed {}", p.display());
        run(b);
    }
    for (k, b) in noise(&seeds, seed).iter().enumerate() {
        if std::env::var_os("FUZZ_SMOKE_VERBOSE").is_some() {
            eprintln!("{target}: noise #{k} {b:?}");
        }
        run(b);
    }
}

#[test]
fn strings_oracle_passes_the_seeds_and_noise() {
    drive("strings", 0x5eed_0001, strings::run);
}

#[test]
fn catalog_yaml_oracle_passes_the_seeds_and_noise() {
    drive("catalog_yaml", 0x5eed_0002, catalog_yaml::run);
}

#[test]
fn spec_yaml_oracle_passes_the_seeds_and_noise() {
    drive("spec_yaml", 0x5eed_0003, spec_yaml::run);
}

/// The reference cdylib of this build, opened once for the whole test binary (two
/// opens would share one library and its MPI_T init count anyway).
fn reference() -> &'static reference_ffi::Fixture {
    static F: OnceLock<reference_ffi::Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let lib = common::reference_lib();
        reference_ffi::Fixture::open(&lib, "the test's reference_lib()")
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

#[test]
fn reference_ffi_oracle_passes_the_seeds_and_noise() {
    let f = reference();
    drive("reference_ffi", 0x5eed_0004, |b| {
        reference_ffi::run_with(f, b)
    });
}

/// Empty files, bytes that are not UTF-8 and seeds cut anywhere are inputs like any
/// other: no oracle panics on them.
#[test]
fn empty_and_corrupt_inputs_are_handled() {
    let corrupt: Vec<Vec<u8>> = vec![
        vec![],
        vec![0xff, 0xfe, 0xfd],
        b"\xc3\x28 not utf-8: \x80".to_vec(),
        vec![0; 4096],
        b"cvars:\n  - name: \xff\n".to_vec(),
    ];
    let f = reference();
    for target in ["strings", "catalog_yaml", "spec_yaml", "reference_ffi"] {
        let mut inputs = corrupt.clone();
        for (_, b) in corpus(target).iter().take(3) {
            inputs.push(b[..b.len() / 2].to_vec());
        }
        for b in &inputs {
            match target {
                "strings" => strings::run(b),
                "catalog_yaml" => catalog_yaml::run(b),
                "spec_yaml" => spec_yaml::run(b),
                _ => reference_ffi::run_with(f, b),
            }
        }
    }
}

#[test]
fn a_missing_library_is_a_clear_setup_error() {
    let e = fuzzing::library_from("MPIT_FUZZ_LIB", Some("/nonexistent".into()), Path::new("/"))
        .expect_err("no such file");
    assert_eq!(e.to_string(), "MPIT_FUZZ_LIB=/nonexistent: no such file");
    let empty = common::scratch("fuzz-no-target");
    let e = fuzzing::library_from("MPIT_FUZZ_LIB", None, &empty).expect_err("nothing built");
    let msg = e.to_string();
    assert!(
        msg.contains("cargo build --release -p mpit-reference")
            && msg.contains(
                &empty
                    .join("release/libmpit_reference.so")
                    .display()
                    .to_string()
            ),
        "{msg}"
    );
    // An empty value is unset: the workspace's cdylib.
    let lib = common::reference_lib();
    let dir = lib.parent().and_then(Path::parent).expect("target dir");
    let got = fuzzing::library_from("MPIT_FUZZ_LIB", Some("".into()), dir).expect("found");
    assert!(got.ends_with("libmpit_reference.so"), "{}", got.display());
}

/// Runs this test binary again with only the ignored test `child` and `env`.
fn child(test: &str, env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(std::env::current_exe().expect("test binary"));
    c.args(["--exact", test, "--include-ignored", "--nocapture"])
        .env("FUZZ_SMOKE_CHILD", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run the test binary")
}

/// A fuzz target with no library exits with status 2 and one line, not a panic
/// (which libFuzzer would record as a crash).
#[test]
fn the_reference_ffi_target_without_a_library_exits_2() {
    let o = child(
        "child_runs_reference_ffi",
        &[("MPIT_REFERENCE_LIB", "/nonexistent")],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("fuzz setup: MPIT_REFERENCE_LIB=/nonexistent: no such file"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// The oracle finds real faults: with one of the reference's injected faults switched
/// on, the seeds and noise reach it and the oracle stops naming the rule it breaks.
/// The last three need call chains the noise does not make (alloc, free, use; a pvar
/// handle read as MPI_T_PVAR_ALL_HANDLES; register, raise, use the instance after the
/// callback): their seeds `found-<fault>` are libFuzzer's minimized findings
/// (fuzz/README.md), kept so the oracle's reach stays tested.
#[test]
fn the_reference_ffi_oracle_catches_injected_faults() {
    let lib = common::reference_lib();
    for (fault, rule) in [
        ("error-code-out-of-range", "R-RC-1/R-RC-2"),
        ("mpi-err-class-returned", "R-RC-3"),
        ("missing-nul", "R-STR-1"),
        ("trunc-len-off-by-one", "R-STR-2"),
        ("provided-illegal", "R-INIT-1"),
        ("refcount-ignored", "R-FIN-1"),
        ("session-not-nulled", "R-SESS-1"),
        ("get-cvars-writes-past-len", "R-CAT-1"),
        ("handle-not-nulled", "R-CVAR-7"),
        ("stale-cvar-handle-accepted", "freed before"),
        ("read-accepts-all-handles", "R-PREAD-1"),
        ("event-read-outside-callback", "after its callback returned"),
    ] {
        let o = child(
            "child_runs_reference_ffi",
            &[
                ("MPIT_REFERENCE_LIB", lib.to_str().expect("utf-8 path")),
                ("MPIT_REFERENCE_FAULTS", fault),
            ],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{fault} went unseen:\n{err}");
        assert!(err.contains(rule), "{fault}: no {rule} in\n{err}");
    }
}

/// Not a test of its own: the body the two tests above run in a child process.
#[test]
#[ignore = "run by other tests in a child process"]
fn child_runs_reference_ffi() {
    if std::env::var_os("FUZZ_SMOKE_CHILD").is_none() {
        return;
    }
    let seeds = corpus("reference_ffi");
    reference_ffi::run(b"");
    for b in seeds.iter().map(|s| s.1.clone()).chain(noise(&seeds, 7)) {
        reference_ffi::run(&b);
    }
}

/// `ops_differential` in a child process of its own (it opens the library in-process and
/// holds an MPI_T init there): the seeds and noise against the reference agree with the
/// model.
#[test]
fn ops_differential_oracle_passes_the_seeds_and_noise() {
    let lib = common::reference_lib();
    let o = child(
        "child_runs_ops_differential",
        &[("MPIT_FUZZ_LIB", lib.to_str().expect("utf-8 path"))],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("ops_differential: 0 divergences"), "{err}");
}

/// The oracle finds a fault switched on in the reference (R-STR-2: a truncated string's
/// length off by one) and panics naming the rule.
#[test]
fn the_ops_differential_oracle_catches_an_injected_fault() {
    let lib = common::reference_lib();
    let o = child(
        "child_runs_ops_differential",
        &[
            ("MPIT_FUZZ_LIB", lib.to_str().expect("utf-8 path")),
            ("MPIT_REFERENCE_FAULTS", "missing-nul"),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "the fault went unseen:\n{err}");
    assert!(err.contains("R-STR-1"), "{err}");
}

#[test]
fn the_ops_differential_target_without_a_library_exits_2() {
    let o = child(
        "child_runs_ops_differential",
        &[("MPIT_FUZZ_LIB", "/nonexistent")],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("fuzz setup: MPIT_FUZZ_LIB=/nonexistent: no such file"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// A known deviation passed over (`MPIT_FUZZ_KNOWN`) is not reported: with the fault's
/// rule known the same inputs pass; a bad entry in either list is a setup error.
#[test]
fn the_ops_differential_oracle_passes_over_known_deviations() {
    let lib = common::reference_lib();
    let l = lib.to_str().expect("utf-8 path");
    let o = child(
        "child_runs_ops_differential",
        &[
            ("MPIT_FUZZ_LIB", l),
            ("MPIT_REFERENCE_FAULTS", "missing-nul"),
            ("MPIT_FUZZ_KNOWN", "R-STR-1, R-STR-2"),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    for (var, value, says) in [
        (
            "MPIT_FUZZ_KNOWN",
            "not-a-rule",
            "MPIT_FUZZ_KNOWN: --known not-a-rule",
        ),
        (
            "MPIT_FUZZ_AVOID",
            "pvar:no_such_*",
            "MPIT_FUZZ_AVOID: --avoid pvar:no_such_*",
        ),
    ] {
        let o = child(
            "child_runs_ops_differential",
            &[("MPIT_FUZZ_LIB", l), (var, value)],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Not a test of its own: the body the tests above run in a child process.
#[test]
#[ignore = "run by other tests in a child process"]
fn child_runs_ops_differential() {
    if std::env::var_os("FUZZ_SMOKE_CHILD").is_none() {
        return;
    }
    let seeds = corpus("ops_differential");
    let inputs: Vec<Vec<u8>> = seeds
        .iter()
        .map(|s| s.1.clone())
        .chain(noise(&seeds, 11))
        .collect();
    for b in &inputs {
        mpit_conform::fuzzing::ops_differential::run(b);
    }
    eprintln!("ops_differential: 0 divergences in {} inputs", inputs.len());
}
