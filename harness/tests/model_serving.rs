//! Both oracles on every YAML case of the seven real libraries. The reference (the
//! model behind its C ABI), serving the catalog each real library serves (`catalog
//! --format json`, its `catalog` loaded with `MPIT_REFERENCE_CATALOG`), runs the whole
//! suite, and its results meet the library's published ones
//! (`reports/published/<name>/report.json.gz`, which `suite.rs` holds to a fresh run)
//! through `report::model_check`, what `run --model-check` does:
//!
//! - What the model finds, the library is found to do too (`model_only` is empty): a
//!   case that does not pass on a conforming implementation serving that catalog is
//!   about the catalog's own content (an enumeration on an `MPI_UNSIGNED` variable,
//!   R-ENUM-1), which the library serves.
//! - Every fail, warn and crash of the library is judged by the model too, and none
//!   `disagree`s: `behaviour` (the case passes on the same catalog served
//!   conformingly), `catalog` (the same status there), or one of the named exceptions:
//!   `not_servable` (an entry the reference's catalog cannot hold, e.g. an `MPI_C_BOOL`
//!   variable, no MPI_T datatype of §15.3.5, and the enumerations only such entries
//!   use) and `version` (a rule of another MPI version than the library reports; the
//!   reference reports MPI 4.1).

mod common;

use common::{reference_lib, repo, run, scratch};
use mpit_report::json;
use mpit_report::model_check::{annotate, Served};
use mpit_spec::verdict::Agreement;

/// The library's catalog as the reference serves it (a YAML file under `dir`), and what
/// of it the reference cannot serve.
fn served_catalog(name: &str, path: &str, dir: &std::path::Path) -> (String, Served) {
    let o = run(&["catalog", "--lib", path, "--format", "json"], &[]);
    assert_eq!(o.status.code(), Some(0), "{name}: catalog");
    let dump: serde_json::Value = serde_json::from_slice(&o.stdout).expect("catalog json");
    let file = dir.join(format!("{name}.yaml"));
    let yaml = yaml_serde::to_string(&dump["catalog"]).expect("catalog as YAML");
    std::fs::write(&file, yaml).expect("write catalog");
    let strs = |v: &serde_json::Value| -> Vec<String> {
        let a = v.as_array().map(Vec::as_slice).unwrap_or_default();
        a.iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let undecoded = strs(&dump["undecoded"]);
    let enums = dump["catalog"]["enums"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let served = Served::of(
        undecoded.iter().map(String::as_str),
        enums
            .iter()
            .filter_map(|e| e["name"].as_str().map(str::to_string)),
    );
    (file.to_str().expect("utf-8 path").to_string(), served)
}

#[test]
fn the_model_serving_each_real_catalog_agrees_with_every_verdict() {
    let Some(targets) = common::real_targets() else {
        return;
    };
    let lib = reference_lib();
    let dir = scratch("model-serving");
    let mut disagree = Vec::new();
    for (name, path, _) in &targets {
        let (catalog, served) = served_catalog(name, path, &dir);
        let out = dir.join(name);
        let o = run(
            &[
                "run",
                "--quiet",
                "--lib",
                lib.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            &[
                ("MPIT_REFERENCE_CATALOG", &catalog),
                ("MPIT_REFERENCE_FAULTS", ""),
            ],
        );
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{name}: exit {:?}",
            o.status
        );
        let model = json::read(&out.join("report.json")).expect("the model's report");
        let mut published =
            json::read(&repo().join(format!("reports/published/{name}/report.json.gz")))
                .expect("the published report");
        let t = annotate(&mut published, &model, &served);
        eprintln!("{name}: the library's findings on the model: {}", t.line());
        disagree.extend(
            t.model_only
                .iter()
                .map(|m| format!("{name}: the model only: {m}")),
        );
        disagree.extend(
            published
                .results
                .iter()
                .filter_map(|r| Some((r, r.model.as_ref()?)))
                .filter(|(_, m)| m.agreement == Agreement::Disagree)
                .map(|(r, m)| {
                    format!(
                        "{name}: {} {}: the library {} ({}), the model {}",
                        r.case,
                        r.subject,
                        r.status.as_str(),
                        r.message,
                        m.line()
                    )
                }),
        );
        assert!(
            t.by.get(&Agreement::Behaviour).is_some_and(|n| *n > 0),
            "{name}: no finding of the library passed on the model: {}",
            t.line()
        );
    }
    assert!(
        disagree.is_empty(),
        "{} results where the oracles disagree (the first 40):\n{}",
        disagree.len(),
        disagree[..disagree.len().min(40)].join("\n")
    );
}

/// `run --model-check` on the reference with a fault of the string convention: the
/// check runs the reference again with no fault, serving the faulty one's catalog, so
/// every finding is the library's behaviour, and the report says so.
#[test]
fn model_check_calls_a_faulty_references_findings_its_behaviour() {
    let lib = reference_lib();
    let dir = scratch("model-check");
    let o = run(
        &[
            "run",
            "--quiet",
            "--model-check",
            "--case",
            "strings.*",
            "--lib",
            lib.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ],
        &[("MPIT_REFERENCE_FAULTS", "trunc-len-off-by-one")],
    );
    assert_eq!(o.status.code(), Some(1), "{}", common::stdout(&o));
    assert!(
        common::stdout(&o).contains("model check"),
        "{}",
        common::stdout(&o)
    );
    let r = json::read(&dir.join("report.json")).expect("report");
    let m = r.model_check.as_ref().expect("model_check");
    assert!(dir.join(&m.catalog).is_file());
    use mpit_spec::verdict::Status;
    let fails: Vec<_> = r
        .results
        .iter()
        .filter(|x| x.status.is_bad() || x.status == Status::Warn)
        .collect();
    assert!(fails.len() > 10, "{}", fails.len());
    for x in &fails {
        let got = x.model.as_ref().map(|m| m.agreement);
        assert_eq!(got, Some(Agreement::Behaviour), "{} {}", x.case, x.subject);
    }
    assert_eq!(m.tally.by.get(&Agreement::Behaviour), Some(&fails.len()));
    assert!(m.tally.model_only.is_empty(), "{:?}", m.tally.model_only);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("Model check (the reference serving"), "{md}");
    // Bad input before any worker starts: the reference has no launcher.
    let o = run(
        &[
            "run",
            "--model-check",
            "--launcher",
            "mpiexec -n 2",
            "--lib",
            lib.to_str().unwrap(),
        ],
        &[],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--model-check goes without --launcher"),
        "{err}"
    );
    // The results the reference passed carry nothing.
    assert!(r
        .results
        .iter()
        .filter(|x| x.status == Status::Pass)
        .all(|x| x.model.is_none()));
}
