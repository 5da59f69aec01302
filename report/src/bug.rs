//! The bug report of a result (`mpit-conform report-bug`): which results have
//! one, and the command that writes it, as report.html shows it under each of them.

use crate::verdict::{CaseResult, Oracle, Status};

/// A result a C reproducer, and so a bug report, is written for: a fail, warning, crash
/// or timeout of a case of the spec oracle, but the cross-rank run's (`ranks.*`, several
/// processes under a launcher).
pub fn reproducible(r: &CaseResult) -> bool {
    matches!(
        r.status,
        Status::Fail | Status::Warn | Status::Crash | Status::Timeout
    ) && !r.case.starts_with("ranks.")
        && r.oracle == Oracle::Spec
}

/// The command that writes the bug report of `r`, run where `report` (the path of its
/// report.json) is reachable: every argument quoted for a POSIX shell.
pub fn command(r: &CaseResult, report: &str) -> String {
    let mut words = vec![
        "mpit-conform".to_string(),
        "report-bug".into(),
        "--report".into(),
        quote(report),
        "--case".into(),
        quote(&r.case),
    ];
    if !r.subject.is_empty() {
        words.push("--subject".into());
        words.push(quote(&r.subject));
    }
    words.join(" ")
}

/// `s` as one shell word: bare when it holds only characters no shell treats specially,
/// else in single quotes (a single quote inside as `'\''`).
fn quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{Area, CaseMeta, Level};

    fn result(case: &'static str, subject: &str, status: Status) -> CaseResult {
        let meta = CaseMeta {
            case,
            area: Area::Pvars,
            level: Level::Must,
            clause: "MPI-4.1 §15.3.7",
            oracle: Oracle::Spec,
        };
        CaseResult::new(meta, subject.into(), status, String::new())
    }

    #[test]
    fn the_command_quotes_what_a_shell_would_split() {
        let r = result("pvars.readreset.non_atomic", "pvar 0 it's", Status::Fail);
        assert_eq!(
            command(&r, "report.json"),
            "mpit-conform report-bug --report report.json --case pvars.readreset.non_atomic \
             --subject 'pvar 0 it'\\''s'"
        );
        let none = result("errors.codes.profile", "", Status::Crash);
        assert!(command(&none, "a b/report.json")
            .ends_with("--report 'a b/report.json' --case errors.codes.profile"));
        assert!(reproducible(&none));
        assert!(!reproducible(&result("x.y", "", Status::Pass)));
        assert!(!reproducible(&result(
            "ranks.cvars.identical",
            "",
            Status::Fail
        )));
    }
}
