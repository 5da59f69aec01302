//! The run-wide check (MPI-4.1 §15.3.10, R-RC-1/R-RC-3, R-NA-1): every return code
//! observed during the run, per function, against specs/return-codes.yaml.

use crate::exec::RcLog;
use crate::verdict::{Area, CaseResult, Level, Oracle, Status};
use mpit_reference::yaml::{self, YamlError};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub all: Vec<String>,
    pub never_not_accessible: Vec<String>,
    pub groups: BTreeMap<String, Group>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    pub functions: Vec<String>,
    pub codes: Vec<String>,
}

pub const TABLE: &str = include_str!("../../../specs/return-codes.yaml");
pub const CASE: &str = "errors.return_codes.allowed";
pub const CLAUSE: &str = "MPI-4.1 §15.3.10 R-RC-1 R-RC-3 R-NA-1";
const NOT_ACCESSIBLE: &str = "MPI_T_ERR_NOT_ACCESSIBLE";

impl Table {
    pub fn bundled() -> Result<Table, YamlError> {
        yaml::parse(TABLE, "specs/return-codes.yaml")
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

/// One result per function seen in the run.
pub fn judge(table: &Table, log: &RcLog) -> Vec<CaseResult> {
    log.0
        .iter()
        .map(|(f, codes)| {
            let allowed = table.allowed(f);
            let bad: Vec<String> = codes
                .iter()
                .filter(|(c, _)| *c != "MPI_SUCCESS" && !allowed.contains(*c))
                .map(|(c, n)| format!("{c} ×{n}"))
                .collect();
            let seen: Vec<String> = codes.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
            // R-NA-1's harness rule (digest §7.3): NOT_ACCESSIBLE where it is allowed is
            // still a quality warning outside a callback, and the harness calls these
            // functions from no callback.
            let not_accessible = codes.contains_key(NOT_ACCESSIBLE);
            let (status, level) = match (bad.is_empty(), not_accessible) {
                (false, _) => (Status::Fail, Level::Must),
                (true, true) => (Status::Warn, Level::Should),
                (true, false) => (Status::Pass, Level::Must),
            };
            CaseResult {
                case: CASE.into(),
                area: Area::Errors,
                subject: f.clone(),
                status,
                level,
                clause: CLAUSE.into(),
                oracle: Oracle::RunWide,
                message: match status {
                    Status::Pass => format!("every return code allowed: {}", seen.join(", ")),
                    Status::Warn => format!(
                        "{NOT_ACCESSIBLE} outside any callback (allowed, but high-quality \
                         implementations return it only when absolutely necessary; seen: {})",
                        seen.join(", ")
                    ),
                    _ => format!(
                        "returned codes the table does not allow for it: {} (seen: {})",
                        bad.join(", "),
                        seen.join(", ")
                    ),
                },
                reading: None,
                duration_ms: 0.0,
                waived: None,
                evidence: Vec::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_covers_the_51_functions() {
        let t = Table::bundled().unwrap();
        for f in crate::cases::funcs::Func::mpi_t() {
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
        let r = judge(&t, &log);
        assert_eq!(r.iter().filter(|x| x.status == Status::Fail).count(), 1);
        let warned: Vec<&str> = r
            .iter()
            .filter(|x| x.status == Status::Warn)
            .map(|x| x.subject.as_str())
            .collect();
        assert_eq!(warned, ["MPI_T_cvar_read"]);
        assert_eq!(r.len(), 3);
    }
}
