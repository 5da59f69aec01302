//! End-to-end runs of the `mpit-conform` binary: against the reference cdylib (clean and
//! with faults), against the real standard-ABI libraries, and on bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mpit-conform"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The reference cdylib of this build profile, (re)built first: cargo does not build a
/// dependency's cdylib for another crate's tests, and a stale copy must not be judged.
fn reference_lib() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_mpit-conform"));
    let dir = exe.parent().expect("bin dir").to_path_buf();
    let mut c = Command::new(env!("CARGO"));
    c.args(["build", "--quiet", "-p", "mpit-reference"])
        .current_dir(repo());
    if dir.ends_with("release") {
        c.arg("--release");
    }
    assert!(
        c.status().expect("cargo build").success(),
        "building the reference cdylib"
    );
    dir.join("libmpit_reference.so")
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = bin();
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run mpit-conform")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn reference_passes_every_check() {
    let lib = reference_lib();
    let o = run(&["--lib", lib.to_str().unwrap()], &[]);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("detected standard family"), "{out}");
    assert!(out.contains(" 0 failed"), "{out}");
    assert!(
        !out.contains("SKIP queries.succeed"),
        "the catalog was actually read: {out}"
    );
}

/// Each fault the catalog checks can see must turn a check to FAIL with exit code 1 under
/// --strict (trunc-len-off-by-one is the other reading of R-STR-2: a WARN without it).
#[test]
fn catalog_checks_catch_their_faults() {
    let lib = reference_lib();
    for (fault, check) in [
        ("trunc-len-off-by-one", "strings.name.truncate"),
        ("missing-nul", "strings.name.truncate"),
        ("overrun-one-byte", "strings.name.truncate"),
        ("null-buf-len-no-plus-one", "strings.name.length"),
        ("duplicate-name", "indices.names.unique"),
        ("get-index-wrong", "indices.get_index.round_trip"),
        ("category-cycle", "categories.acyclic"),
        ("class-datatype-mismatch", "pvars.class.datatype"),
        ("verbosity-out-of-range", "enums_datatypes.constants.legal"),
        ("bad-index-wrong-code", "PASS queries.succeed"),
    ] {
        let o = run(
            &["--lib", lib.to_str().unwrap(), "--strict"],
            &[("MPIT_REFERENCE_FAULTS", fault)],
        );
        let out = stdout(&o);
        if let Some(pass) = check.strip_prefix("PASS ") {
            // A fault outside what these checks look at must not make them fail.
            assert!(out.contains(&format!("PASS {pass}")), "{fault}: {out}");
            continue;
        }
        assert_eq!(o.status.code(), Some(1), "{fault}: {out}");
        assert!(
            out.contains(&format!("FAIL {check}")),
            "{fault} not caught by {check}: {out}"
        );
    }
    let o = run(
        &["--lib", lib.to_str().unwrap()],
        &[("MPIT_REFERENCE_FAULTS", "trunc-len-off-by-one")],
    );
    assert!(
        stdout(&o).contains("WARN strings.name.truncate"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn catalog_yaml_round_trips_through_the_reference() {
    let lib = reference_lib();
    let o = run(
        &[
            "catalog",
            "--lib",
            lib.to_str().unwrap(),
            "--format",
            "yaml",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0));
    let yaml = stdout(&o);
    let dir = std::env::temp_dir().join(format!("mpit-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("dumped.yaml");
    std::fs::write(&file, &yaml).unwrap();
    // The dump loads as a catalog, and the reference serving it dumps the same catalog.
    let o2 = run(
        &[
            "catalog",
            "--lib",
            lib.to_str().unwrap(),
            "--format",
            "yaml",
        ],
        &[("MPIT_REFERENCE_CATALOG", file.to_str().unwrap())],
    );
    assert_eq!(
        o2.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o2.stderr)
    );
    assert_eq!(stdout(&o2), yaml);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let lib = reference_lib();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![], "--lib PATH is required"),
        (
            vec!["--lib".into(), "/no/such/lib.so".into()],
            "no such file",
        ),
        (vec!["--lib".into(), "/etc/hostname".into()], "cannot load"),
        (
            vec![
                "--lib".into(),
                lib.display().to_string(),
                "--abi".into(),
                "vax".into(),
            ],
            "unknown ABI `vax`",
        ),
        (
            vec![
                "--lib".into(),
                lib.display().to_string(),
                "--abi".into(),
                "openmpi".into(),
            ],
            "no ABI profile for the openmpi family",
        ),
    ];
    for (args, want) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The real standard-ABI libraries installed by scripts/install-targets.sh.
#[test]
fn real_standard_abi_libraries_pass_the_catalog_checks() {
    let list = repo().join(".targets/targets.txt");
    let required = std::env::var("MPIT_REQUIRE_TARGETS").as_deref() == Ok("1");
    let Ok(text) = std::fs::read_to_string(&list) else {
        assert!(
            !required,
            "MPIT_REQUIRE_TARGETS=1 but {} is missing: run scripts/install-targets.sh",
            list.display()
        );
        eprintln!(
            "SKIPPED (loudly): no {}; run scripts/install-targets.sh",
            list.display()
        );
        return;
    };
    let mut seen = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 3 || f[2] != "standard" {
            continue;
        }
        seen += 1;
        let o = run(&["--lib", f[1]], &[]);
        let out = stdout(&o);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {out}{}",
            f[0],
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            out.contains("detected standard family: MPI_Abi_get_version returned 1.0"),
            "{out}"
        );
        assert!(
            out.contains("PASS queries.succeed"),
            "{}: the catalog was read: {out}",
            f[0]
        );
        // Both MPICH-based standard-ABI builds return n, not strlen+1, for a truncated
        // name: the other reading of R-STR-2, a warning by default and a fail under --strict.
        assert!(
            out.contains("WARN strings.name.truncate"),
            "{}: {out}",
            f[0]
        );
        let strict = run(&["--lib", f[1], "--strict"], &[]);
        assert_eq!(strict.status.code(), Some(1), "{}: --strict", f[0]);
        assert!(stdout(&strict).contains("FAIL strings.name.truncate"));
    }
    assert_eq!(
        seen,
        2,
        "mpich5-abi and impi-abi listed in {}",
        list.display()
    );
}
