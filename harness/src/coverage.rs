//! Clause coverage: the map from normative sentences to cases (specs/clauses.yaml) and
//! how much of it the suite covers. A rule is covered when a case cites its id in
//! `rules:` or the map lists a case for it; every case the map names must exist.
//! Rules only the cross-rank run checks (`ranks:`, a run with `--launcher`) count only
//! when asked (`coverage --with-launcher`): a run without a launcher does not check them.

use crate::cases::Suite;
use mpit_reference::yaml::{self, YamlError};
use serde::Deserialize;
use std::collections::BTreeSet;

/// How strongly a rule binds (the digest's MUST / SHOULD / UB marks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strength {
    Must,
    Should,
    /// Undefined behaviour: only robustness cases can look at it.
    Ub,
    /// Advice, or an obligation of the user: listed, not counted.
    Info,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// `R-STR-1`, or `CH-...` for a sentence of the verbatim chapter text.
    pub rule: String,
    pub strength: Strength,
    pub clause: String,
    /// A short quote of the normative sentence.
    pub quote: String,
    #[serde(default)]
    pub cases: Vec<String>,
    /// Results of the cross-rank run (`--launcher`) that check it (`ranks.*`,
    /// `runner::ranks::CASES`).
    #[serde(default)]
    pub ranks: Vec<String>,
    /// Why no case can check it (e.g. needs several processes); counted as uncovered.
    #[serde(default)]
    pub untestable: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clauses {
    pub rules: Vec<Rule>,
}

impl Clauses {
    /// `clauses.yaml` of the spec source (the bundle's, or beside a case directory).
    pub fn load(src: &crate::specs::Source) -> Result<Clauses, YamlError> {
        let (origin, text) = src.clauses()?;
        yaml::parse(&text, &origin)
    }
}

/// The measured coverage.
#[derive(Debug, Clone)]
pub struct Coverage {
    /// (rule, strength, covering cases)
    pub rows: Vec<(String, Strength, Vec<String>, Option<String>)>,
}

/// `with_launcher`: count the rules the cross-rank run checks.
pub fn measure(c: &Clauses, suite: &Suite, with_launcher: bool) -> Result<Coverage, YamlError> {
    let ids: BTreeSet<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
    let ranks: BTreeSet<&str> = crate::runner::ranks::CASES.iter().map(|c| c.id).collect();
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
        let mut why = r.untestable.clone();
        if with_launcher {
            covering.extend(r.ranks.iter().cloned());
        } else if covering.is_empty() && !r.ranks.is_empty() {
            why = Some(format!(
                "checked only by the cross-rank run (--launcher: {}); `coverage --with-launcher` counts it",
                r.ranks.join(", ")
            ));
        }
        rows.push((r.rule.clone(), r.strength, covering, why));
    }
    Ok(Coverage { rows })
}

impl Coverage {
    /// (covered, total) of one strength.
    pub fn count(&self, s: Strength) -> (usize, usize) {
        let of: Vec<_> = self.rows.iter().filter(|r| r.1 == s).collect();
        (of.iter().filter(|r| !r.2.is_empty()).count(), of.len())
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
        let mut out = String::new();
        for s in [Strength::Must, Strength::Should, Strength::Ub] {
            let (c, t) = self.count(s);
            out.push_str(&format!(
                "{:<7} {c}/{t} rules covered ({:.1}%)\n",
                format!("{s:?}").to_uppercase(),
                self.percent(s)
            ));
        }
        let missing: Vec<_> = self.rows.iter().filter(|r| r.2.is_empty()).collect();
        if !missing.is_empty() {
            out.push_str("not covered:\n");
            for (rule, s, _, why) in missing {
                out.push_str(&format!(
                    "  {rule} ({s:?}){}\n",
                    why.as_ref().map_or(String::new(), |w| format!(": {w}"))
                ));
            }
        }
        out
    }
}
