//! JUnit XML for CI systems: one `<testsuite>` per area, one `<testcase>` per result,
//! named `case[subject]`.
//!
//! Mapping (reports/README.md "JUnit"): fail, crash and timeout are `<failure>` with
//! `type` fail / crash / timeout; error is `<error>`; skip and unsupported are
//! `<skipped>`; warn passes with a `<system-out>` note; a waived result is `<skipped
//! type="waived">`, because CI would otherwise turn red on what the exit code accepts.

use super::escape::{evidence_text, first_line};
use super::{oracle_name, Report, ReportError};
use crate::verdict::{Area, CaseResult, Status};
use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};
use std::fmt::Write;
use std::time::Duration;

/// The testcase name: the case id, and the subject in brackets when there is one.
pub fn case_name(r: &CaseResult) -> String {
    if r.subject.is_empty() {
        r.case.clone()
    } else {
        format!("{}[{}]", r.case, r.subject)
    }
}

/// The failure text: why, where in the standard, and the calls made.
fn description(r: &CaseResult) -> String {
    let mut d = String::new();
    let _ = writeln!(d, "{}", r.message);
    let _ = writeln!(
        d,
        "clause: {}   level: {}   oracle: {}",
        r.clause,
        r.level,
        oracle_name(r.oracle)
    );
    if let Some(reading) = &r.reading {
        let _ = writeln!(d, "reading: {reading}");
    }
    if !r.evidence.is_empty() {
        let _ = writeln!(d, "evidence:");
        d.push_str(&evidence_text(&r.evidence));
    }
    d
}

fn status_of(r: &CaseResult) -> TestCaseStatus {
    if let Some(reason) = &r.waived {
        let mut s = TestCaseStatus::skipped();
        s.set_type("waived")
            .set_message(format!("waived {}: {reason}", r.status))
            .set_description(description(r));
        return s;
    }
    let mut s = match r.status {
        Status::Pass | Status::Warn => return TestCaseStatus::success(),
        Status::Fail | Status::Crash | Status::Timeout => {
            TestCaseStatus::non_success(NonSuccessKind::Failure)
        }
        Status::Error => TestCaseStatus::non_success(NonSuccessKind::Error),
        Status::Skip | Status::Unsupported => TestCaseStatus::skipped(),
    };
    s.set_type(r.status.as_str())
        .set_message(r.message.clone())
        .set_description(description(r));
    s
}

fn test_case(r: &CaseResult) -> TestCase {
    let mut tc = TestCase::new(case_name(r), status_of(r));
    tc.set_classname(r.case.clone());
    if r.duration_ms.is_finite() && r.duration_ms >= 0.0 {
        tc.set_time(Duration::from_secs_f64(r.duration_ms / 1000.0));
    }
    if r.status == Status::Warn && r.waived.is_none() {
        tc.set_system_out(format!("warn: {}", description(r)));
    }
    tc
}

/// The JUnit document for a report.
pub fn render(report: &Report) -> Result<String, ReportError> {
    let mut doc = quick_junit::Report::new(format!("mpit-conform {}", report.target.path));
    for area in Area::ALL {
        let results: Vec<&CaseResult> = report.results.iter().filter(|r| r.area == area).collect();
        if results.is_empty() {
            continue;
        }
        let mut suite = TestSuite::new(area.as_str());
        suite.add_properties([
            Property::new("target.path", report.target.path.as_str()),
            // Which build was judged, whatever path it was given by.
            Property::new("target.sha256", report.target.sha256.as_str()),
            Property::new("target.abi_family", report.target.abi_family.as_str()),
            // The first line only: newlines do not survive in an XML attribute.
            Property::new(
                "target.library_version",
                first_line(&report.target.library_version, 200),
            ),
        ]);
        suite.add_test_cases(results.into_iter().map(test_case));
        doc.add_test_suite(suite);
    }
    Ok(doc.to_string()?)
}
