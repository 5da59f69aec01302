//! The map from normative sentences to cases (specs/clauses.yaml): each rule's id,
//! strength, MPI-4.1 clause and a short quote of its sentence. Spec data, read by the
//! coverage count, the comparator (which cites a rule's clause) and the reports.

use crate::specs::Source;
use mpit_vocab::yaml::{self, YamlError};
use serde::Deserialize;

/// How strongly a rule binds (`strength:` in specs/clauses.yaml).
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
    /// `cases::builtin::CASES`).
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
    pub fn load(src: &Source) -> Result<Clauses, YamlError> {
        let (origin, text) = src.clauses()?;
        yaml::parse(&text, &origin)
    }
}

#[cfg(test)]
mod tests {
    use super::Clauses;
    use crate::cases::Builtin;
    use crate::specs::Source;

    /// A case that adds a built-in check cites its rule: each must be a rule of
    /// specs/clauses.yaml, or the case cites a rule no report can resolve.
    #[test]
    fn every_builtin_cites_a_rule_of_the_clauses() {
        let c = Clauses::load(&Source::Bundled).expect("the bundled clauses load");
        for b in Builtin::ALL {
            assert!(
                c.rules.iter().any(|r| r.rule == b.rule()),
                "{b:?} cites {}, which specs/clauses.yaml lacks",
                b.rule()
            );
        }
    }
}
