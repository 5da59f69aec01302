//! Capability states (the MPI-4.0 additions to MPI_T): the probe on the reference (events fire, sources tick),
//! on real libraries without events (Debian Open MPI 4.1.4 exports none of the MPI-4.0
//! functions; Debian MPICH 4.0.2 exports them all with 0 events and 0 sources), a probe
//! whose worker dies, and the tables in report.md and the matrix.

mod common;
mod report_fixture;

use common::{reference_lib, required, scratch, suite};
use mpit_report::capabilities::{derive, Observed};
use mpit_report::{markdown, matrix};
use serde_json::Value;
use std::path::Path;

/// One cheap case: the probe runs whatever the selection.
const CASE: &[&str] = &["--case", "lifecycle.refcount.two_levels"];

fn state(r: &Value, cap: &str) -> String {
    r["capabilities"][cap]["state"]
        .as_str()
        .unwrap_or_else(|| panic!("capabilities.{cap}.state in {}", r["capabilities"]))
        .to_string()
}

#[test]
fn the_reference_fires_and_ticks_with_evidence() {
    let lib = reference_lib();
    let out = scratch("caps-ref");
    let (_, r) = suite(&lib, CASE, &[], &out);
    assert_eq!(state(&r, "events"), "firing");
    assert_eq!(state(&r, "sources"), "ticking");
    assert_eq!(state(&r, "mpi4_functions"), "present");
    let ev = &r["capabilities"]["events"];
    assert_eq!(ev["count"], 2);
    assert!(ev["missing"].as_array().is_some_and(Vec::is_empty));
    // The evidence holds the delivery and says what raised it.
    let calls = ev["evidence"].as_array().expect("evidence");
    let delivered = calls
        .iter()
        .filter(|e| e["call"] == "deliveries")
        .any(|e| e["out"]["count"].as_u64().unwrap_or(0) > 0);
    assert!(delivered, "{calls:?}");
    assert!(
        ev["message"]
            .as_str()
            .is_some_and(|m| m.contains("MPIT_Reference_raise_event")),
        "{ev}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(md.contains("| events | **firing (2)** |"), "{md}");
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(html.contains("<section class=\"caps\">"));
}

/// The reference's `exit-in-call` fault: MPI_T_pvar_session_free calls exit(1), which
/// the probe's MPI work reaches after it registered for events. The report still
/// comes; what the probe saw before stays, events are `unknown` with the death.
#[test]
fn a_probe_that_dies_still_yields_a_report() {
    let lib = reference_lib();
    let out = scratch("caps-exit");
    let (_, r) = suite(
        &lib,
        CASE,
        &[("MPIT_REFERENCE_FAULTS", "exit-in-call")],
        &out,
    );
    assert_eq!(state(&r, "events"), "unknown");
    assert_eq!(state(&r, "sources"), "ticking", "seen before the death");
    assert_eq!(state(&r, "mpi4_functions"), "present");
    let ev = &r["capabilities"]["events"];
    let msg = ev["message"].as_str().unwrap_or_default();
    assert!(msg.contains("exit(1)"), "{msg}");
    assert!(msg.contains("MPI_T_pvar_session_free"), "{msg}");
    assert!(ev["evidence"][0]["out"]["last_output"].is_array(), "{ev}");
}

fn real(name: &str) -> Option<String> {
    let targets = common::real_targets()?;
    let path = targets
        .iter()
        .find(|(n, _, _)| n == name)
        .map(|(_, p, _)| p.clone())
        .unwrap_or_else(|| panic!("{name} in .targets/targets.txt"));
    if !Path::new(&path).exists() {
        assert!(!required(), "{path} is missing");
        eprintln!("SKIPPED (loudly): {path} is missing");
        return None;
    }
    Some(path)
}

#[test]
fn libraries_without_events_are_told_apart() {
    let (Some(ompi), Some(mpich)) = (real("debian-openmpi"), real("debian-mpich")) else {
        return;
    };
    let out = scratch("caps-real");
    let (_, o) = suite(Path::new(&ompi), CASE, &[], &out.join("ompi"));
    let (_, m) = suite(Path::new(&mpich), CASE, &[], &out.join("mpich"));
    // Open MPI 4.1.4 (MPI 3.1): not exported at all.
    assert_eq!(state(&o, "events"), "absent");
    assert_eq!(state(&o, "sources"), "absent");
    assert_eq!(state(&o, "mpi4_functions"), "absent");
    assert!(o["capabilities"]["events"]["missing"]
        .as_array()
        .is_some_and(|m| m.iter().any(|f| f == "MPI_T_event_get_num")));
    assert_eq!(o["capabilities"]["events"]["count"], Value::Null);
    // MPICH 4.0.2: every function exported, nothing in them.
    assert_eq!(state(&m, "events"), "empty");
    assert_eq!(state(&m, "sources"), "empty");
    assert_eq!(state(&m, "mpi4_functions"), "present");
    assert_eq!(m["capabilities"]["events"]["count"], 0);
    let ev = &m["capabilities"]["events"]["evidence"][0];
    assert_eq!(ev["call"], "MPI_T_event_get_num");
    assert_eq!(ev["rc"], "MPI_SUCCESS");
    assert_eq!(ev["out"]["num"], 0);

    // Side by side with the reference: the matrix's Capabilities table.
    let (_, _) = suite(&reference_lib(), CASE, &[], &out.join("ref"));
    let reports: Vec<_> = ["ref", "ompi", "mpich"]
        .iter()
        .map(|d| mpit_report::json::read(&out.join(d).join("report.json")).expect("report"))
        .collect();
    let md = matrix::render_markdown(&reports);
    assert!(md.contains("### Capabilities"), "{md}");
    assert!(
        md.contains("| events | firing (2) | absent | empty (0) |"),
        "{md}"
    );
    assert!(
        md.contains("| sources | ticking (2) | absent | empty (0) |"),
        "{md}"
    );
    assert!(
        md.contains("| MPI-4.0 functions | present (20/20) | absent (0/20) | present (20/20) |"),
        "{md}"
    );
    let html = matrix::render_html(&reports);
    assert!(html.contains(">firing (2)</span>"), "{html}");
}

/// Reports without capabilities (older ones, the synthetic fixture) render as before
/// in report.md, and as "—" in the matrix beside one that has them.
#[test]
fn reports_without_capabilities_show_a_dash() {
    let old = report_fixture::report();
    assert!(old.capabilities.is_none());
    assert!(!markdown::render(&old).contains("Capabilities"));
    let mut new = report_fixture::report();
    new.target.path = "/opt/other/libmpi.so.12".into();
    new.capabilities = Some(derive(&Observed::default()));
    let md = matrix::render_markdown(&[old.clone(), new]);
    assert!(md.contains("| events | — | unknown |"), "{md}");
    assert!(!matrix::render_markdown(&[old]).contains("Capabilities"));
}
