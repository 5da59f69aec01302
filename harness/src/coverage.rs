//! Clause coverage: the map from normative sentences to cases (specs/clauses.yaml) and
//! how much of it the suite covers. A rule is *cited* when a case cites its id in
//! `rules:` or the map lists a case for it; every case the map names must exist. A
//! citation is not a check: a rule is *judged* by a report only where a case citing it
//! ran its check on a subject and came to a pass or a fail (for a MUST rule at level
//! must; a warn for the other strengths too), not on a check that held vacuously (a
//! `for_all` over no entry: `exercised: false`), so `coverage` also counts the rules
//! the published reports judged, on the reference and on the real libraries apart
//! ([`Coverage::judge`]). A MUST rule whose cases only crashed or hung on a library is
//! not judged there; it is listed apart.
//! Rules only the cross-rank run checks (`ranks:`, a run with `--launcher`) count only
//! when asked (`coverage --with-launcher`): a run without a launcher does not check them.

use mpit_report::Report;
use mpit_spec::cases::builtin;
use mpit_spec::cases::clauses::{Clauses, Strength};
use mpit_spec::cases::Suite;
use mpit_spec::verdict::{Level, Status};
use mpit_vocab::yaml::YamlError;
use std::collections::BTreeMap;
use std::collections::BTreeSet;

/// One rule's coverage.
#[derive(Debug, Clone)]
pub struct Row {
    pub rule: String,
    pub strength: Strength,
    /// The cases (and, with a launcher, cross-rank results) that cite it.
    pub cases: Vec<String>,
    /// Of `cases`, those that judge values as the library works: a step between its
    /// reads does MPI work, simulated work or `MPI_Init`, or nulls every OUT argument
    /// in turn ([`mpit_spec::cases::Step::exercises`]).
    pub values: Vec<String>,
    /// Whether one of `values` records if a value moved (`moved_from:`), so reports
    /// say how many of its results saw one move.
    pub observes_moves: bool,
    /// Why it is not covered, when it is not.
    pub why: Option<String>,
}

/// The measured coverage.
#[derive(Debug, Clone)]
pub struct Coverage {
    pub rows: Vec<Row>,
    /// What reports judged, once [`Coverage::judge`] was given them.
    pub judged: Option<Judged>,
}

/// The rules the reports judged.
#[derive(Debug, Clone, Default)]
pub struct Judged {
    /// Judged by the reference's report.
    pub reference: BTreeSet<String>,
    /// Rule → the real libraries whose report judged it.
    pub real: BTreeMap<String, Vec<String>>,
    /// MUST rule → the real libraries where its cases only crashed or hung (and no
    /// library judged it).
    pub crash_only: BTreeMap<String, Vec<String>>,
    /// The real libraries' names, in the order given.
    pub targets: Vec<String>,
    /// Rule → what its cases' results were on the real libraries (`skip`, `warn
    /// (robustness)`, ...) with counts: why a rule was not judged there.
    pub real_results: BTreeMap<String, BTreeMap<String, usize>>,
    /// Rule → results of its value cases whose value moved (`exercised: true`) on the
    /// reference, and on the real libraries together.
    pub moved: BTreeMap<String, (usize, usize)>,
}

fn level_word(l: Level) -> &'static str {
    match l {
        Level::Must => "must",
        Level::Should => "should",
        Level::Robustness => "robustness",
    }
}

/// A verdict: the case ran its check on the subject (not skipped, not unsupported, not
/// a harness error).
fn is_verdict(s: Status) -> bool {
    matches!(
        s,
        Status::Pass | Status::Fail | Status::Warn | Status::Crash | Status::Timeout
    )
}

/// One result as coverage sees it: status, level, `exercised` (false: held vacuously).
type Seen = (Status, Level, Option<bool>);

/// Whether a result judged a rule of `strength`: the check ran to its end on a
/// subject it had something to check on (not vacuously), and said pass or fail; a
/// MUST rule at level must, a rule of another strength at any level, warn included.
fn judges(strength: Strength, s: Status, l: Level, exercised: Option<bool>) -> bool {
    let came_to = match strength {
        Strength::Must => matches!(s, Status::Pass | Status::Fail) && l == Level::Must,
        _ => matches!(s, Status::Pass | Status::Fail | Status::Warn),
    };
    came_to && exercised != Some(false)
}

