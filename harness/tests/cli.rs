//! End-to-end runs of the `mpit-conform` binary: against the reference cdylib (clean and
//! with faults), against the real standard-ABI libraries, and on bad input.

mod common;

use common::*;

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
            "--abi openmpi contradicts the library: detected standard family: MPI_Abi_get_version returned 1.0",
        ),
        (
            vec![
                "--lib".into(),
                lib.display().to_string(),
                "--abi".into(),
                "mpich".into(),
            ],
            "--abi mpich contradicts the library: detected standard family: MPI_Abi_get_version returned 1.0; \"mpit-reference",
        ),
        (
            vec![
                "--lib".into(),
                lib.display().to_string(),
                "--abi".into(),
                "mpich-4".into(),
            ],
            "--abi mpich-4 contradicts the library: detected standard family",
        ),
        (
            vec![
                "--lib".into(),
                lib.display().to_string(),
                "--abi".into(),
                "/no/such/profile.yaml".into(),
            ],
            "/no/such/profile.yaml:0:0: cannot read",
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

/// A profile file with a missing or a mistyped constant: one line `file:line:col: ...`,
/// exit 2, before any library is loaded.
#[test]
fn bad_profile_file_is_located() {
    let lib = reference_lib();
    let standard = std::fs::read_to_string(repo().join("specs/abi/standard.yaml")).unwrap();
    let dir = std::env::temp_dir().join(format!("mpit-badprofile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text, line_of, want) in [
        (
            "missing.yaml",
            standard.replace("  GROUP_EQ: 5\n", ""),
            // A missing key is reported where its table's entries start.
            "  CONSTANT: 1",
            "missing constant `GROUP_EQ`",
        ),
        (
            "misspelled.yaml",
            standard.replace("  GROUP_EQ: 5\n", "  GROUPEQ: 5\n"),
            "GROUPEQ",
            "unknown constant `GROUPEQ`",
        ),
        (
            "mistyped.yaml",
            standard.replace("  GROUP_EQ: 5\n", "  GROUP_EQ: five\n"),
            "GROUP_EQ: five",
            "invalid type",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, &text).unwrap();
        let line = text.lines().position(|l| l.contains(line_of)).unwrap() + 1;
        let o = run(
            &[
                "--lib",
                lib.to_str().unwrap(),
                "--abi",
                file.to_str().unwrap(),
            ],
            &[],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        let at = format!("{}:{line}:", file.display());
        assert!(err.contains(&at), "{name}: wanted {at} in {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{name}: one line: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--force` proceeds past the contradiction, with the family's newest profile (the
/// reference's version string names no MPICH release) and says so.
#[test]
fn force_proceeds_with_a_contradicting_family() {
    let lib = reference_lib();
    let o = run(
        &[
            "--lib",
            lib.to_str().unwrap(),
            "--abi",
            "mpich",
            "--force",
            "-q",
            "--out",
            scratch("force").to_str().unwrap(),
        ],
        &[],
    );
    let out = stdout(&o);
    // A contradicting profile makes some cases impossible to run (`error`, exit 2),
    // but the run proceeds to a report.
    assert!(
        matches!(o.status.code(), Some(0..=2)),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("detected standard family"), "{out}");
    assert!(
        out.contains("ABI profile mpich-5 (specs/abi/mpich-5.yaml), the newest mpich profile"),
        "{out}"
    );
    assert!(out.contains("results: "), "{out}");
}

/// The bundled profile each real target must be judged with (scripts/TARGETS.md).
fn expected_profile(name: &str) -> &'static str {
    match name {
        "debian-mpich" => "mpich-4",
        "debian-openmpi" => "openmpi-4",
        "mpich5" | "impi" => "mpich-5",
        "openmpi5" => "openmpi-5",
        "mpich5-abi" | "impi-abi" => "standard",
        other => panic!("target {other}: add its expected profile to this test"),
    }
}

/// All seven real libraries run to a verdict with the profile of their family and
/// release, never exit 2; the strings area really ran on their catalogs.
#[test]
fn real_libraries_run_with_their_bundled_profiles() {
    let Some(targets) = real_targets() else {
        return;
    };
    let scratch_dir = scratch("profiles");
    for (name, path, abi) in &targets {
        let out_dir = scratch_dir.join(name);
        let o = run(
            &[
                "--lib",
                path,
                "--area",
                "strings",
                "-q",
                "--out",
                out_dir.to_str().unwrap(),
            ],
            &[],
        );
        let out = stdout(&o);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{name}: exit {:?}\n{out}{err}",
            o.status.code()
        );
        assert!(
            out.contains(&format!("detected {abi} family: ")),
            "{name}: the family of targets.txt: {out}"
        );
        let profile = expected_profile(name);
        assert!(
            out.contains(&format!("ABI profile {profile} (specs/abi/{profile}.yaml)")),
            "{name}: {out}"
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
                .unwrap();
        // Every family's MPICH-derived or Open MPI string copy returns n for a truncated
        // name: the other reading of R-STR-2, a warning by default, named in the result.
        let sizes: Vec<&serde_json::Value> = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["case"] == "strings.cvar.name.sizes")
            .collect();
        assert!(
            sizes.len() > 300,
            "{name}: one result per cvar: {}",
            sizes.len()
        );
        assert!(
            sizes
                .iter()
                .all(|r| r["status"] == "warn" && r["reading"].is_string()),
            "{name}: {:?}",
            sizes.iter().find(|r| r["status"] != "warn")
        );
        // Every object the profile names is exported, and the handle values are what
        // each family's header says: MPICH's MPI_T_PVAR_ALL_HANDLES is the value stored in
        // its exported variable (an address in the library), Open MPI's (handle)-1, the
        // standard ABI's (handle)1.
        assert!(!out.contains("does not export"), "{name}: {out}");
        let json = run(&["catalog", "--lib", path, "--format", "json"], &[]);
        let dump: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
        assert_eq!(dump["unresolved"], serde_json::json!([]), "{name}");
        let all = dump["handles"]["MPI_T_PVAR_ALL_HANDLES"]
            .as_u64()
            .unwrap_or_else(|| panic!("{name}: MPI_T_PVAR_ALL_HANDLES resolved"));
        match abi.as_str() {
            "mpich" => assert!(all > 0xffff && all != u64::MAX, "{name}: {all:#x}"),
            "openmpi" => assert_eq!(all, u64::MAX, "{name}"),
            _ => assert_eq!(all, 1, "{name}"),
        }
        if abi == "openmpi" {
            // Open MPI declares its boolean MCA variables as MPI_C_BOOL, which is not
            // among the datatypes MPI_T may return (MPI-4.1 §15.3.5, R-TYPE-1); nothing
            // else the profile has to decode is unknown.
            let undecoded = dump["undecoded"].as_array().expect("undecoded list");
            assert!(!undecoded.is_empty(), "{name}");
            for u in undecoded {
                let u = u.as_str().unwrap_or_default();
                assert!(
                    u.contains(": datatype 0x") && u.ends_with(" = &ompi_mpi_c_bool"),
                    "{name}: {u}"
                );
            }
        } else {
            let strict = run(
                &[
                    "--lib",
                    path,
                    "--area",
                    "strings",
                    "--strict",
                    "-q",
                    "--out",
                    out_dir.to_str().unwrap(),
                ],
                &[],
            );
            assert_eq!(strict.status.code(), Some(1), "{name}: --strict");
        }
    }
    // A profile that names an object the library does not export says so.
    let (name, path, _) = targets
        .iter()
        .find(|t| t.2 == "openmpi")
        .expect("an Open MPI target");
    let text = std::fs::read_to_string(repo().join("specs/abi/openmpi-5.yaml")).unwrap();
    let file = std::env::temp_dir().join(format!("mpit-unresolved-{}.yaml", std::process::id()));
    std::fs::write(
        &file,
        text.replace("{symbol: ompi_mpi_double}", "{symbol: ompi_mpi_no_such}"),
    )
    .unwrap();
    let o = run(
        &[
            "--lib",
            path,
            "--abi",
            file.to_str().unwrap(),
            "--area",
            "strings",
            "-q",
            "--out",
            scratch_dir.join("unresolved").to_str().unwrap(),
        ],
        &[],
    );
    let out = stdout(&o);
    assert!(
        out.contains(
            "ABI profile names objects the library does not export: MPI_DOUBLE = {symbol: ompi_mpi_no_such}"
        ),
        "{name}: {out}"
    );
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_dir_all(&scratch_dir);
}

/// A round trip per target: each real library's catalog, dumped as YAML and
/// loaded into the reference (`MPIT_REFERENCE_CATALOG`), is dumped back identically.
/// Open MPI's catalogs need the two format additions of vocab/src/catalog: declared
/// deviations (`deviations: [R-ENUM-1]` on its MPI_UNSIGNED flag cvars that carry an
/// enum) and no enumeration that only undecodable (MPI_C_BOOL) entries use.
#[test]
fn catalog_yaml_round_trips_for_every_real_target() {
    let Some(targets) = real_targets() else {
        return;
    };
    let lib = reference_lib();
    let dir = std::env::temp_dir().join(format!("mpit-roundtrip-real-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, path, abi) in &targets {
        let o = run(&["catalog", "--lib", path, "--format", "yaml"], &[]);
        assert_eq!(o.status.code(), Some(0), "{name}");
        let yaml = stdout(&o);
        assert!(yaml.len() > 10_000, "{name}: a real catalog");
        let file = dir.join(format!("{name}.yaml"));
        std::fs::write(&file, &yaml).unwrap();
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
            "{name}: {}",
            String::from_utf8_lossy(&o2.stderr)
        );
        let back = stdout(&o2);
        if back != yaml {
            let first = yaml
                .lines()
                .zip(back.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{name}: the reference's dump differs from line {}: {:?} vs {:?}",
                first + 1,
                yaml.lines().nth(first),
                back.lines().nth(first)
            );
        }
        // Open MPI's deviation is declared, not dropped; the MPICH family has none.
        assert_eq!(
            yaml.contains("deviations:"),
            abi == "openmpi",
            "{name}: deviations declared"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bad input: a library of the wrong architecture or class is one line naming it, exit
/// 2, found from the ELF header before dlopen (fixtures: the reference cdylib with its
/// e_machine patched to aarch64, and with its class patched to 32-bit).
#[test]
fn wrong_architecture_is_one_line_and_exit_2() {
    let lib = reference_lib();
    let bytes = std::fs::read(&lib).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF");
    let dir = std::env::temp_dir().join(format!("mpit-wrongarch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let arch = std::env::consts::ARCH;
    let mut aarch64 = bytes.clone();
    // e_machine (offset 18, little-endian): 183 = EM_AARCH64 (62 on this x86_64 build).
    aarch64[18..20].copy_from_slice(&183u16.to_le_bytes());
    let mut class32 = bytes.clone();
    // e_ident[EI_CLASS] (offset 4): 1 = ELFCLASS32.
    class32[4] = 1;
    let mut cases = vec![(
        "class32.so",
        class32,
        format!("class32.so: a 32-bit shared library for {arch} (ELF class 1, machine"),
    )];
    if arch != "aarch64" {
        cases.push((
            "aarch64.so",
            aarch64,
            format!(
                "aarch64.so: a shared library for aarch64 (ELF machine 183), this harness runs on {arch}"
            ),
        ));
    }
    for (file, data, want) in cases {
        let p = dir.join(file);
        std::fs::write(&p, data).unwrap();
        for args in [
            vec!["--lib", p.to_str().unwrap()],
            vec!["catalog", "--lib", p.to_str().unwrap()],
        ] {
            let o = run(&args, &[]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(&want), "{args:?}: {err}");
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The worker processes a supervisor has started (children of `pid`).
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|x| x.1) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(pid) {
            out.extend(e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()));
        }
    }
    out
}

/// Alive: present and not a zombie (a reaped or zombie worker has stopped running).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|x| x.1.trim_start().starts_with('Z'))
        })
        .is_some_and(|zombie| !zombie)
}

/// Ctrl-C during a run: SIGINT to the supervisor while its worker hangs in
/// a vendor call stops the run at once; the workers are killed, the partial report is
/// written and marked interrupted, and the exit code is 2 (incomplete verdict).
#[test]
fn sigint_stops_the_run_and_writes_an_interrupted_report() {
    let lib = reference_lib();
    let dir = scratch("sigint");
    let mut child = bin()
        .args([
            "--lib",
            lib.to_str().unwrap(),
            "-q",
            "--timeout",
            "120",
            "--out",
        ])
        .arg(&dir)
        .args(["--case", "pvars.session.create_free", "--case", "strings.*"])
        .env("MPIT_REFERENCE_FAULTS", "hang-in-call")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Wait until a worker runs, then give it time to be inside the hanging call.
    let t0 = std::time::Instant::now();
    let mut workers = Vec::new();
    while workers.is_empty() && t0.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(50));
        workers = children(pid);
    }
    assert!(!workers.is_empty(), "no worker started");
    std::thread::sleep(std::time::Duration::from_secs(2));
    workers = children(pid);
    let sent = std::time::Instant::now();
    // SAFETY: sends a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGINT) }, 0);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > std::time::Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the run did not stop within 30 s of SIGINT");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(2), "stderr: {err}");
    assert!(
        sent.elapsed() < std::time::Duration::from_secs(10),
        "SIGINT took {:?} to stop the run (the hang's timeout is 120 s)",
        sent.elapsed()
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    for w in workers {
        assert!(!alive(w), "worker {w} outlived the interrupted run");
    }
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(r["interrupted"], true, "{err}");
    // Nothing is claimed for the hanging case: no pass was made up for it.
    let results = r["results"].as_array().unwrap();
    assert!(
        !results
            .iter()
            .any(|x| x["case"] == "pvars.session.create_free" && x["status"] == "pass"),
        "a pass for the case that was hanging"
    );
    // No report is left half-written next to the finished one.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// The documented waiver file (docs/ci/) is one the tool accepts: a run with it exits 0
/// against the reference, and says its waivers waive nothing there (they are about
/// other libraries).
#[test]
fn documented_waiver_example_loads() {
    let lib = reference_lib();
    let dir = scratch("waiver-doc");
    let waivers = repo().join("docs/ci/waivers.example.yaml");
    let o = run(
        &[
            "--lib",
            lib.to_str().unwrap(),
            "-q",
            "--case",
            "strings.cvar.desc.empty",
            "--waivers",
            waivers.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ],
        &[],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("matches no result"), "{err}");
    assert_eq!(err.lines().count(), 3, "one note per waiver: {err}");
}
