//! mpit-process is the one place the workspace starts child processes: no other crate's
//! sources (tests and fuzz targets aside, which may run their own commands) name
//! `std::process::Command`, build one, or spawn one.

use std::path::Path;

#[path = "../../harness/tests/common/rust_files.rs"]
mod rust_files;
use rust_files::rust_files;

/// What starts a process the std way (or with fork/exec by hand).
const FORBIDDEN: &[&str] = &[
    "Command::new",
    "process::Command",
    "CommandExt",
    ".spawn()",
    ".output()",
    "libc::fork",
    "libc::exec",
    "libc::posix_spawn",
    "libc::kill",
    "libc::killpg",
    "libc::wait4",
    "libc::waitpid",
];

/// Test-only code inside ffi that forks to watch a fault kill a process (the fault is
/// what is tested, not a child's supervision).
const FORK_TESTS: &[&str] = &[
    "library/src/ffi/guarded.rs",
    "library/src/ffi/in_flight.rs",
    "library/src/ffi/log.rs",
    "library/src/ffi/page.rs",
];

/// The reference playing a hostile vendor library (`faults::hostile`): its forks and
/// waits are the library behaviour a test puts the supervisor through, in a worker,
/// never supervision of the harness's own.
const VENDOR_BEHAVIOUR: &[&str] = &["reference/src/ffi/hostile.rs"];

#[test]
fn no_crate_but_mpit_process_starts_a_process() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut hits = Vec::new();
    for src in [
        "harness/src",
        "library/src",
        "spec/src",
        "report/src",
        "reference/src",
        "vocab/src",
        "repro/src",
        "xtask/src",
    ] {
        let mut files = Vec::new();
        rust_files(&root.join(src), &mut files);
        assert!(files.len() > 4, "{src} was read");
        for f in files {
            let rel = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
            if VENDOR_BEHAVIOUR.contains(&rel.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(&f).expect("read");
            // Inline test modules are tests: from `#[cfg(test)]` on, a file's code is not
            // looked at, in the ffi files that fork for a fault test.
            let body = match FORK_TESTS.contains(&rel.as_str()) {
                true => text.split("#[cfg(test)]").next().unwrap_or(""),
                false => text.as_str(),
            };
            for (n, line) in body.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for w in FORBIDDEN {
                    if code.contains(w) {
                        hits.push(format!("{rel}:{}: `{w}`: {}", n + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "start, signal and reap children through mpit_process::Cmd:\n{}",
        hits.join("\n")
    );
}
