//! Helpers shared by the integration tests: the binary, the reference cdylib, the real
//! targets of scripts/install-targets.sh.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mpit-conform"))
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The reference cdylib of this build profile, (re)built first: cargo does not build a
/// dependency's cdylib for another crate's tests, and a stale copy must not be judged.
pub fn reference_lib() -> PathBuf {
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

/// The maintainers' tools binary (`cargo xtask`, xtask/) of this build profile, (re)built
/// first: it is another package's binary, which cargo does not build for these tests.
pub fn xtask() -> Command {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_mpit-conform"));
    let dir = exe.parent().expect("bin dir").to_path_buf();
    let mut c = Command::new(env!("CARGO"));
    // The packages `xtask bench` builds itself (`build_measured`), so both builds
    // resolve the same features and neither rebuilds what the other built.
    c.args([
        "build",
        "--quiet",
        "-p",
        "mpit-conform",
        "-p",
        "mpit-reference",
    ])
    .args(["-p", "mpit-xtask"])
    .current_dir(repo());
    if dir.ends_with("release") {
        c.arg("--release");
    }
    assert!(c.status().expect("cargo build").success(), "building xtask");
    Command::new(dir.join("xtask"))
}

/// `xtask ARGS` (the bench, the abi-probe) with these environment variables.
pub fn run_xtask(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = xtask();
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run xtask")
}

pub fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = bin();
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run mpit-conform")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Whether the tests whose subject is outside the repository (the seven real MPI
/// libraries, their mpicc, Chromium) must run: yes, unless `MPIT_SKIP_REAL_TARGETS=1`
/// says to skip them knowingly. A test that cannot run its subject never reports
/// success on its own: `cargo test` on a machine without them fails with what to install
/// (`scripts/test.sh` installs it all). `MPIT_REQUIRE_TARGETS=1` (CI) always requires.
pub fn required() -> bool {
    let var = |k: &str| std::env::var(k).as_deref() == Ok("1");
    var("MPIT_REQUIRE_TARGETS") || !var("MPIT_SKIP_REAL_TARGETS")
}

/// The real MPI libraries installed by scripts/install-targets.sh, as `name path abi`.
/// A missing list fails the test unless `MPIT_SKIP_REAL_TARGETS=1` ([`required`]); then
/// it is skipped loudly.
pub fn real_targets() -> Option<Vec<(String, String, String)>> {
    let list = repo().join(".targets/targets.txt");
    let required = required();
    let Ok(text) = std::fs::read_to_string(&list) else {
        assert!(
            !required,
            "{} is missing: run `bash scripts/test.sh` (it installs the real MPI libraries), \
             or scripts/install-targets.sh; MPIT_SKIP_REAL_TARGETS=1 skips these tests knowingly",
            list.display()
        );
        eprintln!(
            "SKIPPED (loudly): no {}; run scripts/install-targets.sh",
            list.display()
        );
        return None;
    };
    let targets: Vec<_> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3).then(|| (f[0].to_string(), f[1].to_string(), f[2].to_string()))
        })
        .collect();
    assert_eq!(targets.len(), 7, "seven targets in {}", list.display());
    for (name, path, _) in &targets {
        assert!(
            !required || Path::new(path).exists(),
            "target {name} ({path}) is missing: run scripts/install-targets.sh"
        );
    }
    Some(targets)
}

/// A fresh scratch directory under the system temp dir, removed when dropped (a test
/// leaves nothing behind, passing or failing).
pub fn scratch(tag: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("mpit-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    Scratch(d)
}

/// See [`scratch`]; derefs to its path.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the suite and returns (exit code, report.json).
pub fn suite(
    lib: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
    out: &Path,
) -> (Option<i32>, serde_json::Value) {
    let mut args = vec![
        "--lib",
        lib.to_str().expect("utf-8 path"),
        "-q",
        "--out",
        out.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    let o = run(&args, env);
    let text = std::fs::read_to_string(out.join("report.json")).unwrap_or_else(|e| {
        panic!(
            "no report.json ({e}); exit {:?}\n{}\n{}",
            o.status.code(),
            stdout(&o),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (
        o.status.code(),
        serde_json::from_str(&text).expect("report.json parses"),
    )
}

/// `status → count` of a report.
pub fn by_status(r: &serde_json::Value) -> std::collections::BTreeMap<String, u64> {
    r["summary"]["by_status"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default()
}

/// A report of the reference on the `strings.cvar.name.*` cases, all passing: input for
/// the commands' bad-input tests. Returns the scratch directory and the report's path.
pub fn passing_report(tag: &str) -> (Scratch, PathBuf) {
    let lib = reference_lib();
    let s = scratch(tag);
    let out = s.join("out");
    let o = run(
        &[
            "--lib",
            lib.to_str().expect("utf-8 path"),
            "--quiet",
            "--case",
            "strings.cvar.name.*",
            "--out",
            out.to_str().expect("utf-8 path"),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0));
    (s, out.join("report.json"))
}

/// `mpit-conform ARGS` is bad input: exit 2, one line on stderr saying `what`, nothing
/// on stdout.
pub fn one_line_exit_2(args: &[&str], what: &str) {
    let o = run(args, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
    assert!(err.contains(what), "{what}: {err}");
    assert!(o.stdout.is_empty(), "{what}: nothing written");
}
