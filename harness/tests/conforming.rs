//! The conforming probes (`mpit-conform faults --conforming`): behaviours the standard
//! allows that the reference does not pick. Both oracles read one policy
//! (specs/return-codes.yaml), so neither may flag them: a false alarm on a conforming
//! library costs its vendor a release as surely as a missed bug ships one.

mod common;

use common::{by_status, reference_lib, run, scratch, stdout, suite};
use serde_json::Value;

fn probes() -> Vec<String> {
    let o = run(&["faults", "--conforming"], &[]);
    stdout(&o)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_spec_suite_passes_every_conforming_probe() {
    let lib = reference_lib();
    let probes = probes();
    assert!(
        probes.contains(&"readreset-readonly-no-write".to_string()),
        "{probes:?}"
    );
    for p in &probes {
        let out = scratch(&format!("probe-{p}"));
        let (code, r) = suite(&lib, &["--strict"], &[("MPIT_REFERENCE_FAULTS", p)], &out);
        let s = by_status(&r);
        for bad in ["fail", "crash", "timeout", "error"] {
            assert_eq!(s.get(bad).copied().unwrap_or(0), 0, "{p}: {bad} {s:?}");
        }
        assert_eq!(code, Some(0), "{p}");
    }
    // The probe really answers the other code: a case wanting exactly NO_WRITE passes
    // with it and fails without.
    let dir = scratch("probe-active");
    let file = dir.join("probe.yaml");
    std::fs::write(
        &file,
        "area: pvars\ncases:\n  - id: pvars.probe.readreset_no_write\n    title: t\n    \
         clause: MPI-4.1 §15.3.7\n    rules: [R-PRR-1]\n    level: must\n    \
         for_each: pvar\n    where: {atomic: false, readonly: true, bind: MPI_T_BIND_NO_OBJECT}\n    \
         steps:\n      - call: pvar_session_create\n        save: {s: session}\n      \
         - call: pvar_handle_alloc\n        args: {session: $s, index: $index, obj: null}\n        \
         save: {h: handle}\n      - call: pvar_readreset\n        args: {session: $s, handle: $h}\n        \
         expect: {rc: MPI_T_ERR_PVAR_NO_WRITE}\n      - call: pvar_session_free\n        \
         args: {session: $s}\n",
    )
    .expect("write the case");
    let file = file.to_str().expect("utf-8");
    for (env, want) in [
        (Some("readreset-readonly-no-write"), "pass"),
        (None, "fail"),
    ] {
        let env: Vec<(&str, &str)> = env
            .map(|p| ("MPIT_REFERENCE_FAULTS", p))
            .into_iter()
            .collect();
        let (_, r) = suite(&lib, &["--case-file", file], &env, &dir.join(want));
        let statuses: Vec<&Value> = r["results"]
            .as_array()
            .expect("results")
            .iter()
            .filter(|x| x["case"] == "pvars.probe.readreset_no_write")
            .map(|x| &x["status"])
            .collect();
        assert!(!statuses.is_empty(), "the probe case ran on no pvar");
        assert!(statuses.iter().all(|s| *s == want), "{env:?}: {statuses:?}");
    }
}

#[test]
fn the_differential_oracle_passes_every_conforming_probe() {
    let lib = reference_lib();
    for p in probes() {
        let out = scratch(&format!("probe-diff-{p}"));
        let o = run(
            &[
                "fuzz-props",
                "--lib",
                lib.to_str().expect("utf-8"),
                "--timeout",
                "3",
                "--cases",
                "512",
                "--robustness",
                "--strict",
                "--out",
                out.to_str().expect("utf-8"),
            ],
            &[("MPIT_REFERENCE_FAULTS", &p)],
        );
        let text = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{p}: {text}");
        assert!(
            text.contains("0 failing mode(s), 0 warning(s)"),
            "{p}: {text}"
        );
    }
}
