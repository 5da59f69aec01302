//! The one binary, alone. The reference linked into mpit-conform (`--lib
//! builtin:reference`, and what `run --model-check` serves) is the reference's cdylib
//! under another loader: the same entry points by name, none of them visible to a
//! vendor library loaded beside it, and the same result for every YAML case, with and
//! without a fault injected. A copy of the binary with nothing beside it runs the model
//! check, and a reader of its stdout that goes away costs it nothing.

mod common;

use common::{reference_lib, scratch, suite};
use mpit_reference::linked;
use mpit_target::{elf, LINKED_REFERENCE};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

#[test]
fn the_linked_entry_points_are_the_cdylibs_exports() {
    let lib = reference_lib();
    let mut exported = elf::defined_symbols(&lib).expect("the cdylib's .dynsym");
    exported.sort();
    let mut linked_names: Vec<String> = linked::FUNCTIONS
        .iter()
        .map(|n| n.to_string())
        .chain(["MPI_T_PVAR_ALL_HANDLES".to_string()])
        .collect();
    linked_names.sort();
    assert_eq!(
        linked_names, exported,
        "reference/src/ffi/linked.rs lists what the cdylib exports"
    );
    // Each name has its PMPI_ twin (the optimizer may fold the two into one address).
    let twins = linked::FUNCTIONS.iter().filter(|n| n.starts_with("PMPI_"));
    let mut n = 0;
    for twin in twins {
        let name = &twin[1..];
        let (a, b) = (linked::symbol(name), linked::symbol(twin));
        assert!(a.is_some() && b.is_some(), "{name} and {twin}");
        n += 1;
    }
    assert_eq!(n, 75, "the MPI and MPI_T functions with a PMPI_ twin");
    assert_eq!(linked::symbol("MPI_T_no_such_function"), None);
}

/// A vendor library loaded into a worker binds its own `MPI_T_*` calls to itself: the
/// executable exports none of the reference's names to the dynamic linker.
#[test]
fn the_executable_exports_no_reference_symbol() {
    let exe = Path::new(env!("CARGO_BIN_EXE_mpit-conform"));
    let defined = elf::defined_symbols(exe).expect("the executable's .dynsym");
    let clash: Vec<&String> = defined
        .iter()
        .filter(|n| linked::symbol(n).is_some())
        .collect();
    assert!(clash.is_empty(), "exported by the executable: {clash:?}");
}

/// (case, subject) → (status, message) of a run. A crash's message names the call in
/// flight with its handle's value, which depends on the cases the worker ran before
/// (the order two workers take them in): its digits are left out.
fn results(r: &serde_json::Value) -> BTreeMap<(String, String), (String, String)> {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let message = |x: &serde_json::Value| match x["status"].as_str() {
        Some("crash") => s(&x["message"]).replace(|c: char| c.is_ascii_digit(), ""),
        _ => s(&x["message"]),
    };
    r["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|x| {
            (
                (s(&x["case"]), s(&x["subject"])),
                (s(&x["status"]), message(x)),
            )
        })
        .collect()
}

#[test]
fn every_yaml_case_gives_the_cdylibs_result() {
    let cdylib = reference_lib();
    let dir = scratch("linked-reference");
    // No fault; a string fault (findings); a process fault (crashes in workers).
    for faults in ["", "trunc-len-off-by-one", "crash-in-call"] {
        let env = [("MPIT_REFERENCE_FAULTS", faults)];
        let run = |lib: &Path, tag: &str| {
            let out = dir.join(format!("{tag}-{faults}"));
            let (_, r) = suite(lib, &["--timeout", "10"], &env, &out);
            assert_eq!(r["target"]["path"], lib.to_str().expect("utf-8 path"));
            results(&r)
        };
        let linked = run(Path::new(LINKED_REFERENCE), "linked");
        let loaded = run(&cdylib, "cdylib");
        assert!(linked.len() > 1000, "{faults:?}: {} results", linked.len());
        let bad = |m: &BTreeMap<_, (String, String)>, s: &str| {
            m.values().filter(|(st, _)| st == s).count()
        };
        match faults {
            "" => assert_eq!(bad(&linked, "fail") + bad(&linked, "crash"), 0),
            "crash-in-call" => assert!(bad(&linked, "crash") > 0, "the fault crashes"),
            _ => assert!(bad(&linked, "fail") > 0, "the fault is found"),
        }
        let differ: Vec<_> = linked
            .iter()
            .filter(|(k, v)| loaded.get(*k) != Some(*v))
            .take(5)
            .collect();
        assert!(
            differ.is_empty() && linked.len() == loaded.len(),
            "{faults:?}: linked and cdylib differ ({} vs {} results): {differ:?}",
            linked.len(),
            loaded.len()
        );
    }
}

/// The binary, alone in a directory of its own (a hard link, or a copy across file
/// systems): no `libmpit_reference.so` beside it.
fn lone_binary(dir: &Path) -> std::path::PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_mpit-conform"));
    let lone = dir.join("bin");
    std::fs::create_dir_all(&lone).expect("bin dir");
    let to = lone.join("mpit-conform");
    if std::fs::hard_link(exe, &to).is_err() {
        std::fs::copy(exe, &to).expect("copy the binary");
    }
    to
}

#[test]
fn a_lone_binary_runs_the_model_check() {
    let dir = scratch("lone-binary");
    let bin = lone_binary(&dir);
    let out = dir.join("out");
    // The reference with a fault, judged by the reference without: every finding is
    // the fault's (`behaviour`).
    let o = Command::new(&bin)
        .args([
            "--lib",
            LINKED_REFERENCE,
            "--model-check",
            "--case",
            "strings.*",
            "-q",
        ])
        .arg("--out")
        .arg(&out)
        .env("MPIT_REFERENCE_FAULTS", "trunc-len-off-by-one")
        .output()
        .expect("run the lone binary");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "findings: exit 1; {stderr}");
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json");
    let r: serde_json::Value = serde_json::from_str(&text).expect("report.json parses");
    let m = &r["model_check"];
    assert_eq!(m["reference"], LINKED_REFERENCE, "{stderr}");
    let behaviour = m["by"]["behaviour"].as_u64().unwrap_or(0);
    let all: u64 = m["by"]
        .as_object()
        .map_or(0, |b| b.values().filter_map(|v| v.as_u64()).sum());
    assert!(behaviour > 0 && behaviour == all, "{m}");
    assert!(out.join("model-catalog.yaml").is_file());
}

#[test]
fn a_closed_stdout_is_no_panic() {
    let bin = Path::new(env!("CARGO_BIN_EXE_mpit-conform"));
    // `true` has exited by the time the command writes: each write meets a broken pipe.
    let script = format!(
        "(sleep 1; '{}' catalog --lib {LINKED_REFERENCE}; echo \"exit $?\" >&2) | true",
        bin.display()
    );
    let o = Command::new("sh")
        .args(["-c", &script])
        .output()
        .expect("sh");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("exit 0"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
