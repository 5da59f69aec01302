//! `mpit-conform bench` cannot rot: on the reference, with tiny repetitions and a few
//! cases, it writes a well-formed bench.json and BENCH.md. No timing is asserted (a
//! benchmark is not a test).

mod common;

use common::*;

#[test]
fn bench_on_the_reference_writes_bench_json_and_md() {
    let lib = reference_lib();
    let out = scratch("bench");
    let o = run(
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
    assert!(b["not_measured"].as_array().is_some_and(|v| !v.is_empty()));
    let md = std::fs::read_to_string(out.join("BENCH.md")).expect("BENCH.md");
    for heading in [
        "## Machine",
        "## Targets",
        "## Per library",
        "## Scaling",
        "## Not measured yet",
    ] {
        assert!(md.contains(heading), "BENCH.md lacks {heading}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bench_bad_input_is_one_line_and_exit_2() {
    let o = run(
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