/// `with_launcher`: count the rules the cross-rank run checks.
pub fn measure(c: &Clauses, suite: &Suite, with_launcher: bool) -> Result<Coverage, YamlError> {
    let ids: BTreeSet<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
    let ranks: BTreeSet<&str> = builtin::CASES.iter().map(|c| c.id).collect();
    let bad = |message: String| YamlError {
        origin: "specs/clauses.yaml".into(),
        line: 0,
        col: 0,
        message,
    };
    let mut rows = Vec::new();
    for r in &c.rules {
        if let Some(id) = r.cases.iter().find(|id| !ids.contains(id.as_str())) {
            return Err(bad(format!(
                "rule {} names case `{id}`, which does not exist",
                r.rule
            )));
        }
        if let Some(id) = r.ranks.iter().find(|id| !ranks.contains(id.as_str())) {
            return Err(bad(format!(
                "rule {} names cross-rank result `{id}`, which does not exist",
                r.rule
            )));
        }
        let mut covering: Vec<String> = r.cases.clone();
        for case in &suite.cases {
            if case.rules.contains(&r.rule) && !covering.contains(&case.id) {
                covering.push(case.id.clone());
            }
        }
        let values: Vec<String> = suite
            .cases
            .iter()
            .filter(|c| covering.contains(&c.id))
            .filter(|c| c.steps.iter().any(|s| s.exercises().is_some()))
            .map(|c| c.id.clone())
            .collect();
        let observes_moves = suite.cases.iter().any(|c| {
            values.contains(&c.id)
                && c.steps
                    .iter()
                    .any(|s| s.expect.as_ref().is_some_and(|x| x.moved_from.is_some()))
        });
        let mut why = r.untestable.clone();
        if with_launcher {
            covering.extend(r.ranks.iter().cloned());
        } else if covering.is_empty() && !r.ranks.is_empty() {
            why = Some(format!(
                "checked only by the cross-rank run (--launcher: {}); `coverage --with-launcher` counts it",
                r.ranks.join(", ")
            ));
        }
        rows.push(Row {
            rule: r.rule.clone(),
            strength: r.strength,
            cases: covering,
            values,
            observes_moves,
            why,
        });
    }
    Ok(Coverage { rows, judged: None })
}

impl Coverage {
    /// The rules `report` judged: those with a result of a covering case that
    /// [`judges`] them.
    pub fn judged_by(&self, report: &Report) -> BTreeSet<String> {
        let by_case = Self::by_case(report);
        self.rows
            .iter()
            .filter(|row| {
                row.cases.iter().any(|c| {
                    by_case.get(c.as_str()).is_some_and(|rs| {
                        rs.iter().any(|(s, l, e)| judges(row.strength, *s, *l, *e))
                    })
                })
            })
            .map(|r| r.rule.clone())
            .collect()
    }

    /// The MUST rules whose cases gave `report` a crash or a timeout at level must and
    /// no pass or fail: checked only as far as the library let them.
    pub fn crash_only_in(&self, report: &Report) -> BTreeSet<String> {
        let by_case = Self::by_case(report);
        let judged = self.judged_by(report);
        self.rows
            .iter()
            .filter(|row| row.strength == Strength::Must && !judged.contains(&row.rule))
            .filter(|row| {
                row.cases.iter().any(|c| {
                    by_case.get(c.as_str()).is_some_and(|rs| {
                        rs.iter().any(|(s, l, _)| {
                            matches!(s, Status::Crash | Status::Timeout) && *l == Level::Must
                        })
                    })
                })
            })
            .map(|r| r.rule.clone())
            .collect()
    }

    /// Each case's results: status, level, and whether the check held vacuously.
    fn by_case(report: &Report) -> BTreeMap<&str, Vec<Seen>> {
        let mut by_case: BTreeMap<&str, Vec<_>> = BTreeMap::new();
        for r in &report.results {
            by_case
                .entry(r.case.as_str())
                .or_default()
                .push((r.status, r.level, r.exercised));
        }
        by_case
    }

    /// Per rule, the results of its value cases in `report` whose value moved.
    fn moved_in(&self, report: &Report) -> BTreeMap<String, usize> {
        self.rows
            .iter()
            .map(|row| {
                let n = report
                    .results
                    .iter()
                    .filter(|x| x.exercised == Some(true) && row.values.contains(&x.case))
                    .count();
                (row.rule.clone(), n)
            })
            .collect()
    }

    /// Counts what the reports judged: the reference's, and each real library's.
    pub fn judge(&mut self, reference: &Report, real: &[(String, Report)]) {
        let mut j = Judged {
            reference: self.judged_by(reference),
            ..Judged::default()
        };
        for (rule, n) in self.moved_in(reference) {
            j.moved.entry(rule).or_default().0 += n;
        }
        for (name, r) in real {
            j.targets.push(name.clone());
            for rule in self.judged_by(r) {
                j.real.entry(rule).or_default().push(name.clone());
            }
            for rule in self.crash_only_in(r) {
                j.crash_only.entry(rule).or_default().push(name.clone());
            }
            for (rule, n) in self.moved_in(r) {
                j.moved.entry(rule).or_default().1 += n;
            }
            for row in &self.rows {
                let seen = j.real_results.entry(row.rule.clone()).or_default();
                for x in r.results.iter().filter(|x| row.cases.contains(&x.case)) {
                    let key = match x.status {
                        s if is_verdict(s) => format!("{} ({})", s.as_str(), level_word(x.level)),
                        s => s.as_str().to_string(),
                    };
                    *seen.entry(key).or_default() += 1;
                }
            }
        }
        j.crash_only.retain(|rule, _| !j.real.contains_key(rule));
        self.judged = Some(j);
    }

