//! An expectation's set of return codes (`rc:` in a case): any `MPI_T_ERR_*`, or one
//! of the codes named (MPI-4.1 §15.3.10 lists the MPI_T error codes).

use mpit_spec::cases::expr::RcSet;
use mpit_vocab::profile::ReturnCode;

/// Whether `code` is in the expected set.
pub fn rc_matches(want: &RcSet, code: &ReturnCode) -> bool {
    match want {
        RcSet::AnyError => matches!(code, ReturnCode::T(_)),
        RcSet::AnyOf(names) => {
            let got = code.to_string();
            names.contains(&got)
        }
    }
}

pub fn rc_text(want: &RcSet) -> String {
    match want {
        RcSet::AnyError => "any MPI_T_ERR_*".into(),
        RcSet::AnyOf(n) if n.len() == 1 => n[0].clone(),
        RcSet::AnyOf(n) => format!("one of {}", n.join(", ")),
    }
}
