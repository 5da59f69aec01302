//! The predefined handles the MPI_T calls take for "none" and "all", as this process
//! sees them: one table on [`crate::Target`], read once from the profile's resolved
//! handles.

use std::collections::BTreeMap;

/// The predefined handles the MPI_T calls take for "none" and "all" (MPI-4.1 §15.3.5 to
/// §15.3.8; `MPI_INFO_NULL`, §10), as this process sees them: the values of
/// [`crate::Target::handles`] under their spec names, looked up once instead of by name per
/// call. 0 where the profile names none (a profile of a library without events has no
/// registration NULL).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Predefined {
    pub info_null: u64,
    pub enum_null: u64,
    pub cvar_handle_null: u64,
    pub pvar_session_null: u64,
    pub pvar_handle_null: u64,
    /// MPI-4.1 names no NULL event registration or instance: 0 unless a profile does.
    pub registration_null: u64,
    pub instance_null: u64,
    /// `MPI_T_PVAR_ALL_HANDLES` (§15.3.7).
    pub all_handles: u64,
}

impl Predefined {
    pub fn of(handles: &BTreeMap<String, u64>) -> Predefined {
        let h = |n: &str| handles.get(n).copied().unwrap_or(0);
        Predefined {
            info_null: h("MPI_INFO_NULL"),
            enum_null: h("MPI_T_ENUM_NULL"),
            cvar_handle_null: h("MPI_T_CVAR_HANDLE_NULL"),
            pvar_session_null: h("MPI_T_PVAR_SESSION_NULL"),
            pvar_handle_null: h("MPI_T_PVAR_HANDLE_NULL"),
            registration_null: h("MPI_T_EVENT_REGISTRATION_NULL"),
            instance_null: h("MPI_T_EVENT_INSTANCE_NULL"),
            all_handles: h("MPI_T_PVAR_ALL_HANDLES"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BUNDLED;

    /// Every bundled profile names the predefined handles `Predefined` reads (a name
    /// spelled otherwise would read as 0, a valid handle in some families): the NULL
    /// handles and ALL_HANDLES the standard defines. MPI-4.1 names no NULL event
    /// registration or instance, and no profile does.
    #[test]
    fn every_bundled_profile_names_the_predefined_handles() {
        for b in BUNDLED {
            let p = b.profile().unwrap_or_else(|e| panic!("{e}"));
            for n in [
                "MPI_INFO_NULL",
                "MPI_T_ENUM_NULL",
                "MPI_T_CVAR_HANDLE_NULL",
                "MPI_T_PVAR_SESSION_NULL",
                "MPI_T_PVAR_HANDLE_NULL",
                "MPI_T_PVAR_ALL_HANDLES",
            ] {
                assert!(p.handles.contains_key(n), "{}: {n}", b.name);
            }
            for n in ["MPI_T_EVENT_REGISTRATION_NULL", "MPI_T_EVENT_INSTANCE_NULL"] {
                assert!(!p.handles.contains_key(n), "{}: {n}", b.name);
            }
        }
        let h: BTreeMap<String, u64> = [("MPI_T_PVAR_ALL_HANDLES", 7), ("MPI_INFO_NULL", 9)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let p = Predefined::of(&h);
        assert_eq!((p.all_handles, p.info_null, p.enum_null), (7, 9, 0));
    }
}