    /// (judged on the reference, judged on at least one real library, total) of one
    /// strength; `None` before [`Coverage::judge`].
    pub fn judged_count(&self, s: Strength) -> Option<(usize, usize, usize)> {
        let j = self.judged.as_ref()?;
        let of: Vec<_> = self.rows.iter().filter(|r| r.strength == s).collect();
        Some((
            of.iter().filter(|r| j.reference.contains(&r.rule)).count(),
            of.iter().filter(|r| j.real.contains_key(&r.rule)).count(),
            of.len(),
        ))
    }

    /// (covered, total) of one strength.
    pub fn count(&self, s: Strength) -> (usize, usize) {
        let of: Vec<_> = self.rows.iter().filter(|r| r.strength == s).collect();
        (of.iter().filter(|r| !r.cases.is_empty()).count(), of.len())
    }

    pub fn percent(&self, s: Strength) -> f64 {
        let (c, t) = self.count(s);
        if t == 0 {
            100.0
        } else {
            100.0 * c as f64 / t as f64
        }
    }

    pub fn render(&self) -> String {
        let pct = |c: usize, t: usize| {
            if t == 0 {
                100.0
            } else {
                100.0 * c as f64 / t as f64
            }
        };
        let mut out = String::new();
        for s in [Strength::Must, Strength::Should, Strength::Ub] {
            let (c, t) = self.count(s);
            out.push_str(&format!(
                "{:<7} {c}/{t} rules cited by a case ({:.1}%)",
                format!("{s:?}").to_uppercase(),
                self.percent(s)
            ));
            if let Some((r, real, t)) = self.judged_count(s) {
                out.push_str(&format!(
                    "; judged on the reference {r}/{t} ({:.1}%); judged on a real library {real}/{t} ({:.1}%)",
                    pct(r, t),
                    pct(real, t)
                ));
            }
            out.push('\n');
        }
        // The rules judged on values as the library works, not only on what it declares.
        let valued: Vec<&Row> = self.rows.iter().filter(|r| !r.values.is_empty()).collect();
        out.push_str(&format!(
            "{} rules judged on values as the library works (cases with `activity`, \
             `simulate` or `mpi_init` between their reads, or `for_all: null_outs`):\n",
            valued.len()
        ));
        for r in valued {
            let moved = self.judged.as_ref().filter(|_| r.observes_moves).map_or(String::new(), |j| {
                let (a, b) = j.moved.get(&r.rule).copied().unwrap_or_default();
                format!("; results whose value moved: {a} on the reference, {b} on the real libraries")
            });
            out.push_str(&format!(
                "  {} ({:?}): {} of its {} cases ({}){moved}\n",
                r.rule,
                r.strength,
                r.values.len(),
                r.cases.len(),
                r.values.join(", ")
            ));
        }
        if let Some(j) = &self.judged {
            // Cited, but no real library gave a verdict in its cases: why, per rule.
            let unjudged: Vec<_> = self
                .rows
                .iter()
                .filter(|r| {
                    r.strength == Strength::Must
                        && !r.cases.is_empty()
                        && !j.real.contains_key(&r.rule)
                })
                .collect();
            if !unjudged.is_empty() {
                out.push_str(&format!(
                    "MUST rules cited but judged on no real library ({}):\n",
                    j.targets.join(", ")
                ));
                for Row { rule, cases, .. } in unjudged {
                    let on_ref = if j.reference.contains(rule) {
                        "judged on the reference"
                    } else {
                        "not judged on the reference either"
                    };
                    let crashed = j.crash_only.get(rule).map_or(String::new(), |libs| {
                        format!(
                            " (checked only as far as a crash or hang: {})",
                            libs.join(", ")
                        )
                    });
                    let seen = j.real_results.get(rule).filter(|m| !m.is_empty()).map_or(
                        "no results".to_string(),
                        |m| {
                            m.iter()
                                .map(|(k, n)| format!("{k} ×{n}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        },
                    );
                    out.push_str(&format!(
                        "  {rule}: {on_ref}; on the real libraries its cases ({}) gave {seen}{crashed}\n",
                        cases.join(", ")
                    ));
                }
            }
        }
        let missing: Vec<_> = self.rows.iter().filter(|r| r.cases.is_empty()).collect();
        if !missing.is_empty() {
            out.push_str("not covered:\n");
            for Row {
                rule,
                strength: s,
                why,
                ..
            } in missing
            {
                out.push_str(&format!(
                    "  {rule} ({s:?}){}\n",
                    why.as_ref().map_or(String::new(), |w| format!(": {w}"))
                ));
            }
        }
        out
    }
}
