//! The run-wide check (MPI-4.1 §15.3.10, R-RC-1/R-RC-3, R-NA-1): every return code
//! observed during the run, per function, against specs/return-codes.yaml.

use mpit_spec::specs;
use mpit_spec::verdict::{Area, CaseMeta, CaseResult, Level, Oracle, Status};
use mpit_vocab::yaml::{self, YamlError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Every return code seen per MPI_T function during a run (the run-wide check of
/// R-RC-1..3 and R-NA-1 is judged from it by the runner).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RcLog(pub BTreeMap<String, BTreeMap<String, u64>>);

impl RcLog {
    pub fn merge(&mut self, other: &RcLog) {
        for (f, codes) in &other.0 {
            let e = self.0.entry(f.clone()).or_default();
            for (c, n) in codes {
                *e.entry(c.clone()).or_default() += n;
            }
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub all: Vec<String>,
    pub never_not_accessible: Vec<String>,
    pub groups: BTreeMap<String, Group>,
    /// Calls with two errors at once, by name: the codes that conform (`either:`).
    #[serde(default)]
    pub either: BTreeMap<String, Either>,
    /// The level each oracle judges a call at, by the condition of its arguments.
    #[serde(default)]
    pub levels: BTreeMap<String, Condition>,
}

/// A condition of a call's arguments and the level the standard fixes its outcome at.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    pub level: Level,
    pub rules: Vec<String>,
    /// Spec-suite cases judged in this condition: their `level` must be this one.
    #[serde(default)]
    pub cases: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Either {
    pub codes: Vec<String>,
    /// Spec-suite cases that must accept exactly these codes at one step.
    #[serde(default)]
    pub cases: Vec<String>,
}

/// The `either:` entry of a call outside the interface that passes a handle or session.
pub const HANDLE_OUTSIDE_THE_INTERFACE: &str = "handle_outside_the_interface";
/// The `either:` entry of readreset on a read-only, non-atomic variable.
pub const READRESET_READONLY_NON_ATOMIC: &str = "readreset_readonly_non_atomic";
/// The `either:` entry of another session's handle on a variable that refuses the call.
pub const FOREIGN_HANDLE_REFUSED_ANYWAY: &str = "foreign_handle_refused_anyway";

/// The `levels:` conditions the comparator asks for (`Table::level`).
pub const BAD_INDEX_TABLE_ONLY: &str = "bad_index_table_only";
pub const BAD_INDEX_EXPLICIT: &str = "bad_index_explicit";
pub const UNDEFINED_ARGUMENT: &str = "undefined_argument";
pub const NULL_OUT_UNSTATED: &str = "null_out_unstated";
pub const CODE_OUTSIDE_THE_TABLE_IN_AN_ERRONEOUS_CALL: &str =
    "code_outside_the_table_in_an_erroneous_call";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    pub functions: Vec<String>,
    pub codes: Vec<String>,
}

/// The table's text, from the spec bundle.
pub fn table_text() -> &'static str {
    specs::text("return-codes.yaml").unwrap_or_default()
}
pub const CASE: &str = "errors.return_codes.allowed";
pub const CLAUSE: &str = "MPI-4.1 §15.3.10 R-RC-1 R-RC-3 R-NA-1";
const NOT_ACCESSIBLE: &str = "MPI_T_ERR_NOT_ACCESSIBLE";

impl Table {
    pub fn bundled() -> Result<Table, YamlError> {
        yaml::parse(table_text(), "specs/return-codes.yaml")
    }

    /// The bundled table, parsed once per process (`None` if it does not parse: the
    /// run-wide check reports that).
    pub fn shared() -> Option<&'static Table> {
        static T: std::sync::OnceLock<Option<Table>> = std::sync::OnceLock::new();
        T.get_or_init(|| Table::bundled().ok()).as_ref()
    }

    /// The codes that conform for a call of `function` with the two errors of entry
    /// `which`: the entry's codes that the table allows `function` at all. Empty when
    /// the entry does not exist.
    pub fn either(&self, which: &str, function: &str) -> Vec<String> {
        let allowed = self.allowed(function);
        self.either
            .get(which)
            .map(|e| {
                e.codes
                    .iter()
                    .filter(|c| allowed.contains(*c))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether `code` is one of the codes of `either:` entry `which` for `function`.
    pub fn either_has(&self, which: &str, function: &str, code: &str) -> bool {
        self.either(which, function).iter().any(|c| c == code)
    }

    /// The level of `levels:` condition `which`. A name the bundled table lacks is a
    /// harness bug (a unit test checks every name the code asks for): it judges at
    /// must, never more leniently than the table would.
    pub fn level(&self, which: &str) -> Level {
        self.levels.get(which).map_or(Level::Must, |c| c.level)
    }

    /// [`Table::level`] of the bundled table.
    pub fn shared_level(which: &str) -> Level {
        Table::shared().map_or(Level::Must, |t| t.level(which))
    }

    /// [`Table::either_has`] of the bundled table.
    pub fn shared_either_has(which: &str, function: &str, code: &str) -> bool {
        Table::shared().is_some_and(|t| t.either_has(which, function, code))
    }

    /// Codes `function` may return besides MPI_SUCCESS.
    pub fn allowed(&self, function: &str) -> BTreeSet<String> {
        let mut s: BTreeSet<String> = self.all.iter().cloned().collect();
        if self.never_not_accessible.iter().any(|f| f == function) {
            s.remove("MPI_T_ERR_NOT_ACCESSIBLE");
        }
        for g in self.groups.values() {
            if g.functions.iter().any(|f| f == function) {
                s.extend(g.codes.iter().cloned());
            }
        }
        s
    }
}

/// The log key of a call made by an `erroneous` step (R-GEN-3: its arguments are ones
/// the standard leaves undefined): its codes are judged at robustness level.
pub const ERRONEOUS: &str = " (erroneous)";

/// The key under which `exec` logs a call's return code.
pub fn log_key(function: &str, erroneous: bool) -> String {
    if erroneous {
        format!("{function}{ERRONEOUS}")
    } else {
        function.to_string()
    }
}

/// One result per function seen in the run. A code the table does not allow is a
/// `fail` (R-RC-1/R-RC-3, R-NA-1) when a valid call returned it; when only `erroneous`
/// calls did, undefined behaviour allows it: `warn` (`fail` under --strict).
pub fn judge(table: &Table, log: &RcLog, strict: bool) -> Vec<CaseResult> {
    // function → [codes of other calls, codes of erroneous calls]
    let mut by_fn: BTreeMap<&str, [BTreeMap<&str, u64>; 2]> = BTreeMap::new();
    for (key, codes) in &log.0 {
        let (f, slot) = match key.strip_suffix(ERRONEOUS) {
            Some(f) => (f, 1),
            None => (key.as_str(), 0),
        };
        let m = &mut by_fn.entry(f).or_default()[slot];
        for (c, n) in codes {
            *m.entry(c.as_str()).or_default() += n;
        }
    }
    let lenient = if strict { Status::Fail } else { Status::Warn };
    by_fn
        .into_iter()
        .map(|(f, [valid, erroneous])| {
            let allowed = table.allowed(f);
            let bad = |m: &BTreeMap<&str, u64>| -> Vec<String> {
                m.iter()
                    .filter(|(c, _)| **c != "MPI_SUCCESS" && !allowed.contains(**c))
                    .map(|(c, n)| format!("{c} ×{n}"))
                    .collect()
            };
            let list = |m: &BTreeMap<&str, u64>| -> String {
                m.iter()
                    .map(|(c, n)| format!("{c} ×{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let seen = match (valid.is_empty(), erroneous.is_empty()) {
                (_, true) => list(&valid),
                (true, false) => format!("in erroneous calls {}", list(&erroneous)),
                (false, false) => {
                    format!("{}; in erroneous calls {}", list(&valid), list(&erroneous))
                }
            };
            let (bad_valid, bad_erroneous) = (bad(&valid), bad(&erroneous));
            // R-NA-1's harness rule (MPI-4.1 §15.3.8): NOT_ACCESSIBLE where it is allowed is
            // still a quality warning outside a callback, and the harness calls these
            // functions from no callback.
            let not_accessible =
                valid.contains_key(NOT_ACCESSIBLE) || erroneous.contains_key(NOT_ACCESSIBLE);
            let (status, level, message) = if !bad_valid.is_empty() {
                (
                    Status::Fail,
                    Level::Must,
                    format!(
                        "returned codes the table does not allow for it: {} (seen: {seen})",
                        bad_valid.join(", ")
                    ),
                )
            } else if !bad_erroneous.is_empty() {
                (
                    lenient,
                    Level::Robustness,
                    format!(
                        "returned codes the table does not allow for it, but only to calls \
                         whose arguments the standard leaves undefined (R-GEN-3): {} \
                         (seen: {seen})",
                        bad_erroneous.join(", ")
                    ),
                )
            } else if not_accessible {
                (
                    lenient,
                    Level::Should,
                    format!(
                        "{NOT_ACCESSIBLE} outside any callback (allowed, but high-quality \
                         implementations return it only when absolutely necessary; seen: \
                         {seen})"
                    ),
                )
            } else {
                (
                    Status::Pass,
                    Level::Must,
                    format!("every return code allowed: {seen}"),
                )
            };
            let meta = CaseMeta {
                case: CASE,
                area: Area::Errors,
                level,
                clause: CLAUSE,
                oracle: Oracle::RunWide,
            };
            CaseResult::new(meta, f.to_string(), status, message)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpit_spec::cases::expr::RcSet;
    use mpit_spec::cases::funcs::Func;
    use mpit_spec::cases::Suite;
    use mpit_spec::readings;
    use mpit_spec::readings::{get, EVENTS_HANDLE_AND_INDEX_CODES};
    use mpit_spec::specs::Source;

    /// Every case an `either:` entry names accepts exactly its codes at one step, and
    /// every case a `levels:` condition names has its level: the spec suite and the
    /// comparator read one policy. And every name the code asks for exists.
    #[test]
    fn the_suites_cases_follow_the_policy() {
        let t = Table::bundled().expect("table");
        let suite = Suite::load(&Source::Bundled).expect("suite");
        let case = |id: &str| {
            suite
                .cases
                .iter()
                .find(|c| c.id == id)
                .unwrap_or_else(|| panic!("the policy names case {id}, which does not exist"))
        };
        for (name, e) in &t.either {
            let want: BTreeSet<&String> = e.codes.iter().collect();
            for id in &e.cases {
                let sets: Vec<BTreeSet<&String>> = case(id)
                    .steps
                    .iter()
                    .filter_map(|s| match s.expect.as_ref().and_then(|x| x.rc.as_ref()) {
                        Some(RcSet::AnyOf(v)) => Some(v.iter().collect()),
                        _ => None,
                    })
                    .collect();
                assert!(
                    sets.contains(&want),
                    "{id} (either: {name}) has no step accepting exactly {want:?}: {sets:?}"
                );
            }
        }
        for (name, c) in &t.levels {
            for id in &c.cases {
                assert_eq!(case(id).level, c.level, "{id} (levels: {name})");
            }
        }
        for name in [
            HANDLE_OUTSIDE_THE_INTERFACE,
            READRESET_READONLY_NON_ATOMIC,
            FOREIGN_HANDLE_REFUSED_ANYWAY,
        ] {
            assert!(t.either.contains_key(name), "either: {name}");
        }
        for name in [
            BAD_INDEX_TABLE_ONLY,
            BAD_INDEX_EXPLICIT,
            UNDEFINED_ARGUMENT,
            NULL_OUT_UNSTATED,
            CODE_OUTSIDE_THE_TABLE_IN_AN_ERRONEOUS_CALL,
        ] {
            assert!(t.levels.contains_key(name), "levels: {name}");
        }
        // Every bad-index case of the suite is in a condition.
        let listed: BTreeSet<&String> = t.levels.values().flat_map(|c| &c.cases).collect();
        for c in suite.cases.iter().filter(|c| c.id.contains("bad_index")) {
            assert!(
                listed.contains(&c.id),
                "{} is in no `levels:` condition",
                c.id
            );
        }
        // Per function, only the codes the table allows it.
        assert_eq!(
            t.either(HANDLE_OUTSIDE_THE_INTERFACE, "MPI_T_pvar_session_free"),
            ["MPI_T_ERR_NOT_INITIALIZED", "MPI_T_ERR_INVALID_SESSION"]
        );
        assert_eq!(
            t.either(HANDLE_OUTSIDE_THE_INTERFACE, "MPI_T_enum_get_info"),
            ["MPI_T_ERR_NOT_INITIALIZED"]
        );
    }

    /// The cases fuzz-props wrote (`differential.*`) accept more than one code only
    /// where the policy does: an `either:` entry or a tolerance of specs/readings.yaml.
    /// Checked against the policy, not against the model that wrote them.
    #[test]
    fn written_cases_accept_only_what_the_policy_allows() {
        let t = Table::bundled().expect("table");
        let mut allowed: Vec<BTreeSet<String>> = t
            .either
            .values()
            .map(|e| e.codes.iter().cloned().collect())
            .collect();
        allowed.extend(
            readings::bundled()
                .expect("readings")
                .iter()
                .filter(|r| !r.codes.is_empty())
                .map(|r| r.codes.iter().cloned().collect()),
        );
        let suite = Suite::load(&Source::Bundled).expect("suite");
        let mut sets = 0;
        for c in suite
            .cases
            .iter()
            .filter(|c| c.id.starts_with("differential."))
        {
            for s in &c.steps {
                if let Some(RcSet::AnyOf(v)) = s.expect.as_ref().and_then(|x| x.rc.as_ref()) {
                    if v.len() > 1 {
                        sets += 1;
                        let got: BTreeSet<String> = v.iter().cloned().collect();
                        assert!(
                            allowed.iter().any(|a| got.is_subset(a) && got.len() > 1),
                            "{}: accepts {got:?}, which no policy entry allows together",
                            c.id
                        );
                    }
                }
            }
        }
        assert!(
            sets > 0,
            "no written case accepts two codes: the check checked nothing"
        );
    }

    /// The event functions' codes rest on specs/readings.yaml
    /// `events.handle_and_index_codes`: the group allows exactly its codes.
    #[test]
    fn the_event_group_is_the_readings_tolerance() {
        let t = Table::bundled().expect("table parses");
        let r = get(EVENTS_HANDLE_AND_INDEX_CODES).expect("the entry exists");
        assert_eq!(t.groups["events"].codes, r.codes);
    }

    #[test]
    fn table_parses_and_covers_the_51_functions() {
        let t = Table::bundled().unwrap();
        for f in Func::mpi_t() {
            let covered = t
                .groups
                .values()
                .any(|g| g.functions.iter().any(|x| x == f.c_name()));
            assert!(covered, "{} in no group", f.c_name());
        }
        assert!(!t
            .allowed("MPI_T_pvar_read")
            .contains("MPI_T_ERR_NOT_ACCESSIBLE"));
        assert!(t
            .allowed("MPI_T_cvar_read")
            .contains("MPI_T_ERR_NOT_ACCESSIBLE"));
        assert!(t
            .allowed("MPI_T_category_get_index")
            .contains("MPI_T_ERR_INVALID_NAME"));
        let mut log = RcLog::default();
        log.0
            .entry("MPI_T_pvar_read".into())
            .or_default()
            .insert("MPI_T_ERR_NOT_ACCESSIBLE".into(), 1);
        log.0
            .entry("MPI_T_cvar_get_num".into())
            .or_default()
            .insert("MPI_SUCCESS".into(), 3);
        log.0
            .entry("MPI_T_cvar_read".into())
            .or_default()
            .insert("MPI_T_ERR_NOT_ACCESSIBLE".into(), 1);
        // An MPI error class from an erroneous call only: robustness (warn).
        log.0
            .entry(log_key("MPI_T_pvar_write", true))
            .or_default()
            .insert("MPI_ERR_INTERN".into(), 1);
        log.0
            .entry("MPI_T_pvar_write".into())
            .or_default()
            .insert("MPI_SUCCESS".into(), 2);
        let strict = judge(&t, &log, true);
        assert_eq!(
            strict.iter().filter(|x| x.status == Status::Fail).count(),
            3
        );
        let r = judge(&t, &log, false);
        assert_eq!(r.iter().filter(|x| x.status == Status::Fail).count(), 1);
        let w = r.iter().find(|x| x.subject == "MPI_T_pvar_write").unwrap();
        assert_eq!((w.status, w.level), (Status::Warn, Level::Robustness));
        assert!(
            w.message.contains("in erroneous calls MPI_ERR_INTERN ×1"),
            "{}",
            w.message
        );
        let warned: Vec<&str> = r
            .iter()
            .filter(|x| x.status == Status::Warn)
            .map(|x| x.subject.as_str())
            .collect();
        assert_eq!(warned, ["MPI_T_cvar_read", "MPI_T_pvar_write"]);
        assert_eq!(r.len(), 4);
    }
}
