//! `cargo xtask abi-probe` against the vendors' real headers: every bundled profile is
//! what the probe makes from its vendor's header today, the standard ABI's `mpi_abi.h`
//! reproduces `specs/abi/standard.yaml`, and bad input is one line with exit code 2.

mod common;

use mpit_vocab::profile::AbiProfile;
use std::path::{Path, PathBuf};
use std::process::Output;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn probe(args: &[&str]) -> Output {
    common::xtask()
        .arg("abi-probe")
        .args(args)
        .current_dir(repo())
        .output()
        .expect("run xtask abi-probe")
}

fn committed(name: &str) -> AbiProfile {
    AbiProfile::load(&repo().join("specs/abi").join(format!("{name}.yaml")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Lines of `.targets/<file>` as `name rest...`, or `None` (loudly) when the targets are
/// not installed; with MPIT_REQUIRE_TARGETS=1 their absence fails.
fn targets_file(file: &str) -> Option<Vec<Vec<String>>> {
    let path = repo().join(".targets").join(file);
    let required = common::required();
    let Ok(text) = std::fs::read_to_string(&path) else {
        assert!(
            !required,
            "{} is missing: run scripts/install-targets.sh (MPIT_SKIP_REAL_TARGETS=1 skips knowingly)",
            path.display()
        );
        eprintln!(
            "SKIPPED (loudly): no {}; run scripts/install-targets.sh",
            path.display()
        );
        return None;
    };
    Some(
        text.lines()
            .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .filter(|f| f.len() >= 2)
            .collect(),
    )
}

/// The committed profile each target's header must reproduce (scripts/TARGETS.md), and
/// the header: `mpi_abi.h` for the standard-ABI targets.
fn expected(name: &str) -> (&'static str, &'static str) {
    match name {
        "debian-mpich" => ("mpich-4", "mpi.h"),
        "debian-openmpi" => ("openmpi-4", "mpi.h"),
        // Intel's mpi.h has MPICH 5.0.2's values, so Intel MPI uses mpich-5.
        "mpich5" | "impi" => ("mpich-5", "mpi.h"),
        "openmpi5" => ("openmpi-5", "mpi.h"),
        "mpich5-abi" | "impi-abi" => ("standard", "mpi_abi.h"),
        other => panic!("target {other}: add the profile its header must give to this test"),
    }
}

/// Values where a vendor's header differs from the final MPI-5.0 ABI (mpi-forum's
/// mpi-abi-stubs mpi.h, which `specs/abi/standard.yaml` follows), as
/// `AbiProfile::differences` words them (generated vs committed). Intel MPI 2021.19's
/// `mpi_abi.h` swaps MPI_ERRORS_RETURN and MPI_ERRORS_ABORT (0x142 and 0x143): a tool
/// built against the final header that asks for MPI_ERRORS_RETURN hands Intel's
/// standard-ABI library the value its own header calls MPI_ERRORS_ABORT.
const KNOWN_HEADER_DEVIATIONS: &[(&str, &str)] =
    &[("impi-abi", "handles.MPI_ERRORS_RETURN: 0x142 vs 0x143")];

/// For every header directory in `.targets/headers.txt`: the probe's profile equals the
/// committed one, value by value (description aside: it names the vendor).
#[test]
fn every_header_reproduces_its_committed_profile() {
    let Some(headers) = targets_file("headers.txt") else {
        return;
    };
    assert_eq!(headers.len(), 7, "seven targets in .targets/headers.txt");
    let dir = std::env::temp_dir().join(format!("mpit-probe-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for h in &headers {
        let (name, include) = (&h[0], &h[1]);
        let (profile, header) = expected(name);
        let out = dir.join(format!("{name}.yaml"));
        let o = probe(&[
            "--include",
            include,
            "--header",
            header,
            "--out",
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}: with --out nothing on stdout");
        let generated = AbiProfile::load(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut diff = generated.differences(&committed(profile));
        let known: Vec<&str> = KNOWN_HEADER_DEVIATIONS
            .iter()
            .filter(|(t, _)| t == name)
            .map(|(_, d)| *d)
            .collect();
        for k in &known {
            let before = diff.len();
            diff.retain(|d| d != k);
            assert_eq!(
                diff.len() + 1,
                before,
                "{name}: the known deviation `{k}` is gone: update KNOWN_HEADER_DEVIATIONS"
            );
        }
        assert!(
            diff.is_empty(),
            "{name}: {include}/{header} differs from specs/abi/{profile}.yaml (generated vs committed):\n{}",
            diff.join("\n")
        );
        assert!(
            known.is_empty()
                || err.contains(&format!("differs from the bundled profile {profile}")),
            "{name}: {err}"
        );
        assert!(
            !known.is_empty()
                || err.contains(&format!("same values as the bundled profile {profile}")),
            "{name}: the probe names the profile the harness would choose: {err}"
        );
        // MPICH 5.0.2's and Intel MPI 2021.19's mpi_abi.h predate the erratum that named
        // the MPI_T handle structs MPI_ABI_T_* (abi_tags.rs); native headers are not held
        // to those tags.
        if header == "mpi_abi.h" {
            assert!(
                err.contains("pre-erratum struct tags in 6 of 6"),
                "{name}: {err}"
            );
        } else {
            assert!(!err.contains("struct tags"), "{name}: {err}");
        }
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            text.starts_with("# ABI profile generated by the abi-probe from the header\n"),
            "{text}"
        );
        assert!(
            text.contains(&format!("{header}\n")),
            "names the header: {text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each committed vendor profile says which header it came from and how to regenerate
/// it; the standard one says which headers reproduce it.
#[test]
fn committed_profiles_name_their_source() {
    for name in ["mpich-4", "mpich-5", "openmpi-4", "openmpi-5"] {
        let text =
            std::fs::read_to_string(repo().join("specs/abi").join(format!("{name}.yaml"))).unwrap();
        let head: Vec<&str> = text.lines().take(4).collect();
        assert_eq!(
            head[0], "# ABI profile generated by the abi-probe from the header",
            "{name}"
        );
        assert!(head[1].ends_with("/mpi.h"), "{name}: {}", head[1]);
        assert!(
            head[3].contains(&format!(
                "cargo xtask abi-probe --include {} --header mpi.h --out specs/abi/{name}.yaml",
                Path::new(head[1].trim_start_matches("#").trim())
                    .parent()
                    .unwrap()
                    .display()
            )),
            "{name}: {}",
            head[3]
        );
        let p = committed(name);
        assert_eq!(p.family.to_string(), name.split('-').next().unwrap());
    }
    let text = std::fs::read_to_string(repo().join("specs/abi/standard.yaml")).unwrap();
    assert!(text.contains("--header mpi_abi.h"), "standard.yaml");
}

/// The reference's header is the final MPI-5.0 ABI, erratum included: the probe says so.
#[test]
fn the_reference_header_has_the_final_struct_tags() {
    let out = std::env::temp_dir().join(format!("mpit-probe-ref-{}.yaml", std::process::id()));
    let o = probe(&[
        "--include",
        "reference/include",
        "--header",
        "mpi.h",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("the final MPI-5.0 ABI's struct tags (MPI_ABI_T_*)"),
        "{err}"
    );
    let _ = std::fs::remove_file(&out);
}

/// An MPI compiler wrapper on PATH (here Debian's mpicc, whichever family it belongs to)
/// gives the bundled profile of its family and release.
#[test]
fn mpicc_wrapper_gives_a_bundled_profile() {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("mpicc").is_file()))
        .unwrap_or(false);
    if !found {
        assert!(
            !common::required(),
            "no mpicc on PATH: scripts/install-targets.sh installs it (MPIT_SKIP_REAL_TARGETS=1 skips knowingly)"
        );
        eprintln!("SKIPPED (loudly): no mpicc on PATH");
        return;
    }
    let o = probe(&["--cc", "mpicc"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let text = String::from_utf8_lossy(&o.stdout);
    let p = AbiProfile::from_yaml(&text, "stdout").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("abi-probe --cc mpicc --header mpi.h\n"),
        "{text}"
    );
    assert!(
        err.contains("same values as the bundled profile"),
        "{} mpicc: {err}",
        p.family
    );
}

/// Bad input: one line on stderr naming the problem, exit code 2.
#[test]
fn bad_input_is_one_line_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (&[], "--include"),
        (
            &["--include", "/no/such/dir"],
            "/no/such/dir: no such directory",
        ),
        (
            &["--include", "/tmp", "--header", "../mpi.h"],
            "the header name `../mpi.h` is not a file name",
        ),
        (
            &["--include", "/tmp", "--header", "no_such_mpi_header.h"],
            "preprocessing the header",
        ),
        (
            &["--cc", "/no/such/mpicc"],
            "cannot run `\"/no/such/mpicc\"",
        ),
    ];
    for (args, want) in cases {
        let o = probe(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        if !args.is_empty() {
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line: {err}");
        }
    }
}
