//! The cases written in Rust rather than YAML: the cross-rank run's results
//! (`runner::ranks`, with `--launcher`). Their ids and clauses are spec data like a YAML
//! case's, so coverage and `specs/clauses.yaml` (`ranks:`) name them from here.

use crate::verdict::{Area, CaseMeta, CaseResult, Level, Oracle, Status};

/// One result of the cross-rank run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaseDef {
    pub id: &'static str,
    pub clause: &'static str,
    /// The call whose answers are compared (evidence names it).
    pub call: &'static str,
}

/// MPI_T works on every rank of the job.
pub const WORKS: CaseDef = CaseDef {
    id: "ranks.mpi_t_works",
    clause: "MPI-4.1 §15.3.4 R-GEN-4 R-INIT-1 R-FIN-1",
    call: "MPI_T_init_thread",
};
pub const CVARS: CaseDef = CaseDef {
    id: "ranks.cvars.identical",
    clause: "MPI-4.1 §15.3.6 R-GEN-6 R-CVAR-4",
    call: "MPI_T_cvar_get_info",
};
pub const PVARS: CaseDef = CaseDef {
    id: "ranks.pvars.identical",
    clause: "MPI-4.1 §15.3.7 R-GEN-6 R-PVAR-3",
    call: "MPI_T_pvar_get_info",
};
/// MPI-4.1 §15.3.9 (R-GEN-6): an equivalent name across processes implies an
/// equivalent description.
pub const CATEGORIES: CaseDef = CaseDef {
    id: "ranks.categories.identical",
    clause: "MPI-4.1 §15.3.9 R-GEN-6",
    call: "MPI_T_category_get_info",
};
/// MPI-4.1 §15.3.8 (R-GEN-6): identical verbosity, datatypes, num_elements, enumtype, bind;
/// displacements may differ.
pub const EVENTS: CaseDef = CaseDef {
    id: "ranks.events.identical",
    clause: "MPI-4.1 §15.3.8 R-GEN-6",
    call: "MPI_T_event_get_info",
};
/// R-GEN-6: same-named enumerations have the same meaning but may have different items.
pub const ENUMS: CaseDef = CaseDef {
    id: "ranks.enums.identical",
    clause: "MPI-4.1 §15.3.5 R-GEN-6",
    call: "MPI_T_enum_get_item",
};

/// The cross-rank pvar values job (`runner::ranks::values`).
pub const VALUES: CaseDef = CaseDef {
    id: "ranks.pvars.values",
    clause: "MPI-4.1 §15.3.7 R-PCLASS R-PSTART-1",
    call: "MPI_T_pvar_read",
};

/// Every case of the cross-rank run (`specs/clauses.yaml` may name them under `ranks:`).
pub const CASES: [CaseDef; 7] = [WORKS, CVARS, PVARS, CATEGORIES, EVENTS, ENUMS, VALUES];

impl CaseDef {
    pub fn result(&self, subject: String, status: Status, message: String) -> CaseResult {
        let meta = CaseMeta {
            case: self.id,
            area: Area::Consistency,
            level: Level::Must,
            clause: self.clause,
            oracle: Oracle::RunWide,
        };
        CaseResult::new(meta, subject, status, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn case_ids_are_unique_and_in_the_consistency_area() {
        let ids: BTreeSet<&str> = CASES.iter().map(|c| c.id).collect();
        assert_eq!(ids.len(), CASES.len());
        for c in CASES {
            assert!(c.id.starts_with("ranks."));
            let r = c.result(String::new(), Status::Pass, String::new());
            assert_eq!(r.area, Area::Consistency);
            assert_eq!(r.oracle, Oracle::RunWide);
        }
    }
}
