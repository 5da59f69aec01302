//! Which MPI a probed header comes from: its family, its release and a one-line
//! description, all from the version macros. This decides the bundled profile the
//! result is compared with, so it stays one small piece apart from the probing itself.

use super::preprocess::Preprocessed;
use mpit_target::Release;
use mpit_vocab::profile::Family;
use std::fmt::Write as _;

/// The family a header belongs to (the same three as detection at run time).
pub(super) fn family(header: &str, pp: &Preprocessed) -> Family {
    if header == "mpi_abi.h" || pp.macros.contains_key("MPI_ABI_VERSION") {
        Family::Standard
    } else if pp.identifiers.contains("ompi_mpi_comm_world")
        || pp.macros.contains_key("OMPI_MAJOR_VERSION")
    {
        Family::Openmpi
    } else {
        Family::Mpich
    }
}

/// The release a header's version macros name, as `MPI_Get_library_version` would.
pub(super) fn release(pp: &Preprocessed) -> Release {
    let num = |s: &str| -> Option<(u32, u32)> {
        let mut it = s.split('.').map(|x| {
            x.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse::<u32>()
        });
        Some((
            it.next()?.ok()?,
            it.next().and_then(Result::ok).unwrap_or(0),
        ))
    };
    if let Some((year, _)) = pp.version("I_MPI_VERSION").as_deref().and_then(num) {
        Release::IntelMpi { year }
    } else if let Some((major, minor)) = pp.version("MPICH_VERSION").as_deref().and_then(num) {
        Release::Mpich { major, minor }
    } else if let Some(major) = pp
        .version("OMPI_MAJOR_VERSION")
        .and_then(|v| v.parse().ok())
    {
        Release::OpenMpi { major }
    } else {
        Release::Unknown
    }
}

/// A one-line description from the version macros.
pub(super) fn description(header: &str, family: Family, pp: &Preprocessed) -> String {
    let v = |n: &str| pp.version(n).unwrap_or_else(|| "?".into());
    let vendor = if let Some(i) = pp.version("I_MPI_VERSION") {
        format!("Intel MPI {i}")
    } else if let Some(m) = pp.version("MPICH_VERSION") {
        format!("MPICH {m}")
    } else if pp.macros.contains_key("OMPI_MAJOR_VERSION") {
        format!(
            "Open MPI {}.{}.{}",
            v("OMPI_MAJOR_VERSION"),
            v("OMPI_MINOR_VERSION"),
            v("OMPI_RELEASE_VERSION")
        )
    } else {
        format!("{family} family")
    };
    let mut d = if family == Family::Standard {
        format!(
            "MPI-5.0 standard ABI ({header} {}.{})",
            v("MPI_ABI_VERSION"),
            v("MPI_ABI_SUBVERSION")
        )
    } else {
        format!("{vendor} {header}")
    };
    if pp.macros.contains_key("MPI_VERSION") {
        let _ = write!(d, ", MPI {}.{}", v("MPI_VERSION"), v("MPI_SUBVERSION"));
    }
    d
}
