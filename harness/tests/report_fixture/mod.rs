//! A synthetic run for the report tests: every status, several areas, evidence with
//! markup, quotes and non-ASCII, built through the Builder from events as the runner
//! would send them. With it: a copy changed in every way a diff must see
//! (`old_and_new`), waivers over it (`WAIVERS`, `parse_err`) and the escaping its
//! report.html must show (`html_escape`).

#![allow(dead_code)]

use mpit_report::{Builder, Host, Report, RunEvent, RunOptions, Summary, TargetInfo, Waivers};
use mpit_spec::verdict::{Area, CaseResult, Evidence, Level, Oracle, Status};
use serde_json::json;

pub fn target() -> TargetInfo {
    TargetInfo {
        path: "/opt/vendor/lib/libmpi.so.12".to_string(),
        sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".to_string(),
        abi_family: "mpich".to_string(),
        abi_profile: "mpich-4.1".to_string(),
        detection: Some("exports MPIR_CVAR symbols; mpi.h MPICH_VERSION".to_string()),
        library_version:
            "Vendor MPI 4.1 <beta> \"quoted\" & more\nDevice: ch4:ofi\nConfigure: --prefix=/opt"
                .to_string(),
        mpi_version: Some("4.1".to_string()),
        counts: [
            ("cvars", 412),
            ("pvars", 3),
            ("categories", 40),
            ("enums", 6),
            ("events", 0),
            ("sources", 0),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
        unresolved: Vec::new(),
    }
}

pub fn options() -> RunOptions {
    RunOptions {
        strict: false,
        jobs: 2,
        timeout_ms: 5000,
        cases: vec![],
        areas: vec![],
        abi: "auto".to_string(),
        baseline: None,
        waivers: None,
        launcher: None,
    }
}

pub fn result(case: &str, area: Area, subject: &str, status: Status, message: &str) -> CaseResult {
    CaseResult {
        case: case.to_string(),
        area,
        subject: subject.to_string(),
        status,
        level: if status == Status::Warn {
            Level::Robustness
        } else {
            Level::Must
        },
        clause: "MPI-4.1 §15.3.3 R-STR-2".to_string(),
        oracle: Oracle::Spec,
        message: message.to_string(),
        reading: None,
        duration_ms: 1.5,
        waived: None,
        exercised: None,
        evidence: if status == Status::Pass {
            vec![]
        } else {
            vec![Evidence {
                call: "MPI_T_cvar_get_info".to_string(),
                args: json!({"cvar_index": 3, "name": {"cap": 1, "len": 1}}).into(),
                rc: Some("MPI_SUCCESS".to_string()),
                out: json!({"name": "<script>alert(\"x\")</script>", "name_len": 31}).into(),
                expected: Some("name truncated to 0 chars + NUL; byte 1 untouched".to_string()),
            }]
        },
        repro: None,
        repro_source: None,
        model: None,
    }
}

/// The results of the synthetic run, in a scrambled order (the Builder sorts them).
pub fn results() -> Vec<CaseResult> {
    use Area::*;
    use Status::*;
    let mut v = vec![
        result(
            "strings.cvar.name.truncate",
            Strings,
            "cvar 10 MPIR_CVAR_B",
            Pass,
            "ok",
        ),
        result(
            "strings.cvar.name.truncate",
            Strings,
            "cvar 3 MPIR_CVAR_<script>alert('x')</script>",
            Fail,
            "wrote 2 bytes past the buffer | len=1 `name` *bold* _it_",
        ),
        result(
            "strings.cvar.name.truncate",
            Strings,
            "cvar 9 Größe — 名前",
            Pass,
            "ok",
        ),
        result(
            "strings.cvar.desc.empty",
            Strings,
            "cvar 4 X",
            Warn,
            "empty description is \"\" not NULL",
        ),
        result(
            "lifecycle.finalize.extra",
            Lifecycle,
            "",
            Crash,
            "worker killed by SIGSEGV",
        ),
        result("lifecycle.init.nest", Lifecycle, "", Pass, "depth 1000"),
        result(
            "pvars.readreset.atomic",
            Pvars,
            "pvar 0 posted_recvq_length",
            Timeout,
            "silent past 5000 ms",
        ),
        result(
            "events.source.timestamp",
            Events,
            "",
            Unsupported,
            "MPI_T_source_get_timestamp not exported",
        ),
        result(
            "events.callback.safety",
            Events,
            "",
            Skip,
            "no events in the catalog",
        ),
        result(
            "errors.codes.distinct",
            Errors,
            "",
            Error,
            "harness: cannot read the profile & go on",
        ),
        result(
            "consistency.index.roundtrip",
            Consistency,
            "pvar 1 unexpected_recvq_length",
            Fail,
            "get_index returned 2, expected 1",
        ),
        result(
            "consistency.index.roundtrip",
            Consistency,
            "pvar 0 posted_recvq_length",
            Pass,
            "ok",
        ),
    ];
    v[3].reading = Some("empty string for no description".to_string());
    v[10].oracle = Oracle::RunWide;
    v.reverse();
    v
}

/// The synthetic report, through events; timestamps, host and tool version fixed so
/// renderings can be snapshotted (the redaction).
pub fn report() -> Report {
    let mut b = Builder::new();
    let rs = results();
    b.event(RunEvent::Started {
        target: target(),
        options: options(),
        planned: rs.len(),
    });
    for r in rs {
        b.event(RunEvent::Result(r));
    }
    b.event(RunEvent::Finished {
        interrupted: false,
        stopped_by: None,
    });
    redact(b.finish())
}

pub fn redact(mut r: Report) -> Report {
    r.started = "2025-01-02T03:04:05Z".to_string();
    r.finished = "2025-01-02T03:04:09Z".to_string();
    r.host = Host {
        hostname: "ci-host".to_string(),
        os: "linux".to_string(),
        arch: "x86_64".to_string(),
        cores: 2,
    };
    r.tool.version = "0.0.0-test".to_string();
    r
}

/// A report of `n` results over every area and status (for size and speed checks).
pub fn large(n: usize) -> Report {
    let mut b = Builder::new();
    b.event(RunEvent::Started {
        target: target(),
        options: options(),
        planned: n,
    });
    for i in 0..n {
        let area = Area::ALL[i % Area::ALL.len()];
        // Mostly passes, as in a real run, with every status present.
        let status = if i % 10 == 0 {
            Status::ALL[(i / 10) % Status::ALL.len()]
        } else {
            Status::Pass
        };
        let mut r = result(
            &format!("{area}.case{}", i % 97),
            area,
            &format!("cvar {i} MPIR_CVAR_{i}"),
            status,
            "synthetic",
        );
        r.duration_ms = (i % 13) as f64;
        b.event(RunEvent::Result(r));
    }
    b.event(RunEvent::Finished {
        interrupted: false,
        stopped_by: None,
    });
    redact(b.finish())
}

/// `old` is the synthetic report; `new` changes it in every way a diff must see.
pub fn old_and_new() -> (Report, Report) {
    let old = report();
    let mut new = old.clone();
    for x in &mut new.results {
        match (x.case.as_str(), x.subject.as_str()) {
            // fail → pass: fixed
            ("consistency.index.roundtrip", s) if s.starts_with("pvar 1") => {
                x.status = Status::Pass
            }
            // pass → fail: a new fail
            ("consistency.index.roundtrip", _) => x.status = Status::Fail,
            // pass → crash: a new crash
            ("lifecycle.init.nest", _) => x.status = Status::Crash,
            // warn → pass: changed
            ("strings.cvar.desc.empty", _) => x.status = Status::Pass,
            // crash → fail: already bad, changed (not a new fail)
            ("lifecycle.finalize.extra", _) => x.status = Status::Fail,
            _ => {}
        }
    }
    new.results.retain(|x| x.case != "events.callback.safety");
    new.results.push(result(
        "cvars.write.back",
        Area::Cvars,
        "cvar 1 A",
        Status::Pass,
        "ok",
    ));
    new.summary = Summary::of(&new.results);
    (old, new)
}

/// `s` as report.html escapes it: the five characters of HTML markup.
pub fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Waivers over the synthetic run: ones that apply, an expired one, one that matches no
/// case, one for another library.
pub const WAIVERS: &str = "\
# known deviations
- case: \"strings.cvar.name.*\"
  target: \"*/vendor/*\"
  reason: MPICH#1234, fixed in 4.3
  expires: 2099-12-31
- case: lifecycle.finalize.extra
  target: \"Vendor MPI 4.1*\"
  reason: \"crash on extra finalize, vendor ticket 77\"
- case: consistency.index.*
  subject: \"pvar 1 *\"
  target: \"*\"
  reason: index table off by one
- case: errors.codes.distinct
  target: \"*\"
  reason: an old one
  expires: 2024-01-31
- case: nosuch.case.*
  target: \"*\"
  reason: typo in the case glob
- case: lifecycle.init.nest
  target: \"*\"
  reason: was crashing in 4.0
- case: pvars.*
  target: \"*libother*\"
  reason: another library
";

/// The error of waivers (file `w.yaml`) that must not parse.
pub fn parse_err(text: &str) -> String {
    Waivers::parse(text, "w.yaml")
        .expect_err("must not parse")
        .to_string()
}
