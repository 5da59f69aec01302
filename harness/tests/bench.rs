//! `cargo xtask bench` cannot rot: on the reference, with tiny repetitions and a few
//! cases, it writes a well-formed bench.json and BENCH.md. No timing is asserted (a
//! benchmark is not a test).

mod common;

use common::*;
use std::sync::Mutex;

/// One test of this file at a time. Each runs `cargo xtask bench`, which builds the
/// reference cdylib together with mpit-conform and mpit-xtask (`build_measured`), while
/// `reference_lib` builds it alone: the two feature sets give two different
/// `libmpit_reference.so` under one name, and each build replaces the file. A test
/// running a library that another test's build is replacing found no such file (a fresh
/// clone's CI, `property tests: cannot start a worker: ...: no such file`).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn bench_on_the_reference_writes_bench_json_and_md() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lib = reference_lib();
    let out = scratch("bench");
    let corpus = repo().join("fuzz/corpus");
    let o = run_xtask(
        &[
            "bench",
            "--reference",
            lib.to_str().expect("utf-8"),
            "--only",
            "reference",
            "--floor-runs",
            "2",
            "--per-call-ms",
            "5",
            "--suite-runs",
            "1",
            "--jobs",
            "2",
            "--scale",
            "1,2",
            "--scale-runs",
            "1",
            "--case",
            "strings.cvar.*",
            "--props-runs",
            "1",
            "--props-cases",
            "4",
            "--props-cases-in-process",
            "8",
            "--fuzz-windows",
            "1",
            "--fuzz-window-ms",
            "20",
            "--corpus",
            corpus.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
        ],
        &[],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(out.join("bench.json")).expect("bench.json");
    let b: serde_json::Value = serde_json::from_str(&text).expect("bench.json parses");
    assert_eq!(b["format_version"], 1);
    assert!(b["machine"]["cores"].as_u64().unwrap_or(0) >= 1);
    let libs = b["libraries"].as_array().expect("libraries[]");
    assert_eq!(libs.len(), 1);
    let r = &libs[0];
    assert_eq!(r["name"], "reference");
    assert!(r["floor"]["enumerate_ms"]["median"].as_f64().unwrap_or(0.0) > 0.0);
    assert!(r["floor"]["mpi_init_ms"]["median"].as_f64().unwrap_or(0.0) > 0.0);
    assert!(!r["floor"]["per_call"]["loops"]
        .as_array()
        .expect("loops")
        .is_empty());
    let suite = &r["suites"][0];
    assert_eq!(suite["jobs"], 2);
    let run0 = &suite["runs"][0];
    assert!(run0["results"].as_u64().unwrap_or(0) > 0);
    assert!(run0["workers_started"].as_u64().unwrap_or(0) >= 2);
    assert!(run0["supervisor_rss_kb"].as_u64().unwrap_or(0) > 0);
    assert!(suite["ratio"].as_f64().is_some());
    let points = b["scaling"]["points"].as_array().expect("scaling points");
    assert_eq!(points.len(), 2);
    assert!(
        points[1]["suite"]["runs"][0]["results"].as_u64()
            > points[0]["suite"]["runs"][0]["results"].as_u64(),
        "the doubled catalog gives more results"
    );
    assert!(b["scaling"]["fit"]["slope_us_per_result"].is_number());
    let t = &b["throughput"];
    let props = t["props"].as_array().expect("throughput.props[]");
    let engines: Vec<&str> = props.iter().filter_map(|p| p["engine"].as_str()).collect();
    assert_eq!(engines, ["in-process", "worker"], "{t}");
    for p in props {
        assert!(p["runs"][0]["sequences"].as_u64().unwrap_or(0) > 0, "{p}");
        assert!(p["per_s"]["median"].as_f64().unwrap_or(0.0) > 0.0, "{p}");
    }
    let fuzz = t["fuzz"].as_array().expect("throughput.fuzz[]");
    let oracles: Vec<&str> = fuzz.iter().filter_map(|f| f["oracle"].as_str()).collect();
    assert_eq!(
        oracles,
        [
            "strings",
            "catalog_yaml",
            "spec_yaml",
            "reference_ffi",
            "ops_differential"
        ],
        "{t}"
    );
    for f in fuzz {
        assert!(f["seeds"].as_u64().unwrap_or(0) > 0, "{f}");
        assert!(
            f["exec_per_s"]["median"].as_f64().unwrap_or(0.0) > 0.0,
            "{f}"
        );
    }
    let verdicts = b["verdicts"].as_array().expect("verdicts[]");
    for target in ["property tests", "fuzz ops_differential"] {
        assert!(
            verdicts.iter().any(
                |v| v["target"].as_str().is_some_and(|s| s.starts_with(target))
                    && v["met"].is_boolean()
            ),
            "no measured verdict for {target}"
        );
    }
    let md = std::fs::read_to_string(out.join("BENCH.md")).expect("BENCH.md");
    for heading in [
        "## Machine",
        "## Targets",
        "## Per library",
        "## Scaling",
        "## Property tests and fuzz oracles",
        "without libFuzzer's coverage instrumentation",
    ] {
        assert!(md.contains(heading), "BENCH.md lacks {heading}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bench_bad_input_is_one_line_and_exit_2() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let o = run_xtask(
        &[
            "bench",
            "--only",
            "no-such-library",
            "--out",
            "/nonexistent",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("no-such-library"), "{err}");
}

#[test]
fn the_soak_counts_what_a_long_life_leaves_and_finds_nothing() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // A short soak (the measured one is 200 runs and 10 minutes: reports/bench/SOAK.md),
    // with a temporary directory of its own so that nobody else's files are counted.
    let lib = reference_lib();
    let out = scratch("soak");
    let tmp = out.join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let o = run_xtask(
        &[
            "bench",
            "--soak",
            "--reference",
            lib.to_str().expect("utf-8"),
            "--soak-runs",
            "2",
            "--soak-fuzz-secs",
            "2",
            "--out",
            out.to_str().expect("utf-8"),
        ],
        &[("TMPDIR", tmp.to_str().expect("utf-8"))],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{}{err}", stdout(&o));
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("soak.json")).expect("soak.json"))
            .expect("soak.json parses");
    let phases = s["phases"].as_array().expect("phases");
    assert_eq!(phases.len(), 2);
    for p in phases {
        assert!(p["units"].as_u64().unwrap_or(0) > 0, "{p}");
        assert!(p["workers"].as_u64().unwrap_or(0) > 0, "{p}");
        for k in ["fds", "processes", "zombies", "temp"] {
            assert_eq!(p["after"][k], p["before"][k], "{k}: {p}");
        }
    }
    let md = std::fs::read_to_string(out.join("SOAK.md")).expect("SOAK.md");
    assert!(md.contains("no leak"), "{md}");
}
